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
    /// `None`: the HW checkpoint does not list the partition (the metadata log's HW is the
    /// Raft quorum's and never is).
    pub high_watermark: Option<i64>,
    pub recovery_point: i64,
    pub clean_shutdown: bool,
    pub segment_count: usize,
    /// Bytes in the `.log` files.
    pub size_bytes: u64,
}

pub fn summarize(replica: &Replica) -> ReplicaSummary {
    ReplicaSummary {
        topic: replica.paths().topic.clone(),
        partition: replica.paths().partition,
        log_dir: replica.paths().log_dir.clone(),
        replica_id: replica.replica_id(),
        role: role_name(replica),
        leader_epoch: current_leader_epoch(replica),
        log_start_offset: replica.log_start_offset(),
        log_end_offset: replica.log_end_offset(),
        high_watermark: replica.checkpointed_high_watermark(),
        recovery_point: replica.recovery_point(),
        clean_shutdown: replica.clean_shutdown(),
        segment_count: replica.log().segments().len(),
        size_bytes: replica.log().segments().iter().filter_map(|seg| seg.log_size().ok()).sum(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::commands::create::{self, CreateRequest};

    #[test]
    fn a_new_replica_summarizes_as_an_empty_follower_with_its_names() {
        let dir = tempfile::tempdir().unwrap();
        let log_dir = dir.path().join("a");
        create::run(&CreateRequest {
            dir: &log_dir,
            topic: "orders",
            partition: 3,
            partitions: 1,
            replica_id: Some(7),
            segment_bytes: 1 << 20,
            index_interval_bytes: 4096,
            index_bytes_max: 1 << 20,
            segment_ms: 1 << 40,
            min_insync_replicas: 1,
        })
        .unwrap();
        let s = summarize(&Replica::open(&log_dir, None).unwrap());
        assert_eq!((s.topic.as_str(), s.partition, s.replica_id), ("orders", 3, Some(7)));
        assert_eq!(s.log_dir, log_dir);
        assert_eq!((s.log_start_offset, s.log_end_offset, s.high_watermark, s.recovery_point), (0, 0, Some(0), 0));
        assert_eq!((s.segment_count, s.size_bytes, s.leader_epoch), (1, 0, None));
        // A new replica runs as a follower of no leader yet.
        assert_eq!(s.role, "follower");
    }
}
