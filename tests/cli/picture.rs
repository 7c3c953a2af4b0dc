//! The picture (`klog draw`, its SVG, the demo's and recover's pictures), `recover --explain`
//! against lines written by hand from the spec for S1–S3 under every mode, and `demo --predict`.

use crate::common::*;
use std::path::{Path, PathBuf};

/// Run `klog demo SCENARIO --mode MODE` in a lab under `dir` and return the mode's run dir.
fn demo_lab(dir: &Path, scenario: &str, mode: &str) -> PathBuf {
    let lab = dir.join("lab");
    ok(&["demo", scenario, "--mode", mode, "--dir", s(&lab), "--plain"]);
    lab.join(mode)
}

/// The column (in characters) where `needle` starts in `line`.
fn column(line: &str, needle: &str) -> usize {
    let at = line.find(needle).unwrap_or_else(|| panic!("{needle:?} not in {line:?}"));
    line[..at].chars().count()
}

/// The picture line starting with `start` (not a caption, which ends with a colon).
fn line_starting<'a>(text: &'a str, start: &str) -> &'a str {
    text.lines()
        .find(|l| l.starts_with(start) && !l.ends_with(':'))
        .unwrap_or_else(|| panic!("no line starting {start:?} in\n{text}"))
}

#[test]
fn draw_shows_where_kip101_scenario_1_diverged_under_hw_without_colour() {
    let tmp = tempfile::tempdir().unwrap();
    let run = demo_lab(tmp.path(), "kip101-1", "hw");
    let out = ok(&["draw", s(&run.join("a")), s(&run.join("b"))]);
    assert!(!out.contains('\x1b'), "NO_COLOR output has escape codes:\n{out}");
    let lines: Vec<&str> = out.lines().collect();
    let a = line_starting(&out, "a leader e1");
    let b = line_starting(&out, "b follower e1");
    // Offset 1 holds m3 at epoch 1 on the new leader A and m2 at epoch 0 on B, in one column.
    assert_eq!(column(a, "e1 m3"), column(b, "e0 m2"), "{out}");
    assert_eq!(column(a, "e0 m1"), column(b, "e0 m1"), "{out}");
    let header = lines[0];
    assert!(header.starts_with("offset"), "{out}");
    assert_eq!(column(header, "1"), column(a, "e1 m3"), "offset 1 labels its column:\n{out}");
    // A mark a reader can point at, under offset 1 only.
    let differs = line_starting(&out, "differs at 1");
    assert_eq!(differs.matches('✗').count(), 1, "{out}");
    assert_eq!(column(differs, "✗"), column(a, "e1 m3"), "{out}");
    // HW and LEO of both: the numbers, and the arrow on the edge after offset 1.
    let a_at = lines.iter().position(|l| l.starts_with("a leader e1")).unwrap();
    let b_at = lines.iter().position(|l| l.starts_with("b follower e1")).unwrap();
    let offset_1 = column(a, "e1 m3");
    // B's m2 was acknowledged (below B's HW 2) and the new leader A does not hold it: flagged.
    let fate = lines[b_at + 1];
    assert!(fate.trim_start().starts_with("fate"), "{out}");
    assert_eq!(column(fate, "ACK-LOST"), column(b, "e0 m2"), "{out}");
    assert!(!out.contains("refetch"), "{out}");
    // The epoch caches beside the rows: A's has the epoch-1 entry at offset 1.
    assert!(out.lines().any(|l| l.trim_start().starts_with("cache ") && l.ends_with(" [(0 0) (1 1)]")), "{out}");
    for at in [a_at, b_at + 1] {
        let marks = lines[at + 1];
        assert!(marks.trim_start().starts_with("HW 2 LEO 2"), "{marks}");
        assert_eq!(column(marks, "↑HW,LEO"), offset_1 + 8, "the mark sits after offset 1:\n{out}");
    }
    assert!(out.lines().all(|l| l.chars().count() <= 80), "wider than 80 columns:\n{out}");
}

