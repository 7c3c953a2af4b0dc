//! Nothing read from a file or an argument reaches the terminal raw (issue 33): a KRaft
//! metadata log whose topic name holds ESC/BEL sequences, a newline and C1 controls is shown by
//! `history`, `history --picture` and `dump` with every control character escaped, and an
//! error that echoes a hostile argument escapes it on one short line.

use crate::common::*;
use crate::history::{int_array, TOPIC_ID};
use replica_lab::format::batch::{encode_batch, BatchSpec};
use replica_lab::format::record::NewRecord;
use std::fs;
use std::path::PathBuf;

/// A topic name that sets the window title, clears the screen, fakes a line and carries C1
/// controls (U+009B is the one-byte CSI of 8-bit terminals) and DEL.
const HOSTILE: &str = "ev\u{1b}]0;pwned\u{7}il\u{1b}[2J\r\nklog: fake line\u{9b}31m\u{85}\u{7f}x";

/// A TopicRecord v0 naming `name`, and a PartitionRecord of its partition 0.
fn metadata_log(lab: &Lab, name: &str) -> PathBuf {
    let meta = lab.path("controller");
    ok(&["create", s(&meta), "--replica-id", "9", "--topic", "__cluster_metadata"]);
    let mut topic = vec![1u8, 2, 0, name.len() as u8 + 1];
    topic.extend(name.as_bytes());
    topic.extend(TOPIC_ID);
    topic.push(0);
    let mut partition = vec![1, 3, 0];
    partition.extend(0i32.to_be_bytes());
    partition.extend(TOPIC_ID);
    for _ in 0..2 {
        int_array(&mut partition, &[1, 2]);
    }
    int_array(&mut partition, &[]);
    int_array(&mut partition, &[]);
    partition.extend(1i32.to_be_bytes());
    partition.extend(0i32.to_be_bytes());
    partition.extend(0i32.to_be_bytes());
    partition.push(0);
    let records: Vec<NewRecord> = [topic, partition]
        .into_iter()
        .enumerate()
        .map(|(i, v)| NewRecord { timestamp: 1_000 + i as i64, key: None, value: Some(v), headers: vec![] })
        .collect();
    fs::write(
        meta.join("__cluster_metadata-0/00000000000000000000.log"),
        encode_batch(&BatchSpec::plain(0, 1), &records),
    )
    .unwrap();
    meta
}

/// Bytes a terminal acts on: C0 controls other than newline, DEL, and C1 controls (U+0080..=U+009F
/// as UTF-8, `C2 80`..`C2 9F`).
fn controls(bytes: &[u8]) -> Vec<String> {
    let text = String::from_utf8_lossy(bytes);
    text.chars()
        .filter(|c| (*c < ' ' && *c != '\n') || ('\u{7f}'..='\u{9f}').contains(c))
        .map(|c| format!("U+{:04X}", c as u32))
        .collect()
}

fn assert_clean(args: &[&str], want_code: i32) -> (String, String) {
    let Ran { code, stdout: o, stderr: e } = run(args);
    assert_eq!(code, want_code, "{args:?}\nstdout: {o:?}\nstderr: {e:?}");
    assert!(controls(o.as_bytes()).is_empty(), "{args:?}: stdout carries {:?}: {o:?}", controls(o.as_bytes()));
    assert!(controls(e.as_bytes()).is_empty(), "{args:?}: stderr carries {:?}: {e:?}", controls(e.as_bytes()));
    (o, e)
}

/// `controls` of `text`, less klog's own colour codes (SGR, `ESC [ digits and ; m`).
fn controls_but_colour(bytes: &[u8]) -> Vec<String> {
    let text = String::from_utf8_lossy(bytes);
    let mut plain = String::new();
    let mut rest: &str = &text;
    while let Some(at) = rest.find("\u{1b}[") {
        plain.push_str(&rest[..at]);
        let body = &rest[at + 2..];
        let end = body.find(|c: char| !(c.is_ascii_digit() || c == ';')).unwrap_or(body.len());
        if body[end..].starts_with('m') {
            rest = &body[end + 1..];
        } else {
            plain.push_str(&rest[at..at + 2]);
            rest = body;
        }
    }
    plain.push_str(rest);
    controls(plain.as_bytes())
}

