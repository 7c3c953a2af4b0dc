//! `klog fetch` by the release's fetch path: from Kafka 2.8 (KAFKA-10554) the follower sends its
//! latest epoch and the leader answers a diverging epoch or OFFSET_OUT_OF_RANGE before it reads
//! or records anything (`Partition.readRecords`, `ReplicaManager.updateFollowerFetchState`); the
//! follower truncates on the answer (`truncateOnFetchResponse`, `fetchOffsetAndTruncate`). Before
//! 2.8 the same labs give the old answers: a stuck fetcher and a leader HW moved over a
//! diverged follower.

use crate::common::*;
use serde_json::Value;
use std::path::{Path, PathBuf};

fn elect(dir: &Path, epoch: i32, isr: &[&Path], extra: &[&str]) {
    let e = epoch.to_string();
    let mut args = vec!["elect", s(dir), "--epoch", &e];
    if !isr.is_empty() {
        args.push("--isr");
        args.extend(isr.iter().map(|p| s(p)));
    }
    args.extend_from_slice(extra);
    ok(&args);
}

fn append(dir: &Path, values: &[&str]) {
    let mut args = vec!["append", s(dir)];
    args.extend_from_slice(values);
    args.extend_from_slice(&["--timestamp", "1000"]);
    ok(&args);
}

/// `fetch --json` with `extra`: the exit code and the `fetch_round` objects.
fn fetch(leader: &Path, follower: &Path, extra: &[&str]) -> (i32, Vec<Value>) {
    let mut args = vec!["fetch", "--leader", s(leader), s(follower), "--json"];
    args.extend_from_slice(extra);
    let r = run(&args);
    assert!(r.code == 0 || r.code == 1, "fetch exit {}: {}", r.code, r.stderr);
    let rounds = json_lines(&r.stdout).into_iter().filter(|v| v["type"] == "fetch_round").collect();
    (r.code, rounds)
}

fn hw(dir: &Path) -> i64 {
    replica(dir)["high_watermark"].as_i64().unwrap()
}

fn values(prefix: &str, range: std::ops::RangeInclusive<i64>) -> Vec<String> {
    range.map(|i| format!("{prefix}{i}")).collect()
}

fn strs(v: &[String]) -> Vec<&str> {
    v.iter().map(String::as_str).collect()
}

/// KIP-279's shape (the S3 scenario): A leads at epoch 1 with a0-a20, B copied a0-a10; B led at
/// epoch 2 and wrote b11-b15; A leads again at epoch 3 with a21. B restarts as A's follower by
/// Kafka 1.1.1's rules, which keep b11-b15 (A answers 21 > B's LEO 16): a diverged follower.
fn diverged_lab() -> (Lab, PathBuf, PathBuf) {
    let lab = Lab::new();
    let a = lab.create("a", 1, &[]);
    let b = lab.create("b", 2, &[]);
    elect(&a, 1, &[&b], &[]);
    append(&a, &strs(&values("a", 0..=10)));
    ok(&["fetch", "--leader", s(&a), s(&b), "--rounds", "3"]);
    append(&a, &strs(&values("a", 11..=20)));
    elect(&b, 2, &[&a], &[]);
    append(&b, &strs(&values("b", 11..=15)));
    elect(&a, 3, &[&b], &[]);
    append(&a, &["a21"]);
    let kept = ok(&["recover", s(&b), "--leader", s(&a), "--kafka", "1.1.1", "--json"]);
    assert_eq!(json_lines(&kept)[0]["truncation_offset"], 16, "1.1.1 keeps b11-b15: {kept}");
    (lab, a, b)
}

