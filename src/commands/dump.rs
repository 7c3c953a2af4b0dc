//! `klog dump`: a replica's state, epoch cache, batches and records, or one Kafka file, as a
//! stream of events for a renderer. Streaming keeps memory constant whatever the log size.
//! Never writes.

use super::{current_leader_epoch, role_name};
use crate::error::{Error, Result};
use crate::format::batch::{BatchIter, RawBatch, ScanStop};
use crate::format::compression::Compression;
use crate::format::record::Record;
use crate::log::checkpoint;
use crate::log::epoch_cache::EpochCache;
use crate::log::index;
use crate::log::names;
use crate::log::segment::{map_file, Segment};
use crate::replica::Replica;
use std::path::{Path, PathBuf};

/// A replica's state at a glance.
#[derive(Debug, Clone)]
pub struct ReplicaSummary {
    pub topic: String,
    pub partition: i32,
    pub log_dir: PathBuf,
    pub replica_id: Option<i32>,
    pub role: &'static str,
    pub leader_epoch: Option<i32>,
    pub log_start_offset: i64,
    pub log_end_offset: i64,
    pub high_watermark: i64,
    pub recovery_point: i64,
    pub clean_shutdown: bool,
    pub segment_count: usize,
}

pub fn summarize(replica: &Replica) -> ReplicaSummary {
    ReplicaSummary {
        topic: replica.paths.topic.clone(),
        partition: replica.paths.partition,
        log_dir: replica.paths.log_dir.clone(),
        replica_id: replica.replica_id,
        role: role_name(replica),
        leader_epoch: current_leader_epoch(replica),
        log_start_offset: replica.log_start_offset,
        log_end_offset: replica.log_end_offset(),
        high_watermark: replica.high_watermark,
        recovery_point: replica.recovery_point,
        clean_shutdown: replica.clean_shutdown,
        segment_count: replica.log.segments().len(),
    }
}

/// How an epoch-cache entry compares with the epochs stamped on the batches.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EpochAgreement {
    /// The checkpoint and the batch stamps agree.
    Agrees,
    /// The entry starts at the LEO: assigned at election, no batch in it yet.
    NoBatchesYet,
    /// The checkpoint has the epoch at another start offset than the stamps say.
    StartDiffers { stamped_start_offset: i64 },
    /// The checkpoint has this epoch but no batch carries it.
    OnlyInCheckpoint,
    /// Batches carry this epoch but the checkpoint lacks it.
    OnlyInBatches,
}

/// One row of `dump --epochs`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EpochRow {
    pub leader_epoch: i32,
    pub start_offset: i64,
    pub end_offset: i64,
    pub record_count: u64,
    pub agreement: EpochAgreement,
}

/// Per-epoch facts from the batch stamps, in log order.
#[derive(Debug, Default)]
pub struct StampedEpochs {
    /// The cache Kafka would build by assigning every batch's (epoch, base offset).
    pub derived: EpochCache,
    /// Records per stamped epoch.
    pub record_counts: std::collections::BTreeMap<i32, u64>,
}

impl StampedEpochs {
    pub fn observe(&mut self, batch: &RawBatch<'_>) {
        let epoch = batch.partition_leader_epoch();
        if batch.magic() >= 2 && epoch >= 0 {
            self.derived.assign(epoch, batch.base_offset());
            let count = batch.header().map_or(0, |h| h.records_count.max(0) as u64);
            *self.record_counts.entry(epoch).or_default() += count;
        }
    }
}

/// Compare the checkpointed cache with the stamps, as rows for `dump --epochs` and `check`.
pub fn epoch_rows(cache: &EpochCache, stamped: &StampedEpochs, log_end_offset: i64) -> Vec<EpochRow> {
    let mut rows = Vec::new();
    for (entry, end) in cache.ranges(log_end_offset) {
        let stamped_entry = stamped.derived.entries().iter().find(|e| e.leader_epoch == entry.leader_epoch);
        let agreement = match stamped_entry {
            Some(s) if s.start_offset == entry.start_offset => EpochAgreement::Agrees,
            Some(s) => EpochAgreement::StartDiffers { stamped_start_offset: s.start_offset },
            None if entry.start_offset >= log_end_offset => EpochAgreement::NoBatchesYet,
            None => EpochAgreement::OnlyInCheckpoint,
        };
        rows.push(EpochRow {
            leader_epoch: entry.leader_epoch,
            start_offset: entry.start_offset,
            end_offset: end,
            record_count: stamped.record_counts.get(&entry.leader_epoch).copied().unwrap_or(0),
            agreement,
        });
    }
    for (s, end) in stamped.derived.ranges(log_end_offset) {
        if !cache.entries().iter().any(|e| e.leader_epoch == s.leader_epoch) {
            rows.push(EpochRow {
                leader_epoch: s.leader_epoch,
                start_offset: s.start_offset,
                end_offset: end,
                record_count: stamped.record_counts.get(&s.leader_epoch).copied().unwrap_or(0),
                agreement: EpochAgreement::OnlyInBatches,
            });
        }
    }
    rows.sort_by_key(|r| (r.leader_epoch, r.start_offset));
    rows
}

