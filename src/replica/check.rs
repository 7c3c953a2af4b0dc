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

/// Check a replica opened read-only.
pub fn check_replica(replica: Replica, progress: &mut dyn ProgressSink) -> Result<CheckReport> {
    let verification =
        verify::verify_log(replica.log(), marks(&replica), &mut |done, total| progress.update(done, total))?;
    Ok(CheckReport { summary: summarize(&replica), verification })
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
    }
}
