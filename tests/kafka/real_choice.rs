//! The cluster view's "Kafka's choice" held against real Kafka 4.4.0 KRaft controllers (issue
//! #34, points 9, 10 and 16). One cluster (`kraft_brokers.rs`, ELR on: 4.4's default for a new
//! cluster), each sequence on its own topic of replicas [1, 2] (broker 3 holds none of them; its
//! dir carries the controller's latest metadata while 1 and 2 are dead). At the decision point
//! the stopped brokers' dirs are copied (a running one paused while copied), `klog check --json`
//! (the cluster form) is run on the copies, and what it says Kafka will do is held against what
//! the controller then does, read with a Metadata request / Admin describe:
//!
//! - `a` (unclean.leader.election.enable false, the default; min ISR 1): 2 is killed (leaves the
//!   ISR), records are acknowledged by 1 alone, 1 is killed (ISR empty, ELR [1]). With broker
//!   1's dir lost (copies of 2 and 3): "none, stays offline", naming the admin's pick, 2; the
//!   controller keeps the partition leaderless after 2 restarts (10 s). With 1's dir too: 1, the
//!   last known leader, which the controller elects when 1 restarts.
//! - `b` (the topic's unclean.leader.election.enable=true): the same kills; from copies of 2 and
//!   3, broker 2, which the controller elects by itself as 2 is unfenced (an unclean election in
//!   `generateLeaderAndIsrUpdates`, no admin call and no periodic task needed). Then records
//!   acknowledged by 2 alone: on copies of 1, 2 and 3 the view says that the election already
//!   happened (its metadata offset, unclean) instead of forecasting it (point 16).
//! - `e` (min ISR 2): 2 is killed while in the ISR (it enters the ELR), then 1 (ELR [1, 2]); 2
//!   restarts after its unclean shutdown, the controller removes it from the ELR as it registers
//!   and the partition stays offline: klog says so from copies of 2 and 3.
//! - `f` (min ISR 2): 2 shuts down cleanly (SIGTERM: the clean-shutdown marker; it enters the
//!   ELR), then 1 is killed; 2 restarts, stays in the ELR and is elected: klog says broker 2.
//!
//! Without the Kafka oracle's classpath the test skips (under `KLOG_CI` it fails).
//! `KLOG_REAL_KEEP=1` keeps the copies and says where.

use crate::common::{klog, s};
use crate::kraft_brokers::Cluster;
use crate::real_failovers::{isr, leader};
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::thread::sleep;
use std::time::{Duration, Instant};

macro_rules! say {
    ($($arg:tt)*) => {{
        use std::io::Write;
        let _ = writeln!(std::io::stderr(), $($arg)*);
    }};
}

