//! Renderers of the recover and diff reports: text (a table of records) and one JSON document.

use super::json::{line, replica_wire, EpochStart, ReplicaWire, Shown};
use super::palette::{Palette, Tone};
use super::table::{self, Col, Grid};
use super::{display_bytes, epoch_cache, Settings};
use crate::commands::diff::DiffReport;
use crate::commands::recover::{AssumedLeader, FollowerRecoverReport, LocalRecoverReport, RecordClass, RecordRow};
use crate::error::Result;
use crate::kraft::MetadataPosition;
use crate::replication::diff::{DiffOutcome, OwnedRecord, RangeKind};
use crate::replication::truncation::{ReplicaView, TruncationReason};
use comfy_table::Cell;
use serde::Serialize;
use std::borrow::Cow;
use std::io::Write;

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

/// `recover --json` of a local recovery: one `local_recovery` document.
#[derive(Serialize)]
struct LocalRecoveryDoc<'a> {
    dir: &'a str,
    dry_run: bool,
    recovery: Option<RecoveryWire<'a>>,
    #[serde(rename = "type")]
    kind: &'static str,
    was_running: bool,
}

pub fn local_json(out: &mut dyn Write, r: &LocalRecoverReport) -> Result<()> {
    let doc = LocalRecoveryDoc {
        dir: &r.dir,
        dry_run: r.dry_run,
        recovery: r.recovery.as_ref().map(recovery_wire),
        kind: "local_recovery",
        was_running: r.was_running,
    };
    line(out, &doc)
}

/// A range of offsets, both ends included: `{"from": 5, "to": 9}`.
#[derive(Serialize)]
pub(super) struct FromTo {
    pub from: i64,
    pub to: i64,
}

#[derive(Serialize)]
struct InvalidAtWire<'a> {
    position: u64,
    why: &'a str,
}

#[derive(Serialize)]
struct SegmentRecoveryWire<'a> {
    base_offset: i64,
    index_entries: u64,
    invalid_at: Option<InvalidAtWire<'a>>,
    time_index_entries: u64,
    truncated_bytes: u64,
    valid_batches: u64,
    valid_bytes: u64,
}

#[derive(Serialize)]
struct CutWire {
    base_offset: Option<i64>,
    bytes: u64,
    last_offset: Option<i64>,
    leader_epoch: Option<i32>,
    position: u64,
    segment: i64,
}

#[derive(Serialize)]
struct SegmentSizeWire {
    base_offset: i64,
    size: u64,
}

/// What the load does to one producer snapshot: `{"delete": NAME}` or `{"bytes": N, "write": NAME}`.
#[derive(Serialize)]
#[serde(untagged)]
enum SnapshotOpWire<'a> {
    Delete { delete: &'a str },
    Write { bytes: usize, write: &'a str },
}

#[derive(Serialize)]
struct ProducerStateWire<'a> {
    scan_bytes: u64,
    scan_from_offset: i64,
    snapshot_offset: Option<i64>,
    /// What the load does to the producer snapshots, in order.
    snapshots: Vec<SnapshotOpWire<'a>>,
}

/// A local recovery (`RecoveryReport`). Nested as `recovery` in other documents; on its own
/// line (`fetch --json`) it carries `type` and `replica` too.
#[derive(Serialize)]
pub(super) struct RecoveryWire<'a> {
    bytes_cut: u64,
    bytes_removed: u64,
    clean_shutdown: bool,
    cut: Vec<CutWire>,
    deleted_segments: &'a [i64],
    epochs_added: Vec<(i32, i64)>,
    epochs_after: Vec<(i32, i64)>,
    epochs_removed: Vec<(i32, i64)>,
    log_end_offset_after: i64,
    log_end_offset_before: i64,
    log_start_offset_after: i64,
    producer_state: ProducerStateWire<'a>,
    recovery_point_before: i64,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub replica: Option<&'static str>,
    segments: Vec<SegmentRecoveryWire<'a>>,
    segments_after: Vec<SegmentSizeWire>,
    served_unverified: Option<FromTo>,
    #[serde(rename = "type", skip_serializing_if = "Option::is_none")]
    pub kind: Option<&'static str>,
}

