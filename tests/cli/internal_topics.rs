//! `klog dump` on Kafka's internal topics: the records of `__cluster_metadata` (and KRaft
//! snapshots), `__consumer_offsets` and `__transaction_state` shown by name in the table and
//! the JSON, from the schemas klog carries; a record that does not decode is named with its
//! byte position and the dump goes on. (`oracle_dump.rs` checks `--format kafka` against
//! Kafka's own decoders.)

use crate::common::*;
use replica_lab::format::batch::{encode_batch, BatchSpec};
use replica_lab::format::record::NewRecord;
use std::collections::BTreeMap;
use std::fs;

/// The decoded records of a `dump --json`, counted by name (`error` for those that did not decode).
fn decoded_names(lines: &[serde_json::Value]) -> BTreeMap<String, usize> {
    let mut names = BTreeMap::new();
    for l in lines.iter().filter(|l| l["type"] == "record" && l.get("decoded").is_some()) {
        let d = &l["decoded"];
        let name = if d.get("error").is_some() { "error".to_string() } else { d["name"].as_str().unwrap().to_string() };
        *names.entry(name).or_insert(0) += 1;
    }
    names
}

#[test]
fn every_record_of_the_real_kraft_metadata_log_decodes_by_name() {
    let Some(real) = kafka_real() else { return };
    let dir = real.join("kraft-broker-2026/__cluster_metadata-0");
    let lines = json_lines(&ok(&["dump", "--json", s(&dir)]));
    let records = lines.iter().filter(|l| l["type"] == "record").count();
    let names = decoded_names(&lines);
    // every record but the one LeaderChange control record
    assert_eq!(names.values().sum::<usize>(), records - 1, "{names:?}");
    assert!(!names.contains_key("error"), "{names:?}");
    for want in [
        "TopicRecord",
        "PartitionRecord",
        "PartitionChangeRecord",
        "RegisterBrokerRecord",
        "RegisterControllerRecord",
        "FeatureLevelRecord",
        "ConfigRecord",
        "ProducerIdsRecord",
        "BrokerRegistrationChangeRecord",
        "NoOpRecord",
    ] {
        assert!(names.contains_key(want), "{want} missing: {names:?}");
    }
    // a PartitionRecord's fields, as Kafka names them
    let p = lines.iter().find(|l| l["decoded"]["name"] == "PartitionRecord").unwrap();
    let data = &p["decoded"]["data"];
    assert!(data["leader"].is_i64() && data["isr"].is_array() && data["leaderEpoch"].is_i64(), "{p}");
    assert_eq!(data["topicId"].as_str().unwrap().len(), 22, "{p}");
    // the table says the same in words
    let table = ok(&["dump", s(&dir), "--from", "416", "--limit", "6"]);
    assert!(table.contains("TopicRecord name=") && table.contains("PartitionRecord partitionId="), "{table}");
    // the bootstrap snapshot beside it
    let lines = json_lines(&ok(&["dump", "--json", s(&real.join("kraft-broker-2026/bootstrap.checkpoint"))]));
    assert!(decoded_names(&lines).contains_key("FeatureLevelRecord"), "{lines:?}");
}

#[test]
fn real_consumer_offsets_decode_as_offset_commits_and_group_metadata() {
    let Some(real) = kafka_real() else { return };
    let mut names: BTreeMap<String, usize> = BTreeMap::new();
    let mut tombstones = 0;
    for dir in [
        "zk-broker-2020/__consumer_offsets-12",
        "zk-broker-2020/__consumer_offsets-18",
        "zk-broker-2020/__consumer_offsets-17",
        "kraft-broker-2026/__consumer_offsets-6",
    ] {
        let lines = json_lines(&ok(&["dump", "--json", s(&real.join(dir))]));
        for (k, v) in decoded_names(&lines) {
            *names.entry(k).or_insert(0) += v;
        }
        tombstones +=
            lines.iter().filter(|l| l["decoded"]["kind"] == "coordinator" && l["decoded"]["value"].is_null()).count();
        // a consumer group's member subscriptions read as ConsumerProtocolSubscription
        for l in lines.iter().filter(|l| l["decoded"]["name"] == "GroupMetadataKey" && !l["decoded"]["value"].is_null())
        {
            let members = l["decoded"]["value"]["data"]["members"].as_array().unwrap();
            assert!(members.iter().all(|m| m["subscription"]["topics"].is_array()), "{l}");
        }
    }
    assert!(!names.contains_key("error"), "{names:?}");
    assert!(names["OffsetCommitKey"] > 500 && names["GroupMetadataKey"] > 10, "{names:?}");
    assert!(tombstones > 0);
}

fn metadata_value(api_key: u8, version: u8, body: &[u8]) -> Vec<u8> {
    [&[1, api_key, version][..], body].concat()
}

