//! Comparing logs record by record: a pull cursor over a log's records (so two logs can be
//! walked side by side with constant memory) and the range summary of `klog diff`.
//!
//! Two records agree when they have the same offset, leader epoch, timestamp, key, value and
//! headers; batch CRCs are compared too, so re-batched but equal records still show as agreeing
//! while their batch-level identity (what Kafka's fetch copies) is reported separately.

use crate::error::Result;
use crate::format::batch::BatchIter;
use crate::log::segment::{FileBytes, Segment};
use crate::log::Log;
use std::collections::VecDeque;

/// A record with its batch identity, owning its bytes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OwnedRecord {
    pub offset: i64,
    pub leader_epoch: i32,
    pub batch_base_offset: i64,
    pub batch_last_offset: i64,
    pub batch_crc: u32,
    pub timestamp: i64,
    pub key: Option<Vec<u8>>,
    pub value: Option<Vec<u8>>,
    pub headers: Vec<(Vec<u8>, Option<Vec<u8>>)>,
}

impl OwnedRecord {
    /// Same record content and epoch (batch boundaries may differ).
    pub fn same_record(&self, other: &OwnedRecord) -> bool {
        self.offset == other.offset
            && self.leader_epoch == other.leader_epoch
            && self.timestamp == other.timestamp
            && self.key == other.key
            && self.value == other.value
            && self.headers == other.headers
    }
    /// Same batch as Kafka's fetch would copy it: offsets, epoch and CRC.
    pub fn same_batch(&self, other: &OwnedRecord) -> bool {
        self.batch_base_offset == other.batch_base_offset
            && self.batch_last_offset == other.batch_last_offset
            && self.leader_epoch == other.leader_epoch
            && self.batch_crc == other.batch_crc
    }
}

/// Walks the records of a log from an offset to an end offset, one batch decoded at a time.
pub struct RecordCursor {
    segments: Vec<Segment>,
    segment: usize,
    bytes: Option<FileBytes>,
    position: usize,
    from: i64,
    end: i64,
    pending: VecDeque<OwnedRecord>,
    released: usize,
    /// Batches whose records could not be decoded, in the order met (never skipped silently:
    /// [`diff_logs`] reports each as a difference).
    pub undecodable: Vec<UndecodableBatch>,
    /// Keys, values and headers are copied up to this many bytes each (a picture shows a few).
    bytes_max: usize,
}

/// A batch whose records a cursor could not decode: where it is and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UndecodableBatch {
    pub path: std::path::PathBuf,
    pub position: u64,
    pub base_offset: i64,
    pub last_offset: i64,
    pub error: String,
}

/// Which replica of a diff a batch belongs to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Side {
    A,
    B,
}

impl RecordCursor {
    /// Records with `from <= offset < end`.
    pub fn new(log: &Log, from: i64, end: i64) -> Result<RecordCursor> {
        let loc = log.locate(from)?;
        let (segment, position) = match loc {
            Some(l) => (l.segment, l.position as usize),
            None => (log.segments().len(), 0),
        };
        Ok(RecordCursor {
            segments: log.segments().to_vec(),
            segment,
            bytes: None,
            position,
            from,
            end,
            pending: VecDeque::new(),
            released: 0,
            undecodable: Vec::new(),
            bytes_max: usize::MAX,
        })
    }

    /// Copy at most `n` bytes of each key, value and header (a reader that shows a prefix
    /// never holds a 40 MB value).
    pub fn with_bytes_max(mut self, n: usize) -> RecordCursor {
        self.bytes_max = n;
        self
    }

