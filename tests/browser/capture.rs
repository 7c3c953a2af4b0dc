//! `klog demo --capture FILE.html` as a real browser shows it: headless Chromium (Debian's
//! `chromium`, installed by `.ci/run`) renders two frames to PNG, which are decoded here and
//! checked for content, the epoch colours and a difference between them; `--dump-dom` counts
//! the frames after the page's script ran; the playwright scripts (capture.mjs) walk every
//! frame of every scenario. The file itself is judged in the fast tier (tests/cli/capture.rs).

use crate::common::*;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::Command;

/// Headless Chromium with the flags that keep it quiet, local and fast.
fn chromium(profile: &Path) -> Option<Command> {
    let found = std::env::var_os("PATH")
        .map(|p| std::env::split_paths(&p).any(|d| d.join("chromium").is_file()))
        .unwrap_or(false);
    if !found {
        missing_input("chromium", "Debian's chromium package: apt-get install chromium; .ci/run installs it");
        return None;
    }
    let mut c = Command::new("chromium");
    c.args([
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--hide-scrollbars",
        "--window-size=1200,800",
    ]);
    c.arg(format!("--user-data-dir={}", profile.display()));
    Some(c)
}

/// A decoded PNG: RGB pixels.
struct Image {
    width: usize,
    height: usize,
    rgb: Vec<[u8; 3]>,
}

/// Decode an 8-bit RGB or RGBA non-interlaced PNG (what Chromium writes).
fn decode_png(bytes: &[u8]) -> Image {
    assert_eq!(&bytes[..8], b"\x89PNG\r\n\x1a\n", "not a PNG");
    let (mut at, mut idat) = (8, Vec::new());
    let (mut width, mut height, mut channels) = (0, 0, 0);
    while at + 8 <= bytes.len() {
        let len = u32::from_be_bytes(bytes[at..at + 4].try_into().unwrap()) as usize;
        let kind = &bytes[at + 4..at + 8];
        let data = &bytes[at + 8..at + 8 + len];
        match kind {
            b"IHDR" => {
                width = u32::from_be_bytes(data[0..4].try_into().unwrap()) as usize;
                height = u32::from_be_bytes(data[4..8].try_into().unwrap()) as usize;
                assert_eq!(data[8], 8, "bit depth");
                channels = match data[9] {
                    2 => 3,
                    6 => 4,
                    t => panic!("colour type {t}"),
                };
                assert_eq!(data[12], 0, "interlaced");
            }
            b"IDAT" => idat.extend_from_slice(data),
            b"IEND" => break,
            _ => {}
        }
        at += 12 + len;
    }
    let mut raw = Vec::new();
    flate2::read::ZlibDecoder::new(&idat[..]).read_to_end(&mut raw).unwrap();
    let stride = width * channels;
    let mut out = vec![0u8; stride * height];
    for y in 0..height {
        let filter = raw[y * (stride + 1)];
        let line = &raw[y * (stride + 1) + 1..(y + 1) * (stride + 1)];
        for x in 0..stride {
            let a = if x >= channels { out[y * stride + x - channels] } else { 0 };
            let b = if y > 0 { out[(y - 1) * stride + x] } else { 0 };
            let c = if x >= channels && y > 0 { out[(y - 1) * stride + x - channels] } else { 0 };
            let predicted = match filter {
                0 => 0,
                1 => a,
                2 => b,
                3 => ((u16::from(a) + u16::from(b)) / 2) as u8,
                4 => {
                    let p = i16::from(a) + i16::from(b) - i16::from(c);
                    let (pa, pb, pc) = ((p - i16::from(a)).abs(), (p - i16::from(b)).abs(), (p - i16::from(c)).abs());
                    if pa <= pb && pa <= pc {
                        a
                    } else if pb <= pc {
                        b
                    } else {
                        c
                    }
                }
                f => panic!("filter {f}"),
            };
            out[y * stride + x] = line[x].wrapping_add(predicted);
        }
    }
    let rgb = out.chunks(channels).map(|p| [p[0], p[1], p[2]]).collect();
    Image { width, height, rgb }
}

/// Pixels within 6 of `colour` in every channel.
fn count_near(img: &Image, colour: [u8; 3]) -> usize {
    img.rgb.iter().filter(|p| p.iter().zip(colour).all(|(a, b)| a.abs_diff(b) <= 6)).count()
}

fn screenshot(profile: &Path, file: &Path, step: usize, png: &Path) -> Option<Image> {
    let mut c = chromium(profile)?;
    let status = c
        .arg(format!("--screenshot={}", png.display()))
        .arg(format!("file://{}#step={step}", file.display()))
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .status()
        .expect("run chromium");
    assert!(status.success(), "chromium --screenshot failed");
    Some(decode_png(&std::fs::read(png).expect("a screenshot")))
}

