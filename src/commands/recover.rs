//! `klog recover`: local log recovery of one replica, or — with `--leader` — restarting a
//! replica as a follower: local recovery, fencing, truncation by the chosen Kafka era's rule,
//! and a record-by-record account of what was kept, truncated, lost and left diverged
//! ([the model](crate::replication), operation 6; what the report calls things is
//! [`crate::replication::classify`]).

use crate::error::{Error, Result};
use crate::log::recovery::RecoveryReport;
use crate::replica::{DirIds, LogDirFiles, Replica, ReplicaRole, Role};
use crate::replication::diff::{self, DiffOutcome, OwnedRecord};
use crate::replication::fencing;
use crate::replication::fetch::{fetch_rounds, FetchReport, Rounds, DEFAULT_FETCH_MAX_BYTES};
use crate::replication::follower::{self, Restart};
use crate::replication::on_disk::{fenced, follower_facts};
use crate::replication::release::Rules;
use crate::replication::truncation::{ReplicaView, TruncationMode, TruncationPlan};
use std::path::Path;

/// Rows of the record table kept in a report (the counts cover everything).
pub const MAX_ROWS: usize = 2000;

pub struct RecoverRequest<'a> {
    pub dir: &'a Path,
    pub partition: Option<&'a str>,
    pub leader: Option<&'a Path>,
    /// The release whose follower rules apply (`--kafka`, or the last release of `--mode`'s era).
    pub rules: Rules,
    pub dry_run: bool,
    pub catch_up: bool,
    /// Kept records shown before the first interesting offset.
    pub context: i64,
    /// A dry run's leader epoch as the controller gave it (else the latest in the leader's cache).
    pub leader_epoch: Option<i32>,
    /// The follower heard of `leader_epoch` before the leader, which still runs at a lower epoch
    /// (`--told-first`).
    pub told_first: bool,
    /// Check leader epochs. False is `recover --no-fencing` (Kafka before KIP-320, what `klog
    /// explore --no-fencing` models): the follower takes any leader, neither FENCED_LEADER_EPOCH
    /// nor a running replica's refusal of a leader change that is not above its epoch.
    pub fencing: bool,
    /// `--metadata DIR`: the KRaft metadata log to take the leader, epoch, ISR and ELR from
    /// (else the one in the leader's or the follower's log dir, if any).
    pub metadata: Option<&'a Path>,
    /// `--allow-other-cluster`: plan from a leader, follower or metadata log whose
    /// `meta.properties` do not say they are one cluster's (else refused).
    pub allow_other_cluster: bool,
    /// `--remote-dir DIR`: a LocalTieredStorage dir, where a tiered leader's remote segments'
    /// `.leader_epoch_checkpoint` files are read (a follower below its local log start takes one
    /// as its epoch cache).
    pub remote_dir: Option<&'a Path>,
}

#[derive(Debug)]
pub struct LocalRecoverReport {
    pub dir: String,
    pub dry_run: bool,
    /// The replica was running: nothing to recover.
    pub was_running: bool,
    pub recovery: Option<RecoveryReport>,
}

use crate::replication::classify;
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
    pub rules: Rules,
    /// Where `leader_epoch` came from.
    pub leader_epoch_source: LeaderEpochSource,
    /// The leadership assumed, with what the metadata recorded and the leader's cached epoch.
    pub assumed: AssumedLeader,
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
    /// The follower's HW is a broker's checkpoint (written every
    /// `replica.high.watermark.checkpoint.interval.ms`, 5 s by default), which lags the HW the
    /// broker had: records above it may have been acknowledged. False in klog's labs, whose HW
    /// checkpoint is written at every change.
    pub high_watermark_checkpoint_lags: bool,
    /// Epochs of the follower's records the metadata proves committed: it led them alone in
    /// the ISR as the partition's only replica at min.insync.replicas 1, so its HW followed its
    /// log end (another replica, caught up outside the ISR, would have held it back).
    pub committed_by_metadata: Vec<i32>,
}

