//! The lab's state: branches of histories of [`Action`]s on real replica dirs, one frame per
//! action (what the page shows after it), and the explorer's model kept in step.
//!
//! Each action is run as exactly the command line [`script::command`] prints for it, parsed by
//! klog's clap definitions ([`crate::cli::parse_from`]) and run by klog's own dispatcher
//! ([`crate::app`]), as `klog` itself runs it; the lab adds only its front end (the recovery
//! picture as SVG, the code panels of the procedures that ran). The same action is applied to an
//! [`crate::explore::model::State`], so the explorer can start from where the history is. A branch
//! lives in its own dir `<lab>/<n>/` (replicas `a`, `b`, `c`); going back to a frame and acting
//! there forks: the action prefix is replayed into a fresh branch dir (klog's commands are
//! deterministic with fixed timestamps), then the new action runs.

use crate::app::{self, Front};
use crate::cli::{self, Command, Env};
use crate::commands::demo::stuck_lso::{self, AbortSpec, TxnView};
use crate::commands::{self, draw::DrawRequest, recover::FollowerRecoverReport};
use crate::error::{Error, Result};
use crate::explore::model::{Action, Config, State, Violation, MAX_EPOCHS, MAX_RECORDS, MAX_REPLICAS};
use crate::explore::script;
use crate::output::picture::Picture;
use crate::output::{explain, svg, Settings};
use crate::replication::explain::Explanation;
use crate::replication::release::Rules;
use crate::replication::truncation::TruncationMode;
use std::path::{Path, PathBuf};

/// Most actions in one branch (a lab, not a load test).
pub const MAX_STEPS: usize = 64;
/// Most records appended in one branch (every one is drawn).
pub const MAX_LAB_RECORDS: usize = 16;
/// Most branches a lab makes (each is a dir of small replicas).
pub const MAX_BRANCHES: usize = 64;
/// Offsets drawn.
const DRAWN_OFFSETS: i64 = 20;

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
    }
}

/// An acknowledged record: below a running leader's HW at some frame.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Acked {
    pub offset: i64,
    pub value: String,
}

/// What the page shows of one frame.
#[derive(Debug, Clone)]
pub struct Frame {
    /// The command line that made it (`"$LAB/x"` for replicas); the creates for frame 0.
    pub command: String,
    /// What klog printed.
    pub output: String,
    /// The replicas as `klog draw` pictures them (inline SVG).
    pub picture: String,
    /// A follower recovery's before/after picture with each record's fate (inline SVG).
    pub recovery_picture: Option<String>,
    /// The code panels of the procedures that ran (HTML), or why there is none.
    pub code: Vec<String>,
    pub no_code: Option<String>,
    /// The model after this frame, or why the history left it.
    pub model: std::result::Result<State, String>,
    /// The model's invariant this step broke, in words.
    pub model_violation: Option<String>,
    /// Every record acknowledged so far (on disk: below a running leader's HW).
    pub acked: Vec<Acked>,
    /// The acknowledged records the current leader does not hold at their offset.
    pub lost: Vec<Acked>,
    /// The current leader (letter) and its epoch.
    pub leader: Option<(char, i32)>,
    /// Each replica's role, epoch and marks.
    pub roles: Vec<Mark>,
    /// What to watch for from here (a preset's last frame).
    pub hint: Option<String>,
    /// What the scene says of the step that made it (a [`LineStep`]'s note).
    pub note: Option<String>,
    /// On a branch with transactions: the LSO and what holds it.
    pub txn: Option<TxnFrame>,
}

/// What a frame of a branch with transactions shows of them, read from `klog txn`'s report on
/// the leader (on `a` while none leads).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TxnFrame {
    pub replica: char,
    pub last_stable_offset: i64,
    pub high_watermark: i64,
    /// What holds the LSO, in words ([`stuck_lso::what_holds_the_lso`]).
    pub holder: String,
    /// The admin abort of the transaction holding the LSO, while one is open.
    pub abort: Option<AbortSpec>,
}

/// One replica as a frame shows it: its role (leader, follower, crashed, ...), the epoch it
/// works in, its HW and its LEO.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Mark {
    pub role: &'static str,
    pub leader_epoch: Option<i32>,
    pub high_watermark: i64,
    pub log_end_offset: i64,
}

#[derive(Debug, Clone)]
pub struct Branch {
    pub dir: PathBuf,
    /// Where it forked from: (branch, frame).
    pub parent: Option<(usize, usize)>,
    pub steps: Vec<LabStep>,
    /// `frames[0]` after the creates, `frames[i]` after `steps[i - 1]`.
    pub frames: Vec<Frame>,
    /// The epoch of its first election (the model's epochs issued before it): 0, or 1 for the
    /// Watch preset, whose leader starts at epoch 1 as the Watch does.
    pub first_epoch: u8,
    /// The era every recover of this branch runs under, when it was forked for a comparison.
    pub era: Option<TruncationMode>,
    /// Whether it holds [`LineStep`]s (the stuck-lso scene): every frame then shows the
    /// transactions and the LSO, and the explorer is off.
    pub transactions: bool,
    /// Whether its replicas were made with a remote tier (`create --remote-dir "$LAB/remote"`,
    /// the tiers scene): every frame then draws both tiers.
    pub tiered: bool,
}

/// Three branches forked from one frame, one per era, shown side by side.
#[derive(Debug, Clone)]
pub struct Compare {
    /// The frame compared: (branch, frame).
    pub at: (usize, usize),
    pub branches: Vec<(TruncationMode, usize)>,
}

/// The eras a comparison forks into, oldest first.
pub const ERAS: [TruncationMode; 3] = [TruncationMode::Hw, TruncationMode::Kip101, TruncationMode::Kip279];

pub struct Session {
    pub root: PathBuf,
    pub replicas: usize,
    pub branches: Vec<Branch>,
    /// What the page views: (branch, frame).
    pub view: (usize, usize),
    /// The latest three-era comparison.
    pub compare: Option<Compare>,
}

/// The letter of replica `i`.
pub fn letter(i: u8) -> char {
    script::replica_name(i)
}

/// A replica by its letter, among `replicas`.
pub fn replica_index(name: &str, replicas: usize) -> std::result::Result<u8, String> {
    match name.as_bytes() {
        [c @ b'a'..=b'c'] if ((c - b'a') as usize) < replicas => Ok(c - b'a'),
        _ => Err(format!(
            "replica {:?}: expected one of {}",
            name.chars().take(8).collect::<String>(),
            (0..replicas as u8).map(|i| letter(i).to_string()).collect::<Vec<_>>().join(", ")
        )),
    }
}

