//! `klog history`: per partition, who led at which leader epoch with which ISR and ELR, and
//! when that changed, replayed from a KRaft metadata log (`__cluster_metadata-0`: its latest
//! snapshot, then its log from the snapshot's end offset) by [`crate::kraft::metadata_log`];
//! and set beside it, what each given replica's `leader-epoch-checkpoint` and batch stamps
//! hold (an epoch a replica holds that the controller never granted; an epoch at which the
//! controller made the replica leader beyond its cache's latest epoch). Never writes.

use crate::error::{Error, Result};
use crate::format::batch::BatchIter;
use crate::kraft::metadata_log::replay_metadata;
use crate::kraft::metadata_log::Unreadable;
use crate::kraft::{PartitionChange, NO_LEADER};
use crate::log::names::natural_key;
use crate::log::verify::StampedEpochs;
use crate::replica::{DirIds, Replica};
use std::collections::{BTreeSet, HashMap};
use std::path::{Path, PathBuf};

pub struct HistoryRequest<'a> {
    /// A log dir holding `__cluster_metadata-0`, or that partition dir.
    pub path: &'a Path,
    /// Only this partition (`topic-N`).
    pub partition: Option<&'a str>,
    /// Log dirs of replicas to set beside the timeline.
    pub replicas: &'a [PathBuf],
    /// `--allow-other-cluster`: replicas whose `meta.properties` say another cluster than the
    /// metadata log's dir (or a node id another replica has) are set beside it anyway.
    pub allow_other_cluster: bool,
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

pub fn run(req: &HistoryRequest<'_>) -> Result<HistoryReport> {
    let m = replay_metadata(req.path)?;
    let (dir, replay) = (m.dir, m.replay);
    // The timeline is one cluster's: replicas of another are not set beside it (unless asked).
    if !req.replicas.is_empty() {
        let ids: Vec<DirIds> = req.replicas.iter().map(|r| DirIds::read(r)).collect();
        crate::replica::ensure_one_cluster(&ids, req.allow_other_cluster)?;
        let log_dir = dir.parent().unwrap_or(Path::new("."));
        crate::replica::ensure_metadata_of(log_dir, &ids, req.allow_other_cluster)?;
    }
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
