//! klog's own state file, `klog-state.json` at the log-dir level: per partition, the topic
//! settings klog keeps, the largest leader epoch ever seen (durable: no crash removes it) and
//! the volatile state a broker holds in memory (role, leader epoch, leader, ISR, follower fetch
//! offsets). A partition entry with a volatile state means "the replica is running"; `crash`
//! and `stop` remove that part. The file is at the log-dir level, so a broker still loads the
//! dir, and it is always rewritten whole through [`crate::durable`].

use super::{Replica, TopicConfig};
use crate::durable;
use crate::error::{Error, Result};
use crate::log::names::{CLEAN_SHUTDOWN_MARKER, KLOG_STATE};
use crate::regular_file;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// The replica's role as klog simulates it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Role {
    Leader,
    Follower,
}

impl Role {
    pub fn name(self) -> &'static str {
        match self {
            Role::Leader => "leader",
            Role::Follower => "follower",
        }
    }
}

/// A member of a leader's ISR other than the leader itself.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct IsrMember {
    /// The member's identity (see [`Replica::identity`]): what its dir says it is.
    #[serde(default)]
    pub id: String,
    /// Where the member was when it was named (shown to people, never used to match).
    pub dir: PathBuf,
    pub replica_id: Option<i32>,
}

/// What a broker holds in memory for this partition; lost on a crash.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct VolatileState {
    pub role: Role,
    /// The leader epoch this replica knows as current (−1: none yet).
    pub leader_epoch: i32,
    /// A follower's leader: its identity.
    #[serde(default)]
    pub leader: Option<String>,
    /// A leader's ISR, without itself.
    #[serde(default)]
    pub isr: Vec<IsrMember>,
    /// A leader's view of each follower's LEO, by follower identity: its latest fetch offset.
    #[serde(default)]
    pub follower_fetch_offsets: BTreeMap<String, i64>,
}

impl VolatileState {
    pub fn started() -> Self {
        VolatileState {
            role: Role::Follower,
            leader_epoch: -1,
            leader: None,
            isr: Vec::new(),
            follower_fetch_offsets: BTreeMap::new(),
        }
    }
}

#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub(super) struct PartitionEntry {
    pub(super) config: Option<TopicConfig>,
    /// The largest leader epoch this replica has ever seen (led, followed or found in a batch).
    /// Durable: no crash removes it, so no election reuses an epoch (replication-model.md,
    /// operation 1; in Kafka the controller owns this number).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(super) largest_leader_epoch: Option<i32>,
    pub(super) state: Option<VolatileState>,
}

/// The contents of `klog-state.json` (fields private: read through [`Replica`]).
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct KlogStateFile {
    pub(super) version: u32,
    pub(super) partitions: BTreeMap<String, PartitionEntry>,
}

impl KlogStateFile {
    /// Set `replica`'s entry to what it holds now: its topic settings, volatile state and
    /// largest known leader epoch.
    pub(super) fn record(&mut self, replica: &Replica) {
        let entry = self.partitions.entry(replica.paths.name()).or_default();
        entry.config = replica.topic_config;
        entry.state = replica.state.clone();
        entry.largest_leader_epoch = replica.largest_known_epoch();
    }

    /// Write the whole file atomically (version 1, pretty JSON, a final newline).
    pub(super) fn write(&mut self, path: &Path) -> Result<()> {
        self.version = 1;
        let mut text = serde_json::to_string_pretty(self).expect("state serializes");
        text.push('\n');
        durable::write_atomic(path, text.as_bytes())
    }
}

/// Decode the bytes of a `klog-state.json` (also the fuzz target's entry point). `path` names the file in errors.
pub fn parse_state_file(bytes: &[u8], path: &Path) -> Result<KlogStateFile> {
    serde_json::from_slice(bytes).map_err(|e| {
        // serde_json counts lines and columns; the byte position is what the other errors give.
        let position: usize =
            bytes.split_inclusive(|b| *b == b'\n').take(e.line().saturating_sub(1)).map(<[u8]>::len).sum::<usize>()
                + e.column().saturating_sub(1);
        Error::corrupt(path, position as u64, format!("klog state file is not valid: {e}"))
    })
}

pub(super) fn read_state_file(path: &Path) -> Result<KlogStateFile> {
    match regular_file::read_regular(path)? {
        Some(bytes) => parse_state_file(&bytes, path),
        None => Ok(KlogStateFile { version: 1, ..Default::default() }),
    }
}

/// Record in klog's state file, in one write, that `partitions` of `log_dir` run again (a
/// broker that loaded its logs), as [`Replica::start`] does for one.
pub fn mark_started(log_dir: &Path, partitions: &[String]) -> Result<()> {
    let path = log_dir.join(KLOG_STATE);
    let mut file = read_state_file(&path)?;
    for name in partitions {
        file.partitions.entry(name.clone()).or_default().state = Some(VolatileState::started());
    }
    file.write(&path)
}

/// Remove the volatile state of every replica of one log dir (a crash stops the whole broker)
/// and the clean-shutdown marker: an unclean stop. The state file is read and written once,
/// not once per partition.
pub fn forget_volatile_states<'a>(replicas: impl IntoIterator<Item = &'a mut Replica>) -> Result<()> {
    let mut replicas: Vec<&mut Replica> = replicas.into_iter().collect();
    let Some(first) = replicas.first() else { return Ok(()) };
    let log_dir = first.paths.log_dir.clone();
    assert!(replicas.iter().all(|r| r.paths.log_dir == log_dir), "replicas of one log dir");
    let path = log_dir.join(KLOG_STATE);
    let mut file = read_state_file(&path)?;
    for r in &mut replicas {
        r.state = None;
        file.record(r);
    }
    file.write(&path)?;
    durable::remove_file(&log_dir.join(CLEAN_SHUTDOWN_MARKER))?;
    for r in &mut replicas {
        r.clean_shutdown = false;
    }
    Ok(())
}
