//! A replica directory: a Kafka log dir holding the partition klog works on, its log-dir
//! checkpoints, `meta.properties`, the lock, and klog's own small state file.
//!
//! Paths: a command may name the log dir (if it holds exactly one partition, or with
//! `--partition`) or the partition dir itself (the log-dir files are then read from its
//! parent). Read-only opens ([`Replica::open`]) never write anything. Mutating opens
//! ([`Replica::open_for_write`]) take the log dir's `.lock`, and bring a stopped replica back
//! up the way a broker starts: after a clean stop the marker is removed and nothing is scanned;
//! after an unclean stop local recovery runs first and its report is returned to the caller.
//!
//! One file per concept: `paths.rs` (resolving a command-line path), `lock.rs` (`.lock`),
//! `state_file.rs` (`klog-state.json`: role, leader epoch, ISR, follower fetch offsets),
//! `meta_properties.rs`, `log_dir.rs` (the log-dir files read once, and log-dir-wide writes),
//! `log_manager.rs` (a broker's start-up over a whole log dir, `LogManager.loadLogs`),
//! `topic_config.rs`, `identity.rs` (what a replica is among replicas), `new_partitions.rs`
//! (`create`). Every public item is re-exported here, so it is `crate::replica::X`. This file
//! holds the [`Replica`] itself: its opens, its start, and the questions other code asks it
//! ([`Replica::marks`], [`Replica::role`], ...). Its fields are private: every change of its
//! state goes through a method here, and no other module reads them.

mod check;
mod consent;
pub mod form;
mod identity;
mod lock;
mod log_dir;
mod log_manager;
mod meta_properties;
mod new_partitions;
mod pair;
mod paths;
mod quorum_state;
mod state_file;
mod summary;
mod topic_config;

#[cfg(test)]
mod test_support;

pub use check::{check_replica, load_refusal, refuses_to_start, CheckReport, Finding};
pub use consent::{allow_broker_dir_writes, made_by_klog};
pub use identity::{
    ensure_distinct_log_dirs, ensure_metadata_of, ensure_one_cluster, not_one_cluster, same_node_id_warning, DirIds,
    ALLOW_OTHER_CLUSTER,
};
pub use lock::DirLock;
pub use log_dir::{
    check_log_dir_for_write, open_log_dir_for_write, write_log_dir_files, CheckpointValue, LoadProblem, LogDirFiles,
    LogDirWrite, OffsetCheckpoint, MATCHES_NO_PARTITION,
};
pub use log_manager::{
    forecast_data_dir, is_refusal, recover_data_dir, Advice, DataDirRecovery, LoadedKind, LoadedLog, StartForecast,
    StartRefusal, OR_REFUSES, REFUSES_WORDS,
};
pub use meta_properties::{read_meta_properties, write_new_log_dir};
pub use new_partitions::NewPartitions;
pub use pair::{open_compared, pair_warnings};
pub use paths::{
    list_partition_dirs, log_dir_kind, looks_like_partition_dir, resolve, resolve_all, LogDirKind, ReplicaPaths,
};
pub use quorum_state::{read_quorum_state, QuorumState, QuorumVoter, QUORUM_STATE};
pub use state_file::{
    forget_volatile_states, mark_started, parse_state_file, remote_storage_dir, set_remote_storage_dir, IsrMember,
    KlogStateFile, Role, VolatileState,
};
pub use summary::{current_leader_epoch, summarize, ReplicaRole, ReplicaSummary};
pub use topic_config::TopicConfig;

use crate::durable;
use crate::error::Result;
use crate::log::checkpoint::{self, OffsetEntry};
use crate::log::names::{self, CLEAN_SHUTDOWN_MARKER, KLOG_STATE};
use crate::log::recovery::{self, RecoveryReport};
use crate::log::{Log, LogConfig};
use log_dir::Strictness;
use meta_properties::replica_id_of;
use paths::{refuse_symlinked_partition_dir, resolve_in};
use state_file::read_state_file;
use std::path::Path;

