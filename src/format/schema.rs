//! Kafka's message schemas, and one decoder driven by them. Kafka generates a reader per
//! message from JSON schema files (`generator/.../MessageDataGenerator`); klog keeps the facts
//! those readers are made of — per message its api key, valid and flexible versions; per field
//! its name, type, versions, nullable versions, tagged versions, tag and default — in
//! `kafka_schemas.tsv` (generated from Kafka 4.4.0's jars by `scripts/kafka_schemas.py`; Apache
//! Kafka, Apache License 2.0), and reads any of those messages with the one walk below.
//!
//! The encoding (Kafka `Readable`, `ByteUtils`): fixed-width big-endian integers, `float64`,
//! 16-byte uuids; in a version below the message's flexible versions, strings as int16 length,
//! bytes and arrays as int32 length (−1: null); in a flexible version, compact strings, bytes and
//! arrays (unsigned varint length + 1, 0: null) and, after each struct's fields, a tagged-field
//! section (count, then tag, size, value per field; unknown tags are skipped). A nullable struct
//! carries an int8 marker (a uvarint when tagged), negative (≤ 0 when tagged) for null.
//!
//! The result keeps what Kafka's generated `JsonConverter.write` prints: the fields present in
//! the version, in schema order, named in camel case; a tagged field only when it differs from
//! its default. Decoding never panics and never allocates more than the input can hold: an
//! array's length is checked against the bytes left before anything is allocated (as Kafka's
//! readers do), and every error names the byte position where it went wrong.

use std::fmt;
use std::sync::OnceLock;

const TABLE: &str = include_str!("kafka_schemas.tsv");

/// A version range (`"0+"`, `"1"`, `"0-2"`, `"none"`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Versions {
    low: i16,
    high: i16,
}

impl Versions {
    const NONE: Versions = Versions { low: 1, high: 0 };

    fn parse(s: &str) -> Option<Versions> {
        if s == "none" || s == "-" {
            return Some(Versions::NONE);
        }
        if let Some(low) = s.strip_suffix('+') {
            return Some(Versions { low: low.parse().ok()?, high: i16::MAX });
        }
        match s.split_once('-') {
            Some((l, h)) => Some(Versions { low: l.parse().ok()?, high: h.parse().ok()? }),
            None => {
                let v = s.parse().ok()?;
                Some(Versions { low: v, high: v })
            }
        }
    }

    pub fn contains(&self, version: i16) -> bool {
        self.low <= version && version <= self.high
    }

    pub fn lowest(&self) -> i16 {
        self.low
    }

    pub fn highest(&self) -> i16 {
        self.high
    }
}

/// A field's type.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FieldType {
    Bool,
    Int8,
    Int16,
    Uint16,
    Int32,
    Uint32,
    Int64,
    Float64,
    String,
    Bytes,
    Uuid,
    /// A struct of the same message, by index.
    Struct(usize),
    Array(Box<FieldType>),
}

/// One field of a struct.
#[derive(Debug, Clone)]
pub struct FieldSchema {
    /// The schema's name (`PartitionId`).
    pub name: &'static str,
    /// The name Kafka's JSON converters print (`partitionId`).
    pub json_name: String,
    pub field_type: FieldType,
    pub versions: Versions,
    pub nullable_versions: Versions,
    pub tagged_versions: Versions,
    pub tag: Option<u32>,
    /// The schema's default as written (`-` when it gives none).
    pub default: &'static str,
}

#[derive(Debug, Clone)]
pub struct StructSchema {
    pub name: &'static str,
    pub fields: Vec<FieldSchema>,
}

/// One message: a metadata record, a coordinator key or value, or a data message.
#[derive(Debug, Clone)]
pub struct MessageSchema {
    /// `metadata`, `group`, `transaction`, `consumer` or `remote` (`__remote_log_metadata`).
    pub group: &'static str,
    /// `metadata`, `key`, `value` or `data`.
    pub kind: &'static str,
    pub api_key: Option<i16>,
    pub name: &'static str,
    pub valid_versions: Versions,
    pub flexible_versions: Versions,
    /// The message's own struct first, then the structs its fields use.
    pub structs: Vec<StructSchema>,
}

/// Two schemas are the same message when their group, kind and name are.
impl PartialEq for MessageSchema {
    fn eq(&self, other: &Self) -> bool {
        (self.group, self.kind, self.name) == (other.group, other.kind, other.name)
    }
}

