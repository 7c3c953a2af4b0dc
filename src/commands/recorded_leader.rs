//! The leader a restart plan assumes, from the truth when there is one: the leader, leader
//! epoch, ISR and ELR the KRaft metadata log (`__cluster_metadata-0`) last recorded for the
//! partition, replayed as `klog history` replays it ([`super::history::replay_metadata`]). The
//! metadata log is the one `--metadata DIR` names, else the furthest-along of the leader's and
//! the follower's log dirs (each broker keeps a replica of it); without one, the old assumption
//! holds and is stated: the leader leads at the latest epoch in its cache. Never writes.

use super::history::replay_metadata;
use crate::error::Result;
use crate::log::names::METADATA_TOPIC;
use crate::partition_registration::{MetadataPosition, PartitionRegistration, NO_LEADER};
use std::collections::HashMap;
use std::path::{Path, PathBuf};

/// Where the metadata log came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MetadataFound {
    /// `--metadata DIR`.
    Given,
    /// In the leader's log dir.
    LeaderDir,
    /// In the follower's log dir.
    FollowerDir,
}

impl MetadataFound {
    pub fn name(self) -> &'static str {
        match self {
            MetadataFound::Given => "given",
            MetadataFound::LeaderDir => "leader_dir",
            MetadataFound::FollowerDir => "follower_dir",
        }
    }
}

/// What the metadata last recorded about one partition.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RecordedLeadership {
    /// The `__cluster_metadata-0` dir it was read from.
    pub metadata_dir: PathBuf,
    pub found: MetadataFound,
    /// Where the partition's last change is (a log offset, or the snapshot it came from).
    pub position: MetadataPosition,
    /// The controller's clock when it wrote that change.
    pub timestamp: i64,
    pub registration: PartitionRegistration,
}

impl RecordedLeadership {
    /// `offset N` / `snapshot ending at offset N`, in `DIR`.
    pub fn whereabouts(&self) -> String {
        let at = match self.position {
            MetadataPosition::Log(o) => format!("offset {o}"),
            MetadataPosition::Snapshot { end_offset } => format!("snapshot ending at offset {end_offset}"),
        };
        format!("metadata {at} in {}", self.metadata_dir.display())
    }

    /// The metadata log offset of the change (`None` for a snapshot's record).
    pub fn offset(&self) -> Option<i64> {
        match self.position {
            MetadataPosition::Log(o) => Some(o),
            MetadataPosition::Snapshot { .. } => None,
        }
    }
}

/// A replayed metadata log, reduced to each partition's last recorded registration.
#[derive(Debug, Clone)]
pub struct RecordedMetadata {
    pub metadata_dir: PathBuf,
    pub found: MetadataFound,
    /// Where the metadata log ends (how far along this copy of it is).
    pub log_end_offset: i64,
    last: HashMap<String, (MetadataPosition, i64, PartitionRegistration)>,
    /// Per partition, the (leader, leader epoch) terms whose every registration had the leader
    /// alone in the ISR, with the topic's min.insync.replicas at 1: the leader's HW followed its
    /// log end, so each record it appended in that term was committed as it was appended.
    lone_terms: HashMap<String, Vec<(i32, i32)>>,
}

impl RecordedMetadata {
    /// Replay the metadata log at `path` (a log dir holding `__cluster_metadata-0`, or that dir).
    pub fn read(path: &Path, found: MetadataFound) -> Result<RecordedMetadata> {
        let mut m = replay_metadata(path)?;
        let mut last = HashMap::new();
        // (partition, leader, epoch) → the leader was alone in the ISR in every registration.
        let mut terms: HashMap<(String, i32, i32), bool> = HashMap::new();
        for c in std::mem::take(&mut m.replay.changes) {
            match c.after {
                Some(reg) => {
                    if reg.leader >= 0 {
                        let alone = reg.isr == [reg.leader];
                        *terms.entry((c.partition.clone(), reg.leader, reg.leader_epoch)).or_insert(true) &= alone;
                    }
                    last.insert(c.partition, (c.position, c.timestamp, reg));
                }
                // A removed topic's partition has no leader to assume.
                None => {
                    last.remove(&c.partition);
                }
            }
        }
        // min.insync.replicas as the metadata sets it; Kafka's default 1 where it sets none (a
        // broker's static setting is not in the dirs).
        let min_isr_one = |partition: &str| {
            let topic = partition.rsplit_once('-').map_or(partition, |(t, _)| t);
            m.replay.topic_config(topic, "min.insync.replicas").is_none_or(|(v, _)| v.trim() == "1")
        };
        let mut lone_terms: HashMap<String, Vec<(i32, i32)>> = HashMap::new();
        for ((partition, leader, epoch), alone) in terms {
            if alone && min_isr_one(&partition) {
                lone_terms.entry(partition).or_default().push((leader, epoch));
            }
        }
        Ok(RecordedMetadata { metadata_dir: m.dir, found, log_end_offset: m.log_end_offset, last, lone_terms })
    }

