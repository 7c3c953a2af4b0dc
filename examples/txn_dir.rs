//! Writes a broker's log dir with N open transactions for the `klog txn` scale bench
//! (`benches/txn-scale.sh`): partition `orders-0` holds one transactional batch (one record)
//! from each of producers 1..=N and no marker, so every transaction is open; the coordinator's
//! `__transaction_state-0` holds N transactional.ids `app-<i>` (producer i, Ongoing, listing
//! `orders-0`), in batches of 500 records as a coordinator appends them.
//!
//! usage: cargo run --release --example txn_dir -- DIR N
//! DIR is a dir made with `klog create DIR --topic orders` and
//! `klog create DIR --topic __transaction_state`, its `klog-state.json` removed (a broker's dir).

use replica_lab::format::batch::{encode_batch, BatchSpec};
use replica_lab::format::record::NewRecord;
use std::io::Write;

/// One `__transaction_state` record, version 0 (`TransactionLogKey` / `TransactionLogValue`):
/// status 1 (Ongoing), the one partition `orders-0`.
fn coordinator_record(id: &str, producer: i64, t: i64) -> NewRecord {
    let string = |s: &str| [&(s.len() as i16).to_be_bytes()[..], s.as_bytes()].concat();
    let key = [&0i16.to_be_bytes()[..], &string(id)].concat();
    let mut value = Vec::new();
    value.extend(0i16.to_be_bytes());
    value.extend(producer.to_be_bytes());
    value.extend(0i16.to_be_bytes());
    value.extend(60_000i32.to_be_bytes());
    value.push(1);
    value.extend(1i32.to_be_bytes());
    value.extend(string("orders"));
    value.extend(1i32.to_be_bytes());
    value.extend(0i32.to_be_bytes());
    value.extend(t.to_be_bytes());
    value.extend(t.to_be_bytes());
    NewRecord { timestamp: t, key: Some(key), value: Some(value), headers: vec![] }
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let (Some(dir), Some(n)) = (args.get(1), args.get(2).and_then(|n| n.parse::<i64>().ok())) else {
        eprintln!("usage: txn_dir DIR N");
        std::process::exit(2);
    };
    let dir = std::path::Path::new(dir);
    // A minute ago: Kafka keeps a producer with an open transaction whatever its age, but a
    // recent time keeps the bench's dir like a live broker's.
    let t = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_millis() as i64 - 60_000;
    let mut log =
        std::io::BufWriter::new(std::fs::File::create(dir.join("orders-0/00000000000000000000.log")).unwrap());
    for producer in 1..=n {
        let spec = BatchSpec {
            producer_id: producer,
            producer_epoch: 0,
            base_sequence: 0,
            is_transactional: true,
            ..BatchSpec::plain(producer - 1, 0)
        };
        let record = NewRecord { timestamp: t, key: None, value: Some(b"v".to_vec()), headers: vec![] };
        log.write_all(&encode_batch(&spec, &[record])).unwrap();
    }
    log.flush().unwrap();
    let path = dir.join("__transaction_state-0/00000000000000000000.log");
    let mut coordinator = std::io::BufWriter::new(std::fs::File::create(path).unwrap());
    let mut offset = 0;
    for chunk in (1..=n).collect::<Vec<i64>>().chunks(500) {
        let records: Vec<NewRecord> = chunk.iter().map(|p| coordinator_record(&format!("app-{p}"), *p, t)).collect();
        coordinator.write_all(&encode_batch(&BatchSpec::plain(offset, 0), &records)).unwrap();
        offset += chunk.len() as i64;
    }
    coordinator.flush().unwrap();
}
