//! Work that must stay linear in the partitions: the *shape* of it, asserted deterministically
//! (how many times each file is written, how much output a large input gives), never a time.
//! The times are in `benches/scale.sh`.

use crate::common::*;
use std::collections::BTreeMap;
use std::fs;
use std::path::Path;

const LOG_DIR_FILES: [&str; 5] = [
    "replication-offset-checkpoint",
    "recovery-point-offset-checkpoint",
    "log-start-offset-checkpoint",
    "klog-state.json",
    "meta.properties",
];

/// The `KLOG_FAULT` trace of a command: (op, path relative to `root`) per step.
fn traced(args: &[&str], root: &Path) -> Vec<(String, String)> {
    let trace = root.join("trace");
    let spec = format!("trace={},nosync", s(&trace));
    klog().args(args).env("KLOG_FAULT", &spec).assert().success();
    let prefix = format!("{}/", s(root));
    let steps = fs::read_to_string(&trace)
        .unwrap()
        .lines()
        .map(|line| {
            let mut parts = line.splitn(3, ' ');
            let (_, op, path) = (parts.next(), parts.next().unwrap(), parts.next().unwrap());
            (op.to_string(), path.replace(&prefix, ""))
        })
        .collect();
    fs::remove_file(&trace).unwrap();
    steps
}

/// Write steps per file.
fn writes(steps: &[(String, String)]) -> BTreeMap<String, usize> {
    let mut out = BTreeMap::new();
    for (_, path) in steps.iter().filter(|(op, _)| op == "write") {
        *out.entry(path.clone()).or_default() += 1;
    }
    out
}

#[test]
fn create_of_200_partitions_writes_each_log_dir_file_once() {
    let lab = Lab::new();
    let dir = lab.path("d");
    let steps = traced(&["create", s(&dir), "--topic", "t", "--partitions", "200"], lab.dir.path());
    let written = writes(&steps);
    for name in LOG_DIR_FILES {
        assert_eq!(written.get(&format!("d/{name}.tmp")), Some(&1), "{name} written {:?} times", written.get(name));
    }
    // Every partition's own files once each, and nothing else.
    for p in 0..200 {
        for name in ["partition.metadata", "leader-epoch-checkpoint"] {
            assert_eq!(written.get(&format!("d/t-{p}/{name}")), Some(&1), "t-{p}/{name}");
        }
    }
    assert_eq!(written.values().sum::<usize>(), 2 * 200 + LOG_DIR_FILES.len());
    // Syncs do not grow with the partitions: one sync of the file system covers the new dirs.
    let syncs = steps.iter().filter(|(op, _)| op.starts_with("fsync") || op == "syncfs").count();
    assert!(syncs <= 2 * LOG_DIR_FILES.len() + 2, "{syncs} syncs for 200 partitions");
    // The bytes written are those of the tree: each checkpoint holds its 200 lines once.
    let hw = fs::read_to_string(dir.join("replication-offset-checkpoint")).unwrap();
    assert_eq!(hw.lines().count(), 202);
    assert!(hw.starts_with("0\n200\nt 0 0\nt 1 0\n"), "{}", &hw[..40]);
}

#[test]
fn create_added_to_an_existing_dir_rewrites_each_log_dir_file_once_keeping_its_entries() {
    let lab = Lab::new();
    let dir = lab.create("d", 1, &["--topic", "a", "--partitions", "3"]);
    let steps = traced(&["create", s(&dir), "--topic", "b", "--partitions", "50"], lab.dir.path());
    let written = writes(&steps);
    for name in &LOG_DIR_FILES[..4] {
        assert_eq!(written.get(&format!("d/{name}.tmp")), Some(&1), "{name}");
    }
    assert!(!written.contains_key("d/meta.properties.tmp"), "meta.properties rewritten");
    let rp = fs::read_to_string(dir.join("recovery-point-offset-checkpoint")).unwrap();
    assert!(rp.starts_with("0\n53\na 0 0\na 1 0\na 2 0\nb 0 0\n"), "{rp}");
    let state: serde_json::Value = serde_json::from_slice(&fs::read(dir.join("klog-state.json")).unwrap()).unwrap();
    assert_eq!(state["partitions"].as_object().unwrap().len(), 53);
}

/// Run `args` failing step `step`; (exit code, stderr).
fn failed_at(args: &[&str], step: usize) -> (i32, String) {
    let out = klog().args(args).env("KLOG_FAULT", format!("nosync,fail@{step}")).output().unwrap();
    (out.status.code().unwrap(), String::from_utf8_lossy(&out.stderr).into_owned())
}

