//! Seeded random walks of the explorer's transitions on real KRaft brokers, in lockstep with the
//! explorer's model (issue #34): `real_explore.rs`'s fixed sequences generalized.
//!
//! A walk is drawn from a seed: after the topic's creation (on brokers 1 and 2, the model's
//! replicas 0 and 1), each step is one the model enables and the brokers can do — produce one
//! record with acks=all, kill -9, power loss (kill -9, then `klog crash --power-loss` on the
//! stopped dir), controlled shutdown (SIGTERM: the model's flush then crash), pause (SIGSTOP: the
//! controller fences the silent broker, the model's crash), resume (SIGCONT, the model's restart),
//! restart, and the admin's unclean election when the model offers one. Each step is done to the
//! brokers and applied to the model ([`State::apply`]); the model then settles as brokers do on
//! their own (followers follow and fetch, the leader expands its ISR). After each step the
//! brokers must show, within 30 s and still 1.5 s later, the controller record the model predicts
//! (leader, leader epoch, ISR, ELR, last known leader), and then, within 20 s, each replica's log
//! (offset, leader epoch, value) and high watermark (`klog dump --json` on a copy of its dir; the
//! HW checkpoint is written every 500 ms here). A produce must be acknowledged exactly when the
//! model acks the record. The walk ends by bringing every broker back (resume, restart), and the
//! acknowledged records the final leader lacks must be the ones the model's final leader lacks.
//!
//! ZooKeeper mode (`Target::ZK`: 3.9.1, 2.8.2, 2.1.1, 2.0.1, 2.0.0, 1.1.1, 0.11.0.3, 0.10.2.2;
//! `zk_brokers.rs`) runs the same walks against the model's ZooKeeper controller
//! ([`Controller::Zk`]): the controller's record is its ZooKeeper znode (leader, leader epoch,
//! ISR; no ELR to compare), the topic's `unclean.leader.election.enable` is drawn per walk (the
//! controller then elects uncleanly on its own; no admin election is drawn), and every change
//! the controller writes is a leader epoch (an ISR change too); Kafka's epoch while the partition
//! has no leader is numbered as in KRaft mode. A kill or pause ends when the broker's ZooKeeper
//! registration is gone (its session expired: the controller has failed it). The topic's
//! unclean setting is also the model's (`Rules::with_unclean_leader_election`): it decides
//! whether a follower past the leader's end stops its broker or truncates. The cluster is set
//! so that the controller, not the leader's own shrink, takes a failed follower out of the ISR
//! (`zk_brokers.rs`: which comes first is timing, which the model does not follow). A controlled
//! shutdown of an ISR follower before 2.5.0 may end one epoch later (the follower's last fetch
//! rejoins it): the walk follows that where the leader's log shows it ([`rejoin_race`]). A
//! disagreement after a ZooKeeper session expiry no step caused is re-run once, then reported as
//! the machine's load ([`run_walks`]).
//!
//! Releases: Kafka 4.4.0 (the oracle's classpath) with ELR on and off, 4.1.2 (ELR on by
//! default), 4.0.2 (off by default) and 3.9.1 in KRaft mode (no ELR; modelled by the 4.x
//! controller with ELR off), each from its own classpath (`kafka-oracle/kraft/pom.xml`); the
//! client is 4.4's. Kafka numbers leader epochs differently from the model (an epoch for each
//! time the partition is left without a leader): the model's are renumbered ([`Run::epochs`]). A
//! kill, power cut or pause ends when the controller has fenced the broker (its log line; the
//! model's crash fences at once). With ELR on, controlled shutdown and pause are not drawn: the model's
//! restart is a registration after an unclean shutdown (it leaves the ELR), which neither a clean
//! shutdown nor a resumed broker is. Preferred elections are not drawn: the model's KRaft
//! controller has no preferred election.
//!
//! Tiered walks (issue 45, `Target::TIERED`, `real_tiered_walks.rs`): the same walks on a tiered
//! 4.4.0 cluster, with uploads (every produce), local deletions (`local-delete`) and the tiers
//! compared after each step; no power cuts there.
//!
//! Directed walks (issue #34, "a walk that reaches it"): tests/real-walks/*.json with
//! `"reaches"` are fixed step lists written so that one release rule decides a step — the same
//! action from the same model state under the rule's other reading (another release's) ends in
//! another state ([`Rule`], noted by [`apply_first`]; no hook in the model). The model alone
//! checks this (`directed_walks_reach_their_rules_on_the_model`); on real brokers
//! (`directed_walks_agree_on_real_brokers`, `scripts/real-walks --directed`) every step must
//! also agree. 2.0.1's answer below the first epoch (a leader re-elected with an empty log after
//! a power cut; the returning follower's epoch 0 is below its first, and 2.0.1 cuts the record
//! 2.0.0 would keep) and 4.0.2's fenced last known leader (ELR on, min ISR 2: with ISR and ELR
//! empty the controller elects the fenced broker 2; clients see no leader, the record ISR [2]
//! where 4.1 leaves ISR [] and last known leader [2]) are reached. 2.0.0's `makeFollower` (the
//! leader id only) is not: with the walks' two replicas a running follower is in the ISR and is
//! elected when its leader fails, and the ZooKeeper controller's ISR expansions keep the epoch,
//! so it is never told the leader it follows at a new epoch; only a follower paused past its
//! ZooKeeper session and resumed with its memory is, and the model takes a pause for a crash
//! and a resume for a restart (a new follower, which every release truncates). A search of the
//! model (`search_rule_walks`, ignored) over every walk of up to 9 steps (min ISR 1 and 2,
//! unclean on and off) finds none on 2.0.0.
//!
//! Issue 41's point 5 is reached on 2.0.0 (tests/real-walks/2.0.0-zk-past-leader-end-halts.json:
//! a follower past the empty leader's end, the topic's unclean election off, stops its broker,
//! which logs "Exiting because log truncation is not allowed"). Point 3 (IBP 2.1-IV1's
//! UNKNOWN_LEADER_EPOCH) is not reachable by a walk: the model answers it only for a follower
//! told of the leader's new epoch before the leader is (an `Announce`), and no walk step holds
//! back the controller's LeaderAndIsr to one broker (both get it from the controller within
//! milliseconds, in its order); a walk's followers learn an epoch with their leader. Point 4's
//! KAFKA-12996 (a fetch below the leader's log start) is not reachable either: no walk step
//! moves a log start (no DeleteRecords, no retention), so every fetch is at or above 0. Nor is
//! its KAFKA-13141: a follower told of a new leader or epoch truncates in `settle` (a
//! `Recover`) before it fetches, so no walk's fetch meets a diverging answer.
//!
//! `cargo test --test kafka` runs a fixed-seed subset (`walks_agree_on_real_kraft_brokers`,
//! `walks_agree_on_real_zookeeper_brokers`). The long run is `scripts/real-walks` (the ignored
//! test `long_run`, set by `KLOG_WALKS_*`): per release walks, steps and `N of M` agreement, and
//! with `KLOG_WALKS_MINIMIZE=1` each disagreeing walk is cut to the shortest walk that still
//! disagrees and written as a named case (tests/real-walks/*.json), which `kept_cases_replay`
//! replays (it says so when there is none). Needs the Kafka oracle's classpath and each
//! release's (and kafka-python for ZooKeeper mode); fails under `KLOG_CI` without them.

use crate::kraft_brokers::Cluster;
use crate::real_failovers::{isr, leader, power_cut, records, Seq};
use crate::zk_brokers::{Brokers, ZkCluster};
use replica_lab::explore::model::{Action, Config, Controller, State, Violation, MAX_RECORDS};
use replica_lab::replication::release::{BelowFirstEpoch, Release, Rules, SameLeaderNewEpoch};
use serde_json::{json, Value};
use std::path::{Path, PathBuf};
use std::thread::sleep;
use std::time::{Duration, Instant};

macro_rules! say {
    ($($arg:tt)*) => {{
        use std::io::Write;
        let _ = writeln!(std::io::stderr(), $($arg)*);
    }};
}

/// One step of a walk, on broker `n` (1 or 2: the model's replica n − 1). The topic's creation
/// is every walk's first step and is not listed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Step {
    Produce,
    Kill(usize),
    PowerLoss(usize),
    Shutdown(usize),
    Pause(usize),
    Resume(usize),
    Restart(usize),
    Unclean,
    /// A tiered walk's local deletion: local retention passes (`real_tiered_walks.rs`).
    LocalDelete,
}

impl Step {
    fn text(self) -> String {
        match self {
            Step::Produce => "produce".into(),
            Step::Kill(n) => format!("kill {n}"),
            Step::PowerLoss(n) => format!("power-loss {n}"),
            Step::Shutdown(n) => format!("shutdown {n}"),
            Step::Pause(n) => format!("pause {n}"),
            Step::Resume(n) => format!("resume {n}"),
            Step::Restart(n) => format!("restart {n}"),
            Step::Unclean => "unclean".into(),
            Step::LocalDelete => "local-delete".into(),
        }
    }

    pub(crate) fn parse(text: &str) -> Option<Step> {
        let mut words = text.split(' ');
        let verb = words.next()?;
        let n = words.next().and_then(|w| w.parse::<usize>().ok()).filter(|n| (1..=2).contains(n));
        Some(match (verb, n) {
            ("produce", None) => Step::Produce,
            ("unclean", None) => Step::Unclean,
            ("local-delete", None) => Step::LocalDelete,
            ("kill", Some(n)) => Step::Kill(n),
            ("power-loss", Some(n)) => Step::PowerLoss(n),
            ("shutdown", Some(n)) => Step::Shutdown(n),
            ("pause", Some(n)) => Step::Pause(n),
            ("resume", Some(n)) => Step::Resume(n),
            ("restart", Some(n)) => Step::Restart(n),
            _ => return None,
        })
    }
}

/// A release and cluster setting the walks run on.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Target {
    pub(crate) release: &'static str,
    pub(crate) elr: bool,
    /// ZooKeeper mode (`zk_brokers.rs`, the model's [`Controller::Zk`]); KRaft otherwise.
    pub(crate) zk: bool,
    /// A tiered cluster and topic (`real_tiered_walks.rs`).
    pub(crate) tiered: bool,
}

impl Target {
    /// The releases the walks run on, with the ELR setting of a new cluster of each (4.4.0 also
    /// without it).
    pub(crate) const ALL: [Target; 6] = [
        Target { release: "4.4.0", elr: true, zk: false, tiered: false },
        Target { release: "4.4.0", elr: false, zk: false, tiered: false },
        Target { release: "4.1.2", elr: true, zk: false, tiered: false },
        Target { release: "4.0.2", elr: false, zk: false, tiered: false },
        Target { release: "3.9.1", elr: false, zk: false, tiered: false },
        // 4.0's ELR is opt-in (eligible.leader.replicas.version=1): its own controller rules.
        Target { release: "4.0.2", elr: true, zk: false, tiered: false },
    ];

    /// The ZooKeeper-mode releases the walks run on (no ELR in ZooKeeper mode).
    pub(crate) const ZK: [Target; 8] = [
        Target { release: "3.9.1", elr: false, zk: true, tiered: false },
        Target { release: "2.8.2", elr: false, zk: true, tiered: false },
        Target { release: "2.1.1", elr: false, zk: true, tiered: false },
        Target { release: "2.0.1", elr: false, zk: true, tiered: false },
        Target { release: "2.0.0", elr: false, zk: true, tiered: false },
        Target { release: "1.1.1", elr: false, zk: true, tiered: false },
        Target { release: "0.11.0.3", elr: false, zk: true, tiered: false },
        Target { release: "0.10.2.2", elr: false, zk: true, tiered: false },
    ];

    /// The tiered walks' targets (`real_tiered_walks.rs`): 4.4.0, ELR on and off.
    pub(crate) const TIERED: [Target; 2] = [
        Target { release: "4.4.0", elr: false, zk: false, tiered: true },
        Target { release: "4.4.0", elr: true, zk: false, tiered: true },
    ];

    /// Every target, KRaft then ZooKeeper, then tiered.
    pub(crate) fn every() -> impl Iterator<Item = Target> {
        Target::ALL.into_iter().chain(Target::ZK).chain(Target::TIERED)
    }

