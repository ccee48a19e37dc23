//! The report's pictures as SVG text, drawn by hand: a histogram, a binned density and one
//! pair (its two sentences, LeD's kept tokens, the alignment's links, PoD's segments and DERP's
//! spanning tree). Native `<title>` tooltips, no script.

use std::fmt::Write as _;

use super::{Density, MetricView, PairView};
use crate::formats::svg::{
    BOTTOM, H, LEFT, PALETTE, RIGHT, TOP, W, YTicks, axes, number, open_svg, ticks, viridis,
};
use crate::formats::xml::escape;

const CHANGED: &str = "#c0392b";
const QUIET: &str = "#999999";

/// A histogram of one metric: bars for one table; for several, each table's outline and a
/// light fill, in the table's colour.
pub fn histogram(metric: &MetricView) -> String {
    let bins = metric.per_system[0].counts.len();
    let most = metric
        .per_system
        .iter()
        .flat_map(|s| s.counts.iter())
        .copied()
        .max()
        .unwrap_or(0)
        .max(1) as f64;
    let (pw, ph) = (W - LEFT - RIGHT, H - TOP - BOTTOM);
    let x = |b: f64| LEFT + pw * b / bins as f64;
    let y = |c: f64| TOP + ph * (1.0 - c / most);
    let width = (metric.high - metric.low) / bins as f64;
    let mut svg = open_svg(W, H, &format!("histogram of {}", metric.name));
    axes(
        &mut svg,
        (metric.low, metric.high),
        (0.0, most, YTicks::Counts),
        &metric.name,
        "pairs",
    );
    for (i, stats) in metric.per_system.iter().enumerate() {
        let colour = PALETTE[i % PALETTE.len()];
        let single = metric.per_system.len() == 1;
        let mut outline = format!("{},{} ", x(0.0), y(0.0));
        for (b, &c) in stats.counts.iter().enumerate() {
            let (from, to) = (
                metric.low + width * b as f64,
                metric.low + width * (b + 1) as f64,
            );
            if single && c > 0 {
                let _ = write!(
                    svg,
                    r#"<rect x="{:.1}" y="{:.1}" width="{:.1}" height="{:.1}" fill="{colour}"><title>{} to {}: {c} pairs</title></rect>"#,
                    x(b as f64) + 0.5,
                    y(c as f64),
                    (x(1.0) - x(0.0) - 1.0).max(0.5),
                    y(0.0) - y(c as f64),
                    number(from),
                    number(to)
                );
            }
            let _ = write!(
                outline,
                "{:.1},{:.1} {:.1},{:.1} ",
                x(b as f64),
                y(c as f64),
                x(b as f64 + 1.0),
                y(c as f64)
            );
        }
        if !single {
            let _ = write!(outline, "{},{}", x(bins as f64), y(0.0));
            let _ = write!(
                svg,
                r#"<polygon points="{outline}" fill="{colour}" fill-opacity="0.15" stroke="{colour}" stroke-width="1.5"/>"#
            );
        }
    }
    svg.push_str("</svg>");
    svg
}

/// Pairs per cell of a grid over two metrics, coloured on a log scale (so that a few pairs
/// stay visible next to millions).
pub fn density(d: &Density) -> String {
    let bins = (d.counts.len() as f64).sqrt() as usize;
    let most = d.counts.iter().copied().max().unwrap_or(0).max(1) as f64;
    let (pw, ph) = (W - LEFT - RIGHT, H - TOP - BOTTOM);
    let (cw, ch) = (pw / bins as f64, ph / bins as f64);
    let mut svg = open_svg(W, H, &format!("{} against {}", d.y.name, d.x.name));
    let _ = write!(
        svg,
        r##"<rect x="{LEFT}" y="{TOP}" width="{pw}" height="{ph}" fill="#f4f4f4"/>"##
    );
    for (cell, &c) in d.counts.iter().enumerate().filter(|(_, c)| **c > 0) {
        let (bx, by) = (cell % bins, cell / bins);
        let t = (c as f64).ln_1p() / most.ln_1p();
        let _ = write!(
            svg,
            r#"<rect x="{:.1}" y="{:.1}" width="{:.2}" height="{:.2}" fill="{}"><title>{c}</title></rect>"#,
            LEFT + cw * bx as f64,
            TOP + ph - ch * (by + 1) as f64,
            cw + 0.05,
            ch + 0.05,
            viridis(t)
        );
    }
    // The y axis is the second metric: label its range on the left instead of counts.
    let _ = write!(
        svg,
        r##"<rect x="{LEFT}" y="{TOP}" width="{pw}" height="{ph}" fill="none" stroke="#ccc"/>"##
    );
    for (k, (tx, ty)) in ticks(d.x.low, d.x.high)
        .zip(ticks(d.y.low, d.y.high))
        .enumerate()
    {
        let (px, py) = (
            LEFT + pw * k as f64 / 4.0,
            TOP + ph * (1.0 - k as f64 / 4.0),
        );
        let _ = write!(
            svg,
            r##"<text x="{px:.1}" y="{}" text-anchor="middle">{}</text><text x="{}" y="{:.1}" text-anchor="end">{}</text>"##,
            TOP + ph + 16.0,
            number(tx),
            LEFT - 6.0,
            py + 4.0,
            number(ty)
        );
    }
    let _ = write!(
        svg,
        r#"<text x="{:.1}" y="{}" text-anchor="middle" font-size="12">{}</text><text transform="translate(14 {:.1}) rotate(-90)" text-anchor="middle" font-size="12">{}</text><text x="{}" y="{}" text-anchor="end" font-size="10">darkest: 1 pair; brightest: {} (log scale)</text>"#,
        LEFT + pw / 2.0,
        H - 6.0,
        escape(&d.x.name),
        TOP + ph / 2.0,
        escape(&d.y.name),
        W - RIGHT,
        TOP - 2.0,
        most
    );
    svg.push_str("</svg>");
    svg
}

