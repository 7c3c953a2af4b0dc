//! Becoming a follower: the decision `recover --leader` and the explorer both take when a replica
//! is told that a leader leads at an epoch — whether it takes the change (fencing), whether its
//! release restarts the fetcher and truncates (`Partition.makeFollower`), and where it cuts
//! ([`super::truncation`]). The decision is pure: facts and views in, a plan or a refusal out.
//!
//! The restart itself is written once for `recover --leader` and the explorer, over
//! [`Storage`]: [`plan_restart`] (the two views, then the plan) and [`restart_as_follower`]
//! (a leader not yet running as one takes the leadership klog assumes for it, then the
//! follower follows). Between the two, `recover` reads the records the cut removes, and its
//! dry run stops there.

use super::fencing::{may_become_follower, Fenced, FollowerFacts};
use super::leader::{assume_leadership, epochs_when_leading};
use super::release::Rules;
use super::storage::Storage;
use super::truncation::{plan, ReplicaView, TieredLeader, TruncationPlan, TruncationReason};
use crate::error::Result;
use crate::replica::Role;

/// Decide what `follower` does when told that a leader leads at `leader_epoch`.
///
/// Every release ignores a leader change whose epoch is not above the one a running replica
/// has (`ReplicaManager.becomeLeaderOrFollower`, 0.8 →). With `fencing` false (`--no-fencing`,
/// before KIP-320) the replica is not refused for having *seen* a larger epoch
/// (FENCED_LEADER_EPOCH); the rule on its current epoch stays. A running follower told of a new
/// epoch by the leader it already follows truncates only when its release restarts the
/// fetcher for it ([`Rules::refollows`]); otherwise it keeps fetching where it is.
pub fn become_follower(
    rules: &Rules,
    fencing: bool,
    facts: &FollowerFacts,
    leader_epoch: i32,
    leader: &ReplicaView,
    follower: &ReplicaView,
) -> Result<TruncationPlan, Fenced> {
    takes_leader_change(fencing, facts, leader_epoch)?;
    if let Some((Role::Follower, current)) = facts.running {
        if facts.follows_this_leader && !rules.refollows(true, current, leader_epoch) {
            return Ok(keeps_fetching(rules, follower));
        }
    }
    Ok(plan(rules, leader, follower))
}

/// Apply `plan` to `replica` (started): it has seen `leader_epoch`, cuts its log (or restarts
/// it at the leader's log start), and runs as `leader`'s follower at that epoch. Returns its
/// new log end.
pub fn follow<S: Storage>(replica: &mut S, plan: &TruncationPlan, leader: S::Id, leader_epoch: i32) -> Result<i64> {
    replica.note_epoch_seen(leader_epoch)?;
    match plan.restart_at_leader_start {
        Some(start) => replica.restart_at(start)?,
        None => {
            replica.truncate_to(plan.truncation_offset)?;
        }
    }
    replica.set_follower(leader, leader_epoch);
    replica.save()?;
    Ok(replica.log_end_offset())
}

/// What a follower's restart against a leader planned from: the two replicas as the plan saw
/// them, and the plan.
#[derive(Debug, Clone)]
pub struct Restart {
    pub leader_view: ReplicaView,
    pub follower_view: ReplicaView,
    pub plan: TruncationPlan,
}

/// Plan the restart of `follower` (started: its local recovery done) as `leader`'s follower,
/// told that `leader` leads at `leader_epoch`: `leader`'s view as it leads at that epoch (from
/// 2.0.1 an epoch above `known_epoch`, the one it is known to lead at, has its entry at the log
/// end: [`epochs_when_leading`]), the follower's view (its HW no higher than its log end), and
/// [`become_follower`]'s plan; the leader comes with its tier when it keeps remote storage (a
/// follower below its local log start rebuilds from remote). Nothing is written.
pub fn plan_restart<L: Storage, F: Storage>(
    rules: &Rules,
    fencing: bool,
    facts: &FollowerFacts,
    leader: (&L, Option<TieredLeader>),
    leader_epoch: i32,
    known_epoch: i32,
    follower: &F,
) -> Result<Restart, Fenced> {
    let (leader, tier) = leader;
    let leader_log_end_offset = leader.log_end_offset();
    let leader_epochs = epochs_when_leading(&leader.epochs(), leader_log_end_offset, leader_epoch, known_epoch, rules);
    let leader_view = ReplicaView::new(leader_epochs, leader_log_end_offset, leader.high_watermark())
        .with_log_start(leader.log_start_offset())
        .with_tier(tier);
    let log_end_offset = follower.log_end_offset();
    let follower_view =
        ReplicaView::new(follower.epochs(), log_end_offset, follower.high_watermark().min(log_end_offset));
    let plan = become_follower(rules, fencing, facts, leader_epoch, &leader_view, &follower_view)?;
    Ok(Restart { leader_view, follower_view, plan })
}

