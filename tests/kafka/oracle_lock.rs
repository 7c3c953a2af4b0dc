//! The lock klog takes is the lock a broker takes: while Kafka 4.4.0's own `FileLock` (what
//! `LogManager` takes on every log dir at start-up) holds a dir, every mutating klog command
//! refuses it and changes nothing, and a dry run (which never takes the lock) sees it, warns once
//! and writes nothing; while klog holds it, Kafka's `tryLock` fails.

use crate::common::*;
use crate::oracle::{oracle, report_agreement};
use std::io::{BufRead, BufReader};
use std::process::Stdio;

#[test]
fn klog_and_kafka_exclude_each_other_through_the_log_dir_lock() {
    let lab = Lab::new();
    let a = lab.create("a", 1, &[]);
    let f = lab.create("f", 2, &[]);
    ok(&["elect", s(&a), "--isr", s(&f)]);
    ok(&["append", s(&a), "m1"]);
    let Some(mut kafka) = oracle() else { return };
    let mut held = kafka.args(["lock", s(&a)]).stdin(Stdio::piped()).stdout(Stdio::piped()).spawn().expect("java");
    let mut line = String::new();
    BufReader::new(held.stdout.take().unwrap()).read_line(&mut line).unwrap();
    assert_eq!(line.trim(), r#"{"locked":true}"#, "Kafka takes the free lock");

    let before = tree(lab.dir.path());
    let refusals: &[&[&str]] = &[
        &["append", s(&a), "m2"],
        &["elect", s(&a)],
        &["flush", s(&a)],
        &["stop", s(&a)],
        &["crash", s(&a)],
        &["recover", s(&a)],
        &["fetch", "--leader", s(&a), s(&f)],
    ];
    let mut agree = 0;
    for args in refusals {
        let (_, err) = code(args, 2);
        assert_eq!(err.lines().count(), 1, "{args:?}: one line: {err}");
        assert!(err.contains("locked by another process"), "{args:?}: {err}");
        assert_eq!(tree(lab.dir.path()), before, "{args:?} changed the lab");
        agree += 1;
    }
    // A dry run never takes the lock and never writes: it probes it, sees Kafka's, goes ahead
    // and says so in one warning line (the files may change while it reads them).
    let dry_runs: &[&[&str]] = &[&["recover", s(&a), "--dry-run"], &["recover", s(&f), "--leader", s(&a), "--dry-run"]];
    for args in dry_runs {
        let (out, err) = code(args, 0);
        assert!(!out.is_empty(), "{args:?}: says what it would do");
        assert_eq!(err.lines().count(), 1, "{args:?}: one line: {err}");
        assert!(err.starts_with("klog: warning:") && err.contains("locked by another process"), "{args:?}: {err}");
        assert_eq!(tree(lab.dir.path()), before, "{args:?} changed the lab");
        agree += 1;
    }
    // Read-only commands never take the lock: a live broker's dir can be read.
    ok(&["dump", s(&a)]);
    ok(&["check", s(&a)]);
    drop(held.stdin.take());
    assert!(held.wait().unwrap().success());

    // Now klog holds it, and Kafka's tryLock fails.
    let lock = replica_lab::replica::DirLock::acquire(&a).expect("klog takes the lock");
    let out = oracle().unwrap().args(["lock", s(&a)]).stdin(Stdio::null()).output().unwrap();
    assert_eq!(String::from_utf8_lossy(&out.stdout).trim(), r#"{"locked":false}"#, "Kafka sees klog's lock");
    agree += 1;
    drop(lock);
    ok(&["append", s(&a), "m2"]);
    report_agreement("lock", agree, refusals.len() + dry_runs.len() + 1);
}