/// A replica opened for reading or writing.
pub struct Replica {
    paths: ReplicaPaths,
    log: Log,
    high_watermark: i64,
    recovery_point: i64,
    log_start_offset: i64,
    /// The log-start-offset checkpoint's entry (0 when absent): what Kafka's loader compares
    /// the log end with.
    log_start_offset_checkpoint: i64,
    /// Whether the log-start-offset checkpoint lists the partition at all.
    log_start_offset_listed: bool,
    /// `.kafka_cleanshutdown` present in the log dir.
    clean_shutdown: bool,
    /// `node.id` / `broker.id` from `meta.properties`.
    replica_id: Option<i32>,
    /// `directory.id` from `meta.properties` (KRaft log dirs and klog's own).
    directory_id: Option<String>,
    /// `cluster.id` from `meta.properties`.
    cluster_id: Option<String>,
    topic_config: Option<TopicConfig>,
    state: Option<VolatileState>,
    /// The durable largest leader epoch from klog's state file, if it has one.
    largest_leader_epoch_recorded: Option<i32>,
    /// What the log dir says about itself.
    kind: LogDirKind,
    /// The log dir's `klog-state.json` was written into a broker's dir with the user's consent
    /// (`adopted`): what it holds only adds to what the broker's files and metadata say.
    adopted: bool,
    /// Files that could not be read in a read-only open (empty for a write open).
    problems: Vec<LoadProblem>,
    /// The 1-based line and byte position of this partition's entries in the HW and
    /// recovery-point checkpoints as read (for findings that must say where), if it has them.
    high_watermark_line: Option<(usize, u64)>,
    /// The HW checkpoint entry was written since the open.
    high_watermark_written: bool,
    recovery_point_line: Option<(usize, u64)>,
    /// Held for the life of a write open.
    _lock: Option<DirLock>,
    /// Set by a command that closes many partitions of one log dir (`stop`): the HW and
    /// recovery-point setters and [`Replica::save_state`] only update the replica, and
    /// [`write_log_dir_files`] writes each log-dir file once for all of them.
    defer_log_dir_writes: bool,
}

/// The offsets that place a replica's log: where it starts, how far it is acknowledged (the
/// high watermark), how far it is known flushed (the recovery point) and where it ends.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Marks {
    pub log_start_offset: i64,
    pub high_watermark: i64,
    pub recovery_point: i64,
    pub log_end_offset: i64,
}

