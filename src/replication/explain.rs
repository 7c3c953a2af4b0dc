//! The follower truncation procedure of each Kafka era as short pseudo-code in klog's own
//! words (written from the truncation modes of [`super::truncation`]), and which of its lines ran in
//! one recovery with the values they saw. Pure: the lines that ran are derived from a
//! [`TruncationPlan`]'s round trips and the two replicas' views, never from a log directory.
//! Rendering is `output::explain`'s job.

use super::release::{BelowFirstEpoch, Rules, SameLeaderNewEpoch};
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
    /// What ran: the truncation mode (`kip279`), or `fetch`, `elect`, `append`.
    pub title: &'static str,
    /// What the procedure stands for in Kafka (the release and the code it runs).
    pub source: String,
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

/// A procedure line: (key the marking uses, depth, code).
type Line = (&'static str, usize, &'static str);

/// The procedure the release runs, line by line.
fn procedure(rules: &Rules, tiered: bool) -> Vec<Line> {
    let mut lines: Vec<Line> = match rules.truncation {
        TruncationMode::Hw => vec![("become", 0, "become_follower(leader)"), ("hw", 0, "truncate_to(hw)")],
        TruncationMode::Kip101 => kip101_procedure(rules),
        TruncationMode::Kip279 if rules.truncation_on_fetch => kip279_on_fetch_procedure(),
        TruncationMode::Kip279 => kip279_procedure(rules),
    };
    lines.push(("if_below_start", 0, "if leo < leader.log_start:"));
    lines.push(("restart", 1, "truncate_fully_and_start_at(leader.log_start)"));
    if tiered {
        // A leader with remote storage (3.6+): ReplicaManager.handleOffsetOutOfRangeError and
        // ReplicaFetcherTierStateMachine.buildRemoteLogAuxState.
        lines.extend([
            ("if_below_local", 0, "if fetch_offset < leader.local_log_start:  # OFFSET_MOVED_TO_TIERED_STORAGE"),
            ("earliest_local", 1, "(local, e) = leader.list_offsets(EARLIEST_LOCAL)"),
            ("target_epoch", 1, "target = 0 if e == 0 else epoch of local - 1 (leader.end_offset_for(e - 1))"),
            ("segment", 1, "seg = remote.segment_for(target, local - 1)  # none: retry"),
            ("restart_remote", 1, "truncate_fully_and_start_at(seg.end + 1); log_start = leader.log_start"),
            ("remote_epochs", 1, "epoch_cache = seg.leader_epoch_checkpoint"),
            ("remote_snapshot", 1, "producer_state = seg.producer_snapshot"),
        ]);
    }
    if !rules.truncation_on_fetch {
        // The first fetch: OFFSET_OUT_OF_RANGE when the log still ends past the leader's.
        lines.push(("if_past_end", 0, "if leo > leader.leo:  # the first fetch: OFFSET_OUT_OF_RANGE"));
        lines.push(if rules.past_leader_end_halts() {
            ("past_end", 1, "stop the broker (FatalExitError)  # unclean election disabled")
        } else {
            ("past_end", 1, "truncate_to(leader.leo)")
        });
    }
    lines
}

/// KIP-101: one OffsetsForLeaderEpoch v0 request for the latest epoch, as the release's leader
/// answers it.
fn kip101_procedure(rules: &Rules) -> Vec<Line> {
    let mut v = vec![
        ("become", 0, "become_follower(leader)"),
        ("e", 0, "e = latest_epoch()  # -1: empty cache"),
        ("ask", 0, "answer = leader.offsets_for_leader_epoch_v0(e)"),
    ];
    if rules.undefined_epoch_answered_undefined {
        v.push(("l_undefined_epoch", 1, "leader: if e == -1: UNDEFINED"));
        v.push(("l_latest", 1, "leader: elif e == its latest epoch: its LEO"));
    } else {
        v.push(("l_latest", 1, "leader: if e == its latest epoch (-1 if its cache is empty): its LEO"));
    }
    if rules.below_first_epoch == BelowFirstEpoch::FirstStartOffset {
        // A 2.0.1+ leader answering v0 (an IBP below 2.0-IV0) from its own endOffsetFor.
        v.push(("l_below", 1, "leader: elif e < its first epoch: its first start"));
    }
    v.extend([
        ("l_next", 1, "leader: elif first <= e < latest: next epoch start"),
        ("l_else", 1, "leader: else: UNDEFINED"),
        ("if_undefined", 0, "if answer == UNDEFINED:"),
        ("hw", 1, "truncate_to(hw)"),
        ("else", 0, "else:"),
        ("min", 1, "truncate_to(min(answer, leo))"),
    ]);
    v
}

/// KIP-279 with truncation on fetch: the leader's fetch answer carries the diverging epoch.
fn kip279_on_fetch_procedure() -> Vec<Line> {
    vec![
        ("become", 0, "become_follower(leader)"),
        ("if_empty", 0, "if epoch_cache is empty:"),
        ("empty_hw", 1, "truncate_to(hw); stop"),
        ("loop", 0, "loop:"),
        ("e", 1, "e = latest_epoch()"),
        ("fetch", 1, "r = leader.fetch(leo, last_epoch=e)"),
        ("l_lookup", 2, "leader: (le, lend) = its end_offset_for(e)"),
        ("l_oor", 2, "leader: if lend == UNDEFINED: OFFSET_OUT_OF_RANGE"),
        ("l_same", 2, "leader: elif le == e and lend >= leo: no diverging epoch"),
        ("l_diverging", 2, "leader: else: diverging epoch (le, lend)"),
        ("if_oor", 1, "if OFFSET_OUT_OF_RANGE:"),
        ("oor", 2, "truncate_to(min(leader_leo, leo)); stop"),
        ("not_diverging", 1, "if no diverging epoch: stop"),
        ("own", 1, "(fe, fend) = own end_offset_for(le)"),
        ("if_fe", 1, "if fe != le:"),
        ("partial", 2, "truncate_to(fend); fetch again"),
        ("else", 1, "else:"),
        ("min", 2, "truncate_to(min(fend, lend, leo)); stop"),
    ]
}