/// Every schema klog carries.
#[derive(Debug)]
pub struct Schemas {
    pub messages: Vec<MessageSchema>,
}

impl Schemas {
    pub fn find(&self, group: &str, kind: &str, api_key: i16) -> Option<&MessageSchema> {
        self.messages.iter().find(|m| m.group == group && m.kind == kind && m.api_key == Some(api_key))
    }

    pub fn find_by_name(&self, name: &str) -> Option<&MessageSchema> {
        self.messages.iter().find(|m| m.name == name)
    }
}

/// The schemas, parsed once from the embedded table.
pub fn schemas() -> &'static Schemas {
    static SCHEMAS: OnceLock<Schemas> = OnceLock::new();
    SCHEMAS.get_or_init(|| parse_table(TABLE).unwrap_or_else(|e| panic!("kafka_schemas.tsv: {e}")))
}

fn lower_first(name: &str) -> String {
    let mut c = name.chars();
    match c.next() {
        Some(f) => f.to_lowercase().chain(c).collect(),
        None => String::new(),
    }
}

/// Parse the table (a build input of klog's own, checked by a unit test; not user input).
fn parse_table(text: &'static str) -> Result<Schemas, String> {
    let mut messages: Vec<MessageSchema> = Vec::new();
    // Field types by name, resolved once a message is complete.
    let mut pending: Vec<Vec<Vec<&'static str>>> = Vec::new();
    for (n, line) in text.lines().enumerate() {
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let f: Vec<&'static str> = line.split('\t').collect();
        let bad = || format!("line {}: {line:?}", n + 1);
        match f[0] {
            "M" if f.len() == 7 => {
                messages.push(MessageSchema {
                    group: f[1],
                    kind: f[2],
                    api_key: if f[3] == "-" { None } else { Some(f[3].parse().map_err(|_| bad())?) },
                    name: f[4],
                    valid_versions: Versions::parse(f[5]).ok_or_else(bad)?,
                    flexible_versions: Versions::parse(f[6]).ok_or_else(bad)?,
                    structs: Vec::new(),
                });
                pending.push(Vec::new());
            }
            "S" if f.len() == 2 => {
                let m = messages.last_mut().ok_or_else(bad)?;
                m.structs.push(StructSchema { name: f[1], fields: Vec::new() });
                pending.last_mut().ok_or_else(bad)?.push(Vec::new());
            }
            "F" if f.len() == 8 => {
                let m = messages.last_mut().ok_or_else(bad)?;
                let s = m.structs.last_mut().ok_or_else(bad)?;
                s.fields.push(FieldSchema {
                    name: f[1],
                    json_name: lower_first(f[1]),
                    field_type: FieldType::Bool,
                    versions: Versions::parse(f[3]).ok_or_else(bad)?,
                    nullable_versions: Versions::parse(f[4]).ok_or_else(bad)?,
                    tagged_versions: Versions::parse(f[5]).ok_or_else(bad)?,
                    tag: if f[6] == "-" { None } else { Some(f[6].parse().map_err(|_| bad())?) },
                    default: if f[7] == "-empty-" { "" } else { f[7] },
                });
                pending.last_mut().and_then(|p| p.last_mut()).ok_or_else(bad)?.push(f[2]);
            }
            _ => return Err(bad()),
        }
    }
    for (m, types) in messages.iter_mut().zip(pending) {
        let names: Vec<&str> = m.structs.iter().map(|s| s.name).collect();
        for (s, types) in m.structs.iter_mut().zip(types) {
            for (field, t) in s.fields.iter_mut().zip(types) {
                field.field_type =
                    parse_type(t, &names).ok_or_else(|| format!("{}.{}: type {t}", m.name, field.name))?;
            }
        }
    }
    Ok(Schemas { messages })
}

fn parse_type(t: &str, structs: &[&str]) -> Option<FieldType> {
    if let Some(inner) = t.strip_prefix("[]") {
        return Some(FieldType::Array(Box::new(parse_type(inner, structs)?)));
    }
    Some(match t {
        "bool" => FieldType::Bool,
        "int8" => FieldType::Int8,
        "int16" => FieldType::Int16,
        "uint16" => FieldType::Uint16,
        "int32" => FieldType::Int32,
        "uint32" => FieldType::Uint32,
        "int64" => FieldType::Int64,
        "float64" => FieldType::Float64,
        "string" => FieldType::String,
        "bytes" => FieldType::Bytes,
        "uuid" => FieldType::Uuid,
        name => FieldType::Struct(structs.iter().position(|s| *s == name)?),
    })
}

