//! What holds the last stable offset (LSO): a partition log's transactions as Kafka's
//! producer-state code sees them (`ProducerStateManager`, `ProducerAppendInfo`,
//! `LogSegment.updateProducerState`, `UnifiedLog.updateHighWatermarkMetadata`).
//!
//! The log is replayed from its first segment with a fresh producer table (or the snapshot
//! Kafka wrote at that segment's base, when retention deleted what came before), batch by
//! batch, as a broker's recovery replays it: that is what the log proves. Not from the log
//! start: records below it that DeleteRecords hid are still the producers' history, which
//! Kafka's producer table, snapshots and `.txnindex` keep. A broker that loads the dir
//! starts instead from the latest producer snapshot and replays only what follows it, so a
//! snapshot that disagrees with the log (an open transaction the log closed: the
//! "snapshot-only hang") is what the broker believes. Both views are returned; the LSO is the
//! broker's: the first offset of its earliest open transaction, bounded by the high watermark.
//! Each ABORT marker that ended a transaction with data yields the transaction-index entry
//! Kafka writes in the marker's segment (`AbortedTxn` with the LSO of that moment); the
//! segment's `.txnindex` is checked against them. Nothing here prints or writes.

use crate::error::Result;
use crate::format::batch::BatchIter;
use crate::format::producer_snapshot::{self, ProducerEntry};
use crate::format::txn_index::{self, AbortedTxn};
use crate::log::names;
use crate::log::producer_state::{CompletedTxn, ProducerReplay};
use crate::log::verify::Finding;
use crate::log::Log;
use std::collections::BTreeMap;
use std::path::PathBuf;

/// One open transaction: a producer's transactional batches with no marker after them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OpenTransaction {
    pub producer_id: i64,
    pub producer_epoch: i16,
    pub first_offset: i64,
    pub last_offset: i64,
    pub batches: u64,
    pub records: u64,
    /// The first and last batch's max timestamp (ms); `None` when the transaction began before
    /// what the replay read (it came from a snapshot).
    pub first_timestamp: Option<i64>,
    pub last_timestamp: Option<i64>,
}

/// The producer snapshot a broker would load, and what it believes from it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SnapshotView {
    pub path: PathBuf,
    pub offset: i64,
    pub producers: Vec<ProducerEntry>,
    /// False for a snapshot the broker's load writes (it rebuilt the table from the log).
    pub on_disk: bool,
}

/// A partition's transactions.
#[derive(Clone)]
pub struct Transactions {
    pub log_start_offset: i64,
    pub log_end_offset: i64,
    /// The producer table the whole log makes, by producer id.
    pub producers: Vec<ProducerEntry>,
    /// Open transactions by the log, by first offset.
    pub open: Vec<OpenTransaction>,
    /// Open transactions a broker loading the dir holds (snapshot, then the batches after it),
    /// by first offset; the same as `open` unless the snapshot disagrees with the log.
    pub broker_open: Vec<OpenTransaction>,
    pub committed: u64,
    /// The broker's replay, for its first unstable offset at a given HW.
    broker: ProducerReplay,
    /// The aborted transactions Kafka indexes, with the segment (base offset) holding each marker.
    pub aborted: Vec<(i64, AbortedTxn)>,
    /// The snapshot the broker's view starts from.
    pub snapshot: Option<SnapshotView>,
    /// Whether the broker replays batches onto it (not after a clean shutdown with no snapshot).
    pub broker_replays: bool,
    /// Where the log or its files disagree with Kafka's rules.
    pub findings: Vec<Finding>,
    pub notes: Vec<String>,
    /// After a load: the offset a broker reports for each transaction's first offset once it
    /// is the first unstable offset (the batch the read at it lands on; a damaged offset index
    /// moves it). Empty: each is reported as it is.
    pub unstable_reported: BTreeMap<i64, i64>,
}

impl Transactions {
    /// `firstUnstableOffset` as a broker that loaded the dir computes it once its HW is
    /// `high_watermark`: its earliest open transaction, or a transaction its load saw end
    /// whose marker the HW does not cover yet.
    pub fn first_unstable_offset(&self, high_watermark: i64) -> Option<i64> {
        let first = self.broker.first_unstable_offset(high_watermark)?;
        Some(self.unstable_reported.get(&first).copied().unwrap_or(first))
    }

    /// The producer table of a broker that loaded the dir, in its map's order (what
    /// `kafka-transactions.sh describe-producers` lists).
    pub fn broker_producers(&self) -> Vec<ProducerEntry> {
        self.broker.producers_in_map_order()
    }

    /// Whether the log (not only the broker's snapshot) holds `o` open: the same producer's
    /// transaction from the same first offset. A binary search of `open` (by first offset).
    pub fn log_holds(&self, o: &OpenTransaction) -> bool {
        open_at(&self.open, o.first_offset).iter().any(|l| l.producer_id == o.producer_id)
    }

