//! `klog demo` and the shell demos in `demos/`, checked on their real output and final state.

use crate::common::*;
use std::path::Path;

#[test]
fn the_default_demo_shows_m2_acked_and_lost_under_hw_and_kept_under_kip101() {
    let out = ok(&["--width", "0", "demo"]);
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
    // Fetches 1 and 2 are one round each: shown without a "round 1:" under "# Fetch 2".
    let fetches: Vec<&str> = out.lines().filter(|l| l.trim_start().starts_with("fetch at")).collect();
    assert_eq!(fetches.len(), 2, "{out}");
    assert!(fetches[0].contains("fetch at 0: copied 1 batch(es), 2 record(s)"), "{}", fetches[0]);
    assert!(fetches[0].contains("leader LEO 2 HW 0; follower LEO 2 HW 0"), "{}", fetches[0]);
    assert!(fetches[1].contains("leader LEO 2 HW 2; follower LEO 2 HW 0"), "{}", fetches[1]);
    let before_crash = out.split("$ klog crash $LAB/a").next().unwrap();
    assert!(!before_crash.contains("round 1:"), "{before_crash}");
    assert!(before_crash.contains("# Fetch 2: A fetches from offset 2."), "{before_crash}");
    // One clock: "one round trip", never "two fetches".
    assert!(!out.contains("two fetches") && out.contains("one round trip"), "{out}");
}

/// The scene's bug (#30): A crashes while its HW lags (0, while B's is 2 with m1 and m2
/// acknowledged) and restarts as B's follower; B fails and A leads at epoch 2. Under hw A cuts
/// m1 and m2 at its own HW (ACK-CUT), and once B is gone they are lost (ACK-LOST); under kip101
/// and kip279 A asks B where epoch 1 ends and keeps them. The contrast says so.
#[test]
fn the_watch_demo_ends_in_the_seeds_loss_under_hw_and_keeps_m1_m2_under_the_epoch_eras() {
    let out = ok(&["--width", "0", "demo", "watch", "--mode", "all"]);
    for m in ["hw", "kip101", "kip279"] {
        assert!(out.contains(&format!("$ klog recover $LAB/a --leader $LAB/b --mode {m}")), "{m}:\n{out}");
        assert!(out.contains(&format!("$ klog recover $LAB/b --leader $LAB/a --mode {m}")), "{m}:\n{out}");
    }
    // The stale HW at restart is shown as the command that leaves it.
    assert_eq!(out.matches("$ klog crash $LAB/a --hw 0").count(), 3, "{out}");
    assert_eq!(out.matches("$ klog elect $LAB/a --epoch 2").count(), 3, "{out}");
    let runs: Vec<&str> = out.split("\n== Watch").skip(1).collect();
    assert_eq!(runs.len(), 3, "{out}");
    let step = |run: &str, cmd: &str| -> String {
        let after = run.split(cmd).nth(1).unwrap_or_else(|| panic!("{cmd} in {run}"));
        after.split("\n$ klog ").next().unwrap().to_string()
    };
    // hw: A's restart cuts the acknowledged m1 and m2 (B still holds them) ...
    let a_hw = step(runs[0], "$ klog recover $LAB/a --leader $LAB/b --mode hw");
    assert!(a_hw.contains("truncation point 0: LEO 2 -> 0"), "{a_hw}");
    assert_eq!(a_hw.matches("truncated, refetchable (acked)").count(), 2, "{a_hw}");
    assert!(a_hw.contains("ACK-CUT  ACK-CUT"), "{a_hw}");
    // ... and the election of A, which does not hold them, loses them.
    let elect_hw = step(runs[0], "$ klog elect $LAB/a --epoch 2");
    assert!(elect_hw.contains("ACK-LOST ACK-LOST"), "{elect_hw}");
    assert!(elect_hw.contains("m1 (offset 0, epoch 1) on b was acknowledged, and the leader does not"), "{elect_hw}");
    for run in &runs[1..] {
        let a = run.split("$ klog recover $LAB/a").nth(1).unwrap().split("\n$ klog ").next().unwrap();
        assert!(a.contains("truncation point 2: LEO 2 -> 2, HW 0 -> 0, nothing removed"), "{a}");
        assert!(!run.contains("ACK-CUT") && !run.contains("ACK-LOST"), "{run}");
    }
    let contrast = out.split("what each truncation mode did").nth(1).expect("a contrast table");
    let row = |m: &str| contrast.lines().find(|l| l.trim_start().starts_with(&format!("{m} ("))).expect("a row");
    assert!(row("hw").contains("0:(2,m4)") && row("hw").contains("m1 (offset 0), m2 (offset 1)"), "{contrast}");
    for m in ["kip101", "kip279"] {
        assert!(row(m).contains("0:(1,m1)") && row(m).contains("none") && row(m).contains("logs agree"), "{contrast}");
    }
    assert!(contrast.contains("hw lost the acknowledged m1 and m2; kip101 and kip279 lost no acknowledged write"));
    // The replica dirs agree with the contrast.
    let lab = Lab::new();
    let dir = lab.path("w");
    ok(&["--width", "0", "demo", "watch", "--mode", "all", "--dir", s(&dir)]);
    let m = |v: &str| v.to_string();
    assert_eq!(records(&dir.join("hw/a")), vec![(0, 2, m("m4"))]);
    assert_eq!(records(&dir.join("hw/b")), vec![(0, 2, m("m4"))]);
    for mode in ["kip101", "kip279"] {
        let both = vec![(0, 1, m("m1")), (1, 1, m("m2")), (2, 2, m("m4"))];
        assert_eq!(records(&dir.join(mode).join("a")), both, "{mode}");
        assert_eq!(records(&dir.join(mode).join("b")), both, "{mode}");
    }
}

