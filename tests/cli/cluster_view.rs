//! One view across a cluster (issue #21 point 4): `check`, `diff` and `recover --dry-run` given
//! several brokers' data dirs line up every replica of each partition against its current
//! leader. Clusters made by klog (3 brokers, an unclean failover in one partition), the broker
//! dirs of ../shared/kafka-real (three dirs of different clusters), and copies of its KRaft
//! broker (the leader taken from the metadata log).

use crate::common::*;
use std::path::{Path, PathBuf};

/// Three brokers b1..b3 holding t-0..t-2, replicated from b1 at epoch 0 (offsets 0-1). In t-1
/// b1 leads again at epoch 1 with ISR {b2}, writes `m3` at offset 2 that b2 fetches (acked:
/// both checkpoint HW 3); then b3, left out, is made leader at epoch 2 (an unclean election)
/// and writes `y` at offset 2 (acked on b3 alone).
fn three_brokers(lab: &Lab) -> [PathBuf; 3] {
    let dirs = [lab.path("b1"), lab.path("b2"), lab.path("b3")];
    for (i, d) in dirs.iter().enumerate() {
        ok(&["create", s(d), "--topic", "t", "--partitions", "3", "--replica-id", &(i + 1).to_string()]);
    }
    let [b1, b2, b3] = &dirs;
    for p in ["t-0", "t-1", "t-2"] {
        ok(&["elect", s(b1), "--partition", p, "--isr", s(b2), "--isr", s(b3)]);
        ok(&["append", s(b1), "--partition", p, "m1", "m2", "--timestamp", "1000"]);
        ok(&["fetch", "--leader", s(b1), s(b2), "--partition", p, "--rounds", "3"]);
        ok(&["fetch", "--leader", s(b1), s(b3), "--partition", p, "--rounds", "3"]);
    }
    ok(&["elect", s(b1), "--partition", "t-1", "--epoch", "1", "--isr", s(b2)]);
    ok(&["recover", "--leader", s(b1), s(b2), "--partition", "t-1"]);
    ok(&["append", s(b1), "--partition", "t-1", "m3", "--timestamp", "2000"]);
    ok(&["fetch", "--leader", s(b1), s(b2), "--partition", "t-1", "--rounds", "3"]);
    ok(&["elect", s(b3), "--partition", "t-1", "--epoch", "2"]);
    ok(&["append", s(b3), "--partition", "t-1", "y", "--timestamp", "3000"]);
    dirs
}

fn partition<'a>(lines: &'a [serde_json::Value], name: &str) -> &'a serde_json::Value {
    lines.iter().find(|v| v["type"] == "cluster_partition" && v["partition"] == name).expect("the partition's line")
}

fn replica_of(p: &serde_json::Value, node_id: i64) -> &serde_json::Value {
    p["replicas"].as_array().unwrap().iter().find(|r| r["node_id"] == node_id).expect("the replica")
}

fn golden_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/golden/cluster")
}

#[test]
fn the_cluster_diff_text_matches_its_golden_file() {
    let lab = Lab::new();
    three_brokers(&lab);
    let out = klog()
        .current_dir(lab.dir.path())
        .env("COLUMNS", "80")
        .args(["diff", "b1", "b2", "b3"])
        .assert()
        .code(1)
        .get_output()
        .stdout
        .clone();
    let text = String::from_utf8(out).unwrap();
    for line in text.lines() {
        assert!(line.chars().count() <= 80, "line wider than 80 columns: {line:?}");
        assert_eq!(line, line.trim_end(), "trailing spaces");
    }
    let file = golden_dir().join("diff.txt");
    if std::env::var_os("KLOG_BLESS").is_some() {
        std::fs::create_dir_all(golden_dir()).unwrap();
        std::fs::write(&file, &text).unwrap();
    }
    let expected = std::fs::read_to_string(&file).unwrap_or_default();
    assert_eq!(text, expected, "differs from {} (re-bless with KLOG_BLESS=1)", file.display());
}

