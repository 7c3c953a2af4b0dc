//! The KRaft controller's partition changes (Kafka 4.x): who leads after a broker is fenced,
//! registers again after an unclean shutdown or is unfenced, after the leader's AlterPartition
//! shrinks or expands the ISR, and after an admin's unclean election — with Eligible Leader
//! Replicas (KIP-966) on or off. Read from Kafka 4.4.0's `PartitionChangeBuilder.build()` (the
//! decompiled release jar; 3.9.0's source and the 4.0.0 - 4.0.2 jars have the same steps except
//! that their `canElectLastKnownLeader` does not refuse a last known leader that is not alive,
//! KAFKA-19522, fixed in 4.1.0: [`Settings::last_known_leader_must_be_alive`]) and
//! `ReplicationControlManager` (`handleBrokerFenced`, `handleBrokerShutdown`,
//! `handleBrokerUnfenced`, `generateLeaderAndIsrUpdates`).
//!
//! Replicas are named by their position in the partition's assignment (its replica list), and
//! sets of them are bit masks over those positions, so the election's "first valid replica of
//! the assignment" is the lowest set bit. Pure: a partition and an event in, the new partition
//! out. The leader epoch is not kept here: a change that names a leader bumps it, which the
//! caller does for the leaders it starts.

/// Replicas as a bit mask of assignment positions.
pub type Set = u32;

fn has(set: Set, r: usize) -> bool {
    set & (1 << r) != 0
}

fn one(r: usize) -> Set {
    1 << r
}

/// The first replica of the assignment in `set`.
fn first(set: Set) -> Option<usize> {
    (set != 0).then(|| set.trailing_zeros() as usize)
}

/// What the controller records for one partition (`PartitionRegistration`), by position.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Partition {
    /// `None`: NO_LEADER.
    pub leader: Option<usize>,
    pub isr: Set,
    pub elr: Set,
    pub last_known_elr: Set,
}

impl Partition {
    /// A new topic's partition: the first active replica of the assignment leads, every active
    /// replica is in the ISR (`ReplicationControlManager.createTopic` with every broker up).
    pub fn created(replicas: usize) -> Partition {
        Partition { leader: Some(0), isr: (1 << replicas) - 1, elr: 0, last_known_elr: 0 }
    }
}

/// The settings that change the outcome.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Settings {
    /// The `eligible.leader.replicas.version` feature is on (4.1 → default for new clusters).
    pub elr: bool,
    /// The topic's min.insync.replicas.
    pub min_isr: usize,
    /// `canElectLastKnownLeader` refuses a last known leader that `isAcceptableLeader` does not
    /// accept (KAFKA-19522, 4.1.0 →). In 4.0.0 - 4.0.2 the test is inverted around a log line
    /// and the method returns true either way, so a fenced last known leader is elected.
    pub last_known_leader_must_be_alive: bool,
}

/// `PartitionChangeBuilder.Election`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Election {
    Online,
    Unclean,
}

/// How the leader after the change was chosen.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Chosen {
    /// The current leader stays (still valid).
    Kept,
    /// The first live ISR member of the assignment.
    Isr,
    /// The first live eligible leader replica, the ISR being empty (it becomes the ISR).
    Elr,
    /// The last known leader, with ISR and ELR empty (an unclean election, the ISR becomes it).
    LastKnownLeader,
    /// An unclean election: the first live replica of the assignment.
    Unclean,
    /// No replica may lead.
    None,
}

/// One `PartitionChangeBuilder` run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Change {
    target_isr: Set,
    /// `isAcceptableLeader`: active (unfenced, not shutting down) and not being removed.
    acceptable: Set,
    unclean_shutdown: Set,
    election: Election,
}

/// The outcome of one event.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Outcome {
    pub partition: Partition,
    pub chosen: Chosen,
}

impl Outcome {
    /// The replica newly elected (a leader change to a replica), if any.
    pub fn elected(&self, before: &Partition) -> Option<usize> {
        self.partition.leader.filter(|&l| before.leader != Some(l))
    }
}

