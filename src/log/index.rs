//! Offset index (`.index`) and time index (`.timeindex`) files (Kafka `OffsetIndex`,
//! `TimeIndex`, `AbstractIndex`, the index part of `LogSegment.append/recover`).
//!
//! Entries are big-endian: offset index `relativeOffset i32 | position i32` (8 bytes), time
//! index `timestamp i64 | relativeOffset i32` (12 bytes). A file's entry count is its length
//! divided by the entry size, as Kafka trusts it. [`IndexBuilder`] applies Kafka 4.0's
//! per-batch rule (KAFKA-806): an entry (batch lastOffset, batch start) whenever more than
//! `index.interval.bytes` were written since the last entry; the first batch of a segment is
//! never indexed. klog never preallocates: index files are always trimmed to their entries.

pub const OFFSET_ENTRY_BYTES: usize = 8;
pub const TIME_ENTRY_BYTES: usize = 12;

/// One offset-index entry, made absolute.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct OffsetPosition {
    pub offset: i64,
    pub position: u64,
}

/// One time-index entry, made absolute.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TimestampOffset {
    pub timestamp: i64,
    pub offset: i64,
}

/// Entries of an offset index held in `bytes` (trailing partial entry ignored).
pub fn decode_offset_entries(bytes: &[u8], base_offset: i64) -> impl Iterator<Item = OffsetPosition> + '_ {
    bytes.chunks_exact(OFFSET_ENTRY_BYTES).map(move |c| OffsetPosition {
        // Wrapping, as Java's `baseOffset + relativeOffset`: a name near Long.MAX must not panic.
        offset: base_offset.wrapping_add(i32::from_be_bytes([c[0], c[1], c[2], c[3]]) as i64),
        position: u32::from_be_bytes([c[4], c[5], c[6], c[7]]) as u64,
    })
}

/// Entries of a time index held in `bytes` (trailing partial entry ignored).
pub fn decode_time_entries(bytes: &[u8], base_offset: i64) -> impl Iterator<Item = TimestampOffset> + '_ {
    bytes.chunks_exact(TIME_ENTRY_BYTES).map(move |c| TimestampOffset {
        timestamp: i64::from_be_bytes(c[0..8].try_into().expect("8 bytes")),
        offset: base_offset.wrapping_add(i32::from_be_bytes(c[8..12].try_into().expect("4 bytes")) as i64),
    })
}

/// The last entry of an offset index, by the last whole slot.
pub fn last_offset_entry(bytes: &[u8], base_offset: i64) -> Option<OffsetPosition> {
    let n = bytes.len() / OFFSET_ENTRY_BYTES;
    (n > 0).then(|| {
        decode_offset_entries(&bytes[(n - 1) * OFFSET_ENTRY_BYTES..n * OFFSET_ENTRY_BYTES], base_offset)
            .next()
            .expect("one entry")
    })
}

/// The last entry of a time index.
pub fn last_time_entry(bytes: &[u8], base_offset: i64) -> Option<TimestampOffset> {
    let n = bytes.len() / TIME_ENTRY_BYTES;
    (n > 0).then(|| {
        decode_time_entries(&bytes[(n - 1) * TIME_ENTRY_BYTES..n * TIME_ENTRY_BYTES], base_offset)
            .next()
            .expect("one entry")
    })
}

/// `OffsetIndex.lookup`: the entry with the largest offset ≤ `target` (binary search; entries
/// are increasing in a valid index), or (base, 0). Entries are checked only for plausibility:
/// callers validate the position they land on.
pub fn lookup_offset(bytes: &[u8], base_offset: i64, target: i64) -> OffsetPosition {
    let n = bytes.len() / OFFSET_ENTRY_BYTES;
    let entry = |i: usize| {
        decode_offset_entries(&bytes[i * OFFSET_ENTRY_BYTES..(i + 1) * OFFSET_ENTRY_BYTES], base_offset)
            .next()
            .expect("one entry")
    };
    let (mut lo, mut hi) = (0usize, n);
    while lo < hi {
        let m = lo + (hi - lo) / 2;
        if entry(m).offset <= target {
            lo = m + 1;
        } else {
            hi = m;
        }
    }
    if lo == 0 {
        OffsetPosition { offset: base_offset, position: 0 }
    } else {
        entry(lo - 1)
    }
}

