//! The flags of the commands that read: `dump`, `history`, `check`, `txn`, `draw`, `diff`; and
//! the requests they become.

use super::*;

#[derive(Debug, Args)]
pub struct DrawArgs {
    /// The replicas to draw, one row each, top to bottom.
    #[arg(value_name = "DIR", required = true, num_args = 1..)]
    pub dirs: Vec<PathBuf>,
    /// The partition dir to use when the log dirs hold several.
    #[arg(long, value_name = "NAME")]
    pub partition: Option<String>,
    /// First offset to draw (default: a little before the first divergence, else the lowest HW).
    #[arg(allow_negative_numbers = true, long, value_name = "OFFSET",
          value_parser = ranged::<i64>(0, I64_MAX, "an offset is a non-negative i64 in Kafka"))]
    pub from: Option<i64>,
    /// Offsets to draw (the terminal shows as many of them as fit).
    #[arg(allow_negative_numbers = true, long, default_value_t = commands::draw::DEFAULT_LIMIT, value_name = "N",
          value_parser = ranged::<i64>(1, 1000, "a picture of more than 1000 cells is a dump: use klog dump"))]
    pub limit: i64,
    /// Also write the picture as a self-contained SVG file.
    #[arg(long, value_name = "FILE")]
    pub svg: Option<PathBuf>,
    /// Replace an existing file at --svg FILE that is not klog's own SVG output (never inside a
    /// Kafka log dir).
    #[arg(long)]
    pub force: bool,
}

impl<'a> From<&'a DrawArgs> for commands::draw::DrawRequest<'a> {
    fn from(a: &'a DrawArgs) -> Self {
        commands::draw::DrawRequest { dirs: &a.dirs, partition: a.partition.as_deref(), from: a.from, limit: a.limit }
    }
}

#[derive(Debug, Args)]
pub struct DiffArgs {
    /// First replica.
    #[arg(value_name = "A")]
    pub a: PathBuf,
    /// Second replica.
    #[arg(value_name = "B")]
    pub b: PathBuf,
    /// More brokers' data dirs: with a third DIR (or --cluster) the cluster view instead of the
    /// pairwise comparison (see --cluster).
    #[arg(value_name = "DIR")]
    pub more: Vec<PathBuf>,
    #[command(flatten)]
    pub cluster: ClusterFlag,
    /// The partition dir to use when the log dirs hold several.
    #[arg(long, value_name = "NAME")]
    pub partition: Option<String>,
    /// Compare from this offset on (one partition: the offsets of the two replicas).
    #[arg(long, value_name = "OFFSET", allow_negative_numbers = true,
          value_parser = ranged::<i64>(0, I64_MAX, "an offset is a non-negative i64 in Kafka"))]
    pub from: Option<i64>,
    /// Compare up to this offset, included (one partition).
    #[arg(long, value_name = "OFFSET", allow_negative_numbers = true,
          value_parser = ranged::<i64>(0, I64_MAX, "an offset is a non-negative i64 in Kafka"))]
    pub to: Option<i64>,
    /// Compare from the first offset whose record is at or after TIME on either side (ISO-8601
    /// or epoch ms; one partition), found with the time index as `dump --since` finds it.
    #[arg(long, value_name = "TIME", value_parser = commands::dump_filter::parse_time, allow_negative_numbers = true)]
    pub since: Option<i64>,
    /// Compare up to the last offset before the first record at or after TIME, on the side
    /// where that is later (same forms as --since; one partition).
    #[arg(long, value_name = "TIME", value_parser = commands::dump_filter::parse_time, allow_negative_numbers = true)]
    pub until: Option<i64>,
    /// Write the comparison as one JSON document.
    #[arg(long)]
    pub json: bool,
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
    #[arg(long, value_name = "OFFSET", allow_negative_numbers = true,
          value_parser = ranged::<i64>(0, I64_MAX, "an offset is a non-negative i64 in Kafka"))]
    pub from: Option<i64>,
    /// Show at most N records (N batches with --batches).
    #[arg(allow_negative_numbers = true, long, value_name = "N", value_parser = ranged::<u64>(0, I64_MAX, "offsets are i64 in Kafka"))]
    pub limit: Option<u64>,
    /// One row per batch instead of one per record.
    #[arg(long)]
    pub batches: bool,
    #[command(flatten)]
    pub filter: DumpFilterArgs,
}

