//! What becomes of each follower record when it restarts as a follower ([the model](crate::replication),
//! "What the report calls things"). Pure: the record's offset, whether the leader holds the same
//! batch there, the cut and the two HWs in; its class out.

use super::storage::{Record, Storage};
use crate::error::Result;

/// How a follower record fares.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RecordClass {
    /// Below the truncation point, and the leader has the same batch or nothing there.
    Kept,
    /// Kept, but the leader holds a different record at that offset.
    Diverged,
    /// Removed, and the leader holds the identical batch: the next fetch brings it back.
    TruncatedRefetchable,
    /// Removed, the leader does not hold it, and it was never committed.
    TruncatedLost,
    /// Removed, the leader does not hold it, and it was committed.
    AckedLost,
    /// Removed because the follower's log ends below the leader's log start: it truncates fully
    /// and starts at the leader's log start (`truncateFullyAndStartAt`); the leader no longer
    /// holds these offsets (retention or deleteRecords removed them).
    BelowLeaderStart,
}

impl RecordClass {
    pub fn name(self) -> &'static str {
        match self {
            RecordClass::Kept => "kept",
            RecordClass::Diverged => "diverged",
            RecordClass::TruncatedRefetchable => "truncated_refetchable",
            RecordClass::TruncatedLost => "truncated_lost",
            RecordClass::AckedLost => "acked_lost",
            RecordClass::BelowLeaderStart => "below_leader_start",
        }
    }
}

/// What the leader holds at the follower record's offset.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AtLeader {
    Nothing,
    SameBatch,
    Different,
}

/// Whether the follower's record at `offset` was acknowledged: a leader's HW covered *that
/// record* while it led. The current leader's HW covers it only when the leader holds the same
/// batch there — a different record below the leader's HW was never this one. The follower's
/// own HW (before truncation) is min(its LEO, the HW of the last leader it fetched from)
/// (`ReplicaFetcherThread.scala:143-148@2.0.1`): it proves the record only when that leader
/// held it, which is certain when the follower has seen no epoch after the record's own
/// (`hw_from_its_writer`: its HW came from the leader that wrote the record, or it was that
/// leader). A follower that went on to a later epoch may have had its HW from a leader holding
/// another record there — or, where the current leader holds nothing there, from a leader in
/// between that did (the stale receiver before KIP-320): not proven, not counted. Records
/// below a proven one are proven by [`acknowledged_prefix`].
pub fn acked(
    offset: i64,
    follower_high_watermark: i64,
    leader_high_watermark: i64,
    at_leader: AtLeader,
    hw_from_its_writer: bool,
) -> bool {
    let by_own_hw = offset < follower_high_watermark && hw_from_its_writer;
    by_own_hw || (at_leader == AtLeader::SameBatch && offset < leader_high_watermark)
}

/// The acknowledged prefix: the offset below which every record the follower holds is proven
/// committed because a record above it is. A HW covers a prefix of the log of the leader that
/// set it, so a committed record proves the records below it in *that leader's* log: the
/// follower's own log only where the follower was that leader — an epoch the metadata shows it
/// leading alone in the ISR at min.insync.replicas 1 (`committed_epochs`: each record committed
/// as it was appended, its log below them its own). A record proven by the follower's HW
/// proves nothing below it: the follower may hold there what that leader never held (KIP-101's
/// divergence). 0 when nothing is proven.
pub fn acknowledged_prefix(
    cache: &crate::log::epoch_cache::EpochCache,
    log_end_offset: i64,
    committed_epochs: &[i32],
) -> i64 {
    cache
        .ranges(log_end_offset)
        .into_iter()
        .filter(|(entry, end)| {
            committed_epochs.contains(&entry.leader_epoch) && (*end).min(log_end_offset) > entry.start_offset
        })
        .map(|(_, end)| end.min(log_end_offset))
        .max()
        .unwrap_or(0)
}

