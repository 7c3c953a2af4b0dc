//! Rendering of `klog demo`: narration, the command of each step, its report (the same
//! renderers the commands use, with the lab's path shown as `$LAB`), the replicas' picture
//! (or, with `--plain`, one `offset:(epoch,value)` line each), and the closing contrast of the
//! truncation modes. With `--predict` it asks each question the demo emits, reads one line of
//! answer (end of input reveals the rest unanswered, never waits), shows each truth and why once
//! the step's last question is answered, and ends with the score. With several eras, each
//! recovery of the last one is followed by that recovery in every era.

use super::palette::Tone;
use super::picture::{self, Picture};
use super::table::{Col, Grid};
use super::{report, text, Settings};
use crate::answer as klog_answer;
use crate::commands::demo::{DemoEvent, Entry, ModeOutcome, Prediction, ReplicaState, Scenario};
use crate::commands::draw::{short_name, DrawReport, RecoveryDrawing};
use crate::commands::fetch::FetchReport;
use crate::commands::recover::FollowerRecoverReport;
use crate::error::{IoContext, Result};
use crate::replication::truncation::TruncationMode;
use comfy_table::Cell;
use std::io::{BufRead, Write};
use std::path::{Path, PathBuf};

pub struct DemoPrinter<'o> {
    out: &'o mut dyn Write,
    settings: Settings,
    lab: Option<PathBuf>,
    root: PathBuf,
    plain: bool,
    /// `--predict`: where answers come from, and whether to echo them (not a terminal).
    answers: Option<(Box<dyn BufRead + 'o>, bool)>,
    asked: usize,
    right: usize,
    /// Questions left without an answer (the input ended).
    unanswered: usize,
    /// `--step`: where Enter is read from, until the input ends.
    pauses: Option<Box<dyn BufRead + 'o>>,
    /// A step was shown (the first one does not wait).
    started: bool,
    /// `--explain`: the code panel after each step.
    explain: bool,
    input_ended: bool,
    /// The legend items the pictures so far have explained (each is explained once).
    legend_shown: Vec<String>,
    /// The answer to the last question asked (`None`: unanswered) and whether it was right.
    last_answer: Option<(Option<String>, bool)>,
    /// The step was a `create`: its (empty) picture is left to the capture.
    created: bool,
    /// The acknowledged-record alerts of the run so far (each is printed once, where it happens).
    alerted: Vec<String>,
    /// The last command shown (a fetch of `--rounds 1` is a "Fetch N" of the narration).
    last_command: String,
    /// The opening's last line: how to step or keep the dirs (the front knows its flags).
    opening_hint: Option<String>,
    /// The questions of the current step asked so far, with their answers: revealed together
    /// once the step's last question is answered, since one question's truth or why can give
    /// away the next one's.
    unrevealed: Vec<(Prediction, Option<String>)>,
    /// The eras played, the current one, and each era's recoveries so far (its number in the
    /// run, its lines): the last era's recoveries are followed by the same recovery in every
    /// era, one after another.
    eras: Vec<crate::replication::truncation::TruncationMode>,
    era: Option<crate::replication::truncation::TruncationMode>,
    recovered: usize,
    recoveries: Vec<(crate::replication::truncation::TruncationMode, usize, Vec<String>)>,
    /// A tiered scene's tiers after the step, drawn on its next picture.
    tiers: Option<crate::commands::demo::tiers::TierView>,
}

