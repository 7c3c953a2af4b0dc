//! `demo --capture FILE.html`: the run as one self-contained HTML filmstrip. One frame per
//! step — the scenario's narration before it, the command as typed, then what the step did: a
//! sentence of it (when the scenario says nothing before the step), its alerts, the picture
//! after it (inline SVG; for a recovery, the follower before and after with each record's fate)
//! beside the code panel of what ran (every fetch round, election, append and recovery), its
//! key output (the demo's own text, without colour) and the narration after it — then a last
//! frame with the per-mode contrast table. Frames are stepped with ←/→, Space, Home/End, a
//! slider with chapter marks, or the chapter links, and addressable as `FILE.html#step=N`.
//! The demo's `--predict` questions are asked in the page (answer or skip, then the truths, whys
//! and score) beside the picture of the replicas before the step, one at a time: a frame's
//! truths and whys show together once its last question is answered (one question's truth can
//! give the next one's away); everything the step produced is one block, veiled until then, so
//! nothing above a question is generated from its outcome. Above the revealed picture a figure
//! says why (`demo_marks`: a fetch's round trip, a recovery's lookup); with several eras, the
//! last era's recovery frames and the last frame hold every era side by side (columns the
//! page's script fills from the eras' own frames). With `--predict` the learner's terminal answers are recorded beside them.
//! Everything is inline (CSS, SVG, a little script): no network, no fonts, no wall-clock time,
//! so the same run gives the same bytes.

use super::demo::{entries_text, DemoPrinter};
use super::picture::Picture;
use super::svg::{escape, render};
use super::{explain, Settings};
use crate::commands::alter_isr::AlterIsrReport;
use crate::commands::append::AppendReport;
use crate::commands::demo::{AnswerKind, DemoEvent, ModeOutcome, Prediction, ReplicaState, Scenario};
use crate::commands::draw::{short_name, DrawReport, RecoveryDrawing};
use crate::commands::elect::ElectReport;
use crate::commands::fetch::FetchReport;
use crate::commands::recover::FollowerRecoverReport;
use crate::commands::txn::TxnReport;
use crate::crash::CrashReport;
use crate::error::Result;
use crate::replication::truncation::TruncationMode;
use crate::tiered::copy::CopyReport;
use crate::tiered::retain::RetainReport;
use std::path::{Path, PathBuf};

/// The learner's terminal answer to a question (`None`: not answered) and whether it was right.
pub type Answer = (Option<String>, bool);

#[derive(Default, Clone)]
struct Frame {
    heading: String,
    /// The scenario's story, on the first frame of each run.
    story: String,
    say: Vec<String>,
    /// Narration after the last step of a run (it has no next frame to go with).
    after: Vec<String>,
    command: String,
    output: String,
    picture: String,
    explain: String,
    /// What the step did, in a sentence, when the scenario says nothing before it.
    note: String,
    /// The questions asked about this step, with the learner's terminal answer if any.
    quizzes: Vec<(Prediction, Option<Answer>)>,
    /// The run's mode, for the chapter marks.
    mode: String,
    /// Acknowledged records this step lost or left only on the leader (flagged in its picture).
    alerts: Vec<String>,
    /// The replicas as they were before the step (the previous step's state), drawn beside its
    /// questions so the learner reasons on the picture without stepping back a frame.
    before: String,
    /// Why the step came out as it did, drawn above its picture: a fetch's round trip, a
    /// recovery's lookup.
    why: String,
    /// A recovery: its number in the run (0 for the first), for the eras side by side.
    recovery: Option<usize>,
    /// Filled in by [`Capture::html`]: the eras' pictures and code side by side (the last
    /// run's recoveries and the contrast).
    eras: String,
}

/// Collects frames from the demo's events; [`Capture::html`] writes the page.
pub struct Capture {
    root: PathBuf,
    lab: Option<PathBuf>,
    title: String,
    heading: String,
    pending_say: Vec<String>,
    pending_story: String,
    frames: Vec<Frame>,
    contrast: String,
    mode: String,
    /// The alerts of the run so far: each is raised in the frame where it happens, once.
    alerted: Vec<String>,
    /// The picture of the run's state after its last step (empty before the first).
    last_state: String,
    /// The recoveries of the current run so far.
    recovered: usize,
    /// Each finished run's mode and final picture.
    finals: Vec<(String, String)>,
    /// A tiered scene's tiers after the step, drawn on its picture.
    tiers: Option<crate::commands::demo::tiers::TierView>,
}

/// Said at the start of an hw run, whose pictures still draw epochs.
const HW_EPOCHS: &str = " Under hw the eN epochs and the epoch caches in the pictures are drawn for comparison \
                         only: Kafka <= 0.10.2 had neither, and its recovery ignores them.";

/// The settings the frames' text is rendered with: no colour, a fixed width.
const TEXT: Settings =
    Settings { color: false, width: Some(96), table_width: Some(96), progress: false, truecolor: false };

impl Capture {
    pub fn new(root: PathBuf) -> Capture {
        Capture {
            root,
            lab: None,
            title: String::new(),
            heading: String::new(),
            pending_say: Vec::new(),
            pending_story: String::new(),
            frames: Vec::new(),
            contrast: String::new(),
            mode: String::new(),
            alerted: Vec::new(),
            last_state: String::new(),
            recovered: 0,
            finals: Vec::new(),
            tiers: None,
        }
    }