#[test]
fn draw_windows_a_long_log_around_the_divergence_and_never_draws_thousands_of_cells() {
    let lab = Lab::new();
    let a = lab.create("a", 1, &[]);
    ok(&["elect", s(&a), "--epoch", "1"]);
    ok(&["append", s(&a), "--count", "3000", "--value-size", "4", "--records-per-batch", "100"]);
    let out = ok(&["draw", s(&a)]);
    assert!(out.lines().count() < 12, "{out}");
    assert!(out.contains('…') && out.contains("╰─"), "elision and batch brackets expected:\n{out}");
    assert!(out.contains("HW 3000 LEO 3000"), "{out}");
    let shown = ok(&["draw", s(&a), "--from", "1495", "--limit", "10"]);
    let header = shown.lines().next().unwrap();
    assert!(header.contains("1495") && header.contains("1500") && !header.contains("1494"), "{shown}");
    // Every record is committed (HW 3000): solid borders. A batch boundary at 1500: the
    // bracket of 1495..1499 ends under 1499; 1500, alone in view, has none.
    let lines: Vec<&str> = shown.lines().collect();
    let at = lines.iter().position(|l| l.starts_with("a leader e1")).unwrap();
    let row = lines[at];
    assert_eq!(row.chars().nth(column(header, "1500") - 1), Some('│'), "{shown}");
    assert_eq!(row.chars().nth(column(header, "1499") - 1), Some('│'), "{shown}");
    assert!(!row.contains('┊'), "{shown}");
    let bracket = lines[at + 1];
    assert_eq!(bracket.chars().nth(column(header, "1495")), Some('╰'), "{shown}");
    assert_eq!(bracket.chars().nth(column(header, "1499") + 7), Some('╯'), "{shown}");
    assert!(bracket.chars().count() <= column(header, "1500"), "{shown}");
}

/// Tags balance and the document is one `<svg>` element: a small well-formedness check.
fn assert_well_formed_svg(svg: &str) {
    assert!(svg.starts_with("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<svg "), "{}", &svg[..80]);
    let mut stack: Vec<String> = Vec::new();
    let mut rest = svg.split_once("?>").unwrap().1;
    while let Some(open) = rest.find('<') {
        let close = rest[open..].find('>').expect("an unclosed tag") + open;
        let tag = &rest[open + 1..close];
        assert!(!rest[..open].contains('>'), "a stray > before {tag}");
        rest = &rest[close + 1..];
        if tag.starts_with("!--") {
            continue;
        }
        if let Some(name) = tag.strip_prefix('/') {
            assert_eq!(stack.pop().as_deref(), Some(name), "mismatched </{name}>");
        } else if !tag.ends_with('/') {
            stack.push(tag.split_whitespace().next().unwrap().to_string());
        }
    }
    assert!(stack.is_empty(), "unclosed: {stack:?}");
    for bad in ["<script", "href", "@import", "url(", "<image", "@font-face"] {
        assert!(!svg.contains(bad), "the SVG must be self-contained: found {bad}");
    }
    assert_eq!(svg.matches("http").count(), 1, "only the SVG namespace may name a URL");
}

#[test]
fn draw_writes_a_self_contained_well_formed_svg_with_every_mark_in_text() {
    let tmp = tempfile::tempdir().unwrap();
    let run = demo_lab(tmp.path(), "kip101-1", "hw");
    let file = tmp.path().join("p.svg");
    ok(&["draw", s(&run.join("a")), s(&run.join("b")), "--svg", s(&file)]);
    let svg = std::fs::read_to_string(&file).unwrap();
    assert_well_formed_svg(&svg);
    // Black-and-white print: the epochs, values and marks are words, not only colours.
    for text in [">e1<", ">m3<", ">e0<", ">m2<", "HW,LEO", "✗ differs at 1", "a leader e1", "b follower e1"] {
        assert!(svg.contains(text), "{text} missing");
    }
    // Okabe–Ito bands for epochs 0 (orange) and 1 (sky blue).
    assert!(svg.contains("#c26e00") && svg.contains("#1f8fbf"));
}

/// The README's picture: `klog draw --svg` of KIP-101 scenario 1 under hw, kept fresh.
#[test]
fn the_committed_readme_picture_is_what_klog_draw_makes_now() {
    let tmp = tempfile::tempdir().unwrap();
    let run = demo_lab(tmp.path(), "kip101-1", "hw");
    let file = tmp.path().join("p.svg");
    ok(&["draw", s(&run.join("a")), s(&run.join("b")), "--svg", s(&file)]);
    let made = std::fs::read_to_string(&file).unwrap();
    let committed = Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/kip101-1-hw.svg");
    if std::env::var_os("KLOG_BLESS").is_some() {
        std::fs::write(&committed, &made).unwrap();
    }
    let old = std::fs::read_to_string(&committed).unwrap_or_default();
    assert!(old == made, "docs/kip101-1-hw.svg is stale: re-bless with KLOG_BLESS=1");
}

