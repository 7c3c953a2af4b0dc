//! A Kafka release and the replication rules it runs. Each rule is read from Kafka's source at
//! the release tag named beside it; the release is what `--kafka X.Y[.Z]` names, and the three
//! user-facing modes (`--mode hw|kip101|kip279`) stand for the last release of their era.
//! Pure: a version in, a table of rules out.

use std::fmt;

/// A Kafka release as Kafka numbers it: `0.11.0.3` on the 0.x line (four parts), `2.8.2` after
/// it. A missing last part is 0 (`2.8` is 2.8.0, `0.10.2` is 0.10.2.0).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Release {
    /// `[0, a, b, c]` for 0.a.b.c; `[x, y, z, 0]` for x.y.z.
    parts: [u16; 4],
}

impl Release {
    /// Whether the release has tiered storage: KIP-405's early access came in 3.6.0 (the
    /// leader's OFFSET_MOVED_TO_TIERED_STORAGE in `ReplicaManager.handleOffsetOutOfRangeError`,
    /// the follower's `ReplicaFetcherTierStateMachine`).
    pub fn has_tiered_storage(self) -> bool {
        self >= Release::new(3, 6, 0)
    }

    /// x.y.z (x ≥ 1).
    pub const fn new(major: u16, minor: u16, patch: u16) -> Release {
        Release { parts: [major, minor, patch, 0] }
    }

    /// 0.a.b.c.
    pub const fn zero(a: u16, b: u16, c: u16) -> Release {
        Release { parts: [0, a, b, c] }
    }

    /// The oldest release klog models (the first with replication, 0.8.0.0).
    pub const OLDEST: Release = Release::zero(8, 0, 0);
    /// The newest release klog's rules are read from (and the default).
    pub const NEWEST: Release = Release::new(4, 4, 0);

    /// Parse `X.Y[.Z]` (or `0.A.B[.C]`); a release outside [`Release::OLDEST`] ..=
    /// [`Release::NEWEST`] is refused with the reason.
    pub fn parse(text: &str) -> Result<Release, String> {
        let parts: Vec<&str> = text.split('.').collect();
        let mut n = Vec::with_capacity(4);
        for part in &parts {
            if part.is_empty() || part.len() > 4 || !part.bytes().all(|b| b.is_ascii_digit()) {
                return Err(format!("'{text}' is not a Kafka release: '{part}' is not a number (expected X.Y[.Z], e.g. 2.8.2 or 0.11.0.3)"));
            }
            n.push(part.parse::<u16>().map_err(|_| format!("'{text}' is not a Kafka release: '{part}' is too large"))?);
        }
        let zero_line = n.first() == Some(&0);
        let allowed = if zero_line { 3..=4 } else { 2..=3 };
        if !allowed.contains(&n.len()) {
            return Err(format!(
                "'{text}' is not a Kafka release: expected X.Y[.Z] (or 0.A.B[.C] on the 0.x line, e.g. 0.11.0.3)"
            ));
        }
        n.resize(4, 0);
        let r = Release { parts: [n[0], n[1], n[2], n[3]] };
        if r < Release::OLDEST {
            return Err(format!("Kafka {r} has no replication to model (it came with 0.8.0)"));
        }
        // Above the newest release whose rules klog has read, any rule may have changed: a
        // 4.9 that does not exist must not run as 4.4's rules under another name.
        if r > Release::NEWEST {
            return Err(format!(
                "Kafka {r} is newer than the rules klog knows (the newest release whose rules klog has read is {}): \
                 give {} or an older release",
                Release::NEWEST,
                Release::NEWEST
            ));
        }
        Ok(r)
    }

    /// The release a mode stands for when no `--kafka` is given: the last release of its era.
    pub fn of_mode(mode: TruncationMode) -> Release {
        match mode {
            TruncationMode::Hw => Release::zero(10, 2, 2),
            TruncationMode::Kip101 => Release::new(1, 1, 1),
            TruncationMode::Kip279 => Release::NEWEST,
        }
    }

    /// (line, patch): 0.11.0.3 is line 0.11.0, patch 3; 1.1.1 is line 1.1, patch 1.
    fn line_and_patch(self) -> ([u16; 3], u16) {
        let p = self.parts;
        if p[0] == 0 {
            ([0, p[1], p[2]], p[3])
        } else {
            ([p[0], p[1], 0], p[2])
        }
    }

    /// For a fix back-ported to several lines: `fixed_in` lists the first patch of each line
    /// that has it, oldest line first; lines after the last listed have it from their start.
    fn has_fix(self, fixed_in: &[Release]) -> bool {
        let (line, patch) = self.line_and_patch();
        for f in fixed_in {
            let (fline, fpatch) = f.line_and_patch();
            if line == fline {
                return patch >= fpatch;
            }
        }
        fixed_in.last().is_some_and(|last| self > *last)
    }

    pub fn rules(self) -> Rules {
        Rules::of(self)
    }
}

impl fmt::Display for Release {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let p = self.parts;
        if p[0] == 0 {
            write!(f, "0.{}.{}.{}", p[1], p[2], p[3])
        } else {
            write!(f, "{}.{}.{}", p[0], p[1], p[2])
        }
    }
}

