//! Fuzz target: `.index` and `.timeindex` files — entry decoding, last entries, the binary
//! search of `OffsetIndex.lookup`, and the checks of every entry against a `.log` beside it
//! (the input is split into base offset, index bytes and log bytes).
#![no_main]

use klog::log::index;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if data.len() < 11 {
        return;
    }
    // A base offset as a segment file name can hold one (0..=i64::MAX).
    let base_offset = i64::from_be_bytes(data[0..8].try_into().expect("8 bytes")) & i64::MAX;
    let index_len = u16::from_be_bytes([data[8], data[9]]) as usize;
    let which = data[10];
    let rest = &data[11..];
    let (idx, log) = rest.split_at(index_len.min(rest.len()));
    if which & 1 == 0 {
        let entries: Vec<_> = index::decode_offset_entries(idx, base_offset).collect();
        let _ = index::last_offset_entry(idx, base_offset);
        for target in [i64::MIN, -1, 0, base_offset, i64::MAX] {
            let _ = index::lookup_offset(idx, base_offset, target);
        }
        let _ = index::verify_offset_entries(&entries, Some(log));
        let _ = index::verify_offset_entries(&entries, None);
    } else {
        let entries: Vec<_> = index::decode_time_entries(idx, base_offset).collect();
        let _ = index::last_time_entry(idx, base_offset);
        let _ = index::verify_time_entries(&entries, Some(log));
        let _ = index::verify_time_entries(&entries, None);
    }
    let _ = klog::format::txn_index::decode_entries(idx);
});
