//! `klog explore`: search, exhaustively within bounds, for the shortest history of klog commands
//! that loses an acked record or leaves two replicas diverged below their HWs, per truncation
//! mode; narrate it step by step and emit it as a runnable script (the engine is
//! [`crate::explore`]). Returns a report; rendering is in `output::explore`.

use crate::durable::{self, output::OutputKind};
use crate::error::{Error, Result};
use crate::explore::model::{Action, Config, Controller, State, Violation, MAX_EPOCHS, MAX_RECORDS};
use crate::explore::script::{self, replica_name, value_name};
use crate::explore::search::{search, SearchStats};
use crate::explore::witness::{find_witness, Witness};
use crate::replica::{ReplicaRole, Role};
use crate::replication::classify::RecordClass;
use crate::replication::release::Rules;
use std::path::{Path, PathBuf};

/// Default bounds: 2 replicas, 3 epochs, 3 records, 16 actions.
pub const DEFAULT_REPLICAS: usize = 2;
pub const DEFAULT_MAX_EPOCHS: u8 = 3;
pub const DEFAULT_MAX_RECORDS: u8 = 3;
pub const DEFAULT_MAX_DEPTH: u32 = 16;
/// Default cap on distinct states per run: about 2 GB of search state (85 bytes a state were
/// measured at 9 million states, fingerprints, tree and levels included).
pub const DEFAULT_MAX_STATES: u64 = 25_000_000;
/// Peak memory of a search per distinct state, measured at the largest bounds (3 replicas, 8
/// epochs, 7 records): 193-255 bytes of resident memory a state at 1-4 million states, the hash
/// set's doubling and two frontier levels included.
pub const PEAK_BYTES_PER_STATE: u64 = 256;
/// Kept free for everything else the process maps (binary, stacks, output).
const HEADROOM_BYTES: u64 = 256 << 20;

/// The memory a search may use: the address-space limit (`ulimit -v`) or the machine's
/// physical memory, whichever is less, minus headroom.
pub fn memory_limit_bytes() -> u64 {
    // SAFETY: getrlimit writes one plain struct; sysconf reads nothing of ours.
    let address_space = unsafe {
        let mut r: libc::rlimit = std::mem::zeroed();
        if libc::getrlimit(libc::RLIMIT_AS, &mut r) == 0 && r.rlim_cur != libc::RLIM_INFINITY {
            r.rlim_cur
        } else {
            u64::MAX
        }
    };
    // SAFETY: as above.
    let physical = unsafe {
        let (pages, size) = (libc::sysconf(libc::_SC_PHYS_PAGES), libc::sysconf(libc::_SC_PAGESIZE));
        if pages > 0 && size > 0 {
            (pages as u64).saturating_mul(size as u64)
        } else {
            u64::MAX
        }
    };
    address_space.min(physical).saturating_sub(HEADROOM_BYTES)
}

/// The state cap for `asked` (`None`: the default) under `limit_bytes` of memory; a cap whose
/// search would not fit is refused.
pub fn state_cap(asked: Option<u64>, limit_bytes: u64) -> Result<u64> {
    let fits = (limit_bytes / PEAK_BYTES_PER_STATE).max(1);
    match asked {
        None => Ok(DEFAULT_MAX_STATES.min(fits)),
        Some(n) if n <= fits => Ok(n),
        Some(n) => Err(Error::Usage(format!(
            "invalid --max-states {n}: a search of that many states needs about {} MiB ({PEAK_BYTES_PER_STATE} bytes \
             a state), more than the {} MiB this process may use (ulimit -v, physical memory); give at most {fits}",
            n.saturating_mul(PEAK_BYTES_PER_STATE) >> 20,
            limit_bytes >> 20
        ))),
    }
}

pub struct ExploreRequest<'a> {
    /// One search per entry: the rules of a release (each `--mode` stands for its era's last).
    pub runs: Vec<Rules>,
    pub replicas: usize,
    pub max_epochs: u8,
    pub max_records: u8,
    pub max_depth: u32,
    pub unclean: bool,
    pub fencing: bool,
    pub power_loss: bool,
    /// Crashes leave the HW last checkpointed ([`crate::explore::model::Config::stale_hw`]).
    pub stale_hw: bool,
    /// The topic's min.insync.replicas ([`crate::explore::model::Config::min_isr`]).
    pub min_isr: u8,
    /// Kafka 4.x: Eligible Leader Replicas on or off (`None`: as the release has them).
    pub elr: Option<bool>,
    /// The tiered mode ([`crate::explore::model::Config::tiered`]).
    pub tiered: bool,
    /// Worker threads (at least 1).
    pub threads: usize,
    /// The state cap; `None`: [`DEFAULT_MAX_STATES`] or what memory holds, whichever is less.
    pub max_states: Option<u64>,
    /// Write each counterexample's script here (with `-<mode>` before the extension when
    /// several modes run).
    pub script: Option<&'a Path>,
    /// Replace an existing script file that klog did not write.
    pub force: bool,
}