/// `offset:(epoch,value)` in the spec's notation, with runs of one epoch folded:
/// `0-10:(1,a0..a10)`.
pub fn entries_text(entries: &[Entry]) -> String {
    if entries.is_empty() {
        return "(empty)".into();
    }
    let mut parts = Vec::new();
    let mut i = 0;
    while i < entries.len() {
        let mut j = i;
        while j + 1 < entries.len()
            && entries[j + 1].leader_epoch == entries[i].leader_epoch
            && entries[j + 1].offset == entries[j].offset + 1
        {
            j += 1;
        }
        let (a, b) = (&entries[i], &entries[j]);
        parts.push(match j - i {
            0 => format!("{}:({},{})", a.offset, a.leader_epoch, a.value),
            1 => format!("{}:({},{}) {}:({},{})", a.offset, a.leader_epoch, a.value, b.offset, b.leader_epoch, b.value),
            _ => format!("{}-{}:({},{}..{})", a.offset, b.offset, a.leader_epoch, a.value, b.value),
        });
        i = j + 1;
    }
    parts.join(" ")
}

/// The contrast in one sentence: which modes lost acknowledged writes (and which), which kept
/// every one, and where logs were left diverged.
pub fn contrast_verdict(outcomes: &[ModeOutcome]) -> String {
    let name = |o: &ModeOutcome| o.mode.map_or("-".to_string(), |m| m.name().to_string());
    let mut parts = Vec::new();
    let mut kept: Vec<String> = Vec::new();
    // Modes that lost the same records are named together.
    let mut lost_by: Vec<(Vec<String>, Vec<String>)> = Vec::new();
    for o in outcomes {
        if o.acked_lost.is_empty() {
            kept.push(name(o));
            continue;
        }
        let lost: Vec<String> = o.acked_lost.iter().map(|e| e.value.clone()).collect();
        match lost_by.iter_mut().find(|(l, _)| *l == lost) {
            Some((_, modes)) => modes.push(name(o)),
            None => lost_by.push((lost, vec![name(o)])),
        }
    }
    for (lost, modes) in &lost_by {
        parts.push(format!("{} lost the acknowledged {}", and_list(modes), and_list(lost)));
    }
    if !kept.is_empty() {
        parts.push(format!("{} lost no acknowledged write", and_list(&kept)));
    }
    let diverged: Vec<String> = outcomes.iter().filter(|o| o.first_divergent_offset.is_some()).map(name).collect();
    if !diverged.is_empty() {
        parts.push(format!("{} left the logs diverged", and_list(&diverged)));
    }
    format!("In short: {}.", parts.join("; "))
}

/// `a`, `a and b`, `a, b and c`.
fn and_list(items: &[String]) -> String {
    match items {
        [] => String::new(),
        [one] => one.clone(),
        [init @ .., last] => format!("{} and {last}", init.join(", ")),
    }
}

/// The admin abort in words: the line an operator runs, and the marker the broker writes for
/// it (`TransactionsCommand`'s `buildAbortSpec`, then `WriteTxnMarkers`).
pub fn admin_abort_text(a: &crate::commands::demo::stuck_lso::AbortSpec) -> String {
    let coordinator = if a.described_coordinator_epoch < 0 {
        format!(
            "coordinator epoch {} (no marker was ever written for it), so the tool sends 0",
            a.described_coordinator_epoch
        )
    } else {
        format!("coordinator epoch {}", a.coordinator_epoch)
    };
    format!(
        "The operator runs: {} — DescribeProducers finds producer {} at epoch {} with the transaction starting at \
         {}, {coordinator}; the broker writes the ABORT marker with them, as the coordinator would. The admin \
         abort is for a transaction the coordinator no longer knows (kafka-transactions.sh find-hanging lists it): \
         one it knows ends by its own timeout. In this lab klog writes it:",
        super::transactions::abort_command(&a.topic, a.partition, a.start_offset),
        a.producer_id,
        a.producer_epoch,
        a.start_offset
    )
}

/// How often a question is asked when the answer is blank or not of its kind.
const MAX_ATTEMPTS: usize = 3;

