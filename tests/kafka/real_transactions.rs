//! What holds the LSO, judged by real brokers: a Kafka 4.4.0 KRaft cluster (`kraft_brokers.rs`) with
//! three transactional shapes, and `klog txn` on copies of the brokers' data dirs held against
//! what `kafka-transactions.sh` (Kafka's own `TransactionsCommand`, run from the oracle's
//! classpath) and the brokers' ListOffsets answer:
//! - `open`: a committed and an aborted transaction, then a producer that dies mid-transaction
//!   (a forced close never aborts; its transaction timeout is 15 minutes), with plain records
//!   before and after: the LSO stays at the open transaction while the HW moves on;
//! - `timeout`: the same death with a 6 s transaction timeout: the coordinator aborts it and the
//!   LSO reaches the HW by itself;
//! - `hang`: KAFKA-9144's shape, made as its reports describe: transactional batches the
//!   coordinator never saw, written by `klog append --allow-broker-dir-writes` into the stopped
//!   broker's only replica of the partition (an hour old), then the broker restarted: one as a
//!   producer id no coordinator handed out, one as the producer of a transactional.id whose
//!   transaction ended (find-hanging's two rules).
//!
//! Asserted: `klog txn --format kafka` on the leader's copy prints describe-producers' table
//! byte for byte for each partition; klog's find-hanging rows across the three copies are the
//! tool's (both with `--max-transaction-timeout 0`, so the open transaction the coordinator
//! expects is a candidate too and must not be listed); klog's LSO and HW are the brokers'; the
//! abort line klog prints, run against the cluster, unsticks each stuck LSO.

use crate::common::{json_lines, ok, run, s};
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

/// The topics, each with one partition: (name, replica assignment).
const TOPICS: [(&str, &str); 3] = [("open", "1,2,3"), ("timeout", "2,3,1"), ("hang", "3")];

/// The producer id klog writes the hanging transaction as (no coordinator has handed it out).
const HANGING_PRODUCER: &str = "900001";

/// `kafka-transactions.sh ARGS` against the cluster: its standard output.
fn tool(bootstrap: &str, args: &[&str]) -> String {
    let out = Command::new("java")
        .args(["-Xmx256m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1", "-cp"])
        .arg(classpath().expect("the oracle's classpath"))
        .args(["org.apache.kafka.tools.TransactionsCommand", "--bootstrap-server", bootstrap])
        .args(args)
        .output()
        .expect("java runs");
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(
        out.status.success(),
        "kafka-transactions.sh {args:?}: {}\n{stdout}\n{}",
        out.status,
        String::from_utf8_lossy(&out.stderr).lines().rev().take(5).collect::<Vec<_>>().join("\n")
    );
    stdout
}

/// (HW, LSO) as the partition's leader answers ListOffsets.
fn offsets(c: &mut Cluster, topic: &str) -> (i64, i64) {
    let o = c.kc("offsets", &[topic, "0"]).pop().unwrap_or(Value::Null);
    match (o["hw"].as_i64(), o["lso"].as_i64()) {
        (Some(hw), Some(lso)) => (hw, lso),
        _ => panic!("ListOffsets on {topic}-0: {o}"),
    }
}

/// klog's standard output for `args`, which must exit 0 (clean) or 1 (findings).
fn klog_out(args: &[&str]) -> String {
    let r = run(args);
    assert!((0..2).contains(&r.code), "klog {args:?}: {}", r.stderr);
    r.stdout
}

/// find-hanging's rows without the duration column (minutes since the last write, which the
/// two clocks may round apart): (topic, partition, producer id, epoch, coordinator epoch,
/// start offset, last timestamp).
fn hanging_rows(table: &str) -> BTreeSet<Vec<String>> {
    table
        .lines()
        .filter(|l| !l.starts_with('#') && !l.starts_with("Topic"))
        .map(|l| l.split('\t').map(str::trim).take(7).map(String::from).collect::<Vec<_>>())
        .filter(|r| r.len() == 7)
        .collect()
}

fn wait_lso_at_hw(c: &mut Cluster, topic: &str, secs: u64) -> Result<(i64, i64), (i64, i64)> {
    let end = Instant::now() + Duration::from_secs(secs);
    loop {
        let (hw, lso) = offsets(c, topic);
        if lso == hw {
            return Ok((hw, lso));
        }
        if Instant::now() >= end {
            return Err((hw, lso));
        }
        sleep(Duration::from_millis(500));
    }
}