/// Width of a character of the pair drawings' monospace font (13 px).
const CHAR: f64 = 7.9;
const PAD: f64 = 12.0;
const ROW_GAP: f64 = 110.0;

/// One pair drawn as the LePoD paper draws it: the src sentence above the tgt sentence, the
/// tokens LeD does not keep in red, a line for every link coloured by the PoD segment of its
/// unit (grey when PoD leaves the unit out: punctuation), a band behind the tokens of each
/// segment that moves, labelled with the displacement it adds to PoD; and DERP's spanning tree
/// as arcs over the side it was computed on, labelled L/Lmax.
pub fn pair(view: &PairView) -> String {
    let layout = |words: &[String]| -> Vec<(f64, f64)> {
        let mut x = 4.0;
        words
            .iter()
            .map(|w| {
                let width = w.chars().count().max(1) as f64 * CHAR + PAD;
                let at = (x, width);
                x += width;
                at
            })
            .collect()
    };
    let (src, tgt) = (layout(&view.src), layout(&view.tgt));
    let centre = |row: &[(f64, f64)], i: i32| row.get(i as usize).map(|(x, w)| x + w / 2.0);
    let width = src
        .iter()
        .chain(&tgt)
        .map(|(x, w)| x + w)
        .fold(200.0, f64::max)
        + 4.0;
    let arc_height = |a: i32, b: i32| (14.0 + 7.0 * ((b - a).abs() as f64).sqrt()).min(64.0);
    let derp_room = view.derp.as_ref().map_or(0.0, |t| {
        t.edges
            .iter()
            .map(|e| arc_height(e[0], e[1]))
            .fold(0.0, f64::max)
            + 14.0
    });
    let (above, below) = match &view.derp {
        Some(t) if t.on_src => (derp_room, 0.0),
        Some(_) => (0.0, derp_room),
        None => (0.0, 0.0),
    };
    let y_src = 22.0 + above;
    let y_tgt = y_src + ROW_GAP;
    let height = y_tgt + 16.0 + below;
    let mut svg = format!(
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{width:.0}" height="{height:.0}" viewBox="0 0 {width:.0} {height:.0}" font-family="DejaVu Sans Mono, monospace" font-size="13" role="img" aria-label="pair {}">"#,
        view.pair_id
    );
    let explained = view.lepod.as_ref().ok();
    // Each unit's segment, when PoD counts it.
    let mut segment_of = std::collections::HashMap::new();
    if let Some(e) = explained {
        for (k, s) in e.segments.iter().enumerate() {
            for &u in &s.units {
                segment_of.insert(u, k);
            }
        }
        for (k, s) in e
            .segments
            .iter()
            .enumerate()
            .filter(|(_, s)| s.displacement > 0)
        {
            let colour = PALETTE[k % PALETTE.len()];
            let span = |units: &[Option<u32>], row: &[(f64, f64)]| {
                let xs: Vec<(f64, f64)> = units
                    .iter()
                    .zip(row)
                    .filter(|(u, _)| u.is_some_and(|u| s.units.contains(&u)))
                    .map(|(_, &p)| p)
                    .collect();
                let from = xs.iter().map(|p| p.0).fold(f64::INFINITY, f64::min);
                let to = xs
                    .iter()
                    .map(|p| p.0 + p.1)
                    .fold(f64::NEG_INFINITY, f64::max);
                (from, to)
            };
            for (units, row, y) in [(&e.unit1, &src, y_src), (&e.unit2, &tgt, y_tgt)] {
                let (from, to) = span(units, row);
                if from < to {
                    let _ = write!(
                        svg,
                        r#"<rect x="{from:.1}" y="{:.1}" width="{:.1}" height="20" rx="4" fill="{colour}" fill-opacity="0.18"><title>PoD segment: adds {} to PoD's sum</title></rect>"#,
                        y - 15.0,
                        to - from,
                        s.displacement
                    );
                }
            }
            let (from, to) = span(&e.unit1, &src);
            let _ = write!(
                svg,
                r#"<text x="{:.1}" y="{:.1}" font-size="10" text-anchor="middle" fill="{colour}" stroke="white" stroke-width="3" paint-order="stroke">d={}</text>"#,
                (from + to) / 2.0,
                y_src + 18.0,
                s.displacement
            );
        }
    }
    // Links, under the words.
    if let Some(links) = &view.links {
        for &(a, b) in links {
            let (Some(xa), Some(xb)) = (centre(&src, a as i32), centre(&tgt, b as i32)) else {
                continue;
            };
            let unit = explained.and_then(|e| e.unit1.get(a as usize).copied().flatten());
            let (colour, dash) = match unit.and_then(|u| segment_of.get(&u)) {
                Some(&k) => (PALETTE[k % PALETTE.len()], ""),
                None => (QUIET, r#" stroke-dasharray="3 3""#),
            };
            let _ = write!(
                svg,
                r#"<line x1="{xa:.1}" y1="{:.1}" x2="{xb:.1}" y2="{:.1}" stroke="{colour}" stroke-width="1.3"{dash}/>"#,
                y_src + 6.0,
                y_tgt - 16.0
            );
        }
    }
    for (words, row, y, kept, units) in [
        (
            &view.src,
            &src,
            y_src,
            explained.map(|e| &e.kept1),
            explained.map(|e| &e.unit1),
        ),
        (
            &view.tgt,
            &tgt,
            y_tgt,
            explained.map(|e| &e.kept2),
            explained.map(|e| &e.unit2),
        ),
    ] {
        for (i, (word, &(x, w))) in words.iter().zip(row.iter()).enumerate() {
            let changed = kept.is_some_and(|k| !k.get(i).copied().unwrap_or(true));
            let unaligned = units.is_some_and(|u| u.get(i).copied().flatten().is_none());
            let style = match (changed, unaligned) {
                (true, true) => format!(r#" fill="{CHANGED}" font-style="italic""#),
                (true, false) => format!(r#" fill="{CHANGED}" text-decoration="underline""#),
                _ => String::new(),
            };
            let _ = write!(
                svg,
                r#"<text x="{:.1}" y="{y:.1}" text-anchor="middle"{style}><title>{i}: {}{}</title>{}</text>"#,
                x + w / 2.0,
                escape(word),
                if changed { " (not kept by LeD)" } else { "" },
                escape(word)
            );
        }
    }
    if let Some(tree) = &view.derp {
        let (row, y, up) = if tree.on_src {
            (&src, y_src - 15.0, -1.0)
        } else {
            (&tgt, y_tgt + 6.0, 1.0)
        };
        for &[a, b, l, lmax] in &tree.edges {
            let (Some(xa), Some(xb)) = (centre(row, a), centre(row, b)) else {
                continue;
            };
            let h = arc_height(a, b);
            let share = if lmax > 0 {
                l as f64 / lmax as f64
            } else {
                0.0
            };
            let colour = if l == 0 {
                PALETTE[2]
            } else if share < 0.5 {
                PALETTE[3]
            } else {
                PALETTE[1]
            };
            let _ = write!(
                svg,
                r#"<path d="M{xa:.1} {y:.1} Q{:.1} {:.1} {xb:.1} {y:.1}" fill="none" stroke="{colour}" stroke-width="1.4"><title>MST edge {a}-{b}: L {l} of Lmax {lmax}</title></path><text x="{:.1}" y="{:.1}" font-size="10" text-anchor="middle" fill="{colour}">{l}/{lmax}</text>"#,
                (xa + xb) / 2.0,
                y + up * 2.0 * h,
                (xa + xb) / 2.0,
                y + up * h + if up < 0.0 { -2.0 } else { 10.0 }
            );
        }
    }
    svg.push_str("</svg>");
    svg
}
