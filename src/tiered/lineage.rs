//! What is true across the tiers for one candidate leader: which remote segments it serves,
//! which its remote expiration deletes when it leads, what a consumer reads from each offset,
//! and which remote records no candidate serves (salvage). Each rule is Kafka 4.4.0's, read
//! from the 4.4.0 jars with `javap -c -l` (line numbers below are those jars' line tables;
//! the logic was read in the source of trunk at 1eb7644 (October 2024) and its bytecode
//! compared with 4.4.0's call for call):
//!
//! - **Lineage.** `RemoteLogManager.isRemoteSegmentWithinLeaderEpochs`
//!   (RemoteLogManager.java:1773-1848@4.4.0) over both epoch maps filtered of epochs with no
//!   records (`buildFilteredLeaderEpochMap`, :1860-1873): the segment's last epoch within the
//!   leader's first and last epochs; every segment epoch from the first one at or above the
//!   leader's first epoch in the leader's cache, the first not starting below the leader's
//!   entry (unless it is the leader's first epoch), the last ending before the leader's next
//!   epoch starts, each inner epoch followed by the same next entry in both; and the segment
//!   ending below the log end offset.
//! - **Expiration** when it leads (`RLMExpirationTask.cleanupExpiredRemoteLogSegments`,
//!   :1449-1615): for each epoch of its filtered cache in order, the segments of that epoch
//!   (`listRemoteLogSegments(tp, epoch)`: every state but DELETE_SEGMENT_FINISHED, by start
//!   offset): a DELETE_SEGMENT_STARTED one is deleted again; one whose epochs are all at or
//!   below the leader's first epoch and which ends below the log start is deleted
//!   (`isSegmentBreachByLogStartOffset`, :1337-1350); otherwise one within the lineage is
//!   deleted when retention by time breaches (`isSegmentBreachedByRetentionTime`,
//!   :1316-1331); the walk stops at the first segment within the lineage that stays. Then
//!   **leader-epoch-cache truncation** (:1581-1613, `deleteLogSegmentsDueToLeaderEpochCacheTruncation`
//!   :1358-1366): every segment whose epochs all lie below the earliest epoch of the leader's
//!   cache is deleted — segments of a lineage the leader no longer holds.
//! - **Log start** when it leads: `RLMCopyTask.maybeUpdateLogStartOffsetOnBecomingLeader`
//!   (:908-915) takes `findLogStartOffset` (:2164-2178): the first segment listed for the
//!   earliest epoch of its cache that has one (else the local log start), and the log only
//!   raises its log start to it (`UnifiedLog.updateLogStartOffsetFromRemoteTier`,
//!   UnifiedLog.java:453-458@4.4.0: `maybeIncrementLogStartOffset`); retention by time raises
//!   it past each segment it deletes; truncation and log-start deletions do not move it.
//! - **Reads.** A fetch below the leader's local log start and at or above its log start is
//!   read from remote (`RemoteLogManager.read`, :1877-1967): the epoch of the offset in the
//!   leader's cache (`LeaderEpochFileCache.epochForOffset`), then
//!   `RemoteLogMetadataCache.remoteLogSegmentMetadata(epoch, offset)`
//!   (RemoteLogMetadataCache.java:133-144@4.4.0): the floor entry of that epoch's finished
//!   segments by the offset the epoch starts at in each (`RemoteLogLeaderEpochState`, where a
//!   later copy of the same epoch starting at or below an earlier one unreferences it,
//!   :113-130), if the offset is within the epoch's range in that segment; no segment is
//!   OFFSET_OUT_OF_RANGE. The read returns the segment's batches from the one holding the
//!   offset to the segment's end (fetch sizes permitting): no lineage check on that path.
//!
//! klog orders the finished copies by the time of their last event (the COPY_SEGMENT_FINISHED
//! update) to rebuild each epoch's floor map; Kafka's cache applies them in the order of the
//! metadata partition's log, which is that order unless two brokers' clocks disagree.

use super::metadata_cache::{EpochState, PartitionRemoteMetadata};
use super::remote_log_metadata::{RemoteLogSegmentState, SegmentMetadata};
use crate::format::batch::BatchIter;
use std::collections::{BTreeMap, BTreeSet};
use std::ops::Bound::{Excluded, Unbounded};
use std::path::Path;

/// One candidate leader's replica of the partition, as its data dir holds it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Candidate {
    /// Its `leader-epoch-checkpoint` entries: (leader epoch, start offset), ascending.
    pub epoch_entries: Vec<(i32, i64)>,
    /// Its log start offset (the `log-start-offset-checkpoint` entry, else the local one).
    pub log_start_offset: i64,
    /// The base offset of its first local segment.
    pub local_log_start_offset: i64,
    pub log_end_offset: i64,
    /// Its local segments: (base offset, size in bytes), ascending.
    pub local_segments: Vec<(i64, u64)>,
}

/// Retention as the topic sets it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Retention {
    /// `retention.ms` (-1: none).
    pub retention_ms: i64,
    /// `retention.bytes` (-1: none).
    pub retention_bytes: i64,
    /// The clock the forecast is taken at.
    pub now_ms: i64,
}

/// Why the expiration task deletes a segment.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum DeleteCause {
    /// All its epochs below the earliest epoch of the leader's cache.
    LeaderEpochCacheTruncation,
    /// Its epochs at or below the leader's first, and it ends below the log start.
    LogStartOffsetBreach,
    /// Its largest timestamp at or before now − retention.ms.
    RetentionTime,
    /// The log's size (local above the remote tier, plus remote within the lineage) over
    /// retention.bytes by at least this segment's size.
    RetentionSize,
    /// A deletion that started and did not finish, retried.
    DeleteStartedRetry,
}