#[test]
fn capture_renders_in_headless_chromium_with_the_epoch_colours_and_distinct_frames() {
    let tmp = tempfile::tempdir().unwrap();
    let file = tmp.path().join("x.html");
    ok(&["demo", "kip101-1", "--mode", "all", "--capture", s(&file)]);
    let frames = std::fs::read_to_string(&file).unwrap().matches("<section class=\"frame\"").count();
    let profile = tmp.path().join("profile");
    // Frame 10: B crashes under hw (epoch 0 only); frame 12: A appends m3 at epoch 1. (A
    // recovery's frame keeps its outcome veiled until its questions are answered.)
    let Some(nine) = screenshot(&profile, &file, 10, &tmp.path().join("10.png")) else { return };
    let thirteen = screenshot(&profile, &file, 12, &tmp.path().join("12.png")).unwrap();
    assert_eq!((nine.width, nine.height), (1200, 800));
    for img in [&nine, &thirteen] {
        let white = count_near(img, [255, 255, 255]);
        assert!(white < img.rgb.len() * 97 / 100, "a blank page");
        // Epoch 0's orange band (output::palette) is in every frame with records.
        assert!(count_near(img, [0xC2, 0x6E, 0x00]) > 200, "no epoch-0 colour");
    }
    assert!(count_near(&thirteen, [0x1F, 0x8F, 0xBF]) > 200, "no epoch-1 colour in frame 12");
    assert!(count_near(&nine, [0x1F, 0x8F, 0xBF]) < 20, "frame 10 has no epoch 1 yet");
    let differing = nine.rgb.iter().zip(&thirteen.rgb).filter(|(a, b)| a != b).count();
    assert!(differing > 5000, "frames 10 and 12 look the same ({differing} pixels differ)");
    // The DOM after the script ran: every frame there, exactly one shown (the hash's).
    let mut c = chromium(&profile).unwrap();
    let out = c.arg("--dump-dom").arg(format!("file://{}#step=13", file.display())).output().expect("run chromium");
    assert!(out.status.success());
    let dom = String::from_utf8_lossy(&out.stdout);
    assert_eq!(dom.matches("class=\"frame").count(), frames, "frames in the DOM as in the file");
    assert_eq!(dom.matches("class=\"frame on\"").count(), 1);
    assert!(dom.contains("<section class=\"frame on\" id=\"step-13\""), "the hash picks the frame");
    assert!(dom.contains(&format!("13 / {frames}")));
}

/// Every scenario under every mode, each frame as Chromium shows it at 400 px (a phone) and
/// 1280 px: the cells carry their offset, epoch, commitment and fate; no frame is wider than
/// the page; every frame is narrated; Watch's fetch frames show the code that ran; KIP-101
/// scenario 1's election under hw flags the acknowledged m2 that the new leader lacks (and not
/// under kip101); the slider's keys step one frame; a question is asked and scored in the page.
/// Screenshots of the chapter frames and the flagged ones: target/browser-shots/capture/.
#[test]
fn every_frame_of_every_scenario_in_chromium_carries_its_cells_fits_400_px_and_flags_acked_loss() {
    let tmp = tempfile::tempdir().unwrap();
    let files: Vec<PathBuf> = ["watch", "kip101-1", "kip101-2", "kip279"]
        .iter()
        .map(|sc| {
            let file = tmp.path().join(format!("{sc}.html"));
            ok(&["demo", sc, "--mode", "all", "--capture", s(&file)]);
            file
        })
        .collect();
    let shots = Path::new(env!("CARGO_MANIFEST_DIR")).join("target/browser-shots/capture");
    for width in [400, 1280] {
        let w = width.to_string();
        let mut args: Vec<&str> = vec![s(&shots), &w];
        args.extend(files.iter().map(|f| s(f)));
        let Some(seen) = crate::harness::run("capture.mjs", &args) else { return };
        judge_every_frame(&seen, width);
        judge_contrast(&seen);
        judge_why_marks(&seen);
    }
    let kept = |w: &str| {
        shots.read_dir().unwrap().filter(|e| e.as_ref().unwrap().file_name().to_string_lossy().contains(w)).count()
    };
    assert!(kept("-400-") > 20 && kept("-1280-") > 20, "screenshots in {}", shots.display());
    eprintln!("screenshots at 400 and 1280 px: {}", shots.display());
}

/// The why figures, as Chromium shows each frame once revealed: every fetch frame draws the
/// round trip (the leader's record of the follower's fetch offset, the HW each response
/// carried); the Watch's two fetches draw `a@0` then `a@2` with HW 0 carried, and after the
/// second the next fetch carrying HW 2; every recovery frame marks what the cut came from (the
/// follower's HW under hw, the leader's epoch-cache entry under kip101 and kip279: "epoch 1
/// ends at 2" in the Watch); the last run's recovery frames and the last frame draw the three
/// eras side by side, each recovery with its picture, lookup and highlighted code.
fn judge_why_marks(seen: &serde_json::Value) {
    for run in seen["runs"].as_array().unwrap() {
        let name = run["file"].as_str().unwrap();
        let frames = run["frames"].as_array().unwrap();
        let marks = |f: &serde_json::Value, key: &str, mark: &str| -> Vec<String> {
            f[key]
                .as_array()
                .unwrap()
                .iter()
                .filter(|m| m[0] == mark)
                .map(|m| m[1].as_str().unwrap().to_string())
                .collect()
        };
        let mut recoveries_last_run = 0;
        let last_mode = frames.iter().rev().find(|g| g["mode"] != "").unwrap()["mode"].clone();
        for f in frames {
            let at = format!("{name} frame {} ({})", f["step"], f["command"]);
            let command = f["command"].as_str().unwrap();
            if command.starts_with("$ klog fetch") {
                assert!(!marks(f, "round_trip", "fetch-offset").is_empty(), "{at}: no fetch offset recorded: {f}");
                assert!(!marks(f, "round_trip", "hw-carried").is_empty(), "{at}: no HW carried: {f}");
            } else {
                assert!(f["round_trip"].as_array().unwrap().is_empty(), "{at}");
            }
            if command.starts_with("$ klog recover") {
                let mode = f["mode"].as_str().unwrap();
                if mode == "hw" {
                    assert_eq!(f["lookup_by"], "hw", "{at}");
                    assert_eq!(marks(f, "lookup", "hw-source").len(), 1, "{at}: {f}");
                } else {
                    assert_eq!(f["lookup_by"], "epoch", "{at}");
                    let answer = marks(f, "lookup", "answer");
                    assert!(answer.len() == 1 && answer[0].contains(" ends at "), "{at}: {f}");
                    assert_eq!(marks(f, "lookup", "entry").len(), 1, "{at}: the entry that answered: {f}");
                }
                if f["mode"] == last_mode {
                    recoveries_last_run += 1;
                    let eras = f["eras"].as_array().unwrap();
                    let names: Vec<&str> = eras.iter().map(|e| e["era"].as_str().unwrap()).collect();
                    assert_eq!(names, ["hw", "kip101", "kip279"], "{at}");
                    for e in eras {
                        assert!(
                            e["pictures"].as_u64() >= Some(1) && e["code"].as_u64() > Some(0) && e["lookup"] == 1,
                            "{at}: {e}"
                        );
                    }
                }
            }
        }
        assert!(recoveries_last_run > 0, "{name}");
        let last = frames.last().unwrap();
        let finals = last["eras"].as_array().unwrap();
        assert_eq!(finals.len(), 3, "{name}: the final logs of the three eras: {last}");
        assert!(finals.iter().all(|e| e["pictures"] == 1), "{name}: {finals:?}");
        if name == "watch" {
            let fetches: Vec<&serde_json::Value> =
                frames.iter().filter(|f| f["command"].as_str().unwrap().contains("--rounds 1")).take(2).collect();
            assert_eq!(marks(fetches[0], "round_trip", "fetch-offset"), ["a@0"]);
            assert_eq!(marks(fetches[0], "round_trip", "hw-carried"), ["HW 0"]);
            assert!(marks(fetches[0], "round_trip", "hw-next").is_empty());
            assert_eq!(marks(fetches[1], "round_trip", "fetch-offset"), ["a@2"]);
            assert_eq!(marks(fetches[1], "round_trip", "leader-hw"), ["HW 2"]);
            assert_eq!(marks(fetches[1], "round_trip", "hw-carried"), ["HW 0"]);
            assert_eq!(marks(fetches[1], "round_trip", "hw-next"), ["HW 2"]);
            let kip101 = frames.iter().find(|f| f["mode"] == "kip101" && f["lookup_by"] == "epoch").unwrap();
            assert_eq!(marks(kip101, "lookup", "answer"), ["epoch 1 ends at 2"]);
            assert_eq!(marks(kip101, "lookup", "entry"), ["(1 0)"]);
            let hw = frames.iter().find(|f| f["mode"] == "hw" && f["lookup_by"] == "hw").unwrap();
            assert_eq!(marks(hw, "lookup", "hw-source"), ["HW 0"]);
        }
    }
}

