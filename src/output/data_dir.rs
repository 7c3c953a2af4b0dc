//! Renderers of the data-dir reports (`check`, `diff` and `recover --dry-run` over every
//! partition of a broker's log dir): one table row per partition, then what needs a closer
//! look, then totals; JSON as one object per partition and one summary object.

use super::json::{finding_wire, line, FindingWire, NoteWire};
use super::palette::{Palette, Tone};
use super::table::{right, right_in, Col, Grid};
use super::{report, text, Settings};
use crate::commands::data_dir::{DataDirCheck, DataDirDiff, RestartPlan};
use crate::commands::recover::{
    Advice, DataDirRecovery, FollowerRecoverReport, LeaderEpochSource, LoadedKind, LoadedLog, StartRefusal,
};
use crate::error::Result;
use comfy_table::Cell;
use serde::Serialize;
use std::io::Write;

/// A row for a partition without an answer: its name, `-` in each number column, and why.
fn absent_row(partition: &str, numbers: usize, why: Cell) -> Vec<Cell> {
    std::iter::once(Cell::new(partition)).chain((0..numbers).map(|_| right("-"))).chain([why]).collect()
}

pub fn check_text(out: &mut dyn Write, r: &DataDirCheck, settings: &Settings) -> Result<()> {
    let p = settings.palette();
    out!(out, "log dir {}: {} partition(s)", r.dir, r.partitions.len())?;
    for f in &r.dir_findings {
        out!(out, "{}", text::finding(&p, f))?;
    }
    partitions_table(out, r, settings)?;
    for part in &r.partitions {
        if let Ok(c) = &part.outcome {
            for f in &c.verification.findings {
                out!(out, "{}", text::finding(&p, f))?;
            }
        }
    }
    for n in &r.notes {
        out!(out, "{} {n}", p.warn("note"))?;
    }
    let totals = r.totals();
    let verdict = if r.is_clean() {
        p.good("clean")
    } else {
        p.bad(&format!(
            "{} finding(s) in {} partition(s), {} in the log dir's own files",
            totals.finding_count,
            totals.partitions_with_findings,
            r.dir_findings.len()
        ))
    };
    out!(
        out,
        "checked {} partition(s), {} segment(s), {} record(s), {} bytes: {verdict}",
        r.partitions.len(),
        totals.segment_count,
        totals.record_count,
        totals.bytes_checked
    )
}

/// One row per partition: its segments, records, LEO and HW, and its verdict.
fn partitions_table(out: &mut dyn Write, r: &DataDirCheck, settings: &Settings) -> Result<()> {
    let p = settings.palette();
    let mut t = Grid::new(
        settings,
        &[
            Col::Ident("partition"),
            Col::Keep("segments"),
            Col::Keep("records"),
            Col::Keep("LEO"),
            Col::Keep("HW"),
            Col::Verdict("verdict"),
        ],
    );
    for part in &r.partitions {
        match &part.outcome {
            Ok(c) => {
                let verdict = if c.is_clean() {
                    p.cell("clean", Tone::Good)
                } else {
                    p.cell(format!("{} finding(s)", c.verification.findings.len()), Tone::Bad)
                };
                t.add(vec![
                    Cell::new(&part.partition),
                    right(c.verification.segment_count),
                    right(c.verification.record_count),
                    right(c.summary.log_end_offset),
                    // As `dump` shows it: `-` when the HW checkpoint does not list it.
                    right(super::or_dash(c.summary.high_watermark)),
                    verdict,
                ]);
            }
            Err(why) => t.add(absent_row(&part.partition, 4, p.cell(format!("unreadable: {why}"), Tone::Bad))),
        }
    }
    if !t.is_empty() {
        t.write(out)?;
    }
    Ok(())
}

#[derive(Serialize)]
struct PartitionCheckWire<'a> {
    batches: u64,
    bytes: u64,
    clean: bool,
    findings: Vec<FindingWire<'a>>,
    high_watermark: Option<i64>,
    log_end_offset: i64,
    notes: &'a [String],
    partition: &'a str,
    records: u64,
    segments: usize,
    #[serde(rename = "type")]
    kind: &'static str,
}

