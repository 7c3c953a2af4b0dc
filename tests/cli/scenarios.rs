//! The replication model through the CLI: the public scenarios S1–S3 in every truncation mode,
//! a KIP-279 history that needs two OffsetsForLeaderEpoch round trips, `--dry-run`, refusals of
//! bad input, the high-watermark lag of the seed's "Watch" sequence and the HW rules
//! (replication-model.md, "Operations", "Truncation modes" and "Public example scenarios").

use crate::common::*;
use serde_json::Value;
use std::path::{Path, PathBuf};

const MODES: [&str; 3] = ["hw", "kip101", "kip279"];

/// An expected log: (offset, epoch, value).
fn log(entries: &[(i64, i64, &str)]) -> Vec<(i64, i64, String)> {
    entries.iter().map(|(o, e, v)| (*o, *e, v.to_string())).collect()
}

fn hw(dir: &Path) -> i64 {
    replica(dir)["high_watermark"].as_i64().expect("high_watermark")
}

fn leo(dir: &Path) -> i64 {
    replica(dir)["log_end_offset"].as_i64().expect("log_end_offset")
}

fn elect(dir: &Path, epoch: i32, isr: &[&Path]) {
    let e = epoch.to_string();
    let mut args = vec!["elect", s(dir), "--epoch", &e];
    if !isr.is_empty() {
        args.push("--isr");
        args.extend(isr.iter().map(|p| s(p)));
    }
    ok(&args);
}

fn append(dir: &Path, values: &[&str], timestamp: i64, flush: bool) {
    let ts = timestamp.to_string();
    let mut args = vec!["append", s(dir)];
    args.extend_from_slice(values);
    args.extend_from_slice(&["--timestamp", &ts]);
    if flush {
        args.push("--flush");
    }
    ok(&args);
}

/// `fetch --rounds N [--flush] --json`: the exit code and one object per round.
fn fetch(leader: &Path, follower: &Path, rounds: u32, flush: bool) -> (i32, Vec<Value>) {
    fetch_as(None, leader, follower, rounds, flush)
}

/// [`fetch`] with `--mode M`: the fetch path of the mode's era (before 2.8, no last fetched
/// epoch, for hw and kip101).
fn fetch_as(mode: Option<&str>, leader: &Path, follower: &Path, rounds: u32, flush: bool) -> (i32, Vec<Value>) {
    let n = rounds.to_string();
    let mut args = vec!["fetch", "--leader", s(leader), s(follower), "--rounds", &n, "--json"];
    if flush {
        args.push("--flush");
    }
    if let Some(m) = mode {
        args.extend(["--mode", m]);
    }
    let Ran { code: c, stdout: out, stderr: err } = run(&args);
    assert!(c == 0 || c == 1, "fetch exit {c}: {err}");
    (c, json_lines(&out).into_iter().filter(|v| v["type"] == "fetch_round").collect())
}

fn fetch_ok(leader: &Path, follower: &Path, rounds: u32) -> Vec<Value> {
    fetch_ok_as(None, leader, follower, rounds)
}

fn fetch_ok_as(mode: Option<&str>, leader: &Path, follower: &Path, rounds: u32) -> Vec<Value> {
    let (c, rounds) = fetch_as(mode, leader, follower, rounds, false);
    assert_eq!(c, 0, "fetch was not expected to get stuck: {rounds:?}");
    rounds
}

/// `recover F --leader L --mode M --json [extra]`: the report.
fn recover(follower: &Path, leader: &Path, mode: &str, extra: &[&str]) -> Value {
    let mut args = vec!["recover", s(follower), "--leader", s(leader), "--mode", mode, "--json"];
    args.extend_from_slice(extra);
    let report: Value = serde_json::from_str(&ok(&args)).expect("one JSON document");
    assert_eq!(report["type"], "recover");
    assert_eq!(report["mode"], mode);
    report
}

/// The report's row for `offset`.
fn row(report: &Value, offset: i64) -> &Value {
    report["records"]
        .as_array()
        .expect("records")
        .iter()
        .find(|r| r["offset"] == offset)
        .unwrap_or_else(|| panic!("no row for offset {offset} in {report:#}"))
}

fn class_at(report: &Value, offset: i64) -> &str {
    row(report, offset)["class"].as_str().expect("class")
}

/// `diff A B --json`: exit code and document.
fn diff(a: &Path, b: &Path) -> (i32, Value) {
    let Ran { code: c, stdout: out, stderr: err } = run(&["diff", s(a), s(b), "--json"]);
    assert!(c == 0 || c == 1, "diff exit {c}: {err}");
    (c, serde_json::from_str(&out).expect("diff JSON"))
}

/// The summary as (kept, truncated_refetchable, truncated_lost, acked_lost, diverged, diverged_acked).
fn counts(report: &Value) -> (i64, i64, i64, i64, i64, i64) {
    let c = &report["summary"];
    let n = |k: &str| c[k].as_i64().unwrap_or_else(|| panic!("summary.{k} in {c}"));
    (n("kept"), n("truncated_refetchable"), n("truncated_lost"), n("acked_lost"), n("diverged"), n("diverged_acked"))
}

