//! The remote tier on the picture (`klog demo tiers`): each replica's log start across both
//! tiers (`LS`) and its local log start (`LLS`) when they differ, and a row `remote tier` under
//! the replicas holding the finished remote segments' records (read from their
//! LocalTieredStorage files: offsets and epochs as any row). A segment the current leader's
//! epoch lineage leaves out is marked `UNSERVED` in its cells' fate line: the leader never
//! answers a fetch from it. [`overlay`] puts them on a [`Picture`] from the demo's
//! [`TierView`]; both renderers draw the row as any other (no epoch cache beside it).

use super::picture::{Fate, Mark, PicCell, Picture, Row};
use crate::commands::demo::tiers::TierView;

/// The remote tier's row name.
pub const REMOTE_ROW: &str = "remote";

/// The terminal legend's item.
pub const TEXT_LEGEND: &str = "LLS: a replica's local log start (below it, its log is in remote storage only); row \
                               remote: the remote tier's finished segments";

/// The SVG legend's item.
pub const SVG_LEGEND: &str = "LS = log start across both tiers, LLS = local log start; the remote row = the remote \
                              tier's finished segments (their records, read from the remote files)";

/// Whether `row` is the remote tier's (no epoch cache of its own).
pub fn is_remote_row(row: &Row) -> bool {
    row.name == REMOTE_ROW
}

/// Whether the picture shows the tiers (then the legend explains them).
pub fn shows_tiers(pic: &Picture) -> bool {
    pic.rows.iter().any(|r| is_remote_row(r) || r.marks.iter().any(|(m, _)| *m == Mark::LocalLogStart))
}

/// A recovery's picture when the follower restarted from remote storage: its records below the
/// leader's local log start are not lost but served from the leader's remote tier (the report's
/// "removed: below leader's log start").
pub fn restart_fates(pic: &mut Picture, r: &crate::commands::recover::FollowerRecoverReport) {
    let Some(aux) = &r.plan.from_remote else { return };
    for row in pic.rows.iter_mut() {
        for c in row.cells.iter_mut() {
            if c.fate == Some(Fate::Lost) && c.record.offset < aux.leader_local_log_start_offset {
                c.fate = Some(Fate::InRemote);
            }
        }
    }
}

/// Put `view` on the picture: the replicas' two starts, then the remote row.
pub fn overlay(pic: &mut Picture, view: &TierView) {
    for row in pic.rows.iter_mut() {
        let Some(t) = view.replicas.iter().find(|t| t.name == row.name) else { continue };
        if t.log_start_offset < t.local_log_start_offset {
            row.marks.retain(|(m, _)| *m != Mark::LogStart);
            row.marks.push((Mark::LogStart, t.log_start_offset));
            row.marks.push((Mark::LocalLogStart, t.local_log_start_offset));
        }
    }
    if view.segments.is_empty() {
        return;
    }
    let mut cells = Vec::new();
    for s in &view.segments {
        for rec in &s.records {
            // Copied only below the LSO, so below a HW: committed.
            let mut c = PicCell::new(rec.clone(), s.unserved.then_some(Fate::Unserved));
            c.committed = true;
            cells.push(c);
        }
    }
    cells.sort_by_key(|c| c.record.offset);
    let lowest = cells.first().map_or(pic.from, |c| c.record.offset);
    pic.rows.push(Row {
        name: REMOTE_ROW.to_string(),
        detail: "tier".to_string(),
        cells,
        marks: Vec::new(),
        epochs: Vec::new(),
    });
    pic.from = pic.from.min(lowest);
    pic.lowest = pic.lowest.min(lowest);
    pic.differs = super::picture::differing_offsets_of(pic);
}
