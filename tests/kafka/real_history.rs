//! Who led when, on real brokers: one scripted sequence on a Kafka 4.4.0 KRaft cluster
//! (`kraft_brokers.rs`: controller 0, brokers 1-3), then klog on copies of its dirs:
//! - `klog history` on the controller's metadata log lists exactly the elections the test
//!   performed, and each state the admin client's `describe` reported after a step (leader,
//!   epoch, ISR, ELR) is the state the history holds at that moment;
//! - `klog dump --format kafka` with its decoders equals `DumpLogSegments` with
//!   `--cluster-metadata-decoder` / `--offsets-decoder` / `--transaction-log-decoder` on the
//!   controller's metadata log, the `__consumer_offsets` partition holding the test's group and
//!   the `__transaction_state` partition holding its transactional id;
//! - the restart plan (`recover --dry-run --leader L F`, no `--leader-epoch`: the epoch from the
//!   metadata log in L's copy) names the leader the controller chose at the epoch it chose, the
//!   data-dir plan agrees, and its prediction matches what each broker then did (real_failovers.rs's
//!   `compare`: the offset it truncated to, the records it removed and lost).
//!
//! The sequence, on a topic of two partitions (0 on brokers 1,2,3; 1 on 2,3,1; min ISR 1):
//! produce; a consumer group commits an offset; a transactional producer commits, another
//! aborts; broker 1 (leader of 0) is paused: a clean election; it resumes and rejoins; a
//! preferred election gives 0 back to 1; 3, then 2 are killed (records acked by 1 alone), 1 is
//! killed; 3 restarts: no leader; 3 is elected unclean; 2 and 1 restart as its followers.
//! Retried on a new topic when a timing-dependent step does not take its shape. Skips without
//! the Kafka oracle's classpath; fails under `KLOG_CI`.

use crate::common::{json_lines, klog, s};
use crate::kraft_brokers::Cluster;
use crate::real_failovers::{epoch, isr, judge, leader, produce_all, rejoin, Seq};
use serde_json::{json, Value};
use std::path::{Path, PathBuf};
use std::thread::sleep;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

macro_rules! say {
    ($($arg:tt)*) => {{
        use std::io::Write;
        let _ = writeln!(std::io::stderr(), $($arg)*);
    }};
}

const ATTEMPTS: usize = 2;
const PARTITIONS: i32 = 2;
const GROUP: &str = "truth-group";

fn now_ms() -> i64 {
    SystemTime::now().duration_since(UNIX_EPOCH).unwrap().as_millis() as i64
}

/// What `describe` reported for every partition after one step, and when it was asked.
struct Observation {
    step: String,
    asked_ms: i64,
    answered_ms: i64,
    /// One `describe` answer per partition.
    views: Vec<Value>,
}

/// The shaped run: the sequence's copies and what was observed on the way.
struct Shaped {
    observations: Vec<Observation>,
    /// Elections the test asked for or caused on partition 0, in order (for the output).
    elections: Vec<String>,
    offsets_partition: i64,
    transaction_partition: i64,
}

/// What `describe` says of every partition now. A describe that got no answer (its admin
/// client asked the paused broker and timed out: CI saw it once) is asked again, up to 20 s,
/// so a missing answer is never read as an election.
fn observe(c: &mut Cluster, topic: &str, step: &str, obs: &mut Vec<Observation>) {
    let end = Instant::now() + Duration::from_secs(20);
    loop {
        let asked_ms = now_ms();
        let views: Vec<Value> = (0..PARTITIONS).map(|p| c.describe_partition(topic, p)).collect();
        if views.iter().all(|d| d.get("leader").is_some()) || Instant::now() >= end {
            obs.push(Observation { step: step.to_string(), asked_ms, answered_ms: now_ms(), views });
            return;
        }
        sleep(Duration::from_millis(500));
    }
}

fn wait_p(
    c: &mut Cluster,
    topic: &str,
    p: i32,
    secs: u64,
    why: &str,
    cond: impl Fn(&Value) -> bool,
) -> Result<Value, String> {
    c.wait_for_partition(topic, p, secs, cond).map_err(|d| format!("{why}: {d}"))
}

