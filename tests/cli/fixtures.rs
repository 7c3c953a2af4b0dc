//! The committed fixtures (made by `fixtures/make.sh`), each copied to a temp dir first.

use crate::common::*;

#[test]
fn multi_epoch_fixture_is_clean_and_shows_three_epochs() {
    let lab = Lab::new();
    let dir = fixture(&lab, "multi-epoch");
    ok(&["check", s(&dir)]);
    let epochs: Vec<_> = json_lines(&ok(&["dump", s(&dir), "--epochs", "--json"]))
        .into_iter()
        .filter(|v| v["type"] == "epoch")
        .map(|v| (v["leader_epoch"].as_i64().unwrap(), v["start_offset"].as_i64().unwrap()))
        .collect();
    assert_eq!(epochs, vec![(0, 0), (2, 3), (5, 6)]);
    assert_eq!(replica(&dir)["role"], "stopped");
    assert_eq!(records(&dir).len(), 7);
}

#[test]
fn torn_tail_fixture_recovers_to_its_whole_batches() {
    let lab = Lab::new();
    let dir = fixture(&lab, "torn-tail");
    let (out, _) = code(&["check", s(&dir)], 1);
    assert!(out.contains("trailing bytes do not hold a whole batch"), "{out}");
    ok(&["recover", s(&dir)]);
    ok(&["check", s(&dir)]);
    assert_eq!(records(&dir).into_iter().map(|r| r.2).collect::<Vec<_>>(), vec!["t0", "t1"]);
}

#[test]
fn bad_crc_fixture_is_cut_before_the_damaged_batch() {
    let lab = Lab::new();
    let dir = fixture(&lab, "bad-crc");
    let (out, _) = code(&["check", s(&dir)], 1);
    assert!(out.contains("at position 70 (offset 1): invalid batch: CRC mismatch"), "{out}");
    let r = ok(&["recover", s(&dir)]);
    assert!(r.contains("cut batch 1 (epoch") && r.contains("cut batch 2 (epoch"), "{r}");
    assert_eq!(records(&dir).len(), 1);
}

#[test]
fn missing_index_fixture_gets_its_index_rebuilt() {
    let lab = Lab::new();
    let dir = fixture(&lab, "missing-index");
    let idx = dir.join("demo-0/00000000000000000000.index");
    assert!(!idx.exists());
    ok(&["check", s(&dir)]);
    ok(&["recover", s(&dir)]);
    let entries = std::fs::metadata(&idx).unwrap().len() / 8;
    assert_eq!(entries, 19, "an entry every second 70-byte batch");
    ok(&["check", s(&dir)]);
}

#[test]
fn diverged_fixture_pair_differs_at_offset_one() {
    let lab = Lab::new();
    let a = fixture(&lab, "diverged/a");
    let b = fixture(&lab, "diverged/b");
    let (out, _) = code(&["diff", s(&a), s(&b), "--json"], 1);
    let v = &json_lines(&out)[0];
    assert_eq!(v["first_divergent_offset"], 1);
    assert_eq!(v["ranges"][0]["kind"], "agree");
    assert_eq!(v["ranges"][1]["kind"], "differ");
}