#[test]
fn the_json_names_the_leader_the_divergence_the_acked_loss_and_both_choices() {
    let lab = Lab::new();
    let [b1, b2, b3] = three_brokers(&lab);
    let (out, _) = code(&["check", s(&b1), s(&b2), s(&b3), "--json"], 1);
    let lines = json_lines(&out);
    let t1 = partition(&lines, "t-1");
    assert_eq!(t1["leader_node_id"], 3, "{t1}");
    // klog's labs: the leader is the replica klog's state runs as leader.
    assert_eq!(t1["leader_source"]["from"], "klog_state");
    assert_eq!(t1["leader_source"]["leader_epoch"], 2);
    assert_eq!(replica_of(t1, 1)["first_divergent_offset"], 2);
    assert_eq!(replica_of(t1, 2)["first_divergent_offset"], 2);
    assert_eq!(replica_of(t1, 3)["leader"], true);
    assert_eq!(replica_of(t1, 1)["findings"].as_array().unwrap().len(), 0);
    let missing = t1["acked_missing_from_leader"].as_array().unwrap();
    let holders: Vec<i64> = missing.iter().map(|m| m["holder_node_id"].as_i64().unwrap()).collect();
    assert_eq!(holders, [1, 2]);
    for m in missing {
        assert_eq!(m["ranges"], serde_json::json!([{"first_offset": 2, "last_offset": 2, "records": 1}]));
        assert_eq!(m["high_watermark"], 3);
    }
    // Every replica lacks someone's acked record at offset 2: no clean leader is left.
    let n = &t1["no_clean_leader"];
    assert_eq!(n["advice"]["node_id"], 3, "highest latest epoch: {n}");
    assert_eq!(n["advice"]["loses_records"], 2);
    assert_eq!(n["kafka"]["node_id"], 1, "the first live replica in node-id order: {n}");
    assert_eq!(n["kafka"]["loses"][0]["holder_node_id"], 3);
    assert_eq!(n["kafka"]["loses"][0]["ranges"][0]["first_offset"], 2);
    for p in ["t-0", "t-2"] {
        let v = partition(&lines, p);
        assert_eq!(v["needs_attention"], false, "{v}");
        assert_eq!(v["leader_node_id"], 1);
        assert!(v["replicas"].as_array().unwrap().iter().all(|r| r["first_divergent_offset"].is_null()));
    }
    let summary = lines.last().unwrap();
    assert_eq!(summary["type"], "summary");
    assert_eq!(summary["one_cluster"], true);
    assert_eq!(summary["leaders_from"], "assumed");
    assert_eq!(summary["partitions_needing_attention"], 1);
}

#[test]
fn the_divergence_is_where_the_pairwise_diff_puts_it() {
    let lab = Lab::new();
    let [b1, b2, b3] = three_brokers(&lab);
    let (out, _) = code(&["diff", s(&b1), s(&b2), s(&b3), "--json"], 1);
    let t1 = partition(&json_lines(&out), "t-1").clone();
    for (node, dir) in [(1, &b1), (2, &b2)] {
        let (pair, _) = code(&["diff", s(&b3), s(dir), "--partition", "t-1", "--json"], 1);
        let summary = json_lines(&pair).into_iter().find(|v| v.get("first_divergent_offset").is_some()).unwrap();
        assert_eq!(replica_of(&t1, node)["first_divergent_offset"], summary["first_divergent_offset"]);
    }
}

#[test]
fn recover_dry_run_over_a_cluster_plans_each_follower_and_changes_nothing() {
    let lab = Lab::new();
    let [b1, b2, b3] = three_brokers(&lab);
    let before = tree(lab.dir.path());
    let (out, _) = code(&["recover", "--dry-run", s(&b1), s(&b2), s(&b3), "--json"], 1);
    assert!(tree(lab.dir.path()) == before, "the dry run changed the tree");
    let t1 = partition(&json_lines(&out), "t-1").clone();
    for node in [1, 2] {
        let r = &replica_of(&t1, node)["restart"];
        assert_eq!(r["cut_offset"], 2, "{r}");
        assert_eq!(r["acked_lost"], 1, "{r}");
    }
    // The same plan as `recover --dry-run --leader` of one follower and partition.
    let (one, _) = code(&["recover", "--dry-run", "--leader", s(&b3), s(&b1), "--partition", "t-1", "--json"], 0);
    let one = json_lines(&one).into_iter().find(|v| v.get("cut_offset").is_some()).expect("a plan");
    assert_eq!(one["cut_offset"], 2);
    // A real run over several brokers is refused, and changes nothing either.
    let (_, err) = code(&["recover", s(&b1), s(&b2), s(&b3)], 2);
    assert!(err.contains("dry run only"), "{err}");
    assert!(tree(lab.dir.path()) == before, "the refusal changed the tree");
}