/// The seed's first question, and each era's own cause in the reasons: hw cuts at A's own HW
/// (never "lagged the leader's"); kip101 and kip279 cite the epoch lookup and say the HW plays
/// no part.
#[test]
fn watch_predict_asks_the_seeds_first_question_and_each_era_gives_its_own_cause() {
    let out = klog().args(["demo", "watch", "--mode", "all", "--predict"]).write_stdin("0\n").assert().success();
    let out = String::from_utf8(out.get_output().stdout.clone()).unwrap();
    assert!(
        out.contains("predict: 1. A fetches from B (1 round): what will A's HW be after it? 0\n  1. right: 0\n     why: A copied 2 record(s) (its LEO is 2), but B's HW is still 0"),
        "{out}"
    );
    assert!(!out.contains("lagged") && !out.contains("by a fetch round trip"), "{out}");
    let runs: Vec<&str> = out.split("\n== Watch").skip(1).collect();
    assert!(runs[0].contains("why: hw: A truncates to its own HW, 0, from its HW checkpoint (B's is 2"));
    assert!(runs[0].contains("why: m1 is at or above A's own HW 0, and A cuts its log at that HW: it is truncated"));
    assert!(runs[0].contains("why: m1 (offset 0), m2 (offset 1) were acknowledged and the leader A does not hold them"));
    for run in &runs[1..] {
        assert!(run.contains("A's own HW (0) plays no part"), "{run}");
        assert!(
            run.contains("why: A does not cut at its HW: B's answer puts the cut at 2, so m1 (offset 0) is kept"),
            "{run}"
        );
        assert!(!run.contains("at or above A's own HW"), "{run}");
    }
    // kip279's scenario under kip101 keeps b11 where A holds a11: named as what KIP-279 fixed.
    let k = klog().args(["demo", "kip279", "--mode", "kip101", "--predict"]).write_stdin("").assert().success();
    let k = String::from_utf8(k.get_output().stdout.clone()).unwrap();
    assert!(
        k.contains("but A holds a11 (epoch 1) at offset 11: the logs diverge there, the divergence KIP-279 fixed"),
        "{k}"
    );
}

