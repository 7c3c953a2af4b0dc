//! Plain-text renderings of command reports.

use super::table;
use super::Settings;
use crate::commands::alter_isr::AlterIsrReport;
use crate::commands::append::AppendReport;
use crate::commands::elect::ElectReport;
use crate::error::Result;
use crate::log::recovery::{CutBatch, RecoveryReport};
use crate::replica::CheckReport;
use crate::replica::ReplicaPaths;
use crate::replication::fetch::FetchRound;
use std::io::Write;

pub fn created(out: &mut dyn Write, r: &crate::commands::create::CreateReport) -> Result<()> {
    let verb = if r.added_to_existing { "added to" } else { "created" };
    match r.partitions.as_slice() {
        [p] => out!(out, "{verb} {} with partition {} (empty, LEO 0)", r.log_dir.display(), p.name()),
        ps => out!(
            out,
            "{verb} {} with {} partitions, {} to {} (empty, LEO 0)",
            r.log_dir.display(),
            ps.len(),
            ps.first().map(ReplicaPaths::name).unwrap_or_default(),
            ps.last().map(ReplicaPaths::name).unwrap_or_default()
        ),
    }
}

/// How a stopped replica came back up (printed by any mutating command that started it).
pub fn startup(out: &mut dyn Write, dir: &str, r: &RecoveryReport, settings: &Settings) -> Result<()> {
    if r.clean_shutdown && r.segments.is_empty() {
        return out!(out, "{dir}: started after a clean shutdown (no scan), LEO {}", r.log_end_offset_after);
    }
    if r.cut.is_empty() && r.deleted_segments.is_empty() && r.epochs_added.is_empty() && r.epochs_removed.is_empty() {
        return out!(
            out,
            "{dir}: local recovery after an unclean shutdown: scanned {} segment(s) from recovery point {}, nothing cut, LEO {}",
            r.segments.len(),
            r.recovery_point_before,
            r.log_end_offset_after
        );
    }
    recovery(out, dir, r, settings)
}

/// The local-recovery report: what was scanned, cut and rebuilt.
pub fn recovery(out: &mut dyn Write, dir: &str, r: &RecoveryReport, settings: &Settings) -> Result<()> {
    let p = settings.palette();
    let how = if r.interrupted_write {
        "after an interrupted write (the previous command died mid-write)"
    } else if r.clean_shutdown {
        "after a clean shutdown"
    } else {
        "after an unclean shutdown"
    };
    out!(
        out,
        "{dir}: local recovery {how}: recovery point {}, scanned {} segment(s)",
        r.recovery_point_before,
        r.segments.len()
    )?;
    for s in &r.segments {
        let cut = match &s.invalid_at {
            Some((pos, why)) => format!(", {} at position {pos}: {why}", p.bad("stopped")),
            None => String::new(),
        };
        out!(
            out,
            "  segment {}: {} valid batch(es), {} valid bytes{cut}; indexes rebuilt ({} offset, {} time entries)",
            s.base_offset,
            s.batches_valid,
            s.valid_bytes,
            s.index_entries,
            s.time_index_entries
        )?;
    }
    for c in &r.cut {
        out!(out, "  {} {}", p.bad("cut"), cut_text(c))?;
    }
    for d in &r.deleted_segments {
        out!(out, "  {} segment {d}", p.bad("deleted"))?;
    }
    let key = |i: usize| if i == 0 { format!(" {}", super::epoch_cache::KEY) } else { String::new() };
    for (i, e) in r.epochs_added.iter().enumerate() {
        out!(out, "  epoch cache: added {}{}", super::epoch_cache::entry(e.leader_epoch, e.start_offset), key(i))?;
    }
    for (i, e) in r.epochs_removed.iter().enumerate() {
        let k = key(i + r.epochs_added.len());
        out!(out, "  epoch cache: removed {}{k}", super::epoch_cache::entry(e.leader_epoch, e.start_offset))?;
    }
    // The LEO before counts valid batches only; a torn batch at the end also held offsets the
    // crash reported (its header names them), so the LEO the crash left counts them too.
    let torn: Vec<(i64, i64)> =
        r.cut.iter().filter_map(|c| c.partial_offsets).filter(|(b, _)| *b >= r.log_end_offset_after).collect();
    let before = torn.iter().map(|(_, l)| l.saturating_add(1)).fold(r.log_end_offset_before, i64::max);
    let gone = r.offsets_cut() + torn.iter().map(|(b, l)| (l - b + 1) as u64).sum::<u64>();
    out!(
        out,
        "  LEO {} -> {}{}; {} bytes cut",
        before,
        r.log_end_offset_after,
        match gone {
            0 => String::new(),
            1 => " (1 offset gone)".to_string(),
            n => format!(" ({n} offsets gone)"),
        },
        r.bytes_cut()
    )?;
    if let Some((from, end)) = r.served_unverified() {
        out!(out, "  {}", served_unverified_text(from, end))?;
    }
    Ok(())
}

