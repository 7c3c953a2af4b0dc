//! Fuzz target: records of Kafka's internal topics decoded by schema — a `__cluster_metadata`
//! value, a `__consumer_offsets` and a `__transaction_state` key and value (split at the first
//! byte), and the input as the body of every message the schema table holds, at a version
//! taken from the input.
#![no_main]

use replica_lab::format::coordinator::{self, Coordinator};
use replica_lab::format::metadata;
use replica_lab::format::schema::{decode_message, schemas, Reader};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let _ = metadata::decode(data);
    let Some((&first, rest)) = data.split_first() else { return };
    let (key, value) = rest.split_at((first as usize).min(rest.len()));
    let value = (first & 1 == 0).then_some(value);
    let _ = coordinator::decode(Coordinator::Group, Some(key), value);
    let _ = coordinator::decode(Coordinator::Transaction, Some(key), value);
    let version = i16::from(first % 8);
    for m in &schemas().messages {
        let mut r = Reader::new(rest);
        if decode_message(m, version, &mut r).is_ok() {
            assert!(r.position() <= rest.len());
        }
    }
});
