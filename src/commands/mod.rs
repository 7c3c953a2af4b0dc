//! One module per subcommand: arguments in, plain data out — plus the multi-partition forms
//! that several subcommands share ([`data_dir`]: a whole broker's dir, [`cluster`]: several
//! brokers' dirs). Commands never print; the renderers in [`crate::output`] turn their reports
//! (or event streams) into text or JSON, and [`crate::app`] routes each subcommand to both.

pub mod alter_isr;
pub mod append;
pub mod check;
pub mod cluster;
pub mod create;
pub mod data_dir;
pub mod demo;
pub mod diff;
pub mod draw;
pub mod dump;
pub mod elect;
pub mod explore;
pub mod fetch;
pub mod flush;
pub mod history;
pub mod isr;
pub mod pair;
pub mod recover;
pub mod restore;
pub mod stop;
pub mod stuck_lso;
pub mod summary;
pub mod txn;

use crate::replica::Replica;

/// What a long-running command reports its progress to, as `(done, total)`. The command side
/// owns the trait so that commands never depend on a renderer; `output::progress` shows it.
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
    std::thread::scope(|scope| {
        for _ in 1..threads {
            scope.spawn(work);
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

/// [`role_name`] in a sentence: `it is a follower`, `it is stopped`.
pub fn role_phrase(replica: &Replica) -> String {
    match replica.role() {
        Some(role) => format!("a {}", role.name()),
        None => role_name(replica).to_string(),
    }
}

/// The role as shown to people: a running replica's role, or how it stopped.
pub fn role_name(replica: &Replica) -> &'static str {
    match replica.role() {
        Some(role) => role.name(),
        None if replica.clean_shutdown() => "stopped",
        None => "crashed",
    }
}

/// The leader epoch a replica works in: its volatile epoch when running, else its cache's latest.
pub fn current_leader_epoch(replica: &Replica) -> Option<i32> {
    replica.state().map(|s| s.leader_epoch).filter(|e| *e >= 0).or_else(|| replica.log().epoch_cache().latest_epoch())
}

/// Milliseconds since the Unix epoch, now.
pub fn now_ms() -> i64 {
    std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map(|d| d.as_millis() as i64).unwrap_or(0)
}

/// A crash with or without power loss, as the demo's steps need it.
pub fn crash_step(dir: &std::path::Path, power_loss: bool) -> crate::error::Result<crate::crash::CrashReport> {
    crate::crash::crash(dir, None, &crate::crash::CrashOptions { power_loss, ..Default::default() })
}