/// Partition.readRecords (2.8.0 – 4.4): B's last fetched epoch 2 is one A never had; A's floor
/// epoch 1 ends at 21, so the answer is the diverging epoch (1, 21), nothing read or recorded.
/// B's own epoch 1 ends at 11: it cuts to min(11, 21, 16) = 11 (what `recover` computes for a
/// restart by 2.8's rules) and the next round copies A's records. A's HW does not move in that round.
#[test]
fn a_diverged_follower_truncates_on_the_first_2_8_fetch_and_then_copies_the_leaders_records() {
    let (_lab, a, b) = diverged_lab();
    let leader_hw = hw(&a);
    assert_eq!(leader_hw, 11);

    let (c, rounds) = fetch(&a, &b, &["--rounds", "1"]);
    assert_eq!(c, 0, "a diverging answer is not stuck: {rounds:?}");
    let r = &rounds[0];
    assert_eq!(r["kafka"], "4.4.0");
    assert_eq!(r["last_fetched_epoch"], 2);
    assert_eq!(r["fetch_offset"], 16);
    assert_eq!(r["answer"]["type"], "diverging", "{r}");
    assert_eq!((r["answer"]["leader_epoch"].as_i64(), r["answer"]["end_offset"].as_i64()), (Some(1), Some(21)));
    assert_eq!(r["answer_truncation"]["type"], "diverging_epoch", "{r}");
    assert_eq!(r["answer_truncation"]["follower_epoch_end"]["end_offset"], 11, "{r}");
    assert_eq!(r["answer_truncation"]["complete"], true);
    assert_eq!(r["truncated"]["from"], 16);
    assert_eq!(r["truncated"]["to"], 11, "{r}");
    assert_eq!((r["batches"].as_u64(), r["records"].as_u64()), (Some(0), Some(0)), "nothing read: {r}");
    assert_eq!(r["leader_high_watermark"], leader_hw, "the leader recorded nothing: {r}");
    assert_eq!(hw(&a), leader_hw, "on disk too");
    let mut kept: Vec<_> = (0..=10).map(|i| (i, 1, format!("a{i}"))).collect();
    assert_eq!(records(&b), kept);

    let (c, rounds) = fetch(&a, &b, &["--until-caught-up"]);
    assert_eq!(c, 0, "{rounds:?}");
    assert_eq!(rounds[0]["answer"]["type"], "records");
    assert_eq!(rounds[0]["last_fetched_epoch"], 1, "the next fetch sends the new latest epoch");
    assert_eq!(rounds[0]["fetch_offset"], 11);
    kept.extend((11..=20).map(|i| (i, 1, format!("a{i}"))));
    kept.push((21, 3, "a21".into()));
    assert_eq!(records(&b), kept);
    assert_eq!(records(&a), kept);
    code(&["diff", s(&a), s(&b)], 0);
    assert_eq!((hw(&a), hw(&b)), (22, 22));
}

/// Before 2.8 the same fetch sends no epoch: A records B's fetch offset 16 (its HW moves from 11
/// to 16, over offsets where B holds b11-b15) and returns batch 11-20, below B's LEO: stuck.
#[test]
fn before_2_8_the_same_follower_is_stuck_and_the_leader_moves_its_hw_over_it() {
    for era in [&["--kafka", "2.7.2"][..], &["--mode", "kip101"][..]] {
        let (_lab, a, b) = diverged_lab();
        let before = records(&b);
        let mut args = vec!["--rounds", "3"];
        args.extend_from_slice(era);
        let (c, rounds) = fetch(&a, &b, &args);
        assert_eq!(c, 1, "{era:?}: stuck: {rounds:?}");
        let r = &rounds[0];
        assert_eq!(r["last_fetched_epoch"], Value::Null, "{era:?}: no epoch sent");
        assert_eq!(r["answer"]["type"], "records");
        assert_eq!(r["stuck"]["batch_base_offset"], 11, "{r}");
        assert_eq!(r["leader_high_watermark"], 16, "{era:?}: the old fetch moved A's HW: {r}");
        assert_eq!(hw(&a), 16);
        assert_eq!(records(&b), before, "nothing appended");
        let (text, _) = code(&["fetch", "--leader", s(&a), s(&b), era[0], era[1]], 1);
        assert!(text.contains("STUCK (out-of-order offsets"), "{text}");
    }
}

