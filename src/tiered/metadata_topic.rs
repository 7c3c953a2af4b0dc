//! `__remote_log_metadata` on brokers' disks: each data dir holds the metadata partitions
//! (`__remote_log_metadata-N`) it replicates. Each partition is read once, from the dir whose
//! copy reaches the highest log end offset, with klog's own segment readers; its data records
//! are decoded by name ([`super::remote_log_metadata`]) and folded in offset order
//! ([`super::metadata_cache`]). Kafka's metadata manager consumes each metadata partition in
//! offset order too, and every event of one user partition goes to one metadata partition
//! (`RemoteLogMetadataTopicPartitioner`), so per user partition the fold sees Kafka's order.
//!
//! Records at or above the partition's high watermark (the highest entry any of the dirs'
//! `replication-offset-checkpoint` gives it) are folded like the others and listed apart
//! ([`AboveHighWatermark`]): the metadata manager's consumer reads below the HW only, so it may
//! not have applied them, and a later leader of the metadata partition may not hold them. The
//! manager's own snapshot files (`remote_log_snapshot`, written by older releases) are not read.

use super::metadata_cache::{EventPosition, RemoteMetadataFold};
use super::remote_log_metadata::{self, REMOTE_LOG_METADATA_TOPIC};
use crate::error::{Error, Result};
use crate::format::batch::BatchIter;
use crate::log::names::parse_topic_partition;
use crate::replica::Replica;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// A record of `__remote_log_metadata` that did not decode, or whose event did not read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Unreadable {
    pub at: EventPosition,
    pub what: String,
}

/// An event read at or above its metadata partition's high watermark.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AboveHighWatermark {
    pub at: EventPosition,
    /// The user partition the event is about.
    pub partition: super::remote_log_metadata::TopicIdPartition,
}

/// One metadata partition, read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MetadataPartitionRead {
    pub partition: i32,
    /// The partition dir read (the copy with the highest log end offset).
    pub dir: PathBuf,
    pub log_end_offset: i64,
    /// The highest entry for it in the dirs' `replication-offset-checkpoint` (none: no dir has one).
    pub high_watermark: Option<i64>,
    pub records_read: u64,
}

/// Every `__remote_log_metadata` partition of some data dirs, decoded and folded.
#[derive(Debug, Clone, Default)]
pub struct RemoteMetadataRead {
    pub partitions: Vec<MetadataPartitionRead>,
    /// How many records decoded, by message name.
    pub decoded_by_name: BTreeMap<&'static str, u64>,
    pub unreadable: Vec<Unreadable>,
    pub fold: RemoteMetadataFold,
    /// Events at or above their metadata partition's high watermark, in log order.
    pub above_high_watermark: Vec<AboveHighWatermark>,
}

impl RemoteMetadataRead {
    pub fn records_read(&self) -> u64 {
        self.partitions.iter().map(|p| p.records_read).sum()
    }

    pub fn decoded_count(&self) -> u64 {
        self.decoded_by_name.values().sum()
    }
}

/// The `__remote_log_metadata-N` dirs of one data dir, by N.
pub fn metadata_partition_dirs(data_dir: &Path) -> Result<Vec<(i32, PathBuf)>> {
    let mut out = Vec::new();
    for e in std::fs::read_dir(data_dir).map_err(|e| Error::io(data_dir, "list", e))? {
        let e = e.map_err(|e| Error::io(data_dir, "list", e))?;
        let name = e.file_name().to_string_lossy().into_owned();
        if let Some((topic, partition)) = parse_topic_partition(&name) {
            if topic == REMOTE_LOG_METADATA_TOPIC && e.path().is_dir() {
                out.push((partition, e.path()));
            }
        }
    }
    Ok(out)
}

