//! Renderers of the recover and diff reports: text (a table of records) and one JSON document.

use super::palette::Tone;
use super::table::{self, Col, Grid};
use super::{display_bytes, epoch_cache, Settings};
use crate::commands::diff::DiffReport;
use crate::commands::recover::{AssumedLeader, FollowerRecoverReport, LocalRecoverReport, RecordClass, RecordRow};
use crate::error::{IoContext, Result};
use crate::kraft::MetadataPosition;
use crate::replication::diff::{DiffOutcome, OwnedRecord, RangeKind};
use crate::replication::truncation::{ReplicaView, TruncationReason};
use comfy_table::Cell;
use serde_json::{json, Value};
use std::io::Write;

macro_rules! out {
    ($out:expr, $($arg:tt)*) => {
        writeln!($out, $($arg)*).at("<stdout>", "write")
    };
}

pub fn local_text(out: &mut dyn Write, r: &LocalRecoverReport, settings: &Settings) -> Result<()> {
    let dry = if r.dry_run { "dry run: nothing changed" } else { "" };
    match &r.recovery {
        None => out!(out, "{}: running, and its log ends with a whole batch: nothing to recover", r.dir),
        Some(rec) => {
            super::text::recovery(out, &r.dir, rec, settings)?;
            if !dry.is_empty() {
                out!(out, "{dry}")?;
            }
            Ok(())
        }
    }
}

pub fn local_json(out: &mut dyn Write, r: &LocalRecoverReport) -> Result<()> {
    let v = json!({
        "type": "local_recovery",
        "dir": r.dir,
        "dry_run": r.dry_run,
        "was_running": r.was_running,
        "recovery": r.recovery.as_ref().map(recovery_json),
    });
    writeln!(out, "{v}").at("<stdout>", "write")
}

pub fn recovery_json(r: &crate::log::recovery::RecoveryReport) -> Value {
    json!({
        "clean_shutdown": r.clean_shutdown,
        "recovery_point_before": r.recovery_point_before,
        "log_end_offset_before": r.log_end_offset_before,
        "log_end_offset_after": r.log_end_offset_after,
        "served_unverified": r.served_unverified().map(|(from, end)| json!({"from": from, "to": end - 1})),
        "bytes_cut": r.bytes_cut(),
        "segments": r.segments.iter().map(|s| json!({
            "base_offset": s.base_offset, "valid_batches": s.batches_valid, "valid_bytes": s.valid_bytes,
            "truncated_bytes": s.truncated_bytes,
            "invalid_at": s.invalid_at.as_ref().map(|(p, w)| json!({"position": p, "why": w})),
            "index_entries": s.index_entries, "time_index_entries": s.time_index_entries,
        })).collect::<Vec<_>>(),
        "cut": r.cut.iter().map(|c| json!({
            "segment": c.segment_base_offset, "position": c.position, "bytes": c.size_bytes,
            "base_offset": c.base_offset, "last_offset": c.last_offset, "leader_epoch": c.partition_leader_epoch,
        })).collect::<Vec<_>>(),
        "deleted_segments": r.deleted_segments,
        "epochs_added": r.epochs_added.iter().map(|e| json!([e.leader_epoch, e.start_offset])).collect::<Vec<_>>(),
        "epochs_removed": r.epochs_removed.iter().map(|e| json!([e.leader_epoch, e.start_offset])).collect::<Vec<_>>(),
        "log_start_offset_after": r.log_start_offset_after,
        "segments_after": r.segments_after.iter().map(|(b, size)| json!({"base_offset": b, "size": size})).collect::<Vec<_>>(),
        "epochs_after": r.epochs_after.iter().map(|e| json!([e.leader_epoch, e.start_offset])).collect::<Vec<_>>(),
        "bytes_removed": r.bytes_removed,
        "producer_state": {
            "snapshot_offset": r.producer_state.snapshot_offset,
            "scan_from_offset": r.producer_state.scan_from_offset,
            "scan_bytes": r.producer_state.scan_bytes,
            // What the load does to the producer snapshots, in order.
            "snapshots": r.snapshot_ops.iter().map(|op| match op {
                crate::log::producer_state::SnapshotOp::Delete(name) => json!({"delete": name}),
                crate::log::producer_state::SnapshotOp::Write(name, bytes) => json!({"write": name, "bytes": bytes.len()}),
            }).collect::<Vec<_>>(),
        },
    })
}

