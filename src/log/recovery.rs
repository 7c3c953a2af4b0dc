//! Local log recovery, as a broker does at start-up (Kafka 4.4 `LogLoader.load`,
//! `recoverLog`, `LogSegment.recover`, `LogSegment.readNextOffset`,
//! `LocalLog.splitOverflowedSegment`; kafka-format.md §5), checked against Kafka's own loader by
//! tests/kafka/oracle_load.rs.
//!
//! A segment without `.index` is recovered on its own first (a cut there deletes nothing else).
//! After an unclean stop every segment from the one holding the recovery point onward is
//! scanned batch by batch with Kafka's rules only: size and CRC (without decompressing), then
//! the last offset within the segment's 32-bit relative range (a batch outside it splits the
//! segment when Kafka's `hasOverflow` sees it in the last batch, and refuses the start
//! otherwise), then the index appends (an offset- or time-index entry that would go backwards
//! empties the segment). Offsets that go backwards elsewhere, or start below the segment's
//! base, are kept, as Kafka keeps them. The first segment cut takes every later one with it;
//! later segments are deleted before the cut, so a recovery killed at any moment is finished
//! by the next one with the same result. The log end is where `readNextOffset` reads it; a log
//! ending below the log-start checkpoint loses every segment and starts there. The epoch cache
//! learns the epochs of scanned batches above its latest and is truncated to the log end and
//! start; producer snapshots above the end are deleted; the report lists every byte destroyed.
//!
//! A load is a pure plan and an apply (raft-engine's recovery reads, then writes):
//! [`plan_load`] reads the files once, takes every decision ([`scan_segment`]) on an in-memory
//! view of the log and writes nothing — a dry run is this plan; [`apply_load`] makes the writes
//! the plan lists ([`LoadPlan`]) through [`crate::durable`], in the plan's order, without
//! scanning a segment again. [`load_log`] is the two in turn.

use super::epoch_cache::EpochEntry;
use super::index::{IndexBuilder, TIME_ENTRY_BYTES};
use super::producer_state::{LoadEvent, SnapshotOp};
use super::segment::{self, Segment};
use super::Log;
use crate::durable;
use crate::error::{IoContext, Result};
use crate::format::batch::{BatchIter, RawBatch, ScanStop};

/// A batch (or unframed bytes) that recovery removed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CutBatch {
    pub segment_base_offset: i64,
    pub position: u64,
    pub size_bytes: u64,
    /// Offsets and epoch if the bytes still frame as a batch.
    pub base_offset: Option<i64>,
    pub last_offset: Option<i64>,
    pub partition_leader_epoch: Option<i32>,
    /// Bytes that do not frame but begin like a v2 batch header (a torn write): the first and
    /// last offsets that header names. Unverified (the CRC covers bytes that are gone), shown
    /// so a report can name the offsets the crash left half-written.
    pub partial_offsets: Option<(i64, i64)>,
}

/// What recovery did to one segment.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SegmentRecovery {
    pub base_offset: i64,
    pub batches_valid: u64,
    pub valid_bytes: u64,
    pub truncated_bytes: u64,
    /// Why the scan stopped early: position and reason.
    pub invalid_at: Option<(u64, String)>,
    pub index_entries: u64,
    pub time_index_entries: u64,
    /// The next offset after the last valid batch (the segment's base if none).
    pub end_offset: i64,
}

/// The whole local recovery.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct RecoveryReport {
    pub clean_shutdown: bool,
    /// The replica was running but its last writer died mid-write (a killed command).
    pub interrupted_write: bool,
    pub recovery_point_before: i64,
    pub log_end_offset_before: i64,
    pub log_end_offset_after: i64,
    pub segments: Vec<SegmentRecovery>,
    pub cut: Vec<CutBatch>,
    pub deleted_segments: Vec<i64>,
    pub epochs_added: Vec<EpochEntry>,
    pub epochs_removed: Vec<EpochEntry>,
    /// The epoch cache the load leaves.
    pub epochs_after: Vec<EpochEntry>,
    /// `max(log-start checkpoint, first segment's base offset)` after the load.
    pub log_start_offset_after: i64,
    /// Every segment the load leaves: (base offset, `.log` bytes).
    pub segments_after: Vec<(i64, u64)>,
    /// `.log` bytes before the load minus after it.
    pub bytes_removed: u64,
    /// The producer-state rebuild that follows the load.
    pub producer_state: ProducerRebuild,
    /// What the load does to the producer snapshots, in order (`ProducerStateManager`).
    pub snapshot_ops: Vec<super::producer_state::SnapshotOp>,
    /// The state the log's producer-state manager starts its last rebuild from (what a
    /// broker's manager holds before replaying the rest of the log); `None` when the load
    /// did not get that far or was not simulated.
    pub producer_rebuild_start: Option<super::producer_state::RebuildStart>,
    /// The first unstable offset of the loaded log when `UnifiedLog` opens it (see
    /// [`super::producer_state::SnapshotFiles::first_unstable_at_open`]).
    pub first_unstable_at_open: Option<i64>,
    /// What `UnifiedLog` reports for each of its transactions' first offsets once it is the
    /// first unstable offset (see
    /// [`super::producer_state::SnapshotFiles::unstable_reported`]).
    pub unstable_reported: std::collections::BTreeMap<i64, i64>,
    /// The producer state the load leaves (see
    /// [`super::producer_state::SnapshotFiles::after_load`]).
    pub producers_after_load: Option<super::producer_state::ProducerReplay>,
    /// Segments split for offset overflow (`splitOverflowedSegment`, which deletes the old one).
    pub segments_split: usize,
}

/// What `UnifiedLog.rebuildProducerState` reads after the load: the snapshot it starts from
/// and the log it scans from there to the log end (restart time grows with `scan_bytes`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct ProducerRebuild {
    pub snapshot_offset: Option<i64>,
    pub scan_from_offset: i64,
    /// `.log` bytes of the segments from the one holding `scan_from_offset` to the end.
    pub scan_bytes: u64,
}

impl RecoveryReport {
    /// Offsets held by the cut bytes that still frame as batches (damage that left a batch
    /// unframed or its offsets absurd counts no offset).
    pub fn offsets_cut(&self) -> u64 {
        self.cut
            .iter()
            .filter_map(|c| Some((c.base_offset?, c.last_offset?)))
            .filter(|(b, l)| *b >= 0 && l >= b && l - b < i64::from(i32::MAX))
            .map(|(b, l)| (l - b + 1) as u64)
            .sum()
    }

    pub fn bytes_cut(&self) -> u64 {
        self.cut.iter().map(|c| c.size_bytes).sum()
    }

    /// After a clean shutdown the loader recovers nothing and takes the log end from the last
    /// batch on disk: where that is above the last batch klog verified, Kafka loads and serves
    /// the bytes between as they are. (first offset served unverified, the log end served).
    pub fn served_unverified(&self) -> Option<(i64, i64)> {
        (self.clean_shutdown && self.log_end_offset_after > self.log_end_offset_before)
            .then_some((self.log_end_offset_before, self.log_end_offset_after))
    }
}

/// Rebuild `seg`'s offset and time indexes from `log_bytes` (whole batches only), writing
/// both files atomically. `verify` stops at the first batch failing its CRC.
pub fn rebuild_indexes(seg: &Segment, log_bytes: &[u8], index_interval_bytes: u64, verify: bool) -> Result<(u64, u64)> {
    let mut builder = IndexBuilder::new(seg.base_offset, index_interval_bytes);
    for batch in BatchIter::new(log_bytes) {
        if verify && batch.verify().is_err() {
            break;
        }
        builder.on_batch(batch.position, batch.last_offset(), batch.max_timestamp(), batch.size_bytes() as u64);
    }
    builder.finish_segment();
    durable::write_atomic(&seg.index_path(), &builder.pending_offset_entries)?;
    durable::write_atomic(&seg.time_index_path(), &builder.pending_time_entries)?;
    Ok((
        (builder.pending_offset_entries.len() / 8) as u64,
        (builder.pending_time_entries.len() / TIME_ENTRY_BYTES) as u64,
    ))
}

/// A segment as recovery sees it: a file on disk, or (in the plan, after a split) a byte range
/// of a file that the apply copies into a segment of its own.
#[derive(Debug, Clone)]
struct ScanTarget {
    base_offset: i64,
    segment: Segment,
    /// Byte range of `segment`'s `.log` holding this segment's bytes; `None` for the whole file.
    range: Option<(u64, u64)>,
}

impl ScanTarget {
    fn whole(segment: &Segment) -> Self {
        ScanTarget { base_offset: segment.base_offset, segment: segment.clone(), range: None }
    }
}

/// One piece of a segment split by `LocalLog.splitOverflowedSegment`: the batches in
/// `start..end` of the old `.log`, in a new segment based at the first batch's base offset.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SplitPiece {
    pub base_offset: i64,
    pub start: u64,
    pub end: u64,
}

/// What recovery decided for one segment. [`scan_segment`] decides from the bytes alone,
/// in the plan; [`apply_load`] makes its writes.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Decision {
    /// Keep `outcome.valid_bytes` bytes (cutting the rest, if any).
    Keep,
    /// A batch's offset is outside the segment's 32-bit relative range
    /// (`LogSegmentOffsetOverflowException`): split the segment into these pieces and load
    /// again (`LogLoader.retryOnOffsetOverflow`).
    Split(Vec<SplitPiece>),
}

struct SegmentScan {
    outcome: SegmentRecovery,
    /// An offset-index entry would not increase (`InvalidOffsetException`): emptied.
    emptied: bool,
    cut: Vec<CutBatch>,
    builder: IndexBuilder,
    decision: Decision,
}

