//! `diff --since/--until` (issue 43, item 1's "and diff where they fit"): a time window turned
//! into offsets with each side's time index (the seek `dump --since` uses), the union of what
//! the two sides cover, so a divergence either side holds in the window is compared. On two
//! generated multi-segment logs that diverge inside and outside the window, each bounded diff
//! equals the whole diff cut here to the offsets the window covers, found here from full
//! dumps. Key and value filters do not fit a diff (they would hide divergence): not flags.

use crate::common::*;
use serde_json::Value;
use std::path::{Path, PathBuf};

/// 2026-12-07T03:00:00Z in ms.
const T0: i64 = 1_796_612_400_000;

/// Two multi-segment replicas that agree on m0..m9 (at T0 + i s), then diverge: A led at a new
/// epoch and took x0..x2 at T0 + (10 + i) s + 500 ms, B went on leading and took y0..y4 at
/// T0 + (10 + i) s (offsets 10..12 differ, and each side's timestamps there differ; 13..14
/// only in B). A's x1 is followed by x2 stamped back in time (T0 + 9.2 s).
fn timed_pair(lab: &Lab) -> (PathBuf, PathBuf) {
    let small = ["--segment-bytes", "400", "--index-interval-bytes", "100"];
    let (a, b) = (lab.create("a", 1, &small), lab.create("b", 2, &small));
    let append = |dir: &Path, value: &str, ms: i64| ok(&["append", s(dir), "--timestamp", &ms.to_string(), value]);
    ok(&["elect", s(&b), "--isr", s(&a)]);
    for i in 0..10 {
        append(&b, &format!("m{i}"), T0 + i * 1000);
    }
    ok(&["fetch", "--leader", s(&b), s(&a), "--until-caught-up"]);
    ok(&["elect", s(&a)]);
    for (i, ms) in [(0, T0 + 10_500), (1, T0 + 11_500), (2, T0 + 9_200)] {
        append(&a, &format!("x{i}"), ms);
    }
    for i in 0..5 {
        append(&b, &format!("y{i}"), T0 + (10 + i) * 1000);
    }
    (a, b)
}

/// (offset, timestamp) of every record of a replica, from a full dump.
fn stamps(dir: &Path) -> Vec<(i64, i64)> {
    json_lines(&ok(&["dump", s(dir), "--json"]))
        .into_iter()
        .filter(|v| v["type"] == "record")
        .map(|r| (r["offset"].as_i64().unwrap(), r["timestamp"].as_i64().unwrap()))
        .collect()
}

/// A diff's ranges as one kind per offset (every offset of these logs holds a record).
fn kinds(doc: &Value) -> Vec<(i64, String)> {
    let mut out = Vec::new();
    for r in doc["ranges"].as_array().unwrap() {
        let (first, last) = (r["first_offset"].as_i64().unwrap(), r["last_offset"].as_i64().unwrap());
        out.extend((first..=last).map(|o| (o, r["kind"].as_str().unwrap().to_string())));
    }
    out
}

/// What ListOffsets by timestamp answers on one side: the first offset whose record is at or
/// after `t`.
fn first_at_or_after(side: &[(i64, i64)], t: i64) -> Option<i64> {
    side.iter().find(|(_, ts)| *ts >= t).map(|(o, _)| *o)
}

