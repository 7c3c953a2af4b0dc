//! Release rules through the binary: what `recover --kafka X` and `--mode` do where Kafka's
//! releases differ, and the rules every release shares (a follower below the leader's log start
//! restarts there; acknowledged means a leader's HW covered that very record).

use crate::common::*;
use serde_json::json;
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
    let ahead = ["recover", s(&c), "--leader", s(&a), "--leader-epoch", "2", "--told-first", "--kafka"];
    for fenced in ["2.1.0", "2.8.2", "2.8.2,ibp=2.1-IV1"] {
        let (_, err) = code(&[&ahead[..], &[fenced]].concat(), 2);
        assert!(err.contains("UNKNOWN_LEADER_EPOCH") && err.contains("not yet at --leader-epoch 2"), "{fenced}: {err}");
    }
    // 2.0.1 has no KIP-320, and neither has 2.8.2 on IBP 2.1-IV0: a dry run goes ahead unfenced.
    for unfenced in ["2.0.1", "2.8.2,ibp=2.1-IV0"] {
        let dry = ok(&[&ahead[..], &[unfenced, "--dry-run"]].concat());
        assert!(dry.contains("kept 1"), "{unfenced}: {dry}");
    }
    let told = ok(&[&ahead[..], &["2.0.1", "--no-fencing"]].concat());
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

/// A follower `b` holding m0, m1 at epoch 0 (HW 2), and a leader `c` elected at epoch 1 with an
/// empty log that then wrote n0, n1: c's epoch cache starts at epoch 1, above b's latest.
fn follower_below_the_leaders_first_epoch(lab: &Lab) -> (std::path::PathBuf, std::path::PathBuf) {
    let b = lab.create("b", 2, &[]);
    let c = lab.create("c", 3, &[]);
    ok(&["elect", s(&b), "--epoch", "0"]);
    ok(&["append", s(&b), "m0", "m1", "--records-per-batch", "1", "--timestamp", "1000"]);
    ok(&["stop", s(&b)]);
    ok(&["elect", s(&c), "--epoch", "1"]);
    ok(&["append", s(&c), "n0", "n1", "--timestamp", "1000"]);
    (b, c)
}

/// LeaderEpochFileCache.endOffsetFor (core/src/main/scala/kafka/server/epoch/
/// LeaderEpochFileCache.scala): at 2.0.0 an epoch below the first cached is UNDEFINED, and the
/// follower falls back to its HW (nothing removed, the logs stay diverged); at 2.0.1 (KAFKA-7415)
/// it is (the requested epoch, the first entry's start offset), and the follower cuts both records.
#[test]
fn an_epoch_below_the_leaders_first_cuts_nothing_on_2_0_0_and_two_records_on_2_0_1() {
    let lab = Lab::new();
    let (b, c) = follower_below_the_leaders_first_epoch(&lab);
    let before = (snapshot(&b), snapshot(&c));
    let old = ok(&["recover", s(&b), "--leader", s(&c), "--kafka", "2.0.0", "--dry-run"]);
    assert!(old.contains("OffsetsForLeaderEpoch(epoch 0) -> epoch -1, offset UNDEFINED"), "{old}");
    assert!(old.contains("LEO 2 -> 2, HW 2 -> 2, nothing removed"), "{old}");
    for release in ["2.0.1", "2.1.1"] {
        let new = ok(&["recover", s(&b), "--leader", s(&c), "--kafka", release, "--dry-run"]);
        assert!(new.contains("OffsetsForLeaderEpoch(epoch 0) -> epoch 0, end offset 0"), "{release}: {new}");
        assert!(new.contains("LEO 2 -> 0, HW 2 -> 0, 2 offsets removed"), "{release}: {new}");
    }
    assert_eq!((snapshot(&b), snapshot(&c)), before, "dry runs change nothing");
    ok(&["recover", s(&b), "--leader", s(&c), "--kafka", "2.0.1"]);
    assert_eq!(replica(&b)["log_end_offset"].as_i64(), Some(0));
}

