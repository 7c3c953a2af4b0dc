//! `klog diff A B`: two replicas compared offset by offset, or only the offsets `--from` /
//! `--to` bound (records at those offsets included, as `dump --from --to`). Never writes.
//!
//! No time filter: the same offset may carry another timestamp on each side (diverged records),
//! so a time window is no one set of offsets to compare; `dump --since` finds the offsets.

use crate::error::{Error, Result};
use crate::replica::open_compared;
use crate::replica::Replica;
use crate::replica::{summarize, ReplicaSummary};
use crate::replication::diff::{diff_logs_within, DiffOutcome};
use std::path::Path;

#[derive(Debug)]
pub struct DiffReport {
    pub a: ReplicaSummary,
    pub b: ReplicaSummary,
    pub outcome: DiffOutcome,
    /// Why the two may not be replicas of one partition at all (another cluster, another topic
    /// of the same name, a cluster id only one side records).
    pub warnings: Vec<String>,
    /// The offsets compared when `--from` / `--to` bound them.
    pub window: OffsetWindow,
}

/// `--from` / `--to`: the first and last offsets compared (both included); `None` is no bound.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct OffsetWindow {
    pub from: Option<i64>,
    pub to: Option<i64>,
}

impl OffsetWindow {
    /// Whether either bound is given.
    pub fn is_bounded(&self) -> bool {
        self.from.is_some() || self.to.is_some()
    }

    /// Refuse `--from` above `--to` (an empty window is a mistake, not an identical diff).
    pub fn check(&self) -> Result<()> {
        match (self.from, self.to) {
            (Some(f), Some(t)) if f > t => Err(Error::Usage(format!(
                "--from {f} is above --to {t}: no offset lies between them; give --from at or below --to"
            ))),
            _ => Ok(()),
        }
    }
}

impl DiffReport {
    /// Whether the first divergence is at a batch that does not decode (no record to compare).
    pub fn diverges_at_undecodable_batch(&self) -> bool {
        let o = &self.outcome;
        o.first_difference.is_none()
            && o.first_divergent_offset.is_some_and(|at| o.undecodable.iter().any(|(_, u)| u.base_offset == at))
    }
}

pub fn run(a: &Path, b: &Path, partition: Option<&str>, window: OffsetWindow) -> Result<DiffReport> {
    window.check()?;
    let ra = Replica::open(a, partition)?;
    let (rb, warnings) = open_compared(&ra, b, partition, "B")?;
    let end = window.to.map_or(i64::MAX, |t| t.saturating_add(1));
    let outcome = diff_logs_within(ra.log(), rb.log(), window.from, end)?;
    Ok(DiffReport { a: summarize(&ra), b: summarize(&rb), outcome, warnings, window })
}
