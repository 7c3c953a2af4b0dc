//! One partition's log on disk: its segments, indexes and leader-epoch cache (Kafka
//! `UnifiedLog` + `LocalLog` + `LogSegment`, the parts klog needs).
//!
//! Invariants kept by every mutating method: segments are contiguous in offset order; the
//! active (last) segment is the only one written; batches are appended whole and never
//! re-encoded; the epoch cache is written synchronously whenever it changes (as
//! `LeaderEpochFileCache.assign` does); truncation cuts at batch boundaries. The log never
//! prints and knows nothing of replication roles or log-dir checkpoints.

pub mod checkpoint;
pub mod epoch_cache;
pub mod index;
pub mod java_hash_map;
pub mod names;
pub mod producer_state;
pub mod recovery;
pub mod segment;
pub mod verify;

use crate::durable;
use crate::error::{Error, IoContext, Result};
use crate::format::batch::{BatchIter, RawBatch};
use epoch_cache::EpochCache;
use index::{IndexBuilder, OffsetPosition};
use segment::{FileBytes, Segment};
use std::fs::File;
use std::path::{Path, PathBuf};

/// Kafka's `segment.bytes` default (1 GiB).
pub const DEFAULT_SEGMENT_BYTES: u64 = 1 << 30;
/// Kafka's `index.interval.bytes` default.
pub const DEFAULT_INDEX_INTERVAL_BYTES: u64 = 4096;
/// Kafka's `segment.ms` default (7 days).
pub const DEFAULT_SEGMENT_MS: u64 = 7 * 24 * 60 * 60 * 1000;
/// Kafka's `segment.index.bytes` default (10 MiB).
pub const DEFAULT_INDEX_BYTES_MAX: u64 = 10 * 1024 * 1024;
/// Smallest `segment.bytes` Kafka accepts.
pub const MIN_SEGMENT_BYTES: u64 = 14;

/// Per-topic settings that shape the files.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LogConfig {
    pub segment_bytes: u64,
    pub index_interval_bytes: u64,
    /// `segment.index.bytes`: the most bytes an offset or time index may hold; a segment rolls
    /// when either index is full.
    pub index_bytes_max: u64,
    /// `segment.ms`: roll when a batch is more than this newer than the segment's first batch.
    pub segment_ms: u64,
}

impl Default for LogConfig {
    fn default() -> Self {
        LogConfig {
            segment_bytes: DEFAULT_SEGMENT_BYTES,
            index_interval_bytes: DEFAULT_INDEX_INTERVAL_BYTES,
            index_bytes_max: DEFAULT_INDEX_BYTES_MAX,
            segment_ms: DEFAULT_SEGMENT_MS,
        }
    }
}

/// The segment being appended to, with its open files and index state.
struct ActiveWriter {
    base_offset: i64,
    size_bytes: u64,
    log_file: File,
    index: IndexBuilder,
    /// maxTimestamp of the segment's first batch (`rollingBasedTimestamp`), if it has one.
    first_batch_timestamp: Option<i64>,
}

/// A partition's log.
pub struct Log {
    dir: PathBuf,
    config: LogConfig,
    segments: Vec<Segment>,
    epoch_cache: EpochCache,
    log_end_offset: i64,
    writer: Option<ActiveWriter>,
    /// Whether the active segment ended cleanly when last scanned (see [`Log::tail_is_clean`]).
    tail_clean: bool,
    /// Names Kafka reads that are not regular files (see [`Log::not_regular_files`]).
    not_regular: Vec<segment::NotRegular>,
}

/// Where a batch lies: segment index in `segments()` and byte position in its `.log`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BatchLocation {
    pub segment: usize,
    pub position: u64,
}

impl Log {
    /// Open the partition dir `dir`. `log_start_offset` is used as the LEO of a log without
    /// segments. Nothing is written.
    pub fn open(dir: &Path, config: LogConfig, log_start_offset: i64) -> Result<Log> {
        Log::open_reading_epochs(dir, config, log_start_offset, true)
    }

    /// [`Log::open`] for a reader of a log whose `leader-epoch-checkpoint` does not read (it
    /// reports that itself): the epoch cache starts empty and everything else is read.
    pub fn open_without_epoch_checkpoint(dir: &Path, config: LogConfig, log_start_offset: i64) -> Result<Log> {
        Log::open_reading_epochs(dir, config, log_start_offset, false)
    }

    fn open_reading_epochs(dir: &Path, config: LogConfig, log_start_offset: i64, read_epochs: bool) -> Result<Log> {
        let (segments, not_regular) = segment::list_segments(dir)?;
        let cache_path = dir.join(names::LEADER_EPOCH_CHECKPOINT);
        // An epoch checkpoint that is not a file is reported (see `not_regular_files`) and read
        // as absent, as a missing one is.
        let entries = if !read_epochs || not_regular.iter().any(|n| n.path == cache_path) {
            Vec::new()
        } else {
            checkpoint::read_epoch_checkpoint(&cache_path)?
        };
        let epoch_cache = EpochCache::from_entries(
            entries.into_iter().map(|(e, o)| epoch_cache::EpochEntry { leader_epoch: e, start_offset: o }),
        );
        let mut log = Log {
            dir: dir.to_path_buf(),
            config,
            segments,
            epoch_cache,
            log_end_offset: log_start_offset,
            writer: None,
            tail_clean: true,
            not_regular,
        };
        (log.log_end_offset, log.tail_clean) = log.scan_tail(log_start_offset)?;
        Ok(log)
    }

