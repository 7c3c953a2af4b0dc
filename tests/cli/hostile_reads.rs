//! Hostile reads (issue 18, classes 1, 3, 7 and 9): whatever sits at a name klog reads — a
//! FIFO, a socket, a device, a directory — is a finding of a read-only command or a one-line
//! refusal of a mutating one, never a hang; a partition is a name, never a path, and nothing is
//! written through a symlink; `meta.properties` is read as `java.util.Properties.load` reads it;
//! every finding carries its place as data.
//!
//! Every case runs the real binary under a kill-after guard (a regression fails the case
//! instead of hanging the suite), with a private `TMPDIR` inside the lab, and asserts the exit
//! code, a one-line message naming the path, and that the whole lab — log dirs, the dirs
//! around them and the `TMPDIR` — is byte-identical afterwards. The tree walk never opens a
//! name that is not a regular file.

use crate::common::*;
use std::collections::BTreeMap;
use std::fs;
use std::io::Read;
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// The global flag a write into a broker copy needs (see tests/cli/consent.rs): given so that a
/// refusal there comes from the hostile file itself, not from the consent gate.
const CONSENT: &str = "--allow-broker-dir-writes";

/// A command that takes longer than this is taken to hang, and is killed.
const HANG_AFTER: Duration = Duration::from_secs(30);

struct Run {
    code: i32,
    out: String,
    err: String,
}

/// Run klog in `lab` (paths in `args` are relative to it) with `TMPDIR` = `lab/tmp`, killing it
/// if it runs longer than [`HANG_AFTER`].
fn run(lab: &Path, args: &[&str]) -> Run {
    let mut child = Command::new(assert_cmd::cargo::cargo_bin("klog"))
        .args(args)
        .current_dir(lab)
        .env("NO_COLOR", "1")
        .env_remove("COLUMNS")
        .env("TMPDIR", lab.join("tmp"))
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run klog");
    let pipe = |mut r: Box<dyn Read + Send>| {
        std::thread::spawn(move || {
            let mut v = Vec::new();
            let _ = r.read_to_end(&mut v);
            String::from_utf8_lossy(&v).into_owned()
        })
    };
    let out = pipe(Box::new(child.stdout.take().unwrap()));
    let err = pipe(Box::new(child.stderr.take().unwrap()));
    let started = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if started.elapsed() > HANG_AFTER {
            let _ = child.kill();
            let _ = child.wait();
            panic!("klog {args:?} hung: killed after {HANG_AFTER:?}");
        }
        std::thread::sleep(Duration::from_millis(5));
    };
    Run { code: status.code().unwrap_or(-1), out: out.join().unwrap(), err: err.join().unwrap() }
}

/// What is at a name, for comparing trees: never opened unless it is a regular file.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Node {
    Dir,
    File(Vec<u8>),
    Link(PathBuf),
    /// A FIFO, socket or device: its type bits and device number.
    Special(u32, u64),
}

fn tree_of(root: &Path) -> BTreeMap<PathBuf, Node> {
    let mut out = BTreeMap::new();
    let mut stack = vec![root.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in fs::read_dir(&d).unwrap() {
            let p = e.unwrap().path();
            let m = fs::symlink_metadata(&p).unwrap();
            let t = m.file_type();
            // An empty `.lock` a command took and left, as a broker leaves it, is no change.
            if t.is_file() && m.len() == 0 && p.file_name().is_some_and(|n| n == ".lock") {
                continue;
            }
            let node = if t.is_symlink() {
                Node::Link(fs::read_link(&p).unwrap())
            } else if t.is_dir() {
                stack.push(p.clone());
                Node::Dir
            } else if t.is_file() {
                Node::File(fs::read(&p).unwrap())
            } else {
                Node::Special(m.mode() & libc::S_IFMT, m.rdev())
            };
            out.insert(p.strip_prefix(root).unwrap().to_path_buf(), node);
        }
    }
    out
}

/// A non-regular thing to put where klog expects a file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Fifo,
    Socket,
    /// A symlink to `/dev/null` (a device reached by name).
    DevNull,
    /// A symlink to `/dev/zero` (a device that never ends).
    DevZero,
    /// A character device node made with mknod (1, 3), where the system lets us.
    CharDevice,
    Dir,
    /// A symlink to itself: `stat` fails with ELOOP (Java's `File.isFile` is false).
    SymlinkLoop,
}

const KINDS: [Kind; 7] =
    [Kind::Fifo, Kind::Socket, Kind::DevNull, Kind::DevZero, Kind::CharDevice, Kind::Dir, Kind::SymlinkLoop];

/// Replace whatever is at `path` with `kind`; false when this system cannot make it.
fn plant(path: &Path, kind: Kind) -> bool {
    match fs::symlink_metadata(path) {
        Ok(m) if m.is_dir() => fs::remove_dir_all(path).unwrap(),
        Ok(_) => fs::remove_file(path).unwrap(),
        Err(_) => {}
    }
    let c = std::ffi::CString::new(path.to_str().unwrap()).unwrap();
    match kind {
        // SAFETY: a valid NUL-terminated path; mkfifo only creates a name.
        Kind::Fifo => assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o644) }, 0, "mkfifo {}", path.display()),
        Kind::Socket => drop(std::os::unix::net::UnixListener::bind(path).expect("bind a unix socket")),
        Kind::DevNull => std::os::unix::fs::symlink("/dev/null", path).unwrap(),
        Kind::DevZero => std::os::unix::fs::symlink("/dev/zero", path).unwrap(),
        Kind::CharDevice => {
            // SAFETY: a valid NUL-terminated path; mknod only creates a name (needs root).
            let rc = unsafe { libc::mknod(c.as_ptr(), libc::S_IFCHR | 0o644, libc::makedev(1, 3)) };
            if rc != 0 {
                return false;
            }
        }
        Kind::Dir => fs::create_dir(path).unwrap(),
        Kind::SymlinkLoop => std::os::unix::fs::symlink(path.file_name().unwrap(), path).unwrap(),
    }
    true
}

