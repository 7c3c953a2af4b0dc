//! One run of the leader's remote expiration task in a tiered lab (`klog tier expire`): what
//! [`lineage::forecast`] says the leader deletes, done to the lab's remote tier the way Kafka 4.4
//! does it (`RemoteLogManager.deleteRemoteLogSegment`, RemoteLogManager.java in the 4.4.0 jar,
//! called from `RLMExpirationTask.cleanupExpiredRemoteLogSegments`): for each segment, in the
//! forecast's order (the retention walk's deletions, then leader-epoch-cache truncation),
//! - a DELETE_SEGMENT_STARTED `RemoteLogSegmentMetadataUpdateRecord` published to
//!   `__remote_log_metadata`,
//! - the segment's files deleted from remote storage (`LocalTieredStorage.deleteLogSegmentData`:
//!   every file of the fileset, `<start offset>-<segment id>.<suffix>`),
//! - a DELETE_SEGMENT_FINISHED update record;
//!
//! then the log start raised to the forecast's earliest offset (the log only raises it:
//! `UnifiedLog.updateLogStartOffsetFromRemoteTier` → `maybeIncrementLogStartOffset`), written
//! to `log-start-offset-checkpoint` as Kafka 4.4 keeps it for a log with remote storage.
//! Local segments below a raised log start are left to local retention (`klog tier retain`).

use super::lab::{self, MetadataWriter};
use super::lineage::{self, Candidate, Deletion, LeaderForecast, Retention};
use super::local_tiered_storage::parse_file_name;
use super::remote_log_metadata::{encode_segment_update, RemoteLogSegmentState, SegmentUpdate, TopicIdPartition};
use crate::error::{Error, Result};
use crate::log::names;
use crate::replica::Replica;
use std::path::{Path, PathBuf};

/// Kafka's default `retention.ms` (7 days), the expiration's limit when none is given.
pub const DEFAULT_RETENTION_MS: i64 = 604_800_000;

/// The request of one run.
pub struct ExpireRequest<'a> {
    pub leader: &'a Path,
    pub partition: Option<&'a str>,
    pub remote_dir: Option<&'a Path>,
    /// The topic's `retention.ms` (-1: none); Kafka's default when not given.
    pub retention_ms: Option<i64>,
    /// The topic's `retention.bytes` (-1: none, Kafka's default).
    pub retention_bytes: Option<i64>,
    pub now_ms: i64,
}

/// One remote segment the run deleted.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ExpiredSegment {
    pub deletion: Deletion,
    /// The remote files removed (a copy stopped midway has fewer than its fileset).
    pub files: Vec<PathBuf>,
    /// The offsets of the DELETE_SEGMENT_STARTED and _FINISHED records in the metadata log.
    pub started_at: i64,
    pub finished_at: i64,
}

/// What `klog tier expire` did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ExpireReport {
    pub broker_id: i32,
    pub partition: TopicIdPartition,
    pub remote_dir: PathBuf,
    pub retention: Retention,
    /// The forecast the run carried out (taken before it wrote anything).
    pub forecast: LeaderForecast,
    pub expired: Vec<ExpiredSegment>,
    pub log_start_before: i64,
    pub log_start_after: i64,
}

/// The replica as a candidate leader: its epoch cache, both starts, its log end and its local
/// segments.
pub fn candidate_of(r: &Replica) -> Result<Candidate> {
    let local_log_start_offset = r.log().first_offset().unwrap_or(r.log_end_offset());
    let local_segments =
        r.log().segments().iter().map(|s| Ok((s.base_offset, s.log_size()?))).collect::<Result<Vec<_>>>()?;
    Ok(Candidate {
        epoch_entries: r.log().epoch_cache().entries().iter().map(|e| (e.leader_epoch, e.start_offset)).collect(),
        // Below the first local segment for a tiered log; above it once the expiration raised
        // it past local segments local retention has not deleted yet.
        log_start_offset: r.log_start_offset_below_local().unwrap_or(r.log_start_offset()),
        local_log_start_offset,
        log_end_offset: r.log_end_offset(),
        local_segments,
    })
}

