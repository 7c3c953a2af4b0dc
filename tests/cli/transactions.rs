//! `klog txn` (issue #32): what holds the last stable offset. Through the binary on hand-made
//! transactional logs (tests/support/txn_logs.rs) and on the real broker dirs. Kafka's own
//! producer-state code judges a generated corpus and the real dirs in the Kafka tier
//! (tests/kafka/oracle_transactions.rs).

use crate::common::*;
use crate::txn_logs::*;
use replica_lab::format::batch::{encode_batch, BatchSpec};
use replica_lab::format::record::NewRecord;
use serde_json::Value;

#[test]
fn an_open_transaction_holds_the_lso_and_a_stale_snapshot_is_the_snapshot_only_hang() {
    let tmp = tempfile::tempdir().unwrap();
    let t = now_ms();
    let log = [data(7, 0, 0, 2, true, t), marker(7, 2, true, t), data(8, 3, 0, 1, true, t), plain(4, t)].concat();
    // Stopped uncleanly: the broker's load rebuilds the producer table from the log.
    let d = broker_dir(tmp.path(), "open", &log, false);
    std::fs::write(d.join("replication-offset-checkpoint"), "0\n1\ndemo 0 5\n").unwrap();
    let out = ok(&["txn", s(&d)]);
    assert!(out.contains("LSO 3  HW 5  LEO 5: read_committed consumers stop at offset 3: 2 offset(s)"), "{out}");
    assert!(out.contains("open producer 8 epoch 0: offsets 3 to 3, 1 batch(es), 1 record(s)"), "{out}");
    assert!(out.contains("abort --topic demo --partition 0 --start-offset 3"), "{out}");
    assert!(out.contains("transactions ended: 1 committed, 0 aborted; 2 producer(s)"), "{out}");
    let j: Value = serde_json::from_str(ok(&["txn", s(&d), "--json"]).trim()).unwrap();
    assert_eq!(j["last_stable_offset"], 3);
    assert_eq!(j["open"][0]["producer_id"], 8);
    assert_eq!(j["open"][0]["in_log"], true);

    // Shut down cleanly with a snapshot at offset 3 written before the COMMIT was seen
    // (producer 7 still open from 0): the broker loads it as it is.
    std::fs::write(d.join("demo-0/00000000000000000003.snapshot"), table_at(&log, 2)).unwrap();
    std::fs::write(d.join(".kafka_cleanshutdown"), b"").unwrap();
    let (out, _) = code(&["txn", s(&d)], 1);
    assert!(out.contains("LSO 0  HW 5"), "{out}");
    assert!(out.contains("the snapshot-only hang"), "{out}");
    assert!(out.contains("only the producer snapshot does"), "{out}");
    // After an unclean stop the broker recovers the segment from its base and deletes the
    // snapshot above it: the log decides again (the file still disagrees with the log).
    std::fs::remove_file(d.join(".kafka_cleanshutdown")).unwrap();
    let (out, _) = code(&["txn", s(&d)], 1);
    assert!(out.contains("LSO 3  HW 5"), "{out}");
    // Shut down cleanly with no snapshot at all: Kafka starts with no producers and scans
    // nothing, so nothing holds the LSO although the log has a transaction open.
    std::fs::remove_file(d.join("demo-0/00000000000000000003.snapshot")).unwrap();
    std::fs::write(d.join(".kafka_cleanshutdown"), b"").unwrap();
    let (out, _) = code(&["txn", s(&d)], 1);
    assert!(out.contains("LSO 5  HW 5"), "{out}");
    assert!(out.contains("starts with no producers and scans nothing"), "{out}");
}