/// `PartitionChangeBuilder.build()`: `maybePopulateTargetElr`, `tryElection` (`electAnyLeader`),
/// `maybeUpdateRecordElr`, the ISR, `maybeUpdateLastKnownLeader`.
fn build(replicas: usize, p: &Partition, s: &Settings, c: &Change) -> Outcome {
    let all: Set = (1 << replicas) - 1;
    let mut target_isr = c.target_isr;
    let mut target_elr = p.elr;
    // maybePopulateTargetElr
    if s.elr {
        if target_isr.count_ones() as usize >= s.min_isr {
            target_elr = 0;
        } else {
            target_elr = (target_elr | p.isr) & !target_isr & !c.unclean_shutdown;
        }
    }
    let (result, unclean, chosen) =
        elect_any(replicas, p.leader, target_isr, target_elr, p.last_known_elr, s, c.acceptable & all, c.election);
    // tryElection
    let leader_changed = result != p.leader;
    let mut isr_set = None;
    if leader_changed {
        if let Some(r) = result.filter(|&r| has(target_elr, r)) {
            target_isr = one(r);
            target_elr &= !one(r);
        }
        if unclean {
            isr_set = result.map(one);
        }
    }
    let chosen = if leader_changed { chosen } else { Chosen::Kept };
    let chosen = if result.is_none() { Chosen::None } else { chosen };
    // maybeUpdateRecordElr: an unclean election or ELR off clears ELR.
    if isr_set.is_some() || !s.elr {
        target_elr = 0;
    }
    // The ISR: an empty one is written only with ELR on.
    let isr = match isr_set {
        Some(isr) => isr,
        None if target_isr != 0 || s.elr => target_isr,
        None => p.isr,
    };
    // maybeUpdateLastKnownLeader
    let mut last_known_elr = p.last_known_elr;
    if s.elr {
        if leader_changed && result.is_none() && p.last_known_elr == 0 {
            last_known_elr = p.leader.map_or(0, one);
        } else if leader_changed && result.is_some() && p.last_known_elr != 0 {
            last_known_elr = 0;
        }
    }
    Outcome { partition: Partition { leader: result, isr, elr: target_elr, last_known_elr }, chosen }
}

/// `PartitionChangeBuilder.electAnyLeader` over the target ISR and ELR: the current leader if
/// still valid; else the first valid replica of the assignment (an ISR member, or an ELR member
/// when the ISR is empty); else, with ELR on and both empty, the last known leader if it is the
/// only one and acceptable; else, for an unclean election, the first acceptable replica. Returns
/// the leader, whether the election was unclean, and how it was chosen.
#[allow(clippy::too_many_arguments)]
fn elect_any(
    replicas: usize,
    leader: Option<usize>,
    isr: Set,
    elr: Set,
    last_known_elr: Set,
    s: &Settings,
    acceptable: Set,
    election: Election,
) -> (Option<usize>, bool, Chosen) {
    let elr_on = s.elr;
    let valid = |r: usize| (has(isr, r) || (isr == 0 && has(elr, r))) && has(acceptable, r);
    if let Some(l) = leader.filter(|&l| valid(l)) {
        return (Some(l), false, Chosen::Kept);
    }
    if let Some(r) = (0..replicas).find(|&r| valid(r)) {
        return (Some(r), false, if has(isr, r) { Chosen::Isr } else { Chosen::Elr });
    }
    if elr_on && elr == 0 && isr == 0 && last_known_elr.count_ones() == 1 {
        let r = first(last_known_elr).unwrap_or(0);
        if has(acceptable, r) || !s.last_known_leader_must_be_alive {
            return (Some(r), true, Chosen::LastKnownLeader);
        }
    }
    if election == Election::Unclean {
        if let Some(r) = first(acceptable) {
            return (Some(r), true, Chosen::Unclean);
        }
    }
    (None, false, Chosen::None)
}