    fn name(self) -> String {
        if self.zk {
            return format!("{} ZooKeeper", self.release);
        }
        let tiered = if self.tiered { " tiered" } else { "" };
        format!("{} ELR {}{tiered}", self.release, if self.elr { "on" } else { "off" })
    }

    /// The `--release` name of `scripts/real-walks`: `3.9.1` (KRaft), `3.9.1-zk`.
    fn release_name(self) -> String {
        format!("{}{}{}", self.release, if self.zk { "-zk" } else { "" }, if self.tiered { "-tiered" } else { "" })
    }

    fn features(self) -> Vec<String> {
        let default_on = Release::parse(self.release).is_ok_and(|r| r >= Release::new(4, 1, 0));
        match (self.elr, default_on) {
            (true, false) => vec!["eligible.leader.replicas.version=1".into()],
            (false, true) => vec!["eligible.leader.replicas.version=0".into()],
            _ => vec![],
        }
    }

    /// Broker settings of the walks: the HW checkpoint every 500 ms (the logs and HW on disk are
    /// compared after each step).
    const EXTRA: [&'static str; 1] = ["replica.high.watermark.checkpoint.interval.ms=500"];

    pub(crate) fn start(self) -> Option<Box<dyn Brokers>> {
        if self.zk {
            return ZkCluster::start(self.release, &Target::EXTRA).map(|c| Box::new(c) as Box<dyn Brokers>);
        }
        let features = self.features();
        let features: Vec<&str> = features.iter().map(String::as_str).collect();
        if self.tiered {
            return crate::real_tiered_walks::start(&features, &Target::EXTRA);
        }
        Cluster::start_release(self.release, &features, &Target::EXTRA).map(|c| Box::new(c) as Box<dyn Brokers>)
    }

    /// The model of the release: its rules, and the KRaft controller (3.9.1's too, which has no
    /// ELR: in KRaft mode it decides as 4.x's with ELR off), or in ZooKeeper mode the ZooKeeper
    /// controller with the topic's `unclean.leader.election.enable` (`unclean`, drawn per walk).
    fn config(self, min_isr: u8, unclean: bool) -> Config {
        let rules = Release::parse(self.release).expect("a release klog knows").rules();
        // A ZooKeeper walk's topic sets `unclean.leader.election.enable` (drawn per walk): it,
        // not the release's default, decides whether a follower past the leader's end stops its
        // broker (0.11.0 – 2.0.0 with it off) or truncates (ReplicaFetcherThread.scala:179-190@2.0.0).
        let rules = if self.zk { rules.with_unclean_leader_election(unclean) } else { rules };
        Config {
            power_loss: true,
            unclean: if self.zk { unclean } else { true },
            min_isr,
            controller: if self.zk { Controller::Zk } else { Controller::Kraft { elr: self.elr } },
            ..Config::clean_at(rules, 2, 8, MAX_RECORDS as u8, 64)
        }
    }
}

/// splitmix64: a walk's choices from its seed, the same on every machine.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

/// The controller record as broker ids: (leader or −1, leader epoch or −1 without a leader,
/// ISR, ELR, last known ELR), sorted.
type Record = (i64, i64, Vec<i64>, Vec<i64>, Vec<i64>);

fn ids(mask: u8) -> Vec<i64> {
    (0..2).filter(|i| mask & (1 << i) != 0).map(|i| i + 1).collect()
}

/// The record the model predicts, its leader epoch as Kafka numbers it (`epochs`, see
/// [`Run::epochs`]). A leader that is not running (4.0.x's controller elects a fenced last known
/// leader) is no leader to a client: a broker's metadata cache answers LEADER_NOT_AVAILABLE
/// with leader −1 for a leader that is not an alive broker, so the record shows only the ISR,
/// ELR and last known leader the election left.
fn predicted(s: &State, epochs: &[i64]) -> Record {
    let running = s.latest_leader.filter(|&l| s.nodes[l as usize].is_running());
    let epoch = running.and_then(|l| s.nodes[l as usize].leader_epoch()).map_or(-1, |e| kafka_epoch(epochs, e));
    (running.map_or(-1, |l| l as i64 + 1), epoch, ids(s.isr), ids(s.elr), ids(s.last_known_elr))
}

fn seen(d: &Value) -> Record {
    let list = |k: &str| {
        let mut v: Vec<i64> = d[k].as_array().map(|a| a.iter().filter_map(Value::as_i64).collect()).unwrap_or_default();
        v.sort();
        v
    };
    let mut i = isr(d);
    i.sort();
    let l = leader(d);
    let epoch = if l >= 0 { d["leader_epoch"].as_i64().unwrap_or(-2) } else { -1 };
    (l, epoch, i, list("elr"), list("last_known_elr"))
}

fn kafka_epoch(epochs: &[i64], model_epoch: i8) -> i64 {
    epochs.get(model_epoch as usize).copied().unwrap_or(-2)
}

/// A controlled shutdown's race on ZooKeeper releases before 2.5.0 (issue 41: 2.1.1 seeds 109 –
/// 111, 0.11.0.3 seed 103). The controller takes a stopping follower out of the ISR at a new epoch
/// after queueing its StopReplica (KafkaController.scala:1046-1058@2.1.1); until the follower's
/// broker stops its fetchers it still fetches, and a leader before 2.5.0 takes that fetch: before
/// 2.1.0 a fetch carries no leader epoch (KIP-320), and 2.1.0 – 2.4.x's incremental fetch session
/// hands every partition on with none (`CachedPartition.reqData`, FetchSession.scala:111,
/// 402-409@2.1.1; KAFKA-9338, 2.5.0, caches it). A caught-up follower fetching then is added back
/// to the ISR by the leader, without an epoch (Partition.scala:500-517@2.1.1), and when its broker
/// exits the controller's failure handling takes it out again, at one epoch more (`OfflineReplica`
/// removes only a replica in the ISR: ReplicaStateMachine.scala:299@2.1.1). Which comes first is
/// timing; the walk takes the second outcome only where the leader's log shows the expansion
/// (`Brokers::rejoined_isr`). Some((leader, follower)), as broker ids, when step `shutdown n` from
/// `before` to `after` is such a shutdown: `n` an ISR follower of a running leader that still
/// leads, with `n` out of the ISR, at one new epoch.
pub(crate) fn rejoin_race(cfg: &Config, before: &State, after: &State, n: usize) -> Option<(usize, usize)> {
    if cfg.controller != Controller::Zk || cfg.rules.release >= Release::new(2, 5, 0) {
        return None;
    }
    let f = (n - 1) as u8;
    let l = before.latest_leader.filter(|&l| l != f && before.nodes[l as usize].is_running())?;
    let in_isr = |s: &State| s.isr & (1 << f) != 0;
    let one_epoch = after.epochs_issued == before.epochs_issued + 1;
    (in_isr(before) && !in_isr(after) && after.latest_leader == Some(l) && one_epoch).then_some((l as usize + 1, n))
}

/// Whether `log` (a ZooKeeper-mode broker's) shows it adding broker `follower` back to `topic`'s
/// ISR while at leader epoch `epoch` ("[Partition t-0 broker=1] Expanding ISR from 1 to 1,2",
/// 1.1 on; "Partition [t,0] on broker 1: Expanding ISR from 1 to 1,2", 0.11).
pub(crate) fn rejoined_in_log(log: &str, topic: &str, follower: usize, epoch: i64) -> bool {
    let log = log.to_lowercase();
    let topic = topic.to_lowercase();
    let took = format!("{topic}-0 starts at leader epoch ");
    let Some(at) = log.rfind(&format!("{took}{epoch} from")) else { return false };
    // While it was at that epoch: up to its next epoch line for the partition.
    let end = log[at + took.len()..].find(&took).map_or(log.len(), |e| at + took.len() + e);
    let names = [format!("[partition {topic}-0 "), format!("partition [{topic},0] ")];
    log[at..end].lines().any(|line| {
        let to = line.split("expanding isr from ").nth(1).and_then(|r| r.split(" to ").nth(1)).unwrap_or("");
        let to = to.split(|c: char| !c.is_ascii_digit() && c != ',').next().unwrap_or("");
        names.iter().any(|n| line.contains(n.as_str())) && to.split(',').any(|id| id == follower.to_string())
    })
}

/// Whether the model enables `a` now.
fn enabled(cfg: &Config, s: &State, pick: impl Fn(&Action) -> bool) -> Option<Action> {
    let mut out = Vec::new();
    s.successors(cfg, &mut out);
    out.into_iter().find(|a| pick(a))
}

/// A release rule a directed walk is written to reach (issue #34, "a walk that reaches it"):
/// the rule decides an action's outcome when the same action, from the same model state, under
/// the rule's other reading (another release's) ends in another state.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Rule {
    /// [`Rules::below_first_epoch`]: 2.0.1's leader answers an epoch below its first with
    /// (that epoch, the first start offset); 2.0.0's answers UNDEFINED (the follower keeps to
    /// its HW).
    BelowFirstEpoch,
    /// [`Rules::same_leader_new_epoch`]: `Partition.makeFollower` for a running follower told
    /// of a new epoch by the leader it follows (2.0.0: leader id only; 2.0.1: epoch + 1 only;
    /// 2.1: any new epoch).
    SameLeaderNewEpoch,
    /// [`Rules::last_known_leader_must_be_alive`]: 4.1's controller elects the last known
    /// leader only when it is alive; 4.0.x's also when it is fenced (KAFKA-19522).
    LastKnownLeaderAlive,
    /// [`Rules::past_leader_end_halts`] (issue 41, point 5): a follower whose log runs past the
    /// leader's end stops its broker (0.11.0 – 2.0.0 with the topic's unclean election off)
    /// instead of truncating to the leader's end.
    PastLeaderEndHalts,
    /// [`Rules::offsets_for_leader_epoch_fencing`] (point 3): OffsetsForLeaderEpoch v2 carries
    /// the follower's current epoch and a leader not yet at it answers UNKNOWN_LEADER_EPOCH (2.1
    /// on IBP 2.1-IV1 and later).
    OffsetsForLeaderEpochFencing,
    /// [`Rules::below_log_start_before_diverging`] (point 4, KAFKA-12996, 2.8.1).
    BelowLogStartBeforeDiverging,
    /// [`Rules::diverging_answer_skips_fetch_state`] (point 4, KAFKA-13141, 2.8.1).
    DivergingAnswerSkipsFetchState,
}

impl Rule {
    pub(crate) const ALL: [Rule; 7] = [
        Rule::BelowFirstEpoch,
        Rule::SameLeaderNewEpoch,
        Rule::LastKnownLeaderAlive,
        Rule::PastLeaderEndHalts,
        Rule::OffsetsForLeaderEpochFencing,
        Rule::BelowLogStartBeforeDiverging,
        Rule::DivergingAnswerSkipsFetchState,
    ];

