//! `klog diff A B`: two replicas compared offset by offset, or only the offsets a window
//! bounds: `--from` / `--to` (records at those offsets included, as `dump --from --to`) and
//! `--since` / `--until` (a time window, turned into offsets as a consumer seeking by time
//! would: [`TimeWindow::offsets`]). Never writes.
//!
//! Only windows fit a diff: a key or value filter would hide records from the comparison and
//! with them a divergence, so `diff` has none.

use crate::commands::dump_filter::seek_since;
use crate::error::{Error, Result};
use crate::log::Log;
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
    /// The offsets compared when `--from` / `--to` (or `--since` / `--until`, resolved) bound
    /// them.
    pub window: OffsetWindow,
    /// `--since` / `--until` as given (ms since the epoch), when either was.
    pub times: TimeWindow,
}

/// `--since` / `--until`: records with a timestamp at or after `since` and before `until`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct TimeWindow {
    pub since: Option<i64>,
    pub until: Option<i64>,
}

impl TimeWindow {
    /// Whether either bound is given.
    pub fn is_bounded(&self) -> bool {
        self.since.is_some() || self.until.is_some()
    }

    /// Refuse `--since` at or after `--until` (an empty window is a mistake, not an identical diff).
    pub fn check(&self) -> Result<()> {
        match (self.since, self.until) {
            (Some(s), Some(u)) if s >= u => Err(Error::Usage(format!(
                "--since (ms {s}) is not before --until (ms {u}): no time lies between them; give --since \
                 before --until"
            ))),
            _ => Ok(()),
        }
    }

    /// The offsets the window covers on two logs, as ListOffsets by timestamp answers on each
    /// (the same time-index seek `dump --since` uses, [`seek_since`]): from the first offset at
    /// or after `since` on either side, to the last offset before the first at or after
    /// `until` on either side (the later of the two: a side whose every record is before
    /// `until` covers its whole log). Either side's records in the window are compared, so a
    /// divergence one side holds there is not missed; the two sides' timestamps at one offset
    /// may differ (diverged records), which is why both are sought. `None`: no record at or
    /// after `since` on either side, nothing to compare.
    pub fn offsets(&self, a: &Log, b: &Log) -> Result<Option<OffsetWindow>> {
        let mut window = OffsetWindow::default();
        if let Some(t) = self.since {
            match (seek_since(a, t)?, seek_since(b, t)?) {
                (None, None) => return Ok(None),
                (x, y) => window.from = x.into_iter().chain(y).min(),
            }
        }
        if let Some(t) = self.until {
            if let (Some(x), Some(y)) = (seek_since(a, t)?, seek_since(b, t)?) {
                // Offsets before the later first-at-or-after `until`; -1 when both start there.
                window.to = Some(x.max(y) - 1);
            }
        }
        Ok(Some(window))
    }
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

/// Compare `a` and `b` in `window` and `times` (both hold when both are given).
pub fn run(a: &Path, b: &Path, partition: Option<&str>, window: OffsetWindow, times: TimeWindow) -> Result<DiffReport> {
    window.check()?;
    times.check()?;
    let ra = Replica::open(a, partition)?;
    let (rb, warnings) = open_compared(&ra, b, partition, "B")?;
    let window = match times.offsets(ra.log(), rb.log())? {
        Some(w) => OffsetWindow {
            from: window.from.into_iter().chain(w.from).max(),
            to: window.to.into_iter().chain(w.to).min(),
        },
        // Nothing at or after --since: an empty window past both log ends.
        None => {
            let end = ra.log_end_offset().max(rb.log_end_offset());
            OffsetWindow { from: Some(end), to: Some(end - 1) }
        }
    };
    let start = window.from;
    let end = window.to.map_or(i64::MAX, |t| t.saturating_add(1));
    let outcome = if start.is_some_and(|f| f >= end) {
        diff_logs_within(ra.log(), rb.log(), Some(end), end)?
    } else {
        diff_logs_within(ra.log(), rb.log(), start, end)?
    };
    Ok(DiffReport { a: summarize(&ra), b: summarize(&rb), outcome, warnings, window, times })
}
