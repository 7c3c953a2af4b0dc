//! Every screen at 80, 110 and 0 (no limit) columns, in colour and without: the data-dir
//! overview of a broker-written log dir (with notes), `explore`, `recover` with long fates,
//! `dump --epochs` with a disagreement, `draw` at 120 columns, and every `--help`. Each must
//! fit its width (no line a terminal would wrap), keep identities and verdicts whole, lay out
//! the same in colour as without, and never split an escape sequence. The plain and coloured
//! outputs are compared with `tests/golden/screens/<screen>.txt`; re-bless with
//! `KLOG_BLESS=1 cargo test --test cli -- screens::`, then read the diff.

use crate::common::{kafka_real, s, Lab};
use assert_cmd::Command;
use std::path::{Path, PathBuf};

/// The widths each screen is laid out to; 0 is no limit (`--width 0`: off a terminal without
/// it, tables are laid out to 80 columns).
const WIDTHS: &[usize] = &[80, 110, 0];

/// Run klog in `dir` at `width` columns, coloured or not; stdout, exit code.
fn run(dir: &Path, args: &[&str], width: usize, colour: bool) -> (String, i32) {
    let mut klog = Command::cargo_bin("klog").unwrap();
    if width == 0 {
        klog.env_remove("COLUMNS").args(["--width", "0"]);
    } else {
        klog.env("COLUMNS", width.to_string());
    }
    let out = klog
        .current_dir(dir)
        .env_remove("NO_COLOR")
        .arg("--color")
        .arg(if colour { "always" } else { "never" })
        .args(args)
        .output()
        .unwrap();
    (String::from_utf8(out.stdout).expect("utf-8 stdout"), out.status.code().unwrap_or(-1))
}

/// klog in `dir`, which must succeed (a screen's set-up step).
fn step(dir: &Path, args: &[&str]) {
    let out = Command::cargo_bin("klog").unwrap().current_dir(dir).env("NO_COLOR", "1").args(args).output().unwrap();
    assert!(out.status.success(), "{args:?}: {}", String::from_utf8_lossy(&out.stderr));
}

/// The escape sequences a line holds must all be whole CSI sequences (`ESC [ params final`):
/// a terminal shows a split one as garbage.
fn assert_whole_escapes(line: &str, what: &str) {
    let bytes = line.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == 0x1b {
            assert!(bytes.get(i + 1) == Some(&b'['), "{what}: an escape that is not CSI: {line:?}");
            let end = bytes[i + 2..].iter().position(|b| (0x40..=0x7e).contains(b));
            let Some(end) = end else { panic!("{what}: an escape cut at the line's end: {line:?}") };
            assert!(
                bytes[i + 2..i + 2 + end].iter().all(|b| b.is_ascii_digit() || *b == b';'),
                "{what}: a broken escape: {line:?}"
            );
            i += end + 3;
        } else {
            i += 1;
        }
    }
}

fn strip(text: &str) -> String {
    replica_lab::output::fit::strip_escapes(text)
}

/// One screen: how to set it up, what to run, the widths, and the text that must show whole.
struct Screen {
    name: &'static str,
    args: Vec<String>,
    widths: Vec<usize>,
    code: i32,
    /// Identities and verdicts: each must appear whole on one line at every width.
    whole: Vec<String>,
}