impl FollowerRecoverReport {
    /// Offsets the cut removes from the follower's log.
    pub fn offsets_removed(&self) -> i64 {
        self.follower_view.log_end_offset - self.cut_offset.min(self.follower_view.log_end_offset)
    }

    /// The mode's truncation procedure with the lines this recovery ran and the values they saw
    /// (`--explain`).
    pub fn explanation(&self) -> crate::replication::explain::Explanation {
        crate::replication::explain::explain(&self.plan, &self.leader_view, &self.follower_view)
    }
}

/// Offsets a recovery's picture covers at most (the terminal shows as many as fit).
pub const RECOVERY_CELLS: i64 = 24;

impl FollowerRecoverReport {
    /// The window its picture shows ([`recovery_window`] with [`RECOVERY_CELLS`]) and the offset
    /// it is about (the first divergent offset, else the cut): `(from, end, focus)`.
    pub fn picture_window(&self) -> (i64, i64, i64) {
        let (from, end) = recovery_window(self, RECOVERY_CELLS);
        (from, end, self.first_divergent_offset.unwrap_or(self.cut_offset))
    }
}

/// The window of offsets a recovery's picture covers: from the report's first row (or the cut)
/// to the follower's LEO, and on along the leader's log when it is longer, up to `cells`
/// offsets in all.
pub fn recovery_window(r: &FollowerRecoverReport, cells: i64) -> (i64, i64) {
    let from = r.rows.first().map_or(r.cut_offset, |row| row.follower.offset).min(r.cut_offset);
    let follower_end = r.follower_view.log_end_offset.max(from.saturating_add(1));
    let leader_end = r.leader_view.log_end_offset.min(from.saturating_add(cells));
    (from, follower_end.max(leader_end))
}

pub enum RecoverReport {
    Local(Box<LocalRecoverReport>),
    Follower(Box<FollowerRecoverReport>),
}

pub fn run(req: &RecoverRequest<'_>) -> Result<RecoverReport> {
    run_in(req, LogDirsRead::default())
}

/// The log dirs' files a data-dir run has already read: each partition's dry run opens its
/// replicas with them instead of reading the checkpoints again (linear in partitions).
#[derive(Clone, Copy, Default)]
pub struct LogDirsRead<'a> {
    pub dir: Option<&'a LogDirFiles>,
    pub leader: Option<&'a LogDirFiles>,
    /// The metadata log, looked up once for every partition (`Some(None)`: there is none).
    pub metadata: Option<&'a Option<RecordedMetadata>>,
}

/// [`run`] with the log dirs' files already read (used for dry runs; a real run reads under
/// its lock).
pub fn run_in(req: &RecoverRequest<'_>, read: LogDirsRead<'_>) -> Result<RecoverReport> {
    match req.leader {
        None => local(req, read).map(|r| RecoverReport::Local(Box::new(r))),
        Some(leader) => as_follower(req, leader, req.fencing, read).map(|r| RecoverReport::Follower(Box::new(r))),
    }
}

pub use crate::kraft::{AssumedLeader, LeaderEpochSource, RecordedMetadata};

/// Why a restart against a leader never plans the KRaft metadata log.
pub const METADATA_LOG_LEFT_OUT: &str = "the KRaft metadata log is a Raft log (KIP-595): its replicas follow the \
     quorum's leader by the quorum's own epochs (quorum-state, voters) and truncate by Raft's rules, not a partition \
     leader's ISR and HW; klog does not model them, so it plans no restart of it (its local recovery is \
     `klog recover DIR --partition __cluster_metadata-0`)";

/// One decision procedure for the run and the dry run: the same checks and refusals (the dry
/// run probes the lock the run takes), then the same start, whose writes the dry run skips.
fn local(req: &RecoverRequest<'_>, read: LogDirsRead<'_>) -> Result<LocalRecoverReport> {
    let mut r = open_checked(req.dir, req.partition, req.dry_run, read.dir)?;
    let running = r.is_running();
    let recovery = if req.dry_run { r.preview_start()? } else { r.start()? };
    Ok(LocalRecoverReport { dir: shown_dir(&r, req.partition), dry_run: req.dry_run, was_running: running, recovery })
}

