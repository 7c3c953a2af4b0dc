//! What a new user reads (issue 23, items 10-18): data-dir overviews that show what is on disk,
//! recover and fetch reports that say what happened in order, and errors in klog's own words.

use crate::common::{code, copy_dir, kafka_real, ok, s, Lab};

fn lines_with<'t>(text: &'t str, needle: &str) -> Vec<&'t str> {
    text.lines().filter(|l| l.contains(needle)).collect()
}

#[test]
fn check_and_dump_show_no_made_up_numbers_for_what_is_not_on_disk_or_not_checkpointed() {
    let Some(real) = kafka_real() else { return };
    let kraft = real.join("kraft-broker-2026");
    // The metadata log's HW is not in the HW checkpoint: both commands show `-`.
    let check = ok(&["check", s(&kraft)]);
    let row = lines_with(&check, "__cluster_metadata-0")[0].to_string();
    assert_eq!(row.split_whitespace().nth(4), Some("-"), "{row}");
    let dump = ok(&["dump", s(&kraft)]);
    let row = lines_with(&dump, "__cluster_metadata-0")[0].to_string();
    assert_eq!(row.split_whitespace().nth(4), Some("-"), "{row}");
    // The partition's own view says the same, in text and JSON, as the overview's JSON does.
    for args in [&["dump", "--limit", "0"][..], &["check"][..]] {
        let mut a = args.to_vec();
        a.extend(["--partition", "__cluster_metadata-0", s(&kraft)]);
        let text = ok(&a);
        assert!(text.lines().next().unwrap().contains("  HW -  "), "{args:?}: {text}");
        a.push("--json");
        let first = crate::common::json_lines(&ok(&a)).remove(0);
        assert!(first["high_watermark"].is_null(), "{args:?}: {first}");
    }
    let overview = crate::common::json_lines(&ok(&["dump", s(&kraft), "--json"]));
    let meta =
        overview.iter().find(|v| v["partition"] == "__cluster_metadata-0" || v["name"] == "__cluster_metadata-0");
    assert!(meta.is_some_and(|v| v["high_watermark"].is_null()), "{overview:?}");
    // Partitions only the checkpoints list are not rows of zeros: they are listed under the
    // table with what the checkpoints say.
    assert!(dump.contains("5 partition(s) only in the checkpoints, not on disk (deleted or moved):"), "{dump}");
    assert!(dump.lines().any(|l| l == "  TestTopicPatient-0  HW 3  recovery point 0"), "{dump}");
    assert!(!dump.lines().any(|l| l.starts_with(" TestTopicPatient-0")), "a table row for a partition not on disk");
}

#[test]
fn dump_of_a_data_dir_with_a_limit_counts_the_whole_dir() {
    let Some(real) = kafka_real() else { return };
    let text = ok(&["dump", s(&real.join("zk-broker-2020")), "--limit", "3"]);
    assert!(
        text.contains("3 of 54 partition(s) on disk shown (--limit): 3 segment(s), 0 bytes in those shown"),
        "{text}"
    );
    let text = ok(&["dump", s(&real.join("kraft-broker-2026")), "--limit", "3"]);
    assert!(text.contains("3 of 50 partition(s) on disk shown"), "{text}");
    assert!(
        text.contains("5 partition(s) only in the checkpoints, not on disk (deleted or moved): none shown"),
        "{text}"
    );
}

#[test]
fn diff_of_two_data_dirs_shows_both_log_ends_where_one_holds_more() {
    let Some(real) = kafka_real() else { return };
    let (a, b) = (real.join("zk-broker-2020"), real.join("zk-broker-2021"));
    // Exit 1: some partitions are on one side only.
    let (text, _) = code(&["diff", s(&a), s(&b)], 1);
    let row = lines_with(&text, "__consumer_offsets-2 ")[0];
    assert!(row.contains("A LEO 0, B LEO 3: identical up to 0"), "{row}");
    assert!(lines_with(&text, "__consumer_offsets-0 ")[0].contains("identical (LEO 0)"), "{text}");
    assert!(text.contains("agree up to the shorter log end"), "{text}");
    let json = crate::common::json_lines(&code(&["diff", s(&a), s(&b), "--json"], 1).0);
    let p2 = json.iter().find(|v| v["partition"] == "__consumer_offsets-2").unwrap();
    assert_eq!((p2["a_log_end_offset"].as_i64(), p2["b_log_end_offset"].as_i64()), (Some(0), Some(3)));
}

