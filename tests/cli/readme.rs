//! The README and the guides in `docs/` run as written: the README's 30-second session (every
//! `sh` block of that section in order, in one shell with klog on `PATH`, and every line of the
//! `text` block after a `sh` block printed by it; `…` stands for any text, such as a temp path),
//! every `console` block of README.md and `docs/*.md`, the explore guide's table, script and
//! benchmark counts, and the set-up and install commands. Every relative link between these
//! files points at a file (and heading) that exists.

use std::path::{Path, PathBuf};

/// README.md, then every `docs/*.md` in name order: (path relative to the crate, text).
fn documents() -> Vec<(String, String)> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut names: Vec<PathBuf> = std::fs::read_dir(root.join("docs"))
        .expect("docs/ exists")
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "md"))
        .collect();
    names.sort();
    let mut out = vec![("README.md".to_string(), std::fs::read_to_string(root.join("README.md")).unwrap())];
    for path in names {
        let name = path.strip_prefix(root).unwrap().display().to_string();
        out.push((name, std::fs::read_to_string(&path).unwrap()));
    }
    out
}

/// The README's text.
fn readme_text() -> String {
    std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("README.md")).unwrap()
}

/// The one document (README.md or a guide in docs/) that contains `marker`: (name, text).
fn document_with(marker: &str) -> (String, String) {
    let mut found: Vec<(String, String)> = documents().into_iter().filter(|(_, text)| text.contains(marker)).collect();
    assert_eq!(found.len(), 1, "{marker:?} should be in exactly one of README.md and docs/*.md");
    found.pop().unwrap()
}

/// The fenced code blocks of `text`: (language, body).
fn fenced_blocks(text: &str) -> Vec<(String, String)> {
    let mut all = Vec::new();
    let mut lines = text.lines();
    while let Some(line) = lines.next() {
        if let Some(lang) = line.strip_prefix("```") {
            let body: Vec<&str> = lines.by_ref().take_while(|l| !l.starts_with("```")).collect();
            all.push((lang.to_string(), body.join("\n")));
        }
    }
    all
}

/// The code blocks of the README section whose heading starts with `heading`: (language, text).
fn blocks(readme: &str, heading: &str) -> Vec<(String, String)> {
    let start = readme.find(heading).expect("the section exists");
    let section = &readme[start + heading.len()..];
    let section = &section[..section.find("\n## ").unwrap_or(section.len())];
    let mut out = Vec::new();
    let mut lines = section.lines();
    while let Some(line) = lines.next() {
        if let Some(lang) = line.strip_prefix("```") {
            let body: Vec<&str> = lines.by_ref().take_while(|l| !l.starts_with("```")).collect();
            out.push((lang.to_string(), body.join("\n")));
        }
    }
    out
}

/// Whether `line` (with `…` wildcards) appears in `output`.
fn shown(output: &str, line: &str) -> bool {
    let parts: Vec<&str> = line.split('…').collect();
    output.lines().any(|o| {
        let mut rest = o;
        parts.iter().enumerate().all(|(i, p)| match rest.find(p) {
            Some(at) if i > 0 || at == 0 || p.is_empty() => {
                rest = &rest[at + p.len()..];
                true
            }
            _ => false,
        })
    })
}

#[test]
fn the_readme_session_loses_an_acked_record_under_hw_and_none_under_kip279() {
    let readme = readme_text();
    let blocks = blocks(&readme, "## A 30-second session");
    let mut script = String::from("set -euo pipefail\n");
    let mut expected = Vec::new();
    for (i, (lang, body)) in blocks.iter().enumerate() {
        match lang.as_str() {
            "sh" => script.push_str(&format!("echo '@@block {i}'\n{body}\n")),
            "text" => expected.push((i - 1, body.clone())),
            other => panic!("unexpected block language {other:?}"),
        }
    }
    let tmp = tempfile::tempdir().unwrap();
    let bin = assert_cmd::cargo::cargo_bin("klog");
    let path = format!("{}:{}", bin.parent().unwrap().display(), std::env::var("PATH").unwrap_or_default());
    let out = std::process::Command::new("bash")
        .arg("-c")
        .arg(&script)
        .env("PATH", path)
        .env("TMPDIR", tmp.path())
        .env("NO_COLOR", "1")
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "the session failed:\n{stdout}\n{}", String::from_utf8_lossy(&out.stderr));
    for (block, text) in expected {
        let marker = format!("@@block {block}\n");
        let from = stdout.find(&marker).expect("the block ran") + marker.len();
        let output = &stdout[from..stdout[from..].find("@@block ").map_or(stdout.len(), |e| from + e)];
        for line in text.lines() {
            assert!(shown(output, line), "README line not printed by block {block}:\n{line}\n--- printed:\n{output}");
        }
    }
    // The point of the session, whatever the wording: a loss under hw, none under kip279.
    assert!(stdout.contains("acked lost 1"), "{stdout}");
    assert!(stdout.contains("the logs agree"), "{stdout}");
}

