//! `klog fetch --leader L F`: follower fetch rounds with the HW piggyback lag
//! ([`crate::replication::fetch`]).
//!
//! Both replicas are opened for writing, validated, and only then started and fetched: a
//! refused fetch changes nothing. A leader is never fetched into; a replica that holds data
//! fetches only as L's follower at L's current epoch (it became one through `recover --leader`);
//! an empty replica's first fetch makes it L's follower.

use crate::error::{Error, Result};
use crate::replica::{DirIds, Replica, ReplicaRole, Role};
use crate::replication::fencing::{fetch_allowed, leader_not_stale, FetchRefusal};
use crate::replication::fetch::{fetch_rounds, Rounds};
use crate::replication::on_disk::{fenced, follower_facts};
use crate::replication::release::Rules;
use std::path::Path;

pub struct FetchRequest<'a> {
    pub leader: &'a Path,
    pub follower: &'a Path,
    pub partition: Option<&'a str>,
    pub rounds: u64,
    pub until_caught_up: bool,
    pub max_bytes: u64,
    pub flush: bool,
    /// Check leader epochs (FENCED_LEADER_EPOCH, KIP-320). False is `fetch --no-fencing` (Kafka
    /// before KIP-320, what `klog explore --no-fencing` models): a follower fetches from the
    /// leader it follows even when it has seen a larger epoch.
    pub fencing: bool,
    /// The release whose fetch path runs: from 2.8 (`truncation_on_fetch`) the round sends the
    /// last fetched epoch and the leader may answer a diverging epoch or OFFSET_OUT_OF_RANGE.
    pub rules: Rules,
    /// `--allow-other-cluster`: fetch between dirs that do not say they are brokers of one
    /// cluster ([`crate::replica::ensure_one_cluster`]).
    pub allow_other_cluster: bool,
}

/// `klog fetch`'s report: the rounds, with the start-ups that came before them.
pub use crate::replication::fetch::FetchReport;

/// Open a leader and another replica of its partition for writing, and check what every
/// command between the two needs: distinct replicas of one partition of one cluster (or of
/// any, with `allow_other_cluster`), the leader running as leader, and — with `fencing`; false
/// is `--no-fencing`, Kafka before KIP-320 — no epoch the other has seen above the leader's
/// (FENCED_LEADER_EPOCH). Nothing is written.
pub fn open_pair_for_write_fenced(
    leader: &Path,
    other: &Path,
    partition: Option<&str>,
    fencing: bool,
    allow_other_cluster: bool,
) -> Result<(Replica, Replica)> {
    let l = Replica::open_for_write(leader, partition)?;
    let name = l.paths().name();
    let f = match Replica::open_for_write(other, Some(&name)) {
        Ok(f) => f,
        Err(Error::Layout { .. }) if partition.is_none() => Replica::open_for_write(other, None)?,
        Err(e) => return Err(e),
    };
    l.ensure_distinct(&f)?;
    // Replicated only between brokers of one cluster (or when asked): a lab's dir and a broker's,
    // or two clusters' brokers, share no partition whatever their dirs are named.
    crate::replica::ensure_one_cluster(&[DirIds::of(&l), DirIds::of(&f)], allow_other_cluster)?;
    l.ensure_same_partition_of(&f, allow_other_cluster)?;
    let state = l.will_run_as();
    if state.role != Role::Leader {
        // `--leader A B` with B the leader: the arguments are the wrong way round.
        let why = if f.will_run_as().role == Role::Leader {
            format!(
                "is not a leader (it is {}), but {} is: the arguments look swapped; try `--leader {} {}`",
                ReplicaRole::of(&l).phrase(),
                other.display(),
                other.display(),
                leader.display()
            )
        } else {
            format!(
                "is not a leader (it is {}); make it one with `klog elect {}`",
                ReplicaRole::of(&l).phrase(),
                leader.display()
            )
        };
        return Err(Error::state(&l.paths().log_dir, why));
    }
    leader_not_stale(fencing, f.largest_known_epoch(), state.leader_epoch).map_err(|why| fenced(&l, &f, &why))?;
    Ok((l, f))
}

pub fn run(req: &FetchRequest<'_>) -> Result<FetchReport> {
    Ok(run_tiered(req)?.report)
}

