//! Local retention of a partition with remote storage (Kafka 4.4's `UnifiedLog`, read in
//! trunk's source at 1eb7644, `UnifiedLog.scala:1488-1532`, and compared with 4.4.0's bytecode:
//! `deletableSegments` and `isSegmentEligibleForDeletion`, UnifiedLog.java:1872-1926@4.4.0, the
//! same calls in the same order): with `remote.storage.enable=true` the retention
//! limits are `local.retention.bytes` / `local.retention.ms`, and a segment is deleted only
//! when, oldest first,
//! - the limit is breached (`deleteRetentionSizeBreachedSegments`: the local log's size less
//!   the segments already chosen stays at or above the limit without this one;
//!   `deleteRetentionMsBreachedSegments`: now − its largest timestamp > the limit),
//! - its offsets lie below the high watermark (`highWatermark >= upperBoundOffset`, the next
//!   segment's base or the log end),
//! - it is not the last segment and empty, and
//! - `isSegmentEligibleForDeletion`: its last offset (`upperBoundOffset − 1`) is at or below
//!   the highest offset in remote storage, or the log start has passed the next segment's base.
//!
//! The walk stops at the first segment that stays. When the active segment itself breaches
//! the limit, the log rolls (the rolled segment goes in a later run, once copied). Deleting
//! moves the local log start only (`incrementStartOffset` → `maybeIncrementLocalLogStartOffset`
//! when remote copy is enabled): the log start across tiers stays, the epoch cache keeps its
//! entries, and Kafka 4.4 keeps writing the log start into `log-start-offset-checkpoint` for a
//! log with remote storage (`LogManager.java:1073-1075@4.4.0`), below the first local segment.
//! Each deleted segment's producer snapshot goes with it (`deleteProducerSnapshots`).
//!
//! The highest offset in remote storage: a leader's copy task sets it (`findHighestRemoteOffset`
//! when it becomes leader, then after each copy), and a follower's `RLMFollowerTask` sets it from
//! the same `findHighestRemoteOffset` over its own metadata manager (RemoteLogManager.java:
//! 1424-1437 at 1eb7644; `RemoteLogManager$RLMFollowerTask.execute` in 4.4.0). klog computes it
//! once, from the replica's own `__remote_log_metadata-0` and epoch cache, for either role.

use super::copy::find_highest_remote_offset;
use super::lab;
use crate::error::Result;
use crate::format::batch::BatchIter;
use crate::log::names;
use crate::replica::Replica;
use std::path::Path;

/// Which limit a run applies.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LocalRetention {
    /// `local.retention.bytes`.
    Bytes(u64),
    /// `local.retention.ms`, with the time now.
    Ms { retention_ms: u64, now_ms: i64 },
}

/// One local segment as the walk sees it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SegmentFacts {
    pub base_offset: i64,
    pub size_bytes: u64,
    pub largest_timestamp_ms: i64,
}

/// What the walk decides.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct RetentionPlan {
    /// The bases of the segments deleted, oldest first.
    pub deleted: Vec<i64>,
    /// Why the walk stopped at the first segment kept (`None`: nothing to stop at).
    pub stopped: Option<(i64, &'static str)>,
    /// The active segment breached the limit: the log rolls.
    pub roll: bool,
}

