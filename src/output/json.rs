//! JSON lines: serialize-only wire structs, one object per line, each with a `type` field.
//! Keys and values that are not UTF-8 go out as base64 with an `*_encoding` field; null and
//! empty stay apart (`null` vs `""`).
//!
//! The wire structs here and in the other renderers exist only to be serialized (ripgrep's
//! `printer/src/jsont.rs`): they borrow from the reports and are never read back. Their
//! fields are declared in the order the documents have always been written (alphabetical in
//! most: the documents were first built as `serde_json::Value` maps), so a reader that
//! compares text sees the same lines.
//!
//! Schema version: every document klog prints (every JSON line, and each one-document
//! output such as `recover --json`) opens with `"schema":` [`SCHEMA`], an integer. It goes up
//! by one when a field is renamed or removed, changes meaning or type, or moves to another
//! document; adding a field keeps it. Nested objects carry no version of their own: the
//! document's covers them.

use super::values::{self, ValueFormat};
use crate::commands::dump::ControlRead;
use crate::commands::dump::{BatchRow, DumpEvent, PartitionSummary};
use crate::error::{IoContext, Result};
use crate::format::control::ControlRecord;
use crate::format::producer_snapshot::ProducerEntry;
use crate::format::record::Record;
use crate::log::index::{OffsetEntryCheck, TimeEntryCheck};
use crate::log::verify::{EpochAgreement, EpochRow};
use crate::replica::CheckReport;
use crate::replica::{QuorumState, ReplicaSummary};
use serde::{Serialize, Serializer};
use std::borrow::Cow;
use std::io::Write;
use std::path::Path;

/// The version of klog's JSON documents: the `schema` field that opens each one.
pub const SCHEMA: u32 = 1;

/// One printed document: `"schema"` first, then the document's own fields.
#[derive(Serialize)]
struct Document<'a, T: ?Sized> {
    schema: u32,
    #[serde(flatten)]
    body: &'a T,
}

/// A path as text (`Path::display`, lossy where the name is not UTF-8).
pub struct Shown<'a>(pub &'a Path);

impl Serialize for Shown<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        s.collect_str(&self.0.display())
    }
}

/// An epoch-cache entry: `{"leader_epoch": 3, "start_offset": 10}`.
#[derive(Serialize)]
pub struct EpochStart {
    pub leader_epoch: i32,
    pub start_offset: i64,
}

/// Where an epoch ends (a leader's answer to OffsetsForLeaderEpoch).
#[derive(Serialize)]
pub struct EpochEnd {
    pub end_offset: i64,
    pub leader_epoch: i32,
}

impl From<crate::log::epoch_cache::EpochEndOffset> for EpochEnd {
    fn from(e: crate::log::epoch_cache::EpochEndOffset) -> EpochEnd {
        EpochEnd { end_offset: e.end_offset, leader_epoch: e.leader_epoch }
    }
}

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
struct HeaderWire<'a> {
    key: Cow<'a, str>,
    key_encoding: &'static str,
    value: Option<Cow<'a, str>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    value_encoding: Option<&'static str>,
}

#[derive(Serialize)]
struct RecordWire<'a> {
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
    /// With `--value-format`: the schema id of a value in Confluent's wire format.
    #[serde(skip_serializing_if = "Option::is_none")]
    value_schema_id: Option<i32>,
    headers: Vec<HeaderWire<'a>>,
    batch_base_offset: i64,
    crc_valid: bool,
    /// The message's own CRC-32 (legacy v0/v1 messages only).
    #[serde(skip_serializing_if = "Option::is_none")]
    crc: Option<u32>,
    /// What a control record says (records of control batches only).
    #[serde(skip_serializing_if = "Option::is_none")]
    control: Option<ControlWire<'a>>,
}

/// A KRaft voter in a `KRaftVoters` control record.
#[derive(Serialize)]
struct VoterWire<'a> {
    endpoints: Vec<EndpointWire<'a>>,
    max_supported_version: i16,
    min_supported_version: i16,
    voter_directory_id: &'a str,
    voter_id: i32,
}

#[derive(Serialize)]
struct EndpointWire<'a> {
    host: &'a str,
    name: &'a str,
    port: u16,
}

