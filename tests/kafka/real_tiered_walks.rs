//! The lockstep random walks (`real_walks.rs`) on a tiered Kafka 4.4 cluster (issue 45, point 4:
//! "add uploads and local deletions to the lockstep random walks on 4.4").
//!
//! The cluster is `real_tiered.rs`'s (`tiered_settings`: Kafka's own `LocalTieredStorage`, the
//! topic-based metadata manager, copy and expiration tasks and local retention every second),
//! and each walk's topic has `remote.storage.enable=true` and 100-byte segments, so that every
//! record a leader appends (one batch of about 75 bytes) rolls its own segment: a produce is an
//! **upload** — once the HW passes the record, the segment before it is one the leader's copy
//! task copies (`candidateLogSegments`: a segment whose next segment starts at or below the last
//! stable offset), and the comparison after the step waits for that copy. A **local deletion**
//! (`local-delete`, drawn whenever there is a leader) sets the topic's `local.retention.bytes`
//! to 1 until the leader's earliest-local offset stays put for 3 s (retention runs every
//! second), then back to −2 (keep all locally): every local segment already copied goes. A
//! follower stopped before uploads and local deletions and restarted after them restarts below
//! the leader's local log start and rebuilds its remote aux state (drawn as any restart).
//!
//! The model has no tiers (klog's explorer does not model them yet): a produce, a local
//! deletion and the rest are applied to it as in the other walks, and each replica's *local*
//! records must be the model's records at the same offsets. After each step, besides the
//! controller record, the logs and HWs, [`tier_check`] compares the tiers, on copies of the
//! three brokers' data dirs and of the remote dir:
//!
//! - klog's remote segment table for the partition (`klog remote --json`) against the one
//!   Kafka's own `RemotePartitionMetadataStore` folds from the same `__remote_log_metadata`
//!   copies (`klog.oracle.Tiered remote-segments`, as `real_tiered.rs` compares them);
//! - ListOffsets earliest / earliest-local / latest (the leader's answers before and after the
//!   copy, equal) against klog's log start, local log start and log end in the leader's dir;
//! - no klog finding about the partition (a copy caught half done is waited out);
//! - the leader has copied every segment its copy task may copy (wait for it, at most 30 s).
//!
//! The walk's verdict reads what the final leader serves from both tiers with a consumer from
//! the earliest offset, not its local log.
//!
//! `scripts/real-walks --tiered` (`KLOG_WALKS_TIERED=1`) runs the long run on 4.4.0 with ELR
//! off and on; `tiered_walks_agree_on_real_4_4_brokers` runs a fixed walk and replays the kept
//! tiered cases (tests/real-walks/*.json with `"tiered": true`).

use crate::common::{copy_dir, json_lines, klog};
use crate::kraft_brokers::Cluster;
use crate::real_failovers::Records;
use crate::real_tiered::{consume_topic, klog_remote_lines, of, tables, tiered_settings};
use crate::real_walks::{run_walk, stored_walks, Step, Target, Walk};
use crate::zk_brokers::Brokers;
use serde_json::Value;
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::thread::sleep;
use std::time::{Duration, Instant};

macro_rules! say {
    ($($arg:tt)*) => {{
        use std::io::Write;
        let _ = writeln!(std::io::stderr(), $($arg)*);
    }};
}

/// The walk topic's tier settings (added to its creation).
pub(crate) const TOPIC_CONFIGS: [&str; 2] = ["remote.storage.enable=true", "internal.segment.bytes=100"];

/// A tiered 4.4 cluster: the brokers and the LocalTieredStorage dir they write (dropped after
/// them).
pub(crate) struct TieredCluster {
    pub(crate) c: Cluster,
    pub(crate) remote: tempfile::TempDir,
}

