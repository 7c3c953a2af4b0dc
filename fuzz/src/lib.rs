//! Shared drivers of the klog fuzz targets: each walks one kind of file through every decoder
//! klog would run on it (framing, CRC, header accessors, decompression, records, control
//! records), discarding the results. A panic, an overflow (fuzz builds keep overflow checks),
//! a hang or an out-of-memory anywhere below is a bug; an `Err` is the expected answer to bad
//! bytes. Nothing here writes outside the temp dir of the file-based readers.

use replica_lab::format::batch::{BatchIter, RawBatch};
use replica_lab::format::control;
use replica_lab::format::record::Record;

/// Walk `bytes` as a `.log` file, decoding every batch the framing accepts.
pub fn exercise_log(bytes: &[u8]) {
    let mut it = BatchIter::new(bytes);
    for batch in it.by_ref() {
        exercise_batch(&batch);
    }
    let _ = it.stop();
    let _ = it.position();
}

/// Every accessor of one framed batch, then its records as check and dump decode them.
pub fn exercise_batch(b: &RawBatch<'_>) {
    let _ = b.verify();
    let _ = (b.magic(), b.size_bytes(), b.offset_field(), b.base_offset(), b.last_offset());
    let _ = (b.next_offset(), b.partition_leader_epoch(), b.stored_crc(), b.computed_crc());
    let _ = (b.max_timestamp(), b.first_offset(), b.compression(), b.timestamp_type());
    if let Some(h) = b.header() {
        let _ = (h.compression_code(), h.is_log_append_time(), h.is_transactional(), h.is_control());
        let _ = (h.has_delete_horizon(), h.last_offset(), h.last_sequence());
    }
    if let Ok(decoded) = b.records() {
        let _ = decoded.header();
        if let Ok(records) = decoded.decode() {
            exercise_records(&records);
        }
    }
}

/// Control-record decoding of every record (whatever the batch's isControl bit says: the
/// decoder must cope with any key and value).
pub fn exercise_records(records: &[Record<'_>]) {
    for r in records {
        let _ = control::decode_type_id(r.key);
        if let Ok(c) = control::decode(r.key, r.value) {
            let _ = (c.type_name(), c.type_id());
        }
    }
}

/// A magic v2 batch around `records_area` with the given header fields, lengths and CRC made
/// right, so the fuzzer's bytes reach the record and decompression decoders past the CRC.
pub fn v2_batch(attributes: i16, records_count: i32, records_area: &[u8]) -> Vec<u8> {
    let mut b = Vec::with_capacity(61 + records_area.len());
    b.extend_from_slice(&0i64.to_be_bytes()); // baseOffset
    b.extend_from_slice(&((49 + records_area.len()) as i32).to_be_bytes()); // batchLength
    b.extend_from_slice(&0i32.to_be_bytes()); // partitionLeaderEpoch
    b.push(2); // magic
    b.extend_from_slice(&[0; 4]); // crc, filled below
    b.extend_from_slice(&attributes.to_be_bytes());
    b.extend_from_slice(&(records_count.max(1) - 1).to_be_bytes()); // lastOffsetDelta
    b.extend_from_slice(&1_700_000_000_000i64.to_be_bytes()); // baseTimestamp
    b.extend_from_slice(&1_700_000_000_000i64.to_be_bytes()); // maxTimestamp
    b.extend_from_slice(&(-1i64).to_be_bytes()); // producerId
    b.extend_from_slice(&(-1i16).to_be_bytes()); // producerEpoch
    b.extend_from_slice(&(-1i32).to_be_bytes()); // baseSequence
    b.extend_from_slice(&records_count.to_be_bytes());
    b.extend_from_slice(records_area);
    let crc = replica_lab::format::batch::crc32c(&b[21..]);
    b[17..21].copy_from_slice(&crc.to_be_bytes());
    b
}

/// A scratch dir of this fuzzing process (one per process, so parallel jobs do not collide),
/// for the readers that take a path rather than bytes.
pub fn scratch_dir() -> &'static std::path::Path {
    static DIR: std::sync::OnceLock<std::path::PathBuf> = std::sync::OnceLock::new();
    DIR.get_or_init(|| {
        let dir = std::env::temp_dir().join(format!("klog-fuzz-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("create the scratch dir");
        dir
    })
}
