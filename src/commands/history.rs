//! `klog history`: per partition, who led at which leader epoch with which ISR and ELR, and
//! when that changed, replayed from a KRaft metadata log (`__cluster_metadata-0`: its latest
//! snapshot, then its log from the snapshot's end offset) by [`crate::partition_registration`];
//! and set beside it, what each given replica's `leader-epoch-checkpoint` and batch stamps
//! hold (an epoch a replica holds that the controller never granted; an epoch at which the
//! controller made the replica leader beyond its cache's latest epoch). Never writes.

use crate::error::{Error, Result};
use crate::format::batch::BatchIter;
use crate::format::metadata;
use crate::log::names::{natural_key, METADATA_TOPIC};
use crate::log::verify::StampedEpochs;
use crate::partition_registration::{MetadataPosition, MetadataReplay, PartitionChange, NO_LEADER};
use crate::replica::Replica;
use std::collections::{BTreeSet, HashMap};
use std::path::{Path, PathBuf};

pub struct HistoryRequest<'a> {
    /// A log dir holding `__cluster_metadata-0`, or that partition dir.
    pub path: &'a Path,
    /// Only this partition (`topic-N`).
    pub partition: Option<&'a str>,
    /// Log dirs of replicas to set beside the timeline.
    pub replicas: &'a [PathBuf],
}

/// A metadata record that did not decode (it changes nothing in the replay).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Unreadable {
    pub position: MetadataPosition,
    pub what: String,
}

