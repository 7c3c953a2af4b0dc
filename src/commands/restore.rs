//! `klog restore BACKUP`: put a log dir back as it was before a command that wrote into it with
//! `--allow-broker-dir-writes` (see [`crate::durable::backup`]). The backup is read and checked
//! whole first (every record, every blob); then the log dir's lock is taken (a broker holding
//! it refuses the restore) and the records are undone newest first, through the durable layer.

use crate::durable::backup::{self, RestoreReport};
use crate::error::{Error, Result};
use std::path::Path;

pub fn run(backup_dir: &Path) -> Result<RestoreReport> {
    let (log_dir, records) = backup::read_backup(backup_dir)?;
    if !log_dir.is_dir() {
        return Err(Error::layout(&log_dir, "the log dir this backup was made of is not there: nothing to restore"));
    }
    crate::durable::check_temp_names(&log_dir)?;
    // Not kept: a `.lock` the restore had to make goes again, as the dir had none.
    let _lock = crate::replica::DirLock::acquire_to_restore(&log_dir)?;
    backup::restore(backup_dir, &log_dir, &records)
}
