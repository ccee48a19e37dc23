//! The metrics `score` can add, one row each: the columns it writes, the inputs it needs, its
//! part of the signature and the DataFusion expressions that compute it. The query, the summary,
//! strict mode, the signature and `--help` are all derived from [`METRICS`]; adding a metric
//! column to `score` is one row here.

use std::collections::BTreeMap;

use anyhow::{Result, bail};
use datafusion::common::Column as ColumnRef;
use datafusion::execution::FunctionRegistry;
use datafusion::functions::core::expr_ext::FieldAccessor;
use datafusion::functions::expr_fn::concat;
use datafusion::functions_nested::expr_fn::{array_to_string, cardinality};
use datafusion::logical_expr::{Expr, lit, when};

use super::ScoreOptions;
use crate::parquet::lockstep;
use crate::resources::Resource;
use crate::schema::Table;
use crate::udf::expr;

/// A table `score` can read besides the pairs, or a resource it can load.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Input {
    Alignments,
    Arcs,
    Resource(Resource),
}

impl Input {
    fn given(self, options: &ScoreOptions) -> bool {
        match self {
            Input::Alignments => options.alignments.is_some() || options.align.is_some(),
            Input::Arcs => options.arcs.is_some(),
            Input::Resource(resource) => options.resources.gives(resource),
        }
    }

    fn describe(self) -> &'static str {
        match self {
            Input::Alignments => "an alignments table",
            Input::Arcs => "an arcs table (dependency parses)",
            Input::Resource(resource) => resource.what(),
        }
    }
}

/// What the summary does with a column.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Role {
    /// A Float64 score: averaged over the rows that have one.
    Score,
    /// Why the metric is NULL for a row (Utf8, NULL when it scores): counted by reason, and
    /// the first one stops `--strict`.
    Problem,
    /// A label (Utf8, a language say): written, not summarised.
    Label,
}

#[derive(Debug)]
pub struct Column {
    pub name: &'static str,
    pub role: Role,
}

const fn score(name: &'static str) -> Column {
    Column {
        name,
        role: Role::Score,
    }
}

const fn label(name: &'static str) -> Column {
    Column {
        name,
        role: Role::Label,
    }
}

const fn problem(name: &'static str) -> Column {
    Column {
        name,
        role: Role::Problem,
    }
}

