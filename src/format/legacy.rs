//! Legacy messages, magic v0 and v1 (Kafka `LegacyRecord`, `AbstractLegacyRecordBatch`,
//! before 0.11), read so that old topics dump with the values Kafka wrote.
//!
//! One log entry is `offset int64 | size int32 | message`, and the message is
//! `crc uint32 | magic int8 | attributes int8 | [timestamp int64, v1 only] | keyLength int32 | key |
//! valueLength int32 | value` (lengths −1 for null). The CRC is CRC-32 (IEEE, `crc32fast`) over
//! magic .. end of message. A message whose attributes name a codec (bits 0–2: gzip, snappy, lz4)
//! is a *wrapper*: its value is one compressed stream of inner log entries, and the wrapper's
//! offset is the offset of the **last** inner message. v1 inner offsets are relative
//! (absolute = wrapperOffset − lastInnerRelative + innerRelative, and a wrapper offset of 0 is
//! taken as base 0, for old librdkafka); v0 inner offsets are absolute
//! (`AbstractLegacyRecordBatch.DeepRecordsIterator`). v1 inner messages take the wrapper's
//! timestamp when the wrapper says LogAppendTime.
//!
//! Decoding never trusts a length from disk and never panics: every problem is a
//! [`RecordError`] whose position counts from the start of the entry (outer messages) or of the
//! decompressed stream (inner messages). klog's commands never write this format (Kafka 4.0 no
//! longer does either): [`encode_entry`] is the one encoder, for tests and fuzzing, which build
//! old logs with it.

use super::record::{Record, RecordError};

pub const MAGIC_V0: i8 = 0;
pub const MAGIC_V1: i8 = 1;
/// offset + size before the message (`Records.LOG_OVERHEAD`).
const LOG_OVERHEAD: usize = 12;
/// Smallest message: crc, magic, attributes, key and value lengths (`RECORD_OVERHEAD_V0`).
pub const MESSAGE_OVERHEAD_V0: usize = 14;
/// v1 adds the 8-byte timestamp (`RECORD_OVERHEAD_V1`).
pub const MESSAGE_OVERHEAD_V1: usize = 22;
/// Timestamp of a v0 message (`RecordBatch.NO_TIMESTAMP`).
pub const NO_TIMESTAMP: i64 = -1;

const ATTR_CODEC_MASK: u8 = 0x07;
const ATTR_LOG_APPEND_TIME: u8 = 0x08;

/// The CRC facts of one legacy message, carried on each decoded [`Record`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LegacyCrc {
    pub magic: i8,
    /// The stored CRC-32.
    pub crc: u32,
    /// Whether the stored CRC matches the bytes.
    pub crc_valid: bool,
}

/// One decoded legacy message with its log-entry offset as stored.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LegacyMessage<'a> {
    /// The offset field of the entry (relative for v1 inner messages until resolved).
    pub offset: i64,
    pub magic: i8,
    pub crc: u32,
    pub crc_valid: bool,
    pub attributes: u8,
    /// The stored timestamp (v1), or [`NO_TIMESTAMP`] (v0).
    pub timestamp: i64,
    pub key: Option<&'a [u8]>,
    pub value: Option<&'a [u8]>,
    /// Bytes of the whole entry, offset and size fields included.
    pub size_bytes: usize,
}

impl LegacyMessage<'_> {
    /// The codec code of bits 0–2 (0 none, 1 gzip, 2 snappy, 3 lz4).
    pub fn compression_code(&self) -> u8 {
        self.attributes & ATTR_CODEC_MASK
    }
    pub fn is_compressed(&self) -> bool {
        self.compression_code() != 0
    }
    /// LogAppendTime (v1 only; v0 has no timestamp type).
    pub fn is_log_append_time(&self) -> bool {
        self.magic >= MAGIC_V1 && self.attributes & ATTR_LOG_APPEND_TIME != 0
    }
}

fn err(position: usize, what: impl Into<String>) -> RecordError {
    RecordError { position, what: what.into() }
}

fn be_i32(b: &[u8], at: usize) -> Option<i32> {
    b.get(at..at.checked_add(4)?).map(|s| i32::from_be_bytes([s[0], s[1], s[2], s[3]]))
}