/// Kafka's pieces for an overflowed segment (`splitOverflowedSegment`, `appendFromFile`): a
/// new piece starts at a batch's base offset and takes the following batches while their
/// last offset stays within [0, Int32.MAX] of that base. `None` when some batch fits no piece
/// (its last offset is below its own base, or a piece would start at a negative offset), or
/// when bytes that frame no whole batch follow the last one (the split's
/// `batchesFrom(position).iterator().next()` finds nothing there), where Kafka's split throws.
fn split_pieces(bytes: &[u8]) -> Option<Vec<SplitPiece>> {
    let mut pieces: Vec<SplitPiece> = Vec::new();
    let mut iter = BatchIter::new(bytes);
    for batch in iter.by_ref() {
        let end = batch.position + batch.size_bytes() as u64;
        match pieces.last_mut() {
            Some(p) if super::index::offset_fits_segment(p.base_offset, batch.last_offset()) => p.end = end,
            _ => {
                if batch.base_offset() < 0
                    || !super::index::offset_fits_segment(batch.base_offset(), batch.last_offset())
                {
                    return None;
                }
                pieces.push(SplitPiece { base_offset: batch.base_offset(), start: batch.position, end });
            }
        }
    }
    matches!(iter.stop(), Some(ScanStop::End)).then_some(pieces)
}

/// What the loader is told about one log (`LogManager.loadLog`'s arguments).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LoadInputs {
    /// The recovery-point checkpoint's entry (0 when absent or unreadable).
    pub recovery_point: i64,
    /// The log-start-offset checkpoint's entry (0 when absent or unreadable).
    pub log_start_offset_checkpoint: i64,
    /// `.kafka_cleanshutdown` was present.
    pub clean_shutdown: bool,
    /// `recoverLog` runs: false for a `-delete` log, which Kafka opens but never recovers.
    pub recover: bool,
}

/// Run local recovery on `log` (Kafka's `LogLoader.load`). `recovery_point` and
/// `log_start_offset` are the checkpointed values (0 when absent); `clean_shutdown` is whether
/// `.kafka_cleanshutdown` was present. See [`load_log`].
pub fn recover_log(
    log: &mut Log,
    recovery_point: i64,
    log_start_offset: i64,
    clean_shutdown: bool,
) -> Result<RecoveryReport> {
    let inputs =
        LoadInputs { recovery_point, log_start_offset_checkpoint: log_start_offset, clean_shutdown, recover: true };
    load_log(log, &inputs)
}

/// One write of a load, in the order the plan decided it (the order a broker's load makes it,
/// which keeps a load killed at any moment finishable by the next one).
#[derive(Debug, Clone)]
enum LoadAction {
    /// Finish an interrupted swap: remove these files, create the empty index Kafka's
    /// `readNextOffset` made for a `.log.swap` without one, rename every swap file into place.
    FinishSwaps { removed: Vec<std::path::PathBuf>, log_swaps: Vec<Segment>, swaps: Vec<(String, std::path::PathBuf)> },
    /// Create the segment's missing time index, empty (`loadSegmentFiles`).
    CreateTimeIndex(i64),
    /// Split the segment at this base offset into these pieces (`splitOverflowedSegment`).
    Split { base_offset: i64, pieces: Vec<SplitPiece> },
    /// Delete these segments, in this order (the last first).
    DeleteSegments(Vec<i64>),
    /// A recovered segment: its `.log` cut to `valid_bytes` when `cut`, its rebuilt indexes.
    Recovered { base_offset: i64, cut: bool, valid_bytes: u64, offset_index: Vec<u8>, time_index: Vec<u8> },
}

/// What a broker's load of one log does, decided from its files read once ([`plan_load`]),
/// nothing written: the report (segments kept, cut, split and deleted, indexes rebuilt, swaps
/// finished, producer snapshots, the log end, the epoch cache) and the writes that make it so,
/// which [`apply_load`] makes without reading the segments again.
#[derive(Debug, Clone)]
pub struct LoadPlan {
    pub report: RecoveryReport,
    inputs: LoadInputs,
    actions: Vec<LoadAction>,
    /// Every segment is deleted and the log starts empty at the log start
    /// (`deleteSegmentsIfLogStartGreaterThanLogEnd`).
    delete_all: bool,
    /// The epoch cache the load leaves, and whether the load changed it (written then).
    epoch_cache: Vec<EpochEntry>,
    epoch_cache_changed: bool,
}

/// Load `log` as Kafka's `LogLoader.load` does: [`plan_load`] on a view of its files, then
/// [`apply_load`]. `log` ends as the load leaves it, on disk and in memory.
pub fn load_log(log: &mut Log, inputs: &LoadInputs) -> Result<RecoveryReport> {
    log.finish()?;
    log.writer = None;
    let mut view = Log::open(&log.dir, log.config, inputs.log_start_offset_checkpoint)?;
    // The epoch cache and log end the caller holds (it may have assigned epochs it found on a
    // torn tail).
    view.epoch_cache = log.epoch_cache.clone();
    view.log_end_offset = log.log_end_offset;
    let plan = plan_load(&mut view, inputs)?;
    apply_load(log, plan)
}

/// Plan a load of `log` as Kafka's `LogLoader.load` does it, in its order:
/// 1. `loadSegmentFiles`: a segment without `.index` is recovered on its own (a cut there
///    deletes nothing else, wherever the recovery point is);
/// 2. `recoverLog` after an unclean stop: every segment from the one holding the recovery
///    point is recovered, and the first one cut takes every later segment with it;
/// 3. a log ending below the log-start checkpoint loses every segment and starts empty there;
/// 4. the epoch cache is truncated to the new log end and the log start.
///
/// Nothing is written: `log`'s in-memory view (LEO, epoch cache, segments) becomes what the
/// load leaves, the report says what it cuts, and the plan lists the writes ([`apply_load`]).
/// Every decision is taken in [`scan_segment`], each segment scanned once.
pub fn plan_load(log: &mut Log, inputs: &LoadInputs) -> Result<LoadPlan> {
    log.finish()?;
    log.writer = None;
    let mut report = RecoveryReport {
        clean_shutdown: inputs.clean_shutdown,
        recovery_point_before: inputs.recovery_point,
        log_end_offset_before: log.log_end_offset,
        ..Default::default()
    };
    let cache_before = log.epoch_cache.entries().to_vec();
    let mut bytes_before = 0u64;
    for seg in &log.segments {
        bytes_before += seg.log_size()?;
    }
    let snapshots_before = read_snapshot_files(&log.dir)?;
    let mut actions = Vec::new();
    // The snapshots a swap's second pass deletes (every file named inside the swapped range)
    // are gone before the segments load; the log's producer-state manager, made before, still
    // lists them.
    let swap_deleted = finish_interrupted_swaps(log, inputs.log_start_offset_checkpoint, &mut actions)?;
    let targets: Vec<ScanTarget> = log.segments.iter().map(ScanTarget::whole).collect();
    let mut passes = LoadPasses {
        sim_targets: targets.iter().map(|t| (t.base_offset, t.clone())).collect(),
        targets,
        actions,
        ..Default::default()
    };
    // Pass 1, `loadSegmentFiles`: segments without an offset index are recovered alone.
    load_segment_files(log, &mut passes, &mut report)?;
    // Pass 2, `recoverLog` after an unclean stop: from the segment holding the recovery point.
    recover_from_recovery_point(log, inputs, &mut passes, &mut report)?;
    let start = LoadStart { cache_before, bytes_before, snapshots_before, swap_deleted };
    plan_end(log, inputs, passes, report, start)
}

/// Make the writes `plan` decided, in its order, through [`durable`]: swaps finished, segments
/// split, deleted and cut, every rebuilt index written in one batch (each run of them between
/// other writes), then the end (segments emptied below the log start, producer snapshots, the
/// epoch cache). No segment is scanned again; `log` is reloaded from its files and takes the
/// plan's log end and epoch cache.
pub fn apply_load(log: &mut Log, plan: LoadPlan) -> Result<RecoveryReport> {
    let LoadPlan { mut report, inputs, actions, delete_all, epoch_cache, epoch_cache_changed } = plan;
    log.finish()?;
    log.writer = None;
    let dir = log.dir.clone();
    let mut indexes = durable::AtomicBatch::default();
    for action in actions {
        if !matches!(action, LoadAction::Recovered { .. } | LoadAction::CreateTimeIndex(_)) {
            std::mem::take(&mut indexes).commit()?;
        }
        match action {
            LoadAction::FinishSwaps { removed, log_swaps, swaps } => swap_on_disk(&dir, &removed, &log_swaps, &swaps)?,
            LoadAction::CreateTimeIndex(base) => {
                durable::create_for_append(&Segment::new(&dir, base).time_index_path())?;
            }
            LoadAction::Split { base_offset, pieces } => {
                apply_split(&Segment::new(&dir, base_offset), &pieces, log.config.index_interval_bytes)?;
            }
            LoadAction::DeleteSegments(bases) => {
                for base in bases {
                    super::delete_segment_files(&Segment::new(&dir, base))?;
                }
            }
            LoadAction::Recovered { base_offset, cut, valid_bytes, offset_index, time_index } => {
                let seg = Segment::new(&dir, base_offset);
                if cut {
                    durable::truncate_file(&seg.log_path(), valid_bytes)?;
                }
                indexes.add(seg.index_path(), offset_index);
                indexes.add(seg.time_index_path(), time_index);
            }
        }
    }
    indexes.commit()?;
    apply_end(log, &inputs, delete_all, &report)?;
    log.epoch_cache = super::epoch_cache::EpochCache::from_entries(epoch_cache);
    // `LeaderEpochCheckpointFile` creates the checkpoint, empty, when it is missing.
    let cache_path = log.dir.join(super::names::LEADER_EPOCH_CHECKPOINT);
    if std::fs::symlink_metadata(&cache_path).is_err() {
        durable::write_atomic(&cache_path, b"")?;
    }
    if epoch_cache_changed {
        log.write_epoch_cache()?;
    }
    // The run reports what it did; what the producer-state replay forecasts for a broker's
    // open stays the plan's (the dry run's) to tell.
    report.producer_rebuild_start = None;
    report.first_unstable_at_open = None;
    report.unstable_reported.clear();
    report.producers_after_load = None;
    Ok(report)
}