/// Builds index entries batch by batch, as `LogSegment.append` (4.0) and `LogSegment.recover`
/// do. Entries are buffered as encoded bytes; the caller writes them out.
#[derive(Debug, Clone)]
pub struct IndexBuilder {
    base_offset: i64,
    index_interval_bytes: u64,
    bytes_since_last_entry: u64,
    /// Max timestamp seen in the segment and the last offset of the batch holding it.
    max_timestamp: i64,
    offset_of_max_timestamp: i64,
    last_time_entry_timestamp: i64,
    last_indexed_offset: Option<i64>,
    /// Entries in the index files, written or pending.
    offset_entries: u64,
    time_entries: u64,
    pub pending_offset_entries: Vec<u8>,
    pub pending_time_entries: Vec<u8>,
}

impl IndexBuilder {
    /// A builder for an empty segment.
    pub fn new(base_offset: i64, index_interval_bytes: u64) -> Self {
        IndexBuilder {
            base_offset,
            index_interval_bytes,
            bytes_since_last_entry: 0,
            max_timestamp: -1,
            offset_of_max_timestamp: base_offset,
            last_time_entry_timestamp: -1,
            last_indexed_offset: None,
            offset_entries: 0,
            time_entries: 0,
            pending_offset_entries: Vec::new(),
            pending_time_entries: Vec::new(),
        }
    }

    /// A builder resuming a segment whose indexes end with the given entries. The caller
    /// then feeds [`IndexBuilder::observe`] the batches from `last_offset_entry.position`
    /// (or 0) up to the segment end.
    pub fn resume(
        base_offset: i64,
        index_interval_bytes: u64,
        last_offset_entry: Option<OffsetPosition>,
        last_time_entry: Option<TimestampOffset>,
        (offset_entries, time_entries): (u64, u64),
    ) -> Self {
        let mut b = IndexBuilder::new(base_offset, index_interval_bytes);
        b.offset_entries = offset_entries;
        b.time_entries = time_entries;
        b.last_indexed_offset = last_offset_entry.map(|e| e.offset);
        if let Some(t) = last_time_entry {
            b.max_timestamp = t.timestamp;
            b.offset_of_max_timestamp = t.offset;
            b.last_time_entry_timestamp = t.timestamp;
        }
        b
    }

    /// Account for a batch that is already in the file (no entry is made): used to resume.
    pub fn observe(&mut self, last_offset: i64, max_timestamp: i64, size_bytes: u64, since_last_entry: u64) {
        if max_timestamp > self.max_timestamp {
            self.max_timestamp = max_timestamp;
            self.offset_of_max_timestamp = last_offset;
        }
        self.bytes_since_last_entry = since_last_entry + size_bytes;
    }

    /// A batch of `size_bytes` is being appended at `position`: make entries if due.
    pub fn on_batch(&mut self, position: u64, last_offset: i64, max_timestamp: i64, size_bytes: u64) {
        if max_timestamp > self.max_timestamp {
            self.max_timestamp = max_timestamp;
            self.offset_of_max_timestamp = last_offset;
        }
        if self.bytes_since_last_entry > self.index_interval_bytes
            && self.last_indexed_offset.is_none_or(|o| last_offset > o)
        {
            self.pending_offset_entries.extend_from_slice(&((last_offset - self.base_offset) as i32).to_be_bytes());
            self.pending_offset_entries.extend_from_slice(&(position as u32).to_be_bytes());
            self.last_indexed_offset = Some(last_offset);
            self.offset_entries += 1;
            self.maybe_append_time_entry();
            self.bytes_since_last_entry = 0;
        }
        self.bytes_since_last_entry += size_bytes;
    }

