//! `klog explore`: the in-memory lab and the real binary on real dirs must never disagree.
//! Every counterexample the explorer finds is replayed command by command through the binary,
//! with every replica's log, epoch cache, HW and role compared after each step, and its emitted
//! script is run under bash and must end with a `recover` report showing the same violation.
//! Random walks through the lab's actions are replayed the same way.

use crate::common::{code, klog, s, Lab};
use replica_lab::commands::explore::{self as cmd, ExploreRequest};
use replica_lab::explore::model::{Action, Config, Controller, State};
use replica_lab::explore::script::{
    controller_lines, fetch_flag, followers, replica_id, replica_name, rules_flag, value_name, TIMESTAMP_MS,
};
use replica_lab::replica::Replica;
use replica_lab::replication::diff::RecordCursor;
use replica_lab::replication::truncation::TruncationMode;
use std::path::{Path, PathBuf};

fn rules(release: &str) -> replica_lab::replication::release::Rules {
    replica_lab::replication::release::Release::parse(release).unwrap().rules()
}

fn config(mode: TruncationMode, replicas: usize, epochs: u8, records: u8, depth: u32) -> Config {
    Config::clean(mode, replicas, epochs, records, depth)
}

fn request(c: &Config, script: Option<&Path>) -> ExploreRequest<'static> {
    ExploreRequest {
        runs: vec![c.rules],
        replicas: c.replicas,
        max_epochs: c.max_epochs,
        max_records: c.max_records,
        max_depth: c.max_depth,
        unclean: c.unclean,
        fencing: c.fencing,
        power_loss: c.power_loss,
        stale_hw: c.stale_hw,
        min_isr: c.min_isr,
        elr: match c.controller {
            Controller::Kraft { elr } => Some(elr),
            Controller::Free | Controller::Zk => None,
        },
        tiered: c.tiered,
        threads: 2,
        max_states: Some(cmd::DEFAULT_MAX_STATES),
        script: script.map(|p| Box::leak(p.to_path_buf().into_boxed_path()) as &Path),
        force: false,
    }
}

/// The acceptance searches, small enough for a debug build.
fn finding_configs() -> Vec<(&'static str, Config)> {
    vec![
        ("hw loses an acked record", config(TruncationMode::Hw, 2, 2, 1, 10)),
        ("kip101 keeps a zombie leader's write below both HWs", config(TruncationMode::Kip101, 2, 3, 3, 10)),
        ("kip101 on 0.11.0.0's rules too", Config::clean_at(rules("0.11.0.0"), 2, 3, 3, 10)),
        (
            "kip279 with an unclean election loses an acked record",
            Config { unclean: true, ..config(TruncationMode::Kip279, 2, 2, 1, 6) },
        ),
        (
            "kip279 with power loss loses an acked record",
            Config { power_loss: true, ..config(TruncationMode::Kip279, 2, 2, 1, 8) },
        ),
        (
            "3.9.1 with min.insync.replicas 2 still loses an acked record to a power loss",
            Config { power_loss: true, min_isr: 2, ..Config::clean_at(rules("3.9.1"), 2, 2, 1, 8) },
        ),
        (
            "4.4 without ELR, min ISR 2: the last ISR member leads again after its power loss",
            Config { power_loss: true, min_isr: 2, ..kraft(false, 2, 3, 1, 8) },
        ),
        (
            "4.4 with ELR, min ISR 2: the last known leader leads again after its power loss",
            Config { power_loss: true, min_isr: 2, ..kraft(true, 2, 3, 1, 8) },
        ),
        ("4.4 with ELR, an admin's unclean election", Config { unclean: true, ..kraft(true, 2, 2, 1, 6) }),
        (
            "2.0.1 without fencing: a follower told first truncates against a stale leader (Kip320.tla)",
            Config { fencing: false, ..Config::clean_at(rules("2.0.1"), 3, 3, 2, 10) },
        ),
    ]
}

/// Kafka 4.4's rules with the KRaft controller, Eligible Leader Replicas on or off.
fn kraft(elr: bool, replicas: usize, epochs: u8, records: u8, depth: u32) -> Config {
    Config {
        controller: Controller::Kraft { elr },
        ..Config::clean_at(rules("4.4.0"), replicas, epochs, records, depth)
    }
}