    /// LEO from the last segment: the next offset after its last whole batch, found from the
    /// last offset-index entry (validated) so that the cost does not grow with the segment.
    /// (LEO, whether the active segment ends cleanly): the next offset after the last whole
    /// batch of the last segment, and whether its `.log` holds nothing after that batch and its
    /// indexes hold whole entries only.
    fn scan_tail(&self, log_start_offset: i64) -> Result<(i64, bool)> {
        let Some(last) = self.segments.last() else { return Ok((log_start_offset, true)) };
        let bytes = last.read_log()?;
        let start = self.validated_tail_start(last, &bytes)?.map_or(0, |e| e.position as usize);
        let mut leo = last.base_offset;
        let mut iter = BatchIter::starting_at(&bytes, start);
        // The LEO comes from valid batches only (CRC, offsets within the segment's relative
        // range and increasing): a damaged header must not make the log end whatever its
        // offset field says. A damaged batch also makes the tail unclean.
        let mut valid = true;
        for batch in iter.by_ref() {
            let sane = batch.verify().is_ok()
                && index::offset_fits_segment(last.base_offset, batch.last_offset())
                && batch.base_offset() >= leo;
            if !sane {
                valid = false;
                break;
            }
            leo = batch.next_offset();
        }
        let whole = |b: Option<FileBytes>, entry: usize| b.is_none_or(|b| b.len() % entry == 0);
        let clean = valid
            && iter.stop() == Some(&crate::format::batch::ScanStop::End)
            && whole(last.read_index()?, index::OFFSET_ENTRY_BYTES)
            && whole(last.read_time_index()?, index::TIME_ENTRY_BYTES);
        Ok((leo, clean))
    }

    /// True when the active segment ended with a whole batch and whole index entries when the
    /// log was opened; false after a writer died mid-write (a klog command killed, a torn write).
    pub fn tail_is_clean(&self) -> bool {
        self.tail_clean
    }

    /// The last offset-index entry of `seg` if it points at a batch whose last offset it names.
    fn validated_tail_start(&self, seg: &Segment, log_bytes: &[u8]) -> Result<Option<OffsetPosition>> {
        let Some(index_bytes) = seg.read_index()? else { return Ok(None) };
        let Some(entry) = index::last_offset_entry(&index_bytes, seg.base_offset) else { return Ok(None) };
        if entry.position == 0 && entry.offset == seg.base_offset {
            return Ok(None);
        }
        let ok = BatchIter::starting_at(log_bytes, entry.position as usize)
            .next()
            .is_some_and(|b| b.position == entry.position && b.last_offset() == entry.offset);
        Ok(ok.then_some(entry))
    }

    /// The last time-index entry of `seg` if the batch holding its offset has its timestamp
    /// (the batch form of Kafka 3.7 and later or the record form of 3.6 and earlier). A writer resumes from it
    /// whether or not the offset index has entries: `TimeIndex.maybeAppend` only appends a
    /// timestamp larger than the last entry's, so a resumed writer must know that entry.
    fn validated_last_time_entry(&self, seg: &Segment, log_bytes: &[u8]) -> Result<Option<index::TimestampOffset>> {
        let Some(time_bytes) = seg.read_time_index()? else { return Ok(None) };
        let Some(entry) = index::last_time_entry(&time_bytes, seg.base_offset) else { return Ok(None) };
        // Start the walk at the offset-index floor of the entry's offset when that lands on a
        // batch start, so that the cost does not grow with the segment.
        let mut start = 0usize;
        if let Some(index_bytes) = seg.read_index()? {
            let floor = index::lookup_offset(&index_bytes, seg.base_offset, entry.offset);
            let lands = BatchIter::starting_at(log_bytes, floor.position as usize)
                .next()
                .is_some_and(|b| b.position == floor.position && b.first_offset() <= entry.offset);
            if lands {
                start = floor.position as usize;
            }
        }
        let tail = log_bytes.get(start..).unwrap_or(&[]);
        let ok = matches!(
            verify::verify_index_entries(&[], &[entry], Some(tail)).1.first(),
            Some(index::TimeEntryCheck::MatchesBatch | index::TimeEntryCheck::MatchesRecord)
        );
        Ok(ok.then_some(entry))
    }

