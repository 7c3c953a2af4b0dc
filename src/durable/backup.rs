//! The backup under [`crate::durable`]: before a command changes a file of a log dir klog did
//! not make (a broker's dir, written only with the user's consent: `crate::replica`'s consent
//! gate calls [`guard`]), what the change destroys is saved, durably, in a backup dir beside the
//! log dir, so that `klog restore BACKUP` puts every byte and every name back.
//!
//! It is the same seam as the undo journal ([`super::journal`]): every durable step reports
//! the path it is about to change, so no command lists its files. What is saved mirrors the
//! journal's records, written ahead of the change and never bounded:
//! - a path the command creates (a file, or a directory and what it holds): `absent`, undone by
//!   removing it;
//! - an existing file, the first time it is touched: `file` with its length, undone by cutting
//!   (or growing) it back to that length; and before bytes of it are overwritten, cut, or the
//!   whole file replaced or removed: `bytes`, the original bytes at a position, in a blob file;
//! - a rename: `renamed`, undone by renaming back (so a segment renamed whole is not copied).
//!
//! The backup dir is `<log dir>.klog-backup-<N>` (the smallest free N from 1), never inside the
//! log dir. It holds `manifest` (JSON lines, the first naming the log dir; each record appended
//! and fsynced before the change it covers) and `blobs/`. Its own files go through the durable
//! functions (so the fault seam counts them, and a failed command's rollback removes the backup
//! with the rest of what the command made); the backup hooks ignore them. A backup that fails
//! to save refuses the change it covers. Restore undoes the records newest first, as the journal
//! does, through the durable functions.

use super::{append, create_dir, create_for_append, remove_file, rename, sync_file, truncate_file, write_atomic};
use crate::error::{Error, IoContext, Result};
use serde::{Deserialize, Serialize};
use std::cell::Cell;
use std::collections::HashMap;
use std::fs::{self, File};
use std::io::{Read, Seek, SeekFrom};
use std::path::{Component, Path, PathBuf};
use std::sync::Mutex;

/// The backup manifest's name inside a backup dir.
pub const MANIFEST: &str = "manifest";
/// The suffix of a backup dir's name, before its counter.
pub const BACKUP_SUFFIX: &str = ".klog-backup-";

/// One line of the manifest.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Eq)]
#[serde(tag = "op", rename_all = "lowercase")]
enum Record {
    /// The first line: which log dir this backs up (absolute) and the format version.
    Backup { version: u32, log_dir: String },
    /// `path` did not exist: the command made it.
    Absent { path: String },
    /// `path` was a regular file of `len` bytes.
    File { path: String, len: u64 },
    /// The bytes at `position` of `path` before a change, kept in `blob`.
    Bytes { path: String, position: u64, blob: String },
    /// `path` was renamed to `to`.
    Renamed { path: String, to: String },
}

