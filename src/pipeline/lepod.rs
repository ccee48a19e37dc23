//! `pairmetrics lepod`: a drop-in replacement for `lepod-score.py` (Niu & Carpuat 2020). Same
//! options, same `PREFIX.led` / `PREFIX.pod` files and the same stdout, byte for byte, on every
//! input the original accepts; the scores come from the kernels the SQL functions use.
//!
//! Where the original crashes we either follow SPEC's decision or stop with an error naming the
//! file and line (see the README, "lepod-score.py compatibility").

use std::borrow::Cow;
use std::fs::{self, File};
use std::io::{BufRead, BufWriter, Write};
use std::path::{Path, PathBuf};

use anyhow::{Context, Result, bail};

use crate::formats::input::{self, InputError, Lines};
use crate::formats::meteor::{Block, Blocks};
use crate::formats::tokens;
use crate::metrics::Link;
use crate::metrics::lepod::{self, LepodError, Punctuation, Scratch};

#[derive(Debug, Clone)]
pub struct LepodOptions {
    pub alignment: PathBuf,
    pub files: [PathBuf; 2],
    pub digits: usize,
    pub punctuations: String,
    pub lowercase: bool,
    pub verbose: bool,
    pub prefix: Option<String>,
    pub simple: bool,
}

/// Running corpus figures, accumulated in file order as the original does.
#[derive(Debug, Default)]
struct Totals {
    pairs: u64,
    led_sum: f64,
    pod_sum: f64,
    led_min: f64,
    led_max: f64,
    pod_min: f64,
    pod_max: f64,
    nonzero_led: u64,
    nonzero_pod: u64,
    nonzero_any: u64,
}

impl Totals {
    fn add(&mut self, led: f64, pod: f64) {
        if self.pairs == 0 {
            (self.led_min, self.led_max, self.pod_min, self.pod_max) = (led, led, pod, pod);
        }
        self.pairs += 1;
        self.led_sum += led;
        self.pod_sum += pod;
        self.led_min = self.led_min.min(led);
        self.led_max = self.led_max.max(led);
        self.pod_min = self.pod_min.min(pod);
        self.pod_max = self.pod_max.max(pod);
        self.nonzero_led += (led > 0.0) as u64;
        self.nonzero_pod += (pod > 0.0) as u64;
        self.nonzero_any += (led > 0.0 || pod > 0.0) as u64;
    }

    fn write(&self, out: &mut dyn Write, d: usize, simple: bool) -> std::io::Result<()> {
        let n = self.pairs as f64;
        let (led, pod) = (self.led_sum / n, self.pod_sum / n);
        if simple {
            return writeln!(out, "LeD={led:.d$} PoD={pod:.d$}");
        }
        writeln!(out, "LeD={led:.d$}")?;
        writeln!(out, "   min={:.d$}", self.led_min)?;
        writeln!(out, "   max={:.d$}", self.led_max)?;
        writeln!(out, "PoD={pod:.d$}")?;
        writeln!(out, "   min={:.d$}", self.pod_min)?;
        writeln!(out, "   max={:.d$}", self.pod_max)?;
        writeln!(out, "{} pairs were read in total", self.pairs)?;
        let share = |count: u64| count as f64 * 100.0 / n;
        writeln!(out, "   {} pairs ({:.2}%) got non-zero LeD scores", self.nonzero_led, share(self.nonzero_led))?;
        writeln!(out, "   {} pairs ({:.2}%) got non-zero PoD scores", self.nonzero_pod, share(self.nonzero_pod))?;
        let zero = self.pairs - self.nonzero_any;
        writeln!(out, "   {zero} pairs ({:.2}%) got all zero scores", 100.0 - share(self.nonzero_any))
    }
}

/// `PREFIX.led` and `PREFIX.pod`, written under temporary names and renamed when complete.
struct ScoreFiles {
    files: Vec<(BufWriter<File>, PathBuf, PathBuf)>,
}