fn epoch_pairs(entries: &[crate::log::epoch_cache::EpochEntry]) -> Vec<(i32, i64)> {
    entries.iter().map(|e| (e.leader_epoch, e.start_offset)).collect()
}

pub(super) fn recovery_wire(r: &crate::log::recovery::RecoveryReport) -> RecoveryWire<'_> {
    use crate::log::producer_state::SnapshotOp;
    RecoveryWire {
        bytes_cut: r.bytes_cut(),
        bytes_removed: r.bytes_removed,
        clean_shutdown: r.clean_shutdown,
        cut: r
            .cut
            .iter()
            .map(|c| CutWire {
                base_offset: c.base_offset,
                bytes: c.size_bytes,
                last_offset: c.last_offset,
                leader_epoch: c.partition_leader_epoch,
                position: c.position,
                segment: c.segment_base_offset,
            })
            .collect(),
        deleted_segments: &r.deleted_segments,
        epochs_added: epoch_pairs(&r.epochs_added),
        epochs_after: epoch_pairs(&r.epochs_after),
        epochs_removed: epoch_pairs(&r.epochs_removed),
        log_end_offset_after: r.log_end_offset_after,
        log_end_offset_before: r.log_end_offset_before,
        log_start_offset_after: r.log_start_offset_after,
        producer_state: ProducerStateWire {
            scan_bytes: r.producer_state.scan_bytes,
            scan_from_offset: r.producer_state.scan_from_offset,
            snapshot_offset: r.producer_state.snapshot_offset,
            snapshots: r
                .snapshot_ops
                .iter()
                .map(|op| match op {
                    SnapshotOp::Delete(name) => SnapshotOpWire::Delete { delete: name },
                    SnapshotOp::Write(name, bytes) => SnapshotOpWire::Write { bytes: bytes.len(), write: name },
                })
                .collect(),
        },
        recovery_point_before: r.recovery_point_before,
        replica: None,
        segments: r
            .segments
            .iter()
            .map(|s| SegmentRecoveryWire {
                base_offset: s.base_offset,
                index_entries: s.index_entries,
                invalid_at: s.invalid_at.as_ref().map(|(position, why)| InvalidAtWire { position: *position, why }),
                time_index_entries: s.time_index_entries,
                truncated_bytes: s.truncated_bytes,
                valid_batches: s.batches_valid,
                valid_bytes: s.valid_bytes,
            })
            .collect(),
        segments_after: r
            .segments_after
            .iter()
            .map(|&(base_offset, size)| SegmentSizeWire { base_offset, size })
            .collect(),
        served_unverified: r.served_unverified().map(|(from, end)| FromTo { from, to: end - 1 }),
        kind: None,
    }
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
    round_trips_text(out, r)?;
    truncation_text(out, r, &p)?;
    if !r.rows.is_empty() {
        records_table(out, r, settings)?;
    }
    summary_text(out, r, &p)
}

/// Each round trip of the follower's truncation: what it asked, what the leader answered, where
/// it truncates and why.
fn round_trips_text(out: &mut dyn Write, r: &FollowerRecoverReport) -> Result<()> {
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
    Ok(())
}

