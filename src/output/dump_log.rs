//! `dump --format kafka`: the lines `kafka-dump-log.sh --deep-iteration --print-data-log`
//! prints (Kafka `DumpLogSegments`, modern field order: `deleteHorizonMs` on v2 batch lines,
//! lower-case codec names), driven by the same `DumpEvent` stream as the table and JSON, so
//! that scripts written against Kafka's tool keep working on klog's output.
//!
//! stdout gets exactly Kafka's lines: `Dumping <file>`, `Log starting offset: N`, one batch
//! line per batch, `| offset: ...` per record (with ` key: ` / ` payload: ` for data records and
//! the control record's fields for control records), `Found N invalid bytes at the end of <name>`,
//! index, time-index, txn-index and producer-snapshot entry lines. Keys and payloads are decoded
//! as Kafka's `StringDecoder` does (malformed UTF-8 becomes U+FFFD; line breaks are written as
//! they are, as Kafka writes them). A file Kafka's tool does not read (a checkpoint,
//! `partition.metadata`) gets its `Dumping` line and `Ignoring unknown file` on stderr. What Kafka
//! sends to stderr after all files (index mismatches, time-index errors, non-consecutive offsets)
//! goes to stderr here too, in Kafka's words and order, judged by Kafka 4.4's rules (a time-index entry a
//! Kafka 3.6 or earlier leader wrote, naming the record with the max timestamp, is "not found" to
//! it).
//! `tests/kafka/oracle_dump.rs` compares every line with `DumpLogSegments` itself. Where klog
//! deliberately differs (the list the test reads, `tests/oracle/dump-differences.tsv`): where
//! Kafka's tool stops with an exception (a batch whose records do not decode, an index entry
//! pointing past the log), klog names the problem on stderr and the dump goes on.
//!
//! The epoch view and the log-dir overview have no dump-log form: they are refused as usage errors.

use super::values::{self, ValueFormat};
use crate::commands::dump::{BatchRow, DumpEvent, DumpToolTimeCheck, FileKind, RenderedChunk};
use crate::commands::dump::{ControlRead, InternalRecord};
use crate::error::{Error, IoContext, Result};
use crate::format::control::ControlRecord;
use crate::format::producer_snapshot::{ProducerEntry, ProducerSnapshot};
use crate::format::record::Record;
use crate::log::index::OffsetEntryCheck;
use crate::output::internal_record;
use crate::output::java_utf8::java_utf8;
use std::collections::BTreeMap;
use std::io::Write;
use std::path::Path;

/// Streams dump events as kafka-dump-log lines.
pub struct DumpLog<'o> {
    out: &'o mut dyn Write,
    err: &'o mut dyn Write,
    /// What Kafka prints to stderr after the last file, in its order: index mismatches, then
    /// the time-index errors, then non-consecutive offsets; then what klog adds.
    /// Each a Java `HashMap` keyed by the file's absolute path: (path, lines) per file.
    index_mismatches: Vec<(String, Vec<String>)>,
    time_mismatches: Vec<(String, Vec<String>)>,
    time_out_of_order: Vec<(String, Vec<String>)>,
    time_not_found: Vec<(String, Vec<String>)>,
    non_consecutive: Vec<(String, Vec<String>)>,
    klog_notes: Vec<String>,
    /// Report non-consecutive offsets (off when a record filter leaves gaps on purpose).
    offset_gaps: bool,
    /// `--value-format`: payloads shown so, Confluent schema ids named.
    values: Option<ValueFormat>,
    /// The file being dumped and what is tracked per file.
    file: Option<FileState>,
    /// A line being built (reused from line to line).
    buf: Vec<u8>,
}

struct FileState {
    display: String,
    absolute: String,
    /// A `.log` or KRaft `.checkpoint`: the only files whose tail Kafka reports as invalid bytes.
    holds_batches: bool,
    /// Set when a corrupt producer snapshot's entries are to be left out.
    skip_entries: bool,
    /// `dumpBatchRecords`' `lastOffset`, which starts at −1 for every file.
    last_record_offset: i64,
    /// Kafka's `TreeMap`s: one pair per key, the last one put.
    non_consecutive: BTreeMap<i64, i64>,
    index_mismatches: BTreeMap<i64, i64>,
    time_mismatches: Vec<(i64, i64)>,
    time_out_of_order: Vec<(i64, i64)>,
    time_not_found: Vec<(i64, i64)>,
}

fn absolute(path: &Path) -> String {
    std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf()).display().to_string()
}

