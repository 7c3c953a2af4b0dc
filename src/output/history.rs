//! `klog history` rendered: per partition, one line per change the metadata recorded (where,
//! when, which record, leader, leader epoch, ISR, ELR, last known ELR, replicas, what changed),
//! then each replica's epoch cache and batch stamps with what disagrees with the timeline; or
//! JSON lines, one object per change and per replica, each with a `type`.

use crate::commands::history::{HistoryReport, HistorySummary, ReplicaEpochs};
use crate::error::{IoContext, Result};
use crate::escape;
use crate::kraft::{MetadataPosition, PartitionChange, NO_LEADER};
use crate::output::iso_timestamp;
use crate::output::json::{line, EpochStart, Shown};
use crate::output::palette::{Palette, Tone};
use crate::output::table::{right, Col, Grid};
use crate::output::Settings;
use comfy_table::{Cell, CellAlignment};
use serde::Serialize;
use std::io::Write;

fn list(ids: &[i32]) -> String {
    let ids: Vec<String> = ids.iter().map(i32::to_string).collect();
    format!("[{}]", ids.join(","))
}

fn position(p: MetadataPosition) -> String {
    match p {
        MetadataPosition::Log(o) => o.to_string(),
        MetadataPosition::Snapshot { end_offset } => format!("snap@{end_offset}"),
    }
}

/// A broker id where `-1` means none (`LeaderAndIsr.NO_LEADER`).
fn leader(id: i32) -> String {
    if id == NO_LEADER {
        "none".to_string()
    } else {
        id.to_string()
    }
}

/// What a change did, in a word (the JSON keeps Kafka's record name).
fn what(c: &PartitionChange) -> &'static str {
    match c.record {
        "PartitionRecord" => "created",
        "PartitionChangeRecord" => "changed",
        "ClearElrRecord" => "ELR cleared",
        "RemoveTopicRecord" => "removed",
        other => other,
    }
}

/// One change's cells: a value this change altered is marked `*`. ELR and last known ELR
/// are left out (`with_elr` false) when no change of the partition ever held one.
fn change_cells(c: &PartitionChange, with_elr: bool, p: &Palette) -> Vec<Cell> {
    let mark = |field: &str, text: String| {
        if c.changed.contains(&field) && c.record != "PartitionRecord" {
            p.cell(format!("{text}*"), Tone::Strong)
        } else {
            Cell::new(text)
        }
    };
    let mut cells = vec![right(position(c.position)), Cell::new(iso_timestamp(c.timestamp)), Cell::new(what(c))];
    match &c.after {
        Some(r) => {
            cells.extend([
                mark("leader", leader(r.leader)).set_alignment(CellAlignment::Right),
                mark("leader_epoch", r.leader_epoch.to_string()).set_alignment(CellAlignment::Right),
                mark("isr", list(&r.isr)),
            ]);
            if with_elr {
                cells.extend([mark("elr", list(&r.elr)), mark("last_known_elr", list(&r.last_known_elr))]);
            }
            cells.push(mark("replicas", list(&r.replicas)));
        }
        None => cells.extend(std::iter::repeat_n(right("-"), if with_elr { 6 } else { 4 })),
    }
    cells
}

fn replica_line(r: &ReplicaEpochs) -> String {
    let id = r.replica_id.map_or("?".to_string(), |i| i.to_string());
    let stamped: Vec<String> = r.stamped.iter().map(|(e, n)| format!("{e}:{n}")).collect();
    let mut line = format!(
        "  replica {id} ({}):\n    epoch cache {}, batch stamps [{}]",
        escape::text(&r.log_dir.display().to_string()),
        super::epoch_cache::entries(r.cache.iter().copied()),
        stamped.join(" ")
    );
    if !r.never_granted.is_empty() {
        line.push_str(&format!("; epochs the controller never granted: {}", list(&r.never_granted)));
    }
    if !r.led_but_not_cached.is_empty() {
        line.push_str(&format!("; led at epochs beyond its epoch cache: {}", list(&r.led_but_not_cached)));
    }
    line
}

/// `a, b, c and 4 more` (names escaped), at most `shown` of them.
fn some_of(names: &[String], shown: usize) -> String {
    let head: Vec<String> = names.iter().take(shown).map(|n| escape::text(n).into_owned()).collect();
    match names.len().saturating_sub(shown) {
        0 => head.join(", "),
        more => format!("{} and {more} more", head.join(", ")),
    }
}

