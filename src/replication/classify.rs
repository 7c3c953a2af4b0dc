//! What becomes of each follower record when it restarts as a follower (replication-model.md,
//! "What the report calls things"). Pure: the record's offset, whether the leader holds the same
//! batch there, the cut and the two HWs in; its class out.

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
/// record* while it led. The follower's own HW (before truncation) came from the leader it
/// copied the record from, so it covers the record; the current leader's HW covers it only when
/// the leader holds the same batch there — a different record below the leader's HW was never
/// this one.
pub fn acked(offset: i64, follower_high_watermark: i64, leader_high_watermark: i64, at_leader: AtLeader) -> bool {
    offset < follower_high_watermark || (at_leader == AtLeader::SameBatch && offset < leader_high_watermark)
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
        assert!(acked(1, 2, 0, AtLeader::Different), "below the follower's own HW");
        assert!(acked(1, 0, 2, AtLeader::SameBatch), "below the leader's HW, and the leader holds it");
        assert!(!acked(1, 0, 2, AtLeader::Different), "the leader's HW covered a different record");
        assert!(!acked(1, 0, 2, AtLeader::Nothing));
        assert!(!acked(2, 2, 2, AtLeader::SameBatch));
    }
}