/// The words of a command line [`script::command`] printed, with `"$LAB/x"` as `lab/x`: plain
/// words separated by single spaces; the only quoted words are replica dirs.
pub fn argv(line: &str, lab: &Path) -> Result<Vec<std::ffi::OsString>> {
    let mut out = Vec::new();
    for word in line.split(' ').filter(|w| !w.is_empty()) {
        if let Some(rest) = word.strip_prefix("\"$LAB/").and_then(|r| r.strip_suffix('"')) {
            // The replicas, and a tiered branch's remote dir beside them.
            if rest != crate::commands::demo::tiers::REMOTE_DIR {
                replica_index(rest, MAX_REPLICAS).map_err(Error::Usage)?;
            }
            out.push(lab.join(rest).into_os_string());
        } else if word.contains(['"', '$', '\'', '\\', '#']) {
            return Err(Error::Usage(format!("lab: not a command line the lab runs: {line}")));
        } else {
            out.push(word.into());
        }
    }
    Ok(out)
}

/// The settings the lab renders text with: no colour, no wrapping, no progress.
fn settings() -> Settings {
    Settings { color: false, width: None, table_width: None, progress: false, truecolor: false }
}

/// What running one command gave.
#[derive(Default)]
struct Ran {
    output: String,
    code: Vec<Explanation>,
    recovery: Option<String>,
}

/// The lab as a front end of the dispatcher: it draws a follower recovery's picture as SVG
/// beside the output instead of as text in it, and keeps the code of the procedures that ran.
impl Front for Ran {
    fn recovery_picture(
        &mut self,
        _: &mut dyn std::io::Write,
        report: &FollowerRecoverReport,
        picture: &Picture,
        _: &(String, String),
        _: bool,
        _: &Settings,
    ) -> Result<()> {
        // A restart from remote storage: what it removed is served from the leader's remote tier.
        let mut picture = picture.clone();
        crate::output::tier_picture::restart_fates(&mut picture, report);
        self.recovery = Some(svg::render(&picture, false));
        Ok(())
    }

    fn shows_code(&self) -> bool {
        true
    }

    fn code(&mut self, explanation: Explanation) {
        self.code.push(explanation);
    }
}

/// The environment the lab's commands run in: no terminal, no colour; nothing is read from
/// the process's environment (the lab's commands never take it).
fn env(lab: &Path) -> Env {
    Env {
        stdout_tty: false,
        stderr_tty: false,
        stdin_tty: false,
        no_color: true,
        truecolor: false,
        columns: None,
        terminal_width: None,
        temp_dir: lab.to_path_buf(),
    }
}

/// Run one command line in `lab`: parsed by klog's clap definitions and run by klog's own
/// dispatcher ([`app::run_for`]) as one transaction, as `main` runs it: the report rendered as
/// `klog` prints it, a failed command changing nothing on disk.
fn run_line(line: &str, lab: &Path) -> Result<Ran> {
    let mut words = vec![std::ffi::OsString::from("klog")];
    words.extend(argv(line.strip_prefix("klog ").unwrap_or(line), lab)?);
    let parsed = cli::parse_from(words).map_err(|e| Error::Usage(cli::clap_error_line(&e)))?;
    let lab_runs = matches!(
        parsed.command,
        Command::Create(_)
            | Command::Elect(_)
            | Command::Append(_)
            | Command::Fetch(_)
            | Command::Flush(_)
            | Command::Crash(_)
            | Command::Recover(_)
            | Command::Txn(_)
            | Command::AlterIsr(_)
            | Command::Tier(_)
            | Command::Remote(_)
    );
    if !lab_runs {
        return Err(Error::Usage("lab: not a command the lab runs".into()));
    }
    let mut ran = Ran::default();
    let mut out: Vec<u8> = Vec::new();
    let (result, undo_failures) =
        app::transaction(|| app::run_for(parsed.command, &settings(), &env(lab), &mut out, &mut ran));
    for failure in undo_failures {
        eprintln!("klog: warning: {}", crate::escape::text(&failure));
    }
    result?;
    ran.output = String::from_utf8_lossy(&out).into_owned();
    Ok(ran)
}

/// The replicas' picture and the acked/lost verdict, read from the dirs.
struct Look {
    picture: String,
    acked: Vec<Acked>,
    lost: Vec<Acked>,
    leader: Option<(char, i32)>,
    roles: Vec<Mark>,
    txn: Option<TxnFrame>,
}

/// Each replica's `klog txn` report and the demo's view of its transactions (every batch's
/// place and the LSO), by letter.
fn txn_views(dirs: &[PathBuf]) -> Result<Vec<(String, commands::txn::TxnReport, TxnView)>> {
    let mut out = Vec::new();
    for (i, dir) in dirs.iter().enumerate() {
        let report = commands::txn::run(dir, None)?;
        let mut view =
            stuck_lso::txn_view(dir, &report)?.unwrap_or(TxnView { last_stable_offset: None, batches: Vec::new() });
        view.last_stable_offset = Some(report.last_stable_offset());
        out.push((letter(i as u8).to_string(), report, view));
    }
    Ok(out)
}

