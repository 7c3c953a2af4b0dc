//! `klog dump`: a replica's state, epoch cache, batches and records, an overview of every
//! partition of a log dir, or one Kafka file (`.log`, `.index` and `.timeindex` checked against
//! their `.log`, `.txnindex`, producer `.snapshot`, KRaft snapshot `.checkpoint`, checkpoints),
//! as a stream of events for a renderer (table, JSON lines, or kafka-dump-log lines).
//! Streaming keeps memory constant whatever the log size. Never writes.

use super::dump_filter::{self, RecordFilter};
use crate::error::{Error, Result};
use crate::format::batch::{BatchIter, RawBatch, ScanStop};
use crate::format::compression::Compression;
use crate::format::control::{self, ControlRecord};
use crate::format::coordinator::{self, Coordinator, CoordinatorRead};
use crate::format::metadata::{self, MetadataRecord};
use crate::format::producer_snapshot::{self, ProducerEntry, ProducerSnapshot};
use crate::format::record::Record;
use crate::format::schema::SchemaError;
use crate::format::txn_index::{self, AbortedTxn};
use crate::log::checkpoint;
use crate::log::index::{self, OffsetEntryCheck, TimeEntryCheck};
use crate::log::names;
use crate::log::segment::{map_file, FileBytes};
use crate::log::verify::{self, epoch_rows, EpochRow, StampedEpochs};
use crate::replica::form::Form;
use crate::replica::{list_partition_dirs, read_quorum_state, LogDirFiles, QuorumState, Replica, QUORUM_STATE};
use crate::replica::{summarize, ReplicaSummary};
use crate::tiered::local_tiered_storage;
use std::path::Path;

/// The batch fields every renderer needs.
#[derive(Debug, Clone)]
pub struct BatchRow {
    pub segment_base_offset: i64,
    pub position: u64,
    pub size_bytes: u64,
    pub magic: i8,
    /// The first offset (for a legacy compressed wrapper, its first inner message's).
    pub base_offset: i64,
    pub last_offset: i64,
    pub partition_leader_epoch: i32,
    /// Records in the batch: the v2 count field; 1 for a legacy message, the inner count for a
    /// legacy wrapper that decodes.
    pub record_count: i32,
    pub crc: u32,
    pub crc_valid: bool,
    pub defect: Option<String>,
    pub compression: &'static str,
    pub timestamp_type: &'static str,
    pub max_timestamp: i64,
    pub producer_id: i64,
    pub producer_epoch: i16,
    pub base_sequence: i32,
    pub last_sequence: i32,
    pub is_transactional: bool,
    pub is_control: bool,
    pub delete_horizon_ms: Option<i64>,
}

pub fn batch_row(segment_base_offset: i64, b: &RawBatch<'_>) -> BatchRow {
    let header = b.header();
    let defect = b.verify().err().map(|d| d.what);
    let legacy_compressed = header.is_none() && b.compression().is_some_and(|c| c != Compression::None);
    let (base_offset, record_count) = match header {
        Some(h) => (h.base_offset, h.records_count),
        None if legacy_compressed => b
            .records()
            .ok()
            .and_then(|d| d.decode().ok().map(|r| (r.first().map_or(b.base_offset(), |r| r.offset), r.len() as i32)))
            .unwrap_or((b.base_offset(), 1)),
        None => (b.base_offset(), 1),
    };
    BatchRow {
        segment_base_offset,
        position: b.position,
        size_bytes: b.size_bytes() as u64,
        magic: b.magic(),
        base_offset,
        last_offset: b.last_offset(),
        partition_leader_epoch: b.partition_leader_epoch(),
        record_count,
        crc: b.stored_crc(),
        crc_valid: defect.is_none(),
        defect,
        compression: b.compression().map_or("unknown", |c| c.name()),
        timestamp_type: b.timestamp_type(),
        max_timestamp: b.max_timestamp(),
        producer_id: header.map_or(-1, |h| h.producer_id),
        producer_epoch: header.map_or(-1, |h| h.producer_epoch),
        base_sequence: header.map_or(-1, |h| h.base_sequence),
        last_sequence: header.map_or(-1, |h| h.last_sequence()),
        is_transactional: header.is_some_and(|h| h.is_transactional()),
        is_control: header.is_some_and(|h| h.is_control()),
        delete_horizon_ms: header.filter(|h| h.has_delete_horizon()).map(|h| h.base_timestamp),
    }
}

/// What a control batch's record says, decoded by the command once so that renderers never
/// decode: the record, or why its key or value does not decode (with the type id when the key
/// gives one).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ControlRead {
    Decoded(ControlRecord),
    Invalid { type_id: Option<i16>, error: String },
}

/// Decode a control record from its key and value (`ControlRecordType.parse` and the value's
/// schema), keeping the failure as data.
pub fn read_control(key: Option<&[u8]>, value: Option<&[u8]>) -> ControlRead {
    match control::decode(key, value) {
        Ok(c) => ControlRead::Decoded(c),
        Err(e) => ControlRead::Invalid { type_id: control::decode_type_id(key).ok(), error: e.to_string() },
    }
}

