//! The README's 30-second session runs as written: every `sh` block of that section in order,
//! in one shell with klog on `PATH`, and every line of the `text` block after a `sh` block is
//! printed by it (`…` stands for any text, such as a temp path).

use std::path::Path;

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
    let readme = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("README.md")).unwrap();
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

/// The `recover --explain` example runs as written (its lab in a temp dir instead of
/// `/tmp/lab`) and prints every line the README shows after the `…`.
#[test]
fn the_readme_explain_example_prints_what_the_readme_shows() {
    let readme = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("README.md")).unwrap();
    let blocks = blocks(&readme, "### The lines that ran: `recover --explain`");
    let (_, body) = blocks.iter().find(|(lang, _)| lang == "console").expect("a console block");
    let (commands, shown_lines): (Vec<&str>, Vec<&str>) = body.lines().partition(|l| l.starts_with("$ "));
    let tmp = tempfile::tempdir().unwrap();
    let lab = tmp.path().join("lab");
    let script: String = commands
        .iter()
        .map(|c| c.trim_start_matches("$ ").replace("/tmp/lab", &lab.display().to_string()) + "\n")
        .collect();
    let bin = assert_cmd::cargo::cargo_bin("klog");
    let path = format!("{}:{}", bin.parent().unwrap().display(), std::env::var("PATH").unwrap_or_default());
    let out = std::process::Command::new("bash")
        .arg("-c")
        .arg(format!("set -euo pipefail\n{script}"))
        .env("PATH", path)
        .env("NO_COLOR", "1")
        .env("COLUMNS", "100")
        .output()
        .unwrap();
    let printed = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    for line in shown_lines.iter().filter(|l| **l != "…") {
        assert!(printed.lines().any(|p| p.trim_end() == line.trim_end()), "README line not printed: {line}\n--- printed:\n{printed}");
    }
}
