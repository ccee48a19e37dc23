//! fastText 0.9.2's supervised models (`.bin`, and `.ftz` with product-quantised matrices) and
//! its `predict`, computed as its C++ computes them: tokens split at fastText's six whitespace
//! bytes and NUL, words looked up in the dictionary, character n-grams hashed with its FNV-1a
//! over signed bytes, word n-grams hashed, the hidden vector averaged in float32, and the labels
//! found by hierarchical softmax, softmax, one-vs-all or negative sampling with libstdc++'s heap
//! order for ties.
//!
//! Reading a model checks every size against the file before allocating, so a truncated,
//! corrupt or unsupervised model is an error, never a panic.

use hashbrown::{HashMap, HashTable};

/// `Dictionary::EOS`: what a newline reads as, and where a line's tokens stop.
pub const EOS: &[u8] = b"</s>";
const BOW: u8 = b'<';
const EOW: u8 = b'>';
/// What a label starts with (`Args::label`, which models do not store).
pub const LABEL_PREFIX: &[u8] = b"__label__";
const MAGIC: i32 = 793712314;
const VERSION: i32 = 12;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Loss {
    HierarchicalSoftmax,
    NegativeSampling,
    Softmax,
    OneVsAll,
}

/// A model file that cannot be read, and why.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct ModelError(String);

/// A prediction that cannot be made.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PredictError {
    #[error("k needs to be 1 or higher, or -1 for every label (got {0})")]
    BadK(i32),
    /// fastText's "Encountered NaN." in a dense matrix product.
    #[error("the model's output is NaN for this text (fastText stops with \"Encountered NaN.\")")]
    NaN,
}

enum Matrix {
    Dense {
        cols: usize,
        data: Vec<f32>,
    },
    Quantized {
        codes: Vec<u8>,
        pq: ProductQuantizer,
        /// Per row, its norm's code, and the quantizer of norms.
        norms: Option<(Vec<u8>, ProductQuantizer)>,
    },
}

struct ProductQuantizer {
    nsubq: usize,
    dsub: usize,
    lastdsub: usize,
    centroids: Vec<f32>,
}

const KSUB: usize = 256;

impl ProductQuantizer {
    fn centroids(&self, m: usize, code: u8) -> &[f32] {
        let i = code as usize;
        if m == self.nsubq - 1 {
            &self.centroids[m * KSUB * self.dsub + i * self.lastdsub..][..self.lastdsub]
        } else {
            &self.centroids[(m * KSUB + i) * self.dsub..][..self.dsub]
        }
    }

    fn add_code(&self, x: &mut [f32], codes: &[u8], t: usize, alpha: f32) {
        let code = &codes[self.nsubq * t..][..self.nsubq];
        for (m, &c) in code.iter().enumerate() {
            let x = &mut x[m * self.dsub..];
            for (x, &c) in x.iter_mut().zip(self.centroids(m, c)) {
                *x += alpha * c;
            }
        }
    }

    fn mul_code(&self, x: &[f32], codes: &[u8], t: usize, alpha: f32) -> f32 {
        let code = &codes[self.nsubq * t..][..self.nsubq];
        let mut res = 0.0f32;
        for (m, &c) in code.iter().enumerate() {
            for (&x, &c) in x[m * self.dsub..].iter().zip(self.centroids(m, c)) {
                res += x * c;
            }
        }
        res * alpha
    }
}

impl Matrix {
    fn norm(&self, row: usize) -> f32 {
        match self {
            Matrix::Quantized {
                norms: Some((codes, npq)),
                ..
            } => npq.centroids(0, codes[row])[0],
            _ => 1.0,
        }
    }

    fn add_row_to(&self, x: &mut [f32], row: usize) {
        match self {
            Matrix::Dense { cols, data } => {
                for (x, &a) in x.iter_mut().zip(&data[row * cols..][..*cols]) {
                    *x += a;
                }
            }
            Matrix::Quantized { codes, pq, .. } => pq.add_code(x, codes, row, self.norm(row)),
        }
    }

    fn dot_row(&self, x: &[f32], row: usize) -> Result<f32, PredictError> {
        match self {
            Matrix::Dense { cols, data } => {
                let mut d = 0.0f32;
                for (&a, &x) in data[row * cols..][..*cols].iter().zip(x) {
                    d += a * x;
                }
                if d.is_nan() {
                    return Err(PredictError::NaN);
                }
                Ok(d)
            }
            Matrix::Quantized { codes, pq, .. } => Ok(pq.mul_code(x, codes, row, self.norm(row))),
        }
    }
}

