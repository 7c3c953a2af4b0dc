//! `klog history`: the timeline of each partition replayed from a KRaft metadata log — on the
//! real KRaft broker's log, and on a metadata log written here with a scripted sequence of
//! elections (each must come out, in order, with the epoch Kafka's merge gives it) — and the
//! replicas' epoch caches set beside it.

use crate::common::*;
use replica_lab::format::batch::{encode_batch, BatchSpec};
use replica_lab::format::record::NewRecord;
use std::fs;

#[test]
fn the_real_kraft_log_gives_every_partition_its_creation_and_changes() {
    let Some(real) = kafka_real() else { return };
    let dir = real.join("kraft-broker-2026");
    let lines = json_lines(&ok(&["history", s(&dir), "--json"]));
    assert_eq!(lines[0]["type"], "history");
    assert_eq!(lines[0]["partitions"], 54);
    let changes: Vec<&serde_json::Value> = lines.iter().filter(|l| l["type"] == "partition_change").collect();
    // 54 PartitionRecords and 54 PartitionChangeRecords (the broker's controlled shutdown)
    assert_eq!(changes.iter().filter(|c| c["record"] == "PartitionRecord").count(), 54);
    assert_eq!(changes.iter().filter(|c| c["record"] == "PartitionChangeRecord").count(), 54);
    let p6: Vec<&&serde_json::Value> = changes.iter().filter(|c| c["partition"] == "__consumer_offsets-6").collect();
    assert_eq!(p6.len(), 2);
    assert_eq!(
        (p6[0]["offset"].as_i64(), p6[0]["leader"].as_i64(), p6[0]["leader_epoch"].as_i64()),
        (Some(426), Some(1), Some(0))
    );
    // the shutdown: no leader, and (as Kafka's merge counts) a new leader epoch
    assert_eq!(
        (p6[1]["offset"].as_i64(), p6[1]["leader"].as_i64(), p6[1]["leader_epoch"].as_i64()),
        (Some(4882), Some(-1), Some(1))
    );
    assert_eq!(p6[1]["changed"], serde_json::json!(["leader", "leader_epoch"]));
    // beside it, the broker's own replica: epoch 0 cached from offset 0, nothing ungranted
    let lines =
        json_lines(&ok(&["history", s(&dir), "--partition", "__consumer_offsets-6", "--replica", s(&dir), "--json"]));
    let r = lines.iter().find(|l| l["type"] == "replica_epochs").unwrap();
    assert_eq!(r["replica_id"], 1);
    assert_eq!(r["epoch_cache"], serde_json::json!([{"leader_epoch": 0, "start_offset": 0}]));
    assert_eq!(r["never_granted"], serde_json::json!([]));
    assert_eq!(r["led_but_not_cached"], serde_json::json!([]));
}

pub(crate) fn int_array(v: &mut Vec<u8>, items: &[i32]) {
    v.push(items.len() as u8 + 1);
    for i in items {
        v.extend(i.to_be_bytes());
    }
}

pub(crate) const TOPIC_ID: [u8; 16] = [7; 16];

pub(crate) fn topic_record() -> Vec<u8> {
    [&[1u8, 2, 0, 7][..], b"orders", &TOPIC_ID, &[0]].concat()
}

/// PartitionRecord v0 of orders-0.
pub(crate) fn partition_record(replicas: &[i32], leader: i32) -> Vec<u8> {
    let mut v = vec![1, 3, 0];
    v.extend(0i32.to_be_bytes());
    v.extend(TOPIC_ID);
    int_array(&mut v, replicas);
    int_array(&mut v, replicas);
    int_array(&mut v, &[]);
    int_array(&mut v, &[]);
    v.extend(leader.to_be_bytes());
    v.extend(0i32.to_be_bytes());
    v.extend(0i32.to_be_bytes());
    v.push(0);
    v
}

/// PartitionChangeRecord v2 of orders-0: ISR (tag 0), leader (tag 1), ELR (tag 6), each optional.
pub(crate) fn change(isr: Option<&[i32]>, leader: Option<i32>, elr: Option<&[i32]>) -> Vec<u8> {
    let mut v = vec![1, 5, 2];
    v.extend(0i32.to_be_bytes());
    v.extend(TOPIC_ID);
    v.push(isr.is_some() as u8 + leader.is_some() as u8 + elr.is_some() as u8);
    let mut tagged = |tag: u8, body: Vec<u8>| {
        v.extend([tag, body.len() as u8]);
        v.extend(body);
    };
    if let Some(isr) = isr {
        let mut b = Vec::new();
        int_array(&mut b, isr);
        tagged(0, b);
    }
    if let Some(l) = leader {
        tagged(1, l.to_be_bytes().to_vec());
    }
    if let Some(elr) = elr {
        let mut b = Vec::new();
        int_array(&mut b, elr);
        tagged(6, b);
    }
    v
}