    /// Whether the broker holds a transaction open from `first_offset`. A binary search of
    /// `broker_open` (by first offset).
    pub fn broker_holds_from(&self, first_offset: i64) -> bool {
        !open_at(&self.broker_open, first_offset).is_empty()
    }

    /// The LSO for a high watermark: the first unstable offset, bounded by the HW
    /// (`UnifiedLog.lastStableOffset`).
    pub fn last_stable_offset(&self, high_watermark: i64) -> i64 {
        self.first_unstable_offset(high_watermark).map_or(high_watermark, |f| f.min(high_watermark))
    }
}

/// The transactions of `sorted` (ordered by first offset) that start at `first_offset`.
fn open_at(sorted: &[OpenTransaction], first_offset: i64) -> &[OpenTransaction] {
    let from = sorted.partition_point(|t| t.first_offset < first_offset);
    let to = sorted.partition_point(|t| t.first_offset <= first_offset);
    &sorted[from..to]
}

/// Open transactions with their batches, beside a [`ProducerReplay`].
#[derive(Default, Clone)]
struct Tracker {
    replay: ProducerReplay,
    /// Open transactions by producer id.
    open: BTreeMap<i64, OpenTransaction>,
}

impl Tracker {
    /// A fresh table whose replay starts at `offset`.
    fn starting_at(offset: i64) -> Tracker {
        let mut t = Tracker::default();
        t.replay.start_at(offset);
        t
    }

    fn from_snapshot(entries: &[ProducerEntry], offset: i64) -> Tracker {
        Tracker::from_replay(ProducerReplay::from_snapshot(entries, offset))
    }

    /// A state replayed elsewhere; its open transactions from its producers' entries.
    fn from_replay(replay: ProducerReplay) -> Tracker {
        let entries = replay.producers();
        let open = entries
            .iter()
            .filter(|e| e.current_txn_first_offset >= 0)
            .map(|e| {
                let t = OpenTransaction {
                    producer_id: e.producer_id,
                    producer_epoch: e.producer_epoch,
                    first_offset: e.current_txn_first_offset,
                    last_offset: e.last_offset,
                    batches: 0,
                    records: 0,
                    first_timestamp: None,
                    last_timestamp: Some(e.timestamp),
                };
                (e.producer_id, t)
            })
            .collect();
        Tracker { replay, open }
    }

    fn open_by_first_offset(&self) -> Vec<OpenTransaction> {
        let mut v: Vec<OpenTransaction> = self.open.values().cloned().collect();
        v.sort_by_key(|t| t.first_offset);
        v
    }

    /// Apply a batch; the transaction it ended, with its LSO, if any. Kafka's exception as a
    /// string when its rebuild would throw here.
    fn apply(
        &mut self,
        batch: &crate::format::batch::RawBatch<'_>,
    ) -> std::result::Result<Option<(CompletedTxn, i64)>, String> {
        let ended = self.replay.apply(batch).map_err(|t| t.exception)?;
        let Some(h) = batch.header() else { return Ok(ended) };
        if h.producer_id < 0 {
            return Ok(ended);
        }
        if let Some((c, _)) = &ended {
            self.open.remove(&c.producer_id);
        } else if h.is_control() {
            // A marker with no data before it ends nothing (no `CompletedTxn`).
            self.open.remove(&h.producer_id);
        } else if h.is_transactional() {
            let t = self.open.entry(h.producer_id).or_insert_with(|| OpenTransaction {
                producer_id: h.producer_id,
                producer_epoch: h.producer_epoch,
                first_offset: h.base_offset,
                last_offset: h.last_offset(),
                batches: 0,
                records: 0,
                first_timestamp: Some(h.max_timestamp),
                last_timestamp: None,
            });
            t.producer_epoch = h.producer_epoch;
            t.last_offset = h.last_offset();
            t.batches += 1;
            t.records += h.records_count.max(0) as u64;
            t.last_timestamp = Some(h.max_timestamp);
        }
        Ok(ended)
    }
}

