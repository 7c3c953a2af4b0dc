//! How a decoded internal-topic record is written: as the JSON Kafka's generated
//! `*JsonConverter.write` builds and Jackson prints (`kafka-dump-log.sh` with
//! `--cluster-metadata-decoder`, `--offsets-decoder`, `--transaction-log-decoder`), and as one
//! line of `name=value` pairs for the table. Pure rendering of what the command decoded.
//!
//! Jackson's rules kept here: fields in schema order; strings with `"`, `\` and control
//! characters escaped (`\b \t \n \f \r`, others `\u00XX` in upper-case hex), nothing else;
//! `bytes` as standard base64 with padding; a `Uuid` as Kafka prints it (URL-safe base64, no
//! padding); a `float64` as Java's `Double.toString`.

use crate::commands::dump::InternalRecord;
use crate::format::coordinator::{CoordinatorRead, CoordinatorRecord};
use crate::format::metadata::MetadataRecord;
use crate::format::schema::{Field, Value};
use crate::output::java_utf8::java_utf8;
use crate::tiered::remote_log_metadata::{RemoteLogSegmentState, RemotePartitionDeleteState};
use serde::Serialize;
use std::fmt::Write as _;

/// A string as Jackson writes it.
fn push_json_string(out: &mut String, s: &str) {
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\u{8}' => out.push_str("\\b"),
            '\t' => out.push_str("\\t"),
            '\n' => out.push_str("\\n"),
            '\u{c}' => out.push_str("\\f"),
            '\r' => out.push_str("\\r"),
            c if (c as u32) < 0x20 => {
                let _ = write!(out, "\\u{:04X}", c as u32);
            }
            c => out.push(c),
        }
    }
    out.push('"');
}

/// Java's `Double.toString` (shortest digits; decimal between 10^-3 and 10^7, else
/// computerized scientific notation).
pub fn java_double(x: f64) -> String {
    if x.is_nan() {
        return "NaN".into();
    }
    if x.is_infinite() {
        return if x > 0.0 { "Infinity" } else { "-Infinity" }.into();
    }
    if x == 0.0 {
        return if x.is_sign_negative() { "-0.0" } else { "0.0" }.into();
    }
    let sci = format!("{:e}", x.abs());
    let (mantissa, exponent) = sci.split_once('e').unwrap_or((&sci, "0"));
    let exponent: i32 = exponent.parse().unwrap_or(0);
    let digits: String = mantissa.chars().filter(|c| c.is_ascii_digit()).collect();
    let sign = if x < 0.0 { "-" } else { "" };
    if (-3..7).contains(&exponent) {
        let point = exponent + 1;
        let text = if point <= 0 {
            format!("0.{}{digits}", "0".repeat((-point) as usize))
        } else if point as usize >= digits.len() {
            format!("{digits}{}.0", "0".repeat(point as usize - digits.len()))
        } else {
            format!("{}.{}", &digits[..point as usize], &digits[point as usize..])
        };
        return format!("{sign}{text}");
    }
    let rest = if digits.len() > 1 { &digits[1..] } else { "0" };
    format!("{sign}{}.{rest}E{exponent}", &digits[..1])
}

fn push_value(out: &mut String, v: &Value<'_>) {
    match v {
        Value::Null => out.push_str("null"),
        Value::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
        Value::Int(i) => {
            let _ = write!(out, "{i}");
        }
        // Jackson writes NaN and the infinities as strings.
        Value::Float(x) if !x.is_finite() => push_json_string(out, &java_double(*x)),
        Value::Float(x) => out.push_str(&java_double(*x)),
        Value::Str(s) => push_json_string(out, &java_utf8(s)),
        Value::Bytes(b) => push_json_string(out, &crate::util::base64(b)),
        Value::Uuid(u) => push_json_string(out, &crate::util::base64_url(u)),
        Value::Text(t) => push_json_string(out, t),
        Value::Array(items) => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                push_value(out, item);
            }
            out.push(']');
        }
        Value::Struct(fields) => push_fields(out, fields),
    }
}

