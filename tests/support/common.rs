//! Helpers shared by every test tier (tests/cli, tests/kafka, tests/browser, each including
//! this file as `mod common` with `#[path]`): run the real binary in temp dirs, whatever its
//! exit ([`run`], [`ran`]), parse JSON lines, snapshot a directory's bytes, and say once when an
//! outside input is missing ([`missing_input`]: skip locally, fail under `KLOG_CI`).

use assert_cmd::Command;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// The klog binary, with colour off and a fixed environment.
pub fn klog() -> Command {
    let mut c = Command::cargo_bin("klog").expect("klog binary");
    c.env("NO_COLOR", "1");
    // COLUMNS would wrap text output to its width even off a terminal.
    c.env_remove("COLUMNS");
    c
}

/// Run klog with `args`, assert success, return stdout.
pub fn ok(args: &[&str]) -> String {
    let out = klog().args(args).assert().success().get_output().stdout.clone();
    String::from_utf8(out).expect("utf-8 stdout")
}

/// Run klog with `args`, assert exit `code`, return (stdout, stderr).
pub fn code(args: &[&str], code: i32) -> (String, String) {
    let r = run(args);
    assert_eq!(r.code, code, "klog {args:?}\nstdout: {}\nstderr: {}", r.stdout, r.stderr);
    (r.stdout, r.stderr)
}

/// What one run of a command did, whatever its exit.
#[derive(Debug)]
pub struct Ran {
    /// The exit code; -1 when a signal ended it (a timeout's kill, a crash).
    pub code: i32,
    pub stdout: String,
    pub stderr: String,
}

/// Run `cmd` (klog with its arguments, environment or timeout set) to its end whatever its
/// exit: the one place the tests run the binary without asserting how it exits.
pub fn ran(cmd: &mut Command) -> Ran {
    let o = cmd.output().expect("klog runs");
    Ran {
        code: o.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&o.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&o.stderr).into_owned(),
    }
}

/// Run klog with `args` whatever its exit.
pub fn run<S: AsRef<std::ffi::OsStr>>(args: &[S]) -> Ran {
    ran(klog().args(args))
}

/// Parse JSON lines.
pub fn json_lines(text: &str) -> Vec<serde_json::Value> {
    text.lines().filter(|l| !l.trim().is_empty()).map(|l| serde_json::from_str(l).expect("a JSON line")).collect()
}

/// `dump --json` records of a replica: (offset, epoch, value).
pub fn records(dir: &Path) -> Vec<(i64, i64, String)> {
    json_lines(&ok(&["dump", s(dir), "--json"]))
        .into_iter()
        .filter(|v| v["type"] == "record")
        .map(|v| {
            (
                v["offset"].as_i64().unwrap(),
                v["leader_epoch"].as_i64().unwrap(),
                v["value"].as_str().unwrap_or("").to_string(),
            )
        })
        .collect()
}

/// `dump --json` replica line.
pub fn replica(dir: &Path) -> serde_json::Value {
    json_lines(&ok(&["dump", s(dir), "--json", "--limit", "0"])).into_iter().find(|v| v["type"] == "replica").unwrap()
}

pub fn s(p: &Path) -> &str {
    p.to_str().expect("utf-8 path")
}

/// A temp dir holding replica dirs `a`, `b`, ... (not yet created).
pub struct Lab {
    pub dir: tempfile::TempDir,
}

impl Lab {
    pub fn new() -> Lab {
        Lab { dir: tempfile::tempdir().expect("temp dir") }
    }
    pub fn path(&self, name: &str) -> PathBuf {
        self.dir.path().join(name)
    }
    /// `klog create` a replica named `name` with replica id `id`.
    pub fn create(&self, name: &str, id: i32, extra: &[&str]) -> PathBuf {
        let p = self.path(name);
        let ids = id.to_string();
        let mut args = vec!["create", s(&p), "--replica-id", &ids];
        args.extend_from_slice(extra);
        ok(&args);
        p
    }
}