/// The procedure `--explain` prints is each release's own: 2.0.0's leader answers UNDEFINED
/// below its first epoch, 2.0.1's answers from its first entry, and 2.1's request carries the
/// follower's current leader epoch (KIP-320); the election text names 2.0.1 for KAFKA-7415.
#[test]
fn explain_shows_each_of_2_0_0_2_0_1_and_2_1_1_its_own_lines() {
    let lab = Lab::new();
    let (b, c) = follower_below_the_leaders_first_epoch(&lab);
    let explain =
        |release: &str| ok(&["recover", s(&b), "--leader", s(&c), "--kafka", release, "--dry-run", "--explain"]);
    let procedure = |out: &str| -> Vec<String> {
        out.lines().skip_while(|l| !l.starts_with("explain:")).map(|l| l.trim_end().to_string()).collect()
    };
    let v200 = procedure(&explain("2.0.0"));
    let v201 = procedure(&explain("2.0.1"));
    let v211 = procedure(&explain("2.1.1"));
    let has = |lines: &[String], text: &str| lines.iter().any(|l| l.contains(text));
    assert!(has(&v200, "leader: if e < its first epoch: UNDEFINED") && has(&v200, "◀ first = 1"), "{v200:#?}");
    assert!(has(&v200, "truncate_to(hw); stop") && has(&v200, "◀ hw = 2"), "{v200:#?}");
    assert!(!has(&v200, "its first start"), "{v200:#?}");
    assert!(has(&v201, "leader: if e < its first epoch: (e, its first start)"), "{v201:#?}");
    assert!(has(&v201, "◀ first = (1, 0)") && has(&v201, "◀ min(2, 0, 2) = 0"), "{v201:#?}");
    assert!(has(&v201, "offsets_for_leader_epoch(e)  # unfenced") && !has(&v201, "UNKNOWN_EPOCH"), "{v201:#?}");
    assert!(has(&v211, "offsets_for_leader_epoch(e, current_epoch)"), "{v211:#?}");
    assert!(has(&v211, "leader: if current_epoch != its epoch: FENCED / UNKNOWN_EPOCH"), "{v211:#?}");
    assert!(v200[0].contains("Kafka 2.0.0") && v201[0].contains("Kafka 2.0.1") && v211[0].contains("Kafka 2.1.1"));
    assert_ne!(v200, v201);
    assert_ne!(v201, v211);
}

/// Partition.makeFollower (core/src/main/scala/kafka/cluster/Partition.scala) for a running
/// follower whose leader is re-elected two epochs on: 0.8.0 and 0.8.1.1 always truncate again
/// (to the HW), 0.8.2.0 (KAFKA-1188) and 2.0.0 compare the leader only and keep fetching, 2.0.1
/// refollows because the epoch skips one, 2.1.0 refollows.
#[test]
fn a_running_follower_re_told_its_leader_two_epochs_on_refollows_by_its_release() {
    let lab = Lab::new();
    let a = lab.create("a", 1, &[]);
    let b = lab.create("b", 2, &[]);
    ok(&["elect", s(&a), "--epoch", "0", "--isr", s(&b)]);
    ok(&["append", s(&a), "m1", "--timestamp", "1000"]);
    ok(&["fetch", "--leader", s(&a), s(&b), "--rounds", "2"]);
    ok(&["append", s(&a), "m2", "--timestamp", "1000"]);
    ok(&["fetch", "--leader", s(&a), s(&b)]);
    // b holds m1, m2 with HW 1; a is re-elected at epoch 2.
    ok(&["elect", s(&a), "--epoch", "2", "--isr", s(&b)]);
    let run = |release: &str| ok(&["recover", s(&b), "--leader", s(&a), "--kafka", release, "--dry-run"]);
    for release in ["0.8.0", "0.8.1.1"] {
        let out = run(release);
        assert!(!out.contains("does not restart the fetcher") && out.contains("LEO 2 -> 1"), "{release}: {out}");
    }
    for release in ["0.8.2.0", "0.10.2.2", "1.1.1", "2.0.0"] {
        let out = run(release);
        assert!(out.contains("does not restart the fetcher") && out.contains("LEO 2 -> 2"), "{release}: {out}");
    }
    for release in ["2.0.1", "2.1.0"] {
        let out = run(release);
        assert!(
            !out.contains("does not restart the fetcher") && out.contains("OffsetsForLeaderEpoch"),
            "{release}: {out}"
        );
    }
}

