//! Consent for writes to a log dir klog did not make (a broker's dir, no klog-state.json), on
//! copies of the three real broker dirs: every mutating command refuses without
//! --allow-broker-dir-writes and changes no byte; with it, `klog restore` of the backups it
//! names brings back every byte and file list. Dry runs work against a broker's live lock.

use crate::common::{copy_dir, kafka_real, klog, tree};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

const P: &str = "__consumer_offsets-2";
const BROKERS: [&str; 3] = ["zk-broker-2020", "zk-broker-2021", "kraft-broker-2026"];

/// Every file and dir under `dir`, by path relative to it, with its bytes; but the log dir's
/// empty `.lock`, which a command that took the lock leaves, as a broker does (a lock file
/// removed by one command let two others lock two inodes at once).
fn rel_tree(dir: &Path) -> BTreeMap<PathBuf, Option<Vec<u8>>> {
    tree(dir)
        .into_iter()
        .map(|(p, b)| (p.strip_prefix(dir).unwrap().to_path_buf(), b))
        .filter(|(p, b)| !(p == Path::new(".lock") && b.as_deref().is_some_and(<[u8]>::is_empty)))
        .collect()
}

/// The names in `parent` (to see that no backup or stray file appeared beside the dirs).
fn names(parent: &Path) -> Vec<String> {
    let mut v: Vec<String> =
        std::fs::read_dir(parent).unwrap().map(|e| e.unwrap().file_name().to_string_lossy().into_owned()).collect();
    v.sort();
    v
}

/// Each mutating command form, on the follower copy `d` (and the leader copy `l`).
fn forms(d: &str, l: &str) -> Vec<Vec<String>> {
    let v = |a: &[&str]| a.iter().map(|s| s.to_string()).collect::<Vec<_>>();
    vec![
        v(&["create", d, "--topic", "klog-added"]),
        v(&["elect", d, "--partition", P]),
        v(&["alter-isr", d, "--partition", P]),
        v(&["append", d, "--partition", P, "m1"]),
        v(&["fetch", "--leader", l, d, "--partition", P]),
        v(&["flush", d, "--partition", P]),
        v(&["stop", d]),
        v(&["stop", d, "--partition", P]),
        v(&["crash", d]),
        v(&["crash", d, "--partition", P, "--hw", "0"]),
        v(&["recover", d, "--partition", P]),
        v(&["recover", d]),
        v(&["recover", d, "--leader", l, "--partition", P]),
    ]
}

/// Copies of a broker dir (`d`) and another (`l`, a leader) in a temp dir.
fn copies(real: &Path, broker: &str) -> (tempfile::TempDir, PathBuf, PathBuf) {
    let tmp = tempfile::tempdir().unwrap();
    let (d, l) = (tmp.path().join("d"), tmp.path().join("l"));
    copy_dir(&real.join(broker), &d);
    let other = BROKERS.iter().find(|b| **b != broker).unwrap();
    copy_dir(&real.join(other), &l);
    (tmp, d, l)
}

#[test]
fn every_mutating_command_refuses_a_broker_dir_without_consent_and_changes_no_byte() {
    let Some(real) = kafka_real() else { return };
    for broker in BROKERS {
        let (tmp, d, l) = copies(&real, broker);
        let (before_d, before_l, listing) = (rel_tree(&d), rel_tree(&l), names(tmp.path()));
        for args in forms(d.to_str().unwrap(), l.to_str().unwrap()) {
            let out = klog().args(&args).output().unwrap();
            let stderr = String::from_utf8_lossy(&out.stderr);
            assert_eq!(out.status.code(), Some(2), "{broker} {args:?}: {stderr}");
            assert!(stderr.contains("a log dir klog did not make"), "{broker} {args:?}: {stderr}");
            assert!(stderr.contains("--allow-broker-dir-writes") && stderr.contains("cp -a"), "{stderr}");
            assert_eq!(stderr.lines().count(), 1, "one line: {stderr}");
            assert!(rel_tree(&d) == before_d, "{broker} {args:?} changed the follower copy");
            // Consent is asked before the lock is taken: not even a lock file appears.
            assert!(!d.join(".lock").exists() && !l.join(".lock").exists(), "{broker} {args:?} made a .lock");
            assert!(rel_tree(&l) == before_l, "{broker} {args:?} changed the leader copy");
            assert_eq!(names(tmp.path()), listing, "{broker} {args:?} left something beside the dirs");
        }
    }
}

