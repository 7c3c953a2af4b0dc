//! Formats a real broker writes (issue 5): compressed batches, legacy v0/v1 messages, control
//! batches, `.txnindex` / `.snapshot` / index dumps, the log-dir overview and
//! `dump --format kafka` in kafka-dump-log's line shapes.
//!
//! Legacy messages cannot come from klog (it writes v2 only): they are built byte by byte here
//! from the layout in `../shared/spec/kafka-format.md` §1.4 — `offset i64 | size i32 | crc u32 |
//! magic i8 | attributes i8 | [timestamp i64, v1] | keyLength i32 | key | valueLength i32 |
//! value`, CRC-32 (IEEE) over magic..end — and written over the segment of a `klog create`d dir.

use crate::common::*;
use predicates::prelude::*;
use replica_lab::format::batch::{crc32c, encode_batch, BatchSpec};
use replica_lab::format::compression::{self, Compression};
use replica_lab::format::record::NewRecord;
use serde_json::Value;
use std::fs;
use std::path::{Path, PathBuf};

// ------------------------------------------------------------------------------------------
// kafka-dump-log line shapes (DumpLogSegments, modern field order), one regex per line kind.

const DUMPING: &str = r"^Dumping \S.*$";
const LOG_START: &str = r"^Log starting offset: \d+$";
const V2_BATCH: &str = r"^baseOffset: -?\d+ lastOffset: -?\d+ count: -?\d+ baseSequence: -?\d+ lastSequence: -?\d+ producerId: -?\d+ producerEpoch: -?\d+ partitionLeaderEpoch: -?\d+ isTransactional: (true|false) isControl: (true|false) deleteHorizonMs: (OptionalLong\.empty|OptionalLong\[-?\d+\]) position: \d+ (CreateTime|LogAppendTime|NoTimestampType): -?\d+ size: \d+ magic: 2 compresscodec: (none|gzip|snappy|lz4|zstd) crc: \d+ isvalid: (true|false)$";
const LEGACY_BATCH: &str = r"^offset: -?\d+ position: \d+ (NoTimestampType|CreateTime|LogAppendTime): -?\d+ size: \d+ magic: [01] compresscodec: (none|gzip|snappy|lz4) crc: \d+ isvalid: (true|false)$";
const V2_RECORD: &str = r"^\| offset: -?\d+ (CreateTime|LogAppendTime|NoTimestampType): -?\d+ keySize: -?\d+ valueSize: -?\d+ sequence: -?\d+ headerKeys: \[[^\]]*\]( endTxnMarker: (COMMIT|ABORT) coordinatorEpoch: -?\d+| controlType: [A-Z_]+\(-?\d+\)| LeaderChange: \{.*\}| (SnapshotHeader|SnapshotFooter|KRaftVersion|KRaftVoters) \{.*\})?( key: .*)?( payload: .*)?$";
const LEGACY_RECORD: &str = r"^\| offset: -?\d+ (NoTimestampType|CreateTime|LogAppendTime): -?\d+ keySize: -?\d+ valueSize: -?\d+ isValid: (true|false) crc: \d+( key: .*)?( payload: .*)?$";
const TRAILING: &str = r"^Found \d+ invalid bytes at the end of \S+$";
const INDEX_ENTRY: &str = r"^offset: -?\d+ position: \d+$";
const TIME_ENTRY: &str = r"^timestamp: -?\d+ offset: -?\d+$";
const TXN_ENTRY: &str =
    r"^version: -?\d+ producerId: -?\d+ firstOffset: -?\d+ lastOffset: -?\d+ lastStableOffset: -?\d+$";
const PRODUCER_ENTRY: &str = r"^producerId: -?\d+ producerEpoch: -?\d+ coordinatorEpoch: -?\d+ currentTxnFirstOffset: (OptionalLong\.empty|OptionalLong\[\d+\]) lastTimestamp: -?\d+( firstSequence: -?\d+ lastSequence: -?\d+ lastOffset: -?\d+ offsetDelta: -?\d+ timestamp: -?\d+)?$";
const KINDS: [(&str, &str); 12] = [
    ("dumping", DUMPING),
    ("log_start", LOG_START),
    ("v2_batch", V2_BATCH),
    ("legacy_batch", LEGACY_BATCH),
    ("v2_record", V2_RECORD),
    ("legacy_record", LEGACY_RECORD),
    ("trailing", TRAILING),
    ("index", INDEX_ENTRY),
    ("time", TIME_ENTRY),
    ("txn", TXN_ENTRY),
    ("producer", PRODUCER_ENTRY),
    ("snapshot_head", r"^(KRaft bootstrap snapshot|Snapshot end offset: \d+, epoch: \d+)$"),
];

/// The kind of every stdout line; panics on a line that has none of Kafka's shapes. A line
/// after a record line that has no shape is the rest of a key or payload holding a line break
/// (Kafka prints them as they are): `continued`.
fn line_kinds(text: &str) -> Vec<&'static str> {
    let shapes: Vec<_> = KINDS.iter().map(|(k, re)| (*k, predicate::str::is_match(*re).unwrap())).collect();
    let mut previous = "";
    text.lines()
        .map(|line| {
            let kinds: Vec<_> = shapes.iter().filter(|(_, p)| p.eval(line)).map(|(k, _)| *k).collect();
            if kinds.is_empty() && matches!(previous, "v2_record" | "legacy_record" | "continued") {
                previous = "continued";
                return previous;
            }
            assert!(!kinds.is_empty(), "not a kafka-dump-log line: {line:?}");
            // index entries and legacy batch lines both start with "offset:"; the regexes keep them apart
            assert_eq!(kinds.len(), 1, "{line:?} matches {kinds:?}");
            previous = kinds[0];
            kinds[0]
        })
        .collect()
}

/// `name: value` pairs of a batch or record line, in order (values hold no spaces on batch lines).
fn pairs(line: &str) -> Vec<(String, String)> {
    let line = line.trim_start_matches("| ");
    let tokens: Vec<&str> = line.split(' ').collect();
    tokens.chunks(2).map(|c| (c[0].trim_end_matches(':').to_string(), c.get(1).unwrap_or(&"").to_string())).collect()
}

