//! Producer state at a broker's start-up: the producer snapshots (`<offset>.snapshot`) Kafka
//! 4.4's load reads, deletes and writes, and the producer entries the written ones hold
//! (`ProducerStateManager`, `UnifiedLog.rebuildProducerState`, `LogLoader.recoverSegment`,
//! `LogSegment.updateProducerState`, `ProducerAppendInfo`, `ProducerStateEntry`).
//!
//! A load drives several managers: the log's own (made before the load, from the snapshots
//! then on disk), and a fresh one for each segment recovery. Each keeps its own view of the
//! snapshot files; all act on the same files, which [`SnapshotFiles`] holds in memory while the
//! load is decided. [`simulate`] replays the load's events over them and returns what the load
//! deletes and writes, in order; the real run applies that list. Nothing here touches a file.
//!
//! Where Kafka's readers throw on the way (a frame below the minimum size, a legacy wrapper
//! that does not decode, a snapshot name that is no number, a non-transactional batch inside a
//! producer's open transaction), the result is the exception: nothing in the loader catches it.

use super::recovery::Thrown;
use crate::format::batch::{BatchIter, RawBatch, ScanStop};
use crate::format::producer_snapshot::{self, ProducerEntry};
use std::collections::{BTreeMap, BTreeSet, VecDeque};

/// `producer.id.expiration.ms`'s default: a producer idle this long is dropped when a snapshot
/// is loaded.
pub const PRODUCER_ID_EXPIRATION_MS: i64 = 86_400_000;

/// The batches `ProducerStateEntry` keeps (`NUM_BATCHES_TO_RETAIN`).
const BATCHES_RETAINED: usize = 5;

/// A change the load makes to the snapshot files, in order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SnapshotOp {
    Delete(String),
    Write(String, Vec<u8>),
}

/// The partition dir's snapshot files (regular files named `*.snapshot`) as the load goes.
#[derive(Debug, Clone, Default)]
pub struct SnapshotFiles {
    files: BTreeMap<String, Vec<u8>>,
    pub ops: Vec<SnapshotOp>,
    /// Where the load's last producer-state rebuild (the log's own manager's) started: the
    /// state a running broker's manager then replays the log onto.
    pub rebuild_start: Option<RebuildStart>,
    /// The first unstable offset the log's manager holds when `UnifiedLog` opens the loaded log
    /// (its HW still at the local log start): an open transaction, or one its rebuild saw end
    /// above that. `UnifiedLog`'s constructor then reads the log at it
    /// (`maybeIncrementFirstUnstableOffset`), through the log dir's failure handling.
    pub first_unstable_at_open: Option<i64>,
    /// What that read throws, if it does (a frame below the minimum size, a legacy wrapper
    /// that does not decode, in the batches it searches): nothing in the load catches it.
    /// The segment (base offset) it throws in, and the exception.
    pub thrown_at_open: Option<(i64, Thrown)>,
    /// Each transaction's first offset the log's manager holds after the load (open ones and
    /// those its rebuild saw end), as `UnifiedLog` reports it once it is the first unstable
    /// offset: the base offset of the batch the read at it lands on (or the log end), which
    /// a damaged offset index moves.
    pub unstable_reported: BTreeMap<i64, i64>,
    /// The log's manager once the load is done: the producer state a broker starts serving
    /// with (what it read, and only that: its rebuild reads from the offset its snapshot ends
    /// at, through the offset index, to the log end).
    pub after_load: Option<ProducerReplay>,
}

/// The state the log's own `ProducerStateManager` holds when its rebuild starts replaying,
/// after `truncateAndReload` (the snapshot it loaded, expired producers dropped).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RebuildStart {
    /// The offset the replay starts from.
    pub from_offset: i64,
    pub producers: Vec<ProducerEntry>,
    /// Whether the state came from a snapshot at `from_offset` (else the rebuild starts empty).
    pub from_snapshot: bool,
    /// False when the rebuild reads nothing: after a clean shutdown with no snapshot Kafka
    /// writes empty snapshots and starts with no producers.
    pub replays: bool,
}

impl SnapshotFiles {
    /// The files as they are before the load.
    pub fn new(files: BTreeMap<String, Vec<u8>>) -> SnapshotFiles {
        SnapshotFiles {
            files,
            ops: Vec::new(),
            rebuild_start: None,
            first_unstable_at_open: None,
            thrown_at_open: None,
            unstable_reported: BTreeMap::new(),
            after_load: None,
        }
    }

    /// `ProducerStateManager.listSnapshotFiles`: offset and name of each, by offset (a name
    /// whose prefix is no number throws, as `offsetFromFile` does).
    fn list(&self) -> Result<BTreeMap<i64, String>, Thrown> {
        let mut out = BTreeMap::new();
        for name in self.files.keys() {
            out.insert(offset_from_file(name)?, name.clone());
        }
        Ok(out)
    }

    fn delete(&mut self, name: &str) {
        if self.files.remove(name).is_some() {
            self.ops.push(SnapshotOp::Delete(name.to_string()));
        }
    }

    /// `writeSnapshot`: `CREATE, WRITE` without truncation, so a longer file keeps its tail.
    fn write(&mut self, offset: i64, bytes: Vec<u8>) {
        let name = format!("{offset:020}{}", super::names::SNAPSHOT_SUFFIX);
        let mut content = bytes;
        if let Some(old) = self.files.get(&name) {
            if old.len() > content.len() {
                content.extend_from_slice(&old[content.len()..]);
            }
        }
        self.files.insert(name.clone(), content.clone());
        self.ops.push(SnapshotOp::Write(name, content));
    }

    /// Names of the files left, by name.
    pub fn names(&self) -> Vec<String> {
        self.files.keys().cloned().collect()
    }
}

/// `LogFileUtils.offsetFromFile`: the name up to its first `.`, as a long.
fn offset_from_file(name: &str) -> Result<i64, Thrown> {
    let prefix = &name[..name.find('.').unwrap_or(name.len())];
    prefix.parse().map_err(|_| Thrown {
        position: 0,
        exception: format!("java.lang.NumberFormatException: For input string: \"{prefix}\" (snapshot file {name})"),
    })
}

/// `DefaultRecordBatch.decrementSequence`: a sequence `decrement` before `sequence`, wrapping
/// below 0 to `Integer.MAX_VALUE` as sequences do.
pub fn decrement_sequence(sequence: i32, decrement: i32) -> i32 {
    if sequence < decrement {
        i32::MAX - (decrement - sequence) + 1
    } else {
        sequence - decrement
    }
}