/// The backup dirs a run's stderr names, in the order named.
fn backups_named(stderr: &str) -> Vec<PathBuf> {
    stderr
        .lines()
        .filter_map(|l| l.split("`klog restore ").nth(1))
        .map(|rest| PathBuf::from(rest.split('`').next().unwrap()))
        .collect()
}

#[test]
fn with_consent_every_command_is_undone_byte_for_byte_by_klog_restore() {
    let Some(real) = kafka_real() else { return };
    for broker in BROKERS {
        let (tmp, d, l) = copies(&real, broker);
        let (before_d, before_l, listing) = (rel_tree(&d), rel_tree(&l), names(tmp.path()));
        let mut ran = 0;
        for args in forms(d.to_str().unwrap(), l.to_str().unwrap()) {
            let out = klog().arg("--allow-broker-dir-writes").args(&args).output().unwrap();
            let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
            let backups = backups_named(&stderr);
            if out.status.success() {
                ran += 1;
                // A command that changed something names its backups.
                let changed = rel_tree(&d) != before_d || rel_tree(&l) != before_l;
                assert!(!changed || !backups.is_empty(), "{broker} {args:?}: {stderr}");
            } else {
                assert!(backups.is_empty(), "{broker} {args:?} failed and still named a backup: {stderr}");
            }
            for b in &backups {
                assert!(b.parent() == Some(tmp.path()), "{b:?}: a backup lands beside the log dir, never in it");
                let out = klog().arg("restore").arg(b).output().unwrap();
                assert!(out.status.success(), "restore {b:?}: {}", String::from_utf8_lossy(&out.stderr));
                std::fs::remove_dir_all(b).unwrap();
            }
            assert!(rel_tree(&d) == before_d, "{broker} {args:?}: the follower copy is not back byte for byte");
            assert!(rel_tree(&l) == before_l, "{broker} {args:?}: the leader copy is not back byte for byte");
            assert_eq!(names(tmp.path()), listing, "{broker} {args:?}");
        }
        assert!(ran >= 9, "{broker}: only {ran} forms ran with consent");
    }
}

#[test]
fn a_chain_of_consented_commands_is_undone_newest_backup_first_and_each_needs_consent_again() {
    let Some(real) = kafka_real() else { return };
    let (tmp, d, _l) = copies(&real, "zk-broker-2021");
    let before = rel_tree(&d);
    let ds = d.to_str().unwrap();
    let mut backups = Vec::new();
    for args in [vec!["elect", ds, "--partition", P], vec!["append", ds, "--partition", P, "a", "b"], vec!["stop", ds]]
    {
        let out = klog().args(&args).output().unwrap();
        assert_eq!(out.status.code(), Some(2), "{args:?}: klog's state file there does not make the dir klog's");
        let out = klog().arg("--allow-broker-dir-writes").args(&args).output().unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(out.status.success(), "{args:?}: {stderr}");
        backups.extend(backups_named(&stderr));
    }
    assert_eq!(backups.len(), 3, "{backups:?}");
    assert_eq!(backups[2], tmp.path().join("d.klog-backup-3"));
    for b in backups.iter().rev() {
        klog().arg("restore").arg(b).assert().success();
    }
    assert!(rel_tree(&d) == before, "the chain is not undone byte for byte");
}

