//! `klog remote` and `klog dump` on tiered storage (KIP-405): a broker's dir holding
//! `__remote_log_metadata-0` (records written here in Kafka 4.4's `RemoteLogMetadataSerde`
//! frame) and a LocalTieredStorage dir beside it. The remote segment table, the events Kafka's
//! cache rejects, an upload never finished, the remote files checked. (`tests/kafka/
//! real_tiered.rs` reads a real tiered cluster and compares with Kafka's own fold.)

use crate::common::*;
use replica_lab::format::batch::{encode_batch, BatchSpec};
use replica_lab::format::record::NewRecord;
use std::fs;
use std::path::{Path, PathBuf};

const TOPIC_ID: [u8; 16] = [7; 16];
const SEGMENT_A: [u8; 16] = [0xa; 16];
const SEGMENT_B: [u8; 16] = [0xb; 16];

fn uvarint(out: &mut Vec<u8>, mut v: u32) {
    while v >= 0x80 {
        out.push((v as u8 & 0x7f) | 0x80);
        v >>= 7;
    }
    out.push(v as u8);
}

fn segment_id(v: &mut Vec<u8>, id: [u8; 16]) {
    uvarint(v, 2); // compact string "t"
    v.push(b't');
    v.extend(TOPIC_ID);
    v.extend(0i32.to_be_bytes());
    v.push(0);
    v.extend(id);
    v.push(0);
}

/// RemoteLogSegmentMetadataRecord v0 (frame 1, api key 0), COPY_SEGMENT_STARTED by broker 1.
fn segment(id: [u8; 16], start: i64, end: i64, size_bytes: i32) -> Vec<u8> {
    let mut v = vec![1, 0, 0];
    segment_id(&mut v, id);
    v.extend(start.to_be_bytes());
    v.extend(end.to_be_bytes());
    v.extend(1i32.to_be_bytes());
    v.extend(1_700_000_000_000i64.to_be_bytes());
    v.extend(1_700_000_000_500i64.to_be_bytes());
    uvarint(&mut v, 2);
    v.extend(0i32.to_be_bytes());
    v.extend(start.to_be_bytes());
    v.push(0);
    v.extend(size_bytes.to_be_bytes());
    v.push(0); // null custom metadata
    v.push(0); // COPY_SEGMENT_STARTED
    v.push(0);
    v
}

/// RemoteLogSegmentMetadataUpdateRecord v0 (api key 1) to `state` by broker 1.
fn update(id: [u8; 16], state: u8) -> Vec<u8> {
    let mut v = vec![1, 1, 0];
    segment_id(&mut v, id);
    v.extend(1i32.to_be_bytes());
    v.extend(1_700_000_001_000i64.to_be_bytes());
    v.push(0);
    v.push(state);
    v.push(0);
    v
}

/// The remote segment A's log: offsets 0..2 at leader epoch 0.
fn remote_log() -> Vec<u8> {
    let records: Vec<NewRecord> = (0..3)
        .map(|i| NewRecord { timestamp: 1_000 + i, key: None, value: Some(vec![b'a' + i as u8]), headers: vec![] })
        .collect();
    encode_batch(&BatchSpec::plain(0, 0), &records)
}

/// A data dir whose `__remote_log_metadata-0` holds: segment A copied (offsets 0..2), segment B
/// started and never finished (3..5), then an update of A the cache refuses (COPY_SEGMENT_FINISHED
/// to DELETE_SEGMENT_FINISHED); `t-0` locally from offset 3. And the LocalTieredStorage dir with
/// A's files.
fn tiered(root: &Path) -> (PathBuf, PathBuf) {
    let data = root.join("data1");
    let meta = data.join("__remote_log_metadata-0");
    fs::create_dir_all(&meta).unwrap();
    let log = remote_log();
    let values = [
        segment(SEGMENT_A, 0, 2, log.len() as i32),
        update(SEGMENT_A, 1),
        segment(SEGMENT_B, 3, 5, 100),
        update(SEGMENT_A, 3),
    ];
    let records: Vec<NewRecord> = values
        .iter()
        .enumerate()
        .map(|(i, v)| NewRecord { timestamp: 2_000 + i as i64, key: None, value: Some(v.clone()), headers: vec![] })
        .collect();
    fs::write(meta.join("00000000000000000000.log"), encode_batch(&BatchSpec::plain(0, 0), &records)).unwrap();
    let local = data.join("t-0");
    fs::create_dir_all(&local).unwrap();
    fs::write(local.join("00000000000000000003.log"), b"").unwrap();
    fs::write(data.join("log-start-offset-checkpoint"), "0\n1\nt 0 0\n").unwrap();

    let remote = root.join("remote");
    let tp = remote.join(format!("kafka-tiered-storage/t-0-{}", replica_lab::util::base64_url(&TOPIC_ID)));
    fs::create_dir_all(&tp).unwrap();
    let stem = format!("00000000000000000000-{}", replica_lab::util::base64_url(&SEGMENT_A));
    fs::write(tp.join(format!("{stem}.log")), &log).unwrap();
    for suffix in [".index", ".timeindex"] {
        fs::write(tp.join(format!("{stem}{suffix}")), b"").unwrap();
    }
    // A producer snapshot of no producers, as a real cluster's remote segments hold it.
    fs::write(tp.join(format!("{stem}.snapshot")), replica_lab::format::producer_snapshot::encode(&[])).unwrap();
    fs::write(tp.join(format!("{stem}.leader_epoch_checkpoint")), "0\n1\n0 0\n").unwrap();
    (data, remote)
}