/// Where a quantised model's kept n-gram buckets went. Most of a text's n-grams were pruned: a
/// bit per bucket answers those from cache, without a hash lookup.
struct Pruned {
    kept: Vec<u64>,
    map: HashMap<i32, i32>,
}

impl Pruned {
    fn get(&self, bucket: i32) -> Option<i32> {
        match self.kept.get(bucket as usize / 64) {
            Some(word) if word >> (bucket as usize % 64) & 1 == 0 => None,
            _ => self.map.get(&bucket).copied(),
        }
    }
}

struct Entry {
    word: Vec<u8>,
    count: i64,
    is_label: bool,
}

/// A supervised fastText model.
pub struct Model {
    dim: usize,
    word_ngrams: i32,
    loss: Loss,
    bucket: i32,
    minn: i32,
    maxn: i32,
    entries: Vec<Entry>,
    nwords: usize,
    nlabels: usize,
    /// Entry ids by the FNV hash of their word.
    index: HashTable<u32>,
    /// Per entry, the input rows of its word and its character n-grams (`initNgrams`).
    subwords: Vec<Vec<i32>>,
    /// A quantised model's kept n-gram buckets; None when nothing was pruned.
    pruned: Option<Pruned>,
    input: Matrix,
    input_rows: usize,
    output: Matrix,
    output_rows: usize,
    /// Hierarchical softmax's Huffman tree: per node, its children.
    tree: Vec<(i32, i32)>,
    sigmoid_table: Vec<f32>,
}

impl std::fmt::Debug for Model {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("fasttext::Model")
            .field("dim", &self.dim)
            .field("loss", &self.loss)
            .field("words", &self.nwords)
            .field("labels", &self.nlabels)
            .field("quantized", &matches!(self.input, Matrix::Quantized { .. }))
            .finish()
    }
}

/// The little-endian reader of a model file, whose errors say where it stopped.
struct Reader<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl<'a> Reader<'a> {
    fn take(&mut self, n: usize, what: &str) -> Result<&'a [u8], ModelError> {
        if self.bytes.len() - self.at < n {
            return Err(ModelError(format!(
                "truncated: {what} needs {n} bytes at byte {}, but the file has {}",
                self.at,
                self.bytes.len()
            )));
        }
        let taken = &self.bytes[self.at..self.at + n];
        self.at += n;
        Ok(taken)
    }

    fn i32(&mut self, what: &str) -> Result<i32, ModelError> {
        Ok(i32::from_le_bytes(self.take(4, what)?.try_into().unwrap()))
    }

    fn i64(&mut self, what: &str) -> Result<i64, ModelError> {
        Ok(i64::from_le_bytes(self.take(8, what)?.try_into().unwrap()))
    }

    fn bool(&mut self, what: &str) -> Result<bool, ModelError> {
        Ok(self.take(1, what)?[0] != 0)
    }

    /// `n` float32 values, after checking the file has them.
    fn floats(&mut self, n: usize, what: &str) -> Result<Vec<f32>, ModelError> {
        let bytes = self.take(n.checked_mul(4).unwrap_or(usize::MAX), what)?;
        Ok(bytes
            .chunks_exact(4)
            .map(|b| f32::from_le_bytes(b.try_into().unwrap()))
            .collect())
    }

    /// A size that must be in 0..=limit.
    fn size(&mut self, value: i64, limit: usize, what: &str) -> Result<usize, ModelError> {
        usize::try_from(value)
            .ok()
            .filter(|&v| v <= limit)
            .ok_or_else(|| ModelError(format!("{what} is {value}, which cannot be right")))
    }

    fn remaining(&self) -> usize {
        self.bytes.len() - self.at
    }
}

/// fastText's string hash: FNV-1a over the bytes read as signed chars (sign-extended), which
/// every released model was trained with.
pub fn hash(bytes: &[u8]) -> u32 {
    bytes.iter().fold(FNV_OFFSET, |h, &b| fnv_step(h, b))
}

const FNV_OFFSET: u32 = 2166136261;

fn fnv_step(h: u32, b: u8) -> u32 {
    (h ^ b as i8 as i32 as u32).wrapping_mul(16777619)
}

