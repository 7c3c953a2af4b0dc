//! `klog txn`'s forms: the text report and one JSON object (serialize-only wire structs).

use super::json::{finding_wire, line, replica_wire, FindingWire, ReplicaWire};
use super::palette::Palette;
use super::{table, Settings};
use crate::commands::txn::{DataDirTxn, DataDirsTxn, TxnReport};
use crate::error::Result;
use crate::escape;
use crate::txn::coordinator::Verdict;
use crate::txn::transactions::OpenTransaction;
use serde::Serialize;
use std::io::Write;

/// The `kafka-transactions.sh` line that aborts an open transaction by its first offset
/// (KIP-664: the tool finds the producer with DescribeProducers).
pub fn abort_command(topic: &str, partition: i32, first_offset: i64) -> String {
    format!(
        "kafka-transactions.sh --bootstrap-server HOST:9092 abort --topic {topic} --partition {partition} \
         --start-offset {first_offset}"
    )
}

fn open_line(t: &OpenTransaction) -> String {
    let read = if t.batches == 0 {
        "opened before the snapshot the broker loads; its batches are not replayed".to_string()
    } else {
        format!("{} batch(es), {} record(s)", t.batches, t.records)
    };
    let iso = super::iso_timestamp;
    let when = match (t.first_timestamp, t.last_timestamp) {
        (Some(a), Some(b)) if a == b => format!(", written at {}", iso(a)),
        (Some(a), Some(b)) => format!(", written {} to {} ({} ms)", iso(a), iso(b), b - a),
        (None, Some(b)) => format!(", last written at {}", iso(b)),
        _ => String::new(),
    };
    format!(
        "producer {} epoch {}: offsets {} to {}, {read}{when}",
        t.producer_id, t.producer_epoch, t.first_offset, t.last_offset
    )
}

pub fn text(out: &mut dyn Write, r: &TxnReport, settings: &Settings) -> Result<()> {
    let p = settings.palette();
    let t = &r.transactions;
    table::summary_lines(out, &r.summary, settings)?;
    let (lso, hw) = (r.last_stable_offset(), r.high_watermark);
    let held = if lso < hw {
        p.bad(&format!(
            "read_committed consumers stop at offset {lso}: {} offset(s) below the HW are held back",
            hw - lso
        ))
    } else {
        p.good("read_committed consumers read up to the HW")
    };
    out!(out, "LSO {lso}  HW {hw}  LEO {}: {held}", t.log_end_offset)?;
    out!(out, "producer state: {}", producer_state_source(r))?;
    if t.broker_open.is_empty() {
        out!(out, "open transactions: none")?;
    }
    for o in &t.broker_open {
        out!(out, "{} {}", p.warn("open"), open_line(o))?;
        if !t.log_holds(o) {
            out!(out, "  the log does not hold it open: only the producer snapshot does (see the finding)")?;
        }
        out!(
            out,
            "  if the coordinator no longer knows it (kafka-transactions.sh find-hanging lists it), abort it:\n  {}",
            abort_command(&r.summary.topic, r.summary.partition, o.first_offset)
        )?;
    }
    for o in t.open.iter().filter(|l| !t.broker_holds_from(l.first_offset)) {
        out!(
            out,
            "{} {} (the log's; the snapshot the broker loads says it is not open)",
            p.warn("open"),
            open_line(o)
        )?;
    }
    out!(
        out,
        "transactions ended: {} committed, {} aborted; {} producer(s)",
        t.committed,
        t.aborted.len(),
        t.producers.len()
    )?;
    for (base, a) in &t.aborted {
        out!(
            out,
            "aborted producer {}: offsets {} to {} (LSO {} at the marker; segment {base})",
            a.producer_id,
            a.first_offset,
            a.last_offset,
            a.last_stable_offset
        )?;
    }
    for f in &t.findings {
        out!(out, "{}", super::text::finding(&p, f))?;
    }
    for n in &t.notes {
        out!(out, "{} {n}", p.warn("note"))?;
    }
    let verdict = if r.is_clean() { p.good("clean") } else { p.bad(&format!("{} finding(s)", t.findings.len())) };
    out!(out, "{verdict}")
}