/// Which of Kafka's internal-topic decoders reads a file's data records: chosen by name, as
/// `kafka-dump-log.sh` is told by `--cluster-metadata-decoder`, `--offsets-decoder` and
/// `--transaction-log-decoder`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RecordDecoder {
    /// `__cluster_metadata-*` segments and KRaft snapshots (`.checkpoint`).
    Metadata,
    /// `__consumer_offsets-*` or `__transaction_state-*` segments.
    Coordinator(Coordinator),
    /// `__remote_log_metadata-*` segments (tiered storage: `RemoteLogMetadataSerde`).
    RemoteLogMetadata,
}

impl RecordDecoder {
    /// The decoder for a file of batches, from its name and its partition dir's name.
    pub fn for_file(path: &Path) -> Option<RecordDecoder> {
        let name = path.file_name()?.to_str()?;
        if name.ends_with(".checkpoint") {
            return Some(RecordDecoder::Metadata);
        }
        let dir = path.parent()?.file_name()?.to_str()?;
        match names::parse_topic_partition(dir)?.0.as_str() {
            names::METADATA_TOPIC => Some(RecordDecoder::Metadata),
            "__consumer_offsets" => Some(RecordDecoder::Coordinator(Coordinator::Group)),
            "__transaction_state" => Some(RecordDecoder::Coordinator(Coordinator::Transaction)),
            crate::tiered::remote_log_metadata::REMOTE_LOG_METADATA_TOPIC => Some(RecordDecoder::RemoteLogMetadata),
            _ => None,
        }
    }

    /// Decode a data record's key and value.
    pub fn decode<'a>(self, key: Option<&'a [u8]>, value: Option<&'a [u8]>) -> InternalRecord<'a> {
        match self {
            RecordDecoder::Metadata => InternalRecord::Metadata(match value {
                Some(v) => metadata::decode(v),
                None => Err(SchemaError::new(0, "a metadata record needs a value (it is null)")
                    .kafka("Error while reading frame version")),
            }),
            RecordDecoder::Coordinator(c) => InternalRecord::Coordinator(coordinator::decode(c, key, value)),
            RecordDecoder::RemoteLogMetadata => InternalRecord::RemoteLogMetadata(match value {
                Some(v) => crate::tiered::remote_log_metadata::decode(v),
                None => Err(SchemaError::new(0, "a remote log metadata record needs a value (it is null)")),
            }),
        }
    }
}

/// A data record of an internal topic, decoded by its schema (by the command, once, so that
/// renderers never decode).
#[derive(Debug, Clone, PartialEq)]
pub enum InternalRecord<'a> {
    Metadata(std::result::Result<MetadataRecord<'a>, SchemaError>),
    Coordinator(CoordinatorRead<'a>),
    /// A record of `__remote_log_metadata`, by its schema (the same frame as a KRaft record).
    RemoteLogMetadata(std::result::Result<MetadataRecord<'a>, SchemaError>),
}

/// Which kind of single file is being dumped (a `.log` is announced by a `Segment` event).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FileKind {
    /// `.index`, with the entry count its length gives (`length / 8`).
    OffsetIndex {
        entry_count: usize,
    },
    TimeIndex,
    TxnIndex,
    ProducerSnapshot,
    /// A KRaft snapshot (`<offset>-<epoch>.checkpoint`) or `bootstrap.checkpoint`: batches.
    KraftSnapshot {
        end_offset: Option<i64>,
        epoch: Option<i32>,
    },
    EpochCheckpoint,
    OffsetCheckpoint,
    /// KRaft's `quorum-state` (JSON).
    QuorumState,
    /// A file `DumpLogSegments` does not read (its suffix after the last dot is not one it
    /// knows, or there is no dot): announced, not read. Only with
    /// [`DumpRequest::dump_log_segments_files`].
    Ignored,
}

/// What Kafka's `DumpLogSegments.dumpTimeIndex` (4.4) reports about one time-index entry. It
/// looks the entry's offset up in the segment's `.index`, walks the batches from there to the
/// first whose last offset reaches it, and calls the entry "not found" unless that batch ends
/// exactly at it (so an entry of a Kafka 3.6 or earlier leader, which names the record holding the max timestamp, is
/// "not found" to the 4.x tool); for a batch that ends at it, it compares the records' max
/// timestamp with the entry's, and the entry's timestamp with the previous entry's.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct DumpToolTimeCheck {
    /// `recordShallowOffsetNotFound`: the last offset of the batch found (−1: none).
    pub not_found: Option<i64>,
    /// `recordMismatchTimeIndex`: the records' max timestamp.
    pub log_timestamp: Option<i64>,
    /// `recordOutOfOrderIndexTimestamp`: the previous entry's timestamp, not below this one's.
    pub previous_timestamp: Option<i64>,
}