#[test]
fn a_cluster_view_refuses_one_dir_and_a_partition_path() {
    let lab = Lab::new();
    let [b1, b2, b3] = three_brokers(&lab);
    let (_, err) = code(&["check", "--cluster", s(&b1)], 2);
    assert!(err.contains("at least two brokers") && err.contains(s(&b1)), "{err}");
    let (_, err) = code(&["diff", "--cluster", s(&b1), s(&b2), s(&b3), "--partition", "../b1/t-1"], 2);
    assert!(err.contains("not a path"), "{err}");
    let (_, err) = code(&["check", s(&b1), s(&b1)], 2);
    assert!(err.contains("named twice"), "{err}");
    let (_, err) = code(&["check", s(&b1.join("t-0")), s(&b2.join("t-0"))], 2);
    assert!(err.contains("is a partition dir") && err.contains("--partition t-0"), "{err}");
    // --cluster with two dirs is the cluster view, not the pairwise diff.
    let (out, _) = code(&["diff", "--cluster", s(&b1), s(&b3), "--json"], 1);
    assert_eq!(json_lines(&out).last().unwrap()["brokers"], 2);
}

#[test]
fn mixed_cluster_ids_are_warned_and_their_replicas_never_compared() {
    let lab = Lab::new();
    let [b1, b2, _] = three_brokers(&lab);
    let other = lab.path("other");
    copy_dir(&b2, &other);
    let meta = other.join("meta.properties");
    let text = std::fs::read_to_string(&meta).unwrap();
    let text: String = text
        .lines()
        .map(|l| if l.starts_with("cluster.id=") { "cluster.id=AnotherClusterAAAAAAAAA" } else { l })
        .collect::<Vec<_>>()
        .join("\n");
    std::fs::write(&meta, text.replace("node.id=2", "node.id=9")).unwrap();
    // Refused by every command of the view, in one line naming both dirs and both ids.
    for command in ["diff", "check", "recover"] {
        let mut args = vec![command, s(&b1), s(&other), "--cluster"];
        if command == "recover" {
            args.push("--dry-run");
        }
        let (out, err) = code(&args, 2);
        assert!(out.is_empty() && err.lines().count() == 1, "{command}: {err}");
        assert!(err.contains("cluster.id AnotherClusterAAAAAAAAA, node id 9 but "), "{command}: {err}");
        assert!(
            err.contains(s(&b1)) && err.contains(s(&other)) && err.contains("dirs of two different clusters"),
            "{err}"
        );
    }
    let (out, _) = code(&["diff", s(&b1), s(&other), "--cluster", "--allow-other-cluster"], 1);
    assert!(out.contains("not one cluster: 2 cluster ids"), "{out}");
    assert!(out.contains("NOT ONE CLUSTER"), "{out}");
    // Each replica's log end is shown where none is lined up as the leader.
    let row = out.lines().find(|l| l.trim_start().starts_with("t-1 ")).expect("a t-1 row");
    assert!(row.contains("NOT ONE CLUSTER") && row.split_whitespace().any(|w| w.contains('/')), "{row}");
    let (json, _) = code(&["diff", s(&b1), s(&other), "--cluster", "--json", "--allow-other-cluster"], 1);
    let lines = json_lines(&json);
    assert!(lines.iter().any(|v| v["type"] == "warning"));
    let t1 = partition(&lines, "t-1");
    assert_eq!(t1["not_one_cluster"], true);
    assert!(t1["leader_node_id"].is_null() && t1["no_clean_leader"].is_null(), "{t1}");
    assert_eq!(lines.last().unwrap()["one_cluster"], false);
}