#[test]
fn recover_draws_the_follower_before_and_after_with_each_fate_and_the_cut() {
    let tmp = tempfile::tempdir().unwrap();
    let lab = tmp.path().join("lab");
    ok(&["demo", "kip279", "--mode", "kip101", "--dir", s(&lab), "--plain"]);
    // After the demo B diverged. A running follower re-told the leader it follows keeps
    // fetching (Partition.makeFollower): nothing is cut, and B's records stay DIVERGED.
    let (a, b) = (lab.join("kip101/a"), lab.join("kip101/b"));
    let out = ok(&["recover", s(&b), "--leader", s(&a), "--mode", "kip279", "--dry-run"]);
    assert!(out.contains("does not restart the fetcher"), "{out}");
    // B restarts: ask again as a dry run under each mode.
    ok(&["crash", s(&b)]);
    let out = ok(&["recover", s(&b), "--leader", s(&a), "--mode", "kip279", "--dry-run"]);
    let before = line_starting(&out, "b before");
    let fate = out.lines().find(|l| l.trim_start().starts_with("fate")).expect("a fate line");
    // kip279 cuts b11-b15, epoch-2 records A never had. They are below A's HW 16, but A's HW
    // covered A's own records there, never these; B's HW was 11: never acknowledged.
    assert_eq!(column(fate, "lost"), column(before, "e2 b11"), "{out}");
    assert_eq!(column(fate, "kept"), column(before, "e1 a"), "{out}");
    assert!(!out.contains("ACK-LOST"), "{out}");
    let cut_line = out.lines().find(|l| l.contains('✂')).expect("the cut is marked");
    assert_eq!(column(cut_line, "✂"), column(before, "e2 b11") - 1, "{out}");
    let after = line_starting(&out, "b after");
    assert!(!after.contains("b11") && after.contains("e1 a10"), "{out}");
    // kip101 keeps them, different from the leader's: DIVERGED, in words.
    let out = ok(&["recover", s(&b), "--leader", s(&a), "--mode", "kip101", "--dry-run"]);
    let before = line_starting(&out, "b before");
    let fate = out.lines().find(|l| l.trim_start().starts_with("fate")).expect("a fate line");
    assert_eq!(column(fate, "DIVERGED"), column(before, "e2 b11"), "{out}");
    assert!(line_starting(&out, "b after").contains("e2 b11"), "{out}");
    assert!(out.contains("differs at 11"), "{out}");
}

/// Prepare a scenario's lab up to its recovery (by the commands of replication-model.md).
fn scenario_up_to_recovery(lab: &Lab, scenario: &str) -> (PathBuf, PathBuf) {
    let a = lab.create("a", 1, &[]);
    let b = lab.create("b", 2, &[]);
    let (sa, sb) = (s(&a).to_string(), s(&b).to_string());
    let steps: Vec<Vec<&str>> = match scenario {
        "S1" => vec![
            vec!["elect", &sb, "--epoch", "0", "--isr", &sa],
            vec!["append", &sb, "m1", "--timestamp", "1000"],
            vec!["fetch", "--leader", &sb, &sa, "--rounds", "3"],
            vec!["append", &sb, "m2", "--timestamp", "2000"],
            vec!["fetch", "--leader", &sb, &sa, "--rounds", "2"],
            vec!["crash", &sa],
        ],
        "S2" => vec![
            vec!["elect", &sa, "--epoch", "0", "--isr", &sb],
            vec!["append", &sa, "m1", "--timestamp", "1000", "--flush"],
            vec!["fetch", "--leader", &sa, &sb, "--rounds", "3", "--flush"],
            vec!["append", &sa, "m2", "--timestamp", "2000", "--flush"],
            vec!["fetch", "--leader", &sa, &sb, "--rounds", "2"],
            vec!["crash", &sa, "--power-loss"],
            vec!["crash", &sb, "--power-loss"],
            vec!["elect", &sb, "--epoch", "1"],
            vec!["append", &sb, "m3", "--timestamp", "3000"],
        ],
        _ => vec![
            vec!["elect", &sa, "--epoch", "1", "--isr", &sb],
            vec![
                "append",
                &sa,
                "a0",
                "a1",
                "a2",
                "a3",
                "a4",
                "a5",
                "a6",
                "a7",
                "a8",
                "a9",
                "a10",
                "--timestamp",
                "1000",
            ],
            vec!["fetch", "--leader", &sa, &sb, "--rounds", "3"],
            vec![
                "append",
                &sa,
                "a11",
                "a12",
                "a13",
                "a14",
                "a15",
                "a16",
                "a17",
                "a18",
                "a19",
                "a20",
                "--timestamp",
                "2000",
            ],
            vec!["elect", &sb, "--epoch", "2", "--isr", &sa],
            vec!["append", &sb, "b11", "b12", "b13", "b14", "b15", "--timestamp", "3000"],
            vec!["elect", &sa, "--epoch", "3", "--isr", &sb],
            vec!["append", &sa, "a21", "--timestamp", "4000"],
        ],
    };
    for step in steps {
        ok(&step);
    }
    // S1 and S2 recover A against B; S3 recovers B against A.
    if scenario == "S3" {
        (b, a)
    } else {
        (a, b)
    }
}