/// Run the leader's expiration task once.
pub fn run(req: &ExpireRequest<'_>) -> Result<ExpireReport> {
    let lab::TieredLeader { replica: leader, remote_dir, storage_root: root, partition: tp, log_dir, remote } =
        lab::open_tiered_leader(req.leader, req.partition, req.remote_dir, "expiration task deletes remote segments")?;
    let candidate = candidate_of(&leader)?;
    let retention = Retention {
        retention_ms: req.retention_ms.unwrap_or(DEFAULT_RETENTION_MS),
        retention_bytes: req.retention_bytes.unwrap_or(-1),
        now_ms: req.now_ms,
    };
    let forecast = lineage::forecast(&remote, &candidate, Some(retention));
    let broker_id = leader.replica_id().unwrap_or(0);
    let mut report = ExpireReport {
        broker_id,
        partition: tp.clone(),
        remote_dir,
        retention,
        forecast: forecast.clone(),
        expired: Vec::new(),
        log_start_before: candidate.log_start_offset,
        log_start_after: candidate.log_start_offset,
    };
    let fileset_dir = root.join(format!("{}-{}", tp.dir_name(), tp.topic_id_text()));
    let mut writer = (!forecast.deletions.is_empty()).then(|| MetadataWriter::open(&log_dir, broker_id)).transpose()?;
    for d in &forecast.deletions {
        let writer = writer.as_mut().expect("opened when there is a deletion");
        report.expired.push(delete_segment(writer, &fileset_dir, &tp, broker_id, d, req.now_ms)?);
    }
    if forecast.log_start_offset_after > candidate.log_start_offset {
        let updates = [(tp.topic.as_str(), tp.partition, forecast.log_start_offset_after)];
        crate::log::checkpoint::set_offset_entries(&log_dir.join(names::LOG_START_OFFSET_CHECKPOINT), &updates)?;
        report.log_start_after = forecast.log_start_offset_after;
    }
    Ok(report)
}

/// `deleteRemoteLogSegment`: STARTED, the fileset's files, FINISHED.
fn delete_segment(
    writer: &mut MetadataWriter,
    fileset_dir: &Path,
    tp: &TopicIdPartition,
    broker_id: i32,
    d: &Deletion,
    now_ms: i64,
) -> Result<ExpiredSegment> {
    let update = |state| SegmentUpdate {
        partition: tp.clone(),
        segment_id: d.segment_id,
        broker_id,
        event_timestamp_ms: now_ms,
        state,
        custom_metadata_bytes: None,
    };
    let started_at =
        writer.append(encode_segment_update(&update(RemoteLogSegmentState::DeleteSegmentStarted)), now_ms)?;
    let mut files = Vec::new();
    for path in fileset_files(fileset_dir, &d.segment_id)? {
        if crate::durable::remove_file(&path)? {
            files.push(path);
        }
    }
    let finished_at =
        writer.append(encode_segment_update(&update(RemoteLogSegmentState::DeleteSegmentFinished)), now_ms)?;
    Ok(ExpiredSegment { deletion: d.clone(), files, started_at, finished_at })
}

/// The files of the segment `id` in the partition's remote dir, by name (none when the dir is
/// gone: a segment whose copy never wrote a file).
fn fileset_files(dir: &Path, id: &[u8; 16]) -> Result<Vec<PathBuf>> {
    let entries = match std::fs::read_dir(dir) {
        Ok(entries) => entries,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(Error::io(dir, "list", e)),
    };
    let mut out = Vec::new();
    for e in entries {
        let e = e.map_err(|e| Error::io(dir, "list", e))?;
        let name = e.file_name();
        if parse_file_name(&name.to_string_lossy()).is_some_and(|(_, seg, _)| &seg == id) {
            out.push(e.path());
        }
    }
    out.sort();
    Ok(out)
}
