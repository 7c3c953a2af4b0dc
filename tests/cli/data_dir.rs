//! Whole broker data dirs: `create --partitions`, and `check`, `diff` and `recover --dry-run`
//! over every partition at once, each answer the same as the per-partition runs.

use crate::common::*;

/// Two brokers `l` and `f` holding partitions t-0..t-(n-1), replicated from `l`; then partitions
/// 5..=9 fail over to `f` (epoch 1, where `f` takes `y` that `l` never fetches) and back to `l`
/// (epoch 2, `z`), and `l` takes an unreplicated `m3` in partitions 0..=4.
fn two_brokers(lab: &Lab, n: usize) -> (std::path::PathBuf, std::path::PathBuf) {
    let (l, f) = (lab.path("l"), lab.path("f"));
    let count = n.to_string();
    ok(&["create", s(&l), "--topic", "t", "--partitions", &count, "--replica-id", "1"]);
    ok(&["create", s(&f), "--topic", "t", "--partitions", &count, "--replica-id", "2"]);
    for p in 0..n {
        let name = format!("t-{p}");
        ok(&["elect", s(&l), "--partition", &name, "--isr", s(&f)]);
        ok(&["append", s(&l), "--partition", &name, "m1", "m2", "--timestamp", "1000"]);
        ok(&["fetch", "--leader", s(&l), s(&f), "--partition", &name, "--rounds", "3"]);
    }
    for p in 0..5 {
        ok(&["append", s(&l), "--partition", &format!("t-{p}"), "m3", "--timestamp", "2000"]);
    }
    for p in 5..10 {
        let name = format!("t-{p}");
        ok(&["elect", s(&f), "--partition", &name, "--epoch", "1", "--isr", s(&l)]);
        ok(&["append", s(&f), "--partition", &name, "y", "--timestamp", "3000"]);
        ok(&["elect", s(&l), "--partition", &name, "--epoch", "2", "--isr", s(&f)]);
        ok(&["append", s(&l), "--partition", &name, "z", "--timestamp", "4000"]);
    }
    (l, f)
}

fn plans_by_partition(json: &str) -> Vec<serde_json::Value> {
    json_lines(json).into_iter().filter(|v| v["type"] == "recover").collect()
}

#[test]
fn a_restart_plan_over_two_data_dirs_matches_the_per_partition_runs() {
    let lab = Lab::new();
    let (l, f) = two_brokers(&lab, 50);
    let before = tree(lab.dir.path());
    for mode in ["hw", "kip279"] {
        let out = ok(&["recover", s(&f), "--leader", s(&l), "--mode", mode, "--dry-run", "--json"]);
        let plans = plans_by_partition(&out);
        assert_eq!(plans.len(), 50, "one plan per partition");
        for (i, plan) in plans.iter().enumerate() {
            let name = format!("t-{i}");
            assert_eq!(plan["partition"], name.as_str(), "natural order");
            // Every failed-over partition, and a sample of the rest, against its own run.
            if i >= 10 && i % 8 != 0 {
                continue;
            }
            let single = json_lines(&ok(&[
                "recover",
                s(&f),
                "--partition",
                &name,
                "--leader",
                s(&l),
                "--mode",
                mode,
                "--dry-run",
                "--json",
            ]));
            let single = single.last().unwrap();
            for field in ["truncation_offset", "cut_offset", "summary", "round_trips"] {
                assert_eq!(plan[field], single[field], "{mode} {name} {field}");
            }
        }
        // Partitions 5..=9 diverge on f (y at offset 2, epoch 1): every mode cuts it.
        for plan in &plans[5..10] {
            assert_eq!(plan["cut_offset"], 2, "{mode}: {plan}");
            assert_eq!(plan["summary"]["truncated_lost"], 1, "{mode}");
        }
        let text = ok(&["recover", s(&f), "--leader", s(&l), "--mode", mode, "--dry-run"]);
        assert!(text.contains("50 partition(s) planned"), "{text}");
    }
    assert_eq!(tree(lab.dir.path()), before, "a dry run writes nothing");
}

