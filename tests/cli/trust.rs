//! Trust: a refused command changes nothing, klog writes only into Kafka log dirs, and the
//! replication rules that keep a lab honest (fencing, epochs never reused, replicas known by
//! what their dirs say) hold through the real binary. Each test here failed before its fix.

use crate::common::*;
use std::fs;

/// A copy of one real broker dir in a temp dir, if `../shared/kafka-real` is there.
fn broker_copy(lab: &Lab, name: &str) -> Option<std::path::PathBuf> {
    let root = kafka_real()?;
    let to = lab.path(name);
    let status = std::process::Command::new("cp").arg("-a").arg(root.join(name)).arg(&to).status().unwrap();
    assert!(status.success());
    // The shared copy is read-only; the lab copy must be writable like a real data dir.
    std::process::Command::new("chmod").arg("-R").arg("u+w").arg(&to).status().unwrap();
    Some(to)
}

#[test]
fn mutating_commands_refuse_a_folder_that_is_not_a_kafka_log_dir_and_write_nothing() {
    let lab = Lab::new();
    let plain = lab.path("plain");
    fs::create_dir_all(plain.join("photos-2024")).unwrap();
    fs::write(plain.join("photos-2024/beach.jpg"), b"jpeg").unwrap();
    fs::create_dir_all(plain.join("tmux-0")).unwrap();
    let before = tree(&plain);
    for args in [
        vec!["elect", s(&plain)],
        vec!["append", s(&plain), "x"],
        vec!["flush", s(&plain)],
        vec!["stop", s(&plain)],
        vec!["crash", s(&plain)],
        vec!["recover", s(&plain)],
        vec!["check", s(&plain)],
        vec!["dump", s(&plain)],
    ] {
        let (_, err) = code(&args, 2);
        assert!(err.contains("not a Kafka log dir"), "{args:?}: {err}");
        assert_eq!(tree(&plain), before, "{args:?} changed the folder");
    }
    // A `<word>-<n>` folder holding a file that is not Kafka's is not a partition dir either.
    let (_, err) = code(&["elect", s(&plain.join("photos-2024"))], 2);
    assert!(err.contains("not a Kafka log dir"), "{err}");
    assert_eq!(tree(&plain), before);
}

#[test]
fn a_partial_copy_is_read_with_its_partitions_but_never_written() {
    let lab = Lab::new();
    let b = lab.create("b", 1, &[]);
    ok(&["elect", s(&b)]);
    ok(&["append", s(&b), "m1", "m2"]);
    ok(&["stop", s(&b)]);
    let partial = lab.path("partial");
    fs::create_dir(&partial).unwrap();
    std::process::Command::new("cp").arg("-a").arg(b.join("demo-0")).arg(&partial).status().unwrap();
    let before = tree(&partial);
    assert_eq!(records(&partial).len(), 2, "a reader reads a partial copy");
    let (_, err) = code(&["elect", s(&partial)], 2);
    assert!(err.contains("not a Kafka log dir (no meta.properties)"), "{err}");
    let (_, err) = code(&["recover", s(&partial)], 2);
    assert!(err.contains("not a Kafka log dir (no meta.properties)"), "{err}");
    assert_eq!(tree(&partial), before);
}

#[test]
fn append_to_a_crashed_replica_is_refused_before_local_recovery_writes_anything() {
    let lab = Lab::new();
    let b = lab.create("b", 1, &[]);
    ok(&["elect", s(&b)]);
    ok(&["append", s(&b), "m1", "m2", "m3"]);
    ok(&["crash", s(&b), "--torn-bytes", "5"]);
    let before = tree(&b);
    let (_, err) = code(&["append", s(&b), "m4"], 2);
    assert!(err.contains("restarts as a follower"), "{err}");
    assert_eq!(tree(&b), before, "the refusal ran no recovery and wrote no state");
    // A command that may act does recover first, and says what it cut.
    let out = ok(&["elect", s(&b)]);
    assert!(out.contains("local recovery"), "{out}");
}

