//! `klog lab` in Chromium: KIP-101 scenario 1, the Watch preset, the quiz, the three eras side
//! by side, the explorer replay and the stuck-lso scene's fixes played by clicking (lab.mjs,
//! lab-watch.mjs, lab-lso.mjs, lab-tiers.mjs), and the copied
//! scripts, run through the CLI, leave the same dirs byte for byte. The server's refusals are
//! judged in the fast tier (tests/cli/lab.rs).

use crate::common::*;
use crate::lab_server::{listing, Server, SOURCE_DATE_EPOCH};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

/// Every file under `dir` by its path below `dir`, byte for byte.
fn files(dir: &Path) -> BTreeMap<PathBuf, Vec<u8>> {
    tree(dir).into_iter().filter_map(|(p, bytes)| Some((p.strip_prefix(dir).unwrap().to_path_buf(), bytes?))).collect()
}

/// Run a copied lab script with DIR = `dir` (its lab's own branch dir, moved aside first, so the
/// directory ids klog derives from the path are the same) and compare every file.
fn replay_matches(script: &str, dir: &Path) -> BTreeMap<PathBuf, Vec<u8>> {
    let lab_copy = dir.with_extension("lab");
    std::fs::rename(dir, &lab_copy).unwrap();
    let file = dir.with_extension("sh");
    std::fs::write(&file, script).unwrap();
    let bin = assert_cmd::cargo::cargo_bin("klog");
    let path = format!("{}:{}", bin.parent().unwrap().display(), std::env::var("PATH").unwrap_or_default());
    let out = Command::new("bash")
        .arg(&file)
        .arg(dir)
        .env("PATH", path)
        .env("NO_COLOR", "1")
        .env("SOURCE_DATE_EPOCH", SOURCE_DATE_EPOCH)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let (lab_files, cli_files) = (files(&lab_copy), files(dir));
    assert_eq!(lab_files.keys().collect::<Vec<_>>(), cli_files.keys().collect::<Vec<_>>());
    for (p, bytes) in &lab_files {
        assert!(cli_files[p] == *bytes, "{} differs between the lab and its script", p.display());
    }
    assert!(lab_files.len() >= 20, "{} files", lab_files.len());
    let meta = lab_files.iter().find(|(p, _)| p.ends_with("a/meta.properties")).expect("a's meta.properties").1;
    assert!(String::from_utf8_lossy(meta).contains("#Tue Dec 01 00:00:00 UTC 2026\n"), "SOURCE_DATE_EPOCH unused");
    cli_files
}

/// A lab served on a fresh dir (`dir`, below `outside`; its temp dir `tmp`), played in Chromium by
/// `script` with its screenshots in target/browser-shots/`shots`: what the page showed, once
/// the page threw no error. None where the browser tier is not set up (the harness says why).
struct Played {
    outside: tempfile::TempDir,
    tmp: tempfile::TempDir,
    dir: PathBuf,
    seen: serde_json::Value,
}

fn play(script: &str, shots: &str) -> Option<Played> {
    let outside = tempfile::tempdir().unwrap();
    let tmp = tempfile::tempdir().unwrap();
    let dir = outside.path().join("lab");
    let server = Server::start(&dir, tmp.path());
    let shots = Path::new(env!("CARGO_MANIFEST_DIR")).join("target/browser-shots").join(shots);
    let seen = crate::harness::run(script, &[&server.url, s(&shots)])?;
    drop(server);
    eprintln!("screenshots: {}", shots.display());
    assert_eq!(seen["errors"], serde_json::json!([]), "{seen}");
    Some(Played { outside, tmp, dir, seen })
}

/// The record at `offset` of replica `name` under `dir`, read by `klog dump`.
fn value_at(dir: &Path, name: &str, offset: i64) -> Option<String> {
    records(&dir.join(name)).into_iter().find(|(o, _, _)| *o == offset).map(|(_, _, v)| v)
}