impl Model {
    /// Read a model from the bytes of a `.bin` or `.ftz` file.
    pub fn read(bytes: &[u8]) -> Result<Model, ModelError> {
        let mut r = Reader { bytes, at: 0 };
        let magic = r
            .i32("the magic number")
            .map_err(|_| ModelError("not a fastText model: the file is too short".into()))?;
        if magic != MAGIC {
            return Err(ModelError(
                "not a fastText model (its first four bytes are not fastText's magic number)"
                    .into(),
            ));
        }
        let version = r.i32("the version")?;
        if version > VERSION {
            return Err(ModelError(format!(
                "a fastText model of version {version}, newer than fastText 0.9.2's {VERSION}"
            )));
        }
        let dim = r.i32("dim")?;
        let _ws = r.i32("ws")?;
        let _epoch = r.i32("epoch")?;
        let _min_count = r.i32("minCount")?;
        let _neg = r.i32("neg")?;
        let word_ngrams = r.i32("wordNgrams")?;
        let loss = match r.i32("loss")? {
            1 => Loss::HierarchicalSoftmax,
            2 => Loss::NegativeSampling,
            3 => Loss::Softmax,
            4 => Loss::OneVsAll,
            other => return Err(ModelError(format!("unknown loss {other}"))),
        };
        let model = r.i32("model")?;
        let bucket = r.i32("bucket")?;
        let minn = r.i32("minn")?;
        let mut maxn = r.i32("maxn")?;
        let _lr_update_rate = r.i32("lrUpdateRate")?;
        let _t = r.take(8, "t")?;
        match model {
            3 => {}
            1 | 2 => {
                return Err(ModelError(format!(
                    "an unsupervised model ({}): only supervised models predict labels",
                    if model == 1 { "cbow" } else { "skipgram" }
                )));
            }
            other => return Err(ModelError(format!("unknown model kind {other}"))),
        }
        if version == 11 {
            // Old supervised models did not use character n-grams.
            maxn = 0;
        }
        if dim <= 0 || bucket < 0 {
            return Err(ModelError(format!(
                "dim {dim} or bucket {bucket} cannot be right"
            )));
        }
        if bucket == 0 && (maxn > 0 || word_ngrams > 1) {
            return Err(ModelError(
                "bucket 0 with character or word n-grams (fastText divides by it)".into(),
            ));
        }
        let dim = dim as usize;

        // The dictionary.
        let size = r.i32("the dictionary size")?;
        let nwords = r.i32("nwords")?;
        let nlabels = r.i32("nlabels")?;
        let _ntokens = r.i64("ntokens")?;
        let prune_size = r.i64("pruneidx_size")?;
        // Every entry takes at least 10 bytes.
        let limit = r.remaining() / 10;
        let size = r.size(size.into(), limit, "the dictionary size")?;
        let nwords = r.size(nwords.into(), size, "nwords")?;
        let nlabels = r.size(nlabels.into(), size - nwords, "nlabels")?;
        let mut entries = Vec::with_capacity(size);
        for _ in 0..size {
            let rest = &r.bytes[r.at..];
            let end = memchr::memchr(0, rest)
                .ok_or_else(|| ModelError("truncated in the dictionary".into()))?;
            let word = rest[..end].to_vec();
            r.at += end + 1;
            let count = r.i64("a word count")?;
            let is_label = r.take(1, "a word type")?[0] == 1;
            entries.push(Entry {
                word,
                count,
                is_label,
            });
        }
        if entries[..nwords].iter().any(|e| e.is_label)
            || entries[nwords..].iter().any(|e| !e.is_label)
        {
            return Err(ModelError(
                "the dictionary's words and labels are out of order".into(),
            ));
        }
        let pruned = if prune_size >= 0 {
            let n = r.size(prune_size, r.remaining() / 8, "pruneidx_size")?;
            let mut pruned = Pruned {
                // A bit per bucket up to 2^27 (16 MB; lid.176 has 2M buckets); buckets beyond
                // go to the map.
                kept: vec![0; (bucket.clamp(0, 1 << 27) as usize).div_ceil(64)],
                map: HashMap::with_capacity(n),
            };
            for _ in 0..n {
                let from = r.i32("a pruned bucket")?;
                let to = r.i32("a pruned bucket")?;
                if let Some(word) = pruned.kept.get_mut(from.max(0) as usize / 64) {
                    *word |= 1 << (from as usize % 64);
                }
                pruned.map.insert(from, to);
            }
            Some(pruned)
        } else {
            None
        };

        let quant_input = r.bool("quant_input")?;
        let (input, input_rows) = read_matrix(&mut r, quant_input, dim, "input")?;
        if !quant_input && pruned.is_some() {
            return Err(ModelError(
                "an invalid model: pruned but not quantised (fastText issue #332: download the \
                 updated model)"
                    .into(),
            ));
        }
        let qout = r.bool("qout")?;
        let (output, output_rows) = read_matrix(&mut r, quant_input && qout, dim, "output")?;
        if output_rows != nlabels {
            return Err(ModelError(format!(
                "{nlabels} labels but {output_rows} output rows"
            )));
        }
        if nlabels == 0 {
            return Err(ModelError("a model without labels".into()));
        }

        let mut model = Model {
            dim,
            word_ngrams,
            loss,
            bucket,
            minn,
            maxn,
            entries,
            nwords,
            nlabels,
            index: HashTable::new(),
            subwords: Vec::new(),
            pruned,
            input,
            input_rows,
            output,
            output_rows,
            tree: Vec::new(),
            sigmoid_table: sigmoid_table(),
        };
        for (id, e) in model.entries.iter().enumerate() {
            let h = hash(&e.word);
            let entries = &model.entries;
            if model
                .index
                .find(u64::from(h), |&i| entries[i as usize].word == e.word)
                .is_none()
            {
                model.index.insert_unique(u64::from(h), id as u32, |&i| {
                    u64::from(hash(&entries[i as usize].word))
                });
            }
        }
        let mut subwords = Vec::with_capacity(model.entries.len());
        let mut word = Vec::new();
        for (id, e) in model.entries.iter().enumerate() {
            let mut ids = vec![id as i32];
            if e.word != EOS {
                word.clear();
                word.push(BOW);
                word.extend_from_slice(&e.word);
                word.push(EOW);
                model.compute_subwords(&word, &mut ids);
            }
            subwords.push(ids);
        }
        // Labels' rows are never read: only words' need to be in the input matrix.
        if subwords[..nwords]
            .iter()
            .flatten()
            .any(|&i| i as usize >= model.input_rows)
        {
            return Err(ModelError(format!(
                "the input matrix has {} rows, fewer than the dictionary needs",
                model.input_rows
            )));
        }
        model.subwords = subwords;
        if loss == Loss::HierarchicalSoftmax {
            let counts: Vec<i64> = model.entries[nwords..].iter().map(|e| e.count).collect();
            model.tree = huffman_tree(&counts);
        }
        Ok(model)
    }

