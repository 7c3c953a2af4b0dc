//! `klog history --picture` / `--svg FILE`: who led when, as a timeline. Per partition, one
//! column per change the metadata recorded (its offset and the leader epoch after it) and one
//! row per replica: `L` where it leads (in the epoch's colour), `I` in the ISR, `E` in the ELR,
//! `·` a replica in neither, blank once the topic is removed. The terminal picture wraps its
//! columns to the width; the SVG shows each partition's last [`SVG_COLUMNS`] changes and says
//! how many came before.

use super::palette::epoch_rgb;
use super::svg::escape as svg_escape;
use super::Settings;
use crate::commands::history::{HistoryReport, PartitionHistory};
use crate::error::{IoContext, Result};
use crate::escape;
use crate::kraft::{MetadataPosition, NO_LEADER};
use std::fmt::Write as _;
use std::io::Write;

/// Changes drawn per partition in the SVG (the latest ones).
pub const SVG_COLUMNS: usize = 16;
/// Partitions drawn in the SVG (the first ones, by name).
pub const SVG_PARTITIONS: usize = 64;

/// One replica's part in one change.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Part {
    Leader,
    Isr,
    Elr,
    Out,
    /// Not a replica of the partition (or the topic is removed).
    None,
}

impl Part {
    fn letter(self) -> &'static str {
        match self {
            Part::Leader => "L",
            Part::Isr => "I",
            Part::Elr => "E",
            Part::Out => "·",
            Part::None => " ",
        }
    }
}

/// One column: a change, and every replica's part after it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Column {
    pub position: String,
    /// The leader epoch after the change (`None` once removed).
    pub epoch: Option<i32>,
    pub leader: Option<i32>,
    pub parts: Vec<Part>,
}

/// A partition's timeline: its replicas (every broker any change named) and its columns.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Timeline {
    pub partition: String,
    pub brokers: Vec<i32>,
    pub columns: Vec<Column>,
}

fn position(p: MetadataPosition) -> String {
    match p {
        MetadataPosition::Log(o) => o.to_string(),
        MetadataPosition::Snapshot { end_offset } => format!("snap@{end_offset}"),
    }
}

impl Timeline {
    pub fn of(p: &PartitionHistory) -> Timeline {
        let mut brokers: Vec<i32> = p
            .changes
            .iter()
            .filter_map(|c| c.after.as_ref())
            .flat_map(|r| r.replicas.iter().chain(&r.isr).chain(&r.elr).copied())
            .collect();
        brokers.sort_unstable();
        brokers.dedup();
        let columns = p
            .changes
            .iter()
            .map(|c| {
                let parts = brokers
                    .iter()
                    .map(|b| match &c.after {
                        None => Part::None,
                        Some(r) if r.leader == *b => Part::Leader,
                        Some(r) if r.isr.contains(b) => Part::Isr,
                        Some(r) if r.elr.contains(b) => Part::Elr,
                        Some(r) if r.replicas.contains(b) => Part::Out,
                        Some(_) => Part::None,
                    })
                    .collect();
                Column {
                    position: position(c.position),
                    epoch: c.after.as_ref().map(|r| r.leader_epoch),
                    leader: c.after.as_ref().map(|r| r.leader),
                    parts,
                }
            })
            .collect();
        Timeline { partition: p.partition.clone(), brokers, columns }
    }
}

const LEGEND: &str = "L leads (eN: at leader epoch N), I in the ISR, E in the ELR, · a replica in neither";

/// The timelines as text, wrapped to the terminal's width.
pub fn write_text(out: &mut dyn Write, report: &HistoryReport, settings: &Settings) -> Result<()> {
    let w = |out: &mut dyn Write, s: &str| writeln!(out, "{s}").at("<stdout>", "write");
    let p = settings.palette();
    w(out, &format!("who led when: {LEGEND}"))?;
    w(out, &format!("metadata {}", escape::text(&report.metadata_dir.display().to_string())))?;
    let label_w = 14;
    for t in report.partitions.iter().map(Timeline::of) {
        w(out, "")?;
        w(out, &p.strong(&escape::text(&t.partition)))?;
        let cell_w = t.columns.iter().map(|c| c.position.chars().count()).max().unwrap_or(1).max(4) + 1;
        let per_line = settings.width.map_or(usize::MAX, |wd| (wd.saturating_sub(label_w + 2) / cell_w).max(1));
        for (k, chunk) in t.columns.chunks(per_line.max(1)).enumerate() {
            if k > 0 {
                w(out, "")?;
            }
            let row = |label: &str, cells: Vec<String>| format!("  {label:<label_w$}{}", cells.concat());
            let pad = |s: String| format!("{s:<cell_w$}");
            w(out, row("offset", chunk.iter().map(|c| pad(c.position.clone())).collect()).trim_end())?;
            let epochs = chunk
                .iter()
                .map(|c| match c.epoch {
                    Some(e) => p.epoch(e, &pad(format!("e{e}"))),
                    None => pad("-".into()),
                })
                .collect();
            w(out, row("leader epoch", epochs).trim_end())?;
            for (i, b) in t.brokers.iter().enumerate() {
                let cells = chunk
                    .iter()
                    .map(|c| match (c.parts[i], c.epoch) {
                        (Part::Leader, Some(e)) => {
                            let mark = format!("L{e}");
                            format!("{}{}", p.epoch_block(e, &mark), " ".repeat(cell_w - mark.chars().count()))
                        }
                        (Part::Out, _) => format!("{}{}", p.dim(Part::Out.letter()), " ".repeat(cell_w - 1)),
                        (part, _) => pad(part.letter().to_string()),
                    })
                    .collect();
                w(out, row(&format!("broker {b}"), cells).trim_end())?;
            }
            let none: Vec<String> = chunk
                .iter()
                .map(|c| pad(if c.leader == Some(NO_LEADER) { "none".into() } else { String::new() }))
                .collect();
            if chunk.iter().any(|c| c.leader == Some(NO_LEADER)) {
                w(out, row("no leader", none).trim_end())?;
            }
        }
    }
    Ok(())
}

