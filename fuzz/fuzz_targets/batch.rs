//! Fuzz target: arbitrary bytes as a `.log` segment — framing (`BatchIter`), `ensureValid`
//! (size, magic, CRC-32C / CRC-32), every header accessor, decompression, record and
//! control-record decoding, for v2 batches and legacy v0/v1 entries alike.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    replica_lab_fuzz::exercise_log(data);
    // An index entry may point anywhere: start the walk at a position taken from the input too.
    if let Some(&p) = data.first() {
        for b in replica_lab::format::batch::BatchIter::starting_at(data, p as usize) {
            replica_lab_fuzz::exercise_batch(&b);
        }
    }
});