fn shape(c: &mut Cluster, seq: &mut Seq) -> Result<Shaped, String> {
    let topic = seq.topic.clone();
    let mut obs = Vec::new();
    let mut elections = Vec::new();
    let created = c.kc("create-assigned", &[&topic, "1,2,3/2,3,1", "min.insync.replicas=1"]);
    if created.first().is_none_or(|a| a.get("created").is_none()) {
        return Err(format!("create failed: {created:?}"));
    }
    wait_p(c, &topic, 0, 30, "partition 0: no leader 1 with a full ISR", |d| leader(d) == 1 && isr(d).len() == 3)?;
    wait_p(c, &topic, 1, 30, "partition 1: no leader 2 with a full ISR", |d| leader(d) == 2 && isr(d).len() == 3)?;
    observe(c, &topic, "created", &mut obs);

    // Records, an offset commit, a committed and an aborted transaction.
    produce_all(c, seq, "a", 0, 5)?;
    let b = c.kc("produce-partition", &[&topic, "1", "b", "0", "3"]);
    if b.iter().any(|a| a["outcome"] != "acked") {
        return Err(format!("partition 1 sends not all acked: {b:?}"));
    }
    // The first commit creates __consumer_offsets: its coordinator may not be ready yet.
    let mut committed = Vec::new();
    for _ in 0..5 {
        committed = c.kc("commit-offsets", &[GROUP, &topic, "0", "5"]);
        if committed.first().is_some_and(|a| a.get("committed").is_some()) {
            break;
        }
        sleep(Duration::from_secs(1));
    }
    let offsets_partition =
        committed.first().and_then(|a| a["partition"].as_i64()).ok_or(format!("commit: {committed:?}"))?;
    let id = format!("{topic}-tx");
    let t1 = c.kc("transaction", &[&topic, "1", &id, "t", "2", "commit"]);
    let t2 = c.kc("transaction", &[&topic, "1", &id, "x", "2", "abort"]);
    let transaction_partition = match (t1.first(), t2.first()) {
        (Some(a), Some(b)) if a["outcome"] == "committed" && b["outcome"] == "aborted" => {
            a["partition"].as_i64().unwrap()
        }
        _ => return Err(format!("transactions: {t1:?} {t2:?}")),
    };
    sleep(Duration::from_millis(800));

    // 1 paused: the controller fences it and elects a clean leader.
    c.pause(1);
    let d = wait_p(c, &topic, 0, 30, "no clean election while 1 is paused", |d| {
        [2, 3].contains(&leader(d)) && !isr(d).contains(&1)
    });
    let d = match d {
        Ok(d) => d,
        Err(e) => {
            c.resume(1);
            return Err(e);
        }
    };
    observe(c, &topic, "1 paused: clean election", &mut obs);
    elections.push(format!("clean: {} at epoch {}", leader(&d), epoch(&d)));
    c.copy(1, &seq.path("f1-paused"));
    produce_all(c, seq, "a", 5, 3).inspect_err(|_| c.resume(1))?;
    let l = leader(&d) as usize;
    let leader_copy = seq.path("leader-for-1");
    c.copy(l, &leader_copy);
    let mark = c.log_mark(1);
    c.resume(1);
    rejoin(c, seq, 1, "f1-paused", leader_copy, epoch(&d), mark)?;
    observe(c, &topic, "1 resumed: back in the ISR", &mut obs);

    // The preferred election gives partition 0 back to 1.
    let answer = c.kc("elect-partition", &[&topic, "0", "preferred"]);
    let d = wait_p(c, &topic, 0, 30, &format!("1 not preferred-elected ({answer:?})"), |d| leader(d) == 1)?;
    observe(c, &topic, "preferred election: 1", &mut obs);
    elections.push(format!("preferred: 1 at epoch {}", epoch(&d)));

    // 3, then 2 killed; records acked by 1 alone; 1 killed; 3 restarts and is elected unclean.
    c.kill(&[3]);
    wait_p(c, &topic, 0, 30, "3 stayed in the ISR", |d| !isr(d).contains(&3))?;
    observe(c, &topic, "3 killed: out of the ISR", &mut obs);
    produce_all(c, seq, "a", 8, 1)?;
    sleep(Duration::from_millis(800));
    c.kill(&[2]);
    wait_p(c, &topic, 0, 30, "2 stayed in the ISR", |d| isr(d) == [1])?;
    observe(c, &topic, "2 killed: 1 alone in the ISR", &mut obs);
    produce_all(c, seq, "a", 9, 2)?;
    c.kill(&[1]);
    c.copy(1, &seq.path("f1-dead"));
    c.copy(2, &seq.path("f2-dead"));
    c.restart(3);
    wait_p(c, &topic, 0, 30, "a leader while 1 and 2 are dead", |d| leader(d) == -1)?;
    observe(c, &topic, "1 killed, 3 restarted: no leader", &mut obs);
    elections.push("1 killed: no leader".into());
    let answer = c.kc("elect-partition", &[&topic, "0", "unclean"]);
    let d = wait_p(c, &topic, 0, 30, &format!("3 not elected unclean ({answer:?})"), |d| leader(d) == 3)?;
    observe(c, &topic, "unclean election: 3", &mut obs);
    elections.push(format!("unclean: 3 at epoch {}", epoch(&d)));
    let leader_copy = seq.path("leader-for-2-and-1");
    c.copy(3, &leader_copy);
    let (m1, m2) = (c.log_mark(1), c.log_mark(2));
    c.start_node(2);
    c.start_node(1);
    c.wait_started(2);
    c.wait_started(1);
    rejoin(c, seq, 2, "f2-dead", leader_copy.clone(), epoch(&d), m2)?;
    rejoin(c, seq, 1, "f1-dead", leader_copy, epoch(&d), m1)?;
    observe(c, &topic, "2 and 1 restarted: followers of 3", &mut obs);
    crate::real_failovers::copy_final_leader(c, seq)?;
    Ok(Shaped { observations: obs, elections, offsets_partition, transaction_partition })
}

