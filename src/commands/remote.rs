//! `klog remote`: tiered storage (KIP-405) as the data dirs and, where given, Kafka's
//! `LocalTieredStorage` dir hold it. The `__remote_log_metadata` partitions of the dirs are
//! decoded and folded ([`crate::tiered::metadata_topic`]); each partition's remote segment
//! table comes with its log start and local log start in each dir; `--remote-dir` sets the
//! remote files against the table ([`crate::tiered::local_tiered_storage`]). Reads only.

use crate::error::Result;
use crate::log::checkpoint::read_offset_checkpoint;
use crate::log::names::{self, LOG_START_OFFSET_CHECKPOINT};
use crate::tiered::local_tiered_storage::{check_storage, RemoteStorageCheck};
use crate::tiered::metadata_topic::{read_remote_metadata, RemoteMetadataRead};
use crate::tiered::remote_log_metadata::{RemoteLogSegmentState, SegmentMetadata, TopicIdPartition};
use std::path::{Path, PathBuf};

pub struct RemoteRequest<'a> {
    pub dirs: &'a [PathBuf],
    pub remote_dir: Option<&'a Path>,
}

/// A tiered partition as one data dir holds it locally.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LocalSide {
    pub data_dir: PathBuf,
    /// The dir's `log-start-offset-checkpoint` entry: for a tiered partition, Kafka's log start
    /// across both tiers.
    pub log_start_offset: Option<i64>,
    /// The base offset of the first local segment (`.log` file name): where the local log starts.
    pub local_log_start_offset: Option<i64>,
    /// The last local segment's base offset.
    pub last_segment_base_offset: Option<i64>,
}

/// One user partition with remote metadata.
#[derive(Debug, Clone)]
pub struct TieredPartition {
    pub partition: TopicIdPartition,
    pub local: Vec<LocalSide>,
}

/// Offsets `first_missing_offset..local_log_start_offset` held by neither tier in one dir.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TierGap {
    pub partition: TopicIdPartition,
    pub data_dir: PathBuf,
    pub first_missing_offset: i64,
    pub local_log_start_offset: i64,
}

pub struct RemoteReport {
    pub metadata: RemoteMetadataRead,
    pub partitions: Vec<TieredPartition>,
    pub storage: Option<RemoteStorageCheck>,
    /// Per tiered partition: what each broker whose dir is given does if it leads
    /// ([`super::remote_forecast`]). Forecasts, not findings.
    pub forecasts: Vec<super::remote_forecast::PartitionForecast>,
}

impl RemoteReport {
    /// Whether anything is a finding: an event the cache rejects, a record that does not
    /// decode, or remote storage that disagrees with the metadata.
    pub fn finding_count(&self) -> usize {
        self.metadata.fold.rejections.len()
            + self.metadata.unreadable.len()
            + self.copies_not_finished().len()
            + self.tier_gaps().len()
            + self.storage.as_ref().map_or(0, |s| s.findings.len())
    }

    /// Offsets in neither tier: in a dir whose local log starts above the next offset after
    /// the last finished remote segment (or, with none, above the partition's log start),
    /// those offsets are nowhere that dir's broker could serve them from as leader.
    pub fn tier_gaps(&self) -> Vec<TierGap> {
        let mut out = Vec::new();
        for tp in &self.partitions {
            let Some(p) = self.metadata.fold.partitions.get(&tp.partition) else { continue };
            let remote_end = p
                .segments
                .values()
                .filter(|s| s.state == RemoteLogSegmentState::CopySegmentFinished)
                .map(|s| s.end_offset)
                .max();
            for side in &tp.local {
                let Some(local_start) = side.local_log_start_offset else { continue };
                let covered_below = match (remote_end, side.log_start_offset) {
                    (Some(end), _) => end + 1,
                    (None, Some(log_start)) => log_start,
                    (None, None) => continue,
                };
                if local_start > covered_below {
                    out.push(TierGap {
                        partition: tp.partition.clone(),
                        data_dir: side.data_dir.clone(),
                        first_missing_offset: covered_below,
                        local_log_start_offset: local_start,
                    });
                }
            }
        }
        out
    }

    /// Segments whose copy started and never finished: on a running cluster an upload under
    /// way, on a stopped cluster's copy an orphan (the broker stopped mid-upload).
    pub fn copies_not_finished(&self) -> Vec<&SegmentMetadata> {
        let mut v: Vec<&SegmentMetadata> = self
            .metadata
            .fold
            .partitions
            .values()
            .flat_map(|p| p.segments.values())
            .filter(|s| s.state == RemoteLogSegmentState::CopySegmentStarted)
            .collect();
        v.sort_by_key(|s| (s.partition.clone(), s.start_offset, s.segment_id));
        v
    }
}

fn local_side(data_dir: &Path, tp: &TopicIdPartition) -> Result<Option<LocalSide>> {
    let dir = data_dir.join(tp.dir_name());
    if !dir.is_dir() {
        return Ok(None);
    }
    let mut bases: Vec<i64> = Vec::new();
    for e in std::fs::read_dir(&dir).map_err(|e| crate::error::Error::io(&dir, "list", e))? {
        let e = e.map_err(|e| crate::error::Error::io(&dir, "list", e))?;
        let name = e.file_name().to_string_lossy().into_owned();
        if let Some(stem) = name.strip_suffix(names::LOG_SUFFIX) {
            if let Ok(base) = stem.parse::<i64>() {
                bases.push(base);
            }
        }
    }
    bases.sort_unstable();
    let checkpoint = data_dir.join(LOG_START_OFFSET_CHECKPOINT);
    let log_start_offset = if checkpoint.is_file() {
        read_offset_checkpoint(&checkpoint)?
            .into_iter()
            .find(|e| e.topic == tp.topic && e.partition == tp.partition)
            .map(|e| e.offset)
    } else {
        None
    };
    Ok(Some(LocalSide {
        data_dir: data_dir.to_path_buf(),
        log_start_offset,
        local_log_start_offset: bases.first().copied(),
        last_segment_base_offset: bases.last().copied(),
    }))
}

pub fn run(req: &RemoteRequest<'_>) -> Result<RemoteReport> {
    let metadata = read_remote_metadata(req.dirs)?;
    let mut partitions = Vec::new();
    for tp in metadata.fold.partitions.keys() {
        let mut local = Vec::new();
        for d in req.dirs {
            if let Some(side) = local_side(d, tp)? {
                local.push(side);
            }
        }
        partitions.push(TieredPartition { partition: tp.clone(), local });
    }
    let storage = match req.remote_dir {
        Some(dir) => Some(check_storage(dir, &metadata.fold.partitions)?),
        None => None,
    };
    let recorded = super::remote_forecast::read_metadata(req.dirs);
    let now_ms = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| i64::try_from(d.as_millis()).unwrap_or(i64::MAX));
    let forecasts = partitions
        .iter()
        .filter_map(|tp| {
            let p = metadata.fold.partitions.get(&tp.partition)?;
            Some(super::remote_forecast::forecast_partition(tp, p, recorded.as_ref(), storage.as_ref(), now_ms))
        })
        .collect();
    Ok(RemoteReport { metadata, partitions, storage, forecasts })
}
