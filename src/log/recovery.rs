//! Local log recovery, as a broker does at start-up (Kafka `LogLoader.load`, `recoverLog`,
//! `LogSegment.recover`; kafka-format.md §5).
//!
//! After an unclean stop every segment from the one holding the recovery point onward is
//! scanned batch by batch (size and CRC, without decompressing); the first invalid batch and
//! everything after it is cut, later segments are deleted, the indexes of scanned segments are
//! rebuilt, epochs found in scanned batches above the cache's latest are assigned, and the
//! cache is truncated to the new log end. After a clean stop nothing is scanned. A segment
//! without `.index` is recovered in either case. The report lists every byte destroyed.

use super::epoch_cache::EpochEntry;
use super::index::{IndexBuilder, TIME_ENTRY_BYTES};
use super::segment::Segment;
use super::Log;
use crate::durable;
use crate::error::Result;
use crate::format::batch::{BatchIter, ScanStop};

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
}

impl RecoveryReport {
    pub fn bytes_cut(&self) -> u64 {
        self.cut.iter().map(|c| c.size_bytes).sum()
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

/// Run local recovery on `log`. `recovery_point` and `log_start_offset` are the checkpointed
/// values (0 when absent); `clean_shutdown` is whether `.kafka_cleanshutdown` was present.
/// With `dry_run` nothing is written: the log's in-memory view (segments, LEO, epoch cache)
/// becomes what recovery would leave, and the report says what it would cut.
pub fn recover_log(
    log: &mut Log,
    recovery_point: i64,
    log_start_offset: i64,
    clean_shutdown: bool,
    dry_run: bool,
) -> Result<RecoveryReport> {
    log.finish()?;
    log.writer = None;
    let mut report = RecoveryReport {
        clean_shutdown,
        recovery_point_before: recovery_point,
        log_end_offset_before: log.log_end_offset,
        ..Default::default()
    };
    let cache_before = log.epoch_cache.entries().to_vec();
    let first_to_scan = if clean_shutdown { usize::MAX } else { log.segment_for(recovery_point).unwrap_or(0) };
    let mut i = 0;
    while i < log.segments.len() {
        let seg = log.segments[i].clone();
        let missing_index = !seg.index_path().exists();
        if i < first_to_scan && !missing_index {
            if !dry_run && !seg.time_index_path().exists() {
                // Kafka creates a missing time index empty rather than rebuilding it.
                durable::create_file(&seg.time_index_path())?;
            }
            i += 1;
            continue;
        }
        let outcome = recover_segment(log, &seg, dry_run)?;
        let truncated = outcome.truncated_bytes > 0;
        report.segments.push(outcome);
        report.cut.append(&mut log.recovery_cut);
        if truncated {
            for later in log.segments.drain(i + 1..).collect::<Vec<_>>() {
                let bytes = later.read_log()?;
                let mut iter = BatchIter::new(&bytes);
                for b in iter.by_ref() {
                    report.cut.push(CutBatch {
                        segment_base_offset: later.base_offset,
                        position: b.position,
                        size_bytes: b.size_bytes() as u64,
                        base_offset: Some(b.base_offset()),
                        last_offset: Some(b.last_offset()),
                        partition_leader_epoch: Some(b.partition_leader_epoch()),
                    });
                }
                if let Some(ScanStop::Partial { position, len }) = iter.stop() {
                    report.cut.push(unframed(later.base_offset, *position, *len));
                }
                drop(bytes);
                if !dry_run {
                    super::delete_segment_files(&later)?;
                }
                report.deleted_segments.push(later.base_offset);
            }
            break;
        }
        i += 1;
    }
    if dry_run {
        if let Some(cut) = report.segments.iter().find(|s| s.truncated_bytes > 0) {
            log.log_end_offset = cut.end_offset;
        }
        let leo = log.log_end_offset;
        log.epoch_cache.truncate_from_end(leo);
        log.epoch_cache.truncate_from_start(log_start_offset);
        let after = log.epoch_cache.entries();
        report.epochs_added = after.iter().filter(|e| !cache_before.contains(e)).copied().collect();
        report.epochs_removed = cache_before.iter().filter(|e| !after.contains(e)).copied().collect();
        report.log_end_offset_after = leo;
        return Ok(report);
    }
    log.reload(log_start_offset)?;
    if log.segments.is_empty() {
        log.create_segment(log_start_offset)?;
        log.log_end_offset = log_start_offset;
    }
    if log.log_end_offset < log_start_offset {
        log.truncate_fully_and_start_at(log_start_offset)?;
    }
    let leo = log.log_end_offset;
    let changed_end = log.epoch_cache.truncate_from_end(leo);
    let changed_start = log.epoch_cache.truncate_from_start(log_start_offset);
    if changed_end || changed_start || log.epoch_cache.entries() != cache_before.as_slice() {
        log.write_epoch_cache()?;
    }
    let after = log.epoch_cache.entries();
    report.epochs_added = after.iter().filter(|e| !cache_before.contains(e)).copied().collect();
    report.epochs_removed = cache_before.iter().filter(|e| !after.contains(e)).copied().collect();
    report.log_end_offset_after = leo;
    Ok(report)
}

fn unframed(segment_base_offset: i64, position: u64, len: u64) -> CutBatch {
    CutBatch {
        segment_base_offset,
        position,
        size_bytes: len,
        base_offset: None,
        last_offset: None,
        partition_leader_epoch: None,
    }
}

/// `LogSegment.recover`: validate every batch, cut at the first invalid one, rebuild indexes,
/// assign epochs above the cache's latest.
fn recover_segment(log: &mut Log, seg: &Segment, dry_run: bool) -> Result<SegmentRecovery> {
    let bytes = seg.read_log()?;
    let mut builder = IndexBuilder::new(seg.base_offset, log.config.index_interval_bytes);
    let mut out = SegmentRecovery {
        base_offset: seg.base_offset,
        batches_valid: 0,
        valid_bytes: 0,
        truncated_bytes: 0,
        invalid_at: None,
        index_entries: 0,
        time_index_entries: 0,
        end_offset: seg.base_offset,
    };
    let mut cut = Vec::new();
    let mut iter = BatchIter::new(&bytes);
    let mut previous_last: Option<i64> = None;
    let mut released = 0;
    for batch in iter.by_ref() {
        bytes.release_before(batch.position as usize, &mut released);
        let problem = match batch.verify() {
            Err(d) => Some(d.what),
            Ok(()) if batch.base_offset() < seg.base_offset => Some(format!(
                "base offset {} is below the segment's base offset {}",
                batch.base_offset(),
                seg.base_offset
            )),
            Ok(()) if batch.last_offset() < batch.base_offset() => {
                Some(format!("last offset {} is below base offset {}", batch.last_offset(), batch.base_offset()))
            }
            Ok(()) if previous_last.is_some_and(|p| batch.base_offset() <= p) => Some(format!(
                "offset {} does not follow the previous batch's last offset {}",
                batch.base_offset(),
                previous_last.unwrap_or(0)
            )),
            Ok(()) => None,
        };
        if let Some(why) = problem {
            out.invalid_at = Some((batch.position, why));
            break;
        }
        previous_last = Some(batch.last_offset());
        builder.on_batch(batch.position, batch.last_offset(), batch.max_timestamp(), batch.size_bytes() as u64);
        let epoch = batch.partition_leader_epoch();
        if batch.magic() >= 2 && epoch >= 0 && log.epoch_cache.latest_epoch().is_none_or(|l| epoch > l) {
            log.epoch_cache.assign(epoch, batch.base_offset());
        }
        out.batches_valid += 1;
        out.valid_bytes = batch.position + batch.size_bytes() as u64;
        out.end_offset = batch.next_offset();
    }
    match iter.stop() {
        Some(ScanStop::Partial { position, len }) => {
            out.invalid_at = Some((*position, format!("{len} bytes of a partial batch at the end of the segment")));
        }
        Some(ScanStop::BadSize { position, size }) => {
            out.invalid_at = Some((*position, format!("size field {size} is below the minimum of 14")));
        }
        _ => {}
    }
    let file_len = bytes.len() as u64;
    if out.valid_bytes < file_len {
        // Describe what goes: batches that still frame after the cut, then raw bytes.
        let mut it = BatchIter::starting_at(&bytes, out.valid_bytes as usize);
        for b in it.by_ref() {
            cut.push(CutBatch {
                segment_base_offset: seg.base_offset,
                position: b.position,
                size_bytes: b.size_bytes() as u64,
                base_offset: Some(b.base_offset()),
                last_offset: Some(b.last_offset()),
                partition_leader_epoch: Some(b.partition_leader_epoch()),
            });
        }
        let end = it.position() as u64;
        if end < file_len {
            cut.push(unframed(seg.base_offset, end, file_len - end));
        }
    }
    builder.finish_segment();
    drop(bytes);
    if out.valid_bytes < file_len {
        out.truncated_bytes = file_len - out.valid_bytes;
        if !dry_run {
            durable::truncate_file(&seg.log_path(), out.valid_bytes)?;
        }
    }
    if !dry_run {
        durable::write_atomic(&seg.index_path(), &builder.pending_offset_entries)?;
        durable::write_atomic(&seg.time_index_path(), &builder.pending_time_entries)?;
    }
    out.index_entries = (builder.pending_offset_entries.len() / 8) as u64;
    out.time_index_entries = (builder.pending_time_entries.len() / TIME_ENTRY_BYTES) as u64;
    // The cut batches are reported by the caller through the log-level report.
    log.recovery_cut.extend(cut);
    Ok(out)
}
