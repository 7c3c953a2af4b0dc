//! The picture of replica logs, after RaftScope: one row of cells per replica, aligned by
//! offset, each cell showing its leader epoch (number always, colour per epoch when colour is
//! on) and its value; batch boundaries; marks for log start, HW, recovery point, LEO and a
//! truncation cut; the offsets where the replicas hold different records, with a mark under
//! them; and, for a recovery, each record's fate. This file owns the one model ([`Picture`],
//! built from `klog draw`'s data or from a recovery report) and its terminal renderer; the
//! SVG renderer (`output::svg`) draws the same model. Every mark is a letter or symbol, so
//! nothing is carried by colour alone (NO_COLOR, black-and-white print). Long logs are
//! windowed around the focus (the divergence point, else the HW) with an elision mark.

use super::fit::visible_width;
use super::palette::Palette;
use super::Settings;
use crate::commands::draw::{DrawReport, DrawnRecord, DrawnReplica, RecoveryDrawing};
use crate::commands::recover::{FollowerRecoverReport, RecordClass};
use crate::error::{IoContext, Result};
use std::io::Write;

/// What became of a follower's record in a recovery ([`classify`](crate::replication::classify), what the report
/// calls things).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Fate {
    Kept,
    Refetchable,
    Lost,
    AckedLost,
    Diverged,
    /// Acknowledged (below a HW) and truncated: refetchable only while the leader that holds it
    /// lives, so never labelled `refetch` (KIP-101's window of loss).
    AckedCut,
    /// A remote segment's record outside the current leader's epoch lineage: never served
    /// ([`super::tier_picture`]).
    Unserved,
    /// A follower's record removed by a restart from remote storage below the leader's local
    /// log start: the leader serves it from its remote tier ([`super::tier_picture`]).
    InRemote,
}

impl Fate {
    pub fn from_class(class: RecordClass) -> Fate {
        match class {
            RecordClass::Kept => Fate::Kept,
            RecordClass::TruncatedRefetchable => Fate::Refetchable,
            RecordClass::TruncatedLost | RecordClass::BelowLeaderStart => Fate::Lost,
            RecordClass::AckedLost => Fate::AckedLost,
            RecordClass::Diverged => Fate::Diverged,
        }
    }

    /// A recovery row's fate: its class, with an acknowledged refetchable record flagged.
    pub fn of_row(class: RecordClass, acked: bool) -> Fate {
        match Fate::from_class(class) {
            Fate::Refetchable if acked => Fate::AckedCut,
            f => f,
        }
    }

    /// The `data-fate` of an SVG cell.
    pub fn slug(self) -> &'static str {
        match self {
            Fate::Kept => "kept",
            Fate::Refetchable => "truncated-refetchable",
            Fate::Lost => "truncated-lost",
            Fate::AckedLost => "acked-lost",
            Fate::Diverged => "diverged",
            Fate::AckedCut => "acked-truncated",
            Fate::Unserved => "unserved",
            Fate::InRemote => "in-remote",
        }
    }

    /// Whether the record was acknowledged and is gone (or left only on a leader).
    pub fn is_acked(self) -> bool {
        matches!(self, Fate::AckedLost | Fate::AckedCut)
    }

    /// At most 8 characters: it is printed inside the cell's column.
    pub fn label(self) -> &'static str {
        match self {
            Fate::Kept => "kept",
            Fate::Refetchable => "refetch",
            Fate::Lost => "lost",
            Fate::AckedLost => "ACK-LOST",
            Fate::Diverged => "DIVERGED",
            Fate::AckedCut => "ACK-CUT",
            Fate::Unserved => "UNSERVED",
            Fate::InRemote => "remote",
        }
    }

    /// The report's own words.
    pub fn meaning(self) -> &'static str {
        match self {
            Fate::Kept => "kept",
            Fate::Refetchable => "truncated, refetchable",
            Fate::Lost => "truncated, lost",
            Fate::AckedLost => "acked, and the leader does not hold it: lost",
            Fate::Diverged => "DIVERGED",
            Fate::AckedCut => "acked, truncated: only the leader holds it now",
            Fate::Unserved => "in remote storage outside the leader's epoch lineage: no fetch is answered from it",
            Fate::InRemote => "removed from this disk; the leader serves it from remote storage",
        }
    }

    pub fn is_bad(self) -> bool {
        matches!(self, Fate::AckedLost | Fate::Diverged | Fate::AckedCut | Fate::Unserved)
    }
}

/// A mark between cells: at offset `o` it sits on the left edge of cell `o`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Mark {
    LogStart,
    /// A tiered replica's local log start, when its log start is below it (in remote storage).
    LocalLogStart,
    /// The last stable offset (`klog txn`'s, in `demo stuck-lso`): `read_committed` stops here.
    LastStable,
    HighWatermark,
    RecoveryPoint,
    LogEnd,
    Cut,
}

impl Mark {
    pub fn label(self) -> &'static str {
        match self {
            Mark::LogStart => "LS",
            Mark::LocalLogStart => "LLS",
            Mark::LastStable => "LSO",
            Mark::HighWatermark => "HW",
            Mark::RecoveryPoint => "RP",
            Mark::LogEnd => "LEO",
            Mark::Cut => "cut",
        }
    }
}

#[derive(Debug, Clone)]
pub struct PicCell {
    pub record: DrawnRecord,
    pub fate: Option<Fate>,
    /// Committed: below the HW of a replica that holds this very batch at this offset (the
    /// leader's HW, when the rows agree with it). Drawn with a solid border, else dashed.
    pub committed: bool,
    /// Its batch's place in a transaction, when the picture shows transactions
    /// ([`super::txn_picture`]).
    pub txn: Option<crate::txn::batch_place::TxnKind>,
}

