//! One run of a leader's copy task (`RemoteLogManager.RLMCopyTask.copyLogSegmentsToRemote`,
//! Kafka 4.4.0), on a tiered lab: which segments go remote and the records and files each
//! copy writes.
//!
//! The rule, read in trunk's source (1eb7644) and compared with 4.4.0's bytecode
//! (`RemoteLogManager$RLMCopyTask`, line numbers from its line table):
//! - the copied offset: `findHighestRemoteOffset` (RemoteLogManager.java): from the latest
//!   epoch of the leader's cache down, the first epoch the metadata cache has a finished copy
//!   of; its highest remote offset, or the epoch's end − 1 when the cache's end offset for it is
//!   at or below that; −1 when no epoch has one. (The task computes it once on becoming leader
//!   and keeps it up to date after each copy; one run of `klog tier copy` computes it afresh.)
//! - `fromOffset = max(copiedOffset + 1, logStartOffset)`, only while `lso > 0 && copiedOffset <
//!   lso` (`copyLogSegmentsToRemote`);
//! - `candidateLogSegments` (RemoteLogManager.java:941-961@4.4.0): the segments from the one
//!   holding `fromOffset`, each paired with the next segment's base; a segment is a candidate
//!   while that base is at or below the LSO — never the active segment — and while it is
//!   eligible for upload (`isEligibleForUpload`, :965-983: `remote.copy.lag.ms` and
//!   `remote.copy.lag.bytes`, whose defaults, 0 and −1, make every segment eligible; klog models
//!   the defaults);
//! - `copyLogSegment`, per candidate: a COPY_SEGMENT_STARTED `RemoteLogSegmentMetadataRecord`
//!   (start = base, end = next base − 1, the segment's largest timestamp, size, and
//!   `segmentLeaderEpochs` = the cache's `epochEntriesInRange(base, next base)`,
//!   `txnIndexEmpty`), then the fileset (LocalTieredStorage's `RemoteLogSegmentFileset.copy`
//!   order: `.log`, `.index`, `.timeindex`, `.txnindex` when the segment has the file, the
//!   `.leader_epoch_checkpoint` = the cache's `epochEntriesInRange(-1, next base)`, the producer
//!   snapshot `<next base>.snapshot`), then a COPY_SEGMENT_FINISHED update record.
//!
//! Pure planning here ([`plan_copy`]); the writes are in [`apply_copy`].

use super::lab::{self, MetadataWriter};
use super::local_tiered_storage::{file_name, LEADER_EPOCH_CHECKPOINT_SUFFIX};
use super::metadata_cache::PartitionRemoteMetadata;
use super::remote_log_metadata::{
    encode_segment_metadata, encode_segment_update, RemoteLogSegmentState, SegmentMetadata, SegmentUpdate,
    TopicIdPartition,
};
use crate::error::{Error, Result};
use crate::format::batch::BatchIter;
use crate::log::epoch_cache::EpochCache;
use crate::log::names;
use std::path::{Path, PathBuf};

/// `findHighestRemoteOffset`: the highest offset the leader counts as copied, and its epoch
/// (−1 and −1 when none).
pub fn find_highest_remote_offset(
    cache: &EpochCache,
    log_end_offset: i64,
    remote: &PartitionRemoteMetadata,
) -> (i64, i32) {
    for entry in cache.entries().iter().rev() {
        let epoch = entry.leader_epoch;
        let Some(highest) = remote.epochs.get(&epoch).and_then(|s| s.highest_log_offset) else { continue };
        let end = cache.end_offset_for(epoch, log_end_offset);
        return if end.end_offset <= highest { (end.end_offset - 1, end.leader_epoch) } else { (highest, epoch) };
    }
    (-1, -1)
}