/// A struct as a JSON object, fields in schema order.
pub fn push_fields(out: &mut String, fields: &[Field<'_>]) {
    out.push('{');
    for (i, f) in fields.iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        push_json_string(out, f.name);
        out.push(':');
        push_value(out, &f.value);
    }
    out.push('}');
}

/// `ClusterMetadataLogMessageParser`: `{"type":"<MetadataRecordType>","version":V,"data":{..}}`.
pub fn metadata_json(r: &MetadataRecord<'_>) -> String {
    let mut out = format!("{{\"type\":\"{}\",\"version\":{},\"data\":", r.type_name(), r.version);
    push_fields(&mut out, &r.fields);
    out.push('}');
    out
}

/// `CoordinatorRecordMessageParser.prepareKey`: `{"type":"<record type>","data":{..}}`.
pub fn coordinator_key_json(r: &CoordinatorRecord<'_>) -> String {
    let mut out = format!("{{\"type\":\"{}\",\"data\":", r.record_type());
    push_fields(&mut out, &r.key);
    out.push('}');
    out
}

/// `prepareValue`: `{"version":"<version>","data":{..}}`, or `<DELETE>` for a tombstone.
pub fn coordinator_value_json(r: &CoordinatorRecord<'_>) -> String {
    match &r.value {
        None => "<DELETE>".into(),
        Some(v) => {
            let mut out = format!("{{\"version\":\"{}\",\"data\":", v.version);
            push_fields(&mut out, &v.fields);
            out.push('}');
            out
        }
    }
}

/// What `kafka-dump-log.sh` prints after a data record's metadata with its decoder: ` key: …`
/// and/or ` payload: …`.
pub fn dump_log_suffix(record: &InternalRecord<'_>, offset: i64) -> String {
    match record {
        InternalRecord::Metadata(Ok(r)) => format!(" payload: {}", metadata_json(r)),
        InternalRecord::Metadata(Err(e)) => format!(" payload: Error at {offset}, skipping. {}", e.kafka_message),
        InternalRecord::Coordinator(CoordinatorRead::Decoded(r)) => {
            format!(" key: {} payload: {}", coordinator_key_json(r), coordinator_value_json(r))
        }
        InternalRecord::Coordinator(CoordinatorRead::UnknownType(t)) => {
            format!(" key: Unknown record type {t} at offset {offset}, skipping.")
        }
        InternalRecord::Coordinator(CoordinatorRead::Invalid { error, .. }) => {
            format!(" key: Error at offset {offset}, skipping. {}", error.kafka_message)
        }
        // `kafka-dump-log.sh --remote-log-metadata-decoder` prints Java's `toString` of the
        // record, which klog does not imitate: the dump-log view prints these records as the
        // tool does without that decoder (`dump_log::write_decoded_line`), never through here.
        InternalRecord::RemoteLogMetadata(_) => String::new(),
    }
}

/// A value for the table: strings as text (escaped: a group id or topic name read from a record
/// may hold a newline, which would make a line of its own in the cell), arrays in brackets,
/// structs in braces.
fn push_text(out: &mut String, v: &Value<'_>) {
    match v {
        Value::Str(s) => out.push_str(&crate::escape::text(&java_utf8(s))),
        Value::Bytes(b) => {
            let _ = write!(out, "<{} bytes>", b.len());
        }
        Value::Uuid(u) => out.push_str(&crate::util::base64_url(u)),
        Value::Text(t) => out.push_str(&crate::escape::text(t)),
        Value::Array(items) => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                push_text(out, item);
            }
            out.push(']');
        }
        Value::Struct(fields) => {
            out.push('{');
            push_pairs(out, fields);
            out.push('}');
        }
        other => push_value(out, other),
    }
}

