//! Whole broker data dirs: the questions an operator asks of every partition at once — "if this
//! broker restarts as a follower of that one, what does each partition truncate and lose?",
//! "what will the loader cut after this unclean shutdown?", "where do these two brokers' copies
//! diverge?". Each answer is the single-partition command run on every partition (the same
//! code, so a data-dir plan never disagrees with a per-partition run), spread over the cores,
//! in a stable order. Never writes.

use super::recover::{self, FollowerRecoverReport, LocalRecoverReport, RecoverReport, RecoverRequest};
use crate::error::{Error, Result};
use crate::replica::{list_partition_dirs, looks_like_partition_dir, Replica};
use crate::replication::diff::{diff_logs, DiffOutcome};
use crate::replication::truncation::TruncationMode;
use std::path::Path;

/// Whether `path` is a log dir holding more than one partition: the data-dir forms apply.
pub fn holds_several_partitions(path: &Path) -> bool {
    !looks_like_partition_dir(path) && list_partition_dirs(path).is_ok_and(|d| d.len() > 1)
}

/// Partition names of a log dir, in natural order.
fn partition_names(dir: &Path) -> Result<Vec<String>> {
    Ok(list_partition_dirs(dir)?
        .iter()
        .filter_map(|d| d.file_name().map(|n| n.to_string_lossy().into_owned()))
        .collect())
}

/// One partition's answer, or why it has none (a refusal is a per-partition finding here).
#[derive(Debug)]
pub struct PartitionOutcome<T> {
    pub partition: String,
    pub outcome: std::result::Result<T, String>,
}

