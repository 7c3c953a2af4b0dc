//! One follower fetch round (replication-model.md, operation 3; Kafka `Partition.fetchRecords`,
//! `ReplicaFetcherThread.processPartitionData`).
//!
//! The order is what makes the follower's HW lag one round trip: the leader (a) reads its HW,
//! (b) records the follower's fetch offset and recomputes its HW over the ISR, (c) returns whole
//! batches from the one holding the fetch offset plus the HW read in (a); the follower (d)
//! appends the bytes unchanged and sets its HW to min(returned HW, own LEO).

use crate::error::{Error, Result};
use crate::format::batch::BatchIter;
use crate::replica::{Replica, Role};
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

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StuckFetch {
    pub batch_base_offset: i64,
    pub batch_last_offset: i64,
    pub follower_log_end_offset: i64,
}

/// The leader's HW after recording fetch offsets: min LEO over the ISR, never backwards.
/// ISR members without a recorded fetch offset since the election hold it where it is.
pub fn leader_high_watermark(leader: &Replica) -> i64 {
    let Some(state) = leader.state() else { return leader.high_watermark() };
    high_watermark::leader_high_watermark(
        leader.log_end_offset(),
        leader.high_watermark(),
        state.isr.iter().map(|m| state.follower_fetch_offsets.get(&m.id).copied()),
    )
}

/// Run one round. Both replicas are open for writing and started; `leader` is a leader and
/// `follower` its follower at its epoch (or empty): the command checked it.
pub fn fetch_round(leader: &mut Replica, follower: &mut Replica, max_bytes: u64, flush: bool) -> Result<FetchRound> {
    let leader_epoch = leader.state().map(|s| s.leader_epoch).unwrap_or(-1);
    let leader_id = leader.identity();
    let follower_id = follower.identity();
    // The follower now follows this leader (it was its follower at this epoch already, or an
    // empty replica whose first fetch makes it one). That, and the epoch, are on disk before any
    // batch is written: a fetch killed mid-way leaves a follower that can fetch again.
    let following = follower.state().is_some_and(|s| {
        s.role == Role::Follower && s.leader.as_deref() == Some(leader_id.as_str()) && s.leader_epoch == leader_epoch
    });
    if !following {
        follower.set_follower(leader_id, leader_epoch);
        follower.save_state()?;
    }
    follower.note_epoch_seen(leader_epoch)?;
    let mut truncated = None;
    let leader_leo = leader.log_end_offset();
    if follower.log_end_offset() > leader_leo {
        // OffsetOutOfRange: the follower's log end is past the leader's.
        let before = follower.log_end_offset();
        let after = follower.log_mut().truncate_to(leader_leo)?;
        clamp_after_truncation(follower)?;
        truncated = Some((before, after));
    }
    let fetch_offset = follower.log_end_offset();
    // (a) the HW the response will carry
    let returned_hw = leader.high_watermark();
    // (b) record the follower's fetch offset, recompute the leader's HW
    leader.record_follower_fetch(follower_id, fetch_offset);
    let new_leader_hw = leader_high_watermark(leader);
    if new_leader_hw != leader.high_watermark() {
        leader.set_high_watermark(new_leader_hw)?;
    }
    leader.save_state()?;
    // (c) whole batches from the one holding the fetch offset
    let mut chunk = Vec::new();
    leader.log().for_each_batch_from(fetch_offset, |seg, batch| {
        if !chunk.is_empty() && chunk.len() as u64 + batch.size_bytes() as u64 > max_bytes {
            return Ok(false);
        }
        if let Err(d) = batch.verify() {
            return Err(Error::corrupt(
                seg.log_path(),
                batch.position,
                format!("leader batch {}..={} is invalid: {}", batch.base_offset(), batch.last_offset(), d.what),
            ));
        }
        chunk.extend_from_slice(batch.bytes);
        Ok(true)
    })?;
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
    if let Some(first) = BatchIter::new(&chunk).next() {
        if first.base_offset() < fetch_offset {
            // Kafka's follower refuses out-of-order offsets; the fetcher is stuck.
            round.stuck = Some(StuckFetch {
                batch_base_offset: first.base_offset(),
                batch_last_offset: first.last_offset(),
                follower_log_end_offset: fetch_offset,
            });
            follower.save_state()?;
            return Ok(round);
        }
    }
    // (d) the follower appends the bytes unchanged
    for batch in BatchIter::new(&chunk) {
        follower.log_mut().append_batch(batch)?;
        round.batches_copied += 1;
        round.records_copied += batch.header().map_or(1, |h| h.records_count.max(0) as u64);
        round.bytes_copied += batch.size_bytes() as u64;
    }
    follower.finish_writes()?;
    if flush {
        follower.flush()?;
    }
    let follower_hw = high_watermark::follower_high_watermark(returned_hw, follower.log_end_offset());
    if follower_hw != follower.high_watermark() {
        follower.set_high_watermark(follower_hw)?;
    }
    follower.save_state()?;
    round.follower_log_end_offset = follower.log_end_offset();
    round.follower_high_watermark = follower.high_watermark();
    Ok(round)
}

/// After a truncation: HW and recovery point no higher than the new LEO (`UnifiedLog.truncateTo`).
pub fn clamp_after_truncation(replica: &mut Replica) -> Result<()> {
    let leo = replica.log_end_offset();
    replica.set_high_watermark(high_watermark::clamp_to_log_end(replica.high_watermark(), leo))?;
    replica.set_recovery_point(high_watermark::clamp_to_log_end(replica.recovery_point(), leo))?;
    Ok(())
}