    /// The run that just ended: its final picture, for the last frame's side by side.
    fn end_run(&mut self) {
        if !self.last_state.is_empty() {
            self.finals.push((self.mode.clone(), self.last_state.clone()));
        }
    }

    /// Raise the picture's acknowledged-record alerts not raised before in this run.
    fn alert(&mut self, pic: &Picture) {
        let fresh: Vec<String> = pic.acked_alerts().into_iter().filter(|a| !self.alerted.contains(a)).collect();
        self.alerted.extend(fresh.iter().cloned());
        if let Some(f) = self.frames.last_mut() {
            f.alerts.extend(fresh);
        }
    }

    /// The learner's answer to the question just recorded (`--predict --capture`).
    pub fn answered(&mut self, answer: Option<Answer>) {
        if let Some(q) = self.frames.last_mut().and_then(|f| f.quizzes.last_mut()) {
            q.1 = answer;
        }
    }

    /// A sentence for the current frame when the scenario said nothing before its step.
    fn note(&mut self, text: String) {
        if let Some(f) = self.frames.last_mut() {
            if f.say.is_empty() && f.note.is_empty() {
                f.note = text;
            }
        }
    }

    /// The demo's text for one event (as `demo --plain` prints it, `$LAB` for the lab).
    fn text_of(&self, e: DemoEvent<'_>) -> Result<String> {
        let mut buf = Vec::new();
        DemoPrinter::new(&mut buf, TEXT, self.root.clone()).with_lab(self.lab.clone()).plain(true).event(e)?;
        Ok(String::from_utf8_lossy(&buf).into_owned())
    }

    pub fn event(&mut self, e: DemoEvent<'_>) -> Result<()> {
        match e {
            DemoEvent::Scenario(sc, mode) => self.begin_run(sc, mode),
            DemoEvent::Say(text) => self.pending_say.push(text.to_string()),
            DemoEvent::Command(cmd) => self.begin_frame(cmd),
            DemoEvent::Question(q) => {
                if let Some(f) = self.frames.last_mut() {
                    f.quizzes.push((q.clone(), None));
                }
            }
            DemoEvent::Created(name) => {
                let r = name.to_uppercase();
                self.note(format!(
                    "{r}'s replica dir is created: an empty log (LEO 0, HW 0) and an empty epoch cache."
                ));
                if let Some(f) = self.frames.last_mut() {
                    f.output = format!("created $LAB/{name}: an empty log, no leader epoch yet\n");
                }
            }
            DemoEvent::State(states, drawn) => self.draw_state(states, drawn),
            DemoEvent::Recovered(r, leader_records) => self.frame_recovery(r, leader_records)?,
            DemoEvent::Elected(r) => {
                self.note(elected_note(r));
                self.with_panel(DemoEvent::Elected(r), explain::write_html(&r.explanation()))?
            }
            DemoEvent::Appended(n, r) => {
                self.note(appended_note(n, r));
                self.with_panel(DemoEvent::Appended(n, r), explain::write_html(&r.explanation()))?
            }
            DemoEvent::Fetched(n, r) => self.frame_fetch(n, r)?,
            DemoEvent::Crashed(r) => self.step_with_text(crashed_note(r), DemoEvent::Crashed(r))?,
            DemoEvent::Txn(name, r) => {
                self.note(txn_note(name, r));
                let panel = explain::write_html(&crate::commands::demo::lso_code::explanation(r));
                self.with_panel(DemoEvent::Txn(name, r), panel)?;
            }
            DemoEvent::AdminAbort(a) => self.pending_say.push(super::demo::admin_abort_text(a)),
            DemoEvent::IsrAltered(r) => self.step_with_text(isr_altered_note(r), DemoEvent::IsrAltered(r))?,
            DemoEvent::Copied(r) => self.step_with_text(copied_note(r), DemoEvent::Copied(r))?,
            DemoEvent::Retained(n, r) => self.step_with_text(retained_note(n, r), DemoEvent::Retained(n, r))?,
            DemoEvent::Remote(r) => self.step_with_text(REMOTE_NOTE.to_string(), DemoEvent::Remote(r))?,
            DemoEvent::Tiers(view) => {
                self.tiers = Some(view.clone());
            }
            // The page opens with its own title and steps.
            DemoEvent::Opening(..) => {}
            DemoEvent::Contrast(sc, outcomes) => {
                self.flush_narration();
                self.end_run();
                self.contrast = contrast_html(sc, outcomes)
            }
        }
        Ok(())
    }

    /// A step's frame, opened by its command with the narration gathered before it.
    fn begin_frame(&mut self, cmd: String) {
        self.frames.push(Frame {
            heading: self.heading.clone(),
            story: std::mem::take(&mut self.pending_story),
            say: std::mem::take(&mut self.pending_say),
            command: format!("$ {cmd}"),
            mode: self.mode.clone(),
            before: self.last_state.clone(),
            ..Frame::default()
        });
    }

    /// A step told in a sentence (when the scenario says nothing) and by its text.
    fn step_with_text(&mut self, note: String, e: DemoEvent<'_>) -> Result<()> {
        self.note(note);
        let text = self.text_of(e)?;
        self.output(&text);
        Ok(())
    }