/// A lab: a temp dir holding log dirs and the private `tmp` the commands get as `TMPDIR`.
fn lab_with(dirs: &[(&str, &Path)]) -> tempfile::TempDir {
    let lab = tempfile::tempdir().unwrap();
    fs::create_dir(lab.path().join("tmp")).unwrap();
    for (name, from) in dirs {
        copy_dir(from, &lab.path().join(name));
    }
    lab
}

/// A running klog leader `k` (one partition, demo-0, three records), made once per test.
fn klog_made(root: &Path) -> PathBuf {
    let k = root.join("k");
    ok(&["create", s(&k), "--replica-id", "1"]);
    ok(&["elect", s(&k)]);
    ok(&["append", s(&k), "m1", "m2", "m3", "--timestamp", "1000"]);
    k
}

/// A copy of a broker-written log dir, if `../shared/kafka-real` is there.
fn real(root: &Path, name: &str) -> Option<PathBuf> {
    let from = kafka_real()?.join(name);
    let to = root.join(name);
    copy_dir(&from, &to);
    // The shared copy is read-only; a lab copy is writable like a real data dir.
    let status = Command::new("chmod").arg("-R").arg("u+w").arg(&to).status().unwrap();
    assert!(status.success());
    Some(to)
}

/// What a case expects klog to say.
#[derive(Debug, Clone, Copy)]
enum Says {
    /// Exit 2 with exactly one stderr line, `klog: error: ...`, naming the path.
    Refusal,
    /// `check --json`: a finding on the path with a numeric position.
    Finding,
    /// `dump --json`: a problem on the path with a numeric position.
    Problem,
    /// Nothing about the path (klog never reads it for this command).
    Nothing,
}

struct Case {
    label: String,
    args: Vec<String>,
    code: i32,
    says: Says,
    /// The path (relative to the lab) the message names.
    path: String,
}

fn case(label: impl Into<String>, args: &[&str], code: i32, says: Says, path: &str) -> Case {
    Case { label: label.into(), args: args.iter().map(|a| a.to_string()).collect(), code, says, path: path.into() }
}

/// Run `case` in `lab`, asserting its code, its message and an unchanged lab.
fn assert_case(lab: &Path, c: &Case) {
    let before = tree_of(lab);
    let args: Vec<&str> = c.args.iter().map(String::as_str).collect();
    let r = run(lab, &args);
    let show = || format!("{}: klog {:?} exit {}\nstdout: {}\nstderr: {}", c.label, c.args, r.code, r.out, r.err);
    assert_eq!(r.code, c.code, "{}", show());
    match c.says {
        Says::Refusal => {
            assert_eq!(r.err.lines().count(), 1, "{}", show());
            assert!(r.err.starts_with("klog: error: ") && r.err.contains(&c.path), "{}", show());
            // Refused for the case's own reason, not by the consent gate (broker copies get
            // CONSENT, so their refusals come from what is planted, and leave no backup).
            assert!(!r.err.contains("a log dir klog did not make"), "{}", show());
        }
        Says::Finding | Says::Problem => {
            let kind = if matches!(c.says, Says::Finding) { "finding" } else { "problem" };
            let lines = json_lines(&r.out);
            let hit = lines.iter().find(|v| v["type"] == kind && v["path"] == c.path.as_str());
            let hit = hit.unwrap_or_else(|| panic!("no {kind} on {}\n{}", c.path, show()));
            assert!(hit["position"].is_u64(), "{kind} without a position as data: {hit}\n{}", show());
            assert!(!hit["what"].as_str().unwrap().is_empty());
            // Every finding of the command has its place as data.
            for v in lines.iter().filter(|v| v["type"] == "finding" || v["type"] == "problem") {
                assert!(v["position"].is_u64(), "{v}\n{}", show());
            }
        }
        Says::Nothing => {}
    }
    assert_eq!(tree_of(lab), before, "{} changed the lab (log dirs or TMPDIR)", show());
}

/// The names klog reads in a klog-made log dir `k` holding `demo-0`.
const KLOG_PLACES: [&str; 12] = [
    "k/meta.properties",
    "k/replication-offset-checkpoint",
    "k/recovery-point-offset-checkpoint",
    "k/log-start-offset-checkpoint",
    "k/klog-state.json",
    "k/demo-0/partition.metadata",
    "k/demo-0/leader-epoch-checkpoint",
    "k/demo-0/00000000000000000000.log",
    "k/demo-0/00000000000000000000.index",
    "k/demo-0/00000000000000000000.timeindex",
    "k/demo-0/00000000000000000009.snapshot",
    "k/demo-0/00000000000000000000.txnindex",
];

