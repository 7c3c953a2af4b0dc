//! The log layer's trust items: the epoch cache after an interrupted write, time indexes that
//! only grow, recovery that leaves no hole whenever it dies, corruption outside the CRC, and
//! findings that always carry a file and byte position.

use crate::common::*;
use std::fs;
use std::path::{Path, PathBuf};

/// The partition dir of a replica made by `Lab::create`.
fn partition(dir: &Path) -> PathBuf {
    dir.join("demo-0")
}

/// The `.log` files of a replica, in offset order.
fn logs(dir: &Path) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = fs::read_dir(partition(dir))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "log"))
        .collect();
    v.sort();
    v
}

/// Append raw bytes to a file (a torn write left by a killed writer).
fn append_bytes(path: &Path, bytes: &[u8]) {
    let mut all = fs::read(path).unwrap();
    all.extend_from_slice(bytes);
    fs::write(path, all).unwrap();
}

/// `klog check` exit code and stdout.
fn check(dir: &Path) -> (i32, String) {
    let out = klog().args(["check", s(dir)]).output().unwrap();
    (out.status.code().unwrap_or(-1), String::from_utf8_lossy(&out.stdout).into_owned())
}

#[test]
fn an_interrupted_write_repair_assigns_epochs_stamped_below_the_recovery_point() {
    let lab = Lab::new();
    let r = lab.create("r", 0, &["--segment-bytes", "400"]);
    ok(&["elect", s(&r)]);
    for i in 0..8 {
        ok(&["append", s(&r), &format!("v{i}"), &format!("w{i}"), "--flush"]);
    }
    assert!(logs(&r).len() >= 2, "the log rolled");
    // A writer killed after its batches but before their epoch entry (and a later torn write).
    fs::write(partition(&r).join("leader-epoch-checkpoint"), "0\n0\n").unwrap();
    append_bytes(logs(&r).last().unwrap(), b"torn");
    ok(&["append", s(&r), "x"]);
    let (code, out) = check(&r);
    assert_eq!(code, 0, "check after the repair: {out}");
    let cache = fs::read_to_string(partition(&r).join("leader-epoch-checkpoint")).unwrap();
    assert_eq!(cache, "0\n1\n0 0\n");
}

/// Copy a directory tree (a real broker's log dir into a temp dir before mutating it).
fn copy_tree(from: &Path, to: &Path) {
    fs::create_dir_all(to).unwrap();
    for e in fs::read_dir(from).unwrap() {
        let e = e.unwrap();
        let target = to.join(e.file_name());
        if e.file_type().unwrap().is_dir() {
            copy_tree(&e.path(), &target);
        } else {
            fs::copy(e.path(), target).unwrap();
        }
    }
}

#[test]
fn a_segment_closed_twice_without_offset_index_entries_keeps_one_time_index_entry() {
    let lab = Lab::new();
    let r = lab.create("r", 0, &[]);
    ok(&["elect", s(&r)]);
    ok(&["append", s(&r), "a", "b", "c"]);
    ok(&["crash", s(&r)]);
    ok(&["stop", s(&r)]);
    let (code, out) = check(&r);
    assert_eq!(code, 0, "{out}");
    let time_index = fs::read(partition(&r).join("00000000000000000000.timeindex")).unwrap();
    assert_eq!(time_index.len(), 12, "one entry: the max timestamp at offset 2");
}

#[test]
fn a_roll_after_a_clean_stop_does_not_repeat_the_last_time_index_entry() {
    let lab = Lab::new();
    let r = lab.create("r", 0, &["--segment-bytes", "200"]);
    ok(&["elect", s(&r)]);
    ok(&["append", s(&r), "a", "b", "c"]);
    ok(&["stop", s(&r)]);
    ok(&["elect", s(&r)]);
    ok(&["append", s(&r), "d", "e", "f", "g", "h", "i", "j", "k"]);
    assert_eq!(logs(&r).len(), 2, "the append rolled");
    ok(&["stop", s(&r)]);
    let (code, out) = check(&r);
    assert_eq!(code, 0, "{out}");
}