#[test]
fn crash_and_stop_of_a_whole_broker_dir_say_what_they_did_per_partition() {
    let Some(real) = kafka_real() else { return };
    let (_tmp, d, _l) = copies(&real, "zk-broker-2020");
    let partitions = std::fs::read_dir(&d).unwrap().filter(|e| e.as_ref().unwrap().path().is_dir()).count();
    assert_eq!(partitions, 54);
    // Started each time, so that every partition runs: the stop closes each, the crash loses
    // each one's volatile state.
    klog().args(["--allow-broker-dir-writes", "recover"]).arg(&d).assert().success();
    let out = klog().args(["--allow-broker-dir-writes", "stop"]).arg(&d).assert().success();
    let stdout = String::from_utf8_lossy(&out.get_output().stdout).into_owned();
    assert!(stdout.contains("stopped 54 partitions cleanly (.kafka_cleanshutdown written)"), "{stdout}");
    assert_eq!(stdout.lines().filter(|l| l.contains(": closed and flushed; LEO ")).count(), 54, "{stdout}");
    klog().args(["--allow-broker-dir-writes", "recover"]).arg(&d).assert().success();
    let out = klog().args(["--allow-broker-dir-writes", "crash"]).arg(&d).assert().success();
    let stdout = String::from_utf8_lossy(&out.get_output().stdout).into_owned();
    let lost = stdout.lines().filter(|l| l.contains(": was running: volatile state lost; LEO ")).count();
    assert_eq!(lost, 54, "{stdout}");
}

#[test]
fn a_klog_lab_needs_no_consent() {
    let lab = crate::common::Lab::new();
    let a = lab.create("a", 1, &[]);
    klog().arg("elect").arg(&a).assert().success();
    let out = klog().arg("append").arg(&a).arg("x").assert().success();
    assert!(!String::from_utf8_lossy(&out.get_output().stderr).contains("klog restore"), "no backup in a lab");
}

/// A process holding a log dir's lock; killed when dropped.
struct Holder(std::process::Child);

impl Drop for Holder {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// Hold `dir/.lock` as a broker does (a POSIX record lock), until the returned holder drops.
fn hold_lock(dir: &Path) -> Option<Holder> {
    use std::io::BufRead;
    let script = "import fcntl,sys,time\nf=open(sys.argv[1],'a')\nfcntl.lockf(f,fcntl.LOCK_EX)\nprint('held',flush=True)\ntime.sleep(600)";
    let mut child = std::process::Command::new("python3")
        .args(["-c", script])
        .arg(dir.join(".lock"))
        .stdout(std::process::Stdio::piped())
        .spawn()
        .ok()?;
    let mut line = String::new();
    std::io::BufReader::new(child.stdout.as_mut().unwrap()).read_line(&mut line).ok()?;
    let holder = Holder(child);
    (line.trim() == "held").then_some(holder)
}

#[test]
fn every_dry_run_form_works_against_a_live_brokers_lock_and_says_so_once() {
    let Some(real) = kafka_real() else { return };
    let (_tmp, d, l) = copies(&real, "zk-broker-2021");
    let Some(_broker) = hold_lock(&d) else {
        crate::common::missing_input("python3 with fcntl", "install python3");
        return;
    };
    let before = rel_tree(&d);
    let (ds, ls) = (d.to_str().unwrap(), l.to_str().unwrap());
    for args in [
        vec!["recover", ds, "--partition", P, "--dry-run"],
        vec!["recover", ds, "--dry-run"],
        // Two real brokers of different clusters: read together only when asked.
        vec!["recover", ds, "--leader", ls, "--partition", P, "--dry-run", "--allow-other-cluster"],
        vec!["recover", ds, "--leader", ls, "--dry-run", "--allow-other-cluster"],
        vec!["recover", ls, ds, "--partition", P, "--dry-run", "--allow-other-cluster"],
    ] {
        let out = klog().args(&args).output().unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        // The cluster view exits 1 when a partition needs attention.
        assert!(matches!(out.status.code(), Some(0 | 1)), "{args:?}: {stderr}");
        let warned = stderr.lines().filter(|l| l.contains("locked by another process (a running broker?)")).count();
        assert_eq!(warned, 1, "{args:?}: {stderr}");
        assert!(rel_tree(&d) == before, "{args:?} wrote");
    }
    // The run itself, even with consent, refuses while the broker holds the lock.
    let out = klog().args(["--allow-broker-dir-writes", "recover", ds, "--partition", P]).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("locked by another process"));
    assert!(rel_tree(&d) == before);
}

