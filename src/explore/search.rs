//! Breadth-first search over lab states, level by level, so that the first violation found is
//! at the smallest depth: a shortest counterexample.
//!
//! Each level is expanded in batches: the threads (one per core) expand disjoint slices of the
//! batch while the visited set is only read, then one thread merges their results in slice
//! order — so the search, its counts and the counterexample it returns are the same on any
//! number of cores. The visited set holds 128-bit fingerprints of canonical forms
//! ([`super::canon`]); each discovered state keeps only its parent's index and the action that
//! reached it (8 bytes), and only the current and next levels are kept as whole states.

use super::canon::{fingerprint, Canon};
use super::model::{Action, Config, State, Violation};
use std::collections::HashSet;
use std::hash::{BuildHasherDefault, Hasher};
use std::time::Instant;

/// States expanded between two merges.
const BATCH_STATES: usize = 1 << 14;

/// The fingerprints are hashes already: the set uses their low bits as they are.
#[derive(Default)]
struct PassThrough(u64);

impl Hasher for PassThrough {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for b in bytes {
            self.0 = (self.0 << 8) | *b as u64;
        }
    }
    fn write_u128(&mut self, v: u128) {
        self.0 = v as u64;
    }
}

type Visited = HashSet<u128, BuildHasherDefault<PassThrough>>;

/// What a search did.
#[derive(Debug, Clone, PartialEq)]
pub struct SearchStats {
    /// Distinct states (after canonicalisation), the initial one included.
    pub states: u64,
    /// Actions applied.
    pub transitions: u64,
    /// Violating transitions found (the search stops at the end of the level where it finds
    /// one it can show; violating states are not expanded).
    pub violations: u64,
    /// The depth of the first violation found: the length of a shortest counterexample.
    pub shortest: Option<u32>,
    /// The deepest level reached (number of actions).
    pub depth: u32,
    /// Every state within the depth bound was explored (no violation stopped it, no state cap).
    pub exhaustive: bool,
    /// No new state appeared at the last level: the whole space within the epoch and record
    /// bounds is explored, whatever the depth bound.
    pub closed: bool,
    /// Stopped because the state cap was reached (or memory for the next states could not be
    /// had: then `out_of_memory` too).
    pub capped: bool,
    /// Stopped because an allocation for the search failed (an address-space limit).
    pub out_of_memory: bool,
    /// Stopped at the deadline given to [`search_from`] (then `capped` too).
    pub timed_out: bool,
    pub seconds: f64,
}

impl SearchStats {
    pub fn states_per_second(&self) -> f64 {
        if self.seconds > 0.0 {
            self.states as f64 / self.seconds
        } else {
            0.0
        }
    }
}

/// A shortest history that breaks an invariant.
#[derive(Debug, Clone, PartialEq)]
pub struct Counterexample {
    pub actions: Vec<Action>,
    pub violation: Violation,
}

#[derive(Debug, Clone)]
pub struct SearchOutcome {
    pub stats: SearchStats,
    pub counterexample: Option<Counterexample>,
}

/// One expanded successor, before the merge.
struct Found {
    fingerprint: u128,
    parent: u32,
    action: Action,
    state: State,
    violation: Option<Violation>,
}

/// Run the search. `threads` ≥ 1; `max_states` caps the visited set. The counterexample
/// returned is the first violation found that `accept` takes (the explorer takes those a
/// `recover` report can show); the search goes on past the others, which it counts.
pub fn search(
    cfg: &Config,
    threads: usize,
    max_states: u64,
    accept: &dyn Fn(&State, &Violation) -> bool,
) -> SearchOutcome {
    search_from(cfg, State::initial(cfg.replicas), threads, max_states, None, accept)
}

