//! `klog demo` and the shell demos in `demos/`, checked on their real output and final state.

use crate::common::*;
use std::path::Path;

#[test]
fn the_default_demo_shows_m2_acked_and_lost_under_hw_and_kept_under_kip101() {
    let out = ok(&["demo"]);
    let contrast = out.split("what each truncation mode did").nth(1).expect("a contrast table");
    let hw = contrast.lines().find(|l| l.trim_start().starts_with("hw (")).expect("hw row");
    let kip101 = contrast.lines().find(|l| l.trim_start().starts_with("kip101 (")).expect("kip101 row");
    assert!(hw.contains("0:(0,m1) 1:(1,m3)") && hw.contains("m2 (offset 1)") && hw.contains("at offset 1"), "{hw}");
    assert!(kip101.contains("0:(0,m1) 1:(0,m2) 2:(1,m3)") && kip101.contains("none") && kip101.contains("logs agree"));
    // The narration is the commands a user would type.
    assert!(out.contains("$ klog recover $LAB/a --leader $LAB/b --mode hw"), "{out}");
    assert!(out.contains("DIVERGED (acked, lost from leader)"));
    // A's hw truncation removes the acknowledged m2 (B still has it): never a plain refetch.
    let a_recovery = out.split("$ klog recover $LAB/a --leader $LAB/b --mode hw").nth(1).unwrap();
    let a_recovery = a_recovery.split("\n$ klog ").next().unwrap();
    assert!(a_recovery.contains("truncated, refetchable (acked)") && a_recovery.contains("ACK-CUT"), "{a_recovery}");
    assert!(!a_recovery.contains("refetch "), "{a_recovery}");
}

#[test]
fn the_watch_demo_shows_the_followers_hw_one_round_trip_behind() {
    let out = ok(&["demo", "watch", "--mode", "hw"]);
    let rounds: Vec<&str> = out.lines().filter(|l| l.trim_start().starts_with("round 1: fetch at")).collect();
    // Three single rounds, then B's catch-up after its restart.
    assert_eq!(rounds.len(), 4, "{out}");
    assert!(rounds[0].contains("leader LEO 2 HW 0; follower LEO 2 HW 0"), "{}", rounds[0]);
    assert!(rounds[1].contains("leader LEO 2 HW 2; follower LEO 2 HW 0"), "{}", rounds[1]);
    assert!(rounds[2].contains("leader LEO 2 HW 2; follower LEO 2 HW 2"), "{}", rounds[2]);
}

/// Watch goes on through the failover at the scene's epochs: B (epoch 1) fails with m3 never
/// acknowledged, A takes over at epoch 2 and takes m4, and B restarts as A's follower — trimming
/// to its stale HW under hw, asking A where its epoch 1 ends under kip101 and kip279. Each mode
/// ends with the same logs and no acknowledged loss; the contrast says so.
#[test]
fn the_watch_demo_tells_the_failover_and_the_restart_under_each_mode() {
    let out = ok(&["demo", "watch", "--mode", "all"]);
    for m in ["hw", "kip101", "kip279"] {
        assert!(out.contains(&format!("$ klog recover $LAB/b --leader $LAB/a --mode {m}")), "{m}:\n{out}");
    }
    assert_eq!(out.matches("$ klog elect $LAB/a --epoch 2").count(), 3, "{out}");
    assert_eq!(out.matches("$ klog crash $LAB/b").count(), 3, "{out}");
    let runs: Vec<&str> = out.split("== Watch").skip(1).collect();
    assert_eq!(runs.len(), 3, "{out}");
    assert!(runs[0].contains("the follower truncates to its own high watermark"), "{}", runs[0]);
    for run in &runs[1..] {
        assert!(run.contains("round trip 1:") && run.contains("epoch 1"), "{run}");
    }
    for run in &runs {
        assert!(run.contains("truncation point 2: LEO 3 -> 2"), "{run}");
    }
    let contrast = out.split("what each truncation mode did").nth(1).expect("a contrast table");
    for m in ["hw", "kip101", "kip279"] {
        let row = contrast.lines().find(|l| l.trim_start().starts_with(&format!("{m} ("))).expect("a row");
        assert!(
            row.contains("0:(1,m1) 1:(1,m2) 2:(2,m4)") && row.contains("none") && row.contains("logs agree"),
            "{row}"
        );
    }
}

#[test]
fn the_kip279_demo_contrasts_divergence_under_kip101_with_convergence_under_kip279() {
    let out = ok(&["demo", "kip279", "--mode", "all"]);
    let contrast = out.split("what each truncation mode did").nth(1).unwrap();
    let row = |m: &str| contrast.lines().find(|l| l.trim_start().starts_with(&format!("{m} ("))).unwrap().to_string();
    assert!(row("kip101").contains("11-15:(2,b11..b15)") && row("kip101").contains("at offset 11"));
    assert!(row("kip279").contains("0-20:(1,a0..a20) 21:(3,a21)") && row("kip279").contains("logs agree"));
    assert!(row("hw").contains("logs agree"));
    assert!(out.contains("STUCK"));
}

#[test]
fn demo_in_a_given_dir_keeps_the_replicas_and_refuses_a_non_empty_dir() {
    let lab = Lab::new();
    let dir = lab.path("demo");
    ok(&["demo", "kip101-2", "--mode", "kip279", "--dir", s(&dir)]);
    let a = records(&dir.join("kip279/a"));
    assert_eq!(a, vec![(0, 0, "m1".into()), (1, 1, "m3".into())]);
    code(&["demo", "--dir", s(&dir)], 2);
    code(&["demo", "nope"], 2);
}