fn round_trips(report: &Value) -> &Vec<Value> {
    report["round_trips"].as_array().expect("round_trips")
}

// ---------------------------------------------------------------------------------------------
// S1 — KIP-101 scenario 1: HW truncation, then immediate election.

fn s1(mode: &str) {
    let lab = Lab::new();
    let a = lab.create("a", 1, &[]);
    let b = lab.create("b", 2, &[]);
    elect(&b, 0, &[&a]);
    append(&b, &["m1"], 1000, false);
    fetch_ok(&b, &a, 3);
    append(&b, &["m2"], 2000, false);
    fetch_ok(&b, &a, 2);
    assert_eq!((hw(&b), hw(&a)), (2, 1), "m2 committed on B, A one round trip behind");

    ok(&["crash", s(&a)]);
    let first = recover(&a, &b, mode, &[]);
    if mode == "hw" {
        assert!(round_trips(&first).is_empty(), "hw asks nothing: {first:#}");
        assert_eq!(first["truncation_offset"], 1, "A truncates to its own HW 1");
        assert_eq!(class_at(&first, 0), "kept");
        assert_eq!(class_at(&first, 1), "truncated_refetchable");
        assert_eq!(counts(&first), (1, 1, 0, 0, 0, 0));
        assert_eq!(records(&a), log(&[(0, 0, "m1")]));
    } else {
        let trips = round_trips(&first);
        assert_eq!(trips.len(), 1, "{first:#}");
        assert_eq!(trips[0]["requested_epoch"], 0);
        assert_eq!(trips[0]["answered_end_offset"], 2, "B answers its LEO 2");
        if mode == "kip279" {
            assert_eq!(trips[0]["answered_epoch"], 0);
        }
        assert_eq!(first["truncation_offset"], 2, "m2 is not truncated");
        assert_eq!(class_at(&first, 1), "kept");
        assert_eq!(counts(&first), (2, 0, 0, 0, 0, 0));
        assert_eq!(records(&a), log(&[(0, 0, "m1"), (1, 0, "m2")]));
    }

    ok(&["crash", s(&b)]);
    elect(&a, 1, &[]);
    append(&a, &["m3"], 3000, false);
    let second = recover(&b, &a, mode, &[]);
    assert_eq!(second["truncation_offset"], 2, "B keeps m2 in every mode");
    fetch_ok_as(Some(mode), &a, &b, 3);
    let (dc, d) = diff(&a, &b);
    if mode == "hw" {
        let m2 = row(&second, 1);
        assert_eq!(m2["class"], "diverged");
        assert_eq!(m2["acked"], true);
        assert_eq!(m2["follower"]["value"], "m2");
        assert_eq!(m2["follower"]["leader_epoch"], 0);
        assert_eq!(m2["leader"]["value"], "m3");
        assert_eq!(m2["leader"]["leader_epoch"], 1);
        assert_eq!(second["summary"]["diverged"], 1);
        assert_eq!(second["summary"]["diverged_acked"], 1);
        assert_eq!(second["summary"]["first_divergent_offset"], 1);
        assert_eq!(records(&a), log(&[(0, 0, "m1"), (1, 1, "m3")]));
        assert_eq!(records(&b), log(&[(0, 0, "m1"), (1, 0, "m2")]));
        assert_eq!(dc, 1, "diverged: {d}");
        assert_eq!(d["first_divergent_offset"], 1);
        assert_eq!(d["identical"], false);
    } else {
        assert!(round_trips(&second).iter().all(|t| t["requested_epoch"] == 0));
        assert_eq!(counts(&second), (2, 0, 0, 0, 0, 0));
        assert_eq!(second["summary"]["first_divergent_offset"], Value::Null);
        let both = log(&[(0, 0, "m1"), (1, 0, "m2"), (2, 1, "m3")]);
        assert_eq!(records(&a), both);
        assert_eq!(records(&b), both);
        assert_eq!(dc, 0, "identical: {d}");
        assert_eq!(d["identical"], true);
        assert_eq!(d["first_divergent_offset"], Value::Null);
    }
}

#[test]
fn s1_in_hw_mode_loses_acked_m2_from_the_leader_and_the_logs_diverge_at_offset_1() {
    s1("hw");
}

#[test]
fn s1_in_kip101_mode_keeps_m2_and_both_replicas_end_identical() {
    s1("kip101");
}

#[test]
fn s1_in_kip279_mode_keeps_m2_and_both_replicas_end_identical() {
    s1("kip279");
}

// ---------------------------------------------------------------------------------------------
// S2 — KIP-101 scenario 2: divergence after two hard failures.

