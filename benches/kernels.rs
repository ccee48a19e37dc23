//! Criterion benches of the LePoD and DERP kernels at 10, 30 and 80 tokens, 80 % of tokens
//! aligned with local reordering, as after a word aligner. Run: `cargo bench --bench kernels`.

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use pairmetrics::metrics::derp::{self, Parse};
use pairmetrics::metrics::lepod::{Link, Punctuation, Scratch, led_aligned, led_unaligned, pod};

/// A small deterministic generator, so every run scores the same pairs.
struct Lcg(u64);

impl Lcg {
    fn next(&mut self, bound: u64) -> u64 {
        self.0 = self.0.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        (self.0 >> 33) % bound
    }
}

const VOCAB: [&str; 16] = ["the", "of", ",", "and", "to", "in", "a", "is", "that", "we", "for", "this", "it", "on", "be", "."];

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
            let s2: Vec<&str> = order.iter().map(|&i| if rng.next(5) == 0 { "x" } else { s1[i] }).collect();
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
            b.iter(|| data.iter().map(|(s1, s2, l)| led_aligned(s1, s2, l, &mut scratch).unwrap()).sum::<f64>())
        });
        group.bench_function(BenchmarkId::new("pod", len), |b| {
            b.iter(|| data.iter().map(|(s1, s2, l)| pod(s1, s2, l, &punct, &mut scratch).unwrap()).sum::<f64>())
        });
        let mut sorted = Default::default();
        group.bench_function(BenchmarkId::new("led_unaligned", len), |b| {
            b.iter(|| data.iter().map(|(s1, s2, _)| led_unaligned(s1, s2, &mut sorted).unwrap()).sum::<f64>())
        });
        group.finish();
    }
}

const LABELS: [&str; 12] =
    ["nsubj", "obj", "det", "amod", "case", "nmod", "advmod", "aux", "cc", "conj", "mark", "punct"];

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
            let src_heads = parent.iter().map(|&p| if p == usize::MAX { 0 } else { p as i32 + 1 }).collect();
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
                .map(|&i| if parent[i] == usize::MAX { 0 } else { place[parent[i]] as i32 + 1 })
                .collect();
            let tgt_labels = order
                .iter()
                .map(|&i| if rng.next(5) == 0 { LABELS[rng.next(12) as usize] } else { labels[i] })
                .collect();
            let links = (0..len).filter(|_| rng.next(5) != 0).map(|i| (i as u32, place[i] as u32)).collect();
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
                        let src = Parse { head: sh, deprel: sd };
                        let tgt = Parse { head: th, deprel: td };
                        derp::derp(src, tgt, links, &mut scratch).map_or(0.0, |d| d.score)
                    })
                    .sum::<f64>()
            })
        });
        group.finish();
    }
}

criterion_group!(benches, lepod, derp);
criterion_main!(benches);
