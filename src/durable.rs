//! The only place in klog that changes files: create, append, fsync, atomic rename, durable
//! truncate, remove, create a directory. Every such call is one *step* of the fault seam (the
//! private `fault` module: its docs give the `KLOG_FAULT` syntax and the power-loss model), so
//! a test can kill, fail or power-cut a command at any of them.
//!
//! Kafka's rule for checkpoints (`CheckpointFile`, `Utils.atomicMoveWithFallback`) is followed
//! for every file klog must find whole after a crash: write the whole text to `<file>.tmp`,
//! fsync it, rename it over the target, fsync the directory. Segment data is *not* fsynced on
//! append (Kafka does not fsync on append either); it is made durable by [`sync_file`] /
//! [`sync_path`] when a flush is asked for, and the recovery point records how far that went.
//! Read-only opens and maps are not steps and do not come through here.

pub mod backup;
mod batch;
mod fault;
pub mod journal;
pub mod output;

pub use batch::AtomicBatch;
pub use fault::FAULT_EXIT_CODE;

use crate::error::{Error, IoContext, Result};
use fault::{Go, Op};
use std::fs::{self, File, OpenOptions};
use std::io::{Seek, SeekFrom, Write};
use std::os::unix::fs::OpenOptionsExt;
use std::path::Path;

/// Install the fault seam for this process from a spec such as `trace=/tmp/t,kill@7`; the
/// syntax and the power-loss model are documented in the `fault` module. `main` calls this
/// once, with the hidden `KLOG_FAULT` variable; nothing else does.
pub fn install_faults(spec: &str) -> std::result::Result<(), String> {
    fault::install(spec)
}

/// Flags for every file klog opens to write: never through a symlink (a write must not leave
/// the log dir), never waiting (a FIFO without a reader is `ENXIO` at once, not a hang).
const WRITE_FLAGS: i32 = libc::O_NOFOLLOW | libc::O_NONBLOCK;

/// Refuse an opened file that is not a regular file (a device reached by name).
fn regular(file: File, path: &Path) -> Result<File> {
    let meta = file.metadata().at(path, "stat")?;
    match crate::regular_file::kind_of(&meta) {
        Some(kind) => Err(Error::not_regular(path, kind)),
        None => Ok(file),
    }
}

/// Run one step: the seam may fail it, or end the process before it.
fn step<T>(op: Op, path: &Path, to: Option<&Path>, run: impl FnOnce() -> std::io::Result<T>) -> std::io::Result<T> {
    fault::before(op, path, to)?;
    let out = run()?;
    fault::after(op, path, to);
    Ok(out)
}

/// Run one fsync step, which the seam's `nosync` may model without issuing it.
fn sync_step(op: Op, path: &Path, run: impl FnOnce() -> std::io::Result<()>) -> std::io::Result<()> {
    if fault::before(op, path, None)? != Go::Skip {
        run()?;
    }
    fault::after(op, path, None);
    Ok(())
}

/// Write `bytes` at the current end of `file` (opened for append); one write step. A torn
/// write of the seam writes the first half and ends the process.
fn write_step(file: &mut File, path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    if fault::before(Op::Write, path, None)? == Go::Torn {
        let _ = file.write_all(&bytes[..bytes.len() / 2]);
        fault::die_torn();
    }
    file.write_all(bytes)?;
    fault::after(Op::Write, path, None);
    Ok(())
}

/// Write `contents` to `path` atomically: tmp file, fsync, rename, fsync of the directory.
/// On failure the tmp file is removed (best effort) and `path` is as it was.
pub fn write_atomic(path: &Path, contents: &[u8]) -> Result<()> {
    let mut tmp_name = path.as_os_str().to_owned();
    tmp_name.push(".tmp");
    let tmp = Path::new(&tmp_name);
    let mut file = create_file(tmp)?;
    let written = write_step(&mut file, tmp, contents)
        .at(tmp, "write")
        .and_then(|()| sync_file(&file, tmp))
        .and_then(|()| rename(tmp, path));
    drop(file);
    if let Err(e) = written {
        let _ = fs::remove_file(tmp);
        return Err(e);
    }
    sync_parent_dir(path)
}

