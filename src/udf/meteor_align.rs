//! `meteor_align(src, tgt [, modules [, lang]])`: METEOR 1.5's alignment of two token lists, as
//! links that name their module, so `pod(src, tgt, meteor_align(src, tgt))` is LePoD in one
//! query.

use std::collections::HashMap;
use std::sync::{Arc, LazyLock, Mutex};

use datafusion::arrow::array::ArrayRef;
use datafusion::arrow::datatypes::DataType;
use datafusion::common::{Result, exec_datafusion_err};
use datafusion::logical_expr::{
    ColumnarValue, Documentation, ScalarFunctionArgs, ScalarUDFImpl, Signature, Volatility,
};

use super::args::{Shapes, checked_arguments};
use super::docs::DOC_SECTION;
use super::expr;
use crate::align::module_links;
use crate::align::{Aligner, AlignerOptions, Module, Scratch};
use crate::arrow::module_links_array;
use crate::arrow::read::{Strings, TokenLists};
use crate::schema::{ColumnType, module_link_list_type};

pub const NAME: &str = expr::METEOR_ALIGN;

/// The function, its aligners (one per modules and language asked for, built on first use and
/// kept for the session) and their scratch space.
#[derive(Debug)]
pub struct MeteorAlignUdf {
    signature: Signature,
    /// Beam, objective and resource files (the session's); modules and language by argument.
    base: AlignerOptions,
    aligners: Mutex<HashMap<(String, String), Arc<Pooled>>>,
}

#[derive(Debug)]
struct Pooled {
    aligner: Arc<Aligner>,
    names: Vec<&'static str>,
    scratch: Mutex<Vec<Scratch>>,
}

impl Pooled {
    fn new(aligner: Arc<Aligner>) -> Arc<Pooled> {
        let names = aligner.modules().iter().map(|m| m.name()).collect();
        Arc::new(Pooled {
            aligner,
            names,
            scratch: Mutex::default(),
        })
    }
}

impl MeteorAlignUdf {
    /// Align by `base`; `built`, an aligner already made from `base`, serves its default modules
    /// and language (so its resource files are not read a second time).
    pub fn new(base: AlignerOptions, built: Option<Arc<Aligner>>) -> Self {
        let mut aligners = HashMap::new();
        if let Some(aligner) = built {
            aligners.insert((String::new(), base.language.clone()), Pooled::new(aligner));
        }
        MeteorAlignUdf {
            signature: Signature::user_defined(Volatility::Immutable),
            base,
            aligners: Mutex::new(aligners),
        }
    }

    fn aligner(&self, modules: &str, language: &str) -> Result<Arc<Pooled>> {
        let key = (modules.to_string(), language.to_string());
        let mut aligners = self.aligners.lock().expect("not poisoned");
        if let Some(pooled) = aligners.get(&key) {
            return Ok(pooled.clone());
        }
        let fail = |e: crate::align::AlignError| exec_datafusion_err!("{NAME}: {e}");
        let modules = if modules.is_empty() {
            self.base.modules.clone()
        } else {
            Some(Module::parse_list(modules).map_err(fail)?)
        };
        let options = AlignerOptions {
            modules,
            language: language.to_string(),
            ..self.base.clone()
        };
        let pooled = Pooled::new(Arc::new(
            Aligner::new(options, &crate::formats::input::open_resource).map_err(fail)?,
        ));
        aligners.insert(key, pooled.clone());
        Ok(pooled)
    }
}

impl PartialEq for MeteorAlignUdf {
    fn eq(&self, other: &Self) -> bool {
        self.base == other.base
    }
}

impl Eq for MeteorAlignUdf {}

impl std::hash::Hash for MeteorAlignUdf {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        self.base.hash(state);
    }
}

const SHAPES: Shapes = &[
    &[("src", ColumnType::Tokens), ("tgt", ColumnType::Tokens)],
    &[
        ("src", ColumnType::Tokens),
        ("tgt", ColumnType::Tokens),
        ("modules", ColumnType::Text),
    ],
    &[
        ("src", ColumnType::Tokens),
        ("tgt", ColumnType::Tokens),
        ("modules", ColumnType::Text),
        ("lang", ColumnType::Text),
    ],
];