/// A replica the run writes, opened for writing, or for the dry run with every check of that
/// open (nothing taken, nothing written). A data-dir dry run passes the dir's files, read once,
/// after checking the log dir once ([`crate::replica::check_log_dir_for_write`]).
fn open_checked(dir: &Path, partition: Option<&str>, dry_run: bool, files: Option<&LogDirFiles>) -> Result<Replica> {
    if !dry_run {
        return Replica::open_for_write(dir, partition);
    }
    match (files, partition) {
        (Some(files), Some(name)) if files.log_dir == dir && files.problems.is_empty() => {
            Replica::open_in_checked(files, name)
        }
        _ => Replica::open_for_check(dir, partition),
    }
}

/// The first offset below both LEOs where the two epoch caches put different epochs.
fn first_epoch_divergence(a: &Replica, b: &Replica, end: i64) -> Option<i64> {
    let ca = a.log().epoch_cache();
    let cb = b.log().epoch_cache();
    let mut points: Vec<i64> = ca.entries().iter().chain(cb.entries()).map(|e| e.start_offset).collect();
    points.push(a.log_start_offset().max(b.log_start_offset()));
    points.sort_unstable();
    points.dedup();
    points.into_iter().filter(|p| *p < end).find(|p| ca.epoch_for_offset(*p) != cb.epoch_for_offset(*p))
}

/// The replica as a report names it: its log dir, and the partition when one was picked.
fn shown_dir(r: &Replica, partition: Option<&str>) -> String {
    match partition {
        Some(p) => format!("{} ({p})", r.paths().log_dir.display()),
        None => r.paths().log_dir.display().to_string(),
    }
}

/// The leader epoch of `leader` as `recover --leader` sees it (run and dry run alike): a running
/// leader's epoch; for a broker's data dir without klog's state, the operator names the leader,
/// and its epoch is the latest in its cache ([`crate::replication::fencing`]); the run then
/// starts it as that leader.
fn leader_epoch_of(leader: &Replica) -> Result<(i32, LeaderEpochSource)> {
    let state = leader.will_run_as();
    if state.role == Role::Leader {
        return Ok((state.leader_epoch, LeaderEpochSource::Running));
    }
    if leader.is_broker_dir() {
        return Ok((leader.log().epoch_cache().latest_epoch().unwrap_or(-1), LeaderEpochSource::LatestCached));
    }
    Err(Error::state(
        &leader.paths().log_dir,
        format!("is not a leader (it is {}); make it one with `klog elect`", ReplicaRole::of(leader).phrase()),
    ))
}

/// `recover F --leader L` where F is the running leader and L one of its followers: the roles
/// look swapped. Electing L (the usual hint) would make a second leader.
fn swapped_roles(leader: &Replica, follower: &Replica) -> Option<Error> {
    let (f, l) = (follower.will_run_as(), leader.will_run_as());
    (f.role == Role::Leader && l.role != Role::Leader).then(|| {
        let (fd, ld) = (follower.paths().log_dir.display(), leader.paths().log_dir.display());
        Error::state(
            &leader.paths().log_dir,
            format!(
                "is not a leader (it is {}), but {fd} leads at epoch {}: the roles look swapped; \
                 the follower's restart is `klog recover {ld} --leader {fd}`",
                ReplicaRole::of(leader).phrase(),
                f.leader_epoch
            ),
        )
    })
}

/// A `--leader-epoch` below the leader's own is refused: a controller never gives a leader an
/// epoch below the one it has.
fn refuse_epoch_below_leaders(leader_epoch: Option<i32>, leader: &Replica, cached_epoch: i32) -> Result<()> {
    match leader_epoch.filter(|e| *e < cached_epoch) {
        Some(e) => Err(Error::state(
            &leader.paths().log_dir,
            format!(
                "is at leader epoch {cached_epoch}, above --leader-epoch {e}: a controller never gives a leader an \
                 epoch below its own; give --leader-epoch {cached_epoch} or above, or leave it out"
            ),
        )),
        None => Ok(()),
    }
}