/// One metric of `score`.
pub struct Metric {
    /// Its name in `--metrics`.
    pub name: &'static str,
    /// What it adds, for `--help`.
    pub about: &'static str,
    /// Every column it can write (input columns of these names are replaced).
    pub columns: &'static [Column],
    /// What it needs besides the pairs.
    pub needs: &'static [Input],
    /// What it uses when given, but can do without.
    pub uses: &'static [Input],
    /// Scored whenever its inputs are given; otherwise only when named in `--metrics`.
    pub by_default: bool,
    /// Its part of the output's signature.
    signature: fn(&ScoreOptions) -> String,
    /// A score column's signature, when a column depends on less than the whole part (LeD
    /// ignores PoD's punctuation); None: every column carries `signature`.
    column_signature: Option<fn(&ScoreOptions, &str) -> String>,
    /// Its columns, as (name, expression), in the order of `columns`.
    exprs: fn(&Inputs) -> Result<Vec<(&'static str, Expr)>>,
}

/// Every metric `score` knows, in the order of the output's columns.
pub static METRICS: &[Metric] = &[
    Metric {
        name: "lepod",
        about: "led, pod and lepod_problem (LeD over the alignment's units with an alignments table, as \
                lepod-score.py; without, the multiset LeD and no pod)",
        columns: &[score("led"), score("pod"), problem("lepod_problem")],
        needs: &[],
        uses: &[Input::Alignments],
        by_default: true,
        signature: |o| lepod_signature(o, true),
        column_signature: Some(|o, column| lepod_signature(o, column == "pod")),
        exprs: lepod,
    },
    Metric {
        name: "derp",
        about: "derp and derp_problem, the dependency-path word-order score",
        columns: &[score("derp"), problem("derp_problem")],
        needs: &[Input::Alignments, Input::Arcs],
        uses: &[],
        by_default: true,
        signature: |_| "derp:mst".into(),
        column_signature: None,
        exprs: derp,
    },
    Metric {
        name: "true_score",
        about: "true_score, tgt as a paraphrase of src under the phrase table",
        columns: &[score("true_score")],
        needs: &[Input::Resource(Resource::PhraseTable)],
        uses: &[],
        by_default: true,
        signature: |o| {
            o.resources
                .phrase_table
                .as_ref()
                .expect("needed")
                .signature()
        },
        column_signature: None,
        exprs: |i| {
            Ok(vec![(
                "true_score",
                expr::true_score(i.functions, i.tokens("src"), i.tokens("tgt"))?,
            )])
        },
    },
    Metric {
        name: "dep_fit",
        about: "tgt_dep_fit and tgt_dep_fit_problem, the whole tgt sentence's dependency fitness",
        columns: &[score("tgt_dep_fit"), problem("tgt_dep_fit_problem")],
        needs: &[Input::Arcs, Input::Resource(Resource::Triples)],
        uses: &[],
        by_default: true,
        signature: |_| "dep_fit:paper,form,sentence".into(),
        column_signature: None,
        exprs: dep_fit,
    },
    Metric {
        name: "lm",
        about: "src_lm_logprob and tgt_lm_logprob, log10 probabilities under the language model",
        columns: &[score("src_lm_logprob"), score("tgt_lm_logprob")],
        needs: &[Input::Resource(Resource::Lm)],
        uses: &[],
        by_default: true,
        signature: |_| "lm:log10,bos,eos".into(),
        column_signature: None,
        exprs: |i| {
            let logprob = |side| expr::lm_logprob(i.functions, i.tokens(side));
            Ok(vec![
                ("src_lm_logprob", logprob("src")?),
                ("tgt_lm_logprob", logprob("tgt")?),
            ])
        },
    },
    Metric {
        name: "model_score",
        about: "model_score, the paper's full model score: true_score + ln P(tgt) (the LM's log10 \
                times ln 10; weights 1 and 1, other weights through SQL)",
        columns: &[score("model_score")],
        needs: &[
            Input::Resource(Resource::PhraseTable),
            Input::Resource(Resource::Lm),
        ],
        uses: &[],
        by_default: true,
        signature: |_| "model_score:alpha_phi=1,alpha_lm=1,lm:ln".into(),
        column_signature: None,
        exprs: |i| {
            Ok(vec![(
                "model_score",
                expr::model_score(i.functions, i.tokens("src"), i.tokens("tgt"))?,
            )])
        },
    },
    Metric {
        name: "langid",
        about: "src_langid, src_langid_prob, tgt_langid and tgt_langid_prob: each side's language \
                and probability as py3langid 0.4.0 gives them (built in), the side's tokens \
                joined by spaces",
        columns: &[
            label("src_langid"),
            score("src_langid_prob"),
            label("tgt_langid"),
            score("tgt_langid_prob"),
        ],
        needs: &[],
        uses: &[],
        by_default: false,
        signature: |_| "langid:py3langid-0.4.0,tokens-joined".into(),
        column_signature: None,
        exprs: |i| language_columns(i, "langid", expr::langid),
    },
    Metric {
        name: "lingua_lid",
        about: "src_lingua_lid, src_lingua_lid_prob, tgt_lingua_lid and tgt_lingua_lid_prob: each \
                side's language and confidence as lingua-py 2.1.1 gives them (built in; NULL \
                where lingua finds none), the side's tokens joined by spaces",
        columns: &[
            label("src_lingua_lid"),
            score("src_lingua_lid_prob"),
            label("tgt_lingua_lid"),
            score("tgt_lingua_lid_prob"),
        ],
        needs: &[],
        uses: &[],
        by_default: false,
        signature: |_| "lingua_lid:lingua-1.7.2,tokens-joined".into(),
        column_signature: None,
        exprs: |i| language_columns(i, "lingua_lid", expr::lingua_lid),
    },
    Metric {
        name: "fasttext_lid",
        about: "src_fasttext_lid, src_fasttext_lid_prob, tgt_fasttext_lid and \
                tgt_fasttext_lid_prob: each side's most likely label (without __label__) and its \
                probability under the fastText model, the side's tokens joined by spaces",
        columns: &[
            label("src_fasttext_lid"),
            score("src_fasttext_lid_prob"),
            label("tgt_fasttext_lid"),
            score("tgt_fasttext_lid_prob"),
        ],
        needs: &[Input::Resource(Resource::FastText)],
        uses: &[],
        by_default: true,
        signature: |o| {
            let model = o.resources.fasttext_model.as_ref().expect("needed");
            let name = model.file_name().unwrap_or_default().to_string_lossy();
            format!("fasttext_lid:model={name},tokens-joined")
        },
        column_signature: None,
        exprs: |i| language_columns(i, "fasttext_lid", expr::fasttext_lid),
    },
    Metric {
        name: "hardrules",
        about: "hardrules and hardrules_keep: bicleaner-hardrules 2.10.8's failing rules of the \
                pair (its -A list, in its order and spelling; empty keeps the pair) and whether \
                it keeps the pair, for the languages given; the sides are src_text and tgt_text \
                when the pairs table has them, else the tokens joined by spaces",
        columns: &[label("hardrules"), label("hardrules_keep")],
        needs: &[],
        uses: &[],
        by_default: false,
        signature: |o| {
            let (src, tgt) = o
                .hardrules
                .as_ref()
                .map(|(s, t)| (s.as_str(), t.as_str()))
                .unwrap_or_default();
            format!("hardrules:bicleaner-hardrules-2.10.8,langs={src}-{tgt}")
        },
        column_signature: None,
        exprs: |i| {
            let Some((src_lang, tgt_lang)) = &i.options.hardrules else {
                bail!("the hardrules metric needs the pairs' languages");
            };
            let rules = expr::hardrules(
                i.functions,
                i.text("src"),
                i.text("tgt"),
                lit(src_lang.as_str()),
                lit(tgt_lang.as_str()),
            )?;
            let keep = cardinality(rules.clone()).eq(lit(0u64));
            Ok(vec![("hardrules", rules), ("hardrules_keep", keep)])
        },
    },
    Metric {
        name: "chrf",
        about: "chrf, sentence chrF2 of tgt against src as sacrebleu's sentence_chrf (its \
                defaults)",
        columns: &[score("chrf")],
        needs: &[],
        uses: &[],
        by_default: false,
        signature: |o| sacrebleu_signature("chrf", o),
        column_signature: None,
        exprs: |i| sacrebleu_metric(i, "chrf", expr::chrf),
    },
    Metric {
        name: "bleu",
        about: "bleu, sentence BLEU of tgt against src as sacrebleu's sentence_bleu (13a, exp \
                smoothing, effective order)",
        columns: &[score("bleu")],
        needs: &[],
        uses: &[],
        by_default: false,
        signature: |o| sacrebleu_signature("bleu", o),
        column_signature: None,
        exprs: |i| sacrebleu_metric(i, "bleu", expr::sentence_bleu),
    },
    Metric {
        name: "ter",
        about: "ter, sentence TER of tgt against src as sacrebleu's TER (Tercom's tokeniser, \
                lowercased as sacrebleu's TER is by default)",
        columns: &[score("ter")],
        needs: &[],
        uses: &[],
        by_default: false,
        signature: |o| sacrebleu_signature("ter", o),
        column_signature: None,
        exprs: |i| sacrebleu_metric(i, "ter", expr::sentence_ter),
    },
];

/// The sacrebleu options of a sacrebleu metric in `score`: its sentence defaults, lowercased with
/// `--lowercase` (TER lowercases already).
fn sacrebleu_options(metric: &str, options: &ScoreOptions) -> &'static str {
    match (metric, options.lowercase) {
        ("ter", _) => "",
        (_, true) => "case:lc",
        (_, false) => "case:mixed",
    }
}