    /// A new run of the scenario (one per mode): its heading, its story, a clean slate.
    fn begin_run(&mut self, sc: &Scenario, mode: Option<TruncationMode>) {
        self.lab = Some(self.root.join(mode.map_or("run", |m| m.name())));
        self.title = format!("klog demo {}", sc.name);
        self.flush_narration();
        self.end_run();
        self.recovered = 0;
        self.pending_story = sc.story.to_string();
        if mode == Some(crate::replication::truncation::TruncationMode::Hw) {
            // Kafka <= 0.10.2 stamped no leader epoch in a batch and kept no epoch cache:
            // the pictures draw them only to compare the eras.
            self.pending_story.push_str(HW_EPOCHS);
        }
        self.mode = mode.map_or(String::new(), |m| m.name().to_string());
        self.alerted.clear();
        self.last_state.clear();
        self.heading = match mode {
            Some(m @ crate::replication::truncation::TruncationMode::Hw) => format!(
                "{} — mode {} ({}; its epochs drawn for comparison only)",
                sc.title,
                m.name(),
                m.kafka_versions()
            ),
            Some(m) => format!("{} — mode {} ({})", sc.title, m.name(), m.kafka_versions()),
            None => sc.title.to_string(),
        };
    }

    /// Every replica after a step: the picture, drawn on the step's frame if it has none yet.
    fn draw_state(&mut self, states: &[ReplicaState], drawn: &DrawReport) {
        let mut pic = Picture::of_draw(drawn);
        super::txn_picture::overlay(&mut pic, states);
        if let Some(view) = self.tiers.take() {
            super::tier_picture::overlay(&mut pic, &view);
        }
        self.last_state = render(&pic, false);
        if self.frames.last().is_some_and(|f| f.picture.is_empty()) {
            self.alert(&pic);
            if let Some(f) = self.frames.last_mut() {
                f.picture = self.last_state.clone();
            }
        }
    }

    /// A recovery's frame: its text, the follower before and after, the code panel and the
    /// lookup the cut came from.
    fn frame_recovery(&mut self, r: &FollowerRecoverReport, leader_records: &RecoveryDrawing) -> Result<()> {
        let text = self.text_of(DemoEvent::Recovered(r, leader_records))?;
        let (l, f) = (short_name(Path::new(&r.leader_dir)), short_name(Path::new(&r.follower_dir)));
        let mut pic = Picture::of_recovery(r, &l, &f, leader_records);
        super::tier_picture::restart_fates(&mut pic, r);
        self.alert(&pic);
        let svg = render(&pic, false);
        let panel = explain::write_html(&r.explanation());
        self.note(recovery_note(r, &l));
        let lookup = super::demo_marks::lookup_svg(r, &l, &f);
        let number = self.recovered;
        self.recovered += 1;
        if let Some(frame) = self.frames.last_mut() {
            frame.output.push_str(&text);
            frame.picture = svg;
            frame.explain = panel;
            frame.why = format!(
                "<figure class=\"why lookup\"><figcaption>what the cut came from</figcaption>{lookup}</figure>"
            );
            frame.recovery = Some(number);
        }
        Ok(())
    }

    /// A fetch's frame: every round's code panel and the round trip's figure.
    fn frame_fetch(&mut self, n: &str, r: &FetchReport) -> Result<()> {
        if let Some(last) = r.rounds.last() {
            self.note(format!(
                "{} fetches ({} round{}): its LEO is {}, and its HW {} is what the last response carried.",
                n.to_uppercase(),
                r.rounds.len(),
                if r.rounds.len() == 1 { "" } else { "s" },
                last.follower_log_end_offset,
                last.follower_high_watermark
            ));
        }
        let panel = fetch_rounds_html(r);
        let leader = self
            .frames
            .last()
            .and_then(|f| f.command.split(" --leader ").nth(1))
            .and_then(|rest| rest.split_whitespace().next())
            .map_or(String::from("leader"), |d| d.rsplit('/').next().unwrap_or(d).to_string());
        let trip = super::demo_marks::round_trip_svg(&leader, n, r);
        if let Some(f) = self.frames.last_mut() {
            f.why = format!(
                "<figure class=\"why round\"><figcaption>the round trip: what {} recorded, the HW its response \
                 carried</figcaption>{trip}</figure>",
                escape(&leader.to_uppercase())
            );
        }
        self.with_panel(DemoEvent::Fetched(n, r), panel)
    }

    /// A step's text on its frame, with the code panel of what ran.
    /// Add `text` to the current frame's output.
    fn output(&mut self, text: &str) {
        if let Some(f) = self.frames.last_mut() {
            f.output.push_str(text);
        }
    }

    fn with_panel(&mut self, e: DemoEvent<'_>, panel: String) -> Result<()> {
        let text = self.text_of(e)?;
        if let Some(f) = self.frames.last_mut() {
            f.output.push_str(&text);
            f.explain = panel;
        }
        Ok(())
    }

    /// Narration left after a run's last step goes with that step's frame.
    fn flush_narration(&mut self) {
        let said = std::mem::take(&mut self.pending_say);
        if let Some(f) = self.frames.last_mut() {
            f.after.extend(said);
        }
    }