#[test]
fn every_non_regular_kind_in_every_place_klog_reads_is_a_finding_or_a_refusal_never_a_hang() {
    let template = tempfile::tempdir().unwrap();
    let k = klog_made(template.path());
    let mut ran = 0;
    for kind in KINDS {
        for place in KLOG_PLACES {
            let lab = lab_with(&[("k", &k)]);
            if !plant(&lab.path().join(place), kind) {
                continue;
            }
            let label = format!("{kind:?} at {place}");
            for c in [
                case(&label, &["check", "k", "--json"], 1, Says::Finding, place),
                case(&label, &["dump", "k", "--json", "--limit", "1"], 0, Says::Problem, place),
                case(&label, &["append", "k", "m4"], 2, Says::Refusal, place),
            ] {
                assert_case(lab.path(), &c);
                ran += 1;
            }
        }
        // `.lock` is read by no reader; a writer refuses it without waiting or following it.
        let lab = lab_with(&[("k", &k)]);
        if plant(&lab.path().join("k/.lock"), kind) {
            assert_case(lab.path(), &case(format!("{kind:?} .lock"), &["check", "k"], 0, Says::Nothing, ""));
            assert_case(lab.path(), &case(format!("{kind:?} .lock"), &["append", "k", "m4"], 2, Says::Refusal, "k"));
            ran += 2;
        }
    }
    assert!(ran >= 5 * 12 * 3, "only {ran} cases ran");
}

/// `klog txn` opens only regular files, as `check` does (issue 46, point 4): a FIFO named
/// `<offset>.txnindex` once made it wait for a writer for ever. Every non-regular kind in every
/// place it reads, in the single-partition and the data-dir form, is a finding on that path
/// (exit 1), returned at once, and nothing changes.
#[test]
fn txn_opens_only_regular_files_every_non_regular_name_is_a_finding_never_a_hang() {
    let template = tempfile::tempdir().unwrap();
    let k = klog_made(template.path());
    // A second partition: `txn k` is then the data-dir form.
    ok(&["create", s(&k), "--replica-id", "1", "--topic", "other"]);
    let mut ran = 0;
    for kind in KINDS {
        for place in KLOG_PLACES {
            let lab = lab_with(&[("k", &k)]);
            if !plant(&lab.path().join(place), kind) {
                continue;
            }
            let forms: [&[&str]; 3] = [
                &["txn", "k", "--json", "--partition", "demo-0"],
                &["txn", "k/demo-0", "--json"],
                &["txn", "k", "--json"],
            ];
            for args in forms {
                let before = tree_of(lab.path());
                let r = run(lab.path(), args);
                let show = || format!("{kind:?} at {place}: klog {args:?} exit {}\n{}\n{}", r.code, r.out, r.err);
                assert_eq!(r.code, 1, "{}", show());
                let lines = json_lines(&r.out);
                let named = lines.iter().flat_map(|l| l["findings"].as_array().cloned().unwrap_or_default()).any(|f| {
                    f["path"] == place && f["position"].is_u64() && !f["what"].as_str().unwrap_or("").is_empty()
                });
                assert!(named, "no finding on {place}\n{}", show());
                assert_eq!(tree_of(lab.path()), before, "{}", show());
                ran += 1;
            }
        }
    }
    assert!(ran >= 5 * 12 * 3, "only {ran} cases ran");
}

#[test]
fn every_command_that_reads_a_replica_returns_on_a_fifo_index_and_a_fifo_checkpoint() {
    let template = tempfile::tempdir().unwrap();
    let k = klog_made(template.path());
    let f = template.path().join("f");
    ok(&["create", s(&f), "--replica-id", "2"]);
    for place in ["k/demo-0/00000000000000000000.index", "k/replication-offset-checkpoint"] {
        let lab = lab_with(&[("k", &k), ("f", &f)]);
        assert!(plant(&lab.path().join(place), Kind::Fifo));
        let refused = |args: &[&str]| case(place, args, 2, Says::Refusal, place);
        for c in [
            refused(&["elect", "k"]),
            refused(&["flush", "k"]),
            refused(&["stop", "k"]),
            refused(&["crash", "k", "--torn-bytes", "3"]),
            refused(&["recover", "k"]),
            refused(&["fetch", "--leader", "k", "f"]),
            refused(&["recover", "f", "--leader", "k"]),
            case(place, &["diff", "k", "f"], 0, Says::Nothing, ""),
            case(place, &["draw", "k", "f"], 0, Says::Nothing, ""),
        ] {
            assert_case(lab.path(), &c);
        }
        // A dry run reads only; whatever it decides, it returns and changes nothing.
        let before = tree_of(lab.path());
        let r = run(lab.path(), &["recover", "k", "--dry-run"]);
        assert!(r.code == 0 || r.code == 2, "{}", r.err);
        assert_eq!(tree_of(lab.path()), before);
    }
    // `dump FILE` of a FIFO named like each kind of file klog dumps.
    let lab = lab_with(&[("k", &k)]);
    for name in ["00000000000000000000.log", "00000000000000000000.index", "00000000000000000005.snapshot"] {
        let place = format!("k/demo-0/{name}");
        assert!(plant(&lab.path().join(&place), Kind::Fifo));
        assert_case(lab.path(), &case(&place, &["dump", &place], 2, Says::Refusal, &place));
    }
    let place = "k/demo-0/leader-epoch-checkpoint";
    assert!(plant(&lab.path().join(place), Kind::Fifo));
    assert_case(lab.path(), &case(place, &["dump", place], 2, Says::Refusal, place));
}

