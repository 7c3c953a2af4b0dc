//! The ISR members a leader is given by their dirs (`elect --isr`, `alter-isr --isr`): each a
//! replica of the leader's partition, distinct from the leader and from each other, a broker of
//! the leader's cluster (unless `--allow-other-cluster`), and the largest leader epoch they have
//! seen that an election must go above. Reads only.

use super::election;
use crate::error::Result;
use crate::replica::{ensure_one_cluster, DirIds, IsrMember, Replica, Role};
use std::fs;
use std::path::PathBuf;

/// The largest leader epoch an ISR member has seen, and the dir that saw it.
pub type LargestSeen = Option<(i32, String)>;

/// The members named by `dirs` (the leader's own dir and repeats dropped), and the largest leader
/// epoch any of them has seen that counts against the `requested` epoch
/// ([`election::counted_epoch`]: a member told of this very election first does not count).
/// Members whose `meta.properties` do not say they are brokers of the leader's cluster (another
/// or no `cluster.id`, a node id the leader or another member has) are refused
/// ([`crate::replica::ensure_one_cluster`]) unless `allow_other_cluster`.
pub fn members(
    leader: &Replica,
    dirs: &[PathBuf],
    partition: Option<&str>,
    requested: Option<i32>,
    allow_other_cluster: bool,
) -> Result<(Vec<IsrMember>, LargestSeen)> {
    let mut isr: Vec<IsrMember> = Vec::new();
    let mut largest: LargestSeen = None;
    let mut ids = vec![DirIds::of(leader)];
    for dir in dirs {
        let member = Replica::open(dir, Some(&leader.paths().name())).or_else(|_| Replica::open(dir, partition))?;
        if fs::canonicalize(&member.paths().log_dir).ok() == fs::canonicalize(&leader.paths().log_dir).ok() {
            continue; // the leader is always in its ISR
        }
        leader.ensure_distinct(&member)?;
        if !isr.iter().any(|m| m.id == member.identity()) {
            ids.push(DirIds::of(&member));
            ensure_one_cluster(&ids, allow_other_cluster)?;
        }
        leader.ensure_same_partition_of(&member, allow_other_cluster)?;
        let follows_at = member
            .state()
            .filter(|s| s.role == Role::Follower && s.leader.as_deref() == Some(leader.identity().as_str()))
            .map(|s| s.leader_epoch);
        let counted = election::counted_epoch(member.largest_known_epoch(), follows_at, requested);
        if let Some(e) = counted.filter(|&e| largest.as_ref().is_none_or(|(l, _)| e > *l)) {
            largest = Some((e, member.paths().log_dir.display().to_string()));
        }
        let id = member.identity();
        if !isr.iter().any(|m| m.id == id) {
            let dir = fs::canonicalize(&member.paths().log_dir).unwrap_or_else(|_| member.paths().log_dir.clone());
            isr.push(IsrMember { id, dir, replica_id: member.replica_id() });
        }
    }
    Ok((isr, largest))
}
