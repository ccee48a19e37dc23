//! py3langid 0.3.0's language identifier (`LanguageIdentifier.from_pickled_model(MODEL_FILE,
//! norm_probs=True)`): langid.py's original 97-language model, built in. OpusFilter 3.3.1's
//! language-ID filters call `from_pickled_model`, which py3langid 0.4.0 removed, so their scores
//! come from this identifier, not from [`super::langid`].
//!
//! It differs from 0.4.0 in every step: the text's UTF-8 bytes are read as they are (no
//! lowercasing, no NFC); a DFA state can complete several features; each feature weighs its
//! count as a `uint16` (so 65,536 occurrences weigh 0); there is no length temperature; and the
//! probabilities are `1 / sum_j exp(pd_j - pd_i)` in float32. As in [`super::langid`], the
//! float32 dot product that py3langid leaves to BLAS is summed exactly in f64 and rounded once;
//! numpy's pairwise float32 sums are reproduced.

use std::io::Read;
use std::sync::OnceLock;

use super::langid::{Guess, numpy_sum};
use super::npz::Npz;

const BUILT_IN_MODEL: &[u8] = include_bytes!("../../data/py3langid-0.3.0/model.npz.xz");

/// The model's arrays.
#[derive(Debug)]
pub struct Model {
    /// Per feature, a row of log-probabilities, one per class.
    ptc: Vec<f32>,
    pc: Vec<f32>,
    classes: Vec<String>,
    /// Per state, 256 next states.
    nextmove: Vec<u16>,
    /// The features state `s` completes: `out_feat[out_start[s]..out_start[s + 1]]`.
    out_start: Vec<u32>,
    out_feat: Vec<u16>,
}

impl Model {
    /// The model built into pairmetrics (py3langid 0.3.0's), read once per process.
    pub fn built_in() -> &'static Model {
        static MODEL: OnceLock<Model> = OnceLock::new();
        MODEL.get_or_init(|| {
            let mut npz = Vec::new();
            liblzma::read::XzDecoder::new(BUILT_IN_MODEL)
                .read_to_end(&mut npz)
                .expect("the built-in py3langid 0.3.0 model is an xz stream");
            Model::from_npz(&Npz::new(&npz).expect("an npz file"))
                .expect("the built-in py3langid 0.3.0 model is valid")
        })
    }

    fn from_npz(npz: &Npz) -> Result<Model, String> {
        let classes = npz.unicode("classes")?;
        let pc = npz.f32("pc")?;
        let ptc = npz.f32("ptc")?;
        let nextmove = npz.unsigned("nextmove")?;
        let out_start = npz.unsigned("out_start")?;
        let out_feat = npz.unsigned("out_feat")?;
        let n = classes.len();
        let features = ptc.len() / n.max(1);
        let states = nextmove.len() / 256;
        if pc.len() != n
            || n == 0
            || ptc.len() % n != 0
            || nextmove.len() % 256 != 0
            || out_start.len() != states + 1
            || out_start.windows(2).any(|w| w[0] > w[1])
            || out_start.last().copied() != Some(out_feat.len() as u32)
            || nextmove.iter().any(|&s| s as usize >= states)
            || out_feat.iter().any(|&f| f as usize >= features)
        {
            return Err("the model's arrays do not fit together".into());
        }
        Ok(Model {
            ptc,
            pc,
            classes,
            nextmove: nextmove.into_iter().map(|s| s as u16).collect(),
            out_start,
            out_feat: out_feat.into_iter().map(|f| f as u16).collect(),
        })
    }

    fn features(&self) -> usize {
        self.ptc.len() / self.classes.len()
    }
}

/// A model, maybe restricted to some of its languages (`set_languages`).
#[derive(Debug, Clone)]
pub struct Identifier<'m> {
    model: &'m Model,
    /// The classes in use, in the model's order.
    columns: Vec<usize>,
}

/// Buffers reused from text to text.
#[derive(Debug, Default)]
pub struct Scratch {
    /// Per feature, its count in the text (all zero between texts).
    counts: Vec<u32>,
    /// The features the text has, each once.
    seen: Vec<u16>,
    sums: Vec<f64>,
    pd: Vec<f32>,
    row: Vec<f32>,
}

impl<'m> Identifier<'m> {
    pub fn new(model: &'m Model) -> Self {
        Identifier {
            model,
            columns: (0..model.classes.len()).collect(),
        }
    }

