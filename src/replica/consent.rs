//! Consent for writes to a log dir klog did not make. klog writes freely into its own labs
//! (made by `klog create`: their `klog-state.json` says so); a log dir without one is a
//! broker's, and a command that would write into it refuses, changing nothing, unless the user
//! gave `--allow-broker-dir-writes` (`main` calls [`allow_broker_dir_writes`] once). With
//! consent every file the command changes is first saved in a backup beside the dir
//! ([`crate::durable::backup`]), and the `klog-state.json` the command leaves is marked
//! `adopted`, so the next command there needs consent (and makes its backup) again.
//!
//! The gate is checked where a write takes the log dir's lock ([`super::DirLock::acquire`]):
//! every mutating command takes it before it writes, and nothing else writes into a log dir.

use super::state_file::read_state_file;
use crate::error::{Error, Result};
use crate::log::names::KLOG_STATE;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Mutex;

static ALLOWED: AtomicBool = AtomicBool::new(false);
/// The log dirs this process was allowed to write into without having made them.
static ADOPTED: Mutex<Vec<PathBuf>> = Mutex::new(Vec::new());

/// The user gave `--allow-broker-dir-writes`: writes to dirs klog did not make go on, each
/// changed file saved first.
pub fn allow_broker_dir_writes() {
    ALLOWED.store(true, Ordering::Relaxed);
}

/// Whether klog made `log_dir` (a `klog-state.json` not marked adopted). A state file that does
/// not read counts as klog's: the write open that follows refuses it with its position.
pub fn made_by_klog(log_dir: &Path) -> bool {
    let path = log_dir.join(KLOG_STATE);
    if std::fs::symlink_metadata(&path).is_err() {
        return false;
    }
    read_state_file(&path).map_or(true, |f| !f.adopted)
}

/// Refuse a write into a log dir klog did not make, unless allowed; when allowed, every later
/// change under it is backed up first.
pub(super) fn require(log_dir: &Path) -> Result<()> {
    if made_by_klog(log_dir) {
        return Ok(());
    }
    if !ALLOWED.load(Ordering::Relaxed) {
        return Err(Error::NotKlogMade { path: log_dir.to_path_buf(), command: None });
    }
    crate::durable::backup::guard(log_dir);
    let mut adopted = ADOPTED.lock().unwrap_or_else(|e| e.into_inner());
    if !adopted.iter().any(|d| d == log_dir) {
        adopted.push(log_dir.to_path_buf());
    }
    Ok(())
}

/// Whether this process was allowed to write into `log_dir`, which klog did not make: the
/// state file it writes there says `adopted`.
pub(super) fn adopted(log_dir: &Path) -> bool {
    ADOPTED.lock().unwrap_or_else(|e| e.into_inner()).iter().any(|d| d == log_dir)
}