    fn maybe_append_time_entry(&mut self) {
        if self.max_timestamp > self.last_time_entry_timestamp {
            self.pending_time_entries.extend_from_slice(&self.max_timestamp.to_be_bytes());
            self.pending_time_entries
                .extend_from_slice(&((self.offset_of_max_timestamp - self.base_offset) as i32).to_be_bytes());
            self.last_time_entry_timestamp = self.max_timestamp;
            self.time_entries += 1;
        }
    }

    /// The segment becomes inactive (roll, close, end of recovery): the final time-index entry.
    pub fn finish_segment(&mut self) {
        self.maybe_append_time_entry();
    }

    pub fn offset_entries(&self) -> u64 {
        self.offset_entries
    }

    pub fn time_entries(&self) -> u64 {
        self.time_entries
    }

    pub fn max_timestamp(&self) -> i64 {
        self.max_timestamp
    }
}

/// How one offset-index entry compares with the log beside it (what `kafka-dump-log` checks).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OffsetEntryCheck {
    /// A batch starts at the entry's position and ends at the entry's offset.
    Matches,
    /// It does not: `log_offset` is the last offset of whatever frames as a batch at that
    /// position (what kafka-dump-log reports), `batch_start` whether a batch of the scan starts there.
    Mismatch { log_offset: Option<i64>, batch_start: bool },
    /// No `.log` beside the index.
    NoLog,
}

/// How one time-index entry (T, O) compares with the log.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TimeEntryCheck {
    /// Kafka 3+ form: O is the last offset of a batch whose max timestamp is T.
    MatchesBatch,
    /// Kafka 2.x form: O is the record inside the batch that holds the max timestamp T.
    MatchesRecord,
    /// The batch holding O has another max timestamp.
    TimestampMismatch {
        log_timestamp: i64,
    },
    /// T does not increase over the previous entry's timestamp.
    OutOfOrder {
        previous_timestamp: i64,
    },
    /// No batch holds O; `found_log_offset` is the last offset of the first batch past it.
    NotFound {
        found_log_offset: Option<i64>,
    },
    NoLog,
}

/// Check every offset-index entry against the log bytes, in one pass over the batches
/// (entries are merge-joined by position, so memory stays that of the entries).
pub fn verify_offset_entries(entries: &[OffsetPosition], log: Option<&[u8]>) -> Vec<OffsetEntryCheck> {
    let Some(log) = log else { return vec![OffsetEntryCheck::NoLog; entries.len()] };
    let mut order: Vec<usize> = (0..entries.len()).collect();
    order.sort_by_key(|&i| entries[i].position);
    let mut out = vec![OffsetEntryCheck::Mismatch { log_offset: None, batch_start: false }; entries.len()];
    let mut k = 0;
    for batch in crate::format::batch::BatchIter::new(log) {
        while k < order.len() && entries[order[k]].position <= batch.position {
            let e = entries[order[k]];
            out[order[k]] = if e.position == batch.position && batch.last_offset() == e.offset {
                OffsetEntryCheck::Matches
            } else {
                OffsetEntryCheck::Mismatch {
                    log_offset: read_at(log, e.position).map(|b| b.last_offset()),
                    batch_start: e.position == batch.position,
                }
            };
            k += 1;
        }
    }
    // Entries past the last whole batch.
    for &i in &order[k..] {
        let log_offset = read_at(log, entries[i].position).map(|b| b.last_offset());
        out[i] = OffsetEntryCheck::Mismatch { log_offset, batch_start: false };
    }
    out
}

fn read_at(log: &[u8], position: u64) -> Option<crate::format::batch::RawBatch<'_>> {
    let position = usize::try_from(position).ok().filter(|p| *p < log.len())?;
    crate::format::batch::BatchIter::starting_at(log, position).next()
}

