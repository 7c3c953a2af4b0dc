//! `klog draw`: read replica dirs (never writing them) and return what a picture of them needs:
//! each replica's role, leader epoch and offset marks (log start, HW, recovery point, LEO), and
//! the records of one window of offsets with their batch bounds. The window is chosen around
//! what is interesting — the first offset where the replicas' epoch histories disagree, else the
//! lowest HW — so a long log never becomes thousands of cells. Laying out and drawing the
//! picture is `output::picture`'s job.

use crate::error::{Error, Result};
use crate::replica::{Replica, ReplicaRole};
use crate::replication::diff::{OwnedRecord, RecordCursor};
use std::path::{Path, PathBuf};

/// Bytes of a value a cell may show (as text or hex); a longer value is read only this far.
pub const VALUE_BYTES_MAX: usize = 256;

/// Offsets read when no `--limit` is given: enough for a terminal or an SVG, never thousands.
pub const DEFAULT_LIMIT: i64 = 24;

pub struct DrawRequest<'a> {
    pub dirs: &'a [PathBuf],
    pub partition: Option<&'a str>,
    /// First offset of the window; default: a little before the interesting offset.
    pub from: Option<i64>,
    /// Offsets in the window.
    pub limit: i64,
}

/// One record as a cell of the picture.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DrawnRecord {
    pub offset: i64,
    pub leader_epoch: i32,
    /// The record's value bytes (`None` for a null value); the picture decides how to show them.
    pub value: Option<Vec<u8>>,
    pub batch_base_offset: i64,
    pub batch_last_offset: i64,
    pub batch_crc: u32,
}

impl DrawnRecord {
    pub fn from_owned(r: &OwnedRecord) -> DrawnRecord {
        DrawnRecord {
            offset: r.offset,
            leader_epoch: r.leader_epoch,
            value: r.value.as_deref().map(|v| crate::replication::diff::prefix(v, VALUE_BYTES_MAX + 1)),
            batch_base_offset: r.batch_base_offset,
            batch_last_offset: r.batch_last_offset,
            batch_crc: r.batch_crc,
        }
    }

    /// The same batch as Kafka's fetch would copy it (offsets, epoch, CRC).
    pub fn same_batch(&self, other: &DrawnRecord) -> bool {
        self.batch_base_offset == other.batch_base_offset
            && self.batch_last_offset == other.batch_last_offset
            && self.leader_epoch == other.leader_epoch
            && self.batch_crc == other.batch_crc
    }
}

/// One replica: its marks and the records of the window.
#[derive(Debug, Clone)]
pub struct DrawnReplica {
    pub name: String,
    pub role: ReplicaRole,
    /// The leader epoch it works in (its volatile one when running, else its cache's latest).
    pub leader_epoch: Option<i32>,
    pub log_start_offset: i64,
    pub high_watermark: i64,
    pub recovery_point: i64,
    pub log_end_offset: i64,
    pub records: Vec<DrawnRecord>,
    /// Its leader-epoch cache as (epoch, start offset) pairs.
    pub epochs: Vec<(i32, i64)>,
}

#[derive(Debug, Clone)]
pub struct DrawReport {
    pub replicas: Vec<DrawnReplica>,
    /// The window read: offsets `from <= offset < end`.
    pub from: i64,
    pub end: i64,
    /// The offset the picture is about: the first epoch disagreement, else the lowest HW.
    pub focus: i64,
    /// Why rows may not be copies of one partition (as `diff` warns).
    pub warnings: Vec<String>,
}

/// The short name of a replica dir: its last path component (`/tmp/lab/a` → `a`).
pub fn short_name(dir: &Path) -> String {
    dir.file_name().map_or_else(|| dir.display().to_string(), |n| n.to_string_lossy().into_owned())
}

/// Read one replica's marks and its records in `[from, end)`.
pub fn draw_replica(name: String, r: &Replica, from: i64, end: i64) -> Result<DrawnReplica> {
    let leo = r.log_end_offset();
    let mut records = Vec::new();
    let (lo, hi) = (from.max(r.log_start_offset()), end.min(leo));
    if lo < hi {
        // One byte past what a cell shows, so the cell knows to elide.
        let mut cursor = RecordCursor::new(r.log(), lo, hi)?.with_bytes_max(VALUE_BYTES_MAX + 1);
        while let Some(rec) = cursor.next_record()? {
            records.push(DrawnRecord::from_owned(&rec));
        }
    }
    Ok(DrawnReplica {
        name,
        role: ReplicaRole::of(r),
        leader_epoch: crate::replica::current_leader_epoch(r),
        log_start_offset: r.log_start_offset(),
        high_watermark: r.high_watermark(),
        recovery_point: r.recovery_point(),
        log_end_offset: leo,
        records,
        epochs: r.log().epoch_cache().entries().iter().map(|e| (e.leader_epoch, e.start_offset)).collect(),
    })
}