/// KAFKA-7415 shipped in 2.0.1: the explorer's scripts for 2.0.1 elect with the entry at
/// election (no `--epoch-entry first-append`), and 2.0.0's still pass it.
#[test]
fn explorer_scripts_for_2_0_1_take_the_epoch_entry_at_election() {
    let lab = Lab::new();
    let script = |release: &str| {
        let path = lab.path(&format!("s-{release}.sh"));
        let args = ["explore", "--kafka", release, "--no-fencing", "--replicas", "3", "--max-epochs", "3"];
        let (_, _) = code(&[&args[..], &["--max-records", "2", "--max-depth", "10", "--script", s(&path)]].concat(), 1);
        std::fs::read_to_string(&path).unwrap()
    };
    let v201 = script("2.0.1");
    let elects: Vec<&str> = v201.lines().filter(|l| l.contains("klog elect")).collect();
    assert!(!elects.is_empty(), "{v201}");
    assert!(!v201.contains("--epoch-entry first-append"), "{v201}");
    let v200 = script("2.0.0");
    assert!(
        v200.lines().filter(|l| l.contains("klog elect")).all(|l| l.contains("--epoch-entry first-append")),
        "{v200}"
    );
}

/// KAFKA-19522 (PartitionChangeBuilder.canElectLastKnownLeader, kafka-metadata 4.1.0; 4.0.0 -
/// 4.0.2 elect a fenced last known leader too): the same bounds explore other states on 4.0.0's
/// controller than on 4.1.0's, and the run names the release it used.
#[test]
fn the_last_known_leader_alive_check_changes_the_4_0_controllers_states() {
    let states = |release: &str| {
        let args = ["explore", "--kafka", release, "--elr", "on", "--min-isr", "2", "--replicas", "2", "--json"];
        let out = json_lines(&ok(&args));
        let run = &out[0]["runs"][0];
        assert_eq!(run["kafka"], release, "{run}");
        assert_eq!(run["violations"], 0, "{run}");
        run["states"].as_u64().unwrap()
    };
    let (v400, v402, v410, v440) = (states("4.0.0"), states("4.0.2"), states("4.1.0"), states("4.4.0"));
    assert_eq!(v400, v402, "4.0.x all lack the check");
    assert_eq!(v410, v440, "4.1.0 on all have it");
    assert_ne!(v400, v410, "the check is a rule of its own");
}

