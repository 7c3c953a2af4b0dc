//! The remote-tier side of `klog demo tiers` (issue 45, point 5): what the picture draws of the
//! remote tier (each replica's log start and local log start, the remote segments with their
//! records, offsets and epochs, and which of them the current leader's epoch lineage leaves
//! out), the records a leader serves across both tiers (what "acknowledged and lost" means once
//! part of the log is remote), and the Predict questions of the scene: a follower restarting
//! below the leader's local log start, and an unclean election while the old leader's
//! segments sit in remote storage. Everything is read from the lab's dirs and remote dir with
//! the tiered code the CLI uses (`tiered::metadata_topic`, `tiered::lineage`,
//! `tiered::local_tiered_storage`). Never prints; never writes.

use super::{AnswerKind, Entry, Prediction};
use crate::commands::draw::DrawnRecord;
use crate::commands::recover::{FollowerRecoverReport, RecordClass};
use crate::commands::remote::epochs_text;
use crate::error::Result;
use crate::format::batch::BatchIter;
use crate::replica::{Replica, ReplicaRole};
use crate::tiered::lineage::{forecast, Candidate, ReadSource};
use crate::tiered::local_tiered_storage::check_storage;
use crate::tiered::metadata_cache::PartitionRemoteMetadata;
use crate::tiered::metadata_topic::read_remote_metadata;
use crate::tiered::remote_log_metadata::RemoteLogSegmentState;
use std::path::{Path, PathBuf};

/// The remote dir of a tiered scene's lab, beside the replicas.
pub const REMOTE_DIR: &str = "remote";

/// `local.retention.bytes` of the scene's `tier retain` steps: every copied segment goes.
pub const LOCAL_RETENTION_BYTES: u64 = 0;

/// One replica's two starts.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReplicaTier {
    pub name: String,
    /// `log-start-offset-checkpoint`: the log start across both tiers.
    pub log_start_offset: i64,
    /// Its first local offset (the first local segment's base, or its log end when empty).
    pub local_log_start_offset: i64,
}

/// One finished remote segment, as the picture draws it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RemoteSegmentView {
    pub start_offset: i64,
    pub end_offset: i64,
    pub segment_leader_epochs: Vec<(i32, i64)>,
    /// Its records, read from its LocalTieredStorage `.log` file.
    pub records: Vec<DrawnRecord>,
    /// Outside the current leader's epoch lineage (`isRemoteSegmentWithinLeaderEpochs` false):
    /// the leader never serves it. `false` when there is no leader.
    pub unserved: bool,
}

/// What the picture draws of both tiers after a step.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TierView {
    pub replicas: Vec<ReplicaTier>,
    pub segments: Vec<RemoteSegmentView>,
    /// The current leader (its name), whose lineage `unserved` is judged against.
    pub leader: Option<String>,
}

/// The lab's replica dirs that exist, by name.
fn replica_dirs(root: &Path) -> Vec<(&'static str, PathBuf)> {
    ["a", "b"].into_iter().map(|n| (n, root.join(n))).filter(|(_, d)| d.exists()).collect()
}

/// The remote metadata of the demo's topic as the lab's dirs hold it (the furthest copy), if
/// any segment was copied.
fn partition_metadata(root: &Path) -> Result<Option<PartitionRemoteMetadata>> {
    let dirs: Vec<PathBuf> = replica_dirs(root).into_iter().map(|(_, d)| d).collect();
    if dirs.is_empty() {
        return Ok(None);
    }
    let read = read_remote_metadata(&dirs)?;
    Ok(read.fold.partitions.into_values().next())
}

/// The log start across both tiers: `log-start-offset-checkpoint`'s when it is below the first
/// local segment, else the local log start.
pub fn log_start_across_tiers(r: &Replica) -> i64 {
    r.log_start_offset_below_local().unwrap_or(r.log_start_offset())
}

/// A replica as a candidate leader: its epoch cache, both starts and its log end.
fn candidate(r: &Replica) -> Result<Candidate> {
    crate::tiered::expire::candidate_of(r)
}

/// The records of a remote `.log` file.
fn remote_records(log: &Path) -> Result<Vec<DrawnRecord>> {
    let Some(bytes) = crate::regular_file::read_regular(log)? else { return Ok(Vec::new()) };
    let mut out = Vec::new();
    for batch in BatchIter::new(&bytes) {
        let Some(h) = batch.header() else { continue };
        let Ok(decoded) = batch.records() else { continue };
        let Ok(records) = decoded.decode() else { continue };
        for rec in records {
            out.push(DrawnRecord {
                offset: rec.offset,
                leader_epoch: h.partition_leader_epoch,
                value: rec
                    .value
                    .map(|v| crate::replication::diff::prefix(v, crate::commands::draw::VALUE_BYTES_MAX + 1)),
                batch_base_offset: h.base_offset,
                batch_last_offset: h.last_offset(),
                batch_crc: h.crc,
            });
        }
    }
    Ok(out)
}