/// Every `console` block of README.md and of each guide in docs/ runs as written: its leading
/// `$` lines are commands, run in order in a temp dir (`/tmp/lab` and each guide's own
/// `/tmp/klog-*` dir there too), and every later line but `…`/`...` gaps is printed by them (at
/// 100 columns, no colour).
#[test]
fn every_console_block_of_the_readme_and_the_guides_runs_as_written() {
    let bin = assert_cmd::cargo::cargo_bin("klog");
    let path = format!("{}:{}", bin.parent().unwrap().display(), std::env::var("PATH").unwrap_or_default());
    let mut ran = 0;
    for (name, text) in documents() {
        for (_, body) in fenced_blocks(&text).iter().filter(|(lang, _)| lang == "console") {
            let lines: Vec<&str> = body.lines().collect();
            let commands: Vec<&str> = lines.iter().take_while(|l| l.starts_with("$ ")).copied().collect();
            let shown: Vec<&str> =
                lines[commands.len()..].iter().copied().filter(|l| !matches!(l.trim(), "" | "…" | "...")).collect();
            let tmp = tempfile::tempdir().unwrap();
            std::fs::create_dir(tmp.path().join("docs")).unwrap();
            let lab = tmp.path().join("lab");
            let script: String = commands
                .iter()
                .map(|c| {
                    c.trim_start_matches("$ ")
                        .replace("/tmp/lab", &lab.display().to_string())
                        .replace("/tmp/klog-", &format!("{}/klog-", tmp.path().display()))
                        + "\n"
                })
                .collect();
            let out = std::process::Command::new("bash")
                .arg("-c")
                .arg(format!("set -euo pipefail\n{script}"))
                .current_dir(tmp.path())
                .env("PATH", &path)
                .env("NO_COLOR", "1")
                .env("COLUMNS", "100")
                .output()
                .unwrap();
            let printed = format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
            assert!(out.status.success(), "{name}: block failed:\n{body}\n--- printed:\n{printed}");
            for line in shown {
                assert!(
                    printed.lines().any(|p| p.trim_end() == line.trim_end()),
                    "{name}: line not printed: {line:?}\n--- block:\n{body}\n--- printed:\n{printed}"
                );
            }
            ran += 1;
        }
    }
    assert!(ran >= 6, "the console blocks of README.md and docs/*.md were not found ({ran})");
}

/// The guides' fixed dirs are their own: a reader who runs one guide after another never finds
/// a dir the last one left (a `--dir` that already holds a lab, a replica that already exists).
#[test]
fn each_guide_makes_its_labs_in_a_dir_of_its_own() {
    let mut owner: std::collections::BTreeMap<String, String> = std::collections::BTreeMap::new();
    for (name, text) in documents() {
        for (_, body) in fenced_blocks(&text).iter().filter(|(lang, _)| lang == "console") {
            for word in body.lines().filter(|l| l.starts_with("$ ")).flat_map(str::split_whitespace) {
                let Some(rest) = word.strip_prefix("/tmp/") else { continue };
                let top = rest.split('/').next().unwrap_or(rest).to_string();
                let first = owner.entry(top.clone()).or_insert_with(|| name.clone());
                assert_eq!(*first, name, "/tmp/{top} is used by {first} and by {name}: give each guide its own dir");
            }
        }
    }
    assert!(owner.len() >= 3, "the guides' /tmp dirs were not found: {owner:?}");
}

/// The code block right after the first line of `text` that contains `marker`.
fn block_after(text: &str, marker: &str) -> String {
    let at = text.find(marker).unwrap_or_else(|| panic!("the text has {marker:?}"));
    let rest = &text[at..];
    let open = rest.find("```").expect("a block follows");
    let body = &rest[open..];
    let body = &body[body.find('\n').unwrap() + 1..];
    body[..body.find("```").expect("the block closes")].to_string()
}

