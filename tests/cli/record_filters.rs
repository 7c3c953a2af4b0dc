//! `dump`'s record filters (--since, --until, --to, --key, --key-regex, --header, --value-regex,
//! --count, --topic): each one, on a generated multi-segment log and on a data dir, shows
//! exactly the records a full `dump --json` shows that pass the same test made here; in JSON,
//! table and kafka-dump-log form. The time seek reads the time index: the segments it skips are
//! never read (damaging them changes nothing).

use crate::common::*;
use serde_json::Value;
use std::path::{Path, PathBuf};

/// 2026-12-07T03:00:00Z in ms.
const T0: i64 = 1_796_612_400_000;

/// A data dir: `orders-0`, `orders-1` (multi-segment, small indexes) and `other-0`, with keys
/// k0..k4, `trace` headers on every third append, a null-valued `flag` header on every fourth,
/// some batches gzip, and one append whose timestamp goes back in time.
fn data_dir(lab: &Lab) -> PathBuf {
    let d = lab.path("d");
    let common = ["--segment-bytes", "400", "--index-interval-bytes", "100"];
    let mut args = vec!["create", s(&d), "--topic", "orders", "--partitions", "2"];
    args.extend_from_slice(&common);
    ok(&args);
    ok(&["create", s(&d), "--topic", "other"]);
    for p in ["orders-0", "orders-1", "other-0"] {
        ok(&["elect", s(&d), "--partition", p]);
    }
    for i in 0..28i64 {
        let partition = if i % 7 == 6 { "other-0".to_string() } else { format!("orders-{}", i % 2) };
        // Append 9 goes back 6 s: timestamps are not monotonic in orders-1.
        let timestamp = (T0 + i * 1000 - if i == 9 { 6000 } else { 0 }).to_string();
        let (key, first, second) = (format!("k{}", i % 5), format!("v{i}"), format!("{{\"n\":{i}}}"));
        let trace = format!("trace=t{i}");
        let mut args = vec!["append", s(&d), "--partition", &partition, "--key", &key, "--timestamp", &timestamp];
        if i % 3 == 0 {
            args.extend(["--header", &trace]);
        }
        if i % 4 == 0 {
            args.extend(["--header", "flag"]);
        }
        if i % 5 == 0 {
            args.extend(["--compression", "gzip"]);
        }
        args.extend([first.as_str(), second.as_str()]);
        ok(&args);
    }
    d
}

fn record_lines(out: &str) -> Vec<Value> {
    json_lines(out).into_iter().filter(|v| v["type"] == "record").collect()
}

/// The records of every `orders` partition, from full dumps of each partition, in order.
fn full_records(d: &Path, partitions: &[&str]) -> Vec<Value> {
    partitions.iter().flat_map(|p| record_lines(&ok(&["dump", s(d), "--partition", p, "--json"]))).collect()
}

fn has_header(r: &Value, name: &str, value: Option<&str>) -> bool {
    r["headers"].as_array().unwrap().iter().any(|h| h["key"] == name && value.is_none_or(|v| h["value"] == v))
}

type Keep = fn(&Value) -> bool;

fn ts(r: &Value) -> i64 {
    r["timestamp"].as_i64().unwrap()
}

fn offset(r: &Value) -> i64 {
    r["offset"].as_i64().unwrap()
}

