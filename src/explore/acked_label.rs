//! The "acked" label of `recover`'s report against the explorer's own record of what was
//! acknowledged: every record the report counts as acked must be one that a leader's HW covered
//! (acks=all) while it led. The model tracks every acknowledgement ([`State::acked`]); the
//! report has only the two dirs, so it may prove less, never more.

#![cfg(test)]

use super::canon::{fingerprint, Canon};
use super::model::{Config, Controller, State};
use crate::replication::release::Release;
use std::collections::HashSet;

/// Every state reachable within the bounds (breadth first, at most `cap` states), and for each
/// the labels `recover F --leader L` gives every record of F: a record labelled acked that the
/// model never saw acked is returned.
fn first_unproven_ack(cfg: &Config, cap: usize) -> Option<String> {
    let canon = Canon::of(cfg);
    let start = State::initial(cfg.replicas);
    let mut seen: HashSet<u128> = HashSet::from([fingerprint(&start, canon)]);
    let mut level = vec![(start, String::new(), false)];
    let mut actions = Vec::new();
    for _ in 0..=cfg.max_depth {
        let mut next = Vec::new();
        for (s, path, violating) in &level {
            for l in 0..s.n() {
                for f in 0..s.n() {
                    if f == l || !s.recover_allowed_by_klog(cfg, f, l) {
                        continue;
                    }
                    for (offset, rec) in s.nodes[f].records().iter().enumerate() {
                        let Some((_, acked, _)) = s.recover_class(cfg, f, l, offset) else { continue };
                        if acked && !s.acked().contains(&(offset as u8, rec.value)) {
                            return Some(format!(
                                "{path} | recover {f} --leader {l}: offset {offset} value {} labelled acked, \
                                 acked were {:?}",
                                rec.value,
                                s.acked()
                            ));
                        }
                    }
                }
            }
            // A violating state is checked, not expanded (as the search does).
            if *violating || path.matches(';').count() >= cfg.max_depth as usize {
                continue;
            }
            s.successors(cfg, &mut actions);
            for &a in &actions {
                let (n, violation) = s.apply(cfg, a);
                if !seen.insert(fingerprint(&n, canon)) || seen.len() > cap {
                    continue;
                }
                next.push((n, format!("{path} {a:?};"), violation.is_some()));
            }
        }
        level = next;
    }
    None
}

fn config(release: &str, fencing: bool) -> Config {
    let rules = Release::parse(release).unwrap().rules().with_unclean_leader_election(true);
    Config { unclean: true, fencing, controller: Controller::Free, ..Config::clean_at(rules, 3, 3, 2, 7) }
}

/// ReplicaFetcherThread.scala:143-148@2.0.1: a follower's HW is min(its LEO, the HW in the
/// response) of the leader it fetched from, so it proves the record at an offset only where
/// that leader held it. The stale receiver (no KIP-320) holds a zombie leader's record below an
/// HW that a later leader's other record gave it.
#[test]
fn every_record_recover_labels_acked_was_acked_in_the_model() {
    for (release, fencing, replicas) in
        [("2.0.1", false, 3), ("1.1.1", false, 3), ("0.10.2.2", true, 3), ("4.4.0", true, 3), ("1.1.1", true, 2)]
    {
        // Two replicas: room for three records and a deeper history (KIP-101's divergence).
        let cfg = match replicas {
            2 => Config { replicas: 2, max_records: 3, max_depth: 9, unclean: false, ..config(release, fencing) },
            _ => config(release, fencing),
        };
        if let Some(why) = first_unproven_ack(&cfg, 60_000) {
            panic!("Kafka {release} (fencing {fencing}): {why}");
        }
    }
}

/// Issue 41, point 2 (Partition.scala:361-376@0.10.2.0, `maybeIncrementLeaderHW`: one HW over
/// the leader's log, so a committed record commits the log below it). `a` leads at 0 with ISR
/// {a, b} and acks b-0 b-1; `b` leads alone at 1 and acks d-0 d-1, then crashes with its HW
/// checkpoint still at 0; `c` is elected uncleanly. The metadata shows `b` leading epoch 1
/// alone: d-0 d-1 are committed, and so are b-0 b-1 below them.
#[test]
fn records_below_an_epoch_the_metadata_proves_committed_are_acknowledged_too() {
    use super::model::Action::*;
    use crate::replication::classify::RecordClass;
    let cfg = Config { stale_hw: true, max_records: 4, ..config("4.4.0", true) };
    let mut s = State::initial(3);
    let mut enabled = Vec::new();
    for a in [
        Elect { replica: 0, leader_epoch: 0, isr: 0b011, unclean: false },
        Append { replica: 0, value: 1 },
        Append { replica: 0, value: 2 },
        Fetch { leader: 0, follower: 1 },
        Fetch { leader: 0, follower: 1 },
        Elect { replica: 1, leader_epoch: 1, isr: 0b010, unclean: false },
        Append { replica: 1, value: 3 },
        Append { replica: 1, value: 4 },
        Crash { replica: 1, power_loss: false, hw: Some(0) },
        Elect { replica: 2, leader_epoch: 2, isr: 0b100, unclean: true },
    ] {
        s.successors(&cfg, &mut enabled);
        assert!(enabled.contains(&a), "{a:?} not enabled in {s:?}");
        s = s.apply(&cfg, a).0;
    }
    assert_eq!(s.acked(), &[(0, 1), (1, 2), (2, 3), (3, 4)]);
    for offset in 0..4 {
        let (class, acked, _) = s.recover_class_given(&cfg, 1, 2, offset, &[1]).unwrap();
        assert_eq!((class, acked), (RecordClass::AckedLost, true), "offset {offset}");
    }
    // Without the metadata, b's HW checkpoint (0) proves nothing.
    assert!(!s.recover_class(&cfg, 1, 2, 0).unwrap().1);
}
