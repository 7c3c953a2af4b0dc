//! The browser harness: `node tests/browser/<script>.mjs ARGS...` drives Debian's Chromium
//! through `playwright-core` (pinned in tests/browser/package.json, installed by `.ci/run` with
//! `npm ci`) and prints one JSON object of what the page showed; the judging happens here, in
//! Rust. Without node, the package or Chromium the tests that need them skip locally and fail
//! under `KLOG_CI`.

use crate::common::*;
use std::path::{Path, PathBuf};
use std::process::Command;

fn browser_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/browser")
}

/// Run one browser script and parse its JSON answer; `None` when the tools are missing (and
/// not under CI, where that panics).
pub fn run(script: &str, args: &[&str]) -> Option<serde_json::Value> {
    let dir = browser_dir();
    if !dir.join("node_modules/playwright-core").is_dir() {
        missing_input("playwright-core", "cd tests/browser && npm ci; .ci/run does it");
        return None;
    }
    let chromium = std::env::var("KLOG_CHROMIUM").unwrap_or_else(|_| "/usr/bin/chromium".into());
    if !Path::new(&chromium).is_file() {
        missing_input("chromium", "Debian's chromium package: apt-get install chromium; .ci/run installs it");
        return None;
    }
    let out = match Command::new("node").arg(dir.join(script)).args(args).output() {
        Ok(out) => out,
        Err(e) => {
            missing_input("node", &format!("Node.js 18 or later ({e})"));
            return None;
        }
    };
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "node {script} {args:?} failed:\n{stderr}\n{stdout}");
    let line = stdout.lines().last().unwrap_or_default();
    Some(serde_json::from_str(line).unwrap_or_else(|e| panic!("node {script}: not JSON ({e}): {stdout}")))
}

#[test]
fn the_harness_opens_a_capture_in_chromium_and_counts_its_frames() {
    let tmp = tempfile::tempdir().unwrap();
    let file = tmp.path().join("x.html");
    ok(&["demo", "kip101-1", "--mode", "hw", "--capture", s(&file)]);
    let html = std::fs::read_to_string(&file).unwrap();
    let written = html.matches("<section class=\"frame\"").count();
    let Some(seen) = run("smoke.mjs", &[s(&file), "1280"]) else { return };
    assert_eq!(seen["frames"].as_u64(), Some(written as u64), "{seen}");
    assert!(written > 5, "{written} frames");
}
