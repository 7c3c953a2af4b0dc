//! Restart plans from the truth: `recover --leader L F` (one partition, and the data-dir plan)
//! takes the leader, leader epoch, ISR and ELR the KRaft metadata log last recorded, from L's
//! or F's log dir or `--metadata DIR`, and says in every output form which leader and epoch it
//! assumed and where that came from; without metadata it states the old assumption. On
//! klog-made broker dirs (klog's state removed: a broker's dir names no leader) with a
//! klog-made metadata log, and on the real KRaft broker's dir.

use crate::common::*;
use crate::history::{change, partition_record, topic_record};
use replica_lab::format::batch::{encode_batch, BatchSpec};
use replica_lab::format::record::NewRecord;
use serde_json::{json, Value};
use std::fs;
use std::path::PathBuf;

/// A metadata log dir (`klog create --topic __cluster_metadata`) holding `values` as one batch
/// from offset 0.
fn metadata_log(lab: &Lab, name: &str, values: &[Vec<u8>]) -> PathBuf {
    let meta = lab.path(name);
    ok(&["create", s(&meta), "--replica-id", "9", "--topic", "__cluster_metadata"]);
    let records: Vec<NewRecord> = values
        .iter()
        .enumerate()
        .map(|(i, v)| NewRecord { timestamp: 1_000 + i as i64, key: None, value: Some(v.clone()), headers: vec![] })
        .collect();
    fs::write(
        meta.join("__cluster_metadata-0/00000000000000000000.log"),
        encode_batch(&BatchSpec::plain(0, 1), &records),
    )
    .unwrap();
    meta
}

/// Broker 1 (`l`) and broker 2 (`f`) holding orders-0: m1 m2 at epoch 0 on both; then f led at
/// epoch 1 and wrote `y` at offset 2 that l never fetched; l led at epoch 2 and wrote `z` at 2.
/// klog's state is removed: two brokers' data dirs, which name no leader themselves.
fn brokers(lab: &Lab) -> (PathBuf, PathBuf) {
    let (l, f) = (lab.path("l"), lab.path("f"));
    ok(&["create", s(&l), "--topic", "orders", "--replica-id", "1"]);
    ok(&["create", s(&f), "--topic", "orders", "--replica-id", "2"]);
    ok(&["elect", s(&l), "--isr", s(&f)]);
    ok(&["append", s(&l), "m1", "m2", "--timestamp", "1000"]);
    ok(&["fetch", "--leader", s(&l), s(&f), "--rounds", "3"]);
    ok(&["elect", s(&f), "--epoch", "1", "--isr", s(&l)]);
    ok(&["append", s(&f), "y", "--timestamp", "2000"]);
    ok(&["elect", s(&l), "--epoch", "2", "--isr", s(&f)]);
    ok(&["append", s(&l), "z", "--timestamp", "3000"]);
    for d in [&l, &f] {
        fs::remove_file(d.join("klog-state.json")).unwrap();
    }
    (l, f)
}

/// orders-0 on brokers 1, 2, 3: 1 leads (epoch 0); 2 elected (1); 1 again (2); 1 named again
/// with 3 out of the ISR and in the ELR (3): the last record is at offset 5.
fn leader_1_at_epoch_3() -> Vec<Vec<u8>> {
    vec![
        topic_record(),
        partition_record(&[1, 2, 3], 1),
        change(Some(&[2, 3]), Some(2), None),
        change(Some(&[1, 2, 3]), Some(1), None),
        change(Some(&[1, 2]), Some(1), Some(&[3])),
    ]
}

fn plan(args: &[&str]) -> Value {
    json_lines(&ok(args)).into_iter().find(|v| v["type"] == "recover").unwrap()
}

