//! A batch's place in a transaction, as a `read_committed` consumer sees it: open (no marker
//! has ended its transaction yet), aborted, committed, or a marker; and what a picture draws of
//! a replica's transactions. The demo's stuck-lso scene, the lab and the picture renderers
//! (`output/picture.rs`, `output/txn_picture.rs`) all name these types from here. Pure.

use super::transactions::Transactions;

/// A batch's place in a transaction, as a `read_committed` consumer sees it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TxnKind {
    /// A transactional batch whose transaction no marker has ended yet.
    Open,
    /// A transactional batch an ABORT marker ended: never delivered to `read_committed`.
    Aborted,
    /// A transactional batch a COMMIT marker ended.
    Committed,
    /// A COMMIT (true) or ABORT marker (a control batch).
    Marker { commit: bool },
}

/// One batch of a producer with an id, and its place.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TxnBatch {
    pub base_offset: i64,
    pub last_offset: i64,
    pub producer_id: i64,
    pub kind: TxnKind,
}

/// What the picture draws of a replica's transactions.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TxnView {
    /// The LSO `klog txn` computes, drawn only on the picture of a `klog txn` step (elsewhere
    /// it would answer the question that step asks).
    pub last_stable_offset: Option<i64>,
    pub batches: Vec<TxnBatch>,
}

/// The place of a transactional data batch of `producer_id` at `base_offset` in the log whose
/// transactions are `t`: open when the broker holds its producer's transaction open from at or
/// before it, aborted when an aborted transaction of its producer covers it (the `.txnindex`
/// entries Kafka writes), committed otherwise.
pub fn place_of_data(t: &Transactions, producer_id: i64, base_offset: i64) -> TxnKind {
    if t.broker_open.iter().any(|o| o.producer_id == producer_id && o.first_offset <= base_offset) {
        TxnKind::Open
    } else if t
        .aborted
        .iter()
        .any(|(_, a)| a.producer_id == producer_id && (a.first_offset..=a.last_offset).contains(&base_offset))
    {
        TxnKind::Aborted
    } else {
        TxnKind::Committed
    }
}