/// The timeline at a glance, before it: at most eight lines, whatever the partition count.
fn summary_text(out: &mut dyn Write, s: &HistorySummary, p: &Palette) -> Result<()> {
    let w = |out: &mut dyn Write, s: &str| writeln!(out, "{s}").at("<stdout>", "write");
    let span = match (s.first_timestamp, s.last_timestamp) {
        (Some(a), Some(b)) => format!(" from {} to {}", iso_timestamp(a), iso_timestamp(b)),
        _ => String::new(),
    };
    w(
        out,
        &format!("{} {} partition(s), {} change(s){span}", p.strong("summary:"), s.partition_count, s.change_count),
    )?;
    w(
        out,
        &format!(
            "  after creation: {} leader change(s) ({} to no leader), {} ISR change(s)",
            s.leader_change_count, s.to_no_leader_count, s.isr_change_count
        ),
    )?;
    if !s.leading.is_empty() {
        let each: Vec<String> = s.leading.iter().map(|(id, n)| format!("broker {id} leads {n}")).collect();
        w(out, &format!("  now: {}", each.join(", ")))?;
    }
    if !s.without_leader.is_empty() {
        let line = format!("  now without a leader: {} ({})", s.without_leader.len(), some_of(&s.without_leader, 3));
        w(out, &p.bad(&line))?;
    }
    if !s.removed.is_empty() {
        w(out, &format!("  removed: {} ({})", s.removed.len(), some_of(&s.removed, 3)))?;
    }
    if !s.never_granted.is_empty() {
        let line = format!(
            "  a replica holds an epoch the controller never granted: {} partition(s) ({})",
            s.never_granted.len(),
            some_of(&s.never_granted, 3)
        );
        w(out, &p.bad(&line))?;
    }
    if !s.led_but_not_cached.is_empty() {
        let line = format!(
            "  a replica led at an epoch its cache never learned: {} partition(s) ({})",
            s.led_but_not_cached.len(),
            some_of(&s.led_but_not_cached, 3)
        );
        w(out, &p.warn(&line))?;
    }
    w(out, "  the timeline of each partition follows (--partition NAME for one; --picture to draw it)")
}

/// The timeline as text: a table per partition, laid out to the width.
pub fn history_text(out: &mut dyn Write, report: &HistoryReport, settings: &Settings) -> Result<()> {
    let p = settings.palette();
    let w = |out: &mut dyn Write, s: &str| writeln!(out, "{s}").at("<stdout>", "write");
    let snapshot = report.snapshot.as_ref().map_or(String::new(), |(p, o)| {
        format!(", snapshot {} (end offset {o}) first", escape::text(&p.display().to_string()))
    });
    let count = report.partitions.len();
    w(
        out,
        &format!(
            "metadata {}{snapshot}: {} records read, {} unreadable, {count} partition{}",
            escape::text(&report.metadata_dir.display().to_string()),
            report.records_read,
            report.unreadable.len(),
            if count == 1 { "" } else { "s" }
        ),
    )?;
    for u in &report.unreadable {
        w(out, &format!("  unreadable record at {}: {}", position(u.position), escape::text(&u.what)))?;
    }
    if !report.partitions.is_empty() {
        summary_text(out, &report.summary(), &p)?;
    }
    if !report.partitions.is_empty() {
        w(out, "(* marks what a change altered; ELR columns only where a partition had one)")?;
    }
    if report.partitions.iter().any(|p| !p.replicas.is_empty()) {
        w(out, &format!("epoch cache: {}; batch stamps: leader-epoch:records", super::epoch_cache::KEY))?;
    }
    for part in &report.partitions {
        w(out, "")?;
        w(out, &p.strong(&escape::text(&part.partition)))?;
        let with_elr = part
            .changes
            .iter()
            .filter_map(|c| c.after.as_ref())
            .any(|r| !r.elr.is_empty() || !r.last_known_elr.is_empty());
        let mut cols = vec![
            Col::Keep("offset"),
            Col::Keep("timestamp"),
            Col::Keep("record"),
            Col::Keep("leader"),
            Col::Keep("epoch"),
        ];
        cols.push(Col::Flex("isr"));
        if with_elr {
            cols.extend([Col::Flex("elr"), Col::Flex("last elr")]);
        }
        cols.push(Col::Flex("replicas"));
        let mut grid = Grid::new(settings, &cols);
        for c in &part.changes {
            grid.add(change_cells(c, with_elr, &p));
        }
        grid.write(out)?;
        for r in &part.replicas {
            w(out, &replica_line(r))?;
        }
    }
    Ok(())
}

/// `{"offset": N}` or `{"snapshot_end_offset": N}`: where in the metadata a record is.
fn position_parts(p: MetadataPosition) -> (Option<i64>, Option<i64>) {
    match p {
        MetadataPosition::Log(o) => (Some(o), None),
        MetadataPosition::Snapshot { end_offset } => (None, Some(end_offset)),
    }
}

