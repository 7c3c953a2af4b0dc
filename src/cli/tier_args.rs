//! The flags of tiered storage and of undo: `remote`, `tier copy`, `tier retain`, `tier expire`,
//! `restore`.

use super::*;

#[derive(Debug, Args)]
pub struct RemoteArgs {
    /// Brokers' data dirs (log dirs holding `__remote_log_metadata-N` and the partitions).
    #[arg(value_name = "DATA_DIR", required = true)]
    pub dirs: Vec<PathBuf>,
    /// A LocalTieredStorage dir (its `rsm.config.dir`, or the `kafka-tiered-storage` dir in
    /// it): each remote segment's files checked against the metadata (required files, the
    /// log's batches, offsets and size, the leader-epoch checkpoint), files without metadata,
    /// finished segments without files, copies started and never finished.
    #[arg(long, value_name = "DIR")]
    pub remote_dir: Option<PathBuf>,
    /// JSON lines, one object per line with a `type`.
    #[arg(long)]
    pub json: bool,
    /// Read data dirs of several clusters together.
    ///
    /// The `__remote_log_metadata` of one cluster describes that cluster's remote storage:
    /// dirs whose `meta.properties` do not say they are brokers of one cluster (another
    /// `cluster.id`, one only some record, a node id twice) are refused in one line naming both
    /// dirs and ids (exit 2) unless this flag is given.
    #[arg(long)]
    pub allow_other_cluster: bool,
    /// Forecast each leader's remote expiration with this `retention.ms` in place of the
    /// topic's (what the next run deletes if the topic is altered to it; -1: no limit).
    #[arg(long, value_name = "MS", allow_negative_numbers = true, value_parser = clap::value_parser!(i64).range(-1..))]
    pub retention_ms: Option<i64>,
    /// Forecast each leader's remote expiration with this `retention.bytes` in place of the
    /// topic's (the partition's size across both tiers it keeps; -1: no limit).
    #[arg(long, value_name = "BYTES", allow_negative_numbers = true, value_parser = clap::value_parser!(i64).range(-1..))]
    pub retention_bytes: Option<i64>,
}

#[derive(Debug, Subcommand)]
pub enum TierCommand {
    /// One run of the leader's copy task: copy the closed segments below the last stable
    /// offset that remote storage lacks.
    ///
    /// As `RemoteLogManager.copyLogSegmentsToRemote` (Kafka 4.4): the copied offset is the
    /// highest remote offset of the latest epoch of the leader's cache that has one; copying
    /// starts at the segment holding max(copied offset + 1, log start) and takes each segment
    /// whose next segment starts at or below the LSO. For each: a COPY_SEGMENT_STARTED
    /// RemoteLogSegmentMetadataRecord in `__remote_log_metadata-0`, the segment's files in
    /// LocalTieredStorage's layout (.log, .index, .timeindex, .txnindex if any, the leader epoch
    /// checkpoint up to the segment's end, the producer snapshot at the next segment's base),
    /// then a COPY_SEGMENT_FINISHED update record. `--stop-after-files N` stops the first copy
    /// after its STARTED record and N files, as a broker killed during an upload leaves it.
    Copy(TierCopyArgs),
    /// Local retention of a tiered partition: delete local segments only below the highest
    /// offset in remote storage.
    ///
    /// As UnifiedLog's retention for a log with remote storage (Kafka 4.4,
    /// `deleteRetentionSizeBreachedSegments` / `deleteRetentionMsBreachedSegments` with
    /// local.retention.bytes / local.retention.ms): oldest first, a segment goes while the
    /// limit is breached, its offsets lie below the high watermark, and its last offset is at
    /// or below the highest offset in remote storage (found from the replica's own
    /// `__remote_log_metadata-0` and epoch cache, as a leader's copy task and a follower's
    /// RLMFollowerTask find it). The log start stays (log-start-offset-checkpoint keeps it);
    /// the local log start moves to the first segment kept. Runs on a leader or a follower.
    Retain(TierRetainArgs),
    /// One run of the leader's remote expiration task: delete the remote segments Kafka 4.4's
    /// leader would, as `klog remote` forecasts them.
    ///
    /// As `RLMExpirationTask.cleanupExpiredRemoteLogSegments` (Kafka 4.4): for each epoch of
    /// the leader's cache, its segments by start offset — deletions that started and did not
    /// finish are retried; segments wholly below the log start go; segments within the
    /// leader's epoch lineage go while retention.ms or retention.bytes is breached — then every
    /// segment whose epochs all lie below the earliest epoch of the leader's cache
    /// (leader-epoch-cache truncation: a lineage this leader no longer holds). Each deletion
    /// is a DELETE_SEGMENT_STARTED update record in `__remote_log_metadata-0`, the fileset's
    /// files removed from the LocalTieredStorage dir, then a DELETE_SEGMENT_FINISHED record;
    /// the log start then rises to the earliest offset the leader serves
    /// (log-start-offset-checkpoint).
    Expire(TierExpireArgs),
}