/// The registration fields `describe` reports, from a `klog history` change line.
fn state(v: &Value) -> Value {
    json!({"leader": v["leader"], "leader_epoch": v["leader_epoch"], "isr": v["isr"], "elr": v["elr"]})
}

fn described(d: &Value) -> Value {
    json!({"leader": d["leader"], "leader_epoch": d["leader_epoch"], "isr": d["isr"], "elr": d["elr"]})
}

/// `klog history` against the observations: (elections matched, expected; states matched,
/// observed; problems).
fn check_history(controller: &Path, topic: &str, sh: &Shaped) -> (usize, usize, usize, usize, Vec<String>) {
    let out = klog().args(["history", "--json", s(controller)]).output().unwrap();
    let mut problems = Vec::new();
    if !out.status.success() {
        problems.push(format!("klog history: {}", String::from_utf8_lossy(&out.stderr)));
        return (0, 0, 0, 0, problems);
    }
    let lines = json_lines(&String::from_utf8_lossy(&out.stdout));
    let (mut elections_ok, mut elections_all, mut states_ok, mut states_all) = (0, 0, 0, 0);
    for p in 0..PARTITIONS {
        let name = format!("{topic}-{p}");
        let changes: Vec<&Value> =
            lines.iter().filter(|l| l["type"] == "partition_change" && l["partition"] == name.as_str()).collect();
        // Each election in the history: a change of leader, or of epoch alone.
        let history: Vec<(i64, i64)> = changes
            .iter()
            .filter(|c| c["changed"].as_array().is_some_and(|a| a.contains(&json!("leader_epoch"))))
            .map(|c| (c["leader"].as_i64().unwrap(), c["leader_epoch"].as_i64().unwrap()))
            .collect();
        // Each election describe saw: a new (leader, epoch) after a step.
        let mut seen: Vec<(i64, i64)> = Vec::new();
        for o in &sh.observations {
            let d = &o.views[p as usize];
            let e = (leader(d), epoch(d));
            if seen.last() != Some(&e) {
                seen.push(e);
            }
        }
        let seen = seen[1..].to_vec(); // the first is the creation, not an election
        elections_all += seen.len();
        elections_ok += history.iter().zip(&seen).filter(|(a, b)| a == b).count();
        if history != seen {
            problems.push(format!("{name}: elections in the history {history:?}, described {seen:?}"));
        }
        // The state the history holds when describe answered is what describe said.
        for o in &sh.observations {
            states_all += 1;
            let d = described(&o.views[p as usize]);
            let at = |t: i64| changes.iter().rfind(|c| c["timestamp"].as_i64().unwrap() <= t).map(|c| state(c));
            if at(o.answered_ms).as_ref() == Some(&d) || at(o.asked_ms).as_ref() == Some(&d) {
                states_ok += 1;
            } else {
                problems.push(format!(
                    "{name} after '{}': described {d}, the history holds {:?}",
                    o.step,
                    at(o.answered_ms)
                ));
            }
        }
    }
    (elections_ok, elections_all, states_ok, states_all, problems)
}

