//! klog under a real pseudo-terminal (util-linux `script`), colour on, at 80 and 110 columns
//! and on a terminal that reports width 0: every line fits, and with the escape codes
//! stripped the output is laid out exactly as with `NO_COLOR` at the same width off a
//! terminal. The session is the README's, the demo, and dump/check on copies of the real
//! broker dirs.

use assert_cmd::cargo::CommandCargoExt;
use std::path::Path;
use std::process::{Command, Stdio};

/// The README's 30-second session, with relative paths (and a fixed timestamp, so that the
/// twin labs agree).
const README_SESSION: &[&[&str]] = &[
    &["create", "b", "--replica-id", "2"],
    &["create", "a", "--replica-id", "1"],
    &["elect", "b", "--isr", "a"],
    &["append", "b", "m1", "m2", "--timestamp", "1589710953958"],
    &["fetch", "--leader", "b", "a", "--rounds", "3"],
    &["crash", "a"],
    &["recover", "a", "--leader", "b", "--mode", "hw", "--dry-run"],
    &["recover", "a", "--leader", "b", "--mode", "kip279"],
    &["dump", "a", "--epochs"],
    &["dump", "b"],
    &["check", "a"],
    &["diff", "a", "b"],
    &["demo", "--dir", "lab"],
];

fn script_available() -> bool {
    let found = Command::new("script").arg("--version").stdout(Stdio::null()).stderr(Stdio::null()).status().is_ok();
    if !found {
        eprintln!("skipped: util-linux `script` is not installed, so there is no pseudo-terminal to test under");
    }
    found
}

fn quote(arg: &str) -> String {
    format!("'{}'", arg.replace('\'', r"'\''"))
}

/// klog `args` in `cwd` under a pseudo-terminal of `cols` columns, colour left to klog; stdout
/// with the terminal's CRs removed, and the exit code.
fn under_terminal(cwd: &Path, args: &[&str], cols: u16) -> (String, i32) {
    let klog = Command::cargo_bin("klog").unwrap().get_program().to_owned();
    let line = format!(
        "stty cols {cols} rows 50; exec {} {} 2>/dev/null",
        quote(&klog.to_string_lossy()),
        args.iter().map(|a| quote(a)).collect::<Vec<_>>().join(" ")
    );
    let out = Command::new("script")
        .args(["-q", "-e", "-c", &line, "/dev/null"])
        .current_dir(cwd)
        .env_remove("NO_COLOR")
        .env_remove("COLUMNS")
        .stdin(Stdio::null())
        .output()
        .unwrap();
    (String::from_utf8_lossy(&out.stdout).replace("\r\n", "\n"), out.status.code().unwrap_or(-1))
}

/// The same off a terminal, with NO_COLOR and COLUMNS.
fn plain(cwd: &Path, args: &[&str], cols: u16) -> (String, i32) {
    let out = Command::cargo_bin("klog")
        .unwrap()
        .current_dir(cwd)
        .env("NO_COLOR", "1")
        .env("COLUMNS", cols.to_string())
        .args(args)
        .stdin(Stdio::null())
        .output()
        .unwrap();
    (String::from_utf8_lossy(&out.stdout).into_owned(), out.status.code().unwrap_or(-1))
}

/// Remove `ESC [ ... final` sequences.
fn strip(text: &str) -> String {
    let mut out = String::new();
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '\x1b' && chars.peek() == Some(&'[') {
            chars.next();
            for f in chars.by_ref() {
                if ('\x40'..='\x7e').contains(&f) {
                    break;
                }
            }
        } else {
            out.push(c);
        }
    }
    out
}

/// Run `steps` twice, in a lab under the terminal and in a twin lab off it, comparing each.
fn compare_session(steps: &[&[&str]], cols: u16, setup: impl Fn(&Path)) -> usize {
    let (tty_lab, plain_lab) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    setup(tty_lab.path());
    setup(plain_lab.path());
    let width = if cols == 0 { 80 } else { usize::from(cols) };
    let mut coloured = 0;
    for args in steps {
        let (tty, tty_code) = under_terminal(tty_lab.path(), args, cols);
        let (flat, flat_code) = plain(plain_lab.path(), args, width as u16);
        assert_eq!(tty_code, flat_code, "klog {}: exit codes differ\n{tty}", args.join(" "));
        if tty.contains("\x1b[") {
            coloured += 1;
        }
        let stripped = strip(&tty).replace(&tty_lab.path().display().to_string(), "$LAB");
        for line in stripped.lines() {
            assert!(
                line.chars().count() <= width,
                "klog {} at {cols} columns: {} columns wide:\n{line}",
                args.join(" "),
                line.chars().count()
            );
        }
        let flat = flat.replace(&plain_lab.path().display().to_string(), "$LAB");
        assert_eq!(stripped, flat, "klog {} at {cols} columns: layout differs from NO_COLOR", args.join(" "));
    }
    coloured
}

#[test]
fn the_readme_session_fits_80_and_110_columns_in_colour_laid_out_as_without() {
    if !script_available() {
        return;
    }
    for cols in [80, 110] {
        let coloured = compare_session(README_SESSION, cols, |_| {});
        assert!(coloured >= README_SESSION.len() / 2, "colour was on for only {coloured} commands at {cols}");
    }
}

#[test]
fn a_terminal_reporting_width_0_gets_the_80_column_layout() {
    if !script_available() {
        return;
    }
    compare_session(&README_SESSION[..10], 0, |_| {});
}

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap() {
        let e = e.unwrap();
        let target = to.join(e.file_name());
        if e.file_type().unwrap().is_dir() {
            copy_dir(&e.path(), &target);
        } else {
            std::fs::copy(e.path(), target).unwrap();
        }
    }
}

#[test]
fn dump_and_check_of_real_broker_dirs_fit_in_colour_at_80_and_110_columns_and_at_width_0() {
    if !script_available() {
        return;
    }
    let Some(real) = crate::common::kafka_real() else { return };
    // Whole copies of two brokers' log dirs; a plain topic, __consumer_offsets (binary keys and
    // values) and KRaft metadata (control records) in them; and each log dir's overview.
    let brokers = ["zk-broker-2020", "kraft-broker-2026"];
    let partitions = [
        ("zk-broker-2020", "first_topic-2"),
        ("zk-broker-2020", "__consumer_offsets-18"),
        ("kraft-broker-2026", "__cluster_metadata-0"),
    ];
    let setup = |lab: &Path| {
        for b in brokers {
            copy_dir(&real.join(b), &lab.join(b));
        }
    };
    let mut steps: Vec<Vec<String>> = brokers.iter().map(|b| vec!["dump".to_string(), b.to_string()]).collect();
    for (broker, partition) in partitions {
        let target = vec![broker.to_string(), "--partition".into(), partition.to_string()];
        for extra in [&["--limit", "20"][..], &["--batches", "--limit", "20"], &["--epochs"]] {
            steps.push(
                [&["dump".to_string()][..], &target, &extra.iter().map(|x| x.to_string()).collect::<Vec<_>>()].concat(),
            );
        }
        steps.push([&["check".to_string()][..], &target].concat());
    }
    let steps: Vec<Vec<&str>> = steps.iter().map(|s| s.iter().map(String::as_str).collect()).collect();
    let steps: Vec<&[&str]> = steps.iter().map(Vec::as_slice).collect();
    for cols in [80, 110, 0] {
        compare_session(&steps, cols, setup);
    }
}
