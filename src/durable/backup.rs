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
//! The backup dir is `<log dir>.klog-backup-<N>` (the smallest free N from 1, made exclusively),
//! never inside the log dir. It holds `manifest` and `blobs/`. The manifest is JSON lines, each
//! led by the CRC-32C of its JSON (`<8 hex digits> <json>`), appended and fsynced before the
//! change it covers; the first names the log dir it was made of, for the record only. Every
//! blob's record carries its length and CRC-32C. Its own files go through the durable functions
//! (so the fault seam counts them, and a failed command's rollback removes the backup with the
//! rest of what the command made); the backup hooks ignore them. A backup that fails to save
//! refuses the change it covers.
//!
//! A backup is input like any other file, and may have been moved, damaged or crafted. Restore
//! acts on the log dir the backup sits beside (`<log dir>` of its own name) or one the user
//! names, never on a path read from the manifest; it reads and verifies the whole backup first
//! (every line's checksum, every blob's length and checksum, every path inside the dir and
//! reached through no symlink) and changes nothing unless all of it holds; then it undoes the
//! records newest first, as the journal does, through the durable functions, checking each
//! blob's bytes again as it writes them.

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
/// The manifest format: 2 checks every line and every blob (1, unchecked, is refused).
const VERSION: u32 = 2;
/// The most a manifest may hold: far above any command's records, so a larger one is not a
/// backup klog wrote and is refused before it is read into memory.
const MANIFEST_BYTES_MAX: u64 = 256 << 20;

/// One manifest line: the CRC-32C of the JSON, in hex, a space, the JSON, a newline.
fn encode_line(record: &Record) -> String {
    let json = serde_json::to_string(record).expect("a record serializes");
    format!("{:08x} {json}\n", crate::format::batch::crc32c(json.as_bytes()))
}

/// One line of the manifest.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Eq)]
#[serde(tag = "op", rename_all = "lowercase")]
enum Record {
    /// The first line: which log dir this was made of (absolute; for the record, never acted
    /// on) and the format version.
    Backup { version: u32, log_dir: String },
    /// `path` did not exist: the command made it.
    Absent { path: String },
    /// `path` was a regular file of `len` bytes.
    File { path: String, len: u64 },
    /// The bytes at `position` of `path` before a change, kept in `blob` (`len` bytes whose
    /// CRC-32C is `crc32c`).
    Bytes { path: String, position: u64, blob: String, len: u64, crc32c: u32 },
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
/// The log dirs whose lock this process has taken (absolute, lexically normal).
static LOCKED: Mutex<Vec<PathBuf>> = Mutex::new(Vec::new());

/// This process took `log_dir`'s lock ([`crate::replica::DirLock`]): its backup may be made.
pub(crate) fn note_locked(log_dir: &Path) {
    let log_dir = absolute(log_dir);
    let mut locked = LOCKED.lock().unwrap_or_else(|e| e.into_inner());
    if !locked.contains(&log_dir) {
        locked.push(log_dir);
    }
}

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
        append(&mut open.manifest, &path, encode_line(record).as_bytes())?;
        sync_file(&open.manifest, &path)
    }

    fn create(&self) -> Result<Open> {
        // One writer at a time: the backup is made, and the change it covers runs, only under
        // the log dir's lock.
        if !LOCKED.lock().unwrap_or_else(|e| e.into_inner()).contains(&self.log_dir) {
            return Err(Error::layout(
                &self.log_dir,
                "would be changed before klog took its lock (a klog bug): nothing was changed",
            ));
        }
        let mut n = 1u64;
        // Made exclusively: a name another process took between the look and the make is
        // skipped, so two backups never share a dir.
        let dir = loop {
            let mut name = self.log_dir.as_os_str().to_owned();
            name.push(format!("{BACKUP_SUFFIX}{n}"));
            let candidate = PathBuf::from(name);
            if fs::symlink_metadata(&candidate).is_err() && super::create_new_dir(&candidate)? {
                break candidate;
            }
            n += 1;
        };
        create_dir(&dir.join("blobs"))?;
        let path = dir.join(MANIFEST);
        let mut manifest = create_for_append(&path)?;
        let log_dir = self.log_dir.to_str().ok_or_else(|| {
            Error::layout(&self.log_dir, "has a name that is not UTF-8: klog cannot back it up, and changes nothing")
        })?;
        let line = encode_line(&Record::Backup { version: VERSION, log_dir: log_dir.to_string() });
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
            let (len, crc32c) = (bytes.len() as u64, crate::format::batch::crc32c(&bytes));
            self.write(&Record::Bytes { path: name_of(path, relative)?, position: from, blob, len, crc32c })?;
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
    /// The log dir the manifest says the backup was made of, when that is not `log_dir` (the
    /// dir and its backup were moved): said, never acted on.
    pub made_of: Option<PathBuf>,
    /// Files given back their bytes, by path relative to the log dir.
    pub restored: Vec<String>,
    /// Paths the command had made, removed.
    pub removed: Vec<String>,
    /// Renames undone (the name the bytes are back under).
    pub renamed_back: Vec<String>,
}

