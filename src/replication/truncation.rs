//! Follower truncation planning: given what is known of a leader and a restarting follower,
//! decide where the follower cuts its log, the way each Kafka era did it. This module owns the
//! *decision* only: it is pure (no I/O, no printing) and never touches a log directory; applying
//! the plan (cutting segments at a batch boundary, rewriting checkpoints) and reporting it is the
//! caller's job. The three modes are those of [the model](crate::replication) (operation 6), which pins
//! the rules, and `kafka-format.md` §4 and §6: **hw** is Kafka ≤ 0.10.2
//! (`ReplicaManager.makeFollowers` truncating to the high watermark), **kip101** is KIP-101 /
//! Kafka 0.11–1.1 (`ReplicaFetcherThread.maybeTruncate` with an OffsetsForLeaderEpoch v0 answer,
//! offset only, computed by the 0.11 `LeaderEpochFileCache.endOffsetFor`), and **kip279** is
//! KIP-279 / KAFKA-6361, Kafka ≥ 2.0 and the current code (`AbstractFetcherThread
//! .getOffsetTruncationState`, answered by the current `endOffsetFor`, repeated until both sides
//! agree on an epoch). The epoch lookups themselves live in [`crate::log::epoch_cache`].

use super::release::{BelowFirstEpoch, Rules};
use crate::log::epoch_cache::{EpochCache, EpochEndOffset, UNDEFINED_EPOCH, UNDEFINED_EPOCH_OFFSET};
use crate::tiered::aux_state::AuxState;

/// The truncation procedure of each era, named with the release rules that choose it.
pub use super::release::TruncationMode;

/// What the planner knows of one replica.
#[derive(Debug, Clone)]
pub struct ReplicaView {
    pub epochs: EpochCache,
    pub log_end_offset: i64,
    pub high_watermark: i64,
    /// The log start offset (a leader's decides a full truncation: `truncateFullyAndStartAt`).
    pub log_start_offset: i64,
    /// A leader with remote storage (tiered, Kafka 3.6+): its log start across the tiers and
    /// the remote log auxiliary state a follower below its local log start builds.
    pub tier: Option<TieredLeader>,
}

/// A tiered leader as the planner needs it (defined with the aux state it carries).
pub use crate::tiered::aux_state::TieredLeader;

impl ReplicaView {
    pub fn new(epochs: EpochCache, log_end_offset: i64, high_watermark: i64) -> Self {
        ReplicaView { epochs, log_end_offset, high_watermark, log_start_offset: 0, tier: None }
    }

    pub fn with_tier(mut self, tier: Option<TieredLeader>) -> Self {
        self.tier = tier;
        self
    }

    pub fn with_log_start(mut self, log_start_offset: i64) -> Self {
        self.log_start_offset = log_start_offset;
        self
    }
}

/// One OffsetsForLeaderEpoch round trip (or, for hw mode, none).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RoundTrip {
    /// The follower's latest cached epoch, as sent.
    pub requested_epoch: i32,
    /// The epoch in the answer; `None` for a v0 (kip101) answer, which has no epoch. A kip279
    /// UNDEFINED answer is `Some(-1)`.
    pub answered_epoch: Option<i32>,
    /// The end offset in the answer; −1 = UNDEFINED.
    pub answered_end_offset: i64,
    /// The follower's LEO when it sent this request (lower than the original LEO after a
    /// partial kip279 round).
    pub follower_log_end_offset: i64,
    /// kip279 only: the follower's own `endOffsetFor(answered epoch, its LEO)`, when it looked
    /// it up (not for an UNDEFINED answer).
    pub follower_epoch_end: Option<EpochEndOffset>,
    /// Where the follower truncates after this answer.
    pub truncate_to: i64,
    /// Why that offset.
    pub reason: TruncationReason,
    /// False when kip279 must ask again.
    pub done: bool,
    /// Kafka ≥ 2.8: the answer came as the fetch response's diverging epoch (or as
    /// OFFSET_OUT_OF_RANGE), not as an OffsetsForLeaderEpoch response.
    pub in_fetch_response: bool,
}

/// Why a truncation offset was chosen.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TruncationReason {
    /// hw mode: the follower's own high watermark (capped at its LEO).
    OwnHighWatermark,
    /// The leader answered UNDEFINED: fall back to the high watermark.
    UndefinedAnswerHighWatermark,
    /// The follower has no epoch cache, so it cannot ask: fall back to the high watermark.
    NoEpochCacheHighWatermark,
    /// The leader's end offset is below the follower's LEO.
    LeaderEndOffset,
    /// The leader's end offset is at or beyond the follower's LEO: nothing is cut.
    OwnLogEnd,
    /// kip279: the follower lacks the answered epoch; cut at the end of its largest lower epoch
    /// and ask again.
    FollowerEpochEnd,
    /// kip279: both have the answered epoch; cut at the smaller end offset (and the LEO).
    MinOfBothEnds,
    /// kip279 safety stop: a partial round shortened neither the log nor the epoch history.
    /// Cannot happen with a well-formed epoch cache.
    NoProgress,
    /// Kafka ≥ 2.8: the leader cannot place the last fetched epoch (OFFSET_OUT_OF_RANGE), and
    /// its LEO is below the follower's: truncate to the leader's LEO.
    OutOfRangeLeaderEnd,
    /// Kafka ≥ 2.8: OFFSET_OUT_OF_RANGE with the leader's LEO at or above the follower's:
    /// nothing is cut.
    OutOfRangeKept,
    /// Kafka ≥ 2.8: the fetch response carries no diverging epoch (the leader has the last
    /// fetched epoch up to the fetch offset): nothing is cut.
    NotDiverging,
    /// A running follower told of a new epoch by the leader it follows, where its release does
    /// not restart the fetcher (`Partition.makeFollower` returns false): nothing is cut.
    KeepsFetching,
}