#[test]
fn check_and_diff_cover_every_partition_of_a_data_dir() {
    let lab = Lab::new();
    let (l, f) = two_brokers(&lab, 12);
    let out = ok(&["check", s(&l)]);
    assert!(out.contains("checked 12 partition(s)") && out.contains(": clean"), "{out}");
    let summary = json_lines(&ok(&["check", s(&l), "--json"])).pop().unwrap();
    assert_eq!(summary["partitions"], 12);
    // Damage one partition: check names it first, exits 1.
    let seg = l.join("t-7/00000000000000000000.log");
    let mut bytes = std::fs::read(&seg).unwrap();
    bytes[70] ^= 0xff;
    std::fs::write(&seg, bytes).unwrap();
    let (out, _) = code(&["check", s(&l)], 1);
    let first_row = out.lines().find(|l| l.trim_start().starts_with("t-")).unwrap();
    assert!(first_row.contains("t-7") && first_row.contains("finding"), "findings first: {out}");
    assert!(out.contains(&format!("{}", seg.display())), "{out}");
    // diff pairs partitions by name: 0..=4 (m3 only on l) and 5..=9 differ.
    let (out, _) = code(&["diff", s(&l), s(&f), "--json"], 1);
    let diverging: Vec<String> = json_lines(&out)
        .into_iter()
        .filter(|v| v["type"] == "partition_diff" && v["identical"] == false)
        .map(|v| v["partition"].as_str().unwrap().to_string())
        .collect();
    assert!(diverging.iter().any(|p| p == "t-7"), "{diverging:?}");
}

#[test]
fn create_adds_partitions_only_to_a_klog_log_dir_and_refuses_a_clash() {
    let lab = Lab::new();
    let d = lab.path("d");
    ok(&["create", s(&d), "--topic", "t", "--partitions", "3", "--replica-id", "4"]);
    let out = ok(&["create", s(&d), "--topic", "u", "--partition", "7"]);
    assert!(out.contains("added to"), "{out}");
    assert!(d.join("u-7/00000000000000000000.log").exists());
    let before = tree(&d);
    let (_, err) = code(&["create", s(&d), "--topic", "t", "--partition", "2"], 2);
    assert!(err.contains("exists already"), "{err}");
    let (_, err) = code(&["create", s(&d), "--topic", "v", "--replica-id", "5"], 2);
    assert!(err.contains("is replica 4"), "{err}");
    assert_eq!(tree(&d), before);
    ok(&["check", s(&d)]);
}

#[test]
fn the_real_broker_dirs_check_clean_with_missing_partitions_noted_and_diff_warns_about_cluster_ids() {
    let Some(root) = kafka_real() else { return };
    for name in ["zk-broker-2020", "zk-broker-2021", "kraft-broker-2026"] {
        let out = ok(&["check", s(&root.join(name))]);
        assert!(out.contains(": clean"), "{name}: {out}");
        let n = std::fs::read_dir(root.join(name)).unwrap().filter(|e| e.as_ref().unwrap().path().is_dir()).count();
        assert!(out.contains(&format!("checked {n} partition(s)")), "{name}: {out}");
    }
    let out = ok(&["check", s(&root.join("kraft-broker-2026"))]);
    assert!(out.contains("__consumer_offsets-14 is listed in replication-offset-checkpoint"), "{out}");
    let (out, _) = code(&["diff", s(&root.join("zk-broker-2020")), s(&root.join("zk-broker-2021"))], 1);
    assert!(out.contains("warning:") && out.contains("cluster.id"), "{out}");
}

/// Two brokers of partitions t-0 and t-1 where the follower `f` has seen epoch 5 and the
/// leader `l` leads at epoch 1: every epoch check refuses the restart; `--no-fencing` takes it.
fn stale_leader(lab: &Lab) -> (std::path::PathBuf, std::path::PathBuf) {
    let (l, f) = (lab.path("l"), lab.path("f"));
    ok(&["create", s(&l), "--topic", "t", "--partitions", "2", "--replica-id", "1"]);
    ok(&["create", s(&f), "--topic", "t", "--partitions", "2", "--replica-id", "2"]);
    for name in ["t-0", "t-1"] {
        ok(&["elect", s(&f), "--partition", name, "--epoch", "5"]);
        ok(&["append", s(&f), "--partition", name, "y1", "y2", "--timestamp", "1000"]);
        ok(&["elect", s(&l), "--partition", name, "--epoch", "1"]);
        ok(&["append", s(&l), "--partition", name, "a1", "--timestamp", "2000"]);
    }
    ok(&["crash", s(&f)]);
    (l, f)
}