fn s2(mode: &str) {
    let lab = Lab::new();
    let a = lab.create("a", 1, &[]);
    let b = lab.create("b", 2, &[]);
    s2_history(&a, &b);
    let report = recover(&a, &b, mode, &[]);
    let m2 = row(&report, 1);
    assert_eq!(m2["follower"]["value"], "m2");
    assert_eq!(m2["leader"]["value"], "m3");
    assert_eq!(m2["acked"], true, "A's HW checkpoint was 2");
    fetch_ok_as(Some(mode), &b, &a, 3);
    let (dc, d) = diff(&a, &b);
    let b_log = log(&[(0, 0, "m1"), (1, 1, "m3")]);
    assert_eq!(records(&b), b_log);
    if mode == "hw" {
        assert_eq!(report["truncation_offset"], 2, "A truncates to its HW 2: nothing");
        assert_eq!(m2["class"], "diverged");
        assert_eq!(report["summary"]["diverged"], 1);
        assert_eq!(report["summary"]["diverged_acked"], 1);
        assert_eq!(report["summary"]["first_divergent_offset"], 1);
        assert_eq!(records(&a), log(&[(0, 0, "m1"), (1, 0, "m2")]));
        assert_eq!(dc, 1, "{d}");
        assert_eq!(d["first_divergent_offset"], 1);
    } else {
        assert_eq!(report["truncation_offset"], 1, "start of epoch 1 on B");
        assert_eq!(round_trips(&report)[0]["answered_end_offset"], 1);
        assert_eq!(m2["class"], "acked_lost");
        let (kept, refetchable, lost, acked_lost, diverged, _) = counts(&report);
        assert_eq!((kept, refetchable, lost, acked_lost, diverged), (1, 0, 0, 1, 0));
        assert_eq!(report["summary"]["first_divergent_offset"], Value::Null);
        assert_eq!(records(&a), b_log);
        assert_eq!(dc, 0, "{d}");
        assert_eq!(d["identical"], true);
    }
}

/// S2 up to the recovery of A: B leads epoch 1 with m3 at offset 1, A crashed with m2 there.
fn s2_history(a: &Path, b: &Path) {
    elect(a, 0, &[b]);
    append(a, &["m1"], 1000, true);
    assert_eq!(fetch(a, b, 3, true).0, 0);
    append(a, &["m2"], 2000, true);
    assert_eq!(fetch(a, b, 2, false).0, 0);
    ok(&["crash", s(a), "--power-loss"]);
    ok(&["crash", s(b), "--power-loss"]);
    assert_eq!(records(a), log(&[(0, 0, "m1"), (1, 0, "m2")]), "m2 was flushed on A");
    assert_eq!(records(b), log(&[(0, 0, "m1")]), "m2 was not flushed on B");
    assert_eq!(hw(a), 2, "A's HW checkpoint");
    elect(b, 1, &[]);
    append(b, &["m3"], 3000, false);
}

#[test]
fn s2_in_hw_mode_leaves_the_replicas_diverged_at_offset_1_both_believing_it_committed() {
    s2("hw");
}

#[test]
fn s2_in_kip101_mode_truncates_a_to_the_start_of_epoch_1_and_m2_is_acked_lost() {
    s2("kip101");
}

#[test]
fn s2_in_kip279_mode_truncates_a_to_the_start_of_epoch_1_and_m2_is_acked_lost() {
    s2("kip279");
}

// ---------------------------------------------------------------------------------------------
// S3 — KIP-279: fast leader failover.

fn values(prefix: &str, range: std::ops::RangeInclusive<i64>) -> Vec<String> {
    range.map(|i| format!("{prefix}{i}")).collect()
}

/// S3 up to the recovery of B.
fn s3_history(a: &Path, b: &Path) {
    elect(a, 1, &[b]);
    let a0 = values("a", 0..=10);
    append(a, &a0.iter().map(String::as_str).collect::<Vec<_>>(), 1000, false);
    fetch_ok(a, b, 3);
    let a11 = values("a", 11..=20);
    append(a, &a11.iter().map(String::as_str).collect::<Vec<_>>(), 2000, false);
    elect(b, 2, &[a]);
    let b11 = values("b", 11..=15);
    append(b, &b11.iter().map(String::as_str).collect::<Vec<_>>(), 3000, false);
    elect(a, 3, &[b]);
    append(a, &["a21"], 4000, false);
}

fn s3_leader_log() -> Vec<(i64, i64, String)> {
    let mut l: Vec<_> = (0..=20).map(|i| (i, 1, format!("a{i}"))).collect();
    l.push((21, 3, "a21".into()));
    l
}

