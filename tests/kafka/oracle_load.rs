//! The load comparison (issue 17): a seeded generator of damaged and odd data dirs, each made
//! three times — `klog recover --dry-run DATA_DIR --json` forecasts on the first copy, `klog
//! recover DATA_DIR` runs on the second (and the tree it leaves is read back), Kafka 4.4's own
//! `LogManager.loadLogs` (the oracle) loads the third. Per log dir: the outcome (loaded, log
//! dir offline, broker refuses to start); per log: log end, log start, segments (base offset,
//! size), bytes removed and the epoch cache. The forecast must equal the run (dry run = run,
//! refusals included) and both must equal Kafka, except for the cases listed with a reason in
//! `tests/oracle/load-differences.tsv` (at most 10; a listed case that agrees fails the test).

use crate::common::*;
use crate::oracle::{load_batch, report_agreement, LoadCase};
use serde_json::Value;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

/// xorshift64*: the generator's only source of choices, seeded, so every run makes the same dirs.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n.max(1)
    }
}

fn run_klog(args: &[&str]) -> std::process::Output {
    let bin = assert_cmd::cargo::cargo_bin("klog");
    Command::new(bin).args(args).env("NO_COLOR", "1").output().expect("klog runs")
}

fn must(args: &[&str]) {
    let out = run_klog(args);
    assert!(out.status.success(), "klog {args:?}: {}", String::from_utf8_lossy(&out.stderr));
}

/// Copy a tree, leaving every copy writable (the real dirs are read-only).
fn copy_writable(from: &Path, to: &Path) {
    use std::os::unix::fs::PermissionsExt;
    std::fs::create_dir_all(to).unwrap();
    std::fs::set_permissions(to, std::fs::Permissions::from_mode(0o755)).unwrap();
    for e in std::fs::read_dir(from).unwrap() {
        let e = e.unwrap();
        let target = to.join(e.file_name());
        if e.file_type().unwrap().is_dir() {
            copy_writable(&e.path(), &target);
        } else {
            std::fs::copy(e.path(), &target).unwrap();
            std::fs::set_permissions(&target, std::fs::Permissions::from_mode(0o644)).unwrap();
        }
    }
}

/// The `.log` segments of a partition dir: (base offset, size), by base offset.
fn log_files(part: &Path) -> Vec<(i64, u64)> {
    let mut out: Vec<(i64, u64)> = std::fs::read_dir(part)
        .map(|rd| {
            rd.flatten()
                .filter_map(|e| {
                    let name = e.file_name().to_string_lossy().into_owned();
                    let base = name.strip_suffix(".log")?.parse().ok()?;
                    Some((base, e.metadata().ok()?.len()))
                })
                .collect()
        })
        .unwrap_or_default();
    out.sort();
    out
}

/// Batches of a segment: (position, size) of each whole batch frame.
fn batches(bytes: &[u8]) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    let mut pos = 0;
    while pos + 12 <= bytes.len() {
        let len = i32::from_be_bytes(bytes[pos + 8..pos + 12].try_into().unwrap());
        if len < 14 || pos + 12 + len as usize > bytes.len() {
            break;
        }
        out.push((pos, 12 + len as usize));
        pos += 12 + len as usize;
    }
    out
}

/// Cut the last segment of partition dir `part` short by `bytes` (a torn tail).
fn tear_last_segment(part: &Path, bytes: u64) {
    let (b, size) = *log_files(part).last().unwrap();
    std::fs::OpenOptions::new().write(true).open(seg_path(part, b, ".log")).unwrap().set_len(size - bytes).unwrap();
}

fn seg_path(part: &Path, base: i64, suffix: &str) -> PathBuf {
    part.join(format!("{base:020}{suffix}"))
}

fn edit(path: &Path, f: impl FnOnce(&mut Vec<u8>)) {
    let mut bytes = std::fs::read(path).unwrap();
    f(&mut bytes);
    std::fs::write(path, bytes).unwrap();
}

/// Set a batch's baseOffset (not covered by its CRC).
fn set_base_offset(path: &Path, batch: usize, value: i64) {
    edit(path, |b| {
        let (pos, _) = batches(b)[batch];
        b[pos..pos + 8].copy_from_slice(&value.to_be_bytes());
    });
}

fn base_offset_of(path: &Path, batch: usize) -> i64 {
    let b = std::fs::read(path).unwrap();
    let (pos, _) = batches(&b)[batch];
    i64::from_be_bytes(b[pos..pos + 8].try_into().unwrap())
}

/// One generated data dir and how it was made.
struct Case {
    name: String,
    dir: PathBuf,
}

/// The klog-made dirs every klog case starts from.
struct Bases {
    /// Three partitions (demo-0 with several segments and two epochs, demo-1 small, demo-2
    /// empty), still running (never stopped).
    running: PathBuf,
    /// The same, stopped cleanly (`.kafka_cleanshutdown`).
    stopped: PathBuf,
    /// The same, crashed (no marker, recovery point 0).
    crashed: PathBuf,
    /// demo-0 flushed half way (recovery point inside the log), then more appended, crashed.
    flushed: PathBuf,
}

