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
use crate::format::properties;
use crate::log::checkpoint::{self, OffsetEntry};
use crate::log::names::{self, CLEAN_SHUTDOWN_MARKER, KLOG_STATE, LOCK_FILE, META_PROPERTIES};
use crate::log::recovery::{self, RecoveryReport};
use crate::log::{Log, LogConfig};
use crate::regular_file;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::fs::{self, File};
use std::os::unix::fs::OpenOptionsExt;
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
/// `leader-epoch-checkpoint` or `partition.metadata` (Kafka's own files; a `photos-2024/`
/// folder is not one).
pub fn looks_like_partition_dir(dir: &Path) -> bool {
    let Some(name) = dir.file_name().and_then(|n| n.to_str()) else { return false };
    if names::parse_topic_partition(name).is_none() {
        return false;
    }
    let entries = match fs::read_dir(dir) {
        Ok(entries) => entries,
        // A dir named like a partition that cannot be listed is one that does not read (a
        // finding of the reader), not a partition that is absent.
        Err(e) => return e.kind() == std::io::ErrorKind::PermissionDenied,
    };
    entries.flatten().any(|e| {
        let n = e.file_name();
        let n = n.to_string_lossy();
        (n.ends_with(names::LOG_SUFFIX) && names::parse_file_offset(&n).is_some())
            || n == names::LEADER_EPOCH_CHECKPOINT
            || n == names::PARTITION_METADATA
    })
}

/// What a log dir says about itself.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LogDirKind {
    /// It has `meta.properties`: a broker's (or klog's) log dir.
    Kafka,
    /// No `meta.properties`, but klog's state file.
    Klog,
    /// Partition dirs only: a partial copy, readable but never written.
    Partial,
}

/// Classify a log dir by the files Kafka (or klog) writes at its top level.
pub fn log_dir_kind(log_dir: &Path) -> LogDirKind {
    // Whatever is at the name counts (a `meta.properties` that is not a file is a finding of
    // the reader and a refusal of a writer, not a sign that the dir is a partial copy).
    let present = |name: &str| fs::symlink_metadata(log_dir.join(name)).is_ok();
    if present(META_PROPERTIES) {
        LogDirKind::Kafka
    } else if present(KLOG_STATE) {
        LogDirKind::Klog
    } else {
        LogDirKind::Partial
    }
}

/// The partition dirs directly under a log dir, in natural order (`t-2` before `t-10`).
pub fn list_partition_dirs(log_dir: &Path) -> Result<Vec<PathBuf>> {
    let mut out = Vec::new();
    for entry in fs::read_dir(log_dir).at(log_dir, "list directory")? {
        let entry = entry.at(log_dir, "list directory")?;
        // A symlinked partition dir is one, as Kafka's `File.isDirectory` follows the link.
        let is_dir = match entry.file_type().at(entry.path(), "stat")? {
            t if t.is_symlink() => fs::metadata(entry.path()).is_ok_and(|m| m.is_dir()),
            t => t.is_dir(),
        };
        if is_dir && looks_like_partition_dir(&entry.path()) {
            out.push(entry.path());
        }
    }
    out.sort_by_cached_key(|p| {
        let name = p.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
        match names::parse_topic_partition(&name) {
            Some((topic, partition)) => (topic, partition, name),
            None => (name.clone(), -1, name),
        }
    });
    Ok(out)
}