#[test]
fn a_cut_metadata_record_is_named_with_its_byte_position_and_the_dump_goes_on() {
    let lab = Lab::new();
    let d = lab.path("meta");
    ok(&["--width", "0", "create", s(&d), "--replica-id", "1", "--topic", "__cluster_metadata"]);
    // TopicRecord v0: name "orders", topic id 1..16, no tagged fields
    let topic = metadata_value(2, 0, &[&[7][..], b"orders", &(1..=16).collect::<Vec<u8>>(), &[0]].concat());
    let cut = topic[..10].to_vec();
    let rec = |v: Vec<u8>| NewRecord { timestamp: 5, key: None, value: Some(v), headers: vec![] };
    let log = encode_batch(&BatchSpec::plain(0, 0), &[rec(topic), rec(cut), rec(vec![1, 99, 0])]);
    fs::write(d.join("__cluster_metadata-0/00000000000000000000.log"), log).unwrap();

    let out = klog().args(["--width", "0", "dump", s(&d)]).env("NO_COLOR", "1").output().unwrap();
    assert_eq!(out.status.code(), Some(0));
    let table = String::from_utf8_lossy(&out.stdout);
    assert!(table.contains("TopicRecord name=orders topicId=AQIDBAUGBwgJCgsMDQ4PEA"), "{table}");
    // the name reads (bytes 4..10); the topic id's 16 bytes are missing at byte 10
    assert!(
        table.contains("metadata record undecodable at byte 10: TopicRecord v0: TopicId needs 16 byte(s) but 0 remain"),
        "{table}"
    );
    assert!(table.contains("unknown metadata record type 99"), "{table}");

    let lines = json_lines(&ok(&["--width", "0", "dump", "--json", s(&d)]));
    let errors: Vec<&serde_json::Value> = lines.iter().filter(|l| l["decoded"].get("error").is_some()).collect();
    assert_eq!(errors.len(), 2, "{lines:?}");
    assert_eq!(errors[0]["offset"], 1);
    assert_eq!(errors[0]["decoded"]["error"]["part"], "value");
    assert_eq!(errors[0]["decoded"]["error"]["position"], 10);
    assert_eq!(errors[1]["decoded"]["error"]["position"], 1);

    let kafka = ok(&["--width", "0", "dump", "--format", "kafka", s(&d)]);
    assert!(kafka.contains("payload: {\"type\":\"TOPIC_RECORD\",\"version\":0,\"data\":{\"name\":\"orders\",\"topicId\":\"AQIDBAUGBwgJCgsMDQ4PEA\"}}"), "{kafka}");
    assert!(
        kafka.contains("| offset: 1 ")
            && kafka.contains("payload: Error at 1, skipping. Failed to deserialize record with type 2"),
        "{kafka}"
    );
}

#[test]
fn transaction_state_records_show_the_status_by_name() {
    let lab = Lab::new();
    let d = lab.path("txn");
    ok(&["--width", "0", "create", s(&d), "--replica-id", "1", "--topic", "__transaction_state"]);
    let string = |s: &str| [&(s.len() as i16).to_be_bytes()[..], s.as_bytes()].concat();
    let key = [&0i16.to_be_bytes()[..], &string("payments-tx")].concat();
    // TransactionLogValue v0: producer 4000, epoch 2, timeout 60 s, Ongoing, one partition
    let value = [
        &0i16.to_be_bytes()[..],
        &4000i64.to_be_bytes(),
        &2i16.to_be_bytes(),
        &60_000i32.to_be_bytes(),
        &[1u8],
        &1i32.to_be_bytes(),
        &string("orders"),
        &1i32.to_be_bytes(),
        &3i32.to_be_bytes(),
        &10i64.to_be_bytes(),
        &9i64.to_be_bytes(),
    ]
    .concat();
    let rec = NewRecord { timestamp: 5, key: Some(key), value: Some(value), headers: vec![] };
    fs::write(d.join("__transaction_state-0/00000000000000000000.log"), encode_batch(&BatchSpec::plain(0, 0), &[rec]))
        .unwrap();
    let table = ok(&["--width", "0", "dump", s(&d)]);
    assert!(table.contains("TransactionLogKey transactionalId=payments-tx"), "{table}");
    assert!(table.contains("transactionStatus=Ongoing"), "{table}");
    let lines = json_lines(&ok(&["--width", "0", "dump", "--json", s(&d)]));
    let r = lines.iter().find(|l| l["type"] == "record").unwrap();
    assert_eq!(r["decoded"]["value"]["data"]["transactionStatus"], "Ongoing");
    assert_eq!(r["decoded"]["value"]["data"]["transactionPartitions"][0]["partitionIds"][0], 3);
    let kafka = ok(&["--width", "0", "dump", "--format", "kafka", s(&d)]);
    assert!(kafka.contains(" key: {\"type\":\"0\",\"data\":{\"transactionalId\":\"payments-tx\"}} payload: {\"version\":\"0\",\"data\":{\"producerId\":4000,\"producerEpoch\":2,\"transactionTimeoutMs\":60000,\"transactionStatus\":\"Ongoing\""), "{kafka}");
}

#[test]
fn quorum_state_shows_the_kraft_leader_and_a_broken_one_names_the_byte() {
    if let Some(real) = kafka_real() {
        let q = real.join("kraft-broker-2026/__cluster_metadata-0/quorum-state");
        let table = ok(&["dump", s(&q)]);
        assert!(table.contains("quorum-state leader 1  leader epoch 1  voted for -1"), "{table}");
        let lines = json_lines(&ok(&["dump", "--json", s(&q)]));
        assert_eq!(lines[0]["type"], "quorum_state");
        assert_eq!(lines[0]["current_voters"], serde_json::json!([1]));
        // Kafka's tool does not read it: announced and ignored, as DumpLogSegments does
        let out = klog().args(["dump", "--format", "kafka", s(&q)]).output().unwrap();
        assert_eq!(out.status.code(), Some(0));
        assert!(String::from_utf8_lossy(&out.stderr).contains("Ignoring unknown file"));
    }
    let lab = Lab::new();
    let q = lab.path("quorum-state");
    fs::write(&q, "{\"leaderId\":1,\n\"x").unwrap();
    let (_, err) = code(&["dump", s(&q)], 2);
    assert!(err.contains("corrupt data at position 16: quorum-state is not valid"), "{err}");
}
