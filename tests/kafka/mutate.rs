//! A structure-aware mutator of Kafka log dirs, for the generated comparisons (`difffuzz`):
//! from a seed dir it stacks random mutations over every field of every file kind — the 61
//! header bytes of a v2 batch and the legacy headers (with or without a CRC made right again
//! after, so the change reaches what Kafka checks past the CRC), record bytes and compressed
//! payloads, `.index`/`.timeindex` entries and sizes, `.snapshot` bytes, each token of each
//! checkpoint, file and dir names (`.swap`, `.cleaned`, `.deleted`, `-delete`, `-future`,
//! `-stray`, bases inside a predecessor), the clean-shutdown marker, and the topic config
//! (`index.interval.bytes`, `segment.index.bytes`). It reads the dir only through its own
//! small frame walk (never klog's parser, whose blind spots it is here to find).
//!
//! A mutation is data ([`Mutation`]): it prints as one line, is saved with a found case, and
//! replays on the same seed to the same bytes. Choices come from one seeded xorshift, so a
//! (seed, case number) pair always makes the same case.

use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};

/// xorshift64*, the generator's only source of choices.
#[derive(Clone)]
pub struct Rng(pub u64);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        // splitmix64 of the seed, so that nearby seeds start far apart (and never at 0).
        let mut z = seed.wrapping_add(0x9E37_79B9_7F4A_7C15);
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        Rng((z ^ (z >> 31)) | 1)
    }
    pub fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    pub fn below(&mut self, n: u64) -> u64 {
        self.next() % n.max(1)
    }
    pub fn chance(&mut self, percent: u64) -> bool {
        self.below(100) < percent
    }
    pub fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[self.below(items.len() as u64) as usize]
    }
}

/// One change to a dir. Paths are relative to the log dir.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "m", rename_all = "snake_case")]
pub enum Mutation {
    /// Write `value` (big-endian, `width` bytes) at `position` of `file`.
    Int {
        file: String,
        position: u64,
        width: u8,
        value: i64,
        field: String,
    },
    /// Recompute the CRC of the batch at `position` (v2: CRC-32C from the attributes; legacy:
    /// CRC-32 from the magic), as a writer that meant these bytes would have.
    FixCrc {
        file: String,
        position: u64,
    },
    /// Cut `file` to `len` bytes.
    Cut {
        file: String,
        len: u64,
    },
    /// Append `count` zero bytes (a preallocated or torn tail).
    Zeros {
        file: String,
        count: u64,
    },
    /// Zero every byte from `position` to the end, the size kept.
    ZeroFrom {
        file: String,
        position: u64,
    },
    /// Append these bytes.
    Append {
        file: String,
        bytes: Vec<u8>,
    },
    /// Replace `file` by this text (a checkpoint with one token changed, say).
    Text {
        file: String,
        text: String,
    },
    Remove {
        file: String,
    },
    Rename {
        from: String,
        to: String,
    },
    /// Copy `from` to `to` (a `.swap` beside its segment, say).
    Copy {
        from: String,
        to: String,
    },
    /// Remove a whole partition dir (shrinking drops what a case does not need).
    RemoveDir {
        dir: String,
    },
    /// The clean-shutdown marker present or absent.
    Marker {
        present: bool,
    },
    /// A topic config for every partition of klog's state and Kafka's overrides alike.
    Config {
        key: String,
        value: i64,
    },
}

impl std::fmt::Display for Mutation {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Mutation::Int { file, position, value, field, .. } => write!(f, "{file}@{position} {field}={value}"),
            Mutation::FixCrc { file, position } => write!(f, "{file}@{position} crc made right"),
            Mutation::Cut { file, len } => write!(f, "{file} cut to {len}"),
            Mutation::Zeros { file, count } => write!(f, "{file} + {count} zero bytes"),
            Mutation::ZeroFrom { file, position } => write!(f, "{file} zeroed from {position}"),
            Mutation::Append { file, bytes } => write!(f, "{file} + {} bytes", bytes.len()),
            Mutation::Text { file, text } => write!(f, "{file} = {text:?}"),
            Mutation::Remove { file } => write!(f, "{file} removed"),
            Mutation::Rename { from, to } => write!(f, "{from} -> {to}"),
            Mutation::Copy { from, to } => write!(f, "{from} copied to {to}"),
            Mutation::RemoveDir { dir } => write!(f, "{dir}/ removed"),
            Mutation::Marker { present } => write!(f, "marker {}", if *present { "present" } else { "absent" }),
            Mutation::Config { key, value } => write!(f, "config {key}={value}"),
        }
    }
}

