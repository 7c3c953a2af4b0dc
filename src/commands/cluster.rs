//! One view across a cluster: `check`, `diff` and `recover --dry-run` given the data dirs of
//! several brokers (copies of a whole cluster). Per partition, every replica found across the
//! dirs is lined up against the current leader — the leader the KRaft metadata last recorded
//! when a `__cluster_metadata-0` is in any of the dirs, else an assumed one (highest latest
//! leader epoch, then largest log end, stated as assumed) — and the view says which replicas
//! diverge and where, which acknowledged records (below a replica's checkpointed high
//! watermark) the leader does not hold, and, when no clean leader is left, klog's advice and the
//! replica Kafka would elect, each with what it loses.
//!
//! Partitions are worked on in parallel ([`crate::parallel::parallel_map`]); each replica's log is
//! streamed ([`first_divergence`], [`diff_range`]: one batch decoded at a time), so memory is a
//! few segments' pages per worker whatever the logs' sizes. A partition that cannot be read is a
//! finding of that partition, never the end of the run. Never writes.

use super::data_dir::PartitionOutcome;
use super::recover::{self, LogDirsRead, RecoverReport, RecoverRequest};
use crate::error::{Error, Result};
use crate::kraft::partition_change::{self, Chosen, Election, Partition};
use crate::kraft::recorded::{LastRegistration, LeaderElection, MetadataFound, RecordedMetadata};
use crate::kraft::{MetadataPosition, PartitionRegistration, NO_LEADER};
use crate::log::names::{self, METADATA_TOPIC};
use crate::parallel::{parallel_map, NoProgress, ProgressSink};
use crate::replica::{check_replica, CheckReport, DirIds};
use crate::replica::{list_partition_dirs, looks_like_partition_dir, read_meta_properties, LogDirFiles, Replica};
use crate::replication::diff::{diff_range, first_divergence, first_divergence_crc_verified, RangeKind};
use crate::replication::release::Rules;
use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::path::{Path, PathBuf};

/// Which command asked for the view: what it adds to each replica's line.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ClusterCommand {
    /// `check`: each replica verified as `klog check` does (its findings).
    Check,
    /// `diff`: the line-up alone.
    Diff,
    /// `recover --dry-run`: each follower's restart against the current leader (where it would
    /// be cut, how many acked records the cut loses), as `recover --dry-run --leader` plans it.
    Recover,
}

impl ClusterCommand {
    pub fn name(self) -> &'static str {
        match self {
            ClusterCommand::Check => "check",
            ClusterCommand::Diff => "diff",
            ClusterCommand::Recover => "recover --dry-run",
        }
    }
}

pub struct ClusterRequest<'a> {
    /// The brokers' data dirs (log dirs), at least two.
    pub dirs: &'a [PathBuf],
    /// Only this partition (a name such as `orders-3`, never a path).
    pub partition: Option<&'a str>,
    pub command: ClusterCommand,
    /// The follower rules of `recover --dry-run` (ignored by the other commands).
    pub rules: Rules,
    /// `recover --metadata`: the KRaft metadata log to take the leaders from (else the
    /// furthest-along one among the dirs).
    pub metadata: Option<&'a Path>,
    /// `--allow-other-cluster`: dirs (or a metadata log) that do not say they are one cluster's
    /// are listed instead of refused.
    pub allow_other_cluster: bool,
}

/// One broker's data dir.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Broker {
    pub dir: String,
    /// `node.id` (KRaft) or `broker.id` (ZooKeeper) of its `meta.properties`.
    pub node_id: Option<i32>,
    pub cluster_id: Option<String>,
    pub partition_count: usize,
}

impl Broker {
    /// `broker 2` or, without a node id, the dir.
    pub fn label(&self) -> String {
        self.node_id.map_or_else(|| self.dir.clone(), |id| format!("broker {id}"))
    }
}

/// The metadata log the leaders were taken from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MetadataSource {
    /// The log dir holding the `__cluster_metadata-0` replayed (the one with the largest end).
    pub dir: String,
    pub log_end_offset: i64,
    pub records_read: u64,
    /// Metadata records that did not decode (they change nothing in the replay).
    pub unreadable_count: usize,
    /// The `cluster.id` of that dir: the metadata speaks for that cluster's replicas only.
    pub cluster_id: Option<String>,
}

/// Where the current leader of a partition came from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LeaderSource {
    /// The metadata's last record about the partition, at this offset (`None`: its snapshot).
    Metadata { offset: Option<i64>, snapshot_end_offset: Option<i64> },
    /// No metadata about it, and every replica is in a lab klog made: klog's state says which
    /// runs as the leader, at which epoch (`None`: none does; a crashed or stopped replica
    /// leads nothing).
    KlogState { leader_epoch: Option<i32> },
    /// No metadata about it: the replica with the highest latest leader epoch, then the
    /// largest log end (then the lowest node id) is assumed to lead.
    Assumed,
}

/// A range of offsets `first..=last` holding `record_count` records.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct OffsetRange {
    pub first_offset: i64,
    pub last_offset: i64,
    pub record_count: u64,
}

/// Acknowledged records of one replica that a candidate leader does not hold (absent, or
/// another record at the offset).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AckedMissing {
    /// Index into [`PartitionView::replicas`] of the replica that holds them.
    pub holder: usize,
    /// The holder's checkpointed high watermark: its records below it were acknowledged.
    pub high_watermark: i64,
    pub ranges: Vec<OffsetRange>,
}

impl AckedMissing {
    pub fn record_count(&self) -> u64 {
        self.ranges.iter().map(|r| r.record_count).sum()
    }
}

/// What `recover --dry-run --leader` plans for a follower against the current leader.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RestartOutcome {
    pub cut_offset: i64,
    pub truncated_count: u64,
    pub acked_lost_count: u64,
}

/// One replica of a partition, as found in one broker's dir.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReplicaLine {
    /// Index into [`ClusterView::brokers`].
    pub broker: usize,
    pub node_id: Option<i32>,
    pub log_start_offset: i64,
    pub log_end_offset: i64,
    /// The checkpointed high watermark (`None` when the checkpoint does not list the partition).
    pub high_watermark: Option<i64>,
    pub latest_leader_epoch: Option<i32>,
    /// Against the current leader: the first offset where they hold different records (`None`:
    /// identical up to the shorter log end; always `None` for the leader itself).
    pub first_divergent_offset: Option<i64>,
    /// Against the current leader: the offsets this replica holds that the leader does not hold
    /// (from its first divergence, or from the leader's log end when it is longer), which a
    /// restart as the leader's follower truncates; `None` when the leader holds them all.
    pub leader_lacks: Option<(i64, i64)>,
    /// `check`: the verifier's findings.
    pub findings: Vec<crate::replica::Finding>,
    /// `recover --dry-run`: the follower's restart against the leader (or why it has none).
    pub restart: Option<std::result::Result<RestartOutcome, String>>,
}

/// A candidate leader when no clean one is left, and what electing it loses.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Candidate {
    /// Index into [`PartitionView::replicas`].
    pub replica: usize,
    /// Why this replica: the rule applied.
    pub why: String,
    /// Acknowledged records of the other replicas it does not hold.
    pub loses: Vec<AckedMissing>,
}

/// When the current leader is missing or misses acknowledged records.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NoCleanLeader {
    /// klog's advice: the highest latest leader epoch, then the largest log end.
    pub advice: Candidate,
    /// The replica Kafka would elect (`None`: none of its candidates is among the dirs).
    pub kafka: Option<Candidate>,
    /// Why Kafka has no candidate here, when `kafka` is `None`.
    pub kafka_none: Option<String>,
}

