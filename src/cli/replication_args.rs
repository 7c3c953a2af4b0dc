//! The flags of replication and its failures: `fetch`, `crash`, `recover`, the Kafka release a
//! command runs as; and the requests they become.

use super::*;

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

impl From<ModeArg> for TruncationMode {
    fn from(m: ModeArg) -> Self {
        match m {
            ModeArg::Hw => TruncationMode::Hw,
            ModeArg::Kip101 => TruncationMode::Kip101,
            ModeArg::Kip279 => TruncationMode::Kip279,
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
