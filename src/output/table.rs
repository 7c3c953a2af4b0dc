//! Tables for people (comfy-table). Rows are buffered and flushed in chunks so that a dump of
//! any size keeps constant memory; off a terminal the layout does not depend on its width.

use super::{display_bytes, Settings};
use crate::commands::dump::{BatchRow, DumpEvent, EpochAgreement, EpochRow, ReplicaSummary};
use crate::error::{IoContext, Result};
use crate::format::control::{self, ControlRecord};
use crate::format::record::Record;
use crate::log::index::{OffsetEntryCheck, TimeEntryCheck};
use comfy_table::{presets, Cell, CellAlignment, ContentArrangement, Table};
use std::io::Write;

const CHUNK_ROWS: usize = 5000;
const VALUE_CHARS: usize = 40;

pub fn new_table(settings: &Settings, header: &[&str]) -> Table {
    let mut t = Table::new();
    t.load_preset(presets::UTF8_HORIZONTAL_ONLY);
    t.remove_style(comfy_table::TableComponent::HorizontalLines);
    t.remove_style(comfy_table::TableComponent::MiddleIntersections);
    t.remove_style(comfy_table::TableComponent::LeftBorderIntersections);
    t.remove_style(comfy_table::TableComponent::RightBorderIntersections);
    if settings.tty {
        t.set_content_arrangement(ContentArrangement::Dynamic);
    } else {
        t.set_content_arrangement(ContentArrangement::Disabled);
    }
    if !settings.color {
        t.force_no_tty();
    }
    t.set_header(header.iter().map(Cell::new));
    t
}

pub fn right(text: impl ToString) -> Cell {
    Cell::new(text.to_string()).set_alignment(CellAlignment::Right)
}

pub fn write_table(out: &mut dyn Write, table: &Table) -> Result<()> {
    writeln!(out, "{table}").at("<stdout>", "write")
}

pub fn summary_lines(out: &mut dyn Write, s: &ReplicaSummary, settings: &Settings) -> Result<()> {
    let p = settings.palette();
    let epoch = s.leader_epoch.map_or("-".to_string(), |e| p.epoch(e, &e.to_string()));
    let role = match s.role {
        "leader" => p.good(s.role),
        "crashed" => p.bad(s.role),
        _ => p.strong(s.role),
    };
    writeln!(
        out,
        "{} {}-{}  {}  role {role}  leader epoch {epoch}  LEO {}  HW {}  recovery point {}  log start {}  segments {}{}",
        p.strong("replica"),
        s.topic,
        s.partition,
        s.log_dir.display(),
        s.log_end_offset,
        s.high_watermark,
        s.recovery_point,
        s.log_start_offset,
        s.segment_count,
        if s.clean_shutdown { "  (clean shutdown marker)" } else { "" },
    )
    .at("<stdout>", "write")
}

pub fn epochs_table(out: &mut dyn Write, rows: &[EpochRow], settings: &Settings) -> Result<()> {
    let p = settings.palette();
    let mut t = new_table(settings, &["epoch", "start offset", "end offset", "records", "batch stamps"]);
    for r in rows {
        let note = match r.agreement {
            EpochAgreement::Agrees => p.good("agree"),
            EpochAgreement::NoBatchesYet => p.dim("no batches yet (assigned at election)"),
            EpochAgreement::StartDiffers { stamped_start_offset } => {
                p.bad(&format!("DISAGREE: first stamped at {stamped_start_offset}"))
            }
            EpochAgreement::OnlyInCheckpoint => p.warn("no batch carries this epoch"),
            EpochAgreement::OnlyInBatches => p.bad("DISAGREE: stamped on batches, missing from checkpoint"),
        };
        t.add_row(vec![
            right(p.epoch(r.leader_epoch, &r.leader_epoch.to_string())),
            right(r.start_offset),
            right(r.end_offset),
            right(r.record_count),
            Cell::new(note),
        ]);
    }
    if rows.is_empty() {
        writeln!(out, "epoch cache: empty").at("<stdout>", "write")?;
        return Ok(());
    }
    write_table(out, &t)
}