/// Replay the log's batches and read its producer snapshots and transaction indexes.
/// `load` is what a broker's load of the dir does to its producer state: where its last rebuild
/// started ([`crate::log::recovery::RecoveryReport::producer_rebuild_start`]) and the state it ends
/// with ([`crate::log::recovery::RecoveryReport::producers_after_load`]); `None` for a replica that
/// is running (no load: the files on disk are what it has, replayed from its latest snapshot).
pub fn read_transactions(
    log: &Log,
    log_start_offset: i64,
    load: Option<(&crate::log::producer_state::RebuildStart, &ProducerReplay)>,
) -> Result<Transactions> {
    let leo = log.log_end_offset();
    let mut findings = Vec::new();
    let mut notes = Vec::new();
    // The whole log's replay starts where its first segment does, not at the log start:
    // DeleteRecords moves the log start inside the segments (`maybeIncrementLogStartOffset`,
    // `ClientRecordDeletion`) and leaves the producer table alone
    // (`ProducerStateManager.onLogStartOffsetIncremented` drops only unreplicated transactions),
    // so Kafka's snapshots and `.txnindex` entries keep a transaction that began below the log
    // start, with that first offset (issue 41, point 7). Below the first segment (retention
    // deleted it) the snapshot Kafka wrote at that segment's roll is the state there.
    let replay_from = log.segments().first().map_or(log_start_offset, |s| s.base_offset);
    // Every snapshot on disk is compared with the log at its offset.
    let (on_disk, seed) = read_snapshots(log, replay_from, log_start_offset, &mut notes)?;
    let (snapshot, replays) = broker_snapshot(log, load, &on_disk);
    let whole = match &seed {
        Some(entries) => Tracker::from_snapshot(entries, replay_from),
        None => Tracker::starting_at(replay_from),
    };
    // After a load, the broker holds what the load's rebuild read (from the offset its snapshot
    // ends at, through the offset index, to the log end), which the log's batches need not
    // say: its state is the load's.
    let broker = match (&snapshot, load) {
        (_, Some((_, after))) => Tracker::from_replay(after.clone()),
        (Some(s), None) => Tracker::from_snapshot(&s.producers, s.offset),
        (None, None) => Tracker::starting_at(log_start_offset),
    };
    let broker_from = if replays && load.is_none() { broker.replay.map_end_offset() } else { i64::MAX };
    let mut replay = LogReplay::new(whole, broker, broker_from);
    replay.read_segments(log, replay_from, &on_disk, &mut findings)?;
    let LogReplay { whole, broker, mut at_offsets, committed, aborted, .. } = replay;
    while at_offsets.len() < on_disk.len() {
        at_offsets.push(whole.replay.producers());
    }
    for (s, from_log) in on_disk.iter().zip(&at_offsets) {
        compare_snapshot(s, from_log, replay_from, &mut findings, &mut notes);
    }
    check_txn_indexes(log, &aborted, &mut findings)?;
    let aborted: Vec<(i64, AbortedTxn)> = aborted.into_iter().map(|(base, a, _)| (base, a)).collect();
    let open = whole.open_by_first_offset();
    let broker_open = broker_open_as_the_log_has_them(&broker, &open);
    if !replays {
        findings.extend(forgotten_by_a_clean_start(log, log_start_offset, &open, &broker_open));
    }
    Ok(Transactions {
        log_start_offset,
        log_end_offset: leo,
        producers: whole.replay.producers(),
        open,
        broker_open,
        broker: broker.replay,
        committed,
        aborted,
        snapshot,
        broker_replays: replays,
        findings,
        notes,
        unstable_reported: BTreeMap::new(),
    })
}

/// The partition's producer snapshots that read (regular files only: a directory of that name
/// is not a snapshot Kafka reads), those from the log start to the log end in offset order; and
/// the entries of the one at `replay_from`, the first segment's base, when it is above 0 (the
/// state there). One that does not read is a note: a broker deletes it and reads an older one.
fn read_snapshots(
    log: &Log,
    replay_from: i64,
    log_start_offset: i64,
    notes: &mut Vec<String>,
) -> Result<(Vec<SnapshotView>, Option<Vec<ProducerEntry>>)> {
    let leo = log.log_end_offset();
    let mut on_disk: Vec<SnapshotView> = Vec::new();
    let mut seed: Option<Vec<ProducerEntry>> = None;
    for (path, offset) in crate::log::verify::snapshot_files(log.dir())? {
        let bytes = match crate::regular_file::read_regular(&path) {
            Ok(Some(b)) => b,
            Ok(None) | Err(crate::error::Error::NotRegular { .. }) => continue,
            Err(e) => return Err(e),
        };
        match producer_snapshot::decode(&bytes) {
            Ok(s) if s.crc_valid() => {
                if offset == replay_from && replay_from > 0 {
                    seed = Some(s.entries.clone());
                }
                if offset <= leo && offset >= log_start_offset {
                    on_disk.push(SnapshotView { path: path.clone(), offset, producers: s.entries, on_disk: true });
                }
            }
            Ok(_) => notes
                .push(format!("{}: CRC does not match; a broker deletes it and reads an older one", path.display())),
            Err(e) => notes.push(format!(
                "{} at position {}: {}; a broker deletes it and reads an older one",
                path.display(),
                e.position,
                e.what
            )),
        }
    }
    Ok((on_disk, seed))
}

/// The state a broker's producer-state manager replays the log onto: where the load's last
/// rebuild started, or, for a running replica, its latest snapshot at or below the log end; and
/// whether it replays batches onto it.
fn broker_snapshot(
    log: &Log,
    load: Option<(&crate::log::producer_state::RebuildStart, &ProducerReplay)>,
    on_disk: &[SnapshotView],
) -> (Option<SnapshotView>, bool) {
    match load {
        Some((start, _)) => {
            let view = start.from_snapshot.then(|| SnapshotView {
                path: log.dir().join(format!("{:020}{}", start.from_offset, names::SNAPSHOT_SUFFIX)),
                offset: start.from_offset,
                producers: start.producers.clone(),
                on_disk: on_disk.iter().any(|d| d.offset == start.from_offset),
            });
            (view, start.replays)
        }
        None => (on_disk.last().cloned(), true),
    }
}