#[test]
fn dump_names_every_remote_log_metadata_record_and_its_state() {
    let tmp = tempfile::tempdir().unwrap();
    let (data, _) = tiered(tmp.path());
    let dir = data.join("__remote_log_metadata-0");
    let lines = json_lines(&ok(&["dump", "--json", s(&dir)]));
    let names: Vec<&str> =
        lines.iter().filter(|l| l["type"] == "record").map(|l| l["decoded"]["name"].as_str().unwrap()).collect();
    assert_eq!(
        names,
        [
            "RemoteLogSegmentMetadataRecord",
            "RemoteLogSegmentMetadataUpdateRecord",
            "RemoteLogSegmentMetadataRecord",
            "RemoteLogSegmentMetadataUpdateRecord"
        ]
    );
    let first = lines.iter().find(|l| l["type"] == "record").unwrap();
    assert_eq!(first["decoded"]["kind"], "remote_log_metadata");
    assert_eq!(first["decoded"]["data"]["endOffset"], 2);
    let table = ok(&["--width", "0", "dump", s(&dir)]);
    assert!(table.contains("RemoteLogSegmentMetadataRecord remoteLogSegmentId={topicIdPartition={name=t"), "{table}");
    assert!(table.contains("(COPY_SEGMENT_FINISHED)") && table.contains("(DELETE_SEGMENT_FINISHED)"), "{table}");
}

#[test]
fn remote_folds_the_table_and_names_the_rejected_event_and_the_unfinished_copy() {
    let tmp = tempfile::tempdir().unwrap();
    let (data, remote) = tiered(tmp.path());
    let (out, _) = code(&["remote", "--json", s(&data), "--remote-dir", s(&remote)], 1);
    let lines = json_lines(&out);
    let segments: Vec<_> = lines.iter().filter(|l| l["type"] == "remote_segment").collect();
    assert_eq!(segments.len(), 2, "{lines:?}");
    assert_eq!(
        (segments[0]["start_offset"].as_i64(), segments[0]["state"].as_str()),
        (Some(0), Some("COPY_SEGMENT_FINISHED"))
    );
    assert_eq!(
        (segments[1]["start_offset"].as_i64(), segments[1]["state"].as_str()),
        (Some(3), Some("COPY_SEGMENT_STARTED"))
    );
    let findings: Vec<&str> =
        lines.iter().filter(|l| l["type"] == "finding").map(|l| l["finding"].as_str().unwrap()).collect();
    assert_eq!(findings, ["rejected", "copy-not-finished"], "{lines:?}");
    let rejected = lines.iter().find(|l| l["finding"] == "rejected").unwrap();
    assert_eq!(rejected["offset"], 3);
    assert_eq!(rejected["what"], "COPY_SEGMENT_FINISHED can not be transitioned to DELETE_SEGMENT_FINISHED");
    let local = lines.iter().find(|l| l["type"] == "local").unwrap();
    assert_eq!((local["log_start_offset"].as_i64(), local["local_log_start_offset"].as_i64()), (Some(0), Some(3)));
    let summary = lines.iter().find(|l| l["type"] == "summary").unwrap();
    assert_eq!((summary["records_read"].as_u64(), summary["filesets_verified_count"].as_u64()), (Some(4), Some(1)));

    // `dump` shows both starts too: the local one and the checkpoint's, across the tiers.
    let header = ok(&["dump", s(&data.join("t-0"))]);
    assert!(
        header.contains("log start 3 (local; log-start-offset-checkpoint 0: the log start across tiers if tiered)"),
        "{header}"
    );
    let dumped = json_lines(&ok(&["dump", "--json", s(&data.join("t-0"))]));
    assert_eq!(dumped[0]["log_start_offset_checkpoint_below_local"], 0, "{dumped:?}");

    let (text, _) = code(&["remote", s(&data)], 1);
    assert!(
        text.contains("log start 0 (log-start-offset-checkpoint), local log start 3 (first local segment)"),
        "{text}"
    );
    assert!(text.contains("copy not finished: t-0 segment"), "{text}");
}

