//! `pairmetrics fast-align`: a drop-in for `fast_align` (clab/fast_align): the same flags and, on
//! stdout, the same Pharaoh links, byte for byte, from `align::fast_align`.

use std::io::Write;
use std::path::PathBuf;

use anyhow::{Result, bail};

use crate::align::fast_align::{self, Corpus, Iteration, MAX_LINE_PAIRS};
use crate::formats::input::{self, Lines};
use crate::formats::pharaoh;
use crate::storage::Output;
use crate::storage::spill::Scratch;

#[derive(Debug, Clone)]
pub struct FastAlignOptions {
    pub input: PathBuf,
    pub model: fast_align::Options,
    /// Where to write the translation table (fast_align's `-p`), atomically.
    pub table: Option<PathBuf>,
    /// Which translations the table keeps (fast_align's `-t`, -4).
    pub beam_threshold: f64,
    /// Where the scratch directory is made (default: the system's temporary directory).
    pub temp_dir: Option<PathBuf>,
}

/// Read the corpus, train, print each line's links (`i-j ...`) to `out` and fast_align's
/// figures per iteration to `log`.
pub fn run(options: &FastAlignOptions, out: &mut dyn Write, log: &mut dyn Write) -> Result<()> {
    let mut lines = Lines::new(input::open(&options.input)?, &options.input);
    // The table (-p) is refused now (the input itself, a missing directory), not after training.
    if let Some(path) = &options.table {
        Output::check(path)?;
    }
    let scratch = Scratch::new(options.temp_dir.clone());
    let mut corpus = Corpus::new(&scratch);
    let mut line = String::new();
    while lines.next_into(&mut line)? {
        corpus.push_line(&line).map_err(|e| scratch.error(e))?;
        let (source, target) = corpus.last_pair();
        if source == 0 || target == 0 {
            bail!(
                "{}:{}: a side is empty ({source} source and {target} target words): \
                 fast_align would go on with an undefined length ratio",
                options.input.display(),
                lines.line_number()
            );
        }
        if source * target > MAX_LINE_PAIRS {
            bail!(
                "{}:{}: {source} source x {target} target words, more than the {MAX_LINE_PAIRS} \
                 word pairs a line may have (its cost grows with the product; 4,096 words a \
                 side): is it a whole document on one line?",
                options.input.display(),
                lines.line_number()
            );
        }
    }
    if corpus.is_empty() {
        bail!("{}: no lines", options.input.display());
    }
    let aligned = fast_align::align(&corpus, &options.model, |n, it: &Iteration| {
        let last = n + 1 == options.model.iterations;
        let base2 = it.log_likelihood / std::f64::consts::LN_2;
        let _ = writeln!(
            log,
            "ITERATION {}{}\n  log_e likelihood: {}\n  log_2 likelihood: {base2}\n     cross entropy: {}\n        perplexity: {}\n      posterior p0: {}\n posterior al-feat: {}\n     final tension: {}",
            n + 1,
            if last { " (FINAL)" } else { "" },
            it.log_likelihood,
            -base2 / it.target_tokens,
            (-base2 / it.target_tokens).exp2(),
            it.posterior_null,
            it.posterior_feature,
            it.tension,
        );
    })
    .map_err(|e| scratch.error(e))?;
    let mut text = String::new();
    for links in aligned.links() {
        let links = links.map_err(|e| scratch.error(e))?;
        text.clear();
        pharaoh::write_line(&mut text, &links);
        text.push('\n');
        out.write_all(text.as_bytes())?;
    }
    out.flush()?;
    if let Some(path) = &options.table {
        let _ = writeln!(log, "conditional probabilities: {}", path.display());
        let mut file = Output::create(path)?;
        let mut buffered = std::io::BufWriter::with_capacity(1 << 16, &mut file);
        aligned.write_table(&corpus, options.beam_threshold, &mut buffered)?;
        buffered.flush()?;
        drop(buffered);
        file.commit()?;
    }
    Ok(())
}