/// A sacrebleu metric's part of the signature, as sacrebleu writes it: its name, then its
/// signature for one reference, e.g. `BLEU|nrefs:1|case:mixed|eff:yes|tok:13a|smooth:exp|version:2.6.0`.
fn sacrebleu_signature(metric: &str, options: &ScoreOptions) -> String {
    use crate::sacrebleu::{bleu::BleuOptions, chrf::ChrfOptions, ter::TerOptions};
    let words = sacrebleu_options(metric, options);
    let parsed = match metric {
        "bleu" => BleuOptions::sentence()
            .parse(words)
            .map(|o| format!("BLEU|{}", o.signature(Some(1))))
            .ok(),
        "chrf" => ChrfOptions::default()
            .parse(words)
            .map(|o| format!("{}|{}", o.name(), o.signature(Some(1))))
            .ok(),
        _ => TerOptions::default()
            .parse(words)
            .map(|o| format!("TER|{}", o.signature(Some(1))))
            .ok(),
    };
    parsed.expect("score's sacrebleu options parse")
}

/// A sacrebleu metric's column: `function(tgt, src, options)` over the raw tokens (joined with
/// spaces), the options lowercasing when asked.
fn sacrebleu_metric(
    i: &Inputs,
    metric: &'static str,
    function: expr::SacrebleuBuilder,
) -> Result<Vec<(&'static str, Expr)>> {
    let words = sacrebleu_options(metric, i.options);
    Ok(vec![(
        metric,
        function(i.functions, i.pairs("tgt"), i.pairs("src"), lit(words))?,
    )])
}

