//! Every subcommand and flag of klog, with its documentation (clap derive), and everything
//! resolved from the command line and the environment before a command runs: the output
//! [`Settings`], the requests the commands take (`From<&Args>`), and the exit code
//! ([`Outcome`]). The doc comments, [`examples`] and [`exit_codes`] here are the one source of
//! `--help`, the man pages and the shell completions. Nothing outside `main.rs` and this file
//! reads the command line or the environment.

use crate::commands;
use crate::error::{Error, Result};
use crate::output::{fit, Settings};
use crate::replication::release::Rules;
use crate::replication::truncation::TruncationMode;
use clap::{Args, CommandFactory, FromArgMatches, Parser, Subcommand, ValueEnum};
use std::path::{Path, PathBuf};

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
    /// watch, kip101-1, kip101-2, kip279, stuck-lso or tiers (default: kip101-1).
    ///
    /// stuck-lso is about transactions, not truncation: producers die mid-transaction, and what
    /// holds the last stable offset, and what frees it, is the scenario's question (the
    /// coordinator's timeout, or `kafka-transactions.sh abort`); it takes no --mode.
    ///
    /// tiers runs Kafka 4.4's rules on a lab with a remote tier (KIP-405): a follower restarts
    /// below the leader's local log start, then an unclean election while the old leader's
    /// segments sit in remote storage; it takes no --mode.
    #[arg(value_name = "SCENARIO", value_parser = clap::builder::PossibleValuesParser::new(commands::demo::SCENARIO_NAMES))]
    pub scenario: Option<String>,
    /// Truncation mode(s) to run the scenario under (default: hw and kip101; kip101 and kip279
    /// for the kip279 scenario).
    #[arg(long, value_enum, ignore_case = true)]
    pub mode: Option<DemoMode>,
    /// Run in this (empty or absent) directory instead of a temp dir.
    #[arg(long, value_name = "DIR")]
    pub dir: Option<PathBuf>,
    /// Keep the temp dir (its path is printed).
    #[arg(long)]
    pub keep: bool,
    /// Stop before each step whose outcome the scenario is about, ask what will happen, read
    /// the answer from stdin, then show the truth and why; end with a score.
    ///
    /// Answers are read one line each, so a file or a pipe works; at the end of input every
    /// remaining question is revealed unanswered.
    #[arg(long)]
    pub predict: bool,
    /// Pause before each step until Enter (a line on stdin); at the end of input the rest runs
    /// without pausing. `--predict` already pauses at each question.
    #[arg(long, conflicts_with = "predict")]
    pub step: bool,
    /// After each step, the procedure that ran (election, append, fetch round, recovery), in
    /// klog's words, with the lines that ran marked and the values they saw.
    #[arg(long)]
    pub explain: bool,
    /// Also write the run as one self-contained HTML filmstrip (one frame per step, stepped
    /// with the arrow keys or a slider; `FILE#step=N` opens frame N).
    #[arg(long, value_name = "FILE")]
    pub capture: Option<PathBuf>,
    /// Replace an existing file at --capture FILE that is not klog's own filmstrip output (never inside a
    /// Kafka log dir).
    #[arg(long)]
    pub force: bool,
    /// Show each replica as one `offset:(epoch,value)` line instead of the picture.
    #[arg(long)]
    pub plain: bool,
}