#[test]
fn two_brokers_with_broker_id_0_and_no_common_cluster_id_are_two_replicas() {
    let Some(real) = kafka_real() else { return };
    let lab = Lab::new();
    let (a, b) = (lab.path("a"), lab.path("b"));
    copy_dir(&real.join("zk-broker-2020"), &a);
    copy_dir(&real.join("zk-broker-2021"), &b);
    // Nothing says they are one cluster (one node id, a cluster.id on one side only): refused
    // in one line naming both dirs and ids, unless asked.
    let (_, err) = code(&["recover", s(&b), "--leader", s(&a), "--dry-run"], 2);
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(
        err.contains("no cluster.id, node id 0 but ") && err.contains("(cluster.id lRaQCIBoRh2xRKLuP9CAQg, node id 0)"),
        "{err}"
    );
    assert!(err.contains("--allow-other-cluster"), "{err}");
    let text = ok(&["recover", s(&b), "--leader", s(&a), "--dry-run", "--allow-other-cluster"]);
    assert!(text.contains("both say node id 0, but only"), "{text}");
    assert!(text.contains("taken as two brokers"), "{text}");
    // The same broker (cluster.id and node id) in two dirs is one replica: refused.
    let c = lab.path("c");
    copy_dir(&real.join("zk-broker-2020"), &c);
    let (_, err) = code(&["recover", s(&c), "--leader", s(&a), "--dry-run"], 2);
    assert!(err.contains("says it is the same replica as") && err.contains("node.id=0"), "{err}");
}

/// A leader `b` with 5 records and a follower `a` that crashed behind it.
fn behind(lab: &Lab) -> (std::path::PathBuf, std::path::PathBuf) {
    let a = lab.create("a", 1, &[]);
    let b = lab.create("b", 2, &[]);
    ok(&["elect", s(&b), "--isr", s(&a)]);
    ok(&["append", s(&b), "m1", "m2"]);
    ok(&["fetch", "--leader", s(&b), s(&a), "--rounds", "2"]);
    ok(&["append", s(&b), "m3", "m4", "m5"]);
    ok(&["crash", s(&a)]);
    (a, b)
}

#[test]
fn catch_up_is_reported_after_the_picture_of_the_cut() {
    let lab = Lab::new();
    let (a, b) = behind(&lab);
    let text = ok(&["recover", s(&a), "--leader", s(&b), "--catch-up"]);
    let picture = text.find("before and after the cut").expect("picture");
    let caught = text.find("catching up from the leader").expect("catch-up heading");
    let agree = text.find("after catching up: the logs agree").expect("verdict");
    assert!(picture < caught && caught < agree, "{text}");
}

#[test]
fn recovery_after_a_torn_write_shows_the_log_end_the_crash_left() {
    let lab = Lab::new();
    let a = lab.create("a", 1, &[]);
    ok(&["elect", s(&a)]);
    let values: Vec<String> = (1..=20).map(|i| format!("v{i}")).collect();
    let mut args = vec!["append", s(&a)];
    args.extend(values.iter().map(String::as_str));
    args.extend(["--records-per-batch", "2"]);
    ok(&args);
    let crash = ok(&["crash", s(&a), "--torn-bytes", "5"]);
    assert!(crash.contains("LEO was 20"), "{crash}");
    let text = ok(&["recover", s(&a)]);
    assert!(text.contains("its header names offsets 18 to 19"), "{text}");
    assert!(text.contains("LEO 20 -> 18 (2 offsets gone)"), "{text}");
}