/// The two replays of the log's batches: the whole log's (what the log proves, from its first
/// segment) and the broker's (from the state it starts with), and what the whole one finds on
/// the way.
struct LogReplay {
    whole: Tracker,
    broker: Tracker,
    /// The broker replays the batches from here (never, after a load: its state is the load's).
    broker_from: i64,
    /// The log's table at each on-disk snapshot's offset, in offset order.
    at_offsets: Vec<Vec<ProducerEntry>>,
    committed: u64,
    /// The aborted transactions Kafka indexes: (segment base, entry, the first offset of the
    /// next transaction another producer opens, when one does).
    aborted: Vec<(i64, AbortedTxn, Option<i64>)>,
    /// The entries of `aborted` whose `alt` is not known yet, by their producer.
    awaiting_alt: BTreeMap<i64, Vec<usize>>,
    whole_stopped: bool,
    broker_stopped: bool,
}

impl LogReplay {
    fn new(whole: Tracker, broker: Tracker, broker_from: i64) -> LogReplay {
        LogReplay {
            whole,
            broker,
            broker_from,
            at_offsets: Vec::new(),
            committed: 0,
            aborted: Vec::new(),
            awaiting_alt: BTreeMap::new(),
            whole_stopped: false,
            broker_stopped: false,
        }
    }

    /// Every batch of the segments holding the log's offsets up to its end: a load that computes
    /// the end below a segment's base (a torn last batch, found by `readNextOffset`) leaves that
    /// segment's batches out of the log, and out of the producer-state rebuild
    /// (`segments.values(mapEndOffset, logEndOffset)`).
    fn read_segments(
        &mut self,
        log: &Log,
        replay_from: i64,
        on_disk: &[SnapshotView],
        findings: &mut Vec<Finding>,
    ) -> Result<()> {
        let leo = log.log_end_offset();
        for seg in log.segments().iter().filter(|s| s.base_offset < leo) {
            let bytes = seg.read_log()?;
            let path = seg.log_path();
            for batch in BatchIter::new(&bytes) {
                // At or past the log end a load computes (its recovery cut an invalid batch and
                // what follows; a dry run leaves the bytes) a batch is not in the log. (A later
                // batch may be: a batch whose base offset field was damaged stays where it is.)
                if batch.base_offset() >= leo {
                    continue;
                }
                if batch.magic() < 2 || batch.last_offset() < replay_from {
                    continue;
                }
                while on_disk.get(self.at_offsets.len()).is_some_and(|s| batch.last_offset() >= s.offset) {
                    self.at_offsets.push(self.whole.replay.producers());
                }
                if !self.whole_stopped {
                    if let Err(e) = self.apply_whole(seg.base_offset, &batch) {
                        findings.push(Finding::new(
                            &path,
                            batch.position,
                            Some(batch.base_offset()),
                            format!("Kafka's producer-state rebuild throws here: {e}"),
                        ));
                        self.whole_stopped = true;
                    }
                }
                if !self.broker_stopped && batch.last_offset() >= self.broker_from {
                    // The same exception is the whole replay's finding already, when it is one.
                    self.broker_stopped = self.broker.apply(&batch).is_err();
                }
            }
        }
        Ok(())
    }

    /// One batch of the segment at `segment_base` onto the whole log's replay: a transaction it
    /// ends is counted, or indexed when aborted; Kafka's exception when its rebuild throws.
    fn apply_whole(
        &mut self,
        segment_base: i64,
        batch: &crate::format::batch::RawBatch<'_>,
    ) -> std::result::Result<(), String> {
        // A transaction another producer opens after an ABORT that no other open one held:
        // appended with the marker in one append (a follower's fetch), its first offset is the
        // entry's LSO, which Kafka computes once the whole append is in.
        let opens = batch.header().filter(|h| {
            h.producer_id >= 0
                && h.is_transactional()
                && !h.is_control()
                && !self.whole.open.contains_key(&h.producer_id)
        });
        if let Some(h) = opens {
            // Each entry waits in `awaiting_alt` until another producer opens one: drained once,
            // so the work is linear in the entries.
            let others: Vec<i64> =
                self.awaiting_alt.keys().copied().filter(|producer| *producer != h.producer_id).collect();
            for producer in others {
                for i in self.awaiting_alt.remove(&producer).unwrap_or_default() {
                    self.aborted[i].2 = Some(h.base_offset);
                }
            }
        }
        match self.whole.apply(batch)? {
            Some((c, lso)) if c.is_aborted => {
                self.awaiting_alt.entry(c.producer_id).or_default().push(self.aborted.len());
                self.aborted.push((
                    segment_base,
                    AbortedTxn {
                        version: 0,
                        producer_id: c.producer_id,
                        first_offset: c.first_offset,
                        last_offset: c.last_offset,
                        last_stable_offset: lso,
                    },
                    None,
                ))
            }
            Some(_) => self.committed += 1,
            None => {}
        }
        Ok(())
    }
}

