//! Spreading independent per-item work over the machine's cores, keeping the order: rayon,
//! from a threshold of items up, on as many threads as the cores set allow.

use rayon::prelude::*;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

/// Below this many items a second thread costs more than it saves.
#[doc(hidden)]
pub const PARALLEL_FROM: usize = 1_000;
/// Chunks per thread: small enough that a thread slowed down (a busy core on a shared
/// machine) leaves its share to the others, large enough to cost nothing to hand out.
const CHUNKS_PER_THREAD: usize = 16;
/// The most threads one piece of work is spread over.
const MAX_THREADS: usize = 8;

/// The cores set by [`with_cores`] while it runs; 0 when none is set.
static CORES: AtomicUsize = AtomicUsize::new(0);
/// Held while [`with_cores`] runs, so two callers never set the cores at once.
static SETTING: Mutex<()> = Mutex::new(());

/// The cores work is spread over: the machine's, or those set by [`with_cores`].
pub fn cores() -> usize {
    match CORES.load(Ordering::Relaxed) {
        0 => std::thread::available_parallelism().map_or(1, |n| n.get()),
        set => set,
    }
}

/// Runs `f` as if the machine had `cores` cores: with 1 every piece of work runs on the
/// calling thread, with more the parallel paths run past their thresholds whatever the
/// machine. The output never depends on it; tests compare the two.
#[doc(hidden)]
pub fn with_cores<R>(cores: usize, f: impl FnOnce() -> R) -> R {
    struct Reset<'g>(#[allow(dead_code)] MutexGuard<'g, ()>);
    impl Drop for Reset<'_> {
        fn drop(&mut self) {
            CORES.store(0, Ordering::Relaxed);
        }
    }
    let _reset = Reset(SETTING.lock().unwrap_or_else(PoisonError::into_inner));
    CORES.store(cores.max(1), Ordering::Relaxed);
    f()
}

/// The threads [`map`] spreads `items` items over on `cores` cores.
#[doc(hidden)]
pub fn threads_for(items: usize, cores: usize) -> usize {
    if items < PARALLEL_FROM { 1 } else { cores.clamp(1, MAX_THREADS) }
}

/// The smallest share of the items a thread takes at once, for `items` items over `threads`
/// threads: [`CHUNKS_PER_THREAD`] shares a thread, so that a thread slowed down leaves its
/// share to the others.
fn chunk_size(items: usize, threads: usize) -> usize {
    items.div_ceil(threads * CHUNKS_PER_THREAD)
}

/// The rayon pool of `threads` threads, made once per count and kept.
fn pool(threads: usize) -> Arc<rayon::ThreadPool> {
    static POOLS: Mutex<Vec<(usize, Arc<rayon::ThreadPool>)>> = Mutex::new(Vec::new());
    let mut pools = POOLS.lock().unwrap_or_else(PoisonError::into_inner);
    if let Some((_, pool)) = pools.iter().find(|(n, _)| *n == threads) {
        return Arc::clone(pool);
    }
    let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().expect("a thread pool");
    let pool = Arc::new(pool);
    pools.push((threads, Arc::clone(&pool)));
    pool
}

/// `items.into_iter().map(f)`, in order, split across the available cores by rayon, whose
/// threads steal shares from each other as they finish, so the work balances itself.
pub fn map<T: Send, R: Send>(items: Vec<T>, f: impl Fn(T) -> R + Sync) -> Vec<R> {
    let threads = threads_for(items.len(), cores());
    if threads == 1 {
        return items.into_iter().map(f).collect();
    }
    let min = chunk_size(items.len(), threads);
    let f = &f;
    pool(threads).install(|| items.into_par_iter().with_min_len(min).map(f).collect())
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::thread::{self, ThreadId};

    #[test]
    fn the_threads_grow_with_the_items_from_the_threshold_up_to_the_bound() {
        assert_eq!(threads_for(0, 8), 1);
        assert_eq!(threads_for(PARALLEL_FROM - 1, 8), 1);
        assert_eq!(threads_for(PARALLEL_FROM, 8), 8);
        assert_eq!(threads_for(PARALLEL_FROM, 3), 3);
        assert_eq!(threads_for(PARALLEL_FROM, 1), 1);
        assert_eq!(threads_for(PARALLEL_FROM, MAX_THREADS + 5), MAX_THREADS);
    }

    #[test]
    fn each_thread_takes_its_share_in_many_chunks() {
        assert_eq!(chunk_size(16_000, 2), 500);
        assert_eq!(chunk_size(16_001, 2), 501, "the last chunk is the shorter");
        assert_eq!(chunk_size(PARALLEL_FROM, MAX_THREADS), 8);
    }

    #[test]
    fn the_cores_set_hold_while_they_are_set() {
        let machine = std::thread::available_parallelism().map_or(1, |n| n.get());
        assert_eq!(with_cores(3, cores), 3);
        assert_eq!(with_cores(0, cores), 1);
        // None set (and no other test setting them): the machine's.
        let _none_set = SETTING.lock().unwrap_or_else(PoisonError::into_inner);
        assert_eq!(cores(), machine);
    }

    /// `map` over `n` numbers on `cores` cores: the results and the threads `f` ran on.
    fn mapped(n: usize, cores: usize) -> (Vec<usize>, Vec<ThreadId>) {
        let items: Vec<usize> = (0..n).collect();
        let pairs = with_cores(cores, || map(items, |i| (i * 2 + 1, thread::current().id())));
        pairs.into_iter().unzip()
    }

    #[test]
    fn below_the_threshold_all_runs_on_the_calling_thread() {
        for cores in [1, 2, 8] {
            let (out, threads) = mapped(PARALLEL_FROM - 1, cores);
            assert_eq!(out, (0..PARALLEL_FROM - 1).map(|i| i * 2 + 1).collect::<Vec<_>>());
            assert!(threads.iter().all(|&t| t == thread::current().id()), "{cores} cores");
        }
    }

    #[test]
    fn from_the_threshold_on_the_work_leaves_the_calling_thread_and_keeps_the_order() {
        for (n, cores) in [(PARALLEL_FROM, 2), (PARALLEL_FROM, 3), (PARALLEL_FROM + 1, 8), (10_001, 5)] {
            let (out, threads) = mapped(n, cores);
            assert_eq!(out, (0..n).map(|i| i * 2 + 1).collect::<Vec<_>>(), "{n} items on {cores} cores");
            assert!(threads.iter().all(|&t| t != thread::current().id()), "{n} items on {cores} cores");
        }
        let (_, threads) = mapped(PARALLEL_FROM, 1);
        assert!(threads.iter().all(|&t| t == thread::current().id()), "one core: no other thread");
    }
}
