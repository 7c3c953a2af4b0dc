//! A klog tiered lab (`klog create --remote-dir`, `klog tier copy`, `klog tier retain`, a
//! follower's `fetch` below the leader's local log start) read by Kafka 4.4's own code
//! (`klog.oracle.LabTier`): the lab's `__remote_log_metadata-0` decoded by
//! `RemoteLogMetadataSerde` and folded by `RemotePartitionMetadataStore`, each finished remote
//! segment fetched through `LocalTieredStorage` (`fetchLogSegment`, `fetchIndex` for every index
//! type, the leader-epoch checkpoint read as `TierStateMachine.readLeaderEpochCheckpoint` reads
//! it, the producer snapshot by `ProducerStateManager.readSnapshot`); and the follower that
//! rebuilt from remote storage loaded by Kafka's `LogManager` (`klog.oracle.Oracle load`).
//!
//! The lab: leader `a` (broker 1), followers `b` (2) and `c` (3), 300-byte segments of one
//! batch each; an idempotent producer (so the producer snapshots hold an entry) and an aborted
//! transaction (so one segment has a `.txnindex`); two copies, local retention 0 on the leader
//! and on `b` (which learns what is remote from its replicated metadata), then `c`, empty,
//! fetches from `a` and rebuilds from remote.

use crate::common::{json_lines, klog, s};
use crate::kraft_brokers::classpath;
use serde_json::Value;
use std::path::Path;
use std::process::Command;

