//! Every number on the command line is range-checked by clap against Kafka's own limits:
//! out-of-range values exit 2 with a message naming the limit, before anything runs (no
//! panic, no allocation, nothing on disk). Also the flag combinations clap refuses.

use crate::common::*;

/// (arguments, text the error must contain).
const REFUSED: &[(&[&str], &str)] = &[
    (&["append", "r", "--count", "1", "--value-size", "18446744073709551615"], "between 0 and 2147483571"),
    (&["append", "r", "--count", "1", "--value-size", "3000000000"], "batch of i32 size"),
    (&["append", "r", "--count", "0", "--value-size", "1"], "between 1 and"),
    (&["append", "r", "--count", "18446744073709551615", "--value-size", "1"], "offsets are i64"),
    (&["append", "r", "x", "--records-per-batch", "0"], "record count is an i32"),
    (&["append", "r", "x", "--records-per-batch", "2147483648"], "between 1 and 2147483647"),
    (&["append", "r", "x", "--timestamp", "-5"], "negative timestamps"),
    (&["append", "r", "x", "--count", "1", "--value-size", "1"], "cannot be used with"),
    (&["append", "r", "x", "--stdin"], "cannot be used with"),
    (&["fetch", "--leader", "l", "f", "--rounds", "0"], "between 1 and 1000000"),
    (&["fetch", "--leader", "l", "f", "--rounds", "18446744073709551615"], "between 1 and 1000000"),
    (&["fetch", "--leader", "l", "f", "--max-bytes", "4294967296"], "fetch max bytes is an i32"),
    (&["elect", "r", "--epoch", "-1"], "leader epoch is a non-negative i32"),
    (&["elect", "r", "--epoch", "2147483648"], "between 0 and 2147483647"),
    (&["create", "r", "--segment-bytes", "13"], "at least 14"),
    (&["create", "r", "--segment-bytes", "2147483648"], "segment.bytes is an i32"),
    (&["create", "r", "--index-interval-bytes", "99999999999"], "index.interval.bytes"),
    (&["create", "r", "--segment-index-bytes", "23"], "two 12-byte time-index entries"),
    (&["create", "r", "--segment-ms", "0"], "segment.ms"),
    (&["create", "r", "--partition", "-1"], "partition number"),
    (&["create", "r", "--replica-id", "-1"], "broker id"),
    (&["create", "r", "--topic", "a/b"], "not allowed in a topic name"),
    (&["create", "r", "--topic", ".."], "reserved"),
    (&["crash", "r", "--torn-bytes", "0"], "segment's size is an i32"),
    (&["crash", "r", "--flip-byte", "2147483648"], "position in a segment"),
    (&["crash", "r", "--hw", "-1"], "offset is a non-negative i64"),
    (&["crash", "r", "--seed", "5"], "--flip-byte"),
    (&["recover", "r", "--context", "1000001"], "between 0 and 1000000"),
    (&["dump", "r", "--from", "-1"], "offset is a non-negative i64"),
    (&["dump", "r", "--from", "x"], "not a whole number"),
    (&["dump", "r", "--limit", "9223372036854775808"], "offsets are i64"),
    (&["demo", "nosuch"], "possible values"),
];

#[test]
fn out_of_range_numbers_exit_2_naming_the_limit_and_touch_nothing() {
    let lab = Lab::new();
    for (args, expected) in REFUSED {
        let (stdout, stderr) = {
            let a = klog().current_dir(lab.dir.path()).args(*args).assert().code(2);
            let o = a.get_output();
            (String::from_utf8_lossy(&o.stdout).into_owned(), String::from_utf8_lossy(&o.stderr).into_owned())
        };
        assert!(stdout.is_empty(), "klog {}: printed {stdout}", args.join(" "));
        assert!(stderr.contains(expected), "klog {}: expected {expected:?} in\n{stderr}", args.join(" "));
        assert!(!stderr.contains("panicked"), "klog {}: {stderr}", args.join(" "));
    }
    assert_eq!(std::fs::read_dir(lab.dir.path()).unwrap().count(), 0, "a refused command wrote");
}

#[test]
fn the_largest_values_in_range_are_accepted() {
    let lab = Lab::new();
    let r = lab.create("r", 0, &["--segment-bytes", "2147483647", "--segment-ms", "9223372036854775807"]);
    ok(&["elect", s(&r), "--epoch", "2147483647"]);
    ok(&["append", s(&r), "x", "--timestamp", "0", "--records-per-batch", "2147483647"]);
    let out = ok(&["dump", s(&r), "--from", "9223372036854775807", "--limit", "9223372036854775807"]);
    assert!(out.contains("no records to show"), "{out}");
}

#[test]
fn demo_takes_a_mode_for_every_scenario_watch_included_and_refuses_an_unknown_one() {
    // Watch goes on through a restart (#22), so a mode applies to it too.
    let out = ok(&["demo", "watch", "--mode", "kip101"]);
    assert!(out.contains("$ klog recover $LAB/b --leader $LAB/a --mode kip101"), "{out}");
    let (_, stderr) = code(&["demo", "watch", "--mode", "hw2"], 2);
    assert!(stderr.contains("hw2"), "{stderr}");
}