const V2_BATCH_FIELDS: [&str; 18] = [
    "baseOffset",
    "lastOffset",
    "count",
    "baseSequence",
    "lastSequence",
    "producerId",
    "producerEpoch",
    "partitionLeaderEpoch",
    "isTransactional",
    "isControl",
    "deleteHorizonMs",
    "position",
    "<timestamp type>",
    "size",
    "magic",
    "compresscodec",
    "crc",
    "isvalid",
];

/// Compare a v2 batch line with the `--json --batches` object of the same batch, field for field.
fn assert_batch_line_matches_json(line: &str, b: &Value) {
    let p = pairs(line);
    let names: Vec<&str> = p.iter().map(|(n, _)| n.as_str()).collect();
    let mut expected = V2_BATCH_FIELDS.to_vec();
    expected[12] = b["timestamp_type"].as_str().unwrap();
    assert_eq!(names, expected, "{line}");
    let v = |i: usize| p[i].1.clone();
    let js = |k: &str| match &b[k] {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    };
    let want = [
        js("base_offset"),
        js("last_offset"),
        js("records"),
        js("base_sequence"),
        js("last_sequence"),
        js("producer_id"),
        js("producer_epoch"),
        js("leader_epoch"),
        js("is_transactional"),
        js("is_control"),
        match b["delete_horizon_ms"].as_i64() {
            Some(d) => format!("OptionalLong[{d}]"),
            None => "OptionalLong.empty".into(),
        },
        js("position"),
        js("max_timestamp"),
        js("size_bytes"),
        js("magic"),
        js("compression"),
        js("crc"),
        js("crc_valid"),
    ];
    for (i, w) in want.iter().enumerate() {
        assert_eq!(&v(i), w, "field {} of {line}", names[i]);
    }
}

fn partition_dirs(log_dir: &Path) -> Vec<PathBuf> {
    let mut dirs: Vec<PathBuf> =
        fs::read_dir(log_dir).unwrap().map(|e| e.unwrap().path()).filter(|p| p.is_dir()).collect();
    dirs.sort();
    dirs
}

#[test]
fn every_real_partition_dumps_in_kafka_dump_log_shape_field_for_field() {
    let Some(root) = kafka_real() else { return };
    let (mut partitions, mut batches, mut records, mut control, mut decoded) = (0, 0, 0, 0, 0);
    let mut seen = std::collections::BTreeSet::new();
    for broker in ["zk-broker-2020", "zk-broker-2021", "kraft-broker-2026"] {
        for dir in partition_dirs(&root.join(broker)) {
            partitions += 1;
            let text = ok(&["dump", s(&dir), "--format", "kafka"]);
            let kinds = line_kinds(&text);
            let json = json_lines(&ok(&["dump", s(&dir), "--json"]));
            let json_batches: Vec<&Value> = json.iter().filter(|v| v["type"] == "batch").collect();
            let json_records: Vec<&Value> = json.iter().filter(|v| v["type"] == "record").collect();
            let json_segments = json.iter().filter(|v| v["type"] == "segment").count();
            assert!(json.iter().all(|v| v["type"] != "undecodable" && v["type"] != "trailing"), "{}", dir.display());
            let lines: Vec<&str> = text.lines().collect();
            assert_eq!(kinds.iter().filter(|k| **k == "dumping").count(), json_segments, "{}", dir.display());
            assert_eq!(kinds.iter().filter(|k| **k == "log_start").count(), json_segments);
            let batch_lines: Vec<&str> =
                lines.iter().zip(&kinds).filter(|(_, k)| **k == "v2_batch").map(|(l, _)| *l).collect();
            assert_eq!(batch_lines.len(), json_batches.len(), "{}", dir.display());
            for (line, b) in batch_lines.iter().zip(&json_batches) {
                assert_batch_line_matches_json(line, b);
            }
            let record_lines: Vec<&str> =
                lines.iter().zip(&kinds).filter(|(_, k)| **k == "v2_record").map(|(l, _)| *l).collect();
            assert_eq!(record_lines.len(), json_records.len(), "{}", dir.display());
            for (line, r) in record_lines.iter().zip(&json_records) {
                let p = pairs(line);
                assert_eq!(p[0], ("offset".to_string(), r["offset"].to_string()), "{line}");
                assert_eq!(p[1].1, r["timestamp"].to_string(), "{line}");
                let size = |k: &str| match r[k].as_str() {
                    None => -1,
                    Some(s) if r[format!("{k}_encoding")] == "base64" => base64_len(s),
                    Some(s) => s.len() as i64,
                };
                assert_eq!(p[2].1, size("key").to_string(), "keySize of {line}");
                assert_eq!(p[3].1, size("value").to_string(), "valueSize of {line}");
                if let Some(c) = r.get("control") {
                    control += 1;
                    seen.insert(c["type"].as_str().unwrap().to_string());
                    assert!(!line.contains(" payload: "), "{line}");
                } else if r.get("decoded").is_some() {
                    // an internal topic's record: printed by its decoder, as Kafka's tool with
                    // its decoder flag prints it (oracle_dump.rs compares the text)
                    decoded += 1;
                    assert!(line.contains(" payload: {\"") || line.ends_with(" payload: <DELETE>"), "{line}");
                } else if let Some(v) = r["value"].as_str().filter(|_| r["value_encoding"] == "utf8") {
                    // up to its first line break, where the line ends (`lines` drops a `\r\n`'s `\r`)
                    let first = v.split('\n').next().unwrap();
                    let first = if v.contains('\n') { first.strip_suffix('\r').unwrap_or(first) } else { first };
                    assert!(line.ends_with(&format!(" payload: {first}")), "{line}");
                }
            }
            batches += batch_lines.len();
            records += record_lines.len();
        }
    }
    assert_eq!(partitions, 157);
    assert!(batches > 1000 && records > 5000, "{batches} batches, {records} records");
    assert!(control >= 1 && seen.contains("LEADER_CHANGE"), "{seen:?}");
    assert!(decoded > 5000, "{decoded} decoded internal-topic records");
}

fn base64_len(s: &str) -> i64 {
    (s.len() / 4 * 3 - s.bytes().rev().take_while(|b| *b == b'=').count()) as i64
}

