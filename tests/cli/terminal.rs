//! klog under a real pseudo-terminal (util-linux `script`), colour on, at 80 and 110 columns
//! and on a terminal that reports width 0: every line fits, and with the escape codes
//! stripped the output is laid out exactly as with `NO_COLOR` at the same width off a
//! terminal. The session is the README's 30-second session (read from README.md), dump, check,
//! the demo, and dump/check on copies of the real broker dirs.

use crate::common::copy_dir;
use assert_cmd::cargo::CommandCargoExt;
use std::path::Path;
use std::process::{Command, Stdio};

/// What the README's 30-second session does: klog commands, and copies of replica dirs.
enum Action {
    Klog(Vec<String>),
    Copy(String, String),
}

/// The `sh` blocks of the README's 30-second session, as actions (so this test follows the
/// README as it changes), then dump, check and the demo, which the session does not run.
fn readme_session() -> Vec<Action> {
    let readme = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("README.md")).unwrap();
    let start = readme.find("## A 30-second session").expect("the README has a 30-second session");
    let section = &readme[start..];
    let section = &section[..section[3..].find("\n## ").map_or(section.len(), |e| e + 3)];
    let mut actions = Vec::new();
    let mut in_sh = false;
    for line in section.lines() {
        if line.starts_with("```") {
            in_sh = line == "```sh";
            continue;
        }
        if !in_sh {
            continue;
        }
        let line = line.split(" #").next().unwrap_or("");
        for command in line.split("&&").map(str::trim).filter(|c| !c.is_empty()) {
            let words: Vec<String> = command.split_whitespace().map(String::from).collect();
            match words.iter().map(String::as_str).collect::<Vec<_>>().as_slice() {
                ["klog", ..] => actions.push(Action::Klog(words[1..].to_vec())),
                ["cp", "-a", from, to] => actions.push(Action::Copy(from.to_string(), to.to_string())),
                ["cd", ..] => {}
                other => panic!("the README session has a command this test cannot run: {other:?}"),
            }
        }
    }
    assert!(actions.len() >= 5, "the README session was not found");
    for extra in [
        &["dump", "a", "--epochs"][..],
        &["dump", "b"],
        &["dump", "b", "--batches"],
        &["check", "a"],
        &["demo", "--dir", "lab"],
    ] {
        actions.push(Action::Klog(extra.iter().map(|x| x.to_string()).collect()));
    }
    actions
}

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

/// Record timestamps (UTC ISO 8601, fixed width) masked: the twin labs append at different
/// milliseconds.
fn mask_timestamps(text: &str) -> String {
    let pattern = "dddd-dd-ddTdd:dd:dd.dddZ";
    let chars: Vec<char> = text.chars().collect();
    let mut out = String::new();
    let mut i = 0;
    while i < chars.len() {
        let matches = chars.len() - i >= pattern.len()
            && pattern.chars().zip(&chars[i..]).all(|(p, c)| if p == 'd' { c.is_ascii_digit() } else { p == *c });
        if matches {
            out.push_str("YYYY-MM-DDThh:mm:ss.mmmZ");
            i += pattern.len();
        } else {
            out.push(chars[i]);
            i += 1;
        }
    }
    out
}

/// Run `actions` twice, in a lab under the terminal and in a twin lab off it, comparing the
/// output of every klog command; returns how many printed colour.
fn compare_session(actions: &[Action], cols: u16, setup: impl Fn(&Path)) -> usize {
    let (tty_lab, plain_lab) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    setup(tty_lab.path());
    setup(plain_lab.path());
    let width = if cols == 0 { 80 } else { usize::from(cols) };
    let mut coloured = 0;
    for action in actions {
        let args: Vec<&str> = match action {
            Action::Copy(from, to) => {
                for lab in [tty_lab.path(), plain_lab.path()] {
                    copy_dir(&lab.join(from), &lab.join(to));
                }
                continue;
            }
            Action::Klog(args) => args.iter().map(String::as_str).collect(),
        };
        let (tty, tty_code) = under_terminal(tty_lab.path(), &args, cols);
        let (flat, flat_code) = plain(plain_lab.path(), &args, width as u16);
        assert_eq!(tty_code, flat_code, "klog {}: exit codes differ\n{tty}", args.join(" "));
        if tty.contains("\x1b[") {
            coloured += 1;
        }
        let stripped = mask_timestamps(&strip(&tty).replace(&tty_lab.path().display().to_string(), "$LAB"));
        for line in stripped.lines() {
            assert!(
                line.chars().count() <= width,
                "klog {} at {cols} columns: {} columns wide:\n{line}",
                args.join(" "),
                line.chars().count()
            );
        }
        let flat = mask_timestamps(&flat.replace(&plain_lab.path().display().to_string(), "$LAB"));
        assert_eq!(stripped, flat, "klog {} at {cols} columns: layout differs from NO_COLOR", args.join(" "));
    }
    coloured
}