/// The text and `--explain` forms of the diverging round: the leader's check and the
/// follower's KIP-279 step ran; the leader's record, its HW and the append did not.
#[test]
fn fetch_explain_marks_the_2_8_lines_the_round_ran() {
    let (_lab, a, b) = diverged_lab();
    let out = ok(&["fetch", "--leader", s(&a), s(&b), "--rounds", "2", "--explain"]);
    assert!(
        out.contains("round 1: fetch at 16 with last fetched epoch 2: leader answered diverging epoch 1 ending at 21"),
        "{out}"
    );
    assert!(out.contains("truncated 16 to 11"), "{out}");
    let (first, second) = out.split_once("\nround 2:\n").expect("two explanations");
    let first = first.split_once("\nround 1:\n").expect("round 1's explanation").1;
    let ran = |text: &str, code: &str| text.lines().any(|l| l.trim_start().starts_with(code) && l.contains('◀'));
    assert!(first.contains("Kafka 4.4.0 (2.8 and later)"), "{first}");
    assert!(ran(first, "leader: elif le < e or lend < offset: diverging (le, lend)"), "{first}");
    assert!(first.contains("◀ yes: (1, 21)"), "{first}");
    assert!(first.contains("◀ min(11, 21, 16) = 11"), "{first}");
    for not in ["leader: record the fetch offset", "leader: hw = min(ISR's LEO)", "append(r.batches)"] {
        assert!(!ran(first, not), "{not} ran in the diverging round: {first}");
    }
    for yes in ["leader: record the fetch offset", "append(r.batches)"] {
        assert!(ran(second, yes), "{yes} did not run in round 2: {second}");
    }
    assert!(second.contains("◀ offset 11, epoch 1"), "{second}");
    // A round that repeats the one before (caught up, nothing to copy) is one line.
    let out = ok(&["fetch", "--leader", s(&a), s(&b), "--rounds", "3", "--explain"]);
    assert!(out.contains("\nround 3: the same lines and values as round 2\n"), "{out}");
    assert_eq!(out.matches("explain: fetch").count(), 2, "rounds 1 and 2 differ (the HW): {out}");
    // Before 2.8 the explanation is the fetch without an epoch.
    let (_lab, a, b) = diverged_lab();
    let (old, _) = code(&["fetch", "--leader", s(&a), s(&b), "--kafka", "2.7.2", "--explain"], 1);
    assert!(
        old.contains("Kafka 2.7.2 (before 2.8)") && old.contains("if a batch starts below leo: stop (stuck)"),
        "{old}"
    );
}

/// A's epoch cache lacks B's last epoch 5 (A took epoch 6 with the entry deferred to its first
/// append, as before 2.1), so A cannot place it: OFFSET_OUT_OF_RANGE, nothing read or recorded.
/// `fetchOffsetAndTruncate`: with A's LEO 6 not below B's LEO 4 and A's log starting at 0, B
/// keeps its log and would ask the same again — Kafka's fetcher loops; klog stops, exit 1.
/// Once A appends in epoch 6 it can place epoch 5 (its floor 0 ends at 6): a diverging epoch
/// (0, 6), B cuts to the end of its own epoch 0, 3, and copies A's a3-a6.
fn unknown_epoch_lab(leader_records: usize) -> (Lab, PathBuf, PathBuf) {
    let lab = Lab::new();
    let a = lab.create("a", 1, &[]);
    let b = lab.create("b", 2, &[]);
    elect(&a, 0, &[&b], &[]);
    append(&a, &["a0", "a1", "a2"]);
    ok(&["fetch", "--leader", s(&a), s(&b), "--until-caught-up"]);
    if leader_records > 3 {
        let more = values("a", 3..=(leader_records as i64 - 1));
        append(&a, &strs(&more));
    }
    // B leads alone at epoch 5 (its HW follows its LEO), then A at 6 without an entry yet.
    elect(&b, 5, &[], &[]);
    append(&b, &["b3"]);
    elect(&a, 6, &[&b], &["--epoch-entry", "first-append"]);
    // 1.1.1's OffsetsForLeaderEpoch answers UNDEFINED for epoch 5: B falls back to its HW 4.
    let kept = ok(&["recover", s(&b), "--leader", s(&a), "--kafka", "1.1.1", "--json"]);
    assert_eq!(json_lines(&kept)[0]["truncation_offset"], 4, "{kept}");
    (lab, a, b)
}