/// A partition that could not be read: `{"partition": ..., "error": ...}` under its document's type.
#[derive(Serialize)]
struct PartitionErrorWire<'a> {
    #[serde(skip_serializing_if = "Option::is_none")]
    clean: Option<bool>,
    error: &'a str,
    partition: &'a str,
    #[serde(rename = "type")]
    kind: &'static str,
}

#[derive(Serialize)]
struct CheckSummaryWire<'a> {
    clean: bool,
    dir: &'a str,
    dir_findings: usize,
    partitions: usize,
    partitions_with_findings: usize,
    #[serde(rename = "type")]
    kind: &'static str,
}

pub fn check_json(out: &mut dyn Write, r: &DataDirCheck) -> Result<()> {
    for f in &r.dir_findings {
        line(out, &finding_wire(f))?;
    }
    for part in &r.partitions {
        match &part.outcome {
            Ok(c) => line(
                out,
                &PartitionCheckWire {
                    batches: c.verification.batch_count,
                    bytes: c.verification.bytes_checked,
                    clean: c.is_clean(),
                    findings: c.verification.findings.iter().map(finding_wire).collect(),
                    high_watermark: c.summary.high_watermark,
                    log_end_offset: c.summary.log_end_offset,
                    notes: &c.verification.notes,
                    partition: &part.partition,
                    records: c.verification.record_count,
                    segments: c.verification.segment_count,
                    kind: "partition_check",
                },
            )?,
            Err(why) => line(
                out,
                &PartitionErrorWire {
                    clean: Some(false),
                    error: why,
                    partition: &part.partition,
                    kind: "partition_check",
                },
            )?,
        }
    }
    for n in &r.notes {
        line(out, &NoteWire::new(n))?;
    }
    line(
        out,
        &CheckSummaryWire {
            clean: r.is_clean(),
            dir: &r.dir,
            dir_findings: r.dir_findings.len(),
            partitions: r.partitions.len(),
            partitions_with_findings: r.totals().partitions_with_findings,
            kind: "summary",
        },
    )
}

pub fn plan_text(out: &mut dyn Write, r: &RestartPlan, settings: &Settings) -> Result<()> {
    let p = settings.palette();
    out!(
        out,
        "{}: {} as a follower of {} under {} ({}), DRY RUN: nothing changed",
        p.strong("restart plan"),
        r.follower_dir,
        r.leader_dir,
        r.rules.truncation.name(),
        r.rules.describe_release()
    )?;
    for w in &r.warnings {
        out!(out, "{}: {w}", p.warn("warning"))?;
    }
    match &r.metadata {
        Some((dir, end)) => out!(
            out,
            "assumed: each partition's leader, epoch, ISR and ELR as the metadata last recorded ({dir}, log end {end}); \
             each leader epoch is followed by where it came from (@N: the metadata record at offset N)"
        )?,
        None if r.partitions.iter().any(|p| {
            p.outcome.as_ref().is_ok_and(|f| f.leader_epoch_source == LeaderEpochSource::LatestCached)
        }) =>
        {
            out!(
            out,
            "assumed: no metadata: the leader leads every partition at its latest cached epoch \
             (name a controller's dir with --metadata)"
        )?
        }
        None => {}
    }
    let mut t = Grid::new(
        settings,
        &[
            Col::Ident("partition"),
            Col::Keep("leader epoch"),
            Col::Keep("LEO"),
            Col::Keep("cut to"),
            Col::Keep("removed"),
            Col::Keep("acked lost"),
            Col::Keep("diverged"),
            Col::Note("note"),
        ],
    );
    for part in &r.partitions {
        match &part.outcome {
            Ok(f) => t.add(plan_row(&part.partition, f, &p)),
            Err(why) => t.add(absent_row(&part.partition, 6, p.cell(format!("refused: {why}"), Tone::Warn))),
        }
    }
    if !t.is_empty() {
        t.write(out)?;
    }
    for (name, side) in &r.one_side {
        out!(out, "{} {name}: only the {side} holds it", p.warn("note"))?;
    }
    for (name, why) in &r.left_out {
        out!(out, "{} {name}: left out: {why}", p.warn("note"))?;
    }
    out!(
        out,
        "summary: {} partition(s) planned, {} refused; {} acked record(s) would be lost",
        r.planned_count(),
        r.refused_count(),
        r.acked_lost()
    )
}

