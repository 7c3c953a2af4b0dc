//! A replica directory: a Kafka log dir holding the partition klog works on, its log-dir
//! checkpoints, `meta.properties`, the lock, and klog's own small state file.
//!
//! Paths: a command may name the log dir (if it holds exactly one partition, or with
//! `--partition`) or the partition dir itself (the log-dir files are then read from its
//! parent). Read-only opens ([`Replica::open`]) never write anything. Mutating opens
//! ([`Replica::open_mut`]) take the log dir's `.lock`, and bring a stopped replica back up the
//! way a broker starts: after a clean stop the marker is removed and nothing is scanned; after
//! an unclean stop local recovery runs first and its report is returned to the caller.
//!
//! klog's volatile state (role, leader epoch, ISR, follower fetch offsets) lives in
//! `klog-state.json` at the log-dir level, so a broker can still load the dir. Its presence
//! means "the replica is running"; `crash` and `stop` remove the volatile part.

use crate::durable;
use crate::error::{Error, IoContext, Result};
use crate::log::checkpoint::{self, OffsetEntry};
use crate::log::names::{self, CLEAN_SHUTDOWN_MARKER, KLOG_STATE, LOCK_FILE, META_PROPERTIES};
use crate::log::recovery::{self, RecoveryReport};
use crate::log::{Log, LogConfig};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::fs::{self, File};
use std::path::{Path, PathBuf};

/// Where a replica's files are.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReplicaPaths {
    pub log_dir: PathBuf,
    pub partition_dir: PathBuf,
    pub topic: String,
    pub partition: i32,
}

impl ReplicaPaths {
    pub fn name(&self) -> String {
        format!("{}-{}", self.topic, self.partition)
    }
    pub fn log_dir_file(&self, name: &str) -> PathBuf {
        self.log_dir.join(name)
    }
}

/// Whether `dir` is itself a partition dir: named `<topic>-<partition>` and holding a segment,
/// `leader-epoch-checkpoint` or `partition.metadata`.
pub fn looks_like_partition_dir(dir: &Path) -> bool {
    let Some(name) = dir.file_name().and_then(|n| n.to_str()) else { return false };
    if names::parse_topic_partition(name).is_none() {
        return false;
    }
    let Ok(entries) = fs::read_dir(dir) else { return false };
    entries.flatten().any(|e| {
        let n = e.file_name();
        let n = n.to_string_lossy();
        n.ends_with(names::LOG_SUFFIX) || n == names::LEADER_EPOCH_CHECKPOINT || n == names::PARTITION_METADATA
    })
}

/// The partition dirs directly under a log dir, sorted by name.
pub fn list_partition_dirs(log_dir: &Path) -> Result<Vec<PathBuf>> {
    let mut out = Vec::new();
    for entry in fs::read_dir(log_dir).at(log_dir, "list directory")? {
        let entry = entry.at(log_dir, "list directory")?;
        let name = entry.file_name();
        let Some(name) = name.to_str() else { continue };
        if entry.file_type().at(entry.path(), "stat")?.is_dir() && names::parse_topic_partition(name).is_some() {
            out.push(entry.path());
        }
    }
    out.sort();
    Ok(out)
}

/// Resolve a command-line path (log dir or partition dir) to a replica's paths.
pub fn resolve(path: &Path, partition: Option<&str>) -> Result<ReplicaPaths> {
    let meta = fs::metadata(path).map_err(|e| match e.kind() {
        std::io::ErrorKind::NotFound => Error::layout(path, "no such directory"),
        _ => Error::io(path, "stat", e),
    })?;
    if !meta.is_dir() {
        return Err(Error::layout(path, "not a directory (expected a Kafka log dir or partition dir)"));
    }
    let (log_dir, partition_dir) = if looks_like_partition_dir(path) && partition.is_none() {
        let parent = match path.parent() {
            Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
            _ => PathBuf::from("."),
        };
        (parent, path.to_path_buf())
    } else {
        let dirs = list_partition_dirs(path)?;
        let names: Vec<String> =
            dirs.iter().filter_map(|d| d.file_name().map(|n| n.to_string_lossy().into_owned())).collect();
        match partition {
            Some(want) => match dirs.iter().position(|d| d.file_name().is_some_and(|n| n == want)) {
                Some(i) => (path.to_path_buf(), dirs[i].clone()),
                None => {
                    return Err(Error::layout(
                        path,
                        format!("no partition {want:?} here (partitions: {})", list_or_none(&names)),
                    ))
                }
            },
            None => match dirs.len() {
                1 => (path.to_path_buf(), dirs[0].clone()),
                0 => {
                    return Err(Error::layout(
                        path,
                        "not a replica dir: no <topic>-<partition> directory in it (create one with `klog create`)",
                    ))
                }
                n => {
                    return Err(Error::layout(
                        path,
                        format!("holds {n} partitions; pick one with --partition NAME: {}", list_or_none(&names)),
                    ))
                }
            },
        }
    };
    let name = partition_dir.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    let (topic, partition) = names::parse_topic_partition(&name)
        .ok_or_else(|| Error::layout(&partition_dir, "directory name is not <topic>-<partition>"))?;
    Ok(ReplicaPaths { log_dir, partition_dir, topic, partition })
}

