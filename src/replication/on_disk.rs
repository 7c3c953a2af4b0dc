//! The on-disk replica as [`Storage`]: the replication procedures run on a Kafka log dir through
//! these few calls into `replica/` and `log/`. Also what the fencing rules look at in an on-disk
//! follower ([`follower_facts`]) and a fencing refusal's wording ([`fenced`]), which `fetch` and
//! `recover` share.

use super::diff::{OwnedRecord, RecordCursor};
use super::fencing::{Fenced, FollowerFacts};
use super::high_watermark;
use super::storage::{Chunk, Copied, Record, Running, Storage};
use crate::error::{Error, Result};
use crate::format::batch::BatchIter;
use crate::log::epoch_cache::EpochCache;
use crate::replica::{IsrMember, Replica, Role};

/// Whole batches as the leader's log holds them, verified.
pub struct Batches(Vec<u8>);

impl Chunk for Batches {
    fn first_batch(&self) -> Option<(i64, i64)> {
        BatchIter::new(&self.0).next().map(|b| (b.base_offset(), b.last_offset()))
    }
}

impl Record for OwnedRecord {
    fn offset(&self) -> i64 {
        self.offset
    }
    fn same_batch(&self, other: &Self) -> bool {
        OwnedRecord::same_batch(self, other)
    }
}

/// [`RecordCursor`] as an iterator.
pub struct Records(RecordCursor);

impl Iterator for Records {
    type Item = Result<OwnedRecord>;
    fn next(&mut self) -> Option<Self::Item> {
        self.0.next_record().transpose()
    }
}

impl Storage for Replica {
    type Id = String;
    type Member = IsrMember;
    type Chunk = Batches;
    type Record = OwnedRecord;
    type Records<'a> = Records;