fn make_bases(root: &Path) -> Bases {
    let running = root.join("running");
    let r = s(&running);
    must(&["create", r, "--partitions", "3", "--segment-bytes", "400", "--index-interval-bytes", "100"]);
    must(&["elect", r, "--partition", "demo-0"]);
    for i in 0..4 {
        let (a, b, c) = (format!("a{i}"), format!("b{i}"), format!("c{i}"));
        must(&["append", r, "--partition", "demo-0", &a, &b, &c, "--timestamp", &format!("{}", 1000 + i)]);
    }
    must(&["elect", r, "--partition", "demo-0", "--epoch", "3"]);
    for i in 0..4 {
        must(&["append", r, "--partition", "demo-0", &format!("x{i}"), &format!("y{i}"), "--timestamp", "2000"]);
    }
    must(&["elect", r, "--partition", "demo-1"]);
    must(&["append", r, "--partition", "demo-1", "p", "q", "r"]);
    must(&["append", r, "--partition", "demo-1", "s"]);
    let flushed = root.join("flushed");
    copy_writable(&running, &flushed);
    must(&["flush", s(&flushed), "--partition", "demo-0"]);
    must(&["append", s(&flushed), "--partition", "demo-0", "late1", "late2"]);
    must(&["append", s(&flushed), "--partition", "demo-0", "late3"]);
    must(&["crash", s(&flushed), "--partition", "demo-0"]);
    let stopped = root.join("stopped");
    copy_writable(&running, &stopped);
    must(&["stop", s(&stopped)]);
    let crashed = root.join("crashed");
    copy_writable(&running, &crashed);
    must(&["crash", s(&crashed), "--partition", "demo-0"]);
    Bases { running, stopped, crashed, flushed }
}

