//! Kafka's own `DumpLogSegments` (the oracle's `dump-batch`, one JVM) judges `klog dump --format
//! kafka`, line for line, stdout and stderr apart, on every file of every fixture, of a corpus of
//! dirs klog makes here (each codec, multi-record batches, keys, headers, epochs, size and time
//! rolls, fetched followers, every crash mode, seeded bit flips, damaged indexes, transactions,
//! legacy messages, KRaft control records) and of `../shared/kafka-real`; and where the two
//! meet, Kafka's per-batch `isvalid` and "invalid bytes at the end" judge `klog check`'s
//! findings. A case that differs on purpose is a row of `tests/oracle/dump-differences.tsv`
//! (kind, case pattern, Kafka's exception or `-`, reason); a listed case that starts agreeing, or
//! a row no differing case matches, fails the test, so the list only ever shrinks. Everything runs on copies in a temp dir.

use crate::common::*;
use crate::oracle::{dump_batch, report_agreement, Dumped};
use replica_lab::format::batch::{encode_batch, BatchSpec};
use replica_lab::format::compression::Compression;
use replica_lab::format::producer_snapshot::{self, ProducerEntry};
use replica_lab::format::record::NewRecord;
use replica_lab::format::txn_index::AbortedTxn;
use std::collections::BTreeSet;
use std::fs;
use std::path::{Path, PathBuf};

/// Kafka's flags that `klog dump --format kafka` mirrors.
const KAFKA_FLAGS: [&str; 2] = ["--deep-iteration", "--print-data-log"];
const CODECS: [&str; 5] = ["none", "gzip", "snappy", "lz4", "zstd"];

/// One row of the documented list: `kind` is `dump` or `check`; `kafka_error`, when not `-`,
/// limits the row to cases where Kafka's tool threw an exception whose `Class: message` holds
/// it (klog's stdout must then still begin with everything Kafka printed before it threw).
pub(crate) struct Listed {
    pub kind: String,
    pub pattern: String,
    pub kafka_error: Option<String>,
    pub reason: String,
}

pub(crate) fn listed_differences() -> Vec<Listed> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/oracle/dump-differences.tsv");
    let text = fs::read_to_string(&path).expect("tests/oracle/dump-differences.tsv");
    text.lines()
        .filter(|l| !l.trim().is_empty() && !l.starts_with('#'))
        .map(|l| {
            let f: Vec<&str> = l.split('\t').collect();
            assert_eq!(f.len(), 4, "{}: `kind<TAB>pattern<TAB>kafka error or -<TAB>reason`: {l}", path.display());
            assert!(f[0] == "dump" || f[0] == "check", "{l}");
            assert!(!f[3].trim().is_empty(), "a listed difference needs its reason: {l}");
            let kafka_error = (f[2] != "-").then(|| f[2].to_string());
            Listed { kind: f[0].into(), pattern: f[1].into(), kafka_error, reason: f[3].into() }
        })
        .collect()
}

/// `*` matches any run of characters (slashes included).
pub(crate) fn glob(pattern: &str, name: &str) -> bool {
    let parts: Vec<&str> = pattern.split('*').collect();
    if parts.len() == 1 {
        return pattern == name;
    }
    let (first, last) = (parts[0], parts[parts.len() - 1]);
    if !name.starts_with(first) || !name[first.len()..].ends_with(last) || name.len() < first.len() + last.len() {
        return false;
    }
    let mut rest = &name[first.len()..name.len() - last.len()];
    for p in &parts[1..parts.len() - 1] {
        match rest.find(p) {
            Some(i) => rest = &rest[i + p.len()..],
            None => return false,
        }
    }
    true
}

/// The decoder flag `DumpLogSegments` needs to print a file's data records as klog does: klog
/// picks the decoder by name (KRaft snapshots and `__cluster_metadata`, `__consumer_offsets`,
/// `__transaction_state` partitions); Kafka's tool is told.
pub(crate) fn decoder_flag(file: &Path) -> Option<&'static str> {
    if file.extension().is_some_and(|e| e == "checkpoint") {
        return Some("--cluster-metadata-decoder");
    }
    let dir = file.parent()?.file_name()?.to_str()?;
    let topic = &dir[..dir.rfind('-')?];
    match topic {
        "__cluster_metadata" => Some("--cluster-metadata-decoder"),
        "__consumer_offsets" => Some("--offsets-decoder"),
        "__transaction_state" => Some("--transaction-log-decoder"),
        _ => None,
    }
}

