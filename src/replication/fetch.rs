//! One follower fetch round ([the model](crate::replication), operation 3; Kafka `Partition.fetchRecords`,
//! `ReplicaFetcherThread.processPartitionData`).
//!
//! The order is what makes the follower's HW lag one round trip: the leader (a) reads its HW,
//! (b) records the follower's fetch offset and recomputes its HW over the ISR, (c) returns whole
//! batches from the one holding the fetch offset plus the HW read in (a); the follower (d)
//! appends the bytes unchanged and sets its HW to min(returned HW, own LEO).
//!
//! From Kafka 2.8 (KAFKA-10554, [`Rules::truncation_on_fetch`]) the follower also sends its
//! latest cached epoch as `lastFetchedEpoch`, and the leader checks it before (a)–(c)
//! (`Partition.readRecords`): an epoch it cannot place is OFFSET_OUT_OF_RANGE, an epoch that
//! ends below the fetch offset on the leader is a diverging epoch (epoch, end offset). Either
//! answer reads nothing and records nothing (`ReplicaManager.updateFollowerFetchState` skips
//! it), so the leader's HW stays where it is — but 2.8.0 records a diverging read's fetch
//! offset (KAFKA-13141 came in 2.8.1), and its HW may move on it; the follower then truncates
//! (`AbstractFetcherThread.truncateOnFetchResponse` by the KIP-279 step in
//! [`super::truncation`], or `handleOutOfRangeError` → `fetchOffsetAndTruncate`) and the next
//! round fetches from its new LEO. Before 2.8 a round sends no epoch and runs as it always did.

use super::release::Rules;
use super::storage::{Chunk, Storage};
use super::truncation::{truncation_on_diverging_epoch, TruncationReason};
use crate::error::Result;
use crate::log::epoch_cache::{EpochCache, EpochEndOffset, UNDEFINED_EPOCH};
use crate::log::recovery::RecoveryReport;
use crate::replica::Role;
use crate::replication::high_watermark;

/// Default cap on the bytes returned by one fetch (`replica.fetch.max.bytes`, 1 MiB); at least
/// one whole batch is always returned.
pub const DEFAULT_FETCH_MAX_BYTES: u64 = 1 << 20;

/// What the leader answered one fetch.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FetchAnswer {
    /// Whole batches from the fetch offset (none when the follower is at the leader's LEO).
    Records,
    /// 2.8+: the leader's largest epoch at or below the last fetched epoch, and where it ends
    /// on the leader, which is below the fetch offset or names a smaller epoch
    /// (`Partition.readRecords`). Nothing was read.
    Diverging { leader_epoch: i32, end_offset: i64 },
    /// OFFSET_OUT_OF_RANGE. Nothing was read.
    OffsetOutOfRange(OutOfRange),
}

/// Why a leader answered OFFSET_OUT_OF_RANGE.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OutOfRange {
    /// 2.8+: it cannot place the last fetched epoch (its `endOffsetFor` is UNDEFINED).
    UnknownEpoch,
    /// The fetch offset is below its log start.
    BelowLogStart,
    /// The fetch offset is past its LEO (`UnifiedLog.read`).
    PastLogEnd,
}

impl OutOfRange {
    pub fn describe(self) -> &'static str {
        match self {
            OutOfRange::UnknownEpoch => "the leader cannot place the last fetched epoch",
            OutOfRange::BelowLogStart => "the fetch offset is below the leader's log start",
            OutOfRange::PastLogEnd => "the fetch offset is past the leader's log end",
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            OutOfRange::UnknownEpoch => "unknown_epoch",
            OutOfRange::BelowLogStart => "below_log_start",
            OutOfRange::PastLogEnd => "past_log_end",
        }
    }
}

