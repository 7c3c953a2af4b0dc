//! A replica's state at a glance ([`ReplicaSummary`]), the header `dump`, `check` and `diff`
//! all show. A shared helper of the commands (like [`super::role_name`]), not a command: no
//! command borrows another command's helpers. Never writes.

use super::{current_leader_epoch, role_name};
use crate::replica::Replica;
use std::path::PathBuf;

/// A replica's state at a glance.
#[derive(Debug, Clone)]
pub struct ReplicaSummary {
    pub topic: String,
    pub partition: i32,
    pub log_dir: PathBuf,
    pub replica_id: Option<i32>,
    pub role: &'static str,
    pub leader_epoch: Option<i32>,
    pub log_start_offset: i64,
    pub log_end_offset: i64,
    pub high_watermark: i64,
    pub recovery_point: i64,
    pub clean_shutdown: bool,
    pub segment_count: usize,
    /// Bytes in the `.log` files.
    pub size_bytes: u64,
}

pub fn summarize(replica: &Replica) -> ReplicaSummary {
    ReplicaSummary {
        topic: replica.paths.topic.clone(),
        partition: replica.paths.partition,
        log_dir: replica.paths.log_dir.clone(),
        replica_id: replica.replica_id,
        role: role_name(replica),
        leader_epoch: current_leader_epoch(replica),
        log_start_offset: replica.log_start_offset,
        log_end_offset: replica.log_end_offset(),
        high_watermark: replica.high_watermark,
        recovery_point: replica.recovery_point,
        clean_shutdown: replica.clean_shutdown,
        segment_count: replica.log.segments().len(),
        size_bytes: replica.log.segments().iter().filter_map(|seg| seg.log_size().ok()).sum(),
    }
}