    /// The name a directed walk gives it (`"reaches"` in tests/real-walks/*.json).
    pub(crate) fn name(self) -> &'static str {
        match self {
            Rule::BelowFirstEpoch => "below_first_epoch",
            Rule::SameLeaderNewEpoch => "same_leader_new_epoch",
            Rule::LastKnownLeaderAlive => "last_known_leader_must_be_alive",
            Rule::PastLeaderEndHalts => "past_leader_end_halts",
            Rule::OffsetsForLeaderEpochFencing => "offsets_for_leader_epoch_fencing",
            Rule::BelowLogStartBeforeDiverging => "below_log_start_before_diverging",
            Rule::DivergingAnswerSkipsFetchState => "diverging_answer_skips_fetch_state",
        }
    }

    fn parse(name: &str) -> Option<Rule> {
        Rule::ALL.into_iter().find(|r| r.name() == name)
    }

    /// `rules` with this rule read each other way a release reads it.
    fn others(self, rules: &Rules) -> Vec<(Rules, String)> {
        match self {
            Rule::BelowFirstEpoch => {
                let other = match rules.below_first_epoch {
                    BelowFirstEpoch::Undefined => BelowFirstEpoch::FirstStartOffset,
                    BelowFirstEpoch::FirstStartOffset => BelowFirstEpoch::Undefined,
                };
                vec![(Rules { below_first_epoch: other, ..*rules }, format!("{other:?}"))]
            }
            Rule::SameLeaderNewEpoch => {
                [SameLeaderNewEpoch::Ignored, SameLeaderNewEpoch::WhenEpochSkips, SameLeaderNewEpoch::Truncates]
                    .into_iter()
                    .filter(|&o| o != rules.same_leader_new_epoch)
                    .map(|o| (Rules { same_leader_new_epoch: o, ..*rules }, format!("{o:?}")))
                    .collect()
            }
            Rule::LastKnownLeaderAlive => {
                let other = !rules.last_known_leader_must_be_alive;
                vec![(Rules { last_known_leader_must_be_alive: other, ..*rules }, format!("alive check {other}"))]
            }
            // Where the release halts, the topic's unclean election on truncates instead; where
            // it does not (2.0.1 on, or unclean on), nothing reads the rule the other way.
            Rule::PastLeaderEndHalts if rules.past_leader_end_halts() => {
                vec![(rules.with_unclean_leader_election(true), "truncation to the leader's end".into())]
            }
            Rule::PastLeaderEndHalts => Vec::new(),
            Rule::OffsetsForLeaderEpochFencing => {
                let other = !rules.offsets_for_leader_epoch_fencing;
                vec![(Rules { offsets_for_leader_epoch_fencing: other, ..*rules }, format!("fencing {other}"))]
            }
            Rule::BelowLogStartBeforeDiverging => {
                let other = !rules.below_log_start_before_diverging;
                vec![(Rules { below_log_start_before_diverging: other, ..*rules }, format!("KAFKA-12996 {other}"))]
            }
            Rule::DivergingAnswerSkipsFetchState => {
                let other = !rules.diverging_answer_skips_fetch_state;
                vec![(Rules { diverging_answer_skips_fetch_state: other, ..*rules }, format!("KAFKA-13141 {other}"))]
            }
        }
    }
}

/// A rule that decided an action's outcome in the model.
#[derive(Debug, Clone)]
pub(crate) struct Fired {
    pub(crate) rule: Rule,
    pub(crate) what: String,
}

/// What the model went through: the invariants it broke and the rules that decided.
#[derive(Debug, Default)]
pub(crate) struct Trace {
    violations: Vec<Violation>,
    pub(crate) fired: Vec<Fired>,
}

/// How two successor states differ, in the walk's terms (leader, ISR, ELR, each log's length).
fn difference(a: &State, b: &State) -> String {
    let mut out = Vec::new();
    if (a.latest_leader, a.isr, a.elr) != (b.latest_leader, b.isr, b.elr) {
        out.push(format!(
            "leader {:?} ISR {:?} ELR {:?} vs leader {:?} ISR {:?} ELR {:?}",
            a.latest_leader.map(|l| l + 1),
            ids(a.isr),
            ids(a.elr),
            b.latest_leader.map(|l| l + 1),
            ids(b.isr),
            ids(b.elr)
        ));
    }
    for r in 0..a.n() {
        if a.nodes[r].log_len != b.nodes[r].log_len {
            out.push(format!("broker {}'s log {} records vs {}", r + 1, a.nodes[r].log_len, b.nodes[r].log_len));
        }
    }
    if out.is_empty() {
        out.push("other volatile state".into());
    }
    out.join(", ")
}

/// Apply `pick`'s first enabled action; `None` when none is enabled. Each [`Rule`] whose other
/// reading, offering the same action here, would have ended elsewhere is noted in `trace` as
/// having decided the action.
fn apply_first(cfg: &Config, s: &mut State, trace: &mut Trace, pick: impl Fn(&Action) -> bool) -> Option<Action> {
    let a = enabled(cfg, s, pick)?;
    let (next, v) = s.apply(cfg, a);
    for rule in Rule::ALL {
        for (rules, reading) in rule.others(&cfg.rules) {
            let alt = Config { rules, ..*cfg };
            // Only an action the other reading offers too has an outcome to compare.
            if enabled(&alt, s, |x| *x == a).is_none() {
                continue;
            }
            let (other, _) = s.apply(&alt, a);
            if other != next {
                let what = format!(
                    "{} decided {a:?} on {}: {} (with {reading} instead)",
                    rule.name(),
                    cfg.rules.release,
                    difference(&next, &other)
                );
                trace.fired.push(Fired { rule, what });
            }
        }
    }
    *s = next;
    trace.violations.extend(v);
    Some(a)
}

/// What brokers do on their own: a replica learns the current leader and follows it
/// (truncating as its release does), followers fetch, the leader adds caught-up followers to
/// the ISR — until nothing changes (`real_explore.rs`'s).
fn settle(cfg: &Config, s: &mut State, trace: &mut Trace) {
    for _ in 0..12 {
        let before = *s;
        let Some(l) = s.latest_leader else { return };
        for f in 0..s.n() as u8 {
            if f == l || !s.nodes[f as usize].is_running() {
                continue;
            }
            let follows = s.nodes[f as usize]
                .vol
                .is_some_and(|v| v.leader == Some(l) && Some(v.leader_epoch) == s.nodes[l as usize].leader_epoch());
            if !follows {
                apply_first(cfg, s, trace, |a| *a == Action::Recover { follower: f, leader: l });
            }
            apply_first(cfg, s, trace, |a| *a == Action::Fetch { leader: l, follower: f });
        }
        let isr = s.isr;
        apply_first(
            cfg,
            s,
            trace,
            |a| matches!(*a, Action::AlterIsr { isr: new, .. } if new & isr == isr && new != isr),
        );
        if *s == before {
            return;
        }
    }
}

/// How a broker is down, in the harness's own bookkeeping (the model knows only "not running").
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Down {
    Up,
    Stopped,
    Paused,
}

/// Draw the next step of a walk: one the model enables and the brokers can do.
fn draw(t: Target, cfg: &Config, s: &State, down: &[Down; 2], produced: usize, rng: &mut Rng) -> Option<Step> {
    let mut options: Vec<(Step, u64)> = Vec::new();
    let crash = |r: u8, power_loss: bool| {
        enabled(cfg, s, |a| *a == Action::Crash { replica: r, power_loss, hw: None }).is_some()
    };
    if s.latest_leader.is_some() && produced < MAX_RECORDS {
        // A tiered walk's produce is its upload: drawn more often.
        options.push((Step::Produce, if t.tiered { 8 } else { 4 }));
    }
    let paused = down.contains(&Down::Paused);
    for n in 1..=2 {
        let r = (n - 1) as u8;
        match down[n - 1] {
            Down::Up if crash(r, false) => {
                options.push((Step::Kill(n), 2));
                // Not in a tiered walk: there every record rolls a segment, and Kafka flushes a
                // segment when it rolls (`UnifiedLog.roll`'s scheduled `flushUptoOffsetExclusive
                // (newSegment.baseOffset)`, UnifiedLog.java:2244-2246 in 4.4.0's line table), so
                // a power cut keeps what the model's one never-flushed segment loses.
                if crash(r, true) && !t.tiered {
                    options.push((Step::PowerLoss(n), 2));
                }
                if !t.elr {
                    options.push((Step::Shutdown(n), 1));
                    if !paused {
                        options.push((Step::Pause(n), 1));
                    }
                }
            }
            Down::Up => {}
            Down::Stopped => {
                if enabled(cfg, s, |a| *a == Action::Restart { replica: r }).is_some() {
                    options.push((Step::Restart(n), 3));
                }
            }
            Down::Paused => {
                if enabled(cfg, s, |a| *a == Action::Restart { replica: r }).is_some() {
                    options.push((Step::Resume(n), 3));
                }
            }
        }
    }
    if enabled(cfg, s, |a| matches!(a, Action::Elect { unclean: true, .. })).is_some() {
        options.push((Step::Unclean, 3));
    }
    if t.tiered && s.latest_leader.is_some() {
        options.push((Step::LocalDelete, 3));
    }
    let total: u64 = options.iter().map(|o| o.1).sum();
    if total == 0 {
        return None;
    }
    let mut at = rng.below(total);
    for (step, w) in options {
        if at < w {
            return Some(step);
        }
        at -= w;
    }
    unreachable!()
}

/// A walk: its settings and steps (the creation first, not listed).
#[derive(Debug, Clone)]
pub(crate) struct Walk {
    pub(crate) target: Target,
    pub(crate) seed: u64,
    pub(crate) min_isr: u8,
    /// ZooKeeper mode: the topic's `unclean.leader.election.enable` (KRaft walks: false, and
    /// the admin's unclean election is a step).
    pub(crate) unclean: bool,
    pub(crate) steps: Vec<Step>,
    /// A directed walk's rule (`"reaches"`): the model must say it decided a step, and the
    /// brokers must agree with the model throughout.
    pub(crate) reaches: Option<Rule>,
}

impl Walk {
    /// The walk of `seed`: min ISR 1 or 2, `length` steps drawn as the model goes (a step the
    /// model would not take is never drawn).
    pub(crate) fn draw(target: Target, seed: u64, length: usize) -> Walk {
        let mut rng = Rng(seed);
        let min_isr = 1 + rng.below(2) as u8;
        // Drawn for ZooKeeper walks only: a KRaft walk's draws stay what they were.
        let unclean = target.zk && rng.below(2) == 1;
        let cfg = target.config(min_isr, unclean);
        let mut s = State::initial(2);
        let mut trace = Trace::default();
        apply_first(&cfg, &mut s, &mut trace, |a| matches!(a, Action::Elect { unclean: false, .. }));
        settle(&cfg, &mut s, &mut trace);
        let mut down = [Down::Up; 2];
        let mut produced = 0;
        let mut steps = Vec::new();
        while steps.len() < length {
            let Some(step) = draw(target, &cfg, &s, &down, produced, &mut rng) else { break };
            if model_apply(&cfg, &mut s, &mut down, step, &mut trace).is_err() {
                break;
            }
            if step == Step::Produce {
                produced += 1;
            }
            steps.push(step);
        }
        Walk { target, seed, min_isr, unclean, steps, reaches: None }
    }

    pub(crate) fn to_json(&self) -> Value {
        let mut v = json!({
            "release": self.target.release,
            "elr": self.target.elr,
            "seed": self.seed,
            "min_isr": self.min_isr,
            "steps": self.steps.iter().map(|s| s.text()).collect::<Vec<_>>(),
        });
        if self.target.zk {
            v["mode"] = json!("zookeeper");
            v["unclean"] = json!(self.unclean);
        }
        if let Some(r) = self.reaches {
            v["reaches"] = json!(r.name());
        }
        if self.target.tiered {
            v["tiered"] = json!(true);
        }
        v
    }

    pub(crate) fn from_json(v: &Value) -> Result<Walk, String> {
        let release = v["release"].as_str().ok_or("no release")?;
        let elr = v["elr"].as_bool().ok_or("no elr")?;
        let zk = match v.get("mode") {
            None => false,
            Some(m) if m == "zookeeper" => true,
            Some(m) => return Err(format!("a mode that is not one: {m}")),
        };
        let tiered = v.get("tiered").and_then(Value::as_bool).unwrap_or(false);
        let target = Target::every()
            .find(|t| t.release == release && t.elr == elr && t.zk == zk && t.tiered == tiered)
            .ok_or_else(|| format!("no walks on {release} ELR {elr}{}", if zk { " (ZooKeeper)" } else { "" }))?;
        let unclean = if zk { v["unclean"].as_bool().ok_or("no unclean")? } else { false };
        let steps = v["steps"]
            .as_array()
            .ok_or("no steps")?
            .iter()
            .map(|s| s.as_str().and_then(Step::parse).ok_or_else(|| format!("a step that is not one: {s}")))
            .collect::<Result<Vec<_>, _>>()?;
        Ok(Walk {
            target,
            seed: v["seed"].as_u64().ok_or("no seed")?,
            min_isr: v["min_isr"].as_u64().filter(|m| (1..=2).contains(m)).ok_or("no min_isr")? as u8,
            unclean,
            steps,
            reaches: match v.get("reaches") {
                None => None,
                Some(r) => {
                    Some(r.as_str().and_then(Rule::parse).ok_or_else(|| format!("a rule that is not one: {r}"))?)
                }
            },
        })
    }

