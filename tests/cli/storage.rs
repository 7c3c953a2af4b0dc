//! The storage core through the CLI: create, elect, append, dump, check, and bad input.

use crate::common::*;
use predicates::prelude::*;
use std::fs;

/// The `.log` file names of a replica's partition dir, sorted.
fn segment_logs(b: &std::path::Path) -> Vec<String> {
    let mut logs: Vec<String> = fs::read_dir(b.join("demo-0"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".log"))
        .collect();
    logs.sort();
    logs
}

#[test]
fn dump_json_reads_back_everything_appended_across_epochs_and_segments() {
    let lab = Lab::new();
    let b = two_epoch_replica(&lab);
    let segments: Vec<_> = fs::read_dir(b.join("demo-0"))
        .unwrap()
        .filter_map(|e| e.ok())
        .filter(|e| e.path().extension().is_some_and(|x| x == "log"))
        .collect();
    assert!(segments.len() >= 2, "the segment rolled");
    let lines = json_lines(&ok(&["dump", s(&b), "--json"]));
    let recs: Vec<_> = lines.iter().filter(|v| v["type"] == "record").collect();
    assert_eq!(recs.len(), 12);
    for (i, r) in recs.iter().enumerate() {
        assert_eq!(r["offset"], i as i64);
        assert_eq!(r["value"], format!("m{i}"));
        assert_eq!(r["leader_epoch"], if i < 6 { 3 } else { 4 });
    }
    assert_eq!(recs[0]["key"], "k");
    assert_eq!(recs[0]["timestamp"], 1000);
    assert_eq!(recs[0]["headers"][0]["key"], "h");
    assert_eq!(recs[0]["headers"][0]["value"], "v");
    assert_eq!(recs[0]["headers"][1]["key"], "nullh");
    assert!(recs[0]["headers"][1]["value"].is_null());
    assert!(recs[2]["key"].is_null(), "no key is null, not empty");
    let rep = lines.iter().find(|v| v["type"] == "replica").unwrap();
    assert_eq!(rep["log_end_offset"], 12);
    assert_eq!(rep["high_watermark"], 12);
    assert_eq!(rep["leader_epoch"], 4);
    assert_eq!(rep["role"], "leader");
    ok(&["check", s(&b)]);
}

#[test]
fn dump_epochs_shows_the_cache_against_the_batch_stamps() {
    let lab = Lab::new();
    let b = two_epoch_replica(&lab);
    let epochs: Vec<_> =
        json_lines(&ok(&["dump", s(&b), "--epochs", "--json"])).into_iter().filter(|v| v["type"] == "epoch").collect();
    assert_eq!(epochs.len(), 2);
    assert_eq!((epochs[0]["leader_epoch"].as_i64(), epochs[0]["start_offset"].as_i64()), (Some(3), Some(0)));
    assert_eq!((epochs[0]["end_offset"].as_i64(), epochs[0]["records"].as_i64()), (Some(6), Some(6)));
    assert_eq!((epochs[1]["leader_epoch"].as_i64(), epochs[1]["start_offset"].as_i64()), (Some(4), Some(6)));
    assert!(epochs.iter().all(|e| e["agreement"] == "agrees"));
    // A checkpoint that disagrees with the stamps is marked, and `check` reports it.
    fs::write(b.join("demo-0/leader-epoch-checkpoint"), "0\n2\n3 0\n4 8\n").unwrap();
    let table = ok(&["dump", s(&b), "--epochs"]);
    assert!(table.contains("DISAGREE"), "{table}");
    let (out, _) = code(&["check", s(&b)], 1);
    assert!(out.contains("stamped with epoch 4 but the epoch cache says epoch 3"), "{out}");
}