impl DeleteCause {
    pub fn name(self) -> &'static str {
        match self {
            DeleteCause::LeaderEpochCacheTruncation => "leader-epoch-cache truncation",
            DeleteCause::LogStartOffsetBreach => "log-start-offset breach",
            DeleteCause::RetentionTime => "retention.ms breach",
            DeleteCause::RetentionSize => "retention.bytes breach",
            DeleteCause::DeleteStartedRetry => "delete started, retried",
        }
    }
}

/// A segment the expiration task deletes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Deletion {
    pub segment_id: [u8; 16],
    pub start_offset: i64,
    pub end_offset: i64,
    pub cause: DeleteCause,
}

/// Where a consumer's fetch at an offset is answered from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ReadSource {
    /// From this remote segment (the fetch returns it from the batch holding the offset).
    Remote { segment_id: [u8; 16], end_offset: i64 },
    /// From the leader's local log.
    Local,
    /// OFFSET_OUT_OF_RANGE: below the log start, or no remote segment for the offset's epoch.
    OutOfRange,
}

/// Offsets `first_offset..=last_offset` all answered from `source`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ReadRange {
    pub first_offset: i64,
    pub last_offset: i64,
    pub source: ReadSource,
}

/// A remote segment as the candidate sees it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SegmentVerdict {
    pub segment_id: [u8; 16],
    pub start_offset: i64,
    pub end_offset: i64,
    /// `isRemoteSegmentWithinLeaderEpochs` against the candidate's cache and log end (`None`:
    /// the candidate has no epoch entry, the check cannot run).
    pub within_lineage: Option<bool>,
    /// The offsets whose fetch the candidate answers from this segment, after its expiration.
    pub served: Vec<(i64, i64)>,
}

/// What one candidate does across the tiers if it leads.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LeaderForecast {
    pub segments: Vec<SegmentVerdict>,
    /// Kafka's order: the retention walk's deletions, then leader-epoch-cache truncation.
    pub deletions: Vec<Deletion>,
    /// `findLogStartOffset` on the table before deletion.
    pub remote_log_start_offset: i64,
    /// The log start after it leads and its expiration ran: ListOffsets earliest.
    pub log_start_offset_after: i64,
    /// From the log start after to the log end, every offset's source.
    pub reads: Vec<ReadRange>,
}

impl LeaderForecast {
    pub fn deleted_count(&self) -> usize {
        self.deletions.len()
    }

    pub fn served_count(&self) -> usize {
        self.segments.iter().filter(|s| !s.served.is_empty()).count()
    }

    /// The offsets a consumer starting at the earliest offset reads in turn: each range is one
    /// run of fetches from one source; the walk ends at the log end or at OFFSET_OUT_OF_RANGE.
    pub fn consumer_from_earliest(&self) -> Vec<ReadRange> {
        let mut out: Vec<ReadRange> = Vec::new();
        let mut at = self.log_start_offset_after;
        // `reads` is in offset order, its ranges disjoint.
        while let Some(r) = self
            .reads
            .partition_point(|r| r.first_offset <= at)
            .checked_sub(1)
            .map(|i| &self.reads[i])
            .filter(|r| at <= r.last_offset)
        {
            let before = at;
            match r.source {
                ReadSource::Remote { end_offset, .. } => {
                    out.push(ReadRange { first_offset: at, last_offset: end_offset, source: r.source });
                    at = end_offset.saturating_add(1);
                }
                ReadSource::Local => {
                    out.push(ReadRange { first_offset: at, last_offset: r.last_offset, source: r.source });
                    at = r.last_offset.saturating_add(1);
                }
                ReadSource::OutOfRange => {
                    out.push(ReadRange { first_offset: at, last_offset: at, source: r.source });
                    break;
                }
            }
            if at <= before {
                // The last offset there is (i64::MAX): nothing follows.
                break;
            }
        }
        out
    }
}

/// `buildFilteredLeaderEpochMap` (RemoteLogManager.java:1860-1873@4.4.0): an epoch whose start
/// offset equals the next epoch's holds no record and is dropped.
pub fn filtered_epochs(entries: &[(i32, i64)]) -> BTreeMap<i32, i64> {
    let mut out = BTreeMap::new();
    for (i, &(epoch, offset)) in entries.iter().enumerate() {
        if entries.get(i + 1).is_some_and(|&(_, next)| next == offset) {
            continue;
        }
        out.insert(epoch, offset);
    }
    out
}

/// `isRemoteSegmentWithinLeaderEpochs` (RemoteLogManager.java:1773-1848@4.4.0). `leader` is
/// the candidate's filtered cache; `None` when it is empty (Kafka reads `firstKey` of it and
/// throws; the expiration task skips nothing else).
pub fn is_within_leader_epochs(
    segment: &SegmentMetadata,
    log_end_offset: i64,
    leader: &BTreeMap<i32, i64>,
) -> Option<bool> {
    let (&leader_first, _) = leader.first_key_value()?;
    let (&leader_last, _) = leader.last_key_value()?;
    let seg = filtered_epochs(&segment.segment_leader_epochs);
    let Some((&seg_last, _)) = seg.last_key_value() else { return Some(false) };
    if seg_last < leader_first || seg_last > leader_last {
        return Some(false);
    }
    let Some((&seg_first, _)) = seg.range(leader_first..).next() else { return Some(false) };
    for (&epoch, &offset) in seg.range(seg_first..) {
        let Some(&leader_offset) = leader.get(&epoch) else { return Some(false) };
        if epoch == seg_first && leader.range(..epoch).next_back().is_some() && offset < leader_offset {
            return Some(false);
        }
        let leader_next = leader.range((Excluded(epoch), Unbounded)).next();
        if epoch == seg_last {
            if let Some((_, &next_start)) = leader_next {
                if segment.end_offset > next_start.saturating_sub(1) {
                    return Some(false);
                }
            }
        } else if leader_next != seg.range((Excluded(epoch), Unbounded)).next() {
            return Some(false);
        }
    }
    Some(segment.end_offset < log_end_offset)
}

