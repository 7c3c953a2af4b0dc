//! Cluster identity (issue 43, point 2): every command that plans across dirs — `recover
//! --leader` (one partition and whole data dirs), the cluster view of `check`, `diff` and
//! `recover --dry-run`, `history --replica` — takes them as brokers of one cluster only when
//! their `meta.properties` say so, and a `--metadata` log only of their cluster; anything else
//! is one line naming both dirs and both ids, exit 2, unless `--allow-other-cluster`. On the
//! three real broker dirs (../shared/kafka-real, read in place) and on dirs klog makes.

use crate::common::*;
use std::fs;
use std::path::{Path, PathBuf};

const P: &str = "__consumer_offsets-0";

/// Set `key` in the `meta.properties` of `dir` (added when missing).
fn set_meta(dir: &Path, key: &str, value: &str) {
    let path = dir.join("meta.properties");
    let text = fs::read_to_string(&path).unwrap();
    let mut lines: Vec<String> =
        text.lines().filter(|l| !l.starts_with(&format!("{key}="))).map(String::from).collect();
    lines.push(format!("{key}={value}"));
    fs::write(&path, lines.join("\n") + "\n").unwrap();
}

/// A one-line refusal, exit 2, nothing on stdout, naming both dirs and what to do.
fn refused(args: &[&str], dirs: [&Path; 2]) -> String {
    let (out, err) = code(args, 2);
    assert!(out.is_empty(), "{args:?}: {out}");
    assert_eq!(err.lines().count(), 1, "{args:?}: {err}");
    for d in dirs {
        assert!(err.contains(s(d)), "{args:?}: {err}");
    }
    assert!(err.contains("--allow-other-cluster"), "{args:?}: {err}");
    err
}

#[test]
fn a_restart_plan_between_any_two_real_broker_dirs_is_refused_naming_both_ids() {
    let Some(real) = kafka_real() else { return };
    let dirs: Vec<PathBuf> =
        ["zk-broker-2020", "zk-broker-2021", "kraft-broker-2026"].iter().map(|d| real.join(d)).collect();
    for (f, l) in [(0, 1), (1, 0), (0, 2), (2, 0), (1, 2), (2, 1)] {
        let (f, l) = (&dirs[f], &dirs[l]);
        // One partition, and the whole data dirs.
        for extra in [&["--partition", P][..], &[]] {
            let args: Vec<&str> =
                ["recover", s(f), "--leader", s(l), "--dry-run"].iter().copied().chain(extra.iter().copied()).collect();
            let err = refused(&args, [f, l]);
            assert!(err.contains("cluster.id") && err.contains("node id"), "{err}");
        }
    }
    // The words: a missing cluster.id beside one, and two clusters.
    let err = refused(&["recover", s(&dirs[1]), "--leader", s(&dirs[0]), "--dry-run"], [&dirs[0], &dirs[1]]);
    assert!(
        err.contains("no cluster.id, node id 0 but ") && err.contains("nothing says they are one cluster"),
        "{err}"
    );
    let err = refused(&["recover", s(&dirs[0]), "--leader", s(&dirs[2]), "--dry-run"], [&dirs[0], &dirs[2]]);
    assert!(
        err.contains("cluster.id lRaQCIBoRh2xRKLuP9CAQg, node id 0 but ")
            && err.contains("(cluster.id q1w2e3r4t5y6u7i8o9p0, node id 1): dirs of two different clusters"),
        "{err}"
    );
    // Asked for, the plan is made, with the warning it had.
    let text = ok(&["recover", s(&dirs[0]), "--leader", s(&dirs[1]), "--dry-run", "--allow-other-cluster"]);
    assert!(text.contains("restart plan:") && text.contains("warning:"), "{text}");
}

#[test]
fn another_clusters_metadata_log_is_refused_for_a_restart_plan_unless_asked() {
    let Some(real) = kafka_real() else { return };
    let lab = Lab::new();
    let (a, b) = (
        lab.create("a", 1, &["--topic", "__consumer_offsets"]),
        lab.create("b", 2, &["--topic", "__consumer_offsets"]),
    );
    ok(&["elect", s(&b), "--isr", s(&a)]);
    ok(&["append", s(&b), "x"]);
    let kraft = real.join("kraft-broker-2026");
    let args = ["recover", s(&a), "--leader", s(&b), "--dry-run", "--metadata", s(&kraft)];
    let err = refused(&args, [&kraft, &b]);
    assert!(err.contains("a KRaft metadata log in a dir of cluster.id q1w2e3r4t5y6u7i8o9p0"), "{err}");
    // Before, the plan took the other cluster's leader epochs without a word.
    let text = ok(&[&args[..], &["--allow-other-cluster"]].concat());
    assert!(text.contains("the metadata last recorded") && text.contains("kraft-broker-2026"), "{text}");
    // The data-dir form of the plan refuses it the same way.
    let c = lab.create("c", 3, &["--topic", "__consumer_offsets", "--partitions", "2"]);
    let d = lab.create("d", 4, &["--topic", "__consumer_offsets", "--partitions", "2"]);
    refused(&["recover", s(&c), "--leader", s(&d), "--dry-run", "--metadata", s(&kraft)], [&kraft, &d]);
}