/// Apply `m` to the log dir `dir`. A mutation whose target is gone (an earlier one removed
/// it) does nothing: stacks stay valid whatever is dropped from them while shrinking.
pub fn apply(dir: &Path, m: &Mutation) {
    use std::fs;
    let p = |f: &str| dir.join(f);
    match m {
        Mutation::Int { file, position, width, value, .. } => edit(&p(file), |b| {
            let bytes = value.to_be_bytes();
            let w = usize::from(*width);
            let at = *position as usize;
            if at + w <= b.len() {
                b[at..at + w].copy_from_slice(&bytes[8 - w..]);
            }
        }),
        Mutation::FixCrc { file, position } => edit(&p(file), |b| fix_crc(b, *position as usize)),
        Mutation::Cut { file, len } => edit(&p(file), |b| b.truncate(*len as usize)),
        Mutation::Zeros { file, count } => edit(&p(file), |b| b.resize(b.len() + *count as usize, 0)),
        Mutation::ZeroFrom { file, position } => edit(&p(file), |b| {
            let from = (*position as usize).min(b.len());
            b[from..].fill(0);
        }),
        Mutation::Append { file, bytes } => edit(&p(file), |b| b.extend_from_slice(bytes)),
        Mutation::Text { file, text } => {
            if p(file).parent().is_some_and(Path::is_dir) {
                fs::write(p(file), text).unwrap();
            }
        }
        Mutation::Remove { file } => {
            let _ = fs::remove_file(p(file));
        }
        Mutation::Rename { from, to } => {
            // A rename onto a non-empty dir (or a file onto a dir) fails: then nothing changes.
            if p(from).exists() && p(to).parent().is_some_and(Path::is_dir) {
                let _ = fs::rename(p(from), p(to));
            }
        }
        Mutation::Copy { from, to } => {
            if p(to).exists() || !p(to).parent().is_some_and(Path::is_dir) {
                return;
            }
            if p(from).is_file() {
                fs::copy(p(from), p(to)).unwrap();
            } else if p(from).is_dir() {
                copy_tree(&p(from), &p(to));
            }
        }
        Mutation::RemoveDir { dir: d } => {
            let _ = fs::remove_dir_all(p(d));
        }
        Mutation::Marker { present } => {
            let marker = p(".kafka_cleanshutdown");
            if *present {
                fs::write(marker, b"").unwrap();
            } else {
                let _ = fs::remove_file(marker);
            }
        }
        Mutation::Config { key, value } => {
            let state = p("klog-state.json");
            let Ok(text) = fs::read_to_string(&state) else { return };
            let Ok(mut v) = serde_json::from_str::<serde_json::Value>(&text) else { return };
            if let Some(parts) = v["partitions"].as_object_mut() {
                for part in parts.values_mut() {
                    if part["config"].is_object() {
                        part["config"][key.as_str()] = serde_json::json!(value);
                    }
                }
            }
            fs::write(state, serde_json::to_string_pretty(&v).unwrap()).unwrap();
        }
    }
}

fn edit(path: &Path, f: impl FnOnce(&mut Vec<u8>)) {
    let Ok(mut bytes) = std::fs::read(path) else { return };
    f(&mut bytes);
    std::fs::write(path, bytes).unwrap();
}

/// Make the CRC of the batch at `at` right for its bytes as they are now.
fn fix_crc(b: &mut [u8], at: usize) {
    let Some(frame) = frame_at(b, at) else { return };
    let end = at + frame.size;
    if frame.magic >= 2 {
        if end >= at + 21 {
            let crc = crc32c::crc32c(&b[at + 21..end]);
            b[at + 17..at + 21].copy_from_slice(&crc.to_be_bytes());
        }
    } else if end >= at + 16 {
        let crc = crc32fast::hash(&b[at + 16..end]);
        b[at + 12..at + 16].copy_from_slice(&crc.to_be_bytes());
    }
}

/// A batch frame as the mutator sees it: position, whole size, magic byte.
#[derive(Debug, Clone, Copy)]
pub struct Frame {
    pub position: usize,
    pub size: usize,
    pub magic: i8,
}

