//! Hand-made transactional partition logs, shared by the fast tier's `klog txn` tests
//! (tests/cli/transactions.rs) and the Kafka tier's comparison with Kafka's producer state
//! (tests/kafka/oracle_transactions.rs): data batches of a producer, COMMIT/ABORT markers,
//! plain batches, a broker's log dir holding one such log, and a producer snapshot of it.

use crate::common::{ok, s};
use replica_lab::format::batch::{encode_batch, BatchIter, BatchSpec};
use replica_lab::format::producer_snapshot;
use replica_lab::format::record::NewRecord;
use replica_lab::log::producer_state::ProducerReplay;
use std::path::{Path, PathBuf};

pub fn rec(v: &str, timestamp: i64) -> NewRecord {
    NewRecord { timestamp, key: None, value: Some(v.as_bytes().to_vec()), headers: vec![] }
}

/// A recent timestamp: Kafka drops producers idle longer than a day when it loads a snapshot.
pub fn now_ms() -> i64 {
    std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_millis() as i64 - 60_000
}

pub fn data(producer: i64, offset: i64, sequence: i32, values: usize, transactional: bool, t: i64) -> Vec<u8> {
    let spec = BatchSpec {
        producer_id: producer,
        producer_epoch: 0,
        base_sequence: sequence,
        is_transactional: transactional,
        ..BatchSpec::plain(offset, 0)
    };
    let records: Vec<NewRecord> = (0..values).map(|i| rec(&format!("v{offset}-{i}"), t)).collect();
    encode_batch(&spec, &records)
}

pub fn marker(producer: i64, offset: i64, commit: bool, t: i64) -> Vec<u8> {
    let m = replica_lab::format::control::EndTxnBatch {
        producer_id: producer,
        producer_epoch: 0,
        base_offset: offset,
        leader_epoch: 0,
        commit,
        coordinator_epoch: 5,
        timestamp: t,
    };
    m.encode()
}

pub fn plain(offset: i64, t: i64) -> Vec<u8> {
    encode_batch(&BatchSpec::plain(offset, 0), &[rec("p", t)])
}

/// A broker's log dir (no klog state) holding partition demo-0 with `log` as its only segment.
pub fn broker_dir(root: &Path, name: &str, log: &[u8], clean: bool) -> PathBuf {
    let d = root.join(name);
    ok(&["create", s(&d), "--replica-id", "1"]);
    std::fs::remove_file(d.join("klog-state.json")).unwrap();
    let _ = std::fs::remove_file(d.join(".lock"));
    std::fs::write(d.join("demo-0/00000000000000000000.log"), log).unwrap();
    if clean {
        std::fs::write(d.join(".kafka_cleanshutdown"), b"").unwrap();
    }
    d
}

/// The producer table the log's batches make up to `offset` (the library's replay, used only
/// to write snapshots a broker could have written; the judge is Kafka).
pub fn table_at(log: &[u8], offset: i64) -> Vec<u8> {
    let mut r = ProducerReplay::new();
    for b in BatchIter::new(log) {
        if b.base_offset() >= offset {
            break;
        }
        r.apply(&b).unwrap();
    }
    producer_snapshot::encode(&r.producers())
}