/// Check every time-index entry against the log bytes. Entries are expected in offset order;
/// one that goes back restarts the scan, so a damaged index costs time, not correctness.
/// Both the Kafka 3+ form (batch last offset) and the Kafka 2.x form (offset of the record
/// holding the max timestamp, checked by decoding that batch) are accepted.
pub fn verify_time_entries(entries: &[TimestampOffset], log: Option<&[u8]>) -> Vec<TimeEntryCheck> {
    let Some(log) = log else { return vec![TimeEntryCheck::NoLog; entries.len()] };
    let mut out = Vec::with_capacity(entries.len());
    let mut iter = crate::format::batch::BatchIter::new(log);
    let mut current = iter.next();
    let mut previous: Option<TimestampOffset> = None;
    for e in entries {
        if previous.is_some_and(|p| e.offset < p.offset) {
            iter = crate::format::batch::BatchIter::new(log);
            current = iter.next();
        }
        while current.is_some_and(|b| b.last_offset() < e.offset) {
            current = iter.next();
        }
        let check = match current {
            None => TimeEntryCheck::NotFound { found_log_offset: None },
            Some(b) if b.first_offset() > e.offset => {
                TimeEntryCheck::NotFound { found_log_offset: Some(b.last_offset()) }
            }
            Some(b) if b.max_timestamp() != e.timestamp => {
                TimeEntryCheck::TimestampMismatch { log_timestamp: b.max_timestamp() }
            }
            Some(_) if previous.is_some_and(|p| e.timestamp <= p.timestamp) => {
                TimeEntryCheck::OutOfOrder { previous_timestamp: previous.map_or(-1, |p| p.timestamp) }
            }
            Some(b) if b.last_offset() == e.offset => TimeEntryCheck::MatchesBatch,
            Some(b) => {
                let record_ts = b.records().ok().and_then(|d| {
                    d.decode().ok().and_then(|rs| rs.iter().find(|r| r.offset == e.offset).map(|r| r.timestamp))
                });
                match record_ts {
                    Some(ts) if ts == e.timestamp => TimeEntryCheck::MatchesRecord,
                    Some(ts) => TimeEntryCheck::TimestampMismatch { log_timestamp: ts },
                    None => TimeEntryCheck::NotFound { found_log_offset: Some(b.last_offset()) },
                }
            }
        };
        out.push(check);
        previous = Some(*e);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn builder_indexes_per_batch_after_the_interval() {
        let mut b = IndexBuilder::new(100, 4096);
        // ten 1000-byte batches of one record each
        for i in 0..10u64 {
            b.on_batch(i * 1000, 100 + i as i64, 1000 + i as i64, 1000);
        }
        b.finish_segment();
        let offsets: Vec<_> = decode_offset_entries(&b.pending_offset_entries, 100).collect();
        // bytes since last entry exceed 4096 at the batch starting at 5000 (5 batches before it).
        assert_eq!(offsets, vec![OffsetPosition { offset: 105, position: 5000 }]);
        let times: Vec<_> = decode_time_entries(&b.pending_time_entries, 100).collect();
        assert_eq!(
            times,
            vec![TimestampOffset { timestamp: 1005, offset: 105 }, TimestampOffset { timestamp: 1009, offset: 109 }]
        );
    }

    fn three_batches() -> (Vec<u8>, Vec<u64>) {
        use crate::format::batch::{encode_batch, BatchSpec};
        use crate::format::record::NewRecord;
        let rec = |ts| NewRecord { timestamp: ts, key: None, value: Some(b"v".to_vec()), headers: vec![] };
        let mut log = Vec::new();
        let mut starts = Vec::new();
        // offsets 0..=1 (max ts 20 at offset 0), 2..=4 (max ts 50 at offset 3), 5 (ts 60)
        for (base, ts) in [(0i64, vec![20i64, 10]), (2, vec![30, 50, 40]), (5, vec![60])] {
            starts.push(log.len() as u64);
            let recs: Vec<_> = ts.into_iter().map(rec).collect();
            log.extend(encode_batch(&BatchSpec::plain(base, 0), &recs));
        }
        (log, starts)
    }

    #[test]
    fn offset_entries_are_checked_against_the_batches() {
        let (log, starts) = three_batches();
        let entries = [
            OffsetPosition { offset: 4, position: starts[1] },
            OffsetPosition { offset: 6, position: starts[2] },
            OffsetPosition { offset: 5, position: starts[1] + 3 },
            OffsetPosition { offset: 9, position: 100_000 },
        ];
        let got = verify_offset_entries(&entries, Some(&log));
        assert_eq!(got[0], OffsetEntryCheck::Matches);
        assert_eq!(got[1], OffsetEntryCheck::Mismatch { log_offset: Some(5), batch_start: true });
        assert!(matches!(got[2], OffsetEntryCheck::Mismatch { batch_start: false, .. }));
        assert_eq!(got[3], OffsetEntryCheck::Mismatch { log_offset: None, batch_start: false });
        assert_eq!(verify_offset_entries(&entries[..1], None), vec![OffsetEntryCheck::NoLog]);
    }

    #[test]
    fn time_entries_accept_the_batch_and_the_kafka_2x_record_form() {
        let (log, _) = three_batches();
        let t = |timestamp, offset| TimestampOffset { timestamp, offset };
        // Kafka 3+: batch last offsets
        let got = verify_time_entries(&[t(20, 1), t(50, 4), t(60, 5)], Some(&log));
        assert_eq!(got, vec![TimeEntryCheck::MatchesBatch; 3]);
        // Kafka 2.x: the record holding the max timestamp
        let got = verify_time_entries(&[t(20, 0), t(50, 3), t(60, 5)], Some(&log));
        assert_eq!(
            got,
            vec![TimeEntryCheck::MatchesRecord, TimeEntryCheck::MatchesRecord, TimeEntryCheck::MatchesBatch]
        );
        // wrong timestamps, a record whose own timestamp is not the max, order, and offsets past the log
        let got = verify_time_entries(&[t(21, 1), t(50, 2), t(50, 4), t(70, 9)], Some(&log));
        assert_eq!(
            got,
            vec![
                TimeEntryCheck::TimestampMismatch { log_timestamp: 20 },
                TimeEntryCheck::TimestampMismatch { log_timestamp: 30 },
                TimeEntryCheck::OutOfOrder { previous_timestamp: 50 },
                TimeEntryCheck::NotFound { found_log_offset: None },
            ]
        );
    }

    #[test]
    fn lookup_finds_the_floor_entry() {
        let mut bytes = Vec::new();
        for (rel, pos) in [(5i32, 100u32), (9, 300), (20, 900)] {
            bytes.extend_from_slice(&rel.to_be_bytes());
            bytes.extend_from_slice(&pos.to_be_bytes());
        }
        assert_eq!(lookup_offset(&bytes, 0, 3), OffsetPosition { offset: 0, position: 0 });
        assert_eq!(lookup_offset(&bytes, 0, 5), OffsetPosition { offset: 5, position: 100 });
        assert_eq!(lookup_offset(&bytes, 0, 19), OffsetPosition { offset: 9, position: 300 });
        assert_eq!(lookup_offset(&bytes, 0, 99), OffsetPosition { offset: 20, position: 900 });
        assert_eq!(last_offset_entry(&bytes, 0), Some(OffsetPosition { offset: 20, position: 900 }));
        assert_eq!(lookup_offset(&[], 7, 99), OffsetPosition { offset: 7, position: 0 });
    }

    #[test]
    fn entries_of_a_segment_named_near_the_largest_offset_wrap_instead_of_panicking() {
        // Found by fuzzing (fuzz/ index target): `09223372036854775807.index` is a legal name,
        // and base + relative overflowed. Kafka's Java arithmetic wraps; so does this.
        let base = i64::MAX;
        let offset_entry = [0, 0, 0, 1, 0, 0, 0, 0];
        let got: Vec<_> = decode_offset_entries(&offset_entry, base).collect();
        assert_eq!(got, [OffsetPosition { offset: i64::MIN, position: 0 }]);
        assert_eq!(lookup_offset(&offset_entry, base, i64::MAX), got[0]);
        let time_entry = [0, 0, 0, 0, 0, 0, 0, 5, 0x7f, 0xff, 0xff, 0xff];
        let got: Vec<_> = decode_time_entries(&time_entry, base).collect();
        assert_eq!(got, [TimestampOffset { timestamp: 5, offset: base.wrapping_add(i32::MAX as i64) }]);
    }
}