fn class_cell(settings: &Settings, row: &RecordRow) -> Cell {
    let p = settings.palette();
    match row.class {
        // Kept by the cut past what the leader holds, but acknowledged: the leader has lost it
        // (the pictures' ACK-LOST), and the next fetch cuts it from the follower too.
        RecordClass::Kept if row.acked && row.leader.is_none() => {
            p.cell("kept, not on leader (acked, lost)", Tone::Bad)
        }
        RecordClass::Kept => p.cell("kept", Tone::Good),
        RecordClass::Diverged if row.acked => p.cell("DIVERGED (acked, lost from leader)", Tone::Bad),
        RecordClass::Diverged => p.cell("DIVERGED", Tone::Bad),
        RecordClass::TruncatedRefetchable if row.acked => p.cell("truncated, refetchable (acked)", Tone::Bad),
        RecordClass::TruncatedRefetchable => p.cell("truncated, refetchable", Tone::Warn),
        RecordClass::TruncatedLost => p.cell("truncated, lost", Tone::Warn),
        RecordClass::AckedLost => p.cell("ACKED LOST", Tone::Bad),
        RecordClass::BelowLeaderStart => p.cell("removed: below leader's log start", Tone::Warn),
    }
}

fn record_text(r: &OwnedRecord) -> String {
    let key = r.key.as_deref().map(|k| format!("{}=", display_bytes(Some(k), 12))).unwrap_or_default();
    format!("{key}{}", display_bytes(r.value.as_deref(), 24))
}

fn view_text(v: &ReplicaView) -> String {
    let entries = v.epochs.entries();
    let pairs = |es: &[crate::log::epoch_cache::EpochEntry]| {
        es.iter().map(|e| (e.leader_epoch, e.start_offset)).collect::<Vec<_>>()
    };
    let cache = if entries.len() <= 8 {
        epoch_cache::entries(pairs(entries))
    } else {
        let head = epoch_cache::entries(pairs(&entries[..3]));
        let tail = epoch_cache::entries(pairs(&entries[entries.len() - 3..]));
        format!("{} ... {} more ... {}", head.trim_end_matches(']'), entries.len() - 6, tail.trim_start_matches('['))
    };
    format!("LEO {} HW {} epoch cache {cache}", v.log_end_offset, v.high_watermark)
}