/// Scenarios whose contrast differs by era: (acked and lost, diverged) under hw, kip101, kip279.
const ERA_CONTRASTS: &[(&str, [(&str, &str); 3])] = &[
    ("kip101-1", [("m2 (offset 1)", "at offset 1"), ("none", "no, logs agree"), ("none", "no, logs agree")]),
    (
        "watch",
        [("m1 (offset 0), m2 (offset 1)", "no, logs agree"), ("none", "no, logs agree"), ("none", "no, logs agree")],
    ),
];

/// The contrast frame of each scenario, as Chromium shows it, says per era what the terminal's
/// contrast says (acknowledged records lost, divergence), and [`ERA_CONTRASTS`] differ by era
/// as they should.
fn judge_contrast(seen: &serde_json::Value) {
    for run in seen["runs"].as_array().unwrap() {
        let name = run["file"].as_str().unwrap();
        let last = run["frames"].as_array().unwrap().last().unwrap();
        let rows: Vec<Vec<String>> = last["contrast"]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| r.as_array().unwrap().iter().map(|c| c.as_str().unwrap().to_string()).collect())
            .collect();
        assert_eq!(rows.len(), 3, "{name}: a contrast row per era: {rows:?}");
        let terminal = ok(&["--width", "0", "demo", name, "--mode", "all", "--color", "never"]);
        let table = terminal.split_once("what each truncation mode did").unwrap().1;
        for (row, era) in rows.iter().zip(["hw", "kip101", "kip279"]) {
            assert!(row[0].starts_with(&format!("{era} (")), "{name}: {row:?}");
            let line = table.lines().find(|l| l.trim_start().starts_with(&format!("{era} ("))).unwrap();
            for cell in [&row[3], &row[4]] {
                assert!(line.contains(cell.as_str()), "{name} {era}: the page says {cell:?}, the terminal {line:?}");
            }
        }
        if let Some((_, expected)) = ERA_CONTRASTS.iter().find(|(sc, _)| *sc == name) {
            let verdicts: Vec<(&str, &str)> = rows.iter().map(|r| (r[3].as_str(), r[4].as_str())).collect();
            assert_eq!(verdicts, expected, "{name}: what each era lost and whether the logs agree");
        }
    }
}