/// `voters`: ids in a `LeaderChange`, whole voters in a `KRaftVoters`.
#[derive(Serialize)]
#[serde(untagged)]
enum VotersWire<'a> {
    Ids(&'a [i32]),
    Voters(Vec<VoterWire<'a>>),
}

/// A control record as JSON: `{"type": "COMMIT", "coordinator_epoch": 3, ...}`, or
/// `{"type": "INVALID", "error": ...}` when its key or value does not decode. Each kind
/// writes only its own fields.
#[derive(Serialize, Default)]
pub struct ControlWire<'a> {
    #[serde(skip_serializing_if = "Option::is_none")]
    coordinator_epoch: Option<i32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    error: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    granting_voters: Option<&'a [i32]>,
    #[serde(skip_serializing_if = "Option::is_none")]
    kraft_version: Option<i16>,
    #[serde(skip_serializing_if = "Option::is_none")]
    last_contained_log_timestamp: Option<i64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    leader_id: Option<i32>,
    #[serde(rename = "type")]
    kind: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    type_id: Option<i16>,
    #[serde(skip_serializing_if = "Option::is_none")]
    version: Option<i16>,
    #[serde(skip_serializing_if = "Option::is_none")]
    voters: Option<VotersWire<'a>>,
}

pub fn control_wire(control: &ControlRead) -> ControlWire<'_> {
    let c = match control {
        ControlRead::Invalid { error, .. } => {
            return ControlWire { error: Some(error), kind: "INVALID", ..Default::default() }
        }
        ControlRead::Decoded(c) => c,
    };
    let kind = c.type_name();
    match c {
        ControlRecord::EndTxn { version, coordinator_epoch, .. } => ControlWire {
            coordinator_epoch: Some(*coordinator_epoch),
            kind,
            version: Some(*version),
            ..Default::default()
        },
        ControlRecord::LeaderChange { version, leader_id, voters, granting_voters } => ControlWire {
            granting_voters: Some(granting_voters),
            leader_id: Some(*leader_id),
            kind,
            version: Some(*version),
            voters: Some(VotersWire::Ids(voters)),
            ..Default::default()
        },
        ControlRecord::SnapshotHeader { version, last_contained_log_timestamp } => ControlWire {
            last_contained_log_timestamp: Some(*last_contained_log_timestamp),
            kind,
            version: Some(*version),
            ..Default::default()
        },
        ControlRecord::SnapshotFooter { version } => {
            ControlWire { kind, version: Some(*version), ..Default::default() }
        }
        ControlRecord::KRaftVersion { version, kraft_version } => {
            ControlWire { kraft_version: Some(*kraft_version), kind, version: Some(*version), ..Default::default() }
        }
        ControlRecord::KRaftVoters { version, voters } => ControlWire {
            kind,
            version: Some(*version),
            voters: Some(VotersWire::Voters(
                voters
                    .iter()
                    .map(|v| VoterWire {
                        endpoints: v
                            .endpoints
                            .iter()
                            .map(|e| EndpointWire { host: &e.host, name: &e.name, port: e.port })
                            .collect(),
                        max_supported_version: v.max_supported_version,
                        min_supported_version: v.min_supported_version,
                        voter_directory_id: &v.voter_uuid,
                        voter_id: v.voter_id,
                    })
                    .collect(),
            )),
            ..Default::default()
        },
        ControlRecord::Unknown { type_id } => ControlWire { kind, type_id: Some(*type_id), ..Default::default() },
    }
}

fn record_wire<'a>(batch: &BatchRow, r: &'a Record<'a>, control: Option<&'a ControlRead>) -> RecordWire<'a> {
    let (key, key_encoding) = encode_bytes(r.key);
    let (value, value_encoding) = encode_bytes(r.value);
    RecordWire {
        r#type: "record",
        offset: r.offset,
        leader_epoch: batch.partition_leader_epoch,
        timestamp: r.timestamp,
        timestamp_type: batch.timestamp_type,
        key,
        key_encoding,
        value,
        value_encoding,
        value_schema_id: None,
        headers: r
            .headers
            .iter()
            .map(|h| {
                let (key, enc) = encode_bytes(Some(h.key));
                let (value, value_encoding) = encode_bytes(h.value);
                HeaderWire { key: key.unwrap_or_default(), key_encoding: enc.unwrap_or("utf8"), value, value_encoding }
            })
            .collect(),
        batch_base_offset: batch.base_offset,
        crc_valid: batch.crc_valid && r.legacy.is_none_or(|l| l.crc_valid),
        crc: r.legacy.map(|l| l.crc),
        control: control.map(control_wire),
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
    buf.extend_from_slice(b"{\"schema\":");
    push_int(buf, SCHEMA as i64);
    buf.extend_from_slice(b",\"type\":\"record\",\"offset\":");
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

/// A replica's summary: the `replica` line, and `a`/`b` of a `diff` document.
#[derive(Serialize)]
pub struct ReplicaWire<'a> {
    clean_shutdown: bool,
    high_watermark: Option<i64>,
    leader_epoch: Option<i32>,
    log_dir: Shown<'a>,
    log_end_offset: i64,
    log_start_offset: i64,
    /// The log-start-offset checkpoint's entry when below the first local segment (a tiered
    /// partition's log start across tiers); absent otherwise.
    #[serde(skip_serializing_if = "Option::is_none")]
    log_start_offset_checkpoint_below_local: Option<i64>,
    partition: i32,
    recovery_point: i64,
    replica_id: Option<i32>,
    role: &'static str,
    segments: usize,
    topic: &'a str,
    #[serde(rename = "type")]
    kind: &'static str,
}