pub fn follower_text(out: &mut dyn Write, r: &FollowerRecoverReport, settings: &Settings) -> Result<()> {
    let p = settings.palette();
    out!(
        out,
        "{} {} as a follower of {} (leader epoch {}) — mode {} ({}){}",
        p.strong("recover"),
        r.follower_dir,
        r.leader_dir,
        r.leader_epoch,
        p.strong(r.mode.name()),
        r.rules.describe_release(),
        if r.dry_run { ", DRY RUN: nothing changed" } else { "" }
    )?;
    if let Some(local) = &r.local {
        super::text::startup(out, &r.follower_dir, local, settings)?;
    }
    out!(out, "  assumed:  leader epoch {} ({})", r.leader_epoch, r.assumed.sentence())?;
    out!(out, "  leader:   {}", view_text(&r.leader_view))?;
    out!(out, "  follower: {}", view_text(&r.follower_view))?;
    out!(out, "            (epoch cache entries: {})", epoch_cache::KEY)?;
    for (i, t) in r.plan.round_trips.iter().enumerate() {
        let answer = match t.answered_epoch {
            Some(e) if t.answered_end_offset < 0 => format!("epoch {e}, offset UNDEFINED"),
            Some(e) => format!("epoch {e}, end offset {}", t.answered_end_offset),
            None if t.answered_end_offset < 0 => "offset UNDEFINED".to_string(),
            None => format!("end offset {}", t.answered_end_offset),
        };
        let (request, answer) = if t.in_fetch_response {
            let answer = match t.reason {
                TruncationReason::OutOfRangeLeaderEnd | TruncationReason::OutOfRangeKept => {
                    format!("OFFSET_OUT_OF_RANGE (leader LEO {})", r.leader_view.log_end_offset)
                }
                TruncationReason::NotDiverging => "no diverging epoch".to_string(),
                _ => format!("diverging {answer}"),
            };
            (format!("Fetch(offset {}, last fetched epoch {})", t.follower_log_end_offset, t.requested_epoch), answer)
        } else {
            (format!("OffsetsForLeaderEpoch(epoch {})", t.requested_epoch), answer)
        };
        out!(
            out,
            "  round trip {}: {request} -> {answer}; truncate to {}{}: {}",
            i + 1,
            t.truncate_to,
            if t.done { "" } else { " and ask again" },
            t.reason.describe()
        )?;
    }
    if r.plan.round_trips.is_empty() {
        out!(out, "  no round trip: {}", r.plan.reason.describe())?;
    }
    let removed = r.offsets_removed();
    out!(
        out,
        "  truncation point {}{}: LEO {} -> {}, HW {} -> {}{}",
        r.plan.truncation_offset,
        if r.cut_offset != r.plan.truncation_offset {
            format!(" (cut at batch boundary {})", r.cut_offset)
        } else {
            String::new()
        },
        r.follower_view.log_end_offset,
        r.follower_log_end_offset_after,
        r.follower_view.high_watermark,
        r.follower_high_watermark_after,
        match removed {
            0 => ", nothing removed".to_string(),
            1 => ", 1 offset removed".to_string(),
            n => format!(", {n} offsets removed"),
        }
    )?;
    if let Some(start) = r.plan.restart_at_leader_start {
        out!(
            out,
            "  {} {start} is the leader's log start, above the truncation point: the follower's \
             first fetch is out of range, so it deletes its whole log and starts at {start}",
            p.warn("full truncation:")
        )?;
    }
    if r.kept_below_window > 0 {
        out!(out, "  ({} offsets before the window below are kept and not shown)", r.kept_below_window)?;
    }
    if !r.rows.is_empty() {
        let mut t = Grid::new(
            settings,
            &[
                Col::Keep("offset"),
                Col::Keep("epoch"),
                Col::Flex("follower record"),
                Col::Flex("leader has"),
                Col::Verdict("fate"),
            ],
        );
        for row in &r.rows {
            let leader = match &row.leader {
                None => p.cell("nothing", Tone::Dim),
                Some(l) if l.same_batch(&row.follower) => p.cell("same", Tone::Dim),
                Some(l) => Cell::new(format!("{} (e{})", record_text(l), l.leader_epoch)),
            };
            t.add(vec![
                table::right(row.follower.offset),
                table::epoch_cell(&p, row.follower.leader_epoch),
                Cell::new(record_text(&row.follower)),
                leader,
                class_cell(settings, row),
            ]);
        }
        t.write(out)?;
        if r.rows_omitted > 0 {
            out!(out, "  ... {} more record(s) not shown (counted below)", r.rows_omitted)?;
        }
    }
    let c = &r.counts;
    let diverged = match r.first_divergent_offset {
        Some(o) => p.bad(&format!("logs diverge at offset {o}")),
        None => p.good("no divergence in what is kept"),
    };
    out!(
        out,
        "{} kept {}, truncated refetchable {}, truncated lost {}, {} {}, {} {}{}; {diverged}",
        p.strong("summary:"),
        c.kept,
        c.truncated_refetchable,
        c.truncated_lost,
        p.bad("acked lost"),
        c.acked_and_lost(),
        p.bad("diverged"),
        c.diverged,
        if c.diverged_acked > 0 { format!(" ({} of them acked)", c.diverged_acked) } else { String::new() },
    )?;
    if c.below_leader_start > 0 {
        out!(
            out,
            "  and {} removed below the leader's log start (the leader no longer holds them)",
            c.below_leader_start
        )?;
    }
    if !r.committed_by_metadata.is_empty() {
        out!(
            out,
            "  {}: the metadata shows the follower leading epoch(s) {:?} alone in the ISR with min.insync.replicas 1 \
             (the topic's, or Kafka's default: a broker's static setting is not in the dirs): its HW followed its log \
             end, so its records of those epochs were committed as appended, whatever its HW checkpoint says",
            p.warn("note"),
            r.committed_by_metadata
        )?;
    }
    if c.truncated_lost > 0 && r.high_watermark_checkpoint_lags {
        out!(
            out,
            "  {}: \"truncated lost\" counts records above the follower's checkpointed HW {}; a broker writes that \
             checkpoint every replica.high.watermark.checkpoint.interval.ms (5 s by default), so its HW may have \
             been higher and some of them acknowledged: the dirs cannot tell (the producer's acks can)",
            p.warn("note"),
            r.follower_view.high_watermark
        )?;
    }
    Ok(())
}

