//! `dump --format kafka`: the lines `kafka-dump-log.sh --deep-iteration --print-data-log`
//! prints (Kafka `DumpLogSegments`, modern field order: `deleteHorizonMs` on v2 batch lines,
//! lower-case codec names), driven by the same `DumpEvent` stream as the table and JSON, so
//! that scripts written against Kafka's tool keep working on klog's output.
//!
//! stdout gets exactly Kafka's line shapes: `Dumping <file>`, `Log starting offset: N`, one batch
//! line per batch, `| offset: ...` per record (with ` key: ` / ` payload: ` for data records and
//! the control type for control records), `Found N invalid bytes at the end of <name>`, index,
//! time-index, txn-index and producer-snapshot entry lines. What Kafka sends to stderr after all
//! files (index mismatches, time-index errors, non-consecutive offsets) goes to stderr here too,
//! in Kafka's words. Where klog deliberately differs:
//! - keys and payloads are decoded as UTF-8 the way Kafka's `StringDecoder` does (invalid bytes
//!   become U+FFFD), but a line feed or carriage return inside them is written as `\n` / `\r`, so
//!   that every record stays on one line;
//! - a time-index entry in the Kafka 2.x form (the offset of the record with the max timestamp
//!   rather than the batch's last offset) is not reported as "not found": klog checks it against
//!   that record;
//! - a batch whose records do not decode, which stops Kafka's tool with a stack trace, is named on
//!   stderr and the dump goes on.
//!
//! Checkpoint files and the epoch view have no dump-log form: they are refused as usage errors.

use crate::commands::dump::{BatchRow, DumpEvent, FileKind};
use crate::error::{Error, IoContext, Result};
use crate::format::control::{self, ControlRecord};
use crate::format::record::Record;
use crate::log::index::{OffsetEntryCheck, TimeEntryCheck};
use std::io::Write;
use std::path::Path;

/// Streams dump events as kafka-dump-log lines.
pub struct DumpLog<'o> {
    out: &'o mut dyn Write,
    err: &'o mut dyn Write,
    /// Lines for stderr, printed after the last file as Kafka does.
    notes: Vec<String>,
    /// The file being dumped and what is tracked per file.
    file: Option<FileState>,
}

struct FileState {
    display: String,
    absolute: String,
    /// Set to `usize::MAX` when a corrupt producer snapshot's entries are to be left out.
    entries_seen: usize,
    last_record_offset: Option<i64>,
    non_consecutive: Vec<(i64, i64)>,
    index_mismatches: Vec<(i64, i64)>,
    time_mismatches: Vec<(i64, i64)>,
    time_out_of_order: Vec<(i64, i64)>,
    time_not_found: Vec<(i64, i64)>,
}

fn absolute(path: &Path) -> String {
    std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf()).display().to_string()
}

impl<'o> DumpLog<'o> {
    pub fn new(out: &'o mut dyn Write, err: &'o mut dyn Write) -> Self {
        DumpLog { out, err, notes: Vec::new(), file: None }
    }

    fn line(&mut self, text: &str) -> Result<()> {
        writeln!(self.out, "{text}").at("<stdout>", "write")
    }

    /// Start a new file: close the previous one and print `Dumping <file>`.
    fn start_file(&mut self, path: &Path) -> Result<()> {
        self.end_file();
        self.file = Some(FileState {
            display: path.display().to_string(),
            absolute: absolute(path),
            entries_seen: 0,
            last_record_offset: None,
            non_consecutive: Vec::new(),
            index_mismatches: Vec::new(),
            time_mismatches: Vec::new(),
            time_out_of_order: Vec::new(),
            time_not_found: Vec::new(),
        });
        self.line(&format!("Dumping {}", path.display()))
    }