impl<'o> DemoPrinter<'o> {
    pub fn new(out: &'o mut dyn Write, settings: Settings, root: PathBuf) -> Self {
        DemoPrinter {
            out,
            settings,
            lab: None,
            root,
            plain: false,
            answers: None,
            asked: 0,
            right: 0,
            unanswered: 0,
            pauses: None,
            started: false,
            explain: false,
            input_ended: false,
            legend_shown: Vec::new(),
            last_answer: None,
            created: false,
            alerted: Vec::new(),
            last_command: String::new(),
            opening_hint: None,
            unrevealed: Vec::new(),
            eras: Vec::new(),
            era: None,
            recovered: 0,
            recoveries: Vec::new(),
            tiers: None,
        }
    }

    /// Keep a recovery's summary (what the cut came from, the LEO before and after, the code
    /// lines that ran); in the last era of several, then show that recovery in every era.
    fn compare_eras(&mut self, r: &crate::commands::recover::FollowerRecoverReport) -> Result<()> {
        let Some(era) = self.era else { return Ok(()) };
        let (l, f) = (short_name(Path::new(&r.leader_dir)), short_name(Path::new(&r.follower_dir)));
        let mut lines = vec![format!(
            "{}: {} (LEO {} -> {})",
            era.name(),
            super::demo_marks::lookup_text(r, &l, &f),
            r.follower_view.log_end_offset,
            r.follower_log_end_offset_after
        )];
        // Each line that ran, with its values after `◀`; a line too wide for the terminal puts
        // its values on a line of their own, so that they never wrap.
        let width = self.settings.indented(8).width.unwrap_or(usize::MAX);
        for l in r.explanation().lines.iter().filter(|l| l.ran) {
            let code = format!("  {}{}", "  ".repeat(l.depth), l.code);
            let values = l.values.join("; ");
            if values.is_empty() {
                lines.push(code);
            } else if code.chars().count() + 3 + values.chars().count() <= width {
                lines.push(format!("{code} ◀ {values}"));
            } else {
                lines.push(code);
                lines.push(format!("      ◀ {values}"));
            }
        }
        let k = self.recovered;
        self.recovered += 1;
        self.recoveries.push((era, k, lines));
        if self.eras.len() < 2 || self.eras.last() != Some(&era) {
            return Ok(());
        }
        let p = self.settings.palette();
        let all: Vec<String> = self
            .recoveries
            .iter()
            .filter(|(_, n, _)| *n == k)
            .flat_map(|(_, _, lines)| lines.iter().cloned())
            .collect();
        self.indented(|o| {
            writeln!(o, "{}", p.strong("this recovery in every era (the code that ran, marked ◀):"))
                .at("<stdout>", "write")?;
            for line in &all {
                writeln!(o, "  {line}").at("<stdout>", "write")?;
            }
            Ok(())
        })
    }

    /// The line that ends the opening overview: how to step, keep the dirs, or be asked.
    pub fn opening_hint(mut self, hint: String) -> Self {
        self.opening_hint = Some(hint);
        self
    }

    /// The answer given to the question just asked (for `--predict --capture`, which records
    /// it in the page): the line typed (`None` when unanswered) and whether it was right.
    pub fn take_answer(&mut self) -> Option<(Option<String>, bool)> {
        self.last_answer.take()
    }

    /// Show the lab at `lab` as `$LAB` (the capture renders each step on its own).
    pub fn with_lab(mut self, lab: Option<PathBuf>) -> Self {
        self.lab = lab;
        self
    }

    /// One `offset:(epoch,value)` line per replica instead of the picture.
    pub fn plain(mut self, plain: bool) -> Self {
        self.plain = plain;
        self
    }

    /// Read `--predict` answers from `input`, echoing them when it is not a terminal.
    pub fn answers_from(mut self, input: Box<dyn BufRead + 'o>, echo: bool) -> Self {
        self.answers = Some((input, echo));
        self
    }

    /// `--explain`: after each step's report, the procedure that ran with its values.
    pub fn explain(mut self, explain: bool) -> Self {
        self.explain = explain;
        self
    }

    /// The code panel of a step, with `--explain`.
    fn code(&mut self, e: &crate::replication::explain::Explanation) -> Result<()> {
        if !self.explain {
            return Ok(());
        }
        let s = self.settings.indented(4);
        self.indented(|o| super::explain::write_text(o, e, &s))
    }