/// Every file under `dir` with its bytes (to prove a command changed nothing).
pub fn snapshot(dir: &Path) -> BTreeMap<PathBuf, Vec<u8>> {
    let mut out = BTreeMap::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap() {
            let e = e.unwrap();
            let p = e.path();
            if e.file_type().unwrap().is_dir() {
                stack.push(p);
            } else if p.file_name().is_some_and(|n| n != ".lock") {
                out.insert(p.clone(), std::fs::read(&p).unwrap());
            }
        }
    }
    out
}

/// A test's outside input is missing. Under `KLOG_CI` (set by `.ci/run`, where every input
/// must be there) the test fails; elsewhere (a fresh clone without `../shared`) it skips, and
/// the run says so once per missing input, on one line that test output capture does not hide.
pub fn missing_input(what: &str, how_to_get_it: &str) {
    use std::io::Write;
    use std::sync::Mutex;
    static SAID: Mutex<Vec<String>> = Mutex::new(Vec::new());
    if std::env::var_os("KLOG_CI").is_some() {
        panic!("{what} is missing, and KLOG_CI is set: CI must provide it ({how_to_get_it})");
    }
    let mut said = SAID.lock().unwrap_or_else(|e| e.into_inner());
    if !said.iter().any(|w| w == what) {
        said.push(what.to_string());
        let _ =
            writeln!(std::io::stderr(), "klog tests: {what} is missing: the tests that need it skip ({how_to_get_it})");
    }
}

/// Every file and directory under `dir` with its bytes, but an empty `.lock`: a command that
/// took a log dir's lock leaves the file, as a broker does, even when it then refuses (a lock
/// file removed by the command that made it let two later writers lock two inodes at once).
/// A `.lock` with bytes in it is kept, to see that nothing writes into it.
pub fn tree(dir: &Path) -> BTreeMap<PathBuf, Option<Vec<u8>>> {
    let mut out = BTreeMap::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap() {
            let e = e.unwrap();
            if e.file_type().unwrap().is_dir() {
                out.insert(e.path(), None);
                stack.push(e.path());
            } else {
                let bytes = std::fs::read(e.path()).unwrap();
                if e.file_name() != ".lock" || !bytes.is_empty() {
                    out.insert(e.path(), Some(bytes));
                }
            }
        }
    }
    out
}

/// Whether the long searches run in full: under `KLOG_EXHAUSTIVE=1` (`scripts/long-searches`,
/// the long run). Elsewhere (plain `cargo test`, and CI) a test that fails a command at every
/// one of hundreds of durable steps runs a fixed sample of them instead: [`sample`].
pub fn exhaustive() -> bool {
    std::env::var_os("KLOG_EXHAUSTIVE").is_some_and(|v| v == "1")
}

/// The steps 1..=`steps` a test fails a command at: all of them when [`exhaustive`] or when
/// there are at most 60; otherwise the first 20, the last 20 (where a command writes and
/// renames its output) and every 20th between, the same on every run.
pub fn sample(steps: usize) -> Vec<usize> {
    if exhaustive() || steps <= 60 {
        return (1..=steps).collect();
    }
    (1..=steps).filter(|&n| n <= 20 || n > steps - 20 || n % 20 == 0).collect()
}

/// Seeds 1..=`full` of a seeded random search when [`exhaustive`], else the first `fast` of
/// them: the fast tier replays the same first histories on every run, CI all of them.
pub fn seeds(full: u64, fast: u64) -> std::ops::RangeInclusive<u64> {
    1..=if exhaustive() { full } else { fast.min(full) }
}

/// The broker-written log dirs, if present.
pub fn kafka_real() -> Option<PathBuf> {
    let p = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/kafka-real");
    if p.is_dir() {
        Some(p)
    } else {
        missing_input(&p.display().to_string(), "the workplace's shared/ folder beside the clone");
        None
    }
}

/// Whether python3 can import `module`; if not, the test skips (or fails under `KLOG_CI`).
pub fn python_module(module: &str) -> bool {
    let ok = std::process::Command::new("python3").args(["-c", &format!("import {module}")]).output();
    if ok.is_ok_and(|o| o.status.success()) {
        return true;
    }
    missing_input(&format!("the python module `{module}`"), "pip install kafka-python python-snappy lz4 zstandard");
    false
}