#[test]
fn a_scripted_sequence_of_elections_comes_out_exactly_with_kafkas_epochs() {
    let lab = Lab::new();
    let meta = lab.path("controller");
    ok(&["create", s(&meta), "--replica-id", "9", "--topic", "__cluster_metadata"]);
    let values = [
        topic_record(),
        partition_record(&[1, 2, 3], 1),
        change(Some(&[1, 2]), None, None), // 3 leaves the ISR: same leader, same epoch
        change(Some(&[2]), Some(2), Some(&[1])), // 1 fails: 2 elected (epoch 1), 1 eligible (ELR)
        change(Some(&[2, 3]), None, Some(&[])), // 3 back in the ISR, ELR emptied
        change(None, Some(3), None),       // preferred-leader style move to 3 (epoch 2)
        change(None, Some(-1), None),      // 3 shut down: no leader (epoch 3)
    ];
    let records: Vec<NewRecord> = values
        .iter()
        .enumerate()
        .map(|(i, v)| NewRecord { timestamp: 1_000 + i as i64, key: None, value: Some(v.clone()), headers: vec![] })
        .collect();
    fs::write(
        meta.join("__cluster_metadata-0/00000000000000000000.log"),
        encode_batch(&BatchSpec::plain(0, 1), &records),
    )
    .unwrap();

    // replica 2 as klog builds it: it led at epoch 1 (as granted), then at an epoch 5 never granted
    let b2 = lab.path("b2");
    ok(&["create", s(&b2), "--replica-id", "2", "--topic", "orders"]);
    ok(&["elect", s(&b2), "--epoch", "1"]);
    ok(&["append", s(&b2), "a", "b"]);
    ok(&["elect", s(&b2), "--epoch", "5"]);
    ok(&["append", s(&b2), "c"]);
    // replica 3: led at epoch 2 by the metadata, but its files never heard of it
    let b3 = lab.path("b3");
    ok(&["create", s(&b3), "--replica-id", "3", "--topic", "orders"]);

    let lines = json_lines(&ok(&["history", s(&meta), "--replica", s(&b2), "--replica", s(&b3), "--json"]));
    let changes: Vec<(i64, i64, i64, serde_json::Value, serde_json::Value)> = lines
        .iter()
        .filter(|l| l["type"] == "partition_change")
        .map(|l| {
            (
                l["offset"].as_i64().unwrap(),
                l["leader"].as_i64().unwrap(),
                l["leader_epoch"].as_i64().unwrap(),
                l["isr"].clone(),
                l["elr"].clone(),
            )
        })
        .collect();
    use serde_json::json;
    assert_eq!(
        changes,
        [
            (1, 1, 0, json!([1, 2, 3]), json!([])),
            (2, 1, 0, json!([1, 2]), json!([])),
            (3, 2, 1, json!([2]), json!([1])),
            (4, 2, 1, json!([2, 3]), json!([])),
            (5, 3, 2, json!([2, 3]), json!([])),
            (6, -1, 3, json!([2, 3]), json!([])),
        ]
    );
    let elected: Vec<&serde_json::Value> = lines
        .iter()
        .filter(|l| l["type"] == "partition_change" && l["changed"].as_array().unwrap().contains(&json!("leader")))
        .collect();
    assert_eq!(elected.len(), 3, "three elections: 2, 3, none");
    let replicas: Vec<&serde_json::Value> = lines.iter().filter(|l| l["type"] == "replica_epochs").collect();
    assert_eq!(replicas.len(), 2);
    assert_eq!(replicas[0]["replica_id"], 2);
    assert_eq!(replicas[0]["never_granted"], json!([5]));
    assert_eq!(replicas[0]["led_but_not_cached"], json!([]));
    assert_eq!(replicas[1]["replica_id"], 3);
    assert_eq!(replicas[1]["led_but_not_cached"], json!([2]));

    let text = ok(&["history", s(&meta), "--replica", s(&b2), "--replica", s(&b3)]);
    assert!(text.contains("orders-0"), "{text}");
    // The summary before the timeline: what the six records did, where the partition ended up.
    let summary: Vec<&str> = text.lines().skip(1).take_while(|l| !l.starts_with("(*")).collect();
    assert_eq!(
        summary,
        [
            "summary: 1 partition(s), 6 change(s) from 1970-01-01T00:00:01.001Z to 1970-01-01T00:00:01.006Z",
            "  after creation: 3 leader change(s) (1 to no leader), 3 ISR change(s)",
            "  now without a leader: 1 (orders-0)",
            "  a replica holds an epoch the controller never granted: 1 partition(s) (orders-0)",
            "  a replica led at an epoch its cache never learned: 1 partition(s) (orders-0)",
            "  the timeline of each partition follows (--partition NAME for one; --picture to draw it)",
        ],
        "{text}"
    );
    assert!(text.contains("epochs the controller never granted: [5]"), "{text}");

    // a log dir without a metadata log is refused, naming it
    let (_, err) = code(&["history", s(&b2)], 2);
    assert!(err.contains("no KRaft metadata log (__cluster_metadata-0) here"), "{err}");
    let (_, err) = code(&["history", s(&meta), "--partition", "orders-9"], 2);
    assert!(err.contains("never mentions partition \"orders-9\""), "{err}");
}
