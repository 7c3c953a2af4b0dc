//! JSON lines: serialize-only wire structs, one object per line, each with a `type` field.
//! Keys and values that are not UTF-8 go out as base64 with an `*_encoding` field; null and
//! empty stay apart (`null` vs `""`).

use crate::commands::dump::ControlRead;
use crate::commands::dump::{BatchRow, DumpEvent, PartitionSummary};
use crate::error::{IoContext, Result};
use crate::format::control::ControlRecord;
use crate::format::record::Record;
use crate::log::index::{OffsetEntryCheck, TimeEntryCheck};
use crate::log::verify::{EpochAgreement, EpochRow};
use crate::replica::CheckReport;
use crate::replica::ReplicaSummary;
use serde::Serialize;
use serde_json::{json, Value};
use std::borrow::Cow;
use std::io::Write;

/// (value, encoding) for an optional byte string.
pub fn encode_bytes(bytes: Option<&[u8]>) -> (Option<Cow<'_, str>>, Option<&'static str>) {
    match bytes {
        None => (None, None),
        Some(b) => match std::str::from_utf8(b) {
            Ok(s) => (Some(Cow::Borrowed(s)), Some("utf8")),
            Err(_) => (Some(Cow::Owned(crate::util::base64(b))), Some("base64")),
        },
    }
}

#[derive(Serialize)]
struct HeaderJson<'a> {
    key: Cow<'a, str>,
    key_encoding: &'static str,
    value: Option<Cow<'a, str>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    value_encoding: Option<&'static str>,
}

#[derive(Serialize)]
struct RecordJson<'a> {
    r#type: &'static str,
    offset: i64,
    leader_epoch: i32,
    timestamp: i64,
    timestamp_type: &'static str,
    key: Option<Cow<'a, str>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    key_encoding: Option<&'static str>,
    value: Option<Cow<'a, str>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    value_encoding: Option<&'static str>,
    headers: Vec<HeaderJson<'a>>,
    batch_base_offset: i64,
    crc_valid: bool,
    /// The message's own CRC-32 (legacy v0/v1 messages only).
    #[serde(skip_serializing_if = "Option::is_none")]
    crc: Option<u32>,
    /// What a control record says (records of control batches only).
    #[serde(skip_serializing_if = "Option::is_none")]
    control: Option<Value>,
}

/// A control record as JSON: `{"type": "COMMIT", "coordinator_epoch": 3, ...}`, or
/// `{"type": "INVALID", "error": ...}` when its key or value does not decode.
pub fn control_json(control: &ControlRead) -> Value {
    match control {
        ControlRead::Invalid { error, .. } => json!({"type": "INVALID", "error": error}),
        ControlRead::Decoded(c) => {
            let mut v = match c {
                ControlRecord::EndTxn { version, coordinator_epoch, .. } => {
                    json!({"coordinator_epoch": coordinator_epoch, "version": version})
                }
                ControlRecord::LeaderChange { version, leader_id, voters, granting_voters } => json!({
                    "version": version, "leader_id": leader_id, "voters": voters, "granting_voters": granting_voters
                }),
                ControlRecord::SnapshotHeader { version, last_contained_log_timestamp } => {
                    json!({"version": version, "last_contained_log_timestamp": last_contained_log_timestamp})
                }
                ControlRecord::SnapshotFooter { version } => json!({ "version": version }),
                ControlRecord::KRaftVersion { version, kraft_version } => {
                    json!({"version": version, "kraft_version": kraft_version})
                }
                ControlRecord::KRaftVoters { version, voters } => json!({
                    "version": version,
                    "voters": voters.iter().map(|v| json!({
                        "voter_id": v.voter_id,
                        "voter_directory_id": v.voter_uuid,
                        "endpoints": v.endpoints.iter().map(|e| json!({"name": e.name, "host": e.host, "port": e.port})).collect::<Vec<_>>(),
                        "min_supported_version": v.min_supported_version,
                        "max_supported_version": v.max_supported_version,
                    })).collect::<Vec<_>>(),
                }),
                ControlRecord::Unknown { type_id } => json!({ "type_id": type_id }),
            };
            v["type"] = json!(c.type_name());
            v
        }
    }
}