pub fn replica_wire(s: &ReplicaSummary) -> ReplicaWire<'_> {
    ReplicaWire {
        clean_shutdown: s.clean_shutdown,
        high_watermark: s.high_watermark,
        leader_epoch: s.leader_epoch,
        log_dir: Shown(&s.log_dir),
        log_end_offset: s.log_end_offset,
        log_start_offset: s.log_start_offset,
        log_start_offset_checkpoint_below_local: s.log_start_offset_checkpoint_below_local,
        partition: s.partition,
        recovery_point: s.recovery_point,
        replica_id: s.replica_id,
        role: s.role.name(),
        segments: s.segment_count,
        topic: &s.topic,
        kind: "replica",
    }
}

#[derive(Serialize)]
struct EpochWire {
    agreement: &'static str,
    end_offset: i64,
    leader_epoch: i32,
    records: u64,
    stamped_start_offset: Option<i64>,
    start_offset: i64,
    #[serde(rename = "type")]
    kind: &'static str,
}

fn epoch_wire(r: &EpochRow) -> EpochWire {
    let (agreement, stamped) = match r.agreement {
        EpochAgreement::Agrees => ("agrees", None),
        EpochAgreement::NoBatchesYet => ("no_batches_yet", None),
        EpochAgreement::StartDiffers { stamped_start_offset } => ("start_differs", Some(stamped_start_offset)),
        EpochAgreement::OnlyInCheckpoint => ("only_in_checkpoint", None),
        EpochAgreement::OnlyInBatches => ("only_in_batches", None),
        EpochAgreement::BelowLocalStart => ("below_local_start", None),
    };
    EpochWire {
        agreement,
        end_offset: r.end_offset,
        leader_epoch: r.leader_epoch,
        records: r.record_count,
        stamped_start_offset: stamped,
        start_offset: r.start_offset,
        kind: "epoch",
    }
}

#[derive(Serialize)]
struct PartitionSummaryWire<'a> {
    bytes: u64,
    clean_shutdown: bool,
    error: Option<&'a str>,
    high_watermark: Option<i64>,
    latest_leader_epoch: Option<i32>,
    log_end_offset: i64,
    log_start_offset: i64,
    on_disk: bool,
    partition: &'a str,
    recovery_point: Option<i64>,
    segments: usize,
    #[serde(rename = "type")]
    kind: &'static str,
}

fn partition_summary_wire(p: &PartitionSummary) -> PartitionSummaryWire<'_> {
    PartitionSummaryWire {
        bytes: p.size_bytes,
        clean_shutdown: p.clean_shutdown,
        error: p.error.as_deref(),
        high_watermark: p.high_watermark,
        latest_leader_epoch: p.latest_leader_epoch,
        log_end_offset: p.log_end_offset,
        log_start_offset: p.log_start_offset,
        on_disk: p.on_disk,
        partition: &p.name,
        recovery_point: p.recovery_point,
        segments: p.segment_count,
        kind: "partition_summary",
    }
}

#[derive(Serialize)]
struct BatchWire<'a> {
    base_offset: i64,
    base_sequence: i32,
    compression: &'static str,
    crc: u32,
    crc_valid: bool,
    defect: Option<&'a str>,
    delete_horizon_ms: Option<i64>,
    is_control: bool,
    is_transactional: bool,
    last_offset: i64,
    last_sequence: i32,
    leader_epoch: i32,
    magic: i8,
    max_timestamp: i64,
    position: u64,
    producer_epoch: i16,
    producer_id: i64,
    records: i32,
    segment: i64,
    size_bytes: u64,
    timestamp_type: &'static str,
    #[serde(rename = "type")]
    kind: &'static str,
}