/// `inter.broker.protocol.version` (IBP) values in Kafka's order: `ApiVersion.allVersions`
/// (core/src/main/scala/kafka/api/ApiVersion.scala, 2.8.2) and `MetadataVersion`
/// (server-common/src/main/java/org/apache/kafka/server/common/MetadataVersion.java, 3.9) up to
/// 3.9-IV0; Kafka 4 has no IBP (KRaft's metadata.version starts at 3.3-IV3).
const IBP_NAMES: &[&str] = &[
    "0.8.0",
    "0.8.1",
    "0.8.2",
    "0.9.0",
    "0.10.0-IV0",
    "0.10.0-IV1",
    "0.10.1-IV0",
    "0.10.1-IV1",
    "0.10.1-IV2",
    "0.10.2-IV0",
    "0.11.0-IV0",
    "0.11.0-IV1",
    "0.11.0-IV2",
    "1.0-IV0",
    "1.1-IV0",
    "2.0-IV0",
    "2.0-IV1",
    "2.1-IV0",
    "2.1-IV1",
    "2.1-IV2",
    "2.2-IV0",
    "2.2-IV1",
    "2.3-IV0",
    "2.3-IV1",
    "2.4-IV0",
    "2.4-IV1",
    "2.5-IV0",
    "2.6-IV0",
    "2.7-IV0",
    "2.7-IV1",
    "2.7-IV2",
    "2.8-IV0",
    "2.8-IV1",
    "3.0-IV0",
    "3.0-IV1",
    "3.1-IV0",
    "3.2-IV0",
    "3.3-IV0",
    "3.3-IV1",
    "3.3-IV2",
    "3.3-IV3",
    "3.4-IV0",
    "3.5-IV0",
    "3.5-IV1",
    "3.5-IV2",
    "3.6-IV0",
    "3.6-IV1",
    "3.6-IV2",
    "3.7-IV0",
    "3.7-IV1",
    "3.7-IV2",
    "3.7-IV3",
    "3.7-IV4",
    "3.8-IV0",
    "3.9-IV0",
];

/// An `inter.broker.protocol.version`: which request versions a broker sends its peers, and so
/// which of its release's replication rules run (a 2.8 cluster mid-upgrade from 2.0 runs on
/// IBP 2.0 until the second rolling restart).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Ibp(u8);

impl Ibp {
    /// `0.11.0-IV2`: OffsetsForLeaderEpoch at all (`isOffsetForLeaderEpochSupported`; below
    /// it the follower truncates to its HW).
    pub const KAFKA_0_11_0_IV2: Ibp = Ibp::named("0.11.0-IV2");
    /// `2.0-IV0`: OffsetsForLeaderEpoch v1, whose answer carries the epoch (KIP-279).
    pub const KAFKA_2_0_IV0: Ibp = Ibp::named("2.0-IV0");
    /// `2.1-IV1`: OffsetsForLeaderEpoch v2 carries the current leader epoch (KIP-320).
    pub const KAFKA_2_1_IV1: Ibp = Ibp::named("2.1-IV1");
    /// `2.1-IV2`: Fetch v10 carries it too (KIP-320).
    pub const KAFKA_2_1_IV2: Ibp = Ibp::named("2.1-IV2");
    /// `2.7-IV1`: Fetch v12 carries the last fetched epoch (`isTruncationOnFetchSupported`).
    pub const KAFKA_2_7_IV1: Ibp = Ibp::named("2.7-IV1");

    const fn named(name: &str) -> Ibp {
        let mut i = 0;
        while i < IBP_NAMES.len() {
            if const_eq(IBP_NAMES[i], name) {
                return Ibp(i as u8);
            }
            i += 1;
        }
        panic!("not an IBP name");
    }

    /// Kafka's own parse (`ApiVersion.apply`): the first three dot-separated parts on the 0.x
    /// line, two after it, name either an IV (`2.7-IV1`) or a line (`2.7`, `2.7.2`: the
    /// line's last IV).
    pub fn parse(text: &str) -> Result<Ibp, String> {
        let parts = if text.starts_with("0.") { 3 } else { 2 };
        let key: Vec<&str> = text.split('.').take(parts).collect();
        let key = key.join(".");
        if let Some(i) = IBP_NAMES.iter().position(|n| *n == key) {
            return Ok(Ibp(i as u8));
        }
        match IBP_NAMES.iter().rposition(|n| n.split('-').next() == Some(key.as_str())) {
            Some(i) => Ok(Ibp(i as u8)),
            None => Err(format!(
                "'{text}' is not an inter.broker.protocol.version (expected a line such as 2.0 or 0.11.0, or an IV \
                 such as 2.7-IV1, from 0.8.0 to 3.9-IV0)"
            )),
        }
    }

    /// The IBP a release runs by default: its own line's last IV (for 4.x: none, every rule on).
    pub fn of_release(release: Release) -> Option<Ibp> {
        let p = release.parts;
        let line = if p[0] == 0 { format!("0.{}.{}", p[1], p[2]) } else { format!("{}.{}", p[0], p[1]) };
        if p[0] >= 4 {
            return None;
        }
        Ibp::parse(&line).ok()
    }

    pub fn name(self) -> &'static str {
        IBP_NAMES[self.0 as usize]
    }
}

const fn const_eq(a: &str, b: &str) -> bool {
    let (a, b) = (a.as_bytes(), b.as_bytes());
    if a.len() != b.len() {
        return false;
    }
    let mut i = 0;
    while i < a.len() {
        if a[i] != b[i] {
            return false;
        }
        i += 1;
    }
    true
}

