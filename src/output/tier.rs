//! `klog tier copy`, `klog tier retain` and `klog tier expire` as text and JSON lines.

use super::json::line;
use crate::error::Result;
use crate::tiered::copy::CopyReport;
use crate::tiered::expire::ExpireReport;
use crate::tiered::retain::{LocalRetention, RetainReport};
use serde::Serialize;
use std::io::Write;

fn epochs(e: &[(i32, i64)]) -> String {
    e.iter().map(|(e, o)| format!("{e}@{o}")).collect::<Vec<_>>().join(" ")
}

pub fn copy_text(out: &mut dyn Write, r: &CopyReport) -> Result<()> {
    let p = &r.plan;
    let copied = if p.highest_remote_offset < 0 {
        "nothing copied yet".to_string()
    } else {
        format!("copied up to offset {} (epoch {})", p.highest_remote_offset, p.highest_remote_epoch)
    };
    match p.from_offset {
        None => {
            return out!(
                out,
                "copy task of broker {} for {}: {copied}, LSO {}: nothing to copy (it copies only below the LSO)",
                r.broker_id,
                r.partition.dir_name(),
                p.last_stable_offset
            )
        }
        Some(from) => out!(
            out,
            "copy task of broker {} for {}: {copied}; log start {}, LSO {}: copies from offset {from}, {} segment(s) \
             whose next segment starts at or below the LSO",
            r.broker_id,
            r.partition.dir_name(),
            p.log_start_offset,
            p.last_stable_offset,
            p.candidates.len()
        )?,
    }
    for c in &r.copied {
        let m = &c.metadata;
        let state = match c.finished_at {
            Some(at) => {
                format!("COPY_SEGMENT_STARTED at metadata offset {}, COPY_SEGMENT_FINISHED at {at}", c.started_at)
            }
            None => format!("COPY_SEGMENT_STARTED at metadata offset {}, never finished", c.started_at),
        };
        out!(
            out,
            "  segment {} offsets {}..{} (epochs {}), {} bytes: {state}; {} file(s) in {}",
            m.segment_id_text(),
            m.start_offset,
            m.end_offset,
            epochs(&m.segment_leader_epochs),
            m.segment_size_in_bytes,
            c.files.len(),
            c.files
                .first()
                .and_then(|f| f.parent())
                .map_or_else(|| r.remote_dir.display().to_string(), |d| d.display().to_string())
        )?;
    }
    if let Some(n) = r.stopped_after_files {
        out!(out, "stopped after the STARTED record and {n} file(s), as a broker killed during the upload leaves it")?;
    }
    Ok(())
}

#[derive(Serialize)]
struct CopiedWire<'a> {
    #[serde(rename = "type")]
    kind: &'static str,
    segment_id: String,
    start_offset: i64,
    end_offset: i64,
    segment_leader_epochs: Vec<[i64; 2]>,
    segment_size_in_bytes: i32,
    max_timestamp_ms: i64,
    txn_index_empty: bool,
    state: &'static str,
    started_at: i64,
    finished_at: Option<i64>,
    leader_epoch_checkpoint: Vec<[i64; 2]>,
    files: Vec<&'a std::path::Path>,
}

#[derive(Serialize)]
struct CopySummaryWire<'a> {
    #[serde(rename = "type")]
    kind: &'static str,
    broker_id: i32,
    topic: &'a str,
    partition: i32,
    topic_id: String,
    remote_dir: &'a std::path::Path,
    highest_remote_offset: i64,
    highest_remote_epoch: i32,
    log_start_offset: i64,
    last_stable_offset: i64,
    from_offset: Option<i64>,
    candidates: Vec<[i64; 2]>,
    copied_count: usize,
    stopped_after_files: Option<usize>,
}

fn pairs(e: &[(i32, i64)]) -> Vec<[i64; 2]> {
    e.iter().map(|&(e, o)| [i64::from(e), o]).collect()
}

pub fn copy_json(out: &mut dyn Write, r: &CopyReport) -> Result<()> {
    for c in &r.copied {
        let m = &c.metadata;
        line(
            out,
            &CopiedWire {
                kind: "remote_copy",
                segment_id: m.segment_id_text(),
                start_offset: m.start_offset,
                end_offset: m.end_offset,
                segment_leader_epochs: pairs(&m.segment_leader_epochs),
                segment_size_in_bytes: m.segment_size_in_bytes,
                max_timestamp_ms: m.max_timestamp_ms,
                txn_index_empty: m.txn_index_empty,
                state: m.state.name(),
                started_at: c.started_at,
                finished_at: c.finished_at,
                leader_epoch_checkpoint: pairs(&c.epoch_checkpoint),
                files: c.files.iter().map(|f| f.as_path()).collect(),
            },
        )?;
    }
    let p = &r.plan;
    line(
        out,
        &CopySummaryWire {
            kind: "copy_task",
            broker_id: r.broker_id,
            topic: &r.partition.topic,
            partition: r.partition.partition,
            topic_id: r.partition.topic_id_text(),
            remote_dir: &r.remote_dir,
            highest_remote_offset: p.highest_remote_offset,
            highest_remote_epoch: p.highest_remote_epoch,
            log_start_offset: p.log_start_offset,
            last_stable_offset: p.last_stable_offset,
            from_offset: p.from_offset,
            candidates: p.candidates.iter().map(|&(b, n)| [b, n]).collect(),
            copied_count: r.copied.len(),
            stopped_after_files: r.stopped_after_files,
        },
    )
}