#[test]
fn the_real_broker_dirs_of_three_clusters_are_said_to_be_no_cluster() {
    let Some(real) = kafka_real() else { return };
    let dirs: Vec<PathBuf> =
        ["zk-broker-2020", "zk-broker-2021", "kraft-broker-2026"].iter().map(|d| real.join(d)).collect();
    // Any two of them, or all three, are refused for planning: one line naming both dirs and ids.
    for (i, j) in [(0, 1), (1, 0), (0, 2), (2, 1), (1, 2)] {
        for command in [vec!["check"], vec!["diff", "--cluster"], vec!["recover", "--dry-run"]] {
            let args: Vec<&str> = command.iter().copied().chain([s(&dirs[i]), s(&dirs[j])]).collect();
            let (out, err) = code(&args, 2);
            assert!(out.is_empty() && err.lines().count() == 1, "{args:?}: {err}");
            assert!(err.contains(s(&dirs[i])) && err.contains(s(&dirs[j])), "{args:?}: {err}");
            assert!(err.contains("--allow-other-cluster"), "{err}");
        }
    }
    let three: Vec<&str> = ["check"].into_iter().chain(dirs.iter().map(|d| s(d))).collect();
    assert!(code(&three, 2).1.contains("cluster.id"));
    let args: Vec<&str> =
        ["check"].into_iter().chain(dirs.iter().map(|d| s(d))).chain(["--json", "--allow-other-cluster"]).collect();
    let (out, _) = code(&args, 1);
    let lines = json_lines(&out);
    let warnings: Vec<&str> =
        lines.iter().filter(|v| v["type"] == "warning").filter_map(|v| v["what"].as_str()).collect();
    assert!(warnings.iter().any(|w| w.contains("not one cluster")), "{warnings:?}");
    assert!(warnings.iter().any(|w| w.contains("all say node id 0")), "{warnings:?}");
    let summary = lines.last().unwrap();
    assert_eq!(summary["one_cluster"], false);
    assert_eq!(summary["leaders_from"], "metadata");
    // The partitions all three hold are listed, never lined up: no leader or election invented.
    let shared = partition(&lines, "__consumer_offsets-0");
    assert_eq!(shared["not_one_cluster"], true);
    assert_eq!(shared["replicas"].as_array().unwrap().len(), 3);
    assert!(shared["leader_node_id"].is_null() && shared["no_clean_leader"].is_null());
    assert!(shared["metadata"].is_null(), "the KRaft broker's metadata does not speak for the others: {shared}");
    // One that only one dir holds is just that.
    assert_eq!(partition(&lines, "first_topic-0")["replicas"].as_array().unwrap().len(), 1);
    // Reading them changed nothing, and the text says the same.
    let text_args: Vec<&str> = args.iter().copied().filter(|a| *a != "--json").collect();
    let (text, _) = code(&text_args, 1);
    assert!(text.contains("NOT ONE CLUSTER") && text.contains("not one cluster"), "{text}");
}

#[test]
fn the_leader_comes_from_the_metadata_log_when_a_dir_holds_one() {
    let Some(real) = kafka_real() else { return };
    let lab = Lab::new();
    let (k1, k2) = (lab.path("k1"), lab.path("k2"));
    copy_dir(&real.join("kraft-broker-2026"), &k1);
    copy_dir(&real.join("kraft-broker-2026"), &k2);
    let meta = k2.join("meta.properties");
    let text = std::fs::read_to_string(&meta).unwrap().replace("node.id=1", "node.id=2");
    std::fs::write(&meta, text).unwrap();
    let before = tree(lab.dir.path());
    let (out, _) = code(&["recover", "--dry-run", s(&k1), s(&k2), "--partition", "__consumer_offsets-3", "--json"], 1);
    assert!(tree(lab.dir.path()) == before, "the dry run changed the tree");
    let lines = json_lines(&out);
    let p = partition(&lines, "__consumer_offsets-3");
    assert_eq!(p["leader_source"]["from"], "metadata", "{p}");
    assert!(p["leader_source"]["metadata_offset"].as_i64().is_some_and(|o| o > 0), "{p}");
    // The controller recorded no leader (the broker shut down) with assignment [1].
    assert_eq!(p["metadata"]["leader"], -1);
    assert_eq!(p["metadata"]["replicas"], serde_json::json!([1]));
    let notes: Vec<&str> = p["notes"].as_array().unwrap().iter().filter_map(|n| n.as_str()).collect();
    assert!(notes.iter().any(|n| n.contains("records no leader")), "{notes:?}");
    assert!(notes.iter().any(|n| n.contains("broker 2 holds a replica the assignment [1] does not name")), "{notes:?}");
    // Both copies hold every record: a clean leader is left, and no loss is invented.
    assert!(p["no_clean_leader"].is_null(), "{p}");
    assert_eq!(p["clean_replicas"].as_array().unwrap().len(), 2, "{p}");
    // Kafka would elect the ISR's broker 1 when it returns, losing nothing.
    assert_eq!(p["kafka_would_elect"]["node_id"], 1, "{p}");
    assert_eq!(p["kafka_would_elect"]["loses_records"], 0, "{p}");
    let summary = lines.last().unwrap();
    assert_eq!(summary["leaders_from"], "metadata");
    assert!(summary["metadata_dir"].as_str().is_some_and(|d| d.ends_with("k1") || d.ends_with("k2")));
}

