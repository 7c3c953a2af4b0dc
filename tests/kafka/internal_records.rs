//! Records of Kafka's internal topics made from the schemas klog carries: every metadata record
//! type at every version, every `__consumer_offsets` and `__transaction_state` record type at
//! every value version (and a tombstone of each), with seeded random field values — tagged
//! fields present or not, nulls, empty and non-ASCII strings, control characters, malformed
//! UTF-8, nested structs — so that Kafka's own decoders (the oracle) judge klog's on inputs no
//! real cluster happens to hold. The encoder walks the schema the same way Kafka's generated
//! `write` does; it is test code, separate from klog's decoder.

use replica_lab::format::batch::{encode_batch, BatchSpec};
use replica_lab::format::record::NewRecord;
use replica_lab::format::schema::{schemas, FieldSchema, FieldType, MessageSchema};

/// A record's key and value.
pub type KeyValue = (Option<Vec<u8>>, Option<Vec<u8>>);

/// splitmix64: deterministic and good enough to pick field values.
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Self {
        Rng(seed)
    }

    pub fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

const STRINGS: [&[u8]; 8] = [
    b"",
    b"orders",
    b"a\"b\\c/d",
    b"line\nbreak\ttab\x01\x1f",
    "h\u{e9}llo \u{20ac}".as_bytes(),
    "\u{1F600}".as_bytes(),
    b"bad\xff\xfeutf8\xed\xa0\x80",
    b"metadata.version",
];
/// Doubles that print the same with Java 17's `Double.toString` as with the shortest form.
const DOUBLES: [f64; 6] = [0.5, 1.0e7, 1_048_576.0, 123.456, 1.0e-5, 1024.0];

fn uvarint(out: &mut Vec<u8>, mut v: u32) {
    while v >= 0x80 {
        out.push((v as u8) | 0x80);
        v >>= 7;
    }
    out.push(v as u8);
}

fn length(out: &mut Vec<u8>, len: Option<usize>, flexible: bool, short: bool) {
    match (flexible, short) {
        (true, _) => uvarint(out, len.map_or(0, |l| l as u32 + 1)),
        (false, true) => out.extend(len.map_or(-1, |l| l as i16).to_be_bytes()),
        (false, false) => out.extend(len.map_or(-1, |l| l as i32).to_be_bytes()),
    }
}

fn encode_struct(
    m: &MessageSchema,
    index: usize,
    version: i16,
    flexible: bool,
    rng: &mut Rng,
    out: &mut Vec<u8>,
    depth: usize,
) {
    let fields = &m.structs[index].fields;
    for f in fields {
        if (flexible && f.tagged_versions.contains(version)) || !f.versions.contains(version) {
            continue;
        }
        let nullable = f.nullable_versions.contains(version);
        encode_value(m, &f.field_type, version, flexible, nullable, false, rng, out, depth);
    }
    if flexible {
        let mut tagged: Vec<&FieldSchema> =
            fields.iter().filter(|f| f.tag.is_some() && f.tagged_versions.contains(version)).collect();
        tagged.retain(|_| rng.below(3) != 0);
        tagged.sort_by_key(|f| f.tag);
        uvarint(out, tagged.len() as u32);
        for f in tagged {
            let mut buf = Vec::new();
            let nullable = f.nullable_versions.contains(version);
            encode_value(m, &f.field_type, version, true, nullable, true, rng, &mut buf, depth);
            uvarint(out, f.tag.unwrap_or(0));
            uvarint(out, buf.len() as u32);
            out.extend(buf);
        }
    }
}

#[allow(clippy::too_many_arguments)]
fn encode_value(
    m: &MessageSchema,
    t: &FieldType,
    version: i16,
    flexible: bool,
    nullable: bool,
    tagged: bool,
    rng: &mut Rng,
    out: &mut Vec<u8>,
    depth: usize,
) {
    let null = nullable && rng.below(4) == 0;
    match t {
        FieldType::Bool => out.push(rng.below(2) as u8),
        FieldType::Int8 => out.push(rng.next() as u8),
        FieldType::Int16 => out.extend((rng.next() as i16).to_be_bytes()),
        FieldType::Uint16 => out.extend((rng.next() as u16).to_be_bytes()),
        FieldType::Int32 => out.extend(((rng.next() as i32) >> rng.below(31)).to_be_bytes()),
        FieldType::Uint32 => out.extend((rng.next() as u32).to_be_bytes()),
        FieldType::Int64 => out.extend(((rng.next() as i64) >> rng.below(63)).to_be_bytes()),
        FieldType::Float64 => out.extend(DOUBLES[rng.below(DOUBLES.len() as u64) as usize].to_be_bytes()),
        FieldType::Uuid => (0..16).for_each(|_| out.push(rng.next() as u8)),
        FieldType::String | FieldType::Bytes => {
            let short = *t == FieldType::String;
            if null {
                return length(out, None, flexible, short);
            }
            let s = STRINGS[rng.below(STRINGS.len() as u64) as usize];
            length(out, Some(s.len()), flexible, short);
            out.extend(s);
        }
        FieldType::Array(element) => {
            if null {
                return length(out, None, flexible, false);
            }
            let n = if depth > 3 { 0 } else { rng.below(4) as usize };
            length(out, Some(n), flexible, false);
            for _ in 0..n {
                encode_value(m, element, version, flexible, false, false, rng, out, depth + 1);
            }
        }
        FieldType::Struct(index) => {
            if nullable {
                match (tagged, null) {
                    (true, true) => return uvarint(out, 0),
                    (true, false) => uvarint(out, 1),
                    (false, true) => return out.push(0xff),
                    (false, false) => out.push(1),
                }
            }
            encode_struct(m, *index, version, flexible, rng, out, depth + 1);
        }
    }
}