/// The real broker dirs hold no open transaction (their producers are not idempotent); Kafka's
/// load judges every partition in the Kafka tier (tests/kafka/oracle_transactions.rs).
#[test]
fn the_real_broker_dirs_hold_no_open_transaction() {
    let Some(real) = kafka_real() else { return };
    for (dir, partition) in [("zk-broker-2020", "first_topic-0"), ("zk-broker-2021", "subhash-0")] {
        let d = real.join(dir);
        let j: Value = serde_json::from_str(ok(&["txn", s(&d), "--partition", partition, "--json"]).trim()).unwrap();
        assert_eq!(j["open"], serde_json::json!([]), "{dir}: {j}");
        assert_eq!(j["last_stable_offset"], j["high_watermark"], "{dir}: {j}");
        assert_eq!(j["clean"], true, "{dir}: {j}");
    }
}

#[test]
fn a_data_dir_lists_the_partitions_whose_lso_is_held_and_their_open_transactions() {
    let lab = Lab::new();
    let d = lab.path("b");
    ok(&["create", s(&d), "--replica-id", "2", "--topic", "orders", "--partitions", "3"]);
    for p in ["orders-0", "orders-1", "orders-2"] {
        ok(&["elect", s(&d), "--partition", p]);
    }
    ok(&["append", s(&d), "--partition", "orders-1", "a", "b"]);
    ok(&["append", s(&d), "--partition", "orders-1", "t", "--producer-id", "9", "--transactional"]);
    ok(&["append", s(&d), "--partition", "orders-1", "c"]);
    ok(&["append", s(&d), "--partition", "orders-2", "x", "--producer-id", "5", "--transactional"]);
    ok(&["append", s(&d), "--partition", "orders-2", "--producer-id", "5", "--end-txn", "commit"]);
    let out = ok(&["txn", s(&d)]);
    let row = out.lines().find(|l| l.trim_start().starts_with("orders-1 ")).unwrap_or_else(|| panic!("{out}"));
    let cells: Vec<&str> = row.split_whitespace().collect();
    assert_eq!(cells, ["orders-1", "2", "4", "4", "2", "1", "clean"], "{out}");
    assert!(!out.contains("orders-0 ") && !out.contains("orders-2 "), "only the held partition is listed: {out}");
    assert!(out.contains("abort --topic orders --partition 1 --start-offset 2"), "{out}");
    assert!(out.contains("3 partition(s), 1 holding read_committed consumers back, 0 unreadable: clean"), "{out}");
    let lines = json_lines(&ok(&["txn", s(&d), "--json"]));
    assert_eq!(lines.len(), 4, "three partitions and a summary");
    let lsos: Vec<i64> = lines[..3].iter().map(|l| l["last_stable_offset"].as_i64().unwrap()).collect();
    assert_eq!(lsos, [0, 2, 2]);
    assert_eq!(lines[2]["committed"], 1);
    assert_eq!(lines[3]["type"], "summary");
}

/// One `__transaction_state` record, version 0 (`TransactionLogKey` / `TransactionLogValue`):
/// transactional.id, producer id, status id (1 Ongoing, 4 CompleteCommit) and the partitions.
pub(crate) fn coordinator_record(id: &str, producer: i64, status: i8, partitions: &[(&str, i32)], t: i64) -> NewRecord {
    let string = |s: &str| [&(s.len() as i16).to_be_bytes()[..], s.as_bytes()].concat();
    let key = [&0i16.to_be_bytes()[..], &string(id)].concat();
    let mut value = Vec::new();
    value.extend(0i16.to_be_bytes());
    value.extend(producer.to_be_bytes());
    value.extend(0i16.to_be_bytes());
    value.extend(60_000i32.to_be_bytes());
    value.push(status as u8);
    value.extend((partitions.len() as i32).to_be_bytes());
    for (topic, p) in partitions {
        value.extend(string(topic));
        value.extend(1i32.to_be_bytes());
        value.extend(p.to_be_bytes());
    }
    value.extend(t.to_be_bytes());
    value.extend(t.to_be_bytes());
    NewRecord { timestamp: t, key: Some(key), value: Some(value), headers: vec![] }
}