pub fn record_json<'a>(batch: &BatchRow, r: &'a Record<'a>, control: Option<&ControlRead>) -> impl Serialize + 'a {
    let (key, key_encoding) = encode_bytes(r.key);
    let (value, value_encoding) = encode_bytes(r.value);
    RecordJson {
        r#type: "record",
        offset: r.offset,
        leader_epoch: batch.partition_leader_epoch,
        timestamp: r.timestamp,
        timestamp_type: batch.timestamp_type,
        key,
        key_encoding,
        value,
        value_encoding,
        headers: r
            .headers
            .iter()
            .map(|h| {
                let (key, enc) = encode_bytes(Some(h.key));
                let (value, value_encoding) = encode_bytes(h.value);
                HeaderJson { key: key.unwrap_or_default(), key_encoding: enc.unwrap_or("utf8"), value, value_encoding }
            })
            .collect(),
        batch_base_offset: batch.base_offset,
        crc_valid: batch.crc_valid && r.legacy.is_none_or(|l| l.crc_valid),
        crc: r.legacy.map(|l| l.crc),
        control: control.map(control_json),
    }
}

thread_local! {
    static RECORD_LINE: std::cell::RefCell<Vec<u8>> = const { std::cell::RefCell::new(Vec::new()) };
}

fn push_int(buf: &mut Vec<u8>, v: i64) {
    if v < 0 {
        buf.push(b'-');
    }
    buf.extend_from_slice(crate::util::decimal_digits(v.unsigned_abs(), &mut [0u8; 20]));
}

/// A JSON string with the escapes serde_json uses.
fn push_str(buf: &mut Vec<u8>, s: &str) {
    buf.push(b'"');
    let bytes = s.as_bytes();
    let mut start = 0;
    for (i, &b) in bytes.iter().enumerate() {
        let escape: &[u8] = match b {
            b'"' => b"\\\"",
            b'\\' => b"\\\\",
            b'\n' => b"\\n",
            b'\r' => b"\\r",
            b'\t' => b"\\t",
            0x08 => b"\\b",
            0x0c => b"\\f",
            0x00..=0x1f => b"",
            _ => continue,
        };
        buf.extend_from_slice(&bytes[start..i]);
        if escape.is_empty() {
            buf.extend_from_slice(format!("\\u{b:04x}").as_bytes());
        } else {
            buf.extend_from_slice(escape);
        }
        start = i + 1;
    }
    buf.extend_from_slice(&bytes[start..]);
    buf.push(b'"');
}

/// `"name":<string or null>` plus `"name_encoding":...` when not null, as `encode_bytes` says.
fn push_bytes_field(buf: &mut Vec<u8>, name: &str, bytes: Option<&[u8]>, encoding_always: bool) {
    buf.push(b'"');
    buf.extend_from_slice(name.as_bytes());
    buf.extend_from_slice(b"\":");
    let (value, encoding) = encode_bytes(bytes);
    match value {
        None => buf.extend_from_slice(b"null"),
        Some(v) => push_str(buf, &v),
    }
    if let Some(e) = encoding.or(encoding_always.then_some("utf8")) {
        buf.extend_from_slice(b",\"");
        buf.extend_from_slice(name.as_bytes());
        buf.extend_from_slice(b"_encoding\":\"");
        buf.extend_from_slice(e.as_bytes());
        buf.push(b'"');
    }
}