impl<'o> DumpLog<'o> {
    pub fn new(out: &'o mut dyn Write, err: &'o mut dyn Write) -> Self {
        DumpLog {
            out,
            err,
            index_mismatches: Vec::new(),
            time_mismatches: Vec::new(),
            time_out_of_order: Vec::new(),
            time_not_found: Vec::new(),
            non_consecutive: Vec::new(),
            klog_notes: Vec::new(),
            offset_gaps: true,
            values: None,
            file: None,
            buf: Vec::new(),
        }
    }

    /// Leave out the "Non-consecutive offsets" report: the records shown were filtered.
    pub fn without_offset_gaps(mut self) -> Self {
        self.offset_gaps = false;
        self
    }

    /// Show payloads as `--value-format` says.
    pub fn with_values(mut self, values: Option<ValueFormat>) -> Self {
        self.values = values;
        self
    }

    fn line(&mut self, text: &str) -> Result<()> {
        writeln!(self.out, "{text}").at("<stdout>", "write")
    }

    /// Start a new file: close the previous one and print `Dumping <file>`.
    fn start_file(&mut self, path: &Path, holds_batches: bool) -> Result<()> {
        self.end_file();
        self.file = Some(FileState {
            display: path.display().to_string(),
            absolute: absolute(path),
            holds_batches,
            skip_entries: false,
            last_record_offset: -1,
            non_consecutive: BTreeMap::new(),
            index_mismatches: BTreeMap::new(),
            time_mismatches: Vec::new(),
            time_out_of_order: Vec::new(),
            time_not_found: Vec::new(),
        });
        self.line(&format!("Dumping {}", path.display()))
    }

    /// Queue what Kafka prints to stderr for the file just finished.
    fn end_file(&mut self) {
        let Some(f) = self.file.take() else { return };
        let abs = &f.absolute;
        let add = |to: &mut Vec<(String, Vec<String>)>, lines: Vec<String>| {
            if lines.len() > 1 {
                to.push((abs.clone(), lines));
            }
        };
        // A TreeMap in reverse order: highest index offset first.
        let lines = std::iter::once(format!("Mismatches in :{abs}"))
            .chain(f.index_mismatches.iter().rev().map(|(i, l)| format!("  Index offset: {i}, log offset: {l}")));
        add(&mut self.index_mismatches, lines.collect());
        let lines = std::iter::once(format!("Found timestamp mismatch in :{abs}"))
            .chain(f.time_mismatches.iter().map(|(i, l)| format!("  Index timestamp: {i}, log timestamp: {l}")));
        add(&mut self.time_mismatches, lines.collect());
        let lines = std::iter::once(format!("Found out of order timestamp in :{abs}")).chain(
            f.time_out_of_order
                .iter()
                .map(|(i, p)| format!("  Index timestamp: {i}, Previously indexed timestamp: {p}")),
        );
        add(&mut self.time_out_of_order, lines.collect());
        let lines = std::iter::once(format!("The following indexed offsets are not found in :{abs}"))
            .chain(f.time_not_found.iter().map(|(i, l)| format!("Indexed offset: {i}, found log offset: {l}")));
        add(&mut self.time_not_found, lines.collect());
        let lines = std::iter::once(format!("Non-consecutive offsets in {abs}"))
            .chain(f.non_consecutive.iter().map(|(a, b)| format!("  {a} is followed by {b}")));
        if self.offset_gaps {
            add(&mut self.non_consecutive, lines.collect());
        }
    }