/// The class of the follower record at `offset` when the follower cuts its log at `cut_offset`;
/// `restart_at` when the cut is below the leader's log start and the follower starts there.
pub fn classify(
    offset: i64,
    at_leader: AtLeader,
    cut_offset: i64,
    acked: bool,
    restart_at: Option<i64>,
) -> RecordClass {
    if restart_at.is_some_and(|start| offset < start) {
        return RecordClass::BelowLeaderStart;
    }
    match (offset < cut_offset, at_leader) {
        (true, AtLeader::Different) => RecordClass::Diverged,
        (true, _) => RecordClass::Kept,
        (false, AtLeader::SameBatch) => RecordClass::TruncatedRefetchable,
        (false, _) if acked => RecordClass::AckedLost,
        (false, _) => RecordClass::TruncatedLost,
    }
}

/// Counts of each class over a report.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ClassCounts {
    pub kept: u64,
    pub truncated_refetchable: u64,
    pub truncated_lost: u64,
    pub acked_lost: u64,
    pub diverged: u64,
    /// Diverged records that were acked: lost from the leader's log although committed.
    pub diverged_acked: u64,
    pub below_leader_start: u64,
}

impl ClassCounts {
    pub fn add(&mut self, class: RecordClass, acked: bool) {
        match class {
            RecordClass::Kept => self.kept += 1,
            RecordClass::Diverged => {
                self.diverged += 1;
                if acked {
                    self.diverged_acked += 1;
                }
            }
            RecordClass::TruncatedRefetchable => self.truncated_refetchable += 1,
            RecordClass::TruncatedLost => self.truncated_lost += 1,
            RecordClass::AckedLost => self.acked_lost += 1,
            RecordClass::BelowLeaderStart => self.below_leader_start += 1,
        }
    }

    /// Acked records lost: truncated, or kept where the leader holds another record.
    pub fn acked_and_lost(&self) -> u64 {
        self.acked_lost + self.diverged_acked
    }
}

/// One classified follower record, with the leader's record at its offset.
#[derive(Debug, Clone)]
pub struct Classified<R> {
    pub follower: R,
    pub leader: Option<R>,
    pub class: RecordClass,
    pub acked: bool,
}

/// What a follower's records from `from` to its log end become when it cuts at `cut` against
/// `leader` (its HW before the cut `follower_hw`): every record classified and counted, the
/// first `max_rows` kept.
#[derive(Debug, Clone)]
pub struct Window<R> {
    pub rows: Vec<Classified<R>>,
    pub rows_omitted: u64,
    pub counts: ClassCounts,
    pub first_divergent_offset: Option<i64>,
}