#[derive(Debug, Args)]
pub struct ExploreArgs {
    /// Truncation mode(s) to explore, each by the rules of its era's last release (hw: 0.10.2.2,
    /// kip101: 1.1.1, kip279: the newest).
    #[arg(long, value_enum, ignore_case = true, default_value_t = DemoMode::All)]
    pub mode: DemoMode,
    /// Explore one Kafka release's rules instead, X.Y[.Z] (0.A.B[.C] on the 0.x line).
    ///
    /// `X.Y.Z,ibp=IBP` runs the release on an older inter.broker.protocol.version (a line such
    /// as 2.0, or an IV such as 2.7-IV1): below 2.7-IV1 no truncation on fetch, below 2.1-IV2 no
    /// KIP-320 fencing, below 2.0-IV0 OffsetsForLeaderEpoch v0 (KIP-101), below 0.11.0-IV2 the
    /// HW. Releases before 2.1, or on an IBP below 2.1-IV2, are unfenced as if --no-fencing
    /// (on 2.1-IV1 a follower told of an election before its leader is still answered
    /// UNKNOWN_LEADER_EPOCH). With --unclean, 0.11.0 to 2.0.0 run with
    /// unclean.leader.election.enable true.
    #[arg(long, value_name = "RELEASE[,ibp=IBP]", conflicts_with = "mode", value_parser = parse_kafka)]
    pub kafka: Option<Rules>,
    /// Number of replicas (2 or 3).
    #[arg(allow_negative_numbers = true, long, default_value_t = commands::explore::DEFAULT_REPLICAS as u8, value_name = "N",
          value_parser = ranged::<u8>(2, 3, "the explorer models 2 or 3 replicas"))]
    pub replicas: u8,
    /// Most elections in a history (epochs 0 .. E-1).
    #[arg(allow_negative_numbers = true, long, default_value_t = commands::explore::DEFAULT_MAX_EPOCHS, value_name = "E",
          value_parser = ranged::<u8>(1, crate::explore::model::MAX_EPOCHS as i128, "a state holds at most 8 epochs"))]
    pub max_epochs: u8,
    /// Most records appended in a history.
    #[arg(allow_negative_numbers = true, long, default_value_t = commands::explore::DEFAULT_MAX_RECORDS, value_name = "R",
          value_parser = ranged::<u8>(1, crate::explore::model::MAX_RECORDS as i128 - 1, "a log holds at most 7 records here"))]
    pub max_records: u8,
    /// Most actions in a history (the depth of the search).
    #[arg(allow_negative_numbers = true, long, default_value_t = commands::explore::DEFAULT_MAX_DEPTH, value_name = "D",
          value_parser = ranged::<u32>(1, 64, "deeper than 64 actions is beyond any machine here"))]
    pub max_depth: u32,
    /// Elections may also pick a live replica outside the ISR (on Kafka 4.x: the admin's
    /// unclean election, for a partition with no leader).
    #[arg(long)]
    pub unclean: bool,
    /// Replicas are not fenced by the epochs they have seen (Kafka before KIP-320's
    /// FENCED_LEADER_EPOCH; the scripts use `recover --no-fencing`, `fetch --no-fencing`). A
    /// running replica still ignores a leader change not above its epoch, as every release does;
    /// an election may reach a follower before its leader, which answers from its older state
    /// (the stale receiver; scripts use `recover --leader-epoch E --told-first`).
    #[arg(long)]
    pub no_fencing: bool,
    /// Crashes may also drop unflushed bytes; flush becomes an action.
    #[arg(long)]
    pub power_loss: bool,
    /// A crash leaves the HW last checkpointed, not the live one: a broker writes
    /// replication-offset-checkpoint every 5 s, and the checkpoint becomes an action (the
    /// scripts use `crash --hw N`).
    #[arg(long)]
    pub stale_hw: bool,
    /// The topic's min.insync.replicas: a leader appends only with an ISR that large, itself
    /// included, and its HW waits while the ISR is smaller (from Kafka 3.7; on 4.x the KRaft
    /// controller also fills Eligible Leader Replicas below it).
    #[arg(allow_negative_numbers = true, long, default_value_t = 1, value_name = "N",
          value_parser = ranged::<u8>(1, 3, "the explorer models at most 3 replicas"))]
    pub min_isr: u8,
    /// Kafka 4.x: Eligible Leader Replicas (KIP-966) on or off. Default: as a new cluster of the
    /// release has them (off on 4.0, on from 4.1).
    #[arg(long, value_name = "on|off", value_parser = parse_on_off)]
    pub elr: Option<bool>,
    /// Stop a search after this many distinct states (it then says so). Default: 25,000,000,
    /// or as many as the memory this process may use holds (about 256 bytes a state); a cap
    /// above that is refused before the search.
    #[arg(allow_negative_numbers = true, long, value_name = "N", value_parser = ranged::<u64>(1, I64_MAX, "a count"))]
    pub max_states: Option<u64>,
    /// Write each counterexample as a runnable bash script to FILE (FILE-<mode>.ext for several
    /// modes).
    #[arg(long, value_name = "FILE")]
    pub script: Option<PathBuf>,
    /// Replace an existing file at --script FILE that is not klog's own script output (never inside a
    /// Kafka log dir).
    #[arg(long)]
    pub force: bool,
    /// Write everything as one JSON document.
    #[arg(long)]
    pub json: bool,
    /// Leave the seconds and states per second out of the text (for output compared byte for
    /// byte, as the golden tests do).
    #[arg(long, hide = true)]
    pub no_timing: bool,
}

