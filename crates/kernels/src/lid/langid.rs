//! py3langid 0.4.0's language identifier (`LanguageIdentifier.from_model_file(MODEL_FILE,
//! norm_probs=True)`), with its model built in: byte n-gram features found by a DFA walk over the
//! NFC-normalised UTF-8 text, a naive Bayes score per language, then a softmax calibrated by the
//! text's length.
//!
//! Where py3langid's numbers come from BLAS and numpy's SIMD loops, the last bits of a
//! probability can differ between CPUs (and so between py3langid runs on two machines): the
//! feature sum here is exact to f64 and rounded once to f32, which every float32 BLAS kernel
//! approximates; numpy's pairwise float32 sum of the softmax is reproduced as numpy does it.
//! The label is the same; the probability agrees to float32 noise (a few units in its last
//! place).

use std::collections::HashSet;
use std::io::Read;
use std::sync::OnceLock;

use unicode_normalization::{IsNormalized, UnicodeNormalization, is_nfc_quick};

use super::npz::{Npz, f16_to_f32};

/// The model inside the py3langid 0.4.0 wheel, byte for byte (BSD-3-Clause; data/py3langid).
const BUILT_IN_MODEL: &[u8] = include_bytes!("../../data/py3langid/model.npz.xz");

/// A language and the identifier's confidence in it (a probability, 0 to 1).
#[derive(Debug, Clone, PartialEq)]
pub struct Guess<'a> {
    pub lang: &'a str,
    pub prob: f64,
}

/// The model's arrays, as py3langid's `load_model` returns them.
#[derive(Debug)]
pub struct Model {
    /// Per feature, a row of log-probabilities, one per class column, float16 as in the file
    /// (half the memory traffic of f32), each row padded with zeros to `width` columns.
    ptc: Vec<u16>,
    /// Columns a row of `ptc` takes: the classes, rounded up to a multiple of 8.
    width: usize,
    /// Per class column, its prior.
    pc: Vec<f32>,
    /// The label of each class column; a label can have two columns (script variants).
    classes: Vec<String>,
    /// The DFA's distinct transition rows, 256 next states each.
    nextmove: Vec<u32>,
    /// Per state, where its row starts in `nextmove` and the feature it completes (or -1): one
    /// load per byte where py3langid's arrays take two.
    states: Vec<State>,
}

#[derive(Debug, Clone, Copy)]
struct State {
    row: u32,
    feature: i32,
}

impl Model {
    /// The model built into pairmetrics (py3langid 0.4.0's), read once per process.
    pub fn built_in() -> &'static Model {
        static MODEL: OnceLock<Model> = OnceLock::new();
        MODEL.get_or_init(|| {
            Model::from_npz_xz(BUILT_IN_MODEL).expect("the built-in py3langid model is valid")
        })
    }

    /// Read a model in py3langid 0.4.0's format: `.npz` (numpy arrays in a zip) compressed with xz.
    pub fn from_npz_xz(bytes: &[u8]) -> Result<Model, String> {
        let mut npz = Vec::new();
        liblzma::read::XzDecoder::new(bytes)
            .read_to_end(&mut npz)
            .map_err(|e| format!("not an xz stream: {e}"))?;
        Model::from_npz(&Npz::new(&npz)?)
    }

    fn from_npz(npz: &Npz) -> Result<Model, String> {
        let classes = npz.unicode("classes")?;
        let n = classes.len();
        let pc = npz.f32("pc")?;
        let ptc = npz.f16_bits("ptc")?;
        let nextmove = npz.unsigned("nextmove")?;
        let rows = npz.unsigned("nextmove_row")?;
        let out_feat = npz.i32("out_feat")?;
        if pc.len() != n || n == 0 || ptc.len() % n != 0 {
            return Err(format!(
                "{n} classes but {} priors and {} log-probabilities",
                pc.len(),
                ptc.len()
            ));
        }
        let features = ptc.len() / n;
        let states = rows.len();
        if out_feat.len() != states
            || nextmove.len() % 256 != 0
            || rows
                .iter()
                .any(|&r| (r as usize + 1) * 256 > nextmove.len())
            || nextmove.iter().any(|&s| s as usize >= states)
            || out_feat.iter().any(|&f| f >= features as i32)
        {
            return Err("the DFA's arrays do not fit together".into());
        }
        let width = n.next_multiple_of(8);
        let mut padded = vec![0u16; features * width];
        for (to, from) in padded.chunks_exact_mut(width).zip(ptc.chunks_exact(n)) {
            to[..n].copy_from_slice(from);
        }
        Ok(Model {
            ptc: padded,
            width,
            pc,
            classes,
            nextmove,
            states: rows
                .iter()
                .zip(&out_feat)
                .map(|(&r, &feature)| State {
                    row: r << 8,
                    feature,
                })
                .collect(),
        })
    }

    fn features(&self) -> usize {
        self.ptc.len() / self.width
    }

    fn row(&self, feature: u32) -> &[u16] {
        &self.ptc[feature as usize * self.width..][..self.width]
    }

    /// Every label, once, in the model's order.
    pub fn labels(&self) -> Vec<&str> {
        let mut seen = HashSet::new();
        self.classes
            .iter()
            .filter(|c| seen.insert(c.as_str()))
            .map(String::as_str)
            .collect()
    }
}