fn batch_wire(b: &BatchRow) -> BatchWire<'_> {
    BatchWire {
        base_offset: b.base_offset,
        base_sequence: b.base_sequence,
        compression: b.compression,
        crc: b.crc,
        crc_valid: b.crc_valid,
        defect: b.defect.as_deref(),
        delete_horizon_ms: b.delete_horizon_ms,
        is_control: b.is_control,
        is_transactional: b.is_transactional,
        last_offset: b.last_offset,
        last_sequence: b.last_sequence,
        leader_epoch: b.partition_leader_epoch,
        magic: b.magic,
        max_timestamp: b.max_timestamp,
        producer_epoch: b.producer_epoch,
        producer_id: b.producer_id,
        records: b.record_count,
        position: b.position,
        segment: b.segment_base_offset,
        size_bytes: b.size_bytes,
        timestamp_type: b.timestamp_type,
        kind: "batch",
    }
}

/// A record of an internal topic with what its schema reads in it (`decoded`). Its fields
/// are in alphabetical order, unlike a plain `record` line's.
#[derive(Serialize)]
struct DecodedRecordWire<'a> {
    batch_base_offset: i64,
    #[serde(skip_serializing_if = "Option::is_none")]
    crc: Option<u32>,
    crc_valid: bool,
    decoded: super::internal_record::DecodedWire<'a>,
    headers: Vec<HeaderWire<'a>>,
    key: Option<Cow<'a, str>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    key_encoding: Option<&'static str>,
    leader_epoch: i32,
    offset: i64,
    timestamp: i64,
    timestamp_type: &'static str,
    #[serde(rename = "type")]
    kind: &'static str,
    value: Option<Cow<'a, str>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    value_encoding: Option<&'static str>,
}

fn decoded_record_wire<'a>(
    batch: &BatchRow,
    r: &'a Record<'a>,
    decoded: &'a crate::commands::dump::InternalRecord<'a>,
) -> DecodedRecordWire<'a> {
    let RecordWire {
        offset,
        leader_epoch,
        timestamp,
        timestamp_type,
        key,
        key_encoding,
        value,
        value_encoding,
        headers,
        batch_base_offset,
        crc_valid,
        crc,
        ..
    } = record_wire(batch, r, None);
    DecodedRecordWire {
        batch_base_offset,
        crc,
        crc_valid,
        decoded: super::internal_record::decoded_wire(decoded),
        headers,
        key,
        key_encoding,
        leader_epoch,
        offset,
        timestamp,
        timestamp_type,
        kind: "record",
        value,
        value_encoding,
    }
}

#[derive(Serialize)]
struct SegmentWire<'a> {
    base_offset: i64,
    path: Shown<'a>,
    #[serde(rename = "type")]
    kind: &'static str,
}

#[derive(Serialize)]
struct UndecodableWire<'a> {
    base_offset: i64,
    error: &'a str,
    position: u64,
    #[serde(rename = "type")]
    kind: &'static str,
}

#[derive(Serialize)]
struct TrailingWire<'a> {
    bytes: u64,
    path: Shown<'a>,
    position: u64,
    #[serde(rename = "type")]
    kind: &'static str,
    what: &'a str,
}

#[derive(Serialize)]
struct QuorumStateWire<'a> {
    applied_offset: i64,
    cluster_id: Option<&'a str>,
    current_voters: Option<Vec<i32>>,
    data_version: i16,
    leader_epoch: i32,
    leader_id: i32,
    #[serde(rename = "type")]
    kind: &'static str,
    voted_directory_id: Option<&'a str>,
    voted_id: i32,
}

/// An offset index entry and what the log says at it.
#[derive(Serialize)]
struct IndexEntryWire {
    #[serde(skip_serializing_if = "Option::is_none")]
    batch_start: Option<bool>,
    check: &'static str,
    /// `null` when the log has no batch there; absent unless the entry mismatches.
    #[serde(skip_serializing_if = "Option::is_none")]
    log_offset: Option<Option<i64>>,
    offset: i64,
    position: u64,
    #[serde(rename = "type")]
    kind: &'static str,
}