    /// The leader epochs in which the metadata shows broker `leader` leading `partition` alone
    /// in the ISR throughout, with min.insync.replicas 1 (the topic's, or Kafka's default where
    /// the metadata sets none): every record it appended at those epochs was committed.
    pub fn lone_leader_epochs(&self, partition: &str, leader: i32) -> Vec<i32> {
        let mut epochs: Vec<i32> = self
            .lone_terms
            .get(partition)
            .map_or(&[][..], Vec::as_slice)
            .iter()
            .filter(|(l, _)| *l == leader)
            .map(|(_, e)| *e)
            .collect();
        epochs.sort_unstable();
        epochs
    }

    /// The metadata log `--metadata` names, else the one in the leader's or the follower's log
    /// dir that reaches further (the leader's on a tie); `None` when neither holds one.
    pub fn find(leader_log_dir: &Path, follower_log_dir: &Path, given: Option<&Path>) -> Result<Option<Self>> {
        if let Some(dir) = given {
            return Self::read(dir, MetadataFound::Given).map(Some);
        }
        let has = |d: &Path| d.join(format!("{METADATA_TOPIC}-0")).is_dir();
        let mut best: Option<RecordedMetadata> = None;
        for (dir, found) in [(leader_log_dir, MetadataFound::LeaderDir), (follower_log_dir, MetadataFound::FollowerDir)]
        {
            if has(dir) {
                let m = Self::read(dir, found)?;
                if best.as_ref().is_none_or(|b| m.log_end_offset > b.log_end_offset) {
                    best = Some(m);
                }
            }
        }
        Ok(best)
    }

    /// What the metadata last recorded about `partition` (`None` if it never mentions it, or
    /// the topic was removed).
    pub fn partition(&self, partition: &str) -> Option<RecordedLeadership> {
        self.last.get(partition).map(|(position, timestamp, registration)| RecordedLeadership {
            metadata_dir: self.metadata_dir.clone(),
            found: self.found,
            position: *position,
            timestamp: *timestamp,
            registration: registration.clone(),
        })
    }

    pub fn partition_count(&self) -> usize {
        self.last.len()
    }
}

/// Where the leader epoch (and leader) a follower report assumes came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LeaderEpochSource {
    /// klog's state: the leader runs at this epoch (`klog elect`).
    Running,
    /// A broker's data dir named the leader: the latest epoch in its leader-epoch-checkpoint
    /// (no metadata said otherwise).
    LatestCached,
    /// `--leader-epoch`, as the controller gave it.
    Given,
    /// The metadata log names the leader, at the epoch it last recorded.
    Metadata,
    /// The metadata log names another broker leader (or none): the leader leads only once the
    /// controller elects it, at the next epoch.
    MetadataNextElection,
}

impl LeaderEpochSource {
    pub fn name(self) -> &'static str {
        match self {
            LeaderEpochSource::Running => "running",
            LeaderEpochSource::LatestCached => "latest_cached",
            LeaderEpochSource::Given => "given",
            LeaderEpochSource::Metadata => "metadata",
            LeaderEpochSource::MetadataNextElection => "metadata_next_election",
        }
    }

    /// A short form for a table cell.
    pub fn short(self) -> &'static str {
        match self {
            LeaderEpochSource::Running => "running",
            LeaderEpochSource::LatestCached => "cached",
            LeaderEpochSource::Given => "given",
            LeaderEpochSource::Metadata => "metadata",
            LeaderEpochSource::MetadataNextElection => "next election",
        }
    }
}

/// The leadership a follower report assumes, and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AssumedLeader {
    pub source: LeaderEpochSource,
    /// The leader's `node.id` (from its `meta.properties`).
    pub leader_id: Option<i32>,
    pub follower_id: Option<i32>,
    /// The epoch assumed.
    pub leader_epoch: i32,
    /// The latest epoch in the leader's cache (or the epoch it runs at, by klog's state).
    pub cached_epoch: i32,
    /// What the metadata last recorded about the partition, when a metadata log was read.
    pub recorded: Option<RecordedLeadership>,
    /// A metadata log was read and never mentions the partition (or removed its topic).
    pub metadata_silent: Option<PathBuf>,
}

