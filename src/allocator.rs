//! The memory allocator the binaries use: mimalloc, set to return freed memory after a
//! tenth of a second and to commit its arenas lazily.
//!
//! The reader builds millions of small values on two threads, and glibc's allocator spent
//! about a seventh of a large run in `malloc` and `free` and kept ~48 MB of per-thread
//! arenas resident. mimalloc is faster at this; left at its defaults it keeps freed pages
//! for a second and commits its arenas eagerly, which together cost more resident memory than
//! glibc. Returning freed pages at once costs the other way: a page freed by one phase and
//! wanted by the next is given back and faulted in again, up to a quarter of a run spent in the
//! kernel. A tenth of a second keeps the pages one phase hands the next (figures in
//! docs/performance.md).

pub use mimalloc::MiMalloc as Allocator;

/// mimalloc v3's option numbers (`mi_option_e` in its `mimalloc.h`): the Rust bindings do
/// not name them for v3. `Cargo.toml` pins the exact version these numbers were read from;
/// a test checks that they still hold the defaults its `options.c` sets.
const ARENA_EAGER_COMMIT: libmimalloc_sys::mi_option_t = 4;
const PURGE_DELAY: libmimalloc_sys::mi_option_t = 15;

/// How long freed pages stay before they go back to the system, in milliseconds.
const PURGE_AFTER_MS: std::ffi::c_long = 100;

/// Sets the allocator's options; call first thing in `main`. The arenas' commit is also
/// set where mimalloc's C sources are built (`.cargo/config.toml`): the first arena is
/// made before `main` runs.
pub fn configure() {
    // SAFETY: plain setters of the allocator's global options, valid at any time.
    unsafe {
        libmimalloc_sys::mi_option_set(ARENA_EAGER_COMMIT, 0);
        libmimalloc_sys::mi_option_set(PURGE_DELAY, PURGE_AFTER_MS);
    }
}

/// Returns the pages freed so far to the system at once, without waiting out the purge
/// delay: called where a phase has just freed its working sets and the next makes large
/// new ones (a large run's statuses, its stderr text), so that both are never resident
/// together. It costs a walk of the allocator's pages, a few milliseconds.
pub fn release_freed() {
    // SAFETY: asks mimalloc to collect its free pages; valid at any time, from any thread.
    unsafe { libmimalloc_sys::mi_collect(true) };
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_option_numbers_hold_the_expected_defaults() {
        // options.c sets purge_delay to 1000 (ms); arena_eager_commit is 2 unless built with
        // MI_DEFAULT_ARENA_EAGER_COMMIT=0, as .cargo/config.toml does. A renumbered enum
        // would show other values here, and configure() would set the wrong options.
        // SAFETY: plain getters of the allocator's global options.
        let (eager, purge) = unsafe {
            (libmimalloc_sys::mi_option_get(ARENA_EAGER_COMMIT), libmimalloc_sys::mi_option_get(PURGE_DELAY))
        };
        assert_eq!(purge, 1000, "option {PURGE_DELAY} is not purge_delay in this mimalloc");
        assert_eq!(eager, 0, "mimalloc was built without .cargo/config.toml's CFLAGS");
    }
}
