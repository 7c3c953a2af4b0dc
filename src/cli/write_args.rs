//! The flags of the commands that write one partition as a broker would: `create`, `elect`,
//! `alter-isr`, `append`; and the requests they become.

use super::*;

#[derive(Debug, Args)]
pub struct CreateArgs {
    /// The log dir to create (one that does not exist or is empty), or a klog log dir to add
    /// the partitions to.
    #[arg(value_name = "DIR")]
    pub dir: PathBuf,
    /// Topic name (Kafka's rules: 1 to 249 of a-z A-Z 0-9 . _ -, not `.` or `..`).
    #[arg(long, default_value = "demo", value_parser = topic_name)]
    pub topic: String,
    /// Partition number (the first one, with --partitions).
    #[arg(long, default_value_t = 0, allow_negative_numbers = true,
          value_parser = ranged::<i32>(0, I32_MAX, "a partition number is a non-negative i32 in Kafka"))]
    pub partition: i32,
    /// How many partitions to create: --partition, --partition + 1, ... (a broker's data dir).
    #[arg(allow_negative_numbers = true, long, default_value_t = 1, value_name = "N",
          value_parser = ranged::<i32>(1, 100_000, "more partitions than that in one log dir is not a lab"))]
    pub partitions: i32,
    /// Replica (broker) id, written to meta.properties as node.id [default: 0; when adding to
    /// an existing log dir, its own].
    #[arg(long, value_name = "N", allow_negative_numbers = true,
          value_parser = ranged::<i32>(0, I32_MAX, "a broker id is a non-negative i32 in Kafka"))]
    pub replica_id: Option<i32>,
    /// segment.bytes: roll to a new segment when the active one would exceed this.
    #[arg(allow_negative_numbers = true, long, default_value_t = crate::log::DEFAULT_SEGMENT_BYTES, value_name = "N",
          value_parser = ranged::<u64>(14, I32_MAX, "Kafka's segment.bytes is an i32, at least 14 (LegacyRecord.RECORD_OVERHEAD_V0)"))]
    pub segment_bytes: u64,
    /// index.interval.bytes: bytes between offset-index entries.
    #[arg(allow_negative_numbers = true, long, default_value_t = crate::log::DEFAULT_INDEX_INTERVAL_BYTES, value_name = "N",
          value_parser = ranged::<u64>(0, I32_MAX, "Kafka's index.interval.bytes is a non-negative i32"))]
    pub index_interval_bytes: u64,
    /// segment.index.bytes: the most bytes the offset or time index of a segment may hold; the
    /// segment rolls when either is full.
    #[arg(allow_negative_numbers = true, long, default_value_t = crate::log::DEFAULT_INDEX_BYTES_MAX, value_name = "N",
          value_parser = ranged::<u64>(24, I32_MAX, "Kafka's segment.index.bytes is an i32; klog needs room for two 12-byte time-index entries"))]
    pub segment_index_bytes: u64,
    /// segment.ms: roll when a batch's max timestamp is more than this many ms past the
    /// segment's first batch.
    #[arg(allow_negative_numbers = true, long, default_value_t = crate::log::DEFAULT_SEGMENT_MS, value_name = "MS",
          value_parser = ranged::<u64>(1, I64_MAX, "Kafka's segment.ms is an i64, at least 1"))]
    pub segment_ms: u64,
    /// min.insync.replicas: `append` (acks=all) refuses while the leader's ISR, itself
    /// included, is smaller (NOT_ENOUGH_REPLICAS), and the HW does not advance then (Kafka 3.7,
    /// KAFKA-15583).
    #[arg(allow_negative_numbers = true, long, default_value_t = 1, value_name = "N",
          value_parser = ranged::<u32>(1, 1000, "min.insync.replicas counts replicas, at least 1"))]
    pub min_insync_replicas: u32,
    /// A tiered lab: the topic gets remote.storage.enable=true and DIR is its remote storage
    /// (Kafka's LocalTieredStorage layout; made if absent).
    ///
    /// The log dir also gets `__remote_log_metadata-0` (the metadata topic, one partition), and
    /// klog-state.json records DIR (absolute), so `klog tier`, `fetch` and `recover` find it
    /// without the flag. Give every broker of a lab the same DIR.
    #[arg(long, value_name = "DIR")]
    pub remote_dir: Option<PathBuf>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum EpochEntryArg {
    /// Kafka >= 2.0.1: the epoch cache gets (epoch, LEO) at election.
    OnElection,
    /// Kafka 0.11-2.0.0: the entry appears with the first batch appended in the epoch.
    FirstAppend,
}

