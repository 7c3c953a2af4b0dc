//! klog's entry point: parse the command line, resolve the output settings once, run the
//! command, render its report, map the outcome to an exit code (0 ok, 1 findings, 2 error).

use clap::Parser;
use klog::cli::{Cli, ColorChoice, Command, DemoMode, DumpFormat, GenerateCommand, ModeArg};
use klog::commands::{self, recover::RecoverReport};
use klog::error::{Error, IoContext, Result};
use klog::output::progress::{NoProgress, Progress, ProgressSink};
use klog::output::{dump_log::DumpLog, json, report, table::DumpTable, text, Settings};
use klog::replication::truncation::TruncationMode;
use std::io::{self, BufWriter, IsTerminal, Read, Write};
use std::process::ExitCode;

fn main() -> ExitCode {
    // The hidden fault seam of the crash tests (`klog::durable`): kill, fail or power-cut
    // the Nth durable step. Read here because only `main` reads the environment.
    if let Err(e) = std::env::var("KLOG_FAULT").map_or(Ok(()), |spec| klog::durable::install_faults(&spec)) {
        eprintln!("klog: error: KLOG_FAULT: {e}");
        return ExitCode::from(2);
    }
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => {
            let _ = e.print();
            return ExitCode::from(if e.use_stderr() { 2 } else { 0 });
        }
    };
    let tty = io::stdout().is_terminal();
    let color = match cli.color {
        ColorChoice::Always => true,
        ColorChoice::Never => false,
        ColorChoice::Auto => tty && std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty()),
    };
    // Progress goes to stderr only when stderr is a terminal that is not also showing stdout's
    // stream of results (a dump to the terminal is its own progress).
    let progress = io::stderr().is_terminal() && !(tty && matches!(cli.command, Command::Dump(_)));
    let settings = Settings { color, tty, progress };
    let stdout = io::stdout();
    let mut out = BufWriter::with_capacity(1 << 16, stdout.lock());
    let result = run(cli.command, &settings, &mut out).and_then(|code| {
        out.flush().at("<stdout>", "write")?;
        Ok(code)
    });
    match result {
        Ok(code) => ExitCode::from(code),
        Err(e) if e.is_broken_pipe() => ExitCode::SUCCESS,
        Err(e) => {
            let _ = out.flush();
            eprintln!("klog: error: {e}");
            ExitCode::from(e.exit_code() as u8)
        }
    }
}

/// Progress on stderr when it is a terminal, else nowhere.
fn progress(settings: &Settings, label: &'static str, unit: &'static str) -> Box<dyn ProgressSink> {
    if settings.progress {
        Box::new(Progress::new(io::stderr(), label, unit))
    } else {
        Box::new(NoProgress)
    }
}

