//! Every subcommand and flag of klog, with its documentation (clap derive), and everything
//! resolved from the command line and the environment before a command runs: the output
//! [`Settings`], the requests the commands take (`From<&Args>`), and the exit code
//! ([`Outcome`]). The doc comments, [`examples`] and [`exit_codes`] here are the one source of
//! `--help`, the man pages and the shell completions. Nothing outside `main.rs` and this module
//! reads the command line or the environment.
//!
//! Kept as ripgrep keeps its flags: here the top (the global flags, the subcommands, parsing,
//! the settings and the exit code); the definitions per command family beside it
//! (`write_args`, `replication_args`, `read_args`, `tier_args`, `scene_args`), their value
//! parsers (`values`) and the help's tail (`help`).

use crate::commands;
use crate::error::{Error, Result};
use crate::output::{fit, Settings};
use crate::replication::release::Rules;
use crate::replication::truncation::TruncationMode;
use clap::{Args, CommandFactory, FromArgMatches, Parser, Subcommand, ValueEnum};
use std::path::{Path, PathBuf};

mod help;
mod read_args;
mod replication_args;
mod scene_args;
mod tier_args;
mod values;
mod write_args;

pub use crate::replica::form::{dir_form_of, form_of, Form};
pub use help::*;
pub use read_args::*;
pub use replication_args::*;
pub use scene_args::*;
pub use tier_args::*;
pub use values::*;
use values::{I32_MAX, I64_MAX, MAX_CONTEXT, MAX_ROUNDS};
pub use write_args::*;

/// A laboratory for Kafka replica logs: build, replicate, crash and truncate byte-compatible
/// Kafka log dirs, and see record by record what each Kafka era kept and lost.
#[derive(Debug, Parser)]
#[command(name = "klog", version, propagate_version = true, max_term_width = HELP_WIDTH)]
pub struct Cli {
    /// When to colour output: auto (only on a terminal, and not when NO_COLOR is set),
    /// always, never.
    #[arg(long, global = true, value_enum, default_value_t = ColorChoice::Auto, value_name = "WHEN")]
    pub color: ColorChoice,

    /// Let a command write into a log dir klog did not make (a broker's: no klog-state.json),
    /// saving every file it changes first in DIR.klog-backup-N (see `klog restore`).
    #[arg(long, global = true)]
    pub allow_broker_dir_writes: bool,

    /// Lay text and tables out to N columns (0: no limit, each table row on one line).
    ///
    /// Default: the terminal's width, or `$COLUMNS` when set. Off a terminal (a pipe into
    /// `less` or `head`, a file) tables are laid out to 80 columns, so that a pager never breaks
    /// their rows into pieces, and other lines are left whole (they grep whole). JSON and
    /// `--format kafka` lines are never wrapped.
    #[arg(long, global = true, value_name = "N")]
    pub width: Option<usize>,