/// A model, maybe restricted to some of its languages (py3langid's `set_languages`).
#[derive(Debug, Clone)]
pub struct Identifier<'m> {
    model: &'m Model,
    /// The class columns in use, in the model's order.
    columns: Vec<usize>,
    /// (first, second) positions in `columns` of a label's two columns.
    aliases: Vec<(usize, usize)>,
}

/// Buffers reused from text to text.
#[derive(Debug, Default)]
pub struct Scratch {
    lanes: Vec<Lane>,
    /// A text's features and their counts, in first-seen order (as `collections.Counter` keeps
    /// them).
    counts: Vec<(u32, u32)>,
    slot: Vec<u32>,
    scores: Vec<f32>,
    sums: Vec<f64>,
}

/// One text in flight: its encoded bytes and the features the DFA found in them, in order.
#[derive(Debug, Default)]
struct Lane {
    bytes: String,
    features: Vec<u32>,
}

/// Texts whose DFA walks run interleaved: each step of a walk waits on a load from a 39 MB
/// table, and independent walks overlap those waits.
const LANES: usize = 16;

impl<'m> Identifier<'m> {
    /// All the model's languages.
    pub fn new(model: &'m Model) -> Self {
        Identifier::with_columns(model, (0..model.classes.len()).collect())
    }

    /// Only these languages, as `set_languages(langs)`: an unknown code is an error naming it.
    pub fn restricted<S: AsRef<str>>(model: &'m Model, langs: &[S]) -> Result<Self, String> {
        let wanted: HashSet<&str> = langs.iter().map(AsRef::as_ref).collect();
        let mut unknown: Vec<&str> = wanted
            .iter()
            .copied()
            .filter(|l| !model.classes.iter().any(|c| c == l))
            .collect();
        if !unknown.is_empty() {
            unknown.sort_unstable();
            return Err(format!(
                "unknown language code(s) for langid: {} (it knows {})",
                unknown.join(", "),
                model.labels().join(" ")
            ));
        }
        if wanted.is_empty() {
            return Err("no languages to choose from".into());
        }
        let columns = (0..model.classes.len())
            .filter(|&i| wanted.contains(model.classes[i].as_str()))
            .collect();
        Ok(Identifier::with_columns(model, columns))
    }

    fn with_columns(model: &'m Model, columns: Vec<usize>) -> Self {
        let mut aliases = Vec::new();
        for (j, &c) in columns.iter().enumerate() {
            let label = &model.classes[c];
            if let Some(i) = columns[..j]
                .iter()
                .position(|&d| &model.classes[d] == label)
            {
                aliases.push((i, j));
            }
        }
        Identifier {
            model,
            columns,
            aliases,
        }
    }

