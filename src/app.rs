//! The one dispatcher: each subcommand's request (built in `cli/`) goes to its command, and
//! the report to its renderer, whichever front end asked — `main` for the terminal, the browser
//! lab for each action a learner clicks. The fronts call down into this module; it never calls
//! up into a front (`main` starts the lab). A command runs as one transaction
//! ([`transaction`]: the undo journal puts back what a failed command changed). Text goes
//! through [`Fit`] so that every line fits the width resolved in `main`; JSON and Kafka's
//! dump-log lines are never wrapped. What differs between front ends is a [`Front`]: the
//! terminal writes a follower recovery's picture as text, the lab draws it and shows the code
//! of the procedures that ran. Nothing here reads the command line or the environment: the
//! caller passes what it resolved.

use crate::cli::{
    self, AlterIsrArgs, AppendArgs, CheckArgs, Command, CrashArgs, CreateArgs, DemoArgs, DiffArgs, DrawArgs, DumpArgs,
    DumpFormat, ElectArgs, Env, ExploreArgs, FetchArgs, GenerateCommand, HistoryArgs, Outcome, RecoverArgs, RemoteArgs,
    RestoreArgs, Target, TxnArgs, TxnFormat,
};
use crate::commands::cluster::{ClusterCommand, ClusterRequest};
use crate::commands::recover::{FollowerRecoverReport, RecoverReport, RecoverRequest};
use crate::commands::{self, data_dir, dump::DumpEvent, NoProgress, ProgressSink};
use crate::durable::output::{self as output_file, OutputKind};
use crate::error::{IoContext, Result};
use crate::output::picture::{self, Picture};
use crate::output::{self, fit::Fit};
use crate::output::{dump_log::DumpLog, json, progress::Progress, report, svg, table::DumpTable, text, Settings};
use crate::replication::explain::{explain_fetch, Explanation};
use std::io::{self, Write};
use std::path::{Path, PathBuf};

/// What a front end adds to the terminal's rendering of a command's report.
pub trait Front {
    /// After a follower recovery's report: its picture, the follower before and after the cut
    /// against the leader's records (`names`: leader, follower), and with `--explain` the
    /// procedure with the lines that ran.
    fn recovery_picture(
        &mut self,
        out: &mut dyn Write,
        r: &FollowerRecoverReport,
        picture: &Picture,
        names: &(String, String),
        explain: bool,
        settings: &Settings,
    ) -> Result<()>;

    /// Whether it shows the code of the procedures that ran (each costs a replay to explain).
    fn shows_code(&self) -> bool {
        false
    }

    /// The procedures a command ran, with the lines that ran ([`Front::shows_code`]).
    fn code(&mut self, _explanation: Explanation) {}
}

/// The terminal: `klog` itself.
pub struct Terminal;

impl Front for Terminal {
    fn recovery_picture(
        &mut self,
        out: &mut dyn Write,
        r: &FollowerRecoverReport,
        pic: &Picture,
        (leader, follower): &(String, String),
        explain: bool,
        settings: &Settings,
    ) -> Result<()> {
        writeln!(
            out,
            "\n{}",
            settings.palette().dim(&format!("{follower} before and after the cut, against the leader {leader}:"))
        )
        .at("<stdout>", "write")?;
        picture::write_text(out, pic, settings)?;
        if explain {
            writeln!(out).at("<stdout>", "write")?;
            crate::output::explain::write_text(out, &r.explanation(), settings)?;
        }
        Ok(())
    }
}

/// One command's transaction (the undo journal's, [`crate::durable::journal::transaction`]):
/// the front ends call it from here.
pub use crate::durable::journal::transaction;

/// Progress on stderr when it is a terminal, else nowhere.
fn progress(settings: &Settings, label: &'static str, unit: &'static str) -> Box<dyn ProgressSink> {
    if settings.progress {
        Box::new(Progress::new(io::stderr(), label, unit))
    } else {
        Box::new(NoProgress)
    }
}

/// Run one command for the terminal, writing its results to `out`.
pub fn run(command: Command, settings: &Settings, env: &Env, out: &mut dyn Write) -> Result<Outcome> {
    run_for(command, settings, env, out, &mut Terminal)
}

/// Run one command for `front`, writing its results to `out`.
pub fn run_for(
    command: Command,
    settings: &Settings,
    env: &Env,
    out: &mut dyn Write,
    front: &mut dyn Front,
) -> Result<Outcome> {
    let mut fit = Fit::new(&mut *out, settings.width, settings.color);
    let hint = write_hint(&command);
    let (outcome, changed) = crate::map_guard::watch(|| run_into(command, settings, env, front, &mut fit));
    let outcome = outcome.map_err(|e| e.with_write_hint(hint));
    // A file cut under a map while it was read (a live broker's): what was read past the cut
    // was zeros, so whatever the command made of it, the answer is this error.
    if let Some((path, mapped_bytes, now_bytes)) = changed {
        let _ = fit.flush();
        return Err(crate::error::Error::corrupt(
            &path,
            now_bytes,
            format!(
                "the file changed while klog read it: another process (a running broker?) cut it from \
                 {mapped_bytes} to {now_bytes} bytes; what klog printed past the cut is not the file's: \
                 read a copy (cp -a), or stop the broker"
            ),
        ));
    }
    let outcome = outcome?;
    fit.flush().at("<stdout>", "write")?;
    Ok(outcome)
}