/// A replica longer than the leader (the leader was elected without its last record): the
/// records past the leader's log end are not a divergence, but the leader lacks them and the
/// replica's restart truncates them, so the view names them.
#[test]
fn a_replica_ahead_of_the_leader_is_named_with_the_offsets_the_leader_lacks() {
    let lab = Lab::new();
    let (b1, b2) = (lab.path("b1"), lab.path("b2"));
    ok(&["create", s(&b1), "--topic", "t", "--replica-id", "1"]);
    ok(&["create", s(&b2), "--topic", "t", "--replica-id", "2"]);
    ok(&["elect", s(&b1), "--isr", s(&b2)]);
    ok(&["append", s(&b1), "m1", "--timestamp", "1000"]);
    ok(&["fetch", "--leader", s(&b1), s(&b2), "--rounds", "3"]);
    ok(&["append", s(&b1), "m2", "m3", "--timestamp", "2000"]);
    ok(&["elect", s(&b2), "--epoch", "1"]);
    let (out, _) = code(&["diff", "--cluster", s(&b1), s(&b2), "--json"], 1);
    let lines = json_lines(&out);
    let t0 = partition(&lines, "t-0");
    assert_eq!(t0["leader_node_id"], 2, "the highest latest epoch: {t0}");
    let ahead = replica_of(t0, 1);
    assert_eq!(ahead["first_divergent_offset"], serde_json::Value::Null, "{ahead}");
    assert_eq!(ahead["leader_lacks"], serde_json::json!({"first_offset": 1, "last_offset": 2}), "{ahead}");
    assert_eq!(replica_of(t0, 2)["leader_lacks"], serde_json::Value::Null);
    assert_eq!(t0["needs_attention"], true);
    let (text, _) = code(&["diff", "--cluster", s(&b1), s(&b2)], 1);
    assert!(text.contains("ahead from 1") && text.contains("1 ahead of the leader"), "{text}");
}

/// Issue 34, point 11: in klog's own labs the cluster view takes the leader from klog's state,
/// never a crashed replica that holds the most (it would then advise `klog elect` on it).
#[test]
fn in_klogs_labs_the_leader_is_the_replica_klogs_state_runs_as_leader_not_a_crashed_one() {
    let lab = Lab::new();
    let d: Vec<_> =
        (1..=3).map(|i| lab.create(&format!("d{i}"), i, &["--topic", "orders", "--partitions", "2"])).collect();
    let p = ["--partition", "orders-1"];
    ok(&[&["elect", s(&d[0])][..], &p, &["--isr", s(&d[1]), "--isr", s(&d[2])]].concat());
    ok(&[&["append", s(&d[0])][..], &p, &["a", "b"]].concat());
    for f in &d[1..] {
        ok(&[&["fetch", "--leader", s(&d[0]), s(f)][..], &p, &["--rounds", "2"]].concat());
    }
    ok(&["crash", s(&d[0])]);
    ok(&[&["elect", s(&d[1])][..], &p, &["--isr", s(&d[2])]].concat());
    // Exit 1: orders-0 has no leader, which needs a look.
    let (out, _) = code(&["recover", "--dry-run", s(&d[0]), s(&d[1]), s(&d[2])], 1);
    let row = out.lines().find(|l| l.trim_start().starts_with("orders-1 ")).unwrap();
    assert!(row.contains("broker 2") && row.contains("agree"), "{out}");
    let json = json_lines(&code(&["recover", "--dry-run", s(&d[0]), s(&d[1]), s(&d[2]), "--json"], 1).0);
    let o1 = partition(&json, "orders-1");
    assert_eq!((o1["leader_node_id"].as_i64(), o1["leader_source"]["from"].as_str()), (Some(2), Some("klog_state")));
    assert!(!out.contains("is not a leader (it is crashed)"), "{out}");
    // orders-0 never had a leader: none is invented.
    assert!(out.contains("orders-0: no leader among the dirs (klog's state: none runs as leader)"), "{out}");
}
