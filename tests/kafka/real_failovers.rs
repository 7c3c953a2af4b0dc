//! Real failovers on real brokers: scripted failure sequences on a Kafka 4.4.0 KRaft cluster
//! (`kraft_brokers.rs`), and klog's prediction of each restarted broker's truncation held against what
//! the broker did, record by record.
//!
//! One cluster serves every sequence, each on a fresh topic (a topic's partition, its leader
//! epochs and its data are its own; the brokers are all running and unpaused again between
//! sequences). A sequence first *shapes* the failure (kills, pauses, elections, copies of the
//! data dirs of paused or dead brokers at the decision point); when a timing-dependent step does
//! not take the intended shape it is retried on a new topic, at most [`ATTEMPTS`] times, and the
//! test fails if it never does. Once shaped, two things are asserted, never retried:
//! - the brokers did what the shape expects (which acknowledged records are gone from the final
//!   leader, where each restarted broker truncated, no divergence after catching up);
//! - klog agrees: on the copies made before each restart, `klog recover --dry-run --json --mode
//!   kip279 --leader LEADER_COPY --leader-epoch E FOLLOWER_COPY` (E and the leader the controller
//!   really chose, read with a Metadata request) predicts the offset the broker truncated to (its
//!   own "Truncating to offset" lines after the restart; none = its log end), the records it
//!   removed, which of those the leader gave back and which were lost, and the removed records
//!   the producer had been told were acknowledged that are lost.
//!
//! The producer sends one record per request, `acks=all`, no idempotence, no retries; a timeout
//! is "unknown". klog's own `acked_lost` class rests on the HW checkpoints (written every 5 s)
//! and is printed beside the verdict, not in it: a follower killed within 5 s of an ack holds a
//! checkpoint below it (docs/checked-against-kafka.md, "Real failovers on a real cluster").
//!
//! `KLOG_REAL_ONLY=clean,zombie` runs only those sequences; `KLOG_REAL_KEEP=1` keeps the cluster's
//! dir (logs, data dirs) and the copies, and says where. Without the Kafka oracle's classpath the
//! test skips, and under `KLOG_CI` it fails.

use crate::common::{klog, s};
use crate::kraft_brokers::Cluster;
use serde_json::Value;
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::thread::sleep;
use std::time::{Duration, Instant};

/// A line on stderr that test output capture does not hide: CI's log shows each sequence, how
/// often its shaping worked and the total time even when the test passes.
macro_rules! say {
    ($($arg:tt)*) => {{
        use std::io::Write;
        let _ = writeln!(std::io::stderr(), $($arg)*);
    }};
}

/// How often a sequence may retry its shaping.
const ATTEMPTS: usize = 3;

/// A record in a copy: value and leader epoch by offset.
pub(crate) type Records = BTreeMap<i64, (String, i64)>;

/// One sequence's run on one topic.
pub(crate) struct Seq {
    pub(crate) dir: PathBuf,
    pub(crate) topic: String,
    /// Every answer the producer got, in order.
    pub(crate) acks: Vec<Value>,
    pub(crate) restarts: Vec<Restart>,
    pub(crate) final_leader: Option<PathBuf>,
    /// What the shaping did, for the output.
    pub(crate) notes: Vec<String>,
    /// What the brokers did during the shaping that the shape does not expect.
    pub(crate) unexpected: Vec<String>,
    /// klog's prediction takes the leader epoch from the leader copy's metadata log (no
    /// `--leader-epoch`): real_history.rs.
    pub(crate) metadata_epochs: bool,
}

/// A broker restarted as a follower, with the copies klog predicts from.
pub(crate) struct Restart {
    pub(crate) follower: usize,
    /// The follower's data dir before the restart (it was dead or paused).
    pub(crate) before: PathBuf,
    /// The leader's data dir at that moment (paused while copied).
    pub(crate) leader: PathBuf,
    pub(crate) leader_epoch: i64,
    /// The follower's data dir after it caught up.
    pub(crate) after: PathBuf,
    /// The follower's own log lines from its restart on.
    pub(crate) log: String,
}

/// A sequence's shape: Ok once the failure took the intended form, Err(why) if it did not.
type Shape = fn(&mut Cluster, &mut Seq) -> Result<(), String>;
/// The broker outcome a shape expects: each way the brokers did otherwise.
type Expect = fn(&Seq, &Outcome) -> Vec<String>;

struct Sequence {
    name: &'static str,
    what: &'static str,
    shape: Shape,
    expect: Expect,
}

/// What the brokers did and what klog predicted, for one sequence.
pub(crate) struct Outcome {
    /// Acknowledged (offset, value) pairs not at their offset in the final leader.
    pub(crate) acked_gone: Vec<(i64, String)>,
    pub(crate) verdicts: Vec<Verdict>,
}

/// klog's prediction for one restarted follower against the broker.
pub(crate) struct Verdict {
    pub(crate) follower: usize,
    pub(crate) klog_cut: i64,
    pub(crate) broker_cut: i64,
    pub(crate) broker_lines: Vec<i64>,
    pub(crate) log_end_before: i64,
    /// Removed records, by offset (value).
    pub(crate) broker_removed: BTreeMap<i64, String>,
    /// Removed records the final leader does not hold (the rest it gave back).
    pub(crate) broker_lost: BTreeSet<i64>,
    /// Records the follower held after catching up that differ from the final leader.
    pub(crate) diverged_after: Vec<i64>,
    /// klog's `acked_lost` class, and the removed-and-lost records the producer was told were
    /// acknowledged: reported, not compared.
    pub(crate) klog_acked_lost: Vec<i64>,
    pub(crate) producer_acked_lost: Vec<i64>,
    pub(crate) differences: Vec<String>,
}

impl Seq {
    /// A sequence about to be shaped on `topic`, its copies under `dir`; `metadata_epochs`: klog
    /// takes the leader's epoch from the metadata instead of being given it.
    pub(crate) fn new(dir: PathBuf, topic: String, metadata_epochs: bool) -> Seq {
        Seq {
            dir,
            topic,
            acks: vec![],
            restarts: vec![],
            final_leader: None,
            notes: vec![],
            unexpected: vec![],
            metadata_epochs,
        }
    }

    pub(crate) fn path(&self, name: &str) -> PathBuf {
        self.dir.join(name)
    }

    /// Send `count` records PREFIX-FROM.. one at a time; how many were acknowledged.
    pub(crate) fn produce(&mut self, c: &mut Cluster, prefix: &str, from: usize, count: usize) -> usize {
        let answers = c.kc("produce", &[&self.topic, prefix, &from.to_string(), &count.to_string()]);
        let acked = answers.iter().filter(|a| a["outcome"] == "acked").count();
        self.acks.extend(answers);
        acked
    }

