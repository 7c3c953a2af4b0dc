//! The ZooKeeper-mode controller's partition changes (Kafka 0.10 – 3.9): who leads and which
//! replicas are in the ISR after a broker fails (its ZooKeeper session expires, or it shuts
//! down) or starts (registers again). Read from `KafkaController.onReplicasBecomeOffline` and
//! `onBrokerStartup` (2.8.2), `Election.leaderForOffline` and
//! `PartitionLeaderElectionAlgorithms.offlinePartitionLeaderElection` (2.x;
//! `OfflinePartitionLeaderSelector` in 0.10 – 1.1), `ReplicaStateMachine.doRemoveReplicasFromIsr`
//! (1.1.1 – 3.9) and `KafkaController.removeReplicaFromIsr` (0.10.2.2).
//!
//! Unlike the KRaft controller, every change the ZooKeeper controller writes bumps the leader
//! epoch (`LeaderAndIsr.newLeaderAndIsr`: `leaderEpoch + 1`), also when only the ISR changes and
//! when the partition is left without a leader; the leader's own ISR changes (its ZooKeeper
//! write before 2.7, `AlterIsr` from 2.7) keep the epoch. A controlled shutdown ends as a
//! failure: the leader moves to the first live ISR member as on a failure, and a leader alone in
//! its ISR stays until the broker is gone (`ControlledShutdownLeaderSelector` makes no unclean
//! choice), then fails as a crashed one. Admin's unclean election (2.4+) is not modelled: the
//! topic's `unclean.leader.election.enable` is.
//!
//! Pure: replicas are positions in the assignment, sets of them bit masks (as in
//! [`partition_change`](crate::kraft::partition_change)).

use crate::kraft::partition_change::{Partition, Set};

/// The topic's and the release's settings that change the outcome.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Settings {
    /// The topic's `unclean.leader.election.enable`.
    pub unclean: bool,
    /// The last ISR member stays in the ISR when it fails (1.1.1 on); 0.10.2.2 empties the ISR
    /// instead when unclean elections are enabled.
    pub keeps_last_isr: bool,
}

/// The controller's new record, and whether it wrote one (a new leader epoch).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Change {
    pub partition: Partition,
    pub bumped: bool,
}

fn has(set: Set, r: usize) -> bool {
    set & (1 << r) != 0
}

fn first(set: Set) -> Option<usize> {
    (set != 0).then(|| set.trailing_zeros() as usize)
}

/// The offline-partition election over `live` (the live brokers, as positions): the first live
/// ISR member in assignment order, with the live ISR members as the ISR; else, with unclean
/// elections enabled, the first live replica, alone in the ISR; else none.
fn elect_offline(p: &Partition, s: &Settings, live: Set) -> Option<Partition> {
    let live_isr = p.isr & live;
    if let Some(l) = first(live_isr) {
        return Some(Partition { leader: Some(l), isr: live_isr, ..*p });
    }
    let l = first(live).filter(|_| s.unclean)?;
    Some(Partition { leader: Some(l), isr: 1 << l, ..*p })
}

/// Broker `r` fails (`onBrokerFailure` → `onReplicasBecomeOffline`); `live` are the brokers
/// left. A partition it led goes offline and is elected over `live`; then `r` leaves the ISR
/// (`OfflineReplica`): if it still leads (no one could be elected) the leader becomes none, and
/// the last ISR member stays in the ISR.
pub fn broker_failed(p: &Partition, s: &Settings, r: usize, live: Set) -> Change {
    let live = live & !(1 << r);
    let mut out = *p;
    let mut bumped = false;
    if p.leader == Some(r) {
        if let Some(e) = elect_offline(p, s, live) {
            out = e;
            bumped = true;
        }
    }
    if has(out.isr, r) {
        if out.leader == Some(r) {
            out.leader = None;
        }
        let rest = out.isr & !(1 << r);
        out.isr = if rest != 0 {
            rest
        } else if s.keeps_last_isr || !s.unclean {
            out.isr
        } else {
            0
        };
        bumped = true;
    }
    Change { partition: out, bumped }
}