    pub fn event(&mut self, event: DumpEvent<'_>) -> Result<()> {
        match event {
            DumpEvent::Replica(_) => Ok(()),
            DumpEvent::Epochs(_) => {
                Err(Error::Usage("--epochs has no kafka-dump-log form; use the table or --json".into()))
            }
            DumpEvent::PartitionSummary(_) => {
                Err(Error::Usage("the log-dir overview has no kafka-dump-log form; use the table or --json".into()))
            }
            // kafka-dump-log reports what it cannot read on stderr.
            DumpEvent::Rendered(chunk) => self.rendered(chunk),
            DumpEvent::Problem { path, what, .. } => {
                writeln!(self.err, "{}: {what}", path.display()).at("<stderr>", "write")
            }
            DumpEvent::Segment { path, base_offset } => {
                self.start_file(path, true)?;
                self.line(&format!("Log starting offset: {base_offset}"))
            }
            DumpEvent::File { path, kind } => self.file(path, kind),
            DumpEvent::Batch(b) => {
                self.buf.clear();
                write_batch_line(&mut self.buf, b);
                self.out.write_all(&self.buf).at("<stdout>", "write")
            }
            DumpEvent::Record(b, r, _) | DumpEvent::Decoded(b, r, _) => {
                self.note_record_offset(r.offset);
                self.buf.clear();
                match event {
                    DumpEvent::Decoded(_, _, decoded) => write_decoded_line(&mut self.buf, b, r, decoded),
                    DumpEvent::Record(_, _, control) => write_record_line(&mut self.buf, b, r, control, self.values),
                    _ => {}
                }
                self.out.write_all(&self.buf).at("<stdout>", "write")
            }
            DumpEvent::Undecodable(b, why) => {
                self.undecodable(b, why);
                Ok(())
            }
            DumpEvent::Trailing { path, len, .. } => self.trailing(path, len),
            DumpEvent::IndexEntry { offset, position, check } => {
                if let (Some(f), OffsetEntryCheck::Mismatch { log_offset, .. }) = (self.file.as_mut(), check) {
                    f.index_mismatches.insert(offset, log_offset.unwrap_or(-1));
                }
                self.line(&format!("offset: {offset} position: {position}"))
            }
            DumpEvent::TimeIndexEntry { timestamp, offset, dump_tool, .. } => {
                self.time_index_entry(timestamp, offset, dump_tool)
            }
            // Kafka 4.x prints the version as a literal 0 (the only one its reader accepts).
            DumpEvent::TxnIndexEntry(t) => self.line(&format!(
                "version: 0 producerId: {} firstOffset: {} lastOffset: {} lastStableOffset: {}",
                t.producer_id, t.first_offset, t.last_offset, t.last_stable_offset
            )),
            DumpEvent::ProducerSnapshot(s) => self.producer_snapshot(s),
            DumpEvent::ProducerEntry(e) => {
                if self.file.as_ref().is_some_and(|f| f.skip_entries) {
                    return Ok(());
                }
                self.line(&producer_entry_line(e))
            }
            DumpEvent::EpochEntry { .. } | DumpEvent::OffsetEntry { .. } | DumpEvent::LogDirTotals { .. } => Ok(()),
            // Kafka's tool ignores `quorum-state` (no suffix it reads); the command announces
            // it as ignored before reading it, so this is reached only without that choice.
            DumpEvent::QuorumState(_) => {
                Err(Error::Usage("kafka-dump-log does not read quorum-state; dump it as a table or with --json".into()))
            }
        }
    }

    /// A record's offset: one that does not follow the last is noted for the end of the file.
    fn note_record_offset(&mut self, offset: i64) {
        if let Some(f) = self.file.as_mut() {
            if offset != f.last_record_offset.wrapping_add(1) {
                f.non_consecutive.insert(f.last_record_offset, offset);
            }
            f.last_record_offset = offset;
        }
    }

    /// Bytes at the end of a file that do not frame as a batch. Kafka reads whole index entries
    /// and says nothing of a partial one.
    fn trailing(&mut self, path: &Path, len: u64) -> Result<()> {
        if !self.file.as_ref().is_some_and(|f| f.holds_batches) {
            return Ok(());
        }
        let name = path.file_name().map_or_else(|| path.display().to_string(), |n| n.to_string_lossy().into());
        self.line(&format!("Found {len} invalid bytes at the end of {name}"))
    }

    /// A chunk rendered ahead: its records' offsets noted as a sequential pass would have
    /// seen them, its undecodable batches noted, its bytes written.
    fn rendered(&mut self, chunk: &RenderedChunk) -> Result<()> {
        if let (Some(f), Some(first)) = (self.file.as_mut(), chunk.records.first) {
            // The steps a sequential pass would have seen, in its order.
            let steps = std::iter::once((f.last_record_offset, first)).chain(chunk.records.steps.iter().copied());
            for (previous, offset) in steps {
                if offset != previous.wrapping_add(1) {
                    f.non_consecutive.insert(previous, offset);
                }
            }
            f.last_record_offset = chunk.records.last;
        }
        for (b, why) in &chunk.undecodable {
            self.undecodable(b, why);
        }
        self.out.write_all(&chunk.bytes).at("<stdout>", "write")
    }

    /// A single file other than a `.log`: what kafka-dump-log says before its entries.
    fn file(&mut self, path: &Path, kind: FileKind) -> Result<()> {
        match kind {
            FileKind::EpochCheckpoint | FileKind::OffsetCheckpoint => Err(Error::layout(
                path,
                "kafka-dump-log does not read checkpoint files; dump it as a table or with --json",
            )),
            FileKind::Ignored => {
                self.start_file(path, false)?;
                writeln!(self.err, "Ignoring unknown file {}", path.display()).at("<stderr>", "write")
            }
            FileKind::OffsetIndex { entry_count: 0 } => {
                self.start_file(path, false)?;
                self.line(&format!("{} is empty.", path.display()))
            }
            FileKind::KraftSnapshot { end_offset, epoch } => {
                self.start_file(path, true)?;
                match (end_offset, epoch) {
                    (Some(o), Some(e)) => self.line(&format!("Snapshot end offset: {o}, epoch: {e}")),
                    _ => self.line("KRaft bootstrap snapshot"),
                }
            }
            _ => self.start_file(path, false),
        }
    }

