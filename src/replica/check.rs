//! The check report of one replica: what [`crate::log::verify::verify_log`] finds in its log
//! (shared with `dump` and recovery), given the replica's marks, with its summary. `check`
//! runs it on one replica, and on each partition of a data dir or a cluster. Findings are
//! data; it fails only when it cannot read. Never writes.

use super::Replica;
use crate::error::Result;
use crate::log::names;
use crate::log::verify::{self, CheckpointMark, LogVerification, ReplicaMarks};
use crate::parallel::ProgressSink;
use crate::replica::{summarize, ReplicaSummary};

/// Something wrong, with the file and byte position where it is (the verifier's findings).
pub use crate::log::verify::Finding;

#[derive(Debug)]
pub struct CheckReport {
    pub summary: ReplicaSummary,
    /// The verifier's findings, notes and counts.
    pub verification: LogVerification,
}

impl CheckReport {
    pub fn is_clean(&self) -> bool {
        self.verification.findings.is_empty()
    }
}

/// Check a replica opened read-only: the verifier's findings on the files as they are, then
/// the load a broker would run on them (forecast, nothing written): a log Kafka cannot load is
/// a finding, as `txn` and `recover --dry-run` report it.
pub fn check_replica(mut replica: Replica, progress: &mut dyn ProgressSink) -> Result<CheckReport> {
    let mut verification =
        verify::verify_log(replica.log(), marks(&replica), &mut |done, total| progress.update(done, total))?;
    let summary = summarize(&replica);
    // A load refuses on damage the verifier reports, or where the producer-state rebuild
    // replays producer batches: only then is the forecast run (a log of plain batches without
    // findings loads; the forecast would double the work of checking a data dir). Other errors
    // of the forecast are not the verifier's: what they meet it reported above.
    let load_can_refuse = !verification.findings.is_empty() || verification.producer_batch_count > 0;
    if load_can_refuse {
        if let Err(e) = replica.preview_start() {
            verification.findings.extend(load_refusal(&e));
        }
    }
    Ok(CheckReport { summary, verification })
}

/// Whether `e` says that a Kafka broker refuses to start (rather than that klog cannot go on).
pub fn refuses_to_start(e: &crate::error::Error) -> bool {
    e.to_string().contains("refuses to start")
}

/// The finding a load refusal is on the file it names (at the byte position it names, when it
/// names one): one verdict for `check`, `txn` and `recover --dry-run` in every form.
pub fn load_refusal(e: &crate::error::Error) -> Option<Finding> {
    if !refuses_to_start(e) {
        return None;
    }
    let path = e.path()?;
    let text = e.to_string();
    let what = text.strip_prefix(&format!("{}: ", path.display())).unwrap_or(&text).to_string();
    let position = what
        .split("at position ")
        .nth(1)
        .and_then(|rest| rest.split(|c: char| !c.is_ascii_digit()).next())
        .and_then(|n| n.parse().ok())
        .unwrap_or(0);
    Some(Finding::new(path, position, None, what))
}

/// What the verifier needs of the replica beyond its log.
fn marks(replica: &Replica) -> ReplicaMarks {
    let load_problems = replica
        .problems()
        .iter()
        .map(|p| Finding::new(&p.path, p.position, None, p.what.clone()).on_line(p.line))
        .collect();
    ReplicaMarks {
        high_watermark: CheckpointMark {
            value: replica.high_watermark(),
            path: replica.paths().log_dir_file(names::REPLICATION_OFFSET_CHECKPOINT),
            line: replica.high_watermark_line(),
        },
        recovery_point: CheckpointMark {
            value: replica.recovery_point(),
            path: replica.paths().log_dir_file(names::RECOVERY_POINT_OFFSET_CHECKPOINT),
            line: replica.recovery_point_line(),
        },
        load_problems,
        known_not_compacted: replica.topic_config().is_some(),
        unclean_stop: !replica.clean_shutdown() && !replica.is_running(),
        log_start_below_local: replica.log_start_offset_below_local(),
    }
}