/// `recover F --leader L` with L a broker's dir: L takes the leadership klog assumes for it
/// (`replication::leader::assume_leadership`), its HW checkpoint and epoch cache as the broker
/// left them; with `--catch-up` the follower's first fetch carries that HW, and the second the
/// HW the follower's fetch moved.
#[test]
fn a_named_broker_leader_keeps_its_hw_and_epoch_cache_until_its_follower_fetches() {
    let Some(real) = kafka_real() else { return };
    const TP: &str = "first_topic-2";
    let run = |extra: &[&str]| {
        let tmp = tempfile::tempdir().unwrap();
        let (d, l) = (tmp.path().join("d"), tmp.path().join("l"));
        copy_dir(&real.join("zk-broker-2020"), &d);
        copy_dir(&real.join("zk-broker-2020"), &l);
        // Another broker of the same cluster, and a leader whose checkpointed HW lags its LEO 18.
        let meta = std::fs::read_to_string(d.join("meta.properties")).unwrap();
        std::fs::write(d.join("meta.properties"), meta.replace("broker.id=0", "broker.id=1")).unwrap();
        let hw = std::fs::read_to_string(l.join("replication-offset-checkpoint")).unwrap();
        assert!(hw.contains("\nfirst_topic 2 18\n"), "{hw}");
        std::fs::write(
            l.join("replication-offset-checkpoint"),
            hw.replace("\nfirst_topic 2 18\n", "\nfirst_topic 2 10\n"),
        )
        .unwrap();
        let cache = std::fs::read(l.join(TP).join("leader-epoch-checkpoint")).unwrap();
        let out = klog()
            .args(["--allow-broker-dir-writes", "recover", d.to_str().unwrap(), "--leader", l.to_str().unwrap()])
            .args(["--partition", TP])
            .args(extra)
            .assert()
            .success();
        let stdout = String::from_utf8_lossy(&out.get_output().stdout).into_owned();
        let hw_after = std::fs::read_to_string(l.join("replication-offset-checkpoint")).unwrap();
        assert_eq!(std::fs::read(l.join(TP).join("leader-epoch-checkpoint")).unwrap(), cache, "{stdout}");
        (stdout, hw_after.lines().any(|line| line == "first_topic 2 10"))
    };
    let (stdout, kept) = run(&[]);
    assert!(kept, "the named leader's HW stays 10: {stdout}");
    assert!(stdout.contains("leader:   LEO 18 HW 10"), "{stdout}");
    let (stdout, _) = run(&["--catch-up"]);
    assert!(stdout.contains("round 1: fetch at 18") && stdout.contains("(response carried HW 10)"), "{stdout}");
    assert!(stdout.contains("round 2: fetch at 18") && stdout.contains("(response carried HW 18)"), "{stdout}");
}

/// A consented `elect` on a copy of a broker dir: the copy and the backup it made (which holds
/// a blob: the epoch checkpoint's original bytes).
fn elected_copy() -> Option<(tempfile::TempDir, PathBuf, PathBuf)> {
    let real = kafka_real()?;
    let (tmp, d, _l) = copies(&real, "zk-broker-2021");
    klog().args(["--allow-broker-dir-writes", "elect"]).arg(&d).args(["--partition", P]).assert().success();
    let backup = tmp.path().join("d.klog-backup-1");
    assert!(std::fs::read_dir(backup.join("blobs")).unwrap().count() > 0, "the elect saved bytes");
    Some((tmp, d, backup))
}