fn list_or_none(names: &[String]) -> String {
    if names.is_empty() {
        "none".into()
    } else {
        names.join(", ")
    }
}

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
    pub dir: PathBuf,
    pub replica_id: Option<i32>,
}

/// What a broker holds in memory for this partition; lost on a crash.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct VolatileState {
    pub role: Role,
    /// The leader epoch this replica knows as current (−1: none yet).
    pub leader_epoch: i32,
    /// A follower's leader (canonical log dir).
    #[serde(default)]
    pub leader: Option<PathBuf>,
    /// A leader's ISR, without itself.
    #[serde(default)]
    pub isr: Vec<IsrMember>,
    /// A leader's view of each follower's LEO: the fetch offset of its latest fetch.
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

/// Topic settings klog keeps because no controller holds them (Kafka keeps them in
/// ZooKeeper/KRaft, not in the log dir).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct TopicConfig {
    pub segment_bytes: u64,
    pub index_interval_bytes: u64,
    #[serde(default = "default_index_bytes_max")]
    pub index_bytes_max: u64,
    #[serde(default = "default_segment_ms")]
    pub segment_ms: u64,
}

fn default_segment_ms() -> u64 {
    crate::log::DEFAULT_SEGMENT_MS
}

fn default_index_bytes_max() -> u64 {
    crate::log::DEFAULT_INDEX_BYTES_MAX
}

impl From<TopicConfig> for LogConfig {
    fn from(c: TopicConfig) -> LogConfig {
        LogConfig {
            segment_bytes: c.segment_bytes,
            index_interval_bytes: c.index_interval_bytes,
            index_bytes_max: c.index_bytes_max,
            segment_ms: c.segment_ms,
        }
    }
}

#[derive(Debug, Clone, Default, Serialize, Deserialize)]
struct PartitionEntry {
    config: Option<TopicConfig>,
    state: Option<VolatileState>,
}

/// The contents of `klog-state.json` (fields private: read through [`Replica`]).
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct KlogStateFile {
    version: u32,
    partitions: BTreeMap<String, PartitionEntry>,
}

/// Decode the bytes of a `klog-state.json`; `path` names the file in the error.
pub fn parse_state_file(bytes: &[u8], path: &Path) -> Result<KlogStateFile> {
    serde_json::from_slice(bytes)
        .map_err(|e| Error::malformed(path, e.line(), format!("klog state file does not parse: {e}")))
}

fn read_state_file(path: &Path) -> Result<KlogStateFile> {
    match fs::read(path) {
        Ok(bytes) => parse_state_file(&bytes, path),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(KlogStateFile { version: 1, ..Default::default() }),
        Err(e) => Err(Error::io(path, "read", e)),
    }
}

/// `meta.properties` keys.
pub fn read_meta_properties(path: &Path) -> Result<BTreeMap<String, String>> {
    let text = match fs::read_to_string(path) {
        Ok(t) => t,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(BTreeMap::new()),
        Err(e) => return Err(Error::io(path, "read", e)),
    };
    let mut out = BTreeMap::new();
    for (i, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') || line.starts_with('!') {
            continue;
        }
        let (k, v) = line
            .split_once(['=', ':'])
            .ok_or_else(|| Error::malformed(path, i + 1, format!("expected key=value, found {line:?}")))?;
        out.insert(k.trim().to_string(), v.trim().to_string());
    }
    Ok(out)
}