/// Whom the controller elects for the partition as it stands, with the replicas in `acceptable`
/// alive (the cluster view's "Kafka's choice"): [`elect_any`] on its ISR and ELR.
pub fn choose(
    replicas: usize,
    p: &Partition,
    elr_on: bool,
    acceptable: Set,
    election: Election,
) -> (Option<usize>, Chosen) {
    let all: Set = (1 << replicas) - 1;
    // The cluster view judges by the newest controller's rules.
    let s = Settings { elr: elr_on, min_isr: 1, last_known_leader_must_be_alive: true };
    let (leader, _, chosen) =
        elect_any(replicas, p.leader, p.isr, p.elr, p.last_known_elr, &s, acceptable & all, election);
    (leader, chosen)
}

/// `handleBrokerFenced(r)` (a broker that stopped heartbeating: a crash): for a partition with
/// `r` in its ISR, the ISR without `r`; `r` is not acceptable. `active`: the unfenced brokers.
pub fn fenced(replicas: usize, p: &Partition, s: &Settings, r: usize, active: Set) -> Outcome {
    if !has(p.isr, r) {
        return Outcome { partition: *p, chosen: Chosen::Kept };
    }
    let c = Change {
        target_isr: p.isr & !one(r),
        acceptable: active & !one(r),
        unclean_shutdown: 0,
        election: Election::Online,
    };
    build(replicas, p, s, &c)
}

/// `handleBrokerShutdown(r, isCleanShutdown = false)` when `r` registers again after a crash:
/// with ELR on, `r` leaves the ISR and the ELR (`brokerWithUncleanShutdown`, run for the
/// partitions with `r` in the ISR, then those with `r` in the ELR); with ELR off it leaves the
/// ISR as `brokerToRemove` (an ISR of `r` alone stays: an empty ISR is never written then).
pub fn registered_after_unclean_shutdown(
    replicas: usize,
    p: &Partition,
    s: &Settings,
    r: usize,
    active: Set,
) -> Partition {
    let mut p = *p;
    let change = |p: &Partition| Change {
        target_isr: p.isr & !one(r),
        acceptable: active & !one(r),
        unclean_shutdown: if s.elr { one(r) } else { 0 },
        election: Election::Online,
    };
    if has(p.isr, r) {
        p = build(replicas, &p, s, &change(&p)).partition;
    }
    if s.elr && has(p.elr, r) {
        p = build(replicas, &p, s, &change(&p)).partition;
    }
    p
}

/// `handleBrokerUnfenced(r)`: a partition with no leader may now elect, `r` acceptable.
pub fn unfenced(replicas: usize, p: &Partition, s: &Settings, r: usize, active: Set) -> Outcome {
    if p.leader.is_some() {
        return Outcome { partition: *p, chosen: Chosen::Kept };
    }
    let c = Change { target_isr: p.isr, acceptable: active | one(r), unclean_shutdown: 0, election: Election::Online };
    build(replicas, p, s, &c)
}

/// The leader's AlterPartition to `isr` (a shrink or an expansion), accepted.
pub fn alter_isr(replicas: usize, p: &Partition, s: &Settings, isr: Set, active: Set) -> Outcome {
    let c = Change { target_isr: isr, acceptable: active, unclean_shutdown: 0, election: Election::Online };
    build(replicas, p, s, &c)
}

/// `Admin.electLeaders(UNCLEAN)` for a partition with no leader (`ELECTION_NOT_NEEDED` when
/// it has one).
pub fn elect_unclean(replicas: usize, p: &Partition, s: &Settings, active: Set) -> Option<Outcome> {
    if p.leader.is_some() {
        return None;
    }
    let c = Change { target_isr: p.isr, acceptable: active, unclean_shutdown: 0, election: Election::Unclean };
    Some(build(replicas, p, s, &c))
}

#[cfg(test)]
mod tests {
    use super::*;

    const ELR2: Settings = Settings { elr: true, min_isr: 2, last_known_leader_must_be_alive: true };
    const NO_ELR: Settings = Settings { elr: false, min_isr: 1, last_known_leader_must_be_alive: true };
    const ELR1: Settings = Settings { elr: true, min_isr: 1, last_known_leader_must_be_alive: true };
    const ALL: Set = 0b111;

