//! What the KRaft controller last recorded, per partition, found in the data dirs at hand: the
//! one lookup "the furthest-along metadata log among these dirs, each partition's last
//! registration" ([`RecordedMetadata::furthest_along`]). Each broker keeps a replica of the
//! metadata log (`__cluster_metadata-0`); the copy that reaches furthest is the freshest truth
//! the dirs hold. Its replay ([`super::metadata_log`]) is reduced to what the commands ask of
//! it: each partition's last registration and where it was recorded, the record that elected
//! its current leader, the terms in which a leader was alone in the ISR, and the topics'
//! dynamic configs. Never writes.

use super::metadata_log::{holds_metadata_log, metadata_log_end, replay_metadata};
use super::registration::{PartitionRegistration, NO_LEADER};
use super::replay::{ConfigSource, MetadataPosition, MetadataReplay};
use crate::error::Result;
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
    /// In one of a cluster view's data dirs.
    DataDir,
}

impl MetadataFound {
    pub fn name(self) -> &'static str {
        match self {
            MetadataFound::Given => "given",
            MetadataFound::LeaderDir => "leader_dir",
            MetadataFound::FollowerDir => "follower_dir",
            MetadataFound::DataDir => "data_dir",
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

/// A partition's last registration and where it was recorded.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LastRegistration {
    pub position: MetadataPosition,
    /// The controller's clock when it wrote the record.
    pub timestamp: i64,
    pub registration: PartitionRegistration,
}

/// The metadata record that named a partition's current leader (a new leader or a new leader
/// epoch), with the registration before it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LeaderElection {
    pub position: MetadataPosition,
    pub before: Option<PartitionRegistration>,
    pub after: PartitionRegistration,
}

/// A replayed metadata log, reduced to each partition's last recorded registration.
#[derive(Debug, Clone)]
pub struct RecordedMetadata {
    /// The `__cluster_metadata-0` dir.
    pub metadata_dir: PathBuf,
    /// The log dir holding it.
    pub log_dir: PathBuf,
    pub found: MetadataFound,
    /// Where the metadata log ends (how far along this copy of it is).
    pub log_end_offset: i64,
    pub records_read: u64,
    /// Metadata records that did not decode (they change nothing in the replay).
    pub unreadable_count: usize,
    last: HashMap<String, LastRegistration>,
    /// Each partition's last election.
    elections: HashMap<String, LeaderElection>,
    /// Per partition, the (leader, leader epoch) terms whose every registration had the leader
    /// alone in the ISR and as the partition's only replica, with the topic's min.insync.replicas
    /// at 1: the leader's HW followed its log end, so each record it appended in that term was
    /// committed as it was appended. Another assigned replica would not do: one outside the ISR
    /// that caught up holds the leader's HW back (`maybeIncrementLeaderHW`, since 0.10.2), and the
    /// metadata does not show catching up.
    lone_terms: HashMap<String, Vec<(i32, i32)>>,
    /// The replay's topics and configs (its timeline is consumed above).
    replay: MetadataReplay,
}

impl RecordedMetadata {
    /// The one lookup: among `dirs` (log dirs, each tagged with how it was found), those holding
    /// `__cluster_metadata-0`; the copy that reaches furthest (the first on a tie) is replayed.
    /// `None` when no dir holds one. Returns the index of the dir it came from.
    pub fn furthest_along<'p>(
        dirs: impl IntoIterator<Item = (&'p Path, MetadataFound)>,
    ) -> Result<Option<(usize, RecordedMetadata)>> {
        let mut best: Option<(usize, &Path, MetadataFound, i64)> = None;
        for (i, (dir, found)) in dirs.into_iter().enumerate() {
            if !holds_metadata_log(dir) {
                continue;
            }
            let end = metadata_log_end(dir)?;
            if best.is_none_or(|(_, _, _, e)| end > e) {
                best = Some((i, dir, found, end));
            }
        }
        match best {
            Some((i, dir, found, _)) => Ok(Some((i, Self::read(dir, found)?))),
            None => Ok(None),
        }
    }

    /// The metadata log `--metadata` names, else the one in the leader's or the follower's log
    /// dir that reaches further (the leader's on a tie); `None` when neither holds one.
    pub fn find(leader_log_dir: &Path, follower_log_dir: &Path, given: Option<&Path>) -> Result<Option<Self>> {
        if let Some(dir) = given {
            return Self::read(dir, MetadataFound::Given).map(Some);
        }
        let dirs = [(leader_log_dir, MetadataFound::LeaderDir), (follower_log_dir, MetadataFound::FollowerDir)];
        Ok(Self::furthest_along(dirs)?.map(|(_, m)| m))
    }

