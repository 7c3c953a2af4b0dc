//! Records inside a v2 batch: zig-zag varints, the record layout and headers
//! (Kafka `DefaultRecord`, `ByteUtils`).
//!
//! Decoding never trusts a length read from disk: every slice is bounds-checked and a bad
//! record is a [`RecordError`] naming the byte position inside the records area. Decoded
//! records borrow their key, value and header bytes from the buffer they were read from.

use std::fmt;

/// Why a record could not be decoded; `position` is relative to the start of the records area.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RecordError {
    pub position: usize,
    pub what: String,
}

impl fmt::Display for RecordError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} (at byte {} of the records)", self.what, self.position)
    }
}

fn err(position: usize, what: impl Into<String>) -> RecordError {
    RecordError { position, what: what.into() }
}

/// Append a zig-zag varint (int32) to `out`.
pub fn encode_varint(value: i32, out: &mut Vec<u8>) {
    let mut v = ((value << 1) ^ (value >> 31)) as u32;
    while v >= 0x80 {
        out.push((v as u8 & 0x7f) | 0x80);
        v >>= 7;
    }
    out.push(v as u8);
}

/// Append a zig-zag varlong (int64) to `out`.
pub fn encode_varlong(value: i64, out: &mut Vec<u8>) {
    let mut v = ((value << 1) ^ (value >> 63)) as u64;
    while v >= 0x80 {
        out.push((v as u8 & 0x7f) | 0x80);
        v >>= 7;
    }
    out.push(v as u8);
}

/// Number of bytes `encode_varint(value)` writes.
pub fn varint_size(value: i32) -> usize {
    let mut v = ((value << 1) ^ (value >> 31)) as u32;
    let mut n = 1;
    while v >= 0x80 {
        v >>= 7;
        n += 1;
    }
    n
}

/// A cursor over a byte slice that reads Kafka's varints and length-prefixed fields.
pub struct Cursor<'a> {
    bytes: &'a [u8],
    pos: usize,
}

impl<'a> Cursor<'a> {
    pub fn new(bytes: &'a [u8]) -> Self {
        Cursor { bytes, pos: 0 }
    }

    pub fn position(&self) -> usize {
        self.pos
    }

    pub fn remaining(&self) -> usize {
        self.bytes.len() - self.pos
    }

    fn read_raw_varint(&mut self, max_bytes: usize, what: &str) -> Result<u64, RecordError> {
        let start = self.pos;
        let mut value: u64 = 0;
        for i in 0..max_bytes {
            let Some(&b) = self.bytes.get(self.pos) else {
                return Err(err(start, format!("{what}: varint runs past the end of the data")));
            };
            self.pos += 1;
            value |= ((b & 0x7f) as u64) << (7 * i);
            if b & 0x80 == 0 {
                return Ok(value);
            }
        }
        Err(err(start, format!("{what}: varint longer than {max_bytes} bytes")))
    }

    /// Read a zig-zag int32 varint (at most 5 bytes).
    pub fn read_varint(&mut self, what: &str) -> Result<i32, RecordError> {
        let raw = self.read_raw_varint(5, what)?;
        if raw > u32::MAX as u64 {
            return Err(err(self.pos, format!("{what}: varint does not fit 32 bits")));
        }
        let raw = raw as u32;
        Ok(((raw >> 1) as i32) ^ -((raw & 1) as i32))
    }

    /// Read a zig-zag int64 varlong (at most 10 bytes).
    pub fn read_varlong(&mut self, what: &str) -> Result<i64, RecordError> {
        let raw = self.read_raw_varint(10, what)?;
        Ok(((raw >> 1) as i64) ^ -((raw & 1) as i64))
    }

    pub fn read_u8(&mut self, what: &str) -> Result<u8, RecordError> {
        let b = *self.bytes.get(self.pos).ok_or_else(|| err(self.pos, format!("{what}: missing")))?;
        self.pos += 1;
        Ok(b)
    }

    pub fn read_slice(&mut self, len: usize, what: &str) -> Result<&'a [u8], RecordError> {
        if len > self.remaining() {
            return Err(err(self.pos, format!("{what}: {len} bytes declared but only {} remain", self.remaining())));
        }
        let s = &self.bytes[self.pos..self.pos + len];
        self.pos += len;
        Ok(s)
    }

    /// A varint length (−1 = null) followed by that many bytes.
    pub fn read_nullable_bytes(&mut self, what: &str) -> Result<Option<&'a [u8]>, RecordError> {
        let at = self.pos;
        let len = self.read_varint(what)?;
        // Kafka's `DefaultRecord.readFrom` takes any negative length as null, not only -1.
        let _ = at;
        match len {
            n if n < 0 => Ok(None),
            n => self.read_slice(n as usize, what).map(Some),
        }
    }
}

