//! Rendering of `klog explore`: the table of runs (mode × bounds: states, transitions,
//! violations, shortest counterexample, seconds, states per second), then each counterexample
//! narrated as `klog demo` narrates (each command, every replica's log after it), the `recover`
//! that shows it, and where its script went; or the same as one JSON document.

use super::json::{line, Shown};
use super::palette::Tone;
use super::table::{self, Col, Grid};
use super::Settings;
use crate::commands::explore::{CounterexampleReport, ExploreReport, ExploreRun, NarratedStep, ReplicaLine};
use crate::error::{IoContext, Result};
use crate::explore::model::Controller;
use crate::replication::classify::RecordClass;
use comfy_table::Cell;
use serde::Serialize;
use std::io::Write;

/// `offset:(epoch,value)` in the spec's notation.
fn records_text(line: &ReplicaLine) -> String {
    if line.records.is_empty() {
        return "(empty)".into();
    }
    line.records.iter().map(|(o, e, v)| format!("{o}:({e},{v})")).collect::<Vec<_>>().join(" ")
}

/// replicas/epochs/records.
fn bounds(run: &ExploreRun) -> String {
    let c = &run.config;
    format!("{}/{}/{}", c.replicas, c.max_epochs, c.max_records)
}

/// The release whose rules ran, then the options that change a rule (on their own line: as
/// a column they would push the table past 80 columns).
fn rules(run: &ExploreRun) -> String {
    let c = &run.config;
    let mut text = format!("{} {}", c.mode().name(), c.rules.describe_release());
    if let Controller::Kraft { elr } = c.controller {
        text.push_str(if elr { " (KRaft, ELR on)" } else { " (KRaft, ELR off)" });
    }
    for (on, name) in
        [(c.unclean, "unclean"), (!c.fencing, "no-fencing"), (c.power_loss, "power-loss"), (c.stale_hw, "stale-hw")]
    {
        if on {
            text.push_str(", ");
            text.push_str(name);
        }
    }
    if c.min_isr > 1 {
        text.push_str(&format!(", min.insync.replicas {}", c.min_isr));
    }
    text
}

/// How far the search went, in words.
fn reach(run: &ExploreRun) -> String {
    let s = &run.stats;
    if s.out_of_memory {
        format!("stopped when memory ran out at {} states, depth {}", s.states, s.depth)
    } else if s.capped {
        format!("stopped at the state cap of {}, depth {}", run.state_cap, s.depth)
    } else if s.closed {
        format!("every state, closed at depth {}", s.depth)
    } else if s.exhaustive {
        format!("every state to depth {}", s.depth)
    } else {
        format!("depth {} of {}", s.depth, run.config.max_depth)
    }
}

/// `timing`: show seconds and states per second (they differ from run to run).
pub fn text(out: &mut dyn Write, report: &ExploreReport, settings: &Settings, timing: bool) -> Result<()> {
    let p = settings.palette();
    let cols = [
        Col::Ident("mode"),
        Col::Keep("bounds"),
        Col::Keep("depth"),
        Col::Keep("states"),
        Col::Keep("transitions"),
        Col::Keep("violations"),
        Col::Keep("shortest"),
    ];
    let mut t = Grid::new(settings, &cols);
    for run in &report.runs {
        let s = &run.stats;
        let violations = if s.violations > 0 { Tone::Bad } else { Tone::Good };
        let row = vec![
            Cell::new(run.config.mode().name()),
            Cell::new(bounds(run)),
            table::right(format!("{} of {}", s.depth, run.config.max_depth)),
            table::right(s.states),
            table::right(s.transitions),
            table::right_in(&p, s.violations, violations),
            table::right(s.shortest.map_or("-".into(), |d| d.to_string())),
        ];
        t.add(row);
    }
    t.write(out)?;
    writeln!(out, "bounds: replicas/epochs/records; depth: actions searched, of the bound").at("<stdout>", "write")?;
    let rules: Vec<String> = report.runs.iter().map(rules).collect();
    writeln!(out, "rules: {}", rules.join("; ")).at("<stdout>", "write")?;
    // The timings on a line of their own: they change from run to run, and as columns they
    // would push the table past 80 columns.
    if timing {
        let times: Vec<String> = report
            .runs
            .iter()
            .map(|r| {
                let s = &r.stats;
                format!("{} {:.2} s ({:.0} states/s)", r.config.mode().name(), s.seconds, s.states_per_second())
            })
            .collect();
        writeln!(out, "time: {}", times.join("; ")).at("<stdout>", "write")?;
    }
    verdicts_text(out, report, settings)?;
    Ok(())
}

