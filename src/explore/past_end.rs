//! The explorer's fetch where the follower's log ends past the leader's: 0.11.0 – 2.0.0 stop
//! the follower's broker (unclean election disabled), later releases truncate it.

#![cfg(test)]

use super::model::{Action, Config, Controller, State};
use crate::replication::release::parse_kafka;

/// `a` leads at 0 with ISR {a, b}; m1 m2 reach `b` and both HWs; `a` loses them in a power
/// cut, restarts and leads again at 1; `b`, restarted on IBP 0.10.2, truncates to its HW (2)
/// and fetches from `a`, whose log is empty.
fn past_the_leaders_end(kafka: &str) -> (State, Config) {
    use Action::*;
    let rules = parse_kafka(kafka).unwrap();
    let cfg = Config { power_loss: true, controller: Controller::Free, ..Config::clean_at(rules, 2, 3, 2, 12) };
    let mut s = State::initial(2);
    let mut enabled = Vec::new();
    for a in [
        Elect { replica: 0, leader_epoch: 0, isr: 0b11, unclean: false },
        Append { replica: 0, value: 1 },
        Append { replica: 0, value: 2 },
        Fetch { leader: 0, follower: 1 },
        Fetch { leader: 0, follower: 1 },
        Fetch { leader: 0, follower: 1 },
        Crash { replica: 0, power_loss: true, hw: None },
        Restart { replica: 0 },
        Elect { replica: 0, leader_epoch: 1, isr: 0b11, unclean: false },
        Crash { replica: 1, power_loss: false, hw: None },
        Recover { follower: 1, leader: 0 },
    ] {
        s.successors(&cfg, &mut enabled);
        assert!(enabled.contains(&a), "{a:?} not enabled in {s:?}");
        s = s.apply(&cfg, a).0;
    }
    assert_eq!((s.nodes[0].records().len(), s.nodes[1].records().len()), (0, 2));
    (s, cfg)
}

/// Issue 41, point 5. ReplicaFetcherThread.scala:179-190@2.0.0: the follower's broker exits
/// (FatalExitError) with unclean.leader.election.enable false; 2.0.1 (KAFKA-7414) truncates.
#[test]
fn a_fetch_past_the_leaders_end_stops_the_followers_broker_up_to_2_0_0() {
    let fetch = Action::Fetch { leader: 0, follower: 1 };
    let (s, cfg) = past_the_leaders_end("1.1.1,ibp=0.10.2");
    let after = s.apply(&cfg, fetch).0;
    assert!(!after.nodes[1].is_running(), "the broker stopped");
    assert_eq!(after.nodes[1].records().len(), 2, "nothing cut");
    let script = super::script::controller_lines(&cfg, &s, &after, &fetch);
    assert!(script.iter().any(|l| l.starts_with("klog crash")), "{script:?}");
    for kafka in ["2.0.1,ibp=0.10.2", "1.1.1,ibp=0.10.2,unclean=true"] {
        let (s, cfg) = past_the_leaders_end(kafka);
        let after = s.apply(&cfg, fetch).0;
        assert!(after.nodes[1].is_running(), "{kafka}");
        assert_eq!(after.nodes[1].records().len(), 0, "{kafka}: truncated to the leader's end");
    }
}