#[test]
fn real_dump_log_output_has_the_values_kafka_wrote() {
    let Some(root) = kafka_real() else { return };
    let text = ok(&["dump", s(&root.join("zk-broker-2020/first_topic-0")), "--format", "kafka"]);
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(
        lines[0],
        format!("Dumping {}", root.join("zk-broker-2020/first_topic-0/00000000000000000000.log").display())
    );
    assert_eq!(lines[1], "Log starting offset: 0");
    assert_eq!(
        lines[2],
        "baseOffset: 0 lastOffset: 0 count: 1 baseSequence: -1 lastSequence: -1 producerId: -1 producerEpoch: -1 \
         partitionLeaderEpoch: 0 isTransactional: false isControl: false deleteHorizonMs: OptionalLong.empty \
         position: 0 CreateTime: 1587576892921 size: 80 magic: 2 compresscodec: none crc: 2014155031 isvalid: true"
    );
    assert_eq!(
        lines[3],
        "| offset: 0 CreateTime: 1587576892921 keySize: -1 valueSize: 12 sequence: -1 headerKeys: [] payload: just for fun"
    );
    assert!(lines.last().unwrap().ends_with("payload: because lets try"));
    // the KRaft metadata log starts with its LeaderChange control record, shown by name
    let text =
        ok(&["dump", s(&root.join("kraft-broker-2026/__cluster_metadata-0")), "--format", "kafka", "--limit", "1"]);
    assert!(
        text.lines().nth(3).unwrap().ends_with(
            "headerKeys: [] LeaderChange: {\"version\":0,\"leaderId\":1,\"voters\":[{\"voterId\":1}],\"grantingVoters\":[{\"voterId\":1}]}"
        ),
        "{text}"
    );
    let json =
        json_lines(&ok(&["dump", s(&root.join("kraft-broker-2026/__cluster_metadata-0")), "--json", "--limit", "1"]));
    let rec = json.iter().find(|v| v["type"] == "record").unwrap();
    assert_eq!(rec["control"]["type"], "LEADER_CHANGE");
    assert_eq!(rec["control"]["leader_id"], 1);
    assert_eq!(rec["control"]["voters"], serde_json::json!([1]));
    let table = ok(&["dump", s(&root.join("kraft-broker-2026/__cluster_metadata-0")), "--limit", "1"]);
    assert!(table.contains("LEADER_CHANGE leader 1"), "{table}");
    // the KRaft bootstrap snapshot: SnapshotHeader / SnapshotFooter records
    let text = ok(&["dump", s(&root.join("kraft-broker-2026/bootstrap.checkpoint")), "--format", "kafka"]);
    let kinds = line_kinds(&text);
    assert_eq!(kinds[1], "snapshot_head");
    assert!(text.contains(" SnapshotHeader {\"version\":0,\"lastContainedLogTimestamp\":0}"), "{text}");
    assert!(text.contains(" SnapshotFooter {\"version\":0}"), "{text}");
}

#[test]
fn real_indexes_and_snapshots_dump_checked_against_the_log() {
    let Some(root) = kafka_real() else { return };
    let dir = root.join("zk-broker-2020/__consumer_offsets-12");
    let idx = json_lines(&ok(&["dump", s(&dir.join("00000000000000000000.index")), "--json"]));
    assert!(!idx.is_empty() && idx.iter().all(|v| v["check"] == "matches"), "{idx:?}");
    // Kafka 2.x time index: the offset of the record with the max timestamp; the entry added
    // when the segment was closed names the last batch's last offset.
    let time = json_lines(&ok(&["dump", s(&dir.join("00000000000000000000.timeindex")), "--json"]));
    assert!(time.iter().all(|v| v["check"] == "matches_record" || v["check"] == "matches_batch"), "{time:?}");
    assert!(time.iter().filter(|v| v["check"] == "matches_record").count() >= 10, "{time:?}");
    for file in ["00000000000000000000.index", "00000000000000000000.timeindex", "00000000000000000470.snapshot"] {
        let a = klog().args(["dump", s(&dir.join(file)), "--format", "kafka"]).assert().success();
        let out = String::from_utf8(a.get_output().stdout.clone()).unwrap();
        line_kinds(&out);
        let err = String::from_utf8_lossy(&a.get_output().stderr).into_owned();
        if file.ends_with(".timeindex") {
            // Kafka 4.x's tool holds a 2.x entry "not found" (its batch ends at another offset)
            assert!(err.starts_with("The following indexed offsets are not found in :"), "{err}");
            assert!(err.contains("\nIndexed offset: 35, found log offset: 37\n"), "{err}");
        } else {
            assert!(err.is_empty(), "{file}: nothing to report: {err}");
        }
    }
    let empty =
        ok(&["dump", s(&root.join("zk-broker-2020/first_topic-0/00000000000000000000.index")), "--format", "kafka"]);
    assert!(empty.ends_with("00000000000000000000.index is empty.\n"), "{empty}");
    let snap = json_lines(&ok(&[
        "dump",
        s(&root.join("zk-broker-2020/first_topic-0/00000000000000000011.snapshot")),
        "--json",
    ]));
    assert_eq!(snap[0]["type"], "producer_snapshot");
    assert_eq!((snap[0]["crc_valid"].as_bool(), snap[0]["entries"].as_i64()), (Some(true), Some(0)));
}

#[test]
fn a_data_dir_with_many_partitions_dumps_as_an_overview() {
    let Some(root) = kafka_real() else { return };
    let rows = json_lines(&ok(&["dump", s(&root.join("zk-broker-2020")), "--json"]));
    assert_eq!(rows.len(), 54);
    assert!(rows.iter().all(|r| r["type"] == "partition_summary" && r["clean_shutdown"] == true));
    let first = rows.iter().find(|r| r["partition"] == "first_topic-0").unwrap();
    assert_eq!((first["log_end_offset"].as_i64(), first["high_watermark"].as_i64()), (Some(11), Some(11)));
    assert_eq!((first["recovery_point"].as_i64(), first["segments"].as_i64()), (Some(11), Some(1)));
    assert_eq!((first["bytes"].as_i64(), first["latest_leader_epoch"].as_i64()), (Some(804), Some(0)));
    let kraft = json_lines(&ok(&["dump", s(&root.join("kraft-broker-2026")), "--json"]));
    let meta = kraft.iter().find(|r| r["partition"] == "__cluster_metadata-0").unwrap();
    assert_eq!((meta["log_end_offset"].as_i64(), meta["latest_leader_epoch"].as_i64()), (Some(4929), Some(1)));
    assert_eq!(meta["clean_shutdown"], false);
    let table = ok(&["dump", s(&root.join("zk-broker-2021"))]);
    for col in ["partition", "segs", "bytes", "LEO", "HW", "recovery", "point", "epoch", "clean", "stop"] {
        assert!(table.contains(col), "{col}: {table}");
    }
    assert!(table.lines().any(|l| l.contains("subhash-0")), "{table}");
    // A mutating command still wants a partition name.
    let (_, err) = code(&["flush", s(&root.join("zk-broker-2021"))], 2);
    assert!(err.contains("--partition"), "{err}");
}

