//! Golden text output: one session through every subcommand (and the demos), run in a temp
//! dir with relative paths, fixed timestamps, `NO_COLOR` and a fixed width of 80 columns, each
//! step compared with its file under `tests/golden/`. Re-bless with `KLOG_BLESS=1 cargo test
//! --test cli -- golden::`, then read the diff: the files are the output users see.

use assert_cmd::Command;
use std::path::{Path, PathBuf};

/// The records' timestamp: 2020-05-17T10:22:33.958Z.
const TS: &str = "1589710953958";

/// One step: golden file name, arguments, standard input, expected exit code.
struct Step {
    name: &'static str,
    args: &'static [&'static str],
    stdin: &'static [u8],
    code: i32,
}

const fn step(name: &'static str, args: &'static [&'static str], code: i32) -> Step {
    Step { name, args, stdin: b"", code }
}

const SESSION: &[Step] = &[
    step("create", &["create", "a", "--replica-id", "1"], 0),
    step("create-b", &["create", "b", "--replica-id", "2", "--segment-bytes", "300"], 0),
    step("elect", &["elect", "b", "--isr", "a"], 0),
    step("append", &["append", "b", "m1", "m2", "--key", "user-7", "--header", "trace=abc", "--timestamp", TS], 0),
    Step {
        name: "append-stdin",
        args: &["append", "b", "--stdin", "--timestamp", TS],
        // Control bytes but no NUL, so that git still diffs the golden files as text.
        stdin: b"plain text\n\x01\x02binary\n",
        code: 0,
    },
    step("fetch", &["fetch", "--leader", "b", "a", "--rounds", "2"], 0),
    step("dump", &["dump", "b"], 0),
    step("dump-batches", &["dump", "b", "--batches"], 0),
    step("dump-epochs", &["dump", "b", "--epochs"], 0),
    // `history` needs a KRaft metadata log; a klog replica dir has none, and says so.
    step("history", &["history", "b"], 2),
    step("dump-from-past-end", &["dump", "b", "--from", "100"], 0),
    step("dump-index", &["dump", "b/demo-0/00000000000000000000.index"], 0),
    step("dump-timeindex", &["dump", "b/demo-0/00000000000000000000.timeindex"], 0),
    step("dump-epoch-checkpoint", &["dump", "b/demo-0/leader-epoch-checkpoint"], 0),
    step("dump-hw-checkpoint", &["dump", "b/replication-offset-checkpoint"], 0),
    step("dump-empty-checkpoint", &["dump", "empty/leader-epoch-checkpoint"], 0),
    step("dump-kafka", &["dump", "b", "--format", "kafka"], 0),
    step("check", &["check", "b"], 0),
    step("txn", &["txn", "b"], 0),
    step("diff", &["diff", "a", "b"], 0),
    // A klog replica dir holds no `__remote_log_metadata`: nothing tiered, said so.
    step("remote", &["remote", "b"], 0),
    // A tiered lab: the leader's copy task, local retention, a follower rebuilt from remote, the
    // leader's remote expiration.
    step("tier-create", &["create", "t1", "--replica-id", "3", "--segment-bytes", "300", "--remote-dir", "remote"], 0),
    step("tier-elect", &["elect", "t1"], 0),
    step("tier-append", &["append", "t1", "--count", "10", "--value-size", "20", "--records-per-batch", "1"], 0),
    step("tier-copy", &["tier", "copy", "t1"], 0),
    step("tier-retain", &["tier", "retain", "t1", "--local-retention-bytes", "0"], 0),
    step(
        "tier-create-follower",
        &["create", "t2", "--replica-id", "4", "--segment-bytes", "300", "--remote-dir", "remote"],
        0,
    ),
    step("tier-fetch", &["fetch", "--leader", "t1", "t2", "--rounds", "2"], 0),
    // The leader's remote expiration with retention.ms 0: every copied segment breaches it.
    step("tier-expire", &["tier", "expire", "t1", "--retention-ms", "0"], 0),
    step("flush", &["flush", "a"], 0),
    step("append-more", &["append", "b", "m3", "m4", "m5", "--records-per-batch", "1", "--timestamp", TS], 0),
    step("crash", &["crash", "a", "--power-loss"], 0),
    step("recover-dry-run", &["recover", "a", "--leader", "b", "--dry-run"], 0),
    step("recover", &["recover", "a", "--leader", "b", "--catch-up"], 0),
    step("stop", &["stop", "b"], 0),
    step("crash-flip", &["crash", "b", "--flip-byte", "60"], 0),
    step("check-findings", &["check", "b"], 1),
    step("recover-local", &["recover", "b"], 0),
    step("elect-again", &["elect", "b"], 0),
    step("append-diverging", &["append", "b", "x1", "--timestamp", TS], 0),
    step("diff-diverged", &["diff", "a", "b"], 1),
    step("alter-isr", &["alter-isr", "b", "--isr", "a"], 0),
    step("draw", &["draw", "a", "b"], 0),
    // `broker` is a log dir klog did not make (a fixture without klog-state.json, set up below):
    // a write needs consent and saves a backup beside it, which `restore` puts back.
    step("elect-broker", &["--allow-broker-dir-writes", "elect", "broker"], 0),
    step("restore", &["restore", "broker.klog-backup-1"], 0),
    step("explore", &["explore", "--mode", "hw", "--max-records", "1", "--no-timing"], 1),
    step("explore-tiered", &["explore", "--tiered", "--unclean", "--no-timing"], 1),
    step("demo", &["demo", "--dir", "lab1"], 0),
    step("demo-watch", &["demo", "watch", "--dir", "lab2"], 0),
    step("demo-kip279-all", &["demo", "kip279", "--mode", "all", "--dir", "lab3"], 0),
    step("demo-stuck-lso", &["demo", "stuck-lso", "--dir", "lab4"], 0),
    step("demo-tiers", &["demo", "tiers", "--dir", "lab5"], 0),
];

fn golden_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/golden")
}