    /// The real 4.4 brokers' `min-isr-elr` sequence (tests/kafka/real_failovers.rs): RF 3, min ISR
    /// 2; 3 dies, 2 dies, 1 dies; 2 registers (not elected, ELR [1]); 1 registers and is
    /// elected as the last known leader. Positions 0, 1, 2 are brokers 1, 2, 3.
    #[test]
    fn the_min_isr_elr_sequence_runs_as_on_the_real_brokers() {
        let p = Partition::created(3);
        let p3 = fenced(3, &p, &ELR2, 2, 0b011).partition;
        assert_eq!(p3, Partition { leader: Some(0), isr: 0b011, elr: 0, last_known_elr: 0 });
        let p2 = fenced(3, &p3, &ELR2, 1, 0b001).partition;
        assert_eq!(p2, Partition { leader: Some(0), isr: 0b001, elr: 0b010, last_known_elr: 0 });
        let p1 = fenced(3, &p2, &ELR2, 0, 0).partition;
        assert_eq!(p1, Partition { leader: None, isr: 0, elr: 0b011, last_known_elr: 0b001 });
        // 2 (position 1) back: leaves the ELR, is not elected.
        let back2 = registered_after_unclean_shutdown(3, &p1, &ELR2, 1, 0);
        let back2 = unfenced(3, &back2, &ELR2, 1, 0);
        assert_eq!(back2.partition, Partition { leader: None, isr: 0, elr: 0b001, last_known_elr: 0b001 });
        // 1 (position 0) back: leaves the ELR; unfenced, it is the last known leader.
        let back1 = registered_after_unclean_shutdown(3, &back2.partition, &ELR2, 0, 0b010);
        assert_eq!(back1.elr, 0);
        let back1 = unfenced(3, &back1, &ELR2, 0, 0b010);
        assert_eq!(back1.chosen, Chosen::LastKnownLeader);
        assert_eq!(back1.partition, Partition { leader: Some(0), isr: 0b001, elr: 0, last_known_elr: 0 });
    }

    /// ELR off: the last ISR member stays in the ISR when fenced (an empty ISR is not written)
    /// and is elected again when it comes back, whatever it lost.
    #[test]
    fn without_elr_the_last_isr_member_keeps_the_isr_and_leads_again() {
        let p = Partition { leader: Some(0), isr: 0b001, elr: 0, last_known_elr: 0 };
        let f = fenced(2, &p, &NO_ELR, 0, 0b10);
        assert_eq!(f.partition, Partition { leader: None, isr: 0b001, elr: 0, last_known_elr: 0 });
        let r = registered_after_unclean_shutdown(2, &f.partition, &NO_ELR, 0, 0b10);
        assert_eq!(r, f.partition, "an ISR of one is not emptied");
        let u = unfenced(2, &r, &NO_ELR, 0, 0b10);
        assert_eq!((u.partition.leader, u.chosen), (Some(0), Chosen::Isr));
        // Broker 1 (position 1) coming back instead is not elected: not in the ISR.
        assert_eq!(unfenced(2, &r, &NO_ELR, 1, 0).partition.leader, None);
    }

    /// A clean election picks the first live ISR member in assignment order, not ISR order.
    #[test]
    fn the_first_valid_replica_of_the_assignment_is_elected() {
        let p = Partition { leader: Some(0), isr: 0b111, elr: 0, last_known_elr: 0 };
        let f = fenced(3, &p, &NO_ELR, 0, 0b110);
        assert_eq!((f.partition.leader, f.partition.isr, f.chosen), (Some(1), 0b110, Chosen::Isr));
        // A follower fenced: the leader is kept.
        let g = fenced(3, &p, &NO_ELR, 2, 0b011);
        assert_eq!((g.partition.leader, g.partition.isr, g.chosen), (Some(0), 0b011, Chosen::Kept));
    }