/// The truncation point and the follower's LEO and HW across it, with how it restarts.
fn truncation_text(out: &mut dyn Write, r: &FollowerRecoverReport, p: &Palette) -> Result<()> {
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
    if let Some(aux) = &r.plan.from_remote {
        super::tiered_restart::text(out, p, aux, r.plan.truncation_offset, &r.plan.follower_epochs_after)?;
    } else if let Some(start) = r.plan.restart_at_leader_start {
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
    Ok(())
}

/// Each record of the window: the follower's, what the leader has at its offset, its fate.
fn records_table(out: &mut dyn Write, r: &FollowerRecoverReport, settings: &Settings) -> Result<()> {
    let p = settings.palette();
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
    Ok(())
}

/// The counts of each fate, whether the logs diverge, and the notes that qualify them.
fn summary_text(out: &mut dyn Write, r: &FollowerRecoverReport, p: &Palette) -> Result<()> {
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
    if broker_stops_at_first_fetch(r) {
        out!(
            out,
            "  {}: its log still ends past the leader's ({} > {}): its first fetch is OFFSET_OUT_OF_RANGE and {} stops \
             its broker (FatalExitError: unclean.leader.election.enable is false{}; KAFKA-7414, 2.0.1, truncates \
             to the leader's LEO instead)",
            p.bad("the broker stops"),
            r.follower_log_end_offset_after,
            r.leader_view.log_end_offset,
            r.rules.describe_release(),
            if r.rules.release >= crate::replication::release::Release::zero(11, 0, 0) {
                ", Kafka's default from 0.11.0.0"
            } else {
                ""
            }
        )?;
    }
    if !r.committed_by_metadata.is_empty() {
        out!(
            out,
            "  {}: the metadata shows the follower leading epoch(s) {:?} alone in the ISR, the partition's only \
             replica, with min.insync.replicas 1 (the topic's, or Kafka's default: a broker's static setting is not in \
             the dirs): no replica could hold its HW back, so its HW followed its log end and its records of those \
             epochs, and every record below them in its log, were committed as appended, whatever its HW checkpoint \
             says",
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

#[derive(Serialize)]
struct OwnedRecordWire<'a> {
    batch_base_offset: i64,
    batch_crc: u32,
    batch_last_offset: i64,
    key: Option<Cow<'a, str>>,
    key_encoding: Option<&'static str>,
    leader_epoch: i32,
    offset: i64,
    timestamp: i64,
    value: Option<Cow<'a, str>>,
    value_encoding: Option<&'static str>,
}

fn owned_wire(r: &OwnedRecord) -> OwnedRecordWire<'_> {
    let (key, key_encoding) = super::json::encode_bytes(r.key.as_deref());
    let (value, value_encoding) = super::json::encode_bytes(r.value.as_deref());
    OwnedRecordWire {
        batch_base_offset: r.batch_base_offset,
        batch_crc: r.batch_crc,
        batch_last_offset: r.batch_last_offset,
        key,
        key_encoding,
        leader_epoch: r.leader_epoch,
        offset: r.offset,
        timestamp: r.timestamp,
        value,
        value_encoding,
    }
}

#[derive(Serialize)]
struct ViewWire {
    epochs: Vec<EpochStart>,
    high_watermark: i64,
    log_end_offset: i64,
    log_start_offset: i64,
}

fn view_wire(v: &ReplicaView) -> ViewWire {
    ViewWire {
        epochs: v
            .epochs
            .entries()
            .iter()
            .map(|e| EpochStart { leader_epoch: e.leader_epoch, start_offset: e.start_offset })
            .collect(),
        high_watermark: v.high_watermark,
        log_end_offset: v.log_end_offset,
        log_start_offset: v.log_start_offset,
    }
}

#[derive(Serialize)]
struct RangeWire {
    first_offset: i64,
    kind: &'static str,
    last_offset: i64,
    records: u64,
}

#[derive(Serialize)]
struct UndecodableWire<'a> {
    base_offset: i64,
    error: &'a str,
    last_offset: i64,
    path: Shown<'a>,
    position: u64,
    side: &'static str,
}

/// Two logs compared (`DiffOutcome`): nested as `after_catch_up`, or a document of its own
/// (`diff`, or `partition_diff` in the data-dir form) with the fields that name the sides.
#[derive(Serialize)]
pub(super) struct DiffWire<'a> {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub a: Option<ReplicaWire<'a>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub a_log_end_offset: Option<i64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub b: Option<ReplicaWire<'a>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub b_log_end_offset: Option<i64>,
    first_divergent_offset: Option<i64>,
    identical: bool,
    /// `diff --from/--to/--since/--until`: the offsets compared (null: unbounded on that side).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub offsets: Option<OffsetsWire>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub partition: Option<&'a str>,
    ranges: Vec<RangeWire>,
    #[serde(rename = "type", skip_serializing_if = "Option::is_none")]
    pub kind: Option<&'static str>,
    undecodable: Vec<UndecodableWire<'a>>,
    unreadable_segments: Vec<UnreadableWire<'a>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub warnings: Option<&'a [String]>,
}