#[test]
fn kip101_scenario_1_played_by_clicking_loses_m2_under_hw_and_not_under_kip279_and_its_scripts_replay_it() {
    let Some(Played { outside: _outside, tmp, dir, seen }) = play("lab.mjs", "lab") else { return };
    assert_eq!(seen["narrow"], serde_json::json!([0, 0, 0, 0]), "at 400 px no frame is wider than the page");
    for f in seen["frames"].as_array().unwrap() {
        assert_eq!(f["pictures"], 1, "every frame has the replicas' picture: {f}");
        assert_eq!(f["page_wider_than_viewport"], false, "{f}");
        let command = f["command"].as_str().unwrap();
        if ["klog elect", "klog append", "klog fetch"].iter().any(|c| command.starts_with(c))
            || command.contains("--leader") && command.starts_with("klog recover")
        {
            assert!(f["code_panels"].as_u64().unwrap() >= 1 && f["ran_lines"].as_u64().unwrap() >= 1, "{f}");
        }
        if command.starts_with("klog recover") && command.contains("--leader") {
            assert_eq!(f["recovery_pictures"], 1, "{f}");
        }
    }
    // Under hw: a restarts, truncates to its HW 1, and is elected without the acked m2.
    assert_eq!(seen["crash"]["lost"], "", "{seen}");
    assert_eq!(seen["electHw"]["lost"], "m2@1", "{seen}");
    assert_eq!(seen["electHw"]["leader"], "a");
    assert!(
        seen["electHw"]["model"].as_str().unwrap().contains("acked m2 (offset 1) is missing from a's log"),
        "{seen}"
    );
    assert_eq!(seen["lastHw"]["lost"], "m2@1");
    // The explorer from the crash frame finds the way: recover under hw, then elect a.
    assert_eq!(seen["explorer"]["found"], "true", "{seen}");
    let steps: Vec<&str> = seen["explorer"]["steps"].as_array().unwrap().iter().map(|v| v.as_str().unwrap()).collect();
    assert!(steps.first().is_some_and(|s| s.contains("klog recover $LAB/a --leader $LAB/b --mode hw")), "{steps:?}");
    assert!(steps.last().is_some_and(|s| s.starts_with("klog elect $LAB/a")), "{steps:?}");
    // Forked at the crash, under kip279: a keeps m2; nothing lost.
    assert_eq!(seen["elect279"]["lost"], "", "{seen}");
    assert_eq!(seen["last279"]["lost"], "", "{seen}");
    assert_eq!(seen["last279"]["acked"], "m1@0,m2@1,m3@2", "{seen}");
    assert_eq!(seen["branches"], serde_json::json!([13, 13]), "{seen}");
    assert!(seen["last279"]["title"].as_str().unwrap().starts_with("Branch 2, frame 12"), "{seen}");

    // Each copied script, run through the CLI, leaves byte-identical dirs and the same verdict.
    // Read back from the clipboard the copy button wrote.
    assert_eq!(seen["hw_script"]["from"], "clipboard", "{seen}");
    assert_eq!(seen["kip279_script"]["from"], "clipboard", "{seen}");
    let hw_script = seen["hw_script"]["text"].as_str().unwrap();
    let kip279_script = seen["kip279_script"]["text"].as_str().unwrap();
    assert!(hw_script.contains("--mode hw\n") && !hw_script.contains("kip279"), "{hw_script}");
    assert!(kip279_script.contains("--mode kip279\n") && !kip279_script.contains("--mode hw"), "{kip279_script}");
    assert!(hw_script.ends_with("# verdict: acknowledged m2 (offset 1) lost: a leads at epoch 1 without it\n"));
    assert!(kip279_script.ends_with("# verdict: no acknowledged record lost\n"), "{kip279_script}");
    let (hw_dir, kip279_dir) = (dir.join("1"), dir.join("2"));
    assert_eq!(seen["kip279_dir"], s(&kip279_dir));
    replay_matches(hw_script, &hw_dir);
    replay_matches(kip279_script, &kip279_dir);
    // The verdict, read back from the script's dirs with klog dump: under hw the leader a holds
    // m3 where the acked m2 was; under kip279 it holds m2 there.
    assert_eq!(value_at(&hw_dir, "a", 1).as_deref(), Some("m3"));
    assert_eq!(value_at(&hw_dir, "b", 1).as_deref(), Some("m2"));
    assert_eq!(value_at(&kip279_dir, "a", 1).as_deref(), Some("m2"));
    assert_eq!(value_at(&kip279_dir, "a", 2).as_deref(), Some("m3"));
    assert_eq!(listing(tmp.path()), Vec::<String>::new(), "nothing in the temp dir");
}

