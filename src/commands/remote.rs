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
use crate::tiered::tier_check::{self, BrokerMarks, Overlap, SegmentRef};
use std::path::{Path, PathBuf};

pub struct RemoteRequest<'a> {
    pub dirs: &'a [PathBuf],
    pub remote_dir: Option<&'a Path>,
    /// Retention settings to forecast with in place of the metadata's.
    pub what_if: super::remote_forecast::RetentionWhatIf,
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
    /// The dir's `replication-offset-checkpoint` entry.
    pub high_watermark: Option<i64>,
    /// The broker's node id (`meta.properties`), when it gives one.
    pub node_id: Option<i32>,
    /// Whether the dir holds `.kafka_cleanshutdown` (its checkpoints were written at shutdown).
    pub clean_shutdown: bool,
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

/// A finding across the tiers, as `check` lists it.
#[derive(Debug, Clone)]
pub struct TierFinding {
    pub kind: &'static str,
    pub path: Option<PathBuf>,
    pub what: String,
}

/// A fact across the tiers that is not a finding ([`RemoteReport::notes`]).
#[derive(Debug, Clone)]
pub struct TierNote {
    /// `copied-twice`, `two-histories`, `above-hw`, `expires-next`, `metadata-above-hw`.
    pub kind: &'static str,
    pub partition: TopicIdPartition,
    pub data_dir: Option<PathBuf>,
    pub segment_id: Option<String>,
    pub what: String,
}

