//! The write comparison: every way klog writes a log dir, judged by Kafka's own code.
//!
//! Each case builds a log dir through the real binary (appends with each codec and batch
//! shape, size, time and index-full rolls, follower fetches, each truncation mode, crash and
//! recovery, a restart, several partitions), then `klog stop`s it. Two copies go to the oracle:
//! - `load` (Kafka's `LogManager.loadLogs`) must open the first with no recovery and no
//!   rebuild, and find the LEO, log start, segments and epoch entries `klog dump --json` shows;
//! - `rebuild` deletes the second copy's `.index`, `.timeindex` and `.snapshot` files and the
//!   marker and lets Kafka recover them: what Kafka rebuilt must equal, byte for byte, what klog
//!   wrote, and so must the `leader-epoch-checkpoint` Kafka leaves.
//!
//! Every case goes into one `load-batch` and one `rebuild-batch` call (one JVM each). A
//! difference that must stay is a row of `tests/oracle/write-differences.tsv` (case, file kind,
//! reason); a listed difference that goes away fails the test, so the list stays true.

use crate::common::*;
use crate::oracle::{load_batch, meta_batch, rebuild_batch, report_agreement, LoadCase};
use serde_json::Value;
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// Kafka's smallest `segment.bytes`; below it the oracle passes Kafka's test-only
/// `internal.segment.bytes` (`LogConfig.segmentSize` prefers it), as klog accepts smaller.
const KAFKA_MIN_SEGMENT_BYTES: u64 = 1 << 20;

/// The log lines of a load that recovered or rebuilt something. ("rebuilding producer state"
/// is logged by every load; that it starts from klog's snapshot at the LEO is checked through
/// `latest_snapshot_offset`.)
const NOT_CLEAN: [&str; 5] =
    ["Recovering", "corrupted index", "Could not find offset index", "rebuilding index", "Found invalid"];

/// The derived files compared byte for byte, by kind. A difference in which files of a kind
/// exist is reported as kind `<kind>-files`, apart from the bytes of the files both hold.
const KINDS: [&str; 4] = ["index", "timeindex", "snapshot", "leader-epoch-checkpoint"];

/// One log dir klog wrote, stopped cleanly.
struct Case {
    name: String,
    dir: PathBuf,
}

/// Builds the cases in one temp dir.
struct Cases {
    lab: Lab,
    cases: Vec<Case>,
}

impl Cases {
    /// `klog create` a log dir for case `name` (topic `t` unless `extra` names one) and elect
    /// it leader at epoch 0.
    fn leader(&self, name: &str, extra: &[&str]) -> PathBuf {
        let dir = self.create(name, extra);
        ok(&["elect", s(&dir)]);
        dir
    }

    fn create(&self, name: &str, extra: &[&str]) -> PathBuf {
        let dir = self.lab.path(name);
        let mut args = vec!["create", s(&dir), "--topic", "t"];
        args.extend_from_slice(extra);
        ok(&args);
        dir
    }

    /// `klog stop` the dir and keep it as case `name`.
    fn done(&mut self, name: &str, dir: &Path) {
        ok(&["stop", s(dir)]);
        self.cases.push(Case { name: name.to_string(), dir: dir.to_path_buf() });
    }
}

fn append(dir: &Path, args: &[&str]) {
    let mut a = vec!["append", s(dir)];
    a.extend_from_slice(args);
    ok(&a);
}

/// Values `prefix0..prefix{n-1}`, each padded to `width` bytes.
fn values(prefix: &str, n: usize, width: usize) -> Vec<String> {
    (0..n).map(|i| format!("{prefix}{i:0>w$}", w = width.saturating_sub(prefix.len()))).collect()
}

fn append_values(dir: &Path, vals: &[String], extra: &[&str]) {
    let mut a: Vec<&str> = vals.iter().map(String::as_str).collect();
    a.extend_from_slice(extra);
    append(dir, &a);
}

