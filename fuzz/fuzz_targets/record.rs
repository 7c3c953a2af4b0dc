//! Fuzz target: the records area of a v2 batch — varints, record lengths, keys, values,
//! headers, the declared record count — decoded directly and through a batch whose CRC is
//! made right (attributes from the input, so LogAppendTime and control batches are reached).
#![no_main]

use replica_lab::format::batch::BatchIter;
use replica_lab::format::record::{self, Cursor};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if data.len() < 5 {
        return;
    }
    let count = i32::from_be_bytes([data[0], data[1], data[2], data[3]]);
    let flags = data[4];
    let area = &data[5..];
    let log_append_time = (flags & 1 != 0).then_some(i64::MAX);
    if let Ok(records) = record::decode_records(area, count, i64::MAX - 3, i64::MIN + 2, log_append_time) {
        replica_lab_fuzz::exercise_records(&records);
    }
    // One record at a time, as far as the cursor gets.
    let mut cur = Cursor::new(area);
    while cur.remaining() > 0 {
        if record::decode_record(&mut cur, 0, 0, None).is_err() {
            break;
        }
    }
    // The same area as an uncompressed batch (attribute bits 3..5 from the flags).
    let attributes = (flags & 0x38) as i16;
    let batch = replica_lab_fuzz::v2_batch(attributes, count, area);
    for b in BatchIter::new(&batch) {
        replica_lab_fuzz::exercise_batch(&b);
    }
    // Control records straight from the input: key | value split at the flags byte.
    let split = (flags as usize).min(area.len());
    let (key, value) = area.split_at(split);
    let _ = replica_lab::format::control::decode(Some(key), Some(value));
});