/// The judgement of one width's pass over every frame.
fn judge_every_frame(seen: &serde_json::Value, width: u64) {
    let runs = seen["runs"].as_array().unwrap();
    assert_eq!(runs.len(), 4);
    let fates =
        ["none", "kept", "truncated-refetchable", "truncated-lost", "acked-lost", "diverged", "acked-truncated"];
    for run in runs {
        let name = run["file"].as_str().unwrap();
        let frames = run["frames"].as_array().unwrap();
        assert_eq!(frames.len() as u64, run["count"].as_u64().unwrap(), "{name}");
        // Chapter marks: each mode's run, and the contrast.
        let ticks = run["chapters"]["ticks"].as_array().unwrap();
        assert!(ticks.len() >= 7, "{name}: {ticks:?}");
        for m in ["hw run", "kip101 run", "kip279 run", "contrast"] {
            assert!(ticks.iter().any(|t| t[1] == m), "{name}: no chapter {m}: {ticks:?}");
        }
        let mut cells = 0;
        let (mut pictures, mut narrow, mut same_rounds) = (0, 0, 0);
        for f in frames {
            let at = format!("{name} at {width} px, frame {}", f["step"]);
            // The pictures are never shrunk: their text is drawn at 12 px or more (a picture
            // wider than the page scrolls in its own box).
            if let Some(px) = f["min_svg_text_px"].as_f64() {
                assert!(px >= 11.9, "{at}: SVG text drawn at {px} px");
            }
            // A picture as wide as the page's column or less does not scroll (at 400 px the
            // column is 392 px; the narrowest picture, two offsets, is 388 px).
            for p in f["pictures"].as_array().unwrap() {
                let (w, scrolls) = (p[0].as_f64().unwrap(), p[1].as_bool().unwrap());
                pictures += 1;
                narrow += usize::from(w <= 390.0);
                assert!(!(scrolls && w <= 390.0), "{at}: a {w} px picture scrolls");
            }
            assert!(
                f["scroll_width"].as_u64() <= f["client_width"].as_u64()
                    && f["frame_scroll_width"].as_u64() <= f["frame_client_width"].as_u64(),
                "{at} is wider than a 400 px page: {f}"
            );
            let narration = f["narration"].as_array().unwrap();
            assert!(narration.iter().any(|n| n.as_str().is_some_and(|t| t.len() > 10)), "{at} has no narration");
            for c in f["cells"].as_array().unwrap() {
                cells += 1;
                assert!(c["offset"].as_str().unwrap().parse::<i64>().is_ok(), "{at}: {c}");
                assert!(c["epoch"].as_str().unwrap().parse::<i32>().is_ok(), "{at}: {c}");
                let committed = c["committed"].as_str().unwrap();
                assert!(committed == "true" || committed == "false", "{at}: {c}");
                // RaftScope's convention: not yet committed is dashed, committed is solid.
                let dashed = c["dashed"].as_str().unwrap_or("none") != "none";
                assert_eq!(dashed, committed == "false", "{at}: {c}");
                let fate = c["fate"].as_str().unwrap();
                assert!(fates.contains(&fate), "{at}: {c}");
                // An acknowledged record is never called refetchable.
                assert!(!(fate == "truncated-refetchable" && committed == "true"), "{at}: {c}");
            }
            let command = f["command"].as_str().unwrap();
            if command.starts_with("$ klog create") {
                assert!(f["empty_rows"].as_u64() >= Some(1) && !f["output"].as_str().unwrap().is_empty(), "{at}: {f}");
            }
            if command.starts_with("$ klog fetch") {
                let panels = f["panels"].as_array().unwrap();
                // One panel per round that ran (a stuck fetch stops early), or a line saying
                // it ran the same lines with the same values as the round before.
                let rounds = f["output"].as_str().unwrap().lines().filter(|l| is_round(l)).count();
                assert!(rounds >= 1, "{at}: {f}");
                let same = f["same_rounds"].as_u64().unwrap() as usize;
                assert!(!panels.is_empty(), "{at}: {f}");
                assert_eq!(panels.len() + same, rounds, "{at}: a code panel per round: {f}");
                same_rounds += same;
                for p in panels {
                    let ran: Vec<&str> = p.as_array().unwrap().iter().map(|l| l.as_str().unwrap()).collect();
                    for line in
                        ["r = leader.fetch(offset=leo)", "leader: returned_hw = hw", "leader: hw = min(ISR's LEO)"]
                    {
                        assert!(ran.iter().any(|l| l.trim_start().starts_with(line)), "{at}: {line} not run: {ran:?}");
                    }
                }
            }
        }
        assert!(cells > 50, "{name}: {cells} cells");
        assert!(pictures > frames.len() && narrow > 0, "{name}: {narrow} of {pictures} pictures fit 390 px");
        // Watch and KIP-101 scenario 1 end with B fetching three rounds, caught up after one.
        if name == "watch" || name == "kip101-1" {
            assert!(same_rounds > 0, "{name}: no repeated round said in one line");
        }
    }
    // KIP-101 scenario 1: the election of A at epoch 1 leaves B's acknowledged m2 out of the new
    // leader under hw: flagged in that frame; under kip101 A kept m2 and nothing is flagged.
    let k1 = runs.iter().find(|r| r["file"] == "kip101-1").unwrap();
    let election = |mode: &str| {
        k1["frames"]
            .as_array()
            .unwrap()
            .iter()
            .find(|f| f["mode"] == mode && f["command"].as_str().unwrap().starts_with("$ klog elect $LAB/a --epoch 1"))
            .unwrap_or_else(|| panic!("no election of A under {mode}"))
            .clone()
    };
    let hw = election("hw");
    let flagged: Vec<&serde_json::Value> =
        hw["cells"].as_array().unwrap().iter().filter(|c| c["fate"] == "acked-lost").collect();
    assert_eq!(flagged.len(), 1, "{hw}");
    assert_eq!((flagged[0]["offset"].as_str(), flagged[0]["epoch"].as_str()), (Some("1"), Some("0")), "{hw}");
    assert_eq!(flagged[0]["flag"], "acked", "{hw}");
    assert!(flagged[0]["row"].as_str().unwrap().starts_with("b "), "{hw}");
    let said = |f: &serde_json::Value| f["narration"].to_string();
    assert!(
        said(&hw).contains("m2 (offset 1, epoch 0) on b was acknowledged, and the leader does not hold it"),
        "{hw}"
    );
    let kip101 = election("kip101");
    assert!(kip101["cells"].as_array().unwrap().iter().all(|c| c["fate"] == "none"), "{kip101}");
    assert!(!said(&kip101).contains("acknowledged"), "{kip101}");
    // A's truncation of m2 under hw is flagged in its frame too (acknowledged, truncated).
    let cut = k1["frames"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["mode"] == "hw" && f["command"].as_str().unwrap().starts_with("$ klog recover $LAB/a"))
        .unwrap();
    assert!(cut["cells"].as_array().unwrap().iter().any(|c| c["fate"] == "acked-truncated" && c["offset"] == "1"));
    // Watch: every fetch frame under every mode has its code panel (checked above), and the
    // story goes through the failover.
    let watch = runs.iter().find(|r| r["file"] == "watch").unwrap();
    let commands: Vec<&str> =
        watch["frames"].as_array().unwrap().iter().map(|f| f["command"].as_str().unwrap()).collect();
    assert_eq!(commands.iter().filter(|c| c.starts_with("$ klog fetch")).count(), 3 * 3, "{commands:?}");
    assert_eq!(commands.iter().filter(|c| c.starts_with("$ klog recover $LAB/b --leader $LAB/a")).count(), 3);
    // One key press is one frame, with the slider focused or not.
    let i = &seen["interaction"];
    let keys = ["4", "5", "4", "40", "1", "2", "3", "2", "3", "40"].map(|k| format!("{k} / 40"));
    assert_eq!(i["keys"], serde_json::json!(keys), "arrows, End, Home, Space, Space, Shift+Space, slider: {i}");
    // A question in the page: a blank answer is asked again; the truth is judged right and the
    // score counts it; typing does not step the frame.
    let q = &i["quiz"];
    assert!(q["step"].as_u64().unwrap() > 0, "{q}");
    assert_eq!(q["veiled_before"].as_u64(), Some(1), "the outcome is veiled until revealed: {q}");
    assert!(q["hint_on_blank"].as_str().unwrap().contains("answer with a number"), "{q}");
    assert_eq!(q["verdict_hidden_on_blank"], true, "{q}");
    assert_eq!(q["pos_while_typing"].as_str(), Some(&*format!("{} / 40", q["step"])), "{q}");
    assert!(q["verdict"].as_str().unwrap().starts_with("right: the truth is"), "{q}");
    assert_eq!(q["why_hidden"], false, "{q}");
    assert!(q["score"].as_str().unwrap().starts_with("predicted 1 of "), "{q}");
    assert_eq!((q["veiled_final"].as_u64(), &q["outcome_shown_final"]), (Some(0), &true.into()), "revealed: {q}");
    if q["questions"].as_u64() == Some(1) {
        assert_eq!((q["veiled_after"].as_u64(), &q["why_hidden_after_first"]), (Some(0), &false.into()), "{q}");
    }
}