fn be_i64(b: &[u8], at: usize) -> Option<i64> {
    b.get(at..at.checked_add(8)?).map(|s| i64::from_be_bytes(s.try_into().expect("8 bytes")))
}

/// A length-prefixed field (int32 length, −1 = null) at `at`; returns the field and the next position.
fn read_bytes<'a>(entry: &'a [u8], at: usize, what: &str) -> Result<(Option<&'a [u8]>, usize), RecordError> {
    let len = be_i32(entry, at).ok_or_else(|| {
        err(at, format!("{what} length: message ends {} bytes into the 4-byte length", entry.len().saturating_sub(at)))
    })?;
    let start = at + 4;
    match len {
        -1 => Ok((None, start)),
        n if n < 0 => Err(err(at, format!("{what} length: negative ({n})"))),
        n => {
            let end = start.checked_add(n as usize).filter(|e| *e <= entry.len()).ok_or_else(|| {
                err(at, format!("{what}: {n} bytes declared but only {} remain", entry.len() - start))
            })?;
            Ok((Some(&entry[start..end]), end))
        }
    }
}

/// Decode one legacy log entry (`offset | size | message`) that fills `entry` exactly.
pub fn decode_message(entry: &[u8]) -> Result<LegacyMessage<'_>, RecordError> {
    if entry.len() < LOG_OVERHEAD + MESSAGE_OVERHEAD_V0 {
        return Err(err(
            0,
            format!(
                "legacy entry is {} bytes, shorter than the smallest message ({} bytes)",
                entry.len(),
                LOG_OVERHEAD + MESSAGE_OVERHEAD_V0
            ),
        ));
    }
    let offset = be_i64(entry, 0).expect("checked length");
    let size = be_i32(entry, 8).expect("checked length");
    if size < 0 || size as usize != entry.len() - LOG_OVERHEAD {
        return Err(err(
            8,
            format!("size field {size} does not match the {} message bytes", entry.len() - LOG_OVERHEAD),
        ));
    }
    let crc = u32::from_be_bytes(entry[12..16].try_into().expect("4 bytes"));
    let magic = entry[16] as i8;
    let attributes = entry[17];
    let (timestamp, key_at) = match magic {
        MAGIC_V0 => (NO_TIMESTAMP, 18),
        MAGIC_V1 => {
            if entry.len() < LOG_OVERHEAD + MESSAGE_OVERHEAD_V1 {
                return Err(err(
                    0,
                    format!(
                        "v1 message is {} bytes, shorter than the smallest v1 message ({MESSAGE_OVERHEAD_V1} bytes)",
                        entry.len() - LOG_OVERHEAD
                    ),
                ));
            }
            (be_i64(entry, 18).expect("checked length"), 26)
        }
        m => return Err(err(16, format!("magic {m} is not a legacy message format (expected 0 or 1)"))),
    };
    let (key, value_at) = read_bytes(entry, key_at, "key")?;
    let (value, end) = read_bytes(entry, value_at, "value")?;
    if end != entry.len() {
        return Err(err(end, format!("{} bytes follow the value inside the message", entry.len() - end)));
    }
    Ok(LegacyMessage {
        offset,
        magic,
        crc,
        crc_valid: crc32fast::hash(&entry[16..]) == crc,
        attributes,
        timestamp,
        key,
        value,
        size_bytes: entry.len(),
    })
}