/// Every case, in a fixed order from a fixed seed.
fn generate(root: &Path, bases: &Bases, real: Option<&Path>) -> Vec<Case> {
    let mut cases: Vec<Case> = Vec::new();
    let mut rng = Rng(0x006b_6c6f_672d_3137);
    let mut add = |name: String, base: &Path, f: &mut dyn FnMut(&Path)| {
        let dir = root.join(format!("case-{:03}", cases.len()));
        copy_writable(base, &dir);
        f(&dir);
        cases.push(Case { name, dir });
    };
    let klog_bases: [(&str, &Path); 3] =
        [("stopped", &bases.stopped), ("crashed", &bases.crashed), ("flushed", &bases.flushed)];
    let no_marker = |d: &Path| {
        let _ = std::fs::remove_file(d.join(".kafka_cleanshutdown"));
    };
    let p0 = |d: &Path| d.join("demo-0");
    let last_seg = |d: &Path| *log_files(&d.join("demo-0")).last().unwrap();

    // Every crash mode of `klog crash`, on a running broker, on two partitions.
    let mut crash_modes: Vec<Vec<String>> = vec![
        vec![],
        vec!["--power-loss".into()],
        vec!["--hw".into(), "0".into()],
        vec!["--hw".into(), "999".into()],
        vec!["--drop-epoch-checkpoint".into()],
        vec!["--drop-index".into()],
        vec!["--power-loss".into(), "--drop-index".into()],
        vec!["--torn-bytes".into(), "3".into(), "--drop-epoch-checkpoint".into()],
    ];
    for n in [1, 7, 12, 30, 61, 70] {
        crash_modes.push(vec!["--torn-bytes".into(), n.to_string()]);
    }
    for seed in 1..=12 {
        crash_modes.push(vec!["--flip-byte".into(), "--seed".into(), seed.to_string()]);
    }
    for pos in [0, 5, 9, 16, 17, 25, 40, 61] {
        crash_modes.push(vec!["--flip-byte".into(), pos.to_string()]);
    }
    for partition in ["demo-0", "demo-1"] {
        for mode in &crash_modes {
            let name = format!("crash {partition} {}", mode.join(" "));
            add(name, &bases.running, &mut |d| {
                let mut args = vec!["crash", s(d), "--partition", partition];
                args.extend(mode.iter().map(String::as_str));
                let out = run_klog(&args);
                // A flip position past a short segment is refused: the crash is then plain.
                if !out.status.success() {
                    must(&["crash", s(d), "--partition", partition]);
                }
            });
        }
    }
    // Torn tails of the last segment.
    for (bn, base) in klog_bases {
        for cut in [1u64, 5, 11, 12, 13, 40, 61, 1000] {
            add(format!("{bn}: torn tail of {cut} bytes"), base, &mut |d| {
                let (b, size) = last_seg(d);
                let f = std::fs::OpenOptions::new().write(true).open(seg_path(&p0(d), b, ".log")).unwrap();
                f.set_len(size.saturating_sub(cut)).unwrap();
                no_marker(d);
            });
        }
    }
    // Bit flips in every field of a batch header, and in a record, in a first, middle and last
    // batch of the first and of the last segment.
    let fields: [(&str, usize); 16] = [
        ("baseOffset high byte", 0),
        ("baseOffset byte 4", 4),
        ("baseOffset low byte", 7),
        ("batchLength high byte", 8),
        ("batchLength low byte", 11),
        ("partitionLeaderEpoch", 15),
        ("magic", 16),
        ("crc", 18),
        ("attributes", 22),
        ("lastOffsetDelta", 26),
        ("baseTimestamp", 30),
        ("maxTimestamp", 42),
        ("producerId", 50),
        ("baseSequence", 58),
        ("recordsCount", 60),
        ("record body", 64),
    ];
    for (bn, base) in [("stopped", &bases.stopped), ("crashed", &bases.crashed)] {
        for (which_seg, first) in [("first", true), ("last", false)] {
            for (field, off) in fields {
                let which = rng.below(3) as usize;
                let bit = 1u8 << rng.below(8);
                let name = format!("{bn}: bit flip in {field} of batch #{which} of the {which_seg} segment");
                add(name, base, &mut |d| {
                    let segs = log_files(&p0(d));
                    let (b, _) = if first { segs[0] } else { *segs.last().unwrap() };
                    edit(&seg_path(&p0(d), b, ".log"), |bytes| {
                        let all = batches(bytes);
                        let (pos, size) = all[which.min(all.len() - 1)];
                        let at = pos + off.min(size - 1);
                        bytes[at] ^= bit;
                    });
                });
            }
        }
    }
    // Derived files: truncated, garbage, missing.
    for (bn, base) in klog_bases {
        for suffix in [".index", ".timeindex", ".snapshot"] {
            for how in ["truncated", "garbage", "missing"] {
                for first in [true, false] {
                    let which = if first { "first" } else { "last" };
                    let name = format!("{bn}: {how} {suffix} of the {which} segment");
                    let noise: Vec<u8> = (0..13).map(|_| rng.below(256) as u8).collect();
                    add(name, base, &mut |d| {
                        let segs = log_files(&p0(d));
                        let names: Vec<i64> = std::fs::read_dir(p0(d))
                            .unwrap()
                            .flatten()
                            .filter_map(|e| {
                                let n = e.file_name().to_string_lossy().into_owned();
                                n.strip_suffix(suffix)?.parse().ok()
                            })
                            .collect();
                        let target = if suffix == ".snapshot" {
                            let mut n = names.clone();
                            n.sort();
                            if first {
                                n.first().copied()
                            } else {
                                n.last().copied()
                            }
                        } else if first {
                            Some(segs[0].0)
                        } else {
                            Some(segs.last().unwrap().0)
                        };
                        let Some(t) = target else { return };
                        let path = seg_path(&p0(d), t, suffix);
                        match how {
                            "truncated" => {
                                let len = std::fs::metadata(&path).map_or(0, |m| m.len());
                                std::fs::OpenOptions::new()
                                    .write(true)
                                    .create(true)
                                    .truncate(false)
                                    .open(&path)
                                    .unwrap()
                                    .set_len(len / 2 + 3)
                                    .unwrap();
                            }
                            "garbage" => std::fs::write(&path, &noise).unwrap(),
                            _ => {
                                let _ = std::fs::remove_file(&path);
                            }
                        }
                    });
                }
            }
        }
    }
    // Log end below the log start checkpoint, and log starts inside and below the log.
    for (bn, base) in klog_bases {
        for lso in [3i64, 20, 28, 100, 1 << 40] {
            add(format!("{bn}: log-start checkpoint {lso} for demo-0"), base, &mut |d| {
                let text = format!("0\n2\ndemo 0 {lso}\ndemo 1 0\n");
                std::fs::write(d.join("log-start-offset-checkpoint"), text).unwrap();
            });
        }
        add(format!("{bn}: the audit's LEO below the log start (first segments deleted by hand)"), base, &mut |d| {
            let segs = log_files(&p0(d));
            for (b, _) in &segs[..segs.len() - 1] {
                for sfx in [".log", ".index", ".timeindex"] {
                    let _ = std::fs::remove_file(seg_path(&p0(d), *b, sfx));
                }
            }
            std::fs::write(d.join("log-start-offset-checkpoint"), "0\n1\ndemo 0 100\n").unwrap();
            no_marker(d);
        });
        for rp in [0i64, 5, 13, 24, 1000] {
            add(format!("{bn}: recovery point {rp}, torn tail"), base, &mut |d| {
                std::fs::write(d.join("recovery-point-offset-checkpoint"), format!("0\n2\ndemo 0 {rp}\ndemo 1 0\n"))
                    .unwrap();
                tear_last_segment(&p0(d), 4);
                no_marker(d);
            });
        }
    }
    // Offsets that go backwards, base offsets below the segment's base, relative-offset overflow.
    for (bn, base) in klog_bases {
        for (what, seg_index, batch, delta) in [
            ("offsets going backwards between index entries (batch #3 re-based to 0)", 0usize, 3usize, None),
            ("offsets going backwards (batch #2 re-based 2 lower)", 0, 2, Some(-2i64)),
            ("a batch base offset below its segment's base (first batch of segment #1)", 1, 0, Some(-3)),
            (
                "a batch base offset below its segment's base (last batch of the last segment)",
                usize::MAX,
                usize::MAX,
                Some(-40),
            ),
            ("relative-offset overflow (batch #1 of segment 0 at +2^32)", 0, 1, Some(1 << 32)),
            ("relative-offset overflow (last batch at +2^31)", usize::MAX, usize::MAX, Some(1 << 31)),
            ("relative-offset overflow (first batch of segment #1 at +2^33)", 1, 0, Some(1 << 33)),
            ("offset jump forward within range (batch #1 +1000)", 0, 1, Some(1000)),
        ] {
            add(format!("{bn}: {what}"), base, &mut |d| {
                let segs = log_files(&p0(d));
                let (b, _) =
                    if seg_index == usize::MAX { *segs.last().unwrap() } else { segs[seg_index.min(segs.len() - 1)] };
                let path = seg_path(&p0(d), b, ".log");
                let n = batches(&std::fs::read(&path).unwrap()).len();
                let k = batch.min(n - 1);
                let old = base_offset_of(&path, k);
                set_base_offset(&path, k, delta.map_or(0, |x| old + x));
            });
        }
    }
    // A recovery that emptied a segment and died before deleting the later ones.
    for (bn, base) in klog_bases {
        add(format!("{bn}: an emptied first segment before whole ones"), base, &mut |d| {
            std::fs::write(seg_path(&p0(d), 0, ".log"), b"").unwrap();
            no_marker(d);
        });
    }
    // The audit: a segment below the recovery point with a missing .index and a corrupt batch.
    for flip_batch in [0usize, 1, 2] {
        add(
            format!("audit: missing .index and a corrupt batch #{flip_batch} below the recovery point"),
            &bases.flushed,
            &mut |d| {
                std::fs::write(d.join("recovery-point-offset-checkpoint"), "0\n2\ndemo 0 22\ndemo 1 0\n").unwrap();
                let path = seg_path(&p0(d), 0, ".log");
                edit(&path, |bytes| {
                    let all = batches(bytes);
                    let (pos, _) = all[flip_batch.min(all.len() - 1)];
                    bytes[pos + 20] ^= 0x10;
                });
                std::fs::remove_file(seg_path(&p0(d), 0, ".index")).unwrap();
            },
        );
    }
    add("audit: missing .index with offsets going backwards".into(), &bases.stopped, &mut |d| {
        set_base_offset(&seg_path(&p0(d), 0, ".log"), 3, 0);
        std::fs::remove_file(seg_path(&p0(d), 0, ".index")).unwrap();
    });
    // .swap, .cleaned and .deleted files.
    for (bn, base) in klog_bases {
        for (what, from, to) in [
            (".log.deleted", ".log", ".log.deleted"),
            (".index.deleted", ".index", ".index.deleted"),
            (".log.cleaned", ".log", ".log.cleaned"),
            (".log.swap of the first segment", ".log", ".log.swap"),
            (".index.swap", ".index", ".index.swap"),
        ] {
            add(format!("{bn}: a {what} file"), base, &mut |d| {
                let b = log_files(&p0(d))[0].0;
                std::fs::copy(seg_path(&p0(d), b, from), seg_path(&p0(d), b, to)).unwrap();
            });
        }
    }
    // An interrupted compaction: the cleaner's `.log.swap` for the first segment, without its
    // first batch (a real swap differs from the segment it replaces).
    let compacted = |d: &Path, segments: usize| {
        let files = log_files(&p0(d));
        let mut bytes = Vec::new();
        for (b, _) in files.iter().take(segments) {
            bytes.extend(std::fs::read(seg_path(&p0(d), *b, ".log")).unwrap());
        }
        let first = batches(&bytes)[0].1;
        std::fs::write(seg_path(&p0(d), files[0].0, ".log.swap"), &bytes[first..]).unwrap();
        files[0].0
    };
    for (bn, base) in klog_bases {
        add(format!("{bn}: a compacted .log.swap replacing the first segment"), base, &mut |d| {
            compacted(d, 1);
        });
        add(format!("{bn}: a compacted .log.swap merging the first two segments"), base, &mut |d| {
            compacted(d, 2);
        });
    }
    add("stopped: a .log.swap at a .cleaned file's offset (an invalid swap)".into(), &bases.stopped, &mut |d| {
        let b = compacted(d, 1);
        std::fs::copy(seg_path(&p0(d), b, ".log"), seg_path(&p0(d), b, ".log.cleaned")).unwrap();
    });
    // -future, -stray and -delete dirs, whole and damaged; a non-topic folder; topic-like names.
    let id = "0123456789abcdef0123456789abcdef";
    for (bn, base) in klog_bases {
        for suffix in ["future", "stray", "delete"] {
            for damaged in [false, true] {
                let name = format!("{bn}: a -{suffix} dir{}", if damaged { " with a torn tail" } else { "" });
                add(name, base, &mut |d| {
                    let to = d.join(format!("demo-0.{id}-{suffix}"));
                    copy_writable(&p0(d), &to);
                    if damaged {
                        tear_last_segment(&to, 9);
                        no_marker(d);
                    }
                });
            }
        }
        for folder in ["lost+found", "photos", "demo-0-future", "demo-x", ".hidden"] {
            add(format!("{bn}: a non-topic folder {folder}"), base, &mut |d| {
                std::fs::create_dir(d.join(folder)).unwrap()
            });
        }
        add(format!("{bn}: an empty topic-like folder photos-2024"), base, &mut |d| {
            std::fs::create_dir(d.join("photos-2024")).unwrap()
        });
        add(format!("{bn}: a remote-log-index-cache folder"), base, &mut |d| {
            std::fs::create_dir(d.join("remote-log-index-cache")).unwrap()
        });
    }
    // Malformed checkpoints, each file.
    for (bn, base) in klog_bases {
        for file in [
            "recovery-point-offset-checkpoint",
            "log-start-offset-checkpoint",
            "replication-offset-checkpoint",
            "cleaner-offset-checkpoint",
            "demo-0/leader-epoch-checkpoint",
        ] {
            for (how, text) in
                [("garbage", "garbage\n"), ("a short count", "0\n3\ndemo 0 1\n"), ("a bad line", "0\n1\ndemo zero 1\n")]
            {
                let text = if file.ends_with("leader-epoch-checkpoint") {
                    text.replace("demo ", "")
                } else {
                    text.to_string()
                };
                add(format!("{bn}: malformed {file} ({how})"), base, &mut |d| {
                    std::fs::write(d.join(file), &text).unwrap()
                });
            }
        }
    }
    // The metadata log, in a klog dir (copied from the real KRaft dir), with and without marker.
    if let Some(real) = real {
        let meta = real.join("kraft-broker-2026/__cluster_metadata-0");
        for (bn, base) in [("stopped", &bases.stopped), ("crashed", &bases.crashed)] {
            for damaged in [false, true] {
                let name = format!("{bn}: __cluster_metadata-0{}", if damaged { " with a torn tail" } else { "" });
                add(name, base, &mut |d| {
                    let to = d.join("__cluster_metadata-0");
                    copy_writable(&meta, &to);
                    if damaged {
                        tear_last_segment(&to, 20);
                    }
                });
            }
        }
        // The real broker dirs, as they are, with the marker toggled, and damaged.
        for name in ["zk-broker-2020", "zk-broker-2021", "kraft-broker-2026"] {
            let src = real.join(name);
            add(format!("real {name}"), &src, &mut |_| {});
            add(format!("real {name}, marker toggled"), &src, &mut |d| {
                let m = d.join(".kafka_cleanshutdown");
                if m.exists() {
                    std::fs::remove_file(m).unwrap();
                } else {
                    std::fs::write(m, "").unwrap();
                }
            });
            let parts: Vec<PathBuf> = {
                let mut v: Vec<PathBuf> = std::fs::read_dir(&src)
                    .unwrap()
                    .flatten()
                    .map(|e| e.path())
                    .filter(|p| p.is_dir() && log_files(p).iter().any(|(_, n)| *n > 200))
                    .collect();
                v.sort();
                v
            };
            for part in &parts {
                let pn = part.file_name().unwrap().to_string_lossy().into_owned();
                let cut = 1 + rng.below(60);
                let flip = rng.below(4096) as usize;
                add(format!("real {name}: {pn} torn by {cut} bytes, no marker"), &src, &mut |d| {
                    tear_last_segment(&d.join(&pn), cut);
                    no_marker(d);
                });
                add(format!("real {name}: {pn} byte {flip} flipped, no marker"), &src, &mut |d| {
                    let (b, size) = *log_files(&d.join(&pn)).last().unwrap();
                    edit(&seg_path(&d.join(&pn), b, ".log"), |bytes| bytes[flip % size as usize] ^= 0x40);
                    no_marker(d);
                });
                add(format!("real {name}: {pn} missing .index, garbage .timeindex"), &src, &mut |d| {
                    let (b, _) = log_files(&d.join(&pn))[0];
                    let _ = std::fs::remove_file(seg_path(&d.join(&pn), b, ".index"));
                    std::fs::write(seg_path(&d.join(&pn), b, ".timeindex"), b"\x01\x02\x03").unwrap();
                });
            }
        }
    }
    cases
}