fn ok(args: &[&str]) -> String {
    let out = klog().args(args).output().expect("klog runs");
    assert!(out.status.success(), "klog {args:?}: {}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8(out.stdout).unwrap()
}

/// `klog.oracle.LabTier read METADATA_DIR STORAGE_DIR`: Kafka's segment list with what its
/// LocalTieredStorage serves, and the summary line.
fn kafka_reads(metadata: &Path, storage: &Path) -> (Vec<Value>, Value) {
    let cp = classpath().expect("the oracle's classpath");
    let out = Command::new("java")
        .args(["-Xmx256m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1", "-cp", &cp, "klog.oracle.LabTier", "read"])
        .args([metadata, storage])
        .output()
        .expect("java runs");
    assert!(out.status.success(), "oracle: {}", String::from_utf8_lossy(&out.stderr));
    let mut lines = json_lines(&String::from_utf8_lossy(&out.stdout));
    let summary = lines.pop().expect("the summary line");
    (lines, summary)
}

fn pairs(v: &Value) -> Vec<(i64, i64)> {
    v.as_array()
        .unwrap()
        .iter()
        .map(|p| match p {
            Value::Array(a) => (a[0].as_i64().unwrap(), a[1].as_i64().unwrap()),
            o => (o["leader_epoch"].as_i64().unwrap(), o["start_offset"].as_i64().unwrap()),
        })
        .collect()
}

fn append(dir: &Path, args: &[&str]) {
    let mut all = vec!["append", s(dir)];
    all.extend_from_slice(args);
    ok(&all);
}

#[test]
fn kafka_reads_what_a_tiered_lab_wrote_and_loads_the_follower_rebuilt_from_remote() {
    if classpath().is_none() {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path();
    let remote = root.join("remote");
    let flags = ["--segment-bytes", "300", "--remote-dir", s(&remote)];
    let mk = |name: &str, id: &str| {
        let d = root.join(name);
        let mut args = vec!["create", s(&d), "--replica-id", id];
        args.extend_from_slice(&flags);
        ok(&args);
        d
    };
    let (a, b, c) = (mk("a", "1"), mk("b", "2"), mk("c", "3"));
    ok(&["elect", s(&a), "--isr", s(&b)]);
    let long = |i: usize| format!("v{i:02}-{}", "x".repeat(60));
    for i in 0..3 {
        append(&a, &["--producer-id", "7", &long(2 * i), &long(2 * i + 1)]);
    }
    // An aborted transaction: its marker's segment gets a .txnindex entry.
    append(&a, &["--producer-id", "8", "--transactional", &long(10)]);
    append(&a, &["--producer-id", "8", "--end-txn", "abort"]);
    for i in 0..4 {
        append(&a, &["--producer-id", "7", &long(20 + i)]);
    }
    ok(&["fetch", "--leader", s(&a), s(&b), "--until-caught-up"]);
    let first = json_lines(&ok(&["tier", "copy", s(&a), "--json"]));
    append(&a, &["--producer-id", "7", &long(30)]);
    ok(&["fetch", "--leader", s(&a), s(&b), "--until-caught-up"]);
    let second = json_lines(&ok(&["tier", "copy", s(&a), "--json"]));
    let copies: Vec<&Value> = first.iter().chain(second.iter()).filter(|v| v["type"] == "remote_copy").collect();
    assert!(copies.len() >= 6, "{copies:?}");
    assert!(copies.iter().any(|c| c["txn_index_empty"] == false), "one segment holds the abort marker");
    ok(&["tier", "retain", s(&a), "--local-retention-bytes", "0"]);
    ok(&["fetch", "--leader", s(&a), s(&b), "--until-caught-up"]);
    ok(&["tier", "retain", s(&b), "--local-retention-bytes", "0"]);
    let fetched = ok(&["fetch", "--leader", s(&a), s(&c), "--until-caught-up"]);
    assert!(fetched.contains("OFFSET_MOVED_TO_TIERED_STORAGE"), "{fetched}");

    // Kafka's fold of each broker's metadata copy equals klog's table, segment for segment.
    let klog_table: Vec<Value> = json_lines(&ok(&["remote", "--json", "--remote-dir", s(&remote), s(&a)]))
        .into_iter()
        .filter(|v| v["type"] == "remote_segment")
        .collect();
    assert_eq!(klog_table.len(), copies.len());
    for dir in [&a, &b, &c] {
        let (kafka, summary) = kafka_reads(&dir.join("__remote_log_metadata-0"), &remote);
        assert_eq!(summary["thrown"], 0, "{summary}");
        assert_eq!(summary["records"].as_u64(), Some(2 * copies.len() as u64), "{summary}");
        let key = |v: &Value| {
            (
                v["segment_id"].as_str().unwrap().to_string(),
                v["start_offset"].as_i64(),
                v["end_offset"].as_i64(),
                pairs(&v["segment_leader_epochs"]),
                v["state"].as_str().unwrap().to_string(),
                v["broker_id"].as_i64(),
                v["segment_size_in_bytes"].as_i64(),
                v["txn_index_empty"].as_bool(),
            )
        };
        let mut theirs: Vec<_> = kafka.iter().map(key).collect();
        let mut ours: Vec<_> = klog_table.iter().map(key).collect();
        theirs.sort();
        ours.sort();
        assert_eq!(theirs, ours, "{}", dir.display());
    }

    // What LocalTieredStorage serves for each segment is what klog copied.
    let (kafka, _) = kafka_reads(&a.join("__remote_log_metadata-0"), &remote);
    for copy in &copies {
        let id = copy["segment_id"].as_str().unwrap();
        let k = kafka.iter().find(|v| v["segment_id"] == id).expect("Kafka lists every copy");
        assert!(k["error"].is_null(), "{k}");
        let log = &k["log"];
        assert_eq!(log["valid"], true, "{k}");
        assert_eq!(
            (log["first_offset"].clone(), log["last_offset"].clone()),
            (copy["start_offset"].clone(), copy["end_offset"].clone())
        );
        assert_eq!(log["bytes"], copy["segment_size_in_bytes"]);
        assert_eq!(pairs(&k["leader_epoch_checkpoint"]), pairs(&copy["leader_epoch_checkpoint"]), "{k}");
        assert_eq!(k["txn_index_bytes"].is_null(), copy["txn_index_empty"] == true, "{k}");
        // The producer snapshot: the entries klog's own reader finds in the copied file.
        let snapshot =
            copy["files"].as_array().unwrap().iter().find(|f| f.as_str().unwrap().ends_with(".snapshot")).unwrap();
        let dumped = json_lines(&ok(&["dump", "--json", snapshot.as_str().unwrap()]));
        assert_eq!(k["producer_snapshot_entries"], dumped[0]["entries"], "{k}");
    }
    assert!(
        kafka.iter().any(|k| k["producer_snapshot_entries"].as_i64() > Some(0)),
        "an idempotent producer's entry went remote"
    );

    // The follower that rebuilt from remote storage: Kafka's loader takes its dir as it is
    // (nothing cut), with the remote segment's epoch cache and klog's log end.
    let copy = root.join("c-copy");
    crate::common::copy_dir(&c, &copy);
    let loaded = crate::oracle::load_batch(root, &[crate::oracle::LoadCase { dir: copy, overrides: vec![] }]).unwrap();
    let log = loaded[0]["logs"].as_array().unwrap().iter().find(|l| l["dir"] == "demo-0").unwrap().clone();
    assert_eq!(loaded[0]["outcome"], "loaded", "{}", loaded[0]);
    assert_eq!(loaded[0]["log_bytes_removed"]["demo-0"], 0);
    let ours = json_lines(&ok(&["dump", "--json", "--limit", "0", s(&c.join("demo-0"))]));
    let replica = ours.iter().find(|v| v["type"] == "replica").unwrap();
    assert_eq!(log["log_end_offset"], replica["log_end_offset"], "{log}");
    let checkpoint = std::fs::read_to_string(c.join("demo-0/leader-epoch-checkpoint")).unwrap();
    let cache: Vec<(i64, i64)> = checkpoint
        .lines()
        .skip(2)
        .map(|l| {
            let (e, o) = l.split_once(' ').unwrap();
            (e.parse().unwrap(), o.parse().unwrap())
        })
        .collect();
    assert_eq!(pairs(&log["epochs"]), cache, "{log}");
    assert!(
        cache.first().is_some_and(|(_, o)| *o < log["log_start_offset"].as_i64().unwrap()),
        "the cache reaches below the local log"
    );
    // And klog finds nothing wrong across the three brokers and the remote dir.
    let out = klog().args(["remote", "--remote-dir", s(&remote), s(&a), s(&b), s(&c)]).output().unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stdout));

    // The leader's remote expiration at retention.ms 0 (`klog tier expire`): Kafka's fold of its
    // metadata applies the DELETE_SEGMENT_STARTED and _FINISHED records klog wrote, nothing
    // thrown and no segment left; Kafka's loader takes the leader's dir with its raised log start.
    let expired = json_lines(&ok(&["tier", "expire", s(&a), "--retention-ms", "0", "--json"]));
    assert_eq!(expired.iter().filter(|v| v["type"] == "remote_delete").count(), copies.len(), "{expired:?}");
    let raised = expired.last().unwrap()["log_start_after"].as_i64().unwrap();
    let (kafka, summary) = kafka_reads(&a.join("__remote_log_metadata-0"), &remote);
    assert_eq!(summary["thrown"], 0, "{summary}");
    assert_eq!(summary["records"].as_u64(), Some(4 * copies.len() as u64), "{summary}");
    assert!(kafka.is_empty(), "Kafka's cache lists no deleted segment: {kafka:?}");
    let copy = root.join("a-copy");
    crate::common::copy_dir(&a, &copy);
    let loaded = crate::oracle::load_batch(root, &[crate::oracle::LoadCase { dir: copy, overrides: vec![] }]).unwrap();
    let log = loaded[0]["logs"].as_array().unwrap().iter().find(|l| l["dir"] == "demo-0").unwrap().clone();
    assert_eq!(
        (loaded[0]["outcome"].as_str(), log["log_start_offset"].as_i64()),
        (Some("loaded"), Some(raised)),
        "{log}"
    );
    assert_eq!(loaded[0]["log_bytes_removed"]["demo-0"], 0);
}