/// A record header: the key is UTF-8 in Kafka, but bytes on disk are not trusted.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Header<'a> {
    pub key: &'a [u8],
    pub value: Option<&'a [u8]>,
}

/// One decoded record with absolute offset and timestamp.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Record<'a> {
    pub offset: i64,
    pub timestamp: i64,
    pub attributes: u8,
    pub key: Option<&'a [u8]>,
    pub value: Option<&'a [u8]>,
    pub headers: Vec<Header<'a>>,
    /// Byte size of the record including its length varint.
    pub size_bytes: usize,
    /// For a legacy (v0/v1) message: its magic and its own CRC-32; `None` in a v2 batch.
    pub legacy: Option<super::legacy::LegacyCrc>,
}

/// Decode one record at the cursor. `base_offset`/`base_timestamp` come from the batch header;
/// `log_append_time` replaces every record timestamp with the batch max timestamp.
pub fn decode_record<'a>(
    cur: &mut Cursor<'a>,
    base_offset: i64,
    base_timestamp: i64,
    log_append_time: Option<i64>,
) -> Result<Record<'a>, RecordError> {
    let start = cur.position();
    let length = cur.read_varint("record length")?;
    if length < 0 {
        return Err(err(start, format!("record length: negative ({length})")));
    }
    let body_start = cur.position();
    let length = length as usize;
    if length > cur.remaining() {
        return Err(err(
            start,
            format!("record length {length} runs past the end of the batch ({} bytes remain)", cur.remaining()),
        ));
    }
    let attributes = cur.read_u8("record attributes")?;
    let timestamp_delta = cur.read_varlong("timestampDelta")?;
    let offset_delta = cur.read_varint("offsetDelta")?;
    let key = cur.read_nullable_bytes("key")?;
    let value = cur.read_nullable_bytes("value")?;
    let at = cur.position();
    let header_count = cur.read_varint("headers count")?;
    if header_count < 0 {
        return Err(err(at, format!("headers count: negative ({header_count})")));
    }
    let mut headers = Vec::with_capacity((header_count as usize).min(64));
    for _ in 0..header_count {
        let at = cur.position();
        let key = cur.read_nullable_bytes("header key")?.ok_or_else(|| err(at, "header key: null"))?;
        let value = cur.read_nullable_bytes("header value")?;
        headers.push(Header { key, value });
    }
    let read = cur.position() - body_start;
    if read != length {
        return Err(err(start, format!("invalid record size: expected {length} bytes but the fields took {read}")));
    }
    Ok(Record {
        offset: base_offset.wrapping_add(offset_delta as i64),
        timestamp: log_append_time.unwrap_or(base_timestamp.wrapping_add(timestamp_delta)),
        attributes,
        key,
        value,
        headers,
        size_bytes: cur.position() - start,
        legacy: None,
    })
}

/// Decode all `count` records of a records area, requiring that no bytes are left over
/// ("Incorrect declared batch size" in Kafka).
pub fn decode_records<'a>(
    bytes: &'a [u8],
    count: i32,
    base_offset: i64,
    base_timestamp: i64,
    log_append_time: Option<i64>,
) -> Result<Vec<Record<'a>>, RecordError> {
    match decode_records_prefix(bytes, count, base_offset, base_timestamp, log_append_time) {
        (records, None) => Ok(records),
        (_, Some(e)) => Err(e),
    }
}