    /// `--step`: before each step after the first, wait for a line on `input` (Enter).
    pub fn pauses_from(mut self, input: Box<dyn BufRead + 'o>) -> Self {
        self.pauses = Some(input);
        self
    }

    /// Wait for Enter before the next step; at the end of input, stop pausing.
    fn pause(&mut self) -> Result<()> {
        let Some(input) = self.pauses.as_mut() else { return Ok(()) };
        if !self.started {
            self.started = true;
            return Ok(());
        }
        let p = self.settings.palette();
        write!(self.out, "\n{}", p.dim("[Enter: next step]")).at("<stdout>", "write")?;
        self.out.flush().at("<stdout>", "write")?;
        if !matches!(klog_answer::read_answer(&mut **input), Ok(Some(_))) {
            self.pauses = None;
        }
        Ok(())
    }

    /// The score, once every question was asked.
    pub fn finish(&mut self) -> Result<()> {
        self.reveal()?;
        if self.answers.is_some() && self.asked > 0 {
            let p = self.settings.palette();
            let mut score = format!("you predicted {} of {}", self.right, self.asked);
            if self.unanswered > 0 {
                score.push_str(&format!(" ({} not answered)", self.unanswered));
            }
            let shown = if self.right == self.asked { p.good(&score) } else { p.strong(&score) };
            writeln!(self.out, "\n{shown}").at("<stdout>", "write")?;
        }
        Ok(())
    }

    fn question(&mut self, q: &Prediction) -> Result<()> {
        let p = self.settings.palette();
        self.asked += 1;
        // A terminal gets a prompt to type after; a file or pipe gets its answer echoed.
        let echo = self.answers.as_ref().is_some_and(|(_, echo)| *echo);
        let which = format!("{}. ", self.unrevealed.len() + 1);
        // Wrapped to the width, with room left on its last line for a short answer.
        let width = self.settings.width.map_or(usize::MAX, |w| w.saturating_sub(6));
        let wrapped = super::fit::wrap_line(&format!("predict: {which}{}", q.question), width).join("\n");
        let shown = wrapped.replacen("predict:", &p.warn("predict:"), 1);
        write!(self.out, "\n{shown}{}", if echo { "" } else { " " }).at("<stdout>", "write")?;
        self.out.flush().at("<stdout>", "write")?;
        // A blank line or an answer of the wrong kind is asked again (a few times).
        let mut answered = None;
        for attempt in 1..=MAX_ATTEMPTS {
            let line = match (&mut self.answers, self.input_ended) {
                (Some((input, echo)), false) => match klog_answer::read_answer(&mut **input) {
                    Ok(None) | Err(_) => None,
                    Ok(Some((line, cut))) => {
                        if *echo {
                            let shown: String = line.trim_end().chars().filter(|c| !c.is_control()).collect();
                            write!(self.out, " {shown}{}", if cut { "…" } else { "" }).at("<stdout>", "write")?;
                        }
                        Some(line.trim().to_string())
                    }
                },
                _ => None,
            };
            writeln!(self.out).at("<stdout>", "write")?;
            match line {
                Some(a) if !q.understands(&a) && attempt < MAX_ATTEMPTS => {
                    write!(self.out, "  {}, please:{}", p.dim(q.expects()), if echo { "" } else { " " })
                        .at("<stdout>", "write")?;
                    self.out.flush().at("<stdout>", "write")?;
                }
                other => {
                    answered = other;
                    break;
                }
            }
        }
        self.last_answer = Some((answered.clone(), answered.as_deref().is_some_and(|a| q.is_right(a))));
        if answered.is_none() {
            self.input_ended = true;
        }
        self.unrevealed.push((q.clone(), answered));
        Ok(())
    }

