//! Renderers of the cluster view (`check`, `diff`, `recover --dry-run` over several brokers'
//! dirs): the brokers, where the leaders come from, one row per partition, then a block per
//! partition that needs a look (its replicas lined up, the acknowledged records its leader
//! lacks, and with no clean leader klog's advice and Kafka's choice with what each loses);
//! JSON as one object per line.

use super::json::{finding_json, line};
use super::palette::Tone;
use super::table::{right, Col, Grid};
use super::{text as plain, Settings};
use crate::commands::cluster::{
    AckedMissing, Candidate, ClusterCommand, ClusterView, LeaderSource, OffsetRange, PartitionView, ReplicaLine,
};
use crate::error::{IoContext, Result};
use comfy_table::Cell;
use serde_json::{json, Value};
use std::io::Write;

macro_rules! out {
    ($out:expr, $($arg:tt)*) => {
        writeln!($out, $($arg)*).at("<stdout>", "write")
    };
}

/// `broker 2` (or the dir) of a replica of `p`.
fn who(v: &ClusterView, p: &PartitionView, replica: usize) -> String {
    v.brokers[p.replicas[replica].broker].label()
}

fn ranges_text(ranges: &[OffsetRange]) -> String {
    let shown: Vec<String> = ranges
        .iter()
        .take(4)
        .map(|r| {
            if r.first_offset == r.last_offset {
                r.first_offset.to_string()
            } else {
                format!("{}..{}", r.first_offset, r.last_offset)
            }
        })
        .collect();
    let more = if ranges.len() > 4 { format!(" and {} more range(s)", ranges.len() - 4) } else { String::new() };
    format!("{}{more}", shown.join(", "))
}

/// `broker 1's offsets 5..9 (5 records, acked below its HW 10)`.
fn missing_text(v: &ClusterView, p: &PartitionView, m: &AckedMissing) -> String {
    format!(
        "{}'s offsets {} ({} record(s) below its HW {})",
        who(v, p, m.holder),
        ranges_text(&m.ranges),
        m.record_count(),
        m.high_watermark
    )
}

fn leader_text(v: &ClusterView, p: &PartitionView) -> String {
    let source = match (&p.leader_source, &p.registration) {
        (LeaderSource::Metadata { offset, snapshot_end_offset }, Some(reg)) => {
            let at = match (offset, snapshot_end_offset) {
                (Some(o), _) => format!("metadata offset {o}"),
                (None, Some(e)) => format!("metadata snapshot ending at {e}"),
                (None, None) => "metadata".into(),
            };
            let elr = if reg.elr.is_empty() { String::new() } else { format!(", ELR {:?}", reg.elr) };
            format!("from the {at}: leader {} epoch {}, ISR {:?}{elr}", reg.leader, reg.leader_epoch, reg.isr)
        }
        (LeaderSource::KlogState { leader_epoch: Some(e) }, _) => {
            format!("from klog's state: it runs as leader at epoch {e}")
        }
        (LeaderSource::KlogState { leader_epoch: None }, _) => "klog's state: none runs as leader".into(),
        _ => "assumed: highest latest leader epoch, then largest log end".into(),
    };
    match p.leader {
        Some(l) => format!("leader {} ({source})", who(v, p, l)),
        None => format!("no leader among the dirs ({source})"),
    }
}

fn verdict(p: &PartitionView) -> (String, Tone) {
    if !p.unreadable.is_empty() && p.replicas.is_empty() {
        return ("unreadable".into(), Tone::Bad);
    }
    if p.not_one_cluster {
        return ("NOT ONE CLUSTER".into(), Tone::Bad);
    }
    if p.no_clean_leader.is_some() {
        return ("NO CLEAN LEADER".into(), Tone::Bad);
    }
    let mut parts = Vec::new();
    let diverging = p.diverging().count();
    if diverging > 0 {
        parts.push(format!("{diverging} diverge"));
    }
    let ahead = p.replicas.iter().filter(|r| r.first_divergent_offset.is_none() && r.leader_lacks.is_some()).count();
    if ahead > 0 {
        parts.push(format!("{ahead} ahead of the leader"));
    }
    if p.acked_missing_count() > 0 {
        parts.push(format!("{} acked missing", p.acked_missing_count()));
    }
    if !p.unreadable.is_empty() {
        parts.push(format!("{} unreadable", p.unreadable.len()));
    }
    let findings: usize = p.replicas.iter().map(|r| r.findings.len()).sum();
    if findings > 0 {
        parts.push(format!("{findings} finding(s)"));
    }
    let lost: u64 =
        p.replicas.iter().filter_map(|r| r.restart.as_ref()?.as_ref().ok()).map(|r| r.acked_lost_count).sum();
    if lost > 0 {
        parts.push(format!("restart loses {lost} acked"));
    }
    if p.replicas.iter().any(|r| matches!(r.restart, Some(Err(_)))) {
        parts.push("restart refused".into());
    }
    if p.leader.is_none() && !p.replicas.is_empty() {
        parts.insert(0, "no leader".into());
    }
    if parts.is_empty() && p.replicas.len() == 1 {
        ("one replica".into(), Tone::Good)
    } else if parts.is_empty() {
        ("agree".into(), Tone::Good)
    } else {
        (parts.join(", "), Tone::Bad)
    }
}