/// `epoch@offset ...`, as the tables show a segment's leader epochs.
pub fn epochs_text(e: &[(i32, i64)]) -> String {
    let parts: Vec<String> = e.iter().map(|(epoch, offset)| format!("{epoch}@{offset}")).collect();
    parts.join(" ")
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

    /// Finished remote segments that hold the same offsets ([`tier_check::overlaps`]): facts,
    /// not findings (a copy made twice, or two histories after an unclean election).
    pub fn overlaps(&self) -> Vec<(TopicIdPartition, Overlap)> {
        let mut out = Vec::new();
        for (tp, p) in &self.metadata.fold.partitions {
            out.extend(tier_check::overlaps(p).into_iter().map(|o| (tp.clone(), o)));
        }
        out
    }

    /// Finished remote segments at or above the HW of the broker that copied them, in each dir
    /// shut down cleanly ([`tier_check::above_high_watermark`]): a history that broker no longer
    /// holds. Facts, not findings.
    pub fn above_high_watermark(&self) -> Vec<(TopicIdPartition, &LocalSide, SegmentRef)> {
        let mut out = Vec::new();
        for tp in &self.partitions {
            let Some(p) = self.metadata.fold.partitions.get(&tp.partition) else { continue };
            for side in tp.local.iter().filter(|s| s.clean_shutdown) {
                let (Some(node_id), Some(high_watermark)) = (side.node_id, side.high_watermark) else { continue };
                for s in tier_check::above_high_watermark(p, BrokerMarks { node_id, high_watermark }) {
                    out.push((tp.partition.clone(), side, s));
                }
            }
        }
        out
    }

    /// Every finding, in one list (`check`'s tiered section): unreadable records, events the
    /// cache rejects, copies not finished, gaps between the tiers, remote storage findings.
    pub fn findings(&self) -> Vec<TierFinding> {
        let m = &self.metadata;
        let at = |p: crate::tiered::metadata_cache::EventPosition| {
            format!("__remote_log_metadata-{} offset {}", p.metadata_partition, p.offset)
        };
        let mut out = Vec::new();
        for u in &m.unreadable {
            out.push(TierFinding {
                kind: "unreadable",
                path: None,
                what: format!("record at {}: {}", at(u.at), u.what),
            });
        }
        for r in &m.fold.rejections {
            let seg = r.segment_id.map_or(String::new(), |s| format!(" segment {}", crate::util::base64_url(&s)));
            out.push(TierFinding {
                kind: "rejected",
                path: None,
                what: format!("event at {}: {}{seg}: {}", at(r.at), r.partition.dir_name(), r.why),
            });
        }
        for s in self.copies_not_finished() {
            out.push(TierFinding {
                kind: "copy-not-finished",
                path: None,
                what: format!(
                    "{} segment {} (offsets {}..{}) by broker {}: COPY_SEGMENT_STARTED only",
                    s.partition.dir_name(),
                    s.segment_id_text(),
                    s.start_offset,
                    s.end_offset,
                    s.broker_id
                ),
            });
        }
        for g in self.tier_gaps() {
            out.push(TierFinding {
                kind: "tier-gap",
                path: Some(g.data_dir.clone()),
                what: format!(
                    "{}: offsets {}..{} are neither in a finished remote segment nor local",
                    g.partition.dir_name(),
                    g.first_missing_offset,
                    g.local_log_start_offset - 1
                ),
            });
        }
        for f in self.storage.iter().flat_map(|s| &s.findings) {
            out.push(TierFinding { kind: f.kind, path: Some(f.path.clone()), what: f.what.clone() });
        }
        out
    }

    /// What is worth a look but is not a finding: overlaps and segments above a copier's HW,
    /// each said once for every view (`remote`, `check`).
    pub fn notes(&self) -> Vec<TierNote> {
        let mut out = Vec::new();
        self.overlap_notes(&mut out);
        self.metadata_above_hw_notes(&mut out);
        self.expires_next_notes(&mut out);
        self.above_hw_notes(&mut out);
        out
    }

    /// Remote segments that hold the same offsets: one history copied twice, or two.
    fn overlap_notes(&self, out: &mut Vec<TierNote>) {
        for (tp, o) in self.overlaps() {
            let why = if o.same_lineage {
                "the same leader epochs: one history copied twice"
            } else {
                "other leader epochs: two histories of these offsets (an unclean election); a leader serves only \
                 the one its epoch cache holds"
            };
            out.push(TierNote {
                kind: if o.same_lineage { "copied-twice" } else { "two-histories" },
                partition: tp.clone(),
                data_dir: None,
                segment_id: Some(o.second.segment_id_text()),
                what: format!(
                    "{}: remote segments {} ({}..{}, epochs {}) and {} ({}..{}, epochs {}) both hold offsets {}..{}, \
                     with {why}",
                    tp.dir_name(),
                    o.first.segment_id_text(),
                    o.first.start_offset,
                    o.first.end_offset,
                    epochs_text(&o.first.leader_epochs),
                    o.second.segment_id_text(),
                    o.second.start_offset,
                    o.second.end_offset,
                    epochs_text(&o.second.leader_epochs),
                    o.first_offset,
                    o.last_offset
                ),
            });
        }
    }

    /// Metadata events at or above their metadata partition's high watermark, per user partition.
    fn metadata_above_hw_notes(&self, out: &mut Vec<TierNote>) {
        let mut above: std::collections::BTreeMap<(&TopicIdPartition, i32), Vec<i64>> =
            std::collections::BTreeMap::new();
        for a in &self.metadata.above_high_watermark {
            above.entry((&a.partition, a.at.metadata_partition)).or_default().push(a.at.offset);
        }
        for ((tp, metadata_partition), offsets) in above {
            let hw = self
                .metadata
                .partitions
                .iter()
                .find(|p| p.partition == metadata_partition)
                .and_then(|p| p.high_watermark)
                .unwrap_or_default();
            let (first, last) =
                (offsets.first().copied().unwrap_or_default(), offsets.last().copied().unwrap_or_default());
            out.push(TierNote {
                kind: "metadata-above-hw",
                partition: tp.clone(),
                data_dir: None,
                segment_id: None,
                what: format!(
                    "{}: {} event(s) of __remote_log_metadata-{metadata_partition} (offsets {first}..{last}) lie at or \
                     above its high watermark {hw} (the highest the dirs' replication-offset-checkpoint gives): Kafka's \
                     metadata manager consumes below the HW only, so it may not have applied them, and a later leader \
                     of that partition may not hold them (klog folds them; a copy of a broker that did not stop cleanly \
                     holds a checkpoint behind its HW)",
                    tp.dir_name(),
                    offsets.len()
                ),
            });
        }
    }

    /// What the current leader's next remote expiration deletes.
    fn expires_next_notes(&self, out: &mut Vec<TierNote>) {
        for f in &self.forecasts {
            let Some(leader) = f.current.and_then(|i| f.candidates.get(i)) else { continue };
            let deletions = &leader.forecast.deletions;
            let (Some(first), Some(last)) =
                (deletions.iter().map(|d| d.start_offset).min(), deletions.iter().map(|d| d.end_offset).max())
            else {
                continue;
            };
            let Some(tp) = self.partitions.iter().map(|p| &p.partition).find(|tp| tp.dir_name() == f.partition) else {
                continue;
            };
            let mut causes: std::collections::BTreeMap<&str, usize> = std::collections::BTreeMap::new();
            for d in deletions {
                *causes.entry(d.cause.name()).or_default() += 1;
            }
            let causes: Vec<String> = causes.iter().map(|(c, n)| format!("{n} by {c}")).collect();
            out.push(TierNote {
                kind: "expires-next",
                partition: tp.clone(),
                data_dir: Some(leader.data_dir.clone()),
                segment_id: None,
                what: format!(
                    "{}: the next remote expiration of broker {} (the leader) deletes {} segment(s), offsets {first}..{last} \
                     ({}), and the earliest offset becomes {} (retention.ms {} from {}, retention.bytes {} from {})",
                    f.partition,
                    leader.node_id.map_or_else(|| "?".to_string(), |n| n.to_string()),
                    deletions.len(),
                    causes.join(", "),
                    leader.forecast.log_start_offset_after,
                    f.retention_ms,
                    f.retention_ms_source,
                    f.retention_bytes,
                    f.retention_bytes_source
                ),
            });
        }
    }

    /// Remote segments above the HW of the cleanly stopped broker that copied them.
    fn above_hw_notes(&self, out: &mut Vec<TierNote>) {
        for (tp, side, s) in self.above_high_watermark() {
            out.push(TierNote {
                kind: "above-hw",
                partition: tp.clone(),
                data_dir: Some(side.data_dir.clone()),
                segment_id: Some(s.segment_id_text()),
                what: format!(
                    "{}: remote segment {} (offsets {}..{}) was copied by broker {}, whose HW is now {} (shut down \
                     cleanly): it copied a history its log no longer holds up to there (a leader copies only below \
                     its last stable offset)",
                    tp.dir_name(),
                    s.segment_id_text(),
                    s.start_offset,
                    s.end_offset,
                    s.broker_id,
                    side.high_watermark.unwrap_or_default()
                ),
            });
        }
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

/// A partition's entry in an offset checkpoint of the dir (none when the file is absent).
fn checkpoint_entry(checkpoint: &Path, tp: &TopicIdPartition) -> Result<Option<i64>> {
    if !checkpoint.is_file() {
        return Ok(None);
    }
    Ok(read_offset_checkpoint(checkpoint)?
        .into_iter()
        .find(|e| e.topic == tp.topic && e.partition == tp.partition)
        .map(|e| e.offset))
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
    let log_start_offset = checkpoint_entry(&data_dir.join(LOG_START_OFFSET_CHECKPOINT), tp)?;
    let high_watermark = checkpoint_entry(&data_dir.join(names::REPLICATION_OFFSET_CHECKPOINT), tp)?;
    let meta = crate::replica::read_meta_properties(&data_dir.join(names::META_PROPERTIES)).unwrap_or_default();
    let node_id = meta.get("node.id").or_else(|| meta.get("broker.id")).and_then(|v| v.trim().parse().ok());
    Ok(Some(LocalSide {
        data_dir: data_dir.to_path_buf(),
        log_start_offset,
        local_log_start_offset: bases.first().copied(),
        last_segment_base_offset: bases.last().copied(),
        high_watermark,
        node_id,
        clean_shutdown: data_dir.join(names::CLEAN_SHUTDOWN_MARKER).is_file(),
    }))
}

/// Whether `dir` is a data dir holding a `__remote_log_metadata-N` partition.
fn holds_remote_metadata(dir: &Path) -> bool {
    dir.is_dir() && crate::tiered::metadata_topic::metadata_partition_dirs(dir).is_ok_and(|v| !v.is_empty())
}

/// `check`'s tiered section: read when a dir holds `__remote_log_metadata` or the remote dir
/// is given; `None` otherwise.
pub fn for_check(dirs: &[PathBuf], remote_dir: Option<&Path>) -> Result<Option<RemoteReport>> {
    if remote_dir.is_none() && !dirs.iter().any(|d| holds_remote_metadata(d)) {
        return Ok(None);
    }
    run(&RemoteRequest { dirs, remote_dir, what_if: Default::default() }).map(Some)
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
            Some(super::remote_forecast::forecast_partition(
                tp,
                p,
                recorded.as_ref(),
                storage.as_ref(),
                now_ms,
                req.what_if,
            ))
        })
        .collect();
    Ok(RemoteReport { metadata, partitions, storage, forecasts })
}