    /// Queue what Kafka prints to stderr for the file just finished.
    fn end_file(&mut self) {
        let Some(f) = self.file.take() else { return };
        if !f.index_mismatches.is_empty() {
            self.notes.push(format!("Mismatches in :{}", f.absolute));
            // Kafka prepends to a list: newest first.
            for (index_offset, log_offset) in f.index_mismatches.iter().rev() {
                self.notes.push(format!("  Index offset: {index_offset}, log offset: {log_offset}"));
            }
        }
        if !f.time_mismatches.is_empty() {
            self.notes.push(format!("Found timestamp mismatch in :{}", f.absolute));
            for (index_ts, log_ts) in &f.time_mismatches {
                self.notes.push(format!("  Index timestamp: {index_ts}, log timestamp: {log_ts}"));
            }
        }
        if !f.time_out_of_order.is_empty() {
            self.notes.push(format!("Found out of order timestamp in :{}", f.absolute));
            for (index_ts, previous) in &f.time_out_of_order {
                self.notes.push(format!("  Index timestamp: {index_ts}, Previously indexed timestamp: {previous}"));
            }
        }
        if !f.time_not_found.is_empty() {
            self.notes.push("The following indexed offsets are not found in the log.".into());
            for (indexed, found) in &f.time_not_found {
                self.notes.push(format!("Indexed offset: {indexed}, found log offset: {found}"));
            }
        }
        if !f.non_consecutive.is_empty() {
            self.notes.push(format!("Non-consecutive offsets in {}", f.absolute));
            for (first, second) in f.non_consecutive.iter().rev() {
                self.notes.push(format!("  {first} is followed by {second}"));
            }
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
            DumpEvent::Rendered(bytes) => self.out.write_all(bytes).at("<stdout>", "write"),
            DumpEvent::Problem { path, what, .. } => {
                writeln!(self.err, "{}: {what}", path.display()).at("<stderr>", "write")
            }
            DumpEvent::Segment { path, base_offset } => {
                self.start_file(path)?;
                self.line(&format!("Log starting offset: {base_offset}"))
            }
            DumpEvent::File { path, kind } => match kind {
                FileKind::EpochCheckpoint | FileKind::OffsetCheckpoint => Err(Error::layout(
                    path,
                    "kafka-dump-log does not read checkpoint files; dump it as a table or with --json",
                )),
                FileKind::OffsetIndex { entry_count: 0 } => {
                    self.start_file(path)?;
                    self.line(&format!("{} is empty.", path.display()))
                }
                FileKind::KraftSnapshot { end_offset, epoch } => {
                    self.start_file(path)?;
                    match (end_offset, epoch) {
                        (Some(o), Some(e)) => self.line(&format!("Snapshot end offset: {o}, epoch: {e}")),
                        _ => self.line("KRaft bootstrap snapshot"),
                    }
                }
                _ => self.start_file(path),
            },
            DumpEvent::Batch(b) => {
                let text = batch_line(b);
                self.line(&text)
            }
            DumpEvent::Record(b, r) => {
                if let Some(f) = self.file.as_mut() {
                    if let Some(last) = f.last_record_offset {
                        if r.offset != last + 1 {
                            f.non_consecutive.push((last, r.offset));
                        }
                    }
                    f.last_record_offset = Some(r.offset);
                }
                let text = record_line(b, r);
                self.line(&text)
            }
            DumpEvent::Undecodable(b, why) => {
                let file = self.file.as_ref().map_or(String::new(), |f| f.display.clone());
                self.notes.push(format!(
                    "klog: {file}: the records of the batch at position {} (offsets {}..={}) do not decode: {why}",
                    b.position, b.base_offset, b.last_offset
                ));
                Ok(())
            }
            DumpEvent::Trailing { path, len, .. } => {
                let name = path.file_name().map_or_else(|| path.display().to_string(), |n| n.to_string_lossy().into());
                self.line(&format!("Found {len} invalid bytes at the end of {name}"))
            }
            DumpEvent::IndexEntry { offset, position, check } => {
                if let (Some(f), OffsetEntryCheck::Mismatch { log_offset, .. }) = (self.file.as_mut(), check) {
                    f.index_mismatches.push((offset, log_offset.unwrap_or(-1)));
                }
                self.count_entry();
                self.line(&format!("offset: {offset} position: {position}"))
            }
            DumpEvent::TimeIndexEntry { timestamp, offset, check } => {
                if let Some(f) = self.file.as_mut() {
                    match check {
                        TimeEntryCheck::TimestampMismatch { log_timestamp } => {
                            f.time_mismatches.push((timestamp, log_timestamp))
                        }
                        TimeEntryCheck::OutOfOrder { previous_timestamp } => {
                            f.time_out_of_order.push((timestamp, previous_timestamp))
                        }
                        TimeEntryCheck::NotFound { found_log_offset } => {
                            f.time_not_found.push((offset, found_log_offset.unwrap_or(-1)))
                        }
                        _ => {}
                    }
                }
                self.count_entry();
                self.line(&format!("timestamp: {timestamp} offset: {offset}"))
            }
            DumpEvent::TxnIndexEntry(t) => self.line(&format!(
                "version: {} producerId: {} firstOffset: {} lastOffset: {} lastStableOffset: {}",
                t.version, t.producer_id, t.first_offset, t.last_offset, t.last_stable_offset
            )),
            DumpEvent::ProducerSnapshot(s) => {
                if !s.crc_valid() {
                    // Kafka's CorruptSnapshotException message; it then prints no entries.
                    self.notes.push(format!(
                        "Snapshot is corrupt (CRC is no longer valid). Stored crc: {}. Computed crc: {}",
                        s.crc, s.computed_crc
                    ));
                    if let Some(f) = self.file.as_mut() {
                        f.entries_seen = usize::MAX;
                    }
                }
                Ok(())
            }
            DumpEvent::ProducerEntry(e) => {
                if self.file.as_ref().is_some_and(|f| f.entries_seen == usize::MAX) {
                    return Ok(());
                }
                let txn = if e.current_txn_first_offset >= 0 {
                    format!("OptionalLong[{}]", e.current_txn_first_offset)
                } else {
                    "OptionalLong.empty".to_string()
                };
                let mut text = format!(
                    "producerId: {} producerEpoch: {} coordinatorEpoch: {} currentTxnFirstOffset: {txn} lastTimestamp: {} ",
                    e.producer_id, e.producer_epoch, e.coordinator_epoch, e.timestamp
                );
                if e.last_offset >= 0 {
                    text.push_str(&format!(
                        "firstSequence: {} lastSequence: {} lastOffset: {} offsetDelta: {} timestamp: {}",
                        e.first_sequence(),
                        e.last_sequence,
                        e.last_offset,
                        e.offset_delta,
                        e.timestamp
                    ));
                }
                self.line(&text)
            }
            DumpEvent::EpochEntry { .. } | DumpEvent::OffsetEntry { .. } => Ok(()),
        }
    }

