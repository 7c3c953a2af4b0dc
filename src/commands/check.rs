//! `klog check`: verify a replica as Kafka's loader and `kafka-dump-log` would, streaming over
//! the segments with constant memory (indexes are merge-joined with the batch scan). Every
//! batch's records are decoded, so corrupt compressed streams, truncated legacy messages and
//! unknown magic values are findings with their file and byte position. Findings are data; the
//! command fails (exit 2) only when it cannot read. Never writes.

use super::dump::{summarize, ReplicaSummary};
use crate::commands::ProgressSink;
use crate::error::Result;
use crate::format::batch::{BatchDefect, BatchIter, RawBatch, ScanStop};
use crate::log::checkpoint;
use crate::log::index;
use crate::log::names;
use crate::log::segment::Segment;
use crate::log::verify;
use crate::replica::Replica;
use std::path::{Path, PathBuf};

/// Something wrong, with the file and byte position where it is (the verifier's findings).
pub use crate::log::verify::Finding;

#[derive(Debug)]
pub struct CheckReport {
    pub summary: ReplicaSummary,
    pub findings: Vec<Finding>,
    /// Facts worth knowing that are not corruption (unclean shutdown, empty epoch cache...).
    pub notes: Vec<String>,
    pub segment_count: usize,
    pub batch_count: u64,
    pub record_count: u64,
    pub bytes_checked: u64,
}

impl CheckReport {
    pub fn is_clean(&self) -> bool {
        self.findings.is_empty()
    }
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
    let known_magic = (0..=2).contains(&batch.magic());
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

struct Checker {
    findings: Vec<Finding>,
}

impl Checker {
    fn add(&mut self, path: &Path, position: u64, offset: Option<i64>, what: String) {
        self.findings.push(Finding::new(path, position, offset, what));
    }