/// A decoded value, borrowing strings and bytes from the input.
#[derive(Debug, Clone, PartialEq)]
pub enum Value<'a> {
    Null,
    Bool(bool),
    /// Every integer type (int8 to int64, uint16, uint32).
    Int(i64),
    Float(f64),
    /// A string's bytes as stored (Kafka decodes them as UTF-8, malformed sequences replaced).
    Str(&'a [u8]),
    Bytes(&'a [u8]),
    Uuid([u8; 16]),
    Array(Vec<Value<'a>>),
    Struct(Vec<Field<'a>>),
    /// Text put in place of a code by a decoder that knows it (a transaction state's name).
    Text(std::borrow::Cow<'static, str>),
}

/// A field present in the decoded message.
#[derive(Debug, Clone, PartialEq)]
pub struct Field<'a> {
    /// The camel-case name Kafka's JSON converters print.
    pub name: &'static str,
    pub value: Value<'a>,
}

impl<'a> Value<'a> {
    /// The field named `name` of a struct (camel case).
    pub fn get(&self, name: &str) -> Option<&Value<'a>> {
        match self {
            Value::Struct(fields) => find(fields, name),
            _ => None,
        }
    }
}

/// The field named `name` (camel case) among `fields`.
pub fn find<'v, 'a>(fields: &'v [Field<'a>], name: &str) -> Option<&'v Value<'a>> {
    fields.iter().find(|f| f.name == name).map(|f| &f.value)
}

/// Why a message did not decode: the byte position (from the start of the bytes given to
/// [`decode_message`]) and what was expected there; and the message Kafka's generated reader
/// (`ByteBufferAccessor`, `Readable`) gives for the same failure, which `kafka-dump-log.sh`
/// prints (`null` where Java's buffer underflows without one).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SchemaError {
    pub position: usize,
    pub what: String,
    pub kafka_message: String,
}

impl SchemaError {
    pub fn new(position: usize, what: impl Into<String>) -> SchemaError {
        SchemaError { position, what: what.into(), kafka_message: "null".into() }
    }

    /// The same error, with Kafka's reader's message for it.
    pub fn kafka(mut self, message: impl Into<String>) -> SchemaError {
        self.kafka_message = message.into();
        self
    }
}

impl fmt::Display for SchemaError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "at byte {}: {}", self.position, self.what)
    }
}

impl std::error::Error for SchemaError {}

/// A bounds-checked reader over a message's bytes.
pub struct Reader<'a> {
    bytes: &'a [u8],
    position: usize,
}

impl<'a> Reader<'a> {
    pub fn new(bytes: &'a [u8]) -> Self {
        Reader { bytes, position: 0 }
    }

    pub fn position(&self) -> usize {
        self.position
    }

    pub fn remaining(&self) -> usize {
        self.bytes.len() - self.position
    }

    pub fn error(&self, position: usize, what: impl Into<String>) -> SchemaError {
        SchemaError::new(position, what)
    }