#[test]
fn stopping_a_copy_of_a_broker_written_partition_keeps_its_time_index_in_order() {
    let Some(real) = kafka_real() else { return };
    let lab = Lab::new();
    let copy = lab.path("zk-broker-2021");
    copy_tree(&real.join("zk-broker-2021"), &copy);
    ok(&["stop", s(&copy), "--partition", "__consumer_offsets-2"]);
    let out = klog().args(["check", s(&copy), "--partition", "__consumer_offsets-2"]).output().unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stdout));
}

/// A replica of ten 10-record batches in 1000-byte segments (three batches a segment).
fn ten_batches(lab: &Lab) -> PathBuf {
    let r = lab.create("r", 0, &["--segment-bytes", "1000"]);
    ok(&["elect", s(&r)]);
    for _ in 0..10 {
        ok(&["append", s(&r), "--count", "10", "--value-size", "20"]);
    }
    assert_eq!(logs(&r).len(), 4);
    r
}

/// Zero `len` bytes at `position` of a file (a page lost to a power cut).
fn zero(path: &Path, position: usize, len: usize) {
    let mut b = fs::read(path).unwrap();
    b[position..position + len].fill(0);
    fs::write(path, b).unwrap();
}

/// Record offsets of a replica, in dump order.
fn offsets(dir: &Path) -> Vec<i64> {
    records(dir).into_iter().map(|r| r.0).collect()
}

/// Snapshot files of a replica's partition dir.
fn snapshots(dir: &Path) -> Vec<String> {
    let mut v: Vec<String> = fs::read_dir(partition(dir))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".snapshot"))
        .collect();
    v.sort();
    v
}

#[test]
fn a_recovery_that_died_between_its_cut_and_its_deletes_is_finished_without_a_hole() {
    let lab = Lab::new();
    let r = ten_batches(&lab);
    let middle = logs(&r)[1].clone();
    zero(&middle, 700, 100);
    ok(&["crash", s(&r)]);
    // What a recovery that emptied the middle segment and died before deleting the later
    // segments left behind.
    fs::write(&middle, b"").unwrap();
    ok(&["recover", s(&r)]);
    assert_eq!(offsets(&r), (0..30).collect::<Vec<_>>(), "nothing after the emptied segment is kept");
    assert_eq!(replica(&r)["log_end_offset"], 30);
    let (code, out) = check(&r);
    assert_eq!(code, 0, "{out}");
}

#[test]
fn an_uninterrupted_recovery_of_a_lost_page_keeps_the_batches_before_it_and_no_snapshot_above() {
    let lab = Lab::new();
    let r = ten_batches(&lab);
    assert_eq!(snapshots(&r).len(), 3, "one producer snapshot per roll");
    zero(&logs(&r)[1], 700, 100);
    ok(&["crash", s(&r)]);
    ok(&["recover", s(&r)]);
    assert_eq!(offsets(&r), (0..50).collect::<Vec<_>>());
    assert_eq!(snapshots(&r), vec!["00000000000000000030.snapshot".to_string()], "snapshots above 50 are gone");
    let (code, out) = check(&r);
    assert_eq!(code, 0, "{out}");
}

#[test]
fn check_reports_a_producer_snapshot_above_the_log_end() {
    let lab = Lab::new();
    let r = ten_batches(&lab);
    let snapshot = partition(&r).join("00000000000000000030.snapshot");
    fs::copy(&snapshot, partition(&r).join("00000000000000000500.snapshot")).unwrap();
    let (code, out) = check(&r);
    assert_eq!(code, 1, "{out}");
    assert!(out.contains("00000000000000000500.snapshot"), "{out}");
    assert!(out.contains("producer snapshot at offset 500 is above the log end offset 100"), "{out}");
}