/// Every write path, each ending in a clean stop.
fn build_cases() -> Cases {
    let mut c = Cases { lab: Lab::new(), cases: Vec::new() };
    let small = ["--index-interval-bytes", "100"];

    let d = c.leader("empty", &[]);
    c.done("empty", &d);

    let d = c.leader("one-record", &[]);
    append(&d, &["only", "--timestamp", "1000"]);
    c.done("one-record", &d);

    for codec in ["none", "gzip", "snappy", "lz4", "zstd"] {
        let name = format!("codec-{codec}");
        let d = c.leader(&name, &small);
        let z = ["--compression", codec];
        append(&d, &[&["single", "--timestamp", "1000"][..], &z].concat());
        append_values(&d, &values("k", 30, 40), &[&["--key", "user-7", "--records-per-batch", "4"][..], &z].concat());
        append_values(
            &d,
            &values("h", 12, 20),
            &[&["--header", "trace=abc", "--header", "nullvalued", "--timestamp", "2000"][..], &z].concat(),
        );
        append(&d, &[&["--count", "300", "--value-size", "64", "--records-per-batch", "25"][..], &z].concat());
        c.done(&name, &d);
    }

    let d = c.leader("many-batches-one-request", &small);
    append(&d, &["--count", "200", "--value-size", "10", "--records-per-batch", "1", "--timestamp", "5000"]);
    c.done("many-batches-one-request", &d);

    let d = c.leader("timestamps-in-order", &small);
    for (i, ts) in [1000, 2000, 2000, 3000, 4500, 9000].iter().enumerate() {
        append_values(&d, &values(&format!("r{i}-"), 6, 30), &["--timestamp", &ts.to_string()]);
    }
    c.done("timestamps-in-order", &d);

    let d = c.leader("timestamps-out-of-order", &["--index-interval-bytes", "50"]);
    for (i, ts) in [5000, 1000, 7000, 3000, 7000, 2000, 9000, 8000, 100, 9500].iter().enumerate() {
        append_values(&d, &values(&format!("o{i}-"), 3, 30), &["--timestamp", &ts.to_string()]);
    }
    c.done("timestamps-out-of-order", &d);

    let d = c.leader("large-values", &[]);
    append(&d, &["--count", "5", "--value-size", "300000", "--records-per-batch", "1", "--timestamp", "1000"]);
    append(&d, &["--count", "2", "--value-size", "900000", "--records-per-batch", "2", "--timestamp", "2000"]);
    c.done("large-values", &d);

    let d = c.leader("size-rolls", &["--segment-bytes", "2000", "--index-interval-bytes", "100"]);
    append(&d, &["--count", "300", "--value-size", "20", "--records-per-batch", "5", "--timestamp", "1000"]);
    append(&d, &["--count", "40", "--value-size", "20", "--records-per-batch", "3", "--compression", "lz4"]);
    c.done("size-rolls", &d);

    let d = c.leader("time-rolls", &["--segment-ms", "100", "--index-interval-bytes", "60"]);
    for ts in [1000, 1050, 1100, 1101, 1150, 1300, 1250, 1401, 2000, 2001] {
        append_values(&d, &values(&format!("t{ts}-"), 2, 20), &["--timestamp", &ts.to_string()]);
    }
    c.done("time-rolls", &d);

    let d = c.leader("index-full-rolls", &["--segment-index-bytes", "36", "--index-interval-bytes", "0"]);
    append(&d, &["--count", "40", "--value-size", "10", "--records-per-batch", "2", "--timestamp", "1000"]);
    c.done("index-full-rolls", &d);

    // A leader elected at a log end it never wrote to: its epoch entry starts at the LEO.
    let d = c.leader("elected-unwritten", &small);
    append(&d, &["--count", "5", "--value-size", "10", "--timestamp", "1000"]);
    ok(&["elect", s(&d), "--epoch", "1"]);
    c.done("elected-unwritten", &d);

    // A restart in the middle of a segment: the writer resumes the indexes klog wrote.
    let d = c.leader("restart-append", &small);
    append(&d, &["--count", "30", "--value-size", "30", "--records-per-batch", "3", "--timestamp", "1000"]);
    ok(&["stop", s(&d)]);
    ok(&["elect", s(&d)]);
    append(&d, &["--count", "30", "--value-size", "30", "--records-per-batch", "3", "--timestamp", "900"]);
    append(&d, &["--count", "9", "--value-size", "30", "--records-per-batch", "3", "--timestamp", "1100"]);
    c.done("restart-append", &d);

    // Several epochs across rolls, and the Kafka 0.11-2.0 first-append entry.
    let d = c.leader("epochs", &["--segment-bytes", "1500", "--index-interval-bytes", "100"]);
    for (e, ts) in [(0, 1000), (2, 2000), (5, 3000)] {
        if e > 0 {
            ok(&["elect", s(&d), "--epoch", &e.to_string()]);
        }
        append(
            &d,
            &["--count", "20", "--value-size", "25", "--records-per-batch", "4", "--timestamp", &ts.to_string()],
        );
    }
    ok(&["elect", s(&d), "--epoch", "7", "--epoch-entry", "first-append"]);
    append(&d, &["last", "--timestamp", "4000"]);
    c.done("epochs", &d);

    // Follower fetches: small rounds, over rolls, batches copied unchanged.
    let l = c.create("fetch-leader", &["--segment-bytes", "3000", "--index-interval-bytes", "100"]);
    let f =
        c.create("fetch-follower", &["--segment-bytes", "3000", "--index-interval-bytes", "100", "--replica-id", "1"]);
    ok(&["elect", s(&l), "--isr", s(&f)]);
    append(&l, &["--count", "60", "--value-size", "30", "--records-per-batch", "4", "--timestamp", "1000"]);
    append(&l, &["--count", "30", "--value-size", "30", "--records-per-batch", "6", "--compression", "zstd"]);
    ok(&["fetch", "--leader", s(&l), s(&f), "--until-caught-up", "--max-bytes", "500"]);
    c.done("fetch-follower", &f);
    c.done("fetch-leader", &l);

    // Each truncation mode, on the KIP-279 fast-failover history (replication-model.md S3).
    for mode in ["hw", "kip101", "kip279"] {
        let a = c.create(&format!("truncate-{mode}-leader"), &["--index-interval-bytes", "60"]);
        let b = c.create(&format!("truncate-{mode}"), &["--index-interval-bytes", "60", "--replica-id", "1"]);
        ok(&["elect", s(&a), "--epoch", "1", "--isr", s(&b)]);
        append_values(&a, &values("a", 11, 12), &["--timestamp", "1000"]);
        ok(&["fetch", "--leader", s(&a), s(&b), "--rounds", "3"]);
        append_values(&a, &values("a1", 10, 12), &["--timestamp", "2000"]);
        ok(&["elect", s(&b), "--epoch", "2", "--isr", s(&a)]);
        append_values(&b, &values("b", 5, 12), &["--timestamp", "3000"]);
        ok(&["elect", s(&a), "--epoch", "3", "--isr", s(&b)]);
        append(&a, &["a21", "--timestamp", "4000"]);
        ok(&["recover", s(&b), "--leader", s(&a), "--mode", mode]);
        // The same, then writing on after the cut: the follower refetches from the leader
        // (not after kip101's cut, which leaves this history diverged: its fetch is stuck).
        if mode == "kip101" {
            c.done(&format!("truncate-{mode}"), &b);
            continue;
        }
        let (a2, b2) = (c.lab.path(&format!("refetch-{mode}-leader")), c.lab.path(&format!("refetch-{mode}")));
        copy_dir(&a, &a2);
        copy_dir(&b, &b2);
        c.done(&format!("truncate-{mode}"), &b);
        append_values(&a2, &values("c", 7, 12), &["--timestamp", "2500"]);
        ok(&["fetch", "--leader", s(&a2), s(&b2), "--until-caught-up", "--max-bytes", "200"]);
        c.done(&format!("refetch-{mode}"), &b2);
    }

    // A follower whose cut is below the leader's log start deletes its log and starts empty at
    // the leader's log start (`truncateFullyAndStartAt`), then fetches on from there. The
    // leader's log start is raised as Kafka's deleteRecords leaves it (klog has no retention).
    let a = c.create("restart-at-start-leader", &["--index-interval-bytes", "60"]);
    let b = c.create("restart-at-start", &["--index-interval-bytes", "60", "--replica-id", "1"]);
    ok(&["elect", s(&a), "--epoch", "0", "--isr", s(&b)]);
    append_values(&a, &values("s", 6, 12), &["--timestamp", "1000", "--records-per-batch", "1"]);
    ok(&["fetch", "--leader", s(&a), s(&b), "--rounds", "2", "--max-bytes", "1"]);
    ok(&["crash", s(&b)]);
    ok(&["stop", s(&a)]);
    std::fs::write(a.join("log-start-offset-checkpoint"), "0\n1\nt 0 4\n").unwrap();
    ok(&["elect", s(&a), "--epoch", "1", "--isr", s(&b)]);
    ok(&["recover", s(&b), "--leader", s(&a)]);
    let b2 = c.lab.path("restart-at-start-fetched");
    copy_dir(&b, &b2);
    c.done("restart-at-start", &b);
    let a2 = c.lab.path("restart-at-start-leader-2");
    copy_dir(&a, &a2);
    ok(&["fetch", "--leader", s(&a2), s(&b2), "--until-caught-up"]);
    c.done("restart-at-start-fetched", &b2);

    // Crashes, then local recovery (and a write after it).
    for (name, crash) in [
        ("crash-power-loss", &["--power-loss"][..]),
        ("crash-torn", &["--torn-bytes", "7"][..]),
        ("crash-flip", &["--flip-byte", "--seed", "3"][..]),
        ("crash-drop-index", &["--drop-index"][..]),
        ("crash-drop-epochs", &["--drop-epoch-checkpoint"][..]),
    ] {
        let d = c.leader(name, &["--segment-bytes", "2500", "--index-interval-bytes", "100"]);
        append(
            &d,
            &["--count", "40", "--value-size", "30", "--records-per-batch", "4", "--timestamp", "1000", "--flush"],
        );
        append(&d, &["--count", "40", "--value-size", "30", "--records-per-batch", "4", "--timestamp", "2000"]);
        let mut args = vec!["crash", s(&d)];
        args.extend_from_slice(crash);
        ok(&args);
        ok(&["recover", s(&d)]);
        c.done(name, &d);
        // Then writing on from the recovered tail.
        let on = c.lab.path(&format!("{name}-append"));
        copy_dir(&d, &on);
        ok(&["elect", s(&on)]);
        append(&on, &["--count", "12", "--value-size", "30", "--records-per-batch", "4", "--timestamp", "1500"]);
        c.done(&format!("{name}-append"), &on);
    }

    // A broker's data dir: several partitions, each written.
    let d = c.create("partitions", &["--partitions", "3", "--index-interval-bytes", "100"]);
    for p in 0..3 {
        let part = format!("t-{p}");
        ok(&["elect", s(&d), "--partition", &part]);
        let n = (10 * (p + 1)).to_string();
        append(&d, &["--partition", &part, "--count", &n, "--value-size", "40", "--records-per-batch", "3"]);
    }
    c.done("partitions", &d);
    c
}