/// `LeaderEpochFileCache.epochEntriesInRange(start, end)`: the entries of `[start, end)`, the
/// first raised to `start` (no cut from the start when `start` is negative).
pub fn epoch_entries_in_range(cache: &EpochCache, start: i64, end: i64) -> Vec<(i32, i64)> {
    let mut c = cache.clone();
    if start >= 0 {
        c.truncate_from_start(start);
    }
    c.truncate_from_end(end);
    c.entries().iter().map(|e| (e.leader_epoch, e.start_offset)).collect()
}

/// A local segment as the planner sees it: its base and the next segment's base.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LocalSegment {
    pub base_offset: i64,
}

/// `candidateLogSegments`: the (segment base, next segment base) pairs to copy, from the
/// segment holding `from_offset` (or the first one above it), while the next base is at or
/// below `last_stable_offset`. `bases` are the local segments' bases in order, the last one
/// the active segment.
pub fn candidate_segments(bases: &[i64], from_offset: i64, last_stable_offset: i64) -> Vec<(i64, i64)> {
    // `logSegments(from, Long.MAX_VALUE)`: the floor segment of `from`, and every one after.
    let first = bases.partition_point(|&b| b <= from_offset).saturating_sub(1);
    let from: &[i64] = bases.get(first..).unwrap_or(&[]);
    from.windows(2).take_while(|w| w[1] <= last_stable_offset).map(|w| (w[0], w[1])).collect()
}

/// What one run plans, before anything is written.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CopyPlan {
    pub highest_remote_offset: i64,
    pub highest_remote_epoch: i32,
    pub log_start_offset: i64,
    pub last_stable_offset: i64,
    /// `None` when the task skips (`lso <= 0` or everything up to the LSO is copied).
    pub from_offset: Option<i64>,
    pub candidates: Vec<(i64, i64)>,
}

/// Plan one run of the copy task.
pub fn plan_copy(
    cache: &EpochCache,
    bases: &[i64],
    log_start_offset: i64,
    log_end_offset: i64,
    last_stable_offset: i64,
    remote: &PartitionRemoteMetadata,
) -> CopyPlan {
    let (highest_remote_offset, highest_remote_epoch) = find_highest_remote_offset(cache, log_end_offset, remote);
    let (from_offset, candidates) = if last_stable_offset > 0 && highest_remote_offset < last_stable_offset {
        let from = (highest_remote_offset + 1).max(log_start_offset);
        (Some(from), candidate_segments(bases, from, last_stable_offset))
    } else {
        (None, Vec::new())
    };
    CopyPlan {
        highest_remote_offset,
        highest_remote_epoch,
        log_start_offset,
        last_stable_offset,
        from_offset,
        candidates,
    }
}

/// One segment the run copied (or began to copy).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CopiedSegment {
    pub metadata: SegmentMetadata,
    /// The `.leader_epoch_checkpoint` written: the leader's cache up to the next segment's base.
    pub epoch_checkpoint: Vec<(i32, i64)>,
    /// The files written, in the order written.
    pub files: Vec<PathBuf>,
    /// The offsets of its records in `__remote_log_metadata-0`: STARTED, and FINISHED unless
    /// the copy was stopped.
    pub started_at: i64,
    pub finished_at: Option<i64>,
}

/// What `klog tier copy` did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CopyReport {
    pub broker_id: i32,
    pub partition: TopicIdPartition,
    pub remote_dir: PathBuf,
    pub plan: CopyPlan,
    pub copied: Vec<CopiedSegment>,
    /// The copy was stopped after the STARTED record and this many files (`--stop-after-files`).
    pub stopped_after_files: Option<usize>,
}

/// The request of one run.
pub struct CopyRequest<'a> {
    pub leader: &'a Path,
    pub partition: Option<&'a str>,
    pub remote_dir: Option<&'a Path>,
    /// Stop the first copy after its STARTED record and this many of its files, as a broker
    /// killed during an upload leaves it.
    pub stop_after_files: Option<usize>,
    pub now_ms: i64,
}