/// One message of `m` at `version`, with random field values.
pub fn encode_message(m: &MessageSchema, version: i16, rng: &mut Rng) -> Vec<u8> {
    let mut out = Vec::new();
    encode_struct(m, 0, version, m.flexible_versions.contains(version), rng, &mut out, 0);
    out
}

fn versions(m: &MessageSchema) -> std::ops::RangeInclusive<i16> {
    m.valid_versions.lowest()..=m.valid_versions.highest()
}

/// `__cluster_metadata` record values: every type, every version, `copies` of each.
pub fn metadata_values(rng: &mut Rng, copies: usize) -> Vec<Vec<u8>> {
    let mut out = Vec::new();
    for m in schemas().messages.iter().filter(|m| m.group == "metadata") {
        for version in versions(m) {
            for _ in 0..copies {
                let mut v = Vec::new();
                uvarint(&mut v, 1);
                uvarint(&mut v, m.api_key.unwrap_or(0) as u32);
                uvarint(&mut v, version as u32);
                v.extend(encode_message(m, version, rng));
                out.push(v);
            }
        }
    }
    out
}

/// Coordinator records of `group` (`group` or `transaction`): (key, value) pairs, every record
/// type at every value version, `copies` of each, and a tombstone per type.
pub fn coordinator_records(group: &str, rng: &mut Rng, copies: usize) -> Vec<(Vec<u8>, Option<Vec<u8>>)> {
    let all = &schemas().messages;
    let mut out = Vec::new();
    for key in all.iter().filter(|m| m.group == group && m.kind == "key") {
        let record_type = key.api_key.unwrap_or(0);
        let Some(value) = all.iter().find(|m| m.group == group && m.kind == "value" && m.api_key == key.api_key) else {
            continue;
        };
        let key_bytes = |rng: &mut Rng| [&record_type.to_be_bytes()[..], &encode_message(key, 0, rng)].concat();
        for version in versions(value) {
            for _ in 0..copies {
                let k = key_bytes(rng);
                let v = [&version.to_be_bytes()[..], &encode_message(value, version, rng)].concat();
                out.push((k, Some(v)));
            }
        }
        out.push((key_bytes(rng), None));
    }
    out
}

/// A segment holding `records` (key, value), five to a batch, from offset 0.
pub fn segment(records: &[KeyValue]) -> Vec<u8> {
    let mut log = Vec::new();
    for (i, chunk) in records.chunks(5).enumerate() {
        let batch: Vec<NewRecord> = chunk
            .iter()
            .map(|(k, v)| NewRecord {
                timestamp: 1_700_000_000_000 + i as i64,
                key: k.clone(),
                value: v.clone(),
                headers: vec![],
            })
            .collect();
        log.extend(encode_batch(&BatchSpec::plain(i as i64 * 5, 1), &batch));
    }
    log
}

/// Damaged internal records: (topic, records) for a metadata log and an offsets log whose
/// values are cut, carry unknown types or versions, or trailing bytes.
pub fn damaged() -> Vec<(&'static str, Vec<KeyValue>)> {
    let topic = [&[1u8, 2, 0, 7][..], b"orders", &[9u8; 16], &[0]].concat();
    let string = |s: &str| [&(s.len() as i16).to_be_bytes()[..], s.as_bytes()].concat();
    let key = [&1i16.to_be_bytes()[..], &string("g"), &string("orders"), &3i32.to_be_bytes()].concat();
    let value =
        [&3i16.to_be_bytes()[..], &42i64.to_be_bytes(), &7i32.to_be_bytes(), &string(""), &9i64.to_be_bytes()].concat();
    let metadata = vec![
        (None, Some(topic.clone())),
        (None, Some(topic[..10].to_vec())),
        (None, Some(topic[..2].to_vec())),
        (None, Some([&topic[..], &[0u8]].concat())),
        (None, Some(vec![1, 99, 0])),
        (None, Some(vec![0, 2, 0])),
        (None, Some(vec![2, 2, 0])),
        (None, Some(vec![1, 2, 9, 0])),
        (None, Some(vec![])),
    ];
    let offsets = vec![
        (Some(key.clone()), Some(value.clone())),
        (Some(key[..7].to_vec()), Some(value.clone())),
        (Some(key.clone()), Some(value[..9].to_vec())),
        (Some(vec![0, 99]), Some(value.clone())),
        (Some(vec![0]), None),
        (Some(key.clone()), Some([&9i16.to_be_bytes()[..], &value[2..]].concat())),
        (Some(key), Some([&value[..], &[1, 2, 3]].concat())),
    ];
    vec![("__cluster_metadata", metadata), ("__consumer_offsets", offsets)]
}