/// Streams dump events into chunked tables.
pub struct DumpTable<'o> {
    out: &'o mut dyn Write,
    settings: Settings,
    table: Option<Table>,
    rows: usize,
    batches_only: bool,
}

impl<'o> DumpTable<'o> {
    pub fn new(out: &'o mut dyn Write, settings: Settings, batches_only: bool) -> Self {
        DumpTable { out, settings, table: None, rows: 0, batches_only }
    }

    fn table(&mut self, header: &[&str]) -> &mut Table {
        if self.table.is_none() {
            self.table = Some(new_table(&self.settings, header));
        }
        self.table.as_mut().expect("table")
    }

    fn flush_table(&mut self) -> Result<()> {
        if let Some(t) = self.table.take() {
            write_table(self.out, &t)?;
        }
        self.rows = 0;
        Ok(())
    }

    fn row(&mut self, header: &[&str], cells: Vec<Cell>) -> Result<()> {
        self.table(header).add_row(cells);
        self.rows += 1;
        if self.rows >= CHUNK_ROWS {
            self.flush_table()?;
        }
        Ok(())
    }

    fn crc_cell(&self, b: &BatchRow) -> Cell {
        let p = self.settings.palette();
        Cell::new(if b.crc_valid { p.good("ok") } else { p.bad("BAD") })
    }

    /// A record's CRC: its batch's, and for a legacy message also its own CRC-32.
    fn record_crc_cell(&self, b: &BatchRow, r: &Record<'_>) -> Cell {
        let p = self.settings.palette();
        let valid = b.crc_valid && r.legacy.is_none_or(|l| l.crc_valid);
        Cell::new(if valid { p.good("ok") } else { p.bad("BAD") })
    }

