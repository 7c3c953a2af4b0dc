//! `klog stop`: a clean shutdown (Kafka `LogManager.shutdown`): flush, write the checkpoints,
//! then write `.kafka_cleanshutdown` so the next start scans nothing.

use crate::durable;
use crate::error::Result;
use crate::log::names::CLEAN_SHUTDOWN_MARKER;
use crate::log::recovery::RecoveryReport;
use crate::replica::Replica;
use std::path::Path;

#[derive(Debug)]
pub struct StopReport {
    pub already_stopped: bool,
    pub log_end_offset: i64,
    pub high_watermark: i64,
    pub startup: Option<RecoveryReport>,
}

pub fn run(dir: &Path, partition: Option<&str>) -> Result<StopReport> {
    let probe = Replica::open(dir, partition)?;
    if !probe.is_running() && probe.clean_shutdown {
        return Ok(StopReport {
            already_stopped: true,
            log_end_offset: probe.log_end_offset(),
            high_watermark: probe.high_watermark,
            startup: None,
        });
    }
    drop(probe);
    let (mut replica, startup) = Replica::open_mut(dir, partition)?;
    replica.log.close()?;
    replica.flush()?;
    replica.state = None;
    replica.save_state()?;
    // Kafka >= 3.7 (KIP-966) writes this JSON; older brokers wrote an empty file. Only the
    // file's existence matters to a loader.
    let marker = replica.paths.log_dir_file(CLEAN_SHUTDOWN_MARKER);
    durable::write_atomic(&marker, br#"{"version":0,"brokerEpoch":-1}"#)?;
    Ok(StopReport {
        already_stopped: false,
        log_end_offset: replica.log_end_offset(),
        high_watermark: replica.high_watermark,
        startup,
    })
}