/// What the two passes of a load go through and leave.
#[derive(Default)]
struct LoadPasses {
    /// The segments (or pieces of split ones) still in the log, in base-offset order.
    targets: Vec<ScanTarget>,
    /// Every segment the load sees (those it deletes too), by base offset, and what recovery
    /// kept of each (its valid bytes and rebuilt offset index): the producer-state steps replay
    /// over them, in the order of `events`.
    sim_targets: std::collections::BTreeMap<i64, ScanTarget>,
    sim_recovered: std::collections::BTreeMap<i64, (usize, Vec<u8>)>,
    events: Vec<LoadEvent>,
    /// What recovery kept of the scanned targets, by base offset (for the plan's view).
    scanned: Vec<(i64, SegmentRecovery)>,
    scanned_index: Vec<(i64, Vec<u8>)>,
    /// The segments recovered in pass 1.
    rebuilt: Vec<i64>,
    /// Segments split for offset overflow.
    splits: usize,
    /// The writes the load makes, in order.
    actions: Vec<LoadAction>,
}

/// What the load started from, for its report.
struct LoadStart {
    cache_before: Vec<EpochEntry>,
    bytes_before: u64,
    snapshots_before: std::collections::BTreeMap<String, Vec<u8>>,
    swap_deleted: Vec<String>,
}

/// Pass 1, `LogLoader.loadSegmentFiles`: a segment without an offset index is recovered on its
/// own (a cut there deletes nothing else); a missing time index is created empty.
fn load_segment_files(log: &mut Log, passes: &mut LoadPasses, report: &mut RecoveryReport) -> Result<()> {
    let LoadPasses { targets, sim_targets, sim_recovered, events, scanned, scanned_index, rebuilt, splits, actions } =
        passes;
    let mut i = 0;
    while i < targets.len() {
        let target = targets[i].clone();
        // A piece of a split has its indexes (written with it, as `splitOverflowedSegment` does).
        // A swap's offset index is there by the time segments load: its own `.index.swap`,
        // or the one Kafka's `readNextOffset` on the swap created (empty) before the rename.
        let missing_index =
            target.range.is_none() && !target.segment.is_swap() && !target.segment.index_path().exists();
        if !missing_index || rebuilt.contains(&target.base_offset) {
            // (A segment recovered here gets its time index with its rebuilt indexes.)
            let rebuilt_here = rebuilt.contains(&target.base_offset);
            if target.range.is_none() && !rebuilt_here && !target.segment.time_index_path().exists() {
                // Kafka creates a missing time index empty rather than rebuilding it; its name
                // is made durable (a file created and not fsynced in its dir may vanish).
                actions.push(LoadAction::CreateTimeIndex(target.base_offset));
            }
            i += 1;
            continue;
        }
        let scan = scan_segment(log, &target)?;
        if let Decision::Split(pieces) = &scan.decision {
            report.segments.push(scan.outcome.clone());
            events.push(LoadEvent::Split { base: target.base_offset, while_loading: true });
            split_target(targets, i, pieces, splits, actions)?;
            sim_targets.extend(targets.iter().map(|t| (t.base_offset, t.clone())));
            // `retryOnOffsetOverflow` loads the segment files again from the start.
            i = 0;
            continue;
        }
        if scan.outcome.invalid_at.as_ref().is_some_and(|_| scan.emptied) {
            // `InvalidOffsetException` is caught only inside `recoverLog`: here it escapes
            // `LogManager.loadLogs`, and the broker does not start.
            let (position, why) = scan.outcome.invalid_at.clone().unwrap_or_default();
            return Err(crate::error::Error::refuses(
                target.segment.log_path(),
                position,
                format!(
                    "at position {position}: {why}; with the segment's .index missing, Kafka's \
                     LogLoader.loadSegmentFiles does not catch it and the broker refuses to start"
                ),
            ));
        }
        report.segments.push(scan.outcome.clone());
        report.cut.extend(scan.cut.iter().cloned());
        scanned.push((target.base_offset, scan.outcome.clone()));
        scanned_index.push((target.base_offset, scan.builder.pending_offset_entries.clone()));
        events.push(LoadEvent::RecoverWhileLoading(target.base_offset));
        sim_recovered.insert(
            target.base_offset,
            (scan.outcome.valid_bytes as usize, scan.builder.pending_offset_entries.clone()),
        );
        actions.push(scan.recovered());
        rebuilt.push(target.base_offset);
        i += 1;
    }
    Ok(())
}

/// Pass 2, `LogLoader.recoverLog` after an unclean stop: every segment from the one holding the
/// recovery point is recovered, and the first one cut takes every later segment with it.
fn recover_from_recovery_point(
    log: &mut Log,
    inputs: &LoadInputs,
    passes: &mut LoadPasses,
    report: &mut RecoveryReport,
) -> Result<()> {
    let LoadInputs { recovery_point, clean_shutdown, recover, .. } = *inputs;
    let LoadPasses { targets, sim_targets, sim_recovered, events, scanned, scanned_index, rebuilt, splits, actions } =
        passes;
    // `segments.values(recoveryPoint, Long.MAX_VALUE)`: nothing when the recovery point is
    // `Long.MAX_VALUE` itself (an empty range).
    let first_to_scan = if clean_shutdown || !recover || recovery_point == i64::MAX {
        usize::MAX
    } else {
        targets.partition_point(|t| t.base_offset <= recovery_point).saturating_sub(1)
    };
    let mut i = first_to_scan;
    while i < targets.len() {
        let target = targets[i].clone();
        if rebuilt.contains(&target.base_offset) {
            // Recovered in pass 1: a second scan finds the valid prefix that one left (but
            // Kafka's `recoverSegment` runs again, with its producer-state steps).
            events.push(LoadEvent::Recover(target.base_offset));
            i += 1;
            continue;
        }
        let scan = scan_segment(log, &target)?;
        if let Decision::Split(pieces) = &scan.decision {
            report.segments.push(scan.outcome.clone());
            events.push(LoadEvent::Split { base: target.base_offset, while_loading: false });
            let low = split_target(targets, i, pieces, splits, actions)?;
            sim_targets.extend(targets.iter().map(|t| (t.base_offset, t.clone())));
            // Load again (`retryOnOffsetOverflow`): the pieces take the old segment's place, in
            // base-offset order, and are recovered in turn.
            if let Some(low) = low {
                i = i.min(targets.partition_point(|t| t.base_offset < low));
            }
            continue;
        }
        let outcome = scan.outcome.clone();
        let truncated = outcome.truncated_bytes > 0;
        scanned.push((target.base_offset, outcome.clone()));
        scanned_index.push((target.base_offset, scan.builder.pending_offset_entries.clone()));
        events.push(LoadEvent::Recover(target.base_offset));
        sim_recovered
            .insert(target.base_offset, (outcome.valid_bytes as usize, scan.builder.pending_offset_entries.clone()));
        report.segments.push(outcome);
        if truncated {
            events.push(LoadEvent::DeleteAfter(target.base_offset));
            // Later segments go first, so that a death before the cut leaves the invalid batch
            // in place for the next recovery to find.
            cut_later_targets(targets, i, report, actions)?;
        }
        report.cut.extend(scan.cut.iter().cloned());
        actions.push(scan.recovered());
        if truncated {
            break;
        }
        i += 1;
    }
    Ok(())
}

/// The plan's end: `log`'s in-memory view (LEO, epoch cache, segments) becomes what the load
/// would leave, and the producer-state steps are replayed over what the passes decided.
fn plan_end(
    log: &mut Log,
    inputs: &LoadInputs,
    passes: LoadPasses,
    mut report: RecoveryReport,
    start: LoadStart,
) -> Result<LoadPlan> {
    let LoadInputs { log_start_offset_checkpoint: log_start_offset, clean_shutdown, recover, .. } = *inputs;
    let LoadStart { cache_before, bytes_before, snapshots_before, swap_deleted } = start;
    let mut after = planned_view(log, &passes, recover)?;
    let LoadPasses { targets, sim_targets, sim_recovered, mut events, splits, actions, .. } = passes;
    let mut delete_all = false;
    let deleted = report.deleted_segments.clone();
    log.segments.retain(|s| !deleted.contains(&s.base_offset));
    if !recover {
        // A `-delete` log is opened with `RecoveryOffsets(0, 0)`: its log ends at 0, its
        // segments stay as they are (an empty one at 0 when it has none).
        log.log_end_offset = 0;
        if targets.is_empty() {
            after = vec![(0, 0)];
            log.segments = vec![Segment::new(&log.dir, 0)];
        }
    } else if targets.is_empty() || log.log_end_offset < log_start_offset {
        // `deleteSegmentsIfLogStartGreaterThanLogEnd`, then an empty segment at the log start.
        if !targets.is_empty() {
            delete_all = true;
            report.deleted_segments.extend(after.iter().map(|(b, _)| *b));
            log.epoch_cache.clear();
            events.push(LoadEvent::DeleteAllAndStartAt(log_start_offset));
        }
        after = vec![(log_start_offset, 0)];
        log.log_end_offset = log_start_offset;
        log.segments = vec![Segment::new(&log.dir, log_start_offset)];
    }
    let leo = log.log_end_offset;
    let changed_end = if recover { log.epoch_cache.truncate_from_end(leo) } else { log.epoch_cache.clear() };
    let changed_start = log.epoch_cache.truncate_from_start(log_start_offset);
    let epoch_cache_changed = changed_end || changed_start || log.epoch_cache.entries() != cache_before.as_slice();
    report.segments_split = splits;
    let mut report = finish_report(report, log, &cache_before, after, bytes_before, log_start_offset);
    let facts_in = SnapshotInputs {
        swap_deleted,
        targets: &sim_targets,
        recovered: sim_recovered,
        events,
        log_start_checkpoint: log_start_offset,
        log_start_after: report.log_start_offset_after,
        log_end_offset: report.log_end_offset_after,
        clean_shutdown,
    };
    let files = producer_snapshot_ops(&log.dir, snapshots_before, facts_in)?;
    report.first_unstable_at_open = files.first_unstable_at_open;
    report.unstable_reported = files.unstable_reported;
    report.producers_after_load = files.after_load;
    (report.snapshot_ops, report.producer_rebuild_start) = (files.ops, files.rebuild_start);
    let epoch_cache = log.epoch_cache.entries().to_vec();
    Ok(LoadPlan { report, inputs: *inputs, actions, delete_all, epoch_cache, epoch_cache_changed })
}