/// The same line as `record_json` for a v2, non-control record, written by hand.
fn write_record_line(buf: &mut Vec<u8>, b: &BatchRow, r: &Record<'_>) {
    buf.extend_from_slice(b"{\"type\":\"record\",\"offset\":");
    push_int(buf, r.offset);
    buf.extend_from_slice(b",\"leader_epoch\":");
    push_int(buf, b.partition_leader_epoch as i64);
    buf.extend_from_slice(b",\"timestamp\":");
    push_int(buf, r.timestamp);
    buf.extend_from_slice(b",\"timestamp_type\":\"");
    buf.extend_from_slice(b.timestamp_type.as_bytes());
    buf.extend_from_slice(b"\",");
    push_bytes_field(buf, "key", r.key, false);
    buf.push(b',');
    push_bytes_field(buf, "value", r.value, false);
    buf.extend_from_slice(b",\"headers\":[");
    for (i, h) in r.headers.iter().enumerate() {
        if i > 0 {
            buf.push(b',');
        }
        buf.push(b'{');
        push_bytes_field(buf, "key", Some(h.key), true);
        buf.push(b',');
        push_bytes_field(buf, "value", h.value, false);
        buf.push(b'}');
    }
    buf.extend_from_slice(b"],\"batch_base_offset\":");
    push_int(buf, b.base_offset);
    buf.extend_from_slice(if b.crc_valid { b",\"crc_valid\":true}\n" } else { b",\"crc_valid\":false}\n" });
}

pub fn replica_json(s: &ReplicaSummary) -> Value {
    json!({
        "type": "replica",
        "topic": s.topic,
        "partition": s.partition,
        "log_dir": s.log_dir.display().to_string(),
        "replica_id": s.replica_id,
        "role": s.role.name(),
        "leader_epoch": s.leader_epoch,
        "log_start_offset": s.log_start_offset,
        "log_end_offset": s.log_end_offset,
        "high_watermark": s.high_watermark,
        "recovery_point": s.recovery_point,
        "clean_shutdown": s.clean_shutdown,
        "segments": s.segment_count,
    })
}

pub fn epoch_json(r: &EpochRow) -> Value {
    let (agreement, stamped) = match r.agreement {
        EpochAgreement::Agrees => ("agrees", None),
        EpochAgreement::NoBatchesYet => ("no_batches_yet", None),
        EpochAgreement::StartDiffers { stamped_start_offset } => ("start_differs", Some(stamped_start_offset)),
        EpochAgreement::OnlyInCheckpoint => ("only_in_checkpoint", None),
        EpochAgreement::OnlyInBatches => ("only_in_batches", None),
    };
    json!({
        "type": "epoch",
        "leader_epoch": r.leader_epoch,
        "start_offset": r.start_offset,
        "end_offset": r.end_offset,
        "records": r.record_count,
        "agreement": agreement,
        "stamped_start_offset": stamped,
    })
}

pub fn partition_summary_json(p: &PartitionSummary) -> Value {
    json!({
        "type": "partition_summary",
        "partition": p.name,
        "segments": p.segment_count,
        "bytes": p.size_bytes,
        "log_start_offset": p.log_start_offset,
        "log_end_offset": p.log_end_offset,
        "high_watermark": p.high_watermark,
        "recovery_point": p.recovery_point,
        "latest_leader_epoch": p.latest_leader_epoch,
        "clean_shutdown": p.clean_shutdown,
        "error": p.error,
        "on_disk": p.on_disk,
    })
}

pub fn batch_json(b: &BatchRow) -> Value {
    json!({
        "type": "batch",
        "base_offset": b.base_offset,
        "last_offset": b.last_offset,
        "leader_epoch": b.partition_leader_epoch,
        "records": b.record_count,
        "position": b.position,
        "size_bytes": b.size_bytes,
        "magic": b.magic,
        "crc": b.crc,
        "crc_valid": b.crc_valid,
        "defect": b.defect,
        "compression": b.compression,
        "timestamp_type": b.timestamp_type,
        "max_timestamp": b.max_timestamp,
        "producer_id": b.producer_id,
        "producer_epoch": b.producer_epoch,
        "base_sequence": b.base_sequence,
        "last_sequence": b.last_sequence,
        "is_transactional": b.is_transactional,
        "is_control": b.is_control,
        "delete_horizon_ms": b.delete_horizon_ms,
        "segment": b.segment_base_offset,
    })
}

pub fn line(out: &mut dyn Write, v: &impl Serialize) -> Result<()> {
    serde_json::to_writer(&mut *out, v).map_err(|e| crate::error::Error::io("<stdout>", "write", e.into()))?;
    out.write_all(b"\n").at("<stdout>", "write")
}