#[derive(Serialize)]
pub(super) struct OffsetsWire {
    from: Option<i64>,
    to: Option<i64>,
    /// `diff --since/--until` as given (ms since the epoch); `from`/`to` are then the offsets
    /// they came to.
    #[serde(skip_serializing_if = "Option::is_none")]
    since: Option<i64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    until: Option<i64>,
}

#[derive(Serialize)]
struct UnreadableWire<'a> {
    is: &'static str,
    path: Shown<'a>,
    side: &'static str,
}

pub(super) fn diff_wire(d: &DiffOutcome) -> DiffWire<'_> {
    DiffWire {
        a: None,
        a_log_end_offset: None,
        b: None,
        b_log_end_offset: None,
        first_divergent_offset: d.first_divergent_offset,
        identical: d.identical_up_to_shorter(),
        offsets: None,
        partition: None,
        ranges: d
            .ranges
            .iter()
            .map(|r| RangeWire {
                first_offset: r.first_offset,
                kind: r.kind.name(),
                last_offset: r.last_offset,
                records: r.record_count,
            })
            .collect(),
        kind: None,
        undecodable: d
            .undecodable
            .iter()
            .map(|(side, u)| UndecodableWire {
                base_offset: u.base_offset,
                error: &u.error,
                last_offset: u.last_offset,
                path: Shown(&u.path),
                position: u.position,
                side: if *side == crate::replication::diff::Side::A { "a" } else { "b" },
            })
            .collect(),
        unreadable_segments: d
            .unreadable_segments
            .iter()
            .map(|(side, n)| UnreadableWire {
                is: n.kind,
                path: Shown(&n.path),
                side: if *side == crate::replication::diff::Side::A { "a" } else { "b" },
            })
            .collect(),
        warnings: None,
    }
}

#[derive(Serialize)]
struct RecordedWire<'a> {
    elr: &'a [i32],
    found: &'static str,
    isr: &'a [i32],
    last_known_elr: &'a [i32],
    leader: i32,
    leader_epoch: i32,
    leader_recovery_state: i8,
    metadata_dir: Shown<'a>,
    offset: Option<i64>,
    partition_epoch: i32,
    replicas: &'a [i32],
    snapshot_end_offset: Option<i64>,
    timestamp: i64,
}

/// Which leader and epoch a follower report assumed, and what the metadata recorded.
#[derive(Serialize)]
pub(super) struct AssumedWire<'a> {
    cached_epoch: i32,
    follower_id: Option<i32>,
    leader_epoch: i32,
    leader_id: Option<i32>,
    metadata_names_other_leader: Option<i32>,
    metadata_silent: Option<Shown<'a>>,
    recorded: Option<RecordedWire<'a>>,
    sentence: String,
    source: &'static str,
}