/// The lines `--explain` marks as run (code and values), in order.
fn ran_lines(out: &str) -> Vec<String> {
    let panel = out.split("explain:").nth(1).expect("an explain panel");
    panel
        .lines()
        .skip(1)
        .take_while(|l| !l.trim_start().starts_with("◀ ran, with the values"))
        .filter(|l| l.contains('◀'))
        .map(|l| {
            let (code, values) = l.split_once('◀').unwrap();
            let (code, values) = (code.trim(), values.trim());
            if values.is_empty() {
                code.to_string()
            } else {
                format!("{code} ◀ {values}")
            }
        })
        .collect()
}

/// Expected lines, written by hand from replication-model.md (S1–S3) and each release's rules
/// (hw: 0.10.2.2; kip101: 1.1.1, with KAFKA-6857's first line; kip279 at 2.7.2 asks with
/// OffsetsForLeaderEpoch; kip279 at 4.4.0 gets the answer in the fetch response). Every run
/// ends with the leader's log start check (0 here).
fn expected(scenario: &str, variant: &str) -> Vec<String> {
    let mut lines: Vec<&str> = match (scenario, variant) {
        // S1, A against B: A has m1, m2 at epoch 0, HW 1; B has LEO 2 and latest epoch 0.
        ("S1", "hw") => vec!["become_follower(leader)", "truncate_to(hw) ◀ hw = 1"],
        ("S1", "kip101") => vec![
            "become_follower(leader)",
            "e = latest_epoch()  # -1: empty cache ◀ e = 0",
            "answer = leader.offsets_for_leader_epoch_v0(e) ◀ answer = 2",
            "leader: elif e == its latest epoch: its LEO ◀ LEO = 2",
            "if answer == UNDEFINED: ◀ no",
            "truncate_to(min(answer, leo)) ◀ min(2, 2) = 2",
        ],
        ("S1", "kip279@2.7.2") => vec![
            "become_follower(leader)",
            "loop:",
            "if epoch_cache is empty: ◀ no",
            "e = latest_epoch() ◀ e = 0",
            "(le, lend) = leader.offsets_for_leader_epoch(e, current_epoch) ◀ (0, 2)",
            "leader: if current_epoch != its epoch: FENCED / UNKNOWN_EPOCH ◀ no",
            "if lend == UNDEFINED: ◀ no",
            "(fe, fend) = own end_offset_for(le) ◀ (0, 2)",
            "if fe != le: ◀ no",
            "truncate_to(min(fend, lend, leo)); stop ◀ min(2, 2, 2) = 2",
        ],
        // 2.8+: the leader has epoch 0 up to 2 = A's fetch offset: no diverging epoch.
        ("S1", "kip279") => vec![
            "become_follower(leader)",
            "if epoch_cache is empty: ◀ no",
            "loop:",
            "e = latest_epoch() ◀ e = 0",
            "r = leader.fetch(leo, last_epoch=e) ◀ offset 2, epoch 0",
            "leader: (le, lend) = its end_offset_for(e) ◀ (0, 2)",
            "leader: elif le == e and lend >= leo: no diverging epoch",
            "if OFFSET_OUT_OF_RANGE: ◀ no",
            "if no diverging epoch: stop ◀ yes",
        ],
        // S2, A against B: A kept m2 (flushed), HW checkpoint 2; B has epochs 0 at 0, 1 at 1.
        ("S2", "hw") => vec!["become_follower(leader)", "truncate_to(hw) ◀ hw = 2"],
        ("S2", "kip101") => vec![
            "become_follower(leader)",
            "e = latest_epoch()  # -1: empty cache ◀ e = 0",
            "answer = leader.offsets_for_leader_epoch_v0(e) ◀ answer = 1",
            "leader: elif first <= e < latest: next epoch start ◀ next start = 1",
            "if answer == UNDEFINED: ◀ no",
            "truncate_to(min(answer, leo)) ◀ min(1, 2) = 1",
        ],
        ("S2", "kip279@2.7.2") => vec![
            "become_follower(leader)",
            "loop:",
            "if epoch_cache is empty: ◀ no",
            "e = latest_epoch() ◀ e = 0",
            "(le, lend) = leader.offsets_for_leader_epoch(e, current_epoch) ◀ (0, 1)",
            "leader: if current_epoch != its epoch: FENCED / UNKNOWN_EPOCH ◀ no",
            "if lend == UNDEFINED: ◀ no",
            "(fe, fend) = own end_offset_for(le) ◀ (0, 2)",
            "if fe != le: ◀ no",
            "truncate_to(min(fend, lend, leo)); stop ◀ min(2, 1, 2) = 1",
        ],
        // 2.8+: B's epoch 0 ends at 1, below A's fetch offset 2: diverging epoch (0, 1).
        ("S2", "kip279") => vec![
            "become_follower(leader)",
            "if epoch_cache is empty: ◀ no",
            "loop:",
            "e = latest_epoch() ◀ e = 0",
            "r = leader.fetch(leo, last_epoch=e) ◀ offset 2, epoch 0",
            "leader: (le, lend) = its end_offset_for(e) ◀ (0, 1)",
            "leader: else: diverging epoch (le, lend)",
            "if OFFSET_OUT_OF_RANGE: ◀ no",
            "if no diverging epoch: stop ◀ no",
            "(fe, fend) = own end_offset_for(le) ◀ (0, 2)",
            "if fe != le: ◀ no",
            "truncate_to(min(fend, lend, leo)); stop ◀ min(2, 1, 2) = 1",
        ],
        // S3, B against A: B has epoch 1 to 11 and epoch 2 to 16, HW 11; A has epoch 1 to 21,
        // epoch 3 from 21, LEO 22.
        ("S3", "hw") => vec!["become_follower(leader)", "truncate_to(hw) ◀ hw = 11"],
        ("S3", "kip101") => vec![
            "become_follower(leader)",
            "e = latest_epoch()  # -1: empty cache ◀ e = 2",
            "answer = leader.offsets_for_leader_epoch_v0(e) ◀ answer = 21",
            "leader: elif first <= e < latest: next epoch start ◀ next start = 21",
            "if answer == UNDEFINED: ◀ no",
            "truncate_to(min(answer, leo)) ◀ min(21, 16) = 16",
        ],
        ("S3", "kip279@2.7.2") => vec![
            "become_follower(leader)",
            "loop:",
            "if epoch_cache is empty: ◀ no",
            "e = latest_epoch() ◀ e = 2",
            "(le, lend) = leader.offsets_for_leader_epoch(e, current_epoch) ◀ (1, 21)",
            "leader: if current_epoch != its epoch: FENCED / UNKNOWN_EPOCH ◀ no",
            "if lend == UNDEFINED: ◀ no",
            "(fe, fend) = own end_offset_for(le) ◀ (1, 11)",
            "if fe != le: ◀ no",
            "truncate_to(min(fend, lend, leo)); stop ◀ min(11, 21, 16) = 11",
        ],
        // 2.8+: A answers (1, 21) for B's epoch 2, which A never had: diverging.
        ("S3", "kip279") => vec![
            "become_follower(leader)",
            "if epoch_cache is empty: ◀ no",
            "loop:",
            "e = latest_epoch() ◀ e = 2",
            "r = leader.fetch(leo, last_epoch=e) ◀ offset 16, epoch 2",
            "leader: (le, lend) = its end_offset_for(e) ◀ (1, 21)",
            "leader: else: diverging epoch (le, lend)",
            "if OFFSET_OUT_OF_RANGE: ◀ no",
            "if no diverging epoch: stop ◀ no",
            "(fe, fend) = own end_offset_for(le) ◀ (1, 11)",
            "if fe != le: ◀ no",
            "truncate_to(min(fend, lend, leo)); stop ◀ min(11, 21, 16) = 11",
        ],
        _ => unreachable!(),
    };
    let cut = match (scenario, variant) {
        ("S1", "hw") => 1,
        ("S1", _) => 2,
        ("S2", "hw") => 2,
        ("S2", _) => 1,
        ("S3", "kip101") => 16,
        _ => 11,
    };
    let tail = format!("if leo < leader.log_start: ◀ no ({cut} >= 0)");
    lines.push(&tail);
    lines.into_iter().map(String::from).collect()
}

