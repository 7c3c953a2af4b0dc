//! Every subcommand and flag of klog, with its documentation (clap derive). The doc comments
//! here are the one source of `--help`, the man pages and the shell completions.

use clap::{Args, Parser, Subcommand, ValueEnum};
use std::path::PathBuf;

/// A laboratory for Kafka replica logs: build, replicate, crash and truncate byte-compatible
/// Kafka log dirs, and see record by record what each Kafka era kept and lost.
#[derive(Debug, Parser)]
#[command(name = "klog", version, propagate_version = true, max_term_width = 100)]
pub struct Cli {
    /// When to colour output: auto (only on a terminal, and not when NO_COLOR is set),
    /// always, never.
    #[arg(long, global = true, value_enum, default_value_t = ColorChoice::Auto, value_name = "WHEN")]
    pub color: ColorChoice,

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
    /// As Kafka >= 2.1 (KAFKA-7415) the new leader assigns (epoch, LEO) in its epoch cache at
    /// once; `--epoch-entry first-append` reproduces Kafka 0.11-2.0, where the entry appears
    /// with the first append. ISR members other than the leader hold the high watermark where it
    /// is until they fetch.
    Elect(ElectArgs),
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
    /// Verify a replica the way Kafka's loader and kafka-dump-log do.
    ///
    /// Checks batch CRCs and sizes, trailing partial bytes, record framing, offsets
    /// increasing, index entries pointing at the batch whose last offset they name, time index
    /// order and timestamps, the epoch cache against the batch stamps, and HW <= LEO. Exit 0
    /// clean, 1 findings, 2 error. Never writes.
    Check(CheckArgs),
    /// Follower fetch rounds from a leader, with the high-watermark piggyback lag.
    ///
    /// Each round: the leader reads its HW, records the follower's fetch offset and recomputes
    /// its HW over the ISR, returns whole batches from the one holding the fetch offset plus the
    /// HW it read first; the follower appends the bytes unchanged and sets its HW to
    /// min(returned HW, own LEO). One line per round shows the one-round-trip lag. Exit 1 when
    /// the fetch is stuck (a returned batch starts below the follower's log end).
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
    /// truncated-lost / ACKED LOST / DIVERGED. The leader dir is never modified.
    Recover(RecoverArgs),
    /// Compare two replicas offset by offset (epoch, timestamp, key, value, headers).
    ///
    /// Prints the ranges where they agree, differ, or only one side has records, the first
    /// divergent offset and each side's HW. Exit 0 identical up to the shorter log end, 1
    /// diverged. Never writes.
    Diff(DiffArgs),
    /// Run a built-in scenario on temp dirs, narrating each step as the command you would type.
    ///
    /// Scenarios: watch (the follower's HW lag), kip101-1 (KIP-101 scenario 1: HW truncation loses
    /// an acked record), kip101-2 (KIP-101 scenario 2: divergence after two hard failures),
    /// kip279 (fast leader failover). With no scenario: kip101-1 under hw and under kip101, then
    /// the contrast. Each step shows every replica's log with epochs, LEO and HW; the demo ends
    /// with what each mode kept, lost and left diverged.
    Demo(DemoArgs),
    /// Write the man pages or a shell completion script (for packagers; hidden).
    #[command(hide = true, subcommand)]
    Generate(GenerateCommand),
}

#[derive(Debug, Subcommand)]
pub enum GenerateCommand {
    /// Write klog.1 and one page per subcommand into DIR.
    Man {
        #[arg(value_name = "DIR")]
        dir: PathBuf,
    },
    /// Print the completion script for SHELL.
    Completions {
        #[arg(value_enum, value_name = "SHELL")]
        shell: clap_complete::Shell,
    },
}

