//! Running one step's command line: split into words (the lab's replica dirs the only quoted
//! ones), parsed by klog's clap definitions and run by klog's one dispatcher as `main` runs it;
//! the lab's [`Front`] keeps the recovery picture as SVG and the code panels of what ran.

use super::*;

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
pub(super) fn settings() -> Settings {
    Settings { color: false, width: None, table_width: None, progress: false, truecolor: false }
}

/// What running one command gave.
#[derive(Default)]
pub(super) struct Ran {
    pub(super) output: String,
    pub(super) code: Vec<Explanation>,
    pub(super) recovery: Option<String>,
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
pub(super) fn env(lab: &Path) -> Env {
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
pub(super) fn run_line(line: &str, lab: &Path) -> Result<Ran> {
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