fn look(dir: &Path, replicas: usize, acked_before: &[Acked], transactions: bool, tiered: bool) -> Result<Look> {
    let dirs: Vec<PathBuf> = (0..replicas as u8).map(|i| dir.join(letter(i).to_string())).collect();
    let report =
        commands::draw::run(&DrawRequest { dirs: &dirs, partition: None, from: Some(0), limit: DRAWN_OFFSETS })?;
    let mut pic = Picture::of_draw(&report);
    let txns = if transactions { txn_views(&dirs)? } else { Vec::new() };
    let views: Vec<(&str, &TxnView)> = txns.iter().map(|(name, _, view)| (name.as_str(), view)).collect();
    crate::output::txn_picture::overlay_views(&mut pic, &views);
    if tiered {
        if let Some(view) = crate::commands::demo::tiers::tier_view(dir)? {
            crate::output::tier_picture::overlay(&mut pic, &view);
        }
    }
    let picture = svg::render(&pic, false);
    let value = |r: &commands::draw::DrawnRecord| r.value.as_deref().map(|v| String::from_utf8_lossy(v).into_owned());
    let mut acked = acked_before.to_vec();
    // A transaction marker is a control record the leader wrote, not a record a producer had
    // acknowledged: it is not counted (nor its control bytes shown as a value).
    let is_marker = |name: &str, offset: i64| {
        txns.iter().filter(|(n, _, _)| n == name).flat_map(|(_, _, v)| &v.batches).any(|b| {
            matches!(b.kind, stuck_lso::TxnKind::Marker { .. }) && (b.base_offset..=b.last_offset).contains(&offset)
        })
    };
    for r in report.replicas.iter().filter(|r| r.role == crate::replica::ReplicaRole::Leader) {
        for rec in r.records.iter().filter(|rec| rec.offset < r.high_watermark && !is_marker(&r.name, rec.offset)) {
            let a = Acked { offset: rec.offset, value: value(rec).unwrap_or_default() };
            if !acked.contains(&a) {
                acked.push(a);
            }
        }
    }
    acked.sort_by(|x, y| (x.offset, &x.value).cmp(&(y.offset, &y.value)));
    let leader = report
        .replicas
        .iter()
        .enumerate()
        .filter(|(_, r)| r.role == crate::replica::ReplicaRole::Leader)
        .max_by_key(|(_, r)| r.leader_epoch)
        .map(|(i, r)| (i, r.leader_epoch.unwrap_or(-1)));
    let lost = lost_by(dir, &report, leader.map(|(i, _)| i), &acked, tiered)?;
    let roles = report
        .replicas
        .iter()
        .map(|r| Mark {
            role: r.role.name(),
            leader_epoch: r.leader_epoch,
            high_watermark: r.high_watermark,
            log_end_offset: r.log_end_offset,
        })
        .collect();
    let txn = txns.get(leader.map_or(0, |(i, _)| i)).map(|(name, r, _)| TxnFrame {
        replica: name.chars().next().unwrap_or('a'),
        last_stable_offset: r.last_stable_offset(),
        high_watermark: r.high_watermark,
        holder: stuck_lso::what_holds_the_lso(r),
        abort: stuck_lso::abort_spec(r),
    });
    Ok(Look { picture, acked, lost, leader: leader.map(|(i, e)| (letter(i as u8), e)), roles, txn })
}

/// The acknowledged records the current leader (`leader`: its index in the report) no longer
/// holds.
fn lost_by(
    dir: &Path,
    report: &commands::draw::DrawReport,
    leader: Option<usize>,
    acked: &[Acked],
    tiered: bool,
) -> Result<Vec<Acked>> {
    let value = |r: &commands::draw::DrawnRecord| r.value.as_deref().map(|v| String::from_utf8_lossy(v).into_owned());
    Ok(match leader {
        // Across tiers the leader holds what it serves: its remote segments within its lineage
        // and its local log.
        Some(i) if tiered => {
            let served = crate::commands::demo::tiers::served_entries(dir, &report.replicas[i].name)?;
            acked
                .iter()
                .filter(|a| !served.iter().any(|e| e.offset == a.offset && e.value == a.value))
                .cloned()
                .collect()
        }
        Some(i) => {
            let records = &report.replicas[i].records;
            acked
                .iter()
                .filter(|a| {
                    records.iter().find(|r| r.offset == a.offset).and_then(value).as_deref() != Some(a.value.as_str())
                })
                .cloned()
                .collect()
        }
        None => Vec::new(),
    })
}

/// A model violation in words.
pub fn violation_text(v: &Violation) -> String {
    match *v {
        Violation::AckedLoss { value, offset, leader, leader_epoch, found } => format!(
            "acked {} (offset {offset}) is missing from {}'s log when it leads at epoch {leader_epoch}{}",
            script::value_name(value),
            letter(leader),
            found.map_or(String::new(), |r| format!(" (it holds {} there)", script::value_name(r.value)))
        ),
        Violation::Divergence { offset, a, b, rec_a, rec_b } => format!(
            "{} and {} hold different records at offset {offset} below both HWs ({} e{}, {} e{})",
            letter(a),
            letter(b),
            script::value_name(rec_a.value),
            rec_a.leader_epoch,
            script::value_name(rec_b.value),
            rec_b.leader_epoch
        ),
    }
}

/// The model's next state after `step`, or why the step leaves it.
fn model_step(
    model: &std::result::Result<State, String>,
    step: &LabStep,
    index: usize,
    replicas: usize,
) -> (std::result::Result<State, String>, Option<String>) {
    let mut state = match model {
        Ok(s) => *s,
        Err(why) => return (Err(why.clone()), None),
    };
    let step = match step {
        LabStep::Model(s) => s,
        LabStep::Line(l) if l.kind == LineKind::Tiers => return (Err(NO_MODEL_FOR_TIERS.to_string()), None),
        LabStep::Line(_) => return (Err(NO_MODEL_FOR_TRANSACTIONS.to_string()), None),
    };
    let cfg = step.config(replicas);
    let mut offered = Vec::new();
    let mut broke = None;
    for action in step.model_actions() {
        state.successors(&cfg, &mut offered);
        let fits = offered.contains(&action)
            || match action {
                // A power cut with nothing unflushed is a clean crash.
                Action::Crash { replica, power_loss: true, hw } => {
                    offered.contains(&Action::Crash { replica, power_loss: false, hw })
                }
                _ => false,
            };
        if !fits {
            let why = match action {
                Action::Append { .. } if state.appended as usize >= MAX_RECORDS => {
                    format!("the explorer's model holds at most {MAX_RECORDS} records")
                }
                Action::Elect { .. } if state.epochs_issued as usize >= MAX_EPOCHS => {
                    format!("the explorer's model issues at most {MAX_EPOCHS} epochs")
                }
                _ => "it is not an action the explorer's controller takes in that state (a leader that is not \
                      the latest, a replica outside the ISR, a crashed or not-yet-told replica, ...)"
                    .to_string(),
            };
            return (Err(format!("step {} ({}) does not fit: {why}", index + 1, step.command(replicas))), None);
        }
        let (next, violation) = state.apply(&cfg, action);
        state = next;
        broke = broke.or(violation);
    }
    (Ok(state), broke.as_ref().map(violation_text))
}

/// What a step needs that it lacks before it runs (the lab's own bounds).
fn check_bounds(branch: &Branch, upto: usize, step: &LabStep) -> Result<()> {
    if upto >= MAX_STEPS {
        return Err(Error::Usage(format!("lab: a branch holds at most {MAX_STEPS} steps")));
    }
    let appended: usize = branch.steps[..upto].iter().map(LabStep::appended).sum();
    if step.appended() > 0 && appended + step.appended() > MAX_LAB_RECORDS {
        return Err(Error::Usage(format!("lab: a branch appends at most {MAX_LAB_RECORDS} records")));
    }
    Ok(())
}

