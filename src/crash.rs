//! Crash simulation ([the model](crate::replication), operation 4): an unclean stop plus optional damage.
//!
//! Every crash throws away the volatile state and leaves no clean-shutdown marker. Damage
//! options model what a power cut or a bad disk leaves behind. All options are validated
//! before the first byte changes, and the report names every offset and byte position hit.

use crate::durable;
use crate::error::{Error, Result};
use crate::format::batch::{BatchIter, CRC_START};
use crate::log::names;
use crate::log::segment::Segment;
use crate::replica::{forget_volatile_states, open_log_dir_for_write, Replica};

/// What to break.
#[derive(Debug, Clone, Default)]
pub struct CrashOptions {
    pub power_loss: bool,
    pub torn_bytes: Option<u64>,
    /// `Some(None)`: a random batch chosen with `seed`.
    pub flip_byte: Option<Option<u64>>,
    pub seed: Option<u64>,
    pub high_watermark: Option<i64>,
    pub drop_epoch_checkpoint: bool,
    pub drop_index: bool,
}

/// One thing the crash did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Damage {
    /// A segment's tail beyond the recovery point vanished: (segment, old size, new size, lost offsets).
    PowerLoss {
        segment_base_offset: i64,
        size_before: u64,
        size_after: u64,
        lost: Option<(i64, i64)>,
    },
    /// A power loss that found nothing unflushed (an empty log, or one flushed to its end): a
    /// crash like any other, said so (a script that power-cuts every replica goes on).
    NothingUnflushed {
        log_end_offset: i64,
    },
    /// A segment above the recovery point vanished whole.
    SegmentLost {
        segment_base_offset: i64,
        size_bytes: u64,
    },
    TornTail {
        segment_base_offset: i64,
        size_before: u64,
        size_after: u64,
        hit: Option<(i64, i64)>,
    },
    FlippedByte {
        segment_base_offset: i64,
        position: u64,
        before: u8,
        after: u8,
        hit: Option<(i64, i64)>,
    },
    HighWatermark {
        before: i64,
        after: i64,
    },
    DroppedFile {
        path: String,
    },
}

#[derive(Debug)]
pub struct CrashReport {
    pub dir: String,
    pub was_running: bool,
    pub recovery_point: i64,
    pub log_end_offset_before: i64,
    pub damage: Vec<Damage>,
    /// `.kafka_cleanshutdown` was there and the crash removed it.
    pub marker_removed: bool,
    /// Every partition of the log dir (a crash stops the whole broker), in dir order.
    pub partitions: Vec<CrashedPartition>,
}

/// What the crash left of one partition of the dir: it was running (its volatile state is
/// gone) or already stopped, and the offsets the next start's recovery starts from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CrashedPartition {
    pub name: String,
    pub was_running: bool,
    pub log_end_offset: i64,
    pub recovery_point: i64,
}

/// Offsets of the batches overlapping the byte range [from, to) of a segment.
fn offsets_in(bytes: &[u8], from: u64, to: u64) -> Option<(i64, i64)> {
    let mut range: Option<(i64, i64)> = None;
    for b in BatchIter::new(bytes) {
        let end = b.position + b.size_bytes() as u64;
        if end > from && b.position < to {
            range = Some(range.map_or((b.base_offset(), b.last_offset()), |r| (r.0, b.last_offset())));
        }
    }
    range
}

/// A small deterministic generator (xorshift64*), so `--seed` reproduces a crash.
fn next_random(state: &mut u64) -> u64 {
    *state ^= *state >> 12;
    *state ^= *state << 25;
    *state ^= *state >> 27;
    state.wrapping_mul(0x2545_F491_4F6C_DD1D)
}

impl CrashOptions {
    /// Whether any damage beyond the unclean stop itself is asked for.
    fn damages(&self) -> bool {
        self.power_loss
            || self.torn_bytes.is_some()
            || self.flip_byte.is_some()
            || self.high_watermark.is_some()
            || self.drop_epoch_checkpoint
            || self.drop_index
    }
}

impl CrashedPartition {
    /// A partition of the crashing broker as it was before the crash.
    fn before_crash(r: &Replica) -> CrashedPartition {
        CrashedPartition {
            name: r.paths().name(),
            was_running: r.is_running(),
            log_end_offset: r.log_end_offset(),
            recovery_point: r.recovery_point(),
        }
    }
}