/// A dir's bytes by path relative to it.
fn relative_tree(dir: &Path) -> BTreeMap<PathBuf, Option<Vec<u8>>> {
    tree(dir).into_iter().map(|(p, b)| (p.strip_prefix(dir).unwrap().to_path_buf(), b)).collect()
}

/// A loaded log's (log start, log end, epoch-cache entries).
type LogOffsets = (i64, i64, Vec<(i64, i64)>);

/// What one side says a load does: the dir-level outcome and, when loaded, per log dir.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
struct View {
    outcome: String,
    /// Per loaded log (current, future, metadata): (log start, log end, epochs).
    logs: BTreeMap<String, LogOffsets>,
    /// Per partition dir: segments left (base, size), and `.log` bytes removed.
    segments: BTreeMap<String, Vec<(i64, u64)>>,
    removed: BTreeMap<String, u64>,
}

fn outcome_of(out: &std::process::Output) -> String {
    if out.status.success() {
        return "loaded".into();
    }
    // A forecast of a start-up the broker does not survive is a finding (exit 1), not an error.
    if out.status.code() == Some(1)
        && json_lines(&String::from_utf8_lossy(&out.stdout)).first().is_some_and(|l| l["type"] == "refusal")
    {
        return "refused".into();
    }
    let err = String::from_utf8_lossy(&out.stderr);
    if err.contains("refuses to start") {
        "refused".into()
    } else if err.contains("offline") {
        "offline".into()
    } else {
        format!("klog error {:?}: {}", out.status.code(), err.trim())
    }
}