    /// The next record, or `None` at the end.
    pub fn next_record(&mut self) -> Result<Option<OwnedRecord>> {
        loop {
            if let Some(r) = self.pending.pop_front() {
                if r.offset >= self.end {
                    self.pending.clear();
                    self.segment = self.segments.len();
                    return Ok(None);
                }
                if r.offset >= self.from {
                    return Ok(Some(r));
                }
                continue;
            }
            if self.segment >= self.segments.len() {
                return Ok(None);
            }
            if self.bytes.is_none() {
                self.bytes = Some(self.segments[self.segment].read_log()?);
            }
            let bytes = self.bytes.as_ref().expect("mapped");
            bytes.release_before(self.position, &mut self.released);
            let Some(batch) = BatchIter::starting_at(bytes, self.position).next() else {
                self.segment += 1;
                self.bytes = None;
                self.position = 0;
                self.released = 0;
                continue;
            };
            self.position = (batch.position + batch.size_bytes() as u64) as usize;
            if batch.base_offset() >= self.end {
                self.segment = self.segments.len();
                return Ok(None);
            }
            let decoded = batch.records().and_then(|d| {
                d.decode().map(|records| {
                    records
                        .into_iter()
                        .filter(|r| r.offset >= self.from && r.offset < self.end)
                        .map(|r| OwnedRecord {
                            offset: r.offset,
                            leader_epoch: batch.partition_leader_epoch(),
                            batch_base_offset: batch.base_offset(),
                            batch_last_offset: batch.last_offset(),
                            batch_crc: batch.stored_crc(),
                            timestamp: r.timestamp,
                            key: r.key.map(|k| prefix(k, self.bytes_max)),
                            value: r.value.map(|v| prefix(v, self.bytes_max)),
                            headers: r
                                .headers
                                .iter()
                                .map(|h| (prefix(h.key, self.bytes_max), h.value.map(|v| prefix(v, self.bytes_max))))
                                .collect(),
                        })
                        .collect::<Vec<_>>()
                })
            });
            match decoded {
                Ok(records) => self.pending.extend(records),
                Err(e) => self.undecodable.push(UndecodableBatch {
                    path: self.segments[self.segment].log_path(),
                    position: batch.position,
                    base_offset: batch.base_offset(),
                    last_offset: batch.last_offset(),
                    error: e.to_string(),
                }),
            }
        }
    }
}

/// The first `n` bytes of `bytes`, cut back to a UTF-8 character boundary when the bytes are
/// text that the cut would split.
pub fn prefix(bytes: &[u8], n: usize) -> Vec<u8> {
    if bytes.len() <= n {
        return bytes.to_vec();
    }
    let cut = &bytes[..n];
    match std::str::from_utf8(cut) {
        Err(e) if e.error_len().is_none() => cut[..e.valid_up_to()].to_vec(),
        _ => cut.to_vec(),
    }
}

/// How two replicas compare over a range of offsets.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RangeKind {
    Agree,
    Differ,
    OnlyA,
    OnlyB,
}

impl RangeKind {
    pub fn name(self) -> &'static str {
        match self {
            RangeKind::Agree => "agree",
            RangeKind::Differ => "differ",
            RangeKind::OnlyA => "only_a",
            RangeKind::OnlyB => "only_b",
        }
    }
}

/// A maximal run of offsets with one kind: `first..=last`, `records` offsets with records.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DiffRange {
    pub kind: RangeKind,
    pub first_offset: i64,
    pub last_offset: i64,
    pub record_count: u64,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DiffOutcome {
    pub ranges: Vec<DiffRange>,
    pub first_divergent_offset: Option<i64>,
    /// The first differing pair, for the report.
    pub first_difference: Option<(OwnedRecord, OwnedRecord)>,
    /// Batches either side could not decode: each is a difference (its records cannot be
    /// compared), reported with its file and byte position.
    pub undecodable: Vec<(Side, UndecodableBatch)>,
    /// Names of segment files (`.log`) either side holds that are no regular file (a FIFO, a
    /// symlink loop): records that may be there are not compared, so the logs are not known
    /// identical (`check` reports the same names as findings).
    pub unreadable_segments: Vec<(Side, crate::log::segment::NotRegular)>,
}

impl DiffOutcome {
    /// Identical up to the shorter log end (only-one-side tails are not divergence), with
    /// every batch decoded and every segment file read.
    pub fn identical_up_to_shorter(&self) -> bool {
        self.first_divergent_offset.is_none() && self.undecodable.is_empty() && self.unreadable_segments.is_empty()
    }
}

/// Compare two logs record by record over all offsets.
pub fn diff_logs(a: &Log, b: &Log) -> Result<DiffOutcome> {
    diff_logs_within(a, b, None, i64::MAX)
}

