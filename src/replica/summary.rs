//! A replica's state at a glance ([`ReplicaSummary`]), the header `dump`, `check` and `diff`
//! all show, and its role as people read it ([`ReplicaRole`]): the one role every picture of a
//! replica carries (`draw`, `demo`, `explore`, the lab). Never writes.

use super::Replica;
use std::path::PathBuf;

/// A replica's role as shown to people: a running replica's role, or how it stopped.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ReplicaRole {
    Leader,
    Follower,
    /// Not running, stopped cleanly (`.kafka_cleanshutdown`).
    Stopped,
    /// Not running, and not stopped cleanly.
    Crashed,
}

impl ReplicaRole {
    /// The role of `replica` as it is on disk now.
    pub fn of(replica: &Replica) -> ReplicaRole {
        match replica.role() {
            Some(super::Role::Leader) => ReplicaRole::Leader,
            Some(super::Role::Follower) => ReplicaRole::Follower,
            None if replica.clean_shutdown() => ReplicaRole::Stopped,
            None => ReplicaRole::Crashed,
        }
    }

    /// `leader`, `follower`, `stopped` or `crashed`.
    pub fn name(self) -> &'static str {
        match self {
            ReplicaRole::Leader => "leader",
            ReplicaRole::Follower => "follower",
            ReplicaRole::Stopped => "stopped",
            ReplicaRole::Crashed => "crashed",
        }
    }

    /// The role in a sentence: `it is a follower`, `it is stopped`.
    pub fn phrase(self) -> String {
        match self {
            ReplicaRole::Leader | ReplicaRole::Follower => format!("a {}", self.name()),
            ReplicaRole::Stopped | ReplicaRole::Crashed => self.name().to_string(),
        }
    }
}

impl std::fmt::Display for ReplicaRole {
    /// The name, padded as a `&str` would be (`{:<8}` lines up the roles).
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.pad(self.name())
    }
}

/// The leader epoch a replica works in: its volatile epoch when running, else its cache's latest.
pub fn current_leader_epoch(replica: &Replica) -> Option<i32> {
    replica.state().map(|s| s.leader_epoch).filter(|e| *e >= 0).or_else(|| replica.log().epoch_cache().latest_epoch())
}

/// A replica's state at a glance.
#[derive(Debug, Clone)]
pub struct ReplicaSummary {
    pub topic: String,
    pub partition: i32,
    pub log_dir: PathBuf,
    pub replica_id: Option<i32>,
    pub role: ReplicaRole,
    pub leader_epoch: Option<i32>,
    pub log_start_offset: i64,
    /// The log-start-offset checkpoint's entry when it is below the first local segment: a
    /// tiered partition's log start across both tiers ([`Replica::log_start_offset_below_local`]).
    pub log_start_offset_checkpoint_below_local: Option<i64>,
    pub log_end_offset: i64,
    /// `None`: the HW checkpoint does not list the partition (the metadata log's HW is the
    /// Raft quorum's and never is).
    pub high_watermark: Option<i64>,
    pub recovery_point: i64,
    pub clean_shutdown: bool,
    pub segment_count: usize,
    /// Bytes in the `.log` files.
    pub size_bytes: u64,
}

pub fn summarize(replica: &Replica) -> ReplicaSummary {
    ReplicaSummary {
        topic: replica.paths().topic.clone(),
        partition: replica.paths().partition,
        log_dir: replica.paths().log_dir.clone(),
        replica_id: replica.replica_id(),
        role: ReplicaRole::of(replica),
        leader_epoch: current_leader_epoch(replica),
        log_start_offset: replica.log_start_offset(),
        log_start_offset_checkpoint_below_local: replica.log_start_offset_below_local(),
        log_end_offset: replica.log_end_offset(),
        high_watermark: replica.checkpointed_high_watermark(),
        recovery_point: replica.recovery_point(),
        clean_shutdown: replica.clean_shutdown(),
        segment_count: replica.log().segments().len(),
        size_bytes: replica.log().segments().iter().filter_map(|seg| seg.log_size().ok()).sum(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::replica::test_support::new_log_dir;

    #[test]
    fn a_new_replica_summarizes_as_an_empty_follower_with_its_names() {
        let dir = tempfile::tempdir().unwrap();
        let log_dir = new_log_dir(&dir.path().join("a"), 7, "orders", 4);
        let s = summarize(&Replica::open(&log_dir, Some("orders-3")).unwrap());
        assert_eq!((s.topic.as_str(), s.partition, s.replica_id), ("orders", 3, Some(7)));
        assert_eq!(s.log_dir, log_dir);
        assert_eq!((s.log_start_offset, s.log_end_offset, s.high_watermark, s.recovery_point), (0, 0, Some(0), 0));
        assert_eq!((s.segment_count, s.size_bytes, s.leader_epoch), (1, 0, None));
        // A new replica runs as a follower of no leader yet.
        assert_eq!(s.role, ReplicaRole::Follower);
    }

    #[test]
    fn a_role_reads_as_its_name_and_in_a_sentence_with_an_article_only_when_running() {
        assert_eq!(ReplicaRole::Leader.phrase(), "a leader");
        assert_eq!(ReplicaRole::Follower.to_string(), "follower");
        assert_eq!(ReplicaRole::Stopped.phrase(), "stopped");
        assert_eq!(ReplicaRole::Crashed.phrase(), "crashed");
    }
}