/// The inner messages of a compressed wrapper, from its decompressed value `plain`, with
/// absolute offsets and the timestamps Kafka reports for them.
pub fn decode_inner<'p>(wrapper: &LegacyMessage<'_>, plain: &'p [u8]) -> Result<Vec<LegacyMessage<'p>>, RecordError> {
    let mut inner = Vec::new();
    let mut pos = 0usize;
    while pos < plain.len() {
        let remaining = plain.len() - pos;
        if remaining < LOG_OVERHEAD {
            return Err(err(
                pos,
                format!("{remaining} trailing bytes in the decompressed stream, too few for an entry"),
            ));
        }
        let size = be_i32(plain, pos + 8).expect("checked length");
        if size < MESSAGE_OVERHEAD_V0 as i32 {
            return Err(err(pos + 8, format!("inner message size {size} is below {MESSAGE_OVERHEAD_V0}")));
        }
        let total = LOG_OVERHEAD + size as usize;
        if total > remaining {
            return Err(err(
                pos,
                format!("inner message of {total} bytes is cut off: only {remaining} bytes remain in the stream"),
            ));
        }
        let mut m = decode_message(&plain[pos..pos + total]).map_err(|e| err(pos + e.position, e.what))?;
        if m.is_compressed() {
            return Err(err(pos, "an inner message is itself compressed (nested compression is not allowed)"));
        }
        if m.magic == MAGIC_V1 && wrapper.is_log_append_time() {
            m.timestamp = wrapper.timestamp;
        }
        inner.push(m);
        pos += total;
    }
    let Some(last_inner) = inner.last().map(|m| m.offset) else {
        return Err(err(0, "the compressed wrapper holds no inner messages"));
    };
    if wrapper.magic == MAGIC_V1 {
        // Inner offsets are relative; the wrapper carries the absolute offset of the last one.
        let base = if wrapper.offset == 0 {
            0
        } else if wrapper.offset < last_inner {
            return Err(err(
                0,
                format!(
                    "wrapper offset {} is below the last inner relative offset {last_inner} and not 0",
                    wrapper.offset
                ),
            ));
        } else {
            wrapper.offset - last_inner
        };
        for m in &mut inner {
            m.offset = base.wrapping_add(m.offset);
        }
    }
    Ok(inner)
}

/// A decoded message as a [`Record`]: no headers, the CRC facts attached.
pub fn to_record<'a>(m: &LegacyMessage<'a>) -> Record<'a> {
    Record {
        offset: m.offset,
        timestamp: m.timestamp,
        attributes: m.attributes,
        key: m.key,
        value: m.value,
        headers: Vec::new(),
        size_bytes: m.size_bytes,
        legacy: Some(LegacyCrc { magic: m.magic, crc: m.crc, crc_valid: m.crc_valid }),
    }
}

/// One legacy log entry, for tests: `offset | size | crc | magic | attributes | [timestamp, v1
/// only] | key | value`, the CRC-32 over magic .. end (lengths −1 for null). `attributes` holds
/// the codec in its low bits (a wrapper's value is then the compressed inner entries). No klog
/// command calls it.
pub fn encode_entry(
    offset: i64,
    magic: i8,
    attributes: u8,
    timestamp: i64,
    key: Option<&[u8]>,
    value: Option<&[u8]>,
) -> Vec<u8> {
    let mut body = vec![magic as u8, attributes];
    if magic == MAGIC_V1 {
        body.extend_from_slice(&timestamp.to_be_bytes());
    }
    for field in [key, value] {
        match field {
            None => body.extend_from_slice(&(-1i32).to_be_bytes()),
            Some(b) => {
                body.extend_from_slice(&(b.len() as i32).to_be_bytes());
                body.extend_from_slice(b);
            }
        }
    }
    let mut out = offset.to_be_bytes().to_vec();
    out.extend_from_slice(&((body.len() + 4) as i32).to_be_bytes()); // size: crc + body
    out.extend_from_slice(&crc32fast::hash(&body).to_be_bytes()); // CRC-32 over magic..end
    out.extend_from_slice(&body);
    out
}

#[cfg(test)]
pub(crate) mod tests {
    pub(crate) use super::encode_entry as entry;
    use super::*;
    use crate::format::batch::{BatchIter, RawBatch};
    use crate::format::compression::{self, Compression};

    /// A compressed wrapper around `inner` entries (v1 inner offsets relative, v0 absolute).
    pub(crate) fn wrapper(offset: i64, magic: i8, codec: Compression, timestamp: i64, inner: &[Vec<u8>]) -> Vec<u8> {
        let plain: Vec<u8> = inner.concat();
        let compressed = compression::compress(codec, &plain);
        entry(offset, magic, codec.code(), timestamp, None, Some(&compressed))
    }

