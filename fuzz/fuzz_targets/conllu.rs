//! CoNLL-U: any bytes give sentences or errors naming a line, never a panic.
#![no_main]
use libfuzzer_sys::fuzz_target;
use pairmetrics_kernels::formats::conllu::Sentences;
use pairmetrics_kernels::formats::lines::Lines;

fuzz_target!(|data: &[u8]| {
    for sentence in Sentences::new(Lines::new(data, std::path::Path::new("fuzz"))) {
        if sentence.is_err() {
            break;
        }
    }
});
