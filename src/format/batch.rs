//! Record batches as they lie in a `.log` file (Kafka `DefaultRecordBatch`, `LegacyRecord`,
//! `FileLogInputStream`).
//!
//! A [`RawBatch`] is a slice of the file that the framing rules accept as one batch: its size
//! field is sane and it lies wholly inside the file. Whether its CRC holds is a separate
//! question ([`RawBatch::verify`]), exactly as Kafka separates `nextBatch()` from
//! `ensureValid()`. [`BatchIter`] walks a file the way `FileLogInputStream` does and records
//! why it stopped: a clean end, trailing partial bytes, or a corrupt size field. Batches are
//! never copied or re-encoded on the read path: fetch copies their bytes unchanged.

use super::compression::{self, Compression};
use super::legacy;
use super::record::{self, NewRecord, Record, RecordError};
use std::borrow::Cow;

/// baseOffset + batchLength / offset + size: bytes before the length-counted part.
pub const LOG_OVERHEAD: usize = 12;
/// `FileLogInputStream.HEADER_SIZE_UP_TO_MAGIC`.
pub const HEADER_SIZE_UP_TO_MAGIC: usize = 17;
/// Size of a v2 batch header (`DefaultRecordBatch.RECORD_BATCH_OVERHEAD`).
pub const RECORD_BATCH_OVERHEAD: usize = 61;
/// Smallest legal size field (`LegacyRecord.RECORD_OVERHEAD_V0`).
pub const RECORD_OVERHEAD_V0: usize = 14;
/// Byte where the v2 CRC coverage starts (`ATTRIBUTES_OFFSET`).
pub const CRC_START: usize = 21;
/// `partitionLeaderEpoch` of a batch written without one.
pub const NO_PARTITION_LEADER_EPOCH: i32 = -1;

const ATTR_COMPRESSION_MASK: u8 = 0x07;
const ATTR_LOG_APPEND_TIME: u8 = 0x08;
const ATTR_TRANSACTIONAL: u8 = 0x10;
const ATTR_CONTROL: u8 = 0x20;
const ATTR_DELETE_HORIZON: u8 = 0x40;

fn be_i64(b: &[u8], at: usize) -> i64 {
    i64::from_be_bytes(b[at..at + 8].try_into().expect("8 bytes"))
}
fn be_i32(b: &[u8], at: usize) -> i32 {
    i32::from_be_bytes(b[at..at + 4].try_into().expect("4 bytes"))
}
fn be_u32(b: &[u8], at: usize) -> u32 {
    u32::from_be_bytes(b[at..at + 4].try_into().expect("4 bytes"))
}
fn be_i16(b: &[u8], at: usize) -> i16 {
    i16::from_be_bytes(b[at..at + 2].try_into().expect("2 bytes"))
}

/// CRC-32C (Castagnoli) as Kafka's `Crc32C.compute`.
pub fn crc32c(bytes: &[u8]) -> u32 {
    crc32c::crc32c(bytes)
}

/// The fixed 61-byte header of a magic v2 batch.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BatchHeader {
    pub base_offset: i64,
    pub batch_length: i32,
    pub partition_leader_epoch: i32,
    pub magic: i8,
    pub crc: u32,
    pub attributes: i16,
    pub last_offset_delta: i32,
    pub base_timestamp: i64,
    pub max_timestamp: i64,
    pub producer_id: i64,
    pub producer_epoch: i16,
    pub base_sequence: i32,
    pub records_count: i32,
}

impl BatchHeader {
    /// Decode a v2 header; `None` if fewer than 61 bytes are given.
    pub fn decode(b: &[u8]) -> Option<BatchHeader> {
        if b.len() < RECORD_BATCH_OVERHEAD {
            return None;
        }
        Some(BatchHeader {
            base_offset: be_i64(b, 0),
            batch_length: be_i32(b, 8),
            partition_leader_epoch: be_i32(b, 12),
            magic: b[16] as i8,
            crc: be_u32(b, 17),
            attributes: be_i16(b, 21),
            last_offset_delta: be_i32(b, 23),
            base_timestamp: be_i64(b, 27),
            max_timestamp: be_i64(b, 35),
            producer_id: be_i64(b, 43),
            producer_epoch: be_i16(b, 51),
            base_sequence: be_i32(b, 53),
            records_count: be_i32(b, 57),
        })
    }