/// The wrapping writer text goes through; `raw()` reaches the writer under it for JSON and
/// Kafka's dump-log lines.
type Text<'t, 'w> = Fit<&'t mut (dyn Write + 'w)>;

/// What `command` would change in a log dir klog did not make, and its safe form, for the
/// refusal (`Error::NotKlogMade`).
fn write_hint(command: &Command) -> &'static str {
    match command {
        Command::Create(_) => "create would add partition dirs to it and rewrite its checkpoints (no dry run: work on a copy)",
        Command::Elect(_) => "elect would start the partition (local recovery after an unclean stop, removing .kafka_cleanshutdown) and write its leader epoch into leader-epoch-checkpoint, the checkpoints, klog-state.json and .lock (no dry run: work on a copy)",
        Command::AlterIsr(_) => "alter-isr would start the partition (removing .kafka_cleanshutdown) and write its ISR into klog-state.json and .lock (no dry run: work on a copy)",
        Command::Append(_) => "append would start the partition (removing .kafka_cleanshutdown), append to its active segment and indexes, and rewrite its checkpoints, klog-state.json and .lock (no dry run: work on a copy)",
        Command::Fetch(_) => "fetch would start both partitions (removing .kafka_cleanshutdown), append the leader's batches to the follower's segments and rewrite both dirs' checkpoints, klog-state.json and .lock (no dry run: work on a copy)",
        Command::Flush(_) => "flush would start the partition (removing .kafka_cleanshutdown; local recovery after an unclean stop) and rewrite its recovery point, klog-state.json and .lock (no dry run: work on a copy)",
        Command::Stop(_) => "stop would start and close every partition it names (local recovery after an unclean stop, rebuilt indexes), rewrite the checkpoints and write .kafka_cleanshutdown, klog-state.json and .lock (no dry run: work on a copy)",
        Command::Crash(_) => "crash would remove .kafka_cleanshutdown, apply the damage asked for to the partition's files and write klog-state.json and .lock (no dry run: work on a copy)",
        Command::Recover(_) => "recover would run local recovery (cutting segments at the first invalid batch, rebuilding indexes), truncate the partition to the leader with --leader, and rewrite its checkpoints, klog-state.json and .lock; `--dry-run` shows all of it and writes nothing",
        _ => "this command would write into it",
    }
}

/// The route table: one line per command, each to its plumbing below (request from the
/// arguments, command, renderer, outcome).
fn run_into(
    command: Command,
    settings: &Settings,
    env: &Env,
    front: &mut dyn Front,
    text: &mut Text<'_, '_>,
) -> Result<Outcome> {
    match command {
        Command::Create(a) => create(&a, settings, env, text),
        Command::Elect(a) => elect(&a, settings, front, text),
        Command::AlterIsr(a) => alter_isr(&a, settings, env, text),
        Command::Append(a) => append(&a, settings, front, text),
        Command::Dump(a) => dump(&a, settings, env, text),
        Command::History(a) => history(&a, settings, env, text),
        Command::Check(a) => check(&a, settings, env, text),
        Command::Txn(a) => txn(&a, settings, text),
        Command::Fetch(a) => fetch(&a, settings, front, text),
        Command::Flush(a) => flush(&a, settings, env, text),
        Command::Stop(a) => stop(&a, settings, env, text),
        Command::Crash(a) => crash(&a, settings, env, text),
        Command::Recover(a) => recover(&a, settings, front, text),
        Command::Restore(a) => restore(&a, settings, env, text),
        Command::Draw(a) => draw(&a, settings, env, text),
        Command::Diff(a) => diff(&a, settings, env, text),
        Command::Remote(a) => remote(&a, settings, env, text),
        Command::Tier(a) => tier(&a, text),
        Command::Generate(a) => generate(&a, settings, env, text),
        Command::Explore(a) => explore(&a, settings, env, text),
        Command::Demo(a) => demo(&a, settings, env, text),
        // The lab is a front end, as `main` is: `main` starts it, and its routes call this
        // dispatcher, which never calls back up into it.
        Command::Lab(_) => Err(crate::error::Error::Usage(
            "lab: a front end, started by `klog lab` itself; not a command a front end runs".into(),
        )),
    }
}

fn create(a: &CreateArgs, _: &Settings, _: &Env, text: &mut Text<'_, '_>) -> Result<Outcome> {
    let paths = commands::create::run(&a.into())?;
    text::created(text, &paths)?;
    if let Some(r) = &paths.remote_dir {
        writeln!(
            text,
            "tiered: remote.storage.enable=true, remote storage (LocalTieredStorage) {}, metadata in {}",
            r.display(),
            crate::tiered::lab::metadata_partition_name()
        )
        .at("<stdout>", "write")?;
    }
    Ok(Outcome::Success)
}