#[test]
fn two_dirs_of_one_node_id_are_refused_even_in_one_cluster() {
    let lab = Lab::new();
    let a = lab.create("a", 1, &[]);
    let b = lab.create("b", 1, &[]);
    ok(&["elect", s(&b)]);
    ok(&["append", s(&b), "x"]);
    let err = refused(&["recover", s(&a), "--leader", s(&b), "--dry-run"], [&a, &b]);
    assert!(err.contains("says the same node id"), "{err}");
    refused(&["check", s(&a), s(&b)], [&a, &b]);
    ok(&["recover", s(&a), "--leader", s(&b), "--dry-run", "--allow-other-cluster"]);
    // A dir of another cluster, klog's own.
    let c = lab.create("c", 3, &[]);
    set_meta(&c, "cluster.id", "OtherClusterAAAAAAAAAA");
    let err = refused(&["recover", s(&c), "--leader", s(&b), "--dry-run"], [&b, &c]);
    assert!(err.contains("cluster.id OtherClusterAAAAAAAAAA, node id 3 but "), "{err}");
    // A pairwise diff compares any two dirs, with a warning.
    let out = ok(&["diff", s(&c), s(&b)]);
    assert!(out.contains("warning:") && out.contains("different clusters"), "{out}");
}

/// Three copies of the real KRaft broker as nodes 1, 2 and 3 of its cluster, the metadata log
/// taken out of the brokers' dirs and left in the third, named with `--metadata`.
#[test]
fn the_multi_broker_dry_run_takes_its_leaders_from_metadata_and_refuses_another_clusters() {
    let Some(real) = kafka_real() else { return };
    let lab = Lab::new();
    let (k1, k2, m) = (lab.path("k1"), lab.path("k2"), lab.path("m"));
    for (d, id) in [(&k1, "1"), (&k2, "2"), (&m, "3000")] {
        copy_dir(&real.join("kraft-broker-2026"), d);
        set_meta(d, "node.id", id);
        set_meta(d, "directory.id", &format!("Dir{id:0>19}"));
    }
    for d in [&k1, &k2] {
        fs::remove_dir_all(d.join("__cluster_metadata-0")).unwrap();
    }
    let args = ["recover", "--dry-run", s(&k1), s(&k2), "--partition", "__consumer_offsets-3", "--json"];
    let lines = json_lines(&run(&args).stdout);
    assert_eq!(lines.last().unwrap()["leaders_from"], "assumed", "no metadata log in the dirs");
    let with: Vec<&str> = args.iter().copied().chain(["--metadata", s(&m)]).collect();
    let lines = json_lines(&run(&with).stdout);
    let summary = lines.last().unwrap();
    assert_eq!(summary["leaders_from"], "metadata", "--metadata was ignored: {summary}");
    assert_eq!(summary["metadata_dir"], s(&m));
    let p = lines.iter().find(|v| v["partition"] == "__consumer_offsets-3").unwrap();
    assert_eq!(p["leader_source"]["from"], "metadata", "{p}");
    // Another cluster's metadata: refused, then read when asked (its leaders for its own only).
    set_meta(&m, "cluster.id", "OtherClusterAAAAAAAAAA");
    let text: Vec<&str> = with.iter().copied().filter(|a| *a != "--json").collect();
    let err = refused(&text, [&m, &k1]);
    assert!(
        err.contains("cluster.id OtherClusterAAAAAAAAAA, but ") && err.contains("has cluster.id q1w2e3r4t5y6u7i8o9p0"),
        "{err}"
    );
    let asked: Vec<&str> = with.iter().copied().chain(["--allow-other-cluster"]).collect();
    let lines = json_lines(&run(&asked).stdout);
    let p = lines.iter().find(|v| v["partition"] == "__consumer_offsets-3").unwrap();
    assert_eq!(p["leader_source"]["from"], "assumed", "another cluster's metadata speaks for none of them: {p}");
    // A flag of one partition's restart is refused there, not ignored.
    let (_, err) = code(&[&text[..], &["--leader-epoch", "3"]].concat(), 2);
    assert!(err.contains("--leader-epoch is a flag of one restart"), "{err}");
}