    #[command(subcommand)]
    pub command: Command,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ColorChoice {
    Auto,
    Always,
    Never,
}

/// The log dir (or partition dir) a command works on, and which partition in it.
#[derive(Debug, Args)]
pub struct Target {
    /// A Kafka log dir holding one partition, or a partition dir (`<topic>-<partition>`).
    #[arg(value_name = "DIR")]
    pub dir: PathBuf,
    /// The partition dir to use when the log dir holds several (e.g. `orders-3`).
    #[arg(long, value_name = "NAME")]
    pub partition: Option<String>,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Create an empty replica dir: a Kafka log dir holding one partition.
    ///
    /// Writes `meta.properties`, the partition dir with an empty first segment,
    /// `partition.metadata` (the topic id is derived from the topic name, so replicas created
    /// separately agree) and empty checkpoints. Refuses a DIR that exists and is not empty.
    Create(CreateArgs),
    /// Make a replica the leader at a new leader epoch.
    ///
    /// As Kafka >= 2.0.1 (KAFKA-7415) the new leader assigns (epoch, LEO) in its epoch cache at
    /// once; `--epoch-entry first-append` reproduces Kafka 0.11-2.0.0, where the entry appears
    /// with the first append. ISR members other than the leader hold the high watermark where it
    /// is until they fetch.
    Elect(ElectArgs),
    /// Change a running leader's ISR without a new epoch (AlterPartition).
    ///
    /// Kafka's leader shrinks its ISR when a follower falls behind for replica.lag.time.max.ms
    /// and expands it when one catches up; the controller records the change (on Kafka 4.x,
    /// filling or clearing Eligible Leader Replicas), and the leader recomputes its HW over the
    /// new ISR. `klog explore` emits this for Kafka 4.x histories.
    AlterIsr(AlterIsrArgs),
    /// Append records as one producer request to a leader (acks=all).
    ///
    /// Each batch is stamped with the leader's current epoch; segments roll at segment.bytes;
    /// offset and time indexes are kept sparse as Kafka does. Data is written but not fsynced
    /// unless `--flush` is given (Kafka's default). Prints the offsets written.
    Append(AppendArgs),
    /// Show a replica's batches and records, its epoch cache, or any single Kafka file.
    ///
    /// Accepts a log dir, a partition dir, or one file: `.log`, `.index` and `.timeindex` (each
    /// entry checked against the `.log` beside it), `.txnindex`, a producer `.snapshot`, a KRaft
    /// snapshot `.checkpoint`, or a checkpoint. A log dir holding several partitions, named
    /// without --partition, gives one overview row per partition (segments, bytes, LEO, HW,
    /// recovery point, latest epoch, clean-shutdown marker). Compressed (gzip, snappy, lz4, zstd)
    /// and legacy v0/v1 batches are decoded; control records are shown by name. `--format kafka`
    /// prints the lines of `kafka-dump-log.sh --deep-iteration --print-data-log`. Never writes.
    /// Colour only on a terminal.
    Dump(DumpArgs),
    /// Who led each partition, at which leader epoch, with which ISR and ELR, and when that
    /// changed: replayed from a KRaft metadata log.
    ///
    /// Reads `__cluster_metadata-0` (its latest snapshot, then its log) as Kafka's
    /// `PartitionRegistration.merge` replays it: one line per PartitionRecord, PartitionChangeRecord,
    /// ClearElrRecord or RemoveTopicRecord, with the metadata offset and timestamp and what
    /// changed. With --replica, each replica's epoch cache and batch stamps are set beside it:
    /// epochs it holds that the controller never granted, epochs it led beyond its cache's latest.
    /// Never writes.
    History(HistoryArgs),
    /// Verify a replica the way Kafka's loader and kafka-dump-log do.
    ///
    /// Checks batch CRCs and sizes, trailing partial bytes, record framing, offsets
    /// increasing, index entries pointing at the batch whose last offset they name, time index
    /// order and timestamps, the epoch cache against the batch stamps, and HW <= LEO. Exit 0
    /// clean, 1 findings, 2 error. Never writes.
    Check(CheckArgs),
    /// What holds a partition's last stable offset (LSO): its open transactions.
    ///
    /// Replays the log's batches as Kafka's producer-state code does and forecasts the load a
    /// broker would run on the dir (which producer snapshot it starts from). Shows the LSO (the
    /// first offset of the earliest open transaction, bounded by the HW) and how many offsets
    /// read_committed consumers cannot see, each open transaction (producer id and epoch,
    /// offsets, batches, timestamps) with the kafka-transactions.sh abort line for it, the
    /// aborted transactions, and findings: a producer snapshot that disagrees with the log (an
    /// open transaction only the snapshot holds is the snapshot-only hang), `.txnindex` entries
    /// missing, extra or wrong against the ABORT markers, a batch where Kafka's rebuild throws.
    /// On a log dir holding several partitions (a broker's data dir) and no --partition: one row
    /// per partition that holds consumers back, has findings or does not read, on both cores.
    /// Several brokers' data dirs are read together: the `__transaction_state` partitions among
    /// them (each from its furthest-along replica) tell, by find-hanging's rule, whether the
    /// coordinator still expects each open transaction. `--format kafka` prints the tables
    /// kafka-transactions.sh prints (describe-producers, find-hanging). Exit 0 clean,
    /// 1 findings, 2 error. Never writes.
    Txn(TxnArgs),
    /// Follower fetch rounds from a leader, with the high-watermark piggyback lag.
    ///
    /// Each round: the leader reads its HW, records the follower's fetch offset and recomputes
    /// its HW over the ISR, returns whole batches from the one holding the fetch offset plus the
    /// HW it read first; the follower appends the bytes unchanged and sets its HW to
    /// min(returned HW, own LEO). One line per round shows the one-round-trip lag. From Kafka
    /// 2.8 (the default; see --mode, --kafka) the follower also sends its latest epoch, and the
    /// leader first answers a diverging epoch or OFFSET_OUT_OF_RANGE where it must: nothing is
    /// read or recorded, and the follower truncates on the answer. In a tiered lab (`create
    /// --remote-dir`) the follower's `__remote_log_metadata-0` first gets the leader's records,
    /// and a follower below the leader's local log start is answered
    /// OFFSET_MOVED_TO_TIERED_STORAGE and rebuilds from remote storage before the rounds
    /// (Kafka 3.6+). Exit 1 when the fetch is stuck (a returned batch starts below the
    /// follower's log end, or an OFFSET_OUT_OF_RANGE leaves nothing to cut).
    Fetch(FetchArgs),
    /// fsync a replica's log and move its recovery point to the log end.
    Flush(Target),
    /// Shut a replica down cleanly: flush, write the checkpoints and `.kafka_cleanshutdown`.
    Stop(Target),
    /// Stop a replica uncleanly, optionally with damage: power loss, torn write, bit flip,
    /// stale high watermark, lost files.
    ///
    /// The volatile state (role, ISR, fetch offsets) is lost and no clean-shutdown marker is
    /// left, so the next mutating command runs local recovery first. Prints exactly what was
    /// damaged.
    Crash(CrashArgs),
    /// Local recovery of a replica, or (with --leader) restart it as a follower and truncate
    /// it the way a Kafka era did, with a record-by-record report.
    ///
    /// Without --leader: what a broker does at start-up after an unclean stop (scan from the
    /// recovery point, cut at the first invalid batch, rebuild indexes and epochs). With
    /// --leader L: local recovery, fencing (refuse if L is not a leader or its epoch is below one
    /// the follower has seen), truncation by --mode, then the report: each OffsetsForLeaderEpoch
    /// round trip and every record around the cut as kept / truncated-refetchable /
    /// truncated-lost / ACKED LOST / DIVERGED, then a picture of the follower before and after
    /// the cut (see `klog draw`). `--explain` adds the mode's truncation procedure with the
    /// lines that ran marked. The leader dir is never modified.
    Recover(RecoverArgs),
    /// Put back a log dir as it was before a command written with --allow-broker-dir-writes.
    ///
    /// BACKUP is the `DIR.klog-backup-N` that command named; the dir restored is the one beside
    /// it (or LOG_DIR), never a path read from the backup. The whole backup is verified first
    /// (a checksum on every manifest line, the length and checksum of every saved blob): a
    /// damaged one is refused with nothing written. Then every file the command changed gets
    /// its bytes and length back, renames are undone, and every file or dir it created is
    /// removed (klog-state.json, rebuilt indexes); the `.lock` stays, as a broker leaves it.
    /// Undo several commands newest backup first. Refuses while another process (a broker)
    /// holds the dir's lock, and refuses a dir klog made. The backup is kept.
    Restore(RestoreArgs),
    /// Compare two replicas offset by offset (epoch, timestamp, key, value, headers).
    ///
    /// Prints the ranges where they agree, differ, or only one side has records, the first
    /// divergent offset and each side's HW. Exit 0 identical up to the shorter log end, 1
    /// diverged. Never writes.
    Diff(DiffArgs),
    /// Read tiered storage (KIP-405): each partition's remote segments.
    ///
    /// Reads the `__remote_log_metadata` partitions the data dirs hold (each from the dir whose
    /// copy reaches the highest log end offset), decodes every record by name from Kafka 4.4's
    /// schemas and folds them per partition as Kafka's RemoteLogMetadataCache does. Prints each
    /// tiered partition's log start (log-start-offset-checkpoint: across both tiers) and local
    /// log start (its first local segment) in each dir, and its remote segment table: id,
    /// offsets, leader epochs, state, broker, size, times. `--remote-dir` sets Kafka's
    /// LocalTieredStorage dir against the table. Then, for every broker whose dir is given,
    /// what it does if it leads, by Kafka 4.4's RemoteLogManager: the remote segments it serves
    /// and deletes (leader-epoch-cache truncation, log-start breach, retention.ms) and the
    /// earliest offset after; what a consumer reads from each offset of the current leader (the
    /// KRaft metadata's); with `--remote-dir`, the records of remote segments no broker serves.
    /// Exit 1 when the cache rejects an event, a record does not decode, or the remote files
    /// disagree with the metadata (forecasts are not findings). Never writes.
    Remote(RemoteArgs),
    /// A tiered lab's remote tier (KIP-405): the leader's copy task and local retention.
    ///
    /// On a lab made with `klog create DIR --remote-dir R`: `copy` runs a leader's copy task
    /// once, as Kafka 4.4's RemoteLogManager does (segments below the last stable offset, never
    /// the active one, to R with their metadata records in `__remote_log_metadata-0`); `retain`
    /// deletes local segments as UnifiedLog's retention does for a log with remote storage:
    /// only those whose offsets lie at or below the highest offset in remote storage. A follower
    /// below the leader's local log start rebuilds from R in `klog fetch`.
    #[command(subcommand)]
    Tier(TierCommand),
    /// Draw replicas as rows of cells aligned by offset, RaftScope-style.
    ///
    /// Each cell shows a record's leader epoch (its number always; a colour per epoch from the
    /// Okabe-Ito palette on a colour terminal) and its value; `│` starts a batch and `┆` joins
    /// records of one batch. Under each row, arrows mark log start, HW, recovery point and LEO
    /// (each mark sits before the offset it names); `✗` marks offsets where the replicas hold
    /// different records. Long logs are windowed around the first divergence (else the lowest
    /// HW), with `…` for what is left out. `--svg FILE` writes the same picture as a
    /// self-contained SVG. Never writes to the replicas.
    Draw(DrawArgs),
    /// Run a built-in scenario on temp dirs, narrating each step as the command you would type.
    ///
    /// Scenarios (each set up without its outcome, which `--predict` asks you first): watch (a
    /// follower restarts, then the leader fails), kip101-1 (KIP-101 scenario 1: a follower
    /// restarts and becomes the leader), kip101-2 (KIP-101 scenario 2: two hard failures, then
    /// a new leader), kip279 (fast leader failover), stuck-lso (a transaction holds the last
    /// stable offset), tiers (the Watch continued across a remote tier). With no scenario: kip101-1 under hw and under kip101, then the contrast.
    /// Each step shows the replicas' picture (`klog draw`; `--plain` for one line each); the
    /// demo ends with what each mode kept, lost and left diverged. `--predict` makes it a quiz;
    /// `--capture FILE.html` writes it as a filmstrip to share.
    Demo(DemoArgs),
    /// Search every history of klog commands within bounds for the shortest one that loses an
    /// acked record or leaves two replicas diverged below their HWs, and emit it as a script.
    ///
    /// The search runs klog's own replication rules in memory (the same code the commands run),
    /// breadth first, so the first counterexample is a shortest one; equivalent states (records
    /// renamed, replicas swapped) are explored once. Actions: elect (a new epoch; a live ISR
    /// member, any live replica with --unclean), append one record (acks=all), one fetch round,
    /// crash (--power-loss: also the variant that drops unflushed bytes, and flush), recover (a
    /// restart) and recover --leader (restart as a follower, truncating by the mode). The
    /// explorer plays the controller: epochs come from one counter; a restarted replica is told
    /// the latest leader; a running one is told leader changes in order, late or never. Checked
    /// after every action: no acked record missing from a later leader's log, no two replicas
    /// holding different records below both HWs. Prints a table per mode (states, transitions,
    /// violations, shortest counterexample, seconds, states per second) and each counterexample
    /// narrated step by step; --script writes it as a runnable bash script ending with the
    /// recover report that shows the violation. Exit 0 when no violation was found within the
    /// bounds, 1 when one was.
    Explore(ExploreArgs),
    /// Serve a page on 127.0.0.1 where you act on real replica dirs by clicking, and see the
    /// picture and the code that ran after each action.
    ///
    /// Append, one fetch round, crash (clean or power loss), restart, flush, elect (the next
    /// epoch, with an ISR) and recover a follower (hw, kip101 or kip279): each click runs one
    /// klog command on replicas a, b (and c) in the lab dir, and the page shows the replicas'
    /// picture (`klog draw`), the code panel of the procedure that ran and klog's output. Go back
    /// to any frame and act there to fork (the steps before are replayed into a fresh dir); ask
    /// the explorer for the shortest way to lose an acknowledged write from the current state
    /// and replay its answer by one click; copy the history as a klog script. A Watch preset
    /// builds the Watch's scene and stops where the follower's HW lags; a Stuck-LSO preset plays
    /// `klog demo stuck-lso` up to the stuck LSO and offers the admin abort and the producer's
    /// commit or abort, each frame saying what holds the LSO; "this frame under hw |
    /// kip101 | kip279" replays the history under each era side by side; "quiz me" asks before
    /// each click's result is shown. Prints the URL (with a per-run token every request
    /// needs) and opens nothing; listens on 127.0.0.1 only. Ctrl-C stops it; the lab dir stays.
    Lab(LabArgs),
    /// Write the man pages or a shell completion script (for packagers and shells).
    #[command(subcommand)]
    Generate(GenerateCommand),
}

/// The clap command with every subcommand's help ending in its examples and exit codes.
pub fn command() -> clap::Command {
    let mut cmd = Cli::command().after_help(help_tail("klog"));
    let names: Vec<String> =
        cmd.get_subcommands().filter(|s| !s.is_hide_set()).map(|s| s.get_name().to_string()).collect();
    for name in names {
        let tail = help_tail(&name);
        cmd = cmd.mut_subcommand(&name, |s| s.after_help(tail));
    }
    cmd
}

/// The `--color` of a command line not yet parsed, for clap's own output (help, errors).
fn help_color(args: &[std::ffi::OsString]) -> clap::ColorChoice {
    let mut choice = clap::ColorChoice::Auto;
    let mut words = args.iter().skip(1).map(|a| a.to_string_lossy());
    while let Some(word) = words.next() {
        if word == "--" {
            break;
        }
        let value = match word.strip_prefix("--color") {
            Some("") => words.next().map(|v| v.into_owned()),
            Some(rest) => rest.strip_prefix('=').map(str::to_string),
            None => None,
        };
        match value.as_deref() {
            Some("always") => choice = clap::ColorChoice::Always,
            Some("never") => choice = clap::ColorChoice::Never,
            Some(_) => choice = clap::ColorChoice::Auto,
            None => {}
        }
    }
    choice
}

/// Parse a command line (the first item is the program name).
pub fn parse_from<I, T>(args: I) -> std::result::Result<Cli, clap::Error>
where
    I: IntoIterator<Item = T>,
    T: Into<std::ffi::OsString> + Clone,
{
    parse_to_width(args, None)
}

/// [`parse_from`], with help and clap's errors laid out to the width `env` gives (`COLUMNS`,
/// else the terminal's, at most 100 columns; 100 off a terminal): clap on its own reads
/// `COLUMNS=0` as zero columns, one word a line.
pub fn parse_in<I, T>(args: I, env: &Env) -> std::result::Result<Cli, clap::Error>
where
    I: IntoIterator<Item = T>,
    T: Into<std::ffi::OsString> + Clone,
{
    let width = env.columns.or(env.terminal_width.filter(|w| *w > 0 && env.stdout_tty));
    parse_to_width(args, Some(width.unwrap_or(HELP_WIDTH).clamp(fit::MIN_WIDTH, HELP_WIDTH)))
}

/// The widest help is laid out.
const HELP_WIDTH: usize = 100;

fn parse_to_width<I, T>(args: I, width: Option<usize>) -> std::result::Result<Cli, clap::Error>
where
    I: IntoIterator<Item = T>,
    T: Into<std::ffi::OsString> + Clone,
{
    let args: Vec<std::ffi::OsString> = args.into_iter().map(Into::into).collect();
    // clap's own help and errors follow `--color` too (it has to be known before parsing).
    let mut cmd = command().color(help_color(&args));
    if let Some(w) = width {
        cmd = cmd.term_width(w);
    }
    let matches = cmd.try_get_matches_from_mut(args)?;
    Cli::from_arg_matches(&matches).map_err(|e| e.format(&mut cmd))
}

// ---- The environment, read once, and the settings resolved from it. ----

/// What klog takes from its environment, read once in `main`.
#[derive(Debug, Clone)]
pub struct Env {
    pub stdout_tty: bool,
    pub stderr_tty: bool,
    /// Whether stdin is a terminal (`demo --predict` echoes answers read from a file or pipe).
    pub stdin_tty: bool,
    /// `NO_COLOR` set to anything but the empty string (no-color.org).
    pub no_color: bool,
    /// `COLORTERM` says the terminal takes 24-bit colour (`truecolor` or `24bit`).
    pub truecolor: bool,
    /// `COLUMNS`, when set to a positive number: the width to lay text out to, terminal or not.
    pub columns: Option<usize>,
    /// The width the terminal on stdout reports (0 under some, e.g. `script`).
    pub terminal_width: Option<usize>,
    /// Where `demo` makes its lab when not given `--dir`.
    pub temp_dir: PathBuf,
}

impl Env {
    pub fn read() -> Env {
        use std::io::IsTerminal;
        let stdout_tty = std::io::stdout().is_terminal();
        Env {
            stdout_tty,
            stderr_tty: std::io::stderr().is_terminal(),
            stdin_tty: std::io::stdin().is_terminal(),
            no_color: std::env::var_os("NO_COLOR").is_some_and(|v| !v.is_empty()),
            truecolor: std::env::var("COLORTERM").is_ok_and(|v| matches!(v.trim(), "truecolor" | "24bit")),
            columns: std::env::var("COLUMNS").ok().and_then(|c| c.trim().parse().ok()).filter(|c| *c > 0),
            // comfy-table asks the terminal (TIOCGWINSZ) only when stdout is one.
            terminal_width: if stdout_tty { comfy_table::Table::new().width().map(usize::from) } else { None },
            temp_dir: std::env::temp_dir(),
        }
    }
}

/// Colour, width and progress for this run.
pub fn settings(cli: &Cli, env: &Env) -> Settings {
    let color = match cli.color {
        ColorChoice::Always => true,
        ColorChoice::Never => false,
        ColorChoice::Auto => env.stdout_tty && !env.no_color,
    };
    let width = match (cli.width, env.columns, env.stdout_tty) {
        (Some(0), _, _) => None,
        (Some(w), _, _) | (None, Some(w), _) => Some(w),
        (None, None, true) => Some(env.terminal_width.filter(|w| *w > 0).unwrap_or(fit::FALLBACK_WIDTH)),
        // Into a pipe or a file, prose lines stay whole (they grep whole) ...
        (None, None, false) => None,
    }
    .map(|w| w.max(fit::MIN_WIDTH));
    // ... and tables take a width a pager shows without breaking their rows.
    let table_width = if cli.width == Some(0) { None } else { width.or(Some(fit::FALLBACK_WIDTH)) };
    // Progress goes to stderr only when stderr is a terminal that is not also showing stdout's
    // stream of results (a dump to the terminal is its own progress).
    let progress = env.stderr_tty && !(env.stdout_tty && matches!(cli.command, Command::Dump(_)));
    Settings { color, width, table_width, progress, truecolor: env.truecolor }
}

/// The width an error line is wrapped to: on a terminal (stderr), `--width` (0: none), else
/// `COLUMNS`, else the terminal's own width; into a pipe or a file, none: an error stays one
/// line for scripts and logs to grep.
pub fn error_width(cli: &Cli, env: &Env, stderr_terminal_width: Option<usize>) -> Option<usize> {
    if !env.stderr_tty {
        return None;
    }
    match (cli.width, env.columns) {
        (Some(0), _) => None,
        (Some(w), _) | (None, Some(w)) => Some(w),
        (None, None) => Some(stderr_terminal_width.filter(|w| *w > 0).unwrap_or(fit::FALLBACK_WIDTH)),
    }
    .map(|w| w.max(fit::MIN_WIDTH))
}

// ---- Outcome and exit codes. ----

/// How a command that ran to the end came out.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outcome {
    /// Exit 0.
    Success,
    /// Exit 1: the command ran and found what it looks for (findings in `check`, divergence in
    /// `diff`, a stuck `fetch`).
    Findings,
}

