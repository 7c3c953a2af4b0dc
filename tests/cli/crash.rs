//! Crash simulation and local recovery through the CLI.

use crate::common::*;
use std::fs;
use std::path::PathBuf;

/// A leader with batches x0 (flushed), x1, x2 (unflushed), each one record.
fn three_batches(lab: &Lab) -> PathBuf {
    let b = lab.create("b", 0, &["--index-interval-bytes", "10"]);
    ok(&["elect", s(&b)]);
    ok(&["append", s(&b), "x0", "--timestamp", "10", "--flush"]);
    ok(&["append", s(&b), "x1", "--timestamp", "11"]);
    ok(&["append", s(&b), "x2", "--timestamp", "12"]);
    b
}

fn values(b: &std::path::Path) -> Vec<String> {
    records(b).into_iter().map(|r| r.2).collect()
}

fn crash_and_recover(b: &std::path::Path, crash_args: &[&str]) -> (String, String) {
    let mut args = vec!["crash", s(b)];
    args.extend_from_slice(crash_args);
    let crash_out = ok(&args);
    let recover_out = ok(&["recover", s(b)]);
    ok(&["check", s(b)]);
    (crash_out, recover_out)
}

#[test]
fn power_loss_cuts_back_to_the_recovery_point_and_loses_nothing_flushed() {
    let lab = Lab::new();
    let b = three_batches(&lab);
    let (c, r) = crash_and_recover(&b, &["--power-loss"]);
    assert!(c.contains("unflushed offsets 1 to 2 lost"), "{c}");
    assert!(r.contains("unclean shutdown"), "{r}");
    assert_eq!(values(&b), vec!["x0"]);
    assert_eq!(replica(&b)["high_watermark"], 1, "HW clamped to the new LEO");
}

#[test]
fn power_loss_after_flush_loses_nothing() {
    let lab = Lab::new();
    let b = three_batches(&lab);
    ok(&["flush", s(&b)]);
    crash_and_recover(&b, &["--power-loss"]);
    assert_eq!(values(&b), vec!["x0", "x1", "x2"]);
}

#[test]
fn a_torn_tail_is_cut_at_the_last_whole_batch() {
    let lab = Lab::new();
    let b = three_batches(&lab);
    let (c, r) = crash_and_recover(&b, &["--torn-bytes", "5"]);
    assert!(c.contains("hits offset 2"), "{c}");
    assert!(r.contains("partial batch") && r.contains("bytes at position"), "{r}");
    assert_eq!(values(&b), vec!["x0", "x1"]);
}

#[test]
fn a_flipped_byte_cuts_the_log_before_the_damaged_batch() {
    let lab = Lab::new();
    let b = three_batches(&lab);
    let size = fs::metadata(b.join("demo-0/00000000000000000000.log")).unwrap().len() / 3;
    let pos = (size + 30).to_string(); // inside batch x1, covered by its CRC
    let (c, r) = crash_and_recover(&b, &["--flip-byte", &pos]);
    assert!(c.contains(&format!("byte at position {pos}")) && c.contains("hits offset 1"), "{c}");
    assert!(r.contains("CRC mismatch") && r.contains("cut batch 1 (epoch") && r.contains("cut batch 2 (epoch"), "{r}");
    assert_eq!(values(&b), vec!["x0"]);
}

#[test]
fn a_seeded_flip_is_reproducible_and_always_detected() {
    for seed in 0..5 {
        let (lab1, lab2) = (Lab::new(), Lab::new());
        let (b1, b2) = (three_batches(&lab1), three_batches(&lab2));
        let c1 = ok(&["crash", s(&b1), "--flip-byte", "--seed", &seed.to_string()]);
        let c2 = ok(&["crash", s(&b2), "--flip-byte", "--seed", &seed.to_string()]);
        let tail = |t: &str| t.lines().last().unwrap().to_string();
        assert_eq!(tail(&c1), tail(&c2));
        code(&["check", s(&b1)], 1);
        ok(&["recover", s(&b1)]);
        ok(&["check", s(&b1)]);
        assert!(values(&b1).len() < 3);
    }
}

#[test]
fn a_stale_hw_checkpoint_survives_the_crash_and_is_clamped_on_recovery() {
    let lab = Lab::new();
    let b = three_batches(&lab);
    let (c, _) = crash_and_recover(&b, &["--hw", "1"]);
    assert!(c.contains("HW checkpoint: 3 -> 1"), "{c}");
    assert_eq!(replica(&b)["high_watermark"], 1);
    assert_eq!(values(&b).len(), 3);
    let lab2 = Lab::new();
    let b2 = three_batches(&lab2);
    ok(&["crash", s(&b2), "--hw", "99"]);
    code(&["check", s(&b2)], 1);
    ok(&["recover", s(&b2)]);
    assert_eq!(replica(&b2)["high_watermark"], 3);
}

