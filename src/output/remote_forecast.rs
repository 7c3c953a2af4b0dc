//! `klog remote`'s forecasts rendered ([`crate::commands::remote_forecast`]): per tiered
//! partition, "if broker N leads" for each broker whose dir was given (segments served,
//! deleted and why, the earliest offset after), what a consumer reads from each offset of the
//! current leader, and the remote records no candidate serves. Or JSON lines with a `type`.

use crate::commands::remote_forecast::{CandidateForecast, PartitionForecast};
use crate::error::{IoContext, Result};
use crate::escape;
use crate::output::json::{line, EpochStart, Shown};
use crate::output::table::{right, Col, Grid};
use crate::output::Settings;
use crate::tiered::lineage::{DeleteCause, ReadRange, ReadSource};
use crate::util::base64_url;
use comfy_table::Cell;
use serde::Serialize;
use std::io::Write;

fn who(c: &CandidateForecast) -> String {
    match c.node_id {
        Some(n) => format!("broker {n}"),
        None => format!("the broker of {}", escape::text(&c.data_dir.display().to_string())),
    }
}

/// Offset ranges merged where they touch: `0..99, 150..199`.
fn merged(mut ranges: Vec<(i64, i64)>) -> String {
    ranges.sort_unstable();
    let mut out: Vec<(i64, i64)> = Vec::new();
    for (a, b) in ranges {
        match out.last_mut() {
            Some(last) if last.1 + 1 >= a => last.1 = last.1.max(b),
            _ => out.push((a, b)),
        }
    }
    let parts: Vec<String> = out.iter().map(|(a, b)| format!("{a}..{b}")).collect();
    parts.join(", ")
}

fn source_text(s: ReadSource) -> String {
    match s {
        ReadSource::Remote { segment_id, end_offset } => {
            format!("remote segment {} (to its end, {end_offset})", base64_url(&segment_id))
        }
        ReadSource::Local => "local log".into(),
        ReadSource::OutOfRange => "nothing: OFFSET_OUT_OF_RANGE".into(),
    }
}

fn causes(c: &CandidateForecast) -> String {
    let mut counts: Vec<(DeleteCause, usize)> = Vec::new();
    for d in &c.forecast.deletions {
        match counts.iter_mut().find(|(k, _)| *k == d.cause) {
            Some((_, n)) => *n += 1,
            None => counts.push((d.cause, 1)),
        }
    }
    counts.sort();
    let parts: Vec<String> = counts.iter().map(|(k, n)| format!("{n} by {}", k.name())).collect();
    parts.join(", ")
}

fn write_line(out: &mut dyn Write, s: &str) -> Result<()> {
    writeln!(out, "{s}").at("<stdout>", "write")
}

pub fn text(out: &mut dyn Write, forecasts: &[PartitionForecast], settings: &Settings) -> Result<()> {
    for f in forecasts {
        if !(f.candidates.is_empty() && f.unforecast.is_empty()) {
            partition_text(out, f, settings)?;
        }
    }
    Ok(())
}

/// One tiered partition: what each broker would do if it led, what a consumer of the current
/// leader reads, and the remote segments no leader would serve or delete.
fn partition_text(out: &mut dyn Write, f: &PartitionForecast, settings: &Settings) -> Result<()> {
    let w = write_line;
    w(out, "")?;
    let bytes = match f.retention_bytes {
        -1 => String::new(),
        b => format!(", retention.bytes {b} from {}", f.retention_bytes_source),
    };
    w(
        out,
        &format!(
            "{} if each broker leads (Kafka 4.4's RemoteLogManager; retention.ms {} from {}{bytes}):",
            escape::text(&f.partition),
            f.retention_ms,
            f.retention_ms_source
        ),
    )?;
    for (i, c) in f.candidates.iter().enumerate() {
        candidate_text(out, c, f.current == Some(i), settings)?;
    }
    for u in &f.unforecast {
        w(
            out,
            &format!("  {}: not forecast: {}", escape::text(&u.data_dir.display().to_string()), escape::text(&u.why)),
        )?;
    }
    consumer_text(out, f, settings)?;
    for (id, start, end) in &f.unlisted {
        w(
            out,
            &format!(
                "  segment {} ({start}..{end}): Kafka's cache lists it under none of its epochs (a later copy \
                 took its start offset): no leader's expiration deletes it",
                base64_url(id)
            ),
        )?;
    }
    if f.served_by_none_count > 0 {
        w(out, &format!("  {} finished remote segment(s) no broker here would serve", f.served_by_none_count))?;
    }
    for s in &f.salvage {
        let what = match (s.first_record_offset, s.last_record_offset) {
            (Some(a), Some(b)) => format!("{} record(s), offsets {a}..{b}", s.record_count),
            _ => "no record".into(),
        };
        let cut = s.unreadable.as_ref().map_or(String::new(), |u| format!(" (read up to: {})", escape::text(u)));
        w(
            out,
            &format!(
                "    salvage: segment {} ({}..{}): {what} still in its remote .log{cut}",
                base64_url(&s.segment_id),
                s.start_offset,
                s.end_offset
            ),
        )?;
    }
    Ok(())
}