/// Each mode's verdict: no violation within the bounds, none found before the search stopped,
/// or its counterexample.
fn verdicts_text(out: &mut dyn Write, report: &ExploreReport, settings: &Settings) -> Result<()> {
    let p = settings.palette();
    for run in &report.runs {
        let mode = run.config.mode().name();
        match &run.counterexample {
            None if run.stats.exhaustive => writeln!(
                out,
                "{mode}: {} within the bounds ({}); nothing is claimed beyond them",
                p.good("no violation"),
                reach(run)
            ),
            // Stopped early with none found: say exactly that, as the table and JSON count.
            None if run.stats.violations == 0 => writeln!(
                out,
                "{mode}: {} before the search stopped ({}); nothing is claimed about the states not searched",
                p.warn("no violation found"),
                reach(run)
            ),
            None => writeln!(
                out,
                "{mode}: {} ({}), but none that a recover report can show within the bounds",
                p.warn(&format!("{} violations found", run.stats.violations)),
                reach(run)
            ),
            Some(ce) => counterexample(out, run, ce, settings),
        }
        .at("<stdout>", "write")?;
    }
    Ok(())
}

fn step(out: &mut dyn Write, n: usize, s: &NarratedStep, settings: &Settings) -> std::io::Result<()> {
    let p = settings.palette();
    // A broker's own step (a comment) is shown as it is, a klog command after `$`.
    let shown = s.command.replace('"', "");
    if shown.starts_with('#') {
        writeln!(out, "  {n:>2}. {shown}")?;
    } else {
        writeln!(out, "  {n:>2}. $ {shown}")?;
    }
    for line in &s.then {
        let line = line.replace('"', "");
        if line.starts_with('#') {
            writeln!(out, "      {}", p.dim(&line))?;
        } else {
            writeln!(out, "      $ {line}")?;
        }
    }
    for r in &s.replicas {
        let role = match r.role.name() {
            "leader" => p.good(r.role.name()),
            "crashed" => p.bad(r.role.name()),
            _ => r.role.name().to_string(),
        };
        let epoch = r.leader_epoch.map_or(String::new(), |e| format!(" @{e}"));
        writeln!(
            out,
            "        {} {}{:<4} LEO {:<2} HW {:<2} | {}",
            p.strong(&r.name.to_string()),
            super::fit::pad_end(&role, 8),
            epoch,
            r.log_end_offset,
            r.high_watermark,
            records_text(r)
        )?;
    }
    Ok(())
}

fn counterexample(
    out: &mut dyn Write,
    run: &ExploreRun,
    ce: &CounterexampleReport,
    settings: &Settings,
) -> std::io::Result<()> {
    let p = settings.palette();
    let mode = run.config.mode().name();
    let kind = if ce.kind == "acked_loss" { "ACKED LOSS" } else { "DIVERGENCE" };
    writeln!(out)?;
    writeln!(out, "{mode}: {} in {} actions — {}", p.bad(kind), ce.steps.len(), ce.description)?;
    if let Some(d) = run.stats.shortest.filter(|d| *d as usize != ce.steps.len()) {
        writeln!(
            out,
            "  (the first violation, at depth {d}, left no replica holding the record for a recover report to \
             show; this is the shortest one that can be shown)"
        )?;
    }
    if ce.power_loss {
        writeln!(
            out,
            "  {}: the history has a power-loss crash; acks=all relies on replicas, not on fsync, so every mode \
             can lose an acked record this way",
            p.warn("power loss")
        )?;
    }
    for (i, s) in ce.steps.iter().enumerate() {
        step(out, i + 1, s, settings)?;
    }
    if let Some(w) = &ce.witness {
        let base = ce.steps.len();
        if !w.extra_steps.is_empty() {
            writeln!(out, "  then, to show it:")?;
        }
        for (i, s) in w.extra_steps.iter().enumerate() {
            step(out, base + i + 1, s, settings)?;
        }
        writeln!(out, "  shown by: $ {}", w.command.replace('"', ""))?;
        writeln!(
            out,
            "    {}'s {} at offset {}: {}{}",
            w.follower,
            w.value,
            w.offset,
            p.bad(&w.class.name().replace('_', " ").to_uppercase()),
            if w.acked && w.class == RecordClass::Diverged { " (acked, lost from the leader)" } else { "" }
        )?;
    }
    if let Some(path) = &ce.script_path {
        writeln!(out, "  script: {}", path.display())?;
    }
    Ok(())
}

#[derive(Serialize)]
struct RecordWire<'a> {
    leader_epoch: i32,
    offset: i64,
    value: &'a str,
}

#[derive(Serialize)]
struct ReplicaWire<'a> {
    high_watermark: i64,
    leader_epoch: Option<i32>,
    log_end_offset: i64,
    name: String,
    records: Vec<RecordWire<'a>>,
    role: &'static str,
}

/// One step of a counterexample: the command, every replica's log after it, what followed.
#[derive(Serialize)]
struct StepWire<'a> {
    command: &'a str,
    replicas: Vec<ReplicaWire<'a>>,
    then: &'a [String],
}