/// [`diff_logs`] over the offsets `from <= offset < end` only (`from` `None`: the lower of the
/// two logs' first offsets), unreadable segment files included (`klog diff --from --to`).
pub fn diff_logs_within(a: &Log, b: &Log, from: Option<i64>, end: i64) -> Result<DiffOutcome> {
    let start = from.unwrap_or_else(|| a.first_offset().unwrap_or(0).min(b.first_offset().unwrap_or(0)));
    let mut out = compare(a, b, start, end, false)?;
    for (side, log) in [(Side::A, a), (Side::B, b)] {
        let segments = log.not_regular_files().iter().filter(|n| n.path.extension().is_some_and(|e| e == "log"));
        out.unreadable_segments.extend(segments.map(|n| (side, n.clone())));
    }
    Ok(out)
}

/// [`diff_logs`] over the offsets `from <= offset < end` only.
pub fn diff_range(a: &Log, b: &Log, from: i64, end: i64) -> Result<DiffOutcome> {
    compare(a, b, from, end, false)
}

/// Where two logs first hold different records (`None`: identical up to the shorter log end),
/// reading as little as that takes: batches byte-identical on both sides (what a follower's
/// fetch copies) are skipped without decoding their records, and the record-by-record walk
/// starts at the first batch that differs and stops at the first difference. Unlike
/// [`diff_logs`], offsets below the later of the two log starts are not compared (records below
/// a replica's log start were deleted by retention, not lost); from there the answer is
/// `diff_logs`'s `first_divergent_offset`. `None` too when either log is empty.
pub fn first_divergence(a: &Log, b: &Log) -> Result<Option<i64>> {
    first_divergence_with(a, b, false)
}

/// [`first_divergence`] of two logs whose every batch CRC was just verified (`klog check`): a
/// v2 batch is taken as the same bytes on both sides when its 61-byte header is (base offset,
/// size, leader epoch, CRC over everything after it, offsets, timestamps, producer, count), so
/// only headers are read in the common prefix. Legacy (v0/v1) entries are compared whole.
pub fn first_divergence_crc_verified(a: &Log, b: &Log) -> Result<Option<i64>> {
    first_divergence_with(a, b, true)
}

/// `RECORD_BATCH_OVERHEAD`: the v2 batch header, CRC included.
const V2_HEADER_BYTES: usize = 61;

fn first_divergence_with(a: &Log, b: &Log, crc_verified: bool) -> Result<Option<i64>> {
    let (Some(first_a), Some(first_b)) = (a.first_offset(), b.first_offset()) else { return Ok(None) };
    let (mut wa, mut wb) = (BatchWalk::new(a), BatchWalk::new(b));
    let mut from = first_a.max(first_b);
    let same = |x: &[u8], y: &[u8]| {
        if crc_verified && x.len() >= V2_HEADER_BYTES && x.get(16) == Some(&2) {
            x[..V2_HEADER_BYTES] == y[..V2_HEADER_BYTES.min(y.len())]
        } else {
            x == y
        }
    };
    // Batches wholly below the other log's start are not compared; from there, the prefix of
    // identical batches is skipped batch by batch.
    let (mut x, mut y) = (wa.next_batch()?, wb.next_batch()?);
    while let (Some(bx), Some(by)) = (&x, &y) {
        if bx.next_offset <= by.base_offset {
            x = wa.next_batch()?;
        } else if by.next_offset <= bx.base_offset {
            y = wb.next_batch()?;
        } else {
            break;
        }
    }
    while let (Some(bx), Some(by)) = (&x, &y) {
        if bx.base_offset != by.base_offset || !same(wa.bytes(bx), wb.bytes(by)) {
            break;
        }
        from = from.max(bx.next_offset);
        (x, y) = (wa.next_batch()?, wb.next_batch()?);
    }
    let end = a.log_end_offset().min(b.log_end_offset());
    if from >= end {
        return Ok(None);
    }
    Ok(compare(a, b, from, end, true)?.first_divergent_offset)
}

/// One framed batch found by a [`BatchWalk`]: its byte range in its segment's file.
struct WalkedBatch {
    start: usize,
    end: usize,
    base_offset: i64,
    next_offset: i64,
}

/// The batches of a log in order, one segment mapped at a time, pages behind given back.
struct BatchWalk {
    segments: Vec<Segment>,
    segment: usize,
    bytes: Option<FileBytes>,
    position: usize,
    released: usize,
}

