//! `klog remote`'s forecasts: per tiered partition, for every broker whose data dir holds a
//! replica, what it does across the tiers if it leads ([`crate::tiered::lineage`]): the remote
//! segments it serves and deletes, its log start after; the consumer-read ranges of the
//! current leader (the one the KRaft metadata in the dirs last recorded); and, with the remote
//! dir, the records of remote segments no candidate serves. Reads only.

use crate::commands::remote::TieredPartition;
use crate::error::Result;
use crate::kraft::recorded::{MetadataFound, RecordedMetadata};
use crate::kraft::NO_LEADER;
use crate::log::names;
use crate::log::{Log, LogConfig};
use crate::replica::read_meta_properties;
use crate::tiered::lineage::{
    forecast, salvage_from, served_by_none, unlisted_segments, Candidate, LeaderForecast, Retention, Salvage,
};
use crate::tiered::local_tiered_storage::RemoteStorageCheck;
use crate::tiered::metadata_cache::PartitionRemoteMetadata;
use std::path::{Path, PathBuf};

/// Kafka's default `retention.ms` (7 days), when neither the topic nor the cluster default in
/// the metadata sets one.
pub const DEFAULT_RETENTION_MS: i64 = 604_800_000;

/// One broker's replica as a candidate leader, and its forecast.
#[derive(Debug, Clone)]
pub struct CandidateForecast {
    pub data_dir: PathBuf,
    /// `node.id` of the dir's `meta.properties`.
    pub node_id: Option<i32>,
    pub candidate: Candidate,
    pub forecast: LeaderForecast,
}

/// A candidate klog could not read, and why.
#[derive(Debug, Clone)]
pub struct Unforecast {
    pub data_dir: PathBuf,
    pub why: String,
}

/// Retention to forecast with in place of what the metadata sets (`klog remote
/// --retention-ms/--retention-bytes`): what the next expiration deletes if the topic is altered.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct RetentionWhatIf {
    pub retention_ms: Option<i64>,
    pub retention_bytes: Option<i64>,
}

/// The forecasts of one tiered partition.
#[derive(Debug, Clone)]
pub struct PartitionForecast {
    pub partition: String,
    pub candidates: Vec<CandidateForecast>,
    pub unforecast: Vec<Unforecast>,
    /// The leader the metadata last recorded (`None`: no metadata log in the dirs, or leader -1).
    pub metadata_leader: Option<i32>,
    /// Index into `candidates` of the current leader.
    pub current: Option<usize>,
    /// `retention.ms` taken, and where from (`topic`, `cluster default`, `Kafka's default`).
    pub retention_ms: i64,
    pub retention_ms_source: &'static str,
    /// `retention.bytes` taken (-1: none), and where from.
    pub retention_bytes: i64,
    pub retention_bytes_source: &'static str,
    /// With `--remote-dir`: finished segments no candidate serves, and their records.
    pub salvage: Vec<Salvage>,
    /// Finished segments no candidate serves (with or without the remote dir).
    pub served_by_none_count: usize,
    /// Segments Kafka's cache lists under none of their epochs (a later copy took their start
    /// offset): no leader's expiration deletes them.
    pub unlisted: Vec<([u8; 16], i64, i64)>,
}

fn node_id(data_dir: &Path) -> Option<i32> {
    read_meta_properties(&data_dir.join(names::META_PROPERTIES)).ok()?.get("node.id")?.parse().ok()
}

fn candidate(data_dir: &Path, dir_name: &str, log_start_offset: Option<i64>) -> Result<Candidate> {
    let dir = data_dir.join(dir_name);
    // The epoch cache as the dir's `leader-epoch-checkpoint` holds it (none: empty).
    let log = Log::open(&dir, LogConfig::default(), log_start_offset.unwrap_or(0))?;
    let epoch_entries = log.epoch_cache().entries().iter().map(|e| (e.leader_epoch, e.start_offset)).collect();
    let local_log_start_offset = log.first_offset().unwrap_or(log.log_end_offset());
    let local_segments =
        log.segments().iter().map(|s| Ok((s.base_offset, s.log_size()?))).collect::<Result<Vec<_>>>()?;
    Ok(Candidate {
        epoch_entries,
        log_start_offset: log_start_offset.unwrap_or(local_log_start_offset),
        local_log_start_offset,
        log_end_offset: log.log_end_offset(),
        local_segments,
    })
}

