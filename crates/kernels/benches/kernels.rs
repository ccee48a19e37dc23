//! Criterion benches of the kernels on realistic inputs, built against this crate alone: LePoD and
//! DERP at 10, 30 and 80 tokens (80 % of tokens aligned with local reordering, as after a word
//! aligner), DERP's worst 1,000-token pairs, the true score under a 50,000-rule table, dependency
//! fitness, Kendall tau_A, METEOR's aligner on the Europarl pairs of `tests/data/meteor`, and the
//! keyed bootstrap, language identification (py3langid's, fastText's) and OpusFilter's filters.
//! Run: `cargo bench --bench kernels [-- FILTER]`. The kernels fed by the main
//! crate's readers (DERP on the Parquet Europarl sample, the ARPA language model) are benched in
//! the main crate's `benches/kernels_on_data.rs`.

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use pairmetrics_kernels::Link;
use pairmetrics_kernels::pair::dep_fit::{self, Formula, TripleCounts};
use pairmetrics_kernels::pair::derp::{self, Parse};
use pairmetrics_kernels::pair::lepod::{Punctuation, Scratch, led_aligned, led_unaligned, pod};
use pairmetrics_kernels::pair::rank::kendall_tau_a;
use pairmetrics_kernels::pair::true_score::{self, Identity, PhraseIndexBuilder};

/// A small deterministic generator, so every run scores the same pairs.
struct Lcg(u64);

impl Lcg {
    fn next(&mut self, bound: u64) -> u64 {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (self.0 >> 33) % bound
    }
}

const VOCAB: [&str; 16] = [
    "the", "of", ",", "and", "to", "in", "a", "is", "that", "we", "for", "this", "it", "on", "be",
    ".",
];

fn pairs(len: usize, count: usize) -> Vec<(Vec<&'static str>, Vec<&'static str>, Vec<Link>)> {
    let mut rng = Lcg(len as u64);
    (0..count)
        .map(|_| {
            let s1: Vec<&str> = (0..len).map(|_| VOCAB[rng.next(16) as usize]).collect();
            // tgt: s1 with neighbours swapped here and there and a few words replaced.
            let mut order: Vec<usize> = (0..len).collect();
            for i in 1..len {
                if rng.next(4) == 0 {
                    order.swap(i - 1, i);
                }
            }
            let s2: Vec<&str> = order
                .iter()
                .map(|&i| if rng.next(5) == 0 { "x" } else { s1[i] })
                .collect();
            let links = order
                .iter()
                .enumerate()
                .filter(|_| rng.next(5) != 0)
                .map(|(j, &i)| (i as u32, j as u32))
                .collect();
            (s1, s2, links)
        })
        .collect()
}

fn lepod(c: &mut Criterion) {
    let punct = Punctuation::new(",.");
    for len in [10, 30, 80] {
        let data = pairs(len, 1000);
        let mut group = c.benchmark_group(format!("lepod/{len}_tokens"));
        group.throughput(Throughput::Elements(data.len() as u64));
        let mut scratch = Scratch::default();
        group.bench_function(BenchmarkId::new("led_aligned", len), |b| {
            b.iter(|| {
                data.iter()
                    .map(|(s1, s2, l)| led_aligned(s1, s2, l, &mut scratch).unwrap())
                    .sum::<f64>()
            })
        });
        group.bench_function(BenchmarkId::new("pod", len), |b| {
            b.iter(|| {
                data.iter()
                    .map(|(s1, s2, l)| pod(s1, s2, l, &punct, &mut scratch).unwrap())
                    .sum::<f64>()
            })
        });
        let mut sorted = Default::default();
        group.bench_function(BenchmarkId::new("led_unaligned", len), |b| {
            b.iter(|| {
                data.iter()
                    .map(|(s1, s2, _)| led_unaligned(s1, s2, &mut sorted).unwrap())
                    .sum::<f64>()
            })
        });
        group.finish();
    }
}

const LABELS: [&str; 12] = [
    "nsubj", "obj", "det", "amod", "case", "nmod", "advmod", "aux", "cc", "conj", "mark", "punct",
];

