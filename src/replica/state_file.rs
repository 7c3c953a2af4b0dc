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
    /// Durable: no crash removes it, so no election reuses an epoch ([the model](crate::replication),
    /// operation 1; in Kafka the controller owns this number).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(super) largest_leader_epoch: Option<i32>,
    pub(super) state: Option<VolatileState>,
}

/// The contents of `klog-state.json` (fields private: read through [`Replica`]).
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct KlogStateFile {
    pub(super) version: u32,
    /// Written into a log dir klog did not make (a broker's), with the user's consent: the dir
    /// stays one klog did not make, and every later write there needs consent again.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub(super) adopted: bool,
    /// A tiered lab (`klog create --remote-dir`): the LocalTieredStorage dir its topic's remote
    /// segments go to (`rsm.config.dir`, absolute). Its partitions have
    /// `remote.storage.enable=true`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(super) remote_storage_dir: Option<PathBuf>,
    /// `meta.properties` says `node.id=0` only because `klog create` was given no
    /// `--replica-id`: a default nobody chose, which says nothing of which broker this is
    /// ([`crate::replica::not_one_cluster`] does not count it as a node id said twice).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub(super) node_id_defaulted: bool,
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
        self.adopted |= path.parent().is_some_and(super::consent::adopted);
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
        Error::corrupt(
            path,
            position as u64,
            format!(
                "klog state file is not valid: {e}; it is klog's record of this replica's role: `klog restore` the \
             dir's backup if a command saved one, or remove the file to read the dir as a broker's"
            ),
        )
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

/// Whether the log dir's `node.id` is `klog create`'s default, given no `--replica-id` (false
/// when the state file is missing or does not read: then the `meta.properties` it has speaks).
pub fn node_id_defaulted(log_dir: &Path) -> bool {
    read_state_file(&log_dir.join(KLOG_STATE)).is_ok_and(|s| s.node_id_defaulted)
}

/// The LocalTieredStorage dir a tiered lab records (`klog create --remote-dir`), or `None`
/// (not a tiered lab, or no state file).
pub fn remote_storage_dir(log_dir: &Path) -> Result<Option<PathBuf>> {
    Ok(read_state_file(&log_dir.join(KLOG_STATE))?.remote_storage_dir)
}

/// Record `dir` as the log dir's LocalTieredStorage dir (the state file rewritten whole).
pub fn set_remote_storage_dir(log_dir: &Path, dir: &Path) -> Result<()> {
    let path = log_dir.join(KLOG_STATE);
    let mut file = read_state_file(&path)?;
    file.remote_storage_dir = Some(dir.to_path_buf());
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

#[cfg(test)]
mod tests {
    use super::super::test_support::new_log_dir;
    use super::*;

    /// The byte position a parse error of `text` names.
    fn error_position(text: &str) -> (u64, String) {
        match parse_state_file(text.as_bytes(), Path::new("/x/klog-state.json")) {
            Err(Error::Corrupt { path, position, what }) => {
                assert_eq!(path, Path::new("/x/klog-state.json"));
                (position, what)
            }
            other => panic!("{text:?} gave {other:?}"),
        }
    }

    #[test]
    fn a_state_file_that_does_not_parse_names_the_byte_position() {
        // A bad value on the third line: the position counts the bytes of the lines before it.
        let text = "{\n  \"version\": 1,\n  \"partitions\": x\n}\n";
        let (position, what) = error_position(text);
        assert_eq!(position, text.find('x').unwrap() as u64);
        assert!(what.starts_with("klog state file is not valid: "), "{what}");

        let text = "{\"version\": 1, \"partitions\": {\"demo-0\": {\"state\": {\"role\": \"boss\"}}}}";
        let (position, what) = error_position(text);
        assert!(what.contains("boss"), "{what}");
        // serde_json reports an unknown variant at the string's closing quote.
        assert_eq!(position, (text.find("boss").unwrap() + "boss".len()) as u64);

        let text = "{\"version\": 1, \"partitions\": {}";
        assert_eq!(error_position(text).0, text.len() as u64 - 1, "a cut file fails at its last byte");
    }

    #[test]
    fn an_older_state_file_without_newer_fields_reads_with_their_defaults() {
        let text = r#"{"version":1,"partitions":{"demo-0":{"config":{"segment_bytes":1024,"index_interval_bytes":4096},
            "state":{"role":"leader","leader_epoch":2}}}}"#;
        let file = parse_state_file(text.as_bytes(), Path::new("klog-state.json")).unwrap();
        let entry = &file.partitions["demo-0"];
        let config = entry.config.unwrap();
        assert_eq!((config.segment_bytes, config.index_bytes_max), (1024, crate::log::DEFAULT_INDEX_BYTES_MAX));
        assert_eq!(config.segment_ms, crate::log::DEFAULT_SEGMENT_MS);
        let state = entry.state.as_ref().unwrap();
        assert_eq!((state.role, state.leader_epoch, state.leader.as_deref()), (Role::Leader, 2, None));
        assert!(state.isr.is_empty() && state.follower_fetch_offsets.is_empty());
        assert_eq!(entry.largest_leader_epoch, None);
    }

    #[test]
    fn mark_started_and_forget_volatile_states_rewrite_the_file_whole() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = new_log_dir(&tmp.path().join("a"), 1, "t", 2);
        let path = dir.join(KLOG_STATE);
        let mut replicas: Vec<Replica> =
            ["t-0", "t-1"].iter().map(|p| Replica::open_for_check(&dir, Some(p)).unwrap()).collect();
        std::fs::write(dir.join(CLEAN_SHUTDOWN_MARKER), b"").unwrap();
        forget_volatile_states(replicas.iter_mut()).unwrap();
        assert!(replicas.iter().all(|r| r.state().is_none() && !r.clean_shutdown()));
        assert!(!dir.join(CLEAN_SHUTDOWN_MARKER).exists(), "a crash leaves no clean-shutdown marker");
        let file = read_state_file(&path).unwrap();
        assert_eq!(file.version, 1);
        assert!(file.partitions.values().all(|e| e.state.is_none() && e.config.is_some()), "{file:?}");

        mark_started(&dir, &["t-1".to_string()]).unwrap();
        let file = read_state_file(&path).unwrap();
        assert_eq!(file.partitions["t-0"].state, None);
        assert_eq!(file.partitions["t-1"].state, Some(VolatileState::started()));
        assert!(std::fs::read_to_string(&path).unwrap().ends_with("}\n"));
    }

    #[test]
    fn a_missing_state_file_is_an_empty_one() {
        let tmp = tempfile::tempdir().unwrap();
        let file = read_state_file(&tmp.path().join(KLOG_STATE)).unwrap();
        assert_eq!((file.version, file.partitions.len()), (1, 0));
    }

    #[test]
    fn roles_have_kafka_s_lowercase_names() {
        assert_eq!((Role::Leader.name(), Role::Follower.name()), ("leader", "follower"));
        assert_eq!(serde_json::to_string(&Role::Follower).unwrap(), "\"follower\"");
        let started = VolatileState::started();
        assert_eq!((started.role, started.leader_epoch, started.leader), (Role::Follower, -1, None));
    }
}