/// A fetch with what it did across the tiers of a tiered lab ([`crate::tiered::lab`]).
pub struct TieredFetchReport {
    pub report: FetchReport,
    /// The follower's `__remote_log_metadata-0` brought up to the leader's, before the data.
    pub metadata: Option<crate::tiered::lab::MetadataReplication>,
    /// The follower was below the leader's local log start: OFFSET_MOVED_TO_TIERED_STORAGE and
    /// the remote log auxiliary state it built.
    pub remote_rebuild: Option<crate::replication::tiered_follower::RemoteRebuild>,
}

/// [`run`], with the remote tier of a tiered lab: its metadata records replicated first, and a
/// follower below the leader's local log start rebuilt from remote storage before the rounds.
pub fn run_tiered(req: &FetchRequest<'_>) -> Result<TieredFetchReport> {
    let fencing = req.fencing;
    let (mut leader, mut follower) =
        open_pair_for_write_fenced(req.leader, req.follower, req.partition, fencing, req.allow_other_cluster)?;
    let leader_epoch = leader.will_run_as().leader_epoch;
    let hint =
        || format!("make it one with `klog recover --leader {} {}`", req.leader.display(), req.follower.display());
    let facts = follower_facts(&follower, &leader, empty_once_started(&follower)?);
    match fetch_allowed(fencing, &facts, leader_epoch) {
        Ok(()) => {}
        Err(FetchRefusal::Fenced(f)) => return Err(fenced(&leader, &follower, &f)),
        Err(FetchRefusal::IntoLeader { leader_epoch: own }) => {
            return Err(Error::state(
                &follower.paths().log_dir,
                format!(
                "is a leader (epoch {own}): a leader is never fetched into; it must first become a follower of {}: {}",
                req.leader.display(),
                hint()
            ),
            ))
        }
        Err(FetchRefusal::NotFollower) => {
            let now = match facts.running {
                None => "it restarted and follows no leader yet".to_string(),
                Some((_, e)) if facts.follows_this_leader => format!("it follows it at epoch {e}"),
                Some((_, -1)) => "it follows no leader".to_string(),
                Some((_, e)) => format!("it follows another leader at epoch {e}"),
            };
            return Err(Error::state(
                &follower.paths().log_dir,
                format!(
                    "holds data but is not the follower of {} at its epoch {leader_epoch} ({now}); a replica becomes a \
                     follower by truncating first, or it keeps diverged records: {}",
                    req.leader.display(),
                    hint()
                ),
            ));
        }
    }
    use crate::replication::tiered_follower;
    use crate::tiered::lab;
    tiered_follower::refuse_before_tiered_storage(&leader, &req.rules)?;
    tiered_follower::refuse_before_tiered_storage(&follower, &req.rules)?;
    let leader_startup = leader.start()?;
    let follower_startup = follower.start()?;
    let both_tiered = tiered_follower::is_tiered_lab(&leader)? && tiered_follower::is_tiered_lab(&follower)?;
    let metadata = if both_tiered {
        Some(lab::replicate_metadata(&leader.paths().log_dir, &follower.paths().log_dir)?)
    } else {
        None
    };
    let remote_rebuild = match tiered_follower::plan(&leader, &follower, &req.rules)? {
        Some((rebuild, snapshot)) => {
            tiered_follower::apply(&mut follower, &rebuild, &snapshot)?;
            Some(rebuild)
        }
        None => None,
    };
    let rounds = if req.until_caught_up { Rounds::UntilCaughtUp } else { Rounds::Count(req.rounds) };
    let report = fetch_rounds(&req.rules, &mut leader, &mut follower, rounds, req.max_bytes, req.flush)?;
    Ok(TieredFetchReport {
        report: FetchReport { leader_startup, follower_startup, ..report },
        metadata,
        remote_rebuild,
    })
}

/// Whether `replica` holds no batch and no epoch once started: a crashed replica is judged by
/// what local recovery would leave (previewed on a read-only view, nothing written).
fn empty_once_started(replica: &Replica) -> Result<bool> {
    if replica.is_running() && replica.log().tail_is_clean() {
        return Ok(replica.is_empty());
    }
    let mut view = Replica::open(&replica.paths().partition_dir, None)?;
    view.preview_start()?;
    Ok(view.is_empty())
}