#[test]
fn remote_finds_a_damaged_remote_log_a_gap_and_files_without_metadata() {
    let tmp = tempfile::tempdir().unwrap();
    let (data, remote) = tiered(tmp.path());
    let tp = fs::read_dir(remote.join("kafka-tiered-storage")).unwrap().next().unwrap().unwrap().path();
    let log = fs::read_dir(&tp).unwrap().map(|e| e.unwrap().path()).find(|p| p.extension().unwrap() == "log").unwrap();
    let mut bytes = fs::read(&log).unwrap();
    let last = bytes.len() - 1;
    bytes[last] ^= 0xff;
    fs::write(&log, bytes).unwrap();
    fs::write(tp.join(format!("00000000000000000009-{}.log", replica_lab::util::base64_url(&[0xc; 16]))), b"").unwrap();
    // The local log now starts at 7: offsets 3..6 are in neither tier.
    fs::rename(data.join("t-0/00000000000000000003.log"), data.join("t-0/00000000000000000007.log")).unwrap();
    let (out, _) = code(&["remote", "--json", s(&data), "--remote-dir", s(&remote)], 1);
    let lines = json_lines(&out);
    let findings: Vec<&str> =
        lines.iter().filter(|l| l["type"] == "finding").map(|l| l["finding"].as_str().unwrap()).collect();
    for want in ["log-mismatch", "files-without-metadata", "tier-gap"] {
        assert!(findings.contains(&want), "{want}: {lines:?}");
    }
    let gap = lines.iter().find(|l| l["finding"] == "tier-gap").unwrap();
    assert_eq!(gap["what"], "t-0 offsets 3..6 are neither in a finished remote segment nor local");
}

#[test]
fn a_remote_dir_not_in_local_tiered_storage_layout_is_an_error_naming_it() {
    let tmp = tempfile::tempdir().unwrap();
    let (data, _) = tiered(tmp.path());
    let (_, err) = code(&["remote", s(&data), "--remote-dir", s(tmp.path())], 2);
    assert!(err.contains(s(tmp.path())) && err.contains("no kafka-tiered-storage dir here"), "{err}");
}

/// The fixture's remote fileset of segment A: its dir and file stem.
fn fileset_a(remote: &Path) -> (PathBuf, String) {
    let tp = remote.join(format!("kafka-tiered-storage/t-0-{}", replica_lab::util::base64_url(&TOPIC_ID)));
    (tp, format!("00000000000000000000-{}", replica_lab::util::base64_url(&SEGMENT_A)))
}

#[test]
fn check_of_a_tiered_data_dir_shows_both_log_starts_and_the_findings_across_the_tiers() {
    let tmp = tempfile::tempdir().unwrap();
    let (data, remote) = tiered(tmp.path());
    // Without --remote-dir: the metadata alone (the dir holds __remote_log_metadata).
    let (text, _) = code(&["--width", "0", "check", s(&data)], 1);
    assert!(text.contains("tiered storage: 1 partition(s) with remote segments"), "{text}");
    let row = text.lines().find(|l| l.trim_start().starts_with("t-0 ") && l.contains("0..5")).expect(&text);
    let cells: Vec<&str> = row.split_whitespace().collect();
    // partition, broker (the fixture has no meta.properties: the dir), log start, local log start.
    assert_eq!((cells[2], cells[3]), ("0", "3"), "{row}");
    assert!(text.contains("finding rejected:") && text.contains("finding copy-not-finished:"), "{text}");
    assert!(text.contains("across the tiers: 2 finding(s)"), "{text}");

    let lines = json_lines(&code(&["check", "--json", s(&data), "--remote-dir", s(&remote)], 1).0);
    let part = lines.iter().find(|l| l["type"] == "tiered_partition").expect("a tiered partition line");
    assert_eq!(
        (
            part["log_start_offset"].as_i64(),
            part["local_log_start_offset"].as_i64(),
            part["remote_segment_count"].as_u64()
        ),
        (Some(0), Some(3), Some(2))
    );
    let summary = lines.iter().find(|l| l["type"] == "tiered_summary").unwrap();
    assert_eq!(
        (summary["finding_count"].as_u64(), summary["filesets_count"].as_u64()),
        (Some(2), Some(1)),
        "{lines:?}"
    );

    // A dir with no __remote_log_metadata and no --remote-dir: no tiered section.
    let plain = tmp.path().join("plain");
    ok(&["create", s(&plain)]);
    assert!(!ok(&["check", s(&plain)]).contains("tiered storage"));
    // A remote dir that does not read fails the whole check, before anything is printed.
    let (out, err) = code(&["check", s(&plain), "--remote-dir", s(&plain)], 2);
    assert!(out.is_empty() && err.contains("no kafka-tiered-storage dir here"), "{out}{err}");
}