/// What the follower did with a 2.8+ diverging-epoch or OFFSET_OUT_OF_RANGE answer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AnswerTruncation {
    /// `truncateOnFetchResponse` → `getOffsetTruncationState` (the KIP-279 step): `offset` is
    /// where the rule cuts; `complete` false means the follower lacked the answered epoch and
    /// the next fetch goes on with its new latest epoch.
    Diverging { offset: i64, reason: TruncationReason, follower_epoch_end: Option<EpochEndOffset>, complete: bool },
    /// `fetchOffsetAndTruncate`: the leader's LEO is below the follower's: cut to it.
    ToLeaderEnd { offset: i64 },
    /// `fetchOffsetAndTruncate`: the leader's log start is above the follower's LEO: the log is
    /// emptied and starts there (`truncateFullyAndStartAt`).
    RestartAtLeaderStart { offset: i64 },
    /// `fetchOffsetAndTruncate`: nothing to cut; the follower fetches again at its LEO with its
    /// latest epoch, which gets the same answer while the leader's log is as it is.
    Kept,
}

/// What one round did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FetchRound {
    /// The rules the round ran by.
    pub rules: Rules,
    pub fetch_offset: i64,
    /// 2.8+: the `lastFetchedEpoch` sent (the follower's latest cached epoch); `None`: none
    /// was sent (before 2.8, or the follower's cache is empty).
    pub last_fetched_epoch: Option<i32>,
    /// 2.8+: the leader's `endOffsetFor(last_fetched_epoch)`, when one was sent.
    pub leader_epoch_end: Option<EpochEndOffset>,
    pub answer: FetchAnswer,
    /// 2.8+: how the follower handled a diverging or out-of-range answer.
    pub answer_truncation: Option<AnswerTruncation>,
    /// The follower's log was cut: (LEO before, LEO after). Before 2.8: truncated to the
    /// leader's LEO first (its LEO was above it); 2.8+: by [`FetchRound::answer_truncation`].
    pub truncated: Option<(i64, i64)>,
    pub batches_copied: u64,
    pub records_copied: u64,
    pub bytes_copied: u64,
    /// HW the leader read before recording this fetch (what the response carries); −1 for an
    /// OFFSET_OUT_OF_RANGE answer, which carries none.
    pub returned_high_watermark: i64,
    pub leader_log_start_offset: i64,
    pub leader_log_end_offset: i64,
    pub leader_high_watermark: i64,
    pub follower_log_end_offset: i64,
    pub follower_high_watermark: i64,
    /// The first returned batch starts below the follower's LEO: nothing appended.
    pub stuck: Option<StuckFetch>,
    /// Before 2.8: the follower's log end was past the leader's (OFFSET_OUT_OF_RANGE) and its
    /// release stops the broker there ([`Rules::past_leader_end_halts`]): nothing was cut,
    /// read or recorded, and no later round runs.
    pub broker_stops: bool,
}

impl FetchRound {
    /// A round before the leader answers: fetching from the follower's log end, both sides'
    /// offsets as they are, the leader's answer records until told otherwise.
    fn begin<S: Storage>(rules: &Rules, leader: &S, follower: &S) -> FetchRound {
        FetchRound {
            rules: *rules,
            fetch_offset: follower.log_end_offset(),
            last_fetched_epoch: None,
            leader_epoch_end: None,
            answer: FetchAnswer::Records,
            answer_truncation: None,
            truncated: None,
            batches_copied: 0,
            records_copied: 0,
            bytes_copied: 0,
            returned_high_watermark: leader.high_watermark(),
            leader_log_start_offset: leader.log_start_offset(),
            leader_log_end_offset: leader.log_end_offset(),
            leader_high_watermark: leader.high_watermark(),
            follower_log_end_offset: follower.log_end_offset(),
            follower_high_watermark: follower.high_watermark(),
            stuck: None,
            broker_stops: false,
        }
    }

    /// Whether the leader recorded this fetch (it answered with records).
    pub fn recorded(&self) -> bool {
        self.answer == FetchAnswer::Records
    }

