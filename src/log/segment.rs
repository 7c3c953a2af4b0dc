//! One segment of a partition: `<base>.log` with its `.index` and `.timeindex`, and read-only
//! memory maps of them.
//!
//! Reads go through memmap2 so that a multi-gigabyte segment is walked at memory speed with
//! constant heap use. No klog process cuts a file another klog process has mapped (writers hold
//! the log dir's lock), but a live broker may cut one a reader has mapped: every map is
//! registered with [`crate::map_guard`], whose SIGBUS handler reads the pages past the new end
//! as zeros, and the command then ends with an error saying the file changed while read.

use super::names::{self, INDEX_SUFFIX, LOG_SUFFIX, TIME_INDEX_SUFFIX};
use crate::error::{Error, IoContext, Result};
use crate::map_guard::Registration;
use crate::regular_file;
use memmap2::Mmap;
use std::fs::{self, File};
use std::ops::Deref;
use std::path::{Path, PathBuf};

/// Bytes of a file: a read-only map guarded against the file being cut under it, the bytes
/// read into memory (when no guard slot is free), or nothing for an empty or absent file.
pub enum FileBytes {
    Mapped(GuardedMap),
    Read(Vec<u8>),
    Empty,
}

/// A read-only map with its guard registration. Fields drop in order: the registration is
/// cleared before the map is unmapped.
pub struct GuardedMap {
    registration: Registration,
    map: Mmap,
    file: File,
}

impl Drop for GuardedMap {
    fn drop(&mut self) {
        self.registration.finish(self.file.metadata().ok().map(|m| m.len()));
    }
}

impl Deref for FileBytes {
    type Target = [u8];
    fn deref(&self) -> &[u8] {
        match self {
            FileBytes::Mapped(m) => &m.map,
            FileBytes::Read(v) => v,
            FileBytes::Empty => &[],
        }
    }
}

/// Bytes a streaming scan gets ahead of before it gives the pages behind it back.
const RELEASE_EVERY_BYTES: usize = 32 << 20;

impl FileBytes {
    /// The bytes before `position` will not be read again: take their pages out of this
    /// process's resident set (they stay in the page cache). Called every
    /// [`RELEASE_EVERY_BYTES`] by streaming scans so that RSS stays flat on any log size.
    pub fn release_before(&self, position: usize, released: &mut usize) {
        if position < *released + RELEASE_EVERY_BYTES {
            return;
        }
        if let FileBytes::Mapped(m) = self {
            let end = position / 4096 * 4096;
            // SAFETY: the map is a read-only mapping of a file; MADV_DONTNEED only drops the
            // pages from this process's page tables and a later read faults them back in from
            // the same file (or, past a cut, from the guard's zero page), so no slice handed out
            // from this map ever sees bytes the file did not hold.
            let _ = unsafe { m.map.unchecked_advise_range(memmap2::UncheckedAdvice::DontNeed, 0, end) };
            *released = end;
        }
    }
}

/// Map `path` read-only. A missing file is `Ok(None)`; a name that is not a regular file (a
/// FIFO, a device, a directory) is [`Error::NotRegular`], never opened for a blocking read.
pub fn map_file(path: &Path) -> Result<Option<FileBytes>> {
    let Some((file, meta)) = regular_file::open_regular(path)? else { return Ok(None) };
    let len = meta.len();
    if len == 0 {
        return Ok(Some(FileBytes::Empty));
    }
    // SAFETY: the map is read-only and private to this process. klog's writers hold the log
    // dir's lock while they change files, and every mutating path drops its maps before it
    // truncates a file, so no klog process shrinks a file under a live map; another program
    // (a broker) may, and the guard registered below turns the SIGBUS of a read past the cut
    // into zeros and a "changed while read" error.
    let map = unsafe { Mmap::map(&file) }.at(path, "map")?;
    let Some(registration) = Registration::claim(path, map.as_ptr(), map.len()) else {
        // Every guard slot taken: read the bytes instead of mapping them unguarded.
        drop(map);
        return Ok(Some(FileBytes::Read(crate::regular_file::read_regular(path)?.unwrap_or_default())));
    };
    // Scans read front to back: ask for aggressive read-ahead.
    let _ = map.advise(memmap2::Advice::Sequential);
    Ok(Some(FileBytes::Mapped(GuardedMap { registration, map, file })))
}

/// A segment, named by its base offset, in a partition dir.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Segment {
    pub base_offset: i64,
    pub dir: PathBuf,
    /// `""`, or [`SWAP_SUFFIX`] for the files of an interrupted compaction that a dry run of
    /// the loader reads in place of the segments they will replace.
    suffix: &'static str,
    /// The offset (time) index is read from its `.swap` file: an interrupted swap of that
    /// index alone, which the load renames into place (a dry run reads it where it is).
    index_swapped: bool,
    time_index_swapped: bool,
}

/// The suffix of a compacted segment's files before the cleaner renames them into place.
pub const SWAP_SUFFIX: &str = ".swap";