    /// The chapter marks: (frame number, label) at each run's start and at each crash,
    /// election after the first, recovery, and the contrast.
    fn chapters(frames: &[Frame], contrast: bool) -> Vec<(usize, String)> {
        let mut marks: Vec<(usize, String)> = Vec::new();
        let mut elections = 0;
        for (i, f) in frames.iter().enumerate() {
            let n = i + 1;
            let word = f.command.split_whitespace().nth(2).unwrap_or("");
            let who = f
                .command
                .split_whitespace()
                .nth(3)
                .map_or(String::new(), |d| d.rsplit('/').next().unwrap_or(d).to_uppercase());
            if !f.story.is_empty() {
                elections = 0;
                marks.push((n, if f.mode.is_empty() { "start".into() } else { format!("{} run", f.mode) }));
                continue;
            }
            let label = match word {
                "crash" => Some(format!("{who} fails")),
                "elect" => {
                    elections += 1;
                    (elections > 1).then(|| format!("{who} elected"))
                }
                "recover" => Some(format!("{who} recovers")),
                // stuck-lso: where a transaction begins and where a marker ends one.
                "append" if f.command.contains(" --transactional") => Some("txn begins".to_string()),
                "append" if f.command.contains(" --end-txn ") => Some("txn ends".to_string()),
                // tiers: each run of the copy task, and klog remote's reading at the end.
                "tier" if f.command.contains(" tier copy ") => Some("copy to remote".to_string()),
                "remote" => Some("klog remote".to_string()),
                _ => None,
            };
            if word == "elect" && elections == 0 {
                elections = 1;
            }
            if let Some(l) = label {
                marks.push((n, l));
            }
        }
        if contrast {
            marks.push((frames.len() + 1, "contrast".into()));
        }
        marks
    }

    /// The whole page.
    pub fn html(&self) -> String {
        let mut all = self.frames.clone();
        if let Some(last) = all.last_mut() {
            last.after.extend(self.pending_say.iter().cloned());
        }
        let runs: Vec<String> = self.finals.iter().map(|(m, _)| m.clone()).collect();
        if runs.len() > 1 {
            side_by_side_eras(&mut all, &runs);
        }
        let quizzes: usize = all.iter().map(|f| f.quizzes.len()).sum();
        let mut frames: Vec<String> = all.iter().enumerate().map(|(i, f)| frame_html(i + 1, f)).collect();
        if !self.contrast.is_empty() {
            let n = frames.len() + 1;
            frames.push(format!(
                "<section class=\"frame\" id=\"step-{n}\" data-step=\"{n}\" data-mode=\"\"><h2>What each truncation mode did</h2>\
                 <p class=\"say note\">The same steps under each truncation mode, side by side: what each replica kept, \
                 which acknowledged records were lost, and whether the logs agree.</p>{}{}</section>\n",
                self.contrast,
                finals_html(&all, &self.finals)
            ));
        }
        let count = frames.len();
        let chapters = Capture::chapters(&all, !self.contrast.is_empty());
        let ticks: String =
            chapters.iter().map(|(n, l)| format!("<option value=\"{n}\" label=\"{}\"></option>", escape(l))).collect();
        let links: String = chapters
            .iter()
            .map(|(n, l)| format!("<button class=\"chapter\" data-step=\"{n}\">{}</button>", escape(l)))
            .collect::<Vec<_>>()
            .join(" ");
        let score = if quizzes == 0 {
            String::new()
        } else {
            format!(" <span id=\"score\" data-total=\"{quizzes}\">predicted 0 of {quizzes}</span>")
        };
        format!(
            "<!DOCTYPE html>\n{marker}\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>{title}</title>\n\
             <meta name=\"viewport\" content=\"width=device-width\">\n<style>{STYLE}</style></head>\n<body>\n\
             <header><h1>{title}</h1><div class=\"controls\"><button id=\"prev\" title=\"previous (←)\">←</button>\
             <input id=\"slider\" type=\"range\" min=\"1\" max=\"{count}\" value=\"1\" aria-label=\"step\" list=\"chapter-marks\">\
             <datalist id=\"chapter-marks\">{ticks}</datalist>\
             <button id=\"next\" title=\"next (→)\">→</button> <span id=\"pos\">1 / {count}</span>{score}</div>\
             <nav class=\"chapters\">{links}</nav></header>\n\
             <main>\n{frames}</main>\n<script>{SCRIPT}</script>\n</body></html>\n",
            title = escape(&self.title),
            frames = frames.concat(),
            marker = crate::durable::output::OutputKind::Html.marker(),
        )
    }
}

/// The last run's recoveries: every era's picture and code at that step, side by side
/// (all of them asked by then). Each column names the era's own frame; the page's script
/// copies that frame's lookup, picture and code panel into it (the file stays small).
fn side_by_side_eras(all: &mut [Frame], runs: &[String]) {
    let frame_of =
        |mode: &str, k: usize| all.iter().position(|f| f.mode == mode && f.recovery == Some(k)).map(|i| i + 1);
    let last_run = runs.last().cloned().unwrap_or_default();
    let mut blocks = Vec::new();
    for (i, f) in all.iter().enumerate() {
        let Some(k) = f.recovery.filter(|_| f.mode == last_run) else { continue };
        let columns: Vec<String> = runs
            .iter()
            .filter_map(|m| frame_of(m, k).map(|n| (m, n)))
            .map(|(m, n)| {
                format!(
                    "<div class=\"era\" data-era=\"{m}\" data-clone=\"step-{n}\" \
                     data-parts=\"figure.why,.row\"><h3>{m} (frame {n})</h3></div>",
                    m = escape(m)
                )
            })
            .collect();
        blocks.push((
            i,
            format!(
                "<section class=\"eras\" data-eras=\"{}\"><h3>this recovery in every era, side by side</h3>\
                 <div class=\"era-row\">{}</div></section>",
                columns.len(),
                columns.concat()
            ),
        ));
    }
    for (i, b) in blocks {
        all[i].eras = b;
    }
}