fn check_and_render(screen: &Screen, dir: &Path, replace: &[(String, &str)]) -> String {
    let args: Vec<&str> = screen.args.iter().map(String::as_str).collect();
    let mut transcript = String::new();
    for &width in &screen.widths {
        let (plain, code) = run(dir, &args, width, false);
        let (coloured, colour_code) = run(dir, &args, width, true);
        let what = format!("{} at {width}", screen.name);
        assert_eq!((code, colour_code), (screen.code, screen.code), "{what}: exit code\n{plain}");
        assert!(coloured.contains("\x1b["), "{what}: no colour with --color always");
        assert!(!plain.contains('\x1b'), "{what}: colour with --color never");
        // The same layout in colour: escapes never count as width (explore's state lines).
        assert_eq!(strip(&coloured), plain, "{what}: colour changes the layout");
        for line in coloured.lines() {
            assert_whole_escapes(line, &what);
        }
        for line in plain.lines() {
            if width > 0 {
                assert!(line.chars().count() <= width, "{what}: a line wider than the screen: {line:?}");
            }
            assert_eq!(line, line.trim_end(), "{what}: trailing spaces: {line:?}");
        }
        for w in &screen.whole {
            assert!(plain.lines().any(|l| l.contains(w.as_str())), "{what}: {w:?} is not shown whole:\n{plain}");
        }
        let mut replaced = (plain, coloured);
        for (from, to) in replace {
            replaced = (replaced.0.replace(from.as_str(), to), replaced.1.replace(from.as_str(), to));
        }
        let shown = if width == 0 { "--width 0 (no limit)".to_string() } else { format!("COLUMNS={width}") };
        let mut command = args.join(" ");
        for (from, to) in replace {
            command = command.replace(from.as_str(), to);
        }
        transcript.push_str(&format!("=== $ klog {command} at {shown}\n{}", replaced.0));
        transcript.push_str(&format!("=== in colour\n{}", replaced.1));
    }
    transcript
}

fn golden(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/golden/screens").join(format!("{name}.txt"))
}

/// Compare (or bless) one screen's transcript; returns a description if it differs.
fn compare(name: &str, text: &str) -> Option<String> {
    let file = golden(name);
    if std::env::var_os("KLOG_BLESS").is_some() {
        std::fs::create_dir_all(file.parent().unwrap()).unwrap();
        std::fs::write(&file, text).unwrap();
        return None;
    }
    (std::fs::read_to_string(&file).ok().as_deref() != Some(text))
        .then(|| format!("--- {name} differs from {} (re-bless with KLOG_BLESS=1):\n{text}", file.display()))
}

fn screen(name: &'static str, args: &[&str], code: i32, whole: &[&str]) -> Screen {
    Screen {
        name,
        args: args.iter().map(|a| a.to_string()).collect(),
        widths: WIDTHS.to_vec(),
        code,
        whole: whole.iter().map(|w| w.to_string()).collect(),
    }
}

/// The lab of the long fates: KIP-101 scenario 1 under hw, up to the recovery that loses an
/// acked record (the steps `klog demo` narrates).
fn long_fates_lab(dir: &Path) {
    for args in [
        &["create", "a", "--replica-id", "1"][..],
        &["create", "b", "--replica-id", "2"],
        &["elect", "b", "--epoch", "0", "--isr", "a", "--epoch-entry", "first-append"],
        &["append", "b", "m1", "--timestamp", "1000"],
        &["fetch", "--leader", "b", "a", "--rounds", "3"],
        &["append", "b", "m2", "--timestamp", "2000"],
        &["fetch", "--leader", "b", "a", "--rounds", "2"],
        &["crash", "a"],
        &["recover", "a", "--leader", "b", "--mode", "hw"],
        &["crash", "b"],
        &["elect", "a", "--epoch", "1", "--epoch-entry", "first-append"],
        &["append", "a", "m3", "--timestamp", "3000"],
    ] {
        step(dir, args);
    }
}

/// A replica whose batches carry epoch 1 that its epoch checkpoint does not list.
fn disagreement_lab(dir: &Path) {
    step(dir, &["create", "d", "--replica-id", "1"]);
    step(dir, &["elect", "d"]);
    step(dir, &["append", "d", "m1", "m2", "--timestamp", "1000"]);
    step(dir, &["elect", "d", "--epoch", "1"]);
    step(dir, &["append", "d", "m3", "--timestamp", "2000"]);
    // Version 0, one entry: epoch 0 from offset 0 (epoch 1's entry is gone).
    std::fs::write(dir.join("d/demo-0/leader-epoch-checkpoint"), "0\n1\n0 0\n").unwrap();
}

