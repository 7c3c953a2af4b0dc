//! Broker-written log dirs from `../shared/kafka-real`, read in place (never copied).

use crate::common::*;

#[test]
fn every_real_partition_checks_clean_and_dumps() {
    let Some(root) = kafka_real() else { return };
    let mut partitions = 0;
    let mut records_seen = 0;
    for broker in ["zk-broker-2020", "zk-broker-2021", "kraft-broker-2026"] {
        let log_dir = root.join(broker);
        for entry in std::fs::read_dir(&log_dir).unwrap() {
            let p = entry.unwrap().path();
            if !p.is_dir() {
                continue;
            }
            partitions += 1;
            let out = ok(&["check", s(&p), "--json"]);
            let summary = json_lines(&out).pop().unwrap();
            assert_eq!(summary["clean"], true, "{}: {out}", p.display());
            let dump = json_lines(&ok(&["dump", s(&p), "--json"]));
            assert!(dump.iter().all(|v| v["type"] != "undecodable" && v["type"] != "trailing"), "{}", p.display());
            records_seen += dump.iter().filter(|v| v["type"] == "record").count();
        }
    }
    assert_eq!(partitions, 157);
    assert!(records_seen > 5000, "{records_seen}");
}

#[test]
fn first_topic_reads_back_what_kafka_wrote() {
    let Some(root) = kafka_real() else { return };
    let dir = root.join("zk-broker-2020/first_topic-0");
    let lines = json_lines(&ok(&["dump", s(&dir), "--json"]));
    let rep = &lines[0];
    assert_eq!(rep["type"], "replica");
    assert_eq!(rep["clean_shutdown"], true);
    assert_eq!(rep["log_end_offset"], 11);
    assert_eq!(rep["high_watermark"], 11);
    let recs: Vec<_> = lines.iter().filter(|v| v["type"] == "record").collect();
    let expected = [
        (1587576892921i64, "just for fun"),
        (1587578122874, "hi hello"),
        (1587579783390, "hello new consumer "),
        (1587579918769, "another message one"),
        (1587580043841, "yellow "),
        (1587580101490, "zebra"),
        (1587580188597, "123"),
        (1587580220919, "hello"),
        (1587580221885, "bye"),
        (1587580895408, "from the other side"),
        (1587581573101, "because lets try"),
    ];
    assert_eq!(recs.len(), expected.len());
    for (i, (r, (ts, value))) in recs.iter().zip(expected).enumerate() {
        assert_eq!(r["offset"], i as i64);
        assert_eq!(r["leader_epoch"], 0);
        assert_eq!(r["timestamp"], ts);
        assert_eq!(r["value"], value);
        assert!(r["key"].is_null());
    }
}

#[test]
fn kraft_metadata_log_shows_its_leader_change_control_batch() {
    let Some(root) = kafka_real() else { return };
    let dir = root.join("kraft-broker-2026/__cluster_metadata-0");
    let lines = json_lines(&ok(&["dump", s(&dir), "--json", "--batches", "--limit", "3"]));
    let batches: Vec<_> = lines.iter().filter(|v| v["type"] == "batch").collect();
    assert_eq!(batches[0]["is_control"], true);
    assert_eq!(batches[0]["leader_epoch"], 1);
    assert_eq!(batches[0]["crc_valid"], true);
    let rep = &lines[0];
    assert_eq!(rep["log_end_offset"], 4929);
    assert_eq!(rep["clean_shutdown"], false);
}

#[test]
fn a_data_dir_with_many_partitions_needs_a_partition_name() {
    let Some(root) = kafka_real() else { return };
    // `dump` and `check` of such a dir cover every partition; a mutating command needs a name.
    let (_, err) = code(&["append", s(&root.join("zk-broker-2021")), "x"], 2);
    assert!(err.contains("holds 53 partitions") && err.contains("TestTopic-0") && err.contains("and 43 more"), "{err}");
    let out = ok(&["dump", s(&root.join("zk-broker-2021")), "--partition", "subhash-0", "--json"]);
    assert_eq!(json_lines(&out).iter().filter(|v| v["type"] == "record").count(), 3);
}