/// Render one dump event as a JSON line.
pub fn dump_event(out: &mut dyn Write, event: DumpEvent<'_>) -> Result<()> {
    match event {
        DumpEvent::Replica(s) => line(out, &replica_json(s)),
        DumpEvent::Epochs(rows) => rows.iter().try_for_each(|r| line(out, &epoch_json(r))),
        DumpEvent::Segment { path, base_offset } => {
            line(out, &json!({"type": "segment", "path": path.display().to_string(), "base_offset": base_offset}))
        }
        DumpEvent::Batch(b) => line(out, &batch_json(b)),
        DumpEvent::Record(b, r, None) if r.legacy.is_none() => {
            // The hot path of `dump --json`: one line built by hand in a reused buffer.
            RECORD_LINE.with(|buf| {
                let mut buf = buf.borrow_mut();
                buf.clear();
                write_record_line(&mut buf, b, r);
                out.write_all(&buf).at("<stdout>", "write")
            })
        }
        DumpEvent::Record(b, r, control) => line(out, &record_json(b, r, control)),
        DumpEvent::Decoded(b, r, decoded) => {
            let mut v = serde_json::to_value(record_json(b, r, None))
                .map_err(|e| crate::error::Error::io("<stdout>", "write", e.into()))?;
            v["decoded"] = crate::output::internal_record::json_value(decoded);
            line(out, &v)
        }
        DumpEvent::Undecodable(b, why) => line(
            out,
            &json!({"type": "undecodable", "base_offset": b.base_offset, "position": b.position, "error": why}),
        ),
        DumpEvent::Trailing { path, position, len, what } => line(
            out,
            &json!({"type": "trailing", "path": path.display().to_string(), "position": position, "bytes": len, "what": what}),
        ),
        DumpEvent::File { .. } => Ok(()),
        DumpEvent::QuorumState(q) => line(
            out,
            &json!({
                "type": "quorum_state",
                "data_version": q.data_version,
                "cluster_id": q.cluster_id,
                "leader_id": q.leader_id,
                "leader_epoch": q.leader_epoch,
                "voted_id": q.voted_id,
                "voted_directory_id": q.voted_directory_id,
                "applied_offset": q.applied_offset,
                "current_voters": q.current_voters.as_ref().map(|v| v.iter().map(|v| v.voter_id).collect::<Vec<_>>()),
            }),
        ),
        DumpEvent::IndexEntry { offset, position, check } => {
            let mut v = json!({"type": "index_entry", "offset": offset, "position": position});
            match check {
                OffsetEntryCheck::Matches => v["check"] = json!("matches"),
                OffsetEntryCheck::NoLog => v["check"] = json!("no_log"),
                OffsetEntryCheck::Mismatch { log_offset, batch_start } => {
                    v["check"] = json!("mismatch");
                    v["log_offset"] = json!(log_offset);
                    v["batch_start"] = json!(batch_start);
                }
            }
            line(out, &v)
        }
        DumpEvent::TimeIndexEntry { timestamp, offset, check, .. } => {
            let mut v = json!({"type": "time_index_entry", "timestamp": timestamp, "offset": offset});
            v["check"] = json!(match check {
                TimeEntryCheck::MatchesBatch => "matches_batch",
                TimeEntryCheck::MatchesRecord => "matches_record",
                TimeEntryCheck::TimestampMismatch { .. } => "timestamp_mismatch",
                TimeEntryCheck::OutOfOrder { .. } => "out_of_order",
                TimeEntryCheck::NotFound { .. } => "not_found",
                TimeEntryCheck::NoLog => "no_log",
            });
            match check {
                TimeEntryCheck::TimestampMismatch { log_timestamp } => v["log_timestamp"] = json!(log_timestamp),
                TimeEntryCheck::OutOfOrder { previous_timestamp } => {
                    v["previous_timestamp"] = json!(previous_timestamp)
                }
                TimeEntryCheck::NotFound { found_log_offset } => v["found_log_offset"] = json!(found_log_offset),
                _ => {}
            }
            line(out, &v)
        }
        DumpEvent::TxnIndexEntry(t) => line(
            out,
            &json!({
                "type": "aborted_txn",
                "version": t.version,
                "producer_id": t.producer_id,
                "first_offset": t.first_offset,
                "last_offset": t.last_offset,
                "last_stable_offset": t.last_stable_offset,
            }),
        ),
        DumpEvent::ProducerSnapshot(s) => line(
            out,
            &json!({
                "type": "producer_snapshot",
                "version": s.version,
                "crc": s.crc,
                "computed_crc": s.computed_crc,
                "crc_valid": s.crc_valid(),
                "entries": s.entries.len(),
            }),
        ),
        DumpEvent::ProducerEntry(e) => line(
            out,
            &json!({
                "type": "producer_entry",
                "producer_id": e.producer_id,
                "producer_epoch": e.producer_epoch,
                "first_sequence": e.first_sequence(),
                "last_sequence": e.last_sequence,
                "last_offset": e.last_offset,
                "offset_delta": e.offset_delta,
                "timestamp": e.timestamp,
                "coordinator_epoch": e.coordinator_epoch,
                "current_txn_first_offset": (e.current_txn_first_offset >= 0).then_some(e.current_txn_first_offset),
            }),
        ),
        DumpEvent::PartitionSummary(p) => line(out, &partition_summary_json(p)),
        // Each partition is a line of its own; a JSON reader counts them.
        DumpEvent::LogDirTotals { .. } => Ok(()),
        DumpEvent::Rendered(chunk) => out.write_all(&chunk.bytes).at("<stdout>", "write"),
        DumpEvent::Problem { path, position, line: at_line, what } => line(
            out,
            &json!({"type": "problem", "path": path.display().to_string(), "position": position, "line": at_line, "what": what}),
        ),
        DumpEvent::EpochEntry { leader_epoch, start_offset } => {
            line(out, &json!({"type": "epoch_entry", "leader_epoch": leader_epoch, "start_offset": start_offset}))
        }
        DumpEvent::OffsetEntry { topic, partition, offset } => {
            line(out, &json!({"type": "offset_entry", "topic": topic, "partition": partition, "offset": offset}))
        }
    }
}

