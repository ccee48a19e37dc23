//! `pairmetrics lepod`: a drop-in replacement for `lepod-score.py` (Niu & Carpuat 2020). Same
//! options, same `PREFIX.led` / `PREFIX.pod` files and the same stdout, byte for byte, on every
//! input the original accepts; the scores come from the kernels the SQL functions use.
//!
//! Where the original crashes we either follow SPEC's decision or stop with an error naming the
//! file and line (see docs/guide/lepod-score.md).

use std::borrow::Cow;
use std::fs::File;
use std::io::{BufRead, Write};
use std::mem::take;
use std::path::{Path, PathBuf};

use anyhow::Result;
use crossbeam_channel::{Receiver, bounded};

use crate::formats::decimal;
use crate::formats::input::{self, LineSlices, Lines};
use crate::formats::meteor::{self, Block, Blocks};
use crate::kernels::Link;
use crate::pair::lepod::{self, LepodError, Punctuation, Scratch};
use crate::parallel::{Chunk, map_ordered_in_chunks};
use crate::storage::Output;
use crate::text::whitespace;

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
    /// Worker threads (the original has none; `pairmetrics lepod` uses every core).
    pub threads: usize,
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
        writeln!(
            out,
            "   {} pairs ({:.2}%) got non-zero LeD scores",
            self.nonzero_led,
            share(self.nonzero_led)
        )?;
        writeln!(
            out,
            "   {} pairs ({:.2}%) got non-zero PoD scores",
            self.nonzero_pod,
            share(self.nonzero_pod)
        )?;
        let zero = self.pairs - self.nonzero_any;
        writeln!(
            out,
            "   {zero} pairs ({:.2}%) got all zero scores",
            100.0 - share(self.nonzero_any)
        )
    }
}

/// `PREFIX.led` and `PREFIX.pod`, written as every output is ([`Output`]: under temporary
/// names, renamed when complete; special files, links and inputs never replaced).
struct ScoreFiles {
    files: Vec<Output>,
    /// The thread that uncaches the files being replaced ([`uncache`]).
    uncaching: Option<std::thread::JoinHandle<()>>,
}

impl ScoreFiles {
    fn create(prefix: &str) -> Result<Self> {
        let targets: Vec<PathBuf> = ["led", "pod"]
            .iter()
            .map(|ext| PathBuf::from(format!("{prefix}.{ext}")))
            .collect();
        let files = targets
            .iter()
            .map(|target| Output::create(target))
            .collect::<Result<Vec<_>>>()?;
        let uncaching = Some(std::thread::spawn(move || {
            targets.iter().for_each(|target| uncache(target))
        }));
        Ok(ScoreFiles { files, uncaching })
    }

    fn write(&mut self, which: usize, text: &[u8]) -> Result<()> {
        let output = &mut self.files[which];
        output.write_all(text)?;
        if let Some(file) = output.local_file() {
            start_writeback(file);
        }
        Ok(())
    }

    /// Sync and rename each file, both at once: a rename over an earlier output frees that
    /// file before it returns (its blocks on disk and its cached pages: 7 ms for each file of
    /// 100,000 pairs on this machine's ext4, mounted with `discard`).
    fn finish(mut self) -> Result<()> {
        let files: Vec<_> = self.files.drain(..).collect();
        if let Some(uncaching) = self.uncaching.take() {
            let _ = uncaching.join();
        }
        std::thread::scope(|scope| {
            let finishing: Vec<_> = files
                .into_iter()
                .map(|file| scope.spawn(move || file.commit()))
                .collect();
            finishing
                .into_iter()
                .map(|thread| {
                    thread
                        .join()
                        .expect("finishing a score file does not panic")
                })
                .collect()
        })
    }
}

/// Have the kernel drop the cached pages of an earlier output at `path`, if there is one, while
/// the pairs are scored, so that the rename that replaces it, after everything else is done,
/// has fewer to free (2 of its 7 ms for each score file of 100,000 pairs). The file itself is
/// untouched: pages not yet written to disk stay, and a run that fails leaves it as it was.
fn uncache(path: &Path) {
    if let Ok(file) = File::open(path) {
        crate::kernels::sys::drop_cached_pages(&file);
    }
}

/// Have the kernel start writing what `file` holds to disk, without waiting for it, so that the
/// `sync_all` before the rename finds little left to write: it waited about 10 ms for each score
/// file of 100,000 pairs, after everything else was done.
fn start_writeback(file: &File) {
    crate::kernels::sys::start_writeback(file);
}

