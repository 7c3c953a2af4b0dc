//! `klog flush`: fsync the log and move the recovery point to the log end.

use crate::error::Result;
use crate::log::recovery::RecoveryReport;
use crate::replica::Replica;
use std::path::Path;

#[derive(Debug)]
pub struct FlushReport {
    pub recovery_point_before: i64,
    pub recovery_point: i64,
    pub startup: Option<RecoveryReport>,
}

pub fn run(dir: &Path, partition: Option<&str>) -> Result<FlushReport> {
    let mut replica = Replica::open_for_write(dir, partition)?;
    let startup = replica.start()?;
    let before = replica.recovery_point();
    replica.flush()?;
    Ok(FlushReport { recovery_point_before: before, recovery_point: replica.recovery_point(), startup })
}
