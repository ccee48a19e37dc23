//! SVG text drawn by hand, shared by the pictures of `report` and `rerank`: the frame and axes
//! of a plot, colours, numbers for axes, and a statistic drawn against n-best size.

use std::fmt::Write as _;

use super::xml::escape;

/// Colours of systems and of PoD's segments (Paul Tol's "bright" scheme, for colour-blind
/// readers).
pub const PALETTE: [&str; 6] = [
    "#4477aa", "#ee6677", "#228833", "#ccbb44", "#66ccee", "#aa3377",
];

/// A number for an axis or a tooltip: few digits, no trailing zeros.
pub fn number(x: f64) -> String {
    let digits = if x == 0.0 || x.abs() >= 100.0 {
        0
    } else if x.abs() >= 1.0 {
        2
    } else {
        3
    };
    let text = format!("{x:.digits$}");
    if text.contains('.') {
        text.trim_end_matches('0').trim_end_matches('.').to_string()
    } else {
        text
    }
}

/// Ticks at the ends and three between.
pub fn ticks(low: f64, high: f64) -> impl Iterator<Item = f64> {
    (0..=4).map(move |k| low + (high - low) * k as f64 / 4.0)
}

/// A plot's width and height, and the margins around its frame.
pub const W: f64 = 440.0;
pub const H: f64 = 220.0;
pub const LEFT: f64 = 56.0;
pub const RIGHT: f64 = 12.0;
pub const TOP: f64 = 16.0;
pub const BOTTOM: f64 = 40.0;

/// The opening tag of a picture `w` by `h`, `label` for screen readers.
pub fn open_svg(w: f64, h: f64, label: &str) -> String {
    format!(
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="{h}" viewBox="0 0 {w} {h}" role="img" aria-label="{}" font-family="sans-serif" font-size="11">"#,
        escape(label)
    )
}

/// How a plot's y axis is labelled: counts as integers, or values as they are.
#[derive(Clone, Copy, PartialEq)]
pub enum YTicks {
    Counts,
    Values,
}

/// Axes of a plot over x in [low, high] and y in [bottom, top]: ticks, labels and the frame.
pub fn axes(
    svg: &mut String,
    (low, high): (f64, f64),
    (bottom, top, y_ticks): (f64, f64, YTicks),
    x_label: &str,
    y_label: &str,
) {
    let (pw, ph) = (W - LEFT - RIGHT, H - TOP - BOTTOM);
    let _ = write!(
        svg,
        r##"<rect x="{LEFT}" y="{TOP}" width="{pw}" height="{ph}" fill="none" stroke="#ccc"/>"##
    );
    for (k, t) in ticks(low, high).enumerate() {
        let tx = LEFT + pw * k as f64 / 4.0;
        let _ = write!(
            svg,
            r##"<line x1="{tx:.1}" y1="{}" x2="{tx:.1}" y2="{}" stroke="#888"/><text x="{tx:.1}" y="{}" text-anchor="middle">{}</text>"##,
            TOP + ph,
            TOP + ph + 4.0,
            TOP + ph + 16.0,
            number(t)
        );
    }
    for (k, t) in ticks(bottom, top).enumerate() {
        let ty = TOP + ph * (1.0 - k as f64 / 4.0);
        let _ = write!(
            svg,
            r##"<line x1="{}" y1="{ty:.1}" x2="{LEFT}" y2="{ty:.1}" stroke="#888"/><text x="{}" y="{:.1}" text-anchor="end">{}</text>"##,
            LEFT - 4.0,
            LEFT - 6.0,
            ty + 4.0,
            number(if y_ticks == YTicks::Counts {
                t.round()
            } else {
                t
            })
        );
    }
    let _ = write!(
        svg,
        r#"<text x="{:.1}" y="{}" text-anchor="middle" font-size="12">{}</text><text transform="translate(12 {:.1}) rotate(-90)" text-anchor="middle" font-size="12">{}</text>"#,
        LEFT + pw / 2.0,
        H - 6.0,
        escape(x_label),
        TOP + ph / 2.0,
        escape(y_label)
    );
}

/// A line of a [`by_size`] or [`lines`] plot: its name (for the legend) and its points
/// (x, mean, std).
pub struct SizeLine<'a> {
    pub name: &'a str,
    pub points: Vec<(f64, f64, Option<f64>)>,
}

/// A statistic of the n-best study against n-best size (Figure 1 draws tau_A so): each line's
/// means joined with points, a band of ± one standard deviation where there is one, a legend
/// when there are several lines. The y axis spans `range`, or the values when None.
pub fn by_size(
    title: &str,
    y_label: &str,
    range: Option<(f64, f64)>,
    lines: &[SizeLine],
) -> String {
    self::lines(title, ("n-best size", "n ="), y_label, range, lines)
}