    pub(crate) fn outcome_of(&self, value: &str) -> String {
        self.acks
            .iter()
            .find(|a| a["value"] == value)
            .map(|a| a["outcome"].as_str().unwrap_or("?").to_string())
            .unwrap_or_default()
    }

    pub(crate) fn note(&mut self, n: impl Into<String>) {
        self.notes.push(n.into());
    }
}

pub(crate) fn records(dir: &Path, topic: &str) -> Records {
    let out = klog().args(["dump", "--json", "--partition", &format!("{topic}-0"), s(dir)]).output().unwrap();
    assert!(out.status.success(), "klog dump {}: {}", dir.display(), String::from_utf8_lossy(&out.stderr));
    String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .filter(|v| v["type"] == "record")
        .map(|v| {
            (
                v["offset"].as_i64().unwrap(),
                (v["value"].as_str().unwrap_or("").to_string(), v["leader_epoch"].as_i64().unwrap()),
            )
        })
        .collect()
}

pub(crate) fn log_end(dir: &Path, topic: &str) -> (i64, i64) {
    let out =
        klog().args(["dump", "--json", "--limit", "0", "--partition", &format!("{topic}-0"), s(dir)]).output().unwrap();
    let v: Value = String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .find(|v| v["type"] == "replica")
        .unwrap_or_else(|| panic!("klog dump {}: {}", dir.display(), String::from_utf8_lossy(&out.stderr)));
    // A partition the broker has not yet written into its HW checkpoint has no HW on disk
    // (`null`); Kafka loads it at 0.
    (v["log_end_offset"].as_i64().unwrap(), v["high_watermark"].as_i64().unwrap_or(0))
}

/// The offsets of the broker's "Truncating to offset N" (UnifiedLog) and "Truncating TOPIC-0 to
/// offset N below high watermark" lines about `topic`'s partition 0.
fn truncation_lines(log: &str, topic: &str) -> Vec<i64> {
    let partition = format!("{topic}-0");
    log.lines()
        .filter(|l| l.contains("Truncating") && l.split([' ', ',', '=', '[', ']']).any(|t| t == partition))
        .filter_map(|l| {
            let rest = &l[l.find("Truncating")?..];
            let at = rest.find("to offset ")? + "to offset ".len();
            rest[at..].split(|ch: char| !ch.is_ascii_digit()).next()?.parse().ok()
        })
        .collect()
}

fn compare(seq: &Seq, r: &Restart, final_leader: &Records) -> Verdict {
    let topic = &seq.topic;
    let out = klog()
        .args(["recover", "--dry-run", "--json", "--mode", "kip279", "--context", "1000000"])
        .args(["--partition", &format!("{topic}-0"), "--leader", s(&r.leader)])
        .args(if seq.metadata_epochs { vec![] } else { vec!["--leader-epoch".to_string(), r.leader_epoch.to_string()] })
        .arg(s(&r.before))
        .output()
        .unwrap();
    let mut differences = Vec::new();
    let k: Value = serde_json::from_slice(&out.stdout).unwrap_or_else(|_| {
        differences.push(format!("klog recover failed: {}", String::from_utf8_lossy(&out.stderr).trim()));
        Value::Null
    });
    let before = records(&r.before, topic);
    let after = records(&r.after, topic);
    let (log_end_before, _) = log_end(&r.before, topic);

    // The broker: its truncation lines (none: it kept its log end), confirmed by its data dir.
    let broker_lines = truncation_lines(&r.log, topic);
    let broker_cut = broker_lines.iter().copied().chain([log_end_before]).min().unwrap();
    if let Some((o, rec)) = before.range(..broker_cut).find(|(o, rec)| after.get(o) != Some(rec)) {
        differences.push(format!(
            "broker data: offset {o} ({}) below its cut {broker_cut} is {:?} after the restart: a truncation its log lines do not show",
            rec.0,
            after.get(o)
        ));
    }
    let broker_removed: BTreeMap<i64, String> = before.range(broker_cut..).map(|(o, r)| (*o, r.0.clone())).collect();
    let broker_lost: BTreeSet<i64> =
        before.range(broker_cut..).filter(|(o, r)| final_leader.get(o) != Some(r)).map(|(o, _)| *o).collect();
    let diverged_after: Vec<i64> =
        after.iter().filter(|(o, r)| final_leader.get(o).is_some_and(|f| f != *r)).map(|(o, _)| *o).collect();

    // klog's prediction.
    let klog_cut = k["cut_offset"].as_i64().unwrap_or(-1);
    let rows = k["records"].as_array().cloned().unwrap_or_default();
    let removed_classes = ["truncated_refetchable", "truncated_lost", "acked_lost"];
    let klog_removed: BTreeMap<i64, String> = rows
        .iter()
        .filter(|r| removed_classes.iter().any(|c| r["class"] == *c))
        .map(|r| (r["offset"].as_i64().unwrap(), r["follower"]["value"].as_str().unwrap_or("").to_string()))
        .collect();
    let klog_lost: BTreeSet<i64> = rows
        .iter()
        .filter(|r| r["class"] == "truncated_lost" || r["class"] == "acked_lost")
        .map(|r| r["offset"].as_i64().unwrap())
        .collect();
    let klog_diverged: Vec<i64> =
        rows.iter().filter(|r| r["class"] == "diverged").map(|r| r["offset"].as_i64().unwrap()).collect();
    if k["records_omitted"].as_u64().unwrap_or(0) > 0 {
        differences.push(format!("klog omitted {} rows: its removed set is partial", k["records_omitted"]));
    }
    if !k.is_null() {
        if klog_cut != broker_cut {
            differences
                .push(format!("truncation point: klog {klog_cut}, broker {broker_cut} (its lines: {broker_lines:?})"));
        }
        if klog_removed != broker_removed {
            differences.push(format!("removed records: klog {klog_removed:?}, broker {broker_removed:?}"));
        }
        if klog_lost != broker_lost {
            differences
                .push(format!("removed and not at the leader again: klog {klog_lost:?}, broker {broker_lost:?}"));
        }
        if klog_diverged != diverged_after {
            differences.push(format!("diverged after catching up: klog {klog_diverged:?}, broker {diverged_after:?}"));
        }
    }
    // (offset, value): two acknowledged records can share an offset (one of them since lost).
    let acked: BTreeSet<(i64, &str)> = seq
        .acks
        .iter()
        .filter(|a| a["outcome"] == "acked")
        .map(|a| (a["offset"].as_i64().unwrap(), a["value"].as_str().unwrap()))
        .collect();
    let producer_acked_lost =
        broker_lost.iter().copied().filter(|o| acked.contains(&(*o, broker_removed[o].as_str()))).collect();
    let klog_acked_lost =
        rows.iter().filter(|r| r["class"] == "acked_lost").map(|r| r["offset"].as_i64().unwrap()).collect();
    Verdict {
        follower: r.follower,
        klog_cut,
        broker_cut,
        broker_lines,
        log_end_before,
        broker_removed,
        broker_lost,
        diverged_after,
        klog_acked_lost,
        producer_acked_lost,
        differences,
    }
}