/// Crash the broker that owns the log dir of `dir`: every partition of the dir loses its
/// volatile state and the dir its clean-shutdown marker (a crash stops a whole broker). Damage
/// options hit the one selected partition.
pub fn crash(dir: &std::path::Path, partition: Option<&str>, opts: &CrashOptions) -> Result<CrashReport> {
    let mut w = open_log_dir_for_write(dir, partition)?;
    if w.targets.len() > 1 && opts.damages() {
        let names: Vec<String> = w.replicas.iter().map(|r| r.paths().name()).collect();
        return Err(Error::Usage(format!(
            "{}: damage options hit one partition, and this log dir holds {}: pick one with --partition NAME",
            dir.display(),
            names.len()
        )));
    }
    let marker_removed = w.replicas.iter().any(|r| r.clean_shutdown());
    let partitions = w.replicas.iter().map(CrashedPartition::before_crash).collect();
    let mut replica = w.replicas.swap_remove(w.targets[0]);
    let mut rest = std::mem::take(&mut w.replicas);
    let segments = replica.log().segments().to_vec();
    let active = segments.last().cloned();
    let active_size = match &active {
        Some(s) => s.log_size()?,
        None => 0,
    };
    let leo = replica.log_end_offset();
    // Validate everything first.
    let flip_position = check_damage(opts, active.as_ref(), active_size, &replica)?;
    let mut report = CrashReport {
        dir: replica.paths().log_dir.display().to_string(),
        was_running: replica.is_running(),
        recovery_point: replica.recovery_point(),
        log_end_offset_before: leo,
        damage: Vec::new(),
        marker_removed,
        partitions,
    };
    forget_volatile_states(std::iter::once(&mut replica).chain(rest.iter_mut()))?;
    if opts.power_loss {
        power_loss(&replica, &segments, &mut report)?;
    }
    if let (Some(n), Some(seg)) = (opts.torn_bytes, &active) {
        report.damage.push(tear_tail(seg, n)?);
    }
    if let (Some(position), Some(seg)) = (flip_position, &active) {
        report.damage.extend(flip_byte(seg, position)?);
    }
    if let Some(hw) = opts.high_watermark {
        let before = replica.high_watermark();
        replica.set_high_watermark(hw)?;
        report.damage.push(Damage::HighWatermark { before, after: hw });
    }
    if opts.drop_epoch_checkpoint {
        let path = replica.paths().partition_dir.join(names::LEADER_EPOCH_CHECKPOINT);
        if durable::remove_file(&path)? {
            report.damage.push(Damage::DroppedFile { path: path.display().to_string() });
        }
    }
    if let (true, Some(seg)) = (opts.drop_index, &active) {
        for path in [seg.index_path(), seg.time_index_path()] {
            if durable::remove_file(&path)? {
                report.damage.push(Damage::DroppedFile { path: path.display().to_string() });
            }
        }
    }
    Ok(report)
}

/// Check the damage options against the active segment (`active_size` bytes) before anything
/// is written; returns the position `--flip-byte` flips.
fn check_damage(
    opts: &CrashOptions,
    active: Option<&Segment>,
    active_size: u64,
    replica: &Replica,
) -> Result<Option<u64>> {
    let needs_data = opts.torn_bytes.is_some() || opts.flip_byte.is_some();
    if needs_data && active_size == 0 {
        return Err(Error::state(
            &replica.paths().partition_dir,
            "the active segment is empty: --torn-bytes and --flip-byte need data to damage",
        ));
    }
    if let Some(n) = opts.torn_bytes {
        if n == 0 || n > active_size {
            return Err(Error::Usage(format!(
                "--torn-bytes {n}: the active segment has {active_size} bytes (give 1 to {active_size})"
            )));
        }
    }
    let flip_position = choose_flip_position(opts, active, active_size, replica)?;
    if let Some(hw) = opts.high_watermark {
        if hw < 0 {
            return Err(Error::Usage(format!("--hw {hw}: must be >= 0")));
        }
    }
    Ok(flip_position)
}

