//! Offset index (`.index`) and time index (`.timeindex`) files (Kafka `OffsetIndex`,
//! `TimeIndex`, `AbstractIndex`, the index part of `LogSegment.append/recover`).
//!
//! Entries are big-endian: offset index `relativeOffset i32 | position i32` (8 bytes), time
//! index `timestamp i64 | relativeOffset i32` (12 bytes). A file's entry count is its length
//! divided by the entry size, as Kafka trusts it. [`IndexBuilder`] applies the per-batch rule
//! of Kafka 4.0.1 and later (KAFKA-806: `LogSegment.append(long, MemoryRecords)` walks the
//! batches; 4.0.0's `append(long, long, long, MemoryRecords)` still indexed once per append, as
//! the release jars show): an entry (batch lastOffset, batch start) whenever more than
//! `index.interval.bytes` were written since the last entry; the first batch of a segment is
//! never indexed. klog never preallocates: index files are always trimmed to their entries.

pub const OFFSET_ENTRY_BYTES: usize = 8;
pub const TIME_ENTRY_BYTES: usize = 12;

/// `OffsetIndex.canAppendOffset`: `offset − base_offset` fits an index entry's relative int32
/// ([0, Int32.MAX]). A batch whose last offset does not is what Kafka's loader meets as a
/// `LogSegmentOffsetOverflowException`.
pub fn offset_fits_segment(base_offset: i64, offset: i64) -> bool {
    offset.checked_sub(base_offset).is_some_and(|d| (0..=i32::MAX as i64).contains(&d))
}

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

/// Entry `i` of an offset index held in `bytes`, if the file holds it whole. The only place
/// offset-index bytes are decoded (readers: [`super::verify::read_offset_index`] and the
/// lookups below).
pub fn offset_entry_at(bytes: &[u8], base_offset: i64, i: usize) -> Option<OffsetPosition> {
    let c = bytes.get(i.checked_mul(OFFSET_ENTRY_BYTES)?..(i + 1).checked_mul(OFFSET_ENTRY_BYTES)?)?;
    Some(OffsetPosition {
        // Wrapping, as Java's `baseOffset + relativeOffset`: a name near Long.MAX must not panic.
        offset: base_offset.wrapping_add(i32::from_be_bytes([c[0], c[1], c[2], c[3]]) as i64),
        position: u32::from_be_bytes([c[4], c[5], c[6], c[7]]) as u64,
    })
}

/// Entry `i` of a time index held in `bytes`, if the file holds it whole. The only place
/// time-index bytes are decoded.
pub fn time_entry_at(bytes: &[u8], base_offset: i64, i: usize) -> Option<TimestampOffset> {
    let c = bytes.get(i.checked_mul(TIME_ENTRY_BYTES)?..(i + 1).checked_mul(TIME_ENTRY_BYTES)?)?;
    Some(TimestampOffset {
        timestamp: i64::from_be_bytes([c[0], c[1], c[2], c[3], c[4], c[5], c[6], c[7]]),
        offset: base_offset.wrapping_add(i32::from_be_bytes([c[8], c[9], c[10], c[11]]) as i64),
    })
}

/// The last entry of an offset index, by the last whole slot (Kafka trusts the length).
pub fn last_offset_entry(bytes: &[u8], base_offset: i64) -> Option<OffsetPosition> {
    (bytes.len() / OFFSET_ENTRY_BYTES).checked_sub(1).and_then(|i| offset_entry_at(bytes, base_offset, i))
}

/// The last entry of a time index.
pub fn last_time_entry(bytes: &[u8], base_offset: i64) -> Option<TimestampOffset> {
    (bytes.len() / TIME_ENTRY_BYTES).checked_sub(1).and_then(|i| time_entry_at(bytes, base_offset, i))
}