/// `DefaultRecordBatch.incrementSequence`: a sequence `increment` after `sequence`, wrapping
/// past `Integer.MAX_VALUE` to 0.
pub fn increment_sequence(sequence: i32, increment: i32) -> i32 {
    if sequence > i32::MAX - increment {
        increment - (i32::MAX - sequence) - 1
    } else {
        sequence + increment
    }
}

/// One batch's metadata, as a producer entry keeps it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct BatchMetadata {
    last_sequence: i32,
    last_offset: i64,
    offset_delta: i32,
    timestamp: i64,
}

/// One producer's state (`ProducerStateEntry`).
#[derive(Debug, Clone, PartialEq, Eq)]
struct Entry {
    producer_epoch: i16,
    coordinator_epoch: i32,
    last_timestamp: i64,
    current_txn_first_offset: Option<i64>,
    batches: VecDeque<BatchMetadata>,
}

impl Entry {
    fn empty() -> Entry {
        Entry {
            producer_epoch: -1,
            coordinator_epoch: -1,
            last_timestamp: -1,
            current_txn_first_offset: None,
            batches: VecDeque::new(),
        }
    }

    fn maybe_update_producer_epoch(&mut self, epoch: i16) {
        if self.producer_epoch != epoch {
            self.batches.clear();
            self.producer_epoch = epoch;
        }
    }

    fn add_batch_metadata(&mut self, b: BatchMetadata) {
        if self.batches.len() == BATCHES_RETAINED {
            self.batches.pop_front();
        }
        self.batches.push_back(b);
    }

    /// `ProducerStateEntry.update(nextEntry)`.
    fn update(&mut self, next: &Entry) {
        self.maybe_update_producer_epoch(next.producer_epoch);
        for b in &next.batches {
            self.add_batch_metadata(*b);
        }
        self.coordinator_epoch = next.coordinator_epoch;
        self.current_txn_first_offset = next.current_txn_first_offset;
        self.last_timestamp = next.last_timestamp;
    }

    fn to_snapshot(&self, producer_id: i64) -> ProducerEntry {
        let last = self.batches.back();
        ProducerEntry {
            producer_id,
            producer_epoch: self.producer_epoch,
            last_sequence: last.map_or(-1, |b| b.last_sequence),
            last_offset: last.map_or(-1, |b| b.last_offset),
            offset_delta: last.map_or(0, |b| b.offset_delta),
            timestamp: self.last_timestamp,
            coordinator_epoch: self.coordinator_epoch,
            current_txn_first_offset: self.current_txn_first_offset.unwrap_or(-1),
        }
    }

    fn from_snapshot(e: &ProducerEntry) -> Entry {
        let mut batches = VecDeque::new();
        if e.last_offset >= 0 {
            batches.push_back(BatchMetadata {
                last_sequence: e.last_sequence,
                last_offset: e.last_offset,
                offset_delta: e.offset_delta,
                timestamp: e.timestamp,
            });
        }
        Entry {
            producer_epoch: e.producer_epoch,
            coordinator_epoch: e.coordinator_epoch,
            last_timestamp: e.timestamp,
            current_txn_first_offset: (e.current_txn_first_offset >= 0).then_some(e.current_txn_first_offset),
            batches,
        }
    }
}

/// The producers of a manager, in the order Java's `HashMap<Long, _>` iterates them
/// ([`super::java_hash_map`]: `ProducerStateManager.addProducerId` puts, ProducerStateManager
/// .java:146 in 4.4.0's line table; `clearProducerIds` clears, 152), which is the order a
/// snapshot and describe-producers list them in.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
struct Producers {
    entries: BTreeMap<i64, (u64, Entry)>,
    inserted: u64,
    /// The keys as Java's map holds them (its table never shrinks: `clear` keeps it).
    map: super::java_hash_map::JavaHashMap<i64>,
    /// While one read of `loadProducersFromRecords` runs ([`Producers::begin_read`]): every
    /// producer its batches name, as its own `loadedProducers` map holds them, and the ones
    /// new to the manager, which join `map` only when the read ends.
    read: Option<(super::java_hash_map::JavaHashMap<i64>, Vec<i64>)>,
}

impl Producers {
    fn get_mut(&mut self, id: i64) -> Option<&mut Entry> {
        self.entries.get_mut(&id).map(|(_, e)| e)
    }
    fn insert(&mut self, id: i64, e: Entry) {
        if let Some(slot) = self.entries.get_mut(&id) {
            slot.1 = e;
            return;
        }
        if let Some((_, new)) = &mut self.read {
            new.push(id);
            self.entries.insert(id, (0, e));
            return;
        }
        self.inserted += 1;
        self.entries.insert(id, (self.inserted, e));
        self.map.put(super::java_hash_map::long_hash(id), id);
    }
    /// A read of `UnifiedLog.loadProducersFromRecords` begins (UnifiedLog.java:2672-2687 in
    /// 4.4.0's line table): each batch's producer goes into a fresh `HashMap` by
    /// `computeIfAbsent` (`updateProducers`, at the head of its bucket), and only after the
    /// last batch does the manager `update` each producer, in that map's order: the new ones
    /// join the manager's map then, in that order, not the batches'.
    fn begin_read(&mut self) {
        self.read = Some((super::java_hash_map::JavaHashMap::new(), Vec::new()));
    }
    /// A batch of the read names producer `id` (`loadedProducers.computeIfAbsent`).
    fn touch(&mut self, id: i64) {
        if let Some((loaded, _)) = &mut self.read {
            loaded.compute_if_absent(super::java_hash_map::long_hash(id), id);
        }
    }
    /// The read ends: its new producers join the manager's map in `loadedProducers`' order
    /// (in the batches' order if a bucket of that map became a tree, whose order is not
    /// emulated).
    fn end_read(&mut self) {
        let Some((loaded, new)) = self.read.take() else { return };
        let is_new: BTreeSet<i64> = new.iter().copied().collect();
        let order = loaded.order().unwrap_or(new);
        for id in order.into_iter().filter(|id| is_new.contains(id)) {
            self.inserted += 1;
            if let Some(slot) = self.entries.get_mut(&id) {
                slot.0 = self.inserted;
            }
            self.map.put(super::java_hash_map::long_hash(id), id);
        }
    }
    fn clear(&mut self) {
        self.entries.clear();
        self.map.clear();
    }
    fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }
    fn snapshot(&self) -> Vec<ProducerEntry> {
        let order = self.map.order().unwrap_or_else(|| {
            // A bucket became a tree (its order is not emulated): by bucket, then insertion.
            let capacity = self.map.capacity().max(16) as u64;
            let bucket = |id: i64| {
                let h = super::java_hash_map::long_hash(id) as u32;
                u64::from(h ^ (h >> 16)) & (capacity - 1)
            };
            let mut all: Vec<(u64, u64, i64)> =
                self.entries.iter().map(|(id, (order, _))| (bucket(*id), *order, *id)).collect();
            all.sort_unstable();
            all.into_iter().map(|(_, _, id)| id).collect()
        });
        order.into_iter().filter_map(|id| self.entries.get(&id).map(|(_, e)| e.to_snapshot(id))).collect()
    }
}

