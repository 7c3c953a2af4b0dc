//! Tiered storage (KIP-405) on a real Kafka 4.4 cluster, read by klog from copies. Three
//! brokers with `remote.log.storage.system.enable=true`, Kafka's own `LocalTieredStorage`
//! (kafka-storage test-fixtures) as the remote storage manager, the default topic-based
//! metadata manager (`__remote_log_metadata`, three partitions), and a topic with
//! `remote.storage.enable=true`, 2 KiB segments and 4 KiB of local retention. Records are
//! produced until segments go remote and are deleted locally; once the cluster is quiet every
//! broker is paused while its data dir and the remote dir are copied.
//!
//! A second run kills the leader (kill -9) while an upload is caught half done (Kafka's own
//! copying, held after the segment's `.log` by `klog.oracle.SlowTransferer`), lets the new
//! leader go on, and judges the copies the same way: the half-done copy is klog's one finding,
//! and Kafka's fold lists it as COPY_SEGMENT_STARTED.
//!
//! Judged against Kafka: klog's remote segment table (`klog remote --json`) equals the one
//! Kafka's own `RemotePartitionMetadataStore` folds from the same metadata copies
//! (`klog.oracle.Tiered`); the log start and local log start klog reads in the leader's dir
//! are what the running leader answers to ListOffsets earliest and earliest-local; every
//! `__remote_log_metadata` record is decoded by name, in `klog remote` and in `klog dump`; and
//! nothing is a finding, the remote files included.

use crate::common::{copy_dir, json_lines, klog};
use crate::kraft_brokers::{classpath, Cluster};
use crate::real_failovers::leader;
use serde_json::Value;
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::thread::sleep;
use std::time::{Duration, Instant};

macro_rules! say {
    ($($arg:tt)*) => {{
        use std::io::Write;
        let _ = writeln!(std::io::stderr(), $($arg)*);
    }};
}

/// `klog.oracle.Tiered remote-segments DIRS`: Kafka's remote segment list, and its summary.
fn kafka_remote_segments(dirs: &[String]) -> (Vec<Value>, Value) {
    let cp = classpath().expect("the oracle's classpath");
    let out = Command::new("java")
        .args(["-Xmx256m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1", "-cp", &cp, "klog.oracle.Tiered"])
        .arg("remote-segments")
        .args(dirs)
        .output()
        .expect("java runs");
    assert!(out.status.success(), "oracle: {}", String::from_utf8_lossy(&out.stderr));
    let mut lines = json_lines(&String::from_utf8_lossy(&out.stdout));
    let summary = lines.pop().expect("the oracle's summary line");
    (lines, summary)
}

/// A remote segment as both sides print it, for comparison.
fn segment_key(v: &Value, epochs: Vec<(i64, i64)>) -> String {
    format!(
        "{}-{} {} {}..{} {:?} {} broker {} {} bytes max {} event {}",
        v["topic"].as_str().unwrap(),
        v["partition"],
        v["segment_id"].as_str().unwrap(),
        v["start_offset"],
        v["end_offset"],
        epochs,
        v["state"].as_str().unwrap(),
        v["broker_id"],
        v["segment_size_in_bytes"],
        v["max_timestamp_ms"],
        v["event_timestamp_ms"]
    )
}

