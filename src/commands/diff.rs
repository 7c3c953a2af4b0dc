//! `klog diff A B`: two replicas compared offset by offset. Never writes.

use crate::error::Result;
use crate::replica::open_compared;
use crate::replica::Replica;
use crate::replica::{summarize, ReplicaSummary};
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

impl DiffReport {
    /// Whether the first divergence is at a batch that does not decode (no record to compare).
    pub fn diverges_at_undecodable_batch(&self) -> bool {
        let o = &self.outcome;
        o.first_difference.is_none()
            && o.first_divergent_offset.is_some_and(|at| o.undecodable.iter().any(|(_, u)| u.base_offset == at))
    }
}

pub fn run(a: &Path, b: &Path, partition: Option<&str>) -> Result<DiffReport> {
    let ra = Replica::open(a, partition)?;
    let (rb, warnings) = open_compared(&ra, b, partition, "B")?;
    let outcome = diff_logs(ra.log(), rb.log())?;
    Ok(DiffReport { a: summarize(&ra), b: summarize(&rb), outcome, warnings })
}