#[test]
fn explain_marks_the_lines_each_mode_ran_for_s1_s2_and_s3() {
    for scenario in ["S1", "S2", "S3"] {
        let lab = Lab::new();
        let (follower, leader) = scenario_up_to_recovery(&lab, scenario);
        for (variant, flags, source) in [
            ("hw", ["--mode", "hw"], "hw — Kafka 0.10.2.2 (before 0.11)"),
            ("kip101", ["--mode", "kip101"], "kip101 — Kafka 1.1.1 (0.11 - 1.1, KIP-101)"),
            ("kip279@2.7.2", ["--kafka", "2.7.2"], "kip279 — Kafka 2.7.2 (2.0 - 2.7, KIP-279)"),
            ("kip279", ["--mode", "kip279"], "kip279 — Kafka 4.4.0 (2.8 and later"),
        ] {
            let mut args = vec!["recover", s(&follower), "--leader", s(&leader), "--dry-run", "--explain"];
            args.extend(flags);
            let out = ok(&args);
            let mut want = expected(scenario, variant);
            if variant != "kip279" {
                // Before 2.8 the first fetch checks the log end against the leader's.
                let leader_leo: i64 = out
                    .lines()
                    .find_map(|l| l.trim_start().strip_prefix("leader:   LEO "))
                    .and_then(|rest| rest.split(' ').next()?.parse().ok())
                    .unwrap();
                let cut: i64 = want.last().unwrap().split(['(', ' ']).find_map(|w| w.parse().ok()).unwrap();
                want.push(format!(
                    "if leo > leader.leo:  # the first fetch: OFFSET_OUT_OF_RANGE ◀ no ({cut} <= {leader_leo})"
                ));
            }
            assert_eq!(ran_lines(&out), want, "{scenario} under {variant}:\n{out}");
            assert!(out.contains(&format!("explain: {source}")), "{out}");
        }
    }
}