pub(super) fn assumed_wire(a: &AssumedLeader) -> AssumedWire<'_> {
    let recorded = a.recorded.as_ref().map(|r| {
        let g = &r.registration;
        RecordedWire {
            elr: &g.elr,
            found: r.found.name(),
            isr: &g.isr,
            last_known_elr: &g.last_known_elr,
            leader: g.leader,
            leader_epoch: g.leader_epoch,
            leader_recovery_state: g.leader_recovery_state,
            metadata_dir: Shown(&r.metadata_dir),
            offset: r.offset(),
            partition_epoch: g.partition_epoch,
            replicas: &g.replicas,
            snapshot_end_offset: match r.position {
                MetadataPosition::Snapshot { end_offset } => Some(end_offset),
                MetadataPosition::Log(_) => None,
            },
            timestamp: r.timestamp,
        }
    });
    AssumedWire {
        cached_epoch: a.cached_epoch,
        follower_id: a.follower_id,
        leader_epoch: a.leader_epoch,
        leader_id: a.leader_id,
        metadata_names_other_leader: a.other_leader(),
        metadata_silent: a.metadata_silent.as_deref().map(Shown),
        recorded,
        sentence: a.sentence(),
        source: a.source.name(),
    }
}

pub fn follower_json(out: &mut dyn Write, r: &FollowerRecoverReport) -> Result<()> {
    line(out, &recover_doc(r))
}

#[derive(Serialize)]
struct RoundTripWire {
    answered_end_offset: i64,
    answered_epoch: Option<i32>,
    done: bool,
    in_fetch_response: bool,
    reason: String,
    requested_epoch: i32,
    truncate_to: i64,
}

#[derive(Serialize)]
struct RecordRowWire<'a> {
    acked: bool,
    class: &'static str,
    follower: OwnedRecordWire<'a>,
    leader: Option<OwnedRecordWire<'a>>,
    offset: i64,
}

/// Before 2.8 (no truncation on fetch): the restarted follower still ends past the leader, so
/// its first fetch is out of range, and its release stops the broker there
/// ([`crate::replication::release::Rules::past_leader_end_halts`]).
fn broker_stops_at_first_fetch(r: &FollowerRecoverReport) -> bool {
    !r.rules.truncation_on_fetch
        && r.rules.past_leader_end_halts()
        && r.plan.restart_at_leader_start.is_none()
        && r.follower_log_end_offset_after > r.leader_view.log_end_offset
}

#[derive(Serialize)]
struct RecoverSummaryWire<'a> {
    acked_lost: u64,
    below_leader_start: u64,
    broker_stops_at_first_fetch: bool,
    committed_by_metadata: &'a [i32],
    diverged: u64,
    diverged_acked: u64,
    first_divergent_offset: Option<i64>,
    high_watermark_checkpoint_lags: bool,
    kept: u64,
    truncated_lost: u64,
    truncated_refetchable: u64,
}

#[derive(Serialize)]
struct CatchUpWire {
    caught_up: bool,
    records_copied: u64,
    rounds: usize,
    stuck: bool,
}

/// The `recover` document of one follower (in the data-dir form, with its `partition`).
#[derive(Serialize)]
pub(super) struct RecoverDoc<'a> {
    after_catch_up: Option<DiffWire<'a>>,
    assumed: AssumedWire<'a>,
    catch_up: Option<CatchUpWire>,
    cut_offset: i64,
    dry_run: bool,
    follower: &'a str,
    follower_high_watermark_after: i64,
    follower_log_end_offset_after: i64,
    follower_view: ViewWire,
    inter_broker_protocol: Option<&'static str>,
    kafka: String,
    kept_below_window: i64,
    leader: &'a str,
    leader_epoch: i32,
    leader_epoch_source: &'static str,
    leader_view: ViewWire,
    local_recovery: Option<RecoveryWire<'a>>,
    mode: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub partition: Option<&'a str>,
    reason: String,
    records: Vec<RecordRowWire<'a>>,
    records_omitted: u64,
    restart_at_leader_start: Option<i64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    from_remote: Option<super::tiered_restart::AuxStateWire>,
    round_trips: Vec<RoundTripWire>,
    summary: RecoverSummaryWire<'a>,
    truncation_offset: i64,
    #[serde(rename = "type")]
    kind: &'static str,
}