impl<'a> From<&'a ExploreArgs> for commands::explore::ExploreRequest<'a> {
    fn from(a: &'a ExploreArgs) -> Self {
        let modes = match a.mode {
            DemoMode::Hw => vec![TruncationMode::Hw],
            DemoMode::Kip101 => vec![TruncationMode::Kip101],
            DemoMode::Kip279 => vec![TruncationMode::Kip279],
            DemoMode::All => TruncationMode::ALL.to_vec(),
        };
        let runs = match a.kafka {
            Some(rules) => vec![rules],
            None => modes.into_iter().map(Rules::of_mode).collect(),
        };
        commands::explore::ExploreRequest {
            runs,
            replicas: a.replicas as usize,
            max_epochs: a.max_epochs,
            max_records: a.max_records,
            max_depth: a.max_depth,
            unclean: a.unclean,
            // KIP-320 only where the release and its IBP have it (Fetch v10, IBP 2.1-IV2).
            fencing: !a.no_fencing && a.kafka.is_none_or(|r| r.fetch_fencing),
            power_loss: a.power_loss,
            stale_hw: a.stale_hw,
            min_isr: a.min_isr,
            elr: a.elr,
            threads: std::thread::available_parallelism().map_or(1, |n| n.get()),
            max_states: a.max_states,
            script: a.script.as_deref(),
            force: a.force,
        }
    }
}

#[derive(Debug, Args)]
pub struct LabArgs {
    /// The lab dir: an empty or absent directory klog makes (default: a new temp dir, printed).
    #[arg(long, value_name = "DIR")]
    pub dir: Option<PathBuf>,
    /// The port on 127.0.0.1 (0: a random free one).
    #[arg(long, default_value_t = 0, value_name = "N")]
    pub port: u16,
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
    /// Number of fetch rounds (1 to 1,000,000).
    #[arg(allow_negative_numbers = true, long, default_value_t = 1, value_name = "N", conflicts_with = "until_caught_up",
          value_parser = ranged::<u64>(1, MAX_ROUNDS, "a fetch runs at least one round; more than a million is a mistake"))]
    pub rounds: u64,
    /// Fetch until nothing is copied and both high watermarks are equal.
    #[arg(long)]
    pub until_caught_up: bool,
    /// Most bytes one round returns (at least one whole batch is always returned).
    #[arg(allow_negative_numbers = true, long, default_value_t = crate::replication::fetch::DEFAULT_FETCH_MAX_BYTES, value_name = "B",
          value_parser = ranged::<u64>(0, I32_MAX, "Kafka's fetch max bytes is an i32"))]
    pub max_bytes: u64,
    /// fsync the follower after each round (moves its recovery point).
    #[arg(long)]
    pub flush: bool,
    /// No FENCED_LEADER_EPOCH check (Kafka before KIP-320): fetch from the leader followed even
    /// when the follower has seen a larger epoch.
    #[arg(long)]
    pub no_fencing: bool,
    // From Kafka 2.8 (the default) each fetch sends the follower's latest epoch, and the
    // leader answers a diverging epoch or OFFSET_OUT_OF_RANGE that the follower truncates on;
    // before 2.8 it sends none.
    #[command(flatten)]
    pub release: ReleaseArgs,
    /// Write one JSON object per round.
    #[arg(long)]
    pub json: bool,
    /// Also print each round's fetch procedure as pseudo-code, with the lines that ran marked
    /// and the values they saw.
    #[arg(long, conflicts_with = "json")]
    pub explain: bool,
    /// Fetch between dirs of another cluster instead of refusing them.
    ///
    /// Without it, a leader and follower whose `meta.properties` do not say they are brokers of
    /// one cluster (another `cluster.id`, one only one side records, the same node id) are
    /// refused in one line naming both dirs and ids (exit 2, nothing written).
    #[arg(long)]
    pub allow_other_cluster: bool,
}

#[derive(Debug, Args)]
pub struct CrashArgs {
    #[command(flatten)]
    pub target: Target,
    /// Cut every segment back to the recovery point: what only the page cache held is gone.
    #[arg(long)]
    pub power_loss: bool,
    /// Cut N bytes off the end of the active segment (a torn write).
    #[arg(allow_negative_numbers = true, long, value_name = "N", value_parser = ranged::<u64>(1, I32_MAX, "a segment's size is an i32 in Kafka"))]
    pub torn_bytes: Option<u64>,
    /// Flip (xor 0xff) the byte at POSITION of the active segment; without POSITION, a byte of
    /// a batch chosen with --seed.
    #[arg(allow_negative_numbers = true, long, value_name = "POSITION", num_args = 0..=1,
          value_parser = ranged::<u64>(0, I32_MAX, "a position in a segment is an i32 in Kafka"))]
    pub flip_byte: Option<Option<u64>>,
    /// Seed for the random choice of --flip-byte (needs --flip-byte without POSITION).
    #[arg(long, value_name = "N", requires = "flip_byte")]
    pub seed: Option<u64>,
    /// Leave this value in the HW checkpoint (a stale one, or any).
    #[arg(long = "hw", value_name = "N", allow_negative_numbers = true,
          value_parser = ranged::<i64>(0, I64_MAX, "an offset is a non-negative i64 in Kafka"))]
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