#[derive(Debug, Args)]
pub struct ElectArgs {
    #[command(flatten)]
    pub target: Target,
    /// The new leader epoch (default: one above the largest epoch the replica knows).
    #[arg(long, value_name = "E", allow_negative_numbers = true,
          value_parser = ranged::<i32>(0, I32_MAX, "a leader epoch is a non-negative i32 in Kafka"))]
    pub epoch: Option<i32>,
    /// Followers in the ISR (their log dirs); the leader is always in it.
    #[arg(long, num_args = 1.., value_name = "DIR")]
    pub isr: Vec<PathBuf>,
    /// When the epoch cache gets the new epoch's entry.
    #[arg(long, value_enum, default_value_t = EpochEntryArg::OnElection)]
    pub epoch_entry: EpochEntryArg,
    /// Take --isr dirs of another cluster instead of refusing them.
    ///
    /// Without it, an ISR member whose `meta.properties` does not say it is a broker of the
    /// leader's cluster (another `cluster.id`, one only one side records, a node id the leader
    /// or another member has) is refused in one line naming both dirs and ids (exit 2, nothing
    /// written).
    #[arg(long, requires = "isr")]
    pub allow_other_cluster: bool,
}

#[derive(Debug, Args)]
pub struct AlterIsrArgs {
    #[command(flatten)]
    pub target: Target,
    /// The followers of the new ISR (their log dirs); the leader is always in it, and none
    /// leaves it alone.
    #[arg(long, num_args = 1.., value_name = "DIR")]
    pub isr: Vec<PathBuf>,
    /// Take --isr dirs of another cluster instead of refusing them (as `elect
    /// --allow-other-cluster`).
    #[arg(long, requires = "isr")]
    pub allow_other_cluster: bool,
}

impl<'a> From<&'a AlterIsrArgs> for commands::alter_isr::AlterIsrRequest<'a> {
    fn from(a: &'a AlterIsrArgs) -> Self {
        commands::alter_isr::AlterIsrRequest {
            dir: &a.target.dir,
            partition: a.target.partition.as_deref(),
            isr: &a.isr,
            allow_other_cluster: a.allow_other_cluster,
        }
    }
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
    #[arg(long, conflicts_with = "values")]
    pub stdin: bool,
    /// Generate this many records (with --value-size).
    #[arg(allow_negative_numbers = true, long, value_name = "N", requires = "value_size", conflicts_with_all = ["values", "stdin"],
          value_parser = ranged::<u64>(1, I64_MAX, "offsets are i64 in Kafka"))]
    pub count: Option<u64>,
    /// Size in bytes of each generated value.
    #[arg(allow_negative_numbers = true, long, value_name = "B", requires = "count",
          value_parser = ranged::<usize>(0, MAX_VALUE_BYTES as i128, "the largest value one record in a batch of i32 size can hold"))]
    pub value_size: Option<usize>,
    /// Records per batch (default: all given values in one batch; for --count, as many as
    /// fit in 1 MiB).
    #[arg(allow_negative_numbers = true, long, value_name = "N",
          value_parser = ranged::<u64>(1, I32_MAX, "a batch's record count is an i32 in Kafka"))]
    pub records_per_batch: Option<u64>,
    /// Timestamp of every record in ms since the epoch (default: now).
    #[arg(long, value_name = "MS", allow_negative_numbers = true,
          value_parser = ranged::<i64>(0, I64_MAX, "Kafka's producer rejects negative timestamps"))]
    pub timestamp: Option<i64>,
    /// fsync the data and move the recovery point to the log end.
    #[arg(long)]
    pub flush: bool,
    /// Compress each batch's records with this codec (Kafka's framing for each).
    #[arg(long, value_enum, default_value_t = CompressionArg::None)]
    pub compression: CompressionArg,
    /// Write the batches as this idempotent producer (its producer id; default: none, -1).
    #[arg(long, value_name = "ID", allow_negative_numbers = true,
          value_parser = ranged::<i64>(0, I64_MAX, "producer ids are non-negative i64 in Kafka"))]
    pub producer_id: Option<i64>,
    /// The producer's epoch (default 0).
    #[arg(long, value_name = "E", allow_negative_numbers = true, requires = "producer_id",
          value_parser = ranged::<i16>(0, i16::MAX as i128, "a producer epoch is a non-negative i16 in Kafka"))]
    pub producer_epoch: Option<i16>,
    /// The first batch's base sequence (default: the one the producer's state expects next).
    #[arg(long, value_name = "N", allow_negative_numbers = true, requires = "producer_id",
          value_parser = ranged::<i32>(0, I32_MAX, "a sequence is a non-negative i32 in Kafka"))]
    pub sequence: Option<i32>,
    /// Write the batches inside the producer's transaction (the first one opens it).
    #[arg(long, requires = "producer_id")]
    pub transactional: bool,
    /// Instead of records, append the marker a transaction coordinator writes to end the
    /// producer's transaction; an ABORT also gets its aborted-index (.txnindex) entry.
    #[arg(long, value_enum, value_name = "END", requires = "producer_id",
          conflicts_with_all = ["values", "stdin", "count", "transactional", "sequence"])]
    pub end_txn: Option<EndTxnArg>,
    /// The coordinator epoch the marker carries (default 0).
    #[arg(long, value_name = "E", allow_negative_numbers = true, requires = "end_txn",
          value_parser = ranged::<i32>(0, I32_MAX, "a coordinator epoch is a non-negative i32 in Kafka"))]
    pub coordinator_epoch: Option<i32>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum EndTxnArg {
    Commit,
    Abort,
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

impl From<EpochEntryArg> for commands::elect::EpochEntryMode {
    fn from(m: EpochEntryArg) -> Self {
        match m {
            EpochEntryArg::OnElection => commands::elect::EpochEntryMode::OnElection,
            EpochEntryArg::FirstAppend => commands::elect::EpochEntryMode::FirstAppend,
        }
    }
}

impl<'a> From<&'a CreateArgs> for commands::create::CreateRequest<'a> {
    fn from(a: &'a CreateArgs) -> Self {
        commands::create::CreateRequest {
            dir: &a.dir,
            topic: &a.topic,
            partition: a.partition,
            partitions: a.partitions,
            replica_id: a.replica_id,
            segment_bytes: a.segment_bytes,
            index_interval_bytes: a.index_interval_bytes,
            index_bytes_max: a.segment_index_bytes,
            segment_ms: a.segment_ms,
            min_insync_replicas: a.min_insync_replicas,
            remote_dir: a.remote_dir.as_deref(),
        }
    }
}

