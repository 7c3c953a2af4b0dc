//! A klog lab with a remote tier (`klog create --remote-dir`): `klog tier copy` (the leader's
//! copy task), `klog tier retain` (local retention below the highest remote offset), the
//! metadata partition replicated by `fetch`, and a follower below the leader's local log start
//! rebuilding from remote storage. Each state is read back by `klog remote` and `klog check`,
//! which must find nothing wrong. (`tests/kafka/lab_tier.rs` has Kafka's own code read it.)

use crate::common::*;
use std::path::{Path, PathBuf};

/// A value of 40 bytes: three to a batch make a 201-byte batch; segments of 300 bytes hold one.
fn value(i: usize) -> String {
    format!("m{i:02}-{}", "x".repeat(36))
}

/// Leader `a` (broker 1) and follower `b` (broker 2) of a tiered lab sharing `remote`, with
/// `batches` batches of three records appended to `a` and fetched by `b` (one batch a segment).
fn tiered_pair(lab: &Lab, batches: usize) -> (PathBuf, PathBuf, PathBuf) {
    let remote = lab.path("remote");
    let flags = ["--segment-bytes", "300", "--remote-dir", s(&remote)];
    let a = lab.create("a", 1, &flags);
    let b = lab.create("b", 2, &flags);
    ok(&["elect", s(&a), "--isr", s(&b)]);
    for i in 0..batches {
        let vs = [value(3 * i), value(3 * i + 1), value(3 * i + 2)];
        ok(&["append", s(&a), &vs[0], &vs[1], &vs[2]]);
    }
    ok(&["fetch", "--leader", s(&a), s(&b), "--until-caught-up"]);
    (a, b, remote)
}

fn remote_json(dirs: &[&Path], remote: &Path) -> Vec<serde_json::Value> {
    let mut args = vec!["remote", "--json", "--remote-dir", s(remote)];
    args.extend(dirs.iter().map(|d| s(d)));
    json_lines(&ok(&args))
}

/// `klog remote` and `klog check` over the dirs find nothing.
fn no_findings(dirs: &[&Path], remote: &Path) {
    let mut args = vec!["remote", "--remote-dir", s(remote)];
    args.extend(dirs.iter().map(|d| s(d)));
    let (out, _) = code(&args, 0);
    assert!(out.contains("no findings"), "{out}");
    for d in dirs {
        let (out, err) = code(&["check", s(d)], 0);
        assert!(!out.contains("finding") || out.contains("clean"), "{out}{err}");
    }
}

#[test]
fn a_tiered_lab_records_its_remote_dir_and_holds_the_metadata_partition() {
    let lab = Lab::new();
    let remote = lab.path("remote");
    let a = lab.path("a");
    let out = ok(&["create", s(&a), "--remote-dir", s(&remote)]);
    assert!(out.contains("remote.storage.enable=true"), "{out}");
    assert!(a.join("__remote_log_metadata-0").is_dir());
    assert!(remote.join("kafka-tiered-storage").is_dir());
    let state: serde_json::Value = serde_json::from_slice(&std::fs::read(a.join("klog-state.json")).unwrap()).unwrap();
    assert_eq!(state["remote_storage_dir"], s(&std::fs::canonicalize(&remote).unwrap()));
    // Kafka 4.4 writes a tiered log's log start even at its first segment's base.
    assert!(std::fs::read_to_string(a.join("log-start-offset-checkpoint")).unwrap().contains("demo 0 0"));
    // Commands without --partition still work on the lab's topic.
    ok(&["elect", s(&a)]);
    ok(&["append", s(&a), "m1"]);
    // A --remote-dir on an existing dir is refused, and a file as the remote dir.
    let (_, err) = code(&["create", s(&a), "--topic", "t", "--remote-dir", s(&remote)], 2);
    assert!(err.contains("--remote-dir makes a new tiered lab"), "{err}");
    std::fs::write(lab.path("file"), b"x").unwrap();
    let (_, err) = code(&["create", s(&lab.path("c")), "--remote-dir", s(&lab.path("file"))], 2);
    assert!(err.contains("exists and is not a directory"), "{err}");
    assert!(!lab.path("c").exists(), "a refused create leaves nothing");
}