/// The tiered cluster of a walk target: 4.4.0 with `features`, the walks' broker settings
/// `extra` and `real_tiered.rs`'s tiered settings.
pub(crate) fn start(features: &[&str], extra: &[&str]) -> Option<Box<dyn Brokers>> {
    let remote = tempfile::Builder::new().prefix("klog-tiered-walks.").tempdir().unwrap();
    let mut settings: Vec<String> = extra.iter().map(|s| s.to_string()).collect();
    settings.extend(tiered_settings(remote.path()));
    let settings: Vec<&str> = settings.iter().map(String::as_str).collect();
    let c = Cluster::start_release(crate::oracle::KAFKA_VERSION, features, &settings)?;
    Some(Box::new(TieredCluster { c, remote }))
}

impl Brokers for TieredCluster {
    fn kc(&mut self, cmd: &str, args: &[&str]) -> Vec<Value> {
        self.c.kc(cmd, args)
    }
    fn describe(&mut self, topic: &str) -> Value {
        self.c.describe(topic)
    }
    fn wait_for(&mut self, topic: &str, secs: u64, cond: &dyn Fn(&Value) -> bool) -> Result<Value, Value> {
        self.c.wait_for(topic, secs, cond)
    }
    fn kill(&mut self, ns: &[usize]) {
        self.c.kill(ns)
    }
    fn shutdown(&mut self, n: usize) -> bool {
        self.c.shutdown(n)
    }
    fn pause(&mut self, n: usize) {
        self.c.pause(n)
    }
    fn resume(&mut self, n: usize) {
        self.c.resume(n)
    }
    fn restart(&mut self, n: usize) {
        self.c.restart(n)
    }
    fn heal(&mut self) {
        self.c.heal()
    }
    fn copy(&mut self, n: usize, dest: &Path) {
        self.c.copy(n, dest)
    }
    fn data_dir(&self, n: usize) -> PathBuf {
        self.c.data_dir(n)
    }
    fn describe_release(&self) -> String {
        format!("{}, tiered (LocalTieredStorage)", self.c.describe_release())
    }
    fn fenced_count(&self, n: usize) -> usize {
        Brokers::fenced_count(&self.c, n)
    }
    fn tier(&mut self) -> Option<&mut TieredCluster> {
        Some(self)
    }
}

/// ListOffsets earliest / earliest-local / latest of `topic`'s partition 0 (or `error`).
fn offsets(c: &mut dyn Brokers, topic: &str) -> Value {
    c.kc("tiered-offsets", &[topic, "0"]).pop().unwrap_or(Value::Null)
}

/// The local deletion step: `local.retention.bytes=1` until the leader's earliest-local offset
/// has stayed put for 3 s (at most 30 s), then −2 again. What it did, or the admin's error.
pub(crate) fn local_delete(c: &mut dyn Brokers, topic: &str) -> Result<String, String> {
    let altered = |answer: &[Value]| answer.first().is_some_and(|a| a.get("altered").is_some());
    let before = offsets(c, topic);
    let set = c.kc("alter", &[topic, "local.retention.bytes=1"]);
    if !altered(&set) {
        return Err(format!("local.retention.bytes=1 refused: {set:?}"));
    }
    let start = Instant::now();
    let mut last = before.clone();
    let mut since = Instant::now();
    while start.elapsed() < Duration::from_secs(30) && since.elapsed() < Duration::from_secs(3) {
        sleep(Duration::from_millis(500));
        let now = offsets(c, topic);
        if now["earliest_local"] != last["earliest_local"] {
            since = Instant::now();
        }
        last = now;
    }
    let back = c.kc("alter", &[topic, "local.retention.bytes=-2"]);
    if !altered(&back) {
        return Err(format!("local.retention.bytes=-2 refused: {back:?}"));
    }
    Ok(format!(
        "local-delete: earliest-local {} -> {} ({:.1} s)",
        before["earliest_local"],
        last["earliest_local"],
        start.elapsed().as_secs_f64()
    ))
}

