//! The transaction side of `klog demo stuck-lso`: what the picture shades (each batch's place
//! in a transaction, read from the batch headers beside `klog txn`'s report), the Predict
//! questions of a `klog txn` step (answered from that report), and the admin abort of
//! `kafka-transactions.sh abort --start-offset N` resolved the way `TransactionsCommand`'s
//! `buildAbortSpec` resolves it; and what holds the LSO, in words (the demo's answers and the
//! lab's frames). Never prints; never writes (the abort's marker is written by `append`, as the
//! demo's step runs it).

use crate::commands::txn::TxnReport;
use crate::error::Result;
use crate::format::batch::BatchIter;
use crate::replica::Replica;
use crate::txn::batch_place::place_of_data;
use std::path::Path;

// The types live with the transaction rules; the demo and the lab name them from here.
pub use crate::txn::batch_place::{TxnBatch, TxnKind, TxnView};

/// The transactional batches and markers of the replica at `dir` with their places, from its
/// `klog txn` report; `None` when the log holds neither (a picture without transactions stays
/// as it was).
pub fn txn_view(dir: &Path, report: &TxnReport) -> Result<Option<TxnView>> {
    let replica = Replica::open(dir, None)?;
    let t = &report.transactions;
    let mut batches = Vec::new();
    for segment in replica.log().segments() {
        let bytes = segment.read_log()?;
        for batch in BatchIter::new(&bytes) {
            let Some(h) = batch.header() else { continue };
            if h.producer_id < 0 || !(h.is_transactional() || h.is_control()) {
                continue;
            }
            let kind = if h.is_control() {
                // The control record's key: version, then type (0 ABORT, 1 COMMIT).
                let type_id = batch.records().ok().and_then(|d| {
                    let records = d.decode().ok()?;
                    crate::format::control::decode_type_id(records.first()?.key).ok()
                });
                TxnKind::Marker { commit: type_id == Some(1) }
            } else {
                place_of_data(t, h.producer_id, h.base_offset)
            };
            batches.push(TxnBatch {
                base_offset: h.base_offset,
                last_offset: h.last_offset(),
                producer_id: h.producer_id,
                kind,
            });
        }
    }
    if batches.is_empty() {
        return Ok(None);
    }
    Ok(Some(TxnView { last_stable_offset: None, batches }))
}

/// Why `report`'s LSO is where it is, in one sentence: the open transaction that holds it, a
/// marker the HW does not cover yet, or nothing (the LSO is the HW).
pub fn what_holds_the_lso(report: &TxnReport) -> String {
    let (lso, hw) = (report.last_stable_offset(), report.high_watermark);
    match report.transactions.broker_open.first() {
        Some(o) if o.first_offset == lso => format!(
            "producer {}'s transaction is open from offset {} (no marker has ended it): the LSO is the first offset \
             of the earliest open transaction, bounded by the HW {hw}",
            o.producer_id, o.first_offset
        ),
        _ if lso < hw => format!(
            "the marker that ended the transaction starting at {lso} is not below the HW {hw} yet: until the \
             followers have it, Kafka keeps that transaction unstable (ProducerStateManager's unreplicated \
             transactions), so the LSO stays at {lso}"
        ),
        _ => format!("no transaction is open or waiting for its marker to replicate: the LSO is the HW, {hw}"),
    }
}

/// What `kafka-transactions.sh abort --topic T --partition P --start-offset N` sends: the
/// producer whose current transaction starts at N (`DescribeProducers`), its epoch, and its
/// coordinator epoch — 0 when it has none (-1: no marker was ever written for it), "less than or
/// equal to any possible leader epoch" (`TransactionsCommand.AbortTransactionCommand`). The
/// broker writes the ABORT marker with them (`WriteTxnMarkers`), which its producer state
/// accepts because the marker's coordinator epoch is not below the producer's.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AbortSpec {
    pub topic: String,
    pub partition: i32,
    pub start_offset: i64,
    pub producer_id: i64,
    pub producer_epoch: i16,
    /// The producer's coordinator epoch as `DescribeProducers` reports it (-1 for none).
    pub described_coordinator_epoch: i32,
    /// The one the marker carries.
    pub coordinator_epoch: i32,
}

/// The abort of the earliest open transaction of `report` (the one holding the LSO), or `None`
/// when no transaction is open.
pub fn abort_spec(report: &TxnReport) -> Option<AbortSpec> {
    let t = &report.transactions;
    let open = t.broker_open.first()?;
    // DescribeProducers' active producers, matched on currentTransactionStartOffset.
    let producer = t.producers.iter().find(|p| p.current_txn_first_offset == open.first_offset)?;
    Some(AbortSpec {
        topic: report.summary.topic.clone(),
        partition: report.summary.partition,
        start_offset: open.first_offset,
        producer_id: producer.producer_id,
        producer_epoch: producer.producer_epoch,
        described_coordinator_epoch: producer.coordinator_epoch,
        coordinator_epoch: producer.coordinator_epoch.max(0),
    })
}