pub(crate) fn judge(seq: &Seq) -> Outcome {
    let final_copy = seq.final_leader.as_ref().expect("a shaped sequence copies its final leader");
    let final_leader = records(final_copy, &seq.topic);
    let acked_gone = seq
        .acks
        .iter()
        .filter(|a| a["outcome"] == "acked")
        .map(|a| (a["offset"].as_i64().unwrap(), a["value"].as_str().unwrap().to_string()))
        .filter(|(o, v)| final_leader.get(o).map(|r| &r.0) != Some(v))
        .collect();
    Outcome { acked_gone, verdicts: seq.restarts.iter().map(|r| compare(seq, r, &final_leader)).collect() }
}

// ----------------------------------------------------------------------------------------------
// Shaping helpers.

pub(crate) fn leader(d: &Value) -> i64 {
    d["leader"].as_i64().unwrap_or(-2)
}

pub(crate) fn isr(d: &Value) -> Vec<i64> {
    d["isr"].as_array().map(|a| a.iter().filter_map(Value::as_i64).collect()).unwrap_or_default()
}

pub(crate) fn epoch(d: &Value) -> i64 {
    d["leader_epoch"].as_i64().unwrap_or(-1)
}

/// Create the sequence's topic on `brokers` (the first leads) and wait for a full ISR.
fn create(c: &mut Cluster, seq: &Seq, brokers: &str, configs: &[&str]) -> Result<Value, String> {
    let mut args = vec![seq.topic.as_str(), brokers];
    args.extend_from_slice(configs);
    let answer = c.kc("create", &args);
    if answer.first().is_none_or(|a| a.get("created").is_none()) {
        return Err(format!("create failed: {answer:?}"));
    }
    let first: i64 = brokers.split(',').next().unwrap().parse().unwrap();
    let n = brokers.split(',').count();
    c.wait_for(&seq.topic, 30, |d| leader(d) == first && isr(d).len() == n)
        .map_err(|d| format!("no leader {first} with a full ISR: {d}"))
}

pub(crate) fn produce_all(
    c: &mut Cluster,
    seq: &mut Seq,
    prefix: &str,
    from: usize,
    count: usize,
) -> Result<(), String> {
    let acked = seq.produce(c, prefix, from, count);
    if acked == count {
        Ok(())
    } else {
        Err(format!("{acked} of {count} {prefix}-records acknowledged"))
    }
}

/// Restart follower `f` (dead), with the leader `l` copied first at epoch `e`; wait until it is in
/// the ISR again, then copy it.
pub(crate) fn restart_follower(
    c: &mut Cluster,
    seq: &mut Seq,
    f: usize,
    before: &str,
    l: usize,
    e: i64,
) -> Result<(), String> {
    let leader_copy = seq.path(&format!("leader-for-{f}"));
    c.copy(l, &leader_copy);
    let mark = c.log_mark(f);
    c.restart(f);
    rejoin(c, seq, f, before, leader_copy, e, mark)
}

/// After follower `f` came back (restarted or resumed at `mark`): wait for the ISR, copy it.
pub(crate) fn rejoin(
    c: &mut Cluster,
    seq: &mut Seq,
    f: usize,
    before: &str,
    leader: PathBuf,
    e: i64,
    mark: usize,
) -> Result<(), String> {
    c.wait_for(&seq.topic, 60, |d| isr(d).contains(&(f as i64)))
        .map_err(|d| format!("{f} did not rejoin the ISR: {d}"))?;
    sleep(Duration::from_millis(800));
    let after = seq.path(&format!("f{f}-after"));
    c.copy(f, &after);
    seq.restarts.push(Restart {
        follower: f,
        before: seq.path(before),
        leader,
        leader_epoch: e,
        after,
        log: c.log_since(f, mark),
    });
    Ok(())
}

pub(crate) fn copy_final_leader(c: &mut Cluster, seq: &mut Seq) -> Result<(), String> {
    let d = c.describe(&seq.topic);
    let l = leader(&d);
    if !(1..=3).contains(&l) {
        return Err(format!("no leader at the end: {d}"));
    }
    let p = seq.path("final-leader");
    c.copy(l as usize, &p);
    seq.final_leader = Some(p);
    Ok(())
}

// ----------------------------------------------------------------------------------------------
// The sequences.

/// clean: RF 3, min ISR 2; 5 acked, kill -9 the leader, a clean election, 5 more acked, restart.
fn clean(c: &mut Cluster, seq: &mut Seq) -> Result<(), String> {
    create(c, seq, "1,2,3", &["min.insync.replicas=2"])?;
    produce_all(c, seq, "v", 0, 5)?;
    c.kill(&[1]);
    c.copy(1, &seq.path("f1"));
    let d = c
        .wait_for(&seq.topic, 30, |d| [2, 3].contains(&leader(d)) && !isr(d).contains(&1))
        .map_err(|d| format!("no clean election: {d}"))?;
    produce_all(c, seq, "v", 5, 5)?;
    let l = leader(&d) as usize;
    seq.note(format!("leader 1 killed, {l} elected at epoch {}", epoch(&d)));
    restart_follower(c, seq, 1, "f1", l, epoch(&d))?;
    copy_final_leader(c, seq)
}

/// Every restarted broker kept its whole log.
fn no_truncation(o: &Outcome) -> Vec<String> {
    o.verdicts
        .iter()
        .filter(|v| v.broker_cut != v.log_end_before)
        .map(|v| format!("broker {} truncated to {} below its log end {}", v.follower, v.broker_cut, v.log_end_before))
        .collect()
}

fn expect_nothing_lost(_: &Seq, o: &Outcome) -> Vec<String> {
    let mut bad = Vec::new();
    if !o.acked_gone.is_empty() {
        bad.push(format!("acked records gone: {:?}", o.acked_gone));
    }
    bad.extend(no_truncation(o));
    bad
}