/// `dump`'s record filters: a record is shown when every one given holds.
#[derive(Debug, Args)]
#[command(next_help_heading = "Record filters and values")]
pub struct DumpFilterArgs {
    /// Records with a timestamp at or after TIME (ISO-8601 such as 2026-12-07T03:00:00Z, or
    /// epoch ms). The dump starts where Kafka's ListOffsets by timestamp would: found with the
    /// time index, not by reading the log (with --batches: from the batch holding that record).
    #[arg(long, value_name = "TIME", value_parser = commands::dump_filter::parse_time, allow_negative_numbers = true)]
    pub since: Option<i64>,
    /// Records with a timestamp before TIME (same forms as --since; TIME itself excluded).
    #[arg(long, value_name = "TIME", value_parser = commands::dump_filter::parse_time, allow_negative_numbers = true,
          conflicts_with = "batches")]
    pub until: Option<i64>,
    /// Stop after this offset (records at or below it; with --batches, batches starting at or
    /// below it).
    #[arg(long, value_name = "OFFSET", allow_negative_numbers = true,
          value_parser = ranged::<i64>(0, I64_MAX, "an offset is a non-negative i64 in Kafka"))]
    pub to: Option<i64>,
    /// Records whose key is exactly KEY (its UTF-8 bytes).
    #[arg(long, value_name = "KEY", conflicts_with = "batches")]
    pub key: Option<String>,
    /// Records whose key matches REGEX (Rust regex syntax over the key's bytes).
    #[arg(long, value_name = "REGEX", value_parser = commands::dump_filter::parse_regex, conflicts_with = "batches")]
    pub key_regex: Option<regex::bytes::Regex>,
    /// Records carrying a header NAME (with value VALUE when given); repeat to require several.
    #[arg(long, value_name = "NAME[=VALUE]", conflicts_with = "batches")]
    pub header: Vec<commands::dump_filter::HeaderMatch>,
    /// Records whose value matches REGEX (Rust regex syntax over the value's bytes).
    #[arg(long, value_name = "REGEX", value_parser = commands::dump_filter::parse_regex, conflicts_with = "batches")]
    pub value_regex: Option<regex::bytes::Regex>,
    /// Print only the number of records shown (of batches with --batches).
    #[arg(long, conflicts_with_all = ["epochs", "limit"])]
    pub count: bool,
    /// Dump every partition of this topic in the log dir, one after another (the dir of a
    /// broker holding several partitions).
    #[arg(long, value_name = "NAME", conflicts_with = "partition")]
    pub topic: Option<String>,
    /// Show record values as `text`, `hex` or `base64`, and name a value in Confluent's wire
    /// format (magic byte 0, a 4-byte schema id) with its schema id.
    #[arg(long, value_enum, value_name = "FORM", conflicts_with = "batches")]
    pub value_format: Option<ValueFormatArg>,
}

/// `dump --value-format`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ValueFormatArg {
    /// UTF-8 text where the value is (otherwise the output form's own way to show bytes).
    Text,
    /// Two lower-case hex digits a byte.
    Hex,
    /// Standard base64 with padding.
    Base64,
}

impl From<ValueFormatArg> for crate::output::values::ValueFormat {
    fn from(a: ValueFormatArg) -> Self {
        match a {
            ValueFormatArg::Text => crate::output::values::ValueFormat::Text,
            ValueFormatArg::Hex => crate::output::values::ValueFormat::Hex,
            ValueFormatArg::Base64 => crate::output::values::ValueFormat::Base64,
        }
    }
}

