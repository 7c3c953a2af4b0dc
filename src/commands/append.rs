//! `klog append`: one producer request (acks=all) to a leader ([the model](crate::replication),
//! operation 2; Kafka `UnifiedLog.appendAsLeader`).

use crate::error::{Error, Result};
use crate::format::batch::{BatchEncoder, BatchIter, BatchSpec};
use crate::format::compression::Compression;
use crate::format::record::RecordRef;
use crate::log::recovery::RecoveryReport;
use crate::parallel::ProgressSink;
use crate::replica::{Replica, Role};
use crate::txn::producer_checks;
use std::path::Path;

/// Where the record values come from.
pub enum Values {
    Given(Vec<Vec<u8>>),
    Generated { count: u64, value_size: usize },
}

/// Whose batches these are: an idempotent or transactional producer (`None`: plain batches,
/// producer id -1, as a producer without idempotence writes).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Producer {
    pub id: i64,
    pub epoch: i16,
    /// The first batch's base sequence; `None`: the one the producer's state expects next.
    pub sequence: Option<i32>,
    pub transactional: bool,
    /// Instead of records, the transaction marker a coordinator writes (`WriteTxnMarkers`):
    /// COMMIT (true) or ABORT, with the coordinator's epoch.
    pub end_txn: Option<(bool, i32)>,
}

pub struct AppendRequest<'a> {
    pub dir: &'a Path,
    pub partition: Option<&'a str>,
    pub values: Values,
    pub key: Option<Vec<u8>>,
    pub headers: Vec<(Vec<u8>, Option<Vec<u8>>)>,
    pub records_per_batch: Option<u64>,
    pub timestamp: i64,
    pub flush: bool,
    pub compression: Compression,
    pub producer: Option<Producer>,
}

impl AppendReport {
    /// The report of an append that wrote nothing (yet): `replica` as it is.
    fn nothing_written(replica: &Replica, startup: Option<RecoveryReport>) -> AppendReport {
        AppendReport {
            leader_epoch: replica.will_run_as().leader_epoch,
            batches: Vec::new(),
            records: 0,
            bytes: 0,
            log_end_offset: replica.log_end_offset(),
            high_watermark: replica.high_watermark(),
            high_watermark_before: replica.high_watermark(),
            epoch_entry: None,
            flushed: false,
            segments_rolled: 0,
            startup,
            producer: None,
            marker: None,
            duplicate_of: None,
        }
    }

    /// The leader's append as it ran (`demo --explain`, the capture's code panel).
    pub fn explanation(&self) -> crate::replication::explain::Explanation {
        let first = self.batches.first().map_or(self.log_end_offset, |b| b.0);
        crate::replication::explain::explain_append(&crate::replication::explain::AppendFacts {
            leader_epoch: self.leader_epoch,
            first_offset: first,
            log_end_offset: self.log_end_offset,
            epoch_entry: self.epoch_entry,
            high_watermark_before: self.high_watermark_before,
            high_watermark: self.high_watermark,
        })
    }
}

#[derive(Debug)]
pub struct AppendReport {
    pub leader_epoch: i32,
    /// (base offset, last offset) of each batch written.
    pub batches: Vec<(i64, i64)>,
    pub records: u64,
    pub bytes: u64,
    pub log_end_offset: i64,
    pub high_watermark: i64,
    /// The HW before the append.
    pub high_watermark_before: i64,
    /// The epoch entry the first batch of a new epoch assigned, if any.
    pub epoch_entry: Option<(i32, i64)>,
    pub flushed: bool,
    pub segments_rolled: usize,
    pub startup: Option<RecoveryReport>,
    /// The producer the batches carry, with the first batch's base sequence.
    pub producer: Option<(Producer, i32)>,
    /// A marker appended: COMMIT (true) or ABORT, and the transaction it ended with the
    /// aborted-index entry written for it (`None` when it ended a transaction without data).
    pub marker: Option<(bool, Option<crate::log::producer_state::CompletedTxn>, Option<i64>)>,
    /// A retry of the producer's batch at these offsets (first, last): nothing was written.
    pub duplicate_of: Option<(i64, i64)>,
}

