//! Tables for people (comfy-table). Rows are buffered and flushed in chunks so that a dump of
//! any size keeps constant memory; off a terminal the layout does not depend on its width.

use super::{display_bytes, Settings};
use crate::commands::dump::{BatchRow, DumpEvent, EpochAgreement, EpochRow, ReplicaSummary};
use crate::error::{IoContext, Result};
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
                let key = match r.key {
                    None => p.dim("null"),
                    k => display_bytes(k, VALUE_CHARS),
                };
                let value = match r.value {
                    None => p.dim("null"),
                    v => display_bytes(v, VALUE_CHARS),
                };
                let cells = vec![
                    right(r.offset),
                    right(p.epoch(b.partition_leader_epoch, &b.partition_leader_epoch.to_string())),
                    right(r.timestamp),
                    Cell::new(key),
                    Cell::new(value),
                    Cell::new(headers),
                    self.crc_cell(b),
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
            DumpEvent::IndexEntry { offset, position } => {
                self.row(&["offset", "position"], vec![right(offset), right(position)])
            }
            DumpEvent::TimeIndexEntry { timestamp, offset } => {
                self.row(&["timestamp", "offset"], vec![right(timestamp), right(offset)])
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