    fn attr(&self) -> u8 {
        // Kafka reads only the low byte of the attributes.
        self.attributes as u8
    }
    pub fn compression_code(&self) -> u8 {
        self.attr() & ATTR_COMPRESSION_MASK
    }
    pub fn is_log_append_time(&self) -> bool {
        self.attr() & ATTR_LOG_APPEND_TIME != 0
    }
    pub fn is_transactional(&self) -> bool {
        self.attr() & ATTR_TRANSACTIONAL != 0
    }
    pub fn is_control(&self) -> bool {
        self.attr() & ATTR_CONTROL != 0
    }
    pub fn has_delete_horizon(&self) -> bool {
        self.attr() & ATTR_DELETE_HORIZON != 0
    }
    pub fn last_offset(&self) -> i64 {
        self.base_offset.wrapping_add(self.last_offset_delta as i64)
    }
    /// lastSequence as `DefaultRecordBatch.lastSequence` computes it: −1 when baseSequence is
    /// −1 (`NO_SEQUENCE`), else `incrementSequence(baseSequence, lastOffsetDelta)` in Java's
    /// int arithmetic (past Int32.MAX it wraps to 0; any other value, negative included, is
    /// taken as it is).
    pub fn last_sequence(&self) -> i32 {
        let (sequence, increment) = (self.base_sequence, self.last_offset_delta);
        if sequence == -1 {
            return -1;
        }
        if sequence > i32::MAX.wrapping_sub(increment) {
            increment.wrapping_sub(i32::MAX.wrapping_sub(sequence)).wrapping_sub(1)
        } else {
            sequence.wrapping_add(increment)
        }
    }
}

/// One framed entry of a log file: a v2 batch or a legacy (v0/v1) message set entry.
#[derive(Debug, Clone, Copy)]
pub struct RawBatch<'a> {
    /// Byte position of the batch in its file.
    pub position: u64,
    /// All bytes of the batch, `LOG_OVERHEAD + size field` long.
    pub bytes: &'a [u8],
    /// The bytes from the batch's start to the end of what was read with it: Kafka reads a
    /// v2 header's 61 bytes from the file even where the frame is shorter
    /// (`DefaultFileChannelRecordBatch.loadBatchHeader`).
    pub following: &'a [u8],
}

/// Why a batch fails `ensureValid`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BatchDefect {
    pub what: String,
}

impl<'a> RawBatch<'a> {
    pub fn magic(&self) -> i8 {
        self.bytes[16] as i8
    }
    pub fn size_bytes(&self) -> usize {
        self.bytes.len()
    }
    /// The v2 header, if this is a v2 batch with at least a whole header.
    pub fn header(&self) -> Option<BatchHeader> {
        if self.magic() >= 2 {
            BatchHeader::decode(if self.bytes.len() >= RECORD_BATCH_OVERHEAD { self.bytes } else { self.following })
        } else {
            None
        }
    }
    /// The offset field at byte 0: baseOffset (v2) or the entry's (last) offset (v0/v1).
    pub fn offset_field(&self) -> i64 {
        be_i64(self.bytes, 0)
    }
    pub fn base_offset(&self) -> i64 {
        match self.header() {
            Some(h) => h.base_offset,
            None => self.offset_field(),
        }
    }
    pub fn last_offset(&self) -> i64 {
        match self.header() {
            Some(h) => h.last_offset(),
            None => self.offset_field(),
        }
    }
    pub fn next_offset(&self) -> i64 {
        self.last_offset().wrapping_add(1)
    }
    /// partitionLeaderEpoch of a v2 batch, −1 for legacy entries.
    pub fn partition_leader_epoch(&self) -> i32 {
        if self.magic() >= 2 {
            be_i32(self.bytes, 12)
        } else {
            NO_PARTITION_LEADER_EPOCH
        }
    }
    /// The stored CRC (v2: bytes 17..21; v0/v1: bytes 12..16).
    pub fn stored_crc(&self) -> u32 {
        if self.magic() >= 2 {
            be_u32(self.bytes, 17)
        } else {
            be_u32(self.bytes, 12)
        }
    }
    /// The CRC computed over the bytes the format says it covers, if there are enough bytes.
    pub fn computed_crc(&self) -> Option<u32> {
        if self.magic() >= 2 {
            (self.bytes.len() >= RECORD_BATCH_OVERHEAD).then(|| crc32c(&self.bytes[CRC_START..]))
        } else {
            (self.bytes.len() > 16).then(|| crc32fast::hash(&self.bytes[16..]))
        }
    }
    /// Max timestamp (v2 header; v1 message timestamp; −1 for v0).
    pub fn max_timestamp(&self) -> i64 {
        match self.magic() {
            m if m >= 2 => self.header().map_or(-1, |h| h.max_timestamp),
            1 if self.bytes.len() >= 26 => be_i64(self.bytes, 18),
            _ => -1,
        }
    }