/// Rename `from` over `to`; one step. The directory is not fsynced.
pub fn rename(from: &Path, to: &Path) -> Result<()> {
    journal::before_rename(from, to)?;
    step(Op::Rename, from, Some(to), || fs::rename(from, to)).at(to, "rename")
}

/// A file the process is about to create outside these functions (the lock file): a failed
/// command removes it again.
pub fn note_created(path: &Path) -> Result<()> {
    journal::before_grow(path)
}

/// Refuse a directory where a temp name klog writes (`<file>.tmp`) is taken by something that
/// is not a regular file (a directory, a symlink, a FIFO): a command checks this before it
/// changes anything, so it never fails half way at a rename. Reads the directory's names only.
pub fn check_temp_names(dir: &Path) -> Result<()> {
    let entries = match fs::read_dir(dir) {
        Ok(e) => e,
        Err(_) => return Ok(()), // the command's own open reports an unreadable dir
    };
    for entry in entries.flatten() {
        if !entry.file_name().as_encoded_bytes().ends_with(b".tmp") {
            continue;
        }
        let path = entry.path();
        match fs::symlink_metadata(&path) {
            Ok(m) if !m.is_file() => {
                return Err(crate::error::Error::layout(
                    &path,
                    "is not a regular file, and klog writes its temp files under this name: remove it first",
                ))
            }
            _ => {}
        }
    }
    Ok(())
}

/// Create `path` empty (truncating it if present) and open it for writing; the name is not
/// yet durable: fsync the directory before relying on it.
pub fn create_file(path: &Path) -> Result<File> {
    journal::before_replace(path)?;
    let create = || OpenOptions::new().write(true).create(true).truncate(true).custom_flags(WRITE_FLAGS).open(path);
    regular(step(Op::Create, path, None, create).at(path, "create")?, path)
}

/// Append `bytes` to `file`, opened by [`create_for_append`]; not fsynced.
pub fn append(file: &mut File, path: &Path, bytes: &[u8]) -> Result<()> {
    journal::before_grow(path)?;
    write_step(file, path, bytes).at(path, "append")
}

/// Overwrite `bytes` at byte `position` of the existing file `path`, then fsync it.
pub fn write_at(path: &Path, position: u64, bytes: &[u8]) -> Result<()> {
    journal::before_overwrite(path, position, position.saturating_add(bytes.len() as u64))?;
    let file = OpenOptions::new().write(true).custom_flags(WRITE_FLAGS).open(path).at(path, "open for writing")?;
    let mut file = regular(file, path)?;
    file.seek(SeekFrom::Start(position)).at(path, "seek")?;
    write_step(&mut file, path, bytes).at(path, "write")?;
    sync_file(&file, path)
}

/// fsync an open file (data and metadata).
pub fn sync_file(file: &File, path: &Path) -> Result<()> {
    sync_step(Op::Fsync, path, || file.sync_all()).at(path, "fsync")
}

/// fsync a file by path.
pub fn sync_path(path: &Path) -> Result<()> {
    let file = OpenOptions::new().read(true).custom_flags(WRITE_FLAGS).open(path).at(path, "open")?;
    sync_file(&regular(file, path)?, path)
}

/// fsync a directory so that names created, renamed or removed in it survive a crash.
pub fn sync_dir(dir: &Path) -> Result<()> {
    let d = File::open(dir).at(dir, "open directory")?;
    sync_step(Op::FsyncDir, dir, || d.sync_all()).at(dir, "fsync directory")
}

/// fsync the directory holding `path`.
pub fn sync_parent_dir(path: &Path) -> Result<()> {
    match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => sync_dir(p),
        _ => sync_dir(Path::new(".")),
    }
}