/// `AbstractIndex.largestLowerBoundSlotFor(idx, target, KEY)` (`indexSlotRangeFor` with
/// `LARGEST_LOWER_BOUND`): the slot of an entry whose offset is at or below `target`, `None` when
/// the first entry is above it (or the index is empty). The one offset-index search: every
/// lookup goes through it, so a damaged index (repeated or decreasing offsets) answers as in
/// Kafka. As Kafka does: the last `warmEntries` (8192 bytes' worth) are searched alone when the
/// target is above the first of them, else the rest; the binary search stops at the first
/// entry equal to the target it meets, so with repeated offsets the range decides which entry
/// answers (`AbstractIndex.java`, `indexSlotRangeFor` and `binarySearch`). The count is the
/// length divided by the entry size, a zero tail included.
pub fn lookup_offset_slot(bytes: &[u8], base_offset: i64, target: i64) -> Option<usize> {
    let count = bytes.len() / OFFSET_ENTRY_BYTES;
    if count == 0 {
        return None;
    }
    let offset = |i: usize| offset_entry_at(bytes, base_offset, i).map_or(base_offset, |e| e.offset);
    const WARM_ENTRIES: usize = 8192 / OFFSET_ENTRY_BYTES;
    let first_hot = count.saturating_sub(1 + WARM_ENTRIES);
    let (mut lo, mut hi) = if offset(first_hot) < target {
        (first_hot, count - 1)
    } else if offset(0) > target {
        return None;
    } else {
        (0, first_hot)
    };
    while lo < hi {
        let mid = (lo + hi).div_ceil(2);
        match offset(mid).cmp(&target) {
            std::cmp::Ordering::Greater => hi = mid - 1,
            std::cmp::Ordering::Less => lo = mid,
            std::cmp::Ordering::Equal => return Some(mid),
        }
    }
    Some(lo)
}