    pub fn labels(&self) -> usize {
        self.nlabels
    }

    /// A label's text, `__label__` included.
    pub fn label(&self, i: usize) -> &[u8] {
        &self.entries[self.nwords + i].word
    }

    pub fn loss(&self) -> Loss {
        self.loss
    }

    /// `pushHash`: an n-gram bucket as an input row, unless pruning dropped it.
    fn push_hash(&self, ids: &mut Vec<i32>, id: i32) {
        if id < 0 {
            return;
        }
        let id = match &self.pruned {
            None => id,
            Some(pruned) => match pruned.get(id) {
                Some(to) => to,
                None => return,
            },
        };
        ids.push(self.nwords as i32 + id);
    }

    /// `computeSubwords`: the character n-grams (minn..=maxn UTF-8 characters) of `<word>`.
    fn compute_subwords(&self, word: &[u8], ids: &mut Vec<i32>) {
        let continuation = |b: u8| b & 0xC0 == 0x80;
        for i in 0..word.len() {
            if continuation(word[i]) {
                continue;
            }
            // The hash of word[i..j], extended byte by byte as j moves on.
            let (mut j, mut n, mut h) = (i, 1, FNV_OFFSET);
            while j < word.len() && n <= self.maxn {
                h = fnv_step(h, word[j]);
                j += 1;
                while j < word.len() && continuation(word[j]) {
                    h = fnv_step(h, word[j]);
                    j += 1;
                }
                if n >= self.minn && !(n == 1 && (i == 0 || j == word.len())) {
                    self.push_hash(ids, (h % self.bucket as u32) as i32);
                }
                n += 1;
            }
        }
    }