#[test]
fn klog_txn_finds_what_real_brokers_hold_open_and_its_abort_line_unsticks_the_lso() {
    let started = Instant::now();
    // The coordinator looks for timed-out transactions every second (default 10 s).
    let extra = ["transaction.abort.timed.out.transaction.cleanup.interval.ms=1000"];
    let Some(mut c) = Cluster::start_release(crate::oracle::KAFKA_VERSION, &[], &extra) else { return };
    let bootstrap = c.bootstrap.clone();
    for (topic, assignment) in TOPICS {
        let created = c.kc("create-assigned", &[topic, assignment, "min.insync.replicas=1"]);
        assert!(created.first().is_some_and(|a| a.get("created").is_some()), "create {topic}: {created:?}");
        let first: i64 = assignment.split(',').next().unwrap().parse().unwrap();
        c.wait_for(topic, 30, |d| leader(d) == first).unwrap_or_else(|d| panic!("{topic}: no leader {first}: {d}"));
    }
    let plain = |c: &mut Cluster, topic: &str, prefix: &str, n: usize| {
        let acks = c.kc("produce-partition", &[topic, "0", prefix, "0", &n.to_string()]);
        assert!(acks.iter().all(|a| a["outcome"] == "acked"), "{topic}: {acks:?}");
    };
    let txn = |c: &mut Cluster, topic: &str, id: &str, end: &str| {
        let t = c.kc("transaction", &[topic, "0", id, id, "2", end]);
        assert!(t.first().is_some_and(|a| a.get("outcome").is_some()), "{topic} {id}: {t:?}");
    };

    // open: committed, aborted, plain, a producer dead mid-transaction, plain.
    txn(&mut c, "open", "ended", "commit");
    txn(&mut c, "open", "ended", "abort");
    plain(&mut c, "open", "p", 3);
    txn(&mut c, "open", "dead", "open:900000");
    plain(&mut c, "open", "q", 3);
    // timeout: a producer dead mid-transaction, its coordinator aborting it after 6 s.
    txn(&mut c, "timeout", "brief", "open:6000");
    plain(&mut c, "timeout", "r", 2);
    let (hw, lso) = offsets(&mut c, "timeout");
    assert!(lso < hw, "timeout-0: the open transaction does not hold the LSO (HW {hw}, LSO {lso})");
    let (hw, lso) = wait_lso_at_hw(&mut c, "timeout", 40)
        .unwrap_or_else(|(hw, lso)| panic!("timeout-0: the coordinator did not abort (HW {hw}, LSO {lso})"));
    say!("timeout-0: the coordinator's timeout aborted it, LSO {lso} = HW {hw}");

    // hang: broker 3, the partition's only replica, stopped; klog writes two transactional
    // batches, an hour old: as a producer no coordinator handed out, and as the producer of
    // transactional.id "ended" (its id and epoch now; its transaction lists no partition);
    // 3 restarted; plain records after.
    let described = tool(&bootstrap, &["describe-producers", "--topic", "open", "--partition", "0"]);
    let ended: Vec<String> = described
        .lines()
        .map(|l| l.split('\t').map(|f| f.trim().to_string()).collect::<Vec<_>>())
        .find(|r| r.len() > 5 && r[5] == "None")
        .unwrap_or_else(|| panic!("no ended producer on open-0:\n{described}"));
    plain(&mut c, "hang", "h", 2);
    assert!(c.shutdown(3), "broker 3 did not shut down cleanly");
    let now_ms = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_millis() as i64;
    let hour_ago = (now_ms - 3_600_000).to_string();
    let data3 = c.data_dir(3);
    // A stopped broker restarts as a follower: klog writes as the leader it was, one epoch on.
    ok(&["elect", s(&data3), "--partition", "hang-0", "--allow-broker-dir-writes"]);
    let at = ["--partition", "hang-0", "--allow-broker-dir-writes", "--timestamp", &hour_ago];
    ok(&[&["append", s(&data3)][..], &at, &["--producer-id", HANGING_PRODUCER, "--transactional", "x1", "x2"]]
        .concat());
    ok(&[
        &["append", s(&data3)][..],
        &at,
        &["--producer-id", &ended[0], "--producer-epoch", &ended[1], "--transactional", "y1"],
    ]
    .concat());
    c.start_node(3);
    c.wait_started(3);
    c.wait_for("hang", 30, |d| leader(d) == 3).unwrap_or_else(|d| panic!("hang: 3 not leader again: {d}"));
    plain(&mut c, "hang", "h", 2);

    // The HW checkpoints (every 5 s) catch up; then copies of every broker's data dir.
    sleep(Duration::from_secs(6));
    let copies = tempfile::tempdir().unwrap();
    let copy: Vec<PathBuf> = (1..4).map(|n| copies.path().join(format!("broker{n}"))).collect();
    for (n, dest) in (1..4).zip(&copy) {
        c.copy(n, dest);
    }
    let leaders: Vec<usize> = TOPICS.iter().map(|(t, _)| leader(&c.describe(t)) as usize).collect();

    // describe-producers, byte for byte, from the leader's copy.
    for ((topic, _), l) in TOPICS.iter().zip(&leaders) {
        let theirs = tool(&bootstrap, &["describe-producers", "--topic", topic, "--partition", "0"]);
        let ours = klog_out(&["txn", s(&copy[l - 1]), "--partition", &format!("{topic}-0"), "--format", "kafka"]);
        assert_eq!(ours, theirs, "{topic}-0: klog's describe-producers (left) is not Kafka's (right)");
        say!("{topic}-0 describe-producers agrees:\n{theirs}");
    }

    // find-hanging over all three brokers, both told to list every open transaction.
    let mut theirs = BTreeSet::new();
    for (topic, _) in TOPICS {
        theirs.extend(hanging_rows(&tool(
            &bootstrap,
            &["find-hanging", "--topic", topic, "--max-transaction-timeout", "0"],
        )));
    }
    let dirs: Vec<&str> = copy.iter().map(|p| s(p)).collect();
    let mut args = vec!["txn"];
    args.extend(&dirs);
    args.extend(["--format", "kafka", "--max-transaction-timeout", "0"]);
    let ours = hanging_rows(klog_out(&args).split("# find-hanging").nth(1).expect("a find-hanging table"));
    assert_eq!(ours, theirs, "find-hanging: klog's rows (left) are not Kafka's (right)");
    assert!(
        theirs.iter().any(|r| r[0] == "hang" && r[2] == HANGING_PRODUCER)
            && theirs.iter().any(|r| r[0] == "hang" && r[2] == ended[0]),
        "find-hanging does not list both hanging transactions: {theirs:?}"
    );
    assert!(
        !theirs.iter().any(|r| r[0] == "open"),
        "the open transaction the coordinator expects is listed: {theirs:?}"
    );
    say!("find-hanging agrees: {theirs:?}");

    // The LSO and HW, and the abort line for each stuck partition.
    let mut args = vec!["txn"];
    args.extend(&dirs);
    args.push("--json");
    let reports = json_lines(&klog_out(&args));
    for ((topic, _), l) in TOPICS.iter().zip(&leaders) {
        let r = reports
            .iter()
            .find(|r| {
                r["type"] == "transactions"
                    && r["replica"]["topic"] == *topic
                    && r["replica"]["log_dir"].as_str().is_some_and(|d| Path::new(d).starts_with(&copy[l - 1]))
            })
            .unwrap_or_else(|| panic!("no report of {topic}-0 on the leader's copy"));
        let (hw, lso) = offsets(&mut c, topic);
        assert_eq!(
            (r["high_watermark"].as_i64(), r["last_stable_offset"].as_i64()),
            (Some(hw), Some(lso)),
            "{topic}-0: klog's HW and LSO (left) are not the broker's (right): {r}"
        );
        let open = r["open"].as_array().unwrap();
        if *topic == "timeout" {
            assert!(open.is_empty() && lso == hw, "timeout-0 still open: {r}");
            continue;
        }
        assert_eq!(open.len(), if *topic == "hang" { 2 } else { 1 }, "{topic}-0: {r}");
        assert!(lso < hw, "{topic}-0 LSO {lso} does not stop below HW {hw}");
        let mut lines = Vec::new();
        for o in open {
            let line = o["abort_command"].as_str().unwrap();
            let line =
                line.strip_prefix("kafka-transactions.sh --bootstrap-server HOST:9092 ").expect("the abort line");
            tool(&bootstrap, &line.split(' ').collect::<Vec<_>>());
            lines.push(line.to_string());
        }
        let (hw2, lso2) = wait_lso_at_hw(&mut c, topic, 20).unwrap_or_else(|(hw, lso)| {
            panic!("{topic}-0: klog's abort lines ({lines:?}) left LSO {lso} below HW {hw}")
        });
        say!("{topic}-0: LSO {lso} held back {} offset(s); {lines:?} moved it to {lso2} = HW {hw2}", hw - lso);
    }
    say!("real transactions: {:.0} s", started.elapsed().as_secs_f64());
}