#[test]
fn a_hostile_topic_name_in_the_metadata_log_reaches_no_terminal_raw() {
    let lab = Lab::new();
    let meta = metadata_log(&lab, HOSTILE);
    let log = meta.join("__cluster_metadata-0");
    let escaped = "ev\\u{1b}]0;pwned\\u{7}il\\u{1b}[2J\\r\\nklog: fake line\\u{9b}31m\\u{85}\\u{7f}x";
    for args in [
        vec!["history", s(&meta)],
        vec!["history", s(&meta), "--picture"],
        vec!["dump", s(&meta)],
        vec!["dump", s(&log)],
        vec!["dump", s(&log), "--batches"],
    ] {
        let (out, _) = assert_clean(&args, 0);
        if args[0] == "history" {
            // the name itself is shown, each control as its escape, on its own line
            assert!(out.contains(&format!("{escaped}-0")), "{args:?}: {out}");
        }
        assert!(!out.contains("klog: fake line") || out.lines().all(|l| !l.starts_with("klog: fake line")), "{out}");
        // on a terminal with colour on, only klog's own colour codes are escapes
        let o = klog().args(&args).args(["--color", "always"]).output().unwrap();
        assert!(o.status.success(), "{args:?}");
        assert!(
            controls_but_colour(&o.stdout).is_empty(),
            "{args:?} --color always: {:?}",
            String::from_utf8_lossy(&o.stdout)
        );
    }
    // Kafka's own dump-log form stays byte-identical to Kafka's tool: its JSON escapes
    // every C0 control (Jackson's rule).
    let kafka = ok(&["dump", s(&log), "--format", "kafka"]);
    assert!(kafka.contains("ev\\u001B]0;pwned\\u0007il\\u001B[2J\\r\\nklog"), "{kafka}");
    assert!(!kafka.chars().any(|c| c < ' ' && c != '\n'), "{kafka:?}");
}

#[test]
fn an_error_echoes_a_hostile_argument_on_one_short_line() {
    let lab = Lab::new();
    let meta = metadata_log(&lab, "orders");
    let hostile = "a\nb\u{1b}]0;t\u{7}c-0";
    // `history` refuses a partition the metadata log never names; `dump` one that is not a name
    for (args, what) in [
        (vec!["history", s(&meta), "--partition", hostile], "the metadata log never mentions partition"),
        (vec!["dump", s(&meta), "--partition", hostile], "not a partition name"),
    ] {
        let (_, err) = assert_clean(&args, 2);
        assert_eq!(err.lines().count(), 1, "{err}");
        assert!(err.contains(what) && err.contains("\"a\\nb\\u{1b}]0;t\\u{7}c-0\""), "{err}");
    }
    let long = format!("{}-0", "x".repeat(20_000));
    for args in [
        vec!["history", s(&meta), "--partition", &long],
        vec!["dump", s(&meta), "--partition", &long],
        vec!["check", s(&meta), "--partition", &long],
    ] {
        let (_, err) = assert_clean(&args, 2);
        assert_eq!(err.lines().count(), 1, "{err}");
        assert!(err.len() < 400, "{} bytes: {err}", err.len());
        assert!(err.contains("…\" (20002 characters)"), "{err}");
    }
    // a value clap refuses: the whole value, escaped, on one line (it was cut at the newline)
    let (_, err) = assert_clean(&["create", s(&lab.path("n")), "--topic=a\nb"], 2);
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(err.contains("invalid value 'a\\nb' for '--topic <TOPIC>'") && err.contains("invalid topic name"), "{err}");
    let (_, err) = assert_clean(&["create", s(&lab.path("n")), &format!("--topic={}", "y".repeat(20_000))], 2);
    assert!(err.len() < 400 && err.contains("(20000 characters)"), "{err}");
    let (_, err) = assert_clean(&["create", s(&lab.path("n")), "--replica-id", "1\u{1b}[2J"], 2);
    assert!(err.contains("'1\\u{1b}[2J'"), "{err}");
    assert!(!lab.path("n").exists());
}