    fn count_entry(&mut self) {
        if let Some(f) = self.file.as_mut() {
            f.entries_seen = f.entries_seen.saturating_add(1);
        }
    }

    /// Print what Kafka prints to stderr after the last file.
    pub fn finish(mut self) -> Result<()> {
        self.end_file();
        self.out.flush().at("<stdout>", "write")?;
        for n in &self.notes {
            writeln!(self.err, "{n}").at("<stderr>", "write")?;
        }
        Ok(())
    }
}

/// `printBatchLevel`: the v2 form, or the legacy `offset: ...` form.
pub fn batch_line(b: &BatchRow) -> String {
    let head = if b.magic >= 2 {
        format!(
            "baseOffset: {} lastOffset: {} count: {} baseSequence: {} lastSequence: {} producerId: {} producerEpoch: {} \
             partitionLeaderEpoch: {} isTransactional: {} isControl: {} deleteHorizonMs: {}",
            b.base_offset,
            b.last_offset,
            b.record_count,
            b.base_sequence,
            b.last_sequence,
            b.producer_id,
            b.producer_epoch,
            b.partition_leader_epoch,
            b.is_transactional,
            b.is_control,
            b.delete_horizon_ms.map_or("OptionalLong.empty".to_string(), |d| format!("OptionalLong[{d}]")),
        )
    } else {
        format!("offset: {}", b.last_offset)
    };
    format!(
        "{head} position: {} {}: {} size: {} magic: {} compresscodec: {} crc: {} isvalid: {}",
        b.position, b.timestamp_type, b.max_timestamp, b.size_bytes, b.magic, b.compression, b.crc, b.crc_valid
    )
}