/// `--mode` / `--kafka`: the release whose follower rules a command runs (`recover --leader`,
/// `fetch`). Both need `--leader`, which `fetch` always has.
#[derive(Debug, Args)]
pub struct ReleaseArgs {
    /// Which Kafka era's follower rules to apply (needs --leader): the rules of the era's last
    /// release (hw: 0.10.2.2, kip101: 1.1.1, kip279: the newest). Default: kip279.
    #[arg(long, value_enum, ignore_case = true, requires = "leader")]
    pub mode: Option<ModeArg>,
    /// The Kafka release whose follower rules to apply, X.Y[.Z] (0.A.B[.C] on the 0.x line),
    /// e.g. 0.11.0.3, 1.1.0, 2.0.1, 2.8.2 (needs --leader; instead of --mode).
    ///
    /// `X.Y.Z,ibp=IBP` runs the release on an older inter.broker.protocol.version (a line such
    /// as 2.0, or an IV such as 2.7-IV1), as a cluster does mid-upgrade: below 2.7-IV1 no
    /// truncation on fetch (OffsetsForLeaderEpoch instead), below 2.1-IV1 no KIP-320 fencing,
    /// below 2.0-IV0 OffsetsForLeaderEpoch v0 (KIP-101's truncation), below 0.11.0-IV2 the HW.
    /// Releases before 2.1, or on an IBP below 2.1-IV1, are unfenced as if --no-fencing.
    ///
    /// `,unclean=true|false` sets the topic's unclean.leader.election.enable (default: the
    /// release's, false from 0.11.0.0): with it false, 0.8.2 to 2.0.0 stop a follower's broker
    /// whose log ends past the leader's instead of truncating it.
    #[arg(long, value_name = "RELEASE[,ibp=IBP][,unclean=BOOL]", requires = "leader", conflicts_with = "mode", value_parser = parse_kafka)]
    pub kafka: Option<Rules>,
}

