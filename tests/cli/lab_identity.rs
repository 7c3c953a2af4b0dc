//! The identity rule for `fetch --leader`, `elect --isr` and `alter-isr --isr` on labs
//! (issue 43, item 1 of the last list): a lab `klog create` makes without `--replica-id`
//! records `node.id=0` in `meta.properties` and marks it in `klog-state.json` as a default
//! nobody chose, so two such labs are two brokers of one cluster; two dirs that both say one
//! node id (`--replica-id`, a broker's `node.id`/`broker.id`), or a dir that says a cluster
//! beside one that says none, are refused in one line naming both dirs and ids, exit 2, with
//! nothing written, unless `--allow-other-cluster`.

use crate::common::*;
use std::fs;
use std::path::{Path, PathBuf};

/// `klog create NAME` without `--replica-id`.
fn create_default(lab: &Lab, name: &str) -> PathBuf {
    let p = lab.path(name);
    ok(&["create", s(&p)]);
    p
}

/// Refused in one line naming both dirs, exit 2, nothing on stdout, nothing written under the lab.
fn refused_unchanged(lab: &Lab, args: &[&str], dirs: [&Path; 2]) -> String {
    let before = tree(lab.dir.path());
    let (out, err) = code(args, 2);
    assert!(out.is_empty(), "{args:?}: {out}");
    assert_eq!(err.lines().count(), 1, "{args:?}: {err}");
    for d in dirs {
        assert!(err.contains(s(d)), "{args:?}: {err}");
    }
    assert!(err.contains("--allow-other-cluster"), "{args:?}: {err}");
    assert_eq!(tree(lab.dir.path()), before, "{args:?} wrote: {err}");
    err
}

#[test]
fn labs_made_without_replica_id_record_node_0_as_a_default_and_replicate_to_each_other() {
    let lab = Lab::new();
    let (a, b, c) = (create_default(&lab, "a"), create_default(&lab, "b"), create_default(&lab, "c"));
    // How such a lab records its node id: node.id=0 in meta.properties, marked a default.
    let meta = fs::read_to_string(a.join("meta.properties")).unwrap();
    assert!(meta.lines().any(|l| l == "node.id=0"), "{meta}");
    let state: serde_json::Value =
        serde_json::from_str(&fs::read_to_string(a.join("klog-state.json")).unwrap()).unwrap();
    assert_eq!(state["node_id_defaulted"], true, "{state}");
    // A lab given --replica-id carries no mark.
    let chosen = lab.create("chosen", 0, &[]);
    let state: serde_json::Value =
        serde_json::from_str(&fs::read_to_string(chosen.join("klog-state.json")).unwrap()).unwrap();
    assert!(state.get("node_id_defaulted").is_none(), "{state}");

    ok(&["elect", s(&a), "--isr", s(&b), s(&c)]);
    ok(&["append", s(&a), "x", "y"]);
    let out = ok(&["fetch", "--leader", s(&a), s(&b)]);
    assert!(out.contains("copied 1 batch(es)"), "{out}");
    assert_eq!(records(&b).len(), 2);
    ok(&["alter-isr", s(&a), "--isr", s(&b)]);
    // Beside a lab that chose node 0: one says node 0, the other says nothing.
    ok(&["fetch", "--leader", s(&a), s(&chosen)]);
    assert_eq!(records(&chosen).len(), 2);
    // The mark survives what the commands rewrote, and a cluster view reads them too.
    let state: serde_json::Value =
        serde_json::from_str(&fs::read_to_string(b.join("klog-state.json")).unwrap()).unwrap();
    assert_eq!(state["node_id_defaulted"], true, "{state}");
}

#[test]
fn two_dirs_that_say_one_node_id_are_refused_by_fetch_elect_and_alter_isr() {
    let lab = Lab::new();
    let leader = lab.create("leader", 3, &[]);
    let twin = lab.create("twin", 3, &[]);
    ok(&["elect", s(&leader)]);
    ok(&["append", s(&leader), "x"]);
    for args in [
        vec!["fetch", "--leader", s(&leader), s(&twin)],
        vec!["elect", s(&leader), "--isr", s(&twin)],
        vec!["alter-isr", s(&leader), "--isr", s(&twin)],
    ] {
        let err = refused_unchanged(&lab, &args, [&leader, &twin]);
        assert!(
            err.contains("cluster.id hQdASGK-YMcbA2ARRLzXZw, node id 3 but ")
                && err.contains("(cluster.id hQdASGK-YMcbA2ARRLzXZw, node id 3) says the same node id"),
            "{err}"
        );
    }
    // Asked for, they run.
    ok(&["fetch", "--leader", s(&leader), s(&twin), "--allow-other-cluster"]);
    assert_eq!(records(&twin).len(), 1);
    ok(&["alter-isr", s(&leader), "--isr", s(&twin), "--allow-other-cluster"]);
}

#[test]
fn a_dir_that_says_a_cluster_beside_one_that_says_none_is_refused_by_fetch_elect_and_alter_isr() {
    let lab = Lab::new();
    let leader = create_default(&lab, "leader");
    let bare = create_default(&lab, "bare");
    ok(&["elect", s(&leader)]);
    ok(&["append", s(&leader), "x"]);
    // A dir whose meta.properties records no cluster.id (as ZooKeeper brokers before 0.10.1).
    let path = bare.join("meta.properties");
    let meta = fs::read_to_string(&path).unwrap();
    fs::write(&path, meta.lines().filter(|l| !l.starts_with("cluster.id=")).collect::<Vec<_>>().join("\n") + "\n")
        .unwrap();
    for args in [
        vec!["fetch", "--leader", s(&leader), s(&bare)],
        vec!["elect", s(&leader), "--isr", s(&bare)],
        vec!["alter-isr", s(&leader), "--isr", s(&bare)],
    ] {
        let err = refused_unchanged(&lab, &args, [&leader, &bare]);
        assert!(
            err.contains("no cluster.id, node id 0 by default but ")
                && err.contains(
                    "(cluster.id hQdASGK-YMcbA2ARRLzXZw, node id 0 by default): nothing says they are one cluster"
                ),
            "{err}"
        );
    }
    // The other way round: the dir without a cluster.id leading.
    let (out, err) = code(&["fetch", "--leader", s(&bare), s(&leader)], 2);
    assert!(out.is_empty() && err.contains("nothing says they are one cluster"), "{err}");
    ok(&["fetch", "--leader", s(&leader), s(&bare), "--allow-other-cluster"]);
    assert_eq!(records(&bare).len(), 1);
}