/// What local recovery cut: a whole batch, or bytes that hold no whole batch (with the
/// offsets its header names).
fn cut_text(c: &CutBatch) -> String {
    match (c.base_offset, c.last_offset) {
        (Some(b), Some(l)) => format!(
            "batch {} (epoch {}) at position {} of segment {}, {} bytes",
            if b == l { b.to_string() } else { format!("{b} to {l}") },
            c.partition_leader_epoch.unwrap_or(-1),
            c.position,
            c.segment_base_offset,
            c.size_bytes
        ),
        _ => format!(
            "{} bytes at position {} of segment {} (no whole batch{})",
            c.size_bytes,
            c.position,
            c.segment_base_offset,
            match c.partial_offsets {
                Some((b, l)) if b == l => format!("; its header names offset {b}"),
                Some((b, l)) => format!("; its header names offsets {b} to {l}"),
                None => String::new(),
            }
        ),
    }
}

/// What a clean shutdown over damaged bytes means: Kafka serves them.
pub fn served_unverified_text(from: i64, end: i64) -> String {
    format!(
        "clean shutdown: Kafka does not recover this log; it takes the log end {end} from the last batch and \
         loads and serves offsets {from} to {} as they are, though they fail klog's check",
        end - 1
    )
}

pub fn elected(out: &mut dyn Write, r: &ElectReport, settings: &Settings) -> Result<()> {
    if let Some(s) = &r.startup {
        startup(out, &r.replica, s, settings)?;
    }
    let p = settings.palette();
    let entry = match r.epoch_entry {
        Some((e, o)) => format!("epoch cache gains {} {}", super::epoch_cache::entry(e, o), super::epoch_cache::KEY),
        None => "epoch cache entry deferred to the first append".into(),
    };
    let isr = if r.isr.is_empty() { "leader only".to_string() } else { r.isr.join(", ") };
    out!(
        out,
        "{} is {} at epoch {} (ISR: {isr}); {entry}; LEO {}, HW {}",
        r.replica,
        p.good("leader"),
        p.epoch(r.leader_epoch, &r.leader_epoch.to_string()),
        r.log_end_offset,
        r.high_watermark
    )
}

pub fn isr_altered(out: &mut dyn Write, r: &AlterIsrReport, settings: &Settings) -> Result<()> {
    let p = settings.palette();
    let isr = |m: &[String]| if m.is_empty() { "leader only".to_string() } else { m.join(", ") };
    let hw = if r.high_watermark == r.high_watermark_before {
        format!("HW {}", r.high_watermark)
    } else {
        format!("HW {} -> {}", r.high_watermark_before, r.high_watermark)
    };
    out!(
        out,
        "{} is {} at epoch {}; ISR: {} -> {}; {hw}",
        r.replica,
        p.good("leader"),
        p.epoch(r.leader_epoch, &r.leader_epoch.to_string()),
        isr(&r.previous_isr),
        isr(&r.isr)
    )
}