    /// Kafka's `ensureValid`: size and CRC. Records are not parsed.
    pub fn verify(&self) -> Result<(), BatchDefect> {
        if self.magic() >= 2 && self.bytes.len() < RECORD_BATCH_OVERHEAD {
            return Err(BatchDefect {
                what: format!(
                    "record batch is only {} bytes, expected at least {RECORD_BATCH_OVERHEAD}",
                    self.bytes.len()
                ),
            });
        }
        // No magic check: `FileLogInputStream` reads any magic from 2 up as a v2 batch
        // (`DefaultRecordBatch.ensureValid`: size and CRC-32C) and any below 2 as a legacy
        // entry (`LegacyRecord.ensureValid`: CRC-32); the magic byte is outside the v2 CRC.
        let stored = self.stored_crc();
        let computed = self.computed_crc().unwrap_or(0);
        if stored != computed {
            return Err(BatchDefect {
                what: format!("CRC mismatch: stored {stored:#010x} but computed {computed:#010x}"),
            });
        }
        Ok(())
    }

    /// The exact first offset of the entry. For v2 and plain legacy messages this is
    /// [`RawBatch::base_offset`]. A legacy *compressed wrapper* stores only its last inner offset
    /// (Kafka's `AbstractLegacyRecordBatch.baseOffset()` decompresses to find the first one), so
    /// this decompresses it; when that fails the wrapper's own offset is returned. `base_offset`
    /// stays cheap on purpose: scans, recovery and fetch call it for every batch.
    pub fn first_offset(&self) -> i64 {
        let magic = self.magic();
        if !(0..2).contains(&magic) || self.bytes.len() < 18 || self.bytes[17] & ATTR_COMPRESSION_MASK == 0 {
            return self.base_offset();
        }
        self.records()
            .ok()
            .and_then(|d| d.decode().ok().and_then(|r| r.first().map(|r| r.offset)))
            .unwrap_or_else(|| self.base_offset())
    }

    /// The base offset as Kafka's `FileChannelRecordBatch.baseOffset()` finds it, or the
    /// exception it throws (`Class: message`). v2 (any magic from 2 up): the header's field. A
    /// legacy entry (any magic below 2) is iterated (`AbstractLegacyRecordBatch.baseOffset`,
    /// `iterator().next().offset()`): plain, its offset field; a compressed wrapper is
    /// decompressed, and an unknown codec, a wrapper of another magic, zstd or inner bytes
    /// that do not decode throw.
    pub fn kafka_base_offset(&self) -> Result<i64, String> {
        let magic = self.magic();
        if magic >= 2 {
            return Ok(self.base_offset());
        }
        let code = self.bytes.get(17).map_or(0, |a| a & ATTR_COMPRESSION_MASK);
        match code {
            0 => Ok(self.offset_field()),
            5..=7 => Err(format!("java.lang.IllegalArgumentException: Unknown compression type id: {code}")),
            _ if magic != 0 && magic != 1 => Err(format!(
                "org.apache.kafka.common.InvalidRecordException: Invalid wrapper magic found in legacy deep record \
                 iterator {magic}"
            )),
            4 => Err(format!(
                "org.apache.kafka.common.InvalidRecordException: Invalid wrapper compressionType found in legacy deep \
                 record iterator {magic}"
            )),
            _ => match self
                .records()
                .map_err(|e| e.what)
                .and_then(|d| d.decode().map(|r| r.first().map(|r| r.offset)).map_err(|e| e.what))
            {
                Ok(first) => first.ok_or_else(|| {
                    "org.apache.kafka.common.InvalidRecordException: Found invalid compressed record set with no \
                     inner records"
                        .to_string()
                }),
                Err(what) => Err(format!("org.apache.kafka.common.KafkaException: {what}")),
            },
        }
    }