impl PicCell {
    pub fn new(record: DrawnRecord, fate: Option<Fate>) -> PicCell {
        PicCell { record, fate, committed: false, txn: None }
    }
}

/// One replica's row.
#[derive(Debug, Clone)]
pub struct Row {
    /// `a`, `b` (the dir's name).
    pub name: String,
    /// `leader e1`, `follower e1`, `before`, `after`.
    pub detail: String,
    pub cells: Vec<PicCell>,
    pub marks: Vec<(Mark, i64)>,
    /// The replica's epoch cache: (epoch, start offset) pairs, drawn beside the row.
    pub epochs: Vec<(i32, i64)>,
}

impl Row {
    /// Its HW mark, if it has one.
    pub fn high_watermark(&self) -> Option<i64> {
        self.marks.iter().find(|(m, _)| *m == Mark::HighWatermark).map(|(_, o)| *o)
    }

    fn cell_at(&self, offset: i64) -> Option<&PicCell> {
        self.cells.iter().find(|c| c.record.offset == offset)
    }

    /// The marks within offsets `start..=stop`, grouped by offset in offset order (the one
    /// grouping both renderers draw).
    pub fn marks_between(&self, start: i64, stop: i64) -> Vec<(i64, Vec<Mark>)> {
        let mut at: Vec<(i64, Vec<Mark>)> = Vec::new();
        let mut marks = self.marks.clone();
        marks.sort_by_key(|(m, o)| (*o, *m));
        marks.dedup();
        for (m, o) in marks.iter().filter(|(_, o)| (start..=stop).contains(o)) {
            match at.last_mut() {
                Some((last, ms)) if last == o => ms.push(*m),
                _ => at.push((*o, vec![*m])),
            }
        }
        at
    }

    /// Its HW and LEO as `HW 1 LEO 2` (whether or not they are in the window; the other
    /// marks are arrows only).
    pub fn marks_text(&self) -> String {
        let mut marks = self.marks.clone();
        marks.sort();
        marks
            .iter()
            .filter(|(m, _)| matches!(m, Mark::LastStable | Mark::HighWatermark | Mark::LogEnd))
            .map(|(m, o)| format!("{} {o}", m.label()))
            .collect::<Vec<_>>()
            .join(" ")
    }
}

/// The model both renderers draw.
#[derive(Debug, Clone)]
pub struct Picture {
    pub rows: Vec<Row>,
    /// Offsets `from <= o < end` the rows' cells were read for.
    pub from: i64,
    pub end: i64,
    /// The offset the picture is about: kept in view when windowed.
    pub focus: i64,
    /// Offsets in the window where two rows hold different records (epoch, batch or CRC).
    pub differs: Vec<i64>,
    /// The lowest offset any row has (below it nothing is elided).
    pub lowest: i64,
    /// The highest LEO of any row (from it on nothing is elided).
    pub highest: i64,
}

/// Offsets in `[from, end)` where the given rows' records disagree. Walks the records the rows
/// hold, never the offset range: a flipped `baseOffset` bit puts a record near 2^38 or
/// `i64::MAX`, and the range up to it must not be counted through.
fn differing_offsets(rows: &[&Row], from: i64, end: i64) -> Vec<i64> {
    use std::collections::HashMap;
    let held: Vec<HashMap<i64, &DrawnRecord>> = rows
        .iter()
        .map(|r| {
            let mut by_offset = HashMap::new();
            for c in r.cells.iter().filter(|c| (from..end).contains(&c.record.offset)) {
                // The first cell of an offset, as `cell_at` finds it.
                by_offset.entry(c.record.offset).or_insert(&c.record);
            }
            by_offset
        })
        .collect();
    let mut offsets: Vec<i64> = held.iter().flat_map(|m| m.keys().copied()).collect();
    offsets.sort_unstable();
    offsets.dedup();
    offsets.retain(|o| {
        let at: Vec<&DrawnRecord> = held.iter().filter_map(|m| m.get(o).copied()).collect();
        at.windows(2).any(|w| !w[0].same_batch(w[1]))
    });
    offsets
}

/// The offsets in the picture's range where its rows disagree (after a renderer-side overlay
/// added a row).
pub fn differing_offsets_of(pic: &Picture) -> Vec<i64> {
    let refs: Vec<&Row> = pic.rows.iter().collect();
    differing_offsets(&refs, pic.from, pic.end)
}

/// Mark each cell committed when some row's HW passed it and that row holds the same batch at
/// its offset (for a leader's row, its own HW; for a follower's, the leader's or its own).
fn mark_commitment(rows: &mut [Row]) {
    let verdicts: Vec<Vec<bool>> = rows
        .iter()
        .map(|r| {
            r.cells
                .iter()
                .map(|c| {
                    rows.iter().any(|s| {
                        s.high_watermark().is_some_and(|hw| c.record.offset < hw)
                            && s.cell_at(c.record.offset).is_some_and(|d| d.record.same_batch(&c.record))
                    })
                })
                .collect()
        })
        .collect();
    for (r, v) in rows.iter_mut().zip(verdicts) {
        for (c, committed) in r.cells.iter_mut().zip(v) {
            c.committed = committed;
        }
    }
}

/// The epoch cache as (epoch, start offset) pairs.
pub fn epoch_pairs(cache: &crate::log::epoch_cache::EpochCache) -> Vec<(i32, i64)> {
    cache.entries().iter().map(|e| (e.leader_epoch, e.start_offset)).collect()
}