#[test]
fn each_remote_segment_file_dumps_like_the_local_file_of_its_kind() {
    let tmp = tempfile::tempdir().unwrap();
    let (_, remote) = tiered(tmp.path());
    let (tp, stem) = fileset_a(&remote);
    let log = json_lines(&ok(&["dump", "--json", s(&tp.join(format!("{stem}.log")))]));
    let offsets: Vec<i64> =
        log.iter().filter(|l| l["type"] == "record").map(|l| l["offset"].as_i64().unwrap()).collect();
    assert_eq!(offsets, [0, 1, 2], "{log:?}");
    let epochs = ok(&["dump", s(&tp.join(format!("{stem}.leader_epoch_checkpoint")))]);
    assert!(epochs.contains("epoch") && epochs.lines().any(|l| l.split_whitespace().eq(["0", "0"])), "{epochs}");
    let snapshot = ok(&["dump", s(&tp.join(format!("{stem}.snapshot")))]);
    assert!(snapshot.contains("0 producer(s)"), "{snapshot}");
    // An index entry is checked against the remote .log beside it (same stem), not a local one.
    let mut entry = Vec::new();
    entry.extend(2i32.to_be_bytes());
    entry.extend(0i32.to_be_bytes());
    fs::write(tp.join(format!("{stem}.index")), &entry).unwrap();
    let index = json_lines(&ok(&["dump", "--json", s(&tp.join(format!("{stem}.index")))]));
    let e = index.iter().find(|l| l["type"] == "index_entry").expect("an index entry");
    assert_eq!(e["offset"], 2, "{index:?}");
    assert_ne!(e["check"], "no_log", "{index:?}");
}

#[test]
fn a_remote_index_that_does_not_match_its_log_is_a_finding() {
    let tmp = tempfile::tempdir().unwrap();
    let (data, remote) = tiered(tmp.path());
    let (tp, stem) = fileset_a(&remote);
    // Offset 2 said to start at byte 40: no batch starts there.
    let mut entry = Vec::new();
    entry.extend(2i32.to_be_bytes());
    entry.extend(40i32.to_be_bytes());
    fs::write(tp.join(format!("{stem}.index")), &entry).unwrap();
    fs::write(tp.join(format!("{stem}.snapshot")), b"\x00\x01").unwrap();
    let lines = json_lines(&code(&["remote", "--json", s(&data), "--remote-dir", s(&remote)], 1).0);
    let kinds: Vec<&str> =
        lines.iter().filter(|l| l["type"] == "finding").map(|l| l["finding"].as_str().unwrap()).collect();
    assert!(kinds.contains(&"index-mismatch"), "{lines:?}");
    let snapshot = lines.iter().find(|l| l["finding"] == "unreadable").expect("the cut snapshot");
    assert!(snapshot["path"].as_str().unwrap().ends_with(".snapshot"), "{snapshot}");
}

/// The fixture's data dir as a tiered leader of t-0 (its cache: epoch 0 from 0), and a second
/// broker's dir whose t-0 is empty: a follower far below the leader's local log start (3).
fn tiered_pair(root: &Path) -> (PathBuf, PathBuf, PathBuf) {
    let (data, remote) = tiered(root);
    fs::write(data.join("t-0/leader-epoch-checkpoint"), "0\n1\n0 0\n").unwrap();
    let follower = root.join("data2");
    fs::create_dir_all(follower.join("t-0")).unwrap();
    fs::write(follower.join("t-0/00000000000000000000.log"), b"").unwrap();
    for (dir, node) in [(&data, 1), (&follower, 2)] {
        let meta = format!("version=1\nnode.id={node}\ncluster.id=q1Sh-9_ISia_zwGINzRvyQ\n");
        fs::write(dir.join("meta.properties"), meta).unwrap();
    }
    (data, follower, remote)
}

