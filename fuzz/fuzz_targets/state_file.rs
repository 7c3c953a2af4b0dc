//! Fuzz target: `klog-state.json`, the one file klog adds to a Kafka log dir — decoded alone,
//! then as the state file of a small replica opened read-only (its topic config becomes the
//! log's config).
#![no_main]

use libfuzzer_sys::fuzz_target;
use std::path::PathBuf;
use std::sync::OnceLock;

/// A log dir with one empty partition `demo-0`, made once per process.
fn log_dir() -> &'static PathBuf {
    static DIR: OnceLock<PathBuf> = OnceLock::new();
    DIR.get_or_init(|| {
        let dir = replica_lab_fuzz::scratch_dir().join("replica");
        std::fs::create_dir_all(dir.join("demo-0")).expect("create the partition dir");
        std::fs::write(dir.join("meta.properties"), "version=0\nbroker.id=1\n").expect("write meta.properties");
        dir
    })
}

fuzz_target!(|data: &[u8]| {
    let dir = log_dir();
    let path = dir.join("klog-state.json");
    let _ = replica_lab::replica::parse_state_file(data, &path);
    std::fs::write(&path, data).expect("write the scratch state file");
    if let Ok(replica) = replica_lab::replica::Replica::open(dir, None) {
        let _ = (replica.log_end_offset(), replica.role(), replica.largest_known_epoch());
    }
});
