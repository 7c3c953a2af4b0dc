//! The log verifier shared by `check`, `dump`'s index views and recovery: one reader per index
//! kind, one join of index entries against the batches, one set of batch rules, the whole-log
//! walk `check` reports ([`verify_log`]), and the epoch rows comparing the checkpointed epoch
//! cache with the batches' stamps ([`epoch_rows`], `dump --epochs`). Findings are data (file,
//! byte position, offset, what, expected versus found); commands report them, renderers show them.
//!
//! Invariants: entries are read by [`read_offset_index`] / [`read_time_index`] only, with
//! Kafka's stop rule (`DumpLogSegments`: the first entry after the first whose offset is the
//! segment's base offset starts the zero-filled tail of an untrimmed index); nothing here
//! trusts a length, position or offset from disk before checking it; nothing here writes.

use super::epoch_cache::EpochCache;
use super::index::{
    self, OffsetEntryCheck, OffsetPosition, TimeEntryCheck, TimestampOffset, OFFSET_ENTRY_BYTES, TIME_ENTRY_BYTES,
};
use super::segment::Segment;
use super::{checkpoint, names, Log};
use crate::error::{IoContext, Result};
use crate::format::batch::{BatchDefect, BatchIter, RawBatch, ScanStop};
use std::path::{Path, PathBuf};

/// Something wrong, with the file and byte position where it is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Finding {
    pub path: PathBuf,
    /// Where in the file, as data: the byte position (0 for a finding about the whole file,
    /// such as a name that is not a regular file or a snapshot that should not exist).
    pub position: u64,
    /// For a text file (a checkpoint, `meta.properties`), the 1-based line at `position`.
    pub line: Option<usize>,
    pub offset: Option<i64>,
    pub what: String,
    /// What a valid file holds there, and what this one holds, when one value says it.
    pub expected: Option<String>,
    pub found: Option<String>,
}

impl Finding {
    pub fn new(path: &Path, position: u64, offset: Option<i64>, what: impl Into<String>) -> Finding {
        Finding {
            path: path.to_path_buf(),
            position,
            line: None,
            offset,
            what: what.into(),
            expected: None,
            found: None,
        }
    }

    /// The same finding, placed on a line of a text file.
    pub fn on_line(mut self, line: Option<usize>) -> Finding {
        self.line = line;
        self
    }

    /// The same finding, saying what was expected and what was found.
    pub fn expecting(mut self, expected: impl ToString, found: impl ToString) -> Finding {
        self.expected = Some(expected.to_string());
        self.found = Some(found.to_string());
        self
    }
}

/// The entries of one index file, as far as they go, with what is wrong with its framing.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct IndexRead<E> {
    pub entries: Vec<E>,
    /// Byte position where the zero-filled tail of an untrimmed index starts, if it has one.
    pub zero_tail_at: Option<u64>,
    /// A partial entry at the end: (position, length).
    pub trailing: Option<(u64, u64)>,
}

fn read_entries<E>(
    bytes: &[u8],
    entry_bytes: usize,
    decode: impl Fn(usize) -> Option<E>,
    offset: impl Fn(&E) -> i64,
    base: i64,
) -> IndexRead<E> {
    let count = bytes.len() / entry_bytes;
    let mut entries = Vec::new();
    let mut zero_tail_at = None;
    for i in 0..count {
        let Some(e) = decode(i) else { break };
        if i > 0 && offset(&e) == base {
            zero_tail_at = Some((i * entry_bytes) as u64);
            break;
        }
        entries.push(e);
    }
    let tail = bytes.len() % entry_bytes;
    let trailing = (tail != 0).then_some(((bytes.len() - tail) as u64, tail as u64));
    IndexRead { entries, zero_tail_at, trailing }
}

/// The one reader of `.index` entries.
pub fn read_offset_index(bytes: &[u8], base_offset: i64) -> IndexRead<OffsetPosition> {
    read_entries(
        bytes,
        OFFSET_ENTRY_BYTES,
        |i| index::offset_entry_at(bytes, base_offset, i),
        |e| e.offset,
        base_offset,
    )
}

/// The one reader of `.timeindex` entries.
pub fn read_time_index(bytes: &[u8], base_offset: i64) -> IndexRead<TimestampOffset> {
    read_entries(bytes, TIME_ENTRY_BYTES, |i| index::time_entry_at(bytes, base_offset, i), |e| e.offset, base_offset)
}

/// Findings about an index file's framing and entry order (not yet about the log).
pub fn index_structure_findings<E>(
    path: &Path,
    read: &IndexRead<E>,
    entry_bytes: usize,
    describe_disorder: impl Fn(&E, &E) -> Option<String>,
    offset: impl Fn(&E) -> i64,
) -> Vec<Finding> {
    let mut out = Vec::new();
    if let Some((position, len)) = read.trailing {
        out.push(
            Finding::new(
                path,
                position,
                None,
                format!("{len} trailing bytes: the length is not a multiple of {entry_bytes}"),
            )
            .expecting(format!("a multiple of {entry_bytes} bytes"), position + len),
        );
    }
    for (i, w) in read.entries.windows(2).enumerate() {
        if let Some(why) = describe_disorder(&w[0], &w[1]) {
            let position = ((i + 1) * entry_bytes) as u64;
            out.push(Finding::new(path, position, Some(offset(&w[1])), format!("entry {}: {why}", i + 1)));
        }
    }
    out
}

/// Offset-index entries must increase in offset (`OffsetIndex.append`).
pub fn offset_disorder(previous: &OffsetPosition, e: &OffsetPosition) -> Option<String> {
    (e.offset <= previous.offset).then(|| format!("offset {} does not increase over {}", e.offset, previous.offset))
}

/// Time-index entries must increase in timestamp and not go back in offset (`TimeIndex.maybeAppend`).
pub fn time_disorder(previous: &TimestampOffset, e: &TimestampOffset) -> Option<String> {
    (e.timestamp <= previous.timestamp || e.offset < previous.offset).then(|| {
        format!(
            "({} at offset {}) is out of order after ({} at offset {})",
            e.timestamp, e.offset, previous.timestamp, previous.offset
        )
    })
}

/// The first batch that frames at `position` of `log`, if any.
fn batch_at(log: &[u8], position: u64) -> Option<RawBatch<'_>> {
    let position = usize::try_from(position).ok().filter(|p| *p < log.len())?;
    BatchIter::starting_at(log, position).next()
}

/// Index entries of one segment checked against its batches, fed batch by batch in file order
/// (a merge join: memory is that of the entries, whatever the segment's size). `check` feeds
/// it during its own scan; `dump` feeds it every batch.
pub struct IndexJoin<'a> {
    log: &'a [u8],
    offsets: &'a [OffsetPosition],
    /// Offset entries in position order (a damaged entry may point backwards).
    offset_order: Vec<usize>,
    times: &'a [TimestampOffset],
    time_order: Vec<usize>,
    offset_checks: Vec<Option<OffsetEntryCheck>>,
    time_checks: Vec<Option<TimeEntryCheck>>,
    next_offset: usize,
    next_time: usize,
}