pub fn appended(out: &mut dyn Write, dir: &str, r: &AppendReport, settings: &Settings) -> Result<()> {
    if let Some(s) = &r.startup {
        startup(out, dir, s, settings)?;
    }
    let p = settings.palette();
    let first = r.batches.first().map_or(0, |b| b.0);
    let last = r.batches.last().map_or(0, |b| b.1);
    if let (Some((commit, ended, lso)), Some((producer, _))) = (&r.marker, &r.producer) {
        let what = if *commit { "a COMMIT" } else { "an ABORT" };
        let ended = match (ended, lso) {
            (Some(t), Some(lso)) => format!(
                "ended its transaction from offset {}; aborted-index entry (offsets {} to {}, LSO {lso})",
                t.first_offset, t.first_offset, t.last_offset
            ),
            (Some(t), None) => format!("ended its transaction from offset {}", t.first_offset),
            (None, _) => "no transaction with data was open: it ends nothing".to_string(),
        };
        return out!(
            out,
            "appended {what} marker for producer {} epoch {} at offset {first} (epoch {}): {ended}; LEO {}, HW {}",
            producer.id,
            producer.epoch,
            p.epoch(r.leader_epoch, &r.leader_epoch.to_string()),
            r.log_end_offset,
            r.high_watermark
        );
    }
    if let (Some((first, last)), Some((producer, sequence))) = (r.duplicate_of, &r.producer) {
        return out!(
            out,
            "nothing written: producer {} epoch {} from sequence {sequence} is a retry of its batch at offsets {first} \
             to {last} (Kafka's leader answers with that batch's offsets); LEO {}, HW {}",
            producer.id,
            producer.epoch,
            r.log_end_offset,
            r.high_watermark
        );
    }
    let offsets = if first == last { format!("offset {first}") } else { format!("offsets {first} to {last}") };
    let by = match &r.producer {
        Some((producer, sequence)) => format!(
            " as producer {} epoch {}{} from sequence {sequence}",
            producer.id,
            producer.epoch,
            if producer.transactional { " in its transaction" } else { "" }
        ),
        None => String::new(),
    };
    out!(
        out,
        "appended {} record(s) at {offsets} in {} batch(es) of epoch {}{by} ({} bytes){}{}; LEO {}, HW {}",
        r.records,
        r.batches.len(),
        p.epoch(r.leader_epoch, &r.leader_epoch.to_string()),
        r.bytes,
        if r.segments_rolled > 0 { format!(", {} segment roll(s)", r.segments_rolled) } else { String::new() },
        if r.flushed { ", flushed" } else { "" },
        r.log_end_offset,
        r.high_watermark
    )
}

/// One finding as a line: `finding <path> at position <p> (offset <o>): <what>`.
pub fn finding(p: &super::palette::Palette, f: &crate::replica::Finding) -> String {
    let place: Vec<String> =
        f.line.map(|l| format!("line {l}")).into_iter().chain(f.offset.map(|o| format!("offset {o}"))).collect();
    let at = match place.is_empty() {
        true => format!(" at position {}", f.position),
        false => format!(" at position {} ({})", f.position, place.join(", ")),
    };
    format!("{} {}{at}: {}", p.bad("finding"), f.path.display(), f.what)
}

pub fn check(out: &mut dyn Write, r: &CheckReport, settings: &Settings) -> Result<()> {
    let p = settings.palette();
    table::summary_lines(out, &r.summary, settings)?;
    for f in &r.verification.findings {
        out!(out, "{}", finding(&p, f))?;
    }
    for n in &r.verification.notes {
        out!(out, "{} {n}", p.warn("note"))?;
    }
    let verdict =
        if r.is_clean() { p.good("clean") } else { p.bad(&format!("{} finding(s)", r.verification.findings.len())) };
    out!(
        out,
        "checked {} segment(s), {} batch(es), {} record(s), {} bytes: {verdict}",
        r.verification.segment_count,
        r.verification.batch_count,
        r.verification.record_count,
        r.verification.bytes_checked
    )
}