/// `--kafka RELEASE[,ibp=IBP][,unclean=BOOL]`: the release, the IBP its brokers run if not
/// their own, and the topic's `unclean.leader.election.enable` if not the release's default.
pub fn parse_kafka(text: &str) -> Result<Rules, String> {
    let mut parts = text.split(',');
    let release = Release::parse(parts.next().unwrap_or(""))?;
    let (mut ibp, mut unclean) = (None, None);
    for part in parts {
        if let (Some(i), None) = (part.strip_prefix("ibp="), ibp) {
            ibp = Some(Ibp::parse(i)?);
        } else if let (Some(u), None) = (part.strip_prefix("unclean="), unclean) {
            unclean = Some(match u {
                "true" => true,
                "false" => false,
                _ => {
                    return Err(format!(
                        "'{text}': unclean= takes true or false (the topic's unclean.leader.election.enable)"
                    ))
                }
            });
        } else {
            return Err(format!(
                "'{text}': after the release only ',ibp=IBP' and ',unclean=true|false' may follow, each once \
                 (e.g. 2.8.2,ibp=2.0 or 1.1.1,unclean=true)"
            ));
        }
    }
    let rules = match ibp {
        None => Rules::of(release),
        Some(i) => Rules::with_ibp(release, i)?,
    };
    Ok(match unclean {
        Some(u) => rules.with_unclean_leader_election(u),
        None => rules,
    })
}

/// What a leader answers to OffsetsForLeaderEpoch for an epoch below its first cached one.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BelowFirstEpoch {
    /// UNDEFINED (the follower falls back to its HW): 0.11 – 2.0.0.
    Undefined,
    /// (the requested epoch, the first cached start offset): 2.0.1 → (KAFKA-7415's rewrite of
    /// `LeaderEpochFileCache`).
    FirstStartOffset,
}

/// When a running follower told of a new leader epoch by the *same* leader truncates again.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SameLeaderNewEpoch {
    /// Never: `Partition.makeFollower` returns false for the same leader (0.8.2 – 2.0.0,
    /// KAFKA-1188).
    Ignored,
    /// Only when the epoch jumps by more than one (2.0.1).
    WhenEpochSkips,
    /// Always: 0.8.0 – 0.8.1 (every LeaderAndIsr truncates to the HW and restarts the fetcher)
    /// and 2.1 → (`makeFollower` compares the epoch).
    Truncates,
}

/// Eligible Leader Replicas (KIP-966).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Elr {
    Absent,
    /// 4.0: off unless the cluster enables it.
    OptIn,
    /// 4.1 →: on for new clusters.
    Default,
}

/// The replication rules of one release. Each field names the Kafka file and tag it follows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Rules {
    pub release: Release,
    /// The `inter.broker.protocol.version` given with `--kafka X,ibp=Y`; `None`: the release's
    /// own ([`Ibp::of_release`]).
    pub ibp: Option<Ibp>,
    /// hw < 0.11 (`ReplicaManager.makeFollowers` truncates to the HW, 0.10.2.2); kip101 0.11 –
    /// 1.1 (`ReplicaFetcherThread.maybeTruncate`, OffsetsForLeaderEpoch v0, 1.1.1); kip279 2.0 →
    /// (`AbstractFetcherThread.getOffsetTruncationState`, 2.0.0).
    pub truncation: TruncationMode,
    /// KAFKA-6857 (0.11.0.3, 1.0.2, 1.1.1, 2.0.0): a leader answers UNDEFINED to epoch −1 (a
    /// follower with an empty cache). Before it, `LeaderEpochFileCache.endOffsetFor` answered
    /// its LEO when its own cache was empty too (−1 == latestEpoch).
    pub undefined_epoch_answered_undefined: bool,
    /// KAFKA-7415 (2.0.1, then 2.1.0 →): a new leader writes (epoch, LEO) into its cache at
    /// election (`Partition.makeLeader`); before it the entry came with the first append.
    pub epoch_entry_on_election: bool,
    /// `LeaderEpochFileCache.endOffsetFor` for an epoch below the first cached (2.0.0 vs 2.0.1).
    pub below_first_epoch: BelowFirstEpoch,
    /// KAFKA-10554 (2.8.0): the follower fetches with its last fetched epoch and the leader
    /// answers a diverging epoch in the fetch response (`Partition.readRecords`); an undefined
    /// end offset is OFFSET_OUT_OF_RANGE, handled by `fetchOffsetAndTruncate` (truncate to the
    /// leader's LEO when below the follower's).
    pub truncation_on_fetch: bool,
    /// KAFKA-12996 (2.8.1): a fetch offset below the leader's log start is OFFSET_OUT_OF_RANGE
    /// even when the epochs diverge (Partition.scala:1111-1115@2.8.1). 2.8.0 answers the
    /// diverging epoch first (Partition.scala:1112@2.8.0).
    pub below_log_start_before_diverging: bool,
    /// KAFKA-13141 (2.8.1): a leader answering a diverging epoch does not record the follower's
    /// fetch offset (ReplicaManager.scala:1766-1769@2.8.1). 2.8.0 records it like any read
    /// without error (ReplicaManager.scala:1761-1772@2.8.0), and its HW may move on it.
    pub diverging_answer_skips_fetch_state: bool,
    /// KAFKA-14704 (3.4.1, 3.5.0): a fetch response carrying a diverging epoch is not processed
    /// as data (`AbstractFetcherThread.processFetchRequest`): the follower's HW waits for the
    /// next fetch. Before it (2.8.0 – 3.4.0) `processPartitionData` ran on the empty records and
    /// set the HW to min(the response's HW, the LEO before the cut).
    pub diverging_response_skips_high_watermark: bool,
    /// KIP-320 (2.1.0, on IBP 2.1-IV2 or later: Fetch v10): fetch carries the current leader
    /// epoch and a stale one is refused (FENCED_LEADER_EPOCH / UNKNOWN_LEADER_EPOCH).
    pub fetch_fencing: bool,
    /// KIP-320 for OffsetsForLeaderEpoch (2.1.0, on IBP 2.1-IV1 or later: v2): the truncation
    /// request carries the follower's current leader epoch, and a leader not yet at it answers
    /// UNKNOWN_LEADER_EPOCH.
    pub offsets_for_leader_epoch_fencing: bool,
    /// `Partition.makeFollower` at each tag: 0.8.0 and 0.8.1.1 always truncate again, 0.8.2.0 to
    /// 2.0.0 compare the leader only, 2.0.1 also lets epoch + 1 through, 2.1.0 compares the epoch.
    pub same_leader_new_epoch: SameLeaderNewEpoch,
    /// KAFKA-15583 (3.7.0): the HW does not advance while the ISR is below min.insync.replicas.
    pub hw_waits_for_min_isr: bool,
    /// The topic's `unclean.leader.election.enable`: the release's default (true before
    /// 0.11.0.0, false from it: KafkaConfig.scala:132@0.10.2.2, :134@0.11.0.0) unless
    /// `--kafka X,unclean=true|false` names it. It decides [`Rules::past_leader_end_halts`]
    /// (and, in the explorer, is `--unclean`).
    pub unclean_leader_election: bool,
    /// KIP-966: 4.0 opt-in, 4.1 default for new clusters.
    pub elr: Elr,
    /// KAFKA-19522 (4.1.0; not in 4.0.0 - 4.0.2): the KRaft controller elects the last known
    /// leader only if it is alive (`PartitionChangeBuilder.canElectLastKnownLeader`).
    pub last_known_leader_must_be_alive: bool,
}