/// Every filter with the test it stands for.
fn cases() -> Vec<(Vec<String>, Keep)> {
    let at = |seconds: i64| (T0 + seconds * 1000).to_string();
    vec![
        (vec!["--since".into(), "2026-12-07T03:00:09Z".into()], |r| ts(r) >= T0 + 9000),
        (vec!["--since".into(), "2026-12-07T04:00:13+01:00".into()], |r| ts(r) >= T0 + 13_000),
        (vec!["--until".into(), at(8)], |r| ts(r) < T0 + 8000),
        (vec!["--since".into(), at(4), "--until".into(), at(17)], |r| (T0 + 4000..T0 + 17_000).contains(&ts(r))),
        (vec!["--since".into(), at(100)], |_| false),
        (vec!["--to".into(), "9".into()], |r| offset(r) <= 9),
        (vec!["--from".into(), "5".into(), "--to".into(), "12".into()], |r| (5..=12).contains(&offset(r))),
        (vec!["--key".into(), "k2".into()], |r| r["key"] == "k2"),
        (vec!["--key-regex".into(), "^k[13]$".into()], |r| r["key"] == "k1" || r["key"] == "k3"),
        (vec!["--header".into(), "trace".into()], |r| has_header(r, "trace", None)),
        (vec!["--header".into(), "trace=t12".into()], |r| has_header(r, "trace", Some("t12"))),
        (vec!["--header".into(), "flag".into(), "--header".into(), "trace".into()], |r| {
            has_header(r, "flag", None) && has_header(r, "trace", None)
        }),
        (vec!["--value-regex".into(), "\"n\":1[0-9]".into()], |r| {
            r["value"].as_str().is_some_and(|v| v.starts_with("{\"n\":1") && v.len() == 8)
        }),
        (
            vec!["--since".into(), at(3), "--key-regex".into(), "k[0-2]".into(), "--value-regex".into(), "^v".into()],
            |r| {
                ts(r) >= T0 + 3000
                    && ["k0", "k1", "k2"].contains(&r["key"].as_str().unwrap())
                    && r["value"].as_str().unwrap().starts_with('v')
            },
        ),
    ]
}

/// Runs `dump` with the filter on `target` (extra arguments first) in the three forms and
/// `--count`, and checks each against the full dump filtered here.
fn check_case(target: &[&str], full: &[Value], filter: &[String], keep: Keep) {
    let expected: Vec<&Value> = full.iter().filter(|r| keep(r)).collect();
    let with = |extra: &[&str]| -> Vec<String> {
        let mut a: Vec<String> = vec!["dump".into()];
        a.extend(target.iter().map(|t| t.to_string()));
        a.extend(filter.iter().cloned());
        a.extend(extra.iter().map(|t| t.to_string()));
        a
    };
    let run_ok = |args: Vec<String>| -> String {
        let r = run(&args);
        assert_eq!(r.code, 0, "klog {args:?}: {}", r.stderr);
        r.stdout
    };
    let json = record_lines(&run_ok(with(&["--json"])));
    assert_eq!(json.iter().collect::<Vec<_>>(), expected, "dump {target:?} {filter:?} --json");
    let count = run_ok(with(&["--count"]));
    assert_eq!(count.trim(), expected.len().to_string(), "dump {target:?} {filter:?} --count");
    let kafka = run_ok(with(&["--format", "kafka"]));
    let kafka_offsets: Vec<i64> =
        kafka.lines().filter_map(|l| l.strip_prefix("| offset: ")?.split(' ').next()?.parse().ok()).collect();
    assert_eq!(kafka_offsets, expected.iter().map(|r| offset(r)).collect::<Vec<_>>(), "{filter:?} --format kafka");
    let table = run_ok(with(&[]));
    let table_offsets: Vec<i64> = table.lines().filter_map(|l| l.split_whitespace().next()?.parse().ok()).collect();
    assert_eq!(table_offsets, expected.iter().map(|r| offset(r)).collect::<Vec<_>>(), "{filter:?} table\n{table}");
}

#[test]
fn every_filter_on_a_multi_segment_log_shows_what_the_full_dump_filtered_here_shows() {
    let lab = Lab::new();
    let d = data_dir(&lab);
    assert!(
        std::fs::read_dir(d.join("orders-1"))
            .unwrap()
            .filter(|e| e.as_ref().unwrap().path().extension().is_some_and(|x| x == "log"))
            .count()
            >= 3
    );
    for p in ["orders-0", "orders-1"] {
        let full = full_records(&d, &[p]);
        assert!(full.len() >= 20, "{p}: {}", full.len());
        for (filter, keep) in cases() {
            check_case(&[s(&d), "--partition", p], &full, &filter, keep);
        }
    }
    // A partition dir named directly, too.
    let part = d.join("orders-1");
    let full = full_records(&d, &["orders-1"]);
    for (filter, keep) in cases() {
        check_case(&[s(&part)], &full, &filter, keep);
    }
}