    /// The language of `text` and its probability, as `classify(text)` gives them.
    pub fn classify(&self, text: &str, scratch: &mut Scratch) -> Guess<'m> {
        let mut guess = None;
        self.classify_all(&[text], scratch, |_, g| guess = Some(g));
        guess.expect("one text, one guess")
    }

    /// [`Identifier::classify`] for each text, given to `each` with the text's position; faster
    /// than one at a time.
    pub fn classify_all(
        &self,
        texts: &[&str],
        scratch: &mut Scratch,
        mut each: impl FnMut(usize, Guess<'m>),
    ) {
        scratch.lanes.resize_with(LANES, Lane::default);
        for (group, texts) in texts.chunks(LANES).enumerate() {
            let lanes = &mut scratch.lanes[..texts.len()];
            for (lane, text) in lanes.iter_mut().zip(texts) {
                encode(text, &mut lane.bytes);
            }
            walk(self.model, lanes);
            for i in 0..texts.len() {
                let lane = &scratch.lanes[i];
                count(
                    &lane.features,
                    &mut scratch.counts,
                    &mut scratch.slot,
                    self.model.features(),
                );
                let scores = self.decide(
                    &scratch.counts,
                    lane.bytes.len(),
                    &mut scratch.scores,
                    &mut scratch.sums,
                );
                each(group * LANES + i, self.best(scores));
            }
        }
    }

    /// argmax: the first of the largest.
    fn best(&self, scores: &[f32]) -> Guess<'m> {
        let mut best = 0;
        for (i, &s) in scores.iter().enumerate() {
            if s > scores[best] {
                best = i;
            }
        }
        Guess {
            lang: &self.model.classes[self.columns[best]],
            prob: f64::from(scores[best]),
        }
    }

    /// `_decide`: a probability per column in use, from a text's feature counts and its length
    /// in bytes.
    fn decide<'s>(
        &self,
        counts: &[(u32, u32)],
        bytes: usize,
        scores: &'s mut Vec<f32>,
        sums: &mut Vec<f64>,
    ) -> &'s [f32] {
        let model = self.model;
        let n = self.columns.len();
        scores.clear();
        if counts.is_empty() {
            // No features: every column 0 before the softmax (py3langid's "uniform, abstain").
            scores.resize(n, 0.0);
        } else {
            sums.clear();
            sums.resize(model.width, 0.0);
            for (k, &(feature, count)) in counts.iter().enumerate() {
                // The rows are scattered over 29 MB: ask for one a few features ahead.
                if let Some(&(ahead, _)) = counts.get(k + 4) {
                    prefetch(model.row(ahead));
                }
                add_row(sums, model.row(feature), f64::from(log1p_f32(count)));
            }
            scores.extend(self.columns.iter().map(|&c| sums[c] as f32 + model.pc[c]));
        }
        // The temperature sqrt(bytes): a Python float, which numpy applies as a float32.
        let temperature = (1.0 / (bytes.max(1) as f64).sqrt()) as f32;
        let mut max = f32::NEG_INFINITY;
        for s in scores.iter_mut() {
            *s *= temperature;
            max = max.max(*s);
        }
        for s in scores.iter_mut() {
            *s = (*s - max).exp();
        }
        let total = numpy_sum(scores);
        for s in scores.iter_mut() {
            *s /= total;
        }
        for &(i, j) in &self.aliases {
            scores[i] += scores[j];
            scores[j] = 0.0;
        }
        scores
    }
}

/// `sums += weight * row`, every column. Each product of two f32 values is exact in f64, so a
/// fused multiply-add gives the same sums as a multiply and an add.
fn add_row(sums: &mut [f64], row: &[u16], weight: f64) {
    #[cfg(target_arch = "x86_64")]
    if avx2::available() {
        // SAFETY: the CPU has the features; both slices are `width` long, a multiple of 8.
        unsafe { avx2::add_row(sums, row, weight) };
        return;
    }
    for (sum, &p) in sums.iter_mut().zip(row) {
        *sum += weight * f64::from(f16_to_f32(p));
    }
}

#[cfg(target_arch = "x86_64")]
mod avx2 {
    use std::arch::x86_64::*;

    pub fn available() -> bool {
        is_x86_feature_detected!("avx2")
            && is_x86_feature_detected!("f16c")
            && is_x86_feature_detected!("fma")
    }

    /// [`super::add_row`], 8 columns at a time.
    ///
    /// # Safety
    /// The CPU has AVX2, F16C and FMA; `row` is as long as `sums`, a multiple of 8.
    #[target_feature(enable = "avx2,f16c,fma")]
    pub unsafe fn add_row(sums: &mut [f64], row: &[u16], weight: f64) {
        debug_assert!(row.len() == sums.len() && row.len() % 8 == 0);
        let weight = _mm256_set1_pd(weight);
        for (sums, row) in sums.chunks_exact_mut(8).zip(row.chunks_exact(8)) {
            // SAFETY: 8 u16 to read, 8 f64 to read and write, as the chunks are.
            unsafe {
                let halves = _mm_loadu_si128(row.as_ptr().cast());
                let floats = _mm256_cvtph_ps(halves);
                let low = _mm256_cvtps_pd(_mm256_castps256_ps128(floats));
                let high = _mm256_cvtps_pd(_mm256_extractf128_ps::<1>(floats));
                let at = sums.as_mut_ptr();
                _mm256_storeu_pd(at, _mm256_fmadd_pd(low, weight, _mm256_loadu_pd(at)));
                _mm256_storeu_pd(
                    at.add(4),
                    _mm256_fmadd_pd(high, weight, _mm256_loadu_pd(at.add(4))),
                );
            }
        }
    }
}