/// The explore guide's table and its one emitted script are what `klog explore` prints and
/// writes now, and the script's shown output is what `bash hw.sh` prints (`$LAB` where the
/// report names the script's temp dir; `…` where the guide leaves the picture out).
#[test]
fn the_readme_explore_table_script_and_script_output_are_what_klog_makes() {
    let (name, guide) = document_with("`klog explore` (2 replicas, at most 3 elections");
    let klog = assert_cmd::cargo::cargo_bin("klog");
    let table = block_after(&guide, "`klog explore` (2 replicas, at most 3 elections");
    let out = std::process::Command::new(&klog).arg("explore").env("NO_COLOR", "1").output().unwrap();
    let printed = String::from_utf8_lossy(&out.stdout);
    for line in table.lines().filter(|l| !l.starts_with("time:") && l.trim() != "…") {
        assert!(printed.lines().any(|p| p == line), "{name}: explore line not printed: {line:?}\n{printed}");
    }
    let tmp = tempfile::tempdir().unwrap();
    let script_path = tmp.path().join("hw.sh");
    let out = std::process::Command::new(&klog)
        .args(["explore", "--mode", "hw", "--script"])
        .arg(&script_path)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1), "{}", String::from_utf8_lossy(&out.stderr));
    let script = std::fs::read_to_string(&script_path).unwrap();
    assert_eq!(block_after(&guide, "`klog explore --mode hw --script hw.sh` writes:"), script, "{name}");
    let shown = block_after(&guide, "`bash hw.sh` (klog on `PATH`) echoes each step and ends with:");
    let path = format!("{}:{}", klog.parent().unwrap().display(), std::env::var("PATH").unwrap_or_default());
    let out = std::process::Command::new("bash")
        .arg(&script_path)
        .env("PATH", path)
        .env("TMPDIR", tmp.path())
        .env("NO_COLOR", "1")
        .env("COLUMNS", "200")
        .output()
        .unwrap();
    let printed = format!("{}{}", String::from_utf8_lossy(&out.stderr), String::from_utf8_lossy(&out.stdout));
    // The report names the script's `mktemp -d` dir: shown as `$LAB`.
    let lab_prefix = format!("{}/tmp.", tmp.path().display());
    let printed: Vec<String> = printed
        .lines()
        .map(|l| {
            let mut l = l.to_string();
            while let Some(at) = l.find(&lab_prefix) {
                let rest = &l[at + lab_prefix.len()..];
                let end = at + lab_prefix.len() + rest.find('/').unwrap_or(rest.len());
                l = format!("{}$LAB{}", &l[..at], &l[end..]);
            }
            l
        })
        .collect();
    for line in shown.lines().filter(|l| l.trim() != "…") {
        assert!(
            printed.iter().any(|p| p.trim_end() == line.trim_end()),
            "{name}: line not printed by bash hw.sh: {line:?}\n{}",
            printed.join("\n")
        );
    }
}

/// The explore guide's example commands run as written (a lab path under a temp dir instead
/// of `/tmp`): each exits 0 (no violation within its bounds) or 1 (one found), never 2.
#[test]
fn the_readme_explore_examples_run_as_written() {
    let (name, guide) = document_with("shortest one, and hands it back as a shell script");
    let examples = block_after(&guide, "shortest one, and hands it back as a shell script");
    let tmp = tempfile::tempdir().unwrap();
    let klog = assert_cmd::cargo::cargo_bin("klog");
    let path = format!("{}:{}", klog.parent().unwrap().display(), std::env::var("PATH").unwrap_or_default());
    let mut ran = 0;
    for line in examples.lines().filter(|l| l.starts_with("klog ")) {
        let command = line.split('#').next().unwrap().trim().replace("/tmp/", &format!("{}/", tmp.path().display()));
        let out = std::process::Command::new("bash")
            .arg("-c")
            .arg(&command)
            .env("PATH", &path)
            .env("NO_COLOR", "1")
            .output()
            .unwrap();
        assert!(
            matches!(out.status.code(), Some(0 | 1)),
            "{name}: example failed: {command}\n{}",
            String::from_utf8_lossy(&out.stderr)
        );
        ran += 1;
    }
    assert!(ran >= 5, "{name}: the explore examples were not found");
}