#[derive(Debug, Args)]
pub struct DemoArgs {
    /// watch, kip101-1, kip101-2 or kip279 (default: kip101-1).
    #[arg(value_name = "SCENARIO")]
    pub scenario: Option<String>,
    /// Truncation mode(s) to run the scenario under (default: hw and kip101; kip101 and kip279
    /// for the kip279 scenario).
    #[arg(long, value_enum)]
    pub mode: Option<DemoMode>,
    /// Run in this (empty or absent) directory instead of a temp dir.
    #[arg(long, value_name = "DIR")]
    pub dir: Option<PathBuf>,
    /// Keep the temp dir (its path is printed).
    #[arg(long)]
    pub keep: bool,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum DemoMode {
    Hw,
    Kip101,
    Kip279,
    /// All three, one after another.
    All,
}

#[derive(Debug, Args)]
pub struct FetchArgs {
    /// The leader's log dir.
    #[arg(long, value_name = "DIR")]
    pub leader: PathBuf,
    /// The follower's log dir.
    #[arg(value_name = "FOLLOWER")]
    pub follower: PathBuf,
    /// The partition dir to use when the log dirs hold several.
    #[arg(long, value_name = "NAME")]
    pub partition: Option<String>,
    /// Number of fetch rounds.
    #[arg(long, default_value_t = 1, value_name = "N", conflicts_with = "until_caught_up")]
    pub rounds: u64,
    /// Fetch until nothing is copied and both high watermarks are equal.
    #[arg(long)]
    pub until_caught_up: bool,
    /// Most bytes one round returns (at least one whole batch is always returned).
    #[arg(long, default_value_t = crate::replication::fetch::DEFAULT_FETCH_MAX_BYTES, value_name = "B")]
    pub max_bytes: u64,
    /// fsync the follower after each round (moves its recovery point).
    #[arg(long)]
    pub flush: bool,
    /// Write one JSON object per round.
    #[arg(long)]
    pub json: bool,
}

#[derive(Debug, Args)]
pub struct CrashArgs {
    #[command(flatten)]
    pub target: Target,
    /// Cut every segment back to the recovery point: what only the page cache held is gone.
    #[arg(long)]
    pub power_loss: bool,
    /// Cut N bytes off the end of the active segment (a torn write).
    #[arg(long, value_name = "N")]
    pub torn_bytes: Option<u64>,
    /// Flip (xor 0xff) the byte at POSITION of the active segment; without POSITION, a byte of
    /// a batch chosen with --seed.
    #[arg(long, value_name = "POSITION", num_args = 0..=1)]
    pub flip_byte: Option<Option<u64>>,
    /// Seed for the random choice of --flip-byte.
    #[arg(long, value_name = "N")]
    pub seed: Option<u64>,
    /// Leave this value in the HW checkpoint (a stale one, or any).
    #[arg(long = "hw", value_name = "N")]
    pub high_watermark: Option<i64>,
    /// Remove leader-epoch-checkpoint.
    #[arg(long)]
    pub drop_epoch_checkpoint: bool,
    /// Remove the active segment's .index and .timeindex.
    #[arg(long)]
    pub drop_index: bool,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ModeArg {
    /// Kafka <= 0.10.2: truncate to the follower's own high watermark.
    Hw,
    /// Kafka 0.11-1.1 (KIP-101): OffsetsForLeaderEpoch v0, offset-only answer.
    Kip101,
    /// Kafka >= 2.0 (KIP-279): (epoch, end offset) answers until the epochs agree.
    Kip279,
}

#[derive(Debug, Args)]
pub struct RecoverArgs {
    /// The replica to recover (the follower with --leader).
    #[arg(value_name = "DIR")]
    pub dir: PathBuf,
    /// Restart DIR as a follower of this leader and truncate it by --mode.
    #[arg(long, value_name = "LEADER")]
    pub leader: Option<PathBuf>,
    /// Which Kafka era's follower truncation to apply (needs --leader).
    #[arg(long, value_enum, requires = "leader")]
    pub mode: Option<ModeArg>,
    /// Print the same report and change nothing on disk.
    #[arg(long)]
    pub dry_run: bool,
    /// Then fetch until caught up and report what arrived and whether the logs agree.
    #[arg(long, requires = "leader", conflicts_with = "dry_run")]
    pub catch_up: bool,
    /// Kept records shown before the first truncated or divergent offset.
    #[arg(long, default_value_t = 3, value_name = "N")]
    pub context: u32,
    /// Write the report as one JSON document.
    #[arg(long)]
    pub json: bool,
    /// The partition dir to use when the log dirs hold several.
    #[arg(long, value_name = "NAME")]
    pub partition: Option<String>,
}

#[derive(Debug, Args)]
pub struct DiffArgs {
    /// First replica.
    #[arg(value_name = "A")]
    pub a: PathBuf,
    /// Second replica.
    #[arg(value_name = "B")]
    pub b: PathBuf,
    /// The partition dir to use when the log dirs hold several.
    #[arg(long, value_name = "NAME")]
    pub partition: Option<String>,
    /// Write the comparison as one JSON document.
    #[arg(long)]
    pub json: bool,
}

#[derive(Debug, Args)]
pub struct CreateArgs {
    /// The log dir to create (must not exist or be empty).
    #[arg(value_name = "DIR")]
    pub dir: PathBuf,
    /// Topic name.
    #[arg(long, default_value = "demo")]
    pub topic: String,
    /// Partition number.
    #[arg(long, default_value_t = 0)]
    pub partition: i32,
    /// Replica (broker) id, written to meta.properties as node.id.
    #[arg(long, default_value_t = 0, value_name = "N")]
    pub replica_id: i32,
    /// segment.bytes: roll to a new segment when the active one would exceed this.
    #[arg(long, default_value_t = crate::log::DEFAULT_SEGMENT_BYTES, value_name = "N")]
    pub segment_bytes: u64,
    /// index.interval.bytes: bytes between offset-index entries.
    #[arg(long, default_value_t = crate::log::DEFAULT_INDEX_INTERVAL_BYTES, value_name = "N")]
    pub index_interval_bytes: u64,
    /// segment.index.bytes: the most bytes the offset or time index of a segment may hold; the
    /// segment rolls when either is full.
    #[arg(long, default_value_t = crate::log::DEFAULT_INDEX_BYTES_MAX, value_name = "N")]
    pub segment_index_bytes: u64,
    /// segment.ms: roll when a batch's max timestamp is more than this many ms past the
    /// segment's first batch.
    #[arg(long, default_value_t = crate::log::DEFAULT_SEGMENT_MS, value_name = "MS")]
    pub segment_ms: u64,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum EpochEntryMode {
    /// Kafka >= 2.1: the epoch cache gets (epoch, LEO) at election.
    OnElection,
    /// Kafka 0.11-2.0: the entry appears with the first batch appended in the epoch.
    FirstAppend,
}

#[derive(Debug, Args)]
pub struct ElectArgs {
    #[command(flatten)]
    pub target: Target,
    /// The new leader epoch (default: one above the largest epoch the replica knows).
    #[arg(long, value_name = "E")]
    pub epoch: Option<i32>,
    /// Followers in the ISR (their log dirs); the leader is always in it.
    #[arg(long, num_args = 1.., value_name = "DIR")]
    pub isr: Vec<PathBuf>,
    /// When the epoch cache gets the new epoch's entry.
    #[arg(long, value_enum, default_value_t = EpochEntryMode::OnElection)]
    pub epoch_entry: EpochEntryMode,
}

#[derive(Debug, Args)]
pub struct AppendArgs {
    #[command(flatten)]
    pub target: Target,
    /// Record values, one record each.
    #[arg(value_name = "VALUE")]
    pub values: Vec<String>,
    /// Key of every record (default: null).
    #[arg(long, value_name = "K")]
    pub key: Option<String>,
    /// A header on every record, `K=V` (repeatable; `K` alone gives a null value).
    #[arg(long = "header", value_name = "K=V")]
    pub headers: Vec<String>,
    /// Read record values from standard input, one per line.
    #[arg(long)]
    pub stdin: bool,
    /// Generate this many records (with --value-size).
    #[arg(long, value_name = "N", requires = "value_size")]
    pub count: Option<u64>,
    /// Size in bytes of each generated value.
    #[arg(long, value_name = "B", requires = "count")]
    pub value_size: Option<usize>,
    /// Records per batch (default: all given values in one batch; for --count, as many as
    /// fit in 1 MiB).
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..))]
    pub records_per_batch: Option<u64>,
    /// Timestamp of every record in ms since the epoch (default: now).
    #[arg(long, value_name = "MS")]
    pub timestamp: Option<i64>,
    /// fsync the data and move the recovery point to the log end.
    #[arg(long)]
    pub flush: bool,
    /// Compress each batch's records with this codec (Kafka's framing for each).
    #[arg(long, value_enum, default_value_t = CompressionArg::None)]
    pub compression: CompressionArg,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum CompressionArg {
    None,
    Gzip,
    /// Snappy in snappy-java's xerial framing, as Kafka writes it.
    Snappy,
    /// Kafka's LZ4 frame.
    Lz4,
    Zstd,
}

impl From<CompressionArg> for crate::format::compression::Compression {
    fn from(c: CompressionArg) -> Self {
        use crate::format::compression::Compression;
        match c {
            CompressionArg::None => Compression::None,
            CompressionArg::Gzip => Compression::Gzip,
            CompressionArg::Snappy => Compression::Snappy,
            CompressionArg::Lz4 => Compression::Lz4,
            CompressionArg::Zstd => Compression::Zstd,
        }
    }
}

#[derive(Debug, Args)]
pub struct DumpArgs {
    /// A log dir, a partition dir, or a single Kafka file.
    #[arg(value_name = "DIR|FILE")]
    pub path: PathBuf,
    /// The partition dir to use when the log dir holds several.
    #[arg(long, value_name = "NAME")]
    pub partition: Option<String>,
    /// Show the epoch cache (epoch, start, end, records) checked against the batch stamps.
    #[arg(long)]
    pub epochs: bool,
    /// Write JSON lines instead of a table (the same as `--format json`).
    #[arg(long, conflicts_with = "format")]
    pub json: bool,
    /// Output form: `table`, `json` (JSON lines), or `kafka` (the lines of
    /// `kafka-dump-log.sh --deep-iteration --print-data-log`; with --batches, batch lines only).
    #[arg(long, value_enum, value_name = "FORMAT")]
    pub format: Option<DumpFormat>,
    /// Start at the batch holding this offset.
    #[arg(long, value_name = "OFFSET")]
    pub from: Option<i64>,
    /// Show at most N records (N batches with --batches).
    #[arg(long, value_name = "N")]
    pub limit: Option<u64>,
    /// One row per batch instead of one per record.
    #[arg(long)]
    pub batches: bool,
}

/// How `dump` writes what it reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum DumpFormat {
    /// Tables for people.
    Table,
    /// JSON lines, one object per line with a `type`.
    Json,
    /// The lines kafka-dump-log prints, for scripts written against it.
    Kafka,
}

#[derive(Debug, Args)]
pub struct CheckArgs {
    #[command(flatten)]
    pub target: Target,
    /// Write findings as JSON lines.
    #[arg(long)]
    pub json: bool,
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::CommandFactory;

    #[test]
    fn cli_definition_is_consistent() {
        Cli::command().debug_assert();
    }
}