fn replica_marks(r: &DrawnReplica) -> Vec<(Mark, i64)> {
    vec![
        (Mark::LogStart, r.log_start_offset),
        (Mark::HighWatermark, r.high_watermark),
        (Mark::RecoveryPoint, r.recovery_point),
        (Mark::LogEnd, r.log_end_offset),
    ]
}

fn replica_detail(r: &DrawnReplica) -> String {
    match r.leader_epoch {
        Some(e) => format!("{} e{e}", r.role),
        None => r.role.to_string(),
    }
}

impl Picture {
    /// The picture of `klog draw`: one row per replica.
    pub fn of_draw(report: &DrawReport) -> Picture {
        let rows: Vec<Row> = report
            .replicas
            .iter()
            .map(|r| Row {
                name: r.name.clone(),
                detail: replica_detail(r),
                cells: r.records.iter().map(|rec| PicCell::new(rec.clone(), None)).collect(),
                marks: replica_marks(r),
                epochs: r.epochs.clone(),
            })
            .collect();
        let mut rows = rows;
        mark_commitment(&mut rows);
        // An acknowledged record the leader does not hold is lost: flag it where it is seen
        // (the election that leaves it out of the new leader).
        if let Some(li) = report.replicas.iter().position(|r| r.role == crate::replica::ReplicaRole::Leader) {
            let leader_start = report.replicas[li].log_start_offset;
            let leader = rows[li].clone();
            for (i, row) in rows.iter_mut().enumerate() {
                if i == li {
                    continue;
                }
                for c in row.cells.iter_mut().filter(|c| c.committed && c.record.offset >= leader_start) {
                    if !leader.cell_at(c.record.offset).is_some_and(|l| l.record.same_batch(&c.record)) {
                        c.fate = Some(Fate::AckedLost);
                    }
                }
            }
        }
        let refs: Vec<&Row> = rows.iter().collect();
        let differs = differing_offsets(&refs, report.from, report.end);
        let lowest = report.replicas.iter().map(|r| r.log_start_offset).min().unwrap_or(0);
        let highest = report.replicas.iter().map(|r| r.log_end_offset).max().unwrap_or(0);
        // Nothing to draw past the last LEO (its mark sits on the edge).
        let end = report.end.min(highest).max(report.from.saturating_add(1));
        Picture { rows, from: report.from, end, focus: report.focus, differs, lowest, highest }
    }

    /// The picture of `recover --leader` over the window `drawing` chose: the leader's records
    /// read for it, the follower before (each cell's fate, the cut marked) and after.
    pub fn of_recovery(
        r: &FollowerRecoverReport,
        leader_name: &str,
        follower_name: &str,
        drawing: &RecoveryDrawing,
    ) -> Picture {
        let leader_cells: Vec<PicCell> =
            drawing.leader_records.iter().map(|rec| PicCell::new(rec.clone(), None)).collect();
        let before = follower_cells_before(r);
        let after: Vec<PicCell> = r
            .rows
            .iter()
            .zip(&before)
            .filter(|(row, _)| matches!(row.class, RecordClass::Kept | RecordClass::Diverged))
            .map(|(_, c)| PicCell::new(c.record.clone(), None))
            .collect();
        // The cut is drawn only where the truncation removes something.
        let cuts = r.cut_offset < r.follower_view.log_end_offset;
        let after_end = r.follower_log_end_offset_after;
        // A follower that rebuilt from remote storage takes the remote segment's cache.
        let after_epochs: Vec<(i32, i64)> = match &r.plan.from_remote {
            Some(_) => epoch_pairs(&r.plan.follower_epochs_after),
            None => epoch_pairs(&r.follower_view.epochs).into_iter().filter(|(_, start)| *start < after_end).collect(),
        };
        let fv = &r.follower_view;
        let lv = &r.leader_view;
        let mut rows = vec![
            Row {
                name: leader_name.to_string(),
                detail: format!("leader e{}", r.leader_epoch),
                cells: leader_cells,
                marks: vec![(Mark::HighWatermark, lv.high_watermark), (Mark::LogEnd, lv.log_end_offset)],
                epochs: epoch_pairs(&lv.epochs),
            },
            Row {
                name: follower_name.to_string(),
                detail: "before".into(),
                cells: before,
                marks: [
                    (Mark::HighWatermark, fv.high_watermark),
                    (Mark::LogEnd, fv.log_end_offset),
                    (Mark::Cut, r.cut_offset),
                ]
                .into_iter()
                .filter(|(m, _)| *m != Mark::Cut || cuts)
                .collect(),
                epochs: epoch_pairs(&fv.epochs),
            },
            Row {
                name: follower_name.to_string(),
                detail: "after".into(),
                cells: after,
                marks: vec![
                    (Mark::HighWatermark, r.follower_high_watermark_after),
                    (Mark::LogEnd, r.follower_log_end_offset_after),
                ],
                epochs: after_epochs,
            },
        ];
        mark_commitment(&mut rows);
        let RecoveryDrawing { from, end, focus, .. } = *drawing;
        // Differences between the leader and the follower as it is left.
        let differs = differing_offsets(&[&rows[0], &rows[2]], from, end);
        Picture { rows, from, end, focus, differs, lowest: from, highest: end.max(lv.log_end_offset) }
    }

    /// The offsets `[start, stop)` shown when at most `cells` fit: the focus stays in view, a
    /// third of the way in.
    pub fn window(&self, cells: usize) -> (i64, i64) {
        let cells = i64::try_from(cells.max(1)).unwrap_or(i64::MAX);
        let span = self.end.saturating_sub(self.from);
        if span <= cells {
            return (self.from, self.end);
        }
        let lead = if self.focus == self.from { 0 } else { cells / 3 };
        let start = self.focus.saturating_sub(lead).clamp(self.from, self.end - cells);
        (start, start + cells)
    }