/// If broker N leads: its epoch cache and offsets, the remote segments Kafka would delete and
/// why, the earliest offset after, and how many segments it serves.
fn candidate_text(out: &mut dyn Write, c: &CandidateForecast, is_current: bool, settings: &Settings) -> Result<()> {
    let w = write_line;
    let e = &c.forecast;
    let total = e.segments.len();
    let outside = e.segments.iter().filter(|s| s.within_lineage == Some(false)).count();
    let current = if is_current { " (the current leader)" } else { "" };
    let epochs: Vec<String> = c.candidate.epoch_entries.iter().map(|(e, o)| format!("{e}@{o}")).collect();
    w(
        out,
        &format!(
            "  {}{current}: epoch cache {}; log start {}, local log start {}, log end {}",
            who(c),
            if epochs.is_empty() { "empty".to_string() } else { epochs.join(" ") },
            c.candidate.log_start_offset,
            c.candidate.local_log_start_offset,
            c.candidate.log_end_offset
        ),
    )?;
    let deletes = if e.deletions.is_empty() {
        "Kafka deletes no remote segment".to_string()
    } else {
        format!(
            "Kafka deletes {} segment(s), offsets {} ({})",
            e.deletions.len(),
            merged(e.deletions.iter().map(|d| (d.start_offset, d.end_offset)).collect()),
            causes(c)
        )
    };
    w(
        out,
        &format!(
            "    if {} leads, {deletes}; earliest offset after: {}; it serves {} of {total} remote segment(s), \
             {outside} outside its epoch lineage",
            who(c),
            e.log_start_offset_after,
            e.served_count()
        ),
    )?;
    if !e.deletions.is_empty() {
        let mut grid = Grid::new(
            settings,
            &[Col::Ident("deleted segment"), Col::Keep("start"), Col::Keep("end"), Col::Verdict("why")],
        );
        for d in &e.deletions {
            grid.add(vec![
                Cell::new(base64_url(&d.segment_id)),
                right(d.start_offset),
                right(d.end_offset),
                Cell::new(d.cause.name()),
            ]);
        }
        grid.write(out)?;
    }
    Ok(())
}

/// What a consumer reads from each offset of the current leader (when it is among the dirs).
fn consumer_text(out: &mut dyn Write, f: &PartitionForecast, settings: &Settings) -> Result<()> {
    let w = write_line;
    match (f.current, f.metadata_leader) {
        (Some(i), _) => {
            let c = &f.candidates[i];
            w(out, &format!("  what a consumer reads from each offset of the current leader, {}:", who(c)))?;
            let mut grid = Grid::new(settings, &[Col::Keep("from"), Col::Keep("to"), Col::Verdict("answered from")]);
            for r in &c.forecast.reads {
                grid.add(vec![right(r.first_offset), right(r.last_offset), Cell::new(source_text(r.source))]);
            }
            grid.write(out)?;
            let walk: Vec<String> = c.forecast.consumer_from_earliest().iter().map(walk_step).collect();
            w(out, &format!("  a consumer from the earliest offset reads: {}", walk.join(", ")))?;
        }
        (None, Some(l)) => w(out, &format!("  the current leader, broker {l}, is not among the dirs"))?,
        (None, None) => w(out, "  no current leader: no metadata log in the dirs, or it records none")?,
    }
    Ok(())
}

fn walk_step(r: &ReadRange) -> String {
    match r.source {
        ReadSource::Remote { segment_id, .. } => {
            format!("{}..{} (remote {})", r.first_offset, r.last_offset, base64_url(&segment_id))
        }
        ReadSource::Local => format!("{}..{} (local)", r.first_offset, r.last_offset),
        ReadSource::OutOfRange => format!("{}: OFFSET_OUT_OF_RANGE", r.first_offset),
    }
}

#[derive(Serialize)]
struct RangeWire {
    first_offset: i64,
    last_offset: i64,
    source: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    segment_id: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    segment_end_offset: Option<i64>,
}

fn range_wire(r: &ReadRange) -> RangeWire {
    let (source, segment_id, segment_end_offset) = match r.source {
        ReadSource::Remote { segment_id, end_offset } => ("remote", Some(base64_url(&segment_id)), Some(end_offset)),
        ReadSource::Local => ("local", None, None),
        ReadSource::OutOfRange => ("out_of_range", None, None),
    };
    RangeWire { first_offset: r.first_offset, last_offset: r.last_offset, source, segment_id, segment_end_offset }
}

#[derive(Serialize)]
struct VerdictWire {
    segment_id: String,
    start_offset: i64,
    end_offset: i64,
    within_lineage: Option<bool>,
    served: Vec<(i64, i64)>,
}