fn candidate_text(v: &ClusterView, p: &PartitionView, c: &Candidate) -> Vec<String> {
    let mut lines = vec![format!("{} ({})", who(v, p, c.replica), c.why)];
    if c.loses.is_empty() {
        lines.push("it loses no acknowledged record".into());
    }
    for m in &c.loses {
        lines.push(format!("it loses {}", missing_text(v, p, m)));
    }
    lines
}

fn replicas_table(out: &mut dyn Write, v: &ClusterView, p: &PartitionView, settings: &Settings) -> Result<()> {
    let pal = settings.palette();
    let mut cols =
        vec![Col::Ident("replica"), Col::Keep("start"), Col::Keep("LEO"), Col::Keep("HW"), Col::Keep("epoch")];
    cols.push(Col::Verdict("against the leader"));
    match v.command {
        ClusterCommand::Check => cols.push(Col::Keep("findings")),
        ClusterCommand::Recover => cols.push(Col::Verdict("restart (dry run)")),
        ClusterCommand::Diff => {}
    }
    let mut t = Grid::new(settings, &cols);
    for (i, r) in p.replicas.iter().enumerate() {
        let name = if p.leader == Some(i) { format!("{} *", who(v, p, i)) } else { who(v, p, i) };
        let against = match (p.leader, r.first_divergent_offset) {
            (Some(l), _) if l == i => pal.cell("leader", Tone::Good),
            (None, _) => Cell::new("-"),
            (_, Some(d)) => pal.cell(format!("diverges at {d}"), Tone::Bad),
            (_, None) => match r.leader_lacks {
                Some((from, _)) => pal.cell(format!("ahead from {from}"), Tone::Bad),
                None => pal.cell("agrees", Tone::Good),
            },
        };
        let mut row = vec![
            Cell::new(name),
            right(r.log_start_offset),
            right(r.log_end_offset),
            r.high_watermark.map_or_else(|| right("-"), right),
            r.latest_leader_epoch.map_or_else(|| right("-"), right),
            against,
        ];
        match v.command {
            ClusterCommand::Check => row.push(right(r.findings.len())),
            ClusterCommand::Recover => row.push(restart_cell(&pal, r)),
            ClusterCommand::Diff => {}
        }
        t.add(row);
    }
    t.write(out)
}

fn restart_cell(pal: &super::palette::Palette, r: &ReplicaLine) -> Cell {
    match &r.restart {
        None => Cell::new("-"),
        Some(Err(_)) => pal.cell("refused (below)", Tone::Bad),
        Some(Ok(o)) if o.acked_lost_count > 0 => {
            pal.cell(format!("cut at {}, {} ACKED LOST", o.cut_offset, o.acked_lost_count), Tone::Bad)
        }
        Some(Ok(o)) if o.truncated_count > 0 => {
            pal.cell(format!("cut at {}, {} truncated", o.cut_offset, o.truncated_count), Tone::Warn)
        }
        Some(Ok(_)) => pal.cell("keeps all", Tone::Good),
    }
}