    /// The walk on the model alone (creation, steps, the closing restarts): what the model went
    /// through, or the step it does not enable.
    pub(crate) fn on_model(&self) -> Result<Trace, String> {
        let cfg = self.target.config(self.min_isr, self.unclean);
        let mut s = State::initial(2);
        let mut trace = Trace::default();
        apply_first(&cfg, &mut s, &mut trace, |a| matches!(a, Action::Elect { unclean: false, .. }));
        settle(&cfg, &mut s, &mut trace);
        let mut down = [Down::Up; 2];
        for (i, &step) in self.steps.iter().enumerate() {
            model_apply(&cfg, &mut s, &mut down, step, &mut trace)
                .map_err(|e| format!("step {} ({}): {e}", i + 1, step.text()))?;
        }
        for n in 1..=2 {
            let step = match down[n - 1] {
                Down::Up => continue,
                Down::Paused => Step::Resume(n),
                Down::Stopped => Step::Restart(n),
            };
            model_apply(&cfg, &mut s, &mut down, step, &mut trace).map_err(|e| format!("heal {}: {e}", step.text()))?;
        }
        Ok(trace)
    }
}

/// Apply one walk step to the model alone: `Err` when the model does not enable it.
fn model_apply(cfg: &Config, s: &mut State, down: &mut [Down; 2], step: Step, trace: &mut Trace) -> Result<(), String> {
    let r = |n: usize| (n - 1) as u8;
    let mut one = |s: &mut State, pick: &dyn Fn(&Action) -> bool, what: &str| -> Result<(), String> {
        apply_first(cfg, s, trace, pick).ok_or_else(|| format!("the model has no {what} here"))?;
        Ok(())
    };
    match step {
        Step::Produce => {
            // A leader that may not append (min ISR) appends nothing: the broker refuses too.
            if let Some(l) = s.latest_leader {
                let _ = one(s, &|a| matches!(*a, Action::Append { replica, .. } if replica == l), "append");
            }
        }
        Step::Kill(n) | Step::Pause(n) => {
            one(s, &|a| *a == Action::Crash { replica: r(n), power_loss: false, hw: None }, "crash")?;
            down[n - 1] = if matches!(step, Step::Pause(_)) { Down::Paused } else { Down::Stopped };
        }
        Step::PowerLoss(n) => {
            one(s, &|a| *a == Action::Crash { replica: r(n), power_loss: true, hw: None }, "power loss")?;
            down[n - 1] = Down::Stopped;
        }
        Step::Shutdown(n) => {
            // Kafka flushes every log when it shuts down cleanly.
            let _ = one(s, &|a| *a == Action::Flush { replica: r(n) }, "flush");
            one(s, &|a| *a == Action::Crash { replica: r(n), power_loss: false, hw: None }, "crash")?;
            down[n - 1] = Down::Stopped;
        }
        Step::Restart(n) | Step::Resume(n) => {
            let want = if matches!(step, Step::Resume(_)) { Down::Paused } else { Down::Stopped };
            if down[n - 1] != want {
                return Err(format!("broker {n} is not {want:?}"));
            }
            one(s, &|a| *a == Action::Restart { replica: r(n) }, "restart")?;
            down[n - 1] = Down::Up;
        }
        Step::Unclean => one(s, &|a| matches!(a, Action::Elect { unclean: true, .. }), "unclean election")?,
        // The model has no tiers: a local deletion changes no replica's log in it.
        Step::LocalDelete => {}
    }
    settle(cfg, s, trace);
    Ok(())
}

/// One walk's run on a cluster.
struct Run<'a> {
    c: &'a mut dyn Brokers,
    seq: Seq,
    cfg: Config,
    model: State,
    down: [Down; 2],
    trace: Trace,
    /// The producer's value of each model record (model value k is `values[k − 1]`).
    values: Vec<String>,
    produced: usize,
    /// Kafka's leader epoch of each model epoch. Kafka's controller issues an epoch when a
    /// partition loses its leader (leader −1 at the next epoch) and another when it gets one
    /// back; the model issues one per leader only. Its epoch e is Kafka's e + (the times the
    /// partition was left without a leader before e was issued).
    epochs: Vec<i64>,
    leaderless: i64,
    /// The first disagreement: (step index, 0 = the creation; what).
    differ: Option<(usize, String)>,
    notes: Vec<String>,
    /// This step's controlled shutdown may end one epoch later than the model says: (leader,
    /// stopping follower), as broker ids ([`rejoin_race`]).
    rejoin: Option<(usize, usize)>,
    /// ZooKeeper sessions of brokers 1 – 3 that expired during a step that neither paused nor
    /// resumed the broker (`Brokers::session_expiries`): the machine's load, not the walk.
    expired: Vec<String>,
    /// Steps the model did not enable when replayed (a minimizer's candidate).
    skipped: usize,
    /// Each step's seconds: doing it to the brokers, then waiting for them to match the model.
    times: Vec<String>,
    /// A tiered walk: the tiers are compared after each step (`real_tiered_walks::tier_check`).
    cfg_tiered: bool,
    /// The last step's reading of the tiers (a tiered walk).
    tiers: Option<crate::real_tiered_walks::TierReading>,
}

/// A walk's outcome.
pub(crate) struct Outcome {
    pub(crate) steps_done: usize,
    /// The first disagreement: step index (0 = the creation, k = the k-th listed step, the
    /// final verdict after the last) and what differed.
    pub(crate) differ: Option<(usize, String)>,
    pub(crate) notes: Vec<String>,
    /// The rules that decided a step's outcome in the model, in order.
    pub(crate) fired: Vec<Fired>,
    /// Each step's seconds (`produce 2.1+3.4`: the step, then the comparison).
    pub(crate) times: Vec<String>,
    /// ZooKeeper session expiries no step caused ([`Run::expired`]).
    pub(crate) expired: Vec<String>,
}