#[test]
fn a_create_of_many_partitions_failed_at_any_step_leaves_nothing() {
    let lab = Lab::new();
    // A new log dir: every step failed in turn leaves no dir at all.
    let dir = lab.path("new");
    let args = ["create", s(&dir), "--topic", "t", "--partitions", "3"];
    let steps = traced(&args, lab.dir.path()).len();
    fs::remove_dir_all(&dir).unwrap();
    assert!(steps > 20, "{steps} steps");
    for step in 1..=steps {
        let (code, err) = failed_at(&args, step);
        assert_eq!(code, 2, "step {step}: {err}");
        assert!(err.contains("injected fault"), "step {step}: {err}");
        assert!(!dir.exists(), "step {step} left {:?}", tree(&dir).keys().collect::<Vec<_>>());
    }
    // Partitions added to a log dir: every step failed in turn leaves its tree byte-identical,
    // without even the lock file.
    let dir = lab.create("old", 1, &["--topic", "a", "--partitions", "2"]);
    let before = tree(&dir);
    let args = ["create", s(&dir), "--topic", "b", "--partitions", "3"];
    let copy = lab.path("copy");
    copy_dir(&dir, &copy);
    let steps = traced(&["create", s(&copy), "--topic", "b", "--partitions", "3"], lab.dir.path()).len();
    for step in 1..=steps {
        let (code, err) = failed_at(&args, step);
        assert_eq!(code, 2, "step {step}: {err}");
        assert_eq!(tree(&dir), before, "step {step} changed the tree ({err})");
    }
}

#[test]
fn create_refuses_a_garbage_state_file_and_a_name_too_long_before_writing() {
    let lab = Lab::new();
    let dir = lab.create("d", 1, &[]);
    fs::write(dir.join("klog-state.json"), "{ not json").unwrap();
    let before = tree(&dir);
    let (_, err) = code(&["create", s(&dir), "--topic", "x", "--partitions", "2"], 2);
    assert!(err.contains("klog-state.json") && err.lines().count() == 1, "{err}");
    assert_eq!(tree(&dir), before);
    let topic = "t".repeat(249);
    let (_, err) = code(&["create", s(&lab.path("long")), "--topic", &topic, "--partition", "100000"], 2);
    assert!(err.contains("longer than a file name") && err.lines().count() == 1, "{err}");
    assert!(!lab.path("long").exists());
}

/// A log dir of partitions `demo-0` and `demo-1` whose HW and recovery-point checkpoints also
/// list `absent` partitions that are not on disk.
fn dir_with_absent_partitions(lab: &Lab, absent: usize) -> std::path::PathBuf {
    let dir = lab.create("d", 1, &["--partitions", "2"]);
    for name in ["replication-offset-checkpoint", "recovery-point-offset-checkpoint"] {
        let mut text = format!("0\n{}\ndemo 0 0\ndemo 1 0\n", absent + 2);
        for i in 0..absent {
            text.push_str(&format!("gone{} {i} {i}\n", i % 97));
        }
        fs::write(dir.join(name), text).unwrap();
    }
    dir
}

#[test]
fn dump_and_check_of_checkpoints_listing_50000_absent_partitions_give_one_line_each() {
    let lab = Lab::new();
    let dir = dir_with_absent_partitions(&lab, 50_000);
    let rows = json_lines(&ok(&["dump", s(&dir), "--json"]));
    let summaries: Vec<_> = rows.iter().filter(|r| r["type"] == "partition_summary").collect();
    assert_eq!(summaries.len(), 50_002, "{:?}", rows.first());
    assert_eq!(summaries.iter().filter(|r| r["on_disk"] == false).count(), 50_000);
    assert!(rows.len() <= 50_002 + 5, "{} lines", rows.len());
    let absent = summaries.iter().find(|r| r["partition"] == "gone26-12345");
    assert!(absent.is_some_and(|r| r["high_watermark"] == 12345), "{absent:?}");
    // check: one note per absent partition, naming both checkpoints.
    let (out, _) = code(&["check", s(&dir)], 0);
    let notes: Vec<_> = out.lines().filter(|l| l.contains("not on disk")).collect();
    assert_eq!(notes.len(), 50_000);
    assert!(
        notes.iter().any(|n| n.contains(
            "gone26-12345 is listed in replication-offset-checkpoint and \
                                          recovery-point-offset-checkpoint"
        )),
        "{}",
        notes[0]
    );
}

