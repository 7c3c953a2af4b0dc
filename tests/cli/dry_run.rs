//! A dry run says what the run will do (issue 18, point 8): on seeded, generated labs — klog
//! histories of create/elect/append/fetch/crash/stop/recover, then damage (each `crash` option,
//! malformed checkpoints, HW/recovery-point/log-start values edited, the clean-shutdown marker,
//! klog's state removed) — `recover --dry-run --json` and `recover --json` give the same report
//! (apart from `dry_run`) or the same refusal (exit code and message), and the dry run changes
//! no byte (not even `.lock`). The same for `--leader` with each `--mode`, for the data-dir forms
//! against their one-partition forms, and for `draw` against `diff` on pairs of replicas.

use crate::common::*;
use std::path::{Path, PathBuf};

/// splitmix64: a small seeded generator, so a failing case is replayed by its seed.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
    fn pick<'a, T>(&mut self, xs: &'a [T]) -> &'a T {
        &xs[self.below(xs.len() as u64) as usize]
    }
    fn chance(&mut self, percent: u64) -> bool {
        self.below(100) < percent
    }
}

#[derive(Debug)]
struct Out {
    code: i32,
    stdout: String,
    stderr: String,
}

fn run(args: &[String]) -> Out {
    let o = klog().args(args).output().expect("klog runs");
    Out {
        code: o.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&o.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&o.stderr).into_owned(),
    }
}

fn args(parts: &[&str]) -> Vec<String> {
    parts.iter().map(|p| p.to_string()).collect()
}

fn p(path: &Path) -> String {
    s(path).to_string()
}

/// JSON lines with the `dry_run` flag taken out (the one field that may differ).
fn without_dry_run(stdout: &str) -> Vec<serde_json::Value> {
    let mut lines = json_lines(stdout);
    for v in &mut lines {
        if let Some(o) = v.as_object_mut() {
            o.remove("dry_run");
        }
    }
    lines
}

/// The dry run's and the run's answers are one answer.
fn assert_same_answer(dry: &Out, real: &Out, case: &str) {
    assert_eq!(dry.code, real.code, "{case}: dry run exit {} ({}) but run exit {} ({})", dry.code, dry.stderr.trim(), real.code, real.stderr.trim());
    if dry.code == 0 {
        assert_eq!(without_dry_run(&dry.stdout), without_dry_run(&real.stdout), "{case}: reports differ");
    } else {
        assert_eq!(dry.stderr, real.stderr, "{case}: refusals differ");
        assert_eq!(dry.stderr.lines().count(), 1, "{case}: a refusal is one line: {}", dry.stderr);
    }
}

const MODES: [&str; 3] = ["hw", "kip101", "kip279"];

/// Log-dir files a damage may rewrite, and what it may write there.
const CHECKPOINTS: [&str; 3] =
    ["replication-offset-checkpoint", "recovery-point-offset-checkpoint", "log-start-offset-checkpoint"];
const MALFORMED: [&str; 7] = [
    "garbage\n",
    "0\n1\ndemo 0 x\n",
    "0\n2\ndemo 0 5\n",
    "",
    "1\n1\ndemo 0 3\n",
    "0\n1\ndemo 0\n",
    "0\n1\ndemo 0 99999999999999999999\n",
];

/// A klog history over replicas a, b, c of one partition; commands that refuse change nothing
/// and are part of the history too.
fn history(rng: &mut Rng, root: &Path) -> Vec<PathBuf> {
    let dirs: Vec<PathBuf> = ["a", "b", "c"].iter().map(|n| root.join(n)).collect();
    let segment_bytes = rng.pick(&["300", "700", "1048576"]).to_string();
    for (i, d) in dirs.iter().enumerate() {
        run(&args(&["create", s(d), "--replica-id", &(i + 1).to_string(), "--segment-bytes", &segment_bytes]));
    }
    let mut leader = 0usize;
    run(&args(&["elect", s(&dirs[0]), "--isr", s(&dirs[1]), s(&dirs[2])]));
    for _ in 0..3 + rng.below(7) {
        let x = rng.below(3) as usize;
        let other = (x + 1 + rng.below(2) as usize) % 3;
        let out = match rng.below(9) {
            0..=2 => {
                let n = (1 + rng.below(6)).to_string();
                let per = (1 + rng.below(3)).to_string();
                run(&args(&["append", s(&dirs[leader]), "--count", &n, "--records-per-batch", &per]))
            }
            3 | 4 => {
                let f = if x == leader { other } else { x };
                let how = if rng.chance(50) { "--until-caught-up" } else { "--rounds=1" };
                run(&args(&["fetch", "--leader", s(&dirs[leader]), s(&dirs[f]), how]))
            }
            5 => {
                let out = run(&args(&["elect", s(&dirs[x]), "--isr", s(&dirs[other])]));
                if out.code == 0 {
                    leader = x;
                }
                out
            }
            6 => run(&crash_args(rng, &dirs[x])),
            7 => {
                let mode = rng.pick(&MODES).to_string();
                run(&args(&["recover", s(&dirs[x]), "--leader", s(&dirs[leader]), "--mode", &mode]))
            }
            _ => run(&args(&[*rng.pick(&["stop", "flush", "recover"]), s(&dirs[x])])),
        };
        assert!(out.code == 0 || out.code == 2, "history step: {out:?}");
    }
    dirs
}