#[test]
fn explain_notes_before_2_8_that_from_kafka_2_8_the_answer_comes_as_the_fetchs_diverging_epoch() {
    let lab = Lab::new();
    let (follower, leader) = scenario_up_to_recovery(&lab, "S1");
    let out = ok(&["recover", s(&follower), "--leader", s(&leader), "--kafka", "2.1", "--dry-run", "--explain"]);
    assert!(out.contains("From Kafka 2.8") && out.contains("diverging epoch"), "{out}");
    // --kafka and --mode name the rules twice: one or the other.
    let (_, err) = code(&["recover", s(&follower), "--leader", s(&leader), "--kafka", "2.1", "--mode", "hw"], 2);
    assert!(err.contains("--mode"), "{err}");
    let (_, err) = code(&["recover", s(&follower), "--leader", s(&leader), "--kafka", "2.x"], 2);
    assert!(err.contains("not a Kafka release"), "{err}");
    // --explain needs --leader.
    let (_, err) = code(&["recover", s(&follower), "--explain"], 2);
    assert!(err.contains("--leader"), "{err}");
}

/// The truths of `klog demo kip101-1 --predict` (hw, then kip101), worked out by hand from
/// the spec: A's HW after fetch ×3 and ×2; A's LEO after recovering under hw (its HW 1), whether
/// m2 survives (no) and whether an acknowledged write is lost yet (no: B still has m2); whether
/// A, elected, holds every acknowledged record (no: it cut m2); B's LEO after recovering against
/// A (its HW 2) and the loss (yes: m2, acknowledged, is not on A); then under kip101 (the same
/// fetches are not asked again) A keeps m2 (B answers LEO 2), nothing is lost, A elected holds
/// m1 and m2 (yes), B keeps both records (A answers 2, the start of epoch 1), nothing is lost,
/// and B's last fetch brings m3 and HW 3.
const TRUTHS: [&str; 15] = ["1", "1", "1", "n", "n", "n", "2", "y", "2", "y", "n", "y", "2", "n", "3"];
const WRONG: [&str; 15] = ["7", "0", "2", "yes", "yes", "yes", "1", "no", "1", "no", "yes", "no", "0", "yes", "2"];