/// Per-topic config overrides for the oracle, from klog's own state file.
fn overrides(dir: &Path) -> Vec<String> {
    let state: Value = serde_json::from_slice(&std::fs::read(dir.join("klog-state.json")).unwrap()).unwrap();
    let mut out = BTreeSet::new();
    for (part, p) in state["partitions"].as_object().unwrap() {
        let topic = &part[..part.rfind('-').unwrap()];
        let cfg = &p["config"];
        let n = |k: &str| cfg[k].as_u64().unwrap();
        let seg = if n("segment_bytes") < KAFKA_MIN_SEGMENT_BYTES { "internal.segment.bytes" } else { "segment.bytes" };
        out.insert(format!("{topic}:{seg}={}", n("segment_bytes")));
        out.insert(format!("{topic}:index.interval.bytes={}", n("index_interval_bytes")));
        out.insert(format!("{topic}:segment.index.bytes={}", n("index_bytes_max")));
        out.insert(format!("{topic}:segment.ms={}", n("segment_ms")));
    }
    out.into_iter().collect()
}

/// Partition dirs of a log dir (those holding a `partition.metadata`).
fn partitions(dir: &Path) -> Vec<String> {
    let mut out: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.join("partition.metadata").is_file())
        .map(|p| p.file_name().unwrap().to_str().unwrap().to_string())
        .collect();
    out.sort();
    out
}