impl Outcome {
    pub fn findings_if(found: bool) -> Outcome {
        if found {
            Outcome::Findings
        } else {
            Outcome::Success
        }
    }
}

/// The process exit code of a run: 0 success (a broken pipe counts as success: the reader
/// had enough), 1 findings, 2 error.
pub fn exit_code(result: &Result<Outcome>) -> u8 {
    match result {
        Ok(Outcome::Success) => 0,
        Ok(Outcome::Findings) => 1,
        Err(e) if e.is_broken_pipe() => 0,
        Err(e) => u8::try_from(e.exit_code()).unwrap_or(2),
    }
}

/// A refusal of clap's on one line, in klog's form (`main` puts `klog: error: ` before it):
/// what is wrong, the possible values and clap's tip if it has them, and where to read more.
pub fn clap_error_line(e: &clap::Error) -> String {
    let text = echoed_args_escaped(e).unwrap_or_else(|| e.render().to_string());
    let mut parts: Vec<String> = Vec::new();
    if e.kind() == clap::error::ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand {
        // Bare `klog` or `klog generate`: clap prints the help; one line says what is missing.
        let usage = text.lines().find_map(|l| l.trim().strip_prefix("Usage: ")).unwrap_or("klog <COMMAND>");
        let command = usage.split(" [").next().unwrap_or("klog").split(" <").next().unwrap_or("klog");
        return format!("{command} needs a command; usage: {usage}; see `{command} --help`");
    }
    for line in text.lines().map(str::trim).filter(|l| !l.is_empty()) {
        if let Some(what) = line.strip_prefix("error: ") {
            parts.push(what.to_string());
        } else if let Some(last) =
            parts.last_mut().filter(|l| l.contains("provided:") && (line.starts_with('<') || line.starts_with("--")))
        {
            // The arguments a `…were not provided:` line lists.
            last.push_str(if last.ends_with(':') { " " } else { ", " });
            last.push_str(line);
        } else if line.starts_with("tip:") || line.starts_with("[possible values") {
            parts.push(line.to_string());
        } else if let Some(usage) = line.strip_prefix("Usage: ") {
            parts.push(format!("usage: {usage}"));
        }
    }
    // `klog fetch d3 d2`: a second dir where the leader was meant; clap only sees an extra one.
    if e.kind() == clap::error::ErrorKind::UnknownArgument {
        let extra = e.get(clap::error::ContextKind::InvalidArg).map(|v| v.to_string()).unwrap_or_default();
        let usage = text.lines().find_map(|l| l.trim().strip_prefix("Usage: ")).unwrap_or("");
        if !extra.starts_with('-') && usage.contains("] --leader <") {
            let command = usage.split(" [").next().unwrap_or("klog");
            parts.insert(
                1,
                format!("{command} takes one dir besides the leader's, which --leader names (is --leader missing?)"),
            );
        }
    }
    parts.join("; ")
}