/// One `ProducerStateManager`: its view of the snapshot files, its producers and offsets.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Manager {
    snapshots: BTreeMap<i64, String>,
    producers: Producers,
    /// Open transactions: first offset -> producer id (`ongoingTxns`).
    ongoing: BTreeMap<i64, i64>,
    /// Transactions ended while replaying: first offset -> the marker's offset
    /// (`unreplicatedTxns`: they hold the first unstable offset until the HW passes the marker).
    unreplicated: BTreeMap<i64, i64>,
    last_map_offset: i64,
    last_snap_offset: i64,
    now_ms: i64,
}

impl Manager {
    fn new(files: &SnapshotFiles, now_ms: i64) -> Result<Manager, Thrown> {
        Ok(Manager { snapshots: files.list()?, ..Manager::empty(now_ms) })
    }

    fn empty(now_ms: i64) -> Manager {
        Manager {
            snapshots: BTreeMap::new(),
            producers: Producers::default(),
            ongoing: BTreeMap::new(),
            unreplicated: BTreeMap::new(),
            last_map_offset: 0,
            last_snap_offset: 0,
            now_ms,
        }
    }

    /// No producer, no transaction (`producers.clear()` with `ongoingTxns` and
    /// `unreplicatedTxns`).
    fn clear(&mut self) {
        self.producers.clear();
        self.ongoing.clear();
        self.unreplicated.clear();
    }

    /// A loaded entry (`loadProducerEntry`): its open transaction goes back in `ongoingTxns`.
    fn load_entry(&mut self, producer_id: i64, entry: Entry) {
        if let Some(first) = entry.current_txn_first_offset {
            self.ongoing.insert(first, producer_id);
        }
        self.producers.insert(producer_id, entry);
    }

    /// `firstUnstableOffset` once the HW is `high_watermark` (`onHighWatermarkUpdated` drops
    /// the ended transactions whose marker is below it): the first offset of the earliest open
    /// transaction or of an ended one whose marker the HW does not cover yet.
    fn first_unstable_offset(&self, high_watermark: i64) -> Option<i64> {
        let ended = self.unreplicated.iter().find(|(_, last)| **last >= high_watermark).map(|(first, _)| *first);
        self.ongoing.keys().next().copied().into_iter().chain(ended).min()
    }

    fn remove_and_delete(&mut self, files: &mut SnapshotFiles, offset: i64) {
        if let Some(name) = self.snapshots.remove(&offset) {
            files.delete(&name);
        }
    }

    fn latest_snapshot_offset(&self) -> Option<i64> {
        self.snapshots.keys().next_back().copied()
    }

    fn is_empty(&self) -> bool {
        self.producers.is_empty()
    }

    /// `truncateAndReload(logStartOffset, logEndOffset)`.
    fn truncate_and_reload(&mut self, files: &mut SnapshotFiles, log_start: i64, log_end: i64) {
        let out_of_range: Vec<i64> =
            self.snapshots.keys().copied().filter(|o| *o > log_end || *o <= log_start).collect();
        for o in out_of_range {
            self.remove_and_delete(files, o);
        }
        if log_end != self.last_map_offset {
            self.clear();
            self.load_from_snapshot(files, log_start);
        } else {
            // `onLogStartOffsetIncremented`
            if self.last_map_offset < log_start {
                self.last_map_offset = log_start;
            }
            self.last_snap_offset = self.latest_snapshot_offset().unwrap_or(log_start);
        }
    }

    /// `loadFromSnapshot`: the latest snapshot that reads (a corrupt one is deleted and the
    /// next tried), its unexpired producers loaded.
    fn load_from_snapshot(&mut self, files: &mut SnapshotFiles, log_start: i64) {
        while let Some((&offset, name)) = self.snapshots.iter().next_back() {
            let decoded = files.files.get(name).map(|b| producer_snapshot::decode(b));
            match decoded {
                Some(Ok(s)) if s.crc_valid() => {
                    for e in &s.entries {
                        let entry = Entry::from_snapshot(e);
                        let expired = entry.current_txn_first_offset.is_none()
                            && self.now_ms.saturating_sub(entry.last_timestamp) >= PRODUCER_ID_EXPIRATION_MS;
                        if !expired {
                            self.load_entry(e.producer_id, entry);
                        }
                    }
                    self.last_snap_offset = offset;
                    self.last_map_offset = offset;
                    return;
                }
                _ => self.remove_and_delete(files, offset),
            }
        }
        self.last_snap_offset = log_start;
        self.last_map_offset = log_start;
    }

    /// `takeSnapshot`: at the map's end offset, when past the last snapshot's.
    fn take_snapshot(&mut self, files: &mut SnapshotFiles) {
        if self.last_map_offset > self.last_snap_offset {
            let bytes = producer_snapshot::encode(&self.producers.snapshot());
            files.write(self.last_map_offset, bytes);
            let name = format!("{:020}{}", self.last_map_offset, super::names::SNAPSHOT_SUFFIX);
            self.snapshots.insert(self.last_map_offset, name);
            self.last_snap_offset = self.last_map_offset;
        }
    }