fn s3(mode: &str) {
    let lab = Lab::new();
    let a = lab.create("a", 1, &[]);
    let b = lab.create("b", 2, &[]);
    s3_history(&a, &b);
    let report = recover(&b, &a, mode, &[]);
    let trips = round_trips(&report);
    match mode {
        "kip101" => {
            assert_eq!(trips.len(), 1);
            assert_eq!(trips[0]["requested_epoch"], 2);
            assert_eq!(trips[0]["answered_end_offset"], 21, "start of A's next epoch after 2");
            assert_eq!(report["truncation_offset"], 16, "min(21, LEO 16): nothing truncated");
            for o in 11..=15 {
                assert_eq!(class_at(&report, o), "diverged", "offset {o}");
                assert_eq!(row(&report, o)["follower"]["leader_epoch"], 2);
                assert_eq!(row(&report, o)["leader"]["leader_epoch"], 1);
            }
            assert_eq!(report["summary"]["diverged"], 5);
            assert_eq!(report["summary"]["first_divergent_offset"], 11);
            let before = records(&b);
            let (c, rounds) = fetch_as(Some(mode), &a, &b, 3, false);
            assert_eq!(c, 1, "the fetch at 16 gets batch 11..=20 and is stuck: {rounds:?}");
            let stuck = rounds.last().expect("a round");
            assert_eq!(stuck["fetch_offset"], 16);
            assert_eq!(stuck["stuck"]["batch_base_offset"], 11);
            assert_eq!(stuck["records"], 0);
            assert_eq!(records(&b), before, "nothing appended");
            let mut b_log: Vec<_> = (0..=10).map(|i| (i, 1, format!("a{i}"))).collect();
            b_log.extend((11..=15).map(|i| (i, 2, format!("b{i}"))));
            assert_eq!(before, b_log);
            assert_eq!(records(&a), s3_leader_log());
            let (dc, d) = diff(&a, &b);
            assert_eq!(dc, 1);
            assert_eq!(d["first_divergent_offset"], 11);
        }
        "kip279" | "hw" => {
            if mode == "kip279" {
                assert_eq!(trips.len(), 1, "{report:#}");
                assert_eq!(trips[0]["requested_epoch"], 2);
                assert_eq!(trips[0]["answered_epoch"], 1);
                assert_eq!(trips[0]["answered_end_offset"], 21);
                assert_eq!(trips[0]["truncate_to"], 11);
                assert_eq!(trips[0]["done"], true);
            } else {
                assert!(trips.is_empty(), "{report:#}");
            }
            assert_eq!(report["truncation_offset"], 11);
            for o in 11..=15 {
                assert_eq!(class_at(&report, o), "truncated_lost", "offset {o}");
            }
            assert_eq!(report["summary"]["truncated_lost"], 5);
            assert_eq!(report["summary"]["diverged"], 0);
            assert_eq!(leo(&b), 11);
            fetch_ok_as(Some(mode), &a, &b, 3);
            assert_eq!(records(&a), s3_leader_log());
            assert_eq!(records(&b), s3_leader_log());
            let (dc, d) = diff(&a, &b);
            assert_eq!(dc, 0, "{d}");
            assert_eq!(d["identical"], true);
        }
        _ => unreachable!(),
    }
}

#[test]
fn s3_in_hw_mode_truncates_b_to_its_hw_11_and_converges() {
    s3("hw");
}

#[test]
fn s3_in_kip101_mode_truncates_nothing_leaves_11_to_15_diverged_and_the_next_fetch_is_stuck() {
    s3("kip101");
}

#[test]
fn s3_in_kip279_mode_truncates_b_to_11_after_the_answer_epoch_1_end_21_and_converges() {
    s3("kip279");
}

// ---------------------------------------------------------------------------------------------
// KIP-279 with two round trips.

#[test]
fn kip279_asks_again_when_the_follower_lacks_the_answered_epoch_and_settles_on_an_older_one() {
    let lab = Lab::new();
    let l = lab.create("l", 1, &[]);
    let f = lab.create("f", 2, &[]);
    // Epoch 0 on L with F in the ISR: F copies m0 but not m1.
    elect(&l, 0, &[&f]);
    append(&l, &["m0"], 1000, false);
    fetch_ok(&l, &f, 3);
    append(&l, &["m1"], 1100, false);
    // L leads epoch 1 alone and writes l2, l3; F never hears of epoch 1.
    elect(&l, 1, &[]);
    append(&l, &["l2", "l3"], 1200, false);
    // L crashes; F leads epoch 2 (an epoch L never has) and writes f1..f3.
    ok(&["crash", s(&l)]);
    elect(&f, 2, &[]);
    append(&f, &["f1", "f2", "f3"], 1300, false);
    // F crashes; L comes back and leads epoch 3.
    ok(&["crash", s(&f)]);
    elect(&l, 3, &[]);
    append(&l, &["l4"], 1400, false);
    let leader_log = log(&[(0, 0, "m0"), (1, 0, "m1"), (2, 1, "l2"), (3, 1, "l3"), (4, 3, "l4")]);
    assert_eq!(records(&l), leader_log);
    assert_eq!(records(&f), log(&[(0, 0, "m0"), (1, 2, "f1"), (2, 2, "f2"), (3, 2, "f3")]));

    let report = recover(&f, &l, "kip279", &["--catch-up"]);
    let trips = round_trips(&report);
    assert_eq!(trips.len(), 2, "{report:#}");
    // F asks for its latest epoch 2; L's largest epoch <= 2 is 1, ending where epoch 3 starts.
    assert_eq!(trips[0]["requested_epoch"], 2);
    assert_eq!(trips[0]["answered_epoch"], 1);
    assert_eq!(trips[0]["answered_end_offset"], 4);
    assert_eq!(trips[0]["done"], false, "F lacks epoch 1: it asks again");
    assert_eq!(trips[0]["truncate_to"], 1, "the end of F's largest epoch below 1 (epoch 0)");
    // F asks for epoch 0; both have it: min(F's end 1, L's end 2, F's LEO).
    assert_eq!(trips[1]["requested_epoch"], 0);
    assert_eq!(trips[1]["answered_epoch"], 0);
    assert_eq!(trips[1]["answered_end_offset"], 2);
    assert_eq!(trips[1]["truncate_to"], 1);
    assert_eq!(trips[1]["done"], true);
    assert_eq!(report["truncation_offset"], 1);
    assert_eq!(report["cut_offset"], 1);
    // f1..f3 were committed on F (it led alone) and L never had them.
    for o in 1..=3 {
        assert_eq!(class_at(&report, o), "acked_lost", "offset {o}");
    }
    assert_eq!(counts(&report), (1, 0, 0, 3, 0, 0));
    assert_eq!(report["after_catch_up"]["identical"], true, "{report:#}");
    assert_eq!(report["catch_up"]["stuck"], false);
    assert_eq!(records(&f), leader_log);
    assert_eq!(diff(&l, &f).0, 0);
}