/// The segments the plan leaves, (base offset, `.log` bytes): the targets that remain, cut
/// where scanned; and, when the log is recovered, its end as the run reads it.
fn planned_view(log: &mut Log, passes: &LoadPasses, recover: bool) -> Result<Vec<(i64, u64)>> {
    let LoadPasses { targets, scanned, scanned_index, .. } = passes;
    let mut after: Vec<(i64, u64)> = Vec::new();
    for t in targets {
        let size = match scanned.iter().rev().find(|(b, _)| *b == t.base_offset) {
            Some((_, o)) => o.valid_bytes,
            None => match t.range {
                Some((a, b)) => b - a,
                None => t.segment.log_size()?,
            },
        };
        after.push((t.base_offset, size));
    }
    if let Some(t) = targets.last().filter(|_| recover) {
        log.log_end_offset = match scanned.iter().rev().find(|(b, _)| *b == t.base_offset) {
            Some((_, o)) => {
                // What the apply leaves: the `.log` cut to its valid bytes, the rebuilt index.
                let file = t.segment.read_log()?;
                let (from, _) = t.range.unwrap_or((0, 0));
                let kept = file.get(from as usize..(from + o.valid_bytes) as usize).unwrap_or(&[]);
                let index = scanned_index.iter().rev().find(|(b, _)| *b == t.base_offset).map_or(&[][..], |x| &x.1[..]);
                // Valid bytes can still make the search throw (a legacy wrapper whose
                // CRC holds over a codec that does not decode): `readNextOffset` on the
                // bytes the apply leaves.
                next_offset_from_index(t.base_offset, index, kept)
                    .map_err(|thrown| next_offset_refusal(&t.segment, &thrown))?
            }
            None if t.range.is_none() => read_next_offset(&t.segment)?,
            None => next_offset_of(t)?,
        };
    }
    Ok(after)
}

/// The run's end, after the passes made their writes: the log reloaded from its files and
/// ending where the plan read its end, emptied at the log start when it ends below it, and the
/// producer snapshots deleted and written as the plan decided.
fn apply_end(log: &mut Log, inputs: &LoadInputs, delete_all: bool, report: &RecoveryReport) -> Result<()> {
    let log_start_offset = inputs.log_start_offset_checkpoint;
    log.reload(log_start_offset)?;
    if delete_all {
        log.truncate_fully_and_start_at(log_start_offset)?;
    }
    // The plan's end: 0 for a `-delete` log (`RecoveryOffsets(0, 0)`), the log start for a
    // log without segments, else where Kafka's `readNextOffset` reads the last segment's end.
    let leo = report.log_end_offset_after;
    if log.segments.is_empty() {
        log.create_segment(leo)?;
    }
    log.log_end_offset = leo;
    // The producer snapshots: deleted (those above the new log end, strays, corrupt ones,
    // those of deleted segments) and written (`rebuildProducerState`).
    for op in &report.snapshot_ops {
        match op {
            SnapshotOp::Delete(name) => {
                let path = log.dir.join(name);
                if std::fs::symlink_metadata(&path).is_ok() {
                    durable::remove_file(&path)?;
                }
            }
            SnapshotOp::Write(name, bytes) => durable::write_atomic(&log.dir.join(name), bytes)?,
        }
    }
    Ok(())
}

/// The most bytes of one producer snapshot a load reads (about 350,000 producers).
const SNAPSHOT_READ_BYTES_MAX: u64 = 16 << 20;

/// The partition dir's producer snapshots (regular files named `*.snapshot`) and their bytes.
fn read_snapshot_files(dir: &std::path::Path) -> Result<std::collections::BTreeMap<String, Vec<u8>>> {
    let mut out = std::collections::BTreeMap::new();
    for entry in std::fs::read_dir(dir).at(dir, "list directory")? {
        let entry = entry.at(dir, "list directory")?;
        let Some(name) = entry.file_name().to_str().map(str::to_string) else { continue };
        if name.ends_with(super::names::SNAPSHOT_SUFFIX) && crate::regular_file::is_regular(&entry.path()) {
            // A snapshot is small (46 bytes a producer): one past the cap is read up to it, and
            // its CRC then fails, as it would for Kafka (which reads it whole).
            use std::io::Read;
            let file = std::fs::File::open(entry.path()).at(entry.path(), "open")?;
            let mut bytes = Vec::new();
            file.take(SNAPSHOT_READ_BYTES_MAX).read_to_end(&mut bytes).at(entry.path(), "read")?;
            out.insert(name, bytes);
        }
    }
    Ok(out)
}

/// What the producer-state steps of a load are replayed over.
struct SnapshotInputs<'a> {
    /// Files the swap handling deleted before the segments loaded.
    swap_deleted: Vec<String>,
    targets: &'a std::collections::BTreeMap<i64, ScanTarget>,
    recovered: std::collections::BTreeMap<i64, (usize, Vec<u8>)>,
    events: Vec<LoadEvent>,
    log_start_checkpoint: i64,
    log_start_after: i64,
    log_end_offset: i64,
    clean_shutdown: bool,
}

/// Replay the load's producer-state steps ([`super::producer_state::simulate`]): the snapshot
/// deletes and writes, or the refusal when Kafka's readers throw on the way.
fn producer_snapshot_ops(
    dir: &std::path::Path,
    before: std::collections::BTreeMap<String, Vec<u8>>,
    mut inputs: SnapshotInputs<'_>,
) -> Result<super::producer_state::SnapshotFiles> {
    use super::producer_state::{simulate, LoadFacts, SegmentBytes, SnapshotFiles};
    let mut owned = Vec::new();
    for t in inputs.targets.values() {
        let bytes = t.segment.read_log()?;
        let index = if t.range.is_none() { t.segment.read_index()? } else { None };
        owned.push((t.base_offset, t.range, bytes, index));
    }
    let segments = owned
        .iter()
        .map(|(base, range, bytes, index)| {
            let (from, to) = range.map_or((0, bytes.len()), |(a, b)| (a as usize, b as usize));
            SegmentBytes {
                base_offset: *base,
                original: bytes.get(from..to.min(bytes.len())).unwrap_or(&[]),
                original_index: index.as_deref().unwrap_or(&[]),
                recovered: inputs.recovered.remove(base),
            }
        })
        .collect();
    let now_ms = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_millis() as i64);
    let facts = LoadFacts {
        segments,
        events: inputs.events,
        log_start_checkpoint: inputs.log_start_checkpoint,
        log_start_after: inputs.log_start_after,
        log_end_offset: inputs.log_end_offset,
        clean_shutdown: inputs.clean_shutdown,
        now_ms,
    };
    let files = simulate(SnapshotFiles::new(before), &inputs.swap_deleted, &facts).map_err(|thrown| {
        crate::error::Error::refuses(
            dir,
            thrown.position,
            format!(
                "at position {} of a segment: a Kafka 4.4 broker refuses to start on this log dir: the producer-state \
                 rebuild throws {} (nothing in LogLoader catches it)",
                thrown.position, thrown.exception
            ),
        )
    })?;
    if let (Some((base, thrown)), Some(offset)) = (&files.thrown_at_open, files.first_unstable_at_open) {
        let segment = dir.join(format!("{base:020}{}", super::names::LOG_SUFFIX));
        return Err(crate::error::Error::refuses(
            &segment,
            thrown.position,
            format!(
                "at position {}: a Kafka 4.4 broker refuses to start on this log dir: opening the loaded \
                 log reads it at its first unstable offset {offset} (UnifiedLog.maybeIncrementFirstUnstableOffset) \
                 and throws {} (nothing in the load catches it)",
                thrown.position, thrown.exception
            ),
        ));
    }
    Ok(files)
}