/// Segments of the table Kafka's cache lists under none of their epochs (a later copy took
/// their place in each): no expiration task lists them, so none deletes them.
pub fn unlisted_segments(p: &PartitionRemoteMetadata) -> Vec<&SegmentMetadata> {
    let states = &p.epochs;
    p.table()
        .into_iter()
        .filter(|s| {
            !s.segment_leader_epochs.iter().any(|&(epoch, _)| {
                states.get(&epoch).is_some_and(|st| {
                    st.unreferenced.contains(&s.segment_id) || st.offset_to_id.values().any(|id| id == &s.segment_id)
                })
            })
        })
        .collect()
}

fn epoch_for_offset(entries: &[(i32, i64)], offset: i64) -> Option<i32> {
    let after = entries.partition_point(|&(_, start)| start <= offset);
    after.checked_sub(1).map(|i| entries[i].0)
}

/// The segments `listRemoteLogSegments(tp, epoch)` gives (`listAllRemoteLogSegments` of the
/// epoch's state: `offsetToId`'s in offset order, then the unreferenced ones, sorted by start
/// offset), from `states` built over `p`.
fn listed<'a>(
    p: &'a PartitionRemoteMetadata,
    states: &BTreeMap<i32, EpochState>,
    epoch: i32,
) -> Vec<&'a SegmentMetadata> {
    let Some(state) = states.get(&epoch) else { return Vec::new() };
    let mut v: Vec<&SegmentMetadata> =
        state.offset_to_id.values().chain(state.unreferenced.iter()).filter_map(|id| p.segments.get(id)).collect();
    v.sort_by_key(|s| s.start_offset);
    v
}

/// `findLogStartOffset` (RemoteLogManager.java:2164-2178@4.4.0).
fn find_log_start_offset(p: &PartitionRemoteMetadata, states: &BTreeMap<i32, EpochState>, c: &Candidate) -> i64 {
    for &(epoch, _) in &c.epoch_entries {
        if let Some(first) = listed(p, states, epoch).first() {
            return first.start_offset;
        }
    }
    c.local_log_start_offset
}

/// Forecast what candidate `c` does across the tiers of partition `p` if it leads.
pub fn forecast(p: &PartitionRemoteMetadata, c: &Candidate, retention: Option<Retention>) -> LeaderForecast {
    let leader = filtered_epochs(&c.epoch_entries);
    let states = &p.epochs;
    let (mut deletions, retention_log_start) = retention_walk(p, c, &leader, retention);
    truncate_below_epoch_cache(p, c, &mut deletions);
    let remote_log_start_offset = find_log_start_offset(p, states, c);
    let log_start_offset_after =
        c.log_start_offset.max(remote_log_start_offset).max(retention_log_start.unwrap_or(i64::MIN));
    // The cache once the deletions are done (`DELETE_SEGMENT_STARTED`, then `_FINISHED`).
    let mut remaining = p.clone();
    for id in &deletions.ids {
        remaining.forget(id);
    }
    let reads = read_ranges(&remaining, c, log_start_offset_after);
    let segments = segment_verdicts(p, c, &leader, &reads);
    LeaderForecast { segments, deletions: deletions.list, remote_log_start_offset, log_start_offset_after, reads }
}

/// The deletions a forecast plans, in order, with their ids for lookups.
#[derive(Default)]
struct Deletions {
    list: Vec<Deletion>,
    ids: BTreeSet<[u8; 16]>,
}

impl Deletions {
    /// Plan deleting `s` for `cause`, unless it is planned already.
    fn add(&mut self, s: &SegmentMetadata, cause: DeleteCause) {
        if self.ids.insert(s.segment_id) {
            self.list.push(deletion(s, cause));
        }
    }
}

/// The retention walk (cleanupExpiredRemoteLogSegments, RemoteLogManager.java:1492-1548@4.4.0):
/// the deletions it plans, and the log start offset its deletions by retention raise.
fn retention_walk(
    p: &PartitionRemoteMetadata,
    c: &Candidate,
    leader: &BTreeMap<i32, i64>,
    retention: Option<Retention>,
) -> (Deletions, Option<i64>) {
    let mut deletions = Deletions::default();
    let mut retention_log_start: Option<i64> = None;
    // `remainingBreachedSize`: the bytes retention by size still has to delete.
    let mut breached_bytes = retention.map_or(0, |r| breached_size(p, c, leader, r.retention_bytes));
    let first_epoch = leader.keys().next().copied();
    'walk: for &epoch in leader.keys() {
        for s in listed(p, &p.epochs, epoch) {
            if s.state == RemoteLogSegmentState::DeleteSegmentStarted {
                deletions.add(s, DeleteCause::DeleteStartedRetry);
                continue;
            }
            if deletions.ids.contains(&s.segment_id) {
                continue;
            }
            let below_start = first_epoch.is_some_and(|f| s.segment_leader_epochs.iter().all(|&(e, _)| e <= f))
                && s.end_offset < c.log_start_offset;
            let mut valid = false;
            let mut delete = below_start;
            if below_start {
                deletions.add(s, DeleteCause::LogStartOffsetBreach);
            } else {
                valid = is_within_leader_epochs(s, c.log_end_offset, leader) == Some(true);
                let cause = if valid { retention_cause(s, retention, &mut breached_bytes) } else { None };
                if let Some(cause) = cause {
                    delete = true;
                    deletions.add(s, cause);
                    let next = s.end_offset.saturating_add(1);
                    retention_log_start = Some(retention_log_start.map_or(next, |o: i64| o.max(next)));
                }
            }
            // `canProcess = shouldDeleteSegment || !isValidSegment`.
            if !delete && valid {
                break 'walk;
            }
        }
    }
    (deletions, retention_log_start)
}