/// Where the producer state comes from: the snapshot a broker loads (or its recovery writes)
/// and the batches after it, or the log's batches from its start.
fn producer_state_source(r: &TxnReport) -> String {
    let t = &r.transactions;
    match (&t.snapshot, r.loads) {
        (_, true) if !t.broker_replays && t.log_end_offset > t.log_start_offset => {
            "a broker loading this dir finds no snapshot after its clean shutdown: it starts with no producers and \
             reads no batch"
                .to_string()
        }
        (_, true) if !t.broker_replays => "none: the log holds no batch".to_string(),
        (Some(s), true) if !s.on_disk => format!(
            "a broker loading this dir starts from the snapshot its recovery writes at offset {}, then the batches after it",
            s.offset
        ),
        (Some(s), true) => format!(
            "a broker loading this dir starts from the producer snapshot at offset {}, then the batches after it",
            s.offset
        ),
        (Some(s), false) => format!("the producer snapshot at offset {} and the batches after it", s.offset),
        (None, _) => format!("no producer snapshot: the batches from the log start {}", t.log_start_offset),
    }
}

#[derive(Serialize)]
struct OpenWire<'a> {
    producer_id: i64,
    producer_epoch: i16,
    first_offset: i64,
    last_offset: i64,
    batches: u64,
    records: u64,
    first_timestamp: Option<i64>,
    last_timestamp: Option<i64>,
    in_log: bool,
    abort_command: &'a str,
    /// What the `__transaction_state` records read beside it say: `expected` (its
    /// transactional.id lists this partition), `not_listed` or `no_transactional_id` (hanging),
    /// absent when none were read.
    #[serde(skip_serializing_if = "Option::is_none")]
    coordinator: Option<CoordinatorWire<'a>>,
}

#[derive(Serialize)]
struct CoordinatorWire<'a> {
    verdict: &'static str,
    hanging: bool,
    transactional_id: Option<&'a str>,
    state: Option<&'a str>,
}

#[derive(Serialize)]
struct AbortedWire {
    segment: i64,
    producer_id: i64,
    first_offset: i64,
    last_offset: i64,
    last_stable_offset: i64,
}

#[derive(Serialize)]
struct ProducerWire {
    producer_id: i64,
    producer_epoch: i16,
    last_sequence: i32,
    last_offset: i64,
    coordinator_epoch: i32,
    current_txn_first_offset: Option<i64>,
    last_timestamp: i64,
}

#[derive(Serialize)]
struct TxnWire<'a> {
    #[serde(rename = "type")]
    kind: &'static str,
    replica: ReplicaWire<'a>,
    last_stable_offset: i64,
    first_unstable_offset: Option<i64>,
    high_watermark: i64,
    log_end_offset: i64,
    log_start_offset: i64,
    snapshot_offset: Option<i64>,
    open: Vec<OpenWire<'a>>,
    committed: u64,
    aborted: Vec<AbortedWire>,
    producers: Vec<ProducerWire>,
    findings: Vec<FindingWire<'a>>,
    notes: &'a [String],
    clean: bool,
}

pub fn json(out: &mut dyn Write, r: &TxnReport) -> Result<()> {
    let t = &r.transactions;
    let commands: Vec<String> =
        t.broker_open.iter().map(|o| abort_command(&r.summary.topic, r.summary.partition, o.first_offset)).collect();
    let open = t
        .broker_open
        .iter()
        .zip(&commands)
        .enumerate()
        .map(|(i, (o, c))| OpenWire {
            producer_id: o.producer_id,
            producer_epoch: o.producer_epoch,
            first_offset: o.first_offset,
            last_offset: o.last_offset,
            batches: o.batches,
            records: o.records,
            first_timestamp: o.first_timestamp,
            last_timestamp: o.last_timestamp,
            in_log: t.log_holds(o),
            abort_command: c,
            coordinator: r.coordinator.get(i).map(coordinator_wire),
        })
        .collect();
    let wire = TxnWire {
        kind: "transactions",
        replica: replica_wire(&r.summary),
        last_stable_offset: r.last_stable_offset(),
        first_unstable_offset: t.first_unstable_offset(r.high_watermark),
        high_watermark: r.high_watermark,
        log_end_offset: t.log_end_offset,
        log_start_offset: t.log_start_offset,
        snapshot_offset: t.snapshot.as_ref().map(|s| s.offset),
        open,
        committed: t.committed,
        aborted: t
            .aborted
            .iter()
            .map(|(segment, a)| AbortedWire {
                segment: *segment,
                producer_id: a.producer_id,
                first_offset: a.first_offset,
                last_offset: a.last_offset,
                last_stable_offset: a.last_stable_offset,
            })
            .collect(),
        producers: t
            .producers
            .iter()
            .map(|e| ProducerWire {
                producer_id: e.producer_id,
                producer_epoch: e.producer_epoch,
                last_sequence: e.last_sequence,
                last_offset: e.last_offset,
                coordinator_epoch: e.coordinator_epoch,
                current_txn_first_offset: (e.current_txn_first_offset >= 0).then_some(e.current_txn_first_offset),
                last_timestamp: e.timestamp,
            })
            .collect(),
        findings: t.findings.iter().map(finding_wire).collect(),
        notes: &t.notes,
        clean: r.is_clean(),
    };
    line(out, &wire)
}