/// #46: a restore acts on the dir beside the backup, never on the path in its manifest: after
/// moving a dir and its backup, another copy left at the old name is not touched.
#[test]
fn a_moved_backup_restores_the_dir_beside_it_and_never_the_path_in_its_manifest() {
    let Some((tmp, d, backup)) = elected_copy() else { return };
    let moved = tmp.path().join("moved");
    std::fs::rename(&d, &moved).unwrap();
    std::fs::rename(&backup, tmp.path().join("moved.klog-backup-1")).unwrap();
    // Another copy, changed the same way, left at the old name.
    copy_dir(&moved, &d);
    let at_old_name = rel_tree(&d);
    let out = klog().arg("restore").arg(tmp.path().join("moved.klog-backup-1")).assert().success();
    let stdout = String::from_utf8_lossy(&out.get_output().stdout).into_owned();
    assert!(stdout.contains("the backup was made of"), "{stdout}");
    assert!(rel_tree(&d) == at_old_name, "the copy at the manifest's path was changed");
    let real = kafka_real().unwrap();
    assert!(rel_tree(&moved) == rel_tree(&real.join("zk-broker-2021")), "the dir beside the backup is not back");
}

/// #46: a crafted backup beside a lab (a dir klog made, so never backed up) is refused, the
/// lab untouched; a backup not named `<dir>.klog-backup-N` needs the dir named.
#[test]
fn a_crafted_backup_beside_a_lab_is_refused_and_writes_nothing() {
    let Some((tmp, _d, backup)) = elected_copy() else { return };
    let lab = crate::common::Lab::new();
    let a = lab.create("a", 1, &[]);
    klog().arg("elect").arg(&a).assert().success();
    klog().arg("append").arg(&a).args(["m1", "m2"]).assert().success();
    let before = rel_tree(&a);
    let beside = a.with_file_name("a.klog-backup-1");
    copy_dir(&backup, &beside);
    let out = klog().arg("restore").arg(&beside).output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("a dir klog made") && stderr.lines().count() == 1, "{stderr}");
    assert!(rel_tree(&a) == before, "the lab was changed");
    // Named explicitly, a lab is refused too.
    klog().arg("restore").arg(&backup).arg(&a).assert().code(2);
    assert!(rel_tree(&a) == before, "the lab was changed");
    // A backup renamed to something else needs the log dir named.
    let renamed = tmp.path().join("saved");
    std::fs::rename(&backup, &renamed).unwrap();
    let out = klog().arg("restore").arg(&renamed).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("klog restore BACKUP LOG_DIR"));
    klog().arg("restore").arg(&renamed).arg(tmp.path().join("d")).assert().success();
}

/// #46: a damaged backup (a blob cut short, emptied or changed; a manifest line changed) is
/// refused with one line naming the file and position, and nothing is written.
#[test]
fn a_damaged_backup_is_refused_with_nothing_written() {
    let Some((_tmp, d, backup)) = elected_copy() else { return };
    let after = rel_tree(&d);
    let blob = std::fs::read_dir(backup.join("blobs")).unwrap().next().unwrap().unwrap().path();
    let original = std::fs::read(&blob).unwrap();
    let manifest = std::fs::read(backup.join("manifest")).unwrap();
    let mut changed = original.clone();
    changed[0] ^= 0x01;
    let mut flipped_manifest = manifest.clone();
    let at = manifest.iter().position(|b| *b == b'\n').unwrap() + 20;
    flipped_manifest[at] ^= 0x02;
    for (what, blob_bytes, manifest_bytes, names) in [
        ("a blob cut short", &original[..original.len() / 2], &manifest[..], "blobs/"),
        ("an emptied blob", &original[..0], &manifest[..], "blobs/"),
        ("a blob changed", &changed[..], &manifest[..], "blobs/"),
        ("a manifest line changed", &original[..], &flipped_manifest[..], "manifest"),
    ] {
        std::fs::write(&blob, blob_bytes).unwrap();
        std::fs::write(backup.join("manifest"), manifest_bytes).unwrap();
        let out = klog().arg("restore").arg(&backup).output().unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{what}: {stderr}");
        assert!(
            stderr.contains(names) && stderr.contains("position") && stderr.lines().count() == 1,
            "{what}: {stderr}"
        );
        assert!(rel_tree(&d) == after, "{what}: the restore wrote");
    }
    std::fs::write(&blob, &original).unwrap();
    std::fs::write(backup.join("manifest"), &manifest).unwrap();
    klog().arg("restore").arg(&backup).assert().success();
}

