//! One module per subcommand: arguments in, plain data out. Commands never print; the
//! renderers in [`crate::output`] turn their reports (or event streams) into text or JSON.

pub mod append;
pub mod check;
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
pub mod recover;
pub mod stop;

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