pub fn fetch_rounds(
    out: &mut dyn Write,
    r: &crate::commands::fetch::FetchReport,
    follower: &str,
    settings: &Settings,
) -> Result<()> {
    let p = settings.palette();
    if let Some(s) = &r.leader_startup {
        startup(out, "the leader", s, settings)?;
    }
    if let Some(s) = &r.follower_startup {
        startup(out, follower, s, settings)?;
    }
    for (i, round) in r.rounds.iter().enumerate() {
        fetch_round(out, i + 1, round, settings)?;
    }
    if r.caught_up {
        out!(out, "{}", p.good("caught up"))?;
    }
    Ok(())
}

/// One fetch round: what it copied and the HWs after it, or why it copied nothing (the
/// broker stops, the follower is stuck), or what the leader's answer cut.
fn fetch_round(out: &mut dyn Write, n: usize, round: &FetchRound, settings: &Settings) -> Result<()> {
    let p = settings.palette();
    if round.answer_truncation.is_some() {
        return fetch_answer_round(out, n, round, settings);
    }
    if round.broker_stops {
        out!(
            out,
            "round {}: follower LEO {} is past the leader's LEO {}: OFFSET_OUT_OF_RANGE, and {} {} the follower's \
             broker (FatalExitError: unclean.leader.election.enable is false{}); nothing is cut (from 2.0.1, \
             KAFKA-7414, it truncates to the leader's LEO)",
            n,
            round.fetch_offset,
            round.leader_log_end_offset,
            round.rules.describe_release(),
            p.bad("STOPS"),
            if round.rules.release >= crate::replication::release::Release::zero(11, 0, 0) {
                ", Kafka's default from 0.11.0.0"
            } else {
                ""
            }
        )?;
        return Ok(());
    }
    if let Some((from, to)) = round.truncated {
        out!(out, "round {}: follower LEO {from} is past the leader's LEO: {} to {to}", n, p.warn("truncated"))?;
    }
    if let Some(s) = &round.stuck {
        out!(
            out,
            "round {}: fetch at {}: leader returned batch {} to {} which starts below the follower's LEO {}: {} (out-of-order offsets, nothing appended)",
            n,
            round.fetch_offset,
            s.batch_base_offset,
            s.batch_last_offset,
            s.follower_log_end_offset,
            p.bad("STUCK")
        )?;
        return Ok(());
    }
    out!(
        out,
        "round {}: fetch at {}: copied {} batch(es), {} record(s), {} bytes; leader LEO {} HW {}; follower LEO {} HW {} (response carried HW {})",
        n,
        round.fetch_offset,
        round.batches_copied,
        round.records_copied,
        round.bytes_copied,
        round.leader_log_end_offset,
        p.strong(&round.leader_high_watermark.to_string()),
        round.follower_log_end_offset,
        p.strong(&round.follower_high_watermark.to_string()),
        round.returned_high_watermark
    )
}