    /// Whether a truncation cut is marked in `[start, stop]` (then the legend explains `✂`).
    pub fn cut_in(&self, start: i64, stop: i64) -> bool {
        self.rows.iter().any(|r| r.marks.iter().any(|(m, o)| *m == Mark::Cut && (start..=stop).contains(o)))
    }

    pub fn has_fates(&self) -> bool {
        self.rows.iter().any(|r| r.cells.iter().any(|c| c.fate.is_some()))
    }

    /// Whether two cells of one batch sit side by side in `[start, stop)` (then the legend
    /// explains `┆`).
    pub fn joins_batches_in(&self, start: i64, stop: i64) -> bool {
        self.rows.iter().any(|r| {
            r.cells.windows(2).any(|w| {
                (start..stop).contains(&w[0].record.offset)
                    && (start..stop).contains(&w[1].record.offset)
                    && w[0].record.same_batch(&w[1].record)
            })
        })
    }

    /// One sentence per acknowledged record the picture flags (lost, or truncated so that only
    /// the leader holds it), for the text beside the picture: `m2 (offset 1, epoch 0) on b: ...`.
    pub fn acked_alerts(&self) -> Vec<String> {
        self.rows
            .iter()
            .flat_map(|r| r.cells.iter().map(move |c| (r, c)))
            .filter_map(|(r, c)| {
                let f = c.fate.filter(|f| f.is_acked())?;
                let what = format!(
                    "{} (offset {}, epoch {})",
                    value_text(&c.record, 16),
                    c.record.offset,
                    c.record.leader_epoch
                );
                Some(match f {
                    Fate::AckedCut => format!(
                        "{what} was acknowledged and is truncated from {}: only the leader holds it now",
                        r.name
                    ),
                    _ => format!("{what} on {} was acknowledged, and the leader does not hold it: lost", r.name),
                })
            })
            .collect()
    }

    /// Whether committed (solid) and not yet committed (dashed) cells are in `[start, stop)`.
    pub fn commitment_in(&self, start: i64, stop: i64) -> (bool, bool) {
        let shown =
            || self.rows.iter().flat_map(|r| r.cells.iter()).filter(|c| (start..stop).contains(&c.record.offset));
        (shown().any(|c| c.committed), shown().any(|c| !c.committed))
    }

    /// What the legend of the window `[start, stop)` explains, in its order: only what is
    /// drawn there (both renderers word these marks their own way).
    pub fn legend(&self, start: i64, stop: i64, elided: bool) -> Vec<LegendItem> {
        let mut items = vec![LegendItem::Epochs];
        let (solid, dashed) = self.commitment_in(start, stop);
        if solid {
            items.push(LegendItem::Committed);
        }
        if dashed {
            items.push(LegendItem::NotCommitted);
        }
        if self.joins_batches_in(start, stop) {
            items.push(LegendItem::Batch);
        }
        if self.cut_in(start, stop) {
            items.push(LegendItem::Cut);
        }
        if self.fates_present().iter().any(|f| f.is_acked()) {
            items.push(LegendItem::AckedFlag);
        }
        if super::txn_picture::shows_transactions(self) {
            items.push(LegendItem::Transactions);
        }
        if super::tier_picture::shows_tiers(self) {
            items.push(LegendItem::Tiers);
        }
        items.push(LegendItem::Cache);
        items.push(LegendItem::Marks);
        if elided {
            items.push(LegendItem::Elided);
        }
        if !self.differs.is_empty() {
            items.push(LegendItem::Differs);
        }
        items.extend(self.fates_present().into_iter().filter(|f| f.label() != f.meaning()).map(LegendItem::Fate));
        items
    }

    /// The fates present, in the order of [`Fate`], for the legend.
    pub fn fates_present(&self) -> Vec<Fate> {
        let mut f: Vec<Fate> = self.rows.iter().flat_map(|r| r.cells.iter().filter_map(|c| c.fate)).collect();
        f.sort_by_key(|x| *x as u8);
        f.dedup();
        f
    }
}

/// A mark a picture's legend explains.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LegendItem {
    /// `eN` in a cell (the batch's epoch) and after a role (the replica's).
    Epochs,
    Committed,
    NotCommitted,
    /// Cells of one batch joined.
    Batch,
    Cut,
    /// An acknowledged record lost or left only on the leader, outlined.
    AckedFlag,
    /// The epoch cache's pairs beside a row.
    Cache,
    /// The log start and recovery point marks.
    Marks,
    Elided,
    Differs,
    /// A fate whose label is not its meaning.
    Fate(Fate),
    /// Transactions: open ones shaded, aborted and committed batches, markers, the LSO.
    Transactions,
    /// The remote tier's row and the local log start mark.
    Tiers,
}

/// The follower's cells before the recovery, each with its fate. An acknowledged record the
/// follower keeps but the leader does not hold (another record there, or none) is lost all the
/// same: flagged ACK-LOST, as the next picture flags it.
fn follower_cells_before(r: &FollowerRecoverReport) -> Vec<PicCell> {
    let leader_start = r.leader_view.log_start_offset;
    r.rows
        .iter()
        .map(|row| {
            let held = row
                .leader
                .as_ref()
                .is_some_and(|l| DrawnRecord::from_owned(l).same_batch(&DrawnRecord::from_owned(&row.follower)));
            let fate = match Fate::of_row(row.class, row.acked) {
                Fate::Kept | Fate::Diverged if row.acked && !held && row.follower.offset >= leader_start => {
                    Fate::AckedLost
                }
                f => f,
            };
            PicCell::new(DrawnRecord::from_owned(&row.follower), Some(fate))
        })
        .collect()
}

