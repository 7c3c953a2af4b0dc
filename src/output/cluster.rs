//! Renderers of the cluster view (`check`, `diff`, `recover --dry-run` over several brokers'
//! dirs): the brokers, where the leaders come from, one row per partition, then a block per
//! partition that needs a look (its replicas lined up, the acknowledged records its leader
//! lacks, and with no clean leader klog's advice and Kafka's choice with what each loses);
//! JSON as one object per line.

use super::json::{finding_wire, line, FindingWire};
use super::palette::{Palette, Tone};
use super::table::{right, Col, Grid};
use super::{text as plain, Settings};
use crate::commands::cluster::{
    AckedMissing, BrokerStart, Candidate, ClusterCommand, ClusterView, LeaderSource, OffsetRange, PartitionView,
    ReplicaLine,
};
use crate::error::Result;
use comfy_table::Cell;
use serde::Serialize;
use std::borrow::Cow;
use std::io::Write;

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

/// The LEO column: the leader's log end, or with no leader lined up (replicas of brokers that
/// are not one cluster, or none leads) each replica's, in the brokers' order (`470/0/12`).
fn leo_cell(p: &PartitionView) -> String {
    match p.leader {
        Some(l) => p.replicas[l].log_end_offset.to_string(),
        None if p.replicas.is_empty() => "-".to_string(),
        None => p.replicas.iter().map(|r| r.log_end_offset.to_string()).collect::<Vec<_>>().join("/"),
    }
}

/// `recover --dry-run`: one verdict line per broker, whether it would start on its dir.
fn start_lines(out: &mut dyn Write, v: &ClusterView, settings: &Settings) -> Result<()> {
    let pal = settings.palette();
    for (b, start) in v.brokers.iter().zip(&v.starts) {
        match start {
            BrokerStart::Starts { log_count, cut_count, bytes_removed } => out!(
                out,
                "{}: its load reads {log_count} log(s), cuts {cut_count}, removes {bytes_removed} bytes ({})",
                pal.good(&format!("{} would start", b.label())),
                b.dir
            )?,
            BrokerStart::WouldNotStart(why) => out!(
                out,
                "{}: {why}; what to do: klog recover --dry-run {} (on a copy) says what would make it start",
                pal.bad(&format!("{} would NOT start", b.label())),
                b.dir
            )?,
            BrokerStart::Running { partition_count } => out!(
                out,
                "{} is running ({partition_count} partition(s) per klog's state): nothing to start",
                b.label()
            )?,
            BrokerStart::Unknown(why) => {
                out!(out, "{}: {why}", pal.bad(&format!("{}: no start-up forecast", b.label())))?
            }
        }
    }
    Ok(())
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
    header_text(out, v, &pal)?;
    partitions_table(out, v, settings)?;
    for part in &v.partitions {
        if let Ok(p) = &part.outcome {
            partition_text(out, v, &part.partition, p, settings)?;
        }
    }
    if !v.starts.is_empty() {
        out!(out, "")?;
        start_lines(out, v, settings)?;
    }
    let attention = v.attention_count();
    let verdict = if attention == 0 {
        pal.good("every partition's replicas agree with its leader")
    } else {
        pal.bad(&format!("{attention} partition(s) need a look"))
    };
    out!(out, "\n{} partition(s) over {} brokers: {verdict}", v.partitions.len(), v.brokers.len())
}

/// The command, the brokers' dirs, the warnings, and where the leaders come from.
fn header_text(out: &mut dyn Write, v: &ClusterView, pal: &Palette) -> Result<()> {
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
    Ok(())
}