/// A dependency parse: heads (1-based, 0 = root) and labels.
type Parsed = (Vec<i32>, Vec<&'static str>);

/// A random tree in sentence order: each token hangs under one of the three before it (half
/// the time) or under any earlier token, as parsers' trees mix short and long arcs.
fn random_tree(len: usize, rng: &mut Lcg) -> Vec<usize> {
    (0..len)
        .map(|i| match i {
            0 => usize::MAX,
            _ if rng.next(2) == 0 => i - 1 - rng.next(i.min(3) as u64) as usize,
            _ => rng.next(i as u64) as usize,
        })
        .collect()
}

/// Pairs of parses: the tgt is the src tree with neighbours swapped here and there and a fifth of
/// the labels changed; 80 % of the tokens are aligned.
fn parsed_pairs(len: usize, count: usize) -> Vec<(Parsed, Parsed, Vec<Link>)> {
    let mut rng = Lcg(len as u64 + 99);
    (0..count)
        .map(|_| {
            let parent = random_tree(len, &mut rng);
            let labels: Vec<&str> = (0..len).map(|_| LABELS[rng.next(12) as usize]).collect();
            let src_heads = parent
                .iter()
                .map(|&p| if p == usize::MAX { 0 } else { p as i32 + 1 })
                .collect();
            let mut order: Vec<usize> = (0..len).collect();
            for i in 1..len {
                if rng.next(4) == 0 {
                    order.swap(i - 1, i);
                }
            }
            let mut place = vec![0; len];
            for (j, &i) in order.iter().enumerate() {
                place[i] = j;
            }
            let tgt_heads = order
                .iter()
                .map(|&i| {
                    if parent[i] == usize::MAX {
                        0
                    } else {
                        place[parent[i]] as i32 + 1
                    }
                })
                .collect();
            let tgt_labels = order
                .iter()
                .map(|&i| {
                    if rng.next(5) == 0 {
                        LABELS[rng.next(12) as usize]
                    } else {
                        labels[i]
                    }
                })
                .collect();
            let links = (0..len)
                .filter(|_| rng.next(5) != 0)
                .map(|i| (i as u32, place[i] as u32))
                .collect();
            ((src_heads, labels), (tgt_heads, tgt_labels), links)
        })
        .collect()
}

fn derp(c: &mut Criterion) {
    for len in [10, 30, 80] {
        let data = parsed_pairs(len, 200);
        let mut group = c.benchmark_group(format!("derp/{len}_tokens"));
        group.throughput(Throughput::Elements(data.len() as u64));
        let mut scratch = derp::Scratch::default();
        group.bench_function(BenchmarkId::new("derp", len), |b| {
            b.iter(|| {
                data.iter()
                    .map(|((sh, sd), (th, td), links)| {
                        let src = Parse {
                            head: sh,
                            deprel: sd,
                        };
                        let tgt = Parse {
                            head: th,
                            deprel: td,
                        };
                        derp::derp(src, tgt, links, &mut scratch).map_or(0.0, |d| d.score)
                    })
                    .sum::<f64>()
            })
        });
        group.finish();
    }
    // The worst 1,000-token pairs: every token aligned (the largest meta-graph the default
    // limit scores), as random trees and as chains (each token under the one before, so every
    // path is as long as it can be), labels at random so that no edit distance is trivial.
    let mut rng = Lcg(1000);
    let len: usize = 1000;
    let mut group = c.benchmark_group("derp/1000_tokens_all_aligned");
    group.sample_size(10);
    for shape in ["random_tree", "chain"] {
        let mut parse = || -> Parsed {
            let parent: Vec<usize> = match shape {
                "chain" => (0..len).map(|i| i.wrapping_sub(1)).collect(),
                _ => random_tree(len, &mut rng),
            };
            let heads = parent
                .iter()
                .map(|&p| if p == usize::MAX { 0 } else { p as i32 + 1 })
                .collect();
            (
                heads,
                (0..len).map(|_| LABELS[rng.next(12) as usize]).collect(),
            )
        };
        let ((sh, sd), (th, td)) = (parse(), parse());
        let links: Vec<Link> = (0..len as u32).map(|i| (i, i)).collect();
        let mut scratch = derp::Scratch::default();
        group.bench_function(shape, |b| {
            b.iter(|| {
                let (src, tgt) = (
                    Parse {
                        head: &sh,
                        deprel: &sd,
                    },
                    Parse {
                        head: &th,
                        deprel: &td,
                    },
                );
                derp::derp(src, tgt, &links, &mut scratch).map_or(0.0, |d| d.score)
            })
        });
    }
    group.finish();
}

/// Words w0..w1999, drawn roughly Zipfian (the square of a uniform draw favours small ids).
fn word(rng: &mut Lcg, words: &[String]) -> usize {
    let x = rng.next(1 << 16) as f64 / 65536.0;
    ((x * x) * words.len() as f64) as usize
}

/// A 50,000-rule table of 1-3 token phrases, and 30-token pairs whose tgt rewrites a third of
/// src's phrases with rules of the table (so the DP has real derivations to find).
fn true_score(c: &mut Criterion) {
    let words: Vec<String> = (0..2000).map(|i| format!("w{i}")).collect();
    let mut rng = Lcg(5);
    let mut rules: Vec<(Vec<usize>, Vec<usize>)> = Vec::new();
    let mut builder = PhraseIndexBuilder::new(Identity::default());
    for _ in 0..50_000 {
        let (n, m) = (1 + rng.next(3) as usize, 1 + rng.next(3) as usize);
        let src: Vec<usize> = (0..n).map(|_| word(&mut rng, &words)).collect();
        let tgt: Vec<usize> = (0..m).map(|_| word(&mut rng, &words)).collect();
        let text = |ids: &[usize]| ids.iter().map(|&i| words[i].as_str()).collect::<Vec<_>>();
        builder.add(&text(&src), &text(&tgt), (1 + rng.next(100)) as f64 / 101.0);
        rules.push((src, tgt));
    }
    let index = builder.build();
    let pairs: Vec<(Vec<&str>, Vec<&str>)> = (0..500)
        .map(|_| {
            let (mut s, mut t) = (Vec::new(), Vec::new());
            while s.len() < 30 {
                if rng.next(3) == 0 {
                    let (src, tgt) = &rules[rng.next(rules.len() as u64) as usize];
                    s.extend(src.iter().map(|&i| words[i].as_str()));
                    t.extend(tgt.iter().map(|&i| words[i].as_str()));
                } else {
                    let w = words[word(&mut rng, &words)].as_str();
                    s.push(w);
                    t.push(w);
                }
            }
            (s, t)
        })
        .collect();
    let mut group = c.benchmark_group("true_score/30_tokens");
    group.throughput(Throughput::Elements(pairs.len() as u64));
    let mut scratch = true_score::Scratch::default();
    group.bench_function("true_score", |b| {
        b.iter(|| {
            pairs
                .iter()
                .filter_map(|(s, t)| index.true_score(s, t, &mut scratch))
                .map(|r| r.score)
                .sum::<f64>()
        })
    });
    group.finish();
}

/// Counts of 200,000 random arcs over 2,000 words, then 30-token parsed sentences: the fitness
/// of a 3-token phrase and of the whole sentence.
fn dep_fit(c: &mut Criterion) {
    let words: Vec<String> = (0..2000).map(|i| format!("w{i}")).collect();
    let mut rng = Lcg(11);
    let mut counts = TripleCounts::default();
    for _ in 0..200_000 {
        let (h, d) = (word(&mut rng, &words), word(&mut rng, &words));
        counts.add(
            &words[h],
            &words[d],
            LABELS[rng.next(12) as usize],
            1 + rng.next(5),
        );
    }
    let sentences: Vec<(Vec<&str>, Vec<i32>, Vec<&str>)> = (0..1000)
        .map(|_| {
            let tokens = (0..30)
                .map(|_| words[word(&mut rng, &words)].as_str())
                .collect();
            let heads = random_tree(30, &mut rng)
                .iter()
                .map(|&p| if p == usize::MAX { 0 } else { p as i32 + 1 })
                .collect();
            let labels = (0..30).map(|_| LABELS[rng.next(12) as usize]).collect();
            (tokens, heads, labels)
        })
        .collect();
    let mut group = c.benchmark_group("dep_fit/30_tokens");
    group.throughput(Throughput::Elements(sentences.len() as u64));
    for (name, phrase) in [
        ("phrase_of_3", (10..13).collect::<Vec<usize>>()),
        ("whole_sentence", (0..30).collect()),
    ] {
        group.bench_function(name, |b| {
            b.iter(|| {
                sentences
                    .iter()
                    .map(|(w, h, l)| {
                        let parse = dep_fit::Parse {
                            words: w,
                            heads: h,
                            deprels: l,
                        };
                        dep_fit::dep_fit(&counts, &parse, &phrase, Formula::Paper).unwrap_or(0.0)
                    })
                    .sum::<f64>()
            })
        });
    }
    group.finish();
}

/// tau_A of a group of 100 and of 10,000 (score, score) pairs, with ties.
fn kendall(c: &mut Criterion) {
    let mut rng = Lcg(3);
    for n in [100, 10_000] {
        let pairs: Vec<(f64, f64)> = (0..n)
            .map(|_| (rng.next(50) as f64, rng.next(1000) as f64))
            .collect();
        let mut group = c.benchmark_group("kendall_tau_a");
        group.throughput(Throughput::Elements(n as u64));
        let (mut work, mut scratch) = (pairs.clone(), Vec::new());
        group.bench_function(BenchmarkId::new("pairs", n), |b| {
            b.iter(|| {
                work.copy_from_slice(&pairs);
                kendall_tau_a(&mut work, &mut scratch)
            })
        });
        group.finish();
    }
}

/// The METEOR aligner (exact stem synonym, beam 40) on 1,000 English Europarl lines against a
/// perturbed copy (31 tokens a line on average), one thread.
fn meteor_align(c: &mut Criterion) {
    use pairmetrics_kernels::align::{Aligner, AlignerOptions, Scratch};
    use std::io::Read;
    let read = |name: &str| {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../../tests/data/meteor")
            .join(name);
        let mut text = String::new();
        flate2::read::GzDecoder::new(std::fs::File::open(path).unwrap())
            .read_to_string(&mut text)
            .unwrap();
        text
    };
    let (tests, refs) = (
        read("europarl-perturbed.test.gz"),
        read("europarl-perturbed.ref.gz"),
    );
    let pairs: Vec<(Vec<&str>, Vec<&str>)> = tests
        .lines()
        .zip(refs.lines())
        .map(|(a, b)| (a.split(' ').collect(), b.split(' ').collect()))
        .collect();
    let aligner = Aligner::new(
        AlignerOptions::default(),
        &pairmetrics_kernels::align::open_file,
    )
    .unwrap();
    let mut scratch = Scratch::default();
    let mut group = c.benchmark_group("meteor_align");
    group.throughput(Throughput::Elements(pairs.len() as u64));
    group.bench_function("europarl_perturbed", |b| {
        b.iter(|| {
            pairs
                .iter()
                .map(|(t, r)| aligner.align(t, r, &mut scratch).len())
                .sum::<usize>()
        })
    });
}

/// The streaming paired bootstrap of corpus BLEU: 4,096 rows of two systems' BLEU statistics
/// (10 counts each) weighed into 1,000 resamples, one thread. A row-resample is one Poisson
/// weight and 20 weighted additions.
fn keyed_bootstrap(c: &mut Criterion) {
    use pairmetrics_kernels::stats::keyed_totals::{KeyedRows, KeyedTotals, PairedTest};
    let mut rng = Lcg(5);
    let mut rows = KeyedRows::default();
    for segment in 0..4096 {
        let n = 8 + rng.next(40);
        let stats = |m: u64| [n, n + 2, m, m * 3 / 4, m / 2, m / 3, n, n - 1, n - 2, n - 3];
        rows.push(segment, &stats(rng.next(n)), &stats(rng.next(n)));
    }
    let mut group = c.benchmark_group("keyed_bootstrap");
    group.throughput(Throughput::Elements(4096 * 1000));
    group.bench_function("bleu_rows_x_resamples", |b| {
        b.iter(|| {
            let mut totals = KeyedTotals::new(PairedTest::Bootstrap, 1000, 1);
            totals.add(&rows);
            totals.rows()
        })
    });
    group.finish();
}

/// The texts of `tests/data/lid/texts.txt` (WMT23 and Europarl lines in nine languages, and
/// adversarial lines).
fn lid_texts() -> Vec<String> {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../tests/data/lid/texts.txt"
    );
    let text = std::fs::read_to_string(path).expect("tests/data/lid/texts.txt");
    text.lines().map(str::to_string).collect()
}