fn run_script(name: &str, lab: &Path, modes: &str) {
    let klog = assert_cmd::cargo::cargo_bin("klog");
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("demos").join(name);
    let out = std::process::Command::new("bash")
        .arg(&script)
        .env("KLOG", &klog)
        .env("LAB", lab)
        .env("MODES", modes)
        .env("NO_COLOR", "1")
        .output()
        .expect("bash");
    assert!(
        out.status.success(),
        "{name}: {}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    let text = std::fs::read_to_string(&script).unwrap();
    assert!(text.contains("set -euo pipefail"), "{name} runs under set -euo pipefail");
}

#[test]
fn every_demo_script_runs_and_ends_in_the_stated_state() {
    let lab = Lab::new();
    let l = |n: &str| lab.path(n);
    run_script("watch.sh", &l("watch"), "hw kip101 kip279");
    let m = |s: &str| s.to_string();
    for mode in ["hw", "kip101", "kip279"] {
        let both = vec![(0, 1, m("m1")), (1, 1, m("m2")), (2, 2, m("m4"))];
        assert_eq!(records(&l("watch").join(mode).join("a")), both, "{mode}");
        assert_eq!(records(&l("watch").join(mode).join("b")), both, "{mode}");
        let b = replica(&l("watch").join(mode).join("b"));
        assert_eq!((b["log_end_offset"].as_i64(), b["high_watermark"].as_i64()), (Some(3), Some(3)), "{mode}");
    }

    run_script("kip101-1.sh", &l("s1"), "hw kip101 kip279");
    assert_eq!(records(&l("s1").join("hw/a")), vec![(0, 0, m("m1")), (1, 1, m("m3"))]);
    assert_eq!(records(&l("s1").join("hw/b")), vec![(0, 0, m("m1")), (1, 0, m("m2"))]);
    for mode in ["kip101", "kip279"] {
        let both = vec![(0, 0, m("m1")), (1, 0, m("m2")), (2, 1, m("m3"))];
        assert_eq!(records(&l("s1").join(mode).join("a")), both);
        assert_eq!(records(&l("s1").join(mode).join("b")), both);
    }

    run_script("kip101-2.sh", &l("s2"), "hw kip101 kip279");
    assert_eq!(records(&l("s2").join("hw/a")), vec![(0, 0, m("m1")), (1, 0, m("m2"))]);
    assert_eq!(records(&l("s2").join("hw/b")), vec![(0, 0, m("m1")), (1, 1, m("m3"))]);
    for mode in ["kip101", "kip279"] {
        assert_eq!(records(&l("s2").join(mode).join("a")), vec![(0, 0, m("m1")), (1, 1, m("m3"))]);
    }

    run_script("kip279.sh", &l("s3"), "hw kip101 kip279");
    let b101 = records(&l("s3").join("kip101/b"));
    assert_eq!(b101.len(), 16);
    assert!(b101[11..].iter().all(|r| r.1 == 2 && r.2.starts_with('b')));
    for mode in ["hw", "kip279"] {
        let b = records(&l("s3").join(mode).join("b"));
        assert_eq!(b, records(&l("s3").join(mode).join("a")));
        assert_eq!(b.len(), 22);
    }
}

/// The terminal demo at 80 columns, every scenario under every mode (with the code panels):
/// no line is wider, no fate is elided and no phrase is cut — the only `…` are the picture's
/// elision marks, standing alone — and every fate under a picture is a whole word.
#[test]
fn the_terminal_demo_at_80_columns_elides_no_fate_and_cuts_no_phrase_in_any_scenario() {
    let fates = ["kept", "refetch", "lost", "ACK-LOST", "DIVERGED", "ACK-CUT"];
    for sc in ["watch", "kip101-1", "kip101-2", "kip279"] {
        for explain in [false, true] {
            let mut cmd = klog();
            cmd.env("COLUMNS", "80").env("NO_COLOR", "1").args(["demo", sc, "--mode", "all"]);
            if explain {
                cmd.arg("--explain");
            }
            let out = String::from_utf8(cmd.assert().success().get_output().stdout.clone()).unwrap();
            assert!(out.contains("what each truncation mode did"), "{sc}: {out}");
            for line in out.lines() {
                assert!(line.chars().count() <= 80, "{sc}: wider than 80 columns:\n{line}");
                let chars: Vec<char> = line.chars().collect();
                for (i, c) in chars.iter().enumerate() {
                    if *c == '…' {
                        let alone = (i == 0 || chars[i - 1] == ' ') && chars.get(i + 1).is_none_or(|n| *n == ' ');
                        assert!(alone, "{sc}: a cut phrase or value:\n{line}");
                    }
                }
                if line.trim_start().starts_with("fate ") {
                    for word in line.split_whitespace().skip(1) {
                        assert!(fates.contains(&word), "{sc}: fate {word:?} is not whole:\n{line}");
                    }
                }
            }
            // The recovery tables' fates are whole too.
            for phrase in ["truncated, refetchable", "DIVERGED (acked, lost from leader)", "truncated, lost"] {
                for line in out.lines().filter(|l| l.contains(&phrase[..8])) {
                    assert!(!line.contains('…'), "{sc}: {line}");
                }
            }
        }
    }
}