/// One line per partition: its leader, its replicas, its LEO, its verdict.
fn partitions_table(out: &mut dyn Write, v: &ClusterView, settings: &Settings) -> Result<()> {
    let pal = settings.palette();
    let unled = |part: &crate::commands::data_dir::PartitionOutcome<PartitionView>| {
        part.outcome.as_ref().is_ok_and(|p| p.leader.is_none() && p.replicas.len() > 1)
    };
    if v.partitions.iter().any(unled) {
        out!(out, "LEO: the leader's; where no leader is lined up, each replica's, in the brokers' order above")?;
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
                let leo = leo_cell(p);
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
    Ok(())
}

/// A partition that needs a look, in detail: its replicas, the acknowledged records its leader
/// misses, who could lead, and what each replica's restart, findings and notes say.
fn partition_text(
    out: &mut dyn Write,
    v: &ClusterView,
    partition: &str,
    p: &PartitionView,
    settings: &Settings,
) -> Result<()> {
    let pal = settings.palette();
    // A partition whose replicas are not of one cluster has nothing to line up (the
    // warnings above say why; the JSON lists its replicas).
    if !p.needs_attention() || p.not_one_cluster {
        return Ok(());
    }
    out!(out, "\n{}: {}", pal.strong(partition), leader_text(v, p))?;
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
    leader_left_text(out, v, p, &pal)?;
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
    Ok(())
}

/// Whether a clean leader is left, klog's advice and whom Kafka would elect (or elected).
fn leader_left_text(out: &mut dyn Write, v: &ClusterView, p: &PartitionView, pal: &Palette) -> Result<()> {
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
    Ok(())
}

#[derive(Serialize)]
struct RangeWire {
    first_offset: i64,
    last_offset: i64,
    records: u64,
}

fn range_wire(r: &OffsetRange) -> RangeWire {
    RangeWire { first_offset: r.first_offset, last_offset: r.last_offset, records: r.record_count }
}

/// Acknowledged records a replica holds and the leader lacks.
#[derive(Serialize)]
struct MissingWire<'a> {
    high_watermark: i64,
    holder_dir: &'a str,
    holder_node_id: Option<i32>,
    ranges: Vec<RangeWire>,
    records: u64,
}

fn missing_wire<'a>(v: &'a ClusterView, p: &'a PartitionView, m: &'a AckedMissing) -> MissingWire<'a> {
    let r = &p.replicas[m.holder];
    MissingWire {
        high_watermark: m.high_watermark,
        holder_dir: &v.brokers[r.broker].dir,
        holder_node_id: r.node_id,
        ranges: m.ranges.iter().map(range_wire).collect(),
        records: m.record_count(),
    }
}

#[derive(Serialize)]
struct CandidateWire<'a> {
    dir: &'a str,
    loses: Vec<MissingWire<'a>>,
    loses_records: u64,
    node_id: Option<i32>,
    why: &'a str,
}

fn candidate_wire<'a>(v: &'a ClusterView, p: &'a PartitionView, c: &'a Candidate) -> CandidateWire<'a> {
    let r = &p.replicas[c.replica];
    CandidateWire {
        dir: &v.brokers[r.broker].dir,
        loses: c.loses.iter().map(|m| missing_wire(v, p, m)).collect(),
        loses_records: c.loses.iter().map(AckedMissing::record_count).sum::<u64>(),
        node_id: r.node_id,
        why: &c.why,
    }
}

#[derive(Serialize)]
struct ElectedWire<'a> {
    how: &'a str,
    leader_epoch: i32,
    metadata_offset: Option<i64>,
    node_id: i32,
    snapshot_end_offset: Option<i64>,
    unclean: bool,
}

/// Kafka's choice in one object, wherever the view found it: `node_id` (null: none, the partition
/// stays offline), `why`, and `elected` when the metadata already records the election (its
/// offset, leader epoch, whether it was unclean). Null when no election is in question.
#[derive(Serialize)]
struct KafkaChoiceWire<'a> {
    #[serde(skip_serializing_if = "Option::is_none")]
    dir: Option<&'a str>,
    elected: Option<ElectedWire<'a>>,
    node_id: Option<i32>,
    why: Option<Cow<'a, str>>,
}