/// A cell's left border on a terminal: solid when committed, dashed when not yet.
fn border(c: &PicCell) -> char {
    if c.committed {
        '│'
    } else {
        '┊'
    }
}

/// The runs of two or more cells of one batch side by side in `[start, stop)`, as first and
/// last offsets (the one grouping both renderers bracket).
pub fn batch_runs(row: &Row, start: i64, stop: i64) -> Vec<(i64, i64)> {
    let mut runs = Vec::new();
    let cells: Vec<&PicCell> = row.cells.iter().filter(|c| (start..stop).contains(&c.record.offset)).collect();
    let mut i = 0;
    while i < cells.len() {
        let mut j = i;
        while j + 1 < cells.len()
            && cells[j + 1].record.offset == cells[j].record.offset + 1
            && cells[j + 1].record.same_batch(&cells[i].record)
        {
            j += 1;
        }
        if j > i {
            runs.push((cells[i].record.offset, cells[j].record.offset));
        }
        i = j + 1;
    }
    runs
}

/// Each cell's column width on a terminal: a separator and 8 characters.
const CELL: usize = 9;
/// The elision mark's width.
const ELIDE: usize = 2;

/// `s` cut or padded to exactly `n` columns.
fn fixed(s: &str, n: usize) -> String {
    let count = s.chars().count();
    if count > n {
        let mut t: String = s.chars().take(n.saturating_sub(1)).collect();
        t.push('…');
        t
    } else {
        format!("{s}{}", " ".repeat(n - count))
    }
}

/// `name detail` in exactly `w` columns; a long name is elided first, so the role and epoch
/// always show.
fn row_label(row: &Row, w: usize) -> String {
    let detail = row.detail.chars().count();
    let room = w.saturating_sub(detail + 2).max(2);
    fixed(&format!("{} {}", fixed(&row.name, room.min(row.name.chars().count())).trim_end(), row.detail), w)
}

/// A record's value as a cell shows it (text as is, binary as hex, elided to `n`).
pub fn value_text(r: &DrawnRecord, n: usize) -> String {
    super::display_bytes(r.value.as_deref(), n)
}

/// Cell text: `e0 m1`, the value elided to fit.
pub fn cell_text(r: &DrawnRecord, n: usize) -> String {
    fixed(&format!("e{} {}", r.leader_epoch, value_text(r, n)), n)
}

/// Lay `(column, label)` pairs onto lines without overlap: each goes on the first line where
/// it fits.
fn place(labels: &[(usize, String)], width: usize) -> Vec<String> {
    let mut lines: Vec<Vec<char>> = Vec::new();
    for (col, text) in labels {
        let chars: Vec<char> = text.chars().collect();
        let end = col + chars.len();
        let fits = |l: &Vec<char>| {
            (*col..end.min(l.len())).all(|i| l[i] == ' ') && (*col == 0 || l.get(col - 1).is_none_or(|c| *c == ' '))
        };
        let i = match lines.iter().position(fits) {
            Some(i) => i,
            None => {
                lines.push(Vec::new());
                lines.len() - 1
            }
        };
        let l = &mut lines[i];
        if l.len() < end {
            l.resize(end.max(width.min(end)), ' ');
        }
        l[*col..end].copy_from_slice(&chars);
    }
    lines.into_iter().map(|l| l.into_iter().collect::<String>().trim_end().to_string()).collect()
}

/// Draw `pic` for a terminal of `settings.width` columns (80 when the width is unknown, so
/// piped output has the same layout everywhere).
pub fn write_text(out: &mut dyn Write, pic: &Picture, settings: &Settings) -> Result<()> {
    write_text_after(out, pic, settings, &mut Vec::new())
}

/// Where the text picture's columns go: the label column's width and the window of offsets.
struct TextLayout {
    label_w: usize,
    start: i64,
    stop: i64,
    elided_before: bool,
    elided_after: bool,
}

impl TextLayout {
    /// The label column as wide as the widest label (8 to 30), then as many offsets as fit in
    /// `width`, and one fewer while a mark's label at the window's right edge (`↑HW,LEO` after
    /// the last cell) would run past the width and wrap onto a line of its own.
    fn of(pic: &Picture, width: usize) -> TextLayout {
        let label_w = pic
            .rows
            .iter()
            .flat_map(|r| [format!("{} {}", r.name, r.detail).chars().count(), r.marks_text().chars().count() + 2])
            .chain([if pic.differs.is_empty() { 6 } else { format!("differs at {}", pic.differs[0]).len() }])
            .max()
            .unwrap_or(8)
            .clamp(8, 30)
            + 1;
        let mut cells = (width.saturating_sub(label_w + 2 * ELIDE + 1) / CELL).max(1);
        let (start, stop) = loop {
            let (start, stop) = pic.window(cells);
            let label_end = |o: i64, ms: &Vec<Mark>| {
                label_w
                    + ELIDE
                    + (o - start) as usize * CELL
                    + 1
                    + ms.iter().map(|m| m.label().len() + 1).sum::<usize>()
                    - 1
            };
            let widest =
                pic.rows.iter().flat_map(|r| r.marks_between(start, stop)).map(|(o, ms)| label_end(o, &ms)).max();
            if cells <= 1 || widest.is_none_or(|w| w <= width) {
                break (start, stop);
            }
            cells -= 1;
        };
        TextLayout { label_w, start, stop, elided_before: start > pic.lowest, elided_after: stop < pic.highest }
    }

    fn col_of(&self, o: i64) -> usize {
        self.label_w + ELIDE + (o - self.start) as usize * CELL
    }
}