/// One partition's planned restart: its leader epoch and where it came from, the cut, what
/// it removes and loses, and the notes on its metadata.
fn plan_row(partition: &str, f: &FollowerRecoverReport, p: &Palette) -> Vec<Cell> {
    let removed = f.offsets_removed();
    let lost = f.counts.acked_and_lost();
    let mut notes: Vec<String> = f.first_divergent_offset.map(|o| format!("diverges at {o}")).into_iter().collect();
    let a = &f.assumed;
    if a.source == LeaderEpochSource::MetadataNextElection {
        notes.push(match a.other_leader() {
            Some(-1) | None => "metadata: no leader; L leads once elected".to_string(),
            Some(o) => format!("metadata: broker {o} leads, not L; L leads once elected"),
        });
    } else if a.metadata_behind() {
        notes.push("metadata older than L's log".to_string());
    }
    // The epoch and where it came from in one cell: the partition's name keeps the
    // room to stay on one line at 80 columns.
    let from = match (&a.recorded, a.source) {
        (Some(r), LeaderEpochSource::Metadata | LeaderEpochSource::MetadataNextElection) => match r.offset() {
            Some(o) => format!("@{o}"),
            None => "snapshot".to_string(),
        },
        _ => a.source.short().to_string(),
    };
    let note = notes.join("; ");
    vec![
        Cell::new(partition),
        right(format!("{} {from}", f.leader_epoch)),
        right(f.follower_view.log_end_offset),
        right(f.cut_offset),
        right(removed),
        if lost > 0 { right_in(p, lost, Tone::Bad) } else { right(lost) },
        if f.counts.diverged > 0 { right_in(p, f.counts.diverged, Tone::Bad) } else { right(0) },
        Cell::new(note),
    ]
}

#[derive(Serialize)]
struct RefusedWire<'a> {
    partition: &'a str,
    refused: &'a str,
    #[serde(rename = "type")]
    kind: &'static str,
}

#[derive(Serialize)]
struct MetadataLogWire<'a> {
    dir: &'a str,
    log_end_offset: i64,
}

#[derive(Serialize)]
struct LeftOutWire<'a> {
    partition: &'a str,
    why: &'a str,
}

#[derive(Serialize)]
struct PlanSummaryWire<'a> {
    acked_lost: u64,
    follower: &'a str,
    kafka: String,
    leader: &'a str,
    left_out: Vec<LeftOutWire<'a>>,
    metadata: Option<MetadataLogWire<'a>>,
    mode: &'static str,
    only_follower: Vec<&'a str>,
    only_leader: Vec<&'a str>,
    partitions: usize,
    refused: usize,
    #[serde(rename = "type")]
    kind: &'static str,
    warnings: &'a [String],
}

pub fn plan_json(out: &mut dyn Write, r: &RestartPlan) -> Result<()> {
    for part in &r.partitions {
        match &part.outcome {
            Ok(f) => {
                let mut doc = report::recover_doc(f);
                doc.partition = Some(&part.partition);
                line(out, &doc)?
            }
            Err(why) => line(out, &RefusedWire { partition: &part.partition, refused: why, kind: "recover" })?,
        }
    }
    line(
        out,
        &PlanSummaryWire {
            acked_lost: r.acked_lost(),
            follower: &r.follower_dir,
            kafka: r.rules.release.to_string(),
            leader: &r.leader_dir,
            left_out: r.left_out.iter().map(|(partition, why)| LeftOutWire { partition, why }).collect(),
            metadata: r.metadata.as_ref().map(|(dir, end)| MetadataLogWire { dir, log_end_offset: *end }),
            mode: r.rules.truncation.name(),
            only_follower: r.only_on("follower"),
            only_leader: r.only_on("leader"),
            partitions: r.partitions.len(),
            refused: r.refused_count(),
            kind: "summary",
            warnings: &r.warnings,
        },
    )
}