// ------------------------------------------------------------------------------------------
// Compression: klog appends, klog and an independent reader read back.

const CODECS: [&str; 4] = ["gzip", "snappy", "lz4", "zstd"];

fn leader(lab: &Lab, name: &str) -> PathBuf {
    let d = lab.create(name, 1, &[]);
    ok(&["elect", s(&d)]);
    d
}

fn segment(dir: &Path) -> PathBuf {
    dir.join("demo-0/00000000000000000000.log")
}

#[test]
fn every_codec_round_trips_through_append_dump_and_check() {
    let lab = Lab::new();
    for codec in CODECS {
        let d = leader(&lab, codec);
        let values: Vec<String> = (0..50).map(|i| format!("{codec} value {i} {}", "x".repeat(i))).collect();
        let mut args = vec!["append", s(&d), "--compression", codec, "--key", "k", "--timestamp", "1700000000000"];
        args.extend(values.iter().map(String::as_str));
        ok(&args);
        ok(&["append", s(&d), "--compression", codec, "tail"]);
        let batches = json_lines(&ok(&["dump", s(&d), "--json", "--batches"]));
        let batches: Vec<_> = batches.iter().filter(|v| v["type"] == "batch").collect();
        assert_eq!(batches.len(), 2);
        assert!(batches.iter().all(|b| b["compression"] == codec && b["crc_valid"] == true), "{batches:?}");
        let got: Vec<String> = records(&d).into_iter().map(|(_, _, v)| v).collect();
        let mut want = values.clone();
        want.push("tail".into());
        assert_eq!(got, want, "{codec}");
        let (out, _) = code(&["check", s(&d)], 0);
        assert!(out.contains("clean"), "{out}");
        let text = ok(&["dump", s(&d), "--format", "kafka"]);
        line_kinds(&text);
        assert_eq!(text.matches(&format!("compresscodec: {codec} ")).count(), 2, "{text}");
        assert!(text.contains("| offset: 49 CreateTime: 1700000000000 keySize: 1 valueSize: "), "{text}");
    }
}

// ------------------------------------------------------------------------------------------
// Damage: findings with path and position, exit 1, never a panic.

/// Rewrite the v2 batch at `position` of `log` so that its CRC holds again after an edit.
fn fix_crc(log: &mut [u8], position: usize) {
    let size = i32::from_be_bytes(log[position + 8..position + 12].try_into().unwrap()) as usize + 12;
    let crc = crc32c(&log[position + 21..position + size]);
    log[position + 17..position + 21].copy_from_slice(&crc.to_be_bytes());
}

#[test]
fn a_corrupt_compressed_payload_is_a_finding_with_path_and_position() {
    let lab = Lab::new();
    for codec in CODECS {
        let d = leader(&lab, codec);
        ok(&["append", s(&d), "plain", "first"]);
        ok(&["append", s(&d), "--compression", codec, "a", "b", "c", "ddddddddddddddddddddddddddd"]);
        let log = segment(&d);
        let mut bytes = fs::read(&log).unwrap();
        let second = i32::from_be_bytes(bytes[8..12].try_into().unwrap()) as usize + 12;
        // Damage the compressed stream (not the header), then make the CRC right again, so that
        // only decompression can notice.
        let area = second + 61;
        for b in &mut bytes[area + 4..area + 12] {
            *b ^= 0x5a;
        }
        fix_crc(&mut bytes, second);
        fs::write(&log, &bytes).unwrap();
        let (out, _) = code(&["check", s(&d), "--json"], 1);
        let findings: Vec<Value> = json_lines(&out).into_iter().filter(|v| v["type"] == "finding").collect();
        assert!(
            findings.iter().any(|f| f["path"] == s(&log)
                && f["position"] == second as i64
                && f["what"].as_str().unwrap().contains(&format!("{codec} stream"))),
            "{codec}: {findings:?}"
        );
        let (text, _) = code(&["check", s(&d)], 1);
        assert!(text.contains(&format!("at position {second}")), "{text}");
        // dump still shows the first batch and names the undecodable one
        let dump = json_lines(&ok(&["dump", s(&d), "--json"]));
        assert!(dump.iter().any(|v| v["type"] == "undecodable" && v["position"] == second as i64), "{dump:?}");
        let a = klog().args(["dump", s(&d), "--format", "kafka"]).assert().success();
        let err = String::from_utf8_lossy(&a.get_output().stderr).into_owned();
        assert!(err.contains(&format!("position {second}")), "{err}");
    }
}

/// A klog replica dir whose only segment holds `log` (indexes emptied).
fn replica_with_log(lab: &Lab, name: &str, log: &[u8]) -> PathBuf {
    let d = lab.create(name, 1, &[]);
    fs::write(segment(&d), log).unwrap();
    d
}

/// Offsets 0..=6 in legacy form: v0 plain (0, 1), a v0 gzip wrapper with absolute inner offsets
/// (2, 3), v1 plain (4), and a v1 snappy wrapper with relative inner offsets 0, 1 stored at
/// wrapper offset 6 (absolute 5, 6).
fn legacy_log() -> Vec<u8> {
    let v0_inner =
        [legacy_message(2, 0, 0, 0, None, Some(b"v0-in-a")), legacy_message(3, 0, 0, 0, None, Some(b"v0-in-b"))];
    let v1_inner = [
        legacy_message(0, 1, 0, 1_500_000_000_005, Some(b"k"), Some(b"v1-in-a")),
        legacy_message(1, 1, 0, 1_500_000_000_006, Some(b"k"), Some(b"v1-in-b")),
    ];
    [
        legacy_message(0, 0, 0, 0, Some(b"key0"), Some(b"v0-plain-0")),
        legacy_message(1, 0, 0, 0, None, Some(b"")),
        legacy_message(3, 0, 1, 0, None, Some(&compression::compress(Compression::Gzip, &v0_inner.concat()))),
        legacy_message(4, 1, 0, 1_500_000_000_004, None, None),
        legacy_message(
            6,
            1,
            2,
            1_500_000_000_006,
            None,
            Some(&compression::compress(Compression::Snappy, &v1_inner.concat())),
        ),
    ]
    .concat()
}

