//! `klog history` rendered: per partition, one line per change the metadata recorded (where,
//! when, which record, leader, leader epoch, ISR, ELR, last known ELR, replicas, what changed),
//! then each replica's epoch cache and batch stamps with what disagrees with the timeline; or
//! JSON lines, one object per change and per replica, each with a `type`.

use crate::commands::history::{HistoryReport, ReplicaEpochs};
use crate::error::{IoContext, Result};
use crate::escape;
use crate::output::iso_timestamp;
use crate::partition_registration::{MetadataPosition, PartitionChange};
use serde_json::json;
use std::io::Write;

fn list(ids: &[i32]) -> String {
    let ids: Vec<String> = ids.iter().map(i32::to_string).collect();
    format!("[{}]", ids.join(","))
}

fn position(p: MetadataPosition) -> String {
    match p {
        MetadataPosition::Log(o) => o.to_string(),
        MetadataPosition::Snapshot { end_offset } => format!("snap@{end_offset}"),
    }
}

fn change_cells(c: &PartitionChange) -> Vec<String> {
    let mut cells = vec![position(c.position), iso_timestamp(c.timestamp), c.record.to_string()];
    match &c.after {
        Some(r) => cells.extend([
            r.leader.to_string(),
            r.leader_epoch.to_string(),
            list(&r.isr),
            list(&r.elr),
            list(&r.last_known_elr),
            list(&r.replicas),
        ]),
        None => cells.extend(std::iter::repeat_n("-".to_string(), 6)),
    }
    cells.push(c.changed.join(","));
    cells
}

fn replica_line(r: &ReplicaEpochs) -> String {
    let id = r.replica_id.map_or("?".to_string(), |i| i.to_string());
    let cache: Vec<String> = r.cache.iter().map(|(e, o)| format!("{e}@{o}")).collect();
    let stamped: Vec<String> = r.stamped.iter().map(|(e, n)| format!("{e}:{n}")).collect();
    let mut line = format!(
        "  replica {id} ({}): epoch cache [{}], batch stamps [{}]",
        escape::text(&r.log_dir.display().to_string()),
        cache.join(" "),
        stamped.join(" ")
    );
    if !r.never_granted.is_empty() {
        line.push_str(&format!("; epochs the controller never granted: {}", list(&r.never_granted)));
    }
    if !r.led_but_not_cached.is_empty() {
        line.push_str(&format!("; led at epochs beyond its epoch cache: {}", list(&r.led_but_not_cached)));
    }
    line
}

/// The timeline as text: aligned columns per partition.
pub fn history_text(out: &mut dyn Write, report: &HistoryReport) -> Result<()> {
    let w = |out: &mut dyn Write, s: &str| writeln!(out, "{s}").at("<stdout>", "write");
    let snapshot = report.snapshot.as_ref().map_or(String::new(), |(p, o)| {
        format!(", snapshot {} (end offset {o}) first", escape::text(&p.display().to_string()))
    });
    w(
        out,
        &format!(
            "metadata {}{snapshot}: {} records read, {} unreadable, {} partitions",
            escape::text(&report.metadata_dir.display().to_string()),
            report.records_read,
            report.unreadable.len(),
            report.partitions.len()
        ),
    )?;
    for u in &report.unreadable {
        w(out, &format!("  unreadable record at {}: {}", position(u.position), escape::text(&u.what)))?;
    }
    let header: Vec<String> =
        ["offset", "timestamp", "record", "leader", "epoch", "isr", "elr", "last elr", "replicas", "changed"]
            .iter()
            .map(|s| s.to_string())
            .collect();
    for p in &report.partitions {
        w(out, "")?;
        w(out, &escape::text(&p.partition))?;
        let rows: Vec<Vec<String>> =
            std::iter::once(header.clone()).chain(p.changes.iter().map(change_cells)).collect();
        let widths: Vec<usize> =
            (0..header.len()).map(|i| rows.iter().map(|r| r[i].chars().count()).max().unwrap_or(0)).collect();
        for r in &rows {
            let cells: Vec<String> = r
                .iter()
                .zip(&widths)
                .enumerate()
                .map(|(i, (c, wd))| if i == r.len() - 1 { c.clone() } else { format!("{c:<wd$}") })
                .collect();
            w(out, format!("  {}", cells.join("  ")).trim_end())?;
        }
        for r in &p.replicas {
            w(out, &replica_line(r))?;
        }
    }
    Ok(())
}

fn position_json(p: MetadataPosition) -> serde_json::Value {
    match p {
        MetadataPosition::Log(o) => json!({"offset": o}),
        MetadataPosition::Snapshot { end_offset } => json!({"snapshot_end_offset": end_offset}),
    }
}

/// The timeline as JSON lines.
pub fn history_json(out: &mut dyn Write, report: &HistoryReport) -> Result<()> {
    let line = |out: &mut dyn Write, v: serde_json::Value| crate::output::json::line(out, &v);
    line(
        out,
        json!({
            "type": "history",
            "metadata_dir": report.metadata_dir.display().to_string(),
            "snapshot": report.snapshot.as_ref().map(|(p, o)| json!({"path": p.display().to_string(), "end_offset": o})),
            "records_read": report.records_read,
            "partitions": report.partitions.len(),
        }),
    )?;
    for u in &report.unreadable {
        let mut v = json!({"type": "unreadable_metadata_record", "what": u.what});
        v.as_object_mut().unwrap().extend(position_json(u.position).as_object().cloned().unwrap_or_default());
        line(out, v)?;
    }
    for p in &report.partitions {
        for c in &p.changes {
            let mut v = json!({
                "type": "partition_change",
                "partition": p.partition,
                "timestamp": c.timestamp,
                "record": c.record,
                "changed": c.changed,
            });
            let o = v.as_object_mut().unwrap();
            o.extend(position_json(c.position).as_object().cloned().unwrap_or_default());
            if let Some(r) = &c.after {
                o.extend(
                    json!({
                        "leader": r.leader,
                        "leader_epoch": r.leader_epoch,
                        "partition_epoch": r.partition_epoch,
                        "isr": r.isr,
                        "elr": r.elr,
                        "last_known_elr": r.last_known_elr,
                        "replicas": r.replicas,
                        "leader_recovery_state": r.leader_recovery_state,
                    })
                    .as_object()
                    .cloned()
                    .unwrap_or_default(),
                );
            }
            line(out, v)?;
        }
        for r in &p.replicas {
            line(
                out,
                json!({
                    "type": "replica_epochs",
                    "partition": p.partition,
                    "log_dir": r.log_dir.display().to_string(),
                    "replica_id": r.replica_id,
                    "epoch_cache": r.cache.iter().map(|(e, o)| json!({"leader_epoch": e, "start_offset": o})).collect::<Vec<_>>(),
                    "batch_stamps": r.stamped.iter().map(|(e, n)| json!({"leader_epoch": e, "records": n})).collect::<Vec<_>>(),
                    "never_granted": r.never_granted,
                    "led_but_not_cached": r.led_but_not_cached,
                }),
            )?;
        }
    }
    Ok(())
}
