//! Tiered storage (KIP-405) on a real Kafka 4.4 cluster, read by klog from copies. Three
//! brokers with `remote.log.storage.system.enable=true`, Kafka's own `LocalTieredStorage`
//! (kafka-storage test-fixtures) as the remote storage manager, the default topic-based
//! metadata manager (`__remote_log_metadata`, three partitions), and a topic with
//! `remote.storage.enable=true`, 2 KiB segments and 4 KiB of local retention. Records are
//! produced until segments go remote and are deleted locally; once the cluster is quiet every
//! broker is paused while its data dir and the remote dir are copied.
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
use std::path::Path;
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

#[test]
fn klog_reads_a_real_tiered_cluster_as_kafka_folds_and_serves_it() {
    let started = Instant::now();
    let remote = tempfile::tempdir().unwrap();
    let rsm_dir = format!("rsm.config.dir={}", remote.path().display());
    let extra = [
        "remote.log.storage.system.enable=true",
        "remote.log.storage.manager.class.name=org.apache.kafka.server.log.remote.storage.LocalTieredStorage",
        rsm_dir.as_str(),
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
    ];
    let Some(mut c) = Cluster::start_release(crate::oracle::KAFKA_VERSION, &[], &extra) else { return };
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
    let produced = 600;
    let acks = c.kc("produce", &["t", "v", "0", &produced.to_string()]);
    assert!(acks.iter().all(|a| a["outcome"] == "acked"), "produce: {acks:?}");

    // Quiet: the same earliest, earliest-local and latest five times a second apart, with
    // segments already remote and deleted locally.
    let offsets = |c: &mut Cluster| c.kc("tiered-offsets", &["t", "0"]).pop().expect("an answer");
    let deadline = Instant::now() + Duration::from_secs(120);
    let mut last = offsets(&mut c);
    let mut same = 0;
    while same < 5 {
        assert!(Instant::now() < deadline, "the cluster did not settle: {last}");
        sleep(Duration::from_secs(1));
        let now = offsets(&mut c);
        same = if now == last && now["earliest_local"].as_i64() > Some(0) { same + 1 } else { 0 };
        last = now;
    }
    let earliest = last["earliest"].as_i64().unwrap();
    let earliest_local = last["earliest_local"].as_i64().unwrap();
    assert_eq!(last["latest"].as_i64(), Some(produced), "{last}");
    assert!(earliest_local > earliest, "nothing went remote: {last}");

    // Copies: every broker paused while its dir and the remote dir are copied.
    let copies = tempfile::tempdir().unwrap();
    for n in 1..=3 {
        c.pause(n);
    }
    let dirs: Vec<String> = (1..=3)
        .map(|n| {
            let d = copies.path().join(format!("data{n}"));
            copy_dir(&c.data_dir(n), &d);
            d.display().to_string()
        })
        .collect();
    let remote_copy = copies.path().join("remote");
    copy_dir(remote.path(), &remote_copy);
    for n in 1..=3 {
        c.resume(n);
    }
    assert_eq!(offsets(&mut c), last, "the cluster changed while it was copied");

    // klog's reading.
    let out = klog().arg("remote").arg("--json").args(&dirs).arg("--remote-dir").arg(&remote_copy).output().unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(
        out.status.code(),
        Some(0),
        "klog remote found something:\n{text}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let lines = json_lines(&text);
    let of = |t: &str| lines.iter().filter(|l| l["type"] == t).cloned().collect::<Vec<_>>();
    let summary = of("summary").pop().expect("a summary");
    let records = summary["records_read"].as_u64().unwrap();
    let decoded: u64 = summary["decoded_by_name"].as_object().unwrap().values().map(|v| v.as_u64().unwrap()).sum();
    assert!(records > 0, "{summary}");
    assert_eq!(decoded, records, "every record decoded by name: {summary}");
    assert_eq!(summary["finding_count"], 0, "{summary}");

    // Kafka's fold of the same metadata copies.
    let metadata_dirs: Vec<String> =
        of("metadata_partition").iter().map(|m| m["dir"].as_str().unwrap().to_string()).collect();
    let (kafka, kafka_summary) = kafka_remote_segments(&metadata_dirs);
    assert_eq!(kafka_summary["records"].as_u64(), Some(records), "{kafka_summary}");
    assert_eq!(kafka_summary["thrown"], 0, "{kafka_summary}");
    let klog_segments: BTreeSet<String> = of("remote_segment")
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
    assert_eq!(klog_segments, kafka_segments, "klog's remote segment table is Kafka's");

    // What the leader serves: from the first remote segment (earliest), from local disk at
    // its first local segment (earliest-local); the tiers meet with no gap.
    let remote_segments = of("remote_segment");
    let first_remote = remote_segments.iter().map(|v| v["start_offset"].as_i64().unwrap()).min().unwrap();
    let last_remote = remote_segments.iter().map(|v| v["end_offset"].as_i64().unwrap()).max().unwrap();
    assert_eq!(first_remote, earliest, "{last}");
    assert!(last_remote + 1 >= earliest_local, "a gap between the tiers: remote ends at {last_remote}, {last}");
    let leader_dir = Path::new(&dirs[0]);
    let local = of("local");
    let leader_side =
        local.iter().find(|l| Path::new(l["data_dir"].as_str().unwrap()) == leader_dir).expect("t-0 in broker 1's dir");
    assert_eq!(leader_side["log_start_offset"].as_i64(), Some(earliest), "{leader_side}");
    assert_eq!(leader_side["local_log_start_offset"].as_i64(), Some(earliest_local), "{leader_side}");

    // `klog dump` of each metadata partition names every record.
    let mut dumped = 0;
    for dir in &metadata_dirs {
        let out = klog().args(["dump", "--json", dir]).output().unwrap();
        assert!(out.status.success(), "dump {dir}");
        for l in json_lines(&String::from_utf8_lossy(&out.stdout)).iter().filter(|l| l["type"] == "record") {
            assert_eq!(l["decoded"]["kind"], "remote_log_metadata", "{l}");
            assert!(l["decoded"]["name"].as_str().is_some_and(|n| n.starts_with("Remote")), "{l}");
            dumped += 1;
        }
    }
    assert_eq!(dumped, records);

    // `klog check` over the three dirs: nothing needs a look (the local tiers agree).
    let out = klog().arg("check").arg("--json").args(&dirs).output().unwrap();
    let check = json_lines(&String::from_utf8_lossy(&out.stdout));
    assert_eq!(out.status.code(), Some(0), "{check:?}");
    let check_summary = check.iter().find(|l| l["type"] == "summary").expect("a check summary");
    assert_eq!(check_summary["partitions_needing_attention"], 0, "{check:?}");

    say!(
        "real tiered cluster: {records} __remote_log_metadata records decoded by name ({}), {} remote segments equal to \
         Kafka's fold, {} filesets checked, earliest {earliest} earliest-local {earliest_local} latest {produced} ({:.0?})",
        summary["decoded_by_name"],
        klog_segments.len(),
        summary["filesets_verified_count"],
        started.elapsed()
    );
}