    /// The codec named by the attributes: v2 bits 0–2 of the batch attributes, legacy bits 0–2
    /// of the (outer) message attributes. `None` for an unknown code or too few bytes.
    pub fn compression(&self) -> Option<Compression> {
        match self.magic() {
            m if m >= 2 => self.header().and_then(|h| Compression::from_code(h.compression_code())),
            0 | 1 if self.bytes.len() > 17 => Compression::from_code(self.bytes[17] & ATTR_COMPRESSION_MASK),
            _ => None,
        }
    }

    /// The timestamp type as Kafka names it: `CreateTime`, `LogAppendTime`, or
    /// `NoTimestampType` (magic v0, or bytes too short to tell).
    pub fn timestamp_type(&self) -> &'static str {
        match self.magic() {
            m if m >= 2 => match self.header() {
                Some(h) if h.is_log_append_time() => "LogAppendTime",
                Some(_) => "CreateTime",
                None => "NoTimestampType",
            },
            1 if self.bytes.len() > 17 && self.bytes[17] & ATTR_LOG_APPEND_TIME != 0 => "LogAppendTime",
            1 => "CreateTime",
            _ => "NoTimestampType",
        }
    }

    /// The records of this entry, decompressed if needed. Legacy entries yield one record
    /// (or the inner records of a compressed wrapper, offsets resolved as Kafka does).
    /// Unknown magic values, unknown codecs and corrupt compressed streams are errors whose
    /// position counts from the start of the records area (v2) or of the entry (legacy).
    pub fn records(&self) -> Result<DecodedRecords<'a>, RecordError> {
        let magic = self.magic();
        // Any magic from 2 up is read as v2, as Kafka's `FileLogInputStream` does.
        if magic < 0 {
            return Err(RecordError {
                position: 16,
                what: format!("unknown magic value {magic} (expected 0, 1 or 2)"),
            });
        }
        match self.header() {
            // A frame shorter than its header: Kafka's record iterator reads past it and throws.
            Some(_) if self.bytes.len() < RECORD_BATCH_OVERHEAD => {
                Err(RecordError { position: 0, what: "record batch shorter than its header".into() })
            }
            Some(h) => {
                let area = &self.bytes[RECORD_BATCH_OVERHEAD..];
                let payload: Cow<'a, [u8]> =
                    match Compression::from_code(h.compression_code()) {
                        Some(Compression::None) => Cow::Borrowed(area),
                        // An empty batch (compaction keeps one for producer state) has no stream.
                        Some(_) if area.is_empty() && h.records_count == 0 => Cow::Borrowed(area),
                        Some(c) => Cow::Owned(compression::decompress(c, area).map_err(|what| RecordError {
                            position: 0,
                            what: format!("{} stream: {what}", c.name()),
                        })?),
                        None => {
                            return Err(RecordError {
                                position: 0,
                                what: format!("unknown compression codec {}", h.compression_code()),
                            })
                        }
                    };
                Ok(DecodedRecords { form: Form::V2 { header: h, payload } })
            }
            None if magic >= 2 => Err(RecordError { position: 0, what: "record batch shorter than its header".into() }),
            None => {
                let outer = legacy::decode_message(self.bytes)?;
                if !outer.is_compressed() {
                    return Ok(DecodedRecords { form: Form::Legacy { entry: self.bytes, plain: None } });
                }
                let code = outer.compression_code();
                let codec = match Compression::from_code(code) {
                    Some(c @ (Compression::Gzip | Compression::Snappy | Compression::Lz4)) => c,
                    Some(c) => {
                        return Err(RecordError {
                            position: 17,
                            what: format!("codec {} is not allowed in a magic v{magic} message", c.name()),
                        })
                    }
                    None => {
                        return Err(RecordError { position: 17, what: format!("unknown compression codec {code}") })
                    }
                };
                let Some(value) = outer.value else {
                    return Err(RecordError {
                        position: 0,
                        what: format!("compressed v{magic} wrapper has a null value"),
                    });
                };
                let plain = compression::decompress(codec, value).map_err(|what| RecordError {
                    position: 0,
                    what: format!("{} stream in the v{magic} wrapper: {what}", codec.name()),
                })?;
                Ok(DecodedRecords { form: Form::Legacy { entry: self.bytes, plain: Some(plain) } })
            }
        }
    }
}