/// The restart plans on the copies taken before each follower came back: one partition and the
/// data-dir plan, with no --leader-epoch; (agreeing, compared; problems).
/// The cluster view (`klog recover --dry-run D1 D2 D3 --json`) over the copies taken at the
/// unclean election — the two dead brokers' dirs and the new leader's — against what the brokers
/// then did: the leader it names is the controller's (from the metadata), each follower's first
/// offset the leader lacks and planned cut is where the broker truncated, the records it says the
/// leader lacks are exactly those the broker lost, and every acknowledged record it reports
/// missing from the leader is among them. Returns (followers agreed, followers, problems).
fn check_cluster_view(seq: &Seq, o: &crate::real_failovers::Outcome) -> (usize, usize, Vec<String>) {
    let mut problems = Vec::new();
    let at_election: Vec<(&crate::real_failovers::Restart, &crate::real_failovers::Verdict)> =
        seq.restarts.iter().zip(&o.verdicts).filter(|(r, _)| r.before.to_string_lossy().ends_with("-dead")).collect();
    let Some((first, _)) = at_election.first() else {
        return (0, 0, vec!["no follower restarted after the unclean election".into()]);
    };
    let mut dirs: Vec<&Path> = at_election.iter().map(|(r, _)| r.before.as_path()).collect();
    dirs.push(first.leader.as_path());
    let partition = format!("{}-0", seq.topic);
    let out = klog()
        .args(["recover", "--dry-run", "--json", "--partition", &partition])
        .args(dirs.iter().map(|d| s(d)))
        .output()
        .unwrap();
    let lines = json_lines(&String::from_utf8_lossy(&out.stdout));
    let Some(view) = lines.iter().find(|v| v["type"] == "cluster_partition" && v["partition"] == partition.as_str())
    else {
        return (
            0,
            at_election.len(),
            vec![format!("cluster view: no line for {partition}: {}", String::from_utf8_lossy(&out.stderr))],
        );
    };
    if view["leader_node_id"] != 3 || view["leader_source"]["from"] != "metadata" {
        problems.push(format!(
            "cluster view: leader {} from {}, the controller elected 3 (in the metadata)",
            view["leader_node_id"], view["leader_source"]
        ));
    }
    let mut agreed = 0;
    for (r, v) in &at_election {
        let Some(line) =
            view["replicas"].as_array().and_then(|rs| rs.iter().find(|x| x["node_id"] == r.follower as i64))
        else {
            problems.push(format!("cluster view: broker {} not lined up", r.follower));
            continue;
        };
        let lacked: std::collections::BTreeSet<i64> = match &line["leader_lacks"] {
            Value::Null => Default::default(),
            r => (r["first_offset"].as_i64().unwrap()..=r["last_offset"].as_i64().unwrap()).collect(),
        };
        let cut = line["restart"]["cut_offset"].as_i64();
        let acked_missing: Vec<i64> = view["acked_missing_from_leader"]
            .as_array()
            .into_iter()
            .flatten()
            .filter(|m| m["holder_node_id"] == r.follower as i64)
            .flat_map(|m| m["ranges"].as_array().cloned().unwrap_or_default())
            .flat_map(|x| x["first_offset"].as_i64().unwrap()..=x["last_offset"].as_i64().unwrap())
            .collect();
        let mut wrong = Vec::new();
        if lacked != v.broker_lost {
            wrong.push(format!("the leader lacks {lacked:?}, the broker lost {:?}", v.broker_lost));
        }
        if cut != Some(v.broker_cut) {
            wrong.push(format!("planned cut {cut:?}, the broker cut at {}", v.broker_cut));
        }
        if let Some(o) = acked_missing.iter().find(|o| !v.broker_lost.contains(o)) {
            wrong.push(format!("acked offset {o} reported missing from the leader, which the broker did not lose"));
        }
        say!(
            "  cluster view, broker {}: leader lacks {lacked:?} (broker lost {:?}), cut {cut:?} (broker {}), acked and missing by its HW checkpoint {acked_missing:?}",
            r.follower,
            v.broker_lost,
            v.broker_cut
        );
        if wrong.is_empty() {
            agreed += 1;
        }
        problems.extend(wrong.into_iter().map(|w| format!("cluster view, broker {}: {w}", r.follower)));
    }
    (agreed, at_election.len(), problems)
}