fn step_wire(s: &NarratedStep) -> StepWire<'_> {
    StepWire {
        command: &s.command,
        replicas: s
            .replicas
            .iter()
            .map(|r| ReplicaWire {
                high_watermark: r.high_watermark,
                leader_epoch: r.leader_epoch,
                log_end_offset: r.log_end_offset,
                name: r.name.to_string(),
                records: r
                    .records
                    .iter()
                    .map(|(offset, leader_epoch, value)| RecordWire {
                        leader_epoch: *leader_epoch,
                        offset: *offset,
                        value,
                    })
                    .collect(),
                role: r.role.name(),
            })
            .collect(),
        then: &s.then,
    }
}

#[derive(Serialize)]
struct WitnessWire<'a> {
    acked: bool,
    class: &'static str,
    command: &'a str,
    extra_steps: Vec<StepWire<'a>>,
    follower: String,
    leader: String,
    offset: i64,
    value: &'a str,
}

#[derive(Serialize)]
struct CounterexampleWire<'a> {
    description: &'a str,
    kind: &'static str,
    length: usize,
    power_loss: bool,
    script: Option<&'a str>,
    script_path: Option<Shown<'a>>,
    steps: Vec<StepWire<'a>>,
    witness: Option<WitnessWire<'a>>,
}

#[derive(Serialize)]
struct KraftWire {
    elr: bool,
}

/// Who elects: `"free"`, `"zookeeper"`, or `{"kraft": {"elr": true}}`.
#[derive(Serialize)]
#[serde(untagged)]
enum ControllerWire {
    Named(&'static str),
    Kraft { kraft: KraftWire },
}

#[derive(Serialize)]
struct RunWire<'a> {
    capped: bool,
    closed: bool,
    controller: ControllerWire,
    counterexample: Option<CounterexampleWire<'a>>,
    depth: u32,
    exhaustive: bool,
    fencing: bool,
    inter_broker_protocol: Option<&'static str>,
    kafka: String,
    max_depth: u32,
    max_epochs: u8,
    max_records: u8,
    min_isr: u8,
    mode: &'static str,
    out_of_memory: bool,
    power_loss: bool,
    replicas: usize,
    seconds: f64,
    shortest: Option<u32>,
    stale_hw: bool,
    state_cap: u64,
    states: u64,
    states_per_second: f64,
    transitions: u64,
    unclean: bool,
    violations: u64,
}

#[derive(Serialize)]
struct ExploreWire<'a> {
    runs: Vec<RunWire<'a>>,
    #[serde(rename = "type")]
    kind: &'static str,
    violation_found: bool,
}

fn counterexample_wire(ce: &CounterexampleReport) -> CounterexampleWire<'_> {
    CounterexampleWire {
        description: &ce.description,
        kind: ce.kind,
        length: ce.steps.len(),
        power_loss: ce.power_loss,
        script: ce.script.as_deref(),
        script_path: ce.script_path.as_deref().map(Shown),
        steps: ce.steps.iter().map(step_wire).collect(),
        witness: ce.witness.as_ref().map(|w| WitnessWire {
            acked: w.acked,
            class: w.class.name(),
            command: &w.command,
            extra_steps: w.extra_steps.iter().map(step_wire).collect(),
            follower: w.follower.to_string(),
            leader: w.leader.to_string(),
            offset: w.offset,
            value: &w.value,
        }),
    }
}

/// `explore --json`: one document with every run and each counterexample's steps and script.
pub fn json(out: &mut dyn Write, report: &ExploreReport) -> Result<()> {
    let runs = report
        .runs
        .iter()
        .map(|run| {
            let c = &run.config;
            let s = &run.stats;
            RunWire {
                capped: s.capped,
                closed: s.closed,
                controller: match c.controller {
                    Controller::Free => ControllerWire::Named("free"),
                    Controller::Kraft { elr } => ControllerWire::Kraft { kraft: KraftWire { elr } },
                    Controller::Zk => ControllerWire::Named("zookeeper"),
                },
                counterexample: run.counterexample.as_ref().map(counterexample_wire),
                depth: s.depth,
                exhaustive: s.exhaustive,
                fencing: c.fencing,
                inter_broker_protocol: c.rules.effective_ibp().map(|i| i.name()),
                kafka: c.rules.release.to_string(),
                max_depth: c.max_depth,
                max_epochs: c.max_epochs,
                max_records: c.max_records,
                min_isr: c.min_isr,
                mode: c.mode().name(),
                out_of_memory: s.out_of_memory,
                power_loss: c.power_loss,
                replicas: c.replicas,
                seconds: s.seconds,
                shortest: s.shortest,
                stale_hw: c.stale_hw,
                state_cap: run.state_cap,
                states: s.states,
                states_per_second: s.states_per_second(),
                transitions: s.transitions,
                unclean: c.unclean,
                violations: s.violations,
            }
        })
        .collect();
    line(out, &ExploreWire { runs, kind: "explore", violation_found: report.found_violation() })
}