/// A replica opened for reading or writing.
pub struct Replica {
    pub paths: ReplicaPaths,
    pub log: Log,
    pub high_watermark: i64,
    pub recovery_point: i64,
    pub log_start_offset: i64,
    /// `.kafka_cleanshutdown` present in the log dir.
    pub clean_shutdown: bool,
    /// `node.id` / `broker.id` from `meta.properties`.
    pub replica_id: Option<i32>,
    pub topic_config: Option<TopicConfig>,
    pub state: Option<VolatileState>,
    /// Held for the life of a mutating open.
    _lock: Option<File>,
}

fn checkpoint_offset(path: &Path, paths: &ReplicaPaths) -> Result<Option<i64>> {
    Ok(checkpoint::read_offset_checkpoint(path)?
        .into_iter()
        .find(|e: &OffsetEntry| e.topic == paths.topic && e.partition == paths.partition)
        .map(|e| e.offset))
}

impl Replica {
    /// Open read-only: nothing on disk changes, whatever state the dir is in.
    pub fn open(path: &Path, partition: Option<&str>) -> Result<Replica> {
        let paths = resolve(path, partition)?;
        Replica::load(paths, None)
    }

    fn load(paths: ReplicaPaths, lock: Option<File>) -> Result<Replica> {
        let state_file = read_state_file(&paths.log_dir_file(KLOG_STATE))?;
        let entry = state_file.partitions.get(&paths.name()).cloned().unwrap_or_default();
        let config: LogConfig = entry.config.map(Into::into).unwrap_or_default();
        let log_start_checkpoint =
            checkpoint_offset(&paths.log_dir_file(names::LOG_START_OFFSET_CHECKPOINT), &paths)?.unwrap_or(0);
        let hw = checkpoint_offset(&paths.log_dir_file(names::REPLICATION_OFFSET_CHECKPOINT), &paths)?.unwrap_or(0);
        let recovery_point =
            checkpoint_offset(&paths.log_dir_file(names::RECOVERY_POINT_OFFSET_CHECKPOINT), &paths)?.unwrap_or(0);
        let log = Log::open(&paths.partition_dir, config, log_start_checkpoint)?;
        let log_start_offset = log.first_offset().map_or(log_start_checkpoint, |f| f.max(log_start_checkpoint));
        let meta = read_meta_properties(&paths.log_dir_file(META_PROPERTIES))?;
        let replica_id = meta.get("node.id").or_else(|| meta.get("broker.id")).and_then(|v| v.parse().ok());
        let clean_shutdown = paths.log_dir_file(CLEAN_SHUTDOWN_MARKER).exists();
        // Kept as checkpointed (a forensic reader wants the raw value); `start` clamps it to
        // [logStartOffset, LEO] as Kafka's `Partition.createLog` does.
        let high_watermark = hw;
        Ok(Replica {
            paths,
            log,
            high_watermark,
            recovery_point,
            log_start_offset,
            clean_shutdown,
            replica_id,
            topic_config: entry.config,
            state: entry.state,
            _lock: lock,
        })
    }

    /// Take the log dir's lock (refusing, not waiting, if another process holds it).
    pub fn lock(log_dir: &Path) -> Result<File> {
        let path = log_dir.join(LOCK_FILE);
        let file =
            fs::OpenOptions::new().create(true).truncate(false).write(true).open(&path).at(&path, "open lock")?;
        match file.try_lock() {
            Ok(()) => Ok(file),
            Err(fs::TryLockError::WouldBlock) => Err(Error::Locked { path: log_dir.to_path_buf() }),
            Err(fs::TryLockError::Error(e)) => Err(Error::io(&path, "lock", e)),
        }
    }

    /// Open for writing: lock, and start the replica if it is not running (local recovery
    /// after an unclean stop, whose report is returned).
    pub fn open_mut(path: &Path, partition: Option<&str>) -> Result<(Replica, Option<RecoveryReport>)> {
        let paths = resolve(path, partition)?;
        let lock = Replica::lock(&paths.log_dir)?;
        let mut replica = Replica::load(paths, Some(lock))?;
        let report =
            if replica.state.is_none() { Some(replica.start()?) } else { replica.repair_interrupted_write()? };
        Ok((replica, report))
    }