#[test]
fn non_regular_files_in_copies_of_real_broker_dirs_are_findings_or_refusals() {
    let template = tempfile::tempdir().unwrap();
    let Some(zk) = real(template.path(), "zk-broker-2020") else { return };
    let Some(kraft) = real(template.path(), "kraft-broker-2026") else { return };
    let places = [
        "zk-broker-2020/meta.properties",
        "zk-broker-2020/replication-offset-checkpoint",
        "zk-broker-2020/recovery-point-offset-checkpoint",
        "zk-broker-2020/log-start-offset-checkpoint",
        "zk-broker-2020/first_topic-0/leader-epoch-checkpoint",
        "zk-broker-2020/first_topic-0/00000000000000000000.log",
        "zk-broker-2020/first_topic-0/00000000000000000000.index",
        "zk-broker-2020/first_topic-0/00000000000000000000.timeindex",
        "zk-broker-2020/first_topic-0/00000000000000000011.snapshot",
    ];
    let mut ran = 0;
    for kind in [Kind::Fifo, Kind::Socket, Kind::DevZero, Kind::Dir, Kind::SymlinkLoop] {
        for place in places {
            let lab = lab_with(&[("zk-broker-2020", &zk)]);
            assert!(plant(&lab.path().join(place), kind));
            let label = format!("{kind:?} at {place}");
            let p = ["--partition", "first_topic-0"];
            for c in [
                case(&label, &["check", "zk-broker-2020", p[0], p[1], "--json"], 1, Says::Finding, place),
                case(
                    &label,
                    &["dump", "zk-broker-2020", p[0], p[1], "--json", "--limit", "1"],
                    0,
                    Says::Problem,
                    place,
                ),
                case(&label, &[CONSENT, "elect", "zk-broker-2020", p[0], p[1]], 2, Says::Refusal, place),
            ] {
                assert_case(lab.path(), &c);
                ran += 1;
            }
        }
        // KRaft: `partition.metadata` is read; `quorum-state` is Raft's, which klog never opens.
        let lab = lab_with(&[("kraft", &kraft)]);
        let p = ["--partition", "__cluster_metadata-0"];
        let metadata = "kraft/__cluster_metadata-0/partition.metadata";
        assert!(plant(&lab.path().join(metadata), kind));
        assert_case(lab.path(), &case(metadata, &["check", "kraft", p[0], p[1], "--json"], 1, Says::Finding, metadata));
        let quorum = "kraft/__cluster_metadata-0/quorum-state";
        let lab = lab_with(&[("kraft", &kraft)]);
        assert!(plant(&lab.path().join(quorum), kind));
        assert_case(lab.path(), &case(quorum, &["check", "kraft", p[0], p[1]], 0, Says::Nothing, ""));
        ran += 2;
    }
    // The data-dir check reads meta.properties once for the whole dir: a finding of the dir;
    // the data-dir dump shows it as a problem line and goes on (a symlink loop as a FIFO).
    for kind in [Kind::Fifo, Kind::SymlinkLoop] {
        let lab = lab_with(&[("zk-broker-2020", &zk)]);
        let meta = "zk-broker-2020/meta.properties";
        assert!(plant(&lab.path().join(meta), kind));
        let r = run(lab.path(), &["check", "zk-broker-2020"]);
        assert_eq!(r.code, 1, "{kind:?}: {}{}", r.out, r.err);
        assert!(r.out.contains(&format!("finding {meta}")), "{kind:?}: {}", r.out);
        let r = run(lab.path(), &["dump", "zk-broker-2020"]);
        assert_eq!(r.code, 0, "{kind:?}: {}{}", r.out, r.err);
        assert!(r.out.starts_with(&format!("problem {meta} (position 0): is a")), "{kind:?}: {}", r.out);
        assert!(r.out.contains("first_topic-0"), "{kind:?}: the dump goes on: {}", r.out);
        assert_case(
            lab.path(),
            &case(format!("{kind:?} {meta}"), &["dump", "zk-broker-2020", "--json"], 0, Says::Problem, meta),
        );
        // a name like a segment's that is no file: a finding of the data-dir check
        let lab = lab_with(&[("zk-broker-2020", &zk)]);
        let segment = "zk-broker-2020/first_topic-0/00000000000000000099.log";
        assert!(plant(&lab.path().join(segment), kind));
        let r = run(lab.path(), &["check", "zk-broker-2020"]);
        assert_eq!(r.code, 1, "{kind:?}: {}{}", r.out, r.err);
        assert!(r.out.contains(&format!("finding {segment} at position 0: is a")), "{kind:?}: {}", r.out);
    }
    assert!(ran >= 5 * 9 * 3);
}

#[test]
fn a_partition_is_a_name_never_a_path() {
    let template = tempfile::tempdir().unwrap();
    let k = klog_made(template.path());
    let lab = lab_with(&[("k", &k), ("B", &k)]);
    let root = lab.path();
    let abs = root.join("B/demo-0");
    let long = format!("{}-0", "t".repeat(250));
    let names = ["../B/demo-0", abs.to_str().unwrap(), "B/demo-0", "..-0", ".-0", "de mo-0", "demo", &long, "demo-x"];
    for name in names {
        for args in [
            vec!["append", "k", "--partition", name, "x"],
            vec!["elect", "k", "--partition", name],
            vec!["dump", "k", "--partition", name],
            vec!["check", "k", "--partition", name],
            vec!["draw", "k", "--partition", name],
        ] {
            assert_case(root, &Case { path: "--partition".into(), ..case(name, &args, 2, Says::Refusal, "") });
        }
    }
    // A checkpoint line naming a path is a malformed line: a finding with its line, a refusal.
    let lab = lab_with(&[("k", &k)]);
    let hw = "k/replication-offset-checkpoint";
    fs::write(lab.path().join(hw), "0\n2\ndemo 0 3\n../B/demo 0 3\n").unwrap();
    assert_case(lab.path(), &case("path in a checkpoint", &["check", "k", "--json"], 1, Says::Finding, hw));
    let r = run(lab.path(), &["check", "k", "--json"]);
    let f = json_lines(&r.out).into_iter().find(|v| v["type"] == "finding").unwrap();
    assert_eq!((f["line"].as_u64(), f["position"].as_u64()), (Some(4), Some(13)), "{f}");
    assert_case(lab.path(), &case("path in a checkpoint", &["append", "k", "x"], 2, Says::Refusal, hw));
}