/// What one replica's files say about a partition, beside the controller's timeline.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReplicaEpochs {
    pub log_dir: PathBuf,
    /// `node.id` / `broker.id` of the log dir.
    pub replica_id: Option<i32>,
    /// `leader-epoch-checkpoint` (the epoch cache): (leader epoch, start offset).
    pub cache: Vec<(i32, i64)>,
    /// Leader epochs stamped on the replica's batches, with their record counts.
    pub stamped: Vec<(i32, u64)>,
    /// Epochs in the cache or on batches that the metadata never granted.
    pub never_granted: Vec<i32>,
    /// Epochs at which the metadata made this replica leader beyond its cache's latest epoch:
    /// its files never learned its own leadership. (An earlier led epoch may rightly be gone:
    /// Kafka's cache drops an epoch that a later one starts at the same offset, when no record
    /// was written in it.)
    pub led_but_not_cached: Vec<i32>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PartitionHistory {
    pub partition: String,
    pub changes: Vec<PartitionChange>,
    pub replicas: Vec<ReplicaEpochs>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HistoryReport {
    pub metadata_dir: PathBuf,
    /// The snapshot replayed first, with its end offset.
    pub snapshot: Option<(PathBuf, i64)>,
    pub records_read: u64,
    pub unreadable: Vec<Unreadable>,
    pub partitions: Vec<PartitionHistory>,
}

/// The metadata partition dir and its log dir.
fn metadata_dir(path: &Path) -> Result<(PathBuf, String)> {
    let is_metadata =
        |p: &Path| p.file_name().and_then(|n| n.to_str()).is_some_and(|n| n.starts_with(&format!("{METADATA_TOPIC}-")));
    let dir = if is_metadata(path) { path.to_path_buf() } else { path.join(format!("{METADATA_TOPIC}-0")) };
    if !dir.is_dir() {
        // A ZooKeeper-mode broker (meta.properties version 0, broker.id, no node.id): its
        // controller kept partition state in ZooKeeper, which a data dir never holds.
        let meta = crate::replica::read_meta_properties(&path.join("meta.properties")).unwrap_or_default();
        let zk = meta.get("version").is_some_and(|v| v == "0") && meta.contains_key("broker.id");
        let why = if zk {
            format!(
                "no KRaft metadata log ({METADATA_TOPIC}-0) here: a ZooKeeper-mode broker's dir \
                 (meta.properties version 0), whose controller kept the partitions' history in ZooKeeper"
            )
        } else {
            format!("no KRaft metadata log ({METADATA_TOPIC}-0) here")
        };
        return Err(Error::layout(path, why));
    }
    let name = dir.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    Ok((dir, name))
}

/// The latest KRaft snapshot in the metadata dir: (path, end offset).
fn latest_snapshot(dir: &Path) -> Result<Option<(PathBuf, i64)>> {
    let mut best: Option<(PathBuf, i64)> = None;
    for e in std::fs::read_dir(dir).map_err(|e| Error::io(dir, "list", e))? {
        let e = e.map_err(|e| Error::io(dir, "list", e))?;
        let name = e.file_name().to_string_lossy().into_owned();
        if let Some((end_offset, _)) = super::dump::parse_kraft_snapshot_name(&name) {
            if best.as_ref().is_none_or(|(_, o)| end_offset > *o) {
                best = Some((e.path(), end_offset));
            }
        }
    }
    Ok(best)
}

/// Replay the data records of a file of batches from offset `from`.
fn replay_batches(
    bytes: &[u8],
    from: i64,
    position: impl Fn(i64) -> MetadataPosition,
    replay: &mut MetadataReplay,
    report: &mut HistoryReport,
) {
    for batch in BatchIter::new(bytes) {
        if batch.last_offset() < from || batch.header().is_some_and(|h| h.is_control()) {
            continue;
        }
        let unreadable = |why: String| Unreadable { position: position(batch.base_offset()), what: why };
        let decoded = match batch.records() {
            Ok(d) => d,
            Err(e) => {
                report.unreadable.push(unreadable(e.to_string()));
                continue;
            }
        };
        let records = match decoded.decode() {
            Ok(r) => r,
            Err(e) => {
                report.unreadable.push(unreadable(e.to_string()));
                continue;
            }
        };
        for r in records.iter().filter(|r| r.offset >= from) {
            report.records_read += 1;
            match r.value.map(metadata::decode) {
                Some(Ok(m)) => replay.apply(position(r.offset), r.timestamp, &m),
                Some(Err(e)) => {
                    report.unreadable.push(Unreadable { position: position(r.offset), what: e.to_string() })
                }
                None => report.unreadable.push(Unreadable { position: position(r.offset), what: "null value".into() }),
            }
        }
    }
}

/// What a replica's files say about `partition`, beside the timeline.
fn replica_epochs(log_dir: &Path, partition: &str, changes: &[PartitionChange]) -> Result<Option<ReplicaEpochs>> {
    if !log_dir.join(partition).is_dir() {
        return Ok(None);
    }
    let replica = Replica::open_with(log_dir, Some(partition), None)?;
    let mut stamped = StampedEpochs::default();
    for seg in replica.log().segments() {
        let bytes = seg.read_log()?;
        for b in BatchIter::new(&bytes) {
            stamped.observe(&b);
        }
    }
    let cache: Vec<(i32, i64)> =
        replica.log().epoch_cache().entries().iter().map(|e| (e.leader_epoch, e.start_offset)).collect();
    let granted: BTreeSet<i32> = changes
        .iter()
        .filter_map(|c| c.after.as_ref())
        .filter(|r| r.leader != NO_LEADER)
        .map(|r| r.leader_epoch)
        .collect();
    let held: BTreeSet<i32> = cache.iter().map(|(e, _)| *e).chain(stamped.record_counts.keys().copied()).collect();
    let never_granted = held.iter().filter(|e| !granted.contains(e)).copied().collect();
    let id = replica.replica_id();
    let led: BTreeSet<i32> = changes
        .iter()
        .filter_map(|c| c.after.as_ref())
        .filter(|r| Some(r.leader) == id && r.leader != NO_LEADER)
        .map(|r| r.leader_epoch)
        .collect();
    let latest_cached = cache.iter().map(|(e, _)| *e).max();
    let led_but_not_cached = led.iter().filter(|e| latest_cached.is_none_or(|l| **e > l)).copied().collect();
    Ok(Some(ReplicaEpochs {
        log_dir: log_dir.to_path_buf(),
        replica_id: id,
        cache,
        stamped: stamped.record_counts.into_iter().collect(),
        never_granted,
        led_but_not_cached,
    }))
}

/// A metadata log replayed: where it is, its snapshot, what did not decode, and the replay.
pub struct ReplayedMetadata {
    /// The `__cluster_metadata-0` dir.
    pub dir: PathBuf,
    /// The snapshot replayed first, with its end offset.
    pub snapshot: Option<(PathBuf, i64)>,
    pub records_read: u64,
    pub unreadable: Vec<Unreadable>,
    /// The metadata log's end offset (the next offset it would write).
    pub log_end_offset: i64,
    pub replay: MetadataReplay,
}

/// Replay the KRaft metadata log at `path` (a log dir holding `__cluster_metadata-0`, or that
/// dir): its latest snapshot, then its log from the snapshot's end offset.
pub fn replay_metadata(path: &Path) -> Result<ReplayedMetadata> {
    let (dir, name) = metadata_dir(path)?;
    let log_dir = dir.parent().unwrap_or(Path::new(".")).to_path_buf();
    let mut report = HistoryReport {
        metadata_dir: dir.clone(),
        snapshot: latest_snapshot(&dir)?,
        records_read: 0,
        unreadable: Vec::new(),
        partitions: Vec::new(),
    };
    let mut replay = MetadataReplay::default();
    let mut from = i64::MIN;
    if let Some((path, end_offset)) = report.snapshot.clone() {
        let bytes = crate::regular_file::read_regular(&path)?.unwrap_or_default();
        replay_batches(&bytes, i64::MIN, |_| MetadataPosition::Snapshot { end_offset }, &mut replay, &mut report);
        from = end_offset;
    }
    let replica = Replica::open_with(&log_dir, Some(&name), None)?;
    for seg in replica.log().segments() {
        let bytes = seg.read_log()?;
        replay_batches(&bytes, from, MetadataPosition::Log, &mut replay, &mut report);
    }
    Ok(ReplayedMetadata {
        dir,
        snapshot: report.snapshot,
        records_read: report.records_read,
        unreadable: report.unreadable,
        log_end_offset: replica.log_end_offset().max(from),
        replay,
    })
}

pub fn run(req: &HistoryRequest<'_>) -> Result<HistoryReport> {
    let m = replay_metadata(req.path)?;
    let (dir, replay) = (m.dir, m.replay);
    let mut report = HistoryReport {
        metadata_dir: dir.clone(),
        snapshot: m.snapshot,
        records_read: m.records_read,
        unreadable: m.unreadable,
        partitions: Vec::new(),
    };
    // One pass over the changes, grouped by partition (each change moved once: the work is
    // linear in the records replayed, whatever the number of partitions).
    let mut by_partition: HashMap<String, Vec<PartitionChange>> = HashMap::new();
    for c in replay.changes {
        by_partition.entry(c.partition.clone()).or_default().push(c);
    }
    if let Some(p) = req.partition {
        if !by_partition.contains_key(p) {
            return Err(Error::layout(
                &dir,
                format!("the metadata log never mentions partition {}", crate::escape::arg(p)),
            ));
        }
        by_partition.retain(|n, _| n == p);
    }
    let mut grouped: Vec<(String, Vec<PartitionChange>)> = by_partition.into_iter().collect();
    grouped.sort_by_cached_key(|(name, _)| natural_key(name));
    for (partition, changes) in grouped {
        let mut replicas = Vec::new();
        for r in req.replicas {
            replicas.extend(replica_epochs(r, &partition, &changes)?);
        }
        report.partitions.push(PartitionHistory { partition, changes, replicas });
    }
    Ok(report)
}