/// [`decode_records`], keeping the records that decode before the first error, as Kafka's
/// record iterator hands them out one by one before it throws.
pub fn decode_records_prefix<'a>(
    bytes: &'a [u8],
    count: i32,
    base_offset: i64,
    base_timestamp: i64,
    log_append_time: Option<i64>,
) -> (Vec<Record<'a>>, Option<RecordError>) {
    if count < 0 {
        return (Vec::new(), Some(err(0, format!("negative record count {count}"))));
    }
    // Kafka checks for bytes left over only as it reads the last declared record
    // (`RecordIterator.next`): a batch declaring none reads none, whatever follows.
    if count == 0 {
        return (Vec::new(), None);
    }
    let mut cur = Cursor::new(bytes);
    // Each record takes at least 7 bytes, so a count larger than that is a lie; do not
    // pre-allocate on the word of the disk.
    let mut records = Vec::with_capacity((count as usize).min(bytes.len() / 7 + 1));
    for i in 0..count {
        if cur.remaining() == 0 {
            let e = err(
                cur.position(),
                format!("incorrect declared batch size: {count} records declared, data ends after {i}"),
            );
            return (records, Some(e));
        }
        match decode_record(&mut cur, base_offset, base_timestamp, log_append_time) {
            Ok(r) => records.push(r),
            Err(e) => return (records, Some(e)),
        }
    }
    if cur.remaining() != 0 {
        let e = err(
            cur.position(),
            format!("incorrect declared batch size: {} bytes left after {count} records", cur.remaining()),
        );
        return (records, Some(e));
    }
    (records, None)
}

/// What a producer hands over for one record.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct NewRecord {
    pub timestamp: i64,
    pub key: Option<Vec<u8>>,
    pub value: Option<Vec<u8>>,
    pub headers: Vec<(Vec<u8>, Option<Vec<u8>>)>,
}

fn encode_nullable(bytes: Option<&[u8]>, out: &mut Vec<u8>) {
    match bytes {
        None => encode_varint(-1, out),
        Some(b) => {
            encode_varint(b.len() as i32, out);
            out.extend_from_slice(b);
        }
    }
}

/// A record to encode, borrowing its bytes (no allocation on the append path).
#[derive(Debug, Clone, Copy)]
pub struct RecordRef<'a> {
    pub timestamp: i64,
    pub key: Option<&'a [u8]>,
    pub value: Option<&'a [u8]>,
    pub headers: &'a [(&'a [u8], Option<&'a [u8]>)],
}

fn varlong_size(value: i64) -> usize {
    let mut v = ((value << 1) ^ (value >> 63)) as u64;
    let mut n = 1;
    while v >= 0x80 {
        v >>= 7;
        n += 1;
    }
    n
}

fn nullable_size(bytes: Option<&[u8]>) -> usize {
    match bytes {
        None => 1,
        Some(b) => varint_size(b.len() as i32) + b.len(),
    }
}

/// Append one record in v2 layout to `out`, writing its length first (computed, not measured).
pub fn encode_record_ref(record: &RecordRef<'_>, offset_delta: i32, timestamp_delta: i64, out: &mut Vec<u8>) {
    let mut body = 1 + varlong_size(timestamp_delta) + varint_size(offset_delta);
    body += nullable_size(record.key) + nullable_size(record.value);
    body += varint_size(record.headers.len() as i32);
    for (k, v) in record.headers {
        body += nullable_size(Some(k)) + nullable_size(*v);
    }
    out.reserve(body + 5);
    encode_varint(body as i32, out);
    out.push(0u8);
    encode_varlong(timestamp_delta, out);
    encode_varint(offset_delta, out);
    encode_nullable(record.key, out);
    encode_nullable(record.value, out);
    encode_varint(record.headers.len() as i32, out);
    for (k, v) in record.headers {
        encode_nullable(Some(k), out);
        encode_nullable(*v, out);
    }
}

/// Write a zig-zag varint into `buf` at `at`; returns the new position.
fn put_varint(buf: &mut [u8; 48], mut at: usize, value: i64) -> usize {
    let mut v = ((value << 1) ^ (value >> 63)) as u64;
    while v >= 0x80 {
        buf[at] = (v as u8 & 0x7f) | 0x80;
        v >>= 7;
        at += 1;
    }
    buf[at] = v as u8;
    at + 1
}

