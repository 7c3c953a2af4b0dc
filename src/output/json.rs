//! JSON lines: serialize-only wire structs, one object per line, each with a `type` field.
//! Keys and values that are not UTF-8 go out as base64 with an `*_encoding` field; null and
//! empty stay apart (`null` vs `""`).

use crate::commands::check::CheckReport;
use crate::commands::dump::{BatchRow, DumpEvent, EpochAgreement, EpochRow, ReplicaSummary};
use crate::error::{IoContext, Result};
use crate::format::record::Record;
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
}

pub fn record_json<'a>(batch: &BatchRow, r: &'a Record<'a>) -> impl Serialize + 'a {
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
        crc_valid: batch.crc_valid,
    }
}

pub fn replica_json(s: &ReplicaSummary) -> Value {
    json!({
        "type": "replica",
        "topic": s.topic,
        "partition": s.partition,
        "log_dir": s.log_dir.display().to_string(),
        "replica_id": s.replica_id,
        "role": s.role,
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

fn line(out: &mut dyn Write, v: &impl Serialize) -> Result<()> {
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
        DumpEvent::Record(b, r) => line(out, &record_json(b, r)),
        DumpEvent::Undecodable(b, why) => line(
            out,
            &json!({"type": "undecodable", "base_offset": b.base_offset, "position": b.position, "error": why}),
        ),
        DumpEvent::Trailing { path, position, len, what } => line(
            out,
            &json!({"type": "trailing", "path": path.display().to_string(), "position": position, "bytes": len, "what": what}),
        ),
        DumpEvent::IndexEntry { offset, position } => {
            line(out, &json!({"type": "index_entry", "offset": offset, "position": position}))
        }
        DumpEvent::TimeIndexEntry { timestamp, offset } => {
            line(out, &json!({"type": "time_index_entry", "timestamp": timestamp, "offset": offset}))
        }
        DumpEvent::EpochEntry { leader_epoch, start_offset } => {
            line(out, &json!({"type": "epoch_entry", "leader_epoch": leader_epoch, "start_offset": start_offset}))
        }
        DumpEvent::OffsetEntry { topic, partition, offset } => {
            line(out, &json!({"type": "offset_entry", "topic": topic, "partition": partition, "offset": offset}))
        }
    }
}

/// `check --json`: the replica line, one line per finding and note, then a summary line.
pub fn check_report(out: &mut dyn Write, r: &CheckReport) -> Result<()> {
    line(out, &replica_json(&r.summary))?;
    for f in &r.findings {
        line(
            out,
            &json!({"type": "finding", "path": f.path.display().to_string(), "position": f.position, "offset": f.offset, "what": f.what}),
        )?;
    }
    for n in &r.notes {
        line(out, &json!({"type": "note", "what": n}))?;
    }
    line(
        out,
        &json!({
            "type": "summary",
            "clean": r.is_clean(),
            "findings": r.findings.len(),
            "segments": r.segment_count,
            "batches": r.batch_count,
            "records": r.record_count,
            "bytes": r.bytes_checked,
        }),
    )
}

/// `fetch --json`: one object per round.
pub fn fetch_rounds(out: &mut dyn Write, r: &crate::commands::fetch::FetchReport) -> Result<()> {
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
                "leader_log_end_offset": round.leader_log_end_offset,
                "leader_high_watermark": round.leader_high_watermark,
                "follower_log_end_offset": round.follower_log_end_offset,
                "follower_high_watermark": round.follower_high_watermark,
                "stuck": round.stuck.as_ref().map(|s| json!({"batch_base_offset": s.batch_base_offset, "batch_last_offset": s.batch_last_offset})),
            }),
        )?;
    }
    Ok(())
}
