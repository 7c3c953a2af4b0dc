//! `klog remote` rendered: what `__remote_log_metadata` held, then per tiered partition its
//! log start and local log start in each dir and its remote segment table; the events Kafka's
//! cache rejects; remote storage set against the table. Or JSON lines, each with a `type`.

use crate::commands::remote::{RemoteReport, TieredPartition};
use crate::error::{IoContext, Result};
use crate::escape;
use crate::output::iso_timestamp;
use crate::output::json::{line, Shown};
use crate::output::table::{right, Col, Grid};
use crate::output::Settings;
use crate::tiered::local_tiered_storage::RemoteStorageCheck;
use crate::tiered::metadata_cache::{EventPosition, PartitionRemoteMetadata};
use crate::tiered::remote_log_metadata::SegmentMetadata;
use crate::util::base64_url;
use comfy_table::Cell;
use serde::Serialize;
use std::io::Write;

fn at(p: EventPosition) -> String {
    format!("__remote_log_metadata-{} offset {}", p.metadata_partition, p.offset)
}

use crate::commands::remote::epochs_text as epochs;

fn opt(o: Option<i64>) -> String {
    o.map_or("-".into(), |o| o.to_string())
}

fn write_line(out: &mut dyn Write, s: &str) -> Result<()> {
    writeln!(out, "{s}").at("<stdout>", "write")
}

pub fn text(out: &mut dyn Write, r: &RemoteReport, settings: &Settings) -> Result<()> {
    let w = write_line;
    metadata_text(out, r)?;
    for tp in &r.partitions {
        if let Some(p) = r.metadata.fold.partitions.get(&tp.partition) {
            partition_text(out, tp, p, settings)?;
        }
    }
    if let Some(s) = &r.storage {
        storage_text(out, s)?;
    }
    crate::output::remote_forecast::text(out, &r.forecasts, settings)?;
    let n = r.finding_count();
    w(out, "")?;
    w(out, &if n == 0 { "no findings".to_string() } else { format!("{n} finding(s)") })
}

/// What `__remote_log_metadata` held, and every event or state the tiers' fold found wrong.
fn metadata_text(out: &mut dyn Write, r: &RemoteReport) -> Result<()> {
    let w = write_line;
    let m = &r.metadata;
    let by_name: Vec<String> = m.decoded_by_name.iter().map(|(n, c)| format!("{c} {n}")).collect();
    w(
        out,
        &format!(
            "__remote_log_metadata: {} partition(s) read, {} record(s) ({}), {} unreadable; {} event(s) applied, {} rejected",
            m.partitions.len(),
            m.records_read(),
            if by_name.is_empty() { "none".to_string() } else { by_name.join(", ") },
            m.unreadable.len(),
            m.fold.events_applied,
            m.fold.rejections.len()
        ),
    )?;
    for u in &m.unreadable {
        w(out, &format!("  unreadable record at {}: {}", at(u.at), escape::text(&u.what)))?;
    }
    for rej in &m.fold.rejections {
        let seg = rej.segment_id.map_or(String::new(), |s| format!(" segment {}", base64_url(&s)));
        w(
            out,
            &format!(
                "  rejected at {}: {}{seg}: {}",
                at(rej.at),
                escape::text(&rej.partition.dir_name()),
                escape::text(&rej.why)
            ),
        )?;
    }
    for seg in r.copies_not_finished() {
        w(
            out,
            &format!(
                "  copy not finished: {} segment {} (offsets {}..{}) by broker {}: COPY_SEGMENT_STARTED only \
                 (an upload under way on a running cluster, an orphan on a stopped one's copy)",
                escape::text(&seg.partition.dir_name()),
                seg.segment_id_text(),
                seg.start_offset,
                seg.end_offset,
                seg.broker_id
            ),
        )?;
    }
    for g in r.tier_gaps() {
        w(
            out,
            &format!(
                "  gap between the tiers: {} in {}: offsets {}..{} are neither in a finished remote segment nor local",
                escape::text(&g.partition.dir_name()),
                escape::text(&g.data_dir.display().to_string()),
                g.first_missing_offset,
                g.local_log_start_offset - 1
            ),
        )?;
    }
    for n in r.notes() {
        w(out, &format!("  note {}: {}", n.kind, escape::text(&n.what)))?;
    }
    for deleted in &m.fold.deleted_partitions {
        w(out, &format!("  {}: remote partition deletion finished", escape::text(&deleted.dir_name())))?;
    }
    Ok(())
}