/// Lines against an x axis labelled `x_label`, whose points' tooltips name x as `x_name`
/// (`n = 5`, `sentence 3`): see [`by_size`].
pub fn lines(
    title: &str,
    (x_label, x_name): (&str, &str),
    y_label: &str,
    range: Option<(f64, f64)>,
    lines: &[SizeLine],
) -> String {
    let (pw, ph) = (W - LEFT - RIGHT, H - TOP - BOTTOM);
    let points = || lines.iter().flat_map(|line| &line.points);
    let span = |values: Vec<f64>| {
        let (low, high) = values
            .iter()
            .fold((f64::INFINITY, f64::NEG_INFINITY), |(l, h), &v| {
                (l.min(v), h.max(v))
            });
        if low < high {
            (low, high)
        } else if low.is_finite() {
            (low - 1.0, low + 1.0)
        } else {
            (0.0, 1.0)
        }
    };
    let (low, high) = span(points().map(|p| p.0).collect());
    let (bottom, top) = range.unwrap_or_else(|| {
        let bands = points().flat_map(|&(_, mean, std)| {
            let std = std.unwrap_or(0.0);
            [mean - std, mean + std]
        });
        span(bands.collect())
    });
    let x = |n: f64| LEFT + pw * (n - low) / (high - low);
    let y = |v: f64| TOP + ph * (1.0 - (v.clamp(bottom, top) - bottom) / (top - bottom));
    let mut svg = open_svg(W, H, title);
    axes(
        &mut svg,
        (low, high),
        (bottom, top, YTicks::Values),
        x_label,
        y_label,
    );
    if bottom < 0.0 && top > 0.0 {
        let _ = write!(
            svg,
            r##"<line x1="{LEFT}" y1="{0:.1}" x2="{1:.1}" y2="{0:.1}" stroke="#ccc" stroke-dasharray="3 3"/>"##,
            y(0.0),
            LEFT + pw
        );
    }
    for (k, line) in lines.iter().enumerate() {
        let colour = PALETTE[k % PALETTE.len()];
        let band: Vec<_> = (line.points.iter())
            .filter_map(|&(n, mean, std)| std.map(|s| (n, mean, s)))
            .collect();
        if !band.is_empty() {
            let upper = band
                .iter()
                .map(|&(n, m, s)| format!("{:.1},{:.1}", x(n), y(m + s)));
            let lower =
                (band.iter().rev()).map(|&(n, m, s)| format!("{:.1},{:.1}", x(n), y(m - s)));
            let outline: Vec<String> = upper.chain(lower).collect();
            let _ = write!(
                svg,
                r#"<polygon points="{}" fill="{colour}" fill-opacity="0.15" stroke="none"/>"#,
                outline.join(" "),
            );
        }
        let joined: Vec<String> = (line.points.iter())
            .map(|&(n, m, _)| format!("{:.1},{:.1}", x(n), y(m)))
            .collect();
        let _ = write!(
            svg,
            r#"<polyline points="{}" fill="none" stroke="{colour}" stroke-width="1.5"/>"#,
            joined.join(" "),
        );
        for &(n, mean, std) in &line.points {
            let spread = std.map_or(String::new(), |s| format!(" ± {}", number(s)));
            let _ = write!(
                svg,
                r#"<circle cx="{:.1}" cy="{:.1}" r="2.5" fill="{colour}"><title>{} {n}: {} {}{spread}</title></circle>"#,
                x(n),
                y(mean),
                escape(x_name),
                escape(line.name),
                number(mean)
            );
        }
        if lines.len() > 1 {
            let _ = write!(
                svg,
                r#"<text x="{:.1}" y="{:.1}" text-anchor="end" fill="{colour}">{}</text>"#,
                LEFT + pw - 6.0,
                TOP + 14.0 * (k + 1) as f64,
                escape(line.name)
            );
        }
    }
    svg.push_str("</svg>");
    svg
}

/// Viridis at `t` in [0, 1], from five of its colours.
pub fn viridis(t: f64) -> String {
    const STOPS: [[f64; 3]; 5] = [
        [68.0, 1.0, 84.0],
        [59.0, 82.0, 139.0],
        [33.0, 145.0, 140.0],
        [94.0, 201.0, 98.0],
        [253.0, 231.0, 37.0],
    ];
    let t = t.clamp(0.0, 1.0) * 4.0;
    let k = (t.floor() as usize).min(3);
    let f = t - k as f64;
    let c: Vec<u8> = (0..3)
        .map(|j| (STOPS[k][j] + (STOPS[k + 1][j] - STOPS[k][j]) * f).round() as u8)
        .collect();
    format!("#{:02x}{:02x}{:02x}", c[0], c[1], c[2])
}