impl Rules {
    pub fn of(release: Release) -> Rules {
        Rules::build(release, None)
    }

    /// The rules of `release` run on inter.broker.protocol.version `ibp`; refused when the
    /// release has no such setting (4.x) or does not know that version (one above its own).
    pub fn with_ibp(release: Release, ibp: Ibp) -> Result<Rules, String> {
        match Ibp::of_release(release) {
            None => Err(format!(
                "Kafka {release} has no inter.broker.protocol.version (KRaft's metadata.version, at least \
                 3.3-IV3, has every rule klog models): drop ',ibp={}'",
                ibp.name()
            )),
            Some(own) if ibp > own => Err(format!(
                "Kafka {release} does not know inter.broker.protocol.version {} (its newest is {}): give ibp={} or \
                 an older one, or leave ibp out for the release's own",
                ibp.name(),
                own.name(),
                own.name()
            )),
            // The release's own IBP is no change: the rules are the release's.
            Some(own) if ibp == own => Ok(Rules::build(release, None)),
            Some(_) => Ok(Rules::build(release, Some(ibp))),
        }
    }

    /// The IBP the rules run on: the one given, else the release's own (`None` on 4.x).
    pub fn effective_ibp(&self) -> Option<Ibp> {
        self.ibp.or_else(|| Ibp::of_release(self.release))
    }

    fn build(release: Release, ibp: Option<Ibp>) -> Rules {
        let r = release;
        let at = |major, minor, patch| r >= Release::new(major, minor, patch);
        // The request versions the follower sends (ReplicaFetcherThread, 2.8.2;
        // MetadataVersion, 3.9): None is 4.x, where every one is on.
        let effective = ibp.or_else(|| Ibp::of_release(r));
        let ibp_at = |v: Ibp| effective.is_none_or(|i| i >= v);
        let truncation = if r < Release::zero(11, 0, 0) || !ibp_at(Ibp::KAFKA_0_11_0_IV2) {
            TruncationMode::Hw
        } else if !at(2, 0, 0) || !ibp_at(Ibp::KAFKA_2_0_IV0) {
            TruncationMode::Kip101
        } else {
            TruncationMode::Kip279
        };
        let kafka_6857 = r.has_fix(&[Release::zero(11, 0, 3), Release::new(1, 0, 2), Release::new(1, 1, 1)]);
        Rules {
            release,
            ibp,
            truncation,
            undefined_epoch_answered_undefined: kafka_6857,
            epoch_entry_on_election: at(2, 0, 1),
            below_first_epoch: if at(2, 0, 1) { BelowFirstEpoch::FirstStartOffset } else { BelowFirstEpoch::Undefined },
            truncation_on_fetch: at(2, 8, 0) && ibp_at(Ibp::KAFKA_2_7_IV1),
            diverging_response_skips_high_watermark: r.has_fix(&[Release::new(3, 4, 1)]),
            below_log_start_before_diverging: at(2, 8, 1),
            diverging_answer_skips_fetch_state: at(2, 8, 1),
            fetch_fencing: at(2, 1, 0) && ibp_at(Ibp::KAFKA_2_1_IV2),
            offsets_for_leader_epoch_fencing: at(2, 1, 0) && ibp_at(Ibp::KAFKA_2_1_IV1),
            same_leader_new_epoch: if at(2, 1, 0) || r < Release::zero(8, 2, 0) {
                SameLeaderNewEpoch::Truncates
            } else if at(2, 0, 1) {
                SameLeaderNewEpoch::WhenEpochSkips
            } else {
                SameLeaderNewEpoch::Ignored
            },
            hw_waits_for_min_isr: at(3, 7, 0),
            unclean_leader_election: r < Release::zero(11, 0, 0),
            elr: if at(4, 1, 0) {
                Elr::Default
            } else if at(4, 0, 0) {
                Elr::OptIn
            } else {
                Elr::Absent
            },
            last_known_leader_must_be_alive: at(4, 1, 0),
        }
    }

