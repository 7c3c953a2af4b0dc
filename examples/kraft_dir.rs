//! Writes a big KRaft metadata log for the scale bench (`benches/scale.sh`): topic `t` with N
//! partitions on brokers 1, 2, 3, as a controller records it — one TopicRecord, a
//! PartitionRecord per partition (leader 1 at leader epoch 0, ISR [1, 2, 3]), then for every
//! partition broker 3 leaving the ISR (same leader, same epoch) and broker 2 elected (epoch 1,
//! ISR [2, 1]). Batches of 500 records, as a controller appends them.
//!
//! usage: cargo run --release --example kraft_dir -- LOG_FILE N
//! LOG_FILE is `<dir>/__cluster_metadata-0/00000000000000000000.log` of a dir made with
//! `klog create <dir> --topic __cluster_metadata` (whose other files stay as klog wrote them).

use replica_lab::format::batch::{encode_batch, BatchSpec};
use replica_lab::format::record::NewRecord;
use std::io::Write;

const TOPIC_ID: [u8; 16] = [0x5c; 16];

fn varint(v: &mut Vec<u8>, mut n: u32) {
    while n >= 0x80 {
        v.push((n as u8 & 0x7f) | 0x80);
        n >>= 7;
    }
    v.push(n as u8);
}

fn int_array(v: &mut Vec<u8>, items: &[i32]) {
    varint(v, items.len() as u32 + 1);
    for i in items {
        v.extend(i.to_be_bytes());
    }
}

/// TopicRecord v0 (frame version 1, type 2).
fn topic_record(name: &str) -> Vec<u8> {
    let mut v = vec![1, 2, 0];
    varint(&mut v, name.len() as u32 + 1);
    v.extend(name.as_bytes());
    v.extend(TOPIC_ID);
    v.push(0);
    v
}

/// PartitionRecord v0 (type 3).
fn partition_record(partition: i32, replicas: &[i32], leader: i32) -> Vec<u8> {
    let mut v = vec![1, 3, 0];
    v.extend(partition.to_be_bytes());
    v.extend(TOPIC_ID);
    int_array(&mut v, replicas);
    int_array(&mut v, replicas);
    int_array(&mut v, &[]);
    int_array(&mut v, &[]);
    v.extend(leader.to_be_bytes());
    v.extend(0i32.to_be_bytes());
    v.extend(0i32.to_be_bytes());
    v.push(0);
    v
}

/// PartitionChangeRecord v0 (type 5): the ISR (tag 0) and the leader (tag 1), each optional.
fn change(partition: i32, isr: &[i32], leader: Option<i32>) -> Vec<u8> {
    let mut v = vec![1, 5, 0];
    v.extend(partition.to_be_bytes());
    v.extend(TOPIC_ID);
    v.push(1 + leader.is_some() as u8);
    let mut body = Vec::new();
    int_array(&mut body, isr);
    v.push(0);
    varint(&mut v, body.len() as u32);
    v.extend(body);
    if let Some(l) = leader {
        v.extend([1, 4]);
        v.extend(l.to_be_bytes());
    }
    v
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let (Some(path), Some(n)) = (args.get(1), args.get(2).and_then(|n| n.parse::<i32>().ok())) else {
        eprintln!("usage: kraft_dir LOG_FILE N");
        std::process::exit(2);
    };
    let mut values = vec![topic_record("t")];
    values.extend((0..n).map(|p| partition_record(p, &[1, 2, 3], 1)));
    values.extend((0..n).map(|p| change(p, &[1, 2], None)));
    values.extend((0..n).map(|p| change(p, &[2, 1], Some(2))));
    let mut out = std::io::BufWriter::new(std::fs::File::create(path).expect("create the log file"));
    for (i, chunk) in values.chunks(500).enumerate() {
        let base = i as i64 * 500;
        let records: Vec<NewRecord> = chunk
            .iter()
            .enumerate()
            .map(|(j, v)| NewRecord {
                timestamp: 1_700_000_000_000 + base + j as i64,
                key: None,
                value: Some(v.clone()),
                headers: vec![],
            })
            .collect();
        out.write_all(&encode_batch(&BatchSpec::plain(base, 1), &records)).expect("write the log file");
    }
    out.flush().expect("write the log file");
}