/// `klog tier copy|retain|expire`.
fn tier(a: &cli::TierCommand, text: &mut Text<'_, '_>) -> Result<Outcome> {
    match a {
        cli::TierCommand::Copy(c) => {
            let report = commands::tier::copy(&commands::tier::CopyRequest {
                leader: &c.target.dir,
                partition: c.target.partition.as_deref(),
                remote_dir: c.remote_dir.as_deref(),
                stop_after_files: c.stop_after_files.map(|n| n as usize),
                now_ms: commands::now_ms(),
            })?;
            if c.json {
                output::tier::copy_json(text.raw(), &report)?;
            } else {
                output::tier::copy_text(text, &report)?;
            }
        }
        cli::TierCommand::Retain(r) => {
            let limit = match (r.local_retention_bytes, r.local_retention_ms) {
                (Some(b), _) => commands::tier::LocalRetention::Bytes(b),
                (None, Some(ms)) => commands::tier::LocalRetention::Ms { retention_ms: ms, now_ms: commands::now_ms() },
                (None, None) => unreachable!("clap requires one limit"),
            };
            let report = commands::tier::retain(&commands::tier::RetainRequest {
                dir: &r.target.dir,
                partition: r.target.partition.as_deref(),
                limit,
            })?;
            if r.json {
                output::tier::retain_json(text.raw(), &report)?;
            } else {
                output::tier::retain_text(text, &report)?;
            }
        }
        cli::TierCommand::Expire(e) => {
            let report = commands::tier::expire(&commands::tier::ExpireRequest {
                leader: &e.target.dir,
                partition: e.target.partition.as_deref(),
                remote_dir: e.remote_dir.as_deref(),
                retention_ms: e.retention_ms,
                retention_bytes: e.retention_bytes,
                now_ms: commands::now_ms(),
            })?;
            if e.json {
                output::tier::expire_json(text.raw(), &report)?;
            } else {
                output::tier::expire_text(text, &report)?;
            }
        }
    }
    Ok(Outcome::Success)
}

fn elect(a: &ElectArgs, settings: &Settings, front: &mut dyn Front, text: &mut Text<'_, '_>) -> Result<Outcome> {
    let report = commands::elect::run(&a.into())?;
    text::elected(text, &report, settings)?;
    if front.shows_code() {
        front.code(report.explanation());
    }
    Ok(Outcome::Success)
}

fn alter_isr(a: &AlterIsrArgs, settings: &Settings, _: &Env, text: &mut Text<'_, '_>) -> Result<Outcome> {
    let report = commands::alter_isr::run(&a.into())?;
    text::isr_altered(text, &report, settings)?;
    Ok(Outcome::Success)
}

fn append(a: &AppendArgs, settings: &Settings, front: &mut dyn Front, text: &mut Text<'_, '_>) -> Result<Outcome> {
    let req = a.request(&mut io::stdin().lock(), commands::now_ms())?;
    let report = commands::append::run(req, &mut *progress(settings, "append", "records"))?;
    text::appended(text, &a.target.dir.display().to_string(), &report, settings)?;
    if front.shows_code() {
        front.code(report.explanation());
    }
    Ok(Outcome::Success)
}

fn history(a: &HistoryArgs, settings: &Settings, _: &Env, text: &mut Text<'_, '_>) -> Result<Outcome> {
    if let Some(path) = &a.svg {
        output_file::check_target("--svg", path, OutputKind::Svg, a.force)?;
    }
    let req = commands::history::HistoryRequest {
        path: &a.path,
        partition: a.partition.as_deref(),
        replicas: &a.replica,
        allow_other_cluster: a.allow_other_cluster,
    };
    let report = commands::history::run(&req)?;
    if a.json {
        output::history::history_json(text.raw(), &report)?;
    } else if a.picture {
        output::history_picture::write_text(text, &report, settings)?;
    } else {
        output::history::history_text(text, &report, settings)?;
    }
    if let Some(path) = &a.svg {
        output_file::write_all(&[(path, output::history_picture::render_svg(&report).as_bytes())])?;
        writeln!(text, "wrote {}", path.display()).at("<stdout>", "write")?;
    }
    Ok(Outcome::Success)
}

/// The cluster view of `check`, `diff` or `recover --dry-run` over several brokers' dirs.
fn cluster(
    dirs: Vec<std::path::PathBuf>,
    partition: Option<&str>,
    command: ClusterCommand,
    (rules, metadata, allow_other_cluster): (crate::replication::release::Rules, Option<&Path>, bool),
    json_out: bool,
    settings: &Settings,
    text: &mut Text<'_, '_>,
) -> Result<Outcome> {
    let req = ClusterRequest { dirs: &dirs, partition, command, rules, metadata, allow_other_cluster };
    let view = commands::cluster::run(&req, &mut *progress(settings, command.name(), "partitions"))?;
    if json_out {
        output::cluster::json(text.raw(), &view)?;
    } else {
        output::cluster::text(text, &view, settings)?;
    }
    Ok(Outcome::findings_if(view.has_findings()))
}