/// One dump to compare: klog's arguments after `dump --format kafka`, and Kafka's `--files`.
struct Case {
    name: String,
    klog_path: PathBuf,
    kafka_files: Vec<PathBuf>,
}

/// Every file under `dir`, sorted.
fn files_under(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in fs::read_dir(&d).unwrap() {
            let e = e.unwrap();
            if e.file_type().unwrap().is_dir() {
                stack.push(e.path());
            } else {
                out.push(e.path());
            }
        }
    }
    out.sort();
    out
}

/// Partition dirs (holding a `.log`) under `dir`, sorted.
fn partition_dirs(dir: &Path) -> Vec<PathBuf> {
    let mut dirs: BTreeSet<PathBuf> = BTreeSet::new();
    for f in files_under(dir) {
        if f.extension().is_some_and(|e| e == "log") {
            dirs.insert(f.parent().unwrap().to_path_buf());
        }
    }
    dirs.into_iter().collect()
}

fn rec(timestamp: i64, key: Option<&[u8]>, value: Option<&[u8]>) -> NewRecord {
    NewRecord { timestamp, key: key.map(<[u8]>::to_vec), value: value.map(<[u8]>::to_vec), headers: vec![] }
}

fn control_record(type_id: i16, value: Vec<u8>) -> NewRecord {
    let key = [0i16.to_be_bytes(), type_id.to_be_bytes()].concat();
    NewRecord { timestamp: 10, key: Some(key), value: Some(value), headers: vec![] }
}

/// A replica named `name` whose only segment holds `log`.
fn replica_with_log(lab: &Lab, name: &str, log: &[u8]) -> PathBuf {
    let d = lab.create(name, 1, &[]);
    fs::write(d.join("demo-0/00000000000000000000.log"), log).unwrap();
    d
}

/// One legacy message (magic 0 or 1), by hand.
fn legacy_entry(offset: i64, magic: i8, timestamp: i64, key: Option<&[u8]>, value: Option<&[u8]>) -> Vec<u8> {
    legacy_message(offset, magic, 0, timestamp, key, value)
}

/// A gzip wrapper message holding `inner` (legacy messages whose offsets are relative for
/// magic 1, absolute for magic 0), at the absolute offset of its last inner message.
fn legacy_gzip_wrapper(offset: i64, magic: i8, timestamp: i64, inner: &[Vec<u8>]) -> Vec<u8> {
    use std::io::Write;
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    gz.write_all(&inner.concat()).unwrap();
    legacy_message(offset, magic, 1, timestamp, None, Some(&gz.finish().unwrap()))
}