    /// `len` bytes of a string, bytes or unknown tagged field (Kafka's `readArray`).
    fn take_array(&mut self, len: usize, what: &str) -> Result<&'a [u8], SchemaError> {
        let remaining = self.remaining();
        self.take(len, what).map_err(|e| {
            e.kafka(format!("Error reading byte array of {len} byte(s): only {remaining} byte(s) available"))
        })
    }

    pub fn take(&mut self, len: usize, what: &str) -> Result<&'a [u8], SchemaError> {
        if len > self.remaining() {
            return Err(
                self.error(self.position, format!("{what} needs {len} byte(s) but {} remain", self.remaining()))
            );
        }
        let s = &self.bytes[self.position..self.position + len];
        self.position += len;
        Ok(s)
    }

    fn fixed<const N: usize>(&mut self, what: &str) -> Result<[u8; N], SchemaError> {
        let mut a = [0u8; N];
        a.copy_from_slice(self.take(N, what)?);
        Ok(a)
    }

    pub fn i8(&mut self, what: &str) -> Result<i8, SchemaError> {
        Ok(i8::from_be_bytes(self.fixed(what)?))
    }

    pub fn i16(&mut self, what: &str) -> Result<i16, SchemaError> {
        Ok(i16::from_be_bytes(self.fixed(what)?))
    }

    pub fn i32(&mut self, what: &str) -> Result<i32, SchemaError> {
        Ok(i32::from_be_bytes(self.fixed(what)?))
    }

    /// Kafka's `readUnsignedVarint`: at most 5 bytes, the value as Java's `int` holds it.
    pub fn uvarint(&mut self, what: &str) -> Result<i32, SchemaError> {
        let start = self.position;
        let mut value: u32 = 0;
        for i in 0..5 {
            let b = self.take(1, what)?[0];
            value |= u32::from(b & 0x7f) << (7 * i);
            if b & 0x80 == 0 {
                return Ok(value as i32);
            }
        }
        Err(self.error(start, format!("{what}: varint is longer than 5 bytes")).kafka(format!(
            "Varint is too long, the most significant bit in the 5th byte is set, converted value: {value:x}"
        )))
    }
}

/// Decode the fields of `schema` at `version` from `reader` (Kafka's generated `read`).
pub fn decode_message<'a>(
    schema: &'static MessageSchema,
    version: i16,
    reader: &mut Reader<'a>,
) -> Result<Vec<Field<'a>>, SchemaError> {
    let flexible = schema.flexible_versions.contains(version);
    decode_struct(schema, 0, version, flexible, reader, 0)
}

/// The largest collection Kafka's generated readers accept.
const COLLECTION_MAX: usize = 1_000_000;

/// Structs nest only as deep as the schemas do; this bounds the recursion for any input.
const DEPTH_MAX: usize = 16;

fn decode_struct<'a>(
    m: &'static MessageSchema,
    index: usize,
    version: i16,
    flexible: bool,
    r: &mut Reader<'a>,
    depth: usize,
) -> Result<Vec<Field<'a>>, SchemaError> {
    if depth > DEPTH_MAX {
        return Err(r.error(r.position(), "structs nested too deep"));
    }
    let s = &m.structs[index];
    let mut slots: Vec<Option<Value<'a>>> = Vec::with_capacity(s.fields.len());
    for f in &s.fields {
        let tagged = flexible && f.tagged_versions.contains(version);
        if tagged || !f.versions.contains(version) {
            slots.push(None);
            continue;
        }
        let nullable = f.nullable_versions.contains(version);
        slots.push(Some(decode_value(m, f, &f.field_type, version, flexible, nullable, false, r, depth)?));
    }
    if flexible {
        let start = r.position();
        let count = r.uvarint("tagged field count")?;
        if count < 0 {
            return Err(r
                .error(start, format!("negative tagged field count {count}"))
                .kafka(format!("Invalid negative number of tagged fields {count}")));
        }
        if count as usize > r.remaining() {
            let what = format!("{count} tagged fields, but only {} bytes remain", r.remaining());
            let kafka =
                format!("Tried to read {count} tagged fields, but there are only {} bytes remaining.", r.remaining());
            return Err(r.error(start, what).kafka(kafka));
        }
        for _ in 0..count {
            let tag_position = r.position();
            let tag = r.uvarint("tag")? as u32;
            let size = r.uvarint("tagged field size")?;
            if size < 0 {
                let what = format!("tagged field {tag} has negative size {size}");
                return Err(r.error(tag_position, what).kafka(size.to_string()));
            }
            let known = s.fields.iter().position(|f| f.tag == Some(tag) && f.tagged_versions.contains(version));
            match known {
                Some(i) => {
                    let f = &s.fields[i];
                    let nullable = f.nullable_versions.contains(version);
                    let value = decode_value(m, f, &f.field_type, version, true, nullable, true, r, depth)?;
                    slots[i] = (!is_default(f, &value)).then_some(value);
                }
                None => {
                    r.take_array(size as usize, "unknown tagged field")?;
                }
            }
        }
    }
    Ok(s.fields.iter().zip(slots).filter_map(|(f, v)| v.map(|value| Field { name: &f.json_name, value })).collect())
}

