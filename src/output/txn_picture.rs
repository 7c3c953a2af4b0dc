//! Transactions on the picture (`klog demo stuck-lso`): each cell's place in a transaction —
//! an open transaction's records shaded, aborted and committed records, COMMIT/ABORT markers —
//! and the LSO mark beside HW and LEO. [`overlay`] puts them on a [`Picture`] from the demo's
//! state views; the terminal and SVG renderers call [`text_line`] and [`svg_cell`]. Every place
//! is a word too (`OPEN`, `aborted`, `ABORT`), so nothing is carried by shade or colour alone.

use super::palette::Palette;
use super::picture::{Mark, PicCell, Picture, Row};
use crate::commands::demo::ReplicaState;
use crate::txn::batch_place::{TxnKind, TxnView};

/// The terminal legend's item.
pub const TEXT_LEGEND: &str = "txn: OPEN = in a transaction no marker has ended (read_committed stops at its first \
                               offset, the LSO); aborted/committd = ended by an ABORT/COMMIT marker";

/// The SVG legend's item.
pub const SVG_LEGEND: &str = "hatched OPEN = an open transaction's records; LSO = last stable offset: \
                              read_committed consumers read only below it; ABRT = aborted (read_committed skips \
                              them), CMTD = committed, shaded ABORT/COMMIT = the marker that ended one";

/// The word under (or in) a cell, at most 8 characters.
pub fn label(kind: TxnKind) -> &'static str {
    match kind {
        TxnKind::Open => "OPEN",
        TxnKind::Aborted => "aborted",
        TxnKind::Committed => "committd",
        TxnKind::Marker { .. } => "marker",
    }
}

/// The word an SVG cell carries (four letters fit beside its epoch).
fn svg_word(kind: TxnKind) -> Option<&'static str> {
    match kind {
        TxnKind::Open => Some("OPEN"),
        TxnKind::Aborted => Some("ABRT"),
        TxnKind::Committed => Some("CMTD"),
        TxnKind::Marker { .. } => None,
    }
}

/// Put the states' transactions on the picture's rows of the same name: each cell's place, and
/// the LSO mark where the state carries one.
pub fn overlay(pic: &mut Picture, states: &[ReplicaState]) {
    let views: Vec<(&str, &TxnView)> = states.iter().filter_map(|s| Some((s.name, s.txn.as_ref()?))).collect();
    overlay_views(pic, &views);
}

/// [`overlay`] from views by replica name (the lab's frames, which keep no demo state).
pub fn overlay_views(pic: &mut Picture, views: &[(&str, &TxnView)]) {
    for row in pic.rows.iter_mut() {
        let Some(&(_, view)) = views.iter().find(|(name, _)| *name == row.name) else {
            continue;
        };
        for c in row.cells.iter_mut() {
            c.txn = view
                .batches
                .iter()
                .find(|b| (b.base_offset..=b.last_offset).contains(&c.record.offset))
                .map(|b| b.kind);
            // A marker's cell shows its type, not its control record's bytes.
            if let Some(TxnKind::Marker { commit }) = c.txn {
                c.record.value = Some(if commit { b"COMMIT".to_vec() } else { b"ABORT".to_vec() });
            }
        }
        if let Some(lso) = view.last_stable_offset {
            row.marks.push((Mark::LastStable, lso));
        }
    }
}

/// Whether the picture shows anything of transactions (then the legend explains it).
pub fn shows_transactions(pic: &Picture) -> bool {
    pic.rows
        .iter()
        .any(|r| r.cells.iter().any(|c| c.txn.is_some()) || r.marks.iter().any(|(m, _)| *m == Mark::LastStable))
}

/// The `txn` line under a row on a terminal: each cell's place in its column, `OPEN` painted;
/// `None` when the row has no transactional cell.
pub fn text_line(row: &Row, start: i64, stop: i64, label_w: usize, cell: usize, p: &Palette) -> Option<String> {
    if !row.cells.iter().any(|c| c.txn.is_some()) {
        return None;
    }
    let mut l = format!("{:<label_w$}  ", "  txn");
    for o in start..stop {
        let kind = row.cells.iter().find(|c| c.record.offset == o).and_then(|c| c.txn);
        let text = kind.map_or("", label);
        let painted = match kind {
            Some(TxnKind::Open) => p.warn(text),
            Some(TxnKind::Aborted | TxnKind::Marker { .. }) => p.dim(text),
            _ => text.to_string(),
        };
        l.push(' ');
        l.push_str(&painted);
        l.push_str(&" ".repeat((cell - 1).saturating_sub(text.chars().count())));
    }
    Some(l.trim_end().to_string())
}