/// One partition lined up across the brokers.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PartitionView {
    pub partition: String,
    /// Every replica found, in the brokers' order.
    pub replicas: Vec<ReplicaLine>,
    /// Index into `replicas` of the current leader (`None`: no leader among the dirs).
    pub leader: Option<usize>,
    pub leader_source: LeaderSource,
    /// What the metadata last recorded (leader, epoch, ISR, ELR, assignment).
    pub registration: Option<PartitionRegistration>,
    /// Acknowledged records of other replicas that the current leader does not hold.
    pub acked_missing: Vec<AckedMissing>,
    pub no_clean_leader: Option<NoCleanLeader>,
    /// When the leader is missing or lacks acknowledged records: indexes into `replicas` of
    /// those that hold every other replica's acknowledged records (a clean leader is left).
    pub clean_replicas: Vec<usize>,
    /// With no leader among the dirs but a clean replica left: the replica Kafka would elect.
    pub kafka_would_elect: Option<Candidate>,
    /// With no leader among the dirs but a clean replica left: why Kafka elects none of them
    /// (the partition stays offline), when it does not.
    pub kafka_none: Option<String>,
    /// The metadata's leader is among the dirs and lacks acknowledged records: the election
    /// that made it, which already happened.
    pub elected: Option<Elected>,
    /// Its replicas' brokers do not say they are one cluster (cluster ids differ or are
    /// missing, a node id repeats): the replicas are listed, never compared.
    pub not_one_cluster: bool,
    /// Replicas that could not be read: (broker index, why).
    pub unreadable: Vec<(usize, String)>,
    /// Facts worth knowing (a metadata leader not among the dirs, a replica the assignment
    /// does not name).
    pub notes: Vec<String>,
}

impl PartitionView {
    /// Replicas diverging from the leader.
    pub fn diverging(&self) -> impl Iterator<Item = &ReplicaLine> {
        self.replicas.iter().filter(|r| r.first_divergent_offset.is_some())
    }

    pub fn acked_missing_count(&self) -> u64 {
        self.acked_missing.iter().map(AckedMissing::record_count).sum()
    }

    /// Anything an operator must look at: divergence, acked records missing from the leader,
    /// no clean leader, an unreadable replica, a replica with findings or a restart losing
    /// acked records.
    pub fn needs_attention(&self) -> bool {
        self.diverging().next().is_some()
            || self.replicas.iter().any(|r| r.leader_lacks.is_some())
            || self.not_one_cluster
            || (self.leader.is_none() && !self.replicas.is_empty())
            || !self.acked_missing.is_empty()
            || self.no_clean_leader.is_some()
            || !self.unreadable.is_empty()
            || self.replicas.iter().any(|r| {
                !r.findings.is_empty()
                    || matches!(&r.restart, Some(Err(_)) | Some(Ok(RestartOutcome { acked_lost_count: 1.., .. })))
            })
    }
}

#[derive(Debug)]
pub struct ClusterView {
    pub command: ClusterCommand,
    pub brokers: Vec<Broker>,
    pub metadata: Option<MetadataSource>,
    /// Partitions needing attention first, then the others; each group in natural order.
    pub partitions: Vec<PartitionOutcome<PartitionView>>,
    /// Why the dirs may not be one cluster: mixed or missing cluster ids, duplicate node ids.
    pub warnings: Vec<String>,
    /// `recover --dry-run`: whether each broker (in `brokers`' order) would start on its dir, as
    /// `recover --dry-run DIR` forecasts its start-up load; empty for the other commands.
    pub starts: Vec<BrokerStart>,
}

/// Whether a broker would start on its dir: Kafka 4.4's start-up load forecast over every log
/// ([`recover::forecast_data_dir`], the forecast of `recover --dry-run DIR`).
#[derive(Debug)]
pub enum BrokerStart {
    /// It loads every log: how many, how many it cuts, and the bytes it removes.
    Starts { log_count: usize, cut_count: usize, bytes_removed: u64 },
    /// A log it cannot load stops it: the file, the position and why.
    WouldNotStart(String),
    /// klog's state runs partitions of it (a lab's broker): it has nothing to start.
    Running { partition_count: usize },
    /// The forecast itself could not be made (the dir does not read).
    Unknown(String),
}

impl BrokerStart {
    /// A broker that would not start, or whose start cannot be forecast: a finding.
    pub fn is_finding(&self) -> bool {
        matches!(self, BrokerStart::WouldNotStart(_) | BrokerStart::Unknown(_))
    }
}

/// The start-up forecast of the broker on `dir`.
fn broker_start(dir: &Path) -> BrokerStart {
    if let Ok(files) = LogDirFiles::read_tolerant(dir) {
        let running = files.running_partitions().len();
        if running > 0 {
            return BrokerStart::Running { partition_count: running };
        }
    }
    match recover::forecast_data_dir(dir, &mut NoProgress) {
        Ok(recover::StartForecast::Loads(load)) => BrokerStart::Starts {
            log_count: load.logs.len(),
            cut_count: load.logs_cut_count(),
            bytes_removed: load.bytes_removed(),
        },
        Ok(recover::StartForecast::Refuses(r)) => BrokerStart::WouldNotStart(r.refusal.to_string()),
        Err(e) => BrokerStart::Unknown(e.to_string()),
    }
}

impl ClusterView {
    /// Whether the dirs say they are one cluster (no warning about their identities).
    pub fn one_cluster(&self) -> bool {
        self.warnings.is_empty()
    }

    pub fn attention_count(&self) -> usize {
        self.partitions.iter().filter(|p| p.outcome.as_ref().map_or(true, PartitionView::needs_attention)).count()
    }

    /// Anything found: a partition needing a look, or a broker that would not start.
    pub fn has_findings(&self) -> bool {
        self.attention_count() > 0 || self.starts.iter().any(BrokerStart::is_finding)
    }
}

/// The warnings about the brokers' identities: cluster ids that differ or that only some
/// record, node ids that repeat or are missing.
fn identity_warnings(brokers: &[Broker]) -> Vec<String> {
    let mut out = Vec::new();
    let ids: BTreeSet<&str> = brokers.iter().filter_map(|b| b.cluster_id.as_deref()).collect();
    if ids.len() > 1 {
        let each: Vec<String> =
            brokers.iter().map(|b| format!("{} {}", b.dir, b.cluster_id.as_deref().unwrap_or("(none)"))).collect();
        out.push(format!(
            "the dirs are not one cluster: {} cluster ids ({}); replicas are lined up by name only",
            ids.len(),
            each.join(", ")
        ));
    } else if let Some(id) = ids.first() {
        let without: Vec<&str> = brokers.iter().filter(|b| b.cluster_id.is_none()).map(|b| b.dir.as_str()).collect();
        if !without.is_empty() {
            out.push(format!(
                "{} record{} no cluster.id but the others record {id}: nothing says they are one cluster",
                without.join(", "),
                if without.len() == 1 { "s" } else { "" }
            ));
        }
    }
    let mut by_id: BTreeMap<i32, Vec<&str>> = BTreeMap::new();
    for b in brokers {
        if let Some(id) = b.node_id {
            by_id.entry(id).or_default().push(&b.dir);
        }
    }
    for (id, dirs) in by_id.iter().filter(|(_, d)| d.len() > 1) {
        out.push(format!(
            "{} all say node id {id}: not brokers of one cluster (or copies of one broker); told apart by dir",
            dirs.join(", ")
        ));
    }
    for b in brokers.iter().filter(|b| b.node_id.is_none()) {
        out.push(format!("{} has no node id in meta.properties: named by its dir", b.dir));
    }
    out
}