#[derive(Debug, Args)]
#[command(group(clap::ArgGroup::new("epoch_use").args(["dry_run", "told_first"]).multiple(true)))]
pub struct RecoverArgs {
    /// The replica to recover (the follower with --leader).
    #[arg(value_name = "DIR")]
    pub dir: PathBuf,
    /// More brokers' data dirs: with them (or --cluster) and --dry-run, the cluster view with
    /// each follower's restart against its partition's current leader (see --cluster).
    #[arg(value_name = "MORE", conflicts_with = "leader")]
    pub more: Vec<PathBuf>,
    #[command(flatten)]
    pub cluster: ClusterFlag,
    /// Restart DIR as a follower of this leader and truncate it by --mode.
    #[arg(long, value_name = "LEADER")]
    pub leader: Option<PathBuf>,
    #[command(flatten)]
    pub release: ReleaseArgs,
    /// Print the same report and change nothing on disk.
    #[arg(long)]
    pub dry_run: bool,
    /// Then fetch until caught up and report what arrived and whether the logs agree.
    #[arg(long, requires = "leader", conflicts_with = "dry_run")]
    pub catch_up: bool,
    /// Kept records shown before the first truncated or divergent offset (needs --leader).
    #[arg(allow_negative_numbers = true, long, default_value_t = 3, value_name = "N", requires = "leader",
          value_parser = ranged::<u32>(0, MAX_CONTEXT, "more context than that is a dump: use klog dump --from"))]
    pub context: u32,
    /// Write the report as one JSON document.
    #[arg(long)]
    pub json: bool,
    /// The partition dir to use when the log dirs hold several.
    #[arg(long, value_name = "NAME")]
    pub partition: Option<String>,
    /// Also print the mode's follower truncation procedure as pseudo-code, with the lines
    /// that ran in this recovery marked and the values they saw (needs --leader, and one
    /// partition: not with a data dir's restart plan).
    #[arg(long, requires = "leader", conflicts_with = "json")]
    pub explain: bool,
    /// No FENCED_LEADER_EPOCH check (Kafka before KIP-320): follow the leader even when its
    /// epoch is below one this replica has seen. A running replica still ignores a leader change
    /// not above its epoch, as every release does.
    #[arg(long, requires = "leader")]
    pub no_fencing: bool,
    /// With --dry-run (e.g. on a broker's data dirs, from the cluster's metadata): the epoch the
    /// controller gave LEADER. A leader stamps its epoch at its log end when it takes over, so one
    /// above the latest in LEADER's cache starts there. Default: the latest in LEADER's cache.
    #[arg(allow_negative_numbers = true, long, value_name = "EPOCH", requires = "leader", requires = "epoch_use",
          value_parser = ranged::<i32>(0, 2_147_483_647, "a leader epoch is a non-negative i32 in Kafka"))]
    pub leader_epoch: Option<i32>,
    /// DIR was told that LEADER leads at --leader-epoch before LEADER was (a leader still running
    /// at a lower epoch): refused from KIP-320 (Kafka 2.1: UNKNOWN_LEADER_EPOCH until LEADER has
    /// taken it); with --no-fencing LEADER answers from the log it has and is left as it is (the
    /// stale receiver before KIP-320).
    #[arg(long, requires = "leader_epoch")]
    pub told_first: bool,
    /// A KRaft metadata log (a log dir holding __cluster_metadata-0, e.g. a controller's, or
    /// that dir) to take each partition's leader, epoch, ISR and ELR from, with --leader or in
    /// the cluster view of several brokers' dirs. Default: the furthest-along one in LEADER's or
    /// DIR's log dir (the cluster view: in any of the dirs), if any. A metadata log whose log
    /// dir records another `cluster.id` than the dirs is refused (see --allow-other-cluster).
    #[arg(long, value_name = "DIR", requires = "leader")]
    pub metadata: Option<PathBuf>,
    /// A tiered leader's LocalTieredStorage dir (its `rsm.config.dir`, or the
    /// `kafka-tiered-storage` dir in it): a follower below the leader's local log start takes
    /// the epoch cache of the remote segment it rebuilds from (`.leader_epoch_checkpoint`);
    /// without it, the leader's own cache up to that point is shown instead.
    #[arg(long, value_name = "DIR", requires = "leader")]
    pub remote_dir: Option<PathBuf>,
}

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
    /// Write the comparison as one JSON document.
    #[arg(long)]
    pub json: bool,
}

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

const I32_MAX: i128 = i32::MAX as i128;
const I64_MAX: i128 = i64::MAX as i128;
/// The most fetch rounds one command runs.
const MAX_ROUNDS: i128 = 1_000_000;
/// The most kept records `recover` shows before the cut.
const MAX_CONTEXT: i128 = 1_000_000;
/// The largest value one record can carry in a v2 batch whose size field is an i32: the batch
/// header (61 bytes, `DefaultRecordBatch.RECORD_BATCH_OVERHEAD`) and the record's own framing
/// (length 5, attributes 1, timestamp delta 1, offset delta 1, null key 1, value length 5,
/// header count 1) taken off `i32::MAX`.
pub const MAX_VALUE_BYTES: u64 = i32::MAX as u64 - 61 - 15;

/// A value parser for an integer in `min..=max`, whose error names the limit and where it
/// comes from (clap prints it after `invalid value '<v>' for '<flag>'`).
fn ranged<T>(min: i128, max: i128, why: &'static str) -> impl Fn(&str) -> std::result::Result<T, String> + Clone
where
    T: TryFrom<i128>,
{
    move |text: &str| {
        let out_of_range = || format!("must be between {min} and {max} ({why})");
        let digits = text.trim().strip_prefix(['-', '+']).unwrap_or(text.trim());
        let n: i128 = text.trim().parse().map_err(|_| {
            // All digits but too many for any integer: out of range, not malformed.
            if !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit()) {
                out_of_range()
            } else {
                format!("not a whole number (expected {min} to {max})")
            }
        })?;
        if !(min..=max).contains(&n) {
            return Err(out_of_range());
        }
        T::try_from(n).map_err(|_| out_of_range())
    }
}

/// Kafka's topic name rules (`org.apache.kafka.common.internals.Topic.validate`).
fn topic_name(text: &str) -> std::result::Result<String, String> {
    crate::log::names::validate_topic(text).map(|()| text.to_string())
}

// ---- Examples and exit codes: one source for `--help` and the man pages. ----