/// `--kafka X,ibp=Y`: a release on an older inter.broker.protocol.version runs the follower
/// rules that IBP allows (ReplicaFetcherThread, 2.8.2: `isTruncationOnFetchSupported` from
/// 2.7-IV1, OffsetsForLeaderEpoch v2 with the current leader epoch from 2.1-IV1, v1 with the
/// answer's epoch from 2.0-IV0, any OffsetsForLeaderEpoch from 0.11.0-IV2), while the leader's
/// own rules stay the release's.
#[test]
fn an_older_inter_broker_protocol_runs_the_follower_rules_it_allows() {
    let lab = Lab::new();
    let (b, c) = follower_below_the_leaders_first_epoch(&lab);
    let before = (snapshot(&b), snapshot(&c));
    let recover = |kafka: &str, extra: &[&str]| {
        ok(&[&["recover", s(&b), "--leader", s(&c), "--kafka", kafka, "--dry-run"][..], extra].concat())
    };
    let own = recover("2.8.2", &["--explain"]);
    assert!(own.contains("mode kip279 (Kafka 2.8.2)") && own.contains("r = leader.fetch(leo, last_epoch=e)"), "{own}");
    let old = recover("2.8.2,ibp=2.0", &["--explain"]);
    assert!(old.contains("mode kip279 (Kafka 2.8.2 on IBP 2.0-IV1)"), "{old}");
    assert!(old.contains("IBP below 2.7-IV1") && old.contains("offsets_for_leader_epoch(e)  # unfenced"), "{old}");
    assert!(old.contains("KIP-320 fencing needs Kafka 2.1 on IBP 2.1-IV1 or later"), "{old}");
    assert!(!old.contains("leader.fetch(leo, last_epoch=e)"), "{old}");
    let v0 = recover("2.8.2,ibp=1.1", &["--explain"]);
    assert!(v0.contains("mode kip101 (Kafka 2.8.2 on IBP 1.1-IV0)") && v0.contains("LEO 2 -> 0"), "{v0}");
    // 2.8.2's leader answers v0 from its own endOffsetFor: below its first epoch, that epoch's start.
    let below = v0.lines().find(|l| l.contains("leader: elif e < its first epoch: its first start"));
    assert!(below.is_some_and(|l| l.contains("◀ first start = 0")), "{v0}");
    assert!(!recover("1.1.1", &["--explain"]).contains("its first start"), "0.11 - 1.1 leaders answer UNDEFINED there");
    let hw = recover("2.8.2,ibp=0.10.2", &[]);
    assert!(hw.contains("mode hw (Kafka 2.8.2 on IBP 0.10.2-IV0)") && hw.contains("nothing removed"), "{hw}");
    let ibp = |kafka: &str| json_lines(&recover(kafka, &["--json"]))[0]["inter_broker_protocol"].clone();
    assert_eq!(ibp("2.8.2,ibp=2.0"), "2.0-IV1");
    assert_eq!(ibp("2.8.2"), "2.8-IV1");
    assert!(ibp("4.4.0").is_null());
    for (bad, why) in [
        ("2.8.2,ibp=2.9", "not an inter.broker.protocol.version"),
        ("2.0.1,ibp=2.8", "does not know inter.broker.protocol.version 2.8-IV1"),
        ("4.1.0,ibp=3.9", "has no inter.broker.protocol.version"),
        ("2.8.2,ibp", "only ',ibp=IBP' and ',unclean=true|false' may follow"),
    ] {
        let (out, err) = code(&["recover", s(&b), "--leader", s(&c), "--kafka", bad], 2);
        assert!(out.is_empty() && err.contains(why) && err.lines().count() == 1, "{bad}: {err}");
    }
    assert_eq!((snapshot(&b), snapshot(&c)), before, "dry runs and refusals change nothing");
}

/// KIP-320 needs IBP 2.1-IV2 (Fetch v10): `explore --kafka 2.8.2,ibp=2.0` is unfenced without
/// `--no-fencing` and finds the stale receiver; its script names the same rules, and replays.
#[test]
fn explore_on_an_older_ibp_is_unfenced_and_its_script_names_the_ibp() {
    let lab = Lab::new();
    let path = lab.path("s.sh");
    let args = ["explore", "--kafka", "2.8.2,ibp=2.0", "--replicas", "3", "--max-epochs", "3", "--max-records", "2"];
    let (out, _) = code(&[&args[..], &["--max-depth", "10", "--script", s(&path)]].concat(), 1);
    assert!(out.contains("rules: kip279 Kafka 2.8.2 on IBP 2.0-IV1, no-fencing"), "{out}");
    let script = std::fs::read_to_string(&path).unwrap();
    let recovers: Vec<&str> = script.lines().filter(|l| l.contains("klog recover")).collect();
    assert!(!recovers.is_empty(), "{script}");
    assert!(recovers.iter().all(|l| l.contains("--kafka 2.8.2,ibp=2.0-IV1 --no-fencing")), "{recovers:#?}");
    let run = |kafka: &str| {
        json_lines(&ok(&["explore", "--kafka", kafka, "--max-depth", "4", "--json"]))[0]["runs"][0].clone()
    };
    let (old, own) = (run("2.8.2,ibp=2.0"), run("2.8.2"));
    assert_eq!((&old["inter_broker_protocol"], &old["fencing"]), (&json!("2.0-IV1"), &json!(false)), "{old}");
    assert_eq!((&own["inter_broker_protocol"], &own["fencing"]), (&json!("2.8-IV1"), &json!(true)), "{own}");
}