    /// The truths and whys of the step's questions, each with its verdict, once all of them
    /// are answered (a question is never told before it is asked).
    fn reveal(&mut self) -> Result<()> {
        let p = self.settings.palette();
        for (i, (q, answered)) in std::mem::take(&mut self.unrevealed).into_iter().enumerate() {
            let which = format!("{}. ", i + 1);
            match answered {
                None => {
                    self.unanswered += 1;
                    writeln!(self.out, "  {which}{} the truth: {}", p.dim("(no answer)"), p.strong(&q.truth))
                        .at("<stdout>", "write")?;
                }
                Some(a) if q.is_right(&a) => {
                    self.right += 1;
                    writeln!(self.out, "  {which}{} {}", p.good("right:"), p.strong(&q.truth))
                        .at("<stdout>", "write")?;
                }
                Some(_) => {
                    writeln!(self.out, "  {which}{} the truth: {}", p.bad("wrong:"), p.strong(&q.truth))
                        .at("<stdout>", "write")?;
                }
            }
            writeln!(self.out, "     why: {}", q.reason).at("<stdout>", "write")?;
        }
        Ok(())
    }

    /// Render with a command renderer into a buffer, show the lab as `$LAB`, indent.
    fn indented(&mut self, render: impl FnOnce(&mut dyn Write) -> Result<()>) -> Result<()> {
        let mut buf = Vec::new();
        render(&mut buf)?;
        let mut text = String::from_utf8_lossy(&buf).into_owned();
        if let Some(lab) = &self.lab {
            text = text.replace(&lab.display().to_string(), "$LAB");
        }
        let width = self.settings.indented(4).width.unwrap_or(usize::MAX);
        for line in text.lines().flat_map(|l| super::fit::wrap_line(l, width)) {
            writeln!(self.out, "    {line}").at("<stdout>", "write")?;
        }
        Ok(())
    }

    /// The picture's acknowledged-record alerts not printed before in this run.
    fn alerts(&mut self, pic: &Picture) -> Result<()> {
        let p = self.settings.palette();
        for a in pic.acked_alerts() {
            if self.alerted.contains(&a) {
                continue;
            }
            let width = self.settings.indented(6).width.unwrap_or(super::fit::FALLBACK_WIDTH - 6);
            for (i, line) in super::fit::wrap_line(&format!("! {a}"), width).iter().enumerate() {
                let line = if i == 0 { line.clone() } else { format!("  {line}") };
                writeln!(self.out, "    {}", p.bad(&line)).at("<stdout>", "write")?;
            }
            self.alerted.push(a);
        }
        Ok(())
    }

    fn state(&mut self, states: &[ReplicaState]) -> Result<()> {
        let p = self.settings.palette();
        for s in states {
            // After a `klog txn` step (stuck-lso), its LSO too.
            let lso =
                s.txn.as_ref().and_then(|v| v.last_stable_offset).map_or(String::new(), |o| format!("LSO {o:<3} "));
            writeln!(
                self.out,
                "    {} {:<8} LEO {:<3} HW {:<3} {lso}| {}",
                p.strong(s.name),
                s.role,
                s.log_end_offset,
                s.high_watermark,
                entries_text(&s.entries)
            )
            .at("<stdout>", "write")?;
        }
        Ok(())
    }

    /// One screen before the first step: what will run and how to go through it. It names
    /// the eras, never what they keep or lose (a `--predict` run asks that later).
    fn opening(&mut self, sc: &Scenario, modes: &[crate::replication::truncation::TruncationMode]) -> Result<()> {
        let p = self.settings.palette();
        let commands = sc.command_count();
        let eras: Vec<String> = modes.iter().map(|m| format!("{} ({})", m.name(), m.kafka_versions())).collect();
        let mut lines = vec![p.strong(&format!("klog demo {}: {}", sc.name, sc.title))];
        lines.push(match eras.len() {
            0 => format!("{commands} klog commands on real replica dirs, each shown as you would type it."),
            1 => format!("{commands} klog commands on real replica dirs, the follower restarting as {} does.", eras[0]),
            _ => format!(
                "The same {commands} klog commands, played once per era on real replica dirs: {}; then the \
                 eras side by side.",
                eras.join(", then ")
            ),
        });
        lines.push("After each step: what the command reported, and every replica's log as a picture.".into());
        lines.extend(self.opening_hint.iter().flat_map(|h| h.lines()).map(|h| p.dim(h)));
        for line in lines {
            writeln!(self.out, "{line}").at("<stdout>", "write")?;
        }
        Ok(())
    }