#[test]
fn legacy_messages_dump_with_inner_offsets_resolved_and_check_clean() {
    let lab = Lab::new();
    let d = replica_with_log(&lab, "legacy", &legacy_log());
    let lines = json_lines(&ok(&["dump", s(&d), "--json"]));
    let recs: Vec<_> = lines.iter().filter(|v| v["type"] == "record").collect();
    let got: Vec<(i64, i64, Value, Value)> = recs
        .iter()
        .map(|r| {
            (r["offset"].as_i64().unwrap(), r["timestamp"].as_i64().unwrap(), r["key"].clone(), r["value"].clone())
        })
        .collect();
    let v = |s: &str| Value::String(s.into());
    assert_eq!(
        got,
        vec![
            (0, -1, v("key0"), v("v0-plain-0")),
            (1, -1, Value::Null, v("")),
            (2, -1, Value::Null, v("v0-in-a")),
            (3, -1, Value::Null, v("v0-in-b")),
            (4, 1_500_000_000_004, Value::Null, Value::Null),
            (5, 1_500_000_000_005, v("k"), v("v1-in-a")),
            (6, 1_500_000_000_006, v("k"), v("v1-in-b")),
        ]
    );
    assert!(recs.iter().all(|r| r["crc_valid"] == true && r["crc"].is_u64()));
    let batches = json_lines(&ok(&["dump", s(&d), "--json", "--batches"]));
    let wrappers: Vec<_> = batches.iter().filter(|b| b["type"] == "batch" && b["compression"] != "none").collect();
    assert_eq!(wrappers.len(), 2);
    assert_eq!((wrappers[0]["base_offset"].as_i64(), wrappers[0]["last_offset"].as_i64()), (Some(2), Some(3)));
    assert_eq!((wrappers[1]["base_offset"].as_i64(), wrappers[1]["last_offset"].as_i64()), (Some(5), Some(6)));
    assert_eq!((wrappers[1]["magic"].as_i64(), wrappers[1]["records"].as_i64()), (Some(1), Some(2)));
    assert_eq!(replica(&d)["log_end_offset"], 7);
    code(&["check", s(&d)], 0);
    let text = ok(&["dump", s(&d), "--format", "kafka"]);
    let kinds = line_kinds(&text);
    assert_eq!(kinds.iter().filter(|k| **k == "legacy_batch").count(), 5);
    assert_eq!(kinds.iter().filter(|k| **k == "legacy_record").count(), 7);
    assert!(text.contains(" compresscodec: gzip crc: ") && text.contains(" compresscodec: snappy crc: "), "{text}");
    assert!(
        text.contains("| offset: 6 CreateTime: 1500000000006 keySize: 1 valueSize: 7 isValid: true crc: "),
        "{text}"
    );
    assert!(text.lines().any(|l| l.starts_with("offset: 6 position: ") && l.contains(" CreateTime: 1500000000006 ")));
}

#[test]
fn a_truncated_legacy_message_is_a_finding_with_path_and_position() {
    let lab = Lab::new();
    let good = legacy_message(0, 1, 0, 1_500_000_000_000, Some(b"key"), Some(b"value"));
    // (1) a message whose value length says 50 bytes but the message ends after 5, with a CRC
    //     that matches what is there: only decoding can tell.
    let mut cut = legacy_message(1, 1, 0, 1_500_000_000_001, Some(b"key"), Some(b"value"));
    let value_len_at = 12 + 4 + 1 + 1 + 8 + 4 + 3;
    cut[value_len_at..value_len_at + 4].copy_from_slice(&50i32.to_be_bytes());
    let crc = crc32fast::hash(&cut[16..]);
    cut[12..16].copy_from_slice(&crc.to_be_bytes());
    let d = replica_with_log(&lab, "cut", &[good.clone(), cut].concat());
    let (out, _) = code(&["check", s(&d), "--json"], 1);
    let findings: Vec<Value> = json_lines(&out).into_iter().filter(|v| v["type"] == "finding").collect();
    assert!(
        findings.iter().any(|f| f["path"] == s(&segment(&d))
            && f["position"] == good.len() as i64
            && f["what"].as_str().unwrap().contains("value: 50 bytes declared")),
        "{findings:?}"
    );
    // (2) the last message cut off by the end of the file (a torn write)
    let torn = legacy_message(1, 0, 0, 0, None, Some(b"torn value"));
    let d = replica_with_log(&lab, "torn", &[good.clone(), torn[..torn.len() - 4].to_vec()].concat());
    let (out, _) = code(&["check", s(&d)], 1);
    assert!(out.contains(&format!("{} at position {}", segment(&d).display(), good.len())), "{out}");
    let text = ok(&["dump", s(&d), "--format", "kafka"]);
    assert!(
        text.ends_with(&format!("Found {} invalid bytes at the end of 00000000000000000000.log\n", torn.len() - 4)),
        "{text}"
    );
    line_kinds(&text);
    // (3) a compressed v1 wrapper whose inner message is cut inside the compressed stream
    let inner = legacy_message(0, 1, 0, 5, None, Some(b"inner value"));
    let wrapper =
        legacy_message(0, 1, 1, 5, None, Some(&compression::compress(Compression::Gzip, &inner[..inner.len() - 3])));
    let d = replica_with_log(&lab, "inner", &wrapper);
    let (out, _) = code(&["check", s(&d), "--json"], 1);
    assert!(out.contains("cut off") && out.contains("\"position\":0"), "{out}");
}

