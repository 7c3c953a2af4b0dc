//! The leadership a restart plan assumes, from the truth when there is one: the leader, leader
//! epoch, ISR and ELR the KRaft metadata log last recorded for the partition
//! ([`super::recorded`]); without one, the old assumption holds and is stated: the leader leads
//! at the latest epoch in its cache. `--leader-epoch` outranks both; klog's own state of a
//! running leader outranks the metadata. Pure: the facts in, a decision and its sentence out.

use super::recorded::RecordedLeadership;
use super::registration::NO_LEADER;
use std::path::{Path, PathBuf};

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
        let recorded = self.recorded_summary();
        let mut s = match self.source {
            LeaderEpochSource::Running => "the epoch the leader runs at, from klog's state".to_string(),
            LeaderEpochSource::Given if self.leader_epoch > self.cached_epoch => {
                format!("given with --leader-epoch, above epoch {} the leader is at", self.cached_epoch)
            }
            LeaderEpochSource::Given => "given with --leader-epoch".to_string(),
            LeaderEpochSource::Metadata => {
                format!(
                    "the leader ({l}) leads at epoch {} as the metadata last recorded: {}",
                    self.leader_epoch,
                    recorded.clone().unwrap_or_default()
                )
            }
            LeaderEpochSource::MetadataNextElection => {
                self.next_election_sentence(&l, recorded.clone().unwrap_or_default())
            }
            LeaderEpochSource::LatestCached => self.latest_cached_sentence(&l, recorded.clone().unwrap_or_default()),
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

    /// What the metadata last recorded for the partition: leader, epoch, ISR, ELR and where.
    fn recorded_summary(&self) -> Option<String> {
        self.recorded.as_ref().map(|r| {
            let g = &r.registration;
            let leader = if g.leader == NO_LEADER { "no leader".to_string() } else { format!("leader {}", g.leader) };
            format!(
                "{leader} at epoch {}, ISR {}, ELR {} ({})",
                g.leader_epoch,
                ids(&g.isr),
                ids(&g.elr),
                r.whereabouts()
            )
        })
    }

    /// The sentence when the named leader is not the recorded one: the plan assumes it leads after
    /// the next election, clean or unclean.
    fn next_election_sentence(&self, l: &str, recorded: String) -> String {
        let r = self.recorded.as_ref().expect("a metadata source has a record").registration.clone();
        let now = if r.leader == NO_LEADER {
            "the partition has no leader (offline)".to_string()
        } else {
            format!(
                "broker {} leads, not the named leader ({l}): a restarting follower follows broker {}",
                r.leader, r.leader
            )
        };
        let how = if self.leader_id.is_some_and(|id| r.isr.contains(&id) || r.elr.contains(&id)) {
            "a clean election"
        } else {
            "only an unclean election (the named leader is in neither the ISR nor the ELR)"
        };
        format!(
            "the metadata last recorded {recorded}; {now}. This plan is for the named leader leading after {how}, at the next epoch {}",
            self.leader_epoch
        )
    }

    /// The sentence when the leader is assumed at its latest cached epoch, saying why the metadata
    /// did not decide (older than the log, silent on the partition, or absent).
    fn latest_cached_sentence(&self, l: &str, recorded: String) -> String {
        match &self.recorded {
            Some(_) => format!(
                "the leader ({l}) assumed to lead at its latest cached epoch {}: the metadata is older than its log, it recorded {recorded}",
                self.leader_epoch,
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
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kraft::{MetadataFound, MetadataPosition, PartitionRegistration};

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