/// KIP-279's OffsetsForLeaderEpoch loop, fenced by the current epoch where the release does it.
fn kip279_procedure(rules: &Rules) -> Vec<Line> {
    let mut v = vec![
        ("become", 0, "become_follower(leader)"),
        ("loop", 0, "loop:"),
        ("if_empty", 1, "if epoch_cache is empty:"),
        ("empty_hw", 2, "truncate_to(hw); stop"),
        ("e", 1, "e = latest_epoch()"),
    ];
    if rules.offsets_for_leader_epoch_fencing {
        v.extend([
            ("ask", 1, "(le, lend) = leader.offsets_for_leader_epoch(e, current_epoch)"),
            ("l_fenced", 2, "leader: if current_epoch != its epoch: FENCED / UNKNOWN_EPOCH"),
        ]);
    } else {
        v.push(("ask", 1, "(le, lend) = leader.offsets_for_leader_epoch(e)  # unfenced"));
    }
    v.push(match rules.below_first_epoch {
        BelowFirstEpoch::Undefined => ("l_below", 2, "leader: if e < its first epoch: UNDEFINED"),
        BelowFirstEpoch::FirstStartOffset => ("l_below", 2, "leader: if e < its first epoch: (e, its first start)"),
    });
    v.extend([
        ("if_undefined", 1, "if lend == UNDEFINED:"),
        ("hw", 2, "truncate_to(hw); stop"),
        ("own", 1, "(fe, fend) = own end_offset_for(le)"),
        ("if_fe", 1, "if fe != le:"),
        ("partial", 2, "truncate_to(fend); ask again"),
        ("else", 1, "else:"),
        ("min", 2, "truncate_to(min(fend, lend, leo)); stop"),
    ]);
    v
}

fn offset_text(o: i64) -> String {
    if o < 0 {
        "UNDEFINED".into()
    } else {
        o.to_string()
    }
}

/// Marks lines of a procedure by key.
struct Marker {
    keys: Vec<&'static str>,
    lines: Vec<ExplainLine>,
}

impl Marker {
    /// A marker over procedure `lines`, none of them run yet.
    fn over(lines: Vec<Line>) -> Marker {
        Marker {
            keys: lines.iter().map(|l| l.0).collect(),
            lines: lines
                .iter()
                .map(|&(_, depth, code)| ExplainLine { depth, code, ran: false, values: Vec::new() })
                .collect(),
        }
    }

    fn mark(&mut self, key: &str, value: Option<String>) {
        let i = self.keys.iter().position(|k| *k == key).unwrap_or_else(|| panic!("no procedure line '{key}'"));
        self.lines[i].ran = true;
        if let Some(v) = value {
            self.lines[i].values.push(v);
        }
    }
}

/// Explain `plan`, made for `follower` against `leader`.
pub fn explain(plan: &TruncationPlan, leader: &ReplicaView, follower: &ReplicaView) -> Explanation {
    let rules = &plan.rules;
    let mut m = Marker::over(procedure(rules, leader.tier.is_some() && plan.from_remote.is_some()));
    let hw = follower.high_watermark.min(follower.log_end_offset).max(0);
    let release = rules.describe_release();
    let release = release.trim_start_matches("Kafka ");
    let on_old_ibp = rules.ibp.is_some();
    if plan.reason == TruncationReason::KeepsFetching {
        m.mark("become", Some("the same leader: the fetcher goes on".into()));
        let source = format!("Kafka {release}: Partition.makeFollower returns false for this leader change");
        return Explanation { title: plan.mode.name(), source, lines: m.lines, notes: vec![] };
    }
    m.mark("become", None);
    let (source, mut notes): (String, Vec<&'static str>) = match plan.mode {
        TruncationMode::Hw => {
            m.mark("hw", Some(format!("hw = {hw}")));
            hw_mode_source(rules, release, on_old_ibp)
        }
        TruncationMode::Kip101 => {
            if let Some(t) = plan.round_trips.first() {
                kip101_round(&mut m, rules, t, leader, hw);
            }
            kip101_source(release, on_old_ibp)
        }
        TruncationMode::Kip279 => {
            mark_kip279_rounds(&mut m, plan, leader, hw);
            kip279_source(rules, release, on_old_ibp)
        }
    };
    mark_restart(&mut m, plan, leader);
    if !rules.truncation_on_fetch && plan.restart_at_leader_start.is_none() {
        let past = plan.truncation_offset > leader.log_end_offset;
        let cmp = if past { ">" } else { "<=" };
        m.mark(
            "if_past_end",
            Some(format!(
                "{} ({} {cmp} {})",
                if past { "yes" } else { "no" },
                plan.truncation_offset,
                leader.log_end_offset
            )),
        );
        if past {
            m.mark("past_end", None);
            if rules.past_leader_end_halts() {
                notes.push(PAST_END_HALTS);
            }
        }
    }
    Explanation { title: plan.mode.name(), source, lines: m.lines, notes }
}

/// The HW era's source and note.
fn hw_mode_source(rules: &Rules, release: &str, on_old_ibp: bool) -> (String, Vec<&'static str>) {
    (
        format!(
            "Kafka {release} ({}): ReplicaManager.makeFollowers truncates to the high watermark",
            if on_old_ibp { "IBP below 0.11.0-IV2: no OffsetsForLeaderEpoch" } else { "before 0.11" }
        ),
        vec![if rules.same_leader_new_epoch == SameLeaderNewEpoch::Truncates {
            "A running follower told of a new epoch by the same leader truncates to its HW again \
             (before 0.8.2 every LeaderAndIsr restarts the fetcher; KAFKA-1188 stopped it)."
        } else {
            "A running follower told of a new epoch by the same leader does not truncate again \
             (Partition.makeFollower returns false for the same leader, from 0.8.2)."
        }],
    )
}

/// KIP-101's source and notes.
fn kip101_source(release: &str, on_old_ibp: bool) -> (String, Vec<&'static str>) {
    (
        if on_old_ibp {
            format!(
                "Kafka {release} (IBP below 2.0-IV0): AbstractFetcherThread.getOffsetTruncationState on \
                 OffsetsForLeaderEpoch v0 answers, which carry no epoch"
            )
        } else {
            format!(
                "Kafka {release} (0.11 - 1.1, KIP-101): ReplicaFetcherThread.maybeTruncate, OffsetsForLeaderEpoch v0"
            )
        },
        if on_old_ibp {
            vec![
                "An IBP below 2.0-IV0 sends OffsetsForLeaderEpoch v0: the answer has no epoch, and \
                 AbstractFetcherThread truncates to min(answer, leo) (ReplicaFetcherThread, 2.8.2).",
            ]
        } else {
            vec![]
        },
    )
}

/// Mark the lines each KIP-279 round (or fetch) ran, tagged `round N:` when there are several,
/// and the empty cache's HW truncation that may end them.
fn mark_kip279_rounds(m: &mut Marker, plan: &TruncationPlan, leader: &ReplicaView, hw: i64) {
    let rules = &plan.rules;
    let many = plan.round_trips.len() > 1
        || plan.reason == TruncationReason::NoEpochCacheHighWatermark && !plan.round_trips.is_empty();
    let tag = |n: usize, v: String| if many { format!("round {n}: {v}") } else { v };
    if !rules.truncation_on_fetch {
        m.mark("loop", None);
    }
    for (i, t) in plan.round_trips.iter().enumerate() {
        if rules.truncation_on_fetch {
            fetch_round(m, i + 1, t, leader, &tag);
        } else {
            kip279_round(m, rules, i + 1, t, leader, hw, &tag);
        }
    }
    if plan.reason == TruncationReason::NoEpochCacheHighWatermark {
        let n = plan.round_trips.len() + 1;
        m.mark("if_empty", Some(tag(n, "yes".into())));
        m.mark("empty_hw", Some(tag(n, format!("hw = {hw}"))));
    }
}