/// Fill in what the load leaves: offsets, segments, epochs, bytes removed and the
/// producer-state rebuild it implies.
fn finish_report(
    mut report: RecoveryReport,
    log: &Log,
    cache_before: &[EpochEntry],
    segments_after: Vec<(i64, u64)>,
    bytes_before: u64,
    log_start_offset_checkpoint: i64,
) -> RecoveryReport {
    let after = log.epoch_cache.entries();
    report.epochs_added = after.iter().filter(|e| !cache_before.contains(e)).copied().collect();
    report.epochs_removed = cache_before.iter().filter(|e| !after.contains(e)).copied().collect();
    report.epochs_after = after.to_vec();
    report.log_end_offset_after = log.log_end_offset;
    let first = segments_after.first().map_or(log_start_offset_checkpoint, |s| s.0);
    report.log_start_offset_after = log_start_offset_checkpoint.max(first);
    report.bytes_removed = bytes_before.saturating_sub(segments_after.iter().map(|s| s.1).sum());
    report.producer_state =
        producer_rebuild(log, &segments_after, report.log_start_offset_after, report.clean_shutdown);
    report.segments_after = segments_after;
    report
}

/// The producer-state rebuild that follows the load (`UnifiedLog.rebuildProducerState`): from
/// the latest snapshot at or below the log end, or from the log start when there is none
/// (after a clean stop with no snapshot, Kafka writes empty snapshots and scans nothing).
fn producer_rebuild(log: &Log, segments: &[(i64, u64)], log_start_offset: i64, clean: bool) -> ProducerRebuild {
    let leo = log.log_end_offset;
    let snapshot = super::snapshot_offsets(&log.dir).into_iter().filter(|o| *o <= leo && *o >= log_start_offset).max();
    if snapshot.is_none() && clean {
        return ProducerRebuild { snapshot_offset: None, scan_from_offset: leo, scan_bytes: 0 };
    }
    let from = snapshot.unwrap_or(log_start_offset).max(log_start_offset);
    let first = segments.partition_point(|s| s.0 <= from).saturating_sub(1);
    let scan_bytes = if from >= leo { 0 } else { segments.iter().skip(first).map(|s| s.1).sum() };
    ProducerRebuild { snapshot_offset: snapshot, scan_from_offset: from, scan_bytes }
}

/// `LogSegment.readNextOffset` on a segment the load did not scan: from the offset of the
/// offset index's last entry (the index trusted as it is, zero tail included), look the
/// position up, find the first batch ending at or after that offset, and take the next offset
/// of the last batch that frames after it (no CRC or offset check). Base offset when nothing is
/// found. Where Kafka's reader throws on the way (a frame whose size is below the minimum
/// record overhead, a legacy wrapper whose base offset cannot be read), nothing catches it on
/// this path: the error says the broker refuses to start, and why.
fn read_next_offset(seg: &Segment) -> Result<i64> {
    let index = seg.read_index()?;
    let bytes = seg.read_log()?;
    next_offset_from_index(seg.base_offset, index.as_deref().unwrap_or(&[]), &bytes)
        .map_err(|thrown| next_offset_refusal(seg, &thrown))
}

/// The refusal when `readNextOffset` throws: nothing in `LogLoader` catches it.
fn next_offset_refusal(seg: &Segment, thrown: &Thrown) -> crate::error::Error {
    crate::error::Error::refuses(
        seg.log_path(),
        thrown.position,
        format!(
            "at position {}: a Kafka 4.4 broker refuses to start on this log dir: LogSegment.readNextOffset throws \
             {} (nothing in LogLoader catches it)",
            thrown.position, thrown.exception
        ),
    )
}

/// What Kafka's reader throws while reading a segment's next offset: the exception and the
/// byte position of the batch frame it threw on.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Thrown {
    pub position: u64,
    pub exception: String,
}

/// `OffsetIndex.lookup(target)` as `LogSegment.translateOffset` uses it: the position of the
/// entry [`super::index::lookup_offset_slot`] finds (the one offset-index search, Kafka's
/// `indexSlotRangeFor`), `max(position, 0)`; 0 when none is.
pub(crate) fn index_lookup(base: i64, index: &[u8], target: i64) -> u64 {
    let Some(slot) = super::index::lookup_offset_slot(index, base, target) else { return 0 };
    // `physical` is an int: a negative one is read as it is, and `translateOffset` takes
    // `max(position, 0)`. The slot is below the entry count, so the entry is whole.
    let c = &index[slot * 8 + 4..slot * 8 + 8];
    i64::from(i32::from_be_bytes([c[0], c[1], c[2], c[3]])).max(0) as u64
}

/// The offset of the index's last entry (`OffsetIndex.lastOffset`), the base when empty.
fn index_last_offset(base: i64, index: &[u8]) -> i64 {
    index.chunks_exact(8).last().map_or(base, |c| base + i64::from(i32::from_be_bytes([c[0], c[1], c[2], c[3]])))
}

fn bad_size(position: u64, size: i32) -> Thrown {
    Thrown {
        position,
        exception: format!(
            "org.apache.kafka.common.errors.CorruptRecordException: Found record size {size} smaller than minimum \
             record overhead (14)"
        ),
    }
}

/// `FileRecords.searchForOffsetFromPosition(target, start)` (4.x): compare base offsets, and
/// look at a batch's last offset only for the batch before the first base above the target,
/// or at the end. The position of the batch found, if any; what Kafka throws on the way.
pub(crate) fn search_for_offset(bytes: &[u8], target: i64, start: u64) -> std::result::Result<Option<u64>, Thrown> {
    if start as usize > bytes.len() {
        return Ok(None);
    }
    let mut previous: Option<(u64, i64)> = None;
    let mut iter = BatchIter::starting_at(bytes, start as usize);
    for b in iter.by_ref() {
        let base_offset = b.kafka_base_offset().map_err(|exception| Thrown { position: b.position, exception })?;
        if base_offset == target {
            return Ok(Some(b.position));
        }
        if base_offset > target {
            return Ok(Some(previous.filter(|p| p.1 >= target).map_or(b.position, |p| p.0)));
        }
        previous = Some((b.position, b.last_offset()));
    }
    if let Some(ScanStop::BadSize { position, size }) = iter.stop() {
        return Err(bad_size(*position, *size));
    }
    Ok(previous.filter(|p| p.1 >= target).map(|p| p.0))
}

/// [`read_next_offset`] on given bytes: the segment's `.log` and `.index`.
fn next_offset_from_index(base: i64, index: &[u8], bytes: &[u8]) -> std::result::Result<i64, Thrown> {
    let target = index_last_offset(base, index);
    let position = index_lookup(base, index, target);
    if position as usize > bytes.len() {
        return Ok(base);
    }
    // Every frame from the looked-up position to the end is read (by the search, then by
    // `lastBatch`): a size below the minimum overhead there throws.
    let mut frames = BatchIter::starting_at(bytes, position as usize);
    frames.by_ref().for_each(drop);
    if let Some(ScanStop::BadSize { position, size }) = frames.stop() {
        return Err(bad_size(*position, *size));
    }
    let Some(start) = search_for_offset(bytes, target, position)? else { return Ok(base) };
    Ok(BatchIter::starting_at(bytes, start as usize).last().map_or(base, |b| b.next_offset()))
}

/// The next offset after the last batch of a target the loader did not scan (as
/// `LogSegment.readNextOffset`: the last batch that frames, its offsets unchecked).
fn next_offset_of(t: &ScanTarget) -> Result<i64> {
    let bytes = t.segment.read_log()?;
    let (from, to) = t.range.map_or((0, bytes.len()), |(a, b)| (a as usize, b as usize));
    let slice = bytes.get(from..to.min(bytes.len())).unwrap_or(&[]);
    Ok(BatchIter::new(slice).last().map_or(t.base_offset, |b| b.next_offset()))
}

/// Replace target `i` by the pieces of its split, byte ranges of its file (the split's writes
/// go in `actions`); returns the lowest base offset among the pieces.
fn split_target(
    targets: &mut Vec<ScanTarget>,
    i: usize,
    pieces: &[SplitPiece],
    splits: &mut usize,
    actions: &mut Vec<LoadAction>,
) -> Result<Option<i64>> {
    let target = targets[i].clone();
    let seg = target.segment.clone();
    *splits += 1;
    if *splits > 64 {
        return Err(crate::error::Error::corrupt(
            seg.log_path(),
            0,
            "segments keep overflowing after being split".to_string(),
        ));
    }
    actions.push(LoadAction::Split { base_offset: target.base_offset, pieces: pieces.to_vec() });
    let offset = target.range.map_or(0, |r| r.0);
    let new_targets: Vec<ScanTarget> = pieces
        .iter()
        .map(|p| ScanTarget {
            base_offset: p.base_offset,
            segment: seg.clone(),
            range: Some((offset + p.start, offset + p.end)),
        })
        .collect();
    targets.remove(i);
    let lowest = new_targets.iter().map(|t| t.base_offset).min();
    targets.extend(new_targets);
    targets.sort_by_key(|t| t.base_offset);
    // A split that died after writing its pieces left them on disk already: they are the same
    // files now, listed once.
    targets.dedup_by(|x, y| x.base_offset == y.base_offset && x.range.is_none() && y.range.is_none());
    Ok(lowest)
}

/// Report, and plan to delete (last first), every target after index `i`.
fn cut_later_targets(
    targets: &mut Vec<ScanTarget>,
    i: usize,
    report: &mut RecoveryReport,
    actions: &mut Vec<LoadAction>,
) -> Result<()> {
    let later: Vec<ScanTarget> = targets.drain(i + 1..).collect();
    for t in &later {
        let bytes = t.segment.read_log()?;
        let (from, to) = t.range.map_or((0, bytes.len()), |(a, b)| (a as usize, b as usize));
        let slice = bytes.get(from..to.min(bytes.len())).unwrap_or(&[]);
        let mut iter = BatchIter::new(slice);
        for b in iter.by_ref() {
            report.cut.push(CutBatch {
                segment_base_offset: t.base_offset,
                position: b.position,
                size_bytes: b.size_bytes() as u64,
                base_offset: Some(b.base_offset()),
                last_offset: Some(b.last_offset()),
                partition_leader_epoch: Some(b.partition_leader_epoch()),
                partial_offsets: None,
            });
        }
        if let Some(ScanStop::Partial { position, len }) = iter.stop() {
            report.cut.push(unframed(t.base_offset, *position, *len, slice.get(*position as usize..).unwrap_or(&[])));
        }
        report.deleted_segments.push(t.base_offset);
    }
    // A piece of a split is a file of its own once the split is applied: deleted as well.
    actions.push(LoadAction::DeleteSegments(later.iter().rev().map(|t| t.base_offset).collect()));
    Ok(())
}