/// A length (Kafka: `readUnsignedVarint() - 1` when flexible, else a short or an int); −1 for
/// null, an error for null when the field is not nullable.
fn length(
    r: &mut Reader<'_>,
    f: &FieldSchema,
    flexible: bool,
    short: bool,
    nullable: bool,
) -> Result<Option<usize>, SchemaError> {
    let start = r.position();
    let len = if flexible {
        r.uvarint(f.name)?.wrapping_sub(1)
    } else if short {
        i32::from(r.i16(f.name)?)
    } else {
        r.i32(f.name)?
    };
    if len < 0 {
        let message = format!("non-nullable field {} was serialized as null", f.json_name);
        return if nullable { Ok(None) } else { Err(r.error(start, message.clone()).kafka(message)) };
    }
    Ok(Some(len as usize))
}

/// An array's length (None for a null array), refused when it exceeds the bytes left or the
/// collection maximum.
fn collection_length(
    r: &mut Reader<'_>,
    f: &FieldSchema,
    flexible: bool,
    nullable: bool,
) -> Result<Option<usize>, SchemaError> {
    let start = r.position();
    match length(r, f, flexible, false, nullable)? {
        Some(len) if len > r.remaining() => {
            let kafka = format!(
                "Tried to allocate a collection of size {len}, but there are only {} bytes remaining.",
                r.remaining()
            );
            Err(r.error(start, format!("field {}: {kafka}", f.json_name)).kafka(kafka))
        }
        Some(len) if len > COLLECTION_MAX => {
            let kafka = format!(
                "Tried to read a collection of size {len}, which exceeds the maximum allowed size of {COLLECTION_MAX}."
            );
            Err(r.error(start, format!("field {}: {kafka}", f.json_name)).kafka(kafka))
        }
        other => Ok(other),
    }
}

#[allow(clippy::too_many_arguments)]
fn decode_value<'a>(
    m: &'static MessageSchema,
    f: &FieldSchema,
    t: &FieldType,
    version: i16,
    flexible: bool,
    nullable: bool,
    tagged: bool,
    r: &mut Reader<'a>,
    depth: usize,
) -> Result<Value<'a>, SchemaError> {
    let what = f.name;
    Ok(match t {
        FieldType::Bool => Value::Bool(r.take(1, what)?[0] != 0),
        FieldType::Int8 => Value::Int(r.i8(what)?.into()),
        FieldType::Int16 => Value::Int(r.i16(what)?.into()),
        FieldType::Uint16 => Value::Int(u16::from_be_bytes(r.fixed(what)?).into()),
        FieldType::Int32 => Value::Int(r.i32(what)?.into()),
        FieldType::Uint32 => Value::Int(u32::from_be_bytes(r.fixed(what)?).into()),
        FieldType::Int64 => Value::Int(i64::from_be_bytes(r.fixed(what)?)),
        FieldType::Float64 => Value::Float(f64::from_be_bytes(r.fixed(what)?)),
        FieldType::Uuid => Value::Uuid(r.fixed(what)?),
        FieldType::String => {
            let start = r.position();
            match length(r, f, flexible, true, nullable)? {
                None => Value::Null,
                Some(len) if len > i16::MAX as usize => {
                    let message = format!("string field {} had invalid length {len}", f.json_name);
                    return Err(r.error(start, message.clone()).kafka(message));
                }
                Some(len) => Value::Str(r.take_array(len, what)?),
            }
        }
        FieldType::Bytes => match length(r, f, flexible, false, nullable)? {
            None => Value::Null,
            Some(len) => Value::Bytes(r.take_array(len, what)?),
        },
        FieldType::Array(element) => match collection_length(r, f, flexible, nullable)? {
            None => Value::Null,
            Some(len) => {
                let mut items = Vec::with_capacity(len);
                for _ in 0..len {
                    items.push(decode_value(m, f, element, version, flexible, false, false, r, depth)?);
                }
                Value::Array(items)
            }
        },
        FieldType::Struct(index) => {
            if nullable {
                let is_null = if tagged { r.uvarint(what)? <= 0 } else { r.i8(what)? < 0 };
                if is_null {
                    return Ok(Value::Null);
                }
            }
            Value::Struct(decode_struct(m, *index, version, flexible, r, depth + 1)?)
        }
    })
}

