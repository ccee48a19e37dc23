//! `pairmetrics decode`: the phrase-based decoder (`metrics::decode`) over every sentence of a
//! text file or a Parquet column, on every core, in input order: 1-best sentences or Moses
//! n-best lines on stdout.

use std::fmt;
use std::io::Write;
use std::path::PathBuf;
use std::time::Instant;

use anyhow::{Result, bail};

use crate::parallel::{Chunk, map_ordered_in_chunks};
use crate::resources::{self, PhraseTableOptions, ResourceOptions};
use crate::sentences::{self, Sentence};
use crate::smt::decode::{self, Translation};

#[derive(Debug, Clone)]
pub struct DecodeOptions {
    /// Sentences: a text file or a Parquet file or directory (see [`sentences::read`]).
    pub input: PathBuf,
    /// The Parquet column: tokens (List<Utf8>) or text.
    pub column: String,
    pub phrase_table: PhraseTableOptions,
    pub lm: Option<PathBuf>,
    pub decode: decode::Options,
    /// Print n-best lines (`decode.nbest` per sentence) instead of each sentence's best.
    pub nbest_lines: bool,
    pub threads: usize,
    /// Count the sentences on stderr as they are done.
    pub progress: bool,
}

impl DecodeOptions {
    /// How the output was made, for the user to quote.
    pub fn signature(&self) -> String {
        let o = &self.decode;
        let w = &o.weights;
        let limit = match o.distortion_limit {
            Some(limit) => limit.to_string(),
            None => "none".into(),
        };
        let lm = match self.lm {
            Some(_) => format!("alpha_lm={},lm:ln", w.lm),
            None => "no-lm".into(),
        };
        format!(
            "pairmetrics:{}|decode|stack={}|beam-threshold={}|distortion-limit={limit}|rules-per-phrase={}|nbest={}{}|p={}|alpha_phi={},alpha_d={},alpha_w={},{lm}",
            crate::VERSION,
            o.stack_size,
            o.beam_threshold,
            o.rules_per_phrase,
            o.nbest,
            if o.distinct { ",distinct" } else { "" },
            self.phrase_table.prob_column,
            w.phrase,
            w.distortion,
            w.word,
        ) + &match w.has_translation_model() {
            true => format!(
                ",alpha_direct={},alpha_inverse={},alpha_pp={}",
                w.direct, w.inverse, w.phrase_penalty
            ),
            false => String::new(),
        }
    }
}

#[derive(Debug, Clone, Default, PartialEq)]
pub struct DecodeSummary {
    pub sentences: u64,
    /// Source words passed through in the best translations: no rule covers them alone.
    pub unknown_words: u64,
    pub signature: String,
    pub seconds: f64,
}

impl fmt::Display for DecodeSummary {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(
            f,
            "sentences: {} ({} words passed through unchanged: no rule covers them alone)",
            self.sentences, self.unknown_words
        )?;
        writeln!(f, "signature: {}", self.signature)?;
        write!(f, "{}", sentences::timing(self.sentences, self.seconds))
    }
}

/// Decode every sentence of `options.input`, printing to `stdout`; the summary and what the
/// resources loading said.
pub async fn decode(
    options: &DecodeOptions,
    stdout: &mut dyn Write,
) -> Result<(DecodeSummary, Vec<String>)> {
    let started = Instant::now();
    if options.decode.nbest == 0 {
        bail!("--nbest must be at least 1");
    }
    let (resources, loaded) = resources::load(&ResourceOptions::decoder(
        &options.phrase_table,
        &options.lm,
    ))
    .await?;
    let index = resources.phrase_index.get().expect("loaded");
    let lm = resources.lm.get();
    let sentences = sentences::read(&options.input, &options.column).await?;
    sentences::check_lengths(&sentences, crate::smt::decode::MAX_WORDS, "decode")?;
    let bar = sentences::progress_bar(sentences.len(), options.progress);
    let mut summary = DecodeSummary {
        signature: options.signature(),
        ..Default::default()
    };
    let translate = |_: &mut (), chunk: Chunk<Sentence>| -> Result<Vec<(i64, Vec<Translation>)>> {
        Ok((chunk.records.into_iter())
            .map(|(id, tokens)| {
                let words: Vec<&str> = tokens.iter().map(String::as_str).collect();
                (id, decode::decode(index, lm, &words, &options.decode))
            })
            .collect())
    };
    let records = sentences.into_iter().map(Ok::<_, anyhow::Error>);
    // One sentence per chunk: each takes long enough to keep a worker busy.
    map_ordered_in_chunks(
        1,
        records,
        options.threads,
        || (),
        translate,
        |done| {
            for (id, translations) in &done {
                summary.sentences += 1;
                summary.unknown_words += translations.first().map_or(0, |t| t.unknown as u64);
                match options.nbest_lines {
                    true => {
                        for t in translations {
                            let tm = options.decode.weights.has_translation_model();
                            write_nbest_line(stdout, *id, t, tm)?;
                        }
                    }
                    false => {
                        let best = translations.first().map(|t| t.tokens.join(" "));
                        writeln!(stdout, "{}", best.unwrap_or_default())?;
                    }
                }
            }
            bar.inc(done.len() as u64);
            Ok(())
        },
    )?;
    stdout.flush()?;
    bar.finish_and_clear();
    summary.seconds = started.elapsed().as_secs_f64();
    Ok((summary, loaded))
}

/// A hypothesis as the text of an n-best line, which `import moses-nbest` reads back to the same
/// tokens; a token it would misread (white space, a line end, `|||`, empty) is an error naming
/// the sentence, as `export moses-phrase-table` refuses such a rule. An empty hypothesis is one.
pub(crate) fn nbest_text<T: AsRef<str>>(id: i64, tokens: &[T]) -> Result<String> {
    if tokens.is_empty() {
        return Ok(String::new());
    }
    let tokens: Vec<&str> = tokens.iter().map(AsRef::as_ref).collect();
    crate::formats::moses::phrase_text(&tokens).map_err(|why| {
        anyhow::anyhow!(
            "sentence {id}: a hypothesis cannot be written as a Moses n-best line: its {why} \
             (the phrase table has such a token)"
        )
    })
}

/// A Moses n-best line, `id ||| translation ||| phrase= P lm= L distortion= D word= W |||
/// total` (with Moses' translation model, `tm= DIRECT INVERSE pp= PHRASES` after P), features
/// unweighted (L is ln P, 0 without an LM) and the total weighted, so that `import
/// moses-nbest` and `rerank` read it.
fn write_nbest_line(
    out: &mut dyn Write,
    id: i64,
    t: &Translation,
    translation_model: bool,
) -> Result<()> {
    let f = &t.features;
    let tm = match translation_model {
        true => format!(" tm= {} {} pp= {}", f.direct, f.inverse, f.phrase_penalty),
        false => String::new(),
    };
    writeln!(
        out,
        "{id} ||| {} ||| phrase= {}{tm} lm= {} distortion= {} word= {} ||| {}",
        nbest_text(id, &t.tokens)?,
        f.phrase,
        f.lm,
        f.distortion,
        f.word,
        t.total
    )?;
    Ok(())
}