/// Parse `K=V` (or `K` for a null value).
pub fn parse_header(text: &str) -> (Vec<u8>, Option<Vec<u8>>) {
    match text.split_once('=') {
        Some((k, v)) => (k.as_bytes().to_vec(), Some(v.as_bytes().to_vec())),
        None => (text.as_bytes().to_vec(), None),
    }
}

/// A batch header (61 bytes) and one record's framing at most (varints of length, timestamp
/// and offset deltas, key and value lengths, header count).
const RECORD_OVERHEAD_BYTES: u64 = 61 + 30;

/// Largest batch klog builds for generated records (Kafka's default max.request.size).
const GENERATED_BATCH_BYTES: usize = 1 << 20;

pub fn run(req: AppendRequest<'_>, progress: &mut dyn ProgressSink) -> Result<AppendReport> {
    let total = req.values.count();
    let marker = req.producer.and_then(|p| p.end_txn);
    if total == 0 && marker.is_none() {
        return Err(Error::Usage("nothing to append: give VALUEs, --stdin or --count".into()));
    }
    if total > 0 && marker.is_some() {
        return Err(Error::Usage("--end-txn appends a marker, not records: give no VALUE".into()));
    }
    let mut replica = Replica::open_for_write(req.dir, req.partition)?;
    let state = replica.will_run_as();
    check_leader_appends(&replica, &state, req.dir)?;
    check_record_fits(&req, &replica)?;
    let startup = replica.start()?;
    let per_batch = records_per_batch(&req);
    // The producer's state at the log end: its next sequence, and what Kafka's leader refuses
    // or takes for a retry (see `crate::txn::producer_checks`), before anything is written.
    let producer = match req.producer {
        None => None,
        Some(p) => match check_producer(&replica, p, marker, per_batch.min(total))? {
            ProducerCheck::Append { sequence, state } => Some((p, sequence, *state)),
            ProducerCheck::Duplicate { first_sequence, offsets } => {
                return Ok(duplicate_report(&replica, p, first_sequence, offsets, startup))
            }
        },
    };
    if let (Some((commit, coordinator_epoch)), Some((p, _, state))) = (marker, producer.as_ref()) {
        return append_marker(replica, *p, commit, coordinator_epoch, state.clone(), req.timestamp, startup);
    }
    let segments_before = replica.log().segments().len();
    let latest_entry_before = replica.log().epoch_cache().latest();
    let mut report = AppendReport {
        leader_epoch: state.leader_epoch,
        log_end_offset: 0,
        high_watermark: 0,
        flushed: req.flush,
        producer: producer.as_ref().map(|(p, seq, _)| (*p, *seq)),
        ..AppendReport::nothing_written(&replica, startup)
    };
    let plan = BatchPlan {
        first_offset: replica.log_end_offset(),
        total,
        per_batch,
        leader_epoch: state.leader_epoch,
        compression: req.compression,
        producer: producer.as_ref().map(|(p, seq, _)| (p.id, p.epoch, *seq, p.transactional)),
        timestamp: req.timestamp,
        key: req.key.as_deref(),
        headers: req.headers.iter().map(|(k, v)| (k.as_slice(), v.as_deref())).collect(),
    };
    write_batches(&mut replica, &plan, &req.values, &mut report, progress)?;
    replica.finish_writes()?;
    if req.flush {
        replica.flush()?;
    }
    let leo = replica.log_end_offset();
    // A lone leader's HW follows its LEO; with followers it moves only when they fetch.
    let hw = crate::replication::fetch::leader_high_watermark(&replica);
    replica.set_high_watermark(hw)?;
    report.log_end_offset = leo;
    report.high_watermark = replica.high_watermark();
    report.segments_rolled = replica.log().segments().len().saturating_sub(segments_before);
    let latest_entry = replica.log().epoch_cache().latest();
    report.epoch_entry =
        latest_entry.filter(|e| Some(*e) != latest_entry_before).map(|e| (e.leader_epoch, e.start_offset));
    Ok(report)
}