impl Run<'_> {
    fn problem(&mut self, at: usize, what: String) {
        self.notes.push(format!("DIFFER: {what}"));
        if self.differ.is_none() {
            self.differ = Some((at, what));
        }
    }

    /// The brokers' record, logs and HWs against the model's, after step `at`: the record must
    /// show the model's within 30 s and still 1.5 s after it first did; the logs and HWs must
    /// match within 20 s. The logs are read during the 1.5 s (the record's second reading comes
    /// after both the 1.5 s and the logs), so a step costs the longer of the two, not their sum.
    fn compare(&mut self, at: usize, what: &str) {
        self.compare_replicas(at, what);
        if self.cfg_tiered && self.differ.is_none() {
            let leader = predicted(&self.model, &self.epochs).0;
            let leader = (1..=2).contains(&leader).then_some(leader as usize);
            let work = self.seq.path(&format!("tiers{at}"));
            match crate::real_tiered_walks::tier_check(self.c, &self.seq.topic, leader, &work, self.tiers.as_ref()) {
                Ok(reading) => {
                    self.notes.push(format!("{what}: {}", reading.note));
                    self.tiers = Some(reading);
                }
                Err(d) => self.problem(at, format!("after {what}: {d}")),
            }
            let _ = std::fs::remove_dir_all(&work);
        }
    }

    /// The controller record, then each replica's log and HW (see [`Run::compare`]).
    fn compare_replicas(&mut self, at: usize, what: &str) {
        const STILL: Duration = Duration::from_millis(1500);
        let mut want = predicted(&self.model, &self.epochs);
        // The record a controlled shutdown's race ends in instead, one epoch on ([`rejoin_race`]).
        let alt = self.rejoin.map(|_| (want.0, want.1 + 1, want.2.clone(), want.3.clone(), want.4.clone()));
        let topic = self.seq.topic.clone();
        let either = |r: &Record| *r == want || alt.as_ref() == Some(r);
        let got = match self.c.wait_for(&topic, 30, &|d| either(&seen(d))) {
            Ok(d) => seen(&d),
            // `wait_for` also wants the clients' leader to be the record's (KRaft); a record the
            // clients see no leader of (4.0.2's fenced leader on record) is the model's still.
            Err(d) if either(&seen(&d)) => seen(&d),
            Err(d) => {
                self.record_differs(at, what, &want, &seen(&d));
                return;
            }
        };
        if got != want {
            if !self.take_rejoin(at, what, &want) {
                return;
            }
            want = got;
        }
        let matched = Instant::now();
        // The record's second reading, once `STILL` has passed since the first: Some(agrees).
        let mut still: Option<bool> = None;
        let end = Instant::now() + Duration::from_secs(20);
        loop {
            let diffs = self.log_differences(at);
            if still.is_none() && (diffs.is_empty() || matched.elapsed() >= STILL) {
                sleep(STILL.saturating_sub(matched.elapsed()));
                let got = seen(&self.c.describe(&topic));
                if got != want && alt.as_ref() == Some(&got) && self.rejoin.is_some() {
                    if !self.take_rejoin(at, what, &want) {
                        return;
                    }
                    want = got.clone();
                }
                still = Some(got == want);
                if got != want {
                    self.record_differs(at, what, &want, &got);
                    return;
                }
                self.notes.push(format!("{what}: model {want:?} brokers {got:?}"));
            }
            if diffs.is_empty() {
                return;
            }
            if Instant::now() >= end {
                for d in diffs {
                    self.problem(at, format!("after {what}: {d}"));
                }
                return;
            }
            sleep(Duration::from_millis(700));
        }
    }

    fn record_differs(&mut self, at: usize, what: &str, want: &Record, got: &Record) {
        self.notes.push(format!("{what}: model {want:?} brokers {got:?}"));
        self.problem(
            at,
            format!(
                "after {what}: the model predicts (leader, epoch, ISR, ELR, LKE) {want:?}, the brokers show {got:?}"
            ),
        );
    }

    /// The brokers show the record of [`rejoin_race`]'s other outcome (`want`'s epoch + 1):
    /// the walk follows it when the leader's log shows the stopping follower added back to the
    /// ISR at `want`'s epoch (Kafka's epochs from this one on are one higher than the model's);
    /// otherwise it is a disagreement. False when the walk stops here.
    fn take_rejoin(&mut self, at: usize, what: &str, want: &Record) -> bool {
        let Some((leader, follower)) = self.rejoin.take() else { return false };
        let alt = (want.0, want.1 + 1, want.2.clone(), want.3.clone(), want.4.clone());
        if !self.c.rejoined_isr(&self.seq.topic, leader, follower, want.1) {
            self.record_differs(at, what, want, &alt);
            self.notes.push(format!("broker {leader}'s log shows no ISR expansion to {follower} at epoch {}", want.1));
            return false;
        }
        if let Some(last) = self.epochs.last_mut() {
            *last += 1;
        }
        self.leaderless += 1;
        self.notes.push(format!(
            "{what}: broker {follower} fetched once more after leader {leader} took epoch {} and was added back to \
             the ISR; its broker's exit took it out again, at epoch {} (rejoin_race)",
            want.1,
            want.1 + 1
        ));
        true
    }

    /// Each replica's log (offset, leader epoch, value) and HW on disk against the model's.
    fn log_differences(&mut self, at: usize) -> Vec<String> {
        let mut out = Vec::new();
        for n in 1..=2 {
            let copy = self.seq.path(&format!("step{at}-b{n}"));
            self.c.copy(n, &copy);
            // A broker told of a new topic a moment ago may not have made its partition dir,
            // or its first segment, yet (the logs are read as soon as the record shows the
            // model's: see `compare`): a difference to wait out, not a failure.
            let topic_dir = format!("{}-0", self.seq.topic);
            let probe = crate::common::klog()
                .args(["dump", "--json", "--limit", "0", "--partition", &topic_dir])
                .arg(&copy)
                .output();
            // The replica line: its HW (none yet in the checkpoint: Kafka loads 0).
            let replica = probe.as_ref().ok().filter(|o| o.status.success()).and_then(|o| {
                String::from_utf8_lossy(&o.stdout)
                    .lines()
                    .filter_map(|l| serde_json::from_str::<Value>(l).ok())
                    .find(|v| v["type"] == "replica")
            });
            let Some(replica) = replica else {
                let why = probe
                    .map(|o| String::from_utf8_lossy(&o.stderr).trim().to_string())
                    .unwrap_or_else(|e| e.to_string());
                let _ = std::fs::remove_dir_all(&copy);
                out.push(format!("broker {n}'s partition is not readable yet: {why}"));
                continue;
            };
            let hw = replica["high_watermark"].as_i64().unwrap_or(0);
            let held = records(&copy, &self.seq.topic);
            let _ = std::fs::remove_dir_all(&copy);
            let node = &self.model.nodes[n - 1];
            let model_log: Vec<(String, i64)> = node
                .records()
                .iter()
                .map(|r| {
                    let v = self.values.get(r.value as usize - 1).cloned().unwrap_or_else(|| format!("?{}", r.value));
                    (v, kafka_epoch(&self.epochs, r.leader_epoch))
                })
                .collect();
            let broker_log: Vec<(String, i64)> = held.values().cloned().collect();
            // A batch with no partition leader epoch (message format v0/v1: 0.10.2, and 0.11 with
            // an older message format) is held to the model's offset and value only.
            let model_log: Vec<(String, i64)> = model_log
                .into_iter()
                .zip(broker_log.iter().map(Some).chain(std::iter::repeat(None)))
                .map(|((v, e), b)| (v, if b.is_some_and(|(_, be)| *be == -1) { -1 } else { e }))
                .collect();
            // A tiered walk's replica holds the tail locally: its local records are held to the
            // model's at the same offsets (the remote tier is `tier_check`'s).
            let local_start = if self.cfg_tiered {
                held.keys().next().copied().unwrap_or(replica["log_end_offset"].as_i64().unwrap_or(0))
            } else {
                0
            };
            let model_log: Vec<(String, i64)> = model_log.into_iter().skip(local_start.max(0) as usize).collect();
            let contiguous = held.keys().copied().eq(local_start..local_start + held.len() as i64);
            if broker_log != model_log || !contiguous {
                out.push(format!("broker {n}'s log is {held:?}, the model's {model_log:?}"));
            }
            if hw != i64::from(node.high_watermark) {
                out.push(format!("broker {n}'s HW is {hw}, the model's {}", node.high_watermark));
            }
        }
        out
    }

    fn step(&mut self, at: usize, step: Step) {
        let mut model = self.model;
        let mut down = self.down;
        let mut trace = Trace::default();
        if let Err(e) = model_apply(&self.cfg, &mut model, &mut down, step, &mut trace) {
            // A minimizer's candidate: the step no longer fits the walk.
            self.notes.push(format!("{}: skipped ({e})", step.text()));
            self.skipped += 1;
            return;
        }
        let before_appended = self.model.appended;
        let (was_down, expiries) = (self.down, [1, 2, 3].map(|b| self.c.session_expiries(b)));
        let started = Instant::now();
        // A tiered walk's follower restarting below the leader's local log start: klog's plan.
        let plan_dir = self.seq.path(&format!("plan{at}"));
        let plan = match step {
            Step::Restart(n) if self.cfg_tiered => {
                let leader = predicted(&self.model, &self.epochs).0;
                let leader = (1..=2).contains(&leader).then_some(leader as usize);
                crate::real_tiered_walks::plan_restart(self.c, &self.seq.topic, n, leader, &plan_dir)
                    .map(|p| p.map(|p| (n, p)))
            }
            _ => Ok(None),
        };
        match step {
            Step::Produce => {
                // The leader must have taken its epoch itself, not only on the record compared.
                let (leader, epoch, ..) = predicted(&self.model, &self.epochs);
                if (1..=2).contains(&leader) && !self.c.leader_took(&self.seq.topic, leader as usize, epoch, 10) {
                    self.notes.push(format!("broker {leader} did not log leading at epoch {epoch} within 10 s"));
                }
                let k = self.produced;
                self.produced += 1;
                let answers = self.c.kc("produce", &[&self.seq.topic, "x", &k.to_string(), "1"]);
                self.seq.acks.extend(answers);
                let value = format!("x-{k}");
                let outcome = self.seq.outcome_of(&value);
                let appended = model.appended > before_appended;
                if appended {
                    self.values.push(value.clone());
                }
                let model_acked = appended && model.acked().iter().any(|&(_, v)| v == model.appended);
                self.notes.push(format!("{value}: producer {outcome}, model acked {model_acked}"));
                if model_acked != (outcome == "acked") {
                    self.problem(at, format!("{value}: the producer says {outcome}, the model acked = {model_acked}"));
                }
            }
            Step::Kill(n) => {
                let fenced = self.c.fenced_count(n);
                self.c.kill(&[n]);
                self.wait_fenced(n, fenced);
            }
            Step::PowerLoss(n) => {
                let fenced = self.c.fenced_count(n);
                self.c.kill(&[n]);
                self.wait_fenced(n, fenced);
                let (raw, cut) = (format!("raw{at}"), format!("cut{at}"));
                if let Err(e) = power_cut(self.c, &self.seq, n, &raw, &cut) {
                    self.problem(at, e);
                }
                let _ = std::fs::remove_dir_all(self.seq.path(&raw));
                let _ = std::fs::remove_dir_all(self.seq.path(&cut));
            }
            Step::Shutdown(n) => {
                if !self.c.shutdown(n) {
                    self.notes.push(format!("broker {n} did not shut down within 60 s (killed)"));
                }
            }
            Step::Pause(n) => {
                let fenced = self.c.fenced_count(n);
                self.c.pause(n);
                self.wait_fenced(n, fenced);
            }
            Step::Resume(n) => self.c.resume(n),
            Step::Restart(n) => self.c.restart(n),
            Step::Unclean => {
                let answer = self.c.kc("elect", &[&self.seq.topic, "unclean"]);
                self.notes.push(format!("electLeaders(UNCLEAN): {answer:?}"));
            }
            Step::LocalDelete => match crate::real_tiered_walks::local_delete(self.c, &self.seq.topic) {
                Ok(note) => self.notes.push(note),
                Err(e) => self.problem(at, e),
            },
        }
        self.follow_epochs(&model);
        self.rejoin = match step {
            Step::Shutdown(n) => rejoin_race(&self.cfg, &self.model, &model, n),
            _ => None,
        };
        self.model = model;
        self.down = down;
        for f in &trace.fired {
            self.notes.push(format!("{}: the model's rule {}", step.text(), f.what));
        }
        self.trace.violations.extend(trace.violations);
        self.trace.fired.extend(trace.fired);
        let done = started.elapsed().as_secs_f64();
        let compared = Instant::now();
        self.compare(at, &step.text());
        self.rejoin = None;
        for b in 1..=3 {
            // A paused broker's session expires while it is stopped; it logs so when resumed.
            let paused = b <= 2 && (was_down[b - 1] == Down::Paused || matches!(step, Step::Pause(p) if p == b));
            if self.c.session_expiries(b) > expiries[b - 1] && !paused {
                self.expired.push(format!("broker {b}'s ZooKeeper session expired during {}", step.text()));
            }
        }
        match plan {
            Err(e) => self.problem(at, format!("{}: {e}", step.text())),
            Ok(Some((n, plan))) if self.differ.is_none() => {
                match crate::real_tiered_walks::check_restart(self.c, &self.seq.topic, n, &plan, &plan_dir) {
                    Ok(note) => self.notes.push(format!("{}: {note}", step.text())),
                    Err(e) => self.problem(at, format!("after {}: {e}", step.text())),
                }
            }
            Ok(_) => {}
        }
        let _ = std::fs::remove_dir_all(&plan_dir);
        self.times.push(format!("{} {done:.1}+{:.1}", step.text(), compared.elapsed().as_secs_f64()));
    }

    /// KRaft: wait (at most 15 s) until the controller has fenced broker `n`, stopped or paused
    /// by this step (`before`: its fencings until now). The model's crash fences at once; a
    /// record the crash leaves alone (a broker in neither the ISR nor the ELR) would otherwise
    /// be compared, and the next step taken, while the controller still counts the broker
    /// alive: 4.1.2 seed 114 restarted broker 1 then, and the controller elected the killed,
    /// not yet fenced broker 2 as the last known leader. ZooKeeper clusters wait in the kill.
    fn wait_fenced(&mut self, n: usize, before: usize) {
        if self.cfg.controller == Controller::Zk {
            return;
        }
        let end = Instant::now() + Duration::from_secs(15);
        while self.c.fenced_count(n) <= before {
            if Instant::now() >= end {
                self.notes.push(format!("the controller logged no fencing of broker {n} within 15 s"));
                return;
            }
            sleep(Duration::from_millis(200));
        }
    }

    /// Number the epochs `next` issued as Kafka does (see [`Run::epochs`]).
    fn follow_epochs(&mut self, next: &State) {
        if self.model.latest_leader.is_some() && next.latest_leader.is_none() {
            self.leaderless += 1;
        }
        // A leader on record that was not running (4.0.x's fenced last known leader) and now
        // leads went through a record without a leader (its registration after an unclean
        // shutdown, [`State::apply`]'s restart): Kafka issued an epoch for it too.
        let leads = |s: &State, l: u8| s.nodes[l as usize].leader_epoch().is_some();
        if let Some(l) = self.model.latest_leader.filter(|&l| !self.model.nodes[l as usize].is_running()) {
            if next.latest_leader == Some(l) && leads(next, l) {
                self.leaderless += 1;
            }
        }
        for e in self.epochs.len()..next.epochs_issued as usize {
            self.epochs.push(e as i64 + self.leaderless);
        }
    }

    /// Bring every broker back (resume, restart), as steps of the walk.
    fn heal(&mut self, at: &mut usize) {
        for n in 1..=2 {
            let step = match self.down[n - 1] {
                Down::Up => continue,
                Down::Paused => Step::Resume(n),
                Down::Stopped => Step::Restart(n),
            };
            *at += 1;
            self.notes.push(format!("heal: {}", step.text()));
            self.step(*at, step);
        }
    }

    /// The acknowledged records the final leader lacks, by the brokers and by the model.
    fn verdict(&mut self, at: usize) {
        let l = self.model.latest_leader;
        let model_lost: Vec<String> = match l {
            Some(l) => {
                let node = &self.model.nodes[l as usize];
                self.model
                    .acked()
                    .iter()
                    .filter(|&&(offset, value)| node.records().get(offset as usize).map(|r| r.value) != Some(value))
                    .map(|&(_, value)| self.values[value as usize - 1].clone())
                    .collect()
            }
            None => Vec::new(),
        };
        let d = self.c.describe(&self.seq.topic);
        let bl = leader(&d);
        if l.is_none() || !(1..=2).contains(&bl) {
            self.notes.push(format!("no leader at the end (model {l:?}, brokers {bl})"));
            return;
        }
        let mut model_lost = model_lost;
        let held = if self.cfg_tiered {
            // What the leader serves from both tiers: a consumer from the earliest offset. Below
            // that offset (klog's forecast of the leader's log start, compared with Kafka's at
            // the step that made it leader: `tier_check`) it serves nothing: the acked records
            // there are lost whatever the model's log holds (the model has no log start).
            match crate::real_tiered_walks::consume(self.c, &self.seq.topic) {
                Ok((held, earliest)) => {
                    let below = self.model.acked().iter().filter(|&&(offset, _)| i64::from(offset) < earliest);
                    let below: Vec<String> = below.map(|&(_, value)| self.values[value as usize - 1].clone()).collect();
                    if !below.is_empty() {
                        self.notes.push(format!("acked below the final leader's log start {earliest}: {below:?}"));
                    }
                    model_lost.extend(below.into_iter().filter(|v| !model_lost.contains(v)).collect::<Vec<_>>());
                    held
                }
                Err(e) => return self.problem(at, format!("the consumer from the earliest offset: {e}")),
            }
        } else {
            let copy = self.seq.path("final-leader");
            self.c.copy(bl as usize, &copy);
            let held = records(&copy, &self.seq.topic);
            let _ = std::fs::remove_dir_all(&copy);
            held
        };
        let broker_lost: Vec<String> = self
            .seq
            .acks
            .iter()
            .filter(|a| a["outcome"] == "acked")
            .filter(|a| {
                let at_offset = a["offset"].as_i64().and_then(|o| held.get(&o));
                at_offset.is_none_or(|(v, _)| a["value"].as_str() != Some(v))
            })
            .filter_map(|a| a["value"].as_str().map(String::from))
            .collect();
        self.notes.push(format!("acked and lost: brokers {broker_lost:?}, model {model_lost:?}"));
        // The same records lost, whatever order each side lists them in (the producer's acks
        // come in answer order, the model's in its acknowledgement order).
        let sorted = |v: &[String]| {
            let mut v = v.to_vec();
            v.sort();
            v
        };
        if sorted(&broker_lost) != sorted(&model_lost) {
            self.problem(
                at,
                format!("the brokers lost {broker_lost:?} of the acked records, the model {model_lost:?}"),
            );
        }
    }
}