/// Resolve a command-line path (log dir or partition dir) to a replica's paths.
pub fn resolve(path: &Path, partition: Option<&str>) -> Result<ReplicaPaths> {
    // A partition is a name, never a path (`../B/demo-0` must not reach another log dir).
    if let Some(want) = partition {
        names::parse_partition_name(want).map_err(|why| Error::Usage(format!("--partition {want:?}: {why}")))?;
    }
    let meta = fs::metadata(path).map_err(|e| match e.kind() {
        std::io::ErrorKind::NotFound => Error::layout(path, "no such file or directory"),
        _ => Error::io(path, "stat", e),
    })?;
    if !meta.is_dir() {
        return Err(Error::layout(
            path,
            "not a directory (expected a Kafka log dir or partition dir; `klog dump FILE` reads one file)",
        ));
    }
    let (log_dir, partition_dir) = if looks_like_partition_dir(path) {
        let own = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
        if let Some(want) = partition.filter(|w| *w != own) {
            return Err(Error::layout(
                path,
                format!("is the partition dir of {own}, but --partition names {want}; name the log dir above it"),
            ));
        }
        let parent = match path.parent() {
            Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
            _ => PathBuf::from("."),
        };
        (parent, path.to_path_buf())
    } else {
        // A named partition is looked up directly (a data dir of thousands of partitions is
        // not listed once per partition); the listing is for choosing and for messages.
        if let Some(want) = partition {
            let dir = path.join(want);
            if names::parse_topic_partition(want).is_some() && looks_like_partition_dir(&dir) {
                let (topic, partition) = names::parse_topic_partition(want).expect("checked above");
                return Ok(ReplicaPaths { log_dir: path.to_path_buf(), partition_dir: dir, topic, partition });
            }
        }
        let dirs = list_partition_dirs(path)?;
        let names: Vec<String> =
            dirs.iter().filter_map(|d| d.file_name().map(|n| n.to_string_lossy().into_owned())).collect();
        match partition {
            Some(want) => match names.iter().position(|n| n == want) {
                Some(i) => (path.to_path_buf(), dirs[i].clone()),
                None if names.is_empty() => {
                    return Err(Error::layout(path, format!("no partition {want} here: it holds no partition dir")))
                }
                None => {
                    return Err(Error::layout(
                        path,
                        format!("no partition {want} here (it holds {})", name_list(&names)),
                    ))
                }
            },
            None => match dirs.len() {
                1 => (path.to_path_buf(), dirs[0].clone()),
                0 => {
                    return Err(Error::layout(
                        path,
                        "not a Kafka log dir: no <topic>-<partition> directory holding Kafka files in it \
                         (create one with `klog create`)",
                    ))
                }
                n => {
                    return Err(Error::layout(
                        path,
                        format!("holds {n} partitions; pick one with --partition NAME ({})", name_list(&names)),
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

/// A partition of a log dir already read, by the name of its dir: looked up directly, so that
/// opening each of N partitions costs one partition dir each, never a listing of the log dir
/// (`resolve` first asks whether the log dir is itself a partition dir: a data dir named like
/// `kafka-1` would be listed once per partition). Names that do not resolve this way go
/// through `resolve`, for its refusal.
fn resolve_in(files: &LogDirFiles, partition: &str) -> Result<ReplicaPaths> {
    let dir = files.log_dir.join(partition);
    let is_name = Path::new(partition).file_name().is_some_and(|n| n == partition);
    match names::parse_topic_partition(partition) {
        Some((topic, number)) if is_name && looks_like_partition_dir(&dir) => {
            Ok(ReplicaPaths { log_dir: files.log_dir.clone(), partition_dir: dir, topic, partition: number })
        }
        _ => resolve(&files.log_dir, Some(partition)),
    }
}

/// Every partition of a log dir (for commands that act on a whole broker: `stop`, `crash`).
pub fn resolve_all(path: &Path, partition: Option<&str>) -> Result<Vec<ReplicaPaths>> {
    if partition.is_some() || looks_like_partition_dir(path) {
        return Ok(vec![resolve(path, partition)?]);
    }
    let dirs = match fs::metadata(path) {
        Ok(m) if m.is_dir() => list_partition_dirs(path)?,
        _ => return Ok(vec![resolve(path, None)?]),
    };
    if dirs.len() <= 1 {
        return Ok(vec![resolve(path, None)?]);
    }
    dirs.iter()
        .map(|d| {
            let name = d.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
            resolve(path, Some(&name))
        })
        .collect()
}

/// At most ten names, then how many more: a refusal stays one readable line.
fn name_list(names: &[String]) -> String {
    const SHOWN: usize = 10;
    if names.len() <= SHOWN {
        names.join(", ")
    } else {
        format!("{}, and {} more", names[..SHOWN].join(", "), names.len() - SHOWN)
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
    /// The largest leader epoch this replica has ever seen (led, followed or found in a batch).
    /// Durable: no crash removes it, so no election reuses an epoch (replication-model.md,
    /// operation 1; in Kafka the controller owns this number).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    largest_leader_epoch: Option<i32>,
    state: Option<VolatileState>,
}

/// The contents of `klog-state.json` (fields private: read through [`Replica`]).
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct KlogStateFile {
    version: u32,
    partitions: BTreeMap<String, PartitionEntry>,
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

fn read_state_file(path: &Path) -> Result<KlogStateFile> {
    match regular_file::read_regular(path)? {
        Some(bytes) => parse_state_file(&bytes, path),
        None => Ok(KlogStateFile { version: 1, ..Default::default() }),
    }
}

/// `meta.properties` keys, read as Kafka reads them (`java.util.Properties.load`, see
/// [`crate::format::properties`]). A missing file has no keys.
pub fn read_meta_properties(path: &Path) -> Result<BTreeMap<String, String>> {
    let Some(bytes) = regular_file::read_regular(path)? else { return Ok(BTreeMap::new()) };
    properties::decode(&bytes).map_err(|e| Error::corrupt(path, e.position, format!("line {}: {}", e.line, e.what)))
}

/// The log dir's `.lock`, held the way a broker holds it: a POSIX record lock (`fcntl`), which
/// is what Java's `FileChannel.tryLock` takes, so klog and a live broker see each other.
pub struct DirLock {
    file: File,
    path: PathBuf,
    /// klog created the file; it is removed again if the command never wrote anything.
    created: bool,
    /// The command went on to write: the lock file stays, as a broker leaves it.
    kept: bool,
}

impl DirLock {
    /// Take the lock on `log_dir/.lock`, refusing (not waiting) if another process holds it.
    pub fn acquire(log_dir: &Path) -> Result<DirLock> {
        let path = log_dir.join(LOCK_FILE);
        // Never through a symlink (a dangling one would create a file outside the dir), never
        // waiting on a FIFO, never locking a device.
        let created = match fs::symlink_metadata(&path) {
            Ok(m) if m.file_type().is_symlink() => {
                return Err(Error::layout(&path, "is a symlink: klog never follows a .lock symlink (remove it)"))
            }
            Ok(m) if !m.is_file() => return Err(Error::not_regular(&path, regular_file::kind_of(&m).unwrap_or("?"))),
            Ok(_) => false,
            Err(_) => true,
        };
        if created {
            durable::note_created(&path);
        }
        let file = fs::OpenOptions::new()
            .create(true)
            .truncate(false)
            .write(true)
            .custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK)
            .open(&path)
            .at(&path, "open lock")?;
        let meta = file.metadata().at(&path, "stat")?;
        if let Some(kind) = regular_file::kind_of(&meta) {
            return Err(Error::not_regular(&path, kind));
        }
        let mut lock = DirLock { file, path, created, kept: false };
        // SAFETY: `flock` is a plain C struct; every field is set below or zero.
        let mut fl: libc::flock = unsafe { std::mem::zeroed() };
        fl.l_type = libc::F_WRLCK as libc::c_short;
        fl.l_whence = libc::SEEK_SET as libc::c_short;
        fl.l_start = 0;
        fl.l_len = 0; // the whole file, as FileChannel.tryLock() locks 0..Long.MAX_VALUE
        use std::os::fd::AsRawFd;
        // SAFETY: the fd is open for the life of `lock.file`; F_SETLK reads `fl` only.
        let rc = unsafe { libc::fcntl(lock.file.as_raw_fd(), libc::F_SETLK, &fl) };
        if rc != 0 {
            let e = std::io::Error::last_os_error();
            lock.created = false; // someone else's file: never remove it
            return match e.raw_os_error() {
                Some(libc::EACCES) | Some(libc::EAGAIN) => Err(Error::Locked { path: log_dir.to_path_buf() }),
                _ => Err(Error::io(&lock.path, "lock", e)),
            };
        }
        Ok(lock)
    }

    /// Refuse as [`DirLock::acquire`] would, without taking the lock or creating the file: a
    /// `.lock` that is a symlink or not a regular file, or that another process holds.
    pub fn probe(log_dir: &Path) -> Result<()> {
        let path = log_dir.join(LOCK_FILE);
        match fs::symlink_metadata(&path) {
            Ok(m) if m.file_type().is_symlink() => {
                return Err(Error::layout(&path, "is a symlink: klog never follows a .lock symlink (remove it)"))
            }
            Ok(m) if !m.is_file() => return Err(Error::not_regular(&path, regular_file::kind_of(&m).unwrap_or("?"))),
            Ok(_) => {}
            Err(_) => return Ok(()),
        }
        let file = fs::OpenOptions::new()
            .read(true)
            .custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK)
            .open(&path)
            .at(&path, "open lock")?;
        // SAFETY: `flock` is a plain C struct; every field is set below or zero.
        let mut fl: libc::flock = unsafe { std::mem::zeroed() };
        fl.l_type = libc::F_WRLCK as libc::c_short;
        fl.l_whence = libc::SEEK_SET as libc::c_short;
        use std::os::fd::AsRawFd;
        // SAFETY: the fd is open for the life of `file`; F_GETLK reads and writes `fl` only.
        let rc = unsafe { libc::fcntl(file.as_raw_fd(), libc::F_GETLK, &mut fl) };
        if rc != 0 {
            return Err(Error::io(&path, "lock", std::io::Error::last_os_error()));
        }
        if fl.l_type != libc::F_UNLCK as libc::c_short {
            return Err(Error::Locked { path: log_dir.to_path_buf() });
        }
        Ok(())
    }

    /// The command is about to write: the lock file stays.
    pub fn keep(&mut self) {
        self.kept = true;
    }
}

impl Drop for DirLock {
    fn drop(&mut self) {
        if self.created && !self.kept {
            let _ = fs::remove_file(&self.path);
        }
    }
}

/// A problem with a file read while opening a replica read-only; the value it would have given
/// is taken as absent, and the reader shows it as a finding.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LoadProblem {
    pub path: PathBuf,
    /// Where in the file: the byte position (0 when the problem is the file itself, such as
    /// a FIFO where a file belongs).
    pub position: u64,
    /// The 1-based line, for a text file whose problem is a line.
    pub line: Option<usize>,
    pub what: String,
}

/// One partition's entry in an offset checkpoint: its offset, its 1-based line and where the
/// line starts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CheckpointValue {
    pub offset: i64,
    pub line: usize,
    pub position: u64,
}

/// An offset checkpoint read once: every entry by partition name (hashed: a lookup per
/// partition costs the same for 10 entries as for 100,000), and the entries in file order.
#[derive(Default)]
pub struct OffsetCheckpoint {
    by_name: std::collections::HashMap<String, CheckpointValue>,
    /// `(topic, partition)` of every entry, in file order.
    entries: Vec<(String, i32)>,
}

impl OffsetCheckpoint {
    fn read(path: &Path) -> Result<OffsetCheckpoint> {
        let mut out = OffsetCheckpoint::default();
        checkpoint::read_offset_entries(path, &mut |e: OffsetEntry| {
            // A later line for the same partition wins, as in Kafka's map of the file.
            out.by_name.insert(
                format!("{}-{}", e.topic, e.partition),
                CheckpointValue { offset: e.offset, line: e.line, position: e.position },
            );
            out.entries.push((e.topic, e.partition));
            Ok(())
        })?;
        Ok(out)
    }

    /// The entry for partition dir name `name` (`<topic>-<partition>`).
    pub fn get(&self, name: &str) -> Option<CheckpointValue> {
        self.by_name.get(name).copied()
    }

    /// `(topic, partition)` of every entry, in file order.
    pub fn entries(&self) -> &[(String, i32)] {
        &self.entries
    }
}

impl LoadProblem {
    /// The problem an error of a read-only load stands for, if it is one a reader goes on
    /// after (bad bytes, a bad line, a name that is not a regular file).
    pub fn from_error(e: &Error) -> Option<LoadProblem> {
        let (path, position, line) = match e {
            Error::Corrupt { path, position, .. } => (path, *position, None),
            Error::Malformed { path, line, .. } => (path, line_position(path, *line), Some(*line)),
            Error::NotRegular { path, .. } => (path, 0, None),
            _ => return None,
        };
        // The message without its leading path: the problem carries the path as data.
        let text = e.to_string();
        let what = text.strip_prefix(&format!("{}: ", path.display())).map_or(text.clone(), str::to_string);
        Some(LoadProblem { path: path.clone(), position, line, what })
    }
}

/// Byte position of 1-based `line` of the text file `path` (0 when it no longer reads).
fn line_position(path: &Path, line: usize) -> u64 {
    checkpoint::line_position(path, line)
}

/// The files at a log dir's top level, read once: klog's state file, the three offset
/// checkpoints (by partition name), `meta.properties`, the clean-shutdown marker. Readers of
/// every partition of a data dir open each partition with it ([`Replica::open_in`]), so the
/// work is linear in partitions plus bytes.
pub struct LogDirFiles {
    pub log_dir: PathBuf,
    state: KlogStateFile,
    pub high_watermarks: OffsetCheckpoint,
    pub recovery_points: OffsetCheckpoint,
    pub log_start_offsets: OffsetCheckpoint,
    meta: BTreeMap<String, String>,
    clean_shutdown: bool,
    kind: LogDirKind,
    /// Files that did not read (a tolerant read only).
    pub problems: Vec<LoadProblem>,
}

impl LogDirFiles {
    /// The checkpointed recovery point of a partition (0 when absent, as Kafka reads it).
    pub fn recovery_point(&self, name: &str) -> i64 {
        self.recovery_points.get(name).map_or(0, |v| v.offset)
    }

    /// The checkpointed log start of a partition (0 when absent, as Kafka reads it).
    pub fn log_start_offset(&self, name: &str) -> i64 {
        self.log_start_offsets.get(name).map_or(0, |v| v.offset)
    }

    /// The checkpointed high watermark of a partition, if listed.
    pub fn high_watermark(&self, name: &str) -> Option<i64> {
        self.high_watermarks.get(name).map(|v| v.offset)
    }

    /// The topic settings klog keeps for a partition (Kafka's defaults when it keeps none).
    pub fn log_config(&self, name: &str) -> LogConfig {
        self.state.partitions.get(name).and_then(|e| e.config).map(Into::into).unwrap_or_default()
    }

    /// Partitions klog's state file says are running (a broker that has not stopped).
    pub fn running_partitions(&self) -> Vec<String> {
        self.state.partitions.iter().filter(|(_, e)| e.state.is_some()).map(|(n, _)| n.clone()).collect()
    }

    /// `.kafka_cleanshutdown` was present when the files were read.
    pub fn clean_shutdown(&self) -> bool {
        self.clean_shutdown
    }

    /// Read the log dir's files for readers: a file that does not read is a problem, and its
    /// values are taken as absent.
    pub fn read_tolerant(log_dir: &Path) -> Result<LogDirFiles> {
        LogDirFiles::read(log_dir, Strictness::Tolerate)
    }

    fn read(log_dir: &Path, strictness: Strictness) -> Result<LogDirFiles> {
        let mut problems = Vec::new();
        let state =
            tolerated(read_state_file(&log_dir.join(KLOG_STATE)), strictness, &mut problems)?.unwrap_or_default();
        let mut offsets = |name: &str| -> Result<OffsetCheckpoint> {
            Ok(tolerated(OffsetCheckpoint::read(&log_dir.join(name)), strictness, &mut problems)?.unwrap_or_default())
        };
        let log_start_offsets = offsets(names::LOG_START_OFFSET_CHECKPOINT)?;
        let high_watermarks = offsets(names::REPLICATION_OFFSET_CHECKPOINT)?;
        let recovery_points = offsets(names::RECOVERY_POINT_OFFSET_CHECKPOINT)?;
        let meta = tolerated(read_meta_properties(&log_dir.join(META_PROPERTIES)), strictness, &mut problems)?
            .unwrap_or_default();
        Ok(LogDirFiles {
            log_dir: log_dir.to_path_buf(),
            state,
            high_watermarks,
            recovery_points,
            log_start_offsets,
            meta,
            clean_shutdown: log_dir.join(CLEAN_SHUTDOWN_MARKER).exists(),
            kind: log_dir_kind(log_dir),
            problems,
        })
    }
}

/// A replica opened for reading or writing.
pub struct Replica {
    pub paths: ReplicaPaths,
    pub log: Log,
    pub high_watermark: i64,
    pub recovery_point: i64,
    pub log_start_offset: i64,
    /// The log-start-offset checkpoint's entry (0 when absent): what Kafka's loader compares
    /// the log end with.
    pub log_start_offset_checkpoint: i64,
    /// `.kafka_cleanshutdown` present in the log dir.
    pub clean_shutdown: bool,
    /// `node.id` / `broker.id` from `meta.properties`.
    pub replica_id: Option<i32>,
    /// `directory.id` from `meta.properties` (KRaft log dirs and klog's own).
    pub directory_id: Option<String>,
    /// `cluster.id` from `meta.properties`.
    pub cluster_id: Option<String>,
    pub topic_config: Option<TopicConfig>,
    pub state: Option<VolatileState>,
    /// The durable largest leader epoch from klog's state file, if it has one.
    largest_leader_epoch_recorded: Option<i32>,
    /// What the log dir says about itself.
    pub kind: LogDirKind,
    /// Files that could not be read in a read-only open (empty for a write open).
    pub problems: Vec<LoadProblem>,
    /// The 1-based line and byte position of this partition's entries in the HW and
    /// recovery-point checkpoints as read (for findings that must say where), if it has them.
    pub high_watermark_line: Option<(usize, u64)>,
    pub recovery_point_line: Option<(usize, u64)>,
    /// Held for the life of a write open.
    lock: Option<DirLock>,
    /// Set by a command that closes many partitions of one log dir (`stop`): the HW and
    /// recovery-point setters and [`Replica::save_state`] only update the replica, and
    /// [`write_log_dir_files`] writes each log-dir file once for all of them.
    pub defer_log_dir_writes: bool,
}

fn checkpoint_offset(path: &Path, paths: &ReplicaPaths) -> Result<Option<i64>> {
    Ok(checkpoint::read_offset_checkpoint(path)?
        .into_iter()
        .find(|e: &OffsetEntry| e.topic == paths.topic && e.partition == paths.partition)
        .map(|e| e.offset))
}

/// A value read from a file: a writer stops at the first problem; a reader notes it and goes
/// on without the value (`None`).
fn tolerated<T>(read: Result<T>, strictness: Strictness, problems: &mut Vec<LoadProblem>) -> Result<Option<T>> {
    match read {
        Ok(v) => Ok(Some(v)),
        Err(e) if strictness == Strictness::Tolerate => match LoadProblem::from_error(&e) {
            Some(problem) => {
                problems.push(problem);
                Ok(None)
            }
            None => Err(e),
        },
        Err(e) => Err(e),
    }
}

/// Writes never follow a symlink out of the log dir: a partition dir that is a symlink is read
/// (Kafka follows it) but not written through; the user names the dir it points to instead.
fn refuse_symlinked_partition_dir(paths: &ReplicaPaths) -> Result<()> {
    let dir = &paths.partition_dir;
    match fs::symlink_metadata(dir) {
        Ok(m) if m.file_type().is_symlink() => {
            let target = fs::canonicalize(dir).map_or_else(|_| "?".to_string(), |t| t.display().to_string());
            Err(Error::layout(
                dir,
                format!(
                    "is a symlink (to {target}): klog reads through it but never writes through a symlink; \
                     name the partition dir it points to"
                ),
            ))
        }
        _ => Ok(()),
    }
}

/// How strictly a load treats a file it cannot read.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Strictness {
    /// A writer refuses: it must not act on a replica it does not fully understand.
    Refuse,
    /// A reader goes on without the value and reports the problem.
    Tolerate,
}

impl Replica {
    /// Open read-only: nothing on disk changes, whatever state the dir is in. A checkpoint,
    /// `meta.properties` or state file that does not parse is recorded in `problems` and
    /// treated as absent, so `dump` and `check` still show the log.
    pub fn open(path: &Path, partition: Option<&str>) -> Result<Replica> {
        let paths = resolve(path, partition)?;
        Replica::load(paths, None, Strictness::Tolerate)
    }

    /// Open for writing, the one way every mutating command opens a replica: resolve, refuse a
    /// directory that is not a Kafka log dir, take the lock, load and validate every file.
    /// Nothing is written: the caller validates its request (against [`Replica::will_run_as`],
    /// the state a start would leave), then calls [`Replica::start`], then acts. A command that
    /// refuses before `start` leaves the tree byte-identical.
    pub fn open_for_write(path: &Path, partition: Option<&str>) -> Result<Replica> {
        let paths = resolve(path, partition)?;
        Replica::open_paths_for_write(paths)
    }

    /// [`Replica::open_for_write`] on resolved paths.
    pub fn open_paths_for_write(paths: ReplicaPaths) -> Result<Replica> {
        Replica::open_paths_checked(paths, true)
    }

    /// Every check of [`Replica::open_for_write`], refusals included, without taking the lock
    /// (it is probed: a lock another process holds refuses, as the write open would) and so
    /// without writing anything: how a dry run opens the replica its run would write.
    pub fn open_for_check(path: &Path, partition: Option<&str>) -> Result<Replica> {
        let paths = resolve(path, partition)?;
        Replica::open_paths_checked(paths, false)
    }

    /// The one open of a replica a command will write (`take_lock`) or forecast writing: the
    /// log dir's checks, then the partition's, then a load that refuses any file it cannot read.
    fn open_paths_checked(paths: ReplicaPaths, take_lock: bool) -> Result<Replica> {
        check_log_dir_for_write(&paths.log_dir)?;
        refuse_symlinked_partition_dir(&paths)?;
        durable::check_temp_names(&paths.partition_dir)?;
        let lock = if take_lock { Some(DirLock::acquire(&paths.log_dir)?) } else { None };
        Replica::load(paths, lock, Strictness::Refuse)
    }

    /// [`Replica::open_for_check`] of one partition of a data dir whose files were read once
    /// (without a problem) and whose log dir passed [`check_log_dir_for_write`]: the same
    /// partition checks and strict load, without listing the log dir again.
    pub fn open_in_checked(files: &LogDirFiles, partition: &str) -> Result<Replica> {
        let paths = resolve_in(files, partition)?;
        refuse_symlinked_partition_dir(&paths)?;
        durable::check_temp_names(&paths.partition_dir)?;
        Replica::load_with(paths, files, None, Strictness::Refuse)
    }

    fn load(paths: ReplicaPaths, lock: Option<DirLock>, strictness: Strictness) -> Result<Replica> {
        let files = LogDirFiles::read(&paths.log_dir, strictness)?;
        Replica::load_with(paths, &files, lock, strictness)
    }

    /// Open one partition read-only with the log dir's files already read: a reader of every
    /// partition of a data dir reads the checkpoints, `meta.properties` and the state file once.
    pub fn open_in(files: &LogDirFiles, partition: &str) -> Result<Replica> {
        Replica::load_with(resolve_in(files, partition)?, files, None, Strictness::Tolerate)
    }

    /// [`Replica::open`] of `partition` (or the only one) under `path`, with the log dir's
    /// files already read when `files` is given and is that log dir's.
    pub fn open_with(path: &Path, partition: Option<&str>, files: Option<&LogDirFiles>) -> Result<Replica> {
        match (files, partition) {
            (Some(files), Some(name)) if files.log_dir == path => Replica::open_in(files, name),
            _ => Replica::open(path, partition),
        }
    }

    fn load_with(
        paths: ReplicaPaths,
        files: &LogDirFiles,
        lock: Option<DirLock>,
        strictness: Strictness,
    ) -> Result<Replica> {
        let name = paths.name();
        let entry = files.state.partitions.get(&name).cloned().unwrap_or_default();
        let config: LogConfig = entry.config.map(Into::into).unwrap_or_default();
        let log_start_checkpoint = files.log_start_offsets.get(&name).map_or(0, |v| v.offset);
        let hw_entry = files.high_watermarks.get(&name);
        let rp_entry = files.recovery_points.get(&name);
        let hw = hw_entry.map_or(0, |v| v.offset);
        let recovery_point = rp_entry.map_or(0, |v| v.offset);
        let meta = &files.meta;
        let log = Log::open(&paths.partition_dir, config, log_start_checkpoint)?;
        let mut problems = files.problems.clone();
        for n in log.not_regular_files() {
            // A writer acts on no partition holding a name it cannot read or write as Kafka
            // would (a FIFO named like a segment would make it wait for ever).
            if strictness == Strictness::Refuse {
                return Err(n.to_error());
            }
            problems.extend(LoadProblem::from_error(&n.to_error()));
        }
        let log_start_offset = log.first_offset().map_or(log_start_checkpoint, |f| f.max(log_start_checkpoint));
        let replica_id = meta.get("node.id").or_else(|| meta.get("broker.id")).and_then(|v| v.parse().ok());
        // The HW is kept as checkpointed (a forensic reader wants the raw value); `start` clamps
        // it to [logStartOffset, LEO] as Kafka's `Partition.createLog` does.
        Ok(Replica {
            paths,
            log,
            high_watermark: hw,
            recovery_point,
            log_start_offset,
            log_start_offset_checkpoint: log_start_checkpoint,
            clean_shutdown: files.clean_shutdown,
            replica_id,
            directory_id: meta.get("directory.id").cloned(),
            cluster_id: meta.get("cluster.id").cloned(),
            topic_config: entry.config,
            state: entry.state,
            largest_leader_epoch_recorded: entry.largest_leader_epoch,
            defer_log_dir_writes: false,
            kind: files.kind,
            problems,
            high_watermark_line: hw_entry.map(|v| (v.line, v.position)),
            recovery_point_line: rp_entry.map(|v| (v.line, v.position)),
            lock,
        })
    }

    /// The volatile state the replica will have once started: as it is if running, else a
    /// follower that knows no leader yet (what a restarted broker is until told otherwise).
    pub fn will_run_as(&self) -> VolatileState {
        self.state.clone().unwrap_or_else(VolatileState::started)
    }

    /// Bring the replica up before a command acts on it, as a broker does when it opens the
    /// log: a stopped replica gets local recovery (after an unclean stop) or none (after a
    /// clean one), its checkpoints clamped, and runs as a follower knowing no leader; a running
    /// replica whose last writer died mid-write has its tail cut. The clean-shutdown marker is
    /// removed before anything else is written (KAFKA-10471: a marker must never outlive a
    /// write). Returns what recovery did, if it ran.
    pub fn start(&mut self) -> Result<Option<RecoveryReport>> {
        self.bring_up(false)
    }

    /// What [`Replica::start`] would do, without writing: the same code with every write
    /// skipped, so the in-memory view (LEO, epoch cache, checkpoints, state) becomes what the
    /// start would leave and the report says what it would cut. For dry runs and read-only
    /// forecasts.
    pub fn preview_start(&mut self) -> Result<Option<RecoveryReport>> {
        self.bring_up(true)
    }

    /// [`Replica::start`] (`dry_run` false) or its forecast (true): one decision procedure.
    fn bring_up(&mut self, dry_run: bool) -> Result<Option<RecoveryReport>> {
        if let Some(lock) = self.lock.as_mut().filter(|_| !dry_run) {
            lock.keep();
        }
        let marker = self.paths.log_dir_file(CLEAN_SHUTDOWN_MARKER);
        if self.state.is_some() {
            if !dry_run {
                durable::remove_file(&marker)?;
            }
            self.clean_shutdown = false;
            let report = self.repair_interrupted_write(dry_run)?;
            // A command that died after cutting the log but before rewriting the checkpoints
            // left them above the LEO: clamped as Kafka's loader clamps them on load.
            let leo = self.log.log_end_offset();
            if self.recovery_point > leo {
                self.write_recovery_point(leo, dry_run)?;
            }
            if self.high_watermark > leo {
                self.write_high_watermark(leo, dry_run)?;
            }
            if !dry_run {
                self.log.delete_snapshots_above_log_end()?;
            }
            return Ok(report);
        }
        let clean = self.clean_shutdown;
        if !dry_run {
            durable::remove_file(&marker)?;
        }
        self.clean_shutdown = false;
        let report = {
            let inputs = self.load_inputs(clean);
            recovery::load_log(&mut self.log, &inputs, dry_run)?
        };
        self.log_start_offset = report.log_start_offset_after;
        let leo = self.log.log_end_offset();
        let recovery_point = if clean { leo } else { self.recovery_point.min(leo) };
        self.write_recovery_point(recovery_point, dry_run)?;
        let hw = self.high_watermark.clamp(self.log_start_offset.min(leo), leo);
        self.write_high_watermark(hw, dry_run)?;
        self.state = Some(VolatileState::started());
        if !dry_run {
            self.save_state()?;
        }
        Ok(Some(report))
    }

    /// What Kafka's loader is told about this log: the checkpointed recovery point and log
    /// start, and the marker. The metadata log (`__cluster_metadata`) is never loaded through
    /// `LogManager`: `KafkaRaftLog.createLog` opens it with both at 0 and no clean shutdown, so
    /// it is always scanned from offset 0.
    pub fn load_inputs(&self, clean_shutdown: bool) -> recovery::LoadInputs {
        if self.is_metadata_log() {
            return recovery::LoadInputs {
                recovery_point: 0,
                log_start_offset_checkpoint: 0,
                clean_shutdown: false,
                recover: true,
            };
        }
        recovery::LoadInputs {
            recovery_point: self.recovery_point,
            log_start_offset_checkpoint: self.log_start_offset_checkpoint,
            clean_shutdown,
            recover: true,
        }
    }

    /// The KRaft metadata log, which no log-dir checkpoint ever lists.
    pub fn is_metadata_log(&self) -> bool {
        self.paths.topic == crate::log::names::METADATA_TOPIC
    }

    /// A broker's data dir that klog has never written its state into (the operator names the
    /// leader of its partitions).
    pub fn is_broker_dir(&self) -> bool {
        self.kind == LogDirKind::Kafka
            && self.state.is_none()
            && self.topic_config.is_none()
            && self.largest_leader_epoch_recorded.is_none()
    }

    /// A running replica whose active segment ends in a partial batch (or a partial index
    /// entry) was being written by a command that died. The bytes of every whole batch are in
    /// the page cache, as after a killed broker; the tail is cut by local recovery from the
    /// recovery point, and the replica keeps running with its volatile state.
    fn repair_interrupted_write(&mut self, dry_run: bool) -> Result<Option<RecoveryReport>> {
        if self.log.tail_is_clean() {
            return Ok(None);
        }
        // The dead writer may have left stamped batches below the recovery point whose epoch
        // the cache lacks; recovery then drops whatever starts past the new log end.
        let assigned = self.log.assign_epochs_from_tail(dry_run)?;
        let mut report = {
            let inputs = self.load_inputs(false);
            recovery::load_log(&mut self.log, &inputs, dry_run)?
        };
        report.interrupted_write = true;
        let kept: Vec<_> = assigned.into_iter().filter(|e| self.log.epoch_cache().entries().contains(e)).collect();
        report.epochs_added.splice(0..0, kept);
        Ok(Some(report))
    }

    pub fn is_running(&self) -> bool {
        self.state.is_some()
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

    /// No batch and no epoch-cache entry: a replica that has never held data.
    pub fn is_empty(&self) -> bool {
        self.log.log_end_offset() == self.log_start_offset && self.log.epoch_cache().entries().is_empty()
    }

    /// The largest leader epoch this replica has seen: the durable record, its cache and its
    /// volatile state (a broker dir without klog's state has only its cache).
    pub fn largest_known_epoch(&self) -> Option<i32> {
        let cached = self.log.epoch_cache().latest_epoch();
        let current = self.state.as_ref().map(|s| s.leader_epoch).filter(|e| *e >= 0);
        cached.max(current).max(self.largest_leader_epoch_recorded)
    }

    /// Record durably that this replica has seen `leader_epoch` (before any byte stamped with
    /// it is written, so that no crash can make klog forget it).
    pub fn note_epoch_seen(&mut self, leader_epoch: i32) -> Result<()> {
        if self.largest_leader_epoch_recorded.is_some_and(|e| e >= leader_epoch) {
            return Ok(());
        }
        self.largest_leader_epoch_recorded = Some(leader_epoch);
        self.save_state()
    }

    /// What this replica is among replicas, from what its dir says: `directory.id`, else
    /// `node.id`/`broker.id`, else (a partial copy) the canonical path. Copying a lab with
    /// `cp -a` keeps every replica's identity, so the copy works as the original did.
    pub fn identity(&self) -> String {
        identity_of(self.directory_id.as_deref(), self.replica_id, &self.paths.log_dir)
    }

    /// Refuse a pair of dirs that are one replica (the same dir, or copies of one).
    pub fn ensure_distinct(&self, other: &Replica) -> Result<()> {
        ensure_distinct_identities(&self.paths.log_dir, &self.identity(), &other.paths.log_dir, &other.identity())
    }

    /// Rewrite the HW checkpoint entry (klog writes it every time the HW changes).
    pub fn set_high_watermark(&mut self, hw: i64) -> Result<()> {
        self.write_high_watermark(hw, false)
    }

    /// [`Replica::set_high_watermark`]; a dry run changes the value in memory only.
    fn write_high_watermark(&mut self, hw: i64, dry_run: bool) -> Result<()> {
        if self.is_metadata_log() || dry_run || self.defer_log_dir_writes {
            self.high_watermark = hw;
            return Ok(());
        }
        let path = self.paths.log_dir_file(names::REPLICATION_OFFSET_CHECKPOINT);
        let on_disk = checkpoint_offset(&path, &self.paths)?;
        self.high_watermark = hw;
        if on_disk != Some(hw) {
            checkpoint::update_offset_checkpoint(&path, &self.paths.topic, self.paths.partition, Some(hw))?;
        }
        Ok(())
    }

    pub fn set_recovery_point(&mut self, offset: i64) -> Result<()> {
        self.write_recovery_point(offset, false)
    }

    /// [`Replica::set_recovery_point`]; a dry run changes the value in memory only.
    fn write_recovery_point(&mut self, offset: i64, dry_run: bool) -> Result<()> {
        if self.is_metadata_log() || dry_run || self.defer_log_dir_writes {
            self.recovery_point = offset;
            return Ok(());
        }
        let path = self.paths.log_dir_file(names::RECOVERY_POINT_OFFSET_CHECKPOINT);
        let on_disk = checkpoint_offset(&path, &self.paths)?;
        self.recovery_point = offset;
        if on_disk != Some(offset) {
            checkpoint::update_offset_checkpoint(&path, &self.paths.topic, self.paths.partition, Some(offset))?;
        }
        Ok(())
    }

    /// `UnifiedLog.truncateFullyAndStartAt(offset)`: every segment goes, the log restarts empty
    /// at `offset`, which becomes its log start, HW and recovery point.
    pub fn restart_log_at(&mut self, offset: i64) -> Result<()> {
        self.log.truncate_fully_and_start_at(offset)?;
        self.log_start_offset = offset;
        if !self.is_metadata_log() && !self.defer_log_dir_writes {
            let path = self.paths.log_dir_file(names::LOG_START_OFFSET_CHECKPOINT);
            checkpoint::update_offset_checkpoint(&path, &self.paths.topic, self.paths.partition, Some(offset))?;
        }
        self.set_high_watermark(offset)?;
        self.set_recovery_point(offset)
    }

    /// Persist klog's state file (this partition's entry only).
    pub fn save_state(&self) -> Result<()> {
        if self.defer_log_dir_writes {
            return Ok(());
        }
        let path = self.paths.log_dir_file(KLOG_STATE);
        let mut file = read_state_file(&path)?;
        file.version = 1;
        let entry = file.partitions.entry(self.paths.name()).or_default();
        entry.config = self.topic_config;
        entry.state = self.state.clone();
        entry.largest_leader_epoch = self.largest_known_epoch();
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

    /// Closed as a clean shutdown leaves a partition: not running, nothing to recover, every
    /// byte flushed (recovery point at the LEO). The dir-wide marker may be written only when
    /// every partition of the dir is closed.
    pub fn is_closed(&self) -> bool {
        self.state.is_none() && self.log.tail_is_clean() && self.recovery_point == self.log_end_offset()
    }

    /// Why `other` cannot be a replica of the same partition although the names agree: another
    /// cluster (`cluster.id` in `meta.properties`) or another topic of the same name (`topic_id`
    /// in `partition.metadata`). `None` when nothing says so.
    pub fn foreign_to(&self, other: &Replica) -> Option<String> {
        if let (Some(a), Some(b)) = (&self.cluster_id, &other.cluster_id) {
            if a != b {
                return Some(format!(
                    "belongs to cluster {b} but {} belongs to cluster {a}: replicas of different clusters",
                    self.paths.log_dir.display()
                ));
            }
        }
        let topic_id = |r: &Replica| {
            regular_file::read_regular(&r.paths.partition_dir.join(names::PARTITION_METADATA))
                .ok()
                .flatten()
                .and_then(|t| String::from_utf8(t).ok())
                .and_then(|t| t.lines().find_map(|l| l.strip_prefix("topic_id:").map(|v| v.trim().to_string())))
        };
        if let (Some(a), Some(b)) = (topic_id(self), topic_id(other)) {
            if a != b {
                return Some(format!(
                    "has topic id {b} but {} has {a}: a different topic of the same name",
                    self.paths.partition_dir.display()
                ));
            }
        }
        None
    }

    /// Check that `other` replicates the same topic-partition of the same cluster.
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
        if let Some(why) = self.foreign_to(other) {
            return Err(Error::layout(&other.paths.log_dir, why));
        }
        Ok(())
    }
}

/// The checks of a write open that concern the log dir as a whole, refusing as the write
/// would: a partial copy, a temp name taken by something klog cannot replace, a `.lock` that is
/// not a plain file or that another process holds (probed, never taken or created).
pub fn check_log_dir_for_write(log_dir: &Path) -> Result<()> {
    if log_dir_kind(log_dir) == LogDirKind::Partial {
        return Err(Error::layout(
            log_dir,
            "not a Kafka log dir (no meta.properties): klog reads a partial copy but never writes into one",
        ));
    }
    durable::check_temp_names(log_dir)?;
    DirLock::probe(log_dir)
}

/// What a replica is among replicas (see [`Replica::identity`]).
fn identity_of(directory_id: Option<&str>, replica_id: Option<i32>, log_dir: &Path) -> String {
    if let Some(id) = directory_id {
        return format!("directory.id={id}");
    }
    if let Some(id) = replica_id {
        return format!("node.id={id}");
    }
    let path = fs::canonicalize(log_dir).unwrap_or_else(|_| log_dir.to_path_buf());
    format!("path={}", path.display())
}

fn ensure_distinct_identities(a: &Path, a_identity: &str, b: &Path, b_identity: &str) -> Result<()> {
    if fs::canonicalize(a).ok() == fs::canonicalize(b).ok() {
        return Err(Error::Usage(format!("{} and {} are the same replica dir", a.display(), b.display())));
    }
    if a_identity == b_identity {
        return Err(Error::layout(
            b,
            format!(
                "says it is the same replica as {} ({a_identity}): copies of one dir cannot replicate to each other",
                a.display()
            ),
        ));
    }
    Ok(())
}

/// [`Replica::ensure_distinct`] for two log dirs as a whole (the data-dir forms): the same
/// refusal, with the same words, as for any partition they share. A `meta.properties` that does
/// not read says nothing about identity (each partition's open reports it).
pub fn ensure_distinct_log_dirs(a: &Path, b: &Path) -> Result<()> {
    let identity = |dir: &Path| {
        let meta = read_meta_properties(&dir.join(META_PROPERTIES)).unwrap_or_default();
        let replica_id = meta.get("node.id").or_else(|| meta.get("broker.id")).and_then(|v| v.parse().ok());
        identity_of(meta.get("directory.id").map(String::as_str), replica_id, dir)
    };
    ensure_distinct_identities(a, &identity(a), b, &identity(b))
}

/// Every partition of one log dir opened for writing under its one lock, for the commands that
/// act on a whole broker (`stop`, `crash`). `targets` are the indexes in `replicas` that the
/// command line selected (all of them when it named the log dir without `--partition`).
pub struct LogDirWrite {
    pub lock: DirLock,
    pub replicas: Vec<Replica>,
    pub targets: Vec<usize>,
}

/// Open the log dir holding `path` for writing: refuse a dir that is not a Kafka log dir, take
/// its lock, load and validate every partition. Nothing is written.
pub fn open_log_dir_for_write(path: &Path, partition: Option<&str>) -> Result<LogDirWrite> {
    let selected = resolve_all(path, partition)?;
    let log_dir = selected[0].log_dir.clone();
    if log_dir_kind(&log_dir) == LogDirKind::Partial {
        return Err(Error::layout(
            &log_dir,
            "not a Kafka log dir (no meta.properties): klog reads a partial copy but never writes into one",
        ));
    }
    durable::check_temp_names(&log_dir)?;
    for p in &selected {
        refuse_symlinked_partition_dir(p)?;
    }
    let lock = DirLock::acquire(&log_dir)?;
    let mut all: Vec<ReplicaPaths> = list_partition_dirs(&log_dir)?
        .iter()
        .filter_map(|d| {
            let name = d.file_name()?.to_string_lossy().into_owned();
            let (topic, partition) = names::parse_topic_partition(&name)?;
            Some(ReplicaPaths { log_dir: log_dir.clone(), partition_dir: d.clone(), topic, partition })
        })
        .collect();
    // Hashed: every partition of a 10,000-partition dir is selected when the dir is named.
    let listed: std::collections::HashSet<PathBuf> = all.iter().map(|a| a.partition_dir.clone()).collect();
    for p in &selected {
        if !listed.contains(&p.partition_dir) {
            all.push(p.clone());
        }
    }
    let chosen: std::collections::HashSet<&Path> = selected.iter().map(|p| p.partition_dir.as_path()).collect();
    let targets =
        all.iter().enumerate().filter(|(_, a)| chosen.contains(a.partition_dir.as_path())).map(|(i, _)| i).collect();
    for p in &all {
        durable::check_temp_names(&p.partition_dir)?;
    }
    // The log dir's files are read (and validated) once, not once per partition.
    let files = LogDirFiles::read(&log_dir, Strictness::Refuse)?;
    let replicas =
        all.into_iter().map(|p| Replica::load_with(p, &files, None, Strictness::Refuse)).collect::<Result<_>>()?;
    Ok(LogDirWrite { lock, replicas, targets })
}

/// Write a brand-new log dir's `meta.properties` (used by `create`): the replica id as
/// `node.id`, a `directory.id` of its own, and klog's one cluster id.
pub fn write_new_log_dir(log_dir: &Path, replica_id: i32, created: &str) -> Result<()> {
    let cluster_id = crate::util::derived_uuid("klog-cluster");
    let canonical = fs::canonicalize(log_dir).unwrap_or_else(|_| log_dir.to_path_buf());
    let directory_id = crate::util::derived_uuid(&format!("klog-dir:{}", canonical.display()));
    let meta = format!(
        "#\n#{created}\nnode.id={replica_id}\ndirectory.id={directory_id}\nversion=1\ncluster.id={cluster_id}\n"
    );
    durable::write_atomic(&log_dir.join(META_PROPERTIES), meta.as_bytes())
}

/// Empty partitions `create` adds to a klog log dir, with everything they need read and checked
/// before anything is written: the log dir's checkpoints and state file as they are (one that
/// does not read refuses the create).
///
/// The write plan is linear in the partitions: each partition dir is built (an empty segment,
/// `partition.metadata`, `leader-epoch-checkpoint`), the file system is synced once, then each
/// log-dir checkpoint and the state file is written once, whole, atomically. Writing them per
/// partition would write O(N²) bytes (185 MB for 1,000 partitions). A failure part way is
/// undone by the durable layer's journal, as for every command.
pub struct NewPartitions {
    log_dir: PathBuf,
    topic: String,
    numbers: std::ops::RangeInclusive<i32>,
    config: TopicConfig,
    /// Each offset checkpoint's name and entries as found.
    checkpoints: Vec<(&'static str, Vec<OffsetEntry>)>,
    state: KlogStateFile,
}

impl NewPartitions {
    /// Read and check what adding partitions `numbers` of `topic` to `log_dir` needs (a log dir
    /// that does not exist yet has nothing to read). Writes nothing.
    pub fn read(
        log_dir: &Path,
        topic: &str,
        numbers: std::ops::RangeInclusive<i32>,
        config: TopicConfig,
    ) -> Result<NewPartitions> {
        let mut checkpoints = Vec::new();
        for name in [
            names::REPLICATION_OFFSET_CHECKPOINT,
            names::RECOVERY_POINT_OFFSET_CHECKPOINT,
            names::LOG_START_OFFSET_CHECKPOINT,
        ] {
            checkpoints.push((name, checkpoint::read_offset_checkpoint(&log_dir.join(name))?));
        }
        let state = read_state_file(&log_dir.join(KLOG_STATE))?;
        Ok(NewPartitions {
            log_dir: log_dir.to_path_buf(),
            topic: topic.to_string(),
            numbers,
            config,
            checkpoints,
            state,
        })
    }

    /// Write the partitions.
    pub fn write(self) -> Result<Vec<ReplicaPaths>> {
        let topic = &self.topic;
        let topic_id = crate::util::derived_uuid(&format!("klog-topic:{topic}"));
        let partition_metadata = format!("version: 0\ntopic_id: {topic_id}");
        let epoch_checkpoint = checkpoint::render_checkpoint(&[]);
        let mut added = Vec::with_capacity(self.numbers.clone().count());
        for partition in self.numbers.clone() {
            let partition_dir = self.log_dir.join(format!("{topic}-{partition}"));
            durable::create_dir_unsynced(&partition_dir)?;
            for (name, bytes) in [
                (names::PARTITION_METADATA, partition_metadata.as_bytes()),
                (names::LEADER_EPOCH_CHECKPOINT, epoch_checkpoint.as_bytes()),
            ] {
                let path = partition_dir.join(name);
                let mut file = durable::create_file(&path)?;
                durable::append(&mut file, &path, bytes)?;
            }
            let seg = crate::log::segment::Segment::new(&partition_dir, 0);
            for path in [seg.log_path(), seg.index_path(), seg.time_index_path()] {
                durable::create_file(&path)?;
            }
            added.push(ReplicaPaths { log_dir: self.log_dir.clone(), partition_dir, topic: topic.clone(), partition });
        }
        // Every new dir and file durable at once, before the log-dir files name them.
        durable::sync_file_system(&self.log_dir)?;
        let new: std::collections::HashSet<i32> = self.numbers.clone().collect();
        for (name, entries) in &self.checkpoints {
            let mut entries: Vec<OffsetEntry> =
                entries.iter().filter(|e| !(e.topic == *topic && new.contains(&e.partition))).cloned().collect();
            if *name != names::LOG_START_OFFSET_CHECKPOINT {
                entries.extend(self.numbers.clone().map(|partition| OffsetEntry {
                    topic: topic.clone(),
                    partition,
                    offset: 0,
                    line: 0,
                    position: 0,
                }));
            }
            let path = self.log_dir.join(name);
            durable::write_atomic(&path, checkpoint::render_offset_checkpoint(&entries).as_bytes())?;
        }
        let mut state = self.state.clone();
        state.version = 1;
        for p in &added {
            state.partitions.insert(
                p.name(),
                PartitionEntry {
                    config: Some(self.config),
                    largest_leader_epoch: None,
                    state: Some(VolatileState::started()),
                },
            );
        }
        let mut text = serde_json::to_string_pretty(&state).expect("state serializes");
        text.push('\n');
        let state_path = self.log_dir.join(KLOG_STATE);
        durable::write_atomic(&state_path, text.as_bytes())?;
        Ok(added)
    }
}

/// Write what the deferred setters of `replicas` (all of one log dir) held back: the HW and
/// recovery-point checkpoints and klog's state file, each read and written once (the metadata
/// log is never checkpointed), then end the deferral.
pub fn write_log_dir_files(replicas: &mut [&mut Replica]) -> Result<()> {
    let Some(first) = replicas.first() else { return Ok(()) };
    let log_dir = first.paths.log_dir.clone();
    assert!(replicas.iter().all(|r| r.paths.log_dir == log_dir), "replicas of one log dir");
    let logs: Vec<&&mut Replica> = replicas.iter().filter(|r| !r.is_metadata_log()).collect();
    let hw: Vec<(&str, i32, i64)> =
        logs.iter().map(|r| (r.paths.topic.as_str(), r.paths.partition, r.high_watermark)).collect();
    checkpoint::set_offset_entries(&log_dir.join(names::REPLICATION_OFFSET_CHECKPOINT), &hw)?;
    let rp: Vec<(&str, i32, i64)> =
        logs.iter().map(|r| (r.paths.topic.as_str(), r.paths.partition, r.recovery_point)).collect();
    checkpoint::set_offset_entries(&log_dir.join(names::RECOVERY_POINT_OFFSET_CHECKPOINT), &rp)?;
    let path = log_dir.join(KLOG_STATE);
    let mut file = read_state_file(&path)?;
    file.version = 1;
    for r in replicas.iter() {
        let entry = file.partitions.entry(r.paths.name()).or_default();
        entry.config = r.topic_config;
        entry.state = r.state.clone();
        entry.largest_leader_epoch = r.largest_known_epoch();
    }
    let mut text = serde_json::to_string_pretty(&file).expect("state serializes");
    text.push('\n');
    durable::write_atomic(&path, text.as_bytes())?;
    for r in replicas.iter_mut() {
        r.defer_log_dir_writes = false;
    }
    Ok(())
}

/// Record in klog's state file, in one write, that `partitions` of `log_dir` run again (a
/// broker that loaded its logs), as [`Replica::start`] does for one.
pub fn mark_started(log_dir: &Path, partitions: &[String]) -> Result<()> {
    let path = log_dir.join(KLOG_STATE);
    let mut file = read_state_file(&path)?;
    file.version = 1;
    for name in partitions {
        file.partitions.entry(name.clone()).or_default().state = Some(VolatileState::started());
    }
    let mut text = serde_json::to_string_pretty(&file).expect("state serializes");
    text.push('\n');
    durable::write_atomic(&path, text.as_bytes())
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
    file.version = 1;
    for r in &mut replicas {
        r.state = None;
        let entry = file.partitions.entry(r.paths.name()).or_default();
        entry.config = r.topic_config;
        entry.state = None;
        entry.largest_leader_epoch = r.largest_known_epoch();
    }
    let mut text = serde_json::to_string_pretty(&file).expect("state serializes");
    text.push('\n');
    durable::write_atomic(&path, text.as_bytes())?;
    durable::remove_file(&log_dir.join(CLEAN_SHUTDOWN_MARKER))?;
    for r in &mut replicas {
        r.clean_shutdown = false;
    }
    Ok(())
}
