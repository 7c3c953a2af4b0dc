//! Seeds the fuzz corpora: `seed CORPUS_DIR INPUT...` walks the input dirs (klog fixtures,
//! real broker log dirs) and writes into `CORPUS_DIR/<target>/` the inputs each target reads:
//! whole `.log` heads and single batches (batch), records areas (record), compressed streams
//! (compressed), legacy entries (legacy), index + log pairs (index), checkpoints and
//! properties (checkpoint), producer snapshots and transaction indexes (snapshot) and klog
//! state files (state_file), `meta.properties` (properties). Synthetic seeds made with klog's own encoders fill the gaps a
//! given set of files leaves (compressed streams of every codec, legacy messages). A seed's
//! name is a hash of its bytes, so re-seeding never duplicates. Run by fuzz/run.sh.

use replica_lab::format::batch::BatchIter;
use replica_lab::format::compression::{self, Compression};
use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};

/// The largest seed written: a whole `.log` is cut to this (libFuzzer works best on small inputs).
const MAX_SEED_BYTES: usize = 64 * 1024;
/// At most this many seeds per target from the files (real logs hold thousands of batches).
const MAX_SEEDS_PER_TARGET: usize = 3000;

struct Seeds {
    out: PathBuf,
    counts: BTreeMap<&'static str, usize>,
}

impl Seeds {
    fn add(&mut self, target: &'static str, bytes: &[u8]) {
        let dir = self.out.join(target);
        // The cap counts the seeds already there, so seeding again adds none once it is reached.
        let n = self.counts.entry(target).or_insert_with(|| {
            fs::read_dir(&dir).map_or(0, |d| {
                d.filter_map(|e| e.ok()).filter(|e| e.file_name().to_string_lossy().starts_with("seed-")).count()
            })
        });
        if *n >= MAX_SEEDS_PER_TARGET {
            return;
        }
        let bytes = &bytes[..bytes.len().min(MAX_SEED_BYTES)];
        let name: String = replica_lab::util::hash128(bytes).iter().map(|b| format!("{b:02x}")).collect();
        fs::create_dir_all(&dir).expect("create corpus dir");
        let path = dir.join(format!("seed-{name}"));
        if !path.exists() {
            fs::write(&path, bytes).expect("write seed");
            *n += 1;
        }
    }
}

fn walk(dir: &Path, files: &mut Vec<PathBuf>) {
    let Ok(entries) = fs::read_dir(dir) else { return };
    let mut entries: Vec<_> = entries.filter_map(|e| e.ok()).map(|e| e.path()).collect();
    entries.sort();
    for p in entries {
        if p.is_dir() {
            walk(&p, files);
        } else {
            files.push(p);
        }
    }
}

fn base_offset_of(path: &Path) -> i64 {
    path.file_name().and_then(|n| n.to_str()).and_then(replica_lab::log::names::parse_file_offset).unwrap_or(0)
}

fn seed_log(seeds: &mut Seeds, bytes: &[u8]) {
    seeds.add("batch", bytes);
    seeds.add("legacy", bytes);
    for b in BatchIter::new(bytes) {
        seeds.add("batch", b.bytes);
        if b.magic() < 2 {
            seeds.add("legacy", b.bytes);
            continue;
        }
        let Some(h) = b.header() else { continue };
        // Internal-topic records: a metadata value alone, and key | value split by a length byte.
        if let Ok(records) = b.records().and_then(|d| {
            d.decode()
                .map(|r| r.iter().map(|r| (r.key.map(<[u8]>::to_vec), r.value.map(<[u8]>::to_vec))).collect::<Vec<_>>())
        }) {
            for (key, value) in records.into_iter().take(64) {
                if let (None, Some(v)) = (&key, &value) {
                    seeds.add("internal_record", v);
                }
                if let Some(k) = key.filter(|k| k.len() < 255) {
                    let mut s = vec![(k.len() as u8) & !1];
                    s.extend_from_slice(&k);
                    s.extend_from_slice(value.as_deref().unwrap_or_default());
                    seeds.add("internal_record", &s);
                }
            }
        }
        let area = &b.bytes[61..];
        match Compression::from_code(h.compression_code()) {
            Some(Compression::None) => {
                let mut s = h.records_count.to_be_bytes().to_vec();
                s.push((h.is_log_append_time() as u8) | (h.attributes as u8 & 0x38));
                s.extend_from_slice(area);
                seeds.add("record", &s);
            }
            Some(c) => {
                let mut s = vec![(c.code() - 1) | ((h.records_count.clamp(0, 63) as u8) << 2)];
                s.extend_from_slice(area);
                seeds.add("compressed", &s);
            }
            None => {}
        }
    }
}