#[test]
fn writes_never_follow_a_symlink_out_of_the_log_dir() {
    let template = tempfile::tempdir().unwrap();
    let k = klog_made(template.path());
    // A dangling `.lock` symlink: never followed, nothing created where it points.
    let lab = lab_with(&[("k", &k)]);
    fs::remove_file(lab.path().join("k/.lock")).unwrap();
    std::os::unix::fs::symlink("../outside/lock", lab.path().join("k/.lock")).unwrap();
    for args in [vec!["append", "k", "x"], vec!["elect", "k"], vec!["flush", "k"], vec!["stop", "k"]] {
        assert_case(lab.path(), &case("dangling .lock", &args, 2, Says::Refusal, "k/.lock"));
    }
    assert_case(lab.path(), &case("dangling .lock", &["check", "k"], 0, Says::Nothing, ""));
    assert!(!lab.path().join("outside").exists());
    // A `.lock` symlink to a file outside: refused, the file untouched (the tree compares it).
    let lab = lab_with(&[("k", &k)]);
    fs::write(lab.path().join("precious"), b"keep").unwrap();
    fs::remove_file(lab.path().join("k/.lock")).unwrap();
    std::os::unix::fs::symlink("../precious", lab.path().join("k/.lock")).unwrap();
    assert_case(lab.path(), &case(".lock to a file", &["append", "k", "x"], 2, Says::Refusal, "k/.lock"));
    // A symlinked partition dir: read through (as Kafka does), never written through.
    let lab = lab_with(&[("k", &k)]);
    fs::rename(lab.path().join("k/demo-0"), lab.path().join("elsewhere-0")).unwrap();
    std::os::unix::fs::symlink("../elsewhere-0", lab.path().join("k/demo-0")).unwrap();
    let r = run(lab.path(), &["dump", "k", "--json"]);
    assert_eq!(r.code, 0, "{}", r.err);
    assert_eq!(json_lines(&r.out).iter().filter(|v| v["type"] == "record").count(), 3, "{}", r.out);
    assert_case(lab.path(), &case("symlinked partition dir", &["check", "k"], 0, Says::Nothing, ""));
    for args in [vec!["append", "k", "x"], vec!["elect", "k"], vec!["crash", "k"], vec!["stop", "k"]] {
        assert_case(lab.path(), &case("symlinked partition dir", &args, 2, Says::Refusal, "k/demo-0"));
    }
    let (_, err) = code(&["append", s(&lab.path().join("k")), "x"], 2);
    assert!(err.contains("symlink"), "{err}");
    // The same in a copy of a broker dir.
    let Some(zk) = real(template.path(), "zk-broker-2020") else { return };
    let lab = lab_with(&[("zk", &zk)]);
    fs::rename(lab.path().join("zk/first_topic-0"), lab.path().join("moved-0")).unwrap();
    std::os::unix::fs::symlink("../moved-0", lab.path().join("zk/first_topic-0")).unwrap();
    let p = ["--partition", "first_topic-0"];
    assert_case(lab.path(), &case("broker symlink", &["check", "zk", p[0], p[1]], 0, Says::Nothing, ""));
    assert_case(
        lab.path(),
        &case("broker symlink", &[CONSENT, "elect", "zk", p[0], p[1]], 2, Says::Refusal, "zk/first_topic-0"),
    );
    let lab = lab_with(&[("zk", &zk)]);
    std::os::unix::fs::symlink("/nonexistent/lock", lab.path().join("zk/.lock")).unwrap();
    let c = case("broker .lock", &[CONSENT, "elect", "zk", p[0], p[1]], 2, Says::Refusal, "zk/.lock");
    assert_case(lab.path(), &c);
}

/// `meta.properties` texts that `java.util.Properties.load` reads as node.id / broker.id 1.
const VALID_PROPERTIES: [&[u8]; 9] = [
    b"version=1\nnode.id=1\ncluster.id=c\n",
    b"version 1\nnode.id 1\ncluster.id c\n",
    b"version:1\nnode.id:1\ncluster.id:c\n",
    b"  version = 1\n\tnode.id\t:\t1\n\x0ccluster.id c\n",
    b"# comment\n! other comment\nversion=1\nnode.\\u0069d=\\u0031\ncluster.id=c\n",
    b"#caf\xe9 \xff\nversion=1\nnode.id=1\ncluster.id=caf\xe9\n",
    b"version=1\r\nnode.id=\\\n    1\r\ncluster.id=c",
    b"version=1\rnode.id=1\rcluster.id=c\r",
    b"version=1\nnode.id=7\nnode.id=1\ncluster.id=c\\\n",
];