/// One log dir whose changes are saved, and its backup once the first change made it.
struct Guard {
    /// The log dir as an absolute, lexically normal path (what touched paths are matched with).
    log_dir: PathBuf,
    backup: Option<Open>,
    /// Per relative path touched: whether it is a file whose original bytes are saved whole.
    seen: HashMap<PathBuf, Seen>,
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Seen {
    /// Created by the command, or renamed from: nothing more to save.
    Done,
    /// An existing file of this original length; `whole` once all of it is saved.
    File { len: u64, whole: bool },
}

struct Open {
    dir: PathBuf,
    manifest: File,
    blob_count: u64,
}

static GUARDS: Mutex<Vec<Guard>> = Mutex::new(Vec::new());

thread_local! {
    /// Set while the backup writes its own files: their durable steps are not backed up.
    static WRITING: Cell<bool> = const { Cell::new(false) };
}

/// Save every later change under `log_dir` first (idempotent).
pub fn guard(log_dir: &Path) {
    let log_dir = absolute(log_dir);
    let mut guards = GUARDS.lock().unwrap_or_else(|e| e.into_inner());
    if !guards.iter().any(|g| g.log_dir == log_dir) {
        guards.push(Guard { log_dir, backup: None, seen: HashMap::new() });
    }
}

/// The backups this process made: (log dir, backup dir), in the order they were made.
pub fn made() -> Vec<(PathBuf, PathBuf)> {
    let guards = GUARDS.lock().unwrap_or_else(|e| e.into_inner());
    guards.iter().filter_map(|g| g.backup.as_ref().map(|b| (g.log_dir.clone(), b.dir.clone()))).collect()
}

/// `path` made absolute (against the working dir) and lexically normal (`.` and `..` folded).
fn absolute(path: &Path) -> PathBuf {
    let joined = if path.is_absolute() {
        path.to_path_buf()
    } else {
        std::env::current_dir().map(|d| d.join(path)).unwrap_or_else(|_| path.to_path_buf())
    };
    let mut out = PathBuf::new();
    for c in joined.components() {
        match c {
            Component::CurDir => {}
            Component::ParentDir => {
                out.pop();
            }
            c => out.push(c),
        }
    }
    out
}

/// Run `f` on the guard holding `path` with the path relative to its log dir, unless the
/// backup itself is writing. A path under no guard is not backed up.
fn with_guard(path: &Path, f: impl FnOnce(&mut Guard, PathBuf) -> Result<()>) -> Result<()> {
    if WRITING.with(Cell::get) {
        return Ok(());
    }
    let mut guards = GUARDS.lock().unwrap_or_else(|e| e.into_inner());
    if guards.is_empty() {
        return Ok(());
    }
    let abs = absolute(path);
    let Some(guard) = guards.iter_mut().find(|g| abs.starts_with(&g.log_dir) && abs != g.log_dir) else {
        return Ok(());
    };
    let relative = abs.strip_prefix(&guard.log_dir).expect("under the log dir").to_path_buf();
    WRITING.with(|w| w.set(true));
    let out = f(guard, relative);
    WRITING.with(|w| w.set(false));
    out
}

fn name_of(path: &Path, relative: &Path) -> Result<String> {
    relative.to_str().map(str::to_string).ok_or_else(|| {
        Error::layout(path, "has a name that is not UTF-8: klog cannot save it in a backup, and changes nothing")
    })
}

impl Guard {
    /// Open the backup (on the first change), and append `record`, fsynced, before the change.
    fn write(&mut self, record: &Record) -> Result<()> {
        if self.backup.is_none() {
            self.backup = Some(self.create()?);
        }
        let open = self.backup.as_mut().expect("opened");
        let path = open.dir.join(MANIFEST);
        let mut line = serde_json::to_string(record).expect("a record serializes");
        line.push('\n');
        append(&mut open.manifest, &path, line.as_bytes())?;
        sync_file(&open.manifest, &path)
    }

    fn create(&self) -> Result<Open> {
        let mut n = 1u64;
        let dir = loop {
            let mut name = self.log_dir.as_os_str().to_owned();
            name.push(format!("{BACKUP_SUFFIX}{n}"));
            let candidate = PathBuf::from(name);
            if fs::symlink_metadata(&candidate).is_err() {
                break candidate;
            }
            n += 1;
        };
        create_dir(&dir)?;
        create_dir(&dir.join("blobs"))?;
        let path = dir.join(MANIFEST);
        let mut manifest = create_for_append(&path)?;
        let log_dir = self.log_dir.to_str().ok_or_else(|| {
            Error::layout(&self.log_dir, "has a name that is not UTF-8: klog cannot back it up, and changes nothing")
        })?;
        let mut line = serde_json::to_string(&Record::Backup { version: 1, log_dir: log_dir.to_string() })
            .expect("a record serializes");
        line.push('\n');
        append(&mut manifest, &path, line.as_bytes())?;
        sync_file(&manifest, &path)?;
        Ok(Open { dir, manifest, blob_count: 0 })
    }

