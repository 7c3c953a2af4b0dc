//! A follower below its leader's local log start, in `klog fetch` (and `klog recover --leader`
//! after its truncation): the leader answers OFFSET_MOVED_TO_TIERED_STORAGE and the follower
//! builds its remote log auxiliary state ([`crate::tiered::aux_state`]'s steps), written here through
//! [`crate::durable`], before the fetch goes on from the offset after the remote segment.
//!
//! Kafka 4.4.0's lines (line tables of the 4.4.0 jars, read with `javap -c -l`):
//! - the leader: `ReplicaManager.scala:1904-1915` (`handleOffsetOutOfRangeError`): a log with
//!   remote storage, a fetch offset in `[logStartOffset, localLogStartOffset)`, from a follower:
//!   `OffsetMovedToTieredStorageException`;
//! - the follower: `AbstractFetcherThread.scala:791-819` (`handleOffsetsMovedToTieredStorage`:
//!   `fetchEarliestLocalOffset`, ListOffsets −4, then `TierStateMachine.start`);
//!   `TierStateMachine.java:102-126` (`start`) and `:190-263` (`buildRemoteLogAuxState`): the
//!   epoch of the offset before the earliest local one (`fetchEarlierEpochEndOffset`, :213-226),
//!   `fetchRemoteLogSegmentMetadata` (:236, none: `RemoteStorageException`, the follower
//!   retries), `truncateFullyAndStartAt(nextOffset, leaderLogStartOffset)` (:248, UnifiedLog:
//!   the log start is the leader's, as in 3.6.0's `UnifiedLog.scala:1750-1763`),
//!   `maybeIncrementLogStartOffset` / `maybeIncrementLocalLogStartOffset` (:250-251), the remote
//!   `.leader_epoch_checkpoint` assigned to the cleared epoch cache (:254-255), the remote
//!   producer snapshot as `<nextOffset>.snapshot` and the producer state reloaded (:259-263).
//!
//! The remote segment is looked up in the follower's own `__remote_log_metadata-0` (the
//! follower's metadata manager answers `fetchRemoteLogSegmentMetadata`; `fetch` replicates the
//! leader's records into it first), and its files are read from the lab's LocalTieredStorage dir.

use crate::error::{Error, Result};
use crate::log::epoch_cache::{EpochCache, EpochEntry};
use crate::log::names;
use crate::replica::Replica;
use crate::replication::explain::{ExplainLine, Explanation};
use crate::replication::fetch::{leader_fetch_answer, FetchAnswer, LeaderLog};
use crate::replication::release::Rules;
use crate::tiered::aux_state::{self, AuxState, LeaderTier, RemoteSource};
use crate::tiered::lab;
use crate::tiered::local_tiered_storage::{file_name, storage_root, LEADER_EPOCH_CHECKPOINT_SUFFIX};
use std::path::PathBuf;

/// What the follower did below the leader's local log start.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RemoteRebuild {
    pub release: crate::replication::release::Release,
    pub tier: LeaderTier,
    /// The fetch offset the leader answered OFFSET_MOVED_TO_TIERED_STORAGE.
    pub fetch_offset: i64,
    pub last_fetched_epoch: Option<i32>,
    pub aux: AuxState,
    /// The epoch cache the follower took (the remote `.leader_epoch_checkpoint`).
    pub epochs_taken: Vec<(i32, i64)>,
    /// The producer snapshot written (`<next offset>.snapshot`).
    pub snapshot_path: PathBuf,
    pub snapshot_bytes: usize,
}

impl RemoteRebuild {
    /// The offset the follower fetches from next.
    pub fn next_offset(&self) -> i64 {
        self.aux.next_offset.expect("a rebuild has a source")
    }