    /// `removeStraySnapshots(segmentBaseOffsets)`: relist, keep the snapshots at segment bases
    /// and the latest stray one if it is above every base.
    fn remove_stray_snapshots(&mut self, files: &mut SnapshotFiles, bases: &[i64]) -> Result<(), Thrown> {
        let mut snapshots = files.list()?;
        let max_base = bases.iter().max().copied();
        let mut latest_stray: Option<i64> = None;
        let offsets: Vec<i64> = snapshots.keys().copied().collect();
        for o in offsets {
            if bases.contains(&o) {
                continue;
            }
            if let Some(prev) = latest_stray {
                if let Some(name) = snapshots.remove(&prev) {
                    files.delete(&name);
                }
            }
            latest_stray = Some(o);
        }
        if let (Some(stray), Some(max)) = (latest_stray, max_base) {
            if stray < max {
                if let Some(name) = snapshots.remove(&stray) {
                    files.delete(&name);
                }
            }
        }
        self.snapshots = snapshots;
        Ok(())
    }

    /// `truncateFullyAndStartAt(offset)`.
    fn truncate_fully_and_start_at(&mut self, files: &mut SnapshotFiles, offset: i64) {
        self.clear();
        let all: Vec<i64> = self.snapshots.keys().copied().collect();
        for o in all {
            self.remove_and_delete(files, o);
        }
        self.last_snap_offset = 0;
        self.last_map_offset = offset;
    }

    /// `removeAndMarkSnapshotForDeletion(offset)`: only a snapshot this manager knows.
    fn mark_for_deletion(&mut self, files: &mut SnapshotFiles, offset: i64) {
        self.remove_and_delete(files, offset);
    }

    /// One batch's effect (`LogSegment.updateProducerState` without the map end, or one batch
    /// of `loadProducersFromRecords`), with origin REPLICATION (nothing fenced); the
    /// transaction a marker ended, when it held data (`ProducerAppendInfo.appendEndTxnMarker`).
    fn apply_batch(&mut self, batch: &RawBatch<'_>) -> Result<Option<CompletedTxn>, Thrown> {
        let Some(h) = batch.header() else { return Ok(None) };
        if h.producer_id < 0 {
            return Ok(None);
        }
        self.producers.touch(h.producer_id);
        let mut completed = None;
        let thrown = |exception: String| Thrown { position: batch.position, exception };
        let current = self.producers.get_mut(h.producer_id).cloned().unwrap_or_else(Entry::empty);
        let mut updated = Entry { batches: VecDeque::new(), ..current };
        if h.is_control() {
            let Some((coordinator_epoch, commit, timestamp)) = end_txn_marker(batch)? else { return Ok(None) };
            completed = updated.current_txn_first_offset.map(|first_offset| CompletedTxn {
                producer_id: h.producer_id,
                first_offset,
                last_offset: h.base_offset,
                is_aborted: !commit,
            });
            updated.maybe_update_producer_epoch(h.producer_epoch);
            updated.coordinator_epoch = coordinator_epoch;
            updated.current_txn_first_offset = None;
            updated.last_timestamp = timestamp;
        } else {
            let first_offset = h.base_offset;
            let last_offset = h.last_offset();
            updated.maybe_update_producer_epoch(h.producer_epoch);
            updated.add_batch_metadata(BatchMetadata {
                last_sequence: h.last_sequence(),
                last_offset,
                offset_delta: last_offset.wrapping_sub(first_offset) as i32,
                timestamp: h.max_timestamp,
            });
            updated.last_timestamp = h.max_timestamp;
            match (updated.current_txn_first_offset, h.is_transactional()) {
                (Some(_), false) => {
                    return Err(thrown(format!(
                        "org.apache.kafka.common.errors.InvalidTxnStateException: Expected transactional write from \
                         producer {} at offset {first_offset}",
                        h.producer_id
                    )))
                }
                (None, true) => {
                    // `startedTransactions`: this batch opens the producer's transaction.
                    updated.current_txn_first_offset = Some(first_offset);
                    self.ongoing.insert(first_offset, h.producer_id);
                }
                _ => {}
            }
        }
        if let Some(c) = &completed {
            // `completeTxn`: the transaction is found by its first offset alone (two producers'
            // transactions starting at one offset share an entry, the later one's).
            if self.ongoing.remove(&c.first_offset).is_none() {
                return Err(thrown(format!(
                    "java.lang.IllegalArgumentException: Attempted to complete transaction CompletedTxn[producerId={}, \
                     firstOffset={}, lastOffset={}, isAborted={}] which was not started",
                    c.producer_id, c.first_offset, c.last_offset, c.is_aborted
                )));
            }
            self.unreplicated.insert(c.first_offset, c.last_offset);
        }
        match self.producers.get_mut(h.producer_id) {
            Some(e) => e.update(&updated),
            None => self.producers.insert(h.producer_id, updated),
        }
        Ok(completed)
    }
}

/// A control batch's end-transaction marker as `ProducerAppendInfo.appendEndTxnMarker` reads it
/// (its first record): coordinator epoch, whether it commits, the record's timestamp; `None`
/// for a batch without records. What Kafka throws where the record does not read.
fn end_txn_marker(batch: &RawBatch<'_>) -> Result<Option<(i32, bool, i64)>, Thrown> {
    let thrown = |exception: String| Thrown { position: batch.position, exception };
    let invalid = |what: &dyn std::fmt::Display| thrown(format!("{INVALID_RECORD}: {what}"));
    // `batch.iterator()`: an unknown codec id is `CompressionType.forId`'s
    // IllegalArgumentException, a stream that does not decompress a KafkaException; neither
    // is what a segment's recovery catches.
    let records = batch.records().map_err(|e| match e.what.strip_prefix("unknown compression codec ") {
        Some(id) => thrown(format!("java.lang.IllegalArgumentException: Unknown compression type id: {id}")),
        None if e.what.contains(" stream") => thrown(format!("org.apache.kafka.common.KafkaException: {}", e.what)),
        None => invalid(&e.what),
    })?;
    // `iterator().hasNext()`, then one `next()`: the first record only. The declared count is
    // held against the bytes left only when it is 1 (`RecordIterator.next` checks as it reads
    // the last declared record); an empty batch ends nothing.
    let (decoded, error) = records.decode_prefix();
    let count = records.header().map_or(1, |h| h.records_count);
    let first = match (decoded.first(), error) {
        (Some(_), Some(e)) if count == 1 => return Err(invalid(&e.what)),
        (Some(first), _) => first,
        (None, Some(e)) => return Err(invalid(&e.what)),
        (None, None) => return Ok(None),
    };
    let marker = crate::format::control::decode(first.key, first.value).map_err(|e| invalid(&e))?;
    let crate::format::control::ControlRecord::EndTxn { coordinator_epoch, commit, .. } = marker else {
        return Err(thrown(format!(
            "java.lang.IllegalArgumentException: Invalid control record type for end transaction marker {}",
            marker.type_name()
        )));
    };
    Ok(Some((coordinator_epoch, commit, first.timestamp)))
}