/// What a recovery did, in a sentence: the cut, or the rebuild from the remote segment.
fn recovery_note(r: &FollowerRecoverReport, l: &str) -> String {
    let who = short_name(Path::new(&r.follower_dir)).to_uppercase();
    match &r.plan.from_remote {
        Some(aux) => format!(
            "{who} restarts as a follower of {}: its fetch at {} is below {}'s local log start {}, \
             answered OFFSET_MOVED_TO_TIERED_STORAGE; {who} rebuilds its state from the remote segment \
             and restarts its log at {} (log start {}).",
            l.to_uppercase(),
            r.follower_view.log_end_offset,
            l.to_uppercase(),
            aux.leader_local_log_start_offset,
            r.follower_log_end_offset_after,
            aux.log_start_offset
        ),
        None => format!(
            "{who} restarts as a follower of {} under {}: its log is cut at {} (LEO {} -> {}).",
            l.to_uppercase(),
            r.mode.name(),
            r.cut_offset,
            r.follower_view.log_end_offset,
            r.follower_log_end_offset_after
        ),
    }
}

/// Every round's code panel: the follower's fetch loop with the HW the leader
/// piggybacks, and the leader's HW update; a round that ran the same lines with
/// the same values as the one before is said in one line, not drawn again.
fn fetch_rounds_html(r: &FetchReport) -> String {
    let many = r.rounds.len() > 1;
    let mut before: Option<crate::replication::explain::Explanation> = None;
    let mut panel = String::new();
    for (i, round) in r.rounds.iter().enumerate() {
        let e = round.explanation();
        let head = if many { format!("<h3>round {}</h3>", i + 1) } else { String::new() };
        if before.as_ref() == Some(&e) {
            panel.push_str(&format!(
                "<div class=\"round same\" data-round=\"{}\">{head}<p class=\"same\">the same lines and \
                 values as round {i}</p></div>",
                i + 1
            ));
        } else {
            panel.push_str(&format!(
                "<div class=\"round\" data-round=\"{}\">{head}{}</div>",
                i + 1,
                explain::write_html(&e)
            ));
        }
        before = Some(e);
    }
    panel
}

/// What a crash did, in a sentence.
fn crashed_note(r: &CrashReport) -> String {
    let who = short_name(Path::new(&r.dir)).to_uppercase();
    format!(
        "{who} crashes: its volatile state is gone; what it wrote stays on disk up to LEO {}.",
        r.log_end_offset_before
    )
}

/// What `alter-isr` did, in a sentence.
fn isr_altered_note(r: &AlterIsrReport) -> String {
    let who = short_name(Path::new(&r.replica)).to_uppercase();
    format!(
        "{who} changes its ISR at epoch {} (no new epoch): its HW is now the lowest LEO of the new \
         ISR, {}.",
        r.leader_epoch, r.high_watermark
    )
}

/// What `tier copy` did, in a sentence.
fn copied_note(r: &CopyReport) -> String {
    format!(
        "Broker {}'s copy task uploads {} closed segment(s) below the LSO {} to remote storage.",
        r.broker_id,
        r.copied.len(),
        r.plan.last_stable_offset
    )
}

/// What `tier retain` did, in a sentence.
fn retained_note(n: &str, r: &RetainReport) -> String {
    format!(
        "{}'s local retention deletes local segments below the highest remote offset {}: its local log \
         starts at {}, its log start stays {}.",
        n.to_uppercase(),
        r.highest_remote_offset,
        r.local_log_start_after,
        r.log_start_offset
    )
}

/// What `klog remote` does, in a sentence.
const REMOTE_NOTE: &str =
    "klog remote reads the remote metadata and files, and forecasts what each broker serves if it leads.";

/// What an election did, in a sentence.
fn elected_note(r: &ElectReport) -> String {
    let who = short_name(Path::new(&r.replica)).to_uppercase();
    format!(
        "{who} becomes the leader at epoch {}{}; its HW is the lowest LEO of its ISR, {}.",
        r.leader_epoch,
        match r.epoch_entry {
            Some((e, o)) => format!(
                " and writes the epoch-cache entry {} {}",
                super::epoch_cache::entry(e, o),
                super::epoch_cache::KEY
            ),
            None => ", its epoch-cache entry waiting for its first append".to_string(),
        },
        r.high_watermark
    )
}

/// What an append did, in a sentence.
fn appended_note(n: &str, r: &AppendReport) -> String {
    let first = r.batches.first().map_or(r.log_end_offset, |b| b.0);
    format!(
        "{} appends {} record(s) at offset {first}, stamped with epoch {}: not committed until the ISR \
         has them (HW {} -> {}).",
        n.to_uppercase(),
        r.records,
        r.leader_epoch,
        r.high_watermark_before,
        r.high_watermark
    )
}