impl Values {
    /// How many records.
    fn count(&self) -> u64 {
        match self {
            Values::Given(v) => v.len() as u64,
            Values::Generated { count, .. } => *count,
        }
    }
}

/// Records to a batch: `--records-per-batch`, else all given values in one batch, or as many
/// generated ones as fit a batch of [`GENERATED_BATCH_BYTES`].
fn records_per_batch(req: &AppendRequest<'_>) -> u64 {
    req.records_per_batch.unwrap_or(match &req.values {
        Values::Given(_) => req.values.count(),
        Values::Generated { value_size, .. } => {
            (GENERATED_BATCH_BYTES / (value_size + 24 + req.key.as_ref().map_or(0, |k| k.len()))).max(1) as u64
        }
    })
}

/// Only a running leader appends, and with acks=all only while the ISR, the leader included,
/// holds min.insync.replicas (`Partition.appendRecordsToLeader`, NOT_ENOUGH_REPLICAS).
fn check_leader_appends(replica: &Replica, state: &crate::replica::VolatileState, dir: &Path) -> Result<()> {
    if state.role != Role::Leader {
        let why = if replica.is_running() {
            "not the leader: only a leader appends"
        } else {
            "not running (it crashed or was stopped), so it restarts as a follower: only a leader appends"
        };
        let elect = format!("make it one with `klog elect {}`", dir.display());
        return Err(Error::state(&replica.paths().log_dir, format!("{why} ({elect})")));
    }
    let min_isr = replica.topic_config().map_or(1, |c| c.min_insync_replicas as usize);
    if state.isr.len() + 1 < min_isr {
        return Err(Error::state(
            &replica.paths().log_dir,
            format!(
                "NOT_ENOUGH_REPLICAS: the ISR holds {} replica(s), the leader included, below min.insync.replicas \
                 {min_isr}; an acks=all append is refused (elect it again with a larger --isr)",
                state.isr.len() + 1
            ),
        ));
    }
    Ok(())
}

/// A record must fit a batch that fits a segment (Kafka refuses it with
/// RecordTooLargeException); checked before anything is allocated or written.
fn check_record_fits(req: &AppendRequest<'_>, replica: &Replica) -> Result<()> {
    let largest_value = match &req.values {
        Values::Given(v) => v.iter().map(Vec::len).max().unwrap_or(0),
        Values::Generated { value_size, .. } => *value_size,
    };
    let header_bytes: usize = req.headers.iter().map(|(k, v)| k.len() + v.as_ref().map_or(0, Vec::len) + 10).sum();
    let record_bytes = (largest_value as u64)
        .saturating_add(req.key.as_ref().map_or(0, |k| k.len() as u64))
        .saturating_add(header_bytes as u64)
        .saturating_add(RECORD_OVERHEAD_BYTES);
    let segment_bytes = replica.log().config().segment_bytes;
    if record_bytes > segment_bytes {
        return Err(Error::state(
            &replica.paths().partition_dir,
            format!(
                "a record of about {record_bytes} bytes (value, key, headers and framing) does not fit in a segment \
                 of segment.bytes {segment_bytes} (Kafka: RecordTooLargeException): append a smaller record, or \
                 create the partition with a larger --segment-bytes"
            ),
        ));
    }
    Ok(())
}

/// What the producer's state at the log end says of producer `p`'s append.
enum ProducerCheck {
    /// Append, the first batch at this base sequence, over this state.
    Append { sequence: i32, state: Box<crate::log::producer_state::ProducerReplay> },
    /// A retry of a batch the log holds at these offsets: nothing to write.
    Duplicate { first_sequence: i32, offsets: (i64, i64) },
}

