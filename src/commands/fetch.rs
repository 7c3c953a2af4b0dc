//! `klog fetch --leader L F`: follower fetch rounds with the HW piggyback lag.

use crate::error::{Error, Result};
use crate::log::recovery::RecoveryReport;
use crate::replica::{Replica, Role};
use crate::replication::fetch::{fetch_round, FetchRound};
use std::path::Path;

/// Rounds `--until-caught-up` gives up after (a leader that keeps being appended to).
pub const MAX_ROUNDS: u64 = 100_000;

pub struct FetchRequest<'a> {
    pub leader: &'a Path,
    pub follower: &'a Path,
    pub partition: Option<&'a str>,
    pub rounds: u64,
    pub until_caught_up: bool,
    pub max_bytes: u64,
    pub flush: bool,
}

#[derive(Debug)]
pub struct FetchReport {
    pub rounds: Vec<FetchRound>,
    pub follower_startup: Option<RecoveryReport>,
    pub caught_up: bool,
}

impl FetchReport {
    pub fn stuck(&self) -> bool {
        self.rounds.last().is_some_and(|r| r.stuck.is_some())
    }
}

/// Check both dirs before anything is written: both replicas of one partition, distinct, the
/// leader running as leader at an epoch not below the follower's.
pub fn open_pair(leader: &Path, follower: &Path, partition: Option<&str>) -> Result<(Replica, Replica)> {
    let l = Replica::open(leader, partition)?;
    let f = Replica::open(follower, Some(&l.paths.name())).or_else(|_| Replica::open(follower, partition))?;
    if l.identity() == f.identity() {
        return Err(Error::Usage(format!("leader and follower are the same replica dir ({})", leader.display())));
    }
    l.ensure_same_partition(&f)?;
    if l.role() != Some(Role::Leader) {
        return Err(Error::state(
            &l.paths.log_dir,
            format!("is not a leader (it is {}); make it one with `klog elect`", crate::commands::role_name(&l)),
        ));
    }
    Ok((l, f))
}

pub fn run(req: &FetchRequest<'_>) -> Result<FetchReport> {
    let (l, f) = open_pair(req.leader, req.follower, req.partition)?;
    let leader_epoch = l.state().map_or(-1, |s| s.leader_epoch);
    if let Some(fe) = f.largest_known_epoch() {
        if fe > leader_epoch {
            return Err(Error::state(
                &f.paths.log_dir,
                format!("has seen leader epoch {fe}, above the leader's epoch {leader_epoch} (FENCED_LEADER_EPOCH)"),
            ));
        }
    }
    let name = l.paths.name();
    drop((l, f));
    let (mut leader, _) = Replica::open_mut(req.leader, Some(&name))?;
    let (mut follower, startup) = Replica::open_mut(req.follower, Some(&name))?;
    let mut rounds = Vec::new();
    let limit = if req.until_caught_up { MAX_ROUNDS } else { req.rounds };
    let mut caught_up = false;
    for _ in 0..limit {
        let round = fetch_round(&mut leader, &mut follower, req.max_bytes, req.flush)?;
        let stuck = round.stuck.is_some();
        caught_up = round.batches_copied == 0
            && round.follower_log_end_offset == round.leader_log_end_offset
            && round.follower_high_watermark == round.leader_high_watermark;
        rounds.push(round);
        if stuck || (req.until_caught_up && caught_up) {
            break;
        }
    }
    Ok(FetchReport { rounds, follower_startup: startup, caught_up })
}