/// What the record that elected a partition's current leader says of the election: how the
/// leader was chosen, and whether it was unclean (neither in the ISR, nor an ELR member with
/// the ISR empty, nor the last known leader).
fn elected(e: &LeaderElection) -> Elected {
    let id = e.after.leader;
    let (offset, snapshot_end_offset) = match e.position {
        MetadataPosition::Log(o) => (Some(o), None),
        MetadataPosition::Snapshot { end_offset } => (None, Some(end_offset)),
    };
    let (how, unclean) = match &e.before {
        None => ("as the topic was created".to_string(), false),
        Some(b) if b.leader == id => (format!("again, at a new leader epoch (ISR {:?})", b.isr), false),
        Some(b) if b.isr.contains(&id) => (format!("from the ISR {:?}", b.isr), false),
        Some(b) if b.isr.is_empty() && b.elr.contains(&id) => {
            (format!("from the ELR {:?}, the ISR being empty", b.elr), false)
        }
        Some(b) if b.isr.is_empty() && b.elr.is_empty() && b.last_known_elr == [id] => {
            (format!("as the last known leader (lastKnownElr {:?}), ISR and ELR empty", b.last_known_elr), false)
        }
        Some(b) => (
            format!(
                "an unclean election: broker {id} was in neither the ISR {:?} nor the ELR {:?} before",
                b.isr, b.elr
            ),
            true,
        ),
    };
    Elected { node_id: id, leader_epoch: e.after.leader_epoch, offset, snapshot_end_offset, how, unclean }
}

/// The election that made the metadata's current leader, when that leader lacks acknowledged
/// records of another replica: Kafka already made it (the view says where, not a forecast).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Elected {
    pub node_id: i32,
    pub leader_epoch: i32,
    /// The metadata offset of the record that elected it (`None`: in the snapshot ending at
    /// `snapshot_end_offset`).
    pub offset: Option<i64>,
    pub snapshot_end_offset: Option<i64>,
    /// How the controller chose it ("from the ISR [1, 2]", "an unclean election: ...").
    pub how: String,
    /// Neither in the ISR, nor an ELR member with the ISR empty, nor the last known leader.
    pub unclean: bool,
}

impl Elected {
    /// `metadata offset 96` or `the metadata snapshot ending at 120`.
    pub fn at(&self) -> String {
        match (self.offset, self.snapshot_end_offset) {
            (Some(o), _) => format!("metadata offset {o}"),
            (None, Some(e)) => format!("the metadata snapshot ending at {e}"),
            (None, None) => "the metadata".into(),
        }
    }
}

/// The metadata the view takes its leaders from: the furthest-along metadata log among the
/// dirs ([`RecordedMetadata::furthest_along`]), with where it was read.
struct Metadata {
    source: MetadataSource,
    /// The `cluster.id` of the dir whose metadata log it is.
    cluster_id: Option<String>,
    recorded: RecordedMetadata,
}

/// The metadata log `--metadata` names (it must replay: an error otherwise), else the
/// furthest-along one among the dirs (one that does not replay is a warning).
fn read_metadata(dirs: &[PathBuf], given: Option<&Path>, warnings: &mut Vec<String>) -> Result<Option<Metadata>> {
    if let Some(path) = given {
        let recorded = RecordedMetadata::read(path, MetadataFound::Given)?;
        let dir = recorded.log_dir.clone();
        return Ok(Some(metadata_of(&dir, recorded)));
    }
    let tagged = dirs.iter().map(|d| (d.as_path(), MetadataFound::DataDir));
    let (i, recorded) = match RecordedMetadata::furthest_along(tagged) {
        Ok(Some(found)) => found,
        Ok(None) => return Ok(None),
        Err(e) => {
            warnings.push(format!("the metadata log does not replay ({e}): leaders are assumed"));
            return Ok(None);
        }
    };
    Ok(Some(metadata_of(&dirs[i], recorded)))
}

/// The metadata replayed from the log dir `dir`, with that dir's `cluster.id`.
fn metadata_of(dir: &Path, recorded: RecordedMetadata) -> Metadata {
    let cluster_id =
        read_meta_properties(&dir.join(names::META_PROPERTIES)).ok().and_then(|m| m.get("cluster.id").cloned());
    Metadata {
        cluster_id: cluster_id.clone(),
        source: MetadataSource {
            dir: dir.display().to_string(),
            log_end_offset: recorded.log_end_offset,
            records_read: recorded.records_read,
            unreadable_count: recorded.unreadable_count,
            cluster_id,
        },
        recorded,
    }
}

/// Partition names of the dirs, their union in natural order (the metadata log excluded: it is
/// the controller quorum's log, not a replica of a partition the brokers lead).
fn union_names(per_dir: &[Vec<String>]) -> Vec<String> {
    let mut seen = std::collections::HashSet::new();
    let mut all: Vec<String> = per_dir
        .iter()
        .flatten()
        .filter(|n| *n != &format!("{METADATA_TOPIC}-0"))
        .filter(|n| seen.insert(*n))
        .cloned()
        .collect();
    all.sort_by_cached_key(|a| names::natural_key(a));
    all
}

/// `topic-N` ordered by topic, then partition number.
/// Acknowledged records of `holder` (below its checkpointed HW) that `candidate` does not hold,
/// by offset ranges; `divergence` is their first divergent offset (already known).
fn acked_missing_from(
    candidate: &Replica,
    holder: &Replica,
    holder_index: usize,
    divergence: Option<i64>,
) -> Result<Option<AckedMissing>> {
    let Some(hw) = holder.high_watermark_line().map(|_| holder.high_watermark()) else { return Ok(None) };
    // Below the first divergence (and the candidate's log end) both hold the same records;
    // below either log start, records were deleted by retention, not lost.
    let from = divergence
        .unwrap_or(i64::MAX)
        .min(candidate.log_end_offset())
        .max(holder.log_start_offset())
        .max(candidate.log_start_offset());
    if from >= hw.min(holder.log_end_offset()) {
        return Ok(None);
    }
    let d = diff_range(candidate.log(), holder.log(), from, hw)?;
    let ranges: Vec<OffsetRange> = d
        .ranges
        .iter()
        .filter(|r| matches!(r.kind, RangeKind::Differ | RangeKind::OnlyB))
        .map(|r| OffsetRange { first_offset: r.first_offset, last_offset: r.last_offset, record_count: r.record_count })
        .fold(Vec::new(), |mut acc: Vec<OffsetRange>, r| {
            match acc.last_mut() {
                Some(l) if l.last_offset + 1 == r.first_offset => {
                    l.last_offset = r.last_offset;
                    l.record_count += r.record_count;
                }
                _ => acc.push(r),
            }
            acc
        });
    Ok((!ranges.is_empty()).then_some(AckedMissing { holder: holder_index, high_watermark: hw, ranges }))
}

/// Where replicas `x` and `y` first differ: by batch headers when both were just verified
/// clean by `check` (every batch CRC checked), else by bytes.
fn divergence(replicas: &[Replica], verified: &Verified, x: usize, y: usize) -> Result<Option<i64>> {
    let (a, b) = (replicas[x].log(), replicas[y].log());
    if let (Some(dx), Some(dy)) = (verified.digests[x], verified.digests[y]) {
        if dx == dy {
            return Ok(None);
        }
    }
    if verified.clean[x] && verified.clean[y] {
        first_divergence_crc_verified(a, b)
    } else {
        first_divergence(a, b)
    }
}

/// What `check` learnt of each replica before the lineup: whether it verified without
/// findings, and then its (log start, log end, batch-header digest).
struct Verified {
    clean: Vec<bool>,
    digests: Vec<Option<(i64, i64, u64)>>,
}

/// What electing `candidate` loses: every other replica's acked records it does not hold.
fn losses(replicas: &[Replica], verified: &Verified, candidate: usize) -> Result<Vec<AckedMissing>> {
    let mut out = Vec::new();
    for (i, r) in replicas.iter().enumerate().filter(|(i, _)| *i != candidate) {
        let d = divergence(replicas, verified, candidate, i)?;
        out.extend(acked_missing_from(&replicas[candidate], r, i, d)?);
    }
    Ok(out)
}