/// Ask the CPU to bring a slice into cache (a hint: it never faults).
fn prefetch<T>(slice: &[T]) {
    #[cfg(target_arch = "x86_64")]
    {
        use std::arch::x86_64::{_MM_HINT_T0, _mm_prefetch};
        let bytes = std::mem::size_of_val(slice);
        let start = slice.as_ptr().cast::<i8>();
        for offset in (0..bytes).step_by(64) {
            // SAFETY: a prefetch reads nothing and cannot fault; the address is inside the slice.
            unsafe { _mm_prefetch::<_MM_HINT_T0>(start.add(offset)) };
        }
    }
}

/// `_encode`: an all-uppercase text is lowercased (Python's `str.isupper`, `str.lower`), then
/// NFC-normalised; its UTF-8 bytes are what the DFA reads.
fn encode(text: &str, out: &mut String) {
    out.clear();
    if is_upper(text) {
        out.extend(text.to_lowercase().nfc());
    } else if is_nfc_quick(text.chars()) == IsNormalized::Yes {
        out.push_str(text);
    } else {
        out.extend(text.nfc());
    }
}

/// Python's `str.isupper()`: at least one uppercase character, and none lowercase or titlecase.
pub fn is_upper(text: &str) -> bool {
    let mut cased = false;
    for c in text.chars() {
        if c.is_lowercase() || is_titlecase(c) {
            return false;
        }
        cased |= c.is_uppercase();
    }
    cased
}

/// General category Lt (Unicode has 31 such characters).
fn is_titlecase(c: char) -> bool {
    matches!(c,
        '\u{01C5}' | '\u{01C8}' | '\u{01CB}' | '\u{01F2}'
        | '\u{1F88}'..='\u{1F8F}' | '\u{1F98}'..='\u{1F9F}' | '\u{1FA8}'..='\u{1FAF}'
        | '\u{1FBC}' | '\u{1FCC}' | '\u{1FFC}')
}

/// `visit_counts`, first half: walk the DFA over each lane's bytes, all lanes a step at a time,
/// and list the features each walk completes.
fn walk(model: &Model, lanes: &mut [Lane]) {
    let mut states = [0u32; LANES];
    let longest = lanes.iter().map(|l| l.bytes.len()).max().unwrap_or(0);
    for lane in lanes.iter_mut() {
        lane.features.clear();
    }
    for at in 0..longest {
        for (lane, state) in lanes.iter_mut().zip(&mut states) {
            if let Some(&b) = lane.bytes.as_bytes().get(at) {
                let from = model.states[*state as usize].row as usize;
                *state = model.nextmove[from + b as usize];
                let feature = model.states[*state as usize].feature;
                if feature >= 0 {
                    lane.features.push(feature as u32);
                }
            }
        }
    }
}

/// `visit_counts`, second half: count the features, in first-seen order.
fn count(features: &[u32], counts: &mut Vec<(u32, u32)>, slot: &mut Vec<u32>, all: usize) {
    counts.clear();
    for &feature in features {
        // Where this feature's count is, found by a linear probe over the few seen so far for
        // short texts, by a table for long ones.
        if counts.len() < 32 {
            if let Some(c) = counts.iter_mut().find(|c| c.0 == feature) {
                c.1 += 1;
                continue;
            }
            counts.push((feature, 1));
            if counts.len() == 32 {
                index_counts(counts, slot, all);
            }
        } else {
            let at = slot[feature as usize];
            if at == u32::MAX {
                slot[feature as usize] = counts.len() as u32;
                counts.push((feature, 1));
            } else {
                counts[at as usize].1 += 1;
            }
        }
    }
    if counts.len() >= 32 {
        // Leave the table empty for the next text.
        for &(feature, _) in counts.iter() {
            slot[feature as usize] = u32::MAX;
        }
    }
}