/// One tiered partition: its remote segments' range and times, its log start and local log
/// start in each dir, and its remote segment table.
fn partition_text(
    out: &mut dyn Write,
    tp: &TieredPartition,
    p: &PartitionRemoteMetadata,
    settings: &Settings,
) -> Result<()> {
    let w = write_line;
    let table = p.table();
    let range = match (table.first(), table.last()) {
        (Some(f), Some(l)) => format!(", offsets {}..{}", f.start_offset, l.end_offset),
        _ => String::new(),
    };
    // The segments' times, in the header: the table keeps to 80 columns (`--json` has each).
    let times = |f: fn(&&SegmentMetadata) -> i64| {
        let (lo, hi) = (table.iter().map(f).min(), table.iter().map(f).max());
        match (lo, hi) {
            (Some(lo), Some(hi)) => format!("{} .. {}", iso_timestamp(lo), iso_timestamp(hi)),
            _ => "-".into(),
        }
    };
    w(out, "")?;
    w(
        out,
        &format!(
            "{} (topic id {}): {} remote segment(s){range}",
            escape::text(&tp.partition.dir_name()),
            tp.partition.topic_id_text(),
            table.len()
        ),
    )?;
    if let Some(d) = &p.delete {
        w(out, &format!("  partition deletion: {} by broker {}", d.state.name(), d.broker_id))?;
    }
    if !table.is_empty() {
        w(
            out,
            &format!("  max timestamps {}; events {}", times(|s| s.max_timestamp_ms), times(|s| s.event_timestamp_ms)),
        )?;
    }
    for side in &tp.local {
        w(
            out,
            &format!(
                "  {}: log start {} (log-start-offset-checkpoint), local log start {} (first local segment)",
                escape::text(&side.data_dir.display().to_string()),
                opt(side.log_start_offset),
                opt(side.local_log_start_offset)
            ),
        )?;
    }
    segment_table(out, &table, settings)
}

/// The remote segments, one row each.
fn segment_table(out: &mut dyn Write, table: &[&SegmentMetadata], settings: &Settings) -> Result<()> {
    let mut grid = Grid::new(
        settings,
        &[
            Col::Ident("segment id"),
            Col::Keep("start"),
            Col::Keep("end"),
            Col::Flex("leader epochs"),
            Col::Verdict("state"),
            Col::Keep("broker"),
            Col::Keep("bytes"),
        ],
    );
    for s in table {
        grid.add(vec![
            Cell::new(s.segment_id_text()),
            right(s.start_offset),
            right(s.end_offset),
            Cell::new(epochs(&s.segment_leader_epochs)),
            Cell::new(s.state.short_name()),
            right(s.broker_id),
            right(s.segment_size_in_bytes),
        ]);
    }
    if !grid.is_empty() {
        grid.write(out)?;
    }
    Ok(())
}

/// Remote storage set against the table: its filesets and findings.
fn storage_text(out: &mut dyn Write, s: &RemoteStorageCheck) -> Result<()> {
    let w = write_line;
    w(out, "")?;
    w(
        out,
        &format!(
            "remote storage {}: {} fileset(s), {} matching their finished segment's metadata, {} finding(s)",
            escape::text(&s.root.display().to_string()),
            s.filesets.len(),
            s.verified_count,
            s.findings.len()
        ),
    )?;
    for f in &s.findings {
        w(out, &format!("  {} {}: {}", f.kind, escape::text(&f.path.display().to_string()), escape::text(&f.what)))?;
    }
    Ok(())
}