/// klog's order of preference: highest latest leader epoch, then largest log end, then the
/// lowest node id (then the first dir).
fn preferred(lines: &[ReplicaLine]) -> Option<usize> {
    (0..lines.len()).max_by(|&a, &b| {
        let key = |i: usize| {
            let l = &lines[i];
            (
                l.latest_leader_epoch.unwrap_or(-1),
                l.log_end_offset,
                std::cmp::Reverse(l.node_id.unwrap_or(i32::MAX)),
                std::cmp::Reverse(i),
            )
        };
        key(a).cmp(&key(b))
    })
}

/// What the controller is allowed for one partition, from the metadata: whether the topic may
/// elect an out-of-sync replica (`unclean.leader.election.enable`, default false), where that
/// came from, and the topic's `min.insync.replicas`.
#[derive(Debug, Clone, Default)]
struct TopicSettings {
    unclean: bool,
    /// "the topic's config", "the cluster default", or Kafka's default.
    unclean_from: &'static str,
    min_isr: usize,
}

impl TopicSettings {
    fn of(recorded: Option<&RecordedMetadata>, topic: &str) -> TopicSettings {
        use crate::kraft::replay::ConfigSource;
        let from = |s: ConfigSource| match s {
            ConfigSource::Topic => "the topic's config",
            ConfigSource::ClusterDefault => "the cluster-wide default",
        };
        let unclean = recorded.and_then(|r| r.topic_config(topic, "unclean.leader.election.enable"));
        let min_isr = recorded
            .and_then(|r| r.topic_config(topic, "min.insync.replicas"))
            .and_then(|(v, _)| v.trim().parse::<usize>().ok())
            .unwrap_or(1);
        TopicSettings {
            unclean: unclean.is_some_and(|(v, _)| v.trim().eq_ignore_ascii_case("true")),
            unclean_from: unclean.map_or("Kafka's default", |(_, s)| from(s)),
            min_isr,
        }
    }
}

/// Which replica Kafka would elect with no leader or no clean one: with the metadata, the KRaft
/// controller (4.4) as the brokers of the dirs found come back. Each registers; one whose dir
/// shows an unclean shutdown (no `.kafka_cleanshutdown`) leaves the ISR and the ELR as it does
/// (`registered_after_unclean_shutdown`), all before any is unfenced; then the election ([`partition_change::choose`]): the
/// first live ISR member of the assignment, else an ELR member, else the last known leader, and
/// an out-of-sync replica only where `unclean.leader.election.enable` is true (else the
/// partition stays offline: `Err`, naming what an admin's unclean election would pick). Without
/// metadata the assignment and the config are unknown: the brokers' node-id order stands in for
/// the assignment (stated).
fn kafka_choice(
    lines: &[ReplicaLine],
    registration: Option<&PartitionRegistration>,
    topic: &TopicSettings,
    unclean_shutdown: &[i32],
) -> std::result::Result<(usize, String), String> {
    let live = |id: i32| lines.iter().position(|l| l.node_id == Some(id));
    let Some(reg) = registration else { return choice_without_metadata(lines) };
    let assignment: Vec<i32> = reg.replicas.iter().copied().take(32).collect();
    let set = |ids: &[i32]| {
        assignment.iter().enumerate().filter(|(_, id)| ids.contains(id)).fold(0u32, |m, (pos, _)| m | 1 << pos)
    };
    let mut p = Partition {
        leader: assignment.iter().position(|&id| id == reg.leader),
        isr: set(&reg.isr),
        elr: set(&reg.elr),
        last_known_elr: set(&reg.last_known_elr),
    };
    let alive =
        assignment.iter().enumerate().filter(|(_, &id)| live(id).is_some()).fold(0u32, |m, (pos, _)| m | 1 << pos);
    // ELR and the last known leader are recorded only when the feature is on.
    let elr_on = !reg.elr.is_empty() || !reg.last_known_elr.is_empty();
    let settings =
        partition_change::Settings { elr: elr_on, min_isr: topic.min_isr, last_known_leader_must_be_alive: true };
    let left = register_after_unclean_shutdown(&assignment, &mut p, &settings, alive, unclean_shutdown);
    let election = if topic.unclean { Election::Unclean } else { Election::Online };
    let (chosen, how) = partition_change::choose(assignment.len(), &p, elr_on, alive, election);
    let Some(pos) = chosen else {
        if alive == 0 {
            return Err(format!("none of the assignment {:?} is among the dirs", reg.replicas));
        }
        let first = assignment[alive.trailing_zeros() as usize];
        return Err(format!(
            "none: no live ISR or ELR member{left}, and unclean.leader.election.enable is false ({}), so the \
             partition stays offline; an admin's unclean election (kafka-leader-election --election-type unclean) \
             would elect broker {first}, the first live replica of the assignment {:?}",
            topic.unclean_from, reg.replicas
        ));
    };
    let id = assignment[pos];
    // With unclean elections allowed, a replica that the controller would elect unclean by
    // itself takes the lead if it is unfenced before the chosen one registers.
    let first_back = match (topic.unclean, how) {
        (true, Chosen::Isr | Chosen::Elr | Chosen::LastKnownLeader) => (0..assignment.len())
            .filter(|&r| r != pos && alive & (1 << r) != 0)
            .find(|&r| {
                partition_change::choose(assignment.len(), &p, elr_on, 1 << r, election) == (Some(r), Chosen::Unclean)
            })
            .map(|r| {
                format!(
                    "; but if broker {} comes back before broker {id}, the controller elects it at once (an unclean \
                     election, unclean.leader.election.enable being true by {})",
                    assignment[r], topic.unclean_from
                )
            }),
        _ => None,
    };
    let why = choice_reason(how, id, reg, topic, &left);
    Ok((live(id).expect("a live replica"), why + first_back.as_deref().unwrap_or("")))
}

/// Without metadata: the first live replica in node-id order, by an unclean election the dirs
/// cannot say is allowed.
fn choice_without_metadata(lines: &[ReplicaLine]) -> std::result::Result<(usize, String), String> {
    let mut ids: Vec<(i32, usize)> =
        lines.iter().enumerate().filter_map(|(i, l)| l.node_id.map(|id| (id, i))).collect();
    ids.sort();
    ids.first().map(|&(id, i)| {
        (i, format!("an unclean election, only if unclean.leader.election.enable is true, which these dirs cannot say (by Kafka's default the partition stays offline): the first live replica, the assignment assumed in node-id order (broker {id} first)"))
    }).ok_or_else(|| "no replica has a node id".to_string())
}

/// Every live broker of the assignment that shut down uncleanly registers again, in `p`; the
/// clause naming those that left the ISR and ELR by it (empty when none did).
fn register_after_unclean_shutdown(
    assignment: &[i32],
    p: &mut Partition,
    settings: &partition_change::Settings,
    alive: u32,
    unclean_shutdown: &[i32],
) -> String {
    let mut left = Vec::new();
    for (pos, id) in assignment.iter().enumerate() {
        if alive & (1 << pos) != 0 && unclean_shutdown.contains(id) {
            let before = *p;
            // Every broker registers before any is unfenced (the dirs are of stopped brokers):
            // no one is acceptable yet, so the registration elects no one.
            *p = partition_change::registered_after_unclean_shutdown(assignment.len(), p, settings, pos, 0);
            if (before.isr | before.elr) & (1 << pos) != 0 && (p.isr | p.elr) & (1 << pos) == 0 {
                left.push(*id);
            }
        }
    }
    match left.as_slice() {
        [] => String::new(),
        ids => format!(
            " (broker{} {} shut down uncleanly, so {} leaves the ISR and ELR as it registers again)",
            if ids.len() == 1 { "" } else { "s" },
            ids.iter().map(i32::to_string).collect::<Vec<_>>().join(", "),
            if ids.len() == 1 { "it" } else { "each" },
        ),
    }
}

