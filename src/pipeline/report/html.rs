//! The report page: the sections around the pictures of `svg`, in one HTML file with its style
//! inline.

use std::fmt::Write as _;

use super::svg;
use super::{PairView, Report};
use crate::formats::svg::{PALETTE, number};
use crate::formats::xml::escape;
use crate::stats::significance::Interval;

const STYLE: &str = "
body { font-family: sans-serif; margin: 2em auto; max-width: 1100px; padding: 0 1em; color: #222; }
h1 { font-size: 1.6em; } h2 { font-size: 1.25em; margin-top: 2em; border-bottom: 1px solid #ddd; }
h3 { font-size: 1.05em; margin-top: 1.5em; }
table { border-collapse: collapse; margin: 0.5em 0; } td, th { padding: 0.2em 0.7em; text-align: right; }
th { border-bottom: 1px solid #aaa; } td.l, th.l { text-align: left; }
code { background: #f4f4f4; padding: 0 0.2em; word-break: break-all; }
.plots { display: flex; flex-wrap: wrap; gap: 1em; } .plots figure { margin: 0; }
figcaption { font-size: 0.85em; color: #555; }
.pair { margin: 1em 0; } .scroll { overflow-x: auto; border: 1px solid #eee; }
.side { display: grid; grid-template-columns: 1fr 1fr; gap: 1em; }
.swatch { display: inline-block; width: 0.8em; height: 0.8em; margin-right: 0.3em; }
.note { color: #555; font-size: 0.9em; } .sig { color: #c0392b; }
";

pub fn page(report: &Report) -> String {
    let mut out = String::new();
    let title = match report.systems.as_slice() {
        [one] => format!("pairmetrics report: {}", one.file),
        many => format!(
            "pairmetrics report: {} systems against {}",
            many.len() - 1,
            many[0].file
        ),
    };
    let _ = write!(
        out,
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>{}</title><style>{STYLE}</style></head><body>\n<h1>{}</h1>\n",
        escape(&title),
        escape(&title)
    );
    tables(&mut out, report);
    if let Some(comparison) = &report.comparison {
        let _ = write!(
            out,
            "<h2>Is the difference real?</h2><p class=\"note\">Each system against the baseline on the pairs both scored: the \
             delta of the mean with its paired bootstrap interval, the paired bootstrap p-value (sacrebleu's definition) and the \
             approximate randomization p-value; <span class=\"sig\">red</span>: p &lt; 0.05. Signature <code>{}</code>.</p>\
             <table><tr><th class=\"l\">metric</th><th class=\"l\">system</th><th>n</th><th>mean [interval]</th>\
             <th>delta [interval]</th><th>p (bootstrap)</th><th>p (randomization)</th></tr>",
            escape(&comparison.signature)
        );
        for metric in &comparison.metrics {
            for system in &metric.systems {
                let (delta, p_bs, p_ar) = match &system.versus {
                    Some(v) => (
                        Interval::text(Some(&v.delta), true),
                        p_value(v.p_bootstrap),
                        p_value(v.p_randomization),
                    ),
                    None => ("baseline".into(), String::new(), String::new()),
                };
                let _ = write!(
                    out,
                    "<tr><td class=\"l\">{}</td><td class=\"l\">{}</td><td>{}</td><td>{}</td><td>{delta}</td><td>{p_bs}</td><td>{p_ar}</td></tr>",
                    escape(&metric.metric),
                    escape(&system.file),
                    system.n,
                    Interval::text(system.mean.as_ref(), false)
                );
            }
        }
        out.push_str("</table>\n");
    }
    metrics(&mut out, report);
    densities(&mut out, report);
    problems(&mut out, report);
    pairs(&mut out, report);
    if !report.notes.is_empty() {
        out.push_str("<h2>Notes</h2><ul>");
        for note in &report.notes {
            let _ = write!(out, "<li>{}</li>", escape(note));
        }
        out.push_str("</ul>\n");
    }
    let _ = write!(
        out,
        "<p class=\"note\">Written by pairmetrics {}.</p></body></html>\n",
        env!("CARGO_PKG_VERSION")
    );
    out
}

fn swatch(system: usize) -> String {
    format!(
        "<span class=\"swatch\" style=\"background:{}\"></span>",
        PALETTE[system % PALETTE.len()]
    )
}

fn tables(out: &mut String, report: &Report) {
    out.push_str(
        "<table><tr><th class=\"l\">table</th><th>rows</th><th class=\"l\">signature</th></tr>",
    );
    for (i, s) in report.systems.iter().enumerate() {
        let role = if report.systems.len() > 1 && i == 0 {
            " (baseline)"
        } else {
            ""
        };
        let _ = write!(
            out,
            "<tr><td class=\"l\">{}{}{role}</td><td>{}</td><td class=\"l\"><code>{}</code></td></tr>",
            swatch(i),
            escape(&s.file),
            s.rows,
            escape(s.signature.as_deref().unwrap_or("(none recorded)"))
        );
    }
    out.push_str("</table>\n");
}

fn p_value(p: f64) -> String {
    match p < 0.05 {
        true => format!("<span class=\"sig\">{p:.4}</span>"),
        false => format!("{p:.4}"),
    }
}

fn metrics(out: &mut String, report: &Report) {
    let s = &report.significance;
    let _ = write!(
        out,
        "<h2>Metrics</h2><p class=\"note\">Means over the rows with a finite value, with a {} % percentile bootstrap \
         interval ({} resamples, seed {}); NULL and non-finite values are counted apart.</p>\
         <table><tr><th class=\"l\">metric</th><th class=\"l\">table</th><th>scored</th><th>NULL</th><th>mean [interval]</th>\
         <th>min</th><th>max</th></tr>",
        s.level * 100.0,
        s.resamples,
        s.seed
    );
    for m in &report.metrics {
        for (i, s) in m.per_system.iter().enumerate() {
            let opt = |x: Option<f64>| x.map_or("-".to_string(), |x| format!("{x:.4}"));
            let _ = write!(
                out,
                "<tr><td class=\"l\">{}</td><td class=\"l\">{}{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>",
                escape(&m.name),
                swatch(i),
                escape(&report.systems[i].file),
                s.n,
                report.systems[i].rows.saturating_sub(s.n),
                Interval::text(s.mean.as_ref(), false),
                opt(s.min),
                opt(s.max)
            );
        }
    }
    out.push_str("</table><div class=\"plots\">");
    for m in &report.metrics {
        let _ = write!(
            out,
            "<figure>{}<figcaption>{}: {} bins from {} to {}</figcaption></figure>",
            svg::histogram(m),
            escape(&m.name),
            m.per_system[0].counts.len(),
            number(m.low),
            number(m.high)
        );
    }
    out.push_str("</div>\n");
}

fn densities(out: &mut String, report: &Report) {
    if report.densities.is_empty() {
        return;
    }
    out.push_str("<h2>Metrics against each other</h2><p class=\"note\">Pairs per cell of a grid, on a log colour scale.</p><div class=\"plots\">");
    for d in &report.densities {
        let _ = write!(
            out,
            "<figure>{}<figcaption>{} against {}: {}{}</figcaption></figure>",
            svg::density(d),
            escape(&d.y.name),
            escape(&d.x.name),
            swatch(d.system),
            escape(&report.systems[d.system].file)
        );
    }
    out.push_str("</div>\n");
}

fn problems(out: &mut String, report: &Report) {
    if report
        .systems
        .iter()
        .all(|s| s.problems.iter().all(|(_, r)| r.is_empty()))
    {
        return;
    }
    out.push_str("<h2>Why rows have no score</h2><table><tr><th class=\"l\">table</th><th class=\"l\">column</th><th class=\"l\">reason</th><th>rows</th></tr>");
    for (i, s) in report.systems.iter().enumerate() {
        for (column, reasons) in &s.problems {
            for (reason, rows) in reasons {
                let _ = write!(
                    out,
                    "<tr><td class=\"l\">{}{}</td><td class=\"l\">{}</td><td class=\"l\">{}</td><td>{rows}</td></tr>",
                    swatch(i),
                    escape(&s.file),
                    escape(column),
                    escape(reason)
                );
            }
        }
    }
    out.push_str("</table>\n");
}

fn pairs(out: &mut String, report: &Report) {
    if report.lists.is_empty() {
        return;
    }
    let _ = write!(
        out,
        "<h2>Pairs</h2><p class=\"note\">src above, tgt below. <span style=\"color:#c0392b\">Red</span>: a token LeD does not \
         keep (underlined: aligned, but its unit's words differ; italic: unaligned). A line per link, coloured by the PoD \
         segment of its unit (dashed grey: a unit PoD leaves out, punctuation); a band behind the tokens of each segment \
         that moves, with <i>d</i>, the displacement it adds to PoD's sum. Arcs: DERP's minimum spanning tree over the \
         aligned words of one sentence, each edge labelled L/Lmax (green: the same path in both trees). Hover a token \
         or an edge for its position.</p>"
    );
    for list in &report.lists {
        let _ = write!(out, "<h3>{}</h3>", escape(&list.title));
        if list.pairs.is_empty() {
            out.push_str(
                "<p class=\"note\">No pair to show: no pair has a value, or no pair differs.</p>",
            );
        }
        for views in &list.pairs {
            let class = if views.len() > 1 { "pair side" } else { "pair" };
            let _ = write!(out, "<div class=\"{class}\">");
            for view in views {
                pair(out, report, view);
            }
            out.push_str("</div>\n");
        }
    }
}

fn pair(out: &mut String, report: &Report, view: &PairView) {
    let values: Vec<String> = view
        .values
        .iter()
        .map(|(name, v)| {
            format!(
                "{} {}",
                escape(name),
                v.map_or("NULL".to_string(), |v| format!("{v:.4}"))
            )
        })
        .collect();
    let _ = write!(
        out,
        "<div><div>{}<b>pair {}</b> · {}</div><div class=\"scroll\">{}</div>",
        swatch(view.system),
        view.pair_id,
        values.join(" · "),
        svg::pair(view)
    );
    if report.systems.len() > 1 {
        let _ = write!(
            out,
            "<div class=\"note\">{}</div>",
            escape(&report.systems[view.system].file)
        );
    }
    if let Err(why) = &view.lepod {
        let _ = write!(
            out,
            "<div class=\"note\">LeD and PoD not drawn: {}</div>",
            escape(why)
        );
    }
    out.push_str("</div>");
}