/// Copy a directory tree (files and dirs only).
pub fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap() {
        let e = e.unwrap();
        let target = to.join(e.file_name());
        if e.file_type().unwrap().is_dir() {
            copy_dir(&e.path(), &target);
        } else {
            std::fs::copy(e.path(), &target).unwrap();
        }
    }
}

/// Copy a running (or just stopped) broker's data dir: [`copy_dir`], except that a file or
/// dir the broker removes or renames between the listing and the copy is left out, as a copy
/// taken a moment later would. A SIGSTOP reaches a JVM's threads asynchronously, so a rename
/// in flight can still land during the copy (CI met one in `kept_cases_replay`).
pub fn copy_broker_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    let entries = match std::fs::read_dir(from) {
        Ok(entries) => entries,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return,
        Err(e) => panic!("{}: {e}", from.display()),
    };
    for e in entries {
        let e = e.unwrap();
        let target = to.join(e.file_name());
        let is_dir = match e.file_type() {
            Ok(t) => t.is_dir(),
            Err(err) if err.kind() == std::io::ErrorKind::NotFound => continue,
            Err(err) => panic!("{}: {err}", e.path().display()),
        };
        if is_dir {
            copy_broker_dir(&e.path(), &target);
        } else {
            match std::fs::copy(e.path(), &target) {
                Ok(_) => {}
                Err(err) if err.kind() == std::io::ErrorKind::NotFound => {}
                Err(err) => panic!("{}: {err}", e.path().display()),
            }
        }
    }
}

/// A committed fixture (made by `fixtures/make.sh`) copied into the lab as `name`.
pub fn fixture(lab: &Lab, name: &str) -> PathBuf {
    let from = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures").join(name);
    let to = lab.path(name);
    copy_dir(&from, &to);
    to
}

/// One legacy (magic 0 or 1) log entry: the one encoder, `format/legacy.rs`'s.
#[allow(unused_imports)]
pub use replica_lab::format::legacy::encode_entry as legacy_message;

/// Copies of the real KRaft broker (node 1) as leader and, renamed node 2, as follower: its
/// metadata log's last record of each partition is the controlled shutdown (no leader).
pub fn real_kraft_pair(lab: &Lab, real: &Path) -> (PathBuf, PathBuf) {
    let (l, f) = (lab.path("l"), lab.path("f"));
    copy_dir(&real.join("kraft-broker-2026"), &l);
    copy_dir(&real.join("kraft-broker-2026"), &f);
    let props = std::fs::read_to_string(f.join("meta.properties")).unwrap();
    let props: String = props
        .lines()
        .map(|line| match line.split_once('=') {
            Some(("node.id", _)) => "node.id=2".to_string(),
            Some(("directory.id", _)) => "directory.id=AAAAAAAAAAAAAAAAAAAAAA".to_string(),
            _ => line.to_string(),
        })
        .map(|line| line + "\n")
        .collect();
    std::fs::write(f.join("meta.properties"), props).unwrap();
    (l, f)
}

/// A replica `b` with two epochs and a segment roll: 400-byte segments, an index entry every
/// 100 bytes, records with a key, headers (one null) and timestamps.
pub fn two_epoch_replica(lab: &Lab) -> PathBuf {
    let b = lab.create("b", 2, &["--segment-bytes", "400", "--index-interval-bytes", "100"]);
    ok(&["elect", s(&b), "--epoch", "3"]);
    ok(&["append", s(&b), "m0", "m1", "--key", "k", "--header", "h=v", "--header", "nullh", "--timestamp", "1000"]);
    for i in 2..6 {
        ok(&["append", s(&b), &format!("m{i}"), "--timestamp", &format!("{}", 1000 + i)]);
    }
    ok(&["elect", s(&b)]);
    for i in 6..12 {
        ok(&["append", s(&b), &format!("m{i}"), "--timestamp", &format!("{}", 2000 + i)]);
    }
    b
}