#[test]
fn fetch_with_the_roles_swapped_says_so() {
    let lab = Lab::new();
    let (a, b) = (lab.create("a", 1, &[]), lab.create("b", 2, &[]));
    ok(&["elect", s(&b), "--isr", s(&a)]);
    let (_, err) = code(&["fetch", "--leader", s(&a), s(&b)], 2);
    assert!(err.contains(&format!("but {} is: the arguments look swapped", s(&b))), "{err}");
    assert!(err.contains(&format!("try `--leader {} {}`", s(&b), s(&a))), "{err}");
    assert!(!err.contains("make it one with `klog elect"), "{err}");
}

#[test]
fn clap_refusals_are_one_klog_error_line_and_modes_ignore_case() {
    for args in [&["create"][..], &["recover", "x", "--mode", "kip-279"], &["dump", "x", "--limt", "3"], &["frob"]] {
        let (_, err) = code(args, 2);
        assert!(err.starts_with("klog: error: "), "{args:?}: {err}");
        assert_eq!(err.trim_end().lines().count(), 1, "{args:?}: {err}");
    }
    let (_, err) = code(&["recover", "x", "--mode", "kip-279"], 2);
    assert!(err.contains("tip: a similar value exists: 'kip279'"), "{err}");
    // An upper-case mode is the mode (the refusal is about the missing dir, not the mode).
    let lab = Lab::new();
    let (a, b) = behind(&lab);
    let text = ok(&["recover", s(&a), "--leader", s(&b), "--mode", "KIP279", "--dry-run"]);
    assert!(text.contains("mode kip279"), "{text}");
}

#[test]
fn small_words_read_right() {
    let lab = Lab::new();
    // A file where the demo wants a directory: said so, not "list failed".
    let file = lab.path("file");
    std::fs::write(&file, b"x").unwrap();
    let (_, err) = code(&["demo", "--dir", s(&file)], 2);
    assert!(err.contains("is not a directory; --dir takes an empty or absent directory"), "{err}");
    assert!(!err.contains("list failed"), "{err}");
    // `generate` is in the help the README sends people to, and alone is an error like bare klog.
    assert!(ok(&["--help"]).contains("\n  generate "), "generate is not in --help");
    for args in [&["generate"][..], &[]] {
        let (_, err) = code(args, 2);
        assert!(err.starts_with("klog: error: klog") && err.contains("needs a command"), "{args:?}: {err}");
    }
    // One offset is one offset; a follower is "a follower".
    let (a, b) = behind(&lab);
    ok(&["recover", s(&a), "--leader", s(&b)]);
    let (_, err) = code(&["fetch", "--leader", s(&a), s(&lab.create("c", 3, &[]))], 2);
    assert!(err.contains("(it is a follower)"), "{err}");
    let demo = ok(&["demo", "--dir", s(&lab.path("demo"))]);
    assert!(demo.contains("1 offset removed") && !demo.contains("1 offsets"), "{demo}");
    // The demo explains its picture's legend once, not after every picture.
    assert_eq!(demo.matches("↑ mark before the offset").count(), 1, "{demo}");
}

/// Run a `demos/` script with `env`; (stdout, stderr, exit code).
fn script(name: &str, env: &[(&str, &std::path::Path)], modes: Option<&str>) -> (String, String, Option<i32>) {
    let script = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("demos").join(name);
    let mut cmd = std::process::Command::new("bash");
    cmd.arg(&script).env("KLOG", assert_cmd::cargo::cargo_bin("klog")).env("NO_COLOR", "1").env_remove("MODES");
    for (k, v) in env {
        cmd.env(k, v);
    }
    if let Some(m) = modes {
        cmd.env("MODES", m);
    }
    let out = cmd.output().expect("bash");
    (
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
        out.status.code(),
    )
}