/// What `--catch-up` fetched after the cut, and whether the logs then agree: shown after the
/// picture of the cut, whose "after" row is the log as the truncation left it.
pub fn catch_up_text(out: &mut dyn Write, r: &FollowerRecoverReport, settings: &Settings) -> Result<()> {
    let p = settings.palette();
    if let Some(f) = &r.catch_up {
        out!(out, "\n{}", p.strong(&format!("{}: catching up from the leader {}", r.follower_dir, r.leader_dir)))?;
        super::text::fetch_rounds(out, f, &r.follower_dir, settings)?;
    }
    if let Some(d) = &r.after_catch_up {
        match d.first_divergent_offset {
            Some(o) => out!(out, "after catching up: {}", p.bad(&format!("the logs still diverge at offset {o}")))?,
            None => out!(out, "after catching up: {}", p.good("the logs agree"))?,
        }
    }
    Ok(())
}

fn owned_json(r: &OwnedRecord) -> Value {
    let (key, key_encoding) = super::json::encode_bytes(r.key.as_deref());
    let (value, value_encoding) = super::json::encode_bytes(r.value.as_deref());
    json!({
        "offset": r.offset, "leader_epoch": r.leader_epoch, "timestamp": r.timestamp,
        "key": key, "key_encoding": key_encoding, "value": value, "value_encoding": value_encoding,
        "batch_base_offset": r.batch_base_offset, "batch_last_offset": r.batch_last_offset, "batch_crc": r.batch_crc,
    })
}

fn view_json(v: &ReplicaView) -> Value {
    json!({
        "log_start_offset": v.log_start_offset,
        "log_end_offset": v.log_end_offset,
        "high_watermark": v.high_watermark,
        "epochs": v.epochs.entries().iter().map(|e| json!({"leader_epoch": e.leader_epoch, "start_offset": e.start_offset})).collect::<Vec<_>>(),
    })
}

pub fn diff_json_value(d: &DiffOutcome) -> Value {
    json!({
        "first_divergent_offset": d.first_divergent_offset,
        "identical": d.identical_up_to_shorter(),
        "ranges": d.ranges.iter().map(|r| json!({"kind": r.kind.name(), "first_offset": r.first_offset, "last_offset": r.last_offset, "records": r.record_count})).collect::<Vec<_>>(),
        "undecodable": d.undecodable.iter().map(|(side, u)| json!({
            "side": if *side == crate::replication::diff::Side::A { "a" } else { "b" },
            "path": u.path.display().to_string(), "position": u.position,
            "base_offset": u.base_offset, "last_offset": u.last_offset, "error": u.error,
        })).collect::<Vec<_>>(),
    })
}