pub(super) fn recover_doc(r: &FollowerRecoverReport) -> RecoverDoc<'_> {
    RecoverDoc {
        after_catch_up: r.after_catch_up.as_ref().map(diff_wire),
        assumed: assumed_wire(&r.assumed),
        catch_up: r.catch_up.as_ref().map(|f| CatchUpWire {
            caught_up: f.caught_up,
            records_copied: f.records_copied(),
            rounds: f.rounds.len(),
            stuck: f.stuck(),
        }),
        cut_offset: r.cut_offset,
        dry_run: r.dry_run,
        follower: &r.follower_dir,
        follower_high_watermark_after: r.follower_high_watermark_after,
        follower_log_end_offset_after: r.follower_log_end_offset_after,
        follower_view: view_wire(&r.follower_view),
        inter_broker_protocol: r.rules.effective_ibp().map(|i| i.name()),
        kafka: r.rules.release.to_string(),
        kept_below_window: r.kept_below_window,
        leader: &r.leader_dir,
        leader_epoch: r.leader_epoch,
        leader_epoch_source: r.leader_epoch_source.name(),
        leader_view: view_wire(&r.leader_view),
        local_recovery: r.local.as_ref().map(recovery_wire),
        mode: r.mode.name(),
        partition: None,
        reason: format!("{:?}", r.plan.reason),
        records: r
            .rows
            .iter()
            .map(|row| RecordRowWire {
                acked: row.acked,
                class: row.class.name(),
                follower: owned_wire(&row.follower),
                leader: row.leader.as_ref().map(owned_wire),
                offset: row.follower.offset,
            })
            .collect(),
        records_omitted: r.rows_omitted,
        restart_at_leader_start: r.plan.restart_at_leader_start,
        from_remote: r.plan.from_remote.as_ref().map(|a| super::tiered_restart::wire(a, &r.plan.follower_epochs_after)),
        round_trips: r
            .plan
            .round_trips
            .iter()
            .map(|t| RoundTripWire {
                answered_end_offset: t.answered_end_offset,
                answered_epoch: t.answered_epoch,
                done: t.done,
                in_fetch_response: t.in_fetch_response,
                reason: format!("{:?}", t.reason),
                requested_epoch: t.requested_epoch,
                truncate_to: t.truncate_to,
            })
            .collect(),
        summary: recover_summary_wire(r),
        truncation_offset: r.plan.truncation_offset,
        kind: "recover",
    }
}

/// The counts of `recover`'s JSON summary.
fn recover_summary_wire(r: &FollowerRecoverReport) -> RecoverSummaryWire<'_> {
    let c = &r.counts;
    RecoverSummaryWire {
        acked_lost: c.acked_and_lost(),
        below_leader_start: c.below_leader_start,
        broker_stops_at_first_fetch: broker_stops_at_first_fetch(r),
        committed_by_metadata: &r.committed_by_metadata,
        diverged: c.diverged,
        diverged_acked: c.diverged_acked,
        first_divergent_offset: r.first_divergent_offset,
        high_watermark_checkpoint_lags: r.high_watermark_checkpoint_lags,
        kept: c.kept,
        truncated_lost: c.truncated_lost,
        truncated_refetchable: c.truncated_refetchable,
    }
}

pub fn diff_text(out: &mut dyn Write, r: &DiffReport, settings: &Settings) -> Result<()> {
    let p = settings.palette();
    out!(out, "A {} (LEO {}, HW {})", r.a.log_dir.display(), r.a.log_end_offset, super::or_dash(r.a.high_watermark))?;
    out!(out, "B {} (LEO {}, HW {})", r.b.log_dir.display(), r.b.log_end_offset, super::or_dash(r.b.high_watermark))?;
    for w in &r.warnings {
        out!(out, "{}: {w}", p.warn("warning"))?;
    }
    diff_window_text(out, r)?;
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
    for (side, n) in &r.outcome.unreadable_segments {
        let side = if *side == crate::replication::diff::Side::A { "A" } else { "B" };
        out!(
            out,
            "{} in {side}: {} is {}: its records, if any, are not compared",
            p.bad("unreadable segment"),
            n.path.display(),
            n.kind
        )?;
    }
    verdict_text(out, r, &p)
}