#[test]
fn demo_scripts_check_modes_and_the_lab_before_the_first_step() {
    let lab = Lab::new();
    let dir = lab.path("lab");
    for name in ["kip101-1.sh", "kip101-2.sh", "kip279.sh"] {
        let (out, err, code) = script(name, &[("LAB", &dir)], Some("hw bogus"));
        assert_eq!(code, Some(2), "{name}: {out}{err}");
        assert!(out.is_empty(), "{name}: ran steps before refusing: {out}");
        assert!(err.contains("MODES: unknown mode 'bogus' (give hw, kip101 and/or kip279)"), "{name}: {err}");
        assert!(!dir.exists(), "{name}: the refusal made the lab");
    }
    let (_, err, code) = script("kip101-1.sh", &[("LAB", &dir)], Some("hw"));
    assert_eq!(code, Some(0), "{err}");
    // The same LAB again: refused at once, saying how to clear it or use another.
    let (out, err, code) = script("kip101-1.sh", &[("LAB", &dir)], Some("hw"));
    assert_eq!(code, Some(2), "{out}{err}");
    assert!(out.is_empty(), "{out}");
    let hw = dir.join("hw");
    assert!(err.contains(&format!("{} exists already", hw.display())), "{err}");
    assert!(err.contains(&format!("rm -rf '{}'", hw.display())) && err.contains("another LAB="), "{err}");
    // Another mode in the same LAB is fresh.
    let (_, err, code) = script("kip101-1.sh", &[("LAB", &dir)], Some("kip101"));
    assert_eq!(code, Some(0), "{err}");
    script("watch.sh", &[("LAB", &dir)], None);
    let (out, err, code) = script("watch.sh", &[("LAB", &dir)], None);
    assert_eq!((code, out.is_empty()), (Some(2), true), "{out}{err}");
}

#[test]
fn draw_refuses_an_svg_path_it_cannot_write_before_drawing() {
    let lab = Lab::new();
    let (a, b) = behind(&lab);
    let (out, err) = code(&["draw", s(&a), s(&b), "--svg", "/nonexistent/x.svg"], 2);
    assert!(out.is_empty(), "drew before refusing: {out}");
    assert!(err.contains("/nonexistent is not a directory to write into") && !err.contains(".tmp"), "{err}");
}

#[test]
fn one_epoch_is_one_colour_in_text_and_picture_in_256_colours_unless_colorterm_says_truecolor() {
    let lab = Lab::new();
    let (a, b) = behind(&lab);
    ok(&["recover", s(&a), "--leader", s(&b)]);
    ok(&["elect", s(&b), "--epoch", "1", "--isr", s(&a)]);
    ok(&["append", s(&b), "m6"]);
    let run = |args: &[&str], colorterm: Option<&str>| {
        let mut c = crate::common::klog();
        c.env_remove("NO_COLOR").env_remove("COLORTERM").args(["--color", "always"]).args(args);
        if let Some(v) = colorterm {
            c.env("COLORTERM", v);
        }
        String::from_utf8(c.assert().success().get_output().stdout.clone()).unwrap()
    };
    let (dump, draw) = (run(&["dump", s(&b)], None), run(&["draw", s(&b)], None));
    // Epoch 1 is sky blue: xterm 31 as text in the table and as the block's background.
    assert!(dump.contains("\x1b[38;5;31m1\x1b["), "{dump:?}");
    assert!(draw.contains("\x1b[48;5;31;"), "{draw:?}");
    for text in [&dump, &draw] {
        assert!(!text.contains("8;2;"), "24-bit colour without COLORTERM: {text:?}");
    }
    let (dump, draw) = (run(&["dump", s(&b)], Some("truecolor")), run(&["draw", s(&b)], Some("truecolor")));
    assert!(dump.contains("38;2;31;143;191m"), "{dump:?}");
    assert!(draw.contains("\x1b[48;2;31;143;191;"), "{draw:?}");
}

/// A hint at 80 columns (the width an operator's terminal has): stderr of a refused command.
fn refusal_at_80(args: &[&str]) -> String {
    let out = crate::common::klog().env("COLUMNS", "80").args(args).assert().code(2).get_output().stderr.clone();
    String::from_utf8_lossy(&out).into_owned()
}

#[test]
fn recover_with_the_roles_swapped_names_the_real_leader_instead_of_suggesting_an_election() {
    let lab = Lab::new();
    let (a, b) = (lab.create("a", 1, &[]), lab.create("b", 2, &[]));
    ok(&["elect", s(&a), "--isr", s(&b)]);
    ok(&["append", s(&a), "m1"]);
    // `recover a --leader b`: a leads, b follows.
    for dry in [true, false] {
        let mut args = vec!["recover", s(&a), "--leader", s(&b)];
        if dry {
            args.push("--dry-run");
        }
        let err = refusal_at_80(&args);
        assert!(err.contains(&format!("but {} leads at epoch 0: the roles look swapped", s(&a))), "{err}");
        assert!(err.contains(&format!("`klog recover {} --leader {}`", s(&b), s(&a))), "{err}");
        assert!(!err.contains("klog elect"), "{err}");
    }
}