/// `ReplicaFetcherTierStateMachine.buildRemoteLogAuxState` (3.6.0): the follower's fetch at 0 is
/// below the leader's local log start 3, so it rebuilds from the remote segment holding offset 2
/// in epoch 0 (segment A, 0..2): it restarts at 3 with log start 0 and A's epoch cache.
#[test]
fn recover_below_a_tiered_leaders_local_start_plans_the_restart_from_remote_storage() {
    let tmp = tempfile::tempdir().unwrap();
    let (leader, follower, remote) = tiered_pair(tmp.path());
    let args = ["recover", "--dry-run", "--partition", "t-0", "--leader", s(&leader), s(&follower)];
    let text = ok(&[&["--width", "0"], &args[..], &["--remote-dir", s(&remote), "--explain"]].concat());
    assert!(text.contains("moved to tiered storage: the leader keeps offsets 0..2 in remote storage only"), "{text}");
    let segment = replica_lab::util::base64_url(&SEGMENT_A);
    assert!(text.contains(&format!("3. remote segment {segment} (offsets 0..2) holds offset 2 in epoch 0")), "{text}");
    assert!(text.contains("epoch cache [(0 0)] from the remote segment's .leader_epoch_checkpoint"), "{text}");
    assert!(
        text.contains("if fetch_offset < leader.local_log_start:  # OFFSET_MOVED_TO_TIERED_STORAGE ◀ yes (0 < 3)"),
        "{text}"
    );
    let doc = json_lines(&ok(&[&args[..], &["--json", "--remote-dir", s(&remote)]].concat()));
    let aux = &doc.iter().find(|l| l.get("from_remote").is_some()).expect("from_remote")["from_remote"];
    assert_eq!(
        (aux["next_offset"].as_i64(), aux["epochs_from"].as_str()),
        (Some(3), Some("remote_checkpoint")),
        "{aux}"
    );
    // Without the remote dir the leader's own cache stands in, and says so.
    let doc = json_lines(&ok(&[&args[..], &["--json"]].concat()));
    let aux = &doc.iter().find(|l| l.get("from_remote").is_some()).unwrap()["from_remote"];
    assert_eq!(aux["epochs_from"], "leader_cache", "{aux}");
    // 3.5.2 has no tiered storage: a restart at the (local) log start, nothing from remote.
    let old = json_lines(&ok(&[&args[..], &["--json", "--kafka", "3.5.2"]].concat()));
    assert!(old.iter().all(|l| l.get("from_remote").is_none()), "{old:?}");
    // klog does not write such a restart: refused before anything is written.
    let before = tree(&follower);
    let (_, err) =
        code(&["recover", "--partition", "t-0", "--leader", s(&leader), s(&follower), "--allow-broker-dir-writes"], 2);
    assert!(err.contains("keeps remote storage (tiered)") && err.contains("--dry-run"), "{err}");
    assert_eq!(tree(&follower), before);
}

