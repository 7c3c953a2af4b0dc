//! File and directory names of a Kafka log (`LogFileUtils`, `LocalLog.parseTopicPartitionName`).

use std::path::{Path, PathBuf};

pub const LOG_SUFFIX: &str = ".log";
pub const INDEX_SUFFIX: &str = ".index";
pub const TIME_INDEX_SUFFIX: &str = ".timeindex";
pub const TXN_INDEX_SUFFIX: &str = ".txnindex";
pub const SNAPSHOT_SUFFIX: &str = ".snapshot";
pub const LEADER_EPOCH_CHECKPOINT: &str = "leader-epoch-checkpoint";
pub const PARTITION_METADATA: &str = "partition.metadata";
pub const REPLICATION_OFFSET_CHECKPOINT: &str = "replication-offset-checkpoint";
pub const RECOVERY_POINT_OFFSET_CHECKPOINT: &str = "recovery-point-offset-checkpoint";
pub const LOG_START_OFFSET_CHECKPOINT: &str = "log-start-offset-checkpoint";
pub const META_PROPERTIES: &str = "meta.properties";
pub const CLEAN_SHUTDOWN_MARKER: &str = ".kafka_cleanshutdown";
pub const LOCK_FILE: &str = ".lock";
/// klog's own state file at the log-dir level (never inside a partition dir).
pub const KLOG_STATE: &str = "klog-state.json";

/// `<20-digit zero-padded offset><suffix>`.
pub fn build_file_name(offset: i64, suffix: &str) -> String {
    format!("{offset:020}{suffix}")
}

pub fn build_segment_path(dir: &Path, base_offset: i64, suffix: &str) -> PathBuf {
    dir.join(build_file_name(base_offset, suffix))
}

/// The offset a file name starts with (`Long.parseLong(name up to the first '.')`).
pub fn parse_file_offset(name: &str) -> Option<i64> {
    let stem = name.split('.').next()?;
    if stem.is_empty() || !stem.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    stem.parse().ok()
}

/// Split `<topic>-<partition>` at the last `-`; neither part may be empty.
pub fn parse_topic_partition(name: &str) -> Option<(String, i32)> {
    let (topic, partition) = name.rsplit_once('-')?;
    if topic.is_empty() || partition.is_empty() || !partition.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    Some((topic.to_string(), partition.parse().ok()?))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_twenty_digits() {
        assert_eq!(build_file_name(1234, ".log"), "00000000000000001234.log");
        assert_eq!(parse_file_offset("00000000000000001234.log.deleted"), Some(1234));
        assert_eq!(parse_file_offset("leader-epoch-checkpoint"), None);
    }

    #[test]
    fn topic_partition_splits_at_last_dash() {
        assert_eq!(parse_topic_partition("my-topic-3"), Some(("my-topic".into(), 3)));
        assert_eq!(parse_topic_partition("__consumer_offsets-49"), Some(("__consumer_offsets".into(), 49)));
        assert_eq!(parse_topic_partition("-3"), None);
        assert_eq!(parse_topic_partition("topic-"), None);
        assert_eq!(parse_topic_partition("topic-x"), None);
    }
}