    /// The procedure with the lines that ran and their values (`fetch --explain`).
    pub fn explanation(&self) -> Explanation {
        let a = &self.aux;
        let s = a.source.as_ref().expect("a rebuild has a source");
        let epoch = a.epoch_at_local_start.map_or("none".to_string(), |e| e.to_string());
        let mut lines = vec![
            line(
                0,
                "r = leader.fetch(offset=leo)",
                format!(
                    "offset {}, epoch {}",
                    self.fetch_offset,
                    self.last_fetched_epoch.map_or("none".into(), |e| e.to_string())
                ),
            ),
            line(
                1,
                "leader: if remote storage and log_start <= offset < local_log_start: OFFSET_MOVED_TO_TIERED_STORAGE",
                format!(
                    "{} <= {} < {}: yes",
                    self.tier.log_start_offset, self.fetch_offset, self.tier.local_log_start_offset
                ),
            ),
            line(
                0,
                "(local_start, e) = leader.list_offsets(EARLIEST_LOCAL)  # -4",
                format!("({}, {epoch})", a.leader_local_log_start_offset),
            ),
        ];
        if a.asked_earlier_epoch {
            lines.push(skipped(0, "if e == 0: target = 0"));
            lines.push(line(
                0,
                "else: (le, lend) = leader.end_offset_for(e - 1); target = le if lend > local_start - 1 else e",
                format!("target epoch {}", a.target_epoch),
            ));
        } else {
            lines.push(line(0, "if e == 0: target = 0", "target epoch 0".into()));
            lines.push(skipped(
                0,
                "else: (le, lend) = leader.end_offset_for(e - 1); target = le if lend > local_start - 1 else e",
            ));
        }
        lines.extend(self.rebuild_lines(s));
        Explanation {
            title: "remote aux state",
            source: format!(
                "Kafka {} (KIP-405, from 3.6): the leader's ReplicaManager.handleOffsetOutOfRangeError \
                 (ReplicaManager.scala:1904-1915@4.4.0), the follower's handleOffsetsMovedToTieredStorage \
                 (AbstractFetcherThread.scala:791-819@4.4.0) and TierStateMachine.buildRemoteLogAuxState \
                 (TierStateMachine.java:190-263@4.4.0)",
                self.release
            ),
            lines,
            notes: vec![
                "the remote segment is found in the follower's own __remote_log_metadata (its metadata manager)",
                "the epoch cache and producer state come from the remote segment's files, not from fetched batches",
            ],
        }
    }

    /// The follower's steps once it knows the remote segment: truncate, take its files, fetch on.
    fn rebuild_lines(&self, s: &RemoteSource) -> Vec<ExplainLine> {
        let a = &self.aux;
        vec![
            line(
                0,
                "seg = own_rlmm.remote_segment(target, local_start - 1)  # none: retry",
                format!("{} (offsets {}..{})", s.segment_id, s.start_offset, s.end_offset),
            ),
            line(0, "next = seg.end_offset + 1", next_text(s)),
            line(
                0,
                "truncate_fully_and_start_at(next, log_start=leader.log_start)",
                format!("LEO {}, log start {}", s.end_offset + 1, a.log_start_offset),
            ),
            line(0, "local_log_start = next", format!("{}", s.end_offset + 1)),
            line(0, "epoch_cache = seg.leader_epoch_checkpoint", epochs_text(&self.epochs_taken)),
            line(
                0,
                "write seg.producer_snapshot as <next>.snapshot; reload producer state",
                format!("{} bytes", self.snapshot_bytes),
            ),
            line(0, "fetch from next", format!("offset {}", s.end_offset + 1)),
        ]
    }
}

/// A line of the steps that ran, with the value it saw.
fn line(depth: usize, code: &'static str, value: String) -> ExplainLine {
    ExplainLine { depth, code, ran: true, values: vec![value] }
}

/// A line of the steps that did not run.
fn skipped(depth: usize, code: &'static str) -> ExplainLine {
    ExplainLine { depth, code, ran: false, values: vec![] }
}

fn next_text(s: &RemoteSource) -> String {
    format!("{} + 1 = {}", s.end_offset, s.end_offset + 1)
}