/// One replica after a step.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReplicaLine {
    pub name: char,
    /// Leader, follower or crashed.
    pub role: ReplicaRole,
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
    /// What the KRaft controller did with it: a comment with its record, and the `klog elect`
    /// or `klog alter-isr` that replays its choice.
    pub then: Vec<String>,
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
    /// The state cap the search ran under.
    pub state_cap: u64,
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

/// The rules of `--tiered` without `--kafka`: Kafka 4.4.0's.
pub fn tiered_rules() -> Rules {
    crate::replication::release::Release::new(4, 4, 0).rules()
}

/// `--tiered` runs Kafka 4.4's tiered rules only.
fn validate_tiered(req: &ExploreRequest<'_>) -> Result<()> {
    use crate::replication::release::Release;
    if req.power_loss {
        return Err(Error::Usage(
            "--power-loss with --tiered: a segment holds one record and Kafka flushes a segment when it rolls, \
             so the model's unflushed tail does not exist there"
                .into(),
        ));
    }
    for rules in &req.runs {
        let release = rules.release;
        if release < Release::new(3, 6, 0) {
            return Err(Error::Usage(format!(
                "--tiered: Kafka {release} has no tiered storage (KIP-405 is in 3.6 and later): give --kafka 4.4"
            )));
        }
        if release < Release::new(4, 4, 0) || release >= Release::new(4, 5, 0) {
            return Err(Error::Usage(format!(
                "--tiered models Kafka 4.4's tiered rules, not {release}'s: give --kafka 4.4 or leave --kafka out"
            )));
        }
    }
    Ok(())
}

fn validate(req: &ExploreRequest<'_>) -> Result<()> {
    if req.tiered {
        validate_tiered(req)?;
    }
    if !(2..=3).contains(&req.replicas) {
        return Err(Error::Usage(format!("invalid --replicas {}: give 2 or 3", req.replicas)));
    }
    if req.max_epochs == 0 || req.max_epochs as usize > MAX_EPOCHS {
        return Err(Error::Usage(format!("invalid --max-epochs {}: give 1 to {MAX_EPOCHS}", req.max_epochs)));
    }
    if req.max_records == 0 || req.max_records as usize >= MAX_RECORDS {
        return Err(Error::Usage(format!("invalid --max-records {}: give 1 to {}", req.max_records, MAX_RECORDS - 1)));
    }
    if req.max_depth == 0 || req.max_depth > 64 {
        return Err(Error::Usage(format!("invalid --max-depth {}: give 1..=64", req.max_depth)));
    }
    if req.runs.is_empty() {
        return Err(Error::Usage("no --mode to explore".into()));
    }
    if req.min_isr as usize > req.replicas {
        return Err(Error::Usage(format!(
            "invalid --min-isr {}: above --replicas {} no append is ever acknowledged",
            req.min_isr, req.replicas
        )));
    }
    for rules in &req.runs {
        let release = rules.release;
        if req.min_isr > 1 && !rules.hw_waits_for_min_isr {
            return Err(Error::Usage(format!(
                "--min-isr {} is modelled from Kafka 3.7 (the HW waits below min.insync.replicas, KAFKA-15583; \
                 before, it advanced with a smaller ISR), and Kafka {release} is older: add --kafka 3.7.0 or newer",
                req.min_isr
            )));
        }
        if req.elr.is_some() && Controller::of(rules, None) == Controller::Free {
            return Err(Error::Usage(format!(
                "--elr is a Kafka 4.x setting (KIP-966 with the KRaft controller), and Kafka {release} is older: \
                 add --kafka 4.0.0 or newer"
            )));
        }
    }
    if let Some(path) = req.script {
        durable::output::refuse_dash("--script", path)?;
        // Refuse before searching, not after: every script this run may write. A directory is
        // refused as itself, whatever the modes: under several modes the per-mode names
        // (`D-hw`, `D-kip101`) would otherwise land beside it after the whole search.
        if std::fs::metadata(path).is_ok_and(|m| m.is_dir()) {
            return Err(Error::Usage(format!(
                "--script {}: is a directory, not a file (name the script file, e.g. {})",
                path.display(),
                path.join("explore.sh").display()
            )));
        }
        for rules in &req.runs {
            let target = script_path(path, rules, req.runs.len() > 1);
            durable::output::check_target("--script", &target, OutputKind::Script, req.force)?;
        }
    }
    Ok(())
}