    /// With the ISR empty, a live ELR member is elected and becomes the ISR.
    #[test]
    fn an_eligible_replica_leads_when_the_isr_is_empty() {
        let p = Partition { leader: None, isr: 0, elr: 0b110, last_known_elr: 0b001 };
        let u = unfenced(3, &p, &ELR2, 2, 0);
        assert_eq!(u.chosen, Chosen::Elr);
        assert_eq!(u.partition, Partition { leader: Some(2), isr: 0b100, elr: 0b010, last_known_elr: 0 });
    }

    /// An unclean shutdown removes the replica from the ELR before it may be elected from it.
    #[test]
    fn a_replica_back_from_an_unclean_shutdown_is_not_eligible() {
        let p = Partition { leader: None, isr: 0, elr: 0b010, last_known_elr: 0b001 };
        let r = registered_after_unclean_shutdown(2, &p, &ELR1, 1, 0);
        assert_eq!(r.elr, 0);
        // ... but the last known leader may be, once unfenced.
        let u = unfenced(2, &r, &ELR1, 1, 0);
        assert_eq!(u.partition.leader, None, "1 is not the last known leader");
        let u = unfenced(2, &r, &ELR1, 0, 0b010);
        assert_eq!((u.partition.leader, u.chosen), (Some(0), Chosen::LastKnownLeader));
    }

    /// org/apache/kafka/controller/PartitionChangeBuilder.class, `canElectLastKnownLeader`
    /// (kafka-metadata jars, `javap -c -p`): 4.1.0 - 4.4.0 return false after "last known leader
    /// is not alive" when `isAcceptableLeader.test(lastKnownElr[0])` fails; 4.0.0 - 4.0.2 branch
    /// on the test the other way round and return true on both paths (KAFKA-19522). With ISR
    /// and ELR empty and the last known leader (position 0) fenced, 1 coming back elects no one
    /// on 4.1, and the fenced last known leader on 4.0.
    #[test]
    fn a_fenced_last_known_leader_is_elected_on_4_0_only() {
        let p = Partition { leader: None, isr: 0, elr: 0, last_known_elr: 0b001 };
        let v41 = unfenced(2, &p, &ELR1, 1, 0);
        assert_eq!((v41.partition.leader, v41.chosen), (None, Chosen::None));
        let v40 = Settings { last_known_leader_must_be_alive: false, ..ELR1 };
        let u = unfenced(2, &p, &v40, 1, 0);
        assert_eq!((u.partition.leader, u.chosen), (Some(0), Chosen::LastKnownLeader));
        assert_eq!(u.partition.isr, 0b001, "the last known leader becomes the ISR");
        // Alive, both elect it.
        assert_eq!(unfenced(2, &p, &ELR1, 0, 0b010).partition.leader, Some(0));
    }

    /// AlterPartition: a shrink below min ISR puts the removed member in the ELR; an expansion
    /// back to min ISR clears it.
    #[test]
    fn isr_changes_fill_and_clear_the_elr() {
        let p = Partition::created(2);
        let s = alter_isr(2, &p, &ELR2, 0b01, 0b11).partition;
        assert_eq!(s, Partition { leader: Some(0), isr: 0b01, elr: 0b10, last_known_elr: 0 });
        let e = alter_isr(2, &s, &ELR2, 0b11, 0b11).partition;
        assert_eq!(e, Partition { leader: Some(0), isr: 0b11, elr: 0, last_known_elr: 0 });
        let off = alter_isr(2, &p, &NO_ELR, 0b01, 0b11).partition;
        assert_eq!(off.elr, 0, "no ELR without the feature");
    }

    /// `electLeaders(UNCLEAN)`: the first live replica; the ISR becomes it and the ELR empties.
    #[test]
    fn an_unclean_election_takes_the_first_live_replica_and_clears_the_elr() {
        let p = Partition { leader: None, isr: 0b001, elr: 0, last_known_elr: 0 };
        let u = elect_unclean(3, &p, &NO_ELR, 0b100).unwrap();
        assert_eq!((u.partition.leader, u.partition.isr, u.chosen), (Some(2), 0b100, Chosen::Unclean));
        assert!(elect_unclean(3, &Partition::created(3), &NO_ELR, ALL).is_none(), "ELECTION_NOT_NEEDED");
    }
}