    /// `getLine` over one line's tokens: the input rows, up to and including the first EOS.
    fn line_rows<'t>(
        &self,
        tokens: impl IntoIterator<Item = &'t [u8]>,
        rows: &mut Vec<i32>,
        scratch: &mut Scratch,
    ) {
        rows.clear();
        let hashes = &mut scratch.hashes;
        hashes.clear();
        for token in tokens {
            let h = hash(token);
            let id = self
                .index
                .find(u64::from(h), |&i| self.entries[i as usize].word == token)
                .map(|&i| i as usize);
            let is_label = match id {
                Some(id) => self.entries[id].is_label,
                None => token.starts_with(LABEL_PREFIX),
            };
            if !is_label {
                match id {
                    None if token != EOS => {
                        let word = &mut scratch.word;
                        word.clear();
                        word.push(BOW);
                        word.extend_from_slice(token);
                        word.push(EOW);
                        self.compute_subwords(word, rows);
                    }
                    None => {}
                    Some(id) if self.maxn <= 0 => rows.push(id as i32),
                    Some(id) => rows.extend_from_slice(&self.subwords[id]),
                }
                hashes.push(h as i32);
            }
            if token == EOS {
                break;
            }
        }
        // `addWordNgrams`, with its sign extension of negative hashes.
        for i in 0..hashes.len() {
            let mut h = hashes[i] as i64 as u64;
            for j in i + 1..hashes.len().min(i + self.word_ngrams.max(0) as usize) {
                h = h
                    .wrapping_mul(116049371)
                    .wrapping_add(hashes[j] as i64 as u64);
                self.push_hash(rows, (h % self.bucket as u64) as i32);
            }
        }
    }

    /// The `k` most likely labels of a line's tokens (k = -1: every label), best first, with
    /// their probabilities, as `predictLine` gives them: none for a line without input rows.
    pub fn predict<'t>(
        &self,
        tokens: impl IntoIterator<Item = &'t [u8]>,
        k: i32,
        threshold: f32,
        scratch: &mut Scratch,
        predictions: &mut Vec<(f32, usize)>,
    ) -> Result<(), PredictError> {
        predictions.clear();
        let mut rows = std::mem::take(&mut scratch.rows);
        self.line_rows(tokens, &mut rows, scratch);
        let result = self.predict_rows(&rows, k, threshold, scratch, predictions);
        scratch.rows = rows;
        result
    }

    fn predict_rows(
        &self,
        rows: &[i32],
        k: i32,
        threshold: f32,
        scratch: &mut Scratch,
        predictions: &mut Vec<(f32, usize)>,
    ) -> Result<(), PredictError> {
        if rows.is_empty() {
            return Ok(());
        }
        let k = match k {
            -1 => self.output_rows,
            k if k <= 0 => return Err(PredictError::BadK(k)),
            k => k as usize,
        };
        let hidden = &mut scratch.hidden;
        hidden.clear();
        hidden.resize(self.dim, 0.0);
        for &row in rows {
            self.input.add_row_to(hidden, row as usize);
        }
        let scale = (1.0 / rows.len() as f64) as f32;
        for h in hidden.iter_mut() {
            *h *= scale;
        }
        let heap = &mut scratch.heap;
        heap.clear();
        match self.loss {
            Loss::HierarchicalSoftmax => {
                let root = 2 * self.nlabels - 2;
                self.dfs(k, threshold, root, 0.0, heap, hidden)?;
            }
            loss => {
                let output = &mut scratch.output;
                output.clear();
                for i in 0..self.output_rows {
                    output.push(self.output.dot_row(hidden, i)?);
                }
                if loss == Loss::Softmax {
                    let mut max = output[0];
                    for &o in output.iter() {
                        max = if max < o { o } else { max };
                    }
                    let mut z = 0.0f32;
                    for o in output.iter_mut() {
                        *o = f64::from(*o - max).exp() as f32;
                        z += *o;
                    }
                    for o in output.iter_mut() {
                        *o /= z;
                    }
                } else {
                    for o in output.iter_mut() {
                        *o = self.sigmoid(*o);
                    }
                }
                // `findKBest`.
                for (i, &o) in output.iter().enumerate() {
                    if o < threshold {
                        continue;
                    }
                    let score = std_log(o);
                    if heap.len() == k && score < heap[0].0 {
                        continue;
                    }
                    heap.push((score, i as i32));
                    push_heap(heap);
                    if heap.len() > k {
                        pop_heap(heap);
                        heap.pop();
                    }
                }
            }
        }
        sort_heap(heap);
        predictions.extend(heap.iter().map(|&(score, i)| (score.exp(), i as usize)));
        Ok(())
    }

    /// Hierarchical softmax's depth-first search, pruned by the threshold and the heap.
    fn dfs(
        &self,
        k: usize,
        threshold: f32,
        node: usize,
        score: f32,
        heap: &mut Vec<(f32, i32)>,
        hidden: &[f32],
    ) -> Result<(), PredictError> {
        if score < std_log(threshold) {
            return Ok(());
        }
        if heap.len() == k && score < heap[0].0 {
            return Ok(());
        }
        let (left, right) = self.tree[node];
        if left == -1 && right == -1 {
            heap.push((score, node as i32));
            push_heap(heap);
            if heap.len() > k {
                pop_heap(heap);
                heap.pop();
            }
            return Ok(());
        }
        let f = self.output.dot_row(hidden, node - self.nlabels)?;
        // `1. / (1 + std::exp(-f))`: float exp, float sum, double quotient.
        let f = (1.0 / f64::from(1.0 + (-f).exp())) as f32;
        self.dfs(
            k,
            threshold,
            left as usize,
            score + std_log((1.0 - f64::from(f)) as f32),
            heap,
            hidden,
        )?;
        self.dfs(
            k,
            threshold,
            right as usize,
            score + std_log(f),
            heap,
            hidden,
        )
    }

    /// `Loss::sigmoid`: a table of 513 values over [-8, 8].
    fn sigmoid(&self, x: f32) -> f32 {
        if x < -8.0 {
            0.0
        } else if x > 8.0 {
            1.0
        } else {
            let i = ((x + 8.0) * 512.0 / 8.0 / 2.0) as i64;
            self.sigmoid_table[i as usize]
        }
    }
}