pub fn run(req: &ExploreRequest<'_>) -> Result<ExploreReport> {
    validate(req)?;
    let max_states = state_cap(req.max_states, memory_limit_bytes())?;
    let mut runs = Vec::new();
    for &rules in &req.runs {
        // `--unclean` is the topic's unclean.leader.election.enable: where the release's
        // default (false) would stop a follower past the leader's end, it truncates instead.
        let rules =
            if req.unclean && rules.past_leader_end_halts() { rules.with_unclean_leader_election(true) } else { rules };
        let config = Config {
            replicas: req.replicas,
            rules,
            max_epochs: req.max_epochs,
            max_records: req.max_records,
            max_depth: req.max_depth,
            unclean: req.unclean,
            fencing: req.fencing,
            power_loss: req.power_loss,
            stale_hw: req.stale_hw,
            min_isr: req.min_isr,
            controller: Controller::of(&rules, req.elr),
            tiered: req.tiered,
        };
        // A tiered loss is shown by `klog remote` on the dirs (the script's last command), not by
        // a `recover`.
        let outcome = search(&config, req.threads, max_states, &|state, v| {
            config.tiered || find_witness(&config, state, v).is_some()
        });
        let mut counterexample = outcome.counterexample.map(|ce| narrate(&config, &ce.actions, ce.violation));
        if let (Some(ce), Some(path)) = (counterexample.as_mut(), req.script) {
            if ce.script.is_some() {
                ce.script_path = Some(script_path(path, &rules, req.runs.len() > 1));
            }
        }
        runs.push(ExploreRun { config, state_cap: max_states, stats: outcome.stats, counterexample });
    }
    // Every script at the end, all or none.
    let scripts: Vec<(&Path, &[u8])> = runs
        .iter()
        .filter_map(|r| r.counterexample.as_ref())
        .filter_map(|ce| Some((ce.script_path.as_deref()?, ce.script.as_deref()?.as_bytes())))
        .collect();
    if !scripts.is_empty() {
        durable::output::write_all(&scripts)?;
    }
    Ok(ExploreReport { runs })
}

/// `FILE`, or `FILE` with `-<mode>` before its extension when several modes write scripts.
fn script_path(path: &Path, rules: &Rules, several: bool) -> PathBuf {
    let mode = rules.truncation;
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
                    None => ReplicaRole::Crashed,
                    Some(v) if v.role == Role::Leader => ReplicaRole::Leader,
                    Some(_) => ReplicaRole::Follower,
                },
                leader_epoch: node.vol.filter(|v| v.leader_epoch >= 0).map(|v| v.leader_epoch as i32),
                log_end_offset: node.log_end_offset(),
                high_watermark: node.high_watermark as i64,
                records: node
                    .records()
                    .iter()
                    .enumerate()
                    // Only what is on its disk (below the local log start: remote, `--tiered`).
                    .skip(node.tier.local_log_start as usize)
                    .map(|(o, r)| (o as i64, r.leader_epoch as i32, value_name(r.value)))
                    .collect(),
            }
        })
        .collect()
}