/// A line of a fetch's output that reports one round (`round 2: fetch at 1: ...`, or without
/// the prefix for a fetch of one round).
fn is_round(line: &str) -> bool {
    let l = line.trim_start();
    let l = match l.strip_prefix("round ") {
        Some(rest) => rest.split_once(": ").map_or(rest, |(_, r)| r),
        None => l,
    };
    l.starts_with("fetch at ")
}

/// The change phrases that state a number as an outcome ("cut at 1", "LEO 2 -> 1").
fn states_outcome(text: &str, truth: &str) -> Option<String> {
    let words: Vec<&str> =
        text.split(|c: char| c.is_whitespace() || ",.;:()".contains(c)).filter(|w| !w.is_empty()).collect();
    let phrases = [
        &["->"][..],
        &["→"],
        &["cut", "at"],
        &["truncated", "to"],
        &["truncates", "to"],
        &["end", "at"],
        &["ends", "at"],
    ];
    for (i, w) in words.iter().enumerate() {
        if *w != truth {
            continue;
        }
        for p in phrases {
            if i >= p.len() && words[i - p.len()..i].iter().zip(p).all(|(a, b)| a.eq_ignore_ascii_case(b)) {
                return Some(words[i.saturating_sub(4)..=i].join(" "));
            }
        }
    }
    None
}

/// The sentence of the scenario's narration that tells the answer to `question` (of `truth`),
/// if one does: a number beside a word of change (cut, truncates, ends, keeps, ->), a record
/// asked about beside a word of its fate, a loss beside "acknowledged". Epoch, fetch and round
/// numbers are not answers.
fn narration_tells(narration: &str, question: &str, kind: &str, truth: &str) -> Option<String> {
    // ("end" alone is the noun of "log end"; "ends" is the verb.)
    let change = ["cut", "cuts", "truncate", "truncates", "truncated", "trim", "trims", "ends", "->", "→"];
    let fate = ["go", "goes", "gone", "lost", "lose", "loses", "keep", "keeps", "kept", "survive", "survives", "cut"];
    let record = question.strip_prefix("predict: will ").and_then(|q| q.split_whitespace().next());
    for sentence in narration.split(['.', ';', '\n']) {
        let words: Vec<&str> =
            sentence.split(|c: char| c.is_whitespace() || ",:()".contains(c)).filter(|w| !w.is_empty()).collect();
        let has = |set: &[&str]| words.iter().any(|w| set.contains(&w.to_lowercase().as_str()));
        let tells = match (kind, record) {
            ("number", _) => {
                has(&change)
                    && words.iter().enumerate().any(|(i, w)| {
                        *w == truth && (i == 0 || !["epoch", "Fetch", "Round", "round"].contains(&words[i - 1]))
                    })
            }
            (_, Some(r)) if question.contains(" survive on ") => words.contains(&r) && has(&fate),
            _ if question.contains("lost an acknowledged write") => {
                words.contains(&"acknowledged") && has(&["lost", "lose", "loses", "keeps", "kept"])
            }
            _ => false,
        };
        if tells {
            return Some(sentence.trim().to_string());
        }
    }
    None
}

