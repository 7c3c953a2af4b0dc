//! When a leader changes its ISR (Kafka's AlterPartition, from 2.7; `klog alter-isr`). Pure. Read
//! at 3.9.0 (the same in 4.4.0's `Partition` and `Replica`).

/// `Replica.isCaughtUp` without the clock: a follower whose last fetch offset (its log end as the
/// leader saw it; `None`: none since the election) is the leader's log end stays in the ISR; any
/// other may be dropped once `replica.lag.time.max.ms` passes (`Partition.getOutOfSyncReplicas`),
/// which the explorer leaves to chance.
pub fn may_shrink(follower_fetch_offset: Option<i64>, leader_log_end_offset: i64) -> bool {
    follower_fetch_offset != Some(leader_log_end_offset)
}

/// `Partition.isFollowerInSync`: a follower (of this leader, at its epoch) joins the ISR once its
/// fetch reached the leader's HW and the start offset of the leader's epoch (so that it holds
/// every record a previous leader may have committed).
pub fn may_expand(follower_fetch_offset: Option<i64>, leader_high_watermark: i64, leader_epoch_start: i64) -> bool {
    follower_fetch_offset.is_some_and(|o| o >= leader_high_watermark && o >= leader_epoch_start)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Replica.isCaughtUp (3.9.0, 4.4.0): `leaderEndOffset == logEndOffset || lagged <= max`.
    #[test]
    fn only_a_follower_short_of_the_log_end_may_leave_the_isr() {
        assert!(!may_shrink(Some(5), 5));
        assert!(may_shrink(Some(4), 5));
        assert!(may_shrink(None, 0), "no fetch since the election: its log end is unknown");
    }

    /// Partition.isFollowerInSync (3.9.0, 4.4.0): `followerEndOffset >= highWatermark &&
    /// leaderEpochStartOffsetOpt.exists(followerEndOffset >= _)`.
    #[test]
    fn a_follower_joins_once_it_reached_the_hw_and_the_start_of_the_leaders_epoch() {
        assert!(may_expand(Some(3), 3, 2));
        assert!(!may_expand(Some(2), 3, 2), "below the HW");
        assert!(!may_expand(Some(3), 1, 4), "below the start of the leader's epoch");
        assert!(!may_expand(None, 0, 0), "it has not fetched");
    }
}