impl Segment {
    pub fn new(dir: &Path, base_offset: i64) -> Self {
        Segment { base_offset, dir: dir.to_path_buf(), suffix: "", index_swapped: false, time_index_swapped: false }
    }
    /// This segment with its offset index and/or time index read from their `.swap` files.
    pub fn with_swapped_indexes(mut self, index: bool, time_index: bool) -> Self {
        self.index_swapped |= index;
        self.time_index_swapped |= time_index;
        self
    }
    /// The segment an interrupted swap will become: its `.log.swap`, `.index.swap` and
    /// `.timeindex.swap` files.
    pub fn swap(dir: &Path, base_offset: i64) -> Self {
        Segment {
            base_offset,
            dir: dir.to_path_buf(),
            suffix: SWAP_SUFFIX,
            index_swapped: false,
            time_index_swapped: false,
        }
    }
    /// Whether this is the segment of an interrupted swap (its files end in `.swap`).
    pub fn is_swap(&self) -> bool {
        !self.suffix.is_empty()
    }
    fn path(&self, kind: &str) -> PathBuf {
        let p = names::build_segment_path(&self.dir, self.base_offset, kind);
        let swapped =
            (kind == INDEX_SUFFIX && self.index_swapped) || (kind == TIME_INDEX_SUFFIX && self.time_index_swapped);
        if swapped && self.suffix.is_empty() {
            let mut s = p.into_os_string();
            s.push(SWAP_SUFFIX);
            return PathBuf::from(s);
        }
        if self.suffix.is_empty() {
            p
        } else {
            let mut s = p.into_os_string();
            s.push(self.suffix);
            PathBuf::from(s)
        }
    }
    pub fn log_path(&self) -> PathBuf {
        self.path(LOG_SUFFIX)
    }
    pub fn index_path(&self) -> PathBuf {
        self.path(INDEX_SUFFIX)
    }
    pub fn time_index_path(&self) -> PathBuf {
        self.path(TIME_INDEX_SUFFIX)
    }
    /// Map the `.log` (a missing file reads as empty).
    pub fn read_log(&self) -> Result<FileBytes> {
        Ok(map_file(&self.log_path())?.unwrap_or(FileBytes::Empty))
    }
    /// Map the `.index`; a missing one, or a name that is not a regular file (which the log's
    /// open has already reported, see [`list_segments`]), reads as absent: Kafka rebuilds it.
    pub fn read_index(&self) -> Result<Option<FileBytes>> {
        map_index(&self.index_path())
    }
    pub fn read_time_index(&self) -> Result<Option<FileBytes>> {
        map_index(&self.time_index_path())
    }
    pub fn log_size(&self) -> Result<u64> {
        let p = self.log_path();
        Ok(fs::metadata(&p).at(&p, "stat")?.len())
    }
}

fn map_index(path: &Path) -> Result<Option<FileBytes>> {
    match map_file(path) {
        Err(Error::NotRegular { .. }) => Ok(None),
        other => other,
    }
}

/// A name in a partition dir that Kafka reads (a segment's files, a snapshot, the epoch
/// checkpoint, `partition.metadata`) but that is not a regular file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NotRegular {
    pub path: PathBuf,
    pub kind: &'static str,
}

impl NotRegular {
    pub fn to_error(&self) -> Error {
        Error::not_regular(&self.path, self.kind)
    }
}

/// Whether Kafka's loader reads a file of this name in a partition dir.
fn is_kafka_file_name(name: &str) -> bool {
    name == names::LEADER_EPOCH_CHECKPOINT
        || name == names::PARTITION_METADATA
        || (names::parse_file_offset(name).is_some()
            && [LOG_SUFFIX, INDEX_SUFFIX, TIME_INDEX_SUFFIX, names::TXN_INDEX_SUFFIX, names::SNAPSHOT_SUFFIX]
                .iter()
                .any(|s| name.ends_with(s)))
}

/// The segments of a partition dir in base-offset order: every `<20 digits>.log` regular file
/// (Kafka's `LogLoader.loadSegmentFiles` keeps `File.isFile` names only), and every name Kafka
/// reads that is not a regular file (a FIFO, a socket, a device, a directory), which a reader
/// reports and a writer refuses. Files with `.deleted`, `.cleaned` or `.swap` suffixes are not
/// segments. Nothing is opened: names are checked with `stat`.
pub fn list_segments(dir: &Path) -> Result<(Vec<Segment>, Vec<NotRegular>)> {
    let mut segments = Vec::new();
    let mut not_regular = Vec::new();
    for entry in fs::read_dir(dir).at(dir, "list directory")? {
        let entry = entry.at(dir, "list directory")?;
        let name = entry.file_name();
        let Some(name) = name.to_str() else { continue };
        if !is_kafka_file_name(name) {
            continue;
        }
        if let Some(kind) = regular_file::not_regular_kind(&entry.path()) {
            not_regular.push(NotRegular { path: entry.path(), kind });
            continue;
        }
        if let Some(stem) = name.strip_suffix(LOG_SUFFIX) {
            if stem.len() == 20 && regular_file::is_regular(&entry.path()) {
                if let Some(base) = names::parse_file_offset(name) {
                    segments.push(Segment::new(dir, base));
                }
            }
        }
    }
    segments.sort_by_key(|s| s.base_offset);
    not_regular.sort_by(|a, b| a.path.cmp(&b.path));
    Ok((segments, not_regular))
}