    /// A time index entry, with what `DumpLogSegments` will say of it at the end.
    fn time_index_entry(&mut self, timestamp: i64, offset: i64, dump_tool: DumpToolTimeCheck) -> Result<()> {
        if let Some(f) = self.file.as_mut() {
            if let Some(found) = dump_tool.not_found {
                f.time_not_found.push((offset, found));
            }
            if let Some(log_timestamp) = dump_tool.log_timestamp {
                f.time_mismatches.push((timestamp, log_timestamp));
            }
            if let Some(previous) = dump_tool.previous_timestamp {
                f.time_out_of_order.push((timestamp, previous));
            }
        }
        self.line(&format!("timestamp: {timestamp} offset: {offset}"))
    }

    /// A producer snapshot's header: a corrupt one is said at once, and its entries skipped.
    fn producer_snapshot(&mut self, s: &ProducerSnapshot) -> Result<()> {
        if !s.crc_valid() {
            // Kafka's CorruptSnapshotException message, printed at once; no entries.
            writeln!(
                self.err,
                "Snapshot is corrupt (CRC is no longer valid). Stored crc: {}. Computed crc: {}",
                s.crc, s.computed_crc
            )
            .at("<stderr>", "write")?;
            if let Some(f) = self.file.as_mut() {
                f.skip_entries = true;
            }
        }
        Ok(())
    }

    fn undecodable(&mut self, b: &BatchRow, why: &str) {
        let file = self.file.as_ref().map_or(String::new(), |f| f.display.clone());
        self.klog_notes.push(format!(
            "klog: {file}: the records of the batch at position {} (offsets {} to {}) do not decode: {why}",
            b.position, b.base_offset, b.last_offset
        ));
    }

    /// Print what Kafka prints to stderr after the last file: each map in Java `HashMap`
    /// iteration order, as Kafka's `forEach` over it goes.
    pub fn finish(mut self) -> Result<()> {
        self.end_file();
        self.out.flush().at("<stdout>", "write")?;
        let maps = [
            &mut self.index_mismatches,
            &mut self.time_mismatches,
            &mut self.time_out_of_order,
            &mut self.time_not_found,
            &mut self.non_consecutive,
        ];
        for map in maps {
            let order = java_hash_map_order(map.iter().map(|(k, _)| k.as_str()));
            for i in order {
                for line in &map[i].1 {
                    writeln!(self.err, "{line}").at("<stderr>", "write")?;
                }
            }
        }
        for n in &self.klog_notes {
            writeln!(self.err, "{n}").at("<stderr>", "write")?;
        }
        Ok(())
    }
}

/// A producer snapshot's entry, as `DumpLogSegments` prints it.
fn producer_entry_line(e: &ProducerEntry) -> String {
    let txn = if e.current_txn_first_offset >= 0 {
        format!("OptionalLong[{}]", e.current_txn_first_offset)
    } else {
        "OptionalLong.empty".to_string()
    };
    let mut text = format!(
        "producerId: {} producerEpoch: {} coordinatorEpoch: {} currentTxnFirstOffset: {txn} lastTimestamp: {}",
        e.producer_id, e.producer_epoch, e.coordinator_epoch, e.timestamp
    );
    // `readSnapshot` adds the batch only when its last offset is set.
    if e.last_offset >= 0 {
        text.push_str(&format!(
            " firstSequence: {} lastSequence: {} lastOffset: {} offsetDelta: {} timestamp: {}",
            e.first_sequence(),
            e.last_sequence,
            e.last_offset,
            e.offset_delta,
            e.timestamp
        ));
    }
    text
}