#[derive(Serialize)]
struct MetadataPartitionWire<'a> {
    #[serde(rename = "type")]
    kind: &'static str,
    partition: i32,
    dir: Shown<'a>,
    log_end_offset: i64,
    high_watermark: Option<i64>,
    records_read: u64,
}

#[derive(Serialize)]
struct SegmentWire<'a> {
    #[serde(rename = "type")]
    kind: &'static str,
    topic: &'a str,
    partition: i32,
    topic_id: String,
    segment_id: String,
    start_offset: i64,
    end_offset: i64,
    segment_leader_epochs: Vec<crate::output::json::EpochStart>,
    state: &'static str,
    broker_id: i32,
    segment_size_in_bytes: i32,
    max_timestamp_ms: i64,
    event_timestamp_ms: i64,
    txn_index_empty: bool,
}

#[derive(Serialize)]
struct LocalWire<'a> {
    #[serde(rename = "type")]
    kind: &'static str,
    topic: &'a str,
    partition: i32,
    data_dir: Shown<'a>,
    log_start_offset: Option<i64>,
    local_log_start_offset: Option<i64>,
}

#[derive(Serialize)]
struct FindingWire<'a> {
    #[serde(rename = "type")]
    kind: &'static str,
    finding: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    metadata_partition: Option<i32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    offset: Option<i64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    path: Option<Shown<'a>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    segment_id: Option<String>,
    what: &'a str,
}

#[derive(Serialize)]
struct NoteWire<'a> {
    #[serde(rename = "type")]
    kind: &'static str,
    note: &'static str,
    topic: &'a str,
    partition: i32,
    #[serde(skip_serializing_if = "Option::is_none")]
    data_dir: Option<Shown<'a>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    segment_id: Option<&'a str>,
    what: &'a str,
}

#[derive(Serialize)]
struct SummaryWire<'a> {
    #[serde(rename = "type")]
    kind: &'static str,
    records_read: u64,
    decoded_by_name: &'a std::collections::BTreeMap<&'static str, u64>,
    events_applied: u64,
    rejected_count: usize,
    unreadable_count: usize,
    remote_segment_count: usize,
    filesets_count: Option<usize>,
    filesets_verified_count: Option<usize>,
    finding_count: usize,
}

impl<'a> FindingWire<'a> {
    /// A finding with none of its optional fields: the caller sets those it knows.
    fn new(finding: &'a str, what: &'a str) -> FindingWire<'a> {
        FindingWire {
            kind: "finding",
            finding,
            metadata_partition: None,
            offset: None,
            path: None,
            segment_id: None,
            what,
        }
    }
}

pub fn json(out: &mut dyn Write, r: &RemoteReport) -> Result<()> {
    let m = &r.metadata;
    metadata_json(out, r)?;
    for tp in &r.partitions {
        partition_json(out, tp, m.fold.partitions.get(&tp.partition))?;
    }
    if let Some(s) = &r.storage {
        for f in &s.findings {
            line(out, &FindingWire { path: Some(Shown(&f.path)), ..FindingWire::new(f.kind, &f.what) })?;
        }
    }
    crate::output::remote_forecast::json(out, &r.forecasts)?;
    line(
        out,
        &SummaryWire {
            kind: "summary",
            records_read: m.records_read(),
            decoded_by_name: &m.decoded_by_name,
            events_applied: m.fold.events_applied,
            rejected_count: m.fold.rejections.len(),
            unreadable_count: m.unreadable.len(),
            remote_segment_count: m.fold.partitions.values().map(|p| p.segments.len()).sum(),
            filesets_count: r.storage.as_ref().map(|s| s.filesets.len()),
            filesets_verified_count: r.storage.as_ref().map(|s| s.verified_count),
            finding_count: r.finding_count(),
        },
    )
}