    pub fn dir(&self) -> &Path {
        &self.dir
    }
    /// Names in the partition dir that Kafka reads but that are not regular files (a FIFO, a
    /// socket, a device, a directory): no segment is made of them and indexes of that name
    /// read as absent. A reader reports them; a writer refuses to open the log.
    pub fn not_regular_files(&self) -> &[segment::NotRegular] {
        &self.not_regular
    }
    pub fn config(&self) -> LogConfig {
        self.config
    }
    pub fn segments(&self) -> &[Segment] {
        &self.segments
    }
    pub fn log_end_offset(&self) -> i64 {
        self.log_end_offset
    }
    pub fn epoch_cache(&self) -> &EpochCache {
        &self.epoch_cache
    }
    pub fn first_offset(&self) -> Option<i64> {
        self.segments.first().map(|s| s.base_offset)
    }

    fn epoch_checkpoint_path(&self) -> PathBuf {
        self.dir.join(names::LEADER_EPOCH_CHECKPOINT)
    }

    /// Persist the epoch cache (synchronously, tmp + fsync + rename).
    pub fn write_epoch_cache(&self) -> Result<()> {
        let entries: Vec<(i32, i64)> =
            self.epoch_cache.entries().iter().map(|e| (e.leader_epoch, e.start_offset)).collect();
        checkpoint::write_epoch_checkpoint(&self.epoch_checkpoint_path(), &entries)
    }

    /// Apply `change` to the epoch cache and write the checkpoint if it changed.
    pub fn update_epoch_cache(&mut self, change: impl FnOnce(&mut EpochCache) -> bool) -> Result<bool> {
        let changed = change(&mut self.epoch_cache);
        if changed {
            self.write_epoch_cache()?;
        }
        Ok(changed)
    }

    /// Segment index holding `offset`: the last segment with base ≤ offset.
    pub fn segment_for(&self, offset: i64) -> Option<usize> {
        let idx = self.segments.partition_point(|s| s.base_offset <= offset);
        idx.checked_sub(1)
    }

    /// Where the first batch with lastOffset ≥ `offset` starts (offset index lookup, then a
    /// short scan). `None` if no batch ends at or after `offset`.
    pub fn locate(&self, offset: i64) -> Result<Option<BatchLocation>> {
        let first = self.segment_for(offset).unwrap_or(0);
        for (i, seg) in self.segments.iter().enumerate().skip(first) {
            let bytes = seg.read_log()?;
            let mut start = 0usize;
            if i == first {
                if let Some(index_bytes) = seg.read_index()? {
                    let e = index::lookup_offset(&index_bytes, seg.base_offset, offset);
                    // Use the entry only if it lands on a batch boundary that ends at or
                    // before `offset` (an index is never trusted blindly).
                    let good = BatchIter::starting_at(&bytes, e.position as usize)
                        .next()
                        .is_some_and(|b| b.position == e.position && b.last_offset() <= offset.max(e.offset));
                    if good && e.offset < offset {
                        start = e.position as usize;
                    }
                }
            }
            for batch in BatchIter::starting_at(&bytes, start) {
                if batch.last_offset() >= offset {
                    return Ok(Some(BatchLocation { segment: i, position: batch.position }));
                }
            }
        }
        Ok(None)
    }

