//! Syntactic n-gram lines: arcs or errors, never a panic.
#![no_main]
use libfuzzer_sys::fuzz_target;
use pairmetrics_kernels::formats::syntactic_ngrams;

fuzz_target!(|line: &str| {
    let _ = syntactic_ngrams::parse_line(line, &mut Vec::new());
});
