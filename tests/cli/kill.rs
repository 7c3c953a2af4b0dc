//! SIGKILL at random moments: `klog append --flush` on a leader and `klog fetch --flush` on a
//! follower are killed many times (deterministic pseudo-random delays from a fixed seed). After
//! local recovery the log must be valid and hold every batch whose command finished.

use crate::common::*;
use std::collections::BTreeMap;
use std::os::unix::process::ExitStatusExt;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// xorshift64: a small deterministic generator, so every run uses the same delays.
struct XorShift(u64);

impl XorShift {
    fn next(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        self.0 = x;
        x
    }

    /// A delay in `lo..hi` microseconds.
    fn delay(&mut self, lo: u64, hi: u64) -> Duration {
        Duration::from_micros(lo + self.next() % (hi - lo))
    }
}

const SEED: u64 = 0x6b6c_6f67_2d6b_696c;
const APPEND_ITERATIONS: u32 = 24;
const FETCH_ITERATIONS: u32 = 16;
/// Every sixth command runs to its end (so that some commands certainly finish).
const UNKILLED_EVERY: u32 = 6;
const COUNT: i64 = 2000;
const VALUE_SIZE: usize = 100;

enum Outcome {
    /// Exited 0 before the kill; its stdout.
    Finished(String),
    Killed,
}