const CELL_W: usize = 56;
const CELL_H: usize = 24;
const LABEL_W: usize = 110;
const PAD: usize = 12;

fn tint(leader_epoch: i32) -> String {
    let (r, g, b) = epoch_rgb(leader_epoch);
    let mix = |c: u8| (u16::from(c) * 2 / 5 + 255 * 3 / 5) as u8;
    format!("#{:02x}{:02x}{:02x}", mix(r), mix(g), mix(b))
}

/// The timelines as one self-contained SVG document.
pub fn render_svg(report: &HistoryReport) -> String {
    let timelines: Vec<Timeline> = report.partitions.iter().take(SVG_PARTITIONS).map(Timeline::of).collect();
    let cols = timelines.iter().map(|t| t.columns.len().min(SVG_COLUMNS)).max().unwrap_or(0);
    let width = PAD * 2 + LABEL_W + CELL_W * cols.max(1);
    let block_h = |t: &Timeline| CELL_H * (t.brokers.len() + 3) + PAD;
    let height = PAD * 2 + 36 + timelines.iter().map(block_h).sum::<usize>() + 20;
    let mut s = String::from("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
    let _ = writeln!(
        s,
        "<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 {width} {height}\" width=\"{width}\" height=\"{height}\" \
         font-family=\"monospace\" font-size=\"12\" role=\"img\">"
    );
    s.push_str(crate::durable::output::OutputKind::Svg.marker());
    s.push('\n');
    let _ = writeln!(
        s,
        "<title>who led when: {} partition(s) from {}</title>",
        report.partitions.len(),
        svg_escape(&report.metadata_dir.display().to_string())
    );
    let _ = writeln!(s, "<rect width=\"{width}\" height=\"{height}\" fill=\"#fff\"/>");
    let _ = writeln!(s, "<text x=\"{PAD}\" y=\"{}\">{}</text>", PAD + 12, svg_escape(LEGEND));
    if report.partitions.len() > SVG_PARTITIONS {
        let _ = writeln!(
            s,
            "<text x=\"{PAD}\" y=\"{}\">the first {SVG_PARTITIONS} of {} partitions</text>",
            PAD + 28,
            report.partitions.len()
        );
    }
    let mut y = PAD + 36;
    for t in &timelines {
        y = write_timeline(&mut s, t, y);
    }
    s.push_str("</svg>\n");
    s
}

/// One partition's timeline from height `y`: its title, the offsets and leader epochs of its
/// changes, then a row per broker (leader, ISR, ELR or out); returns the height below it.
fn write_timeline(s: &mut String, t: &Timeline, mut y: usize) -> usize {
    let skipped = t.columns.len().saturating_sub(SVG_COLUMNS);
    let title = if skipped > 0 {
        format!("{} (the last {SVG_COLUMNS} changes; {skipped} before)", t.partition)
    } else {
        t.partition.clone()
    };
    let _ = writeln!(s, "<text x=\"{PAD}\" y=\"{}\" font-weight=\"bold\">{}</text>", y + 16, svg_escape(&title));
    y += CELL_H;
    let x0 = PAD + LABEL_W;
    let _ = writeln!(s, "<text x=\"{PAD}\" y=\"{}\">offset</text>", y + 16);
    let _ = writeln!(s, "<text x=\"{PAD}\" y=\"{}\">leader epoch</text>", y + CELL_H + 16);
    for (j, c) in t.columns[skipped..].iter().enumerate() {
        let x = x0 + j * CELL_W;
        let _ = writeln!(s, "<text x=\"{}\" y=\"{}\">{}</text>", x + 4, y + 16, svg_escape(&c.position));
        let epoch = match (c.epoch, c.leader) {
            (Some(e), Some(NO_LEADER)) => format!("e{e} none"),
            (Some(e), _) => format!("e{e}"),
            (None, _) => "removed".into(),
        };
        let _ = writeln!(s, "<text x=\"{}\" y=\"{}\">{epoch}</text>", x + 4, y + CELL_H + 16);
    }
    y += 2 * CELL_H;
    for (i, b) in t.brokers.iter().enumerate() {
        let _ = writeln!(s, "<text x=\"{PAD}\" y=\"{}\">broker {b}</text>", y + 16);
        for (j, c) in t.columns[skipped..].iter().enumerate() {
            let x = x0 + j * CELL_W;
            let (fill, label) = match (c.parts[i], c.epoch) {
                (Part::Leader, Some(e)) => (tint(e), format!("L e{e}")),
                (Part::Isr, _) => ("#e4e4e4".to_string(), "ISR".to_string()),
                (Part::Elr, _) => ("#fff1c2".to_string(), "ELR".to_string()),
                (Part::Out, _) => ("#ffffff".to_string(), "·".to_string()),
                _ => continue,
            };
            let _ = writeln!(
                s,
                "<rect x=\"{x}\" y=\"{y}\" width=\"{}\" height=\"{}\" fill=\"{fill}\" stroke=\"#333\"/>\
                 <text x=\"{}\" y=\"{}\">{}</text>",
                CELL_W - 2,
                CELL_H - 2,
                x + 6,
                y + 16,
                svg_escape(&label)
            );
        }
        y += CELL_H;
    }
    y += PAD;
    y
}