const INVALID_RECORD: &str = "org.apache.kafka.common.InvalidRecordException";

/// What `LogSegment.recover` catches around each batch (`CorruptRecordException`,
/// `InvalidRecordException`): the segment is cut after the batch that threw (its bytes were
/// counted valid before its producer state was updated).
pub fn recovery_catches(t: &Thrown) -> bool {
    t.exception.starts_with(INVALID_RECORD)
        || t.exception.starts_with("org.apache.kafka.common.errors.CorruptRecordException")
}

/// Whether a valid v2 batch throws when `LogSegment.recover` updates the producer state with it
/// in a way recovery catches: a producer's control batch whose marker record does not read.
pub fn recovery_cuts_after(batch: &RawBatch<'_>) -> Option<Thrown> {
    let h = batch.header()?;
    if batch.magic() < 2 || h.producer_id < 0 || !h.is_control() {
        return None;
    }
    end_txn_marker(batch).err().filter(recovery_catches)
}

/// A transaction that a COMMIT or ABORT marker ended (`CompletedTxn`): its producer, its first
/// data offset, the marker's offset.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CompletedTxn {
    pub producer_id: i64,
    pub first_offset: i64,
    pub last_offset: i64,
    pub is_aborted: bool,
}

/// A `ProducerStateManager` fed batches in log order, as a broker's recovery feeds it
/// (`LogSegment.updateProducerState`): the producer table, the open transactions
/// (`ongoingTxns`, by first offset) and, for each ended one, the last stable offset Kafka
/// writes beside it in the transaction index.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProducerReplay {
    manager: Manager,
}

impl Default for ProducerReplay {
    fn default() -> Self {
        ProducerReplay::new()
    }
}

impl ProducerReplay {
    /// No producer known, the map's end at 0.
    pub fn new() -> ProducerReplay {
        ProducerReplay { manager: Manager::empty(0) }
    }

    /// The state a snapshot taken at `offset` holds (`loadFromSnapshot` without expiry: every
    /// entry, each open transaction put back in `ongoingTxns`, as `loadProducerEntry` does).
    pub fn from_snapshot(entries: &[ProducerEntry], offset: i64) -> ProducerReplay {
        let mut r = ProducerReplay::new();
        for e in entries {
            r.manager.load_entry(e.producer_id, Entry::from_snapshot(e));
        }
        r.manager.last_map_offset = offset;
        r
    }

    /// Start the map at `offset` (the log start, for a replay of the whole log).
    pub fn start_at(&mut self, offset: i64) {
        self.manager.last_map_offset = offset;
    }

    /// The offset after the last batch applied (`mapEndOffset`).
    pub fn map_end_offset(&self) -> i64 {
        self.manager.last_map_offset
    }

    /// Apply one batch; for a marker that ended a transaction with data, that transaction and
    /// the last stable offset Kafka computes for it before completing it
    /// (`ProducerStateManager.lastStableOffset(completedTxn)`: the first offset of the earliest
    /// other producer's open transaction, else the marker's offset + 1).
    pub fn apply(&mut self, batch: &RawBatch<'_>) -> Result<Option<(CompletedTxn, i64)>, Thrown> {
        let completed = self.manager.apply_batch(batch)?;
        self.manager.last_map_offset = batch.last_offset().wrapping_add(1);
        // `findNextIncompleteTxn`: the earliest open transaction of another producer.
        Ok(completed.map(|c| {
            let lso = self
                .manager
                .ongoing
                .iter()
                .find(|(_, pid)| **pid != c.producer_id)
                .map_or(c.last_offset + 1, |(first, _)| *first);
            (c, lso)
        }))
    }

    /// `firstUnstableOffset` once the HW is `high_watermark` (`onHighWatermarkUpdated` drops
    /// the ended transactions whose marker is below it): the first offset of the earliest open
    /// transaction or of an ended one whose marker the HW does not cover yet.
    pub fn first_unstable_offset(&self, high_watermark: i64) -> Option<i64> {
        self.manager.first_unstable_offset(high_watermark)
    }

    /// The open transactions: (first offset, producer id), by first offset.
    pub fn open_transactions(&self) -> impl Iterator<Item = (i64, i64)> + '_ {
        self.manager.ongoing.iter().map(|(o, p)| (*o, *p))
    }

    /// The snapshot file Kafka would write now (`takeSnapshot`: its producers in its map's
    /// iteration order).
    pub fn snapshot_bytes(&self) -> Vec<u8> {
        producer_snapshot::encode(&self.manager.producers.snapshot())
    }

    /// The producer table in the order the broker's map iterates it (its `activeProducers`,
    /// which DescribeProducers answers with).
    pub fn producers_in_map_order(&self) -> Vec<ProducerEntry> {
        self.manager.producers.snapshot()
    }

    /// The batch of `producer_id` a leader takes `(producer_epoch, first_sequence,
    /// last_sequence)` for a retry of (`ProducerStateEntry.findDuplicateBatch`: the same epoch,
    /// and one of the entry's retained batches, at most five, with the same first and last
    /// sequence): its first and last offset.
    pub fn duplicate_batch(
        &self,
        producer_id: i64,
        producer_epoch: i16,
        first_sequence: i32,
        last_sequence: i32,
    ) -> Option<(i64, i64)> {
        let (_, entry) = self.manager.producers.entries.get(&producer_id)?;
        if entry.producer_epoch != producer_epoch {
            return None;
        }
        entry
            .batches
            .iter()
            .find(|b| {
                b.last_sequence == last_sequence
                    && decrement_sequence(b.last_sequence, b.offset_delta) == first_sequence
            })
            .map(|b| (b.last_offset - i64::from(b.offset_delta), b.last_offset))
    }

    /// The producer table as a snapshot taken now would hold it, by producer id.
    pub fn producers(&self) -> Vec<ProducerEntry> {
        let mut all: Vec<ProducerEntry> =
            self.manager.producers.entries.iter().map(|(id, (_, e))| e.to_snapshot(*id)).collect();
        all.sort_by_key(|e| e.producer_id);
        all
    }
}

