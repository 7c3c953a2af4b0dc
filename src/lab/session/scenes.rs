//! The presets: the Watch's first steps, the stuck-lso and tiers scenes as their demos play them,
//! each stopping on a line of what to watch for, read from its last frame.

use super::*;

/// The Watch preset's replicas, a (id 1) and b (id 2), by index.
pub(super) const WATCH_A: u8 = 0;
pub(super) const WATCH_B: u8 = 1;

/// The Watch's first steps, as the Watch runs them: b elected at epoch 1 with a in its ISR,
/// m1 m2 appended to b in one batch, two fetch rounds b -> a.
pub fn watch_steps() -> Vec<Step> {
    let rules = rules_for(None);
    let fetch = Step::new(Action::Fetch { leader: WATCH_B, follower: WATCH_A }, rules);
    vec![
        Step::new(Action::Elect { replica: WATCH_B, leader_epoch: 1, isr: 0b11, unclean: false }, rules),
        Step { records: 2, ..Step::new(Action::Append { replica: WATCH_B, value: 1 }, rules) },
        fetch,
        fetch,
    ]
}

/// The line the preset stops on, read from the frame it stops at: what a's and b's HWs are,
/// what is acknowledged, and what to do next.
pub(super) fn watch_hint(frame: &Frame) -> String {
    let (a, b) = (&frame.roles[WATCH_A as usize], &frame.roles[WATCH_B as usize]);
    let acked: Vec<&str> = frame.acked.iter().map(|x| x.value.as_str()).collect();
    let acked = match acked.as_slice() {
        [] => "nothing is".to_string(),
        [one] => format!("{one} is"),
        [rest @ .., last] => format!("{} and {last} are", rest.join(", ")),
    };
    format!(
        "Watch for this: a's HW is {} while b's is {}: {acked} acknowledged, but a (LEO {}) does not know it \
         yet. Crash a, recover it from b under an era, crash b, elect a; then compare the eras side by side.",
        a.high_watermark, b.high_watermark, a.log_end_offset
    )
}

/// The stuck-lso scene's steps as `klog demo stuck-lso` runs them, up to and with its first
/// `klog txn`: the demo's own command lines ([`commands::demo::command_line`]; the lab's creates
/// are the demo's), each with the demo's narration before it as its note.
pub fn stuck_lso_steps() -> Vec<LabStep> {
    use commands::demo::Step as Demo;
    let scene = commands::demo::scenario("stuck-lso").expect("stuck-lso is a built-in scenario");
    let shown = |r: &str| format!("\"$LAB/{r}\"");
    let mut steps = Vec::new();
    let mut note: Option<String> = None;
    for step in &scene.steps {
        let kind = match step {
            Demo::Say(text) => {
                note = Some(text.to_string());
                continue;
            }
            Demo::Create { .. } | Demo::SayByEra { .. } => continue,
            Demo::Elect { .. } => LineKind::Elect,
            Demo::Append { values, .. } => LineKind::Append { records: values.len() as u8, transactional: false },
            Demo::TxnAppend { values, .. } => LineKind::Append { records: values.len() as u8, transactional: true },
            Demo::Fetch { .. } => LineKind::Fetch,
            Demo::Txn { .. } => LineKind::Txn,
            // The scene's fixes are the page's to click, from the stuck frame on.
            Demo::EndTxn { .. } | Demo::AdminAbort { .. } | Demo::Crash { .. } | Demo::Recover { .. } => break,
            // Not in this scene (the tiers scene's own).
            Demo::CreateTiered { .. }
            | Demo::AlterIsr { .. }
            | Demo::TierCopy { .. }
            | Demo::TierRetain { .. }
            | Demo::Remote => break,
        };
        // The scene does not depend on the era: the demo runs it as of today's Kafka (kip279).
        let line = commands::demo::command_line(step, TruncationMode::Kip279, &shown)
            .expect("every step but Say and AdminAbort is one command line");
        steps.push(LabStep::Line(LineStep { line, kind, note: note.take() }));
        if kind == LineKind::Txn {
            break;
        }
    }
    steps
}