fn seed_index(seeds: &mut Seeds, path: &Path, bytes: &[u8], which: u8) {
    let log = fs::read(path.with_extension("log")).unwrap_or_default();
    let idx = &bytes[..bytes.len().min(u16::MAX as usize)];
    let mut s = base_offset_of(path).to_be_bytes().to_vec();
    s.extend_from_slice(&(idx.len() as u16).to_be_bytes());
    s.push(which);
    s.extend_from_slice(idx);
    s.extend_from_slice(&log[..log.len().min(MAX_SEED_BYTES - s.len().min(MAX_SEED_BYTES))]);
    seeds.add("index", &s);
}

/// Seeds no file set is sure to hold: every codec's stream, and legacy messages.
fn seed_synthetic(seeds: &mut Seeds) {
    let mut area = Vec::new();
    for i in 0..20 {
        let value = format!("value-{i}-{}", "x".repeat(i * 7));
        let r = replica_lab::format::record::NewRecord {
            timestamp: 1_700_000_000_000 + i as i64,
            key: Some(format!("k{i}").into_bytes()),
            value: Some(value.into_bytes()),
            headers: vec![(b"h".to_vec(), Some(b"v".to_vec()))],
        };
        replica_lab::format::record::encode_record(&r, i as i32, i as i64, &mut area);
    }
    for codec in [Compression::Gzip, Compression::Snappy, Compression::Lz4, Compression::Zstd] {
        let stream = compression::compress(codec, &area);
        let mut s = vec![(codec.code() - 1) | (20 << 2)];
        s.extend_from_slice(&stream);
        seeds.add("compressed", &s);
        let spec = replica_lab::format::batch::BatchSpec { compression: codec, ..replica_lab::format::batch::BatchSpec::plain(5, 3) };
        let batch = replica_lab::format::batch::encode_batch(
            &spec,
            &[replica_lab::format::record::NewRecord {
                timestamp: 1,
                key: None,
                value: Some(b"hello hello hello".to_vec()),
                headers: vec![],
            }],
        );
        seeds.add("batch", &batch);
    }
    let mut s = 20i32.to_be_bytes().to_vec();
    s.push(0);
    s.extend_from_slice(&area);
    seeds.add("record", &s);
    // Legacy: a v0 and a v1 message, and a v1 gzip wrapper around two v1 messages.
    let v0 = legacy_entry(0, 0, 0, None, Some(b"v0 value"));
    let v1 = legacy_entry(1, 1, 0, Some(b"key"), Some(b"v1 value"));
    let inner = [legacy_entry(0, 1, 0, None, Some(b"a")), legacy_entry(1, 1, 0, None, Some(b"b"))].concat();
    let wrapper = legacy_entry(9, 1, 1, None, Some(&compression::compress(Compression::Gzip, &inner)));
    seeds.add("legacy", &v0);
    seeds.add("legacy", &v1);
    seeds.add("legacy", &wrapper);
    seeds.add("legacy", &inner);
    seeds.add("batch", &[v0, v1, wrapper].concat());
    let producer = replica_lab::format::producer_snapshot::ProducerEntry {
        producer_id: 1000,
        producer_epoch: 3,
        last_sequence: 9,
        last_offset: 41,
        offset_delta: 4,
        timestamp: 1_700_000_000_000,
        coordinator_epoch: 2,
        current_txn_first_offset: -1,
    };
    let open_txn =
        replica_lab::format::producer_snapshot::ProducerEntry { producer_id: 1001, current_txn_first_offset: 40, ..producer };
    seeds.add("snapshot", &replica_lab::format::producer_snapshot::encode(&[producer, open_txn]));
    let aborted = replica_lab::format::txn_index::AbortedTxn {
        version: 0,
        producer_id: 4000,
        first_offset: 10,
        last_offset: 19,
        last_stable_offset: 10,
    };
    seeds.add("snapshot", &aborted.encode());
    seeds.add("checkpoint", b"0\n3\n0 0\n2 5\n5 9\n");
    seeds.add("checkpoint", b"0\n2\ndemo 0 17\n__consumer_offsets 12 0\n");
    seeds.add("properties", b"#c\r\n! x\\\n  node.id : 1\nk\\=x v\\\n   w\ncaf\xe9=\\u00e9\\t\n");
    seeds.add("state_file", br#"{"version":1,"partitions":{"demo-0":{"config":{"segment_bytes":200,"index_interval_bytes":100},"state":{"role":"leader","leader_epoch":5,"isr":[],"follower_fetch_offsets":{}}}}}"#);
}

/// One legacy log entry (`offset | size | crc | magic | attributes | [timestamp] | key | value`).
fn legacy_entry(offset: i64, magic: u8, attributes: u8, key: Option<&[u8]>, value: Option<&[u8]>) -> Vec<u8> {
    let mut m = vec![magic, attributes];
    if magic == 1 {
        m.extend_from_slice(&1_700_000_000_000i64.to_be_bytes());
    }
    for field in [key, value] {
        match field {
            None => m.extend_from_slice(&(-1i32).to_be_bytes()),
            Some(b) => {
                m.extend_from_slice(&(b.len() as i32).to_be_bytes());
                m.extend_from_slice(b);
            }
        }
    }
    let crc = crc32(&m);
    let mut e = offset.to_be_bytes().to_vec();
    e.extend_from_slice(&((m.len() + 4) as i32).to_be_bytes());
    e.extend_from_slice(&crc.to_be_bytes());
    e.extend_from_slice(&m);
    e
}

fn crc32(bytes: &[u8]) -> u32 {
    let mut crc = !0u32;
    for &b in bytes {
        crc ^= b as u32;
        for _ in 0..8 {
            crc = if crc & 1 != 0 { (crc >> 1) ^ 0xEDB8_8320 } else { crc >> 1 };
        }
    }
    !crc
}

fn main() {
    let mut args = std::env::args_os().skip(1);
    let Some(out) = args.next() else {
        eprintln!("usage: seed CORPUS_DIR INPUT_DIR...");
        std::process::exit(2);
    };
    let mut seeds = Seeds { out: PathBuf::from(out), counts: BTreeMap::new() };
    let mut files = Vec::new();
    for input in args {
        let input = PathBuf::from(input);
        if input.is_dir() {
            walk(&input, &mut files);
        } else {
            eprintln!("seed: {} is not a directory, skipped", input.display());
        }
    }
    seed_synthetic(&mut seeds);
    for path in &files {
        let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
        let Ok(bytes) = fs::read(path) else { continue };
        if name.ends_with(".log") {
            seed_log(&mut seeds, &bytes);
        } else if name.ends_with(".index") {
            seed_index(&mut seeds, path, &bytes, 0);
        } else if name.ends_with(".timeindex") {
            seed_index(&mut seeds, path, &bytes, 1);
        } else if name.ends_with(".snapshot") || name.ends_with(".txnindex") {
            seeds.add("snapshot", &bytes);
        } else if name.ends_with("checkpoint") || name == "meta.properties" || name == "partition.metadata" {
            seeds.add("checkpoint", &bytes);
            if name == "meta.properties" {
                seeds.add("properties", &bytes);
            }
        } else if name == "klog-state.json" {
            seeds.add("state_file", &bytes);
        }
    }
    for (target, n) in &seeds.counts {
        println!("seeded {target}: {n} seed inputs");
    }
}