#[test]
fn the_metadata_names_the_leader_and_epoch_and_every_form_says_so() {
    let lab = Lab::new();
    let (l, f) = brokers(&lab);
    let base = ["recover", s(&f), "--leader", s(&l), "--partition", "orders-0", "--dry-run"];

    // No metadata anywhere: the old assumption, stated.
    let r = plan(&[&base[..], &["--json"]].concat());
    assert_eq!((r["leader_epoch"].as_i64(), r["leader_epoch_source"].as_str()), (Some(2), Some("latest_cached")));
    assert_eq!(r["assumed"]["recorded"], Value::Null);
    let text = ok(&base);
    assert!(
        text.contains(
            "assumed:  leader epoch 2 (no metadata: the leader (node 1) assumed to lead at its latest cached epoch 2"
        ),
        "{text}"
    );

    // The controller's log, named: leader 1 at epoch 3, ISR [1,2], ELR [3], at offset 4.
    let meta = metadata_log(&lab, "controller", &leader_1_at_epoch_3());
    let r = plan(&[&base[..], &["--json", "--metadata", s(&meta)]].concat());
    assert_eq!((r["leader_epoch"].as_i64(), r["leader_epoch_source"].as_str()), (Some(3), Some("metadata")));
    let rec = &r["assumed"]["recorded"];
    assert_eq!(
        (&rec["offset"], &rec["leader"], &rec["leader_epoch"], &rec["isr"], &rec["elr"], &rec["found"]),
        (&json!(4), &json!(1), &json!(3), &json!([1, 2]), &json!([3]), &json!("given"))
    );
    assert_eq!(r["assumed"]["leader_id"], 1);
    // Leading at epoch 3 stamps epoch 3 at the leader's log end; y (epoch 1) goes, z replaces it.
    assert_eq!(r["leader_view"]["epochs"][2], json!({"leader_epoch": 3, "start_offset": 3}), "{r}");
    assert_eq!((r["cut_offset"].as_i64(), r["records"][2]["class"].as_str()), (Some(2), Some("truncated_lost")));
    let text = ok(&[&base[..], &["--metadata", s(&meta)]].concat());
    assert!(text.contains("(leader epoch 3)"), "{text}");
    assert!(
        text.contains("the leader (node 1) leads at epoch 3 as the metadata last recorded: leader 1 at epoch 3, ISR [1,2], ELR [3] (metadata offset 4 in"),
        "{text}"
    );

    // The same log found in the leader's own log dir (a broker keeps a replica of it).
    copy_dir(&meta.join("__cluster_metadata-0"), &l.join("__cluster_metadata-0"));
    let r = plan(&[&base[..], &["--json"]].concat());
    assert_eq!((r["leader_epoch"].as_i64(), r["assumed"]["recorded"]["found"].as_str()), (Some(3), Some("leader_dir")));

    // --leader-epoch wins, and the metadata's record is said beside it.
    let r = plan(&[&base[..], &["--json", "--leader-epoch", "4"]].concat());
    assert_eq!((r["leader_epoch"].as_i64(), r["leader_epoch_source"].as_str()), (Some(4), Some("given")));
    assert!(r["assumed"]["sentence"].as_str().unwrap().contains("the metadata last recorded leader 1 at epoch 3"));

    // A metadata dir that is not one: refused, naming it, exit 2.
    let (_, err) = code(&[&base[..], &["--metadata", s(&f)]].concat(), 2);
    assert!(err.contains(s(&f)) && err.contains("no KRaft metadata log"), "{err}");
}