/// `e` rendered with the argument or value it echoes escaped and shortened by the one rule
/// ([`crate::escape::shortened`]), or `None` when they need neither: clap would print them
/// raw (its one-line form ended at a newline inside a value: `--topic=$'a\nb'` read
/// `invalid value 'a`).
fn echoed_args_escaped(e: &clap::Error) -> Option<String> {
    use clap::error::{ContextKind, ContextValue};
    let echoed = |kind| matches!(kind, ContextKind::InvalidValue | ContextKind::InvalidArg);
    let changes = e.context().any(
        |(kind, value)| matches!(value, ContextValue::String(v) if echoed(kind) && crate::escape::shortened(v).0 != *v),
    );
    if !changes {
        return None;
    }
    // clap's error is not `Clone`: the same kind and context, the values escaped, and the
    // value parser's reason (its source) put back after the first line.
    let mut escaped = clap::Error::new(e.kind());
    for (kind, value) in e.context() {
        let value = match value {
            ContextValue::String(v) if echoed(kind) => {
                let (shown, cut) = crate::escape::shortened(v);
                ContextValue::String(match cut {
                    None => shown,
                    Some(count) => format!("{shown} ({count} characters)"),
                })
            }
            other => other.clone(),
        };
        escaped.insert(kind, value);
    }
    let text = escaped.render().to_string();
    Some(match std::error::Error::source(e) {
        Some(why) => text.replacen('\n', &format!(": {why}\n"), 1),
        None => text,
    })
}