/// What the coordinator says of an open transaction: expected, not listed (hanging), or
/// unknowable without a transactional id.
fn coordinator_wire(v: &Verdict) -> CoordinatorWire<'_> {
    let (verdict, t) = match v {
        Verdict::Expected(t) => ("expected", Some(t)),
        Verdict::NotListed(t) => ("not_listed", Some(t)),
        Verdict::NoTransactionalId => ("no_transactional_id", None),
    };
    CoordinatorWire {
        verdict,
        hanging: v.hangs(),
        transactional_id: t.map(|t| t.transactional_id.as_str()),
        state: t.map(|t| t.state.as_str()),
    }
}

/// `klog txn DATA_DIR`: one row per partition that holds read_committed consumers back, has
/// findings or could not be read, then each such partition's open transactions.
/// `klog txn DATA_DIR...`: each dir's table and open transactions, then the coordinator's logs
/// read.
pub fn data_dir_text(out: &mut dyn Write, r: &DataDirsTxn, settings: &Settings) -> Result<()> {
    for d in &r.dirs {
        one_data_dir_text(out, d, r.coordinator_logs.len(), settings)?;
    }
    if !r.coordinator_logs.is_empty() {
        let mut from: Vec<&str> = r.coordinator_logs.iter().map(|(_, d)| d.as_str()).collect();
        from.dedup();
        out!(
            out,
            "transaction coordinator: {} transactional.id(s) in {} __transaction_state partition(s) (the furthest-along \
             replica of each, from {})",
            r.transactional_ids,
            r.coordinator_logs.len(),
            from.join(", ")
        )?;
    }
    Ok(())
}

fn one_data_dir_text(out: &mut dyn Write, r: &DataDirTxn, coordinator_logs: usize, settings: &Settings) -> Result<()> {
    let p = settings.palette();
    let listed: Vec<&(String, std::result::Result<TxnReport, String>)> = r
        .partitions
        .iter()
        .filter(|(_, rep)| match rep {
            Ok(t) => {
                t.last_stable_offset() < t.high_watermark || !t.is_clean() || !t.transactions.broker_open.is_empty()
            }
            Err(_) => true,
        })
        .collect();
    if !listed.is_empty() {
        partitions_table(out, &listed, settings)?;
    }
    for (name, rep) in &listed {
        let Ok(t) = rep else { continue };
        for (i, o) in t.transactions.broker_open.iter().enumerate() {
            open_transaction_text(out, name, t, o, t.coordinator.get(i), coordinator_logs, &p)?;
        }
        for f in &t.transactions.findings {
            out!(out, "{}", super::text::finding(&p, f))?;
        }
    }
    let held = r
        .partitions
        .iter()
        .filter(|(_, t)| t.as_ref().is_ok_and(|t| t.last_stable_offset() < t.high_watermark))
        .count();
    let findings: usize =
        r.partitions.iter().filter_map(|(_, t)| t.as_ref().ok()).map(|t| t.transactions.findings.len()).sum();
    let unreadable = r.partitions.iter().filter(|(_, t)| t.is_err()).count();
    let verdict = if r.is_clean() { p.good("clean") } else { p.bad(&format!("{findings} finding(s)")) };
    out!(
        out,
        "{}: {} partition(s), {held} holding read_committed consumers back, {unreadable} unreadable: {verdict}",
        r.dir,
        r.partitions.len()
    )
}