impl<'a> From<&'a ElectArgs> for commands::elect::ElectRequest<'a> {
    fn from(a: &'a ElectArgs) -> Self {
        commands::elect::ElectRequest {
            dir: &a.target.dir,
            partition: a.target.partition.as_deref(),
            epoch: a.epoch,
            isr: &a.isr,
            epoch_entry: a.epoch_entry.into(),
            allow_other_cluster: a.allow_other_cluster,
        }
    }
}

impl AppendArgs {
    /// The request, with values from the command line, generated, or read from `stdin` (one
    /// per line), and `now_ms` as the timestamp unless `--timestamp` is given.
    pub fn request(&self, stdin: &mut dyn std::io::Read, now_ms: i64) -> Result<commands::append::AppendRequest<'_>> {
        use crate::error::IoContext;
        // clap's `requires` lets it through beside --producer-id; a marker's epoch on records
        // would be ignored, so it is refused.
        if self.coordinator_epoch.is_some() && self.end_txn.is_none() {
            return Err(Error::Usage("--coordinator-epoch is the epoch a marker carries: it needs --end-txn".into()));
        }
        let values = if let (Some(count), Some(value_size)) = (self.count, self.value_size) {
            commands::append::Values::Generated { count, value_size }
        } else if self.stdin {
            let mut input = Vec::new();
            stdin.read_to_end(&mut input).at("<stdin>", "read")?;
            let mut lines: Vec<Vec<u8>> =
                input.split(|b| *b == b'\n').map(|l| l.strip_suffix(b"\r").unwrap_or(l).to_vec()).collect();
            if lines.last().is_some_and(|l| l.is_empty()) {
                lines.pop();
            }
            commands::append::Values::Given(lines)
        } else {
            commands::append::Values::Given(self.values.iter().map(|v| v.as_bytes().to_vec()).collect())
        };
        Ok(commands::append::AppendRequest {
            dir: &self.target.dir,
            partition: self.target.partition.as_deref(),
            values,
            key: self.key.clone().map(String::into_bytes),
            headers: self.headers.iter().map(|h| commands::append::parse_header(h)).collect(),
            records_per_batch: self.records_per_batch,
            timestamp: self.timestamp.unwrap_or(now_ms),
            flush: self.flush,
            compression: self.compression.into(),
            producer: self.producer_id.map(|id| commands::append::Producer {
                id,
                epoch: self.producer_epoch.unwrap_or(0),
                sequence: self.sequence,
                transactional: self.transactional,
                end_txn: self.end_txn.map(|e| (e == EndTxnArg::Commit, self.coordinator_epoch.unwrap_or(0))),
            }),
        })
    }
}