/// One segment of the log as the load sees it: the bytes it starts with, and, once recovered,
/// how many of them recovery kept and the offset index it rebuilt.
pub struct SegmentBytes<'a> {
    pub base_offset: i64,
    pub original: &'a [u8],
    pub original_index: &'a [u8],
    pub recovered: Option<(usize, Vec<u8>)>,
}

impl SegmentBytes<'_> {
    fn bytes(&self, recovered: bool) -> &[u8] {
        match (&self.recovered, recovered) {
            (Some((valid, _)), true) => &self.original[..(*valid).min(self.original.len())],
            _ => self.original,
        }
    }
    fn index(&self, recovered: bool) -> &[u8] {
        match (&self.recovered, recovered) {
            (Some((_, index)), true) => index,
            _ => self.original_index,
        }
    }
}

/// What happened to the segments during the load, in order.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LoadEvent {
    /// `recoverSegment` of the segment based at this offset, in `loadSegmentFiles` (a missing
    /// index: only the segments below it are loaded yet).
    RecoverWhileLoading(i64),
    /// `recoverSegment` of the segment based at this offset, in `recoverLog` (every segment
    /// is loaded).
    Recover(i64),
    /// `recoverSegment` of the segment based at `base` threw `LogSegmentOffsetOverflowException`
    /// after its producer-state rebuild: the segment is split (`splitOverflowedSegment`) and
    /// the old one's snapshot deleted.
    Split { base: i64, while_loading: bool },
    /// `recoverLog` cut the segment based at this offset: every later segment is deleted with
    /// its snapshot.
    DeleteAfter(i64),
    /// The log ends below the log start: every segment goes, the state starts at this offset.
    DeleteAllAndStartAt(i64),
}

/// The load's inputs and decisions, for [`simulate`].
pub struct LoadFacts<'a> {
    /// Every segment the load saw, by base offset (those it deletes included).
    pub segments: Vec<SegmentBytes<'a>>,
    pub events: Vec<LoadEvent>,
    pub log_start_checkpoint: i64,
    /// `max(log-start checkpoint, first segment's base)` after the load.
    pub log_start_after: i64,
    pub log_end_offset: i64,
    pub clean_shutdown: bool,
    pub now_ms: i64,
}

/// Replay a load's producer-state steps over `files`; returns the files with every delete and
/// write the load makes, in order, or what Kafka throws on the way.
pub fn simulate(
    mut files: SnapshotFiles,
    swap_deleted: &[String],
    facts: &LoadFacts<'_>,
) -> Result<SnapshotFiles, Thrown> {
    // The log's own manager is made before the load, from the files then on disk; the swap
    // handling then deletes the files named inside a swapped range.
    let mut main = Manager::new(&files, facts.now_ms)?;
    for name in swap_deleted {
        files.delete(name);
    }
    let mut recovered = vec![false; facts.segments.len()];
    let mut alive = vec![true; facts.segments.len()];
    let index_of = |base: i64| facts.segments.iter().position(|s| s.base_offset == base);
    for event in &facts.events {
        match *event {
            LoadEvent::RecoverWhileLoading(base) | LoadEvent::Recover(base) => {
                let Some(i) = index_of(base) else { continue };
                let while_loading = matches!(event, LoadEvent::RecoverWhileLoading(_));
                recover_segment(&mut files, facts, &alive, &mut recovered, i, while_loading)?;
            }
            LoadEvent::Split { base, while_loading } => {
                let mut m = Manager::new(&files, facts.now_ms)?;
                let loaded: Vec<usize> = (0..facts.segments.len())
                    .filter(|j| alive[*j] && (!while_loading || facts.segments[*j].base_offset < base))
                    .collect();
                rebuild(&mut m, &mut files, facts, &loaded, &recovered, facts.log_start_checkpoint, base, false)?;
                main.mark_for_deletion(&mut files, base);
            }
            LoadEvent::DeleteAfter(base) => {
                let Some(i) = index_of(base) else { continue };
                for (a, seg) in alive.iter_mut().zip(&facts.segments).skip(i + 1) {
                    if *a {
                        *a = false;
                        main.mark_for_deletion(&mut files, seg.base_offset);
                    }
                }
            }
            LoadEvent::DeleteAllAndStartAt(offset) => {
                for (j, a) in alive.iter_mut().enumerate() {
                    if *a {
                        *a = false;
                        main.mark_for_deletion(&mut files, facts.segments[j].base_offset);
                    }
                }
                main.truncate_fully_and_start_at(&mut files, offset);
            }
        }
    }
    let live: Vec<usize> = (0..facts.segments.len()).filter(|j| alive[*j]).collect();
    let bases: Vec<i64> = if live.is_empty() {
        vec![facts.log_start_after]
    } else {
        live.iter().map(|j| facts.segments[*j].base_offset).collect()
    };
    main.remove_stray_snapshots(&mut files, &bases)?;
    files.rebuild_start = Some(rebuild(
        &mut main,
        &mut files,
        facts,
        &live,
        &recovered,
        facts.log_start_after,
        facts.log_end_offset,
        facts.clean_shutdown,
    )?);
    note_unstable_at_open(&mut files, &main, facts, &live, &recovered);
    Ok(files)
}

/// `recoverSegment` of segment `i` (with `while_loading`, during the load: only the segments
/// below it are loaded): a rebuild up to its base, then `LogSegment.recover` over it and a
/// snapshot at the map's end.
fn recover_segment(
    files: &mut SnapshotFiles,
    facts: &LoadFacts<'_>,
    alive: &[bool],
    recovered: &mut [bool],
    i: usize,
    while_loading: bool,
) -> Result<(), Thrown> {
    let base = facts.segments[i].base_offset;
    let mut m = Manager::new(files, facts.now_ms)?;
    // The log's segments as `recoverSegment` sees them: those loaded so far (the
    // floor segment of its offset may lie past the range the rebuild reads).
    let loaded: Vec<usize> = (0..facts.segments.len())
        .filter(|j| alive[*j])
        .filter(|j| !while_loading || facts.segments[*j].base_offset < base)
        .collect();
    rebuild(&mut m, files, facts, &loaded, recovered, facts.log_start_checkpoint, base, false)?;
    // `LogSegment.recover`: every valid batch, v2 ones updating producers, each
    // moving the map's end past it.
    recovered[i] = true;
    let seg = &facts.segments[i];
    for b in BatchIter::new(seg.bytes(true)) {
        if b.magic() >= 2 {
            match m.apply_batch(&b) {
                Ok(_ended) => m.last_map_offset = b.last_offset().wrapping_add(1),
                // Caught by the recovery loop, which stops there.
                Err(t) if recovery_catches(&t) => break,
                Err(t) => return Err(t),
            }
        }
    }
    m.take_snapshot(files);
    Ok(())
}

