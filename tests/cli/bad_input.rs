//! The bad-input table: every case runs the real binary on a lab of replicas in every state
//! (leader, follower, crashed, stopped, empty, damaged fixtures, malformed files, plain
//! folders, broker copies) and asserts the exit code, a message that names the problem (never a
//! panic, a backtrace or a debug-formatted OS error), and that the whole lab tree — `.lock`
//! files included — is byte-identical afterwards: for every refusal, every read-only command
//! and every `--dry-run`.

use crate::common::*;
use std::collections::BTreeMap;
use std::fs;
use std::path::PathBuf;

/// The files that differ between two trees, for the failure message.
fn changed(a: &BTreeMap<PathBuf, Option<Vec<u8>>>, b: &BTreeMap<PathBuf, Option<Vec<u8>>>) -> Vec<String> {
    let mut keys: Vec<&PathBuf> = a.keys().chain(b.keys()).collect();
    keys.sort();
    keys.dedup();
    keys.into_iter().filter(|k| a.get(*k) != b.get(*k)).map(|k| k.display().to_string()).collect()
}

/// Build the lab every case runs in.
fn build_lab(lab: &Lab) -> bool {
    let l = lab.create("l", 1, &[]);
    let f = lab.create("f", 2, &[]);
    ok(&["elect", s(&l), "--isr", s(&f)]);
    ok(&["append", s(&l), "m1", "m2", "m3", "--timestamp", "1000"]);
    ok(&["fetch", "--leader", s(&l), s(&f), "--rounds", "2"]);
    let c = lab.create("c", 3, &[]);
    ok(&["elect", s(&c)]);
    ok(&["append", s(&c), "c1", "--timestamp", "1000"]);
    ok(&["append", s(&c), "c2", "--timestamp", "1000"]);
    ok(&["crash", s(&c), "--torn-bytes", "3"]);
    let st = lab.create("st", 4, &[]);
    ok(&["elect", s(&st)]);
    ok(&["append", s(&st), "s1", "--timestamp", "1000"]);
    ok(&["stop", s(&st)]);
    lab.create("e", 5, &[]);
    let z = lab.create("z", 6, &[]);
    ok(&["elect", s(&z), "--epoch", "2147483647"]);
    let hi = lab.create("hi", 7, &[]);
    ok(&["elect", s(&hi), "--epoch", "9"]);
    ok(&["append", s(&hi), "h1", "--timestamp", "1000"]);
    let other = lab.create("other", 8, &["--topic", "other"]);
    ok(&["elect", s(&other)]);
    for (name, file, text) in [
        ("badckpt", "replication-offset-checkpoint", &b"0\n1\ndemo zero 1\n"[..]),
        ("badstate", "klog-state.json", &b"{\"version\": 1, \"partitions\": {\"demo-0\": [}"[..]),
        ("badmeta", "meta.properties", &b"node.id=1\nbad=\\u00zz\n"[..]),
        ("badepochs", "demo-0/leader-epoch-checkpoint", &b"0\n2\n0 0\n"[..]),
    ] {
        let d = lab.create(name, 9, &[]);
        ok(&["elect", s(&d)]);
        ok(&["append", s(&d), "x", "--timestamp", "1000"]);
        fs::write(d.join(file), text).unwrap();
    }
    for name in ["bad-crc", "torn-tail", "missing-index", "multi-epoch"] {
        fixture(lab, name);
    }
    fixture(lab, "diverged");
    let plain = lab.path("plain");
    fs::create_dir_all(plain.join("photos-2024")).unwrap();
    fs::write(plain.join("photos-2024/beach.jpg"), b"jpeg").unwrap();
    fs::write(lab.path("file.txt"), b"not a log dir\n").unwrap();
    fs::create_dir(lab.path("loose")).unwrap();
    fs::write(lab.path("loose/00000000000000000000.index"), b"").unwrap();
    fs::write(lab.path("loose/00000000000000000042.log"), b"\x00\x00\x00\x00\x00\x00\x00\x00\x7f\xff\xff\xffjunkjunk")
        .unwrap();
    let Some(root) = kafka_real() else { return false };
    for name in ["zk-broker-2020", "zk-broker-2021", "kraft-broker-2026"] {
        copy_dir(&root.join(name), &lab.path(name));
    }
    true
}