#[test]
fn the_watch_preset_the_quiz_the_three_eras_side_by_side_and_the_explorer_replay_play_by_clicks_and_their_scripts_replay_them(
) {
    let Some(Played { outside: _outside, tmp, dir, seen }) = play("lab-watch.mjs", "lab-watch") else { return };

    // The preset stops after the second fetch round: a's HW 0 (LEO 2) while b's is 2, and says so.
    let preset = &seen["presetState"];
    let script = preset["script"].as_str().unwrap();
    let commands: Vec<&str> = script.lines().filter(|l| l.starts_with("klog ")).collect();
    assert_eq!(
        commands,
        [
            "klog create \"$LAB/a\" --replica-id 1",
            "klog create \"$LAB/b\" --replica-id 2",
            "klog elect \"$LAB/b\" --epoch 1 --isr \"$LAB/a\"",
            "klog append \"$LAB/b\" m1 m2 --timestamp 1000",
            "klog fetch --leader \"$LAB/b\" \"$LAB/a\" --kafka 2.7.2",
            "klog fetch --leader \"$LAB/b\" \"$LAB/a\" --kafka 2.7.2",
        ],
        "{script}"
    );
    let marks: Vec<(i64, i64)> = preset["roles"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| (r["log_end_offset"].as_i64().unwrap(), r["high_watermark"].as_i64().unwrap()))
        .collect();
    assert_eq!(marks, [(2, 0), (2, 2)], "a: LEO 2 HW 0; b: LEO 2 HW 2");
    assert_eq!(preset["next_epoch"], 2);
    let hint = seen["preset"]["hint"].as_str().unwrap();
    assert!(hint.contains("a's HW is 0 while b's is 2: m1 and m2 are acknowledged"), "{hint}");
    assert_eq!(seen["preset"]["acked"], "m1@0,m2@1");
    assert_eq!(seen["preset"]["pictures"], 1);

    // The quiz asks with the frame before on the page, and shows the result only once answered.
    let quiz = seen["quiz"].as_array().unwrap();
    assert_eq!(quiz.len(), 2);
    for q in quiz {
        let (before, asked, after) = (&q["before"], &q["asked"], &q["after"]);
        assert_eq!(asked["quiz_shown"], true, "{q}");
        for key in ["title", "command", "output", "picture", "lost", "acked"] {
            assert_eq!(asked[key], before[key], "{key} changed before the answer: {q}");
        }
        assert_ne!(after["title"], before["title"], "{q}");
        assert_eq!(after["quiz_shown"], false);
        // The question's visible text holds no number but its offsets to choose from.
        let question = asked["question"].as_str().unwrap();
        assert!(!question.chars().any(|c| c.is_ascii_digit()), "{question}");
    }
    assert!(quiz[0]["asked"]["question"].as_str().unwrap().contains("Which HW will its checkpoint hold"));
    assert_eq!(quiz[0]["result"], serde_json::json!({ "answer": "0", "chosen": "0", "right": true }));
    assert!(quiz[1]["asked"]["question"].as_str().unwrap().contains("Where will its log end"));
    assert_eq!(quiz[1]["result"], serde_json::json!({ "answer": "0", "chosen": "2", "right": false }));
    assert!(quiz[1]["after"]["result"].as_str().unwrap().starts_with("Not quite (you said 2): a's log ends at 0"));

    // Every answer shows its why.
    for q in quiz {
        assert!(q["after"]["result"].as_str().unwrap().contains("Why: "), "{q}");
    }

    // The Watch's ending under hw: a elected without m1 m2.
    assert_eq!(seen["elect"]["lost"], "m1@0,m2@1", "{seen}");
    assert_eq!(seen["restart"]["lost"], "m1@0,m2@1");

    // Side by side: hw loses m1 and m2; kip101 and kip279 keep them; one row at 1280 px.
    let compare = seen["compare"].as_array().unwrap();
    let eras: Vec<(&str, &str)> =
        compare.iter().map(|c| (c["era"].as_str().unwrap(), c["lost"].as_str().unwrap())).collect();
    assert_eq!(eras, [("hw", "m1@0,m2@1"), ("kip101", ""), ("kip279", "")]);
    assert!(compare.iter().all(|c| c["pictures"] == 1 && c["top"] == compare[0]["top"]), "{compare:?}");
    // Each column with its era's recovery code, the lines that ran highlighted; moving to a
    // frame closes the side by side.
    for c in compare {
        let code: Vec<&str> = c["code"].as_array().unwrap().iter().map(|b| b.as_str().unwrap()).collect();
        assert!(code.iter().any(|l| l.starts_with("become_follower(leader)")), "{c}");
        // hw cuts at its own HW; kip101 and kip279 ask the leader where their epoch ends.
        assert_eq!(c["era"] == "hw", code.iter().any(|l| l.starts_with("truncate_to(hw)")), "{c}");
        assert_eq!(c["era"] != "hw", code.iter().any(|l| l.contains("= leader.")), "{c}");
    }
    assert_eq!(seen["compareClosed"], true, "the side by side stays open after moving to another frame");

    // "quiz me" at 400x900: a question after each click that asks one (crash, recover, the hw
    // election, append, recover), inside the screen, and each answer inside it with its why.
    let phone = seen["phone"].as_array().unwrap();
    let asked: Vec<&str> =
        phone.iter().filter(|p| p["quiz_shown"] == true).map(|p| p["name"].as_str().unwrap()).collect();
    assert_eq!(asked, ["crash-a", "recover-a-hw", "crash-b", "elect-a", "append-a", "recover-b-hw"], "{phone:?}");
    for p in phone.iter().filter(|p| p["quiz_shown"] == true) {
        assert_eq!(p["quizBox"]["inside"], true, "the question is off the screen: {p}");
        assert_eq!(p["resultBox"]["inside"], true, "the answer is off the screen: {p}");
        assert!(p["result"].as_str().unwrap().contains("Why: "), "{p}");
    }
    let elect = phone.iter().find(|p| p["name"] == "elect-a").unwrap();
    assert!(elect["question"].as_str().unwrap().contains("lack an acknowledged record"), "{elect}");
    assert!(elect["result"].as_str().unwrap().contains("m1 (offset 0), m2 (offset 1)"), "{elect}");
    for (era, c) in seen["eraScripts"].as_object().unwrap() {
        let script = c["script"].as_str().unwrap();
        assert_eq!(script.matches(&format!("--mode {era}\n")).count(), 2, "{script}");
        assert!(script.ends_with(if era == "hw" {
            "# verdict: acknowledged m1 (offset 0), m2 (offset 1) lost: a leads at epoch 2 without it\n"
        } else {
            "# verdict: no acknowledged record lost\n"
        }));
        let branch_dir = dir.join((c["branch"].as_u64().unwrap() + 1).to_string());
        let replayed = replay_matches(script, &branch_dir);
        let a_values: Vec<String> = records(&branch_dir.join("a")).into_iter().map(|(_, _, v)| v).collect();
        assert_eq!(a_values, if era == "hw" { vec!["m3"] } else { vec!["m1", "m2", "m3"] }, "{era}");
        assert!(!replayed.is_empty());
    }

    // The explorer from the preset's frame, replayed by one click into a new branch.
    assert_eq!(seen["explorer"]["found"], "true", "{seen}");
    let steps = seen["explorer"]["steps"].as_array().unwrap();
    assert!(steps.last().unwrap().as_str().unwrap().starts_with("klog elect $LAB/a"), "{steps:?}");
    assert_eq!(seen["replayed"]["lost"], "m1@0,m2@1", "{seen}");
    let replay_script = seen["replay"]["script"].as_str().unwrap();
    for step in steps {
        let step = step.as_str().unwrap();
        assert!(replay_script.replace('"', "").contains(&format!("{step}\n")), "{step} not in {replay_script}");
    }
    assert!(replay_script.ends_with("lost: a leads at epoch 2 without it\n"), "{replay_script}");
    replay_matches(replay_script, Path::new(seen["replay"]["branch_dir"].as_str().unwrap()));

    // 400 px: the picture above the buttons, no text under 12 px, nothing wider than the page.
    for n in seen["narrow"].as_array().unwrap() {
        assert_eq!(n["small"], serde_json::json!([]), "{n}");
        assert_eq!(n["overflow"], 0, "{n}");
        assert!(n["picture_top"].as_i64() < n["actions_top"].as_i64(), "{n}");
        assert!(n["picture_top"].as_i64() < n["preset_top"].as_i64(), "{n}");
    }
    assert_eq!(listing(tmp.path()), Vec::<String>::new(), "nothing in the temp dir");
}