fn epochs(v: &Value) -> Vec<(i64, i64)> {
    v.as_array().map_or(Vec::new(), |a| a.iter().map(|e| (e[0].as_i64().unwrap(), e[1].as_i64().unwrap())).collect())
}

/// The forecast (or the run's own report) as a view; with `tree`, segments and epochs are read
/// from the dir the run left instead, and bytes removed from the tree before.
fn klog_view(out: &std::process::Output, tree: Option<(&Path, &BTreeMap<String, u64>)>) -> View {
    let mut v = View { outcome: outcome_of(out), ..Default::default() };
    if v.outcome != "loaded" {
        return v;
    }
    for line in json_lines(&String::from_utf8_lossy(&out.stdout)) {
        if line["type"] != "local_recovery" {
            continue;
        }
        let name = line["partition"].as_str().unwrap().to_string();
        let r = &line["recovery"];
        let kind = line["kind"].as_str().unwrap_or("log");
        let (segments, cache, removed) = match tree {
            None => (
                r["segments_after"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|s| (s["base_offset"].as_i64().unwrap(), s["size"].as_u64().unwrap()))
                    .collect(),
                epochs(&r["epochs_after"]),
                r["bytes_removed"].as_u64().unwrap(),
            ),
            Some((dir, before)) => {
                let part = dir.join(&name);
                let segs = log_files(&part);
                let after: u64 = segs.iter().map(|s| s.1).sum();
                let text = std::fs::read_to_string(part.join("leader-epoch-checkpoint")).unwrap_or_default();
                let cache = text
                    .lines()
                    .skip(2)
                    .filter_map(|l| l.split_once(' '))
                    .map(|(e, o)| (e.parse().unwrap(), o.parse().unwrap()))
                    .collect();
                (segs, cache, before.get(&name).copied().unwrap_or(0).saturating_sub(after))
            }
        };
        if kind != "stray" && kind != "delete" {
            let lso = r["log_start_offset_after"].as_i64().unwrap();
            let leo = r["log_end_offset_after"].as_i64().unwrap();
            v.logs.insert(name.clone(), (lso, leo, cache));
        }
        v.segments.insert(name.clone(), segments);
        v.removed.insert(name, removed);
    }
    v
}

