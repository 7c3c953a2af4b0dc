//! The explorer's stale receiver (a follower told of an election before its leader) on the
//! inter.broker.protocol.version between KIP-320's two halves.

#![cfg(test)]

use super::model::{Action, Config, Controller, State};
use crate::replication::release::parse_kafka;

/// Issue 41, point 3. ReplicaFetcherThread.scala:77@2.1.0: OffsetsForLeaderEpoch v2 (with the
/// follower's current epoch) from IBP 2.1-IV1; Partition.scala:212-221@2.1.0: a leader behind
/// that epoch answers UNKNOWN_LEADER_EPOCH. Fetch v10 comes one IV later (2.1-IV2), so the
/// explorer's fetches run unfenced on 2.1-IV1, but the told-first truncation does not.
#[test]
fn on_ibp_2_1_iv1_a_follower_told_first_is_answered_unknown_leader_epoch() {
    use Action::*;
    for (kafka, recovers_ahead) in [("2.8.2,ibp=2.1-IV0", true), ("2.8.2,ibp=2.1-IV1", false), ("2.0.1", true)] {
        let rules = parse_kafka(kafka).unwrap();
        assert!(!rules.fetch_fencing, "{kafka}");
        // The explorer's --kafka runs such releases unfenced (cli: fencing needs fetch_fencing).
        let cfg = Config { fencing: false, controller: Controller::Free, ..Config::clean_at(rules, 3, 3, 2, 8) };
        let mut s = State::initial(3);
        let mut enabled = Vec::new();
        for a in [
            Elect { replica: 0, leader_epoch: 0, isr: 0b111, unclean: false },
            Append { replica: 0, value: 1 },
            Announce { replica: 0, leader_epoch: 1, isr: 0b111 },
        ] {
            s.successors(&cfg, &mut enabled);
            assert!(enabled.contains(&a), "{kafka}: {a:?} not enabled");
            s = s.apply(&cfg, a).0;
        }
        s.successors(&cfg, &mut enabled);
        let ahead = enabled.iter().any(|a| matches!(a, RecoverAhead { .. }));
        assert_eq!(ahead, recovers_ahead, "{kafka}: {enabled:?}");
    }
}
