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
/// The KRaft metadata log's topic: never loaded by `LogManager`, never in a log-dir checkpoint.
pub const METADATA_TOPIC: &str = "__cluster_metadata";
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

/// Kafka's longest topic name (`Topic.MAX_NAME_LENGTH`).
pub const TOPIC_NAME_MAX_CHARS: usize = 249;

/// Kafka's topic name rules (`org.apache.kafka.common.internals.Topic.validate`): 1 to 249 of
/// `a-z A-Z 0-9 . _ -`, and not `.` or `..`. A topic name is therefore never a path: it holds
/// no `/` and is never a parent-dir reference.
pub fn validate_topic(topic: &str) -> Result<(), String> {
    if topic.is_empty() || topic.len() > TOPIC_NAME_MAX_CHARS {
        return Err("invalid topic name: it has 1 to 249 characters (Kafka's Topic.MAX_NAME_LENGTH)".into());
    }
    if topic == "." || topic == ".." {
        return Err("invalid topic name: `.` and `..` are reserved".into());
    }
    if let Some(c) = topic.chars().find(|c| !(c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-'))) {
        return Err(format!("invalid topic name: {c:?} is not allowed in a topic name (only a-z A-Z 0-9 . _ -)"));
    }
    Ok(())
}

/// Parse a partition name `<topic>-<partition>` (split at the last `-`): a topic by Kafka's
/// rules and a partition number of at most 10 digits within `i32`. The one parser of partition
/// names, whether they come from the command line, a checkpoint or a dir listing; the error
/// says why a name is not one.
pub fn parse_partition_name(name: &str) -> Result<(String, i32), String> {
    let expected = "expected <topic>-<partition>, e.g. orders-3";
    let Some((topic, partition)) = name.rsplit_once('-') else {
        return Err(format!("not a partition name ({expected})"));
    };
    if partition.is_empty() || partition.len() > 10 || !partition.bytes().all(|b| b.is_ascii_digit()) {
        return Err(format!(
            "not a partition name: {} is not a partition number ({expected})",
            crate::escape::arg(partition)
        ));
    }
    let number: i32 =
        partition.parse().map_err(|_| format!("not a partition name: partition {partition} is above 2147483647"))?;
    validate_topic(topic).map_err(|why| format!("not a partition name: {why}"))?;
    Ok((topic.to_string(), number))
}

/// [`parse_partition_name`] without the reason.
pub fn parse_topic_partition(name: &str) -> Option<(String, i32)> {
    parse_partition_name(name).ok()
}

/// The name of a KRaft snapshot file: `<20-digit end offset>-<10-digit epoch>.checkpoint`
/// (`Snapshots.parse`): its end offset and epoch.
pub fn parse_kraft_snapshot_name(name: &str) -> Option<(i64, i32)> {
    let stem = name.strip_suffix(".checkpoint")?;
    let (offset, epoch) = stem.split_once('-')?;
    let digits = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
    (digits(offset) && digits(epoch)).then(|| Some((offset.parse().ok()?, epoch.parse().ok()?))).flatten()
}

/// The key that orders partition names naturally: by topic, then by partition number (`t-2`
/// before `t-10`); a name that is not a partition's sorts by itself, before its topic's
/// partitions.
pub fn natural_key(name: &str) -> (String, i64) {
    match parse_topic_partition(name) {
        Some((topic, n)) => (topic, i64::from(n)),
        None => (name.to_string(), -1),
    }
}

/// What a directory in a log dir is to Kafka's `LogManager.loadLogs`
/// (`LocalLog.parseTopicPartitionName`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LogKind {
    /// `<topic>-<partition>`: the partition's current log.
    Current,
    /// `<topic>-<partition>.<id>-future`: a replica being moved here (loaded and recovered).
    Future,
    /// `<topic>-<partition>.<id>-stray`: a log the controller no longer assigns here (loaded,
    /// recovered, and left on disk).
    Stray,
    /// `<topic>-<partition>.<id>-delete`: a deleted log awaiting removal (opened, never
    /// recovered).
    Delete,
}