// ---------------------------------------------------------------------------------------------
// --dry-run, and the leader is never written.

/// The report with the lab's temp path replaced and the `dry_run` flag dropped.
fn comparable(report: &Value, lab: &Lab) -> Value {
    let text = report.to_string().replace(s(lab.dir.path()), "LAB");
    let mut v: Value = serde_json::from_str(&text).unwrap();
    v.as_object_mut().unwrap().remove("dry_run");
    v
}

type History = fn(&Path, &Path);

/// Two histories: S2 (follower A crashed, so local recovery is part of the run) and S3
/// (follower B running), each as (history, follower name, leader name).
const HISTORIES: [(&str, History, &str, &str); 2] = [("S2", s2_history, "a", "b"), ("S3", s3_history, "b", "a")];

fn build(history: History) -> (Lab, PathBuf, PathBuf) {
    let lab = Lab::new();
    let a = lab.create("a", 1, &[]);
    let b = lab.create("b", 2, &[]);
    history(&a, &b);
    (lab, a, b)
}

#[test]
fn dry_run_changes_no_byte_of_either_dir_and_prints_the_report_of_the_real_run() {
    for (name, history, follower, leader) in HISTORIES {
        for mode in MODES {
            let (dry_lab, _, _) = build(history);
            let (real_lab, _, _) = build(history);
            let (f, l) = (dry_lab.path(follower), dry_lab.path(leader));
            let before = snapshot(dry_lab.dir.path());
            let dry = recover(&f, &l, mode, &["--dry-run"]);
            assert_eq!(dry["dry_run"], true);
            assert!(snapshot(dry_lab.dir.path()) == before, "{name} {mode}: --dry-run wrote to a dir");

            let (rf, rl) = (real_lab.path(follower), real_lab.path(leader));
            let leader_before = snapshot(&rl);
            let real = recover(&rf, &rl, mode, &[]);
            assert_eq!(real["dry_run"], false);
            assert!(snapshot(&rl) == leader_before, "{name} {mode}: a real recover wrote to the leader");
            assert_eq!(dry["truncation_offset"], real["truncation_offset"], "{name} {mode}");
            assert_eq!(dry["summary"], real["summary"], "{name} {mode}");
            assert_eq!(dry["round_trips"], real["round_trips"], "{name} {mode}");
            assert_eq!(comparable(&dry, &dry_lab), comparable(&real, &real_lab), "{name} {mode}: whole report");
        }
    }
}

#[test]
fn leader_epoch_is_the_controllers_epoch_stamped_at_the_leaders_log_end() {
    let (lab, _, _) = build(s2_history);
    let (f, l) = (lab.path("a"), lab.path("b"));
    let plain = recover(&f, &l, "kip279", &["--dry-run"]);
    let epoch = plain["leader_epoch"].as_i64().unwrap();
    let leo = plain["leader_view"]["log_end_offset"].clone();
    // The epoch the leader runs at changes nothing.
    let same = recover(&f, &l, "kip279", &["--dry-run", "--leader-epoch", &epoch.to_string()]);
    assert_eq!(same["leader_view"], plain["leader_view"]);
    // A later one (a controller's election the leader's cache does not show yet) starts at its LEO.
    let later = recover(&f, &l, "kip279", &["--dry-run", "--leader-epoch", &(epoch + 3).to_string()]);
    assert_eq!(later["leader_epoch"], epoch + 3);
    let epochs = later["leader_view"]["epochs"].as_array().unwrap();
    assert_eq!(epochs.last().unwrap()["leader_epoch"], epoch + 3);
    assert_eq!(epochs.last().unwrap()["start_offset"], leo);
    assert_eq!(epochs.len(), plain["leader_view"]["epochs"].as_array().unwrap().len() + 1);
    let err =
        refused(&lab, &["recover", s(&f), "--leader", s(&l), "--dry-run", "--leader-epoch", &(epoch - 1).to_string()]);
    assert!(err.contains(&format!("above --leader-epoch {}", epoch - 1)), "{err}");
}