    /// A running replica whose active segment ends in a partial batch (or a partial index
    /// entry) was being written by a command that died. The bytes of every whole batch are in
    /// the page cache, as after a killed broker; the tail is cut by local recovery from the
    /// recovery point, and the replica keeps running with its volatile state.
    pub fn repair_interrupted_write(&mut self) -> Result<Option<RecoveryReport>> {
        if self.log.tail_is_clean() {
            return Ok(None);
        }
        let mut report =
            recovery::recover_log(&mut self.log, self.recovery_point, self.log_start_offset, false, false)?;
        report.interrupted_write = true;
        let leo = self.log.log_end_offset();
        if self.recovery_point > leo {
            self.set_recovery_point(leo)?;
        }
        if self.high_watermark > leo {
            self.set_high_watermark(leo)?;
        }
        Ok(Some(report))
    }

    /// Open for writing without starting it (for `crash`, `stop`, `recover`).
    pub fn open_mut_stopped_ok(path: &Path, partition: Option<&str>) -> Result<Replica> {
        let paths = resolve(path, partition)?;
        let lock = Replica::lock(&paths.log_dir)?;
        Replica::load(paths, Some(lock))
    }

    pub fn is_running(&self) -> bool {
        self.state.is_some()
    }

    /// What a broker does when it opens the log: after an unclean stop, local recovery; in
    /// either case the marker goes and the replica runs (as a follower with no leader yet).
    pub fn start(&mut self) -> Result<RecoveryReport> {
        let clean = self.clean_shutdown;
        let report = recovery::recover_log(&mut self.log, self.recovery_point, self.log_start_offset, clean, false)?;
        let leo = self.log.log_end_offset();
        let recovery_point = if clean { leo } else { self.recovery_point.min(leo) };
        self.set_recovery_point(recovery_point)?;
        let hw = self.high_watermark.clamp(self.log_start_offset.min(leo), leo);
        self.set_high_watermark(hw)?;
        if clean {
            durable::remove_file(&self.paths.log_dir_file(CLEAN_SHUTDOWN_MARKER))?;
            self.clean_shutdown = false;
        }
        self.state = Some(VolatileState::started());
        self.save_state()?;
        Ok(report)
    }

    pub fn log_end_offset(&self) -> i64 {
        self.log.log_end_offset()
    }

    pub fn state(&self) -> Option<&VolatileState> {
        self.state.as_ref()
    }

    pub fn role(&self) -> Option<Role> {
        self.state.as_ref().map(|s| s.role)
    }

    /// The largest leader epoch this replica has seen: its cache or its volatile state.
    pub fn largest_known_epoch(&self) -> Option<i32> {
        let cached = self.log.epoch_cache().latest_epoch();
        let current = self.state.as_ref().map(|s| s.leader_epoch).filter(|e| *e >= 0);
        cached.max(current)
    }

    /// Canonical path of the log dir, the replica's identity among replicas.
    pub fn identity(&self) -> PathBuf {
        fs::canonicalize(&self.paths.log_dir).unwrap_or_else(|_| self.paths.log_dir.clone())
    }

    /// Rewrite the HW checkpoint entry (klog writes it every time the HW changes).
    pub fn set_high_watermark(&mut self, hw: i64) -> Result<()> {
        let path = self.paths.log_dir_file(names::REPLICATION_OFFSET_CHECKPOINT);
        let on_disk = checkpoint_offset(&path, &self.paths)?;
        self.high_watermark = hw;
        if on_disk != Some(hw) {
            checkpoint::update_offset_checkpoint(&path, &self.paths.topic, self.paths.partition, Some(hw))?;
        }
        Ok(())
    }

    pub fn set_recovery_point(&mut self, offset: i64) -> Result<()> {
        let path = self.paths.log_dir_file(names::RECOVERY_POINT_OFFSET_CHECKPOINT);
        let on_disk = checkpoint_offset(&path, &self.paths)?;
        self.recovery_point = offset;
        if on_disk != Some(offset) {
            checkpoint::update_offset_checkpoint(&path, &self.paths.topic, self.paths.partition, Some(offset))?;
        }
        Ok(())
    }

