//! A klog lab with a remote tier (`klog create --remote-dir`): `klog tier copy` (the leader's
//! copy task), `klog tier retain` (local retention below the highest remote offset), the
//! metadata partition replicated by `fetch`, and a follower below the leader's local log start
//! rebuilding from remote storage. Each state is read back by `klog remote` and `klog check`,
//! which must find nothing wrong. (`tests/kafka/lab_tier.rs` has Kafka's own code read it.)

use crate::common::*;
use std::path::{Path, PathBuf};

/// A value of 40 bytes: three to a batch make a 202-byte batch; segments of 300 bytes hold one.
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

/// `klog remote` and `klog check --remote-dir` over the dirs find nothing, nor `check` of each.
fn no_findings(dirs: &[&Path], remote: &Path) {
    let mut args = vec!["remote", "--remote-dir", s(remote)];
    args.extend(dirs.iter().map(|d| s(d)));
    let (out, _) = code(&args, 0);
    assert!(out.contains("no findings"), "{out}");
    let mut args = vec!["check", "--remote-dir", s(remote)];
    args.extend(dirs.iter().map(|d| s(d)));
    let (out, _) = code(&args, 0);
    assert!(out.contains("across the tiers: clean"), "{out}");
    for d in dirs {
        code(&["check", s(d)], 0);
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

/// `tiered_pair` with four batches, copied, then local retention 0 on the leader: its local
/// log starts at 9 (the active segment), offsets 0..8 in remote storage only.
fn retained_leader(lab: &Lab) -> (PathBuf, PathBuf, PathBuf) {
    let (a, b, remote) = tiered_pair(lab, 4);
    ok(&["tier", "copy", s(&a)]);
    (a, b, remote)
}

#[test]
fn retain_deletes_only_what_remote_storage_holds_and_keeps_the_log_start() {
    let lab = Lab::new();
    let (a, b, remote) = tiered_pair(&lab, 4);
    // Nothing copied yet: however small the limit, nothing goes.
    let v = json_lines(&ok(&["tier", "retain", s(&a), "--local-retention-bytes", "0", "--json"]));
    assert_eq!(v[0]["deleted"], serde_json::json!([]), "{v:?}");
    assert_eq!(v[0]["highest_remote_offset"], -1);
    assert!(v[0]["stopped_because"].as_str().unwrap().contains("not in remote storage"));
    ok(&["tier", "copy", s(&a)]);
    // Segments of 202 bytes: a limit of 400 bytes deletes the two oldest of the four (808 bytes).
    let v = json_lines(&ok(&["tier", "retain", s(&a), "--local-retention-bytes", "400", "--json"]));
    assert_eq!((v[0]["deleted"].clone(), v[0]["deleted_bytes"].as_u64()), (serde_json::json!([0, 3]), Some(404)));
    assert_eq!((v[0]["local_log_start_after"].as_i64(), v[0]["log_start_offset"].as_i64()), (Some(6), Some(0)));
    // Limit 0: 6..8 goes too (copied); 9..11 is the active segment, not copied: it stays, and
    // the log rolls so that it can be copied.
    let v = json_lines(&ok(&["tier", "retain", s(&a), "--local-retention-bytes", "0", "--json"]));
    assert_eq!(v[0]["deleted"], serde_json::json!([6]));
    assert_eq!(v[0]["rolled"], true);
    assert_eq!(v[0]["local_log_start_after"], 9);
    let start = std::fs::read_to_string(a.join("log-start-offset-checkpoint")).unwrap();
    assert!(start.contains("demo 0 0"), "the log start across tiers stays: {start}");
    assert!(
        !a.join("demo-0/00000000000000000000.log").exists() && !a.join("demo-0/00000000000000000006.snapshot").exists()
    );
    let doc = remote_json(&[&a, &b], &remote);
    let local = doc.iter().find(|v| v["type"] == "local" && v["data_dir"] == s(&a)).unwrap();
    assert_eq!((local["log_start_offset"].as_i64(), local["local_log_start_offset"].as_i64()), (Some(0), Some(9)));
    no_findings(&[&a, &b], &remote);
    // The rolled segment 9..11 is copied by the next run, and retained by the one after.
    ok(&["tier", "copy", s(&a)]);
    let v = json_lines(&ok(&["tier", "retain", s(&a), "--local-retention-bytes", "0", "--json"]));
    assert_eq!(v[0]["deleted"], serde_json::json!([9]));
    no_findings(&[&a, &b], &remote);
}

#[test]
fn a_follower_below_the_leaders_local_start_rebuilds_from_remote_storage_and_catches_up() {
    let lab = Lab::new();
    let (a, b, remote) = retained_leader(&lab);
    ok(&["tier", "retain", s(&a), "--local-retention-bytes", "0"]);
    let c = lab.create("c", 3, &["--segment-bytes", "300", "--remote-dir", s(&remote)]);
    let out = ok(&["fetch", "--leader", s(&a), s(&c), "--until-caught-up", "--explain"]);
    assert!(out.contains("__remote_log_metadata-0: copied records 0..5 from the leader's copy"), "{out}");
    assert!(
        out.contains("fetch at 0: OFFSET_MOVED_TO_TIERED_STORAGE (the leader's log start 0, local log start 9)"),
        "{out}"
    );
    assert!(out.contains("offsets 6..8): log restarts at 9 with log start 0, epoch cache 0@0"), "{out}");
    // --explain: the aux-state procedure with Kafka's lines and the values it saw.
    for want in [
        "TierStateMachine.java:190-263@4.4.0",
        "ReplicaManager.scala:1904-1915@4.4.0",
        "OFFSET_MOVED_TO_TIERED_STORAGE ◀ 0 <= 0 < 9: yes",
        "(local_start, e) = leader.list_offsets(EARLIEST_LOCAL)  # -4 ◀ (9, 0)",
        "next = seg.end_offset + 1",
        "◀ 8 + 1 = 9",
        "epoch_cache = seg.leader_epoch_checkpoint",
    ] {
        assert!(out.contains(want), "{want}\n{out}");
    }
    assert!(out.contains("caught up"), "{out}");
    // The follower holds 9..11 locally, its log start 0 across the tiers, its cache the remote one.
    let recs: Vec<i64> = records(&c.join("demo-0")).iter().map(|r| r.0).collect();
    assert_eq!(recs, vec![9, 10, 11]);
    assert!(std::fs::read_to_string(c.join("log-start-offset-checkpoint")).unwrap().contains("demo 0 0"));
    assert_eq!(std::fs::read_to_string(c.join("demo-0/leader-epoch-checkpoint")).unwrap(), "0\n1\n0 0\n");
    assert!(c.join("demo-0/00000000000000000009.snapshot").is_file());
    no_findings(&[&a, &b, &c], &remote);
    // JSON: the answer and the state built, as one line before the rounds.
    let d = lab.create("d", 4, &["--segment-bytes", "300", "--remote-dir", s(&remote)]);
    let v = json_lines(&ok(&["fetch", "--leader", s(&a), s(&d), "--json"]));
    let aux = v.iter().find(|l| l["type"] == "remote_aux_state").unwrap();
    assert_eq!((aux["fetch_offset"].as_i64(), aux["next_offset"].as_i64()), (Some(0), Some(9)));
    assert_eq!(aux["answer"], "OFFSET_MOVED_TO_TIERED_STORAGE");
}

#[test]
fn without_the_remote_files_the_follower_cannot_rebuild_and_nothing_changes() {
    let lab = Lab::new();
    let (a, _, remote) = retained_leader(&lab);
    ok(&["tier", "retain", s(&a), "--local-retention-bytes", "0"]);
    // The remote files are gone (another storage): the checkpoint does not read.
    let c = lab.create("c", 3, &["--segment-bytes", "300", "--remote-dir", s(&remote)]);
    let moved = lab.path("moved");
    std::fs::rename(&remote, &moved).unwrap();
    std::fs::create_dir_all(remote.join("kafka-tiered-storage")).unwrap();
    let before = snapshot(&c);
    let (_, err) = code(&["fetch", "--leader", s(&a), s(&c)], 2);
    assert!(err.contains("leader_epoch_checkpoint"), "{err}");
    assert_eq!(snapshot(&c), before, "a failed fetch changes nothing");
}

#[test]
fn recover_writes_the_restart_from_remote_storage_in_a_tiered_lab() {
    let lab = Lab::new();
    let (a, b, remote) = retained_leader(&lab);
    ok(&["tier", "retain", s(&a), "--local-retention-bytes", "0"]);
    let c = lab.create("c", 3, &["--segment-bytes", "300", "--remote-dir", s(&remote)]);
    let out = ok(&["recover", s(&c), "--leader", s(&a), "--catch-up"]);
    assert!(out.contains("moved to tiered storage"), "{out}");
    assert!(out.contains("it deletes its whole log and starts at 9, log start 0"), "{out}");
    assert_eq!(records(&c.join("demo-0")).iter().map(|r| r.0).collect::<Vec<_>>(), vec![9, 10, 11]);
    assert!(c.join("demo-0/00000000000000000009.snapshot").is_file());
    assert!(std::fs::read_to_string(c.join("log-start-offset-checkpoint")).unwrap().contains("demo 0 0"));
    ok(&["fetch", "--leader", s(&a), s(&c)]);
    no_findings(&[&a, &b, &c], &remote);
}

#[test]
fn a_tiered_lab_is_refused_under_a_release_without_tiered_storage() {
    let lab = Lab::new();
    let (a, b, _) = tiered_pair(&lab, 2);
    let before = snapshot(&b);
    let (_, err) = code(&["fetch", "--leader", s(&a), s(&b), "--kafka", "3.5.2"], 2);
    assert!(err.contains("is a tiered lab (remote.storage.enable=true), and Kafka 3.5.2 has no remote tier"), "{err}");
    assert_eq!(err.lines().count(), 1, "{err}");
    let (_, err) = code(&["recover", s(&b), "--leader", s(&a), "--kafka", "3.5.2"], 2);
    assert!(err.contains("has no remote tier"), "{err}");
    assert_eq!(snapshot(&b), before);
    ok(&["fetch", "--leader", s(&a), s(&b), "--kafka", "3.6.0"]);
}

#[test]
fn fetch_replicates_the_metadata_records_and_the_follower_can_then_retain() {
    let lab = Lab::new();
    let (a, b, remote) = retained_leader(&lab);
    let out = ok(&["fetch", "--leader", s(&a), s(&b)]);
    assert!(out.contains("__remote_log_metadata-0: copied records 0..5"), "{out}");
    // The follower's own metadata tells it what is remote: its retention deletes the same.
    let v = json_lines(&ok(&["tier", "retain", s(&b), "--local-retention-bytes", "0", "--json"]));
    assert_eq!(v[0]["deleted"], serde_json::json!([0, 3, 6]));
    assert_eq!(v[0]["highest_remote_offset"], 8);
    no_findings(&[&a, &b], &remote);
    // Fetching again copies nothing more.
    let v = json_lines(&ok(&["fetch", "--leader", s(&a), s(&b), "--json"]));
    assert_eq!(v[0]["outcome"], "up_to_date");
}

/// A world for the fault runs: `template` copied under a fresh root, the remote dir each
/// lab's state file records moved to the copy's.
fn world_from(template: &Path) -> tempfile::TempDir {
    let root = tempfile::tempdir().unwrap();
    copy_dir(template, root.path());
    let old = std::fs::canonicalize(template).unwrap();
    let new = std::fs::canonicalize(root.path()).unwrap();
    for lab in ["a", "b", "c"] {
        let state = root.path().join(lab).join("klog-state.json");
        if let Ok(text) = std::fs::read_to_string(&state) {
            std::fs::write(&state, text.replace(s(&old), s(&new))).unwrap();
        }
    }
    root
}

/// Run `args` (`{root}` stands for the world's root) in a copy of `template` under
/// `KLOG_FAULT=fail@N` for every durable step N (a sample outside CI): exit 2 with every
/// byte of the world as before (the labs and the remote dir), or done.
fn fails_at_every_step_changing_nothing(template: &Path, args: &[&str]) -> usize {
    let with_root = |root: &Path| -> Vec<String> { args.iter().map(|a| a.replace("{root}", s(root))).collect() };
    let probe = world_from(template);
    let trace = probe.path().join("trace");
    let out = klog()
        .env("KLOG_FAULT", format!("nosync,trace={}", trace.display()))
        .args(with_root(probe.path()))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{args:?}: {}", String::from_utf8_lossy(&out.stderr));
    let steps = std::fs::read_to_string(&trace).unwrap().lines().count();
    assert!(steps > 0, "{args:?}: no durable step");
    // Every step under KLOG_EXHAUSTIVE=1 (scripts/long-searches); else the first and last 8 and every 8th.
    let fail_at: Vec<usize> = (1..=steps).filter(|&n| exhaustive() || n <= 8 || n + 8 > steps || n % 8 == 0).collect();
    for n in fail_at {
        let w = world_from(template);
        let before = tree(w.path());
        let out = klog().env("KLOG_FAULT", format!("nosync,fail@{n}")).args(with_root(w.path())).output().unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        match out.status.code() {
            Some(0) => {}
            Some(2) => {
                assert!(err.contains("injected fault") && !err.contains("warning"), "{args:?} fail@{n}: {err}");
                assert!(tree(w.path()) == before, "{args:?} fail@{n}: the world changed");
            }
            other => panic!("{args:?} fail@{n}: exit {other:?}: {err}"),
        }
    }
    steps
}

#[test]
fn every_tiered_write_failing_at_any_step_changes_nothing() {
    let lab = Lab::new();
    let (a, _, remote) = tiered_pair(&lab, 2);
    lab.create("c", 3, &["--segment-bytes", "300", "--remote-dir", s(&remote)]);
    let copy_steps = fails_at_every_step_changing_nothing(lab.dir.path(), &["tier", "copy", "{root}/a"]);
    ok(&["tier", "copy", s(&a)]);
    let retain_steps = fails_at_every_step_changing_nothing(
        lab.dir.path(),
        &["tier", "retain", "{root}/a", "--local-retention-bytes", "0"],
    );
    ok(&["tier", "retain", s(&a), "--local-retention-bytes", "0"]);
    let fetch_steps =
        fails_at_every_step_changing_nothing(lab.dir.path(), &["fetch", "--leader", "{root}/a", "{root}/c"]);
    let recover_steps =
        fails_at_every_step_changing_nothing(lab.dir.path(), &["recover", "{root}/c", "--leader", "{root}/a"]);
    let create_steps =
        fails_at_every_step_changing_nothing(lab.dir.path(), &["create", "{root}/d", "--remote-dir", "{root}/remote2"]);
    let expire_steps =
        fails_at_every_step_changing_nothing(lab.dir.path(), &["tier", "expire", "{root}/a", "--retention-ms", "0"]);
    eprintln!(
        "durable steps: copy {copy_steps}, retain {retain_steps}, fetch {fetch_steps}, recover {recover_steps}, \
         create {create_steps}, expire {expire_steps}"
    );
}

/// The remote files of the partition (LocalTieredStorage's fileset dir), by name.
fn remote_files(remote: &Path) -> Vec<String> {
    let root = remote.join("kafka-tiered-storage");
    let mut names = Vec::new();
    for dir in std::fs::read_dir(&root).unwrap().flatten() {
        names.extend(
            std::fs::read_dir(dir.path()).unwrap().flatten().map(|f| f.file_name().to_string_lossy().into_owned()),
        );
    }
    names.sort();
    names
}

#[test]
fn expire_deletes_what_retention_breaches_as_klog_remote_forecast_it_and_raises_the_log_start() {
    let lab = Lab::new();
    let (a, b, remote) = retained_leader(&lab);
    assert_eq!(remote_files(&remote).len(), 15, "three filesets of five files");
    // Kafka's default retention (7 days) breaches nothing a lab appended just now.
    let v = json_lines(&ok(&["tier", "expire", s(&a), "--json"]));
    assert_eq!((v.len(), v[0]["deleted"].as_u64(), v[0]["log_start_after"].as_i64()), (1, Some(0), Some(0)), "{v:?}");
    // What `klog remote` forecasts for broker 1 with retention.ms 0 is what the run deletes.
    let text = ok(&["remote", "--remote-dir", s(&remote), "--retention-ms", "0", s(&a), s(&b)]);
    assert!(
        text.contains(
            "if broker 1 leads, Kafka deletes 3 segment(s), offsets 0..8 (3 by retention.ms breach); earliest offset after: 9"
        ),
        "{text}"
    );
    let v = json_lines(&ok(&["tier", "expire", s(&a), "--retention-ms", "0", "--json"]));
    let deleted: Vec<(i64, i64, &str)> = v[..3]
        .iter()
        .map(|d| (d["start_offset"].as_i64().unwrap(), d["end_offset"].as_i64().unwrap(), d["cause"].as_str().unwrap()))
        .collect();
    assert_eq!(
        deleted,
        vec![(0, 2, "retention.ms breach"), (3, 5, "retention.ms breach"), (6, 8, "retention.ms breach")]
    );
    assert!(v[..3].iter().all(|d| d["files"].as_array().unwrap().len() == 5), "{v:?}");
    assert_eq!(
        (v[3]["type"].as_str(), v[3]["log_start_before"].as_i64(), v[3]["log_start_after"].as_i64()),
        (Some("remote_expiration"), Some(0), Some(9))
    );
    assert!(remote_files(&remote).is_empty(), "every fileset's files are gone");
    let start = std::fs::read_to_string(a.join("log-start-offset-checkpoint")).unwrap();
    assert!(start.contains("demo 0 9"), "the log start rose to the earliest offset served: {start}");
    // The metadata log holds STARTED and FINISHED deletion records, which Kafka's fold (klog's
    // `remote`) applies: no remote segment left, nothing wrong, nothing more to delete.
    let dump = ok(&["dump", s(&a.join("__remote_log_metadata-0")), "--width", "0"]);
    assert_eq!(dump.matches("DELETE_SEGMENT_STARTED").count(), 3, "{dump}");
    assert_eq!(dump.matches("DELETE_SEGMENT_FINISHED").count(), 3, "{dump}");
    no_findings(&[&a, &b], &remote);
    let v = json_lines(&ok(&["tier", "expire", s(&a), "--retention-ms", "0", "--json"]));
    assert_eq!((v[0]["deleted"].as_u64(), v[0]["log_start_before"].as_i64()), (Some(0), Some(9)), "{v:?}");
}

#[test]
fn expire_is_refused_on_a_follower_and_on_a_lab_without_a_remote_tier_changing_nothing() {
    let lab = Lab::new();
    let (a, b, _) = retained_leader(&lab);
    let before = (snapshot(&a), snapshot(&b));
    let (_, err) = code(&["tier", "expire", s(&b), "--retention-ms", "0"], 2);
    assert!(err.contains("is not a running leader") && err.contains("klog elect"), "{err}");
    let plain = lab.create("plain", 1, &[]);
    ok(&["elect", s(&plain)]);
    let (_, err) = code(&["tier", "expire", s(&plain)], 2);
    assert!(err.contains("is not a tiered lab"), "{err}");
    let (_, err) = code(&["tier", "expire", s(&a), "--retention-ms", "-2"], 2);
    assert!(err.contains("-2"), "{err}");
    assert_eq!((snapshot(&a), snapshot(&b)), before);
}

#[test]
fn a_new_leader_copies_from_where_the_metadata_says_the_old_one_stopped() {
    let lab = Lab::new();
    let (a, b, remote) = tiered_pair(&lab, 3);
    ok(&["tier", "copy", s(&a)]);
    ok(&["fetch", "--leader", s(&a), s(&b)]);
    ok(&["crash", s(&a)]);
    ok(&["elect", s(&b)]);
    for i in 9..12 {
        ok(&["append", s(&b), &value(i)]);
    }
    let v = json_lines(&ok(&["tier", "copy", s(&b), "--json"]));
    let summary = v.iter().find(|l| l["type"] == "copy_task").unwrap();
    // a copied 0..2 and 3..5 at epoch 0; b (epoch 1 from 9) finds 5 as the copied offset.
    assert_eq!(
        (summary["highest_remote_offset"].as_i64(), summary["highest_remote_epoch"].as_i64()),
        (Some(5), Some(0))
    );
    let ranges: Vec<(i64, i64, i64)> = v
        .iter()
        .filter(|l| l["type"] == "remote_copy")
        .map(|c| {
            (
                c["start_offset"].as_i64().unwrap(),
                c["end_offset"].as_i64().unwrap(),
                c["segment_leader_epochs"][0][0].as_i64().unwrap(),
            )
        })
        .collect();
    assert_eq!(ranges, vec![(6, 8, 0), (9, 10, 1)], "one-record batches: two to a segment, 11 active");
    ok(&["recover", s(&a), "--leader", s(&b)]);
    let out = ok(&["fetch", "--leader", s(&b), s(&a), "--until-caught-up"]);
    assert!(out.contains("__remote_log_metadata-0: copied records 4..7"), "{out}");
    no_findings(&[&a, &b], &remote);
}
