//! Who may follow whom ([the model](crate::replication), operation 3, and fencing; Kafka's
//! NOT_LEADER / FENCED_LEADER_EPOCH errors and `Partition.makeFollower`). Pure: the facts about
//! the two replicas in, a decision out; the commands phrase the refusal.

use crate::replica::Role;

/// What a replica knows that the rules look at.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FollowerFacts {
    /// The largest leader epoch it has ever seen.
    pub largest_seen: Option<i32>,
    /// Its role and current leader epoch, when it is running (a restarted replica has none).
    pub running: Option<(Role, i32)>,
    /// It is running as the follower of this very leader.
    pub follows_this_leader: bool,
    /// No batch and no epoch-cache entry (once local recovery has run).
    pub empty: bool,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Fenced {
    /// The leader's epoch is below one the follower has seen (FENCED_LEADER_EPOCH).
    StaleLeader { leader_epoch: i32, seen: i32 },
    /// A running replica ignores a leader change whose epoch is not above its current one.
    NotAboveCurrent { role: Role, current: i32, leader_epoch: i32 },
    /// The follower was told of the leader's epoch before the leader took it
    /// (UNKNOWN_LEADER_EPOCH, from KIP-320: the follower retries until it has).
    LeaderBehind { running: i32, told: i32 },
}

/// May the replica become (or stay) the follower of a leader at `leader_epoch`? (`recover
/// --leader`: the replica restarts as a follower, truncating.)
pub fn may_become_follower(f: &FollowerFacts, leader_epoch: i32) -> Result<(), Fenced> {
    if let Some(seen) = f.largest_seen.filter(|e| *e > leader_epoch) {
        return Err(Fenced::StaleLeader { leader_epoch, seen });
    }
    if let Some((role, current)) = f.running {
        let same = role == Role::Follower && f.follows_this_leader && current == leader_epoch;
        if current >= leader_epoch && !same {
            return Err(Fenced::NotAboveCurrent { role, current, leader_epoch });
        }
    }
    Ok(())
}

/// Why a fetch may not go ahead.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FetchRefusal {
    Fenced(Fenced),
    /// A leader is never fetched into.
    IntoLeader {
        leader_epoch: i32,
    },
    /// It holds data but is not the leader's follower at the leader's epoch: it must truncate
    /// first (become a follower through `recover --leader`).
    NotFollower,
}

/// May the replica fetch from a leader at `leader_epoch`? Only as its follower at that epoch,
/// or when it is empty (the first fetch makes it the follower).
pub fn may_fetch(f: &FollowerFacts, leader_epoch: i32) -> Result<(), FetchRefusal> {
    if let Some(seen) = f.largest_seen.filter(|e| *e > leader_epoch) {
        return Err(FetchRefusal::Fenced(Fenced::StaleLeader { leader_epoch, seen }));
    }
    match f.running {
        Some((Role::Leader, e)) => Err(FetchRefusal::IntoLeader { leader_epoch: e }),
        Some((Role::Follower, e)) if f.follows_this_leader && e == leader_epoch => Ok(()),
        _ if f.empty => Ok(()),
        _ => Err(FetchRefusal::NotFollower),
    }
}

/// [`may_fetch`] as `fetch` runs it: with `fencing` false (`--no-fencing`, before KIP-320)
/// there is no FENCED_LEADER_EPOCH check on the epochs the replica has seen.
pub fn fetch_allowed(fencing: bool, f: &FollowerFacts, leader_epoch: i32) -> Result<(), FetchRefusal> {
    if fencing {
        may_fetch(f, leader_epoch)
    } else {
        may_fetch(&FollowerFacts { largest_seen: None, ..f.clone() }, leader_epoch)
    }
}