/// Run `walk` on `c` (on a fresh topic named `name` under `work`).
pub(crate) fn run_walk(c: &mut dyn Brokers, walk: &Walk, name: &str, work: &Path) -> Outcome {
    let dir = work.join(name);
    std::fs::create_dir_all(&dir).unwrap();
    let mut run = Run {
        c,
        seq: Seq::new(dir.clone(), name.to_string(), false),
        cfg: walk.target.config(walk.min_isr, walk.unclean),
        model: State::initial(2),
        down: [Down::Up; 2],
        trace: Trace::default(),
        values: Vec::new(),
        produced: 0,
        epochs: Vec::new(),
        leaderless: 0,
        differ: None,
        notes: Vec::new(),
        rejoin: None,
        expired: Vec::new(),
        skipped: 0,
        times: Vec::new(),
        cfg_tiered: walk.target.tiered,
        tiers: None,
    };
    let min_isr = format!("min.insync.replicas={}", walk.min_isr);
    let unclean = format!("unclean.leader.election.enable={}", walk.unclean);
    let mut create = vec![name, "1,2", &min_isr];
    if walk.target.zk {
        create.push(&unclean);
    }
    if walk.target.tiered {
        create.extend_from_slice(&crate::real_tiered_walks::TOPIC_CONFIGS);
    }
    let answer = run.c.kc("create", &create);
    if answer.first().is_none_or(|a| a.get("created").is_none()) {
        run.problem(0, format!("create failed: {answer:?}"));
    }
    let mut created = run.model;
    apply_first(&run.cfg, &mut created, &mut run.trace, |a| matches!(a, Action::Elect { unclean: false, .. }));
    settle(&run.cfg, &mut created, &mut run.trace);
    run.follow_epochs(&created);
    run.model = created;
    run.compare(0, "create");
    let mut at = 0;
    for &step in &walk.steps {
        if run.differ.is_some() {
            break;
        }
        at += 1;
        run.step(at, step);
    }
    if run.differ.is_none() {
        run.heal(&mut at);
    }
    if run.differ.is_none() {
        run.verdict(at + 1);
    }
    let _ = std::fs::remove_dir_all(&dir);
    let steps_done = at - run.skipped.min(at);
    // Leave the cluster whole for the next walk, whatever happened.
    run.c.forget_walk(run.trace.fired.iter().any(|f| f.rule == Rule::PastLeaderEndHalts));
    run.c.heal();
    let (differ, notes, fired, times, expired) = (run.differ, run.notes, run.trace.fired, run.times, run.expired);
    Outcome { steps_done, differ, notes, fired, times, expired }
}

/// A walk's topic name: release, ELR, seed (and a suffix per minimizer attempt).
fn topic(walk: &Walk, suffix: &str) -> String {
    format!(
        "w{}-{}-s{}{suffix}",
        walk.target.release.replace('.', ""),
        if walk.target.zk {
            "zk"
        } else if walk.target.tiered {
            if walk.target.elr {
                "elr-t"
            } else {
                "noelr-t"
            }
        } else if walk.target.elr {
            "elr"
        } else {
            "noelr"
        },
        walk.seed
    )
}

/// The tally of a release's walks.
#[derive(Default)]
pub(crate) struct Tally {
    pub(crate) walks: usize,
    pub(crate) agree: usize,
    pub(crate) steps: usize,
    pub(crate) secs: f64,
    pub(crate) differ: Vec<String>,
    /// Walks that disagreed after a ZooKeeper session expiry no step caused, twice.
    pub(crate) load: Vec<String>,
}

/// Run `count` walks of `length` steps from seeds `seed`, `seed + 1`, ... on `target`;
/// with `minimize`, each disagreement is cut down and written to `kept`; with `progress`, a line
/// per walk is appended to that file as the walk ends (a run stopped midway keeps its walks).
pub(crate) fn run_walks(
    target: Target,
    seed: u64,
    count: usize,
    length: usize,
    minimize: Option<&Path>,
    progress: Option<&Path>,
) -> Option<Tally> {
    let started = Instant::now();
    let mut c = target.start()?;
    say!("{} up in {:.0} s", c.describe_release(), started.elapsed().as_secs_f64());
    let work = tempfile::Builder::new().prefix("klog-real-walks.").tempdir().unwrap();
    let mut tally = Tally::default();
    for i in 0..count as u64 {
        let walk = Walk::draw(target, seed + i, length);
        let t0 = Instant::now();
        let mut out = run_walk(c.as_mut(), &walk, &topic(&walk, ""), work.path());
        // A disagreement after a ZooKeeper session expiry no step caused is the machine's load
        // (2.8.2 seed 117, issue 41): the walk runs once more, and is not a model disagreement
        // if the expiry comes again.
        if out.differ.is_some() && !out.expired.is_empty() {
            let first = format!("harness: zk session expired (load): {}", out.expired.join(", "));
            say!("  {} seed {}: {first}; the walk runs again", target.name(), walk.seed);
            out = run_walk(c.as_mut(), &walk, &topic(&walk, "-again"), work.path());
            out.notes.insert(0, format!("first run: {first}"));
        }
        let load = (out.differ.is_some() && !out.expired.is_empty())
            .then(|| format!("harness: zk session expired (load): {}", out.expired.join(", ")));
        let secs = t0.elapsed().as_secs_f64();
        tally.walks += 1;
        tally.steps += out.steps_done;
        tally.secs += secs;
        let steps: Vec<String> = walk.steps.iter().map(|s| s.text()).collect();
        say!(
            "  {} seed {} min ISR {}{} ({} steps, {secs:.0} s): {}",
            target.name(),
            walk.seed,
            walk.min_isr,
            if target.zk { format!(", unclean {}", walk.unclean) } else { String::new() },
            walk.steps.len(),
            if out.differ.is_none() {
                "AGREE"
            } else if load.is_some() {
                "HARNESS"
            } else {
                "DIFFER"
            }
        );
        say!("    steps: {}", steps.join(", "));
        say!("    seconds (step+comparison): {}", out.times.join(", "));
        // A tiered walk's tier events (uploads are in every produce's comparison).
        let tier_event = |n: &&String| {
            ["local-delete: earliest", "rebuilt from remote", "deleted as klog", "acked below"]
                .iter()
                .any(|k| n.contains(k))
        };
        for n in out.notes.iter().filter(tier_event).filter(|_| target.tiered) {
            say!("    {n}");
        }
        if let Some(file) = progress {
            let verdict = match (&out.differ, &load) {
                (None, _) => "AGREE".to_string(),
                (Some((at, what)), Some(load)) => format!("{load} (not compared: at step {at}: {what})"),
                (Some((at, what)), None) => format!("DIFFER at step {at}: {what}"),
            };
            append_line(
                file,
                &format!(
                    "{} seed {} min ISR {}{}: {} steps run (the {} drawn, then the closing resumes and restarts), {secs:.0} s, {verdict}",
                    target.name(),
                    walk.seed,
                    walk.min_isr,
                    if target.zk { format!(", unclean {}", walk.unclean) } else { String::new() },
                    out.steps_done,
                    walk.steps.len()
                ),
            );
        }
        match out.differ {
            None => tally.agree += 1,
            Some((at, what)) if load.is_some() => {
                for n in &out.notes {
                    say!("    {n}");
                }
                tally.load.push(format!("seed {} at step {at}: {} ({what})", walk.seed, load.unwrap_or_default()));
            }
            Some((at, what)) => {
                for n in &out.notes {
                    say!("    {n}");
                }
                let mut line = format!("seed {} at step {at}: {what}", walk.seed);
                if let Some(kept) = minimize {
                    let (short, why) = minimize_on(c.as_mut(), &walk, at, work.path());
                    let name = keep_case(kept, &short, &why);
                    line.push_str(&format!(" (kept as {name}, {} steps)", short.steps.len()));
                }
                tally.differ.push(line);
            }
        }
    }
    say!(
        "{}: {} of {} walks agree, {} steps, {:.0} s per walk",
        target.name(),
        tally.agree,
        tally.walks,
        tally.steps,
        tally.secs / tally.walks.max(1) as f64
    );
    Some(tally)
}

/// Append `line` to `file` (created if missing).
fn append_line(file: &Path, line: &str) {
    use std::io::Write;
    let mut f = std::fs::OpenOptions::new().create(true).append(true).open(file).unwrap();
    writeln!(f, "{line}").unwrap();
}

/// The shortest walk found that still disagrees: the steps after the disagreement (at step
/// `at`) go, then each step in turn, last first, is dropped and the shorter walk re-run by
/// `disagrees` (on the brokers; a step the shorter walk's model no longer enables is skipped
/// when run); a drop that still disagrees is kept. Returns the walk and what its last
/// disagreeing run said.
fn minimize_walk(walk: &Walk, at: usize, mut disagrees: impl FnMut(&Walk) -> Option<String>) -> (Walk, String) {
    let mut best = Walk { steps: walk.steps[..at.min(walk.steps.len())].to_vec(), ..walk.clone() };
    let mut why = disagrees(&best);
    let mut i = best.steps.len();
    while i > 0 {
        i -= 1;
        let mut candidate = best.clone();
        candidate.steps.remove(i);
        if let Some(what) = disagrees(&candidate) {
            say!("    minimizer: without step {} ({}) it still disagrees: {what}", i + 1, best.steps[i].text());
            best = candidate;
            why = Some(what);
        }
    }
    (best, why.unwrap_or_else(|| "agreed when re-run (timing)".into()))
}

/// [`minimize_walk`] on the brokers.
fn minimize_on(c: &mut dyn Brokers, walk: &Walk, at: usize, work: &Path) -> (Walk, String) {
    let mut attempt = 0;
    minimize_walk(walk, at, |w| {
        attempt += 1;
        run_walk(c, w, &topic(w, &format!("-m{attempt}")), work).differ.map(|d| d.1)
    })
}

/// Write a kept case: tests/real-walks/<release>-<elr>-s<seed>.json.
fn keep_case(dir: &Path, walk: &Walk, why: &str) -> String {
    std::fs::create_dir_all(dir).unwrap();
    let mode = if walk.target.zk {
        "zk"
    } else if walk.target.elr {
        "elr"
    } else {
        "noelr"
    };
    let name = format!("{}-{mode}-s{}", walk.target.release, walk.seed);
    let mut v = walk.to_json();
    v["name"] = json!(name);
    v["brokers_and_model"] = json!(why);
    let text = serde_json::to_string_pretty(&v).unwrap() + "\n";
    std::fs::write(dir.join(format!("{name}.json")), text).unwrap();
    name
}

fn kept_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/real-walks")
}