/// A command line the script prints, as arguments: `"$LAB/x"` becomes replica x's dir.
fn line_args(line: &str, dir: &dyn Fn(u8) -> String) -> Vec<String> {
    line.split_whitespace()
        .skip(1)
        .map(|w| match w.strip_prefix("\"$LAB/").and_then(|r| r.strip_suffix('"')) {
            Some(name) => dir(name.as_bytes()[0] - b'a'),
            None => w.to_string(),
        })
        .collect()
}

/// `--isr DIR…` for the members of `isr` other than `leader` (nothing for the leader alone).
fn isr_args(c: &Config, leader: u8, isr: u8, dir: &dyn Fn(u8) -> String) -> Vec<String> {
    let members: Vec<String> = followers(c, leader, isr).map(dir).collect();
    if members.is_empty() {
        members
    } else {
        std::iter::once("--isr".to_string()).chain(members).collect()
    }
}

/// The command line of one lab action for a replica dir in `lab`.
fn args(c: &Config, a: &Action, dir: &dyn Fn(u8) -> String) -> Vec<String> {
    let mut v: Vec<String> = match *a {
        Action::Elect { replica, leader_epoch, isr, .. } => {
            let mut v = vec!["elect".into(), dir(replica), "--epoch".into(), leader_epoch.to_string()];
            v.extend(isr_args(c, replica, isr, dir));
            if !c.rules.epoch_entry_on_election {
                v.extend(["--epoch-entry".into(), "first-append".into()]);
            }
            return v;
        }
        Action::Append { replica, value } => {
            return vec![
                "append".into(),
                dir(replica),
                value_name(value),
                "--timestamp".into(),
                TIMESTAMP_MS.to_string(),
            ]
        }
        Action::Fetch { leader, follower } => {
            let mut v = vec!["fetch".into(), "--leader".into(), dir(leader), dir(follower)];
            v.extend(fetch_flag(&c.rules).split(' ').map(String::from));
            v
        }
        Action::Crash { replica, power_loss, hw } => {
            let mut v = vec!["crash".into(), dir(replica)];
            if power_loss {
                v.push("--power-loss".into());
            }
            if let Some(h) = hw {
                v.extend(["--hw".into(), h.to_string()]);
            }
            return v;
        }
        // The broker's own HW checkpoint: no klog command (klog writes the HW at every change).
        Action::CheckpointHw { .. } => return Vec::new(),
        Action::Flush { replica } => return vec!["flush".into(), dir(replica)],
        Action::Restart { replica } => return vec!["recover".into(), dir(replica)],
        Action::Recover { follower, leader } => {
            let mut v = vec!["recover".into(), dir(follower), "--leader".into(), dir(leader)];
            v.extend(rules_flag(&c.rules).split(' ').map(String::from));
            v
        }
        // The controller's announcement: no klog command (the delivery is the later `elect`).
        Action::Announce { .. } => return Vec::new(),
        Action::RecoverAhead { follower, leader, leader_epoch } => {
            let mut v = vec!["recover".into(), dir(follower), "--leader".into(), dir(leader), "--leader-epoch".into()];
            v.extend([leader_epoch.to_string(), "--told-first".into()]);
            v.extend(rules_flag(&c.rules).split(' ').map(String::from));
            v
        }
        Action::AlterIsr { leader, isr } => {
            let mut v = vec!["alter-isr".into(), dir(leader)];
            v.extend(isr_args(c, leader, isr, dir));
            return v;
        }
        // The tiered mode's (its own replay is tests/cli/explore_tiered.rs's script run).
        Action::Upload { replica } => return vec!["tier".into(), "copy".into(), dir(replica)],
        Action::LocalDelete { replica } => {
            return vec!["tier".into(), "retain".into(), dir(replica), "--local-retention-bytes".into(), "1".into()]
        }
    };
    if !c.fencing {
        v.push("--no-fencing".into());
    }
    v
}

/// Everything the lab knows of one replica, read from its dir.
#[derive(Debug, PartialEq, Eq)]
struct Seen {
    records: Vec<(i64, i32, String)>,
    epochs: Vec<(i32, i64)>,
    high_watermark: i64,
    role: Option<(String, i32)>,
    largest_seen: Option<i32>,
}

