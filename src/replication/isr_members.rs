//! The ISR members a leader is given by their dirs (`elect --isr`, `alter-isr --isr`): each a
//! replica of the leader's partition, distinct from the leader and from each other, and the
//! largest leader epoch they have seen that an election must go above. Reads only.

use super::election;
use crate::error::Result;
use crate::replica::{IsrMember, Replica, Role};
use std::fs;
use std::path::PathBuf;

/// The largest leader epoch an ISR member has seen, and the dir that saw it.
pub type LargestSeen = Option<(i32, String)>;

/// The members named by `dirs` (the leader's own dir and repeats dropped), and the largest leader
/// epoch any of them has seen that counts against the `requested` epoch
/// ([`election::counted_epoch`]: a member told of this very election first does not count).
pub fn members(
    leader: &Replica,
    dirs: &[PathBuf],
    partition: Option<&str>,
    requested: Option<i32>,
) -> Result<(Vec<IsrMember>, LargestSeen)> {
    let mut isr: Vec<IsrMember> = Vec::new();
    let mut largest: LargestSeen = None;
    for dir in dirs {
        let member = Replica::open(dir, Some(&leader.paths().name())).or_else(|_| Replica::open(dir, partition))?;
        leader.ensure_same_partition(&member)?;
        if fs::canonicalize(&member.paths().log_dir).ok() == fs::canonicalize(&leader.paths().log_dir).ok() {
            continue; // the leader is always in its ISR
        }
        leader.ensure_distinct(&member)?;
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