/// The shape of KIP-101 scenario 1: RF 2, min ISR 1. m-1 acked and checkpointed; m-2 acked, then
/// the follower is killed before its HW checkpoint (every 5 s) reaches it; it restarts as a
/// follower of 1 (Kafka <= 0.10.2 truncated to that HW here and lost m-2 when 1 died next);
/// then 1 dies and 2 leads.
fn kip101_1(c: &mut Cluster, seq: &mut Seq) -> Result<(), String> {
    create(c, seq, "1,2", &["min.insync.replicas=1"])?;
    produce_all(c, seq, "m", 1, 1)?;
    sleep(Duration::from_secs(6));
    produce_all(c, seq, "m", 2, 1)?;
    c.kill(&[2]);
    c.copy(2, &seq.path("f2"));
    let (leo, hw) = log_end(&seq.path("f2"), &seq.topic);
    if hw >= leo {
        return Err(format!("the follower's checkpointed HW {hw} is not below its log end {leo}"));
    }
    let d = c.wait_for(&seq.topic, 30, |d| isr(d) == [1]).map_err(|d| format!("2 did not leave the ISR: {d}"))?;
    restart_follower(c, seq, 2, "f2", 1, epoch(&d))?;
    c.kill(&[1]);
    let d = c.wait_for(&seq.topic, 30, |d| leader(d) == 2).map_err(|d| format!("2 did not take over: {d}"))?;
    seq.note(format!(
        "follower 2 killed with checkpointed HW {hw} < log end {leo}, restarted; leader 1 killed, 2 leads at epoch {}",
        epoch(&d)
    ));
    copy_final_leader(c, seq)
}

/// The shape of KIP-101 scenario 2: RF 2, min ISR 1. m-0 on both; the follower dies, m-1 is
/// acked by the leader alone; the leader dies; the old follower comes back, is elected
/// (Admin.electLeaders UNCLEAN: KRaft keeps the last ISR member) and takes m-2 at offset 1; the
/// old leader restarts as its follower. Kafka <= 0.10.2 kept m-1 at offset 1 beside the leader's
/// m-2 (divergence); from 0.11 the old leader truncates to 1.
fn kip101_2(c: &mut Cluster, seq: &mut Seq) -> Result<(), String> {
    create(c, seq, "1,2", &["min.insync.replicas=1"])?;
    produce_all(c, seq, "m", 0, 1)?;
    sleep(Duration::from_millis(500));
    c.kill(&[2]);
    c.wait_for(&seq.topic, 30, |d| isr(d) == [1]).map_err(|d| format!("2 did not leave the ISR: {d}"))?;
    produce_all(c, seq, "m", 1, 1)?;
    c.kill(&[1]);
    c.copy(1, &seq.path("f1"));
    c.restart(2);
    c.wait_for(&seq.topic, 30, |d| leader(d) == -1).map_err(|d| format!("a leader while 1 is dead: {d}"))?;
    let elect = c.kc("elect", &[&seq.topic, "unclean"]);
    let d = c.wait_for(&seq.topic, 30, |d| leader(d) == 2).map_err(|d| format!("2 not elected ({elect:?}): {d}"))?;
    produce_all(c, seq, "m", 2, 1)?;
    seq.note(format!("2 elected unclean at epoch {}", epoch(&d)));
    restart_follower(c, seq, 1, "f1", 2, epoch(&d))?;
    copy_final_leader(c, seq)
}

fn expect_kip101_2(seq: &Seq, o: &Outcome) -> Vec<String> {
    expect_cut(seq, o, &[(1, 1, &["m-1"])], &["m-1"])
}

/// Each (follower, cut, removed values) as listed, and exactly `gone` acknowledged values gone
/// from the final leader; no divergence after catching up.
fn expect_cut(seq: &Seq, o: &Outcome, cuts: &[(usize, i64, &[&str])], gone: &[&str]) -> Vec<String> {
    let mut bad = Vec::new();
    let gone_values: Vec<&str> = o.acked_gone.iter().map(|(_, v)| v.as_str()).collect();
    let expected_gone: Vec<&str> = gone.iter().copied().filter(|v| seq.outcome_of(v) == "acked").collect();
    if gone_values != expected_gone {
        bad.push(format!("acked records gone: {:?}, expected {expected_gone:?}", o.acked_gone));
    }
    for &(f, cut, removed) in cuts {
        let Some(v) = o.verdicts.iter().find(|v| v.follower == f) else {
            bad.push(format!("broker {f} was not restarted"));
            continue;
        };
        let values: Vec<&str> = v.broker_removed.values().map(String::as_str).collect();
        if v.broker_cut != cut || values != removed {
            bad.push(format!(
                "broker {f} truncated to {} removing {values:?}, expected {cut} removing {removed:?}",
                v.broker_cut
            ));
        }
    }
    for v in &o.verdicts {
        if !v.diverged_after.is_empty() {
            bad.push(format!("broker {} diverged from the leader at {:?}", v.follower, v.diverged_after));
        }
    }
    bad
}

/// The shape of KIP-279: RF 2, min ISR 1. a-0, a-1 on both; 2 dies; a-2..a-5 acked on 1 alone; 1
/// dies; 2 is elected unclean and takes b-2, b-3; 2 dies; 1 is elected unclean and takes a-6; 2
/// restarts as its follower. Under KIP-101's offset-only answer (0.11-1.1) 2 keeps b-2, b-3
/// beside 1's a-2, a-3; from 2.0 it truncates to 2.
fn kip279(c: &mut Cluster, seq: &mut Seq) -> Result<(), String> {
    create(c, seq, "1,2", &["min.insync.replicas=1"])?;
    produce_all(c, seq, "a", 0, 2)?;
    sleep(Duration::from_millis(500));
    c.kill(&[2]);
    c.wait_for(&seq.topic, 30, |d| isr(d) == [1]).map_err(|d| format!("2 did not leave the ISR: {d}"))?;
    produce_all(c, seq, "a", 2, 4)?;
    c.kill(&[1]);
    c.restart(2);
    c.wait_for(&seq.topic, 30, |d| leader(d) == -1).map_err(|d| format!("a leader while 1 is dead: {d}"))?;
    let elect = c.kc("elect", &[&seq.topic, "unclean"]);
    let d2 = c.wait_for(&seq.topic, 30, |d| leader(d) == 2).map_err(|d| format!("2 not elected ({elect:?}): {d}"))?;
    produce_all(c, seq, "b", 2, 2)?;
    c.kill(&[2]);
    c.copy(2, &seq.path("f2"));
    c.restart(1);
    c.wait_for(&seq.topic, 30, |d| leader(d) == -1).map_err(|d| format!("a leader while 2 is dead: {d}"))?;
    let elect = c.kc("elect", &[&seq.topic, "unclean"]);
    let d = c.wait_for(&seq.topic, 30, |d| leader(d) == 1).map_err(|d| format!("1 not elected ({elect:?}): {d}"))?;
    produce_all(c, seq, "a", 6, 1)?;
    seq.note(format!("2 elected unclean at epoch {}, then 1 at epoch {}", epoch(&d2), epoch(&d)));
    restart_follower(c, seq, 2, "f2", 1, epoch(&d))?;
    copy_final_leader(c, seq)
}