fn sigmoid_table() -> Vec<f32> {
    (0..=512)
        .map(|i| {
            let x = (i * 2 * 8) as f32 / 512.0 - 8.0;
            (1.0 / (1.0 + f64::from((-x).exp()))) as f32
        })
        .collect()
}

fn read_matrix(
    r: &mut Reader,
    quantized: bool,
    dim: usize,
    what: &str,
) -> Result<(Matrix, usize), ModelError> {
    let bad = |why: String| ModelError(format!("the {what} matrix: {why}"));
    if !quantized {
        let m = r.i64("a matrix's rows")?;
        let n = r.i64("a matrix's columns")?;
        let n = r.size(n, dim, "its column count")?;
        if n != dim {
            return Err(bad(format!("{n} columns for dim {dim}")));
        }
        let m = r.size(m, r.remaining() / 4 / n, "its row count")?;
        let data = r.floats(m * n, what)?;
        return Ok((Matrix::Dense { cols: n, data }, m));
    }
    let qnorm = r.bool("qnorm")?;
    let m = r.i64("a matrix's rows")?;
    let n = r.i64("a matrix's columns")?;
    if n != dim as i64 {
        return Err(bad(format!("{n} columns for dim {dim}")));
    }
    let codesize = r.i32("codesize")?;
    let codesize = r.size(codesize.into(), r.remaining(), "its code size")?;
    let codes = r.take(codesize, "the codes")?.to_vec();
    let pq = read_quantizer(r, what)?;
    let m = r.size(m, codesize, "its row count")?;
    if pq.dsub * (pq.nsubq - 1) + pq.lastdsub != dim || codesize != m * pq.nsubq {
        return Err(bad("its quantizer does not fit its size".into()));
    }
    let norms = if qnorm {
        let norm_codes = r.take(m, "the norm codes")?.to_vec();
        let npq = read_quantizer(r, what)?;
        if npq.nsubq != 1 || npq.lastdsub != 1 {
            return Err(bad("its norm quantizer is not one-dimensional".into()));
        }
        Some((norm_codes, npq))
    } else {
        None
    };
    Ok((Matrix::Quantized { codes, pq, norms }, m))
}

fn read_quantizer(r: &mut Reader, what: &str) -> Result<ProductQuantizer, ModelError> {
    let dim = r.i32("a quantizer's dim")?;
    let nsubq = r.i32("nsubq")?;
    let dsub = r.i32("dsub")?;
    let lastdsub = r.i32("lastdsub")?;
    let bad = || {
        ModelError(format!(
            "the {what} matrix's quantizer: dim {dim}, nsubq {nsubq}, dsub {dsub}, lastdsub {lastdsub}"
        ))
    };
    let [dim, nsubq, dsub, lastdsub] =
        [dim, nsubq, dsub, lastdsub].map(|v| usize::try_from(v).ok());
    let (Some(dim), Some(nsubq), Some(dsub), Some(lastdsub)) = (dim, nsubq, dsub, lastdsub) else {
        return Err(bad());
    };
    if nsubq == 0 || dim > r.remaining() / 4 / KSUB || (nsubq - 1) * dsub + lastdsub != dim {
        return Err(bad());
    }
    let centroids = r.floats(dim * KSUB, "the centroids")?;
    Ok(ProductQuantizer {
        nsubq,
        dsub,
        lastdsub,
        centroids,
    })
}