#[test]
fn checkpoints_and_metadata_are_written_as_kafka_writes_them() {
    let lab = Lab::new();
    let b = two_epoch_replica(&lab);
    assert_eq!(fs::read_to_string(b.join("demo-0/leader-epoch-checkpoint")).unwrap(), "0\n2\n3 0\n4 6\n");
    assert_eq!(fs::read_to_string(b.join("replication-offset-checkpoint")).unwrap(), "0\n1\ndemo 0 12\n");
    let meta = fs::read_to_string(b.join("demo-0/partition.metadata")).unwrap();
    assert!(meta.starts_with("version: 0\ntopic_id: ") && !meta.ends_with('\n'), "{meta:?}");
    assert_eq!(meta.len(), "version: 0\ntopic_id: ".len() + 22);
    let props = fs::read_to_string(b.join("meta.properties")).unwrap();
    assert!(props.contains("node.id=2\n") && props.contains("version=1\n") && props.contains("cluster.id="));
    // Two replicas of one topic agree on the topic id.
    let a = lab.create("a", 1, &[]);
    assert_eq!(fs::read_to_string(a.join("demo-0/partition.metadata")).unwrap(), meta);
}

#[test]
fn indexes_hold_one_entry_per_batch_past_the_interval_and_are_trimmed() {
    let lab = Lab::new();
    let b = two_epoch_replica(&lab);
    let dir = b.join("demo-0");
    let mut logs: Vec<_> = fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "log"))
        .collect();
    logs.sort();
    for log in &logs {
        let data = fs::read(log).unwrap();
        let index = fs::read(log.with_extension("index")).unwrap();
        let time = fs::read(log.with_extension("timeindex")).unwrap();
        assert_eq!(index.len() % 8, 0);
        assert_eq!(time.len() % 12, 0);
        // Recompute Kafka's rule from the batches: entry when bytes since the last entry > 100.
        let base: i64 = log.file_stem().unwrap().to_str().unwrap().parse().unwrap();
        let (mut pos, mut since, mut expected) = (0usize, 0usize, Vec::new());
        while pos + 12 <= data.len() {
            let size = i32::from_be_bytes(data[pos + 8..pos + 12].try_into().unwrap()) as usize + 12;
            let base_offset = i64::from_be_bytes(data[pos..pos + 8].try_into().unwrap());
            let delta = i32::from_be_bytes(data[pos + 23..pos + 27].try_into().unwrap()) as i64;
            if since > 100 {
                expected.extend_from_slice(&((base_offset + delta - base) as i32).to_be_bytes());
                expected.extend_from_slice(&(pos as u32).to_be_bytes());
                since = 0;
            }
            since += size;
            pos += size;
        }
        assert_eq!(index, expected, "{}", log.display());
    }
    // The rolled (inactive) segment carries its final time-index entry.
    assert!(fs::metadata(logs[0].with_extension("timeindex")).unwrap().len() >= 12);
}

#[test]
fn dump_accepts_single_kafka_files() {
    let lab = Lab::new();
    let b = two_epoch_replica(&lab);
    let log = b.join("demo-0/00000000000000000000.log");
    let recs = json_lines(&ok(&["dump", s(&log), "--json"]));
    assert!(recs.iter().any(|v| v["type"] == "record" && v["value"] == "m0"));
    let idx = ok(&["dump", s(&log.with_extension("index"))]);
    assert!(idx.contains("offset") && idx.contains("position"));
    let epochs = json_lines(&ok(&["dump", s(&b.join("demo-0/leader-epoch-checkpoint")), "--json"]));
    assert_eq!(epochs[1]["leader_epoch"], 4);
    let hw = json_lines(&ok(&["dump", s(&b.join("replication-offset-checkpoint")), "--json"]));
    assert_eq!(hw[0]["offset"], 12);
    let (_, err) = code(&["dump", s(&b.join("meta.properties"))], 2);
    assert!(err.contains("unknown file kind"), "{err}");
}