/// [`write_text`] for one picture of a series (the demo's): the legend names only what no
/// earlier picture's legend did (`shown` collects them), so it is not repeated after each.
pub fn write_text_after(
    out: &mut dyn Write,
    pic: &Picture,
    settings: &Settings,
    shown: &mut Vec<String>,
) -> Result<()> {
    let p = settings.palette();
    let width = settings.width.unwrap_or(super::fit::FALLBACK_WIDTH);
    let at = TextLayout::of(pic, width);
    let (label_w, start, stop) = (at.label_w, at.start, at.stop);
    let mut lines: Vec<String> = Vec::new();
    // Offsets.
    let mut header = fixed("offset", label_w) + "  ";
    for o in start..stop {
        header.push_str(&fixed(&format!(" {o}"), CELL));
    }
    lines.push(header.trim_end().to_string());
    for row in &pic.rows {
        lines.push(cells_line(row, &at, &p));
        lines.extend(bracket_line(row, &at));
        lines.extend(fate_line(row, &at, &p));
        lines.extend(super::txn_picture::text_line(row, start, stop, label_w, CELL, &p));
        lines.extend(mark_lines(row, &at));
        // The epoch cache, each pair in its epoch's colour (the remote tier has none).
        if super::tier_picture::is_remote_row(row) {
            continue;
        }
        let pairs = format!(
            "[{}]",
            row.epochs
                .iter()
                .map(|(e, o)| p.epoch(*e, &super::epoch_cache::entry(*e, *o)))
                .collect::<Vec<_>>()
                .join(" ")
        );
        lines.push(format!("{}  {pairs}", fixed("  cache", label_w)));
    }
    // The offsets where the replicas hold different records.
    if let Some(first) = pic.differs.first() {
        let mut l = fixed(&format!("differs at {first}"), label_w) + "  ";
        for o in start..stop {
            l.push(' ');
            l.push_str(&fixed(if pic.differs.contains(&o) { "✗" } else { "" }, CELL - 1));
        }
        lines.push(p.bad(l.trim_end()));
    }
    // Legend: only what is on the picture, and not already shown.
    let mut legend: Vec<String> =
        pic.legend(start, stop, at.elided_before || at.elided_after).into_iter().filter_map(legend_text).collect();
    legend.retain(|item| !shown.contains(item));
    shown.extend(legend.iter().cloned());
    let mut legend_line = String::new();
    for item in legend {
        if !legend_line.is_empty() && visible_width(&legend_line) + 2 + item.chars().count() > width {
            lines.push(p.dim(&legend_line));
            legend_line.clear();
        }
        if !legend_line.is_empty() {
            legend_line.push_str("  ");
        }
        legend_line.push_str(&item);
    }
    if !legend_line.is_empty() {
        lines.push(p.dim(&legend_line));
    }
    for l in lines {
        writeln!(out, "{l}").at("<stdout>", "write")?;
    }
    Ok(())
}

/// A row's cells. Each cell's left border says whether it is committed: `│` solid, `┊` dashed
/// (RaftScope's convention); the right edge after a cell takes that cell's border.
fn cells_line(row: &Row, at: &TextLayout, p: &Palette) -> String {
    let lead = if at.elided_before { "… " } else { "  " };
    let mut line = format!("{}{}", row_label(row, at.label_w), lead);
    let mut previous: Option<&PicCell> = None;
    for o in at.start..at.stop {
        match row.cell_at(o) {
            Some(c) => {
                line.push(border(c));
                line.push_str(&p.epoch_block(c.record.leader_epoch, &cell_text(&c.record, CELL - 1)));
                previous = Some(c);
            }
            None => {
                if let Some(prev) = previous.take() {
                    line.push(border(prev));
                    line.push_str(&" ".repeat(CELL - 1));
                } else {
                    line.push_str(&" ".repeat(CELL));
                }
            }
        }
    }
    if let Some(prev) = previous {
        line.push(border(prev));
    }
    let holds_later = row.marks.iter().any(|(m, o)| *m == Mark::LogEnd && *o > at.stop);
    if at.elided_after && holds_later {
        line.push_str(" …");
    }
    line.trim_end().to_string()
}

/// Batches of more than one record in view: a bracket under their cells.
fn bracket_line(row: &Row, at: &TextLayout) -> Option<String> {
    let runs = batch_runs(row, at.start, at.stop);
    if runs.is_empty() {
        return None;
    }
    let mut l: Vec<char> = " ".repeat(at.col_of(at.stop) + 1).chars().collect();
    for (a, b) in &runs {
        let (x0, x1) = (at.col_of(*a) + 1, at.col_of(*b) + CELL - 1);
        l[x0] = '╰';
        for ch in l.iter_mut().take(x1).skip(x0 + 1) {
            *ch = '─';
        }
        l[x1] = '╯';
    }
    Some(l.into_iter().collect::<String>().trim_end().to_string())
}

/// Each cell's fate under it, when the row has any.
fn fate_line(row: &Row, at: &TextLayout, p: &Palette) -> Option<String> {
    if !row.cells.iter().any(|c| c.fate.is_some()) {
        return None;
    }
    let mut l = fixed("  fate", at.label_w) + "  ";
    for o in at.start..at.stop {
        let text = row.cell_at(o).and_then(|c| c.fate).map_or("", |f| f.label());
        // Paint the word, not its padding, so a trailing pad is trimmed either way.
        let painted = match row.cell_at(o).and_then(|c| c.fate) {
            Some(f) if f.is_bad() => p.bad(text),
            Some(Fate::Kept) | None => text.to_string(),
            Some(_) => p.warn(text),
        };
        l.push(' ');
        l.push_str(&painted);
        l.push_str(&" ".repeat((CELL - 1).saturating_sub(text.chars().count())));
    }
    Some(l.trim_end().to_string())
}

