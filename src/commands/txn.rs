//! `klog txn`: what holds a partition's last stable offset. Opens the replica read-only,
//! forecasts the load a broker would run on it (the producer snapshots it deletes and
//! writes), and hands the log to [`crate::txn::transactions`]. Never writes.

use crate::error::Result;
use crate::log::verify::Finding;
use crate::replica::Replica;
use crate::replica::{summarize, ReplicaSummary};
use crate::txn::coordinator::{read_coordinator_log, verdict, ByProducer, Verdict};
use crate::txn::find_hanging::{find_hanging, Hanging, PartitionTxns};
use crate::txn::transactions::{read_transactions, Transactions};
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
    report(&|| Replica::open(dir, partition))
}

/// Every partition of a log dir (a broker's data dir).
pub struct DataDirTxn {
    pub dir: String,
    /// By partition name, in natural order: the report, or why the partition could not be read.
    pub partitions: Vec<(String, std::result::Result<TxnReport, String>)>,
}

impl DataDirTxn {
    pub fn is_clean(&self) -> bool {
        self.partitions.iter().all(|(_, r)| r.as_ref().is_ok_and(TxnReport::is_clean))
    }
}

/// One or several brokers' data dirs read together: the transaction coordinator's
/// `__transaction_state` partitions found among them all judge every open transaction.
pub struct DataDirsTxn {
    pub dirs: Vec<DataDirTxn>,
    /// The `__transaction_state` partitions read, each with the dir its furthest-along replica
    /// (largest log end offset) came from; none when no dir holds one.
    pub coordinator_logs: Vec<(String, String)>,
    /// How many transactional.ids their records hold.
    pub transactional_ids: usize,
}

impl DataDirsTxn {
    pub fn is_clean(&self) -> bool {
        self.dirs.iter().all(DataDirTxn::is_clean)
    }
}

/// `klog txn DATA_DIR...`: every partition of each dir (or only `only` in each), on both cores;
/// then find-hanging's rule on each open transaction from the coordinator's logs among the dirs.
pub fn run_data_dirs(
    dirs: &[&Path],
    only: Option<&str>,
    progress: &mut dyn crate::parallel::ProgressSink,
) -> Result<DataDirsTxn> {
    let mut read = Vec::new();
    // The coordinator's partitions: by name, the furthest-along replica among the dirs.
    let mut furthest: std::collections::BTreeMap<String, (i64, usize)> = std::collections::BTreeMap::new();
    for (d, dir) in dirs.iter().enumerate() {
        let files = crate::replica::LogDirFiles::read_tolerant(dir)?;
        let names: Vec<String> = crate::replica::list_partition_dirs(dir)?
            .iter()
            .filter_map(|d| d.file_name().map(|n| n.to_string_lossy().into_owned()))
            .collect();
        for name in names.iter().filter(|n| n.starts_with(TRANSACTION_STATE_PREFIX)) {
            let end = Replica::open_in(&files, name)?.log().log_end_offset();
            let best = furthest.entry(name.clone()).or_insert((end, d));
            if end > best.0 {
                *best = (end, d);
            }
        }
        let shown: Vec<String> = names.into_iter().filter(|n| only.is_none_or(|o| o == n)).collect();
        let reports = crate::parallel::parallel_map(
            &shown,
            |name| report(&|| Replica::open_in(&files, name)).map_err(|e| e.to_string()),
            progress,
        );
        read.push((
            files,
            DataDirTxn { dir: dir.display().to_string(), partitions: shown.into_iter().zip(reports).collect() },
        ));
    }
    let mut txns = std::collections::BTreeMap::new();
    let mut coordinator_logs = Vec::new();
    for (name, (_, d)) in &furthest {
        let replica = Replica::open_in(&read[*d].0, name)?;
        txns.extend(read_coordinator_log(replica.log(), name)?.0);
        coordinator_logs.push((name.clone(), read[*d].1.dir.clone()));
    }
    let mut out: Vec<DataDirTxn> = read.into_iter().map(|(_, t)| t).collect();
    if !coordinator_logs.is_empty() {
        let by_producer = ByProducer::new(&txns);
        for r in out.iter_mut().flat_map(|d| d.partitions.iter_mut()).filter_map(|(_, r)| r.as_mut().ok()) {
            let (topic, partition) = (r.summary.topic.clone(), r.summary.partition);
            r.coordinator = r
                .transactions
                .broker_open
                .iter()
                .map(|o| verdict(&by_producer, o.producer_id, &topic, partition))
                .collect();
        }
    }
    Ok(DataDirsTxn { dirs: out, coordinator_logs, transactional_ids: txns.len() })
}

/// The transaction coordinator's topic.
const TRANSACTION_STATE_PREFIX: &str = "__transaction_state-";

/// The report of the replica `open` opens (read-only). A log a broker cannot load is a finding
/// (as `check` and `recover --dry-run` say it): the report is then of the files as they are,
/// replayed from the latest producer snapshot as a running replica's, opened again (the
/// forecast stopped part way).
fn report(open: &dyn Fn() -> Result<Replica>) -> Result<TxnReport> {
    let mut replica = open()?;
    let summary = summarize(&replica);
    let (load, refusal) = match replica.preview_start() {
        Ok(load) => (load, None),
        Err(e) => match crate::replica::load_refusal(&e) {
            Some(finding) => {
                replica = open()?;
                (None, Some(finding))
            }
            None => return Err(e),
        },
    };
    let state = load.as_ref().and_then(|r| r.producer_rebuild_start.as_ref().zip(r.producers_after_load.as_ref()));
    let mut transactions = read_transactions(replica.log(), replica.log_start_offset(), state)?;
    transactions.findings.splice(0..0, refusal);
    // What did not read (a checkpoint, `meta.properties`, a name Kafka reads that is not a
    // regular file) is a finding on its path, as `check` reports it; the rest is read.
    let problems =
        replica.problems().iter().map(|p| Finding::new(&p.path, p.position, None, p.what.clone()).on_line(p.line));
    transactions.findings.splice(0..0, problems);
    if let Some(load) = &load {
        transactions.unstable_reported = load.unstable_reported.clone();
    }
    Ok(TxnReport {
        summary,
        high_watermark: replica.high_watermark(),
        loads: load.is_some(),
        transactions,
        coordinator: Vec::new(),
    })
}

impl DataDirsTxn {
    /// find-hanging's rows ([`crate::txn::find_hanging`]) over every partition read: the open
    /// transactions older than `max_timeout_ms` at `now_ms` that the coordinator's log does not
    /// expect.
    pub fn hanging(&self, now_ms: i64, max_timeout_ms: i64) -> Vec<Hanging> {
        let partitions = self.dirs.iter().flat_map(|d| d.partitions.iter()).filter_map(|(_, t)| t.as_ref().ok());
        let partitions = partitions.map(|t| PartitionTxns {
            topic: &t.summary.topic,
            partition: t.summary.partition,
            producers: t.transactions.broker_producers(),
            open: &t.transactions.broker_open,
            verdicts: &t.coordinator,
        });
        find_hanging(partitions, now_ms, max_timeout_ms)
    }
}
