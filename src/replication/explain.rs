//! The follower truncation procedure of each Kafka era as short pseudo-code in klog's own
//! words (written from replication-model.md, "Truncation modes"), and which of its lines ran in
//! one recovery with the values they saw. Pure: the lines that ran are derived from a
//! [`TruncationPlan`]'s round trips and the two replicas' views, never from a log directory.
//! Rendering is `output::explain`'s job.

use super::truncation::{ReplicaView, RoundTrip, TruncationMode, TruncationPlan, TruncationReason};

/// One line of pseudo-code.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ExplainLine {
    /// Nesting depth (each level is drawn as 4 spaces).
    pub depth: usize,
    pub code: &'static str,
    /// Whether this line executed in this recovery.
    pub ran: bool,
    /// What it saw, one entry per time it ran (kip279 rounds are prefixed `round N:`).
    pub values: Vec<String>,
}

/// A mode's procedure with the lines that ran marked.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Explanation {
    pub mode: TruncationMode,
    /// What the procedure stands for in Kafka.
    pub source: &'static str,
    pub lines: Vec<ExplainLine>,
    pub notes: Vec<&'static str>,
}

impl Explanation {
    /// The lines that ran, as `code ◀ values` text (what tests compare with hand-written lines).
    pub fn ran_lines(&self) -> Vec<String> {
        self.lines
            .iter()
            .filter(|l| l.ran)
            .map(|l| {
                if l.values.is_empty() {
                    l.code.to_string()
                } else {
                    format!("{} ◀ {}", l.code, l.values.join("; "))
                }
            })
            .collect()
    }
}

/// The procedure's lines: (depth, code).
fn procedure(mode: TruncationMode) -> &'static [(usize, &'static str)] {
    match mode {
        TruncationMode::Hw => &[(0, "become_follower(leader)"), (0, "truncate_to(hw)")],
        TruncationMode::Kip101 => &[
            (0, "become_follower(leader)"),
            (0, "if epoch_cache is empty:"),
            (1, "truncate_to(hw)"),
            (0, "e = latest_epoch()"),
            (0, "answer = leader.offsets_for_leader_epoch_v0(e)"),
            (1, "leader: if e == its latest epoch: its LEO"),
            (1, "leader: elif first <= e < latest: next epoch start"),
            (1, "leader: else: UNDEFINED"),
            (0, "if answer == UNDEFINED:"),
            (1, "truncate_to(hw)"),
            (0, "else:"),
            (1, "truncate_to(min(answer, leo))"),
        ],
        TruncationMode::Kip279 => &[
            (0, "become_follower(leader)"),
            (0, "loop:"),
            (1, "if epoch_cache is empty:"),
            (2, "truncate_to(hw); stop"),
            (1, "e = latest_epoch()"),
            (1, "(le, lend) = leader.offsets_for_leader_epoch(e)"),
            (1, "if lend == UNDEFINED:"),
            (2, "truncate_to(hw); stop"),
            (1, "(fe, fend) = own end_offset_for(le)"),
            (1, "if fe != le:"),
            (2, "truncate_to(fend); ask again"),
            (1, "else:"),
            (2, "truncate_to(min(fend, lend, leo)); stop"),
        ],
    }
}

fn offset_text(o: i64) -> String {
    if o < 0 {
        "UNDEFINED".into()
    } else {
        o.to_string()
    }
}

