//! The last command of an emitted script: a `recover F --leader L` whose report shows the
//! violation — the acked record at its offset classified ACKED LOST, or DIVERGED (acked) from the
//! leader's log; the diverged offset classified DIVERGED. When no such recovery is possible in
//! the violating state itself (the replica holding the record is the leader, say), a few more
//! lab actions are searched for, breadth first, before it (the record bound may be exceeded by
//! one for this, so the leader can write over the lost offset).

use super::model::{Action, Config, Rec, State, Violation};
use crate::replication::classify::RecordClass;

/// How a recovery shows the violation.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Witness {
    /// Lab actions taken after the violation, before the recovery.
    pub actions: Vec<Action>,
    pub follower: u8,
    pub leader: u8,
    pub offset: u8,
    /// The follower's record there.
    pub record: Rec,
    /// Its class in the report, and whether the report counts it acked.
    pub class: RecordClass,
    pub acked: bool,
}

/// Most lab actions searched before the showing recovery.
const MAX_EXTRA_ACTIONS: usize = 3;

/// Does the report of `recover f --leader l` in `state` show `violation`?
fn shows(state: &State, cfg: &Config, violation: &Violation, f: usize, l: usize) -> Option<Witness> {
    if !state.recover_allowed_by_klog(cfg, f, l) {
        return None;
    }
    let (value, offset) = violation.record();
    let (class, acked, record) = state.recover_class(cfg, f, l, offset as usize)?;
    let ok = match *violation {
        Violation::AckedLoss { .. } => {
            record.value == value && (class == RecordClass::AckedLost || (class == RecordClass::Diverged && acked))
        }
        Violation::Divergence { rec_a, rec_b, .. } => {
            (record == rec_a || record == rec_b) && (class == RecordClass::Diverged || class == RecordClass::AckedLost)
        }
    };
    ok.then_some(Witness { actions: Vec::new(), follower: f as u8, leader: l as u8, offset, record, class, acked })
}

/// The shortest run of lab actions, then one recovery, that shows `violation` from `state`.
pub fn find_witness(cfg: &Config, state: &State, violation: &Violation) -> Option<Witness> {
    let relaxed = Config { max_records: cfg.max_records + 1, max_epochs: cfg.max_epochs + 1, ..*cfg };
    let mut level: Vec<(State, Vec<Action>)> = vec![(*state, Vec::new())];
    let mut actions = Vec::new();
    for depth in 0..=MAX_EXTRA_ACTIONS {
        for (s, path) in &level {
            for l in 0..s.n() {
                for f in 0..s.n() {
                    if let Some(mut w) = (f != l).then(|| shows(s, cfg, violation, f, l)).flatten() {
                        w.actions = path.clone();
                        return Some(w);
                    }
                }
            }
        }
        if depth == MAX_EXTRA_ACTIONS {
            break;
        }
        let mut next = Vec::new();
        for (s, path) in &level {
            s.successors(&relaxed, &mut actions);
            for &a in &actions {
                let (n, _) = s.apply(&relaxed, a);
                let mut p = path.clone();
                p.push(a);
                next.push((n, p));
            }
        }
        level = next;
        if level.len() > 50_000 {
            break;
        }
    }
    None
}