/// What `klog txn` found, in a sentence: the LSO against the HW.
fn txn_note(name: &str, r: &TxnReport) -> String {
    let (lso, hw) = (r.last_stable_offset(), r.high_watermark);
    if lso < hw {
        format!(
            "klog txn: {}'s LSO is {lso} and its HW {hw}: read_committed consumers cannot read {} \
             offset(s) below the HW.",
            name.to_uppercase(),
            hw - lso
        )
    } else {
        format!("klog txn: {}'s LSO is its HW, {hw}: read_committed consumers read up to it.", name.to_uppercase())
    }
}

/// One frame. Above the question only what is known before the step runs: the heading, the
/// scenario's story and narration, the command, and (beside the questions) the picture before
/// it. Everything the step's outcome generated — the sentence of what it did, the alerts, the
/// picture after it, the code that ran, its output and the narration after it — is one block,
/// veiled while a question on the frame is unanswered.
fn frame_html(n: usize, f: &Frame) -> String {
    let said = |lines: &[String]| -> String {
        lines.iter().map(|s| format!("<p class=\"say\"># {}</p>", escape(s))).collect()
    };
    let story = if f.story.is_empty() { String::new() } else { format!("<p class=\"story\">{}</p>", escape(&f.story)) };
    let note = if f.note.is_empty() { String::new() } else { format!("<p class=\"say note\">{}</p>", escape(&f.note)) };
    let alerts: String = f.alerts.iter().map(|a| format!("<p class=\"alert\">⚠ {}</p>", escape(a))).collect();
    let quiz: String = f.quizzes.iter().map(|(q, given)| quiz_html(q, given.as_ref())).collect();
    let ask = if quiz.is_empty() {
        String::new()
    } else {
        let before = if f.before.is_empty() {
            String::new()
        } else {
            format!("<figure class=\"pic before\"><figcaption>before this step</figcaption>{}</figure>", f.before)
        };
        format!("<div class=\"asking\"><div class=\"quizzes\">{quiz}</div>{before}</div>")
    };
    // A step with questions not answered in the terminal keeps its outcome veiled until they
    // are revealed.
    let veiled = f.quizzes.iter().any(|(_, given)| given.is_none());
    let out = if f.output.trim().is_empty() {
        String::new()
    } else {
        format!("<pre class=\"out\">{}</pre>", escape(f.output.trim_end()))
    };
    let after = if f.picture.is_empty() || f.quizzes.is_empty() {
        String::new()
    } else {
        "<p class=\"caption\">after this step</p>".to_string()
    };
    format!(
        "<section class=\"frame\" id=\"step-{n}\" data-step=\"{n}\" data-mode=\"{mode}\"><h2>{heading}</h2>{story}{say}\
         <pre class=\"cmd\">{cmd}</pre>{ask}<div class=\"outcome{veil}\">{note}{alerts}{why}{after}<div class=\"row\">\
         <div class=\"pic\">{pic}</div>{explain}</div>{eras}{out}{then}</div></section>\n",
        why = f.why,
        eras = f.eras,
        mode = escape(&f.mode),
        heading = escape(&f.heading),
        say = said(&f.say),
        cmd = escape(&f.command),
        veil = if veiled { " veiled" } else { "" },
        pic = f.picture,
        explain = f.explain,
        then = said(&f.after),
    )
}

/// One question in the page: an input, a reveal button, the verdict and why; the learner's
/// terminal answer when `--predict` recorded one.
fn quiz_html(q: &Prediction, given: Option<&Answer>) -> String {
    let kind = match q.kind {
        AnswerKind::Offset => "number",
        AnswerKind::YesNo => "yesno",
    };
    let hint = match q.kind {
        AnswerKind::Offset => "a number",
        AnswerKind::YesNo => "yes or no",
    };
    let recorded = match given {
        None => String::new(),
        Some((Some(a), right)) => format!(
            "<p class=\"given\" data-answer=\"{}\" data-right=\"{right}\">your answer in the terminal: <b>{}</b> — {}</p>",
            escape(a),
            escape(a),
            if *right { "right" } else { "wrong" }
        ),
        Some((None, _)) => {
            "<p class=\"given\" data-answer=\"\" data-right=\"false\">not answered in the terminal</p>".to_string()
        }
    };
    let revealed = given.is_some();
    format!(
        "<div class=\"quiz\" data-kind=\"{kind}\" data-truth=\"{truth}\"{done}><p class=\"q\">predict: {question}</p>{recorded}\
         <div class=\"ask\"><input class=\"answer\" aria-label=\"your answer ({hint})\" placeholder=\"{hint}\" \
         autocomplete=\"off\"> <button class=\"reveal\">answer</button> <button class=\"skip\">skip</button></div>\
         <p class=\"noted\" hidden></p><p class=\"verdict\"{hidden}>{verdict}</p><p class=\"why\"{hidden}>why: {why}</p></div>",
        truth = escape(&q.truth),
        done = if revealed { " data-revealed=\"recorded\"" } else { "" },
        question = escape(&q.question),
        hidden = if revealed { "" } else { " hidden" },
        verdict = if revealed { format!("the truth: <b>{}</b>", escape(&q.truth)) } else { String::new() },
        why = escape(&q.reason),
    )
}