/// Whether retention deletes the valid segment `s`:
/// `isSegmentBreachedByRetentionTime(s) || isSegmentBreachedByRetentionSize(s)`
/// (RemoteLogManager.java:1316-1331, :1293-1312@4.4.0); a deletion by time takes its size off
/// the breach too.
fn retention_cause(s: &SegmentMetadata, retention: Option<Retention>, breached_bytes: &mut i64) -> Option<DeleteCause> {
    if retention.is_some_and(|r| r.retention_ms > -1 && s.max_timestamp_ms <= r.now_ms.saturating_sub(r.retention_ms)) {
        *breached_bytes = breached_bytes.saturating_sub(i64::from(s.segment_size_in_bytes)).max(0);
        Some(DeleteCause::RetentionTime)
    } else if *breached_bytes > 0 && *breached_bytes - i64::from(s.segment_size_in_bytes) >= 0 {
        *breached_bytes -= i64::from(s.segment_size_in_bytes);
        Some(DeleteCause::RetentionSize)
    } else {
        None
    }
}

/// Leader-epoch-cache truncation (RemoteLogManager.java:1581-1613@4.4.0): segments whose epochs
/// all lie below the earliest entry of the cache (unfiltered: `leaderEpochCache.earliestEntry()`).
fn truncate_below_epoch_cache(p: &PartitionRemoteMetadata, c: &Candidate, deletions: &mut Deletions) {
    let Some(&(earliest, _)) = c.epoch_entries.first() else { return };
    let remote_epochs: BTreeSet<i32> =
        p.segments.values().flat_map(|s| s.segment_leader_epochs.iter().map(|&(e, _)| e)).collect();
    for epoch in remote_epochs.range(..earliest) {
        for s in listed(p, &p.epochs, *epoch) {
            if s.segment_leader_epochs.iter().all(|&(e, _)| e < earliest) {
                deletions.add(s, DeleteCause::LeaderEpochCacheTruncation);
            }
        }
    }
}

/// Each remote segment's verdict: within the candidate's lineage or not, and the offsets the
/// forecast's reads take from it.
fn segment_verdicts(
    p: &PartitionRemoteMetadata,
    c: &Candidate,
    leader: &BTreeMap<i32, i64>,
    reads: &[ReadRange],
) -> Vec<SegmentVerdict> {
    let mut served: BTreeMap<[u8; 16], Vec<(i64, i64)>> = BTreeMap::new();
    for r in reads {
        if let ReadSource::Remote { segment_id, .. } = r.source {
            served.entry(segment_id).or_default().push((r.first_offset, r.last_offset));
        }
    }
    p.table()
        .into_iter()
        .map(|s| SegmentVerdict {
            segment_id: s.segment_id,
            start_offset: s.start_offset,
            end_offset: s.end_offset,
            within_lineage: is_within_leader_epochs(s, c.log_end_offset, leader),
            served: served.remove(&s.segment_id).unwrap_or_default(),
        })
        .collect()
}

/// `findHighestRemoteOffset` (RemoteLogManager.java:2134-2160@4.4.0): from the candidate's
/// latest epoch down, the first epoch with a finished copy (`highestOffsetForEpoch`) gives the
/// highest offset in remote storage, capped below the epoch's end in the candidate's cache; -1
/// when none has one. A leader copies from the offset after it, and its local segments above it
/// are the ones only on its disk.
pub fn highest_remote_offset(p: &PartitionRemoteMetadata, c: &Candidate) -> i64 {
    let cache = crate::log::epoch_cache::EpochCache::from_entries(
        c.epoch_entries
            .iter()
            .map(|&(leader_epoch, start_offset)| crate::log::epoch_cache::EpochEntry { leader_epoch, start_offset }),
    );
    super::copy::find_highest_remote_offset(&cache, c.log_end_offset, p).0
}

/// `buildRetentionSizeData` (RemoteLogManager.java:1643-1700@4.4.0): the log's size is its
/// local segments above the highest remote offset (`UnifiedLog.onlyLocalLogSegmentsSize`,
/// UnifiedLog.java:2131@4.4.0: base offset above it) plus each finished copy listed under an
/// epoch of the candidate's filtered cache and within its lineage, counted once; what exceeds
/// `retention_bytes` is to be deleted (0: nothing, or `retention.bytes` -1).
fn breached_size(p: &PartitionRemoteMetadata, c: &Candidate, leader: &BTreeMap<i32, i64>, retention_bytes: i64) -> i64 {
    if retention_bytes < 0 {
        return 0;
    }
    let highest = highest_remote_offset(p, c);
    let local = c
        .local_segments
        .iter()
        .filter(|&&(base, _)| base > highest)
        .fold(0i64, |sum, &(_, size)| sum.saturating_add(i64::try_from(size).unwrap_or(i64::MAX)));
    let mut seen: BTreeSet<[u8; 16]> = BTreeSet::new();
    let mut remote = 0i64;
    for &epoch in leader.keys() {
        for s in listed(p, &p.epochs, epoch) {
            if s.state == RemoteLogSegmentState::CopySegmentFinished
                && seen.insert(s.segment_id)
                && is_within_leader_epochs(s, c.log_end_offset, leader) == Some(true)
            {
                remote += i64::from(s.segment_size_in_bytes);
            }
        }
    }
    local.saturating_add(remote).saturating_sub(retention_bytes).max(0)
}

