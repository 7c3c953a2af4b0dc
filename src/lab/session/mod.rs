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
//!
//! Here: the session's branches (start, fork, replay, compare the eras). Beside it: `step`
//! (what a step is), `state` (branches and frames), `run` (a command line through the
//! dispatcher), `look` (a frame read from the dirs), `scenes` (the presets) and `txn` (the
//! stuck-lso scene's own steps).

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

mod look;
mod run;
mod scenes;
mod state;
mod step;
mod txn;

pub use look::violation_text;
use look::{check_bounds, look, model_step, Look};
use run::run_line;
pub use run::{argv, letter, replica_index};
pub use scenes::{stuck_lso_steps, tiers_steps, watch_steps};
pub use state::{Acked, Branch, Compare, Frame, Mark, Session, TxnFrame, ERAS};
pub use step::{
    lab_config, rules_for, LabStep, LineKind, LineStep, Step, NO_MODEL_FOR_TIERS, NO_MODEL_FOR_TRANSACTIONS,
};
pub use txn::TxnAct;

/// Most actions in one branch (a lab, not a load test).
pub const MAX_STEPS: usize = 64;
/// Most records appended in one branch (every one is drawn).
pub const MAX_LAB_RECORDS: usize = 16;
/// Most branches a lab makes (each is a dir of small replicas).
pub const MAX_BRANCHES: usize = 64;
/// Offsets drawn.
const DRAWN_OFFSETS: i64 = 20;

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
