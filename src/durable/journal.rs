//! The undo journal under [`crate::durable`]: what each durable step of this process changed,
//! so that a command that fails puts the tree back as it found it ("a failed command changes
//! nothing").
//!
//! `main` calls [`begin`] before a command runs; every durable function records, before it
//! changes a path for the first time, what the path held: nothing (a file or directory this
//! process creates), a file's length (an append is undone by cutting back to it), or the bytes
//! an operation destroys (a whole small file before it is replaced or removed, the tail a
//! truncation cuts, the range an overwrite covers). When the command fails, `main` calls
//! [`rollback`], which undoes the records newest first; when it succeeds, [`finish`] drops them.
//!
//! Bounds: a file up to [`SNAPSHOT_BYTES_MAX`] is saved whole the first time something would
//! destroy its bytes; a larger one has only the bytes an operation destroys saved; the journal
//! holds at most [`JOURNAL_BYTES_MAX`] in all. Past that (or when a large file is removed or
//! renamed over) the journal says so at rollback instead of restoring what it could not keep.
//! Directories made by this process are removed with what they hold; directories that existed
//! are never removed. The journal is not a crash log: a kill leaves the tree as the kill found
//! it, and the recovery of Kafka's files is what repairs that. Rollback runs after the command
//! has let go of its lock, but while the lock is still held: a [`crate::replica::DirLock`]
//! dropped while the journal records hands its file here ([`hold_lock`]), and [`finish`] or
//! [`rollback`] closes it last. Without [`begin`] (unit tests, library use), nothing is
//! recorded and a lock is released when dropped.