#[test]
fn dump_table_and_filters() {
    let lab = Lab::new();
    let b = two_epoch_replica(&lab);
    let out = ok(&["dump", s(&b), "--from", "7", "--limit", "2", "--json"]);
    let offsets: Vec<_> =
        json_lines(&out).into_iter().filter(|v| v["type"] == "record").map(|v| v["offset"].clone()).collect();
    assert_eq!(offsets, vec![7, 8]);
    let batches = json_lines(&ok(&["dump", s(&b), "--batches", "--json"]));
    assert!(batches.iter().all(|v| v["type"] != "record"));
    assert_eq!(batches.iter().filter(|v| v["type"] == "batch").count(), 11);
    klog()
        .args(["dump", s(&b)])
        .assert()
        .success()
        .stdout(predicate::str::contains("role leader").and(predicate::str::contains("m11")))
        .stdout(predicate::str::contains("\u{1b}[").not());
    klog().args(["--color", "always", "dump", s(&b)]).assert().success().stdout(predicate::str::contains("\u{1b}["));
}

#[test]
fn binary_keys_and_values_go_out_as_base64_in_json() {
    let lab = Lab::new();
    let b = lab.create("b", 0, &[]);
    ok(&["elect", s(&b)]);
    klog()
        .args(["append", s(&b), "--stdin", "--timestamp", "5"])
        .write_stdin(b"ok\n\xff\xfe\n\n".to_vec())
        .assert()
        .success();
    let recs: Vec<_> =
        json_lines(&ok(&["dump", s(&b), "--json"])).into_iter().filter(|v| v["type"] == "record").collect();
    assert_eq!(recs.len(), 3);
    assert_eq!((recs[0]["value"].as_str(), recs[0]["value_encoding"].as_str()), (Some("ok"), Some("utf8")));
    assert_eq!((recs[1]["value"].as_str(), recs[1]["value_encoding"].as_str()), (Some("//4="), Some("base64")));
    assert_eq!(recs[2]["value"], "", "an empty value is empty, not null");
}

#[test]
fn append_count_writes_generated_records_in_large_batches() {
    let lab = Lab::new();
    let b = lab.create("b", 0, &[]);
    ok(&["elect", s(&b)]);
    let (out, err) = code(&["append", s(&b), "--count", "5000", "--value-size", "100", "--flush"], 0);
    assert!(out.contains("5000 record(s) at offsets 0 to 4999"), "{out}");
    assert!(err.is_empty(), "no progress when stderr is not a terminal: {err:?}");
    let (_, err) = code(&["check", s(&b)], 0);
    assert!(err.is_empty(), "{err:?}");
    let rep = replica(&b);
    assert_eq!(rep["log_end_offset"], 5000);
    assert_eq!(rep["recovery_point"], 5000);
    ok(&["check", s(&b)]);
}

#[test]
fn check_reports_corruption_with_file_and_position() {
    let lab = Lab::new();
    let b = lab.create("b", 0, &[]);
    ok(&["elect", s(&b)]);
    ok(&["append", s(&b), "one", "--timestamp", "1"]);
    ok(&["append", s(&b), "two", "--timestamp", "2"]);
    let log = b.join("demo-0/00000000000000000000.log");
    let mut bytes = fs::read(&log).unwrap();
    let first = bytes.len() / 2; // both batches are the same size
    bytes[first + 40] ^= 0xff;
    bytes.extend_from_slice(&[0, 0, 0, 0, 0, 0, 0, 9, 0, 0, 1, 0, 0, 0, 0, 0, 2, 1]);
    fs::write(&log, &bytes).unwrap();
    let (out, _) = code(&["check", s(&b)], 1);
    assert!(
        out.contains(&format!("00000000000000000000.log at position {first} (offset 1): invalid batch: CRC mismatch")),
        "{out}"
    );
    assert!(out.contains(&format!("at position {}: 18 trailing bytes", first * 2)), "{out}");
    let json = json_lines(&code(&["check", s(&b), "--json"], 1).0);
    assert_eq!(json.iter().filter(|v| v["type"] == "finding").count(), 2);
    assert_eq!(json.last().unwrap()["clean"], false);
}

