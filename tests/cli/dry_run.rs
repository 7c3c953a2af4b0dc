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
fn assert_same_answer(dry: &Ran, real: &Ran, case: &str) {
    assert_eq!(
        dry.code,
        real.code,
        "{case}: dry run exit {} ({}) but run exit {} ({})",
        dry.code,
        dry.stderr.trim(),
        real.code,
        real.stderr.trim()
    );
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
fn history(rng: &mut Rng, root: &Path) -> (Vec<PathBuf>, usize) {
    let dirs: Vec<PathBuf> = ["a", "b", "c"].iter().map(|n| root.join(n)).collect();
    let segment_bytes = rng.pick(&["300", "700", "1048576"]).to_string();
    for (i, d) in dirs.iter().enumerate() {
        run(&args(&["create", s(d), "--replica-id", &(i + 1).to_string(), "--segment-bytes", &segment_bytes]));
    }
    let mut leader = 0usize;
    run(&args(&["elect", s(&dirs[0]), "--isr", s(&dirs[1]), s(&dirs[2])]));
    // A skeleton that makes followers lag and leaders change (the cases where recovery and
    // truncation have work to do), then random steps.
    let append = |rng: &mut Rng, leader: &Path| {
        let n = (1 + rng.below(6)).to_string();
        let per = (1 + rng.below(3)).to_string();
        run(&args(&["append", s(leader), "--count", &n, "--value-size", "8", "--records-per-batch", &per]))
    };
    append(rng, &dirs[0]);
    for f in [1, 2] {
        if rng.chance(60) {
            run(&args(&["fetch", "--leader", s(&dirs[0]), s(&dirs[f]), "--rounds=1"]));
        }
    }
    append(rng, &dirs[0]);
    if rng.chance(80) {
        if rng.chance(50) {
            run(&crash_args(rng, &dirs[0]));
        } else {
            run(&args(&["crash", s(&dirs[0])]));
        }
        let next = 1 + rng.below(2) as usize;
        if run(&args(&["elect", s(&dirs[next]), "--isr", s(&dirs[3 - next])])).code == 0 {
            leader = next;
            append(rng, &dirs[leader]);
        }
    }
    for _ in 0..rng.below(5) {
        let x = rng.below(3) as usize;
        let other = (x + 1 + rng.below(2) as usize) % 3;
        let out = match rng.below(9) {
            0..=2 => append(rng, &dirs[leader]),
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
    (dirs, leader)
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
            let file = if rng.chance(25) { "demo-0/leader-epoch-checkpoint" } else { *rng.pick(&CHECKPOINTS) };
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
/// byte as it was, and both must give one answer. On a broker's dir (`consent`: no klog state)
/// the run is given `--allow-broker-dir-writes`, as a dry run needs no consent; the backup the
/// run saves beside the dir is made after the dry run's tree comparison.
fn dry_then_run(root: &Path, recover: &[String], consent: bool, case: &str) -> Option<serde_json::Value> {
    let before = tree(root);
    let mut dry = recover.to_vec();
    dry.push("--dry-run".into());
    let dry_out = run(&dry);
    assert!(tree(root) == before, "{case}: the dry run changed the tree");
    let mut real = recover.to_vec();
    if consent {
        real.insert(0, "--allow-broker-dir-writes".into());
    }
    let real_out = run(&real);
    assert_same_answer(&dry_out, &real_out, case);
    (real_out.code == 0).then(|| json_lines(&real_out.stdout).remove(0))
}

/// A report in which recovery cut bytes or truncation dropped records: a case that tests more
/// than "nothing to do".
fn cuts_something(v: &serde_json::Value) -> bool {
    let cut = |r: &serde_json::Value| r["bytes_cut"].as_u64().unwrap_or(0) > 0;
    let summary = &v["summary"];
    cut(&v["recovery"])
        || cut(&v["local_recovery"])
        || summary["truncated_refetchable"].as_u64().unwrap_or(0) + summary["truncated_lost"].as_u64().unwrap_or(0) > 0
}

/// `histories` generated labs, `variants` damaged copies each: local and follower recovery.
/// Returns (cases, cases that ran rather than refused, runs that cut or truncated something).
fn single_partition_cases(seed: u64, histories: u64, variants: u64) -> (usize, usize, usize) {
    let (mut cases, mut ran, mut cutting) = (0, 0, 0);
    for h in 0..histories {
        let mut rng = Rng(seed * 1000 + h);
        let lab = Lab::new();
        let base = lab.path("base");
        let (dirs, leader) = history(&mut rng, &base);
        for v in 0..variants {
            let root = lab.path(&format!("v{v}"));
            copy_dir(&base, &root);
            let names: Vec<PathBuf> = dirs.iter().map(|d| root.join(d.file_name().unwrap())).collect();
            // Mostly a replica that is not the leader: the one a restart truncates.
            let x = if rng.chance(75) { (leader + 1 + rng.below(2) as usize) % 3 } else { leader };
            let what = damage(&mut rng, &names[x]);
            // The damage that removes klog's state leaves a broker's dir: its run needs consent.
            let consent = !names[x].join("klog-state.json").exists();
            let mut recover = args(&["recover", "--json"]);
            if rng.chance(30) {
                recover.push(p(&names[x]));
            } else {
                let other = (x + 1 + rng.below(2) as usize) % 3;
                let l = if x != leader && rng.chance(70) { leader } else { other };
                let mode = rng.pick(&MODES).to_string();
                recover.extend([p(&names[x]), "--leader".into(), p(&names[l]), "--mode".into(), mode]);
                recover.extend(["--context".into(), rng.below(4).to_string()]);
                if rng.chance(20) {
                    recover.push("--no-fencing".into());
                }
            }
            let case = format!("seed {seed} history {h} variant {v}: damage {what}; {}", recover.join(" "));
            if let Some(report) = dry_then_run(&root, &recover, consent, &case) {
                ran += 1;
                cutting += usize::from(cuts_something(&report));
            }
            cases += 1;
        }
    }
    (cases, ran, cutting)
}

#[test]
fn dry_run_says_what_the_run_does_on_generated_labs_seed_1() {
    let (cases, ran, cutting) = single_partition_cases(1, 8, 5);
    assert!(
        cases == 40 && ran * 3 >= cases && cutting >= 5,
        "{cases} cases, {ran} ran, {cutting} cut: too few useful labs"
    );
}

#[test]
fn dry_run_says_what_the_run_does_on_generated_labs_seed_2() {
    let (cases, ran, cutting) = single_partition_cases(2, 8, 5);
    assert!(
        cases == 40 && ran * 3 >= cases && cutting >= 5,
        "{cases} cases, {ran} ran, {cutting} cut: too few useful labs"
    );
}

#[test]
fn dry_run_says_what_the_run_does_on_generated_labs_seed_3() {
    let (cases, ran, cutting) = single_partition_cases(3, 8, 5);
    assert!(
        cases == 40 && ran * 3 >= cases && cutting >= 5,
        "{cases} cases, {ran} ran, {cutting} cut: too few useful labs"
    );
}

#[test]
fn dry_run_says_what_the_run_does_on_generated_labs_seed_4() {
    let (cases, ran, cutting) = single_partition_cases(4, 8, 5);
    assert!(
        cases == 40 && ran * 3 >= cases && cutting >= 5,
        "{cases} cases, {ran} ran, {cutting} cut: too few useful labs"
    );
}

/// Two data dirs `d` (ids 1) and `e` (id 2) of two partitions, a history on each partition,
/// then both crashed (some partitions with damage): brokers that stopped uncleanly.
fn data_dir_lab(rng: &mut Rng, root: &Path) -> (PathBuf, PathBuf) {
    let (d, e) = (root.join("d"), root.join("e"));
    for (dir, id) in [(&d, "1"), (&e, "2")] {
        run(&args(&["create", s(dir), "--partitions", "2", "--replica-id", id, "--segment-bytes", "500"]));
    }
    for part in ["demo-0", "demo-1"] {
        let (l, f) = if rng.chance(50) { (&d, &e) } else { (&e, &d) };
        run(&args(&["elect", s(l), "--partition", part, "--isr", s(f)]));
        for _ in 0..1 + rng.below(4) {
            let n = (1 + rng.below(5)).to_string();
            run(&args(&["append", s(l), "--partition", part, "--count", &n, "--value-size", "8"]));
            if rng.chance(50) {
                run(&args(&["fetch", "--leader", s(l), s(f), "--partition", part, "--rounds=1"]));
            }
        }
        for dir in [&d, &e] {
            if rng.chance(40) {
                let mut a = crash_args(rng, dir);
                a.extend(["--partition".into(), part.into()]);
                run(&a);
            }
        }
    }
    for dir in [&d, &e] {
        run(&args(&["crash", s(dir)]));
    }
    (d, e)
}

/// The one-partition form's JSON for partition `part`, and the data-dir form's line for it.
fn line_for<'a>(lines: &'a [serde_json::Value], part: &str) -> Option<&'a serde_json::Value> {
    lines.iter().find(|v| v["partition"] == part)
}

fn data_dir_cases(seed: u64, labs: u64) -> usize {
    let mut cases = 0;
    for h in 0..labs {
        let mut rng = Rng(seed * 1000 + h);
        let lab = Lab::new();
        let (d, e) = data_dir_lab(&mut rng, &lab.path("lab"));
        let case = format!("seed {seed} lab {h}");
        // Local recovery: the data-dir forecast and each partition's dry run agree.
        for dir in [&d, &e] {
            let whole = run(&args(&["recover", "--dry-run", "--json", s(dir)]));
            let lines = json_lines(&whole.stdout);
            for part in ["demo-0", "demo-1"] {
                let one = run(&args(&["recover", "--dry-run", "--json", s(dir), "--partition", part]));
                assert_eq!(whole.code, one.code, "{case}: {part} of {}: {whole:?} {one:?}", dir.display());
                if one.code == 0 {
                    let v = &json_lines(&one.stdout)[0];
                    let w = line_for(&lines, part).expect("the forecast lists every partition");
                    assert_eq!(v["recovery"], w["recovery"], "{case}: {part} of {}", dir.display());
                }
                cases += 1;
            }
        }
        // Restart as a follower: the plan's line per partition is that partition's dry run.
        let mode = rng.pick(&MODES).to_string();
        let mut plan_args = args(&["recover", "--dry-run", "--json", "--leader", s(&d), s(&e), "--mode", &mode]);
        if rng.chance(30) {
            plan_args.push("--no-fencing".into());
        }
        let plan = run(&plan_args);
        assert_eq!(plan.code, 0, "{case}: {plan:?}");
        let lines = json_lines(&plan.stdout);
        for part in ["demo-0", "demo-1"] {
            let mut one_args = plan_args.clone();
            one_args.extend(["--partition".into(), part.into()]);
            let one = run(&one_args);
            let mut w = line_for(&lines, part).expect("the plan lists every shared partition").clone();
            if one.code == 0 {
                w.as_object_mut().unwrap().remove("partition");
                assert_eq!(json_lines(&one.stdout)[0], w, "{case}: {part}: {}", plan_args.join(" "));
            } else {
                assert_eq!(one.code, 2, "{case}: {one:?}");
                let why = w["refused"].as_str().unwrap_or_else(|| panic!("{case}: {part} refused alone: {one:?}"));
                assert!(one.stderr.contains(why), "{case}: {part}: {why} / {}", one.stderr);
            }
            cases += 1;
        }
        // One dir, or copies of one, as both sides: one refusal in both forms.
        let copy = lab.path("copy");
        copy_dir(&d, &copy);
        for (l, f) in [(&d, &d), (&d, &copy)] {
            let whole = run(&args(&["recover", "--dry-run", "--leader", s(l), s(f)]));
            let one = run(&args(&["recover", "--dry-run", "--leader", s(l), s(f), "--partition", "demo-0"]));
            assert_eq!(whole.code, 2, "{case}: {whole:?}");
            assert_same_answer(&whole, &one, &format!("{case}: --leader {} {}", l.display(), f.display()));
            assert!(whole.stderr.contains(s(f)), "{case}: names the path: {}", whole.stderr);
            cases += 1;
        }
        // --explain with a restart plan is refused, not dropped.
        let before = tree(&lab.path("lab"));
        let explain = run(&args(&["recover", "--dry-run", "--leader", s(&d), s(&e), "--explain"]));
        assert!(explain.code == 2 && explain.stdout.is_empty(), "{case}: {explain:?}");
        assert!(explain.stderr.lines().count() == 1 && explain.stderr.contains(s(&e)), "{case}: {explain:?}");
        assert!(tree(&lab.path("lab")) == before, "{case}: a refusal changed the tree");
        cases += 1;
    }
    cases
}

#[test]
fn data_dir_forms_agree_with_their_one_partition_forms() {
    assert_eq!(data_dir_cases(7, 6), 6 * 9);
}

/// `draw` refuses exactly the pairs `diff` refuses, with the same message.
#[test]
fn draw_refuses_the_pairs_diff_refuses() {
    let mut rng = Rng(11);
    let lab = Lab::new();
    let mut dirs = Vec::new();
    for (i, topic) in ["demo", "demo", "other", "demo"].iter().enumerate() {
        let dir = lab.create(&format!("r{i}"), i as i32 + 1, &["--topic", topic]);
        ok(&["elect", s(&dir)]);
        ok(&["append", s(&dir), "--count", &(1 + i).to_string(), "--value-size", "4"]);
        dirs.push(dir);
    }
    // r3 is of another cluster; r4 a copy of r1 whose topic has another topic id; r5 holds
    // partition demo-1.
    let meta = std::fs::read_to_string(dirs[3].join("meta.properties")).unwrap();
    let meta = meta.lines().map(|l| if l.starts_with("cluster.id=") { "cluster.id=AAAAAAAAAAAAAAAAAAAAAA" } else { l });
    std::fs::write(dirs[3].join("meta.properties"), meta.collect::<Vec<_>>().join("\n")).unwrap();
    let r4 = lab.path("r4");
    copy_dir(&dirs[1], &r4);
    std::fs::write(r4.join("demo-0/partition.metadata"), "version: 0\ntopic_id: BBBBBBBBBBBBBBBBBBBBBB").unwrap();
    dirs.push(r4);
    dirs.push(lab.create("r5", 6, &["--partition", "1"]));
    let mut refused = 0;
    for _ in 0..30 {
        let (a, b) = (rng.pick(&dirs).clone(), rng.pick(&dirs).clone());
        let diff = run(&args(&["diff", s(&a), s(&b)]));
        let draw = run(&args(&["draw", s(&a), s(&b)]));
        let case = format!("diff/draw {} {}", a.display(), b.display());
        if diff.code == 2 {
            assert_same_answer(&diff, &draw, &case);
            refused += 1;
        } else {
            assert_eq!(draw.code, 0, "{case}: {draw:?}");
            // What diff warns about (another cluster or topic id), draw warns about on stderr.
            let warns = diff.stdout.lines().filter(|l| l.starts_with("warning:")).count();
            assert_eq!(draw.stderr.lines().filter(|l| l.starts_with("klog: warning:")).count(), warns, "{case}");
        }
    }
    assert!(refused > 0, "the pairs include some of different partitions");
}