/// A 2.8+ round the leader answered with a diverging epoch or OFFSET_OUT_OF_RANGE: what was
/// sent, the answer, and the follower's cut.
fn fetch_answer_round(
    out: &mut dyn Write,
    n: usize,
    round: &crate::replication::fetch::FetchRound,
    settings: &Settings,
) -> Result<()> {
    use crate::replication::fetch::{AnswerTruncation, FetchAnswer};
    let p = settings.palette();
    let sent = match round.last_fetched_epoch {
        Some(e) => format!("fetch at {} with last fetched epoch {e}", round.fetch_offset),
        None => format!("fetch at {} with no last fetched epoch", round.fetch_offset),
    };
    let answer = match round.answer {
        FetchAnswer::Diverging { leader_epoch, end_offset } => {
            format!("diverging epoch {leader_epoch} ending at {end_offset}")
        }
        FetchAnswer::OffsetOutOfRange(why) => format!("OFFSET_OUT_OF_RANGE ({})", why.describe()),
        FetchAnswer::Records => "records".to_string(),
    };
    let cut = match (round.answer_truncation, round.truncated) {
        (Some(AnswerTruncation::Diverging { reason, follower_epoch_end, complete, offset }), _) => {
            let own = follower_epoch_end
                .filter(|o| !o.is_undefined())
                .map_or(String::new(), |o| format!("its own epoch {} ends at {}; ", o.leader_epoch, o.end_offset));
            let how = match reason {
                crate::replication::truncation::TruncationReason::FollowerEpochEnd => {
                    format!("it lacks the leader's epoch: cut to the end of its own, {offset}")
                }
                _ => format!("cut to {offset}"),
            };
            let next = if complete { "" } else { "; the next fetch goes on with its new latest epoch" };
            format!("{own}{how}{next}")
        }
        (Some(AnswerTruncation::ToLeaderEnd { offset }), _) => {
            format!("the leader's LEO {offset} is below its own: cut to it")
        }
        (Some(AnswerTruncation::RestartAtLeaderStart { offset }), _) => {
            format!("the leader's log starts at {offset}, past its LEO: emptied, starts there")
        }
        (Some(AnswerTruncation::Kept), _) => format!(
            "the leader's LEO {} is not below its own: nothing cut, and the next fetch asks the same: {}",
            round.leader_log_end_offset,
            p.bad("NO PROGRESS")
        ),
        (None, _) => String::new(),
    };
    let truncated = match round.truncated {
        Some((from, to)) => format!("; {} {from} to {to}", p.warn("truncated")),
        None => String::new(),
    };
    out!(
        out,
        "round {n}: {sent}: leader answered {answer} (nothing read or recorded, its HW {} unchanged); follower: {cut}{truncated}; leader LEO {} HW {}; follower LEO {} HW {}",
        round.leader_high_watermark,
        round.leader_log_end_offset,
        p.strong(&round.leader_high_watermark.to_string()),
        round.follower_log_end_offset,
        p.strong(&round.follower_high_watermark.to_string())
    )
}

pub fn flushed(
    out: &mut dyn Write,
    dir: &str,
    r: &crate::commands::flush::FlushReport,
    settings: &Settings,
) -> Result<()> {
    if let Some(s) = &r.startup {
        startup(out, dir, s, settings)?;
    }
    out!(out, "{dir}: flushed; recovery point {} -> {}", r.recovery_point_before, r.recovery_point)
}

pub fn stopped(
    out: &mut dyn Write,
    dir: &str,
    r: &crate::commands::stop::StopReport,
    settings: &Settings,
) -> Result<()> {
    if let Some(s) = &r.startup {
        startup(out, dir, s, settings)?;
    }
    let marker = if r.marker_written {
        ".kafka_cleanshutdown written".to_string()
    } else {
        // The marker is dir-wide: it would tell a broker to skip recovering partitions that need it.
        let shown: Vec<&str> = r.not_closed.iter().take(5).map(String::as_str).collect();
        let more = r.not_closed.len().saturating_sub(shown.len());
        let more = if more > 0 { format!(" and {more} more") } else { String::new() };
        format!("no .kafka_cleanshutdown: {}{more} not closed", shown.join(", "))
    };
    match (r.already_stopped, r.partitions_stopped.len()) {
        (true, _) => out!(out, "{dir}: already stopped cleanly ({marker})"),
        (false, 1) => out!(
            out,
            "{dir}: stopped cleanly ({}: LEO {}, HW {}; {marker})",
            r.partitions_stopped[0],
            r.log_end_offset,
            r.high_watermark
        ),
        (false, n) => {
            out!(out, "{dir}: stopped {n} partitions cleanly ({marker})")?;
            for c in &r.closed {
                let recovered = match c.recovered_bytes_removed {
                    Some(0) => "; local recovery first, nothing cut".to_string(),
                    Some(b) => format!("; local recovery first cut {b} bytes"),
                    None => String::new(),
                };
                out!(
                    out,
                    "  {}: closed and flushed; LEO {}, HW {}, recovery point {}{recovered}",
                    c.name,
                    c.log_end_offset,
                    c.high_watermark,
                    c.recovery_point
                )?;
            }
            Ok(())
        }
    }
}