/// Both tiers of the lab at `root` (`None`: not a tiered lab).
pub fn tier_view(root: &Path) -> Result<Option<TierView>> {
    let remote = root.join(REMOTE_DIR);
    if !remote.exists() {
        return Ok(None);
    }
    let mut replicas = Vec::new();
    let mut leader = None;
    for (name, dir) in replica_dirs(root) {
        let r = Replica::open(&dir, None)?;
        let c = candidate(&r)?;
        replicas.push(ReplicaTier {
            name: name.to_string(),
            log_start_offset: c.log_start_offset,
            local_log_start_offset: c.local_log_start_offset,
        });
        if ReplicaRole::of(&r) == ReplicaRole::Leader {
            leader = Some((name.to_string(), c));
        }
    }
    let mut segments = Vec::new();
    if let Some(p) = partition_metadata(root)? {
        let storage = check_storage(&remote, &std::collections::BTreeMap::new())?;
        let verdicts = leader.as_ref().map(|(_, c)| forecast(&p, c, None));
        for s in p.table().into_iter().filter(|s| s.state == RemoteLogSegmentState::CopySegmentFinished) {
            let log = storage.filesets.iter().find(|f| f.segment_id == s.segment_id).and_then(|f| f.files.get(".log"));
            let records = match log {
                Some(l) => remote_records(l)?,
                None => Vec::new(),
            };
            let unserved = verdicts.as_ref().is_some_and(|f| {
                f.segments.iter().any(|v| v.segment_id == s.segment_id && v.within_lineage == Some(false))
            });
            segments.push(RemoteSegmentView {
                start_offset: s.start_offset,
                end_offset: s.end_offset,
                segment_leader_epochs: s.segment_leader_epochs.clone(),
                records,
                unserved,
            });
        }
    }
    Ok(Some(TierView { replicas, segments, leader: leader.map(|(n, _)| n) }))
}

/// The records a consumer reading `leader` from its earliest offset gets, across both tiers:
/// each remote range from its segment's file, then the local log (Kafka 4.4's
/// `RemoteLogManager` read, as `klog remote` forecasts it).
pub fn served_entries(root: &Path, leader: &str) -> Result<Vec<Entry>> {
    let r = Replica::open(&root.join(leader), None)?;
    let c = candidate(&r)?;
    let local =
        super::state_of(root, leader_name(leader), super::TxnShown::None)?.map(|s| s.entries).unwrap_or_default();
    let Some(p) = partition_metadata(root)? else { return Ok(local) };
    let storage = check_storage(&root.join(REMOTE_DIR), &std::collections::BTreeMap::new())?;
    let mut out = Vec::new();
    for range in forecast(&p, &c, None).consumer_from_earliest() {
        match range.source {
            ReadSource::Remote { segment_id, .. } => {
                let Some(log) =
                    storage.filesets.iter().find(|f| f.segment_id == segment_id).and_then(|f| f.files.get(".log"))
                else {
                    continue;
                };
                for rec in remote_records(log)?
                    .into_iter()
                    .filter(|rec| (range.first_offset..=range.last_offset).contains(&rec.offset))
                {
                    out.push(entry(&rec));
                }
            }
            ReadSource::Local => {
                out.extend(
                    local.iter().filter(|e| (range.first_offset..=range.last_offset).contains(&e.offset)).cloned(),
                );
            }
            ReadSource::OutOfRange => break,
        }
    }
    Ok(out)
}

/// The records of the remote segments' files (served or not): what salvage can still read.
pub fn remote_file_entries(root: &Path) -> Result<Vec<Entry>> {
    Ok(tier_view(root)?
        .map(|v| v.segments.iter().flat_map(|s| s.records.iter().map(entry)).collect())
        .unwrap_or_default())
}

fn entry(rec: &DrawnRecord) -> Entry {
    Entry {
        offset: rec.offset,
        leader_epoch: rec.leader_epoch,
        value: String::from_utf8_lossy(rec.value.as_deref().unwrap_or_default()).into_owned(),
    }
}

/// The scene's replica names are `'static` (`a`, `b`).
fn leader_name(name: &str) -> &'static str {
    if name == "a" {
        "a"
    } else {
        "b"
    }
}