/// A backup read whole and verified: nothing in it is acted on before all of it checks.
#[derive(Debug, Clone)]
pub struct Backup {
    pub dir: PathBuf,
    /// The log dir the manifest names (for the record: a restore acts on the dir beside the
    /// backup, or one the user names).
    pub made_of: PathBuf,
    pub records: Vec<(usize, RecordView)>,
}

/// The log dir a backup dir sits beside: `<log dir>.klog-backup-<N>` names it. `None` when the
/// backup's name is not of that form (the user then names the log dir).
pub fn log_dir_beside(backup_dir: &Path) -> Option<PathBuf> {
    let abs = absolute(backup_dir);
    let name = abs.file_name()?.to_str()?;
    let (stem, n) = name.rsplit_once(BACKUP_SUFFIX)?;
    if stem.is_empty() || n.is_empty() || !n.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    Some(abs.with_file_name(stem))
}

/// A backup's records read and checked: every line's checksum, every blob there, a regular
/// file (not a symlink) of its recorded length and checksum, every path relative and inside
/// the dir. A torn last line (a command killed while appending it, so with no newline) is
/// dropped: the change it announced never ran.
pub fn read_backup(backup_dir: &Path) -> Result<Backup> {
    let path = backup_dir.join(MANIFEST);
    if let Ok(m) = fs::symlink_metadata(&path) {
        if m.file_type().is_symlink() {
            return Err(Error::layout(&path, "is a symlink: a backup's manifest is a file of its own"));
        }
        if m.len() > MANIFEST_BYTES_MAX {
            return Err(Error::layout(
                &path,
                format!("holds {} bytes, more than a klog backup's manifest ever does: not a klog backup", m.len()),
            ));
        }
    }
    let bytes = crate::regular_file::read_regular(&path)?.ok_or_else(|| {
        Error::layout(
            backup_dir,
            "is not a klog backup (no manifest): name a dir a klog command saved (`<log dir>.klog-backup-N`, \
                 printed when it was made)",
        )
    })?;
    let mut lines: Vec<&[u8]> = bytes.split_inclusive(|b| *b == b'\n').collect();
    if lines.last().is_some_and(|l| !l.ends_with(b"\n")) {
        lines.pop();
    }
    let mut records = Vec::new();
    let mut position = 0u64;
    let mut made_of = None;
    for (i, line) in lines.iter().enumerate() {
        let record = decode_line(line, &path, position, i + 1)?;
        let view = match (i, record) {
            (0, Record::Backup { version: VERSION, log_dir: d }) => {
                made_of = Some(PathBuf::from(d));
                None
            }
            (0, Record::Backup { version, .. }) => {
                return Err(Error::corrupt(
                    &path,
                    position,
                    format!(
                        "expected a backup of version {VERSION} but got version {version}: without checksums \
                         klog cannot verify it, and restores only what it can verify"
                    ),
                ))
            }
            (0, _) => return Err(Error::corrupt(&path, 0, "expected the backup header on line 1")),
            (_, Record::Backup { .. }) => {
                return Err(Error::corrupt(&path, position, format!("a second backup header on line {}", i + 1)))
            }
            (_, Record::Absent { path: p }) => Some(RecordView::Absent(safe(&p, &path, position)?)),
            (_, Record::File { path: p, len }) => Some(RecordView::File(safe(&p, &path, position)?, len)),
            (_, Record::Bytes { path: p, position: at, blob, len, crc32c }) => {
                let blob = Blob { path: backup_dir.join(safe(&blob, &path, position)?), len, crc32c };
                blob.verify()?;
                Some(RecordView::Bytes(safe(&p, &path, position)?, at, blob))
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
    let made_of =
        made_of.ok_or_else(|| Error::corrupt(&path, 0, "expected the backup header, but the manifest is empty"))?;
    Ok(Backup { dir: backup_dir.to_path_buf(), made_of, records })
}

/// One manifest line (with its newline): its checksum checked, its JSON a record.
fn decode_line(line: &[u8], manifest: &Path, position: u64, number: usize) -> Result<Record> {
    let body = line.strip_suffix(b"\n").unwrap_or(line);
    let (crc, json) = match (body.get(..8), body.get(8), body.get(9..)) {
        (Some(crc), Some(b' '), Some(json)) => (crc, json),
        _ => {
            return Err(Error::corrupt(
                manifest,
                position,
                format!("expected line {number} to open with a checksum (8 hex digits and a space)"),
            ))
        }
    };
    let stored = std::str::from_utf8(crc).ok().and_then(|h| u32::from_str_radix(h, 16).ok()).ok_or_else(|| {
        Error::corrupt(manifest, position, format!("expected line {number} to open with 8 hex digits"))
    })?;
    let computed = crate::format::batch::crc32c(json);
    if stored != computed {
        return Err(Error::corrupt(
            manifest,
            position,
            format!(
                "line {number}'s checksum: expected {computed:08x} but got {stored:08x} (the manifest was changed)"
            ),
        ));
    }
    serde_json::from_slice(json)
        .map_err(|e| Error::corrupt(manifest, position, format!("line {number} is not a backup record: {e}")))
}

/// A relative path from a manifest, refused if it could leave the dir it is relative to.
fn safe(name: &str, manifest: &Path, position: u64) -> Result<PathBuf> {
    let p = PathBuf::from(name);
    if name.is_empty() || p.components().any(|c| !matches!(c, Component::Normal(_))) {
        return Err(Error::corrupt(manifest, position, format!("{name:?} is not a path inside the dir")));
    }
    Ok(p)
}

/// A blob of a backup: where it is, and the length and CRC-32C its record gives.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Blob {
    pub path: PathBuf,
    len: u64,
    crc32c: u32,
}

impl Blob {
    /// The blob's bytes, if they are what its record says: a regular file reached through no
    /// symlink, of the recorded length and checksum.
    fn read(&self) -> Result<Vec<u8>> {
        match fs::symlink_metadata(&self.path) {
            Err(_) => return Err(Error::layout(&self.path, "is missing: this backup cannot be restored whole")),
            Ok(m) if !m.is_file() => {
                return Err(Error::layout(&self.path, "is not a regular file: a backup's blobs are files of its own"))
            }
            Ok(m) if m.len() != self.len => {
                return Err(Error::corrupt(
                    &self.path,
                    m.len().min(self.len),
                    format!("expected {} bytes but the blob holds {}: it was cut or changed", self.len, m.len()),
                ))
            }
            Ok(_) => {}
        }
        let bytes = crate::regular_file::read_regular(&self.path)?.unwrap_or_default();
        let computed = crate::format::batch::crc32c(&bytes);
        if bytes.len() as u64 != self.len || computed != self.crc32c {
            return Err(Error::corrupt(
                &self.path,
                0,
                format!(
                    "expected checksum {:08x} over {} bytes but got {computed:08x} over {}: the blob was changed",
                    self.crc32c,
                    self.len,
                    bytes.len()
                ),
            ));
        }
        Ok(bytes)
    }

    fn verify(&self) -> Result<()> {
        self.read().map(|_| ())
    }
}

/// One record of a backup, its paths relative to the log dir.
#[derive(Debug, Clone)]
pub enum RecordView {
    Absent(PathBuf),
    File(PathBuf, u64),
    Bytes(PathBuf, u64, Blob),
    Renamed(PathBuf, PathBuf),
}

impl RecordView {
    fn paths(&self) -> Vec<&Path> {
        match self {
            RecordView::Absent(p) | RecordView::File(p, _) | RecordView::Bytes(p, _, _) => vec![p],
            RecordView::Renamed(from, to) => vec![from, to],
        }
    }
}

/// Refuse a record path that a restore into `log_dir` would reach through a symlink (which
/// could lead out of the dir): every name from the log dir down to it must be a plain
/// directory or file, or not there.
fn check_reached_through_no_symlink(log_dir: &Path, rel: &Path) -> Result<()> {
    let mut at = log_dir.to_path_buf();
    for c in rel.components() {
        at.push(c);
        match fs::symlink_metadata(&at) {
            Ok(m) if m.file_type().is_symlink() => {
                return Err(Error::layout(
                    &at,
                    "is a symlink: a restore never writes through one (it could lead out of the log dir)",
                ))
            }
            Ok(_) => {}
            Err(_) => break,
        }
    }
    Ok(())
}

/// Undo a backup's records newest first under `log_dir` (the dir the backup sits beside, or
/// one the user named), through the durable functions. Every path is checked first.
pub fn restore(backup: &Backup, log_dir: &Path) -> Result<RestoreReport> {
    let records = &backup.records;
    for (_, record) in records {
        for rel in record.paths() {
            check_reached_through_no_symlink(log_dir, rel)?;
        }
    }
    let made_of = (absolute(&backup.made_of) != absolute(log_dir)).then(|| backup.made_of.clone());
    let mut report = RestoreReport {
        backup_dir: backup.dir.clone(),
        log_dir: log_dir.to_path_buf(),
        made_of,
        restored: Vec::new(),
        removed: Vec::new(),
        renamed_back: Vec::new(),
    };
    // What the report names: files the command had changed (a `file` record), paths it made
    // that are there now, and renames of files that existed (not a temp file's rename).
    let existed: Vec<&PathBuf> =
        records.iter().filter_map(|(_, r)| if let RecordView::File(p, _) = r { Some(p) } else { None }).collect();
    for (_, record) in records.iter().rev() {
        undo_record(log_dir, records, &existed, record, &mut report)?;
    }
    super::sync_dir(log_dir)?;
    Ok(report)
}

/// Undo one record under `log_dir`, naming in `report` what a user would see changed back.
fn undo_record(
    log_dir: &Path,
    records: &[(usize, RecordView)],
    existed: &[&PathBuf],
    record: &RecordView,
    report: &mut RestoreReport,
) -> Result<()> {
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
            // Read and checked again: the bytes written are the ones verified.
            let bytes = blob.read()?;
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
    Ok(())
}

fn shown(p: &Path) -> String {
    p.display().to_string()
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
    fn the_log_dir_restored_is_the_one_the_backup_sits_beside() {
        assert_eq!(log_dir_beside(Path::new("/copies/b1.klog-backup-3")), Some(PathBuf::from("/copies/b1")));
        assert_eq!(log_dir_beside(Path::new("/x/b.klog-backup-1/.")), Some(PathBuf::from("/x/b")));
        for not_named in ["/copies/b1", "/copies/b1.klog-backup-", "/copies/.klog-backup-2", "/c/b.klog-backup-2x"] {
            assert_eq!(log_dir_beside(Path::new(not_named)), None, "{not_named}");
        }
    }

    #[test]
    fn every_manifest_line_carries_a_checksum_that_is_checked() {
        let m = Path::new("/b/manifest");
        let record = Record::Absent { path: "p-0/00000000000000000000.index".into() };
        let line = encode_line(&record);
        assert_eq!(decode_line(line.as_bytes(), m, 0, 2).unwrap(), record);
        // Any byte changed after the checksum, or in it, is refused.
        for i in 0..line.len() - 1 {
            let mut bad = line.clone().into_bytes();
            bad[i] ^= 0x01;
            assert!(decode_line(&bad, m, 0, 2).is_err(), "byte {i} flipped was accepted");
        }
        assert!(decode_line(b"{\"op\":\"absent\",\"path\":\"x\"}\n", m, 0, 2).is_err(), "a line with no checksum");
    }

    #[test]
    fn a_blob_cut_emptied_changed_or_replaced_by_a_symlink_is_refused() {
        let tmp = tempfile::tempdir().unwrap();
        let path = tmp.path().join("00000001");
        let bytes = b"the original bytes of a checkpoint".to_vec();
        fs::write(&path, &bytes).unwrap();
        let blob = Blob { path: path.clone(), len: bytes.len() as u64, crc32c: crate::format::batch::crc32c(&bytes) };
        assert_eq!(blob.read().unwrap(), bytes);
        fs::write(&path, &bytes[..10]).unwrap();
        assert!(matches!(blob.verify(), Err(Error::Corrupt { .. })), "cut short");
        fs::write(&path, b"").unwrap();
        assert!(matches!(blob.verify(), Err(Error::Corrupt { .. })), "emptied");
        let mut changed = bytes.clone();
        changed[3] ^= 0x20;
        fs::write(&path, &changed).unwrap();
        assert!(matches!(blob.verify(), Err(Error::Corrupt { .. })), "same length, other bytes");
        let elsewhere = tmp.path().join("elsewhere");
        fs::write(&elsewhere, &bytes).unwrap();
        fs::remove_file(&path).unwrap();
        std::os::unix::fs::symlink(&elsewhere, &path).unwrap();
        assert!(blob.verify().is_err(), "a symlink to the right bytes is not the backup's own file");
        fs::remove_file(&path).unwrap();
        assert!(blob.verify().is_err(), "missing");
    }

    #[test]
    fn a_record_path_reached_through_a_symlink_is_refused() {
        let tmp = tempfile::tempdir().unwrap();
        let (dir, outside) = (tmp.path().join("d"), tmp.path().join("outside"));
        fs::create_dir_all(dir.join("p-0")).unwrap();
        fs::create_dir(&outside).unwrap();
        std::os::unix::fs::symlink(&outside, dir.join("p-1")).unwrap();
        check_reached_through_no_symlink(&dir, Path::new("p-0/x.index")).unwrap();
        check_reached_through_no_symlink(&dir, Path::new("p-2/x.index")).unwrap();
        assert!(check_reached_through_no_symlink(&dir, Path::new("p-1/x.index")).is_err());
        assert!(check_reached_through_no_symlink(&dir, Path::new("p-1")).is_err());
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