/// The long run (`scripts/real-walks`): `KLOG_WALKS_RELEASE` (a release, or `all`),
/// `KLOG_WALKS_ELR` (`on`/`off`; both where the walks run both), `KLOG_WALKS_N` walks of
/// `KLOG_WALKS_STEPS` steps from seed `KLOG_WALKS_SEED`; `KLOG_WALKS_MINIMIZE=1` keeps each
/// disagreement, minimized, in tests/real-walks; `KLOG_WALKS_TABLE=FILE` appends a table
/// row per release to FILE as each release's walks end (for the one in
/// docs/checked-against-kafka.md), and a line per walk to FILE.walks as each walk ends.
#[test]
#[ignore = "the long run: scripts/real-walks"]
fn long_run() {
    let var = |k: &str| std::env::var(k).ok().filter(|v| !v.is_empty());
    let num = |k: &str, default: u64| var(k).map_or(default, |v| v.parse().unwrap_or_else(|_| panic!("{k}={v}")));
    let release = var("KLOG_WALKS_RELEASE").unwrap_or_else(|| "all".into());
    // `KLOG_WALKS_TIERED=1`: the tiered walks (`real_tiered_walks.rs`) on 4.4.0.
    let release = if var("KLOG_WALKS_TIERED").is_some() { "4.4.0-tiered".to_string() } else { release };
    let elr = var("KLOG_WALKS_ELR");
    // `all`: the KRaft releases; `all-zk`: the ZooKeeper ones; `X` or `X-zk`: one release.
    let targets: Vec<Target> = Target::every()
        .filter(|t| match release.as_str() {
            "all" => !t.zk && !t.tiered,
            "all-zk" => t.zk,
            r => t.release_name() == r,
        })
        .filter(|t| elr.as_deref().is_none_or(|e| (e == "on") == t.elr))
        .collect();
    assert!(
        !targets.is_empty(),
        "no walks on {release} (ELR {elr:?}): {:?}",
        Target::every().map(Target::release_name).collect::<Vec<_>>()
    );
    let (count, length, seed) =
        (num("KLOG_WALKS_N", 20) as usize, num("KLOG_WALKS_STEPS", 15) as usize, num("KLOG_WALKS_SEED", 1));
    let kept = var("KLOG_WALKS_MINIMIZE").map(|_| kept_dir());
    let table = var("KLOG_WALKS_TABLE").map(PathBuf::from);
    // The walks as they end, beside the table (FILE.walks).
    let progress = table.as_ref().map(|t| PathBuf::from(format!("{}.walks", t.display())));
    let mut rows = Vec::new();
    let mut differ = 0;
    for t in targets {
        let Some(tally) = run_walks(t, seed, count, length, kept.as_deref(), progress.as_deref()) else { return };
        for d in &tally.differ {
            say!("{}: {d}", t.name());
        }
        for d in &tally.load {
            say!("{}: {d}", t.name());
        }
        differ += tally.differ.len();
        let row = format!(
            "| {} ({}) | {} | {} | {} | {} of {} | {:.0} s | seeds {seed}..{} |",
            t.release,
            if t.zk {
                "ZooKeeper"
            } else if t.tiered {
                "KRaft, tiered"
            } else {
                "KRaft"
            },
            match (t.zk, t.elr) {
                (true, _) => "no ELR",
                (false, true) => "ELR on",
                (false, false) => "ELR off",
            },
            tally.walks,
            tally.steps,
            tally.agree,
            tally.walks,
            tally.secs / tally.walks.max(1) as f64,
            seed + count as u64 - 1
        );
        // Each release's row as soon as its walks end: a run stopped later keeps it.
        if let Some(table) = &table {
            append_line(table, &row);
        }
        rows.push(row);
    }
    for r in &rows {
        say!("{r}");
    }
    assert_eq!(differ, 0, "{differ} walks disagree (above)");
}

/// The model's state after the topic's creation, then after `shutdown n` (min ISR 1, unclean off).
fn created_then_shutdown(t: Target, n: usize) -> (Config, State, State) {
    let cfg = t.config(1, false);
    let (mut s, mut trace, mut down) = (State::initial(2), Trace::default(), [Down::Up; 2]);
    apply_first(&cfg, &mut s, &mut trace, |a| matches!(a, Action::Elect { unclean: false, .. }));
    settle(&cfg, &mut s, &mut trace);
    let before = s;
    model_apply(&cfg, &mut s, &mut down, Step::Shutdown(n), &mut trace).unwrap();
    (cfg, before, s)
}

/// [`rejoin_race`]: a controlled shutdown of an ISR follower may end one epoch later on the
/// ZooKeeper releases whose leader takes the stopping follower's fetch after the controller's
/// shrink (no epoch in the fetch before 2.1.0; none in a fetch session's cached partition,
/// FetchSession.scala:111@2.1.1, until KAFKA-9338 in 2.5.0), not on 2.8.2 or 3.9.1, nor in KRaft
/// mode, nor when the leader itself shuts down (an election, not an ISR shrink).
#[test]
fn a_stopping_isr_follower_may_rejoin_before_its_broker_exits_on_zookeeper_releases_before_2_5_0() {
    for t in Target::ZK.into_iter().filter(|t| t.release != "0.10.2.2") {
        let (cfg, before, after) = created_then_shutdown(t, 2);
        assert_eq!((before.latest_leader, before.isr, after.isr), (Some(0), 0b11, 0b01), "{}", t.name());
        let want = if ["3.9.1", "2.8.2"].contains(&t.release) { None } else { Some((1, 2)) };
        assert_eq!(rejoin_race(&cfg, &before, &after, 2), want, "{}", t.name());
        let (cfg, before, after) = created_then_shutdown(t, 1);
        assert_eq!(rejoin_race(&cfg, &before, &after, 1), None, "{}: the leader's shutdown", t.name());
    }
    for t in Target::every().filter(|t| !t.zk) {
        let (cfg, before, after) = created_then_shutdown(t, 2);
        assert_eq!(rejoin_race(&cfg, &before, &after, 2), None, "{}", t.name());
    }
}

/// [`rejoined_in_log`] on broker 1's lines from 2.1.1 seed 110 (issue 41's long run): it took
/// epoch 1 at the controller's shrink, added the stopping broker 2 back ("Expanding ISR",
/// Partition.scala:513@2.1.1), then took epoch 2 when 2's broker had exited; and on 0.11.0.3's
/// log prefix (Partition.scala:69@0.11.0.3-rc0).
#[test]
fn the_leaders_log_shows_a_stopping_follower_added_back_to_the_isr_after_its_epoch() {
    let log = "\
[2026-12-07 14:42:45,211] INFO [Partition w211-zk-s110-0 broker=1] w211-zk-s110-0 starts at Leader Epoch 0 from offset 0. Previous Leader Epoch was: -1 (kafka.cluster.Partition)
[2026-12-07 14:42:47,040] INFO [Partition w211-zk-s110-0 broker=1] w211-zk-s110-0 starts at Leader Epoch 1 from offset 0. Previous Leader Epoch was: 0 (kafka.cluster.Partition)
[2026-12-07 14:42:47,055] INFO [Partition w211-zk-s110-0 broker=1] Expanding ISR from 1 to 1,2 (kafka.cluster.Partition)
[2026-12-07 14:42:47,736] INFO [Partition w211-zk-s110-0 broker=1] w211-zk-s110-0 starts at Leader Epoch 2 from offset 0. Previous Leader Epoch was: 1 (kafka.cluster.Partition)
[2026-12-07 14:42:47,800] INFO [Partition w211-zk-s11-0 broker=1] Expanding ISR from 1 to 1,2 (kafka.cluster.Partition)
";
    assert!(rejoined_in_log(log, "w211-zk-s110", 2, 1));
    // An expansion at the next epoch is not one at this epoch.
    let later = log.replace(
        "47,055] INFO [Partition w211-zk-s110-0 broker=1] Expanding",
        "47,900] INFO [Partition w211-zk-s110-0 broker=1] Expanding",
    );
    let later = later
        .lines()
        .filter(|l| !l.contains(",900]"))
        .chain(later.lines().filter(|l| l.contains(",900]")))
        .collect::<Vec<_>>()
        .join("\n");
    assert!(!rejoined_in_log(&later, "w211-zk-s110", 2, 1));
    assert!(rejoined_in_log(&later, "w211-zk-s110", 2, 2));
    // Not at epoch 2 (no expansion after it: the s11-0 line is another topic's), not broker 3,
    // not at an epoch the leader never took.
    assert!(!rejoined_in_log(log, "w211-zk-s110", 2, 2));
    assert!(!rejoined_in_log(log, "w211-zk-s110", 3, 1));
    assert!(!rejoined_in_log(log, "w211-zk-s110", 2, 3));
    let old = "\
[2026-12-07 10:00:00,000] INFO Partition [w-0,0] on broker 1: w-0-0 starts at Leader Epoch 1 from offset 0. Previous Leader Epoch was: 0 (kafka.cluster.Partition)
[2026-12-07 10:00:00,010] INFO Partition [w-0,0] on broker 1: Expanding ISR from 1 to 1,2 (kafka.cluster.Partition)
";
    assert!(rejoined_in_log(old, "w-0", 2, 1));
    assert!(!rejoined_in_log(old, "w-0", 2, 0));
}

#[test]
fn walk_steps_round_trip_and_draws_are_fixed_by_the_seed() {
    for t in Target::every() {
        for seed in 0..40 {
            let a = Walk::draw(t, seed, 15);
            let b = Walk::draw(t, seed, 15);
            assert_eq!(a.steps, b.steps, "{} seed {seed}", t.name());
            assert!(a.steps.len() >= 10, "{} seed {seed}: a walk of {} steps: {:?}", t.name(), a.steps.len(), a.steps);
            let back = Walk::from_json(&a.to_json()).unwrap();
            assert_eq!(
                (back.steps, back.min_isr, back.seed, back.unclean, back.target.zk),
                (a.steps.clone(), a.min_isr, a.seed, a.unclean, t.zk)
            );
            if t.zk {
                assert!(!a.steps.contains(&Step::Unclean), "ZooKeeper mode: the topic's setting elects: {:?}", a.steps);
            }
            if t.elr {
                assert!(!a.steps.iter().any(|s| matches!(s, Step::Shutdown(_) | Step::Pause(_))), "{:?}", a.steps);
            }
        }
    }
    assert_eq!(Step::parse("kill 3"), None);
    assert_eq!(Step::parse("produce 1"), None);
    assert_eq!(Step::parse("power-loss 2"), Some(Step::PowerLoss(2)));
}

/// A ZooKeeper walk's topic sets `unclean.leader.election.enable`, and that setting, not the
/// release's default (false from 0.11.0.0), decides what a follower whose log runs past the
/// leader's end does: 0.11.0.3 reads the topic's config and truncates to the leader's end when it
/// is on (ReplicaFetcherThread.scala:154-165@0.11.0.3), stopping the broker only when it is off.
/// Kept case tests/real-walks/0.11.0.3-zk-s104.json: leader 2 alone acks x-0, is paused while 1
/// is down; 1 returns and is elected uncleanly with an empty log; the resumed 2 truncates x-0
/// (the brokers' log is empty). The walks' model stopped broker 2 instead.
#[test]
fn a_zookeeper_walks_unclean_topic_truncates_a_follower_past_the_leaders_end() {
    let v = json!({"release": "0.11.0.3", "elr": false, "mode": "zookeeper", "unclean": true, "seed": 104,
        "min_isr": 1, "steps": ["shutdown 1", "produce", "pause 2", "restart 1", "resume 2"]});
    let walk = Walk::from_json(&v).unwrap();
    let cfg = walk.target.config(walk.min_isr, walk.unclean);
    assert!(!cfg.rules.past_leader_end_halts(), "the topic's unclean election decides the halt");
    let mut s = State::initial(2);
    let mut trace = Trace::default();
    apply_first(&cfg, &mut s, &mut trace, |a| matches!(a, Action::Elect { unclean: false, .. }));
    settle(&cfg, &mut s, &mut trace);
    let mut down = [Down::Up; 2];
    for &step in &walk.steps {
        model_apply(&cfg, &mut s, &mut down, step, &mut trace).unwrap();
    }
    assert_eq!(s.latest_leader, Some(0), "1 leads after its unclean election");
    assert!(s.nodes[1].is_running(), "broker 2 runs on (it truncates, it does not stop)");
    assert!(s.nodes[1].records().is_empty(), "broker 2 truncated x-0 to the leader's end: {:?}", s.nodes[1].records());
    // With the topic's unclean election off, the same follower past the leader's end stops.
    let off = walk.target.config(walk.min_isr, false);
    assert!(off.rules.past_leader_end_halts());
}

#[test]
fn the_minimizer_keeps_only_the_steps_the_disagreement_needs() {
    // A stand-in for the brokers: the walk "disagrees" when broker 1 is killed and later
    // restarted after a produce. The minimizer must keep exactly those three steps.
    let walk = Walk::draw(Target::ALL[1], 7, 15);
    let steps = vec![
        Step::Produce,
        Step::Kill(2),
        Step::Restart(2),
        Step::Kill(1),
        Step::Produce,
        Step::Pause(2),
        Step::Resume(2),
        Step::Restart(1),
        Step::Produce,
        Step::Kill(2),
    ];
    let walk = Walk { steps, ..walk };
    let needs = |w: &Walk| {
        let k = w.steps.iter().position(|s| *s == Step::Kill(1))?;
        let p = k + w.steps[k..].iter().position(|s| *s == Step::Produce)?;
        w.steps[p..].contains(&Step::Restart(1)).then(|| "differs".to_string())
    };
    let mut runs = 0;
    let (short, why) = minimize_walk(&walk, 8, |w| {
        runs += 1;
        needs(w)
    });
    assert_eq!(short.steps, vec![Step::Kill(1), Step::Produce, Step::Restart(1)]);
    assert_eq!(why, "differs");
    assert_eq!(runs, 9, "one run of the cut walk, then one per step dropped");
    // A walk that agrees when re-run is kept whole, and says so.
    let (same, why) = minimize_walk(&walk, 3, |_| None);
    assert_eq!((same.steps.len(), why.as_str()), (3, "agreed when re-run (timing)"));
}