#[test]
fn another_leader_in_the_metadata_is_said_plainly_in_the_plan_and_the_data_dir_lines() {
    let lab = Lab::new();
    let (l, f) = brokers(&lab);
    // 3 leads at epoch 1 with ISR [3]: neither 1 nor 2 may lead but by an unclean election.
    let values = vec![topic_record(), partition_record(&[1, 2, 3], 1), change(Some(&[3]), Some(3), None)];
    let meta = metadata_log(&lab, "controller", &values);
    // In the follower's dir this time.
    copy_dir(&meta.join("__cluster_metadata-0"), &f.join("__cluster_metadata-0"));
    let base = ["recover", s(&f), "--leader", s(&l), "--partition", "orders-0", "--dry-run"];
    let r = plan(&[&base[..], &["--json"]].concat());
    // The controller would elect L next: epoch 2, which L's cache already holds.
    assert_eq!(r["leader_epoch_source"], "metadata_next_election");
    assert_eq!((r["leader_epoch"].as_i64(), r["assumed"]["metadata_names_other_leader"].as_i64()), (Some(2), Some(3)));
    assert_eq!(r["assumed"]["recorded"]["found"], "follower_dir");
    let text = ok(&base);
    for want in [
        "the metadata last recorded leader 3 at epoch 1, ISR [3]",
        "broker 3 leads, not the named leader (node 1): a restarting follower follows broker 3",
        "only an unclean election",
        "the follower (node 2) is out of the ISR",
    ] {
        assert!(text.contains(want), "{want}: {text}");
    }
    // The data-dir plan (two partitions, so the plan form): the line says where the epoch came
    // from and that another broker leads; orders-1 is not in the metadata: the cache's epoch.
    ok(&["--width", "0", "create", s(&lab.path("x")), "--topic", "orders", "--replica-id", "1"]);
    for d in [&l, &f] {
        copy_dir(&lab.path("x/orders-0"), &d.join("orders-1"));
    }
    let text = ok(&["--width", "0", "recover", s(&f), "--leader", s(&l), "--dry-run"]);
    assert!(text.contains("as the metadata last recorded") && text.contains("log end 3"), "{text}");
    let line0 = text.lines().find(|l| l.contains(" orders-0 ")).unwrap();
    assert!(line0.contains(" @2 ") && line0.contains("broker 3 leads, not L"), "{line0}");
    let line1 = text.lines().find(|l| l.contains(" orders-1 ")).unwrap();
    assert!(line1.contains("cached"), "{line1}");
    let lines = json_lines(&ok(&["--width", "0", "recover", s(&f), "--leader", s(&l), "--dry-run", "--json"]));
    let by: Vec<(&str, &str)> = lines
        .iter()
        .filter(|v| v["type"] == "recover")
        .map(|v| (v["partition"].as_str().unwrap(), v["leader_epoch_source"].as_str().unwrap()))
        .collect();
    assert_eq!(by, [("orders-0", "metadata_next_election"), ("orders-1", "latest_cached")]);
    let summary = lines.iter().find(|v| v["type"] == "summary").unwrap();
    assert_eq!(summary["metadata"]["log_end_offset"], 3);
}