/// The final logs of every era side by side (the last frame): each column names its run's
/// last frame, whose picture the page's script copies into it.
fn finals_html(frames: &[Frame], finals: &[(String, String)]) -> String {
    if finals.len() < 2 {
        return String::new();
    }
    let columns: String = finals
        .iter()
        .filter_map(|(m, _)| frames.iter().rposition(|f| &f.mode == m).map(|i| (m, i + 1)))
        .map(|(m, n)| {
            format!(
                "<div class=\"era\" data-era=\"{m}\" data-clone=\"step-{n}\" data-parts=\".row .pic\">\
                 <h3>{m}: the final logs</h3></div>",
                m = escape(m)
            )
        })
        .collect();
    format!(
        "<section class=\"eras finals\" data-eras=\"{}\"><h3>the final logs of every era</h3><div \
         class=\"era-row\">{columns}</div></section>",
        finals.len()
    )
}

fn contrast_html(sc: &Scenario, outcomes: &[ModeOutcome]) -> String {
    let mut s = format!(
        "<p>{}</p><table class=\"contrast\"><tr><th>mode</th><th>a's log</th><th>b's log</th><th>acked and lost</th>\
         <th>diverged</th></tr>",
        escape(sc.title)
    );
    for o in outcomes {
        let log_of =
            |name: &str| o.finals.iter().find(|s| s.name == name).map_or("-".to_string(), |s| entries_text(&s.entries));
        let lost = if o.acked_lost.is_empty() {
            "<td class=\"good\">none</td>".to_string()
        } else {
            format!(
                "<td class=\"bad\">{}</td>",
                escape(
                    &o.acked_lost
                        .iter()
                        .map(|e| format!("{} (offset {})", e.value, e.offset))
                        .collect::<Vec<_>>()
                        .join(", ")
                )
            )
        };
        let diverged = match o.first_divergent_offset {
            Some(off) => format!("<td class=\"bad\">at offset {off}</td>"),
            None => "<td class=\"good\">no, logs agree</td>".into(),
        };
        let mode = o.mode.map_or("-".to_string(), |m| format!("{} ({})", m.name(), m.kafka_versions()));
        s.push_str(&format!(
            "<tr><td>{}</td><td><code>{}</code></td><td><code>{}</code></td>{lost}{diverged}</tr>",
            escape(&mode),
            escape(&log_of("a")),
            escape(&log_of("b"))
        ));
    }
    s.push_str("</table>");
    s
}

const STYLE: &str = "body{font-family:sans-serif;margin:0;color:#111;background:#fff;overflow-wrap:anywhere}\
header{position:sticky;top:0;z-index:1;background:#f4f4f4;border-bottom:1px solid #ccc;padding:6px 14px}\
h1{font-size:18px;margin:4px 0}h2{font-size:15px;margin:6px 0}h3{font-size:12px;margin:6px 0 0}\
.controls{display:flex;flex-wrap:wrap;align-items:center;gap:8px}#slider{flex:1 1 120px;min-width:0}\
.chapters{font-size:12px;margin-top:4px;display:flex;flex-wrap:wrap;gap:4px 10px}\
.chapters button{font-size:12px;padding:1px 6px;border:1px solid #99b;background:#fff;color:#224}\
.chapters button.here{font-weight:bold;border-color:#224;background:#dde}\
button{font-size:16px;padding:2px 12px}main{padding:8px 14px}\
.frame{display:none}.frame.on{display:block}\
.say{color:#7a5200;margin:4px 0}.story{margin:4px 0;max-width:80ch}\
.pic{overflow-x:auto}.pic svg{display:block;max-width:none}\
.asking{display:flex;flex-wrap:wrap;gap:8px 16px;align-items:flex-start}.quizzes{flex:1 1 280px;min-width:0}\
figure.before{margin:8px 0;flex:0 1 auto;min-width:0;max-width:100%}\
figcaption,.caption{font-size:12px;color:#444;font-style:italic;margin:2px 0}.cmd{font-weight:bold;background:#eef;padding:4px 8px;margin:6px 0}\
pre{white-space:pre-wrap;overflow-wrap:anywhere}\
.row{display:flex;flex-wrap:wrap;gap:16px;align-items:flex-start}.pic{flex:0 1 auto;min-width:0;max-width:100%}\
.explain{flex:1 1 300px;min-width:0}\
.out{font-size:12px;background:#fafafa;border:1px solid #ddd;padding:6px}\
.explain pre{font-size:12px;margin:4px 0;padding:6px;border:1px solid #ccc;background:#fffbe8}\
.explain b{background:#ffe08a}.same{font-size:12px;color:#444;font-style:italic;margin:2px 0}.explain .src,.explain .note{font-size:12px;color:#444;max-width:60ch}\
.quiz{border:2px solid #c90;background:#fff8e6;padding:6px 10px;margin:8px 0;max-width:80ch}\
.quiz .q{font-weight:bold;margin:2px 0}.quiz input{width:8em;font-size:15px}.quiz .hint{color:#a40}\
.veiled{display:none}\
table.contrast{border-collapse:collapse;font-size:13px;max-width:100%}\
.contrast td,.contrast th{border:1px solid #999;padding:4px 8px;text-align:left;overflow-wrap:anywhere}\
.contrast code{white-space:normal}\
.alert{color:#b00;font-weight:bold;border-left:4px solid #b00;padding-left:6px;margin:4px 0}\
.good{color:#006b3c}.bad{color:#b00;font-weight:bold}\
figure.why{margin:6px 0;overflow-x:auto}figure.why svg{display:block;max-width:none}\
.eras{border-top:2px solid #99b;margin-top:8px}.era-row{display:flex;flex-wrap:wrap;gap:12px;align-items:flex-start}\
.era{flex:1 1 300px;min-width:0;border-top:1px solid #ccd;padding:4px 0;overflow-x:auto}.era svg{display:block;max-width:none}\
.quiz.later{display:none}.quiz .noted{color:#444;font-style:italic;margin:2px 0}\
@media (max-width:480px){main{padding:8px 4px}header{padding:6px 4px}}";