fn ids(v: &[i32]) -> String {
    format!("[{}]", v.iter().map(|i| i.to_string()).collect::<Vec<_>>().join(","))
}

fn broker(id: Option<i32>) -> String {
    id.map_or("node.id unknown".to_string(), |i| format!("node {i}"))
}

impl AssumedLeader {
    /// Decide the epoch: `given` (`--leader-epoch`) wins; else a running leader's; else the
    /// metadata's; else the latest cached. `cached_source` says which of the two the leader's
    /// own files gave (`Running` or `LatestCached`). The metadata is not consulted for a leader
    /// klog runs (its state is the truth of klog's lab).
    pub fn decide(
        cached_epoch: i32,
        cached_source: LeaderEpochSource,
        given: Option<i32>,
        leader_id: Option<i32>,
        follower_id: Option<i32>,
        recorded: Option<RecordedLeadership>,
        metadata_read: Option<&Path>,
    ) -> AssumedLeader {
        let metadata_silent = match (&recorded, metadata_read) {
            (None, Some(dir)) => Some(dir.to_path_buf()),
            _ => None,
        };
        let mut a = AssumedLeader {
            source: cached_source,
            leader_id,
            follower_id,
            leader_epoch: cached_epoch,
            cached_epoch,
            recorded,
            metadata_silent,
        };
        if let Some(e) = given {
            a.source = LeaderEpochSource::Given;
            a.leader_epoch = e;
            return a;
        }
        if cached_source == LeaderEpochSource::Running {
            return a;
        }
        let Some(r) = &a.recorded else { return a };
        let reg = &r.registration;
        let names_leader = leader_id.is_none_or(|id| id == reg.leader);
        let (source, epoch) = if names_leader {
            (LeaderEpochSource::Metadata, reg.leader_epoch)
        } else {
            // `PartitionRegistration.merge`: a new leader is a new epoch.
            (LeaderEpochSource::MetadataNextElection, reg.leader_epoch.saturating_add(1))
        };
        // A copy of the metadata older than the leader's log cannot lower its epoch.
        if epoch >= cached_epoch {
            a.source = source;
            a.leader_epoch = epoch;
        }
        a
    }

    /// The metadata is behind the leader's log: it recorded an epoch below the cached one.
    pub fn metadata_behind(&self) -> bool {
        self.source == LeaderEpochSource::LatestCached && self.recorded.is_some()
    }

    /// The metadata names another broker than the leader as the partition's leader (or none).
    pub fn other_leader(&self) -> Option<i32> {
        let r = self.recorded.as_ref()?;
        (self.leader_id.is_some_and(|id| id != r.registration.leader)).then_some(r.registration.leader)
    }

