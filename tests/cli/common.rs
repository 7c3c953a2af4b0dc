//! Helpers shared by the integration tests: run the real binary in temp dirs, parse JSON
//! lines, snapshot a directory's bytes.

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
    let a = klog().args(args).assert().code(code);
    let o = a.get_output();
    (String::from_utf8_lossy(&o.stdout).into_owned(), String::from_utf8_lossy(&o.stderr).into_owned())
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

/// The broker-written log dirs, if present.
pub fn kafka_real() -> Option<PathBuf> {
    let p = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/kafka-real");
    if p.is_dir() {
        Some(p)
    } else {
        eprintln!("skipped: {} is absent", p.display());
        None
    }
}
