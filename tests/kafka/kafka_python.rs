//! kafka-python, an independent reader, reads what klog writes: every record of a replica
//! klog built across epochs and rolled segments, and segments compressed with each codec.
//! Needs python3 with kafka-python and its codecs (`pip install kafka-python python-snappy lz4
//! zstandard`; `.ci/run` installs them).

use crate::common::*;
use std::fs;
use std::path::{Path, PathBuf};

const CODECS: [&str; 4] = ["gzip", "snappy", "lz4", "zstd"];

fn leader(lab: &Lab, name: &str) -> PathBuf {
    let d = lab.create(name, 1, &[]);
    ok(&["elect", s(&d)]);
    d
}

fn segment(dir: &Path) -> PathBuf {
    dir.join("demo-0/00000000000000000000.log")
}

/// An independent reader: kafka-python's record-batch code reads every segment klog wrote
/// (CRC, offsets, leader epochs, timestamps, keys, values, null values, headers).
const KAFKA_PYTHON_DUMP: &str = r#"
import sys, json
from kafka.record import MemoryRecords
for path in sys.argv[1:]:
    records = MemoryRecords(open(path, "rb").read())
    while records.has_next():
        batch = records.next_batch()
        if not batch.validate_crc():
            sys.exit("bad crc at offset %d" % batch.base_offset)
        for r in batch:
            print(json.dumps([r.offset, batch.leader_epoch,
                              r.timestamp, None if r.key is None else r.key.decode(),
                              None if r.value is None else r.value.decode(),
                              [[k, None if v is None else v.decode()] for k, v in r.headers]]))
"#;

#[test]
fn kafka_python_reads_every_segment_klog_writes() {
    if !python_module("kafka") {
        return;
    }
    let lab = Lab::new();
    let b = two_epoch_replica(&lab);
    let mut logs: Vec<_> = fs::read_dir(b.join("demo-0"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "log"))
        .collect();
    logs.sort();
    let out = std::process::Command::new("python3").arg("-c").arg(KAFKA_PYTHON_DUMP).args(&logs).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let theirs: Vec<serde_json::Value> = json_lines(&String::from_utf8(out.stdout).unwrap());
    let ours: Vec<_> =
        json_lines(&ok(&["dump", s(&b), "--json"])).into_iter().filter(|v| v["type"] == "record").collect();
    assert_eq!(theirs.len(), ours.len());
    for (t, o) in theirs.iter().zip(&ours) {
        assert_eq!(t[0], o["offset"]);
        assert_eq!(t[1], o["leader_epoch"]);
        assert_eq!(t[2], o["timestamp"]);
        assert_eq!(t[3], o["key"]);
        assert_eq!(t[4], o["value"]);
        let headers: Vec<serde_json::Value> =
            o["headers"].as_array().unwrap().iter().map(|h| serde_json::json!([h["key"], h["value"]])).collect();
        assert_eq!(t[5], serde_json::Value::Array(headers));
    }
}

/// kafka-python's record reader (`kafka.record`) over a klog-written segment.
const KAFKA_PYTHON_READER: &str = r#"
import sys
from kafka.record import MemoryRecords
data = open(sys.argv[1], "rb").read()
records = MemoryRecords(data)
while records.has_next():
    batch = records.next_batch()
    batch.validate_crc() or sys.exit("bad crc at offset %d" % batch.base_offset)
    for r in batch:
        print("%d %d %s %s" % (r.offset, batch.compression_type, r.key.decode(), r.value.decode()))
"#;

#[test]
fn kafka_python_reads_klog_compressed_segments() {
    if !python_module("kafka") {
        return;
    }
    let lab = Lab::new();
    for (code, codec) in CODECS.iter().enumerate() {
        let code = code + 1;
        let module = ["gzip", "snappy", "lz4.frame", "zstandard"][code - 1];
        if !python_module(module) {
            continue;
        }
        let d = leader(&lab, codec);
        let values: Vec<String> = (0..20).map(|i| format!("v{i}-{}", "y".repeat(i * 7))).collect();
        let mut args = vec!["append", s(&d), "--compression", codec, "--key", "kk", "--records-per-batch", "7"];
        args.extend(values.iter().map(String::as_str));
        ok(&args);
        let out =
            std::process::Command::new("python3").args(["-c", KAFKA_PYTHON_READER, s(&segment(&d))]).output().unwrap();
        assert!(out.status.success(), "{codec}: {}", String::from_utf8_lossy(&out.stderr));
        let got: Vec<String> = String::from_utf8(out.stdout).unwrap().lines().map(String::from).collect();
        let want: Vec<String> = values.iter().enumerate().map(|(i, v)| format!("{i} {code} kk {v}")).collect();
        assert_eq!(got, want, "{codec}");
    }
}