/// An open transaction of a partition in a data dir, with what its coordinator says of it and
/// the command that aborts it.
fn open_transaction_text(
    out: &mut dyn Write,
    name: &str,
    t: &TxnReport,
    o: &OpenTransaction,
    verdict: Option<&Verdict>,
    coordinator_logs: usize,
    p: &Palette,
) -> Result<()> {
    out!(out, "{name}: {} {}", p.warn("open"), open_line(o))?;
    let abort = abort_command(&t.summary.topic, t.summary.partition, o.first_offset);
    match verdict {
        Some(Verdict::Expected(c)) => out!(
            out,
            "  the coordinator expects it: transactional.id {} is {} at producer epoch {} with this partition \
             ({}, offset {}); it writes the marker on commit, abort or its {} ms timeout",
            escape::text(&c.transactional_id),
            escape::text(&c.state),
            c.producer_epoch,
            c.log,
            c.offset,
            c.timeout_ms
        )?,
        Some(Verdict::NotListed(c)) => out!(
            out,
            "  {}: transactional.id {} is {} and does not list this partition ({}, offset {}): no marker \
             will come; abort it:\n  {abort}",
            p.bad("HANGING"),
            escape::text(&c.transactional_id),
            escape::text(&c.state),
            c.log,
            c.offset
        )?,
        Some(Verdict::NoTransactionalId) => out!(
            out,
            "  {}: no transactional.id in the {} __transaction_state partition(s) read has producer id {} \
             (hanging if they are all of them: find-hanging asks every coordinator); abort it:\n  {abort}",
            p.bad("HANGING?"),
            coordinator_logs,
            o.producer_id
        )?,
        None => out!(out, "  {abort}")?,
    }
    Ok(())
}

/// The partitions worth a line: each one's LSO, HW and LEO, what is held back, its open
/// transactions and its verdict.
fn partitions_table(
    out: &mut dyn Write,
    listed: &[&(String, std::result::Result<TxnReport, String>)],
    settings: &Settings,
) -> Result<()> {
    use super::palette::Tone;
    use super::table::{right, Col, Grid};
    use comfy_table::Cell;
    let p = settings.palette();
    let mut t = Grid::new(
        settings,
        &[
            Col::Ident("partition"),
            Col::Keep("LSO"),
            Col::Keep("HW"),
            Col::Keep("LEO"),
            Col::Keep("held back"),
            Col::Keep("open"),
            Col::Verdict("verdict"),
        ],
    );
    for (name, rep) in listed {
        match rep {
            Ok(r) => t.add(vec![
                Cell::new(name),
                right(r.last_stable_offset()),
                right(r.high_watermark),
                right(r.transactions.log_end_offset),
                right((r.high_watermark - r.last_stable_offset()).max(0)),
                right(r.transactions.broker_open.len()),
                if r.is_clean() {
                    p.cell("clean", Tone::Good)
                } else {
                    p.cell(format!("{} finding(s)", r.transactions.findings.len()), Tone::Bad)
                },
            ]),
            Err(e) => t.add(vec![
                Cell::new(name),
                right("-"),
                right("-"),
                right("-"),
                right("-"),
                right("-"),
                p.cell(format!("unreadable: {e}"), Tone::Bad),
            ]),
        }
    }
    t.write(out)?;
    Ok(())
}

/// `klog txn DATA_DIR --json`: each partition's object (as the one-partition form), then a
/// summary line.
pub fn data_dir_json(out: &mut dyn Write, r: &DataDirsTxn) -> Result<()> {
    for d in &r.dirs {
        one_data_dir_json(out, d)?;
    }
    Ok(())
}

fn one_data_dir_json(out: &mut dyn Write, r: &DataDirTxn) -> Result<()> {
    #[derive(Serialize)]
    struct Unreadable<'a> {
        error: &'a str,
        partition: &'a str,
        #[serde(rename = "type")]
        kind: &'static str,
    }
    for (name, rep) in &r.partitions {
        match rep {
            Ok(t) => json(out, t)?,
            Err(e) => line(out, &Unreadable { error: e, partition: name, kind: "unreadable" })?,
        }
    }
    #[derive(Serialize)]
    struct Summary<'a> {
        #[serde(rename = "type")]
        kind: &'static str,
        dir: &'a str,
        partitions: usize,
        clean: bool,
    }
    line(out, &Summary { kind: "summary", dir: &r.dir, partitions: r.partitions.len(), clean: r.is_clean() })
}