#[test]
fn history_sets_beside_its_timeline_only_replicas_of_its_cluster() {
    let Some(real) = kafka_real() else { return };
    let kraft = real.join("kraft-broker-2026");
    let zk = real.join("zk-broker-2020");
    let err = refused(&["history", s(&kraft), "--replica", s(&zk)], [&kraft, &zk]);
    assert!(
        err.contains("cluster.id q1w2e3r4t5y6u7i8o9p0") && err.contains("cluster.id lRaQCIBoRh2xRKLuP9CAQg"),
        "{err}"
    );
    let text = ok(&["history", s(&kraft), "--replica", s(&zk), "--partition", P, "--allow-other-cluster"]);
    assert!(text.contains("replica 0 ("), "{text}");
    ok(&["history", s(&kraft), "--replica", s(&kraft), "--partition", P]);
}

#[test]
fn the_multi_broker_dry_run_says_per_broker_whether_it_would_start() {
    let lab = Lab::new();
    let bad = crate::trust::unloadable_broker_dir(&lab);
    let good = lab.create("g", 2, &["--topic", "orders", "--partitions", "2"]);
    ok(&["stop", s(&good)]);
    let (out, _) = code(&["recover", "--dry-run", s(&bad), s(&good)], 1);
    let line = |label: &str| out.lines().find(|l| l.starts_with(label)).unwrap_or_else(|| panic!("{label}: {out}"));
    let bad_line = line("broker 1 would NOT start: ");
    assert!(bad_line.contains("orders-0") && bad_line.contains("klog recover --dry-run"), "{bad_line}");
    assert!(line("broker 2 would start: ").contains("reads 2 log(s)"), "{out}");
    let lines = json_lines(&code(&["recover", "--dry-run", s(&bad), s(&good), "--json"], 1).0);
    let brokers: Vec<&serde_json::Value> = lines.iter().filter(|v| v["type"] == "broker").collect();
    assert_eq!(brokers[0]["start"]["outcome"], "refuses");
    assert_eq!(
        (brokers[1]["start"]["outcome"].as_str(), brokers[1]["start"]["logs"].as_i64()),
        (Some("starts"), Some(2))
    );
    // check and diff over the same dirs say nothing of a start-up.
    let lines = json_lines(&code(&["check", s(&bad), s(&good), "--json"], 1).0);
    assert!(lines.iter().filter(|v| v["type"] == "broker").all(|b| b.get("start").is_none()));
}

/// `txn` over several data dirs judges every dir's open transactions by the coordinator's
/// `__transaction_state` found among them: dirs of two clusters are refused, unless asked.
#[test]
fn txn_over_data_dirs_of_two_clusters_is_refused_unless_asked() {
    let Some(real) = kafka_real() else { return };
    let (a, b) = (real.join("zk-broker-2020"), real.join("kraft-broker-2026"));
    let err = refused(&["txn", s(&a), s(&b)], [&a, &b]);
    assert!(err.contains("dirs of two different clusters"), "{err}");
    ok(&["txn", s(&a), s(&b), "--allow-other-cluster"]);
    // One data dir alone has no one to disagree with.
    ok(&["txn", s(&a)]);
}

