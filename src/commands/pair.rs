//! Pairing two replicas of one partition for a comparison (`diff`, `draw`, and `diff`'s
//! data-dir form): the second opened as the partition the first holds, another topic-partition
//! refused, another cluster or another topic of the same name a warning. A shared helper of
//! the commands, not a command, so that they refuse and warn about the same pairs. Never writes.
//! Also what the fencing rules look at in a follower and a refusal's wording, which `fetch`
//! and `recover` share.

use crate::error::{Error, Result};
use crate::replica::{Replica, Role};
use crate::replication::fencing::{Fenced, FollowerFacts};
use std::path::Path;

/// Open `path` as the replica compared with `first` (the partition `first` holds, else the one
/// `partition` names) and check the pair: another topic-partition refuses; another cluster or
/// another topic of the same name is a warning, with the second replica called `label`. `diff`
/// and `draw` pair their replicas here, so they refuse the same pairs.
pub fn open_compared(
    first: &Replica,
    path: &Path,
    partition: Option<&str>,
    label: &str,
) -> Result<(Replica, Vec<String>)> {
    let other = Replica::open(path, Some(&first.paths().name())).or_else(|_| Replica::open(path, partition))?;
    if first.paths().topic != other.paths().topic || first.paths().partition != other.paths().partition {
        first.ensure_same_partition(&other)?;
    }
    let warnings = pair_warnings_labelled(first, &other, label);
    Ok((other, warnings))
}

/// Why two replicas of one partition name may not be copies of one partition: another cluster,
/// another topic of that name, or a cluster id only one side records.
pub fn pair_warnings(ra: &Replica, rb: &Replica) -> Vec<String> {
    pair_warnings_labelled(ra, rb, "B")
}

fn pair_warnings_labelled(ra: &Replica, rb: &Replica, label: &str) -> Vec<String> {
    let mut warnings: Vec<String> = ra.foreign_to(rb).map(|w| format!("{label} {w}")).into_iter().collect();
    if let (None, None, Some(id)) = (ra.cluster_id(), rb.cluster_id(), ra.replica_id()) {
        if rb.replica_id() == Some(id) {
            warnings.push(format!(
                "{} and {} both say node id {id}, but neither records a cluster.id: taken as two brokers",
                ra.paths().log_dir.display(),
                rb.paths().log_dir.display()
            ));
        }
    }
    if ra.cluster_id().is_some() != rb.cluster_id().is_some() {
        let (with, without) = if ra.cluster_id().is_some() { (ra, rb) } else { (rb, ra) };
        warnings.push(format!(
            "{} records no cluster.id but {} records {}: nothing says they are one cluster",
            without.paths().log_dir.display(),
            with.paths().log_dir.display(),
            with.cluster_id().unwrap_or_default()
        ));
    }
    warnings
}

/// What the fencing rules look at in `follower`, with respect to `leader`.
pub fn follower_facts(follower: &Replica, leader: &Replica, empty: bool) -> FollowerFacts {
    let state = follower.state();
    FollowerFacts {
        largest_seen: follower.largest_known_epoch(),
        running: state.map(|s| (s.role, s.leader_epoch)),
        follows_this_leader: state
            .is_some_and(|s| s.role == Role::Follower && s.leader.as_deref() == Some(leader.identity().as_str())),
        empty,
    }
}

/// A fencing refusal as an error naming the replica it concerns.
pub fn fenced(leader: &Replica, follower: &Replica, why: &Fenced) -> Error {
    match why {
        Fenced::StaleLeader { leader_epoch, seen } => Error::state(
            &leader.paths().log_dir,
            format!(
                "leader epoch {leader_epoch} is below epoch {seen} that {} has seen (FENCED_LEADER_EPOCH): refusing",
                follower.paths().log_dir.display()
            ),
        ),
        Fenced::NotAboveCurrent { role, current, leader_epoch } => Error::state(
            &follower.paths().log_dir,
            format!(
                "is running as {} at leader epoch {current}: a leader change to epoch {leader_epoch} is not above it, \
                 so a broker would ignore it (stop or crash it first to restart it as a follower)",
                role.name()
            ),
        ),
        Fenced::LeaderBehind { running, told } => Error::state(
            &leader.paths().log_dir,
            format!(
                "leads at epoch {running}, not yet at --leader-epoch {told}: from KIP-320 (Kafka 2.1) it answers \
                 UNKNOWN_LEADER_EPOCH and {} retries once it has taken it (--no-fencing: before KIP-320, it answers \
                 from the log it has)",
                follower.paths().log_dir.display()
            ),
        ),
    }
}