/// The broker's open transactions, with the log's account of their batches where the log holds
/// the same one (a snapshot keeps only the first offset).
fn broker_open_as_the_log_has_them(broker: &Tracker, open: &[OpenTransaction]) -> Vec<OpenTransaction> {
    broker
        .open_by_first_offset()
        .into_iter()
        .map(|b| {
            let same = open_at(open, b.first_offset).iter().find(|o| o.producer_id == b.producer_id);
            match same {
                Some(o) if b.batches == 0 => o.clone(),
                _ => b,
            }
        })
        .collect()
}

/// After a clean shutdown with no snapshot Kafka scans nothing: the log's open transactions are
/// forgotten, each a finding. One whose records all lie below the log start leaves nothing a
/// consumer reads (a clean stop at a log start DeleteRecords moved to the log end: the load
/// deletes the snapshot at the log start, `ProducerStateManager.truncateAndReload`).
fn forgotten_by_a_clean_start(
    log: &Log,
    log_start_offset: i64,
    open: &[OpenTransaction],
    broker_open: &[OpenTransaction],
) -> Vec<Finding> {
    let readable = |o: &&OpenTransaction| o.last_offset >= log_start_offset;
    open.iter()
        .filter(readable)
        .filter(|o| open_at(broker_open, o.first_offset).is_empty())
        .map(|o| {
            Finding::new(
                log.dir(),
                0,
                Some(o.first_offset),
                format!(
                    "the log holds producer {}'s transaction open from offset {}, but a broker loading this dir \
                     (shut down cleanly, no producer snapshot at or below the log end) starts with no producers \
                     and scans nothing: read_committed consumers read its records before it ends",
                    o.producer_id, o.first_offset
                ),
            )
        })
        .collect()
}

/// The snapshot against the table the log makes at the snapshot's offset (replayed from
/// `replay_from`, its first segment's base).
fn compare_snapshot(
    s: &SnapshotView,
    from_log: &[ProducerEntry],
    replay_from: i64,
    findings: &mut Vec<Finding>,
    notes: &mut Vec<String>,
) {
    let by_id: BTreeMap<i64, &ProducerEntry> = from_log.iter().map(|e| (e.producer_id, e)).collect();
    for (i, e) in s.producers.iter().enumerate() {
        let position = (producer_snapshot::HEADER_BYTES + i * producer_snapshot::ENTRY_BYTES) as u64;
        let Some(log) = by_id.get(&e.producer_id) else {
            not_in_the_log(s, e, position, replay_from, findings, notes);
            continue;
        };
        if *log == e {
            continue;
        }
        let what = how_it_differs(e, log, s.offset);
        findings.push(Finding::new(&s.path, position, Some(e.last_offset), what));
    }
    let in_snapshot: std::collections::BTreeSet<i64> = s.producers.iter().map(|e| e.producer_id).collect();
    for e in from_log.iter().filter(|e| !in_snapshot.contains(&e.producer_id)) {
        if e.current_txn_first_offset >= 0 {
            findings.push(Finding::new(
                &s.path,
                0,
                Some(e.current_txn_first_offset),
                format!(
                    "producer {} is missing here, but the log has its transaction open from offset {}: a broker \
                     loading this snapshot lets read_committed consumers read it before it ends",
                    e.producer_id, e.current_txn_first_offset
                ),
            ));
        } else {
            notes.push(format!(
                "{}: producer {} is in the log but not here (expired: a broker drops producers idle longer than \
                 producer.id.expiration.ms)",
                s.path.display(),
                e.producer_id
            ));
        }
    }
}

/// A producer of the snapshot `s` (its entry at `position`) the log's table lacks: a note when
/// the replay started above 0 (its batches may be older), a finding otherwise (the
/// snapshot-only hang when its transaction is open).
fn not_in_the_log(
    s: &SnapshotView,
    e: &ProducerEntry,
    position: u64,
    replay_from: i64,
    findings: &mut Vec<Finding>,
    notes: &mut Vec<String>,
) {
    if replay_from > 0 {
        notes.push(format!(
            "{}: producer {} is not in the log from its first segment at {replay_from} (its batches may be older)",
            s.path.display(),
            e.producer_id
        ));
    } else if e.current_txn_first_offset >= 0 {
        findings.push(Finding::new(
            &s.path,
            position,
            Some(e.current_txn_first_offset),
            format!(
                "producer {} has a transaction open from offset {} here, but the log holds no batch of it: a \
                 broker loading this snapshot holds the LSO at {} until the coordinator ends it \
                 (the snapshot-only hang; Kafka rebuilds the table from the log when the snapshot is gone)",
                e.producer_id, e.current_txn_first_offset, e.current_txn_first_offset
            ),
        ));
    } else {
        findings.push(Finding::new(
            &s.path,
            position,
            None,
            format!("producer {} is here but the log holds no batch of it", e.producer_id),
        ));
    }
}