/// Pairs a worker scores in one go.
const PAIRS_PER_CHUNK: usize = 1024;

/// Consecutive pairs as the reader thread cut them from the three inputs: lines of each file and
/// the blocks of the alignment file, unparsed (see [`LineSlices`]).
#[derive(Default)]
struct RawPairs {
    /// 0-based index of the first pair.
    first: u64,
    count: usize,
    lines: [Vec<u8>; 2],
    blocks: Vec<u8>,
    /// Line of the alignment file `blocks` starts at.
    blocks_line: u64,
    warnings: Vec<String>,
}

impl RawPairs {
    /// Empty, for the pairs from `first` on, keeping its buffers.
    fn reuse(mut self, first: u64, blocks_line: u64) -> Self {
        self.lines
            .iter_mut()
            .chain([&mut self.blocks])
            .for_each(Vec::clear);
        self.warnings.clear();
        RawPairs {
            first,
            count: 0,
            blocks_line,
            ..self
        }
    }
}

/// The three inputs, cut into [`RawPairs`]: only line ends are looked for here, so that the
/// parsing and scoring run on every core.
struct Reader<'a> {
    options: &'a LepodOptions,
    files: [Lines<Box<dyn BufRead + Send>>; 2],
    alignment: Lines<Box<dyn BufRead + Send>>,
    pairs: u64,
    done: bool,
    /// An error found after the pairs of the chunk being returned.
    after: Option<anyhow::Error>,
    /// Chunks the workers are done with, whose buffers the next chunks reuse.
    spares: Receiver<RawPairs>,
}

impl<'a> Reader<'a> {
    fn open(options: &'a LepodOptions, spares: Receiver<RawPairs>) -> Result<Self> {
        let open = |path: &Path| -> Result<_> { Ok(Lines::new(input::open(path)?, path)) };
        let [path1, path2] = &options.files;
        let files = [open(path1)?, open(path2)?];
        Ok(Reader {
            options,
            files,
            alignment: open(&options.alignment)?,
            pairs: 0,
            done: false,
            after: None,
            spares,
        })
    }

    /// Gather the next pairs into `chunk`; an error comes after the pairs gathered before it.
    fn read_chunk(&mut self, chunk: &mut RawPairs) -> Result<()> {
        let [path1, path2] = &self.options.files;
        let [lines1, lines2] = &mut chunk.lines;
        let (count1, count2) = (
            self.files[0].append_raw_lines(PAIRS_PER_CHUNK, lines1)?,
            self.files[1].append_raw_lines(PAIRS_PER_CHUNK, lines2)?,
        );
        // Lines past the shorter file's end stay in the chunk, unread.
        let pairs = count1.min(count2);
        let blocks = meteor::append_raw_blocks(&mut self.alignment, pairs, &mut chunk.blocks)?;
        (chunk.count, self.pairs) = (blocks, self.pairs + blocks as u64);
        if blocks < pairs {
            let counter = self.pairs + 1;
            self.done = true;
            self.after = Some(anyhow::anyhow!(
                "{}: the alignment file ends before pair {counter} (line {counter} of {})",
                self.options.alignment.display(),
                path1.display()
            ));
        } else if pairs < PAIRS_PER_CHUNK {
            self.done = true;
            if count1 != count2 {
                let (longer, shorter) = if count1 > count2 {
                    (path1, path2)
                } else {
                    (path2, path1)
                };
                chunk.warnings.push(format!(
                    "warning: {} has more lines than {}; the extra lines are ignored, as lepod-score.py does",
                    longer.display(),
                    shorter.display()
                ));
            }
            if self.pairs == 0 {
                self.after = Some(anyhow::anyhow!(
                    "no pairs were read: {} or {} is empty",
                    path1.display(),
                    path2.display()
                ));
            } else if meteor::append_raw_blocks(&mut self.alignment, 1, &mut Vec::new())
                .map_or(true, |more| more > 0)
            {
                let message = "has more alignment blocks than pairs; they are ignored";
                chunk.warnings.push(format!(
                    "warning: {} {message}",
                    self.options.alignment.display()
                ));
            }
        }
        Ok(())
    }
}