/// A time index entry and what the log says at it.
#[derive(Serialize)]
struct TimeIndexEntryWire {
    check: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    found_log_offset: Option<Option<i64>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    log_timestamp: Option<i64>,
    offset: i64,
    #[serde(skip_serializing_if = "Option::is_none")]
    previous_timestamp: Option<i64>,
    timestamp: i64,
    #[serde(rename = "type")]
    kind: &'static str,
}

#[derive(Serialize)]
struct AbortedTxnWire {
    first_offset: i64,
    last_offset: i64,
    last_stable_offset: i64,
    producer_id: i64,
    #[serde(rename = "type")]
    kind: &'static str,
    version: i16,
}

#[derive(Serialize)]
struct ProducerSnapshotWire {
    computed_crc: u32,
    crc: u32,
    crc_valid: bool,
    entries: usize,
    #[serde(rename = "type")]
    kind: &'static str,
    version: i16,
}

#[derive(Serialize)]
struct ProducerEntryWire {
    coordinator_epoch: i32,
    current_txn_first_offset: Option<i64>,
    first_sequence: i32,
    last_offset: i64,
    last_sequence: i32,
    offset_delta: i32,
    producer_epoch: i16,
    producer_id: i64,
    timestamp: i64,
    #[serde(rename = "type")]
    kind: &'static str,
}

#[derive(Serialize)]
struct ProblemWire<'a> {
    line: Option<usize>,
    path: Shown<'a>,
    position: u64,
    #[serde(rename = "type")]
    kind: &'static str,
    what: &'a str,
}

#[derive(Serialize)]
struct EpochEntryWire {
    leader_epoch: i32,
    start_offset: i64,
    #[serde(rename = "type")]
    kind: &'static str,
}

#[derive(Serialize)]
struct OffsetEntryWire<'a> {
    offset: i64,
    partition: i32,
    topic: &'a str,
    #[serde(rename = "type")]
    kind: &'static str,
}

/// A document's bytes, `schema` first, without the newline.
pub fn document_bytes(v: &impl Serialize) -> Result<Vec<u8>> {
    serde_json::to_vec(&Document { schema: SCHEMA, body: v })
        .map_err(|e| crate::error::Error::io("<stdout>", "write", e.into()))
}

/// Write one document as a line: `{"schema":1,` then the document's fields.
pub fn line(out: &mut dyn Write, v: &impl Serialize) -> Result<()> {
    serde_json::to_writer(&mut *out, &Document { schema: SCHEMA, body: v })
        .map_err(|e| crate::error::Error::io("<stdout>", "write", e.into()))?;
    out.write_all(b"\n").at("<stdout>", "write")
}

/// Render one dump event as a JSON line, a record's value shown as `dump --value-format` says
/// (`value_encoding` `utf8`, `hex` or `base64`, and `value_schema_id` for Confluent's wire format).
pub fn dump_event_with(out: &mut dyn Write, event: DumpEvent<'_>, values: Option<ValueFormat>) -> Result<()> {
    match (values, event) {
        (Some(format), DumpEvent::Record(b, r, control)) => {
            let mut wire = record_wire(b, r, control);
            if let Some(v) = r.value {
                let (value, encoding) = values::encode(v, format);
                (wire.value, wire.value_encoding) = (Some(value), Some(encoding));
                wire.value_schema_id = values::confluent_schema_id(v);
            }
            line(out, &wire)
        }
        (_, event) => dump_event(out, event),
    }
}