fn on_disk(dir: &Path) -> Seen {
    let r = Replica::open(dir, None).expect("replica opens");
    let mut cursor = RecordCursor::new(r.log(), 0, r.log_end_offset()).expect("cursor");
    let mut records = Vec::new();
    while let Some(rec) = cursor.next_record().expect("record") {
        records.push((rec.offset, rec.leader_epoch, String::from_utf8(rec.value.unwrap_or_default()).unwrap()));
    }
    Seen {
        records,
        epochs: r.log().epoch_cache().entries().iter().map(|e| (e.leader_epoch, e.start_offset)).collect(),
        high_watermark: r.high_watermark(),
        role: r.state().map(|st| (st.role.name().to_string(), st.leader_epoch)),
        largest_seen: r.largest_known_epoch(),
    }
}

fn in_memory(state: &State, i: usize) -> Seen {
    let n = &state.nodes[i];
    Seen {
        records: n
            .records()
            .iter()
            .enumerate()
            .map(|(o, r)| (o as i64, r.leader_epoch as i32, value_name(r.value)))
            .collect(),
        epochs: n.epoch_cache().entries().iter().map(|e| (e.leader_epoch, e.start_offset)).collect(),
        high_watermark: n.high_watermark as i64,
        role: n.vol.map(|v| (v.role.name().to_string(), v.leader_epoch as i32)),
        largest_seen: (n.largest_seen >= 0).then_some(n.largest_seen as i32),
    }
}

/// Run `actions` in memory and through the binary, comparing every replica after each step.
fn replay(c: &Config, actions: &[Action], what: &str) {
    let lab = Lab::new();
    let dirs: Vec<PathBuf> = (0..c.replicas as u8).map(|i| lab.path(&replica_name(i).to_string())).collect();
    let min_isr = c.min_isr.to_string();
    for (i, d) in dirs.iter().enumerate() {
        let id = replica_id(i as u8).to_string();
        klog().args(["create", s(d), "--replica-id", &id, "--min-insync-replicas", &min_isr]).assert().success();
    }
    let dir = |i: u8| s(&dirs[i as usize]).to_string();
    // The relaxed bounds a witness may use; the model's rules do not read the bounds.
    let relaxed = Config { max_epochs: c.max_epochs + 1, max_records: c.max_records + 1, ..*c };
    let mut state = State::initial(c.replicas);
    let mut enabled = Vec::new();
    for (n, a) in actions.iter().enumerate() {
        state.successors(&relaxed, &mut enabled);
        assert!(enabled.contains(a), "{what}: step {n} {a:?} is not a lab action");
        let after = state.apply(&relaxed, *a).0;
        // The command, then what the KRaft controller's choice makes the script run.
        let mut lines = vec![args(c, a, &dir)];
        for l in controller_lines(c, &state, &after, a).iter().filter(|l| !l.starts_with('#')) {
            lines.push(line_args(l, &dir));
        }
        state = after;
        let argv = lines.last().unwrap().clone();
        for argv in lines.iter().filter(|v| !v.is_empty()) {
            let out = klog().args(argv).output().expect("klog runs");
            assert!(
                out.status.code() == Some(0),
                "{what}: step {n} `klog {}` failed: {}",
                argv.join(" "),
                String::from_utf8_lossy(&out.stderr)
            );
        }
        for (i, d) in dirs.iter().enumerate() {
            assert_eq!(
                on_disk(d),
                in_memory(&state, i),
                "{what}: replica {} after step {n} `klog {}`",
                replica_name(i as u8),
                argv.join(" ")
            );
        }
    }
}

#[test]
fn every_counterexample_replays_on_disk_step_by_step_as_in_memory() {
    for (what, c) in finding_configs() {
        let report = cmd::run(&request(&c, None)).expect("explore runs");
        let run = &report.runs[0];
        let ce = run.counterexample.as_ref().unwrap_or_else(|| panic!("{what}: no counterexample"));
        // Replay the history and the witness's extra actions, from the narrated commands' source.
        let search = replica_lab::explore::search::search(&c, 2, u64::MAX, &|st, v| {
            replica_lab::explore::witness::find_witness(&c, st, v).is_some()
        });
        let found = search.counterexample.expect("the same search finds it again");
        assert_eq!(found.actions.len(), ce.steps.len(), "{what}");
        let mut state = State::initial(c.replicas);
        for a in &found.actions {
            state = state.apply(&c, *a).0;
        }
        let w = replica_lab::explore::witness::find_witness(&c, &state, &found.violation).expect("witness");
        let mut all = found.actions.clone();
        all.extend(&w.actions);
        replay(&c, &all, what);
    }
}