#[test]
fn diff_since_until_equals_the_whole_diff_cut_to_the_offsets_either_side_covers() {
    let lab = Lab::new();
    let (a, b) = timed_pair(&lab);
    let segments = std::fs::read_dir(b.join("demo-0"))
        .unwrap()
        .filter(|e| e.as_ref().unwrap().path().extension().is_some_and(|x| x == "log"))
        .count();
    assert!(segments > 2, "a multi-segment log: {segments}");
    let (sa, sb) = (stamps(&a), stamps(&b));
    assert_eq!((sa.len(), sb.len()), (13, 15));
    let (out, _) = code(&["diff", s(&a), s(&b), "--json"], 1);
    let full = json_lines(&out).remove(0);
    let all = kinds(&full);
    assert_eq!(full["first_divergent_offset"], 10, "{full}");
    let shorter = 13;
    let ms = |s: i64| T0 + s;
    // (since, until) in ms after T0: windows before the divergence (identical there), across
    // it, one where A's records start earlier than B's (11.2 s: A's x1, B's y2), one past both
    // logs, and ones unbounded on a side.
    let windows = [
        (Some(2_000), Some(6_000)),
        (None, Some(4_500)),
        (Some(3_000), Some(10_000)),
        (Some(8_000), Some(11_000)),
        (Some(11_200), None),
        (Some(11_200), Some(12_500)),
        (Some(12_000), Some(14_000)),
        (None, Some(9_500)),
        (Some(60_000), None),
        (None, Some(500)),
    ];
    for (since, until) in windows {
        let mut args = vec!["diff".to_string(), s(&a).into(), s(&b).into(), "--json".into()];
        if let Some(t) = since {
            args.extend(["--since".into(), ms(t).to_string()]);
        }
        if let Some(t) = until {
            args.extend(["--until".into(), ms(t).to_string()]);
        }
        let r = run(&args);
        assert!(r.code == 0 || r.code == 1, "{args:?}: {}", r.stderr);
        let doc = json_lines(&r.stdout).remove(0);
        // The offsets the window covers, from full dumps: from the first at or after --since on
        // either side, up to before the later first at or after --until.
        let from = since.map(|t| first_at_or_after(&sa, ms(t)).into_iter().chain(first_at_or_after(&sb, ms(t))).min());
        let end = until.and_then(|t| Some(first_at_or_after(&sa, ms(t))?.max(first_at_or_after(&sb, ms(t))?)));
        let inside = |o: i64| from.is_none_or(|f| f.is_some_and(|f| o >= f)) && end.is_none_or(|e| o < e);
        let want: Vec<(i64, String)> = all.iter().filter(|(o, _)| inside(*o)).cloned().collect();
        assert_eq!(kinds(&doc), want, "{args:?}: {doc}");
        let first = want.iter().find(|(o, k)| k == "differ" || (k != "agree" && *o < shorter)).map(|(o, _)| *o);
        assert_eq!(doc["first_divergent_offset"].as_i64(), first, "{args:?}: {doc}");
        assert_eq!(r.code, if first.is_some() { 1 } else { 0 }, "{args:?}");
        assert_eq!(
            (doc["offsets"]["since"].as_i64(), doc["offsets"]["until"].as_i64()),
            (since.map(ms), until.map(ms))
        );
    }
    // The 11.2 s window starts at A's x1 (offset 11), though B's first record there is y2 (12).
    let (text, _) = code(&["diff", s(&a), s(&b), "--since", &ms(11_200).to_string()], 1);
    assert!(text.contains("offsets from 11 on only (--since 2026-12-07T03:00:11.200Z"), "{text}");
    assert!(text.contains("first divergence at offset 11"), "{text}");
    // The verdict names the window it found identical; ISO-8601 and epoch ms are one instant.
    let text = ok(&["diff", s(&a), s(&b), "--since", "2026-12-07T03:00:02Z", "--until", &ms(6_000).to_string()]);
    assert!(text.contains("offsets 2 to 5 only (--since 2026-12-07T03:00:02.000Z --until"), "{text}");
    assert!(text.trim_end().ends_with("identical in offsets 2..5"), "{text}");
    let text = ok(&["diff", s(&a), s(&b), "--since", &ms(60_000).to_string()]);
    assert!(text.contains("no offset lies in the window"), "{text}");
}

#[test]
fn diff_time_and_offset_windows_both_hold_and_bad_windows_are_refused() {
    let lab = Lab::new();
    let (a, b) = timed_pair(&lab);
    // --since 3 s is offset 3 on; --to 7 stops at 7: offsets 3 to 7, all agreeing.
    let (out, _) = code(&["diff", s(&a), s(&b), "--since", &(T0 + 3_000).to_string(), "--to", "7", "--json"], 0);
    let doc = json_lines(&out).remove(0);
    assert_eq!((doc["offsets"]["from"].as_i64(), doc["offsets"]["to"].as_i64()), (Some(3), Some(7)), "{doc}");
    assert_eq!(kinds(&doc), (3..=7).map(|o| (o, "agree".to_string())).collect::<Vec<_>>());
    // Bad windows: exit 2, one line, nothing on stdout.
    let bad: [(&[&str], &str); 4] = [
        (&["--since", "2026-12-07T03:00:05Z", "--until", "2026-12-07T03:00:05Z"], "give --since before --until"),
        (&["--since", "yesterday"], "--since"),
        (&["--key", "k0"], "--key"),
        (&["--value-regex", "x"], "--value-regex"),
    ];
    for (extra, says) in bad {
        let args: Vec<&str> = ["diff", s(&a), s(&b)].into_iter().chain(extra.iter().copied()).collect();
        let (out, err) = code(&args, 2);
        assert!(out.is_empty() && err.contains(says), "{args:?}: {err}");
    }
    // Over data dirs of several partitions a window needs --partition.
    let (c, d) = (lab.create("c", 3, &["--partitions", "2"]), lab.create("e", 4, &["--partitions", "2"]));
    let (_, err) = code(&["diff", s(&c), s(&d), "--until", &T0.to_string()], 2);
    assert!(err.contains("offsets of one partition") && err.contains("add --partition NAME"), "{err}");
    ok(&["diff", s(&c), s(&d), "--until", &T0.to_string(), "--partition", "demo-1"]);
}