fn run(command: Command, settings: &Settings, out: &mut dyn Write) -> Result<u8> {
    match command {
        Command::Create(a) => {
            let paths = commands::create::run(&commands::create::CreateRequest {
                dir: &a.dir,
                topic: &a.topic,
                partition: a.partition,
                replica_id: a.replica_id,
                segment_bytes: a.segment_bytes,
                index_interval_bytes: a.index_interval_bytes,
                index_bytes_max: a.segment_index_bytes,
                segment_ms: a.segment_ms,
            })?;
            text::created(out, &paths)?;
        }
        Command::Elect(a) => {
            let report = commands::elect::run(&commands::elect::ElectRequest {
                dir: &a.target.dir,
                partition: a.target.partition.as_deref(),
                epoch: a.epoch,
                isr: &a.isr,
                epoch_entry: a.epoch_entry,
            })?;
            text::elected(out, &report, settings)?;
        }
        Command::Append(a) => {
            let values = if let (Some(count), Some(value_size)) = (a.count, a.value_size) {
                if !a.values.is_empty() || a.stdin {
                    return Err(Error::Usage("--count cannot be combined with VALUEs or --stdin".into()));
                }
                commands::append::Values::Generated { count, value_size }
            } else if a.stdin {
                if !a.values.is_empty() {
                    return Err(Error::Usage("--stdin cannot be combined with VALUEs".into()));
                }
                let mut input = Vec::new();
                io::stdin().read_to_end(&mut input).at("<stdin>", "read")?;
                let mut lines: Vec<Vec<u8>> =
                    input.split(|b| *b == b'\n').map(|l| l.strip_suffix(b"\r").unwrap_or(l).to_vec()).collect();
                if lines.last().is_some_and(|l| l.is_empty()) {
                    lines.pop();
                }
                commands::append::Values::Given(lines)
            } else {
                commands::append::Values::Given(a.values.iter().map(|v| v.as_bytes().to_vec()).collect())
            };
            let report = commands::append::run(
                commands::append::AppendRequest {
                    dir: &a.target.dir,
                    partition: a.target.partition.as_deref(),
                    values,
                    key: a.key.map(String::into_bytes),
                    headers: a.headers.iter().map(|h| commands::append::parse_header(h)).collect(),
                    records_per_batch: a.records_per_batch,
                    timestamp: a.timestamp.unwrap_or_else(commands::now_ms),
                    flush: a.flush,
                    compression: a.compression.into(),
                },
                &mut *progress(settings, "append", "records"),
            )?;
            text::appended(out, &a.target.dir.display().to_string(), &report, settings)?;
        }
        Command::Dump(a) => {
            let req = commands::dump::DumpRequest {
                path: &a.path,
                partition: a.partition.as_deref(),
                epochs: a.epochs,
                from: a.from,
                limit: a.limit,
                batches_only: a.batches,
                log_dir_overview: a.format != Some(DumpFormat::Kafka),
            };
            // Progress in bytes of the replica's segments, from the batches going by.
            let mut bar = progress(settings, "dump", "bytes");
            let (mut total, mut before, mut segment_end) = (0u64, 0u64, 0u64);
            let mut track = |e: &commands::dump::DumpEvent<'_>| match e {
                commands::dump::DumpEvent::Replica(s) => (total, before, segment_end) = (s.size_bytes, 0, 0),
                commands::dump::DumpEvent::Segment { .. } => (before, segment_end) = (before + segment_end, 0),
                commands::dump::DumpEvent::Batch(b) => {
                    segment_end = b.position + b.size_bytes;
                    bar.update(before + segment_end, total);
                }
                _ => {}
            };
            match a.format.unwrap_or(if a.json { DumpFormat::Json } else { DumpFormat::Table }) {
                DumpFormat::Json => commands::dump::run(&req, &mut |e| {
                    track(&e);
                    json::dump_event(out, e)
                })?,
                DumpFormat::Table => {
                    let mut t = DumpTable::new(out, *settings, a.batches);
                    commands::dump::run(&req, &mut |e| {
                        track(&e);
                        t.event(e)
                    })?;
                    t.finish()?;
                }
                DumpFormat::Kafka => {
                    let mut err = io::stderr().lock();
                    let mut d = DumpLog::new(out, &mut err);
                    commands::dump::run(&req, &mut |e| {
                        track(&e);
                        d.event(e)
                    })?;
                    d.finish()?;
                }
            }
        }
        Command::Check(a) => {
            let report = commands::check::run(
                &a.target.dir,
                a.target.partition.as_deref(),
                &mut *progress(settings, "check", "bytes"),
            )?;
            if a.json {
                json::check_report(out, &report)?;
            } else {
                text::check(out, &report, settings)?;
            }
            return Ok(if report.is_clean() { 0 } else { 1 });
        }
        Command::Fetch(a) => {
            let report = commands::fetch::run(&commands::fetch::FetchRequest {
                leader: &a.leader,
                follower: &a.follower,
                partition: a.partition.as_deref(),
                rounds: a.rounds,
                until_caught_up: a.until_caught_up,
                max_bytes: a.max_bytes,
                flush: a.flush,
            })?;
            if a.json {
                json::fetch_rounds(out, &report)?;
            } else {
                text::fetch_rounds(out, &report, &a.follower.display().to_string(), settings)?;
            }
            return Ok(if report.stuck() { 1 } else { 0 });
        }
        Command::Flush(t) => {
            let report = commands::flush::run(&t.dir, t.partition.as_deref())?;
            text::flushed(out, &t.dir.display().to_string(), &report, settings)?;
        }
        Command::Stop(t) => {
            let report = commands::stop::run(&t.dir, t.partition.as_deref())?;
            text::stopped(out, &t.dir.display().to_string(), &report, settings)?;
        }
        Command::Crash(a) => {
            let report = klog::crash::crash(
                &a.target.dir,
                a.target.partition.as_deref(),
                &klog::crash::CrashOptions {
                    power_loss: a.power_loss,
                    torn_bytes: a.torn_bytes,
                    flip_byte: a.flip_byte,
                    seed: a.seed,
                    high_watermark: a.high_watermark,
                    drop_epoch_checkpoint: a.drop_epoch_checkpoint,
                    drop_index: a.drop_index,
                },
            )?;
            text::crashed(out, &report, settings)?;
        }
        Command::Recover(a) => {
            let mode = match a.mode.unwrap_or(ModeArg::Kip279) {
                ModeArg::Hw => TruncationMode::Hw,
                ModeArg::Kip101 => TruncationMode::Kip101,
                ModeArg::Kip279 => TruncationMode::Kip279,
            };
            let report = commands::recover::run(&commands::recover::RecoverRequest {
                dir: &a.dir,
                partition: a.partition.as_deref(),
                leader: a.leader.as_deref(),
                mode,
                dry_run: a.dry_run,
                catch_up: a.catch_up,
                context: a.context as i64,
            })?;
            match (report, a.json) {
                (RecoverReport::Local(r), false) => report::local_text(out, &r, settings)?,
                (RecoverReport::Local(r), true) => report::local_json(out, &r)?,
                (RecoverReport::Follower(r), false) => report::follower_text(out, &r, settings)?,
                (RecoverReport::Follower(r), true) => report::follower_json(out, &r)?,
            }
        }
        Command::Diff(a) => {
            let report = commands::diff::run(&a.a, &a.b, a.partition.as_deref())?;
            if a.json {
                report::diff_json(out, &report)?;
            } else {
                report::diff_text(out, &report, settings)?;
            }
            return Ok(if report.outcome.identical_up_to_shorter() { 0 } else { 1 });
        }
        Command::Generate(GenerateCommand::Man { dir }) => {
            for name in klog::generate::write_man_pages(&dir)? {
                writeln!(out, "{}", dir.join(name).display()).at("<stdout>", "write")?;
            }
        }
        Command::Generate(GenerateCommand::Completions { shell }) => {
            klog::generate::write_completions(shell, out)?;
        }
        Command::Demo(a) => {
            let (mode, all_modes) = match a.mode {
                None => (None, false),
                Some(DemoMode::All) => (None, true),
                Some(DemoMode::Hw) => (Some(TruncationMode::Hw), false),
                Some(DemoMode::Kip101) => (Some(TruncationMode::Kip101), false),
                Some(DemoMode::Kip279) => (Some(TruncationMode::Kip279), false),
            };
            let temp = a.dir.is_none();
            let root = match &a.dir {
                Some(d) => d.clone(),
                None => {
                    let nanos = std::time::SystemTime::now()
                        .duration_since(std::time::UNIX_EPOCH)
                        .map_or(0, |d| d.subsec_nanos());
                    std::env::temp_dir().join(format!("klog-demo-{}-{nanos}", std::process::id()))
                }
            };
            let mut printer = klog::output::demo::DemoPrinter::new(out, *settings, root.clone());
            let result = commands::demo::run(
                &commands::demo::DemoRequest { scenario: a.scenario.as_deref(), mode, all_modes, dir: &root },
                &mut |e| printer.event(e),
            );
            if temp && !a.keep {
                let _ = std::fs::remove_dir_all(&root);
            } else if temp {
                writeln!(out, "\nkept {}", root.display()).at("<stdout>", "write")?;
            }
            result?;
        }
    }
    Ok(0)
}