/// Why the election chose broker `id`, in the words of the rule that chose it.
fn choice_reason(how: Chosen, id: i32, reg: &PartitionRegistration, topic: &TopicSettings, left: &str) -> String {
    match how {
        Chosen::Kept => format!("the recorded leader, broker {id}"),
        Chosen::Isr => {
            format!("the first live ISR member {:?} in assignment order {:?}: broker {id}{left}", reg.isr, reg.replicas)
        }
        Chosen::Elr => {
            format!("the ISR is empty: the first live eligible leader replica (ELR {:?}): broker {id}{left}", reg.elr)
        }
        Chosen::LastKnownLeader => {
            format!(
                "ISR and ELR empty: the last known leader (lastKnownElr {:?}): broker {id}{left}",
                reg.last_known_elr
            )
        }
        Chosen::Unclean | Chosen::None => format!(
            "unclean election (unclean.leader.election.enable is true by {}): the first live replica of the \
             assignment {:?}: broker {id}{left}",
            topic.unclean_from, reg.replicas
        ),
    }
}

struct Context<'a> {
    req: &'a ClusterRequest<'a>,
    brokers: &'a [Broker],
    files: &'a [LogDirFiles],
    metadata: Option<&'a Metadata>,
    /// Which brokers hold each partition.
    holders: &'a HashMap<String, Vec<usize>>,
}

fn refusal(e: &Error) -> String {
    e.to_string()
}

/// Each holder's replica of `name` opened, with its line; the brokers whose replica does not
/// open, with why.
fn open_replicas(cx: &Context<'_>, name: &str) -> (Vec<Replica>, Vec<ReplicaLine>, Vec<(usize, String)>) {
    let mut replicas: Vec<Replica> = Vec::new();
    let mut lines: Vec<ReplicaLine> = Vec::new();
    let mut unreadable = Vec::new();
    for &b in cx.holders.get(name).map_or(&[][..], Vec::as_slice) {
        match Replica::open_in(&cx.files[b], name) {
            Ok(r) => {
                lines.push(ReplicaLine {
                    broker: b,
                    node_id: cx.brokers[b].node_id,
                    log_start_offset: r.log_start_offset(),
                    log_end_offset: r.log_end_offset(),
                    high_watermark: r.high_watermark_line().map(|_| r.high_watermark()),
                    latest_leader_epoch: r.log().epoch_cache().latest_epoch(),
                    first_divergent_offset: None,
                    leader_lacks: None,
                    findings: Vec::new(),
                    restart: None,
                });
                replicas.push(r);
            }
            Err(e) => unreadable.push((b, refusal(&e))),
        }
    }
    (replicas, lines, unreadable)
}

/// `check`: each replica verified first (its own open: the check consumes it), its findings on
/// its line; a replica without findings has every batch CRC checked, so the lineup may compare
/// its headers. Other commands verify nothing.
fn verify_replicas(cx: &Context<'_>, name: &str, replicas: &[Replica], lines: &mut [ReplicaLine]) -> Result<Verified> {
    let mut verified = vec![false; replicas.len()];
    // For a verified replica: (log start, log end, header digest); two equal ones hold the
    // same batches, and their comparison reads nothing more.
    let mut digests: Vec<Option<(i64, i64, u64)>> = vec![None; replicas.len()];
    if cx.req.command == ClusterCommand::Check {
        for (i, line) in lines.iter_mut().enumerate() {
            let report: CheckReport = check_replica(Replica::open_in(&cx.files[line.broker], name)?, &mut NoProgress)?;
            verified[i] = report.is_clean();
            if verified[i] {
                digests[i] = Some((
                    replicas[i].log().first_offset().unwrap_or(-1),
                    line.log_end_offset,
                    report.verification.header_digest,
                ));
            }
            line.findings = report.verification.findings;
        }
    }
    Ok(Verified { clean: verified, digests })
}

/// The metadata's leader of a partition among `lines` (`None`: it records none, or its broker
/// is not among the dirs), with the notes that say what the dirs lack of what it recorded.
fn metadata_leader(
    reg: &PartitionRegistration,
    position: MetadataPosition,
    lines: &[ReplicaLine],
    notes: &mut Vec<String>,
) -> (Option<usize>, LeaderSource) {
    let (offset, snapshot_end_offset) = match position {
        MetadataPosition::Log(o) => (Some(o), None),
        MetadataPosition::Snapshot { end_offset } => (None, Some(end_offset)),
    };
    let leader = (reg.leader != NO_LEADER).then(|| lines.iter().position(|l| l.node_id == Some(reg.leader))).flatten();
    if reg.leader == NO_LEADER {
        notes.push(format!("the metadata records no leader (leader -1) at leader epoch {}", reg.leader_epoch));
        // Replicas the controller may elect whose dirs are not here: what they hold is
        // unseen, and Kafka's choice counts them as not coming back.
        let mut absent: Vec<i32> = Vec::new();
        for id in reg.isr.iter().chain(&reg.elr).chain(&reg.last_known_elr) {
            if !absent.contains(id) && !lines.iter().any(|l| l.node_id == Some(*id)) {
                absent.push(*id);
            }
        }
        if !absent.is_empty() {
            let named: Vec<String> = absent.iter().map(i32::to_string).collect();
            notes.push(format!(
                "broker{} {} (ISR {:?}, ELR {:?}, last known leader {:?}) {} not among the dirs: records \
                 only {} holds are not seen here, and Kafka's choice takes {} as not coming back",
                if absent.len() == 1 { "" } else { "s" },
                named.join(", "),
                reg.isr,
                reg.elr,
                reg.last_known_elr,
                if absent.len() == 1 { "is" } else { "are" },
                if absent.len() == 1 { "it" } else { "they" },
                if absent.len() == 1 { "it" } else { "them" },
            ));
        }
    } else if leader.is_none() {
        notes.push(format!(
            "the metadata's leader, broker {}, is not among the dirs (or its replica does not read)",
            reg.leader
        ));
    }
    for l in lines {
        if let Some(id) = l.node_id.filter(|id| !reg.replicas.contains(id)) {
            notes.push(format!("broker {id} holds a replica the assignment {:?} does not name", reg.replicas));
        }
    }
    (leader, LeaderSource::Metadata { offset, snapshot_end_offset })
}

/// `recover --dry-run`: each follower's restart against `leader` at the metadata's epoch, as
/// `recover --dry-run --leader` plans it, on its line.
fn plan_restarts(
    cx: &Context<'_>,
    name: &str,
    leader: usize,
    registration: Option<&PartitionRegistration>,
    lines: &mut [ReplicaLine],
) {
    let l = leader;
    let leader_dir = Path::new(&cx.brokers[lines[l].broker].dir).to_path_buf();
    let leader_epoch = registration.map(|r| r.leader_epoch).filter(|e| *e >= 0);
    for i in (0..lines.len()).filter(|i| *i != l) {
        let b = lines[i].broker;
        let follower_dir = Path::new(&cx.brokers[b].dir).to_path_buf();
        let one = RecoverRequest {
            dir: &follower_dir,
            partition: Some(name),
            leader: Some(&leader_dir),
            rules: cx.req.rules,
            dry_run: true,
            catch_up: false,
            context: 0,
            leader_epoch,
            told_first: false,
            fencing: true,
            metadata: None,
            allow_other_cluster: cx.req.allow_other_cluster,
            remote_dir: None,
        };
        // The epoch comes from this view's own replay of the metadata: the dry run does not
        // look the metadata up again for every follower.
        let no_metadata = None;
        let read = LogDirsRead {
            dir: Some(&cx.files[b]),
            leader: Some(&cx.files[lines[l].broker]),
            metadata: Some(&no_metadata),
        };
        lines[i].restart = Some(match recover::run_in(&one, read) {
            Ok(RecoverReport::Follower(r)) => Ok(RestartOutcome {
                cut_offset: r.cut_offset,
                truncated_count: (lines[i].log_end_offset - r.cut_offset).max(0) as u64,
                acked_lost_count: r.counts.acked_and_lost(),
            }),
            Ok(RecoverReport::Local(_)) => Err("no leader".into()),
            Err(e) => Err(refusal(&e)),
        });
    }
}