/// Create (or open) `path` for appending; a new file's name is made durable at once.
/// Opening an existing file is not a step.
pub fn create_for_append(path: &Path) -> Result<File> {
    let open = || OpenOptions::new().create(true).append(true).custom_flags(WRITE_FLAGS).open(path);
    journal::before_grow(path)?;
    if fs::symlink_metadata(path).is_ok() {
        return regular(open().at(path, "open for append")?, path);
    }
    let file = regular(step(Op::Create, path, None, open).at(path, "create for append")?, path)?;
    sync_parent_dir(path)?;
    Ok(file)
}

/// Cut `path` to `len` bytes and fsync it.
pub fn truncate_file(path: &Path, len: u64) -> Result<()> {
    let file = OpenOptions::new().write(true).custom_flags(WRITE_FLAGS).open(path).at(path, "open for truncation")?;
    let file = regular(file, path)?;
    journal::before_overwrite(path, len, file.metadata().map_or(u64::MAX, |m| m.len()))?;
    step(Op::Truncate, path, None, || file.set_len(len)).at(path, "truncate")?;
    sync_file(&file, path)
}

/// Remove a file (if present) and make the removal durable. Returns whether it was there.
pub fn remove_file(path: &Path) -> Result<bool> {
    journal::before_replace(path)?;
    match step(Op::Remove, path, None, || fs::remove_file(path)) {
        Ok(()) => {
            sync_parent_dir(path)?;
            Ok(true)
        }
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(false),
        Err(e) => Err(crate::error::Error::io(path, "remove", e)),
    }
}

/// Create one directory whose name is not yet durable: for a command that makes many at once
/// and then syncs the file system ([`sync_file_system`]) instead of each parent.
pub fn create_dir_unsynced(dir: &Path) -> Result<()> {
    journal::before_create_dir(dir)?;
    step(Op::CreateDir, dir, None, || fs::create_dir(dir)).at(dir, "create directory")
}

/// Make everything written so far on the file system holding `path` durable, names and
/// contents (`syncfs(2)`): one step in place of an fsync per file and directory, for a command
/// that creates thousands of small files (`create --partitions`).
pub fn sync_file_system(path: &Path) -> Result<()> {
    let d = File::open(path).at(path, "open directory")?;
    sync_step(Op::SyncFs, path, || {
        use std::os::fd::AsRawFd;
        // SAFETY: the fd is open for the life of `d`; syncfs reads nothing from memory.
        if unsafe { libc::syncfs(d.as_raw_fd()) } == 0 {
            Ok(())
        } else {
            Err(std::io::Error::last_os_error())
        }
    })
    .at(path, "sync file system")
}

/// Create a directory (and parents) and make its name durable.
pub fn create_dir(dir: &Path) -> Result<()> {
    journal::before_create_dir(dir)?;
    step(Op::CreateDir, dir, None, || fs::create_dir_all(dir)).at(dir, "create directory")?;
    sync_parent_dir(dir)
}

/// Create the directory `dir` (its parent exists) only if nothing is at the name, and make its
/// name durable: `Ok(false)` when the name was taken, so two processes never share it.
pub fn create_new_dir(dir: &Path) -> Result<bool> {
    journal::before_create_dir(dir)?;
    match step(Op::CreateDir, dir, None, || fs::create_dir(dir)) {
        Ok(()) => {
            sync_parent_dir(dir)?;
            Ok(true)
        }
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => Ok(false),
        Err(e) => Err(Error::io(dir, "create directory", e)),
    }
}

/// Remove a directory and everything under it, durably (a restore removing a directory a
/// command made). Files go through [`remove_file`]; each emptied directory is one remove step.
pub fn remove_tree(dir: &Path) -> Result<()> {
    for entry in fs::read_dir(dir).at(dir, "list directory")? {
        let path = entry.at(dir, "list directory")?.path();
        if fs::symlink_metadata(&path).at(&path, "stat")?.is_dir() {
            remove_tree(&path)?;
        } else {
            remove_file(&path)?;
        }
    }
    journal::before_remove_dir(dir);
    step(Op::Remove, dir, None, || fs::remove_dir(dir)).at(dir, "remove directory")?;
    sync_parent_dir(dir)
}