/// Issue 41, point 1. ReplicaFetcherThread.scala:143-148@2.0.1: a follower's HW is min(its
/// LEO, the HW of the leader it fetched from), so it covers the record at an offset only where
/// that leader held it. The stale receiver `c` holds the zombie's m1 at 0 below an HW of 1 that
/// `a`'s m2 at epoch 2 gave it; `b`, elected at 3, holds nothing there. m1 was never
/// acknowledged: its loss is not an acknowledged one.
#[test]
fn a_followers_hw_from_a_later_leader_does_not_prove_its_older_record_where_the_new_leader_holds_nothing() {
    let lab = Lab::new();
    let a = lab.create("a", 1, &[]);
    let b = lab.create("b", 2, &[]);
    let c = lab.create("c", 3, &[]);
    let first = ["--epoch-entry", "first-append"];
    ok(&[&["elect", s(&a), "--epoch", "0", "--isr", s(&b), s(&c)][..], &first].concat());
    ok(&[&["elect", s(&b), "--epoch", "1", "--isr", s(&a), s(&c)][..], &first].concat());
    ok(&["append", s(&a), "m1", "--timestamp", "1000"]);
    ok(&["fetch", "--leader", s(&a), s(&c), "--no-fencing"]);
    ok(&[
        "recover",
        s(&c),
        "--leader",
        s(&a),
        "--leader-epoch",
        "2",
        "--told-first",
        "--kafka",
        "2.0.1",
        "--no-fencing",
    ]);
    ok(&["recover", s(&a), "--leader", s(&b), "--kafka", "2.0.1", "--no-fencing"]);
    ok(&[&["elect", s(&a), "--epoch", "2"][..], &first].concat());
    ok(&["append", s(&a), "m2", "--timestamp", "1000"]);
    ok(&["fetch", "--leader", s(&a), s(&c), "--no-fencing", "--kafka", "2.0.1"]);
    assert_eq!(replica(&c)["high_watermark"].as_i64(), Some(1), "c's HW came from a's m2");
    ok(&["elect", s(&b), "--epoch", "3"]);
    let out = ok(&["recover", s(&c), "--leader", s(&b), "--kafka", "2.0.1", "--no-fencing", "--dry-run", "--json"]);
    let r = &json_lines(&out)[0];
    let m1 = r["records"].as_array().unwrap().iter().find(|x| x["offset"] == 0).unwrap_or_else(|| panic!("{r}"));
    assert_eq!((m1["class"].as_str(), m1["acked"].as_bool()), (Some("truncated_lost"), Some(false)), "{m1}");
    assert_eq!(r["summary"]["acked_lost"], 0, "{r}");
}

/// `b` holds m0 m1 below its HW 2; `c`, elected with an empty log, leads at epoch 1. On IBP
/// 0.10.2 `b` restarts by truncating to its HW, so its log still ends past `c`'s.
fn follower_past_an_empty_leader(lab: &Lab) -> (std::path::PathBuf, std::path::PathBuf) {
    let a = lab.create("a", 1, &[]);
    let b = lab.create("b", 2, &[]);
    let c = lab.create("c", 3, &[]);
    ok(&["elect", s(&a), "--epoch", "0", "--isr", s(&b)]);
    ok(&["append", s(&a), "m0", "m1", "--timestamp", "1000"]);
    ok(&["fetch", "--leader", s(&a), s(&b), "--rounds", "3"]);
    assert_eq!(replica(&b)["high_watermark"], 2);
    ok(&["crash", s(&b)]);
    ok(&["elect", s(&c), "--epoch", "1"]);
    (b, c)
}