/// `OffsetIndex.lookup`: the entry [`lookup_offset_slot`] finds, or (base, 0) when none is.
/// Entries are checked only for plausibility: callers validate the position they land on.
pub fn lookup_offset(bytes: &[u8], base_offset: i64, target: i64) -> OffsetPosition {
    let floor = OffsetPosition { offset: base_offset, position: 0 };
    lookup_offset_slot(bytes, base_offset, target).and_then(|i| offset_entry_at(bytes, base_offset, i)).unwrap_or(floor)
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

    /// Whether a batch ending at `last_offset` appended now would get an offset-index entry
    /// whose offset does not increase over the last one (`OffsetIndex.append` throws
    /// `InvalidOffsetException` there).
    pub fn would_index_backwards(&self, last_offset: i64) -> bool {
        self.bytes_since_last_entry > self.index_interval_bytes
            && self.last_indexed_offset.is_some_and(|o| last_offset <= o)
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
    /// The form of Kafka 3.7 and later (and of every release's recovery and follower append):
    /// O is the last offset of a batch whose max timestamp is T.
    MatchesBatch,
    /// The form of a leader's append on Kafka 3.6 and earlier (`LogValidator`
    /// `offsetOfMaxTimestamp`, 3.6.2): O is the record inside the batch that holds T.
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
        let offsets: Vec<_> = super::super::verify::read_offset_index(&b.pending_offset_entries, 100).entries;
        // bytes since last entry exceed 4096 at the batch starting at 5000 (5 batches before it).
        assert_eq!(offsets, vec![OffsetPosition { offset: 105, position: 5000 }]);
        let times: Vec<_> = super::super::verify::read_time_index(&b.pending_time_entries, 100).entries;
        assert_eq!(
            times,
            vec![TimestampOffset { timestamp: 1005, offset: 105 }, TimestampOffset { timestamp: 1009, offset: 109 }]
        );
    }

    #[test]
    fn a_resumed_builder_never_repeats_the_last_time_entry() {
        let last = TimestampOffset { timestamp: 500, offset: 102 };
        let mut b = IndexBuilder::resume(100, 4096, None, Some(last), (0, 1));
        // The batch that already holds the max timestamp, seen again on resume.
        b.observe(102, 500, 80, 0);
        b.finish_segment();
        assert!(b.pending_time_entries.is_empty(), "timestamp 500 is not above the last entry's");
        // An older timestamp later in the segment does not make an entry either.
        b.on_batch(80, 103, 400, 80);
        b.finish_segment();
        assert!(b.pending_time_entries.is_empty());
        b.on_batch(160, 104, 501, 80);
        b.finish_segment();
        assert_eq!(
            super::super::verify::read_time_index(&b.pending_time_entries, 100).entries,
            vec![TimestampOffset { timestamp: 501, offset: 104 }]
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

    fn offset_index(entries: &[(i32, u32)]) -> Vec<u8> {
        entries.iter().flat_map(|(rel, pos)| [rel.to_be_bytes(), pos.to_be_bytes()].concat()).collect()
    }

    /// Issue 42: this lookup answered the last of the repeated entries (5 → 300) while the
    /// load's (`recovery::index_lookup`) answered the first, as Kafka's `binarySearch` stops at
    /// the first equal entry it meets.
    #[test]
    fn a_lookup_on_repeated_offsets_answers_the_entry_kafka_binary_search_meets_first() {
        let bytes = offset_index(&[(5, 100), (5, 200), (5, 300)]);
        assert_eq!(lookup_offset(&bytes, 0, 5), OffsetPosition { offset: 5, position: 100 });
        assert_eq!(lookup_offset_slot(&bytes, 0, 5), Some(0));
        // Above the repeated offset, the search runs to the last of them.
        assert_eq!(lookup_offset(&bytes, 0, 6), OffsetPosition { offset: 5, position: 300 });
        // Below the first entry: none, and the lookup is (base, 0).
        assert_eq!(lookup_offset_slot(&bytes, 0, 4), None);
    }

    /// With more entries than the warm section holds, a target at or below the first warm entry
    /// is searched in the cold part alone: an equal offset repeated across the boundary answers
    /// from the cold side.
    #[test]
    fn the_warm_section_is_searched_alone_only_above_its_first_entry() {
        let warm = 8192 / OFFSET_ENTRY_BYTES;
        // Entries 0..n: offsets 0, 1, …, with entries n-1-warm and n-2-warm both at offset 7000.
        let n = warm + 10;
        let first_hot = n - 1 - warm;
        let mut entries: Vec<(i32, u32)> = (0..n).map(|i| (i as i32 + 6000, i as u32 * 10)).collect();
        entries[first_hot] = (7000, 1);
        entries[first_hot - 1] = (7000, 2);
        let bytes = offset_index(&entries);
        // 7000 is not above the first warm entry: the cold range [0, first_hot] is searched.
        let slot = lookup_offset_slot(&bytes, 0, 7000).unwrap();
        assert!(slot <= first_hot && entries[slot].0 == 7000);
        // Above it, only the warm range.
        assert!(lookup_offset_slot(&bytes, 0, 7001).unwrap() >= first_hot);
    }

    #[test]
    fn entries_of_a_segment_named_near_the_largest_offset_wrap_instead_of_panicking() {
        // Found by fuzzing (fuzz/ index target): `09223372036854775807.index` is a legal name,
        // and base + relative overflowed. Kafka's Java arithmetic wraps; so does this.
        let base = i64::MAX;
        let offset_entry = [0, 0, 0, 1, 0, 0, 0, 0];
        let got: Vec<_> = offset_entry_at(&offset_entry, base, 0).into_iter().collect();
        assert_eq!(got, [OffsetPosition { offset: i64::MIN, position: 0 }]);
        assert_eq!(lookup_offset(&offset_entry, base, i64::MAX), got[0]);
        let time_entry = [0, 0, 0, 0, 0, 0, 0, 5, 0x7f, 0xff, 0xff, 0xff];
        let got: Vec<_> = time_entry_at(&time_entry, base, 0).into_iter().collect();
        assert_eq!(got, [TimestampOffset { timestamp: 5, offset: base.wrapping_add(i32::MAX as i64) }]);
    }
}