    /// An OFFSET_OUT_OF_RANGE answer the follower could do nothing with: the next round asks
    /// the same and gets the same answer (Kafka's fetcher loops on it until the leader's log
    /// changes).
    pub fn no_progress(&self) -> bool {
        matches!(self.answer, FetchAnswer::OffsetOutOfRange(_))
            && self.answer_truncation == Some(AnswerTruncation::Kept)
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StuckFetch {
    pub batch_base_offset: i64,
    pub batch_last_offset: i64,
    pub follower_log_end_offset: i64,
}

/// What the leader knows when it checks a fetch.
#[derive(Debug, Clone)]
pub struct LeaderLog<'a> {
    pub epochs: &'a EpochCache,
    pub log_start_offset: i64,
    pub log_end_offset: i64,
}

/// The leader's check of a follower's fetch before it reads or records anything
/// (`Partition.readRecords` 2.8.0 – 4.4, then `UnifiedLog.read`): with a last fetched epoch,
/// an epoch it cannot place or a fetch offset below its log start is OFFSET_OUT_OF_RANGE, and
/// an epoch whose end on the leader (or whose floor epoch) is below the fetch offset is a
/// diverging epoch; without one, an offset outside [log start, LEO] is OFFSET_OUT_OF_RANGE.
/// Returns the answer and the leader's `endOffsetFor` when it looked one up.
pub fn leader_fetch_answer(
    leader: &LeaderLog<'_>,
    fetch_offset: i64,
    last_fetched_epoch: Option<i32>,
) -> (FetchAnswer, Option<EpochEndOffset>) {
    leader_fetch_answer_by(leader, fetch_offset, last_fetched_epoch, true)
}

/// [`leader_fetch_answer`]; `log_start_first` false is 2.8.0 (before KAFKA-12996): a diverging
/// epoch is answered even for a fetch offset below the log start.
pub fn leader_fetch_answer_by(
    leader: &LeaderLog<'_>,
    fetch_offset: i64,
    last_fetched_epoch: Option<i32>,
    log_start_first: bool,
) -> (FetchAnswer, Option<EpochEndOffset>) {
    let mut lookup = None;
    if let Some(fetch_epoch) = last_fetched_epoch {
        let end = leader.epochs.end_offset_for(fetch_epoch, leader.log_end_offset);
        lookup = Some(end);
        if end.is_undefined() || end.leader_epoch == UNDEFINED_EPOCH {
            return (FetchAnswer::OffsetOutOfRange(OutOfRange::UnknownEpoch), lookup);
        }
        // Below the log start fails whether or not the epochs diverge (from 2.8.1).
        if log_start_first && fetch_offset < leader.log_start_offset {
            return (FetchAnswer::OffsetOutOfRange(OutOfRange::BelowLogStart), lookup);
        }
        if end.leader_epoch < fetch_epoch || end.end_offset < fetch_offset {
            return (FetchAnswer::Diverging { leader_epoch: end.leader_epoch, end_offset: end.end_offset }, lookup);
        }
    }
    if fetch_offset < leader.log_start_offset {
        return (FetchAnswer::OffsetOutOfRange(OutOfRange::BelowLogStart), lookup);
    }
    if fetch_offset > leader.log_end_offset {
        return (FetchAnswer::OffsetOutOfRange(OutOfRange::PastLogEnd), lookup);
    }
    (FetchAnswer::Records, lookup)
}

/// The leader's HW after recording fetch offsets: min LEO over the ISR, never backwards.
/// ISR members without a recorded fetch offset since the election hold it where it is. While
/// the ISR, the leader included, is smaller than min.insync.replicas the HW stays where it is
/// (Kafka 3.7, KAFKA-15583; klog models min.insync.replicas above 1 only with that rule).
pub fn leader_high_watermark<S: Storage>(leader: &S) -> i64 {
    if leader.running().is_none() {
        return leader.high_watermark();
    }
    let isr = leader.isr_fetch_offsets();
    if isr.len() + 1 < leader.min_insync_replicas() {
        return leader.high_watermark();
    }
    high_watermark::leader_high_watermark(leader.log_end_offset(), leader.high_watermark(), isr)
}

/// Run one round by `rules`. Both replicas are started; `leader` is a leader and `follower` its
/// follower at its epoch (or empty): the caller checked it ([`super::fencing::may_fetch`]).
pub fn fetch_round<S: Storage>(
    rules: &Rules,
    leader: &mut S,
    follower: &mut S,
    max_bytes: u64,
    flush: bool,
) -> Result<FetchRound> {
    let leader_epoch = leader.running().map_or(-1, |r| r.leader_epoch);
    let leader_id = leader.id();
    // The follower now follows this leader (it was its follower at this epoch already, or an
    // empty replica whose first fetch makes it one). That, and the epoch, are durable before any
    // batch is written: a fetch killed mid-way leaves a follower that can fetch again.
    let following = follower.running().is_some_and(|r| {
        r.role == Role::Follower && r.leader.as_ref() == Some(&leader_id) && r.leader_epoch == leader_epoch
    });
    if !following {
        follower.set_follower(leader_id, leader_epoch);
        follower.save()?;
    }
    follower.note_epoch_seen(leader_epoch)?;
    let mut round = FetchRound::begin(rules, leader, follower);
    if rules.truncation_on_fetch {
        answer_by_epoch(rules, leader, follower, &mut round)?;
        if round.answer != FetchAnswer::Records {
            // Nothing read, nothing recorded (but a 2.8.0 diverging answer, above): the leader's
            // state and HW stay as they are.
            truncate_on_answer(rules, leader, follower, &mut round)?;
            return Ok(round);
        }
    } else if follower.log_end_offset() > leader.log_end_offset() && rules.past_leader_end_halts() {
        // ReplicaFetcherThread.scala:179-190@2.0.0: with unclean.leader.election.enable false
        // the follower's broker exits (FatalExitError) instead of truncating.
        round.answer = FetchAnswer::OffsetOutOfRange(OutOfRange::PastLogEnd);
        round.returned_high_watermark = -1;
        round.broker_stops = true;
        follower.save()?;
        return Ok(round);
    } else if follower.log_end_offset() > leader.log_end_offset() {
        // Before 2.8 (as klog has always run it): OffsetOutOfRange, the follower's log end is
        // past the leader's; it truncates to the leader's LEO and fetches in the same round.
        let before = follower.log_end_offset();
        let after = follower.truncate_to(leader.log_end_offset())?;
        round.truncated = Some((before, after));
        round.fetch_offset = follower.log_end_offset();
    }
    read_and_append(leader, follower, &mut round, max_bytes, flush)?;
    Ok(round)
}

/// The leader's answer to a fetch carrying the follower's last fetched epoch (2.8+,
/// truncation on fetch), into `round`; a 2.8.0 diverging answer records the fetch offset too.
fn answer_by_epoch<S: Storage>(rules: &Rules, leader: &mut S, follower: &S, round: &mut FetchRound) -> Result<()> {
    // `ReplicaFetcherThread.latestEpoch`: the follower's latest cached epoch, if any.
    round.last_fetched_epoch = follower.epochs().latest_epoch();
    let epochs = leader.epochs();
    let log = LeaderLog {
        epochs: &epochs,
        log_start_offset: leader.log_start_offset(),
        log_end_offset: leader.log_end_offset(),
    };
    let (answer, lookup) = leader_fetch_answer_by(
        &log,
        round.fetch_offset,
        round.last_fetched_epoch,
        rules.below_log_start_before_diverging,
    );
    round.answer = answer;
    round.leader_epoch_end = lookup;
    if matches!(answer, FetchAnswer::Diverging { .. }) && !rules.diverging_answer_skips_fetch_state {
        // 2.8.0 (before KAFKA-13141): the diverging read has no error, so the leader records
        // the follower's fetch offset, and its HW may move on it.
        leader.record_follower_fetch(follower.id(), round.fetch_offset);
        let hw = leader_high_watermark(leader);
        if hw != leader.high_watermark() {
            leader.set_high_watermark(hw)?;
        }
        leader.save()?;
        round.leader_high_watermark = leader.high_watermark();
    }
    Ok(())
}

/// The follower's side of a diverging or out-of-range answer (2.8+): the response's HW where
/// the release still processes it, then the cut. Nothing is appended.
fn truncate_on_answer<S: Storage>(rules: &Rules, leader: &S, follower: &mut S, round: &mut FetchRound) -> Result<()> {
    let leo = follower.log_end_offset();
    let cut = match round.answer {
        FetchAnswer::Records => unreachable!("a records answer is read, not truncated on"),
        FetchAnswer::Diverging { leader_epoch, end_offset } => {
            if !rules.diverging_response_skips_high_watermark {
                // Before KAFKA-14704 `processPartitionData` ran on the empty records first.
                let hw = high_watermark::follower_high_watermark(round.returned_high_watermark, leo);
                if hw != follower.high_watermark() {
                    follower.set_high_watermark(hw)?;
                }
            }
            let diverging = EpochEndOffset { leader_epoch, end_offset };
            let (offset, reason, complete, follower_epoch_end) =
                truncation_on_diverging_epoch(diverging, &follower.epochs(), leo, follower.high_watermark());
            AnswerTruncation::Diverging { offset, reason, follower_epoch_end, complete }
        }
        FetchAnswer::OffsetOutOfRange(_) => {
            // An error response carries no HW.
            round.returned_high_watermark = -1;
            let (leader_leo, leader_start) = (leader.log_end_offset(), leader.log_start_offset());
            if leader_leo < leo {
                AnswerTruncation::ToLeaderEnd { offset: leader_leo }
            } else if leader_start > leo {
                AnswerTruncation::RestartAtLeaderStart { offset: leader_start }
            } else {
                AnswerTruncation::Kept
            }
        }
    };
    match cut {
        AnswerTruncation::Diverging { offset, .. } | AnswerTruncation::ToLeaderEnd { offset } if offset < leo => {
            let after = follower.truncate_to(offset)?;
            round.truncated = Some((leo, after));
        }
        AnswerTruncation::RestartAtLeaderStart { offset } => {
            follower.restart_at(offset)?;
            round.truncated = Some((leo, offset));
        }
        _ => {}
    }
    follower.save()?;
    round.answer_truncation = Some(cut);
    round.follower_log_end_offset = follower.log_end_offset();
    round.follower_high_watermark = follower.high_watermark();
    Ok(())
}

/// (a) – (d): the leader records the fetch and reads; the follower appends.
fn read_and_append<S: Storage>(
    leader: &mut S,
    follower: &mut S,
    round: &mut FetchRound,
    max_bytes: u64,
    flush: bool,
) -> Result<()> {
    let fetch_offset = round.fetch_offset;
    // (a) the HW the response will carry
    let returned_hw = leader.high_watermark();
    // (b) record the follower's fetch offset, recompute the leader's HW
    leader.record_follower_fetch(follower.id(), fetch_offset);
    let new_leader_hw = leader_high_watermark(leader);
    if new_leader_hw != leader.high_watermark() {
        leader.set_high_watermark(new_leader_hw)?;
    }
    leader.save()?;
    // (c) whole batches from the one holding the fetch offset
    let chunk = leader.read_from(fetch_offset, max_bytes)?;
    round.returned_high_watermark = returned_hw;
    round.leader_log_end_offset = leader.log_end_offset();
    round.leader_high_watermark = leader.high_watermark();
    round.follower_log_end_offset = follower.log_end_offset();
    round.follower_high_watermark = follower.high_watermark();
    if let Some((base, last)) = chunk.first_batch() {
        if base < fetch_offset {
            // Kafka's follower refuses out-of-order offsets; the fetcher is stuck.
            round.stuck = Some(StuckFetch {
                batch_base_offset: base,
                batch_last_offset: last,
                follower_log_end_offset: fetch_offset,
            });
            follower.save()?;
            return Ok(());
        }
    }
    // (d) the follower appends the bytes unchanged
    let copied = follower.append_fetched(&chunk)?;
    round.batches_copied = copied.batches;
    round.records_copied = copied.records;
    round.bytes_copied = copied.bytes;
    if flush {
        follower.flush()?;
    }
    let follower_hw = high_watermark::follower_high_watermark(returned_hw, follower.log_end_offset());
    if follower_hw != follower.high_watermark() {
        follower.set_high_watermark(follower_hw)?;
    }
    follower.save()?;
    round.follower_log_end_offset = follower.log_end_offset();
    round.follower_high_watermark = follower.high_watermark();
    Ok(())
}

/// Rounds [`Rounds::UntilCaughtUp`] gives up after (a leader that keeps being appended to).
pub const MAX_ROUNDS: u64 = 100_000;

/// How many rounds [`fetch_rounds`] runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Rounds {
    /// This many, fewer when the fetcher is stuck.
    Count(u64),
    /// Until the follower has caught up (at most [`MAX_ROUNDS`]), or the fetcher is stuck.
    UntilCaughtUp,
}