/// The state the log opens with: its first unstable offset, what reading it as offset metadata
/// throws, and the offsets each ongoing transaction's first offset reads as.
fn note_unstable_at_open(
    files: &mut SnapshotFiles,
    main: &Manager,
    facts: &LoadFacts<'_>,
    live: &[usize],
    recovered: &[bool],
) {
    files.first_unstable_at_open = main.first_unstable_offset(facts.log_start_after);
    files.after_load = Some(ProducerReplay { manager: main.clone() });
    if let Some(offset) = files.first_unstable_at_open {
        files.thrown_at_open = read_at_open(facts, live, recovered, offset.max(facts.log_start_after)).err();
    }
    if files.thrown_at_open.is_none() {
        for &first in main.ongoing.keys().chain(main.unreplicated.keys()) {
            if let Ok(at) = read_at_open(facts, live, recovered, first.max(facts.log_start_after)) {
                files.unstable_reported.insert(first, at);
            }
        }
    }
}

/// `UnifiedLog.rebuildProducerState(manager, segments, logStartOffset, lastOffset, clean)` over
/// the segments `segs` (indexes into `facts.segments`, by base offset).
#[allow(clippy::too_many_arguments)]
fn rebuild(
    m: &mut Manager,
    files: &mut SnapshotFiles,
    facts: &LoadFacts<'_>,
    segs: &[usize],
    recovered: &[bool],
    log_start: i64,
    last_offset: i64,
    clean: bool,
) -> Result<RebuildStart, Thrown> {
    let mut to_snapshot: Vec<i64> = Vec::new();
    if let Some(&last) = segs.last() {
        if segs.len() >= 2 {
            to_snapshot.push(facts.segments[segs[segs.len() - 2]].base_offset);
        }
        to_snapshot.push(facts.segments[last].base_offset);
    }
    to_snapshot.push(last_offset);
    if m.latest_snapshot_offset().is_none() && clean {
        // Empty snapshots at the last two segments' bases and the log end: no scan.
        for o in to_snapshot {
            m.last_map_offset = o;
            m.take_snapshot(files);
        }
        return Ok(RebuildStart {
            from_offset: last_offset,
            producers: Vec::new(),
            from_snapshot: false,
            replays: false,
        });
    }
    let empty_before = m.is_empty() && m.last_map_offset >= last_offset;
    m.truncate_and_reload(files, log_start, last_offset);
    let start = RebuildStart {
        from_offset: m.last_map_offset,
        producers: m.producers.snapshot(),
        from_snapshot: m.latest_snapshot_offset() == Some(m.last_map_offset),
        replays: !empty_before,
    };
    if last_offset > m.last_map_offset && !empty_before {
        let from = m.last_map_offset;
        // `LogSegments.values(from, lastOffset)`: from the segment holding `from` (or the first)
        // to those starting below `lastOffset`.
        let floor = segs.iter().rposition(|j| facts.segments[*j].base_offset <= from).unwrap_or(0);
        let floor_of_last = segs.iter().rposition(|j| facts.segments[*j].base_offset <= last_offset);
        for (k, &j) in segs.iter().enumerate().skip(floor) {
            let seg = &facts.segments[j];
            if seg.base_offset >= last_offset {
                break;
            }
            let start = seg.base_offset.max(m.last_map_offset).max(log_start);
            m.last_map_offset = start;
            if to_snapshot.contains(&seg.base_offset) {
                m.take_snapshot(files);
            }
            let end = (floor_of_last == Some(k)).then_some(last_offset);
            replay_segment(m, seg, recovered[j], start, end)?;
        }
    }
    m.last_map_offset = last_offset;
    m.take_snapshot(files);
    Ok(start)
}

/// Apply the batches of `seg` from offset `start` (up to offset `end` when the segment holds it:
/// the read's end is found through the index too) to `m`, as `rebuildProducerState` reads them.
fn replay_segment(
    m: &mut Manager,
    seg: &SegmentBytes<'_>,
    recovered: bool,
    start: i64,
    end: Option<i64>,
) -> Result<(), Thrown> {
    let (bytes, index) = (seg.bytes(recovered), seg.index(recovered));
    let max_position = match end {
        Some(end) => match search_from_index(seg.base_offset, index, bytes, end)? {
            Some(p) => p,
            None => bytes.len() as u64,
        },
        None => bytes.len() as u64,
    };
    let Some(start_position) = search_from_index(seg.base_offset, index, bytes, start)? else { return Ok(()) };
    if max_position < start_position {
        return Err(Thrown {
            position: start_position,
            exception: format!(
                "java.lang.IllegalArgumentException: Invalid size: {} (a read ending before it starts)",
                max_position as i64 - start_position as i64
            ),
        });
    }
    let slice = &bytes[start_position as usize..(max_position as usize).min(bytes.len())];
    let mut iter = BatchIter::new(slice);
    // One `loadProducersFromRecords` per segment read.
    m.producers.begin_read();
    for b in iter.by_ref() {
        let moved = RawBatch { position: b.position + start_position, ..b };
        let _ended = m.apply_batch(&moved)?;
    }
    m.producers.end_read();
    if let Some(ScanStop::BadSize { position, size }) = iter.stop() {
        return Err(Thrown {
            position: position + start_position,
            exception: format!(
                "org.apache.kafka.common.errors.CorruptRecordException: Found record size {size} smaller than \
                 minimum record overhead (14)"
            ),
        });
    }
    Ok(())
}