impl<'a> IndexJoin<'a> {
    pub fn new(log: &'a [u8], offsets: &'a [OffsetPosition], times: &'a [TimestampOffset]) -> Self {
        let mut offset_order: Vec<usize> = (0..offsets.len()).collect();
        offset_order.sort_by_key(|&i| offsets[i].position);
        let mut time_order: Vec<usize> = (0..times.len()).collect();
        time_order.sort_by_key(|&i| times[i].offset);
        IndexJoin {
            log,
            offsets,
            offset_order,
            times,
            time_order,
            offset_checks: vec![None; offsets.len()],
            time_checks: vec![None; times.len()],
            next_offset: 0,
            next_time: 0,
        }
    }

    /// The next batch of the segment, in file order.
    pub fn on_batch(&mut self, batch: &RawBatch<'_>) {
        while let Some(&i) = self.offset_order.get(self.next_offset) {
            let e = self.offsets[i];
            if e.position > batch.position {
                break;
            }
            self.offset_checks[i] = Some(if e.position == batch.position && batch.last_offset() == e.offset {
                OffsetEntryCheck::Matches
            } else {
                OffsetEntryCheck::Mismatch {
                    log_offset: batch_at(self.log, e.position).map(|b| b.last_offset()),
                    batch_start: e.position == batch.position,
                }
            });
            self.next_offset += 1;
        }
        while let Some(&i) = self.time_order.get(self.next_time) {
            let t = self.times[i];
            if t.offset > batch.last_offset() {
                break;
            }
            self.time_checks[i] = Some(if batch.first_offset() > t.offset {
                TimeEntryCheck::NotFound { found_log_offset: Some(batch.last_offset()) }
            } else if batch.max_timestamp() != t.timestamp {
                TimeEntryCheck::TimestampMismatch { log_timestamp: batch.max_timestamp() }
            } else if batch.last_offset() == t.offset {
                TimeEntryCheck::MatchesBatch
            } else {
                // The form of a leader's append up to Kafka 3.6: the record holding the max timestamp.
                let record_timestamp = batch.records().ok().and_then(|d| {
                    d.decode().ok().and_then(|rs| rs.iter().find(|r| r.offset == t.offset).map(|r| r.timestamp))
                });
                match record_timestamp {
                    Some(ts) if ts == t.timestamp => TimeEntryCheck::MatchesRecord,
                    Some(ts) => TimeEntryCheck::TimestampMismatch { log_timestamp: ts },
                    None => TimeEntryCheck::NotFound { found_log_offset: Some(batch.last_offset()) },
                }
            });
            self.next_time += 1;
        }
    }

    /// Whether every entry has met its batch (later batches cannot change a result).
    pub fn is_done(&self) -> bool {
        self.next_offset == self.offsets.len() && self.next_time == self.times.len()
    }

    /// Every entry's result, in file order. Entries past the last batch are mismatches (offset
    /// index) or not found (time index); a time entry whose timestamp does not increase over
    /// the previous entry's is out of order.
    pub fn finish(self) -> (Vec<OffsetEntryCheck>, Vec<TimeEntryCheck>) {
        let log = self.log;
        let offsets: Vec<OffsetEntryCheck> = self
            .offset_checks
            .into_iter()
            .zip(self.offsets)
            .map(|(c, e)| {
                c.unwrap_or_else(|| OffsetEntryCheck::Mismatch {
                    log_offset: batch_at(log, e.position).map(|b| b.last_offset()),
                    batch_start: false,
                })
            })
            .collect();
        let mut times = Vec::with_capacity(self.times.len());
        for (i, c) in self.time_checks.into_iter().enumerate() {
            let c = c.unwrap_or(TimeEntryCheck::NotFound { found_log_offset: None });
            let previous = i.checked_sub(1).map(|p| self.times[p]);
            let out_of_order = previous.filter(|p| self.times[i].timestamp <= p.timestamp);
            times.push(match (c, out_of_order) {
                (TimeEntryCheck::MatchesBatch | TimeEntryCheck::MatchesRecord, Some(p)) => {
                    TimeEntryCheck::OutOfOrder { previous_timestamp: p.timestamp }
                }
                (c, _) => c,
            });
        }
        (offsets, times)
    }
}

/// Check index entries against a whole `.log` (or `None` when it is absent): `dump`'s views.
pub fn verify_index_entries(
    offsets: &[OffsetPosition],
    times: &[TimestampOffset],
    log: Option<&[u8]>,
) -> (Vec<OffsetEntryCheck>, Vec<TimeEntryCheck>) {
    let Some(log) = log else {
        return (vec![OffsetEntryCheck::NoLog; offsets.len()], vec![TimeEntryCheck::NoLog; times.len()]);
    };
    let mut join = IndexJoin::new(log, offsets, times);
    for batch in BatchIter::new(log) {
        if join.is_done() {
            break;
        }
        join.on_batch(&batch);
    }
    join.finish()
}

/// Findings for the entries a join found wrong: `check`'s view of the same results.
pub fn index_entry_findings(
    index_path: &Path,
    time_path: &Path,
    offsets: &[OffsetPosition],
    offset_checks: &[OffsetEntryCheck],
    times: &[TimestampOffset],
    time_checks: &[TimeEntryCheck],
) -> Vec<Finding> {
    let mut out = Vec::new();
    for (i, (e, c)) in offsets.iter().zip(offset_checks).enumerate() {
        let position = (i * OFFSET_ENTRY_BYTES) as u64;
        if let OffsetEntryCheck::Mismatch { log_offset, batch_start } = *c {
            let finding = match (batch_start, log_offset) {
                (true, Some(l)) => Finding::new(
                    index_path,
                    position,
                    Some(e.offset),
                    format!("entry names offset {} but the batch at position {} ends at {l}", e.offset, e.position),
                )
                .expecting(l, e.offset),
                _ => Finding::new(
                    index_path,
                    position,
                    Some(e.offset),
                    format!("entry points at position {} which is not the start of a valid batch", e.position),
                ),
            };
            out.push(finding);
        }
    }
    for (i, (t, c)) in times.iter().zip(time_checks).enumerate() {
        let position = (i * TIME_ENTRY_BYTES) as u64;
        let finding = match *c {
            TimeEntryCheck::TimestampMismatch { log_timestamp } => Finding::new(
                time_path,
                position,
                Some(t.offset),
                format!(
                    "entry timestamp {} but the batch holding offset {} has max timestamp {log_timestamp}",
                    t.timestamp, t.offset
                ),
            )
            .expecting(log_timestamp, t.timestamp),
            TimeEntryCheck::NotFound { .. } => Finding::new(
                time_path,
                position,
                Some(t.offset),
                format!("indexed offset {} is not found in the log", t.offset),
            ),
            // Order is reported from the file's structure; no log, nothing to compare.
            _ => continue,
        };
        out.push(finding);
    }
    out
}

/// What Kafka's loader and klog's recovery make of one batch header, in Kafka's order after
/// the CRC: `ensureOffsetInRange(lastOffset)` first (a split), then klog's own rules, which
/// cut at the batch: a base offset below the segment's, a last offset below the base offset,
/// an offset that does not follow the previous batch's.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum BatchRule {
    /// `LogSegmentOffsetOverflowException`.
    OffsetOverflow {
        last_offset: i64,
    },
    BelowSegmentBase {
        base_offset: i64,
    },
    LastBelowBase {
        base_offset: i64,
        last_offset: i64,
    },
    Backwards {
        base_offset: i64,
        previous_last: i64,
    },
}

