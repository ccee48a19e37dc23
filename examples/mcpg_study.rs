//! MCPG against the exhaustive optimum (issue 21's check): random small paraphrase problems
//! (`mcpg_study/problems.rs`) whose every reachable paraphrase is enumerated, then MCPG in
//! true-score and translator modes on each; prints a Markdown table for BENCHMARKS.md.
//!
//!     cargo run --release --example mcpg_study -- [SENTENCES] [MIN_LEN] [MAX_LEN] [EPISODES] [SEED] [IDENTITY]
//!
//! Defaults: 100 sentences of 8 to 12 words, η = 100,000 (MCPG's default), seed 1; IDENTITY 1
//! gives every word type a `w -> w` rule, as pivoted tables have (default 0).

#[path = "mcpg_study/problems.rs"]
mod problems;

use std::time::Instant;

fn main() {
    let args: Vec<u64> = std::env::args()
        .skip(1)
        .map(|a| a.parse().expect("numbers"))
        .collect();
    let arg = |i: usize, default: u64| args.get(i).copied().unwrap_or(default);
    let (sentences, min, max, episodes, seed, identity) = (
        arg(0, 100),
        arg(1, 8),
        arg(2, 12),
        arg(3, 100_000),
        arg(4, 1),
        arg(5, 0) == 1,
    );
    let started = Instant::now();
    let problems = problems::generate(
        seed,
        sentences as usize,
        (min as usize, max as usize),
        identity,
    );
    let study = problems::study(&problems, episodes, seed);
    eprintln!("{:.1} s in all", started.elapsed().as_secs_f64());
    println!(
        "{} sentences of {min}-{max} words with a paraphrase (of {sentences}); up to {} rule sets each; mean optimal model score {:.3}; η = {episodes}{}",
        study.sentences,
        study.most_sets,
        study.mean_optimum,
        if identity {
            "; every word has a w -> w rule"
        } else {
            ""
        }
    );
    println!();
    println!(
        "| mode | optimum found | mean model score of the 1-best | episodes | time | sentences/s |"
    );
    println!("|---|---|---|---|---|---|");
    for m in &study.modes {
        println!(
            "| {} | {} / {} ({:.1} %) | {:.3} | {} | {:.1} s | {:.2} |",
            m.mode.name(),
            m.optimal,
            study.sentences,
            100.0 * m.optimal as f64 / study.sentences as f64,
            m.mean_model_score,
            m.episodes,
            m.seconds,
            study.sentences as f64 / m.seconds
        );
    }
}