/// The records of one entry, ready to decode: a v2 batch's (possibly decompressed) records
/// area, or a legacy message (with the decompressed inner stream of a wrapper).
pub struct DecodedRecords<'a> {
    form: Form<'a>,
}

enum Form<'a> {
    V2 { header: BatchHeader, payload: Cow<'a, [u8]> },
    Legacy { entry: &'a [u8], plain: Option<Vec<u8>> },
}

impl DecodedRecords<'_> {
    /// The v2 header, `None` for legacy messages.
    pub fn header(&self) -> Option<&BatchHeader> {
        match &self.form {
            Form::V2 { header, .. } => Some(header),
            Form::Legacy { .. } => None,
        }
    }

    /// [`DecodedRecords::decode`], keeping the v2 records that decode before the first error
    /// (a legacy entry decodes whole or not at all).
    pub fn decode_prefix(&self) -> (Vec<Record<'_>>, Option<RecordError>) {
        match &self.form {
            Form::V2 { header: h, payload } => record::decode_records_prefix(
                payload,
                h.records_count,
                h.base_offset,
                h.base_timestamp,
                h.is_log_append_time().then_some(h.max_timestamp),
            ),
            Form::Legacy { .. } => match self.decode() {
                Ok(r) => (r, None),
                Err(e) => (Vec::new(), Some(e)),
            },
        }
    }

    /// Decode every record; errors carry the position inside the records area (v2), the
    /// entry (legacy) or the decompressed inner stream (legacy wrapper).
    pub fn decode(&self) -> Result<Vec<Record<'_>>, RecordError> {
        match &self.form {
            Form::V2 { header: h, payload } => record::decode_records(
                payload,
                h.records_count,
                h.base_offset,
                h.base_timestamp,
                h.is_log_append_time().then_some(h.max_timestamp),
            ),
            Form::Legacy { entry, plain } => {
                let outer = legacy::decode_message(entry)?;
                match plain {
                    None => Ok(vec![legacy::to_record(&outer)]),
                    Some(plain) => Ok(legacy::decode_inner(&outer, plain)?.iter().map(legacy::to_record).collect()),
                }
            }
        }
    }
}

/// Why a [`BatchIter`] stopped.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ScanStop {
    /// Every byte belonged to a batch.
    End,
    /// `len` bytes at `position` are too few for the batch they start (a torn write).
    Partial { position: u64, len: u64 },
    /// The size field at `position` is impossible (Kafka's `CorruptRecordException`).
    BadSize { position: u64, size: i32 },
}

/// Walks a log file's bytes batch by batch, as `FileLogInputStream.nextBatch` does.
pub struct BatchIter<'a> {
    bytes: &'a [u8],
    pos: usize,
    stop: Option<ScanStop>,
}

impl<'a> BatchIter<'a> {
    pub fn new(bytes: &'a [u8]) -> Self {
        BatchIter { bytes, pos: 0, stop: None }
    }
    /// Start at byte `position` (e.g. from an offset-index entry).
    pub fn starting_at(bytes: &'a [u8], position: usize) -> Self {
        BatchIter { bytes, pos: position.min(bytes.len()), stop: None }
    }
    /// Why iteration ended; `None` while batches remain.
    pub fn stop(&self) -> Option<&ScanStop> {
        self.stop.as_ref()
    }
    /// Byte position just after the last batch returned.
    pub fn position(&self) -> usize {
        self.pos
    }
    /// The rest of the file as byte ranges of whole batches, each at least `chunk_bytes` long
    /// but the last; [`BatchIter::stop`] says why they end.
    pub fn chunks(&mut self, chunk_bytes: usize) -> impl Iterator<Item = (usize, usize)> + use<'_, 'a> {
        std::iter::from_fn(move || {
            let start = self.pos;
            while self.next().is_some() {
                if self.pos - start >= chunk_bytes {
                    break;
                }
            }
            (self.pos > start).then_some((start, self.pos))
        })
    }
}

impl<'a> Iterator for BatchIter<'a> {
    type Item = RawBatch<'a>;