/// What the leader serves from both tiers: a consumer from the earliest offset, as records by
/// offset (the epoch is not read: −1), and that earliest offset.
pub(crate) fn consume(c: &mut dyn Brokers, topic: &str) -> Result<(Records, i64), String> {
    let t = c.tier().ok_or("not a tiered cluster")?;
    let got = consume_topic(&t.c, topic);
    if let Some(e) = got.get("error") {
        return Err(format!("{e} ({got})"));
    }
    let records = got["records"].as_array().ok_or_else(|| format!("no records: {got}"))?;
    let start = got["start"].as_i64().ok_or_else(|| format!("no start: {got}"))?;
    let held = records.iter().filter_map(|p| Some((p[0].as_i64()?, (p[1].as_str().unwrap_or("").to_string(), -1))));
    Ok((held.collect(), start))
}

/// What a step's [`tier_check`] read: a note of what agreed, the partition's remote segment ids,
/// and klog's forecast for each broker if it leads next (`klog remote`'s `leader_forecast`:
/// the segments its expiration task deletes, and its log start after).
#[derive(Debug, Clone, Default)]
pub(crate) struct TierReading {
    pub(crate) note: String,
    ids: BTreeSet<String>,
    forecasts: BTreeMap<usize, (BTreeSet<String>, i64)>,
}

/// The tiers compared after a step (see the module's doc): retried for 30 s while the cluster
/// moves (a copy or a deletion under way); what agreed, or the last difference. `prev`: the
/// previous step's reading, whose forecast for the leader now must have come true.
pub(crate) fn tier_check(
    c: &mut dyn Brokers,
    topic: &str,
    leader: Option<usize>,
    work: &Path,
    prev: Option<&TierReading>,
) -> Result<TierReading, String> {
    let end = Instant::now() + Duration::from_secs(30);
    loop {
        let _ = std::fs::remove_dir_all(work);
        std::fs::create_dir_all(work).unwrap();
        match tier_once(c, topic, leader, work, prev) {
            Ok(note) => return Ok(note),
            Err(e) if Instant::now() >= end => return Err(e),
            Err(_) => sleep(Duration::from_millis(1000)),
        }
    }
}

