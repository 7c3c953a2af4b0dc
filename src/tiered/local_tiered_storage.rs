//! Kafka's `LocalTieredStorage` on a filesystem (the `RemoteStorageManager` of Kafka's own
//! tests, `org.apache.kafka:kafka-storage` classifier `test-fixtures`), set against the remote
//! segment table. Its layout (`LocalTieredStorage.configure`, `RemoteTopicPartitionDirectory`,
//! `RemoteLogSegmentFileset`): under the configured `dir`, a `kafka-tiered-storage` dir; in it
//! one dir per partition, `<topic>-<partition>-<topic id>`; in that, one fileset per remote
//! segment, each file named `<start offset, 20 digits>-<segment id><suffix>` with the suffixes
//! `.log`, `.index`, `.timeindex`, `.txnindex` (only when the segment has one),
//! `.leader_epoch_checkpoint` and `.snapshot` (the producer snapshot).
//!
//! What is checked per fileset, with klog's own readers: every required file is there; the
//! `.log`'s batches pass their CRC and walk to the end of the file; its first and last offsets
//! and its size are the metadata's start offset, end offset and `segmentSizeInBytes`; the
//! `.leader_epoch_checkpoint` parses and equals the metadata's `segmentLeaderEpochs`. And across
//! the dir: files of a segment id the metadata does not hold, and segments whose copy finished
//! with no files.

use super::metadata_cache::PartitionRemoteMetadata;
use super::remote_log_metadata::{RemoteLogSegmentState, SegmentMetadata, TopicIdPartition};
use crate::error::{Error, Result};
use crate::format::batch::{BatchIter, ScanStop};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// The root dir `LocalTieredStorage` creates under its configured `dir`.
pub const ROOT_DIR_NAME: &str = "kafka-tiered-storage";

/// The suffixes of a fileset (`RemoteLogSegmentFileType`) and whether each is required.
pub const FILE_TYPES: [(&str, bool); 6] = [
    (".log", true),
    (".index", true),
    (".timeindex", true),
    (".txnindex", false),
    (LEADER_EPOCH_CHECKPOINT_SUFFIX, true),
    (".snapshot", true),
];

/// The files of one remote segment found on disk.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Fileset {
    /// The partition dir's name (`t-0-<topic id>`).
    pub partition_dir: String,
    pub segment_id: [u8; 16],
    /// The start offset the file names carry.
    pub start_offset: i64,
    /// The files by suffix.
    pub files: BTreeMap<&'static str, PathBuf>,
}

/// A finding about remote storage.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RemoteFinding {
    pub path: PathBuf,
    /// A short kind: `missing-file`, `files-without-metadata`, `metadata-without-files`,
    /// `log-mismatch`, `epochs-mismatch`, `unreadable`.
    pub kind: &'static str,
    pub what: String,
}

/// Remote storage set against the metadata.
#[derive(Debug, Clone, Default)]
pub struct RemoteStorageCheck {
    /// The `kafka-tiered-storage` dir read.
    pub root: PathBuf,
    pub filesets: Vec<Fileset>,
    /// How many filesets matched a segment of the table and passed every check.
    pub verified_count: usize,
    pub findings: Vec<RemoteFinding>,
}

/// `<topic>-<partition>-<22-char uuid>`: the topic, partition and topic id.
fn parse_partition_dir(name: &str) -> Option<(String, i32, [u8; 16])> {
    // The topic id is exactly the last 22 characters (URL-safe base64 may hold '-').
    let split = name.len().checked_sub(23)?;
    if !name.is_char_boundary(split) || name.as_bytes()[split] != b'-' {
        return None;
    }
    let (topic, partition) = name[..split].rsplit_once('-')?;
    Some((topic.to_string(), partition.parse().ok()?, crate::util::uuid_from_string(&name[split + 1..]).ok()?))
}

/// The suffix of a remote segment's leader-epoch checkpoint.
pub const LEADER_EPOCH_CHECKPOINT_SUFFIX: &str = ".leader_epoch_checkpoint";

/// A fileset's file name: `<start offset, 20 digits>-<segment id><suffix>`.
pub fn file_name(start_offset: i64, segment_id: &[u8; 16], suffix: &str) -> String {
    format!("{start_offset:020}-{}{suffix}", crate::util::base64_url(segment_id))
}

