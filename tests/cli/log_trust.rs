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
    let r = run(&["check", s(dir)]);
    (r.code, r.stdout)
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
    ok(&["--allow-broker-dir-writes", "stop", s(&copy), "--partition", "__consumer_offsets-2"]);
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
fn a_recovery_that_died_between_its_cut_and_its_deletes_keeps_the_later_segments_as_kafka_does() {
    let lab = Lab::new();
    let r = ten_batches(&lab);
    let middle = logs(&r)[1].clone();
    zero(&middle, 700, 100);
    ok(&["crash", s(&r)]);
    // What a recovery that emptied the middle segment and died before deleting the later
    // segments left behind.
    fs::write(&middle, b"").unwrap();
    ok(&["recover", s(&r)]);
    // Kafka 4.4's loader finds nothing to cut in the emptied segment and keeps every later one
    // (the oracle comparison shows it): the emptied segment is a gap, not the log end.
    let expected: Vec<i64> = (0..30).chain(60..100).collect();
    assert_eq!(offsets(&r), expected, "the later segments are kept, as Kafka keeps them");
    assert_eq!(replica(&r)["log_end_offset"], 100);
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
    // Snapshots above 50 are gone; the load's producer-state rebuild snapshots its log end
    // (`rebuildProducerState`, judged against Kafka's loader in tests/oracle/found).
    assert_eq!(
        snapshots(&r),
        vec!["00000000000000000030.snapshot".to_string(), "00000000000000000050.snapshot".to_string()],
        "snapshots above 50 are gone"
    );
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

/// Overwrite the 8-byte baseOffset of the batch at `position` (outside the CRC).
fn set_base_offset(path: &Path, position: usize, base_offset: i64) {
    let mut b = fs::read(path).unwrap();
    b[position..position + 8].copy_from_slice(&base_offset.to_be_bytes());
    fs::write(path, b).unwrap();
}

/// `recover --json` of a crashed replica: the recovery object.
fn recover_json(dir: &Path, dry_run: bool) -> serde_json::Value {
    let mut args = vec!["recover", s(dir), "--json"];
    if dry_run {
        args.push("--dry-run");
    }
    let mut v = json_lines(&ok(&args)).remove(0);
    v["recovery"].take()
}

/// A replica of 15 two-record batches in 300-byte segments (segment 6 holds 6..=11).
fn fifteen_batches(lab: &Lab, name: &str) -> PathBuf {
    let r = lab.create(name, 0, &["--segment-bytes", "300"]);
    ok(&["elect", s(&r)]);
    for i in 0..15 {
        ok(&["append", s(&r), &format!("a{i}"), &format!("b{i}")]);
    }
    r
}

/// A replica whose segment 6 ends with a batch whose base offset was damaged to 10 + 2^32 (the
/// CRC does not cover it): `hasOverflow` sees it, so Kafka splits the segment.
fn overflowed_replica(lab: &Lab, name: &str) -> PathBuf {
    let r = fifteen_batches(lab, name);
    set_base_offset(&partition(&r).join("00000000000000000006.log"), 158, 10 + (1 << 32));
    r
}

#[test]
fn a_split_that_died_after_writing_its_pieces_ends_as_an_uninterrupted_one() {
    let lab = Lab::new();
    let r = overflowed_replica(&lab, "r");
    ok(&["crash", s(&r)]);
    let done = lab.path("done");
    copy_tree(&r, &done);
    ok(&["recover", s(&done)]);
    // The pieces are on disk, the overflowed segment is still whole.
    let piece = "00000000004294967306.log";
    fs::copy(partition(&done).join(piece), partition(&r).join(piece)).unwrap();
    ok(&["recover", s(&r)]);
    assert_eq!(
        logs(&r).iter().map(|p| p.file_name()).collect::<Vec<_>>(),
        logs(&done).iter().map(|p| p.file_name()).collect::<Vec<_>>()
    );
    assert_eq!(records(&r), records(&done));
}

#[test]
fn a_base_offset_damaged_past_the_segment_range_splits_the_segment_as_kafka_does() {
    let lab = Lab::new();
    let r = overflowed_replica(&lab, "r");
    let (code, out) = check(&r);
    assert_eq!(code, 1, "{out}");
    assert!(out.contains("last offset 4294967307 is outside the 32-bit relative range of segment 6"), "{out}");
    ok(&["crash", s(&r)]);
    let dry = recover_json(&r, true);
    let real = recover_json(&r, false);
    assert_eq!(dry, real, "the dry run predicts the real run");
    assert_eq!(real["log_end_offset_after"], 4294967308i64, "the split-off batch is the last segment");
    assert_eq!(real["bytes_cut"], 0);
    let names: Vec<String> = logs(&r).iter().map(|p| p.file_name().unwrap().to_string_lossy().into_owned()).collect();
    assert_eq!(
        names,
        [0, 6, 12, 18, 24, 4294967306i64].map(|o| format!("{o:020}.log")).to_vec(),
        "segment 6 keeps its first batches and the damaged one became a segment of its own"
    );
    // Every record is kept, and `check` names the holes the split leaves.
    assert_eq!(offsets(&r).len(), 30);
    let (code, out) = check(&r);
    assert_eq!(code, 1, "{out}");
    assert!(out.contains("offsets 10 to 11 are missing"), "{out}");
    assert!(out.contains("offsets 30 to 4294967305 are missing"), "{out}");
}

#[test]
fn an_overflow_before_a_segments_last_batch_refuses_the_start_as_kafka_does() {
    // `splitOverflowedSegment` asks `hasOverflow`, which reads the last batch only: the split
    // throws, and a Kafka 4.4 broker does not start. The run and the dry run both refuse.
    let lab = Lab::new();
    let r = fifteen_batches(&lab, "r");
    set_base_offset(&partition(&r).join("00000000000000000006.log"), 0, 6 + (1 << 32));
    ok(&["crash", s(&r)]);
    let before = tree(&r);
    // The forecast of a start-up the broker does not survive is a finding (exit 1, on stdout);
    // the run refuses (exit 2).
    let (out, _) = code(&["recover", s(&r), "--dry-run"], 1);
    assert!(out.contains("refuses to start") && out.contains("00000000000000000006.log"), "{out}");
    let (_, err) = code(&["recover", s(&r)], 2);
    assert!(err.contains("refuses to start") && err.contains("00000000000000000006.log"), "{err}");
    assert_eq!(tree(&r), before, "a refused recovery changes nothing");
}

#[test]
fn an_offset_going_backwards_at_an_index_entry_empties_the_segment() {
    let lab = Lab::new();
    let r = lab.create("r", 0, &["--index-interval-bytes", "100"]);
    ok(&["elect", s(&r)]);
    for i in 0..10 {
        ok(&["append", s(&r), &format!("a{i}"), &format!("b{i}")]);
    }
    let index = fs::read(partition(&r).join("00000000000000000000.index")).unwrap();
    assert!(index.len() >= 16, "at least two index entries");
    let first_offset = i32::from_be_bytes(index[0..4].try_into().unwrap()) as i64;
    let second_position = u32::from_be_bytes(index[12..16].try_into().unwrap()) as usize;
    let log = partition(&r).join("00000000000000000000.log");
    // The batch of the second entry now ends at the first entry's offset.
    set_base_offset(&log, second_position, first_offset - 1);
    ok(&["crash", s(&r)]);
    let dry = recover_json(&r, true);
    let real = recover_json(&r, false);
    assert_eq!(dry, real, "the dry run predicts the real run");
    assert!(real["segments"][0]["invalid_at"]["why"].as_str().unwrap().contains("InvalidOffsetException"));
    assert_eq!(real["log_end_offset_after"], 0, "the segment is emptied (LogLoader.recoverLog)");
    assert_eq!(fs::metadata(&log).unwrap().len(), 0);
    assert!(offsets(&r).is_empty());
}

#[test]
fn a_damaged_batch_header_does_not_move_the_log_end_and_checkpoint_findings_say_where() {
    let lab = Lab::new();
    let r = lab.create("r", 0, &[]);
    ok(&["elect", s(&r)]);
    ok(&["append", s(&r), "a", "b", "c", "--flush"]);
    ok(&["append", s(&r), "d", "e", "f", "--flush"]);
    ok(&["stop", s(&r)]);
    let log = partition(&r).join("00000000000000000000.log");
    assert_eq!(records(&r).len(), 6);
    let second = 85; // the first batch: a 61-byte header and three 8-byte records
    set_base_offset(&log, second, i64::MAX - 3);
    let (code, out) = check(&r);
    assert_eq!(code, 1, "{out}");
    assert!(out.contains("LEO 3 "), "the LEO counts valid batches only: {out}");
    assert!(!out.contains("flushed data is missing"), "{out}");
    assert!(out.contains("00000000000000000000.log at position 85"), "{out}");
}

#[test]
fn checkpoint_findings_carry_the_byte_position_of_their_line() {
    let lab = Lab::new();
    let r = lab.create("r", 0, &[]);
    ok(&["elect", s(&r)]);
    ok(&["append", s(&r), "a", "b", "c"]);
    ok(&["stop", s(&r)]);
    for name in ["replication-offset-checkpoint", "recovery-point-offset-checkpoint"] {
        fs::write(r.join(name), "0\n2\nother 0 7\ndemo 0 50\n").unwrap();
    }
    let (code, out) = check(&r);
    assert_eq!(code, 1, "{out}");
    // "0\n2\nother 0 7\n" (14 bytes) precede the partition's line.
    assert!(
        out.contains("replication-offset-checkpoint at position 14 (line 4, offset 50): high watermark 50"),
        "{out}"
    );
    assert!(
        out.contains("recovery-point-offset-checkpoint at position 14 (line 4, offset 50): recovery point 50"),
        "{out}"
    );
}

#[test]
fn diff_reports_a_batch_it_cannot_decode_with_its_file_and_position() {
    let lab = Lab::new();
    let a = lab.create("a", 0, &[]);
    ok(&["elect", s(&a)]);
    ok(&["append", s(&a), "x", "y"]);
    ok(&["append", s(&a), "z"]);
    ok(&["stop", s(&a)]);
    let b = lab.path("b");
    copy_tree(&a, &b);
    // The same damage on both sides: the second batch claims 1000 records (bytes 57..61).
    let first_batch_bytes = {
        let bytes = fs::read(partition(&a).join("00000000000000000000.log")).unwrap();
        // baseOffset (8 bytes) and batchLength (4 bytes) precede batchLength bytes.
        12 + i32::from_be_bytes(bytes[8..12].try_into().unwrap()) as usize
    };
    for dir in [&a, &b] {
        let log = partition(dir).join("00000000000000000000.log");
        let mut bytes = fs::read(&log).unwrap();
        bytes[first_batch_bytes + 57..first_batch_bytes + 61].copy_from_slice(&1000i32.to_be_bytes());
        fs::write(&log, bytes).unwrap();
    }
    let (out, _) = code(&["diff", s(&a), s(&b)], 1);
    assert!(
        out.contains(&format!("00000000000000000000.log at position {first_batch_bytes} (offsets 2 to 2)")),
        "{out}"
    );
    assert!(out.contains("first divergence at offset 2: a batch there does not decode"), "{out}");
    let json = json_lines(&code(&["diff", s(&a), s(&b), "--json"], 1).0);
    let undecodable = json[0]["undecodable"].as_array().unwrap();
    assert_eq!(undecodable.len(), 2, "one per side");
    assert_eq!(undecodable[0]["position"], first_batch_bytes as u64);
}

#[test]
fn an_index_entry_naming_the_wrong_offset_is_a_finding_with_expected_and_found() {
    let lab = Lab::new();
    let r = lab.create("r", 0, &["--index-interval-bytes", "100"]);
    ok(&["elect", s(&r)]);
    for i in 0..6 {
        ok(&["append", s(&r), &format!("a{i}"), &format!("b{i}")]);
    }
    let path = partition(&r).join("00000000000000000000.index");
    let mut index = fs::read(&path).unwrap();
    assert!(index.len() >= 8, "an index entry");
    let named = i32::from_be_bytes(index[0..4].try_into().unwrap());
    index[0..4].copy_from_slice(&(named + 1).to_be_bytes());
    fs::write(&path, index).unwrap();
    let json = json_lines(&code(&["check", s(&r), "--json"], 1).0);
    let findings: Vec<_> = json.iter().filter(|v| v["type"] == "finding").collect();
    assert_eq!(findings.len(), 1, "{findings:?}");
    let f = findings[0];
    assert!(f["path"].as_str().unwrap().ends_with("00000000000000000000.index"));
    assert_eq!(f["position"], 0);
    assert_eq!(f["expected"], named.to_string());
    assert_eq!(f["found"], (named + 1).to_string());
}

#[test]
fn a_base_offset_damaged_below_the_segment_base_refuses_the_start_and_never_names_a_file() {
    let lab = Lab::new();
    let b = lab.create("b", 1, &[]);
    ok(&["elect", s(&b)]);
    ok(&["append", s(&b), "m1", "--timestamp", "1"]);
    ok(&["append", s(&b), "m2", "--timestamp", "1"]);
    // Byte 70 is the first byte of the second batch's base offset (outside the CRC): its last
    // offset falls far below the segment's base, and no split can hold it (Kafka 4.4 refuses).
    ok(&["crash", s(&b), "--flip-byte", "70"]);
    let before = tree(&b);
    let (_, err) = code(&["recover", s(&b)], 2);
    assert!(err.contains("refuses to start"), "{err}");
    assert_eq!(tree(&b), before);
    let names: Vec<String> = std::fs::read_dir(b.join("demo-0"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert!(names.iter().all(|n| !n.starts_with('-')), "{names:?}");
}