pub fn text(out: &mut dyn Write, v: &ClusterView, settings: &Settings) -> Result<()> {
    let pal = settings.palette();
    out!(
        out,
        "cluster {} of {} brokers' dirs: {} partition(s), {} need a look",
        v.command.name(),
        v.brokers.len(),
        v.partitions.len(),
        v.attention_count()
    )?;
    for b in &v.brokers {
        out!(
            out,
            "  {}: {} ({} partition(s), cluster.id {})",
            b.label(),
            b.dir,
            b.partition_count,
            b.cluster_id.as_deref().unwrap_or("none")
        )?;
    }
    for w in &v.warnings {
        out!(out, "{} {w}", pal.warn("warning"))?;
    }
    match &v.metadata {
        Some(m) => out!(
            out,
            "leaders: from the KRaft metadata log in {} (log end {}, {} records replayed{})",
            m.dir,
            m.log_end_offset,
            m.records_read,
            if m.unreadable_count > 0 { format!(", {} unreadable", m.unreadable_count) } else { String::new() }
        )
        .and_then(|()| match (&m.cluster_id, v.one_cluster()) {
            (Some(id), false) => out!(out, "  (for the replicas of cluster {id} only)"),
            _ => Ok(()),
        })?,
        None => out!(
            out,
            "leaders: no metadata log in any dir: the replica klog's state runs as leader (in klog's labs), else \
             the highest latest leader epoch, then the largest log end"
        )?,
    }
    let mut t = Grid::new(
        settings,
        &[
            Col::Ident("partition"),
            Col::Ident("leader"),
            Col::Keep("replicas"),
            Col::Keep("LEO"),
            Col::Verdict("verdict"),
        ],
    );
    for part in &v.partitions {
        match &part.outcome {
            Ok(p) => {
                let (text, tone) = verdict(p);
                let leader = p.leader.map_or_else(|| "none".to_string(), |l| who(v, p, l));
                let leo = p.leader.map_or_else(|| "-".to_string(), |l| p.replicas[l].log_end_offset.to_string());
                t.add(vec![
                    Cell::new(&part.partition),
                    Cell::new(leader),
                    right(p.replicas.len()),
                    right(leo),
                    pal.cell(text, tone),
                ]);
            }
            Err(why) => t.add(vec![
                Cell::new(&part.partition),
                Cell::new("-"),
                right("-"),
                right("-"),
                pal.cell(format!("unreadable: {why}"), Tone::Bad),
            ]),
        }
    }
    if !t.is_empty() {
        t.write(out)?;
    }
    for part in &v.partitions {
        let Ok(p) = &part.outcome else { continue };
        // A partition whose replicas are not of one cluster has nothing to line up (the
        // warnings above say why; the JSON lists its replicas).
        if !p.needs_attention() || p.not_one_cluster {
            continue;
        }
        out!(out, "\n{}: {}", pal.strong(&part.partition), leader_text(v, p))?;
        replicas_table(out, v, p, settings)?;
        for m in &p.acked_missing {
            out!(out, "{} {}", pal.bad("ACKED, NOT ON THE LEADER:"), missing_text(v, p, m))?;
        }
        if let (Some(e), None) = (&p.elected, &p.no_clean_leader) {
            out!(
                out,
                "Kafka already elected broker {} at {} (leader epoch {}): {}",
                e.node_id,
                e.at(),
                e.leader_epoch,
                e.how
            )?;
        }
        if let Some(n) = &p.no_clean_leader {
            out!(out, "{}", pal.bad("no clean leader left:"))?;
            for (i, l) in candidate_text(v, p, &n.advice).into_iter().enumerate() {
                out!(out, "{}{l}", if i == 0 { "  klog's advice: " } else { "    " })?;
            }
            match (&n.kafka, &n.kafka_none) {
                (Some(k), _) => {
                    // An election the metadata already records is said as done, not forecast.
                    let verb = if p.elected.is_some() { "  Kafka already elected " } else { "  Kafka would elect " };
                    for (i, l) in candidate_text(v, p, k).into_iter().enumerate() {
                        out!(out, "{}{l}", if i == 0 { verb } else { "    " })?;
                    }
                }
                (None, Some(why)) => out!(out, "  Kafka would elect no replica here: {why}")?,
                (None, None) => {}
            }
        }
        if p.no_clean_leader.is_none() && !p.clean_replicas.is_empty() {
            let clean: Vec<String> = p.clean_replicas.iter().map(|&i| who(v, p, i)).collect();
            out!(out, "a clean leader is left: {} hold(s) every replica's acknowledged records", clean.join(", "))?;
            if let Some(k) = &p.kafka_would_elect {
                for (i, l) in candidate_text(v, p, k).into_iter().enumerate() {
                    out!(out, "{}{l}", if i == 0 { "  Kafka would elect " } else { "    " })?;
                }
            }
            if let Some(why) = &p.kafka_none {
                out!(out, "  Kafka would elect no replica here: {why}")?;
            }
        }
        for (i, r) in p.replicas.iter().enumerate() {
            if let Some(Err(why)) = &r.restart {
                out!(out, "{} {}'s restart against the leader: {why}", pal.bad("refused"), who(v, p, i))?;
            }
        }
        for (b, why) in &p.unreadable {
            out!(out, "{} {}'s replica does not read: {why}", pal.bad("unreadable"), v.brokers[*b].label())?;
        }
        for r in &p.replicas {
            for f in &r.findings {
                out!(out, "{}", plain::finding(&pal, f))?;
            }
        }
        for n in &p.notes {
            out!(out, "{} {n}", pal.warn("note"))?;
        }
    }
    let attention = v.attention_count();
    let verdict = if attention == 0 {
        pal.good("every partition's replicas agree with its leader")
    } else {
        pal.bad(&format!("{attention} partition(s) need a look"))
    };
    out!(out, "\n{} partition(s) over {} brokers: {verdict}", v.partitions.len(), v.brokers.len())
}