/// The metadata log furthest along among `dirs`, if any holds one and it replays.
pub fn read_metadata(dirs: &[PathBuf]) -> Option<RecordedMetadata> {
    RecordedMetadata::furthest_along(dirs.iter().map(|d| (d.as_path(), MetadataFound::DataDir)))
        .ok()
        .flatten()
        .map(|(_, m)| m)
}

/// Forecast one partition.
pub fn forecast_partition(
    tp: &TieredPartition,
    p: &PartitionRemoteMetadata,
    metadata: Option<&RecordedMetadata>,
    storage: Option<&RemoteStorageCheck>,
    now_ms: i64,
    what_if: RetentionWhatIf,
) -> PartitionForecast {
    let name = tp.partition.dir_name();
    let config = |key: &str| metadata.and_then(|m| m.topic_config(&tp.partition.topic, key));
    let setting = |key: &str, default: i64| match config(key).and_then(|(v, s)| Some((v.parse::<i64>().ok()?, s))) {
        Some((v, crate::kraft::replay::ConfigSource::Topic)) => (v, "topic"),
        Some((v, crate::kraft::replay::ConfigSource::ClusterDefault)) => (v, "cluster default"),
        None => (default, "Kafka's default"),
    };
    let (retention_ms, retention_ms_source) = match what_if.retention_ms {
        Some(ms) => (ms, "--retention-ms"),
        None => setting("retention.ms", DEFAULT_RETENTION_MS),
    };
    let (retention_bytes, retention_bytes_source) = match what_if.retention_bytes {
        Some(b) => (b, "--retention-bytes"),
        None => setting("retention.bytes", -1),
    };
    let retention = Some(Retention { retention_ms, retention_bytes, now_ms });
    let mut candidates = Vec::new();
    let mut unforecast = Vec::new();
    for side in &tp.local {
        match candidate(&side.data_dir, &name, side.log_start_offset) {
            Ok(c) => {
                let forecast = forecast(p, &c, retention);
                candidates.push(CandidateForecast {
                    data_dir: side.data_dir.clone(),
                    node_id: node_id(&side.data_dir),
                    candidate: c,
                    forecast,
                });
            }
            Err(e) => unforecast.push(Unforecast { data_dir: side.data_dir.clone(), why: e.to_string() }),
        }
    }
    let metadata_leader =
        metadata.and_then(|m| m.last(&name)).map(|l| l.registration.leader).filter(|&l| l != NO_LEADER);
    let current = metadata_leader.and_then(|l| candidates.iter().position(|c| c.node_id == Some(l)));
    let forecasts: Vec<&LeaderForecast> = candidates.iter().map(|c| &c.forecast).collect();
    // With no candidate read, nothing is known to be served by none.
    let none = if forecasts.is_empty() { Vec::new() } else { served_by_none(p, &forecasts) };
    let salvage = match storage {
        Some(s) => {
            let logs: std::collections::BTreeMap<[u8; 16], &Path> =
                s.filesets.iter().filter_map(|f| Some((f.segment_id, f.files.get(".log")?.as_path()))).collect();
            none.iter().filter_map(|seg| Some(salvage_from(seg, logs.get(&seg.segment_id)?))).collect()
        }
        None => Vec::new(),
    };
    PartitionForecast {
        partition: name,
        candidates,
        unforecast,
        metadata_leader,
        current,
        retention_ms,
        retention_ms_source,
        retention_bytes,
        retention_bytes_source,
        salvage,
        served_by_none_count: none.len(),
        unlisted: unlisted_segments(p).iter().map(|s| (s.segment_id, s.start_offset, s.end_offset)).collect(),
    }
}