#[test]
fn every_emitted_script_runs_under_bash_and_its_last_report_shows_the_violation() {
    let bin = assert_cmd::cargo::cargo_bin("klog");
    let path = format!("{}:{}", bin.parent().unwrap().display(), std::env::var("PATH").unwrap_or_default());
    for (what, c) in finding_configs() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("history.sh");
        let report = cmd::run(&request(&c, Some(&file))).expect("explore runs");
        let ce = report.runs[0].counterexample.as_ref().unwrap_or_else(|| panic!("{what}: no counterexample"));
        assert_eq!(ce.script_path.as_deref(), Some(file.as_path()));
        let w = ce.witness.as_ref().expect("a witness");
        let out = std::process::Command::new("bash")
            .arg(&file)
            .env("PATH", &path)
            .env("KLOG_EXPLORE_JSON", "1")
            .env("NO_COLOR", "1")
            .output()
            .expect("bash runs");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(out.status.success(), "{what}: the script failed:\n{stderr}");
        assert!(stderr.contains("$ klog create $LAB/a"), "{what}: steps are echoed with $LAB: {stderr}");
        let report: serde_json::Value =
            serde_json::from_str(String::from_utf8_lossy(&out.stdout).trim()).expect("the last report is JSON");
        let row = report["records"]
            .as_array()
            .unwrap()
            .iter()
            .find(|r| r["offset"] == w.offset)
            .unwrap_or_else(|| panic!("{what}: offset {} not in the report: {report}", w.offset));
        assert_eq!(row["class"], w.class.name(), "{what}: {row}");
        assert_eq!(row["acked"], w.acked, "{what}: {row}");
        assert_eq!(row["follower"]["value"], w.value, "{what}: {row}");
        let summary = &report["summary"];
        let shown = summary["acked_lost"].as_u64().unwrap() + summary["diverged"].as_u64().unwrap();
        assert!(shown > 0, "{what}: {summary}");
    }
}

/// A small deterministic generator (an LCG), so every walk is the same on every run.
struct Walk(u64);

impl Walk {
    fn pick(&mut self, n: usize) -> usize {
        self.0 = self.0.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        ((self.0 >> 33) % n as u64) as usize
    }
}

#[test]
fn random_walks_through_the_lab_do_on_disk_what_they_do_in_memory() {
    let mut walk = Walk(0x5eed);
    let configs = [
        Config { power_loss: true, ..config(TruncationMode::Kip279, 3, 4, 4, 0) },
        Config { power_loss: true, unclean: true, ..config(TruncationMode::Kip101, 2, 4, 4, 0) },
        Config { power_loss: true, ..config(TruncationMode::Hw, 3, 4, 4, 0) },
        Config { fencing: false, ..config(TruncationMode::Kip279, 3, 4, 4, 0) },
        // 2.0.1: a running follower re-told its leader truncates only when the epoch skips one.
        Config { power_loss: true, ..Config::clean_at(rules("2.0.1"), 2, 5, 4, 0) },
        Config::clean_at(rules("2.7.2"), 3, 4, 3, 0),
        Config { stale_hw: true, power_loss: true, ..config(TruncationMode::Hw, 2, 4, 4, 0) },
        Config { stale_hw: true, ..config(TruncationMode::Kip101, 3, 4, 3, 0) },
        Config { min_isr: 2, power_loss: true, unclean: true, ..Config::clean_at(rules("3.9.1"), 3, 4, 3, 0) },
        Config { min_isr: 2, power_loss: true, unclean: true, ..kraft(true, 3, 5, 4, 0) },
        Config { min_isr: 2, power_loss: true, unclean: true, ..kraft(false, 3, 5, 4, 0) },
        Config { power_loss: true, ..kraft(true, 2, 5, 4, 0) },
        Config { fencing: false, ..Config::clean_at(rules("2.0.1"), 3, 5, 4, 0) },
        Config { fencing: false, power_loss: true, ..Config::clean_at(rules("1.1.1"), 3, 5, 4, 0) },
    ];
    let (mut isr_changes, mut told_first) = (0, 0);
    for (k, c) in configs.iter().enumerate() {
        for w in 0..2 {
            let mut state = State::initial(c.replicas);
            let mut actions = Vec::new();
            let mut enabled = Vec::new();
            for _ in 0..22 {
                state.successors(c, &mut enabled);
                if enabled.is_empty() {
                    break;
                }
                // Favour the actions that move data, so that walks go somewhere.
                let a = enabled[walk.pick(enabled.len())];
                state = state.apply(c, a).0;
                actions.push(a);
            }
            isr_changes += actions.iter().filter(|a| matches!(a, Action::AlterIsr { .. })).count();
            told_first += actions.iter().filter(|a| matches!(a, Action::RecoverAhead { .. })).count();
            replay(c, &actions, &format!("walk {w} of config {k} ({:?})", c.mode()));
        }
    }
    assert!(isr_changes >= 3, "the KRaft walks change the ISR: {isr_changes}");
    assert!(told_first >= 1, "the walks without fencing tell a follower before its leader: {told_first}");
}