    /// Replay the metadata log at `path` (a log dir holding `__cluster_metadata-0`, or that dir).
    pub fn read(path: &Path, found: MetadataFound) -> Result<RecordedMetadata> {
        let mut m = replay_metadata(path)?;
        let mut last: HashMap<String, LastRegistration> = HashMap::new();
        let mut elections: HashMap<String, LeaderElection> = HashMap::new();
        // (partition, leader, epoch) → the leader was alone in the ISR in every registration.
        let mut terms: HashMap<(String, i32, i32), bool> = HashMap::new();
        for c in std::mem::take(&mut m.replay.changes) {
            let Some(reg) = c.after else {
                // A removed topic's partition has no leader, and no registration to assume.
                elections.remove(&c.partition);
                last.remove(&c.partition);
                continue;
            };
            if reg.leader >= 0 {
                // Alone in the ISR is not enough: a caught-up replica outside it holds the HW back
                // (Partition.scala:361-376@0.10.2.0; 4.4.0's line table: Partition.scala:1020-1031,
                // `shouldWaitForReplicaToJoinIsr` 1023-1024), so the leader is the only replica.
                let alone = reg.isr == [reg.leader] && reg.replicas == [reg.leader];
                *terms.entry((c.partition.clone(), reg.leader, reg.leader_epoch)).or_insert(true) &= alone;
            }
            let before = last.get(&c.partition).map(|l| &l.registration);
            if reg.leader != NO_LEADER
                && before.is_none_or(|b| b.leader != reg.leader || b.leader_epoch != reg.leader_epoch)
            {
                let election = LeaderElection { position: c.position, before: before.cloned(), after: reg.clone() };
                elections.insert(c.partition.clone(), election);
            }
            last.insert(
                c.partition,
                LastRegistration { position: c.position, timestamp: c.timestamp, registration: reg },
            );
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
        let log_dir = m.dir.parent().unwrap_or(Path::new(".")).to_path_buf();
        Ok(RecordedMetadata {
            metadata_dir: m.dir,
            log_dir,
            found,
            log_end_offset: m.log_end_offset,
            records_read: m.records_read,
            unreadable_count: m.unreadable.len(),
            last,
            elections,
            lone_terms,
            replay: m.replay,
        })
    }

    /// The leader epochs in which the metadata shows broker `leader` leading `partition` alone
    /// in the ISR and as its only replica throughout, with min.insync.replicas 1 (the topic's, or Kafka's default where
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

    /// The last registration of `partition` (`None` if the metadata never mentions it, or the
    /// topic was removed).
    pub fn last(&self, partition: &str) -> Option<&LastRegistration> {
        self.last.get(partition)
    }

    /// The record that elected `partition`'s current leader (`None`: it has none, or never had).
    pub fn election(&self, partition: &str) -> Option<&LeaderElection> {
        self.elections.get(partition)
    }

    /// A topic's dynamic config value as the metadata sets it ([`MetadataReplay::topic_config`]).
    pub fn topic_config(&self, topic: &str, key: &str) -> Option<(&str, ConfigSource)> {
        self.replay.topic_config(topic, key)
    }

    /// What the metadata last recorded about `partition`, with where it was read.
    pub fn partition(&self, partition: &str) -> Option<RecordedLeadership> {
        self.last.get(partition).map(|l| RecordedLeadership {
            metadata_dir: self.metadata_dir.clone(),
            found: self.found,
            position: l.position,
            timestamp: l.timestamp,
            registration: l.registration.clone(),
        })
    }

    pub fn partition_count(&self) -> usize {
        self.last.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::format::batch::{encode_batch, BatchSpec};
    use crate::format::record::NewRecord;
    use crate::kraft::replay::tests::{change, partition_record, topic_record};

    /// A log dir under `root` holding a metadata log of `records` (one batch from offset 0).
    fn log_dir(root: &Path, name: &str, records: &[Vec<u8>]) -> PathBuf {
        let dir = root.join(name);
        let partition = dir.join("__cluster_metadata-0");
        std::fs::create_dir_all(&partition).unwrap();
        let records: Vec<NewRecord> = records
            .iter()
            .enumerate()
            .map(|(i, v)| NewRecord { timestamp: 1_000 + i as i64, key: None, value: Some(v.clone()), headers: vec![] })
            .collect();
        std::fs::write(partition.join("00000000000000000000.log"), encode_batch(&BatchSpec::plain(0, 1), &records))
            .unwrap();
        dir
    }

    /// orders-0 on brokers 1 and 2: 1 leads alone in the ISR (epoch 0), then 2 is elected.
    fn history() -> Vec<Vec<u8>> {
        vec![
            topic_record("orders", 7),
            partition_record(7, 0, &[1, 2], &[1], 1, 0),
            change(7, 0, Some(&[1, 2]), None),
            change(7, 0, Some(&[2]), Some(2)),
        ]
    }

    #[test]
    fn the_furthest_along_metadata_log_is_read_and_a_tie_goes_to_the_first() {
        let root = tempfile::tempdir().unwrap();
        let behind = log_dir(root.path(), "behind", &history()[..2]);
        let ahead = log_dir(root.path(), "ahead", &history());
        let none = root.path().join("none");
        std::fs::create_dir_all(&none).unwrap();
        fn tagged<'a>(dirs: &[&'a PathBuf]) -> Vec<(&'a Path, MetadataFound)> {
            dirs.iter().map(|d| (d.as_path(), MetadataFound::DataDir)).collect()
        }
        let (i, m) = RecordedMetadata::furthest_along(tagged(&[&none, &behind, &ahead])).unwrap().unwrap();
        assert_eq!((i, m.log_end_offset, m.records_read, m.unreadable_count), (2, 4, 4, 0));
        assert_eq!(m.log_dir, ahead);
        let last = m.last("orders-0").unwrap();
        assert_eq!(
            (last.position, last.registration.leader, last.registration.leader_epoch),
            (MetadataPosition::Log(3), 2, 1)
        );
        let e = m.election("orders-0").unwrap();
        assert_eq!(
            (e.position, e.before.as_ref().map(|b| b.leader), e.after.leader),
            (MetadataPosition::Log(3), Some(1), 2)
        );
        // Broker 1 led alone at epoch 0 only until the ISR grew: not alone throughout.
        assert!(m.lone_leader_epochs("orders-0", 1).is_empty());
        // Broker 2 leads alone in the ISR at epoch 1, but broker 1 is still a replica.
        assert!(m.lone_leader_epochs("orders-0", 2).is_empty());
        let same = log_dir(root.path(), "same", &history());
        let (i, _) = RecordedMetadata::furthest_along(tagged(&[&ahead, &same])).unwrap().unwrap();
        assert_eq!(i, 0);
        assert!(RecordedMetadata::furthest_along(tagged(&[&none])).unwrap().is_none());
    }