/// A language identifier's label and probability per side, over the side's tokens joined by
/// spaces: `{side}_{name}` and `{side}_{name}_prob`.
fn language_columns(
    i: &Inputs,
    name: &'static str,
    identify: fn(&dyn FunctionRegistry, Expr) -> datafusion::common::Result<Expr>,
) -> Result<Vec<(&'static str, Expr)>> {
    let column_names = |side: &str| -> (&'static str, &'static str) {
        let metric = METRICS.iter().find(|m| m.name == name).expect("a metric");
        let find = |suffix: &str| {
            let wanted = format!("{side}_{name}{suffix}");
            metric
                .columns
                .iter()
                .find(|c| c.name == wanted)
                .expect("declared")
                .name
        };
        (find(""), find("_prob"))
    };
    let mut columns = Vec::new();
    for side in ["src", "tgt"] {
        let text = array_to_string(i.pairs(side), lit(" "));
        let guess = identify(i.functions, text)?;
        let (label, prob) = column_names(side);
        columns.push((label, guess.clone().field("lang")));
        columns.push((prob, guess.field("prob")));
    }
    Ok(columns)
}

/// LePoD's part: the links, the case and, when `with_punct`, PoD's punctuation (what LeD
/// does not depend on).
fn lepod_signature(o: &ScoreOptions, with_punct: bool) -> String {
    let punct = if with_punct {
        format!("|pod:punct={:?}", o.punct)
    } else {
        String::new()
    };
    match (&o.alignments, &o.align) {
        (Some(_), _) => format!("led:links|{}{punct}", case(o)),
        (None, Some(aligner)) => {
            format!("led:links|{}{punct}|align:{}", case(o), aligner.describe())
        }
        (None, None) => format!("led:multiset|{}", case(o)),
    }
}

fn case(options: &ScoreOptions) -> &'static str {
    if options.lowercase {
        "case:lc"
    } else {
        "case:mixed"
    }
}