fn checkpoint_offset(path: &Path, paths: &ReplicaPaths) -> Result<Option<i64>> {
    Ok(checkpoint::read_offset_checkpoint(path)?
        .into_iter()
        .find(|e: &OffsetEntry| e.topic == paths.topic && e.partition == paths.partition)
        .map(|e| e.offset))
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
        if take_lock {
            log_dir::check_log_dir_layout(&paths.log_dir)?;
        } else {
            check_log_dir_for_write(&paths.log_dir)?;
        }
        refuse_symlinked_partition_dir(&paths)?;
        durable::check_temp_names(&paths.partition_dir)?;
        let lock = if take_lock { Some(DirLock::acquire(&paths.log_dir)?) } else { None };
        Replica::load(paths, lock, Strictness::Refuse)
    }

    /// [`Replica::open_for_check`] of one partition of a data dir whose files were read once
    /// (without a problem) and whose log dir passed [`check_log_dir_for_write`]: the same
    /// partition checks and strict load, without listing the log dir again.
    pub fn open_in_checked(files: &LogDirFiles, partition: &str) -> Result<Replica> {
        let paths = resolve_in(&files.log_dir, partition)?;
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
        Replica::load_with(resolve_in(&files.log_dir, partition)?, files, None, Strictness::Tolerate)
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
        let mut problems = files.problems.clone();
        let log = match Log::open(&paths.partition_dir, config, log_start_checkpoint) {
            Ok(log) => log,
            // A reader reports an epoch checkpoint that does not read, and reads the rest.
            Err(e @ (crate::error::Error::Malformed { .. } | crate::error::Error::Corrupt { .. }))
                if strictness == Strictness::Tolerate
                    && e.path().is_some_and(|p| p.ends_with(names::LEADER_EPOCH_CHECKPOINT)) =>
            {
                problems.extend(LoadProblem::from_error(&e));
                Log::open_without_epoch_checkpoint(&paths.partition_dir, config, log_start_checkpoint)?
            }
            Err(e) => return Err(e),
        };
        for n in log.not_regular_files() {
            // A writer acts on no partition holding a name it cannot read or write as Kafka
            // would (a FIFO named like a segment would make it wait for ever).
            if strictness == Strictness::Refuse {
                return Err(n.to_error());
            }
            problems.extend(LoadProblem::from_error(&n.to_error()));
        }
        let log_start_offset = log.first_offset().map_or(log_start_checkpoint, |f| f.max(log_start_checkpoint));
        let replica_id = replica_id_of(meta);
        // The HW is kept as checkpointed (a forensic reader wants the raw value); `start` clamps
        // it to [logStartOffset, LEO] as Kafka's `Partition.createLog` does.
        Ok(Replica {
            paths,
            log,
            high_watermark: hw,
            recovery_point,
            log_start_offset,
            log_start_offset_checkpoint: log_start_checkpoint,
            log_start_offset_listed: files.log_start_offsets.get(&name).is_some(),
            clean_shutdown: files.clean_shutdown,
            replica_id,
            directory_id: meta.get("directory.id").cloned(),
            cluster_id: meta.get("cluster.id").cloned(),
            topic_config: entry.config,
            state: entry.state,
            largest_leader_epoch_recorded: entry.largest_leader_epoch,
            defer_log_dir_writes: false,
            kind: files.kind,
            adopted: files.state.adopted,
            problems,
            high_watermark_line: hw_entry.map(|v| (v.line, v.position)),
            high_watermark_written: false,
            recovery_point_line: rp_entry.map(|v| (v.line, v.position)),
            _lock: lock,
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
            if dry_run {
                recovery::plan_load(&mut self.log, &inputs)?.report
            } else {
                recovery::load_log(&mut self.log, &inputs)?
            }
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
        // A broker's dir klog wrote into with consent stays a broker's: its metadata decides,
        // klog's state (a crash's "crashed", an epoch it noted) only adds what that cannot say.
        self.kind == LogDirKind::Kafka && self.adopted
            || self.kind == LogDirKind::Kafka
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
            if dry_run {
                recovery::plan_load(&mut self.log, &inputs)?.report
            } else {
                recovery::load_log(&mut self.log, &inputs)?
            }
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

    /// Where the replica's files are.
    pub fn paths(&self) -> &ReplicaPaths {
        &self.paths
    }

    /// The partition's log.
    pub fn log(&self) -> &Log {
        &self.log
    }

    /// The partition's log, for the commands that append, truncate or close it.
    pub fn log_mut(&mut self) -> &mut Log {
        &mut self.log
    }

    /// The high watermark: as checkpointed until [`Replica::start`] clamps it, then as set.
    pub fn high_watermark(&self) -> i64 {
        self.high_watermark
    }

    /// The recovery point: as checkpointed (0 when absent) until changed.
    pub fn recovery_point(&self) -> i64 {
        self.recovery_point
    }

    /// The log start offset: the larger of the checkpointed one and the first segment's base.
    pub fn log_start_offset(&self) -> i64 {
        self.log_start_offset
    }

    /// The log-start-offset checkpoint's entry (0 when absent): what Kafka's loader compares
    /// the log end with.
    pub fn log_start_offset_checkpoint(&self) -> i64 {
        self.log_start_offset_checkpoint
    }

    /// The log-start-offset checkpoint's entry when it is below the first local segment's
    /// base offset. Kafka 4.4 writes an entry for a log only when remote storage is enabled
    /// for it or its log start is above its first segment's base (`LogManager.java:1073-1075`,
    /// `checkpointLogStartOffsetsInDir`): such an entry is a tiered partition's log start
    /// across both tiers (or, on a log without remote storage, a checkpoint written before the
    /// last segments were deleted and not yet rewritten).
    pub fn log_start_offset_below_local(&self) -> Option<i64> {
        let first = self.log.first_offset()?;
        (self.log_start_offset_listed && self.log_start_offset_checkpoint < first)
            .then_some(self.log_start_offset_checkpoint)
    }

    /// `.kafka_cleanshutdown` was present in the log dir (false once started or crashed).
    pub fn clean_shutdown(&self) -> bool {
        self.clean_shutdown
    }

    /// `node.id` / `broker.id` from `meta.properties`.
    pub fn replica_id(&self) -> Option<i32> {
        self.replica_id
    }

    /// `directory.id` from `meta.properties` (KRaft log dirs and klog's own).
    pub fn directory_id(&self) -> Option<&str> {
        self.directory_id.as_deref()
    }

    /// `cluster.id` from `meta.properties`.
    pub fn cluster_id(&self) -> Option<&str> {
        self.cluster_id.as_deref()
    }

    /// The topic settings klog keeps for this partition, if its state file has them.
    pub fn topic_config(&self) -> Option<&TopicConfig> {
        self.topic_config.as_ref()
    }

    /// What the log dir says about itself.
    pub fn kind(&self) -> LogDirKind {
        self.kind
    }

    /// Files that could not be read in a read-only open (empty for a write open).
    pub fn problems(&self) -> &[LoadProblem] {
        &self.problems
    }

    /// The HW as the log dir holds it: `None` when the HW checkpoint does not list the
    /// partition (the metadata log's never is: its HW is the Raft quorum's, kept in memory).
    pub fn checkpointed_high_watermark(&self) -> Option<i64> {
        (self.high_watermark_line.is_some() || self.high_watermark_written).then_some(self.high_watermark)
    }

    /// The 1-based line and byte position of this partition's entry in the HW checkpoint as
    /// read, if it has one (for findings that must say where).
    pub fn high_watermark_line(&self) -> Option<(usize, u64)> {
        self.high_watermark_line
    }

    /// [`Replica::high_watermark_line`] for the recovery-point checkpoint.
    pub fn recovery_point_line(&self) -> Option<(usize, u64)> {
        self.recovery_point_line
    }

    /// The four offsets that place the replica's log, read together.
    pub fn marks(&self) -> Marks {
        Marks {
            log_start_offset: self.log_start_offset,
            high_watermark: self.high_watermark,
            recovery_point: self.recovery_point,
            log_end_offset: self.log.log_end_offset(),
        }
    }

    /// Become the leader at `leader_epoch` with `isr` (without itself): no leader of its own,
    /// no follower fetch offsets yet. Does nothing when the replica is not running; does not
    /// save (the caller calls [`Replica::save_state`]).
    pub fn set_leader(&mut self, leader_epoch: i32, isr: Vec<IsrMember>) {
        if let Some(s) = self.state.as_mut() {
            *s = VolatileState {
                role: Role::Leader,
                leader_epoch,
                leader: None,
                isr,
                follower_fetch_offsets: std::collections::BTreeMap::new(),
            };
        }
    }

    /// As a leader, take `isr` (without itself) as its ISR, keeping its epoch and the follower
    /// fetch offsets it recorded. Does nothing unless running as leader; does not save.
    pub fn set_isr(&mut self, isr: Vec<IsrMember>) {
        if let Some(s) = self.state.as_mut().filter(|s| s.role == Role::Leader) {
            s.isr = isr;
        }
    }

    /// Become a follower of `leader` (its identity) at `leader_epoch`: the ISR and the
    /// follower fetch offsets a leader keeps are cleared. Does nothing when the replica is not
    /// running; does not save.
    pub fn set_follower(&mut self, leader: String, leader_epoch: i32) {
        if let Some(s) = self.state.as_mut() {
            s.role = Role::Follower;
            s.leader = Some(leader);
            s.leader_epoch = leader_epoch;
            s.isr.clear();
            s.follower_fetch_offsets.clear();
        }
    }

    /// As a leader, record `follower_id`'s latest fetch offset (its LEO as the leader sees
    /// it). Does nothing when the replica is not running; does not save.
    pub fn record_follower_fetch(&mut self, follower_id: String, fetch_offset: i64) {
        if let Some(s) = self.state.as_mut() {
            s.follower_fetch_offsets.insert(follower_id, fetch_offset);
        }
    }

    /// The broker stopped: the volatile state (role, epoch, ISR) is gone. Does not save.
    pub fn forget_volatile_state(&mut self) {
        self.state = None;
    }

    /// Hold back the HW and recovery-point checkpoint writes and the state-file writes until
    /// [`write_log_dir_files`] writes them once for every partition of the log dir (`stop`).
    pub fn set_defer_log_dir_writes(&mut self, defer: bool) {
        self.defer_log_dir_writes = defer;
    }

    /// Whether log-dir writes are held back (see [`Replica::set_defer_log_dir_writes`]).
    pub fn defer_log_dir_writes(&self) -> bool {
        self.defer_log_dir_writes
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

    /// Rewrite the HW checkpoint entry (klog writes it every time the HW changes).
    pub fn set_high_watermark(&mut self, hw: i64) -> Result<()> {
        self.write_high_watermark(hw, false)
    }

    /// [`Replica::set_high_watermark`]; a dry run changes the value in memory only.
    fn write_high_watermark(&mut self, hw: i64, dry_run: bool) -> Result<()> {
        self.high_watermark = hw;
        self.high_watermark_written = true;
        self.write_offset_checkpoint(names::REPLICATION_OFFSET_CHECKPOINT, hw, dry_run)
    }

    pub fn set_recovery_point(&mut self, offset: i64) -> Result<()> {
        self.write_recovery_point(offset, false)
    }

    /// [`Replica::set_recovery_point`]; a dry run changes the value in memory only.
    fn write_recovery_point(&mut self, offset: i64, dry_run: bool) -> Result<()> {
        self.recovery_point = offset;
        self.write_offset_checkpoint(names::RECOVERY_POINT_OFFSET_CHECKPOINT, offset, dry_run)
    }

    /// This partition's entry of the log-dir checkpoint `file`, rewritten when it differs
    /// (never for the metadata log, a dry run, or while the log dir's writes are deferred).
    fn write_offset_checkpoint(&self, file: &str, value: i64, dry_run: bool) -> Result<()> {
        if self.is_metadata_log() || dry_run || self.defer_log_dir_writes {
            return Ok(());
        }
        let path = self.paths.log_dir_file(file);
        if checkpoint_offset(&path, &self.paths)? != Some(value) {
            checkpoint::update_offset_checkpoint(&path, &self.paths.topic, self.paths.partition, Some(value))?;
        }
        Ok(())
    }

    /// `UnifiedLog.truncateFullyAndStartAt(offset)`: every segment goes, the log restarts empty
    /// at `offset`, which becomes its log start, HW and recovery point.
    pub fn restart_log_at(&mut self, offset: i64) -> Result<()> {
        self.log.truncate_fully_and_start_at(offset)?;
        self.log_start_offset = offset;
        self.write_offset_checkpoint(names::LOG_START_OFFSET_CHECKPOINT, offset, false)?;
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
        file.record(self);
        file.write(&path)
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
}

#[cfg(test)]
mod tests {
    use super::test_support::{append, new_log_dir};
    use super::*;
    use crate::log::names::REPLICATION_OFFSET_CHECKPOINT;
    use std::fs;

    #[test]
    fn marks_after_open_are_the_checkpointed_offsets_and_the_log_end() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = new_log_dir(&tmp.path().join("a"), 1, "demo", 1);
        let mut r = Replica::open_for_write(&dir, None).unwrap();
        assert_eq!(r.start().unwrap().map(|_| "recovered"), None, "a running replica is not recovered");
        append(&mut r, 3, 0);
        append(&mut r, 2, 0);
        r.set_high_watermark(3).unwrap();
        r.flush().unwrap();
        drop(r);

        let r = Replica::open(&dir, None).unwrap();
        assert_eq!(r.marks(), Marks { log_start_offset: 0, high_watermark: 3, recovery_point: 5, log_end_offset: 5 });
        assert_eq!(r.paths().name(), "demo-0");
        // The checkpoint is "0\n1\ndemo 0 3\n": the entry is line 3, at byte 4.
        assert_eq!(r.high_watermark_line(), Some((3, 4)));
        assert_eq!(r.recovery_point_line(), Some((3, 4)));
        assert_eq!(r.replica_id(), Some(1));
        assert!(r.directory_id().is_some() && r.cluster_id().is_some());
        assert_eq!(r.kind(), LogDirKind::Kafka);
        assert!(r.problems().is_empty());
        assert_eq!(r.role(), Some(Role::Follower));
    }

    #[test]
    fn a_high_watermark_above_the_log_end_is_read_raw_and_clamped_by_start() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = new_log_dir(&tmp.path().join("a"), 1, "demo", 1);
        let mut r = Replica::open_for_write(&dir, None).unwrap();
        r.start().unwrap();
        append(&mut r, 2, 0);
        drop(r);
        let hw_path = dir.join(REPLICATION_OFFSET_CHECKPOINT);
        fs::write(&hw_path, "0\n1\ndemo 0 9\n").unwrap();

        let mut view = Replica::open(&dir, None).unwrap();
        assert_eq!(view.high_watermark(), 9, "a reader sees the value as checkpointed");
        view.preview_start().unwrap();
        assert_eq!(view.marks().high_watermark, 2, "the forecast clamps it to the log end");
        assert_eq!(fs::read_to_string(&hw_path).unwrap(), "0\n1\ndemo 0 9\n", "a forecast writes nothing");

        let mut w = Replica::open_for_write(&dir, None).unwrap();
        w.start().unwrap();
        assert_eq!(w.high_watermark(), 2);
        assert_eq!(fs::read_to_string(&hw_path).unwrap(), "0\n1\ndemo 0 2\n");
    }

    #[test]
    fn volatile_state_changes_need_a_running_replica_and_persist_only_when_saved() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = new_log_dir(&tmp.path().join("a"), 1, "demo", 1);
        let mut r = Replica::open_for_write(&dir, None).unwrap();
        forget_volatile_states([&mut r]).unwrap();
        assert!(!r.is_running());
        r.set_leader(3, Vec::new());
        r.set_follower("node.id=2".into(), 4);
        r.record_follower_fetch("node.id=2".into(), 5);
        assert_eq!(r.state(), None, "a stopped replica has no volatile state to change");

        r.start().unwrap();
        let member = IsrMember { id: "node.id=2".into(), dir: tmp.path().join("b"), replica_id: Some(2) };
        r.set_leader(3, vec![member.clone()]);
        r.record_follower_fetch("node.id=2".into(), 5);
        let led = r.state().unwrap().clone();
        assert_eq!((led.role, led.leader_epoch, led.leader.as_deref()), (Role::Leader, 3, None));
        assert_eq!(led.isr, vec![member]);
        assert_eq!(led.follower_fetch_offsets.get("node.id=2"), Some(&5));
        assert_eq!(Replica::open(&dir, None).unwrap().role(), Some(Role::Follower), "not saved yet");
        r.save_state().unwrap();
        assert_eq!(Replica::open(&dir, None).unwrap().state(), Some(&led));

        r.set_follower("node.id=2".into(), 4);
        let s = r.state().unwrap();
        assert_eq!((s.role, s.leader_epoch, s.leader.as_deref()), (Role::Follower, 4, Some("node.id=2")));
        assert!(s.isr.is_empty() && s.follower_fetch_offsets.is_empty(), "a follower keeps no ISR");
    }

    #[test]
    fn an_epoch_seen_is_remembered_after_a_crash_removes_the_volatile_state() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = new_log_dir(&tmp.path().join("a"), 1, "demo", 1);
        let mut r = Replica::open_for_write(&dir, None).unwrap();
        r.start().unwrap();
        r.note_epoch_seen(7).unwrap();
        r.note_epoch_seen(5).unwrap();
        forget_volatile_states([&mut r]).unwrap();
        drop(r);
        let r = Replica::open(&dir, None).unwrap();
        assert!(!r.is_running());
        assert!(!r.clean_shutdown(), "a crash leaves no clean-shutdown marker");
        assert_eq!(r.largest_known_epoch(), Some(7));
    }

    #[test]
    fn a_read_only_open_writes_nothing_and_a_write_open_refuses_a_partial_copy() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = new_log_dir(&tmp.path().join("a"), 1, "demo", 1);
        fs::remove_file(dir.join(names::META_PROPERTIES)).unwrap();
        fs::remove_file(dir.join(KLOG_STATE)).unwrap();
        let before: Vec<_> = fs::read_dir(&dir).unwrap().map(|e| e.unwrap().file_name()).collect();
        let r = Replica::open(&dir, None).unwrap();
        assert_eq!((r.kind(), r.replica_id(), r.is_running()), (LogDirKind::Partial, None, false));
        let after: Vec<_> = fs::read_dir(&dir).unwrap().map(|e| e.unwrap().file_name()).collect();
        assert_eq!(before, after);
        let Err(e) = Replica::open_for_write(&dir, None) else { panic!("wrote into a partial copy") };
        assert!(e.to_string().contains("never writes into one"), "{e}");
        assert!(!dir.join(names::LOCK_FILE).exists(), "the refusal created no lock file");
    }
}