#[test]
fn a_magic_above_2_is_read_as_v2_and_a_negative_one_is_a_finding() {
    let lab = Lab::new();
    let rec = NewRecord { timestamp: 1, key: None, value: Some(b"v".to_vec()), headers: vec![] };
    let first = encode_batch(&BatchSpec::plain(0, 0), std::slice::from_ref(&rec));
    let mut odd = encode_batch(&BatchSpec::plain(1, 0), &[rec]);
    // The magic byte is outside the v2 CRC, and Kafka's `FileLogInputStream` reads any magic
    // from 2 up as v2 (issue 29 class 2, judged by Kafka's loader in tests/oracle/found): the
    // batch is valid, and a note says what its magic is.
    odd[16] = 7;
    let d = replica_with_log(&lab, "magic", &[first.clone(), odd].concat());
    let (out, _) = code(&["check", s(&d), "--json"], 0);
    let lines = json_lines(&out);
    assert!(!lines.iter().any(|v| v["type"] == "finding"), "{lines:?}");
    assert!(
        lines
            .iter()
            .any(|v| v["type"] == "note" && v["what"].as_str().unwrap().contains("magic 7, which Kafka reads as v2")),
        "{lines:?}"
    );
    let dump = json_lines(&ok(&["dump", s(&d), "--json"]));
    assert!(!dump.iter().any(|v| v["type"] == "undecodable"), "{dump:?}");
    // A negative magic is a legacy entry to Kafka, and this one's CRC-32 does not hold.
    let mut neg = fs::read(segment(&d)).unwrap();
    neg[first.len() + 16] = 0xfe;
    fs::write(segment(&d), &neg).unwrap();
    let (out, _) = code(&["check", s(&d)], 1);
    assert!(out.contains("unknown magic value -2"), "{out}");
}

// ------------------------------------------------------------------------------------------
// Transactions: control batches and producer fields, txn index and producer snapshots.

fn marker_batch(base_offset: i64, commit: bool, coordinator_epoch: i32) -> Vec<u8> {
    let key = [0i16.to_be_bytes(), (commit as i16).to_be_bytes()].concat();
    let value = [&0i16.to_be_bytes()[..], &coordinator_epoch.to_be_bytes()].concat();
    let spec = BatchSpec {
        producer_id: 4000,
        producer_epoch: 2,
        is_transactional: true,
        is_control: true,
        ..BatchSpec::plain(base_offset, 0)
    };
    encode_batch(&spec, &[NewRecord { timestamp: 10, key: Some(key), value: Some(value), headers: vec![] }])
}

#[test]
fn transaction_markers_and_producer_fields_are_shown() {
    let lab = Lab::new();
    let rec = |v: &str| NewRecord { timestamp: 5, key: None, value: Some(v.as_bytes().to_vec()), headers: vec![] };
    let data = BatchSpec {
        producer_id: 4000,
        producer_epoch: 2,
        base_sequence: 7,
        is_transactional: true,
        compression: Compression::Lz4,
        ..BatchSpec::plain(0, 0)
    };
    let log = [
        encode_batch(&data, &[rec("t1"), rec("t2")]),
        marker_batch(2, true, 9),
        encode_batch(&BatchSpec { base_offset: 3, base_sequence: 9, ..data }, &[rec("t3")]),
        marker_batch(4, false, 9),
    ]
    .concat();
    let d = replica_with_log(&lab, "txn", &log);
    code(&["--width", "0", "check", s(&d)], 0);
    let lines = json_lines(&ok(&["--width", "0", "dump", s(&d), "--json"]));
    let controls: Vec<&Value> = lines.iter().filter_map(|v| v.get("control")).collect();
    assert_eq!(controls.len(), 2);
    assert_eq!(controls[0], &serde_json::json!({"type": "COMMIT", "coordinator_epoch": 9, "version": 0}));
    assert_eq!(controls[1]["type"], "ABORT");
    let batches = json_lines(&ok(&["--width", "0", "dump", s(&d), "--json", "--batches"]));
    let b0 = batches.iter().find(|v| v["type"] == "batch").unwrap();
    assert_eq!(
        (b0["producer_id"].as_i64(), b0["base_sequence"].as_i64(), b0["last_sequence"].as_i64()),
        (Some(4000), Some(7), Some(8))
    );
    let table = ok(&["--width", "0", "dump", s(&d), "--batches"]);
    assert!(table.contains("pid 4000 epoch 2 seq 7..8") && table.contains("txn,control"), "{table}");
    let table = ok(&["--width", "0", "dump", s(&d)]);
    assert!(table.contains("COMMIT (coordinator epoch 9)") && table.contains("ABORT (coordinator epoch 9)"), "{table}");
    let text = ok(&["--width", "0", "dump", s(&d), "--format", "kafka"]);
    line_kinds(&text);
    assert!(text.contains("| offset: 2 CreateTime: 10 keySize: 4 valueSize: 6 sequence: -1 headerKeys: [] endTxnMarker: COMMIT coordinatorEpoch: 9\n"), "{text}");
    assert!(text.contains(" endTxnMarker: ABORT coordinatorEpoch: 9\n"), "{text}");
    assert!(text.contains("baseOffset: 0 lastOffset: 1 count: 2 baseSequence: 7 lastSequence: 8 producerId: 4000 producerEpoch: 2 partitionLeaderEpoch: 0 isTransactional: true isControl: false"), "{text}");
    assert!(
        text.contains("| offset: 1 CreateTime: 5 keySize: -1 valueSize: 2 sequence: 8 headerKeys: [] payload: t2\n"),
        "{text}"
    );
}