/// The Watch preset's replicas, a (id 1) and b (id 2), by index.
const WATCH_A: u8 = 0;
const WATCH_B: u8 = 1;

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
fn watch_hint(frame: &Frame) -> String {
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
fn tiers_hint(frame: &Frame) -> String {
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
fn stuck_lso_hint(frame: &Frame) -> String {
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

/// A step of the stuck-lso scene the page offers ([`Session::act_txn`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TxnAct {
    /// `klog txn` on the leader.
    Txn,
    /// `transaction.timeout.ms` passes: the coordinator aborts the transaction holding the LSO
    /// if it knows it (it bumps the producer's epoch and writes the ABORT marker with its own
    /// coordinator epoch), and does nothing for one it does not know (the hanging shape).
    CoordinatorTimeout,
    /// `kafka-transactions.sh abort --start-offset N` for the transaction holding the LSO, as
    /// the broker carries it out ([`stuck_lso::abort_spec`]): its ABORT marker.
    AdminAbort,
    /// Its producer ends it: the COMMIT or ABORT marker its coordinator writes.
    ProducerEnds { commit: bool },
}

/// The coordinator epoch of producer 1000's coordinator in the demo's story (the epoch of its
/// `__transaction_state` partition's leader).
const COORDINATOR_EPOCH: i32 = 3;
/// The producer whose transactions the coordinator of the demo's story knows (transactional.id
/// `payments`): its timeout ends them. Any other producer's transaction is one it never saw.
const COORDINATOR_KNOWS_PRODUCER: i64 = 1000;
/// The markers' timestamps: the producer's own end right after its records, the coordinator's
/// timeout abort and the admin abort as the demo's (after transaction.timeout.ms has passed).
const PRODUCER_END_TIMESTAMP_MS: i64 = 4000;
const TIMEOUT_ABORT_TIMESTAMP_MS: i64 = 63000;
const ADMIN_ABORT_TIMESTAMP_MS: i64 = 66000;

impl Session {
    /// A new lab in `root` (empty or absent; made here) with `replicas` replicas.
    pub fn new(root: &Path, replicas: usize) -> Result<Session> {
        let mut s = Session { root: root.to_path_buf(), replicas, branches: Vec::new(), view: (0, 0), compare: None };
        s.start_branch(None, 0, None, &[])?;
        Ok(s)
    }

    /// Start over with `replicas` replicas in a new branch.
    pub fn reset(&mut self, replicas: usize) -> Result<()> {
        let was = std::mem::replace(&mut self.replicas, replicas);
        let made = self.start_branch(None, 0, None, &[]);
        match made {
            Ok(()) => self.compare = None,
            Err(_) => self.replicas = was,
        }
        made
    }

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

    /// Run one of the stuck-lso scene's own steps after the viewed frame (which must show
    /// transactions), on its leader: `klog txn`, or a marker ending the transaction that holds
    /// the LSO. Forks as [`Session::act`] does.
    pub fn act_txn(&mut self, act: TxnAct) -> Result<()> {
        let t = self.frame().txn.as_ref().ok_or_else(|| {
            Error::Usage("lab: this branch has no transactions; start the stuck-lso preset first".into())
        })?;
        let dir = format!("\"$LAB/{}\"", t.replica);
        let open = || {
            t.abort.as_ref().ok_or_else(|| {
                Error::Usage(format!(
                    "lab: no transaction is open on {} at this frame: nothing holds its LSO to end",
                    t.replica
                ))
            })
        };
        let step = match act {
            TxnAct::Txn => LineStep { line: format!("klog txn {dir}"), kind: LineKind::Txn, note: None },
            TxnAct::CoordinatorTimeout => {
                let spec = open()?;
                if spec.producer_id != COORDINATOR_KNOWS_PRODUCER {
                    return Err(Error::Usage(format!(
                        "lab: the coordinator has no ongoing transaction for producer {}: its timeout writes no \
                         marker and the LSO stays at {} (the hanging shape: the admin abort is for it)",
                        spec.producer_id, spec.start_offset
                    )));
                }
                // The coordinator fences the dead process (epoch + 1) and writes the marker with
                // its own coordinator epoch, never below the producer's last one.
                let producer_epoch = spec.producer_epoch + 1;
                let coordinator_epoch = COORDINATOR_EPOCH.max(spec.described_coordinator_epoch);
                LineStep {
                    line: commands::demo::end_txn_command(
                        &dir,
                        spec.producer_id,
                        producer_epoch,
                        coordinator_epoch,
                        false,
                        TIMEOUT_ABORT_TIMESTAMP_MS,
                    ),
                    kind: LineKind::Marker { commit: false },
                    note: Some(format!(
                        "transaction.timeout.ms passes (60 s by default): producer {}'s transaction from offset {} \
                         is one its coordinator knows, so the coordinator bumps the producer's epoch to \
                         {producer_epoch}, fencing the dead process, and writes an ABORT marker with its coordinator \
                         epoch {coordinator_epoch}. No admin action is needed.",
                        spec.producer_id, spec.start_offset
                    )),
                }
            }
            TxnAct::AdminAbort => {
                let spec = open()?;
                LineStep {
                    line: commands::demo::end_txn_command(
                        &dir,
                        spec.producer_id,
                        spec.producer_epoch,
                        spec.coordinator_epoch,
                        false,
                        ADMIN_ABORT_TIMESTAMP_MS,
                    ),
                    kind: LineKind::Marker { commit: false },
                    note: Some(crate::output::demo::admin_abort_text(spec)),
                }
            }
            TxnAct::ProducerEnds { commit } => {
                let spec = open()?;
                // The coordinator writes the marker with its own epoch, never below the one
                // the producer's last marker carried (the broker refuses a lower one).
                let coordinator_epoch = COORDINATOR_EPOCH.max(spec.described_coordinator_epoch);
                let (verb, marker) = if commit { ("commits", "COMMIT") } else { ("aborts", "ABORT") };
                LineStep {
                    line: commands::demo::end_txn_command(
                        &dir,
                        spec.producer_id,
                        spec.producer_epoch,
                        coordinator_epoch,
                        commit,
                        PRODUCER_END_TIMESTAMP_MS,
                    ),
                    kind: LineKind::Marker { commit },
                    note: Some(format!(
                        "Producer {} (epoch {}) {verb} its transaction from offset {} (had it lived): its \
                         transaction coordinator writes the {marker} marker with its coordinator epoch \
                         {coordinator_epoch}.",
                        spec.producer_id, spec.producer_epoch, spec.start_offset
                    )),
                }
            }
        };
        self.act(LabStep::Line(step))
    }

    /// The creates of a branch: a tiered one's replicas share the remote dir `"$LAB/remote"`,
    /// with the tiers scene's segment size.
    fn creates_for(&self, tiered: bool) -> Vec<String> {
        let tier = if tiered {
            format!(
                " --segment-bytes {} --remote-dir \"$LAB/{}\"",
                commands::demo::TIERS_SEGMENT_BYTES,
                commands::demo::tiers::REMOTE_DIR
            )
        } else {
            String::new()
        };
        (0..self.replicas as u8)
            .map(|i| format!("klog create \"$LAB/{}\" --replica-id {}{tier}", letter(i), script::replica_id(i)))
            .collect()
    }

    /// A new branch dir replaying `steps`; it becomes the view at its last frame. If any step
    /// is refused the branch is not made: no branch entry, no branch dir (so refusals never
    /// use up [`MAX_BRANCHES`]).
    fn start_branch(
        &mut self,
        parent: Option<(usize, usize)>,
        first_epoch: u8,
        era: Option<TruncationMode>,
        steps: &[LabStep],
    ) -> Result<()> {
        if self.branches.len() >= MAX_BRANCHES {
            return Err(Error::Usage(format!("lab: at most {MAX_BRANCHES} branches; restart klog lab")));
        }
        let count = self.branches.len();
        let tiered = steps.iter().any(|s| matches!(s, LabStep::Line(LineStep { kind: LineKind::Tiers, .. })))
            || parent.is_some_and(|(b, _)| self.branches[b].tiered);
        let dir = self.root.join((count + 1).to_string());
        if std::fs::symlink_metadata(&dir).is_ok() {
            return Err(Error::layout(&dir, "exists already; the lab makes each branch dir itself"));
        }
        let made = self.make_branch(
            &dir,
            Branch {
                dir: dir.clone(),
                parent,
                steps: Vec::new(),
                frames: Vec::new(),
                first_epoch,
                era,
                transactions: !tiered && steps.iter().any(|s| matches!(s, LabStep::Line(_))),
                tiered,
            },
            steps,
        );
        if made.is_err() {
            self.branches.truncate(count);
            // The dir this call made (it was absent above), and only it: the lab's own scratch.
            if let Err(e) = std::fs::remove_dir_all(&dir).or_else(|e| match e.kind() {
                std::io::ErrorKind::NotFound => Ok(()),
                _ => Err(e),
            }) {
                eprintln!(
                    "klog: warning: lab: {}",
                    crate::escape::text(&format!("{}: could not remove a refused branch: {e}", dir.display()))
                );
            }
        }
        made
    }

    fn make_branch(&mut self, dir: &Path, mut branch: Branch, steps: &[LabStep]) -> Result<()> {
        let mut output = String::new();
        for line in self.creates_for(branch.tiered) {
            output.push_str(&format!("$ {line}\n{}", run_line(&line, dir)?.output));
        }
        let Look { picture, acked, lost, leader, roles, txn } =
            look(dir, self.replicas, &[], branch.transactions, branch.tiered)?;
        // Epochs below the first are issued before the history starts: no replica saw them.
        let model = match (branch.transactions, branch.tiered) {
            (_, true) => Err(NO_MODEL_FOR_TIERS.to_string()),
            (true, false) => Err(NO_MODEL_FOR_TRANSACTIONS.to_string()),
            (false, false) => Ok(State { epochs_issued: branch.first_epoch, ..State::initial(self.replicas) }),
        };
        branch.frames.push(Frame {
            command: self.creates_for(branch.tiered).join("\n"),
            output: output.replace(&dir.display().to_string(), "$LAB"),
            picture,
            recovery_picture: None,
            code: Vec::new(),
            no_code: Some("create writes empty replica dirs: no replication procedure runs".into()),
            model,
            model_violation: None,
            acked,
            lost,
            leader,
            roles,
            hint: None,
            note: None,
            txn,
        });
        self.branches.push(branch);
        let b = self.branches.len() - 1;
        for step in steps {
            self.push_step(b, step.clone())?;
        }
        self.view = (b, self.branches[b].frames.len() - 1);
        Ok(())
    }

    /// Run `step` at the end of branch `b`.
    fn push_step(&mut self, b: usize, step: LabStep) -> Result<()> {
        let replicas = self.replicas;
        let branch = &self.branches[b];
        check_bounds(branch, branch.steps.len(), &step)?;
        let line = step.command(replicas);
        let mut ran = run_line(&line, &branch.dir)?;
        if let LabStep::Line(LineStep { kind: LineKind::Txn, .. }) = &step {
            // `klog txn`'s panel: Kafka's lines that compute the first unstable offset and the
            // LSO, with the values of the replica it read.
            let replica = line.rsplit('/').next().unwrap_or_default().trim_matches('"');
            let report = commands::txn::run(&branch.dir.join(replica), None)?;
            ran.code.push(commands::demo::lso_code::explanation(&report));
        }
        let last = branch.frames.last().expect("a branch has its first frame");
        let (model, model_violation) = model_step(&last.model, &step, branch.steps.len(), replicas);
        let Look { picture, acked, lost, leader, roles, txn } =
            look(&branch.dir, replicas, &last.acked, branch.transactions, branch.tiered)?;
        let no_code = ran.code.is_empty().then(|| match &step {
            LabStep::Model(Step { action: Action::Crash { .. }, .. }) => {
                "a crash runs no procedure: the volatile state is gone (and with --power-loss what only the page \
                 cache held)"
                    .to_string()
            }
            LabStep::Model(Step { action: Action::Restart { .. }, .. }) => {
                "restart: local recovery (scan from the recovery point; see the output)".into()
            }
            LabStep::Line(LineStep { kind: LineKind::Txn, .. }) => {
                "klog txn reads the log and the producer state a broker would load: it changes nothing".into()
            }
            LabStep::Line(LineStep { kind: LineKind::Tiers, line, .. }) if line.starts_with("klog tier copy") => {
                "the copy task uploads closed segments below the LSO and writes their metadata records: no \
                 replication procedure runs"
                    .into()
            }
            LabStep::Line(LineStep { kind: LineKind::Tiers, .. }) => {
                "no replication procedure runs (see the output)".into()
            }
            LabStep::Line(LineStep { kind: LineKind::Marker { .. }, .. }) => {
                "a marker is a control batch appended by the leader (WriteTxnMarkers): no replication procedure \
                 runs"
                    .into()
            }
            _ => "no procedure to show".into(),
        });
        let note = match &step {
            LabStep::Line(l) => l.note.clone(),
            LabStep::Model(_) => None,
        };
        let frame = Frame {
            output: ran.output.replace(&branch.dir.display().to_string(), "$LAB"),
            command: line,
            picture,
            recovery_picture: ran.recovery,
            code: ran.code.iter().map(explain::write_html).collect(),
            no_code,
            model,
            model_violation,
            acked,
            lost,
            leader,
            roles,
            hint: None,
            note,
            txn,
        };
        let branch = &mut self.branches[b];
        branch.steps.push(step);
        branch.frames.push(frame);
        Ok(())
    }

    /// Run `step` after the viewed frame: at a branch's end it extends the branch, elsewhere
    /// it forks (the prefix replayed into a new branch dir).
    pub fn act(&mut self, step: LabStep) -> Result<()> {
        let (b, f) = self.view;
        let branch = &self.branches[b];
        check_bounds(branch, f, &step)?;
        if f + 1 == branch.frames.len() {
            self.push_step(b, step)?;
            self.view = (b, f + 1);
            return Ok(());
        }
        let mut steps = branch.steps[..f].to_vec();
        steps.push(step);
        let (first_epoch, era) = (branch.first_epoch, branch.era);
        self.start_branch(Some((b, f)), first_epoch, era, &steps)
    }

    /// Fork the viewed frame's history three times, every `recover --leader` of it run under
    /// hw, kip101 and kip279 in turn; the view stays where it was and the three are compared.
    /// Refused (nothing made) when no step up to the frame depends on the era, or when the
    /// branch cap leaves no room for three.
    pub fn fork_eras(&mut self) -> Result<()> {
        let (b, f) = self.view;
        let branch = &self.branches[b];
        if !branch.steps[..f].iter().any(LabStep::recovers) {
            return Err(Error::Usage(
                "lab: nothing up to this frame depends on the era: no follower has been recovered from a leader \
                 yet (recover runs the era's truncation)"
                    .into(),
            ));
        }
        if self.branches.len() + ERAS.len() > MAX_BRANCHES {
            return Err(Error::Usage(format!("lab: at most {MAX_BRANCHES} branches; restart klog lab")));
        }
        let first_epoch = branch.first_epoch;
        let prefix = branch.steps[..f].to_vec();
        let mut made = Vec::new();
        for era in ERAS {
            let steps: Vec<LabStep> = prefix
                .iter()
                .map(|s| match s {
                    LabStep::Model(m) if s.recovers() => LabStep::Model(Step { rules: rules_for(Some(era)), ..*m }),
                    _ => s.clone(),
                })
                .collect();
            if let Err(e) = self.start_branch(Some((b, f)), first_epoch, Some(era), &steps) {
                self.view = (b, f);
                return Err(e);
            }
            made.push((era, self.branches.len() - 1));
        }
        self.view = (b, f);
        self.compare = Some(Compare { at: (b, f), branches: made });
        Ok(())
    }

    /// Fork frame `at` and run `extra` after it (the explorer's counterexample), in one new
    /// branch, viewed at its end. Refused as a whole if any step is refused.
    pub fn replay(&mut self, at: (usize, usize), extra: &[Step]) -> Result<()> {
        let branch = self.branches.get(at.0).ok_or_else(|| Error::Usage(format!("lab: no branch {}", at.0 + 1)))?;
        if at.1 >= branch.frames.len() {
            return Err(Error::Usage(format!("lab: branch {} has no frame {}", at.0 + 1, at.1)));
        }
        let mut steps = branch.steps[..at.1].to_vec();
        steps.extend(extra.iter().copied().map(LabStep::Model));
        let (first_epoch, era) = (branch.first_epoch, branch.era);
        self.start_branch(Some(at), first_epoch, era, &steps)
    }

    /// View frame `f` of branch `b`.
    pub fn goto(&mut self, b: usize, f: usize) -> std::result::Result<(), String> {
        let branch = self.branches.get(b).ok_or_else(|| format!("no branch {}", b + 1))?;
        if f >= branch.frames.len() {
            return Err(format!("branch {} has frames 0 to {}", b + 1, branch.frames.len() - 1));
        }
        self.view = (b, f);
        // The eras side by side belong to the frame they were forked from: moving closes them.
        self.compare = None;
        Ok(())
    }

    pub fn frame(&self) -> &Frame {
        &self.branches[self.view.0].frames[self.view.1]
    }

    /// The steps up to the viewed frame.
    pub fn steps(&self) -> &[LabStep] {
        &self.branches[self.view.0].steps[..self.view.1]
    }

    /// The epoch the next election from the viewed frame takes.
    pub fn next_epoch(&self) -> usize {
        let elections = self.steps().iter().filter(|s| s.elects()).count();
        self.branches[self.view.0].first_epoch as usize + elections
    }

    /// Records appended up to the viewed frame.
    pub fn appended(&self) -> usize {
        self.steps().iter().map(LabStep::appended).sum()
    }

    /// The history up to the viewed frame as a bash script running the same commands.
    pub fn script(&self) -> String {
        self.script_of(self.view.0, self.view.1)
    }

    /// The history of branch `b` up to frame `f` as a bash script.
    pub fn script_of(&self, b: usize, f: usize) -> String {
        let branch = &self.branches[b];
        let mut s = String::from("#!/usr/bin/env bash\n");
        s.push_str(&format!(
            "# klog lab: branch {}, frame {f} ({} steps). Needs klog on PATH.\n# Run: bash lab.sh DIR \
             (an empty or absent dir): the replicas are DIR/a, DIR/b{}.\n",
            b + 1,
            f,
            if self.replicas > 2 { ", DIR/c" } else { "" }
        ));
        s.push_str("set -euo pipefail\nLAB=${1:?usage: bash lab.sh DIR}\n");
        for line in self.creates_for(branch.tiered) {
            s.push_str(&line);
            s.push('\n');
        }
        for step in &branch.steps[..f] {
            s.push_str(&step.command(self.replicas));
            s.push('\n');
        }
        let frame = &branch.frames[f];
        if frame.lost.is_empty() {
            s.push_str("# verdict: no acknowledged record lost\n");
        } else {
            let lost: Vec<String> = frame.lost.iter().map(|a| format!("{} (offset {})", a.value, a.offset)).collect();
            let leader = frame.leader.map_or(String::new(), |(l, e)| format!(": {l} leads at epoch {e} without it"));
            s.push_str(&format!("# verdict: acknowledged {} lost{leader}\n", lost.join(", ")));
        }
        s
    }
}

/// The rules a step runs by: a recover's mode; elections and the rest at the default era's
/// rules ([`cli::rules_of`]: the epoch entry at election, Kafka >= 2.0.1).
pub fn rules_for(mode: Option<TruncationMode>) -> Rules {
    cli::rules_of(mode)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn argv_takes_the_lab_dirs_and_refuses_other_shell_words() {
        let lab = Path::new("/l/1");
        let words = argv("fetch --leader \"$LAB/b\" \"$LAB/a\"", lab).unwrap();
        assert_eq!(words, vec!["fetch", "--leader", "/l/1/b", "/l/1/a"]);
        assert!(argv("crash \"$LAB/../x\"", lab).is_err());
        assert!(argv("crash $HOME", lab).is_err());
        assert!(argv("crash \"$LAB/d\"", lab).is_err());
    }

    #[test]
    fn the_watch_preset_runs_the_watchs_first_commands_and_a_batch_is_one_append_of_the_model_per_record() {
        let lines: Vec<String> = watch_steps().iter().map(|s| s.command(2)).collect();
        assert_eq!(
            lines,
            [
                "klog elect \"$LAB/b\" --epoch 1 --isr \"$LAB/a\"",
                "klog append \"$LAB/b\" m1 m2 --timestamp 1000",
                "klog fetch --leader \"$LAB/b\" \"$LAB/a\" --kafka 2.7.2",
                "klog fetch --leader \"$LAB/b\" \"$LAB/a\" --kafka 2.7.2",
            ]
        );
        let batch = watch_steps()[1];
        assert_eq!(batch.appended(), 2);
        let values: Vec<Action> = batch.model_actions().collect();
        assert_eq!(values, [Action::Append { replica: 1, value: 1 }, Action::Append { replica: 1, value: 2 }]);
        // The model, started with epoch 0 issued before the history, takes the whole preset.
        let mut model = Ok(State { epochs_issued: 1, ..State::initial(2) });
        for (i, step) in watch_steps().into_iter().enumerate() {
            let (next, violation) = model_step(&model, &LabStep::Model(step), i, 2);
            assert!(next.is_ok() && violation.is_none(), "step {i}: {next:?}");
            model = next;
        }
        let state = model.unwrap();
        assert_eq!((state.epochs_issued, state.appended), (2, 2));
    }

    /// The lines `klog demo stuck-lso` prints (its `$LAB/x` unquoted) up to its first `klog txn`.
    fn demo_lines_to_first_txn() -> Vec<String> {
        let tmp = tempfile::tempdir().unwrap();
        let req = commands::demo::DemoRequest {
            scenario: Some("stuck-lso"),
            mode: None,
            all_modes: false,
            dir: &tmp.path().join("demo"),
            predict: false,
        };
        let mut lines = Vec::new();
        commands::demo::run(&req, &mut |e| {
            if let commands::demo::DemoEvent::Command(line) = e {
                lines.push(line);
            }
            Ok(())
        })
        .unwrap();
        let first_txn = lines.iter().position(|l| l.starts_with("klog txn ")).unwrap();
        lines.truncate(first_txn + 1);
        lines
    }

    fn fetch(leader: u8, follower: u8) -> LabStep {
        LabStep::Model(Step::new(Action::Fetch { leader, follower }, rules_for(None)))
    }

    fn txn(s: &Session) -> &TxnFrame {
        s.frame().txn.as_ref().expect("a frame of the stuck-lso scene shows its transactions")
    }

    #[test]
    fn the_stuck_lso_preset_runs_the_demos_own_lines_up_to_its_first_klog_txn() {
        let ours: Vec<String> =
            Session { root: PathBuf::new(), replicas: 2, branches: vec![], view: (0, 0), compare: None }
                .creates_for(false)
                .into_iter()
                .chain(stuck_lso_steps().iter().map(|s| s.command(2)))
                .map(|l| l.replace('"', ""))
                .collect();
        assert_eq!(ours, demo_lines_to_first_txn());
        let steps = stuck_lso_steps();
        assert_eq!(steps.iter().map(LabStep::appended).sum::<usize>(), 7, "o1 o2, t1 t2, o3 o4 o5");
        assert!(steps.iter().all(|s| matches!(s, LabStep::Line(_))));
        // The producer's death is the demo's narration, kept on the step after it.
        let death = steps.iter().find_map(|s| match s {
            LabStep::Line(l) if l.line.contains(" o3 o4 o5 ") => l.note.clone(),
            _ => None,
        });
        assert!(death.is_some_and(|n| n.contains("killed before it commits")));
    }

    /// The tiers preset runs every command line of `klog demo tiers`, with the demo's creates
    /// (the remote dir beside the replicas); its frames draw the remote tier, A's restart
    /// carries the remote aux-state code, the last frame is klog remote's reading with m5 and m6
    /// (acknowledged on B) the ones the leader A does not serve, and the script rebuilds it.
    #[test]
    fn the_tiers_preset_runs_the_whole_scene_and_ends_with_the_records_the_new_leader_does_not_serve() {
        let tmp = tempfile::tempdir().unwrap();
        let mut s = Session::new(&tmp.path().join("lab"), 3).unwrap();
        s.preset_tiers().unwrap();
        let (b, last) = s.view;
        let branch = &s.branches[b];
        assert!(branch.tiered && !branch.transactions);
        let scene = commands::demo::scenario("tiers").unwrap();
        let shown = |r: &str| format!("\"$LAB/{r}\"");
        let demo: Vec<String> = scene
            .steps
            .iter()
            .filter_map(|st| commands::demo::command_line(st, TruncationMode::Kip279, &shown))
            .collect();
        let ours: Vec<String> =
            s.creates_for(true).into_iter().chain(branch.steps.iter().map(|st| st.command(2))).collect();
        assert_eq!(ours, demo);
        assert_eq!(last, branch.steps.len());
        let restart = branch.frames.iter().find(|f| f.command.starts_with("klog recover \"$LAB/a\"")).unwrap();
        assert!(restart.code.iter().any(|c| c.contains("OFFSET_MOVED_TO_TIERED_STORAGE")), "{:?}", restart.code);
        assert!(restart.recovery_picture.as_ref().is_some_and(|p| p.contains("data-fate=\"in-remote\"")));
        let f = s.frame();
        assert!(f.command.starts_with("klog remote "), "{}", f.command);
        assert!(f.output.contains("1 finished remote segment(s) no broker here would serve"), "{}", f.output);
        assert_eq!(f.leader, Some(('a', 2)));
        let lost: Vec<(i64, &str)> = f.lost.iter().map(|a| (a.offset, a.value.as_str())).collect();
        assert_eq!(lost, [(4, "m5"), (5, "m6")], "m1..m3 are served from remote storage, not lost");
        assert!(f.picture.contains("data-fate=\"unserved\""), "the remote row marks the segment 4..4");
        assert!(f.hint.as_ref().is_some_and(|h| h.contains("m5 (offset 4), m6 (offset 5)")), "{:?}", f.hint);
        assert!(matches!(&f.model, Err(why) if why == NO_MODEL_FOR_TIERS));
        let script = s.script();
        assert!(script.contains("--remote-dir \"$LAB/remote\"") && script.contains("klog tier copy \"$LAB/b\""));
        assert!(script.contains("# verdict: acknowledged m5 (offset 4), m6 (offset 5) lost"), "{script}");
    }

    /// Every frame's LSO and HW are `klog txn`'s on the leader: the LSO follows the HW until t1
    /// t2 are written, then stays at their first offset while the HW moves on; the explorer is
    /// off on every frame, saying why.
    #[test]
    fn the_stuck_lso_presets_frames_hold_the_lso_at_the_open_transaction_while_the_hw_moves_on() {
        let tmp = tempfile::tempdir().unwrap();
        let mut s = Session::new(&tmp.path().join("lab"), 3).unwrap();
        s.preset_stuck_lso().unwrap();
        assert_eq!(s.replicas, 2);
        let (b, last) = s.view;
        assert!(s.branches[b].transactions);
        // create, elect, o1 o2, fetch x2, t1 t2, o3 o4 o5, fetch x2, txn.
        let expected = [(0, 0), (0, 0), (0, 0), (2, 2), (2, 2), (2, 2), (2, 7), (2, 7)];
        assert_eq!(last + 1, expected.len());
        for (f, &(lso, hw)) in expected.iter().enumerate() {
            s.goto(b, f).unwrap();
            let t = txn(&s);
            assert_eq!((t.replica, t.last_stable_offset, t.high_watermark), ('a', lso, hw), "frame {f}");
            assert_eq!(s.frame().model.as_ref().err().map(String::as_str), Some(NO_MODEL_FOR_TRANSACTIONS));
            // The picture marks the LSO and shades t1 t2: on a once written, on b once fetched.
            assert!(s.frame().picture.contains("LSO"), "frame {f}");
            let open_cells = match f {
                0..=3 => 0,
                4 | 5 => 2,
                _ => 4,
            };
            assert_eq!(s.frame().picture.matches("class=\"txn-open\"").count(), open_cells, "frame {f}");
        }
        let t = txn(&s);
        assert!(t.holder.starts_with("producer 1000's transaction is open from offset 2"), "{}", t.holder);
        let open = t.abort.as_ref().unwrap();
        assert_eq!((open.producer_id, open.producer_epoch, open.start_offset), (1000, 0, 2));
        // The last frame ran klog txn itself: its printed LSO is the frame's.
        assert!(s.frame().output.contains("LSO 2  HW 7"), "{}", s.frame().output);
        assert!(s.frame().hint.as_deref().is_some_and(|h| h.contains("a's LSO is 2 while its HW is 7")));
    }

    /// The admin abort writes the ABORT marker `kafka-transactions.sh abort` resolves to; the
    /// LSO stays until the HW covers the marker, then is the HW. From the stuck frame again,
    /// the producer's commit (a fork) does the same with a COMMIT marker.
    #[test]
    fn the_admin_abort_and_the_producers_commit_move_the_lso_to_the_hw_once_it_covers_the_marker() {
        let tmp = tempfile::tempdir().unwrap();
        let mut s = Session::new(&tmp.path().join("lab"), 2).unwrap();
        assert!(s.act_txn(TxnAct::AdminAbort).is_err(), "no transactions on a plain branch");
        s.preset_stuck_lso().unwrap();
        let stuck = s.view;
        s.act_txn(TxnAct::AdminAbort).unwrap();
        assert_eq!(
            s.frame().command,
            "klog append \"$LAB/a\" --timestamp 66000 --producer-id 1000 --producer-epoch 0 --end-txn abort \
             --coordinator-epoch 0"
        );
        assert!(s
            .frame()
            .note
            .as_deref()
            .is_some_and(|n| n.contains("abort --topic") && n.contains("--start-offset 2")));
        let t = txn(&s);
        assert_eq!((t.last_stable_offset, t.high_watermark), (2, 7), "the marker at 7 is not below the HW yet");
        assert!(t.abort.is_none() && t.holder.contains("not below the HW 7 yet"), "{}", t.holder);
        assert!(s.act_txn(TxnAct::AdminAbort).is_err(), "nothing left open to abort");
        s.act(fetch(0, 1)).unwrap();
        assert_eq!((txn(&s).last_stable_offset, txn(&s).high_watermark), (2, 7));
        s.act(fetch(0, 1)).unwrap();
        assert_eq!((txn(&s).last_stable_offset, txn(&s).high_watermark), (8, 8));
        assert!(s.frame().picture.contains(">ABRT</text>"));
        let acked: Vec<&str> = s.frame().acked.iter().map(|a| a.value.as_str()).collect();
        assert_eq!(acked, ["o1", "o2", "t1", "t2", "o3", "o4", "o5"], "the marker at 7 is no acknowledged record");
        s.act_txn(TxnAct::Txn).unwrap();
        assert!(s.frame().output.contains("LSO 8  HW 8"), "{}", s.frame().output);

        s.goto(stuck.0, stuck.1).unwrap();
        s.act_txn(TxnAct::ProducerEnds { commit: true }).unwrap();
        assert_ne!(s.view.0, stuck.0, "acting on a frame left behind forks");
        assert!(s.frame().command.ends_with("--producer-epoch 0 --end-txn commit --coordinator-epoch 3"));
        s.act(fetch(0, 1)).unwrap();
        s.act(fetch(0, 1)).unwrap();
        assert_eq!((txn(&s).last_stable_offset, txn(&s).high_watermark), (8, 8));
        assert!(s.frame().picture.contains(">CMTD</text>"));
        assert!(s.script().contains("--end-txn commit"), "{}", s.script());
    }

    #[test]
    fn replica_letters_are_bounded_by_the_lab() {
        assert_eq!(replica_index("b", 2), Ok(1));
        assert!(replica_index("c", 2).is_err());
        assert!(replica_index("../a", 3).is_err());
        assert!(replica_index("", 3).is_err());
    }
}
