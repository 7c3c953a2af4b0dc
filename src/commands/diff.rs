//! `klog diff A B`: two replicas compared offset by offset. Never writes.

use super::dump::{summarize, ReplicaSummary};
use crate::error::Result;
use crate::replica::Replica;
use crate::replication::diff::{diff_logs, DiffOutcome};
use std::path::Path;

#[derive(Debug)]
pub struct DiffReport {
    pub a: ReplicaSummary,
    pub b: ReplicaSummary,
    pub outcome: DiffOutcome,
    /// Why the two may not be replicas of one partition at all (another cluster, another topic
    /// of the same name, a cluster id only one side records).
    pub warnings: Vec<String>,
}

pub fn run(a: &Path, b: &Path, partition: Option<&str>) -> Result<DiffReport> {
    let ra = Replica::open(a, partition)?;
    let rb = Replica::open(b, Some(&ra.paths.name())).or_else(|_| Replica::open(b, partition))?;
    if ra.paths.topic != rb.paths.topic || ra.paths.partition != rb.paths.partition {
        ra.ensure_same_partition(&rb)?;
    }
    let warnings = pair_warnings(&ra, &rb);
    let outcome = diff_logs(&ra.log, &rb.log)?;
    Ok(DiffReport { a: summarize(&ra), b: summarize(&rb), outcome, warnings })
}

/// Why two replicas of one partition name may not be copies of one partition: another cluster,
/// another topic of that name, or a cluster id only one side records.
pub fn pair_warnings(ra: &Replica, rb: &Replica) -> Vec<String> {
    let mut warnings: Vec<String> = ra.foreign_to(rb).map(|w| format!("B {w}")).into_iter().collect();
    if ra.cluster_id.is_some() != rb.cluster_id.is_some() {
        let (with, without) = if ra.cluster_id.is_some() { (ra, rb) } else { (rb, ra) };
        warnings.push(format!(
            "{} records no cluster.id but {} records {}: nothing says they are one cluster",
            without.paths.log_dir.display(),
            with.paths.log_dir.display(),
            with.cluster_id.as_deref().unwrap_or_default()
        ));
    }
    warnings
}
