//! What the replication procedures need of a replica: a small trait that the on-disk replica
//! (`replica/`) and the explorer's in-memory node (`explore/model.rs`) both implement, so that
//! becoming a leader ([`super::leader`]), becoming a follower ([`super::follower`]), one fetch
//! round ([`super::fetch`]) and classifying a window ([`super::classify`]) are written once —
//! the shape of tikv/raft-rs's `Raft<T: Storage>`, with Kafka's `Partition` as the content.
//!
//! A store is started (local recovery done) before a procedure runs on it; the procedures
//! never start one, because starting is where the two differ most (a crashed broker's log
//! recovery against a value copy).

use crate::error::Result;
use crate::log::epoch_cache::EpochCache;
use crate::replica::Role;

/// A running replica's role, leader epoch and (as a follower) its leader.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Running<Id> {
    pub role: Role,
    /// −1: started and told of no leader yet.
    pub leader_epoch: i32,
    pub leader: Option<Id>,
}

/// Whole batches one fetch returns (copied unchanged by the follower).
pub trait Chunk {
    /// The first batch's base and last offsets, if any.
    fn first_batch(&self) -> Option<(i64, i64)>;
}

/// One record as classification sees it: its offset, and whether another is the same batch.
pub trait Record: Clone {
    fn offset(&self) -> i64;
    fn same_batch(&self, other: &Self) -> bool;
}

/// Counts of what one append copied.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Copied {
    pub batches: u64,
    pub records: u64,
    pub bytes: u64,
}

pub trait Storage {
    /// How replicas name each other (a follower's leader, a leader's followers).
    type Id: Clone + PartialEq;
    /// An ISR entry as an election names it.
    type Member;
    type Chunk: Chunk;
    type Record: Record;
    /// A cursor over records, oldest first.
    type Records<'a>: Iterator<Item = Result<Self::Record>>
    where
        Self: 'a;

    fn id(&self) -> Self::Id;
    fn log_start_offset(&self) -> i64;
    fn log_end_offset(&self) -> i64;
    fn high_watermark(&self) -> i64;
    fn epochs(&self) -> EpochCache;
    fn largest_seen(&self) -> Option<i32>;
    /// `None`: not running (crashed or stopped).
    fn running(&self) -> Option<Running<Self::Id>>;
    /// A leader's ISR members other than itself: each one's latest fetch offset since the
    /// election (`None`: not fetched yet).
    fn isr_fetch_offsets(&self) -> Vec<Option<i64>>;
    /// The topic's min.insync.replicas.
    fn min_insync_replicas(&self) -> usize;

    /// Run as leader at `leader_epoch` with `isr` (fetch offsets reset).
    fn set_leader(&mut self, leader_epoch: i32, isr: Vec<Self::Member>);
    /// Run as `leader`'s follower at `leader_epoch` (ISR and fetch offsets cleared).
    /// As a leader, take `isr` (the leader itself not in it) as its ISR; keeps its epoch and
    /// the fetch offsets it recorded.
    fn set_isr(&mut self, isr: Vec<Self::Member>);
    fn set_follower(&mut self, leader: Self::Id, leader_epoch: i32);
    fn record_follower_fetch(&mut self, follower: Self::Id, fetch_offset: i64);
    /// Make the running state durable (the on-disk replica's state file).
    fn save(&mut self) -> Result<()>;
    fn note_epoch_seen(&mut self, leader_epoch: i32) -> Result<()>;
    fn assign_epoch(&mut self, leader_epoch: i32, start_offset: i64) -> Result<()>;
    fn set_high_watermark(&mut self, high_watermark: i64) -> Result<()>;
    /// Cut the log at the batch boundary at or below `offset` (`UnifiedLog.truncateTo`): the
    /// epoch cache from the end, the HW and recovery point no higher than the new end.
    /// Returns the new end.
    fn truncate_to(&mut self, offset: i64) -> Result<i64>;
    /// `truncateFullyAndStartAt(offset)`: an empty log at `offset`.
    fn restart_at(&mut self, offset: i64) -> Result<()>;
    /// Where [`Storage::truncate_to`] would cut, without cutting.
    fn cut_offset_for(&self, offset: i64) -> Result<i64>;
    /// Whole batches from the one holding `from`, at least one, at most `max_bytes` beyond it.
    fn read_from(&self, from: i64, max_bytes: u64) -> Result<Self::Chunk>;
    /// Append a fetched chunk unchanged.
    fn append_fetched(&mut self, chunk: &Self::Chunk) -> Result<Copied>;
    /// Make everything below the log end durable (the recovery point moves to it).
    fn flush(&mut self) -> Result<()>;
    /// Records at offsets `from .. to`.
    fn records(&self, from: i64, to: i64) -> Result<Self::Records<'_>>;
}
