//! `klog txn`: what holds a partition's last stable offset. Opens the replica read-only,
//! forecasts the load a broker would run on it (the producer snapshots it deletes and
//! writes), and hands the log to [`crate::log::transactions`]. Never writes.

use super::summary::{summarize, ReplicaSummary};
use crate::error::Result;
use crate::log::transactions::{read_transactions, Transactions};
use crate::replica::Replica;
use std::path::Path;

pub struct TxnReport {
    pub summary: ReplicaSummary,
    /// The high watermark a broker starts with (the checkpoint, clamped by its load).
    pub high_watermark: i64,
    /// Whether a broker would load the dir first (it is not a running klog replica).
    pub loads: bool,
    pub transactions: Transactions,
}

impl TxnReport {
    pub fn last_stable_offset(&self) -> i64 {
        self.transactions.last_stable_offset(self.high_watermark)
    }

    pub fn is_clean(&self) -> bool {
        self.transactions.findings.is_empty()
    }
}

pub fn run(dir: &Path, partition: Option<&str>) -> Result<TxnReport> {
    let mut replica = Replica::open(dir, partition)?;
    let summary = summarize(&replica);
    let load = replica.preview_start()?;
    let start = load.as_ref().and_then(|r| r.producer_rebuild_start.as_ref());
    let transactions = read_transactions(replica.log(), replica.log_start_offset(), start)?;
    Ok(TxnReport { summary, high_watermark: replica.high_watermark(), loads: load.is_some(), transactions })
}