fn limit_text(l: LocalRetention) -> String {
    match l {
        LocalRetention::Bytes(b) => format!("local.retention.bytes {b}"),
        LocalRetention::Ms { retention_ms, .. } => format!("local.retention.ms {retention_ms}"),
    }
}

pub fn retain_text(out: &mut dyn Write, r: &RetainReport) -> Result<()> {
    let remote = if r.highest_remote_offset < 0 {
        "nothing in remote storage".to_string()
    } else {
        format!("highest offset in remote storage {}", r.highest_remote_offset)
    };
    if r.plan.deleted.is_empty() {
        out!(out, "{}, {remote}: no local segment deleted", limit_text(r.limit))?;
    } else {
        out!(
            out,
            "{}, {remote}: deleted {} local segment(s) ({} bytes), base offsets {}",
            limit_text(r.limit),
            r.plan.deleted.len(),
            r.deleted_bytes,
            r.plan.deleted.iter().map(i64::to_string).collect::<Vec<_>>().join(" ")
        )?;
    }
    if let Some((base, why)) = r.plan.stopped {
        out!(out, "  kept from segment {base}: {why}")?;
    }
    if r.plan.roll {
        out!(out, "  the active segment breached the limit: the log rolled (the rolled segment goes once copied)")?;
    }
    out!(
        out,
        "log start {} (across tiers, kept in log-start-offset-checkpoint), local log start {} -> {}",
        r.log_start_offset,
        r.local_log_start_before,
        r.local_log_start_after
    )
}

#[derive(Serialize)]
struct RetainWire<'a> {
    #[serde(rename = "type")]
    kind: &'static str,
    limit: String,
    highest_remote_offset: i64,
    log_start_offset: i64,
    local_log_start_before: i64,
    local_log_start_after: i64,
    deleted: &'a [i64],
    deleted_bytes: u64,
    stopped_at: Option<i64>,
    stopped_because: Option<&'static str>,
    rolled: bool,
}

pub fn retain_json(out: &mut dyn Write, r: &RetainReport) -> Result<()> {
    line(
        out,
        &RetainWire {
            kind: "local_retention",
            limit: limit_text(r.limit),
            highest_remote_offset: r.highest_remote_offset,
            log_start_offset: r.log_start_offset,
            local_log_start_before: r.local_log_start_before,
            local_log_start_after: r.local_log_start_after,
            deleted: &r.plan.deleted,
            deleted_bytes: r.deleted_bytes,
            stopped_at: r.plan.stopped.map(|s| s.0),
            stopped_because: r.plan.stopped.map(|s| s.1),
            rolled: r.plan.roll,
        },
    )
}

/// What a fetch did across the tiers, before its rounds: the metadata records replicated and
/// the follower's rebuild from remote storage.
pub fn fetch_tiers_text(out: &mut dyn Write, r: &crate::commands::fetch::TieredFetchReport) -> Result<()> {
    use crate::tiered::lab::MetadataReplication as M;
    let name = crate::tiered::lab::metadata_partition_name();
    match r.metadata {
        Some(M::Copied { from, to }) => out!(out, "{name}: copied records {from}..{} from the leader's copy", to - 1)?,
        Some(M::Diverged { offset }) => out!(
            out,
            "{name}: the copies hold different records at offset {offset}: nothing copied (each broker wrote its own)"
        )?,
        Some(M::UpToDate { .. }) | None => {}
    }
    if let Some(b) = &r.remote_rebuild {
        let s = b.aux.source.as_ref().expect("a rebuild has a source");
        out!(
            out,
            "fetch at {}: OFFSET_MOVED_TO_TIERED_STORAGE (the leader's log start {}, local log start {}); the follower \
             rebuilt from remote segment {} (offsets {}..{}): log restarts at {} with log start {}, epoch cache {}, \
             producer snapshot {} ({} bytes)",
            b.fetch_offset,
            b.tier.log_start_offset,
            b.tier.local_log_start_offset,
            s.segment_id,
            s.start_offset,
            s.end_offset,
            b.next_offset(),
            b.aux.log_start_offset,
            epochs(&b.epochs_taken),
            b.snapshot_path.display(),
            b.snapshot_bytes
        )?;
    }
    Ok(())
}

#[derive(Serialize)]
struct MetadataReplicationWire {
    #[serde(rename = "type")]
    kind: &'static str,
    outcome: &'static str,
    from: Option<i64>,
    to: Option<i64>,
    log_end_offset: Option<i64>,
    diverged_at: Option<i64>,
}

