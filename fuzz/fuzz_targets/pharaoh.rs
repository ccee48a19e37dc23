//! Pharaoh lines: any text parses to links or to an error, never a panic.
#![no_main]
use libfuzzer_sys::fuzz_target;
use pairmetrics_kernels::formats::pharaoh;

fuzz_target!(|line: &str| {
    let mut links = Vec::new();
    let _ = pharaoh::parse_line(line, &mut links);
});