    /// The first touch of `relative`: what it is now. Returns its state after.
    fn touch(&mut self, path: &Path, relative: &Path) -> Result<Seen> {
        if let Some(seen) = self.seen.get(relative) {
            return Ok(*seen);
        }
        let name = name_of(path, relative)?;
        let seen = match fs::symlink_metadata(path) {
            Err(_) => {
                self.write(&Record::Absent { path: name })?;
                Seen::Done
            }
            Ok(m) if m.is_file() => {
                self.write(&Record::File { path: name, len: m.len() })?;
                Seen::File { len: m.len(), whole: false }
            }
            // An existing directory is never removed; klog changes only names inside it.
            Ok(m) if m.is_dir() => Seen::Done,
            Ok(_) => {
                return Err(Error::layout(
                    path,
                    "is not a regular file: klog cannot save it in a backup, and changes nothing",
                ))
            }
        };
        self.seen.insert(relative.to_path_buf(), seen);
        Ok(seen)
    }

    /// Save bytes `[from, to)` of the file as they are now (the whole file when `whole`).
    fn save(&mut self, path: &Path, relative: &Path, from: u64, to: u64, whole: bool) -> Result<()> {
        let Seen::File { len, whole: saved_whole } = self.touch(path, relative)? else { return Ok(()) };
        if saved_whole {
            return Ok(());
        }
        let size = fs::symlink_metadata(path).map(|m| m.len()).unwrap_or(0);
        let (from, to) = if whole { (0, size) } else { (from.min(size), to.min(size)) };
        if from < to {
            let mut bytes = Vec::new();
            let mut file = File::open(path).at(path, "open to back up")?;
            file.seek(SeekFrom::Start(from)).at(path, "seek to back up")?;
            file.take(to - from).read_to_end(&mut bytes).at(path, "read to back up")?;
            // The file's first-touch record opened the backup.
            let open = self.backup.as_mut().expect("the backup is open");
            open.blob_count += 1;
            let blob = format!("blobs/{:08}", open.blob_count);
            write_atomic(&open.dir.join(&blob), &bytes)?;
            self.write(&Record::Bytes { path: name_of(path, relative)?, position: from, blob })?;
        }
        if whole {
            self.seen.insert(relative.to_path_buf(), Seen::File { len, whole: true });
        }
        Ok(())
    }
}

/// `path` is about to be created, appended to, or made a directory.
pub(crate) fn before_grow(path: &Path) -> Result<()> {
    with_guard(path, |g, rel| g.touch(path, &rel).map(|_| ()))
}

/// `path` (a file) is about to be replaced or removed: its whole bytes are saved.
pub(crate) fn before_replace(path: &Path) -> Result<()> {
    with_guard(path, |g, rel| g.save(path, &rel, 0, u64::MAX, true))
}

/// Bytes `[from, to)` of `path` are about to be overwritten or cut.
pub(crate) fn before_overwrite(path: &Path, from: u64, to: u64) -> Result<()> {
    with_guard(path, |g, rel| g.save(path, &rel, from, to, false))
}

/// `from` is about to be renamed over `to`.
pub(crate) fn before_rename(from: &Path, to: &Path) -> Result<()> {
    before_grow(from)?;
    before_replace(to)?;
    with_guard(from, |g, rel| {
        let to_rel = absolute(to);
        let Ok(to_rel) = to_rel.strip_prefix(&g.log_dir) else {
            return Err(Error::layout(to, "is outside the log dir being backed up: klog does not rename across it"));
        };
        let record = Record::Renamed { path: name_of(from, &rel)?, to: name_of(to, to_rel)? };
        g.write(&record)?;
        // The renamed-to name now holds `from`'s bytes; its own original was saved whole.
        g.seen.insert(rel, Seen::Done);
        Ok(())
    })
}

/// `dir` and any missing parents are about to be made: the topmost missing one is recorded.
pub(crate) fn before_create_dir(dir: &Path) -> Result<()> {
    let mut topmost = None;
    let mut d = Some(dir);
    while let Some(p) = d.filter(|p| !p.as_os_str().is_empty()) {
        if fs::symlink_metadata(p).is_ok() {
            break;
        }
        topmost = Some(p);
        d = p.parent();
    }
    match topmost {
        Some(p) => before_grow(p),
        None => Ok(()),
    }
}

/// What a restore did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RestoreReport {
    pub backup_dir: PathBuf,
    pub log_dir: PathBuf,
    /// Files given back their bytes, by path relative to the log dir.
    pub restored: Vec<String>,
    /// Paths the command had made, removed.
    pub removed: Vec<String>,
    /// Renames undone (the name the bytes are back under).
    pub renamed_back: Vec<String>,
}

