//! Crash tests through the fault seam of `durable.rs` (`KLOG_FAULT`): each command is run once
//! with a trace to learn its durable steps, then once per step and per fault — killed before
//! the step, torn in the middle of a write step, power-cut before the step (what was not
//! fsynced is gone), or failed at the step — each time on a fresh copy of the same prepared
//! replicas. After every fault, `klog recover` (local) and `klog check` must leave a clean log
//! that keeps every record made durable before or by the command, and every checkpoint must
//! hold one whole version: the old content, the new one, or one the command wrote in between.
//! The runs are deterministic and exhaustive, where the old tests raced SIGKILL against a timer.

use crate::common::*;
use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::Path;

/// `replica_lab::durable::FAULT_EXIT_CODE`: a process stopped by the seam.
const FAULT_EXIT_CODE: i32 = 86;

/// The replica names a scenario may use; `@l` / `@f` in its commands stand for their dirs.
const REPLICAS: [&str; 2] = ["l", "f"];

/// The files that must always hold one whole version, relative to a replica's log dir.
const CHECKPOINTS: [&str; 5] = [
    "replication-offset-checkpoint",
    "recovery-point-offset-checkpoint",
    "log-start-offset-checkpoint",
    "klog-state.json",
    "demo-0/leader-epoch-checkpoint",
];

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Fault {
    Kill,
    Torn,
    PowerLoss,
    Fail,
}

impl Fault {
    fn spec(self, step: u64) -> String {
        let name = match self {
            Fault::Kill => "kill",
            Fault::Torn => "torn",
            Fault::PowerLoss => "powerloss",
            Fault::Fail => "fail",
        };
        format!("{name}@{step}")
    }
}

/// A leader `l` (segment.bytes 400) with three flushed records and two unflushed ones, and a
/// follower `f` in its ISR that has fetched and flushed the first three.
const LEADER_AND_FOLLOWER: &[&[&str]] = &[
    &["create", "@l", "--replica-id", "1", "--segment-bytes", "400"],
    &["create", "@f", "--replica-id", "2", "--segment-bytes", "400"],
    &["elect", "@l", "--epoch", "0", "--isr", "@f"],
    &["append", "@l", "a0", "a1", "a2", "--timestamp", "1000", "--flush"],
    &["fetch", "--leader", "@l", "@f", "--flush"],
    &["append", "@l", "a3", "a4", "--timestamp", "1100"],
];

/// Four one-record batches of 20-byte values: enough to roll a 400-byte segment.
const APPEND_FOUR: &[&str] =
    &["append", "@l", "--count", "4", "--value-size", "20", "--records-per-batch", "1", "--timestamp", "2000"];

/// Replicas whose logs diverge: `f` led epoch 1 alone and flushed f2, f3 that `l` (leading
/// epoch 2 now) never had.
const DIVERGED: &[&[&str]] = &[
    &["create", "@l", "--replica-id", "1", "--segment-bytes", "400"],
    &["create", "@f", "--replica-id", "2", "--segment-bytes", "400"],
    &["elect", "@l", "--epoch", "0", "--isr", "@f"],
    &["append", "@l", "m0", "m1", "--timestamp", "1000", "--flush"],
    &["fetch", "--leader", "@l", "@f", "--flush"],
    &["crash", "@l"],
    &["elect", "@f", "--epoch", "1"],
    &["append", "@f", "f2", "f3", "--timestamp", "1100", "--flush"],
    &["crash", "@f"],
    &["recover", "@l"],
    &["elect", "@l", "--epoch", "2"],
    &["append", "@l", "l2", "--timestamp", "1200", "--flush"],
];