#[test]
fn a_restart_plan_honours_no_fencing_as_each_partition_run_does() {
    let lab = Lab::new();
    let (l, f) = stale_leader(&lab);
    let before = tree(lab.dir.path());
    let plan = |extra: &[&str]| {
        let mut a = vec!["recover", s(&f), "--leader", s(&l), "--dry-run", "--json"];
        a.extend_from_slice(extra);
        plans_by_partition(&ok(&a))
    };
    // Fenced (the default): every partition is refused, as its own run is.
    let fenced = plan(&[]);
    assert_eq!(fenced.len(), 2);
    for p in &fenced {
        let why = p["refused"].as_str().unwrap_or_else(|| panic!("refused: {p}"));
        assert!(why.contains("FENCED_LEADER_EPOCH"), "{why}");
        let name = p["partition"].as_str().unwrap();
        let (_, err) = code(&["recover", s(&f), "--partition", name, "--leader", s(&l), "--dry-run"], 2);
        assert!(err.contains("FENCED_LEADER_EPOCH"), "{err}");
    }
    // --no-fencing reaches every partition's run: each is planned, as its own run plans it.
    let unfenced = plan(&["--no-fencing"]);
    assert_eq!(unfenced.len(), 2);
    for p in &unfenced {
        assert!(p.get("refused").is_none(), "--no-fencing dropped: {p}");
        let name = p["partition"].as_str().unwrap();
        let single = json_lines(&ok(&[
            "recover",
            s(&f),
            "--partition",
            name,
            "--leader",
            s(&l),
            "--dry-run",
            "--json",
            "--no-fencing",
        ]));
        let single = single.last().unwrap();
        assert_eq!(p["leader_epoch"], 1, "{p}");
        for field in ["leader_epoch", "truncation_offset", "cut_offset", "summary"] {
            assert_eq!(p[field], single[field], "{name} {field}");
        }
    }
    let text = ok(&["recover", s(&f), "--leader", s(&l), "--dry-run", "--no-fencing"]);
    assert!(text.contains("2 partition(s) planned, 0 refused"), "{text}");
    // The controller's epoch names one partition's leader: refused for a plan, never dropped.
    let (out, err) = code(&["recover", s(&f), "--leader", s(&l), "--dry-run", "--leader-epoch", "3"], 2);
    assert!(out.is_empty() && err.contains("--leader-epoch 3") && err.contains("--partition"), "{err}");
    assert_eq!(tree(lab.dir.path()), before, "a dry run writes nothing");
}

