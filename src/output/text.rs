//! Plain-text renderings of command reports.

use super::table;
use super::Settings;
use crate::commands::append::AppendReport;
use crate::commands::check::CheckReport;
use crate::commands::elect::ElectReport;
use crate::error::{IoContext, Result};
use crate::log::recovery::RecoveryReport;
use crate::replica::ReplicaPaths;
use std::io::Write;

macro_rules! out {
    ($out:expr, $($arg:tt)*) => {
        writeln!($out, $($arg)*).at("<stdout>", "write")
    };
}

pub fn created(out: &mut dyn Write, p: &ReplicaPaths) -> Result<()> {
    out!(out, "created {} with partition {} (empty, LEO 0)", p.log_dir.display(), p.name())
}

/// How a stopped replica came back up (printed by any mutating command that started it).
pub fn startup(out: &mut dyn Write, dir: &str, r: &RecoveryReport, settings: &Settings) -> Result<()> {
    let p = settings.palette();
    if r.clean_shutdown && r.segments.is_empty() {
        return out!(out, "{dir}: started after a clean shutdown (no scan), LEO {}", r.log_end_offset_after);
    }
    recovery(out, dir, r, settings)?;
    let _ = p;
    Ok(())
}

/// The local-recovery report: what was scanned, cut and rebuilt.
pub fn recovery(out: &mut dyn Write, dir: &str, r: &RecoveryReport, settings: &Settings) -> Result<()> {
    let p = settings.palette();
    let how = if r.clean_shutdown { "after a clean shutdown" } else { "after an unclean shutdown" };
    out!(
        out,
        "{dir}: local recovery {how}: recovery point {}, scanned {} segment(s)",
        r.recovery_point_before,
        r.segments.len()
    )?;
    for s in &r.segments {
        let cut = match &s.invalid_at {
            Some((pos, why)) => format!(", {} at position {pos}: {why}", p.bad("stopped")),
            None => String::new(),
        };
        out!(
            out,
            "  segment {}: {} valid batch(es), {} valid bytes{cut}; indexes rebuilt ({} offset, {} time entries)",
            s.base_offset,
            s.batches_valid,
            s.valid_bytes,
            s.index_entries,
            s.time_index_entries
        )?;
    }
    for c in &r.cut {
        match (c.base_offset, c.last_offset) {
            (Some(b), Some(l)) => out!(
                out,
                "  {} batch {b}..={l} (epoch {}) at position {} of segment {}, {} bytes",
                p.bad("cut"),
                c.partition_leader_epoch.unwrap_or(-1),
                c.position,
                c.segment_base_offset,
                c.size_bytes
            )?,
            _ => out!(
                out,
                "  {} {} bytes at position {} of segment {} (no whole batch)",
                p.bad("cut"),
                c.size_bytes,
                c.position,
                c.segment_base_offset
            )?,
        }
    }
    for d in &r.deleted_segments {
        out!(out, "  {} segment {d}", p.bad("deleted"))?;
    }
    for e in &r.epochs_added {
        out!(out, "  epoch cache: added ({} {})", e.leader_epoch, e.start_offset)?;
    }
    for e in &r.epochs_removed {
        out!(out, "  epoch cache: removed ({} {})", e.leader_epoch, e.start_offset)?;
    }
    let lost = r.log_end_offset_before - r.log_end_offset_after;
    out!(
        out,
        "  LEO {} -> {}{}; {} bytes cut",
        r.log_end_offset_before,
        r.log_end_offset_after,
        if lost > 0 { format!(" ({lost} offsets gone)") } else { String::new() },
        r.bytes_cut()
    )
}

pub fn elected(out: &mut dyn Write, r: &ElectReport, settings: &Settings) -> Result<()> {
    if let Some(s) = &r.startup {
        startup(out, &r.replica, s, settings)?;
    }
    let p = settings.palette();
    let entry = match r.epoch_entry {
        Some((e, o)) => format!("epoch cache +({e} {o})"),
        None => "epoch cache entry deferred to the first append".into(),
    };
    let isr = if r.isr.is_empty() { "leader only".to_string() } else { r.isr.join(", ") };
    out!(
        out,
        "{} is {} at epoch {} (ISR: {isr}); {entry}; LEO {}, HW {}",
        r.replica,
        p.good("leader"),
        p.epoch(r.leader_epoch, &r.leader_epoch.to_string()),
        r.log_end_offset,
        r.high_watermark
    )
}

pub fn appended(out: &mut dyn Write, dir: &str, r: &AppendReport, settings: &Settings) -> Result<()> {
    if let Some(s) = &r.startup {
        startup(out, dir, s, settings)?;
    }
    let p = settings.palette();
    let first = r.batches.first().map_or(0, |b| b.0);
    let last = r.batches.last().map_or(0, |b| b.1);
    let offsets = if first == last { format!("offset {first}") } else { format!("offsets {first}..={last}") };
    out!(
        out,
        "appended {} record(s) at {offsets} in {} batch(es) of epoch {} ({} bytes){}{}; LEO {}, HW {}",
        r.records,
        r.batches.len(),
        p.epoch(r.leader_epoch, &r.leader_epoch.to_string()),
        r.bytes,
        if r.segments_rolled > 0 { format!(", {} segment roll(s)", r.segments_rolled) } else { String::new() },
        if r.flushed { ", flushed" } else { "" },
        r.log_end_offset,
        r.high_watermark
    )
}

pub fn check(out: &mut dyn Write, r: &CheckReport, settings: &Settings) -> Result<()> {
    let p = settings.palette();
    table::summary_lines(out, &r.summary, settings)?;
    for f in &r.findings {
        let at = match (f.position, f.offset) {
            (Some(pos), Some(o)) => format!(" at position {pos} (offset {o})"),
            (Some(pos), None) => format!(" at position {pos}"),
            (None, Some(o)) => format!(" (offset {o})"),
            (None, None) => String::new(),
        };
        out!(out, "{} {}{at}: {}", p.bad("finding"), f.path.display(), f.what)?;
    }
    for n in &r.notes {
        out!(out, "{} {n}", p.warn("note"))?;
    }
    let verdict = if r.is_clean() { p.good("clean") } else { p.bad(&format!("{} finding(s)", r.findings.len())) };
    out!(
        out,
        "checked {} segment(s), {} batch(es), {} record(s), {} bytes: {verdict}",
        r.segment_count,
        r.batch_count,
        r.record_count,
        r.bytes_checked
    )
}