/// `buildTree`: the Huffman tree over label counts (sorted, most frequent first).
fn huffman_tree(counts: &[i64]) -> Vec<(i32, i32)> {
    let osz = counts.len();
    let mut count: Vec<i64> = vec![1_000_000_000_000_000; 2 * osz - 1];
    count[..osz].copy_from_slice(counts);
    let mut children = vec![(-1i32, -1i32); 2 * osz - 1];
    let mut leaf = osz as i64 - 1;
    let mut node = osz;
    for i in osz..2 * osz - 1 {
        let mut mini = [0usize; 2];
        for m in &mut mini {
            if leaf >= 0 && count[leaf as usize] < count[node] {
                *m = leaf as usize;
                leaf -= 1;
            } else {
                *m = node;
                node += 1;
            }
        }
        children[i] = (mini[0] as i32, mini[1] as i32);
        count[i] = count[mini[0]] + count[mini[1]];
    }
    children
}

/// `std_log`: log(x + 1e-5) in double, returned as float.
fn std_log(x: f32) -> f32 {
    (f64::from(x) + 1e-5).ln() as f32
}

/// What predictions reuse from text to text.
#[derive(Debug, Default)]
pub struct Scratch {
    rows: Vec<i32>,
    hashes: Vec<i32>,
    word: Vec<u8>,
    hidden: Vec<f32>,
    output: Vec<f32>,
    heap: Vec<(f32, i32)>,
}

// libstdc++'s heap algorithms with fastText's `comparePairs` (a.0 > b.0: the heap's front is the
// lowest score), so that tied scores come out in fastText's order.

fn before(a: (f32, i32), b: (f32, i32)) -> bool {
    a.0 > b.0
}

/// `std::__push_heap`: move `value` up from `hole` towards `top`.
fn sift_up(heap: &mut [(f32, i32)], mut hole: usize, top: usize, value: (f32, i32)) {
    while hole > top {
        let parent = (hole - 1) / 2;
        if !before(heap[parent], value) {
            break;
        }
        heap[hole] = heap[parent];
        hole = parent;
    }
    heap[hole] = value;
}

fn push_heap(heap: &mut [(f32, i32)]) {
    let last = heap.len() - 1;
    sift_up(heap, last, 0, heap[last]);
}

/// `std::__adjust_heap`.
fn adjust_heap(heap: &mut [(f32, i32)], mut hole: usize, len: usize, value: (f32, i32)) {
    let top = hole;
    let mut child = hole;
    while len >= 2 && child < (len - 1) / 2 {
        child = 2 * (child + 1);
        if before(heap[child], heap[child - 1]) {
            child -= 1;
        }
        heap[hole] = heap[child];
        hole = child;
    }
    if len % 2 == 0 && len >= 2 && child == (len - 2) / 2 {
        child = 2 * (child + 1);
        heap[hole] = heap[child - 1];
        hole = child - 1;
    }
    sift_up(heap, hole, top, value);
}

/// `std::pop_heap` over `heap[..len]`: its front goes to `len - 1`.
fn pop_heap_within(heap: &mut [(f32, i32)], len: usize) {
    if len > 1 {
        let last = len - 1;
        let value = heap[last];
        heap[last] = heap[0];
        adjust_heap(heap, 0, last, value);
    }
}

fn pop_heap(heap: &mut [(f32, i32)]) {
    pop_heap_within(heap, heap.len());
}

fn sort_heap(heap: &mut [(f32, i32)]) {
    let mut len = heap.len();
    while len > 1 {
        pop_heap_within(heap, len);
        len -= 1;
    }
}

/// fastText's `readWord` separators besides the newline.
fn is_separator(b: u8) -> bool {
    matches!(b, b' ' | b'\r' | b'\t' | 0x0b | 0x0c | 0)
}