#[test]
fn refused_commands_on_a_broker_copy_leave_it_byte_identical() {
    let lab = Lab::new();
    let Some(broker) = broker_copy(&lab, "zk-broker-2021") else { return };
    let before = tree(&broker);
    let around = tree(lab.dir.path());
    for args in [
        vec!["append", s(&broker), "--partition", "TestTopic-0", "x"],
        vec!["fetch", "--leader", s(&broker), s(&broker), "--partition", "TestTopic-0"],
        vec!["crash", s(&broker), "--torn-bytes", "3"],
    ] {
        // Without consent the consent gate refuses; with it, the request's own fault does, and
        // neither leaves a byte changed in the copy or a backup beside it.
        let (_, err) = code(&args, 2);
        assert!(err.contains("a log dir klog did not make"), "{args:?}: {err}");
        assert_eq!(tree(&broker), before, "{args:?} changed the broker copy");
        let consented: Vec<&str> = std::iter::once("--allow-broker-dir-writes").chain(args.iter().copied()).collect();
        let (_, err) = code(&consented, 2);
        assert!(!err.contains("a log dir klog did not make"), "{args:?}: {err}");
        assert_eq!(tree(&broker), before, "{consented:?} changed the broker copy");
        assert_eq!(tree(lab.dir.path()), around, "{consented:?} left something beside the copy");
    }
    // Read-only commands and dry runs never write either.
    for args in [
        vec!["dump", s(&broker), "--partition", "TestTopic-0"],
        vec!["check", s(&broker), "--partition", "TestTopic-0"],
        vec!["recover", s(&broker), "--partition", "TestTopic-0", "--dry-run"],
    ] {
        klog().args(&args).assert().code(predicates::ord::lt(2));
        assert_eq!(tree(&broker), before, "{args:?} changed the broker copy");
    }
}

#[test]
fn stop_of_one_partition_of_a_broker_dir_does_not_write_the_dir_wide_marker() {
    let lab = Lab::new();
    let Some(broker) = broker_copy(&lab, "zk-broker-2021") else { return };
    let marker = broker.join(".kafka_cleanshutdown");
    let _ = fs::remove_file(&marker);
    let out = ok(&["--allow-broker-dir-writes", "stop", s(&broker), "--partition", "TestTopic-0"]);
    assert!(out.contains("no .kafka_cleanshutdown"), "{out}");
    assert!(!marker.exists(), "the other partitions were never closed: a broker must still recover them");
    // Stopping the whole dir closes every partition, and only then is the marker written.
    let out = ok(&["--allow-broker-dir-writes", "stop", s(&broker)]);
    assert!(out.contains(".kafka_cleanshutdown written"), "{out}");
    assert!(marker.exists());
    ok(&["check", s(&broker), "--partition", "TestTopic-0"]);
    // Any command that writes removes the marker first (KAFKA-10471).
    ok(&["--allow-broker-dir-writes", "elect", s(&broker), "--partition", "TestTopic-0"]);
    assert!(!marker.exists());
}

#[test]
fn a_leader_is_never_fetched_into_so_two_leaders_cannot_merge_their_logs() {
    let lab = Lab::new();
    let l = lab.create("l", 1, &[]);
    let g = lab.create("g", 2, &[]);
    ok(&["elect", s(&l), "--epoch", "0"]);
    ok(&["elect", s(&g), "--epoch", "0"]);
    ok(&["append", s(&l), "l1", "l2"]);
    ok(&["append", s(&g), "g1", "g2", "g3", "g4"]);
    let before = tree(lab.dir.path());
    let (_, err) = code(&["fetch", "--leader", s(&l), s(&g)], 2);
    assert!(err.contains("a leader is never fetched into"), "{err}");
    assert_eq!(tree(lab.dir.path()), before);
}

