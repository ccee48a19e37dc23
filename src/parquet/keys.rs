//! The key-value entries pairmetrics writes in Parquet footers, in one place: each is written
//! by one job and read by others (and by people, with any Parquet tool).

/// The pairmetrics version that wrote the file.
pub const VERSION: &str = "pairmetrics.version";
/// How `dedup` compared the rows (method, side, settings).
pub const DEDUP: &str = "pairmetrics.dedup";
/// The SQL a result was computed with (`sql`, `score`, `triples`, `extract`, `pivot`).
pub const QUERY: &str = "pairmetrics.query";
/// The signature of what was computed: metrics and their options (`score`), the phrase
/// table's options (`extract`, `pivot`), MCPG's settings (`paraphrase`). `report` and `compare`
/// show it.
pub const SIGNATURE: &str = "pairmetrics.signature";
/// Each score column's signature, as a JSON object (`{"bleu": "BLEU|nrefs:1|...", "derp":
/// "derp:mst"}`): `score` writes it; `compare` shows it and says when systems were scored
/// differently.
pub const COLUMN_SIGNATURES: &str = "pairmetrics.column_signatures";
/// What `import` read, and how.
pub const IMPORT: &str = "pairmetrics.import";
/// How `align` aligned.
pub const ALIGN: &str = "pairmetrics.align";
/// The tuned weights of `l2-assist tune`.
pub const WEIGHTS: &str = "pairmetrics.weights";
/// The tables a scored file was scored from, as JSON (`score` writes it, `report` reads it to
/// draw the pairs again).
pub const INPUTS: &str = "pairmetrics.inputs";
/// The file's rows strictly ascend by `pair_id`; `sql` then declares the table sorted, so joins
/// on pair_id merge instead of hashing a whole table.
pub const SORTED_BY: (&str, &str) = ("pairmetrics.sorted_by", "pair_id");
/// The file belongs to a dataset pairmetrics wrote: a reader that finds it looks for the
/// dataset's `_SUCCESS`, since a run killed while writing to an object store leaves complete
/// files and no marker.
pub const DATASET: (&str, &str) = ("pairmetrics.dataset", "complete when _SUCCESS exists");
