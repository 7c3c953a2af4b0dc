//! `klog demo --capture FILE.html`: one self-contained file, checked as a file (its frames,
//! stories, answers and bytes). How a real browser shows it is the browser tier's
//! (tests/browser/capture.rs).

use crate::common::*;
use std::path::{Path, PathBuf};

/// KIP-101 scenario 1 has 14 commands; under three modes, plus the contrast frame.
const FRAMES: usize = 14 * 3 + 1;

fn capture(dir: &Path) -> PathBuf {
    let file = dir.join("x.html");
    let out = ok(&["demo", "kip101-1", "--mode", "all", "--capture", s(&file)]);
    assert!(out.contains(&format!("wrote {}", file.display())), "{out}");
    file
}

#[test]
fn capture_writes_one_self_contained_file_under_300_kb_with_a_frame_per_step() {
    let tmp = tempfile::tempdir().unwrap();
    let file = capture(tmp.path());
    let html = std::fs::read_to_string(&file).unwrap();
    // (The why figures — a round trip per fetch, a lookup per recovery — took it from about
    // 290 to 340 KB; the eras side by side are copied by the page's script, not repeated.)
    assert!(html.len() < 360 * 1024, "{} bytes", html.len());
    assert_eq!(html.matches("<section class=\"frame\"").count(), FRAMES);
    for bad in ["<link", "src=", "href=", "@import", "url(", "@font-face"] {
        assert!(!html.contains(bad), "must not reach outside the file: {bad}");
    }
    // Only SVG namespaces name a URL.
    assert_eq!(html.matches("http").count(), html.matches("xmlns=\"http://www.w3.org/2000/svg\"").count());
    // The frames: commands as typed, the explain panel beside a recovery, the contrast last.
    assert!(html.contains("$ klog recover $LAB/a --leader $LAB/b --mode hw"));
    assert!(html.contains("truncate_to(hw)") && html.contains("◀ hw = 1"));
    assert!(html.contains("What each truncation mode did") && html.contains("<table class=\"contrast\">"));
    // Every picture's legend says what HW and LEO are.
    let figures = html.matches("<svg class=\"round-trip\"").count() + html.matches("<svg class=\"lookup\"").count();
    assert_eq!(html.matches("<svg class=\"lookup\"").count(), 2 * 3, "a lookup per recovery");
    let pictures = html.matches("<svg ").count() - figures;
    assert!(pictures > FRAMES, "{pictures} pictures (the question frames draw the state before the step too)");
    assert_eq!(html.matches("HW = high watermark:").count(), pictures);
    assert_eq!(html.matches("LEO = log end offset:").count(), pictures);
    // No wall clock and no lab path: two runs give the same bytes.
    let other = tmp.path().join("again");
    std::fs::create_dir(&other).unwrap();
    let again = std::fs::read_to_string(capture(&other)).unwrap();
    assert!(again == html, "the capture depends on the run");
    assert!(!html.contains(s(tmp.path())), "the lab's path leaked into the capture");
}

/// Each run opens with the scenario's story, narration after a run's last step is kept on that
/// step's frame, and the slider keeps its own arrow keys (the page's handler steps only when the
/// slider is not focused, so one key press is one frame).
#[test]
fn capture_keeps_the_story_and_the_last_narration_and_one_key_is_one_frame() {
    let tmp = tempfile::tempdir().unwrap();
    let file = tmp.path().join("watch.html");
    ok(&["demo", "kip101-2", "--mode", "hw", "--capture", s(&file)]);
    let html = std::fs::read_to_string(&file).unwrap();
    assert_eq!(html.matches("<p class=\"story\">A leads at epoch 0").count(), 1, "{html}");
    let watch = tmp.path().join("watch.html");
    ok(&["demo", "watch", "--mode", "hw", "--capture", s(&watch)]);
    let html = std::fs::read_to_string(&watch).unwrap();
    assert_eq!(html.matches("<p class=\"story\">B leads at epoch 1").count(), 1, "{html}");
    assert!(html.contains("if(t===s&&/^(Arrow|Home$|End$|Page)/.test(k))return;"), "the slider keeps its own keys");
    assert!(html.contains("if(t!==s&&t.tagName==='INPUT')return;"), "typing an answer does not step");
    let all = tmp.path().join("all.html");
    ok(&["demo", "kip101-1", "--mode", "all", "--capture", s(&all)]);
    let html = std::fs::read_to_string(&all).unwrap();
    assert_eq!(html.matches("<p class=\"story\">").count(), 3, "one story per mode's run");
    // hw runs say that the epochs they draw are for comparison only: in the run's story and
    // in every hw frame's heading; kip101 and kip279 runs do not.
    let stories: Vec<&str> =
        html.split("<p class=\"story\">").skip(1).map(|s| s.split("</p>").next().unwrap()).collect();
    let comparison = "drawn for comparison only: Kafka &lt;= 0.10.2 had neither";
    assert_eq!(stories.iter().map(|s| s.contains(comparison)).collect::<Vec<_>>(), [true, false, false], "{stories:?}");
    let frames: Vec<&str> = html.split("<section class=\"frame\"").skip(1).collect();
    let hw = frames.iter().filter(|f| f.contains("data-mode=\"hw\"")).count();
    assert_eq!(hw, 14, "hw frames");
    assert_eq!(html.matches("mode hw (Kafka &lt;= 0.10.2; its epochs drawn for comparison only)</h2>").count(), hw);
}

/// `--predict --capture`: the learner's terminal answers are recorded beside the page's
/// questions (and without `--predict` the page still asks them, with nothing recorded).
#[test]
fn predict_with_capture_records_the_answers_and_a_capture_alone_asks_in_the_page() {
    let tmp = tempfile::tempdir().unwrap();
    let with = tmp.path().join("with.html");
    let mut cmd = klog();
    cmd.args(["demo", "kip101-1", "--mode", "hw", "--predict", "--capture", s(&with)]).write_stdin("1\n7\n1\nyes\n");
    let out = String::from_utf8(cmd.assert().success().get_output().stdout.clone()).unwrap();
    assert!(out.contains("you predicted"), "{out}");
    let html = std::fs::read_to_string(&with).unwrap();
    // A's HW after the first fetch (1: right), after the second (1: 7 is wrong), A's LEO after
    // its recovery under hw (1: right), whether m2 survives on A (no: yes is wrong).
    assert_eq!(html.matches("class=\"given\" data-answer=\"1\" data-right=\"true\"").count(), 2, "{html}");
    assert_eq!(html.matches("class=\"given\" data-answer=\"7\" data-right=\"false\"").count(), 1, "{html}");
    assert_eq!(html.matches("class=\"given\" data-answer=\"yes\" data-right=\"false\"").count(), 1, "{html}");
    assert!(html.contains("not answered in the terminal"), "the input ended before the last questions");
    let alone = tmp.path().join("alone.html");
    ok(&["demo", "kip101-1", "--mode", "hw", "--capture", s(&alone)]);
    let page = std::fs::read_to_string(&alone).unwrap();
    assert_eq!(page.matches("<div class=\"quiz\"").count(), html.matches("<div class=\"quiz\"").count());
    assert!(!page.contains("class=\"given\""));
    assert_ne!(page, html, "--predict --capture writes the answers, --capture alone does not");
}