const SCRIPT: &str = "(function(){\
document.querySelectorAll('[data-clone]').forEach(function(d){var from=document.getElementById(d.dataset.clone);if(!from)return;\
d.dataset.parts.split(',').forEach(function(sel){var o=from.querySelector('.outcome '+sel);if(o)d.appendChild(o.cloneNode(true));});});\
var f=document.querySelectorAll('.frame'),s=document.getElementById('slider'),\
p=document.getElementById('pos'),n=f.length,cur=0,ch=document.querySelectorAll('.chapter');\
function show(i,push){i=Math.max(1,Math.min(n,i|0||1));cur=i;\
for(var k=0;k<n;k++)f[k].classList.toggle('on',k===i-1);s.value=i;p.textContent=i+' / '+n;\
var h=null;for(var c=0;c<ch.length;c++){ch[c].classList.remove('here');if(+ch[c].dataset.step<=i)h=ch[c];}\
if(h)h.classList.add('here');\
if(push&&history.replaceState)history.replaceState(null,'','#step='+i);}\
function fromHash(){var m=/step=(\\d+)/.exec(location.hash);show(m?+m[1]:1,false);}\
document.getElementById('prev').onclick=function(){show(cur-1,true)};\
document.getElementById('next').onclick=function(){show(cur+1,true)};\
s.oninput=function(){show(+s.value,true)};\
document.addEventListener('keydown',function(e){var t=e.target,k=e.key;if(e.altKey||e.ctrlKey||e.metaKey)return;\
if(t===s&&/^(Arrow|Home$|End$|Page)/.test(k))return;if(t!==s&&t.tagName==='INPUT')return;\
if(t.tagName==='BUTTON'&&(k===' '||k==='Enter'))return;\
if(k==='ArrowLeft'||(k===' '&&e.shiftKey))show(cur-1,true);else if(k==='ArrowRight'||k===' ')show(cur+1,true);\
else if(k==='Home')show(1,true);else if(k==='End')show(n,true);else return;e.preventDefault();});\
window.addEventListener('hashchange',fromHash);\
ch.forEach(function(c){c.onclick=function(){show(+c.dataset.step,true)};});\
var sc=document.getElementById('score'),right=0,done=0,tot=sc?+sc.dataset.total:0;\
function tally(){if(sc)sc.textContent='predicted '+right+' of '+tot+(done<tot?' ('+(tot-done)+' not answered)':'');}\
function judge(q,a){a=a.trim().toLowerCase();if(q.dataset.kind==='number')\
return /^-?\\d+$/.test(a)?String(parseInt(a,10))===q.dataset.truth:null;\
if(/^(y|yes)$/.test(a))return q.dataset.truth==='yes';if(/^(n|no)$/.test(a))return q.dataset.truth==='no';return null;}\
function unveil(fr){if(fr.querySelector('.quiz:not([data-revealed])'))return;\
fr.querySelectorAll('.veiled').forEach(function(v){v.classList.remove('veiled')});}\
function verdict(q){var a=q.dataset.revealed,v=q.querySelector('.verdict');v.hidden=false;\
v.textContent=(a==='right'?'right: ':a==='wrong'?'wrong: ':'')+'the truth is '+q.dataset.truth;q.querySelector('.why').hidden=false;\
if(a==='right')right++;done++;}\
function reveal(q,ok,answered){q.dataset.revealed=answered?(ok?'right':'wrong'):'shown';q.querySelector('.ask').hidden=true;\
var n=q.querySelector('.noted');n.hidden=false;n.textContent=answered?'your answer: '+q.querySelector('input').value.trim():'not answered';\
var fr=q.closest('.frame'),next=fr.querySelector('.quiz:not([data-revealed])');\
if(next){next.classList.remove('later');var i=next.querySelector('input');if(i)i.focus();return;}\
fr.querySelectorAll('.quiz').forEach(function(x){if(x.dataset.revealed!=='recorded')verdict(x);});tally();unveil(fr);}\
document.querySelectorAll('.frame').forEach(function(fr){var first=true;fr.querySelectorAll('.quiz').forEach(function(q){\
if(q.dataset.revealed)return;if(!first)q.classList.add('later');first=false;});});\
document.querySelectorAll('.quiz').forEach(function(q){if(q.dataset.revealed){var g=q.querySelector('.given');\
done++;if(g&&g.dataset.right==='true')right++;return;}\
var i=q.querySelector('input'),h=document.createElement('span');h.className='hint';q.querySelector('.ask').appendChild(h);\
function go(){var ok=judge(q,i.value);if(ok===null){h.textContent=' '+(q.dataset.kind==='number'?'answer with a number':'answer yes or no')+', please';return;}\
reveal(q,ok,true);}\
q.querySelector('.reveal').onclick=go;i.onkeydown=function(e){if(e.key==='Enter')go();};\
q.querySelector('.skip').onclick=function(){reveal(q,false,false);};});\
tally();fromHash();})();";