/// `<20 digits>-<22-char uuid><suffix>`: the start offset, segment id and suffix.
pub fn parse_file_name(name: &str) -> Option<(i64, [u8; 16], &'static str)> {
    let (suffix, _) = FILE_TYPES.iter().find(|(s, _)| name.ends_with(s))?;
    let stem = &name[..name.len() - suffix.len()];
    if stem.len() != 20 + 1 + 22 || stem.as_bytes()[20] != b'-' {
        return None;
    }
    let offset = stem[..20].parse().ok()?;
    Some((offset, crate::util::uuid_from_string(&stem[21..]).ok()?, suffix))
}

fn list(dir: &Path) -> Result<Vec<(String, PathBuf)>> {
    let mut out = Vec::new();
    for e in std::fs::read_dir(dir).map_err(|e| Error::io(dir, "list", e))? {
        let e = e.map_err(|e| Error::io(dir, "list", e))?;
        out.push((e.file_name().to_string_lossy().into_owned(), e.path()));
    }
    out.sort();
    Ok(out)
}

/// The `kafka-tiered-storage` dir for `dir` (that dir, or the configured dir holding it).
pub fn storage_root(dir: &Path) -> Result<PathBuf> {
    if dir.file_name().is_some_and(|n| n == ROOT_DIR_NAME) {
        return Ok(dir.to_path_buf());
    }
    let root = dir.join(ROOT_DIR_NAME);
    if root.is_dir() {
        Ok(root)
    } else {
        Err(Error::layout(dir, format!("no {ROOT_DIR_NAME} dir here (LocalTieredStorage's layout: rsm.config.dir/{ROOT_DIR_NAME}/<topic>-<partition>-<topic id>/)")))
    }
}

/// Check the LocalTieredStorage dir `dir` against the folded metadata of each partition.
pub fn check_storage(
    dir: &Path,
    partitions: &BTreeMap<TopicIdPartition, PartitionRemoteMetadata>,
) -> Result<RemoteStorageCheck> {
    let root = storage_root(dir)?;
    let mut check = RemoteStorageCheck { root: root.clone(), ..Default::default() };
    // Segments by (topic id, partition, segment id).
    let mut by_id: BTreeMap<([u8; 16], i32, [u8; 16]), &SegmentMetadata> = BTreeMap::new();
    for (tp, p) in partitions {
        for s in p.segments.values() {
            by_id.insert((tp.topic_id, tp.partition, s.segment_id), s);
        }
    }
    let mut seen: std::collections::BTreeSet<([u8; 16], i32, [u8; 16])> = Default::default();
    for (name, path) in list(&root)? {
        if !path.is_dir() {
            continue;
        }
        let Some((_, partition, topic_id)) = parse_partition_dir(&name) else {
            check.findings.push(RemoteFinding {
                path,
                kind: "unreadable",
                what: "not a <topic>-<partition>-<topic id> dir".into(),
            });
            continue;
        };
        for (segment_id, set) in read_filesets(&name, &path, &mut check.findings)? {
            let key = (topic_id, partition, segment_id);
            match by_id.get(&key) {
                None => check.findings.push(RemoteFinding {
                    path: path.join(format!("{:020}-{}.*", set.start_offset, crate::util::base64_url(&segment_id))),
                    kind: "files-without-metadata",
                    what: format!("{} file(s) of a segment the metadata does not hold", set.files.len()),
                }),
                Some(meta) => {
                    seen.insert(key);
                    let before = check.findings.len();
                    check_fileset(&set, meta, &mut check.findings);
                    if check.findings.len() == before && meta.state == RemoteLogSegmentState::CopySegmentFinished {
                        check.verified_count += 1;
                    }
                }
            }
            check.filesets.push(set);
        }
    }
    for (key, meta) in &by_id {
        if !seen.contains(key) && meta.state == RemoteLogSegmentState::CopySegmentFinished {
            check.findings.push(RemoteFinding {
                path: root.join(format!("{}-{}", meta.partition.dir_name(), meta.partition.topic_id_text())),
                kind: "metadata-without-files",
                what: format!(
                    "segment {} (offsets {}..{}) is COPY_SEGMENT_FINISHED but has no files",
                    meta.segment_id_text(),
                    meta.start_offset,
                    meta.end_offset
                ),
            });
        }
    }
    Ok(check)
}