    #[test]
    fn v0_and_v1_messages_round_trip() {
        let v0 = entry(7, 0, 0, 0, Some(b"k"), Some(b"hello"));
        // crc(4) magic(1) attr(1) keylen(4) key(1) valuelen(4) value(5) = 20
        assert_eq!(&v0[8..12], &20i32.to_be_bytes());
        let m = decode_message(&v0).unwrap();
        assert_eq!((m.offset, m.magic, m.timestamp, m.crc_valid), (7, 0, NO_TIMESTAMP, true));
        assert_eq!((m.key, m.value), (Some(&b"k"[..]), Some(&b"hello"[..])));
        let v1 = entry(8, 1, 0, 1_600_000_000_000, None, Some(b""));
        let m = decode_message(&v1).unwrap();
        assert_eq!((m.offset, m.magic, m.timestamp), (8, 1, 1_600_000_000_000));
        assert_eq!((m.key, m.value), (None, Some(&b""[..])));
        let b = RawBatch { position: 0, bytes: &v1, following: &v1 };
        b.verify().unwrap();
        let recs = b.records().unwrap();
        let recs = recs.decode().unwrap();
        assert_eq!(recs.len(), 1);
        assert_eq!(recs[0].legacy.unwrap().crc, b.stored_crc());
    }

    #[test]
    fn v1_wrapper_resolves_relative_inner_offsets() {
        for codec in [Compression::Gzip, Compression::Snappy, Compression::Lz4] {
            let inner: Vec<Vec<u8>> =
                (0..3).map(|i| entry(i, 1, 0, 1000 + i, Some(b"k"), Some(format!("v{i}").as_bytes()))).collect();
            let w = wrapper(12, 1, codec, 1002, &inner);
            let b = RawBatch { position: 0, bytes: &w, following: &w };
            b.verify().unwrap();
            assert_eq!(b.last_offset(), 12);
            assert_eq!(b.first_offset(), 10, "{codec:?}");
            let d = b.records().unwrap();
            let recs = d.decode().unwrap();
            let got: Vec<_> = recs.iter().map(|r| (r.offset, r.timestamp, r.value.unwrap().to_vec())).collect();
            assert_eq!(
                got,
                vec![(10, 1000, b"v0".to_vec()), (11, 1001, b"v1".to_vec()), (12, 1002, b"v2".to_vec())],
                "{codec:?}"
            );
            assert!(recs.iter().all(|r| r.legacy.unwrap().crc_valid));
        }
    }

    #[test]
    fn v1_log_append_time_wrapper_stamps_its_timestamp_on_inner_messages() {
        let inner = vec![entry(0, 1, 0, 5, None, Some(b"a")), entry(1, 1, 0, 6, None, Some(b"b"))];
        let mut w = wrapper(1, 1, Compression::Gzip, 99, &inner);
        // set the LogAppendTime bit and fix the CRC
        w[17] |= 0x08;
        let crc = crc32fast::hash(&w[16..]);
        w[12..16].copy_from_slice(&crc.to_be_bytes());
        let b = RawBatch { position: 0, bytes: &w, following: &w };
        let recs = b.records().unwrap();
        let ts: Vec<_> = recs.decode().unwrap().iter().map(|r| r.timestamp).collect();
        assert_eq!(ts, vec![99, 99]);
    }

    #[test]
    fn v1_wrapper_offset_zero_means_base_zero() {
        let inner = vec![entry(0, 1, 0, 5, None, Some(b"a")), entry(1, 1, 0, 6, None, Some(b"b"))];
        let w = wrapper(0, 1, Compression::Snappy, 6, &inner);
        let b = RawBatch { position: 0, bytes: &w, following: &w };
        let offsets: Vec<_> = b.records().unwrap().decode().unwrap().iter().map(|r| r.offset).collect();
        assert_eq!(offsets, vec![0, 1]);
    }

    #[test]
    fn v0_wrapper_keeps_absolute_inner_offsets() {
        let inner = [entry(40, 0, 0, 0, None, Some(b"a")), entry(41, 0, 0, 0, None, Some(b"b"))];
        // Kafka's magic v0 lz4 frames carry the old (KAFKA-3160) header checksum: flip ours to it.
        let plain: Vec<u8> = inner.concat();
        let mut frame = compression::compress(Compression::Lz4, &plain);
        // FLG BD at 4..6; HC at 6 is xxh32(magic+descriptor)>>8 in the broken form.
        frame[6] = (twox_hash::XxHash32::oneshot(0, &frame[0..6]) >> 8) as u8;
        let w = entry(41, 0, Compression::Lz4.code(), 0, None, Some(&frame));
        let b = RawBatch { position: 0, bytes: &w, following: &w };
        let recs = b.records().unwrap();
        let recs = recs.decode().unwrap();
        assert_eq!(recs.iter().map(|r| r.offset).collect::<Vec<_>>(), vec![40, 41]);
        assert!(recs.iter().all(|r| r.timestamp == NO_TIMESTAMP));
        assert_eq!(b.first_offset(), 40);
    }