/// Issue 41, point 5. ReplicaFetcherThread.scala:179-190@2.0.0: a follower whose log ends past
/// the leader's (OFFSET_OUT_OF_RANGE) stops its broker (FatalExitError) when the topic's
/// unclean.leader.election.enable is false — Kafka's default from 0.11.0.0
/// (KafkaConfig.scala:134@0.11.0.0) — instead of truncating; KAFKA-7414 removed it in 2.0.1.
#[test]
fn a_follower_past_the_leaders_end_stops_its_broker_on_0_11_to_2_0_0_and_truncates_from_2_0_1() {
    let lab = Lab::new();
    let (b, c) = follower_past_an_empty_leader(&lab);
    // recover says it, and --explain marks the line.
    let out = ok(&["recover", s(&b), "--leader", s(&c), "--kafka", "2.0.0,ibp=0.10.2", "--dry-run"]);
    assert!(out.contains("the broker stops") && out.contains("2 > 0") && out.contains("FatalExitError"), "{out}");
    let json =
        json_lines(&ok(&["recover", s(&b), "--leader", s(&c), "--kafka", "1.1.1,ibp=0.10.2", "--dry-run", "--json"]));
    assert_eq!(json[0]["summary"]["broker_stops_at_first_fetch"], true, "{}", json[0]);
    let explain = ok(&["recover", s(&b), "--leader", s(&c), "--kafka", "2.0.0,ibp=0.10.2", "--dry-run", "--explain"]);
    assert!(explain.contains("stop the broker (FatalExitError)"), "{explain}");
    for (release, stops) in [("2.0.1,ibp=0.10.2", false), ("0.10.2.2", false), ("1.1.1,ibp=0.10.2,unclean=true", false)]
    {
        let json = json_lines(&ok(&["recover", s(&b), "--leader", s(&c), "--kafka", release, "--dry-run", "--json"]));
        assert_eq!(json[0]["summary"]["broker_stops_at_first_fetch"], stops, "{release}: {}", json[0]);
    }
    // The restart itself truncates to the HW (2); the first fetch stops the broker, cutting nothing.
    ok(&["recover", s(&b), "--leader", s(&c), "--kafka", "1.1.1,ibp=0.10.2"]);
    let out = ok(&["fetch", "--leader", s(&c), s(&b), "--kafka", "1.1.1", "--rounds", "3"]);
    assert!(out.contains("round 1: follower LEO 2 is past the leader's LEO 0") && out.contains("STOPS"), "{out}");
    assert!(!out.contains("round 2"), "no round after the broker stops: {out}");
    assert_eq!(records(&b).len(), 2, "nothing is cut");
    let json = json_lines(&ok(&["fetch", "--leader", s(&c), s(&b), "--kafka", "2.0.0", "--json"]));
    assert_eq!((json[0]["broker_stops"].as_bool(), json[0]["truncated"].is_null()), (Some(true), true), "{}", json[0]);
    assert_eq!(records(&b).len(), 2);
    let explain = ok(&["fetch", "--leader", s(&c), s(&b), "--kafka", "2.0.0", "--explain"]);
    assert!(explain.contains("stop the broker (FatalExitError)") && explain.contains("2 > 0"), "{explain}");
    // 2.0.1 (KAFKA-7414), or unclean election enabled: the follower truncates to the leader's LEO.
    let out = ok(&["fetch", "--leader", s(&c), s(&b), "--kafka", "1.1.1,unclean=true"]);
    assert!(out.contains("follower LEO 2 is past the leader's LEO: truncated to 0"), "{out}");
    assert!(records(&b).is_empty());
}
