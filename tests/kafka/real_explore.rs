//! The explorer's Kafka 4.x model against real Kafka 4.4 brokers (KRaft, controller + 3
//! brokers), once with Eligible Leader Replicas on (a new 4.4 cluster's default) and once with
//! them off (formatted with `eligible.leader.replicas.version=0`).
//!
//! Each sequence is a failure shape the explorer reports as an acknowledged-record loss: a power
//! loss of the last ISR member, of a lone leader, and an admin's unclean election. It is run in
//! lockstep: every step (create, produce with acks=all, kill -9 with or without a power cut,
//! restart, `electLeaders(UNCLEAN)`) is done to the brokers and applied to the explorer's model
//! ([`State::apply`], the very transitions `klog explore` searches), and after each step the
//! brokers must reach the controller record the model predicts: leader, ISR, ELR and last known
//! leader (`describe`), within 30 s and still so 1.5 s later. In the model, followers fetch and
//! the leader expands its ISR as the brokers do on their own, until nothing changes. At the end
//! the acknowledged records the final leader lacks (producer acks against the leader's log,
//! read by `klog dump`) must be the ones the model's violation names, and `klog explore` with the
//! sequence's settings must report an acknowledged loss (one shape loses nothing, and the brokers
//! must lose nothing there either). Needs the Kafka oracle's classpath; fails under `KLOG_CI`
//! without it.

use crate::common::klog;
use crate::kraft_brokers::Cluster;
use crate::real_failovers::{isr, leader, log_end, power_cut, records, Seq};
use replica_lab::explore::model::{Action, Config, Controller, State, Violation};
use replica_lab::replication::release::Release;
use serde_json::Value;
use std::thread::sleep;
use std::time::{Duration, Instant};

macro_rules! say {
    ($($arg:tt)*) => {{
        use std::io::Write;
        let _ = writeln!(std::io::stderr(), $($arg)*);
    }};
}

/// One step of a sequence, on broker `n` (1 or 2: the model's replica n − 1).
#[derive(Debug, Clone, Copy)]
enum Step {
    Create,
    Produce,
    Kill(usize),
    PowerLoss(usize),
    Restart(usize),
    Unclean,
}

struct Sequence {
    name: &'static str,
    min_isr: u8,
    steps: &'static [Step],
    /// The explorer search that must report an acknowledged loss for this shape (`None`: a
    /// shape that loses nothing).
    explore: Option<&'static [&'static str]>,
}

use Step::*;

const SEQUENCES: &[Sequence] = &[
    // The follower dies; the leader, alone in the ISR, acks x-0 and loses it in a power cut;
    // back, it is elected again (ELR off: the ISR [1] is kept; ELR on: the last known leader).
    Sequence {
        name: "lone-leader-power-loss",
        min_isr: 1,
        steps: &[Create, Kill(2), Produce, PowerLoss(1), Restart(2), Restart(1)],
        explore: Some(&["--power-loss"]),
    },
    // min ISR 2: x-0 acked by both; the leader dies, the follower leads alone and loses x-0 in a
    // power cut; it is elected again (ELR off: as the ISR; ELR on: as the last known leader once
    // the other registers after its unclean shutdown), and the other truncates x-0.
    Sequence {
        name: "last-isr-power-loss",
        min_isr: 2,
        steps: &[Create, Produce, Kill(1), PowerLoss(2), Restart(2), Restart(1)],
        explore: Some(&["--power-loss", "--min-isr", "2"]),
    },
    // The follower dies; the leader acks x-0 alone and dies; the follower comes back and is
    // not elected; an admin's unclean election makes it leader without x-0.
    Sequence {
        name: "unclean-election",
        min_isr: 1,
        steps: &[Create, Kill(2), Produce, Kill(1), Restart(2), Unclean, Restart(1)],
        explore: Some(&["--unclean"]),
    },
    // min ISR 2, no power loss: both die (the follower first) and come back; the last ISR
    // member leads again (ELR on: as the last known leader) and holds every acked record.
    Sequence {
        name: "kill-both",
        min_isr: 2,
        steps: &[Create, Produce, Kill(2), Kill(1), Restart(2), Restart(1)],
        explore: None,
    },
];