/// Every column `score` can write.
pub fn all_columns() -> impl Iterator<Item = &'static Column> {
    METRICS.iter().flat_map(|m| m.columns)
}

/// Whether `score` computes a column of this name (an input column of the name is replaced).
pub fn is_computed(name: &str) -> bool {
    all_columns().any(|c| c.name == name)
}

/// The metrics a job computes: those named (each must have its inputs), or else every default
/// metric whose inputs are given.
pub fn selected(options: &ScoreOptions) -> Result<Vec<&'static Metric>> {
    let has_inputs = |m: &Metric| m.needs.iter().all(|n| n.given(options));
    let Some(names) = &options.metrics else {
        return Ok(METRICS
            .iter()
            .filter(|m| m.by_default && has_inputs(m))
            .collect());
    };
    let mut chosen = Vec::new();
    for name in names {
        let Some(metric) = METRICS.iter().find(|m| m.name == name) else {
            let known: Vec<&str> = METRICS.iter().map(|m| m.name).collect();
            bail!("unknown metric `{name}`; score knows {}", known.join(", "));
        };
        let missing: Vec<&str> = metric
            .needs
            .iter()
            .filter(|n| !n.given(options))
            .map(|n| n.describe())
            .collect();
        if !missing.is_empty() {
            bail!("metric {name} needs {}", missing.join(" and "));
        }
        chosen.push(metric);
    }
    // Columns come in the table's order, whatever the order asked.
    chosen.sort_by_key(|m| METRICS.iter().position(|x| x.name == m.name));
    chosen.dedup_by_key(|m| m.name);
    Ok(chosen)
}

/// The metric configuration, sacrebleu style: `pairmetrics:VERSION|` and each metric's part.
/// LePoD's part carries the case (as every signature before `--metrics` did); without it the
/// case comes first.
pub fn signature(options: &ScoreOptions, metrics: &[&Metric]) -> String {
    let mut parts = vec![format!("pairmetrics:{}", crate::VERSION)];
    if !metrics.iter().any(|m| m.name == "lepod") {
        parts.push(case(options).into());
    }
    parts.extend(metrics.iter().map(|m| (m.signature)(options)));
    if let Some(filters) = &options.filters {
        use sha2::Digest;
        let digest = sha2::Sha256::digest(filters.yaml.as_bytes());
        let hex: String = digest[..6].iter().map(|b| format!("{b:02x}")).collect();
        parts.push(format!(
            "filters:opusfilter-3.3.1,config={},sha256={hex}",
            filters.name
        ));
    }
    parts.join("|")
}

/// Each score column of `metrics` with its metric's part of the signature.
pub fn column_signatures(options: &ScoreOptions, metrics: &[&Metric]) -> BTreeMap<String, String> {
    metrics
        .iter()
        .flat_map(|m| {
            let signature = (m.signature)(options);
            m.columns
                .iter()
                .filter(|c| c.role == Role::Score)
                .map(move |c| {
                    let column = match m.column_signature {
                        Some(of_column) => of_column(options, c.name),
                        None => signature.clone(),
                    };
                    (c.name.to_string(), column)
                })
        })
        .collect()
}

/// Whether a job computing `metrics` reads the table or resource `input` (it is given, and one
/// of them needs or uses it).
pub fn reads(options: &ScoreOptions, metrics: &[&Metric], input: Input) -> bool {
    input.given(options)
        && metrics
            .iter()
            .any(|m| m.needs.contains(&input) || m.uses.contains(&input))
}

/// Why a given table is read by no metric: what the metrics that need it lack besides, e.g.
/// "derp also needs an alignments table; dep_fit also needs triple counts".
pub fn unused(options: &ScoreOptions, input: Input) -> String {
    let lacking = METRICS
        .iter()
        .filter(|m| m.needs.contains(&input))
        .map(|m| {
            let missing: Vec<&str> = m
                .needs
                .iter()
                .filter(|n| !n.given(options))
                .map(|n| n.describe())
                .collect();
            match missing.is_empty() {
                true => format!("{} was not asked for", m.name),
                false => format!("{} also needs {}", m.name, missing.join(" and ")),
            }
        });
    lacking.collect::<Vec<_>>().join("; ")
}

