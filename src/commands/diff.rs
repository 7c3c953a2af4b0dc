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
}

pub fn run(a: &Path, b: &Path, partition: Option<&str>) -> Result<DiffReport> {
    let ra = Replica::open(a, partition)?;
    let rb = Replica::open(b, Some(&ra.paths.name())).or_else(|_| Replica::open(b, partition))?;
    ra.ensure_same_partition(&rb)?;
    let outcome = diff_logs(&ra.log, &rb.log)?;
    Ok(DiffReport { a: summarize(&ra), b: summarize(&rb), outcome })
}