/// `check --json`: the replica line, one line per finding and note, then a summary line.
/// A `finding` object.
pub fn finding_json(f: &crate::replica::Finding) -> Value {
    json!({"type": "finding", "path": f.path.display().to_string(), "position": f.position, "line": f.line, "offset": f.offset, "what": f.what, "expected": f.expected, "found": f.found})
}

pub fn check_report(out: &mut dyn Write, r: &CheckReport) -> Result<()> {
    line(out, &replica_json(&r.summary))?;
    for f in &r.verification.findings {
        line(out, &finding_json(f))?;
    }
    for n in &r.verification.notes {
        line(out, &json!({"type": "note", "what": n}))?;
    }
    line(
        out,
        &json!({
            "type": "summary",
            "clean": r.is_clean(),
            "findings": r.verification.findings.len(),
            "segments": r.verification.segment_count,
            "batches": r.verification.batch_count,
            "records": r.verification.record_count,
            "bytes": r.verification.bytes_checked,
        }),
    )
}

/// `fetch --json`: one object per round.
pub fn fetch_rounds(out: &mut dyn Write, r: &crate::commands::fetch::FetchReport) -> Result<()> {
    // A local recovery that ran before the rounds is reported first, as in the text form.
    for (role, startup) in [("leader", &r.leader_startup), ("follower", &r.follower_startup)] {
        if let Some(s) = startup {
            let mut v = super::report::recovery_json(s);
            v["type"] = json!("local_recovery");
            v["replica"] = json!(role);
            line(out, &v)?;
        }
    }
    for (i, round) in r.rounds.iter().enumerate() {
        line(
            out,
            &json!({
                "type": "fetch_round",
                "round": i + 1,
                "fetch_offset": round.fetch_offset,
                "truncated": round.truncated.map(|(a, b)| json!({"from": a, "to": b})),
                "batches": round.batches_copied,
                "records": round.records_copied,
                "bytes": round.bytes_copied,
                "returned_high_watermark": round.returned_high_watermark,
                "leader_log_start_offset": round.leader_log_start_offset,
                "leader_log_end_offset": round.leader_log_end_offset,
                "leader_high_watermark": round.leader_high_watermark,
                "follower_log_end_offset": round.follower_log_end_offset,
                "follower_high_watermark": round.follower_high_watermark,
                "stuck": round.stuck.as_ref().map(|s| json!({"batch_base_offset": s.batch_base_offset, "batch_last_offset": s.batch_last_offset})),
                "kafka": round.rules.release.to_string(),
                "truncation_on_fetch": round.rules.truncation_on_fetch,
                "last_fetched_epoch": round.last_fetched_epoch,
                "leader_epoch_end": round.leader_epoch_end.map(|e| json!({"leader_epoch": e.leader_epoch, "end_offset": e.end_offset})),
                "answer": fetch_answer_json(&round.answer),
                "answer_truncation": round.answer_truncation.map(|t| fetch_truncation_json(&t)),
                "no_progress": round.no_progress(),
            }),
        )?;
    }
    Ok(())
}