    pub fn event(&mut self, event: DumpEvent<'_>) -> Result<()> {
        let p = self.settings.palette();
        match event {
            DumpEvent::Replica(s) => summary_lines(self.out, s, &self.settings),
            DumpEvent::Epochs(rows) => epochs_table(self.out, rows, &self.settings),
            DumpEvent::Segment { path, .. } => {
                self.flush_table()?;
                writeln!(self.out, "{} {}", p.strong("segment"), path.display()).at("<stdout>", "write")
            }
            DumpEvent::Batch(b) if self.batches_only => {
                let cells = vec![
                    right(b.base_offset),
                    right(b.last_offset),
                    right(p.epoch(b.partition_leader_epoch, &b.partition_leader_epoch.to_string())),
                    right(b.record_count),
                    right(b.position),
                    right(b.size_bytes),
                    right(b.max_timestamp),
                    Cell::new(b.compression),
                    Cell::new(flags(b)),
                    Cell::new(producer(b)),
                    self.crc_cell(b),
                ];
                self.row(
                    &[
                        "base offset",
                        "last offset",
                        "epoch",
                        "records",
                        "position",
                        "bytes",
                        "max timestamp",
                        "codec",
                        "flags",
                        "producer",
                        "crc",
                    ],
                    cells,
                )
            }
            DumpEvent::Batch(_) => Ok(()),
            DumpEvent::Record(b, r) => {
                let headers = r
                    .headers
                    .iter()
                    .map(|h| format!("{}={}", display_bytes(Some(h.key), 16), display_bytes(h.value, 16)))
                    .collect::<Vec<_>>()
                    .join(" ");
                let (key, value) = if b.is_control {
                    (p.dim("control"), control_text(r.key, r.value))
                } else {
                    let key = match r.key {
                        None => p.dim("null"),
                        k => display_bytes(k, VALUE_CHARS),
                    };
                    let value = match r.value {
                        None => p.dim("null"),
                        v => display_bytes(v, VALUE_CHARS),
                    };
                    (key, value)
                };
                let cells = vec![
                    right(r.offset),
                    right(p.epoch(b.partition_leader_epoch, &b.partition_leader_epoch.to_string())),
                    right(r.timestamp),
                    Cell::new(key),
                    Cell::new(value),
                    Cell::new(headers),
                    self.record_crc_cell(b, r),
                ];
                self.row(&["offset", "epoch", "timestamp", "key", "value", "headers", "crc"], cells)
            }
            DumpEvent::Undecodable(b, why) => {
                self.flush_table()?;
                writeln!(
                    self.out,
                    "{} batch {}..={} at position {}: {why}",
                    p.bad("undecodable"),
                    b.base_offset,
                    b.last_offset,
                    b.position
                )
                .at("<stdout>", "write")
            }
            DumpEvent::Trailing { path, position, len, what } => {
                self.flush_table()?;
                writeln!(
                    self.out,
                    "{} {len} bytes at position {position} of {}: {what}",
                    p.bad("trailing"),
                    path.display()
                )
                .at("<stdout>", "write")
            }
            DumpEvent::File { .. } => Ok(()),
            DumpEvent::IndexEntry { offset, position, check } => {
                let verdict = match check {
                    OffsetEntryCheck::Matches => p.good("ok"),
                    OffsetEntryCheck::NoLog => p.warn("no .log beside the index"),
                    OffsetEntryCheck::Mismatch { log_offset, batch_start } => p.bad(&format!(
                        "MISMATCH: {}",
                        match (log_offset, batch_start) {
                            (Some(o), true) => format!("the batch at this position ends at offset {o}"),
                            (Some(o), false) =>
                                format!("not a batch start (bytes there frame as a batch ending at {o})"),
                            (None, _) => "no batch at this position".to_string(),
                        }
                    )),
                };
                self.row(&["offset", "position", "log"], vec![right(offset), right(position), Cell::new(verdict)])
            }
            DumpEvent::TimeIndexEntry { timestamp, offset, check } => {
                let verdict = match check {
                    TimeEntryCheck::MatchesBatch => p.good("ok (batch last offset)"),
                    TimeEntryCheck::MatchesRecord => p.good("ok (record with the max timestamp, Kafka 2.x form)"),
                    TimeEntryCheck::NoLog => p.warn("no .log beside the index"),
                    TimeEntryCheck::TimestampMismatch { log_timestamp } => {
                        p.bad(&format!("MISMATCH: the log has max timestamp {log_timestamp} there"))
                    }
                    TimeEntryCheck::OutOfOrder { previous_timestamp } => {
                        p.bad(&format!("OUT OF ORDER: not above the previous entry's {previous_timestamp}"))
                    }
                    TimeEntryCheck::NotFound { found_log_offset: Some(o) } => {
                        p.bad(&format!("NOT FOUND: no batch holds it (next batch ends at {o})"))
                    }
                    TimeEntryCheck::NotFound { found_log_offset: None } => p.bad("NOT FOUND: past the log end"),
                };
                self.row(&["timestamp", "offset", "log"], vec![right(timestamp), right(offset), Cell::new(verdict)])
            }
            DumpEvent::TxnIndexEntry(t) => self.row(
                &["version", "producer id", "first offset", "last offset", "last stable offset"],
                vec![
                    right(t.version),
                    right(t.producer_id),
                    right(t.first_offset),
                    right(t.last_offset),
                    right(t.last_stable_offset),
                ],
            ),
            DumpEvent::ProducerSnapshot(s) => {
                let crc = if s.crc_valid() {
                    p.good("ok")
                } else {
                    p.bad(&format!("BAD (computed {:#010x})", s.computed_crc))
                };
                writeln!(
                    self.out,
                    "{} version {}  crc {:#010x} {crc}  {} producer(s)",
                    p.strong("producer snapshot"),
                    s.version,
                    s.crc,
                    s.entries.len()
                )
                .at("<stdout>", "write")
            }
            DumpEvent::ProducerEntry(e) => self.row(
                &[
                    "producer id",
                    "producer epoch",
                    "first seq",
                    "last seq",
                    "last offset",
                    "offset delta",
                    "timestamp",
                    "coordinator epoch",
                    "txn first offset",
                ],
                vec![
                    right(e.producer_id),
                    right(e.producer_epoch),
                    right(e.first_sequence()),
                    right(e.last_sequence),
                    right(e.last_offset),
                    right(e.offset_delta),
                    right(e.timestamp),
                    right(e.coordinator_epoch),
                    right(if e.current_txn_first_offset >= 0 {
                        e.current_txn_first_offset.to_string()
                    } else {
                        "-".into()
                    }),
                ],
            ),
            DumpEvent::PartitionSummary(s) => {
                let opt = |v: Option<i64>| v.map_or("-".to_string(), |v| v.to_string());
                self.row(
                    &[
                        "partition",
                        "segments",
                        "bytes",
                        "LEO",
                        "HW",
                        "recovery point",
                        "latest epoch",
                        "clean shutdown",
                        "note",
                    ],
                    vec![
                        Cell::new(&s.name),
                        right(s.segment_count),
                        right(s.size_bytes),
                        right(s.log_end_offset),
                        right(opt(s.high_watermark)),
                        right(opt(s.recovery_point)),
                        right(s.latest_leader_epoch.map_or("-".to_string(), |e| p.epoch(e, &e.to_string()))),
                        Cell::new(if s.clean_shutdown { "yes" } else { "no" }),
                        Cell::new(s.error.as_deref().map(|e| p.bad(e)).unwrap_or_default()),
                    ],
                )
            }
            DumpEvent::EpochEntry { leader_epoch, start_offset } => self.row(
                &["epoch", "start offset"],
                vec![right(p.epoch(leader_epoch, &leader_epoch.to_string())), right(start_offset)],
            ),
            DumpEvent::OffsetEntry { topic, partition, offset } => {
                self.row(&["topic", "partition", "offset"], vec![Cell::new(topic), right(partition), right(offset)])
            }
        }
    }

