//! `klog explore --tiered`: the explorer finds, by itself, a history of the shape real Kafka 4.4
//! brokers showed (tests/real-walks/4.4.0-tiered-below-local-start.json): a leader copies and
//! deletes locally, another replica is elected uncleanly, the first truncates below its local
//! log start and, leading again, serves an acknowledged record the unclean leader held from
//! neither tier. Its script replays on tiered labs and `klog remote` shows the loss.

use crate::common::{code, klog};

#[test]
fn explore_tiered_finds_an_acked_record_served_by_no_broker_and_its_script_replays_with_klog() {
    let dir = tempfile::tempdir().unwrap();
    let script = dir.path().join("tiered.sh");
    let out = klog()
        .args(["explore", "--tiered", "--unclean", "--no-timing", "--script"])
        .arg(&script)
        .output()
        .expect("klog runs");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "a violation is found:\n{stdout}");
    assert!(stdout.contains("ACKED LOSS in 14 actions"), "{stdout}");
    assert!(stdout.contains("serves no record at offset 0 from either tier"), "{stdout}");
    for step in ["klog tier copy $LAB/a", "klog tier retain $LAB/a --local-retention-bytes 1"] {
        assert!(stdout.contains(step), "{step}: {stdout}");
    }
    assert!(stdout.contains("# log start/local log start: a 1/1, b 0/0"), "a truncated below it: {stdout}");

    let bin = assert_cmd::cargo::cargo_bin("klog");
    let path = format!("{}:{}", bin.parent().unwrap().display(), std::env::var("PATH").unwrap_or_default());
    let ran = std::process::Command::new("bash").arg(&script).env("PATH", &path).env("NO_COLOR", "1").output().unwrap();
    let (stdout, stderr) = (String::from_utf8_lossy(&ran.stdout), String::from_utf8_lossy(&ran.stderr));
    assert!(ran.status.success(), "the script replays:\n{stderr}");
    assert!(stderr.contains("$ klog tier copy $LAB/a") && stderr.contains("$ klog remote $LAB/a $LAB/b"), "{stderr}");
    // a copied m1 and m2 and deleted them locally; b, elected uncleanly, held m1; a truncated to
    // 1, below its local log start; leading again (b crashed), a deletes both remote segments
    // and serves from 1: m1, acked at offset 0, is served by no live broker from either tier.
    assert!(stdout.contains("2 remote segment(s), offsets 0..1"), "{stdout}");
    assert!(stdout.contains("local log start 1 (first local segment)"), "{stdout}");
    assert!(
        stdout.contains(
            "if broker 1 leads, Kafka deletes 2 segment(s), offsets 0..1 (2 by leader-epoch-cache truncation); \
             earliest offset after: 1"
        ),
        "{stdout}"
    );
    // Only b's disk, crashed, still holds m1 (the kept case's broker 2, killed).
    assert!(stdout.contains("broker 2: epoch cache 0@0 1@1; log start 0, local log start 0, log end 1"), "{stdout}");
}

#[test]
fn explore_tiered_refuses_releases_without_kafka_4_4s_tiered_rules_in_one_line() {
    for (release, why) in [("3.5.2", "has no tiered storage"), ("3.9.1", "models Kafka 4.4's tiered rules")] {
        let (_, stderr) = code(&["explore", "--tiered", "--kafka", release], 2);
        assert!(stderr.contains(why), "{release}: {stderr}");
        assert_eq!(stderr.trim_end().lines().count(), 1, "{stderr}");
    }
    let (_, stderr) = code(&["explore", "--tiered", "--power-loss"], 2);
    assert!(stderr.contains("--power-loss with --tiered"), "{stderr}");
}