impl TruncationReason {
    /// One human sentence.
    pub fn describe(self) -> &'static str {
        match self {
            TruncationReason::OwnHighWatermark => {
                "the follower truncates to its own high watermark (capped at its log end offset), \
                 as Kafka <= 0.10.2 did"
            }
            TruncationReason::UndefinedAnswerHighWatermark => {
                "the leader has no end offset for the requested epoch (UNDEFINED), so the follower \
                 falls back to its high watermark"
            }
            TruncationReason::NoEpochCacheHighWatermark => {
                "the follower has no leader-epoch cache to ask about, so it falls back to its high \
                 watermark"
            }
            TruncationReason::LeaderEndOffset => {
                "the leader's end offset for the epoch is below the follower's log end offset, so \
                 the follower truncates to it"
            }
            TruncationReason::OwnLogEnd => {
                "the leader's end offset for the epoch is at or beyond the follower's log end \
                 offset, so nothing is truncated"
            }
            TruncationReason::FollowerEpochEnd => {
                "the follower does not have the epoch the leader answered with, so it truncates to \
                 the end of its own largest lower epoch and asks again"
            }
            TruncationReason::MinOfBothEnds => {
                "both replicas have the answered epoch, so the follower truncates to the smaller \
                 of their end offsets for it (never beyond its log end offset)"
            }
            TruncationReason::NoProgress => {
                "the exchange stopped because a partial round shortened neither the log nor the \
                 epoch history (a malformed epoch cache)"
            }
            TruncationReason::OutOfRangeLeaderEnd => {
                "the leader cannot place the last fetched epoch, so it answers \
                 OFFSET_OUT_OF_RANGE and the follower truncates to the leader's log end offset"
            }
            TruncationReason::OutOfRangeKept => {
                "the leader cannot place the last fetched epoch (OFFSET_OUT_OF_RANGE), but its \
                 log end offset is at or beyond the follower's, so nothing is truncated"
            }
            TruncationReason::KeepsFetching => {
                "the follower already follows this leader, and its release does not restart the \
                 fetcher for this epoch change (Partition.makeFollower returns false), so nothing is \
                 truncated"
            }
            TruncationReason::NotDiverging => {
                "the leader has the follower's last epoch up to its log end, so the fetch \
                 response carries no diverging epoch and nothing is truncated"
            }
        }
    }
}

/// The planner's answer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TruncationPlan {
    pub mode: TruncationMode,
    /// The release whose rules made the plan.
    pub rules: Rules,
    /// Every OffsetsForLeaderEpoch exchange, in order (empty for hw mode and for a follower with
    /// no epoch cache).
    pub round_trips: Vec<RoundTrip>,
    /// The follower's new LEO: 0 ≤ `truncation_offset` ≤ the follower's LEO.
    pub truncation_offset: i64,
    pub reason: TruncationReason,
    /// The follower's epoch cache after `truncateFromEnd(truncation_offset)` (what Kafka's
    /// `UnifiedLog.truncateTo` leaves).
    pub follower_epochs_after: EpochCache,
    /// The truncation offset is below the leader's log start: its first fetch is out of range
    /// and the follower truncates fully and starts at the leader's log start
    /// (`AbstractFetcherThread.fetchOffsetAndTruncate`, `truncateFullyAndStartAt`).
    pub restart_at_leader_start: Option<i64>,
    /// A tiered leader (3.6+) answered the fetch below its local log start
    /// OFFSET_MOVED_TO_TIERED_STORAGE: the remote log auxiliary state the follower built (its
    /// restart is at the remote segment's end + 1, `restart_at_leader_start`; with no segment
    /// found it builds nothing, cuts nothing and retries).
    pub from_remote: Option<AuxState>,
}

impl TruncationPlan {
    /// True when the follower's log is actually cut.
    pub fn truncates(&self, follower_log_end_offset: i64) -> bool {
        self.truncation_offset < follower_log_end_offset
    }
}

/// Plan where `follower` truncates when it (re)starts following `leader`, by the rules of the
/// newest release of `mode`'s era.
pub fn plan_truncation(mode: TruncationMode, leader: &ReplicaView, follower: &ReplicaView) -> TruncationPlan {
    plan(&Rules::of_mode(mode), leader, follower)
}

/// Plan where `follower` truncates when it (re)starts following `leader`, by `rules`.
pub fn plan(rules: &Rules, leader: &ReplicaView, follower: &ReplicaView) -> TruncationPlan {
    let mode = rules.truncation;
    let leo = follower.log_end_offset.max(0);
    let (round_trips, truncation_offset, reason, mut epochs) = match mode {
        TruncationMode::Hw => (
            Vec::new(),
            hw_fallback(follower.high_watermark, leo),
            TruncationReason::OwnHighWatermark,
            follower.epochs.clone(),
        ),
        TruncationMode::Kip101 => {
            let (trips, offset, reason) = plan_kip101(rules, leader, follower, leo);
            (trips, offset, reason, follower.epochs.clone())
        }
        TruncationMode::Kip279 => plan_kip279(rules, leader, follower, leo),
    };
    debug_assert!((0..=leo).contains(&truncation_offset));
    let truncation_offset = truncation_offset.clamp(0, leo);
    epochs.truncate_from_end(truncation_offset);
    let tiered = leader
        .tier
        .as_ref()
        .filter(|t| rules.release.has_tiered_storage() && truncation_offset < t.tier.local_log_start_offset);
    let (restart_at_leader_start, from_remote) = match tiered {
        // Below the local log start (after OFFSET_OUT_OF_RANGE and a restart at the log start
        // when below that): OFFSET_MOVED_TO_TIERED_STORAGE, and the aux state decides.
        Some(t) => (t.aux.next_offset, Some(t.aux.clone())),
        None => ((truncation_offset < leader.log_start_offset).then_some(leader.log_start_offset), None),
    };
    match (&from_remote, restart_at_leader_start) {
        (Some(aux), Some(next)) => {
            // The remote segment's `.leader_epoch_checkpoint` (`assign`), or the leader's cache
            // up to the restart where the remote file is not at hand.
            epochs = aux.source.as_ref().and_then(|s| s.epochs.clone()).unwrap_or_else(|| {
                let mut e = leader.epochs.clone();
                e.truncate_from_end(next);
                e
            });
        }
        (None, Some(_)) => {
            epochs.clear();
        }
        _ => {}
    }
    TruncationPlan {
        mode,
        rules: *rules,
        round_trips,
        truncation_offset,
        reason,
        follower_epochs_after: epochs,
        restart_at_leader_start,
        from_remote,
    }
}

/// The leader's OffsetsForLeaderEpoch v0 answer (0.11 – 1.1): `LeaderEpochFileCache
/// .endOffsetFor` at 0.11.0.0 (and with KAFKA-6857's first line from 0.11.0.3 / 1.0.2 / 1.1.1).
fn kip101_answer(rules: &Rules, leader: &ReplicaView, requested_epoch: i32) -> i64 {
    if requested_epoch == UNDEFINED_EPOCH {
        // Before KAFKA-6857, −1 == latestEpoch when the leader's cache is empty too: its LEO.
        let leader_empty = leader.epochs.is_empty();
        return if !rules.undefined_epoch_answered_undefined && leader_empty {
            leader.log_end_offset
        } else {
            UNDEFINED_EPOCH_OFFSET
        };
    }
    // A 2.x leader answers v0 (a cluster on an IBP below 2.0-IV0) from its own `endOffsetFor`,
    // without the epoch (KafkaApis.handleOffsetForLeaderEpochRequest, 2.8.2).
    if rules.release >= super::release::Release::new(2, 0, 0) {
        return kip279_answer(rules, leader, requested_epoch).end_offset;
    }
    leader.epochs.end_offset_for_v0_11(requested_epoch, leader.log_end_offset)
}