fn range_json(r: &OffsetRange) -> Value {
    json!({"first_offset": r.first_offset, "last_offset": r.last_offset, "records": r.record_count})
}

fn missing_json(v: &ClusterView, p: &PartitionView, m: &AckedMissing) -> Value {
    let r = &p.replicas[m.holder];
    json!({
        "holder_node_id": r.node_id,
        "holder_dir": v.brokers[r.broker].dir,
        "high_watermark": m.high_watermark,
        "records": m.record_count(),
        "ranges": m.ranges.iter().map(range_json).collect::<Vec<_>>(),
    })
}

fn candidate_json(v: &ClusterView, p: &PartitionView, c: &Candidate) -> Value {
    let r = &p.replicas[c.replica];
    json!({
        "node_id": r.node_id,
        "dir": v.brokers[r.broker].dir,
        "why": c.why,
        "loses_records": c.loses.iter().map(AckedMissing::record_count).sum::<u64>(),
        "loses": c.loses.iter().map(|m| missing_json(v, p, m)).collect::<Vec<_>>(),
    })
}

/// Kafka's choice in one object, wherever the view found it: `node_id` (null: none, the partition
/// stays offline), `why`, and `elected` when the metadata already records the election (its
/// offset, leader epoch, whether it was unclean). Null when no election is in question.
fn kafka_choice_json(v: &ClusterView, p: &PartitionView) -> Value {
    let elected = p.elected.as_ref().map(|e| {
        json!({
            "node_id": e.node_id,
            "leader_epoch": e.leader_epoch,
            "metadata_offset": e.offset,
            "snapshot_end_offset": e.snapshot_end_offset,
            "how": e.how,
            "unclean": e.unclean,
        })
    });
    let (k, none) = match &p.no_clean_leader {
        Some(n) => (n.kafka.as_ref(), n.kafka_none.as_deref()),
        None => (p.kafka_would_elect.as_ref(), p.kafka_none.as_deref()),
    };
    match (k, none, &elected) {
        (Some(k), _, _) => json!({
            "node_id": p.replicas[k.replica].node_id,
            "dir": v.brokers[p.replicas[k.replica].broker].dir,
            "why": k.why,
            "elected": elected,
        }),
        (None, Some(why), _) => json!({"node_id": null, "why": why, "elected": elected}),
        (None, None, Some(_)) => json!({
            "node_id": p.elected.as_ref().map(|e| e.node_id),
            "why": p.elected.as_ref().map(|e| format!("already elected at {}: {}", e.at(), e.how)),
            "elected": elected,
        }),
        (None, None, None) => Value::Null,
    }
}