fn oracle_view(o: &Value) -> View {
    let mut v = View { outcome: o["outcome"].as_str().unwrap().to_string(), ..Default::default() };
    if v.outcome != "loaded" {
        return v;
    }
    for l in o["logs"].as_array().unwrap() {
        v.logs.insert(
            l["dir"].as_str().unwrap().to_string(),
            (l["log_start_offset"].as_i64().unwrap(), l["log_end_offset"].as_i64().unwrap(), epochs(&l["epochs"])),
        );
    }
    for (dir, files) in o["files"].as_object().unwrap() {
        let mut segs: Vec<(i64, u64)> = files
            .as_object()
            .unwrap()
            .iter()
            .filter_map(|(n, size)| Some((n.strip_suffix(".log")?.parse().ok()?, size.as_u64().unwrap())))
            .collect();
        segs.sort();
        v.segments.insert(dir.clone(), segs);
    }
    for (dir, n) in o["log_bytes_removed"].as_object().unwrap() {
        v.removed.insert(dir.clone(), n.as_u64().unwrap());
    }
    // Folders Kafka does not load (`remote-log-index-cache`, non-metadata `__cluster_metadata`
    // dirs) have nothing to compare.
    v.segments.retain(|d, s| !s.is_empty() || v.logs.contains_key(d));
    v
}

