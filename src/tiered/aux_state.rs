//! A follower below its leader's local log start (Kafka 3.6 and later, tiered storage): the
//! leader answers its fetch OFFSET_MOVED_TO_TIERED_STORAGE (`ReplicaManager
//! .handleOffsetOutOfRangeError`, 3.6.0: a follower's fetch offset within
//! `[logStartOffset, localLogStartOffset)` of a log with remote storage enabled), and the
//! follower builds its "remote log auxiliary state" before it fetches again
//! (`ReplicaFetcherTierStateMachine.buildRemoteLogAuxState`, 3.6.0; `TierStateMachine` from
//! 3.8):
//!
//! 1. it asks the leader for its earliest local offset and that offset's epoch (ListOffsets
//!    −4: `localLogStartOffset` and `leaderEpochCache.epochForOffset` of it);
//! 2. the epoch of the offset before it: that epoch when it is 0, else the answer of the
//!    leader's OffsetsForLeaderEpoch for the epoch below when its end offset lies past that
//!    offset (an epoch with no records is skipped that way), else the same epoch;
//! 3. the remote segment holding that offset for that epoch (`fetchRemoteLogSegmentMetadata`);
//!    none is a `RemoteStorageException`: the follower retries and fetches nothing;
//! 4. it truncates fully and starts at the segment's end + 1 with the leader's log start as its
//!    log start (`truncateFullyAndStartAt`, `maybeIncrementLogStartOffset`; from 3.8,
//!    KAFKA-15695, also its local log start in memory), takes the segment's
//!    `.leader_epoch_checkpoint` as its epoch cache (`assign`), and the segment's producer
//!    snapshot as `<end + 1>.snapshot`, from which it reloads its producer state;
//! 5. it fetches from the segment's end + 1.
//!
//! Pure: the leader's marks and a lookup of the remote segment in, the steps out.

use crate::log::epoch_cache::EpochCache;

/// A tiered leader as the follower's truncation planner needs it: its two log starts and the
/// remote log auxiliary state a follower below its local log start builds.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TieredLeader {
    pub tier: LeaderTier,
    pub aux: AuxState,
}

/// A leader's two log starts: across the tiers and on its own disk.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LeaderTier {
    /// `logStartOffset`: what ListOffsets earliest answers.
    pub log_start_offset: i64,
    /// `localLogStartOffset`: the base offset of its first local segment.
    pub local_log_start_offset: i64,
}

impl LeaderTier {
    /// Whether a follower fetching at `fetch_offset` is answered OFFSET_MOVED_TO_TIERED_STORAGE.
    pub fn moved_to_tiered_storage(&self, fetch_offset: i64) -> bool {
        self.log_start_offset <= fetch_offset && fetch_offset < self.local_log_start_offset
    }
}

/// The remote segment a follower rebuilds from, as the lookup found it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RemoteSource {
    pub segment_id: String,
    pub start_offset: i64,
    pub end_offset: i64,
    /// The epoch cache the follower takes: the segment's `.leader_epoch_checkpoint` when the
    /// remote files are at hand, else `None`.
    pub epochs: Option<EpochCache>,
}

/// What the follower does, step by step.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AuxState {
    /// Step 1: the leader's answer to ListOffsets −4.
    pub leader_local_log_start_offset: i64,
    pub epoch_at_local_start: Option<i32>,
    /// Step 2: the epoch of `leader_local_log_start_offset - 1`, and whether the leader was asked
    /// for the epoch below (OffsetsForLeaderEpoch) to find it.
    pub target_epoch: i32,
    pub asked_earlier_epoch: bool,
    /// Step 3: the segment, or none (the follower retries, fetching nothing).
    pub source: Option<RemoteSource>,
    /// Step 4: the follower's log start (the leader's) and where its log restarts.
    pub log_start_offset: i64,
    pub next_offset: Option<i64>,
}