/// One row: the arguments (`@name` is the lab path `name`), the exit code, and what the message
/// must say (on stderr for exit 2, on stdout otherwise; "" for no requirement).
type Case = (&'static [&'static str], i32, &'static str);

const CASES: &[Case] = &[
    // Paths that are not replicas.
    (&["dump", "@missing"], 2, "no such file or directory"),
    (&["check", "@missing"], 2, "no such file or directory"),
    (&["elect", "@missing"], 2, "no such file or directory"),
    (&["append", "@missing", "x"], 2, "no such file or directory"),
    (&["flush", "@missing"], 2, "no such file or directory"),
    (&["stop", "@missing"], 2, "no such file or directory"),
    (&["crash", "@missing"], 2, "no such file or directory"),
    (&["recover", "@missing"], 2, "no such file or directory"),
    (&["recover", "@missing", "--dry-run"], 2, "no such file or directory"),
    (&["fetch", "--leader", "@missing", "@f"], 2, "no such file or directory"),
    (&["fetch", "--leader", "@l", "@missing"], 2, "no such file or directory"),
    (&["diff", "@l", "@missing"], 2, "no such file or directory"),
    (&["dump", "@plain"], 2, "not a Kafka log dir"),
    (&["check", "@plain"], 2, "not a Kafka log dir"),
    (&["elect", "@plain"], 2, "not a Kafka log dir"),
    (&["append", "@plain", "x"], 2, "not a Kafka log dir"),
    (&["flush", "@plain"], 2, "not a Kafka log dir"),
    (&["stop", "@plain"], 2, "not a Kafka log dir"),
    (&["crash", "@plain"], 2, "not a Kafka log dir"),
    (&["recover", "@plain"], 2, "not a Kafka log dir"),
    (&["elect", "@plain/photos-2024"], 2, "not a Kafka log dir"),
    (&["check", "@file.txt"], 2, "not a directory"),
    (&["elect", "@file.txt"], 2, "not a directory"),
    (&["append", "@file.txt", "x"], 2, "not a directory"),
    (&["stop", "@file.txt"], 2, "not a directory"),
    (&["recover", "@file.txt"], 2, "not a directory"),
    (&["create", "@file.txt"], 2, "not a directory"),
    (&["create", "@l"], 2, "exists already"),
    (&["create", "@plain"], 2, "not a log dir klog made"),
    (&["create", "@new", "--topic", "bad topic"], 2, "not allowed in a topic name"),
    (&["create", "@new", "--topic", ".."], 2, "topic name"),
    (&["create", "@new", "--segment-bytes", "5"], 2, "segment-bytes"),
    (&["check", "@l", "--partition", "nope-3"], 2, "no partition nope-3"),
    (&["check", "@l/demo-0", "--partition", "other-1"], 2, "names other-1"),
    (&["append", "@l", "x", "--partition", "nope-3"], 2, "no partition nope-3"),
    // Requests the replica's state refuses.
    (&["append", "@f", "x"], 2, "not the leader"),
    (&["append", "@c", "x"], 2, "restarts as a follower"),
    (&["append", "@st", "x"], 2, "restarts as a follower"),
    (&["append", "@e", "x"], 2, "not the leader"),
    (&["append", "@l"], 2, "nothing to append"),
    (&["append", "@l", "--count", "1", "--value-size", "2147483571"], 2, "RecordTooLargeException"),
    (&["fetch", "--leader", "@f", "@e"], 2, "is not a leader"),
    (&["fetch", "--leader", "@c", "@e"], 2, "is not a leader"),
    (&["fetch", "--leader", "@l", "@l"], 2, "same replica dir"),
    (&["fetch", "--leader", "@l", "@hi"], 2, "FENCED_LEADER_EPOCH"),
    (&["fetch", "--leader", "@l", "@z"], 2, "FENCED_LEADER_EPOCH"),
    (&["fetch", "--leader", "@l", "@c"], 2, "klog recover --leader"),
    (&["fetch", "--leader", "@l", "@st"], 2, "klog recover --leader"),
    (&["fetch", "--leader", "@hi", "@l"], 2, "a leader is never fetched into"),
    (&["fetch", "--leader", "@l", "@other"], 2, "holds partition other-0"),
    (&["recover", "@f", "--leader", "@e"], 2, "is not a leader"),
    (&["recover", "@f", "--leader", "@f"], 2, "same replica dir"),
    (&["recover", "@hi", "--leader", "@l"], 2, "FENCED_LEADER_EPOCH"),
    (&["recover", "@hi", "--leader", "@l", "--dry-run"], 2, "FENCED_LEADER_EPOCH"),
    (&["recover", "@other", "--leader", "@l"], 2, "holds partition"),
    (&["recover", "@f", "--leader", "@hi", "--dry-run", "--leader-epoch", "3"], 2, "above --leader-epoch 3"),
    (&["recover", "@f", "--leader", "@l", "--leader-epoch", "3"], 2, "--dry-run"),
    (&["recover", "@f", "--leader", "@l", "--dry-run", "--leader-epoch=-1"], 2, "between 0"),
    (&["recover", "@f", "--dry-run", "--leader-epoch", "3"], 2, "--leader"),
    (&["elect", "@z"], 2, "no further election is possible"),
    (&["elect", "@hi", "--epoch", "9"], 2, "not above"),
    (&["elect", "@l", "--epoch", "5", "--isr", "@hi"], 2, "not above"),
    (&["elect", "@l", "--isr", "@other"], 2, "holds partition"),
    (&["elect", "@l", "--isr", "@missing"], 2, "no such file or directory"),
    (&["crash", "@e", "--torn-bytes", "3"], 2, "active segment is empty"),
    (&["crash", "@l", "--torn-bytes", "0"], 2, "torn-bytes"),
    (&["crash", "@l", "--torn-bytes", "100000"], 2, "torn-bytes"),
    (&["crash", "@l", "--flip-byte", "100000"], 2, "flip-byte"),
    (&["crash", "@l", "--flip-byte"], 2, "--seed"),
    (&["crash", "@l", "--hw=-1"], 2, "hw"),
    // Malformed files: writers refuse with the file and the problem.
    (&["append", "@badckpt", "y"], 2, "replication-offset-checkpoint"),
    (&["elect", "@badckpt"], 2, "replication-offset-checkpoint"),
    (&["stop", "@badckpt"], 2, "replication-offset-checkpoint"),
    (&["flush", "@badckpt"], 2, "replication-offset-checkpoint"),
    (&["append", "@badstate", "y"], 2, "klog-state.json"),
    (&["crash", "@badstate"], 2, "klog-state.json"),
    (&["append", "@badmeta", "y"], 2, "meta.properties"),
    (&["append", "@badepochs", "y"], 2, "leader-epoch-checkpoint"),
    // Arguments the parser refuses.
    (&["append", "@l", "x", "--timestamp", "soon"], 2, "--timestamp"),
    (&["elect", "@l", "--epoch=-3"], 2, "epoch"),
    (&["elect", "@l", "--epoch", "2147483648"], 2, "epoch"),
    (&["fetch", "--leader", "@l", "@f", "--rounds", "lots"], 2, "--rounds"),
    (&["recover", "@f", "--mode", "kip999", "--leader", "@l"], 2, "kip999"),
    (&["dump", "@l", "--from", "ten"], 2, "--from"),
    (&["nonsense"], 2, "nonsense"),
    // Readers on damage: they show what they can, find what is wrong, and write nothing.
    (&["check", "@bad-crc"], 1, "CRC"),
    (&["check", "@torn-tail"], 1, "torn write"),
    (&["check", "@missing-index"], 0, ""),
    (&["check", "@badckpt"], 1, "replication-offset-checkpoint"),
    (&["check", "@badstate"], 1, "klog-state.json"),
    (&["check", "@badmeta"], 1, "meta.properties"),
    (&["dump", "@bad-crc"], 0, ""),
    (&["dump", "@torn-tail", "--json"], 0, ""),
    (&["dump", "@badckpt"], 0, ""),
    (&["dump", "@badstate", "--json"], 0, ""),
    (&["dump", "@c", "--epochs"], 0, ""),
    (&["dump", "@loose/00000000000000000000.index"], 0, ""),
    (&["dump", "@loose/00000000000000000042.log"], 0, ""),
    (&["dump", "@multi-epoch/demo-0/leader-epoch-checkpoint"], 0, ""),
    (&["diff", "@diverged/a", "@diverged/b"], 1, ""),
    (&["diff", "@l", "@f"], 0, ""),
    (&["recover", "@c", "--dry-run"], 0, ""),
    (&["recover", "@bad-crc", "--dry-run"], 0, ""),
    (&["recover", "@torn-tail", "--dry-run", "--json"], 0, ""),
    (&["recover", "@st", "--dry-run"], 0, ""),
    (&["recover", "@c", "--leader", "@l", "--dry-run"], 0, "DRY RUN"),
    (&["recover", "@f", "--leader", "@l", "--dry-run", "--mode", "hw"], 0, ""),
    (&["recover", "@diverged/b", "--leader", "@diverged/a", "--dry-run"], 2, "is not a leader"),
    // Broker copies: read in place, refused where klog has no business writing.
    (&["check", "@zk-broker-2021", "--partition", "TestTopic-0"], 0, ""),
    (&["dump", "@zk-broker-2021", "--partition", "TestTopic-0", "--json"], 0, ""),
    (&["dump", "@kraft-broker-2026"], 0, ""),
    (&["check", "@zk-broker-2021"], 0, "checked 53 partition(s)"),
    // Without consent every write into a broker copy is refused by the consent gate first...
    (&["append", "@zk-broker-2021", "--partition", "TestTopic-0", "x"], 2, "a log dir klog did not make"),
    (&["elect", "@kraft-broker-2026", "--partition", "__consumer_offsets-0"], 2, "a log dir klog did not make"),
    (&["recover", "@zk-broker-2020"], 2, "a log dir klog did not make"),
    // ...and with it, each request is still refused for its own reason, leaving no backup.
    (&["--allow-broker-dir-writes", "flush", "@zk-broker-2021"], 2, "--partition"),
    (
        &["--allow-broker-dir-writes", "append", "@zk-broker-2021", "--partition", "TestTopic-0", "x"],
        2,
        "only a leader appends",
    ),
    (&["--allow-broker-dir-writes", "crash", "@zk-broker-2021", "--torn-bytes", "3"], 2, "--partition"),
    (&["recover", "@zk-broker-2021", "--partition", "TestTopic-0", "--dry-run"], 0, ""),
    (
        &["--allow-broker-dir-writes", "fetch", "--leader", "@zk-broker-2021", "@e", "--partition", "TestTopic-0"],
        2,
        "no partition TestTopic-0",
    ),
    (
        &["diff", "@zk-broker-2020", "@kraft-broker-2026", "--partition", "__consumer_offsets-0"],
        0,
        "different clusters",
    ),
    (&["diff", "@zk-broker-2021", "@zk-broker-2020", "--partition", "__consumer_offsets-0"], 0, "no cluster.id"),
];

