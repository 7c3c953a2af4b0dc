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

/// The timeline at a glance (what `history` prints before it): its span, the elections and
/// ISR changes it holds, and where each partition ended up.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct HistorySummary {
    pub partition_count: usize,
    pub change_count: usize,
    /// The earliest and the latest change's timestamp (the controller's clock).
    pub first_timestamp: Option<i64>,
    pub last_timestamp: Option<i64>,
    /// Changes after a partition's creation that moved its leader (to another broker or to none).
    pub leader_change_count: usize,
    /// Of them, those that left the partition without a leader.
    pub to_no_leader_count: usize,
    /// Changes after creation that altered the ISR.
    pub isr_change_count: usize,
    /// Partitions whose last registration has no leader (offline), in natural order.
    pub without_leader: Vec<String>,
    /// Partitions whose topic was removed.
    pub removed: Vec<String>,
    /// Each broker's count of partitions it leads in the last registration, by node id.
    pub leading: Vec<(i32, usize)>,
    /// With replicas beside the timeline: partitions where a replica holds an epoch the
    /// controller never granted, and where one led at an epoch its cache never learned.
    pub never_granted: Vec<String>,
    pub led_but_not_cached: Vec<String>,
}

impl HistoryReport {
    /// The summary of the whole timeline.
    pub fn summary(&self) -> HistorySummary {
        let mut s = HistorySummary { partition_count: self.partitions.len(), ..HistorySummary::default() };
        let mut leading: std::collections::BTreeMap<i32, usize> = std::collections::BTreeMap::new();
        for p in &self.partitions {
            s.change_count += p.changes.len();
            for c in &p.changes {
                s.first_timestamp = Some(s.first_timestamp.map_or(c.timestamp, |t| t.min(c.timestamp)));
                s.last_timestamp = Some(s.last_timestamp.map_or(c.timestamp, |t| t.max(c.timestamp)));
                if c.record == "PartitionRecord" {
                    continue;
                }
                if c.changed.contains(&"leader") {
                    s.leader_change_count += 1;
                    s.to_no_leader_count += usize::from(c.after.as_ref().is_some_and(|r| r.leader == NO_LEADER));
                }
                s.isr_change_count += usize::from(c.changed.contains(&"isr"));
            }
            match p.changes.last().map(|c| c.after.as_ref()) {
                Some(Some(r)) if r.leader == NO_LEADER => s.without_leader.push(p.partition.clone()),
                Some(Some(r)) => *leading.entry(r.leader).or_default() += 1,
                Some(None) => s.removed.push(p.partition.clone()),
                None => {}
            }
            if p.replicas.iter().any(|r| !r.never_granted.is_empty()) {
                s.never_granted.push(p.partition.clone());
            }
            if p.replicas.iter().any(|r| !r.led_but_not_cached.is_empty()) {
                s.led_but_not_cached.push(p.partition.clone());
            }
        }
        s.leading = leading.into_iter().collect();
        s
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
                format!(
                    "the metadata log never mentions partition {}: `klog history {}` lists the partitions it does",
                    crate::escape::arg(p),
                    req.path.display()
                ),
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