/// The leader's OffsetsForLeaderEpoch v1+ answer (2.0 →): `endOffsetFor` at 2.0.1, and at 2.0.0
/// UNDEFINED for an epoch below the first cached.
fn kip279_answer(rules: &Rules, leader: &ReplicaView, requested_epoch: i32) -> EpochEndOffset {
    let below_first = leader.epochs.earliest().is_some_and(|f| requested_epoch < f.leader_epoch);
    if rules.below_first_epoch == BelowFirstEpoch::Undefined && below_first && requested_epoch != UNDEFINED_EPOCH {
        return EpochEndOffset::UNDEFINED;
    }
    leader.epochs.end_offset_for(requested_epoch, leader.log_end_offset)
}

/// The HW used for every fallback: the follower's HW clamped to [0, its current LEO].
fn hw_fallback(high_watermark: i64, log_end_offset: i64) -> i64 {
    high_watermark.min(log_end_offset).max(0)
}

/// min(leader end, LEO), with the reason saying which side won.
fn leader_end_or_own(leader_end: i64, log_end_offset: i64) -> (i64, TruncationReason) {
    if leader_end >= log_end_offset {
        (log_end_offset, TruncationReason::OwnLogEnd)
    } else {
        (leader_end.max(0), TruncationReason::LeaderEndOffset)
    }
}

/// KIP-101 (0.11–1.1): one round, offset-only answer by the 0.11 rule. A follower with an empty
/// cache asks too, with epoch −1 (`buildLeaderEpochRequest` sends `latestEpoch`, 0.11.0.0 – 1.1.1).
fn plan_kip101(
    rules: &Rules,
    leader: &ReplicaView,
    follower: &ReplicaView,
    leo: i64,
) -> (Vec<RoundTrip>, i64, TruncationReason) {
    let requested_epoch = follower.epochs.latest_epoch().unwrap_or(UNDEFINED_EPOCH);
    let answer = kip101_answer(rules, leader, requested_epoch);
    let (truncate_to, reason) = if answer < 0 {
        (hw_fallback(follower.high_watermark, leo), TruncationReason::UndefinedAnswerHighWatermark)
    } else {
        leader_end_or_own(answer, leo)
    };
    let trip = RoundTrip {
        requested_epoch,
        answered_epoch: None,
        answered_end_offset: answer,
        follower_log_end_offset: leo,
        follower_epoch_end: None,
        truncate_to,
        reason,
        done: true,
        in_fetch_response: false,
    };
    (vec![trip], truncate_to, reason)
}

/// The follower's side of one KIP-279 answer (`getOffsetTruncationState`): where to truncate,
/// why, whether it is done, and its own lookup if it made one.
fn kip279_step(
    answer: EpochEndOffset,
    follower_epochs: &EpochCache,
    leo: i64,
    high_watermark: i64,
) -> (i64, TruncationReason, bool, Option<EpochEndOffset>) {
    if answer.end_offset < 0 {
        let to = hw_fallback(high_watermark, leo);
        return (to, TruncationReason::UndefinedAnswerHighWatermark, true, None);
    }
    if answer.leader_epoch == UNDEFINED_EPOCH {
        // An epoch-less (v0) answer from an old leader; never produced by this planner's leader.
        let (to, reason) = leader_end_or_own(answer.end_offset, leo);
        return (to, reason, true, None);
    }
    let own = follower_epochs.end_offset_for(answer.leader_epoch, leo);
    if own.is_undefined() {
        // The follower cannot place the epoch at all: trust the leader's offset.
        let (to, reason) = leader_end_or_own(answer.end_offset, leo);
        (to, reason, true, Some(own))
    } else if own.leader_epoch != answer.leader_epoch {
        let to = own.end_offset.min(leo).max(0);
        (to, TruncationReason::FollowerEpochEnd, false, Some(own))
    } else {
        let to = own.end_offset.min(answer.end_offset).min(leo).max(0);
        (to, TruncationReason::MinOfBothEnds, true, Some(own))
    }
}

/// Where a follower cuts on one (epoch, end offset) answer: from 2.8 the fetch response's
/// diverging epoch (`AbstractFetcherThread.truncateOnFetchResponse` →
/// `getOffsetTruncationState`, the same step as one KIP-279 round trip). Returns the offset
/// (0 ≤ it ≤ `log_end_offset`), why, whether the truncation is complete (false: the next fetch
/// goes on with the new latest epoch), and the follower's own lookup if it made one.
pub fn truncation_on_diverging_epoch(
    diverging: EpochEndOffset,
    follower_epochs: &EpochCache,
    log_end_offset: i64,
    high_watermark: i64,
) -> (i64, TruncationReason, bool, Option<EpochEndOffset>) {
    let leo = log_end_offset.max(0);
    let (to, reason, done, own) = kip279_step(diverging, follower_epochs, leo, high_watermark);
    (to.clamp(0, leo), reason, done, own)
}