    /// Issue 41, point 2: a leader alone in the ISR proves its records committed only when no
    /// other replica could hold its HW back. Since 0.10.2 a replica outside the ISR that caught
    /// up does (`Partition.maybeIncrementLeaderHW`, Partition.scala:361-376@0.10.2.0, the
    /// minimum over the ISR and replicas with `lastCaughtUpTimeMs` within
    /// `replica.lag.time.max.ms`; 4.4.0's line table: Partition.scala:1020-1031, with
    /// `shouldWaitForReplicaToJoinIsr` at 1023-1024), and the metadata does not record catching up.
    #[test]
    fn a_leader_alone_in_the_isr_proves_its_records_only_as_the_only_replica() {
        let root = tempfile::tempdir().unwrap();
        // orders-0: replicas [1, 2], 1 alone in the ISR at epoch 0 throughout.
        let two =
            log_dir(root.path(), "two", &[topic_record("orders", 7), partition_record(7, 0, &[1, 2], &[1], 1, 0)]);
        let m = RecordedMetadata::read(&two, MetadataFound::Given).unwrap();
        assert!(m.lone_leader_epochs("orders-0", 1).is_empty(), "broker 2 may have caught up outside the ISR");
        // orders-0: replicas [1], 1 alone in the ISR at epoch 0.
        let one = log_dir(root.path(), "one", &[topic_record("orders", 7), partition_record(7, 0, &[1], &[1], 1, 0)]);
        let m = RecordedMetadata::read(&one, MetadataFound::Given).unwrap();
        assert_eq!(m.lone_leader_epochs("orders-0", 1), [0]);
    }

    #[test]
    fn recovers_lookup_prefers_the_given_dir_else_the_further_of_leader_and_follower() {
        let root = tempfile::tempdir().unwrap();
        let leader = log_dir(root.path(), "l", &history()[..2]);
        let follower = log_dir(root.path(), "f", &history());
        let m = RecordedMetadata::find(&leader, &follower, None).unwrap().unwrap();
        assert_eq!((m.found, m.partition("orders-0").unwrap().registration.leader), (MetadataFound::FollowerDir, 2));
        let m = RecordedMetadata::find(&leader, &follower, Some(&leader)).unwrap().unwrap();
        assert_eq!((m.found, m.partition("orders-0").unwrap().registration.leader), (MetadataFound::Given, 1));
        // A given dir without a metadata log is an error, not a silent fallback.
        assert!(RecordedMetadata::find(&leader, &follower, Some(root.path())).is_err());
    }
}
