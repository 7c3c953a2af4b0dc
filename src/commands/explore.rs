//! `klog explore`: search, exhaustively within bounds, for the shortest history of klog commands
//! that loses an acked record or leaves two replicas diverged below their HWs, per truncation
//! mode; narrate it step by step and emit it as a runnable script (the engine is
//! [`crate::explore`]). Returns a report; rendering is in `output::explore`.

use crate::durable;
use crate::error::{Error, Result};
use crate::explore::model::{Action, Config, State, Violation, MAX_EPOCHS, MAX_RECORDS};
use crate::explore::script::{self, replica_name, value_name};
use crate::explore::search::{search, SearchStats};
use crate::explore::witness::{find_witness, Witness};
use crate::replica::Role;
use crate::replication::classify::RecordClass;
use crate::replication::truncation::TruncationMode;
use std::path::{Path, PathBuf};

/// Default bounds: 2 replicas, 3 epochs, 3 records, 16 actions.
pub const DEFAULT_REPLICAS: usize = 2;
pub const DEFAULT_MAX_EPOCHS: u8 = 3;
pub const DEFAULT_MAX_RECORDS: u8 = 3;
pub const DEFAULT_MAX_DEPTH: u32 = 16;
/// Default cap on distinct states per run: about 2 GB of search state (85 bytes a state were
/// measured at 9 million states, fingerprints, tree and levels included).
pub const DEFAULT_MAX_STATES: u64 = 25_000_000;

pub struct ExploreRequest<'a> {
    pub modes: Vec<TruncationMode>,
    pub replicas: usize,
    pub max_epochs: u8,
    pub max_records: u8,
    pub max_depth: u32,
    pub unclean: bool,
    pub fencing: bool,
    pub power_loss: bool,
    /// Worker threads (at least 1).
    pub threads: usize,
    pub max_states: u64,
    /// Write each counterexample's script here (with `-<mode>` before the extension when
    /// several modes run).
    pub script: Option<&'a Path>,
}

/// One replica after a step.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReplicaLine {
    pub name: char,
    /// leader, follower or crashed.
    pub role: &'static str,
    pub leader_epoch: Option<i32>,
    pub log_end_offset: i64,
    pub high_watermark: i64,
    /// (offset, leader epoch, value).
    pub records: Vec<(i64, i32, String)>,
}

/// One command of a counterexample and every replica after it.
#[derive(Debug, Clone)]
pub struct NarratedStep {
    pub command: String,
    pub replicas: Vec<ReplicaLine>,
}

/// The `recover` that shows the violation.
#[derive(Debug, Clone)]
pub struct WitnessReport {
    /// Lab commands run after the violation, before it.
    pub extra_steps: Vec<NarratedStep>,
    pub command: String,
    pub follower: char,
    pub leader: char,
    pub offset: i64,
    pub value: String,
    pub class: RecordClass,
    pub acked: bool,
}

#[derive(Debug, Clone)]
pub struct CounterexampleReport {
    pub steps: Vec<NarratedStep>,
    pub violation: Violation,
    /// One sentence naming the record, the offset and the replicas.
    pub description: String,
    /// `acked_loss` or `divergence`.
    pub kind: &'static str,
    pub witness: Option<WitnessReport>,
    pub script: Option<String>,
    pub script_path: Option<PathBuf>,
    /// A power-loss crash is part of the history: acks=all relies on replicas, not on fsync.
    pub power_loss: bool,
}

#[derive(Debug, Clone)]
pub struct ExploreRun {
    pub config: Config,
    pub stats: SearchStats,
    pub counterexample: Option<CounterexampleReport>,
}

#[derive(Debug, Clone)]
pub struct ExploreReport {
    pub runs: Vec<ExploreRun>,
}

impl ExploreReport {
    pub fn found_violation(&self) -> bool {
        self.runs.iter().any(|r| r.counterexample.is_some())
    }
}