impl BatchRule {
    pub fn describe(&self, segment_base_offset: i64) -> String {
        match *self {
            BatchRule::OffsetOverflow { last_offset } => format!(
                "last offset {last_offset} is outside the 32-bit relative range of segment {segment_base_offset} \
                 (LogSegmentOffsetOverflowException: Kafka's loader splits the segment here)"
            ),
            BatchRule::BelowSegmentBase { base_offset } => {
                format!("base offset {base_offset} is below the segment's base offset {segment_base_offset}")
            }
            BatchRule::LastBelowBase { base_offset, last_offset } => {
                format!("last offset {last_offset} is below base offset {base_offset}")
            }
            BatchRule::Backwards { base_offset, previous_last } => {
                format!("offsets go backwards: base offset {base_offset} follows last offset {previous_last}")
            }
        }
    }
}

/// The header rules a batch breaks (after its CRC), first the one recovery acts on.
/// `base` is the batch's first offset (recovery passes the cheap `base_offset`, `check` the
/// first inner offset of a legacy compressed wrapper), `last` its last offset.
pub fn batch_rules(segment_base_offset: i64, base: i64, last: i64, previous_last: Option<i64>) -> Vec<BatchRule> {
    let mut out = Vec::new();
    if !index::offset_fits_segment(segment_base_offset, last) {
        out.push(BatchRule::OffsetOverflow { last_offset: last });
    }
    if base < segment_base_offset {
        out.push(BatchRule::BelowSegmentBase { base_offset: base });
    }
    if last < base {
        out.push(BatchRule::LastBelowBase { base_offset: base, last_offset: last });
    }
    if let Some(p) = previous_last.filter(|p| base <= *p) {
        out.push(BatchRule::Backwards { base_offset: base, previous_last: p });
    }
    out
}

// ---- The whole log: what `check` reports, streaming over the segments. ----

/// A checkpointed offset of the replica (its high watermark or recovery point): the value, the
/// file it is written in, and its line there, for a finding placed on that line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CheckpointMark {
    pub value: i64,
    pub path: PathBuf,
    /// (1-based line, byte position of the line) when the file lists the partition.
    pub line: Option<(usize, u64)>,
}

/// What the verifier needs to know of a replica beyond its partition dir, as plain values (the
/// log layer never reads the replica's own files).
#[derive(Debug, Clone)]
pub struct ReplicaMarks {
    pub high_watermark: CheckpointMark,
    pub recovery_point: CheckpointMark,
    /// Files that could not be read when the replica was loaded, as findings: they are shown,
    /// and the rest of the replica is still checked.
    pub load_problems: Vec<Finding>,
    /// The topic's cleanup.policy is known to be `delete` (klog's state holds the config of a
    /// topic klog created; Kafka keeps topic configs off the log dir), so a hole between
    /// segments is a finding rather than the cleaner's doing.
    pub known_not_compacted: bool,
    /// Stopped without a clean shutdown (not running, no clean-shutdown marker).
    pub unclean_stop: bool,
    /// The `log-start-offset-checkpoint` entry when it is below the first local segment: a
    /// tiered partition's log start across both tiers (its older batches are in remote storage).
    pub log_start_below_local: Option<i64>,
}

/// What verifying a whole log found, and how much it read.
#[derive(Debug, Clone, Default)]
pub struct LogVerification {
    pub findings: Vec<Finding>,
    /// Facts worth knowing that are not corruption (unclean shutdown, empty epoch cache...).
    pub notes: Vec<String>,
    pub segment_count: usize,
    pub batch_count: u64,
    /// Batches written by a producer (producer id set): what a broker's load replays into its
    /// producer state.
    pub producer_batch_count: u64,
    pub record_count: u64,
    pub bytes_checked: u64,
    /// A hash of every batch's first 61 bytes (a v2 header: offsets, size, leader epoch, and
    /// the CRC of the rest) in log order: two logs verified without findings whose digests,
    /// log starts and log ends agree hold the same batches (the cluster view's shortcut).
    pub header_digest: u64,
}

/// Bytes of batches judged at a time on one core: large enough that handing a chunk to the
/// other core costs nothing, small enough that the verdicts in flight stay few.
const JUDGE_CHUNK_BYTES: usize = 2 << 20;

/// What checking one batch finds without looking at any other batch: its CRC and its records.
struct Verdict {
    /// `first_offset`: a legacy compressed wrapper stores its last inner offset only.
    first_offset: i64,
    known_magic: bool,
    /// `ensureValid`'s complaint (only for a known magic).
    defect: Option<BatchDefect>,
    records: Records,
}

enum Records {
    /// An unknown magic: the records are not read.
    NotRead,
    /// The records decode; the first whose offset is out of order or outside the batch.
    Decoded {
        count: u64,
        out_of_order: Option<i64>,
    },
    Undecodable(String),
}

fn judge(batch: &RawBatch<'_>) -> Verdict {
    let (base, last) = (batch.first_offset(), batch.last_offset());
    // Kafka's `FileLogInputStream` reads any magic from 2 up as a v2 batch (the magic byte is
    // outside the v2 CRC): such a batch is judged as v2, and a note says what its magic is.
    let known_magic = batch.magic() >= 0;
    if !known_magic {
        return Verdict { first_offset: base, known_magic, defect: None, records: Records::NotRead };
    }
    let defect = batch.verify().err();
    let records = match batch.records() {
        Ok(decoded) => match decoded.decode() {
            Ok(records) => {
                let mut prev = None;
                let mut out_of_order = None;
                for r in &records {
                    if r.offset < base || r.offset > last || prev.is_some_and(|p| r.offset <= p) {
                        out_of_order = Some(r.offset);
                        break;
                    }
                    prev = Some(r.offset);
                }
                Records::Decoded { count: records.len() as u64, out_of_order }
            }
            Err(e) => Records::Undecodable(e.to_string()),
        },
        Err(e) => Records::Undecodable(e.to_string()),
    };
    Verdict { first_offset: base, known_magic, defect, records }
}

/// The findings as they are gathered.
struct Findings(Vec<Finding>);

impl Findings {
    fn add(&mut self, path: &Path, position: u64, offset: Option<i64>, what: String) {
        self.0.push(Finding::new(path, position, offset, what));
    }

    /// A finding on a line of a text file (a checkpoint), at the line's byte position.
    fn add_line(&mut self, path: &Path, line: Option<(usize, u64)>, offset: Option<i64>, what: String) {
        let (line, position) = line.map_or((None, 0), |(l, p)| (Some(l), p));
        self.0.push(Finding::new(path, position, offset, what).on_line(line));
    }
}

/// A run of batches whose stamp disagrees with the cache, reported as one finding.
struct StampMismatch {
    stamp: i32,
    cached: Option<i32>,
    first: i64,
    last: i64,
    path: PathBuf,
    position: u64,
}

impl StampMismatch {
    fn flush(m: Option<StampMismatch>, c: &mut Findings) {
        if let Some(m) = m {
            let cache_says = m.cached.map_or("no epoch (before the first entry)".to_string(), |e| format!("epoch {e}"));
            c.add(
                &m.path,
                m.position,
                Some(m.first),
                format!(
                    "batches {} to {} are stamped with epoch {} but the epoch cache says {cache_says}",
                    m.first, m.last, m.stamp
                ),
            );
        }
    }
}