/// Kafka's reading of a log dir's subdirectory name: the topic, the partition and the kind, or
/// `None` where `parseTopicPartitionName` throws (which makes a starting broker refuse to run).
/// Kafka's rule, not klog's topic-name rule: any text before the last `-`, and a partition that
/// `Integer.parseInt` accepts.
pub fn parse_log_dir_name(name: &str) -> Option<(String, i32, LogKind)> {
    if !name.contains('-') {
        return None;
    }
    let kinds = [("-delete", LogKind::Delete), ("-future", LogKind::Future), ("-stray", LogKind::Stray)];
    let (stem, kind) = match kinds.iter().find(|(suffix, _)| name.ends_with(suffix)) {
        Some((suffix, kind)) => {
            // `^(\S+)-(\S+)\.(\S+)<suffix>`: a `-` and then a `.` with text around both.
            let body = &name[..name.len() - suffix.len()];
            let (left, id) = body.rsplit_once('.')?;
            let no_space = |t: &str| !t.is_empty() && !t.chars().any(char::is_whitespace);
            let (t, p) = left.split_once('-')?;
            if !no_space(id) || !no_space(t) || !no_space(p) {
                return None;
            }
            (left, *kind)
        }
        None => (name, LogKind::Current),
    };
    let (topic, partition) = stem.rsplit_once('-')?;
    if topic.is_empty() || partition.is_empty() {
        return None;
    }
    Some((topic.to_string(), parse_java_int(partition)?, kind))
}

/// `Integer.parseInt` for ASCII text: an optional sign, then decimal digits, within 32 bits.
fn parse_java_int(text: &str) -> Option<i32> {
    let digits = text.strip_prefix(['+', '-']).unwrap_or(text);
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    text.parse().ok()
}

/// The topic of tiered storage's segment metadata (Kafka's
/// `TopicBasedRemoteLogMetadataManagerConfig.REMOTE_LOG_METADATA_TOPIC_NAME`).
pub const REMOTE_LOG_METADATA_TOPIC: &str = "__remote_log_metadata";

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

    #[test]
    fn a_partition_name_is_never_a_path() {
        for bad in [
            "../B/demo-0",
            "/tmp/a/demo-0",
            "a/b-0",
            "..-0",
            ".-0",
            "demo-0/",
            "de mo-0",
            "démo-0",
            "demo-+1",
            "demo-2147483648",
            "demo-00000000001",
            "",
            "-",
        ] {
            assert!(parse_partition_name(bad).is_err(), "{bad:?} accepted");
        }
        let long = "t".repeat(TOPIC_NAME_MAX_CHARS);
        assert_eq!(parse_topic_partition(&format!("{long}-7")), Some((long.clone(), 7)));
        assert!(parse_topic_partition(&format!("{long}t-7")).is_none());
        assert_eq!(parse_topic_partition("..a-1"), Some(("..a".into(), 1)));
        assert_eq!(parse_topic_partition("__cluster_metadata-0"), Some(("__cluster_metadata".into(), 0)));
    }

    #[test]
    fn log_dir_names_follow_kafkas_parse_topic_partition_name() {
        let id = "0123456789abcdef0123456789abcdef";
        assert_eq!(parse_log_dir_name("demo-0"), Some(("demo".into(), 0, LogKind::Current)));
        assert_eq!(parse_log_dir_name(&format!("demo-3.{id}-future")), Some(("demo".into(), 3, LogKind::Future)));
        assert_eq!(parse_log_dir_name(&format!("a-b-3.{id}-stray")), Some(("a-b".into(), 3, LogKind::Stray)));
        assert_eq!(parse_log_dir_name(&format!("demo-0.{id}-delete")), Some(("demo".into(), 0, LogKind::Delete)));
        assert_eq!(parse_log_dir_name("photos-2024"), Some(("photos".into(), 2024, LogKind::Current)));
        for bad in ["lost+found", "demo", "demo-", "-0", "demo-x", "demo-0-future", "demo-99999999999"] {
            assert_eq!(parse_log_dir_name(bad), None, "{bad}");
        }
    }
}
