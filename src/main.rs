//! klog's entry point: parse the command line, resolve the output settings once, run the
//! command, render its report, map the outcome to an exit code (0 ok, 1 findings, 2 error).

use clap::Parser;
use klog::cli::{Cli, ColorChoice, Command};
use klog::commands;
use klog::error::{Error, IoContext, Result};
use klog::output::{self, json, table::DumpTable, text, Settings};
use std::io::{self, BufWriter, IsTerminal, Read, Write};
use std::process::ExitCode;

fn main() -> ExitCode {
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
    let settings = Settings { color, tty };
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
            let report = commands::append::run(commands::append::AppendRequest {
                dir: &a.target.dir,
                partition: a.target.partition.as_deref(),
                values,
                key: a.key.map(String::into_bytes),
                headers: a.headers.iter().map(|h| commands::append::parse_header(h)).collect(),
                records_per_batch: a.records_per_batch,
                timestamp: a.timestamp.unwrap_or_else(commands::now_ms),
                flush: a.flush,
            })?;
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
            };
            if a.json {
                commands::dump::run(&req, &mut |e| json::dump_event(out, e))?;
            } else {
                let mut t = DumpTable::new(out, *settings, a.batches);
                commands::dump::run(&req, &mut |e| t.event(e))?;
                t.finish()?;
            }
        }
        Command::Check(a) => {
            let report = commands::check::run(&a.target.dir, a.target.partition.as_deref())?;
            if a.json {
                json::check_report(out, &report)?;
            } else {
                text::check(out, &report, settings)?;
            }
            return Ok(if report.is_clean() { 0 } else { 1 });
        }
    }
    let _ = output::display_bytes;
    Ok(0)
}