/// Verify a whole log as Kafka's loader and `kafka-dump-log` would, streaming over the segments
/// with constant memory (indexes merge-joined with the batch scan, batches judged on both cores
/// in chunks). Every batch's records are decoded, so corrupt compressed streams, truncated
/// legacy messages and unknown magic values are findings with their file and byte position.
/// Fails only when a file cannot be read. `progress` gets `(bytes done, bytes total)`.
pub fn verify_log(log: &Log, mut marks: ReplicaMarks, progress: &mut dyn FnMut(u64, u64)) -> Result<LogVerification> {
    let total_bytes: u64 = log.segments().iter().filter_map(|s| s.log_size().ok()).sum();
    let mut c = Findings(std::mem::take(&mut marks.load_problems));
    let mut notes = Vec::new();
    epoch_checkpoint_order(log, &mut c);
    let mut walk = Walk::default();
    let segments = log.segments();
    let mut previous_segment_end: Option<i64> = None;
    // After an unclean stop Kafka recovers every segment from the one holding the recovery
    // point (`LogLoader.recoverLog`: `segments.values(recoveryPoint, Long.MAX_VALUE)`), and
    // recovering a segment rebuilds its indexes: what is wrong in them then costs nothing.
    let recovery_point = marks.recovery_point.value;
    let first_recovered = segments.iter().rposition(|s| s.base_offset <= recovery_point).unwrap_or(0);
    for (si, seg) in segments.iter().enumerate() {
        if let Some(end) = previous_segment_end.filter(|e| seg.base_offset > *e) {
            offset_gap(&seg.log_path(), seg.base_offset, end, marks.known_not_compacted, &mut c, &mut notes);
        }
        let place = SegmentPlace {
            path: &seg.log_path(),
            base_offset: seg.base_offset,
            next_base_offset: segments.get(si + 1).map(|s| s.base_offset),
        };
        let rebuilt_from = (marks.unclean_stop && si >= first_recovered).then_some(recovery_point);
        let mut report = |done: u64| progress(done, total_bytes);
        let end =
            verify_segment(seg, &place, log.epoch_cache(), rebuilt_from, &mut walk, &mut c, &mut notes, &mut report)?;
        previous_segment_end = Some(end);
    }
    StampMismatch::flush(walk.mismatch.take(), &mut c);
    let leo = log.log_end_offset();
    snapshot_findings(log, leo, marks.unclean_stop, &mut c, &mut notes)?;
    let below_local = marks.log_start_below_local.zip(log.first_offset());
    epoch_cache_notes(log.epoch_cache(), leo, below_local, &walk, &mut notes);
    checkpoint_findings(&marks, leo, log.tail_is_clean(), &mut c, &mut notes);
    Ok(LogVerification {
        findings: c.0,
        notes,
        segment_count: segments.len(),
        batch_count: walk.batches,
        producer_batch_count: walk.producer_batches,
        record_count: walk.records,
        bytes_checked: walk.bytes,
        header_digest: std::hash::Hasher::finish(&walk.header_digest),
    })
}

/// One segment: its batches walked in order (judged on both cores in chunks) and joined with
/// its indexes; its index findings, or notes when Kafka rebuilds its indexes on load
/// (`rebuilt_from`). Returns the offset after its last batch.
#[allow(clippy::too_many_arguments)]
fn verify_segment(
    seg: &Segment,
    place: &SegmentPlace<'_>,
    cache: &EpochCache,
    rebuilt_from: Option<i64>,
    walk: &mut Walk,
    c: &mut Findings,
    notes: &mut Vec<String>,
    progress: &mut dyn FnMut(u64),
) -> Result<i64> {
    let path = place.path;
    let bytes = seg.read_log()?;
    let bytes_before_segment = walk.bytes;
    walk.bytes += bytes.len() as u64;
    let mut segment_end = seg.base_offset;
    let mut index_findings = Findings(Vec::new());
    let indexes = SegmentIndexes::read(seg, &mut index_findings)?;
    let mut join = IndexJoin::new(&bytes, &indexes.offsets, &indexes.times);
    let mut iter = BatchIter::new(&bytes);
    let mut first = true;
    let mut released = 0;
    // The batches in chunks whose CRCs and records are judged on both cores, then walked in
    // order for what depends on the batches before.
    let work = |&(start, end): &(usize, usize), verdicts: &mut Vec<Verdict>| -> Result<()> {
        verdicts.clear();
        verdicts.extend(BatchIter::starting_at(&bytes[..end], start).map(|b| judge(&b)));
        Ok(())
    };
    crate::work_share::in_order(iter.chunks(JUDGE_CHUNK_BYTES), &work, |&(start, end), verdicts| {
        for (batch, verdict) in BatchIter::starting_at(&bytes[..end], start).zip(verdicts.drain(..)) {
            bytes.release_before(batch.position as usize, &mut released);
            progress(bytes_before_segment + batch.position);
            walk.on_batch(place, &batch, verdict, first, cache, c, notes);
            first = false;
            join.on_batch(&batch);
            segment_end = segment_end.max(batch.next_offset());
        }
        Ok(())
    })?;
    match iter.stop() {
        Some(ScanStop::Partial { position, len }) => {
            c.add(path, *position, None, format!("{len} trailing bytes do not hold a whole batch (torn write)"))
        }
        Some(ScanStop::BadSize { position, size }) => {
            c.add(path, *position, None, format!("batch size field is {size}, expected at least 14"))
        }
        _ => {}
    }
    let (offset_checks, time_checks) = join.finish();
    index_findings.0.extend(index_entry_findings(
        &indexes.index_path,
        &indexes.time_path,
        &indexes.offsets,
        &offset_checks,
        &indexes.times,
        &time_checks,
    ));
    index_notes(&indexes, &index_findings, rebuilt_from, notes);
    if rebuilt_from.is_none() {
        c.0.extend(index_findings.0);
    }
    Ok(segment_end)
}

/// The leader-epoch checkpoint as written must already be strictly increasing (it is replayed
/// on load). One that is not a regular file, or does not read, is already a finding of the
/// load (`load_problems`), with no entries.
fn epoch_checkpoint_order(log: &Log, c: &mut Findings) {
    let epoch_path = log.dir().join(names::LEADER_EPOCH_CHECKPOINT);
    let epoch_regular = !log.not_regular_files().iter().any(|n| n.path == epoch_path);
    let (raw, epoch_lines): (Vec<(i32, i64)>, Vec<checkpoint::LinePlace>) = if epoch_regular {
        checkpoint::read_epoch_checkpoint_lines(&epoch_path).unwrap_or_default().into_iter().unzip()
    } else {
        (Vec::new(), Vec::new())
    };
    for (i, w) in raw.windows(2).enumerate() {
        if w[1].0 <= w[0].0 || w[1].1 <= w[0].1 {
            c.add_line(
                &epoch_path,
                // Entry i + 1 is on line i + 4 (1-based): the version and count lines come first.
                epoch_lines.get(i + 1).copied(),
                None,
                format!(
                    "line {}: entry ({} {}) does not increase over ({} {}) in both epoch and start offset",
                    i + 4,
                    w[1].0,
                    w[1].1,
                    w[0].0,
                    w[0].1
                ),
            );
        }
    }
}

/// A segment that starts past where the previous one ends: a finding on a topic known not to
/// be compacted, else a note.
fn offset_gap(
    path: &Path,
    base_offset: i64,
    end: i64,
    known_not_compacted: bool,
    c: &mut Findings,
    notes: &mut Vec<String>,
) {
    let what = format!(
        "segment starts at offset {base_offset} but the previous segment ends at {end}: offsets {end} to {} are missing",
        base_offset - 1
    );
    // The log cleaner leaves such holes in a compacted topic and Kafka never flags them; a
    // topic known not to be compacted (one klog made: klog never compacts) gets one only from
    // a split of an overflowed segment or a recovery that died.
    if known_not_compacted {
        c.add(path, 0, Some(base_offset), what);
    } else {
        notes.push(format!("{}: {what} (compaction leaves such gaps)", path.display()));
    }
}