fn kafka_choice_wire<'a>(v: &'a ClusterView, p: &'a PartitionView) -> Option<KafkaChoiceWire<'a>> {
    let elected = p.elected.as_ref().map(|e| ElectedWire {
        how: &e.how,
        leader_epoch: e.leader_epoch,
        metadata_offset: e.offset,
        node_id: e.node_id,
        snapshot_end_offset: e.snapshot_end_offset,
        unclean: e.unclean,
    });
    let (k, none) = match &p.no_clean_leader {
        Some(n) => (n.kafka.as_ref(), n.kafka_none.as_deref()),
        None => (p.kafka_would_elect.as_ref(), p.kafka_none.as_deref()),
    };
    match (k, none, &p.elected) {
        (Some(k), _, _) => Some(KafkaChoiceWire {
            dir: Some(&v.brokers[p.replicas[k.replica].broker].dir),
            elected,
            node_id: p.replicas[k.replica].node_id,
            why: Some(Cow::Borrowed(&k.why)),
        }),
        (None, Some(why), _) => {
            Some(KafkaChoiceWire { dir: None, elected, node_id: None, why: Some(Cow::Borrowed(why)) })
        }
        (None, None, Some(e)) => Some(KafkaChoiceWire {
            dir: None,
            elected,
            node_id: Some(e.node_id),
            why: Some(Cow::Owned(format!("already elected at {}: {}", e.at(), e.how))),
        }),
        (None, None, None) => None,
    }
}

/// Where the partition's leader comes from: `metadata`, `klog_state` or `assumed`.
#[derive(Serialize)]
struct LeaderSourceWire {
    from: &'static str,
    /// `null` when klog's state names no running leader; absent for other sources.
    #[serde(skip_serializing_if = "Option::is_none")]
    leader_epoch: Option<Option<i32>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    metadata_offset: Option<Option<i64>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    rule: Option<&'static str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    snapshot_end_offset: Option<Option<i64>>,
}

#[derive(Serialize)]
struct LeaderLacksWire {
    first_offset: i64,
    last_offset: i64,
}

/// A restart's forecast for one replica, or why there is none.
#[derive(Serialize)]
#[serde(untagged)]
enum RestartWire<'a> {
    Planned { acked_lost: u64, cut_offset: i64, truncated: u64 },
    Refused { error: &'a str },
}

#[derive(Serialize)]
struct ReplicaWire<'a> {
    dir: &'a str,
    /// Only in `check`.
    #[serde(skip_serializing_if = "Option::is_none")]
    findings: Option<Vec<FindingWire<'a>>>,
    first_divergent_offset: Option<i64>,
    high_watermark: Option<i64>,
    latest_leader_epoch: Option<i32>,
    leader: bool,
    leader_lacks: Option<LeaderLacksWire>,
    log_end_offset: i64,
    log_start_offset: i64,
    node_id: Option<i32>,
    /// Only in `recover`.
    #[serde(skip_serializing_if = "Option::is_none")]
    restart: Option<RestartWire<'a>>,
}

#[derive(Serialize)]
struct RegistrationWire<'a> {
    elr: &'a [i32],
    isr: &'a [i32],
    last_known_elr: &'a [i32],
    leader: i32,
    leader_epoch: i32,
    leader_recovery_state: i8,
    partition_epoch: i32,
    replicas: &'a [i32],
}

#[derive(Serialize)]
struct NoCleanLeaderWire<'a> {
    advice: CandidateWire<'a>,
    kafka: Option<CandidateWire<'a>>,
    kafka_none: Option<&'a str>,
}

#[derive(Serialize)]
struct DirNodeWire<'a> {
    dir: &'a str,
    node_id: Option<i32>,
}

#[derive(Serialize)]
struct DirErrorWire<'a> {
    dir: &'a str,
    error: &'a str,
}

#[derive(Serialize)]
struct PartitionWire<'a> {
    acked_missing_from_leader: Vec<MissingWire<'a>>,
    clean_replicas: Vec<DirNodeWire<'a>>,
    kafka_choice: Option<KafkaChoiceWire<'a>>,
    kafka_none: Option<&'a str>,
    kafka_would_elect: Option<CandidateWire<'a>>,
    leader_dir: Option<&'a str>,
    leader_node_id: Option<i32>,
    leader_source: LeaderSourceWire,
    metadata: Option<RegistrationWire<'a>>,
    needs_attention: bool,
    no_clean_leader: Option<NoCleanLeaderWire<'a>>,
    not_one_cluster: bool,
    notes: &'a [String],
    partition: &'a str,
    replicas: Vec<ReplicaWire<'a>>,
    #[serde(rename = "type")]
    kind: &'static str,
    unreadable: Vec<DirErrorWire<'a>>,
}