/// `UnifiedLog.deletableSegments` with the local retention predicate, for a log with remote
/// storage and remote copy enabled.
pub fn plan_retention(
    segments: &[SegmentFacts],
    log_end_offset: i64,
    high_watermark: i64,
    log_start_offset: i64,
    highest_remote_offset: i64,
    limit: LocalRetention,
) -> RetentionPlan {
    let mut plan = RetentionPlan::default();
    let total: u64 = segments.iter().map(|s| s.size_bytes).sum();
    let mut diff = match limit {
        // `if (retentionSize < 0 || size < retentionSize) return 0`.
        LocalRetention::Bytes(limit) if total < limit => return plan,
        LocalRetention::Bytes(limit) => total - limit,
        LocalRetention::Ms { .. } => 0,
    };
    let mut predicate = |s: &SegmentFacts| match limit {
        LocalRetention::Bytes(_) => {
            let delete = diff >= s.size_bytes;
            if delete {
                diff -= s.size_bytes;
            }
            delete
        }
        LocalRetention::Ms { retention_ms, now_ms } => {
            now_ms.saturating_sub(s.largest_timestamp_ms) > i64::try_from(retention_ms).unwrap_or(i64::MAX)
        }
    };
    for (i, s) in segments.iter().enumerate() {
        let next = segments.get(i + 1);
        let upper = next.map_or(log_end_offset, |n| n.base_offset);
        let breached = high_watermark >= upper && predicate(s);
        if breached && next.is_none() && s.size_bytes > 0 {
            plan.roll = true;
        }
        let last_and_empty = next.is_none() && s.size_bytes == 0;
        let eligible = (upper > 0 && upper - 1 <= highest_remote_offset)
            || next.is_some_and(|n| log_start_offset >= n.base_offset);
        if breached && !last_and_empty && eligible {
            plan.deleted.push(s.base_offset);
            continue;
        }
        let why = if high_watermark < upper {
            "its offsets reach the high watermark"
        } else if !breached {
            "the limit is not breached without it"
        } else if last_and_empty {
            "it is the empty active segment"
        } else {
            "it is not in remote storage yet (its last offset is above the highest remote offset)"
        };
        plan.stopped = Some((s.base_offset, why));
        break;
    }
    plan
}

/// What `klog tier retain` did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RetainReport {
    pub limit: LocalRetention,
    pub highest_remote_offset: i64,
    pub log_start_offset: i64,
    pub local_log_start_before: i64,
    pub local_log_start_after: i64,
    pub plan: RetentionPlan,
    /// Bytes of the `.log` files deleted.
    pub deleted_bytes: u64,
}

pub struct RetainRequest<'a> {
    pub dir: &'a Path,
    pub partition: Option<&'a str>,
    pub limit: LocalRetention,
}

fn segment_facts(replica: &Replica) -> Result<Vec<SegmentFacts>> {
    let mut out = Vec::new();
    for seg in replica.log().segments() {
        let bytes = seg.read_log()?;
        let mut largest = -1;
        for b in BatchIter::new(&bytes) {
            largest = largest.max(b.max_timestamp());
        }
        out.push(SegmentFacts {
            base_offset: seg.base_offset,
            size_bytes: bytes.len() as u64,
            largest_timestamp_ms: largest,
        });
    }
    Ok(out)
}