/// Language identification, one thread, texts/s: py3langid's identifier (its model built in),
/// and fastText's predict with the committed quantised model and, when `PAIRMETRICS_LID176` names
/// it, lid.176.ftz.
fn language_id(c: &mut Criterion) {
    use pairmetrics_kernels::lid::{fasttext, langid, langid_legacy};
    let texts = lid_texts();
    let mut group = c.benchmark_group("language_id");
    group.throughput(Throughput::Elements(texts.len() as u64));
    let identifier = langid::Identifier::new(langid::Model::built_in());
    group.bench_function("langid", |b| {
        let mut scratch = langid::Scratch::default();
        let texts: Vec<&str> = texts.iter().map(String::as_str).collect();
        b.iter(|| {
            let mut total = 0.0;
            identifier.classify_all(&texts, &mut scratch, |_, g| total += g.prob);
            total
        })
    });
    let legacy = langid_legacy::Identifier::new(langid_legacy::Model::built_in());
    group.bench_function("langid_0_3", |b| {
        let mut scratch = langid_legacy::Scratch::default();
        b.iter(|| {
            texts
                .iter()
                .map(|t| legacy.classify(t, &mut scratch).prob)
                .sum::<f64>()
        })
    });
    let mut models = vec![(
        "fasttext_hs_ftz",
        concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../../tests/data/lid/models/hs.ftz"
        )
        .to_string(),
    )];
    if let Ok(path) = std::env::var("PAIRMETRICS_LID176") {
        models.push(("fasttext_lid176_ftz", path));
    }
    for (name, path) in models {
        let model =
            fasttext::Model::read(&std::fs::read(&path).expect("a model")).expect("a model");
        group.bench_function(name, |b| {
            let (mut scratch, mut predictions) = (fasttext::Scratch::default(), Vec::new());
            b.iter(|| {
                let mut n = 0;
                for t in &texts {
                    model
                        .predict(
                            fasttext::text_tokens(t.as_bytes()),
                            1,
                            0.0,
                            &mut scratch,
                            &mut predictions,
                        )
                        .expect("a prediction");
                    n += predictions.len();
                }
                n
            })
        });
    }
    group.finish();
}

