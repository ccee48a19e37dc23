//! The pairmetrics command line: parse the arguments, run the command (src/cli/), say what went
//! wrong.

mod cli;

use std::process::ExitCode;

use anyhow::Context;
use pairmetrics::kernels::sys;

fn main() -> ExitCode {
    fix_malloc_thresholds();
    remove_scratch_on_signals();
    let cli = cli::Cli::from_env();
    pairmetrics::storage::set_options(cli.storage_options());
    let result = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .context("starting the runtime")
        .and_then(|runtime| runtime.block_on(cli.run()));
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(err) if stdout_reader_left(&err) => die_of_sigpipe(),
        Err(err) => {
            // Paths, SQL and servers' replies echoed in an error may hold control characters,
            // which a terminal would obey: shown escaped, as `show` and `sql` show data.
            let message = cli::error_message(&err);
            eprintln!(
                "error: {}",
                pairmetrics::formats::terminal::terminal_safe(&message)
            );
            ExitCode::FAILURE
        }
    }
}

/// Whether `err` is a write to standard output whose reader has gone (`pairmetrics align … |
/// head -1`): Rust ignores SIGPIPE, so the write returned EPIPE instead of ending the process.
/// Only then: a broken pipe to anything else (a server, a child) stays an error. Arrow's
/// writers keep only the text of the I/O error they met, so that text counts too.
fn stdout_reader_left(err: &anyhow::Error) -> bool {
    let epipe = sys::broken_pipe_text();
    let broken_pipe = err.chain().any(|e| {
        e.downcast_ref::<std::io::Error>()
            .is_some_and(|e| e.kind() == std::io::ErrorKind::BrokenPipe)
            || e.to_string().contains(&epipe)
    });
    broken_pipe && sys::stdout_reader_gone()
}

/// End as Unix tools end when their reader leaves: killed by SIGPIPE, nothing printed (the
/// shell sees status 141).
fn die_of_sigpipe() -> ExitCode {
    sys::die_of_sigpipe();
    ExitCode::from(141)
}

/// glibc raises its mmap threshold each time a large block is freed, up to 32 MiB, so the
/// encoder's large buffers go back to the heap and `score`'s peak grew with the run (449 MB
/// at 1M pairs, 716 MB at 10M). A fixed threshold keeps them mmapped and the peak flat.
fn fix_malloc_thresholds() {
    sys::fix_mmap_threshold(4 << 20);
}

/// On SIGINT or SIGTERM, remove the scratch directories of the jobs that spill (fast-align,
/// align-words, lm estimate, lmplz), then die of the signal as before (exit status 130, 143).
/// The signals are blocked here, before any thread starts, so every thread inherits the mask,
/// and one thread takes them with sigwait, where removing files is allowed.
fn remove_scratch_on_signals() {
    sys::on_interrupt(pairmetrics::storage::spill::remove_scratch_directories);
}