#[test]
fn an_epoch_the_leader_cannot_place_is_offset_out_of_range_and_the_follower_keeps_its_log() {
    let (_lab, a, b) = unknown_epoch_lab(6);
    let (leader_before, follower_before) = (snapshot(&a), records(&b));
    let leader_hw = hw(&a);
    let (c, rounds) = fetch(&a, &b, &["--until-caught-up"]);
    assert_eq!(c, 1, "no progress is a finding: {rounds:?}");
    assert_eq!(rounds.len(), 1, "klog stops where Kafka would loop: {rounds:?}");
    let r = &rounds[0];
    assert_eq!(r["last_fetched_epoch"], 5);
    assert_eq!(r["answer"]["type"], "offset_out_of_range", "{r}");
    assert_eq!(r["answer"]["cause"], "unknown_epoch");
    assert_eq!(r["leader_epoch_end"]["end_offset"], -1, "{r}");
    assert_eq!(r["answer_truncation"]["type"], "kept");
    assert_eq!(r["no_progress"], true);
    assert_eq!(r["truncated"], Value::Null);
    assert_eq!(r["returned_high_watermark"], -1, "an error response carries no HW");
    assert_eq!(hw(&a), leader_hw, "the leader recorded nothing");
    assert_eq!(snapshot(&a), leader_before, "nor wrote anything");
    assert_eq!(records(&b), follower_before);
    let (text, _) = code(&["fetch", "--leader", s(&a), s(&b)], 1);
    assert!(
        text.contains("OFFSET_OUT_OF_RANGE (the leader cannot place the last fetched epoch")
            && text.contains("NO PROGRESS"),
        "{text}"
    );

    // Before 2.8: no epoch, the batch 3-5 starts below B's LEO 4: stuck, A's HW moved to 4.
    let (c, rounds) = fetch(&a, &b, &["--kafka", "2.7.2"]);
    assert_eq!(c, 1);
    assert_eq!(rounds[0]["stuck"]["batch_base_offset"], 3, "{:?}", rounds[0]);
    assert_eq!(hw(&a), 4, "the old fetch recorded B's offset 4 over its diverged b3");

    // A appends in epoch 6: now it places epoch 5, and B truncates on the diverging epoch.
    append(&a, &["a6"]);
    let (c, rounds) = fetch(&a, &b, &["--until-caught-up"]);
    assert_eq!(c, 0, "{rounds:?}");
    assert_eq!(rounds[0]["answer"]["type"], "diverging", "{:?}", rounds[0]);
    assert_eq!(
        (rounds[0]["answer"]["leader_epoch"].as_i64(), rounds[0]["answer"]["end_offset"].as_i64()),
        (Some(0), Some(6))
    );
    assert_eq!(rounds[0]["truncated"]["to"], 3);
    let both: Vec<_> = (0..=5).map(|i| (i, 0, format!("a{i}"))).chain([(6, 6, "a6".to_string())]).collect();
    assert_eq!(records(&b), both);
    code(&["diff", s(&a), s(&b)], 0);
}

/// `fetchOffsetAndTruncate`: OFFSET_OUT_OF_RANGE with the leader's LEO below the follower's cuts
/// the follower to it; the next fetch sends epoch 0, which the leader has to its end.
#[test]
fn out_of_range_with_the_leader_behind_cuts_the_follower_to_the_leaders_log_end() {
    let (_lab, a, b) = unknown_epoch_lab(3);
    let (c, rounds) = fetch(&a, &b, &["--until-caught-up"]);
    assert_eq!(c, 0, "{rounds:?}");
    let r = &rounds[0];
    assert_eq!(
        (r["answer"]["type"].as_str(), r["answer"]["cause"].as_str()),
        (Some("offset_out_of_range"), Some("unknown_epoch"))
    );
    assert_eq!(r["answer_truncation"]["type"], "to_leader_log_end");
    assert_eq!((r["truncated"]["from"].as_i64(), r["truncated"]["to"].as_i64()), (Some(4), Some(3)));
    assert_eq!(rounds[1]["last_fetched_epoch"], 0);
    assert_eq!(rounds[1]["answer"]["type"], "records");
    let a_log: Vec<_> = (0..=2).map(|i| (i, 0, format!("a{i}"))).collect();
    assert_eq!(records(&b), a_log);
}