impl DumpFilterArgs {
    pub fn record_filter(&self) -> commands::dump_filter::RecordFilter {
        commands::dump_filter::RecordFilter {
            since: self.since,
            until: self.until,
            to: self.to,
            key: self.key.as_ref().map(|k| k.as_bytes().to_vec()),
            key_regex: self.key_regex.clone(),
            headers: self.header.clone(),
            value_regex: self.value_regex.clone(),
        }
    }
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

/// `--cluster`: the DIRs are the data dirs of a cluster's brokers.
#[derive(Debug, Args)]
pub struct ClusterFlag {
    /// Take the DIRs as the data dirs of several brokers of one cluster (copies), at least two:
    /// per partition, every replica found is lined up against the current leader (from
    /// `__cluster_metadata-0` when a dir holds it, with the metadata offset; else assumed: the
    /// highest latest leader epoch, then the largest log end), with where each diverges, the
    /// acknowledged records (below a replica's checkpointed HW) the leader does not hold, and
    /// when no clean leader is left klog's advice and the replica Kafka would elect, each with
    /// what it loses. Implied by more DIRs than the command's usual form takes. Never writes.
    #[arg(long)]
    pub cluster: bool,
    /// Read dirs (or a --metadata log) of more than one cluster together instead of refusing.
    ///
    /// Without it, dirs whose `meta.properties` do not say they are brokers of one cluster
    /// (another `cluster.id`, one only some dirs record, a node id twice) and a KRaft metadata
    /// log whose log dir records another `cluster.id` are refused in one line naming both dirs
    /// and ids (exit 2). With it, `recover --leader` plans the restart anyway, saying why in a
    /// warning, and takes the metadata named; the cluster view lists the replicas of such
    /// partitions, each with its log end and high watermark, and lines none of them up against
    /// a leader (the metadata speaks for its own cluster's replicas only). `diff A B` compares
    /// any two dirs, with a warning, flag or not.
    #[arg(long)]
    pub allow_other_cluster: bool,
}

#[derive(Debug, Args)]
pub struct HistoryArgs {
    /// A log dir holding `__cluster_metadata-0`, or that partition dir.
    #[arg(value_name = "DIR")]
    pub path: PathBuf,
    /// Only this partition (`topic-N`).
    #[arg(long, value_name = "NAME")]
    pub partition: Option<String>,
    /// A replica's log dir to set beside the timeline (repeat for several).
    #[arg(long, value_name = "DIR")]
    pub replica: Vec<PathBuf>,
    /// Write JSON lines instead of text.
    #[arg(long)]
    pub json: bool,
    /// Draw who led when instead of the table: per partition, a column per change and a row
    /// per replica (L leads, I in the ISR, E in the ELR).
    #[arg(long, conflicts_with = "json")]
    pub picture: bool,
    /// Also write the timelines as a self-contained SVG file.
    #[arg(long, value_name = "FILE", conflicts_with = "json")]
    pub svg: Option<PathBuf>,
    /// Replace an existing file at --svg FILE that is not klog's own SVG output (never inside a
    /// Kafka log dir).
    #[arg(long, requires = "svg")]
    pub force: bool,
    /// Set --replica dirs of another cluster beside the timeline instead of refusing them.
    ///
    /// Without it, a --replica whose `meta.properties` records another `cluster.id` than the
    /// metadata log's dir (or none where it records one), or a node id another --replica has,
    /// is refused in one line naming both dirs and ids (exit 2).
    #[arg(long, requires = "replica")]
    pub allow_other_cluster: bool,
}

#[derive(Debug, Args)]
pub struct CheckArgs {
    #[command(flatten)]
    pub target: Target,
    /// More brokers' data dirs: with them (or --cluster) the cluster view, every partition's
    /// replicas lined up across the brokers (see --cluster).
    #[arg(value_name = "DIR")]
    pub more: Vec<PathBuf>,
    #[command(flatten)]
    pub cluster: ClusterFlag,
    /// Tiered storage: a LocalTieredStorage dir (its `rsm.config.dir`, or the
    /// `kafka-tiered-storage` dir in it) whose remote segments are checked with the
    /// `__remote_log_metadata` the data dirs hold (as `klog remote --remote-dir`). Without it,
    /// data dirs holding that topic are checked across the tiers from the metadata alone.
    #[arg(long, value_name = "DIR")]
    pub remote_dir: Option<PathBuf>,
    /// Write findings as JSON lines.
    #[arg(long)]
    pub json: bool,
}

#[derive(Debug, Args)]
pub struct TxnArgs {
    /// A Kafka log dir holding one partition, a partition dir (`<topic>-<partition>`), or one or
    /// more brokers' data dirs.
    #[arg(value_name = "DIR", required = true)]
    pub dirs: Vec<PathBuf>,
    /// The partition dir to use when a log dir holds several (e.g. `orders-3`); with several
    /// data dirs, that partition in each.
    #[arg(long, value_name = "NAME")]
    pub partition: Option<String>,
    /// Write JSON instead of text (the same as `--format json`).
    #[arg(long, conflicts_with = "format")]
    pub json: bool,
    /// Output form: `table`, `json`, or `kafka` (the tables `kafka-transactions.sh
    /// describe-producers` prints for each partition, then `find-hanging`'s for the open
    /// transactions the coordinator's log among the dirs does not expect).
    #[arg(long, value_enum, value_name = "FORM")]
    pub format: Option<TxnFormat>,
    /// With `--format kafka`: find-hanging's `--max-transaction-timeout`, in minutes (an open
    /// transaction whose last write is younger is not listed).
    #[arg(long, value_name = "MINUTES", default_value_t = 15, requires = "format",
          value_parser = ranged::<u32>(0, I32_MAX, "find-hanging reads it as a Java int"))]
    pub max_transaction_timeout: u32,
    /// Read data dirs of more than one cluster together instead of refusing.
    ///
    /// With several data dirs, the coordinator's `__transaction_state` found among them judges
    /// every dir's open transactions: dirs whose `meta.properties` do not say they are brokers
    /// of one cluster (another `cluster.id`, one only some record, a node id twice) are refused
    /// in one line naming both dirs and ids (exit 2) unless this flag is given.
    #[arg(long)]
    pub allow_other_cluster: bool,
}