/// The metadata topic's partitions read, then every event or state the tiers' fold found
/// wrong, and its notes.
fn metadata_json(out: &mut dyn Write, r: &RemoteReport) -> Result<()> {
    let m = &r.metadata;
    for p in &m.partitions {
        line(
            out,
            &MetadataPartitionWire {
                kind: "metadata_partition",
                partition: p.partition,
                dir: Shown(&p.dir),
                log_end_offset: p.log_end_offset,
                high_watermark: p.high_watermark,
                records_read: p.records_read,
            },
        )?;
    }
    for u in &m.unreadable {
        let at = (Some(u.at.metadata_partition), Some(u.at.offset));
        line(out, &FindingWire { metadata_partition: at.0, offset: at.1, ..FindingWire::new("unreadable", &u.what) })?;
    }
    for rej in &m.fold.rejections {
        let f = FindingWire {
            metadata_partition: Some(rej.at.metadata_partition),
            offset: Some(rej.at.offset),
            segment_id: rej.segment_id.map(|s| base64_url(&s)),
            ..FindingWire::new("rejected", &rej.why)
        };
        line(out, &f)?;
    }
    for seg in r.copies_not_finished() {
        let what = format!(
            "{} offsets {}..{} by broker {}: COPY_SEGMENT_STARTED only",
            seg.partition.dir_name(),
            seg.start_offset,
            seg.end_offset,
            seg.broker_id
        );
        line(
            out,
            &FindingWire { segment_id: Some(seg.segment_id_text()), ..FindingWire::new("copy-not-finished", &what) },
        )?;
    }
    for n in &r.notes() {
        let wire = NoteWire {
            kind: "note",
            note: n.kind,
            topic: &n.partition.topic,
            partition: n.partition.partition,
            data_dir: n.data_dir.as_deref().map(Shown),
            segment_id: n.segment_id.as_deref(),
            what: &n.what,
        };
        line(out, &wire)?;
    }
    for g in r.tier_gaps() {
        let what = format!(
            "{} offsets {}..{} are neither in a finished remote segment nor local",
            g.partition.dir_name(),
            g.first_missing_offset,
            g.local_log_start_offset - 1
        );
        line(out, &FindingWire { path: Some(Shown(&g.data_dir)), ..FindingWire::new("tier-gap", &what) })?;
    }
    Ok(())
}

/// One tiered partition: its log start and local log start in each dir, then its remote
/// segments (when the metadata holds any).
fn partition_json(out: &mut dyn Write, tp: &TieredPartition, p: Option<&PartitionRemoteMetadata>) -> Result<()> {
    for side in &tp.local {
        line(
            out,
            &LocalWire {
                kind: "local",
                topic: &tp.partition.topic,
                partition: tp.partition.partition,
                data_dir: Shown(&side.data_dir),
                log_start_offset: side.log_start_offset,
                local_log_start_offset: side.local_log_start_offset,
            },
        )?;
    }
    let Some(p) = p else { return Ok(()) };
    for s in p.table() {
        line(
            out,
            &SegmentWire {
                kind: "remote_segment",
                topic: &tp.partition.topic,
                partition: tp.partition.partition,
                topic_id: tp.partition.topic_id_text(),
                segment_id: s.segment_id_text(),
                start_offset: s.start_offset,
                end_offset: s.end_offset,
                segment_leader_epochs: s
                    .segment_leader_epochs
                    .iter()
                    .map(|&(leader_epoch, start_offset)| crate::output::json::EpochStart { leader_epoch, start_offset })
                    .collect(),
                state: s.state.name(),
                broker_id: s.broker_id,
                segment_size_in_bytes: s.segment_size_in_bytes,
                max_timestamp_ms: s.max_timestamp_ms,
                event_timestamp_ms: s.event_timestamp_ms,
                txn_index_empty: s.txn_index_empty,
            },
        )?;
    }
    Ok(())
}