/// Two or three commands for each subcommand's help and man page.
pub fn examples(name: &str) -> &'static [&'static str] {
    match name {
        "klog" => &[
            "klog demo",
            "klog create /tmp/b --replica-id 2 && klog elect /tmp/b && klog append /tmp/b m1 m2",
            "klog recover /tmp/a --leader /tmp/b --mode kip279 --dry-run",
        ],
        "create" => &[
            "klog create /tmp/b --replica-id 2",
            "klog create /tmp/b --topic orders --partition 3 --segment-bytes 1048576",
        ],
        "elect" => &["klog elect /tmp/b --isr /tmp/a /tmp/c", "klog elect /tmp/a --epoch 5 --epoch-entry first-append"],
        "alter-isr" => &["klog alter-isr /tmp/a --isr /tmp/b", "klog alter-isr /tmp/a"],
        "append" => &[
            "klog append /tmp/b m1 m2 --key user-7 --header trace=abc",
            "klog append /tmp/b --count 1000000 --value-size 100 --flush",
            "klog append /tmp/b t1 t2 --producer-id 7 --transactional && klog append /tmp/b --producer-id 7 --end-txn abort",
        ],
        "dump" => &[
            "klog dump /tmp/b --epochs",
            "klog dump /data --topic orders --since 2026-12-07T03:00:00Z --key user-7",
            "klog dump /tmp/b/demo-0/00000000000000000000.index",
        ],
        "check" => &["klog check /tmp/b", "klog check /var/lib/kafka --partition orders-3 --json"],
        "txn" => &[
            "klog txn /copies/b1",
            "klog txn /copies/b1 --partition orders-3 --json",
            "klog txn /copies/b1 /copies/b2 /copies/b3 --format kafka",
        ],
        "history" => &[
            "klog history /var/lib/kafka",
            "klog history /copies/b1 --partition orders-3 --replica /copies/b1 --replica /copies/b2 --json",
        ],
        "fetch" => &[
            "klog fetch --leader /tmp/b /tmp/a --rounds 3",
            "klog fetch --leader /tmp/b /tmp/a --until-caught-up --flush",
            "klog fetch --leader /tmp/b /tmp/a --rounds 2 --kafka 2.7.2 --explain",
        ],
        "flush" => &["klog flush /tmp/b", "klog flush /var/lib/kafka --partition orders-3"],
        "stop" => &["klog stop /tmp/b", "klog stop /var/lib/kafka --partition orders-3"],
        "crash" => &[
            "klog crash /tmp/a --power-loss",
            "klog crash /tmp/a --flip-byte --seed 42",
            "klog crash /tmp/a --torn-bytes 7 --hw 0 --drop-epoch-checkpoint",
        ],
        "recover" => &[
            "klog recover /tmp/a",
            "klog recover /tmp/a --leader /tmp/b --mode hw --dry-run",
            "klog recover /tmp/a --leader /tmp/b --mode kip279 --catch-up --json",
        ],
        "restore" => &["klog crash /copies/b1 --allow-broker-dir-writes", "klog restore /copies/b1.klog-backup-1"],
        "diff" => &["klog diff /tmp/a /tmp/b", "klog diff /tmp/a /tmp/b --json"],
        "remote" => &[
            "klog remote /var/kafka/data",
            "klog remote b1/data b2/data b3/data --remote-dir /var/kafka/tiered",
            "klog remote b1/data --json",
        ],
        "tier" => &[
            "klog create /tmp/a --replica-id 1 --segment-bytes 1024 --remote-dir /tmp/remote",
            "klog tier copy /tmp/a && klog tier retain /tmp/a --local-retention-bytes 2048",
            "klog tier copy /tmp/a --stop-after-files 1 && klog crash /tmp/a",
        ],
        "demo" => &[
            "klog demo",
            "klog demo kip101-1 --mode hw --predict",
            "klog demo kip101-1 --mode all --capture kip101-1.html",
        ],
        "draw" => &["klog draw /tmp/a /tmp/b", "klog draw /tmp/a /tmp/b --from 10 --limit 8 --svg ab.svg"],
        "explore" => &[
            "klog explore",
            "klog explore --mode hw --script /tmp/hw.sh; bash /tmp/hw.sh",
            "klog explore --kafka 4.4 --elr off --min-isr 2 --power-loss --replicas 3",
        ],
        "lab" => &["klog lab", "klog lab --dir /tmp/klog-lab --port 8080"],
        "generate" => &["klog generate man /usr/local/share/man/man1", "klog generate completions bash > klog.bash"],
        _ => &[],
    }
}