fn crash_args(rng: &mut Rng, dir: &Path) -> Vec<String> {
    let mut a = args(&["crash", s(dir)]);
    match rng.below(7) {
        0 => a.push("--power-loss".into()),
        1 => a.extend(["--torn-bytes".into(), (1 + rng.below(80)).to_string()]),
        2 => a.extend(["--flip-byte".into(), "--seed".into(), rng.below(1000).to_string()]),
        3 => a.extend(["--hw".into(), rng.below(30).to_string()]),
        4 => a.push("--drop-epoch-checkpoint".into()),
        5 => a.push("--drop-index".into()),
        _ => {}
    }
    a
}

/// Damage one replica of a copied lab; returns what was done (for the failure message).
fn damage(rng: &mut Rng, dir: &Path) -> String {
    match rng.below(8) {
        0 => "none".into(),
        1 | 2 => {
            let a = crash_args(rng, dir);
            let out = run(&a);
            format!("{} (exit {})", a.join(" "), out.code)
        }
        3 => {
            let file = if rng.chance(25) {
                "demo-0/leader-epoch-checkpoint"
            } else {
                *rng.pick(&CHECKPOINTS)
            };
            let text = *rng.pick(&MALFORMED);
            std::fs::write(dir.join(file), text).unwrap();
            format!("{file} := {text:?}")
        }
        4 => {
            let file = *rng.pick(&CHECKPOINTS);
            let value = match rng.below(4) {
                0 => 0,
                1 => 1 << 40,
                _ => rng.below(30) as i64,
            };
            std::fs::write(dir.join(file), format!("0\n1\ndemo 0 {value}\n")).unwrap();
            format!("{file} := {value}")
        }
        5 => {
            let out = run(&args(&["stop", s(dir)]));
            std::fs::write(dir.join("recovery-point-offset-checkpoint"), "0\n1\ndemo 0 0\n").unwrap();
            format!("stop (exit {}), recovery point 0", out.code)
        }
        6 => {
            std::fs::write(dir.join(".kafka_cleanshutdown"), "").unwrap();
            "clean-shutdown marker".into()
        }
        _ => {
            // A broker's dir: no klog state (after a crash, so nothing runs).
            run(&args(&["crash", s(dir)]));
            let _ = std::fs::remove_file(dir.join("klog-state.json"));
            "crash, klog-state.json removed".into()
        }
    }
}

/// Run `recover ARGS --dry-run` and `recover ARGS` on the same tree: the dry run must leave every
/// byte as it was, and both must give one answer.
fn dry_then_run(root: &Path, recover: &[String], case: &str) -> bool {
    let before = tree(root);
    let mut dry = recover.to_vec();
    dry.push("--dry-run".into());
    let dry_out = run(&dry);
    assert!(tree(root) == before, "{case}: the dry run changed the tree");
    let real_out = run(recover);
    assert_same_answer(&dry_out, &real_out, case);
    real_out.code == 0
}

/// `histories` generated labs, `variants` damaged copies each: local and follower recovery.
/// Returns (cases, cases that ran rather than refused).
fn single_partition_cases(seed: u64, histories: u64, variants: u64) -> (usize, usize) {
    let (mut cases, mut ran) = (0, 0);
    for h in 0..histories {
        let mut rng = Rng(seed * 1000 + h);
        let lab = Lab::new();
        let base = lab.path("base");
        let dirs = history(&mut rng, &base);
        for v in 0..variants {
            let root = lab.path(&format!("v{v}"));
            copy_dir(&base, &root);
            let names: Vec<PathBuf> = dirs.iter().map(|d| root.join(d.file_name().unwrap())).collect();
            let x = rng.below(3) as usize;
            let what = damage(&mut rng, &names[x]);
            let mut recover = args(&["recover", "--json"]);
            if rng.chance(50) {
                recover.push(p(&names[x]));
            } else {
                let l = (x + 1 + rng.below(2) as usize) % 3;
                let mode = rng.pick(&MODES).to_string();
                recover.extend([p(&names[x]), "--leader".into(), p(&names[l]), "--mode".into(), mode]);
                recover.extend(["--context".into(), rng.below(4).to_string()]);
                if rng.chance(20) {
                    recover.push("--no-fencing".into());
                }
            }
            let case = format!("seed {seed} history {h} variant {v}: damage {what}; {}", recover.join(" "));
            ran += usize::from(dry_then_run(&root, &recover, &case));
            cases += 1;
        }
    }
    eprintln!("seed {seed}: {cases} cases, {ran} ran");
    (cases, ran)
}

#[test]
fn dry_run_says_what_the_run_does_on_generated_labs_seed_1() {
    let (cases, ran) = single_partition_cases(1, 8, 5);
    assert!(cases == 40 && ran * 3 >= cases, "{ran} of {cases} ran: the generator makes too few recoverable labs");
}

#[test]
fn dry_run_says_what_the_run_does_on_generated_labs_seed_2() {
    let (cases, ran) = single_partition_cases(2, 8, 5);
    assert!(cases == 40 && ran * 3 >= cases, "{ran} of {cases} ran: the generator makes too few recoverable labs");
}

#[test]
fn dry_run_says_what_the_run_does_on_generated_labs_seed_3() {
    let (cases, ran) = single_partition_cases(3, 8, 5);
    assert!(cases == 40 && ran * 3 >= cases, "{ran} of {cases} ran: the generator makes too few recoverable labs");
}

#[test]
fn dry_run_says_what_the_run_does_on_generated_labs_seed_4() {
    let (cases, ran) = single_partition_cases(4, 8, 5);
    assert!(cases == 40 && ran * 3 >= cases, "{ran} of {cases} ran: the generator makes too few recoverable labs");
}