fn expect_kip279(seq: &Seq, o: &Outcome) -> Vec<String> {
    expect_cut(seq, o, &[(2, 2, &["b-2", "b-3"])], &["b-2", "b-3"])
}

/// An unclean election: RF 3, min ISR 1. u-0..u-2 on all; 3 dies; u-3..u-5 acked on 1 and 2;
/// 2 then 1 die; 3 comes back and is elected by Admin.electLeaders(UNCLEAN); 1 and 2 restart.
fn unclean(c: &mut Cluster, seq: &mut Seq) -> Result<(), String> {
    create(c, seq, "1,2,3", &["min.insync.replicas=1"])?;
    produce_all(c, seq, "u", 0, 3)?;
    sleep(Duration::from_millis(800));
    c.kill(&[3]);
    c.wait_for(&seq.topic, 30, |d| !isr(d).contains(&3)).map_err(|d| format!("3 stayed in the ISR: {d}"))?;
    produce_all(c, seq, "u", 3, 3)?;
    sleep(Duration::from_millis(800));
    c.kill(&[2]);
    c.wait_for(&seq.topic, 30, |d| !isr(d).contains(&2)).map_err(|d| format!("2 stayed in the ISR: {d}"))?;
    c.kill(&[1]);
    c.copy(1, &seq.path("f1"));
    c.copy(2, &seq.path("f2"));
    c.restart(3);
    c.wait_for(&seq.topic, 30, |d| leader(d) == -1).map_err(|d| format!("a leader while 1 and 2 are dead: {d}"))?;
    let elect = c.kc("elect", &[&seq.topic, "unclean"]);
    let d = c.wait_for(&seq.topic, 30, |d| leader(d) == 3).map_err(|d| format!("3 not elected ({elect:?}): {d}"))?;
    seq.note(format!("3 elected unclean at epoch {}", epoch(&d)));
    let leader_copy = seq.path("leader");
    c.copy(3, &leader_copy);
    let (m1, m2) = (c.log_mark(1), c.log_mark(2));
    c.restart(1);
    c.restart(2);
    rejoin(c, seq, 1, "f1", leader_copy.clone(), epoch(&d), m1)?;
    rejoin(c, seq, 2, "f2", leader_copy, epoch(&d), m2)?;
    copy_final_leader(c, seq)
}

fn expect_unclean(seq: &Seq, o: &Outcome) -> Vec<String> {
    let lost: &[&str] = &["u-3", "u-4", "u-5"];
    expect_cut(seq, o, &[(1, 3, lost), (2, 3, lost)], lost)
}

/// kill -9 of every replica at once (RF 3, min ISR 2), then all three restart: the controller
/// picks a leader (ELR: the last replicas known in sync).
fn kill_all(c: &mut Cluster, seq: &mut Seq) -> Result<(), String> {
    create(c, seq, "1,2,3", &["min.insync.replicas=2"])?;
    produce_all(c, seq, "k", 0, 5)?;
    c.kill(&[1, 2, 3]);
    let mut marks = [0; 4];
    for (n, mark) in marks.iter_mut().enumerate().skip(1) {
        c.copy(n, &seq.path(&format!("f{n}")));
        *mark = c.log_mark(n);
    }
    for n in 1..4 {
        c.start_node(n);
    }
    for n in 1..4 {
        c.wait_started(n);
    }
    let d = c.wait_for(&seq.topic, 40, |d| leader(d) > 0).map_err(|d| format!("no leader after the restart: {d}"))?;
    let l = leader(&d) as usize;
    seq.note(format!("all killed; {l} leads at epoch {} after the restart", epoch(&d)));
    // The leader's copy at the decision point is its copy from before the restart: no record
    // has been produced since.
    for n in (1..4).filter(|&n| n != l) {
        rejoin(c, seq, n, &format!("f{n}"), seq.path(&format!("f{l}")), epoch(&d), marks[n])?;
    }
    copy_final_leader(c, seq)
}

/// A controlled shutdown (SIGTERM) of the leader: RF 3, min ISR 2; 5 acked, the leader shuts
/// down (leadership moves first), 5 more acked, it restarts.
fn controlled_shutdown(c: &mut Cluster, seq: &mut Seq) -> Result<(), String> {
    create(c, seq, "1,2,3", &["min.insync.replicas=2"])?;
    produce_all(c, seq, "c", 0, 5)?;
    if !c.shutdown(1) {
        return Err("broker 1 did not finish its controlled shutdown within 60 s".into());
    }
    c.copy(1, &seq.path("f1"));
    if !seq.path("f1/.kafka_cleanshutdown").is_file() {
        return Err("broker 1 left no clean-shutdown marker".into());
    }
    let d = c.wait_for(&seq.topic, 30, |d| [2, 3].contains(&leader(d))).map_err(|d| format!("no new leader: {d}"))?;
    produce_all(c, seq, "c", 5, 5)?;
    let l = leader(&d) as usize;
    seq.note(format!("1 shut down cleanly, {l} leads at epoch {}", epoch(&d)));
    restart_follower(c, seq, 1, "f1", l, epoch(&d))?;
    copy_final_leader(c, seq)
}

/// A zombie leader: RF 3, min ISR 2; z-0..z-2 acked. The followers are paused (their pending
/// fetches answered empty first), z-3 is sent and appended by the leader alone, the leader is
/// frozen (SIGSTOP) and the followers continued: the controller fences the frozen leader and
/// elects another; y-4.. go to the new leader; then the zombie is continued and follows.
fn zombie(c: &mut Cluster, seq: &mut Seq) -> Result<(), String> {
    create(c, seq, "1,2,3", &["min.insync.replicas=2"])?;
    produce_all(c, seq, "z", 0, 3)?;
    sleep(Duration::from_millis(800));
    c.pause(2);
    c.pause(3);
    sleep(Duration::from_millis(600));
    c.kc_send("produce", &[&seq.topic, "z", "3", "1"]);
    sleep(Duration::from_millis(700));
    c.pause(1);
    c.resume(2);
    c.resume(3);
    let answer = c.kc_recv();
    seq.acks.extend(answer);
    c.copy(1, &seq.path("f1"));
    let d = c
        .wait_for(&seq.topic, 30, |d| [2, 3].contains(&leader(d)))
        .map_err(|d| format!("no new leader while 1 is frozen: {d}"));
    let d = match d {
        Ok(d) => d,
        Err(e) => {
            c.resume(1);
            return Err(e);
        }
    };
    let l = leader(&d) as usize;
    let held = records(&seq.path("f1"), &seq.topic);
    if held.get(&3).map(|r| r.0.as_str()) != Some("z-3") {
        c.resume(1);
        return Err(format!("the frozen leader does not hold z-3 at offset 3: {held:?}"));
    }
    seq.produce(c, "y", 4, 3);
    let leader_copy = seq.path("leader");
    c.copy(l, &leader_copy);
    if records(&leader_copy, &seq.topic).get(&3).is_some_and(|r| r.0 == "z-3") {
        c.resume(1);
        return Err(format!("the new leader {l} holds z-3 too: no zombie record"));
    }
    seq.note(format!("1 frozen holding z-3 ({}), {l} leads at epoch {}", seq.outcome_of("z-3"), epoch(&d)));
    let mark = c.log_mark(1);
    c.resume(1);
    rejoin(c, seq, 1, "f1", leader_copy, epoch(&d), mark)?;
    copy_final_leader(c, seq)
}