/// A backup's records read and checked: the log dir and every record after the header. A torn
/// last line (a command killed while appending it) is dropped: the change it announced never
/// ran. Every blob must be there, whole.
pub fn read_backup(backup_dir: &Path) -> Result<(PathBuf, Vec<(usize, RecordView)>)> {
    let path = backup_dir.join(MANIFEST);
    let bytes = crate::regular_file::read_regular(&path)?
        .ok_or_else(|| Error::layout(backup_dir, "is not a klog backup (no manifest)"))?;
    let mut lines: Vec<&[u8]> = bytes.split_inclusive(|b| *b == b'\n').collect();
    if lines.last().is_some_and(|l| !l.ends_with(b"\n")) {
        lines.pop();
    }
    let mut records = Vec::new();
    let mut position = 0u64;
    let mut log_dir = None;
    for (i, line) in lines.iter().enumerate() {
        let record: Record = serde_json::from_slice(line).map_err(|e| {
            Error::corrupt(&path, position, format!("backup manifest line {} is not a record: {e}", i + 1))
        })?;
        let view = match (i, record) {
            (0, Record::Backup { version: 1, log_dir: d }) => {
                log_dir = Some(PathBuf::from(d));
                None
            }
            (0, _) => return Err(Error::corrupt(&path, 0, "expected the backup header (version 1) on line 1")),
            (_, Record::Backup { .. }) => {
                return Err(Error::corrupt(&path, position, format!("a second backup header on line {}", i + 1)))
            }
            (_, Record::Absent { path: p }) => Some(RecordView::Absent(safe(&p, &path, position)?)),
            (_, Record::File { path: p, len }) => Some(RecordView::File(safe(&p, &path, position)?, len)),
            (_, Record::Bytes { path: p, position: at, blob }) => {
                let blob_path = backup_dir.join(safe(&blob, &path, position)?);
                if !blob_path.is_file() {
                    return Err(Error::layout(&blob_path, "is missing: this backup cannot be restored whole"));
                }
                Some(RecordView::Bytes(safe(&p, &path, position)?, at, blob_path))
            }
            (_, Record::Renamed { path: p, to }) => {
                Some(RecordView::Renamed(safe(&p, &path, position)?, safe(&to, &path, position)?))
            }
        };
        if let Some(v) = view {
            records.push((i + 1, v));
        }
        position += line.len() as u64;
    }
    let log_dir = log_dir.ok_or_else(|| Error::corrupt(&path, 0, "the backup manifest is empty"))?;
    Ok((log_dir, records))
}

/// A relative path from a manifest, refused if it could leave the dir it is relative to.
fn safe(name: &str, manifest: &Path, position: u64) -> Result<PathBuf> {
    let p = PathBuf::from(name);
    if name.is_empty() || p.components().any(|c| !matches!(c, Component::Normal(_))) {
        return Err(Error::corrupt(manifest, position, format!("{name:?} is not a path inside the dir")));
    }
    Ok(p)
}

/// One record of a backup, its paths relative to the log dir (a blob's is the backup's).
#[derive(Debug, Clone)]
pub enum RecordView {
    Absent(PathBuf),
    File(PathBuf, u64),
    Bytes(PathBuf, u64, PathBuf),
    Renamed(PathBuf, PathBuf),
}

