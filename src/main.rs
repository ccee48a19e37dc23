//! The pairmetrics command line: parse the arguments, run the command (src/cli/), say what went
//! wrong.

mod cli;

use std::process::ExitCode;

use anyhow::Context;

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
    let epipe = std::io::Error::from_raw_os_error(libc::EPIPE).to_string();
    let broken_pipe = err.chain().any(|e| {
        e.downcast_ref::<std::io::Error>()
            .is_some_and(|e| e.kind() == std::io::ErrorKind::BrokenPipe)
            || e.to_string().contains(&epipe)
    });
    let mut stdout = libc::pollfd {
        fd: libc::STDOUT_FILENO,
        events: 0,
        revents: 0,
    };
    // SAFETY: poll on one valid pollfd, no timeout. A pipe whose read end is closed reports
    // POLLERR on its write end.
    let polled = unsafe { libc::poll(&mut stdout, 1, 0) };
    broken_pipe && polled == 1 && stdout.revents & libc::POLLERR != 0
}

/// End as Unix tools end when their reader leaves: killed by SIGPIPE, nothing printed (the
/// shell sees status 141).
fn die_of_sigpipe() -> ExitCode {
    // SAFETY: restoring a signal's default action and raising it on this process.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
        libc::raise(libc::SIGPIPE);
    }
    ExitCode::from(141)
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

/// On SIGINT or SIGTERM, remove the scratch directories of the jobs that spill (fast-align,
/// align-words, lm estimate, lmplz), then die of the signal as before (exit status 130, 143).
/// The signals are blocked here, before any thread starts, so every thread inherits the mask,
/// and one thread takes them with sigwait, where removing files is allowed.
fn remove_scratch_on_signals() {
    // SAFETY: sigset operations on a local set; pthread_sigmask on this (the only) thread;
    // the thread below only waits, removes files and raises the signal on itself.
    unsafe {
        let mut signals: libc::sigset_t = std::mem::zeroed();
        libc::sigemptyset(&mut signals);
        libc::sigaddset(&mut signals, libc::SIGINT);
        libc::sigaddset(&mut signals, libc::SIGTERM);
        libc::pthread_sigmask(libc::SIG_BLOCK, &signals, std::ptr::null_mut());
        std::thread::spawn(move || {
            let mut signal = 0;
            if libc::sigwait(&signals, &mut signal) == 0 {
                pairmetrics::storage::spill::remove_scratch_directories();
                libc::signal(signal, libc::SIG_DFL);
                libc::pthread_sigmask(libc::SIG_UNBLOCK, &signals, std::ptr::null_mut());
                libc::raise(signal);
            }
        });
    }
}
