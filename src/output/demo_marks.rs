//! The two "why" figures of the demo's frames, as inline SVG: the fetch round trip (what the
//! leader recorded of the follower's fetch, the HW its response carried, the follower's HW one
//! fetch later) and the recovery's lookup (the leader's epoch-cache entry that answered and the
//! end offset it gave; under hw, the follower's own HW as the source of the cut). Drawn from
//! the reports alone (`FetchRound`, `FollowerRecoverReport`); each mark carries a `data-mark`
//! attribute that the browser tests read. Never computes a verdict of its own.

use super::svg::escape;
use crate::commands::recover::FollowerRecoverReport;
use crate::replication::fetch::{FetchReport, FetchRound};
use crate::replication::truncation::{TruncationMode, TruncationReason};

/// The smallest text drawn (the lab sizes pictures so that 12 px is the least it shows).
const FONT: u32 = 13;
const ROUND_WIDTH: i64 = 150;
const LEFT: i64 = 80;

fn text(x: i64, y: i64, mark: &str, extra: &str, s: &str) -> String {
    let mark = if mark.is_empty() { String::new() } else { format!(" data-mark=\"{mark}\"") };
    format!("<text x=\"{x}\" y=\"{y}\"{mark}{extra}>{}</text>", escape(s))
}

fn arrow(x1: i64, y1: i64, x2: i64, y2: i64, dashed: bool) -> String {
    // The head as a small triangle at (x2, y2) along the line (no marker: a capture refers to
    // nothing, not even its own ids).
    let (dx, dy) = ((x2 - x1) as f64, (y2 - y1) as f64);
    let len = (dx * dx + dy * dy).sqrt().max(1.0);
    let (ux, uy) = (dx / len, dy / len);
    let (bx, by) = (x2 as f64 - ux * 9.0, y2 as f64 - uy * 9.0);
    let (px, py) = (-uy * 4.5, ux * 4.5);
    format!(
        "<line x1=\"{x1}\" y1=\"{y1}\" x2=\"{bx:.1}\" y2=\"{by:.1}\" stroke=\"#333\" stroke-width=\"1.5\"{}/>\
         <polygon points=\"{x2},{y2} {:.1},{:.1} {:.1},{:.1}\" fill=\"#333\"/>",
        if dashed { " stroke-dasharray=\"4 3\"" } else { "" },
        bx + px,
        by + py,
        bx - px,
        by - py
    )
}

/// The round trip of every round of `report`: `leader` and `follower` are the replicas' names.
/// On the leader's row, the fetch offset it recorded (`a@2`) and its HW after; the response's
/// arrow labelled with the HW it carried (read before the leader recorded the fetch); on the
/// follower's row, its HW after. When the leader's HW is then above the follower's, a dashed
/// last column shows the next fetch's response carrying it: the follower learns it one fetch
/// later.
pub fn round_trip_svg(leader: &str, follower: &str, report: &FetchReport) -> String {
    let rounds: Vec<&FetchRound> = report.rounds.iter().collect();
    let Some(last) = rounds.last() else { return String::new() };
    let f = follower.to_lowercase();
    let next = last.recorded() && last.leader_high_watermark > last.follower_high_watermark;
    let columns = rounds.len() as i64 + i64::from(next);
    let width = LEFT + columns * ROUND_WIDTH + 10;
    let (top, bottom) = (40, 120);
    let mut s = format!(
        "<svg class=\"round-trip\" xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 {width} 160\" width=\"{width}\" \
         height=\"160\" font-family=\"sans-serif\" font-size=\"{FONT}\" role=\"img\" aria-label=\"the fetch round \
         trip\">"
    );
    s.push_str(&text(4, top + 4, "", " font-weight=\"bold\"", &format!("{} leader", leader.to_uppercase())));
    s.push_str(&text(4, bottom + 4, "", " font-weight=\"bold\"", &format!("{} follower", follower.to_uppercase())));
    s.push_str(&format!(
        "<line x1=\"{LEFT}\" y1=\"{top}\" x2=\"{}\" y2=\"{top}\" stroke=\"#999\"/><line x1=\"{LEFT}\" y1=\"{bottom}\" \
         x2=\"{}\" y2=\"{bottom}\" stroke=\"#999\"/>",
        width - 6,
        width - 6
    ));
    for (i, r) in rounds.iter().enumerate() {
        s.push_str(&round_column(LEFT + i as i64 * ROUND_WIDTH, (top, bottom), &f, i + 1, r));
    }
    if next {
        s.push_str(&next_fetch_column(LEFT + rounds.len() as i64 * ROUND_WIDTH, (top, bottom), follower, last));
    }
    s.push_str("</svg>");
    s
}