fn expect_zombie(seq: &Seq, o: &Outcome) -> Vec<String> {
    let mut bad = expect_cut(seq, o, &[(1, 3, &["z-3"])], &[]);
    if seq.outcome_of("z-3") == "acked" {
        bad.push("z-3 was acknowledged although only the leader held it".into());
    }
    bad
}

/// min ISR 2 with Eligible Leader Replicas: RF 3; 3 acked; 3 dies; 2 more acked on 1 and 2; 2
/// dies (the ISR [1] is below min ISR); a send is refused; 1 dies. Kafka 4.4 keeps only 1, the
/// last ISR member, eligible: 2 (which holds every acknowledged record) restarts and is not
/// elected; 1 restarts and is; 3 restarts; 2 and 3 follow 1.
fn min_isr_elr(c: &mut Cluster, seq: &mut Seq) -> Result<(), String> {
    create(c, seq, "1,2,3", &["min.insync.replicas=2"])?;
    produce_all(c, seq, "e", 0, 3)?;
    sleep(Duration::from_millis(800));
    c.kill(&[3]);
    c.copy(3, &seq.path("f3"));
    c.wait_for(&seq.topic, 30, |d| isr(d) == [1, 2]).map_err(|d| format!("3 stayed in the ISR: {d}"))?;
    produce_all(c, seq, "e", 3, 2)?;
    sleep(Duration::from_millis(800));
    c.kill(&[2]);
    c.copy(2, &seq.path("f2"));
    c.wait_for(&seq.topic, 30, |d| isr(d) == [1]).map_err(|d| format!("2 stayed in the ISR: {d}"))?;
    if seq.produce(c, "e", 5, 1) != 0 {
        return Err("e-5 was acknowledged with the ISR below min.insync.replicas".into());
    }
    refused_not_timed_out(seq, &["e-5"])?;
    c.kill(&[1]);
    c.copy(1, &seq.path("f1"));
    let m2 = c.log_mark(2);
    c.restart(2);
    sleep(Duration::from_secs(5));
    let d = c.describe(&seq.topic);
    seq.note(format!("2 back alone: ISR {} ELR {} leader {}", d["isr"], d["elr"], d["leader"]));
    if leader(&d) != -1 || d["elr"] != serde_json::json!([1]) {
        seq.unexpected.push(format!("with only 2 back, expected no leader and eligible replicas [1]: {d}"));
    }
    c.restart(1);
    let d = c.wait_for(&seq.topic, 40, |d| leader(d) == 1).map_err(|d| format!("1 not elected on its own: {d}"))?;
    seq.note(format!("2 back and not elected; 1 back and elected at epoch {} with no unclean election", epoch(&d)));
    let leader_copy = seq.path("leader");
    c.copy(1, &leader_copy);
    let m3 = c.log_mark(3);
    c.restart(3);
    rejoin(c, seq, 2, "f2", leader_copy.clone(), epoch(&d), m2)?;
    rejoin(c, seq, 3, "f3", leader_copy, epoch(&d), m3)?;
    copy_final_leader(c, seq)
}

/// A send meant to be refused whose request timed out (outcome "unknown") says nothing about
/// the broker's rule: on a loaded machine the producer can give up first. The shaping is then
/// retried rather than judged.
fn refused_not_timed_out(seq: &Seq, values: &[&str]) -> Result<(), String> {
    match values.iter().find(|v| seq.outcome_of(v) == "unknown") {
        Some(v) => Err(format!("{v} timed out (unknown) before the broker refused it")),
        None => Ok(()),
    }
}

fn expect_refused_absent(seq: &Seq, o: &Outcome, refused: &[&str]) -> Vec<String> {
    let mut bad = expect_nothing_lost(seq, o);
    for v in refused {
        if seq.outcome_of(v) != "failed" {
            bad.push(format!("{v}: {}, expected failed (NotEnoughReplicas)", seq.outcome_of(v)));
        }
        for r in &o.verdicts {
            if r.broker_removed.values().any(|x| x == v) {
                bad.push(format!("{v} was in broker {}'s log", r.follower));
            }
        }
    }
    bad
}

fn expect_min_isr_elr(seq: &Seq, o: &Outcome) -> Vec<String> {
    expect_refused_absent(seq, o, &["e-5"])
}

/// min ISR 2 refusing writes: RF 3; 3 acked; 2 and 3 die; two sends are refused
/// (NotEnoughReplicas) and written nowhere; 2 and 3 restart; 2 more acked.
fn min_isr_refused(c: &mut Cluster, seq: &mut Seq) -> Result<(), String> {
    create(c, seq, "1,2,3", &["min.insync.replicas=2"])?;
    produce_all(c, seq, "r", 0, 3)?;
    sleep(Duration::from_millis(800));
    c.kill(&[2, 3]);
    c.copy(2, &seq.path("f2"));
    c.copy(3, &seq.path("f3"));
    let d = c.wait_for(&seq.topic, 30, |d| isr(d) == [1]).map_err(|d| format!("ISR not [1]: {d}"))?;
    if seq.produce(c, "r", 3, 2) != 0 {
        return Err("a send was acknowledged with the ISR below min.insync.replicas".into());
    }
    refused_not_timed_out(seq, &["r-3", "r-4"])?;
    let leader_copy = seq.path("leader");
    c.copy(1, &leader_copy);
    let (m2, m3) = (c.log_mark(2), c.log_mark(3));
    c.start_node(2);
    c.start_node(3);
    c.wait_started(2);
    c.wait_started(3);
    rejoin(c, seq, 2, "f2", leader_copy.clone(), epoch(&d), m2)?;
    rejoin(c, seq, 3, "f3", leader_copy, epoch(&d), m3)?;
    produce_all(c, seq, "r", 5, 2)?;
    seq.note(format!("1 alone in the ISR at epoch {}; r-3, r-4 refused", epoch(&d)));
    copy_final_leader(c, seq)
}

fn expect_min_isr_refused(seq: &Seq, o: &Outcome) -> Vec<String> {
    expect_refused_absent(seq, o, &["r-3", "r-4"])
}