/// The fixed-seed subset `cargo test --test kafka` runs: (target, first seed, walks, steps). One short walk
/// per release (a cluster start is 15-35 s, a step about 5 s), about 4 minutes in all; the long
/// run is `scripts/real-walks`. 4.4.0 with ELR off is left to the long run: its model (the 4.x
/// controller without ELR) is the one 4.0.2 and 3.9.1 walk here.
const SUBSET: [(Target, u64, usize, usize); 4] =
    [(Target::ALL[0], 3, 1, 7), (Target::ALL[2], 4, 1, 8), (Target::ALL[3], 4, 1, 8), (Target::ALL[4], 5, 1, 8)];

#[test]
fn walks_agree_on_real_kraft_brokers() {
    let started = Instant::now();
    let mut problems = Vec::new();
    for (target, seed, count, length) in SUBSET {
        let t0 = Instant::now();
        let Some(tally) = run_walks(target, seed, count, length, None, None) else { return };
        say!("{}: {} of {} agree in {:.0} s", target.name(), tally.agree, tally.walks, t0.elapsed().as_secs_f64());
        problems.extend(tally.differ.into_iter().map(|d| format!("{}: {d}", target.name())));
    }
    say!("real walks: {} disagreements; {:.0} s", problems.len(), started.elapsed().as_secs_f64());
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

/// The ZooKeeper-mode part of the subset: (target, first seed, walks, steps). One short walk on
/// 2.8.2 (a cluster start is 7-16 s here, a step 3-10 s: a failure waits for the broker's 6 s
/// ZooKeeper session to expire); the 4.4.0 KRaft walks were cut from 10 to 7 steps to keep the
/// whole subset near 5 minutes. The long run covers 3.9.1 and the older releases.
const SUBSET_ZK: [(Target, u64, usize, usize); 1] = [(Target::ZK[1], 2, 1, 6)];

#[test]
fn walks_agree_on_real_zookeeper_brokers() {
    let started = Instant::now();
    let mut problems = Vec::new();
    for (target, seed, count, length) in SUBSET_ZK {
        let t0 = Instant::now();
        let Some(tally) = run_walks(target, seed, count, length, None, None) else { return };
        say!("{}: {} of {} agree in {:.0} s", target.name(), tally.agree, tally.walks, t0.elapsed().as_secs_f64());
        problems.extend(tally.differ.into_iter().map(|d| format!("{}: {d}", target.name())));
    }
    say!("real ZooKeeper walks: {} disagreements; {:.0} s", problems.len(), started.elapsed().as_secs_f64());
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

/// Every walk in tests/real-walks/*.json, by file name: the minimizer's kept disagreements and
/// the directed walks (those with `"reaches"`).
pub(crate) fn stored_walks() -> Vec<(String, Walk)> {
    let dir = kept_dir();
    let mut cases: Vec<PathBuf> = std::fs::read_dir(&dir)
        .map(|d| {
            d.filter_map(|e| e.ok().map(|e| e.path())).filter(|p| p.extension().is_some_and(|x| x == "json")).collect()
        })
        .unwrap_or_default();
    cases.sort();
    cases
        .iter()
        .map(|p| {
            let text = std::fs::read_to_string(p).unwrap();
            let v: Value = serde_json::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", p.display()));
            let walk = Walk::from_json(&v).unwrap_or_else(|e| panic!("{}: {e}", p.display()));
            (p.file_stem().unwrap().to_string_lossy().into_owned(), walk)
        })
        .collect()
}

/// Run stored walks on their releases' brokers; the problems found: a disagreement, or a
/// directed walk whose rule the model did not say decided a step. Consecutive walks on the same
/// target share one cluster, healed between them, as the long run's walks of a release do
/// ([`run_walks`]: 20 walks on one cluster); each walk has its own topic.
fn replay(walks: &[(String, Walk)], suffix: &str) -> Option<Vec<String>> {
    let mut problems = Vec::new();
    let mut running: Option<(String, Box<dyn Brokers>)> = None;
    for (name, walk) in walks {
        let started = Instant::now();
        let target = walk.target.name();
        if running.as_ref().is_none_or(|(t, _)| *t != target) {
            // The last target's nodes stop first (one cluster at a time).
            drop(running.take());
            running = Some((target, walk.target.start()?));
        }
        let c = &mut running.as_mut().expect("a cluster for this target").1;
        let work = tempfile::Builder::new().prefix("klog-real-walks.").tempdir().unwrap();
        let out = run_walk(c.as_mut(), walk, &topic(walk, suffix), work.path());
        say!(
            "  {name} on {} ({} steps, {:.0} s): {}",
            walk.target.name(),
            out.steps_done,
            started.elapsed().as_secs_f64(),
            if out.differ.is_none() { "AGREE" } else { "DIFFER" }
        );
        for n in &out.notes {
            say!("    {n}");
        }
        if let Some((at, what)) = out.differ {
            problems.push(format!("{name} at step {at}: {what}"));
        }
        if let Some(rule) = walk.reaches {
            let fired: Vec<&Fired> = out.fired.iter().filter(|f| f.rule == rule).collect();
            for f in &fired {
                say!("    the model: {}", f.what);
            }
            if fired.is_empty() {
                problems.push(format!("{name}: the model never says {} decided a step", rule.name()));
            }
        }
    }
    Some(problems)
}

/// Each kept case (tests/real-walks/*.json without `"reaches"`, written by the long run's
/// minimizer) replayed on its release: a kept disagreement must agree once the model or klog is
/// fixed. With no case kept there is nothing to replay, and the test says so rather than
/// passing as if it had checked something.
///
/// `KLOG_WALKS_CASE=NAME`: only the cases whose name holds NAME (`KLOG_REAL_KEEP=1` then keeps
/// each cluster's logs).
#[test]
fn kept_cases_replay() {
    let only = std::env::var("KLOG_WALKS_CASE").unwrap_or_default();
    let walks: Vec<(String, Walk)> = stored_walks()
        .into_iter()
        .filter(|(n, w)| w.reaches.is_none() && !w.target.tiered && n.contains(&only))
        .collect();
    if walks.is_empty() {
        say!("kept_cases_replay: no case kept in {}: nothing replayed", kept_dir().display());
        return;
    }
    let Some(problems) = replay(&walks, "-kept") else { return };
    say!("kept_cases_replay: {} kept cases replayed, {} disagree", walks.len(), problems.len());
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

/// The directed walks (tests/real-walks/*.json with `"reaches"`): on the model alone, each
/// names a rule that decides one of its steps (the same step under the rule's other reading,
/// another release's, ends in another state), and every step is one the model enables. No
/// brokers: this runs everywhere.
#[test]
fn directed_walks_reach_their_rules_on_the_model() {
    let walks: Vec<(String, Walk)> = stored_walks().into_iter().filter(|(_, w)| w.reaches.is_some()).collect();
    let reached: Vec<Rule> = walks.iter().filter_map(|(_, w)| w.reaches).collect();
    assert_eq!(
        reached,
        [Rule::PastLeaderEndHalts, Rule::BelowFirstEpoch, Rule::LastKnownLeaderAlive],
        "one directed walk per rule a walk can reach (2.0.0's makeFollower, IBP 2.1-IV1's fencing and 2.8.1's \
         KAFKA-12996 and KAFKA-13141 cannot: the module doc says why)"
    );
    for (name, walk) in &walks {
        let rule = walk.reaches.unwrap();
        let trace = walk.on_model().unwrap_or_else(|e| panic!("{name}: {e}"));
        let fired: Vec<&Fired> = trace.fired.iter().filter(|f| f.rule == rule).collect();
        assert!(!fired.is_empty(), "{name}: {} decides no step: {:?}", rule.name(), trace.fired);
        // Only this rule (of the three) decides anything: the walk isolates it.
        assert!(trace.fired.iter().all(|f| f.rule == rule), "{name}: {:?}", trace.fired);
    }
}

/// The directed walks on real brokers: every step agrees with the model, and the model says
/// the walk's rule decided a step. About 3 minutes (a ZooKeeper 2.0.1 and a KRaft 4.0.2
/// cluster); `scripts/real-walks --directed` runs it.
#[test]
#[ignore = "real brokers of 2.0.1 and 4.0.2: scripts/real-walks --directed"]
fn directed_walks_agree_on_real_brokers() {
    // KLOG_WALKS_CASE=NAME: only the walks whose name holds NAME.
    let only = std::env::var("KLOG_WALKS_CASE").unwrap_or_default();
    let walks: Vec<(String, Walk)> =
        stored_walks().into_iter().filter(|(n, w)| w.reaches.is_some() && n.contains(&only)).collect();
    assert!(!walks.is_empty(), "no directed walk named *{only}*");
    let Some(problems) = replay(&walks, "-rule") else { return };
    say!("directed walks: {} run, {} problems", walks.len(), problems.len());
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

/// Search aid (not a check): the shortest step lists on which the model says `KLOG_RULE`
/// decides, on `KLOG_RULE_TARGET` (a `--release` name; `KLOG_RULE_ELR=on`).
#[test]
#[ignore = "a search aid for writing directed walks"]
fn search_rule_walks() {
    let var = |k: &str| std::env::var(k).unwrap_or_default();
    let rule = Rule::parse(&var("KLOG_RULE")).expect("KLOG_RULE");
    let target = Target::every()
        .find(|t| t.release_name() == var("KLOG_RULE_TARGET") && t.elr == (var("KLOG_RULE_ELR") == "on"))
        .expect("KLOG_RULE_TARGET");
    let alphabet: Vec<Step> = [Step::Produce, Step::Unclean]
        .into_iter()
        .chain((1..=2).flat_map(|n| {
            [Step::Kill(n), Step::PowerLoss(n), Step::Shutdown(n), Step::Pause(n), Step::Resume(n), Step::Restart(n)]
        }))
        .filter(|s| !(target.zk && *s == Step::Unclean))
        .filter(|s| !(target.elr && matches!(s, Step::Shutdown(_) | Step::Pause(_))))
        .collect();
    let mut found = 0;
    for min_isr in 1..=2u8 {
        for unclean in [false, true] {
            if !target.zk && unclean {
                continue;
            }
            let base = Walk { target, seed: 0, min_isr, unclean, steps: vec![], reaches: Some(rule) };
            let mut seen = std::collections::HashSet::new();
            let mut layer = vec![base];
            for _depth in 0..9 {
                let mut next = Vec::new();
                for w in &layer {
                    for &st in &alphabet {
                        let mut c = w.clone();
                        c.steps.push(st);
                        if c.steps.iter().filter(|s| **s == Step::Produce).count() > 4 {
                            continue;
                        }
                        let Ok(trace) = c.on_model() else { continue };
                        if trace.fired.iter().any(|f| f.rule == rule) && found < 6 {
                            found += 1;
                            let steps: Vec<String> = c.steps.iter().map(|s| s.text()).collect();
                            say!("min ISR {min_isr} unclean {unclean}: {}", steps.join(", "));
                            for f in trace.fired.iter().filter(|f| f.rule == rule) {
                                say!("   {}", f.what);
                            }
                        }
                        // The model state after the steps, without the closing restarts.
                        let cfg = target.config(min_isr, unclean);
                        let mut s = State::initial(2);
                        let mut t = Trace::default();
                        apply_first(&cfg, &mut s, &mut t, |a| matches!(a, Action::Elect { unclean: false, .. }));
                        settle(&cfg, &mut s, &mut t);
                        let mut down = [Down::Up; 2];
                        for &x in &c.steps {
                            let _ = model_apply(&cfg, &mut s, &mut down, x, &mut t);
                        }
                        if seen.insert(format!("{s:?}{down:?}")) {
                            next.push(c);
                        }
                    }
                }
                layer = next;
                if found >= 6 {
                    return;
                }
            }
        }
    }
    say!("found {found}");
}