/// The questions of a restart below the leader's local log start: where the follower fetches
/// from next, and whether its own first record stays on its disk. Truths and reasons from the
/// recovery's report (its remote aux state); `None` when the restart did not go through remote
/// storage.
pub fn restart_predictions(follower: &str, leader: &str, r: &FollowerRecoverReport) -> Vec<Prediction> {
    let Some(aux) = &r.plan.from_remote else { return Vec::new() };
    let (f, l) = (follower.to_uppercase(), leader.to_uppercase());
    let next = r.follower_log_end_offset_after;
    let segment = aux
        .source
        .as_ref()
        .map_or(String::from("none found"), |s| format!("offsets {}..{}", s.start_offset, s.end_offset));
    let mut out = vec![Prediction {
        question: format!(
            "{f}'s log ends at {}; {l}'s local log now starts at {}. From which offset will {f} fetch after its \
             restart?",
            r.follower_view.log_end_offset, aux.leader_local_log_start_offset
        ),
        kind: AnswerKind::Offset,
        truth: next.to_string(),
        reason: format!(
            "{f}'s fetch at {} is below {l}'s local log start {}: {l} answers OFFSET_MOVED_TO_TIERED_STORAGE, and \
             {f} builds its state from the remote segment holding offset {} ({segment}): its epoch cache from the \
             segment's leader-epoch checkpoint, its producer state from the segment's snapshot; it starts its log \
             after that segment, at {next}, its log start {} (the leader's)",
            r.follower_view.log_end_offset.min(r.plan.truncation_offset),
            aux.leader_local_log_start_offset,
            aux.leader_local_log_start_offset - 1,
            aux.log_start_offset
        ),
    }];
    if let Some(row) = r.rows.first() {
        let value = String::from_utf8_lossy(row.follower.value.as_deref().unwrap_or_default()).into_owned();
        let kept = matches!(row.class, RecordClass::Kept | RecordClass::Diverged);
        out.push(Prediction {
            question: format!("will {f} keep {value} (offset {}) on its own disk? [y/n]", row.follower.offset),
            kind: AnswerKind::YesNo,
            truth: if kept { "yes" } else { "no" }.into(),
            reason: if kept {
                format!("{value} is at or above where {f} restarts, {next}: it is kept")
            } else {
                format!(
                    "{f} deletes its whole log and restarts at {next} (Kafka's truncateFullyAndStartAt): {value} \
                     goes from {f}'s disk; a consumer still reads it from {l}'s remote segment"
                )
            },
        });
    }
    out
}

/// Before an unclean election in a tiered lab: will a consumer reading the new leader from its
/// earliest offset get the acknowledged records past its log end? The truth is the forecast of
/// the candidate as it stands (its cache and log end), as `klog remote` makes it.
pub fn unclean_election_prediction(
    root: &Path,
    replica: &'static str,
    epoch: i32,
    acked: &[Entry],
) -> Result<Option<Prediction>> {
    let r = Replica::open(&root.join(replica), None)?;
    let leo = r.log_end_offset();
    let past: Vec<&Entry> = acked.iter().filter(|e| e.offset >= leo).collect();
    if past.is_empty() {
        return Ok(None);
    }
    let served = served_entries(root, replica)?;
    let got: Vec<&&Entry> = past.iter().filter(|e| served.contains(e)).collect();
    let named = |es: &[&Entry]| es.iter().map(|e| e.value.clone()).collect::<Vec<_>>().join(", ");
    let in_files = remote_file_entries(root)?;
    let (remote, nowhere): (Vec<&Entry>, Vec<&Entry>) = past.iter().partition(|e| in_files.contains(e));
    let n = replica.to_uppercase();
    let all = got.len() == past.len();
    let outside: Vec<String> = match partition_metadata(root)? {
        Some(p) => forecast(&p, &candidate(&r)?, None)
            .segments
            .iter()
            .filter(|v| v.within_lineage == Some(false))
            .map(|v| format!("{}..{}", v.start_offset, v.end_offset))
            .collect(),
        None => Vec::new(),
    };
    let mut reason = if all {
        format!("{n}'s epoch lineage covers them: a consumer reads {}", named(&past))
    } else {
        let segments = if outside.is_empty() {
            String::new()
        } else {
            format!(
                "; the remote segment(s) {} lie outside that lineage (RemoteLogManager's \
                 isRemoteSegmentWithinLeaderEpochs) and no fetch is answered from them",
                outside.join(", ")
            )
        };
        format!(
            "a leader serves its own lineage only: in {n}'s epoch cache {} its last epoch ends at its log end {leo}, \
             and from {leo} on it serves its own epoch {epoch} records{segments}",
            epochs_text(&candidate(&r)?.epoch_entries)
        )
    };
    let verb = |es: &[&Entry]| if es.len() == 1 { "stays" } else { "stay" };
    if !all && !remote.is_empty() {
        reason.push_str(&format!("; {} {} readable only in remote files", named(&remote), verb(&remote)));
    }
    if !all && !nowhere.is_empty() {
        reason.push_str(&format!(
            "; {} never reached remote storage (only {}'s disk holds {})",
            named(&nowhere),
            if replica == "a" { "B" } else { "A" },
            if nowhere.len() == 1 { "it" } else { "them" }
        ));
    }
    Ok(Some(Prediction {
        question: format!(
            "{n} is elected at epoch {epoch}. Will a consumer reading from the earliest offset get {} (acknowledged \
             past {n}'s log end {leo})? [y/n]",
            named(&past)
        ),
        kind: AnswerKind::YesNo,
        truth: if all { "yes" } else { "no" }.into(),
        reason,
    }))
}