fn check(a: &CheckArgs, settings: &Settings, env: &Env, text: &mut Text<'_, '_>) -> Result<Outcome> {
    // Tiered storage is read first: a remote dir that does not read fails the command before
    // anything is printed.
    let dirs: Vec<PathBuf> = std::iter::once(a.target.dir.clone()).chain(a.more.iter().cloned()).collect();
    let tiers = commands::remote::for_check(&dirs, a.remote_dir.as_deref())?;
    let local = check_local(a, settings, env, text)?;
    let Some(tiers) = tiers else { return Ok(local) };
    if a.json {
        output::tiers::json(text.raw(), &tiers)?;
    } else {
        output::tiers::text(text, &tiers, settings)?;
    }
    Ok(if tiers.finding_count() > 0 { Outcome::findings_if(true) } else { local })
}

fn check_local(a: &CheckArgs, settings: &Settings, _: &Env, text: &mut Text<'_, '_>) -> Result<Outcome> {
    if a.cluster.cluster || !a.more.is_empty() {
        let dirs = std::iter::once(a.target.dir.clone()).chain(a.more.iter().cloned()).collect();
        let how = (cli::rules_of(None), None, a.cluster.allow_other_cluster);
        return cluster(dirs, a.target.partition.as_deref(), ClusterCommand::Check, how, a.json, settings, text);
    }
    if cli::dir_form_of(&a.target.dir, a.target.partition.as_deref())?.is_data_dir() {
        let report = data_dir::check_data_dir(&a.target.dir, &mut *progress(settings, "check", "partitions"))?;
        if a.json {
            output::data_dir::check_json(text.raw(), &report)?;
        } else {
            output::data_dir::check_text(text, &report, settings)?;
        }
        return Ok(Outcome::findings_if(!report.is_clean()));
    }
    let report =
        commands::check::run(&a.target.dir, a.target.partition.as_deref(), &mut *progress(settings, "check", "bytes"))?;
    if a.json {
        json::check_report(text.raw(), &report)?;
    } else {
        text::check(text, &report, settings)?;
    }
    Ok(Outcome::findings_if(!report.is_clean()))
}

fn txn(a: &TxnArgs, settings: &Settings, text: &mut Text<'_, '_>) -> Result<Outcome> {
    let form = a.format();
    let partition = a.partition.as_deref();
    if a.dirs.len() > 1 || cli::dir_form_of(&a.dirs[0], partition)?.is_data_dir() {
        let dirs: Vec<&Path> = a.dirs.iter().map(PathBuf::as_path).collect();
        // One cluster's coordinator judges one cluster's transactions (or, asked, any dirs').
        let ids: Vec<crate::replica::DirIds> = dirs.iter().map(|d| crate::replica::DirIds::read(d)).collect();
        crate::replica::ensure_one_cluster(&ids, a.allow_other_cluster)?;
        let report = commands::txn::run_data_dirs(&dirs, partition, &mut *progress(settings, "txn", "partitions"))?;
        match form {
            TxnFormat::Json => output::transactions::data_dir_json(text.raw(), &report)?,
            TxnFormat::Table => output::transactions::data_dir_text(text, &report, settings)?,
            TxnFormat::Kafka => {
                let hanging = report.hanging(commands::now_ms(), i64::from(a.max_transaction_timeout) * 60_000);
                output::kafka_transactions::data_dirs(text.raw(), &report, &hanging, a.max_transaction_timeout)?
            }
        }
        return Ok(Outcome::findings_if(!report.is_clean()));
    }
    let report = commands::txn::run(&a.dirs[0], partition)?;
    match form {
        TxnFormat::Json => output::transactions::json(text.raw(), &report)?,
        TxnFormat::Table => output::transactions::text(text, &report, settings)?,
        TxnFormat::Kafka => output::kafka_transactions::describe_producers(text.raw(), &report)?,
    }
    Ok(Outcome::findings_if(!report.is_clean()))
}

fn fetch(a: &FetchArgs, settings: &Settings, front: &mut dyn Front, text: &mut Text<'_, '_>) -> Result<Outcome> {
    let tiered = commands::fetch::run_tiered(&a.into())?;
    let report = &tiered.report;
    if front.shows_code() {
        if let Some(r) = &tiered.remote_rebuild {
            front.code(r.explanation());
        }
        report.rounds.iter().for_each(|round| front.code(explain_fetch(round)));
    }
    if a.json {
        output::tier::fetch_tiers_json(text.raw(), &tiered)?;
        json::fetch_rounds(text.raw(), report)?;
    } else {
        output::tier::fetch_tiers_text(text, &tiered)?;
        if let (true, Some(r)) = (a.explain, &tiered.remote_rebuild) {
            writeln!(text.raw(), "\nremote aux state:").at("<stdout>", "write")?;
            crate::output::explain::write_text(text.raw(), &r.explanation(), settings)?;
            writeln!(text.raw()).at("<stdout>", "write")?;
        }
        text::fetch_rounds(text, report, &a.follower.display().to_string(), settings)?;
        if a.explain {
            // A round that ran the same lines with the same values as the one before is one line.
            let mut before = None;
            for (i, round) in report.rounds.iter().enumerate() {
                let e = round.explanation();
                if before.as_ref() == Some(&e) {
                    writeln!(text.raw(), "\nround {}: the same lines and values as round {i}", i + 1)
                        .at("<stdout>", "write")?;
                } else {
                    writeln!(text.raw(), "\nround {}:", i + 1).at("<stdout>", "write")?;
                    crate::output::explain::write_text(text.raw(), &e, settings)?;
                }
                before = Some(e);
            }
        }
    }
    Ok(Outcome::findings_if(report.stuck()))
}