/// The files of one partition dir grouped by segment id (a name that is no remote segment file's
/// is a finding).
fn read_filesets(name: &str, path: &Path, findings: &mut Vec<RemoteFinding>) -> Result<BTreeMap<[u8; 16], Fileset>> {
    let mut sets: BTreeMap<[u8; 16], Fileset> = BTreeMap::new();
    for (file, fpath) in list(path)? {
        let Some((start_offset, segment_id, suffix)) = parse_file_name(&file) else {
            findings.push(RemoteFinding {
                path: fpath,
                kind: "unreadable",
                what: "not a remote segment file name".into(),
            });
            continue;
        };
        let set = sets.entry(segment_id).or_insert_with(|| Fileset {
            partition_dir: name.to_string(),
            segment_id,
            start_offset,
            files: BTreeMap::new(),
        });
        set.files.insert(suffix, fpath);
    }
    Ok(sets)
}

/// The checks of one fileset against its metadata.
fn check_fileset(set: &Fileset, meta: &SegmentMetadata, findings: &mut Vec<RemoteFinding>) {
    let any = set.files.values().next().cloned().unwrap_or_default();
    if meta.state != RemoteLogSegmentState::CopySegmentFinished {
        // A copy not finished (the metadata's own finding, `copy-not-finished`) or a deletion
        // under way: files may be partly there.
        return;
    }
    let mut missing = Vec::new();
    for (suffix, required) in FILE_TYPES {
        if required && !set.files.contains_key(suffix) {
            missing.push(suffix);
        }
    }
    if !missing.is_empty() {
        findings.push(RemoteFinding {
            path: any.clone(),
            kind: "missing-file",
            what: format!("no {} file(s)", missing.join(" ")),
        });
    }
    if set.start_offset != meta.start_offset {
        findings.push(RemoteFinding {
            path: any.clone(),
            kind: "log-mismatch",
            what: format!("file names say start offset {}, metadata {}", set.start_offset, meta.start_offset),
        });
    }
    let mut log_bytes = None;
    if let Some(log) = set.files.get(".log") {
        match crate::regular_file::read_regular(log) {
            Ok(Some(bytes)) => {
                check_log(log, &bytes, meta, findings);
                log_bytes = Some(bytes);
            }
            Ok(None) => findings.push(RemoteFinding {
                path: log.clone(),
                kind: "unreadable",
                what: "not a regular file".into(),
            }),
            Err(e) => findings.push(RemoteFinding { path: log.clone(), kind: "unreadable", what: e.to_string() }),
        }
    }
    check_indexes(set, meta.start_offset, log_bytes.as_deref(), findings);
    if let Some(epochs) = set.files.get(LEADER_EPOCH_CHECKPOINT_SUFFIX) {
        match crate::log::checkpoint::read_epoch_checkpoint(epochs) {
            Ok(entries)
                if epochs_in_segment(&entries, meta.start_offset, meta.end_offset) == meta.segment_leader_epochs => {}
            Ok(entries) => findings.push(RemoteFinding {
                path: epochs.clone(),
                kind: "epochs-mismatch",
                what: format!(
                    "checkpoint {:?} holds {:?} within offsets {}..{}, metadata segmentLeaderEpochs {:?}",
                    entries,
                    epochs_in_segment(&entries, meta.start_offset, meta.end_offset),
                    meta.start_offset,
                    meta.end_offset,
                    meta.segment_leader_epochs
                ),
            }),
            Err(e) => findings.push(RemoteFinding { path: epochs.clone(), kind: "unreadable", what: e.to_string() }),
        }
    }
}

/// The epochs of a segment's offsets `start..=end` from a leader-epoch checkpoint: the entry
/// in force at `start` (its start offset raised to `start`), then every entry starting inside.
/// A remote segment's `.leader_epoch_checkpoint` is the leader's epoch cache cut at the end
/// of the segment, from the log's start (its first entry may be far below the segment, as on
/// a real 4.4 cluster), while `segmentLeaderEpochs` holds only the segment's own.
pub fn epochs_in_segment(entries: &[(i32, i64)], start: i64, end: i64) -> Vec<(i32, i64)> {
    let mut out: Vec<(i32, i64)> = Vec::new();
    for &(epoch, offset) in entries {
        if offset <= start {
            out.clear();
            out.push((epoch, start));
        } else if offset <= end {
            out.push((epoch, offset));
        }
    }
    out
}

/// Read a fileset's file: its bytes, or a finding (`None`) when it is absent or unreadable
/// (absence is `missing-file`'s, said once above).
fn read_file(set: &Fileset, suffix: &str, findings: &mut Vec<RemoteFinding>) -> Option<(PathBuf, Vec<u8>)> {
    let path = set.files.get(suffix)?;
    match crate::regular_file::read_regular(path) {
        Ok(Some(bytes)) => Some((path.clone(), bytes)),
        Ok(None) => {
            findings.push(RemoteFinding { path: path.clone(), kind: "unreadable", what: "not a regular file".into() });
            None
        }
        Err(e) => {
            findings.push(RemoteFinding { path: path.clone(), kind: "unreadable", what: e.to_string() });
            None
        }
    }
}