/// Replicas of brokers that do not say they are one cluster (another cluster.id, none, a node
/// id twice) are listed, never lined up: no leader, election or loss is invented. The note that
/// says so, when they are not.
fn not_one_cluster(cx: &Context<'_>, lines: &[ReplicaLine]) -> Option<String> {
    let identities: BTreeSet<Option<&str>> = lines.iter().map(|l| cx.brokers[l.broker].cluster_id.as_deref()).collect();
    let node_ids: BTreeSet<Option<i32>> = lines.iter().map(|l| l.node_id).collect();
    let not_one = lines.len() > 1
        && (identities.len() > 1
            || identities.contains(&None)
            || node_ids.len() < lines.len()
            || node_ids.contains(&None));
    not_one.then(|| {
        let each: Vec<String> = lines
            .iter()
            .map(|l| {
                let b = &cx.brokers[l.broker];
                format!("{} ({})", b.dir, b.cluster_id.as_deref().unwrap_or("no cluster.id"))
            })
            .collect();
        format!("its replicas are not of one cluster ({}): listed, not compared", each.join(", "))
    })
}

/// In klog's own labs: the replica klog's state runs as leader (the latest epoch, if two think
/// they lead), before any guess from the logs.
fn klog_state_leader(replicas: &[Replica]) -> (Option<usize>, LeaderSource) {
    let leading = (0..replicas.len())
        .filter_map(|i| {
            replicas[i]
                .state()
                .filter(|s| s.role == crate::replica::Role::Leader)
                .map(|s| (s.leader_epoch, std::cmp::Reverse(i)))
        })
        .max();
    match leading {
        Some((e, std::cmp::Reverse(i))) => (Some(i), LeaderSource::KlogState { leader_epoch: Some(e) }),
        None => (None, LeaderSource::KlogState { leader_epoch: None }),
    }
}

/// Every replica lined up against the leader `l`: where it diverges, what it holds that the
/// leader lacks (on its line), and the acknowledged records the leader does not hold.
fn line_up(
    replicas: &[Replica],
    verified: &Verified,
    l: usize,
    lines: &mut [ReplicaLine],
) -> Result<Vec<AckedMissing>> {
    let mut acked_missing = Vec::new();
    for i in (0..replicas.len()).filter(|i| *i != l) {
        let d = divergence(replicas, verified, l, i)?;
        lines[i].first_divergent_offset = d;
        let from = d.unwrap_or(lines[l].log_end_offset).max(lines[i].log_start_offset);
        lines[i].leader_lacks = (from < lines[i].log_end_offset).then(|| (from, lines[i].log_end_offset - 1));
        acked_missing.extend(acked_missing_from(&replicas[l], &replicas[i], i, d)?);
    }
    Ok(acked_missing)
}

/// No clean leader is left: klog's advice, and Kafka's choice — the election the metadata
/// already recorded when its leader lacks acknowledged records, else the controller's forecast
/// (`choice`) — each with what it loses.
fn no_clean_leader(
    replicas: &[Replica],
    verified: &Verified,
    lines: &[ReplicaLine],
    leader: Option<usize>,
    elected: Option<&Elected>,
    choice: std::result::Result<(usize, String), String>,
) -> Result<NoCleanLeader> {
    let advice = preferred(lines).expect("a replica");
    let advice = Candidate {
        replica: advice,
        why: "the highest latest leader epoch, then the largest log end".into(),
        loses: losses(replicas, verified, advice)?,
    };
    let (kafka, kafka_none) = match (elected, leader, choice) {
        (Some(e), Some(l), _) => {
            let why = format!("at {}, leader epoch {}: {}", e.at(), e.leader_epoch, e.how);
            (Some(Candidate { replica: l, why, loses: losses(replicas, verified, l)? }), None)
        }
        (_, _, Ok((i, why))) => (Some(Candidate { replica: i, why, loses: losses(replicas, verified, i)? }), None),
        (_, _, Err(why)) => (None, Some(why)),
    };
    Ok(NoCleanLeader { advice, kafka, kafka_none })
}

impl PartitionView {
    /// The view of a partition whose dirs are of more than one cluster: the lines only.
    fn of_several_clusters(
        name: &str,
        lines: Vec<ReplicaLine>,
        unreadable: Vec<(usize, String)>,
        notes: Vec<String>,
    ) -> PartitionView {
        PartitionView {
            partition: name.to_string(),
            replicas: lines,
            leader: None,
            leader_source: LeaderSource::Assumed,
            registration: None,
            acked_missing: Vec::new(),
            no_clean_leader: None,
            clean_replicas: Vec::new(),
            kafka_would_elect: None,
            kafka_none: None,
            elected: None,
            not_one_cluster: true,
            unreadable,
            notes,
        }
    }
}

/// The partition's leader and where the view got it: the metadata's record, else in klog's own
/// labs the replica klog's state runs as leader, else the preferred line (assumed).
fn choose_leader(
    cx: &Context<'_>,
    recorded: Option<&LastRegistration>,
    replicas: &[Replica],
    lines: &[ReplicaLine],
    notes: &mut Vec<String>,
) -> (Option<usize>, LeaderSource) {
    match recorded {
        Some(LastRegistration { registration: reg, position, .. }) => metadata_leader(reg, *position, lines, notes),
        // klog's own labs: the replica klog's state runs as leader (the latest epoch, if two
        // think they lead), before any guess from the logs.
        None if !replicas.is_empty()
            && lines.iter().all(|l| crate::replica::made_by_klog(Path::new(&cx.brokers[l.broker].dir))) =>
        {
            klog_state_leader(replicas)
        }
        None => (preferred(lines), LeaderSource::Assumed),
    }
}

/// What the controller may do (the topic's settings from the metadata, when it records the
/// partition), with the brokers that come back after an unclean shutdown: [`kafka_choice`].
fn controller_choice(
    cx: &Context<'_>,
    name: &str,
    recorded: bool,
    lines: &[ReplicaLine],
    registration: Option<&PartitionRegistration>,
) -> std::result::Result<(usize, String), String> {
    let metadata = cx.metadata.filter(|_| recorded);
    let topic = TopicSettings::of(metadata.map(|m| &m.recorded), name.rsplit_once('-').map_or(name, |(t, _)| t));
    let unclean_shutdown: Vec<i32> =
        lines.iter().filter(|l| !cx.files[l.broker].clean_shutdown()).filter_map(|l| l.node_id).collect();
    kafka_choice(lines, registration, &topic, &unclean_shutdown)
}

/// The replicas, the leader aside, that would lose no acknowledged record if they led.
fn replicas_losing_nothing(replicas: &[Replica], verified: &Verified, leader: Option<usize>) -> Result<Vec<usize>> {
    let mut clean = Vec::new();
    for i in (0..replicas.len()).filter(|i| Some(*i) != leader) {
        if losses(replicas, verified, i)?.is_empty() {
            clean.push(i);
        }
    }
    Ok(clean)
}

