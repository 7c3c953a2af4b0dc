//! The only place in klog that makes writes durable: fsync, atomic rename, durable truncate.
//!
//! Kafka's rule for checkpoints (`CheckpointFile`, `Utils.atomicMoveWithFallback`) is followed
//! for every file klog must find whole after a crash: write the whole text to `<file>.tmp`,
//! fsync it, rename it over the target, fsync the directory. Segment data is *not* written
//! through here on append (Kafka does not fsync on append either); it is made durable by
//! [`sync_file`] when a flush is asked for, and the recovery point records how far that went.

use crate::error::{IoContext, Result};
use std::fs::{self, File, OpenOptions};
use std::io::Write;
use std::path::Path;

/// Write `contents` to `path` atomically: tmp file, fsync, rename, fsync of the directory.
pub fn write_atomic(path: &Path, contents: &[u8]) -> Result<()> {
    let mut tmp_name = path.as_os_str().to_owned();
    tmp_name.push(".tmp");
    let tmp = Path::new(&tmp_name);
    {
        let mut file = File::create(tmp).at(tmp, "create")?;
        file.write_all(contents).at(tmp, "write")?;
        file.sync_all().at(tmp, "fsync")?;
    }
    fs::rename(tmp, path).at(path, "rename")?;
    sync_parent_dir(path)
}

/// fsync an open file (data and metadata).
pub fn sync_file(file: &File, path: &Path) -> Result<()> {
    file.sync_all().at(path, "fsync")
}

/// fsync a file by path.
pub fn sync_path(path: &Path) -> Result<()> {
    let file = File::open(path).at(path, "open")?;
    file.sync_all().at(path, "fsync")
}

/// fsync a directory so that names created, renamed or removed in it survive a crash.
pub fn sync_dir(dir: &Path) -> Result<()> {
    let d = File::open(dir).at(dir, "open directory")?;
    d.sync_all().at(dir, "fsync directory")
}

/// fsync the directory holding `path`.
pub fn sync_parent_dir(path: &Path) -> Result<()> {
    match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => sync_dir(p),
        _ => sync_dir(Path::new(".")),
    }
}

/// Create (or open) `path` for appending; a new file's name is made durable at once.
pub fn create_for_append(path: &Path) -> Result<File> {
    let existed = path.exists();
    let file = OpenOptions::new().create(true).append(true).open(path).at(path, "open for append")?;
    if !existed {
        sync_parent_dir(path)?;
    }
    Ok(file)
}

/// Cut `path` to `len` bytes and fsync it.
pub fn truncate_file(path: &Path, len: u64) -> Result<()> {
    let file = OpenOptions::new().write(true).open(path).at(path, "open for truncation")?;
    file.set_len(len).at(path, "truncate")?;
    file.sync_all().at(path, "fsync")
}

/// Remove a file (if present) and make the removal durable.
pub fn remove_file(path: &Path) -> Result<bool> {
    match fs::remove_file(path) {
        Ok(()) => {
            sync_parent_dir(path)?;
            Ok(true)
        }
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(false),
        Err(e) => Err(crate::error::Error::io(path, "remove", e)),
    }
}

/// Create a directory (and parents) and make its name durable.
pub fn create_dir(dir: &Path) -> Result<()> {
    fs::create_dir_all(dir).at(dir, "create directory")?;
    sync_parent_dir(dir)
}
