//! A klog lab with a remote tier: a log dir made by `klog create DIR --remote-dir R`. Its
//! state file records R, the topic's LocalTieredStorage dir (`rsm.config.dir`): the lab's topic
//! has `remote.storage.enable=true`. Beside the topic's partition the log dir holds
//! `__remote_log_metadata-0`, a klog-written Kafka partition (batches, indexes, epoch cache,
//! producer snapshots, as every partition klog writes) holding the records Kafka's topic-based
//! metadata manager writes: null keys, values in `RemoteLogMetadataSerde`'s frame, one record
//! per batch from an idempotent producer, as a real 4.4 broker's `__remote_log_metadata` holds
//! them. A lab has one metadata partition (Kafka's default is 50, the partition chosen by
//! `RemoteLogMetadataTopicPartitioner`: with one partition, every user partition maps to 0).
//!
//! What a lab simplifies: the broker that copies a segment appends its metadata records to its
//! own copy of `__remote_log_metadata-0` (in Kafka they go to that partition's leader, which
//! may be another broker), and `fetch` copies the records a follower lacks from its leader's
//! copy before the data partition (in Kafka the metadata topic is replicated by its own
//! leaders and consumed by each broker's metadata manager). Writes go through
//! [`crate::durable`]; every write open takes the log dir's lock.

use super::local_tiered_storage::ROOT_DIR_NAME;
use super::metadata_cache::PartitionRemoteMetadata;
use super::metadata_topic::read_remote_metadata;
use super::remote_log_metadata::{TopicIdPartition, REMOTE_LOG_METADATA_TOPIC};
use crate::error::{Error, Result};
use crate::format::batch::{encode_batch, BatchIter, BatchSpec};
use crate::format::record::NewRecord;
use crate::log::names;
use crate::replica::{NewPartitions, Replica, TopicConfig};
use std::path::{Path, PathBuf};

/// The one metadata partition of a lab.
pub const METADATA_PARTITION: i32 = 0;

/// `__remote_log_metadata-0`.
pub fn metadata_partition_name() -> String {
    format!("{REMOTE_LOG_METADATA_TOPIC}-{METADATA_PARTITION}")
}

/// The producer id of the metadata manager's producer on broker `replica_id` (Kafka's come from
/// the controller; klog's are fixed per broker so that each broker's sequences are its own).
pub fn metadata_producer_id(replica_id: i32) -> i64 {
    1000 + i64::from(replica_id)
}

/// Check a `--remote-dir` before anything is written: absent (it is made), or a directory.
pub fn check_remote_dir_arg(dir: &Path) -> Result<()> {
    match std::fs::metadata(dir) {
        Ok(m) if m.is_dir() => Ok(()),
        Ok(_) => Err(Error::layout(dir, "exists and is not a directory (--remote-dir names LocalTieredStorage's dir)")),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(()),
        Err(e) => Err(Error::io(dir, "stat", e)),
    }
}

/// The metadata partition's settings: Kafka's defaults for the topic the metadata manager
/// creates (1 GiB segments), klog's index settings.
fn metadata_topic_config() -> TopicConfig {
    TopicConfig {
        segment_bytes: crate::log::DEFAULT_SEGMENT_BYTES,
        index_interval_bytes: crate::log::DEFAULT_INDEX_INTERVAL_BYTES,
        index_bytes_max: crate::log::DEFAULT_INDEX_BYTES_MAX,
        segment_ms: crate::log::DEFAULT_SEGMENT_MS,
        min_insync_replicas: 1,
    }
}

/// Make the new log dir `log_dir` (holding `topic`'s partitions) a tiered lab: its
/// `__remote_log_metadata-0`, the `kafka-tiered-storage` dir under `remote_dir`, the
/// log-start-offset checkpoint entries Kafka 4.4 writes for a log with remote storage enabled
/// (`LogManager.java:1073-1075@4.4.0`: always, even at its first segment's base), and the
/// remote dir recorded in the state file. Returns the remote dir as recorded (absolute).
pub fn make_tiered(
    log_dir: &Path,
    topic: &str,
    partitions: std::ops::RangeInclusive<i32>,
    remote_dir: &Path,
) -> Result<PathBuf> {
    let plan = NewPartitions::read(
        log_dir,
        REMOTE_LOG_METADATA_TOPIC,
        METADATA_PARTITION..=METADATA_PARTITION,
        metadata_topic_config(),
    )?;
    plan.write()?;
    crate::durable::create_dir(&remote_dir.join(ROOT_DIR_NAME))?;
    let absolute = std::fs::canonicalize(remote_dir).map_err(|e| Error::io(remote_dir, "resolve", e))?;
    let updates: Vec<(&str, i32, i64)> = partitions.map(|p| (topic, p, 0)).collect();
    crate::log::checkpoint::set_offset_entries(&log_dir.join(names::LOG_START_OFFSET_CHECKPOINT), &updates)?;
    crate::replica::set_remote_storage_dir(log_dir, &absolute)?;
    Ok(absolute)
}