    /// Only these languages; an unknown code is an error naming it (py3langid raises
    /// `ValueError: Unknown language code`).
    pub fn restricted<S: AsRef<str>>(model: &'m Model, langs: &[S]) -> Result<Self, String> {
        if let Some(unknown) = langs
            .iter()
            .map(AsRef::as_ref)
            .find(|l| !model.classes.iter().any(|c| c == l))
        {
            return Err(format!(
                "unknown language code for py3langid 0.3.0: {unknown} (it knows {})",
                model.classes.join(" ")
            ));
        }
        if langs.is_empty() {
            return Err("no languages to choose from".into());
        }
        let columns = (0..model.classes.len())
            .filter(|&c| langs.iter().any(|l| l.as_ref() == model.classes[c]))
            .collect();
        Ok(Identifier { model, columns })
    }

    /// `classify(text)`: the language and its probability.
    pub fn classify(&self, text: &str, scratch: &mut Scratch) -> Guess<'m> {
        let model = self.model;
        let classes = model.classes.len();
        let Scratch {
            counts,
            seen,
            sums,
            pd,
            row,
        } = scratch;
        counts.resize(model.features(), 0);
        seen.clear();
        let mut state = 0usize;
        for &b in text.as_bytes() {
            state = model.nextmove[(state << 8) + b as usize] as usize;
            let outputs = model.out_start[state] as usize..model.out_start[state + 1] as usize;
            for &feature in &model.out_feat[outputs] {
                let count = &mut counts[feature as usize];
                if *count == 0 {
                    seen.push(feature);
                }
                *count += 1;
            }
        }
        // `np.dot(fv, nb_ptc) + nb_pc`, the counts as numpy's uint16.
        sums.clear();
        sums.resize(classes, 0.0);
        for &feature in seen.iter() {
            let count = &mut counts[feature as usize];
            let weight = f64::from(*count as u16);
            *count = 0;
            let ptc = &model.ptc[feature as usize * classes..][..classes];
            for (sum, &p) in sums.iter_mut().zip(ptc) {
                *sum += weight * f64::from(p);
            }
        }
        pd.clear();
        pd.extend(self.columns.iter().map(|&c| sums[c] as f32 + model.pc[c]));
        // `1 / exp(pd[None, :] - pd[:, None]).sum(1)`, the largest first. A class whose pd is
        // more than ln(n) + 1 below the largest sums to more than e * n, and the class with the
        // largest pd to at most n: only the classes near the top can win, so only theirs are
        // summed.
        let top = pd.iter().copied().fold(f32::NEG_INFINITY, f32::max);
        let margin = (pd.len() as f32).ln() + 1.0;
        let mut best: Option<(usize, f32)> = None;
        for i in 0..pd.len() {
            if !(pd[i] >= top - margin) {
                continue;
            }
            row.clear();
            row.extend(pd.iter().map(|&p| (p - pd[i]).exp()));
            let prob = 1.0 / numpy_sum(row);
            if best.is_none_or(|(_, b)| prob > b) {
                best = Some((i, prob));
            }
        }
        // No finite score at all (never with this model): numpy's argmax of NaNs is the first.
        let (i, prob) = best.unwrap_or((0, f32::NAN));
        Guess {
            lang: &model.classes[self.columns[i]],
            prob: f64::from(prob),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn classify(text: &str) -> (String, f64) {
        let g = Identifier::new(Model::built_in()).classify(text, &mut Scratch::default());
        (g.lang.to_string(), g.prob)
    }

    #[test]
    fn the_built_in_model_reads() {
        let model = Model::built_in();
        assert_eq!(model.classes.len(), 97);
        assert_eq!(model.features(), 7480);
    }

    /// py3langid 0.3.0: `LanguageIdentifier.from_pickled_model(MODEL_FILE, norm_probs=True)`.
    #[test]
    fn as_py3langid_0_3_classifies() {
        for (text, lang, prob) in [
            ("Bonjour le monde", "fr", 0.9999994039535522),
            ("This is an English sentence about the weather.", "en", 1.0),
            // No features: the priors decide.
            ("", "en", 0.16946150362491608),
            ("😀", "en", 0.16946150362491608),
            // No lowercasing in 0.3.0 (0.4.0 says ru 0.296).
            ("ЗДРАВСТВУЙ МИР", "ru", 0.7167700529098511),
        ] {
            let (l, p) = classify(text);
            assert_eq!(l, lang, "{text}");
            assert!((p - prob).abs() < 1e-6, "{text}: {p} against {prob}");
        }
    }

    #[test]
    fn restricted_to_languages() {
        let model = Model::built_in();
        let id = Identifier::restricted(model, &["en", "de"]).unwrap();
        let g = id.classify("Bonjour le monde", &mut Scratch::default());
        assert_eq!((g.lang, g.prob), ("en", 1.0));
        assert!(
            Identifier::restricted(model, &["xx"])
                .unwrap_err()
                .contains("xx")
        );
    }
}
