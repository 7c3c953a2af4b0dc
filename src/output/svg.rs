//! The SVG renderer of the picture model (`output::picture`): the same rows, cells, marks,
//! differences and fates as the terminal picture, as one self-contained SVG document — no
//! external fonts, scripts, images or links, valid XML. Every cell carries its epoch number
//! and value as text and every mark a word or symbol, and the epoch fills are light tints of the
//! Okabe–Ito colours with a full-colour band, so a black-and-white print still reads.

use super::palette::{epoch_hex, epoch_tint_hex};
use super::picture::{batch_runs, LegendItem, Mark, PicCell, Picture, Row};
use std::fmt::Write as _;

/// Cells drawn at most: an SVG is for sharing, so it stays one screen wide.
pub const MAX_CELLS: usize = 16;

const CELL_W: i64 = 64;
const CELL_H: i64 = 40;
const LABEL_W: i64 = 150;
const PAD: i64 = 12;
/// The narrowest picture: the legend wraps to the cells' width, so a picture of two or three
/// offsets fits a phone's page (400 px) with its text at its own 12 px.
const MIN_WIDTH: i64 = 360;

/// Escape text for XML 1.0: first klog's one rule for text from outside ([`crate::escape::lines`]:
/// controls and bidi formatting as visible `\u{1b}` escapes, newlines kept), then markup
/// characters as entities and the non-characters XML forbids (U+FFFE, U+FFFF) replaced.
pub fn escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in crate::escape::lines(s).chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&apos;"),
            // XML 1.0 `Char` excludes U+FFFE and U+FFFF: a document holding them is not
            // well-formed, and browsers refuse to show it.
            '\u{fffe}' | '\u{ffff}' => out.push('\u{fffd}'),
            c => out.push(c),
        }
    }
    out
}

fn tint(leader_epoch: i32) -> String {
    epoch_tint_hex(leader_epoch)
}

fn band(leader_epoch: i32) -> String {
    epoch_hex(leader_epoch)
}

/// The legend's items: only what is on the picture ([`Picture::legend`]), in the SVG's words.
pub fn legend_items(pic: &Picture, (start, stop): (i64, i64), elided: bool) -> Vec<String> {
    let mut items: Vec<String> = pic
        .legend(start, stop, elided)
        .into_iter()
        .map(|item| match item {
            LegendItem::Epochs => "eN = a batch's epoch (after a role: the replica's epoch)".to_string(),
            LegendItem::Committed => "solid border = committed (below a HW)".into(),
            LegendItem::NotCommitted => "dashed border = not yet committed".into(),
            LegendItem::Batch => "bracket = one batch".into(),
            LegendItem::Cut => "✂cut = where the truncation cuts the log".into(),
            LegendItem::AckedFlag => "red outline ! = an acknowledged record lost or left only on the leader".into(),
            LegendItem::Cache => format!("cache = the epoch cache's entries {}", super::epoch_cache::KEY),
            LegendItem::Marks => "▲ mark before the offset: LS log start, RP recovery point".into(),
            LegendItem::Elided => "… more offsets".into(),
            LegendItem::Differs => "✗ replicas differ".into(),
            LegendItem::Fate(f) => format!("{} = {}", f.label(), f.meaning()),
            LegendItem::Transactions => super::txn_picture::SVG_LEGEND.to_string(),
            LegendItem::Tiers => super::tier_picture::SVG_LEGEND.to_string(),
        })
        .collect();
    // The two marks on every row, in words: a learner meets HW and LEO before any definition.
    let at = items.iter().position(|i| i.starts_with("cache")).unwrap_or(items.len());
    items.splice(
        at..at,
        [
            "HW = high watermark: the offsets below it are committed (acknowledged)".to_string(),
            "LEO = log end offset: the next offset the log will write".to_string(),
        ],
    );
    items
}

/// Legend items laid on lines of at most `chars` characters: short items share a line, a long
/// one wraps at its spaces with its further lines indented.
fn legend_lines(items: &[String], chars: usize) -> Vec<String> {
    let mut lines: Vec<String> = Vec::new();
    // After an item that wrapped, the next starts its own line.
    let mut wrapped = false;
    for item in items {
        match lines.last_mut() {
            Some(l) if !wrapped && l.chars().count() + 3 + item.chars().count() <= chars => {
                l.push_str("   ");
                l.push_str(item);
            }
            _ => {
                let first = lines.len();
                let mut line = String::new();
                for word in item.split(' ') {
                    if !line.trim().is_empty() && line.chars().count() + 1 + word.chars().count() > chars {
                        lines.push(std::mem::replace(&mut line, "  ".to_string()));
                    } else if !line.trim().is_empty() {
                        line.push(' ');
                    }
                    line.push_str(word);
                }
                lines.push(line);
                wrapped = lines.len() > first + 1;
            }
        }
    }
    lines
}