/// Read and fold the `__remote_log_metadata` partitions held by `data_dirs`. A dir that holds
/// none is fine (the result is empty); a dir that does not list is an error.
pub fn read_remote_metadata(data_dirs: &[PathBuf]) -> Result<RemoteMetadataRead> {
    // Per metadata partition, the copy with the highest log end offset (the first dir on a tie).
    let mut best: BTreeMap<i32, (i64, PathBuf, Replica)> = BTreeMap::new();
    let mut high_watermarks: BTreeMap<i32, i64> = BTreeMap::new();
    for data_dir in data_dirs {
        let checkpoint = data_dir.join(crate::log::names::REPLICATION_OFFSET_CHECKPOINT);
        if checkpoint.is_file() {
            for e in crate::log::checkpoint::read_offset_checkpoint(&checkpoint)? {
                if e.topic == REMOTE_LOG_METADATA_TOPIC {
                    let hw = high_watermarks.entry(e.partition).or_insert(e.offset);
                    *hw = (*hw).max(e.offset);
                }
            }
        }
        for (partition, dir) in metadata_partition_dirs(data_dir)? {
            let name = dir.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
            let replica = Replica::open(data_dir, Some(&name))?;
            let leo = replica.log_end_offset();
            if best.get(&partition).is_none_or(|(b, _, _)| leo > *b) {
                best.insert(partition, (leo, dir, replica));
            }
        }
    }
    let mut read = RemoteMetadataRead::default();
    for (partition, (log_end_offset, dir, replica)) in best {
        let high_watermark = high_watermarks.get(&partition).copied();
        let records_read = read_partition(&mut read, partition, &replica, high_watermark)?;
        read.partitions.push(MetadataPartitionRead { partition, dir, log_end_offset, high_watermark, records_read });
    }
    Ok(read)
}

/// Decode and fold one metadata partition's records into `read`; how many records it read.
fn read_partition(
    read: &mut RemoteMetadataRead,
    partition: i32,
    replica: &Replica,
    high_watermark: Option<i64>,
) -> Result<u64> {
    let mut records_read = 0;
    for seg in replica.log().segments() {
        let bytes = seg.read_log()?;
        for batch in BatchIter::new(&bytes) {
            if batch.header().is_some_and(|h| h.is_control()) {
                continue;
            }
            let at = EventPosition { metadata_partition: partition, offset: batch.base_offset() };
            let decoded = match batch.records() {
                Ok(d) => d,
                Err(e) => {
                    read.unreadable.push(Unreadable { at, what: e.to_string() });
                    continue;
                }
            };
            let records = match decoded.decode() {
                Ok(r) => r,
                Err(e) => {
                    read.unreadable.push(Unreadable { at, what: e.to_string() });
                    continue;
                }
            };
            for r in &records {
                records_read += 1;
                let at = EventPosition { metadata_partition: partition, offset: r.offset };
                let Some(value) = r.value else {
                    read.unreadable.push(Unreadable { at, what: "null value".into() });
                    continue;
                };
                match remote_log_metadata::decode(value) {
                    Ok(m) => {
                        *read.decoded_by_name.entry(m.name()).or_default() += 1;
                        match remote_log_metadata::event_of(&m) {
                            Ok(event) => {
                                if high_watermark.is_some_and(|hw| r.offset >= hw) {
                                    if let Some(partition) = event_partition(&event) {
                                        read.above_high_watermark.push(AboveHighWatermark { at, partition });
                                    }
                                }
                                read.fold.apply(at, &event)
                            }
                            Err(what) => read.unreadable.push(Unreadable { at, what }),
                        }
                    }
                    Err(e) => read.unreadable.push(Unreadable { at, what: e.to_string() }),
                }
            }
        }
    }
    Ok(records_read)
}

fn event_partition(e: &remote_log_metadata::RemoteLogMetadataEvent) -> Option<remote_log_metadata::TopicIdPartition> {
    use remote_log_metadata::RemoteLogMetadataEvent::*;
    match e {
        Segment(s) => Some(s.partition.clone()),
        Update(u) => Some(u.partition.clone()),
        PartitionDelete(d) => Some(d.partition.clone()),
        Snapshot => None,
    }
}