/// One partition lined up across the brokers holding it.
fn view_partition(cx: &Context<'_>, name: &str) -> Result<PartitionView> {
    let (replicas, mut lines, unreadable) = open_replicas(cx, name);
    let mut notes = Vec::new();
    let verified = verify_replicas(cx, name, &replicas, &mut lines)?;
    if let Some(note) = not_one_cluster(cx, &lines) {
        notes.push(note);
        return Ok(PartitionView::of_several_clusters(name, lines, unreadable, notes));
    }
    // The metadata speaks for its own cluster only.
    let recorded = cx
        .metadata
        .filter(|m| lines.first().is_none_or(|l| cx.brokers[l.broker].cluster_id == m.cluster_id))
        .and_then(|m| m.recorded.last(name));
    let registration = recorded.map(|r| r.registration.clone());
    let election = recorded.and_then(|_| cx.metadata?.recorded.election(name));
    let (leader, leader_source) = choose_leader(cx, recorded, &replicas, &lines, &mut notes);
    let acked_missing = match leader {
        Some(l) => line_up(&replicas, &verified, l, &mut lines)?,
        None => Vec::new(),
    };
    // When the leader is missing or lacks acked records: the replicas that lack none.
    let clean_replicas = if leader.is_none() || !acked_missing.is_empty() {
        replicas_losing_nothing(&replicas, &verified, leader)?
    } else {
        Vec::new()
    };
    let choice = controller_choice(cx, name, recorded.is_some(), &lines, registration.as_ref());
    let (kafka_would_elect, kafka_none) = match choice.clone() {
        Ok((i, why)) if leader.is_none() && !clean_replicas.is_empty() => {
            (Some(Candidate { replica: i, why, loses: losses(&replicas, &verified, i)? }), None)
        }
        Err(why) if leader.is_none() && !clean_replicas.is_empty() => (None, Some(why)),
        _ => (None, None),
    };
    // The metadata's leader lacks acknowledged records: the election that lost them happened
    // (its record is in the metadata); the view says so instead of forecasting it.
    let elected = match (leader, election) {
        (Some(l), Some(e)) if !acked_missing.is_empty() && lines[l].node_id == Some(e.after.leader) => Some(elected(e)),
        _ => None,
    };
    let no_clean_leader =
        if (leader.is_none() || !acked_missing.is_empty()) && clean_replicas.is_empty() && !replicas.is_empty() {
            Some(no_clean_leader(&replicas, &verified, &lines, leader, elected.as_ref(), choice)?)
        } else {
            None
        };
    if let (ClusterCommand::Recover, Some(l)) = (&cx.req.command, leader) {
        plan_restarts(cx, name, l, registration.as_ref(), &mut lines);
    }
    Ok(PartitionView {
        partition: name.to_string(),
        replicas: lines,
        leader,
        leader_source,
        registration,
        acked_missing,
        no_clean_leader,
        clean_replicas,
        kafka_would_elect,
        kafka_none,
        elected,
        not_one_cluster: false,
        unreadable,
        notes,
    })
}

/// The request checked before any dir is read: two dirs at least, each named once, a partition
/// that is a name; a dry run probes each dir's lock.
fn check_request(req: &ClusterRequest<'_>) -> Result<()> {
    if req.dirs.len() < 2 {
        let one = req.dirs.first().map_or_else(|| "no dir".to_string(), |d| d.display().to_string());
        return Err(Error::Usage(format!(
            "a cluster view needs the data dirs of at least two brokers, and got one ({one}): name each broker's dir"
        )));
    }
    if let Some(p) = req.partition {
        if Path::new(p).file_name().is_none_or(|n| n != p) || names::parse_topic_partition(p).is_none() {
            return Err(Error::Usage(format!(
                "--partition {} is a partition name (topic-N), not a path",
                crate::escape::arg(p)
            )));
        }
    }
    if req.command == ClusterCommand::Recover {
        // A dry run never takes a lock: a broker running on a dir is said once, not refused.
        for d in req.dirs {
            crate::replica::DirLock::probe_for_dry_run(d)?;
        }
    }
    for (i, a) in req.dirs.iter().enumerate() {
        for b in &req.dirs[i + 1..] {
            let same = match (a.canonicalize(), b.canonicalize()) {
                (Ok(x), Ok(y)) => x == y,
                _ => a == b,
            };
            if same {
                return Err(Error::layout(b, format!("is named twice (also as {}): one dir per broker", a.display())));
            }
        }
    }
    Ok(())
}

/// One broker's data dir `d`: the broker, its log dir's own files, and its partitions (only
/// `partition` when one is named).
fn read_broker_dir(d: &Path, partition: Option<&str>) -> Result<(Broker, LogDirFiles, Vec<String>)> {
    if !d.is_dir() {
        return Err(Error::layout(d, "is not a directory (a broker's data dir is expected)"));
    }
    if looks_like_partition_dir(d) {
        let name = d.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
        return Err(Error::layout(
            d,
            format!("is a partition dir: the cluster view takes brokers' data dirs (add --partition {name} for one partition)"),
        ));
    }
    let meta = read_meta_properties(&d.join(names::META_PROPERTIES)).unwrap_or_default();
    let node_id = meta.get("node.id").or_else(|| meta.get("broker.id")).and_then(|v| v.trim().parse().ok());
    let mut partitions: Vec<String> = list_partition_dirs(d)?
        .iter()
        .filter_map(|p| p.file_name().map(|n| n.to_string_lossy().into_owned()))
        .collect();
    if let Some(p) = partition {
        partitions.retain(|n| n == p);
    }
    let broker = Broker {
        dir: d.display().to_string(),
        node_id,
        cluster_id: meta.get("cluster.id").cloned(),
        partition_count: partitions.len(),
    };
    Ok((broker, LogDirFiles::read_tolerant(d)?, partitions))
}