    /// Persist klog's state file (this partition's entry only).
    pub fn save_state(&self) -> Result<()> {
        let path = self.paths.log_dir_file(KLOG_STATE);
        let mut file = read_state_file(&path)?;
        file.version = 1;
        let entry = file.partitions.entry(self.paths.name()).or_default();
        entry.config = self.topic_config;
        entry.state = self.state.clone();
        let mut text = serde_json::to_string_pretty(&file).expect("state serializes");
        text.push('\n');
        durable::write_atomic(&path, text.as_bytes())
    }

    /// Write buffered index entries (the data itself stays unflushed).
    pub fn finish_writes(&mut self) -> Result<()> {
        self.log.finish()
    }

    /// fsync everything and move the recovery point to the LEO.
    pub fn flush(&mut self) -> Result<()> {
        self.log.flush(self.recovery_point)?;
        let leo = self.log.log_end_offset();
        self.set_recovery_point(leo)
    }

    /// Check that `other` replicates the same topic-partition.
    pub fn ensure_same_partition(&self, other: &Replica) -> Result<()> {
        if self.paths.topic != other.paths.topic || self.paths.partition != other.paths.partition {
            return Err(Error::layout(
                &other.paths.partition_dir,
                format!(
                    "holds partition {} but {} holds {}",
                    other.paths.name(),
                    self.paths.log_dir.display(),
                    self.paths.name()
                ),
            ));
        }
        Ok(())
    }
}

/// Write the files of a brand-new replica dir (used by `create`).
pub fn write_new_replica(
    log_dir: &Path,
    topic: &str,
    partition: i32,
    replica_id: i32,
    config: TopicConfig,
    created: &str,
) -> Result<ReplicaPaths> {
    let partition_dir = log_dir.join(format!("{topic}-{partition}"));
    durable::create_dir(&partition_dir)?;
    let topic_id = crate::util::derived_uuid(&format!("klog-topic:{topic}"));
    durable::write_atomic(
        &partition_dir.join(names::PARTITION_METADATA),
        format!("version: 0\ntopic_id: {topic_id}").as_bytes(),
    )?;
    checkpoint::write_epoch_checkpoint(&partition_dir.join(names::LEADER_EPOCH_CHECKPOINT), &[])?;
    let seg = crate::log::segment::Segment::new(&partition_dir, 0);
    for path in [seg.log_path(), seg.index_path(), seg.time_index_path()] {
        File::create(&path).at(&path, "create")?;
        durable::sync_path(&path)?;
    }
    durable::sync_dir(&partition_dir)?;
    let cluster_id = crate::util::derived_uuid("klog-cluster");
    let canonical = fs::canonicalize(log_dir).unwrap_or_else(|_| log_dir.to_path_buf());
    let directory_id = crate::util::derived_uuid(&format!("klog-dir:{}", canonical.display()));
    let meta = format!(
        "#\n#{created}\nnode.id={replica_id}\ndirectory.id={directory_id}\nversion=1\ncluster.id={cluster_id}\n"
    );
    durable::write_atomic(&log_dir.join(META_PROPERTIES), meta.as_bytes())?;
    for name in [
        names::REPLICATION_OFFSET_CHECKPOINT,
        names::RECOVERY_POINT_OFFSET_CHECKPOINT,
        names::LOG_START_OFFSET_CHECKPOINT,
    ] {
        let offset = if name == names::LOG_START_OFFSET_CHECKPOINT { None } else { Some(0) };
        checkpoint::update_offset_checkpoint(&log_dir.join(name), topic, partition, offset)?;
    }
    let paths = ReplicaPaths { log_dir: log_dir.to_path_buf(), partition_dir, topic: topic.to_string(), partition };
    let mut state = KlogStateFile { version: 1, ..Default::default() };
    state
        .partitions
        .insert(paths.name(), PartitionEntry { config: Some(config), state: Some(VolatileState::started()) });
    let mut text = serde_json::to_string_pretty(&state).expect("state serializes");
    text.push('\n');
    durable::write_atomic(&log_dir.join(KLOG_STATE), text.as_bytes())?;
    Ok(paths)
}

/// Remove the volatile state and the clean-shutdown marker: an unclean stop.
pub fn forget_volatile_state(replica: &mut Replica) -> Result<()> {
    replica.state = None;
    replica.save_state()?;
    durable::remove_file(&replica.paths.log_dir_file(CLEAN_SHUTDOWN_MARKER))?;
    replica.clean_shutdown = false;
    Ok(())
}