/// What a recovery's picture shows, chosen here once (as [`DrawReport`] carries `draw`'s
/// window): offsets `from <= offset < end`, the offset it is about, and the leader's records
/// over the window. Renderers draw it as it is; they never choose a window of their own.
#[derive(Debug, Clone)]
pub struct RecoveryDrawing {
    pub from: i64,
    pub end: i64,
    /// The first divergent offset, else the cut.
    pub focus: i64,
    pub leader_records: Vec<DrawnRecord>,
}

/// A recovery's picture over the window its report chose
/// ([`FollowerRecoverReport::picture_window`](super::recover::FollowerRecoverReport::picture_window)),
/// with the leader's records over it read from `leader_dir`.
pub fn draw_recovery(
    (from, end, focus): (i64, i64, i64),
    leader_dir: &Path,
    partition: Option<&str>,
) -> Result<RecoveryDrawing> {
    let leader_records = records_in(leader_dir, partition, from, end)?;
    Ok(RecoveryDrawing { from, end, focus, leader_records })
}

/// The records of `dir` in `[from, end)`, read only (for the leader's row of a recovery's
/// picture, which the recovery report holds only at the follower's offsets).
pub fn records_in(dir: &Path, partition: Option<&str>, from: i64, end: i64) -> Result<Vec<DrawnRecord>> {
    let r = Replica::open(dir, partition)?;
    Ok(draw_replica(short_name(dir), &r, from, end)?.records)
}

/// The first offset below every LEO where two replicas' epoch caches put different epochs:
/// where their logs can first differ (the same test `recover` uses to place its window).
pub fn first_epoch_divergence(replicas: &[&Replica]) -> Option<i64> {
    let end = replicas.iter().map(|r| r.log_end_offset()).min()?;
    let mut points: Vec<i64> = replicas
        .iter()
        .flat_map(|r| r.log().epoch_cache().entries().iter().map(|e| e.start_offset))
        .chain(replicas.iter().map(|r| r.log_start_offset()))
        .collect();
    points.sort_unstable();
    points.dedup();
    points.into_iter().filter(|p| *p < end).find(|p| {
        let first = replicas[0].log().epoch_cache().epoch_for_offset(*p);
        replicas[1..].iter().any(|r| r.log().epoch_cache().epoch_for_offset(*p) != first)
    })
}

/// The window for `replicas`: `[from, from + limit)`, `from` defaulting to a third of the window
/// before the focus.
pub fn window(replicas: &[&Replica], from: Option<i64>, limit: i64) -> (i64, i64, i64) {
    let start = replicas.iter().map(|r| r.log_start_offset()).min().unwrap_or(0);
    let end_max = replicas.iter().map(|r| r.log_end_offset()).max().unwrap_or(0);
    let lowest_hw = replicas.iter().map(|r| r.high_watermark()).min().unwrap_or(0);
    let focus = first_epoch_divergence(replicas).unwrap_or(lowest_hw).clamp(start, end_max.max(start));
    match from {
        // Asked for a window: it starts where asked, so that is what stays in view.
        Some(from) => (from, from.saturating_add(limit.max(1)), from),
        None => {
            let from = focus.saturating_sub(limit / 3).min(end_max.saturating_sub(limit)).max(start);
            (from, from.saturating_add(limit.max(1)), focus)
        }
    }
}

pub fn run(req: &DrawRequest<'_>) -> Result<DrawReport> {
    if req.dirs.is_empty() {
        return Err(Error::Usage("draw: name at least one replica dir".into()));
    }
    // Every row is paired with the first as `diff` pairs two replicas: a replica of another
    // partition refuses, one of another cluster or topic of that name is a warning.
    let first = Replica::open(&req.dirs[0], req.partition)?;
    let mut warnings = Vec::new();
    let mut opened = vec![];
    for d in &req.dirs[1..] {
        let (r, w) = crate::replica::open_compared(&first, d, req.partition, &d.display().to_string())?;
        warnings.extend(w);
        opened.push(r);
    }
    opened.insert(0, first);
    let refs: Vec<&Replica> = opened.iter().collect();
    let (from, end, focus) = window(&refs, req.from, req.limit);
    let replicas = req
        .dirs
        .iter()
        .zip(&opened)
        .map(|(d, r)| draw_replica(short_name(d), r, from, end))
        .collect::<Result<Vec<_>>>()?;
    Ok(DrawReport { replicas, from, end, focus, warnings })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn short_names_are_the_last_path_component() {
        assert_eq!(short_name(Path::new("/tmp/lab/a")), "a");
        assert_eq!(short_name(Path::new("b")), "b");
    }
}