/// KIP-279 (≥ 2.0): ask with the latest epoch until a round is done. From 2.8 each answer comes
/// in the fetch response (`Partition.readRecords`): no diverging epoch when the leader has the
/// last fetched epoch up to the fetch offset, OFFSET_OUT_OF_RANGE when it cannot place it.
/// Returns the follower's cache as it stands after the partial rounds (the final cut is
/// applied by the caller).
fn plan_kip279(
    rules: &Rules,
    leader: &ReplicaView,
    follower: &ReplicaView,
    original_leo: i64,
) -> (Vec<RoundTrip>, i64, TruncationReason, EpochCache) {
    let mut epochs = follower.epochs.clone();
    let mut leo = original_leo;
    let mut trips: Vec<RoundTrip> = Vec::new();
    // Each partial round removes at least one cache entry, so this is never reached.
    let max_rounds = epochs.entries().len() + 1;
    loop {
        let Some(requested_epoch) = epochs.latest_epoch() else {
            if rules.truncation_on_fetch && !trips.is_empty() {
                // 2.8 →: a partial round that empties the cache leaves a fetch with no last
                // fetched epoch, which the leader cannot find diverging: the follower fetches on.
                return (trips, leo, TruncationReason::NotDiverging, epochs);
            }
            // No cache (from the start, or emptied by a partial round on a cache with entries
            // at or past the LEO): no request, fall back to the HW.
            let to = hw_fallback(follower.high_watermark, leo);
            return (trips, to, TruncationReason::NoEpochCacheHighWatermark, epochs);
        };
        let answer = kip279_answer(rules, leader, requested_epoch);
        let on_fetch = rules.truncation_on_fetch;
        let (truncate_to, reason, done, follower_epoch_end) = if on_fetch && answer.is_undefined() {
            // `fetchOffsetAndTruncate`: the leader's LEO when below the follower's, else keep.
            if leader.log_end_offset < leo {
                (leader.log_end_offset.max(0), TruncationReason::OutOfRangeLeaderEnd, true, None)
            } else {
                (leo, TruncationReason::OutOfRangeKept, true, None)
            }
        } else if on_fetch && answer.leader_epoch == requested_epoch && answer.end_offset >= leo {
            (leo, TruncationReason::NotDiverging, true, None)
        } else {
            kip279_step(answer, &epochs, leo, follower.high_watermark)
        };
        trips.push(RoundTrip {
            requested_epoch,
            answered_epoch: Some(answer.leader_epoch),
            answered_end_offset: answer.end_offset,
            follower_log_end_offset: leo,
            follower_epoch_end,
            truncate_to,
            reason,
            done,
            in_fetch_response: on_fetch,
        });
        if done {
            return (trips, truncate_to, reason, epochs);
        }
        // A partial round: apply it, then ask again with the new latest epoch.
        let previous_leo = leo;
        epochs.truncate_from_end(truncate_to);
        leo = truncate_to;
        let progressed = leo < previous_leo || epochs.latest_epoch().is_none_or(|e| e < requested_epoch);
        debug_assert!(progressed, "a partial kip279 round must shorten the log or the epochs");
        if !progressed || trips.len() >= max_rounds {
            return (trips, truncate_to, TruncationReason::NoProgress, epochs);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::log::epoch_cache::EpochEntry;
    use crate::replication::release::Release;

    /// The tests below pin kip279 to 2.7.2, the last release that asks with OffsetsForLeaderEpoch
    /// (the 2.8+ fetch-response path has its own tests); hw and kip101 to their eras' last.
    fn plan_truncation(mode: TruncationMode, leader: &ReplicaView, follower: &ReplicaView) -> TruncationPlan {
        let release = match mode {
            TruncationMode::Kip279 => Release::new(2, 7, 2),
            other => Release::of_mode(other),
        };
        plan(&release.rules(), leader, follower)
    }

    fn plan_at(release: &str, leader: &ReplicaView, follower: &ReplicaView) -> TruncationPlan {
        plan(&Release::parse(release).unwrap().rules(), leader, follower)
    }

    fn cache(pairs: &[(i32, i64)]) -> EpochCache {
        EpochCache::from_entries(pairs.iter().map(|&(e, o)| EpochEntry { leader_epoch: e, start_offset: o }))
    }

    fn view(pairs: &[(i32, i64)], log_end_offset: i64, high_watermark: i64) -> ReplicaView {
        ReplicaView::new(cache(pairs), log_end_offset, high_watermark)
    }

    /// Truncation offsets in the order hw, kip101, kip279.
    fn offsets(leader: &ReplicaView, follower: &ReplicaView) -> [i64; 3] {
        TruncationMode::ALL.map(|m| plan_truncation(m, leader, follower).truncation_offset)
    }

    #[test]
    fn mode_names_round_trip_and_every_reason_has_a_sentence() {
        for m in TruncationMode::ALL {
            assert_eq!(TruncationMode::from_name(m.name()), Some(m));
            assert!(!m.kafka_versions().is_empty());
        }
        assert_eq!(TruncationMode::from_name("kip-279"), None);
        use TruncationReason::*;
        for r in [
            OwnHighWatermark,
            UndefinedAnswerHighWatermark,
            NoEpochCacheHighWatermark,
            LeaderEndOffset,
            OwnLogEnd,
            FollowerEpochEnd,
            MinOfBothEnds,
            NoProgress,
        ] {
            let s = r.describe();
            assert!(s.len() > 20 && !s.ends_with('.'), "{r:?}: {s}");
        }
    }

    #[test]
    fn hw_mode_truncates_to_own_high_watermark_without_round_trips() {
        let leader = view(&[(0, 0)], 10, 10);
        let follower = view(&[(0, 0)], 8, 5);
        let plan = plan_truncation(TruncationMode::Hw, &leader, &follower);
        assert_eq!(plan.truncation_offset, 5);
        assert_eq!(plan.reason, TruncationReason::OwnHighWatermark);
        assert!(plan.round_trips.is_empty());
        assert!(plan.truncates(8));
        assert_eq!(plan.follower_epochs_after, cache(&[(0, 0)]));
    }

    #[test]
    fn high_watermark_fallbacks_are_clamped_to_the_log_end_offset_and_zero() {
        let leader = view(&[(0, 0)], 10, 10);
        // HW above the LEO (e.g. a stale checkpoint): capped at the LEO.
        assert_eq!(offsets(&leader, &view(&[], 4, 9)), [4, 4, 4]);
        // A negative HW never produces a negative offset.
        assert_eq!(offsets(&leader, &view(&[], 4, -1)), [0, 0, 0]);
        // An undefined answer (follower epoch above the leader's) also uses the clamped HW.
        assert_eq!(offsets(&leader, &view(&[(0, 0), (3, 2)], 3, 7)), [3, 3, 3]);
    }

    /// 2.0 → (AbstractFetcherThread, 2.0.0 `partitionsWithoutEpoch`; 3.8.0 `truncateToHighWatermark`):
    /// no request without an epoch. 0.11 – 1.1 (ReplicaFetcherThread.buildLeaderEpochRequest,
    /// 0.11.0.0): the follower asks with −1, and the leader answers UNDEFINED.
    #[test]
    fn follower_without_epoch_cache_falls_back_to_high_watermark() {
        let leader = view(&[(0, 0), (1, 5)], 12, 12);
        let follower = view(&[], 10, 4);
        for release in ["2.0.0", "2.7.2", "4.4.0"] {
            let plan = plan_at(release, &leader, &follower);
            assert_eq!(plan.truncation_offset, 4, "{release}");
            assert_eq!(plan.reason, TruncationReason::NoEpochCacheHighWatermark);
            assert!(plan.round_trips.is_empty(), "no request without an epoch");
        }
        for release in ["0.11.0.0", "1.1.1"] {
            let plan = plan_at(release, &leader, &follower);
            assert_eq!(plan.truncation_offset, 4, "{release}");
            assert_eq!(plan.reason, TruncationReason::UndefinedAnswerHighWatermark);
            assert_eq!(plan.round_trips[0].requested_epoch, UNDEFINED_EPOCH);
        }
    }

    /// KAFKA-6857: before 0.11.0.3 / 1.0.2 / 1.1.1 a leader with an empty cache answered its LEO
    /// to epoch −1 (`requestedEpoch == latestEpoch`), so a follower kept a log the leader never
    /// had; after it, UNDEFINED and the HW.
    #[test]
    fn before_kafka_6857_two_empty_caches_keep_the_followers_log() {
        let leader = view(&[], 12, 12);
        let follower = view(&[], 10, 4);
        for (release, to) in
            [("0.11.0.2", 10), ("1.0.1", 10), ("1.1.0", 10), ("0.11.0.3", 4), ("1.0.2", 4), ("1.1.1", 4)]
        {
            assert_eq!(plan_at(release, &leader, &follower).truncation_offset, to, "{release}");
        }
        let leader_behind = view(&[], 6, 6);
        assert_eq!(plan_at("1.1.0", &leader_behind, &follower).truncation_offset, 6, "min(answer, LEO)");
    }

    /// core/src/main/scala/kafka/server/epoch/LeaderEpochFileCache.scala, `endOffsetFor`: at
    /// 2.0.0 `requestedEpoch < epochs.head.epoch` → UNDEFINED (→ HW); at 2.0.1 (KAFKA-7415's
    /// rewrite) and 2.1.0: `(requestedEpoch, subsequentEpochs.head.startOffset)`.
    #[test]
    fn an_epoch_below_the_leaders_first_is_undefined_on_2_0_0_and_answered_from_2_0_1() {
        let leader = view(&[(3, 10), (5, 20)], 30, 30);
        let follower = view(&[(1, 0)], 15, 4);
        let v200 = plan_at("2.0.0", &leader, &follower);
        assert_eq!((v200.truncation_offset, v200.reason), (4, TruncationReason::UndefinedAnswerHighWatermark));
        for release in ["2.0.1", "2.1.0"] {
            let p = plan_at(release, &leader, &follower);
            assert_eq!((p.truncation_offset, p.reason), (10, TruncationReason::MinOfBothEnds), "{release}");
        }
    }

    /// Partition.readRecords (2.8.0 → 3.8.0): an undefined end offset for the last fetched epoch
    /// is OFFSET_OUT_OF_RANGE, and `fetchOffsetAndTruncate` truncates to the leader's LEO only
    /// when it is below the follower's; before 2.8 the same answer truncated to the HW.
    #[test]
    fn from_2_8_an_undefined_answer_is_out_of_range_and_cuts_to_the_leaders_end_not_the_hw() {
        let follower = view(&[(0, 0), (2, 6)], 10, 7);
        let leader_ahead = view(&[], 12, 12);
        let leader_behind = view(&[], 8, 8);
        let p27 = plan_at("2.7.2", &leader_behind, &follower);
        assert_eq!((p27.truncation_offset, p27.reason), (7, TruncationReason::UndefinedAnswerHighWatermark));
        let p28 = plan_at("2.8.0", &leader_behind, &follower);
        assert_eq!((p28.truncation_offset, p28.reason), (8, TruncationReason::OutOfRangeLeaderEnd));
        assert!(p28.round_trips[0].in_fetch_response);
        let kept = plan_at("4.4.0", &leader_ahead, &follower);
        assert_eq!((kept.truncation_offset, kept.reason), (10, TruncationReason::OutOfRangeKept));
    }

    /// A tiered leader (log start 0, local log start 532): a follower at 100 is answered
    /// OFFSET_MOVED_TO_TIERED_STORAGE from 3.6.0 (`ReplicaManager.handleOffsetOutOfRangeError`)
    /// and restarts after the remote segment with its epoch cache; 3.5.2 has no tiered storage
    /// and restarts at the (local) log start with none. A follower at 532 or above is not moved.
    #[test]
    fn below_a_tiered_leaders_local_start_the_follower_restarts_from_remote_from_3_6() {
        use crate::tiered::aux_state::{LeaderTier, RemoteSource};
        let tier = LeaderTier { log_start_offset: 0, local_log_start_offset: 532 };
        let source =
            RemoteSource { segment_id: "s".into(), start_offset: 504, end_offset: 531, epochs: Some(cache(&[(0, 0)])) };
        let aux = crate::tiered::aux_state::build(tier, &cache(&[(0, 0)]), 600, |_, _| Some(source.clone()));
        let leader = view(&[(0, 0)], 600, 600).with_log_start(532).with_tier(Some(TieredLeader { tier, aux }));
        let follower = view(&[(0, 0)], 100, 100);
        let p = plan_at("3.6.0", &leader, &follower);
        assert_eq!((p.truncation_offset, p.restart_at_leader_start), (100, Some(532)));
        assert_eq!(p.follower_epochs_after, cache(&[(0, 0)]));
        assert!(p.from_remote.is_some());
        let old = plan_at("3.5.2", &leader, &follower);
        assert_eq!((old.restart_at_leader_start, old.from_remote.is_some()), (Some(532), false));
        assert!(old.follower_epochs_after.is_empty());
        let caught_up = plan_at("4.4.0", &leader, &view(&[(0, 0)], 560, 560));
        assert_eq!((caught_up.restart_at_leader_start, caught_up.from_remote.is_some()), (None, false));
    }

    /// From 2.8 the answer comes in the fetch response, and only when the last fetched epoch or
    /// the fetch offset demands it; the cut is the same as 2.7's.
    #[test]
    fn from_2_8_a_fetch_that_does_not_diverge_truncates_nothing() {
        let leader = view(&[(0, 0), (2, 6)], 14, 14);
        let same = view(&[(0, 0), (2, 6)], 10, 7);
        let p = plan_at("2.8.0", &leader, &same);
        assert_eq!((p.truncation_offset, p.reason), (10, TruncationReason::NotDiverging));
        let diverged = view(&[(0, 0), (1, 4)], 9, 3);
        for release in ["2.7.2", "2.8.0", "4.4.0"] {
            assert_eq!(plan_at(release, &leader, &diverged).truncation_offset, 4, "{release}");
        }
    }

    /// `fetchOffsetAndTruncate`: a follower whose fetch offset is below the leader's log start
    /// truncates fully and starts at the leader's log start (every era).
    #[test]
    fn a_cut_below_the_leaders_log_start_restarts_the_follower_there() {
        let leader = view(&[(0, 0), (1, 40)], 60, 60).with_log_start(50);
        let follower = view(&[(0, 0)], 45, 35);
        for (release, cut) in [("0.10.2.2", 35), ("1.1.1", 40), ("2.7.2", 40), ("4.4.0", 40)] {
            let p = plan_at(release, &leader, &follower);
            assert_eq!(p.truncation_offset, cut, "{release}");
            assert_eq!(p.restart_at_leader_start, Some(50), "{release}");
            assert!(p.follower_epochs_after.is_empty());
        }
        let not_below = view(&[(0, 0), (1, 40)], 60, 60).with_log_start(30);
        assert_eq!(plan_at("4.4.0", &not_below, &follower).restart_at_leader_start, None);
    }

    #[test]
    fn empty_leader_cache_answers_undefined_so_follower_falls_back_to_high_watermark() {
        let leader = view(&[], 12, 12);
        let follower = view(&[(0, 0), (2, 6)], 10, 7);
        let v0 = plan_truncation(TruncationMode::Kip101, &leader, &follower);
        assert_eq!(v0.truncation_offset, 7);
        assert_eq!(v0.reason, TruncationReason::UndefinedAnswerHighWatermark);
        assert_eq!(v0.round_trips.len(), 1);
        assert_eq!(v0.round_trips[0].requested_epoch, 2);
        assert_eq!(v0.round_trips[0].answered_epoch, None);
        assert_eq!(v0.round_trips[0].answered_end_offset, UNDEFINED_EPOCH_OFFSET);

        let v1 = plan_truncation(TruncationMode::Kip279, &leader, &follower);
        assert_eq!(v1.truncation_offset, 7);
        assert_eq!(v1.reason, TruncationReason::UndefinedAnswerHighWatermark);
        assert_eq!(
            v1.round_trips,
            vec![RoundTrip {
                requested_epoch: 2,
                answered_epoch: Some(UNDEFINED_EPOCH),
                answered_end_offset: UNDEFINED_EPOCH_OFFSET,
                follower_log_end_offset: 10,
                follower_epoch_end: None,
                truncate_to: 7,
                reason: TruncationReason::UndefinedAnswerHighWatermark,
                done: true,
                in_fetch_response: false,
            }]
        );
        assert_eq!(v1.follower_epochs_after, cache(&[(0, 0), (2, 6)]));
    }

    #[test]
    fn both_caches_empty_fall_back_to_high_watermark_in_every_mode() {
        let leader = view(&[], 9, 9);
        let follower = view(&[], 9, 3);
        assert_eq!(offsets(&leader, &follower), [3, 3, 3]);
    }

    #[test]
    fn kip101_truncates_follower_to_leader_epoch_end() {
        // Follower still in epoch 1; the leader moved to epoch 2 at offset 6.
        let leader = view(&[(0, 0), (1, 3), (2, 6)], 12, 12);
        let follower = view(&[(0, 0), (1, 3)], 9, 4);
        let plan = plan_truncation(TruncationMode::Kip101, &leader, &follower);
        assert_eq!(plan.truncation_offset, 6);
        assert_eq!(plan.reason, TruncationReason::LeaderEndOffset);
        assert_eq!(
            plan.round_trips,
            vec![RoundTrip {
                requested_epoch: 1,
                answered_epoch: None,
                answered_end_offset: 6,
                follower_log_end_offset: 9,
                follower_epoch_end: None,
                truncate_to: 6,
                reason: TruncationReason::LeaderEndOffset,
                done: true,
                in_fetch_response: false,
            }]
        );
        // kip279 agrees here: (1, 6) from the leader, (1, 9) on the follower.
        assert_eq!(offsets(&leader, &follower), [4, 6, 6]);
    }

    #[test]
    fn kip101_keeps_the_log_when_the_leader_answer_is_at_or_beyond_it() {
        let leader = view(&[(0, 0), (1, 3)], 12, 12);
        let follower = view(&[(0, 0), (1, 3)], 9, 4);
        let plan = plan_truncation(TruncationMode::Kip101, &leader, &follower);
        assert_eq!(plan.truncation_offset, 9);
        assert_eq!(plan.reason, TruncationReason::OwnLogEnd);
        assert!(!plan.truncates(9));
        assert_eq!(plan.round_trips[0].answered_end_offset, 12);
    }

    #[test]
    fn requested_epoch_below_leader_first_epoch_is_undefined_for_kip101_but_answered_for_kip279() {
        // The leader's history starts at epoch 3 (older epochs deleted); the follower only knows 1.
        let leader = view(&[(3, 10), (5, 20)], 30, 30);
        let follower = view(&[(1, 0)], 15, 4);
        let v0 = plan_truncation(TruncationMode::Kip101, &leader, &follower);
        assert_eq!(v0.truncation_offset, 4);
        assert_eq!(v0.reason, TruncationReason::UndefinedAnswerHighWatermark);
        // Current rule, case 4: (requested epoch, leader's first start offset) = (1, 10); the
        // follower has epoch 1 ending at its LEO 15, so min(15, 10, 15).
        let v1 = plan_truncation(TruncationMode::Kip279, &leader, &follower);
        assert_eq!(v1.truncation_offset, 10);
        assert_eq!(v1.reason, TruncationReason::MinOfBothEnds);
        assert_eq!(v1.round_trips.len(), 1);
        assert_eq!(v1.round_trips[0].answered_epoch, Some(1));
        assert_eq!(v1.round_trips[0].answered_end_offset, 10);
        assert_eq!(v1.round_trips[0].follower_epoch_end, Some(EpochEndOffset { leader_epoch: 1, end_offset: 15 }));
    }

    #[test]
    fn requested_epoch_above_leader_latest_epoch_is_undefined_in_both_protocols() {
        let leader = view(&[(0, 0), (2, 10)], 20, 20);
        let follower = view(&[(0, 0), (4, 10)], 14, 9);
        for mode in [TruncationMode::Kip101, TruncationMode::Kip279] {
            let plan = plan_truncation(mode, &leader, &follower);
            assert_eq!(plan.truncation_offset, 9, "{}", mode.name());
            assert_eq!(plan.reason, TruncationReason::UndefinedAnswerHighWatermark);
            assert_eq!(plan.round_trips.len(), 1);
        }
    }

    #[test]
    fn requested_epoch_between_two_leader_epochs() {
        // The follower wrote 12..17 as leader of epoch 3, an epoch the leader never saw; the
        // leader has epochs 2 (10..19) and 4 (20..).
        let leader = view(&[(0, 0), (2, 10), (4, 20)], 30, 30);
        let follower = view(&[(0, 0), (3, 12)], 18, 5);
        // kip101: start of the leader's smallest epoch above 3 = 20 ≥ LEO: nothing cut, and the
        // follower's epoch-3 records at 12..17 stay (divergence).
        let v0 = plan_truncation(TruncationMode::Kip101, &leader, &follower);
        assert_eq!(v0.truncation_offset, 18);
        assert_eq!(v0.reason, TruncationReason::OwnLogEnd);
        assert_eq!(v0.round_trips[0].answered_end_offset, 20);
        // kip279: (2, 20); the follower lacks epoch 2 → end of its epoch 0 = 12; asks with 0 →
        // (0, 10); its own epoch 0 now ends at 12 → min(12, 10, 12) = 10.
        let v1 = plan_truncation(TruncationMode::Kip279, &leader, &follower);
        assert_eq!(v1.truncation_offset, 10);
        assert_eq!(v1.reason, TruncationReason::MinOfBothEnds);
        let trips: Vec<_> = v1
            .round_trips
            .iter()
            .map(|t| (t.requested_epoch, t.answered_epoch, t.answered_end_offset, t.truncate_to, t.done))
            .collect();
        assert_eq!(trips, vec![(3, Some(2), 20, 12, false), (0, Some(0), 10, 10, true)]);
        assert_eq!(v1.follower_epochs_after, cache(&[(0, 0)]));
    }

    #[test]
    fn follower_ahead_of_leader_in_the_same_epoch_truncates_to_leader_log_end() {
        let leader = view(&[(0, 0)], 5, 5);
        let follower = view(&[(0, 0)], 8, 3);
        assert_eq!(offsets(&leader, &follower), [3, 5, 5]);
        let v0 = plan_truncation(TruncationMode::Kip101, &leader, &follower);
        assert_eq!(v0.reason, TruncationReason::LeaderEndOffset);
        let v1 = plan_truncation(TruncationMode::Kip279, &leader, &follower);
        assert_eq!(v1.reason, TruncationReason::MinOfBothEnds);
    }

    #[test]
    fn kip279_takes_two_round_trips_when_follower_lacks_the_answered_epoch() {
        // Follower: epoch 0 at 0..4, epoch 1 at 5..7 (never reached the leader), epoch 3 at
        // 8..11. Leader: epoch 0 at 0..9, epoch 2 at 10..14, epoch 4 from 15, LEO 20.
        let leader = view(&[(0, 0), (2, 10), (4, 15)], 20, 20);
        let follower = view(&[(0, 0), (1, 5), (3, 8)], 12, 3);
        let plan = plan_truncation(TruncationMode::Kip279, &leader, &follower);
        assert_eq!(
            plan.round_trips,
            vec![
                // Asks with 3 → (2, 15); the follower's floor for 2 is its epoch 1, ending at 8.
                RoundTrip {
                    requested_epoch: 3,
                    answered_epoch: Some(2),
                    answered_end_offset: 15,
                    follower_log_end_offset: 12,
                    follower_epoch_end: Some(EpochEndOffset { leader_epoch: 1, end_offset: 8 }),
                    truncate_to: 8,
                    reason: TruncationReason::FollowerEpochEnd,
                    done: false,
                    in_fetch_response: false,
                },
                // Asks with its new latest epoch 1 → (0, 10); both have epoch 0: min(5, 10, 8).
                RoundTrip {
                    requested_epoch: 1,
                    answered_epoch: Some(0),
                    answered_end_offset: 10,
                    follower_log_end_offset: 8,
                    follower_epoch_end: Some(EpochEndOffset { leader_epoch: 0, end_offset: 5 }),
                    truncate_to: 5,
                    reason: TruncationReason::MinOfBothEnds,
                    done: true,
                    in_fetch_response: false,
                },
            ]
        );
        assert_eq!(plan.truncation_offset, 5);
        assert_eq!(plan.reason, TruncationReason::MinOfBothEnds);
        assert_eq!(plan.follower_epochs_after, cache(&[(0, 0)]));
        // kip101 asks once with 3 and gets 15 ≥ LEO 12: nothing cut. hw cuts to 3.
        assert_eq!(offsets(&leader, &follower), [3, 12, 5]);
    }

    #[test]
    fn kip279_falls_back_to_high_watermark_when_a_partial_round_empties_the_cache() {
        // A stale cache whose entries all start at or past the LEO (before LogLoader's repair).
        let leader = view(&[(0, 0), (2, 4), (5, 9)], 12, 12);
        let follower = view(&[(1, 5), (4, 7)], 5, 3);
        let plan = plan_truncation(TruncationMode::Kip279, &leader, &follower);
        assert_eq!(plan.round_trips.len(), 1);
        assert_eq!(plan.round_trips[0].reason, TruncationReason::FollowerEpochEnd);
        assert_eq!(plan.round_trips[0].truncate_to, 5);
        assert_eq!(plan.truncation_offset, 3);
        assert_eq!(plan.reason, TruncationReason::NoEpochCacheHighWatermark);
        assert!(plan.follower_epochs_after.is_empty());
    }

    #[test]
    fn final_cut_drops_epoch_entries_at_or_past_it() {
        // A new leader's entry at its LEO with no data yet goes when the follower truncates there.
        let leader = view(&[(0, 0), (1, 4)], 9, 9);
        let follower = view(&[(0, 0), (1, 4), (2, 6)], 6, 6);
        let plan = plan_truncation(TruncationMode::Kip279, &leader, &follower);
        // Asks with 2 → undefined (leader's latest is 1) → HW 6 = LEO; the entry at 6 goes.
        assert_eq!(plan.truncation_offset, 6);
        assert_eq!(plan.follower_epochs_after, cache(&[(0, 0), (1, 4)]));
    }

    /// A small deterministic generator: every mode terminates within the cache size, and the
    /// offset stays within [0, LEO] for arbitrary (well-formed) caches.
    #[test]
    fn truncation_offset_never_exceeds_log_end_offset_nor_goes_below_zero() {
        let mut seed: u64 = 0x9e37_79b9_7f4a_7c15;
        let mut next = |n: u64| {
            seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            (seed >> 33) % n
        };
        let random_view = |next: &mut dyn FnMut(u64) -> u64| {
            let mut entries = Vec::new();
            let (mut epoch, mut offset) = (0i32, 0i64);
            for _ in 0..next(5) {
                epoch += 1 + next(2) as i32;
                offset += next(4) as i64;
                entries.push((epoch, offset));
            }
            let leo = offset + next(4) as i64 - 1;
            let hw = next(leo.max(0) as u64 + 3) as i64 - 1;
            view(&entries, leo, hw)
        };
        for _ in 0..5000 {
            let leader = random_view(&mut next);
            let follower = random_view(&mut next);
            let leo = follower.log_end_offset.max(0);
            for mode in TruncationMode::ALL {
                let plan = plan_truncation(mode, &leader, &follower);
                assert!((0..=leo).contains(&plan.truncation_offset), "{mode:?} {leader:?} {follower:?} {plan:?}");
                assert!(plan.round_trips.len() <= follower.epochs.entries().len().max(1));
                assert_ne!(plan.reason, TruncationReason::NoProgress);
                let last = plan.round_trips.len().saturating_sub(1);
                for (i, t) in plan.round_trips.iter().enumerate() {
                    assert!(i == last || !t.done, "only the last round can be done");
                    assert!((0..=t.follower_log_end_offset).contains(&t.truncate_to));
                }
                assert!(plan.follower_epochs_after.latest().is_none_or(|e| e.start_offset < plan.truncation_offset));
            }
        }
    }

    /// Offsets anywhere up to `i64::MAX` (a flipped `baseOffset` bit gives ~2^38): planning is
    /// bounded by the caches' entries, never by offsets, and never overflows.
    #[test]
    fn truncation_planning_with_offsets_up_to_i64_max_is_bounded_by_cache_entries() {
        let mut x = 0x853c_49e6_748f_ea9bu64;
        let mut next = move |n: u64| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x % n.max(1)
        };
        let random_view = |next: &mut dyn FnMut(u64) -> u64| {
            let mut offsets: Vec<i64> = (0..next(6))
                .map(|_| match next(4) {
                    0 => next(10) as i64,
                    1 => (1i64 << 38) + next(10) as i64,
                    2 => i64::MAX - next(10) as i64,
                    _ => next(u64::MAX >> 1) as i64,
                })
                .collect();
            offsets.sort_unstable();
            offsets.dedup();
            let entries: Vec<(i32, i64)> = offsets.iter().enumerate().map(|(i, o)| (i as i32 * 2, *o)).collect();
            let floor = offsets.last().copied().unwrap_or(0);
            let leo = match next(3) {
                0 => floor,
                1 => floor.saturating_add(next(5) as i64),
                _ => i64::MAX,
            };
            let hw = next(leo.max(1) as u64) as i64;
            view(&entries, leo, hw)
        };
        let started = std::time::Instant::now();
        for _ in 0..3000 {
            let leader = random_view(&mut next);
            let follower = random_view(&mut next);
            for mode in TruncationMode::ALL {
                let plan = plan_truncation(mode, &leader, &follower);
                assert!((0..=follower.log_end_offset).contains(&plan.truncation_offset), "{mode:?} {plan:?}");
                assert!(plan.round_trips.len() <= follower.epochs.entries().len() + 1);
            }
        }
        assert!(started.elapsed() < std::time::Duration::from_secs(20));
    }

    // ---- The public scenarios (`klog demo`'s), at the moment of each recovery. ----
    // Epoch caches include the entry a new leader assigns at its LEO when elected (Kafka ≥ 2.0.1).

    /// S1, first recovery (A against B). B leader at epoch 0 → B's cache (0,0). m1 at 0, A
    /// fetches ×3 (HW_A = HW_B = 1); m2 at 1, A fetches ×2: A's LEO 2 but HW_A still 1, HW_B = 2.
    #[test]
    fn s1_first_recovery_of_a_against_b_keeps_m2_only_with_leader_epochs() {
        let b = view(&[(0, 0)], 2, 2);
        let a = view(&[(0, 0)], 2, 1);
        assert_eq!(offsets(&b, &a), [1, 2, 2]);
        let v0 = plan_truncation(TruncationMode::Kip101, &b, &a);
        assert_eq!(v0.round_trips[0].answered_end_offset, 2, "B answers its LEO 2");
        let v1 = plan_truncation(TruncationMode::Kip279, &b, &a);
        assert_eq!(v1.round_trips[0].answered_epoch, Some(0));
        assert_eq!(v1.round_trips[0].answered_end_offset, 2);
    }

    /// S1, second recovery (B against the new leader A, epoch 1, ISR {A}, after m3). The states
    /// differ by mode because the first recovery did.
    #[test]
    fn s1_recovery_of_b_against_new_leader_a() {
        // B: m1, m2 in epoch 0, LEO 2, HW 2 (checkpointed when it moved).
        let b = view(&[(0, 0)], 2, 2);
        // hw: A was cut to 1, elected at 1 → (1,1), m3 at 1 → LEO 2; alone in the ISR → HW 2.
        let a_hw = view(&[(0, 0), (1, 1)], 2, 2);
        let plan = plan_truncation(TruncationMode::Hw, &a_hw, &b);
        assert_eq!(plan.truncation_offset, 2, "B keeps 1:(0,m2): diverged at offset 1");
        // kip101/kip279: A kept m2, elected at 2 → (1,2), m3 at 2 → LEO 3.
        let a = view(&[(0, 0), (1, 2)], 3, 3);
        for mode in [TruncationMode::Kip101, TruncationMode::Kip279] {
            let plan = plan_truncation(mode, &a, &b);
            assert_eq!(plan.truncation_offset, 2, "{}: nothing to cut, m3 is fetched", mode.name());
        }
    }

    /// S2: A leader at 0 → (0,0); m1 flushed everywhere; m2 flushed on A, fetched unflushed by
    /// B (HW_A = 2, HW_B = 1). Power loss: B back to LEO 1. B elected at 1 → (1,1), m3 at 1,
    /// alone in the ISR → HW 2. A: LEO 2, HW checkpoint 2.
    #[test]
    fn s2_recovery_of_a_against_b_truncates_only_with_leader_epochs() {
        let b = view(&[(0, 0), (1, 1)], 2, 2);
        let a = view(&[(0, 0)], 2, 2);
        assert_eq!(offsets(&b, &a), [2, 1, 1]);
        let v0 = plan_truncation(TruncationMode::Kip101, &b, &a);
        assert_eq!(v0.round_trips[0].answered_end_offset, 1, "start of epoch 1 on B");
        assert_eq!(v0.reason, TruncationReason::LeaderEndOffset);
        let v1 = plan_truncation(TruncationMode::Kip279, &b, &a);
        assert_eq!(v1.round_trips.len(), 1);
        assert_eq!(v1.round_trips[0].answered_epoch, Some(0));
        assert_eq!(v1.round_trips[0].answered_end_offset, 1);
        assert_eq!(v1.reason, TruncationReason::MinOfBothEnds);
    }

    /// S3: A leader at 1 → (1,0); a0–a10 at 0..10, B fetches ×3 (LEO 11, HW 11 on both);
    /// a11–a20 at 11..20 on A only (A's LEO 21, HW stays 11). B elected at 2 → (2,11), b11–b15
    /// at 11..15 (LEO 16; A never fetches, so HW_B stays 11). A elected at 3 → (3,21), a21 at 21
    /// (LEO 22).
    #[test]
    fn s3_recovery_of_b_against_a_diverges_only_with_kip101() {
        let a = view(&[(1, 0), (3, 21)], 22, 11);
        let b = view(&[(1, 0), (2, 11)], 16, 11);
        assert_eq!(offsets(&a, &b), [11, 16, 11]);
        let v0 = plan_truncation(TruncationMode::Kip101, &a, &b);
        assert_eq!(v0.round_trips[0].requested_epoch, 2);
        assert_eq!(v0.round_trips[0].answered_end_offset, 21, "start of A's next epoch after 2");
        assert_eq!(v0.reason, TruncationReason::OwnLogEnd);
        let v1 = plan_truncation(TruncationMode::Kip279, &a, &b);
        assert_eq!(
            v1.round_trips,
            vec![RoundTrip {
                requested_epoch: 2,
                answered_epoch: Some(1),
                answered_end_offset: 21,
                follower_log_end_offset: 16,
                follower_epoch_end: Some(EpochEndOffset { leader_epoch: 1, end_offset: 11 }),
                truncate_to: 11,
                reason: TruncationReason::MinOfBothEnds,
                done: true,
                in_fetch_response: false,
            }]
        );
        assert_eq!(v1.follower_epochs_after, cache(&[(1, 0)]));
    }
}