#[test]
fn explore_exits_1_with_a_counterexample_and_0_when_the_bounds_hold_no_violation() {
    let (out, _) = crate::common::code(
        &["explore", "--mode", "hw", "--max-epochs", "2", "--max-records", "1", "--max-depth", "10", "--json"],
        1,
    );
    let v: serde_json::Value = serde_json::from_str(out.trim()).expect("one JSON document");
    assert_eq!(v["type"], "explore");
    assert_eq!(v["violation_found"], true);
    let run = &v["runs"][0];
    let ce = &run["counterexample"];
    assert_eq!(ce["kind"], "acked_loss");
    assert_eq!(ce["length"], run["shortest"], "the narrated history is a shortest one");
    assert_eq!(ce["steps"].as_array().unwrap().len() as u64, ce["length"].as_u64().unwrap());
    assert!(ce["script"].as_str().unwrap().contains("set -euo pipefail"));
    assert!(ce["witness"]["command"].as_str().unwrap().starts_with("klog recover"));

    let (text, _) = crate::common::code(
        &["explore", "--mode", "kip279", "--max-epochs", "2", "--max-records", "2", "--max-depth", "8"],
        0,
    );
    assert!(text.contains("no violation within the bounds"), "{text}");
    assert!(text.contains("every state to depth 8"), "{text}");
}

#[test]
fn explore_refuses_bounds_it_cannot_model() {
    let (_, err) = crate::common::code(&["explore", "--replicas", "4"], 2);
    assert!(err.contains("--replicas"), "{err}");
    let (_, err) = crate::common::code(&["explore", "--max-records", "8"], 2);
    assert!(err.contains("--max-records"), "{err}");
}

#[test]
fn a_directory_as_the_script_target_is_refused_at_once_in_every_form() {
    let lab = Lab::new();
    let d = lab.path("scripts");
    std::fs::create_dir(&d).unwrap();
    let link = lab.path("link");
    std::os::unix::fs::symlink(&d, &link).unwrap();
    let with_slash = format!("{}/", s(&d));
    for target in [s(&d), with_slash.as_str(), s(&link)] {
        for modes in [vec![], vec!["--mode", "hw"], vec!["--mode", "kip101"], vec!["--kafka", "2.0.1"]] {
            let started = std::time::Instant::now();
            let mut args = vec!["explore", "--script", target];
            args.extend(&modes);
            let (out, err) = code(&args, 2);
            assert!(started.elapsed() < std::time::Duration::from_secs(5), "{args:?}: refused before any search");
            assert!(out.is_empty(), "{out}");
            assert!(err.contains("is a directory, not a file") && err.lines().count() == 1, "{args:?}: {err}");
        }
    }
    let mut beside: Vec<String> = std::fs::read_dir(lab.dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    beside.sort();
    assert_eq!(beside, ["link", "scripts"], "no D-hw, D-kip101 beside it");
    assert_eq!(std::fs::read_dir(&d).unwrap().count(), 0);
}