/// KIP-279's source and notes: truncation on fetch (2.8+), or the OffsetsForLeaderEpoch loop.
fn kip279_source(rules: &Rules, release: &str, on_old_ibp: bool) -> (String, Vec<&'static str>) {
    if rules.truncation_on_fetch {
        return (
            format!(
                "Kafka {release} (2.8 and later): the diverging epoch in the fetch response \
                 (KAFKA-10554, Partition.readRecords)"
            ),
            vec![],
        );
    }
    let mut notes = vec![
        "From Kafka 2.8 (KAFKA-10554) the leader sends the same (epoch, end offset) as the \
         fetch response's diverging epoch, with no separate OffsetsForLeaderEpoch request, \
         once the IBP is 2.7-IV1 or later (isTruncationOnFetchSupported).",
    ];
    if !rules.offsets_for_leader_epoch_fencing {
        notes.push(
            "KIP-320 fencing needs Kafka 2.1 on IBP 2.1-IV1 or later (OffsetsForLeaderEpoch \
             v2, Fetch v10 from 2.1-IV2): here the leader answers any follower, whatever \
             epoch it runs at.",
        );
    }
    let source = format!(
        "Kafka {release} ({}): AbstractFetcherThread.getOffsetTruncationState",
        if on_old_ibp { "IBP below 2.7-IV1: KIP-279's requests" } else { "2.0 - 2.7, KIP-279" }
    );
    (source, notes)
}

/// Mark the restart at the leader's log start (across the tiers for a tiered leader), and a
/// tiered leader's rebuild of the follower from a remote segment.
fn mark_restart(m: &mut Marker, plan: &TruncationPlan, leader: &ReplicaView) {
    // A tiered leader's log start is the one across the tiers.
    let log_start = plan.from_remote.as_ref().map_or(leader.log_start_offset, |a| a.log_start_offset);
    let below = match &plan.from_remote {
        Some(_) => plan.truncation_offset < log_start,
        None => plan.restart_at_leader_start.is_some(),
    };
    m.mark(
        "if_below_start",
        Some(format!(
            "{} ({} {} {log_start})",
            if below { "yes" } else { "no" },
            plan.truncation_offset,
            if below { "<" } else { ">=" },
        )),
    );
    if let Some(aux) = &plan.from_remote {
        if plan.truncation_offset < aux.log_start_offset {
            m.mark("restart", Some(format!("start = {}", aux.log_start_offset)));
        }
        let fetch = plan.truncation_offset.max(aux.log_start_offset);
        m.mark("if_below_local", Some(format!("yes ({fetch} < {})", aux.leader_local_log_start_offset)));
        let epoch = aux.epoch_at_local_start.map_or("none".to_string(), |e| e.to_string());
        m.mark("earliest_local", Some(format!("local = {}, e = {epoch}", aux.leader_local_log_start_offset)));
        m.mark("target_epoch", Some(format!("target = {}", aux.target_epoch)));
        match (&aux.source, aux.next_offset) {
            (Some(s), Some(next)) => {
                m.mark("segment", Some(format!("{} ({}..{})", s.segment_id, s.start_offset, s.end_offset)));
                m.mark("restart_remote", Some(format!("start = {next}, log start {}", aux.log_start_offset)));
                let cache: Vec<String> = plan
                    .follower_epochs_after
                    .entries()
                    .iter()
                    .map(|e| format!("({} {})", e.leader_epoch, e.start_offset))
                    .collect();
                let from = if s.epochs.is_some() { "" } else { " (the leader's cache: no --remote-dir)" };
                m.mark("remote_epochs", Some(format!("[{}]{from}", cache.join(" "))));
                m.mark("remote_snapshot", Some(format!("{next:020}.snapshot")));
            }
            _ => m.mark("segment", Some("none: RemoteStorageException, the follower retries".into())),
        }
    } else if let Some(start) = plan.restart_at_leader_start {
        m.mark("restart", Some(format!("start = {start}")));
    }
}

/// Why a follower past the leader's end stops its broker (0.11.0.0 – 2.0.0 by default).
const PAST_END_HALTS: &str = "Before 2.0.1 a follower whose log ends past the leader's stops its broker \
     (ReplicaFetcherThread.handleOffsetOutOfRange: FatalExitError) when the topic's \
     unclean.leader.election.enable is false, Kafka's default from 0.11.0.0; KAFKA-7414 (2.0.1) truncates instead.";

/// Mark the kip101 lines its one round trip ran.
fn kip101_round(m: &mut Marker, rules: &Rules, t: &RoundTrip, leader: &ReplicaView, hw: i64) {
    m.mark("e", Some(format!("e = {}", t.requested_epoch)));
    m.mark("ask", Some(format!("answer = {}", offset_text(t.answered_end_offset))));
    let latest = leader.epochs.latest_epoch();
    let first = leader.epochs.earliest().map(|e| e.leader_epoch);
    let e = t.requested_epoch;
    if e < 0 && rules.undefined_epoch_answered_undefined {
        m.mark("l_undefined_epoch", None);
    } else if latest.unwrap_or(-1) == e {
        m.mark("l_latest", Some(format!("LEO = {}", leader.log_end_offset)));
    } else if rules.below_first_epoch == BelowFirstEpoch::FirstStartOffset && first.is_some_and(|f| e < f) {
        m.mark("l_below", Some(format!("first start = {}", t.answered_end_offset)));
    } else if first.is_some_and(|f| f <= e) && latest.is_some_and(|l| e < l) {
        m.mark("l_next", Some(format!("next start = {}", t.answered_end_offset)));
    } else {
        m.mark("l_else", latest.map(|l| format!("latest = {l}")));
    }
    m.mark("if_undefined", Some(if t.answered_end_offset < 0 { "yes" } else { "no" }.into()));
    if t.answered_end_offset < 0 {
        m.mark("hw", Some(format!("hw = {hw}")));
    } else {
        m.mark(
            "min",
            Some(format!("min({}, {}) = {}", t.answered_end_offset, t.follower_log_end_offset, t.truncate_to)),
        );
    }
}

/// Mark the kip279 (2.0 - 2.7) lines one round trip ran.
fn kip279_round(
    m: &mut Marker,
    rules: &Rules,
    n: usize,
    t: &RoundTrip,
    leader: &ReplicaView,
    hw: i64,
    tag: &impl Fn(usize, String) -> String,
) {
    m.mark("if_empty", Some(tag(n, "no".into())));
    m.mark("e", Some(tag(n, format!("e = {}", t.requested_epoch))));
    let le = t.answered_epoch.unwrap_or(-1);
    m.mark("ask", Some(tag(n, format!("({le}, {})", offset_text(t.answered_end_offset)))));
    if rules.offsets_for_leader_epoch_fencing {
        m.mark("l_fenced", Some(tag(n, "no".into())));
    }
    let first = leader.epochs.earliest();
    if let Some(f) = first.filter(|f| t.requested_epoch >= 0 && t.requested_epoch < f.leader_epoch) {
        let seen = match rules.below_first_epoch {
            BelowFirstEpoch::Undefined => format!("first = {}", f.leader_epoch),
            BelowFirstEpoch::FirstStartOffset => format!("first = ({}, {})", f.leader_epoch, f.start_offset),
        };
        m.mark("l_below", Some(tag(n, seen)));
    }
    m.mark("if_undefined", Some(tag(n, if t.answered_end_offset < 0 { "yes" } else { "no" }.into())));
    if t.answered_end_offset < 0 {
        m.mark("hw", Some(tag(n, format!("hw = {hw}"))));
        return;
    }
    follower_side(m, n, t, tag);
}