/// The explore benchmark block: its measured times are the run's, but every count in it (states,
/// transitions, violations, shortest, depth) is what `klog explore` computes now for the same
/// arguments (read from `benches/explore.sh`); the deep run's counts are those the guide's prose
/// states, and are not rerun here (a debug build takes minutes on them).
#[test]
fn the_readme_explore_benchmark_counts_are_what_klog_computes() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let (doc, guide) = document_with("```\nklog explore benchmark on");
    let bench = std::fs::read_to_string(root.join("benches/explore.sh")).unwrap();
    let start = guide.find("```\nklog explore benchmark on").unwrap() + 4;
    let block = &guide[start..start + guide[start..].find("```").expect("the block closes")];
    let field = |row: &str, name: &str| -> String {
        let words: Vec<&str> = row.split_whitespace().collect();
        let at = words.iter().position(|w| *w == name).unwrap_or_else(|| panic!("{name} in {row}"));
        words[at + 1].to_string()
    };
    let mut checked = 0;
    for line in bench.lines().filter(|l| l.starts_with("run ")) {
        let words: Vec<&str> = line.split_whitespace().collect();
        let (name, args) = (words[1], &words[4..]);
        let row = block
            .lines()
            .find(|l| l.split_whitespace().next() == Some(name))
            .unwrap_or_else(|| panic!("{name} not in the explore benchmark block of {doc}"));
        let states: u64 = field(row, "states").parse().unwrap();
        if states > 1_000_000 {
            // Minutes in a debug build: held to the count the guide's prose states instead.
            let shown = states
                .to_string()
                .as_bytes()
                .rchunks(3)
                .rev()
                .map(|c| std::str::from_utf8(c).unwrap())
                .collect::<Vec<_>>()
                .join(",");
            assert!(guide.contains(&format!("({shown}")), "{doc}, {name}: the prose does not state {shown} states");
            continue;
        }
        let out = std::process::Command::new(assert_cmd::cargo::cargo_bin("klog"))
            .arg("explore")
            .args(args)
            .arg("--json")
            .output()
            .unwrap();
        let v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("explore JSON");
        let run = &v["runs"][0];
        assert_eq!(field(row, "states"), run["states"].to_string(), "{doc}, {name}: {row}");
        assert_eq!(field(row, "transitions"), run["transitions"].to_string(), "{doc}, {name}: {row}");
        assert_eq!(field(row, "violations"), run["violations"].to_string(), "{doc}, {name}: {row}");
        assert_eq!(field(row, "depth"), run["depth"].to_string(), "{doc}, {name}: {row}");
        let shortest = run["shortest"].as_u64().map_or("-".to_string(), |s| s.to_string());
        assert_eq!(field(row, "shortest"), shortest, "{doc}, {name}: {row}");
        checked += 1;
    }
    assert!(checked >= 9, "{doc}: {checked} rows checked");
    let deep = block.lines().find(|l| l.starts_with("3.9.1-3r-4-2-deep")).expect("the 3.9.1 deep row");
    assert_eq!((field(deep, "states"), field(deep, "transitions")), ("1636387".into(), "7771072".into()));
    assert!(guide.contains("(1,636,387 states and 7,771,072 transitions"), "{doc}");
    let deep = block.lines().find(|l| l.starts_with("kip279-3r-4-2-deep")).expect("the 4.4 deep row");
    assert!(guide.contains(&format!(
        "after {} canonical states",
        field(deep, "states")
            .as_bytes()
            .rchunks(3)
            .rev()
            .map(|c| std::str::from_utf8(c).unwrap())
            .collect::<Vec<_>>()
            .join(",")
    )));
}

/// The README's first block and its Install block run as written, with the built binary for
/// `cargo run -- …` and a temp dir for the system paths (`cargo install --locked --path .` itself builds
/// the same binary in release mode and is left to the user).
#[test]
fn the_readme_set_up_and_install_commands_run() {
    let readme = readme_text();
    let klog = assert_cmd::cargo::cargo_bin("klog");
    let tmp = tempfile::tempdir().unwrap();
    let first = block_after(&readme, "# klog");
    // Cargo's progress shows while a first run builds (no -q), and the install keeps the lock.
    assert!(first.contains("cargo run --release -- demo") && first.contains("cargo test"), "{first}");
    assert!(readme.contains("cargo install --locked --path ."), "the install ignores Cargo.lock");
    let demo = std::process::Command::new(&klog).arg("demo").output().unwrap();
    assert!(demo.status.success() && String::from_utf8_lossy(&demo.stdout).contains("KIP-101"));
    let install = block_after(&readme, "## Install");
    let path = format!("{}:{}", klog.parent().unwrap().display(), std::env::var("PATH").unwrap_or_default());
    let mut ran = 0;
    for line in install.lines().filter(|l| l.starts_with("klog ")) {
        let command = line
            .split(" #")
            .next()
            .unwrap()
            .replace("/usr/local/share/man/man1", &tmp.path().join("man1").display().to_string())
            .replace("/etc/bash_completion.d/klog", &tmp.path().join("klog.bash").display().to_string());
        let out = std::process::Command::new("bash").arg("-c").arg(&command).env("PATH", &path).output().unwrap();
        assert!(out.status.success(), "{command}: {}", String::from_utf8_lossy(&out.stderr));
        ran += 1;
    }
    assert_eq!(ran, 2);
    assert!(tmp.path().join("man1/klog-recover.1").is_file());
    assert!(std::fs::read_to_string(tmp.path().join("klog.bash")).unwrap().contains("klog"));
}

