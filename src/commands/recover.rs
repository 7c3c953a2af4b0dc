//! `klog recover`: local log recovery of one replica, or — with `--leader` — restarting a
//! replica as a follower: local recovery, fencing, truncation by the chosen Kafka era's rule,
//! and a record-by-record account of what was kept, truncated, lost and left diverged
//! (replication-model.md, operation 6, "What the report calls things").

use super::fetch::{fenced, fetch_rounds, follower_facts, open_pair_for_write_fenced, FetchReport, FetchRequest};
use crate::error::{Error, Result};
use crate::log::recovery::RecoveryReport;
use crate::replica::{LogDirFiles, Replica, Role};
use crate::replication::diff::{self, DiffOutcome, OwnedRecord, RecordCursor};
use crate::replication::fencing::may_become_follower;
use crate::replication::fetch::{clamp_after_truncation, DEFAULT_FETCH_MAX_BYTES};
use crate::replication::truncation::{plan_truncation, ReplicaView, TruncationMode, TruncationPlan};
use std::path::Path;

/// Rows of the record table kept in a report (the counts cover everything).
pub const MAX_ROWS: usize = 2000;

pub struct RecoverRequest<'a> {
    pub dir: &'a Path,
    pub partition: Option<&'a str>,
    pub leader: Option<&'a Path>,
    pub mode: TruncationMode,
    pub dry_run: bool,
    pub catch_up: bool,
    /// Kept records shown before the first interesting offset.
    pub context: i64,
}

#[derive(Debug)]
pub struct LocalRecoverReport {
    pub dir: String,
    pub dry_run: bool,
    /// The replica was running: nothing to recover.
    pub was_running: bool,
    pub recovery: Option<RecoveryReport>,
}

use crate::replication::classify::{self, AtLeader};
pub use crate::replication::classify::{ClassCounts, RecordClass};

#[derive(Debug, Clone)]
pub struct RecordRow {
    pub follower: OwnedRecord,
    pub leader: Option<OwnedRecord>,
    pub class: RecordClass,
    /// Committed by the rule of the report: below F's HW before truncation or below L's HW.
    pub acked: bool,
}

#[derive(Debug)]
pub struct FollowerRecoverReport {
    pub mode: TruncationMode,
    pub dry_run: bool,
    pub leader_dir: String,
    pub follower_dir: String,
    pub leader_epoch: i32,
    pub local: Option<RecoveryReport>,
    pub leader_view: ReplicaView,
    pub follower_view: ReplicaView,
    pub plan: TruncationPlan,
    /// Where the follower's log is actually cut (a batch boundary at or below the plan's offset).
    pub cut_offset: i64,
    pub follower_log_end_offset_after: i64,
    pub follower_high_watermark_after: i64,
    pub rows: Vec<RecordRow>,
    pub rows_omitted: u64,
    /// Offsets below the table's window, all kept.
    pub kept_below_window: i64,
    pub counts: ClassCounts,
    pub first_divergent_offset: Option<i64>,
    pub catch_up: Option<FetchReport>,
    /// Comparison of the two logs after catching up.
    pub after_catch_up: Option<DiffOutcome>,
}

pub enum RecoverReport {
    Local(LocalRecoverReport),
    Follower(Box<FollowerRecoverReport>),
}

pub fn run(req: &RecoverRequest<'_>) -> Result<RecoverReport> {
    run_fenced(req, true)
}

/// The log dirs' files a data-dir run has already read: each partition's dry run opens its
/// replicas with them instead of reading the checkpoints again (linear in partitions).
#[derive(Clone, Copy, Default)]
pub struct LogDirsRead<'a> {
    pub dir: Option<&'a LogDirFiles>,
    pub leader: Option<&'a LogDirFiles>,
}

/// [`run`] with the log dirs' files already read (used for dry runs; a real run reads under
/// its lock).
pub fn run_in(req: &RecoverRequest<'_>, read: LogDirsRead<'_>) -> Result<RecoverReport> {
    run_fenced_in(req, true, read)
}

/// [`run`]; with `fencing` false (`recover --no-fencing`, Kafka before KIP-320, what `klog
/// explore --no-fencing` models) the follower takes any leader: neither FENCED_LEADER_EPOCH nor
/// a running replica's refusal of a leader change that is not above its epoch.
pub fn run_fenced(req: &RecoverRequest<'_>, fencing: bool) -> Result<RecoverReport> {
    run_fenced_in(req, fencing, LogDirsRead::default())
}