fn epochs_text(e: &[(i32, i64)]) -> String {
    if e.is_empty() {
        return "empty".into();
    }
    e.iter().map(|(e, o)| format!("{e}@{o}")).collect::<Vec<_>>().join(" ")
}

/// The leader's tiers when its log start lies below its first local segment (the
/// log-start-offset checkpoint's entry, which Kafka 4.4 writes for a log with remote storage).
pub fn leader_tier(leader: &Replica) -> Option<LeaderTier> {
    let log_start_offset = leader.log_start_offset_below_local()?;
    Some(LeaderTier { log_start_offset, local_log_start_offset: leader.log_start_offset() })
}

/// Whether `replica` belongs to a tiered lab.
pub fn is_tiered_lab(replica: &Replica) -> Result<bool> {
    Ok(lab::remote_dir_of(&replica.paths().log_dir, None)?.is_some())
}

/// Refuse a tiered lab under a release without tiered storage (before 3.6).
pub fn refuse_before_tiered_storage(replica: &Replica, rules: &Rules) -> Result<()> {
    if !rules.release.has_tiered_storage() && is_tiered_lab(replica)? {
        return Err(Error::Usage(format!(
            "{} is a tiered lab (remote.storage.enable=true), and Kafka {} has no remote tier (KIP-405 came in \
             3.6.0): give --kafka 3.6 or later",
            replica.paths().log_dir.display(),
            rules.release
        )));
    }
    Ok(())
}

/// The rebuild a follower fetching from `leader` does now, if its fetch offset lies between the
/// leader's log start and local log start (and the leader's epoch check passes: a diverging
/// or out-of-range answer comes first and the fetch round handles it). Checks everything and
/// reads the remote files; writes nothing.
pub fn plan(leader: &Replica, follower: &Replica, rules: &Rules) -> Result<Option<(RemoteRebuild, Vec<u8>)>> {
    if !rules.release.has_tiered_storage() {
        return Ok(None);
    }
    let Some(tier) = leader_tier(leader) else { return Ok(None) };
    let fetch_offset = follower.log_end_offset();
    if !tier.moved_to_tiered_storage(fetch_offset) {
        return Ok(None);
    }
    let last_fetched_epoch = if rules.truncation_on_fetch { follower.log().epoch_cache().latest_epoch() } else { None };
    let epochs = leader.log().epoch_cache();
    let view = LeaderLog { epochs, log_start_offset: tier.log_start_offset, log_end_offset: leader.log_end_offset() };
    if leader_fetch_answer(&view, fetch_offset, last_fetched_epoch).0 != FetchAnswer::Records {
        return Ok(None);
    }
    let remote_dir = lab::remote_dir_of(&follower.paths().log_dir, None)?
        .map_or_else(|| lab::require_remote_dir(leader, None), Ok)?;
    let root = storage_root(&remote_dir)?;
    let tp = lab::topic_id_partition(follower)?;
    let remote = lab::read_partition_metadata(&follower.paths().log_dir, &tp)?;
    let part_dir = root.join(format!("{}-{}", tp.dir_name(), tp.topic_id_text()));
    let problem = std::cell::RefCell::new(None);
    let lookup = |epoch: i32, offset: i64| -> Option<RemoteSource> {
        let s = remote.segment_for(epoch, offset)?;
        let path = part_dir.join(file_name(s.start_offset, &s.segment_id, LEADER_EPOCH_CHECKPOINT_SUFFIX));
        let epochs = match remote_epoch_checkpoint(&path) {
            Ok(cache) => Some(cache),
            Err(e) => {
                *problem.borrow_mut() = Some(e);
                None
            }
        };
        Some(RemoteSource {
            segment_id: s.segment_id_text(),
            start_offset: s.start_offset,
            end_offset: s.end_offset,
            epochs,
        })
    };
    let aux = aux_state::build(tier, epochs, leader.log_end_offset(), lookup);
    if let Some(e) = problem.into_inner() {
        return Err(e);
    }
    let Some(source) = aux.source.clone() else {
        return Err(no_remote_segment(follower, fetch_offset, &tier, aux.target_epoch));
    };
    let segment = remote
        .segments
        .values()
        .find(|s| s.segment_id_text() == source.segment_id)
        .expect("the lookup found it in this table");
    let snapshot_remote = part_dir.join(file_name(segment.start_offset, &segment.segment_id, names::SNAPSHOT_SUFFIX));
    let snapshot = remote_snapshot(&snapshot_remote)?;
    let epochs_taken = source.epochs.as_ref().map(entry_pairs).unwrap_or_default();
    let next = source.end_offset + 1;
    let snapshot_path = names::build_segment_path(&follower.paths().partition_dir, next, names::SNAPSHOT_SUFFIX);
    let rebuild = RemoteRebuild {
        release: rules.release,
        tier,
        fetch_offset,
        last_fetched_epoch,
        aux,
        epochs_taken,
        snapshot_path,
        snapshot_bytes: snapshot.len(),
    };
    Ok(Some((rebuild, snapshot)))
}