/// The dirs klog makes: each a log dir under `made/`.
fn make_corpus(lab: &Lab) -> PathBuf {
    let made = lab.path("made");
    let m = |name: &str| made.join(name);
    let run = |args: &[&str]| {
        ok(args);
    };
    // Each codec: multi-record batches with keys and headers (one with a null value), three
    // epochs, 600-byte segments with an index entry every 100 bytes, stopped cleanly.
    for c in CODECS {
        let d = m(&format!("codec-{c}"));
        let d = s(&d);
        run(&["create", d, "--replica-id", "1", "--segment-bytes", "600", "--index-interval-bytes", "100"]);
        run(&["elect", d, "--epoch", "0"]);
        run(&[
            "append",
            d,
            "a",
            "b",
            "c",
            "--key",
            "k",
            "--header",
            "h=v",
            "--header",
            "n",
            "--compression",
            c,
            "--timestamp",
            "1000",
        ]);
        run(&[
            "append",
            d,
            "--count",
            "20",
            "--value-size",
            "30",
            "--records-per-batch",
            "4",
            "--compression",
            c,
            "--timestamp",
            "2000",
        ]);
        run(&["elect", d, "--epoch", "3"]);
        run(&["append", d, "x", "y", "--compression", c, "--timestamp", "3000"]);
        run(&["stop", d]);
    }
    // Time rolls (segment.ms), crashed with the index of the active segment dropped.
    let d = m("time-roll");
    let d = s(&d);
    run(&["create", d, "--replica-id", "1", "--segment-ms", "1000"]);
    run(&["elect", d, "--epoch", "0"]);
    for t in ["1000", "1500", "3000", "3100", "6000"] {
        run(&["append", d, "r", "--timestamp", t]);
    }
    run(&["crash", d, "--drop-index"]);
    // A leader and a follower that fetched from it, both stopped.
    let (a, b) = (m("fetch-a"), m("fetch-b"));
    run(&["create", s(&a), "--replica-id", "1"]);
    run(&["create", s(&b), "--replica-id", "2"]);
    run(&["elect", s(&b), "--epoch", "0", "--isr", s(&a)]);
    run(&["append", s(&b), "m1", "m2", "--timestamp", "1000"]);
    run(&["fetch", "--leader", s(&b), s(&a), "--rounds", "3"]);
    run(&["append", s(&b), "m3", "--timestamp", "2000", "--compression", "gzip"]);
    run(&["fetch", "--leader", s(&b), s(&a), "--rounds", "2"]);
    run(&["stop", s(&a)]);
    run(&["stop", s(&b)]);
    // Crash modes, and seeded bit flips anywhere in a batch (CRC-covered or not), on a plain
    // and a compressed log.
    let crashes: Vec<(String, Vec<String>)> = [
        ("torn", vec!["--torn-bytes", "7"]),
        ("power-loss", vec!["--power-loss", "--hw", "0"]),
        ("no-epochs", vec!["--drop-epoch-checkpoint", "--drop-index"]),
    ]
    .into_iter()
    .map(|(n, a)| (n.to_string(), a.into_iter().map(String::from).collect()))
    .chain((1..=10).map(|seed| (format!("flip-{seed}"), vec!["--flip-byte".into(), "--seed".into(), seed.to_string()])))
    .collect();
    for codec in ["none", "zstd"] {
        for (name, flags) in &crashes {
            let d = m(&format!("crash-{codec}-{name}"));
            let d = s(&d);
            run(&["create", d, "--replica-id", "1", "--index-interval-bytes", "60"]);
            run(&["elect", d, "--epoch", "2"]);
            run(&["append", d, "p0", "p1", "--key", "k", "--compression", codec, "--timestamp", "1000", "--flush"]);
            for i in 0..4 {
                run(&[
                    "append",
                    d,
                    &format!("q{i}"),
                    "--header",
                    "h=1",
                    "--compression",
                    codec,
                    "--timestamp",
                    &(2000 + i).to_string(),
                ]);
            }
            let mut args = vec!["crash", d];
            args.extend(flags.iter().map(String::as_str));
            run(&args);
        }
    }
    // Damaged indexes: an offset entry one off, a time entry with another timestamp, a time
    // entry that goes backwards, a partial trailing entry.
    for (name, damage) in [("idx-off", 0usize), ("tidx-ts", 1), ("tidx-order", 2), ("idx-partial", 3)] {
        let d = m(name);
        run(&["create", s(&d), "--replica-id", "1", "--index-interval-bytes", "50"]);
        run(&["elect", s(&d), "--epoch", "0"]);
        for i in 0..6 {
            run(&["append", s(&d), &format!("v{i}"), "--timestamp", &(1000 + i).to_string()]);
        }
        run(&["stop", s(&d)]);
        let index = d.join("demo-0/00000000000000000000.index");
        let time = d.join("demo-0/00000000000000000000.timeindex");
        match damage {
            0 => {
                let mut b = fs::read(&index).unwrap();
                b[3] = b[3].wrapping_add(1);
                fs::write(&index, b).unwrap();
            }
            1 => {
                let mut b = fs::read(&time).unwrap();
                b[7] ^= 0x40;
                fs::write(&time, b).unwrap();
            }
            2 => {
                let mut b = fs::read(&time).unwrap();
                let first: Vec<u8> = b[..8].to_vec();
                b[12..20].copy_from_slice(&first);
                fs::write(&time, b).unwrap();
            }
            _ => {
                let mut b = fs::read(&index).unwrap();
                b.extend_from_slice(&[0, 0, 0]);
                fs::write(&index, b).unwrap();
            }
        }
    }
    // Hand-made batches klog's CLI does not write: a transaction (data, COMMIT, data, ABORT)
    // with its .txnindex and producer snapshot, an idempotent batch whose sequence wraps,
    // binary keys and values (line breaks, malformed UTF-8), null keys and values, headers with
    // null values, LogAppendTime, KRaft control records, and legacy v0/v1 messages.
    let txn = BatchSpec {
        producer_id: 4000,
        producer_epoch: 2,
        base_sequence: 7,
        is_transactional: true,
        compression: Compression::Lz4,
        ..BatchSpec::plain(0, 1)
    };
    let marker = |base_offset: i64, commit: bool| {
        let value = [&0i16.to_be_bytes()[..], &9i32.to_be_bytes()].concat();
        let spec = BatchSpec { is_control: true, compression: Compression::None, ..BatchSpec { base_offset, ..txn } };
        encode_batch(&spec, &[control_record(commit as i16, value)])
    };
    let r = |v: &str| rec(5, None, Some(v.as_bytes()));
    let log = [
        encode_batch(&txn, &[r("t1"), r("t2")]),
        marker(2, true),
        encode_batch(&BatchSpec { base_offset: 3, base_sequence: 9, ..txn }, &[r("t3")]),
        marker(4, false),
        encode_batch(
            &BatchSpec { producer_id: 77, producer_epoch: 0, base_sequence: i32::MAX - 1, ..BatchSpec::plain(5, 1) },
            &[r("w0"), r("w1"), r("w2")],
        ),
    ]
    .concat();
    let d = replica_with_log(lab, "made/txn", &log);
    let p = d.join("demo-0");
    let aborted = AbortedTxn { version: 0, producer_id: 4000, first_offset: 3, last_offset: 4, last_stable_offset: 3 };
    fs::write(p.join("00000000000000000000.txnindex"), aborted.encode()).unwrap();
    let entry = ProducerEntry {
        producer_id: 4000,
        producer_epoch: 2,
        last_sequence: 9,
        last_offset: 3,
        offset_delta: 0,
        timestamp: 5,
        coordinator_epoch: 9,
        current_txn_first_offset: -1,
    };
    let bare =
        ProducerEntry { producer_id: 78, last_offset: -1, last_sequence: -1, current_txn_first_offset: 3, ..entry };
    let snapshot = producer_snapshot::encode(&[entry, bare]);
    fs::write(p.join("00000000000000000008.snapshot"), &snapshot).unwrap();
    let mut flipped = snapshot.clone();
    flipped[20] ^= 1;
    fs::write(p.join("00000000000000000009.snapshot"), &flipped).unwrap();
    fs::write(p.join("00000000000000000010.snapshot"), &snapshot[..15]).unwrap();

    let header = |k: &str, v: Option<&[u8]>| (k.as_bytes().to_vec(), v.map(<[u8]>::to_vec));
    let mut with_headers = rec(7, Some(b"k\nk"), None);
    with_headers.headers = vec![header("a", Some(b"1")), header("b", None), header("c", Some(b""))];
    // Seeded random bytes biased to UTF-8 lead and continuation bytes: Java's decoder replaces
    // malformed input in its own units.
    let mut seed = 0x9e37_79b9_7f4a_7c15u64;
    let mut next = move || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed
    };
    let pool =
        [0x41u8, 0x80, 0x9f, 0xa0, 0xbf, 0xc0, 0xc2, 0xdf, 0xe0, 0xe2, 0xed, 0xef, 0xf0, 0xf4, 0xf5, 0xff, 0x90, 0x8f];
    let noise: Vec<NewRecord> = (0..40)
        .map(|_| {
            let len = (next() % 12) as usize;
            let v: Vec<u8> = (0..len).map(|_| pool[(next() % pool.len() as u64) as usize]).collect();
            rec(6, Some(&v[..len / 2]), Some(&v))
        })
        .collect();
    let mut binary = vec![
        rec(6, Some(&[0xff, 0xfe, b'x', 0xc3]), Some(b"line one\nline two\r\n")),
        rec(6, None, None),
        rec(6, Some(b""), Some(&[0xed, 0xa0, 0x80, 0xf0, 0x9f, 0x98, 0x80, 0xe2, 0x82])),
        with_headers,
    ];
    binary.extend(noise);
    let mut log_append = encode_batch(&BatchSpec::plain(44, 0), &[rec(8, None, Some(b"lat"))]);
    log_append[22] |= 0x08; // attributes: LogAppendTime (CRC fixed below)
    let crc = replica_lab::format::batch::crc32c(&log_append[21..]);
    log_append[17..21].copy_from_slice(&crc.to_be_bytes());
    // LeaderChangeMessage v0 (leader 1, voters [1, 2], granting [1]), SnapshotHeader, SnapshotFooter,
    // KRaftVersion, and an unknown control type.
    let leader_change = [
        &0i16.to_be_bytes()[..],
        &1i32.to_be_bytes(),
        &[3],
        &1i32.to_be_bytes(),
        &[0],
        &2i32.to_be_bytes(),
        &[0],
        &[2],
        &1i32.to_be_bytes(),
        &[0],
        &[0],
    ]
    .concat();
    let control = BatchSpec { is_control: true, ..BatchSpec::plain(45, 1) };
    let log = [
        encode_batch(&BatchSpec::plain(0, 0), &binary),
        log_append,
        encode_batch(&control, &[control_record(2, leader_change)]),
        encode_batch(&BatchSpec { base_offset: 46, ..control }, &[control_record(3, vec![0; 11])]),
        encode_batch(&BatchSpec { base_offset: 47, ..control }, &[control_record(4, vec![0, 0, 0])]),
        encode_batch(&BatchSpec { base_offset: 48, ..control }, &[control_record(5, vec![0, 0, 0, 1, 0])]),
        encode_batch(&BatchSpec { base_offset: 49, ..control }, &[control_record(9, vec![0, 0])]),
    ]
    .concat();
    replica_with_log(lab, "made/records", &log);

    let log = [
        legacy_entry(0, 0, 0, Some(b"key0"), Some(b"v0")),
        legacy_entry(1, 0, 0, None, Some(b"")),
        legacy_entry(2, 1, 1_500_000_000_002, None, None),
        legacy_entry(3, 1, 1_500_000_000_003, Some(b"k"), Some(b"v1")),
        // Compressed wrappers: v1 inner offsets are relative (0..2 are 4..6), v0's absolute.
        legacy_gzip_wrapper(
            6,
            1,
            1_500_000_000_006,
            &[
                legacy_entry(0, 1, 1_500_000_000_004, Some(b"in"), Some(b"r4")),
                legacy_entry(1, 1, 1_500_000_000_005, None, Some(b"r5")),
                legacy_entry(2, 1, 1_500_000_000_006, None, Some(b"r6")),
            ],
        ),
        legacy_gzip_wrapper(
            8,
            0,
            0,
            &[legacy_entry(7, 0, 0, None, Some(b"a7")), legacy_entry(8, 0, 0, None, Some(b"a8"))],
        ),
    ]
    .concat();
    replica_with_log(lab, "made/legacy", &log);
    // Kafka's internal topics, records made from klog's schema table with seeded random values:
    // every metadata record type and version (also as a KRaft snapshot), every
    // __consumer_offsets and __transaction_state record type and value version, tombstones.
    let mut rng = crate::internal_records::Rng::new(21);
    let metadata: Vec<_> =
        crate::internal_records::metadata_values(&mut rng, 3).into_iter().map(|v| (None, Some(v))).collect();
    for (topic, records) in [
        ("__cluster_metadata", metadata),
        (
            "__consumer_offsets",
            crate::internal_records::coordinator_records("group", &mut rng, 2)
                .into_iter()
                .map(|(k, v)| (Some(k), v))
                .collect(),
        ),
        (
            "__transaction_state",
            crate::internal_records::coordinator_records("transaction", &mut rng, 4)
                .into_iter()
                .map(|(k, v)| (Some(k), v))
                .collect(),
        ),
    ] {
        let d = m(&format!("internal{topic}"));
        run(&["create", s(&d), "--replica-id", "1", "--topic", topic]);
        let log = crate::internal_records::segment(&records);
        fs::write(d.join(format!("{topic}-0/00000000000000000000.log")), &log).unwrap();
        if topic == "__cluster_metadata" {
            fs::write(d.join(format!("{topic}-0/00000000000000000100-0000000001.checkpoint")), &log).unwrap();
        }
    }
    for (topic, records) in crate::internal_records::damaged() {
        let d = m(&format!("internal-damaged{topic}"));
        run(&["create", s(&d), "--replica-id", "1", "--topic", topic]);
        fs::write(d.join(format!("{topic}-0/00000000000000000000.log")), crate::internal_records::segment(&records))
            .unwrap();
    }
    made
}