/// OpusFilter's filters over the language-ID texts paired with themselves shifted by one (so
/// most pairs differ), one thread, pairs/s.
fn opusfilter(c: &mut Criterion) {
    use pairmetrics_kernels::clean::{html, opusfilter as of, regexp};
    let texts = lid_texts();
    let pairs: Vec<(&str, &str)> = texts
        .iter()
        .zip(texts.iter().cycle().skip(1))
        .map(|(a, b)| (a.as_str(), b.as_str()))
        .collect();
    let mut group = c.benchmark_group("opusfilter");
    group.throughput(Throughput::Elements(pairs.len() as u64));
    let repetition = of::Repetition::default();
    let run =
        |name: &str, f: &dyn Fn(&str, &str) -> f64, group: &mut criterion::BenchmarkGroup<_>| {
            group.bench_function(name, |b| {
                b.iter(|| pairs.iter().map(|(s, t)| f(s, t)).sum::<f64>())
            });
        };
    run(
        "length_ratio",
        &|s, t| of::length_ratio(&[of::Unit::Word.length(s), of::Unit::Word.length(t)]),
        &mut group,
    );
    run(
        "alphabet_ratio",
        &|s, t| of::alphabet_ratio(s, false) + of::alphabet_ratio(t, false),
        &mut group,
    );
    run(
        "terminal_punctuation",
        &|s, t| of::terminal_punctuation(s, t),
        &mut group,
    );
    run(
        "non_zero_numerals",
        &|s, t| of::non_zero_numerals(s, t),
        &mut group,
    );
    run(
        "longest_common_substring",
        &|s, t| of::longest_common_substring(s, t),
        &mut group,
    );
    run(
        "similarity_char",
        &|s, t| of::similarity(s, t, of::Unit::Char, false, (1, 1, 1)),
        &mut group,
    );
    run(
        "repetitions",
        &|s, t| (repetition.repetitions(s) + repetition.repetitions(t)) as f64,
        &mut group,
    );
    run(
        "html_tag",
        &|s, t| f64::from(u8::from(html::has_tag(s)) + u8::from(html::has_tag(t))),
        &mut group,
    );
    let tags = regexp::PyRegex::new("<[^>]+>").expect("a pattern");
    run(
        "regexp",
        &|s, t| f64::from(u8::from(tags.search(s).unwrap()) + u8::from(tags.search(t).unwrap())),
        &mut group,
    );
    group.finish();
}

criterion_group!(
    benches,
    language_id,
    opusfilter,
    keyed_bootstrap,
    lepod,
    derp,
    true_score,
    dep_fit,
    kendall,
    meteor_align
);
criterion_main!(benches);