/// The LSO and HW the page's LSO line shows on a frame `seen` by lab-lso.mjs.
fn lso_hw(frame: &serde_json::Value) -> (i64, i64) {
    let n = |k: &str| frame[k].as_str().and_then(|v| v.parse().ok()).unwrap_or_else(|| panic!("{k}: {frame}"));
    (n("lso"), n("hw"))
}

#[test]
fn the_stuck_lso_preset_steps_through_its_frames_and_the_admin_abort_or_the_producers_commit_moves_the_lso_to_the_hw() {
    let Some(Played { outside: _outside, tmp, dir: _, seen }) = play("lab-lso.mjs", "lab-lso") else { return };

    // The preset runs `klog demo stuck-lso`'s own lines up to its first klog txn.
    let demo = ok(&["demo", "stuck-lso", "--dir", s(&tmp.path().join("demo"))]);
    let mut demo_lines: Vec<&str> = demo.lines().filter_map(|l| l.strip_prefix("$ ")).collect();
    demo_lines.truncate(demo_lines.iter().position(|l| l.starts_with("klog txn ")).unwrap() + 1);
    std::fs::remove_dir_all(tmp.path().join("demo")).unwrap();
    let script = seen["presetScript"].as_str().unwrap().replace('"', "");
    let lab_lines: Vec<&str> = script.lines().filter(|l| l.starts_with("klog ")).collect();
    assert_eq!(lab_lines, demo_lines, "{script}");
    assert_eq!(seen["presetState"]["replicas"], 2);
    assert_eq!(seen["presetState"]["transactions"], true);

    // Each frame: the LSO follows the HW until t1 t2 are written, then stays at 2 while the HW
    // moves to 7; t1 t2 hatched OPEN on a, then on b; the LSO marked on the picture.
    let frames = seen["frames"].as_array().unwrap();
    let marks: Vec<(i64, i64)> = frames.iter().map(lso_hw).collect();
    assert_eq!(marks, [(0, 0), (0, 0), (0, 0), (2, 2), (2, 2), (2, 2), (2, 7), (2, 7)]);
    let open: Vec<u64> = frames.iter().map(|f| f["open_cells"].as_u64().unwrap()).collect();
    assert_eq!(open, [0, 0, 0, 0, 2, 2, 4, 4]);
    assert!(frames
        .iter()
        .all(|f| f["lso_visible"] == true && f["picture_lso"].as_array().is_some_and(|a| !a.is_empty())));
    assert!(frames[4]["note"].as_str().unwrap().contains("begins a transaction and writes t1 and t2"));
    assert!(frames[5]["note"].as_str().unwrap().contains("killed before it commits"));

    // The stuck frame: what holds the LSO, the fixes offered, the explorer off and why.
    let stuck = &seen["stuck"];
    assert_eq!(stuck["open"], "1000");
    let text = stuck["lso_text"].as_str().unwrap();
    assert!(text.contains("LSO 2, HW 7"), "{text}");
    assert!(text.contains("What holds the LSO: producer 1000's transaction is open from offset 2"), "{text}");
    assert!(seen["preset"]["hint"].as_str().unwrap().contains("a's LSO is 2 while its HW is 7"));
    let buttons: Vec<(&str, bool)> = stuck["txn_buttons"]
        .as_array()
        .unwrap()
        .iter()
        .map(|b| (b["kind"].as_str().unwrap(), b["disabled"].as_bool().unwrap()))
        .collect();
    assert_eq!(
        buttons,
        [("txn", false), ("timeout", false), ("admin-abort", false), ("commit", false), ("abort", false)]
    );
    let labels: Vec<&str> =
        stuck["txn_buttons"].as_array().unwrap().iter().map(|b| b["label"].as_str().unwrap()).collect();
    assert!(labels[2].contains("a transaction the coordinator no longer knows"), "{labels:?}");
    // The klog txn frame's code panel: Kafka's lines that computed the first unstable offset
    // and the LSO, with their values.
    let code: Vec<&str> = stuck["code"].as_array().unwrap().iter().map(|b| b.as_str().unwrap()).collect();
    assert!(
        code.iter().any(|l| l.contains("ongoingTxns.firstEntry()") && l.contains("◀ 2 (producer 1000")),
        "{code:?}"
    );
    assert!(code.iter().any(|l| l.contains("messageOffset < highWatermark") && l.contains("2 < 7: LSO 2")), "{code:?}");
    assert!(stuck["code_source"][0].as_str().unwrap().contains("UnifiedLog.scala:425-430@3.8.0"), "{stuck}");
    assert_eq!(stuck["explore_disabled"], true);
    assert!(stuck["explore_off"].as_str().unwrap().contains("no producers and no transactions"), "{stuck}");

    // The admin abort: the marker kafka-transactions.sh abort resolves to; the LSO waits for the
    // HW to cover it (two fetch rounds), then is the HW.
    let abort = &seen["abort"];
    assert!(abort["note"].as_str().unwrap().contains("a transaction the coordinator no longer knows"), "{abort}");
    assert_eq!(
        abort["command"],
        "klog append $LAB/a --timestamp 66000 --producer-id 1000 --producer-epoch 0 --end-txn abort --coordinator-epoch 0"
    );
    assert!(abort["note"].as_str().unwrap().contains("abort --topic demo --partition 0 --start-offset 2"), "{abort}");
    assert_eq!((lso_hw(abort), lso_hw(&seen["fetch1"]), lso_hw(&seen["fetch2"])), ((2, 7), (2, 7), (8, 8)));
    assert_eq!(abort["open"], "");
    assert!(abort["txn_buttons"].as_array().unwrap().iter().skip(1).all(|b| b["disabled"] == true));
    assert!(seen["fetch2"]["lso_text"].as_str().unwrap().contains("the LSO is the HW, 8"));
    let abort_script = seen["abortScript"].as_str().unwrap();
    assert!(abort_script.contains("--end-txn abort --coordinator-epoch 0\n"), "{abort_script}");
    let abort_dir = PathBuf::from(seen["abortState"]["branch_dir"].as_str().unwrap());
    replay_matches(abort_script, &abort_dir);
    assert_eq!(value_at(&abort_dir, "a", 6).as_deref(), Some("o5"));

    // From the stuck frame again: the producer commits, in a new branch forked there.
    assert!(seen["commit"]["command"].as_str().unwrap().ends_with("--end-txn commit --coordinator-epoch 3"));
    assert_eq!(lso_hw(&seen["committed"]), (8, 8));
    let (b, f) = (&seen["presetState"]["view"]["branch"], &seen["presetState"]["view"]["frame"]);
    assert_eq!(seen["commitState"]["parent"], serde_json::json!({ "branch": b, "frame": f }));

    // The coordinator's timeout: producer 1000 fenced (epoch 1), the marker with its coordinator
    // epoch 3, as the demo's own timeout step; the LSO at the HW once it covers the marker.
    assert_eq!(
        seen["timeout"]["command"],
        "klog append $LAB/a --timestamp 63000 --producer-id 1000 --producer-epoch 1 --end-txn abort --coordinator-epoch 3"
    );
    assert!(seen["timeout"]["note"].as_str().unwrap().contains("No admin action is needed"), "{}", seen["timeout"]);
    assert_eq!(lso_hw(&seen["timedOut"]), (8, 8));

    // 400 px: the LSO line above the picture, the picture above the buttons, nothing too wide.
    let n = &seen["narrow"];
    assert_eq!(n["overflow"], 0, "{n}");
    assert!(n["lso_top"].as_i64() < n["picture_top"].as_i64() && n["picture_top"].as_i64() < n["actions_top"].as_i64());
    assert_eq!(listing(tmp.path()), Vec::<String>::new(), "nothing in the temp dir");
}