fn index_counts(counts: &[(u32, u32)], slot: &mut Vec<u32>, features: usize) {
    if slot.len() != features {
        slot.clear();
        slot.resize(features, u32::MAX);
    }
    for (i, &(feature, _)) in counts.iter().enumerate() {
        slot[feature as usize] = i as u32;
    }
}

/// numpy's float32 `log1p` of a count: the correctly rounded value (a table for the common
/// small counts).
fn log1p_f32(count: u32) -> f32 {
    static SMALL: OnceLock<[f32; 64]> = OnceLock::new();
    let small = SMALL.get_or_init(|| std::array::from_fn(|c| (c as f64).ln_1p() as f32));
    match small.get(count as usize) {
        Some(&w) => w,
        None => (f64::from(count)).ln_1p() as f32,
    }
}

/// numpy's float32 `sum` of a contiguous array: pairwise, with eight accumulators per block of
/// up to 128 (`pairwise_sum` in numpy's `loops_utils.h`).
pub fn numpy_sum(a: &[f32]) -> f32 {
    let n = a.len();
    if n < 8 {
        let mut res = 0.0f32;
        for &x in a {
            res += x;
        }
        res
    } else if n <= 128 {
        let mut r = [0f32; 8];
        r.copy_from_slice(&a[..8]);
        let mut i = 8;
        while i < n - n % 8 {
            for j in 0..8 {
                r[j] += a[i + j];
            }
            i += 8;
        }
        let mut res = ((r[0] + r[1]) + (r[2] + r[3])) + ((r[4] + r[5]) + (r[6] + r[7]));
        for &x in &a[i..] {
            res += x;
        }
        res
    } else {
        let mut n2 = n / 2;
        n2 -= n2 % 8;
        numpy_sum(&a[..n2]) + numpy_sum(&a[n2..])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn classify(text: &str) -> (String, f64) {
        let id = Identifier::new(Model::built_in());
        let g = id.classify(text, &mut Scratch::default());
        (g.lang.to_string(), g.prob)
    }

    #[test]
    fn the_built_in_model_reads() {
        let model = Model::built_in();
        assert_eq!(model.classes.len(), 142);
        assert_eq!(model.labels().len(), 140);
    }

    /// py3langid 0.4.0: `LanguageIdentifier.from_model_file(MODEL_FILE, norm_probs=True)`.
    #[test]
    fn as_py3langid_classifies() {
        // Featureless: uniform over 142 columns, sr's two folded into one.
        assert_eq!(classify(""), ("sr".into(), f64::from(2.0f32 / 142.0)));
        assert_eq!(classify("😀").0, "sr");
        let (lang, prob) = classify("Bonjour le monde");
        assert_eq!(lang, "fr");
        assert!((prob - 0.9425135254859924).abs() < 1e-5, "{prob}");
        let (lang, prob) = classify("ЗДРАВСТВУЙ МИР");
        assert_eq!(lang, "ru");
        assert!((prob - 0.2963041365146637).abs() < 1e-5, "{prob}");
    }

    #[test]
    fn restricted_to_languages() {
        let model = Model::built_in();
        let id = Identifier::restricted(model, &["en", "de"]).unwrap();
        assert_eq!(
            id.classify("Bonjour le monde", &mut Scratch::default())
                .lang,
            "en"
        );
        let e = Identifier::restricted(model, &["en", "xx"]).unwrap_err();
        assert!(e.contains("xx"), "{e}");
    }

    #[test]
    fn python_isupper() {
        assert!(is_upper("ABC 123"));
        assert!(!is_upper("123"));
        assert!(!is_upper("ABc"));
        assert!(!is_upper("AǅB"));
    }

    #[test]
    fn numpy_pairwise_sum() {
        // np.array([1/(i+1) + (i%7)*1e-3 for i in range(n)], dtype=np.float32).sum().view(np.uint32)
        for (n, bits) in [
            (5, 1074972153u32),
            (100, 1085239203),
            (142, 1086235732),
            (300, 1088798670),
        ] {
            let a: Vec<f32> = (0..n)
                .map(|i| (1.0 / (i as f64 + 1.0) + (i % 7) as f64 * 1e-3) as f32)
                .collect();
            assert_eq!(numpy_sum(&a).to_bits(), bits, "n = {n}");
        }
    }
}