/// A leader with exactly as many records as fill 120 columns, so the last mark's label sits
/// at the right edge.
fn draw_lab(dir: &Path) {
    step(dir, &["create", "c", "--replica-id", "1"]);
    step(dir, &["elect", "c"]);
    let mut args = vec!["append", "c"];
    let values: Vec<String> = (1..=11).map(|i| format!("v{i}")).collect();
    args.extend(values.iter().map(String::as_str));
    args.extend(["--timestamp", "1000"]);
    step(dir, &args);
}

#[test]
fn every_screen_fits_keeps_its_names_and_verdicts_whole_and_matches_its_golden_file() {
    let lab = Lab::new();
    let dir = lab.dir.path();
    long_fates_lab(dir);
    disagreement_lab(dir);
    draw_lab(dir);
    let mut screens = vec![
        screen(
            "recover-long-fates",
            &["recover", "b", "--leader", "a", "--mode", "hw", "--dry-run"],
            0,
            &["DIVERGED (acked, lost from leader)"],
        ),
        screen("dump-epochs-disagree", &["dump", "d", "--epochs"], 0, &["DISAGREE: on batches, not in checkpoint"]),
        screen("explore", &["explore", "--no-timing"], 1, &["kip101", "kip279"]),
    ];
    let mut draw = screen("draw-120", &["draw", "c"], 0, &["↑HW,LEO"]);
    draw.widths = vec![80, 110, 120, 0];
    screens.push(draw);
    let mut replace = vec![(dir.display().to_string(), "$TMP")];
    if let Some(real) = kafka_real() {
        // A copy under the temp dir: its path (and so where a long line wraps) has the same
        // length wherever the clone is (the real dir's path grows with the worktree's name).
        let kraft_copy = dir.join("kraft");
        crate::common::copy_dir(&real.join("kraft-broker-2026"), &kraft_copy);
        let kraft = &kraft_copy;
        screens.push(screen(
            "dump-data-dir",
            &["dump", s(kraft)],
            0,
            &[
                "__cluster_metadata-0",
                "__consumer_offsets-49",
                "batch2.work.notification.SHR_PROD.persistence-0",
                "subscription.matching.SHR_PROD.persistence-0",
                "TestTopicPatient-0  HW 3",
            ],
        ));
        screens.push(screen("check-data-dir", &["check", s(kraft)], 0, &["__cluster_metadata-0"]));
        // The values an operator came to read: each record's type whole, however narrow.
        screens.push(screen(
            "dump-internal-records",
            &["dump", s(&kraft.join("__consumer_offsets-6")), "--limit", "4"],
            0,
            &["GroupMetadataKey", "OffsetCommitValue", "crc"],
        ));
        screens.push(screen(
            "history",
            &["history", s(kraft), "--partition", "__consumer_offsets-6", "--replica", s(kraft)],
            0,
            &["__consumer_offsets-6", "none*", "1 partition", "[(0 0)]"],
        ));
        // The restart plan over two brokers' copies: one line a partition.
        let (k1, k2) = (dir.join("k1"), dir.join("k2"));
        crate::common::copy_dir(kraft, &k1);
        crate::common::copy_dir(kraft, &k2);
        let meta = std::fs::read_to_string(k2.join("meta.properties")).unwrap();
        let meta = meta.replace("node.id=1", "node.id=2");
        let meta: String = meta
            .lines()
            .map(|l| if l.starts_with("directory.id=") { "directory.id=AAAAAAAAAAAAAAAAAAAAAA" } else { l })
            .collect::<Vec<_>>()
            .join("\n");
        std::fs::write(k2.join("meta.properties"), meta + "\n").unwrap();
        screens.push(screen(
            "recover-data-dir",
            &["recover", "--dry-run", "--leader", "k1", "k2"],
            0,
            &["__consumer_offsets-49", "__cluster_metadata-0", "2 @4925"],
        ));
        replace.push((real.display().to_string(), "$REAL"));
    }
    let stale: Vec<String> = screens
        .iter()
        .filter_map(|sc| {
            let text = check_and_render(sc, dir, &replace);
            compare(sc.name, &text)
        })
        .collect();
    assert!(stale.is_empty(), "{}", stale.join("\n"));
}