fn as_follower(
    req: &RecoverRequest<'_>,
    leader_path: &Path,
    fencing: bool,
    read: LogDirsRead<'_>,
) -> Result<FollowerRecoverReport> {
    // Open, validate and fence before anything is written: the run and the dry run take the
    // same checks and refusals (the dry run probes the locks the run takes).
    let (leader, mut follower) = open_restart_pair(req, leader_path, read)?;
    let (cached_epoch, source) =
        leader_epoch_of(&leader).map_err(|e| swapped_roles(&leader, &follower).unwrap_or(e))?;
    refuse_epoch_below_leaders(req.leader_epoch, &leader, cached_epoch)?;
    // The metadata is read for a broker's dir (klog's state is the truth of a leader klog runs),
    // and whenever --metadata names it.
    let looked_up;
    let metadata = match read.metadata {
        Some(m) => m.as_ref(),
        None if source == LeaderEpochSource::Running && req.metadata.is_none() => None,
        None => {
            looked_up = RecordedMetadata::find(&leader.paths().log_dir, &follower.paths().log_dir, req.metadata)?;
            if let Some(m) = &looked_up {
                let dirs = [DirIds::of(&leader), DirIds::of(&follower)];
                crate::replica::ensure_metadata_of(&m.log_dir, &dirs, req.allow_other_cluster)?;
            }
            looked_up.as_ref()
        }
    };
    let assumed = AssumedLeader::decide(
        cached_epoch,
        source,
        req.leader_epoch,
        leader.replica_id(),
        follower.replica_id(),
        metadata.and_then(|m| m.partition(&leader.paths().name())),
        metadata.map(|m| m.metadata_dir.as_path()),
    );
    let leader_epoch = assumed.leader_epoch;
    let facts = follower_facts(&follower, &leader, false);
    follower::takes_leader_change(fencing, &facts, leader_epoch).map_err(|why| fenced(&leader, &follower, &why))?;
    if req.told_first {
        told_first_allowed(&leader, &follower, fencing, source, cached_epoch, leader_epoch)?;
    }
    // A leader with remote storage: a follower below its local log start rebuilds from remote
    // (read before anything is written; written only in a tiered lab, `crate::replication::tiered_follower`).
    let tier = tiered_leader_of(req, &leader, &follower, metadata)?;
    crate::replication::tiered_follower::refuse_before_tiered_storage(&leader, &req.rules)?;
    if tier.is_some() && !req.dry_run {
        crate::replication::tiered_follower::refuse_recover_without_remote_tier(&follower)?;
    }
    // Local recovery (really, or on the in-memory view for a dry run: the same code).
    let local = if req.dry_run { follower.preview_start()? } else { follower.start()? };
    // The leader's cache as it leads at that epoch, though its file may not hold the entry yet;
    // told first, it answers from the cache it has.
    let known_epoch = if req.told_first { leader_epoch } else { cached_epoch };
    let restart =
        follower::plan_restart(&req.rules, fencing, &facts, (&leader, tier), leader_epoch, known_epoch, &follower)
            .map_err(|why| fenced(&leader, &follower, &why))?;
    let committed = committed_by_metadata(metadata, &follower);
    let mut report = report_restart(req, &leader, &follower, restart, assumed, local, committed)?;
    if !req.dry_run {
        carry_out(req, leader, follower, &mut report)?;
    }
    Ok(report)
}

/// The leader's remote tier ([`crate::tiered::leader`]), from the `__remote_log_metadata` of
/// the two replicas' data dirs and `--remote-dir`; a topic the KRaft metadata says has remote
/// storage whose remote segments are in neither dir is refused.
fn tiered_leader_of(
    req: &RecoverRequest<'_>,
    leader: &Replica,
    follower: &Replica,
    metadata: Option<&RecordedMetadata>,
) -> Result<Option<crate::replication::truncation::TieredLeader>> {
    let dirs = [leader.paths().log_dir.clone(), follower.paths().log_dir.clone()];
    let tier = crate::tiered::leader::tiered_leader(leader, &dirs, req.remote_dir)?;
    let remote_enabled = metadata
        .and_then(|m| m.topic_config(&leader.paths().topic, "remote.storage.enable"))
        .is_some_and(|(v, _)| v.trim().eq_ignore_ascii_case("true"));
    if tier.is_none() && remote_enabled && leader.log_start_offset_below_local().is_some() {
        return Err(crate::tiered::leader::missing_metadata(leader));
    }
    Ok(tier)
}