fn frame_at(b: &[u8], at: usize) -> Option<Frame> {
    if at + 17 > b.len() {
        return None;
    }
    let len = i32::from_be_bytes(b[at + 8..at + 12].try_into().unwrap());
    if len < 14 || at + 12 + len as usize > b.len() {
        return None;
    }
    Some(Frame { position: at, size: 12 + len as usize, magic: b[at + 16] as i8 })
}

/// The whole batch frames of a segment, from its start until one does not frame.
pub fn frames(b: &[u8]) -> Vec<Frame> {
    let mut out = Vec::new();
    let mut at = 0;
    while let Some(f) = frame_at(b, at) {
        out.push(f);
        at += f.size;
    }
    out
}

/// v2 header fields: (name, offset, width).
const V2_FIELDS: [(&str, usize, u8); 14] = [
    ("baseOffset", 0, 8),
    ("batchLength", 8, 4),
    ("partitionLeaderEpoch", 12, 4),
    ("magic", 16, 1),
    ("crc", 17, 4),
    ("attributes", 21, 2),
    ("lastOffsetDelta", 23, 4),
    ("baseTimestamp", 27, 8),
    ("maxTimestamp", 35, 8),
    ("producerId", 43, 8),
    ("producerEpoch", 51, 2),
    ("baseSequence", 53, 4),
    ("recordsCount", 57, 4),
    ("firstRecordByte", 61, 1),
];

/// Legacy (v0/v1) message header fields.
const LEGACY_FIELDS: [(&str, usize, u8); 7] = [
    ("offset", 0, 8),
    ("messageSize", 8, 4),
    ("crc", 12, 4),
    ("magic", 16, 1),
    ("attributes", 17, 1),
    ("timestampOrKeyLength", 18, 8),
    ("keyLength", 26, 4),
];

/// Values Kafka's code branches on, for a field of `width` bytes now holding `current`.
fn interesting(rng: &mut Rng, width: u8, current: i64, field: &str) -> i64 {
    if field == "magic" {
        return *rng.pick(&[0, 1, 2, 3, 4, 0x7f, -1, -128]);
    }
    if field == "attributes" {
        // codec bits 0-2 (5-7 unknown), timestamp type 3, transactional 4, control 5, delete horizon 6
        return current ^ *rng.pick(&[1, 2, 3, 4, 5, 6, 7, 8, 16, 32, 64, 0x80]);
    }
    let bits = u32::from(width) * 8;
    let max = if bits >= 64 { i64::MAX } else { (1i64 << (bits - 1)) - 1 };
    let min = if bits >= 64 { i64::MIN } else { -(1i64 << (bits - 1)) };
    match rng.below(10) {
        0 => 0,
        1 => -1,
        2 => 1,
        3 => max,
        4 => min,
        5 => current.wrapping_add(1),
        6 => current.wrapping_sub(1),
        7 => current.wrapping_add(rng.below(64) as i64 + 2),
        8 => current ^ (1i64 << rng.below(u64::from(bits))),
        _ => current.wrapping_sub(rng.below(64) as i64 + 2),
    }
    .clamp(min, max)
}

fn read_be(b: &[u8], at: usize, width: u8) -> i64 {
    let w = usize::from(width);
    if at + w > b.len() {
        return 0;
    }
    let mut v: i64 = if b[at] & 0x80 != 0 { -1 } else { 0 };
    for x in &b[at..at + w] {
        v = (v << 8) | i64::from(*x);
    }
    v
}

/// The files of a log dir, relative to it, by kind.
struct Files {
    logs: Vec<String>,
    indexes: Vec<String>,
    time_indexes: Vec<String>,
    snapshots: Vec<String>,
    epoch_checkpoints: Vec<String>,
    partitions: Vec<String>,
}

fn files(dir: &Path) -> Files {
    let mut f = Files {
        logs: vec![],
        indexes: vec![],
        time_indexes: vec![],
        snapshots: vec![],
        epoch_checkpoints: vec![],
        partitions: vec![],
    };
    let mut parts: Vec<PathBuf> =
        std::fs::read_dir(dir).unwrap().flatten().map(|e| e.path()).filter(|p| p.is_dir()).collect();
    parts.sort();
    for part in parts {
        let pn = part.file_name().unwrap().to_string_lossy().into_owned();
        let mut names: Vec<String> =
            std::fs::read_dir(&part).unwrap().flatten().map(|e| e.file_name().to_string_lossy().into_owned()).collect();
        names.sort();
        for n in names {
            let rel = format!("{pn}/{n}");
            if n.ends_with(".log") {
                f.logs.push(rel);
            } else if n.ends_with(".index") {
                f.indexes.push(rel);
            } else if n.ends_with(".timeindex") {
                f.time_indexes.push(rel);
            } else if n.ends_with(".snapshot") {
                f.snapshots.push(rel);
            } else if n == "leader-epoch-checkpoint" {
                f.epoch_checkpoints.push(rel);
            }
        }
        f.partitions.push(pn);
    }
    f
}