    fn id(&self) -> String {
        self.identity()
    }
    fn log_start_offset(&self) -> i64 {
        Replica::log_start_offset(self)
    }
    fn log_end_offset(&self) -> i64 {
        Replica::log_end_offset(self)
    }
    fn high_watermark(&self) -> i64 {
        Replica::high_watermark(self)
    }
    fn epochs(&self) -> EpochCache {
        self.log().epoch_cache().clone()
    }
    fn largest_seen(&self) -> Option<i32> {
        self.largest_known_epoch()
    }
    fn running(&self) -> Option<Running<String>> {
        self.state().map(|s| Running { role: s.role, leader_epoch: s.leader_epoch, leader: s.leader.clone() })
    }
    fn isr_fetch_offsets(&self) -> Vec<Option<i64>> {
        self.state()
            .map_or_else(Vec::new, |s| s.isr.iter().map(|m| s.follower_fetch_offsets.get(&m.id).copied()).collect())
    }
    fn min_insync_replicas(&self) -> usize {
        self.topic_config().map_or(1, |c| c.min_insync_replicas as usize)
    }
    fn set_leader(&mut self, leader_epoch: i32, isr: Vec<IsrMember>) {
        Replica::set_leader(self, leader_epoch, isr)
    }
    fn set_isr(&mut self, isr: Vec<IsrMember>) {
        Replica::set_isr(self, isr)
    }
    fn set_follower(&mut self, leader: String, leader_epoch: i32) {
        Replica::set_follower(self, leader, leader_epoch)
    }
    fn record_follower_fetch(&mut self, follower: String, fetch_offset: i64) {
        Replica::record_follower_fetch(self, follower, fetch_offset)
    }
    fn save(&mut self) -> Result<()> {
        self.save_state()
    }
    fn note_epoch_seen(&mut self, leader_epoch: i32) -> Result<()> {
        Replica::note_epoch_seen(self, leader_epoch)
    }
    fn assign_epoch(&mut self, leader_epoch: i32, start_offset: i64) -> Result<()> {
        self.log_mut().update_epoch_cache(|c| c.assign(leader_epoch, start_offset)).map(|_| ())
    }
    fn set_high_watermark(&mut self, high_watermark: i64) -> Result<()> {
        Replica::set_high_watermark(self, high_watermark)
    }
    fn truncate_to(&mut self, offset: i64) -> Result<i64> {
        let end = self.log_mut().truncate_to(offset)?;
        // `UnifiedLog.truncateTo`: the HW and recovery point no higher than the new end.
        let (hw, rp) = (Replica::high_watermark(self), self.recovery_point());
        Replica::set_high_watermark(self, high_watermark::clamp_to_log_end(hw, end))?;
        self.set_recovery_point(high_watermark::clamp_to_log_end(rp, end))?;
        Ok(end)
    }
    fn restart_at(&mut self, offset: i64) -> Result<()> {
        self.restart_log_at(offset)
    }
    fn cut_offset_for(&self, offset: i64) -> Result<i64> {
        self.log().cut_offset_for(offset)
    }
    fn read_from(&self, from: i64, max_bytes: u64) -> Result<Batches> {
        let mut chunk = Vec::new();
        self.log().for_each_batch_from(from, |seg, batch| {
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
        Ok(Batches(chunk))
    }
    fn append_fetched(&mut self, chunk: &Batches) -> Result<Copied> {
        let mut copied = Copied::default();
        // A follower's append updates its producer state and writes the aborted-index entry of
        // each transaction an ABORT marker it copies ends, as the leader's did
        // (`UnifiedLog.append` for replication too). Only a chunk with a marker replays it.
        let marker = BatchIter::new(&chunk.0).any(|b| b.header().is_some_and(|h| h.is_control() && h.producer_id >= 0));
        let mut producers = if marker { Some(self.log().producer_state_at(self.log_end_offset())?) } else { None };
        for batch in BatchIter::new(&chunk.0) {
            self.log_mut().append_batch(batch)?;
            // A batch Kafka's producer state would refuse ends the replay (no entry guessed).
            match producers.as_mut().map(|p| p.apply(&batch)) {
                Some(Ok(Some((c, last_stable)))) if c.is_aborted => self.log().write_aborted_txn(&c, last_stable)?,
                Some(Err(_)) => producers = None,
                _ => {}
            }
            copied.batches += 1;
            copied.records += batch.header().map_or(1, |h| h.records_count.max(0) as u64);
            copied.bytes += batch.size_bytes() as u64;
        }
        self.finish_writes()?;
        Ok(copied)
    }
    fn flush(&mut self) -> Result<()> {
        Replica::flush(self)
    }
    fn records(&self, from: i64, to: i64) -> Result<Records> {
        RecordCursor::new(self.log(), from, to).map(Records)
    }
}

/// What the fencing rules look at in `follower`, with respect to `leader`.
pub fn follower_facts(follower: &Replica, leader: &Replica, empty: bool) -> FollowerFacts {
    let state = follower.state();
    FollowerFacts {
        largest_seen: follower.largest_known_epoch(),
        running: state.map(|s| (s.role, s.leader_epoch)),
        follows_this_leader: state
            .is_some_and(|s| s.role == Role::Follower && s.leader.as_deref() == Some(leader.identity().as_str())),
        empty,
    }
}

/// A fencing refusal as an error naming the replica it concerns.
pub fn fenced(leader: &Replica, follower: &Replica, why: &Fenced) -> Error {
    match why {
        Fenced::StaleLeader { leader_epoch, seen } => Error::state(
            &leader.paths().log_dir,
            format!(
                "leader epoch {leader_epoch} is below epoch {seen} that {} has seen (FENCED_LEADER_EPOCH): refusing; \
                 elect it again with the other in its ISR (`klog elect {} --isr {}` takes an epoch above \
                 every one they have seen), or fetch with --no-fencing (Kafka before KIP-320)",
                follower.paths().log_dir.display(),
                leader.paths().log_dir.display(),
                follower.paths().log_dir.display()
            ),
        ),
        Fenced::NotAboveCurrent { role, current, leader_epoch } => Error::state(
            &follower.paths().log_dir,
            format!(
                "is running as {} at leader epoch {current}: a leader change to epoch {leader_epoch} is not above it, \
                 so a broker would ignore it (stop or crash it first to restart it as a follower)",
                role.name()
            ),
        ),
        Fenced::LeaderBehind { running, told } => Error::state(
            &leader.paths().log_dir,
            format!(
                "leads at epoch {running}, not yet at --leader-epoch {told}: from KIP-320 (Kafka 2.1) it answers \
                 UNKNOWN_LEADER_EPOCH and {} retries once it has taken it; elect it first (`klog elect {} --epoch \
                 {told}`), or add --no-fencing (before KIP-320, it answers from the log it has)",
                follower.paths().log_dir.display(),
                leader.paths().log_dir.display()
            ),
        ),
    }
}
