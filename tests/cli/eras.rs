//! Release rules through the binary: what `recover --kafka X` and `--mode` do where Kafka's
//! releases differ, and the rules every release shares (a follower below the leader's log start
//! restarts there; acknowledged means a leader's HW covered that very record).

use crate::common::*;
use std::path::Path;

/// What Kafka's `deleteRecords` (or retention) leaves behind on a stopped leader: its log start
/// raised to `offset` in log-start-offset-checkpoint. klog has no retention of its own, so the
/// test writes the checkpoint line a broker's checkpoint task would write.
fn raise_log_start(dir: &Path, topic: &str, offset: i64) {
    let path = dir.join("log-start-offset-checkpoint");
    std::fs::write(&path, format!("0\n1\n{topic} 0 {offset}\n")).unwrap();
}

/// A leader with m0..m5 (one batch each) whose log start was raised to 4, and a crashed
/// follower holding m0, m1.
fn follower_below_leader_start(lab: &Lab) -> (std::path::PathBuf, std::path::PathBuf) {
    let a = lab.create("a", 1, &["--topic", "t"]);
    let b = lab.create("b", 2, &["--topic", "t"]);
    ok(&["elect", s(&a), "--epoch", "0", "--isr", s(&b)]);
    for i in 0..6 {
        ok(&["append", s(&a), &format!("m{i}"), "--timestamp", "1000"]);
    }
    ok(&["fetch", "--leader", s(&a), s(&b), "--rounds", "2", "--max-bytes", "1"]);
    ok(&["crash", s(&b)]);
    ok(&["stop", s(&a)]);
    raise_log_start(&a, "t", 4);
    ok(&["elect", s(&a), "--epoch", "1", "--isr", s(&b)]);
    (a, b)
}

/// `AbstractFetcherThread.fetchOffsetAndTruncate` (0.8 → 4.x): the follower's fetch offset is
/// below the leader's log start, so it truncates fully and starts at the leader's log start.
#[test]
fn a_follower_whose_cut_is_below_the_leaders_log_start_restarts_there() {
    let lab = Lab::new();
    let (a, b) = follower_below_leader_start(&lab);
    let dry = ok(&["recover", s(&b), "--leader", s(&a), "--dry-run"]);
    assert!(dry.contains("full truncation: 4 is the leader's log start"), "{dry}");
    assert_eq!(dry.matches("removed: below leader's log start").count(), 2, "{dry}");
    assert!(dry.contains("and 2 removed below the leader's log start"), "{dry}");
    let json = json_lines(&ok(&["recover", s(&b), "--leader", s(&a), "--dry-run", "--json"]));
    let r = &json[0];
    assert_eq!(r["restart_at_leader_start"], 4, "{r}");
    assert_eq!(r["leader_view"]["log_start_offset"], 4, "{r}");
    assert_eq!(r["follower_log_end_offset_after"], 4, "{r}");
    assert_eq!(r["summary"]["below_leader_start"], 2, "{r}");
    // The run does what the dry run said: an empty log at 4, which the next fetch fills.
    ok(&["recover", s(&b), "--leader", s(&a)]);
    let after = replica(&b);
    assert_eq!((after["log_start_offset"].as_i64(), after["log_end_offset"].as_i64()), (Some(4), Some(4)), "{after}");
    ok(&["fetch", "--leader", s(&a), s(&b), "--until-caught-up"]);
    let vals: Vec<String> = records(&b).into_iter().map(|r| r.2).collect();
    assert_eq!(vals, ["m4", "m5"]);
    ok(&["check", s(&b)]);
}