pub fn forecast_text(out: &mut dyn Write, r: &DataDirRecovery, settings: &Settings) -> Result<()> {
    let p = settings.palette();
    let what = if r.dry_run { "DRY RUN: nothing changed" } else { "done" };
    out!(out, "broker start-up load of {}: what Kafka 4.4's loader scans and cuts, {what}", r.dir)?;
    for n in &r.notes {
        out!(out, "note: {n}")?;
    }
    let mut t = Grid::new(
        settings,
        &[
            Col::Ident("partition"),
            Col::Keep("scanned"),
            Col::Keep("LEO before"),
            Col::Keep("LEO after"),
            Col::Keep("bytes removed"),
            Col::Keep("producer scan"),
            Col::Note("note"),
        ],
    );
    for l in &r.logs {
        let rec = &l.recovery;
        let removed = rec.bytes_removed;
        t.add(vec![
            Cell::new(&l.dir_name),
            right(rec.segments.len()),
            right(rec.log_end_offset_before),
            right(rec.log_end_offset_after),
            if removed > 0 { right_in(&p, removed, Tone::Bad) } else { right(0) },
            right(rec.producer_state.scan_bytes),
            Cell::new(load_notes(l)),
        ]);
    }
    if !t.is_empty() {
        t.write(out)?;
    }
    for l in &r.logs {
        if let Some((end, hw)) = l.acknowledged_missing() {
            out!(
                out,
                "{} {}: the checkpointed high watermark {hw} is above the log end {end}: acknowledged records at \
                 offsets {end} to {} are not on disk (Kafka clamps the HW to {end} when it serves the partition)",
                p.bad("note"),
                crate::escape::text(&l.dir_name),
                hw - 1
            )?;
        }
        if let Some((from, end)) = l.recovery.served_unverified() {
            let name = crate::escape::text(&l.dir_name);
            out!(out, "{} {name}: {}", p.bad("note"), super::text::served_unverified_text(from, end))?;
        }
    }
    out!(
        out,
        "summary: {} log(s) loaded; {} cut, {} bytes removed in all",
        r.logs.len(),
        r.logs_cut_count(),
        r.bytes_removed()
    )?;
    if r.dry_run {
        // The verdict a forecast is read for, on its own line (a refusal says the opposite).
        out!(out, "{}", p.good("verdict: the broker would start on this dir"))?;
    }
    Ok(())
}

/// What a log's load did beyond its counts: its kind when not a current log, no scan after a
/// clean shutdown, deleted segments, a HW above the log end, what it serves unchecked.
fn load_notes(l: &LoadedLog) -> String {
    let rec = &l.recovery;
    let mut notes = Vec::new();
    if l.kind != LoadedKind::Log(crate::log::names::LogKind::Current) {
        notes.push(l.kind.name().to_string());
    }
    if rec.clean_shutdown && rec.segments.is_empty() {
        notes.push("clean shutdown: no scan".to_string());
    }
    if !rec.deleted_segments.is_empty() {
        notes.push(format!("{} segment(s) deleted", rec.deleted_segments.len()));
    }
    if let Some((end, hw)) = l.acknowledged_missing() {
        notes.push(format!("HW {hw} > LEO {end}"));
    }
    if let Some((from, end)) = rec.served_unverified() {
        notes.push(format!("serves {from}-{} unchecked", end - 1));
    }
    notes.join("; ")
}