/// Round `n` at `x`: the fetch going up, what the leader recorded and its HW, the response
/// coming down with the HW it carried, and the follower's HW after.
fn round_column(x: i64, (top, bottom): (i64, i64), f: &str, n: usize, r: &FetchRound) -> String {
    let mut s = String::new();
    // The request: the follower's fetch offset.
    s.push_str(&arrow(x + 8, bottom - 4, x + 34, top + 4, false));
    s.push_str(&text(x + 2, bottom - 24, "fetch", "", &format!("fetch @{}", r.fetch_offset)));
    // The leader's row: what it recorded of the follower, and its HW after.
    if r.recorded() {
        s.push_str(&text(
            x + 24,
            top - 22,
            "fetch-offset",
            " font-weight=\"bold\"",
            &format!("{f}@{}", r.fetch_offset),
        ));
        s.push_str(&text(x + 24, top - 6, "leader-hw", "", &format!("HW {}", r.leader_high_watermark)));
    } else {
        s.push_str(&text(x + 24, top - 6, "", "", "not recorded"));
    }
    // The response: the HW read before recording the fetch.
    if r.returned_high_watermark >= 0 {
        s.push_str(&arrow(x + 70, top + 4, x + 96, bottom - 4, false));
        s.push_str(&text(
            x + 88,
            top + 30,
            "hw-carried",
            " fill=\"#a40\" font-weight=\"bold\"",
            &format!("HW {}", r.returned_high_watermark),
        ));
    }
    s.push_str(&text(
        x + 56,
        bottom + 22,
        "follower-hw",
        " font-weight=\"bold\"",
        &format!("HW {} (LEO {})", r.follower_high_watermark, r.follower_log_end_offset),
    ));
    s.push_str(&text(x + 2, 154, "", " fill=\"#555\"", &format!("round {n}")));
    s
}

/// The next fetch, dashed: the one that would carry the leader's HW to the follower.
fn next_fetch_column(x: i64, (top, bottom): (i64, i64), follower: &str, last: &FetchRound) -> String {
    let mut s = String::new();
    s.push_str(&arrow(x + 8, bottom - 4, x + 34, top + 4, true));
    s.push_str(&text(x + 2, bottom - 24, "", " fill=\"#555\"", &format!("fetch @{}", last.follower_log_end_offset)));
    s.push_str(&arrow(x + 70, top + 4, x + 96, bottom - 4, true));
    s.push_str(&text(x + 88, top + 30, "hw-next", " fill=\"#a40\"", &format!("HW {}", last.leader_high_watermark)));
    s.push_str(&text(
        x + 56,
        bottom + 22,
        "follower-hw-next",
        " fill=\"#555\"",
        &format!("HW {}", last.leader_high_watermark.min(last.follower_log_end_offset)),
    ));
    s.push_str(&text(x + 2, 154, "", " fill=\"#555\"", &format!("next fetch: {} learns it", follower.to_uppercase())));
    s
}

/// The cause of a recovery's cut, in words: the leader's epoch-cache entry that answered
/// ("epoch 1 ends at 2") under kip101 and kip279, the follower's own HW under hw (or when an
/// epoch lookup fell back to it).
pub fn lookup_text(r: &FollowerRecoverReport, leader: &str, follower: &str) -> String {
    let (l, f) = (leader.to_uppercase(), follower.to_uppercase());
    match r.plan.reason {
        TruncationReason::OwnHighWatermark
        | TruncationReason::NoEpochCacheHighWatermark
        | TruncationReason::UndefinedAnswerHighWatermark => format!(
            "{f}'s own HW {} is the source of the cut{}: cut at {}",
            r.follower_view.high_watermark,
            if r.mode == TruncationMode::Hw { " (no lookup: hw never asks the leader)" } else { "" },
            r.plan.truncation_offset
        ),
        _ => match r.plan.round_trips.iter().rev().find(|t| t.answered_end_offset >= 0) {
            Some(t) => {
                let epoch = t.answered_epoch.unwrap_or(t.requested_epoch);
                format!(
                    "{l}'s epoch-cache entry for epoch {epoch} answered: epoch {epoch} ends at {}; {f} cuts at {}",
                    t.answered_end_offset, r.plan.truncation_offset
                )
            }
            None => format!("{f} cuts at {}", r.plan.truncation_offset),
        },
    }
}