#[test]
fn txn_index_and_producer_snapshot_files_dump() {
    use replica_lab::format::producer_snapshot::{self, ProducerEntry};
    use replica_lab::format::txn_index::AbortedTxn;
    let lab = Lab::new();
    let dir = lab.path("files");
    fs::create_dir_all(&dir).unwrap();
    let txn = dir.join("00000000000000000000.txnindex");
    let a = AbortedTxn { version: 0, producer_id: 4000, first_offset: 3, last_offset: 4, last_stable_offset: 3 };
    fs::write(
        &txn,
        [a.encode(), AbortedTxn { producer_id: 4001, first_offset: 9, last_offset: 12, ..a }.encode()].concat(),
    )
    .unwrap();
    let got = json_lines(&ok(&["dump", s(&txn), "--json"]));
    assert_eq!(got.len(), 2);
    assert_eq!((got[0]["type"].as_str(), got[0]["producer_id"].as_i64()), (Some("aborted_txn"), Some(4000)));
    assert_eq!((got[1]["first_offset"].as_i64(), got[1]["last_offset"].as_i64()), (Some(9), Some(12)));
    let text = ok(&["dump", s(&txn), "--format", "kafka"]);
    assert_eq!(line_kinds(&text), vec!["dumping", "txn", "txn"]);
    assert!(
        text.contains("\nversion: 0 producerId: 4000 firstOffset: 3 lastOffset: 4 lastStableOffset: 3\n"),
        "{text}"
    );
    // a partial trailing entry is reported, not read
    let mut bytes = fs::read(&txn).unwrap();
    bytes.extend_from_slice(&[0; 5]);
    fs::write(&txn, &bytes).unwrap();
    let got = json_lines(&ok(&["dump", s(&txn), "--json"]));
    assert_eq!(got.last().unwrap()["type"], "trailing");
    assert_eq!(got.last().unwrap()["position"], 68);

    let snap = dir.join("00000000000000000042.snapshot");
    let e = ProducerEntry {
        producer_id: 4000,
        producer_epoch: 2,
        last_sequence: 9,
        last_offset: 41,
        offset_delta: 2,
        timestamp: 1_700_000_000_000,
        coordinator_epoch: 9,
        current_txn_first_offset: 40,
    };
    let mut bytes = producer_snapshot::encode(&[e]);
    fs::write(&snap, &bytes).unwrap();
    let got = json_lines(&ok(&["dump", s(&snap), "--json"]));
    assert_eq!((got[0]["crc_valid"].as_bool(), got[0]["entries"].as_i64()), (Some(true), Some(1)));
    assert_eq!((got[1]["first_sequence"].as_i64(), got[1]["current_txn_first_offset"].as_i64()), (Some(7), Some(40)));
    let text = ok(&["dump", s(&snap), "--format", "kafka"]);
    line_kinds(&text);
    assert!(text.contains(
        "producerId: 4000 producerEpoch: 2 coordinatorEpoch: 9 currentTxnFirstOffset: OptionalLong[40] lastTimestamp: 1700000000000 \
         firstSequence: 7 lastSequence: 9 lastOffset: 41 offsetDelta: 2 timestamp: 1700000000000"
    ), "{text}");
    // a flipped byte: flagged in JSON, Kafka's message on stderr in the kafka form, no entries
    bytes[20] ^= 1;
    fs::write(&snap, &bytes).unwrap();
    let got = json_lines(&ok(&["dump", s(&snap), "--json"]));
    assert_eq!(got[0]["crc_valid"], false);
    let a = klog().args(["dump", s(&snap), "--format", "kafka"]).assert().success();
    assert_eq!(String::from_utf8_lossy(&a.get_output().stdout).lines().count(), 1);
    assert!(String::from_utf8_lossy(&a.get_output().stderr).contains("Snapshot is corrupt (CRC is no longer valid)"));
    // a structurally broken snapshot is an error naming the file and position
    fs::write(&snap, &bytes[..15]).unwrap();
    let (_, err) = code(&["dump", s(&snap)], 2);
    assert!(err.contains("00000000000000000042.snapshot") && err.contains("position 6"), "{err}");
}

#[test]
fn index_entries_that_disagree_with_the_log_are_marked() {
    let lab = Lab::new();
    let d = leader(&lab, "idx");
    for i in 0..40 {
        ok(&["append", s(&d), &format!("{i}-{}", "z".repeat(300)), "--timestamp", &(1000 + i).to_string()]);
    }
    let index = d.join("demo-0/00000000000000000000.index");
    let good = json_lines(&ok(&["dump", s(&index), "--json"]));
    assert!(good.len() >= 2 && good.iter().all(|v| v["check"] == "matches"), "{good:?}");
    let time = json_lines(&ok(&["dump", s(&index.with_extension("timeindex")), "--json"]));
    assert!(!time.is_empty() && time.iter().all(|v| v["check"] == "matches_batch"), "{time:?}");
    // point the first entry one offset off
    let mut bytes = fs::read(&index).unwrap();
    let rel = i32::from_be_bytes(bytes[0..4].try_into().unwrap());
    bytes[0..4].copy_from_slice(&(rel + 1).to_be_bytes());
    fs::write(&index, &bytes).unwrap();
    let got = json_lines(&ok(&["dump", s(&index), "--json"]));
    assert_eq!((got[0]["check"].as_str(), got[0]["log_offset"].as_i64()), (Some("mismatch"), Some(rel as i64)));
    let table = ok(&["dump", s(&index)]);
    assert!(table.contains("MISMATCH"), "{table}");
    let a = klog().args(["dump", s(&index), "--format", "kafka"]).assert().success();
    let err = String::from_utf8_lossy(&a.get_output().stderr).into_owned();
    assert!(
        err.starts_with("Mismatches in :") && err.contains(&format!("  Index offset: {}, log offset: {rel}", rel + 1)),
        "{err}"
    );
    line_kinds(&String::from_utf8_lossy(&a.get_output().stdout));
}

#[test]
fn checkpoints_are_ignored_as_kafka_dump_log_does_and_epochs_have_no_kafka_form() {
    let lab = Lab::new();
    let d = leader(&lab, "cp");
    for name in ["replication-offset-checkpoint", "demo-0/leader-epoch-checkpoint", "meta.properties"] {
        let (out, err) = code(&["dump", s(&d.join(name)), "--format", "kafka"], 0);
        assert_eq!(out, format!("Dumping {}\n", d.join(name).display()));
        assert_eq!(err, format!("Ignoring unknown file {}\n", d.join(name).display()));
    }
    // the other forms still read a checkpoint
    assert!(ok(&["dump", s(&d.join("replication-offset-checkpoint")), "--json"]).contains("demo"));
    let (_, err) = code(&["dump", s(&d), "--epochs", "--format", "kafka"], 2);
    assert!(err.contains("--epochs"), "{err}");
    code(&["dump", s(&d), "--json", "--format", "kafka"], 2);
}