// ---------------------------------------------------------------------------------------------
// Bad input: exit 2, nothing changed.

/// Run `args`, expect exit 2 and every byte under the lab unchanged; return stderr.
fn refused(lab: &Lab, args: &[&str]) -> String {
    let before = snapshot(lab.dir.path());
    let Ran { code: c, stdout: out, stderr: err } = run(args);
    assert_eq!(c, 2, "{args:?}: expected exit 2, got {c}\nstdout: {out}\nstderr: {err}");
    assert!(snapshot(lab.dir.path()) == before, "{args:?} changed a dir");
    err
}

/// A leads epoch 0 with ISR {B}, B caught up on m1 m2; O holds another topic-partition; E is an
/// empty dir.
fn bad_input_lab() -> (Lab, PathBuf, PathBuf, PathBuf, PathBuf) {
    let lab = Lab::new();
    let a = lab.create("a", 1, &[]);
    let b = lab.create("b", 2, &[]);
    let o = lab.create("o", 3, &["--topic", "other"]);
    let e = lab.path("empty");
    std::fs::create_dir(&e).unwrap();
    elect(&a, 0, &[&b]);
    append(&a, &["m1", "m2"], 1000, false);
    fetch_ok(&a, &b, 3);
    (lab, a, b, o, e)
}

#[test]
fn recover_refuses_bad_input_with_exit_2_and_changes_nothing() {
    let (lab, a, b, o, e) = bad_input_lab();
    // B crashed: a recover that went ahead would at least run its local recovery.
    ok(&["crash", s(&b)]);
    for mode in MODES {
        refused(&lab, &["recover", s(&b), "--leader", s(&b), "--mode", mode]);
        refused(&lab, &["recover", s(&a), "--leader", s(&a), "--mode", mode]);
        refused(&lab, &["recover", s(&b), "--leader", s(&o), "--mode", mode]);
        refused(&lab, &["recover", s(&o), "--leader", s(&a), "--mode", mode]);
        refused(&lab, &["recover", s(&b), "--leader", s(&e), "--mode", mode]);
        // B is not a leader (it crashed as a follower).
        refused(&lab, &["recover", s(&a), "--leader", s(&b), "--mode", mode]);
        refused(&lab, &["recover", s(&b), "--leader", s(&a), "--mode", mode, "--bogus"]);
    }
    let err = refused(&lab, &["recover", s(&b), "--leader", s(&a), "--mode", "foo"]);
    assert!(err.contains("foo"), "{err}");
    // The same dir under another name.
    let a_partition = a.join("demo-0");
    refused(&lab, &["recover", s(&a), "--leader", s(&a_partition), "--mode", "kip279"]);
    // A follower that is running, asked to follow another follower.
    let c = lab.create("c", 4, &[]);
    elect(&a, 1, &[&b, &c]);
    fetch_ok(&a, &c, 1);
    refused(&lab, &["recover", s(&a), "--leader", s(&c), "--mode", "kip279"]);
}

#[test]
fn recover_refuses_a_leader_whose_epoch_is_below_one_the_follower_has_seen_in_every_mode() {
    let lab = Lab::new();
    let a = lab.create("a", 1, &[]);
    let b = lab.create("b", 2, &[]);
    elect(&a, 5, &[]);
    append(&a, &["x"], 1000, false);
    ok(&["crash", s(&a)]);
    elect(&b, 1, &[]);
    append(&b, &["y"], 2000, false);
    for mode in MODES {
        for extra in [&[][..], &["--dry-run"][..], &["--catch-up"][..]] {
            let mut args = vec!["recover", s(&a), "--leader", s(&b), "--mode", mode];
            args.extend_from_slice(extra);
            let err = refused(&lab, &args);
            assert!(err.contains("FENCED_LEADER_EPOCH"), "{err}");
        }
    }
    // At the follower's own epoch the leader is not fenced.
    elect(&b, 5, &[]);
    recover(&a, &b, "kip279", &[]);
}

#[test]
fn fetch_refuses_bad_input_with_exit_2_and_changes_nothing() {
    let (lab, a, b, o, e) = bad_input_lab();
    refused(&lab, &["fetch", "--leader", s(&b), s(&a)]);
    refused(&lab, &["fetch", "--leader", s(&a), s(&a)]);
    refused(&lab, &["fetch", "--leader", s(&a), s(&a.join("demo-0"))]);
    refused(&lab, &["fetch", "--leader", s(&a), s(&o)]);
    refused(&lab, &["fetch", "--leader", s(&a), s(&e)]);
    refused(&lab, &["fetch", "--leader", s(&e), s(&b)]);
    let c = lab.create("c", 4, &[]);
    refused(&lab, &["fetch", "--leader", s(&c), s(&b)]);
}