fn push_pairs(out: &mut String, fields: &[Field<'_>]) {
    for (i, f) in fields.iter().enumerate() {
        if i > 0 {
            out.push(' ');
        }
        out.push_str(f.name);
        out.push('=');
        push_text(out, &f.value);
    }
}

/// `Name field=value …`.
fn named(name: &str, fields: &[Field<'_>]) -> String {
    let mut out = name.to_string();
    if !fields.is_empty() {
        out.push(' ');
        push_pairs(&mut out, fields);
    }
    out
}

/// The table's key and value cells for a decoded record: (key, value, whether it decoded).
pub fn table_cells(record: &InternalRecord<'_>) -> (Option<String>, String, bool) {
    match record {
        InternalRecord::Metadata(Ok(r)) => (None, named(r.name(), &r.fields), true),
        InternalRecord::Metadata(Err(e)) => (None, format!("metadata record undecodable {e}"), false),
        InternalRecord::Coordinator(CoordinatorRead::Decoded(r)) => {
            let key = named(r.key_schema.name, &r.key);
            let value = match &r.value {
                None => "tombstone".to_string(),
                Some(v) => named(&format!("{} v{}", v.schema.name, v.version), &v.fields),
            };
            (Some(key), value, true)
        }
        InternalRecord::Coordinator(CoordinatorRead::UnknownType(t)) => {
            (None, format!("unknown coordinator record type {t}"), false)
        }
        InternalRecord::Coordinator(CoordinatorRead::Invalid { part, error }) => {
            (None, format!("coordinator record {part} undecodable {error}"), false)
        }
        InternalRecord::RemoteLogMetadata(Ok(r)) => {
            let mut text = named(r.name(), &r.fields);
            let state = |name| match crate::format::schema::find(&r.fields, name) {
                Some(Value::Int(i)) => Some(*i),
                _ => None,
            };
            if let Some(s) = state("remoteLogSegmentState").and_then(RemoteLogSegmentState::from_id) {
                let _ = write!(text, " ({})", s.name());
            }
            if let Some(s) = state("remotePartitionDeleteState").and_then(RemotePartitionDeleteState::from_id) {
                let _ = write!(text, " ({})", s.name());
            }
            (None, text, true)
        }
        InternalRecord::RemoteLogMetadata(Err(e)) => {
            (None, format!("remote log metadata record undecodable {e}"), false)
        }
    }
}

/// Why a decoded record's part did not decode: `{"error": ..., "part": ..., "position": ...}`.
#[derive(Serialize)]
pub struct DecodeErrorWire<'a> {
    error: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    part: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    position: Option<usize>,
}

/// A coordinator record's value: its schema's name and version, and Kafka's JSON of it.
#[derive(Serialize)]
pub struct CoordinatorValueWire<'a> {
    data: serde_json::Value,
    name: &'a str,
    version: i16,
}

/// The `decoded` object of `dump --json` (fields in the order the lines have always had).
/// `data` and `key` hold Kafka's own JSON of the record, parsed.
#[derive(Serialize)]
pub struct DecodedWire<'a> {
    #[serde(skip_serializing_if = "Option::is_none")]
    api_key: Option<i16>,
    #[serde(skip_serializing_if = "Option::is_none")]
    data: Option<serde_json::Value>,
    #[serde(skip_serializing_if = "Option::is_none")]
    error: Option<DecodeErrorWire<'a>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    key: Option<serde_json::Value>,
    kind: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    name: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    record_type: Option<i16>,
    #[serde(rename = "type", skip_serializing_if = "Option::is_none")]
    type_name: Option<String>,
    /// `null` for a tombstone (a coordinator record with no value); absent when not a coordinator record.
    #[serde(skip_serializing_if = "Option::is_none")]
    value: Option<Option<CoordinatorValueWire<'a>>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    version: Option<i16>,
}