/// The batch fields every renderer needs.
#[derive(Debug, Clone)]
pub struct BatchRow {
    pub segment_base_offset: i64,
    pub position: u64,
    pub size_bytes: u64,
    pub magic: i8,
    pub base_offset: i64,
    pub last_offset: i64,
    pub partition_leader_epoch: i32,
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
    BatchRow {
        segment_base_offset,
        position: b.position,
        size_bytes: b.size_bytes() as u64,
        magic: b.magic(),
        base_offset: b.base_offset(),
        last_offset: b.last_offset(),
        partition_leader_epoch: b.partition_leader_epoch(),
        record_count: header.map_or(1, |h| h.records_count),
        crc: b.stored_crc(),
        crc_valid: defect.is_none(),
        defect,
        compression: header
            .map(|h| Compression::from_code(h.compression_code()).map_or("unknown", |c| c.name()))
            .unwrap_or("none"),
        timestamp_type: match header {
            Some(h) if h.is_log_append_time() => "LogAppendTime",
            Some(_) => "CreateTime",
            None if b.magic() == 0 => "NoTimestampType",
            None => "CreateTime",
        },
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

/// What `dump` emits, in order.
pub enum DumpEvent<'a> {
    Replica(&'a ReplicaSummary),
    Epochs(&'a [EpochRow]),
    Segment {
        path: &'a Path,
        base_offset: i64,
    },
    Batch(&'a BatchRow),
    Record(&'a BatchRow, &'a Record<'a>),
    /// The records of a batch could not be decoded.
    Undecodable(&'a BatchRow, &'a str),
    /// Bytes at the end of a segment that do not frame as a batch.
    Trailing {
        path: &'a Path,
        position: u64,
        len: u64,
        what: &'a str,
    },
    IndexEntry {
        offset: i64,
        position: u64,
    },
    TimeIndexEntry {
        timestamp: i64,
        offset: i64,
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
}

pub struct DumpRequest<'a> {
    pub path: &'a Path,
    pub partition: Option<&'a str>,
    pub epochs: bool,
    pub from: Option<i64>,
    pub limit: Option<u64>,
    pub batches_only: bool,
}

type Sink<'s> = dyn FnMut(DumpEvent<'_>) -> Result<()> + 's;

pub fn run(req: &DumpRequest<'_>, sink: &mut Sink<'_>) -> Result<()> {
    if req.path.is_file() {
        return dump_file(req, sink);
    }
    let replica = Replica::open(req.path, req.partition)?;
    let summary = summarize(&replica);
    sink(DumpEvent::Replica(&summary))?;
    if req.epochs {
        let mut stamped = StampedEpochs::default();
        for seg in replica.log.segments() {
            let bytes = seg.read_log()?;
            for b in BatchIter::new(&bytes) {
                stamped.observe(&b);
            }
        }
        let rows = epoch_rows(replica.log.epoch_cache(), &stamped, replica.log_end_offset());
        return sink(DumpEvent::Epochs(&rows));
    }
    let from = req.from.unwrap_or(i64::MIN);
    let mut budget = req.limit.unwrap_or(u64::MAX);
    let first = replica.log.segment_for(from).unwrap_or(0);
    for seg in &replica.log.segments()[first..] {
        if budget == 0 {
            break;
        }
        let start = if req.from.is_some() {
            replica.log.locate(from)?.filter(|l| replica.log.segments()[l.segment] == *seg).map_or(0, |l| l.position)
        } else {
            0
        };
        dump_segment(seg, start as usize, from, req.batches_only, &mut budget, sink)?;
    }
    Ok(())
}

fn dump_segment(
    seg: &Segment,
    start: usize,
    from: i64,
    batches_only: bool,
    budget: &mut u64,
    sink: &mut Sink<'_>,
) -> Result<()> {
    let path = seg.log_path();
    sink(DumpEvent::Segment { path: &path, base_offset: seg.base_offset })?;
    let bytes = seg.read_log()?;
    let mut iter = BatchIter::starting_at(&bytes, start);
    for batch in iter.by_ref() {
        if *budget == 0 {
            return Ok(());
        }
        if batch.last_offset() < from {
            continue;
        }
        let row = batch_row(seg.base_offset, &batch);
        sink(DumpEvent::Batch(&row))?;
        if batches_only {
            *budget -= 1;
            continue;
        }
        match batch.records() {
            Ok(decoded) => match decoded.decode() {
                Ok(records) => {
                    for r in records.iter().filter(|r| r.offset >= from) {
                        if *budget == 0 {
                            return Ok(());
                        }
                        sink(DumpEvent::Record(&row, r))?;
                        *budget -= 1;
                    }
                }
                Err(e) => sink(DumpEvent::Undecodable(&row, &e.to_string()))?,
            },
            Err(e) => sink(DumpEvent::Undecodable(&row, &e.to_string()))?,
        }
    }
    match iter.stop() {
        Some(ScanStop::Partial { position, len }) => sink(DumpEvent::Trailing {
            path: &path,
            position: *position,
            len: *len,
            what: "partial batch (torn write)",
        }),
        Some(ScanStop::BadSize { position, size }) => sink(DumpEvent::Trailing {
            path: &path,
            position: *position,
            len: bytes.len() as u64 - position,
            what: if *size < 0 { "negative size field" } else { "size field below 14" },
        }),
        _ => Ok(()),
    }
}

/// Dump a single file, chosen by its name.
fn dump_file(req: &DumpRequest<'_>, sink: &mut Sink<'_>) -> Result<()> {
    let path = req.path;
    let name = path.file_name().and_then(|n| n.to_str()).unwrap_or_default();
    let dir = path.parent().unwrap_or(Path::new("."));
    let base = names::parse_file_offset(name);
    if let (Some(base), true) = (base, name.ends_with(names::LOG_SUFFIX)) {
        let seg = Segment::new(dir, base);
        let mut budget = req.limit.unwrap_or(u64::MAX);
        let seg_path = seg.log_path();
        if seg_path != path {
            // e.g. a `.log` whose name has extra parts: map it directly.
            return Err(Error::layout(path, "not a segment file name (<20 digits>.log)"));
        }
        return dump_segment(&seg, 0, req.from.unwrap_or(i64::MIN), req.batches_only, &mut budget, sink);
    }
    if let (Some(base), true) = (base, name.ends_with(names::INDEX_SUFFIX)) {
        let bytes = map_file(path)?.expect("is_file");
        if bytes.len() % index::OFFSET_ENTRY_BYTES != 0 {
            return Err(Error::corrupt(path, (bytes.len() / 8 * 8) as u64, "index length is not a multiple of 8"));
        }
        for (i, e) in index::decode_offset_entries(&bytes, base).enumerate() {
            // An untrimmed (preallocated) index ends in zero entries; kafka-dump-log stops there.
            if i > 0 && e.offset == base {
                break;
            }
            sink(DumpEvent::IndexEntry { offset: e.offset, position: e.position })?;
        }
        return Ok(());
    }
    if let (Some(base), true) = (base, name.ends_with(names::TIME_INDEX_SUFFIX)) {
        let bytes = map_file(path)?.expect("is_file");
        if bytes.len() % index::TIME_ENTRY_BYTES != 0 {
            return Err(Error::corrupt(
                path,
                (bytes.len() / 12 * 12) as u64,
                "time index length is not a multiple of 12",
            ));
        }
        for (i, e) in index::decode_time_entries(&bytes, base).enumerate() {
            if i > 0 && e.offset == base && e.timestamp == 0 {
                break;
            }
            sink(DumpEvent::TimeIndexEntry { timestamp: e.timestamp, offset: e.offset })?;
        }
        return Ok(());
    }
    if name == names::LEADER_EPOCH_CHECKPOINT {
        for (e, o) in checkpoint::read_epoch_checkpoint(path)? {
            sink(DumpEvent::EpochEntry { leader_epoch: e, start_offset: o })?;
        }
        return Ok(());
    }
    if [
        names::REPLICATION_OFFSET_CHECKPOINT,
        names::RECOVERY_POINT_OFFSET_CHECKPOINT,
        names::LOG_START_OFFSET_CHECKPOINT,
        "cleaner-offset-checkpoint",
    ]
    .contains(&name)
    {
        for e in checkpoint::read_offset_checkpoint(path)? {
            sink(DumpEvent::OffsetEntry { topic: &e.topic, partition: e.partition, offset: e.offset })?;
        }
        return Ok(());
    }
    Err(Error::layout(
        path,
        "unknown file kind (expected a .log, .index, .timeindex, leader-epoch-checkpoint or offset checkpoint)",
    ))
}