/// The tiers scene's steps as `klog demo tiers` runs them, every one: the demo's own command
/// lines ([`commands::demo::command_line`]; the lab's creates are the demo's), each with the
/// demo's narration before it as its note.
pub fn tiers_steps() -> Vec<LabStep> {
    use commands::demo::Step as Demo;
    let scene = commands::demo::scenario("tiers").expect("tiers is a built-in scenario");
    let shown = |r: &str| format!("\"$LAB/{r}\"");
    let mut steps = Vec::new();
    let mut note: Option<String> = None;
    for step in &scene.steps {
        let kind = match step {
            Demo::Say(text) => {
                note = Some(note.take().map_or(text.to_string(), |n| format!("{n} {text}")));
                continue;
            }
            Demo::Create { .. } | Demo::CreateTiered { .. } | Demo::SayByEra { .. } => continue,
            Demo::Elect { .. } => LineKind::Elect,
            Demo::Append { values, .. } => LineKind::Append { records: values.len() as u8, transactional: false },
            Demo::Fetch { .. } => LineKind::Fetch,
            Demo::Crash { .. }
            | Demo::Recover { .. }
            | Demo::AlterIsr { .. }
            | Demo::TierCopy { .. }
            | Demo::TierRetain { .. }
            | Demo::Remote => LineKind::Tiers,
            // Not in this scene (stuck-lso's).
            Demo::TxnAppend { .. } | Demo::EndTxn { .. } | Demo::AdminAbort { .. } | Demo::Txn { .. } => continue,
        };
        // The scene runs Kafka 4.4's rules (kip279).
        let line = commands::demo::command_line(step, TruncationMode::Kip279, &shown)
            .expect("every step but Say and AdminAbort is one command line");
        steps.push(LabStep::Line(LineStep { line, kind, note: note.take() }));
    }
    steps
}

/// The line the tiers preset stops on, read from its last frame.
pub(super) fn tiers_hint(frame: &Frame) -> String {
    let lost: Vec<String> = frame.lost.iter().map(|a| format!("{} (offset {})", a.value, a.offset)).collect();
    let leader = frame.leader.map_or("no replica".to_string(), |(l, e)| format!("{l} (epoch {e})"));
    format!(
        "Watch for this: the leader is {leader}; the acknowledged {} it does not serve. The remote row marks the \
         segment outside its epoch lineage (UNSERVED): klog remote's last lines say which of them remote files \
         still hold. Step back to A's restart to see the remote aux-state code, or copy the script to rebuild it.",
        if lost.is_empty() { "records are all served; none".to_string() } else { lost.join(", ") + " are those" }
    )
}

/// The line the stuck-lso preset stops on, read from its last frame: the LSO, the HW, what
/// holds the LSO, and the fixes to try.
pub(super) fn stuck_lso_hint(frame: &Frame) -> String {
    let Some(t) = &frame.txn else { return "no transaction state read at this frame".into() };
    format!(
        "Watch for this: {r}'s LSO is {lso} while its HW is {hw}, so read_committed consumers stop at {lso}. End the \
         transaction that holds it: let the coordinator's timeout pass (it aborts a transaction it knows; the admin \
         abort is for one it no longer knows), or have its producer commit or abort; then fetch {r} → {f} twice: \
         the LSO moves only once {r}'s HW covers the marker.",
        r = t.replica,
        lso = t.last_stable_offset,
        hw = t.high_watermark,
        f = if t.replica == 'a' { 'b' } else { 'a' },
    )
}

impl Session {
    /// Start over with the Watch's scene: a and b, b elected at epoch 1, m1 m2, two fetch
    /// rounds; the view stops there, on a line of what to watch for.
    pub fn preset_watch(&mut self) -> Result<()> {
        let steps: Vec<LabStep> = watch_steps().into_iter().map(LabStep::Model).collect();
        self.preset(&steps, watch_hint)
    }

    /// Start over with the stuck-lso scene as `klog demo stuck-lso` plays it up to its first
    /// `klog txn`: a leads at epoch 1, producer 1000's transaction t1 t2 left open by its death,
    /// other producers' records moving the HW on; the view stops on the stuck LSO.
    pub fn preset_stuck_lso(&mut self) -> Result<()> {
        self.preset(&stuck_lso_steps(), stuck_lso_hint)
    }

    /// Start over with the tiers scene as `klog demo tiers` plays it: a restart below the
    /// leader's local log start rebuilt from remote storage, then an unclean election leaving a
    /// remote segment no leader serves; the view stops at `klog remote`'s reading.
    pub fn preset_tiers(&mut self) -> Result<()> {
        self.preset(&tiers_steps(), tiers_hint)
    }

    /// Start over with a and b and `steps` (whose leader starts at epoch 1), the view at the
    /// end with `hint` read from the last frame.
    fn preset(&mut self, steps: &[LabStep], hint: fn(&Frame) -> String) -> Result<()> {
        let was = std::mem::replace(&mut self.replicas, 2);
        if let Err(e) = self.start_branch(None, 1, None, steps) {
            self.replicas = was;
            return Err(e);
        }
        let b = self.branches.len() - 1;
        let frame = self.branches[b].frames.last_mut().expect("a branch has its first frame");
        frame.hint = Some(hint(frame));
        self.compare = None;
        Ok(())
    }
}