/// Issue 33: the whole-dir forecast says what the single-partition views say. A checkpointed
/// HW above the log end the load leaves means acknowledged records are not on disk; a clean
/// shutdown over a damaged last batch means Kafka loads and serves it (no recovery runs).
#[test]
fn the_whole_dir_forecast_names_missing_acknowledged_records_and_damaged_bytes_kafka_serves() {
    let lab = Lab::new();
    let a = lab.create("a", 1, &["--partitions", "2"]);
    for args in [&["elect", s(&a), "--partition", "demo-0"][..], &["append", s(&a), "--partition", "demo-0", "x"]] {
        ok(args);
    }
    ok(&["--width", "0", "append", s(&a), "--partition", "demo-0", "y"]);
    ok(&["--width", "0", "stop", s(&a)]);
    // Flip a byte of the last batch's value: its CRC no longer matches.
    let seg = a.join("demo-0/00000000000000000000.log");
    let mut bytes = std::fs::read(&seg).unwrap();
    let at = bytes.len() - 2;
    bytes[at] ^= 0x40;
    std::fs::write(&seg, bytes).unwrap();
    let before = snapshot(&a);
    let out = ok(&["--width", "0", "recover", s(&a), "--dry-run"]);
    assert!(
        out.contains(
            "note demo-0: clean shutdown: Kafka does not recover this log; it takes the log end 2 from the last batch \
             and loads and serves offsets 1 to 1 as they are, though they fail klog's check"
        ),
        "{out}"
    );
    let row = out.lines().find(|l| l.trim_start().starts_with("demo-0")).unwrap();
    assert!(row.contains("serves 1-1 unchecked"), "{row}");
    // The partition's own forecast says the same.
    let one = ok(&["--width", "0", "recover", s(&a), "--dry-run", "--partition", "demo-0"]);
    assert!(one.contains("loads and serves offsets 1 to 1 as they are"), "{one}");
    let json = json_lines(&ok(&["--width", "0", "recover", s(&a), "--dry-run", "--json"]));
    let p0 = json.iter().find(|v| v["partition"] == "demo-0").unwrap();
    assert_eq!(p0["recovery"]["served_unverified"], serde_json::json!({"from": 1, "to": 1}));
    assert_eq!(before, snapshot(&a), "a dry run changes nothing");

    // A broker's dir whose HW checkpoint is ahead of a log: the whole-dir forecast names the
    // acknowledged offsets the disk lacks, as `check` of the partition does.
    let Some(real) = kafka_real() else { return };
    let d = lab.path("broker");
    copy_dir(&real.join("zk-broker-2021"), &d);
    let hw = d.join("replication-offset-checkpoint");
    let text =
        std::fs::read_to_string(&hw).unwrap().replace("\n__consumer_offsets 2 3\n", "\n__consumer_offsets 2 9\n");
    std::fs::write(&hw, text).unwrap();
    let out = ok(&["--width", "0", "recover", s(&d), "--dry-run"]);
    assert!(
        out.contains(
            "note __consumer_offsets-2: the checkpointed high watermark 9 is above the log end 3: acknowledged records \
             at offsets 3 to 8 are not on disk (Kafka clamps the HW to 3 when it serves the partition)"
        ),
        "{out}"
    );
    let json = json_lines(&ok(&["--width", "0", "recover", s(&d), "--dry-run", "--json"]));
    let p2 = json.iter().find(|v| v["partition"] == "__consumer_offsets-2").unwrap();
    assert_eq!(p2["acknowledged_missing"], serde_json::json!({"from": 3, "to": 8}));
    let (check, _) = code(&["--width", "0", "check", s(&d)], 1);
    assert!(
        check.contains(
            "high watermark 9 is above the log end offset 3: acknowledged records at offsets 3 to 8 are not on disk"
        ),
        "{check}"
    );
}

/// Issue 34, point 8: the restart plan leaves the KRaft metadata log out and says why (a Raft
/// log follows the quorum, not a partition leader's ISR and HW); `recover --leader` on it
/// alone refuses with the same reason.
#[test]
fn the_restart_plan_leaves_the_metadata_log_out_and_says_why() {
    let Some(real) = kafka_real() else { return };
    let lab = Lab::new();
    // Another broker of the same cluster: its own node and directory ids.
    let (l, f) = real_kraft_pair(&lab, &real);
    let out = ok(&["recover", s(&f), "--leader", s(&l), "--dry-run"]);
    assert!(!out.lines().any(|l| l.trim_start().starts_with("__cluster_metadata-0 ")), "planned: {out}");
    assert!(
        out.contains("note __cluster_metadata-0: left out: the KRaft metadata log is a Raft log (KIP-595)"),
        "{out}"
    );
    let summary = json_lines(&ok(&["recover", s(&f), "--leader", s(&l), "--dry-run", "--json"])).pop().unwrap();
    assert_eq!(summary["left_out"][0]["partition"], "__cluster_metadata-0", "{summary}");
    let (_, err) = code(&["recover", s(&f), "--leader", s(&l), "--dry-run", "--partition", "__cluster_metadata-0"], 2);
    assert!(err.contains("is a Raft log (KIP-595)"), "{err}");
}