/// Spawn klog, SIGKILL it after `delay` (unless None), reap it.
fn run_killed_after(args: &[&str], delay: Option<Duration>) -> Outcome {
    let mut child = Command::new(assert_cmd::cargo::cargo_bin("klog"))
        .args(args)
        .env("NO_COLOR", "1")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn klog");
    if let Some(d) = delay {
        std::thread::sleep(d);
        // Fails only if the child was already reaped, which it was not.
        child.kill().expect("SIGKILL");
    }
    let out = child.wait_with_output().expect("wait for klog");
    if out.status.success() {
        Outcome::Finished(String::from_utf8_lossy(&out.stdout).into_owned())
    } else if out.status.signal() == Some(9) {
        Outcome::Killed
    } else {
        panic!(
            "klog {args:?} failed on its own after an earlier kill: {}\nstdout: {}\nstderr: {}",
            out.status,
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
    }
}

/// The value `append --count --value-size` writes at `offset`: `v<offset>-`, then the alphabet
/// from that position on, cut to size.
fn generated_value(offset: i64, size: usize) -> String {
    let prefix = format!("v{offset}-");
    let filler: String = "abcdefghijklmnopqrstuvwxyz".chars().cycle().take(size).collect();
    let n = prefix.len().min(size);
    format!("{}{}", &prefix[..n], &filler[n..])
}

/// `appended N record(s) at offsets A..=B ...` → (A, B).
fn appended_offsets(stdout: &str) -> (i64, i64) {
    let at = stdout.find("at offsets ").unwrap_or_else(|| panic!("no offsets in {stdout:?}"));
    let rest = &stdout[at + "at offsets ".len()..];
    let range = rest.split_whitespace().next().unwrap();
    let (a, b) = range.split_once("..=").unwrap_or_else(|| panic!("no range in {stdout:?}"));
    (a.parse().unwrap(), b.parse().unwrap())
}

/// `klog recover DIR` (local) then `klog check DIR`: exit 0.
fn recover_and_check(dir: &Path) {
    ok(&["recover", s(dir)]);
    let (c, out, err) = run_check(dir);
    assert_eq!(c, 0, "check after recovery found problems:\n{out}{err}");
}

fn run_check(dir: &Path) -> (i32, String, String) {
    let out = klog().args(["check", s(dir)]).output().expect("run klog check");
    (
        out.status.code().expect("exit code"),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn by_offset(dir: &Path) -> BTreeMap<i64, (i64, String)> {
    records(dir).into_iter().map(|(o, e, v)| (o, (e, v))).collect()
}

/// How the test treats a killed command.
#[derive(Clone, Copy, PartialEq, Eq)]
enum AfterKill {
    /// Go on with the next command as if nothing happened: klog is expected to notice an
    /// interrupted write and recover by itself.
    Continue,
    /// Treat the kill as the broker dying: `klog crash` (no damage), `klog recover`, `klog
    /// check` (exit 0), and elect the leader again.
    CrashAndRecover,
}

/// After a kill in `CrashAndRecover`: crash, local recovery, a clean check.
fn crash_recover_check(dir: &Path) {
    ok(&["crash", s(dir)]);
    recover_and_check(dir);
}

fn sigkill_append_and_fetch(after_kill: AfterKill) {
    let started = Instant::now();
    let lab = Lab::new();
    let l = lab.create("l", 1, &[]);
    let f = lab.create("f", 2, &[]);
    let mut epoch = 0;
    ok(&["elect", s(&l), "--epoch", &epoch.to_string()]);
    let mut rng = XorShift(SEED);
    let count = COUNT.to_string();
    let value_size = VALUE_SIZE.to_string();

    // Appends of 2000 records in 40 batches, fsynced, killed at random moments.
    // Finished appends: (first offset, last offset, leader epoch).
    let mut finished: Vec<(i64, i64, i64)> = Vec::new();
    let mut killed = 0;
    for i in 0..APPEND_ITERATIONS {
        let delay = (i % UNKILLED_EVERY != UNKILLED_EVERY - 1).then(|| rng.delay(200, 20_000));
        let ts = (1_000_000 + i64::from(i)).to_string();
        let args = [
            "append",
            s(&l),
            "--count",
            &count,
            "--value-size",
            &value_size,
            "--records-per-batch",
            "50",
            "--timestamp",
            &ts,
            "--flush",
        ];
        match run_killed_after(&args, delay) {
            Outcome::Finished(out) => {
                let (first, last) = appended_offsets(&out);
                assert_eq!(last - first + 1, COUNT, "{out}");
                finished.push((first, last, epoch));
            }
            Outcome::Killed => {
                killed += 1;
                if after_kill == AfterKill::CrashAndRecover {
                    crash_recover_check(&l);
                    epoch += 1;
                    ok(&["elect", s(&l), "--epoch", &epoch.to_string()]);
                }
            }
        }
    }
    eprintln!("append: {} finished, {killed} killed", finished.len());
    assert!(killed > 0 && !finished.is_empty());

    // `klog recover` (local) leaves a valid log.
    recover_and_check(&l);
    // What a finished --flush append wrote survives even a power loss after the kills.
    ok(&["crash", s(&l), "--power-loss"]);
    recover_and_check(&l);
    let leader = by_offset(&l);
    for &(first, last, epoch) in &finished {
        for o in first..=last {
            let got = leader.get(&o).unwrap_or_else(|| panic!("offset {o} of a finished append is missing"));
            assert_eq!(got, &(epoch, generated_value(o, VALUE_SIZE)), "offset {o}");
        }
    }

    // Follower fetches of ~60 KB per round, fsynced each round, killed at random moments.
    epoch += 1;
    ok(&["elect", s(&l), "--epoch", &epoch.to_string(), "--isr", s(&f)]);
    let mut fetched_to = 0i64;
    let mut fetches_finished = 0;
    let mut fetches_killed = 0;
    for i in 0..FETCH_ITERATIONS {
        let delay = (i % UNKILLED_EVERY != UNKILLED_EVERY - 1).then(|| rng.delay(200, 20_000));
        let args = ["fetch", "--leader", s(&l), s(&f), "--rounds", "4", "--max-bytes", "60000", "--flush", "--json"];
        match run_killed_after(&args, delay) {
            Outcome::Finished(out) => {
                let rounds = json_lines(&out);
                let leo = rounds.last().expect("a round")["follower_log_end_offset"].as_i64().unwrap();
                assert!(leo >= fetched_to, "the follower went backwards: {leo} < {fetched_to}");
                fetched_to = leo;
                fetches_finished += 1;
            }
            Outcome::Killed => {
                fetches_killed += 1;
                if after_kill == AfterKill::CrashAndRecover {
                    crash_recover_check(&f);
                }
            }
        }
    }
    eprintln!("fetch: {fetches_finished} finished, {fetches_killed} killed; follower fetched to {fetched_to}");
    assert!(fetches_killed > 0 && fetched_to > 0);

    recover_and_check(&f);
    ok(&["crash", s(&f), "--power-loss"]);
    recover_and_check(&f);
    let follower = by_offset(&f);
    for o in 0..fetched_to {
        assert_eq!(follower.get(&o), leader.get(&o), "offset {o} of a finished fetch");
    }
    // The leader served fetches that were killed: it is still valid.
    ok(&["crash", s(&l)]);
    recover_and_check(&l);
    eprintln!("kill test took {:?}", started.elapsed());
}

#[test]
fn sigkilled_append_and_fetch_with_flush_lose_no_finished_batch_when_each_kill_is_a_crash() {
    sigkill_append_and_fetch(AfterKill::CrashAndRecover);
}

#[test]
fn sigkilled_append_and_fetch_with_flush_are_recovered_by_the_next_command() {
    sigkill_append_and_fetch(AfterKill::Continue);
}