/// Carry out a restart's `plan` on `leader` and `follower` (both started): a leader not running
/// as one yet — a broker's dir the operator named the leader, `named_leader` holding its ISR —
/// takes the leadership klog assumes for it ([`assume_leadership`]); then the follower follows
/// ([`follow`]). Returns the follower's new log end.
pub fn restart_as_follower<L: Storage, F: Storage<Id = L::Id>>(
    leader: &mut L,
    follower: &mut F,
    plan: &TruncationPlan,
    leader_epoch: i32,
    named_leader: Option<Vec<L::Member>>,
) -> Result<i64> {
    if let Some(isr) = named_leader {
        assume_leadership(leader, leader_epoch, isr)?;
    }
    follow(follower, plan, leader.id(), leader_epoch)
}

/// The fencing part of [`become_follower`], which a command checks before it writes anything.
pub fn takes_leader_change(fencing: bool, facts: &FollowerFacts, leader_epoch: i32) -> Result<(), Fenced> {
    let checked = if fencing { facts.clone() } else { FollowerFacts { largest_seen: None, ..facts.clone() } };
    may_become_follower(&checked, leader_epoch)
}

/// The plan of a follower whose fetcher goes on: nothing is cut.
fn keeps_fetching(rules: &Rules, follower: &ReplicaView) -> TruncationPlan {
    let leo = follower.log_end_offset.max(0);
    TruncationPlan {
        mode: rules.truncation,
        rules: *rules,
        round_trips: Vec::new(),
        truncation_offset: leo,
        reason: TruncationReason::KeepsFetching,
        follower_epochs_after: follower.epochs.clone(),
        restart_at_leader_start: None,
        from_remote: None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::log::epoch_cache::{EpochCache, EpochEntry};
    use crate::replication::release::Release;

    fn view(pairs: &[(i32, i64)], leo: i64, hw: i64) -> ReplicaView {
        ReplicaView::new(
            EpochCache::from_entries(pairs.iter().map(|&(e, o)| EpochEntry { leader_epoch: e, start_offset: o })),
            leo,
            hw,
        )
    }

    fn rules(r: &str) -> Rules {
        Release::parse(r).unwrap().rules()
    }

    fn running_follower(epoch: i32, seen: i32) -> FollowerFacts {
        FollowerFacts {
            largest_seen: Some(seen),
            running: Some((Role::Follower, epoch)),
            follows_this_leader: true,
            empty: false,
        }
    }

    /// Partition.makeFollower, 0.10.2.2: `leaderReplicaIdOpt.get == newLeaderBrokerId` → false,
    /// so ReplicaManager.makeFollowers does not truncate it: a running follower keeps m2 above
    /// its HW when its leader is re-elected. 2.1.0 compares the epoch and truncates.
    #[test]
    fn a_running_follower_re_told_its_leader_truncates_only_where_the_release_refollows() {
        let leader = view(&[(0, 0), (1, 2)], 2, 2);
        let follower = view(&[(0, 0)], 2, 1);
        let hw = become_follower(&rules("0.10.2.2"), true, &running_follower(0, 0), 1, &leader, &follower).unwrap();
        assert_eq!((hw.truncation_offset, hw.reason), (2, TruncationReason::KeepsFetching));
        let restarted = FollowerFacts { running: None, follows_this_leader: false, ..running_follower(0, 0) };
        let hw = become_follower(&rules("0.10.2.2"), true, &restarted, 1, &leader, &follower).unwrap();
        assert_eq!((hw.truncation_offset, hw.reason), (1, TruncationReason::OwnHighWatermark));
        let new = become_follower(&rules("2.1.0"), true, &running_follower(0, 0), 1, &leader, &follower).unwrap();
        assert_eq!(new.reason, TruncationReason::MinOfBothEnds);
        let skip = become_follower(&rules("2.0.1"), true, &running_follower(0, 0), 1, &leader, &follower).unwrap();
        assert_eq!(skip.reason, TruncationReason::KeepsFetching, "2.0.1 lets epoch + 1 through");
    }

    /// Without KIP-320 a replica is not fenced for an epoch it has seen, but no release takes a
    /// leader change that is not above the epoch it runs at.
    #[test]
    fn no_fencing_drops_the_seen_epoch_check_only() {
        let leader = view(&[(0, 0)], 2, 2);
        let follower = view(&[(0, 0)], 2, 1);
        let seen_more =
            FollowerFacts { largest_seen: Some(5), running: None, follows_this_leader: false, empty: false };
        assert!(become_follower(&rules("2.1.0"), true, &seen_more, 1, &leader, &follower).is_err());
        assert!(become_follower(&rules("1.1.1"), false, &seen_more, 1, &leader, &follower).is_ok());
        let running_leader = FollowerFacts {
            largest_seen: Some(3),
            running: Some((Role::Leader, 3)),
            follows_this_leader: false,
            empty: false,
        };
        assert!(matches!(
            become_follower(&rules("1.1.1"), false, &running_leader, 2, &leader, &follower),
            Err(Fenced::NotAboveCurrent { .. })
        ));
    }
}