/// The leader `recover --leader` names and the replica it restarts, opened (for writing, or
/// with every check of that open for the dry run) and checked to be two replicas of one
/// partition that is not the KRaft metadata log. Nothing is written.
fn open_restart_pair(
    req: &RecoverRequest<'_>,
    leader_path: &Path,
    read: LogDirsRead<'_>,
) -> Result<(Replica, Replica)> {
    let leader = open_checked(leader_path, req.partition, req.dry_run, read.leader)?;
    let follower = match open_checked(req.dir, Some(&leader.paths().name()), req.dry_run, read.dir) {
        Err(Error::Layout { .. }) if req.partition.is_none() => open_checked(req.dir, None, req.dry_run, None)?,
        other => other?,
    };
    leader.ensure_distinct(&follower)?;
    // Planned only between brokers of one cluster (or when asked): a restart against another
    // cluster's replica, or one's own node id, plans from nothing real.
    crate::replica::ensure_one_cluster(&[DirIds::of(&leader), DirIds::of(&follower)], req.allow_other_cluster)?;
    leader.ensure_same_partition_of(&follower, req.allow_other_cluster)?;
    if leader.paths().topic == crate::log::names::METADATA_TOPIC {
        return Err(Error::state(&follower.paths().partition_dir, METADATA_LOG_LEFT_OUT));
    }
    Ok((leader, follower))
}

/// `--told-first`: the follower is told of `leader_epoch` before a running leader took it, so
/// the leader answers from the log it has, if at all (it must run as a leader below that epoch,
/// and fencing must let it answer).
fn told_first_allowed(
    leader: &Replica,
    follower: &Replica,
    fencing: bool,
    source: LeaderEpochSource,
    cached_epoch: i32,
    leader_epoch: i32,
) -> Result<()> {
    if source != LeaderEpochSource::Running || leader_epoch <= cached_epoch {
        return Err(Error::state(
            &leader.paths().log_dir,
            format!(
                "--told-first: {} (it must run as a leader below --leader-epoch {leader_epoch}; a replica that \
                 is not a leader answers NOT_LEADER_FOR_PARTITION): {}",
                if source == LeaderEpochSource::Running {
                    format!("already leads at epoch {cached_epoch}")
                } else {
                    "is not running as a leader".to_string()
                },
                if source == LeaderEpochSource::Running {
                    format!("give --leader-epoch {} or above", cached_epoch.saturating_add(1))
                } else {
                    format!("make it one first with `klog elect {}`", leader.paths().log_dir.display())
                }
            ),
        ));
    }
    fencing::told_before_the_leader(fencing, cached_epoch, leader_epoch).map_err(|why| fenced(leader, follower, &why))
}

/// What the metadata proves committed: epochs of the follower's cache it led alone in the ISR as
/// the partition's only replica.
fn committed_by_metadata(metadata: Option<&RecordedMetadata>, follower: &Replica) -> Vec<i32> {
    let cached: Vec<i32> = follower.log().epoch_cache().entries().iter().map(|e| e.leader_epoch).collect();
    match (metadata, follower.replica_id()) {
        (Some(m), Some(id)) => {
            m.lone_leader_epochs(&follower.paths().name(), id).into_iter().filter(|e| cached.contains(e)).collect()
        }
        _ => Vec::new(),
    }
}