/// One reading of [`tier_check`].
fn tier_once(
    c: &mut dyn Brokers,
    topic: &str,
    leader: Option<usize>,
    work: &Path,
    prev: Option<&TierReading>,
) -> Result<TierReading, String> {
    let partition = format!("{topic}-0");
    let before = leader.map(|_| offsets(c, topic));
    let remote = c.tier().ok_or("not a tiered cluster")?.remote.path().to_path_buf();
    let dirs: Vec<PathBuf> = (1..=3)
        .map(|n| {
            let d = work.join(format!("data{n}"));
            c.copy(n, &d);
            d
        })
        .collect();
    let remote_copy = work.join("remote");
    copy_dir(&remote, &remote_copy);
    let _ = std::fs::remove_file(remote_copy.join("slow-upload"));
    let after = leader.map(|_| offsets(c, topic));
    if before != after {
        return Err(format!("ListOffsets moved while the dirs were copied: {before:?} then {after:?}"));
    }
    let dir_names: Vec<String> = dirs.iter().map(|d| d.display().to_string()).collect();
    let lines = klog_remote_lines(&dir_names, &remote_copy)?;

    // No finding about the partition.
    let findings: Vec<&Value> =
        lines.iter().filter(|l| l["type"] == "finding" && l.to_string().contains(&partition)).collect();
    if !findings.is_empty() {
        return Err(format!("klog finds {findings:?}"));
    }

    // klog's remote segment table is the one Kafka folds from the same metadata copies.
    let (klog_table, kafka_table, _) = tables(&lines);
    let mine = |set: BTreeSet<String>| -> BTreeSet<String> {
        set.into_iter().filter(|k| k.starts_with(&format!("{partition} "))).collect()
    };
    let (klog_table, kafka_table) = (mine(klog_table), mine(kafka_table));
    if klog_table != kafka_table {
        return Err(format!(
            "klog's remote segment table of {partition} is not Kafka's: klog only {:?}, Kafka only {:?}",
            klog_table.difference(&kafka_table).collect::<Vec<_>>(),
            kafka_table.difference(&klog_table).collect::<Vec<_>>()
        ));
    }
    let segments: Vec<Value> = of(&lines, "remote_segment")
        .into_iter()
        .filter(|s| s["topic"].as_str() == Some(topic) && s["partition"] == 0)
        .collect();
    let finished_end = segments
        .iter()
        .filter(|s| s["state"] == "COPY_SEGMENT_FINISHED")
        .filter_map(|s| s["end_offset"].as_i64())
        .max();
    let mut note = format!("tiers agree: {} remote segment(s) in Kafka's fold and klog's", segments.len());
    if let Some(e) = finished_end {
        note.push_str(&format!(" (copied to {e})"));
    }
    let ids: BTreeSet<String> = segments.iter().filter_map(|s| s["segment_id"].as_str().map(String::from)).collect();
    let forecasts: BTreeMap<usize, (BTreeSet<String>, i64)> = of(&lines, "leader_forecast")
        .into_iter()
        .filter(|f| f["partition"].as_str() == Some(partition.as_str()))
        .filter_map(|f| {
            let dir = Path::new(f["data_dir"].as_str()?);
            let n = dirs.iter().position(|d| d == dir)? + 1;
            let deleted = f["deletions"].as_array()?.iter().filter_map(|d| d["segment_id"].as_str().map(String::from));
            Some((n, (deleted.collect(), f["log_start_offset_after"].as_i64()?)))
        })
        .collect();
    let (Some(l), Some(o)) = (leader, after) else {
        return Ok(TierReading { note, ids, forecasts });
    };
    if o.get("error").is_some() || o.get("earliest").is_none() {
        return Err(format!("ListOffsets: {o}"));
    }
    let leader_dir = &dirs[l - 1];
    let replica = replica_line(leader_dir, &partition)?;
    let end = replica["log_end_offset"].as_i64().unwrap_or(-1);
    // `klog remote` lists a partition once `__remote_log_metadata` names it; before its first
    // copy, `klog dump`'s reading (the log start across tiers from the checkpoint when below
    // the first local segment).
    let side = of(&lines, "local")
        .into_iter()
        .find(|s| s["topic"].as_str() == Some(topic) && Path::new(s["data_dir"].as_str().unwrap_or("")) == leader_dir);
    let (log_start, local_start) = match &side {
        Some(s) => (s["log_start_offset"].as_i64(), s["local_log_start_offset"].as_i64()),
        None if segments.is_empty() => {
            let local = replica["log_start_offset"].as_i64();
            (replica["log_start_offset_checkpoint_below_local"].as_i64().or(local), local)
        }
        None => return Err(format!("klog remote has no {partition} in broker {l}'s dir")),
    };
    let kafka = (o["earliest"].as_i64(), o["earliest_local"].as_i64(), o["latest"].as_i64());
    let ours = (log_start, local_start, Some(end));
    if kafka != ours {
        return Err(format!(
            "broker {l} answers ListOffsets earliest / earliest-local / latest {kafka:?}, klog reads its log start / \
             local log start / log end as {ours:?}"
        ));
    }
    // The leader's copy task has caught up: every segment it may copy is copied.
    if let Some(due) = copy_due(&leader_dir.join(&partition), o["latest"].as_i64().unwrap_or(0)) {
        if finished_end.is_none_or(|e| e < due) {
            return Err(format!("broker {l} has not copied up to offset {due} (copied to {finished_end:?})"));
        }
    }
    note.push_str(&format!(
        "; broker {l} earliest {} earliest-local {} latest {}",
        kafka.0.unwrap(),
        kafka.1.unwrap(),
        end
    ));
    // What klog forecast, on the previous step's copies, for this leader: the remote segments
    // its expiration task deletes and the earliest offset after.
    if let Some((prev_ids, (forecast, after))) = prev.and_then(|p| p.forecasts.get(&l).map(|f| (&p.ids, f))) {
        let gone: BTreeSet<String> = prev_ids.difference(&ids).cloned().collect();
        if &gone != forecast || kafka.0 != Some(*after) {
            return Err(format!(
                "broker {l} leads: Kafka deleted {} remote segment(s) {gone:?} and answers earliest {:?}; klog forecast \
                 {} {forecast:?}, earliest {after}",
                gone.len(),
                kafka.0,
                forecast.len()
            ));
        }
        if !gone.is_empty() {
            note.push_str(&format!("; {} remote segment(s) deleted as klog forecast, earliest {after}", gone.len()));
        }
    }
    Ok(TierReading { note, ids, forecasts })
}

