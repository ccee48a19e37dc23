//! ARPA models: any bytes give a model or an error naming a line, never a panic; a model
//! that loads scores any sentence to a number.
#![no_main]
use libfuzzer_sys::fuzz_target;
use pairmetrics_kernels::formats::{arpa, lines::Lines};

fuzz_target!(|data: &[u8]| {
    if let Ok(model) = arpa::parse(&mut Lines::new(data, std::path::Path::new("fuzz"))) {
        let _ = model.sentence_log10(&["a", "b", "<s>", "</s>", "<unk>"], &mut Default::default());
    }
});