/// The exit code of a command line clap refused (2), or of `--help`/`--version` (0).
pub fn clap_exit_code(e: &clap::Error) -> u8 {
    if e.use_stderr() {
        2
    } else {
        0
    }
}

// ---- Requests: the arguments as the commands take them. ----

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn long_examples_become_shell_lines_that_still_run() {
        assert_eq!(example_lines("klog demo", 78), vec!["klog demo"]);
        let lines =
            example_lines("klog create /tmp/b --replica-id 2 && klog elect /tmp/b && klog append /tmp/b m1 m2", 60);
        assert_eq!(
            lines,
            vec!["klog create /tmp/b --replica-id 2 && klog elect /tmp/b &&", "  klog append /tmp/b m1 m2"]
        );
        let lines =
            example_lines("klog explore --mode kip279 --replicas 3 --max-epochs 4 --max-records 2 --max-depth 30", 50);
        assert!(lines.iter().all(|l| l.chars().count() <= 50), "{lines:?}");
        assert!(lines[..lines.len() - 1].iter().all(|l| l.ends_with(" \\")), "{lines:?}");
        let joined: String = lines.iter().map(|l| l.trim_end_matches(" \\").trim()).collect::<Vec<_>>().join(" ");
        assert_eq!(joined, "klog explore --mode kip279 --replicas 3 --max-epochs 4 --max-records 2 --max-depth 30");
    }

    #[test]
    fn cli_definition_is_consistent() {
        command().debug_assert();
    }

    fn env(stdout_tty: bool) -> Env {
        Env {
            stdout_tty,
            stderr_tty: stdout_tty,
            stdin_tty: false,
            no_color: false,
            truecolor: false,
            columns: None,
            terminal_width: None,
            temp_dir: PathBuf::from("/tmp"),
        }
    }

    fn cli(args: &[&str]) -> Cli {
        parse_from(std::iter::once("klog").chain(args.iter().copied())).expect("parses")
    }

    #[test]
    fn colour_follows_the_terminal_no_color_and_the_flag() {
        let c = cli(&["check", "x"]);
        assert!(settings(&c, &env(true)).color);
        assert!(!settings(&c, &env(false)).color);
        assert!(!settings(&c, &Env { no_color: true, ..env(true) }).color);
        assert!(settings(&cli(&["--color", "always", "check", "x"]), &env(false)).color);
        assert!(!settings(&cli(&["check", "x", "--color", "never"]), &env(true)).color);
        // 24-bit colour only when COLORTERM says the terminal takes it.
        assert!(!settings(&c, &env(true)).truecolor);
        assert!(settings(&c, &Env { truecolor: true, ..env(true) }).truecolor);
    }

    #[test]
    fn an_error_is_wrapped_on_a_terminal_only_and_stays_one_line_into_a_pipe() {
        let c = cli(&["check", "x"]);
        let piped = Env { stderr_tty: false, columns: Some(100), ..env(true) };
        assert_eq!(error_width(&c, &piped, Some(120)), None, "COLUMNS does not wrap a piped error");
        assert_eq!(error_width(&c, &env(true), Some(120)), Some(120));
        assert_eq!(error_width(&c, &env(true), None), Some(fit::FALLBACK_WIDTH));
        assert_eq!(error_width(&c, &Env { columns: Some(90), ..env(true) }, Some(120)), Some(90));
        assert_eq!(error_width(&cli(&["--width", "70", "check", "x"]), &env(true), Some(120)), Some(70));
        assert_eq!(error_width(&cli(&["--width", "0", "check", "x"]), &env(true), Some(120)), None);
        assert_eq!(error_width(&c, &env(true), Some(12)), Some(fit::MIN_WIDTH));
    }

    #[test]
    fn width_is_the_flags_else_columns_else_the_terminals_else_80_off_a_terminal() {
        let c = cli(&["check", "x"]);
        assert_eq!(settings(&c, &Env { terminal_width: Some(110), ..env(true) }).width, Some(110));
        assert_eq!(settings(&c, &Env { terminal_width: Some(0), ..env(true) }).width, Some(fit::FALLBACK_WIDTH));
        assert_eq!(settings(&c, &Env { terminal_width: None, ..env(true) }).width, Some(fit::FALLBACK_WIDTH));
        assert_eq!(settings(&c, &Env { terminal_width: Some(10), ..env(true) }).width, Some(fit::MIN_WIDTH));
        // Into a pipe: prose unwrapped, tables at 80.
        assert_eq!(settings(&c, &env(false)).width, None);
        assert_eq!(settings(&c, &env(false)).table_width, Some(fit::FALLBACK_WIDTH), "a piped table gets 80");
        assert_eq!(settings(&c, &Env { columns: Some(72), ..env(false) }).table_width, Some(72));
        assert_eq!(settings(&c, &Env { columns: Some(72), ..env(false) }).width, Some(72));
        // --width wins over both; 0 lays nothing out to a width.
        let wide = cli(&["--width", "132", "check", "x"]);
        assert_eq!(settings(&wide, &Env { columns: Some(72), ..env(true) }).width, Some(132));
        assert_eq!(settings(&cli(&["check", "x", "--width", "0"]), &env(false)).width, None);
        assert_eq!(settings(&cli(&["check", "x", "--width", "0"]), &env(false)).table_width, None);
    }

    #[test]
    fn progress_only_on_a_terminal_stderr_and_not_for_a_dump_to_the_terminal() {
        assert!(settings(&cli(&["check", "x"]), &env(true)).progress);
        assert!(!settings(&cli(&["dump", "x"]), &env(true)).progress);
        assert!(settings(&cli(&["dump", "x"]), &Env { stdout_tty: false, ..env(true) }).progress);
        assert!(!settings(&cli(&["check", "x"]), &env(false)).progress);
    }

    #[test]
    fn exit_codes_are_0_success_1_findings_2_error_and_0_for_a_broken_pipe() {
        assert_eq!(exit_code(&Ok(Outcome::Success)), 0);
        assert_eq!(exit_code(&Ok(Outcome::Findings)), 1);
        assert_eq!(exit_code(&Err(Error::Usage("bad".into()))), 2);
        let pipe = std::io::Error::from(std::io::ErrorKind::BrokenPipe);
        let broken: Result<Outcome> = Err(Error::Io { path: "<stdout>".into(), action: "write", source: pipe });
        assert_eq!(exit_code(&broken), 0);
        assert_eq!(Outcome::findings_if(true), Outcome::Findings);
        assert_eq!(Outcome::findings_if(false), Outcome::Success);
        let help = parse_from(["klog", "--help"]).unwrap_err();
        assert_eq!(clap_exit_code(&help), 0);
        let bad = parse_from(["klog", "frobnicate"]).unwrap_err();
        assert_eq!(clap_exit_code(&bad), 2);
    }

    #[test]
    fn numbers_out_of_kafkas_range_are_refused_with_the_limit_named() {
        let err =
            |args: &[&str]| parse_from(std::iter::once("klog").chain(args.iter().copied())).unwrap_err().to_string();
        assert!(err(&["fetch", "--leader", "a", "b", "--rounds", "0"]).contains("between 1 and 1000000"));
        assert!(err(&["elect", "a", "--epoch", "-1"]).contains("between 0 and 2147483647"));
        assert!(err(&["append", "a", "--count", "1", "--value-size", "3000000000"]).contains("i32"));
        assert!(err(&["dump", "a", "--from", "x"]).contains("not a whole number"));
        assert!(err(&["dump", "a", "--limit", "1.5"]).contains("not a whole number"));
        assert!(err(&["dump", "a", "--limit", &"9".repeat(50)]).contains("must be between 0 and"));
        assert!(err(&["create", "a", "--topic", "a/b"]).contains("not allowed in a topic name"));
        assert!(matches!(cli(&["fetch", "--leader", "a", "b", "--rounds", "1000000"]).command, Command::Fetch(_)));
    }

    #[test]
    fn every_visible_subcommand_has_examples_and_exit_codes_in_its_help() {
        let cmd = command();
        for sub in cmd.get_subcommands().filter(|s| !s.is_hide_set()) {
            let n = examples(sub.get_name()).len();
            assert!((2..=3).contains(&n), "{}: {n} examples", sub.get_name());
            let help = sub.get_after_help().expect("after help").to_string();
            for line in help.lines() {
                assert!(line.chars().count() <= 2 + EXAMPLE_COLUMNS, "{line}");
            }
            assert!(help.contains("Examples:") && help.contains("Exit codes:"), "{help}");
        }
    }
}