    /// One sentence: which leader and epoch the report assumes, and where that came from.
    pub fn sentence(&self) -> String {
        let l = broker(self.leader_id);
        let recorded = self.recorded.as_ref().map(|r| {
            let g = &r.registration;
            let leader = if g.leader == NO_LEADER { "no leader".to_string() } else { format!("leader {}", g.leader) };
            format!(
                "{leader} at epoch {}, ISR {}, ELR {} ({})",
                g.leader_epoch,
                ids(&g.isr),
                ids(&g.elr),
                r.whereabouts()
            )
        });
        let mut s = match self.source {
            LeaderEpochSource::Running => "the epoch the leader runs at, from klog's state".to_string(),
            LeaderEpochSource::Given if self.leader_epoch > self.cached_epoch => {
                format!("given with --leader-epoch, above epoch {} the leader is at", self.cached_epoch)
            }
            LeaderEpochSource::Given => "given with --leader-epoch".to_string(),
            LeaderEpochSource::Metadata => {
                format!("the leader ({l}) leads at epoch {} as the metadata last recorded: {}", self.leader_epoch, recorded.clone().unwrap_or_default())
            }
            LeaderEpochSource::MetadataNextElection => {
                let r = self.recorded.as_ref().expect("a metadata source has a record").registration.clone();
                let now = if r.leader == NO_LEADER {
                    "the partition has no leader (offline)".to_string()
                } else {
                    format!("broker {} leads, not the named leader ({l}): a restarting follower follows broker {}", r.leader, r.leader)
                };
                let how = if self.leader_id.is_some_and(|id| r.isr.contains(&id) || r.elr.contains(&id)) {
                    "a clean election"
                } else {
                    "only an unclean election (the named leader is in neither the ISR nor the ELR)"
                };
                format!(
                    "the metadata last recorded {}; {now}. This plan is for the named leader leading after {how}, at the next epoch {}",
                    recorded.clone().unwrap_or_default(),
                    self.leader_epoch
                )
            }
            LeaderEpochSource::LatestCached => match &self.recorded {
                Some(_) => format!(
                    "the leader ({l}) assumed to lead at its latest cached epoch {}: the metadata is older than its log, it recorded {}",
                    self.leader_epoch,
                    recorded.clone().unwrap_or_default()
                ),
                None => match &self.metadata_silent {
                    Some(dir) => format!(
                        "the leader ({l}) assumed to lead at its latest cached epoch {}: the metadata in {} never mentions this partition",
                        self.leader_epoch,
                        dir.display()
                    ),
                    None => format!(
                        "no metadata: the leader ({l}) assumed to lead at its latest cached epoch {} (name a controller's dir with --metadata, or the epoch with --leader-epoch)",
                        self.leader_epoch
                    ),
                },
            },
        };
        if matches!(self.source, LeaderEpochSource::Given | LeaderEpochSource::Running) {
            if let Some(rec) = &recorded {
                s.push_str(&format!("; the metadata last recorded {rec}"));
            }
        }
        if let (Some(f), Some(r)) = (self.follower_id, &self.recorded) {
            let g = &r.registration;
            if !g.isr.contains(&f) && g.replicas.contains(&f) {
                s.push_str(&format!("; the follower (node {f}) is out of the ISR"));
            }
        }
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn recorded(leader: i32, epoch: i32, isr: &[i32]) -> RecordedLeadership {
        RecordedLeadership {
            metadata_dir: PathBuf::from("/c/__cluster_metadata-0"),
            found: MetadataFound::Given,
            position: MetadataPosition::Log(42),
            timestamp: 7,
            registration: PartitionRegistration {
                replicas: vec![1, 2, 3],
                isr: isr.to_vec(),
                leader,
                leader_epoch: epoch,
                ..Default::default()
            },
        }
    }

    fn decide(cached: i32, given: Option<i32>, l: i32, r: Option<RecordedLeadership>) -> AssumedLeader {
        AssumedLeader::decide(cached, LeaderEpochSource::LatestCached, given, Some(l), Some(3), r, None)
    }

    #[test]
    fn the_metadata_names_the_leader_and_its_epoch() {
        let a = decide(2, None, 1, Some(recorded(1, 5, &[1, 2])));
        assert_eq!((a.source, a.leader_epoch), (LeaderEpochSource::Metadata, 5));
        let s = a.sentence();
        assert!(s.contains("leader 1 at epoch 5, ISR [1,2]") && s.contains("metadata offset 42"), "{s}");
        assert!(s.contains("the follower (node 3) is out of the ISR"), "{s}");
        assert_eq!(a.other_leader(), None);
    }

    #[test]
    fn another_leader_means_the_next_election_and_says_so() {
        let a = decide(2, None, 1, Some(recorded(2, 5, &[2])));
        assert_eq!((a.source, a.leader_epoch), (LeaderEpochSource::MetadataNextElection, 6));
        assert_eq!(a.other_leader(), Some(2));
        let s = a.sentence();
        assert!(
            s.contains("broker 2 leads, not the named leader (node 1)") && s.contains("only an unclean election"),
            "{s}"
        );
        let a = decide(2, None, 1, Some(recorded(-1, 5, &[1])));
        assert!(a.sentence().contains("no leader (offline)") && a.sentence().contains("a clean election"));
    }

    #[test]
    fn without_metadata_the_old_assumption_is_stated_and_given_wins() {
        let a = decide(4, None, 1, None);
        assert_eq!((a.source, a.leader_epoch), (LeaderEpochSource::LatestCached, 4));
        assert!(a
            .sentence()
            .starts_with("no metadata: the leader (node 1) assumed to lead at its latest cached epoch 4"));
        let a = decide(4, Some(9), 1, Some(recorded(1, 5, &[1])));
        assert_eq!((a.source, a.leader_epoch), (LeaderEpochSource::Given, 9));
        assert!(a.sentence().contains("the metadata last recorded leader 1 at epoch 5"));
        // metadata older than the leader's log: the cache's epoch stands, and that is said
        let a = decide(7, None, 1, Some(recorded(1, 5, &[1])));
        assert_eq!((a.source, a.leader_epoch), (LeaderEpochSource::LatestCached, 7));
        assert!(a.metadata_behind() && a.sentence().contains("older than its log"));
    }

    #[test]
    fn a_running_leader_keeps_klogs_state() {
        let a =
            AssumedLeader::decide(3, LeaderEpochSource::Running, None, Some(1), None, Some(recorded(2, 5, &[2])), None);
        assert_eq!((a.source, a.leader_epoch), (LeaderEpochSource::Running, 3));
    }
}