#[test]
fn every_filter_over_a_data_dir_with_topic_shows_every_partition_of_that_topic_filtered() {
    let lab = Lab::new();
    let d = data_dir(&lab);
    let full = full_records(&d, &["orders-0", "orders-1"]);
    for (filter, keep) in cases() {
        check_case(&[s(&d), "--topic", "orders"], &full, &filter, keep);
    }
    // The other topic is not in it, and is there by its own name.
    let other = full_records(&d, &["other-0"]);
    check_case(&[s(&d), "--topic", "other"], &other, &[], |_| true);
    // Unfiltered, --topic dumps the partitions in full, one after another.
    let all = record_lines(&ok(&["dump", s(&d), "--topic", "orders", "--json"]));
    assert_eq!(all, full);
}

#[test]
fn since_starts_from_the_time_index_without_reading_the_segments_before_it() {
    let lab = Lab::new();
    let d = data_dir(&lab);
    let p = d.join("orders-0");
    let since = (T0 + 20_000).to_string();
    let before = ok(&["dump", s(&p), "--since", &since, "--json"]);
    assert!(!record_lines(&before).is_empty());
    // Zero every segment but the last two: the seek must not need them.
    let mut logs: Vec<PathBuf> = std::fs::read_dir(&p)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|f| f.extension().is_some_and(|x| x == "log"))
        .collect();
    logs.sort();
    assert!(logs.len() >= 4, "{logs:?}");
    let first_kept = offset(&record_lines(&before)[0]);
    for log in &logs[..logs.len() - 2] {
        let base: i64 = log.file_stem().unwrap().to_str().unwrap().parse().unwrap();
        assert!(base < first_kept);
        let len = std::fs::metadata(log).unwrap().len() as usize;
        std::fs::write(log, vec![0u8; len]).unwrap();
    }
    let after = ok(&["dump", s(&p), "--since", &since, "--json"]);
    assert_eq!(record_lines(&after), record_lines(&before));
    // A full dump does read them: it now meets the zeros.
    let full = ok(&["dump", s(&p), "--json"]);
    assert!(full.contains("\"trailing\""), "{full}");
}

#[test]
fn to_stops_before_reading_the_segments_past_it() {
    let lab = Lab::new();
    let d = data_dir(&lab);
    let p = d.join("orders-0");
    let before = ok(&["dump", s(&p), "--to", "3", "--json"]);
    let mut logs: Vec<PathBuf> = std::fs::read_dir(&p)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|f| f.extension().is_some_and(|x| x == "log"))
        .collect();
    logs.sort();
    for log in &logs[1..] {
        std::fs::write(log, b"not a batch").unwrap();
    }
    // The replica line's log end comes from opening the replica; the batches and records from
    // the dump, which stops at --to.
    let shown = |out: &str| json_lines(out).into_iter().filter(|v| v["type"] != "replica").collect::<Vec<_>>();
    assert_eq!(shown(&ok(&["dump", s(&p), "--to", "3", "--json"])), shown(&before));
}

#[test]
fn count_with_batches_counts_the_batches_a_dump_shows() {
    let lab = Lab::new();
    let d = data_dir(&lab);
    let p = d.join("orders-0");
    let batches = json_lines(&ok(&["dump", s(&p), "--batches", "--json", "--to", "11"]))
        .into_iter()
        .filter(|v| v["type"] == "batch")
        .count();
    assert!(batches > 2);
    assert_eq!(ok(&["dump", s(&p), "--batches", "--count", "--to", "11"]).trim(), batches.to_string());
}