    #[test]
    fn bad_wrappers_are_errors() {
        let inner = vec![entry(0, 1, 0, 5, None, Some(b"a")), entry(5, 1, 0, 6, None, Some(b"b"))];
        // wrapper offset below the last relative offset
        let w = wrapper(3, 1, Compression::Gzip, 6, &inner);
        let e = RawBatch { position: 0, bytes: &w, following: &w }.records().unwrap().decode().unwrap_err();
        assert!(e.what.contains("below the last inner"), "{e}");
        // nested compression
        let nested = wrapper(0, 1, Compression::Gzip, 0, &[entry(0, 1, 0, 0, None, Some(b"x"))]);
        let w = wrapper(1, 1, Compression::Gzip, 0, &[nested]);
        let e = RawBatch { position: 0, bytes: &w, following: &w }.records().unwrap().decode().unwrap_err();
        assert!(e.what.contains("nested"), "{e}");
        // zstd is not a legacy codec
        let w = entry(0, 1, 4, 0, None, Some(b"junk"));
        let e = RawBatch { position: 0, bytes: &w, following: &w }.records().err().unwrap();
        assert!(e.what.contains("zstd"), "{e}");
        // corrupt compressed stream
        let w = entry(0, 1, 1, 0, None, Some(b"\x1f\x8bnot really gzip"));
        assert!(RawBatch { position: 0, bytes: &w, following: &w }.records().is_err());
        // a null wrapper value
        let w = entry(0, 1, 2, 0, None, None);
        assert!(RawBatch { position: 0, bytes: &w, following: &w }.records().is_err());
    }

    #[test]
    fn every_cut_and_flip_of_a_wrapper_never_panics() {
        let inner: Vec<Vec<u8>> = (0..3).map(|i| entry(i, 1, 0, 1000 + i, Some(b"key"), Some(b"some value"))).collect();
        for codec in [Compression::Gzip, Compression::Snappy, Compression::Lz4] {
            let w = wrapper(2, 1, codec, 1002, &inner);
            for cut in 0..w.len() {
                let cut_bytes = &w[..cut];
                for b in BatchIter::new(cut_bytes) {
                    let _ = b.verify();
                    let _ = b.first_offset();
                    if let Ok(d) = b.records() {
                        let _ = d.decode();
                    }
                }
                // a message whose size field was fixed up to the cut: decoded without framing
                let _ = decode_message(cut_bytes);
            }
            for i in 0..w.len() {
                for flip in [0x01u8, 0x80, 0xff] {
                    let mut bad = w.clone();
                    bad[i] ^= flip;
                    for b in BatchIter::new(&bad) {
                        let _ = b.verify();
                        let _ = b.first_offset();
                        if let Ok(d) = b.records() {
                            let _ = d.decode();
                        }
                    }
                }
            }
        }
        // and the decompressed inner stream cut at every byte
        let plain: Vec<u8> = inner.concat();
        let wrapper_bytes = entry(2, 1, 1, 0, None, Some(b"x"));
        let w = decode_message(&wrapper_bytes).unwrap();
        let boundaries: Vec<usize> = inner
            .iter()
            .scan(0, |end, e| {
                *end += e.len();
                Some(*end)
            })
            .collect();
        for cut in 0..plain.len() {
            match decode_inner(&w, &plain[..cut]) {
                // a cut between entries leaves whole messages: a shorter but valid stream
                Ok(got) => assert_eq!(boundaries[got.len() - 1], cut),
                Err(_) => assert!(!boundaries.contains(&cut)),
            }
        }
    }

    #[test]
    fn a_truncated_message_is_an_error_not_a_panic() {
        let e = entry(0, 1, 0, 0, Some(b"key"), Some(b"value"));
        // shrink the size field so that the value runs past the end
        for keep in LOG_OVERHEAD + MESSAGE_OVERHEAD_V0..e.len() {
            let mut cut = e[..keep].to_vec();
            cut[8..12].copy_from_slice(&((keep - LOG_OVERHEAD) as i32).to_be_bytes());
            assert!(decode_message(&cut).is_err(), "kept {keep}");
        }
    }
}
