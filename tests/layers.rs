//! The layers the compiler keeps: the kernels crate depends on nothing of the query engine.

use std::process::Command;

/// Crates the kernels must never pull in, directly or through another crate.
const FORBIDDEN: [&str; 8] = [
    "datafusion",
    "arrow",
    "parquet",
    "tokio",
    "object_store",
    "deltalake",
    "ballista",
    "pyo3",
];

#[test]
fn the_kernels_crate_depends_on_no_engine_crate() {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let output = Command::new(cargo)
        .args([
            "tree",
            "--locked",
            "-p",
            "pairmetrics-kernels",
            "-e",
            "normal",
            "--prefix",
            "none",
            "--format",
            "{p}",
        ])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .expect("cargo runs");
    assert!(
        output.status.success(),
        "cargo tree failed: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    let tree = String::from_utf8(output.stdout).expect("UTF-8");
    let names: Vec<&str> = tree
        .lines()
        .filter_map(|line| line.split_whitespace().next())
        .collect();
    assert!(names.contains(&"pairmetrics-kernels"), "{tree}");
    for name in &names {
        for forbidden in FORBIDDEN {
            assert!(
                !(name == &forbidden || name.starts_with(&format!("{forbidden}-"))),
                "the kernels depend on {name}:\n{tree}"
            );
        }
    }
}