#[test]
fn bad_filter_values_exit_2_with_one_line_saying_what_was_expected() {
    let lab = Lab::new();
    let d = data_dir(&lab);
    let refused: &[(&[&str], &str)] = &[
        (&["--since", "yesterday"], "expected a time as ISO-8601"),
        (&["--until", "2026-12-07T03:00:00"], "expected a time as ISO-8601"),
        (&["--key-regex", "("], "not a regular expression"),
        (&["--header", "=x"], "non-empty NAME"),
        (&["--topic", "nosuch"], "no partition dir of topic 'nosuch'"),
        (&["--key", "k1"], "name one with --partition, or a topic with --topic"),
        (&["--to", "5"], "name one with --partition, or a topic with --topic"),
        (&["--count"], "name one with --partition, or a topic with --topic"),
        (&["--key", "k1", "--batches"], "cannot be used with"),
        (&["--count", "--limit", "3"], "cannot be used with"),
    ];
    let snapshot_before = snapshot(&d);
    for (args, expected) in refused {
        let mut a = vec!["dump", s(&d)];
        a.extend_from_slice(args);
        let (stdout, stderr) = code(&a, 2);
        assert!(stdout.is_empty(), "{args:?}: {stdout}");
        assert!(stderr.contains(expected), "{args:?}: {stderr}");
        assert_eq!(
            stderr.trim().lines().filter(|l| l.starts_with("klog: error") || l.starts_with("error")).count(),
            1,
            "{stderr}"
        );
    }
    let (_, stderr) = code(&["dump", s(&d.join("orders-0")), "--topic", "orders"], 2);
    assert!(stderr.contains("--topic needs a broker's log dir"), "{stderr}");
    assert_eq!(snapshot(&d), snapshot_before);
}

/// The bytes of a `dump --json` value, by its encoding.
fn value_bytes(r: &Value) -> Option<Vec<u8>> {
    let v = r["value"].as_str()?;
    Some(match r["value_encoding"].as_str().unwrap() {
        "utf8" => v.as_bytes().to_vec(),
        "hex" => (0..v.len()).step_by(2).map(|i| u8::from_str_radix(&v[i..i + 2], 16).unwrap()).collect(),
        other => panic!("unexpected encoding {other}"),
    })
}

#[test]
fn value_format_shows_values_as_hex_or_base64_and_names_a_confluent_schema_id() {
    let lab = Lab::new();
    let d = data_dir(&lab);
    // A Confluent wire-format value: magic 0, schema id 7, payload "hello".
    klog()
        .args(["append", s(&d), "--partition", "other-0", "--stdin", "--key", "avro"])
        .write_stdin(b"\x00\x00\x00\x00\x07hello\n".to_vec())
        .assert()
        .success();
    let full = full_records(&d, &["other-0"]);
    let hex = record_lines(&ok(&["dump", s(&d), "--topic", "other", "--json", "--value-format", "hex"]));
    assert_eq!(hex.len(), full.len());
    for (plain, shown) in full.iter().zip(&hex) {
        assert_eq!(value_bytes(shown), value_bytes(plain), "{shown}");
        assert_eq!(shown["value_encoding"], "hex");
        let confluent = plain["key"] == "avro";
        assert_eq!(shown["value_schema_id"].as_i64(), confluent.then_some(7), "{shown}");
        assert_eq!(plain.get("value_schema_id"), None, "named only with --value-format");
    }
    let kafka =
        ok(&["dump", s(&d), "--topic", "other", "--key", "avro", "--format", "kafka", "--value-format", "base64"]);
    assert!(kafka.contains(" confluentSchemaId: 7 payload: AAAAAAdoZWxsbw==\n"), "{kafka}");
    let table = ok(&["dump", s(&d), "--topic", "other", "--key", "avro", "--value-format", "text", "--width", "0"]);
    assert!(table.contains("Confluent wire format (schema id 7) hello"), "{table}");
    let table = ok(&["dump", s(&d), "--topic", "other", "--key", "avro", "--value-format", "hex", "--width", "0"]);
    assert!(table.contains("Confluent wire format (schema id 7) 68656c6c6f"), "{table}");
}