/// Check `p`'s marker, or its first batch of `first_count` records (the later ones follow it in
/// sequence), as Kafka's leader does (`crate::txn::producer_checks`).
fn check_producer(
    replica: &Replica,
    p: Producer,
    marker: Option<(bool, i32)>,
    first_count: u64,
) -> Result<ProducerCheck> {
    let state = replica.log().producer_state_at(replica.log_end_offset())?;
    let known = state.producers().into_iter().find(|e| e.producer_id == p.id);
    let next = known.filter(|e| e.producer_epoch == p.epoch).map_or(0, |e| e.last_sequence.wrapping_add(1));
    let sequence = p.sequence.unwrap_or(next);
    let refused = |r: producer_checks::Refusal| Error::state(&replica.paths().log_dir, r.to_string());
    match marker {
        Some((_, coordinator_epoch)) => {
            producer_checks::check_marker(&state, p.id, p.epoch, coordinator_epoch).map_err(refused)?;
        }
        None => {
            let first_count = i32::try_from(first_count).unwrap_or(i32::MAX);
            let first_sequence = sequence & i32::MAX;
            let verdict =
                producer_checks::check_data(&state, p.id, p.epoch, first_sequence, first_count, p.transactional)
                    .map_err(refused)?;
            if let producer_checks::DataVerdict::Duplicate(first, last) = verdict {
                return Ok(ProducerCheck::Duplicate { first_sequence, offsets: (first, last) });
            }
        }
    }
    Ok(ProducerCheck::Append { sequence, state: Box::new(state) })
}

/// The batches an append writes: `total` records from `first_offset`, `per_batch` to a batch.
struct BatchPlan<'a> {
    first_offset: i64,
    total: u64,
    per_batch: u64,
    leader_epoch: i32,
    compression: Compression,
    /// Producer id, epoch, first base sequence, transactional.
    producer: Option<(i64, i16, i32, bool)>,
    timestamp: i64,
    key: Option<&'a [u8]>,
    headers: Vec<(&'a [u8], Option<&'a [u8]>)>,
}

impl BatchPlan<'_> {
    /// The header of the batch at `base`.
    fn spec(&self, base: i64) -> BatchSpec {
        let (compression, epoch) = (self.compression, self.leader_epoch);
        match self.producer {
            None => BatchSpec { compression, ..BatchSpec::plain(base, epoch) },
            Some((id, producer_epoch, sequence, transactional)) => BatchSpec {
                compression,
                producer_id: id,
                producer_epoch,
                // Sequences wrap at Int32.MAX, as Kafka's do.
                base_sequence: sequence.wrapping_add((base - self.first_offset) as i32) & i32::MAX,
                is_transactional: transactional,
                ..BatchSpec::plain(base, epoch)
            },
        }
    }
}

/// Write the planned batches to `replica`'s log, into `report`. One thread encodes batches while
/// this one writes them: the two overlap, so a large `--count` costs about max(encode, write)
/// instead of their sum.
fn write_batches(
    replica: &mut Replica,
    plan: &BatchPlan<'_>,
    values: &Values,
    report: &mut AppendReport,
    progress: &mut dyn ProgressSink,
) -> Result<()> {
    let (full_tx, full_rx) = std::sync::mpsc::sync_channel::<(i64, Vec<u8>)>(2);
    let (empty_tx, empty_rx) = std::sync::mpsc::channel::<Vec<u8>>();
    std::thread::scope(|scope| {
        scope.spawn(move || encode_batches(plan, values, &full_tx, &empty_rx));
        for (base, bytes) in full_rx {
            let batch = BatchIter::new(&bytes).next().expect("an encoded batch frames");
            replica.log_mut().append_batch(batch)?;
            report.batches.push((base, batch.last_offset()));
            report.bytes += bytes.len() as u64;
            report.records += (batch.last_offset() - base + 1) as u64;
            progress.update(report.records, plan.total);
            let _ = empty_tx.send(bytes);
        }
        Ok(())
    })
}