/// Which leader and epoch a follower report assumed, and what the metadata recorded.
pub fn assumed_json(a: &AssumedLeader) -> Value {
    let recorded = a.recorded.as_ref().map(|r| {
        let g = &r.registration;
        json!({
            "metadata_dir": r.metadata_dir.display().to_string(),
            "found": r.found.name(),
            "offset": r.offset(),
            "snapshot_end_offset": match r.position {
                MetadataPosition::Snapshot { end_offset } => Some(end_offset),
                MetadataPosition::Log(_) => None,
            },
            "timestamp": r.timestamp,
            "leader": g.leader,
            "leader_epoch": g.leader_epoch,
            "partition_epoch": g.partition_epoch,
            "replicas": g.replicas,
            "isr": g.isr,
            "elr": g.elr,
            "last_known_elr": g.last_known_elr,
            "leader_recovery_state": g.leader_recovery_state,
        })
    });
    json!({
        "source": a.source.name(),
        "leader_id": a.leader_id,
        "follower_id": a.follower_id,
        "leader_epoch": a.leader_epoch,
        "cached_epoch": a.cached_epoch,
        "recorded": recorded,
        "metadata_names_other_leader": a.other_leader(),
        "metadata_silent": a.metadata_silent.as_ref().map(|d| d.display().to_string()),
        "sentence": a.sentence(),
    })
}

pub fn follower_json(out: &mut dyn Write, r: &FollowerRecoverReport) -> Result<()> {
    writeln!(out, "{}", follower_json_value(r)).at("<stdout>", "write")
}

/// The `recover` document of one follower.
pub fn follower_json_value(r: &FollowerRecoverReport) -> Value {
    let c = &r.counts;
    json!({
        "type": "recover",
        "mode": r.mode.name(),
        "kafka": r.rules.release.to_string(),
        "inter_broker_protocol": r.rules.effective_ibp().map(|i| i.name()),
        "dry_run": r.dry_run,
        "leader": r.leader_dir,
        "follower": r.follower_dir,
        "leader_epoch": r.leader_epoch,
        "leader_epoch_source": r.leader_epoch_source.name(),
        "assumed": assumed_json(&r.assumed),
        "local_recovery": r.local.as_ref().map(recovery_json),
        "leader_view": view_json(&r.leader_view),
        "follower_view": view_json(&r.follower_view),
        "round_trips": r.plan.round_trips.iter().map(|t| json!({
            "requested_epoch": t.requested_epoch,
            "answered_epoch": t.answered_epoch,
            "answered_end_offset": t.answered_end_offset,
            "truncate_to": t.truncate_to,
            "reason": format!("{:?}", t.reason),
            "done": t.done,
            "in_fetch_response": t.in_fetch_response,
        })).collect::<Vec<_>>(),
        "truncation_offset": r.plan.truncation_offset,
        "restart_at_leader_start": r.plan.restart_at_leader_start,
        "reason": format!("{:?}", r.plan.reason),
        "cut_offset": r.cut_offset,
        "follower_log_end_offset_after": r.follower_log_end_offset_after,
        "follower_high_watermark_after": r.follower_high_watermark_after,
        "records": r.rows.iter().map(|row| json!({
            "offset": row.follower.offset,
            "class": row.class.name(),
            "acked": row.acked,
            "follower": owned_json(&row.follower),
            "leader": row.leader.as_ref().map(owned_json),
        })).collect::<Vec<_>>(),
        "records_omitted": r.rows_omitted,
        "kept_below_window": r.kept_below_window,
        "summary": {
            "kept": c.kept,
            "truncated_refetchable": c.truncated_refetchable,
            "truncated_lost": c.truncated_lost,
            "high_watermark_checkpoint_lags": r.high_watermark_checkpoint_lags,
            "committed_by_metadata": r.committed_by_metadata,
            "below_leader_start": c.below_leader_start,
            "acked_lost": c.acked_and_lost(),
            "diverged": c.diverged,
            "diverged_acked": c.diverged_acked,
            "first_divergent_offset": r.first_divergent_offset,
        },
        "catch_up": r.catch_up.as_ref().map(|f| json!({
            "rounds": f.rounds.len(),
            "caught_up": f.caught_up,
            "stuck": f.stuck(),
            "records_copied": f.records_copied(),
        })),
        "after_catch_up": r.after_catch_up.as_ref().map(diff_json_value),
    })
}