/// Fetch rounds between a leader and its follower: `klog fetch`'s report, and what
/// `recover --catch-up` runs after the restart.
#[derive(Debug)]
pub struct FetchReport {
    pub rounds: Vec<FetchRound>,
    /// Repair of the leader's tail after a writer died mid-write, if it was needed.
    pub leader_startup: Option<RecoveryReport>,
    pub follower_startup: Option<RecoveryReport>,
    pub caught_up: bool,
}

impl FetchReport {
    /// The last round cannot be followed by one that does better: a batch below the follower's
    /// LEO (out-of-order offsets), or an OFFSET_OUT_OF_RANGE the follower could do nothing with.
    pub fn stuck(&self) -> bool {
        self.rounds.last().is_some_and(|r| r.stuck.is_some() || r.no_progress())
    }

    /// Records copied over all the rounds.
    pub fn records_copied(&self) -> u64 {
        self.rounds.iter().map(|r| r.records_copied).sum()
    }
}

/// Fetch rounds on two started replicas, `leader` a leader and `follower` its follower at its
/// epoch (or empty), by `rules`: as many as `rounds` says, stopping early when the fetcher is
/// stuck. The follower has caught up after a fetch answered with nothing to copy, both HWs
/// equal; a round answered with a diverging epoch or OFFSET_OUT_OF_RANGE copies nothing and is
/// never the caught-up one: the follower fetches again from where it cut. Nothing is started
/// here, so the report's start-ups are `None`.
pub fn fetch_rounds<S: Storage>(
    rules: &Rules,
    leader: &mut S,
    follower: &mut S,
    rounds: Rounds,
    max_bytes: u64,
    flush: bool,
) -> Result<FetchReport> {
    let (limit, until_caught_up) = match rounds {
        Rounds::Count(n) => (n, false),
        Rounds::UntilCaughtUp => (MAX_ROUNDS, true),
    };
    let mut ran = Vec::new();
    let mut caught_up = false;
    for _ in 0..limit {
        let round = fetch_round(rules, leader, follower, max_bytes, flush)?;
        let stuck = round.stuck.is_some() || round.no_progress() || round.broker_stops;
        caught_up = round.recorded()
            && round.batches_copied == 0
            && round.follower_log_end_offset == round.leader_log_end_offset
            && round.follower_high_watermark == round.leader_high_watermark;
        ran.push(round);
        if stuck || (until_caught_up && caught_up) {
            break;
        }
    }
    Ok(FetchReport { rounds: ran, leader_startup: None, follower_startup: None, caught_up })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::log::epoch_cache::EpochEntry;

    fn cache(pairs: &[(i32, i64)]) -> EpochCache {
        EpochCache::from_entries(pairs.iter().map(|&(e, o)| EpochEntry { leader_epoch: e, start_offset: o }))
    }

    /// Issue 41, point 4. Partition.scala:1111-1115@2.8.1 (KAFKA-12996): a fetch offset below
    /// the log start is OFFSET_OUT_OF_RANGE before the diverging check; Partition.scala:1112
    /// @2.8.0 answers the diverging epoch first.
    #[test]
    fn on_2_8_0_a_diverging_epoch_is_answered_below_the_log_start() {
        let epochs = cache(&[(0, 0), (1, 2)]);
        let log = LeaderLog { epochs: &epochs, log_start_offset: 4, log_end_offset: 10 };
        let rules = |r: &str| crate::replication::release::Release::parse(r).unwrap().rules();
        let at = |r: &str| leader_fetch_answer_by(&log, 3, Some(0), rules(r).below_log_start_before_diverging).0;
        assert_eq!(at("2.8.0"), FetchAnswer::Diverging { leader_epoch: 0, end_offset: 2 });
        assert_eq!(at("2.8.1"), FetchAnswer::OffsetOutOfRange(OutOfRange::BelowLogStart));
        assert_eq!(at("4.4.0"), FetchAnswer::OffsetOutOfRange(OutOfRange::BelowLogStart));
    }

    fn answer(pairs: &[(i32, i64)], start: i64, leo: i64, offset: i64, epoch: Option<i32>) -> FetchAnswer {
        let epochs = cache(pairs);
        let log = LeaderLog { epochs: &epochs, log_start_offset: start, log_end_offset: leo };
        leader_fetch_answer(&log, offset, epoch).0
    }

    /// Partition.readRecords: the leader has the last fetched epoch up to the fetch offset.
    #[test]
    fn a_follower_on_the_leaders_history_gets_records() {
        assert_eq!(answer(&[(0, 0), (2, 5)], 0, 9, 9, Some(2)), FetchAnswer::Records);
        assert_eq!(answer(&[(0, 0), (2, 5)], 0, 9, 5, Some(0)), FetchAnswer::Records, "epoch 0 ends at 5");
        assert_eq!(answer(&[(0, 0), (2, 5)], 0, 9, 3, Some(0)), FetchAnswer::Records);
        assert_eq!(answer(&[(0, 0)], 0, 4, 0, None), FetchAnswer::Records, "an empty follower sends no epoch");
    }

    /// `epochEndOffset.leaderEpoch < fetchEpoch || epochEndOffset.endOffset < fetchOffset`.
    #[test]
    fn an_epoch_that_ends_below_the_fetch_offset_or_is_unknown_below_the_latest_diverges() {
        // KIP-279's shape: the follower wrote epoch 2 at 11..16; the leader went from 1 to 3 at 21.
        assert_eq!(
            answer(&[(1, 0), (3, 21)], 0, 22, 16, Some(2)),
            FetchAnswer::Diverging { leader_epoch: 1, end_offset: 21 },
            "the leader's floor epoch 1 is smaller than 2, even though it ends past 16"
        );
        // Same epoch, but it ends on the leader before the follower's LEO.
        assert_eq!(
            answer(&[(0, 0), (2, 5)], 0, 9, 7, Some(0)),
            FetchAnswer::Diverging { leader_epoch: 0, end_offset: 5 }
        );
        // The latest epoch ends at the leader's LEO.
        assert_eq!(answer(&[(0, 0)], 0, 4, 6, Some(0)), FetchAnswer::Diverging { leader_epoch: 0, end_offset: 4 });
        // Below the leader's first epoch: (requested epoch, first start offset).
        assert_eq!(answer(&[(3, 10)], 0, 12, 11, Some(1)), FetchAnswer::Diverging { leader_epoch: 1, end_offset: 10 });
    }

    /// `endOffset == UNDEFINED_EPOCH_OFFSET` → OffsetOutOfRangeException, before any read; the
    /// log-start check comes next, whatever the epochs; without an epoch, `UnifiedLog.read`.
    #[test]
    fn an_epoch_the_leader_cannot_place_or_an_offset_outside_its_log_is_out_of_range() {
        let oor = FetchAnswer::OffsetOutOfRange;
        assert_eq!(answer(&[(0, 0), (2, 4)], 0, 6, 8, Some(5)), oor(OutOfRange::UnknownEpoch), "above its latest");
        assert_eq!(answer(&[], 0, 6, 3, Some(0)), oor(OutOfRange::UnknownEpoch), "an empty cache places nothing");
        assert_eq!(answer(&[(0, 0)], 5, 9, 3, Some(0)), oor(OutOfRange::BelowLogStart));
        assert_eq!(answer(&[(0, 0)], 5, 9, 3, None), oor(OutOfRange::BelowLogStart));
        assert_eq!(answer(&[(0, 0)], 0, 4, 6, None), oor(OutOfRange::PastLogEnd));
        let epochs = cache(&[(0, 0), (2, 4)]);
        let log = LeaderLog { epochs: &epochs, log_start_offset: 0, log_end_offset: 6 };
        let (_, lookup) = leader_fetch_answer(&log, 8, Some(5));
        assert_eq!(lookup, Some(EpochEndOffset::UNDEFINED), "the lookup is reported with the answer");
    }
}