/// What klog says of one partition: LEO, log start, segments (base, size), epoch entries, and
/// the latest producer snapshot klog wrote.
fn klog_view(dir: &Path, part: &str) -> Value {
    let lines = json_lines(&ok(&["dump", s(dir), "--partition", part, "--json", "--epochs"]));
    let replica = lines.iter().find(|v| v["type"] == "replica").expect("a replica line");
    let mut segments = Vec::new();
    for e in std::fs::read_dir(dir.join(part)).unwrap() {
        let p = e.unwrap().path();
        let name = p.file_name().unwrap().to_str().unwrap().to_string();
        if let Some(base) = name.strip_suffix(".log") {
            segments.push((base.parse::<i64>().unwrap(), std::fs::metadata(&p).unwrap().len()));
        }
    }
    segments.sort();
    let latest_snapshot = snapshots(&dir.join(part)).into_iter().max();
    let dumped: Vec<i64> = json_lines(&ok(&["dump", s(dir), "--partition", part, "--json", "--batches"]))
        .iter()
        .filter(|v| v["type"] == "segment")
        .map(|v| v["base_offset"].as_i64().unwrap())
        .collect();
    assert_eq!(dumped, segments.iter().map(|s| s.0).collect::<Vec<_>>(), "klog dump lists the segment files");
    let epochs: Vec<Value> = lines
        .iter()
        .filter(|v| v["type"] == "epoch")
        .map(|v| serde_json::json!([v["leader_epoch"], v["start_offset"]]))
        .collect();
    serde_json::json!({
        "log_end_offset": replica["log_end_offset"],
        "log_start_offset": replica["log_start_offset"],
        "segments": segments.iter().map(|(b, n)| serde_json::json!({"base_offset": b, "size": n})).collect::<Vec<_>>(),
        "epochs": epochs,
        "latest_snapshot_offset": latest_snapshot,
    })
}