#[test]
fn meta_properties_is_read_as_java_reads_it() {
    let template = tempfile::tempdir().unwrap();
    let k = klog_made(template.path());
    let zk = real(template.path(), "zk-broker-2021");
    for (i, text) in VALID_PROPERTIES.iter().enumerate() {
        let lab = lab_with(&[("k", &k)]);
        fs::write(lab.path().join("k/meta.properties"), text).unwrap();
        assert_case(lab.path(), &case(format!("valid {i}"), &["check", "k"], 0, Says::Nothing, ""));
        let r = run(lab.path(), &["dump", "k", "--json", "--limit", "0"]);
        let replica = json_lines(&r.out).into_iter().find(|v| v["type"] == "replica").unwrap();
        assert_eq!(replica["replica_id"], 1, "valid {i}: {}", String::from_utf8_lossy(text));
        // The same on a copy of a ZooKeeper-mode broker dir (broker.id, version 0).
        if let Some(zk) = &zk {
            let lab = lab_with(&[("zk", zk)]);
            let text = String::from_utf8_lossy(text).replace("node.", "broker.").replace("version=1", "version=0");
            let text = text.replace("version 1", "version 0").replace("version:1", "version:0").replace("= 1", "= 0");
            fs::write(lab.path().join("zk/meta.properties"), text.as_bytes()).unwrap();
            let p = ["--partition", "subhash-0"];
            assert_case(lab.path(), &case(format!("zk valid {i}"), &["check", "zk", p[0], p[1]], 0, Says::Nothing, ""));
        }
    }
    // The one thing Java refuses: a \u without four hex digits. Its place is data.
    let lab = lab_with(&[("k", &k)]);
    let meta = "k/meta.properties";
    fs::write(lab.path().join(meta), b"version=1\nnode.id=1\ncluster.id=\\u00zz\n").unwrap();
    assert_case(lab.path(), &case("bad escape", &["check", "k", "--json"], 1, Says::Finding, meta));
    assert_case(lab.path(), &case("bad escape", &["dump", "k", "--json"], 0, Says::Problem, meta));
    assert_case(lab.path(), &case("bad escape", &["append", "k", "x"], 2, Says::Refusal, meta));
    let r = run(lab.path(), &["check", "k", "--json"]);
    let f = json_lines(&r.out).into_iter().find(|v| v["type"] == "finding").unwrap();
    assert_eq!(f["position"], 31, "the byte of the backslash: {f}");
    if let Some(zk) = &zk {
        let lab = lab_with(&[("zk", zk)]);
        let meta = "zk/meta.properties";
        fs::write(lab.path().join(meta), b"version=0\nbroker.id=\\u0\n").unwrap();
        let p = ["--partition", "subhash-0"];
        assert_case(lab.path(), &case("zk bad escape", &["check", "zk", p[0], p[1], "--json"], 1, Says::Finding, meta));
        let c = case("zk bad escape", &[CONSENT, "elect", "zk", p[0], p[1]], 2, Says::Refusal, meta);
        assert_case(lab.path(), &c);
        // A directory where meta.properties belongs: the rest of the dir is still read.
        let lab = lab_with(&[("zk", zk)]);
        fs::remove_file(lab.path().join(meta)).unwrap();
        fs::create_dir(lab.path().join(meta)).unwrap();
        assert_case(lab.path(), &case("zk dir", &["check", "zk", p[0], p[1], "--json"], 1, Says::Finding, meta));
        let r = run(lab.path(), &["dump", "zk", p[0], p[1], "--json"]);
        assert!(json_lines(&r.out).iter().filter(|v| v["type"] == "record").count() > 0, "{}", r.out);
    }
}

#[test]
fn findings_carry_their_place_and_a_gap_between_segments_is_a_note_unless_the_topic_is_known_uncompacted() {
    let template = tempfile::tempdir().unwrap();
    let k = template.path().join("k");
    ok(&["create", s(&k), "--replica-id", "1", "--segment-bytes", "100"]);
    ok(&["elect", s(&k)]);
    for m in ["m1", "m2", "m3", "m4"] {
        ok(&["append", s(&k), m, "--timestamp", "1000"]);
    }
    let segments: Vec<String> = {
        let mut v: Vec<String> = fs::read_dir(k.join("demo-0"))
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .filter(|n| n.ends_with(".log"))
            .collect();
        v.sort();
        v
    };
    assert!(segments.len() >= 3, "{segments:?}");
    let middle = segments[1].trim_end_matches(".log").to_string();
    let drop_middle = |dir: &Path| {
        for ext in ["log", "index", "timeindex"] {
            let _ = fs::remove_file(dir.join(format!("demo-0/{middle}.{ext}")));
        }
    };
    // klog made the topic (its state holds the config; klog never compacts): a finding.
    let lab = lab_with(&[("k", &k)]);
    drop_middle(&lab.path().join("k"));
    let gap_at = format!("k/demo-0/{}", segments[2]);
    assert_case(lab.path(), &case("gap, delete policy", &["check", "k", "--json"], 1, Says::Finding, &gap_at));
    // A partial copy (nothing says the topic is not compacted): a note only.
    let lab = lab_with(&[]);
    fs::create_dir(lab.path().join("p")).unwrap();
    copy_dir(&k.join("demo-0"), &lab.path().join("p/demo-0"));
    drop_middle(&lab.path().join("p"));
    let before = tree_of(lab.path());
    let r = run(lab.path(), &["check", "p"]);
    assert_eq!(r.code, 0, "{}{}", r.out, r.err);
    assert!(r.out.contains("note p/demo-0/") && r.out.contains("compaction leaves such gaps"), "{}", r.out);
    assert_eq!(tree_of(lab.path()), before);
    // Findings that used to carry their place only in the message: a snapshot above the log
    // end, a torn tail, a bad checkpoint line.
    let lab = lab_with(&[("k", &k)]);
    fs::write(lab.path().join("k/demo-0/00000000000000000099.snapshot"), b"").unwrap();
    let snap = "k/demo-0/00000000000000000099.snapshot";
    assert_case(lab.path(), &case("snapshot", &["check", "k", "--json"], 1, Says::Finding, snap));
    let lab = lab_with(&[("k", &k)]);
    fs::write(lab.path().join("k/recovery-point-offset-checkpoint"), "0\n1\ndemo 0\n").unwrap();
    let rp = "k/recovery-point-offset-checkpoint";
    assert_case(lab.path(), &case("short line", &["check", "k", "--json"], 1, Says::Finding, rp));
    let r = run(lab.path(), &["check", "k", "--json"]);
    let f = json_lines(&r.out).into_iter().find(|v| v["type"] == "finding" && v["path"] == rp).unwrap();
    assert_eq!((f["line"].as_u64(), f["position"].as_u64()), (Some(3), Some(4)), "{f}");
    assert_case(lab.path(), &case("short line", &["dump", "k", "--json"], 0, Says::Problem, rp));
}

