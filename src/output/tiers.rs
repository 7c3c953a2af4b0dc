//! `check`'s tiered section: for data dirs holding `__remote_log_metadata` (or with
//! `--remote-dir`), each tiered partition's log start and local log start in each dir beside its
//! remote segments, then the findings across the tiers and the notes (`klog remote` has the
//! whole table). Or JSON lines: `tiered_partition`, `tiered_finding`, `tiered_note`,
//! `tiered_summary`.

use crate::commands::remote::RemoteReport;
use crate::error::{IoContext, Result};
use crate::escape;
use crate::output::json::{line, Shown};
use crate::output::table::{right, Col, Grid};
use crate::output::Settings;
use comfy_table::Cell;
use serde::Serialize;
use std::io::Write;
use std::path::Path;

fn opt(o: Option<i64>) -> String {
    o.map_or("-".into(), |o| o.to_string())
}

/// One row per tiered partition and data dir: (partition, dir, node id, log start, local log
/// start, remote segment count, first remote offset, last remote offset).
type Row<'a> = (String, &'a Path, Option<i32>, Option<i64>, Option<i64>, usize, Option<i64>, Option<i64>);

fn rows(r: &RemoteReport) -> Vec<Row<'_>> {
    let mut out = Vec::new();
    for tp in &r.partitions {
        let Some(p) = r.metadata.fold.partitions.get(&tp.partition) else { continue };
        let table = p.table();
        let first = table.iter().map(|s| s.start_offset).min();
        let last = table.iter().map(|s| s.end_offset).max();
        for side in &tp.local {
            out.push((
                tp.partition.dir_name(),
                side.data_dir.as_path(),
                side.node_id,
                side.log_start_offset,
                side.local_log_start_offset,
                table.len(),
                first,
                last,
            ));
        }
    }
    out
}

pub fn text(out: &mut dyn Write, r: &RemoteReport, settings: &Settings) -> Result<()> {
    let p = settings.palette();
    let w = |out: &mut dyn Write, s: &str| writeln!(out, "{s}").at("<stdout>", "write");
    let m = &r.metadata;
    let storage = r.storage.as_ref().map_or(String::new(), |s| {
        format!(
            "; remote storage {}: {} fileset(s) checked",
            escape::text(&s.root.display().to_string()),
            s.filesets.len()
        )
    });
    w(out, "")?;
    w(
        out,
        &format!(
            "tiered storage: {} partition(s) with remote segments; __remote_log_metadata {} record(s), {} event(s) \
             applied{storage}",
            r.partitions.len(),
            m.records_read(),
            m.fold.events_applied
        ),
    )?;
    let mut grid = Grid::new(
        settings,
        &[
            Col::Ident("partition"),
            Col::Ident("broker"),
            Col::Keep("log start"),
            Col::Keep("local log start"),
            Col::Keep("remote segments"),
            Col::Keep("remote offsets"),
        ],
    );
    for (name, dir, node, start, local, count, first, last) in rows(r) {
        // The broker by its node id (`meta.properties`), as the cluster view names it; a dir
        // without one by its path.
        let dir_name = node.map_or_else(|| dir.display().to_string(), |n| format!("broker {n}"));
        let range = match (first, last) {
            (Some(a), Some(b)) => format!("{a}..{b}"),
            _ => "-".into(),
        };
        grid.add(vec![
            Cell::new(escape::text(&name)),
            Cell::new(escape::text(&dir_name)),
            right(opt(start)),
            right(opt(local)),
            right(count),
            right(range),
        ]);
    }
    if !grid.is_empty() {
        grid.write(out)?;
    }
    for f in r.findings() {
        let at = f.path.as_ref().map_or(String::new(), |p| format!("{}: ", escape::text(&p.display().to_string())));
        w(out, &format!("{} {}: {at}{}", p.bad("finding"), f.kind, escape::text(&f.what)))?;
    }
    for n in r.notes() {
        w(out, &format!("{} {}: {}", p.warn("note"), n.kind, escape::text(&n.what)))?;
    }
    let n = r.finding_count();
    w(
        out,
        &if n == 0 {
            format!("across the tiers: {}", p.good("clean"))
        } else {
            format!("across the tiers: {}", p.bad(&format!("{n} finding(s)")))
        },
    )
}

#[derive(Serialize)]
struct PartitionWire<'a> {
    #[serde(rename = "type")]
    kind: &'static str,
    partition: &'a str,
    data_dir: Shown<'a>,
    node_id: Option<i32>,
    log_start_offset: Option<i64>,
    local_log_start_offset: Option<i64>,
    remote_segment_count: usize,
    remote_start_offset: Option<i64>,
    remote_end_offset: Option<i64>,
}

#[derive(Serialize)]
struct FindingWire<'a> {
    #[serde(rename = "type")]
    kind: &'static str,
    finding: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    path: Option<Shown<'a>>,
    what: &'a str,
}

#[derive(Serialize)]
struct SummaryWire {
    #[serde(rename = "type")]
    kind: &'static str,
    tiered_partition_count: usize,
    records_read: u64,
    filesets_count: Option<usize>,
    finding_count: usize,
    note_count: usize,
}

pub fn json(out: &mut dyn Write, r: &RemoteReport) -> Result<()> {
    for (name, dir, node, start, local, count, first, last) in rows(r) {
        let wire = PartitionWire {
            kind: "tiered_partition",
            partition: &name,
            data_dir: Shown(dir),
            node_id: node,
            log_start_offset: start,
            local_log_start_offset: local,
            remote_segment_count: count,
            remote_start_offset: first,
            remote_end_offset: last,
        };
        line(out, &wire)?;
    }
    for f in &r.findings() {
        line(
            out,
            &FindingWire { kind: "tiered_finding", finding: f.kind, path: f.path.as_deref().map(Shown), what: &f.what },
        )?;
    }
    let notes = r.notes();
    for n in &notes {
        line(
            out,
            &FindingWire {
                kind: "tiered_note",
                finding: n.kind,
                path: n.data_dir.as_deref().map(Shown),
                what: &n.what,
            },
        )?;
    }
    line(
        out,
        &SummaryWire {
            kind: "tiered_summary",
            tiered_partition_count: r.partitions.len(),
            records_read: r.metadata.records_read(),
            filesets_count: r.storage.as_ref().map(|s| s.filesets.len()),
            finding_count: r.finding_count(),
            note_count: notes.len(),
        },
    )
}