/// A fetch round's answer: `{"type": "records" | "diverging" | "offset_out_of_range", ...}`.
fn fetch_answer_json(a: &crate::replication::fetch::FetchAnswer) -> Value {
    use crate::replication::fetch::FetchAnswer;
    match *a {
        FetchAnswer::Records => json!({"type": "records"}),
        FetchAnswer::Diverging { leader_epoch, end_offset } => {
            json!({"type": "diverging", "leader_epoch": leader_epoch, "end_offset": end_offset})
        }
        FetchAnswer::OffsetOutOfRange(why) => json!({"type": "offset_out_of_range", "cause": why.name()}),
    }
}

/// What the follower did on a diverging or out-of-range answer.
fn fetch_truncation_json(t: &crate::replication::fetch::AnswerTruncation) -> Value {
    use crate::replication::fetch::AnswerTruncation;
    match *t {
        AnswerTruncation::Diverging { offset, reason, follower_epoch_end, complete } => json!({
            "type": "diverging_epoch",
            "offset": offset,
            "reason": reason.describe(),
            "follower_epoch_end": follower_epoch_end.map(|e| json!({"leader_epoch": e.leader_epoch, "end_offset": e.end_offset})),
            "complete": complete,
        }),
        AnswerTruncation::ToLeaderEnd { offset } => json!({"type": "to_leader_log_end", "offset": offset}),
        AnswerTruncation::RestartAtLeaderStart { offset } => {
            json!({"type": "restart_at_leader_log_start", "offset": offset})
        }
        AnswerTruncation::Kept => json!({"type": "kept"}),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::format::record::Header;

    #[test]
    fn the_hand_written_record_line_equals_the_serde_one() {
        let row = BatchRow {
            segment_base_offset: 0,
            position: 0,
            size_bytes: 100,
            magic: 2,
            base_offset: 7,
            last_offset: 9,
            partition_leader_epoch: 3,
            record_count: 3,
            crc: 1,
            crc_valid: true,
            defect: None,
            compression: "none",
            timestamp_type: "CreateTime",
            max_timestamp: 5,
            producer_id: -1,
            producer_epoch: -1,
            base_sequence: -1,
            last_sequence: -1,
            is_transactional: false,
            is_control: false,
            delete_horizon_ms: None,
        };
        let weird = "q\"b\\s\n\t\u{1}\u{7f}é";
        for (key, value, headers) in [
            (None, Some(&b"v"[..]), vec![]),
            (Some(&b""[..]), None, vec![Header { key: b"h", value: None }]),
            (Some(weird.as_bytes()), Some(&[0xff, 0x00][..]), vec![Header { key: &[0xfe], value: Some(b"x") }]),
        ] {
            let r = Record {
                offset: -12,
                timestamp: 1_700_000_000_000,
                attributes: 0,
                key,
                value,
                headers,
                size_bytes: 0,
                legacy: None,
            };
            let mut fast = Vec::new();
            write_record_line(&mut fast, &row, &r);
            let mut slow = serde_json::to_vec(&record_json(&row, &r, None)).unwrap();
            slow.push(b'\n');
            assert_eq!(String::from_utf8(fast).unwrap(), String::from_utf8(slow).unwrap());
        }
    }
}