/// The decoded record for `dump --json`: Kafka's JSON parsed into a value, with the record's
/// name, or the error with its byte position.
pub fn decoded_wire<'a>(record: &'a InternalRecord<'a>) -> DecodedWire<'a> {
    let parse = |text: String| serde_json::from_str::<serde_json::Value>(&text).unwrap_or(serde_json::Value::Null);
    let fields_json = |fields: &[Field<'_>]| {
        let mut s = String::new();
        push_fields(&mut s, fields);
        parse(s)
    };
    let error = |part: &'a str, e: &'a crate::format::schema::SchemaError| DecodeErrorWire {
        error: &e.what,
        part: Some(part),
        position: Some(e.position),
    };
    let empty = DecodedWire {
        api_key: None,
        data: None,
        error: None,
        key: None,
        kind: "coordinator",
        name: None,
        record_type: None,
        type_name: None,
        value: None,
        version: None,
    };
    match record {
        InternalRecord::Metadata(Ok(r)) => DecodedWire {
            api_key: Some(r.api_key()),
            data: Some(fields_json(&r.fields)),
            kind: "metadata",
            name: Some(r.name()),
            type_name: Some(r.type_name()),
            version: Some(r.version),
            ..empty
        },
        InternalRecord::Metadata(Err(e)) => DecodedWire { error: Some(error("value", e)), kind: "metadata", ..empty },
        InternalRecord::Coordinator(CoordinatorRead::Decoded(r)) => DecodedWire {
            key: Some(fields_json(&r.key)),
            name: Some(r.key_schema.name),
            record_type: Some(r.record_type()),
            value: Some(r.value.as_ref().map(|v| CoordinatorValueWire {
                data: fields_json(&v.fields),
                name: v.schema.name,
                version: v.version,
            })),
            ..empty
        },
        InternalRecord::Coordinator(CoordinatorRead::UnknownType(t)) => DecodedWire {
            error: Some(DecodeErrorWire { error: "unknown record type", part: None, position: None }),
            record_type: Some(*t),
            ..empty
        },
        InternalRecord::Coordinator(CoordinatorRead::Invalid { part, error: e }) => {
            DecodedWire { error: Some(error(part, e)), ..empty }
        }
        InternalRecord::RemoteLogMetadata(Ok(r)) => DecodedWire {
            api_key: Some(r.api_key()),
            data: Some(fields_json(&r.fields)),
            kind: "remote_log_metadata",
            name: Some(r.name()),
            version: Some(r.version),
            ..empty
        },
        InternalRecord::RemoteLogMetadata(Err(e)) => {
            DecodedWire { error: Some(error("value", e)), kind: "remote_log_metadata", ..empty }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn doubles_print_as_java_prints_them() {
        for (x, java) in [
            (1.0, "1.0"),
            (1048576.0, "1048576.0"),
            (1.0e7, "1.0E7"),
            (12345678.0, "1.2345678E7"),
            (0.001, "0.001"),
            (0.0001, "1.0E-4"),
            (-2.5, "-2.5"),
            (0.0, "0.0"),
            (100.0, "100.0"),
            (0.125, "0.125"),
        ] {
            assert_eq!(java_double(x), java, "{x}");
        }
    }

    #[test]
    fn a_string_from_a_record_is_escaped_in_a_table_cell() {
        let mut s = String::new();
        push_text(&mut s, &Value::Str(b"g\nklog: clean\xe2\x80\x8b"));
        assert_eq!(s, "g\\nklog: clean\\u{200b}");
    }

    #[test]
    fn strings_escape_as_jackson_escapes_them() {
        let mut s = String::new();
        push_json_string(&mut s, "a\"b\\c\n\u{1}é/");
        assert_eq!(s, "\"a\\\"b\\\\c\\n\\u0001é/\"");
    }

    #[test]
    fn a_metadata_record_prints_as_kafka_dump_log_prints_it() {
        let bytes = crate::format::metadata::tests::partition_change();
        let r = crate::format::metadata::decode(&bytes).unwrap();
        assert_eq!(
            metadata_json(&r),
            "{\"type\":\"PARTITION_CHANGE_RECORD\",\"version\":0,\"data\":{\"partitionId\":3,\
             \"topicId\":\"AQIDBAUGBwgJCgsMDQ4PEA\",\"isr\":[2,3],\"leader\":2}}"
        );
        let (_, text, ok) = table_cells(&InternalRecord::Metadata(Ok(r)));
        assert!(ok);
        assert_eq!(text, "PartitionChangeRecord partitionId=3 topicId=AQIDBAUGBwgJCgsMDQ4PEA isr=[2,3] leader=2");
    }
}