/// 0.10.2.2's ReplicaManager.makeFollowers truncates only partitions whose leader changed
/// (`Partition.makeFollower`); 2.1.0 on truncates for a new epoch of the same leader.
#[test]
fn a_running_follower_re_told_its_leader_keeps_its_log_on_0_10_2_and_truncates_on_2_1() {
    let lab = Lab::new();
    let a = lab.create("a", 1, &[]);
    let b = lab.create("b", 2, &[]);
    ok(&["elect", s(&a), "--epoch", "0", "--isr", s(&b)]);
    ok(&["append", s(&a), "m1", "--timestamp", "1000"]);
    ok(&["fetch", "--leader", s(&a), s(&b), "--rounds", "2"]);
    ok(&["append", s(&a), "m2", "--timestamp", "1000"]);
    ok(&["fetch", "--leader", s(&a), s(&b)]);
    // b holds m1, m2 with HW 1; a is re-elected at epoch 1.
    ok(&["elect", s(&a), "--epoch", "1", "--isr", s(&b)]);
    let old = ok(&["recover", s(&b), "--leader", s(&a), "--kafka", "0.10.2.2", "--dry-run"]);
    assert!(old.contains("does not restart the fetcher") && old.contains("LEO 2 -> 2"), "{old}");
    let skip = ok(&["recover", s(&b), "--leader", s(&a), "--kafka", "2.0.1", "--dry-run"]);
    assert!(skip.contains("does not restart the fetcher"), "2.0.1 lets epoch + 1 through: {skip}");
    let hw_restart = {
        ok(&["crash", s(&b)]);
        ok(&["recover", s(&b), "--leader", s(&a), "--kafka", "0.10.2.2", "--dry-run"])
    };
    assert!(hw_restart.contains("LEO 2 -> 1"), "a restart truncates to the HW: {hw_restart}");
    let new = ok(&["recover", s(&b), "--leader", s(&a), "--kafka", "2.1.0", "--dry-run"]);
    assert!(new.contains("OffsetsForLeaderEpoch(epoch 0)") && new.contains("LEO 2 -> 2"), "{new}");
}

/// The stale receiver (Kafka's `Kip320.tla`): `c` is told that `a` leads at epoch 2 before `a`
/// is. From KIP-320 (2.1) `a` answers UNKNOWN_LEADER_EPOCH and nothing changes; before it (and
/// with `--no-fencing`) `a`, a zombie leader at 0, answers from its log and `c` keeps the
/// zombie's m1; `a`, told of `b` at 1, cuts m1, then takes epoch 2 — `elect` accepts the epoch
/// `c` already saw for this very election — writes m2, and `c` fetches on, diverged below both HWs.
#[test]
fn a_follower_told_before_its_leader_keeps_the_zombies_record_without_kip_320() {
    let lab = Lab::new();
    let a = lab.create("a", 1, &[]);
    let b = lab.create("b", 2, &[]);
    let c = lab.create("c", 3, &[]);
    let first = ["--epoch-entry", "first-append"];
    ok(&[&["elect", s(&a), "--epoch", "0", "--isr", s(&b), s(&c)][..], &first].concat());
    ok(&[&["elect", s(&b), "--epoch", "1", "--isr", s(&a), s(&c)][..], &first].concat());
    ok(&["append", s(&a), "m1", "--timestamp", "1000"]);
    ok(&["fetch", "--leader", s(&a), s(&c), "--no-fencing"]);
    let ahead = ["recover", s(&c), "--leader", s(&a), "--leader-epoch", "2", "--told-first", "--kafka", "2.0.1"];
    let (_, err) = code(&ahead, 2);
    assert!(err.contains("UNKNOWN_LEADER_EPOCH") && err.contains("not yet at --leader-epoch 2"), "{err}");
    let told = ok(&[&ahead[..], &["--no-fencing"]].concat());
    assert!(told.contains("kept 1"), "c keeps m1, which a answers it holds: {told}");
    ok(&["recover", s(&a), "--leader", s(&b), "--kafka", "2.0.1", "--no-fencing"]);
    ok(&[&["elect", s(&a), "--epoch", "2"][..], &first].concat());
    ok(&["append", s(&a), "m2", "--timestamp", "1000"]);
    // 2.0.1's fetch sends no epoch: c appends a's m2 after its own m1. (From 2.8 the leader
    // would answer a diverging epoch (0, 0) and c would cut m1: see fetch_path.rs.)
    ok(&["fetch", "--leader", s(&a), s(&c), "--no-fencing", "--kafka", "2.0.1"]);
    let (out, _) = code(&["diff", s(&a), s(&c)], 1);
    assert!(out.contains("0"), "a and c differ at offset 0: {out}");
    assert_eq!(replica(&c)["high_watermark"].as_i64(), Some(1), "below c's HW");
}