/// One index file of a fileset read whole: its entries and path (none when absent), its
/// framing, order and zero-filled tail added to `structure`.
#[allow(clippy::too_many_arguments)]
fn read_index<E>(
    set: &Fileset,
    suffix: &str,
    findings: &mut Vec<RemoteFinding>,
    structure: &mut Vec<crate::log::verify::Finding>,
    read: impl Fn(&[u8]) -> crate::log::verify::IndexRead<E>,
    entry_bytes: usize,
    disorder: impl Fn(&E, &E) -> Option<String>,
    offset: impl Fn(&E) -> i64,
) -> (Vec<E>, PathBuf) {
    let Some((path, bytes)) = read_file(set, suffix, findings) else { return (Vec::new(), PathBuf::new()) };
    let index = read(&bytes);
    structure.extend(crate::log::verify::index_structure_findings(&path, &index, entry_bytes, disorder, offset));
    if let Some(at) = index.zero_tail_at {
        let what = "a zero-filled tail: the index was not trimmed";
        structure.push(crate::log::verify::Finding::new(&path, at, None, what));
    }
    (index.entries, path)
}

/// The fileset's indexes and producer snapshot, read with the readers of the local files: the
/// offset and time indexes framed and in order, each entry set against the `.log` as `check`
/// sets a local segment's (a remote segment is a closed segment: its indexes are trimmed, so
/// a zero-filled tail is a finding here); the `.txnindex` whole entries; the producer
/// snapshot's CRC and entries.
fn check_indexes(set: &Fileset, base: i64, log: Option<&[u8]>, findings: &mut Vec<RemoteFinding>) {
    use crate::log::verify::{offset_disorder, read_offset_index, read_time_index, time_disorder};
    let mut structure = Vec::new();
    let (offsets, offset_path) = read_index(
        set,
        ".index",
        findings,
        &mut structure,
        |b| read_offset_index(b, base),
        8,
        offset_disorder,
        |e| e.offset,
    );
    let (times, time_path) = read_index(
        set,
        ".timeindex",
        findings,
        &mut structure,
        |b| read_time_index(b, base),
        12,
        time_disorder,
        |e| e.offset,
    );
    for f in structure {
        findings.push(RemoteFinding {
            path: f.path,
            kind: "index-mismatch",
            what: format!("at position {}: {}", f.position, f.what),
        });
    }
    if let Some(log) = log {
        check_index_entries(&offsets, &offset_path, &times, &time_path, log, findings);
    }
    check_txn_index_and_snapshot(set, findings);
}

/// Each offset and time index entry set against the `.log`'s batches.
fn check_index_entries(
    offsets: &[crate::log::index::OffsetPosition],
    offset_path: &Path,
    times: &[crate::log::index::TimestampOffset],
    time_path: &Path,
    log: &[u8],
    findings: &mut Vec<RemoteFinding>,
) {
    use crate::log::index::{OffsetEntryCheck, TimeEntryCheck};
    let (offset_checks, time_checks) = crate::log::verify::verify_index_entries(offsets, times, Some(log));
    for (i, (e, c)) in offsets.iter().zip(offset_checks).enumerate() {
        if let OffsetEntryCheck::Mismatch { log_offset, .. } = c {
            findings.push(RemoteFinding {
                path: offset_path.to_path_buf(),
                kind: "index-mismatch",
                what: format!(
                    "entry {i} at position {}: offset {} at log position {}, where the log has {}",
                    i * 8,
                    e.offset,
                    e.position,
                    log_offset.map_or("no batch".to_string(), |o| format!("a batch ending at {o}"))
                ),
            });
        }
    }
    for (i, (e, c)) in times.iter().zip(time_checks).enumerate() {
        let why = match c {
            TimeEntryCheck::MatchesBatch | TimeEntryCheck::MatchesRecord | TimeEntryCheck::NoLog => continue,
            TimeEntryCheck::TimestampMismatch { log_timestamp } => {
                format!("the batch holding offset {} has max timestamp {log_timestamp}", e.offset)
            }
            TimeEntryCheck::OutOfOrder { previous_timestamp } => {
                format!("timestamp {} is not above the previous entry's {previous_timestamp}", e.timestamp)
            }
            TimeEntryCheck::NotFound { .. } => format!("no batch holds offset {}", e.offset),
        };
        findings.push(RemoteFinding {
            path: time_path.to_path_buf(),
            kind: "index-mismatch",
            what: format!("entry {i} at position {} ({}, {}): {why}", i * 12, e.timestamp, e.offset),
        });
    }
}