#[test]
fn a_replica_holding_data_fetches_only_after_becoming_the_leaders_follower() {
    let lab = Lab::new();
    let a = lab.create("a", 1, &[]);
    let b = lab.create("b", 2, &[]);
    ok(&["elect", s(&b), "--isr", s(&a)]);
    ok(&["append", s(&b), "m1"]);
    // An empty replica's first fetch makes it the leader's follower.
    ok(&["fetch", "--leader", s(&b), s(&a), "--rounds", "2"]);
    ok(&["append", s(&b), "m2"]);
    // After a failover the old follower must truncate before it fetches from the new leader.
    ok(&["crash", s(&b)]);
    ok(&["elect", s(&a), "--isr", s(&b)]);
    ok(&["append", s(&a), "m3"]);
    let before = tree(lab.dir.path());
    let (_, err) = code(&["fetch", "--leader", s(&a), s(&b)], 2);
    assert!(err.contains("klog recover --leader"), "{err}");
    assert_eq!(tree(lab.dir.path()), before);
    ok(&["recover", s(&b), "--leader", s(&a), "--mode", "kip279"]);
    ok(&["fetch", "--leader", s(&a), s(&b), "--until-caught-up"]);
    assert_eq!(records(&a), records(&b));
}

#[test]
fn a_running_replica_refuses_a_leader_change_whose_epoch_is_not_above_its_own() {
    let lab = Lab::new();
    let a = lab.create("a", 1, &[]);
    let b = lab.create("b", 2, &[]);
    ok(&["elect", s(&a), "--epoch", "3"]);
    ok(&["elect", s(&b), "--epoch", "4"]);
    ok(&["append", s(&b), "x"]);
    // b leads at 4 and is running: a leader at a lower epoch is fenced.
    let before = tree(lab.dir.path());
    let (_, err) = code(&["recover", s(&b), "--leader", s(&a), "--mode", "kip279"], 2);
    assert!(err.contains("FENCED_LEADER_EPOCH"), "{err}");
    assert_eq!(tree(lab.dir.path()), before);
}

#[test]
fn elect_never_reissues_an_epoch_that_power_loss_erased_from_the_log() {
    let lab = Lab::new();
    let a = lab.create("a", 1, &[]);
    ok(&["elect", s(&a), "--epoch", "0"]);
    ok(&["append", s(&a), "m0", "--flush"]);
    ok(&["elect", s(&a)]);
    ok(&["append", s(&a), "m1"]);
    ok(&["crash", s(&a), "--power-loss"]);
    let out = ok(&["elect", s(&a)]);
    assert!(out.contains("epoch 2"), "epoch 1 was seen and must not be reused: {out}");
}

#[test]
fn elect_picks_above_every_epoch_an_isr_member_has_seen() {
    let lab = Lab::new();
    let a = lab.create("a", 1, &[]);
    let b = lab.create("b", 2, &[]);
    ok(&["elect", s(&b), "--epoch", "7"]);
    let out = ok(&["elect", s(&a), "--isr", s(&b)]);
    assert!(out.contains("epoch 8"), "{out}");
    let (_, err) = code(&["elect", s(&a), "--epoch", "8", "--isr", s(&b)], 2);
    assert!(err.contains("not above"), "{err}");
}

#[test]
fn no_election_follows_the_largest_32_bit_epoch() {
    let lab = Lab::new();
    let a = lab.create("a", 1, &[]);
    ok(&["elect", s(&a), "--epoch", "2147483647"]);
    let before = tree(&a);
    let (_, err) = code(&["elect", s(&a)], 2);
    assert!(err.contains("no further election is possible"), "{err}");
    assert_eq!(tree(&a), before);
}