/// [`search`] from `initial` instead of [`State::initial`] (`klog lab`: from the state its
/// history reached), stopping at `deadline` if it comes first (counted as a cap: the
/// outcome is then not exhaustive). `cfg`'s bounds count from zero, not from `initial`: a
/// state that has issued 2 epochs explores `max_epochs − 2` more elections.
pub fn search_from(
    cfg: &Config,
    initial: State,
    threads: usize,
    max_states: u64,
    deadline: Option<Instant>,
    accept: &dyn Fn(&State, &Violation) -> bool,
) -> SearchOutcome {
    assert_eq!(initial.n(), cfg.replicas, "the configuration models the state's replicas");
    let started = Instant::now();
    let keep_rp = Canon::of(cfg);
    let mut visited: Visited = HashSet::default();
    visited.insert(fingerprint(&initial, keep_rp));
    // parent index and action of every discovered state (index 0: the initial state)
    let mut tree: Vec<(u32, Option<Action>)> = vec![(u32::MAX, None)];
    let mut frontier: Vec<(u32, State)> = vec![(0, initial)];
    let mut stats = SearchStats {
        states: 1,
        transitions: 0,
        violations: 0,
        shortest: None,
        depth: 0,
        exhaustive: false,
        closed: false,
        capped: false,
        out_of_memory: false,
        timed_out: false,
        seconds: 0.0,
    };
    let mut first: Option<(u32, Action, Violation)> = None;
    // Violating states already judged by `accept` and refused.
    let mut refused: Visited = HashSet::default();
    let threads = threads.max(1);
    let mut depth = 0;
    while depth < cfg.max_depth && !frontier.is_empty() && first.is_none() && !stats.capped {
        depth += 1;
        let mut next: Vec<(u32, State)> = Vec::new();
        for batch in frontier.chunks(BATCH_STATES) {
            let found = expand(cfg, batch, &visited, threads, keep_rp);
            for part in found {
                stats.transitions += part.1;
                for f in part.0 {
                    if let Some(v) = f.violation {
                        stats.violations += 1;
                        stats.shortest.get_or_insert(depth);
                        if first.is_none() {
                            let key = fingerprint(&f.state, keep_rp);
                            if !refused.contains(&key) {
                                if accept(&f.state, &v) {
                                    first = Some((f.parent, f.action, v));
                                } else {
                                    refused.insert(key);
                                }
                            }
                        }
                        continue;
                    }
                    // Memory is asked for before it is needed: a failed allocation stops
                    // the search cleanly (as the cap does) instead of aborting the process.
                    if visited.try_reserve(1).is_err() || tree.try_reserve(1).is_err() || next.try_reserve(1).is_err() {
                        stats.out_of_memory = true;
                        break;
                    }
                    if visited.insert(f.fingerprint) {
                        tree.push((f.parent, Some(f.action)));
                        next.push(((tree.len() - 1) as u32, f.state));
                    }
                }
            }
            if visited.len() as u64 >= max_states || stats.out_of_memory {
                stats.capped = true;
                break;
            }
            if deadline.is_some_and(|d| Instant::now() >= d) {
                stats.timed_out = true;
                stats.capped = true;
                break;
            }
        }
        stats.depth = depth;
        stats.states = visited.len() as u64;
        if next.is_empty() && stats.shortest.is_none() && !stats.capped {
            stats.closed = true;
        }
        frontier = next;
    }
    stats.exhaustive = stats.shortest.is_none() && !stats.capped;
    stats.closed |= frontier.is_empty() && stats.exhaustive;
    stats.seconds = started.elapsed().as_secs_f64();
    let counterexample = first.map(|(parent, action, violation)| {
        let mut actions = vec![action];
        let mut at = parent;
        while let Some(a) = tree[at as usize].1 {
            actions.push(a);
            at = tree[at as usize].0;
        }
        actions.reverse();
        Counterexample { actions, violation }
    });
    SearchOutcome { stats, counterexample }
}