#[test]
fn every_bad_input_is_a_clear_refusal_and_nothing_refused_or_read_changes_a_byte() {
    let lab = Lab::new();
    let complete = build_lab(&lab);
    let root = lab.dir.path();
    let mut ran = 0;
    for (args, want, needle) in CASES {
        if !complete && args.iter().any(|a| a.contains("broker")) {
            continue;
        }
        let args: Vec<String> = args
            .iter()
            .map(|a| match a.strip_prefix('@') {
                Some(name) => root.join(name).display().to_string(),
                None => a.to_string(),
            })
            .collect();
        let before = tree(root);
        let out = klog().args(&args).env("RUST_BACKTRACE", "1").output().unwrap();
        let (stdout, stderr) = (String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
        let code = out.status.code();
        assert_eq!(code, Some(*want), "{args:?}: exit {code:?}\nstdout: {stdout}\nstderr: {stderr}");
        for bad in ["panicked", "stack backtrace", "Os {", "kind: "] {
            assert!(!stderr.contains(bad), "{args:?}: {bad:?} on stderr: {stderr}");
        }
        let said = if *want == 2 { &stderr } else { &stdout };
        assert!(said.contains(needle), "{args:?}: expected {needle:?} in: {said}");
        if *want == 2 {
            assert!(stderr.starts_with("klog: error:") || stderr.starts_with("error:"), "{args:?}: {stderr}");
            if stderr.starts_with("klog: error:") {
                assert_eq!(stderr.trim_end().lines().count(), 1, "{args:?}: one line, not a dump: {stderr}");
            }
        }
        let after = tree(root);
        assert!(after == before, "{args:?} changed {:?}", changed(&before, &after));
        ran += 1;
    }
    assert!(ran >= 80, "only {ran} cases ran");
}