/// The differences between two views, one line each (empty when they agree).
fn differences(klog: &View, kafka: &View) -> Vec<String> {
    if klog.outcome != kafka.outcome {
        return vec![format!("outcome: klog {} / Kafka {}", klog.outcome, kafka.outcome)];
    }
    let mut out = Vec::new();
    let keys: std::collections::BTreeSet<&String> = klog.logs.keys().chain(kafka.logs.keys()).collect();
    for k in keys {
        if klog.logs.get(k) != kafka.logs.get(k) {
            out.push(format!(
                "{k}: (log start, log end, epochs) klog {:?} / Kafka {:?}",
                klog.logs.get(k),
                kafka.logs.get(k)
            ));
        }
    }
    for (k, segs) in &kafka.segments {
        let mine =
            klog.segments.get(k).cloned().unwrap_or_else(|| if segs.is_empty() { Vec::new() } else { vec![(-1, 0)] });
        if &mine != segs {
            out.push(format!("{k}: segments klog {mine:?} / Kafka {segs:?}"));
        }
    }
    for (k, n) in &kafka.removed {
        let mine = klog.removed.get(k).copied().unwrap_or(0);
        if mine != *n && kafka.segments.contains_key(k) {
            out.push(format!("{k}: bytes removed klog {mine} / Kafka {n}"));
        }
    }
    out
}

fn documented_differences() -> BTreeMap<String, String> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/oracle/load-differences.tsv");
    let text = std::fs::read_to_string(&path).unwrap_or_default();
    text.lines()
        .filter(|l| !l.trim().is_empty() && !l.starts_with('#'))
        .map(|l| {
            let (case, reason) = l.split_once('\t').expect("case<TAB>reason");
            (case.to_string(), reason.to_string())
        })
        .collect()
}

#[test]
fn the_forecast_the_run_and_kafkas_loader_agree_on_every_generated_data_dir() {
    let lab = Lab::new();
    let root = lab.path("gen");
    std::fs::create_dir_all(&root).unwrap();
    let bases = make_bases(&lab.path("bases"));
    let real = kafka_real();
    let cases = generate(&root, &bases, real.as_deref());
    let documented = documented_differences();
    assert!(documented.len() <= 10, "at most 10 documented differences, found {}", documented.len());
    assert!(cases.len() >= 300, "the corpus holds {} cases; the issue asks for at least 300", cases.len());
    let names: std::collections::BTreeSet<&str> = cases.iter().map(|c| c.name.as_str()).collect();
    assert_eq!(names.len(), cases.len(), "case names are unique");
    // Three copies of each case: the forecast's, the run's and Kafka's.
    let mut oracle_cases = Vec::new();
    let mut ours = Vec::new();
    for c in &cases {
        let (a, b, k) = (c.dir.with_extension("dry"), c.dir.with_extension("run"), c.dir.with_extension("kafka"));
        copy_writable(&c.dir, &a);
        copy_writable(&c.dir, &b);
        copy_writable(&c.dir, &k);
        let before: BTreeMap<String, u64> = std::fs::read_dir(&b)
            .unwrap()
            .flatten()
            .filter(|e| e.path().is_dir())
            .map(|e| (e.file_name().to_string_lossy().into_owned(), log_files(&e.path()).iter().map(|s| s.1).sum()))
            .collect();
        let tree_before = relative_tree(&a);
        let dry = run_klog(&["recover", "--dry-run", s(&a), "--json"]);
        assert!(relative_tree(&a) == tree_before, "{}: the dry run wrote", c.name);
        // A case without klog's state is a broker's dir: its run needs consent (the dry run
        // does not), and saves its backup beside it, as `case-NNN.run.klog-backup-1`, outside
        // every tree compared here.
        let consent = !c.dir.join("klog-state.json").exists();
        let run = if consent {
            run_klog(&["--allow-broker-dir-writes", "recover", s(&b), "--json"])
        } else {
            run_klog(&["recover", s(&b), "--json"])
        };
        if !run.status.success() {
            assert!(relative_tree(&b) == tree_before, "{}: a refused run changed the dir", c.name);
        }
        ours.push((klog_view(&dry, None), klog_view(&run, Some((&b, &before))), dry, run));
        // klog's topic config as Kafka topic overrides (segment.bytes is below Kafka's minimum,
        // and the loader does not read it).
        let overrides =
            if c.name.starts_with("real") { Vec::new() } else { vec!["demo:index.interval.bytes=100".to_string()] };
        oracle_cases.push(LoadCase { dir: k, overrides });
    }
    // Dry run = run (issue 18): the same decisions, refusals included, whatever Kafka says.
    let unequal: Vec<String> = cases
        .iter()
        .zip(&ours)
        .filter(|(_, (dry, run, _, _))| dry != run)
        .map(|(c, (dry, run, _, _))| format!("{}: forecast {dry:?}\n  run {run:?}", c.name))
        .collect();
    assert!(unequal.is_empty(), "the dry run and the run differ:\n{}", unequal.join("\n"));
    let Some(kafka) = load_batch(&root, &oracle_cases) else { return };
    let mut agree = 0;
    let mut failures = Vec::new();
    for (c, ((dry, run, dry_out, _), k)) in cases.iter().zip(ours.iter().zip(&kafka)) {
        let kv = oracle_view(k);
        let mut diffs: Vec<String> = differences(dry, &kv).into_iter().map(|d| format!("forecast: {d}")).collect();
        diffs.extend(differences(run, &kv).into_iter().map(|d| format!("run: {d}")));
        let listed = documented.contains_key(&c.name);
        if diffs.is_empty() {
            agree += 1;
            if listed {
                failures.push(format!("{}: listed in load-differences.tsv but agrees with Kafka now", c.name));
            }
        } else if !listed {
            let err = String::from_utf8_lossy(&dry_out.stderr);
            let kafka_error = k["error"].as_str().unwrap_or("");
            failures.push(format!(
                "{} ({}): {}{}{}",
                c.name,
                c.dir.display(),
                diffs.join("; "),
                if err.is_empty() { String::new() } else { format!(" [klog: {}]", err.trim()) },
                if kafka_error.is_empty() { String::new() } else { format!(" [Kafka: {kafka_error}]") }
            ));
        }
    }
    report_agreement("load", agree, cases.len());
    if !failures.is_empty() {
        // Keep the dirs for a look when asked.
        if std::env::var_os("KLOG_KEEP_ORACLE_LOAD").is_some() {
            let keep = lab.dir.keep();
            eprintln!("kept {}", keep.display());
        }
        panic!("{} case(s) disagree:\n{}", failures.len(), failures.join("\n"));
    }
}