/// Write the pieces of a split segment and retire the old one. Pieces other than one named
/// like the old segment are written first (each atomically); then the old file is cut to its
/// first piece (or deleted). A death before that leaves the old segment whole, so the next
/// recovery splits it again and overwrites the same pieces. Returns the new segments.
fn apply_split(seg: &Segment, pieces: &[SplitPiece], index_interval_bytes: u64) -> Result<Vec<Segment>> {
    let bytes = seg.read_log()?;
    let mut out = Vec::new();
    for p in pieces.iter().filter(|p| p.base_offset != seg.base_offset) {
        let new = Segment::new(&seg.dir, p.base_offset);
        let slice = bytes.get(p.start as usize..p.end as usize).unwrap_or(&[]);
        durable::write_atomic(&new.log_path(), slice)?;
        // Stale indexes of a segment of that name would describe other bytes: the piece gets
        // its own, as `splitOverflowedSegment`'s appends build them.
        rebuild_indexes(&new, slice, index_interval_bytes, false)?;
        out.push(new);
    }
    let keep = pieces.iter().find(|p| p.base_offset == seg.base_offset && p.start == 0).map(|p| p.end);
    drop(bytes);
    match keep {
        Some(end) => {
            durable::truncate_file(&seg.log_path(), end)?;
            let bytes = seg.read_log()?;
            rebuild_indexes(seg, &bytes, index_interval_bytes, false)?;
            out.push(seg.clone());
        }
        None => super::delete_segment_files(seg)?,
    }
    Ok(out)
}

impl SegmentScan {
    /// The writes that apply a kept segment's scan: the `.log` cut to its valid bytes, the
    /// rebuilt indexes.
    fn recovered(&self) -> LoadAction {
        LoadAction::Recovered {
            base_offset: self.outcome.base_offset,
            cut: self.outcome.truncated_bytes > 0,
            valid_bytes: self.outcome.valid_bytes,
            offset_index: self.builder.pending_offset_entries.clone(),
            time_index: self.builder.pending_time_entries.clone(),
        }
    }
}

fn unframed(segment_base_offset: i64, position: u64, len: u64, bytes: &[u8]) -> CutBatch {
    CutBatch {
        segment_base_offset,
        position,
        size_bytes: len,
        base_offset: None,
        last_offset: None,
        partition_leader_epoch: None,
        partial_offsets: partial_header_offsets(bytes),
    }
}

/// The offsets a partial v2 batch header names: base offset (bytes 0..8) and last offset delta
/// (bytes 23..27), when the magic byte (16) says v2 and both are plausible.
fn partial_header_offsets(bytes: &[u8]) -> Option<(i64, i64)> {
    let base = i64::from_be_bytes(bytes.get(0..8)?.try_into().ok()?);
    let magic = *bytes.get(16)?;
    let delta = i32::from_be_bytes(bytes.get(23..27)?.try_into().ok()?);
    (magic == 2 && base >= 0 && delta >= 0).then(|| (base, base.saturating_add(i64::from(delta))))
}

/// The offset of the last time-index entry the scan has built so far.
fn last_time_offset(builder: &IndexBuilder, base: i64) -> Option<i64> {
    let b = &builder.pending_time_entries;
    let tail = b.len().checked_sub(TIME_ENTRY_BYTES).map(|at| &b[at..])?;
    let relative = i32::from_be_bytes([tail[8], tail[9], tail[10], tail[11]]);
    Some(base + i64::from(relative))
}

/// `LogSegment.recover`, deciding only: validate every batch, find where to cut, build the
/// indexes, assign epochs above the cache's latest (in memory). Kafka's rules, in its order:
/// size and CRC (`ensureValid`), then `ensureOffsetInRange(lastOffset)` (a split, or a
/// refusal), then the offset- and time-index appends (a non-increasing offset throws
/// `InvalidOffsetException`, and `recoverLog` empties the whole segment).
fn scan_segment(log: &mut Log, target: &ScanTarget) -> Result<SegmentScan> {
    let file = target.segment.read_log()?;
    let (from, to) = target.range.map_or((0, file.len()), |(a, b)| (a as usize, b as usize));
    let bytes: &[u8] = file.get(from..to.min(file.len())).unwrap_or(&[]);
    let base = target.base_offset;
    let mut builder = IndexBuilder::new(base, log.config.index_interval_bytes);
    let mut out = SegmentRecovery::nothing_valid(base);
    let mut iter = BatchIter::new(bytes);
    let (mut max_timestamp, mut offset_of_max_timestamp) = (-1i64, -1i64);
    let mut released = 0;
    let mut emptied = false;
    for batch in iter.by_ref() {
        file.release_before(from + batch.position as usize, &mut released);
        if let Err(d) = batch.verify() {
            out.invalid_at = Some((batch.position, d.what));
            break;
        }
        // `ensureOffsetInRange(lastOffset)`: the one offset rule Kafka's recovery applies after
        // the CRC. Offsets that go backwards or start below the segment's base are kept.
        if !super::index::offset_fits_segment(base, batch.last_offset()) {
            let (why, pieces) = split_on_overflow(target, bytes, batch.position, batch.last_offset())?;
            out.invalid_at = Some((batch.position, why));
            out.end_offset = base;
            return Ok(SegmentScan {
                outcome: out,
                emptied: false,
                cut: Vec::new(),
                builder,
                decision: Decision::Split(pieces),
            });
        }
        if batch.max_timestamp() > max_timestamp {
            (max_timestamp, offset_of_max_timestamp) = (batch.max_timestamp(), batch.last_offset());
        }
        // With an offset-index entry comes `TimeIndex.maybeAppend(maxTimestampSoFar, its
        // offset)`, which throws the same exception when that offset is below its last entry's.
        if indexes_backwards(&builder, base, batch.last_offset(), offset_of_max_timestamp) {
            out.invalid_at = Some((
                batch.position,
                format!(
                    "offset-index entry for offset {} does not increase over the last entry \
                     (InvalidOffsetException): the segment is emptied",
                    batch.last_offset()
                ),
            ));
            emptied = true;
            break;
        }
        accept_batch(log, &mut builder, &mut out, &batch);
        // `updateProducerState` comes last: an end-transaction marker whose record does not read
        // throws what the loop catches, after the batch was counted valid.
        if let Some(t) = super::producer_state::recovery_cuts_after(&batch) {
            if (out.valid_bytes as usize) < bytes.len() {
                let why = format!(
                    "the batch before it is a transaction marker whose record does not read ({}): \
                     LogSegment.recover stops there",
                    t.exception
                );
                out.invalid_at = Some((out.valid_bytes, why));
            }
            break;
        }
    }
    if out.invalid_at.is_none() {
        out.invalid_at = stop_finding(iter.stop());
    }
    let interval = log.config.index_interval_bytes;
    Ok(finish_scan(bytes, builder, out, emptied, offset_of_max_timestamp, interval))
}

/// A batch that passed the checks: indexed, its epoch assigned above the cache's latest, and
/// counted valid.
fn accept_batch(log: &mut Log, builder: &mut IndexBuilder, out: &mut SegmentRecovery, batch: &RawBatch<'_>) {
    builder.on_batch(batch.position, batch.last_offset(), batch.max_timestamp(), batch.size_bytes() as u64);
    let epoch = batch.partition_leader_epoch();
    if batch.magic() >= 2 && epoch >= 0 && log.epoch_cache.latest_epoch().is_none_or(|l| epoch > l) {
        log.epoch_cache.assign(epoch, batch.base_offset());
    }
    out.batches_valid += 1;
    out.valid_bytes = batch.position + batch.size_bytes() as u64;
    out.end_offset = batch.next_offset();
}

/// The end of a segment's scan: the time index's final entry checked, the segment emptied when
/// an index entry would not increase, the cut described and the index entries counted.
fn finish_scan(
    bytes: &[u8],
    mut builder: IndexBuilder,
    mut out: SegmentRecovery,
    mut emptied: bool,
    offset_of_max_timestamp: i64,
    index_interval_bytes: u64,
) -> SegmentScan {
    let base = out.base_offset;
    // The time index's final entry (`maybeAppend(.., skipFullCheck = true)`) checks too.
    if !emptied && last_time_offset(&builder, base).is_some_and(|o| offset_of_max_timestamp < o) {
        out.invalid_at = Some((
            out.valid_bytes,
            format!(
                "final time-index entry for offset {offset_of_max_timestamp} is below the last entry's \
                 (InvalidOffsetException): the segment is emptied"
            ),
        ));
        emptied = true;
    }
    if emptied {
        // `recoverLog` truncates the segment to its base offset.
        builder = IndexBuilder::new(base, index_interval_bytes);
        out.batches_valid = 0;
        out.valid_bytes = 0;
        out.end_offset = base;
    }
    let cut = describe_cut(bytes, base, out.valid_bytes);
    out.truncated_bytes = (bytes.len() as u64).saturating_sub(out.valid_bytes);
    builder.finish_segment();
    out.index_entries = (builder.pending_offset_entries.len() / 8) as u64;
    out.time_index_entries = (builder.pending_time_entries.len() / TIME_ENTRY_BYTES) as u64;
    SegmentScan { outcome: out, emptied, cut, builder, decision: Decision::Keep }
}