/// The LocalTieredStorage dir a command on `log_dir` uses: `flag` when given, else the one the
/// lab records; `None` when neither (not a tiered lab).
pub fn remote_dir_of(log_dir: &Path, flag: Option<&Path>) -> Result<Option<PathBuf>> {
    match flag {
        Some(f) => Ok(Some(f.to_path_buf())),
        None => crate::replica::remote_storage_dir(log_dir),
    }
}

/// The remote dir of a command that needs one, or the error saying how to give it.
pub fn require_remote_dir(replica: &Replica, flag: Option<&Path>) -> Result<PathBuf> {
    let log_dir = &replica.paths().log_dir;
    remote_dir_of(log_dir, flag)?.ok_or_else(|| {
        Error::state(
            log_dir,
            "is not a tiered lab (no remote storage dir in its klog-state.json): create the lab with \
             `klog create DIR --remote-dir R`, or give --remote-dir",
        )
    })
}

/// The partition's topic id, as its `partition.metadata` holds it (`topic_id: <uuid>`).
pub fn topic_id_partition(replica: &Replica) -> Result<TopicIdPartition> {
    let p = replica.paths();
    let path = p.partition_dir.join(names::PARTITION_METADATA);
    let text = crate::regular_file::read_regular(&path)?
        .ok_or_else(|| Error::layout(&path, "no partition.metadata: a tiered partition needs its topic id"))?;
    let text = String::from_utf8_lossy(&text);
    let Some((line, id)) =
        text.lines().enumerate().find_map(|(i, l)| l.strip_prefix("topic_id:").map(|v| (i, v.trim())))
    else {
        return Err(Error::corrupt(&path, 0, "no topic_id line: expected `topic_id: <uuid>`"));
    };
    let position: usize = text.lines().take(line).map(|l| l.len() + 1).sum();
    let topic_id = crate::util::uuid_from_string(id).map_err(|why| Error::corrupt(&path, position as u64, why))?;
    Ok(TopicIdPartition { topic: p.topic.clone(), partition: p.partition, topic_id })
}

/// The `__remote_log_metadata-0` dir of a lab, or the error naming it.
fn metadata_dir(log_dir: &Path) -> Result<PathBuf> {
    let dir = log_dir.join(metadata_partition_name());
    if dir.is_dir() {
        Ok(dir)
    } else {
        Err(Error::layout(
            log_dir,
            format!(
                "holds no {}: not a tiered lab (create it with `klog create DIR --remote-dir R`)",
                metadata_partition_name()
            ),
        ))
    }
}

/// The remote segment table of `tp` as the lab's own `__remote_log_metadata-0` folds it (empty
/// when it holds no record of the partition).
pub fn read_partition_metadata(log_dir: &Path, tp: &TopicIdPartition) -> Result<PartitionRemoteMetadata> {
    metadata_dir(log_dir)?;
    let read = read_remote_metadata(&[log_dir.to_path_buf()])?;
    if let Some(u) = read.unreadable.first() {
        return Err(Error::corrupt(
            log_dir.join(metadata_partition_name()),
            0,
            format!("the record at offset {} does not read: {}", u.at.offset, u.what),
        ));
    }
    Ok(read.fold.partitions.get(tp).cloned().unwrap_or_default())
}

/// A lab's `__remote_log_metadata-0` open for appending, as broker `replica_id`'s metadata
/// manager produces to it (idempotent, one record per batch, leader epoch 0: the lab never
/// elects the metadata partition).
pub struct MetadataWriter {
    replica: Replica,
    producer_id: i64,
    next_sequence: i32,
}

impl MetadataWriter {
    /// Open (lock, load, start) the metadata partition of `log_dir`.
    pub fn open(log_dir: &Path, replica_id: i32) -> Result<MetadataWriter> {
        metadata_dir(log_dir)?;
        let mut replica = Replica::open_for_write(log_dir, Some(&metadata_partition_name()))?;
        replica.start()?;
        // The broker that writes the metadata leads the lab's metadata partition (epoch 0).
        if replica.will_run_as().role != crate::replica::Role::Leader {
            replica.set_leader(0, Vec::new());
            replica.save_state()?;
        }
        let producer_id = metadata_producer_id(replica_id);
        let state = replica.log().producer_state_at(replica.log_end_offset())?;
        let next_sequence = state
            .producers()
            .into_iter()
            .find(|e| e.producer_id == producer_id)
            .map_or(0, |e| e.last_sequence.wrapping_add(1) & i32::MAX);
        Ok(MetadataWriter { replica, producer_id, next_sequence })
    }

    /// The metadata partition's log end offset.
    pub fn log_end_offset(&self) -> i64 {
        self.replica.log_end_offset()
    }

