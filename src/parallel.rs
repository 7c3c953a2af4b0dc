//! Work over many items on every core, and the progress it reports: [`parallel_map`] runs a
//! function over a data dir's partitions (`check`, `diff`, `recover`, `cluster`, `txn` on a
//! whole log dir); [`ProgressSink`] is where long work reports `(done, total)`, so that the
//! core never depends on a renderer (`output::progress` shows it). Beside
//! [`crate::work_share`], which shares one stream of items between two threads in order.
//! Never prints.

/// What a long-running command reports its progress to, as `(done, total)`. The core owns
/// the trait so that it never depends on a renderer; `output::progress` shows it.
pub trait ProgressSink {
    fn update(&mut self, done: u64, total: u64);
}

/// Reports nowhere (library callers, pipes).
pub struct NoProgress;

impl ProgressSink for NoProgress {
    fn update(&mut self, _: u64, _: u64) {}
}

/// Run `f` over `items` on one thread per core, results in the items' order. The calling
/// thread is one of the workers and reports `(done, total)` items to `progress` as it goes.
/// Memory: one result per item, and whatever one `f` call holds per thread.
pub fn parallel_map<T: Sync, R: Send>(
    items: &[T],
    f: impl Fn(&T) -> R + Sync,
    progress: &mut dyn ProgressSink,
) -> Vec<R> {
    use std::sync::atomic::{AtomicUsize, Ordering};
    let threads = std::thread::available_parallelism().map_or(2, |n| n.get()).min(items.len()).max(1);
    let (next, done) = (AtomicUsize::new(0), AtomicUsize::new(0));
    let slots: Vec<std::sync::Mutex<Option<R>>> = items.iter().map(|_| std::sync::Mutex::new(None)).collect();
    let work = || loop {
        let i = next.fetch_add(1, Ordering::Relaxed);
        let Some(item) = items.get(i) else { break };
        let r = f(item);
        *slots[i].lock().unwrap_or_else(|e| e.into_inner()) = Some(r);
        done.fetch_add(1, Ordering::Relaxed);
    };
    // The workers' maps are the command's: a file cut under one is the command's error.
    let watch = crate::map_guard::current();
    std::thread::scope(|scope| {
        for _ in 1..threads {
            scope.spawn(|| crate::map_guard::within(watch, work));
        }
        loop {
            let i = next.fetch_add(1, Ordering::Relaxed);
            let Some(item) = items.get(i) else { break };
            let r = f(item);
            *slots[i].lock().unwrap_or_else(|e| e.into_inner()) = Some(r);
            let finished = done.fetch_add(1, Ordering::Relaxed) + 1;
            progress.update(finished as u64, items.len() as u64);
        }
    });
    progress.update(items.len() as u64, items.len() as u64);
    slots.into_iter().map(|s| s.into_inner().unwrap_or_else(|e| e.into_inner()).expect("every item ran")).collect()
}