/// The controller record as broker ids: (leader or −1, ISR, ELR, last known ELR), sorted.
type Record = (i64, Vec<i64>, Vec<i64>, Vec<i64>);

fn ids(mask: u8) -> Vec<i64> {
    (0..2).filter(|i| mask & (1 << i) != 0).map(|i| i + 1).collect()
}

fn predicted(s: &State) -> Record {
    (s.latest_leader.map_or(-1, |l| l as i64 + 1), ids(s.isr), ids(s.elr), ids(s.last_known_elr))
}

fn seen(d: &Value) -> Record {
    let list = |k: &str| {
        let mut v: Vec<i64> = d[k].as_array().map(|a| a.iter().filter_map(Value::as_i64).collect()).unwrap_or_default();
        v.sort();
        v
    };
    let mut i = isr(d);
    i.sort();
    (leader(d), i, list("elr"), list("last_known_elr"))
}

/// Apply `pick`'s first enabled action; `None` when none is enabled.
fn apply_first(cfg: &Config, s: &mut State, pick: impl Fn(&Action) -> bool) -> Option<(Action, Option<Violation>)> {
    let mut enabled = Vec::new();
    s.successors(cfg, &mut enabled);
    let a = *enabled.iter().find(|a| pick(a))?;
    let (next, v) = s.apply(cfg, a);
    *s = next;
    Some((a, v))
}

/// What brokers do on their own: a replica learns the current leader and follows it
/// (truncating as its release does), followers fetch, the leader adds caught-up followers to
/// the ISR — until nothing changes.
fn settle(cfg: &Config, s: &mut State, violations: &mut Vec<Violation>) {
    for _ in 0..12 {
        let before = *s;
        let Some(l) = s.latest_leader else { return };
        for f in 0..s.n() as u8 {
            if f == l || !s.nodes[f as usize].is_running() {
                continue;
            }
            let follows = s.nodes[f as usize]
                .vol
                .is_some_and(|v| v.leader == Some(l) && Some(v.leader_epoch) == s.nodes[l as usize].leader_epoch());
            if !follows {
                apply_first(cfg, s, |a| *a == Action::Recover { follower: f, leader: l });
            }
            apply_first(cfg, s, |a| *a == Action::Fetch { leader: l, follower: f });
        }
        let isr = s.isr;
        if let Some((_, v)) =
            apply_first(cfg, s, |a| matches!(*a, Action::AlterIsr { isr: new, .. } if new & isr == isr && new != isr))
        {
            violations.extend(v);
        }
        if *s == before {
            return;
        }
    }
}

struct Run<'a> {
    c: &'a mut Cluster,
    seq: Seq,
    cfg: Config,
    model: State,
    violations: Vec<Violation>,
    /// The value of each model record (model value k is the k-th produced).
    values: Vec<String>,
    problems: Vec<String>,
    notes: Vec<String>,
    expect_loss: bool,
}