/// The last offset of the last segment of partition dir `dir` that the copy task may copy with
/// the last stable offset at `lso`: a segment whose next segment starts at or below it
/// (`RemoteLogManager.candidateLogSegments`). None when there is none.
fn copy_due(dir: &Path, lso: i64) -> Option<i64> {
    let mut bases: Vec<i64> = std::fs::read_dir(dir)
        .ok()?
        .filter_map(|e| {
            let name = e.ok()?.file_name().to_string_lossy().into_owned();
            name.strip_suffix(".log")?.parse::<i64>().ok()
        })
        .collect();
    bases.sort();
    bases.windows(2).filter(|w| w[1] <= lso).map(|w| w[1] - 1).max()
}

/// `klog dump --json`'s replica line of `dir`'s partition `partition`.
fn replica_line(dir: &Path, partition: &str) -> Result<Value, String> {
    let out = klog()
        .args(["dump", "--json", "--limit", "0", "--partition", partition])
        .arg(dir)
        .output()
        .map_err(|e| e.to_string())?;
    json_lines(&String::from_utf8_lossy(&out.stdout))
        .into_iter()
        .find(|v| v["type"] == "replica")
        .ok_or_else(|| format!("klog dump {}: {}", dir.display(), String::from_utf8_lossy(&out.stderr).trim()))
}

/// The fixed tiered walk of the Kafka tier, written so that a follower restarts below the
/// leader's local log start: broker 2 is stopped, broker 1 (min ISR 1) takes records, copies
/// them and deletes them locally; broker 2's restart then meets OFFSET_MOVED_TO_TIERED_STORAGE
/// and rebuilds its remote aux state before it fetches.
fn restart_below_local_start() -> Walk {
    let steps = ["produce", "produce", "kill 2", "produce", "produce", "local-delete", "restart 2"];
    Walk {
        target: Target::TIERED[0],
        seed: 0,
        min_isr: 1,
        unclean: false,
        steps: steps.iter().map(|s| Step::parse(s).unwrap()).collect(),
        reaches: None,
    }
}

/// Without brokers: a tiered walk draws local deletions (a KRaft walk of the same seed draws
/// none), the fixed walk is one the model takes, and both write and read back as tiered walks.
#[test]
fn a_tiered_walk_draws_local_deletions_and_round_trips() {
    let tiered = Walk::draw(Target::TIERED[0], 7, 10);
    assert!(tiered.steps.contains(&Step::LocalDelete), "{:?}", tiered.steps);
    assert!(tiered.on_model().is_ok());
    let plain = Walk::draw(Target::ALL[1], 7, 10);
    assert!(!plain.steps.contains(&Step::LocalDelete), "{:?}", plain.steps);
    for w in [tiered, restart_below_local_start()] {
        assert!(w.on_model().is_ok(), "{:?}", w.steps);
        let back = Walk::from_json(&w.to_json()).unwrap();
        assert!(back.target.tiered && back.steps == w.steps, "{}", w.to_json());
        assert_eq!(w.to_json()["tiered"], true);
    }
    assert!(plain.to_json().get("tiered").is_none());
}