/// The report names the rules it ran and the leader epoch it assumed, and where that came from.
#[test]
fn the_report_names_the_release_and_where_its_leader_epoch_came_from() {
    let lab = Lab::new();
    let (a, b) = follower_below_leader_start(&lab);
    let out = ok(&["recover", s(&b), "--leader", s(&a), "--kafka", "2.8.2", "--dry-run"]);
    assert!(out.contains("mode kip279 (Kafka 2.8.2)"), "{out}");
    assert!(out.contains("assumed:  leader epoch 1 (the epoch the leader runs at, from klog's state)"), "{out}");
    let out = ok(&["recover", s(&b), "--leader", s(&a), "--kafka", "1.1.0", "--dry-run", "--json"]);
    let r = &json_lines(&out)[0];
    assert_eq!((r["mode"].as_str(), r["kafka"].as_str()), (Some("kip101"), Some("1.1.0")), "{r}");
    assert_eq!(r["leader_epoch_source"], "running");
}

/// min.insync.replicas: acks=all with the ISR below it is NOT_ENOUGH_REPLICAS
/// (`Partition.appendRecordsToLeader`); from 3.7 the HW waits while the ISR is that small
/// (KAFKA-15583). The explorer models it only where those are the rules.
#[test]
fn min_insync_replicas_refuses_appends_and_holds_the_hw_below_it() {
    let lab = Lab::new();
    let a = lab.create("a", 1, &["--min-insync-replicas", "2"]);
    let b = lab.create("b", 2, &["--min-insync-replicas", "2"]);
    ok(&["elect", s(&a), "--epoch", "0"]);
    let before = snapshot(&a);
    let (_, err) = code(&["append", s(&a), "m1"], 2);
    assert!(err.contains("NOT_ENOUGH_REPLICAS") && err.contains("min.insync.replicas 2"), "{err}");
    assert_eq!(snapshot(&a), before, "a refused append writes nothing");
    ok(&["elect", s(&a), "--epoch", "1", "--isr", s(&b)]);
    ok(&["append", s(&a), "m1", "--timestamp", "1000"]);
    ok(&["fetch", "--leader", s(&a), s(&b), "--rounds", "2"]);
    assert_eq!(replica(&a)["high_watermark"], 1);
    ok(&["append", s(&a), "m2", "--timestamp", "1000"]);
    ok(&["fetch", "--leader", s(&a), s(&b)]);
    // The ISR shrinks to the leader alone: its HW stays at 1 though its LEO is 2.
    ok(&["elect", s(&a), "--epoch", "2"]);
    assert_eq!((replica(&a)["high_watermark"].as_i64(), replica(&a)["log_end_offset"].as_i64()), (Some(1), Some(2)));
    let (_, err) = code(&["explore", "--mode", "kip101", "--min-isr", "2"], 2);
    assert!(err.contains("--kafka 3.7.0"), "{err}");
    let (_, err) = code(&["explore", "--kafka", "3.9.1", "--elr", "on"], 2);
    assert!(err.contains("--kafka 4.0.0"), "{err}");
    let (_, err) = code(&["explore", "--kafka", "4.1.0", "--elr", "yes"], 2);
    assert!(err.contains("neither on nor off"), "{err}");
    let (_, err) = code(&["explore", "--kafka", "3.9.1", "--min-isr", "3"], 2);
    assert!(err.contains("--replicas"), "{err}");
}

#[test]
fn releases_above_the_newest_whose_rules_klog_read_are_refused_naming_it() {
    let lab = Lab::new();
    let a = lab.create("a", 1, &[]);
    ok(&["elect", s(&a)]);
    ok(&["append", s(&a), "m1", "--timestamp", "1000"]);
    let b = lab.create("b", 2, &[]);
    let before = (snapshot(&a), snapshot(&b));
    for release in ["4.4.1", "4.5", "4.9", "4.99.0", "5.0"] {
        let started = std::time::Instant::now();
        let (out, err) = code(&["explore", &format!("--kafka={release}")], 2);
        assert!(started.elapsed() < std::time::Duration::from_secs(10), "{release}: refused before any search");
        assert!(out.is_empty(), "{out}");
        assert!(err.contains("newer than the rules klog knows") && err.contains("4.4.0"), "{release}: {err}");
        let (_, err) = code(&["recover", s(&b), "--leader", s(&a), "--kafka", release], 2);
        assert!(err.contains("newer than the rules klog knows") && err.contains("4.4.0"), "{release}: {err}");
    }
    assert_eq!((snapshot(&a), snapshot(&b)), before, "a refused --kafka writes nothing");
    // the newest itself runs, and says so
    let out = ok(&["recover", s(&b), "--leader", s(&a), "--kafka", "4.4", "--dry-run", "--json"]);
    assert_eq!(json_lines(&out).iter().find(|l| l["kafka"].is_string()).unwrap()["kafka"], "4.4.0");
}