/// GitHub's anchor for a heading: lower case, spaces as `-`, only letters, digits, `-` and `_`.
fn anchor(heading: &str) -> String {
    heading
        .trim()
        .to_lowercase()
        .chars()
        .filter_map(|c| match c {
            ' ' => Some('-'),
            c if c.is_alphanumeric() || c == '-' || c == '_' => Some(c),
            _ => None,
        })
        .collect()
}

/// The lines of `text` outside fenced code blocks.
fn prose(text: &str) -> Vec<&str> {
    let mut fenced = false;
    text.lines()
        .filter(|l| {
            if l.starts_with("```") {
                fenced = !fenced;
                return false;
            }
            !fenced
        })
        .collect()
}

/// The relative link targets of `text` (`[text](target)`, images too), outside code blocks and
/// inline code; web addresses are left out.
fn relative_links(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    for line in prose(text) {
        // Inline code spans are the odd pieces between backticks.
        let plain: String = line.split('`').step_by(2).collect::<Vec<_>>().join(" ");
        let mut rest = plain.as_str();
        while let Some(at) = rest.find("](") {
            rest = &rest[at + 2..];
            let target = &rest[..rest.find(')').expect("a link closes on its line")];
            if !target.contains("://") && !target.starts_with("mailto:") {
                out.push(target.to_string());
            }
        }
    }
    out
}

#[test]
fn anchor_is_githubs_heading_slug() {
    assert_eq!(anchor("Who led when: `klog history`"), "who-led-when-klog-history");
    assert_eq!(anchor("The 4.x model against real Kafka 4.4 brokers"), "the-4x-model-against-real-kafka-44-brokers");
    assert_eq!(anchor("Side by side with Kafka's own tools"), "side-by-side-with-kafkas-own-tools");
    assert_eq!(
        relative_links(
            "see [a](docs/a.md#x), `[not](code)`, ![p](p.svg) and [w](https://x.org)\n```\n[no](block)\n```"
        ),
        ["docs/a.md#x", "p.svg"]
    );
}

/// Every relative link of README.md and docs/*.md names a file that exists, and an anchor names
/// a heading of the file it points into.
#[test]
fn every_relative_link_of_the_readme_and_the_guides_resolves() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut checked = 0;
    for (name, text) in documents() {
        let dir = root.join(&name).parent().unwrap().to_path_buf();
        for target in relative_links(&text) {
            let (file, fragment) = target.split_once('#').unwrap_or((&target, ""));
            let path = if file.is_empty() { root.join(&name) } else { dir.join(file) };
            assert!(path.exists(), "{name}: the link ({target}) names {} that does not exist", path.display());
            if !fragment.is_empty() {
                let linked = std::fs::read_to_string(&path).unwrap();
                let anchors: Vec<String> = prose(&linked)
                    .iter()
                    .filter(|l| l.starts_with('#'))
                    .map(|l| anchor(l.trim_start_matches('#')))
                    .collect();
                assert!(
                    anchors.iter().any(|a| a == fragment),
                    "{name}: no heading for the link ({target}); headings: {anchors:?}"
                );
            }
            checked += 1;
        }
    }
    assert!(checked >= 20, "only {checked} links found in README.md and docs/*.md");
}

/// No `sh` block of README.md or docs/*.md goes unrun: each is the README's first block, its
/// Install block, a block of the 30-second session, or the explore guide's examples or emitted
/// script, which the tests above run (`console` blocks are all run, whatever file holds them).
#[test]
fn every_sh_block_of_the_readme_and_the_guides_is_run_by_a_test() {
    let readme = readme_text();
    let mut run: Vec<String> = vec![block_after(&readme, "# klog"), block_after(&readme, "## Install")];
    run.extend(blocks(&readme, "## A 30-second session").into_iter().filter(|(l, _)| l == "sh").map(|(_, b)| b));
    for marker in
        ["shortest one, and hands it back as a shell script", "`klog explore --mode hw --script hw.sh` writes:"]
    {
        let (_, guide) = document_with(marker);
        run.push(block_after(&guide, marker));
    }
    let mut seen = 0;
    for (name, text) in documents() {
        for (_, body) in fenced_blocks(&text).into_iter().filter(|(lang, _)| lang == "sh") {
            assert!(
                run.iter().any(|r| r.trim_end() == body.trim_end()),
                "{name}: an sh block no test runs (make it a console block, or run it in tests/cli/readme.rs):\n{body}"
            );
            seen += 1;
        }
    }
    assert_eq!(seen, run.len(), "every block the tests run is an sh block");
}