impl Iterator for Reader<'_> {
    type Item = Result<RawPairs>;

    fn next(&mut self) -> Option<Result<RawPairs>> {
        if let Some(e) = self.after.take() {
            return Some(Err(e));
        }
        if self.done {
            return None;
        }
        let mut chunk = self
            .spares
            .try_recv()
            .unwrap_or_default()
            .reuse(self.pairs, self.alignment.line_number() + 1);
        if let Err(e) = self.read_chunk(&mut chunk) {
            self.done = true;
            self.after = Some(e);
        }
        Some(Ok(chunk))
    }
}

/// What a worker makes of a chunk, up to its first error: the scores for the totals, the text
/// of stdout (`-v`) and of the score files.
#[derive(Default)]
struct Scored {
    scores: Vec<(f64, f64)>,
    stdout: Vec<u8>,
    led: Vec<u8>,
    pod: Vec<u8>,
    warnings: Vec<String>,
    error: Option<anyhow::Error>,
}

impl Scored {
    /// Empty, keeping its buffers.
    fn reuse(mut self) -> Self {
        self.scores.clear();
        [&mut self.stdout, &mut self.led, &mut self.pod]
            .into_iter()
            .for_each(Vec::clear);
        self.warnings.clear();
        Scored {
            error: None,
            ..self
        }
    }
}

/// Score every pair; write the score files (with a prefix) and the summary to `out`.
/// Warnings (inputs of different lengths, which the original silently truncates) go to `warn`.
/// Pairs are scored on `options.threads` workers and written in input order; the totals add
/// them up in file order, as the original does, so every figure is the same to the last bit.
pub fn run(options: &LepodOptions, out: &mut dyn Write, warn: &mut dyn Write) -> Result<()> {
    // A chunk's buffers go back for a later chunk to fill: allocated afresh for every chunk,
    // their pages went back to the kernel and were faulted in again.
    let (spare_inputs, spare_outputs) = (
        bounded::<RawPairs>(4 * options.threads),
        bounded::<Scored>(4 * options.threads),
    );
    let reader = Reader::open(options, spare_inputs.1)?;
    let mut files = options
        .prefix
        .as_deref()
        .map(ScoreFiles::create)
        .transpose()?;
    let punct = Punctuation::new(&options.punctuations);
    let mut totals = Totals::default();
    let score = |scratch: &mut Scratch, mut chunk: Chunk<RawPairs>| -> Result<Scored> {
        let mut pairs = chunk.records.pop().expect("one chunk of pairs per record");
        let mut scored = spare_outputs.1.try_recv().unwrap_or_default().reuse();
        scored.warnings.append(&mut pairs.warnings);
        if let Err(e) = score_pairs(options, &punct, scratch, &pairs, &mut scored) {
            scored.error = Some(e);
        }
        let _ = spare_inputs.0.try_send(pairs);
        Ok(scored)
    };
    map_ordered_in_chunks(
        1,
        reader,
        options.threads,
        Scratch::default,
        score,
        |mut scored| {
            out.write_all(&scored.stdout)?;
            if let Some(files) = files.as_mut() {
                files.write(0, &scored.led)?;
                files.write(1, &scored.pod)?;
            }
            for warning in &scored.warnings {
                writeln!(warn, "{warning}")?;
            }
            scored
                .scores
                .iter()
                .for_each(|&(led, pod)| totals.add(led, pod));
            let error = scored.error.take();
            let _ = spare_outputs.0.try_send(scored);
            error.map_or(Ok(()), Err)
        },
    )?;
    if let Some(files) = files {
        files.finish()?;
    }
    totals.write(out, options.digits, options.simple)?;
    Ok(())
}