    fn next(&mut self) -> Option<RawBatch<'a>> {
        if self.stop.is_some() {
            return None;
        }
        let remaining = self.bytes.len() - self.pos;
        if remaining == 0 {
            self.stop = Some(ScanStop::End);
            return None;
        }
        if remaining <= HEADER_SIZE_UP_TO_MAGIC {
            self.stop = Some(ScanStop::Partial { position: self.pos as u64, len: remaining as u64 });
            return None;
        }
        let size = be_i32(self.bytes, self.pos + 8);
        if size < RECORD_OVERHEAD_V0 as i32 {
            self.stop = Some(ScanStop::BadSize { position: self.pos as u64, size });
            return None;
        }
        let total = LOG_OVERHEAD + size as usize;
        if total > remaining {
            self.stop = Some(ScanStop::Partial { position: self.pos as u64, len: remaining as u64 });
            return None;
        }
        let batch = RawBatch {
            position: self.pos as u64,
            bytes: &self.bytes[self.pos..self.pos + total],
            following: &self.bytes[self.pos..],
        };
        self.pos += total;
        Some(batch)
    }
}

/// What a producer request asks for, beyond the records themselves.
#[derive(Debug, Clone, Copy)]
pub struct BatchSpec {
    pub base_offset: i64,
    pub partition_leader_epoch: i32,
    pub compression: Compression,
    pub producer_id: i64,
    pub producer_epoch: i16,
    pub base_sequence: i32,
    pub is_transactional: bool,
    pub is_control: bool,
}

impl BatchSpec {
    pub fn plain(base_offset: i64, partition_leader_epoch: i32) -> BatchSpec {
        BatchSpec {
            base_offset,
            partition_leader_epoch,
            compression: Compression::None,
            producer_id: -1,
            producer_epoch: -1,
            base_sequence: -1,
            is_transactional: false,
            is_control: false,
        }
    }
}

/// Builds one magic v2 batch record by record, straight into its final buffer (one buffer
/// reused across batches; no allocation per record).
pub struct BatchEncoder {
    spec: BatchSpec,
    buf: Vec<u8>,
    count: i32,
    base_timestamp: i64,
    max_timestamp: i64,
}

impl BatchEncoder {
    pub fn new(spec: BatchSpec, capacity: usize) -> Self {
        let mut buf = Vec::with_capacity(RECORD_BATCH_OVERHEAD + capacity);
        buf.resize(RECORD_BATCH_OVERHEAD, 0);
        BatchEncoder { spec, buf, count: 0, base_timestamp: -1, max_timestamp: -1 }
    }

    /// Start a new batch in the same buffer.
    pub fn reset(&mut self, spec: BatchSpec) {
        self.spec = spec;
        self.buf.truncate(RECORD_BATCH_OVERHEAD);
        self.count = 0;
        self.base_timestamp = -1;
        self.max_timestamp = -1;
    }

    pub fn record_count(&self) -> i32 {
        self.count
    }

    /// Bytes so far (uncompressed).
    pub fn size_bytes(&self) -> usize {
        self.buf.len()
    }

    pub fn push(&mut self, r: &record::RecordRef<'_>) {
        if self.count == 0 {
            self.base_timestamp = r.timestamp;
        }
        self.max_timestamp = self.max_timestamp.max(r.timestamp);
        record::encode_record_ref(r, self.count, r.timestamp - self.base_timestamp, &mut self.buf);
        self.count += 1;
    }

    /// Push a record whose value is `template` with its first bytes replaced by `patch`.
    pub fn push_patched(
        &mut self,
        timestamp: i64,
        key: Option<&[u8]>,
        headers: &[(&[u8], Option<&[u8]>)],
        template: &[u8],
        patch: &[u8],
    ) {
        if self.count == 0 {
            self.base_timestamp = timestamp;
        }
        self.max_timestamp = self.max_timestamp.max(timestamp);
        record::encode_record_patched(
            timestamp - self.base_timestamp,
            self.count,
            key,
            headers,
            template,
            patch,
            &mut self.buf,
        );
        self.count += 1;
    }

    /// Finish the batch and hand its buffer over, taking `replacement` (any capacity) as the
    /// buffer for the next batch; lets a producer thread pass batches on without copying.
    pub fn take(&mut self, mut replacement: Vec<u8>) -> Vec<u8> {
        self.finish();
        replacement.clear();
        replacement.resize(RECORD_BATCH_OVERHEAD, 0);
        self.count = 0;
        std::mem::replace(&mut self.buf, replacement)
    }