#[test]
fn on_the_real_kraft_broker_the_plan_takes_the_controlled_shutdown_from_its_metadata() {
    let Some(real) = kafka_real() else { return };
    let lab = Lab::new();
    let (l, f) = real_kraft_pair(&lab, &real);
    let r = plan(&["recover", s(&f), "--leader", s(&l), "--partition", "__consumer_offsets-6", "--dry-run", "--json"]);
    let rec = &r["assumed"]["recorded"];
    // As `klog history` reads it: offset 4882, no leader, epoch 1, ISR [1].
    assert_eq!(
        (&rec["offset"], &rec["leader"], &rec["leader_epoch"], &rec["isr"]),
        (&json!(4882), &json!(-1), &json!(1), &json!([1]))
    );
    assert_eq!(
        (r["leader_epoch"].as_i64(), r["leader_epoch_source"].as_str()),
        (Some(2), Some("metadata_next_election"))
    );
    let text = ok(&["recover", s(&f), "--leader", s(&l), "--partition", "__consumer_offsets-6", "--dry-run"]);
    assert!(
        text.contains("no leader at epoch 1, ISR [1], ELR [] (metadata offset 4882 in")
            && text.contains("no leader (offline)")
            && text.contains("a clean election"),
        "{text}"
    );

    // The data-dir plan: every partition the metadata records takes its epoch from there.
    let lines = json_lines(&ok(&["recover", s(&f), "--leader", s(&l), "--dry-run", "--json"]));
    let plans: Vec<&Value> = lines.iter().filter(|v| v["type"] == "recover" && v["refused"].is_null()).collect();
    let from_metadata = plans.iter().filter(|v| v["leader_epoch_source"] == "metadata_next_election").count();
    let others: Vec<&str> = plans
        .iter()
        .filter(|v| v["leader_epoch_source"] != "metadata_next_election")
        .map(|v| v["partition"].as_str().unwrap())
        .collect();
    // The metadata log itself is left out of the plan (a Raft log), every other partition's
    // epoch comes from the metadata.
    assert!(others.is_empty(), "{others:?}");
    assert_eq!(from_metadata, plans.len());
    assert!(from_metadata >= 48, "{from_metadata}");

    // Without its metadata log the old assumption is stated in the plan's head.
    for d in [&l, &f] {
        fs::remove_dir_all(d.join("__cluster_metadata-0")).unwrap();
    }
    let text = ok(&["recover", s(&f), "--leader", s(&l), "--dry-run"]);
    assert!(
        text.contains("assumed: no metadata: the leader leads every partition at its latest cached epoch"),
        "{text}"
    );
    // ... and named with --metadata, it is read from there.
    let r = plan(&[
        "recover",
        s(&f),
        "--leader",
        s(&l),
        "--partition",
        "__consumer_offsets-6",
        "--dry-run",
        "--json",
        "--metadata",
        s(&real.join("kraft-broker-2026")),
    ]);
    assert_eq!(r["assumed"]["recorded"]["offset"], 4882);
}

/// `klog history --picture` / `--svg`: who led when as a timeline, on the scripted sequence of
/// elections `history.rs` replays (1 leads; 3 leaves the ISR; 2 elected with 1 eligible; 3
/// back; 3 elected; no leader).
#[test]
fn history_draws_who_led_when_in_the_terminal_and_as_svg() {
    let lab = Lab::new();
    let values = vec![
        topic_record(),
        partition_record(&[1, 2, 3], 1),
        change(Some(&[1, 2]), None, None),
        change(Some(&[2]), Some(2), Some(&[1])),
        change(Some(&[2, 3]), None, Some(&[])),
        change(None, Some(3), None),
        change(None, Some(-1), None),
    ];
    let meta = metadata_log(&lab, "controller", &values);
    let text = ok(&["history", s(&meta), "--picture"]);
    let rows: Vec<&str> = text.lines().skip_while(|l| *l != "orders-0").collect();
    assert_eq!(
        rows,
        [
            "orders-0",
            "  offset        1    2    3    4    5    6",
            "  leader epoch  e0   e0   e1   e1   e2   e3",
            "  broker 1      L0   L0   E    ·    ·    ·",
            "  broker 2      I    I    L1   L1   I    I",
            "  broker 3      I    ·    ·    I    L2   I",
            "  no leader                              none",
        ],
        "{text}"
    );
    // Wrapped to a narrow terminal: the same cells in two blocks.
    let narrow =
        klog().env("COLUMNS", "40").args(["history", s(&meta), "--picture", "--color", "never"]).output().unwrap();
    let narrow = String::from_utf8(narrow.stdout).unwrap();
    let broker_2: Vec<&str> = narrow.lines().filter(|l| l.starts_with("  broker 2")).collect();
    assert_eq!(broker_2, ["  broker 2      I    I    L1   L1", "  broker 2      I    I"], "{narrow}");

    let out_dir = lab.path("out");
    fs::create_dir_all(&out_dir).unwrap();
    let file = out_dir.join("who.svg");
    let text = ok(&["history", s(&meta), "--svg", s(&file)]);
    assert!(text.contains("wrote "), "{text}");
    let svg = fs::read_to_string(&file).unwrap();
    assert!(svg.starts_with("<?xml") && svg.trim_end().ends_with("</svg>"));
    assert_eq!(svg.matches("<svg").count(), 1);
    for want in ["orders-0", "L e0", "L e1", "L e2", "e3 none", "ELR", "ISR"] {
        assert!(svg.contains(want), "{want}");
    }
    // Never inside a Kafka log dir; never over a file klog did not write.
    let (_, err) = code(&["history", s(&meta), "--svg", s(&meta.join("x.svg"))], 2);
    assert!(err.contains("never writes its output inside a Kafka log dir"), "{err}");
    fs::write(out_dir.join("mine.svg"), "not klog's").unwrap();
    let (_, err) = code(&["history", s(&meta), "--svg", s(&out_dir.join("mine.svg"))], 2);
    assert!(err.contains("--force"), "{err}");
    assert_eq!(fs::read_to_string(out_dir.join("mine.svg")).unwrap(), "not klog's");
}