fn partition_wire<'a>(v: &'a ClusterView, p: &'a PartitionView) -> PartitionWire<'a> {
    let leader = p.leader.map(|l| &p.replicas[l]);
    let leader_source = leader_source_wire(&p.leader_source);
    let replicas = p.replicas.iter().enumerate().map(|(i, r)| replica_wire(v, p, i, r)).collect();
    PartitionWire {
        acked_missing_from_leader: p.acked_missing.iter().map(|m| missing_wire(v, p, m)).collect(),
        clean_replicas: p
            .clean_replicas
            .iter()
            .map(|&i| DirNodeWire { dir: &v.brokers[p.replicas[i].broker].dir, node_id: p.replicas[i].node_id })
            .collect(),
        kafka_choice: kafka_choice_wire(v, p),
        kafka_none: p.kafka_none.as_deref(),
        kafka_would_elect: p.kafka_would_elect.as_ref().map(|k| candidate_wire(v, p, k)),
        leader_dir: leader.map(|l| v.brokers[l.broker].dir.as_str()),
        leader_node_id: leader.and_then(|l| l.node_id),
        leader_source,
        metadata: p.registration.as_ref().map(|r| RegistrationWire {
            elr: &r.elr,
            isr: &r.isr,
            last_known_elr: &r.last_known_elr,
            leader: r.leader,
            leader_epoch: r.leader_epoch,
            leader_recovery_state: r.leader_recovery_state,
            partition_epoch: r.partition_epoch,
            replicas: &r.replicas,
        }),
        needs_attention: p.needs_attention(),
        no_clean_leader: p.no_clean_leader.as_ref().map(|n| NoCleanLeaderWire {
            advice: candidate_wire(v, p, &n.advice),
            kafka: n.kafka.as_ref().map(|k| candidate_wire(v, p, k)),
            kafka_none: n.kafka_none.as_deref(),
        }),
        not_one_cluster: p.not_one_cluster,
        notes: &p.notes,
        partition: &p.partition,
        replicas,
        kind: "cluster_partition",
        unreadable: p.unreadable.iter().map(|(b, why)| DirErrorWire { dir: &v.brokers[*b].dir, error: why }).collect(),
    }
}

/// Where the leader comes from: the metadata log, klog's state, or klog's assumption.
fn leader_source_wire(source: &LeaderSource) -> LeaderSourceWire {
    let no_source =
        LeaderSourceWire { from: "", leader_epoch: None, metadata_offset: None, rule: None, snapshot_end_offset: None };
    match source {
        LeaderSource::Metadata { offset, snapshot_end_offset } => LeaderSourceWire {
            from: "metadata",
            metadata_offset: Some(*offset),
            snapshot_end_offset: Some(*snapshot_end_offset),
            ..no_source
        },
        LeaderSource::KlogState { leader_epoch } => {
            LeaderSourceWire { from: "klog_state", leader_epoch: Some(*leader_epoch), ..no_source }
        }
        LeaderSource::Assumed => LeaderSourceWire {
            from: "assumed",
            rule: Some("highest latest leader epoch, then largest log end"),
            ..no_source
        },
    }
}

/// One replica of a partition, as the JSON line lists it.
fn replica_wire<'a>(v: &'a ClusterView, p: &'a PartitionView, i: usize, r: &'a ReplicaLine) -> ReplicaWire<'a> {
    ReplicaWire {
        dir: &v.brokers[r.broker].dir,
        findings: (v.command == ClusterCommand::Check).then(|| r.findings.iter().map(finding_wire).collect()),
        first_divergent_offset: r.first_divergent_offset,
        high_watermark: r.high_watermark,
        latest_leader_epoch: r.latest_leader_epoch,
        leader: p.leader == Some(i),
        leader_lacks: r.leader_lacks.map(|(first_offset, last_offset)| LeaderLacksWire { first_offset, last_offset }),
        log_end_offset: r.log_end_offset,
        log_start_offset: r.log_start_offset,
        node_id: r.node_id,
        restart: r.restart.as_ref().map(|restart| match restart {
            Ok(x) => RestartWire::Planned {
                acked_lost: x.acked_lost_count,
                cut_offset: x.cut_offset,
                truncated: x.truncated_count,
            },
            Err(why) => RestartWire::Refused { error: why },
        }),
    }
}