/// The report of a planned restart, before anything is cut: where the cut falls, and the
/// follower's records from a window before the first interesting offset, each classified.
fn report_restart(
    req: &RecoverRequest<'_>,
    leader: &Replica,
    follower: &Replica,
    restart: Restart,
    assumed: AssumedLeader,
    local: Option<RecoveryReport>,
    committed_by_metadata: Vec<i32>,
) -> Result<FollowerRecoverReport> {
    let Restart { leader_view, follower_view, plan } = restart;
    let (f_leo, f_hw) = (follower_view.log_end_offset, follower_view.high_watermark);
    // Truncation cuts at a batch boundary: a batch straddling the target goes whole. The dry
    // run asks the log the same question the real truncation does.
    let cut_offset = follower.log().cut_offset_for(plan.truncation_offset)?.min(f_leo);
    // Classify the follower's records from a window before the first interesting offset.
    let divergence = first_epoch_divergence(follower, leader, f_leo.min(leader.log_end_offset()));
    let restart = plan.restart_at_leader_start;
    let interesting = match restart {
        // Every record goes: show them from the start.
        Some(_) => follower.log_start_offset(),
        None => divergence.map_or(cut_offset, |d| d.min(cut_offset)),
    };
    let window = (interesting - req.context).max(follower.log_start_offset()).min(f_leo);
    let classified = classify::classify_window(
        follower,
        leader,
        window,
        cut_offset,
        f_hw,
        restart,
        MAX_ROWS,
        &committed_by_metadata,
    )?;
    let rows: Vec<RecordRow> = classified
        .rows
        .into_iter()
        .map(|c| RecordRow { follower: c.follower, leader: c.leader, class: c.class, acked: c.acked })
        .collect();
    let (leader_epoch, leader_epoch_source) = (assumed.leader_epoch, assumed.source);
    Ok(FollowerRecoverReport {
        mode: req.rules.truncation,
        rules: req.rules,
        leader_epoch_source,
        assumed,
        dry_run: req.dry_run,
        leader_dir: leader.paths().log_dir.display().to_string(),
        follower_dir: shown_dir(follower, req.partition),
        leader_epoch,
        local,
        leader_view,
        follower_view,
        plan,
        cut_offset,
        follower_log_end_offset_after: restart.unwrap_or(cut_offset.min(f_leo)),
        follower_high_watermark_after: restart.unwrap_or(f_hw.min(cut_offset)),
        rows,
        rows_omitted: classified.rows_omitted,
        kept_below_window: window - follower.log_start_offset(),
        counts: classified.counts,
        first_divergent_offset: classified.first_divergent_offset,
        catch_up: None,
        after_catch_up: None,
        high_watermark_checkpoint_lags: !crate::replica::made_by_klog(&follower.paths().log_dir),
        committed_by_metadata,
    })
}

/// The run, once the report is made: the leader started (a broker's dir named the leader
/// becomes one, with the ISR it has), the restart carried out
/// ([`follower::restart_as_follower`]), and with `--catch-up` fetch rounds until the follower
/// has caught up.
fn carry_out(
    req: &RecoverRequest<'_>,
    mut leader: Replica,
    mut follower: Replica,
    report: &mut FollowerRecoverReport,
) -> Result<()> {
    let named_leader = leader.will_run_as().role != Role::Leader;
    leader.start()?;
    let isr = named_leader.then(|| leader.state().map(|s| s.isr.clone()).unwrap_or_default());
    follower::restart_as_follower(&mut leader, &mut follower, &report.plan, report.leader_epoch, isr)?;
    if let Some(aux) = &report.plan.from_remote {
        crate::replication::tiered_follower::finish_restart_from_remote(&mut follower, aux)?;
    }
    report.follower_log_end_offset_after = follower.log_end_offset();
    report.follower_high_watermark_after = follower.high_watermark();
    if req.catch_up {
        let rounds = fetch_rounds(
            &req.rules,
            &mut leader,
            &mut follower,
            Rounds::UntilCaughtUp,
            DEFAULT_FETCH_MAX_BYTES,
            false,
        )?;
        report.after_catch_up = Some(diff::diff_logs(leader.log(), follower.log())?);
        report.catch_up = Some(rounds);
    }
    Ok(())
}

// The broker's start-up over a whole log dir lives in `replica::log_manager`; `recover DATA_DIR`
// and its callers reach it from here.
pub use crate::replica::{
    forecast_data_dir, is_refusal, recover_data_dir, Advice, DataDirRecovery, LoadedKind, LoadedLog, StartForecast,
    StartRefusal, OR_REFUSES, REFUSES_WORDS,
};