#[test]
fn a_missing_leader_flag_is_named() {
    let lab = Lab::new();
    let (a, b) = (lab.create("a", 1, &[]), lab.create("b", 2, &[]));
    let err = refusal_at_80(&["recover", s(&a), "--mode", "hw"]);
    assert!(err.contains("were not provided: --leader <LEADER>;"), "{err}");
    let err = refusal_at_80(&["fetch", s(&a), s(&b)]);
    assert!(
        err.contains("klog fetch takes one dir besides the leader's, which --leader names (is --leader missing?)"),
        "{err}"
    );
}

#[test]
fn a_negative_number_is_refused_with_what_the_flag_takes() {
    let lab = Lab::new();
    let a = lab.create("a", 1, &[]);
    let err = refusal_at_80(&["dump", s(&a), "--limit", "-1"]);
    assert!(err.contains("invalid value '-1' for '--limit <N>': must be between 0 and"), "{err}");
    assert!(!err.contains("-- -1"), "{err}");
    let err = refusal_at_80(&["fetch", "--leader", s(&a), s(&a), "--rounds", "-2"]);
    assert!(err.contains("'--rounds <N>': must be between 1 and"), "{err}");
}

#[test]
fn history_on_a_zookeeper_broker_and_check_on_a_folder_of_brokers_say_what_they_are() {
    let Some(real) = kafka_real() else { return };
    let err = refusal_at_80(&["history", s(&real.join("zk-broker-2021"))]);
    assert!(err.contains("a ZooKeeper-mode broker's dir (meta.properties version 0)"), "{err}");
    let lab = Lab::new();
    let (a, b) = (lab.create("brokers/a", 1, &[]), lab.create("brokers/b", 2, &[]));
    let err = refusal_at_80(&["check", s(&lab.path("brokers"))]);
    assert!(err.contains("not a Kafka log dir itself, but it holds 2 broker dir(s)"), "{err}");
    assert!(err.contains(&format!("`klog check {} {}` reads them as one cluster", s(&a), s(&b))), "{err}");
    assert!(!err.contains("klog create"), "{err}");
}

/// Issue 34, point 16: on a broker's dir the HW checkpoint lags the broker's HW (written every
/// 5 s): "truncated lost" records above it may have been acknowledged, and the report says so;
/// in klog's labs (HW written at every change) it does not.
#[test]
fn a_restart_report_on_a_brokers_dir_says_the_hw_checkpoint_may_lag() {
    let lab = Lab::new();
    let a = lab.create("a", 1, &[]);
    let b = lab.create("b", 2, &[]);
    ok(&["elect", s(&b), "--isr", s(&a)]);
    ok(&["append", s(&b), "x"]);
    ok(&["fetch", "--leader", s(&b), s(&a)]);
    ok(&["append", s(&b), "y"]);
    ok(&["crash", s(&b)]);
    ok(&["elect", s(&a)]);
    let note = "a broker writes that checkpoint every replica.high.watermark.checkpoint.interval.ms";
    let labs = ok(&["recover", s(&b), "--leader", s(&a), "--dry-run"]);
    assert!(labs.contains("truncated lost 1") && !labs.contains(note), "{labs}");
    // The same dir as a broker's (no klog state): the note, and the JSON flag.
    std::fs::remove_file(b.join("klog-state.json")).unwrap();
    let broker = ok(&["recover", s(&b), "--leader", s(&a), "--dry-run"]);
    assert!(broker.contains(note) && broker.contains("the dirs cannot tell"), "{broker}");
    let json = crate::common::json_lines(&ok(&["recover", s(&b), "--leader", s(&a), "--dry-run", "--json"]));
    assert!(json.iter().any(|v| v["summary"]["high_watermark_checkpoint_lags"] == true), "{json:?}");
}