/// How `txn` writes what it reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum TxnFormat {
    /// Text for people.
    Table,
    /// One JSON object per partition (and a summary line for a data dir).
    Json,
    /// The tables kafka-transactions.sh prints, for scripts written against it.
    Kafka,
}

impl TxnArgs {
    pub fn format(&self) -> TxnFormat {
        self.format.unwrap_or(if self.json { TxnFormat::Json } else { TxnFormat::Table })
    }
}

// ---- Ranges: every number is checked against Kafka's own limits before a command runs. ----

impl<'a> From<&'a DumpArgs> for commands::dump::DumpRequest<'a> {
    fn from(a: &'a DumpArgs) -> Self {
        commands::dump::DumpRequest {
            path: &a.path,
            partition: a.partition.as_deref(),
            epochs: a.epochs,
            from: a.from,
            limit: a.limit,
            batches_only: a.batches,
            render: None,
            log_dir_overview: a.format() != DumpFormat::Kafka,
            dump_log_segments_files: a.format() == DumpFormat::Kafka,
            filter: a.filter.record_filter(),
            topic: a.filter.topic.as_deref(),
        }
    }
}

impl DumpArgs {
    /// `--format`, or `--json`, or a table.
    pub fn format(&self) -> DumpFormat {
        self.format.unwrap_or(if self.json { DumpFormat::Json } else { DumpFormat::Table })
    }
}
