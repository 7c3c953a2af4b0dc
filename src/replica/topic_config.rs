//! The topic settings klog keeps for a partition in its state file, because no controller holds
//! them (Kafka keeps them in ZooKeeper/KRaft, not in the log dir), and how they become the
//! log's [`LogConfig`]. Older state files lacking a field get Kafka's default for it.

use crate::log::LogConfig;
use serde::{Deserialize, Serialize};

/// Topic settings klog keeps because no controller holds them (Kafka keeps them in
/// ZooKeeper/KRaft, not in the log dir).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct TopicConfig {
    pub segment_bytes: u64,
    pub index_interval_bytes: u64,
    #[serde(default = "default_index_bytes_max")]
    pub index_bytes_max: u64,
    #[serde(default = "default_segment_ms")]
    pub segment_ms: u64,
    /// min.insync.replicas: an acks=all append needs this many ISR members, leader included
    /// (NOT_ENOUGH_REPLICAS), and from Kafka 3.7 the HW does not advance while the ISR is smaller
    /// (KAFKA-15583).
    #[serde(default = "default_min_insync_replicas")]
    pub min_insync_replicas: u32,
}

fn default_min_insync_replicas() -> u32 {
    1
}

fn default_segment_ms() -> u64 {
    crate::log::DEFAULT_SEGMENT_MS
}

fn default_index_bytes_max() -> u64 {
    crate::log::DEFAULT_INDEX_BYTES_MAX
}

impl From<TopicConfig> for LogConfig {
    fn from(c: TopicConfig) -> LogConfig {
        LogConfig {
            segment_bytes: c.segment_bytes,
            index_interval_bytes: c.index_interval_bytes,
            index_bytes_max: c.index_bytes_max,
            segment_ms: c.segment_ms,
        }
    }
}