/// Where a batch sits: its segment's file and base offset, and the next segment's base.
struct SegmentPlace<'p> {
    path: &'p Path,
    base_offset: i64,
    next_base_offset: Option<i64>,
}

/// What the walk over the batches carries from one batch to the next.
#[derive(Default)]
struct Walk {
    previous_last: Option<i64>,
    header_digest: std::hash::DefaultHasher,
    mismatch: Option<StampMismatch>,
    stamped_epochs: std::collections::BTreeSet<i32>,
    batches: u64,
    producer_batches: u64,
    records: u64,
    bytes: u64,
}

impl Walk {
    /// One batch, in log order, with its verdict from the parallel judging.
    #[allow(clippy::too_many_arguments)]
    fn on_batch(
        &mut self,
        place: &SegmentPlace<'_>,
        batch: &RawBatch<'_>,
        verdict: Verdict,
        first_in_segment: bool,
        cache: &EpochCache,
        c: &mut Findings,
        notes: &mut Vec<String>,
    ) {
        let path = place.path;
        std::hash::Hasher::write(&mut self.header_digest, &batch.bytes[..batch.bytes.len().min(61)]);
        self.batches += 1;
        if batch.magic() >= 2 && batch.header().is_some_and(|h| h.producer_id >= 0) {
            self.producer_batches += 1;
        }
        let (base, last) = (verdict.first_offset, batch.last_offset());
        let magic = batch.magic();
        if magic > 2 && verdict.defect.is_none() {
            notes.push(format!(
                "{} position {}: magic {magic}, which Kafka reads as v2 (the byte is outside the CRC, so a bit flip \
                 there goes unnoticed): it keeps and serves this batch",
                path.display(),
                batch.position
            ));
        }
        if !verdict.known_magic {
            c.add(
                path,
                batch.position,
                Some(base),
                format!("unknown magic value {magic} (expected 0, 1 or 2): the batch cannot be read"),
            );
        } else if let Some(d) = verdict.defect {
            c.add(path, batch.position, Some(base), format!("invalid batch: {}", d.what));
        }
        for rule in batch_rules(place.base_offset, base, last, self.previous_last) {
            // A batch below the segment's base after the first one also goes backwards: say it
            // once.
            if matches!(rule, BatchRule::BelowSegmentBase { .. }) && !first_in_segment {
                continue;
            }
            c.add(path, batch.position, Some(base), rule.describe(place.base_offset));
        }
        self.previous_last = Some(last.max(self.previous_last.unwrap_or(i64::MIN)));
        if let Some(next) = place.next_base_offset.filter(|n| last >= *n) {
            c.add(
                path,
                batch.position,
                Some(base),
                format!("batch ends at offset {last}, inside the next segment (base {next})"),
            );
        }
        match verdict.records {
            Records::NotRead => {}
            Records::Decoded { count, out_of_order } => {
                self.records += count;
                if let Some(offset) = out_of_order {
                    c.add(
                        path,
                        batch.position,
                        Some(offset),
                        format!("record offset {offset} is out of order or outside its batch {base} to {last}"),
                    );
                }
            }
            Records::Undecodable(e) => c.add(path, batch.position, Some(base), format!("records do not decode: {e}")),
        }
        self.stamp(path, batch, base, last, cache, c);
    }

    /// The batch's leader-epoch stamp against the epoch cache: runs of disagreeing batches are
    /// one finding each.
    fn stamp(&mut self, path: &Path, batch: &RawBatch<'_>, base: i64, last: i64, cache: &EpochCache, c: &mut Findings) {
        let stamp = batch.partition_leader_epoch();
        if batch.magic() < 2 || stamp < 0 || cache.is_empty() {
            return;
        }
        self.stamped_epochs.insert(stamp);
        let cached = cache.epoch_for_offset(base);
        if cached == Some(stamp) {
            StampMismatch::flush(self.mismatch.take(), c);
            return;
        }
        match &mut self.mismatch {
            Some(m) if m.stamp == stamp && m.cached == cached => m.last = last,
            _ => {
                StampMismatch::flush(self.mismatch.take(), c);
                self.mismatch = Some(StampMismatch {
                    stamp,
                    cached,
                    first: base,
                    last,
                    path: path.to_path_buf(),
                    position: batch.position,
                });
            }
        }
    }
}

/// Notes on a segment's index findings: all of them when Kafka rebuilds the segment's indexes
/// on load (`rebuilt_from`: the recovery point of an unclean stop), or a zero-filled tail
/// (preallocated, never trimmed) that a clean load keeps as it is.
fn index_notes(
    indexes: &SegmentIndexes,
    index_findings: &Findings,
    rebuilt_from: Option<i64>,
    notes: &mut Vec<String>,
) {
    for (path, (entries, zeros)) in [&indexes.index_path, &indexes.time_path].into_iter().zip(indexes.zero_tails) {
        let here: Vec<&Finding> = index_findings.0.iter().filter(|f| &f.path == path).collect();
        let zero_entries = match (zeros, entries) {
            (0, _) => None,
            (z, n) if z == n => Some(format!("all {n} of its entries are zeros")),
            (z, n) => Some(format!("the last {z} of its {n} entries are zeros")),
        };
        let preallocated = zero_entries.as_ref().map_or(String::new(), |z| {
            format!(
                "; {z}: an index preallocated for an active segment and never trimmed (its broker did not close the \
                 segment)"
            )
        });
        if let Some(recovery_point) = rebuilt_from.filter(|_| !here.is_empty()) {
            let more = match here.len() {
                1 => String::new(),
                n => format!(" and {} more", n - 1),
            };
            notes.push(format!(
                "{}: {}{more}{preallocated}. Kafka rebuilds this segment's indexes when it loads the dir: it was not \
                 shut down cleanly and the segment is at or past the recovery point {recovery_point}",
                path.display(),
                here[0].what,
            ));
        } else if let Some(z) = zero_entries.filter(|_| !here.is_empty()) {
            notes.push(format!(
                "{}: {z}, an index preallocated for an active segment and never trimmed: Kafka trims it when it \
                 closes the segment, and after a clean shutdown loads it as it is",
                path.display(),
            ));
        }
    }
}

/// Producer snapshots past the log end describe state that no longer exists; Kafka's loader
/// deletes them (`LogLoader.load`, `ProducerStateManager.truncateAndReload`). After an unclean
/// stop that is expected (a load snapshots at the log end; the bytes up to it need not have
/// reached the disk): a note. After a clean one it is a finding.
fn snapshot_findings(log: &Log, leo: i64, unclean_stop: bool, c: &mut Findings, notes: &mut Vec<String>) -> Result<()> {
    for (path, offset) in snapshot_files(log.dir())? {
        if offset > leo && unclean_stop {
            notes.push(format!(
                "{}: producer snapshot at offset {offset} is above the log end offset {leo} (the log lost unflushed \
                 bytes; Kafka's loader deletes the snapshot)",
                path.display()
            ));
        } else if offset > leo {
            c.add(
                &path,
                0,
                Some(offset),
                format!("producer snapshot at offset {offset} is above the log end offset {leo}"),
            );
        }
    }
    Ok(())
}