    fn contrast(&mut self, sc: &Scenario, outcomes: &[ModeOutcome]) -> Result<()> {
        let p = self.settings.palette();
        writeln!(self.out, "\n{}", p.strong(&format!("== {}: what each truncation mode did ==", sc.name)))
            .at("<stdout>", "write")?;
        // The logs are the point of the contrast: they wrap rather than being elided.
        let mut t = Grid::new(
            &self.settings,
            &[
                Col::Ident("mode"),
                Col::Flex("a's log"),
                Col::Flex("b's log"),
                Col::Flex("acked and lost"),
                Col::Flex("diverged"),
            ],
        )
        .wrapping();
        for o in outcomes {
            let log_of = |name: &str| {
                o.finals.iter().find(|s| s.name == name).map_or("-".to_string(), |s| entries_text(&s.entries))
            };
            let lost = if o.acked_lost.is_empty() {
                p.cell("none", Tone::Good)
            } else {
                p.cell(
                    o.acked_lost
                        .iter()
                        .map(|e| format!("{} (offset {})", e.value, e.offset))
                        .collect::<Vec<_>>()
                        .join(", "),
                    Tone::Bad,
                )
            };
            let diverged = match o.first_divergent_offset {
                Some(off) => p.cell(format!("at offset {off}"), Tone::Bad),
                None => p.cell("no, logs agree", Tone::Good),
            };
            let mode = o.mode.map_or("-".to_string(), |m| format!("{} ({})", m.name(), m.kafka_versions()));
            t.add(vec![Cell::new(mode), Cell::new(log_of("a")), Cell::new(log_of("b")), lost, diverged]);
        }
        t.write(self.out)?;
        writeln!(self.out, "{}", contrast_verdict(outcomes)).at("<stdout>", "write")
    }