/// The time indexes a Kafka broker wrote: `--since T` (the seek from the time index) shows what
/// a full dump filtered by timestamp shows, for T at, around and between the indexed timestamps.
#[test]
fn since_on_broker_written_time_indexes_equals_the_full_dump_filtered_by_time() {
    let Some(real) = kafka_real() else { return };
    let mut checked = 0;
    for broker in ["kraft-broker-2026", "zk-broker-2020", "zk-broker-2021"] {
        let dir = real.join(broker);
        let mut partitions: Vec<PathBuf> = std::fs::read_dir(&dir)
            .unwrap()
            .map(|e| e.unwrap().path())
            .filter(|p| {
                std::fs::read_dir(p).is_ok_and(|mut files| {
                    files.any(|f| {
                        let f = f.unwrap().path();
                        f.extension().is_some_and(|x| x == "timeindex") && std::fs::metadata(&f).unwrap().len() > 12
                    })
                })
            })
            .collect();
        partitions.sort();
        for p in partitions {
            let full = record_lines(&ok(&["dump", s(&p), "--json"]));
            let mut times: Vec<i64> = full.iter().map(ts).collect();
            times.sort();
            times.dedup();
            let step = (times.len() / 6).max(1);
            let mut targets: Vec<i64> = times.iter().step_by(step).flat_map(|t| [t - 1, *t, t + 1]).collect();
            targets.extend([times[0] - 1000, times[times.len() - 1] + 1]);
            for t in targets {
                let since = record_lines(&ok(&["dump", s(&p), "--json", "--since", &t.to_string()]));
                let expected: Vec<Value> = full.iter().filter(|r| ts(r) >= t).cloned().collect();
                assert_eq!(since, expected, "{} --since {t}", p.display());
                checked += 1;
            }
        }
    }
    assert!(checked >= 20, "broker-written time indexes checked: {checked}");
}

#[test]
fn topic_on_a_broker_written_data_dir_dumps_each_of_its_partitions() {
    let Some(real) = kafka_real() else { return };
    let dir = real.join("zk-broker-2020");
    let full = full_records(&dir, &["first_topic-0", "first_topic-1", "first_topic-2"]);
    assert!(!full.is_empty());
    let topic = record_lines(&ok(&["dump", s(&dir), "--topic", "first_topic", "--json"]));
    assert_eq!(topic, full);
    let count = ok(&["dump", s(&dir), "--topic", "first_topic", "--count"]);
    assert_eq!(count.trim(), full.len().to_string());
}

/// Two multi-segment replicas that agree on m0..m9, then diverge: A led at a new epoch and took
/// x0..x2, B went on leading and took y0..y4 (offsets 10..12 differ, 13..14 only in B).
fn diverged_pair(lab: &Lab) -> (PathBuf, PathBuf) {
    let small = ["--segment-bytes", "400", "--index-interval-bytes", "100"];
    let (a, b) = (lab.create("a", 1, &small), lab.create("b", 2, &small));
    ok(&["elect", s(&b), "--isr", s(&a)]);
    for i in 0..10 {
        ok(&["append", s(&b), &format!("m{i}")]);
    }
    ok(&["fetch", "--leader", s(&b), s(&a), "--until-caught-up"]);
    ok(&["elect", s(&a)]);
    ok(&["append", s(&a), "x0", "x1", "x2"]);
    for i in 0..5 {
        ok(&["append", s(&b), &format!("y{i}")]);
    }
    (a, b)
}

/// A diff's ranges as one kind per offset (every offset of these logs holds a record).
fn kinds(doc: &Value) -> Vec<(i64, String)> {
    let mut out = Vec::new();
    for r in doc["ranges"].as_array().unwrap() {
        let (first, last) = (r["first_offset"].as_i64().unwrap(), r["last_offset"].as_i64().unwrap());
        assert_eq!(r["records"].as_i64().unwrap(), last - first + 1, "{r}");
        out.extend((first..=last).map(|o| (o, r["kind"].as_str().unwrap().to_string())));
    }
    out
}