/// A remote segment's `.leader_epoch_checkpoint`, as the follower takes it for its cache.
fn remote_epoch_checkpoint(path: &std::path::Path) -> Result<EpochCache> {
    if !path.is_file() {
        return Err(Error::layout(
            path,
            "no such remote file: Kafka's fetchIndex(LEADER_EPOCH) fails (RemoteResourceNotFoundException) and the \
             follower retries",
        ));
    }
    let entries = crate::log::checkpoint::read_epoch_checkpoint(path)?;
    Ok(EpochCache::from_entries(
        entries.into_iter().map(|(leader_epoch, start_offset)| EpochEntry { leader_epoch, start_offset }),
    ))
}

/// An epoch cache's entries as (leader epoch, start offset).
fn entry_pairs(c: &EpochCache) -> Vec<(i32, i64)> {
    c.entries().iter().map(|e| (e.leader_epoch, e.start_offset)).collect()
}

/// A remote segment's producer snapshot.
fn remote_snapshot(path: &std::path::Path) -> Result<Vec<u8>> {
    crate::regular_file::read_regular(path)?.ok_or_else(|| {
        Error::layout(path, "no remote producer snapshot: Kafka's follower fails buildProducerSnapshotFile and retries")
    })
}

/// The leader moved the fetch to tiered storage, but no remote segment the follower's metadata
/// lists holds the offset before the leader's local log start.
fn no_remote_segment(follower: &Replica, fetch_offset: i64, tier: &LeaderTier, target_epoch: i32) -> Error {
    Error::state(
        &follower.paths().log_dir,
        format!(
            "the leader answers OFFSET_MOVED_TO_TIERED_STORAGE at fetch offset {fetch_offset} (log start {}, local \
         log start {}), but no remote segment in its {} holds offset {} in epoch {}: Kafka's follower fails \
         buildRemoteLogAuxState (RemoteStorageException) and retries, fetching nothing (copy the segment with \
         `klog tier copy`, or replicate the metadata first)",
            tier.log_start_offset,
            tier.local_log_start_offset,
            lab::metadata_partition_name(),
            tier.local_log_start_offset - 1,
            target_epoch
        ),
    )
}

/// Write the follower's remote aux state (it is started): the log restarts empty at the next
/// offset, its log start the leader's, its epoch cache the remote checkpoint, its producer
/// snapshot the remote one.
pub fn apply(follower: &mut Replica, rebuild: &RemoteRebuild, snapshot: &[u8]) -> Result<()> {
    let next = rebuild.next_offset();
    follower.restart_log_at(next)?;
    let entries =
        rebuild.epochs_taken.iter().map(|&(leader_epoch, start_offset)| EpochEntry { leader_epoch, start_offset });
    let cache = EpochCache::from_entries(entries);
    follower.log_mut().update_epoch_cache(|c| {
        *c = cache;
        true
    })?;
    crate::durable::write_atomic(&rebuild.snapshot_path, snapshot)?;
    let p = follower.paths();
    crate::log::checkpoint::set_offset_entries(
        &p.log_dir.join(names::LOG_START_OFFSET_CHECKPOINT),
        &[(p.topic.as_str(), p.partition, rebuild.aux.log_start_offset)],
    )
}