/// What one step shows: the command, its stdout, its stderr if any, its exit code.
fn transcript(args: &[&str], stdout: &[u8], stderr: &[u8], code: i32, tmp: &Path) -> String {
    let mut text = format!("$ klog {}\n{}", args.join(" "), String::from_utf8_lossy(stdout));
    if !stderr.is_empty() {
        text.push_str(&format!("--- stderr\n{}", String::from_utf8_lossy(stderr)));
    }
    text.push_str(&format!("--- exit {code}\n"));
    text.replace(&tmp.display().to_string(), "$TMP")
}

#[test]
fn every_subcommands_text_output_matches_its_golden_file() {
    let tmp = tempfile::tempdir().unwrap();
    std::fs::create_dir(tmp.path().join("empty")).unwrap();
    std::fs::write(tmp.path().join("empty/leader-epoch-checkpoint"), b"").unwrap();
    let broker = tmp.path().join("broker");
    crate::common::copy_dir(&Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/multi-epoch"), &broker);
    std::fs::remove_file(broker.join("klog-state.json")).unwrap();
    let before = crate::common::tree(&broker);
    let bless = std::env::var_os("KLOG_BLESS").is_some();
    let mut stale = Vec::new();
    for step in SESSION {
        let out = Command::cargo_bin("klog")
            .unwrap()
            .current_dir(tmp.path())
            .env("NO_COLOR", "1")
            .env("COLUMNS", "80")
            .args(step.args)
            .write_stdin(step.stdin)
            .output()
            .unwrap();
        let code = out.status.code().unwrap_or(-1);
        let text = transcript(step.args, &out.stdout, &out.stderr, code, tmp.path());
        assert_eq!(code, step.code, "{}: unexpected exit code\n{text}", step.name);
        // Kafka's dump-log lines are for scripts, one record a line: never wrapped. Nor is an
        // error off a terminal: one line naming the path and what to do, for scripts and logs
        // to grep (`terminal::` checks it wraps on a terminal).
        let kafka_lines = step.args.contains(&"kafka");
        for line in text.lines() {
            let one_line = kafka_lines || line.starts_with("klog: error: ");
            assert!(one_line || line.chars().count() <= 80, "{}: line wider than 80 columns: {line:?}", step.name);
            assert_eq!(line, line.trim_end(), "{}: trailing spaces", step.name);
        }
        let file = golden_dir().join(format!("{}.txt", step.name));
        if bless {
            std::fs::write(&file, &text).unwrap();
        } else if std::fs::read_to_string(&file).ok().as_deref() != Some(text.as_str()) {
            stale.push(format!("--- {} (expected {})\n{text}", step.name, file.display()));
        }
    }
    assert!(stale.is_empty(), "output differs from tests/golden (re-bless with KLOG_BLESS=1):\n{}", stale.join("\n"));
    assert!(crate::common::tree(&broker) == before, "the restore step did not put the broker dir back byte for byte");
}

#[test]
fn every_golden_file_belongs_to_a_step() {
    for entry in std::fs::read_dir(golden_dir()).unwrap() {
        let entry = entry.unwrap();
        // Folders hold other tests' golden files (`screens/`).
        if entry.file_type().unwrap().is_dir() {
            continue;
        }
        let name = entry.file_name().to_string_lossy().into_owned();
        let stem = name.strip_suffix(".txt").unwrap_or(&name);
        assert!(SESSION.iter().any(|s| s.name == stem), "tests/golden/{name} has no step");
    }
}

#[test]
fn the_golden_session_runs_every_visible_subcommand() {
    let cmd = replica_lab::cli::command();
    // `generate` writes man pages and completion scripts: `generated::` checks them fresh.
    // `lab` serves until it is stopped: `lab::` drives it over HTTP and in Chromium.
    for sub in cmd.get_subcommands().filter(|s| !s.is_hide_set() && !["generate", "lab"].contains(&s.get_name())) {
        assert!(SESSION.iter().any(|s| s.args[0] == sub.get_name()), "no golden step for {}", sub.get_name());
    }
}