#[derive(Debug, Args)]
pub struct TierCopyArgs {
    #[command(flatten)]
    pub target: Target,
    /// The LocalTieredStorage dir (default: the one the lab records).
    #[arg(long, value_name = "DIR")]
    pub remote_dir: Option<PathBuf>,
    /// Stop the first copy after its COPY_SEGMENT_STARTED record and N of its files (0-6, in
    /// LocalTieredStorage's order: .log, .index, .timeindex, .txnindex if any, the leader
    /// epoch checkpoint, the producer snapshot): no COPY_SEGMENT_FINISHED, as a broker killed
    /// during an upload leaves it.
    #[arg(long, value_name = "N", allow_negative_numbers = true,
          value_parser = ranged::<u64>(0, 6, "a fileset has at most 6 files"))]
    pub stop_after_files: Option<u64>,
    /// One JSON object per segment copied, then a summary.
    #[arg(long)]
    pub json: bool,
}

#[derive(Debug, Args)]
#[command(group(clap::ArgGroup::new("limit").required(true).args(["local_retention_bytes", "local_retention_ms"])))]
pub struct TierRetainArgs {
    #[command(flatten)]
    pub target: Target,
    /// local.retention.bytes: delete the oldest segments while the local log is larger than N
    /// bytes by at least the segment's size.
    #[arg(long, value_name = "N", allow_negative_numbers = true,
          value_parser = ranged::<u64>(0, I64_MAX, "local.retention.bytes is a non-negative i64 here"))]
    pub local_retention_bytes: Option<u64>,
    /// local.retention.ms: delete the oldest segments whose largest timestamp is more than MS
    /// before now.
    #[arg(long, value_name = "MS", allow_negative_numbers = true,
          value_parser = ranged::<u64>(0, I64_MAX, "local.retention.ms is a non-negative i64 here"))]
    pub local_retention_ms: Option<u64>,
    /// JSON: one object.
    #[arg(long)]
    pub json: bool,
}

#[derive(Debug, Args)]
pub struct TierExpireArgs {
    #[command(flatten)]
    pub target: Target,
    /// The LocalTieredStorage dir (default: the one the lab records).
    #[arg(long, value_name = "DIR")]
    pub remote_dir: Option<PathBuf>,
    /// The topic's retention.ms (default Kafka's, 604800000: 7 days; -1: no limit).
    #[arg(long, value_name = "MS", allow_negative_numbers = true, value_parser = clap::value_parser!(i64).range(-1..))]
    pub retention_ms: Option<i64>,
    /// The topic's retention.bytes: the partition's size across both tiers it keeps (default
    /// -1: no limit).
    #[arg(long, value_name = "BYTES", allow_negative_numbers = true, value_parser = clap::value_parser!(i64).range(-1..))]
    pub retention_bytes: Option<i64>,
    /// JSON lines: one object per segment deleted, then a summary.
    #[arg(long)]
    pub json: bool,
}

#[derive(Debug, Args)]
pub struct RestoreArgs {
    /// A backup dir a command wrote (`<log dir>.klog-backup-N`).
    #[arg(value_name = "BACKUP")]
    pub backup: PathBuf,
    /// The log dir to put back (default: the one BACKUP sits beside, `<log dir>` of its name).
    ///
    /// Never a path read from the backup: after moving a dir and its backup, the restore acts
    /// on the dir beside the backup, whatever the backup says it was made of.
    #[arg(value_name = "LOG_DIR")]
    pub log_dir: Option<PathBuf>,
}