impl Run<'_> {
    fn model_step(&mut self, pick: impl Fn(&Action) -> bool, what: &str) -> bool {
        match apply_first(&self.cfg, &mut self.model, pick) {
            Some((_, v)) => {
                self.violations.extend(v);
                settle(&self.cfg, &mut self.model, &mut self.violations);
                true
            }
            None => {
                self.problems.push(format!("{}: the model has no {what} here", self.seq.topic));
                false
            }
        }
    }

    /// Wait until the brokers show the record the model predicts; note it either way.
    fn compare(&mut self, step: Step) {
        let want = predicted(&self.model);
        let topic = self.seq.topic.clone();
        let got = match self.c.wait_for(&topic, 30, |d| seen(d) == want) {
            Ok(_) => {
                sleep(Duration::from_millis(1500));
                seen(&self.c.describe(&topic))
            }
            Err(d) => seen(&d),
        };
        let agree = got == want;
        self.notes.push(format!("{step:?}: model {want:?} brokers {got:?} {}", if agree { "AGREE" } else { "DIFFER" }));
        if !agree {
            self.problems
                .push(format!("{topic} after {step:?}: the model predicts {want:?}, the brokers show {got:?}"));
        }
    }

    fn step(&mut self, step: Step) {
        let r = |n: usize| (n - 1) as u8;
        match step {
            Create => {
                let min_isr = format!("min.insync.replicas={}", self.cfg.min_isr);
                let answer = self.c.kc("create", &[&self.seq.topic, "1,2", &min_isr]);
                if answer.first().is_none_or(|a| a.get("created").is_none()) {
                    self.problems.push(format!("create failed: {answer:?}"));
                }
                self.model_step(|a| matches!(a, Action::Elect { unclean: false, .. }), "creation");
            }
            Produce => {
                let k = self.values.len();
                self.seq.produce(self.c, "x", k, 1);
                let value = format!("x-{k}");
                let outcome = self.seq.outcome_of(&value);
                let leader = self.model.latest_leader;
                let appended = leader.is_some_and(|l| {
                    apply_first(
                        &self.cfg,
                        &mut self.model,
                        |a| matches!(*a, Action::Append { replica, .. } if replica == l),
                    )
                    .is_some()
                });
                if appended {
                    self.values.push(value.clone());
                    settle(&self.cfg, &mut self.model, &mut self.violations);
                }
                let model_acked = appended && self.model.acked().iter().any(|&(_, v)| v as usize == self.values.len());
                let broker_acked = outcome == "acked";
                self.notes.push(format!("{value}: producer {outcome}, model acked {model_acked}"));
                if model_acked != broker_acked {
                    self.problems
                        .push(format!("{value}: the producer says {outcome}, the model acked = {model_acked}"));
                }
            }
            Kill(n) => {
                self.c.kill(&[n]);
                self.model_step(|a| *a == Action::Crash { replica: r(n), power_loss: false, hw: None }, "crash");
            }
            PowerLoss(n) => {
                self.c.kill(&[n]);
                if let Err(e) = power_cut(self.c, &self.seq, n, &format!("raw{n}"), &format!("cut{n}")) {
                    self.problems.push(e);
                }
                self.model_step(|a| *a == Action::Crash { replica: r(n), power_loss: true, hw: None }, "power loss");
                let (leo, _) = log_end(&self.seq.path(&format!("cut{n}")), &self.seq.topic);
                let model_leo = self.model.nodes[r(n) as usize].log_end_offset();
                if leo != model_leo {
                    self.problems.push(format!("broker {n} was cut to {leo}, the model to {model_leo}"));
                }
            }
            Restart(n) => {
                self.c.restart(n);
                self.model_step(|a| *a == Action::Restart { replica: r(n) }, "restart");
            }
            Unclean => {
                let answer = self.c.kc("elect", &[&self.seq.topic, "unclean"]);
                self.notes.push(format!("electLeaders(UNCLEAN): {answer:?}"));
                self.model_step(|a| matches!(a, Action::Elect { unclean: true, .. }), "unclean election");
            }
        }
        if !matches!(step, Produce) {
            self.compare(step);
        }
    }

    /// The acknowledged records the final leader lacks, by the brokers and by the model.
    fn verdict(&mut self) {
        let d = self.c.describe(&self.seq.topic);
        let l = leader(&d);
        let model_lost: Vec<String> = self
            .violations
            .iter()
            .filter_map(|v| match *v {
                Violation::AckedLoss { value, .. } => Some(self.values[value as usize - 1].clone()),
                _ => None,
            })
            .collect();
        if !(1..=2).contains(&l) {
            self.problems.push(format!("{}: no leader at the end: {d}", self.seq.topic));
            return;
        }
        let copy = self.seq.path("final-leader");
        self.c.copy(l as usize, &copy);
        let held = records(&copy, &self.seq.topic);
        let broker_lost: Vec<String> = self
            .seq
            .acks
            .iter()
            .filter(|a| a["outcome"] == "acked")
            .filter_map(|a| a["value"].as_str())
            .filter(|v| !held.values().any(|(x, _)| x == v))
            .map(String::from)
            .collect();
        self.notes.push(format!("acked and lost: brokers {broker_lost:?}, model {model_lost:?}"));
        if broker_lost != model_lost {
            self.problems.push(format!(
                "{}: the brokers lost {broker_lost:?} of the acked records, the model {model_lost:?}",
                self.seq.topic
            ));
        }
        if broker_lost.is_empty() == self.expect_loss {
            self.problems.push(format!(
                "{}: the shape was expected to lose {} acknowledged record",
                self.seq.topic,
                if self.expect_loss { "an" } else { "no" }
            ));
        }
    }
}