#[test]
fn a_meta_properties_without_a_node_id_is_a_finding_as_kafka_refuses_to_start_on_it() {
    let template = tempfile::tempdir().unwrap();
    let d = template.path().join("d");
    ok(&["create", s(&d), "--topic", "t", "--partitions", "2", "--replica-id", "1"]);
    let meta = "d/meta.properties";
    // Kafka 4.4's KafkaRaftServer: "Error: node ID not found in <dir>" for each of these
    for (label, text) in [
        ("version 0, no broker.id or cluster.id", "version=0\n"),
        ("no version, no keys", ""),
        ("version 0 with node.id only (read as broker.id in version 0)", "version=0\nnode.id=1\n"),
        ("a comment only", "# written by hand\n"),
    ] {
        let lab = lab_with(&[("d", &d)]);
        fs::write(lab.path().join(meta), text).unwrap();
        assert_case(lab.path(), &case(label, &["check", "d", "--json"], 1, Says::Finding, meta));
        let r = run(lab.path(), &["check", "d"]);
        assert_eq!(r.code, 1, "{label}: {}{}", r.out, r.err);
        assert!(r.out.contains(&format!("finding {meta} at position 0: no broker.id")), "{label}: {}", r.out);
        assert!(r.out.contains("Kafka 4.4 refuses to start on this log dir (\"node ID not found\")"), "{}", r.out);
        assert_eq!(r.out.contains("(nor a cluster.id)"), !text.contains("cluster.id"), "{}", r.out);
    }
    // a ZooKeeper-era file with its broker.id and no cluster.id (before 0.10.1) is not one
    let lab = lab_with(&[("d", &d)]);
    fs::write(lab.path().join(meta), "version=0\nbroker.id=1\n").unwrap();
    assert_case(lab.path(), &case("zk era", &["check", "d"], 0, Says::Nothing, ""));
    // no meta.properties at all is a partial copy, not a finding
    let lab = lab_with(&[("d", &d)]);
    fs::remove_file(lab.path().join(meta)).unwrap();
    let r = run(lab.path(), &["check", "d"]);
    assert_eq!(r.code, 0, "{}{}", r.out, r.err);
    assert!(!r.out.contains("finding"), "{}", r.out);
}

/// #46: a live broker cuts segments while klog reads them (recovery, retention, a follower's
/// truncation). `dump` of a segment another process truncates mid-read ends with an exit code
/// (0, 1 for findings, 2 with the error "changed while klog read it"), never a signal: before the
/// map guard it died of SIGBUS (exit 135) in some rounds. Many rounds, cut at many moments.
#[test]
fn a_segment_cut_by_another_process_while_dump_reads_it_is_an_exit_code_never_a_signal() {
    use replica_lab::format::batch::{encode_batch, BatchSpec};
    let tmp = tempfile::tempdir().unwrap();
    let value = "v".repeat(200);
    let mut log = Vec::new();
    for i in 0..1_000i64 {
        let records: Vec<_> = (0..10).map(|_| crate::txn_logs::rec(&value, 1_700_000_000_000)).collect();
        log.extend(encode_batch(&BatchSpec::plain(i * 10, 0), &records));
    }
    let d = crate::txn_logs::broker_dir(tmp.path(), "b", &log, true);
    let segment = d.join("demo-0/00000000000000000000.log");
    let rounds = if crate::common::exhaustive() { 40 } else { 16 };
    let (mut changed, mut codes) = (0, std::collections::BTreeMap::new());
    for round in 0..rounds {
        std::fs::write(&segment, &log).unwrap();
        let child = std::process::Command::new(assert_cmd::cargo::cargo_bin("klog"))
            .env("NO_COLOR", "1")
            .args(["dump", s(&d), "--partition", "demo-0"])
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        std::thread::sleep(std::time::Duration::from_millis(2 * (round % 8) as u64));
        let cut = [0, 4096, log.len() as u64 / 3, log.len() as u64 / 2][round % 4];
        std::fs::OpenOptions::new().write(true).open(&segment).unwrap().set_len(cut).unwrap();
        let out = child.wait_with_output().unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        let code = out.status.code();
        assert!(matches!(code, Some(0..=2)), "round {round}: {:?} (a signal?): {stderr}", out.status);
        if code == Some(2) {
            assert!(stderr.contains("changed while klog read it") && stderr.lines().count() == 1, "{stderr}");
            changed += 1;
        }
        *codes.entry(code).or_insert(0) += 1;
    }
    eprintln!("{rounds} rounds: exit codes {codes:?}, {changed} said the file changed while read");
}

