//! Spreading independent per-item work over the machine's cores, keeping the order.

use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};

/// Below this many items a second thread costs more than it saves.
const PARALLEL_FROM: usize = 1_000;
/// Chunks per thread: small enough that a thread slowed down (a busy core on a shared
/// machine) leaves its share to the others, large enough to cost nothing to hand out.
const CHUNKS_PER_THREAD: usize = 16;

/// `items.into_iter().map(f)`, in order, split across the available cores. The items are
/// cut into chunks that threads take in turn as they finish the last, so the work
/// balances itself.
pub fn map<T: Send, R: Send>(items: Vec<T>, f: impl Fn(T) -> R + Sync) -> Vec<R> {
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get()).min(8);
    if threads < 2 || items.len() < PARALLEL_FROM {
        return items.into_iter().map(f).collect();
    }
    let total = items.len();
    let size = total.div_ceil(threads * CHUNKS_PER_THREAD);
    let mut chunks = Vec::new();
    let mut items = items.into_iter();
    loop {
        let chunk: Vec<T> = items.by_ref().take(size).collect();
        if chunk.is_empty() {
            break;
        }
        chunks.push(Mutex::new((Some(chunk), None)));
    }
    let next = AtomicUsize::new(0);
    std::thread::scope(|scope| {
        for _ in 0..threads {
            scope.spawn(|| {
                while let Some(chunk) = chunks.get(next.fetch_add(1, Ordering::Relaxed)) {
                    let input =
                        chunk.lock().expect("a chunk lock").0.take().expect("each chunk is taken once");
                    let output: Vec<R> = input.into_iter().map(&f).collect();
                    chunk.lock().expect("a chunk lock").1 = Some(output);
                }
            });
        }
    });
    let mut out = Vec::with_capacity(total);
    for chunk in chunks {
        let (_, output) = chunk.into_inner().expect("a chunk lock");
        out.extend(output.expect("every chunk is done"));
    }
    out
}

#[cfg(test)]
mod tests {
    #[test]
    fn keeps_the_order() {
        let items: Vec<usize> = (0..10_001).collect();
        let doubled = super::map(items, |i| i * 2);
        assert_eq!(doubled, (0..10_001).map(|i| i * 2).collect::<Vec<_>>());
    }

    #[test]
    fn small_inputs_stay_on_one_thread_and_keep_the_order() {
        let items: Vec<String> = (0..10).map(|i| i.to_string()).collect();
        assert_eq!(super::map(items, |s| s.len()), vec![1; 10]);
    }
}