#[test]
fn copy_uploads_the_closed_segments_below_the_lso_with_their_metadata_records() {
    let lab = Lab::new();
    let (a, b, remote) = tiered_pair(&lab, 4);
    let lines = json_lines(&ok(&["tier", "copy", s(&a), "--json"]));
    let copies: Vec<&serde_json::Value> = lines.iter().filter(|v| v["type"] == "remote_copy").collect();
    // Four segments 0, 3, 6, 9 (one batch each; a segment rolls when the next batch comes):
    // 0..2, 3..5 and 6..8 are closed and below the LSO 12; 9..11 is the active segment.
    let ranges: Vec<(i64, i64)> =
        copies.iter().map(|c| (c["start_offset"].as_i64().unwrap(), c["end_offset"].as_i64().unwrap())).collect();
    assert_eq!(ranges, vec![(0, 2), (3, 5), (6, 8)]);
    for c in &copies {
        assert_eq!(c["state"], "COPY_SEGMENT_FINISHED");
        assert_eq!(c["segment_leader_epochs"], serde_json::json!([[0, c["start_offset"]]]));
        assert_eq!(c["leader_epoch_checkpoint"], serde_json::json!([[0, 0]]));
        assert_eq!(c["txn_index_empty"], true);
        assert_eq!(c["files"].as_array().unwrap().len(), 5, "no .txnindex: five files");
    }
    let summary = lines.iter().find(|v| v["type"] == "copy_task").unwrap();
    assert_eq!(
        (summary["highest_remote_offset"].as_i64(), summary["last_stable_offset"].as_i64()),
        (Some(-1), Some(12))
    );
    // Eight records, decoded by name, folded into four finished segments; the files match.
    let doc = remote_json(&[&a], &remote);
    let table: Vec<&serde_json::Value> = doc.iter().filter(|v| v["type"] == "remote_segment").collect();
    assert_eq!(table.len(), 3, "{doc:?}");
    no_findings(&[&a, &b], &remote);
    // A second run copies nothing: everything below the LSO is remote.
    let again = json_lines(&ok(&["tier", "copy", s(&a), "--json"]));
    assert_eq!(again.iter().filter(|v| v["type"] == "remote_copy").count(), 0);
    let summary = again.iter().find(|v| v["type"] == "copy_task").unwrap();
    assert_eq!(summary["highest_remote_offset"], 8);
}

#[test]
fn copy_stopped_after_the_log_file_leaves_an_unfinished_upload_that_remote_reports() {
    let lab = Lab::new();
    let (a, _, remote) = tiered_pair(&lab, 3);
    let out = ok(&["tier", "copy", s(&a), "--stop-after-files", "1"]);
    assert!(out.contains("never finished") && out.contains("stopped after the STARTED record and 1 file(s)"), "{out}");
    let files: Vec<String> = std::fs::read_dir(remote.join("kafka-tiered-storage"))
        .unwrap()
        .flat_map(|d| std::fs::read_dir(d.unwrap().path()).unwrap())
        .map(|f| f.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert_eq!(files.len(), 1);
    assert!(files[0].starts_with("00000000000000000000-") && files[0].ends_with(".log"), "{files:?}");
    let (out, _) = code(&["remote", s(&a), "--remote-dir", s(&remote)], 1);
    assert!(out.contains("copy not finished: demo-0 segment") && out.contains("COPY_SEGMENT_STARTED only"), "{out}");
}

#[test]
fn copy_is_refused_on_a_follower_and_on_a_lab_without_a_remote_tier() {
    let lab = Lab::new();
    let (_, b, _) = tiered_pair(&lab, 2);
    let (_, err) = code(&["tier", "copy", s(&b)], 2);
    assert!(err.contains("not a running leader"), "{err}");
    let plain = lab.create("plain", 3, &[]);
    ok(&["elect", s(&plain)]);
    let before = snapshot(&plain);
    let (_, err) = code(&["tier", "copy", s(&plain)], 2);
    assert!(err.contains("not a tiered lab"), "{err}");
    assert_eq!(snapshot(&plain), before, "a refused copy changes nothing");
}