/// Offsets of the producer snapshots in a partition dir.
fn snapshots(part_dir: &Path) -> Vec<i64> {
    std::fs::read_dir(part_dir)
        .unwrap()
        .filter_map(|e| e.unwrap().file_name().to_str()?.strip_suffix(".snapshot")?.parse().ok())
        .collect()
}

/// Kafka's view of one partition from a `load` answer, in the shape of [`klog_view`].
fn kafka_view(answer: &Value, part: &str) -> Option<Value> {
    let log = answer["logs"].as_array()?.iter().find(|l| l["dir"] == part)?;
    Some(serde_json::json!({
        "log_end_offset": log["log_end_offset"],
        "log_start_offset": log["log_start_offset"],
        "segments": log["segments"],
        "epochs": log["epochs"],
        "latest_snapshot_offset": log["latest_snapshot_offset"],
    }))
}

/// The kind a partition file is compared as, if it is a derived file.
fn kind_of(name: &str) -> Option<&'static str> {
    KINDS.iter().copied().find(|k| name == *k || name.strip_suffix(k).is_some_and(|s| s.ends_with('.')))
}

/// Derived files of a partition dir, by kind: name -> bytes.
fn derived(part_dir: &Path) -> BTreeMap<&'static str, BTreeMap<String, Vec<u8>>> {
    let mut out: BTreeMap<&'static str, BTreeMap<String, Vec<u8>>> = BTreeMap::new();
    for e in std::fs::read_dir(part_dir).unwrap() {
        let p = e.unwrap().path();
        let name = p.file_name().unwrap().to_str().unwrap().to_string();
        if let Some(kind) = kind_of(&name) {
            out.entry(kind).or_default().insert(name, std::fs::read(&p).unwrap());
        }
    }
    out
}

/// How two sets of files of one kind differ: (bytes of files both hold, the set of names).
fn compare_files(
    ours: &BTreeMap<String, Vec<u8>>,
    kafkas: &BTreeMap<String, Vec<u8>>,
) -> (Option<String>, Option<String>) {
    let mut bytes_differ = None;
    for (name, bytes) in ours {
        let Some(theirs) = kafkas.get(name) else { continue };
        if bytes != theirs && bytes_differ.is_none() {
            let at = bytes.iter().zip(theirs).position(|(x, y)| x != y).unwrap_or(bytes.len().min(theirs.len()));
            bytes_differ = Some(format!(
                "{name}: klog {} bytes, Kafka {} bytes, first difference at byte {at} (klog {}, Kafka {})",
                bytes.len(),
                theirs.len(),
                hex(bytes),
                hex(theirs)
            ));
        }
    }
    let (a, b): (BTreeSet<&String>, BTreeSet<&String>) = (ours.keys().collect(), kafkas.keys().collect());
    let names_differ = (a != b).then(|| format!("klog wrote {a:?}, Kafka {b:?}"));
    (bytes_differ, names_differ)
}

