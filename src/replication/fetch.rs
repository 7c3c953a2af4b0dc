//! One follower fetch round (replication-model.md, operation 3; Kafka `Partition.fetchRecords`,
//! `ReplicaFetcherThread.processPartitionData`).
//!
//! The order is what makes the follower's HW lag one round trip: the leader (a) reads its HW,
//! (b) records the follower's fetch offset and recomputes its HW over the ISR, (c) returns whole
//! batches from the one holding the fetch offset plus the HW read in (a); the follower (d)
//! appends the bytes unchanged and sets its HW to min(returned HW, own LEO).

use super::storage::{Chunk, Storage};
use crate::error::Result;
use crate::replica::Role;
use crate::replication::high_watermark;

/// Default cap on the bytes returned by one fetch (`replica.fetch.max.bytes`, 1 MiB); at least
/// one whole batch is always returned.
pub const DEFAULT_FETCH_MAX_BYTES: u64 = 1 << 20;

/// What one round did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FetchRound {
    pub fetch_offset: i64,
    /// Follower truncated to the leader's LEO first (its LEO was above it): (from, to).
    pub truncated: Option<(i64, i64)>,
    pub batches_copied: u64,
    pub records_copied: u64,
    pub bytes_copied: u64,
    /// HW the leader read before recording this fetch (what the response carries).
    pub returned_high_watermark: i64,
    pub leader_log_end_offset: i64,
    pub leader_high_watermark: i64,
    pub follower_log_end_offset: i64,
    pub follower_high_watermark: i64,
    /// The first returned batch starts below the follower's LEO: nothing appended.
    pub stuck: Option<StuckFetch>,
}

impl FetchRound {
    /// The round as it ran, line by line (`demo --explain`, the capture's code panel).
    pub fn explanation(&self) -> super::explain::Explanation {
        super::explain::explain_fetch(self)
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StuckFetch {
    pub batch_base_offset: i64,
    pub batch_last_offset: i64,
    pub follower_log_end_offset: i64,
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

/// Run one round. Both replicas are started; `leader` is a leader and `follower` its follower at
/// its epoch (or empty): the caller checked it ([`super::fencing::may_fetch`]).
pub fn fetch_round<S: Storage>(leader: &mut S, follower: &mut S, max_bytes: u64, flush: bool) -> Result<FetchRound> {
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
    let mut truncated = None;
    let leader_leo = leader.log_end_offset();
    if follower.log_end_offset() > leader_leo {
        // OffsetOutOfRange: the follower's log end is past the leader's.
        let before = follower.log_end_offset();
        let after = follower.truncate_to(leader_leo)?;
        truncated = Some((before, after));
    }
    let fetch_offset = follower.log_end_offset();
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
    let mut round = FetchRound {
        fetch_offset,
        truncated,
        batches_copied: 0,
        records_copied: 0,
        bytes_copied: 0,
        returned_high_watermark: returned_hw,
        leader_log_end_offset: leader.log_end_offset(),
        leader_high_watermark: leader.high_watermark(),
        follower_log_end_offset: follower.log_end_offset(),
        follower_high_watermark: follower.high_watermark(),
        stuck: None,
    };
    if let Some((base, last)) = chunk.first_batch() {
        if base < fetch_offset {
            // Kafka's follower refuses out-of-order offsets; the fetcher is stuck.
            round.stuck = Some(StuckFetch {
                batch_base_offset: base,
                batch_last_offset: last,
                follower_log_end_offset: fetch_offset,
            });
            follower.save()?;
            return Ok(round);
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
    Ok(round)
}