    /// Fill in the header (compressing the records if asked) and return the whole batch.
    pub fn finish(&mut self) -> &[u8] {
        assert!(self.count > 0, "a produced batch holds at least one record");
        if self.spec.compression != Compression::None {
            let area = compression::compress(self.spec.compression, &self.buf[RECORD_BATCH_OVERHEAD..]);
            self.buf.truncate(RECORD_BATCH_OVERHEAD);
            self.buf.extend_from_slice(&area);
        }
        let spec = self.spec;
        let mut attributes: u16 = spec.compression.code() as u16;
        if spec.is_transactional {
            attributes |= ATTR_TRANSACTIONAL as u16;
        }
        if spec.is_control {
            attributes |= ATTR_CONTROL as u16;
        }
        let batch_length = (self.buf.len() - LOG_OVERHEAD) as i32;
        let h = &mut self.buf[..RECORD_BATCH_OVERHEAD];
        h[0..8].copy_from_slice(&spec.base_offset.to_be_bytes());
        h[8..12].copy_from_slice(&batch_length.to_be_bytes());
        h[12..16].copy_from_slice(&spec.partition_leader_epoch.to_be_bytes());
        h[16] = 2;
        h[21..23].copy_from_slice(&attributes.to_be_bytes());
        h[23..27].copy_from_slice(&(self.count - 1).to_be_bytes());
        h[27..35].copy_from_slice(&self.base_timestamp.to_be_bytes());
        h[35..43].copy_from_slice(&self.max_timestamp.to_be_bytes());
        h[43..51].copy_from_slice(&spec.producer_id.to_be_bytes());
        h[51..53].copy_from_slice(&spec.producer_epoch.to_be_bytes());
        h[53..57].copy_from_slice(&spec.base_sequence.to_be_bytes());
        h[57..61].copy_from_slice(&self.count.to_be_bytes());
        let crc = crc32c(&self.buf[CRC_START..]);
        self.buf[17..21].copy_from_slice(&crc.to_be_bytes());
        &self.buf
    }
}

