//! `klog demo --capture FILE.html`: one self-contained file, checked as a file and as a real
//! browser shows it — headless Chromium (Debian's `chromium`, installed by `.ci/run`) renders
//! two frames to PNG, which are decoded here and checked for content, the epoch colours and a
//! difference between them; `--dump-dom` counts the frames after the page's script ran.

use crate::common::*;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::Command;

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
    assert!(html.len() < 300 * 1024, "{} bytes", html.len());
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
    // No wall clock and no lab path: two runs give the same bytes.
    let other = tmp.path().join("again");
    std::fs::create_dir(&other).unwrap();
    let again = std::fs::read_to_string(capture(&other)).unwrap();
    assert!(again == html, "the capture depends on the run");
    assert!(!html.contains(s(tmp.path())), "the lab's path leaked into the capture");
}

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
    let file = capture(tmp.path());
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
    assert_eq!(dom.matches("class=\"frame").count(), FRAMES, "frames in the DOM");
    assert_eq!(dom.matches("class=\"frame on\"").count(), 1);
    assert!(dom.contains("<section class=\"frame on\" id=\"step-13\""), "the hash picks the frame");
    assert!(dom.contains(&format!("13 / {FRAMES}")));
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
    assert!(html.contains("if(e.target===s)return;"), "the page's arrow keys leave the slider alone");
    assert!(html.contains("if(e.target.tagName==='INPUT')return;"), "typing an answer does not step");
    let all = tmp.path().join("all.html");
    ok(&["demo", "kip101-1", "--mode", "all", "--capture", s(&all)]);
    let html = std::fs::read_to_string(&all).unwrap();
    assert_eq!(html.matches("<p class=\"story\">").count(), 3, "one story per mode's run");
}