fn validate(req: &ExploreRequest<'_>) -> Result<()> {
    if !(2..=3).contains(&req.replicas) {
        return Err(Error::Usage(format!("invalid --replicas {}: give 2 or 3", req.replicas)));
    }
    if req.max_epochs == 0 || req.max_epochs as usize > MAX_EPOCHS {
        return Err(Error::Usage(format!("invalid --max-epochs {}: give 1..={MAX_EPOCHS}", req.max_epochs)));
    }
    if req.max_records == 0 || req.max_records as usize >= MAX_RECORDS {
        return Err(Error::Usage(format!("invalid --max-records {}: give 1..={}", req.max_records, MAX_RECORDS - 1)));
    }
    if req.max_depth == 0 || req.max_depth > 64 {
        return Err(Error::Usage(format!("invalid --max-depth {}: give 1..=64", req.max_depth)));
    }
    if req.modes.is_empty() {
        return Err(Error::Usage("no --mode to explore".into()));
    }
    if let Some(path) = req.script {
        // Refuse before searching, not after: the script's dir must exist.
        let dir = path.parent().filter(|d| !d.as_os_str().is_empty()).unwrap_or(Path::new("."));
        if !dir.is_dir() {
            return Err(Error::Usage(format!(
                "--script {}: {} is not a directory to write the script into",
                path.display(),
                dir.display()
            )));
        }
        if path.is_dir() {
            return Err(Error::Usage(format!("--script {}: is a directory, not a file", path.display())));
        }
    }
    Ok(())
}

pub fn run(req: &ExploreRequest<'_>) -> Result<ExploreReport> {
    validate(req)?;
    let mut runs = Vec::new();
    for &mode in &req.modes {
        let config = Config {
            replicas: req.replicas,
            mode,
            max_epochs: req.max_epochs,
            max_records: req.max_records,
            max_depth: req.max_depth,
            unclean: req.unclean,
            fencing: req.fencing,
            power_loss: req.power_loss,
        };
        let outcome =
            search(&config, req.threads, req.max_states, &|state, v| find_witness(&config, state, v).is_some());
        let mut counterexample = outcome.counterexample.map(|ce| narrate(&config, &ce.actions, ce.violation));
        if let (Some(ce), Some(path)) = (counterexample.as_mut(), req.script) {
            if let Some(text) = &ce.script {
                let path = script_path(path, mode, req.modes.len() > 1);
                durable::write_atomic(&path, text.as_bytes())?;
                ce.script_path = Some(path);
            }
        }
        runs.push(ExploreRun { config, stats: outcome.stats, counterexample });
    }
    Ok(ExploreReport { runs })
}

/// `FILE`, or `FILE` with `-<mode>` before its extension when several modes write scripts.
fn script_path(path: &Path, mode: TruncationMode, several: bool) -> PathBuf {
    if !several {
        return path.to_path_buf();
    }
    let stem = path.file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default();
    let name = match path.extension() {
        Some(ext) => format!("{stem}-{}.{}", mode.name(), ext.to_string_lossy()),
        None => format!("{stem}-{}", mode.name()),
    };
    path.with_file_name(name)
}

/// Every replica of `state` as a narration line.
pub fn replica_lines(state: &State) -> Vec<ReplicaLine> {
    (0..state.n())
        .map(|i| {
            let node = &state.nodes[i];
            ReplicaLine {
                name: replica_name(i as u8),
                role: match node.vol {
                    None => "crashed",
                    Some(v) if v.role == Role::Leader => "leader",
                    Some(_) => "follower",
                },
                leader_epoch: node.vol.filter(|v| v.leader_epoch >= 0).map(|v| v.leader_epoch as i32),
                log_end_offset: node.log_end_offset(),
                high_watermark: node.high_watermark as i64,
                records: node
                    .records()
                    .iter()
                    .enumerate()
                    .map(|(o, r)| (o as i64, r.leader_epoch as i32, value_name(r.value)))
                    .collect(),
            }
        })
        .collect()
}

fn describe(v: &Violation) -> (&'static str, String) {
    match *v {
        Violation::AckedLoss { value, offset, leader, leader_epoch, found } => (
            "acked_loss",
            format!(
                "{} at offset {offset} was acked, but {}, elected leader at epoch {leader_epoch}, {}",
                value_name(value),
                replica_name(leader),
                match found {
                    None => format!("has no record at offset {offset}"),
                    Some(r) => format!("holds {} (epoch {}) there", value_name(r.value), r.leader_epoch),
                }
            ),
        ),
        Violation::Divergence { offset, a, b, rec_a, rec_b } => (
            "divergence",
            format!(
                "{} holds {} (epoch {}) and {} holds {} (epoch {}) at offset {offset}, below both of their HWs",
                replica_name(a),
                value_name(rec_a.value),
                rec_a.leader_epoch,
                replica_name(b),
                value_name(rec_b.value),
                rec_b.leader_epoch
            ),
        ),
    }
}