    pub fn finish(mut self) -> Result<()> {
        self.flush_table()
    }
}

/// A control record in one cell: its type and what it says.
pub fn control_text(key: Option<&[u8]>, value: Option<&[u8]>) -> String {
    match control::decode(key, value) {
        Err(e) => format!("INVALID control record: {e}"),
        Ok(c) => match &c {
            ControlRecord::EndTxn { coordinator_epoch, .. } => {
                format!("{} (coordinator epoch {coordinator_epoch})", c.type_name())
            }
            ControlRecord::LeaderChange { leader_id, voters, granting_voters, .. } => {
                format!("{} leader {leader_id}, voters {voters:?}, granted by {granting_voters:?}", c.type_name())
            }
            ControlRecord::SnapshotHeader { last_contained_log_timestamp, .. } => {
                format!("{} (last contained log timestamp {last_contained_log_timestamp})", c.type_name())
            }
            ControlRecord::KRaftVersion { kraft_version, .. } => format!("{} {kraft_version}", c.type_name()),
            ControlRecord::KRaftVoters { voters, .. } => format!(
                "{} {}",
                c.type_name(),
                voters
                    .iter()
                    .map(|v| {
                        let endpoints: Vec<String> =
                            v.endpoints.iter().map(|e| format!("{}={}:{}", e.name, e.host, e.port)).collect();
                        format!("{}@{}", v.voter_id, endpoints.join(","))
                    })
                    .collect::<Vec<_>>()
                    .join(" ")
            ),
            ControlRecord::Unknown { type_id } => format!("UNKNOWN control type {type_id}"),
            ControlRecord::SnapshotFooter { .. } => c.type_name().to_string(),
        },
    }
}

/// Producer fields of an idempotent or transactional batch: `pid 7 epoch 0 seq 0..4`.
fn producer(b: &BatchRow) -> String {
    if b.producer_id < 0 {
        return String::new();
    }
    let seq =
        if b.base_sequence >= 0 { format!(" seq {}..{}", b.base_sequence, b.last_sequence) } else { String::new() };
    format!("pid {} epoch {}{seq}", b.producer_id, b.producer_epoch)
}

fn flags(b: &BatchRow) -> String {
    let mut f = Vec::new();
    if b.is_transactional {
        f.push("txn");
    }
    if b.is_control {
        f.push("control");
    }
    if b.producer_id >= 0 {
        f.push("idempotent");
    }
    f.join(",")
}