/// A log whose older segments went to remote storage: klog writes epochs 0 (m0..m3) and 1
/// (n4..n7) in 2-record segments, then the segments below 6 are deleted as local retention
/// deletes copied ones, with the log start across tiers (0) left in `log-start-offset-checkpoint`
/// as Kafka 4.4 writes it for a tiered log. The epoch cache still says (0 0) (1 4): epoch 0 lies
/// wholly below the local log start and epoch 1's first local batch is at 6. Neither is a
/// disagreement.
#[test]
fn epoch_cache_entries_whose_batches_are_below_the_local_log_start_are_not_disagreements() {
    let tmp = tempfile::tempdir().unwrap();
    let a = tmp.path().join("a");
    ok(&["create", s(&a), "--segment-bytes", "200"]);
    ok(&["elect", s(&a), "--epoch", "0"]);
    ok(&["append", s(&a), "m0", "m1", "m2", "m3", "--records-per-batch", "1"]);
    ok(&["elect", s(&a), "--epoch", "1"]);
    ok(&["append", s(&a), "n4", "n5", "n6", "n7", "--records-per-batch", "1"]);
    let partition = a.join("demo-0");
    for base in [0, 2, 4] {
        for suffix in ["log", "index", "timeindex", "snapshot"] {
            let _ = fs::remove_file(partition.join(format!("{base:020}.{suffix}")));
        }
    }
    fs::write(a.join("log-start-offset-checkpoint"), "0\n1\ndemo 0 0\n").unwrap();
    let rows = json_lines(&ok(&["dump", "--json", "--epochs", s(&a)]));
    let agreements: Vec<(i64, &str)> = rows
        .iter()
        .filter(|l| l["type"] == "epoch")
        .map(|l| (l["leader_epoch"].as_i64().unwrap(), l["agreement"].as_str().unwrap()))
        .collect();
    assert_eq!(agreements, [(0, "below_local_start"), (1, "agrees")], "{rows:?}");
    let check = ok(&["--width", "0", "check", s(&a)]);
    assert!(check.contains("epoch 0 (offsets 0..3) lies below the local log start 6 (log start 0"), "{check}");
    assert!(!check.contains("compacted away"), "{check}");
    // The same log with its log start at the first segment (not tiered): epoch 1 disagrees.
    fs::write(a.join("log-start-offset-checkpoint"), "0\n1\ndemo 0 6\n").unwrap();
    let rows = json_lines(&ok(&["dump", "--json", "--epochs", s(&a)]));
    assert!(rows.iter().any(|l| l["type"] == "epoch" && l["agreement"] == "start_differs"), "{rows:?}");
}

/// Broker `node`'s dir beside `tiered`'s: `t-0` holding offsets 3..5 locally at `leader_epoch`,
/// with the epoch cache `cache` (`<epoch> <start offset>` lines).
fn broker_replica(data: &Path, node: i32, leader_epoch: i32, cache: &str) {
    let local = data.join("t-0");
    fs::create_dir_all(&local).unwrap();
    let records: Vec<NewRecord> = (0..3)
        .map(|i| NewRecord { timestamp: 3_000 + i, key: None, value: Some(vec![b'x' + i as u8]), headers: vec![] })
        .collect();
    fs::write(local.join("00000000000000000003.log"), encode_batch(&BatchSpec::plain(3, leader_epoch), &records))
        .unwrap();
    let lines = cache.lines().count();
    fs::write(local.join("leader-epoch-checkpoint"), format!("0\n{lines}\n{cache}")).unwrap();
    fs::write(data.join("log-start-offset-checkpoint"), "0\n1\nt 0 0\n").unwrap();
    fs::write(data.join("meta.properties"), format!("version=1\nnode.id={node}\ncluster.id=c\n")).unwrap();
}