/// The order a Java `HashMap<String, _>` filled by `computeIfAbsent` with `keys` (distinct, in
/// insertion order) iterates them, as `DumpLogSegments` fills its report maps
/// ([`crate::log::java_hash_map`]); by bucket, then latest first, where a bucket became a tree.
fn java_hash_map_order<'k>(keys: impl Iterator<Item = &'k str>) -> Vec<usize> {
    use crate::log::java_hash_map::{string_hash, JavaHashMap};
    let keys: Vec<&str> = keys.collect();
    let mut map = JavaHashMap::new();
    for (i, k) in keys.iter().enumerate() {
        map.compute_if_absent(string_hash(k), (*k, i));
    }
    let order = map.order().unwrap_or_else(|| {
        let capacity = map.capacity().max(16) as u64;
        let bucket = |k: &str| {
            let h = string_hash(k) as u32;
            u64::from(h ^ (h >> 16)) & (capacity - 1)
        };
        let mut all: Vec<(u64, std::cmp::Reverse<usize>, (&str, usize))> =
            keys.iter().enumerate().map(|(i, k)| (bucket(k), std::cmp::Reverse(i), (*k, i))).collect();
        all.sort();
        all.into_iter().map(|(_, _, k)| k).collect()
    });
    order.into_iter().map(|(_, i)| i).collect()
}

/// `printBatchLevel`: the v2 form, or the legacy `offset: ...` form.
pub fn batch_line(b: &BatchRow) -> String {
    let mut buf = Vec::new();
    write_batch_line(&mut buf, b);
    buf.pop();
    String::from_utf8(buf).unwrap_or_default()
}

fn push_int(buf: &mut Vec<u8>, v: i64) {
    if v < 0 {
        buf.push(b'-');
    }
    buf.extend_from_slice(crate::util::decimal_digits(v.unsigned_abs(), &mut [0u8; 20]));
}

fn push_bool(buf: &mut Vec<u8>, v: bool) {
    buf.extend_from_slice(if v { b"true" } else { b"false" });
}

/// [`batch_line`] and its line break, appended to `buf`.
fn write_batch_line(buf: &mut Vec<u8>, b: &BatchRow) {
    if b.magic >= 2 {
        buf.extend_from_slice(b"baseOffset: ");
        push_int(buf, b.base_offset);
        buf.extend_from_slice(b" lastOffset: ");
        push_int(buf, b.last_offset);
        buf.extend_from_slice(b" count: ");
        push_int(buf, b.record_count.into());
        buf.extend_from_slice(b" baseSequence: ");
        push_int(buf, b.base_sequence.into());
        buf.extend_from_slice(b" lastSequence: ");
        push_int(buf, b.last_sequence.into());
        buf.extend_from_slice(b" producerId: ");
        push_int(buf, b.producer_id);
        buf.extend_from_slice(b" producerEpoch: ");
        push_int(buf, b.producer_epoch.into());
        buf.extend_from_slice(b" partitionLeaderEpoch: ");
        push_int(buf, b.partition_leader_epoch.into());
        buf.extend_from_slice(b" isTransactional: ");
        push_bool(buf, b.is_transactional);
        buf.extend_from_slice(b" isControl: ");
        push_bool(buf, b.is_control);
        buf.extend_from_slice(b" deleteHorizonMs: ");
        match b.delete_horizon_ms {
            Some(d) => {
                buf.extend_from_slice(b"OptionalLong[");
                push_int(buf, d);
                buf.push(b']');
            }
            None => buf.extend_from_slice(b"OptionalLong.empty"),
        }
    } else {
        buf.extend_from_slice(b"offset: ");
        push_int(buf, b.last_offset);
    }
    buf.extend_from_slice(b" position: ");
    push_int(buf, b.position as i64);
    buf.push(b' ');
    buf.extend_from_slice(b.timestamp_type.as_bytes());
    buf.extend_from_slice(b": ");
    push_int(buf, b.max_timestamp);
    buf.extend_from_slice(b" size: ");
    push_int(buf, b.size_bytes as i64);
    buf.extend_from_slice(b" magic: ");
    push_int(buf, b.magic.into());
    buf.extend_from_slice(b" compresscodec: ");
    buf.extend_from_slice(b.compression.as_bytes());
    buf.extend_from_slice(b" crc: ");
    push_int(buf, b.crc.into());
    buf.extend_from_slice(b" isvalid: ");
    push_bool(buf, b.crc_valid);
    buf.push(b'\n');
}

/// Kafka's `StringDecoder`: `new String(bytes, UTF_8)`, malformed bytes become U+FFFD; appended
/// to `buf` as UTF-8 (the bytes themselves when they are well formed).
fn push_decoded(buf: &mut Vec<u8>, bytes: &[u8]) {
    if bytes.is_ascii() || std::str::from_utf8(bytes).is_ok() {
        buf.extend_from_slice(bytes);
    } else {
        buf.extend_from_slice(java_utf8(bytes).as_bytes());
    }
}

