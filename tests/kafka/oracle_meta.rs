//! `meta.properties` as Kafka reads it: for each variant (every era's keys, every syntax
//! `java.util.Properties` accepts, and what Kafka refuses), `klog check DATA_DIR` has a finding
//! on the file exactly when Kafka 4.4.0's `MetaProperties.Builder(props).build()` refuses it, or
//! builds one without a node id, on which `KafkaRaftServer` refuses to start ("node ID not
//! found").

use crate::common::*;
use crate::oracle::{meta_batch, report_agreement};
use std::fs;

/// (name, bytes of meta.properties)
fn variants() -> Vec<(&'static str, Vec<u8>)> {
    let v = |s: &str| s.as_bytes().to_vec();
    let id = "hQdASGK-YMcbA2ARRLzXZw";
    let dir_id = "_I_jcZ_PfjYGGk5iaEPO2w";
    vec![
        ("kraft", v(&format!("version=1\nnode.id=1\ncluster.id={id}\ndirectory.id={dir_id}\n"))),
        ("kraft-no-directory-id", v(&format!("version=1\nnode.id=1\ncluster.id={id}\n"))),
        ("zk-v0", v("version=0\nbroker.id=0\n")),
        ("zk-v0-cluster", v(&format!("#\n#Tue Dec 01 10:43:19 UTC 2020\nbroker.id=0\nversion=0\ncluster.id={id}\n"))),
        ("colon-syntax", v(&format!("version:1\nnode.id:1\ncluster.id:{id}\n"))),
        ("space-syntax", v(&format!("version 1\nnode.id 1\ncluster.id {id}\n"))),
        ("leading-space", v(&format!("   version=1\n\tnode.id = 1\n cluster.id=  {id}\n"))),
        ("bang-comment", v(&format!("! a comment\nversion=1\nnode.id=1\ncluster.id={id}\n"))),
        ("unicode-escape", v(&format!("version=\\u0031\nnode.id=1\ncluster.id={id}\n"))),
        ("continuation", v(&format!("version=1\nnode.id=\\\n  1\ncluster.id={id}\n"))),
        ("latin1-comment", [b"# caf\xe9\n".to_vec(), v(&format!("version=1\nnode.id=1\ncluster.id={id}\n"))].concat()),
        ("crlf", v(&format!("version=1\r\nnode.id=1\r\ncluster.id={id}\r\n"))),
        ("duplicate-key", v(&format!("version=0\nversion=1\nnode.id=1\ncluster.id={id}\n"))),
        ("no-version", v(&format!("node.id=1\ncluster.id={id}\n"))),
        ("version-2", v(&format!("version=2\nnode.id=1\ncluster.id={id}\n"))),
        ("version-word", v(&format!("version=one\nnode.id=1\ncluster.id={id}\n"))),
        ("v1-no-node-id", v(&format!("version=1\ncluster.id={id}\n"))),
        ("v1-no-cluster-id", v("version=1\nnode.id=1\n")),
        ("v1-broker-id-only", v(&format!("version=1\nbroker.id=1\ncluster.id={id}\n"))),
        ("v0-no-broker-id", v("version=0\n")),
        ("v0-node-id-only", v("version=0\nnode.id=1\n")),
        ("node-id-word", v(&format!("version=1\nnode.id=x\ncluster.id={id}\n"))),
        ("node-id-trailing-space", v(&format!("version=1\nnode.id=1 \ncluster.id={id}\n"))),
        ("node-id-negative", v(&format!("version=1\nnode.id=-1\ncluster.id={id}\n"))),
        ("node-id-too-big", v(&format!("version=1\nnode.id=2147483648\ncluster.id={id}\n"))),
        ("node-and-broker-id-differ", v(&format!("version=1\nnode.id=1\nbroker.id=2\ncluster.id={id}\n"))),
        ("bad-directory-id", v(&format!("version=1\nnode.id=1\ncluster.id={id}\ndirectory.id=nope\n"))),
        ("cluster-id-not-uuid", v("version=1\nnode.id=1\ncluster.id=my-cluster\n")),
        ("empty-cluster-id", v("version=1\nnode.id=1\ncluster.id=\n")),
        ("extra-keys", v(&format!("version=1\nnode.id=1\ncluster.id={id}\nfoo=bar\n"))),
        ("bad-unicode-escape", v(&format!("version=1\nnode.id=1\ncluster.id={id}\\u00zz\n"))),
        ("empty", v("")),
    ]
}

#[test]
fn klog_check_flags_meta_properties_exactly_where_kafka_refuses_it() {
    let lab = Lab::new();
    let mut cases = Vec::new();
    for (name, bytes) in variants() {
        let d = lab.path(name);
        ok(&["create", s(&d), "--topic", "t", "--partitions", "2", "--replica-id", "1"]);
        fs::write(d.join("meta.properties"), bytes).unwrap();
        cases.push((d, 1));
    }
    let Some(kafka) = meta_batch(lab.dir.path(), &cases) else { return };
    let mut agree = 0;
    let mut disagree = Vec::new();
    for ((name, _), ((d, _), k)) in variants().iter().zip(cases.iter().zip(&kafka)) {
        let out = klog().args(["check", s(d), "--json"]).output().unwrap();
        let flagged = json_lines(&String::from_utf8_lossy(&out.stdout))
            .iter()
            .any(|v| v["type"] == "finding" && v["path"].as_str().is_some_and(|f| f.ends_with("meta.properties")));
        // Kafka refuses the file (`MetaProperties.Builder.build`), or starts on none that gives
        // no node id (`KafkaRaftServer`: "Error: node ID not found in <dir>").
        let no_node_id = k["meta_properties"]
            .as_object()
            .is_some_and(|m| !m.contains_key("node.id") && !m.contains_key("broker.id"));
        let refused = !k["meta_error"].is_null() || no_node_id;
        if flagged == refused {
            agree += 1;
        } else {
            disagree.push(format!("{name}: klog finding {flagged}, Kafka {}", k["meta_error"]));
        }
    }
    report_agreement("meta.properties", agree, cases.len());
    assert!(disagree.is_empty(), "klog and Kafka disagree on meta.properties:\n{}", disagree.join("\n"));
}