/// A transactional.id (from a `__transaction_state` record) holding a newline and a forged
/// verdict, zero-width characters (U+200B, U+2060, U+FEFF) and bidi marks (U+061C, U+202E):
/// `klog txn` shows each escaped on its own line (issue 46, point 8). Before, the newline was
/// printed raw, so the record could write a verdict line of its own.
#[test]
fn a_transactional_id_cannot_forge_a_line_or_hide_characters_in_txn_output() {
    use crate::transactions::coordinator_record;
    let lab = Lab::new();
    let d = lab.path("b");
    let t = crate::txn_logs::now_ms();
    ok(&["create", s(&d), "--replica-id", "1", "--topic", "orders"]);
    ok(&["create", s(&d), "--replica-id", "1", "--topic", "__transaction_state"]);
    ok(&["elect", s(&d), "--partition", "orders-0"]);
    for producer in ["9", "10"] {
        ok(&["append", s(&d), "--partition", "orders-0", "v", "--producer-id", producer, "--transactional"]);
    }
    let forged = "app\n  the coordinator expects it: all clear\u{200b}\u{feff}\u{61c}";
    let hidden = "x\u{202e}y\u{2060}z";
    let records = [coordinator_record(forged, 9, 1, &[("orders", 0)], t), coordinator_record(hidden, 10, 4, &[], t)];
    let log = encode_batch(&BatchSpec::plain(0, 0), &records);
    fs::write(d.join("__transaction_state-0/00000000000000000000.log"), log).unwrap();
    fs::remove_file(d.join("klog-state.json")).unwrap();
    let (out, err) = code(&["txn", s(&d)], 0);
    assert!(err.is_empty(), "{err}");
    assert!(
        !out.lines().any(|l| l.trim_start().starts_with("the coordinator expects it: all clear")),
        "a forged line: {out}"
    );
    assert!(
        out.contains("transactional.id app\\n  the coordinator expects it: all clear\\u{200b}\\u{feff}\\u{61c} is"),
        "{out}"
    );
    assert!(out.contains("transactional.id x\\u{202e}y\\u{2060}z is CompleteCommit"), "{out}");
    for c in ['\u{200b}', '\u{2060}', '\u{feff}', '\u{61c}', '\u{202e}'] {
        assert!(!out.contains(c), "U+{:04X} raw in: {out}", c as u32);
    }
}

/// A 5,000-byte path gives a short error line that still names the file (issue 46, point 8):
/// its middle is cut, its start and file name kept. Before, the line was 5,115 characters.
#[test]
fn a_long_path_is_cut_in_the_middle_of_an_error_line_keeping_the_file_name() {
    let lab = Lab::new();
    let deep = (0..25).fold(lab.path("root"), |p, i| p.join(format!("{i:02}{}", "d".repeat(198))));
    for (args, name) in [
        (vec!["dump".to_string(), s(&deep.join("00000000000000000007.log")).to_string()], "00000000000000000007.log"),
        (vec!["check".to_string(), s(&deep.join("broker-dir")).to_string()], "broker-dir"),
    ] {
        assert!(args[1].len() > 5000);
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let (_, err) = code(&args, 2);
        assert_eq!(err.lines().count(), 1, "{err}");
        assert!(err.chars().count() < 400, "{} characters: {err}", err.chars().count());
        assert!(err.contains(&format!("…/{name}")), "{err}");
        assert!(err.contains(s(&lab.path("root"))), "the start of the path is kept: {err}");
    }
}
