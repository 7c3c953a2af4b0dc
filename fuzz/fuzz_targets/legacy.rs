//! Fuzz target: legacy magic v0/v1 messages (`LegacyRecord`) — one entry decoded alone, the
//! input as the decompressed inner stream of a v0 and a v1 wrapper, and the input as a log
//! of legacy entries through the batch path (which decompresses wrappers).
#![no_main]

use replica_lab::format::legacy;
use libfuzzer_sys::fuzz_target;

/// A v0 or v1 wrapper message with the given offset, codec gzip (its value is not used).
fn wrapper(magic: i8, offset: i64, attributes: u8) -> Vec<u8> {
    let mut m = Vec::new();
    m.extend_from_slice(&offset.to_be_bytes());
    let size: i32 = if magic == 0 { 14 } else { 22 };
    m.extend_from_slice(&size.to_be_bytes());
    m.extend_from_slice(&[0, 0, 0, 0, magic as u8, attributes]);
    if magic == 1 {
        m.extend_from_slice(&1_700_000_000_000i64.to_be_bytes());
    }
    m.extend_from_slice(&(-1i32).to_be_bytes()); // key
    m.extend_from_slice(&(-1i32).to_be_bytes()); // value
    m
}

fuzz_target!(|data: &[u8]| {
    if let Ok(m) = legacy::decode_message(data) {
        let _ = (m.compression_code(), m.is_compressed(), m.is_log_append_time());
        let _ = legacy::to_record(&m);
    }
    let offset = data.get(..8).map_or(0, |b| i64::from_be_bytes(b.try_into().expect("8 bytes")));
    for magic in [0i8, 1] {
        for attributes in [0x01u8, 0x09] {
            let w = wrapper(magic, offset, attributes);
            let outer = legacy::decode_message(&w).expect("a well-formed wrapper");
            if let Ok(inner) = legacy::decode_inner(&outer, data) {
                for m in &inner {
                    let _ = legacy::to_record(m);
                }
            }
        }
    }
    replica_lab_fuzz::exercise_log(data);
});