/// The lookup as a figure: the leader's epoch cache with the entry that answered highlighted
/// and the end offset it gave; under hw, the follower's HW marked as the source of the cut.
pub fn lookup_svg(r: &FollowerRecoverReport, leader: &str, follower: &str) -> String {
    let (l, f) = (leader.to_uppercase(), follower.to_uppercase());
    let by_hw = matches!(
        r.plan.reason,
        TruncationReason::OwnHighWatermark
            | TruncationReason::NoEpochCacheHighWatermark
            | TruncationReason::UndefinedAnswerHighWatermark
    );
    let answered = r.plan.round_trips.iter().rev().find(|t| t.answered_end_offset >= 0);
    let entries = r.leader_view.epochs.entries();
    let width = (150 + entries.len().max(1) as i64 * 120).max(520);
    let mut s = format!(
        "<svg class=\"lookup\" data-by=\"{}\" xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 {width} 96\" \
         width=\"{width}\" height=\"96\" font-family=\"sans-serif\" font-size=\"{FONT}\" role=\"img\" \
         aria-label=\"what the cut came from\">",
        if by_hw { "hw" } else { "epoch" }
    );
    if by_hw {
        s.push_str(&text(4, 20, "", " font-weight=\"bold\"", &format!("{f}'s HW checkpoint")));
        s.push_str(
            "<rect x=\"4\" y=\"30\" width=\"150\" height=\"26\" fill=\"#ffe08a\" stroke=\"#a40\" stroke-width=\"2\"/>",
        );
        s.push_str(&text(
            12,
            48,
            "hw-source",
            " font-weight=\"bold\"",
            &format!("HW {}", r.follower_view.high_watermark),
        ));
        s.push_str(&text(166, 48, "cut", "", &format!("→ {f} cuts its log at {}", r.plan.truncation_offset)));
        s.push_str(&text(4, 84, "", " fill=\"#555\"", &lookup_text(r, leader, follower)));
    } else {
        s.push_str(&text(4, 20, "", " font-weight=\"bold\"", &format!("{l}'s epoch cache (epoch start)")));
        let epoch = answered.map(|t| t.answered_epoch.unwrap_or(t.requested_epoch));
        // The entry that answered: the one of the answered epoch (a v0 answer has none: the
        // requested epoch's, or the latest at or below it).
        let hit = epoch.and_then(|e| entries.iter().rposition(|x| x.leader_epoch <= e));
        for (i, e) in entries.iter().enumerate() {
            let x = 4 + i as i64 * 120;
            let on = hit == Some(i);
            s.push_str(&format!(
                "<rect x=\"{x}\" y=\"30\" width=\"112\" height=\"26\" fill=\"{}\" stroke=\"{}\" stroke-width=\"{}\"/>",
                if on { "#ffe08a" } else { "#f4f4f4" },
                if on { "#a40" } else { "#999" },
                if on { 2 } else { 1 }
            ));
            s.push_str(&text(
                x + 8,
                48,
                if on { "entry" } else { "" },
                if on { " font-weight=\"bold\"" } else { "" },
                &format!("({} {})", e.leader_epoch, e.start_offset),
            ));
        }
        let x = 12 + entries.len() as i64 * 120;
        match answered {
            Some(t) => s.push_str(&text(
                x,
                48,
                "answer",
                " fill=\"#a40\" font-weight=\"bold\"",
                &format!("epoch {} ends at {}", epoch.unwrap_or(t.requested_epoch), t.answered_end_offset),
            )),
            None => s.push_str(&text(x, 48, "", "", "no answer")),
        }
        s.push_str(&text(4, 84, "", " fill=\"#555\"", &lookup_text(r, leader, follower)));
    }
    s.push_str("</svg>");
    s
}