/// The tokens of a text as one line: split as `readWord` splits, newlines read as spaces, then
/// the end of line (what fastText's Python `predict` does after its newline check).
pub fn text_tokens(text: &[u8]) -> impl Iterator<Item = &[u8]> {
    text.split(|&b| is_separator(b) || b == b'\n')
        .filter(|t| !t.is_empty())
        .chain(std::iter::once(EOS))
}

/// `getLine` from `*at` in `segment` (a line with its newline, or the input's last bytes
/// without one): the tokens up to and including the first EOS, as `readWord` reads them. A
/// literal `</s>` ends a "line" too, so one input line can give several predictions, as it does
/// in fastText. Returns false when nothing is left of the segment (fastText's `peek() == EOF`).
pub fn next_line<'a>(segment: &'a [u8], at: &mut usize, tokens: &mut Vec<&'a [u8]>) -> bool {
    tokens.clear();
    if *at >= segment.len() {
        return false;
    }
    loop {
        // `readWord`.
        let mut start = *at;
        let token = loop {
            let Some(&c) = segment.get(*at) else {
                break (start < *at).then(|| &segment[start..*at]);
            };
            *at += 1;
            if c == b'\n' || is_separator(c) {
                if start + 1 == *at {
                    // Nothing read yet: a newline is the end of line, other separators skip.
                    if c == b'\n' {
                        break Some(EOS);
                    }
                    start = *at;
                    continue;
                }
                if c == b'\n' {
                    *at -= 1;
                }
                break Some(&segment[start..*at - usize::from(c != b'\n')]);
            }
        };
        match token {
            None => return true,
            Some(token) => {
                tokens.push(token);
                if token == EOS {
                    return true;
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hash_sign_extends() {
        assert_eq!(hash(b""), 2166136261);
        assert_eq!(hash(b"a"), 0xe40c292c);
        // A byte >= 0x80 is xored sign-extended: not FNV-1a's usual value.
        assert_ne!(hash("é".as_bytes()), {
            let mut h: u32 = 2166136261;
            for &b in "é".as_bytes() {
                h ^= u32::from(b);
                h = h.wrapping_mul(16777619);
            }
            h
        });
    }

    #[test]
    fn heap_orders_as_libstdcxx() {
        let mut heap: Vec<(f32, i32)> = Vec::new();
        for (i, s) in [0.5f32, 0.5, 0.1, 0.9, 0.5, 0.3].into_iter().enumerate() {
            heap.push((s, i as i32));
            push_heap(&mut heap);
        }
        sort_heap(&mut heap);
        let scores: Vec<f32> = heap.iter().map(|p| p.0).collect();
        assert_eq!(scores, [0.9, 0.5, 0.5, 0.5, 0.3, 0.1]);
    }

    fn lines(segment: &[u8]) -> Vec<Vec<&[u8]>> {
        let (mut at, mut tokens, mut lines) = (0, Vec::new(), Vec::new());
        while next_line(segment, &mut at, &mut tokens) {
            lines.push(tokens.clone());
        }
        lines
    }

    #[test]
    fn reads_lines_as_fasttext() {
        let e: &[u8] = EOS;
        assert_eq!(lines(b"a  b\tc\n"), [vec![&b"a"[..], b"b", b"c", e]]);
        assert_eq!(lines(b"\n"), [vec![e]]);
        assert_eq!(lines(b"x y"), [vec![&b"x"[..], b"y"]]);
        // A literal </s> ends a line; what follows is another.
        assert_eq!(
            lines(b"a </s> b\n"),
            [vec![&b"a"[..], e], vec![&b"b"[..], e]]
        );
        assert_eq!(lines(b"a </s>\n"), [vec![&b"a"[..], e], vec![e]]);
        // Blanks after it at the end of the input: one more, empty, line.
        assert_eq!(lines(b"a </s>  "), [vec![&b"a"[..], e], vec![]]);
        assert_eq!(lines(b"  "), [Vec::<&[u8]>::new()]);
        assert_eq!(lines(b""), Vec::<Vec<&[u8]>>::new());
    }

    #[test]
    fn not_a_model() {
        assert!(Model::read(b"").is_err());
        assert!(Model::read(b"hello world, this is text").is_err());
        let mut truncated = MAGIC.to_le_bytes().to_vec();
        truncated.extend(12i32.to_le_bytes());
        truncated.extend([0u8; 20]);
        let e = Model::read(&truncated).err().unwrap();
        assert!(e.to_string().contains("truncated"), "{e}");
    }
}