#[test]
fn the_text_dump_of_5000_absent_partitions_gives_one_short_row_each() {
    let lab = Lab::new();
    let dir = dir_with_absent_partitions(&lab, 5_000);
    let text = ok(&["dump", s(&dir)]);
    // (The table repeats its header now and then.)
    assert!(text.lines().count() <= 5_002 + 5_002 / 100 + 10, "{} lines", text.lines().count());
    // Listed under the table, one line each, with what the checkpoints say.
    assert!(text.contains("5000 partition(s) only in the checkpoints, not on disk"), "{text}");
    assert_eq!(text.lines().filter(|l| l.starts_with("  gone") && l.contains("  HW ")).count(), 5_000);
    assert!(text.lines().all(|l| l.chars().count() < 200), "a long line");
}

/// Replace `name` in `dir` by a checkpoint whose third line is `bytes` long.
fn long_line_checkpoint(dir: &Path, name: &str, bytes: usize) {
    let mut text = b"0\n1\n".to_vec();
    text.extend(std::iter::repeat_n(b't', bytes));
    text.extend_from_slice(b" 0 0\n");
    fs::write(dir.join(name), text).unwrap();
}

#[test]
fn a_1_mb_checkpoint_line_is_a_finding_with_its_line_position_and_a_short_echo() {
    let lab = Lab::new();
    let dir = lab.create("d", 1, &[]);
    long_line_checkpoint(&dir, "replication-offset-checkpoint", 1 << 20);
    let (out, err) = code(&["check", s(&dir)], 1);
    let finding = out.lines().find(|l| l.contains("replication-offset-checkpoint")).expect("a finding");
    assert!(finding.contains("line 3") && finding.contains("byte position 4"), "{finding}");
    assert!(finding.len() < 400, "echoed {} bytes", finding.len());
    assert!(out.len() + err.len() < 2000, "{} bytes of output", out.len() + err.len());
    // A reader goes on without the file; dumping the file itself is an error of one short line.
    let out = ok(&["dump", s(&dir)]);
    assert!(out.len() < 2000 && out.contains("byte position 4"), "{out}");
    let (_, err) = code(&["dump", s(&dir.join("replication-offset-checkpoint"))], 2);
    assert!(err.lines().count() == 1 && err.len() < 400 && err.contains("replication-offset-checkpoint"), "{err}");
    // A writer refuses it, changing nothing.
    let before = tree(&dir);
    let (_, err) = code(&["append", s(&dir), "x"], 2);
    assert!(err.len() < 400 && err.contains("line 3"), "{err}");
    assert_eq!(tree(&dir), before);
}

#[test]
fn a_long_leader_epoch_checkpoint_line_is_malformed_with_a_short_echo() {
    let lab = Lab::new();
    let dir = lab.create("d", 1, &[]);
    long_line_checkpoint(&dir.join("demo-0"), "leader-epoch-checkpoint", 1 << 20);
    let out = klog().args(["check", s(&dir)]).output().unwrap();
    let all = format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    assert!(all.contains("leader-epoch-checkpoint") && all.contains("line 3"), "{all}");
    assert!(all.len() < 2000, "{} bytes of output", all.len());
}

#[test]
fn data_dir_readers_give_every_partition_its_own_checkpoint_values() {
    // Values looked up by name (hashed), not by position: each partition gets its own.
    let lab = Lab::new();
    let dir = lab.create("d", 1, &["--topic", "t", "--partitions", "30"]);
    let mut text = String::from("0\n30\n");
    for p in (0..30).rev() {
        text.push_str(&format!("t {p} {}\n", 1000 + p));
    }
    fs::write(dir.join("replication-offset-checkpoint"), text).unwrap();
    let rows = json_lines(&ok(&["dump", s(&dir), "--json"]));
    for r in rows.iter().filter(|r| r["type"] == "partition_summary") {
        let name = r["partition"].as_str().unwrap();
        let p: i64 = name.rsplit('-').next().unwrap().parse().unwrap();
        assert_eq!(r["high_watermark"], 1000 + p, "{r}");
    }
    // check places the finding at the byte position of the partition's own line.
    let out = json_lines(&code(&["check", s(&dir), "--json"], 1).0);
    let hw = fs::read_to_string(dir.join("replication-offset-checkpoint")).unwrap();
    let t7 = out.iter().find(|v| v["type"] == "partition_check" && v["partition"] == "t-7").expect("t-7 checked");
    let f = &t7["findings"][0];
    assert!(f["what"].as_str().unwrap().contains("high watermark 1007"), "{f}");
    assert_eq!(f["position"], hw.find("t 7 1007").unwrap() as u64, "{f}");
}