/// The broker settings of a tiered cluster whose LocalTieredStorage lives in `remote`.
fn tiered_settings(remote: &Path) -> Vec<String> {
    [
        "remote.log.storage.system.enable=true",
        "remote.log.storage.manager.class.name=org.apache.kafka.server.log.remote.storage.LocalTieredStorage",
        &format!("rsm.config.dir={}", remote.display()),
        // Kafka's own copying, slowed only while a `slow-upload` file sits in `remote`.
        "rsm.config.transferer.class=klog.oracle.SlowTransferer",
        "remote.log.metadata.manager.listener.name=PLAINTEXT",
        "rlmm.config.remote.log.metadata.topic.replication.factor=3",
        "rlmm.config.remote.log.metadata.topic.num.partitions=3",
        // Copy and expire every second (default 30 s), local retention checked every second.
        "remote.log.manager.task.interval.ms=1000",
        "log.retention.check.interval.ms=1000",
        "log.segment.delete.delay.ms=0",
        // The log-start-offset checkpoint (a tiered partition's log start across both tiers)
        // written every second (default 60 s), so a paused broker's copy holds it.
        "log.flush.start.offset.checkpoint.interval.ms=1000",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect()
}

fn start(remote: &Path) -> Option<Cluster> {
    let settings = tiered_settings(remote);
    let extra: Vec<&str> = settings.iter().map(String::as_str).collect();
    let mut c = Cluster::start_release(crate::oracle::KAFKA_VERSION, &[], &extra)?;
    let created = c.kc(
        "create",
        &[
            "t",
            "1,2,3",
            "remote.storage.enable=true",
            "internal.segment.bytes=2048",
            "local.retention.bytes=4096",
            // Size alone decides locally: a time limit would roll and move the active segment too.
            "local.retention.ms=600000",
            "min.insync.replicas=2",
        ],
    );
    assert!(created.first().is_some_and(|a| a.get("created").is_some()), "create: {created:?}");
    c.wait_for("t", 30, |d| leader(d) == 1).unwrap_or_else(|d| panic!("no leader 1: {d}"));
    Some(c)
}

fn produce(c: &mut Cluster, prefix: &str, count: usize) {
    let acks = c.kc("produce", &["t", prefix, "0", &count.to_string()]);
    assert!(acks.iter().all(|a| a["outcome"] == "acked"), "produce: {acks:?}");
}

fn offsets(c: &mut Cluster) -> Value {
    c.kc("tiered-offsets", &["t", "0"]).pop().expect("an answer")
}

/// Wait until the cluster is quiet: the same earliest, earliest-local and latest five times a
/// second apart, with segments already remote and deleted locally.
fn settle(c: &mut Cluster) -> Value {
    let deadline = Instant::now() + Duration::from_secs(120);
    let mut last = offsets(c);
    let mut same = 0;
    while same < 5 {
        assert!(Instant::now() < deadline, "the cluster did not settle: {last}");
        sleep(Duration::from_secs(1));
        let now = offsets(c);
        same = if now == last && now["earliest_local"].as_i64() > Some(0) { same + 1 } else { 0 };
        last = now;
    }
    last
}

/// Copies of the data dirs of brokers 1-3 (each live one paused meanwhile) and of the remote dir.
fn copy_all(c: &mut Cluster, remote: &Path, copies: &Path) -> (Vec<String>, PathBuf) {
    let alive: Vec<usize> = (1..=3).filter(|&n| c.alive(n)).collect();
    for &n in &alive {
        c.pause(n);
    }
    let dirs: Vec<String> = (1..=3)
        .map(|n| {
            let d = copies.join(format!("data{n}"));
            copy_dir(&c.data_dir(n), &d);
            d.display().to_string()
        })
        .collect();
    let remote_copy = copies.join("remote");
    copy_dir(remote, &remote_copy);
    let _ = std::fs::remove_file(remote_copy.join("slow-upload"));
    for &n in &alive {
        c.resume(n);
    }
    (dirs, remote_copy)
}

/// `klog remote --json` over the copies: its exit code and lines.
fn klog_remote(dirs: &[String], remote_copy: &Path) -> (i32, Vec<Value>) {
    let out = klog().arg("remote").arg("--json").args(dirs).arg("--remote-dir").arg(remote_copy).output().unwrap();
    assert!(out.status.code() != Some(2), "klog remote: {}", String::from_utf8_lossy(&out.stderr));
    (out.status.code().unwrap(), json_lines(&String::from_utf8_lossy(&out.stdout)))
}

fn of(lines: &[Value], t: &str) -> Vec<Value> {
    lines.iter().filter(|l| l["type"] == t).cloned().collect()
}

/// klog's remote segment table and Kafka's fold of the same metadata copies, as comparable
/// lines; Kafka's summary.
fn tables(lines: &[Value]) -> (BTreeSet<String>, BTreeSet<String>, Value) {
    let metadata_dirs: Vec<String> =
        of(lines, "metadata_partition").iter().map(|m| m["dir"].as_str().unwrap().to_string()).collect();
    let (kafka, kafka_summary) = kafka_remote_segments(&metadata_dirs);
    let klog_segments: BTreeSet<String> = of(lines, "remote_segment")
        .iter()
        .map(|v| {
            let e = v["segment_leader_epochs"].as_array().unwrap();
            segment_key(
                v,
                e.iter().map(|x| (x["leader_epoch"].as_i64().unwrap(), x["start_offset"].as_i64().unwrap())).collect(),
            )
        })
        .collect();
    let kafka_segments: BTreeSet<String> = kafka
        .iter()
        .map(|v| {
            let e = v["segment_leader_epochs"].as_array().unwrap();
            segment_key(v, e.iter().map(|x| (x[0].as_i64().unwrap(), x[1].as_i64().unwrap())).collect())
        })
        .collect();
    (klog_segments, kafka_segments, kafka_summary)
}

/// Every record read was decoded by name; the count.
fn all_decoded(lines: &[Value]) -> (u64, Value) {
    let summary = of(lines, "summary").pop().expect("a summary");
    let records = summary["records_read"].as_u64().unwrap();
    let decoded: u64 = summary["decoded_by_name"].as_object().unwrap().values().map(|v| v.as_u64().unwrap()).sum();
    assert!(records > 0, "{summary}");
    assert_eq!(decoded, records, "every record decoded by name: {summary}");
    (records, summary)
}

#[test]
fn klog_reads_a_real_tiered_cluster_as_kafka_folds_and_serves_it() {
    let started = Instant::now();
    let remote = tempfile::tempdir().unwrap();
    let Some(mut c) = start(remote.path()) else { return };
    let produced = 600;
    produce(&mut c, "v", produced as usize);
    let last = settle(&mut c);
    let earliest = last["earliest"].as_i64().unwrap();
    let earliest_local = last["earliest_local"].as_i64().unwrap();
    assert_eq!(last["latest"].as_i64(), Some(produced), "{last}");
    assert!(earliest_local > earliest, "nothing went remote: {last}");
    let copies = tempfile::tempdir().unwrap();
    let (dirs, remote_copy) = copy_all(&mut c, remote.path(), copies.path());
    assert_eq!(offsets(&mut c), last, "the cluster changed while it was copied");

    // klog's reading: nothing is a finding, every record decoded by name.
    let (code, lines) = klog_remote(&dirs, &remote_copy);
    let (records, summary) = all_decoded(&lines);
    assert_eq!((code, summary["finding_count"].as_u64()), (0, Some(0)), "{lines:?}");

    // Kafka's fold of the same metadata copies.
    let (klog_segments, kafka_segments, kafka_summary) = tables(&lines);
    assert_eq!(kafka_summary["records"].as_u64(), Some(records), "{kafka_summary}");
    assert_eq!(kafka_summary["thrown"], 0, "{kafka_summary}");
    assert_eq!(klog_segments, kafka_segments, "klog's remote segment table is Kafka's");

    // What the leader serves: from the first remote segment (earliest), from local disk at
    // its first local segment (earliest-local); the tiers meet with no gap.
    let remote_segments = of(&lines, "remote_segment");
    let first_remote = remote_segments.iter().map(|v| v["start_offset"].as_i64().unwrap()).min().unwrap();
    let last_remote = remote_segments.iter().map(|v| v["end_offset"].as_i64().unwrap()).max().unwrap();
    assert_eq!(first_remote, earliest, "{last}");
    assert!(last_remote + 1 >= earliest_local, "a gap between the tiers: remote ends at {last_remote}, {last}");
    let leader_dir = Path::new(&dirs[0]);
    let local = of(&lines, "local");
    let leader_side =
        local.iter().find(|l| Path::new(l["data_dir"].as_str().unwrap()) == leader_dir).expect("t-0 in broker 1's dir");
    assert_eq!(leader_side["log_start_offset"].as_i64(), Some(earliest), "{leader_side}");
    assert_eq!(leader_side["local_log_start_offset"].as_i64(), Some(earliest_local), "{leader_side}");

    // `klog dump` of the leader's t-0 shows its local log start and, from the checkpoint, the
    // log start the leader serves from.
    let out = klog().args(["dump", "--json"]).arg(leader_dir.join("t-0")).output().unwrap();
    let header = json_lines(&String::from_utf8_lossy(&out.stdout)).into_iter().next().expect("a replica line");
    assert_eq!(header["log_start_offset"].as_i64(), Some(earliest_local), "{header}");
    assert_eq!(header["log_start_offset_checkpoint_below_local"].as_i64(), Some(earliest), "{header}");

    // `klog dump` of each metadata partition names every record.
    let mut dumped = 0;
    for m in of(&lines, "metadata_partition") {
        let dir = m["dir"].as_str().unwrap();
        let out = klog().args(["dump", "--json", dir]).output().unwrap();
        assert!(out.status.success(), "dump {dir}");
        for l in json_lines(&String::from_utf8_lossy(&out.stdout)).iter().filter(|l| l["type"] == "record") {
            assert_eq!(l["decoded"]["kind"], "remote_log_metadata", "{l}");
            assert!(l["decoded"]["name"].as_str().is_some_and(|n| n.starts_with("Remote")), "{l}");
            dumped += 1;
        }
    }
    assert_eq!(dumped, records);

    // `klog check` over the three dirs and the remote dir: nothing needs a look, locally or
    // across the tiers; each broker's log start and local log start are what the leader serves.
    let out = klog().arg("check").arg("--json").args(&dirs).arg("--remote-dir").arg(&remote_copy).output().unwrap();
    let check = json_lines(&String::from_utf8_lossy(&out.stdout));
    assert_eq!(out.status.code(), Some(0), "{check:?}");
    let check_summary = check.iter().find(|l| l["type"] == "summary").expect("a check summary");
    assert_eq!(check_summary["partitions_needing_attention"], 0, "{check:?}");
    let tiered = check.iter().find(|l| l["type"] == "tiered_summary").expect("check's tiered summary");
    assert_eq!((tiered["finding_count"].as_u64(), tiered["note_count"].as_u64()), (Some(0), Some(0)), "{check:?}");
    let rows = of(&check, "tiered_partition");
    assert_eq!(rows.len(), 3, "t-0 in each broker's dir: {rows:?}");
    let leader_row = rows.iter().find(|r| r["node_id"] == 1).expect("broker 1's row");
    assert_eq!(
        (leader_row["log_start_offset"].as_i64(), leader_row["local_log_start_offset"].as_i64()),
        (Some(earliest), Some(earliest_local)),
        "{leader_row}"
    );

    // Every file of every remote fileset dumps, named by its remote name.
    let mut remote_files = 0;
    for f in walk_files(&remote_copy.join("kafka-tiered-storage")) {
        let out = klog().arg("dump").arg(&f).output().unwrap();
        assert!(out.status.success(), "dump {}: {}", f.display(), String::from_utf8_lossy(&out.stderr));
        remote_files += 1;
    }
    assert!(remote_files >= 5 * klog_segments.len(), "{remote_files} remote files");

    say!(
        "real tiered cluster: {records} __remote_log_metadata records decoded by name ({}), {} remote segments equal to \
         Kafka's fold, {} filesets checked, earliest {earliest} earliest-local {earliest_local} latest {produced} ({:.0?})",
        summary["decoded_by_name"],
        klog_segments.len(),
        summary["filesets_verified_count"],
        started.elapsed()
    );
}

#[test]
fn an_upload_killed_midway_is_the_copy_klog_names_unfinished_and_kafka_lists_as_started() {
    let started = Instant::now();
    let remote = tempfile::tempdir().unwrap();
    let Some(mut c) = start(remote.path()) else { return };
    produce(&mut c, "v", 200);
    settle(&mut c);
    // Uploads now stop after each segment's .log: produce until one is caught there.
    std::fs::write(remote.path().join("slow-upload"), b"").unwrap();
    produce(&mut c, "w", 60);
    let deadline = Instant::now() + Duration::from_secs(60);
    let half_done = loop {
        assert!(Instant::now() < deadline, "no upload was caught half done");
        let found = walk_files(&remote.path().join("kafka-tiered-storage"))
            .into_iter()
            .find(|log| log.extension().is_some_and(|e| e == "log") && !log.with_extension("index").exists());
        if let Some(log) = found {
            break log;
        }
        sleep(Duration::from_millis(200));
    };
    c.kill(&[1]);
    std::fs::remove_file(remote.path().join("slow-upload")).unwrap();
    c.wait_for("t", 30, |d| [2, 3].contains(&leader(d))).unwrap_or_else(|d| panic!("no new leader: {d}"));
    produce(&mut c, "x", 60);
    let last = settle(&mut c);
    let copies = tempfile::tempdir().unwrap();
    let (dirs, remote_copy) = copy_all(&mut c, remote.path(), copies.path());

    let (code, lines) = klog_remote(&dirs, &remote_copy);
    let (records, summary) = all_decoded(&lines);
    let (klog_segments, kafka_segments, kafka_summary) = tables(&lines);
    assert_eq!(kafka_summary["records"].as_u64(), Some(records), "{kafka_summary}");
    assert_eq!(klog_segments, kafka_segments, "klog's remote segment table is Kafka's");
    // The one finding: the killed broker's copy, which Kafka's fold still lists as started.
    let findings = of(&lines, "finding");
    let orphan_id = half_done.file_stem().unwrap().to_str().unwrap().split_once('-').unwrap().1.to_string();
    let started_in_kafka: Vec<&String> = kafka_segments.iter().filter(|k| k.contains("COPY_SEGMENT_STARTED")).collect();
    assert_eq!(code, 1, "{lines:?}");
    assert_eq!(findings.len(), 1, "{findings:?}");
    assert_eq!(findings[0]["finding"], "copy-not-finished", "{findings:?}");
    assert_eq!(findings[0]["segment_id"].as_str(), Some(orphan_id.as_str()), "{findings:?}");
    assert_eq!(started_in_kafka.len(), 1, "{kafka_segments:?}");
    assert!(started_in_kafka[0].contains(&orphan_id), "{started_in_kafka:?}");
    // The new leader serves what klog reads in its dir.
    let new_leader = c.describe("t");
    let n = leader(&new_leader) as usize;
    let side = of(&lines, "local")
        .into_iter()
        .find(|l| l["data_dir"].as_str() == Some(dirs[n - 1].as_str()))
        .expect("t-0 in the new leader's dir");
    assert_eq!(side["log_start_offset"], last["earliest"], "{side} {last}");
    assert_eq!(side["local_log_start_offset"], last["earliest_local"], "{side} {last}");
    // `klog check` says the same across the tiers: the orphan is its one tiered finding.
    let out = klog().arg("check").arg("--json").args(&dirs).arg("--remote-dir").arg(&remote_copy).output().unwrap();
    let check = json_lines(&String::from_utf8_lossy(&out.stdout));
    let tiered: Vec<&Value> = check.iter().filter(|l| l["type"] == "tiered_finding").collect();
    assert_eq!(out.status.code(), Some(1), "{check:?}");
    assert_eq!(tiered.len(), 1, "{tiered:?}");
    assert_eq!(tiered[0]["finding"], "copy-not-finished", "{tiered:?}");

    say!(
        "killed upload: {records} records decoded by name ({}), {} remote segments equal to Kafka's fold, orphan {orphan_id} \
         (half-written {}), new leader {n}: earliest {} earliest-local {} ({:.0?})",
        summary["decoded_by_name"],
        klog_segments.len(),
        half_done.display(),
        last["earliest"],
        last["earliest_local"],
        started.elapsed()
    );
}

fn walk_files(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    if let Ok(entries) = std::fs::read_dir(dir) {
        for e in entries.flatten() {
            let p = e.path();
            if p.is_dir() {
                out.extend(walk_files(&p));
            } else {
                out.push(p);
            }
        }
    }
    out
}
