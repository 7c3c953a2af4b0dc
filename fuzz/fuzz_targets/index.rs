//! Fuzz target: `.index` and `.timeindex` files — the one reader of each kind (with Kafka's
//! zero-tail stop rule), their structure findings, last entries, the binary search of
//! `OffsetIndex.lookup`, and the join of every entry against a `.log` beside it (the input is
//! split into base offset, index bytes and log bytes).
#![no_main]

use replica_lab::log::{index, verify};
use libfuzzer_sys::fuzz_target;
use std::path::Path;

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
    let offsets = verify::read_offset_index(idx, base_offset);
    let times = verify::read_time_index(idx, base_offset);
    let _ = verify::index_structure_findings(
        Path::new("x.index"),
        &offsets,
        index::OFFSET_ENTRY_BYTES,
        verify::offset_disorder,
        |e| e.offset,
    );
    let _ = verify::index_structure_findings(
        Path::new("x.timeindex"),
        &times,
        index::TIME_ENTRY_BYTES,
        verify::time_disorder,
        |e| e.offset,
    );
    let _ = index::last_offset_entry(idx, base_offset);
    let _ = index::last_time_entry(idx, base_offset);
    for target in [i64::MIN, -1, 0, base_offset, i64::MAX] {
        let _ = index::lookup_offset(idx, base_offset, target);
    }
    let with_log = if which & 1 == 0 { Some(log) } else { None };
    let (oc, tc) = verify::verify_index_entries(&offsets.entries, &times.entries, with_log);
    let _ = verify::index_entry_findings(
        Path::new("x.index"),
        Path::new("x.timeindex"),
        &offsets.entries,
        &oc,
        &times.entries,
        &tc,
    );
    let _ = replica_lab::format::txn_index::decode_entries(idx);
});