impl SegmentRecovery {
    /// A segment at `base` before its scan: no valid batch yet.
    fn nothing_valid(base: i64) -> SegmentRecovery {
        SegmentRecovery {
            base_offset: base,
            batches_valid: 0,
            valid_bytes: 0,
            truncated_bytes: 0,
            invalid_at: None,
            index_entries: 0,
            time_index_entries: 0,
            end_offset: base,
        }
    }
}

/// Whether indexing the batch ending at `last_offset` throws `InvalidOffsetException`: its
/// offset-index entry does not increase, or the time-index entry that comes with it
/// (`TimeIndex.maybeAppend(maxTimestampSoFar, its offset)`) is below the last one's offset.
fn indexes_backwards(builder: &IndexBuilder, base: i64, last_offset: i64, offset_of_max_timestamp: i64) -> bool {
    let time_backwards = builder.would_index_backwards(i64::MIN)
        && last_time_offset(builder, base).is_some_and(|o| offset_of_max_timestamp < o);
    builder.would_index_backwards(last_offset) || time_backwards
}

/// Where and why a scan that ran to the end of its bytes stopped short: a partial batch, or a
/// size field below the minimum.
fn stop_finding(stop: Option<&ScanStop>) -> Option<(u64, String)> {
    match stop {
        Some(ScanStop::Partial { position, len }) => {
            Some((*position, format!("{len} bytes of a partial batch at the end of the segment")))
        }
        Some(ScanStop::BadSize { position, size }) => {
            Some((*position, format!("size field {size} is below the minimum of 14")))
        }
        _ => None,
    }
}

/// A batch at `position` whose last offset overflows the segment's 32-bit relative range
/// (`ensureOffsetInRange`): the finding and the pieces `splitOverflowedSegment` makes, or the
/// refusal when the split fails.
fn split_on_overflow(
    target: &ScanTarget,
    bytes: &[u8],
    position: u64,
    last_offset: i64,
) -> Result<(String, Vec<SplitPiece>)> {
    let base = target.base_offset;
    let why = format!(
        "last offset {last_offset} is outside segment {base}'s 32-bit relative range (LogSegmentOffsetOverflowException)"
    );
    // `splitOverflowedSegment` first asks `hasOverflow`, which looks at the segment's
    // last batch only: if that one fits, the split throws and the broker stops.
    let last_overflows = BatchIter::new(bytes)
        .last()
        .is_some_and(|l| l.next_offset() > base && !super::index::offset_fits_segment(base, l.next_offset() - 1));
    let pieces = if last_overflows { split_pieces(bytes) } else { None };
    let Some(pieces) = pieces else {
        return Err(crate::error::Error::refuses(
            target.segment.log_path(),
            position,
            format!(
                "at position {position}: {why}; Kafka's split of the segment fails (IllegalArgumentException, \
                 IllegalStateException, or NoSuchElementException where bytes that frame no batch follow), \
                 so a Kafka 4.4 broker refuses to start on this log dir"
            ),
        ));
    };
    let bases: Vec<String> = pieces.iter().map(|p| p.base_offset.to_string()).collect();
    Ok((format!("{why}: split into segments {}", bases.join(", ")), pieces))
}

/// What a cut at `valid_bytes` removes from a segment's `bytes`: the batches that still frame
/// after it, then the raw bytes that do not.
fn describe_cut(bytes: &[u8], base: i64, valid_bytes: u64) -> Vec<CutBatch> {
    let file_len = bytes.len() as u64;
    let mut cut = Vec::new();
    if valid_bytes >= file_len {
        return cut;
    }
    let mut it = BatchIter::starting_at(bytes, valid_bytes as usize);
    for b in it.by_ref() {
        cut.push(CutBatch {
            segment_base_offset: base,
            position: b.position,
            size_bytes: b.size_bytes() as u64,
            base_offset: Some(b.base_offset()),
            last_offset: Some(b.last_offset()),
            partition_leader_epoch: Some(b.partition_leader_epoch()),
            partial_offsets: None,
        });
    }
    let end = it.position() as u64;
    if end < file_len {
        cut.push(unframed(base, end, file_len - end, bytes.get(end as usize..).unwrap_or(&[])));
    }
    cut
}

/// What `LogLoader.load` does before it lists the segments, for a compaction the cleaner did
/// not finish (`removeTempFilesAndCollectSwapFiles` and the rename pass after it): `.deleted`
/// and `.cleaned` files are removed, and so are `.swap` files at or above the lowest `.cleaned`
/// offset; the valid `.log.swap` files span [their lowest base, their highest next offset), every
/// other file whose name starts with an offset in that span is removed, and every valid `.swap`
/// file is renamed without its suffix. Nothing is written: the log's view reads the swap
/// segments in place of the ones they replace, and the writes go in `actions`.
fn finish_interrupted_swaps(
    log: &mut Log,
    log_start_offset: i64,
    actions: &mut Vec<LoadAction>,
) -> Result<Vec<String>> {
    const DELETED: &str = ".deleted";
    const CLEANED: &str = ".cleaned";
    const SNAPSHOT_DELETED: &str = ".checkpoint.deleted";
    let dir = log.dir.clone();
    let mut files: Vec<(String, std::path::PathBuf)> = Vec::new();
    for entry in std::fs::read_dir(&dir).at(&dir, "list directory")? {
        let entry = entry.at(&dir, "list directory")?;
        if let Some(name) = entry.file_name().to_str() {
            files.push((name.to_string(), entry.path()));
        }
    }
    // The common case, nothing a cleaner left: no file is stat'ed.
    if !files.iter().any(|(n, _)| n.ends_with(DELETED) || n.ends_with(CLEANED) || n.ends_with(segment::SWAP_SUFFIX)) {
        return Ok(Vec::new());
    }
    // Kafka's loader looks at regular files only (`File.isFile`).
    files.retain(|(_, p)| crate::regular_file::is_regular(p));
    files.sort();
    let min_cleaned = files
        .iter()
        .filter(|(n, _)| n.ends_with(CLEANED))
        .filter_map(|(n, _)| super::names::parse_file_offset(n))
        .min()
        .unwrap_or(i64::MAX);
    let mut remove: Vec<&std::path::PathBuf> = Vec::new();
    let mut swaps: Vec<(&str, &std::path::PathBuf)> = Vec::new();
    for (name, path) in &files {
        if (name.ends_with(DELETED) && !name.ends_with(SNAPSHOT_DELETED)) || name.ends_with(CLEANED) {
            remove.push(path);
        } else if name.ends_with(segment::SWAP_SUFFIX) {
            match super::names::parse_file_offset(name) {
                Some(offset) if offset >= min_cleaned => remove.push(path),
                _ => swaps.push((name, path)),
            }
        }
    }
    // The span the valid log swaps replace: from the lowest base to the highest next offset.
    let (log_swaps, low, high) = log_swap_span(&dir, &swaps)?;
    let swap_bases: Vec<i64> = log_swaps.iter().map(|s| s.base_offset).collect();
    if remove.is_empty() && swaps.is_empty() {
        return Ok(Vec::new());
    }
    let covered: Vec<&std::path::PathBuf> = files
        .iter()
        .filter(|(n, _)| !n.ends_with(segment::SWAP_SUFFIX))
        .filter(|(n, _)| super::names::parse_file_offset(n).is_some_and(|o| o >= low && o < high))
        .map(|(_, p)| p)
        .collect();
    actions.push(LoadAction::FinishSwaps {
        removed: remove.iter().chain(covered.iter()).map(|p| (*p).clone()).collect(),
        log_swaps: log_swaps.clone(),
        swaps: swaps.iter().map(|(n, p)| (n.to_string(), (*p).clone())).collect(),
    });
    swap_in_view(log, (low, high), &swap_bases, log_swaps, &swaps);
    (log.log_end_offset, log.tail_clean) = log.scan_tail(log_start_offset)?;
    let deleted_names = remove
        .iter()
        .chain(covered.iter())
        .filter_map(|p| p.file_name().and_then(|n| n.to_str()).map(str::to_string))
        .collect();
    Ok(deleted_names)
}

/// The `.log.swap` files among `swaps` as segments, and the span they replace: from the lowest
/// base to the highest next offset (`LogSegment.open(.., ".swap")`, then `readNextOffset`).
fn log_swap_span(dir: &std::path::Path, swaps: &[(&str, &std::path::PathBuf)]) -> Result<(Vec<Segment>, i64, i64)> {
    let mut log_swaps = Vec::new();
    let (mut low, mut high) = (i64::MAX, i64::MIN);
    for (name, _) in swaps {
        let Some(stem) = name.strip_suffix(segment::SWAP_SUFFIX) else { continue };
        let Some(base) = stem.strip_suffix(super::names::LOG_SUFFIX).and(super::names::parse_file_offset(stem)) else {
            continue;
        };
        let swap = Segment::swap(dir, base);
        // `LogSegment.open(.., ".swap")` then `readNextOffset`: the swap's own index, or an
        // empty one that this very read creates.
        let bytes = swap.read_log()?;
        let index = swap.read_index()?;
        let next = next_offset_from_index(base, index.as_deref().unwrap_or(&[]), &bytes)
            .map_err(|thrown| next_offset_refusal(&swap, &thrown))?;
        low = low.min(base);
        high = high.max(next);
        log_swaps.push(swap);
    }
    Ok((log_swaps, low, high))
}