/// With the coordinator's log in the same data dir, find-hanging's rule: an open transaction
/// whose transactional.id lists the partition is expected to end; one whose id does not list it
/// (its transaction completed) or whose producer id no id has is hanging.
#[test]
fn the_coordinators_log_beside_the_partitions_tells_an_expected_transaction_from_a_hanging_one() {
    let lab = Lab::new();
    let d = lab.path("b");
    let t = now_ms();
    ok(&["create", s(&d), "--replica-id", "1", "--topic", "orders"]);
    ok(&["create", s(&d), "--replica-id", "1", "--topic", "__transaction_state"]);
    ok(&["elect", s(&d), "--partition", "orders-0"]);
    for (producer, v) in [(9, "a"), (10, "b"), (11, "c")] {
        let id = producer.to_string();
        ok(&["append", s(&d), "--partition", "orders-0", v, "--producer-id", &id, "--transactional"]);
    }
    let records = [
        coordinator_record("app-a", 9, 1, &[("orders", 0)], t),
        coordinator_record("app-b", 10, 4, &[], t),
        coordinator_record("app-c", 12, 1, &[("orders", 0)], t),
    ];
    let log = encode_batch(&BatchSpec::plain(0, 0), &records);
    std::fs::write(d.join("__transaction_state-0/00000000000000000000.log"), log).unwrap();
    std::fs::remove_file(d.join("klog-state.json")).unwrap();
    let out = ok(&["txn", s(&d)]);
    assert!(out.contains("the coordinator expects it: transactional.id app-a is Ongoing"), "{out}");
    assert!(
        out.contains("HANGING: transactional.id app-b is CompleteCommit and does not list this partition"),
        "{out}"
    );
    assert!(
        out.contains("HANGING?: no transactional.id in the 1 __transaction_state partition(s) read has producer id 11"),
        "{out}"
    );
    assert!(
        out.contains("transaction coordinator: 3 transactional.id(s) in 1 __transaction_state partition(s)"),
        "{out}"
    );
    let lines = json_lines(&ok(&["txn", s(&d), "--json"]));
    let orders = lines.iter().find(|l| l["replica"]["topic"] == "orders").unwrap();
    let verdicts: Vec<(&str, bool)> = orders["open"]
        .as_array()
        .unwrap()
        .iter()
        .map(|o| (o["coordinator"]["verdict"].as_str().unwrap(), o["coordinator"]["hanging"].as_bool().unwrap()))
        .collect();
    assert_eq!(verdicts, [("expected", false), ("not_listed", true), ("no_transactional_id", true)]);
}