/// The cluster view of `req.dirs`.
pub fn run(req: &ClusterRequest<'_>, progress: &mut dyn ProgressSink) -> Result<ClusterView> {
    check_request(req)?;
    let mut brokers = Vec::new();
    let mut files = Vec::new();
    let mut per_dir = Vec::new();
    for d in req.dirs {
        let (broker, dir_files, partitions) = read_broker_dir(d, req.partition)?;
        brokers.push(broker);
        files.push(dir_files);
        per_dir.push(partitions);
    }
    // Lined up as one cluster's brokers only when they say so (or when asked).
    let ids: Vec<DirIds> = brokers
        .iter()
        .zip(req.dirs)
        .map(|(b, d)| DirIds {
            log_dir: d.clone(),
            cluster_id: b.cluster_id.clone(),
            node_id: b.node_id,
            node_id_defaulted: DirIds::read(d).node_id_defaulted,
        })
        .collect();
    crate::replica::ensure_one_cluster(&ids, req.allow_other_cluster)?;
    let mut warnings = identity_warnings(&brokers);
    let metadata = read_metadata(req.dirs, req.metadata, &mut warnings)?;
    if let Some(m) = &metadata {
        crate::replica::ensure_metadata_of(&m.recorded.log_dir, &ids, req.allow_other_cluster)?;
    }
    let names = union_names(&per_dir);
    if let (Some(p), true) = (req.partition, names.is_empty()) {
        return Err(Error::layout(
            &req.dirs[0],
            format!("no dir holds partition {p}: leave --partition out to see every partition the dirs hold"),
        ));
    }
    let mut holders: HashMap<String, Vec<usize>> = HashMap::new();
    for (b, parts) in per_dir.iter().enumerate() {
        for n in parts {
            holders.entry(n.clone()).or_default().push(b);
        }
    }
    let cx = Context { req, brokers: &brokers, files: &files, metadata: metadata.as_ref(), holders: &holders };
    let mut partitions = parallel_map(
        &names,
        |name| PartitionOutcome {
            partition: name.clone(),
            outcome: view_partition(&cx, name).map_err(|e| refusal(&e)),
        },
        progress,
    );
    partitions.sort_by_key(|p| p.outcome.as_ref().is_ok_and(|v| !v.needs_attention()));
    let starts = match req.command {
        ClusterCommand::Recover => req.dirs.iter().map(|d| broker_start(d)).collect(),
        ClusterCommand::Check | ClusterCommand::Diff => Vec::new(),
    };
    Ok(ClusterView {
        command: req.command,
        brokers,
        metadata: metadata.map(|m| m.source),
        partitions,
        warnings,
        starts,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn broker(dir: &str, node_id: Option<i32>, cluster_id: Option<&str>) -> Broker {
        Broker { dir: dir.into(), node_id, cluster_id: cluster_id.map(Into::into), partition_count: 1 }
    }

    fn line(node_id: i32, epoch: i32, leo: i64) -> ReplicaLine {
        ReplicaLine {
            broker: 0,
            node_id: Some(node_id),
            log_start_offset: 0,
            log_end_offset: leo,
            high_watermark: None,
            latest_leader_epoch: Some(epoch),
            first_divergent_offset: None,
            leader_lacks: None,
            findings: Vec::new(),
            restart: None,
        }
    }

    #[test]
    fn one_cluster_has_no_identity_warning() {
        let b = [broker("a", Some(1), Some("c")), broker("b", Some(2), Some("c"))];
        assert!(identity_warnings(&b).is_empty());
    }

    #[test]
    fn mixed_cluster_ids_and_repeated_node_ids_are_warned() {
        let b = [broker("a", Some(0), None), broker("b", Some(0), None), broker("k", Some(1), Some("x"))];
        let w = identity_warnings(&b);
        assert!(w.iter().any(|w| w.contains("a, b record no cluster.id")), "{w:?}");
        assert!(w.iter().any(|w| w.contains("a, b all say node id 0")), "{w:?}");
        let b = [broker("a", Some(0), Some("x")), broker("b", Some(1), Some("y"))];
        assert!(identity_warnings(&b)[0].contains("not one cluster: 2 cluster ids"));
    }

    #[test]
    fn advice_prefers_the_highest_epoch_then_the_largest_log_end() {
        assert_eq!(preferred(&[line(1, 3, 10), line(2, 4, 5), line(3, 4, 7)]), Some(2));
        assert_eq!(preferred(&[line(1, 4, 7), line(2, 4, 7)]), Some(0));
    }

    #[test]
    fn kafka_elects_from_the_elr_then_the_last_known_leader_then_the_assignment() {
        let lines = [line(1, 3, 10), line(2, 4, 5), line(3, 4, 7)];
        let unclean = TopicSettings { unclean: true, unclean_from: "the topic's config", min_isr: 1 };
        let choice = |reg: &PartitionRegistration, t: &TopicSettings, crashed: &[i32]| {
            kafka_choice(&lines, Some(reg), t, crashed).map(|(i, _)| i)
        };
        let mut reg = PartitionRegistration { replicas: vec![3, 2, 1], leader: NO_LEADER, ..Default::default() };
        assert_eq!(choice(&reg, &unclean, &[]), Ok(2));
        // unclean.leader.election.enable false (Kafka's default): offline, naming the admin's pick.
        let e = choice(&reg, &TopicSettings::default(), &[]).unwrap_err();
        assert!(e.contains("stays offline") && e.contains("would elect broker 3"), "{e}");
        reg.last_known_elr = vec![1];
        assert_eq!(choice(&reg, &TopicSettings::default(), &[]), Ok(0));
        reg.elr = vec![9, 2];
        assert_eq!(choice(&reg, &TopicSettings::default(), &[]), Ok(1));
        // An ELR member whose dir shows an unclean shutdown leaves the ELR as it registers: the
        // last known leader is next; without one the partition stays offline.
        let (i, why) = kafka_choice(&lines, Some(&reg), &TopicSettings::default(), &[2]).unwrap();
        assert_eq!(i, 0);
        assert!(
            why.contains("broker 2 shut down uncleanly, so it leaves") && why.contains("last known leader"),
            "{why}"
        );
        let no_last = PartitionRegistration { last_known_elr: vec![], ..reg.clone() };
        let e = choice(&no_last, &TopicSettings::default(), &[2]).unwrap_err();
        assert!(e.contains("broker 2 shut down uncleanly") && e.contains("stays offline"), "{e}");
        assert_eq!(choice(&no_last, &unclean, &[2]), Ok(2), "unclean: the first live replica of [3, 2, 1]");
        assert_eq!(kafka_choice(&lines, None, &TopicSettings::default(), &[]).unwrap().0, 0);
        reg.isr = vec![8, 3];
        assert_eq!(choice(&reg, &TopicSettings::default(), &[]), Ok(2), "the ISR first");
        reg = PartitionRegistration { replicas: vec![7], ..Default::default() };
        assert!(choice(&reg, &unclean, &[]).is_err());
    }

    /// The real brokers' sequence `b` (tests/kafka/real_choice.rs): with unclean elections on, the
    /// last known leader is the choice only if it is back first; another replica unfenced before
    /// it is elected at once.
    #[test]
    fn with_unclean_elections_on_the_choice_says_who_wins_by_coming_back_first() {
        let lines = [line(1, 0, 6), line(2, 0, 3)];
        let unclean = TopicSettings { unclean: true, unclean_from: "the topic's config", min_isr: 1 };
        let reg = PartitionRegistration {
            replicas: vec![1, 2],
            leader: NO_LEADER,
            elr: vec![1],
            last_known_elr: vec![1],
            ..Default::default()
        };
        let (i, why) = kafka_choice(&lines, Some(&reg), &unclean, &[1, 2]).unwrap();
        assert_eq!(i, 0, "{why}");
        assert!(why.contains("last known leader") && why.contains("if broker 2 comes back before broker 1"), "{why}");
        let (_, why) = kafka_choice(&lines, Some(&reg), &TopicSettings::default(), &[1, 2]).unwrap();
        assert!(!why.contains("comes back before"), "no race without unclean elections: {why}");
        // Broker 1's dir lost: broker 2 is elected unclean.
        let (i, why) = kafka_choice(&lines[1..], Some(&reg), &unclean, &[2]).unwrap();
        assert_eq!(i, 0);
        assert!(why.starts_with("unclean election"), "{why}");
    }

    #[test]
    fn an_election_record_says_how_its_leader_was_chosen() {
        let before = PartitionRegistration {
            replicas: vec![1, 2],
            leader: NO_LEADER,
            leader_epoch: 1,
            elr: vec![1],
            last_known_elr: vec![1],
            ..Default::default()
        };
        let after = PartitionRegistration { leader: 2, leader_epoch: 2, isr: vec![2], elr: vec![], ..before.clone() };
        let e = LeaderElection { position: MetadataPosition::Log(96), before: Some(before.clone()), after };
        let made = elected(&e);
        assert_eq!((made.node_id, made.leader_epoch, made.offset, made.unclean), (2, 2, Some(96), true));
        assert_eq!(made.at(), "metadata offset 96");
        assert!(made.how.contains("neither the ISR [] nor the ELR [1]"), "{}", made.how);
        let from_elr = PartitionRegistration { leader: 1, leader_epoch: 2, isr: vec![1], ..before.clone() };
        let e = LeaderElection { position: MetadataPosition::Log(97), before: Some(before.clone()), after: from_elr };
        assert!(!elected(&e).unclean && elected(&e).how.contains("from the ELR [1]"));
        let isr = PartitionRegistration { isr: vec![1, 2], elr: vec![], last_known_elr: vec![], ..before };
        let e = LeaderElection {
            position: MetadataPosition::Snapshot { end_offset: 120 },
            before: Some(isr.clone()),
            after: PartitionRegistration { leader: 2, leader_epoch: 2, ..isr },
        };
        assert!(!elected(&e).unclean && elected(&e).at() == "the metadata snapshot ending at 120");
    }
}
