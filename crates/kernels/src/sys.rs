//! Every call into the C library, each behind a safe function: the one place `unsafe` talks to
//! the operating system. Hints (page cache, write-back, allocator) do nothing where the system
//! has no such call.

use std::fs::File;
use std::io;

/// Advise the kernel to drop `file`'s cached pages (pages not yet written stay).
pub fn drop_cached_pages(file: &File) {
    #[cfg(target_os = "linux")]
    {
        use std::os::fd::AsRawFd;
        // SAFETY: advice about an open file descriptor; it reads and writes no memory of ours.
        unsafe {
            libc::posix_fadvise(file.as_raw_fd(), 0, 0, libc::POSIX_FADV_DONTNEED);
        }
    }
    #[cfg(not(target_os = "linux"))]
    let _ = file;
}

/// Have the kernel start writing `file`'s dirty pages to disk, without waiting for it.
pub fn start_writeback(file: &File) {
    #[cfg(target_os = "linux")]
    {
        use std::os::fd::AsRawFd;
        // SAFETY: a hint about an open file descriptor; it reads and writes no memory of ours.
        unsafe {
            libc::sync_file_range(file.as_raw_fd(), 0, 0, libc::SYNC_FILE_RANGE_WRITE);
        }
    }
    #[cfg(not(target_os = "linux"))]
    let _ = file;
}

/// The set-user-ID and set-group-ID bits of a file mode.
pub const SET_ID_BITS: u32 = (libc::S_ISUID | libc::S_ISGID) as u32;

/// Bytes of physical memory, if the system says.
pub fn physical_memory() -> Option<u64> {
    // SAFETY: sysconf reads system constants and has no preconditions.
    let (pages, size) = unsafe {
        (
            libc::sysconf(libc::_SC_PHYS_PAGES),
            libc::sysconf(libc::_SC_PAGESIZE),
        )
    };
    (pages > 0 && size > 0).then(|| pages as u64 * size as u64)
}

/// The text of EPIPE, as I/O errors that kept only their text print it.
pub fn broken_pipe_text() -> String {
    io::Error::from_raw_os_error(libc::EPIPE).to_string()
}

/// Whether standard output is a pipe whose read end is closed (poll reports POLLERR on the
/// write end).
pub fn stdout_reader_gone() -> bool {
    let mut stdout = libc::pollfd {
        fd: libc::STDOUT_FILENO,
        events: 0,
        revents: 0,
    };
    // SAFETY: poll on one valid pollfd, no timeout.
    let polled = unsafe { libc::poll(&mut stdout, 1, 0) };
    polled == 1 && stdout.revents & libc::POLLERR != 0
}

/// End this process by SIGPIPE, as Unix tools end when their reader leaves (the shell sees
/// 141). Returns only if the signal did not end it.
pub fn die_of_sigpipe() {
    // SAFETY: restoring a signal's default action and raising it on this process.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
        libc::raise(libc::SIGPIPE);
    }
}

/// Fix glibc's mmap threshold at `bytes` (it otherwise rises each time a large block is
/// freed). Call before any thread starts.
pub fn fix_mmap_threshold(bytes: i32) {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: mallopt only sets a parameter of the allocator.
    unsafe {
        libc::mallopt(libc::M_MMAP_THRESHOLD, bytes);
    }
    #[cfg(not(all(target_os = "linux", target_env = "gnu")))]
    let _ = bytes;
}

/// Give the memory freed in glibc's arenas back to the system.
pub fn release_freed_memory() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: malloc_trim only returns free memory to the system; it takes no pointer.
    unsafe {
        libc::malloc_trim(0);
    }
}

/// Whether process `pid` exists on this machine (signal 0 sends nothing, it only asks).
pub fn process_runs(pid: u32) -> bool {
    let Ok(pid) = libc::pid_t::try_from(pid) else {
        return false;
    };
    // SAFETY: kill with signal 0 sends nothing; it only reports whether the process exists.
    let found = unsafe { libc::kill(pid, 0) } == 0;
    found || io::Error::last_os_error().raw_os_error() != Some(libc::ESRCH)
}

/// On SIGINT or SIGTERM, run `cleanup`, then die of the signal as before (exit status 130,
/// 143). The signals are blocked here, so call this before any thread starts: every thread
/// inherits the mask, and one thread takes them with sigwait, where `cleanup` may do anything
/// (remove files), unlike in a signal handler.
pub fn on_interrupt(cleanup: fn()) {
    // SAFETY: sigset operations on a local set; pthread_sigmask on this (the only) thread;
    // the thread below only waits, runs `cleanup` and raises the signal on itself.
    unsafe {
        let mut signals: libc::sigset_t = std::mem::zeroed();
        libc::sigemptyset(&mut signals);
        libc::sigaddset(&mut signals, libc::SIGINT);
        libc::sigaddset(&mut signals, libc::SIGTERM);
        libc::pthread_sigmask(libc::SIG_BLOCK, &signals, std::ptr::null_mut());
        std::thread::spawn(move || {
            let mut signal = 0;
            if libc::sigwait(&signals, &mut signal) == 0 {
                cleanup();
                libc::signal(signal, libc::SIG_DFL);
                libc::pthread_sigmask(libc::SIG_UNBLOCK, &signals, std::ptr::null_mut());
                libc::raise(signal);
            }
        });
    }
}