/// Render one dump event as a JSON line.
pub fn dump_event(out: &mut dyn Write, event: DumpEvent<'_>) -> Result<()> {
    match event {
        DumpEvent::Replica(s) => line(out, &replica_wire(s)),
        DumpEvent::Epochs(rows) => rows.iter().try_for_each(|r| line(out, &epoch_wire(r))),
        DumpEvent::Segment { path, base_offset } => {
            line(out, &SegmentWire { base_offset, path: Shown(path), kind: "segment" })
        }
        DumpEvent::Batch(b) => line(out, &batch_wire(b)),
        DumpEvent::Record(b, r, None) if r.legacy.is_none() => {
            // The hot path of `dump --json`: one line built by hand in a reused buffer.
            RECORD_LINE.with(|buf| {
                let mut buf = buf.borrow_mut();
                buf.clear();
                write_record_line(&mut buf, b, r);
                out.write_all(&buf).at("<stdout>", "write")
            })
        }
        DumpEvent::Record(b, r, control) => line(out, &record_wire(b, r, control)),
        DumpEvent::Decoded(b, r, decoded) => line(out, &decoded_record_wire(b, r, decoded)),
        DumpEvent::Undecodable(b, why) => line(
            out,
            &UndecodableWire { base_offset: b.base_offset, error: why, position: b.position, kind: "undecodable" },
        ),
        DumpEvent::Trailing { path, position, len, what } => {
            line(out, &TrailingWire { bytes: len, path: Shown(path), position, kind: "trailing", what })
        }
        DumpEvent::File { .. } => Ok(()),
        DumpEvent::QuorumState(q) => line(out, &quorum_state_wire(q)),
        DumpEvent::IndexEntry { offset, position, check } => line(out, &index_entry_wire(offset, position, check)),
        DumpEvent::TimeIndexEntry { timestamp, offset, check, .. } => {
            line(out, &time_index_entry_wire(timestamp, offset, check))
        }
        DumpEvent::TxnIndexEntry(t) => line(
            out,
            &AbortedTxnWire {
                first_offset: t.first_offset,
                last_offset: t.last_offset,
                last_stable_offset: t.last_stable_offset,
                producer_id: t.producer_id,
                kind: "aborted_txn",
                version: t.version,
            },
        ),
        DumpEvent::ProducerSnapshot(s) => line(
            out,
            &ProducerSnapshotWire {
                computed_crc: s.computed_crc,
                crc: s.crc,
                crc_valid: s.crc_valid(),
                entries: s.entries.len(),
                kind: "producer_snapshot",
                version: s.version,
            },
        ),
        DumpEvent::ProducerEntry(e) => line(out, &producer_entry_wire(e)),
        DumpEvent::PartitionSummary(p) => line(out, &partition_summary_wire(p)),
        // Each partition is a line of its own; a JSON reader counts them.
        DumpEvent::LogDirTotals { .. } => Ok(()),
        DumpEvent::Rendered(chunk) => out.write_all(&chunk.bytes).at("<stdout>", "write"),
        DumpEvent::Problem { path, position, line: at_line, what } => {
            line(out, &ProblemWire { line: at_line, path: Shown(path), position, kind: "problem", what })
        }
        DumpEvent::EpochEntry { leader_epoch, start_offset } => {
            line(out, &EpochEntryWire { leader_epoch, start_offset, kind: "epoch_entry" })
        }
        DumpEvent::OffsetEntry { topic, partition, offset } => {
            line(out, &OffsetEntryWire { offset, partition, topic, kind: "offset_entry" })
        }
    }
}

/// What a `quorum-state` file says, as its line.
fn quorum_state_wire(q: &QuorumState) -> QuorumStateWire<'_> {
    QuorumStateWire {
        applied_offset: q.applied_offset,
        cluster_id: q.cluster_id.as_deref(),
        current_voters: q.current_voters.as_ref().map(|v| v.iter().map(|v| v.voter_id).collect()),
        data_version: q.data_version,
        leader_epoch: q.leader_epoch,
        leader_id: q.leader_id,
        kind: "quorum_state",
        voted_directory_id: q.voted_directory_id.as_deref(),
        voted_id: q.voted_id,
    }
}

/// An offset index entry and what the log holds at it.
fn index_entry_wire(offset: i64, position: u64, check: OffsetEntryCheck) -> IndexEntryWire {
    let (check, log_offset, batch_start) = match check {
        OffsetEntryCheck::Matches => ("matches", None, None),
        OffsetEntryCheck::NoLog => ("no_log", None, None),
        OffsetEntryCheck::Mismatch { log_offset, batch_start } => ("mismatch", Some(log_offset), Some(batch_start)),
    };
    IndexEntryWire { batch_start, check, log_offset, offset, position, kind: "index_entry" }
}

/// A time index entry and what the log holds at it.
fn time_index_entry_wire(timestamp: i64, offset: i64, check: TimeEntryCheck) -> TimeIndexEntryWire {
    let mut v = TimeIndexEntryWire {
        check: "",
        found_log_offset: None,
        log_timestamp: None,
        offset,
        previous_timestamp: None,
        timestamp,
        kind: "time_index_entry",
    };
    v.check = match check {
        TimeEntryCheck::MatchesBatch => "matches_batch",
        TimeEntryCheck::MatchesRecord => "matches_record",
        TimeEntryCheck::TimestampMismatch { log_timestamp } => {
            v.log_timestamp = Some(log_timestamp);
            "timestamp_mismatch"
        }
        TimeEntryCheck::OutOfOrder { previous_timestamp } => {
            v.previous_timestamp = Some(previous_timestamp);
            "out_of_order"
        }
        TimeEntryCheck::NotFound { found_log_offset } => {
            v.found_log_offset = Some(found_log_offset);
            "not_found"
        }
        TimeEntryCheck::NoLog => "no_log",
    };
    v
}