/// Explain `plan`, made for `follower` against `leader`.
pub fn explain(plan: &TruncationPlan, leader: &ReplicaView, follower: &ReplicaView) -> Explanation {
    let mut lines: Vec<ExplainLine> = procedure(plan.mode)
        .iter()
        .map(|&(depth, code)| ExplainLine { depth, code, ran: false, values: Vec::new() })
        .collect();
    let mut mark = |i: usize, value: Option<String>| {
        lines[i].ran = true;
        if let Some(v) = value {
            lines[i].values.push(v);
        }
    };
    let hw = follower.high_watermark.min(follower.log_end_offset).max(0);
    let (source, notes): (&'static str, Vec<&'static str>) = match plan.mode {
        TruncationMode::Hw => {
            mark(0, None);
            mark(1, Some(format!("hw = {hw}")));
            ("Kafka <= 0.10.2: ReplicaManager.makeFollowers truncates to the high watermark", vec![])
        }
        TruncationMode::Kip101 => {
            mark(0, None);
            match plan.round_trips.first() {
                None => {
                    mark(1, Some("yes".into()));
                    mark(2, Some(format!("hw = {hw}")));
                }
                Some(t) => {
                    mark(1, Some("no".into()));
                    mark(3, Some(format!("e = {}", t.requested_epoch)));
                    mark(4, Some(format!("answer = {}", offset_text(t.answered_end_offset))));
                    let latest = leader.epochs.latest_epoch();
                    let first = leader.epochs.earliest().map(|e| e.leader_epoch);
                    match (first, latest) {
                        (Some(_), Some(l)) if l == t.requested_epoch => {
                            mark(5, Some(format!("LEO = {}", leader.log_end_offset)))
                        }
                        (Some(f), Some(l)) if f <= t.requested_epoch && t.requested_epoch < l => {
                            mark(6, Some(format!("next start = {}", t.answered_end_offset)))
                        }
                        _ => mark(7, latest.map(|l| format!("latest = {l}"))),
                    }
                    mark(8, Some(if t.answered_end_offset < 0 { "yes" } else { "no" }.into()));
                    if t.answered_end_offset < 0 {
                        mark(9, Some(format!("hw = {hw}")));
                    } else {
                        mark(
                            11,
                            Some(format!(
                                "min({}, {}) = {}",
                                t.answered_end_offset, t.follower_log_end_offset, t.truncate_to
                            )),
                        );
                    }
                }
            }
            ("Kafka 0.11-1.1 (KIP-101): ReplicaFetcherThread.maybeTruncate, OffsetsForLeaderEpoch v0", vec![])
        }
        TruncationMode::Kip279 => {
            mark(0, None);
            let many = plan.round_trips.len() > 1
                || plan.reason == TruncationReason::NoEpochCacheHighWatermark && !plan.round_trips.is_empty();
            let tag = |n: usize, v: String| if many { format!("round {n}: {v}") } else { v };
            for (i, t) in plan.round_trips.iter().enumerate() {
                kip279_round(&mut mark, i + 1, t, hw, &tag);
            }
            if plan.reason == TruncationReason::NoEpochCacheHighWatermark {
                let n = plan.round_trips.len() + 1;
                mark(1, None);
                mark(2, Some(tag(n, "yes".into())));
                mark(3, Some(tag(n, format!("hw = {hw}"))));
            }
            (
                "Kafka >= 2.0 (KIP-279): AbstractFetcherThread.getOffsetTruncationState",
                vec![
                    "Since Kafka 2.8 (KAFKA-10554) the leader sends the same (epoch, end offset) as the \
                     fetch response's diverging epoch, with no separate OffsetsForLeaderEpoch request.",
                ],
            )
        }
    };
    Explanation { mode: plan.mode, source, lines, notes }
}

/// Why the follower ends where it does, in one sentence with the values (what `demo
/// --predict` shows after each recovery question).
pub fn one_sentence(plan: &TruncationPlan, leader: &ReplicaView, follower: &ReplicaView) -> String {
    let hw = follower.high_watermark.min(follower.log_end_offset).max(0);
    let mode = plan.mode.name();
    let to = plan.truncation_offset;
    let lag = if leader.high_watermark > hw {
        format!(", which lagged the leader's ({}) by a fetch round trip", leader.high_watermark)
    } else {
        String::new()
    };
    match (plan.reason, plan.round_trips.last()) {
        (TruncationReason::OwnHighWatermark, _) => format!("{mode} truncates to the follower's own HW, {hw}{lag}"),
        (TruncationReason::NoEpochCacheHighWatermark, _) => {
            format!("{mode}: the follower has no epoch to ask about, so it truncates to its own HW, {hw}{lag}")
        }
        (TruncationReason::UndefinedAnswerHighWatermark, Some(t)) => format!(
            "{mode}: the leader has no end offset for epoch {} (UNDEFINED), so the follower falls back to its HW, {hw}",
            t.requested_epoch
        ),
        (_, Some(t)) if plan.mode == TruncationMode::Kip101 => format!(
            "{mode}: the follower asks for the end of its latest epoch {}; the leader answers {}, and the follower \
             truncates to min({}, its LEO {}) = {to}",
            t.requested_epoch, t.answered_end_offset, t.answered_end_offset, t.follower_log_end_offset
        ),
        (_, Some(t)) => {
            let rounds = plan.round_trips.len();
            let le = t.answered_epoch.unwrap_or(-1);
            let own = t
                .follower_epoch_end
                .map_or(String::new(), |o| format!("; its own end for epoch {le} is {}", o.end_offset));
            let asked = if rounds > 1 { format!("in round {rounds} ") } else { String::new() };
            format!(
                "{mode}: {asked}the follower asks about its latest epoch {}; the leader answers epoch {le} ending at \
                 {}{own}, so it truncates to {to}",
                t.requested_epoch, t.answered_end_offset
            )
        }
        (_, None) => format!("{mode}: {}", plan.reason.describe()),
    }
}