#[test]
fn a_copied_lab_replicates_as_the_original_did() {
    let lab = Lab::new();
    let a = lab.create("a", 1, &[]);
    let b = lab.create("b", 2, &[]);
    ok(&["elect", s(&b), "--isr", s(&a)]);
    ok(&["append", s(&b), "m1", "m2"]);
    let copy = lab.path("copy");
    fs::create_dir(&copy).unwrap();
    for name in ["a", "b"] {
        std::process::Command::new("cp").arg("-a").arg(lab.path(name)).arg(&copy).status().unwrap();
    }
    let (a2, b2) = (copy.join("a"), copy.join("b"));
    ok(&["fetch", "--leader", s(&b2), s(&a2), "--rounds", "3"]);
    assert_eq!(replica(&b2)["high_watermark"], 2, "the copy's ISR member is the copied follower");
    assert_eq!(replica(&b)["high_watermark"], 0, "the original is untouched");
    // Copies of one replica are not two replicas.
    let (_, err) = code(&["fetch", "--leader", s(&b), s(&b2)], 2);
    assert!(err.contains("same replica"), "{err}");
}

#[test]
fn replicas_of_different_topics_or_clusters_never_replicate() {
    let lab = Lab::new();
    let a = lab.create("a", 1, &[]);
    let b = lab.create("b", 2, &[]);
    ok(&["elect", s(&b)]);
    ok(&["append", s(&b), "x"]);
    let meta = a.join("meta.properties");
    let text = fs::read_to_string(&meta).unwrap();
    let other =
        text.lines().map(|l| if l.starts_with("cluster.id=") { "cluster.id=OtherClusterId00000000" } else { l });
    fs::write(&meta, other.collect::<Vec<_>>().join("\n") + "\n").unwrap();
    let before = tree(lab.dir.path());
    let (_, err) = code(&["fetch", "--leader", s(&b), s(&a)], 2);
    assert!(err.contains("different clusters"), "{err}");
    assert_eq!(tree(lab.dir.path()), before);
}

#[test]
fn a_dry_run_predicts_the_cut_the_real_truncation_makes_when_a_batch_straddles_the_target() {
    let lab = Lab::new();
    let a = lab.create("a", 1, &[]);
    let b = lab.create("b", 2, &[]);
    ok(&["elect", s(&b), "--isr", s(&a)]);
    ok(&["append", s(&b), "m0", "m1"]);
    ok(&["fetch", "--leader", s(&b), s(&a), "--rounds", "3"]);
    // Offsets 2..=5 in one batch; A fetches it, its HW stays at 2 while B's moves on.
    ok(&["append", s(&b), "m2", "m3", "m4", "m5"]);
    ok(&["fetch", "--leader", s(&b), s(&a), "--rounds", "2"]);
    ok(&["crash", s(&a), "--hw", "4"]); // a HW inside the batch 2..=5
    let dry = json_lines(&ok(&["recover", s(&a), "--leader", s(&b), "--mode", "hw", "--dry-run", "--json"]));
    let real = json_lines(&ok(&["recover", s(&a), "--leader", s(&b), "--mode", "hw", "--json"]));
    let (dry, real) = (dry.last().unwrap(), real.last().unwrap());
    assert_eq!(dry["truncation_offset"], 4);
    assert_eq!(dry["cut_offset"], 2, "the batch 2..=5 straddles 4 and goes whole");
    assert_eq!(dry["cut_offset"], real["cut_offset"]);
    assert_eq!(real["follower_log_end_offset_after"], 2);
}

#[test]
fn a_negative_high_watermark_in_the_checkpoint_is_a_finding_with_its_position() {
    let lab = Lab::new();
    let b = lab.create("b", 1, &[]);
    ok(&["elect", s(&b)]);
    ok(&["append", s(&b), "x"]);
    ok(&["stop", s(&b)]);
    fs::write(b.join("replication-offset-checkpoint"), "0\n1\ndemo 0 -5\n").unwrap();
    let (out, _) = code(&["check", s(&b)], 1);
    assert!(out.contains("high watermark -5 is negative") && out.contains("at position 4"), "{out}");
}