/// `fetch --leader L F`, `elect --isr` and `alter-isr --isr` read two dirs and write: between a
/// lab klog made (klog's cluster.id, its own node id) and a broker's dir, or two brokers' dirs
/// of different clusters, they are refused in one line naming both dirs and ids, exit 2, and
/// nothing is written, unless --allow-other-cluster. Writing commands run on copies of the real
/// dirs (--allow-broker-dir-writes); ISR members are only read, in place.
#[test]
fn fetch_between_a_lab_and_a_real_broker_dir_or_two_real_clusters_is_refused_and_writes_nothing() {
    let Some(real) = kafka_real() else { return };
    let lab = Lab::new();
    let leader = lab.create("lab", 5, &["--topic", "__consumer_offsets"]);
    ok(&["elect", s(&leader)]);
    ok(&["append", s(&leader), "x"]);
    let copies: Vec<PathBuf> = ["zk-broker-2020", "zk-broker-2021", "kraft-broker-2026"]
        .iter()
        .map(|d| {
            let to = lab.path(d);
            copy_dir(&real.join(d), &to);
            to
        })
        .collect();
    let unchanged = |args: &[&str], dirs: [&Path; 2]| {
        let before = tree(lab.dir.path());
        let err = refused(&[args, &["--partition", P, "--allow-broker-dir-writes"]].concat(), dirs);
        assert_eq!(tree(lab.dir.path()), before, "{args:?} wrote: {err}");
        err
    };
    for copy in &copies {
        // The lab leading a broker's dir, and a broker's dir leading the lab.
        let err = unchanged(&["fetch", "--leader", s(&leader), s(copy)], [&leader, copy]);
        assert!(err.contains("cluster.id hQdASGK-YMcbA2ARRLzXZw, node id 5"), "{err}");
        unchanged(&["fetch", "--leader", s(copy), s(&leader)], [&leader, copy]);
    }
    let (zk20, zk21, kraft) = (&copies[0], &copies[1], &copies[2]);
    let err = unchanged(&["fetch", "--leader", s(kraft), s(zk20)], [kraft, zk20]);
    assert!(
        err.contains("cluster.id lRaQCIBoRh2xRKLuP9CAQg, node id 0 but ")
            && err.contains("(cluster.id q1w2e3r4t5y6u7i8o9p0, node id 1): dirs of two different clusters"),
        "{err}"
    );
    let err = unchanged(&["fetch", "--leader", s(zk20), s(zk21)], [zk20, zk21]);
    assert!(
        err.contains("no cluster.id, node id 0 but ") && err.contains("nothing says they are one cluster"),
        "{err}"
    );

    // Asked for, the fetch runs: the lab's leader into an empty lab dir of another cluster.
    let other = lab.create("other", 6, &["--topic", "__consumer_offsets"]);
    set_meta(&other, "cluster.id", "OtherClusterAAAAAAAAAA");
    let before = tree(&other);
    let err = refused(&["fetch", "--leader", s(&leader), s(&other)], [&leader, &other]);
    assert!(err.contains("dirs of two different clusters"), "{err}");
    assert_eq!(tree(&other), before);
    let out = ok(&["fetch", "--leader", s(&leader), s(&other), "--allow-other-cluster"]);
    assert!(out.contains("copied 1 batch(es)"), "{out}");
    assert_eq!(records(&other).len(), 1);
}

#[test]
fn elect_and_alter_isr_refuse_isr_members_of_another_cluster_unless_asked() {
    let Some(real) = kafka_real() else { return };
    let lab = Lab::new();
    let leader = lab.create("lab", 5, &["--topic", "__consumer_offsets"]);
    ok(&["elect", s(&leader)]);
    ok(&["append", s(&leader), "x"]);
    let members: Vec<PathBuf> =
        ["zk-broker-2020", "zk-broker-2021", "kraft-broker-2026"].iter().map(|d| real.join(d)).collect();
    for m in &members {
        for command in ["elect", "alter-isr"] {
            let before = tree(&leader);
            let err = refused(&[command, s(&leader), "--isr", s(m)], [&leader, m]);
            assert!(err.contains("cluster.id hQdASGK-YMcbA2ARRLzXZw, node id 5"), "{err}");
            assert_eq!(tree(&leader), before, "{command} wrote");
        }
    }
    // A broker's dir (a copy) elected with another real cluster's broker in its ISR.
    let kraft = lab.path("kraft");
    copy_dir(&real.join("kraft-broker-2026"), &kraft);
    let before = tree(&kraft);
    let args = ["elect", s(&kraft), "--partition", P, "--isr", s(&members[0]), "--allow-broker-dir-writes"];
    let err = refused(&args, [&kraft, &members[0]]);
    assert!(err.contains("cluster.id lRaQCIBoRh2xRKLuP9CAQg, node id 0 but "), "{err}");
    assert_eq!(tree(&kraft), before, "elect wrote into the broker's copy");
    assert!(!lab.path("kraft.klog-backup-1").exists(), "a refused elect made a backup");

    // Two labs of one node id: one broker's dirs (a lab takes its node id from --replica-id).
    let twin = lab.create("twin", 5, &["--topic", "__consumer_offsets"]);
    let err = refused(&["elect", s(&leader), "--isr", s(&twin)], [&leader, &twin]);
    assert!(err.contains("says the same node id") && err.contains("--replica-id"), "{err}");
    refused(&["fetch", "--leader", s(&leader), s(&twin)], [&leader, &twin]);
    // A member repeated, or the leader named in its own ISR, is no second node.
    let b = lab.create("b", 7, &["--topic", "__consumer_offsets"]);
    ok(&["elect", s(&leader), "--isr", s(&b), s(&b), s(&leader)]);

    // Asked for: the election and the ISR change take the other cluster's members.
    let out = ok(&["elect", s(&leader), "--isr", s(&members[1]), "--allow-other-cluster"]);
    assert!(out.contains("zk-broker-2021"), "{out}");
    let out = ok(&["alter-isr", s(&leader), "--isr", s(&members[2]), "--allow-other-cluster"]);
    assert!(out.contains("-> ") && out.contains("kraft-broker-2026"), "{out}");
}