/// Segments with bytes count more: that is where the branches are.
fn pick_log(rng: &mut Rng, dir: &Path, logs: &[String]) -> Option<String> {
    let full: Vec<&String> =
        logs.iter().filter(|l| std::fs::metadata(dir.join(l)).is_ok_and(|m| m.len() > 0)).collect();
    if !full.is_empty() && rng.chance(90) {
        // The last segment of a partition is where a clean start reads the log end.
        return Some(full[rng.below(full.len() as u64) as usize].clone());
    }
    (!logs.is_empty()).then(|| rng.pick(logs).clone())
}

/// One random mutation of the dir as it is now (`None` when the chosen kind has no target).
pub fn random_mutation(rng: &mut Rng, dir: &Path) -> Option<Mutation> {
    let f = files(dir);
    match rng.below(100) {
        0..=44 => log_mutation(rng, dir, &f),
        45..=54 => index_mutation(rng, dir, &f.indexes, 8),
        55..=59 => index_mutation(rng, dir, &f.time_indexes, 12),
        60..=63 => snapshot_mutation(rng, dir, &f.snapshots),
        64..=73 => {
            let mut all = f.epoch_checkpoints.clone();
            if all.is_empty() {
                return None;
            }
            all.sort();
            let file = rng.pick(&all).clone();
            checkpoint_mutation(rng, dir, &file)
        }
        74..=81 => {
            let file = rng
                .pick(&[
                    "recovery-point-offset-checkpoint",
                    "log-start-offset-checkpoint",
                    "replication-offset-checkpoint",
                    "cleaner-offset-checkpoint",
                ])
                .to_string();
            checkpoint_mutation(rng, dir, &file)
        }
        82..=91 => name_mutation(rng, &f),
        92..=96 => Some(Mutation::Marker { present: !dir.join(".kafka_cleanshutdown").exists() }),
        _ => {
            if !dir.join("klog-state.json").is_file() {
                return None;
            }
            let (key, values): (&str, &[i64]) = if rng.chance(60) {
                ("index_interval_bytes", &[1, 40, 100, 4096, 1 << 20])
            } else {
                ("index_bytes_max", &[8, 16, 24, 100, 4096])
            };
            Some(Mutation::Config { key: key.into(), value: *rng.pick(values) })
        }
    }
}

fn log_mutation(rng: &mut Rng, dir: &Path, f: &Files) -> Option<Mutation> {
    let file = pick_log(rng, dir, &f.logs)?;
    let b = std::fs::read(dir.join(&file)).ok()?;
    let fr = frames(&b);
    let roll = rng.below(100);
    if fr.is_empty() || roll >= 85 {
        // The tail: torn, zeroed, garbage.
        return Some(match rng.below(4) {
            0 if !b.is_empty() => Mutation::Cut { file, len: rng.below(b.len() as u64) },
            1 => Mutation::Zeros { file, count: *rng.pick(&[1, 11, 12, 16, 17, 61, 200]) },
            2 if !b.is_empty() => {
                // Zeros from a point to the end, the size kept (a never-written tail).
                let from =
                    if rng.chance(50) { fr.last().map_or(0, |l| l.position as u64) } else { rng.below(b.len() as u64) };
                Mutation::ZeroFrom { file, position: from }
            }
            _ => Mutation::Append { file, bytes: (0..rng.below(40) + 1).map(|_| rng.below(256) as u8).collect() },
        });
    }
    // A batch: the last one most often (a clean start reads from the last index entry on).
    let frame = if rng.chance(50) { *fr.last().unwrap() } else { *rng.pick(&fr) };
    let (name, offset, width) = if frame.magic >= 2 || frame.magic < 0 && rng.chance(50) {
        if roll < 70 {
            *rng.pick(&V2_FIELDS[..13])
        } else {
            // Record bytes (varints, keys, values, a compressed payload).
            let body = frame.size.saturating_sub(61).max(1);
            ("recordByte", 61 + rng.below(body as u64) as usize, 1)
        }
    } else {
        *rng.pick(&LEGACY_FIELDS)
    };
    let at = frame.position + offset;
    if at + usize::from(width) > b.len() {
        return None;
    }
    let current = read_be(&b, at, width);
    let value = if name == "recordByte" {
        (current ^ (1 << rng.below(8))) & 0xff
    } else {
        interesting(rng, width, current, name)
    };
    let value = if width == 1 { value as i8 as i64 } else { value };
    Some(Mutation::Int { file, position: at as u64, width, value, field: name.to_string() })
}