/// What differs between a producer's snapshot entry `e` and the log's `log` at the snapshot's
/// offset, in words: an open transaction the log ended (the snapshot-only hang), one the log
/// holds open and the snapshot does not, or the fields side by side.
fn how_it_differs(e: &ProducerEntry, log: &ProducerEntry, snapshot_offset: i64) -> String {
    let (snap_open, log_open) = (e.current_txn_first_offset, log.current_txn_first_offset);
    if snap_open >= 0 && log_open < 0 {
        format!(
            "producer {} has a transaction open from offset {snap_open} here, but the log ended it before offset \
             {}: a broker loading this snapshot holds the LSO at {snap_open} (the snapshot-only hang; remove the \
             snapshot and Kafka rebuilds the table from the log)",
            e.producer_id, snapshot_offset
        )
    } else if snap_open < 0 && log_open >= 0 {
        format!(
            "producer {} has no open transaction here, but the log has one open from offset {log_open}: a broker \
             loading this snapshot lets read_committed consumers read it before it ends",
            e.producer_id
        )
    } else {
        format!(
            "producer {} differs from the log: snapshot (epoch {}, last sequence {}, last offset {}, coordinator \
             epoch {}, open from {}) / log (epoch {}, last sequence {}, last offset {}, coordinator epoch {}, open \
             from {})",
            e.producer_id,
            e.producer_epoch,
            e.last_sequence,
            e.last_offset,
            e.coordinator_epoch,
            snap_open,
            log.producer_epoch,
            log.last_sequence,
            log.last_offset,
            log.coordinator_epoch,
            log_open
        )
    }
}

/// Each segment's `.txnindex` against the aborted transactions whose markers it holds. An
/// entry's LSO may also be the first offset of the next transaction another producer opened
/// (`alt`), when no other one was open at the marker: Kafka computes it after the whole append
/// the marker came in, and a follower appends a whole fetch at once.
fn check_txn_indexes(log: &Log, aborted: &[(i64, AbortedTxn, Option<i64>)], findings: &mut Vec<Finding>) -> Result<()> {
    // The entries by the segment holding their marker, in log order.
    let mut by_segment: BTreeMap<i64, Vec<(&AbortedTxn, Option<i64>)>> = BTreeMap::new();
    for (base, a, alt) in aborted {
        by_segment.entry(*base).or_default().push((a, *alt));
    }
    for seg in log.segments() {
        let path = log.dir().join(format!("{:020}{}", seg.base_offset, names::TXN_INDEX_SUFFIX));
        // Regular files only: a FIFO of that name would make a read wait for ever. What is not
        // one is in `Log::not_regular_files` (the caller reports it) and reads as absent.
        let bytes = match crate::regular_file::read_regular(&path) {
            Ok(b) => b.unwrap_or_default(),
            Err(crate::error::Error::NotRegular { .. }) => Vec::new(),
            Err(e) => return Err(e),
        };
        let expected = by_segment.remove(&seg.base_offset).unwrap_or_default();
        check_txn_index(&path, &bytes, &expected, findings);
    }
    Ok(())
}

/// One `.txnindex` (its `bytes`, read from `path`) against the entries its segment's ABORT
/// markers make (`expected`, each with its `alt` LSO): a wrong entry, a missing one, an extra
/// one and a trailing partial entry are findings.
fn check_txn_index(
    path: &std::path::Path,
    bytes: &[u8],
    expected: &[(&AbortedTxn, Option<i64>)],
    findings: &mut Vec<Finding>,
) {
    let (entries, tail) = txn_index::decode_entries(bytes);
    for (i, (want, alt)) in expected.iter().enumerate() {
        let position = (i * txn_index::ENTRY_BYTES) as u64;
        let after_append = |got: &AbortedTxn| {
            want.last_stable_offset == want.last_offset + 1
                && Some(got.last_stable_offset) == *alt
                && AbortedTxn { last_stable_offset: want.last_stable_offset, ..*got } == **want
        };
        match entries.get(i) {
            Some(got) if got == *want || after_append(got) => {}
            Some(got) => findings.push(Finding::new(
                path,
                position,
                Some(got.first_offset),
                format!(
                    "entry {i} is (producer {}, first {}, last {}, LSO {}) but the log's ABORT marker at offset {} \
                     makes (producer {}, first {}, last {}, LSO {})",
                    got.producer_id,
                    got.first_offset,
                    got.last_offset,
                    got.last_stable_offset,
                    want.last_offset,
                    want.producer_id,
                    want.first_offset,
                    want.last_offset,
                    want.last_stable_offset
                ),
            )),
            None => findings.push(Finding::new(
                path,
                position,
                Some(want.first_offset),
                format!(
                    "no entry for the transaction of producer {} (offsets {} to {}) the ABORT marker at offset {} \
                     ended: read_committed consumers would read its records",
                    want.producer_id, want.first_offset, want.last_offset, want.last_offset
                ),
            )),
        }
    }
    for (i, extra) in entries.iter().enumerate().skip(expected.len()) {
        findings.push(Finding::new(
            path,
            (i * txn_index::ENTRY_BYTES) as u64,
            Some(extra.first_offset),
            format!(
                "entry {i} (producer {}, offsets {} to {}) matches no ABORT marker in this segment: \
                 read_committed consumers would skip those records",
                extra.producer_id, extra.first_offset, extra.last_offset
            ),
        ));
    }
    if tail > 0 {
        findings.push(Finding::new(
            path,
            (entries.len() * txn_index::ENTRY_BYTES) as u64,
            None,
            format!("{tail} trailing bytes do not hold a whole {}-byte entry", txn_index::ENTRY_BYTES),
        ));
    }
}
#[cfg(test)]
mod tests {
    use super::*;
    use crate::format::batch::{encode_batch, BatchSpec};
    use crate::format::record::NewRecord;
    use std::path::Path;