#[test]
fn remote_forecasts_what_each_broker_deletes_and_serves_if_it_leads_and_what_no_one_serves() {
    let tmp = tempfile::tempdir().unwrap();
    let (data1, remote) = tiered(tmp.path());
    // Broker 1 led at epoch 0 (segment A, 0..2, is its copy); broker 2's cache starts at epoch
    // 2 (its lineage from offset 3), as after an unclean election and a rebuild from remote.
    broker_replica(&data1, 1, 0, "0 0\n");
    let data2 = tmp.path().join("data2");
    broker_replica(&data2, 2, 2, "2 3\n");
    let (out, _) = code(&["remote", "--json", s(&data1), s(&data2), "--remote-dir", s(&remote)], 1);
    let lines = json_lines(&out);
    let forecast = |broker: i64| {
        lines
            .iter()
            .find(|l| l["type"] == "leader_forecast" && l["broker_id"] == broker)
            .unwrap_or_else(|| panic!("{lines:?}"))
    };
    // Broker 1: segment A and the unfinished copy B are within its lineage; Kafka's default
    // retention.ms (7 days) is long past their 2023 timestamps: both go by time, and the log
    // start moves past them.
    let b1 = forecast(1);
    let causes: Vec<(i64, &str)> = b1["deletions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| (d["start_offset"].as_i64().unwrap(), d["cause"].as_str().unwrap()))
        .collect();
    assert_eq!(causes, [(0, "retention.ms breach"), (3, "retention.ms breach")], "{b1}");
    assert_eq!(
        (b1["retention_ms"].as_i64(), b1["retention_ms_source"].as_str()),
        (Some(604_800_000), Some("Kafka's default"))
    );
    assert_eq!(b1["log_start_offset_after"], 6, "{b1}");
    // Broker 2: every remote epoch lies below its earliest, 2: leader-epoch-cache truncation,
    // and its log start becomes its local log start (no remote segment of epoch 2).
    let b2 = forecast(2);
    let causes: Vec<(i64, &str)> = b2["deletions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| (d["start_offset"].as_i64().unwrap(), d["cause"].as_str().unwrap()))
        .collect();
    assert_eq!(causes, [(0, "leader-epoch-cache truncation"), (3, "leader-epoch-cache truncation")], "{b2}");
    assert_eq!(b2["log_start_offset_after"], 3, "{b2}");
    assert_eq!(b2["segments"][0]["within_lineage"], false, "{b2}");
    let reads: Vec<(i64, i64, &str)> = b2["reads"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            (r["first_offset"].as_i64().unwrap(), r["last_offset"].as_i64().unwrap(), r["source"].as_str().unwrap())
        })
        .collect();
    assert_eq!(reads, [(3, 5, "local")], "{b2}");
    // No one serves segment A: its three records are still in its remote .log.
    let salvage: Vec<&serde_json::Value> = lines.iter().filter(|l| l["type"] == "salvage").collect();
    assert_eq!(salvage.len(), 1, "{lines:?}");
    assert_eq!(
        (
            salvage[0]["first_record_offset"].as_i64(),
            salvage[0]["last_record_offset"].as_i64(),
            salvage[0]["record_count"].as_u64()
        ),
        (Some(0), Some(2), Some(3))
    );
    // Forecasts are not findings: the same two findings as without them.
    let findings = lines.iter().filter(|l| l["type"] == "finding").count();
    assert_eq!(findings, 2, "{lines:?}");

    let (text, _) = code(&["remote", s(&data1), s(&data2), "--remote-dir", s(&remote)], 1);
    assert!(
        text.contains("if broker 2 leads, Kafka deletes 2 segment(s), offsets 0..5 (2 by leader-epoch-cache truncation); earliest offset after: 3"),
        "{text}"
    );
    assert!(text.contains("no current leader: no metadata log in the dirs"), "{text}");
    assert!(text.contains("3 record(s), offsets 0..2 still in its remote .log"), "{text}");
}

/// `--retention-bytes`: what the next expiration deletes if the topic is altered to it
/// (`buildRetentionSizeData`, RemoteLogManager.java:1643-1700@4.4.0: the local segments above the
/// highest remote offset plus the finished copies within the lineage; real brokers judge it in
/// tests/kafka/real_tiered.rs). `check` says what the leader's next expiration deletes.
#[test]
fn remote_forecasts_retention_by_size_and_check_says_what_expires_next() {
    let tmp = tempfile::tempdir().unwrap();
    let (data1, remote) = tiered(tmp.path());
    broker_replica(&data1, 1, 0, "0 0\n");
    let local = fs::metadata(data1.join("t-0/00000000000000000003.log")).unwrap().len();
    // The log is the local segment (above the highest remote offset, 2) and segment A: keeping
    // `local` bytes deletes A, whose size fits the breach exactly; the walk stops at B.
    // `klog remote --json` with retention by size alone: broker 1's forecast.
    let forecast_keeping = |bytes: u64| {
        let bytes = bytes.to_string();
        let args = [
            "remote",
            "--json",
            s(&data1),
            "--remote-dir",
            s(&remote),
            "--retention-ms",
            "-1",
            "--retention-bytes",
            &bytes,
        ];
        let (out, _) = code(&args, 1);
        json_lines(&out).into_iter().find(|l| l["type"] == "leader_forecast").unwrap_or_else(|| panic!("{out}"))
    };
    let b1 = forecast_keeping(local);
    let causes: Vec<(i64, &str)> = b1["deletions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| (d["start_offset"].as_i64().unwrap(), d["cause"].as_str().unwrap()))
        .collect();
    assert_eq!(causes, [(0, "retention.bytes breach")], "{b1}");
    assert_eq!(b1["log_start_offset_after"], 3, "{b1}");
    assert_eq!(
        (b1["retention_bytes"].as_i64(), b1["retention_bytes_source"].as_str(), b1["retention_ms"].as_i64()),
        (Some(local as i64), Some("--retention-bytes"), Some(-1))
    );
    // One byte more to keep: A no longer fits the breach, nothing goes.
    let b1 = forecast_keeping(local + 1);
    assert_eq!(b1["deletions"].as_array().map(Vec::len), Some(0), "{b1}");
    let (_, err) = code(&["remote", s(&data1), "--retention-bytes", "-2"], 2);
    assert!(err.contains("-2"), "{err}");

    // With the KRaft metadata naming broker 1 the leader of t-0, `check` says what its next
    // expiration deletes: A and B, whose 2023 timestamps are past Kafka's default 7 days.
    let meta = data1.join("__cluster_metadata-0");
    fs::create_dir_all(&meta).unwrap();
    let topic_t = [&[1u8, 2, 0, 2][..], b"t", &TOPIC_ID, &[0]].concat();
    let values = [topic_t, crate::history::partition_record(&[1], 1)];
    let records: Vec<NewRecord> = values
        .iter()
        .map(|v| NewRecord { timestamp: 1_000, key: None, value: Some(v.clone()), headers: vec![] })
        .collect();
    fs::write(meta.join("00000000000000000000.log"), encode_batch(&BatchSpec::plain(0, 1), &records)).unwrap();
    let (out, _) = code(&["check", "--json", s(&data1), "--remote-dir", s(&remote)], 1);
    let notes: Vec<serde_json::Value> =
        json_lines(&out).into_iter().filter(|l| l["type"] == "tiered_note" && l["finding"] == "expires-next").collect();
    assert_eq!(notes.len(), 1, "{out}");
    assert!(
        notes[0]["what"].as_str().unwrap().starts_with(
            "t-0: the next remote expiration of broker 1 (the leader) deletes 2 segment(s), offsets 0..5 (2 by \
             retention.ms breach), and the earliest offset becomes 6 (retention.ms 604800000 from Kafka's default"
        ),
        "{}",
        notes[0]
    );
}

/// Kafka's metadata manager consumes `__remote_log_metadata` below its high watermark only
/// (a consumer reads no further): events at or above it are folded and named apart.
#[test]
fn metadata_events_above_the_metadata_partitions_high_watermark_are_named() {
    let tmp = tempfile::tempdir().unwrap();
    let (data1, remote) = tiered(tmp.path());
    // The four events sit at offsets 0..3; the HW says 2.
    fs::write(data1.join("replication-offset-checkpoint"), "0\n1\n__remote_log_metadata 0 2\n").unwrap();
    let (out, _) = code(&["remote", "--json", s(&data1), "--remote-dir", s(&remote)], 1);
    let lines = json_lines(&out);
    let meta = lines.iter().find(|l| l["type"] == "metadata_partition").unwrap();
    assert_eq!((meta["high_watermark"].as_i64(), meta["log_end_offset"].as_i64()), (Some(2), Some(4)), "{meta}");
    let notes: Vec<&serde_json::Value> =
        lines.iter().filter(|l| l["type"] == "note" && l["note"] == "metadata-above-hw").collect();
    assert_eq!(notes.len(), 1, "{out}");
    assert!(
        notes[0]["what"].as_str().unwrap().starts_with(
            "t-0: 2 event(s) of __remote_log_metadata-0 (offsets 2..3) lie at or above its high watermark 2"
        ),
        "{}",
        notes[0]
    );
    // With the HW at the log end, nothing is said.
    fs::write(data1.join("replication-offset-checkpoint"), "0\n1\n__remote_log_metadata 0 4\n").unwrap();
    let (out, _) = code(&["remote", "--json", s(&data1), "--remote-dir", s(&remote)], 1);
    assert!(!out.contains("metadata-above-hw"), "{out}");
}

/// One cluster's `__remote_log_metadata` describes one cluster's remote storage: `klog remote`
/// over brokers of two clusters is refused naming both, unless `--allow-other-cluster`.
#[test]
fn remote_over_dirs_of_two_clusters_is_refused_unless_asked() {
    let tmp = tempfile::tempdir().unwrap();
    let (leader, follower, _) = tiered_pair(tmp.path());
    code(&["remote", s(&leader), s(&follower)], 1);
    fs::write(follower.join("meta.properties"), "version=1\nnode.id=2\ncluster.id=AAAAAAAAAAAAAAAAAAAAAA\n").unwrap();
    let (out, err) = code(&["remote", s(&leader), s(&follower)], 2);
    assert!(out.is_empty(), "{out}");
    assert!(err.contains("q1Sh-9_ISia_zwGINzRvyQ") && err.contains("AAAAAAAAAAAAAAAAAAAAAA"), "{err}");
    assert!(err.contains("--allow-other-cluster") && err.lines().count() == 1, "{err}");
    code(&["remote", s(&leader), s(&follower), "--allow-other-cluster"], 1);
}