/// One broker as a candidate leader, as the scene tells it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CandidateReading {
    pub name: String,
    pub epoch_entries: Vec<(i32, i64)>,
    pub log_start_offset: i64,
    pub local_log_start_offset: i64,
    pub log_end_offset: i64,
    /// The remote segments (start, end) it answers fetches from.
    pub served: Vec<(i64, i64)>,
    /// The remote segments outside its epoch lineage.
    pub outside: Vec<(i64, i64)>,
    /// The remote segments its expiration deletes.
    pub deleted: Vec<(i64, i64)>,
}

/// A finished remote segment: its start and end offsets and its leader epochs.
pub type SegmentRange = (i64, i64, Vec<(i32, i64)>);

/// What `klog remote` tells at the end of the scene, and what the run lost.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RemoteReading {
    /// Every finished remote segment: (start, end, its leader epochs).
    pub segments: Vec<SegmentRange>,
    pub candidates: Vec<CandidateReading>,
    /// Finished segments no broker here serves, with the records still in their files.
    pub served_by_none: Vec<(i64, i64, u64)>,
    /// The leader now (its name), and the acknowledged records it does not serve: those still in
    /// remote files, and those in neither tier of any leader.
    pub leader: Option<String>,
    pub acked_lost_in_remote_files: Vec<Entry>,
    pub acked_lost_nowhere: Vec<Entry>,
    /// Findings `klog remote` reports (none in a healthy lab).
    pub finding_count: usize,
}

/// `klog remote DIRS --remote-dir $LAB/remote` at the end of the scene, read for the scene:
/// each broker's forecast (Kafka 4.4's `RemoteLogManager`), the segments no broker serves
/// (salvage), and the acknowledged records (`acked`) the leader does not serve.
pub fn read_remote(root: &Path, dirs: &[PathBuf], acked: &[Entry]) -> Result<RemoteReading> {
    let remote = root.join(REMOTE_DIR);
    let report = crate::commands::remote::run(&crate::commands::remote::RemoteRequest {
        dirs,
        remote_dir: Some(&remote),
        what_if: Default::default(),
    })?;
    let name_of = |d: &Path| d.file_name().map_or(String::new(), |n| n.to_string_lossy().into_owned());
    let mut segments = Vec::new();
    for p in report.metadata.fold.partitions.values() {
        for s in p.table().into_iter().filter(|s| s.state == RemoteLogSegmentState::CopySegmentFinished) {
            segments.push((s.start_offset, s.end_offset, s.segment_leader_epochs.clone()));
        }
    }
    let mut candidates = Vec::new();
    let mut served_by_none = Vec::new();
    for pf in &report.forecasts {
        for c in &pf.candidates {
            let range = |v: &crate::tiered::lineage::SegmentVerdict| (v.start_offset, v.end_offset);
            candidates.push(CandidateReading {
                name: name_of(&c.data_dir),
                epoch_entries: c.candidate.epoch_entries.clone(),
                log_start_offset: c.candidate.log_start_offset,
                local_log_start_offset: c.candidate.local_log_start_offset,
                log_end_offset: c.candidate.log_end_offset,
                served: c.forecast.segments.iter().filter(|v| !v.served.is_empty()).map(range).collect(),
                outside: c.forecast.segments.iter().filter(|v| v.within_lineage == Some(false)).map(range).collect(),
                deleted: c.forecast.deletions.iter().map(|d| (d.start_offset, d.end_offset)).collect(),
            });
        }
        served_by_none.extend(pf.salvage.iter().map(|s| (s.start_offset, s.end_offset, s.record_count)));
    }
    let leader = tier_view(root)?.and_then(|v| v.leader);
    let served = match &leader {
        Some(l) => served_entries(root, leader_name(l))?,
        None => Vec::new(),
    };
    let in_files = remote_file_entries(root)?;
    let lost: Vec<Entry> = acked.iter().filter(|e| !served.contains(e)).cloned().collect();
    let (acked_lost_in_remote_files, acked_lost_nowhere) = lost.into_iter().partition(|e| in_files.contains(e));
    Ok(RemoteReading {
        segments,
        candidates,
        served_by_none,
        leader,
        acked_lost_in_remote_files,
        acked_lost_nowhere,
        finding_count: report.finding_count(),
    })
}