/// Issue 34, point 15: on a broker's dir the metadata decides. A crash klog ran there with
/// consent leaves its `klog-state.json` ("crashed"); the restart plan against that dir as the
/// leader still takes the leader and epoch from the metadata, as it does without the file.
#[test]
fn klogs_state_in_a_brokers_dir_does_not_outrank_its_metadata() {
    let Some(real) = kafka_real() else { return };
    let lab = Lab::new();
    let (l, f) = real_kraft_pair(&lab, &real);
    let args = ["recover", s(&f), "--leader", s(&l), "--dry-run", "--partition", "__consumer_offsets-6"];
    let before = ok(&args);
    ok(&["crash", s(&l), "--allow-broker-dir-writes"]);
    assert!(l.join("klog-state.json").exists());
    let after = ok(&args);
    assert!(after.contains("the metadata last recorded no leader at epoch 1"), "{after}");
    let head = |t: &str| t.lines().take(3).map(str::to_string).collect::<Vec<_>>();
    assert_eq!(head(&after)[2], head(&before)[2], "the same assumption from the metadata");
    // The cluster view plans every follower's restart as before.
    let (view, _) = code(&["recover", "--dry-run", s(&l), s(&f)], 1);
    assert!(!view.contains("is not a leader (it is crashed)"), "{view}");
}

/// Issue 34, point 16: what the metadata proves committed counts as acknowledged. The real
/// KRaft broker led `__consumer_offsets-6` at epoch 0 alone in its ISR (min.insync.replicas
/// 1): its HW followed its log end, so its records there were committed however low its HW
/// checkpoint (and the leader's) now reads.
#[test]
fn records_the_metadata_proves_committed_count_as_acknowledged() {
    let Some(real) = kafka_real() else { return };
    let lab = Lab::new();
    // The follower is the broker that led (node 1); the leader another broker of its cluster.
    let (f, l) = real_kraft_pair(&lab, &real);
    // Both HW checkpoints say nothing was committed.
    for d in [&f, &l] {
        let hw = d.join("replication-offset-checkpoint");
        let text =
            fs::read_to_string(&hw).unwrap().replace("\n__consumer_offsets 6 13\n", "\n__consumer_offsets 6 0\n");
        fs::write(&hw, text).unwrap();
    }
    let args =
        ["recover", s(&f), "--leader", s(&l), "--dry-run", "--partition", "__consumer_offsets-6", "--context", "100"];
    let text = ok(&args);
    assert!(text.contains("the metadata shows the follower leading epoch(s) [0] alone in the ISR"), "{text}");
    let mut json_args = args.to_vec();
    json_args.push("--json");
    let report = json_lines(&ok(&json_args)).remove(0);
    assert_eq!(report["summary"]["committed_by_metadata"], json!([0]));
    let records = report["records"].as_array().unwrap();
    assert_eq!(records.len(), 13);
    assert!(records.iter().all(|r| r["acked"] == true), "{records:?}");
}