/// Issue 41, point 10: a name like a segment's that is no regular file (a symlink loop, a
/// FIFO) may hold records `diff` cannot read: it names it and exits 1 (not "identical"), as
/// `check` reports it as a finding; in both the one-partition and the data-dir form.
#[test]
fn diff_names_an_unreadable_segment_file_and_does_not_call_the_logs_identical() {
    let template = tempfile::tempdir().unwrap();
    let k = klog_made(template.path());
    for kind in [Kind::SymlinkLoop, Kind::Fifo] {
        let lab = lab_with(&[("k", &k), ("k2", &k)]);
        let segment = "k/demo-0/00000000000000000099.log";
        assert!(plant(&lab.path().join(segment), kind));
        let r = run(lab.path(), &["check", "k"]);
        assert_eq!(r.code, 1, "{kind:?}: check: {}{}", r.out, r.err);
        let r = run(lab.path(), &["diff", "k", "k2"]);
        assert_eq!(r.code, 1, "{kind:?}: {}{}", r.out, r.err);
        assert!(r.out.contains("unreadable segment in A") && r.out.contains("00000000000000000099.log"), "{}", r.out);
        assert!(!r.out.contains("identical up to"), "{}", r.out);
        let r = run(lab.path(), &["diff", "k2", "k", "--json"]);
        assert_eq!(r.code, 1, "{kind:?}: {}{}", r.out, r.err);
        assert!(r.out.contains("\"identical\":false") && r.out.contains("\"side\":\"b\""), "{}", r.out);
    }
    let Some(zk) = real(template.path(), "zk-broker-2020") else { return };
    let lab = lab_with(&[("zk", &zk), ("zk2", &zk)]);
    let segment = "zk/first_topic-0/00000000000000000099.log";
    assert!(plant(&lab.path().join(segment), Kind::SymlinkLoop));
    let r = run(lab.path(), &["diff", "zk", "zk2"]);
    assert_eq!(r.code, 1, "{}{}", r.out, r.err);
    assert!(r.out.contains("unreadable segment in A") && r.out.contains("00000000000000000099.log"), "{}", r.out);
}

/// A file no read can open: as root (whom file modes do not stop), a symlink to a procfs file
/// that refuses reads to everyone (`/proc/sys/vm/drop_caches` is write-only); otherwise a file
/// with no permission bits. Asserts the open fails.
fn make_unreadable(path: &Path) {
    let _ = fs::remove_file(path);
    // SAFETY: geteuid has no preconditions.
    if unsafe { libc::geteuid() } == 0 {
        std::os::unix::fs::symlink("/proc/sys/vm/drop_caches", path).unwrap();
    } else {
        fs::write(path, b"0\n0\n").unwrap();
        fs::set_permissions(path, std::os::unix::fs::PermissionsExt::from_mode(0o000)).unwrap();
    }
    let e = fs::File::open(path).expect_err("the file must not open for reading");
    assert_eq!(e.kind(), std::io::ErrorKind::PermissionDenied, "{e}");
}

/// An unreadable HW checkpoint or `meta.properties` is a finding for what it affects (every
/// partition's HW, the broker's identity), not a refusal of the whole dir, in check, txn, dump
/// and diff, each in its data-dir and single-partition form, as the README says (issue 46,
/// point 8). Before, each refused the dir: "open failed: Permission denied", exit 2.
#[test]
fn an_unreadable_checkpoint_or_meta_properties_is_a_finding_not_a_refusal_of_the_dir() {
    let template = tempfile::tempdir().unwrap();
    let k = klog_made(template.path());
    ok(&["create", s(&k), "--replica-id", "1", "--topic", "other"]);
    ok(&["stop", s(&k)]);
    for place in ["k/replication-offset-checkpoint", "k/meta.properties"] {
        let lab = lab_with(&[("k", &k), ("f", &k)]);
        make_unreadable(&lab.path().join(place));
        let forms: [(&[&str], bool); 8] = [
            (&["check", "k"], true),
            (&["check", "k", "--partition", "demo-0"], true),
            (&["txn", "k"], true),
            (&["txn", "k", "--partition", "demo-0"], true),
            (&["dump", "k"], true),
            (&["dump", "k", "--partition", "demo-0"], true),
            (&["diff", "k", "f"], false),
            (&["diff", "k", "f", "--partition", "demo-0"], false),
        ];
        for (args, says) in forms {
            let before = tree_of(lab.path());
            let r = run(lab.path(), args);
            let show = format!("{place}: klog {args:?} exit {}\n{}\n{}", r.code, r.out, r.err);
            assert!(r.code == 0 || r.code == 1, "{show}");
            assert!(r.err.is_empty(), "{show}");
            if says {
                assert!(r.out.contains(place) && r.out.contains("Permission denied"), "{show}");
            }
            assert_eq!(tree_of(lab.path()), before, "{show}");
        }
    }
}
