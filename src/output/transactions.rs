//! `klog txn`'s forms: the text report and one JSON object (serialize-only wire structs).

use super::json::{finding_json, line, replica_json};
use super::{table, Settings};
use crate::commands::txn::TxnReport;
use crate::error::{IoContext, Result};
use crate::log::transactions::OpenTransaction;
use serde::Serialize;
use std::io::Write;

macro_rules! out {
    ($out:expr, $($arg:tt)*) => {
        writeln!($out, $($arg)*).at("<stdout>", "write")
    };
}

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
    let source = match (&t.snapshot, r.loads) {
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
    };
    out!(out, "producer state: {source}")?;
    if t.broker_open.is_empty() {
        out!(out, "open transactions: none")?;
    }
    for o in &t.broker_open {
        out!(out, "{} {}", p.warn("open"), open_line(o))?;
        if !t.open.iter().any(|l| l.producer_id == o.producer_id && l.first_offset == o.first_offset) {
            out!(out, "  the log does not hold it open: only the producer snapshot does (see the finding)")?;
        }
        out!(
            out,
            "  if the coordinator no longer knows it (kafka-transactions.sh find-hanging lists it), abort it:\n  {}",
            abort_command(&r.summary.topic, r.summary.partition, o.first_offset)
        )?;
    }
    for o in t.open.iter().filter(|l| !t.broker_open.iter().any(|b| b.first_offset == l.first_offset)) {
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
    replica: serde_json::Value,
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
    findings: Vec<serde_json::Value>,
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
        .map(|(o, c)| OpenWire {
            producer_id: o.producer_id,
            producer_epoch: o.producer_epoch,
            first_offset: o.first_offset,
            last_offset: o.last_offset,
            batches: o.batches,
            records: o.records,
            first_timestamp: o.first_timestamp,
            last_timestamp: o.last_timestamp,
            in_log: t.open.iter().any(|l| l.producer_id == o.producer_id && l.first_offset == o.first_offset),
            abort_command: c,
        })
        .collect();
    let wire = TxnWire {
        kind: "transactions",
        replica: replica_json(&r.summary),
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
        findings: t.findings.iter().map(finding_json).collect(),
        notes: &t.notes,
        clean: r.is_clean(),
    };
    line(out, &wire)
}
