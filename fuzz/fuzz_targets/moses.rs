//! Moses phrase-table and n-best lines: entries or errors, never a panic.
#![no_main]
use libfuzzer_sys::fuzz_target;
use pairmetrics_kernels::formats::moses;

fuzz_target!(|line: &str| {
    let _ = moses::parse_phrase_line(line);
    let _ = moses::parse_nbest_line(line);
});
