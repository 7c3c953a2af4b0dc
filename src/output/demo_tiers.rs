//! The tiers scene's own text for `tier copy` and `klog remote` (`klog demo tiers`): the same
//! facts as those commands print, without what changes from run to run (the random segment
//! and topic ids, the wall-clock event times, the temp dir's paths), so that a run reads the
//! same every time and its capture gives the same bytes.

use crate::commands::demo::tiers::RemoteReading;
use crate::commands::demo::Entry;
use crate::error::Result;
use crate::tiered::copy::CopyReport;
use std::io::Write;

fn epochs(e: &[(i32, i64)]) -> String {
    crate::commands::remote::epochs_text(e)
}

fn ranges(r: &[(i64, i64)]) -> String {
    if r.is_empty() {
        return "none".into();
    }
    r.iter().map(|(a, b)| format!("{a}..{b}")).collect::<Vec<_>>().join(", ")
}

fn records(es: &[Entry]) -> String {
    es.iter()
        .map(|e| format!("{} (offset {}, epoch {})", e.value, e.offset, e.leader_epoch))
        .collect::<Vec<_>>()
        .join(", ")
}

/// One run of the copy task: what it copied, from where, below which LSO.
pub fn copied_text(out: &mut dyn Write, r: &CopyReport) -> Result<()> {
    let p = &r.plan;
    let from = if p.highest_remote_offset < 0 {
        "nothing in remote storage yet".to_string()
    } else {
        format!("remote storage holds up to offset {}", p.highest_remote_offset)
    };
    out!(
        out,
        "copy task of broker {} for {}: {from}; LSO {}: copies the closed segments below it",
        r.broker_id,
        r.partition.dir_name(),
        p.last_stable_offset
    )?;
    for c in &r.copied {
        let m = &c.metadata;
        out!(
            out,
            "  segment {}..{} (epochs {}), {} bytes: COPY_SEGMENT_STARTED, {} file(s), COPY_SEGMENT_FINISHED; its \
             .leader_epoch_checkpoint {}",
            m.start_offset,
            m.end_offset,
            epochs(&m.segment_leader_epochs),
            m.segment_size_in_bytes,
            c.files.len(),
            super::epoch_cache::entries(c.epoch_checkpoint.iter().copied())
        )?;
    }
    if r.copied.is_empty() {
        out!(out, "  nothing to copy")?;
    }
    Ok(())
}

/// The scene's reading of `klog remote`: the remote table, what each broker does if it leads,
/// the segments no broker serves, and which acknowledged records are lost and which are still
/// in remote files.
pub fn remote_text(out: &mut dyn Write, r: &RemoteReading) -> Result<()> {
    out!(out, "remote segments (finished):")?;
    for (start, end, e) in &r.segments {
        out!(out, "  {start}..{end}  epochs {}", epochs(e))?;
    }
    out!(out, "if each broker leads (Kafka 4.4's RemoteLogManager):")?;
    for c in &r.candidates {
        let now = if r.leader.as_deref() == Some(c.name.as_str()) { " (the leader now)" } else { "" };
        out!(
            out,
            "  {}{now}: epoch cache {}; log start {}, local log start {}, log end {}",
            c.name,
            epochs(&c.epoch_entries),
            c.log_start_offset,
            c.local_log_start_offset,
            c.log_end_offset
        )?;
        out!(
            out,
            "    serves remote segments {}; outside its epoch lineage: {}; deletes: {}",
            ranges(&c.served),
            ranges(&c.outside),
            ranges(&c.deleted)
        )?;
    }
    if r.served_by_none.is_empty() {
        out!(out, "every finished remote segment is served by some broker here")?;
    } else {
        for (start, end, count) in &r.served_by_none {
            out!(
                out,
                "served by none: segment {start}..{end}; salvage: {count} record(s) still in its remote .log file"
            )?;
        }
    }
    let leader = r.leader.as_deref().unwrap_or("no broker").to_uppercase();
    if r.acked_lost_in_remote_files.is_empty() && r.acked_lost_nowhere.is_empty() {
        out!(out, "every acknowledged record is served by {leader}")?;
    }
    if !r.acked_lost_in_remote_files.is_empty() {
        out!(
            out,
            "acknowledged, not served by {leader}, still in remote files: {}",
            records(&r.acked_lost_in_remote_files)
        )?;
    }
    if !r.acked_lost_nowhere.is_empty() {
        out!(out, "acknowledged and lost, in no file of either tier: {}", records(&r.acked_lost_nowhere))?;
    }
    if r.finding_count > 0 {
        out!(out, "klog remote reports {} finding(s)", r.finding_count)?;
    }
    Ok(())
}
