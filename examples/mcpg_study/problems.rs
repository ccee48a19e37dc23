//! Small random paraphrase problems whose every reachable paraphrase can be enumerated: MCPG's
//! yardstick, shared by `examples/mcpg_study.rs` and the integration tests.

use pairmetrics::lm::ngram::{NgramModel, NgramModelBuilder};
use pairmetrics::pair::true_score::{Identity, PhraseIndex, PhraseIndexBuilder};
use pairmetrics::smt::mcpg::{Mode, Options, exhaustive, mcpg};
use pairmetrics::stats::random::SplitMix64;

pub struct Problems {
    pub index: PhraseIndex,
    pub lm: NgramModel,
    pub sentences: Vec<Vec<String>>,
}

/// Word types: few, so rules and LM bigrams meet often.
const VOCABULARY: usize = 40;

fn word(i: usize) -> String {
    format!("w{i}")
}

/// `sentences` sentences of `lengths.0..=lengths.1` words drawn uniformly; each word type has
/// 0 to 3 one-word rules (to any word, itself included, p uniform in [0.05, 0.95]); a third of
/// the sentences' bigrams have 1 or 2 rules to one or two words; a bigram LM with every
/// unigram and 400 random bigrams (log10 p in [-2.5, -1] and [-1.5, -0.2], backoffs in
/// [-0.5, 0]). With `identity_rules`, every word type also has a `w -> w` rule (p uniform in
/// [0.3, 0.9]), as a pivoted table has: no word is then kept for free. Deterministic for a seed.
pub fn generate(
    seed: u64,
    sentences: usize,
    lengths: (usize, usize),
    identity_rules: bool,
) -> Problems {
    let mut rng = SplitMix64::new(seed);
    let sentences: Vec<Vec<String>> = (0..sentences)
        .map(|_| {
            let n = lengths.0 + rng.below(lengths.1 - lengths.0 + 1);
            (0..n).map(|_| word(rng.below(VOCABULARY))).collect()
        })
        .collect();
    let mut table = PhraseIndexBuilder::new(Identity::UnlessInTable);
    for w in 0..VOCABULARY {
        for _ in 0..rng.below(4) {
            let (target, p) = (word(rng.below(VOCABULARY)), uniform(&mut rng, 0.05, 0.95));
            table.add(&[&word(w)], &[&target], p);
        }
    }
    if identity_rules {
        for w in 0..VOCABULARY {
            let p = uniform(&mut rng, 0.3, 0.9);
            table.add(&[&word(w)], &[&word(w)], p);
        }
    }
    let mut bigrams: Vec<[&str; 2]> = sentences
        .iter()
        .flat_map(|s| s.windows(2).map(|w| [w[0].as_str(), w[1].as_str()]))
        .collect();
    bigrams.sort();
    bigrams.dedup();
    for bigram in bigrams {
        if rng.below(3) != 0 {
            continue;
        }
        for _ in 0..1 + rng.below(2) {
            let target: Vec<String> = (0..1 + rng.below(2))
                .map(|_| word(rng.below(VOCABULARY)))
                .collect();
            let target: Vec<&str> = target.iter().map(String::as_str).collect();
            table.add(&bigram, &target, uniform(&mut rng, 0.05, 0.95));
        }
    }
    Problems {
        index: table.build(),
        lm: bigram_model(&mut rng),
        sentences,
    }
}

fn uniform(rng: &mut SplitMix64, low: f64, high: f64) -> f64 {
    low + (high - low) * rng.next_f64()
}

fn bigram_model(rng: &mut SplitMix64) -> NgramModel {
    let log10 = |rng: &mut SplitMix64, low, high| uniform(rng, low, high) as f32;
    let mut pairs = std::collections::BTreeMap::new();
    while pairs.len() < 400 {
        let first = if rng.below(8) == 0 {
            "<s>".to_string()
        } else {
            word(rng.below(VOCABULARY))
        };
        let second = if rng.below(8) == 0 {
            "</s>".to_string()
        } else {
            word(rng.below(VOCABULARY))
        };
        pairs.insert((first, second), log10(rng, -1.5, -0.2));
    }
    let mut lm = NgramModelBuilder::new(&[VOCABULARY as u64 + 2, pairs.len() as u64]);
    lm.add_unigram("<s>", -99.0, log10(rng, -0.5, 0.0))
        .expect("a unigram");
    lm.add_unigram("</s>", log10(rng, -2.5, -1.0), 0.0)
        .expect("a unigram");
    for w in 0..VOCABULARY {
        lm.add_unigram(&word(w), log10(rng, -2.5, -1.0), log10(rng, -0.5, 0.0))
            .expect("a unigram");
    }
    for ((first, second), log_p) in pairs {
        lm.add(&[&first, &second], log_p, 0.0).expect("known words");
    }
    lm.build()
}

/// How one mode did against the exhaustive optimum.
#[derive(Debug, Clone, PartialEq)]
pub struct ModeResult {
    pub mode: Mode,
    /// Sentences whose best paraphrase has the optimal model score.
    pub optimal: usize,
    /// Mean model score of the best paraphrase.
    pub mean_model_score: f64,
    pub episodes: u64,
    pub seconds: f64,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Study {
    /// Sentences with at least one paraphrase (the others are left out).
    pub sentences: usize,
    pub mean_optimum: f64,
    /// Rule sets enumerated for the largest sentence.
    pub most_sets: u64,
    pub modes: Vec<ModeResult>,
}

/// MCPG in both modes (η = `episodes`, the LM weighted 1) against the exhaustive optimum of
/// the model score, over every sentence that has a paraphrase.
pub fn study(problems: &Problems, episodes: u64, seed: u64) -> Study {
    let options = |mode| Options {
        mode,
        episodes,
        seed,
        ..Options::default()
    };
    let lm = Some(&problems.lm);
    let mut optima = Vec::new();
    let mut most_sets = 0;
    for sentence in &problems.sentences {
        let words: Vec<&str> = sentence.iter().map(String::as_str).collect();
        let (best, sets) = exhaustive(
            &problems.index,
            lm,
            &words,
            &options(Mode::TrueScore),
            50_000_000,
        )
        .expect("few enough rule sets");
        if let Some(best) = best {
            optima.push((words, best.model_score));
        }
        most_sets = most_sets.max(sets);
    }
    let modes = [Mode::TrueScore, Mode::Translator]
        .into_iter()
        .map(|mode| {
            let started = std::time::Instant::now();
            let (mut optimal, mut total, mut spent) = (0, 0.0, 0);
            for (words, optimum) in &optima {
                let outcome = mcpg(&problems.index, lm, words, &options(mode));
                let best = outcome
                    .paraphrases
                    .first()
                    .map_or(f64::NEG_INFINITY, |p| p.model_score);
                optimal += usize::from(best >= optimum - 1e-9 * optimum.abs().max(1.0));
                total += best;
                spent += outcome.episodes;
            }
            let seconds = started.elapsed().as_secs_f64();
            ModeResult {
                mode,
                optimal,
                mean_model_score: total / optima.len() as f64,
                episodes: spent,
                seconds,
            }
        })
        .collect();
    let mean_optimum = optima.iter().map(|(_, o)| o).sum::<f64>() / optima.len() as f64;
    Study {
        sentences: optima.len(),
        mean_optimum,
        most_sets,
        modes,
    }
}