/// A producer snapshot's entry.
fn producer_entry_wire(e: &ProducerEntry) -> ProducerEntryWire {
    ProducerEntryWire {
        coordinator_epoch: e.coordinator_epoch,
        current_txn_first_offset: (e.current_txn_first_offset >= 0).then_some(e.current_txn_first_offset),
        first_sequence: e.first_sequence(),
        last_offset: e.last_offset,
        last_sequence: e.last_sequence,
        offset_delta: e.offset_delta,
        producer_epoch: e.producer_epoch,
        producer_id: e.producer_id,
        timestamp: e.timestamp,
        kind: "producer_entry",
    }
}

/// A `finding` object (a line of its own in `check --json`, nested in other documents).
#[derive(Serialize)]
pub struct FindingWire<'a> {
    expected: Option<&'a str>,
    found: Option<&'a str>,
    line: Option<usize>,
    offset: Option<i64>,
    path: Shown<'a>,
    position: u64,
    #[serde(rename = "type")]
    kind: &'static str,
    what: &'a str,
}

pub fn finding_wire(f: &crate::replica::Finding) -> FindingWire<'_> {
    FindingWire {
        expected: f.expected.as_deref(),
        found: f.found.as_deref(),
        line: f.line,
        offset: f.offset,
        path: Shown(&f.path),
        position: f.position,
        kind: "finding",
        what: &f.what,
    }
}

/// A `note` line: something worth knowing that is not a finding.
#[derive(Serialize)]
pub struct NoteWire<'a> {
    #[serde(rename = "type")]
    pub kind: &'static str,
    pub what: &'a str,
}