/// `UnifiedLog` turns the first unstable offset into offset metadata whenever it is offset-only
/// (when the log opens, at each HW update: `maybeIncrementFirstUnstableOffset`,
/// `LocalLog.read(offset, 1)`): below the log end, the segment holding it translates the
/// offset (`LogSegment.translateOffset`: the offset index's lower bound, then the search), then
/// each later one until a batch is found. The offset the metadata then carries (the found
/// batch's base offset; the offset itself past the log end, caught as out of range; the log end
/// when no batch is found), or what the search throws, in which segment.
fn read_at_open(facts: &LoadFacts<'_>, live: &[usize], recovered: &[bool], offset: i64) -> Result<i64, (i64, Thrown)> {
    if offset >= facts.log_end_offset {
        return Ok(offset);
    }
    let Some(floor) = live.iter().rposition(|j| facts.segments[*j].base_offset <= offset) else { return Ok(offset) };
    for &j in &live[floor..] {
        let seg = &facts.segments[j];
        let (bytes, index) = (seg.bytes(recovered[j]), seg.index(recovered[j]));
        let found = search_from_index(seg.base_offset, index, bytes, offset).map_err(|t| (seg.base_offset, t))?;
        if let Some(position) = found {
            let batch = BatchIter::starting_at(bytes, position as usize).next();
            let base = batch
                .map(|b| b.kafka_base_offset().map_err(|exception| (seg.base_offset, Thrown { position, exception })));
            return match base {
                Some(b) => b,
                None => Ok(offset),
            };
        }
    }
    Ok(facts.log_end_offset)
}

/// `LogSegment.translateOffset(offset)`: the index's lower bound for the offset, then the
/// search from there; the position of the batch holding it, if any.
fn search_from_index(base: i64, index: &[u8], bytes: &[u8], target: i64) -> Result<Option<u64>, Thrown> {
    let start = super::recovery::index_lookup(base, index, target);
    super::recovery::search_for_offset(bytes, target, start)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::format::batch::{encode_batch, BatchSpec};
    use crate::format::control::EndTxnBatch;
    use crate::format::record::NewRecord;

    fn txn_data(producer: i64, offset: i64) -> Vec<u8> {
        let spec = BatchSpec {
            producer_id: producer,
            producer_epoch: 0,
            base_sequence: 0,
            is_transactional: true,
            ..BatchSpec::plain(offset, 0)
        };
        encode_batch(&spec, &[NewRecord { timestamp: 1, key: None, value: Some(b"v".to_vec()), headers: vec![] }])
    }

    fn marker(producer: i64, offset: i64, commit: bool) -> Vec<u8> {
        let m = EndTxnBatch {
            producer_id: producer,
            producer_epoch: 0,
            base_offset: offset,
            leader_epoch: 0,
            commit,
            coordinator_epoch: 1,
            timestamp: 2,
        };
        m.encode()
    }

    fn replay(log: &[u8]) -> (ProducerReplay, Result<(), Thrown>) {
        let mut r = ProducerReplay::new();
        for b in BatchIter::new(log) {
            if let Err(t) = r.apply(&b) {
                return (r, Err(t));
            }
        }
        (r, Ok(()))
    }

    /// `UnifiedLog.loadProducersFromRecords` (UnifiedLog.java:2672-2687 in 4.4.0's line table)
    /// gathers a read's producers in a `HashMap` by `computeIfAbsent` (a new key at the head of
    /// its bucket) and updates the manager in that map's order: producers 3, 19 and 35 share a
    /// bucket, so a read that meets them in that order adds them 35, 19, 3; one the manager
    /// already holds (19) keeps its place. Found by describe-producers against Kafka's tool on
    /// a clean load from an older snapshot (tests/kafka/oracle_transactions.rs).
    #[test]
    fn a_reads_new_producers_join_the_map_in_the_reads_own_hash_map_order_not_the_batches() {
        let ids = |m: &Manager| m.producers.snapshot().iter().map(|e| e.producer_id).collect::<Vec<_>>();
        let log: Vec<u8> = [txn_data(3, 0), txn_data(19, 1), txn_data(35, 2), txn_data(7, 3)].concat();
        let read = |m: &mut Manager| {
            m.producers.begin_read();
            for b in BatchIter::new(&log) {
                m.apply_batch(&b).unwrap();
            }
            m.producers.end_read();
        };
        let mut m = Manager::empty(0);
        read(&mut m);
        assert_eq!(ids(&m), vec![35, 19, 3, 7]);
        let mut held = Manager::empty(0);
        held.producers.insert(19, Entry::empty());
        read(&mut held);
        assert_eq!(ids(&held), vec![19, 35, 3, 7]);
        // Batch by batch (`LogSegment.recover`'s `updateProducerState`), the batches' order.
        let (r, done) = replay(&log);
        done.unwrap();
        assert_eq!(r.producers_in_map_order().iter().map(|e| e.producer_id).collect::<Vec<_>>(), vec![3, 19, 35, 7]);
    }

    #[test]
    fn two_transactions_starting_at_one_offset_share_an_entry_and_ending_the_second_throws() {
        // Producer 9's batch claims offset 0, where producer 7's transaction starts.
        let log = [txn_data(7, 0), txn_data(9, 0), marker(7, 2, true), marker(9, 3, false)].concat();
        let (r, result) = replay(&log);
        let thrown = result.expect_err("completeTxn finds no transaction at 0 for producer 9");
        assert!(thrown.exception.contains("which was not started"), "{}", thrown.exception);
        assert_eq!(r.open_transactions().count(), 0);
    }

    #[test]
    fn a_marker_is_read_by_its_first_record_and_its_declared_count_checked_only_at_one() {
        let mut m = marker(7, 1, true);
        // recordsCount (bytes 57..61) above the one record the marker holds: Kafka reads the
        // first record and stops.
        m[57..61].copy_from_slice(&27i32.to_be_bytes());
        let (r, result) = replay(&[txn_data(7, 0), m.clone()].concat());
        assert!(result.is_ok());
        assert_eq!(r.first_unstable_offset(0), Some(0), "ended, its marker above the HW of 0");
        assert_eq!(r.first_unstable_offset(2), None);
        // A count of 1 with a byte after the record: the first `next()` is the last declared
        // one, and the check throws what a segment's recovery catches.
        let mut long = marker(7, 1, true);
        long.push(0);
        let len = (long.len() - 12) as i32;
        long[8..12].copy_from_slice(&len.to_be_bytes());
        let b = BatchIter::new(&long).next().unwrap();
        let thrown = recovery_cuts_after(&b).expect("recovery catches the marker that does not read");
        assert!(thrown.exception.starts_with(INVALID_RECORD), "{}", thrown.exception);
    }
}