/// Whether a tagged field's value is its default (Kafka writes, and its JSON converters
/// print, a tagged field only when it is not).
fn is_default(f: &FieldSchema, value: &Value<'_>) -> bool {
    let d = f.default;
    match value {
        Value::Null => d == "null",
        Value::Bool(b) => *b == (d == "true"),
        Value::Int(i) => *i == parse_int_default(d),
        Value::Float(x) => *x == d.parse::<f64>().unwrap_or(0.0),
        Value::Str(s) => d != "null" && *s == if d == "-" { "" } else { d }.as_bytes(),
        Value::Bytes(b) => d != "null" && b.is_empty(),
        Value::Uuid(u) => *u == [0; 16],
        Value::Array(a) => d != "null" && a.is_empty(),
        Value::Struct(_) | Value::Text(_) => false,
    }
}

fn parse_int_default(d: &str) -> i64 {
    match d.strip_prefix("0x") {
        Some(hex) => i64::from_str_radix(hex, 16).unwrap_or(0),
        None => d.parse().unwrap_or(0),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_table_parses_and_holds_every_metadata_record_type() {
        let s = schemas();
        let metadata: Vec<i16> =
            s.messages.iter().filter(|m| m.group == "metadata").filter_map(|m| m.api_key).collect();
        // MetadataRecordType in Kafka 4.4: 0..=29 without 6, 13, 16.
        let mut want: Vec<i16> = (0..=29).filter(|k| ![6, 13, 16].contains(k)).collect();
        let mut got = metadata.clone();
        got.sort();
        want.sort();
        assert_eq!(got, want);
        let p = s.find("metadata", "metadata", 3).unwrap();
        assert_eq!(p.name, "PartitionRecord");
        assert_eq!(p.valid_versions.highest(), 2);
        assert!(p.flexible_versions.contains(0));
        let elr = p.structs[0].fields.iter().find(|f| f.name == "EligibleLeaderReplicas").unwrap();
        assert_eq!(elr.tag, Some(1));
        assert_eq!(elr.json_name, "eligibleLeaderReplicas");
        assert_eq!(elr.field_type, FieldType::Array(Box::new(FieldType::Int32)));
        // 22 coordinator record types of __consumer_offsets, keys and values
        assert_eq!(s.messages.iter().filter(|m| m.group == "group" && m.kind == "key").count(), 22);
        assert!(s.find("transaction", "value", 0).is_some());
        assert!(s.find_by_name("ConsumerProtocolSubscription").is_some());
    }

    #[test]
    fn versions_parse_as_kafka_writes_them() {
        let v = |s| Versions::parse(s).unwrap();
        assert!(v("0+").contains(7) && !v("1+").contains(0));
        assert!(v("1").contains(1) && !v("1").contains(2));
        assert!(v("0-2").contains(2) && !v("0-2").contains(3));
        assert!(!v("none").contains(0));
    }

    #[test]
    fn arbitrary_bytes_into_every_message_at_every_version_never_panic() {
        // splitmix64 bytes: each message at each valid version, 300 inputs of 0..64 bytes
        let mut state = 7u64;
        let mut next = || {
            state = state.wrapping_add(0x9e37_79b9_7f4a_7c15);
            let mut z = state;
            z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
            z ^ (z >> 31)
        };
        for m in &schemas().messages {
            for version in m.valid_versions.lowest()..=m.valid_versions.highest().min(8) {
                for _ in 0..300 {
                    let len = (next() % 64) as usize;
                    // small bytes make short lengths and counts likely, so decoding gets deep
                    let bytes: Vec<u8> = (0..len).map(|_| (next() % 5) as u8).collect();
                    let mut r = Reader::new(&bytes);
                    match decode_message(m, version, &mut r) {
                        Ok(_) => assert!(r.position() <= bytes.len()),
                        Err(e) => assert!(e.position <= bytes.len(), "{}: {e}", m.name),
                    }
                }
            }
        }
    }

    #[test]
    fn reader_rejects_overlong_varints_and_short_input() {
        let mut r = Reader::new(&[0xff, 0xff, 0xff, 0xff, 0xff, 0x01]);
        assert!(r.uvarint("x").unwrap_err().what.contains("longer than 5"));
        let mut r = Reader::new(&[0, 1]);
        let e = r.i32("Leader").unwrap_err();
        assert_eq!(e.position, 0);
        assert!(e.what.contains("Leader needs 4 byte(s) but 2 remain"), "{e}");
    }
}