fn predict(input: &str) -> String {
    let out = klog().args(["demo", "kip101-1", "--predict"]).write_stdin(input).assert().success();
    String::from_utf8(out.get_output().stdout.clone()).unwrap()
}

#[test]
fn predict_with_the_right_answers_scores_all_of_them() {
    let out = predict(&(TRUTHS.join("\n") + "\n"));
    assert_eq!(out.matches("predict:").count(), 15, "{out}");
    assert_eq!(out.matches(". right:").count(), 15, "{out}");
    assert!(out.contains("you predicted 15 of 15"), "{out}");
    // After the failover under hw the run has lost the acknowledged m2.
    assert!(out.contains("predict: 2. once B has restarted, has this run lost an acknowledged write? [y/n] y\n"));
    assert!(
        out.contains(
            "  2. right: yes\n     why: m2 (offset 1) was acknowledged and the leader A does not hold it: lost"
        ),
        "{out}"
    );
    assert!(out.contains("predict: 1. A restarts as a follower of B under hw: at which offset will A's log end? 1\n"));
    assert!(
        out.contains(
            "  1. right: 1\n     why: hw: A truncates to its own HW, 1, from its HW checkpoint (B's is 2; A never asks it)"
        ),
        "{out}"
    );
    assert!(out.contains("predict: 2. will m2 (offset 1) survive on A? [y/n] n\n"), "{out}");
}

#[test]
fn predict_with_wrong_answers_scores_none_and_shows_every_truth() {
    let out = predict(&(WRONG.join("\n") + "\n"));
    assert_eq!(out.matches(". wrong: the truth:").count(), 15, "{out}");
    assert!(out.contains("you predicted 0 of 15"), "{out}");
    let truths: Vec<&str> = out.lines().filter_map(|l| l.split_once(". wrong: the truth: ").map(|(_, t)| t)).collect();
    assert_eq!(truths, ["1", "1", "1", "no", "no", "no", "2", "yes", "2", "yes", "no", "yes", "2", "no", "3"]);
}

#[test]
fn predict_with_stdin_closed_reveals_every_answer_and_finishes() {
    let out = predict("");
    assert_eq!(out.matches("(no answer) the truth:").count(), 15, "{out}");
    assert!(out.contains("you predicted 0 of 15 (15 not answered)"), "{out}");
    // Running out part way: the rest are revealed unanswered, and the score counts them.
    let out = predict("1\n1\n");
    assert!(
        out.contains("you predicted 2 of 15 (13 not answered)") && out.matches("(no answer)").count() == 13,
        "{out}"
    );
}

/// A blank line or an answer of the wrong kind is asked again; `--mode all` asks the set-up
/// steps (the same in every mode) once.
#[test]
fn predict_asks_again_for_an_answer_it_cannot_read_and_asks_the_set_up_once() {
    let out = predict(&(["", "maybe"].iter().chain(TRUTHS.iter()).copied().collect::<Vec<_>>().join("\n") + "\n"));
    assert_eq!(out.matches("answer with a number, please:").count(), 2, "{out}");
    assert!(out.contains("you predicted 15 of 15"), "{out}");
    let all = klog().args(["demo", "kip101-1", "--mode", "all", "--predict"]).write_stdin("").assert().success();
    let all = String::from_utf8(all.get_output().stdout.clone()).unwrap();
    let setup = "predict: 1. A fetches from B (3 rounds)";
    assert_eq!(all.matches(setup).count(), 1, "{all}");
    assert_eq!(all.matches("predict: 2. will m2 (offset 1) survive on A?").count(), 3, "one per mode: {all}");
}

#[test]
fn demo_shows_the_picture_after_each_step_and_plain_keeps_the_one_line_view() {
    let out = ok(&["demo", "kip101-1", "--mode", "hw"]);
    assert!(out.contains("differs at 1"), "{out}");
    assert!(out.lines().any(|l| l.trim_start().starts_with("a leader e1") && l.contains("e1 m3")), "{out}");
    assert!(!out.contains("| 0:(0,m1)"), "{out}");
    let plain = ok(&["demo", "kip101-1", "--mode", "hw", "--plain"]);
    assert!(plain.contains("| 0:(0,m1) 1:(1,m3)") && !plain.contains("differs at"), "{plain}");
}