/// The byte `--flip-byte` flips in the active segment: the position given, or with `--seed`
/// one the CRC covers in a batch chosen at random.
fn choose_flip_position(
    opts: &CrashOptions,
    active: Option<&Segment>,
    active_size: u64,
    replica: &Replica,
) -> Result<Option<u64>> {
    match opts.flip_byte {
        None => Ok(None),
        Some(Some(p)) if p >= active_size => Err(Error::Usage(format!(
            "--flip-byte {p}: position past the end of the active segment ({active_size} bytes)"
        ))),
        Some(Some(p)) => Ok(Some(p)),
        Some(None) => {
            let Some(seed) = opts.seed else {
                return Err(Error::Usage("--flip-byte needs a POSITION or --seed N to choose one".into()));
            };
            let seg = active.expect("active segment");
            let bytes = seg.read_log()?;
            let batches: Vec<(u64, u64)> =
                BatchIter::new(&bytes).map(|b| (b.position, b.size_bytes() as u64)).collect();
            if batches.is_empty() {
                return Err(Error::state(&replica.paths().partition_dir, "no whole batch in the active segment"));
            }
            let mut state = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
            let (pos, size) = batches[(next_random(&mut state) % batches.len() as u64) as usize];
            // A byte the CRC covers, so the damage is detectable, as a real bit flip would be.
            let span = size.saturating_sub(CRC_START as u64).max(1);
            Ok(Some(pos + CRC_START as u64 + next_random(&mut state) % span))
        }
    }
}

/// Cut `n` bytes off the end of the active segment `seg` (a torn write).
fn tear_tail(seg: &Segment, n: u64) -> Result<Damage> {
    let size_before = seg.log_size()?;
    let n = n.min(size_before);
    let hit = offsets_in(&seg.read_log()?, size_before - n, size_before);
    durable::truncate_file(&seg.log_path(), size_before - n)?;
    Ok(Damage::TornTail { segment_base_offset: seg.base_offset, size_before, size_after: size_before - n, hit })
}

/// Flip every bit of the byte at `position` of segment `seg` (none when the segment is shorter).
fn flip_byte(seg: &Segment, position: u64) -> Result<Option<Damage>> {
    let size = seg.log_size()?;
    if position >= size {
        return Ok(None);
    }
    let hit = offsets_in(&seg.read_log()?, position, position + 1);
    let path = seg.log_path();
    let b = [*seg
        .read_log()?
        .get(position as usize)
        .ok_or_else(|| Error::corrupt(&path, position, "the segment shrank while it was read"))?];
    let after = b[0] ^ 0xff;
    durable::write_at(&path, position, &[after])?;
    Ok(Some(Damage::FlippedByte { segment_base_offset: seg.base_offset, position, before: b[0], after, hit }))
}

/// Cut the log back to the recovery point: what was only in the page cache is gone.
fn power_loss(replica: &Replica, segments: &[Segment], report: &mut CrashReport) -> Result<()> {
    let rp = replica.recovery_point();
    let first_base = segments.first().map(|s| s.base_offset);
    let (lost, kept): (Vec<&Segment>, Vec<&Segment>) =
        segments.iter().partition(|seg| seg.base_offset > rp && Some(seg.base_offset) != first_base);
    let mut damage = Vec::new();
    // Segments created after the last flush were never made durable. They go first, the last
    // one first, each `.log` after its indexes: a crash simulation killed part-way must leave a
    // shorter log, never one with a hole.
    for seg in lost.iter().rev() {
        let size_bytes = seg.log_size()?;
        for path in [seg.index_path(), seg.time_index_path(), seg.log_path()] {
            durable::remove_file(&path)?;
        }
        damage.push(Damage::SegmentLost { segment_base_offset: seg.base_offset, size_bytes });
    }
    for seg in kept.iter().rev() {
        let size_before = seg.log_size()?;
        let bytes = seg.read_log()?;
        // Keep whole batches ending at or below the recovery point.
        let last_kept = BatchIter::new(&bytes).take_while(|b| b.next_offset() <= rp).last();
        let keep = last_kept.map_or(0, |b| b.position + b.size_bytes() as u64);
        let end_offset = last_kept.map_or(seg.base_offset, |b| b.next_offset());
        if keep < size_before {
            let lost = offsets_in(&bytes, keep, size_before);
            drop(bytes);
            durable::truncate_file(&seg.log_path(), keep)?;
            // The index entries appended with the lost bytes were never flushed either.
            crate::log::truncate_indexes(seg, keep, end_offset)?;
            damage.push(Damage::PowerLoss {
                segment_base_offset: seg.base_offset,
                size_before,
                size_after: keep,
                lost,
            });
        }
    }
    damage.sort_by_key(|d| match d {
        Damage::SegmentLost { segment_base_offset, .. } | Damage::PowerLoss { segment_base_offset, .. } => {
            *segment_base_offset
        }
        _ => i64::MAX,
    });
    if damage.is_empty() {
        damage.push(Damage::NothingUnflushed { log_end_offset: replica.log_end_offset() });
    }
    report.damage.extend(damage);
    Ok(())
}