/// A cell's transaction in SVG, drawn over the cell at (`x`, `y`): hatching for an open
/// transaction's record, a grey veil for an aborted one, and the word in the corner.
pub fn svg_cell(c: &PicCell, x: i64, y: i64, w: i64, h: i64) -> String {
    let Some(kind) = c.txn else { return String::new() };
    let mut s = String::new();
    match kind {
        TxnKind::Open => {
            // Diagonal hatching, clipped to the cell by drawing only inside it.
            let mut d = String::new();
            let mut k = 8;
            while k < w + h {
                let (x0, y0) = (x + k.min(w), y + (k - w).max(0));
                let (x1, y1) = (x + (k - h).max(0), y + k.min(h));
                d.push_str(&format!("M{x0} {y0}L{x1} {y1}"));
                k += 8;
            }
            s.push_str(&format!(
                "<path d=\"{d}\" stroke=\"#b35900\" stroke-width=\"1\" stroke-opacity=\"0.45\" class=\"txn-open\"/>"
            ));
        }
        TxnKind::Aborted | TxnKind::Marker { .. } => {
            s.push_str(&format!(
                "<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" fill=\"#888\" fill-opacity=\"0.25\" class=\"txn-ended\"/>",
                x + 1,
                y + 7,
                w - 2,
                h - 8
            ));
        }
        TxnKind::Committed => {}
    }
    // In the cell's top right corner beside its `eN`, at the picture's own 12 px: four letters
    // fit there. A marker's cell already names its type in its value.
    let slug = label(kind).to_ascii_lowercase();
    match svg_word(kind) {
        Some(word) => s.push_str(&format!(
            "<text x=\"{}\" y=\"{}\" text-anchor=\"end\" class=\"txn\" data-txn=\"{slug}\">{word}</text>",
            x + w - 3,
            y + 19
        )),
        None => s.push_str(&format!("<desc class=\"txn\" data-txn=\"{slug}\">transaction marker</desc>")),
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::commands::draw::{DrawReport, DrawnRecord, DrawnReplica};
    use crate::txn::batch_place::TxnBatch;

    fn rec(offset: i64, value: &str) -> DrawnRecord {
        DrawnRecord {
            offset,
            leader_epoch: 1,
            value: Some(value.as_bytes().to_vec()),
            batch_base_offset: offset,
            batch_last_offset: offset,
            batch_crc: offset as u32,
        }
    }

    fn picture() -> Picture {
        let records: Vec<DrawnRecord> = ["o1", "t1", "o2"].iter().enumerate().map(|(i, v)| rec(i as i64, v)).collect();
        let a = DrawnReplica {
            name: "a".into(),
            role: crate::replica::ReplicaRole::Leader,
            leader_epoch: Some(1),
            log_start_offset: 0,
            high_watermark: 3,
            recovery_point: 0,
            log_end_offset: 3,
            records,
            epochs: vec![(1, 0)],
        };
        Picture::of_draw(&DrawReport { replicas: vec![a], from: 0, end: 3, focus: 0, warnings: vec![] })
    }

    fn state(lso: Option<i64>) -> ReplicaState {
        ReplicaState {
            name: "a",
            role: crate::replica::ReplicaRole::Leader,
            log_end_offset: 3,
            high_watermark: 3,
            entries: Vec::new(),
            txn: Some(TxnView {
                last_stable_offset: lso,
                batches: vec![TxnBatch { base_offset: 1, last_offset: 1, producer_id: 7, kind: TxnKind::Open }],
            }),
        }
    }

    /// Only the open transaction's cell is shaded and labelled; the LSO is marked and named in
    /// the row's numbers only when the state carries it; both renderers say OPEN in words.
    #[test]
    fn the_open_transactions_cells_are_labelled_and_the_lso_marked_only_when_known() {
        let mut pic = picture();
        overlay(&mut pic, &[state(None)]);
        let kinds: Vec<Option<TxnKind>> = pic.rows[0].cells.iter().map(|c| c.txn).collect();
        assert_eq!(kinds, vec![None, Some(TxnKind::Open), None]);
        assert_eq!(pic.rows[0].marks_text(), "HW 3 LEO 3");
        let mut pic = picture();
        overlay(&mut pic, &[state(Some(1))]);
        assert_eq!(pic.rows[0].marks_text(), "LSO 1 HW 3 LEO 3");
        let settings = super::super::Settings {
            color: false,
            width: Some(80),
            table_width: Some(80),
            progress: false,
            truecolor: false,
        };
        let mut out = Vec::new();
        super::super::picture::write_text(&mut out, &pic, &settings).unwrap();
        let text = String::from_utf8(out).unwrap();
        let txn = text.lines().find(|l| l.trim_start().starts_with("txn")).expect(&text);
        let open_col = txn.find("OPEN").unwrap();
        let t1_col = text.lines().find(|l| l.starts_with("a leader")).unwrap().find("e1 t1").unwrap();
        assert_eq!(
            txn.chars().take(open_col).count(),
            text.lines().find(|l| l.starts_with("a leader")).unwrap()[..t1_col].chars().count()
        );
        assert!(text.contains("↑LSO") && text.contains("txn: OPEN ="), "{text}");
        let svg = super::super::svg::render(&pic, false);
        assert_eq!(svg.matches("class=\"txn-open\"").count(), 1, "{svg}");
        assert!(svg.contains(">OPEN</text>") && svg.contains("LSO"), "{svg}");
        // A picture without transactions is unchanged: no txn line, no legend item.
        let plain = picture();
        let mut out = Vec::new();
        super::super::picture::write_text(&mut out, &plain, &settings).unwrap();
        let text = String::from_utf8(out).unwrap();
        assert!(!text.contains("txn") && !text.contains("LSO"), "{text}");
    }
}