fn describe(v: &Violation, tiered: bool) -> (&'static str, String) {
    match *v {
        Violation::AckedLoss { value, offset, leader, leader_epoch, found } => (
            "acked_loss",
            format!(
                "{} at offset {offset} was acked, but {}, elected leader at epoch {leader_epoch}, {}",
                value_name(value),
                replica_name(leader),
                match found {
                    None if tiered => format!("serves no record at offset {offset} from either tier"),
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

/// A tiered state's log starts and remote segments, as narration comments.
fn tier_lines(state: &State) -> Vec<String> {
    let starts: Vec<String> = (0..state.n())
        .map(|i| {
            let t = state.nodes[i].tier;
            format!("{} {}/{}", replica_name(i as u8), t.log_start, t.local_log_start)
        })
        .collect();
    let remote: Vec<String> = state.remote[..state.remote_len as usize]
        .iter()
        .map(|s| format!("{}:({},{})", s.offset, s.rec.leader_epoch, value_name(s.rec.value)))
        .collect();
    vec![
        format!("# log start/local log start: {}", starts.join(", ")),
        format!("# remote: {}", if remote.is_empty() { "(none)".to_string() } else { remote.join(" ") }),
    ]
}

/// The flags that repeat the search `config` ran.
fn explore_flags(config: &Config) -> String {
    let rules = if config.tiered { "--tiered".to_string() } else { script::rules_flag(&config.rules) };
    format!(
        "{rules} --replicas {} --max-epochs {} --max-records {} --max-depth {}{}{}{}{}{}{}",
        config.replicas,
        config.max_epochs,
        config.max_records,
        config.max_depth,
        if config.unclean { " --unclean" } else { "" },
        if config.fencing { "" } else { " --no-fencing" },
        if config.power_loss { " --power-loss" } else { "" },
        if config.stale_hw { " --stale-hw" } else { "" },
        if config.min_isr > 1 { format!(" --min-isr {}", config.min_isr) } else { String::new() },
        match config.controller {
            Controller::Kraft { elr } if Controller::of(&config.rules, None) != config.controller => {
                format!(" --elr {}", if elr { "on" } else { "off" })
            }
            _ => String::new(),
        },
    )
}

/// Replay `actions` from the initial state, narrating each; find the showing recovery and the
/// script.
pub fn narrate(config: &Config, actions: &[Action], violation: Violation) -> CounterexampleReport {
    let mut state = State::initial(config.replicas);
    let mut steps = Vec::new();
    for a in actions {
        let after = state.apply(config, *a).0;
        let mut then = script::controller_lines(config, &state, &after, a);
        if config.tiered && tier_lines(&state) != tier_lines(&after) {
            then.extend(tier_lines(&after));
        }
        state = after;
        steps.push(NarratedStep { command: script::command(config, a), then, replicas: replica_lines(&state) });
    }
    let (kind, description) = describe(&violation, config.tiered);
    let power_loss = actions.iter().any(|a| matches!(a, Action::Crash { power_loss: true, .. }));
    let witness = if config.tiered { None } else { find_witness(config, &state, &violation) };
    let title = vec![
        format!("klog explore {}", explore_flags(config)),
        format!("A shortest counterexample ({} actions): {description}.", actions.len()),
    ];
    let script = if config.tiered {
        Some(script::tiered_script(config, actions, &title))
    } else {
        witness.as_ref().map(|w| script::script(config, actions, w, &title))
    };
    let witness = witness.map(|w| witness_report(config, &state, &w));
    CounterexampleReport { steps, violation, description, kind, witness, script, script_path: None, power_loss }
}

fn witness_report(config: &Config, state: &State, w: &Witness) -> WitnessReport {
    let relaxed = Config { max_records: config.max_records + 1, max_epochs: config.max_epochs + 1, ..*config };
    let mut s = *state;
    let mut extra_steps = Vec::new();
    for a in &w.actions {
        let after = s.apply(&relaxed, *a).0;
        let then = script::controller_lines(config, &s, &after, a);
        s = after;
        extra_steps.push(NarratedStep { command: script::command(config, a), then, replicas: replica_lines(&s) });
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
    use crate::replication::truncation::TruncationMode;

    fn request(mode: TruncationMode) -> ExploreRequest<'static> {
        ExploreRequest {
            runs: vec![Rules::of_mode(mode)],
            replicas: 2,
            max_epochs: 2,
            max_records: 2,
            max_depth: 10,
            unclean: false,
            fencing: true,
            power_loss: false,
            stale_hw: false,
            min_isr: 1,
            elr: None,
            tiered: false,
            threads: 2,
            max_states: None,
            script: None,
            force: false,
        }
    }

    #[test]
    fn bad_bounds_are_usage_errors() {
        for req in [
            ExploreRequest { replicas: 4, ..request(TruncationMode::Hw) },
            ExploreRequest { max_epochs: 0, ..request(TruncationMode::Hw) },
            ExploreRequest { max_records: 9, ..request(TruncationMode::Hw) },
            ExploreRequest { max_depth: 0, ..request(TruncationMode::Hw) },
            ExploreRequest { runs: vec![], ..request(TruncationMode::Hw) },
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
        assert_eq!(script_path(p, &Rules::of_mode(TruncationMode::Hw), false), PathBuf::from("/tmp/x.sh"));
        assert_eq!(script_path(p, &Rules::of_mode(TruncationMode::Kip101), true), PathBuf::from("/tmp/x-kip101.sh"));
    }
}