/// Score a chunk's pairs into `scored`, stopping at the first error.
fn score_pairs(
    options: &LepodOptions,
    punct: &Punctuation,
    scratch: &mut Scratch,
    pairs: &RawPairs,
    scored: &mut Scored,
) -> Result<()> {
    let [path1, path2] = &options.files;
    let mut file1 = LineSlices::new(&pairs.lines[0], path1, pairs.first + 1);
    let mut file2 = LineSlices::new(&pairs.lines[1], path2, pairs.first + 1);
    let mut blocks = Blocks::matches_only(LineSlices::new(
        &pairs.blocks,
        &options.alignment,
        pairs.blocks_line,
    ));
    let mut block = Block::default();
    let mut links: Vec<Link> = Vec::new();
    // The token lists' buffers, from one pair to the next.
    let mut spare_tokens: [Vec<&str>; 2] = Default::default();
    let d = options.digits;
    for counter in pairs.first + 1..=pairs.first + pairs.count as u64 {
        let gathered = "the reader gathered a line of each file per pair";
        let (line1, line2) = (
            file1.next_slice()?.expect(gathered),
            file2.next_slice()?.expect(gathered),
        );
        let (raw1, raw2) = (whitespace::strip(line1), whitespace::strip(line2));
        let out = &mut scored.stdout;
        if options.verbose {
            writeln!(out, "    RAW-1\t{raw1}\n    RAW-2\t{raw2}")?;
        }
        let (case1, case2): (Cow<str>, Cow<str>) = match options.lowercase {
            true => (raw1.to_lowercase().into(), raw2.to_lowercase().into()),
            false => (raw1.into(), raw2.into()),
        };
        let [mut toks1, mut toks2] = spare_tokens.each_mut().map(take);
        toks1.extend(whitespace::split(&case1));
        toks2.extend(whitespace::split(&case2));
        if !blocks.read_into(&mut block)? {
            unreachable!("the reader gathered a block per pair");
        }
        let place = || Place {
            options,
            block: &block,
            counter,
        };
        if let Some((side, position, len)) = block.span_past_end(toks1.len(), toks2.len()) {
            return Err(place().error(LepodError::LinkOutOfRange {
                side,
                position: position as i64,
                len,
            }));
        }
        block.links_into(&mut links);
        let (led, pod) = match options.verbose {
            false => lepod::led_and_pod(&toks1, &toks2, &links, punct, scratch)
                .map_err(|e| place().error(e))?,
            true => {
                let (kept1, kept2) = lepod::kept_tokens(&toks1, &toks2, &links, scratch)
                    .map_err(|e| place().error(e))?;
                let (sub1, sub2) = (
                    kept1.iter().filter(|k| !**k).count(),
                    kept2.iter().filter(|k| !**k).count(),
                );
                let led =
                    (sub1 as f64 / toks1.len() as f64 + sub2 as f64 / toks2.len() as f64) / 2.0;
                let (mat1, mat2) = matched_tokens(&block, &toks1, &toks2, punct);
                let words = |toks: &[&str], keep: &dyn Fn(usize) -> bool| -> String {
                    toks.iter()
                        .enumerate()
                        .filter(|(i, _)| keep(*i))
                        .map(|(_, t)| *t)
                        .collect::<Vec<_>>()
                        .join(" ")
                };
                writeln!(
                    out,
                    "MAT | SUB\t{} | {}",
                    words(&toks1, &|i| mat1[i]),
                    words(&toks1, &|i| !kept1[i])
                )?;
                writeln!(
                    out,
                    "MAT | SUB\t{} | {}",
                    words(&toks2, &|i| mat2[i]),
                    words(&toks2, &|i| !kept2[i])
                )?;
                (
                    led,
                    lepod::pod_after_kept_tokens(&toks1, &toks2, punct, scratch),
                )
            }
        };
        scored.scores.push((led, pod));
        if options.verbose {
            writeln!(
                out,
                "{counter}\tdistortion-score={pod:.d$}   substitution-score={led:.d$}"
            )?;
            writeln!(out, "{}", "=".repeat(100))?;
        }
        if options.prefix.is_some() {
            // `SCORE\tN\tLINE1\tLINE2`: the line after the score is the same in both files.
            decimal::push_fixed(&mut scored.led, led, d);
            let tail = scored.led.len();
            let mut number = itoa::Buffer::new();
            for piece in [
                b"\t",
                number.format(counter).as_bytes(),
                b"\t",
                raw1.as_bytes(),
                b"\t",
                raw2.as_bytes(),
                b"\n",
            ] {
                scored.led.extend_from_slice(piece);
            }
            decimal::push_fixed(&mut scored.pod, pod, d);
            scored.pod.extend_from_slice(&scored.led[tail..]);
        }
        spare_tokens = [recycle(toks1), recycle(toks2)];
    }
    Ok(())
}

/// `tokens` emptied, to hold tokens of another line: collecting a vector's own `IntoIter` keeps
/// its buffer (std collects in place when the element layouts match).
fn recycle<'b>(tokens: Vec<&str>) -> Vec<&'b str> {
    tokens.into_iter().filter_map(|_| None).collect()
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
                let path = if side == crate::kernels::Side::Src {
                    path1
                } else {
                    path2
                };
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
fn matched_tokens(
    block: &Block,
    toks1: &[&str],
    toks2: &[&str],
    punct: &Punctuation,
) -> (Vec<bool>, Vec<bool>) {
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