/// One reveal per question: a step's questions are all asked before any truth or why of them is
/// shown (the truth of "where will A's log end" tells whether m1 survives), and the score
/// counts every answer; the election after the restart asks whether the new leader holds every
/// acknowledged record.
#[test]
fn predict_asks_every_question_of_a_step_before_revealing_any() {
    let out = klog()
        .args(["demo", "watch", "--mode", "hw", "--predict"])
        .write_stdin("0\n0\n0\nno\nno\nno\n")
        .assert()
        .success();
    let out = String::from_utf8(out.get_output().stdout.clone()).unwrap();
    let at = |needle: &str| out.find(needle).unwrap_or_else(|| panic!("{needle:?} not in {out}"));
    let recover = at("predict: 1. A restarts as a follower of B under hw");
    let second = at("predict: 2. will m1 (offset 0) survive on A? [y/n]");
    let third = at("predict: 3. once A has restarted, has this run lost an acknowledged write? [y/n]");
    let first_why = at("why: hw: A truncates to its own HW, 0");
    assert!(recover < second && second < third && third < first_why, "{out}");
    assert!(!out[recover..third].contains("the truth") && !out[recover..third].contains("right:"), "{out}");
    let elect = at("predict: 1. A is elected leader at epoch 2: will its log hold every acknowledged record? [y/n]");
    assert!(out[elect..].contains("why: m1 (offset 0), m2 (offset 1) were acknowledged"), "{out}");
    assert!(out.contains("you predicted "), "{out}");
}

/// Pictures say one thing per record: no cut is drawn where nothing is cut, and an acknowledged
/// record the new leader does not hold is ACK-LOST in the recovery picture as in the next one.
#[test]
fn watch_pictures_draw_no_cut_where_nothing_is_cut_and_one_fate_per_record() {
    let out = ok(&["demo", "watch", "--mode", "all"]);
    let runs: Vec<&str> = out.split("\n== Watch").skip(1).collect();
    for run in &runs[1..] {
        // Both restarts under kip101 and kip279 remove nothing.
        for cmd in ["$ klog recover $LAB/a", "$ klog recover $LAB/b"] {
            let rec = run.split(cmd).nth(1).unwrap().split("\n$ klog ").next().unwrap();
            assert!(rec.contains("nothing removed") && !rec.contains('✂'), "{rec}");
        }
    }
    let b_hw = runs[0].split("$ klog recover $LAB/b").nth(1).unwrap().split("\n$ klog ").next().unwrap();
    let fates: Vec<&str> = b_hw.lines().filter(|l| l.trim_start().starts_with("fate ")).collect();
    assert_eq!(fates.len(), 2, "the recovery picture and the state after: {b_hw}");
    for f in fates {
        assert!(f.contains("ACK-LOST ACK-LOST") && !f.contains("DIVERGED"), "{b_hw}");
    }
    // hw runs say the epochs they draw are not the era's.
    assert_eq!(out.matches("drawn for comparison; this era had neither and ignores them").count(), 1, "{out}");
}

/// `--explain` at 80 columns: no value wraps under the code (it moves whole to its own line),
/// and a round that repeats the one before is one line, not a third identical panel.
#[test]
fn explain_values_never_wrap_at_80_columns_and_repeated_rounds_are_one_line() {
    for sc in ["watch", "kip101-1", "kip101-2", "kip279"] {
        let run = |cols: &str| {
            let mut cmd = klog();
            cmd.env("COLUMNS", cols).env("NO_COLOR", "1").args(["demo", sc, "--mode", "all", "--explain"]);
            String::from_utf8(cmd.assert().success().get_output().stdout.clone()).unwrap()
        };
        let values = |out: &str| -> Vec<String> {
            out.lines().filter_map(|l| l.split_once("◀ ").map(|(_, v)| v.trim().to_string())).collect()
        };
        let (narrow, wide) = (run("80"), run("300"));
        assert_eq!(values(&narrow), values(&wide), "{sc}: a value wraps at 80 columns:\n{narrow}");
        if sc == "watch" {
            assert!(narrow.contains("explain: fetch round 3: the same lines and values as round 2"), "{narrow}");
        }
    }
}