/// Encode the planned batches, each sent to the writer on `full`, reusing the buffers it sends
/// back on `empty`; stops when the writer stops.
fn encode_batches(
    plan: &BatchPlan<'_>,
    values: &Values,
    full: &std::sync::mpsc::SyncSender<(i64, Vec<u8>)>,
    empty: &std::sync::mpsc::Receiver<Vec<u8>>,
) {
    let (total, first_offset, timestamp, key) = (plan.total, plan.first_offset, plan.timestamp, plan.key);
    let mut encoder = BatchEncoder::new(plan.spec(first_offset), GENERATED_BATCH_BYTES + 4096);
    let template = match values {
        Values::Generated { value_size, .. } => generated_template(*value_size),
        Values::Given(_) => Vec::new(),
    };
    let mut produced = 0u64;
    let mut counter = DecimalTag::new(first_offset);
    while produced < total {
        let n = plan.per_batch.min(total - produced);
        let base = first_offset + produced as i64;
        encoder.reset(plan.spec(base));
        for i in 0..n {
            match values {
                Values::Given(v) => encoder.push(&RecordRef {
                    timestamp,
                    key,
                    value: Some(&v[(produced + i) as usize]),
                    headers: &plan.headers,
                }),
                Values::Generated { .. } => {
                    if i == 0 {
                        counter = DecimalTag::new(base);
                    } else {
                        counter.increment();
                    }
                    encoder.push_patched(timestamp, key, &plan.headers, &template, counter.tag());
                }
            }
        }
        let bytes = encoder.take(empty.try_recv().unwrap_or_default());
        if full.send((base, bytes)).is_err() {
            return; // the writer stopped on an error
        }
        produced += n;
    }
}

/// The answer to a retry of a batch the log holds: nothing written, the original batch's
/// offsets (Kafka's leader answers them without an error: `UnifiedLog.java:1261-1269@4.4.0`).
fn duplicate_report(
    replica: &Replica,
    p: Producer,
    first_sequence: i32,
    (first, last): (i64, i64),
    startup: Option<RecoveryReport>,
) -> AppendReport {
    AppendReport {
        producer: Some((p, first_sequence)),
        duplicate_of: Some((first, last)),
        ..AppendReport::nothing_written(replica, startup)
    }
}

/// Append one COMMIT or ABORT marker for `p`, as a coordinator's `WriteTxnMarkers` does, and
/// for an ABORT that ended a transaction with data the aborted-index entry Kafka writes in the
/// marker's segment (`LogSegment.updateTxnIndex`, with the LSO of that moment).
fn append_marker(
    mut replica: Replica,
    p: Producer,
    commit: bool,
    coordinator_epoch: i32,
    mut state: crate::log::producer_state::ProducerReplay,
    timestamp: i64,
    startup: Option<RecoveryReport>,
) -> Result<AppendReport> {
    let leader_epoch = replica.will_run_as().leader_epoch;
    let base = replica.log_end_offset();
    let high_watermark_before = replica.high_watermark();
    let latest_entry_before = replica.log().epoch_cache().latest();
    let bytes = crate::format::control::EndTxnBatch {
        producer_id: p.id,
        producer_epoch: p.epoch,
        base_offset: base,
        leader_epoch,
        commit,
        coordinator_epoch,
        timestamp,
    }
    .encode();
    let batch = BatchIter::new(&bytes).next().expect("an encoded batch frames");
    let ended = state.apply(&batch).map_err(|t| {
        Error::state(&replica.paths().log_dir, format!("Kafka's producer state refuses this marker: {}", t.exception))
    })?;
    let segments_before = replica.log().segments().len();
    replica.log_mut().append_batch(batch)?;
    replica.finish_writes()?;
    let mut lso = None;
    if let Some((c, last_stable)) = ended.filter(|(c, _)| c.is_aborted) {
        replica.log().write_aborted_txn(&c, last_stable)?;
        lso = Some(last_stable);
    }
    let hw = crate::replication::fetch::leader_high_watermark(&replica);
    replica.set_high_watermark(hw)?;
    let latest_entry = replica.log().epoch_cache().latest();
    Ok(AppendReport {
        leader_epoch,
        batches: vec![(base, base)],
        records: 1,
        bytes: bytes.len() as u64,
        log_end_offset: replica.log_end_offset(),
        high_watermark: replica.high_watermark(),
        high_watermark_before,
        epoch_entry: latest_entry.filter(|e| Some(*e) != latest_entry_before).map(|e| (e.leader_epoch, e.start_offset)),
        flushed: false,
        segments_rolled: replica.log().segments().len().saturating_sub(segments_before),
        startup,
        producer: Some((p, -1)),
        marker: Some((commit, ended.map(|(c, _)| c), lso)),
        duplicate_of: None,
    })
}