    /// A finding on a line of a text file (a checkpoint), at the line's byte position.
    fn add_line(&mut self, path: &Path, line: Option<(usize, u64)>, offset: Option<i64>, what: String) {
        let (line, position) = line.map_or((None, 0), |(l, p)| (Some(l), p));
        self.findings.push(Finding::new(path, position, offset, what).on_line(line));
    }
}

pub fn run(dir: &Path, partition: Option<&str>, progress: &mut dyn ProgressSink) -> Result<CheckReport> {
    check_replica(Replica::open(dir, partition)?, progress)
}

/// Check a replica opened read-only.
pub fn check_replica(replica: Replica, progress: &mut dyn ProgressSink) -> Result<CheckReport> {
    let total_bytes: u64 = replica.log().segments().iter().filter_map(|s| s.log_size().ok()).sum();
    let mut bytes_before_segment;
    let mut c = Checker { findings: Vec::new() };
    // Files that could not be read: shown as findings, the rest of the replica still checked.
    for p in replica.problems() {
        c.findings.push(Finding::new(&p.path, p.position, None, p.what.clone()).on_line(p.line));
    }
    let mut notes = Vec::new();
    let mut report_counts = (0u64, 0u64, 0u64);
    let cache = replica.log().epoch_cache();
    let epoch_path = replica.paths().partition_dir.join(names::LEADER_EPOCH_CHECKPOINT);
    // The checkpoint as written must already be strictly increasing (it is replayed on load).
    // One that is not a regular file is already a finding (from the load), with no entries.
    let epoch_regular = !replica.log().not_regular_files().iter().any(|n| n.path == epoch_path);
    let (raw, epoch_lines): (Vec<(i32, i64)>, Vec<checkpoint::LinePlace>) = if epoch_regular {
        checkpoint::read_epoch_checkpoint_lines(&epoch_path)?.into_iter().unzip()
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
    let mut previous_last: Option<i64> = None;
    // A run of batches whose stamp disagrees with the cache: (stamp, cache epoch, first, last, path, position).
    let mut mismatch: Option<(i32, Option<i32>, i64, i64, PathBuf, u64)> = None;
    let mut stamped_epochs = std::collections::BTreeSet::new();
    let segments = replica.log().segments();
    // Whether the topic's cleanup.policy is known to be `delete`: klog's state holds the
    // config of a topic klog created (Kafka keeps topic configs off the log dir).
    let known_not_compacted = replica.topic_config().is_some();
    let mut previous_segment_end: Option<i64> = None;
    for (si, seg) in segments.iter().enumerate() {
        let path = seg.log_path();
        let bytes = seg.read_log()?;
        bytes_before_segment = report_counts.2;
        report_counts.2 += bytes.len() as u64;
        if let Some(end) = previous_segment_end.filter(|e| seg.base_offset > *e) {
            let what = format!(
                "segment starts at offset {} but the previous segment ends at {end}: offsets {end}..={} are missing",
                seg.base_offset,
                seg.base_offset - 1
            );
            // The log cleaner leaves such holes in a compacted topic and Kafka never flags
            // them; a topic known not to be compacted (one klog made: klog never compacts)
            // gets one only from a split of an overflowed segment or a recovery that died.
            if known_not_compacted {
                c.add(&path, 0, Some(seg.base_offset), what);
            } else {
                notes.push(format!("{}: {what} (compaction leaves such gaps)", path.display()));
            }
        }
        let mut segment_end = seg.base_offset;
        let indexes = SegmentIndexes::read(seg, &mut c)?;
        let mut join = verify::IndexJoin::new(&bytes, &indexes.offsets, &indexes.times);
        let mut iter = BatchIter::new(&bytes);
        let mut first = true;
        let mut released = 0;
        // The batches in chunks whose CRCs and records are judged on both cores, then walked
        // in order for what depends on the batches before.
        let work = |&(start, end): &(usize, usize), verdicts: &mut Vec<Verdict>| -> Result<()> {
            verdicts.clear();
            verdicts.extend(BatchIter::starting_at(&bytes[..end], start).map(|b| judge(&b)));
            Ok(())
        };
        crate::work_share::in_order(iter.chunks(JUDGE_CHUNK_BYTES), &work, |&(start, end), verdicts| {
            for (batch, verdict) in BatchIter::starting_at(&bytes[..end], start).zip(verdicts.drain(..)) {
                bytes.release_before(batch.position as usize, &mut released);
                report_counts.0 += 1;
                progress.update(bytes_before_segment + batch.position, total_bytes);
                let (base, last) = (verdict.first_offset, batch.last_offset());
                let magic = batch.magic();
                if !verdict.known_magic {
                    c.add(
                        &path,
                        batch.position,
                        Some(base),
                        format!("unknown magic value {magic} (expected 0, 1 or 2): the batch cannot be read"),
                    );
                } else if let Some(d) = verdict.defect {
                    c.add(&path, batch.position, Some(base), format!("invalid batch: {}", d.what));
                }
                for rule in verify::batch_rules(seg.base_offset, base, last, previous_last) {
                    // A batch below the segment's base after the first one also goes backwards:
                    // say it once.
                    if matches!(rule, verify::BatchRule::BelowSegmentBase { .. }) && !first {
                        continue;
                    }
                    c.add(&path, batch.position, Some(base), rule.describe(seg.base_offset));
                }
                first = false;
                previous_last = Some(last.max(previous_last.unwrap_or(i64::MIN)));
                if si + 1 < segments.len() && last >= segments[si + 1].base_offset {
                    c.add(
                        &path,
                        batch.position,
                        Some(base),
                        format!(
                            "batch ends at offset {last}, inside the next segment (base {})",
                            segments[si + 1].base_offset
                        ),
                    );
                }
                match verdict.records {
                    Records::NotRead => {}
                    Records::Decoded { count, out_of_order } => {
                        report_counts.1 += count;
                        if let Some(offset) = out_of_order {
                            c.add(
                                &path,
                                batch.position,
                                Some(offset),
                                format!("record offset {offset} is out of order or outside its batch {base}..={last}"),
                            );
                        }
                    }
                    Records::Undecodable(e) => {
                        c.add(&path, batch.position, Some(base), format!("records do not decode: {e}"))
                    }
                }
                let stamp = batch.partition_leader_epoch();
                if batch.magic() >= 2 && stamp >= 0 && !cache.is_empty() {
                    stamped_epochs.insert(stamp);
                    let cached = cache.epoch_for_offset(base);
                    if cached != Some(stamp) {
                        match &mut mismatch {
                            Some(m) if m.0 == stamp && m.1 == cached => m.3 = last,
                            _ => {
                                flush_mismatch(&mut c, mismatch.take());
                                mismatch = Some((stamp, cached, base, last, path.clone(), batch.position));
                            }
                        }
                    } else {
                        flush_mismatch(&mut c, mismatch.take());
                    }
                }
                join.on_batch(&batch);
                segment_end = segment_end.max(batch.next_offset());
            }
            Ok(())
        })?;
        previous_segment_end = Some(segment_end);
        match iter.stop() {
            Some(ScanStop::Partial { position, len }) => {
                c.add(&path, *position, None, format!("{len} trailing bytes do not hold a whole batch (torn write)"))
            }
            Some(ScanStop::BadSize { position, size }) => {
                c.add(&path, *position, None, format!("batch size field is {size}, expected at least 14"))
            }
            _ => {}
        }
        let (offset_checks, time_checks) = join.finish();
        c.findings.extend(verify::index_entry_findings(
            &indexes.index_path,
            &indexes.time_path,
            &indexes.offsets,
            &offset_checks,
            &indexes.times,
            &time_checks,
        ));
    }
    flush_mismatch(&mut c, mismatch.take());
    let leo = replica.log_end_offset();
    // Producer snapshots past the log end describe state that no longer exists; Kafka's
    // loader deletes them (`LogLoader.load`, `ProducerStateManager.truncateAndReload`).
    for (path, offset) in snapshot_files(&replica.paths().partition_dir)? {
        if offset > leo {
            c.add(
                &path,
                0,
                Some(offset),
                format!("producer snapshot at offset {offset} is above the log end offset {leo}"),
            );
        }
    }
    if cache.is_empty() && report_counts.0 > 0 {
        notes.push("the epoch cache is empty: Kafka rebuilds it only for segments it recovers".into());
    }
    for e in cache.entries() {
        if e.start_offset > leo {
            notes.push(format!(
                "epoch cache entry ({} {}) starts past the log end {leo}; Kafka drops it on load",
                e.leader_epoch, e.start_offset
            ));
        } else if e.start_offset < leo && !stamped_epochs.contains(&e.leader_epoch) && !stamped_epochs.is_empty() {
            notes.push(format!(
                "epoch {} (from offset {}) has no batch stamped with it (compacted away or never written)",
                e.leader_epoch, e.start_offset
            ));
        }
    }
    let hw_path = replica.paths().log_dir_file(names::REPLICATION_OFFSET_CHECKPOINT);
    // The LEO counts valid batches only. When bytes past it are damaged (reported above),
    // checkpoints above it are a consequence of that damage, not data gone missing.
    let tail_damaged = !replica.log().tail_is_clean();
    if tail_damaged && (replica.high_watermark() > leo || replica.recovery_point() > leo) {
        notes.push(format!(
            "the high watermark ({}) or recovery point ({}) is above the log end offset {leo} of the valid \
             batches: the bytes past it are damaged",
            replica.high_watermark(),
            replica.recovery_point()
        ));
    }
    if replica.high_watermark() > leo && !tail_damaged {
        c.add_line(
            &hw_path,
            replica.high_watermark_line(),
            Some(replica.high_watermark()),
            format!("high watermark {} is above the log end offset {leo}", replica.high_watermark()),
        );
    }
    let rp_path = replica.paths().log_dir_file(names::RECOVERY_POINT_OFFSET_CHECKPOINT);
    // Offsets are never negative; a broker writes no such checkpoint (its loader would clamp
    // the value to the log start offset, hiding whatever wrote it).
    for (path, what, value, position) in [
        (&hw_path, "high watermark", replica.high_watermark(), replica.high_watermark_line()),
        (&rp_path, "recovery point", replica.recovery_point(), replica.recovery_point_line()),
    ] {
        if value < 0 {
            c.add_line(path, position, None, format!("{what} {value} is negative: no offset is"));
        }
    }
    if replica.recovery_point() > leo && !tail_damaged {
        c.add_line(
            &rp_path,
            replica.recovery_point_line(),
            Some(replica.recovery_point()),
            format!(
                "recovery point {} is above the log end offset {leo}: flushed data is missing",
                replica.recovery_point()
            ),
        );
    }
    if !replica.clean_shutdown() && !replica.is_running() {
        notes.push(
            "not shut down cleanly: a broker (or any mutating klog command) would run local recovery first".into(),
        );
    }
    Ok(CheckReport {
        summary: summarize(&replica),
        findings: c.findings,
        notes,
        segment_count: segments.len(),
        batch_count: report_counts.0,
        record_count: report_counts.1,
        bytes_checked: report_counts.2,
    })
}

/// The `<offset>.snapshot` files of a partition dir.
fn snapshot_files(dir: &Path) -> Result<Vec<(PathBuf, i64)>> {
    use crate::error::IoContext;
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

fn flush_mismatch(c: &mut Checker, m: Option<(i32, Option<i32>, i64, i64, PathBuf, u64)>) {
    if let Some((stamp, cached, first, last, path, position)) = m {
        let cache_says = cached.map_or("no epoch (before the first entry)".to_string(), |e| format!("epoch {e}"));
        c.add(
            &path,
            position,
            Some(first),
            format!("batches {first}..={last} are stamped with epoch {stamp} but the epoch cache says {cache_says}"),
        );
    }
}

/// The index entries of one segment, read by the verifier's one reader; structure findings
/// (partial entries, entries out of order) are added as they are read.
struct SegmentIndexes {
    index_path: PathBuf,
    time_path: PathBuf,
    offsets: Vec<index::OffsetPosition>,
    times: Vec<index::TimestampOffset>,
}

impl SegmentIndexes {
    fn read(seg: &Segment, c: &mut Checker) -> Result<SegmentIndexes> {
        let index_path = seg.index_path();
        let time_path = seg.time_index_path();
        let mut offsets = Vec::new();
        if let Some(bytes) = seg.read_index()? {
            let read = verify::read_offset_index(&bytes, seg.base_offset);
            c.findings.extend(verify::index_structure_findings(
                &index_path,
                &read,
                index::OFFSET_ENTRY_BYTES,
                verify::offset_disorder,
                |e| e.offset,
            ));
            offsets = read.entries;
        }
        let mut times = Vec::new();
        if let Some(bytes) = seg.read_time_index()? {
            let read = verify::read_time_index(&bytes, seg.base_offset);
            c.findings.extend(verify::index_structure_findings(
                &time_path,
                &read,
                index::TIME_ENTRY_BYTES,
                verify::time_disorder,
                |e| e.offset,
            ));
            times = read.entries;
        }
        Ok(SegmentIndexes { index_path, time_path, offsets, times })
    }
}
