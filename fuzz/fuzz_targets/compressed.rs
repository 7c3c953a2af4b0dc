//! Fuzz target: compressed record streams — gzip, snappy (xerial and raw), lz4 (Kafka's frame)
//! and zstd — decompressed on their own (with the output limit), and as the records area of a
//! v2 batch and the value of a legacy wrapper, so what decompresses is decoded as records too.
#![no_main]

use replica_lab::format::batch::BatchIter;
use replica_lab::format::compression::{self, Compression};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Some((&selector, stream)) = data.split_first() else { return };
    // Codecs 1..=4; other selector bits pick the record count claimed by the batch.
    let codec = Compression::from_code(selector % 4 + 1).expect("codes 1..=4");
    let records_count = (selector >> 2) as i32;
    if let Ok(plain) = compression::decompress(codec, stream) {
        let _ = replica_lab::format::record::decode_records(&plain, records_count, 0, 0, None);
    }
    let batch = replica_lab_fuzz::v2_batch(codec.code() as i16, records_count, stream);
    for b in BatchIter::new(&batch) {
        replica_lab_fuzz::exercise_batch(&b);
    }
    // A v1 wrapper whose value is the stream (zstd is not allowed there: an error, not a panic).
    let mut entry = Vec::with_capacity(34 + stream.len());
    entry.extend_from_slice(&7i64.to_be_bytes());
    entry.extend_from_slice(&((22 + stream.len()) as i32).to_be_bytes());
    entry.extend_from_slice(&[0, 0, 0, 0, 1, codec.code()]);
    entry.extend_from_slice(&0i64.to_be_bytes());
    entry.extend_from_slice(&(-1i32).to_be_bytes());
    entry.extend_from_slice(&(stream.len() as i32).to_be_bytes());
    entry.extend_from_slice(stream);
    let crc = crc32fast_hash(&entry[16..]);
    entry[12..16].copy_from_slice(&crc.to_be_bytes());
    for b in BatchIter::new(&entry) {
        replica_lab_fuzz::exercise_batch(&b);
    }
});

/// CRC-32 (IEEE) of a legacy message; bitwise, to keep the fuzz crate's dependencies to klog.
fn crc32fast_hash(bytes: &[u8]) -> u32 {
    let mut crc = !0u32;
    for &b in bytes {
        crc ^= b as u32;
        for _ in 0..8 {
            crc = if crc & 1 != 0 { (crc >> 1) ^ 0xEDB8_8320 } else { crc >> 1 };
        }
    }
    !crc
}