/// Kafka's `StringDecoder` (lossy UTF-8), with line breaks escaped so a record stays on one line.
fn decoded_string(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).replace('\n', "\\n").replace('\r', "\\r")
}

/// A deep-iteration record line with keys and payloads (`--print-data-log`).
pub fn record_line(b: &BatchRow, r: &Record<'_>) -> String {
    let size = |v: Option<&[u8]>| v.map_or(-1, |v| v.len() as i64);
    let mut line = format!(
        "| offset: {} {}: {} keySize: {} valueSize: {}",
        r.offset,
        b.timestamp_type,
        r.timestamp,
        size(r.key),
        size(r.value)
    );
    if b.magic >= 2 {
        let keys: Vec<String> = r.headers.iter().map(|h| String::from_utf8_lossy(h.key).into_owned()).collect();
        line.push_str(&format!(" sequence: {} headerKeys: [{}]", record_sequence(b, r.offset), keys.join(",")));
    }
    if let Some(l) = r.legacy {
        // Kafka's format string has the stray closing brace.
        line.push_str(&format!(" isValid: {} crc: {}}}", l.crc_valid, l.crc));
    }
    if b.is_control {
        line.push_str(&control_suffix(r.key, r.value));
        return line;
    }
    if let Some(k) = r.key {
        line.push_str(&format!(" key: {}", decoded_string(k)));
    }
    if let Some(v) = r.value {
        line.push_str(&format!(" payload: {}", decoded_string(v)));
    }
    line
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
fn control_suffix(key: Option<&[u8]>, value: Option<&[u8]>) -> String {
    let c = match control::decode(key, value) {
        Ok(c) => c,
        Err(_) => {
            let id = control::decode_type_id(key).map_or("?".into(), |t| t.to_string());
            return format!(" controlType: INVALID({id})");
        }
    };
    match &c {
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
        // LEADER_CHANGE (and unknown types) fall to Kafka's default case.
        ControlRecord::LeaderChange { .. } | ControlRecord::Unknown { .. } => {
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
            record_line(&row, &recs[0]),
            "| offset: 0 CreateTime: 1700000000000 keySize: -1 valueSize: 5 sequence: -1 headerKeys: [] payload: hello"
        );
    }

    #[test]
    fn control_and_legacy_records_print_their_kafka_suffixes() {
        let key = |t: i16| [0i16.to_be_bytes(), t.to_be_bytes()].concat();
        let marker = [&0i16.to_be_bytes()[..], &5i32.to_be_bytes()].concat();
        assert_eq!(control_suffix(Some(&key(1)), Some(&marker)), " endTxnMarker: COMMIT coordinatorEpoch: 5");
        assert_eq!(control_suffix(Some(&key(0)), Some(&marker)), " endTxnMarker: ABORT coordinatorEpoch: 5");
        assert_eq!(control_suffix(Some(&key(2)), Some(&[0, 0, 0, 0, 0, 1, 1, 1, 0])), " controlType: LEADER_CHANGE(2)");
        assert_eq!(
            control_suffix(Some(&key(3)), Some(&[0u8; 11])),
            " SnapshotHeader {\"version\":0,\"lastContainedLogTimestamp\":0}"
        );
        assert_eq!(control_suffix(Some(&key(4)), Some(&[0, 0, 0])), " SnapshotFooter {\"version\":0}");
        assert_eq!(
            control_suffix(Some(&key(5)), Some(&[0, 0, 0, 1, 0])),
            " KRaftVersion {\"version\":0,\"kRaftVersion\":1}"
        );
        assert_eq!(control_suffix(Some(&key(8)), None), " controlType: UNKNOWN(8)");

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
            record_line(&row, &recs[0]),
            format!(
                "| offset: 5 NoTimestampType: -1 keySize: 1 valueSize: 3 isValid: true crc: {}}} key: k payload: a\\nb",
                b.stored_crc()
            )
        );
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
