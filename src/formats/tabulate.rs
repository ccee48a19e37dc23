//! The two tables sacrebleu prints with Python's `tabulate` (0.9, 0.10): `fancy_grid` and
//! `latex_booktabs`, for its call (`colalign=('right',)`, everything else centred, strings
//! kept as written), byte for byte. Widths count characters, as tabulate does without
//! `wcwidth`.

/// Which of tabulate's formats.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Style {
    FancyGrid,
    LatexBooktabs,
}

/// The table of `headers` and `rows`; the first column is right-aligned, the others centred; a
/// cell may hold several lines (`\n`).
pub fn render(headers: &[String], rows: &[Vec<String>], style: Style) -> String {
    let columns = headers.len();
    let length = |s: &str| s.chars().count();
    // tabulate reserves two characters around each header.
    let widths: Vec<usize> = (0..columns)
        .map(|j| {
            let cells = rows
                .iter()
                .flat_map(|row| row[j].split('\n'))
                .map(length)
                .max()
                .unwrap_or(0);
            cells.max(length(&headers[j]) + 2)
        })
        .collect();
    let align = |j: usize, text: &str| {
        let pad = widths[j].saturating_sub(length(text));
        let left = if j == 0 { pad } else { pad / 2 };
        format!("{}{text}{}", " ".repeat(left), " ".repeat(pad - left))
    };
    let header: Vec<String> = headers
        .iter()
        .enumerate()
        .map(|(j, h)| align(j, h))
        .collect();
    match style {
        Style::FancyGrid => {
            let line = |begin: &str, fill: &str, sep: &str, end: &str| {
                let parts: Vec<String> = widths.iter().map(|w| fill.repeat(w + 2)).collect();
                format!("{begin}{}{end}", parts.join(sep))
            };
            let row_line = |cells: &[String]| {
                let padded: Vec<String> = cells.iter().map(|c| format!(" {c} ")).collect();
                format!("│{}│", padded.join("│"))
            };
            let mut lines = vec![
                line("╒", "═", "╤", "╕"),
                row_line(&header),
                line("╞", "═", "╪", "╡"),
            ];
            for (i, row) in rows.iter().enumerate() {
                if i > 0 {
                    lines.push(line("├", "─", "┼", "┤"));
                }
                let cells: Vec<Vec<&str>> = row.iter().map(|c| c.split('\n').collect()).collect();
                let height = cells.iter().map(Vec::len).max().unwrap_or(1);
                for k in 0..height {
                    let aligned: Vec<String> = cells
                        .iter()
                        .enumerate()
                        .map(|(j, lines)| {
                            lines
                                .get(k)
                                .map_or(" ".repeat(widths[j]), |text| align(j, text))
                        })
                        .collect();
                    lines.push(row_line(&aligned));
                }
            }
            lines.push(line("╘", "═", "╧", "╛"));
            lines.join("\n")
        }
        Style::LatexBooktabs => {
            let row_line = |cells: &[String]| {
                let padded: Vec<String> = cells
                    .iter()
                    .map(|c| latex_escape(&format!(" {c} ")))
                    .collect();
                format!("{}\\\\", padded.join("&"))
            };
            let spec: String = (0..columns)
                .map(|j| if j == 0 { 'r' } else { 'c' })
                .collect();
            let mut lines = vec![
                format!("\\begin{{tabular}}{{{spec}}}\n\\toprule"),
                row_line(&header),
                "\\midrule".to_string(),
            ];
            for row in rows {
                let aligned: Vec<String> =
                    row.iter().enumerate().map(|(j, c)| align(j, c)).collect();
                lines.push(row_line(&aligned));
            }
            lines.push("\\bottomrule\n\\end{tabular}".to_string());
            lines.join("\n")
        }
    }
}

/// tabulate's LaTeX escapes, character by character.
fn latex_escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("\\&"),
            '%' => out.push_str("\\%"),
            '$' => out.push_str("\\$"),
            '#' => out.push_str("\\#"),
            '_' => out.push_str("\\_"),
            '^' => out.push_str("\\^{}"),
            '{' => out.push_str("\\{"),
            '}' => out.push_str("\\}"),
            '~' => out.push_str("\\textasciitilde{}"),
            '\\' => out.push_str("\\textbackslash{}"),
            '<' => out.push_str("\\ensuremath{<}"),
            '>' => out.push_str("\\ensuremath{>}"),
            c => out.push(c),
        }
    }
    out
}
