//! A step of a lab history: an action of the explorer's model (with the rules its command runs
//! by), or a klog command line outside the model (the transactional and tiered scenes' lines);
//! and the model configuration the lab's steps are checked against.

use super::*;

/// One step of a history: the action and the rules its command runs by (the mode of a
/// `recover --leader`; an election's epoch entry).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Step {
    pub action: Action,
    pub rules: Rules,
    /// An append's records, written as one batch by one command (`append b m1 m2`): the
    /// action's value and the ones after it. 1 for every other step.
    pub records: u8,
}

impl Step {
    pub fn new(action: Action, rules: Rules) -> Step {
        Step { action, rules, records: 1 }
    }

    /// The model configuration this step's command line and model transition use.
    pub fn config(&self, replicas: usize) -> Config {
        lab_config(self.rules, replicas)
    }

    /// The model's actions this step is: one, or one append per record of a batch.
    pub fn model_actions(&self) -> impl Iterator<Item = Action> + '_ {
        (0..self.records.max(1)).map(move |k| match self.action {
            Action::Append { replica, value } => Action::Append { replica, value: value + k },
            a => a,
        })
    }

    /// Records this step appends.
    pub fn appended(&self) -> usize {
        if matches!(self.action, Action::Append { .. }) {
            self.records.max(1) as usize
        } else {
            0
        }
    }

    /// The command line, with replicas as `"$LAB/x"`.
    pub fn command(&self, replicas: usize) -> String {
        match self.action {
            Action::Append { replica, .. } if self.records > 1 => {
                let values: Vec<String> = self
                    .model_actions()
                    .filter_map(|a| match a {
                        Action::Append { value, .. } => Some(script::value_name(value)),
                        _ => None,
                    })
                    .collect();
                format!(
                    "klog append \"$LAB/{}\" {} --timestamp {}",
                    letter(replica),
                    values.join(" "),
                    script::TIMESTAMP_MS
                )
            }
            _ => script::command(&self.config(replicas), &self.action),
        }
    }
}

/// A step outside the explorer's model: a klog command line run as it is, with no model
/// transition (the model has no producers and no transactions). The stuck-lso preset is made of
/// them (the demo's own lines: transactional appends, the other producers' appends, fetches,
/// `klog txn`), and so are the fixes the page offers there (the markers).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LineStep {
    /// The command line, with replicas as `"$LAB/x"`.
    pub line: String,
    pub kind: LineKind,
    /// What the scene says of it (the demo's narration before it; the admin abort resolved).
    pub note: Option<String>,
}

/// What a [`LineStep`]'s command does, for the lab's bounds and words.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LineKind {
    Elect,
    /// `append`: records of a producer, in a transaction or not.
    Append {
        records: u8,
        transactional: bool,
    },
    Fetch,
    /// `append --end-txn`: a COMMIT or ABORT marker.
    Marker {
        commit: bool,
    },
    /// `klog txn`: reads the log, changes nothing.
    Txn,
    /// A step of the tiers scene outside the model (`crash`, `recover`, `alter-isr`, `tier copy`,
    /// `tier retain`, `remote`): the model has no remote tier.
    Tiers,
}

/// One step of a branch: an action of the explorer's model, or a command line outside it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LabStep {
    Model(Step),
    Line(LineStep),
}

impl LabStep {
    /// The command line, with replicas as `"$LAB/x"`.
    pub fn command(&self, replicas: usize) -> String {
        match self {
            LabStep::Model(s) => s.command(replicas),
            LabStep::Line(l) => l.line.clone(),
        }
    }

    /// Records this step appends (a marker is not a record a producer sent).
    pub fn appended(&self) -> usize {
        match self {
            LabStep::Model(s) => s.appended(),
            LabStep::Line(LineStep { kind: LineKind::Append { records, .. }, .. }) => *records as usize,
            LabStep::Line(_) => 0,
        }
    }

    /// Whether it elects a leader (the next election's epoch counts them).
    pub fn elects(&self) -> bool {
        match self {
            LabStep::Model(s) => matches!(s.action, Action::Elect { .. }),
            LabStep::Line(l) => l.kind == LineKind::Elect,
        }
    }

    /// Whether it is a `recover --leader` (whose truncation depends on the era).
    pub fn recovers(&self) -> bool {
        matches!(self, LabStep::Model(Step { action: Action::Recover { .. }, .. }))
    }
}

/// Why the explorer is off on a branch with a remote tier.
pub const NO_MODEL_FOR_TIERS: &str = "the explorer's model has no remote tier: this branch's steps run as klog \
    command lines with no model transition, so the explorer is off here";

/// Why the explorer is off on a branch with transactions.
pub const NO_MODEL_FOR_TRANSACTIONS: &str = "the explorer's model has no producers and no transactions: this \
    branch's transactional steps run as klog command lines with no model transition, so the explorer is off here";

/// The model configuration of the lab: every action the lab offers is one the model knows;
/// bounds at the model's most (whether a step fits is checked against them).
pub fn lab_config(rules: Rules, replicas: usize) -> Config {
    Config {
        replicas,
        rules,
        max_epochs: MAX_EPOCHS as u8,
        max_records: MAX_RECORDS as u8,
        max_depth: u32::MAX,
        unclean: true,
        fencing: true,
        power_loss: true,
        stale_hw: false,
        min_isr: 1,
        // The page's user elects: any live ISR member, at any time.
        controller: crate::explore::model::Controller::Free,
        tiered: false,
    }
}

/// The rules a step runs by: a recover's mode; elections and the rest at the default era's
/// rules ([`cli::rules_of`]: the epoch entry at election, Kafka >= 2.0.1).
pub fn rules_for(mode: Option<TruncationMode>) -> Rules {
    cli::rules_of(mode)
}