fn flush(t: &Target, settings: &Settings, _: &Env, text: &mut Text<'_, '_>) -> Result<Outcome> {
    let report = commands::flush::run(&t.dir, t.partition.as_deref())?;
    text::flushed(text, &t.dir.display().to_string(), &report, settings)?;
    Ok(Outcome::Success)
}

fn stop(t: &Target, settings: &Settings, _: &Env, text: &mut Text<'_, '_>) -> Result<Outcome> {
    let report = commands::stop::run(&t.dir, t.partition.as_deref())?;
    text::stopped(text, &t.dir.display().to_string(), &report, settings)?;
    Ok(Outcome::Success)
}

fn crash(a: &CrashArgs, settings: &Settings, _: &Env, text: &mut Text<'_, '_>) -> Result<Outcome> {
    let report = crate::crash::crash(&a.target.dir, a.target.partition.as_deref(), &a.into())?;
    text::crashed(text, &report, settings)?;
    Ok(Outcome::Success)
}

fn recover(a: &RecoverArgs, settings: &Settings, front: &mut dyn Front, text: &mut Text<'_, '_>) -> Result<Outcome> {
    if a.cluster.cluster || !a.more.is_empty() {
        return recover_cluster(a, settings, text);
    }
    let req: RecoverRequest<'_> = a.into();
    // The follower's form, read once; where it does not read, the restart itself says why (it
    // reads the leader's dir first when there is one).
    let form = cli::dir_form_of(&a.dir, a.partition.as_deref()).ok();
    if (a.dry_run || a.leader.is_none()) && form.as_ref().is_some_and(cli::Form::is_data_dir) {
        return recover_data_dir(a, &req, settings, text);
    }
    let report = match commands::recover::run(&req) {
        // A one-partition start-up the broker does not survive: the forecast of the whole
        // log dir's start-up says so, and what to do (exit 1).
        Err(e) if a.dry_run && a.leader.is_none() && commands::recover::is_refusal(&e) => {
            return refused_start(a, form.as_ref(), e, settings, text);
        }
        r => r?,
    };
    match (report, a.json) {
        (RecoverReport::Local(r), false) => report::local_text(text, &r, settings)?,
        (RecoverReport::Local(r), true) => report::local_json(text.raw(), &r)?,
        (RecoverReport::Follower(r), false) => {
            report::follower_text(text, &r, settings)?;
            // The leader's records in the picture's window, read again: the report holds the
            // follower's.
            let leader_dir = a.leader.as_deref().unwrap_or(&a.dir);
            let drawing = commands::draw::draw_recovery(r.picture_window(), leader_dir, a.partition.as_deref())?;
            let names = (commands::draw::short_name(leader_dir), commands::draw::short_name(&a.dir));
            let pic = Picture::of_recovery(&r, &names.0, &names.1, &drawing);
            front.recovery_picture(text, &r, &pic, &names, a.explain, settings)?;
            if front.shows_code() {
                front.code(r.explanation());
            }
            report::catch_up_text(text, &r, settings)?;
        }
        (RecoverReport::Follower(r), true) => report::follower_json(text.raw(), &r)?,
    }
    Ok(Outcome::Success)
}

/// `recover` over several brokers' dirs: the cluster view's dry run (each follower planned
/// against its partition's own leader).
fn recover_cluster(a: &RecoverArgs, settings: &Settings, text: &mut Text<'_, '_>) -> Result<Outcome> {
    if !a.dry_run {
        return Err(crate::error::Error::Usage(
            "recover over several brokers' dirs is a dry run only: add --dry-run".into(),
        ));
    }
    // Flags of one partition's restart that the cluster view cannot honour are refused,
    // not ignored (each follower restarts at its partition's own leader epoch).
    let one_partition_only = [
        (a.leader_epoch.is_some(), "--leader-epoch"),
        (a.told_first, "--told-first"),
        (a.explain, "--explain"),
        (a.no_fencing, "--no-fencing"),
        (a.remote_dir.is_some(), "--remote-dir"),
    ];
    if let Some((_, flag)) = one_partition_only.iter().find(|(given, _)| *given) {
        return Err(crate::error::Error::Usage(format!(
            "{flag} is a flag of one restart against --leader, and the cluster view plans every follower \
             against its partition's own leader: name the follower and --leader LEADER --partition NAME"
        )));
    }
    let dirs = std::iter::once(a.dir.clone()).chain(a.more.iter().cloned()).collect();
    let how = (a.rules(), a.metadata.as_deref(), a.cluster.allow_other_cluster);
    cluster(dirs, a.partition.as_deref(), ClusterCommand::Recover, how, a.json, settings, text)
}