    /// The newest release's rules for a mode's era ([`Release::of_mode`]).
    pub fn of_mode(mode: TruncationMode) -> Rules {
        Rules::of(Release::of_mode(mode))
    }

    /// Whether a running follower, told that `same_leader` leads again at `new_epoch` (it
    /// followed it at `current_epoch`), restarts its fetcher and truncates.
    pub fn refollows(&self, same_leader: bool, current_epoch: i32, new_epoch: i32) -> bool {
        if !same_leader {
            return true;
        }
        match self.same_leader_new_epoch {
            SameLeaderNewEpoch::Ignored => false,
            SameLeaderNewEpoch::WhenEpochSkips => new_epoch > current_epoch + 1,
            SameLeaderNewEpoch::Truncates => new_epoch > current_epoch,
        }
    }

    /// Whether a follower whose log end is past the leader's (its fetch is OFFSET_OUT_OF_RANGE)
    /// stops its broker instead of truncating to the leader's end: `handleOffsetOutOfRange`
    /// throws FatalExitError when the topic's `unclean.leader.election.enable` is false
    /// (ReplicaFetcherThread.scala:179-190@2.0.0; `Runtime.getRuntime.halt(1)` from 0.8.2.0,
    /// `System.exit(1)` in 0.10.2). KAFKA-7414 removed the check in 2.0.1; it never came to
    /// 0.11.0.x, 1.0.x or 1.1.x, whose last releases keep it.
    pub fn past_leader_end_halts(&self) -> bool {
        self.release >= Release::zero(8, 2, 0) && self.release < Release::new(2, 0, 1) && !self.unclean_leader_election
    }

    /// These rules with the topic's `unclean.leader.election.enable` set.
    pub fn with_unclean_leader_election(self, enabled: bool) -> Rules {
        Rules { unclean_leader_election: enabled, ..self }
    }

    /// Whether `unclean.leader.election.enable` is the release's default.
    fn unclean_is_default(&self) -> bool {
        self.unclean_leader_election == Rules::of(self.release).unclean_leader_election
    }

    /// "Kafka 1.1.1" (with "on IBP 2.0-IV1" when one was given) — what reports print beside the mode.
    pub fn describe_release(&self) -> String {
        let mut d = match self.ibp {
            Some(i) => format!("Kafka {} on IBP {}", self.release, i.name()),
            None => format!("Kafka {}", self.release),
        };
        if !self.unclean_is_default() {
            d.push_str(&format!(" with unclean.leader.election.enable={}", self.unclean_leader_election));
        }
        d
    }

    /// The `--kafka` value that names these rules: `2.8.2`, `2.8.2,ibp=2.0-IV1`, `1.1.1,unclean=true`.
    pub fn kafka_arg(&self) -> String {
        let mut arg = match self.ibp {
            Some(i) => format!("{},ibp={}", self.release, i.name()),
            None => self.release.to_string(),
        };
        if !self.unclean_is_default() {
            arg.push_str(&format!(",unclean={}", self.unclean_leader_election));
        }
        arg
    }

    /// "Kafka 1.1.1 (kip101)".
    pub fn describe(&self) -> String {
        format!("{} ({})", self.describe_release(), self.truncation.name())
    }
}

/// Which Kafka era's follower truncation to apply (the procedures are
/// [`super::truncation`]'s; kept here, with the rules that choose one, so that the rules never
/// import the planner).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TruncationMode {
    /// Kafka ≤ 0.10.2: truncate to the follower's own high watermark.
    Hw,
    /// Kafka 0.11–1.1 (KIP-101): one OffsetsForLeaderEpoch v0 round trip, offset-only answer.
    Kip101,
    /// Kafka ≥ 2.0 (KIP-279): (epoch, end offset) answers, asking again until the epochs agree.
    Kip279,
}

impl TruncationMode {
    /// Every mode, oldest first.
    pub const ALL: [TruncationMode; 3] = [TruncationMode::Hw, TruncationMode::Kip101, TruncationMode::Kip279];

