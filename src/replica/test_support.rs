//! Helpers for the replica module's unit tests: a klog log dir made the way `klog create`
//! makes one (through [`write_new_log_dir`] and [`NewPartitions`]), and batches appended to
//! a started replica.

use super::{write_new_log_dir, NewPartitions, Replica, TopicConfig};
use crate::format::batch::{encode_batch, BatchIter, BatchSpec};
use crate::format::record::NewRecord;
use crate::log::LogConfig;
use std::path::{Path, PathBuf};

/// Create `dir` as a klog log dir of replica `replica_id` holding empty partitions
/// `topic-0..count`, running (as `create` leaves them). Returns `dir`.
pub(super) fn new_log_dir(dir: &Path, replica_id: i32, topic: &str, count: i32) -> PathBuf {
    std::fs::create_dir_all(dir).unwrap();
    write_new_log_dir(dir, replica_id, "Tue Dec 01 00:00:00 UTC 2026").unwrap();
    let c = LogConfig::default();
    let config = TopicConfig {
        segment_bytes: c.segment_bytes,
        index_interval_bytes: c.index_interval_bytes,
        index_bytes_max: c.index_bytes_max,
        segment_ms: c.segment_ms,
        min_insync_replicas: 1,
    };
    NewPartitions::read(dir, topic, 0..=count - 1, config).unwrap().write().unwrap();
    dir.to_path_buf()
}

/// Append one batch of `count` records at the replica's log end, stamped `leader_epoch`.
pub(super) fn append(replica: &mut Replica, count: usize, leader_epoch: i32) {
    let rec = NewRecord { timestamp: 1, key: None, value: Some(b"v".to_vec()), headers: vec![] };
    let base = replica.log_end_offset();
    let bytes = encode_batch(&BatchSpec::plain(base, leader_epoch), &vec![rec; count]);
    let batch = BatchIter::new(&bytes).next().unwrap();
    replica.log_mut().append_batch(batch).unwrap();
    replica.log_mut().finish().unwrap();
}

/// `log_dir/name` made a partition dir by the least that makes one (a leader-epoch checkpoint:
/// a Kafka file in a dir named like a partition).
pub(super) fn partition_dir(log_dir: &Path, name: &str) -> PathBuf {
    let dir = log_dir.join(name);
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join(crate::log::names::LEADER_EPOCH_CHECKPOINT), "0\n0\n").unwrap();
    dir
}
