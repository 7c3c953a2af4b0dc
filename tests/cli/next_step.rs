//! Errors that say what to do next (issue 43, point 5): one test per class of error a user
//! reaches (the `Error` variants), each refusal one line off a terminal, exit 2, naming the path
//! and ending with the step that fixes it where the fix is not obvious from the words before.

use crate::common::*;
use std::fs;
use std::path::Path;

/// A refusal: exit 2, nothing on stdout, one line naming `path` and holding every one of `says`.
fn refused(args: &[&str], path: &Path, says: &[&str]) -> String {
    let (out, err) = code(args, 2);
    assert!(out.is_empty(), "{args:?}: {out}");
    assert_eq!(err.lines().count(), 1, "{args:?}: {err}");
    assert!(err.starts_with(&format!("klog: error: {}", s(path))), "{args:?}: {err}");
    for w in says {
        assert!(err.contains(w), "{args:?}: no {w:?} in {err}");
    }
    err
}

#[test]
fn state_refusals_say_which_command_or_flag_gets_past_them() {
    let lab = Lab::new();
    let (a, b, c) = (lab.create("a", 1, &[]), lab.create("b", 2, &[]), lab.create("c", 3, &["--segment-bytes", "100"]));
    ok(&["elect", s(&b), "--isr", s(&a)]);
    ok(&["elect", s(&a), "--epoch", "5"]);
    // A leader below an epoch its follower has seen: elect it again with the follower in its ISR.
    let args = ["fetch", "--leader", s(&b), s(&a)];
    refused(&args, &b, &["FENCED_LEADER_EPOCH", &format!("`klog elect {} --isr {}`", s(&b), s(&a)), "--no-fencing"]);
    // The step named works: the election goes above the epoch A has seen.
    assert!(ok(&["elect", s(&b), "--isr", s(&a)]).contains("leader at epoch 6"));
    // An election's epoch not above one seen: the first one that is.
    refused(
        &["elect", s(&a), "--epoch", "3"],
        &a,
        &["is not above", "(5)", "give --epoch 6 or above, or leave --epoch out"],
    );
    // An ISR change on a replica that does not lead.
    refused(&["alter-isr", s(&c), "--isr", s(&b)], &c, &[&format!("make it one with `klog elect {}`", s(&c))]);
    // Appends and fetches from a replica that does not lead: the election that makes it lead.
    refused(
        &["append", s(&c), "x"],
        &c,
        &[&format!("only a leader appends (make it one with `klog elect {}`)", s(&c))],
    );
    let d = lab.create("d", 4, &[]);
    refused(&["fetch", "--leader", s(&c), s(&d)], &c, &[&format!("make it one with `klog elect {}`", s(&c))]);
    // A record no segment of this size holds.
    ok(&["elect", s(&c)]);
    let big = "x".repeat(300);
    refused(&["append", s(&c), &big], &c.join("demo-0"), &["RecordTooLargeException", "larger --segment-bytes"]);
}

#[test]
fn layout_refusals_say_what_to_name_instead() {
    let lab = Lab::new();
    let a = lab.create("a", 1, &[]);
    // A partition dir copied without its log dir's meta.properties: copy the whole log dir.
    let partial = lab.path("partial");
    copy_dir(&a.join("demo-0"), &partial.join("demo-0"));
    refused(&["append", s(&partial.join("demo-0")), "x"], &partial, &["no meta.properties", "copy the whole log dir"]);
    // history on a dir with no metadata log: which dir holds one.
    refused(&["history", s(&a)], &a, &["no KRaft metadata log", "metadata.log.dir"]);
    // restore of a dir that is no backup: what a backup is called.
    refused(&["restore", s(&a)], &a, &["is not a klog backup", "<log dir>.klog-backup-N"]);
}

#[test]
fn usage_refusals_say_what_to_give() {
    let lab = Lab::new();
    let (a, b) = (lab.create("a", 1, &[]), lab.create("b", 2, &["--topic", "orders", "--partitions", "2"]));
    ok(&["elect", s(&a)]);
    let (_, err) = code(&["recover", s(&a), "--leader", s(&a)], 2);
    assert!(err.contains("are the same replica dir: name two replicas' dirs") && err.lines().count() == 1, "{err}");
    refused(&["fetch", "--leader", s(&a), s(&b)], &b, &["pick one with --partition NAME (orders-0, orders-1)"]);
}

/// A checkpoint that does not parse stops the command that needs it; `klog check` names it as
/// a finding (exit 1) without the advice to run itself.
#[test]
fn a_malformed_checkpoint_points_to_check_which_lists_it_as_a_finding() {
    let lab = Lab::new();
    let a = lab.create("a", 1, &[]);
    ok(&["elect", s(&a)]);
    ok(&["append", s(&a), "x"]);
    let checkpoint = a.join("replication-offset-checkpoint");
    fs::write(&checkpoint, "garbage\n").unwrap();
    let before = tree(&a);
    refused(
        &["append", s(&a), "y"],
        &checkpoint,
        &["malformed at line 1", "expected a version number", &format!("`klog check {}` shows it", s(&a))],
    );
    assert_eq!(tree(&a), before);
    let (out, _) = code(&["check", s(&a)], 1);
    let finding = out.lines().find(|l| l.contains("replication-offset-checkpoint")).expect(&out);
    assert!(finding.contains("expected a version number") && !finding.contains("klog check"), "{finding}");
}

/// klog's own state file, damaged: the byte position, and the two ways out.
#[test]
fn a_corrupt_klog_state_file_names_its_position_and_the_way_back() {
    let lab = Lab::new();
    let a = lab.create("a", 1, &[]);
    ok(&["elect", s(&a)]);
    let state = a.join("klog-state.json");
    fs::write(&state, "{bad").unwrap();
    refused(
        &["append", s(&a), "x"],
        &state,
        &["corrupt data at position 1", "`klog restore`", "remove the file to read the dir as a broker's"],
    );
    // Removed, the dir reads as a broker's, as the error says.
    fs::remove_file(&state).unwrap();
    assert!(ok(&["dump", s(&a)]).contains("demo-0"));
}

#[cfg(unix)]
#[test]
fn a_fifo_where_a_file_belongs_is_never_opened_and_the_error_says_what_to_put_there() {
    let lab = Lab::new();
    let a = lab.create("a", 1, &[]);
    ok(&["elect", s(&a)]);
    let checkpoint = a.join("replication-offset-checkpoint");
    fs::remove_file(&checkpoint).unwrap();
    let made = std::process::Command::new("mkfifo").arg(&checkpoint).status().unwrap();
    assert!(made.success());
    refused(
        &["append", s(&a), "x"],
        &checkpoint,
        &["is a FIFO, expected a regular file", "put the file Kafka wrote there"],
    );
}

/// Locked and not-klog-made refusals carried their next step already; they still do.
#[test]
fn a_brokers_dir_refusal_says_how_to_work_on_a_copy_and_undo() {
    let lab = Lab::new();
    let a = lab.create("a", 1, &[]);
    fs::remove_file(a.join("klog-state.json")).unwrap();
    refused(&["append", s(&a), "x"], &a, &["--allow-broker-dir-writes", "klog restore"]);
}