/// The exit codes of each subcommand and what they mean.
pub fn exit_codes(name: &str) -> &'static [(u8, &'static str)] {
    const ERROR: (u8, &str) = (2, "error (one line on stderr; nothing on disk changed)");
    match name {
        "klog" => {
            &[(0, "success"), (1, "findings (check), divergence (diff), a stuck fetch, a violation (explore)"), ERROR]
        }
        "check" | "txn" => &[(0, "clean"), (1, "findings"), ERROR],
        "diff" => &[(0, "identical up to the shorter log end"), (1, "diverged"), ERROR],
        "remote" => {
            &[(0, "no findings"), (1, "a rejected event, an unfinished copy, a gap or a remote file at odds"), ERROR]
        }
        "fetch" => {
            &[(0, "success"), (1, "stuck: a batch below the follower's LEO, or nothing to cut on OUT_OF_RANGE"), ERROR]
        }
        "explore" => &[(0, "no violation within the bounds"), (1, "a violation was found"), ERROR],
        _ => &[(0, "success"), ERROR],
    }
}

/// The widest an example line is shown (80 columns less the help's indent), so a terminal
/// of 80 never wraps one in the middle of a command.
const EXAMPLE_COLUMNS: usize = 78;

/// An example command cut into shell lines of at most `width` characters, at spaces, each
/// line but the last ending in ` \` (or after `&&`, `|` or `;`, where the shell goes on
/// reading anyway), continuation lines indented two: copied whole, it still runs.
fn example_lines(example: &str, width: usize) -> Vec<String> {
    let joins = |w: &str| matches!(w, "&&" | "|" | ";") || w.ends_with(';');
    let mut lines = Vec::new();
    let mut words: Vec<&str> = Vec::new();
    let shown = |lines: &Vec<String>, words: &[&str]| {
        format!("{}{}", if lines.is_empty() { "" } else { "  " }, words.join(" "))
    };
    for word in example.split(' ') {
        words.push(word);
        // Room for the ` \` a continued line ends in.
        if words.len() > 1 && shown(&lines, &words).chars().count() + 2 > width {
            let next = words.pop().into_iter().collect::<Vec<_>>();
            // Break after the last `&&` on the line if there is one, else before this word.
            let cut = words.iter().rposition(|w| joins(w)).map_or(words.len(), |i| i + 1);
            let rest: Vec<&str> = words.drain(cut..).chain(next).collect();
            let line = shown(&lines, &words);
            lines.push(if words.last().is_some_and(|w| joins(w)) { line } else { format!("{line} \\") });
            words = rest;
        }
    }
    lines.push(shown(&lines, &words));
    lines
}