impl BatchWalk {
    fn new(log: &Log) -> BatchWalk {
        BatchWalk { segments: log.segments().to_vec(), segment: 0, bytes: None, position: 0, released: 0 }
    }

    fn next_batch(&mut self) -> Result<Option<WalkedBatch>> {
        while self.segment < self.segments.len() {
            if self.bytes.is_none() {
                self.bytes = Some(self.segments[self.segment].read_log()?);
            }
            let bytes = self.bytes.as_ref().expect("mapped");
            bytes.release_before(self.position, &mut self.released);
            if let Some(batch) = BatchIter::starting_at(bytes, self.position).next() {
                let (start, end) = (self.position, self.position + batch.size_bytes());
                self.position = end;
                let (base_offset, next_offset) = (batch.base_offset(), batch.last_offset().saturating_add(1));
                return Ok(Some(WalkedBatch { start, end, base_offset, next_offset }));
            }
            (self.segment, self.bytes, self.position, self.released) = (self.segment + 1, None, 0, 0);
        }
        Ok(None)
    }

    fn bytes(&self, b: &WalkedBatch) -> &[u8] {
        self.bytes.as_deref().map_or(&[], |bytes| &bytes[b.start..b.end])
    }
}

impl DiffOutcome {
    /// Count the record at `offset` into the last range when it is of the same kind, else
    /// start a range.
    fn extend_ranges(&mut self, kind: RangeKind, offset: i64) {
        match self.ranges.last_mut() {
            Some(r) if r.kind == kind => {
                r.last_offset = offset;
                r.record_count += 1;
            }
            _ => self.ranges.push(DiffRange { kind, first_offset: offset, last_offset: offset, record_count: 1 }),
        }
    }

    /// After the walk: a record one side has and the other lacks below `shorter` (the shorter
    /// log's end) is a divergence, and so is a batch either cursor could not decode.
    fn settle_first_divergence(&mut self, shorter: i64, ca: &mut RecordCursor, cb: &mut RecordCursor) {
        // Gaps where one side has a record and the other does not, inside both logs' ranges, are
        // divergence too (a compacted side aside, the logs disagree on what exists).
        if self.first_divergent_offset.is_none() {
            self.first_divergent_offset = self
                .ranges
                .iter()
                .find(|r| matches!(r.kind, RangeKind::OnlyA | RangeKind::OnlyB) && r.first_offset < shorter)
                .map(|r| r.first_offset);
        }
        // A batch that does not decode is never skipped silently: its records cannot be compared,
        // so the logs are not known to agree from its first offset on.
        self.undecodable.extend(ca.undecodable.drain(..).map(|u| (Side::A, u)));
        self.undecodable.extend(cb.undecodable.drain(..).map(|u| (Side::B, u)));
        if let Some(first) = self.undecodable.iter().map(|(_, u)| u.base_offset).min() {
            if self.first_divergent_offset.is_none_or(|o| first < o) {
                self.first_divergent_offset = Some(first);
                self.first_difference = None;
            }
        }
    }
}

