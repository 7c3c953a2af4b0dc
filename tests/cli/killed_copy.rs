//! A killed broker's copy (issue 43, the last list's item 4): a broker killed while a segment
//! is active leaves that segment's `.index` and `.timeindex` as Kafka preallocated them
//! (`segment.index.bytes`, 10 MiB, rounded down to whole entries, zero-filled past the entries
//! written). An index with no entry yet reads as one entry (timestamp 0 at the base offset).
//! Kafka 4.4's loader does not refuse such a dir: with no clean shutdown it rebuilds the indexes
//! of every segment from the recovery point's on (`tests/kafka/oracle_load.rs` loads such a dir
//! with Kafka's own loader). So `check` makes it a note explaining the preallocation, not
//! a finding. On a copy of the real KRaft broker dir (../shared/kafka-real/kraft-broker-2026,
//! which has no clean-shutdown marker), with its active segments' indexes as a kill leaves them.

use crate::common::*;
use std::fs;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

/// Extend (or create) an index to the size Kafka preallocates for an active segment,
/// zero-filled past what it holds.
fn preallocate(path: &Path, entry_bytes: u64) {
    let size = 10 * 1024 * 1024 / entry_bytes * entry_bytes;
    if path.exists() {
        fs::set_permissions(path, fs::Permissions::from_mode(0o644)).unwrap();
    }
    fs::OpenOptions::new().create(true).truncate(false).write(true).open(path).unwrap().set_len(size).unwrap();
}

/// A copy of the real KRaft broker with the active segment of `partitions` preallocated.
fn killed_copy(lab: &Lab, real: &Path, partitions: &[&str]) -> PathBuf {
    let copy = lab.path("killed");
    copy_dir(&real.join("kraft-broker-2026"), &copy);
    for p in partitions {
        let dir = copy.join(p);
        fs::set_permissions(&dir, fs::Permissions::from_mode(0o755)).unwrap();
        preallocate(&dir.join("00000000000000000000.index"), 8);
        preallocate(&dir.join("00000000000000000000.timeindex"), 12);
    }
    copy
}

#[test]
fn a_killed_brokers_preallocated_empty_time_index_is_a_note_on_preallocation_not_a_finding() {
    let Some(real) = kafka_real() else { return };
    let lab = Lab::new();
    let copy = killed_copy(&lab, &real, &["__cluster_metadata-0"]);
    let before = tree(&copy);
    let args = ["check", s(&copy), "--partition", "__cluster_metadata-0"];
    let (out, err) = code(&args, 0);
    assert!(err.is_empty(), "{err}");
    let note = out
        .lines()
        .find(|l| l.starts_with("note ") && l.contains(".timeindex: "))
        .unwrap_or_else(|| panic!("no note on the time index: {out}"));
    assert!(
        note.contains("entry timestamp 0 but the batch holding offset 0 has max timestamp 1769791434349")
            && note.contains("all 873813 of its entries are zeros: an index preallocated for an active segment")
            && note
                .contains("Kafka rebuilds this segment's indexes when it loads the dir: it was not shut down cleanly"),
        "{note}"
    );
    assert!(out.contains(": clean"), "{out}");
    let lines = json_lines(&code(&[&args[..], &["--json"]].concat(), 0).0);
    let summary = lines.last().unwrap();
    assert_eq!((summary["findings"].as_i64(), summary["clean"].as_bool()), (Some(0), Some(true)), "{summary}");
    assert!(lines.iter().all(|l| l["type"] != "finding"), "{lines:?}");
    assert_eq!(tree(&copy), before, "check wrote");
}

#[test]
fn a_killed_brokers_time_index_with_entries_then_zeros_reads_its_entries_only() {
    let Some(real) = kafka_real() else { return };
    let lab = Lab::new();
    let copy = killed_copy(&lab, &real, &["__consumer_offsets-6"]);
    let (out, _) = code(&["check", s(&copy), "--partition", "__consumer_offsets-6"], 0);
    assert!(!out.contains(".timeindex") && !out.contains(".index:") && out.contains(": clean"), "{out}");
    // The entries before the zero fill are read and checked against their batches.
    let dump = ok(&["dump", s(&copy.join("__consumer_offsets-6/00000000000000000000.timeindex"))]);
    assert_eq!(dump.lines().filter(|l| l.contains("ok (batch last offset)")).count(), 3, "{dump}");
    assert_eq!(dump.lines().filter(|l| l.contains("ok (")).count(), 3, "the zero fill is no entry: {dump}");
}
