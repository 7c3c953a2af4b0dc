//! Fuzz target: the text files of a log dir — Kafka's `CheckpointFile` format
//! (`leader-epoch-checkpoint`, the offset checkpoints) and `meta.properties` — through the
//! pure parser and the file readers, and the epoch cache built from a parsed checkpoint
//! (`LeaderEpochFileCache` replaying its entries, then answering `endOffsetFor`).
#![no_main]

use replica_lab::log::checkpoint;
use replica_lab::log::epoch_cache::{EpochCache, EpochEntry};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let path = replica_lab_fuzz::scratch_dir().join("leader-epoch-checkpoint");
    if let Ok(text) = std::str::from_utf8(data) {
        for fields in 1..=3 {
            let _ = checkpoint::parse_checkpoint(&path, text, fields);
        }
    }
    std::fs::write(&path, data).expect("write the scratch file");
    if let Ok(entries) = checkpoint::read_epoch_checkpoint(&path) {
        let cache = EpochCache::from_entries(
            entries.iter().map(|&(leader_epoch, start_offset)| EpochEntry { leader_epoch, start_offset }),
        );
        let log_end_offset = entries.last().map_or(0, |e| e.1.saturating_add(10));
        for &(leader_epoch, start_offset) in &entries {
            let _ = cache.end_offset_for(leader_epoch, log_end_offset);
            let _ = cache.end_offset_for_v0_11(leader_epoch, log_end_offset);
            let _ = cache.epoch_for_offset(start_offset);
        }
        let _ = cache.end_offset_for(i32::MAX, log_end_offset);
        let _ = cache.ranges(log_end_offset);
    }
    let _ = checkpoint::read_offset_checkpoint(&path);
    let _ = replica_lab::replica::read_meta_properties(&path);
});