/// The end of a command's `--help`: its examples and exit codes.
pub fn help_tail(name: &str) -> String {
    let mut text = String::from("Examples:\n");
    for e in examples(name) {
        for line in example_lines(e, EXAMPLE_COLUMNS) {
            text.push_str(&format!("  {line}\n"));
        }
    }
    text.push_str("\nExit codes:\n");
    for (code, what) in exit_codes(name) {
        text.push_str(&format!("  {code}  {what}\n"));
    }
    text.trim_end().to_string()
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

impl From<ModeArg> for TruncationMode {
    fn from(m: ModeArg) -> Self {
        match m {
            ModeArg::Hw => TruncationMode::Hw,
            ModeArg::Kip101 => TruncationMode::Kip101,
            ModeArg::Kip279 => TruncationMode::Kip279,
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

impl<'a> From<&'a FetchArgs> for commands::fetch::FetchRequest<'a> {
    fn from(a: &'a FetchArgs) -> Self {
        commands::fetch::FetchRequest {
            leader: &a.leader,
            follower: &a.follower,
            partition: a.partition.as_deref(),
            rounds: a.rounds,
            until_caught_up: a.until_caught_up,
            max_bytes: a.max_bytes,
            flush: a.flush,
            // A release before KIP-320 (or on an IBP below it) fetches unfenced, as recover runs.
            fencing: !a.no_fencing && a.release.kafka.is_none_or(|r| r.fetch_fencing),
            rules: a.release.rules(),
            allow_other_cluster: a.allow_other_cluster,
        }
    }
}

/// The era a command runs by when neither `--kafka` nor `--mode` names one.
pub const DEFAULT_MODE: TruncationMode = TruncationMode::Kip279;

/// The rules of the last release of `mode`'s era, or of [`DEFAULT_MODE`]'s: the one place the
/// default is applied (the terminal's commands and the lab's alike).
pub fn rules_of(mode: Option<TruncationMode>) -> Rules {
    Rules::of_mode(mode.unwrap_or(DEFAULT_MODE))
}

impl ReleaseArgs {
    /// The rules `--kafka` names, or the last release of `--mode`'s era ([`rules_of`]).
    pub fn rules(&self) -> Rules {
        match self.kafka {
            Some(rules) => rules,
            None => rules_of(self.mode.map(Into::into)),
        }
    }
}

impl RecoverArgs {
    /// [`ReleaseArgs::rules`].
    pub fn rules(&self) -> Rules {
        self.release.rules()
    }
}

/// `--kafka RELEASE[,ibp=IBP][,unclean=BOOL]`.
fn parse_kafka(text: &str) -> Result<Rules, String> {
    crate::replication::release::parse_kafka(text)
}

fn parse_on_off(text: &str) -> Result<bool, String> {
    match text {
        "on" => Ok(true),
        "off" => Ok(false),
        _ => Err(format!("'{}' is neither on nor off", text.chars().take(20).collect::<String>())),
    }
}

impl<'a> From<&'a RecoverArgs> for commands::recover::RecoverRequest<'a> {
    fn from(a: &'a RecoverArgs) -> Self {
        commands::recover::RecoverRequest {
            dir: &a.dir,
            partition: a.partition.as_deref(),
            leader: a.leader.as_deref(),
            rules: a.rules(),
            dry_run: a.dry_run,
            catch_up: a.catch_up,
            context: i64::from(a.context),
            leader_epoch: a.leader_epoch,
            told_first: a.told_first,
            // KIP-320 only where the release and its IBP have it (OffsetsForLeaderEpoch v2, IBP
            // 2.1-IV1); the --mode stand-ins keep the check unless --no-fencing.
            fencing: !a.no_fencing && a.release.kafka.is_none_or(|r| r.offsets_for_leader_epoch_fencing),
            metadata: a.metadata.as_deref(),
            allow_other_cluster: a.cluster.allow_other_cluster,
            remote_dir: a.remote_dir.as_deref(),
        }
    }
}

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

impl From<&CrashArgs> for crate::crash::CrashOptions {
    fn from(a: &CrashArgs) -> Self {
        crate::crash::CrashOptions {
            power_loss: a.power_loss,
            torn_bytes: a.torn_bytes,
            flip_byte: a.flip_byte,
            seed: a.seed,
            high_watermark: a.high_watermark,
            drop_epoch_checkpoint: a.drop_epoch_checkpoint,
            drop_index: a.drop_index,
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

impl DemoArgs {
    /// The lab root (`--dir`, or a fresh name under `temp_dir`) and whether it is temporary.
    pub fn lab(&self, temp_dir: &Path) -> (PathBuf, bool) {
        match &self.dir {
            Some(d) => (d.clone(), false),
            None => {
                let nanos =
                    std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.subsec_nanos());
                (temp_dir.join(format!("klog-demo-{}-{nanos}", std::process::id())), true)
            }
        }
    }

    /// The request, refusing `--mode` for a scenario that has no truncation step.
    pub fn request<'a>(&'a self, root: &'a Path) -> Result<commands::demo::DemoRequest<'a>> {
        let scenario = self.scenario.as_deref().unwrap_or("kip101-1");
        if self.mode.is_some() && !commands::demo::scenario(scenario).is_some_and(|s| s.uses_mode) {
            // tiers truncates, but only under Kafka 4.4's rules (remote storage came in 3.6).
            let why = if scenario == "tiers" {
                "runs Kafka 4.4's rules only (a remote tier needs 3.6 or later)"
            } else {
                "has no truncation step"
            };
            return Err(Error::Usage(format!(
                "--mode: the {scenario} scenario {why}, so no mode applies (modes apply to watch, kip101-1, \
                 kip101-2 and kip279)"
            )));
        }
        let (mode, all_modes) = match self.mode {
            None => (None, false),
            Some(DemoMode::All) => (None, true),
            Some(DemoMode::Hw) => (Some(TruncationMode::Hw), false),
            Some(DemoMode::Kip101) => (Some(TruncationMode::Kip101), false),
            Some(DemoMode::Kip279) => (Some(TruncationMode::Kip279), false),
        };
        Ok(commands::demo::DemoRequest {
            scenario: self.scenario.as_deref(),
            mode,
            all_modes,
            dir: root,
            predict: self.predict,
        })
    }
}

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