/// Every question frame of every capture (each scenario under each mode, and its default), as
/// Chromium shows it before a question is revealed: above and beside its questions it shows only
/// the heading, the scenario's story and narration, the command and the picture before the
/// step (the previous step's own state); nothing the step generated is visible — not its
/// sentence of what it did, its alerts, its picture, its code panel or output, nor the
/// narration after it — and no visible text states the answer as an outcome.
#[test]
fn no_question_frame_shows_its_answer_above_the_question_in_any_scenario_or_mode() {
    let tmp = tempfile::tempdir().unwrap();
    let mut files: Vec<PathBuf> = Vec::new();
    for sc in ["watch", "kip101-1", "kip101-2", "kip279"] {
        for mode in ["all", "hw", "kip101", "kip279", ""] {
            let file = tmp.path().join(format!("{sc}-{}.html", if mode.is_empty() { "default" } else { mode }));
            let mut args = vec!["demo", sc, "--capture", s(&file)];
            if !mode.is_empty() {
                args.extend(["--mode", mode]);
            }
            ok(&args);
            files.push(file);
        }
    }
    // stuck-lso and tiers have no modes: stuck-lso's LSO questions, the picture before each
    // without the LSO mark; tiers' restart from remote storage and unclean election.
    for sc in ["stuck-lso", "tiers"] {
        let file = tmp.path().join(format!("{sc}-default.html"));
        ok(&["demo", sc, "--capture", s(&file)]);
        files.push(file);
    }
    let mut args = vec!["--asked"];
    args.extend(files.iter().map(|f| s(f)));
    let Some(seen) = crate::harness::run("capture.mjs", &args) else { return };
    let runs = seen["runs"].as_array().unwrap();
    assert_eq!(runs.len(), files.len());
    let (mut frames, mut questions) = (0, 0);
    for run in runs {
        let name = run["file"].as_str().unwrap();
        for f in run["frames"].as_array().unwrap() {
            frames += 1;
            let at = format!("{name} frame {} ({})", f["step"], f["command"]);
            // What is visible: only the parts known before the step.
            let parts = f["parts"].as_array().unwrap();
            let (mut visible, mut narration) = (String::new(), String::new());
            for p in parts {
                let class = p[0].as_str().unwrap();
                assert!(
                    ["h2", "story", "say", "cmd", "quizzes", "pic before"].contains(&class),
                    "{at}: {class} is visible before the reveal: {f}"
                );
                visible.push_str(p[1].as_str().unwrap());
                visible.push('\n');
                if class == "story" || class == "say" {
                    narration.push_str(p[1].as_str().unwrap());
                    narration.push('\n');
                }
            }
            assert!(parts.iter().any(|p| p[0] == "pic before"), "{at}: no picture before the step beside the question");
            assert_eq!(f["outcome_shown"], false, "{at}: the outcome is not veiled: {f}");
            assert_eq!(f["visible_cells_outside_before"].as_u64(), Some(0), "{at}: {f}");
            assert!(f["before_svg_text_px"].as_f64().unwrap() >= 11.9, "{at}: the picture's text is too small: {f}");
            // The picture beside the question is the state the previous step left (a recovery's
            // own picture shows its before and after, so it is not compared).
            let before = f["before_cells"].as_array().unwrap();
            assert!(!before.is_empty(), "{at}: {f}");
            if !f["prev_command"].as_str().unwrap().starts_with("$ klog recover") {
                assert_eq!(before, f["prev_cells"].as_array().unwrap(), "{at}: not the state before the step");
            }
            // None of the outcome's own lines is visible.
            for line in f["outcome_texts"].as_array().unwrap() {
                let line = line.as_str().unwrap().trim();
                if line.chars().count() >= 12 {
                    assert!(!visible.contains(line), "{at}: the outcome's {line:?} is visible above the question");
                }
            }
            // One reveal per question: after question 1 alone, question 2 is asked and no truth
            // or why of the frame shows (question 1's could tell question 2's answer); with one
            // question, its why shows at once.
            let after_first = f["after_first"].as_array().unwrap();
            if after_first.len() > 1 {
                assert_eq!(after_first[1]["shown"], true, "{at}: question 2 is not asked after question 1: {f}");
                for (i, q) in after_first.iter().enumerate() {
                    assert_eq!(
                        (&q["verdict_shown"], &q["why_shown"]),
                        (&false.into(), &false.into()),
                        "{at}: question {}'s truth or why shows after only question 1 was answered",
                        i + 1
                    );
                }
            } else {
                assert_eq!(after_first[0]["why_shown"], true, "{at}: {f}");
            }
            for q in f["questions"].as_array().unwrap() {
                questions += 1;
                assert_eq!((&q["verdict_shown"], &q["why_shown"]), (&false.into(), &false.into()), "{at}: {q}");
                let why = q["why"].as_str().unwrap().trim_start_matches("why:").trim();
                assert!(!visible.contains(why), "{at}: the why is visible: {why}");
                let (question, kind, truth) =
                    (q["question"].as_str().unwrap(), q["kind"].as_str().unwrap(), q["truth"].as_str().unwrap());
                if let Some(told) = narration_tells(&narration, question, kind, truth) {
                    panic!("{at}: the narration above {question:?} tells its answer ({truth}): {told:?}");
                }
                if q["kind"] == "number" {
                    if let Some(p) = states_outcome(&visible, truth) {
                        panic!("{at}: \"{p}\" states the answer to {} above it:\n{visible}", q["question"]);
                    }
                }
            }
        }
    }
    assert!(frames >= 60 && questions >= 120, "{frames} question frames, {questions} questions");
    eprintln!("checked {frames} question frames ({questions} questions) in {} captures", runs.len());
}

#[test]
fn narration_that_tells_an_answer_is_found_and_a_setup_is_not() {
    let cut = "A restarts as B's follower. Under hw it cuts its log at its own HW, 0: m1 and m2 go, to be fetched \
               again. Under kip101 and kip279 it asks B where its epoch 1 ends (2) and keeps them.";
    let end = "predict: A restarts as a follower of B under hw: at which offset will A's log end?";
    assert!(narration_tells(cut, end, "number", "0").unwrap().contains("cuts its log"));
    assert!(narration_tells(cut, end, "number", "2").unwrap().contains("ends (2)"));
    let m1 = "predict: will m1 (offset 0) survive on A? [y/n]";
    assert!(narration_tells(cut, m1, "yesno", "no").is_some());
    let loss = "predict: once B has restarted, has this run lost an acknowledged write? [y/n]";
    assert!(narration_tells("Under hw m1 and m2 were acknowledged and are lost.", loss, "yesno", "yes").is_some());
    // Setups and states before the step tell nothing.
    assert_eq!(
        narration_tells("m2 is committed on B (HW 2); A still believes HW 1. Now A restarts.", end, "number", "1"),
        None
    );
    assert_eq!(narration_tells("B comes back as a follower of A.", end, "number", "2"), None);
    let rule = "under hw it trims to its own HW; under kip101 it asks A where its epoch 1 ends and truncates there";
    assert_eq!(narration_tells(rule, end, "number", "1"), None);
    assert_eq!(narration_tells("Fetch 1: A fetches from its log end, offset 0.", end, "number", "1"), None);
    assert_eq!(narration_tells("B takes m3 and fails before A fetches it.", m1, "yesno", "no"), None);
}