/// The follower's own lookup and its cut, after an answer with an epoch.
fn follower_side(m: &mut Marker, n: usize, t: &RoundTrip, tag: &impl Fn(usize, String) -> String) {
    let le = t.answered_epoch.unwrap_or(-1);
    let Some(own) = t.follower_epoch_end else { return };
    m.mark("own", Some(tag(n, format!("({}, {})", own.leader_epoch, offset_text(own.end_offset)))));
    m.mark("if_fe", Some(tag(n, if own.leader_epoch != le { "yes" } else { "no" }.into())));
    if own.leader_epoch != le {
        m.mark("partial", Some(tag(n, format!("fend = {}", t.truncate_to))));
    } else {
        m.mark(
            "min",
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

/// Mark the 2.8+ lines one fetch ran.
fn fetch_round(m: &mut Marker, n: usize, t: &RoundTrip, leader: &ReplicaView, tag: &impl Fn(usize, String) -> String) {
    if n == 1 {
        m.mark("if_empty", Some("no".into()));
        m.mark("loop", None);
    }
    m.mark("e", Some(tag(n, format!("e = {}", t.requested_epoch))));
    m.mark("fetch", Some(tag(n, format!("offset {}, epoch {}", t.follower_log_end_offset, t.requested_epoch))));
    let le = t.answered_epoch.unwrap_or(-1);
    m.mark("l_lookup", Some(tag(n, format!("({le}, {})", offset_text(t.answered_end_offset)))));
    match t.reason {
        TruncationReason::OutOfRangeLeaderEnd | TruncationReason::OutOfRangeKept => {
            m.mark("l_oor", None);
            m.mark("if_oor", Some(tag(n, "yes".into())));
            m.mark(
                "oor",
                Some(tag(
                    n,
                    format!("min({}, {}) = {}", leader.log_end_offset, t.follower_log_end_offset, t.truncate_to),
                )),
            );
        }
        TruncationReason::NotDiverging => {
            m.mark("l_same", None);
            m.mark("if_oor", Some(tag(n, "no".into())));
            m.mark("not_diverging", Some(tag(n, "yes".into())));
        }
        _ => {
            m.mark("l_diverging", None);
            m.mark("if_oor", Some(tag(n, "no".into())));
            m.mark("not_diverging", Some(tag(n, "no".into())));
            follower_side(m, n, t, tag);
        }
    }
}

/// Why the follower `f` ends where it does against the leader `l`, in one sentence with the
/// values (what `demo --predict` shows after each recovery question). Each era's cause is its
/// own: hw cuts at the follower's own HW and asks nothing; kip101 and kip279 cut where the
/// leader's epoch lookup says, and never look at the HW (except as a fallback when the lookup
/// has no answer). `diverges_at`: the first offset where the kept log holds another record than
/// the leader's, named as the divergence the next era fixed.
pub fn one_sentence(
    plan: &TruncationPlan,
    leader: &ReplicaView,
    follower: &ReplicaView,
    (l, f): (&str, &str),
    diverges_at: Option<i64>,
) -> String {
    let hw = follower.high_watermark.min(follower.log_end_offset).max(0);
    let mode = plan.mode.name();
    let to = plan.truncation_offset;
    let ignores_hw = format!("; {f}'s own HW ({hw}) plays no part");
    let mut sentence = match (plan.reason, plan.round_trips.last()) {
        (TruncationReason::OutOfRangeLeaderEnd, Some(t)) => format!(
            "{mode}: {l} cannot place {f}'s epoch {} (OFFSET_OUT_OF_RANGE), so {f} truncates to {l}'s log end, {to}",
            t.requested_epoch
        ),
        (TruncationReason::OutOfRangeKept | TruncationReason::NotDiverging, _) => {
            format!("{mode}: {}; {f} keeps its log to {to}{ignores_hw}", plan.reason.describe())
        }
        (TruncationReason::OwnHighWatermark, _) => {
            let other = if leader.high_watermark != hw {
                format!(" ({l}'s is {}; {f} never asks it)", leader.high_watermark)
            } else {
                format!(" ({f} never asks {l})")
            };
            format!("{mode}: {f} truncates to its own HW, {hw}, from its HW checkpoint{other}")
        }
        (TruncationReason::NoEpochCacheHighWatermark, _) => {
            format!("{mode}: {f} has no epoch to ask {l} about (its epoch cache is empty), so it falls back to its own HW, {hw}")
        }
        (TruncationReason::UndefinedAnswerHighWatermark, Some(t)) => format!(
            "{mode}: {l} has no end offset for {f}'s epoch {} (UNDEFINED), so {f} falls back to its own HW, {hw}",
            t.requested_epoch
        ),
        (_, Some(t)) if plan.mode == TruncationMode::Kip101 => format!(
            "{mode}: {f} asks {l} where its latest epoch {} ends; {l} answers {}, and {f} truncates to min({}, its \
             LEO {}) = {to}{ignores_hw}",
            t.requested_epoch, t.answered_end_offset, t.answered_end_offset, t.follower_log_end_offset
        ),
        (_, Some(t)) => {
            let rounds = plan.round_trips.len();
            let le = t.answered_epoch.unwrap_or(-1);
            let own = t
                .follower_epoch_end
                .map_or(String::new(), |o| format!("; {f}'s own end for epoch {le} is {}", o.end_offset));
            let asked = if rounds > 1 { format!("in round {rounds} ") } else { String::new() };
            format!(
                "{mode}: {asked}{f} asks {l} about its latest epoch {}; {l} answers epoch {le} ending at {}{own}, so \
                 {f} truncates to {to}{ignores_hw}",
                t.requested_epoch, t.answered_end_offset
            )
        }
        (_, None) => format!("{mode}: {}", plan.reason.describe()),
    };
    if let Some(d) = diverges_at {
        let fixed = match plan.mode {
            TruncationMode::Hw => " (KIP-101 fixed it: the epoch lookup cuts below the first different record)",
            TruncationMode::Kip101 => {
                " (KIP-279 fixed it: the leader answers with its epoch too, and the follower asks again)"
            }
            TruncationMode::Kip279 => "",
        };
        sentence.push_str(&format!("; but {l} holds another record at offset {d}: the logs diverge there{fixed}"));
    }
    sentence
}

/// The lines of a procedure that is not an era's truncation, each with what it saw (`None`:
/// did not run).
fn simple(title: &'static str, source: String, lines: Vec<(usize, &'static str, Option<String>)>) -> Explanation {
    Explanation {
        title,
        source,
        lines: lines
            .into_iter()
            .map(|(depth, code, value)| ExplainLine {
                depth,
                code,
                ran: value.is_some(),
                values: value.into_iter().filter(|v| !v.is_empty()).collect(),
            })
            .collect(),
        notes: vec![],
    }
}

impl super::fetch::FetchRound {
    /// The round as it ran, line by line (`fetch --explain`, `demo --explain`, the capture's
    /// code panel). Here rather than beside the round, so that `fetch` never imports its
    /// explanation.
    pub fn explanation(&self) -> Explanation {
        explain_fetch(self)
    }
}

/// One fetch round ([`super::fetch::fetch_round`], Kafka `Partition.fetchRecords`,
/// `ReplicaFetcherThread.processPartitionData`): the order that makes the follower's HW lag.
/// From 2.8 the round runs the fetch-response truncation path ([`explain_fetch_on_epoch`]).
pub fn explain_fetch(f: &super::fetch::FetchRound) -> Explanation {
    if f.rules.truncation_on_fetch {
        return explain_fetch_on_epoch(f);
    }
    let halts = f.rules.past_leader_end_halts();
    let ran = |v: String| (!f.broker_stops).then_some(v);
    let copied = f.stuck.is_none() && !f.broker_stops;
    let past_end = if halts {
        "if leo > leader.leo: stop the broker (FatalExitError)  # unclean election disabled"
    } else {
        "if leo > leader.leo: truncate_to(leader.leo)"
    };
    let past_end_ran = if f.broker_stops {
        Some(format!("{} > {}", f.fetch_offset, f.leader_log_end_offset))
    } else {
        f.truncated.map(|(a, b)| format!("{a} -> {b}"))
    };
    simple(
        "fetch",
        format!(
            "Kafka {} (before 2.8): one fetch round, no last fetched epoch; the leader answers with the HW it \
             read before recording the fetch (Partition.fetchRecords, ReplicaFetcherThread.processPartitionData)",
            f.rules.release
        ),
        vec![
            (0, past_end, past_end_ran),
            (0, "r = leader.fetch(offset=leo)", ran(format!("offset {}", f.fetch_offset))),
            (1, "leader: returned_hw = hw", ran(format!("{}", f.returned_high_watermark))),
            (1, "leader: record the fetch offset", ran(format!("{}", f.fetch_offset))),
            (
                1,
                "leader: hw = min(ISR's LEO), never back",
                ran(format!("{} -> {}", f.returned_high_watermark, f.leader_high_watermark)),
            ),
            (1, "leader: whole batches from the offset", ran(format!("{} batch(es)", f.batches_copied))),
            (0, "if a batch starts below leo: stop (stuck)", f.stuck.as_ref().map(|_| String::new())),
            (0, "append(r.batches)  # bytes unchanged", copied.then(|| format!("LEO {}", f.follower_log_end_offset))),
            (
                0,
                "hw = min(r.returned_hw, leo)",
                copied.then(|| {
                    format!(
                        "min({}, {}) = {}",
                        f.returned_high_watermark, f.follower_log_end_offset, f.follower_high_watermark
                    )
                }),
            ),
        ],
    )
}

/// A 2.8+ fetch round (KAFKA-10554): the last fetched epoch, the leader's check before it
/// reads or records (`Partition.readRecords`), and the follower's answer to a diverging epoch
/// (`truncateOnFetchResponse`) or OFFSET_OUT_OF_RANGE (`fetchOffsetAndTruncate`). Marks the
/// lines the round ran, from what [`super::fetch::fetch_round`] recorded.
fn explain_fetch_on_epoch(f: &super::fetch::FetchRound) -> Explanation {
    let c = EpochFetchFacts::of(f);
    let mut lines = epoch_fetch_leader_lines(f, &c);
    lines.extend(epoch_fetch_out_of_range_lines(f, &c));
    lines.extend(epoch_fetch_diverging_and_append_lines(f, &c));
    simple(
        "fetch",
        format!(
            "Kafka {} (2.8 and later): one fetch with the last fetched epoch (KAFKA-10554: Partition.readRecords, \
             ReplicaManager.updateFollowerFetchState, AbstractFetcherThread.truncateOnFetchResponse and \
             handleOutOfRangeError)",
            f.rules.release
        ),
        lines,
    )
}

fn yes_no(b: bool) -> String {
    if b {
        "yes".to_string()
    } else {
        "no".to_string()
    }
}

type RanLine = (usize, &'static str, Option<String>);

/// What one fetch with the last fetched epoch saw, as the lines of its procedure test it.
struct EpochFetchFacts {
    last_fetched_epoch: Option<i32>,
    oor: Option<super::fetch::OutOfRange>,
    /// The leader's diverging epoch and its end offset.
    diverging: Option<(i32, i64)>,
    records: bool,
    copied: bool,
    cut: Option<super::fetch::AnswerTruncation>,
    unknown: bool,
    start_first: bool,
    below_with_epoch: bool,
    recorded: bool,
    read_check: bool,
    read_oor: bool,
}

impl EpochFetchFacts {
    fn of(f: &super::fetch::FetchRound) -> EpochFetchFacts {
        use super::fetch::{FetchAnswer as A, OutOfRange};
        let e = f.last_fetched_epoch;
        let oor = match f.answer {
            A::OffsetOutOfRange(why) => Some(why),
            _ => None,
        };
        let diverging = match f.answer {
            A::Diverging { leader_epoch, end_offset } => Some((leader_epoch, end_offset)),
            _ => None,
        };
        let records = f.answer == A::Records;
        // The leader's checks, each evaluated only while none before it answered.
        let unknown = oor == Some(OutOfRange::UnknownEpoch);
        // 2.8.0 has no log-start check before the diverging one (KAFKA-12996 came in 2.8.1).
        let start_first = f.rules.below_log_start_before_diverging;
        let below_with_epoch = start_first && e.is_some() && oor == Some(OutOfRange::BelowLogStart);
        // 2.8.0 records a diverging read too (KAFKA-13141 came in 2.8.1).
        let recorded = records || (diverging.is_some() && !f.rules.diverging_answer_skips_fetch_state);
        let epoch_checks_passed = e.is_some() && !unknown && !below_with_epoch && diverging.is_none();
        let read_check = e.is_none() || epoch_checks_passed;
        EpochFetchFacts {
            last_fetched_epoch: e,
            oor,
            diverging,
            records,
            copied: records && f.stuck.is_none(),
            cut: f.answer_truncation,
            unknown,
            start_first,
            below_with_epoch,
            recorded,
            read_check,
            read_oor: read_check && oor.is_some(),
        }
    }
}

/// The fetch and the leader's side of it: its epoch checks, the read's range check, the fetch
/// state it records and the batches it reads.
fn epoch_fetch_leader_lines(f: &super::fetch::FetchRound, c: &EpochFetchFacts) -> Vec<RanLine> {
    vec![
        (
            0,
            "e = latest_epoch()  # none: empty cache",
            Some(c.last_fetched_epoch.map_or("none".into(), |e| format!("e = {e}"))),
        ),
        (
            0,
            "r = leader.fetch(offset=leo)  # last_fetched_epoch=e",
            Some(format!(
                "offset {}, epoch {}",
                f.fetch_offset,
                c.last_fetched_epoch.map_or("none".into(), |e| e.to_string())
            )),
        ),
        (1, "leader: returned_hw = hw", c.oor.is_none().then(|| f.leader_high_watermark.to_string())),
        (
            1,
            "leader: if e: (le, lend) = its end_offset_for(e)",
            f.leader_epoch_end.map(|l| format!("({}, {})", l.leader_epoch, offset_text(l.end_offset))),
        ),
        (2, "leader: if lend == UNDEFINED: OFFSET_OUT_OF_RANGE", c.last_fetched_epoch.map(|_| yes_no(c.unknown))),
        (
            2,
            "leader: elif offset < log_start: OFFSET_OUT_OF_RANGE",
            (c.start_first && c.last_fetched_epoch.is_some() && !c.unknown).then(|| {
                format!("{} ({} vs {})", yes_no(c.below_with_epoch), f.fetch_offset, f.leader_log_start_offset)
            }),
        ),
        (
            2,
            "leader: elif le < e or lend < offset: diverging (le, lend)",
            (c.last_fetched_epoch.is_some() && !c.unknown && !c.below_with_epoch).then(|| match c.diverging {
                Some((le, lend)) => format!("yes: ({le}, {lend})"),
                None => "no".into(),
            }),
        ),
        (
            1,
            "leader: if offset outside [log_start, leo]: OFFSET_OUT_OF_RANGE",
            c.read_check.then(|| {
                format!(
                    "{} ({} vs [{}, {}])",
                    yes_no(c.read_oor),
                    f.fetch_offset,
                    f.leader_log_start_offset,
                    f.leader_log_end_offset
                )
            }),
        ),
        (1, "leader: record the fetch offset", c.recorded.then(|| f.fetch_offset.to_string())),
        (
            1,
            "leader: hw = min(ISR's LEO), never back",
            c.recorded.then(|| format!("{} -> {}", f.returned_high_watermark, f.leader_high_watermark)),
        ),
        (1, "leader: whole batches from the offset", c.records.then(|| format!("{} batch(es)", f.batches_copied))),
    ]
}

/// The follower's answer to OFFSET_OUT_OF_RANGE (`fetchOffsetAndTruncate`), and the HW a
/// diverging answer still sets before 3.4.1.
fn epoch_fetch_out_of_range_lines(f: &super::fetch::FetchRound, c: &EpochFetchFacts) -> Vec<RanLine> {
    use super::fetch::AnswerTruncation as T;
    let mut lines = vec![
        (0, "if OFFSET_OUT_OF_RANGE:", Some(c.oor.map_or("no".into(), |w| format!("yes: {}", w.describe())))),
        (
            1,
            "if leader.leo < leo: truncate_to(leader.leo)",
            c.oor.map(|_| match c.cut {
                Some(T::ToLeaderEnd { offset }) => format!("yes ({offset} < {})", f.fetch_offset),
                _ => "no".into(),
            }),
        ),
        (
            1,
            "elif leader.log_start > leo: restart_at(leader.log_start)",
            match c.cut {
                Some(T::RestartAtLeaderStart { offset }) => Some(format!("yes: start = {offset}")),
                Some(T::Kept) => Some("no".into()),
                _ => None,
            },
        ),
        (
            1,
            "else: keep the log; the next fetch asks the same",
            (c.cut == Some(T::Kept)).then(|| format!("leader LEO {} >= {}", f.leader_log_end_offset, f.fetch_offset)),
        ),
        (0, "elif diverging:", c.oor.is_none().then(|| yes_no(c.diverging.is_some()))),
    ];
    if !f.rules.diverging_response_skips_high_watermark {
        lines.push((
            1,
            "hw = min(r.returned_hw, leo)  # before 3.4.1 (KAFKA-14704)",
            c.diverging.map(|_| {
                let hw = f.returned_high_watermark.min(f.fetch_offset);
                format!("min({}, {}) = {hw}", f.returned_high_watermark, f.fetch_offset)
            }),
        ));
    }
    lines
}

/// The follower's answer to a diverging epoch (`truncateOnFetchResponse`), or its append of the
/// records read.
fn epoch_fetch_diverging_and_append_lines(f: &super::fetch::FetchRound, c: &EpochFetchFacts) -> Vec<RanLine> {
    use super::fetch::AnswerTruncation as T;
    let (own, to) = match c.cut {
        Some(T::Diverging { follower_epoch_end, offset, .. }) => (Some(follower_epoch_end), offset),
        _ => (None, -1),
    };
    let le = c.diverging.map_or(-1, |d| d.0);
    let lend = c.diverging.map_or(-1, |d| d.1);
    let placed = |o: &Option<crate::log::epoch_cache::EpochEndOffset>| o.filter(|o| !o.is_undefined());
    let own_undefined = own.as_ref().is_some_and(|o| placed(o).is_none());
    let own_other = own.as_ref().and_then(placed).is_some_and(|o| o.leader_epoch != le);
    let own_same = own.as_ref().and_then(placed).filter(|o| o.leader_epoch == le);
    vec![
        (
            1,
            "(fe, fend) = own end_offset_for(le)",
            own.map(|o| o.map_or("none".into(), |o| format!("({}, {})", o.leader_epoch, offset_text(o.end_offset)))),
        ),
        (
            1,
            "if fe is UNDEFINED: truncate_to(min(lend, leo))",
            own_undefined.then(|| format!("min({lend}, {}) = {to}", f.fetch_offset)),
        ),
        (
            1,
            "elif fe != le: truncate_to(fend); fetch again with the new epoch",
            own_other.then(|| format!("fend = {to}")),
        ),
        (
            1,
            "else: truncate_to(min(fend, lend, leo))",
            own_same.map(|o| format!("min({}, {lend}, {}) = {to}", o.end_offset, f.fetch_offset)),
        ),
        (0, "else:", c.records.then(String::new)),
        (1, "if a batch starts below leo: stop (stuck)", f.stuck.as_ref().map(|_| String::new())),
        (1, "append(r.batches)  # bytes unchanged", c.copied.then(|| format!("LEO {}", f.follower_log_end_offset))),
        (
            1,
            "hw = min(r.returned_hw, leo)",
            c.copied.then(|| {
                format!(
                    "min({}, {}) = {}",
                    f.returned_high_watermark, f.follower_log_end_offset, f.follower_high_watermark
                )
            }),
        ),
    ]
}

/// What an election did, as [`super::leader::become_leader`] reports it.
pub struct ElectionFacts {
    pub leader_epoch: i32,
    pub isr: usize,
    pub log_end_offset: i64,
    pub epoch_entry: Option<(i32, i64)>,
    pub high_watermark: i64,
}

/// Becoming a leader ([`super::leader::become_leader`], Kafka `Partition.makeLeader`).
pub fn explain_election(e: &ElectionFacts) -> Explanation {
    simple(
        "elect",
        "becoming the leader (Partition.makeLeader); the epoch entry at election is Kafka 2.0.1's and later's \
         (KAFKA-7415)"
            .into(),
        vec![
            (0, "role = leader at epoch", Some(format!("{}", e.leader_epoch))),
            (0, "isr = the members named", Some(format!("{} follower(s)", e.isr))),
            (0, "save the epoch: durable before it stamps", Some(String::new())),
            (0, "if kafka >= 2.0.1: cache.assign(epoch, leo)", e.epoch_entry.map(|(ep, o)| format!("({ep}, {o})"))),
            (0, "else: the entry waits for the first append", e.epoch_entry.is_none().then(String::new)),
            (0, "hw = min(ISR's LEO), never back", Some(format!("{}", e.high_watermark))),
        ],
    )
}

/// What a leader's append did.
pub struct AppendFacts {
    pub leader_epoch: i32,
    pub first_offset: i64,
    pub log_end_offset: i64,
    pub epoch_entry: Option<(i32, i64)>,
    pub high_watermark_before: i64,
    pub high_watermark: i64,
}

/// A leader's append (Kafka `UnifiedLog.appendAsLeader`).
pub fn explain_append(a: &AppendFacts) -> Explanation {
    simple(
        "append",
        "the leader appends (UnifiedLog.appendAsLeader): batches stamped with its epoch".into(),
        vec![
            (0, "stamp the batch with the leader epoch", Some(format!("{}", a.leader_epoch))),
            (0, "if the epoch is new: cache.assign(epoch, leo)", a.epoch_entry.map(|(e, o)| format!("({e}, {o})"))),
            (0, "write at leo", Some(format!("offsets {}..{}", a.first_offset, a.log_end_offset - 1))),
            (
                0,
                "hw = min(ISR's LEO), never back",
                Some(format!("{} -> {}", a.high_watermark_before, a.high_watermark)),
            ),
        ],
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::log::epoch_cache::EpochEndOffset;
    use crate::log::epoch_cache::{EpochCache, EpochEntry};
    use crate::replication::fetch::{AnswerTruncation, FetchAnswer, FetchRound, FetchRound as Fr, OutOfRange};
    use crate::replication::release::Release;
    use crate::replication::truncation::{plan, plan_truncation};

    fn plan_at(release: &str, leader: &ReplicaView, follower: &ReplicaView) -> TruncationPlan {
        plan(&Release::parse(release).unwrap().rules(), leader, follower)
    }

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
        let e = explain(&plan_at("2.7.2", &leader, &follower), &leader, &follower);
        let ran = e.ran_lines();
        assert!(ran.contains(&"truncate_to(fend); ask again ◀ round 1: fend = 7".to_string()), "{ran:#?}");
        assert!(ran.iter().any(|l| l.starts_with("truncate_to(min(fend, lend, leo)); stop ◀ round 2:")), "{ran:#?}");
        // From 2.8 the same answers come in fetch responses.
        let e = explain(&plan_at("2.8.0", &leader, &follower), &leader, &follower);
        let ran = e.ran_lines();
        assert!(ran.contains(&"truncate_to(fend); fetch again ◀ round 1: fend = 7".to_string()), "{ran:#?}");
        assert!(ran.iter().any(|l| l.starts_with("leader: else: diverging epoch")), "{ran:#?}");
        assert!(e.source.starts_with("Kafka 2.8.0 (2.8 and later"), "{}", e.source);
    }

    /// Partition.readRecords (2.8.0): an epoch the leader cannot place is OFFSET_OUT_OF_RANGE;
    /// the follower truncates to the leader's LEO (`fetchOffsetAndTruncate`), not to its HW.
    #[test]
    fn from_2_8_an_undefined_end_is_out_of_range_in_the_procedure() {
        let leader = view(&[(0, 0), (2, 4)], 6, 5);
        let follower = view(&[(0, 0), (5, 3)], 8, 2);
        let ran = explain(&plan_at("4.4.0", &leader, &follower), &leader, &follower).ran_lines();
        assert!(ran.contains(&"if OFFSET_OUT_OF_RANGE: ◀ yes".to_string()), "{ran:#?}");
        assert!(ran.contains(&"truncate_to(min(leader_leo, leo)); stop ◀ min(6, 8) = 6".to_string()), "{ran:#?}");
    }

    /// ReplicaFetcherThread (0.11.0.0 - 1.1.1): the follower asks with -1 when its cache is
    /// empty; LeaderEpochFileCache.endOffsetFor answers UNDEFINED from KAFKA-6857 on.
    #[test]
    fn kip101_names_the_kafka_6857_line_only_where_the_release_has_it() {
        let leader = view(&[(0, 0)], 6, 6);
        let follower = view(&[], 4, 2);
        let after = explain(&plan_at("1.1.1", &leader, &follower), &leader, &follower).ran_lines();
        assert!(after.contains(&"leader: if e == -1: UNDEFINED".to_string()), "{after:#?}");
        let before = explain(&plan_at("1.1.0", &leader, &follower), &leader, &follower);
        assert!(!before.lines.iter().any(|l| l.code.contains("e == -1")), "{:#?}", before.lines);
        assert!(before.ran_lines().contains(&"leader: else: UNDEFINED ◀ latest = 0".to_string()));
    }

    #[test]
    fn an_undefined_answer_marks_the_leaders_else_rule_and_the_high_watermark_fallback() {
        // The follower's latest epoch 5 is above everything the leader has: UNDEFINED in both
        // protocols (the kip101 and kip279 modes of replication/truncation.rs).
        let leader = view(&[(0, 0), (2, 4)], 6, 5);
        let follower = view(&[(0, 0), (5, 3)], 8, 2);
        let kip101 = explain(&plan_truncation(TruncationMode::Kip101, &leader, &follower), &leader, &follower);
        assert_eq!(
            kip101.ran_lines(),
            [
                "become_follower(leader)",
                "e = latest_epoch()  # -1: empty cache ◀ e = 5",
                "answer = leader.offsets_for_leader_epoch_v0(e) ◀ answer = UNDEFINED",
                "leader: else: UNDEFINED ◀ latest = 2",
                "if answer == UNDEFINED: ◀ yes",
                "truncate_to(hw) ◀ hw = 2",
                "if leo < leader.log_start: ◀ no (2 >= 0)",
                "if leo > leader.leo:  # the first fetch: OFFSET_OUT_OF_RANGE ◀ no (2 <= 6)",
            ]
        );
        let kip279 = explain(&plan_at("2.7.2", &leader, &follower), &leader, &follower);
        let ran = kip279.ran_lines();
        assert!(ran.contains(&"if lend == UNDEFINED: ◀ yes".to_string()), "{ran:#?}");
        assert!(ran.contains(&"truncate_to(hw); stop ◀ hw = 2".to_string()), "{ran:#?}");
        assert!(!ran.iter().any(|l| l.starts_with("(fe, fend)")), "{ran:#?}");
    }

    #[test]
    fn the_one_sentence_reason_names_the_values_it_used() {
        let leader = view(&[(0, 0)], 2, 2);
        let follower = view(&[(0, 0)], 2, 1);
        let hw = plan_truncation(TruncationMode::Hw, &leader, &follower);
        assert_eq!(
            one_sentence(&hw, &leader, &follower, ("B", "A"), None),
            "hw: A truncates to its own HW, 1, from its HW checkpoint (B's is 2; A never asks it)"
        );
        let kip101 = plan_truncation(TruncationMode::Kip101, &leader, &follower);
        let why = one_sentence(&kip101, &leader, &follower, ("B", "A"), None);
        assert!(why.ends_with("min(2, its LEO 2) = 2; A's own HW (1) plays no part"), "{why}");
        assert!(!why.contains("divergence"), "{why}");
        let diverging = one_sentence(&kip101, &leader, &follower, ("B", "A"), Some(1));
        assert!(diverging.ends_with("the logs diverge there (KIP-279 fixed it: the leader answers with its epoch too, and the follower asks again)"), "{diverging}");
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

    /// Partition.fetchRecords then ReplicaFetcherThread.processPartitionData: the response
    /// carries the HW read before the fetch was recorded, so the follower's HW lags.
    #[test]
    fn a_fetch_round_shows_the_hw_it_returned_before_moving_it() {
        for release in ["2.7.2", "4.4.0"] {
            let e = explain_fetch(&round(release, FetchAnswer::Records, None, None));
            let ran = e.ran_lines();
            assert!(ran.contains(&"leader: hw = min(ISR's LEO), never back ◀ 0 -> 2".to_string()), "{ran:#?}");
            assert!(ran.contains(&"hw = min(r.returned_hw, leo) ◀ min(0, 2) = 0".to_string()), "{ran:#?}");
            assert!(!ran.iter().any(|l| l.starts_with("if leo > leader.leo")), "no truncation ran: {ran:#?}");
            assert!(e.source.starts_with(&format!("Kafka {release} (")), "{}", e.source);
        }
    }

    fn round(
        release: &str,
        answer: FetchAnswer,
        last_fetched_epoch: Option<i32>,
        answer_truncation: Option<AnswerTruncation>,
    ) -> FetchRound {
        FetchRound {
            rules: Release::parse(release).unwrap().rules(),
            fetch_offset: 2,
            last_fetched_epoch,
            leader_epoch_end: None,
            answer,
            answer_truncation,
            truncated: None,
            batches_copied: 0,
            records_copied: 0,
            bytes_copied: 0,
            returned_high_watermark: 0,
            leader_log_start_offset: 0,
            leader_log_end_offset: 2,
            leader_high_watermark: 2,
            follower_log_end_offset: 2,
            follower_high_watermark: 0,
            stuck: None,
            broker_stops: false,
        }
    }

    /// Partition.readRecords then truncateOnFetchResponse: a diverging round marks the leader's
    /// diverging line and the follower's KIP-279 step, and never the record or append lines.
    #[test]
    fn a_diverging_fetch_marks_the_check_and_the_cut_but_not_the_read() {
        let mut r = round(
            "4.4.0",
            FetchAnswer::Diverging { leader_epoch: 1, end_offset: 21 },
            Some(2),
            Some(AnswerTruncation::Diverging {
                offset: 11,
                reason: TruncationReason::MinOfBothEnds,
                follower_epoch_end: Some(EpochEndOffset { leader_epoch: 1, end_offset: 11 }),
                complete: true,
            }),
        );
        r.fetch_offset = 16;
        r.leader_epoch_end = Some(EpochEndOffset { leader_epoch: 1, end_offset: 21 });
        let ran = explain_fetch(&r).ran_lines();
        assert!(ran.iter().any(|l| l.ends_with("diverging (le, lend) ◀ yes: (1, 21)")), "{ran:#?}");
        assert!(
            ran.contains(&"else: truncate_to(min(fend, lend, leo)) ◀ min(11, 21, 16) = 11".to_string()),
            "{ran:#?}"
        );
        for not in ["leader: record the fetch offset", "leader: hw = min", "append(", "hw = min(r.returned_hw, leo) ◀"]
        {
            assert!(!ran.iter().any(|l| l.starts_with(not)), "{not} must not run: {ran:#?}");
        }
        // Before KAFKA-14704 the empty response still moved the follower's HW.
        let before = explain_fetch(&Fr { rules: Release::parse("3.4.0").unwrap().rules(), ..r }).ran_lines();
        assert!(before.iter().any(|l| l.starts_with("hw = min(r.returned_hw, leo)  # before 3.4.1")), "{before:#?}");
    }

    /// fetchOffsetAndTruncate: a leader LEO at or above the follower's keeps the log, and the
    /// round says the next fetch asks the same.
    #[test]
    fn an_out_of_range_fetch_marks_the_unknown_epoch_and_the_kept_log() {
        let r = round(
            "2.8.0",
            FetchAnswer::OffsetOutOfRange(OutOfRange::UnknownEpoch),
            Some(5),
            Some(AnswerTruncation::Kept),
        );
        let ran = explain_fetch(&r).ran_lines();
        assert!(ran.contains(&"leader: if lend == UNDEFINED: OFFSET_OUT_OF_RANGE ◀ yes".to_string()), "{ran:#?}");
        assert!(ran.iter().any(|l| l.starts_with("else: keep the log; the next fetch asks the same ◀")), "{ran:#?}");
        assert!(!ran.iter().any(|l| l.starts_with("leader: returned_hw")), "an error carries no HW: {ran:#?}");
        assert!(!ran.iter().any(|l| l.starts_with("elif diverging")), "{ran:#?}");
    }

    #[test]
    fn an_election_before_2_1_defers_the_epoch_entry_and_an_append_makes_it() {
        let e = explain_election(&ElectionFacts {
            leader_epoch: 3,
            isr: 0,
            log_end_offset: 5,
            epoch_entry: None,
            high_watermark: 5,
        });
        assert!(e.ran_lines().contains(&"else: the entry waits for the first append".to_string()));
        let a = explain_append(&AppendFacts {
            leader_epoch: 3,
            first_offset: 5,
            log_end_offset: 6,
            epoch_entry: Some((3, 5)),
            high_watermark_before: 5,
            high_watermark: 6,
        });
        assert!(a.ran_lines().contains(&"if the epoch is new: cache.assign(epoch, leo) ◀ (3, 5)".to_string()));
    }
}