/// [`DumpToolTimeCheck`] for every entry, with the segment's `.index` bytes (empty when absent).
fn dump_tool_time_checks(
    entries: &[index::TimestampOffset],
    offset_index: &[u8],
    base_offset: i64,
    log: &[u8],
) -> Vec<DumpToolTimeCheck> {
    // RecordBatch.NO_TIMESTAMP
    let mut previous = -1i64;
    let mut checks = Vec::with_capacity(entries.len());
    for e in entries {
        let mut c = DumpToolTimeCheck::default();
        let position = index::lookup_offset(offset_index, base_offset, e.offset).position as usize;
        let found = (position <= log.len())
            .then(|| BatchIter::starting_at(log, position).find(|b| b.last_offset() >= e.offset))
            .flatten();
        match found {
            None => c.not_found = Some(-1),
            Some(b) if b.last_offset() != e.offset => c.not_found = Some(b.last_offset()),
            Some(b) => {
                let max_timestamp = b
                    .records()
                    .ok()
                    .and_then(|d| d.decode().ok().map(|rs| rs.iter().fold(-1, |m, r| m.max(r.timestamp))))
                    .unwrap_or_else(|| b.max_timestamp());
                if max_timestamp != e.timestamp {
                    c.log_timestamp = Some(max_timestamp);
                }
                if previous >= e.timestamp {
                    c.previous_timestamp = Some(previous);
                }
            }
        }
        previous = e.timestamp;
        checks.push(c);
    }
    checks
}

/// One partition of a log dir, for the overview `dump DATA_DIR` prints.
#[derive(Debug, Clone)]
pub struct PartitionSummary {
    pub name: String,
    pub segment_count: usize,
    /// Bytes of all `.log` files.
    pub size_bytes: u64,
    pub log_start_offset: i64,
    pub log_end_offset: i64,
    /// From the log dir's checkpoints; `None` when the partition is not listed there.
    pub high_watermark: Option<i64>,
    pub recovery_point: Option<i64>,
    pub latest_leader_epoch: Option<i32>,
    /// `.kafka_cleanshutdown` in the log dir.
    pub clean_shutdown: bool,
    /// Why the partition could not be read (the other fields are then zero).
    pub error: Option<String>,
    /// False for a partition only the checkpoints list.
    pub on_disk: bool,
}

