//! KRaft metadata records: the values of the data records of `__cluster_metadata` and of KRaft
//! snapshots (`.checkpoint`). Each is Kafka's `MetadataRecordSerde` frame — unsigned varints
//! for the frame version (1), the record type (`MetadataRecordType` id) and its version — then
//! the record, decoded by [`super::schema`] from its schema (every type and version Kafka 4.4
//! defines). Nothing is left over: bytes after the record are an error, as Kafka makes them.

use super::schema::{self, decode_message, Field, MessageSchema, Reader, SchemaError};

/// A decoded metadata record.
#[derive(Debug, Clone, PartialEq)]
pub struct MetadataRecord<'a> {
    pub schema: &'static MessageSchema,
    pub version: i16,
    pub fields: Vec<Field<'a>>,
}

impl MetadataRecord<'_> {
    /// The schema's name (`PartitionChangeRecord`).
    pub fn name(&self) -> &'static str {
        self.schema.name
    }

    pub fn api_key(&self) -> i16 {
        self.schema.api_key.unwrap_or(-1)
    }

    /// The `MetadataRecordType` constant (`PARTITION_CHANGE_RECORD`).
    pub fn type_name(&self) -> String {
        type_name(self.schema.name)
    }
}

/// Kafka's `MessageGenerator.toSnakeCase(name).toUpperCase()`.
pub fn type_name(name: &str) -> String {
    let mut out = String::with_capacity(name.len() + 8);
    for (i, c) in name.chars().enumerate() {
        if c.is_ascii_uppercase() && i > 0 {
            out.push('_');
        }
        out.push(c.to_ascii_uppercase());
    }
    out
}

/// Decode a metadata record's value (`AbstractApiMessageSerde.read`). A version above the
/// highest Kafka 4.4 knows is read as Kafka reads it, by the fields of the versions it knows;
/// an error carries the message Kafka's serde gives (`MetadataParseException`).
pub fn decode(value: &[u8]) -> Result<MetadataRecord<'_>, SchemaError> {
    decode_in("metadata", value)
}

/// [`decode`] among the metadata-type messages of schema group `group`: `metadata` (KRaft's
/// `MetadataRecordSerde`) or `remote` (`__remote_log_metadata`'s `RemoteLogMetadataSerde`, a
/// `BytesApiMessageSerde` over the same frame).
pub fn decode_in<'a>(group: &str, value: &'a [u8]) -> Result<MetadataRecord<'a>, SchemaError> {
    let mut r = Reader::new(value);
    let short = |r: &mut Reader<'_>, what: &str| -> Result<i16, SchemaError> {
        let start = r.position();
        let v = r.uvarint(what).map_err(|e| e.kafka(format!("Error while reading {what}")))?;
        i16::try_from(v).map_err(|_| {
            r.error(start, format!("value for {what} was too large: {v}"))
                .kafka(format!("Value for {what} was too large."))
        })
    };
    let frame_version = short(&mut r, "frame version")?;
    if frame_version != 1 {
        let e = r.error(0, format!("unknown frame version {frame_version} (only frame version 1 is supported)"));
        return Err(e.kafka(if frame_version == 0 {
            "Could not deserialize metadata record with frame version 0. Note that upgrades from the preview \
             release of KRaft in 2.8 to newer versions are not supported."
                .to_string()
        } else {
            format!(
                "Could not deserialize metadata record due to unknown frame version {frame_version}(only frame \
                 version 1 is supported)"
            )
        }));
    }
    let type_position = r.position();
    let api_key = short(&mut r, "type")?;
    let version = short(&mut r, "version")?;
    let schema = schema::schemas().find(group, "metadata", api_key).ok_or_else(|| {
        r.error(type_position, format!("unknown metadata record type {api_key}"))
            .kafka(format!("org.apache.kafka.common.errors.UnsupportedVersionException: Unknown metadata id {api_key}"))
    })?;
    let fields = decode_message(schema, version, &mut r).map_err(|e| {
        let what = format!("{} v{version}: {}", schema.name, e.what);
        SchemaError::new(e.position, what).kafka(format!("Failed to deserialize record with type {api_key}"))
    })?;
    if r.remaining() > 0 {
        let what = format!("{} byte(s) of garbage after {}", r.remaining(), schema.name);
        let kafka = format!("Found {} byte(s) of garbage after {api_key}", r.remaining());
        return Err(r.error(r.position(), what).kafka(kafka));
    }
    Ok(MetadataRecord { schema, version, fields })
}