/// Run local retention once on a tiered lab's partition.
pub fn run(req: &RetainRequest<'_>) -> Result<RetainReport> {
    let mut replica = Replica::open_for_write(req.dir, req.partition)?;
    lab::require_remote_dir(&replica, None)?;
    let tp = lab::topic_id_partition(&replica)?;
    let log_dir = replica.paths().log_dir.clone();
    let remote = lab::read_partition_metadata(&log_dir, &tp)?;
    replica.start()?;
    let log_start_offset = replica.log_start_offset_below_local().unwrap_or(replica.log_start_offset());
    let (highest_remote_offset, _) =
        find_highest_remote_offset(replica.log().epoch_cache(), replica.log_end_offset(), &remote);
    let segments = segment_facts(&replica)?;
    let local_log_start_before = segments.first().map_or(replica.log_end_offset(), |s| s.base_offset);
    let plan = plan_retention(
        &segments,
        replica.log_end_offset(),
        replica.high_watermark(),
        log_start_offset,
        highest_remote_offset,
        req.limit,
    );
    let dir = replica.paths().partition_dir.clone();
    // `deletableSegments` rolls before `deleteSegments` deletes.
    if plan.roll {
        replica.log_mut().roll()?;
    }
    let mut deleted_bytes = 0;
    for &base in &plan.deleted {
        deleted_bytes += segments.iter().find(|s| s.base_offset == base).map_or(0, |s| s.size_bytes);
        // `.log` last: a death part-way leaves a whole segment or one without indexes.
        for suffix in [names::TXN_INDEX_SUFFIX, names::TIME_INDEX_SUFFIX, names::INDEX_SUFFIX, names::LOG_SUFFIX] {
            crate::durable::remove_file(&names::build_segment_path(&dir, base, suffix))?;
        }
        crate::durable::remove_file(&names::build_segment_path(&dir, base, names::SNAPSHOT_SUFFIX))?;
    }
    let local_log_start_after = plan
        .deleted
        .last()
        .and_then(|last| segments.iter().find(|s| s.base_offset > *last))
        .map_or(if plan.deleted.is_empty() { local_log_start_before } else { replica.log_end_offset() }, |s| {
            s.base_offset
        });
    if !plan.deleted.is_empty() {
        replica.log_mut().reload(local_log_start_after)?;
    }
    // The log start across tiers, below the first local segment (LogManager.java:1073-1075@4.4.0).
    let p = replica.paths();
    crate::log::checkpoint::set_offset_entries(
        &p.log_dir.join(names::LOG_START_OFFSET_CHECKPOINT),
        &[(p.topic.as_str(), p.partition, log_start_offset)],
    )?;
    if replica.recovery_point() < local_log_start_after {
        replica.set_recovery_point(local_log_start_after)?;
    }
    Ok(RetainReport {
        limit: req.limit,
        highest_remote_offset,
        log_start_offset,
        local_log_start_before,
        local_log_start_after,
        plan,
        deleted_bytes,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn segs(sizes: &[(i64, u64)]) -> Vec<SegmentFacts> {
        sizes
            .iter()
            .map(|&(b, s)| SegmentFacts { base_offset: b, size_bytes: s, largest_timestamp_ms: b * 10 })
            .collect()
    }

    #[test]
    fn only_segments_at_or_below_the_highest_remote_offset_go() {
        let s = segs(&[(0, 100), (10, 100), (20, 100), (30, 50)]);
        // 350 bytes, limit 50: three segments breach it; only 0..9 and 10..19 are remote.
        let p = plan_retention(&s, 35, 35, 0, 19, LocalRetention::Bytes(50));
        assert_eq!(p.deleted, vec![0, 10]);
        assert_eq!(p.stopped.map(|s| s.0), Some(20));
        assert!(p.stopped.unwrap().1.contains("not in remote storage"));
        // Nothing remote: nothing goes, however large the log.
        assert_eq!(plan_retention(&s, 35, 35, 0, -1, LocalRetention::Bytes(0)).deleted, Vec::<i64>::new());
    }

    #[test]
    fn the_size_limit_counts_down_and_the_high_watermark_bounds_the_walk() {
        let s = segs(&[(0, 100), (10, 100), (20, 100), (30, 50)]);
        let p = plan_retention(&s, 35, 35, 0, 29, LocalRetention::Bytes(200));
        assert_eq!(p.deleted, vec![0], "350 - 200 = 150: one segment of 100, not two");
        let p = plan_retention(&s, 35, 15, 0, 29, LocalRetention::Bytes(0));
        assert_eq!(p.deleted, vec![0], "10..19 reaches the HW 15");
        assert_eq!(plan_retention(&s, 35, 35, 0, 29, LocalRetention::Bytes(400)), RetentionPlan::default());
    }

    #[test]
    fn an_active_segment_that_breaches_the_limit_rolls_and_stays() {
        let s = segs(&[(0, 100), (10, 50)]);
        let p = plan_retention(&s, 15, 15, 0, 14, LocalRetention::Bytes(0));
        assert_eq!((p.deleted.clone(), p.roll), (vec![0, 10], true), "both copied: both go, and the log rolls");
        let p = plan_retention(&s, 15, 15, 0, 9, LocalRetention::Bytes(0));
        assert_eq!((p.deleted.clone(), p.roll), (vec![0], true));
    }

    #[test]
    fn the_time_limit_deletes_segments_older_than_it() {
        let s = segs(&[(0, 100), (10, 100), (20, 100)]);
        let limit = LocalRetention::Ms { retention_ms: 50, now_ms: 200 };
        // Largest timestamps 0, 100, 200: the first two are more than 50 ms old.
        let p = plan_retention(&s, 25, 25, 0, 19, limit);
        assert_eq!(p.deleted, vec![0, 10]);
        assert_eq!(p.stopped, Some((20, "the limit is not breached without it")));
    }
}