fn deletion(s: &SegmentMetadata, cause: DeleteCause) -> Deletion {
    Deletion { segment_id: s.segment_id, start_offset: s.start_offset, end_offset: s.end_offset, cause }
}

/// Every offset from `log_start` to the log end, by source, in ranges.
fn read_ranges(remaining: &PartitionRemoteMetadata, c: &Candidate, log_start: i64) -> Vec<ReadRange> {
    let mut out: Vec<ReadRange> = Vec::new();
    let mut push = |first: i64, last: i64, source: ReadSource| {
        if last < first {
            return;
        }
        match out.last_mut() {
            Some(r) if r.source == source && r.last_offset.saturating_add(1) == first => r.last_offset = last,
            _ => out.push(ReadRange { first_offset: first, last_offset: last, source }),
        }
    };
    let remote_end = c.local_log_start_offset.min(c.log_end_offset);
    if log_start < remote_end {
        // The source is constant between these offsets: where an epoch starts in the cache or
        // in a segment, and past where a segment or an epoch of it ends.
        let mut cuts: BTreeSet<i64> = BTreeSet::from([log_start, remote_end]);
        cuts.extend(c.epoch_entries.iter().map(|&(_, o)| o));
        for s in remaining.segments.values() {
            cuts.insert(s.start_offset);
            cuts.insert(s.end_offset.saturating_add(1));
            cuts.extend(s.segment_leader_epochs.iter().map(|&(_, o)| o));
        }
        let cuts: Vec<i64> = cuts.into_iter().filter(|&o| o >= log_start && o <= remote_end).collect();
        for w in cuts.windows(2) {
            let (first, next) = (w[0], w[1]);
            let source =
                match epoch_for_offset(&c.epoch_entries, first).and_then(|epoch| remaining.segment_for(epoch, first)) {
                    Some(s) => ReadSource::Remote { segment_id: s.segment_id, end_offset: s.end_offset },
                    None => ReadSource::OutOfRange,
                };
            push(first, next.saturating_sub(1), source);
        }
    }
    push(c.local_log_start_offset.max(log_start), c.log_end_offset.saturating_sub(1), ReadSource::Local);
    out
}

/// Records of a remote segment no candidate serves, as its LocalTieredStorage `.log` holds them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Salvage {
    pub segment_id: [u8; 16],
    pub start_offset: i64,
    pub end_offset: i64,
    /// Offsets of the records in the file (batch base to last offset, control batches left
    /// out), and how many records.
    pub first_record_offset: Option<i64>,
    pub last_record_offset: Option<i64>,
    pub record_count: u64,
    /// Why the file was not read to the end (a batch that does not verify, a short file).
    pub unreadable: Option<String>,
}

/// Scan a remote `.log` (bytes) for salvage.
pub fn salvage_from(segment: &SegmentMetadata, log: &Path) -> Salvage {
    let mut out = Salvage {
        segment_id: segment.segment_id,
        start_offset: segment.start_offset,
        end_offset: segment.end_offset,
        first_record_offset: None,
        last_record_offset: None,
        record_count: 0,
        unreadable: None,
    };
    let bytes = match crate::regular_file::read_regular(log) {
        Ok(Some(b)) => b,
        Ok(None) => {
            out.unreadable = Some(format!("{}: not a regular file", log.display()));
            return out;
        }
        Err(e) => {
            out.unreadable = Some(e.to_string());
            return out;
        }
    };
    let mut iter = BatchIter::new(&bytes);
    for b in iter.by_ref() {
        if let Err(defect) = b.verify() {
            out.unreadable = Some(format!("{}: batch at position {}: {defect:?}", log.display(), b.position));
            return out;
        }
        let count = match b.header() {
            Some(h) if h.is_control() => continue,
            Some(h) => u64::try_from(h.records_count).unwrap_or(0),
            // A legacy (v0/v1) entry: one record per offset of its wrapper.
            None => u64::try_from(b.last_offset().saturating_sub(b.base_offset()).saturating_add(1)).unwrap_or(0),
        };
        out.first_record_offset.get_or_insert(b.base_offset());
        out.last_record_offset = Some(b.last_offset());
        out.record_count += count;
    }
    if let Some(stop) = iter.stop().filter(|s| !matches!(s, crate::format::batch::ScanStop::End)) {
        out.unreadable = Some(format!("{}: the batches stop early: {stop:?}", log.display()));
    }
    out
}