/// The `.txnindex` in whole entries and the producer snapshot decodable.
fn check_txn_index_and_snapshot(set: &Fileset, findings: &mut Vec<RemoteFinding>) {
    if let Some((path, bytes)) = read_file(set, ".txnindex", findings) {
        let (_, partial) = crate::format::txn_index::decode_entries(&bytes);
        if partial != 0 {
            findings.push(RemoteFinding {
                path,
                kind: "index-mismatch",
                what: format!(
                    "{} bytes: not a whole number of {}-byte entries",
                    bytes.len(),
                    crate::format::txn_index::ENTRY_BYTES
                ),
            });
        }
    }
    if let Some((path, bytes)) = read_file(set, ".snapshot", findings) {
        if let Err(e) = crate::format::producer_snapshot::decode(&bytes) {
            findings.push(RemoteFinding {
                path,
                kind: "unreadable",
                what: format!("producer snapshot at position {}: {}", e.position, e.what),
            });
        }
    }
}

fn check_log(path: &Path, bytes: &[u8], meta: &SegmentMetadata, findings: &mut Vec<RemoteFinding>) {
    let mut first = None;
    let mut last = None;
    let mut iter = BatchIter::new(bytes);
    for b in iter.by_ref() {
        if let Err(defect) = b.verify() {
            findings.push(RemoteFinding {
                path: path.to_path_buf(),
                kind: "log-mismatch",
                what: format!("batch at position {}: {defect:?}", b.position),
            });
            return;
        }
        first.get_or_insert(b.base_offset());
        last = Some(b.last_offset());
    }
    if let Some(stop) = iter.stop().filter(|s| !matches!(s, ScanStop::End)) {
        findings.push(RemoteFinding {
            path: path.to_path_buf(),
            kind: "log-mismatch",
            what: format!("the batches stop early: {stop:?}"),
        });
        return;
    }
    let mut differ = Vec::new();
    if first != Some(meta.start_offset) {
        differ.push(format!("first offset {first:?}, metadata start offset {}", meta.start_offset));
    }
    if last != Some(meta.end_offset) {
        differ.push(format!("last offset {last:?}, metadata end offset {}", meta.end_offset));
    }
    if bytes.len() as i64 != i64::from(meta.segment_size_in_bytes) {
        differ.push(format!("{} bytes, metadata segmentSizeInBytes {}", bytes.len(), meta.segment_size_in_bytes));
    }
    if !differ.is_empty() {
        findings.push(RemoteFinding { path: path.to_path_buf(), kind: "log-mismatch", what: differ.join("; ") });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_epochs_of_a_segment_are_the_checkpoint_entries_within_its_offsets() {
        assert_eq!(epochs_in_segment(&[(0, 0)], 769, 795), vec![(0, 769)]);
        assert_eq!(epochs_in_segment(&[(0, 0), (2, 700), (3, 780)], 769, 795), vec![(2, 769), (3, 780)]);
        assert_eq!(epochs_in_segment(&[(0, 0), (3, 800)], 769, 795), vec![(0, 769)]);
        assert_eq!(epochs_in_segment(&[(4, 800)], 769, 795), Vec::<(i32, i64)>::new());
    }

    #[test]
    fn file_and_dir_names_parse_as_local_tiered_storage_writes_them() {
        let (o, id, s) =
            parse_file_name("00000000000000000852-iWnoEog3SsukvoiQmDe6OQ.leader_epoch_checkpoint").unwrap();
        assert_eq!((o, s), (852, ".leader_epoch_checkpoint"));
        assert_eq!(crate::util::base64_url(&id), "iWnoEog3SsukvoiQmDe6OQ");
        assert!(parse_file_name("00000000000000000852.log").is_none());
        let (t, p, id) = parse_partition_dir("my-topic-3-d8kswvxhQoW__XTOheXPFA").unwrap();
        assert_eq!((t.as_str(), p), ("my-topic", 3));
        assert_eq!(crate::util::base64_url(&id), "d8kswvxhQoW__XTOheXPFA");
        let (t, p, _) = parse_partition_dir("t-0-z3qguscyQDGxQvLYi8R-7w").unwrap();
        assert_eq!((t.as_str(), p), ("t", 0));
    }
}