/// The epoch cache against the log: empty, entries past the log end, epochs no batch carries.
/// `below_local` is (the log start across tiers, the local log start) when the first is below
/// the second: entries whose offsets all lie below the local log start are a tiered log's.
fn epoch_cache_notes(
    cache: &EpochCache,
    leo: i64,
    below_local: Option<(i64, i64)>,
    walk: &Walk,
    notes: &mut Vec<String>,
) {
    let ranges = cache.ranges(leo);
    if cache.is_empty() && walk.batches > 0 {
        notes.push("the epoch cache is empty: Kafka rebuilds it only for segments it recovers".into());
    }
    for e in cache.entries() {
        if e.start_offset > leo {
            notes.push(format!(
                "epoch cache entry ({} {}) starts past the log end {leo}; Kafka drops it on load",
                e.leader_epoch, e.start_offset
            ));
        } else if e.start_offset < leo
            && !walk.stamped_epochs.contains(&e.leader_epoch)
            && !walk.stamped_epochs.is_empty()
        {
            let end = ranges.iter().find(|(r, _)| r == e).map_or(leo, |(_, end)| *end);
            if let Some((log_start, local)) = below_local.filter(|(_, local)| end <= *local) {
                notes.push(format!(
                    "epoch {} (offsets {}..{}) lies below the local log start {local} (log start {log_start} in \
                     log-start-offset-checkpoint): its batches are not on this disk (in remote storage if the topic \
                     is tiered)",
                    e.leader_epoch,
                    e.start_offset,
                    end - 1
                ));
                continue;
            }
            notes.push(format!(
                "epoch {} (from offset {}) has no batch stamped with it (compacted away or never written)",
                e.leader_epoch, e.start_offset
            ));
        }
    }
}

/// The high watermark and recovery point checkpoints against the log end.
fn checkpoint_findings(marks: &ReplicaMarks, leo: i64, tail_is_clean: bool, c: &mut Findings, notes: &mut Vec<String>) {
    let (hw, rp) = (&marks.high_watermark, &marks.recovery_point);
    // The LEO counts valid batches only. When bytes past it are damaged (reported above),
    // checkpoints above it are a consequence of that damage, not data gone missing.
    let tail_damaged = !tail_is_clean;
    if tail_damaged && (hw.value > leo || rp.value > leo) {
        notes.push(format!(
            "the high watermark ({}) or recovery point ({}) is above the log end offset {leo} of the valid \
             batches: the bytes past it are damaged",
            hw.value, rp.value
        ));
    }
    if hw.value > leo && !tail_damaged {
        c.add_line(
            &hw.path,
            hw.line,
            Some(hw.value),
            format!(
                "high watermark {} is above the log end offset {leo}: acknowledged records at offsets {leo} to {} are \
                 not on disk",
                hw.value,
                hw.value - 1
            ),
        );
    }
    // Offsets are never negative; a broker writes no such checkpoint (its loader would clamp
    // the value to the log start offset, hiding whatever wrote it).
    for (mark, what) in [(hw, "high watermark"), (rp, "recovery point")] {
        if mark.value < 0 {
            c.add_line(&mark.path, mark.line, None, format!("{what} {} is negative: no offset is", mark.value));
        }
    }
    if rp.value > leo && !tail_damaged {
        c.add_line(
            &rp.path,
            rp.line,
            Some(rp.value),
            format!("recovery point {} is above the log end offset {leo}: flushed data is missing", rp.value),
        );
    }
    if marks.unclean_stop {
        notes.push(
            "not shut down cleanly: a broker (or any mutating klog command) would run local recovery first".into(),
        );
    }
}

/// The `<offset>.snapshot` files of a partition dir.
pub(crate) fn snapshot_files(dir: &Path) -> Result<Vec<(PathBuf, i64)>> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir(dir).at(dir, "list directory")? {
        let entry = entry.at(dir, "list directory")?;
        let name = entry.file_name();
        let Some(name) = name.to_str() else { continue };
        if let (true, Some(offset)) = (name.ends_with(names::SNAPSHOT_SUFFIX), names::parse_file_offset(name)) {
            out.push((entry.path(), offset));
        }
    }
    out.sort();
    Ok(out)
}

/// The index entries of one segment, read by the one reader of each kind; structure findings
/// (partial entries, entries out of order) are added as they are read.
struct SegmentIndexes {
    index_path: PathBuf,
    time_path: PathBuf,
    offsets: Vec<OffsetPosition>,
    times: Vec<TimestampOffset>,
    /// Per file (offset index, time index): its whole entries and how many of the last ones
    /// are all zero bytes (Kafka preallocates an active segment's index and trims it when the
    /// segment is closed).
    zero_tails: [(usize, usize); 2],
}

/// A file's whole `entry`-byte entries, and how many of the last ones are all zeros.
fn zero_tail(bytes: &[u8], entry: usize) -> (usize, usize) {
    let whole = bytes.len() / entry;
    let nonzero_end = bytes[..whole * entry].iter().rposition(|b| *b != 0).map_or(0, |p| p / entry + 1);
    (whole, whole - nonzero_end)
}

impl SegmentIndexes {
    fn read(seg: &Segment, c: &mut Findings) -> Result<SegmentIndexes> {
        let index_path = seg.index_path();
        let time_path = seg.time_index_path();
        let mut offsets = Vec::new();
        let mut zero_tails = [(0, 0); 2];
        if let Some(bytes) = seg.read_index()? {
            zero_tails[0] = zero_tail(&bytes, OFFSET_ENTRY_BYTES);
            let read = read_offset_index(&bytes, seg.base_offset);
            c.0.extend(index_structure_findings(&index_path, &read, OFFSET_ENTRY_BYTES, offset_disorder, |e| e.offset));
            offsets = read.entries;
        }
        let mut times = Vec::new();
        if let Some(bytes) = seg.read_time_index()? {
            zero_tails[1] = zero_tail(&bytes, TIME_ENTRY_BYTES);
            let read = read_time_index(&bytes, seg.base_offset);
            c.0.extend(index_structure_findings(&time_path, &read, TIME_ENTRY_BYTES, time_disorder, |e| e.offset));
            times = read.entries;
        }
        Ok(SegmentIndexes { index_path, time_path, offsets, times, zero_tails })
    }
}