#[test]
fn an_outcome_phrase_is_found_and_a_before_state_is_not() {
    assert_eq!(states_outcome("its log is cut at 1 (LEO 2 -> 1).", "1").as_deref(), Some("log is cut at 1"));
    assert_eq!(states_outcome("A restarts: LEO 2 -> 1", "1").as_deref(), Some("restarts LEO 2 -> 1"));
    assert_eq!(states_outcome("A still believes HW 1. Now A restarts.", "1"), None);
    assert_eq!(states_outcome("its log ends at 11", "1"), None);
}

/// `demo stuck-lso --capture`: every frame in Chromium at 400 and 1280 px fits the page and is
/// narrated; the open transaction's cells are hatched and labelled OPEN, then aborted once its
/// marker is written; the LSO mark (in each picture's text alternative) is on the `klog txn`
/// frames only, where it says what the report says; the admin abort's frame names the
/// kafka-transactions.sh line; a question is answered in the page after its outcome was veiled.
#[test]
fn the_stuck_lso_capture_plays_in_chromium_with_open_transactions_marked_and_the_lso_beside_the_hw() {
    let tmp = tempfile::tempdir().unwrap();
    let file = tmp.path().join("stuck-lso.html");
    ok(&["demo", "stuck-lso", "--capture", s(&file)]);
    let html = std::fs::read_to_string(&file).unwrap();
    assert!(html.contains("class=\"txn-open\"") && html.contains("data-txn=\"open\""));
    let shots = Path::new(env!("CARGO_MANIFEST_DIR")).join("target/browser-shots/capture");
    for width in [400, 1280] {
        let w = width.to_string();
        let Some(seen) = crate::harness::run("capture.mjs", &[s(&shots), &w, s(&file)]) else { return };
        let run = &seen["runs"][0];
        let frames = run["frames"].as_array().unwrap();
        let count = frames.len();
        assert_eq!(count as u64, run["count"].as_u64().unwrap());
        let ticks: Vec<&str> =
            run["chapters"]["ticks"].as_array().unwrap().iter().map(|t| t[1].as_str().unwrap()).collect();
        assert_eq!(ticks, ["start", "txn begins", "txn ends", "txn begins", "txn ends"], "{ticks:?}");
        let mut txn_frames = Vec::new();
        for f in frames {
            let at = format!("stuck-lso at {width} px, frame {}", f["step"]);
            assert!(
                f["scroll_width"].as_u64() <= f["client_width"].as_u64()
                    && f["frame_scroll_width"].as_u64() <= f["frame_client_width"].as_u64(),
                "{at} is wider than the page: {f}"
            );
            if let Some(px) = f["min_svg_text_px"].as_f64() {
                assert!(px >= 11.9, "{at}: SVG text drawn at {px} px");
            }
            let narration = f["narration"].as_array().unwrap();
            assert!(narration.iter().any(|n| n.as_str().is_some_and(|t| t.len() > 10)), "{at} has no narration");
            for c in f["cells"].as_array().unwrap() {
                let dashed = c["dashed"].as_str().unwrap_or("none") != "none";
                assert_eq!(dashed, c["committed"] == "false", "{at}: {c}");
            }
            let command = f["command"].as_str().unwrap();
            let titles = f["titles"].to_string();
            if command.starts_with("$ klog txn") {
                txn_frames.push(f.clone());
                let output = f["output"].as_str().unwrap();
                let line = output.lines().find(|l| l.trim_start().starts_with("LSO ")).expect(output);
                let w: Vec<&str> = line.split_whitespace().collect();
                let marks = format!("a leader e1 (LSO {} HW {}", w[1], w[3].trim_end_matches(':'));
                assert!(titles.contains(&marks), "{at}: the picture's marks are not the report's {line:?}: {titles}");
            } else {
                assert!(!titles.contains("LSO"), "{at}: the LSO is drawn outside a klog txn frame: {titles}");
            }
        }
        assert_eq!(txn_frames.len(), 6);
        // Each klog txn frame's code panel: the first unstable offset and the LSO, as Kafka
        // computes them.
        for f in &txn_frames {
            let panel = f["panels"].to_string();
            assert!(panel.contains("firstUnstableOffsetMetadata match {"), "{f}");
            assert!(panel.contains("ongoingTxns.firstEntry()") || panel.contains("unreplicatedTxns"), "{f}");
        }
        // The frame's own picture (a question frame also holds the picture before it).
        let cells_of = |f: &serde_json::Value, txn: &str| -> Vec<i64> {
            let mut offsets: Vec<i64> = f["cells"]
                .as_array()
                .unwrap()
                .iter()
                .filter(|c| c["txn"] == txn && c["row"].as_str().unwrap().starts_with("a "))
                .map(|c| c["offset"].as_str().unwrap().parse().unwrap())
                .collect();
            offsets.sort_unstable();
            offsets.dedup();
            offsets
        };
        assert_eq!(cells_of(&txn_frames[0], "open"), [2, 3], "{}", txn_frames[0]);
        assert_eq!(cells_of(&txn_frames[1], "aborted"), [2, 3], "{}", txn_frames[1]);
        assert_eq!(cells_of(&txn_frames[1], "marker"), [7], "{}", txn_frames[1]);
        assert_eq!(cells_of(&txn_frames[3], "open"), [8], "{}", txn_frames[3]);
        assert_eq!(cells_of(&txn_frames[4], "open"), [8], "the timeout passed: {}", txn_frames[4]);
        assert!(cells_of(&txn_frames[5], "open").is_empty(), "{}", txn_frames[5]);
        let abort = frames
            .iter()
            .find(|f| {
                f["command"]
                    .as_str()
                    .unwrap()
                    .contains("--producer-id 2000 --producer-epoch 0 --end-txn abort --coordinator-epoch 0")
            })
            .expect("the admin abort's frame");
        assert!(
            abort["narration"].to_string().contains("abort --topic demo --partition 0 --start-offset 8"),
            "{abort}"
        );
        let i = &seen["interaction"];
        let keys: Vec<String> =
            [4, 5, 4, count, 1, 2, 3, 2, 3, count].iter().map(|k| format!("{k} / {count}")).collect();
        assert_eq!(i["keys"], serde_json::json!(keys), "{i}");
        let q = &i["quiz"];
        assert_eq!(q["veiled_before"].as_u64(), Some(1), "the outcome is veiled until revealed: {q}");
        assert!(q["verdict"].as_str().unwrap().starts_with("right: the truth is"), "{q}");
        assert!(q["score"].as_str().unwrap().starts_with("predicted 1 of 10"), "{q}");
        assert_eq!((q["questions"].as_u64(), &q["why_hidden_after_first"]), (Some(2), &true.into()), "{q}");
        // The first klog txn frame asks the LSO and the held-back count: with one answered the
        // report (which prints both) stays veiled.
        assert_eq!((q["veiled_after"].as_u64(), &q["outcome_shown"]), (Some(1), &false.into()), "one left: {q}");
    }
}