fn check_plans(seq: &Seq) -> (usize, usize, Vec<String>) {
    let mut problems = Vec::new();
    let mut ok = 0;
    let name = format!("{}-0", seq.topic);
    for r in &seq.restarts {
        let one = klog()
            .args(["recover", "--dry-run", "--json", "--partition", &name, "--leader", s(&r.leader), s(&r.before)])
            .output()
            .unwrap();
        let plan =
            klog().args(["recover", "--dry-run", "--json", "--leader", s(&r.leader), s(&r.before)]).output().unwrap();
        let one: Value = serde_json::from_slice(&one.stdout).unwrap_or(Value::Null);
        let in_plan = json_lines(&String::from_utf8_lossy(&plan.stdout))
            .into_iter()
            .find(|v| v["type"] == "recover" && v["partition"] == name.as_str())
            .unwrap_or(Value::Null);
        let a = &one["assumed"];
        let mut bad = Vec::new();
        if one["leader_epoch_source"] != "metadata" {
            bad.push(format!("source {} ({})", one["leader_epoch_source"], a["sentence"]));
        }
        if one["leader_epoch"].as_i64() != Some(r.leader_epoch) {
            bad.push(format!("epoch {} where the controller chose {}", one["leader_epoch"], r.leader_epoch));
        }
        if a["recorded"]["leader"] != a["leader_id"] || a["leader_id"].is_null() {
            bad.push(format!(
                "the metadata's leader {} is not the leader copy's node {}",
                a["recorded"]["leader"], a["leader_id"]
            ));
        }
        for key in ["leader_epoch", "leader_epoch_source", "cut_offset"] {
            if in_plan[key] != one[key] {
                bad.push(format!("data-dir plan {key} {} vs {}", in_plan[key], one[key]));
            }
        }
        if bad.is_empty() {
            ok += 1;
        } else {
            problems.push(format!("restart plan of broker {}: {}", r.follower, bad.join("; ")));
        }
    }
    (ok, seq.restarts.len(), problems)
}

/// `klog dump --format kafka` against `DumpLogSegments` with the decoder flag, per partition
/// dir: (agreeing, compared, lines compared; problems). None without the oracle.
fn check_dumps(dirs: &[(PathBuf, &str)], scratch: &Path) -> Option<(usize, usize, usize, Vec<String>)> {
    let mut manifest = Vec::new();
    let mut klog_out = Vec::new();
    for (dir, flag) in dirs {
        let mut logs: Vec<String> = std::fs::read_dir(dir)
            .unwrap()
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.extension().is_some_and(|e| e == "log"))
            .map(|p| p.display().to_string())
            .collect();
        logs.sort();
        let mut args: Vec<String> =
            ["--deep-iteration", "--print-data-log", flag].iter().map(|a| a.to_string()).collect();
        args.extend(["--files".to_string(), logs.join(",")]);
        manifest.push(args);
        let out = klog().args(["dump", "--format", "kafka", s(dir)]).output().unwrap();
        klog_out.push(String::from_utf8_lossy(&out.stdout).into_owned());
    }
    let kafka = crate::oracle::dump_batch(scratch, &manifest)?;
    let (mut agree, mut lines, mut problems) = (0, 0, Vec::new());
    for (((dir, _), k), ours) in dirs.iter().zip(&kafka).zip(&klog_out) {
        lines += k.stdout.lines().count();
        if k.error.is_none() && &k.stdout == ours {
            agree += 1;
        } else {
            let first = k.stdout.lines().zip(ours.lines()).find(|(a, b)| a != b);
            problems.push(format!(
                "dump of {} differs ({} Kafka lines, {} klog lines; error {:?}); first difference: {first:?}",
                dir.display(),
                k.stdout.lines().count(),
                ours.lines().count(),
                k.error
            ));
        }
    }
    Some((agree, dirs.len(), lines, problems))
}