/// `klog explore --kafka 4.4.0 --elr on|off ARGS --json`: the search reports an acked loss.
fn explorer_finds_a_loss(elr: bool, args: &[&str]) -> Result<String, String> {
    let out = klog()
        .args(["explore", "--kafka", "4.4.0", "--elr", if elr { "on" } else { "off" }, "--json"])
        .args(args)
        .output()
        .unwrap();
    let v: Value = serde_json::from_slice(&out.stdout).map_err(|e| format!("explore JSON: {e}"))?;
    let run = &v["runs"][0];
    let ce = &run["counterexample"];
    if out.status.code() != Some(1) || ce["kind"] != "acked_loss" {
        return Err(format!("klog explore {args:?} (ELR {elr}) found no acked loss: {run}"));
    }
    Ok(format!("{} in {} actions", ce["kind"], ce["length"]))
}

fn run_cluster(elr: bool, work: &std::path::Path) -> Vec<String> {
    let features: &[&str] = if elr { &[] } else { &["eligible.leader.replicas.version=0"] };
    let started = Instant::now();
    let Some(mut c) = Cluster::start_with(features) else { return Vec::new() };
    say!("{} up in {:.0} s", c.describe_release(), started.elapsed().as_secs_f64());
    let mut problems = Vec::new();
    for sq in SEQUENCES {
        let t0 = Instant::now();
        let topic = format!("{}-{}", sq.name, if elr { "elr" } else { "no-elr" });
        let dir = work.join(&topic);
        std::fs::create_dir_all(&dir).unwrap();
        let rules = Release::parse("4.4.0").unwrap().rules();
        let cfg = Config {
            power_loss: true,
            unclean: true,
            min_isr: sq.min_isr,
            controller: Controller::Kraft { elr },
            ..Config::clean_at(rules, 2, 8, 7, 64)
        };
        let mut run = Run {
            c: &mut c,
            seq: Seq::new(dir, topic.clone(), false),
            cfg,
            model: State::initial(2),
            violations: Vec::new(),
            values: Vec::new(),
            problems: Vec::new(),
            notes: Vec::new(),
            expect_loss: sq.explore.is_some(),
        };
        for &step in sq.steps {
            run.step(step);
        }
        run.verdict();
        if let Some(args) = sq.explore {
            match explorer_finds_a_loss(elr, args) {
                Ok(found) => run.notes.push(format!("klog explore {}: {found}", args.join(" "))),
                Err(e) => run.problems.push(e),
            }
        }
        say!("  {topic} ({} s): {}", t0.elapsed().as_secs(), if run.problems.is_empty() { "AGREE" } else { "DIFFER" });
        for n in &run.notes {
            say!("    {n}");
        }
        problems.extend(run.problems);
        c.heal();
    }
    problems
}

#[test]
fn the_explorers_kraft_controller_decides_as_real_4_4_brokers_do() {
    let started = Instant::now();
    let work = tempfile::Builder::new().prefix("klog-real-explore.").tempdir().unwrap();
    let mut problems = run_cluster(true, work.path());
    problems.extend(run_cluster(false, work.path()));
    say!("explorer vs real brokers: {} problems; {} s", problems.len(), started.elapsed().as_secs());
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}
