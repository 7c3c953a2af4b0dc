//! klog's entry point: parse the command line, read the environment once, resolve the output
//! settings, run the command through the library's one dispatcher ([`replica_lab::app`]) — or,
//! for `klog lab`, start the browser lab, a front end like this one whose routes call the same
//! dispatcher — and map its outcome to an exit code (0 ok, 1 findings, 2 error).

use replica_lab::app;
use replica_lab::cli::{self, Command, Env, LabArgs, Outcome};
use replica_lab::error::{IoContext, Result};
use replica_lab::escape;
use replica_lab::output::{fit::Fit, Settings};
use std::io::{self, BufWriter, Write};
use std::process::ExitCode;

fn main() -> ExitCode {
    // The hidden fault seam of the crash tests (`replica_lab::durable`): kill, fail or power-cut
    // the Nth durable step. Read here, before anything else runs, so the seam counts every step.
    if let Err(e) = std::env::var("KLOG_FAULT").map_or(Ok(()), |spec| replica_lab::durable::install_faults(&spec)) {
        eprintln!("klog: error: KLOG_FAULT: {}", escape::text(&e.to_string()));
        return ExitCode::from(2);
    }
    let env = Env::read();
    let cli = match cli::parse_in(std::env::args_os(), &env) {
        Ok(cli) => cli,
        Err(e) if e.use_stderr() => {
            eprintln!("klog: error: {}", escape::text(&cli::clap_error_line(&e)));
            return ExitCode::from(cli::clap_exit_code(&e));
        }
        Err(e) => {
            let _ = e.print();
            return ExitCode::from(cli::clap_exit_code(&e));
        }
    };
    let settings = cli::settings(&cli, &env);
    let error_width = cli::error_width(&cli, &env, stderr_terminal_width(&env));
    if cli.allow_broker_dir_writes {
        replica_lab::replica::allow_broker_dir_writes();
    }
    let mut out = BufWriter::with_capacity(1 << 16, io::stdout().lock());
    // A command that fails changes nothing: the undo journal records what each durable step
    // changes, and puts it back on failure.
    let (result, undo_failures) = app::transaction(|| {
        match cli.command {
            Command::Lab(a) => lab(&a, &settings, &env, &mut out),
            command => app::run(command, &settings, &env, &mut out),
        }
        .and_then(|outcome| out.flush().at("<stdout>", "write").map(|()| outcome))
    });
    let _ = out.flush();
    for note in replica_lab::notice::take() {
        eprintln!("klog: warning: {note}");
    }
    match &result {
        Err(e) if !e.is_broken_pipe() => {
            // One line, whatever the error echoes (a name read from a file, an argument), and
            // of a sane length: long paths are cut in the middle, keeping the file name.
            let path = e.path().map(|p| p.display().to_string());
            let line = format!("klog: error: {}", escape::text(&escape::cut_paths(&e.line(), path.as_deref())));
            // On a terminal, wrapped to its width (what to do next is at the end of the line);
            // into a pipe or a file, one line.
            match error_width {
                Some(width) => replica_lab::output::fit::wrap_line(&line, width).iter().for_each(|l| eprintln!("{l}")),
                None => eprintln!("{line}"),
            }
            for failure in undo_failures {
                eprintln!("klog: warning: {}", escape::text(&failure));
            }
        }
        _ => {
            // Two lines, so that it fits 80 columns where the paths are short; the command to
            // undo it stays whole on its own line, to copy.
            for (log_dir, backup) in replica_lab::durable::backup::made() {
                eprintln!(
                    "klog: saved what this command changed in {} first:\n  `klog restore {}` puts {} back",
                    backup.display(),
                    backup.display(),
                    log_dir.display()
                );
            }
        }
    }
    ExitCode::from(cli::exit_code(&result))
}

/// `klog lab`: the browser lab, serving until the process is stopped; its three lines (URL, lab
/// dir, how to stop) fitted to the width as the dispatcher fits text.
fn lab(a: &LabArgs, settings: &Settings, env: &Env, out: &mut dyn Write) -> Result<Outcome> {
    let opts = replica_lab::lab::LabOptions { dir: a.dir.clone(), port: a.port, temp_dir: env.temp_dir.clone() };
    let mut text = Fit::new(out, settings.width, settings.color);
    replica_lab::lab::run(&opts, &mut text)?;
    text.flush().at("<stdout>", "write")?;
    Ok(Outcome::Success)
}

/// The width of the terminal on stderr (`TIOCGWINSZ`), when it is one and says.
fn stderr_terminal_width(env: &Env) -> Option<usize> {
    if !env.stderr_tty {
        return None;
    }
    let mut size: libc::winsize = libc::winsize { ws_row: 0, ws_col: 0, ws_xpixel: 0, ws_ypixel: 0 };
    // SAFETY: TIOCGWINSZ writes one `winsize` into `size`, which outlives the call; fd 2 is
    // stderr, open for the whole process.
    let ok = unsafe { libc::ioctl(libc::STDERR_FILENO, libc::TIOCGWINSZ, &mut size) } == 0;
    (ok && size.ws_col > 0).then_some(usize::from(size.ws_col))
}