/// The local files of the candidate `(base, next)`: each fileset entry's suffix and bytes, in
/// `RemoteLogSegmentFileset.copy`'s order, with its largest timestamp, size and whether its
/// transaction index is empty.
struct SegmentFiles {
    files: Vec<(&'static str, Vec<u8>)>,
    max_timestamp_ms: i64,
    size_bytes: i32,
    txn_index_empty: bool,
}

fn read_required(path: &Path, what: &str) -> Result<Vec<u8>> {
    crate::regular_file::read_regular(path)?.ok_or_else(|| {
        Error::layout(
            path,
            format!("no {what}: Kafka's copy of this segment fails (LogSegmentData needs it) and retries"),
        )
    })
}

fn read_segment_files(dir: &Path, base: i64, next: i64, epoch_checkpoint: &[(i32, i64)]) -> Result<SegmentFiles> {
    let log_path = names::build_segment_path(dir, base, names::LOG_SUFFIX);
    let log = read_required(&log_path, "segment .log")?;
    let mut max_timestamp_ms = -1;
    for b in BatchIter::new(&log) {
        max_timestamp_ms = max_timestamp_ms.max(b.max_timestamp());
    }
    let size_bytes = i32::try_from(log.len()).map_err(|_| Error::layout(&log_path, "larger than a segment may be"))?;
    let index = read_required(&names::build_segment_path(dir, base, names::INDEX_SUFFIX), "offset index")?;
    let time_index = read_required(&names::build_segment_path(dir, base, names::TIME_INDEX_SUFFIX), "time index")?;
    let txn = crate::regular_file::read_regular(&names::build_segment_path(dir, base, names::TXN_INDEX_SUFFIX))?;
    let snapshot = read_required(
        &names::build_segment_path(dir, next, names::SNAPSHOT_SUFFIX),
        "producer snapshot at the next segment's base",
    )?;
    let lines: Vec<String> = epoch_checkpoint.iter().map(|(e, o)| format!("{e} {o}")).collect();
    let checkpoint = crate::log::checkpoint::render_checkpoint(&lines).into_bytes();
    let txn_index_empty = txn.as_ref().is_none_or(Vec::is_empty);
    let mut files =
        vec![(names::LOG_SUFFIX, log), (names::INDEX_SUFFIX, index), (names::TIME_INDEX_SUFFIX, time_index)];
    if let Some(t) = txn {
        files.push((names::TXN_INDEX_SUFFIX, t));
    }
    files.push((LEADER_EPOCH_CHECKPOINT_SUFFIX, checkpoint));
    files.push((names::SNAPSHOT_SUFFIX, snapshot));
    Ok(SegmentFiles { files, max_timestamp_ms, size_bytes, txn_index_empty })
}

/// The lab's remote segment id for a copy: Kafka draws a random `Uuid`; klog derives one from
/// the partition, the segment, the copying broker and the metadata log's end, so a script run
/// twice makes the same ids.
fn segment_id(tp: &TopicIdPartition, base: i64, broker_id: i32, metadata_log_end_offset: i64) -> [u8; 16] {
    let seed = format!(
        "klog-remote-segment:{}:{}:{base}:{broker_id}:{metadata_log_end_offset}",
        tp.topic_id_text(),
        tp.partition
    );
    crate::util::uuid_from_string(&crate::util::derived_uuid(&seed)).expect("a derived uuid reads")
}

/// Run the leader's copy task once.
pub fn run(req: &CopyRequest<'_>) -> Result<CopyReport> {
    let lab::TieredLeader { replica: leader, remote_dir, storage_root: root, partition: tp, log_dir, remote } =
        lab::open_tiered_leader(
            req.leader,
            req.partition,
            req.remote_dir,
            "copy task copies segments to remote storage",
        )?;
    let hw = leader.high_watermark();
    let lso =
        leader.log().producer_state_at(leader.log_end_offset())?.first_unstable_offset(hw).map_or(hw, |f| f.min(hw));
    let log_start = leader.log_start_offset_below_local().unwrap_or(leader.log_start_offset());
    let bases: Vec<i64> = leader.log().segments().iter().map(|s| s.base_offset).collect();
    let cache = leader.log().epoch_cache().clone();
    let plan = plan_copy(&cache, &bases, log_start, leader.log_end_offset(), lso, &remote);
    let broker_id = leader.replica_id().unwrap_or(0);
    let mut report = CopyReport {
        broker_id,
        partition: tp.clone(),
        remote_dir,
        plan: plan.clone(),
        copied: Vec::new(),
        stopped_after_files: None,
    };
    if plan.candidates.is_empty() {
        return Ok(report);
    }
    let target = CopyTarget {
        dir: leader.paths().partition_dir.clone(),
        remote_dir: root.join(format!("{}-{}", tp.dir_name(), tp.topic_id_text())),
        partition: tp,
        broker_id,
        cache,
    };
    let mut writer = MetadataWriter::open(&log_dir, broker_id)?;
    for &(base, next) in &plan.candidates {
        let copied = copy_segment(&target, &mut writer, (base, next), req)?;
        let stopped = copied.finished_at.is_none().then_some(copied.files.len());
        report.copied.push(copied);
        if stopped.is_some() {
            report.stopped_after_files = stopped;
            break;
        }
    }
    Ok(report)
}

/// What every copy of one run shares: the leader's partition dir and epoch cache, the remote
/// partition dir, the partition and the copying broker.
struct CopyTarget {
    dir: PathBuf,
    remote_dir: PathBuf,
    partition: TopicIdPartition,
    broker_id: i32,
    cache: EpochCache,
}

/// `copyLogSegment` for the segment `base..next`: the STARTED record, the fileset, the FINISHED
/// record (none when the request stops the copy after some files).
fn copy_segment(
    t: &CopyTarget,
    writer: &mut MetadataWriter,
    (base, next): (i64, i64),
    req: &CopyRequest<'_>,
) -> Result<CopiedSegment> {
    let segment_leader_epochs = epoch_entries_in_range(&t.cache, base, next);
    if segment_leader_epochs.is_empty() {
        // RemoteLogSegmentMetadata's constructor refuses it: the copy fails.
        return Err(Error::state(
            &t.dir,
            format!("the epoch cache has no entry for offsets {base}..{}: Kafka cannot copy this segment", next - 1),
        ));
    }
    let epoch_checkpoint = epoch_entries_in_range(&t.cache, -1, next);
    let files = read_segment_files(&t.dir, base, next, &epoch_checkpoint)?;
    let metadata = SegmentMetadata {
        partition: t.partition.clone(),
        segment_id: segment_id(&t.partition, base, t.broker_id, writer.log_end_offset()),
        start_offset: base,
        end_offset: next - 1,
        broker_id: t.broker_id,
        max_timestamp_ms: files.max_timestamp_ms,
        event_timestamp_ms: req.now_ms,
        segment_leader_epochs,
        segment_size_in_bytes: files.size_bytes,
        state: RemoteLogSegmentState::CopySegmentStarted,
        txn_index_empty: files.txn_index_empty,
        custom_metadata_bytes: None,
    };
    let started_at = writer.append(encode_segment_metadata(&metadata), req.now_ms)?;
    crate::durable::create_dir(&t.remote_dir)?;
    let mut written = Vec::new();
    let wanted = req.stop_after_files.unwrap_or(usize::MAX);
    for (suffix, bytes) in files.files.iter().take(wanted) {
        let path = t.remote_dir.join(file_name(base, &metadata.segment_id, suffix));
        crate::durable::write_atomic(&path, bytes)?;
        written.push(path);
    }
    if req.stop_after_files.is_some() {
        return Ok(CopiedSegment { metadata, epoch_checkpoint, files: written, started_at, finished_at: None });
    }
    let update = SegmentUpdate {
        partition: t.partition.clone(),
        segment_id: metadata.segment_id,
        broker_id: t.broker_id,
        event_timestamp_ms: req.now_ms,
        state: RemoteLogSegmentState::CopySegmentFinished,
        custom_metadata_bytes: None,
    };
    let finished_at = writer.append(encode_segment_update(&update), req.now_ms)?;
    let metadata = SegmentMetadata { state: RemoteLogSegmentState::CopySegmentFinished, ..metadata };
    Ok(CopiedSegment { metadata, epoch_checkpoint, files: written, started_at, finished_at: Some(finished_at) })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::log::epoch_cache::EpochEntry;

    fn cache(pairs: &[(i32, i64)]) -> EpochCache {
        EpochCache::from_entries(pairs.iter().map(|&(e, o)| EpochEntry { leader_epoch: e, start_offset: o }))
    }

    #[test]
    fn candidates_are_the_closed_segments_whose_next_base_is_at_or_below_the_lso() {
        let bases = [0, 10, 20, 30];
        assert_eq!(candidate_segments(&bases, 0, 30), vec![(0, 10), (10, 20), (20, 30)]);
        assert_eq!(candidate_segments(&bases, 0, 25), vec![(0, 10), (10, 20)], "20..29 ends above the LSO");
        assert_eq!(candidate_segments(&bases, 15, 40), vec![(10, 20), (20, 30)], "from the segment holding 15");
        assert_eq!(candidate_segments(&bases, 35, 40), vec![], "the active segment is never copied");
        assert_eq!(candidate_segments(&[0], 0, 10), vec![]);
    }

    #[test]
    fn segment_epochs_are_the_cache_within_the_segment_and_the_checkpoint_the_cache_up_to_its_end() {
        let c = cache(&[(0, 0), (2, 15), (3, 25)]);
        assert_eq!(epoch_entries_in_range(&c, 10, 20), vec![(0, 10), (2, 15)]);
        assert_eq!(epoch_entries_in_range(&c, 20, 30), vec![(2, 20), (3, 25)]);
        assert_eq!(epoch_entries_in_range(&c, -1, 20), vec![(0, 0), (2, 15)]);
    }

    fn finished(epoch_highest: &[(i32, i64)]) -> PartitionRemoteMetadata {
        let mut p = PartitionRemoteMetadata::default();
        for &(e, h) in epoch_highest {
            p.epochs.entry(e).or_default().highest_log_offset = Some(h);
        }
        p
    }

    /// `findHighestRemoteOffset`: the latest epoch with a copy decides; an epoch the leader's
    /// cache ends earlier than the copy (another leader's longer history) gives its end − 1.
    #[test]
    fn the_copied_offset_is_found_from_the_latest_epoch_down() {
        let c = cache(&[(0, 0), (2, 15)]);
        assert_eq!(find_highest_remote_offset(&c, 40, &finished(&[])), (-1, -1));
        assert_eq!(find_highest_remote_offset(&c, 40, &finished(&[(0, 9)])), (9, 0));
        assert_eq!(find_highest_remote_offset(&c, 40, &finished(&[(0, 14), (2, 29)])), (29, 2));
        assert_eq!(find_highest_remote_offset(&c, 40, &finished(&[(0, 20)])), (14, 0), "epoch 0 ends at 15 here");
    }

    #[test]
    fn nothing_is_copied_while_the_lso_is_zero_or_already_copied() {
        let c = cache(&[(0, 0)]);
        let none = PartitionRemoteMetadata::default();
        assert_eq!(plan_copy(&c, &[0, 10], 0, 12, 0, &none).from_offset, None);
        let p = plan_copy(&c, &[0, 10, 20], 0, 25, 25, &none);
        assert_eq!((p.from_offset, p.candidates.clone()), (Some(0), vec![(0, 10), (10, 20)]));
        let p = plan_copy(&c, &[0, 10, 20], 0, 25, 25, &finished(&[(0, 9)]));
        assert_eq!((p.from_offset, p.candidates.clone()), (Some(10), vec![(10, 20)]));
        let p = plan_copy(&c, &[0, 10, 20], 0, 25, 19, &finished(&[(0, 19)]));
        assert_eq!(p.from_offset, None, "copied offset 19 is not below the LSO 19");
    }
}