#[test]
fn crash_refuses_damage_it_cannot_do_with_exit_2_and_changes_nothing() {
    let (lab, a, _b, o, _e) = bad_input_lab();
    // An empty log has nothing to tear or flip.
    refused(&lab, &["crash", s(&o), "--torn-bytes", "5"]);
    refused(&lab, &["crash", s(&o), "--flip-byte"]);
    refused(&lab, &["crash", s(&o), "--flip-byte", "0"]);
    refused(&lab, &["crash", s(&o), "--flip-byte", "--seed", "7"]);
    // Positions past the end of the active segment.
    let size = std::fs::metadata(a.join("demo-0").join("00000000000000000000.log")).unwrap().len();
    let at_end = size.to_string();
    refused(&lab, &["crash", s(&a), "--flip-byte", &at_end]);
    refused(&lab, &["crash", s(&a), "--flip-byte", "100000"]);
    refused(&lab, &["crash", s(&a), "--torn-bytes", &(size + 1).to_string()]);
    // The last byte is inside the segment: that one works.
    ok(&["crash", s(&a), "--flip-byte", &(size - 1).to_string()]);
}

// ---------------------------------------------------------------------------------------------
// The high-watermark lag ("Watch") and the HW rules.

fn round_hws(round: &Value) -> (i64, i64, i64, i64) {
    let n = |k: &str| round[k].as_i64().unwrap_or_else(|| panic!("{k} in {round}"));
    (
        n("leader_high_watermark"),
        n("follower_log_end_offset"),
        n("follower_high_watermark"),
        n("returned_high_watermark"),
    )
}

#[test]
fn watch_the_follower_learns_the_hw_one_fetch_after_the_leader_moves_it() {
    let lab = Lab::new();
    let a = lab.create("a", 1, &[]);
    let b = lab.create("b", 2, &[]);
    elect(&b, 1, &[&a]);
    append(&b, &["w1", "w2"], 1000, false);
    assert_eq!((leo(&b), hw(&b)), (2, 0), "A has not fetched: the HW stays");

    // Round 1 (fetch at 0): A copies both records; B has only learnt A's offset 0.
    let r1 = fetch_ok(&b, &a, 1);
    assert_eq!(r1.len(), 1);
    assert_eq!(r1[0]["fetch_offset"], 0);
    assert_eq!(r1[0]["records"], 2);
    assert_eq!(round_hws(&r1[0]), (0, 2, 0, 0));
    assert_eq!((hw(&b), leo(&a), hw(&a)), (0, 2, 0));

    // Round 2 (fetch at 2): B moves its HW to 2, but returns the HW 0 it read first.
    let r2 = fetch_ok(&b, &a, 1);
    assert_eq!(r2[0]["fetch_offset"], 2);
    assert_eq!(round_hws(&r2[0]), (2, 2, 0, 0));
    assert_eq!((hw(&b), hw(&a)), (2, 0));

    // Round 3: A learns HW 2.
    let r3 = fetch_ok(&b, &a, 1);
    assert_eq!(round_hws(&r3[0]), (2, 2, 2, 2));
    assert_eq!((hw(&b), hw(&a)), (2, 2));

    // The same three rounds in one command show the same lag.
    let lab2 = Lab::new();
    let a2 = lab2.create("a", 1, &[]);
    let b2 = lab2.create("b", 2, &[]);
    elect(&b2, 1, &[&a2]);
    append(&b2, &["w1", "w2"], 1000, false);
    let rounds = fetch_ok(&b2, &a2, 3);
    let seen: Vec<_> = rounds.iter().map(round_hws).collect();
    assert_eq!(seen, vec![(0, 2, 0, 0), (2, 2, 0, 0), (2, 2, 2, 2)]);
}

#[test]
fn leader_hw_is_the_min_leo_over_the_isr_and_never_goes_backwards() {
    let lab = Lab::new();
    let a = lab.create("a", 1, &[]);
    let b = lab.create("b", 2, &[]);
    let c = lab.create("c", 3, &[]);
    elect(&b, 0, &[&a, &c]);
    append(&b, &["x1", "x2", "x3"], 1000, false);
    fetch_ok(&b, &a, 2);
    assert_eq!(hw(&b), 0, "C has not fetched: it holds the HW");
    let r = fetch_ok(&b, &c, 1);
    assert_eq!(r[0]["leader_high_watermark"], 0, "C fetched at 0: min(3, 0)");
    let r = fetch_ok(&b, &c, 1);
    assert_eq!(r[0]["leader_high_watermark"], 3, "min(A 3, C 3)");
    assert_eq!(hw(&b), 3);

    // A loses everything it had not flushed and fetches again from 0: the HW stays.
    ok(&["crash", s(&a), "--power-loss"]);
    let r = fetch_ok(&b, &a, 1);
    assert_eq!(r[0]["fetch_offset"], 0);
    assert_eq!(r[0]["leader_high_watermark"], 3, "never backwards");
    assert_eq!(hw(&b), 3);

    // A new election keeps the HW; until C fetches from the new leader it holds the HW there.
    elect(&b, 1, &[&a, &c]);
    assert_eq!(hw(&b), 3);
    // The followers learn the new epoch by becoming followers again (truncating first).
    for f in [&a, &c] {
        ok(&["recover", s(f), "--leader", s(&b), "--mode", "kip279"]);
    }
    assert_eq!(hw(&b), 3);
    append(&b, &["y1", "y2"], 2000, false);
    let r = fetch_ok(&b, &a, 3);
    assert!(r.iter().all(|x| x["leader_high_watermark"] == 3), "{r:?}");
    assert_eq!(hw(&b), 3);
    fetch_ok(&b, &c, 1);
    assert_eq!(hw(&b), 3, "C fetched at 3");
    fetch_ok(&b, &c, 1);
    assert_eq!(hw(&b), 5, "C fetched at 5: min(A 5, C 5)");
}