/// Broker `r` starts (`onBrokerStartup`); `live` are the live brokers, `r` among them. A
/// partition without a leader is elected over them (`triggerOnlinePartitionStateChange`); one
/// with a leader is left as it is (the broker is sent the current record and follows).
pub fn broker_started(p: &Partition, s: &Settings, r: usize, live: Set) -> Change {
    let live = live | (1 << r);
    match (p.leader, elect_offline(p, s, live)) {
        (None, Some(e)) => Change { partition: e, bumped: true },
        _ => Change { partition: *p, bumped: false },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const CLEAN: Settings = Settings { unclean: false, keeps_last_isr: true };
    const UNCLEAN: Settings = Settings { unclean: true, keeps_last_isr: true };

    fn part(leader: Option<usize>, isr: Set) -> Partition {
        Partition { leader, isr, elr: 0, last_known_elr: 0 }
    }

    #[test]
    fn a_failed_leader_is_replaced_by_the_first_live_isr_member_at_a_new_epoch() {
        // 2.8.2 Election.leaderForOffline: newIsr = the live ISR members.
        let c = broker_failed(&part(Some(0), 0b11), &CLEAN, 0, 0b11);
        assert_eq!(c, Change { partition: part(Some(1), 0b10), bumped: true });
    }

    #[test]
    fn a_failed_follower_leaves_the_isr_and_the_leader_epoch_is_bumped() {
        // 2.8.2 ReplicaStateMachine.doRemoveReplicasFromIsr: leaderAndIsr.newLeaderAndIsr(...).
        let c = broker_failed(&part(Some(0), 0b11), &CLEAN, 1, 0b11);
        assert_eq!(c, Change { partition: part(Some(0), 0b01), bumped: true });
        // Not in the ISR: nothing is written.
        let c = broker_failed(&part(Some(0), 0b01), &CLEAN, 1, 0b11);
        assert_eq!(c, Change { partition: part(Some(0), 0b01), bumped: false });
    }

    #[test]
    fn the_last_isr_member_failing_leaves_no_leader_and_stays_in_the_isr() {
        // 1.1.1 – 3.9: adjustedIsr keeps a one-member ISR; newLeader = NoLeader.
        let c = broker_failed(&part(Some(0), 0b01), &CLEAN, 0, 0b11);
        assert_eq!(c, Change { partition: part(None, 0b01), bumped: true });
        // 0.10.2.2 removeReplicaFromIsr: with unclean elections enabled the ISR empties; the
        // live follower out of the ISR is elected first, though (an unclean election).
        let old = Settings { unclean: true, keeps_last_isr: false };
        let c = broker_failed(&part(Some(0), 0b01), &old, 0, 0b01);
        assert_eq!(c, Change { partition: part(None, 0), bumped: true });
    }

    #[test]
    fn with_unclean_elections_a_live_replica_out_of_the_isr_leads_alone() {
        let c = broker_failed(&part(Some(0), 0b01), &UNCLEAN, 0, 0b11);
        assert_eq!(c, Change { partition: part(Some(1), 0b10), bumped: true });
    }

    #[test]
    fn a_starting_broker_is_elected_only_for_a_partition_without_a_leader() {
        // onBrokerStartup → triggerOnlinePartitionStateChange.
        let c = broker_started(&part(None, 0b01), &CLEAN, 0, 0b00);
        assert_eq!(c, Change { partition: part(Some(0), 0b01), bumped: true });
        // The replica out of the ISR is not elected without unclean elections ...
        let c = broker_started(&part(None, 0b01), &CLEAN, 1, 0b00);
        assert_eq!(c, Change { partition: part(None, 0b01), bumped: false });
        // ... and is with them.
        let c = broker_started(&part(None, 0b01), &UNCLEAN, 1, 0b00);
        assert_eq!(c, Change { partition: part(Some(1), 0b10), bumped: true });
        // A partition with a leader is left alone.
        let c = broker_started(&part(Some(0), 0b01), &UNCLEAN, 1, 0b01);
        assert_eq!(c, Change { partition: part(Some(0), 0b01), bumped: false });
    }
}