    pub fn event(&mut self, e: DemoEvent<'_>) -> Result<()> {
        // The step's questions are all asked: reveal them before anything the step produced.
        if !matches!(e, DemoEvent::Question(_)) {
            self.reveal()?;
        }
        let p = self.settings.palette();
        // Reports are shown indented: they are laid out to the width that is left (the picture
        // to 76 columns off a terminal too, so a piped demo still reads at 80).
        let s = self.settings.indented(4);
        let fallback = super::fit::FALLBACK_WIDTH - 4;
        let ps = Settings {
            width: Some(s.width.unwrap_or(fallback)),
            table_width: Some(s.table_width.unwrap_or(fallback)),
            ..s
        };
        match e {
            DemoEvent::Opening(sc, modes) => {
                self.eras = modes.to_vec();
                self.opening(sc, modes)
            }
            DemoEvent::Scenario(sc, mode) => self.begin_run(sc, mode),
            DemoEvent::Say(text) => writeln!(self.out, "\n{}", p.warn(&format!("# {text}"))).at("<stdout>", "write"),
            DemoEvent::Command(cmd) => {
                self.pause()?;
                self.last_command.clone_from(&cmd);
                writeln!(self.out, "\n{} {}", p.dim("$"), p.strong(&cmd)).at("<stdout>", "write")
            }
            DemoEvent::Created(_) => {
                self.created = true;
                Ok(())
            }
            DemoEvent::State(..) if std::mem::take(&mut self.created) => Ok(()),
            DemoEvent::Elected(r) => {
                self.indented(|o| text::elected(o, r, &s))?;
                self.code(&r.explanation())
            }
            DemoEvent::Appended(name, r) => {
                self.indented(|o| text::appended(o, name, r, &s))?;
                self.code(&r.explanation())
            }
            DemoEvent::Fetched(name, r) => self.fetched(name, r, &s),
            DemoEvent::Crashed(r) => self.indented(|o| text::crashed(o, r, &s)),
            DemoEvent::Recovered(r, leader_records) => self.recovered(r, leader_records, &s, &ps),
            DemoEvent::State(states, _) if self.plain => self.state(states),
            DemoEvent::State(states, drawn) => self.draw_state(states, drawn, &ps),
            // Questions are asked only with `--predict` (a capture alone asks them in the page).
            DemoEvent::Question(_) if self.answers.is_none() => Ok(()),
            DemoEvent::Question(q) => self.question(q),
            DemoEvent::Contrast(sc, outcomes) => self.contrast(sc, outcomes),
            DemoEvent::Txn(_, r) => {
                self.indented(|o| super::transactions::text(o, r, &s))?;
                self.code(&crate::commands::demo::lso_code::explanation(r))
            }
            DemoEvent::AdminAbort(a) => {
                writeln!(self.out, "\n{}", p.warn(&format!("# {}", admin_abort_text(a)))).at("<stdout>", "write")
            }
            DemoEvent::IsrAltered(r) => self.indented(|o| text::isr_altered(o, r, &s)),
            DemoEvent::Copied(r) => self.indented(|o| super::demo_tiers::copied_text(o, r)),
            DemoEvent::Retained(_, r) => self.indented(|o| super::tier::retain_text(o, r)),
            DemoEvent::Remote(r) => self.indented(|o| super::demo_tiers::remote_text(o, r)),
            DemoEvent::Tiers(view) => {
                self.tiers = Some(view.clone());
                Ok(())
            }
        }
    }

    /// A new run of the scenario (one per mode): its title, story and lab.
    fn begin_run(&mut self, sc: &Scenario, mode: Option<TruncationMode>) -> Result<()> {
        let p = self.settings.palette();
        let lab = self.root.join(mode.map_or("run", |m| m.name()));
        let mode_text = mode.map_or(String::new(), |m| format!(" — mode {} ({})", m.name(), m.kafka_versions()));
        writeln!(self.out, "\n{}", p.strong(&format!("== {}{mode_text} ==", sc.title))).at("<stdout>", "write")?;
        writeln!(self.out, "{}", sc.story).at("<stdout>", "write")?;
        if mode == Some(crate::replication::truncation::TruncationMode::Hw) {
            // Kafka <= 0.10.2 wrote no leader epoch in a batch and kept no epoch cache.
            writeln!(
                self.out,
                "{}",
                p.dim(
                    "hw: the eN epochs and epoch caches below are drawn for comparison; this era \
                     had neither and ignores them"
                )
            )
            .at("<stdout>", "write")?;
        }
        writeln!(self.out, "{}", p.dim(&format!("LAB={}", lab.display()))).at("<stdout>", "write")?;
        self.lab = Some(lab);
        self.alerted.clear();
        self.era = mode;
        self.recovered = 0;
        Ok(())
    }

    /// A fetch's rounds, then each round's code (a round that ran the same lines with the same
    /// values as the one before is said in one line, not drawn again).
    fn fetched(&mut self, name: &str, r: &FetchReport, s: &Settings) -> Result<()> {
        let p = self.settings.palette();
        if r.rounds.len() == 1 && self.last_command.contains(" --rounds 1") {
            // A fetch of one round is the narration's "Fetch N": no "round 1:" under it.
            let mut buf = Vec::new();
            text::fetch_rounds(&mut buf, r, name, s)?;
            let text = String::from_utf8_lossy(&buf).into_owned();
            self.indented(|o| {
                for line in text.lines() {
                    writeln!(o, "{}", line.strip_prefix("round 1: ").unwrap_or(line)).at("<stdout>", "write")?;
                }
                Ok(())
            })?;
        } else {
            self.indented(|o| text::fetch_rounds(o, r, name, s))?;
        }
        let mut before: Option<crate::replication::explain::Explanation> = None;
        for (i, round) in r.rounds.iter().enumerate() {
            let e = round.explanation();
            if self.explain && before.as_ref() == Some(&e) {
                let same = format!("explain: fetch round {}: the same lines and values as round {i}", i + 1);
                self.indented(|o| writeln!(o, "{}", p.dim(&same)).at("<stdout>", "write"))?;
            } else {
                self.code(&e)?;
            }
            before = Some(e);
        }
        Ok(())
    }