/// Encode a magic v2 batch holding `records` (at least one), CRC and lengths filled in.
pub fn encode_batch(spec: &BatchSpec, records: &[NewRecord]) -> Vec<u8> {
    let mut enc = BatchEncoder::new(*spec, records.iter().map(|r| 24 + r.value.as_ref().map_or(0, |v| v.len())).sum());
    for r in records {
        let headers: Vec<(&[u8], Option<&[u8]>)> =
            r.headers.iter().map(|(k, v)| (k.as_slice(), v.as_deref())).collect();
        enc.push(&record::RecordRef {
            timestamp: r.timestamp,
            key: r.key.as_deref(),
            value: r.value.as_deref(),
            headers: &headers,
        });
    }
    enc.finish().to_vec()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hello() -> Vec<u8> {
        let rec =
            NewRecord { timestamp: 1_700_000_000_000, key: None, value: Some(b"hello".to_vec()), headers: vec![] };
        encode_batch(&BatchSpec::plain(0, 0), &[rec])
    }

    #[test]
    fn crc32c_check_value() {
        assert_eq!(crc32c(b"123456789"), 0xE306_9283);
    }

    #[test]
    fn encodes_the_spec_worked_example_byte_for_byte() {
        let expected = concat!(
            "0000000000000000",
            "0000003d",
            "00000000",
            "02",
            "e641a44b",
            "0000",
            "00000000",
            "0000018bcfe56800",
            "0000018bcfe56800",
            "ffffffffffffffff",
            "ffff",
            "ffffffff",
            "00000001",
            "16",
            "00",
            "00",
            "00",
            "01",
            "0a",
            "68656c6c6f",
            "00"
        );
        let hex: String = hello().iter().map(|b| format!("{b:02x}")).collect();
        assert_eq!(hex, expected);
    }

    #[test]
    fn sarama_uncompressed_vector_has_expected_crc() {
        // IBM/sarama record_test.go "uncompressed record": CRC 0x547961FD over bytes 21..end.
        let bytes: Vec<u8> = [
            &[0u8, 0, 0, 0, 0, 0, 0, 0][..], // first offset
            &[0, 0, 0, 70],                  // length
            &[0, 0, 0, 0],                   // partition leader epoch
            &[2],                            // magic
            &[84, 121, 97, 253],             // crc
            &[0, 0],                         // attributes
            &[0, 0, 0, 0],                   // last offset delta
            &[0, 0, 1, 88, 141, 205, 89, 56],
            &[0, 0, 0, 0, 0, 0, 0, 0],
            &[0, 0, 0, 0, 0, 0, 0, 0],
            &[0, 0],
            &[0, 0, 0, 0],
            &[0, 0, 0, 1],
            &[40, 0, 10, 0, 8, 1, 2, 3, 4, 6, 5, 6, 7, 2, 6, 8, 9, 10, 4, 11, 12],
        ]
        .concat();
        let b = RawBatch { position: 0, bytes: &bytes, following: &bytes };
        assert_eq!(b.stored_crc(), 0x5479_61FD);
        assert!(b.verify().is_ok());
    }

    #[test]
    fn round_trip_decodes_what_was_encoded() {
        let recs: Vec<NewRecord> = (0..5)
            .map(|i| NewRecord {
                timestamp: 100 + i,
                key: (i % 2 == 0).then(|| format!("k{i}").into_bytes()),
                value: Some(format!("v{i}").into_bytes()),
                headers: vec![(b"h".to_vec(), Some(vec![i as u8]))],
            })
            .collect();
        let bytes = encode_batch(&BatchSpec::plain(42, 7), &recs);
        let mut it = BatchIter::new(&bytes);
        let b = it.next().unwrap();
        assert!(it.next().is_none());
        assert_eq!(it.stop(), Some(&ScanStop::End));
        b.verify().unwrap();
        assert_eq!((b.base_offset(), b.last_offset(), b.partition_leader_epoch()), (42, 46, 7));
        assert_eq!(b.max_timestamp(), 104);
        let dec = b.records().unwrap();
        let got = dec.decode().unwrap();
        assert_eq!(got.len(), 5);
        for (i, r) in got.iter().enumerate() {
            assert_eq!(r.offset, 42 + i as i64);
            assert_eq!(r.timestamp, 100 + i as i64);
            assert_eq!(r.value.unwrap(), format!("v{i}").as_bytes());
        }
    }

    #[test]
    fn every_flipped_header_byte_is_detected_or_harmless() {
        let good = hello();
        for i in 0..RECORD_BATCH_OVERHEAD {
            let mut bad = good.clone();
            bad[i] ^= 0xff;
            let mut it = BatchIter::new(&bad);
            match it.next() {
                // bytes 0..8 (baseOffset) and 12..16 (partitionLeaderEpoch) are outside the CRC by
                // design; everything from the magic on is caught by the CRC or the magic check.
                Some(b) if (0..8).contains(&i) || (12..16).contains(&i) => assert!(b.verify().is_ok()),
                Some(b) => assert!(b.verify().is_err(), "flip at byte {i} went unnoticed"),
                None => assert!((8..12).contains(&i), "only a size flip may stop the scan (byte {i})"),
            }
        }
    }

    #[test]
    fn a_cut_last_batch_leaves_a_clean_prefix() {
        let one = hello();
        let mut two = one.clone();
        let mut second = one.clone();
        second[0..8].copy_from_slice(&1i64.to_be_bytes());
        two.extend_from_slice(&second);
        for cut in one.len()..two.len() {
            let mut it = BatchIter::new(&two[..cut]);
            let got: Vec<_> = it.by_ref().collect();
            assert_eq!(got.len(), 1);
            got[0].verify().unwrap();
            match it.stop().unwrap() {
                ScanStop::End => assert_eq!(cut, one.len()),
                ScanStop::Partial { position, len } => {
                    assert_eq!(*position, one.len() as u64);
                    assert_eq!(*len, (cut - one.len()) as u64);
                }
                other => panic!("unexpected stop {other:?}"),
            }
        }
    }

    #[test]
    fn arbitrary_bytes_never_panic() {
        let good = hello();
        for i in 0..good.len() {
            for flip in [0x01u8, 0x80, 0xff] {
                let mut bad = good.clone();
                bad[i] ^= flip;
                for b in BatchIter::new(&bad) {
                    let _ = b.verify();
                    let _ = b.last_offset();
                    if let Ok(d) = b.records() {
                        let _ = d.decode();
                    }
                }
            }
        }
    }
}