/// Kafka's verdict on one `.log` from its dump: the positions of batches it prints with
/// `isvalid: false`, and where the "invalid bytes at the end" start.
pub(crate) fn kafka_invalid_positions(stdout: &str, log_len: u64) -> BTreeSet<u64> {
    let mut out = BTreeSet::new();
    for line in stdout.lines() {
        if line.ends_with(" isvalid: false") {
            out.insert(batch_position(line).expect("a batch line has a position"));
        }
        if let Some(rest) = line.strip_prefix("Found ") {
            let n: u64 = rest.split(' ').next().unwrap().parse().unwrap();
            out.insert(log_len - n);
        }
    }
    out
}

/// The position on a batch line of Kafka's dump.
pub(crate) fn batch_position(line: &str) -> Option<u64> {
    if line.starts_with('|') || !line.contains(" isvalid: ") {
        return None;
    }
    line.split(" position: ").nth(1)?.split(' ').next()?.parse().ok()
}

#[test]
fn klog_dump_kafka_format_and_check_agree_with_kafka_dump_log_segments() {
    let lab = Lab::new();
    let root = lab.dir.path().to_path_buf();
    for name in ["multi-epoch", "torn-tail", "bad-crc", "missing-index", "diverged"] {
        copy_dir(&Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures").join(name), &root.join("fixtures").join(name));
    }
    let made = make_corpus(&lab);
    let real = kafka_real();
    if let Some(real) = &real {
        for broker in ["zk-broker-2020", "zk-broker-2021", "kraft-broker-2026"] {
            copy_dir(&real.join(broker), &root.join("real").join(broker));
        }
    }
    let name = |p: &Path| p.strip_prefix(&root).unwrap().display().to_string();

    // Every file on its own, and every partition dir as one dump of all its segments.
    let mut cases: Vec<Case> = files_under(&root)
        .into_iter()
        .map(|f| Case { name: name(&f), klog_path: f.clone(), kafka_files: vec![f] })
        .collect();
    let partitions = partition_dirs(&root);
    for p in &partitions {
        let logs: Vec<PathBuf> = files_under(p)
            .into_iter()
            .filter(|f| f.parent() == Some(p.as_path()) && f.extension().is_some_and(|e| e == "log"))
            .collect();
        cases.push(Case { name: format!("{}/ (all segments)", name(p)), klog_path: p.clone(), kafka_files: logs });
    }
    // klog first (Kafka's index classes create a missing `.index` beside a `.timeindex`).
    let klog_runs: Vec<(i32, String, String)> = cases
        .iter()
        .map(|c| {
            let out = klog().args(["dump", "--format", "kafka", s(&c.klog_path)]).output().unwrap();
            (
                out.status.code().unwrap_or(-1),
                String::from_utf8_lossy(&out.stdout).into_owned(),
                String::from_utf8_lossy(&out.stderr).into_owned(),
            )
        })
        .collect();
    // klog check on every partition dir, before Kafka touches anything.
    let checks: Vec<Vec<serde_json::Value>> = partitions
        .iter()
        .map(|p| {
            let out = klog().args(["check", s(p), "--json"]).output().unwrap();
            assert!(
                matches!(out.status.code(), Some(0 | 1)),
                "{}: {}",
                p.display(),
                String::from_utf8_lossy(&out.stderr)
            );
            json_lines(&String::from_utf8_lossy(&out.stdout))
        })
        .collect();
    let manifest: Vec<Vec<String>> = cases
        .iter()
        .map(|c| {
            let files: Vec<&str> = c.kafka_files.iter().map(|f| s(f)).collect();
            let mut args: Vec<String> = KAFKA_FLAGS.iter().map(|f| f.to_string()).collect();
            args.extend(c.kafka_files.first().and_then(|f| decoder_flag(f)).map(String::from));
            args.extend(["--files".to_string(), files.join(",")]);
            args
        })
        .collect();
    let scratch = tempfile::tempdir().unwrap();
    let Some(kafka) = dump_batch(scratch.path(), &manifest) else { return };

    let listed = listed_differences();
    let listed_for = |kind: &str, case: &str, error: &Option<String>| {
        listed.iter().position(|l| {
            l.kind == kind
                && glob(&l.pattern, case)
                && match (&l.kafka_error, error) {
                    (None, _) => true,
                    (Some(want), Some(got)) => got.contains(want.as_str()),
                    (Some(_), None) => false,
                }
        })
    };
    let mut used = vec![0usize; listed.len()];
    let mut agree = 0;
    // The cases Kafka dumps with a decoder and that hold decoded records.
    let (mut decoded_agree, mut decoded_total) = (0, 0);
    let mut failures: Vec<String> = Vec::new();
    for ((c, (klog_code, klog_out, klog_err)), k) in cases.iter().zip(&klog_runs).zip(&kafka) {
        let Dumped { stdout, stderr, error } = k;
        let same = error.is_none() && *klog_code == 0 && klog_out == stdout && klog_err == stderr;
        let decoded = stdout.contains(" payload: {\"type\":\"") || stdout.contains(" key: {\"type\":\"");
        if decoded {
            decoded_total += 1;
            decoded_agree += usize::from(same);
        }
        match (same, listed_for("dump", &c.name, error)) {
            (true, None) => agree += 1,
            (true, Some(i)) => failures.push(format!(
                "{}: listed as a difference ({}) but now agrees: drop the row",
                c.name, listed[i].pattern
            )),
            // Where Kafka's tool threw, klog still printed all Kafka printed before it did.
            (false, Some(i)) if error.is_some() && !klog_out.starts_with(stdout.as_str()) => failures.push(format!(
                "{} (listed: {}): klog's stdout does not begin with what Kafka printed before it threw\n{}",
                c.name,
                listed[i].pattern,
                describe(&c.name, *klog_code, klog_out, klog_err, k)
            )),
            (false, Some(i)) => used[i] += 1,
            (false, None) => failures.push(describe(&c.name, *klog_code, klog_out, klog_err, k)),
        }
    }
    report_agreement("dump", agree, cases.len());
    report_agreement("dump with Kafka's internal-topic decoders", decoded_agree, decoded_total);

    // `klog check` against Kafka's per-batch verdicts, on every .log Kafka dumped to the end.
    let mut check_total = 0;
    let mut check_agree = 0;
    let mut check_with_findings = 0;
    for (p, findings) in partitions.iter().zip(&checks) {
        for (c, k) in cases.iter().zip(&kafka) {
            if c.kafka_files.len() != 1 || c.klog_path.parent() != Some(p.as_path()) || !c.name.ends_with(".log") {
                continue;
            }
            check_total += 1;
            let log_len = fs::metadata(&c.klog_path).unwrap().len();
            let mut kafka_says = kafka_invalid_positions(&k.stdout, log_len);
            // Where Kafka's tool threw, it threw on the records of the last batch it printed:
            // that batch is invalid too, and nothing past it was judged.
            let judged_up_to = match &k.error {
                Some(_) => {
                    let last = k.stdout.lines().rev().find_map(batch_position);
                    kafka_says.extend(last);
                    last.unwrap_or(0)
                }
                None => u64::MAX,
            };
            let klog_says: BTreeSet<u64> = findings
                .iter()
                .filter(|f| f["type"] == "finding" && f["path"] == s(&c.klog_path))
                .filter_map(|f| f["position"].as_u64())
                .filter(|p| *p <= judged_up_to)
                .collect();
            check_with_findings += usize::from(!kafka_says.is_empty());
            let same = kafka_says == klog_says;
            match (same, listed_for("check", &c.name, &None)) {
                (true, None) => check_agree += 1,
                (true, Some(i)) => failures
                    .push(format!("{}: check listed ({}) but now agrees: drop the row", c.name, listed[i].pattern)),
                (false, Some(i)) => used[i] += 1,
                (false, None) => failures.push(format!(
                    "{}: klog check finds positions {klog_says:?}, Kafka's isvalid/trailing bytes say {kafka_says:?}\n{}",
                    c.name,
                    findings.iter().map(|f| f.to_string()).collect::<Vec<_>>().join("\n")
                )),
            }
        }
    }
    report_agreement("check", check_agree, check_total);
    assert!(
        check_with_findings >= 10,
        "only {check_with_findings} logs with invalid batches: the check comparison is thin"
    );
    for (l, n) in listed.iter().zip(&used) {
        if *n == 0 {
            failures.push(format!(
                "listed difference `{}\t{}\t{}` ({}) matches no differing case: drop it",
                l.kind,
                l.pattern,
                l.kafka_error.as_deref().unwrap_or("-"),
                l.reason
            ));
        }
    }
    assert!(failures.is_empty(), "{} disagreement(s) with Kafka:\n{}", failures.len(), failures.join("\n\n"));
    // The corpus is what it says it is (a shrinking corpus would agree trivially).
    assert!(cases.len() > 150, "{}", cases.len());
    assert!(made.join("codec-zstd").is_dir());
    if real.is_some() {
        assert!(cases.len() > 700, "{}", cases.len());
        // the real KRaft metadata log, its bootstrap snapshot, and the real __consumer_offsets
        // logs that hold records (offset commits v1 and v3, group metadata, tombstones), each
        // alone and as its partition
        assert!(decoded_total >= 20, "{decoded_total} cases with decoded records");
    }
}

/// The first differing line of stdout or stderr, for the failure message.
pub(crate) fn describe(name: &str, klog_code: i32, out: &str, err: &str, k: &Dumped) -> String {
    let first_diff = |a: &str, b: &str| {
        let (a, b): (Vec<&str>, Vec<&str>) = (a.lines().collect(), b.lines().collect());
        (0..a.len().max(b.len()))
            .find(|&i| a.get(i) != b.get(i))
            .map(|i| format!("line {}:\n  klog : {:?}\n  kafka: {:?}", i + 1, a.get(i), b.get(i)))
    };
    let mut d = format!("{name}: klog exit {klog_code}");
    if let Some(e) = &k.error {
        d.push_str(&format!("; Kafka's tool threw {e}"));
    }
    if let Some(x) = first_diff(out, &k.stdout) {
        d.push_str(&format!("\n stdout {x}"));
    }
    if let Some(x) = first_diff(err, &k.stderr) {
        d.push_str(&format!("\n stderr {x}"));
    }
    d
}

#[test]
fn globs_match_as_the_difference_list_uses_them() {
    assert!(glob("real/*/__cluster_metadata-0/*.log", "real/kraft/__cluster_metadata-0/0.log"));
    assert!(glob("made/crash-*-flip-3/*", "made/crash-zstd-flip-3/demo-0/x.log"));
    assert!(!glob("made/crash-*-flip-3/*", "made/crash-zstd-flip-30"));
    assert!(glob("exact", "exact") && !glob("exact", "exactly"));
    assert!(!glob("a*a", "a"));
}