/// A deep-iteration record line with keys and payloads (`--print-data-log`).
pub fn record_line(b: &BatchRow, r: &Record<'_>, control: Option<&ControlRead>) -> String {
    let mut buf = Vec::new();
    write_record_line(&mut buf, b, r, control, None);
    buf.pop();
    String::from_utf8(buf).unwrap_or_default()
}

/// [`record_line`] and its line break, appended to `buf` (the hot path of the dump: no
/// allocation for a record without headers).
fn write_record_line(
    buf: &mut Vec<u8>,
    b: &BatchRow,
    r: &Record<'_>,
    control: Option<&ControlRead>,
    values: Option<ValueFormat>,
) {
    write_record_head(buf, b, r);
    if let Some(c) = control {
        buf.extend_from_slice(control_suffix(c).as_bytes());
    } else {
        if let Some(k) = r.key {
            buf.extend_from_slice(b" key: ");
            push_decoded(buf, k);
        }
        if let Some(v) = r.value {
            if let Some(id) = values.and_then(|_| values::confluent_schema_id(v)) {
                buf.extend_from_slice(b" confluentSchemaId: ");
                push_int(buf, id.into());
            }
            buf.extend_from_slice(b" payload: ");
            match values {
                Some(ValueFormat::Hex) => buf.extend_from_slice(values::hex(v).as_bytes()),
                Some(ValueFormat::Base64) => buf.extend_from_slice(crate::util::base64(v).as_bytes()),
                _ => push_decoded(buf, v),
            }
        }
    }
    buf.push(b'\n');
}

/// A data record of an internal topic, as Kafka's tool prints it with that topic's decoder.
fn write_decoded_line(buf: &mut Vec<u8>, b: &BatchRow, r: &Record<'_>, decoded: &InternalRecord<'_>) {
    if matches!(decoded, InternalRecord::RemoteLogMetadata(_)) {
        // Kafka's tool prints these with a decoder only when asked (`--remote-log-metadata-decoder`,
        // Java's `toString`, not imitated): the line it prints without one.
        return write_record_line(buf, b, r, None, None);
    }
    write_record_head(buf, b, r);
    buf.extend_from_slice(internal_record::dump_log_suffix(decoded, r.offset).as_bytes());
    buf.push(b'\n');
}

/// `printRecordMetadata`: the record's fields before its contents.
fn write_record_head(buf: &mut Vec<u8>, b: &BatchRow, r: &Record<'_>) {
    let size = |v: Option<&[u8]>| v.map_or(-1, |v| v.len() as i64);
    buf.extend_from_slice(b"| offset: ");
    push_int(buf, r.offset);
    buf.push(b' ');
    buf.extend_from_slice(b.timestamp_type.as_bytes());
    buf.extend_from_slice(b": ");
    push_int(buf, r.timestamp);
    buf.extend_from_slice(b" keySize: ");
    push_int(buf, size(r.key));
    buf.extend_from_slice(b" valueSize: ");
    push_int(buf, size(r.value));
    if b.magic >= 2 {
        buf.extend_from_slice(b" sequence: ");
        push_int(buf, record_sequence(b, r.offset).into());
        buf.extend_from_slice(b" headerKeys: [");
        for (i, h) in r.headers.iter().enumerate() {
            if i > 0 {
                buf.push(b',');
            }
            push_decoded(buf, h.key);
        }
        buf.push(b']');
    }
    if let Some(l) = r.legacy {
        buf.extend_from_slice(b" isValid: ");
        push_bool(buf, l.crc_valid);
        buf.extend_from_slice(b" crc: ");
        push_int(buf, l.crc.into());
    }
}

/// The kafka-dump-log lines of a segment's batch events, for [`crate::commands::dump::Render`]:
/// batch and record lines; an undecodable batch is noted by [`DumpLog`] when the chunk arrives.
pub fn render(buf: &mut Vec<u8>, event: DumpEvent<'_>) -> Result<()> {
    render_with(buf, event, None)
}

/// [`render`], with payloads shown as `--value-format` says.
pub fn render_with(buf: &mut Vec<u8>, event: DumpEvent<'_>, values: Option<ValueFormat>) -> Result<()> {
    match event {
        DumpEvent::Batch(b) => write_batch_line(buf, b),
        DumpEvent::Record(b, r, control) => write_record_line(buf, b, r, control, values),
        DumpEvent::Decoded(b, r, decoded) => write_decoded_line(buf, b, r, decoded),
        // The command renders only a segment's batch events in chunks.
        _ => {}
    }
    Ok(())
}