/// Watch explains each fetch round after it, never before: with `--predict` every question
/// comes before the narration that gives its answer away (#22: the quiz was given away).
#[test]
fn watch_asks_each_question_before_the_narration_that_answers_it() {
    let out = klog().args(["demo", "watch", "--mode", "hw", "--predict"]).write_stdin("0\n0\n0\n").assert().success();
    let out = String::from_utf8(out.get_output().stdout.clone()).unwrap();
    let at = |needle: &str| out.find(needle).unwrap_or_else(|| panic!("{needle:?} not in {out}"));
    let questions: Vec<usize> = out.match_indices("predict:").map(|(i, _)| i).collect();
    // Fetches 1 and 2 of the HW lag, A's restart, B's restart and catch-up after the failover.
    assert!(questions.len() >= 6, "{out}");
    assert!(questions[0] < at("A copied both records (LEO 2)"), "{out}");
    assert!(questions[1] < at("B recorded A's fetch offset 2"), "{out}");
    assert!(questions[2] < at("truncation point 0: LEO 2 -> 0"), "A's restart is asked before its report: {out}");
}

/// `--step` waits for Enter before each step after the first; at the end of input it runs on.
#[test]
fn step_pauses_before_each_step_until_the_input_ends() {
    let out = klog().args(["demo", "watch", "--step"]).write_stdin("\n\n").assert().success();
    let out = String::from_utf8(out.get_output().stdout.clone()).unwrap();
    assert_eq!(out.matches("[Enter: next step]").count(), 3, "two lines, then the end of input: {out}");
    let steps = out.matches("\n$ klog ").count();
    assert!(steps > 3, "the demo ran to its end: {out}");
    let (_, err) = code(&["demo", "watch", "--step", "--predict"], 2);
    assert!(err.contains("--predict"), "{err}");
}

/// `demo --explain` shows the code that ran after every step: each fetch round with the HW it
/// returned, each election and append; the capture has the same panel on those frames.
#[test]
fn demo_explain_shows_the_code_of_every_fetch_election_and_append() {
    let out = ok(&["demo", "watch", "--mode", "hw", "--explain"]);
    // One panel per fetch round (a fetch of three rounds has three).
    // A one-round fetch is shown without "round 1:"; a round the same as the one before is
    // said in one line.
    let rounds = out
        .lines()
        .filter(|l| {
            let l = l.trim_start();
            l.starts_with("fetch at") || l.starts_with("round ") && l.contains(": fetch at")
        })
        .count();
    let same = out.matches("the same lines and values as round").count();
    assert_eq!(out.matches("explain: fetch").count(), rounds, "{out}");
    assert_eq!(same, 1, "B's catch-up: round 3 is round 2 again: {out}");
    assert!(rounds > out.matches("\n$ klog fetch ").count(), "{out}");
    // B's election at epoch 1, A's at epoch 2; B's m1 m2, A's m4; A's restart and B's.
    assert_eq!(out.matches("explain: elect").count(), 2, "{out}");
    assert_eq!(out.matches("explain: append").count(), 2, "{out}");
    assert_eq!(out.matches("explain: hw").count(), 2, "{out}");
    assert!(out.contains("leader: hw = min(ISR's LEO), never back           ◀ 0 -> 2"), "{out}");
    let plain = ok(&["demo", "watch"]);
    assert!(!plain.contains("explain:"), "only with --explain");
    let tmp = tempfile::tempdir().unwrap();
    let file = tmp.path().join("w.html");
    ok(&["demo", "watch", "--capture", s(&file)]);
    let html = std::fs::read_to_string(&file).unwrap();
    let fetch_frames = html.split("<section class=\"frame\"").filter(|f| f.contains("$ klog fetch")).count();
    let with_panel = html
        .split("<section class=\"frame\"")
        .filter(|f| f.contains("$ klog fetch") && f.contains("<div class=\"src\">fetch"))
        .count();
    assert_eq!(with_panel, fetch_frames, "a code panel on every fetch frame");
    assert!(fetch_frames >= 6, "{fetch_frames}");
}