#[test]
fn bad_input_is_a_clear_error_with_exit_2_and_changes_nothing() {
    let lab = Lab::new();
    let missing = lab.path("missing");
    let (_, err) = code(&["dump", s(&missing)], 2);
    assert!(err.contains("missing: no such file or directory"), "{err}");
    fs::create_dir(lab.path("plain")).unwrap();
    let (_, err) = code(&["check", s(&lab.path("plain"))], 2);
    assert!(err.contains("not a Kafka log dir"), "{err}");
    // Two partitions in one log dir.
    let two = lab.create("two", 0, &[]);
    fs::create_dir(two.join("other-1")).unwrap();
    fs::write(two.join("other-1/00000000000000000000.log"), b"").unwrap();
    // `dump` and `check` of such a dir cover every partition; a writer still needs a name.
    let (_, err) = code(&["flush", s(&two)], 2);
    assert!(err.contains("--partition") && err.contains("demo-0") && err.contains("other-1"), "{err}");
    ok(&["dump", s(&two), "--partition", "other-1"]);
    // Non-leader append, non-numeric options, refusing a non-empty dir.
    let b = lab.create("b", 0, &[]);
    let before = snapshot(&b);
    let (_, err) = code(&["append", s(&b), "x"], 2);
    assert!(err.contains("not the leader"), "{err}");
    code(&["append", s(&b), "x", "--timestamp", "soon"], 2);
    code(&["create", s(&b)], 2);
    code(&["elect", s(&b), "--epoch", "-3"], 2);
    assert_eq!(snapshot(&b), before, "a failed command changed nothing");
}

#[test]
fn malformed_checkpoints_are_findings_for_readers_and_refusals_for_writers() {
    let lab = Lab::new();
    let b = lab.create("b", 0, &[]);
    ok(&["elect", s(&b)]);
    ok(&["append", s(&b), "x"]);
    let hw = b.join("replication-offset-checkpoint");
    for (text, what) in [
        ("0\n1\n\n", "line 3"),
        ("0\n2\ndemo 0 1\n", "entry count says 2"),
        ("1\n1\ndemo 0 1\n", "unrecognized version 1"),
        ("0\n1\ndemo zero 1\n", "line 3"),
    ] {
        fs::write(&hw, text).unwrap();
        let before = snapshot(&b);
        // Readers show what they can: the log is still dumped, and check names the file.
        let out = ok(&["dump", s(&b), "--json"]);
        assert_eq!(json_lines(&out).iter().filter(|v| v["type"] == "record").count(), 1, "{text:?}");
        let problem = json_lines(&out).into_iter().find(|v| v["type"] == "problem").expect("the bad file is named");
        assert!(problem["what"].as_str().unwrap().contains(what), "{problem}");
        let table = ok(&["dump", s(&b)]);
        assert!(table.contains("problem") && table.contains("replication-offset-checkpoint"), "{table}");
        let (out, _) = code(&["check", s(&b)], 1);
        assert!(out.contains("replication-offset-checkpoint") && out.contains(what), "{text:?}: {out}");
        // Writers refuse, and change nothing.
        let (_, err) = code(&["append", s(&b), "y"], 2);
        assert!(err.contains("replication-offset-checkpoint") && err.contains(what), "{text:?}: {err}");
        assert_eq!(snapshot(&b), before);
    }
}

/// Hold a POSIX (fcntl) write lock on `path` for as long as the file is open, as a live broker
/// holds its log dir's `.lock`.
fn posix_lock(path: &std::path::Path) -> fs::File {
    use std::os::fd::AsRawFd;
    let file = fs::OpenOptions::new().create(true).truncate(false).write(true).open(path).unwrap();
    // SAFETY: a zeroed flock is valid; the fields that matter are set below.
    let mut fl: libc::flock = unsafe { std::mem::zeroed() };
    fl.l_type = libc::F_WRLCK as libc::c_short;
    fl.l_whence = libc::SEEK_SET as libc::c_short;
    // SAFETY: the fd is open for the duration of the call.
    assert_eq!(unsafe { libc::fcntl(file.as_raw_fd(), libc::F_SETLK, &fl) }, 0, "take the POSIX lock");
    file
}