/// A one-partition start-up the broker does not survive (`e`): the forecast of the whole log
/// dir's start-up says so, and what to do (exit 1).
fn refused_start(
    a: &RecoverArgs,
    form: Option<&cli::Form>,
    e: crate::error::Error,
    settings: &Settings,
    text: &mut Text<'_, '_>,
) -> Result<Outcome> {
    use commands::recover::StartForecast;
    let log_dir = if form == Some(&cli::Form::Partition) {
        a.dir.parent().map_or_else(|| std::path::PathBuf::from("."), std::path::Path::to_path_buf)
    } else {
        a.dir.clone()
    };
    match commands::recover::forecast_data_dir(&log_dir, &mut *progress(settings, "recover", "partitions")) {
        Ok(StartForecast::Refuses(r)) if a.json => {
            output::data_dir::refusal_json(text.raw(), &r).map(|()| Outcome::Findings)
        }
        Ok(StartForecast::Refuses(r)) => output::data_dir::refusal_text(text, &r, settings).map(|()| Outcome::Findings),
        _ => Err(e),
    }
}

/// `recover` of a whole broker's dir: the restart plan of every partition against a leader's
/// dir, the forecast of the broker's start-up (`--dry-run`), or the start-up itself.
fn recover_data_dir(
    a: &RecoverArgs,
    req: &RecoverRequest<'_>,
    settings: &Settings,
    text: &mut Text<'_, '_>,
) -> Result<Outcome> {
    if a.leader.is_some() {
        if a.explain {
            return Err(crate::error::Error::Usage(format!(
                "--explain shows the truncation procedure of one partition, and {} holds several: add --partition NAME",
                a.dir.display()
            )));
        }
        let plan = data_dir::restart_plan(req, &mut *progress(settings, "recover", "partitions"))?;
        if a.json {
            output::data_dir::plan_json(text.raw(), &plan)?;
        } else {
            output::data_dir::plan_text(text, &plan, settings)?;
        }
        return Ok(Outcome::Success);
    }
    if a.dry_run {
        use commands::recover::StartForecast;
        let forecast = commands::recover::forecast_data_dir(&a.dir, &mut *progress(settings, "recover", "partitions"))?;
        return match (forecast, a.json) {
            (StartForecast::Loads(load), true) => {
                output::data_dir::forecast_json(text.raw(), &load).map(|()| Outcome::Success)
            }
            (StartForecast::Loads(load), false) => {
                output::data_dir::forecast_text(text, &load, settings).map(|()| Outcome::Success)
            }
            // The broker would not start: a finding of the forecast, exit 1.
            (StartForecast::Refuses(r), true) => {
                output::data_dir::refusal_json(text.raw(), &r).map(|()| Outcome::Findings)
            }
            (StartForecast::Refuses(r), false) => {
                output::data_dir::refusal_text(text, &r, settings).map(|()| Outcome::Findings)
            }
        };
    }
    let load =
        commands::recover::recover_data_dir(&a.dir, a.dry_run, &mut *progress(settings, "recover", "partitions"))?;
    if a.json {
        output::data_dir::forecast_json(text.raw(), &load)?;
    } else {
        output::data_dir::forecast_text(text, &load, settings)?;
    }
    Ok(Outcome::Success)
}

fn remote(a: &RemoteArgs, settings: &Settings, _: &Env, text: &mut Text<'_, '_>) -> Result<Outcome> {
    // One cluster's metadata topic describes one cluster's remote storage (or, asked, any dirs').
    let ids: Vec<crate::replica::DirIds> = a.dirs.iter().map(|d| crate::replica::DirIds::read(d)).collect();
    crate::replica::ensure_one_cluster(&ids, a.allow_other_cluster)?;
    let req = commands::remote::RemoteRequest {
        dirs: &a.dirs,
        remote_dir: a.remote_dir.as_deref(),
        what_if: commands::remote_forecast::RetentionWhatIf {
            retention_ms: a.retention_ms,
            retention_bytes: a.retention_bytes,
        },
    };
    let report = commands::remote::run(&req)?;
    if a.json {
        output::remote::json(text.raw(), &report)?;
    } else {
        output::remote::text(text, &report, settings)?;
    }
    Ok(Outcome::findings_if(report.finding_count() > 0))
}

fn restore(a: &RestoreArgs, settings: &Settings, _: &Env, text: &mut Text<'_, '_>) -> Result<Outcome> {
    let report = commands::restore::run(&a.backup, a.log_dir.as_deref())?;
    text::restored(text, &report, settings)?;
    Ok(Outcome::Success)
}

fn draw(a: &DrawArgs, settings: &Settings, _: &Env, text: &mut Text<'_, '_>) -> Result<Outcome> {
    if let Some(path) = &a.svg {
        output_file::check_target("--svg", path, OutputKind::Svg, a.force)?;
    }
    let report = commands::draw::run(&a.into())?;
    for w in &report.warnings {
        eprintln!("klog: warning: {}", crate::escape::text(&w.to_string()));
    }
    let pic = Picture::of_draw(&report);
    picture::write_text(text, &pic, settings)?;
    if let Some(path) = &a.svg {
        output_file::write_all(&[(path, svg::render(&pic, true).as_bytes())])?;
        writeln!(text, "wrote {}", path.display()).at("<stdout>", "write")?;
    }
    Ok(Outcome::Success)
}