/// Expand `batch` on `threads` threads; results per slice, in order, with the transition count.
fn expand(
    cfg: &Config,
    batch: &[(u32, State)],
    visited: &Visited,
    threads: usize,
    keep_rp: Canon,
) -> Vec<(Vec<Found>, u64)> {
    let slice = batch.len().div_ceil(threads).max(1);
    let work = |part: &[(u32, State)]| {
        let mut out = Vec::new();
        let mut actions = Vec::new();
        let mut transitions = 0u64;
        for (id, state) in part {
            state.successors(cfg, &mut actions);
            for &action in &actions {
                transitions += 1;
                let (next, violation) = state.apply(cfg, action);
                let fingerprint = if violation.is_some() { 0 } else { fingerprint(&next, keep_rp) };
                // A violating state is not expanded, so it is never a duplicate to skip.
                if violation.is_none() && visited.contains(&fingerprint) {
                    continue;
                }
                out.push(Found { fingerprint, parent: *id, action, state: next, violation });
            }
        }
        (out, transitions)
    };
    if threads == 1 || batch.len() < 64 {
        return vec![work(batch)];
    }
    std::thread::scope(|scope| {
        let handles: Vec<_> = batch.chunks(slice).map(|part| scope.spawn(move || work(part))).collect();
        handles.into_iter().map(|h| h.join().expect("an explorer thread panicked")).collect()
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::replication::truncation::TruncationMode;

    fn cfg(mode: TruncationMode, replicas: usize, epochs: u8, records: u8, depth: u32) -> Config {
        Config::clean(mode, replicas, epochs, records, depth)
    }

    #[test]
    fn the_search_gives_the_same_result_on_one_thread_and_on_several() {
        let c = cfg(TruncationMode::Kip279, 2, 2, 2, 8);
        let one = search(&c, 1, u64::MAX, &|_, _| true);
        let four = search(&c, 4, u64::MAX, &|_, _| true);
        assert_eq!(one.stats.states, four.stats.states);
        assert_eq!(one.stats.transitions, four.stats.transitions);
        assert_eq!(one.counterexample, four.counterexample);
    }

    #[test]
    fn hw_mode_gives_a_shortest_acked_loss_with_two_replicas() {
        let out = search(&cfg(TruncationMode::Hw, 2, 2, 1, 10), 2, u64::MAX, &|_, _| true);
        let ce = out.counterexample.expect("hw loses an acked record");
        assert!(matches!(ce.violation, Violation::AckedLoss { .. }), "{ce:?}");
        // elect, append, fetch ×2 (acked), recover (cut to HW 0), elect the truncated follower
        assert!(ce.actions.len() <= 7, "{ce:?}");
        assert!(!out.stats.exhaustive);
    }

    #[test]
    fn kip279_with_clean_elections_and_fencing_is_safe_for_small_bounds() {
        let out = search(&cfg(TruncationMode::Kip279, 2, 2, 2, 10), 2, u64::MAX, &|_, _| true);
        assert_eq!(out.counterexample, None);
        assert!(out.stats.exhaustive);
        assert!(out.stats.states > 100);
    }

    /// The acceptance bounds for kip279 with clean elections and fencing.
    #[test]
    fn kip279_is_safe_exhaustively_for_two_replicas_3_3_16_and_three_replicas_2_2_10() {
        for c in [cfg(TruncationMode::Kip279, 2, 3, 3, 16), cfg(TruncationMode::Kip279, 3, 2, 2, 10)] {
            let out = search(&c, 2, u64::MAX, &|_, _| true);
            assert_eq!(out.counterexample, None, "{c:?}");
            assert_eq!(out.stats.violations, 0);
            assert!(out.stats.exhaustive && out.stats.depth > 0, "{c:?}: {:?}", out.stats);
        }
    }

    /// KIP-279's hole on Kafka 1.1.1 rules (epoch entries at the first append, before
    /// KAFKA-7415): a zombie leader's write at an epoch the new leader's cache never had is kept
    /// below both HWs. The new leader must append once for its epoch's entry to exist, so the
    /// shortest history writes three records, one per leader epoch.
    #[test]
    fn kip101_keeps_a_zombie_leaders_write_below_both_hws() {
        let two = search(&cfg(TruncationMode::Kip101, 2, 3, 2, 10), 2, u64::MAX, &|_, _| true);
        assert_eq!(two.counterexample, None, "with two records the new leader's epoch has no entry");
        let out = search(&cfg(TruncationMode::Kip101, 2, 3, 3, 10), 2, u64::MAX, &|_, _| true);
        let ce = out.counterexample.expect("kip101 diverges");
        assert!(matches!(ce.violation, Violation::Divergence { .. }), "{ce:?}");
        let appends = ce.actions.iter().filter(|a| matches!(a, Action::Append { .. })).count();
        assert_eq!(appends, 3, "one write in each of three epochs: {ce:?}");
    }

    /// With the entry at election (2.0.1 →) and OffsetsForLeaderEpoch v0 answers, the same hole
    /// needs only two writes; no release combines the two, so this is the model's own check
    /// that the epoch-entry rule is what moves it (the "depends on the 2.1 rule", which is KAFKA-7415, shipped in 2.0.1).
    #[test]
    fn the_epoch_entry_rule_decides_how_short_kip101s_divergence_is() {
        let mut rules = crate::replication::release::Rules::of_mode(TruncationMode::Kip101);
        rules.epoch_entry_on_election = true;
        let out = search(&Config::clean_at(rules, 2, 3, 2, 10), 2, u64::MAX, &|_, _| true);
        let ce = out.counterexample.expect("diverges with the election-time entry");
        let appends = ce.actions.iter().filter(|a| matches!(a, Action::Append { .. })).count();
        assert_eq!(appends, 2, "{ce:?}");
    }

    /// KIP-101 scenario 1 on 0.10.2.2 rules: the follower restarts and truncates to its lagging
    /// HW; a running follower re-told its leader would not (Partition.makeFollower).
    #[test]
    fn hw_loses_an_acked_record_only_through_a_restart() {
        let out = search(&cfg(TruncationMode::Hw, 2, 3, 3, 16), 2, u64::MAX, &|_, _| true);
        let ce = out.counterexample.expect("hw loses an acked record");
        assert!(ce.actions.iter().any(|a| matches!(a, Action::Crash { .. })), "{ce:?}");
    }

    /// From KIP-101 scenario 1's state after the follower a (HW 1, m2 unacked in its view)
    /// restarted under hw rules (truncated to its HW 1), the shortest acked loss is one
    /// action away: a, still in the ISR, is elected without m2 — shorter than from the start.
    #[test]
    fn a_search_from_a_later_state_finds_the_shorter_way_from_there() {
        let c = cfg(TruncationMode::Hw, 2, 3, 3, 10);
        let mut s = State::initial(2);
        for a in [
            Action::Elect { replica: 1, leader_epoch: 0, isr: 0b11, unclean: false },
            Action::Append { replica: 1, value: 1 },
            Action::Fetch { leader: 1, follower: 0 },
            Action::Fetch { leader: 1, follower: 0 },
            Action::Append { replica: 1, value: 2 },
            Action::Fetch { leader: 1, follower: 0 },
            Action::Fetch { leader: 1, follower: 0 },
            Action::Crash { replica: 0, power_loss: false, hw: None },
            Action::Recover { follower: 0, leader: 1 },
        ] {
            let (next, v) = s.apply(&c, a);
            assert_eq!(v, None, "{a:?}");
            s = next;
        }
        let from_here = search_from(&c, s, 1, u64::MAX, None, &|_, v| matches!(v, Violation::AckedLoss { .. }));
        let ce = from_here.counterexample.expect("a lacks m2 and may be elected");
        assert_eq!(ce.actions, vec![Action::Elect { replica: 0, leader_epoch: 1, isr: 0b11, unclean: false }]);
        assert!(matches!(ce.violation, Violation::AckedLoss { value: 2, offset: 1, leader: 0, .. }), "{ce:?}");
        let from_start = search(&c, 1, u64::MAX, &|_, v| matches!(v, Violation::AckedLoss { .. }));
        assert!(from_start.counterexample.unwrap().actions.len() > ce.actions.len());
    }

    #[test]
    fn a_deadline_stops_the_search_and_says_so() {
        let c = cfg(TruncationMode::Kip279, 2, 3, 3, 16);
        let out = search_from(&c, State::initial(2), 1, u64::MAX, Some(Instant::now()), &|_, _| true);
        assert!(out.stats.timed_out && out.stats.capped && !out.stats.exhaustive, "{:?}", out.stats);
    }

    #[test]
    fn a_state_cap_stops_the_search_and_says_so() {
        let out = search(&cfg(TruncationMode::Kip279, 2, 2, 2, 10), 1, 50, &|_, _| true);
        assert!(out.stats.capped);
        assert!(!out.stats.exhaustive);
    }
}