#[derive(Serialize)]
struct SnapshotWire<'a> {
    end_offset: i64,
    path: Shown<'a>,
}

#[derive(Serialize)]
struct HistoryWire<'a> {
    metadata_dir: Shown<'a>,
    partitions: usize,
    records_read: u64,
    snapshot: Option<SnapshotWire<'a>>,
    #[serde(rename = "type")]
    kind: &'static str,
}

#[derive(Serialize)]
struct UnreadableWire<'a> {
    #[serde(skip_serializing_if = "Option::is_none")]
    offset: Option<i64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    snapshot_end_offset: Option<i64>,
    #[serde(rename = "type")]
    kind: &'static str,
    what: &'a str,
}

/// One change the metadata recorded; the registration's fields after it when it has one.
#[derive(Serialize)]
struct ChangeWire<'a> {
    changed: &'a [&'static str],
    #[serde(skip_serializing_if = "Option::is_none")]
    elr: Option<&'a [i32]>,
    #[serde(skip_serializing_if = "Option::is_none")]
    isr: Option<&'a [i32]>,
    #[serde(skip_serializing_if = "Option::is_none")]
    last_known_elr: Option<&'a [i32]>,
    #[serde(skip_serializing_if = "Option::is_none")]
    leader: Option<i32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    leader_epoch: Option<i32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    leader_recovery_state: Option<i8>,
    #[serde(skip_serializing_if = "Option::is_none")]
    offset: Option<i64>,
    partition: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    partition_epoch: Option<i32>,
    record: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    replicas: Option<&'a [i32]>,
    #[serde(skip_serializing_if = "Option::is_none")]
    snapshot_end_offset: Option<i64>,
    timestamp: i64,
    #[serde(rename = "type")]
    kind: &'static str,
}

#[derive(Serialize)]
struct StampWire {
    leader_epoch: i32,
    records: u64,
}

#[derive(Serialize)]
struct ReplicaEpochsWire<'a> {
    batch_stamps: Vec<StampWire>,
    epoch_cache: Vec<EpochStart>,
    led_but_not_cached: &'a [i32],
    log_dir: Shown<'a>,
    never_granted: &'a [i32],
    partition: &'a str,
    replica_id: Option<i32>,
    #[serde(rename = "type")]
    kind: &'static str,
}

/// The timeline as JSON lines.
pub fn history_json(out: &mut dyn Write, report: &HistoryReport) -> Result<()> {
    line(
        out,
        &HistoryWire {
            metadata_dir: Shown(&report.metadata_dir),
            partitions: report.partitions.len(),
            records_read: report.records_read,
            snapshot: report.snapshot.as_ref().map(|(p, o)| SnapshotWire { end_offset: *o, path: Shown(p) }),
            kind: "history",
        },
    )?;
    for u in &report.unreadable {
        let (offset, snapshot_end_offset) = position_parts(u.position);
        line(out, &UnreadableWire { offset, snapshot_end_offset, kind: "unreadable_metadata_record", what: &u.what })?;
    }
    for p in &report.partitions {
        for c in &p.changes {
            let (offset, snapshot_end_offset) = position_parts(c.position);
            let r = c.after.as_ref();
            line(
                out,
                &ChangeWire {
                    changed: &c.changed,
                    elr: r.map(|r| &r.elr[..]),
                    isr: r.map(|r| &r.isr[..]),
                    last_known_elr: r.map(|r| &r.last_known_elr[..]),
                    leader: r.map(|r| r.leader),
                    leader_epoch: r.map(|r| r.leader_epoch),
                    leader_recovery_state: r.map(|r| r.leader_recovery_state),
                    offset,
                    partition: &p.partition,
                    partition_epoch: r.map(|r| r.partition_epoch),
                    record: c.record,
                    replicas: r.map(|r| &r.replicas[..]),
                    snapshot_end_offset,
                    timestamp: c.timestamp,
                    kind: "partition_change",
                },
            )?;
        }
        for r in &p.replicas {
            line(
                out,
                &ReplicaEpochsWire {
                    batch_stamps: r
                        .stamped
                        .iter()
                        .map(|&(leader_epoch, records)| StampWire { leader_epoch, records })
                        .collect(),
                    epoch_cache: r
                        .cache
                        .iter()
                        .map(|&(leader_epoch, start_offset)| EpochStart { leader_epoch, start_offset })
                        .collect(),
                    led_but_not_cached: &r.led_but_not_cached,
                    log_dir: Shown(&r.log_dir),
                    never_granted: &r.never_granted,
                    partition: &p.partition,
                    replica_id: r.replica_id,
                    kind: "replica_epochs",
                },
            )?;
        }
    }
    Ok(())
}