fn diff(a: &DiffArgs, settings: &Settings, _: &Env, text: &mut Text<'_, '_>) -> Result<Outcome> {
    let window = commands::diff::OffsetWindow { from: a.from, to: a.to };
    let times = commands::diff::TimeWindow { since: a.since, until: a.until };
    // Both sides' forms, read once; where one does not read, the diff itself says why (in its
    // own order of the two sides).
    let data_dir = |dir: &Path| cli::dir_form_of(dir, a.partition.as_deref()).is_ok_and(|f| f.is_data_dir());
    let several = data_dir(&a.a) && data_dir(&a.b);
    if (window.is_bounded() || times.is_bounded()) && (a.cluster.cluster || !a.more.is_empty() || several) {
        // Offsets number each partition's records: one window fits one partition only.
        return Err(crate::error::Error::Usage(
            "--from/--to/--since/--until bound offsets of one partition, and these dirs hold several: add \
             --partition NAME"
                .into(),
        ));
    }
    if a.cluster.cluster || !a.more.is_empty() {
        let dirs = [a.a.clone(), a.b.clone()].into_iter().chain(a.more.iter().cloned()).collect();
        let how = (cli::rules_of(None), None, a.cluster.allow_other_cluster);
        return cluster(dirs, a.partition.as_deref(), ClusterCommand::Diff, how, a.json, settings, text);
    }
    if several {
        let report = data_dir::diff_data_dirs(&a.a, &a.b, &mut *progress(settings, "diff", "partitions"))?;
        if a.json {
            output::data_dir::diff_json(text.raw(), &report)?;
        } else {
            output::data_dir::diff_text(text, &report, settings)?;
        }
        return Ok(Outcome::findings_if(report.differs()));
    }
    let report = commands::diff::run(&a.a, &a.b, a.partition.as_deref(), window, times)?;
    if a.json {
        report::diff_json(text.raw(), &report)?;
    } else {
        report::diff_text(text, &report, settings)?;
    }
    Ok(Outcome::findings_if(!report.outcome.identical_up_to_shorter()))
}

fn generate(g: &GenerateCommand, _: &Settings, _: &Env, text: &mut Text<'_, '_>) -> Result<Outcome> {
    match g {
        GenerateCommand::Man { dir } => {
            for name in crate::generate::write_man_pages(dir)? {
                writeln!(text.raw(), "{}", dir.join(name).display()).at("<stdout>", "write")?;
            }
        }
        GenerateCommand::Completions { shell } => crate::generate::write_completions(*shell, text.raw())?,
    }
    Ok(Outcome::Success)
}

fn explore(a: &ExploreArgs, settings: &Settings, _: &Env, text: &mut Text<'_, '_>) -> Result<Outcome> {
    let report = commands::explore::run(&a.into())?;
    if a.json {
        output::explore::json(text.raw(), &report)?;
    } else {
        output::explore::text(text, &report, settings, !a.no_timing)?;
    }
    Ok(Outcome::findings_if(report.found_violation()))
}

fn demo(a: &DemoArgs, settings: &Settings, env: &Env, text: &mut Text<'_, '_>) -> Result<Outcome> {
    // Everything is checked before the lab is made; a failure removes the lab (the undo
    // journal removes what the run made, `--dir` included when it made it).
    if let Some(path) = &a.capture {
        output_file::check_target("--capture", path, OutputKind::Html, a.force)?;
    }
    let (root, temp) = a.lab(&env.temp_dir);
    let mut req = a.request(&root)?;
    // A capture asks the questions in its page, with or without `--predict`.
    req.predict |= a.capture.is_some();
    let hint = [
        (!a.step && !a.predict).then_some("  --step     pause after each step (Enter goes on)"),
        (temp && !a.keep).then_some("  --keep     keep the replica dirs (now a temp lab, removed at the end)"),
        (!a.predict && a.capture.is_none()).then_some("  --predict  be asked before each answer is shown"),
    ]
    .into_iter()
    .flatten()
    .collect::<Vec<_>>()
    .join("\n");
    let mut printer =
        crate::output::demo::DemoPrinter::new(text, *settings, root.clone()).plain(a.plain).explain(a.explain);
    if !hint.is_empty() {
        printer = printer.opening_hint(hint);
    }
    if a.predict {
        printer = printer.answers_from(Box::new(io::stdin().lock()), !env.stdin_tty);
    }
    if a.step {
        printer = printer.pauses_from(Box::new(io::stdin().lock()));
    }
    let mut capture = a.capture.as_ref().map(|_| crate::output::capture::Capture::new(root.clone()));
    let result = commands::demo::run(&req, &mut |e| {
        let asked = matches!(e, commands::demo::DemoEvent::Question(_));
        if let Some(c) = capture.as_mut() {
            c.event(e.clone())?;
        }
        printer.event(e)?;
        if let (true, Some(c)) = (asked, capture.as_mut()) {
            c.answered(printer.take_answer());
        }
        Ok(())
    })
    .and_then(|_| printer.finish());
    drop(printer);
    let result = result.and_then(|()| match (&a.capture, &capture) {
        (Some(path), Some(c)) => {
            output_file::write_all(&[(path, c.html().as_bytes())])?;
            writeln!(text, "\nwrote {}", path.display()).at("<stdout>", "write")
        }
        _ => Ok(()),
    });
    if temp && (!a.keep || result.is_err()) {
        let _ = std::fs::remove_dir_all(&root);
    } else if temp {
        writeln!(text, "\nkept {}", root.display()).at("<stdout>", "write")?;
    }
    result?;
    Ok(Outcome::Success)
}

