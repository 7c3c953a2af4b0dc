//! Tables for people (comfy-table). Rows are buffered and flushed in chunks so that a dump of
//! any size keeps constant memory; off a terminal the layout does not depend on its width.

use super::palette::{Palette, Tone};
use super::{display_bytes, iso_timestamp, Settings};
use crate::commands::dump::ControlRead;
use crate::commands::dump::{BatchRow, DumpEvent, PartitionSummary};
use crate::error::{IoContext, Result};
use crate::format::control::ControlRecord;
use crate::format::producer_snapshot::{ProducerEntry, ProducerSnapshot};
use crate::format::record::Record;
use crate::format::txn_index::AbortedTxn;
use crate::log::index::{OffsetEntryCheck, TimeEntryCheck};
use crate::log::verify::{EpochAgreement, EpochRow};
use crate::replica::{QuorumState, ReplicaSummary};
use comfy_table::{presets, Cell, CellAlignment, ColumnConstraint, ContentArrangement, Row, Table, Width};
use std::collections::BTreeSet;
use std::io::Write;

const CHUNK_ROWS: usize = 5000;
const VALUE_CHARS: usize = 40;

/// A column and how it gives way when the table is wider than the terminal. Columns give
/// way in this order: notes first, then values, then verdicts, then identities; numbers never.
#[derive(Debug, Clone, Copy)]
pub enum Col {
    /// Numbers and timestamps: never narrower than their widest value (the header may wrap
    /// instead).
    Keep(&'static str),
    /// What a row is about (a partition, a mode): shown whole. Only when the table cannot fit
    /// otherwise does a long one wrap onto more lines; it is never elided.
    Ident(&'static str),
    /// A verdict or fate (`DIVERGED (acked, lost forever)`, `DISAGREE: …`): shown whole; gives
    /// way after the values by wrapping at its spaces, never by being elided.
    Verdict(&'static str),
    /// Keys, values: shrink to what is left, long values elided with `…`.
    Flex(&'static str),
    /// Free text: shrinks first; when too little room is left to read it, it moves under the
    /// table, one line per row that has one, named by the row's identity.
    Note(&'static str),
}

impl Col {
    fn name(&self) -> &'static str {
        match self {
            Col::Keep(n) | Col::Ident(n) | Col::Verdict(n) | Col::Flex(n) | Col::Note(n) => n,
        }
    }

    /// Whether the column is shown whole (its values are never elided).
    fn whole(&self) -> bool {
        matches!(self, Col::Keep(_) | Col::Ident(_) | Col::Verdict(_))
    }

    /// The order in which columns give way: lowest first.
    fn rank(&self) -> u8 {
        match self {
            Col::Note(_) => 0,
            Col::Flex(_) => 1,
            Col::Verdict(_) => 2,
            Col::Ident(_) => 3,
            Col::Keep(_) => 4,
        }
    }
}

/// A column's padding (one space each side).
const PADDING: usize = 2;
/// The narrowest a shrinking column gets, with its padding.
const FLEX_MIN: usize = 3 + PADDING;
/// The narrowest a note is shown in the table; below this it moves under the table.
const NOTE_MIN: usize = 24 + PADDING;

/// A column's width and how it is laid out.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Fitted {
    /// Not shown: empty in every row.
    Hidden,
    /// Moved under the table (a note with no room).
    Below,
    /// Shown this wide, padding included.
    Shown(usize),
}

impl Fitted {
    fn width(self) -> Option<usize> {
        match self {
            Fitted::Shown(w) => Some(w),
            _ => None,
        }
    }
}

/// A table laid out to the settings' width: coloured through comfy-table's own styling (so
/// escape codes never count as width), one line per row with long values elided (or, for
/// [`Grid::wrapping`], wrapped at spaces), no trailing spaces. Off a terminal (no width) the
/// columns are as wide as their content, so the layout never depends on the terminal.
pub struct Grid {
    table: Table,
    cols: Vec<Col>,
    /// The widest data cell of each column, in characters.
    widths: Vec<usize>,
    /// The longest word of each column's data, in characters.
    words: Vec<usize>,
    wrap: bool,
    /// The width to fit, if any.
    width: Option<usize>,
}

impl Grid {
    pub fn new(settings: &Settings, cols: &[Col]) -> Grid {
        let mut t = Table::new();
        t.load_preset(presets::UTF8_HORIZONTAL_ONLY);
        t.remove_style(comfy_table::TableComponent::HorizontalLines);
        t.remove_style(comfy_table::TableComponent::MiddleIntersections);
        t.remove_style(comfy_table::TableComponent::LeftBorderIntersections);
        t.remove_style(comfy_table::TableComponent::RightBorderIntersections);
        // Never ask the terminal: the width and colour were decided once, in main.
        t.force_no_tty();
        if settings.color {
            t.enforce_styling();
            t.style_text_only();
        }
        match settings.table_width {
            Some(w) => {
                t.set_content_arrangement(ContentArrangement::Dynamic);
                t.set_width(u16::try_from(w).unwrap_or(u16::MAX));
            }
            None => {
                t.set_content_arrangement(ContentArrangement::Disabled);
            }
        }
        t.set_truncation_indicator("…");
        // Headers wrap at their spaces even where the values are cut at a character.
        let mut header = Row::from(cols.iter().map(|c| Cell::new(c.name()).set_delimiter(' ')));
        header.max_height(3);
        t.set_header(header);
        Grid {
            table: t,
            cols: cols.to_vec(),
            widths: vec![0; cols.len()],
            words: vec![0; cols.len()],
            wrap: false,
            width: settings.table_width,
        }
    }

    /// Cells wrap onto more lines (at spaces) instead of being elided.
    pub fn wrapping(mut self) -> Grid {
        self.wrap = true;
        self
    }

    pub fn add(&mut self, cells: Vec<Cell>) {
        for ((w, word), c) in self.widths.iter_mut().zip(self.words.iter_mut()).zip(&cells) {
            let content = c.content();
            *w = (*w).max(content.lines().map(|l| l.chars().count()).max().unwrap_or(0));
            *word = (*word).max(content.split_whitespace().map(|x| x.chars().count()).max().unwrap_or(0));
        }
        self.table.add_row(Row::from(cells));
    }

    pub fn is_empty(&self) -> bool {
        self.table.is_empty()
    }

    /// Whether laying the table out to the width cuts a value (or moves a note under it).
    pub fn cuts(&self) -> bool {
        self.column_widths().iter().enumerate().any(|(i, f)| match (self.cols[i], f) {
            (Col::Flex(_) | Col::Note(_), Fitted::Shown(w)) => *w < self.widths[i] + PADDING,
            (_, Fitted::Below) => true,
            _ => false,
        })
    }

    pub fn write(&mut self, out: &mut dyn Write) -> Result<()> {
        let fitted = self.column_widths();
        let fixed = |w: usize| Width::Fixed(u16::try_from(w).unwrap_or(u16::MAX));
        // Notes with no room go under the table, each named by its row's identity.
        let ident = self.cols.iter().position(|c| matches!(c, Col::Ident(_)));
        let mut below = Vec::new();
        for (i, f) in fitted.iter().enumerate() {
            if *f != Fitted::Below {
                continue;
            }
            for row in self.table.row_iter() {
                let cells: Vec<&Cell> = row.cell_iter().collect();
                let note = cells.get(i).map(|c| c.content()).unwrap_or_default();
                if note.is_empty() {
                    continue;
                }
                let who = ident.and_then(|x| cells.get(x)).map(|c| c.content()).unwrap_or_default();
                below.push(if who.is_empty() { format!("  {note}") } else { format!("  {who}: {note}") });
            }
        }
        // A row is one line, unless a column shown whole is narrower than its value there.
        for row in self.table.row_iter_mut() {
            let overflows = row.cell_iter().zip(&self.cols).zip(&fitted).any(|((c, col), f)| {
                col.whole() && f.width().is_some_and(|w| c.content().lines().any(|l| l.chars().count() + PADDING > w))
            });
            if !self.wrap && !overflows {
                row.max_height(1);
            }
        }
        for (i, (c, f)) in self.cols.iter().zip(&fitted).enumerate() {
            let Some(column) = self.table.column_mut(i) else { continue };
            match (c, f.width()) {
                (_, None) => column.set_constraint(ColumnConstraint::Hidden),
                (Col::Keep(_), Some(w)) => column.set_constraint(ColumnConstraint::LowerBoundary(fixed(w))),
                // Wrapped columns are left to comfy-table, which wraps them at spaces, but never
                // narrower than their longest word, so no word is split.
                (Col::Ident(name) | Col::Flex(name) | Col::Note(name), Some(_)) if self.wrap => column.set_constraint(
                    ColumnConstraint::LowerBoundary(fixed(self.words[i].max(longest_word(name)) + PADDING)),
                ),
                // An identity is a name, not prose: when it must wrap, it wraps at a character.
                (Col::Ident(_), Some(w)) => {
                    column.set_delimiter('\0').set_constraint(ColumnConstraint::Absolute(fixed(w)))
                }
                (Col::Verdict(_), Some(w)) => column.set_constraint(ColumnConstraint::Absolute(fixed(w))),
                // A value is not prose: it is cut at a character, not at a word.
                (Col::Flex(_) | Col::Note(_), Some(w)) => {
                    column.set_delimiter('\0').set_constraint(ColumnConstraint::Absolute(fixed(w)))
                }
            };
        }
        for line in self.table.lines() {
            writeln!(out, "{}", line.trim_end()).at("<stdout>", "write")?;
        }
        for line in below {
            writeln!(out, "{line}").at("<stdout>", "write")?;
        }
        Ok(())
    }

    /// Each column's width with its padding. A kept or identity column would be as wide as its
    /// widest value and its header's longest word (the header wraps at its spaces); a value,
    /// note or verdict column, as wide as its widest value and its whole header (which wraps
    /// before a value is cut). A
    /// value or note column empty in every row (no record has headers, say) is not shown.
    /// When the table is wider than the width, columns give way by rank ([`Col::rank`]): all
    /// the columns of one rank share what the higher ranks leave them (the narrowest served
    /// first, the rest split evenly) before any column of the next rank gives up anything.
    fn column_widths(&self) -> Vec<Fitted> {
        let mut fitted: Vec<Fitted> = self
            .cols
            .iter()
            .zip(&self.widths)
            .map(|(c, w)| match c {
                Col::Flex(_) | Col::Note(_) if *w == 0 => Fitted::Hidden,
                Col::Flex(name) | Col::Note(name) | Col::Verdict(name) => Fitted::Shown((*w).max(name.len()) + PADDING),
                c => Fitted::Shown((*w).max(longest_word(c.name())) + PADDING),
            })
            .collect();
        let Some(total) = self.width.filter(|_| !self.wrap) else { return fitted };
        // One separator between columns; no outer borders.
        let needed = |fitted: &[Fitted]| {
            let shown: Vec<usize> = fitted.iter().filter_map(|f| f.width()).collect();
            shown.iter().sum::<usize>() + shown.len().saturating_sub(1)
        };
        for rank in 0..4 {
            if needed(&fitted) <= total {
                break;
            }
            let of_rank: Vec<usize> =
                (0..self.cols.len()).filter(|i| self.cols[*i].rank() == rank && fitted[*i].width().is_some()).collect();
            if of_rank.is_empty() {
                continue;
            }
            let others: usize = {
                let mut rest = fitted.clone();
                for i in &of_rank {
                    rest[*i] = Fitted::Hidden;
                }
                needed(&rest) + of_rank.len()
            };
            let mut left = total.saturating_sub(others);
            // Before a value is cut, its header wraps at its spaces.
            let compact = |i: usize| {
                let name = self.cols[i].name();
                fitted[i].width().unwrap_or(0).min(self.widths[i].max(longest_word(name)) + PADDING)
            };
            let wants: Vec<usize> = (0..self.cols.len()).map(compact).collect();
            let mut order = of_rank.clone();
            order.sort_by_key(|i| wants[*i]);
            let min = if rank == 0 { NOTE_MIN } else { FLEX_MIN };
            for (served, i) in order.iter().enumerate() {
                let share = left / (order.len() - served);
                let want = wants[*i];
                let w = want.min(share);
                if rank == 0 && w < want.min(NOTE_MIN) {
                    // Too narrow to read: the note goes under the table.
                    fitted[*i] = Fitted::Below;
                    continue;
                }
                let w = w.max(min.min(want));
                fitted[*i] = Fitted::Shown(w);
                left = left.saturating_sub(w);
            }
        }
        fitted
    }
}

fn longest_word(name: &str) -> usize {
    name.split(' ').map(str::len).max().unwrap_or(0)
}

pub fn right(text: impl ToString) -> Cell {
    Cell::new(text.to_string()).set_alignment(CellAlignment::Right)
}

/// A right-aligned cell in a tone.
pub fn right_in(p: &Palette, text: impl ToString, tone: Tone) -> Cell {
    p.cell(text, tone).set_alignment(CellAlignment::Right)
}

/// A leader epoch, right-aligned, in its colour.
pub fn epoch_cell(p: &Palette, leader_epoch: i32) -> Cell {
    right_in(p, leader_epoch, Tone::Epoch(leader_epoch))
}

pub fn summary_lines(out: &mut dyn Write, s: &ReplicaSummary, settings: &Settings) -> Result<()> {
    let p = settings.palette();
    let epoch = s.leader_epoch.map_or("-".to_string(), |e| p.epoch(e, &e.to_string()));
    let role = match s.role.name() {
        "leader" => p.good(s.role.name()),
        "crashed" => p.bad(s.role.name()),
        _ => p.strong(s.role.name()),
    };
    writeln!(
        out,
        "{} {}-{}  {}  role {role}  leader epoch {epoch}  LEO {}  HW {}  recovery point {}  log start {}{}  segments {}{}",
        p.strong("replica"),
        s.topic,
        s.partition,
        s.log_dir.display(),
        s.log_end_offset,
        super::or_dash(s.high_watermark),
        s.recovery_point,
        s.log_start_offset,
        s.log_start_offset_checkpoint_below_local.map_or(String::new(), |o| format!(
            " (local; log-start-offset-checkpoint {o}: the log start across tiers if tiered)"
        )),
        s.segment_count,
        if s.clean_shutdown { "  (clean shutdown marker)" } else { "" },
    )
    .at("<stdout>", "write")
}

pub fn epochs_table(out: &mut dyn Write, rows: &[EpochRow], settings: &Settings) -> Result<()> {
    let p = settings.palette();
    let mut t = Grid::new(
        settings,
        &[
            Col::Keep("epoch"),
            Col::Keep("start offset"),
            Col::Keep("end offset"),
            Col::Keep("records"),
            Col::Verdict("batch stamps"),
        ],
    );
    for r in rows {
        let note = match r.agreement {
            EpochAgreement::Agrees => p.cell("agree", Tone::Good),
            EpochAgreement::NoBatchesYet => p.cell("no batches yet (assigned at election)", Tone::Dim),
            EpochAgreement::StartDiffers { stamped_start_offset } => {
                p.cell(format!("DISAGREE: first stamped at {stamped_start_offset}"), Tone::Bad)
            }
            EpochAgreement::OnlyInCheckpoint => p.cell("no batch carries this epoch", Tone::Warn),
            EpochAgreement::OnlyInBatches => p.cell("DISAGREE: on batches, not in checkpoint", Tone::Bad),
            EpochAgreement::BelowLocalStart => p.cell("below the local log start (remote if tiered)", Tone::Dim),
        };
        t.add(vec![
            epoch_cell(&p, r.leader_epoch),
            right(r.start_offset),
            right(r.end_offset),
            right(r.record_count),
            note,
        ]);
    }
    if rows.is_empty() {
        writeln!(out, "epoch cache: empty").at("<stdout>", "write")?;
        return Ok(());
    }
    t.write(out)
}

/// Streams dump events into chunked tables.
pub struct DumpTable<'o> {
    out: &'o mut dyn Write,
    settings: Settings,
    table: Option<Grid>,
    rows: usize,
    batches_only: bool,
    /// Rows and lines shown about the subject so far, and what to say if there are none (an
    /// empty file, or `--from` past the log end, must not end in silence).
    items_shown: u64,
    if_nothing: Option<String>,
    /// Log-dir overview totals of the rows shown: partitions on disk, segments, bytes.
    overview: Option<(u64, u64, u64)>,
    /// Log-dir overview: the partitions only the checkpoints list, one line each.
    listed: Vec<String>,
    /// The log dir's own counts (partitions on disk, only in the checkpoints), shown or not.
    totals: Option<(u64, u64)>,
    /// Record rows held until the chunk is laid out (see [`DumpTable::record_grid`]).
    records: Vec<RecordRow>,
    /// Whether the hint to `--format kafka` / `--json` was given (once a dump).
    hinted: bool,
    /// `--value-format`: values shown so, Confluent schema ids named.
    values: Option<super::values::ValueFormat>,
}

/// A record's row, held so that the chunk's layout can give its values the width.
struct RecordRow {
    offset: i64,
    epoch: Cell,
    timestamp: i64,
    key: Cell,
    value: Cell,
    headers: String,
    crc_ok: bool,
}

impl<'o> DumpTable<'o> {
    pub fn new(out: &'o mut dyn Write, settings: Settings, batches_only: bool) -> Self {
        DumpTable {
            out,
            settings,
            table: None,
            rows: 0,
            batches_only,
            items_shown: 0,
            if_nothing: None,
            overview: None,
            listed: Vec::new(),
            totals: None,
            records: Vec::new(),
            hinted: false,
            values: None,
        }
    }

    /// Show values as `--value-format` says.
    pub fn with_values(mut self, values: Option<super::values::ValueFormat>) -> Self {
        self.values = values;
        self
    }

    /// The record rows held as one table. Laid out to a width that would cut the keys or
    /// values, the fixed columns give them room first: the timestamps show the time of day
    /// under a header naming their one date, and a crc column of nothing but `ok` becomes one
    /// line under the table. Whatever is still cut, a line says where to read it whole.
    fn record_grid(&mut self) -> Option<(Vec<String>, Grid, Vec<String>)> {
        if self.records.is_empty() {
            return None;
        }
        let rows = std::mem::take(&mut self.records);
        let p = self.settings.palette();
        let build = |time_only: Option<&str>, with_crc: bool| {
            let mut cols = vec![
                Col::Keep("offset"),
                Col::Keep("epoch"),
                Col::Keep(if time_only.is_some() { "time of day" } else { "timestamp" }),
                Col::Flex("key"),
                Col::Flex("value"),
                Col::Flex("headers"),
            ];
            if with_crc {
                cols.push(Col::Keep("crc"));
            }
            let mut grid = Grid::new(&self.settings, &cols);
            for r in &rows {
                let iso = iso_timestamp(r.timestamp);
                let shown = if time_only.is_some() { iso[11..].to_string() } else { iso };
                let mut cells = vec![
                    right(r.offset),
                    r.epoch.clone(),
                    right(shown),
                    r.key.clone(),
                    r.value.clone(),
                    Cell::new(&r.headers),
                ];
                if with_crc {
                    cells.push(if r.crc_ok { p.cell("ok", Tone::Good) } else { p.cell("BAD", Tone::Bad) });
                }
                grid.add(cells);
            }
            grid
        };
        let full = build(None, true);
        if !full.cuts() {
            return Some((Vec::new(), full, Vec::new()));
        }
        // One date for every row (a timestamp that is no date, such as -1, keeps the full form).
        let dates: BTreeSet<String> = rows
            .iter()
            .map(|r| iso_timestamp(r.timestamp))
            .map(|iso| if iso.len() == 24 && iso.as_bytes()[10] == b'T' { iso[..10].to_string() } else { iso })
            .collect();
        let date = (dates.len() == 1).then(|| dates.first().cloned()).flatten().filter(|d| d.len() == 10);
        let all_ok = rows.iter().all(|r| r.crc_ok);
        let grid = build(date.as_deref(), !all_ok);
        let before = date.map(|d| format!("records of {d} (UTC)")).into_iter().collect();
        let mut lines = Vec::new();
        if all_ok {
            lines.push(format!("crc {} for every record above", p.good("ok")));
        }
        if grid.cuts() && !self.hinted {
            self.hinted = true;
            lines.push("values cut to fit: `--format kafka` or `--json` shows every one whole".to_string());
        }
        Some((before, grid, lines))
    }

    fn flush_table(&mut self) -> Result<()> {
        if let Some((before, mut grid, lines)) = self.record_grid() {
            for line in before {
                writeln!(self.out, "{line}").at("<stdout>", "write")?;
            }
            grid.write(self.out)?;
            for line in lines {
                writeln!(self.out, "{line}").at("<stdout>", "write")?;
            }
        }
        if let Some(mut t) = self.table.take() {
            t.write(self.out)?;
        }
        self.rows = 0;
        Ok(())
    }

    fn row(&mut self, header: &[Col], cells: Vec<Cell>) -> Result<()> {
        let settings = self.settings;
        self.table.get_or_insert_with(|| Grid::new(&settings, header)).add(cells);
        self.items_shown += 1;
        self.rows += 1;
        if self.rows >= CHUNK_ROWS {
            self.flush_table()?;
        }
        Ok(())
    }

    fn crc_cell(&self, b: &BatchRow) -> Cell {
        let p = self.settings.palette();
        if b.crc_valid {
            p.cell("ok", Tone::Good)
        } else {
            p.cell("BAD", Tone::Bad)
        }
    }

    /// What to say if nothing is shown about the subject an event opens, and which events
    /// count as something shown outside the tables.
    fn note_subject(&mut self, event: &DumpEvent<'_>) {
        match event {
            DumpEvent::Replica(s) => {
                let what = if self.batches_only { "batches" } else { "records" };
                self.if_nothing = Some(format!(
                    "no {what} to show (log start offset {}, LEO {})",
                    s.log_start_offset, s.log_end_offset
                ));
            }
            DumpEvent::Epochs(_) => self.if_nothing = None,
            DumpEvent::File { path, .. } => self.if_nothing = Some(format!("{}: no entries", path.display())),
            DumpEvent::Segment { path, .. } if self.if_nothing.is_none() => {
                self.if_nothing = Some(format!("{}: no batches", path.display()));
            }
            DumpEvent::Undecodable(..)
            | DumpEvent::Trailing { .. }
            | DumpEvent::ProducerSnapshot(_)
            | DumpEvent::QuorumState(_) => {
                self.items_shown += 1;
            }
            _ => {}
        }
    }

    /// A line between tables: the table so far is written first.
    fn line_between(&mut self, line: String) -> Result<()> {
        self.flush_table()?;
        out!(self.out, "{line}")
    }

    pub fn event(&mut self, event: DumpEvent<'_>) -> Result<()> {
        self.note_subject(&event);
        let p = self.settings.palette();
        match event {
            DumpEvent::Replica(s) => {
                // The records of the replica before (`--topic` dumps several) go out first.
                self.flush_table()?;
                summary_lines(self.out, s, &self.settings)
            }
            DumpEvent::Epochs(rows) => epochs_table(self.out, rows, &self.settings),
            DumpEvent::Rendered(chunk) => {
                self.flush_table()?;
                self.out.write_all(&chunk.bytes).at("<stdout>", "write")
            }
            DumpEvent::Problem { path, position, line, what } => {
                let line = line.map(|l| format!("line {l}, ")).unwrap_or_default();
                self.line_between(format!(
                    "{} {} ({line}position {position}): {what}",
                    p.bad("problem"),
                    path.display()
                ))
            }
            DumpEvent::Segment { path, .. } => self.line_between(format!("{} {}", p.strong("segment"), path.display())),
            DumpEvent::Batch(b) if self.batches_only => self.batch_row(b),
            DumpEvent::Batch(_) => Ok(()),
            DumpEvent::Record(b, r, control) => {
                self.record_row(b, r, control.map_or(RecordMeaning::Data, RecordMeaning::Control))
            }
            DumpEvent::Decoded(b, r, decoded) => self.record_row(b, r, RecordMeaning::Internal(decoded)),
            DumpEvent::Undecodable(b, why) => self.line_between(format!(
                "{} batch {} to {} at position {}: {why}",
                p.bad("undecodable"),
                b.base_offset,
                b.last_offset,
                b.position
            )),
            DumpEvent::Trailing { path, position, len, what } => self.line_between(format!(
                "{} {len} bytes at position {position} of {}: {what}",
                p.bad("trailing"),
                path.display()
            )),
            DumpEvent::File { .. } => Ok(()),
            DumpEvent::QuorumState(q) => self.line_between(quorum_state_line(&p, q)),
            DumpEvent::IndexEntry { offset, position, check } => self.row(
                &[Col::Keep("offset"), Col::Keep("position"), Col::Verdict("log")],
                vec![right(offset), right(position), offset_check_cell(&p, check)],
            ),
            DumpEvent::TimeIndexEntry { timestamp, offset, check, .. } => self.row(
                &[Col::Keep("timestamp"), Col::Keep("offset"), Col::Verdict("log")],
                vec![right(iso_timestamp(timestamp)), right(offset), time_check_cell(&p, check)],
            ),
            DumpEvent::TxnIndexEntry(t) => self.aborted_txn_row(t),
            // Written as it comes: its entries' table follows.
            DumpEvent::ProducerSnapshot(s) => out!(self.out, "{}", producer_snapshot_line(&p, s)),
            DumpEvent::ProducerEntry(e) => self.producer_entry_row(e),
            DumpEvent::PartitionSummary(s) if !s.on_disk => {
                self.list_only_in_checkpoints(s);
                Ok(())
            }
            DumpEvent::PartitionSummary(s) => self.partition_row(s),
            DumpEvent::LogDirTotals { on_disk_count, only_in_checkpoints_count } => {
                self.totals = Some((on_disk_count as u64, only_in_checkpoints_count as u64));
                Ok(())
            }
            DumpEvent::EpochEntry { leader_epoch, start_offset } => self.row(
                &[Col::Keep("epoch"), Col::Keep("start offset")],
                vec![epoch_cell(&p, leader_epoch), right(start_offset)],
            ),
            DumpEvent::OffsetEntry { topic, partition, offset } => self.row(
                &[Col::Ident("topic"), Col::Keep("partition"), Col::Keep("offset")],
                vec![Cell::new(topic), right(partition), right(offset)],
            ),
        }
    }

    /// `dump --batches`: one row per batch.
    fn batch_row(&mut self, b: &BatchRow) -> Result<()> {
        let p = self.settings.palette();
        let offsets = if b.base_offset == b.last_offset {
            b.base_offset.to_string()
        } else {
            format!("{} to {}", b.base_offset, b.last_offset)
        };
        let cells = vec![
            right(offsets),
            epoch_cell(&p, b.partition_leader_epoch),
            right(b.record_count),
            right(b.position),
            right(b.size_bytes),
            right(iso_timestamp(b.max_timestamp)),
            Cell::new(b.compression),
            Cell::new(flags(b)),
            Cell::new(producer(b)),
            self.crc_cell(b),
        ];
        self.row(
            &[
                Col::Keep("offsets"),
                Col::Keep("epoch"),
                Col::Keep("recs"),
                Col::Keep("pos"),
                Col::Keep("bytes"),
                Col::Keep("max timestamp"),
                Col::Flex("codec"),
                Col::Flex("flags"),
                Col::Flex("producer"),
                Col::Keep("crc"),
            ],
            cells,
        )
    }

    /// One record, held until its chunk is laid out ([`DumpTable::record_grid`]).
    fn record_row(&mut self, b: &BatchRow, r: &Record<'_>, meaning: RecordMeaning<'_>) -> Result<()> {
        let p = self.settings.palette();
        let headers = r
            .headers
            .iter()
            .map(|h| format!("{}={}", display_bytes(Some(h.key), 16), display_bytes(h.value, 16)))
            .collect::<Vec<_>>()
            .join(" ");
        let bytes_cell = |bytes: Option<&[u8]>| match bytes {
            None => p.cell("null", Tone::Dim),
            v => Cell::new(display_bytes(v, VALUE_CHARS)),
        };
        let (key, value) = match meaning {
            RecordMeaning::Control(c) => (p.cell("control", Tone::Dim), Cell::new(control_text(c))),
            RecordMeaning::Internal(d) => match crate::output::internal_record::table_cells(d) {
                (key, value, true) => (key.map_or_else(|| bytes_cell(r.key), Cell::new), Cell::new(value)),
                (_, value, false) => (bytes_cell(r.key), p.cell(value, Tone::Bad)),
            },
            RecordMeaning::Data => match (self.values, r.value) {
                (Some(f), Some(v)) => (bytes_cell(r.key), Cell::new(super::values::table_text(v, f, VALUE_CHARS))),
                _ => (bytes_cell(r.key), bytes_cell(r.value)),
            },
        };
        let crc_ok = b.crc_valid && r.legacy.is_none_or(|l| l.crc_valid);
        if self.table.is_some() {
            self.flush_table()?;
        }
        self.records.push(RecordRow {
            offset: r.offset,
            epoch: epoch_cell(&p, b.partition_leader_epoch),
            timestamp: r.timestamp,
            key,
            value,
            headers,
            crc_ok,
        });
        self.items_shown += 1;
        if self.records.len() >= CHUNK_ROWS {
            self.flush_table()?;
        }
        Ok(())
    }

    /// A `.txnindex` entry: one aborted transaction.
    fn aborted_txn_row(&mut self, t: &AbortedTxn) -> Result<()> {
        self.row(
            &[
                Col::Keep("version"),
                Col::Keep("producer id"),
                Col::Keep("first offset"),
                Col::Keep("last offset"),
                Col::Keep("last stable offset"),
            ],
            vec![
                right(t.version),
                right(t.producer_id),
                right(t.first_offset),
                right(t.last_offset),
                right(t.last_stable_offset),
            ],
        )
    }

    fn producer_entry_row(&mut self, e: &ProducerEntry) -> Result<()> {
        self.row(
            // Nine fields in seven columns (sequences first..last, offset with its delta),
            // the transactional ones last and flexible, so the table fits 80 columns.
            &[
                Col::Keep("producer id"),
                Col::Keep("epoch"),
                Col::Keep("seqs"),
                Col::Keep("last offset (delta)"),
                Col::Keep("timestamp"),
                Col::Flex("coordinator epoch"),
                Col::Flex("txn first offset"),
            ],
            vec![
                right(e.producer_id),
                right(e.producer_epoch),
                right(format!("{}..{}", e.first_sequence(), e.last_sequence)),
                right(format!("{} ({})", e.last_offset, e.offset_delta)),
                right(iso_timestamp(e.timestamp)),
                right(e.coordinator_epoch),
                right(if e.current_txn_first_offset >= 0 {
                    e.current_txn_first_offset.to_string()
                } else {
                    "-".into()
                }),
            ],
        )
    }

    /// A partition only the checkpoints name: it has no log to show, so it is listed under the
    /// table with what the checkpoints say, not as a row of made-up zeros.
    fn list_only_in_checkpoints(&mut self, s: &PartitionSummary) {
        let opt = |what: &str, v: Option<i64>| v.map(|v| format!("  {what} {v}")).unwrap_or_default();
        self.listed.push(format!(
            "  {}{}{}",
            s.name,
            opt("HW", s.high_watermark),
            opt("recovery point", s.recovery_point)
        ));
    }

    /// A log-dir overview's row for a partition on disk.
    fn partition_row(&mut self, s: &PartitionSummary) -> Result<()> {
        let p = self.settings.palette();
        let t = self.overview.get_or_insert((0, 0, 0));
        *t = (t.0 + 1, t.1 + s.segment_count as u64, t.2 + s.size_bytes);
        let opt = |v: Option<i64>| v.map_or("-".to_string(), |v| v.to_string());
        // A partition that does not read has no LEO or leader epoch to show.
        let read = s.error.is_none();
        let num = |v: u64| right(if read { v.to_string() } else { "-".into() });
        self.row(
            // Topic names run to 249 characters: the notes give way first, then the
            // name wraps; it is never elided.
            &[
                Col::Ident("partition"),
                Col::Keep("segs"),
                Col::Keep("bytes"),
                Col::Keep("LEO"),
                Col::Keep("HW"),
                Col::Keep("recovery point"),
                Col::Keep("epoch"),
                Col::Keep("clean stop"),
                Col::Note("note"),
            ],
            vec![
                Cell::new(&s.name),
                num(s.segment_count as u64),
                num(s.size_bytes),
                right(if read { s.log_end_offset.to_string() } else { "-".into() }),
                right(opt(s.high_watermark)),
                right(opt(s.recovery_point)),
                s.latest_leader_epoch.map_or_else(|| right("-"), |e| epoch_cell(&p, e)),
                Cell::new(if s.clean_shutdown { "yes" } else { "no" }),
                match &s.error {
                    Some(e) => p.cell(e, Tone::Bad),
                    None => Cell::new(""),
                },
            ],
        )
    }

    pub fn finish(mut self) -> Result<()> {
        self.flush_table()?;
        if self.overview.is_some() || self.totals.is_some() {
            let (partitions, segments, bytes) = self.overview.unwrap_or_default();
            let listed = self.listed.len() as u64;
            let (on_disk, only_listed) = self.totals.unwrap_or((partitions, listed));
            let shown = if partitions < on_disk {
                format!("{partitions} of {on_disk} partition(s) on disk shown (--limit): {segments} segment(s), {bytes} bytes in those shown")
            } else {
                format!("{partitions} partition(s) on disk, {segments} segment(s), {bytes} bytes")
            };
            writeln!(self.out, "{shown}").at("<stdout>", "write")?;
            let not_on_disk = "only in the checkpoints, not on disk (deleted or moved)";
            match (only_listed, listed) {
                (0, _) => {}
                (n, 0) => writeln!(self.out, "{n} partition(s) {not_on_disk}: none shown (--limit)")
                    .at("<stdout>", "write")?,
                (n, l) if l == n => writeln!(self.out, "{n} partition(s) {not_on_disk}:").at("<stdout>", "write")?,
                (n, l) => writeln!(self.out, "{n} partition(s) {not_on_disk}, {l} shown (--limit):")
                    .at("<stdout>", "write")?,
            }
            for line in std::mem::take(&mut self.listed) {
                writeln!(self.out, "{line}").at("<stdout>", "write")?;
            }
        }
        match self.if_nothing.take() {
            Some(line) if self.items_shown == 0 => {
                let p = self.settings.palette();
                writeln!(self.out, "{}", p.dim(&line)).at("<stdout>", "write")
            }
            _ => Ok(()),
        }
    }
}

/// A control record in one cell: its type and what it says.
pub fn control_text(control: &ControlRead) -> String {
    match control {
        ControlRead::Invalid { error, .. } => format!("INVALID control record: {error}"),
        ControlRead::Decoded(c) => match c {
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

/// What a `quorum-state` file says, on one line.
fn quorum_state_line(p: &Palette, q: &QuorumState) -> String {
    let voters = q.current_voters.as_ref().map_or(String::new(), |v| {
        let ids: Vec<String> = v.iter().map(|v| v.voter_id.to_string()).collect();
        format!("  voters [{}]", ids.join(","))
    });
    format!(
        "{} leader {}  leader epoch {}  voted for {}  applied offset {}{voters}  (data_version {})",
        p.strong("quorum-state"),
        q.leader_id,
        q.leader_epoch,
        q.voted_id,
        q.applied_offset,
        q.data_version
    )
}

/// A producer snapshot's header line, before its entries.
fn producer_snapshot_line(p: &Palette, s: &ProducerSnapshot) -> String {
    let crc = if s.crc_valid() { p.good("ok") } else { p.bad(&format!("BAD (computed {:#010x})", s.computed_crc)) };
    format!(
        "{} version {}  crc {:#010x} {crc}  {} producer(s)",
        p.strong("producer snapshot"),
        s.version,
        s.crc,
        s.entries.len()
    )
}

/// What the log holds where an offset index entry points.
fn offset_check_cell(p: &Palette, check: OffsetEntryCheck) -> Cell {
    match check {
        OffsetEntryCheck::Matches => p.cell("ok", Tone::Good),
        OffsetEntryCheck::NoLog => p.cell("no .log beside the index", Tone::Warn),
        OffsetEntryCheck::Mismatch { log_offset, batch_start } => p.cell(
            format!(
                "MISMATCH: {}",
                match (log_offset, batch_start) {
                    (Some(o), true) => format!("the batch at this position ends at offset {o}"),
                    (Some(o), false) => format!("not a batch start (bytes there frame as a batch ending at {o})"),
                    (None, _) => "no batch at this position".to_string(),
                }
            ),
            Tone::Bad,
        ),
    }
}

/// What the log holds at a time index entry's offset and timestamp.
fn time_check_cell(p: &Palette, check: TimeEntryCheck) -> Cell {
    match check {
        TimeEntryCheck::MatchesBatch => p.cell("ok (batch last offset)", Tone::Good),
        TimeEntryCheck::MatchesRecord => p.cell("ok (record with the max timestamp, Kafka <= 3.6 form)", Tone::Good),
        TimeEntryCheck::NoLog => p.cell("no .log beside the index", Tone::Warn),
        TimeEntryCheck::TimestampMismatch { log_timestamp } => {
            p.cell(format!("MISMATCH: the log has max timestamp {} there", iso_timestamp(log_timestamp)), Tone::Bad)
        }
        TimeEntryCheck::OutOfOrder { previous_timestamp } => p.cell(
            format!("OUT OF ORDER: not above the previous entry's {}", iso_timestamp(previous_timestamp)),
            Tone::Bad,
        ),
        TimeEntryCheck::NotFound { found_log_offset: Some(o) } => {
            p.cell(format!("NOT FOUND: no batch holds it (next batch ends at {o})"), Tone::Bad)
        }
        TimeEntryCheck::NotFound { found_log_offset: None } => p.cell("NOT FOUND: past the log end", Tone::Bad),
    }
}

/// What the value cell of a record row shows.
enum RecordMeaning<'e> {
    Data,
    Control(&'e crate::commands::dump::ControlRead),
    Internal(&'e crate::commands::dump::InternalRecord<'e>),
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::output::fit::{strip_escapes, visible_width};

    fn render(color: bool, width: Option<usize>) -> String {
        let settings = Settings { color, width, table_width: width, progress: false, truecolor: false };
        let p = settings.palette();
        let mut g = Grid::new(
            &settings,
            &[Col::Keep("offset"), Col::Keep("epoch"), Col::Flex("key"), Col::Flex("value"), Col::Flex("headers")],
        );
        for i in 0..4i32 {
            g.add(vec![
                right(i64::from(i) * 1_000_000),
                epoch_cell(&p, i),
                p.cell("null", Tone::Dim),
                p.cell("a value long enough to need cutting at any sane width".repeat(i as usize + 1), Tone::Good),
                Cell::new(""),
            ]);
        }
        let mut out = Vec::new();
        g.write(&mut out).unwrap();
        String::from_utf8(out).unwrap()
    }

    #[test]
    fn a_coloured_table_fits_and_is_laid_out_as_the_plain_one() {
        for width in [40, 60, 80, 110] {
            let coloured = render(true, Some(width));
            let plain = render(false, Some(width));
            assert!(coloured.contains("\x1b["), "no colour");
            assert_eq!(strip_escapes(&coloured), plain, "at {width}");
            for line in coloured.lines() {
                assert!(visible_width(line) <= width, "{width}: {line:?}");
                assert_eq!(line, line.trim_end(), "trailing spaces");
            }
            // One line per row: values are elided, never wrapped; numbers are never cut.
            assert_eq!(plain.lines().count(), 4 + 4, "{plain}");
            assert!(plain.contains("3000000") && plain.contains('…'), "{plain}");
            // The column empty in every row is not shown.
            assert!(!plain.contains("headers"), "{plain}");
        }
    }

    #[test]
    fn off_a_terminal_columns_are_as_wide_as_their_content() {
        let plain = render(false, None);
        assert!(plain.contains(&"a value long enough to need cutting at any sane width".repeat(4)), "{plain}");
    }
}