fn partition_json(v: &ClusterView, p: &PartitionView) -> Value {
    let leader = p.leader.map(|l| &p.replicas[l]);
    let source = match &p.leader_source {
        LeaderSource::Metadata { offset, snapshot_end_offset } => json!({
            "from": "metadata",
            "metadata_offset": offset,
            "snapshot_end_offset": snapshot_end_offset,
        }),
        LeaderSource::KlogState { leader_epoch } => json!({"from": "klog_state", "leader_epoch": leader_epoch}),
        LeaderSource::Assumed => {
            json!({"from": "assumed", "rule": "highest latest leader epoch, then largest log end"})
        }
    };
    let replicas: Vec<Value> = p
        .replicas
        .iter()
        .enumerate()
        .map(|(i, r)| {
            let mut o = json!({
                "node_id": r.node_id,
                "dir": v.brokers[r.broker].dir,
                "leader": p.leader == Some(i),
                "log_start_offset": r.log_start_offset,
                "log_end_offset": r.log_end_offset,
                "high_watermark": r.high_watermark,
                "latest_leader_epoch": r.latest_leader_epoch,
                "first_divergent_offset": r.first_divergent_offset,
                "leader_lacks": r.leader_lacks.map(|(first, last)| json!({"first_offset": first, "last_offset": last})),
            });
            if v.command == ClusterCommand::Check {
                o["findings"] = r.findings.iter().map(finding_json).collect();
            }
            if let Some(restart) = &r.restart {
                o["restart"] = match restart {
                    Ok(x) => json!({
                        "cut_offset": x.cut_offset,
                        "truncated": x.truncated_count,
                        "acked_lost": x.acked_lost_count,
                    }),
                    Err(why) => json!({"error": why}),
                };
            }
            o
        })
        .collect();
    json!({
        "type": "cluster_partition",
        "partition": p.partition,
        "needs_attention": p.needs_attention(),
        "not_one_cluster": p.not_one_cluster,
        "leader_node_id": leader.and_then(|l| l.node_id),
        "leader_dir": leader.map(|l| &v.brokers[l.broker].dir),
        "leader_source": source,
        "metadata": p.registration.as_ref().map(|r| json!({
            "leader": r.leader,
            "leader_epoch": r.leader_epoch,
            "partition_epoch": r.partition_epoch,
            "replicas": r.replicas,
            "isr": r.isr,
            "elr": r.elr,
            "last_known_elr": r.last_known_elr,
            "leader_recovery_state": r.leader_recovery_state,
        })),
        "replicas": replicas,
        "acked_missing_from_leader": p.acked_missing.iter().map(|m| missing_json(v, p, m)).collect::<Vec<_>>(),
        "no_clean_leader": p.no_clean_leader.as_ref().map(|n| json!({
            "advice": candidate_json(v, p, &n.advice),
            "kafka": n.kafka.as_ref().map(|k| candidate_json(v, p, k)),
            "kafka_none": n.kafka_none,
        })),
        "kafka_would_elect": p.kafka_would_elect.as_ref().map(|k| candidate_json(v, p, k)),
        "kafka_none": p.kafka_none,
        "kafka_choice": kafka_choice_json(v, p),
        "clean_replicas": p.clean_replicas.iter().map(|&i| json!({
            "node_id": p.replicas[i].node_id,
            "dir": v.brokers[p.replicas[i].broker].dir,
        })).collect::<Vec<_>>(),
        "unreadable": p.unreadable.iter().map(|(b, why)| json!({"dir": v.brokers[*b].dir, "error": why})).collect::<Vec<_>>(),
        "notes": p.notes,
    })
}

pub fn json(out: &mut dyn Write, v: &ClusterView) -> Result<()> {
    for b in &v.brokers {
        line(
            out,
            &json!({
                "type": "broker",
                "dir": b.dir,
                "node_id": b.node_id,
                "cluster_id": b.cluster_id,
                "partitions": b.partition_count,
            }),
        )?;
    }
    for w in &v.warnings {
        line(out, &json!({"type": "warning", "what": w}))?;
    }
    for part in &v.partitions {
        match &part.outcome {
            Ok(p) => line(out, &partition_json(v, p))?,
            Err(why) => line(out, &json!({"type": "cluster_partition", "partition": part.partition, "error": why}))?,
        }
    }
    line(
        out,
        &json!({
            "type": "summary",
            "command": v.command.name(),
            "brokers": v.brokers.len(),
            "one_cluster": v.one_cluster(),
            "leaders_from": v.metadata.as_ref().map_or("assumed", |_| "metadata"),
            "metadata_dir": v.metadata.as_ref().map(|m| &m.dir),
            "metadata_log_end_offset": v.metadata.as_ref().map(|m| m.log_end_offset),
            "partitions": v.partitions.len(),
            "partitions_needing_attention": v.attention_count(),
        }),
    )
}
