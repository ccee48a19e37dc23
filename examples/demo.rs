//! The README's first set-up command, `cargo run --example demo`: score the bundled Europarl sample
//! and tour it in SQL, exactly as `pairmetrics demo` does.
//!
//! It is an example rather than `cargo run -- demo` because examples are built with the same
//! dependency features as `cargo test` (dev-dependencies switch on features of crates DataFusion
//! shares, such as serde), so the two README commands share one build of DataFusion.

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    use pairmetrics::pipeline::demo;
    let out = std::env::temp_dir().join("pairmetrics-demo.parquet");
    demo::run(
        &demo::default_data_dir(),
        &out,
        &mut std::io::stdout().lock(),
    )
    .await
}