    fn rec(v: &str, timestamp: i64) -> NewRecord {
        NewRecord { timestamp, key: None, value: Some(v.as_bytes().to_vec()), headers: vec![] }
    }

    /// Transactional data from `producer` (epoch 1) at `offset`, one record per value.
    fn data(producer: i64, offset: i64, sequence: i32, values: &[&str]) -> Vec<u8> {
        let spec = BatchSpec {
            producer_id: producer,
            producer_epoch: 1,
            base_sequence: sequence,
            is_transactional: true,
            ..BatchSpec::plain(offset, 0)
        };
        let records: Vec<NewRecord> = values.iter().map(|v| rec(v, 1000 + offset)).collect();
        encode_batch(&spec, &records)
    }

    fn marker(producer: i64, offset: i64, commit: bool) -> Vec<u8> {
        let m = crate::format::control::EndTxnBatch {
            producer_id: producer,
            producer_epoch: 1,
            base_offset: offset,
            leader_epoch: 0,
            commit,
            coordinator_epoch: 3,
            timestamp: 1000 + offset,
        };
        m.encode()
    }

    fn plain(offset: i64, v: &str) -> Vec<u8> {
        encode_batch(&BatchSpec::plain(offset, 0), &[rec(v, 1000 + offset)])
    }

    fn log_of(dir: &Path, batches: &[Vec<u8>]) -> Log {
        std::fs::write(dir.join("00000000000000000000.log"), batches.concat()).unwrap();
        Log::open(dir, crate::log::LogConfig::default(), 0).unwrap()
    }

    #[test]
    fn an_open_transaction_holds_the_lso_at_its_first_offset_below_the_high_watermark() {
        let dir = tempfile::tempdir().unwrap();
        let log = log_of(dir.path(), &[plain(0, "p"), data(7, 1, 0, &["a", "b"]), plain(3, "q")]);
        let t = read_transactions(&log, 0, None).unwrap();
        assert_eq!(t.open.len(), 1);
        let o = &t.open[0];
        assert_eq!((o.producer_id, o.first_offset, o.last_offset, o.batches, o.records), (7, 1, 2, 1, 2));
        assert_eq!(t.broker_open, t.open);
        assert_eq!(t.last_stable_offset(4), 1);
        assert_eq!(t.last_stable_offset(1), 1);
        assert_eq!(t.last_stable_offset(0), 0, "bounded by the HW");
        assert!(t.findings.is_empty(), "{:?}", t.findings);
        assert_eq!(t.producers.len(), 1);
        assert_eq!(t.producers[0].current_txn_first_offset, 1);
    }

