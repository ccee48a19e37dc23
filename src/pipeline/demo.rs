//! `pairmetrics demo`: score the bundled Europarl sample and take a short SQL tour of it.

use std::io::Write;
use std::path::{Path, PathBuf};

use anyhow::{Result, bail};

use super::score::{ScoreOptions, score};
use super::sql::{self, Format};
use crate::parquet::Codec;

/// The bundled sample, found beside the crate's manifest.
pub fn default_data_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("data/europarl-sample")
}

/// The punctuation the demo asks PoD to ignore.
pub const DEMO_PUNCT: &str = ".,;:!?\"'()";

/// The SQL tour: (what it shows, query over table `scored`).
pub const TOUR: &[(&str, &str)] = &[
    (
        "Corpus means (NULL rows are left out of the means)",
        "SELECT count(*) AS pairs, count(led) AS scored, round(avg(led), 4) AS mean_led, \
         round(avg(pod), 4) AS mean_pod FROM scored",
    ),
    (
        "Why some rows have no score",
        "SELECT lepod_problem AS reason, count(*) AS pairs FROM scored \
         WHERE lepod_problem IS NOT NULL GROUP BY reason ORDER BY pairs DESC",
    ),
    (
        "The most reordered pairs of at least 8 tokens",
        "SELECT pair_id, round(pod, 3) AS pod, cardinality(src) AS len, \
         substr(tgt_text, 1, 60) AS english FROM scored \
         WHERE cardinality(src) >= 8 ORDER BY pod DESC, pair_id LIMIT 5",
    ),
    (
        "A histogram of PoD",
        "SELECT floor(pod * 10) / 10 AS pod_from, count(*) AS pairs, \
         repeat('#', CAST(count(*) / 40 AS INT)) AS bar \
         FROM scored WHERE pod IS NOT NULL GROUP BY pod_from ORDER BY pod_from",
    ),
    (
        "Longer sentences are reordered more",
        "SELECT CASE WHEN cardinality(src) < 10 THEN '1: < 10' \
         WHEN cardinality(src) < 25 THEN '2: 10-24' ELSE '3: >= 25' END AS src_tokens, \
         count(*) AS pairs, round(avg(led), 3) AS mean_led, round(avg(pod), 3) AS mean_pod \
         FROM scored GROUP BY src_tokens ORDER BY src_tokens",
    ),
    (
        "DERP, word order through the dependency trees (1 = the same order)",
        "SELECT count(derp) AS scored, round(avg(derp), 4) AS mean_derp, \
         round(min(derp), 4) AS min_derp, round(median(derp), 4) AS median_derp FROM scored",
    ),
    (
        "Why some rows have no DERP",
        "SELECT derp_problem AS reason, count(*) AS pairs FROM scored \
         WHERE derp_problem IS NOT NULL GROUP BY reason ORDER BY pairs DESC",
    ),
    (
        "PoD and DERP agree on which pairs are reordered (mean DERP by PoD band)",
        "SELECT floor(pod * 5) / 5 AS pod_from, count(*) AS pairs, round(avg(derp), 3) AS mean_derp \
         FROM scored WHERE pod IS NOT NULL AND derp IS NOT NULL GROUP BY pod_from ORDER BY pod_from",
    ),
    (
        "METEOR's aligner in SQL (meteor_align): each English sentence against itself with its \
         halves swapped. LeD stays 0 (every word is kept), PoD measures the move",
        "SELECT count(*) AS pairs, round(avg(led(t, r, l)), 4) AS mean_led, round(avg(pod(t, r, l)), 4) AS mean_pod \
         FROM (SELECT t, r, meteor_align(t, r) AS l FROM (SELECT t, \
         array_concat(array_slice(t, h + 1, n), array_slice(t, 1, h)) AS r FROM (SELECT t, \
         CAST(cardinality(t) AS BIGINT) AS n, CAST(cardinality(t) / 2 AS BIGINT) AS h \
         FROM (SELECT lowercase_tokens(tgt) AS t FROM scored WHERE cardinality(tgt) >= 4))))",
    ),
    (
        "METEOR aligns two sentences of one language: across French and English its exact, stem and \
         synonym matches are only names, numbers, punctuation and a few cognates (links per pair)",
        "SELECT round(avg(cardinality(meteor_align(lowercase_tokens(src), lowercase_tokens(tgt)))), 2) AS meteor, \
         round(avg(cardinality(links)), 2) AS eflomal FROM scored JOIN alignments USING (pair_id)",
    ),
];

/// Over the input tables (registered as `pairs`, `alignments`, `arcs`): the pooled DERP.
pub const POOLED: &str = "SELECT round(derp_pooled(r.src_head, r.src_deprel, r.tgt_head, \
    r.tgt_deprel, a.links), 4) AS pooled_derp FROM arcs r JOIN alignments a USING (pair_id)";

pub async fn run(data: &Path, out: &Path, sink: &mut dyn Write) -> Result<()> {
    let [pairs, alignments, arcs] =
        ["pairs", "alignments", "arcs"].map(|t| data.join(format!("{t}.parquet")));
    if !pairs.exists() {
        bail!(
            "the demo data is not at {} (pass --data DIR, or rebuild it with \
             scripts/prepare_europarl.py)",
            data.display()
        );
    }
    writeln!(
        sink,
        "Scoring {} (French src, English tgt; spaCy tokens, eflomal alignments).\n\
         Across languages LeD counts the tokens not carried over unchanged (names, numbers, \
         punctuation are), and PoD how far aligned words move. DERP compares the dependency \
         paths between aligned words in the two parses; the French parser labels with Universal \
         Dependencies (obj, obl:arg, ...) and the English one with ClearNLP labels (dobj, pobj, \
         prep, ...), so across these languages DERP counts label differences as well as \
         reordering: read it relatively (pair against pair), not against 1.\n",
        data.display()
    )?;
    let options = ScoreOptions {
        pairs: pairs.into(),
        alignments: Some(alignments.clone().into()),
        align: None,
        arcs: Some(arcs.clone().into()),
        out: out.to_path_buf(),
        layout: Default::default(),
        lowercase: true,
        metrics: None,
        hardrules: None,
        filters: None,
        punct: DEMO_PUNCT.to_string(),
        resources: Default::default(),
        tuning: Default::default(),
        compression: Codec::Snappy,
        strict: false,
        progress: false,
        cluster: None,
    };
    let summary = score(&options).await?;
    writeln!(
        sink,
        "$ pairmetrics score --lowercase --punct '{DEMO_PUNCT}' ... --out {}",
        out.display()
    )?;
    writeln!(sink, "{summary}\n")?;
    let tables = [
        ("scored", out),
        ("arcs", &arcs),
        ("alignments", &alignments),
    ]
    .map(|(name, path)| (name.to_string(), path.to_path_buf()));
    let ctx = crate::session::context_with_tables(&tables).await?;
    for (title, query) in TOUR.iter().chain([&(
        "The pooled DERP: 1 - sum(L) / sum(Lmax) over all pairs",
        POOLED,
    )]) {
        writeln!(sink, "-- {title}\n{query};")?;
        sql::run(&ctx, query, Format::Table, None, &Default::default(), sink).await?;
        writeln!(sink)?;
    }
    writeln!(
        sink,
        "Query it yourself:\n  pairmetrics sql --table scored={} \"SELECT ... FROM scored\"",
        out.display()
    )?;
    Ok(())
}