pub fn crashed(out: &mut dyn Write, r: &crate::crash::CrashReport, settings: &Settings) -> Result<()> {
    use crate::crash::Damage;
    let p = settings.palette();
    out!(
        out,
        "{}: {} (volatile state lost, no clean-shutdown marker); LEO was {}, recovery point {}",
        r.dir,
        p.bad("crashed"),
        r.log_end_offset_before,
        r.recovery_point
    )?;
    let offsets = |o: &Option<(i64, i64)>| match o {
        Some((a, b)) if a == b => format!("offset {a}"),
        Some((a, b)) => format!("offsets {a} to {b}"),
        None => "no whole batch".into(),
    };
    for d in &r.damage {
        match d {
            Damage::PowerLoss { segment_base_offset, size_before, size_after, lost } => out!(
                out,
                "  power loss: segment {segment_base_offset} cut from {size_before} to {size_after} bytes; unflushed {} lost",
                offsets(lost)
            )?,
            Damage::NothingUnflushed { log_end_offset } => out!(
                out,
                "  power loss: nothing unflushed (flushed up to the log end, offset {log_end_offset}): nothing lost"
            )?,
            Damage::SegmentLost { segment_base_offset, size_bytes } => {
                out!(out, "  power loss: segment {segment_base_offset} ({size_bytes} bytes) never flushed, gone")?
            }
            Damage::TornTail { segment_base_offset, size_before, size_after, hit } => out!(
                out,
                "  torn write: segment {segment_base_offset} cut from {size_before} to {size_after} bytes (positions {size_after}..{size_before}); hits {}",
                offsets(hit)
            )?,
            Damage::FlippedByte { segment_base_offset, position, before, after, hit } => out!(
                out,
                "  bit flip: segment {segment_base_offset} byte at position {position} {before:#04x} -> {after:#04x}; hits {}",
                offsets(hit)
            )?,
            Damage::HighWatermark { before, after } => out!(out, "  HW checkpoint: {before} -> {after}")?,
            Damage::DroppedFile { path } => out!(out, "  removed {path}")?,
        }
    }
    // A crash of a whole broker's dir: what it did to each partition.
    if r.partitions.len() > 1 {
        if r.marker_removed {
            out!(
                out,
                "  removed .kafka_cleanshutdown: the next start recovers every partition from its recovery point"
            )?;
        }
        for c in &r.partitions {
            let state = if c.was_running { "was running: volatile state lost" } else { "was stopped: unchanged" };
            out!(out, "  {}: {state}; LEO {}, recovery point {}", c.name, c.log_end_offset, c.recovery_point)?;
        }
    }
    Ok(())
}

/// `klog restore`: what was put back, one line per file.
pub fn restored(out: &mut dyn Write, r: &crate::durable::backup::RestoreReport, settings: &Settings) -> Result<()> {
    let p = settings.palette();
    let dir = r.log_dir.display();
    out!(
        out,
        "{dir}: {} from {} ({} files given back their bytes, {} made by the command removed, {} renames undone)",
        p.good("restored"),
        r.backup_dir.display(),
        r.restored.len(),
        r.removed.len(),
        r.renamed_back.len()
    )?;
    if let Some(made_of) = &r.made_of {
        out!(out, "  (the backup was made of {}: the dir beside it was restored)", made_of.display())?;
    }
    // Names read from the backup's manifest: escaped, as any text from a file.
    for f in &r.restored {
        out!(out, "  restored {}", crate::escape::text(f))?;
    }
    for f in &r.renamed_back {
        out!(out, "  renamed back {}", crate::escape::text(f))?;
    }
    for f in &r.removed {
        out!(out, "  removed {}", crate::escape::text(f))?;
    }
    Ok(())
}
