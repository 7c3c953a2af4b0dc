//! The log verifier shared by `check`, `dump`'s index views and recovery: one reader per index
//! kind, one join of index entries against the batches, and one set of batch rules. Findings
//! are data (file, byte position, offset, what, expected versus found); commands render them.
//!
//! Invariants: entries are read by [`read_offset_index`] / [`read_time_index`] only, with
//! Kafka's stop rule (`DumpLogSegments`: the first entry after the first whose offset is the
//! segment's base offset starts the zero-filled tail of an untrimmed index); nothing here
//! trusts a length, position or offset from disk before checking it; nothing here writes.

use super::index::{
    self, OffsetEntryCheck, OffsetPosition, TimeEntryCheck, TimestampOffset, OFFSET_ENTRY_BYTES, TIME_ENTRY_BYTES,
};
use crate::format::batch::{BatchIter, RawBatch};
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
                // The Kafka 2.x form: the offset of the record holding the max timestamp.
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::format::batch::{encode_batch, BatchSpec};
    use crate::format::record::NewRecord;

    fn offset_bytes(entries: &[(i32, u32)]) -> Vec<u8> {
        entries.iter().flat_map(|(r, p)| r.to_be_bytes().into_iter().chain(p.to_be_bytes())).collect()
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
}