fn hex(b: &[u8]) -> String {
    let shown: String = b.iter().take(48).map(|x| format!("{x:02x}")).collect();
    if b.len() > 48 {
        shown + "…"
    } else {
        shown
    }
}

/// The documented differences: (case, kind) -> reason.
fn documented() -> BTreeMap<(String, String), String> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/oracle/write-differences.tsv");
    let text = std::fs::read_to_string(&path).unwrap_or_default();
    let mut out = BTreeMap::new();
    for line in text.lines().filter(|l| !l.trim().is_empty() && !l.starts_with('#')) {
        let f: Vec<&str> = line.splitn(3, '\t').collect();
        assert!(f.len() == 3 && !f[2].trim().is_empty(), "{}: a row is case, kind, reason: {line:?}", path.display());
        let known = f[1] == "load" || KINDS.iter().any(|k| f[1] == *k || f[1].strip_suffix("-files") == Some(k));
        assert!(known, "{}: unknown kind {:?}", path.display(), f[1]);
        out.insert((f[0].to_string(), f[1].to_string()), f[2].to_string());
    }
    out
}

#[test]
fn kafka_loads_every_dir_klog_writes_cleanly_and_rebuilds_the_same_derived_files() {
    let built = build_cases();
    let scratch = built.lab.path("oracle");
    let mut loads = Vec::new();
    let mut rebuilds = Vec::new();
    for case in &built.cases {
        let o = overrides(&case.dir);
        for (list, what) in [(&mut loads, "load"), (&mut rebuilds, "rebuild")] {
            let copy = scratch.join(what).join(&case.name);
            copy_dir(&case.dir, &copy);
            list.push(LoadCase { dir: copy, overrides: o.clone() });
        }
    }
    let Some(loaded) = load_batch(built.lab.dir.path(), &loads) else { return };
    let Some(rebuilt) = rebuild_batch(built.lab.dir.path(), &rebuilds) else { return };

    // (case, kind) -> what differs.
    let mut found: BTreeMap<(String, String), String> = BTreeMap::new();
    for ((case, load), (rebuild_case, rebuild)) in built.cases.iter().zip(&loaded).zip(rebuilds.iter().zip(&rebuilt)) {
        let key = |k: &str| (case.name.clone(), k.to_string());
        let mut load_problems = Vec::new();
        if load["clean_shutdown_marker"] != true || load["outcome"] != "loaded" {
            load_problems.push(format!(
                "marker {} outcome {} error {}",
                load["clean_shutdown_marker"], load["outcome"], load["error"]
            ));
        }
        for line in load["kafka_log"].as_array().unwrap().iter().filter_map(Value::as_str) {
            if NOT_CLEAN.iter().any(|w| line.contains(w)) {
                load_problems.push(format!("Kafka logged: {line}"));
            }
        }
        let parts = partitions(&case.dir);
        let loaded_dirs = load["logs"].as_array().unwrap().len();
        if loaded_dirs != parts.len() {
            load_problems.push(format!("Kafka loaded {loaded_dirs} logs, klog wrote {}", parts.len()));
        }
        for part in &parts {
            let ours = klog_view(&case.dir, part);
            match kafka_view(load, part) {
                Some(theirs) if theirs == ours => {}
                theirs => load_problems.push(format!("{part}: klog {ours}, Kafka {theirs:?}")),
            }
            if rebuild["outcome"] != "loaded" {
                found.insert(key("index"), format!("the rebuild did not load: {}", rebuild["error"]));
                continue;
            }
            let ours = derived(&case.dir.join(part));
            let theirs = derived(&rebuild_case.dir.join(part));
            for kind in KINDS {
                let empty = BTreeMap::new();
                let (a, b) = (ours.get(kind).unwrap_or(&empty), theirs.get(kind).unwrap_or(&empty));
                let (bytes, names) = compare_files(a, b);
                if let Some(d) = bytes {
                    found.entry(key(kind)).or_default().push_str(&format!("{part}: {d}; "));
                }
                if let Some(d) = names {
                    found.entry(key(&format!("{kind}-files"))).or_default().push_str(&format!("{part}: {d}; "));
                }
            }
        }
        if !load_problems.is_empty() {
            found.insert(key("load"), load_problems.join("; "));
        }
    }

    // The roll cases really rolled (so that the comparison covers several segments).
    for (name, at_least) in [("size-rolls", 5), ("time-rolls", 3), ("index-full-rolls", 3), ("epochs", 3)] {
        let i = built.cases.iter().position(|c| c.name == name).unwrap();
        let n = loaded[i]["logs"][0]["segments"].as_array().unwrap().len();
        assert!(n >= at_least, "{name}: {n} segments, expected at least {at_least}");
    }

    let listed = documented();
    let agree = built.cases.iter().filter(|c| !found.keys().any(|(name, _)| *name == c.name)).count();
    report_agreement("write", agree, built.cases.len());
    let unlisted: Vec<String> = found
        .iter()
        .filter(|(k, _)| !listed.contains_key(*k))
        .map(|((case, kind), d)| format!("{case} {kind}: {d}"))
        .collect();
    let now_agree: Vec<String> =
        listed.keys().filter(|k| !found.contains_key(*k)).map(|(case, kind)| format!("{case} {kind}")).collect();
    assert!(unlisted.is_empty(), "klog's files differ from Kafka's:\n{}", unlisted.join("\n"));
    assert!(
        now_agree.is_empty(),
        "listed in tests/oracle/write-differences.tsv but now agree with Kafka (remove the rows): {}",
        now_agree.join(", ")
    );
}