// ---- Epoch rows: the checkpointed epoch cache against the epochs stamped on the batches. ----

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
    /// A tiered log (its log start below its first local segment): every offset of the entry
    /// lies below the local log start, so no batch of it is on this disk.
    BelowLocalStart,
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
///
/// `local_start` is the local log start when the log start across tiers lies below it (a
/// tiered log): an entry whose offsets all lie below it is [`EpochAgreement::BelowLocalStart`],
/// and an entry starting below it agrees when its first local batch is the log's first.
pub fn epoch_rows(
    cache: &EpochCache,
    stamped: &StampedEpochs,
    log_end_offset: i64,
    local_start: Option<i64>,
) -> Vec<EpochRow> {
    let mut rows = Vec::new();
    let first_stamped = stamped.derived.earliest().map(|e| e.start_offset);
    for (entry, end) in cache.ranges(log_end_offset) {
        let stamped_entry = stamped.derived.entries().iter().find(|e| e.leader_epoch == entry.leader_epoch);
        let below = local_start.filter(|local| entry.start_offset < *local);
        let agreement = match stamped_entry {
            Some(s) if s.start_offset == entry.start_offset => EpochAgreement::Agrees,
            Some(s) if below.is_some() && Some(s.start_offset) == first_stamped => EpochAgreement::Agrees,
            None if below.is_some_and(|local| end <= local) => EpochAgreement::BelowLocalStart,
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::format::batch::{encode_batch, BatchSpec};
    use crate::format::record::NewRecord;

    fn offset_bytes(entries: &[(i32, u32)]) -> Vec<u8> {
        entries.iter().flat_map(|(r, p)| r.to_be_bytes().into_iter().chain(p.to_be_bytes())).collect()
    }

    #[test]
    fn a_zero_tail_counts_the_whole_entries_after_the_last_nonzero_byte() {
        assert_eq!(zero_tail(&[], 8), (0, 0));
        assert_eq!(zero_tail(&[0; 24], 8), (3, 3));
        let mut b = offset_bytes(&[(2, 0), (5, 4100)]);
        assert_eq!(zero_tail(&b, 8), (2, 0));
        b.resize(8 * 6 + 3, 0);
        assert_eq!(zero_tail(&b, 8), (6, 4), "a partial last entry is not an entry");
        // A zero relative offset inside a nonzero entry keeps that entry.
        let mut t = vec![0u8; 12 * 3];
        t[7] = 1;
        assert_eq!(zero_tail(&t, 12), (3, 2));
    }

    #[test]
    fn the_reader_stops_at_the_zero_tail_and_reports_a_partial_entry() {
        let mut bytes = offset_bytes(&[(0, 0), (4, 100), (0, 0), (0, 0)]);
        bytes.extend_from_slice(&[1, 2, 3]);
        let read = read_offset_index(&bytes, 10);
        assert_eq!(
            read.entries,
            vec![OffsetPosition { offset: 10, position: 0 }, OffsetPosition { offset: 14, position: 100 }]
        );
        assert_eq!(read.zero_tail_at, Some(16));
        assert_eq!(read.trailing, Some((32, 3)));
        let findings = index_structure_findings(Path::new("x.index"), &read, 8, offset_disorder, |e| e.offset);
        assert_eq!(findings.len(), 1);
        assert_eq!(findings[0].position, 32);
    }

    #[test]
    fn entries_that_do_not_increase_are_findings_at_their_position() {
        let bytes = offset_bytes(&[(4, 100), (9, 200), (7, 300)]);
        let read = read_offset_index(&bytes, 0);
        assert_eq!(read.entries.len(), 3, "disorder is reported, not a stop");
        let f = index_structure_findings(Path::new("x.index"), &read, 8, offset_disorder, |e| e.offset);
        assert_eq!(f.len(), 1);
        assert_eq!((f[0].position, f[0].offset), (16, Some(7)));
    }

    #[test]
    fn a_join_fed_batch_by_batch_matches_the_whole_file_view() {
        let rec = |ts| NewRecord { timestamp: ts, key: None, value: Some(b"v".to_vec()), headers: vec![] };
        let mut log = Vec::new();
        let mut starts = Vec::new();
        for (base, ts) in [(0i64, vec![20i64, 10]), (2, vec![30, 50, 40]), (5, vec![60])] {
            starts.push(log.len() as u64);
            let recs: Vec<_> = ts.into_iter().map(rec).collect();
            log.extend(encode_batch(&BatchSpec::plain(base, 0), &recs));
        }
        let offsets = [
            OffsetPosition { offset: 4, position: starts[1] },
            OffsetPosition { offset: 6, position: starts[2] },
            OffsetPosition { offset: 9, position: 100_000 },
        ];
        let t = |timestamp, offset| TimestampOffset { timestamp, offset };
        let times = [t(20, 1), t(50, 3), t(50, 4), t(70, 9)];
        let (o, tc) = verify_index_entries(&offsets, &times, Some(&log));
        assert_eq!(o[0], OffsetEntryCheck::Matches);
        assert_eq!(o[1], OffsetEntryCheck::Mismatch { log_offset: Some(5), batch_start: true });
        assert_eq!(o[2], OffsetEntryCheck::Mismatch { log_offset: None, batch_start: false });
        assert_eq!(
            tc,
            vec![
                TimeEntryCheck::MatchesBatch,
                TimeEntryCheck::MatchesRecord,
                TimeEntryCheck::OutOfOrder { previous_timestamp: 50 },
                TimeEntryCheck::NotFound { found_log_offset: None },
            ]
        );
        let findings = index_entry_findings(Path::new("a.index"), Path::new("a.timeindex"), &offsets, &o, &times, &tc);
        assert_eq!(findings.len(), 3);
        assert_eq!(findings[0].expected.as_deref(), Some("5"));
        assert_eq!(findings[0].found.as_deref(), Some("6"));
        assert_eq!(verify_index_entries(&offsets, &[], None).0, vec![OffsetEntryCheck::NoLog; 3]);
    }

    #[test]
    fn batch_rules_put_the_offset_overflow_first() {
        let rec = NewRecord { timestamp: 1, key: None, value: None, headers: vec![] };
        let bytes = encode_batch(&BatchSpec::plain((1 << 32) + 6, 0), &[rec]);
        let batch = BatchIter::new(&bytes).next().unwrap();
        let rules = batch_rules(6, batch.base_offset(), batch.last_offset(), Some(1 << 40));
        assert_eq!(rules[0], BatchRule::OffsetOverflow { last_offset: (1 << 32) + 6 });
        assert!(rules.contains(&BatchRule::Backwards { base_offset: (1 << 32) + 6, previous_last: 1 << 40 }));
        let plain = encode_batch(
            &BatchSpec::plain(3, 0),
            &[NewRecord { timestamp: 1, key: None, value: None, headers: vec![] }],
        );
        let batch = BatchIter::new(&plain).next().unwrap();
        assert!(batch_rules(0, batch.base_offset(), batch.last_offset(), Some(2)).is_empty());
    }

    /// A log in `dir` holding batches 0..=2, 3..=4 (epoch 1) and 5 (epoch 2), its epoch
    /// checkpoint written as it was appended.
    fn three_batch_log(dir: &Path) -> Log {
        let mut log = Log::open(dir, crate::log::LogConfig::default(), 0).unwrap();
        let rec = NewRecord { timestamp: 1, key: None, value: Some(b"v".to_vec()), headers: vec![] };
        for (base, count, epoch) in [(0i64, 3usize, 1i32), (3, 2, 1), (5, 1, 2)] {
            let bytes = encode_batch(&BatchSpec::plain(base, epoch), &vec![rec.clone(); count]);
            log.append_batch(BatchIter::new(&bytes).next().unwrap()).unwrap();
        }
        log.finish().unwrap();
        log
    }

    /// Marks that agree with a log ending at `leo`, written in files beside `dir`.
    fn marks_at(dir: &Path, leo: i64) -> ReplicaMarks {
        let mark = |value, name: &str| CheckpointMark { value, path: dir.join(name), line: Some((3, 4)) };
        ReplicaMarks {
            high_watermark: mark(leo, "replication-offset-checkpoint"),
            recovery_point: mark(leo, "recovery-point-offset-checkpoint"),
            load_problems: Vec::new(),
            known_not_compacted: true,
            unclean_stop: false,
            log_start_below_local: None,
        }
    }

    fn verify(log: &Log, marks: ReplicaMarks) -> LogVerification {
        let mut updates = Vec::new();
        let v = verify_log(log, marks, &mut |done, total| updates.push((done, total))).unwrap();
        assert!(updates.windows(2).all(|w| w[0].0 <= w[1].0), "progress only goes forward: {updates:?}");
        assert!(updates.iter().all(|(done, total)| done <= total), "{updates:?}");
        v
    }

    #[test]
    fn verify_log_finds_nothing_in_a_clean_log_and_counts_what_it_read() {
        let dir = tempfile::tempdir().unwrap();
        let log = three_batch_log(dir.path());
        let v = verify(&log, marks_at(dir.path(), 6));
        assert_eq!(v.findings, Vec::new());
        assert_eq!(v.notes, Vec::<String>::new());
        assert_eq!((v.segment_count, v.batch_count, v.record_count), (1, 3, 6));
        assert_eq!(v.bytes_checked, log.segments()[0].log_size().unwrap());
    }

    #[test]
    fn verify_log_places_checkpoint_findings_on_their_line() {
        let dir = tempfile::tempdir().unwrap();
        let log = three_batch_log(dir.path());
        let mut marks = marks_at(dir.path(), 6);
        marks.high_watermark.value = 9;
        marks.recovery_point.value = -1;
        marks.unclean_stop = true;
        let v = verify(&log, marks);
        let hw = &v.findings[0];
        assert_eq!(
            (hw.path.clone(), hw.line, hw.position, hw.offset),
            (dir.path().join("replication-offset-checkpoint"), Some(3), 4, Some(9))
        );
        assert_eq!(
            hw.what,
            "high watermark 9 is above the log end offset 6: acknowledged records at offsets 6 to 8 are not on disk"
        );
        assert_eq!(v.findings[1].what, "recovery point -1 is negative: no offset is");
        assert_eq!(v.findings.len(), 2);
        assert_eq!(v.notes.len(), 1);
        assert!(v.notes[0].starts_with("not shut down cleanly"), "{:?}", v.notes);
    }

    #[test]
    fn verify_log_reports_a_run_of_batches_the_cache_disagrees_with_once() {
        let dir = tempfile::tempdir().unwrap();
        drop(three_batch_log(dir.path()));
        // The cache says epoch 2 from offset 3: batch 3..=4 is stamped 1, batch 5 agrees.
        let cache_path = dir.path().join(names::LEADER_EPOCH_CHECKPOINT);
        checkpoint::write_epoch_checkpoint(&cache_path, &[(1, 0), (2, 3)]).unwrap();
        let log = Log::open(dir.path(), crate::log::LogConfig::default(), 0).unwrap();
        let v = verify(&log, marks_at(dir.path(), 6));
        assert_eq!(v.findings.len(), 1, "{:?}", v.findings);
        let f = &v.findings[0];
        assert_eq!(f.what, "batches 3 to 4 are stamped with epoch 1 but the epoch cache says epoch 2");
        assert_eq!((f.offset, f.path.clone()), (Some(3), log.segments()[0].log_path()));
        assert!(f.position > 0, "at the first batch of the run");
    }

    #[test]
    fn verify_log_flags_an_epoch_checkpoint_that_does_not_increase_and_a_snapshot_past_the_log_end() {
        let dir = tempfile::tempdir().unwrap();
        drop(three_batch_log(dir.path()));
        let cache_path = dir.path().join(names::LEADER_EPOCH_CHECKPOINT);
        std::fs::write(&cache_path, "0\n3\n1 0\n2 5\n2 6\n").unwrap();
        std::fs::write(dir.path().join("00000000000000000009.snapshot"), b"").unwrap();
        let log = Log::open(dir.path(), crate::log::LogConfig::default(), 0).unwrap();
        let v = verify(&log, marks_at(dir.path(), 6));
        let whats: Vec<&str> = v.findings.iter().map(|f| f.what.as_str()).collect();
        assert!(
            whats.contains(&"line 5: entry (2 6) does not increase over (2 5) in both epoch and start offset"),
            "{whats:?}"
        );
        let line = v.findings.iter().find(|f| f.path == cache_path).unwrap();
        assert_eq!(line.line, Some(5));
        assert!(whats.contains(&"producer snapshot at offset 9 is above the log end offset 6"), "{whats:?}");
    }

    #[test]
    fn verify_log_notes_a_torn_tail_instead_of_flagging_the_checkpoints_above_it() {
        let dir = tempfile::tempdir().unwrap();
        let log = three_batch_log(dir.path());
        let path = log.segments()[0].log_path();
        drop(log);
        let mut bytes = std::fs::read(&path).unwrap();
        bytes.truncate(bytes.len() - 3);
        std::fs::write(&path, &bytes).unwrap();
        let log = Log::open(dir.path(), crate::log::LogConfig::default(), 0).unwrap();
        let v = verify(&log, marks_at(dir.path(), 6));
        assert_eq!(v.findings.len(), 1, "{:?}", v.findings);
        assert!(v.findings[0].what.ends_with("trailing bytes do not hold a whole batch (torn write)"));
        assert!(v.notes.iter().any(|n| n.contains("the bytes past it are damaged")), "{:?}", v.notes);
    }

    #[test]
    fn epoch_rows_compare_the_checkpoint_with_the_stamps() {
        let entry = |leader_epoch, start_offset| crate::log::epoch_cache::EpochEntry { leader_epoch, start_offset };
        let cache = EpochCache::from_entries([entry(1, 0), entry(2, 4), entry(3, 8), entry(5, 10)]);
        let stamped = StampedEpochs {
            derived: EpochCache::from_entries([entry(1, 0), entry(2, 5), entry(4, 9)]),
            record_counts: [(1, 4), (2, 4)].into_iter().collect(),
        };
        let rows = epoch_rows(&cache, &stamped, 10, None);
        let got: Vec<(i32, i64, i64, u64, EpochAgreement)> =
            rows.iter().map(|r| (r.leader_epoch, r.start_offset, r.end_offset, r.record_count, r.agreement)).collect();
        assert_eq!(
            got,
            vec![
                (1, 0, 4, 4, EpochAgreement::Agrees),
                (2, 4, 8, 4, EpochAgreement::StartDiffers { stamped_start_offset: 5 }),
                (3, 8, 10, 0, EpochAgreement::OnlyInCheckpoint),
                (4, 9, 10, 0, EpochAgreement::OnlyInBatches),
                (5, 10, 10, 0, EpochAgreement::NoBatchesYet),
            ]
        );
    }

    #[test]
    fn stamped_epochs_count_only_v2_batches_with_an_epoch() {
        let rec = NewRecord { timestamp: 1, key: None, value: None, headers: vec![] };
        let mut stamped = StampedEpochs::default();
        for (base, epoch, count) in [(0i64, 3i32, 2usize), (2, -1, 1), (3, 4, 3)] {
            let bytes = encode_batch(&BatchSpec::plain(base, epoch), &vec![rec.clone(); count]);
            stamped.observe(&BatchIter::new(&bytes).next().unwrap());
        }
        assert_eq!(stamped.record_counts.into_iter().collect::<Vec<_>>(), vec![(3, 2), (4, 3)]);
        let starts: Vec<(i32, i64)> =
            stamped.derived.entries().iter().map(|e| (e.leader_epoch, e.start_offset)).collect();
        assert_eq!(starts, vec![(3, 0), (4, 3)]);
    }
}