/// An empty follower has no epoch to send (`latestEpoch` is None): its first fetch is an
/// ordinary read.
#[test]
fn an_empty_followers_first_fetch_sends_no_epoch() {
    let lab = Lab::new();
    let a = lab.create("a", 1, &[]);
    let b = lab.create("b", 2, &[]);
    elect(&a, 0, &[&b], &[]);
    append(&a, &["m1"]);
    let (c, rounds) = fetch(&a, &b, &["--rounds", "2"]);
    assert_eq!(c, 0);
    assert_eq!(rounds[0]["last_fetched_epoch"], Value::Null);
    assert_eq!(rounds[0]["answer"]["type"], "records");
    assert_eq!(rounds[0]["records"], 1);
    assert_eq!(rounds[1]["last_fetched_epoch"], 0);
    assert_eq!(rounds[1]["leader_epoch_end"]["end_offset"], 1);
}

/// KAFKA-14704 (3.4.1): before it the follower's HW took the diverging response's HW (min with
/// its LEO before the cut); from it the HW waits for the next fetch.
#[test]
fn before_kafka_14704_a_diverging_response_still_moves_the_followers_hw() {
    for (release, follower_hw) in [("3.4.0", 11), ("3.4.1", 5)] {
        let (_lab, a, b) = diverged_lab();
        ok(&["crash", s(&b), "--hw", "5"]);
        ok(&["recover", s(&b), "--leader", s(&a), "--kafka", "1.1.1"]);
        assert_eq!(hw(&b), 5);
        let (_, rounds) = fetch(&a, &b, &["--kafka", release]);
        assert_eq!(rounds[0]["answer"]["type"], "diverging", "{release}");
        assert_eq!(rounds[0]["follower_high_watermark"], follower_hw, "{release}: {:?}", rounds[0]);
    }
}

/// `--mode` and `--kafka` are recover's flags: the same values, the same refusals.
#[test]
fn fetch_takes_the_release_as_recover_does() {
    let (_lab, a, b) = diverged_lab();
    let before = (snapshot(&a), snapshot(&b));
    let (_, err) = code(&["fetch", "--leader", s(&a), s(&b), "--kafka", "9.0"], 2);
    assert!(err.contains("newer than the rules klog knows"), "{err}");
    let (_, err) = code(&["fetch", "--leader", s(&a), s(&b), "--kafka", "2.8.2", "--mode", "hw"], 2);
    assert!(err.contains("cannot be used with"), "{err}");
    code(&["fetch", "--leader", s(&a), s(&b), "--json", "--explain"], 2);
    assert!((snapshot(&a), snapshot(&b)) == before, "a refused fetch changes nothing");
}

/// Issue 41, point 4. ReplicaManager.scala:1761-1772@2.8.0 records the follower's fetch offset
/// for any read without an error, a diverging one included: A records B's fetch offset 16 and
/// its HW moves from 11 to 16 over offsets where B holds b11-b15. KAFKA-13141
/// (ReplicaManager.scala:1766-1769@2.8.1) skips it: the HW stays at 11.
#[test]
fn on_2_8_0_a_diverging_answer_still_records_the_followers_offset_and_moves_the_leaders_hw() {
    for (release, leader_hw) in [("2.8.0", 16), ("2.8.1", 11)] {
        let (_lab, a, b) = diverged_lab();
        assert_eq!(hw(&a), 11);
        let (_, rounds) = fetch(&a, &b, &["--kafka", release, "--rounds", "1"]);
        assert_eq!(rounds[0]["answer"]["type"], "diverging", "{release}");
        assert_eq!(rounds[0]["leader_high_watermark"], leader_hw, "{release}: {:?}", rounds[0]);
        assert_eq!(hw(&a), leader_hw, "{release}: on disk too");
    }
}