/// Replay `actions` from the initial state, narrating each; find the showing recovery and the
/// script.
pub fn narrate(config: &Config, actions: &[Action], violation: Violation) -> CounterexampleReport {
    let mut state = State::initial(config.replicas);
    let mut steps = Vec::new();
    for a in actions {
        state = state.apply(config, *a).0;
        steps.push(NarratedStep { command: script::command(config, a), replicas: replica_lines(&state) });
    }
    let (kind, description) = describe(&violation);
    let power_loss = actions.iter().any(|a| matches!(a, Action::Crash { power_loss: true, .. }));
    let witness = find_witness(config, &state, &violation);
    let script = witness.as_ref().map(|w| {
        let title = vec![
            format!(
                "klog explore --mode {} --replicas {} --max-epochs {} --max-records {} --max-depth {}{}{}{}",
                config.mode.name(),
                config.replicas,
                config.max_epochs,
                config.max_records,
                config.max_depth,
                if config.unclean { " --unclean" } else { "" },
                if config.fencing { "" } else { " --no-fencing" },
                if config.power_loss { " --power-loss" } else { "" },
            ),
            format!("A shortest counterexample ({} actions): {description}.", actions.len()),
        ];
        script::script(config, actions, w, &title)
    });
    let witness = witness.map(|w| witness_report(config, &state, &w));
    CounterexampleReport { steps, violation, description, kind, witness, script, script_path: None, power_loss }
}

fn witness_report(config: &Config, state: &State, w: &Witness) -> WitnessReport {
    let relaxed = Config { max_records: config.max_records + 1, max_epochs: config.max_epochs + 1, ..*config };
    let mut s = *state;
    let mut extra_steps = Vec::new();
    for a in &w.actions {
        s = s.apply(&relaxed, *a).0;
        extra_steps.push(NarratedStep { command: script::command(config, a), replicas: replica_lines(&s) });
    }
    WitnessReport {
        extra_steps,
        command: script::witness_command(config, w),
        follower: replica_name(w.follower),
        leader: replica_name(w.leader),
        offset: w.offset as i64,
        value: value_name(w.record.value),
        class: w.class,
        acked: w.acked,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn request(mode: TruncationMode) -> ExploreRequest<'static> {
        ExploreRequest {
            modes: vec![mode],
            replicas: 2,
            max_epochs: 2,
            max_records: 2,
            max_depth: 10,
            unclean: false,
            fencing: true,
            power_loss: false,
            threads: 2,
            max_states: DEFAULT_MAX_STATES,
            script: None,
        }
    }

    #[test]
    fn bad_bounds_are_usage_errors() {
        for req in [
            ExploreRequest { replicas: 4, ..request(TruncationMode::Hw) },
            ExploreRequest { max_epochs: 0, ..request(TruncationMode::Hw) },
            ExploreRequest { max_records: 9, ..request(TruncationMode::Hw) },
            ExploreRequest { max_depth: 0, ..request(TruncationMode::Hw) },
            ExploreRequest { modes: vec![], ..request(TruncationMode::Hw) },
            ExploreRequest { script: Some(Path::new("/nonexistent-dir/x.sh")), ..request(TruncationMode::Hw) },
            ExploreRequest { script: Some(Path::new("/")), ..request(TruncationMode::Hw) },
        ] {
            assert!(matches!(run(&req), Err(Error::Usage(_))));
        }
    }

    #[test]
    fn a_counterexample_is_narrated_and_shown_by_a_recovery() {
        let report = run(&request(TruncationMode::Hw)).unwrap();
        let ce = report.runs[0].counterexample.as_ref().expect("hw loses an acked record");
        assert_eq!(ce.kind, "acked_loss");
        assert_eq!(ce.steps.len(), report.runs[0].stats.depth as usize);
        let w = ce.witness.as_ref().expect("a recovery shows it");
        assert!(w.acked && matches!(w.class, RecordClass::AckedLost | RecordClass::Diverged), "{w:?}");
        let script = ce.script.as_ref().unwrap();
        assert!(script.contains("set -euo pipefail") && script.contains("--mode hw"));
        assert!(!ce.power_loss);
    }

    #[test]
    fn script_paths_name_the_mode_when_several_modes_run() {
        let p = Path::new("/tmp/x.sh");
        assert_eq!(script_path(p, TruncationMode::Hw, false), PathBuf::from("/tmp/x.sh"));
        assert_eq!(script_path(p, TruncationMode::Kip101, true), PathBuf::from("/tmp/x-kip101.sh"));
    }
}