/// FENCED_LEADER_EPOCH alone (what every command between a leader and another replica checks
/// first): the leader's epoch is below one the other has seen. Nothing with `fencing` false.
/// A follower told that the leader leads at `told` while the leader still runs at `running` (the
/// controller's LeaderAndIsr reached the follower first). From KIP-320 (2.1) its
/// OffsetsForLeaderEpoch carries `told` and the leader answers UNKNOWN_LEADER_EPOCH until it has
/// taken it; before, a leader answers from the log it has, whatever epoch it leads at
/// (`Partition.lastOffsetForLeaderEpoch`, 2.0.1: only a replica that is not a leader at all
/// answers NOT_LEADER_FOR_PARTITION). The stale receiver of Kafka's `Kip320.tla`.
pub fn told_before_the_leader(fencing: bool, running: i32, told: i32) -> Result<(), Fenced> {
    if fencing && told > running {
        return Err(Fenced::LeaderBehind { running, told });
    }
    Ok(())
}

pub fn leader_not_stale(fencing: bool, largest_seen: Option<i32>, leader_epoch: i32) -> Result<(), Fenced> {
    match largest_seen.filter(|e| fencing && *e > leader_epoch) {
        Some(seen) => Err(Fenced::StaleLeader { leader_epoch, seen }),
        None => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn facts(largest_seen: Option<i32>, running: Option<(Role, i32)>, follows: bool, empty: bool) -> FollowerFacts {
        FollowerFacts { largest_seen, running, follows_this_leader: follows, empty }
    }

    /// KIP-320 (2.1): OffsetsForLeaderEpoch carries the follower's current epoch; a leader
    /// behind it answers UNKNOWN_LEADER_EPOCH. 2.0.1's `Partition.lastOffsetForLeaderEpoch`
    /// answers any request while it is a leader.
    #[test]
    fn a_follower_told_first_waits_for_its_leader_only_from_kip_320() {
        assert_eq!(told_before_the_leader(true, 1, 2), Err(Fenced::LeaderBehind { running: 1, told: 2 }));
        assert_eq!(told_before_the_leader(false, 1, 2), Ok(()));
        assert_eq!(told_before_the_leader(true, 2, 2), Ok(()));
    }

    #[test]
    fn a_stale_leader_is_fenced() {
        assert_eq!(
            may_become_follower(&facts(Some(3), None, false, false), 2),
            Err(Fenced::StaleLeader { leader_epoch: 2, seen: 3 })
        );
        assert_eq!(may_become_follower(&facts(Some(3), None, false, false), 3), Ok(()));
    }

    #[test]
    fn a_running_replica_takes_only_a_newer_leader_or_the_one_it_follows() {
        let leader_at_4 = facts(Some(4), Some((Role::Leader, 4)), false, false);
        assert!(may_become_follower(&leader_at_4, 4).is_err());
        assert_eq!(may_become_follower(&leader_at_4, 5), Ok(()));
        let following = facts(Some(4), Some((Role::Follower, 4)), true, false);
        assert_eq!(may_become_follower(&following, 4), Ok(()));
    }

    #[test]
    fn no_fencing_drops_only_the_seen_epoch_check() {
        let seen_more = facts(Some(5), None, false, true);
        assert!(matches!(fetch_allowed(true, &seen_more, 2), Err(FetchRefusal::Fenced(_))));
        assert_eq!(fetch_allowed(false, &seen_more, 2), Ok(()));
        assert!(leader_not_stale(true, Some(5), 2).is_err());
        assert_eq!(leader_not_stale(false, Some(5), 2), Ok(()));
        assert_eq!(leader_not_stale(true, Some(2), 2), Ok(()));
    }

    #[test]
    fn only_the_leaders_follower_or_an_empty_replica_fetches() {
        assert_eq!(may_fetch(&facts(Some(2), Some((Role::Follower, 2)), true, false), 2), Ok(()));
        assert_eq!(
            may_fetch(&facts(Some(1), Some((Role::Follower, 1)), true, false), 2),
            Err(FetchRefusal::NotFollower)
        );
        assert_eq!(may_fetch(&facts(None, None, false, true), 0), Ok(()));
        assert_eq!(may_fetch(&facts(Some(0), None, false, false), 0), Err(FetchRefusal::NotFollower));
        assert_eq!(
            may_fetch(&facts(Some(0), Some((Role::Leader, 0)), false, false), 0),
            Err(FetchRefusal::IntoLeader { leader_epoch: 0 })
        );
    }
}