/// Follow a CRC-covered change with a CRC made right, half the time (the caller decides).
pub fn crc_follow_up(m: &Mutation, dir: &Path) -> Option<Mutation> {
    let Mutation::Int { file, position, field, .. } = m else { return None };
    if !file.ends_with(".log")
        || matches!(field.as_str(), "baseOffset" | "batchLength" | "crc" | "offset" | "messageSize")
    {
        return None;
    }
    let b = std::fs::read(dir.join(file)).ok()?;
    let frame = frames(&b)
        .into_iter()
        .find(|fr| (fr.position as u64) <= *position && *position < (fr.position + fr.size) as u64)?;
    Some(Mutation::FixCrc { file: file.clone(), position: frame.position as u64 })
}

fn index_mutation(rng: &mut Rng, dir: &Path, files: &[String], entry: u64) -> Option<Mutation> {
    if files.is_empty() {
        return None;
    }
    let file = rng.pick(files).clone();
    let len = std::fs::metadata(dir.join(&file)).ok()?.len();
    let entries = len / entry;
    Some(match rng.below(6) {
        0..=2 if entries > 0 => {
            // An entry's field: the last entry most often.
            let k = if rng.chance(50) { entries - 1 } else { rng.below(entries) };
            let (field, off, width) = if entry == 8 {
                *rng.pick(&[("relativeOffset", 0u64, 4u8), ("position", 4, 4)])
            } else {
                *rng.pick(&[("timestamp", 0u64, 8u8), ("relativeOffset", 8, 4)])
            };
            let at = k * entry + off;
            let b = std::fs::read(dir.join(&file)).ok()?;
            let current = read_be(&b, at as usize, width);
            let value = if field == "position" && rng.chance(40) {
                // Inside a batch, or past the end of the segment.
                current + *rng.pick(&[1, 5, 12, 17, 61, 100_000])
            } else {
                interesting(rng, width, current, field)
            };
            Mutation::Int { file, position: at, width, value, field: field.to_string() }
        }
        3 => Mutation::Cut { file, len: rng.below(len + 1) },
        4 => Mutation::Zeros { file, count: *rng.pick(&[1, 4, entry, entry * 3, 10 * entry + 3]) },
        _ => Mutation::Remove { file },
    })
}

fn snapshot_mutation(rng: &mut Rng, dir: &Path, files: &[String]) -> Option<Mutation> {
    if files.is_empty() {
        return None;
    }
    let file = rng.pick(files).clone();
    let len = std::fs::metadata(dir.join(&file)).ok()?.len();
    Some(match rng.below(5) {
        0 | 1 if len > 0 => {
            let at = rng.below(len);
            let b = std::fs::read(dir.join(&file)).ok()?;
            Mutation::Int {
                file,
                position: at,
                width: 1,
                value: i64::from((b[at as usize] ^ (1 << rng.below(8))) as i8),
                field: "snapshotByte".into(),
            }
        }
        2 => Mutation::Cut { file, len: rng.below(len + 1) },
        3 => Mutation::Remove { file },
        _ => {
            // Another offset's name.
            let (part, name) = file.rsplit_once('/')?;
            let offset: i64 = name.strip_suffix(".snapshot")?.parse().ok()?;
            let to = (offset + *rng.pick(&[-1, 1, 3, 1000])).max(0);
            Mutation::Rename { from: file.clone(), to: format!("{part}/{to:020}.snapshot") }
        }
    })
}

