//! `klog txn`: what holds a partition's last stable offset. Opens the replica read-only,
//! forecasts the load a broker would run on it (the producer snapshots it deletes and
//! writes), and hands the log to [`crate::log::transactions`]. Never writes.

use crate::error::Result;
use crate::log::transaction_coordinator::{read_coordinator_log, verdict, Verdict};
use crate::log::transactions::{read_transactions, Transactions};
use crate::replica::Replica;
use crate::replica::{summarize, ReplicaSummary};
use std::path::Path;

pub struct TxnReport {
    pub summary: ReplicaSummary,
    /// The high watermark a broker starts with (the checkpoint, clamped by its load).
    pub high_watermark: i64,
    /// Whether a broker would load the dir first (it is not a running klog replica).
    pub loads: bool,
    pub transactions: Transactions,
    /// For each of the broker's open transactions, what the coordinator's log says of it, when
    /// `__transaction_state` partitions were read beside it (the data-dir form).
    pub coordinator: Vec<Verdict>,
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
    report(Replica::open(dir, partition)?)
}

/// Every partition of a log dir (a broker's data dir), on both cores.
pub struct DataDirTxn {
    pub dir: String,
    /// The `__transaction_state` partitions read (their names), and the transactional.ids
    /// their records hold; none read when the dir holds no such partition.
    pub coordinator_logs: Vec<String>,
    pub transactional_ids: usize,
    /// By partition name, in natural order: the report, or why the partition could not be read.
    pub partitions: Vec<(String, std::result::Result<TxnReport, String>)>,
}

impl DataDirTxn {
    pub fn is_clean(&self) -> bool {
        self.partitions.iter().all(|(_, r)| r.as_ref().is_ok_and(TxnReport::is_clean))
    }
}

pub fn run_data_dir(dir: &Path, progress: &mut dyn crate::parallel::ProgressSink) -> Result<DataDirTxn> {
    let files = crate::replica::LogDirFiles::read_tolerant(dir)?;
    let names: Vec<String> = crate::replica::list_partition_dirs(dir)?
        .iter()
        .filter_map(|d| d.file_name().map(|n| n.to_string_lossy().into_owned()))
        .collect();
    let mut reports = crate::parallel::parallel_map(
        &names,
        |name| Replica::open_in(&files, name).and_then(report).map_err(|e| e.to_string()),
        progress,
    );
    // The transaction coordinator's logs among the partitions: find-hanging's rule on each
    // open transaction.
    let coordinator_logs: Vec<String> =
        names.iter().filter(|n| n.starts_with(TRANSACTION_STATE_PREFIX)).cloned().collect();
    let mut txns = std::collections::BTreeMap::new();
    for name in &coordinator_logs {
        let replica = Replica::open_in(&files, name)?;
        txns.extend(read_coordinator_log(replica.log(), name)?.0);
    }
    if !coordinator_logs.is_empty() {
        for r in reports.iter_mut().flatten() {
            let (topic, partition) = (r.summary.topic.clone(), r.summary.partition);
            r.coordinator =
                r.transactions.broker_open.iter().map(|o| verdict(&txns, o.producer_id, &topic, partition)).collect();
        }
    }
    Ok(DataDirTxn {
        dir: dir.display().to_string(),
        coordinator_logs,
        transactional_ids: txns.len(),
        partitions: names.into_iter().zip(reports).collect(),
    })
}

/// The transaction coordinator's topic.
const TRANSACTION_STATE_PREFIX: &str = "__transaction_state-";

fn report(mut replica: Replica) -> Result<TxnReport> {
    let summary = summarize(&replica);
    let load = replica.preview_start()?;
    let start = load.as_ref().and_then(|r| r.producer_rebuild_start.as_ref());
    let transactions = read_transactions(replica.log(), replica.log_start_offset(), start)?;
    Ok(TxnReport {
        summary,
        high_watermark: replica.high_watermark(),
        loads: load.is_some(),
        transactions,
        coordinator: Vec::new(),
    })
}
