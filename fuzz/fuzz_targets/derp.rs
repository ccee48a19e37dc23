//! DERP on arbitrary parses and alignments (negative or out-of-range heads, cycles, links past
//! the end, duplicates): a score in [0, 1] or an error, never a panic.
#![no_main]
use libfuzzer_sys::fuzz_target;
use pairmetrics_kernels::pair::derp::{Parse, Scratch, derp};

const LABELS: [&str; 4] = ["nsubj", "obj", "root", "punct"];

fuzz_target!(|data: &[u8]| {
    let Some((&sizes, rest)) = data.split_first() else { return };
    let (n, m) = ((sizes & 15) as usize, (sizes >> 4) as usize);
    if rest.len() < n + m {
        return;
    }
    let (heads, links) = rest.split_at(n + m);
    let heads: Vec<i32> = heads.iter().map(|&b| b as i8 as i32 % 20).collect();
    let labels: Vec<&str> = heads.iter().map(|&h| LABELS[h.unsigned_abs() as usize % 4]).collect();
    let links: Vec<(u32, u32)> = links.chunks_exact(2).map(|p| ((p[0] % 20) as u32, (p[1] % 20) as u32)).collect();
    let src = Parse { head: &heads[..n], deprel: &labels[..n] };
    let tgt = Parse { head: &heads[n..], deprel: &labels[n..] };
    if let Ok(score) = derp(src, tgt, &links, &mut Scratch::default()) {
        assert!((0.0..=1.0).contains(&score.score), "{score:?}");
    }
});