/// `key=value` lines of a properties file, comments left out.
fn properties(path: &Path) -> BTreeMap<String, String> {
    std::fs::read_to_string(path)
        .unwrap()
        .lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
        .map(|l| {
            let (k, v) = l.split_once('=').unwrap_or_else(|| panic!("{}: not key=value: {l:?}", path.display()));
            (k.to_string(), v.to_string())
        })
        .collect()
}

#[test]
fn kafka_reads_the_meta_properties_and_partition_metadata_klog_writes() {
    let lab = Lab::new();
    let one = lab.create("one", 3, &["--topic", "orders"]);
    let many = lab.create("many", 7, &["--topic", "t.x_y-z", "--partitions", "4", "--partition", "2"]);
    ok(&["create", s(&many), "--topic", "other", "--partitions", "2"]);
    let cases = [(one, 3), (many, 7)];
    let copies: Vec<(PathBuf, i32)> = cases
        .iter()
        .map(|(d, n)| {
            let copy = lab.path("oracle").join(d.file_name().unwrap());
            copy_dir(d, &copy);
            (copy, *n)
        })
        .collect();
    let Some(answers) = meta_batch(lab.dir.path(), &copies) else { return };
    let mut agree = 0;
    for ((dir, node_id), a) in cases.iter().zip(&answers) {
        assert_eq!(a["meta_error"], Value::Null, "{}: Kafka's MetaProperties refused it", dir.display());
        assert_eq!(a["verify_error"], Value::Null, "{}: a broker with node id {node_id} refuses it", dir.display());
        let ours = properties(&dir.join("meta.properties"));
        let theirs: BTreeMap<String, String> = a["meta_properties"]
            .as_object()
            .unwrap()
            .iter()
            .map(|(k, v)| (k.clone(), v.as_str().unwrap().to_string()))
            .collect();
        assert_eq!(ours, theirs, "{}: the keys Kafka reads back (toProperties) are the ones klog wrote", dir.display());
        let parts = partitions(dir);
        assert_eq!(a["partitions"].as_object().unwrap().len(), parts.len());
        for part in &parts {
            let p = &a["partitions"][part.as_str()];
            assert_eq!(p["error"], Value::Null, "{part}: Kafka's PartitionMetadataFile refused it");
            let bytes = std::fs::read_to_string(dir.join(part).join("partition.metadata")).unwrap();
            assert_eq!(p["encoded"].as_str().unwrap(), bytes, "{part}: the bytes Kafka writes for its topic id");
        }
        agree += 1;
    }
    report_agreement("write (meta.properties, partition.metadata)", agree, cases.len());
}