/// The fixed tiered walk on a real 4.4 cluster, then each kept tiered case (tests/real-walks/
/// *.json with `"tiered": true`), in lockstep with the model; the tiers compared after every
/// step. The walks of one target share its cluster (a topic each).
#[test]
fn tiered_walks_agree_on_real_4_4_brokers() {
    let started = Instant::now();
    let kept: Vec<(String, Walk)> = stored_walks().into_iter().filter(|(_, w)| w.target.tiered).collect();
    say!("{} kept tiered case(s)", kept.len());
    let mut walks = vec![("restart below the local log start".to_string(), restart_below_local_start())];
    walks.extend(kept);
    let mut problems = Vec::new();
    for target in Target::TIERED {
        let these: Vec<&(String, Walk)> = walks.iter().filter(|(_, w)| w.target.elr == target.elr).collect();
        if these.is_empty() {
            continue;
        }
        let Some(mut c) = target.start() else { return };
        let work = tempfile::Builder::new().prefix("klog-tiered-walks.").tempdir().unwrap();
        for (i, (name, walk)) in these.into_iter().enumerate() {
            let t0 = Instant::now();
            let out = run_walk(c.as_mut(), walk, &format!("tw{}-{i}", u8::from(target.elr)), work.path());
            let verdict = if out.differ.is_none() { "AGREE" } else { "DIFFER" };
            say!("  {name} ({} steps, {:.0} s): {verdict}", out.steps_done, t0.elapsed().as_secs_f64());
            for n in &out.notes {
                say!("    {n}");
            }
            if let Some((at, what)) = out.differ {
                problems.push(format!("{name} at step {at}: {what}"));
            } else if i == 0 && !target.elr && !out.notes.iter().any(|n| n.contains("rebuilt from remote segment")) {
                // The fixed walk is there for its restart below the leader's local log start.
                problems.push(format!("{name}: broker 2 did not restart below broker 1's local log start"));
            }
        }
    }
    say!("tiered walks: {} run, {} disagree, {:.0} s", walks.len(), problems.len(), started.elapsed().as_secs_f64());
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

/// Before a restart of broker `n` (stopped) while broker `leader` leads: when its log ends below
/// the leader's local log start, klog's plan of the restart (`recover --dry-run --leader` on
/// copies of both dirs and the remote dir): the plan's `from_remote`. None when the follower is
/// not below the leader's local log start.
pub(crate) fn plan_restart(
    c: &mut dyn Brokers,
    topic: &str,
    n: usize,
    leader: Option<usize>,
    work: &Path,
) -> Result<Option<Value>, String> {
    let Some(l) = leader.filter(|&l| l != n) else { return Ok(None) };
    let partition = format!("{topic}-0");
    let _ = std::fs::remove_dir_all(work);
    std::fs::create_dir_all(work).unwrap();
    let remote = c.tier().ok_or("not a tiered cluster")?.remote.path().to_path_buf();
    let (follower_dir, leader_dir, remote_copy) = (work.join("follower"), work.join("leader"), work.join("remote"));
    c.copy(n, &follower_dir);
    c.copy(l, &leader_dir);
    copy_dir(&remote, &remote_copy);
    let _ = std::fs::remove_file(remote_copy.join("slow-upload"));
    let Ok(follower) = replica_line(&follower_dir, &partition) else { return Ok(None) };
    let leader_side = replica_line(&leader_dir, &partition)?;
    let (leo, local_start) = (follower["log_end_offset"].as_i64(), leader_side["log_start_offset"].as_i64());
    if leo >= local_start {
        return Ok(None);
    }
    let out = klog()
        .args(["recover", "--dry-run", "--json", "--partition", &partition, "--leader"])
        .arg(&leader_dir)
        .arg(&follower_dir)
        .arg("--remote-dir")
        .arg(&remote_copy)
        .output()
        .map_err(|e| e.to_string())?;
    if !out.status.success() {
        return Err(format!("klog recover --dry-run: {}", String::from_utf8_lossy(&out.stderr).trim()));
    }
    let plan =
        json_lines(&String::from_utf8_lossy(&out.stdout)).into_iter().find_map(|l| l.get("from_remote").cloned());
    plan.map(Some).ok_or_else(|| {
        format!("broker {n}'s log ends at {leo:?}, below broker {l}'s local log start {local_start:?}, and klog plans no restart from remote storage")
    })
}

/// After the restart [`plan_restart`] planned (the logs already compared): broker `n`'s first
/// local segment starts at the plan's next offset, its log start (`log-start-offset-checkpoint`,
/// written every second) is the leader's log start, and its epoch cache below the next offset
/// is the plan's (the remote segment's checkpoint). Retried for 10 s (the checkpoints' writes).
pub(crate) fn check_restart(
    c: &mut dyn Brokers,
    topic: &str,
    n: usize,
    plan: &Value,
    work: &Path,
) -> Result<String, String> {
    let next = plan["next_offset"].as_i64().ok_or_else(|| format!("a plan without a next offset: {plan}"))?;
    let planned: Vec<(i64, i64)> = plan["epochs"]
        .as_array()
        .map(|a| a.iter().filter_map(|e| Some((e["leader_epoch"].as_i64()?, e["start_offset"].as_i64()?))).collect())
        .unwrap_or_default();
    let end = Instant::now() + Duration::from_secs(10);
    loop {
        let got = restarted(c, topic, n, next, work);
        let want = (Some(next), Some(plan["leader_log_start_offset"].as_i64().unwrap_or(-1)), planned.clone());
        if got == want {
            return Ok(format!(
                "broker {n} rebuilt from remote segment {} and restarted at {next}, log start {}, epochs {planned:?}, as \
                 klog planned",
                plan["segment_id"], plan["leader_log_start_offset"]
            ));
        }
        if Instant::now() >= end {
            return Err(format!(
                "broker {n} restarted below the leader's local log start: (first local segment, log start, epochs below \
                 {next}) {got:?}, klog planned {want:?}"
            ));
        }
        sleep(Duration::from_millis(1000));
    }
}

/// Broker `n`'s first local segment, log start (checkpoint) and epoch-cache entries below `next`.
fn restarted(
    c: &mut dyn Brokers,
    topic: &str,
    n: usize,
    next: i64,
    work: &Path,
) -> (Option<i64>, Option<i64>, Vec<(i64, i64)>) {
    let dir = work.join("after");
    c.copy(n, &dir);
    let partition = dir.join(format!("{topic}-0"));
    let mut bases: Vec<i64> = std::fs::read_dir(&partition)
        .map(|d| d.filter_map(|e| e.ok()?.file_name().to_str()?.strip_suffix(".log")?.parse().ok()).collect())
        .unwrap_or_default();
    bases.sort_unstable();
    let log_start = std::fs::read_to_string(dir.join("log-start-offset-checkpoint"))
        .unwrap_or_default()
        .lines()
        .find_map(|l| l.strip_prefix(&format!("{topic} 0 "))?.trim().parse().ok());
    let epochs = std::fs::read_to_string(partition.join("leader-epoch-checkpoint"))
        .unwrap_or_default()
        .lines()
        .skip(2)
        .filter_map(|l| {
            let (e, o) = l.split_once(' ')?;
            Some((e.parse().ok()?, o.trim().parse().ok()?))
        })
        .filter(|&(_, o): &(i64, i64)| o < next)
        .collect();
    let _ = std::fs::remove_dir_all(&dir);
    (bases.first().copied(), log_start, epochs)
}
