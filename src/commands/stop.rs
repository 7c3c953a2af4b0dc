//! `klog stop`: a clean shutdown of a broker's log dir (Kafka `LogManager.shutdown`): each
//! selected partition is started if it needs recovery, closed, flushed, its recovery point moved
//! to its LEO and its checkpoints written; then `.kafka_cleanshutdown` is written, but only when
//! every partition of the dir is closed that way, because the marker is dir-wide: a broker that
//! finds it recovers none of the dir's logs.

use crate::durable;
use crate::error::Result;
use crate::log::names::CLEAN_SHUTDOWN_MARKER;
use crate::log::recovery::RecoveryReport;
use crate::replica::open_log_dir_for_write;
use std::path::Path;

#[derive(Debug)]
pub struct StopReport {
    pub already_stopped: bool,
    /// Partitions this stop closed.
    pub partitions_stopped: Vec<String>,
    pub log_end_offset: i64,
    pub high_watermark: i64,
    pub startup: Option<RecoveryReport>,
    /// Whether `.kafka_cleanshutdown` is now present.
    pub marker_written: bool,
    /// Partitions of the dir still open or unflushed, which keep the marker away.
    pub not_closed: Vec<String>,
    /// Each partition this stop closed, in dir order: what its start found and where it ends.
    pub closed: Vec<StoppedPartition>,
}

/// One partition a stop closed.
#[derive(Debug, Clone)]
pub struct StoppedPartition {
    pub name: String,
    pub log_end_offset: i64,
    pub high_watermark: i64,
    pub recovery_point: i64,
    /// The start before the close ran local recovery (an unclean stop before): `.log` bytes it
    /// cut, and whether it rebuilt anything; `None` when the partition was running or stopped
    /// cleanly.
    pub recovered_bytes_removed: Option<u64>,
}

pub fn run(dir: &Path, partition: Option<&str>) -> Result<StopReport> {
    let mut w = open_log_dir_for_write(dir, partition)?;
    let first = w.targets[0];
    let (leo, hw) = (w.replicas[first].log_end_offset(), w.replicas[first].high_watermark());
    let marker = w.replicas[first].paths().log_dir_file(CLEAN_SHUTDOWN_MARKER);
    let to_stop: Vec<usize> = w.targets.iter().copied().filter(|i| !w.replicas[*i].is_closed()).collect();
    let all_closed = w.replicas.iter().all(|r| r.is_closed());
    if to_stop.is_empty() && (marker.exists() || !all_closed) {
        return Ok(StopReport {
            already_stopped: true,
            partitions_stopped: Vec::new(),
            log_end_offset: leo,
            high_watermark: hw,
            startup: None,
            marker_written: marker.exists(),
            not_closed: Vec::new(),
            closed: Vec::new(),
        });
    }
    let mut startup = None;
    let mut stopped = Vec::new();
    let mut closed = Vec::new();
    // As Kafka's LogManager.shutdown: close and flush every log, then write each checkpoint
    // once for all of them, then the marker (one write per file, not one per partition).
    for &i in &to_stop {
        w.replicas[i].set_defer_log_dir_writes(true);
    }
    for &i in &to_stop {
        let replica = &mut w.replicas[i];
        let report = replica.start()?;
        let recovered_bytes_removed = report.as_ref().filter(|r| !r.clean_shutdown).map(|r| r.bytes_removed);
        if i == first {
            startup = report;
        }
        replica.log_mut().close()?;
        replica.flush()?;
        replica.forget_volatile_state();
        replica.save_state()?;
        stopped.push(replica.paths().name());
        closed.push(StoppedPartition {
            name: replica.paths().name(),
            log_end_offset: replica.log_end_offset(),
            high_watermark: replica.high_watermark(),
            recovery_point: replica.recovery_point(),
            recovered_bytes_removed,
        });
    }
    let mut closing: Vec<&mut crate::replica::Replica> =
        w.replicas.iter_mut().filter(|r| r.defer_log_dir_writes()).collect();
    crate::replica::write_log_dir_files(&mut closing)?;
    let not_closed: Vec<String> = w.replicas.iter().filter(|r| !r.is_closed()).map(|r| r.paths().name()).collect();
    if not_closed.is_empty() && !marker.exists() {
        // Kafka >= 3.7 (KIP-966) writes this JSON; older brokers wrote an empty file. Only the
        // file's existence matters to a loader.
        durable::write_atomic(&marker, br#"{"version":0,"brokerEpoch":-1}"#)?;
    }
    let r = &w.replicas[first];
    Ok(StopReport {
        already_stopped: stopped.is_empty(),
        partitions_stopped: stopped,
        log_end_offset: r.log_end_offset(),
        high_watermark: r.high_watermark(),
        startup,
        marker_written: not_closed.is_empty(),
        not_closed,
        closed,
    })
}