/// The expressions of every selected metric's columns.
pub fn exprs(inputs: &Inputs, metrics: &[&Metric]) -> Result<Vec<Expr>> {
    let mut out = Vec::new();
    for metric in metrics {
        for (name, expr) in (metric.exprs)(inputs)? {
            out.push(expr.alias(name));
        }
    }
    Ok(out)
}

/// `--filters`' columns: each filter's score, `keep` and `rejected_by`, the fields of one
/// `opusfilter` call (DataFusion evaluates the shared call once), as (name, expression). The
/// names come from the call's type, so the filters are read once, by the function.
pub fn filter_columns(
    i: &Inputs,
    yaml: &str,
    pairs: &datafusion::arrow::datatypes::Schema,
) -> Result<Vec<(String, Expr)>> {
    use datafusion::arrow::datatypes::DataType;
    use datafusion::common::DFSchema;
    use datafusion::logical_expr::ExprSchemable;
    let call = expr::opusfilter(i.functions, lit(yaml), i.text("src"), i.text("tgt"))?;
    let schema = DFSchema::try_from_qualified_schema("p", pairs)?;
    let DataType::Struct(fields) = call.get_type(&schema)? else {
        bail!("opusfilter returns a struct");
    };
    Ok(fields
        .iter()
        .map(|f| (f.name().clone(), call.clone().field(f.name())))
        .collect())
}

/// The alias of a joined table in the query: its columns are `a.links`, `r.src_head`, ... (or
/// renamed with it in a lockstep batch).
pub fn alias(table: Table) -> &'static str {
    match table {
        Table::Alignments => "a",
        Table::Arcs => "r",
        _ => unreachable!("score joins only alignments and arcs"),
    }
}

/// What metric expressions are built from: the pairs table (alias `p`), the joined tables'
/// columns (aliases `a` and `r`, or their renamed columns in a lockstep batch), the options as
/// typed values, and the session's functions (those bound to resources are the session's).
pub struct Inputs<'a> {
    pub options: &'a ScoreOptions,
    pub functions: &'a dyn FunctionRegistry,
    pub lockstep: bool,
    /// The pairs table's string columns `src_text` and `tgt_text`, those it has.
    pub texts: Vec<String>,
}

impl Inputs<'_> {
    /// A column of the pairs table.
    pub fn pairs(&self, column: &str) -> Expr {
        Expr::Column(ColumnRef::new(Some("p"), column))
    }

    /// A side's text: its `{side}_text` column when the pairs table has one, else its tokens
    /// joined by spaces.
    fn text(&self, side: &str) -> Expr {
        let column = format!("{side}_text");
        match self.texts.contains(&column) {
            true => self.pairs(&column),
            false => array_to_string(self.pairs(side), lit(" ")),
        }
    }

    /// A side's tokens, lowercased when asked.
    fn tokens(&self, side: &str) -> Expr {
        let tokens = self.pairs(side);
        match self.options.lowercase {
            true => {
                expr::lowercase_tokens(self.functions, tokens).expect("registered in every session")
            }
            false => tokens,
        }
    }

    /// A column of the alignments (`a`) or arcs (`r`) table.
    fn joined(&self, alias: &str, column: &str) -> Expr {
        match self.lockstep {
            true => self.pairs(&lockstep::renamed(alias, column)),
            false => Expr::Column(ColumnRef::new(Some(alias), column)),
        }
    }

    /// The alignment: the alignments table's links, or else METEOR's (`--align meteor`) of the
    /// tokens as compared (lowercased when asked).
    fn links(&self) -> Expr {
        match self.options.alignments {
            Some(_) => self.joined(alias(Table::Alignments), "links"),
            None => expr::meteor_align(self.functions, self.tokens("src"), self.tokens("tgt"))
                .expect("registered in every session"),
        }
    }

    fn arcs(&self, column: &str) -> Expr {
        self.joined(alias(Table::Arcs), column)
    }
}

