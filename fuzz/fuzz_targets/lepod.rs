//! LeD and PoD on arbitrary sentences and links: values in [0, 1] or errors, never a panic.
#![no_main]
use libfuzzer_sys::fuzz_target;
use pairmetrics_kernels::pair::lepod::{Punctuation, Scratch, led_aligned, led_unaligned, pod};

fuzz_target!(|input: (&str, &str, Vec<(u8, u8)>)| {
    let (a, b, links) = input;
    let s1: Vec<&str> = a.split(' ').collect();
    let s2: Vec<&str> = b.split(' ').collect();
    let links: Vec<(u32, u32)> = links.iter().map(|&(x, y)| (x as u32 % 24, y as u32 % 24)).collect();
    let scratch = &mut Scratch::default();
    let in_range = |r: Result<f64, _>| r.map_or(true, |v| (0.0..=1.0).contains(&v));
    assert!(in_range(led_aligned(&s1, &s2, &links, scratch)));
    assert!(in_range(pod(&s1, &s2, &links, &Punctuation::new(",."), scratch)));
    assert!(in_range(led_unaligned(&s1, &s2, &mut (Vec::new(), Vec::new()))));
});