#[test]
fn diff_from_to_equals_the_full_diff_cut_to_those_offsets_here() {
    let lab = Lab::new();
    let (a, b) = diverged_pair(&lab);
    let segments = std::fs::read_dir(b.join("demo-0"))
        .unwrap()
        .filter(|e| e.as_ref().unwrap().path().extension().is_some_and(|x| x == "log"));
    assert!(segments.count() > 2, "a multi-segment log");
    let (out, _) = code(&["diff", s(&a), s(&b), "--json"], 1);
    let full = json_lines(&out).remove(0);
    let all = kinds(&full);
    assert_eq!(full["first_divergent_offset"], 10, "{full}");
    let (leo_a, leo_b) = (13, 15);
    assert_eq!(all.len(), leo_b as usize);
    let windows = [
        (None, Some(3)),
        (Some(5), None),
        (Some(8), Some(12)),
        (Some(0), Some(0)),
        (Some(11), Some(40)),
        (Some(13), None),
        (Some(100), None),
    ];
    for (from, to) in windows {
        let mut args = vec!["diff".to_string(), s(&a).into(), s(&b).into(), "--json".into()];
        if let Some(f) = from {
            args.extend(["--from".into(), f.to_string()]);
        }
        if let Some(t) = to {
            args.extend(["--to".into(), t.to_string()]);
        }
        let r = run(&args);
        let doc = json_lines(&r.stdout).remove(0);
        let inside = |o: i64| from.is_none_or(|f| o >= f) && to.is_none_or(|t| o <= t);
        let want: Vec<(i64, String)> = all.iter().filter(|(o, _)| inside(*o)).cloned().collect();
        assert_eq!(kinds(&doc), want, "{args:?}: {doc}");
        // The first divergence inside the window: a differing record, or a record one side
        // lacks below both log ends.
        let shorter = leo_a.min(leo_b);
        let first = want.iter().find(|(o, k)| k == "differ" || (k != "agree" && *o < shorter)).map(|(o, _)| *o);
        assert_eq!(doc["first_divergent_offset"].as_i64(), first, "{args:?}: {doc}");
        assert_eq!(doc["identical"], first.is_none(), "{args:?}");
        assert_eq!(r.code, if first.is_some() { 1 } else { 0 }, "{args:?}");
        assert_eq!((doc["offsets"]["from"].as_i64(), doc["offsets"]["to"].as_i64()), (from, to), "{doc}");
    }
    assert!(full.get("offsets").is_none(), "no window, no offsets: {full}");
    // The table says which offsets it compared.
    let (text, _) = code(&["diff", s(&a), s(&b), "--from", "8", "--to", "12"], 1);
    assert!(text.contains("offsets 8 to 12 only (--from/--to)") && text.contains("10 to 12"), "{text}");
    let text = ok(&["diff", s(&a), s(&b), "--to", "9"]);
    assert!(text.contains("offsets up to 9 only (--to)") && text.contains("0 to 9"), "{text}");
}

#[test]
fn diff_from_to_is_refused_above_each_other_or_over_data_dirs_of_several_partitions() {
    let lab = Lab::new();
    let (a, b) = diverged_pair(&lab);
    let (out, err) = code(&["diff", s(&a), s(&b), "--from", "9", "--to", "3"], 2);
    assert!(
        out.is_empty() && err.contains("--from 9 is above --to 3") && err.contains("give --from at or below --to"),
        "{err}"
    );
    let (c, d) = (lab.create("c", 3, &["--partitions", "2"]), lab.create("e", 4, &["--partitions", "2"]));
    let (_, err) = code(&["diff", s(&c), s(&d), "--from", "1"], 2);
    assert!(err.contains("offsets of one partition") && err.contains("add --partition NAME"), "{err}");
    ok(&["diff", s(&c), s(&d), "--from", "1", "--partition", "demo-1"]);
}
