//! `klog restore BACKUP [LOG_DIR]`: put a log dir back as it was before a command that wrote
//! into it with `--allow-broker-dir-writes` (see [`crate::durable::backup`]). The log dir is
//! the one the backup sits beside (`<log dir>.klog-backup-N`), or the one named: never a path
//! read from the backup, which may have been moved, damaged or crafted. The backup is read and
//! verified whole first (every line's checksum, every blob's length and checksum); a dir klog
//! made (a lab) is refused, as no backup is ever made of one; then the log dir's lock is taken
//! (a broker holding it refuses the restore) and the records are undone newest first, through
//! the durable layer.

use crate::durable::backup::{self, RestoreReport};
use crate::error::{Error, Result};
use std::path::Path;

pub fn run(backup_dir: &Path, log_dir: Option<&Path>) -> Result<RestoreReport> {
    let backup = backup::read_backup(backup_dir)?;
    let log_dir = match log_dir {
        Some(d) => d.to_path_buf(),
        None => backup::log_dir_beside(backup_dir).ok_or_else(|| {
            Error::layout(
                backup_dir,
                "is not named <log dir>.klog-backup-N, so the log dir it restores is not beside it: name it \
                 (klog restore BACKUP LOG_DIR)",
            )
        })?,
    };
    if !log_dir.is_dir() {
        return Err(Error::layout(&log_dir, "is not a directory: nothing to restore (name the log dir if it moved)"));
    }
    if crate::replica::made_by_klog(&log_dir) {
        return Err(Error::layout(
            &log_dir,
            "is a dir klog made (its klog-state.json is klog's own): klog never backs one up, so this backup is \
             not of it; nothing restored",
        ));
    }
    crate::durable::check_temp_names(&log_dir)?;
    let _lock = crate::replica::DirLock::acquire_to_restore(&log_dir)?;
    backup::restore(&backup, &log_dir)
}