/// Like [`encode_record_ref`] with a value made of `template` whose first bytes are replaced by
/// `patch` (the generated values of `append --count`). The fixed fields are assembled on the
/// stack and copied once; this is the hot loop of `append --count`.
pub fn encode_record_patched(
    timestamp_delta: i64,
    offset_delta: i32,
    key: Option<&[u8]>,
    headers: &[(&[u8], Option<&[u8]>)],
    template: &[u8],
    patch: &[u8],
    out: &mut Vec<u8>,
) {
    let mut headers_size = varint_size(headers.len() as i32);
    for (k, v) in headers {
        headers_size += nullable_size(Some(k)) + nullable_size(*v);
    }
    let body = 1
        + varlong_size(timestamp_delta)
        + varint_size(offset_delta)
        + nullable_size(key)
        + nullable_size(Some(template))
        + headers_size;
    // length, attributes, timestampDelta, offsetDelta, key length (value length comes after the key)
    let mut head = [0u8; 48];
    let mut at = put_varint(&mut head, 0, body as i64);
    at += 1; // attributes: 0
    at = put_varint(&mut head, at, timestamp_delta);
    at = put_varint(&mut head, at, offset_delta as i64);
    match key {
        None => at = put_varint(&mut head, at, -1),
        Some(k) => {
            at = put_varint(&mut head, at, k.len() as i64);
            out.extend_from_slice(&head[..at]);
            out.extend_from_slice(k);
            at = 0;
        }
    }
    at = put_varint(&mut head, at, template.len() as i64);
    out.extend_from_slice(&head[..at]);
    let value_at = out.len();
    out.extend_from_slice(template);
    let n = patch.len().min(template.len());
    out[value_at..value_at + n].copy_from_slice(&patch[..n]);
    if headers.is_empty() {
        out.push(0);
    } else {
        encode_varint(headers.len() as i32, out);
        for (k, v) in headers {
            encode_nullable(Some(k), out);
            encode_nullable(*v, out);
        }
    }
}

/// Append one record in v2 layout to `out`.
pub fn encode_record(record: &NewRecord, offset_delta: i32, timestamp_delta: i64, out: &mut Vec<u8>) {
    let headers: Vec<(&[u8], Option<&[u8]>)> =
        record.headers.iter().map(|(k, v)| (k.as_slice(), v.as_deref())).collect();
    let r = RecordRef {
        timestamp: record.timestamp,
        key: record.key.as_deref(),
        value: record.value.as_deref(),
        headers: &headers,
    };
    encode_record_ref(&r, offset_delta, timestamp_delta, out);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn varints_match_kafka_examples() {
        let mut out = Vec::new();
        encode_varint(-1, &mut out);
        encode_varint(0, &mut out);
        encode_varint(5, &mut out);
        assert_eq!(out, vec![0x01, 0x00, 0x0a]);
        for v in [0, 1, -1, 63, -64, 64, 300, i32::MAX, i32::MIN] {
            let mut out = Vec::new();
            encode_varint(v, &mut out);
            assert_eq!(out.len(), varint_size(v));
            assert_eq!(Cursor::new(&out).read_varint("x").unwrap(), v);
        }
        for v in [0i64, -1, 1 << 40, i64::MAX, i64::MIN] {
            let mut out = Vec::new();
            encode_varlong(v, &mut out);
            assert_eq!(Cursor::new(&out).read_varlong("x").unwrap(), v);
        }
    }

    #[test]
    fn overlong_varint_is_an_error() {
        let bytes = [0xff, 0xff, 0xff, 0xff, 0xff, 0x01];
        assert!(Cursor::new(&bytes).read_varint("x").is_err());
        assert!(Cursor::new(&[0x80]).read_varint("x").is_err());
    }

    #[test]
    fn record_round_trips_with_null_and_empty_kept_apart() {
        let rec = NewRecord {
            timestamp: 10,
            key: None,
            value: Some(vec![]),
            headers: vec![(b"h".to_vec(), None), (b"k".to_vec(), Some(b"v".to_vec()))],
        };
        let mut out = Vec::new();
        encode_record(&rec, 3, 7, &mut out);
        let got = decode_records(&out, 1, 100, 1000, None).unwrap();
        assert_eq!(got[0].offset, 103);
        assert_eq!(got[0].timestamp, 1007);
        assert_eq!(got[0].key, None);
        assert_eq!(got[0].value, Some(&b""[..]));
        assert_eq!(got[0].headers[0], Header { key: b"h", value: None });
        assert_eq!(got[0].headers[1], Header { key: b"k", value: Some(b"v") });
    }

    #[test]
    fn cut_records_never_panic() {
        let rec = NewRecord {
            timestamp: 0,
            key: Some(b"key".to_vec()),
            value: Some(b"value".to_vec()),
            headers: vec![(b"a".to_vec(), Some(b"b".to_vec()))],
        };
        let mut out = Vec::new();
        encode_record(&rec, 0, 0, &mut out);
        for cut in 0..out.len() {
            assert!(decode_records(&out[..cut], 1, 0, 0, None).is_err());
        }
        for i in 0..out.len() {
            for flip in [0x01u8, 0x80, 0xff] {
                let mut bad = out.clone();
                bad[i] ^= flip;
                let _ = decode_records(&bad, 1, 0, 0, None);
            }
        }
    }
}