    /// A recovery's report and code, the follower before and after the cut, the catch-up, and
    /// the eras compared.
    fn recovered(
        &mut self,
        r: &FollowerRecoverReport,
        leader_records: &RecoveryDrawing,
        s: &Settings,
        ps: &Settings,
    ) -> Result<()> {
        let p = self.settings.palette();
        self.indented(|o| report::follower_text(o, r, s))?;
        self.code(&r.explanation())?;
        if !self.plain {
            let (l, f) = (short_name(Path::new(&r.leader_dir)), short_name(Path::new(&r.follower_dir)));
            let mut pic = Picture::of_recovery(r, &l, &f, leader_records);
            super::tier_picture::restart_fates(&mut pic, r);
            let mut legend = std::mem::take(&mut self.legend_shown);
            self.indented(|o| {
                writeln!(o, "{}", p.dim(&format!("{f} before and after the cut, against the leader {l}:")))
                    .at("<stdout>", "write")?;
                picture::write_text_after(o, &pic, ps, &mut legend)
            })?;
            self.legend_shown = legend;
            self.alerts(&pic)?;
        }
        self.indented(|o| report::catch_up_text(o, r, s))?;
        self.compare_eras(r)
    }

    /// Every replica after a step, as a picture.
    fn draw_state(&mut self, states: &[ReplicaState], drawn: &DrawReport, ps: &Settings) -> Result<()> {
        let mut pic = Picture::of_draw(drawn);
        super::txn_picture::overlay(&mut pic, states);
        if let Some(view) = self.tiers.take() {
            super::tier_picture::overlay(&mut pic, &view);
        }
        let mut legend = std::mem::take(&mut self.legend_shown);
        let written = self.indented(|o| picture::write_text_after(o, &pic, ps, &mut legend));
        self.legend_shown = legend;
        written?;
        self.alerts(&pic)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::replication::truncation::TruncationMode;

    fn outcome(mode: TruncationMode, lost: &[&str], diverged: bool) -> ModeOutcome {
        ModeOutcome {
            mode: Some(mode),
            finals: Vec::new(),
            acked_lost: lost
                .iter()
                .enumerate()
                .map(|(i, v)| Entry { offset: i as i64, leader_epoch: 1, value: v.to_string() })
                .collect(),
            first_divergent_offset: diverged.then_some(0),
        }
    }

    #[test]
    fn the_verdict_names_modes_that_lost_the_same_records_together() {
        let watch = [
            outcome(TruncationMode::Hw, &["m1", "m2"], false),
            outcome(TruncationMode::Kip101, &[], false),
            outcome(TruncationMode::Kip279, &[], false),
        ];
        assert_eq!(
            contrast_verdict(&watch),
            "In short: hw lost the acknowledged m1 and m2; kip101 and kip279 lost no acknowledged write."
        );
        let all_lose = [
            outcome(TruncationMode::Hw, &["m2"], true),
            outcome(TruncationMode::Kip101, &["m2"], false),
            outcome(TruncationMode::Kip279, &["m2"], false),
        ];
        assert_eq!(
            contrast_verdict(&all_lose),
            "In short: hw, kip101 and kip279 lost the acknowledged m2; hw left the logs diverged."
        );
    }
}