/// The record-by-record comparison over `from <= offset < end`; with `stop_at_first`, it ends at
/// the first differing pair (the ranges then stop there too).
fn compare(a: &Log, b: &Log, from: i64, end: i64, stop_at_first: bool) -> Result<DiffOutcome> {
    let mut ca = RecordCursor::new(a, from, end)?;
    let mut cb = RecordCursor::new(b, from, end)?;
    let mut ra = ca.next_record()?;
    let mut rb = cb.next_record()?;
    let mut out = DiffOutcome {
        ranges: Vec::new(),
        first_divergent_offset: None,
        first_difference: None,
        undecodable: Vec::new(),
        unreadable_segments: Vec::new(),
    };
    loop {
        let (kind, offset, advance_a, advance_b) = match (&ra, &rb) {
            (None, None) => break,
            (Some(x), None) => (RangeKind::OnlyA, x.offset, true, false),
            (None, Some(y)) => (RangeKind::OnlyB, y.offset, false, true),
            (Some(x), Some(y)) if x.offset < y.offset => (RangeKind::OnlyA, x.offset, true, false),
            (Some(x), Some(y)) if y.offset < x.offset => (RangeKind::OnlyB, y.offset, false, true),
            (Some(x), Some(y)) if x.same_record(y) => (RangeKind::Agree, x.offset, true, true),
            (Some(x), Some(y)) => {
                if out.first_divergent_offset.is_none() {
                    out.first_divergent_offset = Some(x.offset);
                    out.first_difference = Some((x.clone(), y.clone()));
                }
                (RangeKind::Differ, x.offset, true, true)
            }
        };
        out.extend_ranges(kind, offset);
        if stop_at_first && kind != RangeKind::Agree {
            break;
        }
        if advance_a {
            ra = ca.next_record()?;
        }
        if advance_b {
            rb = cb.next_record()?;
        }
    }
    let shorter = a.log_end_offset().min(b.log_end_offset()).min(end);
    out.settle_first_divergence(shorter, &mut ca, &mut cb);
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::format::batch::{encode_batch, BatchSpec};
    use crate::format::record::NewRecord;
    use crate::log::LogConfig;
    use std::path::Path;

    /// A log in `dir` starting at `start`, holding one batch per `(epoch, values)`.
    fn log_of(dir: &Path, start: i64, batches: Batches) -> Log {
        let mut log = Log::open(dir, LogConfig::default(), 0).unwrap();
        if start > 0 {
            log.truncate_fully_and_start_at(start).unwrap();
        }
        for (epoch, values) in batches {
            let records: Vec<NewRecord> = values
                .iter()
                .map(|v| NewRecord { timestamp: 1, key: None, value: Some(v.as_bytes().to_vec()), headers: vec![] })
                .collect();
            let bytes = encode_batch(&BatchSpec::plain(log.log_end_offset(), *epoch), &records);
            log.append_batch(BatchIter::new(&bytes).next().unwrap()).unwrap();
        }
        log.finish().unwrap();
        log
    }

    /// A log's batches: `(leader epoch, record values)` each.
    type Batches<'a> = &'a [(i32, &'a [&'a str])];

    fn both(a: &Log, b: &Log) -> (Option<i64>, Option<i64>) {
        (first_divergence(a, b).unwrap(), first_divergence_crc_verified(a, b).unwrap())
    }

    #[test]
    fn first_divergence_agrees_with_diff_logs_and_reads_identical_batches_as_one() {
        let cases: &[(Batches, Batches)] = &[
            // identical
            (&[(0, &["a", "b"]), (0, &["c"])], &[(0, &["a", "b"]), (0, &["c"])]),
            // another record inside the second batch
            (&[(0, &["a", "b"]), (0, &["c", "d"])], &[(0, &["a", "b"]), (0, &["c", "x"])]),
            // the same records in other batches: no divergence
            (&[(0, &["a", "b", "c"])], &[(0, &["a"]), (0, &["b", "c"])]),
            // one log shorter: no divergence up to its end
            (&[(0, &["a", "b"]), (1, &["c"])], &[(0, &["a", "b"])]),
            // another epoch from offset 2
            (&[(0, &["a", "b"]), (1, &["c"])], &[(0, &["a", "b"]), (2, &["c"])]),
        ];
        for (i, (x, y)) in cases.iter().enumerate() {
            let (da, db) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
            let (a, b) = (log_of(da.path(), 0, x), log_of(db.path(), 0, y));
            let expected = diff_logs(&a, &b).unwrap().first_divergent_offset;
            assert_eq!(both(&a, &b), (expected, expected), "case {i}");
        }
    }

    #[test]
    fn first_divergence_compares_from_the_later_log_start() {
        let (da, db) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
        let a = log_of(da.path(), 0, &[(0, &["a", "b"]), (0, &["c"]), (1, &["d"])]);
        let b = log_of(db.path(), 2, &[(0, &["c"]), (1, &["d"])]);
        // diff_logs counts offsets 0-1 (below b's start) as a difference; the records below a
        // log start were deleted, not lost.
        assert_eq!(diff_logs(&a, &b).unwrap().first_divergent_offset, Some(0));
        assert_eq!(both(&a, &b), (None, None));
        let dc = tempfile::tempdir().unwrap();
        let c = log_of(dc.path(), 2, &[(0, &["c"]), (2, &["x"])]);
        assert_eq!(both(&a, &c), (Some(3), Some(3)));
    }
}