/// #46: one writer at a time, always. Rounds of concurrent consented commands on a broker dir
/// with no `.lock` yet, some of which refuse after taking the lock (an append before any
/// election): the lock file stays, so no two of them ever hold "the lock" on two inodes, and
/// restoring every backup they made, newest first, gives back the dir byte for byte. Before
/// the fix, a refused command removed the lock file it made and 5–10% of rounds interleaved.
#[test]
fn concurrent_consented_writers_never_interleave_and_every_backup_restores_the_tree() {
    let tmp = tempfile::tempdir().unwrap();
    let t = crate::txn_logs::now_ms();
    let log: Vec<u8> = (0..20).flat_map(|i| crate::txn_logs::plain(i, t)).collect();
    let original = crate::txn_logs::broker_dir(tmp.path(), "original", &log, true);
    let rounds = if crate::common::exhaustive() { 60 } else { 12 };
    let mut made = 0;
    for round in 0..rounds {
        let d = tmp.path().join(format!("d{round}"));
        copy_dir(&original, &d);
        let before = rel_tree(&d);
        let ds = d.to_str().unwrap();
        let forms: [&[&str]; 5] = [
            &["append", ds, "--partition", "demo-0", "x"],
            &["elect", ds, "--partition", "demo-0"],
            &["append", ds, "--partition", "demo-0", "y"],
            &["crash", ds, "--partition", "demo-0", "--hw", "0"],
            &["stop", ds],
        ];
        let children: Vec<_> = forms
            .iter()
            .map(|args| {
                std::process::Command::new(assert_cmd::cargo::cargo_bin("klog"))
                    .env("NO_COLOR", "1")
                    .arg("--allow-broker-dir-writes")
                    .args(*args)
                    .stdout(std::process::Stdio::null())
                    .stderr(std::process::Stdio::piped())
                    .spawn()
                    .unwrap()
            })
            .collect();
        let mut backups = Vec::new();
        for child in children {
            let out = child.wait_with_output().unwrap();
            let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
            assert!(matches!(out.status.code(), Some(0 | 2)), "round {round}: {stderr}");
            if out.status.success() {
                backups.extend(backups_named(&stderr));
            } else {
                assert!(backups_named(&stderr).is_empty(), "round {round}: a failed command named a backup");
            }
        }
        made += backups.len();
        // Newest first: the counter in the name orders them.
        backups.sort_by_key(|b| b.to_string_lossy().rsplit('-').next().unwrap().parse::<u32>().unwrap());
        for b in backups.iter().rev() {
            let out = klog().arg("restore").arg(b).output().unwrap();
            assert!(out.status.success(), "round {round}: restore {b:?}: {}", String::from_utf8_lossy(&out.stderr));
        }
        assert!(rel_tree(&d) == before, "round {round}: the backups did not restore the dir: two writers interleaved");
        assert!(d.join(".lock").is_file(), "round {round}: the lock file stays, as a broker leaves it");
    }
    // Most commands of a round are refused (the lock is taken, or an append comes before the
    // election); what matters is that those that ran never interleaved.
    assert!(made > 0, "no backup in {rounds} rounds: the writers did not run");
    eprintln!("{rounds} rounds: {made} consented commands ran and were restored");
}