/// Build the steps for a follower of a leader with `tier` and epoch cache `leader_epochs` (its
/// log ending at `leader_log_end_offset`), finding the remote segment with `lookup(epoch,
/// offset)`.
pub fn build(
    tier: LeaderTier,
    leader_epochs: &EpochCache,
    leader_log_end_offset: i64,
    lookup: impl Fn(i32, i64) -> Option<RemoteSource>,
) -> AuxState {
    let local = tier.local_log_start_offset;
    let epoch_at_local_start = leader_epochs.epoch_for_offset(local);
    // An absent epoch is answered as -1 (ListOffsetsResponse's default leader epoch).
    let epoch = epoch_at_local_start.unwrap_or(-1);
    let previous = local - 1;
    let (target_epoch, asked_earlier_epoch) = if epoch == 0 {
        (0, false)
    } else {
        let earlier = leader_epochs.end_offset_for(epoch - 1, leader_log_end_offset);
        if earlier.end_offset > previous {
            (earlier.leader_epoch, true)
        } else {
            (epoch, true)
        }
    };
    let source = lookup(target_epoch, previous);
    let next_offset = source.as_ref().map(|s| s.end_offset + 1);
    AuxState {
        leader_local_log_start_offset: local,
        epoch_at_local_start,
        target_epoch,
        asked_earlier_epoch,
        source,
        log_start_offset: tier.log_start_offset,
        next_offset,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::log::epoch_cache::EpochEntry;

    fn cache(pairs: &[(i32, i64)]) -> EpochCache {
        EpochCache::from_entries(pairs.iter().map(|&(e, o)| EpochEntry { leader_epoch: e, start_offset: o }))
    }

    fn segment(start: i64, end: i64) -> RemoteSource {
        RemoteSource { segment_id: format!("s{start}"), start_offset: start, end_offset: end, epochs: None }
    }

    #[test]
    fn only_a_fetch_between_the_two_log_starts_is_moved_to_tiered_storage() {
        let tier = LeaderTier { log_start_offset: 10, local_log_start_offset: 532 };
        assert!(!tier.moved_to_tiered_storage(9), "below the log start: OFFSET_OUT_OF_RANGE");
        assert!(tier.moved_to_tiered_storage(10) && tier.moved_to_tiered_storage(531));
        assert!(!tier.moved_to_tiered_storage(532));
    }

    /// A single-epoch log, as the real 4.4 cluster's: epoch 0 holds 531, the segment 504..531
    /// is the source, the follower starts at 532 with the leader's log start 0.
    #[test]
    fn epoch_zero_needs_no_question_and_restarts_after_the_segment() {
        let tier = LeaderTier { log_start_offset: 0, local_log_start_offset: 532 };
        let asked = std::cell::Cell::new(None);
        let aux = build(tier, &cache(&[(0, 0)]), 600, |e, o| {
            asked.set(Some((e, o)));
            Some(segment(504, 531))
        });
        assert_eq!(asked.get(), Some((0, 531)));
        assert_eq!((aux.target_epoch, aux.asked_earlier_epoch, aux.next_offset), (0, false, Some(532)));
        assert_eq!(aux.log_start_offset, 0);
    }

    /// `buildRemoteLogAuxState`'s own example (3.6.0): epochs 0@20 1@85 3@90 4@98, no records in
    /// epoch 2; local log start 90 has epoch 3, the leader's end offset for epoch 2 is (1, 90),
    /// past 89, so offset 89 is looked up under epoch 1.
    #[test]
    fn an_epoch_without_records_is_skipped_by_asking_for_the_one_below() {
        let tier = LeaderTier { log_start_offset: 20, local_log_start_offset: 90 };
        let aux = build(tier, &cache(&[(0, 20), (1, 85), (3, 90), (4, 98)]), 120, |e, o| {
            (e == 1 && o == 89).then(|| segment(85, 89))
        });
        assert_eq!((aux.epoch_at_local_start, aux.target_epoch, aux.next_offset), (Some(3), 1, Some(90)));
        // Local log start 95, inside epoch 3: the offset before it is epoch 3's own.
        let tier = LeaderTier { log_start_offset: 20, local_log_start_offset: 95 };
        let aux = build(tier, &cache(&[(0, 20), (1, 85), (3, 90), (4, 98)]), 120, |_, _| None);
        assert_eq!((aux.target_epoch, aux.asked_earlier_epoch, aux.next_offset), (3, true, None));
    }
}
