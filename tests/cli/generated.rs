//! `man/` and `completions/` are generated from the clap definitions and committed; they must be
//! fresh. Re-bless with `cargo run -- generate man man` and
//! `for s in bash zsh fish; do cargo run -q -- generate completions $s > completions/klog.$s; done`.

use crate::common::*;
use std::path::Path;

fn repo(p: &str) -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join(p)
}

#[test]
fn committed_man_pages_are_fresh() {
    let lab = Lab::new();
    let dir = lab.path("man");
    ok(&["generate", "man", s(&dir)]);
    let mut generated: Vec<_> = std::fs::read_dir(&dir).unwrap().map(|e| e.unwrap().file_name()).collect();
    generated.sort();
    let mut committed: Vec<_> = std::fs::read_dir(repo("man")).unwrap().map(|e| e.unwrap().file_name()).collect();
    committed.sort();
    assert_eq!(generated, committed, "man/ has other pages than the CLI: regenerate it");
    for name in generated {
        let fresh = std::fs::read(dir.join(&name)).unwrap();
        let old = std::fs::read(repo("man").join(&name)).unwrap();
        assert!(fresh == old, "man/{} is stale: run `cargo run -- generate man man`", name.to_string_lossy());
    }
    let page = std::fs::read_to_string(repo("man/klog-recover.1")).unwrap();
    for section in [".SH \"EXIT STATUS\"", ".SH FILES", ".SH EXAMPLES"] {
        assert!(page.contains(section), "{section}");
    }
}

#[test]
fn committed_completions_are_fresh() {
    for shell in ["bash", "zsh", "fish"] {
        let fresh = ok(&["generate", "completions", shell]);
        let old = std::fs::read_to_string(repo(&format!("completions/klog.{shell}"))).unwrap();
        assert!(fresh == old, "completions/klog.{shell} is stale: regenerate it");
        assert!(fresh.contains("recover") && fresh.contains("--mode"));
    }
}