/// Several brokers' data dirs: the coordinator's partition on one broker judges the open
/// transactions on another; of two replicas of it, the furthest along is read. `--format kafka`
/// prints describe-producers' and find-hanging's tables as the tool does.
#[test]
fn several_data_dirs_join_the_coordinators_log_and_the_kafka_form_prints_the_tools_tables() {
    let lab = Lab::new();
    let (b, c, stale) = (lab.path("b"), lab.path("c"), lab.path("stale"));
    let t = 1_700_000_000_000i64;
    ok(&["create", s(&b), "--replica-id", "1", "--topic", "orders"]);
    ok(&["create", s(&b), "--replica-id", "1", "--topic", "other"]);
    ok(&["elect", s(&b), "--partition", "orders-0"]);
    let ts = t.to_string();
    for (producer, v) in [(9, "a"), (10, "b"), (11, "c")] {
        let id = producer.to_string();
        ok(&[
            "append",
            s(&b),
            "--partition",
            "orders-0",
            v,
            "--producer-id",
            &id,
            "--transactional",
            "--timestamp",
            &ts,
        ]);
    }
    ok(&[
        "append",
        s(&b),
        "--partition",
        "orders-0",
        "--producer-id",
        "9",
        "--end-txn",
        "commit",
        "--coordinator-epoch",
        "3",
    ]);
    ok(&["append", s(&b), "--partition", "orders-0", "d", "--producer-id", "9", "--transactional", "--timestamp", &ts]);
    std::fs::remove_file(b.join("klog-state.json")).unwrap();
    // The coordinator's partition on broker c; an older replica of it (one record) on "stale".
    let records = [
        coordinator_record("app-a", 9, 1, &[("orders", 0)], t),
        coordinator_record("app-b", 10, 4, &[], t),
        coordinator_record("app-c", 12, 1, &[("orders", 0)], t),
    ];
    for (dir, n) in [(&c, 3), (&stale, 1)] {
        ok(&["create", s(dir), "--replica-id", "2", "--topic", "__transaction_state"]);
        ok(&["create", s(dir), "--replica-id", "2", "--topic", "unrelated"]);
        let log = encode_batch(&BatchSpec::plain(0, 0), &records[..n]);
        std::fs::write(dir.join("__transaction_state-0/00000000000000000000.log"), log).unwrap();
        std::fs::remove_file(dir.join("klog-state.json")).unwrap();
    }
    // stale and c are one broker (node 2) at two times: read together only when asked.
    let (_, err) = code(&["txn", s(&stale), s(&b), s(&c)], 2);
    assert!(err.contains("says the same node id") && err.contains("--allow-other-cluster"), "{err}");
    let out = ok(&["txn", s(&stale), s(&b), s(&c), "--allow-other-cluster"]);
    assert!(out.contains("the coordinator expects it: transactional.id app-a is Ongoing"), "{out}");
    assert!(out.contains("HANGING: transactional.id app-b is CompleteCommit"), "{out}");
    assert!(
        out.contains(&format!(
            "transaction coordinator: 3 transactional.id(s) in 1 __transaction_state partition(s) (the furthest-along \
             replica of each, from {})",
            c.display()
        )),
        "{out}"
    );
    // describe-producers for one partition: the broker's table in its map's order (9, 10, 11:
    // buckets 9, 10, 11), each cell padded to its column and followed by a tab.
    let table = ok(&["txn", s(&b), "--partition", "orders-0", "--format", "kafka"]);
    let expected = [
        "ProducerId\tProducerEpoch\tLatestCoordinatorEpoch\tLastSequence\tLastTimestamp\tCurrentTransactionStartOffset\t",
        "9         \t0            \t3                     \t1           \t1700000000000\t4                            \t",
        "10        \t0            \t-1                    \t0           \t1700000000000\t1                            \t",
        "11        \t0            \t-1                    \t0           \t1700000000000\t2                            \t",
    ];
    assert_eq!(table, expected.join("\n") + "\n");
    // find-hanging across the dirs: 10 (its transactional.id lists no partition) and 11 (no
    // transactional.id has it), not 9 (app-a's transaction lists orders-0).
    let out = ok(&["txn", s(&b), s(&c), "--format", "kafka", "--max-transaction-timeout", "0"]);
    let hanging = out.split("# find-hanging --max-transaction-timeout 0\n").nth(1).expect(&out);
    let rows: Vec<Vec<&str>> =
        hanging.lines().skip(1).map(|l| l.split('\t').map(str::trim).take(7).collect()).collect();
    assert_eq!(
        rows,
        [
            ["orders", "0", "10", "0", "-1", "1", "1700000000000"],
            ["orders", "0", "11", "0", "-1", "2", "1700000000000"]
        ]
    );
    assert!(hanging.starts_with("Topic \tPartition\tProducerId\t"), "{hanging}");
    // Without the coordinator's partition among the dirs there is no find-hanging table.
    let out = ok(&["txn", s(&b), "--format", "kafka"]);
    assert!(out.ends_with("# find-hanging: no __transaction_state partition among the dirs\n"), "{out}");
}