#[test]
fn dump_format_kafka_rendered_on_both_cores_equals_the_sequential_dump_byte_for_byte() {
    // About 12 MiB of batches (several 1 MiB chunks) whose offsets jump at every batch, go
    // backwards once and jump at chunk edges, with an undecodable batch, a control batch and a
    // torn tail: what Kafka's tool tracks from record to record must come out as in one pass.
    let lab = Lab::new();
    let d = leader(&lab, "chunks");
    let value = "v".repeat(2000);
    let mut log = Vec::new();
    let mut undecodable = 0;
    for i in 0..120i64 {
        let base = if i == 60 { 5 } else { i * 1000 + i % 3 };
        let records: Vec<NewRecord> = (0..50)
            .map(|k| NewRecord {
                timestamp: 1_700_000_000_000 + k,
                key: (k % 2 == 0).then(|| format!("key {k}").into_bytes()),
                value: Some(value.clone().into_bytes()),
                headers: vec![],
            })
            .collect();
        let at = log.len();
        match i {
            40 => {
                let spec = BatchSpec { compression: Compression::Lz4, ..BatchSpec::plain(base, 0) };
                log.extend(encode_batch(&spec, &records));
                // Damage the compressed stream, keep the CRC right: only decoding notices.
                for b in &mut log[at + 70..at + 90] {
                    *b ^= 0x5a;
                }
                fix_crc(&mut log, at);
                undecodable = at;
            }
            80 => {
                let marker = NewRecord {
                    timestamp: 9,
                    key: Some([0u8, 0, 0, 1].to_vec()),
                    value: Some([0u8, 0, 0, 0, 0, 3].to_vec()),
                    headers: vec![],
                };
                let spec = BatchSpec {
                    is_control: true,
                    is_transactional: true,
                    producer_id: 3,
                    producer_epoch: 0,
                    ..BatchSpec::plain(base, 0)
                };
                log.extend(encode_batch(&spec, &[marker]));
            }
            _ => log.extend(encode_batch(&BatchSpec::plain(base, 0), &records)),
        }
    }
    log.extend_from_slice(&[0, 0, 0, 0, 0, 0, 0, 1, 0, 0]);
    fs::write(segment(&d), &log).unwrap();
    let run = |extra: &[&str]| {
        let a = klog().args(["dump", s(&d), "--format", "kafka"]).args(extra).assert().success();
        let o = a.get_output();
        (o.stdout.clone(), String::from_utf8(o.stderr.clone()).unwrap())
    };
    let (parallel, parallel_err) = run(&[]);
    // `--limit` keeps the dump sequential.
    let (sequential, sequential_err) = run(&["--limit", "1000000"]);
    assert!(parallel == sequential, "the chunked dump's stdout differs from the sequential one");
    assert_eq!(parallel_err, sequential_err);
    let text = String::from_utf8(parallel).unwrap();
    assert_eq!(text.lines().filter(|l| l.starts_with("| offset: ")).count(), 118 * 50 + 1);
    assert!(text.ends_with("Found 10 invalid bytes at the end of 00000000000000000000.log\n"));
    // A step into every printed batch but the first (the undecodable one prints no record).
    let steps: Vec<&str> = parallel_err.lines().filter(|l| l.contains(" is followed by ")).collect();
    assert_eq!(steps.len(), 118, "{parallel_err}");
    assert!(steps.contains(&"  59051 is followed by 5"), "{parallel_err}");
    assert!(steps.contains(&"  54 is followed by 61001"), "{parallel_err}");
    assert!(parallel_err.contains(&format!("the batch at position {undecodable} ")), "{parallel_err}");
}

/// Every JSON document klog prints opens with `"schema":1` (`output::json::SCHEMA`): the
/// hand-written record lines of `dump --json` as much as the serde ones, the one-document
/// forms (`recover`, `diff`, `explore`) and the data-dir and cluster forms.
#[test]
fn every_json_document_opens_with_the_schema_version() {
    let lab = Lab::new();
    let a = lab.create("a", 1, &[]);
    let b = lab.create("b", 2, &["--segment-bytes", "300"]);
    ok(&["elect", s(&b), "--isr", s(&a)]);
    ok(&["append", s(&b), "m1", "m2", "--key", "k", "--header", "h=v"]);
    // `explore` may write its counterexample's script where it runs: in the lab.
    let explore = klog()
        .current_dir(lab.dir.path())
        .args(["explore", "--mode", "hw", "--max-records", "1", "--no-timing", "--json"])
        .assert()
        .code(1)
        .get_output()
        .stdout
        .clone();
    let mut outputs = vec![
        ok(&["fetch", "--leader", s(&b), s(&a), "--rounds", "1", "--json"]),
        ok(&["dump", s(&b), "--json"]),
        ok(&["dump", s(&b), "--json", "--batches"]),
        ok(&["dump", s(&b), "--json", "--epochs"]),
        ok(&["dump", s(&b.join("demo-0/leader-epoch-checkpoint")), "--json"]),
        ok(&["check", s(&b), "--json"]),
        ok(&["txn", s(&b), "--json"]),
        ok(&["diff", s(&a), s(&b), "--json"]),
        ok(&["recover", s(&a), "--leader", s(&b), "--dry-run", "--json"]),
        String::from_utf8(explore).unwrap(),
    ];
    if let Some(real) = kafka_real() {
        let (zk, kraft) = (real.join("zk-broker-2020"), real.join("kraft-broker-2026"));
        outputs.push(ok(&["dump", s(&kraft.join("__cluster_metadata-0")), "--json", "--limit", "3"]));
        outputs.push(ok(&["check", s(&zk), "--json"]));
        outputs.push(ok(&["recover", "--dry-run", s(&zk), "--json"]));
        outputs.push(ok(&["history", s(&kraft), "--json"]));
        let zk21 = real.join("zk-broker-2021");
        let three = ["check", s(&zk), s(&zk21), s(&kraft), "--json", "--allow-other-cluster"];
        outputs.push(code(&three, 1).0);
    }
    let mut documents = 0;
    for text in &outputs {
        for line in text.lines().filter(|l| !l.trim().is_empty()) {
            assert!(line.starts_with("{\"schema\":1,\""), "a document without the schema first: {line}");
            let v: Value = serde_json::from_str(line).expect("a JSON line");
            assert_eq!(v["schema"], 1);
            assert!(v["type"].is_string(), "{line}");
            documents += 1;
        }
    }
    assert!(documents > outputs.len(), "{documents} documents");
}