/// `demo tiers --capture`: every frame in Chromium at 400 and 1280 px fits the page and is
/// narrated, its cells solid when committed and dashed when not; the chapters mark each copy to
/// remote storage; the remote tier is a row of the pictures from the first copy on; A's restart
/// below B's local log start draws m1 and m2 as served from remote storage (not lost) beside
/// the aux-state code panel; from the unclean election on, B's remote segment of epoch 1 past
/// A's end is UNSERVED; the last frame says which acknowledged records remote files still hold.
#[test]
fn the_tiers_capture_plays_in_chromium_with_the_remote_tier_and_the_segment_no_leader_serves() {
    let tmp = tempfile::tempdir().unwrap();
    let file = tmp.path().join("tiers.html");
    ok(&["demo", "tiers", "--capture", s(&file)]);
    let shots = Path::new(env!("CARGO_MANIFEST_DIR")).join("target/browser-shots/capture");
    for width in [400, 1280] {
        let w = width.to_string();
        let Some(seen) = crate::harness::run("capture.mjs", &[s(&shots), &w, s(&file)]) else { return };
        let run = &seen["runs"][0];
        let frames = run["frames"].as_array().unwrap();
        assert_eq!(frames.len() as u64, run["count"].as_u64().unwrap());
        let ticks: Vec<&str> =
            run["chapters"]["ticks"].as_array().unwrap().iter().map(|t| t[1].as_str().unwrap()).collect();
        assert_eq!(
            ticks,
            [
                "start",
                "A fails",
                "copy to remote",
                "A recovers",
                "A fails",
                "copy to remote",
                "B fails",
                "A elected",
                "B recovers",
                "klog remote"
            ],
            "{ticks:?}"
        );
        let mut copied = false;
        for f in frames {
            let at = format!("tiers at {width} px, frame {}", f["step"]);
            assert!(
                f["scroll_width"].as_u64() <= f["client_width"].as_u64()
                    && f["frame_scroll_width"].as_u64() <= f["frame_client_width"].as_u64(),
                "{at} is wider than the page: {f}"
            );
            if let Some(px) = f["min_svg_text_px"].as_f64() {
                assert!(px >= 11.9, "{at}: SVG text drawn at {px} px");
            }
            let narration = f["narration"].as_array().unwrap();
            assert!(narration.iter().any(|n| n.as_str().is_some_and(|t| t.len() > 10)), "{at} has no narration");
            for c in f["cells"].as_array().unwrap() {
                let dashed = c["dashed"].as_str().unwrap_or("none") != "none";
                assert_eq!(dashed, c["committed"] == "false", "{at}: {c}");
            }
            let command = f["command"].as_str().unwrap();
            let remote_cells: Vec<&serde_json::Value> = f["cells"]
                .as_array()
                .unwrap()
                .iter()
                .filter(|c| c["row"].as_str().unwrap().starts_with("remote "))
                .collect();
            copied |= command.starts_with("$ klog tier copy");
            assert_eq!(!remote_cells.is_empty(), copied, "{at}: the remote row from the first copy on: {f}");
            if command.starts_with("$ klog recover $LAB/a") {
                let fates: Vec<(&str, &str)> = f["cells"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .filter(|c| c["fate"] == "in-remote")
                    .map(|c| (c["offset"].as_str().unwrap(), c["row"].as_str().unwrap()))
                    .collect();
                assert_eq!(fates.len(), 2, "{at}: m1 and m2 served from remote: {f}");
                let panel = f["panels"].to_string();
                assert!(panel.contains("OFFSET_MOVED_TO_TIERED_STORAGE"), "{at}: {panel}");
                assert!(panel.contains("seg.leader_epoch_checkpoint"), "{at}: {panel}");
            }
            let unserved: Vec<&str> = remote_cells
                .iter()
                .filter(|c| c["fate"] == "unserved")
                .map(|c| c["offset"].as_str().unwrap())
                .collect();
            let elected = frames
                .iter()
                .position(|g| g["command"].as_str().unwrap().starts_with("$ klog elect $LAB/a --epoch 2"))
                .unwrap();
            let i = f["step"].as_u64().unwrap() as usize - 1;
            // A question frame also holds the picture before the step: the election's before
            // picture has no leader, so nothing is unserved there.
            if i >= elected {
                assert!(unserved.contains(&"4"), "{at}: {f}");
                assert!(unserved.iter().all(|o| *o == "4"), "{at}: {f}");
            } else {
                assert!(unserved.is_empty(), "{at}: {f}");
            }
        }
        let last = frames.last().unwrap();
        let output = last["output"].as_str().unwrap();
        assert!(output.contains("served by none: segment 4..4"), "{output}");
        assert!(output.contains("still in remote files: m5 (offset 4, epoch 1)"), "{output}");
        assert!(output.contains("in no file of either tier: m6 (offset 5, epoch 1)"), "{output}");
    }
}