#[test]
fn every_help_fits_and_its_examples_are_whole_commands() {
    let tmp = tempfile::tempdir().unwrap();
    let cmd = replica_lab::cli::command();
    let mut names = vec![String::new()];
    names.extend(cmd.get_subcommands().filter(|s| !s.is_hide_set()).map(|s| s.get_name().to_string()));
    let mut transcript = String::new();
    for name in &names {
        let mut args: Vec<&str> = Vec::new();
        if !name.is_empty() {
            args.push(name);
        }
        args.push("--help");
        for &width in WIDTHS {
            let (plain, code) = run(tmp.path(), &args, width, false);
            let (coloured, _) = run(tmp.path(), &args, width, true);
            let what = format!("klog {} at {width}", args.join(" "));
            assert_eq!(code, 0, "{what}");
            assert!(coloured.contains("\x1b["), "{what}: no colour with --color always");
            assert_eq!(strip(&coloured), plain, "{what}: colour changes the layout");
            for line in coloured.lines() {
                assert_whole_escapes(line, &what);
            }
            // clap lays help out to at most 100 columns.
            let limit = if width == 0 { 100 } else { width.min(100) };
            for line in plain.lines() {
                assert!(line.chars().count() <= limit, "{what}: a line wider than {limit}: {line:?}");
            }
            // Each example is a command line, or a shell continuation of the one above.
            let examples = plain.split("Examples:\n").nth(1).expect("examples").split("\n\n").next().unwrap();
            let mut continued = false;
            for line in examples.lines() {
                let l = line.trim_start();
                assert!(
                    continued || l.starts_with("klog ") || l == "klog" || l.starts_with("printf "),
                    "{what}: an example split in the middle of a command: {line:?}"
                );
                continued = l.ends_with(" \\") || l.ends_with("&&") || l.ends_with('|');
            }
            assert!(!continued, "{what}: the last example line continues");
            let shown = if width == 0 { "--width 0 (no limit)".to_string() } else { format!("COLUMNS={width}") };
            transcript.push_str(&format!("=== $ klog {} at {shown}\n{plain}", args.join(" ")));
        }
    }
    if let Some(stale) = compare("help", &transcript) {
        panic!("{stale}");
    }
}

/// #43: a table piped into a pager (stdout not a terminal, no `COLUMNS`) is laid out to 80
/// columns, or to `$COLUMNS`, so `less` never breaks its rows; prose lines stay whole (they
/// grep whole); `--width 0` lays nothing out.
#[test]
fn piped_tables_fit_80_columns_or_columns_and_width_0_lays_nothing_out() {
    let Some(real) = kafka_real() else { return };
    let dir = real.join("kraft-broker-2026");
    let args = ["dump", s(&dir), "--partition", "__consumer_offsets-6", "--limit", "4"];
    let run = |extra: &[&str], columns: Option<&str>| {
        let mut c = Command::cargo_bin("klog").unwrap();
        c.env("NO_COLOR", "1").env_remove("COLUMNS");
        if let Some(columns) = columns {
            c.env("COLUMNS", columns);
        }
        let out = c.args(extra).args(args).output().unwrap();
        assert!(out.status.success());
        String::from_utf8(out.stdout).unwrap()
    };
    let widest_rule = |out: &str| {
        let rule = |l: &&str| !l.is_empty() && l.chars().all(|c| c == '─' || c == '═');
        out.lines().filter(rule).map(|l| l.chars().count()).max().expect("a table")
    };
    let piped = run(&[], None);
    assert!(widest_rule(&piped) <= 80, "{piped}");
    assert!(piped.lines().any(|l| l.starts_with("replica ") && l.chars().count() > 80), "prose stays whole:\n{piped}");
    let columns = run(&[], Some("100"));
    assert!((81..=100).contains(&widest_rule(&columns)), "{columns}");
    let unlimited = run(&["--width", "0"], None);
    assert!(widest_rule(&unlimited) > 100, "{unlimited}");
}