pub fn diff_text(out: &mut dyn Write, r: &DiffReport, settings: &Settings) -> Result<()> {
    let p = settings.palette();
    out!(out, "A {} (LEO {}, HW {})", r.a.log_dir.display(), r.a.log_end_offset, super::or_dash(r.a.high_watermark))?;
    out!(out, "B {} (LEO {}, HW {})", r.b.log_dir.display(), r.b.log_end_offset, super::or_dash(r.b.high_watermark))?;
    for w in &r.warnings {
        out!(out, "{}: {w}", p.warn("warning"))?;
    }
    let mut t = Grid::new(settings, &[Col::Keep("offsets"), Col::Keep("records"), Col::Keep("A vs B")]);
    for range in &r.outcome.ranges {
        let kind = match range.kind {
            RangeKind::Agree => p.cell("agree", Tone::Good),
            RangeKind::Differ => p.cell("DIFFER", Tone::Bad),
            RangeKind::OnlyA => p.cell("only in A", Tone::Warn),
            RangeKind::OnlyB => p.cell("only in B", Tone::Warn),
        };
        t.add(vec![
            Cell::new(format!("{} to {}", range.first_offset, range.last_offset)),
            table::right(range.record_count),
            kind,
        ]);
    }
    if !t.is_empty() {
        t.write(out)?;
    }
    for (side, u) in &r.outcome.undecodable {
        let side = if *side == crate::replication::diff::Side::A { "A" } else { "B" };
        out!(
            out,
            "{} in {side}: {} at position {} (offsets {} to {}): {}",
            p.bad("undecodable batch"),
            u.path.display(),
            u.position,
            u.base_offset,
            u.last_offset,
            u.error
        )?;
    }
    match (&r.outcome.first_divergent_offset, &r.outcome.first_difference) {
        (Some(o), None) if r.diverges_at_undecodable_batch() => {
            out!(out, "{} at offset {o}: a batch there does not decode", p.bad("first divergence"))
        }
        (Some(o), Some((a, b))) => out!(
            out,
            "{} at offset {o}: A has {} (epoch {}), B has {} (epoch {})",
            p.bad("first divergence"),
            record_text(a),
            a.leader_epoch,
            record_text(b),
            b.leader_epoch
        ),
        (Some(o), None) => out!(out, "{} at offset {o}: only one side has a record there", p.bad("first divergence")),
        (None, _) if r.a.log_end_offset == r.b.log_end_offset => {
            out!(out, "{}", p.good("identical up to the shorter log end"))
        }
        (None, _) => out!(
            out,
            "{} (A LEO {}, B LEO {}: {} holds {} more offset(s))",
            p.good("identical up to the shorter log end"),
            r.a.log_end_offset,
            r.b.log_end_offset,
            if r.a.log_end_offset > r.b.log_end_offset { "A" } else { "B" },
            (r.a.log_end_offset - r.b.log_end_offset).abs()
        ),
    }
}

pub fn diff_json(out: &mut dyn Write, r: &DiffReport) -> Result<()> {
    let mut v = diff_json_value(&r.outcome);
    v["type"] = json!("diff");
    v["a"] = super::json::replica_json(&r.a);
    v["b"] = super::json::replica_json(&r.b);
    v["warnings"] = json!(r.warnings);
    writeln!(out, "{v}").at("<stdout>", "write")
}
