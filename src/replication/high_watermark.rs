//! The high-watermark rules ([the model](crate::replication), operations 1–3; Kafka `Partition
//! .maybeIncrementLeaderHW`, `ReplicaFetcherThread.processPartitionData`,
//! `UnifiedLog.truncateTo`). Pure: offsets in, offset out.

/// A leader's HW after recording fetch offsets: the minimum LEO over the ISR, never moving
/// backwards. `isr_fetch_offsets` has one entry per ISR member other than the leader: its
/// latest fetch offset, or `None` when it has not fetched since the election — such a member
/// holds the HW where it is (`Partition.makeLeader` resets followers' state).
pub fn leader_high_watermark(
    leader_log_end_offset: i64,
    current: i64,
    isr_fetch_offsets: impl IntoIterator<Item = Option<i64>>,
) -> i64 {
    let candidate = isr_fetch_offsets.into_iter().map(|o| o.unwrap_or(current)).fold(leader_log_end_offset, i64::min);
    candidate.max(current)
}

/// A follower's HW after a fetch: the HW the response carried, capped at its own LEO.
pub fn follower_high_watermark(returned: i64, follower_log_end_offset: i64) -> i64 {
    returned.min(follower_log_end_offset)
}

/// After a truncation, the HW (or recovery point) is no higher than the new LEO.
pub fn clamp_to_log_end(value: i64, log_end_offset: i64) -> i64 {
    value.min(log_end_offset)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_leader_hw_is_the_min_leo_over_the_isr_and_never_goes_backwards() {
        assert_eq!(leader_high_watermark(5, 0, []), 5, "a lone leader's HW follows its LEO");
        assert_eq!(leader_high_watermark(5, 0, [Some(3), Some(4)]), 3);
        assert_eq!(leader_high_watermark(5, 4, [Some(3)]), 4, "never backwards");
        assert_eq!(leader_high_watermark(5, 2, [None, Some(5)]), 2, "a member that has not fetched holds it");
    }

    #[test]
    fn a_follower_hw_is_the_returned_hw_capped_at_its_leo() {
        assert_eq!(follower_high_watermark(7, 5), 5);
        assert_eq!(follower_high_watermark(3, 5), 3);
        assert_eq!(clamp_to_log_end(9, 4), 4);
    }
}