    #[test]
    fn an_abort_is_indexed_with_the_first_offset_of_another_producers_open_transaction() {
        let dir = tempfile::tempdir().unwrap();
        let batches = [
            data(7, 0, 0, &["a", "b"]),
            data(8, 2, 0, &["c"]),
            marker(7, 3, true),
            marker(8, 4, false),
            data(9, 5, 0, &["d"]),
            data(8, 6, 1, &["e"]),
            marker(8, 7, false),
        ];
        let log = log_of(dir.path(), &batches);
        let t = read_transactions(&log, 0, None).unwrap();
        assert_eq!(t.committed, 1);
        let aborted: Vec<(i64, i64, i64, i64)> = t
            .aborted
            .iter()
            .map(|(_, a)| (a.producer_id, a.first_offset, a.last_offset, a.last_stable_offset))
            .collect();
        // The first abort: no other open transaction, LSO = marker + 1; the second: 9's at 5.
        assert_eq!(aborted, vec![(8, 2, 4, 5), (8, 6, 7, 5)]);
        assert_eq!(t.open.iter().map(|o| (o.producer_id, o.first_offset)).collect::<Vec<_>>(), vec![(9, 5)]);
        // No .txnindex: both entries are missing.
        assert_eq!(t.findings.len(), 2, "{:?}", t.findings);
        assert!(t.findings[0].what.contains("no entry for the transaction of producer 8 (offsets 2 to 4)"));
        // With Kafka's entries, nothing is wrong; an extra entry is.
        let index: Vec<u8> = t.aborted.iter().flat_map(|(_, a)| a.encode()).collect();
        let path = dir.path().join("00000000000000000000.txnindex");
        std::fs::write(&path, &index).unwrap();
        assert!(read_transactions(&log, 0, None).unwrap().findings.is_empty());
        let extra = AbortedTxn { producer_id: 9, first_offset: 5, last_offset: 5, last_stable_offset: 5, version: 0 };
        std::fs::write(&path, [index.clone(), extra.encode().to_vec()].concat()).unwrap();
        let f = read_transactions(&log, 0, None).unwrap().findings;
        assert_eq!(f.len(), 1);
        assert_eq!(f[0].position, 68);
        assert!(f[0].what.contains("matches no ABORT marker"), "{}", f[0].what);
    }

    #[test]
    fn a_snapshot_that_keeps_a_committed_transaction_open_holds_the_brokers_lso() {
        let dir = tempfile::tempdir().unwrap();
        let log = log_of(dir.path(), &[data(7, 0, 0, &["a", "b"]), marker(7, 2, true), plain(3, "q")]);
        // The state at offset 2, before the marker: producer 7 open from 0, written as at 3.
        let stale = ProducerEntry {
            producer_id: 7,
            producer_epoch: 1,
            last_sequence: 1,
            last_offset: 1,
            offset_delta: 1,
            timestamp: 1000,
            coordinator_epoch: -1,
            current_txn_first_offset: 0,
        };
        let path = dir.path().join("00000000000000000003.snapshot");
        std::fs::write(&path, producer_snapshot::encode(&[stale])).unwrap();
        let t = read_transactions(&log, 0, None).unwrap();
        assert!(t.open.is_empty());
        assert_eq!(t.broker_open.iter().map(|o| o.first_offset).collect::<Vec<_>>(), vec![0]);
        assert_eq!(t.last_stable_offset(4), 0);
        assert_eq!(t.findings.len(), 1, "{:?}", t.findings);
        assert!(t.findings[0].what.contains("the snapshot-only hang"), "{}", t.findings[0].what);
        assert_eq!(t.findings[0].position, producer_snapshot::HEADER_BYTES as u64);
        // The snapshot a broker would write agrees: no finding, the LSO follows the HW.
        let log_table = t.producers.clone();
        std::fs::write(&path, producer_snapshot::encode(&log_table)).unwrap();
        let t = read_transactions(&log, 0, None).unwrap();
        assert!(t.findings.is_empty(), "{:?}", t.findings);
        assert_eq!(t.last_stable_offset(4), 4);
    }

    #[test]
    fn a_non_transactional_write_inside_an_open_transaction_is_where_kafkas_rebuild_throws() {
        let dir = tempfile::tempdir().unwrap();
        let idem = encode_batch(
            &BatchSpec { producer_id: 7, producer_epoch: 1, base_sequence: 2, ..BatchSpec::plain(2, 0) },
            &[rec("x", 5)],
        );
        let log = log_of(dir.path(), &[data(7, 0, 0, &["a", "b"]), idem]);
        let t = read_transactions(&log, 0, None).unwrap();
        assert_eq!(t.findings.len(), 1);
        assert!(t.findings[0].what.contains("InvalidTxnStateException"), "{}", t.findings[0].what);
        assert_eq!(t.findings[0].offset, Some(2));
    }

    #[test]
    fn an_abort_indexed_after_its_whole_append_may_hold_a_later_transactions_first_offset() {
        // Producer 7 aborts with no other transaction open (LSO 2 batch by batch); producer 9
        // opens one at 3. A follower appending all of it in one fetch indexes LSO 3.
        let batches = [data(7, 0, 0, &["a"]), marker(7, 1, false), plain(2, "p"), data(9, 3, 0, &["b"])];
        for (lso, clean) in [(2, true), (3, true), (4, false), (1, false)] {
            let dir = tempfile::tempdir().unwrap();
            let entry =
                AbortedTxn { version: 0, producer_id: 7, first_offset: 0, last_offset: 1, last_stable_offset: lso };
            std::fs::write(dir.path().join("00000000000000000000.txnindex"), entry.encode()).unwrap();
            let t = read_transactions(&log_of(dir.path(), &batches), 0, None).unwrap();
            assert_eq!(t.findings.is_empty(), clean, "LSO {lso}: {:?}", t.findings);
        }
    }
}