impl ScoreFiles {
    fn create(prefix: &str) -> Result<Self> {
        let mut files = Vec::new();
        for ext in ["led", "pod"] {
            let target = PathBuf::from(format!("{prefix}.{ext}"));
            let temp = PathBuf::from(format!("{prefix}.{ext}.{}.partial", std::process::id()));
            let file = File::create(&temp).with_context(|| format!("cannot create {}", temp.display()))?;
            files.push((BufWriter::with_capacity(1 << 16, file), temp, target));
        }
        Ok(ScoreFiles { files })
    }

    fn write(&mut self, which: usize, line: std::fmt::Arguments) -> Result<()> {
        Ok(self.files[which].0.write_fmt(line)?)
    }

    fn finish(mut self) -> Result<()> {
        for (writer, temp, target) in self.files.drain(..) {
            writer.into_inner().map_err(|e| e.into_error())?.sync_all()?;
            fs::rename(&temp, &target).with_context(|| format!("moving {} to {}", temp.display(), target.display()))?;
        }
        Ok(())
    }
}

impl Drop for ScoreFiles {
    fn drop(&mut self) {
        for (_, temp, _) in &self.files {
            let _ = fs::remove_file(temp);
        }
    }
}

fn open_lines(path: &Path) -> Result<Lines<Box<dyn BufRead + Send>>, InputError> {
    Ok(Lines::new(input::open(path)?, path))
}

/// Score every pair; write the score files (with a prefix) and the summary to `out`.
/// Warnings (inputs of different lengths, which the original silently truncates) go to `warn`.
pub fn run(options: &LepodOptions, out: &mut dyn Write, warn: &mut dyn Write) -> Result<()> {
    let mut blocks = Blocks::new(open_lines(&options.alignment)?);
    let [path1, path2] = &options.files;
    let (mut file1, mut file2) = (open_lines(path1)?, open_lines(path2)?);
    let mut files = options.prefix.as_deref().map(ScoreFiles::create).transpose()?;
    let punct = Punctuation::new(&options.punctuations);
    let d = options.digits;
    let (mut line1, mut line2) = (String::new(), String::new());
    let mut links: Vec<Link> = Vec::new();
    let mut scratch = Scratch::default();
    let mut totals = Totals::default();
    let mut block = Block::default();
    loop {
        let (more1, more2) = (file1.next_into(&mut line1)?, file2.next_into(&mut line2)?);
        if more1 != more2 {
            let (longer, shorter) = if more1 { (path1, path2) } else { (path2, path1) };
            writeln!(
                warn,
                "warning: {} has more lines than {}; the extra lines are ignored, as lepod-score.py does",
                longer.display(),
                shorter.display()
            )?;
        }
        if !(more1 && more2) {
            break;
        }
        let counter = totals.pairs + 1;
        let (raw1, raw2) = (tokens::strip(&line1), tokens::strip(&line2));
        if options.verbose {
            writeln!(out, "    RAW-1\t{raw1}\n    RAW-2\t{raw2}")?;
        }
        let (case1, case2): (Cow<str>, Cow<str>) = match options.lowercase {
            true => (raw1.to_lowercase().into(), raw2.to_lowercase().into()),
            false => (raw1.into(), raw2.into()),
        };
        let toks1: Vec<&str> = tokens::split(&case1).collect();
        let toks2: Vec<&str> = tokens::split(&case2).collect();
        if !blocks.read_into(&mut block)? {
            bail!(
                "{}: the alignment file ends before pair {counter} (line {counter} of {})",
                options.alignment.display(),
                path1.display()
            );
        }
        let place = || Place { options, block: &block, counter };
        if let Some((side, position, len)) = block.span_past_end(toks1.len(), toks2.len()) {
            return Err(place().error(LepodError::LinkOutOfRange { side, position: position as i64, len }));
        }
        block.links_into(&mut links);
        let (kept1, kept2) =
            lepod::kept_tokens(&toks1, &toks2, &links, &mut scratch).map_err(|e| place().error(e))?;
        let (sub1, sub2) = (kept1.iter().filter(|k| !**k).count(), kept2.iter().filter(|k| !**k).count());
        let led = (sub1 as f64 / toks1.len() as f64 + sub2 as f64 / toks2.len() as f64) / 2.0;
        if options.verbose {
            let (mat1, mat2) = matched_tokens(&block, &toks1, &toks2, &punct);
            let words = |toks: &[&str], keep: &dyn Fn(usize) -> bool| -> String {
                toks.iter().enumerate().filter(|(i, _)| keep(*i)).map(|(_, t)| *t).collect::<Vec<_>>().join(" ")
            };
            writeln!(out, "MAT | SUB\t{} | {}", words(&toks1, &|i| mat1[i]), words(&toks1, &|i| !kept1[i]))?;
            writeln!(out, "MAT | SUB\t{} | {}", words(&toks2, &|i| mat2[i]), words(&toks2, &|i| !kept2[i]))?;
        }
        let pod = lepod::pod(&toks1, &toks2, &links, &punct, &mut scratch).map_err(|e| place().error(e))?;
        totals.add(led, pod);
        if options.verbose {
            writeln!(out, "{counter}\tdistortion-score={pod:.d$}   substitution-score={led:.d$}")?;
            writeln!(out, "{}", "=".repeat(100))?;
        }
        if let Some(files) = files.as_mut() {
            files.write(0, format_args!("{led:.d$}\t{counter}\t{raw1}\t{raw2}\n"))?;
            files.write(1, format_args!("{pod:.d$}\t{counter}\t{raw1}\t{raw2}\n"))?;
        }
    }
    if totals.pairs == 0 {
        bail!("no pairs were read: {} or {} is empty", path1.display(), path2.display());
    }
    if blocks.read_into(&mut block).unwrap_or(true) {
        writeln!(warn, "warning: {} has more alignment blocks than pairs; they are ignored", options.alignment.display())?;
    }
    if let Some(files) = files {
        files.finish()?;
    }
    totals.write(out, d, options.simple)?;
    Ok(())
}