/// The plan's side of [`finish_interrupted_swaps`]: each swap takes, in the log's in-memory
/// view, the place of the segments of the span it replaces (`low..high`), and an index swapped
/// alone replaces its segment's index. Nothing is written.
fn swap_in_view(
    log: &mut Log,
    (low, high): (i64, i64),
    swap_bases: &[i64],
    log_swaps: Vec<Segment>,
    swaps: &[(&str, &std::path::PathBuf)],
) {
    // The rename puts each swap in place of the segment of its base, covered or not.
    log.segments.retain(|s| (s.base_offset < low || s.base_offset >= high) && !swap_bases.contains(&s.base_offset));
    log.segments.extend(log_swaps);
    log.segments.sort_by_key(|s| s.base_offset);
    // An index swapped alone (no `.log.swap` of its base) replaces the segment's index.
    for (name, _) in swaps {
        let Some(stem) = name.strip_suffix(segment::SWAP_SUFFIX) else { continue };
        let (index, time_index) =
            (stem.ends_with(super::names::INDEX_SUFFIX), stem.ends_with(super::names::TIME_INDEX_SUFFIX));
        let Some(base) = super::names::parse_file_offset(stem) else { continue };
        if swap_bases.contains(&base) || !(index || time_index) {
            continue;
        }
        for s in log.segments.iter_mut().filter(|s| s.base_offset == base) {
            *s = s.clone().with_swapped_indexes(index, time_index);
        }
    }
}

/// The run's side of [`finish_interrupted_swaps`]: the files a cleaner left and those the swaps
/// replace (`removed`) go, an index Kafka's `readNextOffset` created for a swap is made, and
/// every swap file is renamed into place, as Kafka's third pass renames them.
fn swap_on_disk(
    dir: &std::path::Path,
    removed: &[std::path::PathBuf],
    log_swaps: &[Segment],
    swaps: &[(String, std::path::PathBuf)],
) -> Result<()> {
    for path in removed {
        durable::remove_file(path)?;
    }
    for swap in log_swaps {
        // The index Kafka's `readNextOffset` created for the swap (a zero-filled one there;
        // an empty one reads the same), renamed into place with it below.
        if std::fs::symlink_metadata(swap.index_path()).is_err() {
            durable::write_atomic(&swap.index_path(), b"")?;
        }
    }
    // Every swap file, the indexes made above included, as Kafka's third pass renames them.
    let mut swaps = swaps.to_vec();
    for swap in log_swaps {
        let path = swap.index_path();
        if let Some(name) = path.file_name().and_then(|n| n.to_str()) {
            if !swaps.iter().any(|(n, _)| n == name) {
                swaps.push((name.to_string(), path.clone()));
            }
        }
    }
    for (name, path) in &swaps {
        let target = dir.join(name.strip_suffix(segment::SWAP_SUFFIX).unwrap_or(name));
        durable::rename(path, &target)?;
    }
    durable::sync_dir(dir)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::format::batch::{encode_batch, BatchSpec};
    use crate::format::record::NewRecord;

    fn log_of(bases: &[(i64, usize)]) -> (Vec<u8>, Vec<u64>) {
        let rec = NewRecord { timestamp: 1, key: None, value: Some(b"v".to_vec()), headers: vec![] };
        let mut bytes = Vec::new();
        let mut starts = Vec::new();
        for &(base, count) in bases {
            starts.push(bytes.len() as u64);
            bytes.extend(encode_batch(&BatchSpec::plain(base, 0), &vec![rec.clone(); count]));
        }
        (bytes, starts)
    }

    /// A log in `dir` of nine one-record batches in 200-byte segments (several segments).
    fn segmented_log(dir: &std::path::Path) -> Log {
        let config = super::super::LogConfig { segment_bytes: 200, ..Default::default() };
        let mut log = Log::open(dir, config, 0).unwrap();
        let rec = NewRecord { timestamp: 1, key: None, value: Some(b"value".to_vec()), headers: vec![] };
        for base in 0..9 {
            let bytes = encode_batch(&BatchSpec::plain(base, 0), std::slice::from_ref(&rec));
            log.append_batch(BatchIter::new(&bytes).next().unwrap()).unwrap();
        }
        log.finish().unwrap();
        log
    }

    fn files_of(dir: &std::path::Path) -> std::collections::BTreeMap<String, Vec<u8>> {
        std::fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap())
            .map(|e| (e.file_name().to_string_lossy().into_owned(), std::fs::read(e.path()).unwrap()))
            .collect()
    }

    const UNCLEAN_FROM_0: LoadInputs =
        LoadInputs { recovery_point: 0, log_start_offset_checkpoint: 0, clean_shutdown: false, recover: true };

    /// Flip the last byte of the second segment: its last batch fails its CRC.
    fn damage_second_segment(log: &Log) -> i64 {
        let seg = &log.segments[1];
        let mut bytes = std::fs::read(seg.log_path()).unwrap();
        *bytes.last_mut().unwrap() ^= 0xff;
        std::fs::write(seg.log_path(), bytes).unwrap();
        seg.base_offset
    }

    #[test]
    fn a_plan_writes_nothing_and_its_apply_leaves_what_it_planned() {
        let dir = tempfile::tempdir().unwrap();
        let log = segmented_log(dir.path());
        assert!(log.segments.len() >= 3, "{} segments", log.segments.len());
        let later: Vec<i64> = log.segments[2..].iter().map(|s| s.base_offset).collect();
        damage_second_segment(&log);
        let before = files_of(dir.path());
        let mut view = Log::open(dir.path(), log.config, 0).unwrap();
        let plan = plan_load(&mut view, &UNCLEAN_FROM_0).unwrap();
        assert_eq!(files_of(dir.path()), before, "the plan wrote");
        assert_eq!(plan.report.deleted_segments, later);
        // Deleted the last first, before the damaged segment is cut.
        let deletes = plan
            .actions
            .iter()
            .position(|a| matches!(a, LoadAction::DeleteSegments(b) if b.iter().eq(later.iter().rev())));
        let cut = plan.actions.iter().position(|a| matches!(a, LoadAction::Recovered { cut: true, .. }));
        assert!(deletes.is_some() && deletes < cut, "{:?}", plan.actions);
        assert!(plan.report.bytes_cut() > 0);

        let mut run = Log::open(dir.path(), log.config, 0).unwrap();
        let report = apply_load(&mut run, plan.clone()).unwrap();
        assert_eq!(report.segments_after, plan.report.segments_after);
        assert_eq!(run.log_end_offset, plan.report.log_end_offset_after);
        let on_disk: Vec<(i64, u64)> = run.segments.iter().map(|s| (s.base_offset, s.log_size().unwrap())).collect();
        assert_eq!(on_disk, plan.report.segments_after);
        // The indexes on disk are the ones the plan rebuilt.
        for action in &plan.actions {
            if let LoadAction::Recovered { base_offset, offset_index, time_index, .. } = action {
                let seg = Segment::new(dir.path(), *base_offset);
                assert_eq!(&std::fs::read(seg.index_path()).unwrap(), offset_index);
                assert_eq!(&std::fs::read(seg.time_index_path()).unwrap(), time_index);
            }
        }
        // A second load finds nothing left to cut.
        let again = plan_load(&mut Log::open(dir.path(), log.config, 0).unwrap(), &UNCLEAN_FROM_0).unwrap();
        assert_eq!((again.report.bytes_cut(), again.report.deleted_segments.len()), (0, 0));
        assert_eq!(again.report.log_end_offset_after, plan.report.log_end_offset_after);
    }

    #[test]
    fn an_apply_makes_the_plans_writes_without_reading_the_segments_again() {
        let dir = tempfile::tempdir().unwrap();
        let log = segmented_log(dir.path());
        let first = log.segments[0].clone();
        let mut view = Log::open(dir.path(), log.config, 0).unwrap();
        let plan = plan_load(&mut view, &UNCLEAN_FROM_0).unwrap();
        assert_eq!(plan.report.bytes_cut(), 0);
        // Bytes damaged after the plan: a scan would cut the first segment, the apply keeps it
        // whole as planned.
        let mut bytes = std::fs::read(first.log_path()).unwrap();
        *bytes.last_mut().unwrap() ^= 0xff;
        std::fs::write(first.log_path(), &bytes).unwrap();
        let report = apply_load(&mut Log::open(dir.path(), log.config, 0).unwrap(), plan).unwrap();
        assert_eq!(report.bytes_cut(), 0);
        assert_eq!(first.log_size().unwrap(), bytes.len() as u64);
    }

    #[test]
    fn a_split_starts_a_piece_at_each_batch_that_does_not_fit_the_current_one() {
        let far = 6 + (1i64 << 32);
        let (bytes, starts) = log_of(&[(6, 2), (far, 2), (10, 2), (12, 1)]);
        let pieces = split_pieces(&bytes).unwrap();
        let end = bytes.len() as u64;
        assert_eq!(
            pieces,
            vec![
                SplitPiece { base_offset: 6, start: 0, end: starts[1] },
                SplitPiece { base_offset: far, start: starts[1], end: starts[2] },
                SplitPiece { base_offset: 10, start: starts[2], end },
            ]
        );
        // Every byte lands in exactly one piece (Kafka checks the sizes add up).
        assert_eq!(pieces.iter().map(|p| p.end - p.start).sum::<u64>(), end);
    }

    #[test]
    fn a_log_that_fits_its_first_base_is_one_piece() {
        let (bytes, _) = log_of(&[(0, 3), (3, 1)]);
        assert_eq!(
            split_pieces(&bytes).unwrap(),
            vec![SplitPiece { base_offset: 0, start: 0, end: bytes.len() as u64 }]
        );
    }
}