impl<'a> NoteWire<'a> {
    pub fn new(what: &'a str) -> NoteWire<'a> {
        NoteWire { kind: "note", what }
    }
}

#[derive(Serialize)]
struct CheckSummaryWire {
    batches: u64,
    bytes: u64,
    clean: bool,
    findings: usize,
    records: u64,
    segments: usize,
    #[serde(rename = "type")]
    kind: &'static str,
}

/// `check --json`: the replica line, one line per finding and note, then a summary line.
pub fn check_report(out: &mut dyn Write, r: &CheckReport) -> Result<()> {
    line(out, &replica_wire(&r.summary))?;
    for f in &r.verification.findings {
        line(out, &finding_wire(f))?;
    }
    for n in &r.verification.notes {
        line(out, &NoteWire::new(n))?;
    }
    let v = &r.verification;
    line(
        out,
        &CheckSummaryWire {
            batches: v.batch_count,
            bytes: v.bytes_checked,
            clean: r.is_clean(),
            findings: v.findings.len(),
            records: v.record_count,
            segments: v.segment_count,
            kind: "summary",
        },
    )
}

#[derive(Serialize)]
struct StuckWire {
    batch_base_offset: i64,
    batch_last_offset: i64,
}

/// A fetch round's answer: `{"type": "records" | "diverging" | "offset_out_of_range", ...}`.
#[derive(Serialize)]
struct FetchAnswerWire {
    #[serde(skip_serializing_if = "Option::is_none")]
    cause: Option<&'static str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    end_offset: Option<i64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    leader_epoch: Option<i32>,
    #[serde(rename = "type")]
    kind: &'static str,
}

fn fetch_answer_wire(a: &crate::replication::fetch::FetchAnswer) -> FetchAnswerWire {
    use crate::replication::fetch::FetchAnswer;
    let none = FetchAnswerWire { cause: None, end_offset: None, leader_epoch: None, kind: "records" };
    match *a {
        FetchAnswer::Records => none,
        FetchAnswer::Diverging { leader_epoch, end_offset } => FetchAnswerWire {
            end_offset: Some(end_offset),
            leader_epoch: Some(leader_epoch),
            kind: "diverging",
            ..none
        },
        FetchAnswer::OffsetOutOfRange(why) => {
            FetchAnswerWire { cause: Some(why.name()), kind: "offset_out_of_range", ..none }
        }
    }
}

/// What the follower did on a diverging or out-of-range answer.
#[derive(Serialize)]
struct FetchTruncationWire {
    #[serde(skip_serializing_if = "Option::is_none")]
    complete: Option<bool>,
    /// `null` when the follower had no end for the epoch; absent for other kinds.
    #[serde(skip_serializing_if = "Option::is_none")]
    follower_epoch_end: Option<Option<EpochEnd>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    offset: Option<i64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    reason: Option<&'static str>,
    #[serde(rename = "type")]
    kind: &'static str,
}

fn fetch_truncation_wire(t: &crate::replication::fetch::AnswerTruncation) -> FetchTruncationWire {
    use crate::replication::fetch::AnswerTruncation;
    let none =
        FetchTruncationWire { complete: None, follower_epoch_end: None, offset: None, reason: None, kind: "kept" };
    match *t {
        AnswerTruncation::Diverging { offset, reason, follower_epoch_end, complete } => FetchTruncationWire {
            complete: Some(complete),
            follower_epoch_end: Some(follower_epoch_end.map(EpochEnd::from)),
            offset: Some(offset),
            reason: Some(reason.describe()),
            kind: "diverging_epoch",
        },
        AnswerTruncation::ToLeaderEnd { offset } => {
            FetchTruncationWire { offset: Some(offset), kind: "to_leader_log_end", ..none }
        }
        AnswerTruncation::RestartAtLeaderStart { offset } => {
            FetchTruncationWire { offset: Some(offset), kind: "restart_at_leader_log_start", ..none }
        }
        AnswerTruncation::Kept => none,
    }
}

#[derive(Serialize)]
struct FetchRoundWire {
    answer: FetchAnswerWire,
    answer_truncation: Option<FetchTruncationWire>,
    batches: u64,
    broker_stops: bool,
    bytes: u64,
    fetch_offset: i64,
    follower_high_watermark: i64,
    follower_log_end_offset: i64,
    kafka: String,
    last_fetched_epoch: Option<i32>,
    leader_epoch_end: Option<EpochEnd>,
    leader_high_watermark: i64,
    leader_log_end_offset: i64,
    leader_log_start_offset: i64,
    no_progress: bool,
    records: u64,
    returned_high_watermark: i64,
    round: usize,
    stuck: Option<StuckWire>,
    truncated: Option<super::report::FromTo>,
    truncation_on_fetch: bool,
    #[serde(rename = "type")]
    kind: &'static str,
}

/// `fetch --json`: one object per round.
pub fn fetch_rounds(out: &mut dyn Write, r: &crate::commands::fetch::FetchReport) -> Result<()> {
    // A local recovery that ran before the rounds is reported first, as in the text form.
    for (role, startup) in [("leader", &r.leader_startup), ("follower", &r.follower_startup)] {
        if let Some(s) = startup {
            let mut v = super::report::recovery_wire(s);
            v.kind = Some("local_recovery");
            v.replica = Some(role);
            line(out, &v)?;
        }
    }
    for (i, round) in r.rounds.iter().enumerate() {
        line(
            out,
            &FetchRoundWire {
                answer: fetch_answer_wire(&round.answer),
                answer_truncation: round.answer_truncation.map(|t| fetch_truncation_wire(&t)),
                batches: round.batches_copied,
                broker_stops: round.broker_stops,
                bytes: round.bytes_copied,
                fetch_offset: round.fetch_offset,
                follower_high_watermark: round.follower_high_watermark,
                follower_log_end_offset: round.follower_log_end_offset,
                kafka: round.rules.release.to_string(),
                last_fetched_epoch: round.last_fetched_epoch,
                leader_epoch_end: round.leader_epoch_end.map(EpochEnd::from),
                leader_high_watermark: round.leader_high_watermark,
                leader_log_end_offset: round.leader_log_end_offset,
                leader_log_start_offset: round.leader_log_start_offset,
                no_progress: round.no_progress(),
                records: round.records_copied,
                returned_high_watermark: round.returned_high_watermark,
                round: i + 1,
                stuck: round.stuck.as_ref().map(|s| StuckWire {
                    batch_base_offset: s.batch_base_offset,
                    batch_last_offset: s.batch_last_offset,
                }),
                truncated: round.truncated.map(|(from, to)| super::report::FromTo { from, to }),
                truncation_on_fetch: round.rules.truncation_on_fetch,
                kind: "fetch_round",
            },
        )?;
    }
    Ok(())
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
            let mut slow = document_bytes(&record_wire(&row, &r, None)).unwrap();
            slow.push(b'\n');
            assert_eq!(String::from_utf8(fast).unwrap(), String::from_utf8(slow).unwrap());
        }
    }
}