#[test]
fn a_lost_epoch_checkpoint_is_rebuilt_from_the_recovered_batches() {
    let lab = Lab::new();
    let b = three_batches(&lab);
    let (c, r) = crash_and_recover(&b, &["--drop-epoch-checkpoint"]);
    assert!(c.contains("removed") && c.contains("leader-epoch-checkpoint"), "{c}");
    // Recovery scans the whole segment holding the recovery point, so epoch 0 is found at 0.
    assert!(r.contains("epoch cache: added (0 0)"), "{r}");
    assert_eq!(values(&b).len(), 3);
}

#[test]
fn a_lost_index_is_rebuilt() {
    let lab = Lab::new();
    let b = three_batches(&lab);
    let idx = b.join("demo-0/00000000000000000000.index");
    let before = fs::read(&idx).unwrap();
    assert!(!before.is_empty());
    let (c, r) = crash_and_recover(&b, &["--drop-index"]);
    assert!(c.contains(".index") && c.contains(".timeindex"), "{c}");
    assert!(r.contains("indexes rebuilt"), "{r}");
    assert_eq!(fs::read(&idx).unwrap(), before);
}

#[test]
fn a_clean_stop_needs_no_scan_and_other_commands_recover_a_crashed_replica_first() {
    let lab = Lab::new();
    let b = three_batches(&lab);
    let out = ok(&["stop", s(&b)]);
    assert!(out.contains("stopped cleanly"));
    assert!(b.join(".kafka_cleanshutdown").exists());
    assert_eq!(replica(&b)["role"], "stopped");
    let out = ok(&["elect", s(&b)]);
    assert!(out.contains("clean shutdown (no scan)"), "{out}");
    assert!(!b.join(".kafka_cleanshutdown").exists());
    ok(&["crash", s(&b), "--torn-bytes", "3"]);
    assert_eq!(replica(&b)["role"], "crashed");
    let out = ok(&["elect", s(&b)]);
    assert!(out.contains("local recovery after an unclean shutdown"), "{out}");
    assert_eq!(values(&b), vec!["x0", "x1"]);
}

#[test]
fn recover_dry_run_reports_and_changes_nothing() {
    let lab = Lab::new();
    let b = three_batches(&lab);
    ok(&["crash", s(&b), "--torn-bytes", "4"]);
    let before = snapshot(&b);
    let out = ok(&["recover", s(&b), "--dry-run"]);
    assert!(out.contains("dry run: nothing changed") && out.contains("66 bytes cut"), "{out}");
    assert_eq!(snapshot(&b), before);
}

#[test]
fn crash_options_on_bad_targets_are_refused_without_change() {
    let lab = Lab::new();
    let empty = lab.create("e", 0, &[]);
    let before = snapshot(&empty);
    code(&["crash", s(&empty), "--torn-bytes", "1"], 2);
    code(&["crash", s(&empty), "--flip-byte", "0"], 2);
    assert_eq!(snapshot(&empty), before);
    let b = three_batches(&lab);
    let before = snapshot(&b);
    let (_, err) = code(&["crash", s(&b), "--flip-byte", "100000"], 2);
    assert!(err.contains("past the end"), "{err}");
    code(&["crash", s(&b), "--torn-bytes", "100000"], 2);
    code(&["crash", s(&b), "--flip-byte"], 2);
    assert_eq!(snapshot(&b), before);
}

/// Issue 34, point 15: a power cut of a replica with nothing unflushed (an empty log, or one
/// flushed to its end) is a crash like any other, said so, exit 0: a script that power-cuts
/// every replica goes on.
#[test]
fn a_power_loss_with_nothing_unflushed_is_a_crash_that_loses_nothing() {
    let lab = Lab::new();
    let e = lab.create("e", 0, &[]);
    let out = ok(&["crash", s(&e), "--power-loss"]);
    assert!(out.contains("e: crashed"), "{out}");
    assert!(out.contains("power loss: nothing unflushed (flushed up to the log end, offset 0): nothing lost"), "{out}");
    let f = lab.create("f", 1, &[]);
    ok(&["elect", s(&f)]);
    ok(&["append", s(&f), "x0", "--flush"]);
    let out = ok(&["crash", s(&f), "--power-loss"]);
    assert!(out.contains("offset 1): nothing lost"), "{out}");
    assert_eq!(values(&f), ["x0"]);
}