#[cfg(test)]
pub mod tests {
    use super::*;
    use crate::format::schema::{find, Value};

    /// A PartitionChangeRecord v0 (partition 3 of topic id 1..16, leader 2, ISR [2, 3]).
    pub fn partition_change() -> Vec<u8> {
        let mut v = vec![1, 5, 0]; // frame 1, type 5, version 0
        v.extend(3i32.to_be_bytes());
        v.extend(1..=16u8);
        // two tagged fields: Isr (tag 0) = [2,3]; Leader (tag 1) = 2
        v.push(2);
        v.extend([0, 9, 3]);
        v.extend(2i32.to_be_bytes());
        v.extend(3i32.to_be_bytes());
        v.extend([1, 4]);
        v.extend(2i32.to_be_bytes());
        v
    }

    #[test]
    fn a_partition_change_decodes_with_its_tagged_fields() {
        let bytes = partition_change();
        let r = decode(&bytes).unwrap();
        assert_eq!(r.name(), "PartitionChangeRecord");
        assert_eq!(r.type_name(), "PARTITION_CHANGE_RECORD");
        assert_eq!(find(&r.fields, "partitionId"), Some(&Value::Int(3)));
        assert_eq!(find(&r.fields, "leader"), Some(&Value::Int(2)));
        assert_eq!(find(&r.fields, "isr"), Some(&Value::Array(vec![Value::Int(2), Value::Int(3)])));
        // absent tagged fields are not shown
        assert_eq!(find(&r.fields, "replicas"), None);
        let names: Vec<&str> = r.fields.iter().map(|f| f.name).collect();
        assert_eq!(names, ["partitionId", "topicId", "isr", "leader"]);
    }

    #[test]
    fn every_cut_and_every_flipped_byte_gives_an_error_or_a_record_never_a_panic() {
        let bytes = partition_change();
        for cut in 0..bytes.len() {
            let e = decode(&bytes[..cut]).unwrap_err();
            assert!(e.position <= cut, "{cut}: {e}");
        }
        for i in 0..bytes.len() {
            for bit in 0..8 {
                let mut b = bytes.clone();
                b[i] ^= 1 << bit;
                let _ = decode(&b);
            }
        }
        let e = decode(&[bytes.as_slice(), &[0]].concat()).unwrap_err();
        assert_eq!(e.position, bytes.len());
        assert!(e.what.contains("garbage"), "{e}");
    }

    #[test]
    fn a_huge_array_length_is_refused_before_allocating() {
        // TopicRecord? No: PartitionRecord v0 with a Replicas length of 2^28.
        let mut v = vec![1, 3, 0];
        v.extend(0i32.to_be_bytes());
        v.extend([0u8; 16]);
        v.extend([0x80, 0x80, 0x80, 0x80, 0x01]);
        let e = decode(&v).unwrap_err();
        assert_eq!(e.position, 23);
        assert!(e.what.contains("collection of size"), "{e}");
    }

    #[test]
    fn unknown_frames_types_and_versions_are_named() {
        assert!(decode(&[0, 2, 0]).unwrap_err().what.contains("frame version 0"));
        assert!(decode(&[1, 6, 0]).unwrap_err().what.contains("unknown metadata record type 6"));
        // a version past Kafka 4.4's is read by the fields it knows, as Kafka reads it
        let e = decode(&[1, 2, 9]).unwrap_err();
        assert_eq!(e.kafka_message, "Failed to deserialize record with type 2");
        assert!(e.what.starts_with("TopicRecord v9: "), "{e}");
        assert!(decode(&[]).is_err());
    }
}