/// What `dump` emits, in order.
pub enum DumpEvent<'a> {
    Replica(&'a ReplicaSummary),
    Epochs(&'a [EpochRow]),
    /// A single file other than a `.log` is about to be dumped.
    File {
        path: &'a Path,
        kind: FileKind,
    },
    Segment {
        path: &'a Path,
        base_offset: i64,
    },
    Batch(&'a BatchRow),
    /// A record, with what it says when its batch is a control batch (decoded here).
    Record(&'a BatchRow, &'a Record<'a>, Option<&'a ControlRead>),
    /// A data record of an internal topic, with what its schema reads in it.
    Decoded(&'a BatchRow, &'a Record<'a>, &'a InternalRecord<'a>),
    /// The records of a batch could not be decoded.
    Undecodable(&'a BatchRow, &'a str),
    /// Bytes at the end of a file that do not frame as a batch (or a whole entry).
    Trailing {
        path: &'a Path,
        position: u64,
        len: u64,
        what: &'a str,
    },
    IndexEntry {
        offset: i64,
        position: u64,
        check: OffsetEntryCheck,
    },
    TimeIndexEntry {
        timestamp: i64,
        offset: i64,
        check: TimeEntryCheck,
        /// The same entry by `DumpLogSegments`' own rule, for the kafka-dump-log lines.
        dump_tool: DumpToolTimeCheck,
    },
    EpochEntry {
        leader_epoch: i32,
        start_offset: i64,
    },
    OffsetEntry {
        topic: &'a str,
        partition: i32,
        offset: i64,
    },
    TxnIndexEntry(&'a AbortedTxn),
    /// What a `quorum-state` file says.
    QuorumState(&'a QuorumState),
    /// The header of a producer snapshot, before its entries.
    ProducerSnapshot(&'a ProducerSnapshot),
    ProducerEntry(&'a ProducerEntry),
    PartitionSummary(&'a PartitionSummary),
    /// After a log-dir overview: how many partitions the dir holds and how many only its
    /// checkpoints list, shown or not (`--limit` may have shown fewer).
    LogDirTotals {
        on_disk_count: usize,
        only_in_checkpoints_count: usize,
    },
    /// Events already rendered by [`DumpRequest::render`], in order, with what a renderer that
    /// keeps state from batch to batch needs to carry it over the chunk.
    Rendered(&'a RenderedChunk),
    /// A file that could not be read (a malformed checkpoint, state or properties file); the
    /// dump goes on without the values it would have given.
    Problem {
        path: &'a Path,
        /// Byte position in the file (0 when the problem is the file itself).
        position: u64,
        /// The 1-based line, for a text file.
        line: Option<usize>,
        what: &'a str,
    },
}

pub struct DumpRequest<'a> {
    pub path: &'a Path,
    pub partition: Option<&'a str>,
    pub epochs: bool,
    pub from: Option<i64>,
    pub limit: Option<u64>,
    pub batches_only: bool,
    /// A log dir holding several partitions, named without `--partition`: true emits one
    /// `PartitionSummary` per partition; false dumps every partition in full, one after another.
    pub log_dir_overview: bool,
    /// Choose a single file's reader as `DumpLogSegments` does, by the suffix after the last
    /// dot, and announce a file it does not read as [`FileKind::Ignored`] instead of refusing
    /// it or reading it another way (checkpoints, `partition.metadata`, `.deleted` files).
    pub dump_log_segments_files: bool,
    /// A renderer that turns events into bytes on any thread. Given (and with no `--limit`),
    /// a segment's batches are rendered in chunks on both cores and reach the sink in order as
    /// [`DumpEvent::Rendered`]; otherwise every event goes to the sink one by one.
    pub render: Option<&'a Render>,
    /// Which records to show (`--since`, `--to`, `--key`, ...): none set shows every one.
    pub filter: RecordFilter,
    /// Dump every partition dir of this topic in the log dir, one after another.
    pub topic: Option<&'a str>,
}

/// Turns one event into bytes appended to the buffer (a stateless renderer, such as JSON lines,
/// or one whose state from batch to batch is only what [`RenderedChunk`] carries). Only the
/// events of a segment's batches are rendered so: `Batch`, `Record` and `Undecodable`.
pub type Render = dyn Fn(DumpEvent<'_>, &mut Vec<u8>) -> Result<()> + Sync;

/// The offsets of the records a chunk holds, in order, for a renderer that follows them from
/// record to record (kafka-dump-log's "Non-consecutive offsets"): replaying [`RecordRun::first`]
/// and then [`RecordRun::steps`] after the previous chunk's last offset gives exactly the steps
/// a sequential pass sees.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RecordRun {
    /// The first record's offset; `None` when the chunk holds no record.
    pub first: Option<i64>,
    /// The last record's offset (meaningless without `first`).
    pub last: i64,
    /// Each place inside the chunk where a record's offset is not the previous one's plus one:
    /// (previous offset, offset).
    pub steps: Vec<(i64, i64)>,
}

impl RecordRun {
    fn observe(&mut self, offset: i64) {
        match self.first {
            None => self.first = Some(offset),
            Some(_) if offset != self.last.wrapping_add(1) => self.steps.push((self.last, offset)),
            Some(_) => {}
        }
        self.last = offset;
    }

    fn clear(&mut self) {
        self.first = None;
        self.steps.clear();
    }
}

/// A chunk of a segment's batches, rendered by [`DumpRequest::render`] on some thread.
#[derive(Debug, Default)]
pub struct RenderedChunk {
    pub bytes: Vec<u8>,
    /// The byte position in the file just past the chunk's last batch.
    pub end: u64,
    pub records: RecordRun,
    /// The chunk's `Undecodable` events (also given to the renderer, in place), in order.
    pub undecodable: Vec<(BatchRow, String)>,
}

/// Bytes of a segment rendered per chunk: large enough that handing a chunk to the other core
/// costs nothing, small enough that the chunks in flight ([`crate::work_share::SLOTS`]) and their
/// output keep the dump's peak RSS where it was with one thread.
const RENDER_CHUNK_BYTES: usize = 1 << 20;

type Sink<'s> = dyn FnMut(DumpEvent<'_>) -> Result<()> + 's;

pub fn run(req: &DumpRequest<'_>, sink: &mut Sink<'_>) -> Result<()> {
    if let Some(topic) = req.topic {
        return dump_topic(req, topic, sink);
    }
    match crate::replica::form::form_of(req.path, req.partition)? {
        Form::File => dump_file(req, sink),
        Form::DataDir { .. } => dump_log_dir(req, &list_partition_dirs(req.path)?, sink),
        Form::Partition | Form::LogDir => dump_replica(req, req.path, req.partition, None, sink),
    }
}

fn dump_replica(
    req: &DumpRequest<'_>,
    path: &Path,
    partition: Option<&str>,
    files: Option<&LogDirFiles>,
    sink: &mut Sink<'_>,
) -> Result<()> {
    let replica = Replica::open_with(path, partition, files)?;
    let summary = summarize(&replica);
    sink(DumpEvent::Replica(&summary))?;
    for p in replica.problems() {
        sink(DumpEvent::Problem { path: &p.path, position: p.position, line: p.line, what: &p.what })?;
    }
    if req.epochs {
        let mut stamped = StampedEpochs::default();
        for seg in replica.log().segments() {
            let bytes = seg.read_log()?;
            for b in BatchIter::new(&bytes) {
                stamped.observe(&b);
            }
        }
        let local_start = replica.log_start_offset_below_local().map(|_| replica.log_start_offset());
        let rows = epoch_rows(replica.log().epoch_cache(), &stamped, replica.log_end_offset(), local_start);
        return sink(DumpEvent::Epochs(&rows));
    }
    let from = req.from.unwrap_or(i64::MIN);
    // `--since`: start at the first offset at or after the time, found with the time index
    // (none: no record is that late, nothing to read).
    let seek = req.filter.since.map(|t| dump_filter::seek_since(replica.log(), t)).transpose()?;
    let from = seek.flatten().map_or(from, |o| from.max(o));
    let mut budget = req.limit.unwrap_or(u64::MAX);
    let first = replica.log().segment_for(from).unwrap_or(0);
    for seg in &replica.log().segments()[first..] {
        if budget == 0 || req.filter.past_end(seg.base_offset) || seek == Some(None) {
            break;
        }
        let start = if from != i64::MIN {
            replica
                .log()
                .locate(from)?
                .filter(|l| replica.log().segments()[l.segment] == *seg)
                .map_or(0, |l| l.position)
        } else {
            0
        };
        let path = seg.log_path();
        sink(DumpEvent::Segment { path: &path, base_offset: seg.base_offset })?;
        let bytes = seg.read_log()?;
        dump_batches(
            &path,
            seg.base_offset,
            &bytes,
            start as usize,
            from,
            req.batches_only,
            &req.filter,
            &mut budget,
            req.render,
            sink,
        )?;
    }
    Ok(())
}

impl PartitionSummary {
    /// A partition's row with what the log dir's files say of it (checkpoints, clean shutdown)
    /// and nothing read from its own dir yet.
    fn listed(files: &LogDirFiles, name: String) -> PartitionSummary {
        let find = |entries: &crate::replica::OffsetCheckpoint| entries.get(&name).map(|v| v.offset);
        PartitionSummary {
            high_watermark: find(&files.high_watermarks),
            recovery_point: find(&files.recovery_points),
            segment_count: 0,
            size_bytes: 0,
            log_start_offset: 0,
            log_end_offset: 0,
            latest_leader_epoch: None,
            clean_shutdown: files.clean_shutdown(),
            error: None,
            on_disk: true,
            name,
        }
    }
}

/// The overview row of partition `name` on disk (an error in the row when it does not open).
fn overview_row(files: &LogDirFiles, name: &str) -> Result<PartitionSummary> {
    let mut row = PartitionSummary::listed(files, name.to_string());
    match Replica::open_in(files, name) {
        Ok(replica) => {
            row.segment_count = replica.log().segments().len();
            for seg in replica.log().segments() {
                row.size_bytes += seg.log_size()?;
            }
            row.log_start_offset = replica.log_start_offset();
            row.log_end_offset = replica.log_end_offset();
            row.latest_leader_epoch = replica.log().epoch_cache().latest_epoch();
        }
        Err(e) => row.error = Some(e.to_string()),
    }
    Ok(row)
}

/// A log dir with several partitions: an overview row per partition, or every partition in full.
fn dump_log_dir(req: &DumpRequest<'_>, dirs: &[std::path::PathBuf], sink: &mut Sink<'_>) -> Result<()> {
    let names: Vec<String> =
        dirs.iter().filter_map(|d| d.file_name().map(|n| n.to_string_lossy().into_owned())).collect();
    // The log dir's own files are read once, not once per partition.
    let files = LogDirFiles::read_tolerant(req.path)?;
    if req.log_dir_overview && (req.filter.selects_records() || req.filter.to.is_some()) {
        return Err(dump_filter::needs_partition(req.path));
    }
    if !req.log_dir_overview {
        for name in &names {
            dump_replica(req, req.path, Some(name), Some(&files), sink)?;
        }
        return Ok(());
    }
    // A log-dir file that does not read (a checkpoint, `meta.properties` — a FIFO or a symlink
    // loop there too —, klog's state) is shown as a problem; the overview goes on without it.
    let (hw, rp) = (&files.high_watermarks, &files.recovery_points);
    for p in &files.problems {
        sink(DumpEvent::Problem { path: &p.path, position: p.position, line: p.line, what: &p.what })?;
    }
    let limit = usize::try_from(req.limit.unwrap_or(u64::MAX)).unwrap_or(usize::MAX);
    for name in names.iter().take(limit) {
        sink(DumpEvent::PartitionSummary(&overview_row(&files, name)?))?;
    }
    // Partitions the checkpoints list that are not on disk: Kafka leaves such entries after a
    // deletion or a move to another log dir.
    let on_disk: std::collections::HashSet<&str> = names.iter().map(String::as_str).collect();
    let mut missing: Vec<(String, i32)> = hw
        .entries()
        .iter()
        .chain(rp.entries())
        .filter(|(t, p)| !on_disk.contains(format!("{t}-{p}").as_str()))
        .cloned()
        .collect();
    missing.sort();
    missing.dedup();
    let only_in_checkpoints_count = missing.len();
    for (topic, partition) in missing.into_iter().take(limit.saturating_sub(names.len())) {
        let mut row = PartitionSummary::listed(&files, format!("{topic}-{partition}"));
        row.error = Some("not on disk: only the checkpoints list it (deleted or moved)".into());
        row.on_disk = false;
        sink(DumpEvent::PartitionSummary(&row))?;
    }
    sink(DumpEvent::LogDirTotals { on_disk_count: names.len(), only_in_checkpoints_count })
}

/// Emit the batches (and records) of one file of batches, from byte `start`.
/// The events of one batch (and, unless `batches_only`, its records from `from` on), at most
/// `budget` items.
#[allow(clippy::too_many_arguments)]
fn batch_events(
    segment_base_offset: i64,
    decoder: Option<RecordDecoder>,
    batch: &RawBatch<'_>,
    from: i64,
    batches_only: bool,
    filter: &RecordFilter,
    budget: &mut u64,
    emit: &mut dyn FnMut(DumpEvent<'_>) -> Result<()>,
) -> Result<()> {
    let row = batch_row(segment_base_offset, batch);
    if batches_only {
        emit(DumpEvent::Batch(&row))?;
        *budget = budget.saturating_sub(1);
        return Ok(());
    }
    match batch.records() {
        Ok(decoded) => {
            // The records that decode come out before the one that does not, as Kafka's
            // iterator hands them out before it throws.
            let (records, error) = decoded.decode_prefix();
            let shown = |r: &&Record<'_>| r.offset >= from && filter.matches(r);
            // A batch none of whose records a filter shows is not shown either.
            if error.is_none() && filter.selects_records() && !records.iter().any(|r| shown(&r)) {
                return Ok(());
            }
            emit(DumpEvent::Batch(&row))?;
            for r in records.iter().filter(shown) {
                if *budget == 0 {
                    return Ok(());
                }
                match decoder.filter(|_| !row.is_control) {
                    Some(d) => emit(DumpEvent::Decoded(&row, r, &d.decode(r.key, r.value)))?,
                    None => {
                        let control = row.is_control.then(|| read_control(r.key, r.value));
                        emit(DumpEvent::Record(&row, r, control.as_ref()))?;
                    }
                }
                *budget -= 1;
            }
            match error {
                Some(e) => emit(DumpEvent::Undecodable(&row, &e.to_string())),
                None => Ok(()),
            }
        }
        Err(e) => {
            emit(DumpEvent::Batch(&row))?;
            emit(DumpEvent::Undecodable(&row, &e.to_string()))
        }
    }
}

/// Render the batches of `bytes[range]` (whole batches) into `out` (cleared first; reused
/// from chunk to chunk so that its pages are not faulted in again).
#[allow(clippy::too_many_arguments)]
fn render_chunk(
    render: &Render,
    segment_base_offset: i64,
    decoder: Option<RecordDecoder>,
    bytes: &[u8],
    range: (usize, usize),
    from: i64,
    batches_only: bool,
    filter: &RecordFilter,
    out: &mut RenderedChunk,
) -> Result<()> {
    out.bytes.clear();
    out.records.clear();
    out.undecodable.clear();
    out.end = range.1 as u64;
    let mut unlimited = u64::MAX;
    for batch in BatchIter::starting_at(&bytes[..range.1], range.0) {
        if batch.last_offset() < from {
            continue;
        }
        if filter.past_end(batch.base_offset()) {
            break;
        }
        batch_events(segment_base_offset, decoder, &batch, from, batches_only, filter, &mut unlimited, &mut |e| {
            match &e {
                DumpEvent::Record(_, r, _) | DumpEvent::Decoded(_, r, _) => out.records.observe(r.offset),
                DumpEvent::Undecodable(b, why) => out.undecodable.push(((*b).clone(), why.to_string())),
                _ => {}
            }
            render(e, &mut out.bytes)
        })?;
    }
    Ok(())
}

/// Emit the batches (and records) of one file of batches, from byte `start`.
#[allow(clippy::too_many_arguments)]
fn dump_batches(
    path: &Path,
    segment_base_offset: i64,
    bytes: &FileBytes,
    start: usize,
    from: i64,
    batches_only: bool,
    filter: &RecordFilter,
    budget: &mut u64,
    render: Option<&Render>,
    sink: &mut Sink<'_>,
) -> Result<()> {
    let mut iter = BatchIter::starting_at(bytes, start);
    let mut released = 0;
    let decoder = RecordDecoder::for_file(path);
    match render.filter(|_| *budget == u64::MAX) {
        Some(render) => {
            // Chunks of whole batches rendered on both cores, reaching the sink in order.
            let work = |&range: &(usize, usize), out: &mut RenderedChunk| {
                render_chunk(render, segment_base_offset, decoder, bytes, range, from, batches_only, filter, out)
            };
            crate::work_share::in_order(iter.chunks(RENDER_CHUNK_BYTES), &work, |&(_, end), out| {
                sink(DumpEvent::Rendered(out))?;
                bytes.release_before(end, &mut released);
                Ok(())
            })?;
        }
        None => {
            for batch in iter.by_ref() {
                if *budget == 0 {
                    return Ok(());
                }
                bytes.release_before(batch.position as usize, &mut released);
                if batch.last_offset() < from {
                    continue;
                }
                if filter.past_end(batch.base_offset()) {
                    break;
                }
                batch_events(segment_base_offset, decoder, &batch, from, batches_only, filter, budget, sink)?;
            }
        }
    }
    match iter.stop() {
        Some(ScanStop::Partial { position, len }) => {
            sink(DumpEvent::Trailing { path, position: *position, len: *len, what: "partial batch (torn write)" })
        }
        Some(ScanStop::BadSize { position, size }) => sink(DumpEvent::Trailing {
            path,
            position: *position,
            len: bytes.len() as u64 - position,
            what: if *size < 0 { "negative size field" } else { "size field below 14" },
        }),
        _ => Ok(()),
    }
}

const OFFSET_CHECKPOINTS: [&str; 4] = [
    names::REPLICATION_OFFSET_CHECKPOINT,
    names::RECOVERY_POINT_OFFSET_CHECKPOINT,
    names::LOG_START_OFFSET_CHECKPOINT,
    "cleaner-offset-checkpoint",
];

/// Dump a single file, chosen by its name.
fn dump_file(req: &DumpRequest<'_>, sink: &mut Sink<'_>) -> Result<()> {
    let path = req.path;
    let name = path.file_name().and_then(|n| n.to_str()).unwrap_or_default();
    let dir = path.parent().unwrap_or(Path::new("."));
    // A remote segment's file in LocalTieredStorage's layout (`<20 digits>-<segment id><suffix>`)
    // is read like the local file of its suffix; its siblings share its stem.
    let remote = local_tiered_storage::parse_file_name(name);
    let base = remote.map(|(offset, _, _)| offset).or_else(|| names::parse_file_offset(name));
    let sibling = |base: i64, suffix: &str| match remote {
        Some((_, id, _)) => dir.join(local_tiered_storage::file_name(base, &id, suffix)),
        None => names::build_segment_path(dir, base, suffix),
    };
    if req.dump_log_segments_files && !dump_log_segments_reads(name) {
        return sink(DumpEvent::File { path, kind: FileKind::Ignored });
    }
    if let Some((_, _, suffix)) = remote {
        if suffix == local_tiered_storage::LEADER_EPOCH_CHECKPOINT_SUFFIX {
            return dump_epoch_checkpoint(path, sink);
        }
    }
    if let (Some(base), true) = (base, name.ends_with(names::LOG_SUFFIX)) {
        if sibling(base, names::LOG_SUFFIX) != path {
            // e.g. a `.log` whose name has extra parts: map it directly.
            return Err(Error::layout(
                path,
                "not a segment file name (<20 digits>.log, or a remote segment's <20 digits>-<segment id>.log)",
            ));
        }
        sink(DumpEvent::Segment { path, base_offset: base })?;
        return dump_whole_file(req, base, sink);
    }
    if name.ends_with(".checkpoint") && !OFFSET_CHECKPOINTS.contains(&name) {
        return dump_kraft_snapshot(req, name, sink);
    }
    if let (Some(base), true) = (base, name.ends_with(names::INDEX_SUFFIX)) {
        return dump_offset_index(path, base, &sibling(base, names::LOG_SUFFIX), sink);
    }
    if let (Some(base), true) = (base, name.ends_with(names::TIME_INDEX_SUFFIX)) {
        let (log, offset_index) = (sibling(base, names::LOG_SUFFIX), sibling(base, names::INDEX_SUFFIX));
        return dump_time_index(path, base, &log, &offset_index, sink);
    }
    if name.ends_with(names::TXN_INDEX_SUFFIX) {
        return dump_txn_index(path, sink);
    }
    if name.ends_with(names::SNAPSHOT_SUFFIX) {
        return dump_producer_snapshot(path, sink);
    }
    if name == QUORUM_STATE {
        let state = read_quorum_state(path)?;
        sink(DumpEvent::File { path, kind: FileKind::QuorumState })?;
        return sink(DumpEvent::QuorumState(&state));
    }
    if name == names::LEADER_EPOCH_CHECKPOINT {
        return dump_epoch_checkpoint(path, sink);
    }
    if OFFSET_CHECKPOINTS.contains(&name) {
        sink(DumpEvent::File { path, kind: FileKind::OffsetCheckpoint })?;
        for e in checkpoint::read_offset_checkpoint(path)? {
            sink(DumpEvent::OffsetEntry { topic: &e.topic, partition: e.partition, offset: e.offset })?;
        }
        return Ok(());
    }
    Err(Error::layout(
        path,
        "unknown file kind (expected a .log, .index, .timeindex, .txnindex, .snapshot, KRaft .checkpoint, \
         leader-epoch-checkpoint, offset checkpoint or quorum-state)",
    ))
}

/// The batches of the file `req.path` (a segment at `base`, or a KRaft snapshot at 0), from
/// `--from` on, at most `--limit` items.
fn dump_whole_file(req: &DumpRequest<'_>, base: i64, sink: &mut Sink<'_>) -> Result<()> {
    let bytes = read_whole(req.path)?;
    let (from, mut budget) = (req.from.unwrap_or(i64::MIN), req.limit.unwrap_or(u64::MAX));
    dump_batches(req.path, base, &bytes, 0, from, req.batches_only, &req.filter, &mut budget, req.render, sink)
}

/// Whether `DumpLogSegments` reads a file of this name (by the suffix after its last dot); the
/// others are announced as ignored.
fn dump_log_segments_reads(name: &str) -> bool {
    let suffix = name.rfind('.').map(|dot| &name[dot..]);
    let read = [".log", ".checkpoint", ".index", ".timeindex", ".snapshot", ".txnindex"];
    suffix.is_some_and(|s| read.contains(&s))
}

/// A KRaft snapshot (`<offset>-<epoch>.checkpoint`, or `bootstrap.checkpoint`): its batches.
fn dump_kraft_snapshot(req: &DumpRequest<'_>, name: &str, sink: &mut Sink<'_>) -> Result<()> {
    let parsed = names::parse_kraft_snapshot_name(name);
    if parsed.is_none() && name != "bootstrap.checkpoint" {
        return Err(Error::layout(req.path, "not a KRaft snapshot name (<offset>-<epoch>.checkpoint)"));
    }
    let kind = FileKind::KraftSnapshot { end_offset: parsed.map(|p| p.0), epoch: parsed.map(|p| p.1) };
    sink(DumpEvent::File { path: req.path, kind })?;
    dump_whole_file(req, 0, sink)
}

fn dump_txn_index(path: &Path, sink: &mut Sink<'_>) -> Result<()> {
    let bytes = read_whole(path)?;
    sink(DumpEvent::File { path, kind: FileKind::TxnIndex })?;
    let (entries, _) = txn_index::decode_entries(&bytes);
    for e in &entries {
        sink(DumpEvent::TxnIndexEntry(e))?;
    }
    trailing_entry_bytes(path, &bytes, txn_index::ENTRY_BYTES, sink)
}

fn dump_epoch_checkpoint(path: &Path, sink: &mut Sink<'_>) -> Result<()> {
    sink(DumpEvent::File { path, kind: FileKind::EpochCheckpoint })?;
    for (e, o) in checkpoint::read_epoch_checkpoint(path)? {
        sink(DumpEvent::EpochEntry { leader_epoch: e, start_offset: o })?;
    }
    Ok(())
}

/// An offset index's entries, each checked against the segment `log` (when there is one).
fn dump_offset_index(path: &Path, base: i64, log: &Path, sink: &mut Sink<'_>) -> Result<()> {
    let bytes = read_whole(path)?;
    sink(DumpEvent::File { path, kind: FileKind::OffsetIndex { entry_count: bytes.len() / 8 } })?;
    // The one index reader (Kafka's stop rule for the zero-filled tail of an untrimmed index).
    let entries = verify::read_offset_index(&bytes, base).entries;
    let log = map_file(log)?;
    let (checks, _) = verify::verify_index_entries(&entries, &[], log.as_deref());
    for (e, check) in entries.iter().zip(checks) {
        sink(DumpEvent::IndexEntry { offset: e.offset, position: e.position, check })?;
    }
    trailing_entry_bytes(path, &bytes, index::OFFSET_ENTRY_BYTES, sink)
}

/// A time index's entries, each checked against the segment `log`, and as the dump tool checks
/// them with the segment's `offset_index`.
fn dump_time_index(path: &Path, base: i64, log: &Path, offset_index: &Path, sink: &mut Sink<'_>) -> Result<()> {
    let bytes = read_whole(path)?;
    sink(DumpEvent::File { path, kind: FileKind::TimeIndex })?;
    let entries = verify::read_time_index(&bytes, base).entries;
    let log = map_file(log)?;
    let (_, checks) = verify::verify_index_entries(&[], &entries, log.as_deref());
    let offset_index = read_whole(offset_index)?;
    let tool = dump_tool_time_checks(&entries, &offset_index, base, log.as_deref().unwrap_or_default());
    for ((e, check), dump_tool) in entries.iter().zip(checks).zip(tool) {
        sink(DumpEvent::TimeIndexEntry { timestamp: e.timestamp, offset: e.offset, check, dump_tool })?;
    }
    trailing_entry_bytes(path, &bytes, index::TIME_ENTRY_BYTES, sink)
}

fn dump_producer_snapshot(path: &Path, sink: &mut Sink<'_>) -> Result<()> {
    let bytes = read_whole(path)?;
    let snapshot = producer_snapshot::decode(&bytes).map_err(|e| Error::corrupt(path, e.position, e.what))?;
    sink(DumpEvent::File { path, kind: FileKind::ProducerSnapshot })?;
    sink(DumpEvent::ProducerSnapshot(&snapshot))?;
    for e in &snapshot.entries {
        sink(DumpEvent::ProducerEntry(e))?;
    }
    Ok(())
}

fn read_whole(path: &Path) -> Result<FileBytes> {
    Ok(map_file(path)?.unwrap_or(FileBytes::Empty))
}

/// A partial entry at the end of an index-like file is reported as trailing bytes.
fn trailing_entry_bytes(path: &Path, bytes: &[u8], entry_bytes: usize, sink: &mut Sink<'_>) -> Result<()> {
    let tail = bytes.len() % entry_bytes;
    if tail == 0 {
        return Ok(());
    }
    let what = format!("length {} is not a multiple of the {entry_bytes}-byte entry size", bytes.len());
    sink(DumpEvent::Trailing { path, position: (bytes.len() - tail) as u64, len: tail as u64, what: &what })
}

/// `--topic`: every partition dir of the topic in the log dir, by partition number, each in full.
fn dump_topic(req: &DumpRequest<'_>, topic: &str, sink: &mut Sink<'_>) -> Result<()> {
    if !req.path.is_dir() || crate::replica::looks_like_partition_dir(req.path) {
        return Err(Error::layout(req.path, "--topic needs a broker's log dir (the dir holding <topic>-<N> dirs)"));
    }
    let mut partitions: Vec<(i32, String)> = list_partition_dirs(req.path)?
        .iter()
        .filter_map(|d| d.file_name()?.to_str())
        .filter_map(|n| names::parse_topic_partition(n).filter(|(t, _)| t == topic).map(|(_, p)| (p, n.to_string())))
        .collect();
    if partitions.is_empty() {
        return Err(dump_filter::no_such_topic(req.path, topic));
    }
    partitions.sort();
    let files = LogDirFiles::read_tolerant(req.path)?;
    for (_, name) in &partitions {
        dump_replica(req, req.path, Some(name), Some(&files), sink)?;
    }
    Ok(())
}