/// The filler of generated values.
const FILLER: &[u8] = b"abcdefghijklmnopqrstuvwxyz";

/// The bytes every generated value of `size` starts from: the alphabet, repeated.
pub fn generated_template(size: usize) -> Vec<u8> {
    FILLER.iter().copied().cycle().take(size).collect()
}

/// `v<offset>-` kept as ASCII and incremented in place: one record's tag costs a few
/// instructions instead of a decimal conversion.
struct DecimalTag {
    /// `v`, then digits right-aligned, then `-`: the tag is `buf[start..]` with `v` moved in.
    buf: [u8; 24],
    start: usize,
}

impl DecimalTag {
    fn new(offset: i64) -> Self {
        let mut tmp = [0u8; 24];
        let len = generated_prefix(offset, &mut tmp);
        let mut buf = [0u8; 24];
        let start = 24 - len;
        buf[start..].copy_from_slice(&tmp[..len]);
        DecimalTag { buf, start }
    }

    fn tag(&self) -> &[u8] {
        &self.buf[self.start..]
    }

    fn increment(&mut self) {
        // digits live in buf[start + 1 .. 23]
        let mut i = 22;
        loop {
            if i == self.start {
                // all nines: grow by one digit
                self.start -= 1;
                self.buf[self.start] = b'v';
                self.buf[self.start + 1] = b'1';
                return;
            }
            if self.buf[i] == b'9' {
                self.buf[i] = b'0';
                i -= 1;
            } else {
                self.buf[i] += 1;
                return;
            }
        }
    }
}

/// `v<offset>-` into `out`; returns its length.
fn generated_prefix(offset: i64, out: &mut [u8; 24]) -> usize {
    let mut buf = [0u8; 20];
    let digits = crate::util::decimal_digits(offset.unsigned_abs(), &mut buf);
    out[0] = b'v';
    out[1..1 + digits.len()].copy_from_slice(digits);
    out[1 + digits.len()] = b'-';
    digits.len() + 2
}

/// The value `append --count N --value-size B` writes at `offset`: `v<offset>-` followed by the
/// alphabet (from the same position), cut to `size` bytes. Printable and different per offset.
pub fn generated_value(offset: i64, size: usize) -> Vec<u8> {
    let mut value = generated_template(size);
    let mut tag = [0u8; 24];
    let n = generated_prefix(offset, &mut tag).min(size);
    value[..n].copy_from_slice(&tag[..n]);
    value
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decimal_tag_counts_like_the_offsets() {
        for start in [0i64, 7, 9, 98, 999, 123_456_789] {
            let mut t = DecimalTag::new(start);
            for o in start..start + 1200 {
                assert_eq!(t.tag(), format!("v{o}-").as_bytes());
                t.increment();
            }
        }
        assert_eq!(generated_value(12, 10), b"v12-efghij");
        assert_eq!(generated_value(123456, 5), b"v1234");
    }
}