/// Where things go: the window of offsets drawn and the heights of a row's parts.
struct Layout {
    start: i64,
    stop: i64,
    elided_before: bool,
    elided_after: bool,
    /// The fates' line under the cells (0 when no cell has a fate).
    fate_h: i64,
    /// A batch bracket under the cells.
    bracket_h: i64,
    row_h: i64,
    top: i64,
}

impl Layout {
    fn of(pic: &Picture) -> Layout {
        let (start, stop) = pic.window(MAX_CELLS);
        // Rows: cells, fates (when any), marks.
        let fate_h = if pic.has_fates() { 18 } else { 0 };
        let bracket_h = 8;
        Layout {
            start,
            stop,
            elided_before: start > pic.lowest,
            elided_after: stop < pic.highest,
            fate_h,
            bracket_h,
            row_h: CELL_H + bracket_h + fate_h + 42,
            top: 30,
        }
    }

    fn x_of(&self, o: i64) -> i64 {
        LABEL_W + PAD + 16 + (o - self.start) * CELL_W
    }
}

/// The picture as an SVG document (standalone: with the XML declaration) or as an element to
/// inline in HTML.
pub fn render(pic: &Picture, standalone: bool) -> String {
    let at = Layout::of(pic);
    let (start, stop, top) = (at.start, at.stop, at.top);
    let diff_h = if pic.differs.is_empty() { 0 } else { 24 };
    // Wide enough for the marks past the last cell; the legend wraps to that width.
    let items = legend_items(pic, (start, stop), at.elided_before || at.elided_after);
    let width = (at.x_of(stop) + 70 + PAD).max(MIN_WIDTH);
    let legend_chars = ((width - 2 * PAD) * 2 / 15) as usize;
    let legend = legend_lines(&items, legend_chars);
    let height = top + at.row_h * pic.rows.len() as i64 + diff_h + 16 + 16 * legend.len() as i64;
    let mut s = String::new();
    if standalone {
        s.push_str("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
    }
    let _ = writeln!(
        s,
        "<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 {width} {height}\" width=\"{width}\" height=\"{height}\" \
         font-family=\"monospace\" font-size=\"12\" role=\"img\">"
    );
    if standalone {
        // What `--svg` looks for before it replaces an existing file.
        s.push_str(crate::durable::output::OutputKind::Svg.marker());
        s.push('\n');
    }
    s.push_str(
        "<style>.c{stroke:#333;stroke-width:1}.j{stroke:#333;stroke-width:1;stroke-dasharray:2 3}\
         .u{stroke:#333;stroke-width:1.5;stroke-dasharray:4 3}.k{fill:none;stroke:#555;stroke-width:1.5}\
         .flag{fill:none;stroke:#c00;stroke-width:3}.m{fill:#000}.d{fill:none;stroke:#c00;stroke-width:2}\
         .x{fill:#c00;font-weight:bold}.l{font-weight:bold}.s{fill:#444}.bad{fill:#c00;font-weight:bold}</style>\n",
    );
    // A text alternative for screen readers and text-only viewers.
    let rows: Vec<String> = pic.rows.iter().map(|r| format!("{} {} ({})", r.name, r.detail, r.marks_text())).collect();
    let differs = pic.differs.first().map_or(String::new(), |o| format!("; differs at offset {o}"));
    let _ = writeln!(s, "<title>offsets {start} to {}: {}{differs}</title>", stop - 1, escape(&rows.join(", ")));
    s.push_str(&format!("<rect width=\"{width}\" height=\"{height}\" fill=\"#fff\"/>\n"));
    // Offsets.
    let _ = writeln!(s, "<text x=\"{PAD}\" y=\"{}\" class=\"s\">offset</text>", top - 10);
    for o in start..stop {
        let _ = writeln!(s, "<text x=\"{}\" y=\"{}\" class=\"s\">{o}</text>", at.x_of(o) + 4, top - 10);
    }
    for (i, row) in pic.rows.iter().enumerate() {
        write_row(&mut s, &at, row, top + i as i64 * at.row_h);
    }
    if let Some(first) = pic.differs.first() {
        write_differs(&mut s, &at, pic, *first);
    }
    let legend_top = height - 16 * legend.len() as i64 + 2;
    for (i, l) in legend.iter().enumerate() {
        let _ = writeln!(
            s,
            "<text x=\"{PAD}\" y=\"{}\" class=\"s legend\" xml:space=\"preserve\">{}</text>",
            legend_top + 16 * i as i64,
            escape(l)
        );
    }
    s.push_str("</svg>\n");
    s
}

/// One replica's row at height `y`: its label and epoch cache, its cells, its batches' brackets
/// and its marks.
fn write_row(s: &mut String, at: &Layout, row: &Row, y: i64) {
    let (start, stop) = (at.start, at.stop);
    let _ = writeln!(
        s,
        "<text x=\"{PAD}\" y=\"{}\" class=\"l\">{} {}</text>",
        y + 16,
        escape(&row.name),
        escape(&row.detail)
    );
    let _ = writeln!(s, "<text x=\"{PAD}\" y=\"{}\" class=\"s\">{}</text>", y + 32, escape(&row.marks_text()));
    write_epoch_cache(s, row, y);
    if at.elided_before && row.cells.iter().any(|c| c.record.offset < start) {
        let _ = writeln!(s, "<text x=\"{}\" y=\"{}\">…</text>", at.x_of(start) - 14, y + 25);
    }
    if row.cells.is_empty() {
        let _ = writeln!(
            s,
            "<text x=\"{}\" y=\"{}\" class=\"s empty\">(empty log: no records yet)</text>",
            at.x_of(start) + 4,
            y + 25
        );
    }
    for o in start..stop {
        if let Some(c) = row.cells.iter().find(|c| c.record.offset == o) {
            write_cell(s, at, row, c, y);
        }
    }
    // Batches of more than one record in view: a bracket under their cells.
    for (a, b) in batch_runs(row, start, stop) {
        let (x0, x1, by) = (at.x_of(a) + 3, at.x_of(b) + CELL_W - 3, y + CELL_H + 2);
        let _ = writeln!(s, "<path d=\"M{x0} {by} v4 H{x1} v-4\" class=\"k\" data-batch=\"{a}-{b}\"/>");
    }
    if at.elided_after && row.marks.iter().any(|(m, o)| *m == Mark::LogEnd && *o > stop) {
        let _ = writeln!(s, "<text x=\"{}\" y=\"{}\">…</text>", at.x_of(stop) + 6, y + 25);
    }
    // Marks: a triangle on the cell edge and the words under it.
    let my = y + CELL_H + at.bracket_h + at.fate_h;
    for (k, (o, ms)) in row.marks_between(start, stop).iter().enumerate() {
        let x = at.x_of(*o);
        let words = ms.iter().map(|m| m.label()).collect::<Vec<_>>().join(",");
        let cut = ms.contains(&Mark::Cut);
        let ty = my + 22 + if k % 2 == 1 { 12 } else { 0 };
        let _ = writeln!(
            s,
            "<path d=\"M{x} {} l-5 9 h10 z\" class=\"m\"/><text x=\"{}\" y=\"{ty}\" class=\"{}\">{}{}</text>",
            my + 1,
            x - 4,
            if cut { "bad" } else { "l" },
            if cut { "✂" } else { "" },
            escape(&words)
        );
    }
}

/// The epoch cache beside the row: (epoch, start offset) pairs in their epochs' colours. The
/// remote tier has no epoch cache: its segments' epochs are in its cells.
fn write_epoch_cache(s: &mut String, row: &Row, y: i64) {
    let remote = super::tier_picture::is_remote_row(row);
    let epochs: &[(i32, i64)] = if remote { &[] } else { &row.epochs };
    if !remote {
        let _ = write!(s, "<text x=\"{PAD}\" y=\"{}\" class=\"cache\">cache", y + 48);
        s.push_str(" [");
    }
    for (i, (e, o)) in epochs.iter().enumerate() {
        if i > 0 {
            s.push(' ');
        }
        let _ = write!(
            s,
            "<tspan fill=\"{}\" font-weight=\"bold\" data-epoch=\"{e}\" data-start=\"{o}\">{}</tspan>",
            band(*e),
            super::epoch_cache::entry(*e, *o)
        );
    }
    if !remote {
        s.push_str("]</text>\n");
    }
}

/// One record's cell: its epoch's colours, its value, its transaction's marks and its fate.
fn write_cell(s: &mut String, at: &Layout, row: &Row, c: &PicCell, y: i64) {
    let r = &c.record;
    let o = r.offset;
    let x = at.x_of(o);
    let fate = c.fate.map_or("none", |f| f.slug());
    let flag = if c.fate.is_some_and(|f| f.is_acked()) { " data-flag=\"acked\"" } else { "" };
    let _ = writeln!(
        s,
        "<g class=\"cell\" data-row=\"{}\" data-offset=\"{o}\" data-epoch=\"{}\" data-committed=\"{}\" \
         data-fate=\"{fate}\"{flag}><rect x=\"{x}\" y=\"{y}\" width=\"{CELL_W}\" height=\"{CELL_H}\" fill=\"{}\" \
         class=\"{}\"/><rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"6\" fill=\"{}\"/>\
         <text x=\"{}\" y=\"{}\">e{}</text><text x=\"{}\" y=\"{}\" class=\"l\">{}</text>",
        escape(&format!("{} {}", row.name, row.detail)),
        r.leader_epoch,
        c.committed,
        tint(r.leader_epoch),
        if c.committed { "c" } else { "u" },
        x + 1,
        y + 1,
        CELL_W - 2,
        band(r.leader_epoch),
        x + 4,
        y + 19,
        r.leader_epoch,
        x + 4,
        y + 34,
        escape(&super::picture::value_text(r, 8))
    );
    s.push_str(&super::txn_picture::svg_cell(c, x, y, CELL_W, CELL_H));
    if let Some(f) = c.fate {
        if f.is_acked() {
            let _ = write!(
                s,
                "<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" class=\"flag\"/>\
                 <text x=\"{}\" y=\"{}\" class=\"bad\">!</text>",
                x + 2,
                y + 2,
                CELL_W - 4,
                CELL_H - 4,
                x + CELL_W - 12,
                y + 19
            );
        }
        let _ = write!(
            s,
            "<text x=\"{}\" y=\"{}\" class=\"{}\">{}</text>",
            x + 3,
            y + CELL_H + at.bracket_h + 14,
            if f.is_bad() { "bad" } else { "s" },
            escape(f.label())
        );
    }
    s.push_str("</g>\n");
}

/// Where the rows differ: the first offset in words, a dashed outline around each run of
/// differing offsets, a ✗ under each offset.
fn write_differs(s: &mut String, at: &Layout, pic: &Picture, first: i64) {
    let rows_h = at.row_h * pic.rows.len() as i64;
    let y = at.top + rows_h + 4;
    let _ = writeln!(s, "<text x=\"{PAD}\" y=\"{}\" class=\"x\">✗ differs at {first}</text>", y + 12);
    let shown: Vec<i64> = pic.differs.iter().copied().filter(|o| (at.start..at.stop).contains(o)).collect();
    let mut i = 0;
    while i < shown.len() {
        let mut j = i;
        while j + 1 < shown.len() && shown[j + 1] == shown[j] + 1 {
            j += 1;
        }
        let (a, b) = (shown[i], shown[j]);
        let _ = writeln!(
            s,
            "<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" class=\"d\"/>",
            at.x_of(a) - 3,
            at.top - 3,
            (b - a + 1) * CELL_W + 6,
            rows_h - 26
        );
        i = j + 1;
    }
    for o in &shown {
        let _ = writeln!(s, "<text x=\"{}\" y=\"{}\" class=\"x\">✗</text>", at.x_of(*o) + CELL_W / 2 - 4, y + 12);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_is_escaped_for_xml() {
        assert_eq!(escape("a<b>&\"'"), "a&lt;b&gt;&amp;&quot;&apos;");
        assert_eq!(escape("\u{fffe}x\u{ffff}\u{1}\r"), "\u{fffd}x\u{fffd}\\u{1}\\r");
        assert_eq!(escape("\u{1}x\n\u{1b}]0;t"), "\\u{1}x\n\\u{1b}]0;t");
    }

    #[test]
    fn a_long_legend_item_wraps_at_its_spaces_and_short_ones_share_a_line() {
        let items = ["a b", "cc dd", "one two three four five", "x"].map(String::from);
        assert_eq!(legend_lines(&items, 12), ["a b   cc dd", "one two", "  three four", "  five", "x"]);
        for l in legend_lines(&items, 12) {
            assert!(l.chars().count() <= 12, "{l}");
        }
    }

    #[test]
    fn tints_are_light() {
        for e in 0..8 {
            let t = tint(e);
            let v = |i: usize| u8::from_str_radix(&t[i..i + 2], 16).unwrap() as u32;
            assert!(v(1) * 299 + v(3) * 587 + v(5) * 114 > 150_000, "{e}: {t}");
        }
    }
}