    /// The name used on the command line and in reports.
    pub fn name(self) -> &'static str {
        match self {
            TruncationMode::Hw => "hw",
            TruncationMode::Kip101 => "kip101",
            TruncationMode::Kip279 => "kip279",
        }
    }

    /// The inverse of [`TruncationMode::name`].
    pub fn from_name(name: &str) -> Option<TruncationMode> {
        TruncationMode::ALL.into_iter().find(|m| m.name() == name)
    }

    /// The Kafka versions whose followers behave this way.
    pub fn kafka_versions(self) -> &'static str {
        match self {
            TruncationMode::Hw => "Kafka <= 0.10.2",
            TruncationMode::Kip101 => "Kafka 0.11-1.1",
            TruncationMode::Kip279 => "Kafka >= 2.0",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rules(text: &str) -> Rules {
        Release::parse(text).unwrap().rules()
    }

    #[test]
    fn releases_parse_as_kafka_spells_them_and_refuse_what_is_not_one() {
        assert_eq!(Release::parse("2.8").unwrap(), Release::new(2, 8, 0));
        assert_eq!(Release::parse("2.8.2").unwrap(), Release::new(2, 8, 2));
        assert_eq!(Release::parse("0.11.0.3").unwrap().to_string(), "0.11.0.3");
        assert_eq!(Release::parse("0.10.2").unwrap().to_string(), "0.10.2.0");
        assert!(Release::parse("0.10.2").unwrap() < Release::parse("0.11.0").unwrap());
        assert!(Release::parse("0.11.0.3").unwrap() < Release::parse("1.0").unwrap());
        assert!(Release::parse("0.7.0").unwrap_err().contains("no replication"));
        assert!(Release::parse("0.11").is_err(), "the 0.x line has four parts");
        assert!(Release::parse("5.0").unwrap_err().contains("newer"));
        // above the newest release read, in any part: refused, naming the newest
        for above in ["4.4.1", "4.5", "4.9", "4.99.0", "4.10", "9.0.0"] {
            let e = Release::parse(above).unwrap_err();
            assert!(e.contains("newer than the rules klog knows") && e.contains("4.4.0"), "{above}: {e}");
        }
        assert_eq!(Release::parse("4.4").unwrap(), Release::NEWEST);
        assert_eq!(Release::parse("4.4.0").unwrap(), Release::NEWEST);
        assert!(Release::parse("2").is_err());
        assert!(Release::parse("2.x").is_err());
        assert!(Release::parse("2.8.2.1").is_err());
        assert!(Release::parse("2.99999").is_err());
    }

    /// core/src/main/scala/kafka/server/ReplicaManager.scala (0.10.2.2): truncate to the HW;
    /// ReplicaFetcherThread.scala (0.11.0.0 .. 1.1.1): OffsetsForLeaderEpoch v0;
    /// AbstractFetcherThread.scala (2.0.0): getOffsetTruncationState.
    #[test]
    fn the_truncation_procedure_follows_the_release() {
        assert_eq!(rules("0.10.2.2").truncation, TruncationMode::Hw);
        assert_eq!(rules("0.8.2").truncation, TruncationMode::Hw);
        assert_eq!(rules("0.11.0").truncation, TruncationMode::Kip101);
        assert_eq!(rules("1.1.1").truncation, TruncationMode::Kip101);
        assert_eq!(rules("2.0").truncation, TruncationMode::Kip279);
        assert_eq!(rules("4.4").truncation, TruncationMode::Kip279);
    }

    /// LeaderEpochFileCache.endOffsetFor: `requestedEpoch == UNDEFINED_EPOCH` first appears in
    /// 0.11.0.3, 1.0.2, 1.1.1 and 2.0.0 (KAFKA-6857); 0.11.0.2, 1.0.1, 1.1.0 lack it.
    #[test]
    fn kafka_6857_is_in_the_patch_releases_that_carry_it() {
        for (text, fixed) in [
            ("0.11.0.0", false),
            ("0.11.0.2", false),
            ("0.11.0.3", true),
            ("1.0.1", false),
            ("1.0.2", true),
            ("1.1.0", false),
            ("1.1.1", true),
            ("2.0.0", true),
            ("3.9.1", true),
        ] {
            assert_eq!(rules(text).undefined_epoch_answered_undefined, fixed, "{text}");
        }
    }

    /// core/src/main/scala/kafka/cluster/Partition.scala (2.0.1): `makeLeader` runs
    /// `epochCache.assign(leaderEpoch, leaderEpochStartOffset)` at election (KAFKA-7415), which
    /// 2.0.0's `makeLeader` does not; core/src/main/scala/kafka/server/epoch/
    /// LeaderEpochFileCache.scala (2.0.1): `endOffsetFor` answers `(requestedEpoch,
    /// subsequentEpochs.head.startOffset)` below the first epoch, where 2.0.0 answers UNDEFINED.
    #[test]
    fn kafka_7415_ships_in_2_0_1() {
        let r200 = rules("2.0.0");
        let r201 = rules("2.0.1");
        assert!(!r200.epoch_entry_on_election && r201.epoch_entry_on_election);
        assert!(rules("2.1.0").epoch_entry_on_election && rules("4.4.0").epoch_entry_on_election);
        assert!(!rules("1.1.1").epoch_entry_on_election);
        assert_eq!(r200.below_first_epoch, BelowFirstEpoch::Undefined);
        assert_eq!(r201.below_first_epoch, BelowFirstEpoch::FirstStartOffset);
        assert_eq!(rules("2.1.0").below_first_epoch, BelowFirstEpoch::FirstStartOffset);
    }

    /// KIP-320 (core/src/main/scala/kafka/cluster/Partition.scala, 2.1.0: `checkCurrentLeaderEpoch`
    /// → FENCED_LEADER_EPOCH / UNKNOWN_LEADER_EPOCH): 2.0.1's `Partition` has no such check.
    #[test]
    fn kip_320_fencing_starts_at_2_1() {
        assert!(!rules("2.0.1").fetch_fencing && rules("2.1.0").fetch_fencing);
    }

    /// core/src/main/scala/kafka/cluster/Partition.scala, `makeFollower`: 0.8.0 returns true for
    /// any newer epoch (and truncates to the HW itself), 0.8.1.1 always returns true (and
    /// ReplicaManager.makeFollowers truncates every partition of the request); 0.8.2.0 (KAFKA-1188),
    /// 0.10.2.2, 1.1.1 and 2.0.0 `leaderReplicaIdOpt.get == newLeaderBrokerId` → false; 2.0.1
    /// `leaderEpoch == oldLeaderEpoch || leaderEpoch == oldLeaderEpoch + 1` → false; 2.1.0
    /// `leaderEpoch == oldLeaderEpoch` → false.
    #[test]
    fn a_running_follower_refollows_the_same_leader_by_the_releases_rule() {
        assert!(rules("0.8.0").refollows(true, 3, 4));
        assert!(rules("0.8.1.1").refollows(true, 3, 4));
        assert!(!rules("0.8.2.0").refollows(true, 3, 4));
        assert!(!rules("0.10.2.2").refollows(true, 3, 4));
        assert!(!rules("2.0.0").refollows(true, 3, 4));
        assert!(!rules("2.0.0").refollows(true, 3, 9), "2.0.0 compares the leader only");
        assert!(!rules("1.1.1").refollows(true, 3, 9));
        assert!(rules("1.1.1").refollows(false, 3, 4));
        assert!(!rules("2.0.1").refollows(true, 3, 4));
        assert!(rules("2.0.1").refollows(true, 3, 5));
        assert!(rules("2.1.0").refollows(true, 3, 4));
        assert!(!rules("2.1.0").refollows(true, 3, 3));
    }

    /// Issue 41, point 5. ReplicaFetcherThread.scala:179-190@2.0.0: `if (!...
    /// uncleanLeaderElectionEnable) { fatal(...); throw new FatalExitError }` before truncating to
    /// the leader's end; the same check at ReplicaFetcherThread.scala:155-160@0.11.0.0,
    /// :157-161@1.0.2 and :168-172@1.1.1; gone at 2.0.1 (KAFKA-7414). KafkaConfig.scala:134@0.11.0.0
    /// `UncleanLeaderElectionEnable = false` (:132@0.10.2.2: true).
    #[test]
    fn a_follower_past_the_leaders_end_stops_its_broker_from_0_11_0_to_2_0_0() {
        for (text, halts) in [
            ("0.8.1.1", false),
            ("0.10.2.2", false),
            ("0.11.0.0", true),
            ("0.11.0.3", true),
            ("1.0.2", true),
            ("1.1.1", true),
            ("2.0.0", true),
            ("2.0.1", false),
            ("2.1.0", false),
            ("4.4.0", false),
        ] {
            assert_eq!(rules(text).past_leader_end_halts(), halts, "{text}");
        }
    }

    /// KAFKA-10554 (fetch-response truncation) is in 2.8.0; KAFKA-15583 in 3.7.0; KIP-966 4.0/4.1.
    #[test]
    fn the_later_rules_start_where_kafka_shipped_them() {
        assert!(!rules("2.7.2").truncation_on_fetch && rules("2.8.0").truncation_on_fetch);
        assert!(!rules("3.6.2").hw_waits_for_min_isr && rules("3.7.0").hw_waits_for_min_isr);
        assert_eq!(rules("3.9.1").elr, Elr::Absent);
        assert_eq!(rules("4.0.0").elr, Elr::OptIn);
        assert_eq!(rules("4.1.0").elr, Elr::Default);
    }

    /// Issue 41, point 4: 2.8.0 is not 2.8.1. KAFKA-12996 (Partition.scala:1111-1115@2.8.1, the
    /// log-start check before the diverging one) and KAFKA-13141 (ReplicaManager.scala:1766-1769
    /// @2.8.1, no fetch state on a diverging read) are both in 2.8.1 and 3.0.0, neither in 2.8.0.
    #[test]
    fn kafka_12996_and_13141_are_in_2_8_1_not_2_8_0() {
        for (text, fixed) in [("2.8.0", false), ("2.8.1", true), ("2.8.2", true), ("3.0.0", true), ("4.4.0", true)] {
            let r = rules(text);
            assert_eq!(
                (r.below_log_start_before_diverging, r.diverging_answer_skips_fetch_state),
                (fixed, fixed),
                "{text}"
            );
        }
    }

    /// AbstractFetcherThread.processFetchRequest: `isDivergingEpoch` skips processPartitionData
    /// from 3.4.1 (and 3.5.0); 3.4.0 and 3.3.2 still process the empty records.
    #[test]
    fn kafka_14704_is_in_3_4_1_and_3_5() {
        for (text, fixed) in [("2.8.2", false), ("3.3.2", false), ("3.4.0", false), ("3.4.1", true), ("3.5.0", true)] {
            assert_eq!(rules(text).diverging_response_skips_high_watermark, fixed, "{text}");
        }
    }

    /// org/apache/kafka/controller/PartitionChangeBuilder.class in the kafka-metadata jars:
    /// `canElectLastKnownLeader` returns false for a last known leader that is not alive from
    /// 4.1.0 (also 4.1.1, 4.1.2, 4.2.0, 4.3.0, 4.4.0); 4.0.0, 4.0.1 and 4.0.2 return true on both
    /// branches of the `isAcceptableLeader` test (KAFKA-19522 was not back-ported to 4.0.x).
    #[test]
    fn kafka_19522_starts_at_4_1_0() {
        for (text, checked) in [("3.9.1", false), ("4.0.0", false), ("4.0.2", false), ("4.1.0", true), ("4.4.0", true)]
        {
            assert_eq!(rules(text).last_known_leader_must_be_alive, checked, "{text}");
        }
    }

    /// core/src/main/scala/kafka/api/ApiVersion.scala (2.8.2): `ApiVersion.apply` keys on the
    /// first three parts on the 0.x line and two after it; a line names its last IV.
    #[test]
    fn ibps_parse_as_kafkas_api_version_does() {
        assert_eq!(Ibp::parse("2.0").unwrap().name(), "2.0-IV1");
        assert_eq!(Ibp::parse("2.0.1").unwrap().name(), "2.0-IV1");
        assert_eq!(Ibp::parse("2.7-IV1").unwrap(), Ibp::KAFKA_2_7_IV1);
        assert_eq!(Ibp::parse("0.11.0").unwrap().name(), "0.11.0-IV2");
        assert_eq!(Ibp::parse("0.10.2").unwrap().name(), "0.10.2-IV0");
        assert_eq!(Ibp::parse("0.8.2").unwrap().name(), "0.8.2");
        assert_eq!(Ibp::parse("3.9").unwrap().name(), "3.9-IV0");
        assert!(Ibp::parse("2.7") > Ibp::parse("2.7-IV1"));
        for bad in ["2.9", "2.7-IV9", "x", "", "0.11", "4.0"] {
            assert!(Ibp::parse(bad).unwrap_err().contains("not an inter.broker.protocol.version"), "{bad}");
        }
        assert_eq!(Ibp::of_release(Release::new(2, 8, 2)).unwrap().name(), "2.8-IV1");
        assert_eq!(Ibp::of_release(Release::zero(11, 0, 3)).unwrap().name(), "0.11.0-IV2");
        assert_eq!(Ibp::of_release(Release::new(4, 0, 0)), None);
    }

    /// core/src/main/scala/kafka/server/ReplicaFetcherThread.scala (2.8.2) and server-common/
    /// src/main/java/org/apache/kafka/server/common/MetadataVersion.java (3.9):
    /// `isOffsetForLeaderEpochSupported` ≥ 0.11.0-IV2, `offsetForLeaderEpochRequestVersion` 1 from
    /// 2.0-IV0 and 2 (current leader epoch) from 2.1-IV1, `fetchRequestVersion` 10 from 2.1-IV2,
    /// `isTruncationOnFetchSupported` ≥ 2.7-IV1; AbstractFetcherThread.getOffsetTruncationState
    /// (2.8.2) truncates to min(answer, LEO) when the answer has no epoch (v0).
    #[test]
    fn the_ibp_decides_which_of_the_releases_rules_run() {
        let at = |release: &str, ibp: &str| parse_kafka(&format!("{release},ibp={ibp}")).unwrap();
        let own = rules("2.8.2");
        assert_eq!(own, at("2.8.2", "2.8"), "the release's own IBP is its default");
        assert!(own.truncation_on_fetch && own.fetch_fencing && own.offsets_for_leader_epoch_fencing);
        let r = at("2.8.2", "2.7-IV0");
        assert!(!r.truncation_on_fetch && r.fetch_fencing && r.truncation == TruncationMode::Kip279);
        assert!(at("2.8.2", "2.7-IV1").truncation_on_fetch);
        let r = at("2.8.2", "2.1-IV1");
        assert!(r.offsets_for_leader_epoch_fencing && !r.fetch_fencing);
        let r = at("2.8.2", "2.0");
        assert!(!r.offsets_for_leader_epoch_fencing && !r.fetch_fencing && r.truncation == TruncationMode::Kip279);
        assert_eq!(at("2.8.2", "1.1").truncation, TruncationMode::Kip101);
        assert_eq!(at("2.8.2", "0.11.0-IV2").truncation, TruncationMode::Kip101);
        assert_eq!(at("2.8.2", "0.11.0-IV1").truncation, TruncationMode::Hw);
        assert_eq!(at("1.1.1", "0.10.2").truncation, TruncationMode::Hw);
        // The leader's own rules do not move with the IBP.
        let r = at("2.8.2", "0.10.2");
        assert!(r.epoch_entry_on_election && r.below_first_epoch == BelowFirstEpoch::FirstStartOffset);
        assert_eq!(r.describe(), "Kafka 2.8.2 on IBP 0.10.2-IV0 (hw)");
        assert_eq!(r.kafka_arg(), "2.8.2,ibp=0.10.2-IV0");
        assert_eq!(parse_kafka(&r.kafka_arg()).unwrap(), r);
        assert!(parse_kafka("2.0.1,ibp=2.1").unwrap_err().contains("does not know"));
        assert!(parse_kafka("4.0.0,ibp=3.9").unwrap_err().contains("no inter.broker.protocol.version"));
        assert!(parse_kafka("2.8.2,ibp=").is_err());
        assert!(parse_kafka("2.8.2,mode=hw").unwrap_err().contains(",ibp=IBP"));
        assert!(parse_kafka("1.1.1,unclean=yes").unwrap_err().contains("true or false"));
        let r = parse_kafka("1.1.1,unclean=true").unwrap();
        assert!(r.unclean_leader_election && !r.past_leader_end_halts());
        assert_eq!((r.kafka_arg().as_str(), parse_kafka(&r.kafka_arg()).unwrap()), ("1.1.1,unclean=true", r));
        assert_eq!(parse_kafka("1.1.1,unclean=false").unwrap(), rules("1.1.1"), "the release's default");
        assert!(parse_kafka("0.10.2.2,unclean=false").unwrap().past_leader_end_halts());
        assert!(parse_kafka("2.8.2,ibp=2.0,ibp=2.1").is_err());
    }

    #[test]
    fn each_mode_stands_for_the_last_release_of_its_era() {
        assert_eq!(Rules::of_mode(TruncationMode::Hw).describe(), "Kafka 0.10.2.2 (hw)");
        assert_eq!(Rules::of_mode(TruncationMode::Kip101).describe(), "Kafka 1.1.1 (kip101)");
        assert_eq!(Rules::of_mode(TruncationMode::Kip279).release, Release::NEWEST);
    }
}