#[test]
fn the_readme_session_fits_80_and_110_columns_in_colour_laid_out_as_without() {
    if !script_available() {
        return;
    }
    let session = readme_session();
    for cols in [80, 110] {
        let coloured = compare_session(&session, cols, |_| {});
        assert!(coloured >= session.len() / 2, "colour was on for only {coloured} commands at {cols}");
    }
}

#[test]
fn a_terminal_reporting_width_0_gets_the_80_column_layout() {
    if !script_available() {
        return;
    }
    compare_session(&readme_session(), 0, |_| {});
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
    let actions: Vec<Action> = steps.into_iter().map(Action::Klog).collect();
    for cols in [80, 110, 0] {
        compare_session(&actions, cols, setup);
    }
}

/// An error on a terminal is wrapped to its width, its words whole and in order; into a pipe it
/// is one line (scripts and logs grep it), whatever COLUMNS says.
#[test]
fn an_error_wraps_to_the_terminal_and_stays_one_line_into_a_pipe() {
    if !script_available() {
        return;
    }
    let lab = tempfile::tempdir().unwrap();
    let (a, b) = (lab.path().join("a"), lab.path().join("b"));
    for (dir, id) in [(&a, "1"), (&b, "2")] {
        let ok = Command::cargo_bin("klog").unwrap().args(["create"]).arg(dir).args(["--replica-id", id]).status();
        assert!(ok.unwrap().success());
    }
    let meta = b.join("meta.properties");
    let text = std::fs::read_to_string(&meta).unwrap();
    let text: String = text
        .lines()
        .map(|l| {
            if l.starts_with("cluster.id=") {
                "cluster.id=AnotherClusterAAAAAAAAA\n".into()
            } else {
                format!("{l}\n")
            }
        })
        .collect();
    std::fs::write(&meta, text).unwrap();
    let args = ["recover", "a", "--leader", "b", "--dry-run"];
    let piped =
        Command::cargo_bin("klog").unwrap().current_dir(lab.path()).env("COLUMNS", "60").args(args).output().unwrap();
    let piped = String::from_utf8_lossy(&piped.stderr).into_owned();
    assert_eq!(piped.lines().count(), 1, "{piped}");
    assert!(piped.chars().count() > 100, "{piped}");
    let klog = Command::cargo_bin("klog").unwrap().get_program().to_owned();
    let line = format!(
        "stty cols 60 rows 50; exec {} {} >/dev/null",
        quote(&klog.to_string_lossy()),
        args.iter().map(|a| quote(a)).collect::<Vec<_>>().join(" ")
    );
    let out = Command::new("script")
        .args(["-q", "-e", "-c", &line, "/dev/null"])
        .current_dir(lab.path())
        .env("NO_COLOR", "1")
        .env_remove("COLUMNS")
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let tty = String::from_utf8_lossy(&out.stdout).replace("\r\n", "\n");
    assert!(tty.lines().count() > 1, "not wrapped: {tty}");
    assert!(tty.lines().all(|l| l.chars().count() <= 60), "{tty}");
    let words = |t: &str| t.split_whitespace().map(String::from).collect::<Vec<_>>();
    assert_eq!(words(&tty), words(&piped), "the wrapped error says what the piped one says");
}