/// A killed broker leaves its active segment's indexes preallocated (zero-filled past the last
/// entry). `check` notes them where Kafka's loader rebuilds them (no clean shutdown: the
/// segment is recovered) and reports them where Kafka loads them as they are (clean shutdown);
/// Kafka's loader judges both.
#[test]
fn a_preallocated_index_is_a_note_where_kafka_rebuilds_it_and_a_finding_where_it_keeps_it() {
    let tmp = tempfile::tempdir().unwrap();
    let made = tmp.path().join("made");
    let made_s = made.to_str().unwrap();
    must(&["create", made_s, "--replica-id", "1"]);
    must(&["elect", made_s, "--epoch", "0"]);
    must(&["append", made_s, "x", "y", "z", "--timestamp", "1000"]);
    must(&["append", made_s, "w", "--timestamp", "2000"]);
    // A broker's dir: no klog state, no lock; its active segment's index preallocated.
    std::fs::remove_file(made.join("klog-state.json")).unwrap();
    let index = seg_path(&made.join("demo-0"), 0, ".index");
    let preallocated = 8 * 10_000;
    edit(&index, |b| b.resize(preallocated, 0));
    let (killed, clean) = (tmp.path().join("killed"), tmp.path().join("clean"));
    for d in [&killed, &clean] {
        copy_writable(&made, d);
    }
    std::fs::write(clean.join(".kafka_cleanshutdown"), b"").unwrap();

    let out = run_klog(&["check", killed.to_str().unwrap()]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{text}");
    assert!(
        text.contains("all 10000 of its entries are zeros")
            && text.contains("Kafka rebuilds this segment's indexes when it loads the dir"),
        "{text}"
    );
    let out = run_klog(&["check", clean.to_str().unwrap()]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{text}");
    assert!(text.contains("finding") && text.contains("after a clean shutdown loads it as it is"), "{text}");

    let cases: Vec<LoadCase> = [&killed, &clean]
        .into_iter()
        .map(|d| {
            let copy = d.with_extension("kafka");
            copy_writable(d, &copy);
            LoadCase { dir: copy, overrides: Vec::new() }
        })
        .collect();
    let Some(loaded) = load_batch(tmp.path(), &cases) else { return };
    let index_size = |v: &Value| v["files"]["demo-0"]["00000000000000000000.index"].as_u64();
    // Rebuilt (four records in two small batches: no entry) after the kill; kept as it was after
    // the clean shutdown.
    assert_eq!(index_size(&loaded[0]), Some(0), "{}", loaded[0]);
    assert_eq!(index_size(&loaded[1]), Some(preallocated as u64), "{}", loaded[1]);
}