    /// Visit whole batches starting with the one that holds `from`, segment by segment, until
    /// `visit` returns false. The batch bytes are borrowed from a read-only map.
    pub fn for_each_batch_from(
        &self,
        from: i64,
        mut visit: impl FnMut(&Segment, RawBatch<'_>) -> Result<bool>,
    ) -> Result<()> {
        let Some(loc) = self.locate(from)? else { return Ok(()) };
        for (i, seg) in self.segments.iter().enumerate().skip(loc.segment) {
            let bytes = seg.read_log()?;
            let start = if i == loc.segment { loc.position as usize } else { 0 };
            for batch in BatchIter::starting_at(&bytes, start) {
                if !visit(seg, batch)? {
                    return Ok(());
                }
            }
        }
        Ok(())
    }

    /// Open the last segment for appending (creating segment 0 at the LEO if there is none),
    /// resuming its index state from its indexes and the batches after the last entry.
    fn writer(&mut self) -> Result<&mut ActiveWriter> {
        if self.writer.is_none() {
            if self.segments.is_empty() {
                self.create_segment(self.log_end_offset)?;
            }
            let seg = self.segments.last().expect("a segment").clone();
            let bytes = seg.read_log()?;
            let mut tail = self.validated_tail_start(&seg, &bytes)?;
            let mut last_time = self.validated_last_time_entry(&seg, &bytes)?;
            let offset_index_stale = tail.is_none() && seg.read_index()?.is_some_and(|b| !b.is_empty());
            let time_index_stale = last_time.is_none() && seg.read_time_index()?.is_some_and(|b| !b.is_empty());
            if offset_index_stale || time_index_stale {
                // An index does not describe the log: rebuild both before extending them.
                recovery::rebuild_indexes(&seg, &bytes, self.config.index_interval_bytes, false)?;
                tail = self.validated_tail_start(&seg, &bytes)?;
                last_time = self.validated_last_time_entry(&seg, &bytes)?;
            }
            let entries = |b: Option<FileBytes>, size: usize| b.map_or(0, |b| (b.len() / size) as u64);
            let counts = (
                entries(seg.read_index()?, index::OFFSET_ENTRY_BYTES),
                entries(seg.read_time_index()?, index::TIME_ENTRY_BYTES),
            );
            let start = tail.map_or(0, |e| e.position);
            let mut builder =
                IndexBuilder::resume(seg.base_offset, self.config.index_interval_bytes, tail, last_time, counts);
            let mut iter = BatchIter::starting_at(&bytes, start as usize);
            for batch in iter.by_ref() {
                let since = batch.position - start;
                builder.observe(batch.last_offset(), batch.max_timestamp(), batch.size_bytes() as u64, since);
            }
            let size_bytes = iter.position() as u64;
            let first_batch_timestamp = BatchIter::new(&bytes).next().map(|b| b.max_timestamp()).filter(|t| *t >= 0);
            drop(bytes);
            let log_path = seg.log_path();
            let log_file = durable::create_for_append(&log_path)?;
            let actual = log_file.metadata().at(&log_path, "stat")?.len();
            if actual != size_bytes {
                return Err(Error::corrupt(
                    &log_path,
                    size_bytes,
                    format!(
                        "{} bytes after the last whole batch; run `klog recover` before writing",
                        actual - size_bytes
                    ),
                ));
            }
            self.writer = Some(ActiveWriter {
                base_offset: seg.base_offset,
                size_bytes,
                log_file,
                index: builder,
                first_batch_timestamp,
            });
        }
        Ok(self.writer.as_mut().expect("writer"))
    }

    fn create_segment(&mut self, base_offset: i64) -> Result<()> {
        self.create_segment_files(base_offset)?;
        durable::sync_dir(&self.dir)
    }

    /// The new segment's files, their names not yet made durable: a roll leaves that to the
    /// next flush (`LocalLog.flush` fsyncs the dir), so a power loss before it takes the new
    /// segment away together with the unflushed tail of the one before — never a hole.
    fn create_segment_files(&mut self, base_offset: i64) -> Result<()> {
        let seg = Segment::new(&self.dir, base_offset);
        for path in [seg.log_path(), seg.index_path(), seg.time_index_path()] {
            durable::create_file(&path)?;
        }
        self.segments.push(seg);
        Ok(())
    }

    /// Append one whole, valid batch whose base offset is the LEO. Rolls first if the active
    /// segment cannot take it (`LogSegment.shouldRoll`, size and offset-overflow rules).
    pub fn append_batch(&mut self, batch: RawBatch<'_>) -> Result<()> {
        assert_eq!(batch.base_offset(), self.log_end_offset, "batches are appended at the log end");
        let incoming = batch.size_bytes() as u64;
        if incoming > self.config.segment_bytes {
            return Err(Error::state(
                &self.dir,
                format!(
                    "a batch of {incoming} bytes is larger than segment.bytes ({}): append fewer records per \
                     batch (--records-per-batch N), or create the partition with a larger --segment-bytes",
                    self.config.segment_bytes
                ),
            ));
        }
        let LogConfig { segment_bytes, index_bytes_max, segment_ms, .. } = self.config;
        let w = self.writer()?;
        let overflow = batch.last_offset() - w.base_offset > i32::MAX as i64;
        // `OffsetIndex.isFull` (entries >= max) and `TimeIndex.isFull` (entries >= max - 1).
        let index_full = w.index.offset_entries() >= index_bytes_max / index::OFFSET_ENTRY_BYTES as u64
            || w.index.time_entries() + 1 >= index_bytes_max / index::TIME_ENTRY_BYTES as u64;
        // Time-based roll: the incoming batch's max timestamp is more than segment.ms past the
        // segment's first batch (a segment whose first batch has no timestamp never rolls on time).
        let time_waited = w.first_batch_timestamp.map(|first| batch.max_timestamp() - first);
        let aged = time_waited.is_some_and(|t| t > segment_ms as i64);
        if w.size_bytes > 0 && (w.size_bytes > segment_bytes - incoming || overflow || index_full || aged) {
            self.roll()?;
        }
        let dir = self.dir.clone();
        let w = self.writer()?;
        if w.size_bytes == 0 {
            w.first_batch_timestamp = Some(batch.max_timestamp()).filter(|t| *t >= 0);
        }
        // The epoch is assigned (and its checkpoint written) BEFORE the batch bytes, as
        // `UnifiedLog.append` calls `leaderEpochCache.assign` before `localLog.append`: a writer
        // killed in between leaves an entry at the LEO, which recovery's `truncateFromEnd(LEO)`
        // drops, never a stamped batch that the cache does not know.
        let (epoch, base) = (batch.partition_leader_epoch(), batch.base_offset());
        if batch.magic() >= 2 {
            if epoch >= 0 {
                self.update_epoch_cache(|c| c.assign(epoch, base))?;
            }
        } else {
            // Kafka clears the cache when a v0/v1 batch is appended.
            self.update_epoch_cache(|c| c.clear())?;
        }
        let w = self.writer()?;
        w.index.on_batch(w.size_bytes, batch.last_offset(), batch.max_timestamp(), incoming);
        durable::append(&mut w.log_file, &Segment::new(&dir, w.base_offset).log_path(), batch.bytes)?;
        w.size_bytes += incoming;
        self.log_end_offset = batch.next_offset();
        if self.writer.as_ref().is_some_and(|w| w.index.pending_offset_entries.len() >= 1 << 16) {
            self.write_pending_index_entries()?;
        }
        Ok(())
    }

    fn write_pending_index_entries(&mut self) -> Result<()> {
        let Some(w) = self.writer.as_mut() else { return Ok(()) };
        let seg = Segment::new(&self.dir, w.base_offset);
        for (path, pending) in [
            (seg.index_path(), &mut w.index.pending_offset_entries),
            (seg.time_index_path(), &mut w.index.pending_time_entries),
        ] {
            if !pending.is_empty() {
                let mut f = durable::create_for_append(&path)?;
                durable::append(&mut f, &path, pending)?;
                pending.clear();
            }
        }
        Ok(())
    }

    /// The active segment becomes inactive and a new one starts at the LEO. The old segment
    /// gets its final time-index entry. Nothing is fsynced: by the pinned model
    /// ([the model](crate::replication)) appended bytes are flushed only by `--flush` / `klog flush`, so
    /// the recovery point does not move on a roll (Kafka's own roll schedules an asynchronous
    /// flush that would move it later).
    pub fn roll(&mut self) -> Result<()> {
        if let Some(w) = self.writer.as_mut() {
            w.index.finish_segment();
        }
        self.write_pending_index_entries()?;
        self.writer = None;
        let base = self.log_end_offset;
        // `ProducerStateManager.takeSnapshot` on roll. It is written first: its directory fsync
        // must not make the new segment's name durable before the old segment's bytes are (a
        // snapshot above the log end is deleted by recovery).
        self.write_producer_snapshot(base)?;
        self.create_segment_files(base)
    }

    /// Write `<offset>.snapshot`: the producer table at `offset`, as Kafka's manager holds it
    /// then (empty for a log without idempotent or transactional producers).
    fn write_producer_snapshot(&self, offset: i64) -> Result<()> {
        let path = names::build_segment_path(&self.dir, offset, names::SNAPSHOT_SUFFIX);
        durable::write_atomic(&path, &self.producer_snapshot_at(offset)?)
    }

    /// Add the aborted-index entry of a transaction an ABORT marker ended to the `.txnindex` of
    /// the segment holding the marker (`LogSegment.updateTxnIndex`), with the last stable offset
    /// Kafka computed for it. Leader and follower appends both write it, as Kafka's do.
    pub fn write_aborted_txn(&self, c: &producer_state::CompletedTxn, last_stable_offset: i64) -> Result<()> {
        let Some(i) = self.segment_for(c.last_offset) else {
            return Err(Error::state(&self.dir, format!("no segment holds the marker at offset {}", c.last_offset)));
        };
        let path = names::build_segment_path(&self.dir, self.segments[i].base_offset, names::TXN_INDEX_SUFFIX);
        let mut index = match std::fs::read(&path) {
            Ok(b) => b,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Vec::new(),
            Err(e) => return Err(e).at(&path, "read"),
        };
        let entry = crate::format::txn_index::AbortedTxn {
            version: 0,
            producer_id: c.producer_id,
            first_offset: c.first_offset,
            last_offset: c.last_offset,
            last_stable_offset,
        };
        index.extend_from_slice(&entry.encode());
        durable::write_atomic(&path, &index)
    }

    /// The producer table at `offset` in snapshot form: the latest readable snapshot at or
    /// below it (else an empty table at the first segment's base), then the batches up to it,
    /// as `ProducerStateManager` keeps it between snapshots.
    pub fn producer_snapshot_at(&self, offset: i64) -> Result<Vec<u8>> {
        Ok(self.producer_state_at(offset)?.snapshot_bytes())
    }

    /// The producer state at `offset` (see [`Log::producer_snapshot_at`]).
    pub fn producer_state_at(&self, offset: i64) -> Result<producer_state::ProducerReplay> {
        use producer_state::ProducerReplay;
        let mut offsets = snapshot_offsets(&self.dir);
        offsets.sort_unstable();
        let mut replay = None;
        for o in offsets.into_iter().rev().filter(|o| *o <= offset) {
            let path = names::build_segment_path(&self.dir, o, names::SNAPSHOT_SUFFIX);
            let Ok(bytes) = std::fs::read(&path) else { continue };
            if let Ok(s) = crate::format::producer_snapshot::decode(&bytes) {
                if s.crc_valid() {
                    replay = Some(ProducerReplay::from_snapshot(&s.entries, o));
                    break;
                }
            }
        }
        let mut replay = replay.unwrap_or_else(|| {
            let mut r = ProducerReplay::new();
            r.start_at(self.segments.first().map_or(0, |s| s.base_offset));
            r
        });
        let from = replay.map_end_offset();
        if from < offset {
            let mut thrown = None;
            self.for_each_batch_from(from, |seg, b| {
                if b.base_offset() >= offset {
                    return Ok(false);
                }
                if b.magic() >= 2 && b.last_offset() >= from {
                    if let Err(t) = replay.apply(&b) {
                        thrown = Some((seg.log_path(), t));
                        return Ok(false);
                    }
                }
                Ok(true)
            })?;
            if let Some((path, t)) = thrown {
                return Err(Error::state(
                    path,
                    format!("at position {}: the producer state cannot be rebuilt: {}", t.position, t.exception),
                ));
            }
        }
        Ok(replay)
    }

    /// Write buffered index entries; the data stays unflushed (as Kafka's appends).
    pub fn finish(&mut self) -> Result<()> {
        self.write_pending_index_entries()
    }

    /// Close the log as a clean shutdown does (`LogSegment.close`): the active segment gets its
    /// final time-index entry (max timestamp so far and its offset).
    pub fn close(&mut self) -> Result<()> {
        if self.segments.last().is_some_and(|s| s.log_size().unwrap_or(0) > 0) {
            self.writer()?.index.finish_segment();
        }
        self.write_pending_index_entries()?;
        self.writer = None;
        // `UnifiedLog.close` takes a producer snapshot at the log end, and
        // `ProducerStateManager.takeSnapshot` writes one only when the log end is past
        // `lastSnapOffset`: the latest snapshot, or 0 when there is none (a broker that
        // truncated fully to a log start above 0 has none, and writes one there).
        let latest = snapshot_offsets(&self.dir).into_iter().max().unwrap_or(0);
        if self.log_end_offset > latest {
            self.write_producer_snapshot(self.log_end_offset)?;
        }
        Ok(())
    }

    /// fsync every segment from the one holding `from_offset` (the recovery point) to the end,
    /// with its indexes, and the dir: everything below the LEO is then durable.
    pub fn flush(&mut self, from_offset: i64) -> Result<()> {
        self.write_pending_index_entries()?;
        let first = self.segment_for(from_offset).unwrap_or(0);
        for seg in &self.segments[first..] {
            for path in [seg.log_path(), seg.index_path(), seg.time_index_path()] {
                if path.exists() {
                    durable::sync_path(&path)?;
                }
            }
        }
        durable::sync_dir(&self.dir)
    }

    /// The offset from which `truncate_to(target)` removes records: the base offset of the
    /// batch holding `target` (a batch straddling the target goes whole), `target` itself when
    /// it falls in a gap before the next batch or below the first offset, and the LEO when
    /// nothing at or after `target` is below the LEO. Shared by the real truncation and
    /// `recover --dry-run`, so that the dry run names the cut the real run makes.
    pub fn cut_offset_for(&self, target: i64) -> Result<i64> {
        if target >= self.log_end_offset {
            return Ok(self.log_end_offset);
        }
        if self.first_offset().is_none_or(|f| target < f) {
            return Ok(target);
        }
        let Some(loc) = self.locate(target)? else { return Ok(self.log_end_offset) };
        let bytes = self.segments[loc.segment].read_log()?;
        let base = BatchIter::starting_at(&bytes, loc.position as usize).next().map(|b| b.base_offset());
        Ok(base.map_or(self.log_end_offset, |b| b.min(target)))
    }

    /// `UnifiedLog.truncateTo(target)`: cut the log at the first batch whose lastOffset ≥
    /// `target` (so a batch straddling the target goes whole), delete later segments, drop
    /// index entries at or above it, and truncate the epoch cache from the new end. Returns
    /// the new LEO.
    pub fn truncate_to(&mut self, target: i64) -> Result<i64> {
        self.finish()?;
        self.writer = None;
        let cut = self.cut_offset_for(target)?;
        if cut >= self.log_end_offset {
            let leo = self.log_end_offset;
            self.update_epoch_cache(|c| c.truncate_from_end(leo))?;
            return Ok(leo);
        }
        if self.first_offset().is_none_or(|f| cut < f) {
            return self.truncate_fully_and_start_at(cut);
        }
        let Some(loc) = self.locate(cut)? else {
            // `cut_offset_for` found a batch there; nothing is cut if it is gone.
            return Ok(self.log_end_offset);
        };
        // Later segments go first, the last one first, and a segment's indexes before its
        // `.log`: a truncation that dies part-way leaves a shorter log, never a hole or index
        // entries past the log end.
        for seg in self.segments.drain(loc.segment + 1..).rev().collect::<Vec<_>>() {
            delete_segment_files(&seg)?;
        }
        let seg = self.segments[loc.segment].clone();
        let new_end = {
            let bytes = seg.read_log()?;
            let mut leo = seg.base_offset;
            let tail = self.validated_tail_start(&seg, &bytes)?;
            let start = tail.filter(|e| e.position < loc.position).map_or(0, |e| e.position as usize);
            let end = (loc.position as usize).min(bytes.len());
            for b in BatchIter::starting_at(&bytes[..end], start) {
                leo = b.next_offset();
            }
            leo
        };
        truncate_indexes(&seg, loc.position, new_end)?;
        durable::truncate_file(&seg.log_path(), loc.position)?;
        self.log_end_offset = new_end;
        self.update_epoch_cache(|c| c.truncate_from_end(new_end))?;
        delete_snapshots_above(&self.dir, new_end)?;
        Ok(new_end)
    }

    /// Delete every segment and start an empty one at `offset` (`truncateFullyAndStartAt`).
    pub fn truncate_fully_and_start_at(&mut self, offset: i64) -> Result<i64> {
        self.writer = None;
        for seg in std::mem::take(&mut self.segments) {
            delete_segment_files(&seg)?;
        }
        delete_snapshots_above(&self.dir, -1)?;
        self.create_segment(offset)?;
        self.log_end_offset = offset;
        self.update_epoch_cache(|c| c.clear())?;
        Ok(offset)
    }

    /// Make the epoch cache know every epoch stamped on the log's tail: each v2 epoch above the
    /// cache's latest is assigned at the first valid batch (below the LEO) stamped with it, as
    /// `LogSegment.recover` does for the segments it scans. Run when klog repairs an
    /// interrupted write, before the local recovery from the recovery point (whose own
    /// assignments would otherwise start the epoch at the recovered segment): the dead writer
    /// may have died between a batch and its epoch entry (klog before the write order was
    /// fixed), leaving stamped batches below the recovery point. Recovery's
    /// `truncateFromEnd(LEO)` then drops any entry past what it keeps. The scan is bounded: it
    /// starts at the latest segment whose first batch carries an epoch the cache already
    /// knows, and never before the segment holding the latest entry's start offset. Returns
    /// the entries added.
    /// A dry run changes the in-memory cache only.
    pub fn assign_epochs_from_tail(&mut self, dry_run: bool) -> Result<Vec<epoch_cache::EpochEntry>> {
        let Some(last) = self.segments.len().checked_sub(1) else { return Ok(Vec::new()) };
        let latest = self.epoch_cache.latest();
        let floor = latest.map_or(0, |l| self.segment_for(l.start_offset).unwrap_or(0));
        let above_latest =
            |b: &RawBatch<'_>| b.magic() >= 2 && latest.is_none_or(|l| b.partition_leader_epoch() > l.leader_epoch);
        let mut start = last;
        while start > floor {
            let bytes = self.segments[start].read_log()?;
            // An empty segment (just rolled) or one opening with a new epoch: that epoch may
            // have started in an earlier segment.
            let go_back = BatchIter::new(&bytes).next().is_none_or(|b| above_latest(&b));
            if !go_back {
                break;
            }
            start -= 1;
        }
        let mut added = Vec::new();
        let leo = self.log_end_offset;
        for seg in &self.segments[start..] {
            let bytes = seg.read_log()?;
            for batch in BatchIter::new(&bytes) {
                if batch.next_offset() > leo {
                    break;
                }
                if batch.verify().is_err() {
                    continue;
                }
                let epoch = batch.partition_leader_epoch();
                if batch.magic() >= 2
                    && epoch >= 0
                    && self.epoch_cache.latest_epoch().is_none_or(|l| epoch > l)
                    && self.epoch_cache.assign(epoch, batch.base_offset())
                {
                    added.push(epoch_cache::EpochEntry { leader_epoch: epoch, start_offset: batch.base_offset() });
                }
            }
        }
        if !added.is_empty() && !dry_run {
            self.write_epoch_cache()?;
        }
        Ok(added)
    }

    /// Re-read the segment list and LEO after files were changed underneath (recovery).
    pub fn reload(&mut self, log_start_offset: i64) -> Result<()> {
        self.writer = None;
        (self.segments, self.not_regular) = segment::list_segments(&self.dir)?;
        (self.log_end_offset, self.tail_clean) = self.scan_tail(log_start_offset)?;
        Ok(())
    }
}

/// After `seg`'s `.log` was cut to `position` (ending at offset `end_offset`), drop the
/// offset-index entries at or past the cut and the time-index entries naming offsets at or past
/// the new end (`OffsetIndex.truncateTo`, `TimeIndex.truncateTo`).
pub fn truncate_indexes(seg: &Segment, position: u64, end_offset: i64) -> Result<()> {
    truncate_index_file(&seg.index_path(), index::OFFSET_ENTRY_BYTES, |c| {
        index::offset_entry_at(c, seg.base_offset, 0).is_some_and(|e| e.position < position)
    })?;
    truncate_index_file(&seg.time_index_path(), index::TIME_ENTRY_BYTES, |c| {
        index::time_entry_at(c, seg.base_offset, 0).is_some_and(|e| e.offset < end_offset)
    })
}

/// Keep the leading entries of an index file for which `keep` holds; fsync if cut.
fn truncate_index_file(path: &Path, entry_bytes: usize, keep: impl Fn(&[u8]) -> bool) -> Result<()> {
    let Some(bytes) = segment::map_file(path)? else { return Ok(()) };
    let kept = bytes.chunks_exact(entry_bytes).take_while(|c| keep(c)).count() * entry_bytes;
    let len = bytes.len();
    drop(bytes);
    if kept != len {
        durable::truncate_file(path, kept as u64)?;
    }
    Ok(())
}

/// Delete a segment's files, the `.log` last: a death part-way leaves either a whole segment
/// or one without indexes (which the next load recovers), never index files without a log.
fn delete_segment_files(seg: &Segment) -> Result<()> {
    for path in [
        names::build_segment_path(&seg.dir, seg.base_offset, names::TXN_INDEX_SUFFIX),
        seg.time_index_path(),
        seg.index_path(),
        seg.log_path(),
    ] {
        durable::remove_file(&path)?;
    }
    Ok(())
}

impl Log {
    /// Delete producer snapshots above the log end (what Kafka's loader does on every load).
    pub fn delete_snapshots_above_log_end(&self) -> Result<()> {
        delete_snapshots_above(&self.dir, self.log_end_offset)
    }
}

/// Offsets of the partition dir's producer snapshots (`<offset>.snapshot`), unsorted.
fn snapshot_offsets(dir: &Path) -> Vec<i64> {
    let Ok(entries) = std::fs::read_dir(dir) else { return Vec::new() };
    entries
        .flatten()
        .filter_map(|e| {
            let name = e.file_name();
            let name = name.to_str()?;
            name.strip_suffix(names::SNAPSHOT_SUFFIX).and_then(|_| names::parse_file_offset(name))
        })
        .collect()
}

/// Producer snapshots above the new log end describe state that no longer exists.
fn delete_snapshots_above(dir: &Path, log_end_offset: i64) -> Result<()> {
    for entry in std::fs::read_dir(dir).at(dir, "list directory")? {
        let entry = entry.at(dir, "list directory")?;
        let name = entry.file_name();
        let Some(name) = name.to_str() else { continue };
        if name.ends_with(names::SNAPSHOT_SUFFIX) && names::parse_file_offset(name).is_some_and(|o| o > log_end_offset)
        {
            durable::remove_file(&entry.path())?;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::format::batch::{encode_batch, BatchSpec};
    use crate::format::record::NewRecord;

    /// A log in `dir` holding batches 0..=2, 3..=4 and 5 (epoch 1, then 2 from offset 5).
    fn three_batch_log(dir: &Path) -> Log {
        let mut log = Log::open(dir, LogConfig::default(), 0).unwrap();
        let rec = NewRecord { timestamp: 1, key: None, value: Some(b"v".to_vec()), headers: vec![] };
        for (base, count, epoch) in [(0i64, 3usize, 1i32), (3, 2, 1), (5, 1, 2)] {
            let bytes = encode_batch(&BatchSpec::plain(base, epoch), &vec![rec.clone(); count]);
            let batch = BatchIter::new(&bytes).next().unwrap();
            log.append_batch(batch).unwrap();
        }
        log.finish().unwrap();
        log
    }

    #[test]
    fn cut_offset_for_names_the_base_of_the_batch_holding_the_target() {
        let dir = tempfile::tempdir().unwrap();
        let log = three_batch_log(dir.path());
        assert_eq!(log.log_end_offset(), 6);
        let cuts: Vec<i64> = [0, 1, 2, 3, 4, 5, 6, 99].iter().map(|t| log.cut_offset_for(*t).unwrap()).collect();
        assert_eq!(cuts, vec![0, 0, 0, 3, 3, 5, 6, 6]);
    }

    #[test]
    fn truncate_to_cuts_where_cut_offset_for_says() {
        for target in 0..=7 {
            let dir = tempfile::tempdir().unwrap();
            let mut log = three_batch_log(dir.path());
            let predicted = log.cut_offset_for(target).unwrap();
            assert_eq!(log.truncate_to(target).unwrap(), predicted, "target {target}");
            assert_eq!(Log::open(dir.path(), LogConfig::default(), 0).unwrap().log_end_offset(), predicted);
        }
    }

    #[test]
    fn append_assigns_each_new_epoch_at_its_first_batch_and_writes_the_checkpoint() {
        let dir = tempfile::tempdir().unwrap();
        let log = three_batch_log(dir.path());
        let cache: Vec<(i32, i64)> =
            log.epoch_cache().entries().iter().map(|e| (e.leader_epoch, e.start_offset)).collect();
        assert_eq!(cache, vec![(1, 0), (2, 5)]);
        // The checkpoint on disk says the same (written synchronously on assign).
        let on_disk = checkpoint::read_epoch_checkpoint(&dir.path().join(names::LEADER_EPOCH_CHECKPOINT)).unwrap();
        assert_eq!(on_disk, cache);
    }

    #[test]
    fn assign_epochs_from_tail_restores_an_epoch_the_cache_lost() {
        let dir = tempfile::tempdir().unwrap();
        let mut log = three_batch_log(dir.path());
        log.update_epoch_cache(|c| c.clear()).unwrap();
        let added = log.assign_epochs_from_tail(false).unwrap();
        let pairs: Vec<(i32, i64)> = added.iter().map(|e| (e.leader_epoch, e.start_offset)).collect();
        assert_eq!(pairs, vec![(1, 0), (2, 5)]);
        assert!(log.assign_epochs_from_tail(false).unwrap().is_empty(), "nothing more to add");
    }
}