#[test]
fn the_kip279_demo_contrasts_divergence_under_kip101_with_convergence_under_kip279() {
    let out = ok(&["--width", "0", "demo", "kip279", "--mode", "all"]);
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

/// Run a demo script; each mode's run ends with `klog draw` of the two replicas.
fn run_script(name: &str, lab: &Path, modes: &str) -> String {
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
    let stdout = String::from_utf8_lossy(&out.stdout);
    for mode in modes.split_whitespace() {
        let run = stdout.split(&format!("truncation mode: {mode} ")).nth(1).unwrap_or_else(|| panic!("{stdout}"));
        let last = run.split("\n$ klog ").last().unwrap();
        assert!(last.starts_with("draw ") && last.contains("offset ") && last.contains("cache "), "{name}: {last}");
    }
    stdout.into_owned()
}

/// Run a demo script that has no truncation modes; its stdout.
fn run_script_plain(name: &str, lab: &Path) -> String {
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("demos").join(name);
    let out = std::process::Command::new("bash")
        .arg(&script)
        .env("KLOG", assert_cmd::cargo::cargo_bin("klog"))
        .env("LAB", lab)
        .env("NO_COLOR", "1")
        .output()
        .expect("bash");
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(out.status.success(), "{name}: {stdout}{}", String::from_utf8_lossy(&out.stderr));
    assert!(std::fs::read_to_string(&script).unwrap().contains("set -euo pipefail"), "{name}");
    stdout
}

#[test]
fn every_demo_script_runs_and_ends_in_the_stated_state() {
    let lab = Lab::new();
    let l = |n: &str| lab.path(n);
    run_script("watch.sh", &l("watch"), "hw kip101 kip279");
    let m = |s: &str| s.to_string();
    // hw: A cut m1 m2 at its stale HW 0, then led without them: lost on both.
    for r in ["a", "b"] {
        assert_eq!(records(&l("watch").join("hw").join(r)), vec![(0, 2, m("m4"))], "{r}");
    }
    for mode in ["kip101", "kip279"] {
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

    // stuck-lso has no truncation modes: it ends with `klog txn`, LSO back at the HW, both
    // transactions aborted (the second from the abort line klog txn printed).
    let out = run_script_plain("stuck-lso.sh", &l("lso"));
    let last = out.split("\n$ klog ").last().unwrap();
    assert!(last.starts_with("txn ") && last.contains("LSO 12  HW 12"), "{last}");
    let joined = out.replace("\n    ", " ");
    assert!(
        joined.contains("# kafka-transactions.sh abort --start-offset 8: producer 2000 epoch 0, coordinator epoch 0")
    );
    let json: serde_json::Value =
        serde_json::from_str(&ok(&["txn", s(&l("lso").join("stuck-lso/a")), "--json"])).unwrap();
    assert_eq!(json["aborted"].as_array().unwrap().len(), 2, "{json}");
    assert!(json["open"].as_array().unwrap().is_empty(), "{json}");

    // tiers has no truncation modes: A rebuilt from remote storage holds only m4 locally, then
    // leads at epoch 2 with n1; klog remote finds the segment 4..4 served by no broker.
    let out = run_script_plain("tiers.sh", &l("tiers"));
    assert!(out.replace("\n    ", " ").contains("deletes its whole log and starts at 3, log start 0"), "{out}");
    assert!(out.contains("1 finished remote segment(s) no broker here would serve"), "{out}");
    assert!(out.split("\n$ klog ").last().unwrap().starts_with("draw "), "{out}");
    assert_eq!(records(&l("tiers").join("tiers/a/demo-0")), vec![(3, 1, m("m4")), (4, 2, m("n1"))]);
    assert_eq!(records(&l("tiers").join("tiers/b/demo-0")), vec![(3, 1, m("m4"))]);

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

/// The demo scripts fit 80 columns, their source and what they print (each step as typed, its
/// output laid out to 80 columns, the narration wrapped), and the Watch script tells the story
/// the terminal Watch tells: its narration lines are the demo's own, each era its own.
#[test]
fn the_demo_scripts_fit_80_columns_and_the_watch_script_narrates_as_the_terminal_watch() {
    let lab = Lab::new();
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("demos");
    for name in ["watch.sh", "kip101-1.sh", "kip101-2.sh", "kip279.sh", "stuck-lso.sh", "tiers.sh", "common.sh"] {
        let source = std::fs::read_to_string(root.join(name)).unwrap();
        for line in source.lines() {
            assert!(line.chars().count() <= 80, "{name}: wider than 80 columns:\n{line}");
        }
    }
    let mut outputs = vec![("watch.sh", run_script("watch.sh", &lab.path("w"), "hw kip101 kip279"))];
    for name in ["kip101-1.sh", "kip101-2.sh", "kip279.sh"] {
        outputs.push((name, run_script(name, &lab.path(name), "hw kip279")));
    }
    outputs.push(("stuck-lso.sh", run_script_plain("stuck-lso.sh", &lab.path("lso"))));
    outputs.push(("tiers.sh", run_script_plain("tiers.sh", &lab.path("tiers"))));
    for (name, out) in &outputs {
        for line in out.lines() {
            assert!(line.chars().count() <= 80, "{name} prints wider than 80 columns:\n{line}");
        }
    }
    let unwrap = |text: &str| text.replace("\n    ", " ");
    let script = unwrap(&outputs[0].1);
    let demo = ok(&["demo", "watch", "--mode", "all", "--color", "never", "--width", "0"]);
    let said: Vec<&str> = demo.lines().filter(|l| l.starts_with("# ")).collect();
    assert!(said.len() > 20, "{demo}");
    for line in said {
        assert!(script.contains(line), "the script does not say {line:?}");
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

/// The report blocks of a demo's output, by the command that printed them: (command, its
/// lines until the next command).
fn blocks(out: &str) -> Vec<(String, String)> {
    out.split("\n$ ")
        .skip(1)
        .map(|b| {
            let (cmd, rest) = b.split_once('\n').unwrap_or((b, ""));
            (cmd.to_string(), rest.to_string())
        })
        .collect()
}

/// `LSO x  HW y` from a `klog txn` report.
fn lso_hw(report: &str) -> (i64, i64) {
    let line = report.lines().find(|l| l.trim_start().starts_with("LSO ")).expect(report);
    let words: Vec<&str> = line.split_whitespace().collect();
    (words[1].parse().unwrap(), words[3].trim_end_matches(':').parse().unwrap())
}

/// stuck-lso: the LSO stays at the open transaction's first offset while the HW moves on; the
/// coordinator's ABORT (with its coordinator epoch) moves it to the HW only once the HW passes
/// the marker; the hanging transaction holds it until the admin abort, whose marker carries the
/// producer's epoch and coordinator epoch 0. Every LSO and held-back count the questions give
/// as truth is the one the `klog txn` report under them prints.
#[test]
fn the_stuck_lso_demo_holds_the_lso_at_each_open_transaction_until_its_abort() {
    let lab = Lab::new();
    let dir = lab.path("lso");
    let mut cmd = klog();
    cmd.env("NO_COLOR", "1").args(["demo", "stuck-lso", "--predict", "--dir", s(&dir)]).write_stdin("");
    let out = String::from_utf8(cmd.assert().success().get_output().stdout.clone()).unwrap();
    let txns: Vec<(String, String)> = blocks(&out).into_iter().filter(|(c, _)| c.starts_with("klog txn ")).collect();
    let seen: Vec<(i64, i64)> = txns.iter().map(|(_, r)| lso_hw(r)).collect();
    assert_eq!(seen, vec![(2, 7), (2, 7), (8, 8), (8, 11), (8, 11), (12, 12)], "{out}");
    let mut asked = 0;
    for (_, report) in &txns {
        let (lso, hw) = lso_hw(report);
        let truths: Vec<&str> =
            report.lines().filter_map(|l| l.split_once(". (no answer) the truth: ").map(|(_, t)| t)).collect();
        let expected = if lso < hw { vec![lso.to_string(), (hw - lso).to_string()] } else { vec![lso.to_string()] };
        assert_eq!(truths, expected, "{report}");
        assert!(report.contains(&format!("predict: 1. A's HW is {hw}: what is A's last stable offset (LSO)?")));
        asked += truths.len();
    }
    assert_eq!(asked, 10, "only the LSO questions are asked in this scene: {out}");
    assert!(!out.contains("what will B's HW be"), "{out}");
    // The open transaction's records are marked in the picture, and the LSO only after `klog txn`.
    let first = &txns[0].1;
    assert!(first.contains("OPEN     OPEN") && first.contains("↑LSO"), "{first}");
    let fetch = blocks(&out).into_iter().find(|(c, _)| c.starts_with("klog fetch")).unwrap().1;
    assert!(!fetch.contains("LSO"), "{fetch}");
    // The admin abort: the kafka-transactions.sh line, resolved as the tool does.
    assert!(
        out.contains(
            "kafka-transactions.sh --bootstrap-server HOST:9092 abort --topic demo --partition 0 --start-offset 8 — \
             DescribeProducers finds producer 2000 at epoch 0"
        ),
        "{out}"
    );
    assert!(
        out.contains(
            "$ klog append $LAB/a --timestamp 66000 --producer-id 2000 --producer-epoch 0 --end-txn abort \
                      --coordinator-epoch 0"
        ),
        "{out}"
    );
    // What the lab holds: both transactions aborted and indexed, each marker's coordinator
    // epoch in the producer table, the LSO at the HW.
    let json: serde_json::Value = serde_json::from_str(&ok(&["txn", s(&dir.join("run/a")), "--json"])).unwrap();
    assert_eq!((json["last_stable_offset"].as_i64(), json["high_watermark"].as_i64()), (Some(12), Some(12)));
    let aborted: Vec<(i64, i64, i64)> = json["aborted"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| {
            (
                a["producer_id"].as_i64().unwrap(),
                a["first_offset"].as_i64().unwrap(),
                a["last_offset"].as_i64().unwrap(),
            )
        })
        .collect();
    assert_eq!(aborted, vec![(1000, 2, 7), (2000, 8, 11)]);
    let producers: Vec<(i64, i64, i64)> = json["producers"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| {
            (
                p["producer_id"].as_i64().unwrap(),
                p["producer_epoch"].as_i64().unwrap(),
                p["coordinator_epoch"].as_i64().unwrap(),
            )
        })
        .collect();
    assert_eq!(producers, vec![(1000, 1, 3), (2000, 0, 0)]);
    // B has the same log, and its own LSO at its HW 11: the second marker is not below it yet.
    let b: serde_json::Value = serde_json::from_str(&ok(&["txn", s(&dir.join("run/b")), "--json"])).unwrap();
    assert_eq!((b["last_stable_offset"].as_i64(), b["high_watermark"].as_i64()), (Some(8), Some(11)));
    assert_eq!(records(&dir.join("run/a")), records(&dir.join("run/b")));
    // `--plain`: one line a replica, the LSO beside the HW after each `klog txn`, a marker named.
    let plain = ok(&["demo", "stuck-lso", "--plain"]);
    assert!(plain.contains("a leader   LEO 12  HW 12  LSO 12  | 0-11:(1,o1..ABORT)"), "{plain}");
    assert!(plain.contains("b follower LEO 12  HW 11  LSO 8   | 0-11:(1,o1..ABORT)"), "{plain}");
    assert!(!plain.contains("\\u{0}"), "{plain}");
    // It has no truncation step: --mode is refused, naming why.
    let (_, err) = code(&["demo", "stuck-lso", "--mode", "hw"], 2);
    assert!(err.contains("no truncation step"), "{err}");
}

/// stuck-lso at 80 columns: no line is wider, and every word of a picture's `txn` line is a
/// whole label.
#[test]
fn the_stuck_lso_demo_fits_80_columns_with_whole_transaction_labels() {
    let mut cmd = klog();
    cmd.env("COLUMNS", "80").env("NO_COLOR", "1").args(["demo", "stuck-lso", "--explain"]);
    let out = String::from_utf8(cmd.assert().success().get_output().stdout.clone()).unwrap();
    let mut labelled = 0;
    for line in out.lines() {
        assert!(line.chars().count() <= 80, "wider than 80 columns:\n{line}");
        if let Some(rest) = line.trim_start().strip_prefix("txn ") {
            for word in rest.split_whitespace() {
                assert!(["OPEN", "aborted", "committd", "marker"].contains(&word), "{word:?}:\n{line}");
                labelled += 1;
            }
        }
    }
    assert!(labelled > 20, "{out}");
}

/// tiers: A restarts below B's local log start and rebuilds from remote storage (asked first:
/// where it fetches from, whether its m1 stays on its disk); the unclean election leaves B's
/// remote segment of epoch 1 past A's end served by no one (asked first: does a consumer get
/// m5 and m6?). The end state is read back by `klog remote` itself; the text fits 80 columns,
/// and every fate under a picture is a whole word.
#[test]
fn the_tiers_demo_rebuilds_a_from_remote_storage_and_ends_with_a_segment_no_leader_serves() {
    let lab = Lab::new();
    let dir = lab.path("tiers");
    let mut cmd = klog();
    cmd.env("NO_COLOR", "1").env("COLUMNS", "80").args(["demo", "tiers", "--predict", "--explain", "--keep"]);
    cmd.args(["--dir", s(&dir)]).write_stdin("3\nn\nn\n4\ny\n");
    let out = String::from_utf8(cmd.assert().success().get_output().stdout.clone()).unwrap();
    assert!(out.contains("you predicted 5 of 5"), "{out}");
    // Every question of a step comes before anything the step printed.
    let restart =
        out.find("predict: 1. A's log ends at 2; B's local log now starts at 3").expect("the restart question");
    assert!(out.find("OFFSET_MOVED_TO_TIERED_STORAGE").unwrap() > restart, "{out}");
    assert!(out.contains("predict: 2. will A keep m1 (offset 0) on its own disk? [y/n]"), "{out}");
    let election = out.find("predict: 1. A is elected at epoch 2. Will a consumer").expect("the election question");
    assert!(out.contains("offset get m5, m6 (acknowledged past A's log end 4)? [y/n]"), "{out}");
    assert!(out.find("is leader at epoch 2").unwrap() > election, "{out}");
    // The code panel of the restart: the aux-state steps with the values they saw.
    for want in ["(local, e) = leader.list_offsets(EARLIEST_LOCAL)", "◀ local = 3, e = 1", "◀ start = 3, log start 0"]
    {
        assert!(out.contains(want), "{want}\n{out}");
    }
    assert!(out.contains("epoch_cache = seg.leader_epoch_checkpoint"), "{out}");
    // The last step says what is lost and what remote files still hold.
    let last = out.rsplit("$ klog remote $LAB/a $LAB/b --remote-dir $LAB/remote").next().unwrap();
    assert!(last.contains("served by none: segment 4..4; salvage: 1 record(s)"), "{last}");
    assert!(last.contains("still in remote files: m5 (offset 4, epoch 1)"), "{last}");
    assert!(last.contains("in no file of either tier: m6 (offset 5, epoch 1)"), "{last}");
    let remote_row = last.lines().find(|l| l.trim_start().starts_with("remote tier")).expect("the remote row");
    assert!(remote_row.contains("e1 m1") && remote_row.contains("e1 m5"), "{remote_row}");
    let fates = ["kept", "refetch", "lost", "ACK-LOST", "DIVERGED", "ACK-CUT", "UNSERVED", "remote"];
    for line in out.lines() {
        assert!(line.chars().count() <= 80, "wider than 80 columns:\n{line}");
        if line.trim_start().starts_with("fate ") {
            for word in line.split_whitespace().skip(1) {
                assert!(fates.contains(&word), "fate {word:?} is not whole:\n{line}");
            }
        }
    }
    assert!(out.contains("fate          remote   remote"), "A's m1 m2 are served from remote, not lost: {out}");
    // klog remote on the kept dirs agrees: segment 4..4 is served by no broker, salvageable.
    let run = dir.join("run");
    let (a, b, remote) = (run.join("a"), run.join("b"), run.join("remote"));
    let text = ok(&["remote", s(&a), s(&b), "--remote-dir", s(&remote)]);
    assert!(text.contains("1 finished remote segment(s) no broker here would serve"), "{text}");
    assert!(text.contains("(4..4): 1 record(s), offsets 4..4 still in its remote .log"), "{text}");
    assert!(text.contains("no findings"), "{text}");
}