/// A start-up the broker does not survive, and what to do about it.
pub fn refusal_text(out: &mut dyn Write, r: &StartRefusal, settings: &Settings) -> Result<()> {
    let p = settings.palette();
    out!(out, "broker start-up load of {}: DRY RUN: nothing changed", r.dir)?;
    out!(out, "{}: {}", p.bad("the broker does not start"), r.refusal)?;
    match &r.advice {
        Some(Advice::RemoveCleanShutdownMarker { marker, then }) => {
            out!(
                out,
                "what to do: on a copy first, remove {marker}: Kafka then recovers every log from its recovery point \
                 instead of reading the log end from the index, and starts, as below ({} log(s) cut, {} bytes removed)",
                then.logs_cut_count(),
                then.bytes_removed()
            )?;
            forecast_text(out, then, settings)
        }
        None => out!(
            out,
            "what to do: keep this dir as it is (a copy is what to experiment on); klog has no change it can check \
             that makes this broker start"
        ),
    }
}

#[derive(Serialize)]
struct AdviceWire<'a> {
    remove: &'a str,
    then_bytes_removed: u64,
    then_logs_cut: usize,
}

#[derive(Serialize)]
struct RefusalWire<'a> {
    advice: Option<AdviceWire<'a>>,
    dir: &'a str,
    dry_run: bool,
    error: String,
    outcome: &'static str,
    #[serde(rename = "type")]
    kind: &'static str,
}

#[derive(Serialize)]
struct AdviceRecoveryWire<'a> {
    kind: &'static str,
    partition: &'a str,
    recovery: report::RecoveryWire<'a>,
    #[serde(rename = "type")]
    doc: &'static str,
}

pub fn refusal_json(out: &mut dyn Write, r: &StartRefusal) -> Result<()> {
    let advice = r.advice.as_ref().map(|Advice::RemoveCleanShutdownMarker { marker, then }| AdviceWire {
        remove: marker,
        then_bytes_removed: then.bytes_removed(),
        then_logs_cut: then.logs_cut_count(),
    });
    line(
        out,
        &RefusalWire {
            advice,
            dir: &r.dir,
            dry_run: true,
            error: r.refusal.to_string(),
            outcome: "refused",
            kind: "refusal",
        },
    )?;
    if let Some(Advice::RemoveCleanShutdownMarker { then, .. }) = &r.advice {
        for l in &then.logs {
            line(
                out,
                &AdviceRecoveryWire {
                    kind: l.kind.name(),
                    partition: &l.dir_name,
                    recovery: report::recovery_wire(&l.recovery),
                    doc: "advice_recovery",
                },
            )?;
        }
    }
    Ok(())
}

#[derive(Serialize)]
struct ForecastLogWire<'a> {
    acknowledged_missing: Option<report::FromTo>,
    checkpointed_high_watermark: Option<i64>,
    dry_run: bool,
    kind: &'static str,
    partition: &'a str,
    recovery: report::RecoveryWire<'a>,
    #[serde(rename = "type")]
    doc: &'static str,
    was_running: bool,
}

#[derive(Serialize)]
struct ForecastSummaryWire<'a> {
    bytes_cut: u64,
    bytes_removed: u64,
    dir: &'a str,
    dry_run: bool,
    notes: &'a [String],
    outcome: &'static str,
    partitions: usize,
    #[serde(rename = "type")]
    kind: &'static str,
}

pub fn forecast_json(out: &mut dyn Write, r: &DataDirRecovery) -> Result<()> {
    for l in &r.logs {
        line(
            out,
            &ForecastLogWire {
                acknowledged_missing: l.acknowledged_missing().map(|(from, hw)| report::FromTo { from, to: hw - 1 }),
                checkpointed_high_watermark: l.checkpointed_high_watermark,
                dry_run: r.dry_run,
                kind: l.kind.name(),
                partition: &l.dir_name,
                recovery: report::recovery_wire(&l.recovery),
                doc: "local_recovery",
                was_running: false,
            },
        )?;
    }
    line(
        out,
        &ForecastSummaryWire {
            bytes_cut: r.bytes_cut(),
            bytes_removed: r.bytes_removed(),
            dir: &r.dir,
            dry_run: r.dry_run,
            notes: &r.notes,
            outcome: "loaded",
            partitions: r.logs.len(),
            kind: "summary",
        },
    )
}