/// `dump --count`: the records (batches with --batches) a full dump would show, counted.
fn dump_count(
    a: &DumpArgs,
    req: &commands::dump::DumpRequest<'_>,
    track: &mut dyn FnMut(&DumpEvent<'_>),
    text: &mut Text<'_, '_>,
) -> Result<Outcome> {
    let mut count = 0u64;
    commands::dump::run(req, &mut |e| {
        track(&e);
        match e {
            DumpEvent::PartitionSummary(_) => return Err(commands::dump_filter::needs_partition(&a.path)),
            DumpEvent::Batch(_) if a.batches => count += 1,
            DumpEvent::Record(..) | DumpEvent::Decoded(..) if !a.batches => count += 1,
            _ => {}
        }
        Ok(())
    })?;
    writeln!(text.raw(), "{count}").at("<stdout>", "write")?;
    Ok(Outcome::Success)
}

fn dump(a: &DumpArgs, settings: &Settings, _: &Env, text: &mut Text<'_, '_>) -> Result<Outcome> {
    let req = a.into();
    // Progress in bytes of the replica's segments, from the batches going by.
    let mut bar = progress(settings, "dump", "bytes");
    let (mut total, mut before, mut segment_end) = (0u64, 0u64, 0u64);
    let mut track = |e: &DumpEvent<'_>| match e {
        DumpEvent::Replica(s) => (total, before, segment_end) = (s.size_bytes, 0, 0),
        DumpEvent::Segment { .. } => (before, segment_end) = (before + segment_end, 0),
        DumpEvent::Batch(b) => {
            segment_end = b.position + b.size_bytes;
            bar.update(before + segment_end, total);
        }
        DumpEvent::Rendered(chunk) => {
            segment_end = chunk.end;
            bar.update(before + segment_end, total);
        }
        _ => {}
    };
    if a.filter.count {
        return dump_count(a, &req, &mut track, text);
    }
    let values = a.filter.value_format.map(Into::into);
    let written = match a.format() {
        DumpFormat::Json => {
            // JSON lines are stateless: batches are rendered on both cores, in chunks.
            let render: &commands::dump::Render =
                &move |e: DumpEvent<'_>, buf: &mut Vec<u8>| json::dump_event_with(buf, e, values);
            let req = commands::dump::DumpRequest { render: Some(render), ..req };
            let out = text.raw();
            commands::dump::run(&req, &mut |e| {
                track(&e);
                json::dump_event_with(out, e, values)
            })
        }
        DumpFormat::Table => {
            let mut t = DumpTable::new(text, *settings, a.batches).with_values(values);
            commands::dump::run(&req, &mut |e| {
                track(&e);
                t.event(e)
            })?;
            t.finish()
        }
        DumpFormat::Kafka => {
            // Batches rendered on both cores too: the state Kafka's tool keeps from record to
            // record (non-consecutive offsets) comes with each chunk.
            let render: &commands::dump::Render =
                &move |e: DumpEvent<'_>, buf: &mut Vec<u8>| crate::output::dump_log::render_with(buf, e, values);
            let req = commands::dump::DumpRequest { render: Some(render), ..req };
            let mut err = io::stderr().lock();
            let mut d = DumpLog::new(text.raw(), &mut err).with_values(values);
            if a.filter.record_filter().selects_records() {
                d = d.without_offset_gaps();
            }
            commands::dump::run(&req, &mut |e| {
                track(&e);
                d.event(e)
            })?;
            d.finish()
        }
    };
    written.map(|()| Outcome::Success)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_dispatcher_refuses_to_start_the_lab_which_main_starts() {
        let env = Env {
            stdout_tty: false,
            stderr_tty: false,
            stdin_tty: false,
            no_color: true,
            truecolor: false,
            columns: None,
            terminal_width: None,
            temp_dir: std::env::temp_dir(),
        };
        let command = Command::Lab(cli::LabArgs { dir: None, port: 0 });
        let settings = cli::settings(&cli::parse_from(["klog", "lab"]).expect("parses"), &env);
        let mut out = Vec::new();
        let err = run(command, &settings, &env, &mut out).expect_err("the dispatcher does not start the lab");
        assert!(err.to_string().contains("a front end, started by `klog lab` itself"), "{err}");
        assert!(out.is_empty());
    }
}