/// The finished segments none of the forecasts serves from remote storage and none keeps
/// within its lineage (a segment within a leader's lineage holds that leader's own records,
/// served from its local log where the remote copy is not read).
pub fn served_by_none<'a>(p: &'a PartitionRemoteMetadata, forecasts: &[&LeaderForecast]) -> Vec<&'a SegmentMetadata> {
    let mut kept: BTreeSet<[u8; 16]> = BTreeSet::new();
    for f in forecasts {
        let deleted: BTreeSet<[u8; 16]> = f.deletions.iter().map(|d| d.segment_id).collect();
        for v in &f.segments {
            if !v.served.is_empty() || (v.within_lineage == Some(true) && !deleted.contains(&v.segment_id)) {
                kept.insert(v.segment_id);
            }
        }
    }
    p.table()
        .into_iter()
        .filter(|s| s.state == RemoteLogSegmentState::CopySegmentFinished && !kept.contains(&s.segment_id))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tiered::remote_log_metadata::TopicIdPartition;

    fn seg(n: u8, start: i64, end: i64, epochs: &[(i32, i64)], finished_at: i64) -> SegmentMetadata {
        SegmentMetadata {
            partition: TopicIdPartition { topic_id: [7; 16], topic: "t".into(), partition: 0 },
            segment_id: [n; 16],
            start_offset: start,
            end_offset: end,
            broker_id: 1,
            max_timestamp_ms: 1_000 + i64::from(n),
            event_timestamp_ms: finished_at,
            segment_leader_epochs: epochs.to_vec(),
            segment_size_in_bytes: 100,
            state: RemoteLogSegmentState::CopySegmentFinished,
            txn_index_empty: true,
            custom_metadata_bytes: None,
        }
    }

    fn partition(segments: Vec<SegmentMetadata>) -> PartitionRemoteMetadata {
        PartitionRemoteMetadata::replay(segments)
    }

    fn map(pairs: &[(i32, i64)]) -> BTreeMap<i32, i64> {
        pairs.iter().copied().collect()
    }

    #[test]
    fn filtered_epochs_drop_an_epoch_with_no_records() {
        // The example of buildFilteredLeaderEpochMap's javadoc.
        let e = [(0, 0), (1, 10), (2, 20), (3, 30), (4, 40), (5, 60), (6, 60), (7, 70)];
        assert_eq!(filtered_epochs(&e), map(&[(0, 0), (1, 10), (2, 20), (3, 30), (4, 40), (6, 60), (7, 70)]));
    }

    #[test]
    fn within_leader_epochs_follows_kafkas_cases() {
        // RemoteLogManagerTest's lineage {0:0, 1:10, 2:20, 3:30} (log end 40).
        let leader = map(&[(0, 0), (1, 10), (2, 20), (3, 30)]);
        let ok = seg(1, 5, 25, &[(0, 5), (1, 10), (2, 20)], 0);
        assert_eq!(is_within_leader_epochs(&ok, 40, &leader), Some(true));
        // Its end reaches into the next epoch of the leader.
        let long = seg(2, 5, 31, &[(0, 5), (1, 10), (2, 20)], 0);
        assert_eq!(is_within_leader_epochs(&long, 40, &leader), Some(false));
        // An inner epoch starts elsewhere than in the leader's cache: another lineage.
        let other = seg(3, 5, 25, &[(0, 5), (1, 12), (2, 20)], 0);
        assert_eq!(is_within_leader_epochs(&other, 40, &leader), Some(false));
        // An epoch the leader never had.
        let unknown = seg(4, 5, 25, &[(0, 5), (4, 10)], 0);
        assert_eq!(is_within_leader_epochs(&unknown, 40, &leader), Some(false));
        // The segment ends at or above the log end.
        let above = seg(5, 30, 40, &[(3, 30)], 0);
        assert_eq!(is_within_leader_epochs(&above, 40, &leader), Some(false));
        // A leader whose cache starts at epoch 2 (truncated from the start): a segment from
        // epoch 1 into 2 is judged from epoch 2, which may start anywhere below its entry.
        let truncated = map(&[(2, 22), (3, 30)]);
        assert_eq!(is_within_leader_epochs(&seg(6, 12, 25, &[(1, 12), (2, 20)], 0), 40, &truncated), Some(true));
        // A segment entirely below the leader's first epoch.
        assert_eq!(is_within_leader_epochs(&seg(7, 0, 9, &[(0, 0)], 0), 40, &truncated), Some(false));
        assert_eq!(is_within_leader_epochs(&ok, 40, &BTreeMap::new()), None);
    }

    /// The story of issue 45: broker 1 led at epoch 0 and copied segments 0..=99 and
    /// 100..=199; broker 3, out of sync at offset 150, was elected uncleanly at epoch 2 and
    /// copied 150..=249. Broker 1, its follower after, rebuilt its cache from broker 3's
    /// lineage starting at epoch 2, and leads again after a preferred election.
    fn unclean_story() -> PartitionRemoteMetadata {
        partition(vec![
            seg(1, 0, 99, &[(0, 0)], 10),
            seg(2, 100, 199, &[(0, 100)], 20),
            seg(3, 150, 249, &[(2, 150)], 30),
        ])
    }

    #[test]
    fn the_unclean_leader_serves_the_old_lineage_up_to_where_it_diverged_and_deletes_nothing() {
        let p = unclean_story();
        let broker3 = Candidate {
            epoch_entries: vec![(0, 0), (2, 150)],
            log_start_offset: 0,
            local_log_start_offset: 250,
            log_end_offset: 300,
            local_segments: Vec::new(),
        };
        let f = forecast(&p, &broker3, None);
        assert!(f.deletions.is_empty(), "{:?}", f.deletions);
        assert_eq!(f.log_start_offset_after, 0);
        let remote = |n: u8, end| ReadSource::Remote { segment_id: [n; 16], end_offset: end };
        assert_eq!(
            f.reads,
            vec![
                ReadRange { first_offset: 0, last_offset: 99, source: remote(1, 99) },
                // Epoch 0 of segment 2 covers 100..=199 in Kafka's cache: the old lineage's
                // 150..=199 is what a fetch of 100..=149 returns with it.
                ReadRange { first_offset: 100, last_offset: 149, source: remote(2, 199) },
                ReadRange { first_offset: 150, last_offset: 249, source: remote(3, 249) },
                ReadRange { first_offset: 250, last_offset: 299, source: ReadSource::Local },
            ]
        );
        // Segment 2 spans past the new leader's epoch 2 start: outside its lineage, yet served.
        assert_eq!(f.segments[1].within_lineage, Some(false));
        assert_eq!(f.segments[1].served, vec![(100, 149)]);
        // The consumer from earliest: the remote fetch at 100 returns segment 2 to its end.
        let walk = f.consumer_from_earliest();
        assert_eq!(
            walk.iter().map(|r| (r.first_offset, r.last_offset)).collect::<Vec<_>>(),
            [(0, 99), (100, 199), (200, 249), (250, 299)]
        );
    }

    #[test]
    fn the_old_leader_back_deletes_the_old_lineage_by_leader_epoch_cache_truncation() {
        let p = unclean_story();
        let broker1 = Candidate {
            epoch_entries: vec![(2, 150), (4, 300)],
            log_start_offset: 0,
            local_log_start_offset: 250,
            log_end_offset: 300,
            local_segments: Vec::new(),
        };
        let f = forecast(&p, &broker1, None);
        assert_eq!(
            f.deletions.iter().map(|d| (d.start_offset, d.end_offset, d.cause)).collect::<Vec<_>>(),
            [(0, 99, DeleteCause::LeaderEpochCacheTruncation), (100, 199, DeleteCause::LeaderEpochCacheTruncation)]
        );
        assert_eq!(f.remote_log_start_offset, 150);
        assert_eq!(f.log_start_offset_after, 150);
        assert_eq!(
            f.reads[0],
            ReadRange {
                first_offset: 150,
                last_offset: 249,
                source: ReadSource::Remote { segment_id: [3; 16], end_offset: 249 }
            }
        );
        assert_eq!(served_by_none(&p, &[&f]).len(), 2);
    }

    #[test]
    fn a_log_start_breach_deletes_before_the_lineage_walk_stops() {
        let p = partition(vec![
            seg(1, 0, 99, &[(0, 0)], 10),
            seg(2, 100, 199, &[(0, 100)], 20),
            seg(3, 200, 299, &[(0, 200)], 30),
        ]);
        let c = Candidate {
            epoch_entries: vec![(0, 150)],
            log_start_offset: 150,
            local_log_start_offset: 300,
            log_end_offset: 350,
            local_segments: Vec::new(),
        };
        let f = forecast(&p, &c, None);
        assert_eq!(
            f.deletions.iter().map(|d| (d.start_offset, d.cause)).collect::<Vec<_>>(),
            [(0, DeleteCause::LogStartOffsetBreach)]
        );
        // Offsets 150..=199 are read from segment 2 (its epoch 0 range reaches them).
        assert_eq!(f.reads[0].first_offset, 150);
        assert_eq!(f.reads[0].source, ReadSource::Remote { segment_id: [2; 16], end_offset: 199 });
    }

    #[test]
    fn retention_by_time_deletes_and_raises_the_log_start() {
        let p = partition(vec![seg(1, 0, 99, &[(0, 0)], 10), seg(2, 100, 199, &[(0, 100)], 20)]);
        let c = Candidate {
            epoch_entries: vec![(0, 0)],
            log_start_offset: 0,
            local_log_start_offset: 200,
            log_end_offset: 250,
            local_segments: Vec::new(),
        };
        // Segment 1's largest timestamp is 1001, segment 2's 1002: cut at 1001.
        let f = forecast(&p, &c, Some(Retention { retention_ms: 10, retention_bytes: -1, now_ms: 1_011 }));
        assert_eq!(
            f.deletions.iter().map(|d| (d.start_offset, d.cause)).collect::<Vec<_>>(),
            [(0, DeleteCause::RetentionTime)]
        );
        assert_eq!(f.log_start_offset_after, 100);
        assert_eq!(f.reads[0].first_offset, 100);
    }

    #[test]
    fn an_offset_whose_epoch_has_no_remote_segment_is_out_of_range() {
        // The candidate's cache says 100..=149 were written at epoch 1; remote holds only
        // epoch 0's copy of them.
        let p = partition(vec![seg(1, 0, 149, &[(0, 0)], 10)]);
        let c = Candidate {
            epoch_entries: vec![(0, 0), (1, 100)],
            log_start_offset: 0,
            local_log_start_offset: 150,
            log_end_offset: 200,
            local_segments: Vec::new(),
        };
        let f = forecast(&p, &c, None);
        assert_eq!(f.reads[1], ReadRange { first_offset: 100, last_offset: 149, source: ReadSource::OutOfRange });
        // A consumer from earliest never asks for 100: the fetch at 0 returns segment 1 whole.
        let walk = f.consumer_from_earliest();
        assert_eq!(walk.iter().map(|r| (r.first_offset, r.last_offset)).collect::<Vec<_>>(), [(0, 149), (150, 199)]);
        // One that starts at 100 is refused.
        let mut from_100 = f.clone();
        from_100.log_start_offset_after = 100;
        assert_eq!(from_100.consumer_from_earliest()[0].source, ReadSource::OutOfRange);
    }

    #[test]
    fn a_copy_displaced_at_its_start_offset_is_listed_no_more_and_never_deleted() {
        // Broker 1 copied 196..=223 at epoch 0; broker 3, elected uncleanly at 200, copied
        // 196..=223 again with epochs 0@196 3@200. For epoch 0, Kafka's cache puts the second
        // at key 196 over the first (its highest offset of epoch 0, 783, is above 199: no
        // unreferencing), so the first is listed under no epoch: the real 4.4 run's one
        // segment a leader-epoch-cache truncation left behind.
        let p = partition(vec![
            seg(1, 0, 195, &[(0, 0)], 10),
            seg(2, 196, 223, &[(0, 196)], 20),
            seg(3, 224, 783, &[(0, 224)], 30),
            seg(4, 196, 223, &[(0, 196), (3, 200)], 40),
        ]);
        assert_eq!(unlisted_segments(&p).iter().map(|s| s.segment_id[0]).collect::<Vec<_>>(), [2]);
        let broker1 = Candidate {
            epoch_entries: vec![(3, 200)],
            log_start_offset: 200,
            local_log_start_offset: 224,
            log_end_offset: 300,
            local_segments: Vec::new(),
        };
        let f = forecast(&p, &broker1, None);
        assert_eq!(f.deletions.iter().map(|d| d.segment_id[0]).collect::<Vec<_>>(), [1, 3]);
        assert_eq!(f.remote_log_start_offset, 196);
        assert_eq!(
            f.reads[0],
            ReadRange {
                first_offset: 200,
                last_offset: 223,
                source: ReadSource::Remote { segment_id: [4; 16], end_offset: 223 }
            }
        );
    }

    #[test]
    fn offsets_and_epochs_at_their_limits_do_not_panic() {
        // Metadata read from disk is not trusted: the extremes of i64 offsets and i32 epochs.
        let p = partition(vec![
            seg(1, i64::MIN, i64::MAX, &[(i32::MIN, i64::MIN), (i32::MAX, i64::MAX)], i64::MAX),
            seg(2, i64::MAX, i64::MAX, &[(i32::MAX, i64::MAX)], i64::MIN),
            seg(3, 5, 1, &[], 0),
        ]);
        for entries in [vec![], vec![(i32::MAX, i64::MIN)], vec![(i32::MIN, i64::MIN), (i32::MAX, i64::MAX)]] {
            for (start, local, end) in [(i64::MIN, i64::MAX, i64::MAX), (0, 0, 0), (i64::MAX, i64::MIN, i64::MIN)] {
                let c = Candidate {
                    epoch_entries: entries.clone(),
                    log_start_offset: start,
                    local_log_start_offset: local,
                    log_end_offset: end,
                    local_segments: Vec::new(),
                };
                let f =
                    forecast(&p, &c, Some(Retention { retention_ms: i64::MAX, retention_bytes: -1, now_ms: i64::MIN }));
                let _ = f.consumer_from_earliest();
            }
        }
        let _ = unlisted_segments(&p);
    }

    #[test]
    fn a_later_copy_of_the_same_epoch_unreferences_the_earlier_one() {
        // Broker 1 copied 0..=99 at epoch 0, broker 2 later 0..=149 at epoch 0 (a superset).
        let p = partition(vec![seg(1, 0, 99, &[(0, 0)], 10), seg(2, 0, 149, &[(0, 0)], 20)]);
        let c = Candidate {
            epoch_entries: vec![(0, 0)],
            log_start_offset: 0,
            local_log_start_offset: 150,
            log_end_offset: 200,
            local_segments: Vec::new(),
        };
        let f = forecast(&p, &c, None);
        assert_eq!(f.reads[0].source, ReadSource::Remote { segment_id: [2; 16], end_offset: 149 });
        assert!(f.segments.iter().find(|s| s.segment_id == [1; 16]).unwrap().served.is_empty());
    }

    #[test]
    fn retention_by_size_deletes_the_oldest_segments_until_the_log_fits() {
        // Three finished copies of 100 bytes each, local segments 300 (copied) and 400 of 50
        // bytes: the size counted is 300 remote + 50 local above the highest remote offset 299.
        let p = partition(vec![
            seg(1, 0, 99, &[(0, 0)], 10),
            seg(2, 100, 199, &[(0, 100)], 20),
            seg(3, 200, 299, &[(0, 200)], 30),
        ]);
        let c = Candidate {
            epoch_entries: vec![(0, 0)],
            log_start_offset: 0,
            local_log_start_offset: 200,
            log_end_offset: 450,
            local_segments: vec![(200, 100), (300, 50)],
        };
        assert_eq!(highest_remote_offset(&p, &c), 299);
        let size = |bytes| Some(Retention { retention_ms: -1, retention_bytes: bytes, now_ms: 0 });
        // 350 over 160 by 190: one segment's 100 fits in the breach, the second's does not
        // (`remainingBreachedSize - size >= 0`), and the walk stops at the first that stays.
        let f = forecast(&p, &c, size(160));
        assert_eq!(
            f.deletions.iter().map(|d| (d.start_offset, d.cause)).collect::<Vec<_>>(),
            [(0, DeleteCause::RetentionSize)]
        );
        assert_eq!(f.log_start_offset_after, 100);
        // Over by exactly two segments: both go.
        let f = forecast(&p, &c, size(150));
        assert_eq!(f.deletions.len(), 2);
        assert_eq!(f.log_start_offset_after, 200);
        // Under the limit, or no limit: nothing.
        assert!(forecast(&p, &c, size(350)).deletions.is_empty());
        assert!(forecast(&p, &c, size(-1)).deletions.is_empty());
    }

    #[test]
    fn the_highest_remote_offset_is_capped_below_where_the_candidates_epoch_ends() {
        // The copy of epoch 0 reaches 199, but this candidate's epoch 0 ends at 150.
        let p = partition(vec![seg(1, 0, 199, &[(0, 0)], 10)]);
        let c = |entries: Vec<(i32, i64)>| Candidate {
            epoch_entries: entries,
            log_start_offset: 0,
            local_log_start_offset: 0,
            log_end_offset: 300,
            local_segments: Vec::new(),
        };
        assert_eq!(highest_remote_offset(&p, &c(vec![(0, 0), (1, 150)])), 149);
        assert_eq!(highest_remote_offset(&p, &c(vec![(0, 0)])), 199);
        // No epoch of the candidate has a copy.
        assert_eq!(highest_remote_offset(&p, &c(vec![(3, 0)])), -1);
    }
}