#[test]
fn real_cluster_history_dumps_and_restart_plans_agree_with_the_brokers() {
    let started = Instant::now();
    let Some(mut c) = Cluster::start() else { return };
    say!("{} up in {:.0} s", c.describe_release(), started.elapsed().as_secs_f64());
    let work = tempfile::Builder::new().prefix("klog-real-history.").tempdir().unwrap();
    let mut whys = Vec::new();
    let mut done = None;
    for attempt in 1..=ATTEMPTS {
        let topic = format!("truth-{attempt}");
        let dir = work.path().join(&topic);
        std::fs::create_dir_all(&dir).unwrap();
        let mut seq = Seq::new(dir, topic, true);
        let shaped = shape(&mut c, &mut seq);
        c.heal();
        match shaped {
            Ok(sh) => {
                done = Some((seq, sh));
                break;
            }
            Err(why) => {
                say!("  attempt {attempt}: not shaped: {why}");
                whys.push(why);
            }
        }
    }
    let Some((seq, sh)) = done else { panic!("never shaped in {ATTEMPTS} attempts: {whys:?}") };
    say!("  {}: elections {:?}", seq.topic, sh.elections);
    // The controller's dir and every broker's, copied now (all running again).
    let copies = work.path().join("final");
    for n in 0..4 {
        c.copy(n, &copies.join(format!("node{n}")));
    }
    let offsets = c.describe_partition("__consumer_offsets", sh.offsets_partition as i32);
    let txns = c.describe_partition("__transaction_state", sh.transaction_partition as i32);
    let shaped_at = started.elapsed().as_secs();
    drop(c);

    let mut problems = Vec::new();
    let controller = copies.join("node0");
    let (e_ok, e_all, s_ok, s_all, p) = check_history(&controller, &seq.topic, &sh);
    problems.extend(p);
    say!("history: elections matched {e_ok} of {e_all}; described states matched {s_ok} of {s_all}");
    let picture = klog()
        .args(["history", "--picture", "--color", "never", "--partition", &format!("{}-0", seq.topic), s(&controller)])
        .output()
        .unwrap();
    say!("{}", String::from_utf8_lossy(&picture.stdout));

    let (plans_ok, plans_all, p) = check_plans(&seq);
    problems.extend(p);
    let o = judge(&seq);
    let mut agreed = 0;
    for v in &o.verdicts {
        say!(
            "  broker {}: cut klog {} / broker {} (lines {:?}, log end {}), removed {:?}, lost {:?}",
            v.follower,
            v.klog_cut,
            v.broker_cut,
            v.broker_lines,
            v.log_end_before,
            v.broker_removed,
            v.broker_lost
        );
        if v.differences.is_empty() {
            agreed += 1;
        }
        problems.extend(v.differences.iter().map(|d| format!("broker {}: klog differs: {d}", v.follower)));
    }
    say!("restart plans from the metadata: {plans_ok} of {plans_all} named the controller's leader and epoch; truncation agreed {agreed} of {}", o.verdicts.len());
    if o.verdicts.len() != 3 {
        problems.push(format!("{} followers came back, expected 3", o.verdicts.len()));
    }
    let (view_ok, view_all, p) = check_cluster_view(&seq, &o);
    problems.extend(p);
    say!(
        "cluster view at the unclean election: {view_ok} of {view_all} followers' lost records and cuts named exactly"
    );
    if view_all != 2 {
        problems.push(format!("the cluster view saw {view_all} followers at the unclean election, expected 2"));
    }
    // The unclean election lost what 1 alone held (a-9, a-10) and what 1 and 2 held (a-8).
    let lost: Vec<&str> = o.acked_gone.iter().map(|(_, v)| v.as_str()).collect();
    if lost != ["a-8", "a-9", "a-10"] {
        problems.push(format!("acked records gone after the unclean election: {lost:?}, expected a-8, a-9, a-10"));
    }

    let holder = |d: &Value| leader(d).clamp(0, 3) as usize;
    let dumps = [
        (controller.join("__cluster_metadata-0"), "--cluster-metadata-decoder"),
        (
            copies.join(format!("node{}/__consumer_offsets-{}", holder(&offsets), sh.offsets_partition)),
            "--offsets-decoder",
        ),
        (
            copies.join(format!("node{}/__transaction_state-{}", holder(&txns), sh.transaction_partition)),
            "--transaction-log-decoder",
        ),
    ];
    let scratch = work.path().join("scratch");
    std::fs::create_dir_all(&scratch).unwrap();
    if let Some((d_ok, d_all, lines, p)) = check_dumps(&dumps, &scratch) {
        problems.extend(p);
        say!("dumps with decoders equal to DumpLogSegments: {d_ok} of {d_all} ({lines} lines compared)");
        if lines < 50 {
            problems.push(format!("only {lines} dump lines compared"));
        }
    }
    say!("real_history: shaped in {shaped_at} s, total {} s", started.elapsed().as_secs());
    if std::env::var_os("KLOG_REAL_KEEP").is_some() {
        say!("copies kept in {}", work.keep().display());
    }
    assert!(problems.is_empty(), "{} problems:\n  {}", problems.len(), problems.join("\n  "));
}