/// Marks: an arrow on the left edge of the cell at the mark's offset; every number in the
/// label column.
fn mark_lines(row: &Row, at: &TextLayout) -> Vec<String> {
    let labels: Vec<(usize, String)> = row
        .marks_between(at.start, at.stop)
        .iter()
        .map(|(o, ms)| {
            let arrow = if ms.contains(&Mark::Cut) { '✂' } else { '↑' };
            (at.col_of(*o), format!("{arrow}{}", ms.iter().map(|m| m.label()).collect::<Vec<_>>().join(",")))
        })
        .collect();
    let line_width = at.col_of(at.stop) + ELIDE + 1;
    let placed = place(&labels, line_width);
    let numbers = fixed(&format!("  {}", row.marks_text()), at.label_w);
    let mut lines = Vec::new();
    for (i, l) in placed.iter().enumerate() {
        let head = if i == 0 { numbers.clone() } else { " ".repeat(at.label_w) };
        let rest: String = l.chars().skip(at.label_w).collect();
        lines.push(format!("{head}{rest}").trim_end().to_string());
    }
    if placed.is_empty() && !super::tier_picture::is_remote_row(row) {
        lines.push(numbers.trim_end().to_string());
    }
    lines
}

/// A legend item in the terminal's words. `e2` means two things: a cell's batch epoch, and
/// after a role the epoch a replica runs at.
fn legend_text(item: LegendItem) -> Option<String> {
    Some(match item {
        LegendItem::Epochs => "eN: a batch's epoch; after a role, the replica's".to_string(),
        LegendItem::Committed => "│ committed (below a HW)".into(),
        LegendItem::NotCommitted => "┊ not yet committed".into(),
        LegendItem::Batch => "╰─╯ one batch".into(),
        LegendItem::Cut => "✂ cut: where the truncation cuts the log".into(),
        // The terminal says it in words under the picture (a `!` line).
        LegendItem::AckedFlag => return None,
        LegendItem::Cache => format!("cache: the epoch cache, entries {}", super::epoch_cache::KEY),
        LegendItem::Marks => "↑ mark before the offset (LS log start, RP recovery point)".into(),
        LegendItem::Elided => "… more offsets".into(),
        LegendItem::Differs => "✗ replicas differ".into(),
        LegendItem::Fate(f) => format!("{} = {}", f.label(), f.meaning()),
        LegendItem::Transactions => super::txn_picture::TEXT_LEGEND.to_string(),
        LegendItem::Tiers => super::tier_picture::TEXT_LEGEND.to_string(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rec(offset: i64, leader_epoch: i32, value: &str, base: i64, last: i64) -> DrawnRecord {
        DrawnRecord {
            offset,
            leader_epoch,
            value: Some(value.as_bytes().to_vec()),
            batch_base_offset: base,
            batch_last_offset: last,
            batch_crc: (leader_epoch as u32) << 8 | base as u32,
        }
    }

    fn replica(name: &str, records: Vec<DrawnRecord>, hw: i64) -> DrawnReplica {
        let leo = records.last().map_or(0, |r| r.offset + 1);
        DrawnReplica {
            name: name.into(),
            role: crate::replica::ReplicaRole::Leader,
            leader_epoch: Some(1),
            log_start_offset: 0,
            high_watermark: hw,
            recovery_point: 0,
            log_end_offset: leo,
            records,
            epochs: vec![(1, 0)],
        }
    }

    fn settings() -> Settings {
        Settings { color: false, width: Some(80), table_width: Some(80), progress: false, truecolor: false }
    }

    #[test]
    fn differing_offsets_are_marked_and_every_line_fits_80_columns() {
        let a = replica("a", vec![rec(0, 0, "m1", 0, 0), rec(1, 1, "m3", 1, 1)], 1);
        let b = replica("b", vec![rec(0, 0, "m1", 0, 0), rec(1, 0, "m2", 1, 1)], 2);
        let pic = Picture::of_draw(&DrawReport { replicas: vec![a, b], from: 0, end: 24, focus: 1, warnings: vec![] });
        assert_eq!(pic.differs, vec![1]);
        let mut out = Vec::new();
        write_text(&mut out, &pic, &settings()).unwrap();
        let text = String::from_utf8(out).unwrap();
        assert!(text.contains("differs at 1"), "{text}");
        assert!(text.contains("e1 m3") && text.contains("e0 m2"), "{text}");
        assert!(text.lines().all(|l| l.chars().count() <= 80), "{text}");
    }

    #[test]
    fn long_logs_are_windowed_around_the_focus_with_an_elision_mark() {
        let records: Vec<DrawnRecord> = (0..1000).map(|o| rec(o, 0, "v", o, o)).collect();
        let a = replica("a", records, 500);
        let pic = Picture::of_draw(&DrawReport { replicas: vec![a], from: 0, end: 1000, focus: 500, warnings: vec![] });
        let mut out = Vec::new();
        write_text(&mut out, &pic, &settings()).unwrap();
        let text = String::from_utf8(out).unwrap();
        assert!(text.contains(" 500") && text.contains('…'), "{text}");
        assert!(!text.contains(" 400 "), "{text}");
        assert!(text.matches('│').count() < 20, "{text}");
    }

    /// Offsets anywhere up to `i64::MAX` (a flipped `baseOffset` bit): the picture's work is
    /// bounded by the records held, never by the offset range, and the differing offsets are
    /// exactly those a record-by-record comparison finds.
    #[test]
    fn pictures_of_offsets_up_to_i64_max_are_drawn_in_time_bounded_by_records() {
        let mut x = 0x2545_f491_4f6c_dd1du64;
        let mut next = move || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        };
        let started = std::time::Instant::now();
        for case in 0..300 {
            let mut rows = Vec::new();
            for name in ["a", "b", "c"].iter().take(1 + case % 3) {
                let mut offsets: Vec<i64> = (0..next() % 6)
                    .map(|_| match next() % 4 {
                        0 => (next() % 8) as i64,
                        1 => (1i64 << 38) + (next() % 4) as i64,
                        2 => i64::MAX - 1 - (next() % 4) as i64,
                        _ => (next() >> 1) as i64 % i64::MAX,
                    })
                    .collect();
                offsets.sort_unstable();
                offsets.dedup();
                let records: Vec<DrawnRecord> =
                    offsets.iter().map(|&o| rec(o, (next() % 2) as i32, "v", o, o)).collect();
                let mut r = replica(name, records, 0);
                r.log_end_offset = offsets.last().map_or(0, |o| o + 1);
                r.high_watermark = (next() >> 1) as i64;
                rows.push(r);
            }
            let from = [0, 1 << 38, i64::MAX - 8][case % 3];
            let report = DrawReport { replicas: rows, from, end: i64::MAX, focus: from, warnings: vec![] };
            let pic = Picture::of_draw(&report);
            // Brute force over the offsets some row holds.
            let mut held: Vec<i64> = report.replicas.iter().flat_map(|r| r.records.iter().map(|c| c.offset)).collect();
            held.sort_unstable();
            held.dedup();
            let expected: Vec<i64> = held
                .into_iter()
                .filter(|o| *o >= from)
                .filter(|o| {
                    let at: Vec<&DrawnRecord> =
                        report.replicas.iter().filter_map(|r| r.records.iter().find(|c| c.offset == *o)).collect();
                    at.windows(2).any(|w| !w[0].same_batch(w[1]))
                })
                .collect();
            assert_eq!(pic.differs, expected, "case {case}");
            let (start, stop) = pic.window(8);
            assert!(start <= stop && stop - start <= 8, "case {case}");
            let mut out = Vec::new();
            write_text(&mut out, &pic, &settings()).unwrap();
        }
        assert!(started.elapsed() < std::time::Duration::from_secs(20), "took {:?}", started.elapsed());
    }

    /// Committed cells (below the leader's HW, or below a HW of a row holding the same batch)
    /// get a solid border, the rest a dashed one; an acknowledged record the leader lacks is
    /// flagged ACK-LOST; the legend names exactly the marks drawn.
    #[test]
    fn commitment_borders_flags_and_a_legend_of_only_what_is_drawn() {
        let leader = replica("a", vec![rec(0, 1, "m1", 0, 0), rec(1, 1, "m2", 1, 2), rec(2, 1, "m3", 1, 2)], 1);
        let mut follower = replica("b", vec![rec(0, 1, "m1", 0, 0), rec(1, 0, "x", 1, 1)], 0);
        follower.role = crate::replica::ReplicaRole::Follower;
        let pic = Picture::of_draw(&DrawReport {
            replicas: vec![leader, follower.clone()],
            from: 0,
            end: 3,
            focus: 0,
            warnings: vec![],
        });
        let committed: Vec<Vec<bool>> =
            pic.rows.iter().map(|r| r.cells.iter().map(|c| c.committed).collect()).collect();
        assert_eq!(committed, vec![vec![true, false, false], vec![true, false]]);
        assert!(pic.rows.iter().all(|r| r.cells.iter().all(|c| c.fate.is_none())));
        let mut out = Vec::new();
        write_text(&mut out, &pic, &settings()).unwrap();
        let text = String::from_utf8(out).unwrap();
        let row = text.lines().find(|l| l.starts_with("a leader")).unwrap();
        assert!(row.contains("│e1 m1   ┊e1 m2   ┊e1 m3   ┊"), "{text}");
        for item in ["│ committed", "┊ not yet committed", "╰─╯ one batch", "cache:", "✗ replicas differ"] {
            assert!(text.contains(item), "{item} missing:\n{text}");
        }
        for item in ["✂", "ACK-LOST", "… more offsets"] {
            assert!(!text.contains(item), "{item} not drawn but in the legend:\n{text}");
        }
        // The follower's x at offset 1 was acknowledged (its own HW 2 passed it) and the
        // leader holds another record there: flagged, and said under the picture.
        follower.high_watermark = 2;
        let leader = replica("a", vec![rec(0, 1, "m1", 0, 0), rec(1, 1, "m2", 1, 1)], 1);
        let pic = Picture::of_draw(&DrawReport {
            replicas: vec![leader, follower],
            from: 0,
            end: 2,
            focus: 0,
            warnings: vec![],
        });
        let fates: Vec<Option<Fate>> = pic.rows[1].cells.iter().map(|c| c.fate).collect();
        assert_eq!(fates, vec![None, Some(Fate::AckedLost)]);
        assert_eq!(
            pic.acked_alerts(),
            vec!["x (offset 1, epoch 0) on b was acknowledged, and the leader does not hold it: lost"]
        );
        let mut out = Vec::new();
        write_text(&mut out, &pic, &settings()).unwrap();
        let text = String::from_utf8(out).unwrap();
        assert!(text.contains("ACK-LOST = acked, and the leader does not hold it: lost"), "{text}");
        assert!(!text.contains("╰─╯") && text.contains("┊e1 m2"), "{text}");
    }

    #[test]
    fn marks_that_share_an_offset_share_one_arrow_and_overlapping_ones_take_a_new_line() {
        let placed = place(&[(0, "↑HW,LEO".into()), (3, "↑cut".into()), (20, "↑x".into())], 40);
        assert_eq!(placed, vec!["↑HW,LEO             ↑x".to_string(), "   ↑cut".to_string()]);
    }
}