fn checkpoint_mutation(rng: &mut Rng, dir: &Path, file: &str) -> Option<Mutation> {
    let text = std::fs::read_to_string(dir.join(file)).unwrap_or_default();
    let mut lines: Vec<String> = text.lines().map(str::to_string).collect();
    let tokens: &[&str] = &["-5", "-1", "0", "1", "2", "3", "7", "2147483648", "9223372036854775807", "x", ""];
    match rng.below(7) {
        0..=2 if !lines.is_empty() => {
            let l = rng.below(lines.len() as u64) as usize;
            let mut words: Vec<String> = lines[l].split(' ').map(str::to_string).collect();
            let w = rng.below(words.len() as u64) as usize;
            words[w] = rng.pick(tokens).to_string();
            lines[l] = words.join(" ");
        }
        3 if lines.len() > 2 => {
            let l = 2 + rng.below(lines.len() as u64 - 2) as usize;
            lines.remove(l);
        }
        4 if lines.len() > 2 => {
            let l = 2 + rng.below(lines.len() as u64 - 2) as usize;
            let copy = lines[l].clone();
            lines.insert(l, copy);
        }
        5 => return Some(Mutation::Remove { file: file.to_string() }),
        _ => {
            // An entry added (epoch/offset for the epoch cache; a partition for the others).
            let (a, b) = (rng.below(8) as i64 - 1, rng.below(40) as i64 - 2);
            if file.ends_with("leader-epoch-checkpoint") {
                lines.push(format!("{a} {b}"));
            } else {
                let part = files(dir).partitions.first().cloned().unwrap_or_else(|| "demo-0".into());
                let (t, p) = part.rsplit_once('-').unwrap_or((&part, "0"));
                lines.push(format!("{t} {p} {b}"));
            }
        }
    }
    let mut text = lines.join("\n");
    if rng.chance(90) {
        text.push('\n');
    }
    Some(Mutation::Text { file: file.to_string(), text })
}

fn name_mutation(rng: &mut Rng, f: &Files) -> Option<Mutation> {
    let id = "0123456789abcdef0123456789abcdef";
    match rng.below(5) {
        0 | 1 => {
            // A segment file's suffix: a swap, a cleaner's output, a deletion in flight.
            let all: Vec<&String> = f.logs.iter().chain(&f.indexes).chain(&f.time_indexes).collect();
            if all.is_empty() {
                return None;
            }
            let file = (*rng.pick(&all)).clone();
            let suffix = *rng.pick(&[".swap", ".cleaned", ".deleted"]);
            let to = format!("{file}{suffix}");
            Some(if rng.chance(50) { Mutation::Copy { from: file, to } } else { Mutation::Rename { from: file, to } })
        }
        2 => {
            // A segment's base offset moved: inside its predecessor, or up.
            if f.logs.is_empty() {
                return None;
            }
            let file = rng.pick(&f.logs).clone();
            let (part, name) = file.rsplit_once('/')?;
            let base: i64 = name.strip_suffix(".log")?.parse().ok()?;
            let to = (base + *rng.pick(&[-1, 1, -3, 5, 100])).max(0);
            Some(Mutation::Rename { from: file.clone(), to: format!("{part}/{to:020}.log") })
        }
        _ => {
            let parts: Vec<&String> = f.partitions.iter().filter(|p| !p.starts_with("__cluster_metadata")).collect();
            if parts.is_empty() {
                return None;
            }
            let part = (*rng.pick(&parts)).clone();
            let suffix = *rng.pick(&["delete", "future", "stray"]);
            let to = format!("{part}.{id}-{suffix}");
            Some(if rng.chance(50) {
                Mutation::Rename { from: part, to }
            } else {
                // A copy beside the live log (a future replica, a deletion in flight).
                Mutation::Copy { from: part, to }
            })
        }
    }
}

/// Copy a tree, leaving every copy writable (the real dirs are read-only).
pub fn copy_tree(from: &Path, to: &Path) {
    use std::os::unix::fs::PermissionsExt;
    std::fs::create_dir_all(to).unwrap();
    std::fs::set_permissions(to, std::fs::Permissions::from_mode(0o755)).unwrap();
    for e in std::fs::read_dir(from).unwrap() {
        let e = e.unwrap();
        let target = to.join(e.file_name());
        let ft = e.file_type().unwrap();
        if ft.is_dir() {
            copy_tree(&e.path(), &target);
        } else if ft.is_file() {
            std::fs::copy(e.path(), &target).unwrap();
            std::fs::set_permissions(&target, std::fs::Permissions::from_mode(0o644)).unwrap();
        }
    }
}