/// Whether `recover --leader` may write a restart from remote storage for `follower`: its lab
/// has a remote tier whose files the rebuild reads (a broker's dir copy, or a lab without one,
/// is planned with `--dry-run` only).
pub fn refuse_recover_without_remote_tier(follower: &Replica) -> Result<()> {
    if is_tiered_lab(follower)? {
        return Ok(());
    }
    Err(Error::state(
        &follower.paths().log_dir,
        "follows a leader that keeps remote storage (tiered), but is not a tiered lab (no remote storage dir in its \
         klog-state.json): klog writes a follower's remote aux state only in a lab made with `klog create \
         --remote-dir`; run with --dry-run to see the plan",
    ))
}

/// After `recover --leader` restarted the follower at the remote segment's end + 1 (the log
/// emptied, as `truncateFullyAndStartAt`), the rest of the remote aux state: its epoch cache
/// (the remote `.leader_epoch_checkpoint`, read from the follower's lab's remote dir), the remote
/// producer snapshot as `<next>.snapshot`, and the leader's log start in
/// log-start-offset-checkpoint. A remote file that does not read fails the command (and the
/// journal puts back what it wrote), as Kafka's follower fails and retries.
pub fn finish_restart_from_remote(follower: &mut Replica, aux: &AuxState) -> Result<()> {
    let (Some(source), Some(next)) = (aux.source.as_ref(), aux.next_offset) else { return Ok(()) };
    let remote_dir = lab::require_remote_dir(follower, None)?;
    let root = storage_root(&remote_dir)?;
    let tp = lab::topic_id_partition(follower)?;
    let segment_id = crate::util::uuid_from_string(&source.segment_id).map_err(Error::Usage)?;
    let part_dir = root.join(format!("{}-{}", tp.dir_name(), tp.topic_id_text()));
    let remote_snapshot = part_dir.join(file_name(source.start_offset, &segment_id, names::SNAPSHOT_SUFFIX));
    let snapshot = crate::regular_file::read_regular(&remote_snapshot)?.ok_or_else(|| {
        Error::layout(
            &remote_snapshot,
            "no remote producer snapshot: Kafka's follower fails buildProducerSnapshotFile and retries",
        )
    })?;
    let checkpoint = part_dir.join(file_name(source.start_offset, &segment_id, LEADER_EPOCH_CHECKPOINT_SUFFIX));
    if !checkpoint.is_file() {
        return Err(Error::layout(
            &checkpoint,
            "no such remote file: Kafka's fetchIndex(LEADER_EPOCH) fails (RemoteResourceNotFoundException) and the \
             follower retries",
        ));
    }
    let entries = crate::log::checkpoint::read_epoch_checkpoint(&checkpoint)?;
    let cache = EpochCache::from_entries(
        entries.into_iter().map(|(leader_epoch, start_offset)| EpochEntry { leader_epoch, start_offset }),
    );
    follower.log_mut().update_epoch_cache(|c| {
        *c = cache;
        true
    })?;
    let snapshot_path = names::build_segment_path(&follower.paths().partition_dir, next, names::SNAPSHOT_SUFFIX);
    crate::durable::write_atomic(&snapshot_path, &snapshot)?;
    let p = follower.paths();
    crate::log::checkpoint::set_offset_entries(
        &p.log_dir.join(names::LOG_START_OFFSET_CHECKPOINT),
        &[(p.topic.as_str(), p.partition, aux.log_start_offset)],
    )
}