    /// Append one record (`value`, produced at `timestamp`); returns its offset.
    pub fn append(&mut self, value: Vec<u8>, timestamp: i64) -> Result<i64> {
        let offset = self.replica.log_end_offset();
        let spec = BatchSpec {
            producer_id: self.producer_id,
            producer_epoch: 0,
            base_sequence: self.next_sequence,
            ..BatchSpec::plain(offset, 0)
        };
        let bytes = encode_batch(&spec, &[NewRecord { timestamp, key: None, value: Some(value), headers: vec![] }]);
        let batch = BatchIter::new(&bytes).next().expect("an encoded batch frames");
        self.replica.log_mut().append_batch(batch)?;
        self.replica.finish_writes()?;
        // Acknowledged once written (the lab's metadata partition has no followers of its own).
        let leo = self.replica.log_end_offset();
        self.replica.set_high_watermark(leo)?;
        self.next_sequence = self.next_sequence.wrapping_add(1) & i32::MAX;
        Ok(offset)
    }
}

/// What replicating the metadata partition did in one `fetch`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum MetadataReplication {
    /// The follower's copy ends where the leader's does (or further): nothing copied.
    UpToDate { log_end_offset: i64 },
    /// Records `from..to` copied from the leader's copy.
    Copied { from: i64, to: i64 },
    /// The two copies hold different records at `offset`: nothing copied.
    Diverged { offset: i64 },
}

/// Copy the records of the leader's `__remote_log_metadata-0` that the follower's lacks (the
/// batches unchanged, as a follower fetch appends them). Both must be tiered labs.
pub fn replicate_metadata(leader_dir: &Path, follower_dir: &Path) -> Result<MetadataReplication> {
    metadata_dir(leader_dir)?;
    metadata_dir(follower_dir)?;
    let leader = Replica::open(leader_dir, Some(&metadata_partition_name()))?;
    let mut follower = Replica::open_for_write(follower_dir, Some(&metadata_partition_name()))?;
    follower.start()?;
    // The follower's copy follows the leader's (epoch 0), as the data partition's does.
    let running = follower.will_run_as();
    if running.role != crate::replica::Role::Follower || running.leader.as_deref() != Some(&leader.identity()) {
        follower.set_follower(leader.identity(), 0);
        follower.save_state()?;
    }
    let from = follower.log_end_offset();
    let leader_end = leader.log_end_offset();
    if from >= leader_end {
        return Ok(MetadataReplication::UpToDate { log_end_offset: from });
    }
    // The follower's last batch must be the leader's batch at the same offset.
    if from > 0 {
        let mut last_crc = None;
        follower.log().for_each_batch_from(0, |_, b| {
            last_crc = Some((b.base_offset(), b.stored_crc()));
            Ok(true)
        })?;
        if let Some((base, crc)) = last_crc {
            let mut same = false;
            leader.log().for_each_batch_from(base, |_, b| {
                same = b.base_offset() == base && b.stored_crc() == crc;
                Ok(false)
            })?;
            if !same {
                return Ok(MetadataReplication::Diverged { offset: base });
            }
        }
    }
    let mut appended_to = from;
    let mut failed = None;
    leader.log().for_each_batch_from(from, |_, b| {
        if b.base_offset() != appended_to {
            failed = Some(b.base_offset());
            return Ok(false);
        }
        follower.log_mut().append_batch(b)?;
        appended_to = b.next_offset();
        Ok(true)
    })?;
    follower.finish_writes()?;
    follower.set_high_watermark(follower.log_end_offset())?;
    if let Some(offset) = failed {
        return Ok(MetadataReplication::Diverged { offset });
    }
    Ok(MetadataReplication::Copied { from, to: appended_to })
}

/// A lab's running leader opened for one of its remote-tier tasks (`tier copy`, `tier expire`):
/// the replica (started), its remote dir and that dir's LocalTieredStorage root, the partition with its topic id, its log
/// dir and the remote segment table its own metadata partition folds.
pub struct TieredLeader {
    pub replica: Replica,
    pub remote_dir: PathBuf,
    pub storage_root: PathBuf,
    pub partition: TopicIdPartition,
    pub log_dir: PathBuf,
    pub remote: PartitionRemoteMetadata,
}

/// Open `dir`'s partition for a leader's remote-tier task, refused unless it is a running leader
/// (`task`, e.g. "copy task copies segments to", names the task in the refusal).
pub fn open_tiered_leader(
    dir: &Path,
    partition: Option<&str>,
    remote_flag: Option<&Path>,
    task: &str,
) -> Result<TieredLeader> {
    let mut replica = Replica::open_for_write(dir, partition)?;
    if replica.will_run_as().role != crate::replica::Role::Leader {
        return Err(Error::state(
            &replica.paths().log_dir,
            format!("is not a running leader: only the leader's {task} (make it one with `klog elect`)"),
        ));
    }
    let remote_dir = require_remote_dir(&replica, remote_flag)?;
    let storage_root = super::local_tiered_storage::storage_root(&remote_dir)?;
    let partition = topic_id_partition(&replica)?;
    let log_dir = replica.paths().log_dir.clone();
    let remote = read_partition_metadata(&log_dir, &partition)?;
    replica.start()?;
    Ok(TieredLeader { replica, remote_dir, storage_root, partition, log_dir, remote })
}