#[derive(Serialize)]
struct BrokerWire<'a> {
    cluster_id: Option<&'a str>,
    dir: &'a str,
    node_id: Option<i32>,
    partitions: usize,
    /// Only in `recover`: whether the broker would start on its dir.
    #[serde(skip_serializing_if = "Option::is_none")]
    start: Option<StartWire<'a>>,
    #[serde(rename = "type")]
    kind: &'static str,
}

/// `{"outcome":"starts","logs":54,"logs_cut":0,"bytes_removed":0}`, `{"outcome":"refuses",
/// "error":...}` or `{"outcome":"unknown","error":...}`.
#[derive(Serialize)]
struct StartWire<'a> {
    #[serde(skip_serializing_if = "Option::is_none")]
    bytes_removed: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    error: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    logs: Option<usize>,
    #[serde(skip_serializing_if = "Option::is_none")]
    logs_cut: Option<usize>,
    outcome: &'static str,
}

fn start_wire(s: &BrokerStart) -> StartWire<'_> {
    let none = StartWire { bytes_removed: None, error: None, logs: None, logs_cut: None, outcome: "" };
    match s {
        BrokerStart::Starts { log_count, cut_count, bytes_removed } => StartWire {
            bytes_removed: Some(*bytes_removed),
            logs: Some(*log_count),
            logs_cut: Some(*cut_count),
            outcome: "starts",
            ..none
        },
        BrokerStart::WouldNotStart(why) => StartWire { error: Some(why), outcome: "refuses", ..none },
        BrokerStart::Running { .. } => StartWire { outcome: "running", ..none },
        BrokerStart::Unknown(why) => StartWire { error: Some(why), outcome: "unknown", ..none },
    }
}

#[derive(Serialize)]
struct WarningWire<'a> {
    #[serde(rename = "type")]
    kind: &'static str,
    what: &'a str,
}

#[derive(Serialize)]
struct PartitionErrorWire<'a> {
    error: &'a str,
    partition: &'a str,
    #[serde(rename = "type")]
    kind: &'static str,
}

#[derive(Serialize)]
struct SummaryWire<'a> {
    brokers: usize,
    command: &'static str,
    leaders_from: &'static str,
    metadata_dir: Option<&'a str>,
    metadata_log_end_offset: Option<i64>,
    one_cluster: bool,
    partitions: usize,
    partitions_needing_attention: usize,
    #[serde(rename = "type")]
    kind: &'static str,
}

pub fn json(out: &mut dyn Write, v: &ClusterView) -> Result<()> {
    for (i, b) in v.brokers.iter().enumerate() {
        line(
            out,
            &BrokerWire {
                cluster_id: b.cluster_id.as_deref(),
                dir: &b.dir,
                node_id: b.node_id,
                partitions: b.partition_count,
                start: v.starts.get(i).map(start_wire),
                kind: "broker",
            },
        )?;
    }
    for w in &v.warnings {
        line(out, &WarningWire { kind: "warning", what: w })?;
    }
    for part in &v.partitions {
        match &part.outcome {
            Ok(p) => line(out, &partition_wire(v, p))?,
            Err(why) => {
                line(out, &PartitionErrorWire { error: why, partition: &part.partition, kind: "cluster_partition" })?
            }
        }
    }
    line(
        out,
        &SummaryWire {
            brokers: v.brokers.len(),
            command: v.command.name(),
            leaders_from: v.metadata.as_ref().map_or("assumed", |_| "metadata"),
            metadata_dir: v.metadata.as_ref().map(|m| m.dir.as_str()),
            metadata_log_end_offset: v.metadata.as_ref().map(|m| m.log_end_offset),
            one_cluster: v.one_cluster(),
            partitions: v.partitions.len(),
            partitions_needing_attention: v.attention_count(),
            kind: "summary",
        },
    )
}
