//! Fuzz target: producer-state `.snapshot` files (`ProducerStateManager.readSnapshot`) and
//! `.txnindex` files — structure, CRC-32C, every entry's derived fields.
#![no_main]

use replica_lab::format::{producer_snapshot, txn_index};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Ok(s) = producer_snapshot::decode(data) {
        let _ = s.crc_valid();
        for e in &s.entries {
            let _ = e.first_sequence();
        }
    }
    // The same bytes behind a valid version field, so the fuzzer need not find it first.
    let mut versioned = producer_snapshot::VERSION.to_be_bytes().to_vec();
    versioned.extend_from_slice(data);
    if let Ok(s) = producer_snapshot::decode(&versioned) {
        for e in &s.entries {
            let _ = e.first_sequence();
        }
    }
    let _ = txn_index::decode_entries(data);
});