#[derive(Serialize)]
struct DeletionWire {
    segment_id: String,
    start_offset: i64,
    end_offset: i64,
    cause: &'static str,
}

#[derive(Serialize)]
struct LeaderForecastWire<'a> {
    #[serde(rename = "type")]
    kind: &'static str,
    partition: &'a str,
    broker_id: Option<i32>,
    data_dir: Shown<'a>,
    current_leader: bool,
    epoch_entries: Vec<EpochStart>,
    log_start_offset: i64,
    local_log_start_offset: i64,
    log_end_offset: i64,
    retention_ms: i64,
    retention_ms_source: &'static str,
    retention_bytes: i64,
    retention_bytes_source: &'static str,
    served_segment_count: usize,
    segments: Vec<VerdictWire>,
    deletions: Vec<DeletionWire>,
    remote_log_start_offset: i64,
    log_start_offset_after: i64,
    reads: Vec<RangeWire>,
    consumer_from_earliest: Vec<RangeWire>,
}

#[derive(Serialize)]
struct SalvageWire<'a> {
    #[serde(rename = "type")]
    kind: &'static str,
    partition: &'a str,
    segment_id: String,
    start_offset: i64,
    end_offset: i64,
    first_record_offset: Option<i64>,
    last_record_offset: Option<i64>,
    record_count: u64,
    unreadable: Option<&'a str>,
}

#[derive(Serialize)]
struct UnlistedWire<'a> {
    #[serde(rename = "type")]
    kind: &'static str,
    partition: &'a str,
    segment_id: String,
    start_offset: i64,
    end_offset: i64,
}

#[derive(Serialize)]
struct NoteWire<'a> {
    #[serde(rename = "type")]
    kind: &'static str,
    partition: &'a str,
    data_dir: Shown<'a>,
    what: &'a str,
}

pub fn json(out: &mut dyn Write, forecasts: &[PartitionForecast]) -> Result<()> {
    for f in forecasts {
        for (i, c) in f.candidates.iter().enumerate() {
            line(out, &leader_forecast_wire(f, c, f.current == Some(i)))?;
        }
        for (id, start, end) in &f.unlisted {
            line(
                out,
                &UnlistedWire {
                    kind: "unlisted_segment",
                    partition: &f.partition,
                    segment_id: base64_url(id),
                    start_offset: *start,
                    end_offset: *end,
                },
            )?;
        }
        for u in &f.unforecast {
            line(
                out,
                &NoteWire {
                    kind: "forecast_note",
                    partition: &f.partition,
                    data_dir: Shown(&u.data_dir),
                    what: &u.why,
                },
            )?;
        }
        for s in &f.salvage {
            line(
                out,
                &SalvageWire {
                    kind: "salvage",
                    partition: &f.partition,
                    segment_id: base64_url(&s.segment_id),
                    start_offset: s.start_offset,
                    end_offset: s.end_offset,
                    first_record_offset: s.first_record_offset,
                    last_record_offset: s.last_record_offset,
                    record_count: s.record_count,
                    unreadable: s.unreadable.as_deref(),
                },
            )?;
        }
    }
    Ok(())
}

/// What broker N would do if it led, as one JSON line.
fn leader_forecast_wire<'a>(
    f: &'a PartitionForecast,
    c: &'a CandidateForecast,
    is_current: bool,
) -> LeaderForecastWire<'a> {
    let e = &c.forecast;
    LeaderForecastWire {
        kind: "leader_forecast",
        partition: &f.partition,
        broker_id: c.node_id,
        data_dir: Shown(&c.data_dir),
        current_leader: is_current,
        epoch_entries: c
            .candidate
            .epoch_entries
            .iter()
            .map(|&(leader_epoch, start_offset)| EpochStart { leader_epoch, start_offset })
            .collect(),
        log_start_offset: c.candidate.log_start_offset,
        local_log_start_offset: c.candidate.local_log_start_offset,
        log_end_offset: c.candidate.log_end_offset,
        retention_ms: f.retention_ms,
        retention_ms_source: f.retention_ms_source,
        retention_bytes: f.retention_bytes,
        retention_bytes_source: f.retention_bytes_source,
        served_segment_count: e.served_count(),
        segments: e
            .segments
            .iter()
            .map(|s| VerdictWire {
                segment_id: base64_url(&s.segment_id),
                start_offset: s.start_offset,
                end_offset: s.end_offset,
                within_lineage: s.within_lineage,
                served: s.served.clone(),
            })
            .collect(),
        deletions: e
            .deletions
            .iter()
            .map(|d| DeletionWire {
                segment_id: base64_url(&d.segment_id),
                start_offset: d.start_offset,
                end_offset: d.end_offset,
                cause: d.cause.name(),
            })
            .collect(),
        remote_log_start_offset: e.remote_log_start_offset,
        log_start_offset_after: e.log_start_offset_after,
        reads: e.reads.iter().map(range_wire).collect(),
        consumer_from_earliest: e.consumer_from_earliest().iter().map(range_wire).collect(),
    }
}