/// Mark the kip279 lines one round trip ran.
fn kip279_round(
    mark: &mut impl FnMut(usize, Option<String>),
    n: usize,
    t: &RoundTrip,
    hw: i64,
    tag: &impl Fn(usize, String) -> String,
) {
    mark(1, None);
    mark(2, Some(tag(n, "no".into())));
    mark(4, Some(tag(n, format!("e = {}", t.requested_epoch))));
    let le = t.answered_epoch.unwrap_or(-1);
    mark(5, Some(tag(n, format!("({le}, {})", offset_text(t.answered_end_offset)))));
    mark(6, Some(tag(n, if t.answered_end_offset < 0 { "yes" } else { "no" }.into())));
    if t.answered_end_offset < 0 {
        mark(7, Some(tag(n, format!("hw = {hw}"))));
        return;
    }
    let Some(own) = t.follower_epoch_end else { return };
    mark(8, Some(tag(n, format!("({}, {})", own.leader_epoch, offset_text(own.end_offset)))));
    mark(9, Some(tag(n, if own.leader_epoch != le { "yes" } else { "no" }.into())));
    if own.leader_epoch != le {
        mark(10, Some(tag(n, format!("fend = {}", t.truncate_to))));
    } else {
        mark(
            12,
            Some(tag(
                n,
                format!(
                    "min({}, {}, {}) = {}",
                    own.end_offset, t.answered_end_offset, t.follower_log_end_offset, t.truncate_to
                ),
            )),
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::log::epoch_cache::{EpochCache, EpochEntry};
    use crate::replication::truncation::plan_truncation;

    fn view(pairs: &[(i32, i64)], log_end_offset: i64, high_watermark: i64) -> ReplicaView {
        let cache =
            EpochCache::from_entries(pairs.iter().map(|&(e, o)| EpochEntry { leader_epoch: e, start_offset: o }));
        ReplicaView::new(cache, log_end_offset, high_watermark)
    }

    #[test]
    fn kip279_two_rounds_mark_both_branches_with_round_numbers() {
        // The follower's latest epoch 3 is unknown to the leader, whose answer (2, 5) names an
        // epoch the follower lacks: truncate to the end of its epoch 1 and ask again.
        let leader = view(&[(1, 0), (2, 5), (4, 9)], 12, 9);
        let follower = view(&[(1, 0), (3, 7)], 10, 7);
        let plan = plan_truncation(TruncationMode::Kip279, &leader, &follower);
        let e = explain(&plan, &leader, &follower);
        let ran = e.ran_lines();
        assert!(ran.contains(&"truncate_to(fend); ask again ◀ round 1: fend = 7".to_string()), "{ran:#?}");
        assert!(ran.iter().any(|l| l.starts_with("truncate_to(min(fend, lend, leo)); stop ◀ round 2:")), "{ran:#?}");
    }

    #[test]
    fn an_undefined_answer_marks_the_leaders_else_rule_and_the_high_watermark_fallback() {
        // The follower's latest epoch 5 is above everything the leader has: UNDEFINED in both
        // protocols (replication-model.md, kip101 and kip279).
        let leader = view(&[(0, 0), (2, 4)], 6, 5);
        let follower = view(&[(0, 0), (5, 3)], 8, 2);
        let kip101 = explain(&plan_truncation(TruncationMode::Kip101, &leader, &follower), &leader, &follower);
        assert_eq!(
            kip101.ran_lines(),
            [
                "become_follower(leader)",
                "if epoch_cache is empty: ◀ no",
                "e = latest_epoch() ◀ e = 5",
                "answer = leader.offsets_for_leader_epoch_v0(e) ◀ answer = UNDEFINED",
                "leader: else: UNDEFINED ◀ latest = 2",
                "if answer == UNDEFINED: ◀ yes",
                "truncate_to(hw) ◀ hw = 2",
            ]
        );
        let kip279 = explain(&plan_truncation(TruncationMode::Kip279, &leader, &follower), &leader, &follower);
        let ran = kip279.ran_lines();
        assert!(ran.contains(&"if lend == UNDEFINED: ◀ yes".to_string()), "{ran:#?}");
        assert_eq!(ran.last().map(String::as_str), Some("truncate_to(hw); stop ◀ hw = 2"), "{ran:#?}");
        assert!(!ran.iter().any(|l| l.starts_with("(fe, fend)")), "{ran:#?}");
    }

    #[test]
    fn the_one_sentence_reason_names_the_values_it_used() {
        let leader = view(&[(0, 0)], 2, 2);
        let follower = view(&[(0, 0)], 2, 1);
        let hw = plan_truncation(TruncationMode::Hw, &leader, &follower);
        assert_eq!(
            one_sentence(&hw, &leader, &follower),
            "hw truncates to the follower's own HW, 1, which lagged the leader's (2) by a fetch round trip"
        );
        let kip101 = plan_truncation(TruncationMode::Kip101, &leader, &follower);
        assert!(one_sentence(&kip101, &leader, &follower).ends_with("min(2, its LEO 2) = 2"));
    }

    #[test]
    fn every_mode_marks_become_follower_and_exactly_one_final_truncation() {
        let leader = view(&[(0, 0), (1, 1)], 2, 1);
        let follower = view(&[(0, 0)], 2, 1);
        for mode in TruncationMode::ALL {
            let plan = plan_truncation(mode, &leader, &follower);
            let e = explain(&plan, &leader, &follower);
            assert!(e.lines[0].ran);
            let finals =
                e.lines.iter().filter(|l| l.ran && l.code.starts_with("truncate_to") && !l.code.contains("again"));
            assert_eq!(finals.count(), 1, "{mode:?}: {:#?}", e.lines);
        }
    }
}
