//! Spreading independent per-item work over the machine's cores, keeping the order.

/// Below this many items a second thread costs more than it saves.
const PARALLEL_FROM: usize = 1_000;

/// `items.into_iter().map(f)`, in order, split across the available cores.
pub fn map<T: Send, R: Send>(items: Vec<T>, f: impl Fn(T) -> R + Sync) -> Vec<R> {
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get()).min(8);
    if threads < 2 || items.len() < PARALLEL_FROM {
        return items.into_iter().map(f).collect();
    }
    let total = items.len();
    let chunk = total.div_ceil(threads);
    let mut chunks = Vec::with_capacity(threads);
    let mut rest = items;
    while rest.len() > chunk {
        let tail = rest.split_off(chunk);
        chunks.push(rest);
        rest = tail;
    }
    chunks.push(rest);
    let f = &f;
    std::thread::scope(|scope| {
        let handles: Vec<_> = chunks
            .into_iter()
            .map(|c| scope.spawn(move || c.into_iter().map(f).collect::<Vec<R>>()))
            .collect();
        let mut out = Vec::with_capacity(total);
        for handle in handles {
            out.extend(handle.join().expect("a worker thread panicked"));
        }
        out
    })
}

#[cfg(test)]
mod tests {
    #[test]
    fn keeps_the_order() {
        let items: Vec<usize> = (0..10_001).collect();
        let doubled = super::map(items, |i| i * 2);
        assert_eq!(doubled, (0..10_001).map(|i| i * 2).collect::<Vec<_>>());
    }
}