/// Where a pair's problem is, for errors that point at the input.
struct Place<'a> {
    options: &'a LepodOptions,
    block: &'a Block,
    counter: u64,
}

impl Place<'_> {
    fn error(&self, e: LepodError) -> anyhow::Error {
        let [path1, path2] = &self.options.files;
        match e {
            LepodError::EmptySentence(side) => {
                let path = if side == crate::metrics::Side::Src { path1 } else { path2 };
                anyhow::anyhow!(
                    "{}:{}: empty sentence; LeD is undefined for it (lepod-score.py divides by zero)",
                    path.display(),
                    self.counter
                )
            }
            e @ LepodError::LinkOutOfRange { .. } => anyhow::anyhow!(
                "{}:{}: alignment block {} (pair {}): {e}",
                self.options.alignment.display(),
                self.block.line,
                self.block.number,
                self.counter
            ),
        }
    }
}

/// The tokens `-v` lists as matched: every token of a match, except a match's first token when
/// it is punctuation (the original leaves those out of the alignment it prints).
fn matched_tokens(block: &Block, toks1: &[&str], toks2: &[&str], punct: &Punctuation) -> (Vec<bool>, Vec<bool>) {
    let mut mat1 = vec![false; toks1.len()];
    let mut mat2 = vec![false; toks2.len()];
    for m in &block.matches {
        for (mat, toks, start, len) in [
            (&mut mat1, toks1, m.s1_start, m.s1_len),
            (&mut mat2, toks2, m.s2_start, m.s2_len),
        ] {
            let (start, end) = (start as usize, (start + len) as usize);
            mat[start..end].iter_mut().for_each(|m| *m = true);
            mat[start] = !punct.contains(toks[start]);
        }
    }
    (mat1, mat2)
}