fn run_fenced_in(req: &RecoverRequest<'_>, fencing: bool, read: LogDirsRead<'_>) -> Result<RecoverReport> {
    match req.leader {
        None => local(req, read).map(RecoverReport::Local),
        Some(leader) => as_follower(req, leader, fencing, read).map(|r| RecoverReport::Follower(Box::new(r))),
    }
}

fn local(req: &RecoverRequest<'_>, read: LogDirsRead<'_>) -> Result<LocalRecoverReport> {
    if req.dry_run {
        let mut r = Replica::open_with(req.dir, req.partition, read.dir)?;
        let running = r.is_running();
        let recovery = r.preview_start()?;
        return Ok(LocalRecoverReport {
            dir: shown_dir(&r, req.partition),
            dry_run: true,
            was_running: running,
            recovery,
        });
    }
    let mut r = Replica::open_for_write(req.dir, req.partition)?;
    let running = r.is_running();
    let recovery = r.start()?;
    Ok(LocalRecoverReport { dir: shown_dir(&r, req.partition), dry_run: false, was_running: running, recovery })
}

/// The first offset below both LEOs where the two epoch caches put different epochs.
fn first_epoch_divergence(a: &Replica, b: &Replica, end: i64) -> Option<i64> {
    let ca = a.log.epoch_cache();
    let cb = b.log.epoch_cache();
    let mut points: Vec<i64> = ca.entries().iter().chain(cb.entries()).map(|e| e.start_offset).collect();
    points.push(a.log_start_offset.max(b.log_start_offset));
    points.sort_unstable();
    points.dedup();
    points.into_iter().filter(|p| *p < end).find(|p| ca.epoch_for_offset(*p) != cb.epoch_for_offset(*p))
}

/// The replica as a report names it: its log dir, and the partition when one was picked.
fn shown_dir(r: &Replica, partition: Option<&str>) -> String {
    match partition {
        Some(p) => format!("{} ({p})", r.paths.log_dir.display()),
        None => r.paths.log_dir.display().to_string(),
    }
}

/// The leader epoch of `leader` as `recover --leader` sees it: a running leader's epoch; for a
/// dry run on a broker's data dir without klog's state, the operator names the leader, and its
/// epoch is the latest in its cache (replication-model.md, Fencing).
fn leader_epoch_of(leader: &Replica, dry_run: bool) -> Result<i32> {
    let state = leader.will_run_as();
    if state.role == Role::Leader {
        return Ok(state.leader_epoch);
    }
    if dry_run && leader.is_broker_dir() {
        return Ok(leader.log.epoch_cache().latest_epoch().unwrap_or(-1));
    }
    Err(Error::state(
        &leader.paths.log_dir,
        format!("is not a leader (it is {}); make it one with `klog elect`", crate::commands::role_name(leader)),
    ))
}