/// A follower that fetches an ABORT marker writes the aborted-index entry Kafka's follower
/// append writes (it was missing: `klog txn` on the follower found "no entry for the
/// transaction ... read_committed consumers would read its records"), byte for byte the
/// leader's, in a fetch of one batch at a time and in one of the whole log.
#[test]
fn a_follower_copying_an_abort_marker_writes_the_leaders_aborted_index_entry() {
    let lab = Lab::new();
    let (a, b, c) = (lab.path("a"), lab.path("b"), lab.path("c"));
    ok(&["create", s(&a), "--replica-id", "1"]);
    ok(&["create", s(&b), "--replica-id", "2"]);
    ok(&["create", s(&c), "--replica-id", "3"]);
    ok(&["elect", s(&a), "--isr", s(&b), s(&c)]);
    ok(&["append", s(&a), "t1", "t2", "--producer-id", "7", "--transactional"]);
    ok(&["append", s(&a), "o1"]);
    ok(&["append", s(&a), "u1", "--producer-id", "8", "--transactional"]);
    // B copies the first transaction's batch, then the marker alone.
    ok(&["fetch", "--leader", s(&a), s(&b), "--rounds", "2"]);
    ok(&["append", s(&a), "--producer-id", "7", "--end-txn", "abort", "--coordinator-epoch", "4"]);
    ok(&["append", s(&a), "--producer-id", "8", "--end-txn", "abort"]);
    ok(&["fetch", "--leader", s(&a), s(&b), "--rounds", "2"]);
    // C copies the whole log in one round.
    ok(&["fetch", "--leader", s(&a), s(&c), "--rounds", "2"]);
    let index = |d: &std::path::Path| std::fs::read(d.join("demo-0/00000000000000000000.txnindex")).unwrap_or_default();
    assert_eq!(index(&a).len(), 2 * 34, "two aborted-index entries on the leader");
    assert_eq!(index(&b), index(&a));
    assert_eq!(index(&c), index(&a));
    for d in [&a, &b, &c] {
        let json: Value = serde_json::from_str(&ok(&["txn", s(d), "--json"])).unwrap();
        assert_eq!(json["clean"], true, "{json}");
        let aborted: Vec<(i64, i64, i64, i64)> = json["aborted"]
            .as_array()
            .unwrap()
            .iter()
            .map(|x| {
                let n = |k: &str| x[k].as_i64().unwrap();
                (n("producer_id"), n("first_offset"), n("last_offset"), n("last_stable_offset"))
            })
            .collect();
        // Producer 7's marker at 4: producer 8's transaction (from 3) is still open, so the LSO
        // Kafka indexes beside it is 3; producer 8's at 5, nothing else open: 6.
        assert_eq!(aborted, vec![(7, 0, 4, 3), (8, 3, 5, 6)], "{}", d.display());
    }
}

/// A running leader `a` (demo-0) for the producer checks of `klog append`.
fn leader(lab: &Lab) -> std::path::PathBuf {
    let a = lab.path("a");
    ok(&["create", s(&a), "--replica-id", "1"]);
    ok(&["elect", s(&a)]);
    a
}

/// `klog append` refused with Kafka's error name on one line, exit 2, and the dir unchanged.
fn refused_as_kafka(dir: &std::path::Path, args: &[&str], error: &str) {
    let before = tree(dir);
    let (_, err) = code(&[&["append", s(dir)][..], args].concat(), 2);
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(err.starts_with("klog: error: ") && err.contains(&format!("{error}: ")), "{args:?}: {err}");
    assert!(err.contains("nothing written"), "{err}");
    assert_eq!(tree(dir), before, "{args:?} changed the dir");
}