/// `recover --dry-run --leader L F` over every partition F and L both hold.
#[derive(Debug)]
pub struct RestartPlan {
    pub leader_dir: String,
    pub follower_dir: String,
    pub mode: TruncationMode,
    pub partitions: Vec<PartitionOutcome<Box<FollowerRecoverReport>>>,
    /// Partitions only one side holds: (name, which side).
    pub one_side: Vec<(String, &'static str)>,
}

impl RestartPlan {
    /// Acked records the restart would lose, over every partition.
    pub fn acked_lost(&self) -> u64 {
        self.partitions.iter().filter_map(|p| p.outcome.as_ref().ok()).map(|r| r.counts.acked_lost).sum()
    }
}

/// Run `f` over `items` on up to two threads per core, results in the items' order.
pub fn parallel_map<T: Sync, R: Send>(items: &[T], f: impl Fn(&T) -> R + Sync) -> Vec<R> {
    let threads = std::thread::available_parallelism().map_or(2, |n| n.get()).min(items.len()).max(1);
    let next = std::sync::atomic::AtomicUsize::new(0);
    let slots: Vec<std::sync::Mutex<Option<R>>> = items.iter().map(|_| std::sync::Mutex::new(None)).collect();
    std::thread::scope(|scope| {
        for _ in 0..threads {
            scope.spawn(|| loop {
                let i = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                let Some(item) = items.get(i) else { break };
                let r = f(item);
                *slots[i].lock().unwrap_or_else(|e| e.into_inner()) = Some(r);
            });
        }
    });
    slots.into_iter().map(|s| s.into_inner().unwrap_or_else(|e| e.into_inner()).expect("every item ran")).collect()
}

/// The restart plan of follower data dir `f` against leader data dir `l`: per partition they
/// share, where `f` would truncate and what it would lose (the dry run of `recover --leader`).
pub fn restart_plan(l: &Path, f: &Path, mode: TruncationMode, context: i64) -> Result<RestartPlan> {
    let (ln, fnames) = (partition_names(l)?, partition_names(f)?);
    let common: Vec<String> = fnames.iter().filter(|n| ln.contains(n)).cloned().collect();
    let mut one_side: Vec<(String, &'static str)> =
        ln.iter().filter(|n| !fnames.contains(n)).map(|n| (n.clone(), "leader")).collect();
    one_side.extend(fnames.iter().filter(|n| !ln.contains(n)).map(|n| (n.clone(), "follower")));
    let partitions = parallel_map(&common, |name| {
        let req = RecoverRequest {
            dir: f,
            partition: Some(name),
            leader: Some(l),
            mode,
            dry_run: true,
            catch_up: false,
            context,
        };
        let outcome = match recover::run(&req) {
            Ok(RecoverReport::Follower(r)) => Ok(r),
            Ok(RecoverReport::Local(_)) => Err("no leader".to_string()),
            Err(e) => Err(refusal(&e)),
        };
        PartitionOutcome { partition: name.clone(), outcome }
    });
    Ok(RestartPlan {
        leader_dir: l.display().to_string(),
        follower_dir: f.display().to_string(),
        mode,
        partitions,
        one_side,
    })
}

/// A per-partition error as one line without the path prefix the partition name replaces.
fn refusal(e: &Error) -> String {
    match e {
        Error::Layout { what, .. } | Error::State { what, .. } => what.clone(),
        other => other.to_string(),
    }
}

/// `recover --dry-run DATA_DIR`: what a broker's loader would scan and cut in every partition
/// after an unclean shutdown.
pub fn local_forecast(dir: &Path) -> Result<Vec<PartitionOutcome<LocalRecoverReport>>> {
    let names = partition_names(dir)?;
    Ok(parallel_map(&names, |name| {
        let req = RecoverRequest {
            dir,
            partition: Some(name),
            leader: None,
            mode: TruncationMode::Kip279,
            dry_run: true,
            catch_up: false,
            context: 0,
        };
        let outcome = match recover::run(&req) {
            Ok(RecoverReport::Local(r)) => Ok(r),
            Ok(RecoverReport::Follower(_)) => Err("unexpected follower report".to_string()),
            Err(e) => Err(refusal(&e)),
        };
        PartitionOutcome { partition: name.clone(), outcome }
    }))
}

/// `diff DATA_DIR_A DATA_DIR_B`: every partition paired by name.
#[derive(Debug)]
pub struct DataDirDiff {
    pub a: String,
    pub b: String,
    pub partitions: Vec<PartitionOutcome<DiffOutcome>>,
    pub one_side: Vec<(String, &'static str)>,
    /// Why the two dirs may not be copies of one cluster's partitions.
    pub warnings: Vec<String>,
}

impl DataDirDiff {
    /// Any partition diverging, failing to compare, or held by one side only.
    pub fn differs(&self) -> bool {
        !self.one_side.is_empty()
            || self.partitions.iter().any(|p| p.outcome.as_ref().map_or(true, |d| !d.identical_up_to_shorter()))
    }
}

pub fn diff_data_dirs(a: &Path, b: &Path) -> Result<DataDirDiff> {
    let (an, bn) = (partition_names(a)?, partition_names(b)?);
    let common: Vec<String> = an.iter().filter(|n| bn.contains(n)).cloned().collect();
    let mut one_side: Vec<(String, &'static str)> =
        an.iter().filter(|n| !bn.contains(n)).map(|n| (n.clone(), "A")).collect();
    one_side.extend(bn.iter().filter(|n| !an.contains(n)).map(|n| (n.clone(), "B")));
    let mut warnings = Vec::new();
    let partitions = parallel_map(&common, |name| {
        let pair = Replica::open(a, Some(name)).and_then(|ra| Ok((ra, Replica::open(b, Some(name))?)));
        let outcome = match pair {
            Ok((ra, rb)) => {
                let warnings = super::diff::pair_warnings(&ra, &rb);
                diff_logs(&ra.log, &rb.log).map(|d| (d, warnings)).map_err(|e| refusal(&e))
            }
            Err(e) => Err(refusal(&e)),
        };
        (name.clone(), outcome)
    })
    .into_iter()
    .map(|(partition, outcome)| {
        let outcome = outcome.map(|(d, found)| {
            for w in found {
                if !warnings.contains(&w) {
                    warnings.push(w);
                }
            }
            d
        });
        PartitionOutcome { partition, outcome }
    })
    .collect();
    Ok(DataDirDiff { a: a.display().to_string(), b: b.display().to_string(), partitions, one_side, warnings })
}