/// Power loss at broker `n` (dead): its data dir is kept as `raw`, cut back to its recovery point
/// in place (`klog crash --power-loss`: what only the page cache held is gone), and copied as
/// `cut` for klog; klog's own note that the replica crashed (`klog-state.json`) stays in that
/// copy and leaves the broker's dir, which holds only Kafka's files again. The broker's dir is
/// not klog's, so the cut needs `--allow-broker-dir-writes`; the backup it saves beside the dir
/// is removed (`raw` is this test's record of the dir before the cut).
pub(crate) fn power_cut(
    c: &mut dyn crate::zk_brokers::Brokers,
    seq: &Seq,
    n: usize,
    raw: &str,
    cut: &str,
) -> Result<(), String> {
    c.copy(n, &seq.path(raw));
    let out = klog()
        .args(["--allow-broker-dir-writes", "crash", "--power-loss", "--partition", &format!("{}-0", seq.topic)])
        .arg(c.data_dir(n))
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    if !out.status.success() {
        return Err(format!("klog crash --power-loss on broker {n}: {}", stderr.trim()));
    }
    for backup in stderr.lines().filter_map(|l| l.split("`klog restore ").nth(1)).filter_map(|r| r.split('`').next()) {
        std::fs::remove_dir_all(backup).map_err(|e| format!("broker {n}: removing the backup {backup}: {e}"))?;
    }
    c.copy(n, &seq.path(cut));
    let _ = std::fs::remove_file(c.data_dir(n).join("klog-state.json"));
    Ok(())
}

/// A power loss of every replica: RF 3, min ISR 2, flush.messages=1 while p-0..p-2 are acked
/// (each append flushed; the recovery points reach their checkpoints within 1 s), then no
/// flushing while p-3..p-5 are acked. All three are killed, each copy is cut back to its
/// recovery point (what only the page cache held is gone), and the brokers restart on the cut
/// dirs.
fn power_loss_all(c: &mut Cluster, seq: &mut Seq) -> Result<(), String> {
    create(c, seq, "1,2,3", &["min.insync.replicas=2", "flush.messages=1"])?;
    produce_all(c, seq, "p", 0, 3)?;
    // Each broker's recovery-point checkpoint names the topic at 3 (flushed and checkpointed).
    let line = format!("{} 0 3", seq.topic);
    let end = Instant::now() + Duration::from_secs(15);
    while !(1..4).all(|n| {
        std::fs::read_to_string(c.data_dir(n).join("recovery-point-offset-checkpoint"))
            .is_ok_and(|t| t.lines().any(|l| l == line))
    }) {
        if Instant::now() > end {
            return Err("the recovery points did not reach their checkpoints at 3 within 15 s".into());
        }
        sleep(Duration::from_millis(300));
    }
    let altered = c.kc("alter", &[&seq.topic, "flush.messages=9223372036854775807"]);
    if altered.first().is_none_or(|a| a.get("altered").is_none()) {
        return Err(format!("alter failed: {altered:?}"));
    }
    sleep(Duration::from_secs(1));
    produce_all(c, seq, "p", 3, 3)?;
    c.kill(&[1, 2, 3]);
    let mut marks = [0; 4];
    for (n, mark) in marks.iter_mut().enumerate().skip(1) {
        power_cut(c, seq, n, &format!("raw{n}"), &format!("f{n}"))?;
        let (leo, _) = log_end(&seq.path(&format!("f{n}")), &seq.topic);
        if leo != 3 {
            return Err(format!("broker {n}'s copy was cut to {leo}, not to its flushed 3"));
        }
        *mark = c.log_mark(n);
    }
    for n in 1..4 {
        c.start_node(n);
    }
    for n in 1..4 {
        c.wait_started(n);
    }
    let d = c.wait_for(&seq.topic, 40, |d| leader(d) > 0).map_err(|d| format!("no leader after the restart: {d}"))?;
    let l = leader(&d) as usize;
    seq.note(format!("all three cut to offset 3; {l} leads at epoch {}", epoch(&d)));
    // The leader as it is now (restarted on its cut dir; nothing produced since).
    let leader_copy = seq.path("leader");
    c.copy(l, &leader_copy);
    for n in (1..4).filter(|&n| n != l) {
        rejoin(c, seq, n, &format!("f{n}"), leader_copy.clone(), epoch(&d), marks[n])?;
    }
    copy_final_leader(c, seq)
}

fn expect_power_loss_all(seq: &Seq, o: &Outcome) -> Vec<String> {
    let gone: &[&str] = &["p-3", "p-4", "p-5"];
    let mut bad = expect_cut(seq, o, &[], gone);
    bad.extend(no_truncation(o));
    bad
}

/// A power loss of the leader alone: RF 3, min ISR 2, no flushing; 5 acked; the leader is
/// killed and its copy cut back to its recovery point (nothing flushed: empty); a clean election;
/// 2 more acked; it restarts on the cut dir and fetches everything back.
fn power_loss_leader(c: &mut Cluster, seq: &mut Seq) -> Result<(), String> {
    create(c, seq, "1,2,3", &["min.insync.replicas=2"])?;
    produce_all(c, seq, "q", 0, 5)?;
    c.kill(&[1]);
    power_cut(c, seq, 1, "raw1", "f1")?;
    let (leo, _) = log_end(&seq.path("f1"), &seq.topic);
    let d = c
        .wait_for(&seq.topic, 30, |d| [2, 3].contains(&leader(d)) && !isr(d).contains(&1))
        .map_err(|d| format!("no clean election: {d}"))?;
    produce_all(c, seq, "q", 5, 2)?;
    let l = leader(&d) as usize;
    seq.note(format!("leader 1 cut to offset {leo}; {l} leads at epoch {}", epoch(&d)));
    restart_follower(c, seq, 1, "f1", l, epoch(&d))?;
    copy_final_leader(c, seq)
}