/// A sequence that does not follow the producer's last one is refused as a Kafka leader refuses
/// it: `ProducerAppendInfo.checkSequence` throws OutOfOrderSequenceException for a gap or a step
/// back in the same epoch (`ProducerAppendInfo.java:179-189@4.4.0`) and for a new epoch that does
/// not start at 0 (`ProducerAppendInfo.java:169-172@4.4.0`); the producer's response carries
/// OUT_OF_ORDER_SEQUENCE_NUMBER. A producer the leader does not know starts anywhere.
#[test]
fn append_refuses_an_out_of_order_sequence_as_a_kafka_leader_does() {
    let lab = Lab::new();
    let a = leader(&lab);
    ok(&["append", s(&a), "x", "y", "--producer-id", "7"]);
    for args in [
        &["z", "--producer-id", "7", "--sequence", "5"][..],
        &["z", "--producer-id", "7", "--sequence", "1"],
        &["z", "y", "--producer-id", "7", "--sequence", "1"],
        &["z", "--producer-id", "7", "--producer-epoch", "1", "--sequence", "3"],
    ] {
        refused_as_kafka(&a, args, "OUT_OF_ORDER_SEQUENCE_NUMBER");
    }
    let out = ok(&["append", s(&a), "z", "--producer-id", "7", "--sequence", "2"]);
    assert!(out.contains("at offset 2") && out.contains("from sequence 2"), "{out}");
    ok(&["append", s(&a), "n", "--producer-id", "8", "--sequence", "41"]);
    ok(&["append", s(&a), "e", "--producer-id", "7", "--producer-epoch", "1", "--sequence", "0"]);
}

/// A retry of one of the producer's last five batches (same epoch, same first and last
/// sequence) is not written again: the leader finds it (`UnifiedLog.java:1415-1420@4.4.0`,
/// `ProducerStateEntry.findDuplicateBatch`, `ProducerStateEntry.java:129-136@4.4.0`) and answers
/// with the original batch's offsets and no error (`UnifiedLog.java:1261-1269@4.4.0`), so klog
/// writes nothing and exits 0 naming those offsets.
#[test]
fn append_of_a_retried_batch_writes_nothing_and_answers_with_the_original_batchs_offsets() {
    let lab = Lab::new();
    let a = leader(&lab);
    ok(&["append", s(&a), "x", "y", "--producer-id", "7"]);
    ok(&["append", s(&a), "z", "--producer-id", "7"]);
    let before = tree(&a);
    let out = ok(&["append", s(&a), "x", "y", "--producer-id", "7", "--sequence", "0"]);
    assert!(out.contains("nothing written") && out.contains("retry of its batch at offsets 0 to 1"), "{out}");
    assert_eq!(tree(&a), before, "a duplicate was written");
    assert_eq!(records(&a).len(), 3);
    // Not the same range: out of order, not a duplicate.
    refused_as_kafka(&a, &["x", "--producer-id", "7", "--sequence", "0"], "OUT_OF_ORDER_SEQUENCE_NUMBER");
}

/// An epoch older than the producer's last is fenced, for records and for markers:
/// `ProducerAppendInfo.checkProducerEpoch` throws InvalidProducerEpochException
/// (`ProducerAppendInfo.java:119-121,151@4.4.0`), INVALID_PRODUCER_EPOCH in the response.
#[test]
fn append_refuses_an_older_producer_epoch_as_a_kafka_leader_does() {
    let lab = Lab::new();
    let a = leader(&lab);
    ok(&["append", s(&a), "x", "--producer-id", "7", "--producer-epoch", "3", "--transactional"]);
    refused_as_kafka(
        &a,
        &["y", "--producer-id", "7", "--producer-epoch", "2", "--transactional"],
        "INVALID_PRODUCER_EPOCH",
    );
    refused_as_kafka(
        &a,
        &["--producer-id", "7", "--producer-epoch", "2", "--end-txn", "abort"],
        "INVALID_PRODUCER_EPOCH",
    );
    ok(&["append", s(&a), "--producer-id", "7", "--producer-epoch", "3", "--end-txn", "abort"]);
}