/// The view's `cluster_partition` object for `partition` over `dirs`.
fn view(dirs: &[PathBuf], partition: &str) -> Value {
    let mut cmd = klog();
    cmd.args(["check", "--cluster", "--json", "--partition", partition]);
    for d in dirs {
        cmd.arg(s(d));
    }
    let out = cmd.output().unwrap();
    assert!(out.status.code().is_some_and(|c| c < 2), "klog check: {}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .find(|v| v["type"] == "cluster_partition" && v["partition"] == partition)
        .unwrap_or_else(|| panic!("no line for {partition}"))
}

/// Kafka's choice as the view states it: the node it names (`None`: stays offline) and why.
fn kafka_choice(p: &Value) -> (Option<i64>, String) {
    let k = &p["kafka_choice"];
    (k["node_id"].as_i64(), k["why"].as_str().unwrap_or("(no kafka_choice)").to_string())
}

struct Check {
    what: String,
    klog: Option<i64>,
    brokers: Option<i64>,
    why: String,
}

/// One judgment: klog's pick from the copies against the controller's leader (`-1`: none).
fn judge(checks: &mut Vec<Check>, what: &str, p: &Value, controller: &Value) {
    let (klog, why) = kafka_choice(p);
    let l = leader(controller);
    checks.push(Check { what: what.into(), klog, brokers: (l > 0).then_some(l), why });
}

fn copies(c: &mut Cluster, dir: &Path, nodes: &[usize]) -> Vec<PathBuf> {
    nodes
        .iter()
        .map(|&n| {
            let d = dir.join(format!("d{n}"));
            c.copy(n, &d);
            d
        })
        .collect()
}

fn create(c: &mut Cluster, topic: &str, configs: &[&str]) {
    let mut args = vec![topic, "1,2"];
    args.extend_from_slice(configs);
    let answer = c.kc("create", &args);
    assert!(answer.first().is_some_and(|a| a.get("created").is_some()), "create {topic}: {answer:?}");
    c.wait_for(topic, 30, |d| leader(d) == 1 && isr(d) == [1, 2])
        .unwrap_or_else(|d| panic!("{topic}: no leader 1 with ISR [1, 2]: {d}"));
}

fn produce(c: &mut Cluster, topic: &str, prefix: &str, from: usize, count: usize) {
    let answers = c.kc("produce", &[topic, prefix, &from.to_string(), &count.to_string()]);
    let acked = answers.iter().filter(|a| a["outcome"] == "acked").count();
    assert_eq!(acked, count, "{topic}: {answers:?}");
}

fn wait(c: &mut Cluster, topic: &str, what: &str, secs: u64, cond: impl Fn(&Value) -> bool) -> Value {
    c.wait_for(topic, secs, cond).unwrap_or_else(|d| panic!("{topic}: {what} within {secs} s: {d}"))
}

fn ids(v: &Value) -> Vec<i64> {
    v.as_array().map(|a| a.iter().filter_map(Value::as_i64).collect()).unwrap_or_default()
}

#[test]
fn kafka_choice_in_the_cluster_view_is_what_real_4_4_controllers_do() {
    let started = Instant::now();
    let Some(mut c) = Cluster::start() else { return };
    let work = tempfile::Builder::new().prefix("klog-choice.").tempdir().unwrap();
    say!("{} up in {:.0} s", c.describe_release(), started.elapsed().as_secs_f64());
    let mut checks = Vec::new();
    let mut problems: Vec<String> = Vec::new();

    // Phase 1: a, b and e share the kills of 2 then 1, and 2's restart.
    let t = Instant::now();
    create(&mut c, "a", &[]);
    create(&mut c, "b", &["unclean.leader.election.enable=true"]);
    create(&mut c, "e", &["min.insync.replicas=2"]);
    for topic in ["a", "b", "e"] {
        produce(&mut c, topic, topic, 0, 3);
    }
    sleep(Duration::from_millis(800));
    c.kill(&[2]);
    for topic in ["a", "b"] {
        wait(&mut c, topic, "2 out of the ISR", 30, |d| isr(d) == [1]);
        produce(&mut c, topic, topic, 3, 3);
    }
    let d = wait(&mut c, "e", "2 in the ELR", 30, |d| isr(d) == [1] && ids(&d["elr"]) == [2]);
    say!("  2 killed: e has ISR {} ELR {}", d["isr"], d["elr"]);
    // 1's HW checkpoint (every 5 s) covers the records only it acknowledged.
    sleep(Duration::from_secs(6));
    c.kill(&[1]);
    for topic in ["a", "b", "e"] {
        let d = wait(&mut c, topic, "no leader with 1 and 2 dead", 30, |d| leader(d) == -1);
        say!(
            "  1 and 2 killed: {topic} leader -1, ISR {}, ELR {}, last known {}",
            d["isr"],
            d["elr"],
            d["last_known_elr"]
        );
    }
    let p1 = work.path().join("phase1");
    let all = copies(&mut c, &p1, &[1, 2, 3]);
    let lost1 = &all[1..];
    let views: Vec<(&str, Value, Value)> =
        ["a", "b", "e"].iter().map(|&t| (t, view(lost1, &format!("{t}-0")), view(&all, &format!("{t}-0")))).collect();
    let restart = Instant::now();
    c.restart(2);
    let b = wait(&mut c, "b", "2 elected (unclean.leader.election.enable=true)", 40, |d| leader(d) == 2);
    say!(
        "  2 restarted: b elected 2 by itself at epoch {} after {:.1} s, ISR {}",
        b["leader_epoch"],
        restart.elapsed().as_secs_f64(),
        b["isr"]
    );
    sleep(Duration::from_secs(10).saturating_sub(restart.elapsed()));
    let a = c.describe("a");
    let e = c.describe("e");
    say!(
        "  10 s after 2's restart: a leader {} ELR {}; e leader {} ELR {}",
        a["leader"],
        a["elr"],
        e["leader"],
        e["elr"]
    );
    for (topic, lost1, _) in &views {
        let controller = match *topic {
            "a" => &a,
            "b" => &b,
            _ => &e,
        };
        judge(&mut checks, &format!("{topic}: dirs of 2, 3; 2 restarts"), lost1, controller);
    }
    if ids(&e["elr"]) != [1] {
        problems.push(format!("e: 2 back after an unclean shutdown should have left the ELR [1, 2]: {e}"));
    }
    let (_, why) = kafka_choice(&views[0].1);
    if !(why.contains("stays offline") && why.contains("would elect broker 2")) {
        problems.push(format!("a: klog should say the partition stays offline and name the admin's pick 2: {why}"));
    }

    // Point 16: b's unclean election lost 1's acknowledged records; 2 takes new ones.
    produce(&mut c, "b", "b2", 3, 3);
    sleep(Duration::from_secs(6));
    let p16 = work.path().join("point16");
    let mut after = vec![all[0].clone()];
    after.extend(copies(&mut c, &p16, &[2, 3]));
    let b16 = view(&after, "b-0");
    let happened = &b16["kafka_choice"]["elected"];
    say!("  b after the election, dirs of 1 (before), 2, 3: {}", b16["kafka_choice"]);
    if happened["node_id"] != 2 || happened["unclean"] != true || !happened["metadata_offset"].is_i64() {
        problems.push(format!("b: the view should say that Kafka already elected 2 (unclean, at an offset): {b16}"));
    }
    if b16["kafka_choice"]["why"].as_str().is_some_and(|w| w.contains("would elect")) {
        problems.push(format!("b: a forecast of an election that already happened: {b16}"));
    }

    // 1 comes back: the controller elects it where 1's dir was there to say so.
    c.restart(1);
    for (topic, _, with1) in &views {
        let d = if *topic == "b" {
            c.describe("b")
        } else {
            wait(&mut c, topic, "1 elected after its restart", 40, |d| leader(d) == 1)
        };
        if *topic == "b" {
            // 2 already leads: the three-dir forecast depended on the restart order (printed).
            let (k, why) = kafka_choice(with1);
            say!("  b: dirs of 1, 2, 3 before the restarts: klog {k:?} ({why}); the controller elected 2, restarted first");
            if !why.contains("if broker 2 comes back before broker 1, the controller elects it at once") {
                problems.push(format!("b: klog should say that 2, back first, is elected at once: {why}"));
            }
            continue;
        }
        judge(&mut checks, &format!("{topic}: dirs of 1, 2, 3; 2 then 1 restart"), with1, &d);
    }
    say!("  phase 1: {} s", t.elapsed().as_secs());

    // Phase 2, f: 2 shuts down cleanly into the ELR, 1 dies, 2 comes back and is elected.
    let t = Instant::now();
    c.heal();
    create(&mut c, "f", &["min.insync.replicas=2"]);
    produce(&mut c, "f", "f", 0, 3);
    sleep(Duration::from_millis(800));
    assert!(c.shutdown(2), "broker 2 did not finish its controlled shutdown");
    let d = wait(&mut c, "f", "2 in the ELR after its clean shutdown", 30, |d| isr(d) == [1] && ids(&d["elr"]) == [2]);
    say!("  2 shut down cleanly: f ISR {} ELR {}", d["isr"], d["elr"]);
    c.kill(&[1]);
    let d = wait(&mut c, "f", "no leader with 1 and 2 stopped", 30, |d| leader(d) == -1);
    say!("  1 killed: f leader -1, ISR {}, ELR {}, last known {}", d["isr"], d["elr"], d["last_known_elr"]);
    let p2 = work.path().join("phase2");
    let all = copies(&mut c, &p2, &[1, 2, 3]);
    assert!(all[1].join(".kafka_cleanshutdown").is_file(), "2 left no clean-shutdown marker");
    let f2 = view(&all[1..], "f-0");
    let f3 = view(&all, "f-0");
    c.restart(2);
    let d = wait(&mut c, "f", "2 elected from the ELR", 40, |d| leader(d) == 2);
    say!("  2 restarted: f leader 2 at epoch {}, ISR {}, ELR {}", d["leader_epoch"], d["isr"], d["elr"]);
    judge(&mut checks, "f: dirs of 2, 3; 2 (clean) restarts", &f2, &d);
    judge(&mut checks, "f: dirs of 1, 2, 3; 2 (clean) restarts", &f3, &d);
    say!("  phase 2: {} s", t.elapsed().as_secs());

    if std::env::var_os("KLOG_REAL_KEEP").is_some() {
        say!("copies kept in {}", work.keep().display());
    }
    drop(c);
    let total = started.elapsed().as_secs();
    say!("\n{:<44} {:>6} {:>8}  klog's why", "sequence", "klog", "brokers");
    let name = |n: Option<i64>| n.map_or("none".to_string(), |n| n.to_string());
    for ch in &checks {
        let agree = ch.klog == ch.brokers;
        say!(
            "{:<44} {:>6} {:>8}  {} {}",
            ch.what,
            name(ch.klog),
            name(ch.brokers),
            if agree { "AGREE" } else { "DIFFER" },
            ch.why
        );
        if !agree {
            problems.push(format!(
                "{}: klog {} but the controller {}: {}",
                ch.what,
                name(ch.klog),
                name(ch.brokers),
                ch.why
            ));
        }
    }
    let agreed = checks.iter().filter(|c| c.klog == c.brokers).count();
    say!("klog agreed {agreed} of {}; total {total} s", checks.len());
    assert!(checks.len() >= 7, "{} checks", checks.len());
    assert!(problems.is_empty(), "{} problems:\n  {}", problems.len(), problems.join("\n  "));
    assert!(total <= 240, "the sequences took {total} s, above 4 minutes");
}