const SEQUENCES: &[Sequence] = &[
    Sequence {
        name: "clean",
        what: "kill -9 the leader, clean election (RF 3, min ISR 2)",
        shape: clean,
        expect: expect_nothing_lost,
    },
    Sequence {
        name: "kip101-1",
        what:
            "KIP-101 scenario 1: follower restarted with its checkpointed HW below its log end, then the leader killed",
        shape: kip101_1,
        expect: expect_nothing_lost,
    },
    Sequence {
        name: "kip101-2",
        what: "KIP-101 scenario 2: both die, the follower without m-1 leads (unclean) and writes offset 1",
        shape: kip101_2,
        expect: expect_kip101_2,
    },
    Sequence {
        name: "kip279",
        what: "KIP-279: two unclean elections in a row, the follower's epoch unknown to the leader",
        shape: kip279,
        expect: expect_kip279,
    },
    Sequence {
        name: "unclean",
        what: "Admin.electLeaders(UNCLEAN) of a lagging replica (RF 3, min ISR 1)",
        shape: unclean,
        expect: expect_unclean,
    },
    Sequence {
        name: "kill-all",
        what: "kill -9 of every replica, all restart (RF 3, min ISR 2)",
        shape: kill_all,
        expect: expect_nothing_lost,
    },
    Sequence {
        name: "power-loss-all",
        what: "power loss of every replica: cut to the recovery point, restart on the cut dirs",
        shape: power_loss_all,
        expect: expect_power_loss_all,
    },
    Sequence {
        name: "power-loss-leader",
        what: "power loss of the leader alone: cut to its recovery point, restart as a follower",
        shape: power_loss_leader,
        expect: expect_nothing_lost,
    },
    Sequence {
        name: "controlled",
        what: "controlled shutdown (SIGTERM) of the leader, restart",
        shape: controlled_shutdown,
        expect: expect_nothing_lost,
    },
    Sequence {
        name: "zombie",
        what: "SIGSTOP of the leader holding an unreplicated record, SIGCONT after a new election",
        shape: zombie,
        expect: expect_zombie,
    },
    Sequence {
        name: "min-isr-elr",
        what: "min ISR 2: the ISR shrinks to one, a send refused, all die, an eligible replica leads",
        shape: min_isr_elr,
        expect: expect_min_isr_elr,
    },
    Sequence {
        name: "min-isr-refused",
        what: "min ISR 2: two followers die, sends refused and written nowhere, they restart",
        shape: min_isr_refused,
        expect: expect_min_isr_refused,
    },
];

/// One row of the summary.
struct Row {
    name: &'static str,
    attempts: usize,
    shaped: bool,
    agreed: usize,
    compared: usize,
    acked_class_agreed: usize,
    problems: Vec<String>,
    seconds: u64,
}

#[test]
fn real_broker_failovers_truncate_where_klog_predicts() {
    let started = Instant::now();
    let only = std::env::var("KLOG_REAL_ONLY").ok();
    let Some(mut c) = Cluster::start() else { return };
    let work = tempfile::Builder::new().prefix("klog-real.").tempdir().unwrap();
    let keep = std::env::var_os("KLOG_REAL_KEEP").is_some();
    say!("{} up in {:.0} s", c.describe_release(), started.elapsed().as_secs_f64());
    let mut rows = Vec::new();
    for sq in SEQUENCES.iter().filter(|s| only.as_deref().is_none_or(|o| o.split(',').any(|x| x == s.name))) {
        let t0 = Instant::now();
        let mut row = Row {
            name: sq.name,
            attempts: 0,
            shaped: false,
            agreed: 0,
            compared: 0,
            acked_class_agreed: 0,
            problems: vec![],
            seconds: 0,
        };
        let mut whys = Vec::new();
        while row.attempts < ATTEMPTS && !row.shaped {
            row.attempts += 1;
            let topic = format!("{}-{}", sq.name, row.attempts);
            let dir = work.path().join(&topic);
            std::fs::create_dir_all(&dir).unwrap();
            let mut seq = Seq::new(dir, topic, false);
            let shaped = (sq.shape)(&mut c, &mut seq);
            c.heal();
            match shaped {
                Err(why) => {
                    say!("  {} attempt {}: not shaped: {why}", sq.name, row.attempts);
                    whys.push(why);
                }
                Ok(()) => {
                    row.shaped = true;
                    let o = judge(&seq);
                    say!("  {} ({}): {}", sq.name, seq.topic, seq.notes.join("; "));
                    for v in &o.verdicts {
                        let agree = v.differences.is_empty();
                        row.compared += 1;
                        row.agreed += agree as usize;
                        row.acked_class_agreed += (v.klog_acked_lost == v.producer_acked_lost) as usize;
                        say!(
                            "    broker {}: {} cut klog {} / broker {} (lines {:?}, log end {}), removed {:?}, lost {:?}; acked lost: producer {:?}, klog's class {:?}",
                            v.follower,
                            if agree { "AGREE" } else { "DIFFER" },
                            v.klog_cut,
                            v.broker_cut,
                            v.broker_lines,
                            v.log_end_before,
                            v.broker_removed,
                            v.broker_lost,
                            v.producer_acked_lost,
                            v.klog_acked_lost
                        );
                        for d in &v.differences {
                            row.problems.push(format!("{} broker {}: klog differs: {d}", seq.topic, v.follower));
                        }
                    }
                    say!("    acked records gone from the final leader: {:?}", o.acked_gone);
                    if o.verdicts.is_empty() {
                        row.problems.push(format!("{}: no broker was restarted as a follower", seq.topic));
                    }
                    for p in seq.unexpected.iter().cloned().chain((sq.expect)(&seq, &o)) {
                        row.problems.push(format!("{}: the brokers did not do what the shape expects: {p}", seq.topic));
                    }
                }
            }
        }
        if !row.shaped {
            row.problems.push(format!("{}: never shaped in {ATTEMPTS} attempts: {whys:?}", sq.name));
        }
        row.seconds = t0.elapsed().as_secs();
        say!("  {}: {} s", sq.name, row.seconds);
        rows.push(row);
    }
    if keep {
        say!("copies kept in {}", work.keep().display());
    }
    drop(c);
    let total = started.elapsed().as_secs();
    say!(
        "\n{:<18} {:>7} {:>12} {:>18} {:>5}  shape",
        "sequence",
        "shaped",
        "klog agreed",
        "acked class agreed",
        "secs"
    );
    for r in &rows {
        say!(
            "{:<18} {:>7} {:>12} {:>18} {:>5}  {}",
            r.name,
            format!("{} of {}", r.shaped as usize, r.attempts),
            format!("{} of {}", r.agreed, r.compared),
            format!("{} of {}", r.acked_class_agreed, r.compared),
            r.seconds,
            SEQUENCES.iter().find(|s| s.name == r.name).map_or("", |s| s.what)
        );
    }
    let (agreed, compared): (usize, usize) = rows.iter().fold((0, 0), |(a, m), r| (a + r.agreed, m + r.compared));
    say!("klog agreed {agreed} of {compared}; {} sequences; total {total} s (limit 900 s)", rows.len());
    let problems: Vec<&String> = rows.iter().flat_map(|r| &r.problems).collect();
    assert!(
        problems.is_empty(),
        "{} problems:\n{}",
        problems.len(),
        problems.iter().map(|p| format!("  {p}")).collect::<Vec<_>>().join("\n")
    );
    if only.is_none() {
        assert!(rows.len() >= 12, "at least 12 sequences");
    }
    assert!(total <= 900, "the real-broker sequences took {total} s, above 15 minutes");
}