/// A marker whose coordinator epoch is older than the one the producer's last marker carried
/// comes from a zombie coordinator: `ProducerAppendInfo.checkCoordinatorEpoch` throws
/// TransactionCoordinatorFencedException (`ProducerAppendInfo.java:247-252@4.4.0`),
/// TRANSACTION_COORDINATOR_FENCED. `--coordinator-epoch` without `--end-txn` is a usage error.
#[test]
fn a_marker_with_an_older_coordinator_epoch_is_fenced_and_coordinator_epoch_needs_end_txn() {
    let lab = Lab::new();
    let a = leader(&lab);
    ok(&["append", s(&a), "x", "--producer-id", "7", "--transactional"]);
    ok(&["append", s(&a), "--producer-id", "7", "--end-txn", "commit", "--coordinator-epoch", "4"]);
    ok(&["append", s(&a), "y", "--producer-id", "7", "--transactional"]);
    refused_as_kafka(
        &a,
        &["--producer-id", "7", "--end-txn", "abort", "--coordinator-epoch", "3"],
        "TRANSACTION_COORDINATOR_FENCED",
    );
    ok(&["append", s(&a), "--producer-id", "7", "--end-txn", "abort", "--coordinator-epoch", "4"]);
    let before = tree(&a);
    for args in [&["z", "--producer-id", "7", "--coordinator-epoch", "5"][..], &["z", "--coordinator-epoch", "5"]] {
        let (_, err) = code(&[&["append", s(&a)][..], args].concat(), 2);
        assert!(err.contains("--coordinator-epoch") && err.contains("--end-txn"), "{err}");
        assert_eq!(err.lines().count(), 1, "{err}");
    }
    assert_eq!(tree(&a), before);
}

/// Issue 41, point 7: DeleteRecords moves the log start past a transaction's first offset and
/// leaves Kafka's producer table alone (`ProducerStateManager.onLogStartOffsetIncremented`
/// drops only unreplicated transactions: ProducerStateManager.java:490-495 in 4.4.0's line
/// table), so the snapshot a clean stop writes keeps producer 10's transaction open
/// from offset 3 and the ABORT's `.txnindex` entry names producer 9's first offset 1, both
/// below the log start 5. `klog txn` read the log only from the log start and called Kafka's
/// own files findings (exit 1); Kafka's load of a copy (the oracle) holds producer 10 open from
/// 3 with first unstable offset and LSO 5 (the log start: `UnifiedLog
/// .maybeIncrementFirstUnstableOffset` takes the larger of the two, UnifiedLog.java:1328-1343
/// in 4.4.0's line table).
#[test]
fn a_transaction_begun_below_a_log_start_deleterecords_moved_is_kept_as_kafka_keeps_it() {
    let lab = Lab::new();
    let d = lab.path("b");
    ok(&["create", s(&d), "--replica-id", "1"]);
    ok(&["elect", s(&d)]);
    ok(&["append", s(&d), "a"]);
    ok(&["append", s(&d), "t1", "t2", "--producer-id", "9", "--transactional"]);
    ok(&["append", s(&d), "u1", "--producer-id", "10", "--transactional"]);
    ok(&["append", s(&d), "b"]);
    ok(&["append", s(&d), "t3", "--producer-id", "9", "--transactional"]);
    ok(&["append", s(&d), "--producer-id", "9", "--end-txn", "abort"]);
    ok(&["append", s(&d), "c"]);
    ok(&["stop", s(&d)]);
    // DeleteRecords to offset 5, as LogManager checkpoints it.
    std::fs::write(d.join("log-start-offset-checkpoint"), "0\n1\ndemo 0 5\n").unwrap();
    let out = ok(&["txn", s(&d)]);
    assert!(out.contains("log start 5"), "{out}");
    assert!(out.contains("open producer 10 epoch 0: offsets 3 to 3"), "{out}");
    assert!(out.contains("aborted producer 9: offsets 1 to 6"), "{out}");
    let j: Value = serde_json::from_str(ok(&["txn", s(&d), "--json"]).trim()).unwrap();
    assert_eq!(j["findings"], serde_json::json!([]), "{j}");
    assert_eq!((j["first_unstable_offset"].as_i64(), j["last_stable_offset"].as_i64()), (Some(5), Some(5)));
    assert_eq!((j["open"][0]["producer_id"].as_i64(), j["open"][0]["first_offset"].as_i64()), (Some(10), Some(3)));
    assert_eq!(j["open"][0]["in_log"], true);
    assert_eq!((j["aborted"][0]["producer_id"].as_i64(), j["aborted"][0]["first_offset"].as_i64()), (Some(9), Some(1)));
}