struct Scenario {
    name: &'static str,
    /// Commands that build the replicas, run once into a template.
    prepare: &'static [&'static [&'static str]],
    /// More preparation after `prepare`.
    prepare_more: &'static [&'static [&'static str]],
    /// The command under test.
    command: Vec<&'static str>,
    /// Also fail each step with an I/O error (on disk a failed step is mostly a kill at it,
    /// so a few scenarios are enough to cover the error paths).
    fail: bool,
    /// Damage done by hand to the prepared replicas (under the root), after `prepare_more`.
    damage: Option<fn(&Path)>,
}

/// Replace `@l` / `@f` by the replica dirs under `root`.
fn resolve(args: &[&str], root: &Path) -> Vec<String> {
    args.iter()
        .map(|a| match a.strip_prefix('@') {
            Some(name) => s(&root.join(name)).to_string(),
            None => a.to_string(),
        })
        .collect()
}

/// Run klog with `KLOG_FAULT` set: (exit code, stdout, stderr).
fn run_with_fault(args: &[String], spec: &str) -> (i32, String, String) {
    let r = ran(klog().args(args).env("KLOG_FAULT", spec));
    assert_ne!(r.code, -1, "an exit code, not a signal: {}", r.stderr);
    (r.code, r.stdout, r.stderr)
}

/// One traced step: its op and its path(s) relative to the scenario's root.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Step {
    op: String,
    path: String,
}

fn read_trace(trace: &Path, root: &Path) -> Vec<Step> {
    let text = fs::read_to_string(trace).unwrap_or_default();
    let root = format!("{}/", s(root));
    text.lines()
        .enumerate()
        .map(|(i, line)| {
            let mut parts = line.splitn(3, ' ');
            assert_eq!(parts.next(), Some((i + 1).to_string().as_str()), "trace line {line:?}");
            let op = parts.next().expect("an op").to_string();
            let path = parts.next().expect("a path").replace(&root, "");
            Step { op, path }
        })
        .collect()
}

/// Each checkpoint file's bytes, or None when it is absent.
type Checkpoints = BTreeMap<&'static str, Option<Vec<u8>>>;

/// What one replica holds: its records and its checkpoint files.
#[derive(Clone, Debug, Default)]
struct View {
    records: BTreeMap<i64, (i64, String)>,
    log_end_offset: i64,
    checkpoints: Checkpoints,
}

fn read_checkpoints(dir: &Path) -> Checkpoints {
    CHECKPOINTS.iter().map(|name| (*name, fs::read(dir.join(name)).ok())).collect()
}

/// Records and LEO from one `dump --json`, and the checkpoint files.
fn view(dir: &Path) -> View {
    let lines = json_lines(&ok(&["dump", s(dir), "--json"]));
    let replica = lines.iter().find(|v| v["type"] == "replica").expect("a replica line");
    View {
        records: lines
            .iter()
            .filter(|v| v["type"] == "record")
            .map(|v| {
                let value = v["value"].as_str().unwrap_or("").to_string();
                (v["offset"].as_i64().unwrap(), (v["leader_epoch"].as_i64().unwrap(), value))
            })
            .collect(),
        log_end_offset: replica["log_end_offset"].as_i64().expect("log_end_offset"),
        checkpoints: read_checkpoints(dir),
    }
}

/// The `demo-0` offset of a Kafka offset checkpoint (`0`, count, `topic partition offset`).
fn checkpoint_offset(text: &str) -> Option<i64> {
    let mut lines = text.lines();
    if lines.next()? != "0" {
        return None;
    }
    let count: usize = lines.next()?.parse().ok()?;
    let entries: Vec<&str> = lines.collect();
    if entries.len() != count {
        return None;
    }
    entries.iter().find_map(|l| l.strip_prefix("demo 0 ")).and_then(|o| o.parse().ok())
}

/// Whether a checkpoint's text is a whole file of its kind.
fn parses(name: &str, bytes: &[u8]) -> bool {
    let Ok(text) = std::str::from_utf8(bytes) else { return false };
    match name {
        "klog-state.json" => serde_json::from_str::<serde_json::Value>(text).is_ok(),
        _ => {
            let lines: Vec<&str> = text.lines().collect();
            lines.len() >= 2
                && lines[0] == "0"
                && lines[1].parse::<usize>().ok() == Some(lines.len() - 2)
                && lines[2..].iter().all(|l| l.split(' ').next_back().is_some_and(|o| o.parse::<i64>().is_ok()))
        }
    }
}

fn recovery_point(checkpoints: &Checkpoints) -> i64 {
    checkpoints["recovery-point-offset-checkpoint"]
        .as_deref()
        .and_then(|b| checkpoint_offset(&String::from_utf8_lossy(b)))
        .unwrap_or(0)
}

/// The outcome of one faulted run, as seen before and after local recovery.
struct Faulted {
    fault: Fault,
    k: u64,
    label: String,
    /// Per touched replica: checkpoints as the fault left them, and the view after a
    /// recovery and check that succeeded.
    replicas: BTreeMap<&'static str, (Checkpoints, Option<View>)>,
    problems: Vec<String>,
}

fn run_scenario(sc: &Scenario) {
    let started = std::time::Instant::now();
    let lab = Lab::new();
    // Every run happens at the same path, `root`, as replicas record each other's dirs (the
    // ISR, follower fetch offsets): the prepared replicas are moved to `template` and copied
    // back before each run.
    let root = lab.path("root");
    let template = lab.path("template");
    fs::create_dir_all(&root).unwrap();
    for cmd in sc.prepare.iter().chain(sc.prepare_more) {
        ok(&resolve(cmd, &root).iter().map(String::as_str).collect::<Vec<_>>());
    }
    if let Some(damage) = sc.damage {
        damage(&root);
    }
    let before: BTreeMap<&str, View> = REPLICAS.iter().map(|r| (*r, view(&root.join(r)))).collect();
    fs::rename(&root, &template).unwrap();

    // A traced run: the steps, and the state the whole command leaves.
    copy_dir(&template, &root);
    let trace = lab.path("trace");
    let (c, out, err) = run_with_fault(&resolve(&sc.command, &root), &format!("nosync,trace={}", s(&trace)));
    assert_eq!(c, 0, "{}: the traced run failed:\n{out}{err}", sc.name);
    let steps = read_trace(&trace, &root);
    assert!(!steps.is_empty(), "{}: no durable step", sc.name);
    let after: BTreeMap<&str, View> = REPLICAS.iter().map(|r| (*r, view(&root.join(r)))).collect();
    fs::remove_dir_all(&root).unwrap();
    let touched: Vec<&'static str> =
        REPLICAS.iter().copied().filter(|r| steps.iter().any(|st| st.path.starts_with(&format!("{r}/")))).collect();

    let mut runs = Vec::new();
    for (i, st) in steps.iter().enumerate() {
        let k = i as u64 + 1;
        let faults = [Fault::Kill, Fault::Torn, Fault::PowerLoss, Fault::Fail];
        let applies = |f: &Fault| match f {
            Fault::Kill => true,
            // A torn temporary file is never read; torn segment and index appends are.
            Fault::Torn => st.op == "write" && !st.path.ends_with(".tmp"),
            // Only an fsync changes what a power loss keeps: a power loss before any other
            // step leaves what one just before the previous step leaves.
            Fault::PowerLoss => i > 0 && steps[i - 1].op.starts_with("fsync"),
            Fault::Fail => sc.fail,
        };
        for fault in faults.into_iter().filter(applies) {
            let label = format!("{} {} ({} {})", sc.name, fault.spec(k), st.op, st.path);
            runs.push(fault_run(&root, &template, sc, fault, k, label, &touched));
        }
    }

    // Every whole version of a checkpoint: before, after, and what a kill just after a rename
    // onto it shows (a version the command wrote in between).
    let mut versions: BTreeMap<(&str, &str), BTreeSet<Option<Vec<u8>>>> = BTreeMap::new();
    for r in &touched {
        for name in CHECKPOINTS {
            let set = versions.entry((*r, name)).or_default();
            set.insert(before[r].checkpoints[name].clone());
            set.insert(after[r].checkpoints[name].clone());
        }
    }
    for run in runs.iter().filter(|run| run.fault == Fault::Kill) {
        let renamed_before = (run.k as usize).checked_sub(2).map(|j| &steps[j]).filter(|st| st.op == "rename");
        if let Some(st) = renamed_before {
            for r in &touched {
                for name in CHECKPOINTS {
                    if st.path.ends_with(&format!(" -> {r}/{name}")) {
                        if let Some((left, _)) = run.replicas.get(r) {
                            versions.get_mut(&(*r, name)).unwrap().insert(left[name].clone());
                        }
                    }
                }
            }
        }
    }

    let mut problems = Vec::new();
    for run in &mut runs {
        for (r, (left, recovered)) in &run.replicas {
            for name in CHECKPOINTS {
                let got = &left[name];
                if !versions[&(*r, name)].contains(got) {
                    run.problems.push(format!(
                        "{}: {r}/{name} holds a version the command never wrote whole: {:?}",
                        run.label,
                        got.as_deref().map(String::from_utf8_lossy)
                    ));
                } else if let Some(bytes) = got {
                    if !parses(name, bytes) {
                        run.problems.push(format!("{}: {r}/{name} does not parse", run.label));
                    }
                }
            }
            if let Some(recovered) = recovered {
                run.problems.extend(lost_records(&run.label, r, &before[r], &after[r], left, recovered));
            }
        }
        problems.append(&mut run.problems);
    }
    eprintln!(
        "{}: {} durable steps, {} faulted runs, {} problems, {:?}",
        sc.name,
        steps.len(),
        runs.len(),
        problems.len(),
        started.elapsed()
    );
    assert!(problems.is_empty(), "{} problem(s):\n{}", problems.len(), problems.join("\n"));
}

/// Run the command on a fresh copy with `fault` at step `k`, then recover and check every
/// touched replica. Err: what went wrong, for the report.
fn fault_run(
    root: &Path,
    template: &Path,
    sc: &Scenario,
    fault: Fault,
    k: u64,
    label: String,
    touched: &[&'static str],
) -> Faulted {
    copy_dir(template, root);
    let mut run = Faulted { fault, k, label, replicas: BTreeMap::new(), problems: Vec::new() };
    if let Err(p) = fault_run_at(root, sc, &mut run, touched) {
        run.problems.push(p);
    }
    fs::remove_dir_all(root).unwrap();
    run
}

fn fault_run_at(root: &Path, sc: &Scenario, run: &mut Faulted, touched: &[&'static str]) -> Result<(), String> {
    let (fault, label) = (run.fault, run.label.as_str());
    let (c, out, err) = run_with_fault(&resolve(&sc.command, root), &format!("nosync,{}", fault.spec(run.k)));
    let expected = if fault == Fault::Fail { 2 } else { FAULT_EXIT_CODE };
    if c != expected {
        return Err(format!("{label}: exit {c}, expected {expected}:\n{out}{err}"));
    }
    let fired = if fault == Fault::Fail { "injected fault at step" } else { "klog-fault:" };
    if !err.contains(fired) {
        return Err(format!("{label}: the fault did not fire:\n{err}"));
    }
    if err.contains("power loss not materialised") {
        return Err(format!("{label}: the seam could not put the disk in its power-loss state:\n{err}"));
    }
    for r in touched {
        let dir = root.join(r);
        run.replicas.insert(*r, (read_checkpoints(&dir), None));
        let (c, out, err) = run_with_fault(&["recover".into(), s(&dir).into()], "nosync");
        if c != 0 {
            return Err(format!("{label}: `klog recover {r}` exited {c}:\n{out}{err}"));
        }
        let (c, out, err) = run_with_fault(&["check".into(), s(&dir).into()], "");
        if c != 0 {
            return Err(format!("{label}: `klog check {r}` after recovery exited {c}:\n{out}{err}"));
        }
        run.replicas.get_mut(r).unwrap().1 = Some(view(&dir));
    }
    Ok(())
}

/// Records that a fault must not lose or change: those below the recovery point before the
/// command that the command keeps, and those below the recovery point the fault left on disk
/// (the command had made them durable). Every record left must be the one the replica held
/// before the command or after it, at the same offset with the same leader epoch, and the
/// offsets left must have no hole.
fn lost_records(
    label: &str,
    replica: &str,
    before: &View,
    after: &View,
    left: &Checkpoints,
    recovered: &View,
) -> Vec<String> {
    let mut problems = Vec::new();
    let rp_before = recovery_point(&before.checkpoints);
    let rp_left = recovery_point(left);
    for (o, rec) in &after.records {
        let durable_before = *o < rp_before && before.records.get(o) == Some(rec);
        let made_durable = *o < rp_left;
        if (durable_before || made_durable) && recovered.records.get(o) != Some(rec) {
            problems.push(format!(
                "{label}: {replica} lost offset {o} {rec:?} (recovery point {rp_before} before, {rp_left} left by the \
                 fault); it holds {:?}",
                recovered.records.get(o)
            ));
        }
    }
    for (o, rec) in &recovered.records {
        if before.records.get(o) != Some(rec) && after.records.get(o) != Some(rec) {
            problems.push(format!("{label}: {replica} holds offset {o} {rec:?}, neither the old nor the new record"));
        }
    }
    // klog's logs are never compacted: a hole means a cut that did not reach the log end.
    let offsets: Vec<i64> = recovered.records.keys().copied().collect();
    for pair in offsets.windows(2) {
        if pair[1] != pair[0] + 1 {
            problems.push(format!("{label}: {replica} has a hole: offset {} follows offset {}", pair[1], pair[0]));
        }
    }
    if let Some(last) = offsets.last() {
        if recovered.log_end_offset != last + 1 {
            problems.push(format!(
                "{label}: {replica} has LEO {} but its last record is at offset {last}",
                recovered.log_end_offset
            ));
        }
    }
    problems
}

#[test]
fn append_with_flush_survives_a_fault_at_every_durable_step() {
    run_scenario(&Scenario {
        name: "append --flush",
        prepare: LEADER_AND_FOLLOWER,
        prepare_more: &[&["elect", "@l", "--epoch", "1", "--isr", "@f", "--epoch-entry", "first-append"]],
        command: [APPEND_FOUR, &["--flush"]].concat(),
        fail: true,
        damage: None,
    });
}

#[test]
fn append_without_flush_survives_a_fault_at_every_durable_step() {
    run_scenario(&Scenario {
        name: "append",
        prepare: LEADER_AND_FOLLOWER,
        prepare_more: &[],
        command: APPEND_FOUR.to_vec(),
        fail: false,
        damage: None,
    });
}

#[test]
fn fetch_with_flush_survives_a_fault_at_every_durable_step() {
    run_scenario(&Scenario {
        name: "fetch --flush",
        prepare: LEADER_AND_FOLLOWER,
        prepare_more: &[APPEND_FOUR],
        command: vec!["fetch", "--leader", "@l", "@f", "--flush"],
        fail: false,
        damage: None,
    });
}

#[test]
fn local_recovery_survives_a_fault_at_every_durable_step() {
    run_scenario(&Scenario {
        name: "recover",
        prepare: LEADER_AND_FOLLOWER,
        prepare_more: &[APPEND_FOUR, &["crash", "@l", "--torn-bytes", "7"]],
        command: vec!["recover", "@l"],
        fail: false,
        damage: None,
    });
}

/// A leader of three 400-byte segments, none of them flushed, killed (and an idle follower the
/// harness reads too): its recovery scans every segment from offset 0 and writes their rebuilt indexes as one batch (`durable::AtomicBatch`).
const THREE_UNFLUSHED_SEGMENTS: &[&[&str]] = &[
    &["create", "@l", "--replica-id", "1", "--segment-bytes", "400"],
    &["create", "@f", "--replica-id", "2", "--segment-bytes", "400"],
    &["elect", "@l", "--epoch", "0"],
    APPEND_FOUR,
    APPEND_FOUR,
    APPEND_FOUR,
    &["crash", "@l"],
];

#[test]
fn local_recovery_writing_every_segments_indexes_in_one_batch_survives_a_fault_at_every_durable_step() {
    run_scenario(&Scenario {
        name: "recover (every segment rescanned)",
        prepare: THREE_UNFLUSHED_SEGMENTS,
        prepare_more: &[],
        command: vec!["recover", "@l"],
        fail: true,
        damage: None,
    });
}

#[test]
fn kip279_truncation_survives_a_fault_at_every_durable_step() {
    run_scenario(&Scenario {
        name: "recover --leader kip279",
        prepare: DIVERGED,
        prepare_more: &[],
        command: vec!["recover", "@f", "--leader", "@l", "--mode", "kip279"],
        fail: false,
        damage: None,
    });
}

/// Flip the last byte of `l`'s first segment: its last batch (a3, a4, never flushed) fails its
/// CRC, so recovery cuts that segment and deletes the later one.
fn flip_last_byte_of_the_first_segment(root: &Path) {
    let path = root.join("l/demo-0/00000000000000000000.log");
    let mut bytes = fs::read(&path).unwrap();
    *bytes.last_mut().expect("a non-empty first segment") ^= 0xff;
    fs::write(&path, bytes).unwrap();
}

#[test]
fn local_recovery_that_cuts_a_segment_and_deletes_later_ones_survives_a_fault_at_every_durable_step() {
    run_scenario(&Scenario {
        name: "recover (corrupt first segment)",
        prepare: LEADER_AND_FOLLOWER,
        prepare_more: &[APPEND_FOUR, &["crash", "@l"]],
        command: vec!["recover", "@l"],
        fail: false,
        damage: Some(flip_last_byte_of_the_first_segment),
    });
}

#[test]
fn stop_survives_a_fault_at_every_durable_step() {
    run_scenario(&Scenario {
        name: "stop",
        prepare: LEADER_AND_FOLLOWER,
        prepare_more: &[APPEND_FOUR],
        command: vec!["stop", "@l"],
        fail: false,
        damage: None,
    });
}

#[test]
fn elect_survives_a_fault_at_every_durable_step() {
    run_scenario(&Scenario {
        name: "elect",
        prepare: LEADER_AND_FOLLOWER,
        prepare_more: &[],
        command: vec!["elect", "@l", "--epoch", "1", "--isr", "@f"],
        fail: false,
        damage: None,
    });
}

#[test]
fn flush_survives_a_fault_at_every_durable_step() {
    run_scenario(&Scenario {
        name: "flush",
        prepare: LEADER_AND_FOLLOWER,
        prepare_more: &[APPEND_FOUR],
        command: vec!["flush", "@l"],
        fail: false,
        damage: None,
    });
}

#[test]
fn a_simulated_power_loss_survives_a_fault_at_every_durable_step() {
    run_scenario(&Scenario {
        name: "crash --power-loss",
        prepare: LEADER_AND_FOLLOWER,
        prepare_more: &[APPEND_FOUR],
        command: vec!["crash", "@l", "--power-loss"],
        fail: false,
        damage: None,
    });
}

#[test]
fn a_bad_fault_spec_is_refused_with_exit_2_before_anything_runs() {
    let lab = Lab::new();
    let out = klog().args(["create", s(&lab.path("l"))]).env("KLOG_FAULT", "explode@3").output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("KLOG_FAULT") && err.contains("explode@3"), "{err}");
    assert!(!lab.path("l").exists(), "nothing was created");
}

#[test]
fn an_injected_failure_is_reported_with_the_path_and_the_step_and_leaves_no_temporary_file() {
    let lab = Lab::new();
    let l = lab.create("l", 1, &[]);
    ok(&["elect", s(&l), "--epoch", "0"]);
    let trace = lab.path("trace");
    let args = ["append", s(&l), "a0", "--flush"].map(String::from);
    copy_dir(&l, &lab.path("template"));
    let (c, _, _) = run_with_fault(&args, &format!("nosync,trace={}", s(&trace)));
    assert_eq!(c, 0);
    // The failing run starts from the same state, at the same path.
    fs::remove_dir_all(&l).unwrap();
    copy_dir(&lab.path("template"), &l);
    let steps = read_trace(&trace, lab.dir.path());
    let (k, st) = steps.iter().enumerate().find(|(_, st)| st.op == "rename").expect("a rename step");
    let (c, out, err) = run_with_fault(&args, &format!("fail@{}", k + 1));
    assert_eq!(c, 2, "{out}{err}");
    let target = st.path.split(" -> ").nth(1).unwrap();
    assert!(
        err.starts_with(&format!(
            "klog: error: {}: rename failed: injected fault at step {}",
            s(&lab.dir.path().join(target)),
            k + 1
        )),
        "{err}"
    );
    let tmp = lab.dir.path().join(st.path.split(" -> ").next().unwrap());
    assert!(!tmp.exists(), "the failed atomic write left {}", tmp.display());
}