use std::collections::{HashMap, HashSet};
use std::fs::{self, OpenOptions};
use std::io::{Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Mutex;

/// A file at most this large is saved whole before its bytes are first destroyed.
pub const SNAPSHOT_BYTES_MAX: u64 = 16 << 20;
/// The most bytes the journal keeps in memory in all.
pub const JOURNAL_BYTES_MAX: u64 = 256 << 20;

/// What a path held before this process first changed it.
#[derive(Debug)]
enum Before {
    /// Nothing: the process made it (a file, or a directory and everything under it).
    Absent,
    /// A regular file of `len` bytes, of which `saved` holds ranges (position, original bytes),
    /// oldest first; a whole-file snapshot is the range at position 0 of `len` bytes.
    File { len: u64, saved: Vec<(u64, Vec<u8>)>, whole: bool },
    /// This path was renamed to the second: undone by renaming it back.
    RenamedTo(PathBuf),
    /// Something the journal cannot put back (a large file removed, the budget spent).
    Lost(String),
    /// An empty directory that existed and was removed: undone by making it again.
    Dir,
}

#[derive(Default)]
struct Journal {
    records: Vec<(PathBuf, Before)>,
    seen: HashSet<PathBuf>,
    /// The index of each path's `File` record (a hashed lookup: a command touching 50,000
    /// paths, such as `create --partitions 10000`, must not scan the records per path).
    file_records: HashMap<PathBuf, usize>,
    bytes: u64,
}

static ACTIVE: AtomicBool = AtomicBool::new(false);
static JOURNAL: Mutex<Option<Journal>> = Mutex::new(None);
/// Log dir locks the command has let go of, still held: closing a `.lock` releases its POSIX
/// lock, and a rollback's writes must still run under it.
static HELD_LOCKS: Mutex<Vec<fs::File>> = Mutex::new(Vec::new());

/// A log dir lock's file, which the command is done with: while the journal records, it stays
/// open (the lock held) until [`finish`] or [`rollback`] has run; otherwise it closes now.
pub(crate) fn hold_lock(file: fs::File) {
    if ACTIVE.load(Ordering::Relaxed) {
        HELD_LOCKS.lock().unwrap_or_else(|e| e.into_inner()).push(file);
    }
}

/// The command's last write is done: release the locks it let go of.
fn release_held_locks() {
    HELD_LOCKS.lock().unwrap_or_else(|e| e.into_inner()).clear();
}

/// Start recording (once per process, before the command runs).
pub fn begin() {
    *JOURNAL.lock().unwrap_or_else(|e| e.into_inner()) = Some(Journal::default());
    ACTIVE.store(true, Ordering::Relaxed);
}

/// The command succeeded: forget the records.
pub fn finish() {
    ACTIVE.store(false, Ordering::Relaxed);
    *JOURNAL.lock().unwrap_or_else(|e| e.into_inner()) = None;
    release_held_locks();
}

/// Run `f` as one command's transaction: the undo journal records what each durable step
/// changes and, when `f` fails (a broken pipe is not a failure), puts it back. Returns `f`'s
/// result and what could not be put back, for the caller to warn of.
pub fn transaction<T>(f: impl FnOnce() -> crate::error::Result<T>) -> (crate::error::Result<T>, Vec<String>) {
    begin();
    let result = f();
    let failures = match &result {
        Err(e) if !e.is_broken_pipe() => rollback(),
        _ => {
            finish();
            Vec::new()
        }
    };
    (result, failures)
}

/// The command failed: undo every recorded change, newest first. Returns what could not be
/// undone, one line each (path first).
pub fn rollback() -> Vec<String> {
    ACTIVE.store(false, Ordering::Relaxed);
    let Some(journal) = JOURNAL.lock().unwrap_or_else(|e| e.into_inner()).take() else {
        release_held_locks();
        return Vec::new();
    };
    let mut failures = Vec::new();
    let mut dirs = Vec::new();
    for (path, before) in journal.records.into_iter().rev() {
        if let Err(why) = undo(&path, &before) {
            failures.push(format!("{}: could not undo the change: {why}", path.display()));
        }
        if let Some(parent) = path.parent() {
            dirs.push(if parent.as_os_str().is_empty() { PathBuf::from(".") } else { parent.to_path_buf() });
        }
    }
    dirs.sort();
    dirs.dedup();
    for dir in dirs {
        if let Ok(d) = fs::File::open(&dir) {
            let _ = d.sync_all();
        }
    }
    release_held_locks();
    failures
}

fn undo(path: &Path, before: &Before) -> Result<(), String> {
    match before {
        Before::Absent => match fs::symlink_metadata(path) {
            Err(_) => Ok(()),
            Ok(m) if m.is_dir() => fs::remove_dir_all(path).map_err(|e| e.to_string()),
            Ok(_) => fs::remove_file(path).map_err(|e| e.to_string()),
        },
        Before::File { len, saved, whole } => {
            if !whole && !path.is_file() {
                return Err("the file is gone and was too large to keep".into());
            }
            let mut file =
                OpenOptions::new().write(true).create(*whole).truncate(false).open(path).map_err(|e| e.to_string())?;
            file.set_len(*len).map_err(|e| e.to_string())?;
            // Newest first, so the oldest (original) bytes of a range saved twice win.
            for (position, bytes) in saved.iter().rev() {
                file.seek(SeekFrom::Start(*position)).map_err(|e| e.to_string())?;
                file.write_all(bytes).map_err(|e| e.to_string())?;
            }
            file.sync_all().map_err(|e| e.to_string())
        }
        Before::RenamedTo(to) => match fs::symlink_metadata(to) {
            Ok(_) => fs::rename(to, path).map_err(|e| e.to_string()),
            Err(_) => Ok(()),
        },
        Before::Lost(why) => Err(why.clone()),
        Before::Dir => match fs::symlink_metadata(path) {
            Ok(_) => Ok(()),
            Err(_) => fs::create_dir(path).map_err(|e| e.to_string()),
        },
    }
}

fn with<T>(f: impl FnOnce(&mut Journal) -> T) -> Option<T> {
    if !ACTIVE.load(Ordering::Relaxed) {
        return None;
    }
    let mut guard = JOURNAL.lock().unwrap_or_else(|e| e.into_inner());
    guard.as_mut().map(f)
}

impl Journal {
    /// Record what `path` holds now, the first time it is touched. Returns the index of its
    /// record when the path is an existing regular file (the only kind later calls add to).
    fn touch(&mut self, path: &Path) -> Option<usize> {
        if self.seen.insert(path.to_path_buf()) {
            let before = match fs::symlink_metadata(path) {
                Err(_) => Before::Absent,
                Ok(m) if m.is_file() => Before::File { len: m.len(), saved: Vec::new(), whole: false },
                Ok(m) if m.is_dir() => return None,
                Ok(_) => Before::Lost("not a regular file before the command".into()),
            };
            if matches!(before, Before::File { .. }) {
                self.file_records.insert(path.to_path_buf(), self.records.len());
            }
            self.records.push((path.to_path_buf(), before));
        }
        // Only a first touch pushes a `File` record, so a path has at most one.
        self.file_records.get(path).copied().filter(|i| matches!(self.records[*i].1, Before::File { .. }))
    }

    /// Keep bytes `[from, to)` of the original file (as far as the file still has them).
    fn save(&mut self, index: usize, path: &Path, from: u64, to: u64) {
        let (path_len, whole) = match &self.records[index].1 {
            Before::File { len, whole, .. } => (*len, *whole),
            _ => return,
        };
        if whole {
            return;
        }
        // A file small enough is kept whole, once: every later change is covered by it.
        let (from, to, make_whole) =
            if path_len <= SNAPSHOT_BYTES_MAX { (0, path_len, true) } else { (from, to.min(path_len), false) };
        if from >= to && !make_whole {
            return;
        }
        if self.bytes + (to - from) > JOURNAL_BYTES_MAX {
            self.records[index].1 =
                Before::Lost(format!("more than {JOURNAL_BYTES_MAX} bytes would have to be kept to undo it"));
            return;
        }
        let read = || -> std::io::Result<Vec<u8>> {
            let mut file = fs::File::open(path)?;
            file.seek(SeekFrom::Start(from))?;
            let mut bytes = Vec::new();
            file.take(to - from).read_to_end(&mut bytes)?;
            Ok(bytes)
        };
        match read() {
            Ok(bytes) => {
                self.bytes += bytes.len() as u64;
                if let Before::File { saved, whole, .. } = &mut self.records[index].1 {
                    saved.push((from, bytes));
                    *whole = make_whole;
                }
            }
            Err(e) => self.records[index].1 = Before::Lost(format!("could not read it to keep it: {e}")),
        }
    }

    /// The whole file is about to be replaced or removed.
    fn before_replace(&mut self, path: &Path) {
        if let Some(i) = self.touch(path) {
            self.save(i, path, 0, u64::MAX);
            if let Before::File { whole: false, .. } = self.records[i].1 {
                self.records[i].1 = Before::Lost("a file too large to keep was replaced or removed".into());
            }
        }
    }
}

/// `path` is about to be created, appended to, or made a directory: remember what it held.
/// Fails (and the change must not run) when a guarded log dir's backup cannot save it.
pub(crate) fn before_grow(path: &Path) -> crate::error::Result<()> {
    super::backup::before_grow(path)?;
    with(|j| {
        j.touch(path);
    });
    Ok(())
}

/// `path` (a file) is about to be replaced (created over, renamed over) or removed.
pub(crate) fn before_replace(path: &Path) -> crate::error::Result<()> {
    super::backup::before_replace(path)?;
    with(|j| j.before_replace(path));
    Ok(())
}

/// `from` is about to be renamed over `to`.
pub(crate) fn before_rename(from: &Path, to: &Path) -> crate::error::Result<()> {
    super::backup::before_rename(from, to)?;
    with(|j| {
        j.touch(from);
        j.before_replace(to);
        j.records.push((from.to_path_buf(), Before::RenamedTo(to.to_path_buf())));
    });
    Ok(())
}

/// Bytes `[from, to)` of `path` are about to be overwritten or cut.
pub(crate) fn before_overwrite(path: &Path, from: u64, to: u64) -> crate::error::Result<()> {
    super::backup::before_overwrite(path, from, to)?;
    with(|j| {
        if let Some(i) = j.touch(path) {
            j.save(i, path, from, to);
        }
    });
    Ok(())
}

/// The empty directory `dir` is about to be removed (a restore removing what a command made).
pub(crate) fn before_remove_dir(dir: &Path) {
    with(|j| {
        if j.seen.insert(dir.to_path_buf()) {
            j.records.push((dir.to_path_buf(), Before::Dir));
        }
    });
}

/// `dir` and any missing parents are about to be made: remember the topmost missing one.
pub(crate) fn before_create_dir(dir: &Path) -> crate::error::Result<()> {
    super::backup::before_create_dir(dir)?;
    with(|j| {
        let mut topmost = None;
        let mut d = Some(dir);
        while let Some(p) = d.filter(|p| !p.as_os_str().is_empty()) {
            if fs::symlink_metadata(p).is_ok() {
                break;
            }
            topmost = Some(p);
            d = p.parent();
        }
        if let Some(p) = topmost {
            j.touch(p);
        }
    });
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn journal_in(f: impl FnOnce(&mut Journal)) -> Vec<String> {
        let mut j = Journal::default();
        f(&mut j);
        let mut failures = Vec::new();
        for (path, before) in j.records.into_iter().rev() {
            if let Err(e) = undo(&path, &before) {
                failures.push(e);
            }
        }
        failures
    }

    #[test]
    fn undo_removes_what_was_made_and_restores_what_was_changed() {
        let dir = tempfile::tempdir().unwrap();
        let (a, b, c, d) = (dir.path().join("a"), dir.path().join("b"), dir.path().join("c"), dir.path().join("d/e"));
        fs::write(&a, b"0123456789").unwrap();
        fs::write(&b, b"original").unwrap();
        let failures = journal_in(|j| {
            j.touch(&a);
            fs::OpenOptions::new().append(true).open(&a).unwrap().write_all(b"appended").unwrap();
            let i = j.touch(&a).unwrap();
            j.save(i, &a, 4, 18);
            fs::OpenOptions::new().write(true).open(&a).unwrap().set_len(4).unwrap();
            j.before_replace(&b);
            fs::write(&b, b"new").unwrap();
            j.touch(&c);
            fs::write(&c, b"made").unwrap();
            j.touch(&dir.path().join("d"));
            fs::create_dir_all(&d).unwrap();
        });
        assert!(failures.is_empty(), "{failures:?}");
        assert_eq!(fs::read(&a).unwrap(), b"0123456789");
        assert_eq!(fs::read(&b).unwrap(), b"original");
        assert!(!c.exists());
        assert!(!dir.path().join("d").exists());
    }
}