/// Classify the follower's records in `from .. its log end` (the cut and the HWs as they were
/// before the cut). `committed_epochs`: epochs whose every record the follower holds is known
/// committed from elsewhere (the metadata shows it leading them alone in the ISR at
/// min.insync.replicas 1, so its HW followed its log end). Written once for `recover` and the
/// explorer.
#[allow(clippy::too_many_arguments)]
pub fn classify_window<S: Storage>(
    follower: &S,
    leader: &S,
    from: i64,
    cut: i64,
    follower_hw: i64,
    restart_at: Option<i64>,
    max_rows: usize,
    committed_epochs: &[i32],
) -> Result<Window<S::Record>> {
    let mut leader_records = leader.records(from, leader.log_end_offset())?;
    let mut at = leader_records.next().transpose()?;
    let mut w =
        Window { rows: Vec::new(), rows_omitted: 0, counts: ClassCounts::default(), first_divergent_offset: None };
    // The latest epoch the follower has seen (a fetch, an election, a batch it holds): its HW
    // came from a leader at that epoch or before.
    let cache = follower.epochs();
    let seen = follower.largest_seen().max(cache.latest_epoch());
    let prefix = acknowledged_prefix(&cache, follower.log_end_offset(), committed_epochs);
    for record in follower.records(from, follower.log_end_offset())? {
        let record = record?;
        while at.as_ref().is_some_and(|l| l.offset() < record.offset()) {
            at = leader_records.next().transpose()?;
        }
        let leader_record = at.as_ref().filter(|l| l.offset() == record.offset());
        let there = match leader_record {
            None => AtLeader::Nothing,
            Some(l) if l.same_batch(&record) => AtLeader::SameBatch,
            Some(_) => AtLeader::Different,
        };
        let written_at = cache.epoch_for_offset(record.offset());
        let hw_from_its_writer = seen <= written_at;
        let acked = acked(record.offset(), follower_hw, leader.high_watermark(), there, hw_from_its_writer)
            || written_at.is_some_and(|e| committed_epochs.contains(&e))
            || record.offset() < prefix;
        let class = classify(record.offset(), there, cut, acked, restart_at);
        w.counts.add(class, acked);
        if class == RecordClass::Diverged {
            w.first_divergent_offset.get_or_insert(record.offset());
        }
        if w.rows.len() < max_rows {
            let leader = leader_record.cloned();
            w.rows.push(Classified { follower: record, leader, class, acked });
        } else {
            w.rows_omitted += 1;
        }
    }
    Ok(w)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn records_below_the_cut_are_kept_or_diverged_and_above_it_refetchable_or_lost() {
        assert_eq!(classify(0, AtLeader::SameBatch, 1, true, None), RecordClass::Kept);
        assert_eq!(classify(0, AtLeader::Nothing, 1, true, None), RecordClass::Kept);
        assert_eq!(classify(0, AtLeader::Different, 1, true, None), RecordClass::Diverged);
        assert_eq!(classify(1, AtLeader::SameBatch, 1, true, None), RecordClass::TruncatedRefetchable);
        assert_eq!(classify(1, AtLeader::Different, 1, true, None), RecordClass::AckedLost);
        assert_eq!(classify(1, AtLeader::Nothing, 1, false, None), RecordClass::TruncatedLost);
        assert_eq!(classify(0, AtLeader::Nothing, 1, true, Some(5)), RecordClass::BelowLeaderStart);
    }

    #[test]
    fn acked_means_a_leaders_hw_covered_that_very_record() {
        assert!(acked(1, 2, 0, AtLeader::Different, true), "below the follower's HW from the record's writer");
        assert!(acked(1, 0, 2, AtLeader::SameBatch, false), "below the leader's HW, and the leader holds it");
        assert!(!acked(1, 0, 2, AtLeader::Different, true), "the leader's HW covered a different record");
        assert!(!acked(1, 0, 2, AtLeader::Nothing, true));
        assert!(!acked(2, 2, 2, AtLeader::SameBatch, true));
        // The follower saw a later epoch whose leader holds another record there: its HW may
        // have come from that record.
        assert!(!acked(1, 2, 0, AtLeader::Different, false), "not proven");
        // Nor where the current leader holds nothing there: a leader in between may have
        // (ReplicaFetcherThread.scala:143-148@2.0.1: the HW is that leader's).
        assert!(!acked(1, 2, 0, AtLeader::Nothing, false), "not proven");
    }

    fn cache(pairs: &[(i32, i64)]) -> crate::log::epoch_cache::EpochCache {
        crate::log::epoch_cache::EpochCache::from_entries(
            pairs.iter().map(|&(leader_epoch, start_offset)| crate::log::epoch_cache::EpochEntry {
                leader_epoch,
                start_offset,
            }),
        )
    }

    /// Issue 41, point 2: a record proven committed proves the records below it in the log of
    /// the leader that committed it (Partition.scala:361-376@0.10.2.0, `maybeIncrementLeaderHW`:
    /// one HW over the leader's log).
    #[test]
    fn a_record_proven_committed_proves_every_record_below_it() {
        // b-0 b-1 at epoch 0, d-0 d-1 at epoch 1 (led alone): epoch 1 proven, so all four.
        let c = cache(&[(0, 0), (1, 2)]);
        assert_eq!(acknowledged_prefix(&c, 4, &[1]), 4);
        assert_eq!(acknowledged_prefix(&c, 4, &[0]), 2, "epoch 0 proves only itself and below");
        assert_eq!(acknowledged_prefix(&c, 4, &[]), 0);
        // An epoch with no record left proves nothing.
        assert_eq!(acknowledged_prefix(&cache(&[(0, 0), (1, 2), (2, 2)]), 2, &[1]), 0);
    }
}