#[test]
fn a_second_writer_is_refused_while_the_lock_is_held() {
    let lab = Lab::new();
    let b = lab.create("b", 0, &[]);
    ok(&["elect", s(&b)]);
    // The lock a broker takes: a POSIX record lock (Java's FileChannel.tryLock).
    let lock = posix_lock(&b.join(".lock"));
    let before = snapshot(&b);
    let (_, err) = code(&["append", s(&b), "x"], 2);
    assert!(err.contains("locked by another process"), "{err}");
    assert_eq!(snapshot(&b), before, "a refused command changed nothing");
    drop(lock);
    ok(&["append", s(&b), "x"]);
    // Readers never need the lock.
    let _lock = posix_lock(&b.join(".lock"));
    ok(&["dump", s(&b)]);
    ok(&["check", s(&b)]);
}

#[test]
fn a_partition_dir_can_be_named_directly() {
    let lab = Lab::new();
    let b = two_epoch_replica(&lab);
    let direct = replica(&b.join("demo-0"));
    assert_eq!(direct["high_watermark"], 12, "checkpoints are read from the parent");
    ok(&["append", s(&b.join("demo-0")), "via-partition-dir"]);
    assert_eq!(records(&b).last().unwrap().2, "via-partition-dir");
}

#[test]
fn a_segment_rolls_when_its_time_index_is_full() {
    // 40-byte indexes hold 3 time entries; Kafka keeps the last slot for the final entry, so a
    // segment rolls once it has 2. With an entry for every batch but the first, that is every
    // 3 batches.
    let lab = Lab::new();
    let b = lab.create("b", 0, &["--index-interval-bytes", "0", "--segment-index-bytes", "40"]);
    ok(&["elect", s(&b)]);
    for i in 0..7 {
        ok(&["append", s(&b), &format!("x{i}"), "--timestamp", &(1000 + i).to_string()]);
    }
    let logs = segment_logs(&b);
    assert_eq!(logs, ["00000000000000000000.log", "00000000000000000003.log", "00000000000000000006.log"]);
    assert_eq!(fs::metadata(b.join("demo-0/00000000000000000000.timeindex")).unwrap().len(), 24);
    ok(&["check", s(&b)]);
    code(&["create", s(&lab.path("tiny")), "--segment-index-bytes", "8"], 2);
}

#[test]
fn a_segment_rolls_when_a_batch_is_more_than_segment_ms_newer_than_its_first() {
    let lab = Lab::new();
    let b = lab.create("b", 0, &["--segment-ms", "1000"]);
    ok(&["elect", s(&b)]);
    for ts in ["1000", "1500", "2000", "2001", "2500", "3002"] {
        ok(&["append", s(&b), "x", "--timestamp", ts]);
    }
    let logs = segment_logs(&b);
    // 2000 - 1000 is not more than 1000; 2001 is. The second segment starts at 2001, so 3002 rolls.
    assert_eq!(logs, ["00000000000000000000.log", "00000000000000000003.log", "00000000000000000005.log"]);
    ok(&["check", s(&b)]);
}

#[test]
fn dump_json_rendered_on_both_cores_equals_the_sequential_dump_line_for_line() {
    let lab = Lab::new();
    let b = lab.create("b", 0, &[]);
    ok(&["elect", s(&b)]);
    // About 7 MiB: several 1 MiB chunks, the last one partial.
    ok(&["append", s(&b), "--count", "60000", "--value-size", "100", "--timestamp", "5"]);
    ok(&["append", s(&b), "tail", "--timestamp", "6"]);
    let parallel = ok(&["dump", s(&b), "--json"]);
    // `--limit` keeps the dump sequential.
    let sequential = ok(&["dump", s(&b), "--json", "--limit", "1000000"]);
    assert_eq!(parallel.lines().filter(|l| l.contains("\"type\":\"record\"")).count(), 60001);
    assert!(parallel == sequential, "the chunked dump differs from the sequential one");
}