/// The offsets a bounded diff compares, and the flags that bound them.
fn diff_window_text(out: &mut dyn Write, r: &DiffReport) -> Result<()> {
    let (w, t) = (&r.window, &r.times);
    if !t.is_bounded() {
        return match (w.from, w.to) {
            (Some(f), Some(t)) => out!(out, "offsets {f} to {t} only (--from/--to)"),
            (Some(f), None) => out!(out, "offsets from {f} on only (--from)"),
            (None, Some(t)) => out!(out, "offsets up to {t} only (--to)"),
            (None, None) => Ok(()),
        };
    }
    let mut by: Vec<String> = Vec::new();
    if let Some(s) = t.since {
        by.push(format!("--since {}", super::iso_timestamp(s)));
    }
    if let Some(u) = t.until {
        by.push(format!("--until {}", super::iso_timestamp(u)));
    }
    let by = format!("{}, sought in either side's time index", by.join(" "));
    match (w.from, w.to) {
        (f, Some(t)) if t < f.unwrap_or(0) => out!(out, "no offset lies in the window ({by}): nothing compared"),
        (Some(f), Some(t)) => out!(out, "offsets {f} to {t} only ({by})"),
        (Some(f), None) => out!(out, "offsets from {f} on only ({by})"),
        (None, Some(t)) => out!(out, "offsets up to {t} only ({by})"),
        (None, None) => out!(out, "every offset ({by})"),
    }
}

/// How far a bounded diff found the two logs identical: `identical in offsets 100..199`, up
/// to the shorter log end.
fn identical_in_window(out: &mut dyn Write, r: &DiffReport, p: &Palette) -> Result<()> {
    let (leo_a, leo_b) = (r.a.log_end_offset, r.b.log_end_offset);
    let shorter_last = leo_a.min(leo_b) - 1;
    let first = r.outcome.ranges.first().map_or(0, |g| g.first_offset);
    let lo = r.window.from.unwrap_or(first);
    let hi = r.window.to.map_or(shorter_last, |t| t.min(shorter_last));
    if hi < lo {
        return out!(out, "{}", p.good("nothing to compare: no offset of the window is on both sides"));
    }
    if leo_a != leo_b && r.window.to.is_none_or(|t| t > shorter_last) {
        return out!(
            out,
            "{} (A LEO {leo_a}, B LEO {leo_b}: {} holds {} more offset(s))",
            p.good(&format!("identical in offsets {lo}..{hi}")),
            if leo_a > leo_b { "A" } else { "B" },
            (leo_a - leo_b).abs()
        );
    }
    out!(out, "{}", p.good(&format!("identical in offsets {lo}..{hi}")))
}

/// Where the two logs first diverge, or how far they are identical.
fn verdict_text(out: &mut dyn Write, r: &DiffReport, p: &Palette) -> Result<()> {
    match (&r.outcome.first_divergent_offset, &r.outcome.first_difference) {
        (None, _) if !r.outcome.unreadable_segments.is_empty() => {
            out!(out, "{}: a segment file is unreadable", p.bad("not known identical"))
        }
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
        (None, _) if r.window.is_bounded() || r.times.is_bounded() => identical_in_window(out, r, p),
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
    let mut doc = diff_wire(&r.outcome);
    doc.a = Some(replica_wire(&r.a));
    doc.b = Some(replica_wire(&r.b));
    doc.kind = Some("diff");
    doc.warnings = Some(&r.warnings);
    if r.window.is_bounded() || r.times.is_bounded() {
        doc.offsets =
            Some(OffsetsWire { from: r.window.from, to: r.window.to, since: r.times.since, until: r.times.until });
    }
    line(out, &doc)
}
