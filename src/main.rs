//! The pairmetrics command line: parse the arguments, run the command (src/cli/), say what went
//! wrong.

mod cli;

use std::process::ExitCode;

use anyhow::Context;

fn main() -> ExitCode {
    fix_malloc_thresholds();
    let cli = cli::Cli::from_env();
    pairmetrics::storage::set_options(cli.storage_options());
    let result = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .context("starting the runtime")
        .and_then(|runtime| runtime.block_on(cli.run()));
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(err) => {
            eprintln!("error: {}", cli::error_message(&err));
            ExitCode::FAILURE
        }
    }
}

/// glibc raises its mmap threshold each time a large block is freed, up to 32 MiB, so the
/// encoder's large buffers go back to the heap and `score`'s peak grew with the run (449 MB
/// at 1M pairs, 716 MB at 10M). A fixed threshold keeps them mmapped and the peak flat.
fn fix_malloc_thresholds() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: mallopt only sets a parameter of the allocator; it is called before any thread starts.
    unsafe {
        libc::mallopt(libc::M_MMAP_THRESHOLD, 4 << 20);
    }
}