/// `DefaultRecord.sequence`: baseSequence + offsetDelta, wrapping past Int32.MAX; −1 without one.
fn record_sequence(b: &BatchRow, offset: i64) -> i32 {
    if b.base_sequence < 0 {
        return -1;
    }
    let delta = offset.wrapping_sub(b.base_offset) as i32;
    if b.base_sequence > i32::MAX - delta {
        delta - (i32::MAX - b.base_sequence) - 1
    } else {
        b.base_sequence + delta
    }
}

fn json_string(s: &str) -> String {
    serde_json::to_string(s).unwrap_or_else(|_| "\"\"".into())
}

/// What `DumpLogSegments` appends for a control record.
fn control_suffix(control: &ControlRead) -> String {
    let c = match control {
        ControlRead::Decoded(c) => c,
        ControlRead::Invalid { type_id, .. } => {
            let id = type_id.map_or("?".into(), |t| t.to_string());
            return format!(" controlType: INVALID({id})");
        }
    };
    match c {
        ControlRecord::EndTxn { coordinator_epoch, .. } => {
            format!(" endTxnMarker: {} coordinatorEpoch: {coordinator_epoch}", c.type_name())
        }
        ControlRecord::SnapshotHeader { version, last_contained_log_timestamp } => format!(
            " SnapshotHeader {{\"version\":{version},\"lastContainedLogTimestamp\":{last_contained_log_timestamp}}}"
        ),
        ControlRecord::SnapshotFooter { version } => format!(" SnapshotFooter {{\"version\":{version}}}"),
        ControlRecord::KRaftVersion { version, kraft_version } => {
            format!(" KRaftVersion {{\"version\":{version},\"kRaftVersion\":{kraft_version}}}")
        }
        ControlRecord::KRaftVoters { version, voters } => {
            let voters: Vec<String> = voters
                .iter()
                .map(|v| {
                    let endpoints: Vec<String> = v
                        .endpoints
                        .iter()
                        .map(|e| {
                            format!(
                                "{{\"name\":{},\"host\":{},\"port\":{}}}",
                                json_string(&e.name),
                                json_string(&e.host),
                                e.port
                            )
                        })
                        .collect();
                    format!(
                        "{{\"voterId\":{},\"voterUuid\":{},\"endpoints\":[{}],\"kRaftVersionFeature\":{{\"minSupportedVersion\":{},\"maxSupportedVersion\":{}}}}}",
                        v.voter_id,
                        json_string(&v.voter_uuid),
                        endpoints.join(","),
                        v.min_supported_version,
                        v.max_supported_version
                    )
                })
                .collect();
            format!(" KRaftVoters {{\"version\":{version},\"voters\":[{}]}}", voters.join(","))
        }
        ControlRecord::LeaderChange { version, leader_id, voters, granting_voters } => {
            // LeaderChangeMessageJsonConverter.write: each voter as {"voterId":N}.
            let list = |ids: &[i32]| ids.iter().map(|v| format!("{{\"voterId\":{v}}}")).collect::<Vec<_>>().join(",");
            format!(
                " LeaderChange: {{\"version\":{version},\"leaderId\":{leader_id},\"voters\":[{}],\"grantingVoters\":[{}]}}",
                list(voters),
                list(granting_voters)
            )
        }
        // Unknown types fall to Kafka's default case.
        ControlRecord::Unknown { .. } => {
            format!(" controlType: {}({})", c.type_name(), c.type_id())
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::commands::dump::batch_row;
    use crate::format::batch::{encode_batch, BatchIter, BatchSpec};
    use crate::format::record::NewRecord;

    #[test]
    fn the_spec_worked_example_prints_as_kafka_dump_log_does() {
        let rec =
            NewRecord { timestamp: 1_700_000_000_000, key: None, value: Some(b"hello".to_vec()), headers: vec![] };
        let bytes = encode_batch(&BatchSpec::plain(0, 0), &[rec]);
        let b = BatchIter::new(&bytes).next().unwrap();
        let row = batch_row(0, &b);
        // spec §8.2, the example line for the batch of §1.3
        assert_eq!(
            batch_line(&row),
            "baseOffset: 0 lastOffset: 0 count: 1 baseSequence: -1 lastSequence: -1 producerId: -1 producerEpoch: -1 \
             partitionLeaderEpoch: 0 isTransactional: false isControl: false deleteHorizonMs: OptionalLong.empty \
             position: 0 CreateTime: 1700000000000 size: 73 magic: 2 compresscodec: none crc: 3863061579 isvalid: true"
        );
        let d = b.records().unwrap();
        let recs = d.decode().unwrap();
        assert_eq!(
            record_line(&row, &recs[0], None),
            "| offset: 0 CreateTime: 1700000000000 keySize: -1 valueSize: 5 sequence: -1 headerKeys: [] payload: hello"
        );
    }

    #[test]
    fn control_and_legacy_records_print_their_kafka_suffixes() {
        let key = |t: i16| [0i16.to_be_bytes(), t.to_be_bytes()].concat();
        let suffix = |k: Option<&[u8]>, v: Option<&[u8]>| control_suffix(&crate::commands::dump::read_control(k, v));
        let marker = [&0i16.to_be_bytes()[..], &5i32.to_be_bytes()].concat();
        assert_eq!(suffix(Some(&key(1)), Some(&marker)), " endTxnMarker: COMMIT coordinatorEpoch: 5");
        assert_eq!(suffix(Some(&key(0)), Some(&marker)), " endTxnMarker: ABORT coordinatorEpoch: 5");
        assert_eq!(
            suffix(Some(&key(2)), Some(&[0, 0, 0, 0, 0, 1, 1, 1, 0])),
            " LeaderChange: {\"version\":0,\"leaderId\":1,\"voters\":[],\"grantingVoters\":[]}"
        );
        assert_eq!(
            suffix(Some(&key(3)), Some(&[0u8; 11])),
            " SnapshotHeader {\"version\":0,\"lastContainedLogTimestamp\":0}"
        );
        assert_eq!(suffix(Some(&key(4)), Some(&[0, 0, 0])), " SnapshotFooter {\"version\":0}");
        assert_eq!(suffix(Some(&key(5)), Some(&[0, 0, 0, 1, 0])), " KRaftVersion {\"version\":0,\"kRaftVersion\":1}");
        assert_eq!(suffix(Some(&key(8)), None), " controlType: UNKNOWN(8)");

        let entry = crate::format::legacy::tests::entry(5, 0, 0, 0, Some(b"k"), Some(b"a\nb"));
        let b = BatchIter::new(&entry).next().unwrap();
        let row = batch_row(0, &b);
        let line = batch_line(&row);
        assert!(
            line.starts_with("offset: 5 position: 0 NoTimestampType: -1 size: 30 magic: 0 compresscodec: none crc: ")
        );
        assert!(line.ends_with(" isvalid: true"));
        let recs = b.records().unwrap();
        let recs = recs.decode().unwrap();
        assert_eq!(
            record_line(&row, &recs[0], None),
            format!(
                "| offset: 5 NoTimestampType: -1 keySize: 1 valueSize: 3 isValid: true crc: {} key: k payload: a\nb",
                b.stored_crc()
            )
        );
    }

    #[test]
    fn hash_map_order_is_javas_bucket_order() {
        // "BB" and "Aa" share a Java hash (bucket 0, in insertion order); "a" (97) lands in
        // bucket 1, "c" (99) in bucket 3
        assert_eq!(java_hash_map_order(["c", "a", "BB", "Aa"].into_iter()), vec![3, 2, 1, 0]);
        assert_eq!(java_hash_map_order(std::iter::empty()), Vec::<usize>::new());
    }

    #[test]
    fn hash_map_order_follows_compute_if_absent_across_resizes() {
        // 40 segment paths (two resizes), in the order OpenJDK 17's HashMap.forEach gave after
        // computeIfAbsent of each, in order (new keys at the head of their bucket).
        let keys: Vec<String> = (0..40).map(|i| format!("/tmp/d/{:020}.log", i * 7)).collect();
        let java = [
            35, 18, 12, 38, 1, 30, 21, 17, 26, 9, 34, 11, 23, 6, 29, 14, 20, 37, 28, 3, 32, 15, 22, 5, 27, 25, 8, 39,
            0, 13, 4, 16, 36, 24, 10, 33, 31, 19, 2, 7,
        ];
        assert_eq!(java_hash_map_order(keys.iter().map(String::as_str)), java);
    }

    #[test]
    fn sequences_wrap_like_kafka() {
        let rec = NewRecord { timestamp: 0, key: None, value: None, headers: vec![] };
        let spec =
            BatchSpec { producer_id: 7, producer_epoch: 0, base_sequence: i32::MAX - 1, ..BatchSpec::plain(10, 0) };
        let bytes = encode_batch(&spec, &[rec.clone(), rec.clone(), rec]);
        let b = BatchIter::new(&bytes).next().unwrap();
        let row = batch_row(0, &b);
        assert_eq!(row.last_sequence, 0);
        assert_eq!([10, 11, 12].map(|o| record_sequence(&row, o)), [i32::MAX - 1, i32::MAX, 0]);
    }
}
