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
pub(crate) fn kafka_remote_segments(dirs: &[String]) -> (Vec<Value>, Value) {
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
pub(crate) fn tiered_settings(remote: &Path) -> Vec<String> {
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
    start_with(remote, &["min.insync.replicas=2"])
}

/// The tiered cluster with topic `t` (3 replicas, led by broker 1) whose configs add `topic`.
fn start_with(remote: &Path, topic: &[&str]) -> Option<Cluster> {
    let settings = tiered_settings(remote);
    let extra: Vec<&str> = settings.iter().map(String::as_str).collect();
    let mut c = Cluster::start_release(crate::oracle::KAFKA_VERSION, &[], &extra)?;
    let mut args = vec![
        "t",
        "1,2,3",
        "remote.storage.enable=true",
        "internal.segment.bytes=2048",
        "local.retention.bytes=4096",
        // Size alone decides locally: a time limit would roll and move the active segment too.
        "local.retention.ms=600000",
    ];
    args.extend_from_slice(topic);
    let created = c.kc("create", &args);
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
    settle_when(c, |now| now["earliest_local"].as_i64() > Some(0))
}

/// Wait until ListOffsets gives the same answers, each one `ready`, five times a second apart.
fn settle_when(c: &mut Cluster, ready: impl Fn(&Value) -> bool) -> Value {
    let deadline = Instant::now() + Duration::from_secs(120);
    let mut last = offsets(c);
    let mut same = 0;
    while same < 5 {
        assert!(Instant::now() < deadline, "the cluster did not settle: {last}");
        sleep(Duration::from_secs(1));
        let now = offsets(c);
        same = if now == last && ready(&now) { same + 1 } else { 0 };
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

/// `klog remote --json` over the copies: its lines, or its error (exit 2).
pub(crate) fn klog_remote_lines(dirs: &[String], remote_copy: &Path) -> Result<Vec<Value>, String> {
    let out = klog().arg("remote").arg("--json").args(dirs).arg("--remote-dir").arg(remote_copy).output().unwrap();
    if out.status.code() == Some(2) {
        return Err(format!("klog remote: {}", String::from_utf8_lossy(&out.stderr).trim()));
    }
    Ok(json_lines(&String::from_utf8_lossy(&out.stdout)))
}

/// `klog remote --json` over the copies: its exit code and lines.
pub(crate) fn klog_remote(dirs: &[String], remote_copy: &Path) -> (i32, Vec<Value>) {
    let out = klog().arg("remote").arg("--json").args(dirs).arg("--remote-dir").arg(remote_copy).output().unwrap();
    assert!(out.status.code() != Some(2), "klog remote: {}", String::from_utf8_lossy(&out.stderr));
    (out.status.code().unwrap(), json_lines(&String::from_utf8_lossy(&out.stdout)))
}

pub(crate) fn of(lines: &[Value], t: &str) -> Vec<Value> {
    lines.iter().filter(|l| l["type"] == t).cloned().collect()
}

/// klog's remote segment table and Kafka's fold of the same metadata copies, as comparable
/// lines; Kafka's summary.
pub(crate) fn tables(lines: &[Value]) -> (BTreeSet<String>, BTreeSet<String>, Value) {
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

/// A follower stopped long enough that the leader's local log starts above its log end, then
/// started again: Kafka answers its fetch OFFSET_MOVED_TO_TIERED_STORAGE and the follower builds
/// its state from remote storage (`ReplicaFetcherTierStateMachine.buildRemoteLogAuxState`).
/// klog's plan, made on copies of the stopped follower's dir and the leader's before it starts
/// (`recover --dry-run --leader`, with the remote dir), is what the broker then does: its log
/// restarts at the remote segment's end + 1 (the first local segment of its dir), with the
/// leader's log start as its log start (`log-start-offset-checkpoint`) and the remote segment's
/// epoch cache (`leader-epoch-checkpoint`).
#[test]
fn a_follower_below_the_leaders_local_start_rebuilds_from_remote_as_klog_plans() {
    let started = Instant::now();
    let remote = tempfile::tempdir().unwrap();
    let Some(mut c) = start(remote.path()) else { return };
    produce(&mut c, "v", 100);
    settle(&mut c);
    let said = rebuilds_from_remote_as_planned(&mut c, remote.path(), 3, 1);
    say!("follower below the local start, one epoch: {said} ({:.0?})", started.elapsed());
}

/// The same with the local log start in a later epoch: the leader moved (epoch 1) before the
/// follower stopped, so the follower asks the leader's end offset for the epoch below
/// (`fetchEarlierEpochEndOffset`) before it picks the remote segment, and takes a two-epoch cache.
#[test]
fn a_follower_rebuilding_from_remote_in_a_later_epoch_asks_for_the_epoch_below_as_klog_plans() {
    let started = Instant::now();
    let remote = tempfile::tempdir().unwrap();
    let Some(mut c) = start(remote.path()) else { return };
    produce(&mut c, "v", 100);
    settle(&mut c);
    assert!(c.shutdown(1), "broker 1 stops cleanly");
    let moved = c.wait_for("t", 60, |d| [2, 3].contains(&leader(d))).unwrap_or_else(|d| panic!("no new leader: {d}"));
    let new_leader = leader(&moved) as usize;
    produce(&mut c, "w", 100);
    c.restart(1);
    c.wait_for("t", 60, |d| crate::real_failovers::isr(d).contains(&1)).unwrap_or_else(|d| panic!("1 never back: {d}"));
    settle(&mut c);
    let follower = (1..=3).find(|&n| n != new_leader && n != 1).unwrap();
    let said = rebuilds_from_remote_as_planned(&mut c, remote.path(), follower, new_leader);
    say!("follower below the local start, epoch 1: {said} ({:.0?})", started.elapsed());
}

/// Stop `follower` cleanly, produce until the leader's local log starts above its log end, plan
/// its restart with klog on copies, start it, and compare what it did with the plan. The plan's
/// summary.
fn rebuilds_from_remote_as_planned(c: &mut Cluster, remote: &Path, follower: usize, leader_node: usize) -> String {
    assert!(c.shutdown(follower), "broker {follower} stops cleanly");
    produce(c, "x", 400);
    let last = settle(c);
    let copies = tempfile::tempdir().unwrap();
    let (dirs, remote_copy) = copy_all(c, remote, copies.path());
    let (leader_dir, follower_dir) = (&dirs[leader_node - 1], &dirs[follower - 1]);
    let follower_leo = {
        let out = klog().args(["dump", "--json"]).arg(Path::new(follower_dir).join("t-0")).output().unwrap();
        json_lines(&String::from_utf8_lossy(&out.stdout))[0]["log_end_offset"].as_i64().unwrap()
    };
    assert!(
        follower_leo < last["earliest_local"].as_i64().unwrap(),
        "not below the local start: {last} {follower_leo}"
    );

    // klog's plan, on the copies.
    let out = klog()
        .args(["recover", "--dry-run", "--json", "--partition", "t-0", "--leader", leader_dir, follower_dir])
        .arg("--remote-dir")
        .arg(&remote_copy)
        .output()
        .unwrap();
    assert!(out.status.success(), "recover --dry-run: {}", String::from_utf8_lossy(&out.stderr));
    let plan = json_lines(&String::from_utf8_lossy(&out.stdout)).into_iter().find(|l| l.get("from_remote").is_some());
    let plan = plan.expect("a restart from remote storage");
    let aux = plan["from_remote"].clone();
    assert_eq!(aux["epochs_from"], "remote_checkpoint", "{aux}");
    let next = aux["next_offset"].as_i64().expect("a remote segment found");
    assert_eq!(aux["leader_log_start_offset"], last["earliest"], "{aux} {last}");
    assert_eq!(aux["leader_local_log_start_offset"], last["earliest_local"], "{aux} {last}");

    // What Kafka does: the follower starts, catches up, and stops cleanly (checkpoints written).
    c.restart(follower);
    let back = |d: &Value| crate::real_failovers::isr(d).contains(&(follower as i64));
    c.wait_for("t", 60, back).unwrap_or_else(|d| panic!("{follower} never caught up: {d}"));
    settle(c);
    assert!(c.shutdown(follower), "broker {follower} stops cleanly");
    let after = copies.path().join("after");
    copy_dir(&c.data_dir(follower), &after);
    let partition = after.join("t-0");
    let mut bases: Vec<i64> = std::fs::read_dir(&partition)
        .unwrap()
        .filter_map(|e| e.ok()?.file_name().to_str()?.strip_suffix(".log")?.parse().ok())
        .collect();
    bases.sort_unstable();
    assert_eq!(bases.first().copied(), Some(next), "the follower's first local segment: {bases:?}, {aux}");
    let log_start = std::fs::read_to_string(after.join("log-start-offset-checkpoint")).unwrap();
    let entry = log_start.lines().find(|l| l.starts_with("t 0 ")).expect("t-0 in log-start-offset-checkpoint");
    assert_eq!(entry, format!("t 0 {}", aux["leader_log_start_offset"]), "{log_start}");
    let epochs: Vec<(i64, i64)> = std::fs::read_to_string(partition.join("leader-epoch-checkpoint"))
        .unwrap()
        .lines()
        .skip(2)
        .map(|l| {
            let (e, o) = l.split_once(' ').unwrap();
            (e.parse().unwrap(), o.parse().unwrap())
        })
        .collect();
    let planned: Vec<(i64, i64)> = aux["epochs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| (e["leader_epoch"].as_i64().unwrap(), e["start_offset"].as_i64().unwrap()))
        .collect();
    assert_eq!(epochs, planned, "the follower's epoch cache");
    format!(
        "LEO {follower_leo}, leader {leader_node} log start {} local {}: epoch at local start {}, target epoch {} \
         (asked below: {}), rebuilt from remote segment {} and restarted at {next} as klog planned, epochs {planned:?}",
        last["earliest"],
        last["earliest_local"],
        aux["epoch_at_local_start"],
        aux["target_epoch"],
        aux["asked_earlier_epoch"],
        aux["segment_id"]
    )
}

/// `klog.oracle.Consume from-earliest`: what a consumer from the earliest offset gets.
pub(crate) fn consume_from_earliest(c: &Cluster) -> Value {
    consume_topic(c, "t")
}

/// [`consume_from_earliest`] of `topic`'s partition 0.
pub(crate) fn consume_topic(c: &Cluster, topic: &str) -> Value {
    let cp = classpath().expect("the oracle's classpath");
    let out = Command::new("java")
        .args(["-Xmx256m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1", "-cp", &cp, "klog.oracle.Consume"])
        .args(["from-earliest", &c.bootstrap, topic, "0"])
        .output()
        .expect("java runs");
    assert!(out.status.success(), "consumer: {}", String::from_utf8_lossy(&out.stderr));
    json_lines(&String::from_utf8_lossy(&out.stdout)).pop().expect("the consumer's line")
}

/// Offsets as merged ranges `[(first, last)]`.
fn runs(offsets: impl IntoIterator<Item = i64>) -> Vec<(i64, i64)> {
    let mut out: Vec<(i64, i64)> = Vec::new();
    for o in offsets {
        match out.last_mut() {
            Some(r) if r.1 + 1 == o => r.1 = o,
            _ => out.push((o, o)),
        }
    }
    out
}

fn ids_of(v: &Value) -> Vec<i64> {
    v.as_array().map(|a| a.iter().filter_map(Value::as_i64).collect()).unwrap_or_default()
}

/// klog's forecast for broker `n` in `klog remote --json` lines.
fn forecast_of(lines: &[Value], n: i64) -> Value {
    of(lines, "leader_forecast")
        .into_iter()
        .find(|l| l["broker_id"] == n)
        .unwrap_or_else(|| panic!("no forecast for broker {n}: {lines:?}"))
}

/// Kafka's remote segment ids in a `klog remote --json` run's metadata copies.
fn kafka_segment_ids(lines: &[Value]) -> BTreeSet<String> {
    let dirs: Vec<String> =
        of(lines, "metadata_partition").iter().map(|m| m["dir"].as_str().unwrap().to_string()).collect();
    kafka_remote_segments(&dirs).0.iter().map(|s| s["segment_id"].as_str().unwrap().to_string()).collect()
}

/// What one step did, judged against klog's forecast taken before it: the remote segments
/// Kafka deleted, ListOffsets, and a consumer from the earliest offset.
struct Judged {
    deleted: usize,
    earliest: i64,
    consumed: usize,
}

fn judge_step(
    step: &str,
    forecast: &Value,
    before: &BTreeSet<String>,
    after: &BTreeSet<String>,
    offsets: &Value,
    consumed: &Value,
) -> Judged {
    let kafka_deleted: BTreeSet<String> = before.difference(after).cloned().collect();
    let klog_deleted: BTreeSet<String> = forecast["deletions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d["segment_id"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(
        klog_deleted, kafka_deleted,
        "{step}: the remote segments Kafka deleted are klog's forecast: {forecast}"
    );
    assert_eq!(
        offsets["earliest"], forecast["log_start_offset_after"],
        "{step}: ListOffsets earliest {offsets} vs {forecast}"
    );
    assert_eq!(offsets["latest"], forecast["log_end_offset"], "{step}: ListOffsets latest {offsets} vs {forecast}");
    assert_eq!(
        offsets["earliest_local"], forecast["local_log_start_offset"],
        "{step}: ListOffsets earliest-local {offsets} vs {forecast}"
    );
    assert!(consumed.get("error").is_none(), "{step}: the consumer failed: {consumed}");
    let records = consumed["records"].as_array().unwrap();
    let got = runs(records.iter().map(|r| r[0].as_i64().unwrap()));
    let walk: Vec<(i64, i64)> = runs(
        forecast["consumer_from_earliest"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|r| r["source"] != "out_of_range")
            .flat_map(|r| r["first_offset"].as_i64().unwrap()..=r["last_offset"].as_i64().unwrap()),
    );
    assert_eq!(consumed["start"], forecast["log_start_offset_after"], "{step}: {consumed}");
    assert_eq!(
        got,
        walk,
        "{step}: the offsets a consumer from earliest gets are klog's consumer-read ranges: consumer start {} end {} \
         position {} ({} records); klog {forecast}",
        consumed["start"],
        consumed["end"],
        consumed["position"],
        records.len()
    );
    Judged { deleted: kafka_deleted.len(), earliest: offsets["earliest"].as_i64().unwrap(), consumed: records.len() }
}

/// The values of the consumed records: the producer's prefix of each run of offsets.
fn value_runs(consumed: &Value) -> Vec<(i64, i64, String)> {
    let mut out: Vec<(i64, i64, String)> = Vec::new();
    for r in consumed["records"].as_array().unwrap() {
        let o = r[0].as_i64().unwrap();
        let prefix = r[1].as_str().unwrap_or("").split('-').next().unwrap_or("").to_string();
        match out.last_mut() {
            Some(last) if last.1 + 1 == o && last.2 == prefix => last.1 = o,
            _ => out.push((o, o, prefix)),
        }
    }
    out
}

#[test]
fn an_unclean_election_then_a_preferred_one_back_do_what_klog_forecasts_across_the_tiers() {
    let started = Instant::now();
    let remote = tempfile::tempdir().unwrap();
    let topic = ["min.insync.replicas=1", "unclean.leader.election.enable=true"];
    let Some(mut c) = start_with(remote.path(), &topic) else { return };
    produce(&mut c, "v", 200);
    settle(&mut c);
    // Broker 3 falls out of sync; 1 and 2 take 600 more, and 1 copies them to remote storage.
    c.kill(&[3]);
    c.wait_for("t", 60, |d| ids_of(&d["isr"]) == [1, 2]).unwrap_or_else(|d| panic!("3 still in the ISR: {d}"));
    c.kc("produce", &["t", "w", "200", "600"]).iter().for_each(|a| assert_eq!(a["outcome"], "acked", "{a}"));
    let old = settle(&mut c);
    // With every broker dead no one answers a describe; the controller fences 1 and 2.
    c.kill(&[1, 2]);

    // Step 1: broker 3 elected uncleanly (it restarts; the topic allows it). klog's forecast
    // from the copies taken before.
    let work = tempfile::tempdir().unwrap();
    let (dirs, remote_copy) = copy_all(&mut c, remote.path(), &work.path().join("before-unclean"));
    let (_, lines) = klog_remote(&dirs, &remote_copy);
    let f3 = forecast_of(&lines, 3);
    let before = kafka_segment_ids(&lines);
    c.restart(3);
    c.wait_for("t", 60, |d| leader(d) == 3).unwrap_or_else(|d| panic!("3 not elected: {d}"));
    // The partitions of __remote_log_metadata have no unclean election: 1 and 2, their ISR,
    // come back so that 3's metadata manager reads them (and they follow 3 on t; the last ISR
    // member of each metadata partition may be either).
    c.restart(1);
    c.restart(2);
    let after_unclean = settle_any(&mut c);
    let (dirs, remote_copy) = copy_all(&mut c, remote.path(), &work.path().join("after-unclean"));
    let (_, lines) = klog_remote(&dirs, &remote_copy);
    let after = kafka_segment_ids(&lines);
    let consumed = consume_from_earliest(&c);
    if consumed["records"].as_array().is_none_or(|r| r.is_empty()) {
        let log = c.log_since(3, 0);
        let lines: Vec<&str> = log.lines().collect();
        if let Some(i) = lines.iter().rposition(|l| l.contains("ERROR") && l.contains("RemoteLogReader")) {
            say!("broker 3's last remote read error: {:?}", &lines[i..(i + 8).min(lines.len())]);
        }
    }
    let unclean = judge_step("unclean election of 3", &f3, &before, &after, &after_unclean, &consumed);
    // The values: the records 3 holds, below where the lineages part (1's remote copies of them
    // are the same records).
    let diverged = f3["log_end_offset"].as_i64().unwrap();
    for r in consumed["records"].as_array().unwrap() {
        assert_eq!(r[1].as_str(), Some(format!("v-{}", r[0]).as_str()), "unclean election of 3: {r}");
    }
    let unclean_values = value_runs(&consumed);

    // Broker 3 takes 300 more and copies its own lineage; 1 and 2, its followers, catch up.
    c.kc("produce", &["t", "x", "0", "300"]).iter().for_each(|a| assert_eq!(a["outcome"], "acked", "{a}"));
    settle(&mut c);
    c.wait_for("t", 90, |d| ids_of(&d["isr"]).len() == 3)
        .unwrap_or_else(|d| panic!("1 and 2 not back in the ISR: {d}"));
    settle(&mut c);

    // Step 2: the preferred election back to broker 1.
    let (dirs, remote_copy) = copy_all(&mut c, remote.path(), &work.path().join("before-preferred"));
    let (_, lines) = klog_remote(&dirs, &remote_copy);
    let f1 = forecast_of(&lines, 1);
    let current = forecast_of(&lines, 3);
    assert_eq!(current["current_leader"], true, "{current}");
    let before = kafka_segment_ids(&lines);
    let unlisted: Vec<String> =
        of(&lines, "unlisted_segment").iter().map(|u| u["segment_id"].as_str().unwrap().to_string()).collect();
    let salvage = of(&lines, "salvage");
    let salvaged: u64 = salvage.iter().map(|s| s["record_count"].as_u64().unwrap()).sum();
    // Salvage: 1's copies of the lineage 3's election cut off (each reaches past where the
    // lineages part), one run of offsets.
    let mut salvage_ranges: Vec<(i64, i64)> = salvage
        .iter()
        .map(|s| (s["first_record_offset"].as_i64().unwrap(), s["last_record_offset"].as_i64().unwrap()))
        .collect();
    salvage_ranges.sort_unstable();
    assert!(salvage_ranges.iter().all(|&(_, last)| last >= diverged), "salvage: {salvage:?}");
    assert!(salvage_ranges.first().is_some_and(|&(first, _)| first <= diverged), "salvage: {salvage:?}");
    assert!(salvage_ranges.windows(2).all(|w| w[1].0 == w[0].1 + 1), "salvage is one run: {salvage_ranges:?}");
    let mark = c.log_mark(1);
    let answer = c.kc("elect", &["t", "preferred"]);
    assert!(answer.first().is_some_and(|a| a["elected"] == true), "elect preferred: {answer:?}");
    c.wait_for("t", 30, |d| leader(d) == 1).unwrap_or_else(|d| panic!("1 not elected: {d}"));
    let after_preferred = settle_any(&mut c);
    let (dirs, remote_copy) = copy_all(&mut c, remote.path(), &work.path().join("after-preferred"));
    let (_, lines) = klog_remote(&dirs, &remote_copy);
    let after = kafka_segment_ids(&lines);
    let consumed = consume_from_earliest(&c);
    let preferred = judge_step("preferred election of 1", &f1, &before, &after, &after_preferred, &consumed);
    for r in consumed["records"].as_array().unwrap() {
        let o = r[0].as_i64().unwrap();
        assert_eq!(r[1].as_str(), Some(format!("x-{}", o - diverged).as_str()), "preferred election of 1: {r}");
    }
    // The copies Kafka's cache lists under no epoch: no truncation deleted them.
    for id in &unlisted {
        assert!(after.contains(id), "klog says Kafka never deletes {id}, yet it is gone");
    }
    // Kafka's own words for each deletion, against klog's causes.
    let logged = c.log_since(1, mark).matches("due to leader-epoch-cache truncation").count();
    let truncations =
        f1["deletions"].as_array().unwrap().iter().filter(|d| d["cause"] == "leader-epoch-cache truncation").count();
    assert_eq!(logged, truncations, "broker 1's log names {logged} leader-epoch-cache truncations: {f1}");

    say!(
        "unclean election of 3 (old leader 1 at {old}, 3 at {diverged}): klog forecast {} remote segment(s) deleted, earliest {}, a consumer \
         from earliest reads {} record(s) {:?}; preferred election back to 1: {} deleted ({truncations} by \
         leader-epoch-cache truncation, as broker 1 logs), earliest {} -> {}, {} record(s) read {:?}; before it, {} \
         segment(s) no broker serves with {salvaged} record(s) in their remote files ({:?}), {} listed by Kafka's cache \
         under no epoch ({:.0?})",
        unclean.deleted,
        unclean.earliest,
        unclean.consumed,
        unclean_values,
        preferred.deleted,
        unclean.earliest,
        preferred.earliest,
        preferred.consumed,
        value_runs(&consumed),
        salvage.len(),
        salvage_ranges.first().map(|f| (f.0, salvage_ranges.last().unwrap().1)),
        unlisted.len(),
        started.elapsed()
    );
}

/// Wait until ListOffsets gives the same answers five times a second apart (local segments
/// may all be there: no upload is required).
fn settle_any(c: &mut Cluster) -> Value {
    settle_when(c, |now| now.get("error").is_none())
}

/// Retention by size on a tiered topic: klog's forecast with `--retention-bytes`, taken on
/// copies before the topic is altered to that size, is what the leader's next remote expiration
/// deletes (`buildRetentionSizeData`, RemoteLogManager.java:1643-1700@4.4.0: the local segments
/// above the highest remote offset plus the finished copies within the lineage; the walk deletes
/// from the oldest while a segment fits in what is over, `isSegmentBreachedByRetentionSize`,
/// :1293-1312), with the earliest offset after it and what a consumer reads.
#[test]
fn altering_retention_bytes_deletes_the_remote_segments_klog_forecasts() {
    let started = Instant::now();
    let remote = tempfile::tempdir().unwrap();
    let Some(mut c) = start(remote.path()) else { return };
    produce(&mut c, "v", 400);
    let before_offsets = settle(&mut c);
    let work = tempfile::tempdir().unwrap();
    let (dirs, remote_copy) = copy_all(&mut c, remote.path(), &work.path().join("before"));
    let (_, lines) = klog_remote(&dirs, &remote_copy);
    // Keep half the remote bytes: the local bytes above the remote tier and about half the
    // remote segments are over the limit.
    let remote_bytes: i64 =
        of(&lines, "remote_segment").iter().filter_map(|s| s["segment_size_in_bytes"].as_i64()).sum();
    assert!(remote_bytes > 0, "no remote segment sizes: {lines:?}");
    let keep = (remote_bytes / 2).to_string();
    let out = klog()
        .arg("remote")
        .arg("--json")
        .args(&dirs)
        .arg("--remote-dir")
        .arg(&remote_copy)
        .args(["--retention-bytes", &keep])
        .output()
        .unwrap();
    let forecast = forecast_of(&json_lines(&String::from_utf8_lossy(&out.stdout)), 1);
    let forecast_deleted = forecast["deletions"].as_array().map_or(0, Vec::len);
    let segments = kafka_segment_ids(&lines);
    assert!(
        forecast_deleted > 0 && forecast_deleted < segments.len(),
        "keeping {keep} of {remote_bytes} remote bytes should delete some segments, not all: {forecast}"
    );
    let altered = c.kc("alter", &["t", &format!("retention.bytes={keep}")]);
    assert!(altered.first().is_some_and(|a| a.get("altered").is_some()), "alter: {altered:?}");
    let after_offsets = settle_when(&mut c, |now| now["earliest"] != before_offsets["earliest"]);
    let (dirs, remote_copy) = copy_all(&mut c, remote.path(), &work.path().join("after"));
    let (_, lines) = klog_remote(&dirs, &remote_copy);
    let after = kafka_segment_ids(&lines);
    let consumed = consume_from_earliest(&c);
    let judged = judge_step("retention.bytes", &forecast, &segments, &after, &after_offsets, &consumed);
    assert!(
        forecast["deletions"].as_array().unwrap().iter().all(|d| d["cause"] == "retention.bytes breach"),
        "{forecast}"
    );
    say!(
        "retention.bytes {keep} (of {remote_bytes} remote bytes): klog forecast {} of {} remote segment(s) deleted and \
         earliest {} -> {}, as broker 1 did; a consumer from earliest read {} record(s) ({:.0?})",
        judged.deleted,
        segments.len(),
        before_offsets["earliest"],
        judged.earliest,
        judged.consumed,
        started.elapsed()
    );
}