/// Undo a backup's records newest first under `log_dir`, through the durable functions.
pub fn restore(backup_dir: &Path, log_dir: &Path, records: &[(usize, RecordView)]) -> Result<RestoreReport> {
    let mut report = RestoreReport {
        backup_dir: backup_dir.to_path_buf(),
        log_dir: log_dir.to_path_buf(),
        restored: Vec::new(),
        removed: Vec::new(),
        renamed_back: Vec::new(),
    };
    let shown = |p: &Path| p.display().to_string();
    // What the report names: files the command had changed (a `file` record), paths it made
    // that are there now, and renames of files that existed (not a temp file's rename).
    let existed: Vec<&PathBuf> =
        records.iter().filter_map(|(_, r)| if let RecordView::File(p, _) = r { Some(p) } else { None }).collect();
    for (_, record) in records.iter().rev() {
        match record {
            RecordView::Absent(rel) => {
                let path = log_dir.join(rel);
                match fs::symlink_metadata(&path) {
                    Ok(m) if m.is_dir() => {
                        super::remove_tree(&path)?;
                        report.removed.push(shown(rel));
                    }
                    Ok(_) => {
                        remove_file(&path)?;
                        if !renamed_into(records, rel) {
                            report.removed.push(shown(rel));
                        }
                    }
                    Err(_) => {}
                }
            }
            RecordView::Bytes(rel, position, blob) => {
                let path = log_dir.join(rel);
                let bytes = fs::read(blob).at(blob, "read")?;
                if fs::symlink_metadata(&path).is_err() {
                    super::create_file(&path)?;
                }
                super::write_at(&path, *position, &bytes)?;
            }
            RecordView::File(rel, len) => {
                let path = log_dir.join(rel);
                if fs::symlink_metadata(&path).is_err() {
                    super::create_file(&path)?;
                }
                if fs::symlink_metadata(&path).map(|m| m.len()).unwrap_or(0) != *len {
                    // Cuts what the command appended, or grows back to the length it cut.
                    truncate_file(&path, *len)?;
                }
                push_once(&mut report.restored, shown(rel));
            }
            RecordView::Renamed(from, to) => {
                let (from_path, to_path) = (log_dir.join(from), log_dir.join(to));
                if fs::symlink_metadata(&to_path).is_ok() {
                    rename(&to_path, &from_path)?;
                    if existed.contains(&from) {
                        push_once(&mut report.renamed_back, shown(from));
                    } else if !existed.contains(&to) {
                        // A file the command made through a temp name (klog-state.json, an index).
                        push_once(&mut report.removed, shown(to));
                    }
                }
            }
        }
    }
    super::sync_dir(log_dir)?;
    Ok(report)
}

/// Whether `rel` is a temp name the command renamed over another (its removal is that file's
/// restore, not a file of its own).
fn renamed_into(records: &[(usize, RecordView)], rel: &Path) -> bool {
    records.iter().any(|(_, r)| matches!(r, RecordView::Renamed(from, _) if from == rel))
}

fn push_once(v: &mut Vec<String>, s: String) {
    if !v.contains(&s) {
        v.push(s);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn absolute_folds_dots_and_relative_paths() {
        assert_eq!(absolute(Path::new("/a/./b/../c")), PathBuf::from("/a/c"));
        let cwd = std::env::current_dir().unwrap();
        assert_eq!(absolute(Path::new("x/y")), cwd.join("x/y"));
    }

    #[test]
    fn a_manifest_path_that_could_leave_the_dir_is_refused() {
        let m = Path::new("/b/manifest");
        assert!(safe("a/b.log", m, 0).is_ok());
        for bad in ["", "../x", "/etc/passwd", "a/../../x"] {
            assert!(safe(bad, m, 0).is_err(), "{bad}");
        }
    }
}