/// A broker's dir (no klog state, not shut down cleanly) with partitions `orders-0` and
/// `orders-1`: `orders-0` holds producer 7's transaction and its ABORT marker, whose attributes
/// claim compression codec 7 (CRC fixed). A broker's recovery of the segment updates the
/// producer state with the marker: `batch.iterator()` throws CompressionType.forId's
/// IllegalArgumentException, which nothing in LogLoader catches, so Kafka 4.4 cannot load the
/// log and the broker does not start (tests/oracle/found/found-a-marker-with-an-unknown-codec-
/// is-not-caught-by-recovery.json is the oracle's verdict on the same bytes).
pub(crate) fn unloadable_broker_dir(lab: &Lab) -> std::path::PathBuf {
    use replica_lab::format::batch::crc32c;
    let d = lab.path("b");
    ok(&["create", s(&d), "--replica-id", "1", "--topic", "orders", "--partitions", "2"]);
    ok(&["elect", s(&d), "--partition", "orders-0"]);
    ok(&["append", s(&d), "--partition", "orders-0", "a1", "a2", "--producer-id", "7", "--transactional"]);
    ok(&["append", s(&d), "--partition", "orders-0", "--producer-id", "7", "--end-txn", "abort"]);
    ok(&["append", s(&d), "--partition", "orders-0", "x"]);
    ok(&["crash", s(&d)]);
    fs::remove_file(d.join("klog-state.json")).unwrap();
    let path = d.join("orders-0/00000000000000000000.log");
    let mut log = fs::read(&path).unwrap();
    let mut position = 0;
    let mut patched = 0;
    while position + 23 <= log.len() {
        let length = i32::from_be_bytes(log[position + 8..position + 12].try_into().unwrap()) as usize;
        let attributes = u16::from_be_bytes([log[position + 21], log[position + 22]]);
        if attributes & 0x20 != 0 {
            log[position + 21..position + 23].copy_from_slice(&(attributes | 7).to_be_bytes());
            let crc = crc32c(&log[position + 21..position + 12 + length]);
            log[position + 17..position + 21].copy_from_slice(&crc.to_be_bytes());
            patched += 1;
        }
        position += 12 + length;
    }
    assert_eq!(patched, 1);
    fs::write(&path, log).unwrap();
    d
}

/// One verdict per condition across forms (issue 46, point 6): a log Kafka cannot load is the
/// same finding, exit 1, saying the broker refuses to start, in `txn`, `check` and `recover
/// --dry-run`, each in its single-partition forms (`--partition`, the partition dir) and its
/// data-dir form. Before, `txn` on the partition exited 2, its data-dir form called the
/// partition unreadable, and `check` never said that the broker would not load it.
#[test]
fn a_log_kafka_cannot_load_is_the_same_finding_in_every_form_of_txn_check_and_recover() {
    let lab = Lab::new();
    let d = unloadable_broker_dir(&lab);
    let part = d.join("orders-0");
    let before = tree(&d);
    for args in [
        vec!["txn", s(&d), "--partition", "orders-0"],
        vec!["txn", s(&part)],
        vec!["txn", s(&d)],
        vec!["check", s(&d), "--partition", "orders-0"],
        vec!["check", s(&part)],
        vec!["check", s(&d)],
        vec!["recover", s(&d), "--partition", "orders-0", "--dry-run"],
        vec!["recover", s(&d), "--dry-run"],
    ] {
        let (out, err) = code(&args, 1);
        assert!(err.is_empty(), "{args:?}: {err}");
        assert!(
            out.contains("a Kafka 4.4 broker refuses to start on this log dir")
                && out.contains("Unknown compression type id: 7"),
            "{args:?}: {out}"
        );
        assert_eq!(tree(&d), before, "{args:?} changed the dir");
    }
    // The JSON forms carry it as a finding on the partition.
    for args in [vec!["txn", s(&d), "--json"], vec!["check", s(&d), "--json"], vec!["txn", s(&part), "--json"]] {
        let (out, _) = code(&args, 1);
        assert!(out.contains("refuses to start"), "{args:?}: {out}");
        assert!(!out.contains("\"unreadable\""), "{args:?}: {out}");
    }
}
