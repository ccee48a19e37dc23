//! METEOR Matcher output: any bytes give blocks or errors naming a line, never a panic.
#![no_main]
use libfuzzer_sys::fuzz_target;
use pairmetrics_kernels::formats::lines::Lines;
use pairmetrics_kernels::formats::meteor::Blocks;

fuzz_target!(|data: &[u8]| {
    for block in Blocks::new(Lines::new(data, std::path::Path::new("fuzz"))) {
        match block {
            Ok(block) => {
                let (n1, n2) = block.sentence_lengths();
                if block.span_past_end(n1, n2).is_none() {
                    drop(block.links());
                }
            }
            Err(_) => break,
        }
    }
});