pub fn diff_text(out: &mut dyn Write, r: &DataDirDiff, settings: &Settings) -> Result<()> {
    let p = settings.palette();
    out!(out, "A {}", r.a)?;
    out!(out, "B {}", r.b)?;
    for w in &r.warnings {
        out!(out, "{}: {w}", p.warn("warning"))?;
    }
    let mut t = Grid::new(settings, &[Col::Ident("partition"), Col::Verdict("A vs B")]);
    for part in &r.partitions {
        let verdict = match &part.outcome {
            Ok(d) => match d.first_divergent_offset {
                Some(o) => p.cell(format!("diverges at offset {o}"), Tone::Bad),
                None if !d.unreadable_segments.is_empty() => {
                    let (side, n) = &d.unreadable_segments[0];
                    let side = if *side == crate::replication::diff::Side::A { "A" } else { "B" };
                    p.cell(format!("unreadable segment in {side}: {} is {}", n.path.display(), n.kind), Tone::Bad)
                }
                None if d.identical_up_to_shorter() && d.a_log_end_offset == d.b_log_end_offset => {
                    p.cell(format!("identical (LEO {})", d.a_log_end_offset), Tone::Good)
                }
                // One side holds more: say how much, not only that the shared part agrees.
                None if d.identical_up_to_shorter() => p.cell(
                    format!(
                        "A LEO {}, B LEO {}: identical up to {}",
                        d.a_log_end_offset,
                        d.b_log_end_offset,
                        d.a_log_end_offset.min(d.b_log_end_offset)
                    ),
                    Tone::Warn,
                ),
                None => p.cell("differs", Tone::Bad),
            },
            Err(why) => p.cell(format!("unreadable: {why}"), Tone::Bad),
        };
        t.add(vec![Cell::new(&part.partition), verdict]);
    }
    for (name, side) in &r.one_side {
        t.add(vec![Cell::new(name), p.cell(format!("only in {side}"), Tone::Warn)]);
    }
    if !t.is_empty() {
        t.write(out)?;
    }
    let longer = r
        .partitions
        .iter()
        .filter_map(|p| p.outcome.as_ref().ok())
        .filter(|d| d.identical_up_to_shorter() && d.a_log_end_offset != d.b_log_end_offset)
        .count();
    out!(
        out,
        "summary: {} partition(s) in both, {} differ, {longer} agree up to the shorter log end; {} in one only",
        r.partitions.len(),
        r.differing_count(),
        r.one_side.len()
    )
}

#[derive(Serialize)]
struct OnlyInWire<'a> {
    only_in: &'a str,
    partition: &'a str,
    #[serde(rename = "type")]
    kind: &'static str,
}

#[derive(Serialize)]
struct DiffSummaryWire<'a> {
    a: &'a str,
    b: &'a str,
    differs: bool,
    #[serde(rename = "type")]
    kind: &'static str,
    warnings: &'a [String],
}

pub fn diff_json(out: &mut dyn Write, r: &DataDirDiff) -> Result<()> {
    for part in &r.partitions {
        match &part.outcome {
            Ok(d) => {
                let mut doc = report::diff_wire(d);
                doc.a_log_end_offset = Some(d.a_log_end_offset);
                doc.b_log_end_offset = Some(d.b_log_end_offset);
                doc.partition = Some(&part.partition);
                doc.kind = Some("partition_diff");
                line(out, &doc)?
            }
            Err(why) => line(
                out,
                &PartitionErrorWire { clean: None, error: why, partition: &part.partition, kind: "partition_diff" },
            )?,
        }
    }
    for (name, side) in &r.one_side {
        line(out, &OnlyInWire { only_in: side, partition: name, kind: "partition_diff" })?;
    }
    line(out, &DiffSummaryWire { a: &r.a, b: &r.b, differs: r.differs(), kind: "summary", warnings: &r.warnings })
}