/// LeD, PoD and the problem from one `lepod` call (the alignment's units are built once, and
/// DataFusion evaluates the shared call once); without alignments, the multiset LeD.
fn lepod(i: &Inputs) -> Result<Vec<(&'static str, Expr)>> {
    let (src, tgt) = (i.tokens("src"), i.tokens("tgt"));
    if !Input::Alignments.given(i.options) {
        let led = expr::led(i.functions, src.clone(), tgt.clone())?;
        let problem = when(
            led.clone().is_null(),
            expr::lepod_problem(i.functions, src, tgt)?,
        )
        .end()?;
        return Ok(vec![("led", led), ("lepod_problem", problem)]);
    }
    let both = expr::lepod(
        i.functions,
        src,
        tgt,
        i.links(),
        lit(i.options.punct.as_str()),
    )?;
    Ok(vec![
        ("led", both.clone().field("led")),
        ("pod", both.clone().field("pod")),
        ("lepod_problem", both.field("problem")),
    ])
}

/// DERP, NULL with a reason when a parse has other tokens than its sentence (it would score
/// silently wrong), else the kernel's score or problem.
fn derp(i: &Inputs) -> Result<Vec<(&'static str, Expr)>> {
    let head = |side: &str| i.arcs(&format!("{side}_head"));
    let call = |function: expr::Builder5| {
        function(
            i.functions,
            head("src"),
            i.arcs("src_deprel"),
            head("tgt"),
            i.arcs("tgt_deprel"),
            i.links(),
        )
    };
    let derp = call(expr::derp)?;
    let differs = |side: &str| cardinality(i.pairs(side)).not_eq(cardinality(head(side)));
    let same = |side: &str| cardinality(i.pairs(side)).eq(cardinality(head(side)));
    let mismatch = |side: &'static str| {
        concat(vec![
            lit(format!("{side} has ")),
            cardinality(i.pairs(side)),
            lit(" tokens but its parse "),
            cardinality(head(side)),
        ])
    };
    // Each CASE names its rare rows in its one WHEN and has no ELSE: DataFusion copies the
    // columns a branch reads for the rows it takes, and a column alone as the only branch is
    // taken whole, so the scored rows are not copied.
    let score = when(same("src").and(same("tgt")), derp.clone()).end()?;
    let why = when(differs("src"), mismatch("src"))
        .when(differs("tgt"), mismatch("tgt"))
        .otherwise(call(expr::derp_problem)?)?;
    let problem = when(derp.is_null().or(differs("src")).or(differs("tgt")), why).end()?;
    Ok(vec![("derp", score), ("derp_problem", problem)])
}

/// The fitness of the whole tgt sentence in its parse; a pair with no arcs row says so.
fn dep_fit(i: &Inputs) -> Result<Vec<(&'static str, Expr)>> {
    let call = |function: expr::Builder5| {
        function(
            i.functions,
            i.tokens("tgt"),
            i.arcs("tgt_head"),
            i.arcs("tgt_deprel"),
            lit(0i64),
            cardinality(i.pairs("tgt")),
        )
    };
    let fit = call(expr::dep_fit)?;
    let why = match i.lockstep {
        // In lockstep every pair has its arcs row.
        true => call(expr::dep_fit_problem)?,
        false => when(i.arcs("pair_id").is_null(), lit("no parse (no arcs row)"))
            .otherwise(call(expr::dep_fit_problem)?)?,
    };
    // As in `derp`: the rare rows in the one WHEN, no ELSE.
    let problem = when(fit.clone().is_null(), why).end()?;
    Ok(vec![("tgt_dep_fit", fit), ("tgt_dep_fit_problem", problem)])
}