#[derive(Serialize)]
struct RemoteRebuildWire<'a> {
    #[serde(rename = "type")]
    kind: &'static str,
    kafka: String,
    fetch_offset: i64,
    answer: &'static str,
    leader_log_start_offset: i64,
    leader_local_log_start_offset: i64,
    epoch_at_local_start: Option<i32>,
    target_epoch: i32,
    asked_earlier_epoch: bool,
    segment_id: &'a str,
    segment_start_offset: i64,
    segment_end_offset: i64,
    next_offset: i64,
    log_start_offset: i64,
    epochs_taken: Vec<[i64; 2]>,
    producer_snapshot: &'a std::path::Path,
}

pub fn fetch_tiers_json(out: &mut dyn Write, r: &crate::commands::fetch::TieredFetchReport) -> Result<()> {
    use crate::tiered::lab::MetadataReplication as M;
    if let Some(m) = &r.metadata {
        let (outcome, from, to, log_end_offset, diverged_at) = match *m {
            M::UpToDate { log_end_offset } => ("up_to_date", None, None, Some(log_end_offset), None),
            M::Copied { from, to } => ("copied", Some(from), Some(to), Some(to), None),
            M::Diverged { offset } => ("diverged", None, None, None, Some(offset)),
        };
        line(
            out,
            &MetadataReplicationWire { kind: "metadata_replication", outcome, from, to, log_end_offset, diverged_at },
        )?;
    }
    if let Some(b) = &r.remote_rebuild {
        let s = b.aux.source.as_ref().expect("a rebuild has a source");
        line(
            out,
            &RemoteRebuildWire {
                kind: "remote_aux_state",
                kafka: b.release.to_string(),
                fetch_offset: b.fetch_offset,
                answer: "OFFSET_MOVED_TO_TIERED_STORAGE",
                leader_log_start_offset: b.tier.log_start_offset,
                leader_local_log_start_offset: b.tier.local_log_start_offset,
                epoch_at_local_start: b.aux.epoch_at_local_start,
                target_epoch: b.aux.target_epoch,
                asked_earlier_epoch: b.aux.asked_earlier_epoch,
                segment_id: &s.segment_id,
                segment_start_offset: s.start_offset,
                segment_end_offset: s.end_offset,
                next_offset: b.next_offset(),
                log_start_offset: b.aux.log_start_offset,
                epochs_taken: pairs(&b.epochs_taken),
                producer_snapshot: &b.snapshot_path,
            },
        )?;
    }
    Ok(())
}

pub fn expire_text(out: &mut dyn Write, r: &ExpireReport) -> Result<()> {
    let limits = format!("retention.ms {}, retention.bytes {}", r.retention.retention_ms, r.retention.retention_bytes);
    let head = format!("expiration task of broker {} for {} ({limits})", r.broker_id, r.partition.dir_name());
    if r.expired.is_empty() {
        out!(out, "{head}: no remote segment to delete")?;
    } else {
        out!(out, "{head}: deleted {} remote segment(s)", r.expired.len())?;
    }
    for e in &r.expired {
        let d = &e.deletion;
        out!(
            out,
            "  segment {} offsets {}..{}: {}; DELETE_SEGMENT_STARTED at metadata offset {}, \
             DELETE_SEGMENT_FINISHED at {}; {} file(s) removed",
            crate::util::base64_url(&d.segment_id),
            d.start_offset,
            d.end_offset,
            d.cause.name(),
            e.started_at,
            e.finished_at,
            e.files.len()
        )?;
    }
    if r.log_start_after == r.log_start_before {
        out!(out, "log start {} (across tiers)", r.log_start_before)
    } else {
        out!(
            out,
            "log start {} -> {} (the earliest offset it serves, in log-start-offset-checkpoint)",
            r.log_start_before,
            r.log_start_after
        )
    }
}

#[derive(Serialize)]
struct ExpiredWire<'a> {
    #[serde(rename = "type")]
    kind: &'static str,
    segment_id: String,
    start_offset: i64,
    end_offset: i64,
    cause: &'static str,
    started_at: i64,
    finished_at: i64,
    files: Vec<&'a std::path::Path>,
}

#[derive(Serialize)]
struct ExpireSummaryWire {
    #[serde(rename = "type")]
    kind: &'static str,
    broker_id: i32,
    partition: String,
    retention_ms: i64,
    retention_bytes: i64,
    deleted: usize,
    log_start_before: i64,
    log_start_after: i64,
}

pub fn expire_json(out: &mut dyn Write, r: &ExpireReport) -> Result<()> {
    for e in &r.expired {
        let d = &e.deletion;
        line(
            out,
            &ExpiredWire {
                kind: "remote_delete",
                segment_id: crate::util::base64_url(&d.segment_id),
                start_offset: d.start_offset,
                end_offset: d.end_offset,
                cause: d.cause.name(),
                started_at: e.started_at,
                finished_at: e.finished_at,
                files: e.files.iter().map(|f| f.as_path()).collect(),
            },
        )?;
    }
    line(
        out,
        &ExpireSummaryWire {
            kind: "remote_expiration",
            broker_id: r.broker_id,
            partition: r.partition.dir_name(),
            retention_ms: r.retention.retention_ms,
            retention_bytes: r.retention.retention_bytes,
            deleted: r.expired.len(),
            log_start_before: r.log_start_before,
            log_start_after: r.log_start_after,
        },
    )
}