static DOC: LazyLock<Documentation> = LazyLock::new(|| {
    Documentation::builder(
        DOC_SECTION,
        "The METEOR 1.5 aligner's links between src (METEOR's test sentence) and tgt (its \
         reference): the matches its Matcher prints, each expanded to the links between its \
         words, with the module that found it. Exact, stem (Snowball), synonym (WordNet, \
         English built in) and paraphrase (needs the session's paraphrase table) stages, then \
         METEOR's beam search (the session's beam and objective). Tokens are compared as given: \
         lowercase first for case-insensitive matching. NULL when an argument or a token is NULL. See \
         docs/meteor-aligner.md.",
        "meteor_align(src, tgt [, modules [, lang]])",
    )
    .with_argument("src", "First sentence: a token list.")
    .with_argument("tgt", "Second sentence: a token list.")
    .with_argument(
        "modules",
        "Stages in order, e.g. 'exact stem synonym' (the default; '' too).",
    )
    .with_argument(
        "lang",
        "Language: en (default), da, de, es, fi, fr, hu, it, nl, no, pt, ro, ru, se, tr.",
    )
    .with_sql_example(
        "SELECT pod(src, tgt, meteor_align(src, tgt)) FROM pairs;\n\
         SELECT meteor_align(['the', 'cats'], ['a', 'cat'], 'exact stem');\n\
         -- [{src: 1, tgt: 1, module: stem}]",
    )
    .build()
});

impl ScalarUDFImpl for MeteorAlignUdf {
    fn name(&self) -> &str {
        NAME
    }

    checked_arguments!(|_| SHAPES);

    fn return_type(&self, _arg_types: &[DataType]) -> Result<DataType> {
        Ok(module_link_list_type())
    }

    fn invoke_with_args(&self, args: ScalarFunctionArgs) -> Result<ColumnarValue> {
        let rows = args.number_rows;
        let arrays = ColumnarValue::values_to_arrays(&args.args)?;
        let (srcs, tgts) = (
            TokenLists::new("src", &arrays[0])?,
            TokenLists::new("tgt", &arrays[1])?,
        );
        let modules = arrays
            .get(2)
            .map(|a| Strings::new(a.as_ref()))
            .transpose()?;
        let languages = arrays
            .get(3)
            .map(|a| Strings::new(a.as_ref()))
            .transpose()?;
        let (mut src, mut tgt) = (Vec::new(), Vec::new());
        let mut current: Option<(String, String, Arc<Pooled>, Scratch)> = None;
        let mut links = Vec::with_capacity(rows);
        let mut valid = Vec::with_capacity(rows);
        for row in 0..rows {
            let modules = modules.as_ref().map_or(Some(""), |m| m.get(row));
            let language = languages
                .as_ref()
                .map_or(Some(self.base.language.as_str()), |l| l.get(row));
            let readable = srcs.row(row, &mut src).is_ok() && tgts.row(row, &mut tgt).is_ok();
            let (Some(modules), Some(language), true) = (modules, language, readable) else {
                links.push(Vec::new());
                valid.push(false);
                continue;
            };
            if !matches!(&current, Some((m, l, _, _)) if m == modules && l == language) {
                if let Some((_, _, pooled, scratch)) = current.take() {
                    pooled.scratch.lock().expect("not poisoned").push(scratch);
                }
                let pooled = self.aligner(modules, language)?;
                let scratch = pooled
                    .scratch
                    .lock()
                    .expect("not poisoned")
                    .pop()
                    .unwrap_or_default();
                current = Some((modules.to_string(), language.to_string(), pooled, scratch));
            }
            let (_, _, pooled, scratch) = current.as_mut().expect("set above");
            let matches = pooled.aligner.align(&src, &tgt, scratch);
            links.push(module_links(&matches, &pooled.names));
            valid.push(true);
        }
        if let Some((_, _, pooled, scratch)) = current {
            pooled.scratch.lock().expect("not poisoned").push(scratch);
        }
        let array: ArrayRef = module_links_array(links.iter().map(Vec::as_slice), Some(valid));
        Ok(ColumnarValue::Array(array))
    }

    fn documentation(&self) -> Option<&Documentation> {
        Some(&DOC)
    }
}