#[test]
fn a_follower_outside_the_isr_does_not_hold_the_hw_and_a_lone_leader_hw_follows_its_leo() {
    let lab = Lab::new();
    let a = lab.create("a", 1, &[]);
    let b = lab.create("b", 2, &[]);
    elect(&b, 0, &[]);
    append(&b, &["x1", "x2"], 1000, false);
    assert_eq!((leo(&b), hw(&b)), (2, 2), "ISR = B alone: HW = LEO at append");
    let r = fetch_ok(&b, &a, 1);
    assert_eq!(round_hws(&r[0]), (2, 2, 2, 2), "A outside the ISR: B's HW is already 2");
    append(&b, &["x3"], 2000, false);
    assert_eq!((leo(&b), hw(&b)), (3, 3), "A at 2 does not hold the HW back");
    append(&b, &["x4", "x5", "x6"], 3000, false);
    assert_eq!((leo(&b), hw(&b)), (6, 6));
    let r = fetch_ok(&b, &a, 1);
    assert_eq!(round_hws(&r[0]), (6, 6, 6, 6));
    assert_eq!(hw(&a), 6);
}

// ---------------------------------------------------------------------------------------------
// Truncation details.

#[test]
fn truncation_cuts_at_a_batch_boundary_so_a_batch_straddling_the_target_goes_whole() {
    let lab = Lab::new();
    let a = lab.create("a", 1, &[]);
    let b = lab.create("b", 2, &[]);
    elect(&a, 0, &[&b]);
    append(&a, &["x0", "x1", "x2"], 1000, false);
    append(&a, &["y3", "y4", "y5", "y6"], 2000, false);
    fetch_ok(&a, &b, 3);
    // A stale HW checkpoint of 5 falls inside batch 3..=6.
    ok(&["crash", s(&b), "--hw", "5"]);
    let report = recover(&b, &a, "hw", &[]);
    assert_eq!(report["truncation_offset"], 5);
    assert_eq!(report["cut_offset"], 3, "the batch holding offset 5 starts at 3");
    for o in 3..=6 {
        assert_eq!(class_at(&report, o), "truncated_refetchable", "offset {o}");
    }
    assert_eq!(counts(&report), (3, 4, 0, 0, 0, 0));
    assert_eq!(records(&b), log(&[(0, 0, "x0"), (1, 0, "x1"), (2, 0, "x2")]));
    assert_eq!((leo(&b), hw(&b)), (3, 3), "the HW is clamped to the new LEO");
    assert_eq!(run(&["check", s(&b)]).code, 0);
    fetch_ok(&a, &b, 3);
    assert_eq!(records(&b), records(&a));
}

#[test]
fn an_epoch_older_than_all_the_leader_knows_is_undefined_for_kip101_and_answered_from_log_start_by_kip279() {
    let lab = Lab::new();
    let l = lab.create("l", 1, &[]);
    let f = lab.create("f", 2, &[]);
    elect(&f, 1, &[]);
    append(&f, &["f0", "f1"], 1000, false);
    ok(&["crash", s(&f)]);
    elect(&l, 3, &[]);
    append(&l, &["l0", "l1", "l2"], 2000, false);

    // kip101: epoch 1 is below L's first epoch 3 → UNDEFINED → F truncates to its HW 2.
    let kip101 = recover(&f, &l, "kip101", &["--dry-run"]);
    assert_eq!(round_trips(&kip101).len(), 1);
    assert_eq!(round_trips(&kip101)[0]["answered_epoch"], Value::Null);
    assert_eq!(kip101["truncation_offset"], 2);
    assert_eq!(kip101["summary"]["diverged"], 2);
    assert_eq!(kip101["summary"]["first_divergent_offset"], 0);
    // kip279: endOffsetFor(1) = (1, start of L's next higher epoch = 0) → truncate to 0.
    let kip279 = recover(&f, &l, "kip279", &["--catch-up"]);
    let trip = &round_trips(&kip279)[0];
    assert_eq!((trip["answered_epoch"].as_i64(), trip["answered_end_offset"].as_i64()), (Some(1), Some(0)));
    assert_eq!(kip279["truncation_offset"], 0);
    assert_eq!(kip279["summary"]["acked_lost"], 2, "f0 f1 were committed on F, which led alone");
    assert_eq!(records(&f), log(&[(0, 3, "l0"), (1, 3, "l1"), (2, 3, "l2")]));
}