fn as_follower(
    req: &RecoverRequest<'_>,
    leader_path: &Path,
    fencing: bool,
    read: LogDirsRead<'_>,
) -> Result<FollowerRecoverReport> {
    // Open, validate and fence before anything is written (a dry run opens read-only).
    let (leader, mut follower) = if req.dry_run {
        let l = Replica::open_with(leader_path, req.partition, read.leader)?;
        let f = Replica::open_with(req.dir, Some(&l.paths.name()), read.dir).or_else(|e| match e {
            Error::Layout { .. } if req.partition.is_none() => Replica::open(req.dir, None),
            e => Err(e),
        })?;
        l.ensure_distinct(&f)?;
        l.ensure_same_partition(&f)?;
        (l, f)
    } else {
        let (l, f) = open_pair_for_write_fenced(leader_path, req.dir, req.partition, fencing)?;
        (l, f)
    };
    let leader_epoch = leader_epoch_of(&leader, req.dry_run)?;
    let facts = follower_facts(&follower, &leader, false);
    if fencing {
        may_become_follower(&facts, leader_epoch).map_err(|why| fenced(&leader, &follower, &why))?;
    }
    // Local recovery (really, or on the in-memory view for a dry run).
    let local = if req.dry_run { follower.preview_start()? } else { follower.start()? };
    if req.dry_run {
        follower.high_watermark = follower.high_watermark.min(follower.log_end_offset());
    }
    let f_leo = follower.log_end_offset();
    let f_hw = follower.high_watermark.min(f_leo);
    let leader_view =
        ReplicaView::new(leader.log.epoch_cache().clone(), leader.log_end_offset(), leader.high_watermark);
    let follower_view = ReplicaView::new(follower.log.epoch_cache().clone(), f_leo, f_hw);
    let plan = plan_truncation(req.mode, &leader_view, &follower_view);
    // Truncation cuts at a batch boundary: a batch straddling the target goes whole. The dry
    // run asks the log the same question the real truncation does.
    let cut_offset = follower.log.cut_offset_for(plan.truncation_offset)?.min(f_leo);
    // Classify the follower's records from a window before the first interesting offset.
    let divergence = first_epoch_divergence(&follower, &leader, f_leo.min(leader.log_end_offset()));
    let interesting = divergence.map_or(cut_offset, |d| d.min(cut_offset));
    let window = (interesting - req.context).max(follower.log_start_offset).min(f_leo);
    let mut fc = RecordCursor::new(&follower.log, window, f_leo)?;
    let mut lc = RecordCursor::new(&leader.log, window, leader.log_end_offset())?;
    let mut lrec = lc.next_record()?;
    let mut rows = Vec::new();
    let mut rows_omitted = 0;
    let mut counts = ClassCounts::default();
    let mut first_divergent_offset = None;
    while let Some(frec) = fc.next_record()? {
        while lrec.as_ref().is_some_and(|l| l.offset < frec.offset) {
            lrec = lc.next_record()?;
        }
        let at_leader = lrec.as_ref().filter(|l| l.offset == frec.offset).cloned();
        let there = match &at_leader {
            None => AtLeader::Nothing,
            Some(l) if l.same_batch(&frec) => AtLeader::SameBatch,
            Some(_) => AtLeader::Different,
        };
        let acked = classify::acked(frec.offset, f_hw, leader.high_watermark);
        let class = classify::classify(frec.offset, there, cut_offset, acked);
        counts.add(class, acked);
        if class == RecordClass::Diverged {
            first_divergent_offset.get_or_insert(frec.offset);
        }
        if rows.len() < MAX_ROWS {
            rows.push(RecordRow { follower: frec, leader: at_leader, class, acked });
        } else {
            rows_omitted += 1;
        }
    }
    let kept_below_window = window - follower.log_start_offset;
    let mut report = FollowerRecoverReport {
        mode: req.mode,
        dry_run: req.dry_run,
        leader_dir: leader.paths.log_dir.display().to_string(),
        follower_dir: shown_dir(&follower, req.partition),
        leader_epoch,
        local,
        leader_view,
        follower_view,
        plan,
        cut_offset,
        follower_log_end_offset_after: cut_offset.min(f_leo),
        follower_high_watermark_after: f_hw.min(cut_offset),
        rows,
        rows_omitted,
        kept_below_window,
        counts,
        first_divergent_offset,
        catch_up: None,
        after_catch_up: None,
    };
    if req.dry_run {
        return Ok(report);
    }
    let mut leader = leader;
    leader.start()?;
    follower.note_epoch_seen(leader_epoch)?;
    follower.log.truncate_to(cut_offset)?;
    clamp_after_truncation(&mut follower)?;
    if let Some(s) = follower.state.as_mut() {
        s.role = Role::Follower;
        s.leader = Some(leader.identity());
        s.leader_epoch = leader_epoch;
        s.isr.clear();
        s.follower_fetch_offsets.clear();
    }
    follower.save_state()?;
    report.follower_log_end_offset_after = follower.log_end_offset();
    report.follower_high_watermark_after = follower.high_watermark;
    if req.catch_up {
        let (rounds, caught_up) = fetch_rounds(
            &mut leader,
            &mut follower,
            &FetchRequest {
                leader: leader_path,
                follower: req.dir,
                partition: None,
                rounds: 1,
                until_caught_up: true,
                max_bytes: DEFAULT_FETCH_MAX_BYTES,
                flush: false,
            },
        )?;
        report.after_catch_up = Some(diff::diff_logs(&leader.log, &follower.log)?);
        report.catch_up = Some(FetchReport { rounds, leader_startup: None, follower_startup: None, caught_up });
    }
    Ok(report)
}