/// `klog lab`'s Tiers preset, clicked: it replays `klog demo tiers`'s own command lines as
/// frames (the creates with the remote dir beside the replicas); from the first copy on each
/// picture has the remote tier's row; A's restart frame shows the remote aux-state code and m1
/// m2 served from remote; from the unclean election on the segment 4..4 is UNSERVED; the last
/// frame is klog remote's reading, its hint naming m5 and m6; the explorer is off and says why;
/// nothing is wider than a 400 px page. The copied script, run by the CLI, rebuilds the same
/// dirs byte for byte except `__remote_log_metadata-0`, whose records carry the wall-clock time
/// of each copy: there the same remote segments, read back by `klog remote`.
#[test]
fn the_tiers_preset_replays_the_demos_lines_as_frames_with_both_tiers_and_its_script_rebuilds_them() {
    let Some(Played { outside: _outside, tmp, dir: _, seen }) = play("lab-tiers.mjs", "lab-tiers") else { return };

    // The script is the demo's own lines.
    let demo = ok(&["demo", "tiers", "--dir", s(&tmp.path().join("demo"))]);
    let demo_lines: Vec<&str> = demo.lines().filter_map(|l| l.strip_prefix("$ ")).collect();
    std::fs::remove_dir_all(tmp.path().join("demo")).unwrap();
    let script = seen["script"].as_str().unwrap();
    let unquoted = script.replace('"', "");
    let lab_lines: Vec<&str> = unquoted.lines().filter(|l| l.starts_with("klog ")).collect();
    assert_eq!(lab_lines, demo_lines, "{script}");
    assert!(script.contains("# verdict: acknowledged m5 (offset 4), m6 (offset 5) lost"), "{script}");

    let frames = seen["frames"].as_array().unwrap();
    assert_eq!(frames.len(), demo_lines.len() - 1, "the creates are frame 0");
    let commands: Vec<&str> = frames.iter().map(|f| f["command"].as_str().unwrap()).collect();
    let first_copy =
        commands.iter().position(|c| c.starts_with("klog tier copy")).unwrap_or_else(|| panic!("{commands:?}"));
    let election =
        commands.iter().position(|c| *c == "klog elect $LAB/a --epoch 2").unwrap_or_else(|| panic!("{commands:?}"));
    for (i, f) in frames.iter().enumerate() {
        let at = format!("frame {i} ({})", f["command"]);
        assert_eq!(f["remote_cells"].as_u64().unwrap() > 0, i >= first_copy, "{at}: the remote row: {f}");
        let unserved: Vec<&str> = f["unserved"].as_array().unwrap().iter().map(|o| o.as_str().unwrap()).collect();
        assert_eq!(unserved, if i >= election { vec!["4"] } else { vec![] }, "{at}");
        assert_eq!(f["explore_disabled"], true, "{at}");
    }
    assert!(commands[0].contains("--remote-dir $LAB/remote"), "{}", frames[0]);
    let restart = frames.iter().find(|f| f["command"].as_str().unwrap().starts_with("klog recover $LAB/a")).unwrap();
    let code = restart["code_text"].as_str().unwrap();
    assert!(code.contains("OFFSET_MOVED_TO_TIERED_STORAGE") && code.contains("seg.leader_epoch_checkpoint"), "{code}");
    assert_eq!(restart["in_remote"].as_u64(), Some(2), "m1 m2 served from remote: {restart}");
    assert!(restart["output"].as_str().unwrap().contains("it deletes its whole log and starts at 3, log start 0"));
    assert!(restart["note"].as_str().unwrap().contains("A restarts as B's follower"), "{restart}");
    let end = &seen["end"];
    assert!(end["output"].as_str().unwrap().contains("no broker here would serve"), "{end}");
    assert!(end["hint"].as_str().unwrap().contains("m5 (offset 4), m6 (offset 5)"), "{end}");
    assert!(end["explore_off"].as_str().unwrap().contains("no remote tier"), "{end}");
    assert_eq!(seen["overflow"].as_i64(), Some(0), "wider than a 400 px page");

    // The copied script rebuilds the branch: every file but the metadata partition's (whose
    // records carry each copy's wall-clock time) byte for byte, and the same remote segments.
    let branch = PathBuf::from(seen["presetState"]["branch_dir"].as_str().unwrap());
    let lab_copy = branch.with_extension("lab");
    std::fs::rename(&branch, &lab_copy).unwrap();
    let file = branch.with_extension("sh");
    std::fs::write(&file, script).unwrap();
    let bin = assert_cmd::cargo::cargo_bin("klog");
    let path = format!("{}:{}", bin.parent().unwrap().display(), std::env::var("PATH").unwrap_or_default());
    let out = Command::new("bash")
        .arg(&file)
        .arg(&branch)
        .env("PATH", path)
        .env("NO_COLOR", "1")
        .env("SOURCE_DATE_EPOCH", SOURCE_DATE_EPOCH)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let data = |d: &Path| -> BTreeMap<PathBuf, Vec<u8>> {
        files(d).into_iter().filter(|(p, _)| !p.to_string_lossy().contains("__remote_log_metadata-0")).collect()
    };
    let (lab_files, cli_files) = (data(&lab_copy), data(&branch));
    assert_eq!(lab_files.keys().collect::<Vec<_>>(), cli_files.keys().collect::<Vec<_>>());
    for (p, bytes) in &lab_files {
        assert!(cli_files[p] == *bytes, "{} differs between the lab and its script", p.display());
    }
    assert!(lab_files.keys().any(|p| p.starts_with("remote/kafka-tiered-storage")), "{:?}", lab_files.keys());
    let segments = |d: &Path| -> Vec<(i64, i64, String)> {
        let (a, b, remote) = (d.join("a"), d.join("b"), d.join("remote"));
        json_lines(&ok(&["remote", s(&a), s(&b), "--remote-dir", s(&remote), "--json"]))
            .iter()
            .filter(|v| v["type"] == "remote_segment")
            .map(|v| {
                let id = v["segment_id"].as_str().unwrap().to_string();
                (v["start_offset"].as_i64().unwrap(), v["end_offset"].as_i64().unwrap(), id)
            })
            .collect()
    };
    let ours = segments(&lab_copy);
    assert_eq!(ours.len(), 5, "{ours:?}");
    assert_eq!(ours, segments(&branch));
}
