//! The in-memory lab: replicas of one partition as small values, and the actions of `klog explore`
//! (each one klog command) applied to them by the very procedures the commands run. Each node is
//! a [`Storage`] ([`Slot`]), so becoming a leader ([`leader::become_leader`]), one fetch round
//! ([`replication::fetch::fetch_round`]), restarting as a follower ([`follower::plan_restart`],
//! [`follower::restart_as_follower`]) and classifying a window ([`classify::classify_window`])
//! are the code `elect`, `fetch` and `recover` run on disk, on the rules of the configured release
//! ([`Rules`]). What is the lab's own: local recovery of a crashed node (`Replica::start` on a
//! value), the controller's choices (who may be elected, which leader change a replica may be
//! told: [`State::successors`]) and the invariants.
//!
//! Records are single-record batches appended one per command, so every truncation point is a
//! batch boundary and a record is identified by its value (each appended value is new).
//!
//! Nothing here does I/O or prints. Sizes are bounded by [`MAX_REPLICAS`], [`MAX_RECORDS`] and
//! [`MAX_EPOCHS`] so that a state is a small `Copy` value.

pub use super::tier::{NodeTier, RemoteSegment, MAX_REMOTE};
use crate::error::Result;
use crate::kraft::partition_change::{self, Partition};
use crate::log::epoch_cache::{EpochCache, EpochEntry};
use crate::replica::Role;
use crate::replication::classify::{self, RecordClass};
use crate::replication::election::{counted_epoch, next_leader_epoch, ElectionRefusal};
use crate::replication::fencing::{self, fetch_allowed, FollowerFacts};
use crate::replication::fetch::DEFAULT_FETCH_MAX_BYTES;
use crate::replication::follower;
use crate::replication::high_watermark;
use crate::replication::isr;
use crate::replication::release::Rules;
use crate::replication::storage::{self, Copied, Running, Storage};
use crate::replication::truncation::{TruncationMode, TruncationPlan};
use crate::replication::zk_controller;
use crate::replication::{self, leader};

/// Most replicas a search models.
pub const MAX_REPLICAS: usize = 3;
/// Most records a search appends (so no log is longer).
pub const MAX_RECORDS: usize = 8;
/// Most elections a search makes (epochs 0 ..= MAX_EPOCHS − 1).
pub const MAX_EPOCHS: usize = 8;

/// What a search explores.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Config {
    pub replicas: usize,
    /// The release whose rules the replicas run (the mode is its truncation procedure).
    pub rules: Rules,
    pub max_epochs: u8,
    pub max_records: u8,
    pub max_depth: u32,
    /// Elections may pick a live replica outside the ISR.
    pub unclean: bool,
    /// Replicas are fenced by the epochs they have seen (KIP-320's FENCED_LEADER_EPOCH); a
    /// leader change not above a running replica's epoch is ignored either way (every release).
    pub fencing: bool,
    /// Crashes may drop unflushed bytes, and `flush` is an action.
    pub power_loss: bool,
    /// A crash leaves the HW last checkpointed, not the live one (Kafka writes
    /// replication-offset-checkpoint every 5 s), and the checkpoint is an action.
    pub stale_hw: bool,
    /// The topic's min.insync.replicas: a leader appends only with an ISR that large (itself
    /// included), and its HW waits while the ISR is smaller (Kafka 3.7).
    pub min_isr: u8,
    /// Who elects: the explorer freely, or Kafka 4.x's KRaft controller.
    pub controller: Controller,
    /// Tiered storage (KIP-405, Kafka 4.4's rules): log starts, remote segments, upload and
    /// local deletion as actions, and the tiered invariant ([`super::tier`]).
    pub tiered: bool,
}

/// Who decides elections and ISR changes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Controller {
    /// The explorer: any live ISR member with any subset of the ISR that holds it (and, with
    /// `unclean`, any live replica alone); the ISR changes only at elections. The lab's and
    /// the pre-4.0 releases' model.
    Free,
    /// Kafka 4.x's KRaft controller ([`partition_change`]): a crash fences the broker (it leaves
    /// the ISR, and a leader is replaced by the first valid replica of the assignment a, b, c);
    /// a restart registers after an unclean shutdown and unfences; the leader shrinks and
    /// expands the ISR (AlterPartition); `unclean` adds `Admin.electLeaders(UNCLEAN)` for a
    /// partition with no leader. `elr`: Eligible Leader Replicas on.
    Kraft { elr: bool },
    /// The ZooKeeper-mode controller (Kafka 0.10 – 3.9, [`zk_controller`]): a crash fails the
    /// broker (a leader is replaced by the first live ISR member; the replica leaves the ISR
    /// unless it is the last member; with `unclean` — the topic's
    /// `unclean.leader.election.enable` — a live replica out of the ISR leads when no member
    /// can); a restart elects for a partition without a leader. Every change it writes issues a
    /// new leader epoch, a leader kept included; the leader expands the ISR (no new epoch). Not
    /// chosen by [`Controller::of`] (the explorer keeps the free controller before 4.0): the
    /// real-broker walks set it.
    Zk,
}

impl Controller {
    /// The controller of a release: KRaft from 4.0 (ZooKeeper is gone), ELR as the release
    /// sets it for a new cluster unless `elr` says otherwise.
    pub fn of(rules: &Rules, elr: Option<bool>) -> Controller {
        use crate::replication::release::{Elr, Release};
        if rules.release < Release::new(4, 0, 0) {
            return Controller::Free;
        }
        Controller::Kraft { elr: elr.unwrap_or(rules.elr == Elr::Default) }
    }
}

impl Config {
    /// Bounds with clean elections, fencing and no power loss (the searches the acceptance
    /// names; the flags are set on the result).
    pub fn clean(mode: TruncationMode, replicas: usize, max_epochs: u8, max_records: u8, max_depth: u32) -> Config {
        Config::clean_at(Rules::of_mode(mode), replicas, max_epochs, max_records, max_depth)
    }

    /// [`Config::clean`] with a release's rules.
    pub fn clean_at(rules: Rules, replicas: usize, max_epochs: u8, max_records: u8, max_depth: u32) -> Config {
        Config {
            replicas,
            rules,
            max_epochs,
            max_records,
            max_depth,
            unclean: false,
            fencing: true,
            power_loss: false,
            stale_hw: false,
            min_isr: 1,
            controller: Controller::of(&rules, None),
            tiered: false,
        }
    }

    /// The truncation procedure of the release.
    pub fn mode(&self) -> TruncationMode {
        self.rules.truncation
    }

    /// Eligible Leader Replicas on (KRaft controller only).
    pub fn elr(&self) -> bool {
        matches!(self.controller, Controller::Kraft { elr: true })
    }
}

/// The ZooKeeper controller's settings: the topic's unclean elections, and the release's
/// treatment of the last ISR member (1.1 on keeps it).
fn zk_settings(cfg: &Config) -> zk_controller::Settings {
    use crate::replication::release::Release;
    zk_controller::Settings { unclean: cfg.unclean, keeps_last_isr: cfg.rules.release >= Release::new(1, 1, 0) }
}

/// The partition-change settings of a KRaft run.
fn settings(cfg: &Config, elr: bool) -> partition_change::Settings {
    partition_change::Settings {
        elr,
        min_isr: cfg.min_isr as usize,
        last_known_leader_must_be_alive: cfg.rules.last_known_leader_must_be_alive,
    }
}

/// One record of a log: the epoch it is stamped with and its value (1 = the first appended).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Rec {
    pub leader_epoch: i8,
    pub value: u8,
}

/// What a running replica holds in memory (klog's `VolatileState`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Volatile {
    pub role: Role,
    /// −1: no leader epoch yet (just started).
    pub leader_epoch: i8,
    /// A follower's leader, by replica index.
    pub leader: Option<u8>,
    /// A leader's ISR without itself, as a bit mask of replica indexes.
    pub isr: u8,
    /// A leader's last recorded fetch offset of each replica (−1: none since the election).
    pub fetch_offsets: [i8; MAX_REPLICAS],
}

impl Volatile {
    fn started() -> Self {
        Volatile { role: Role::Follower, leader_epoch: -1, leader: None, isr: 0, fetch_offsets: [-1; MAX_REPLICAS] }
    }
}

/// One replica: its durable files and, when running, its volatile state.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Node {
    pub log: [Rec; MAX_RECORDS],
    pub log_len: u8,
    /// `leader-epoch-checkpoint`: (epoch, start offset).
    pub epochs: [(i8, u8); MAX_EPOCHS + 1],
    pub epochs_len: u8,
    pub high_watermark: u8,
    /// What replication-offset-checkpoint holds (with `--stale-hw`; else unused and 0).
    pub hw_checkpoint: u8,
    pub recovery_point: u8,
    /// The largest leader epoch it has seen (durable; −1: none).
    pub largest_seen: i8,
    /// `None`: crashed (not running).
    pub vol: Option<Volatile>,
    /// Its log starts and what it knows of the remote tier (all 0 unless `--tiered`).
    pub tier: NodeTier,
}

impl Node {
    pub(super) fn new() -> Self {
        Node {
            log: [Rec::default(); MAX_RECORDS],
            log_len: 0,
            epochs: [(0, 0); MAX_EPOCHS + 1],
            epochs_len: 0,
            high_watermark: 0,
            hw_checkpoint: 0,
            recovery_point: 0,
            largest_seen: -1,
            vol: Some(Volatile::started()),
            tier: NodeTier::default(),
        }
    }

    pub fn records(&self) -> &[Rec] {
        &self.log[..self.log_len as usize]
    }

    pub fn log_end_offset(&self) -> i64 {
        self.log_len as i64
    }

    pub fn epoch_cache(&self) -> EpochCache {
        EpochCache::from_entries(
            self.epochs[..self.epochs_len as usize]
                .iter()
                .map(|&(e, o)| EpochEntry { leader_epoch: e as i32, start_offset: o as i64 }),
        )
    }

    pub(super) fn set_epoch_cache(&mut self, cache: &EpochCache) {
        let entries = cache.entries();
        assert!(entries.len() <= self.epochs.len(), "an epoch cache holds at most one entry per epoch");
        for (slot, e) in self.epochs.iter_mut().zip(entries) {
            *slot = (e.leader_epoch as i8, e.start_offset as u8);
        }
        self.epochs_len = entries.len() as u8;
    }

    fn update_epoch_cache(&mut self, change: impl FnOnce(&mut EpochCache) -> bool) {
        let mut cache = self.epoch_cache();
        if change(&mut cache) {
            self.set_epoch_cache(&cache);
        }
    }

    pub fn is_running(&self) -> bool {
        self.vol.is_some()
    }

    /// Running as leader: its epoch.
    pub fn leader_epoch(&self) -> Option<i8> {
        self.vol.filter(|v| v.role == Role::Leader).map(|v| v.leader_epoch)
    }

    /// `Replica::is_empty`: no batch and no epoch-cache entry.
    fn is_empty(&self) -> bool {
        self.log_len == 0 && self.epochs_len == 0
    }

    /// `Log::truncate_to` then `clamp_after_truncation`: cut the log, the epoch cache from the
    /// new end, and the HW and recovery point to the new LEO.
    fn truncate_to(&mut self, target: i64) {
        if target < self.tier.local_log_start as i64 {
            self.truncate_fully_and_start_at(target);
            return;
        }
        let new_end = target.min(self.log_end_offset()).max(0);
        if new_end < self.log_end_offset() {
            // The segment holding `new_end` (one record a segment) is cut to empty.
            self.tier.rolled = true;
        }
        self.log_len = new_end as u8;
        self.update_epoch_cache(|c| c.truncate_from_end(new_end));
        self.high_watermark = high_watermark::clamp_to_log_end(self.high_watermark as i64, new_end) as u8;
        self.recovery_point = high_watermark::clamp_to_log_end(self.recovery_point as i64, new_end) as u8;
    }

    /// `Log::append_batch` for one single-record batch: the epoch is assigned first.
    fn append(&mut self, rec: Rec) {
        let offset = self.log_end_offset();
        self.tier.rolled = false;
        self.update_epoch_cache(|c| c.assign(rec.leader_epoch as i32, offset));
        self.log[self.log_len as usize] = rec;
        self.log_len += 1;
    }

    /// `Replica::start` on a crashed replica (`recovery::recover_log` after an unclean stop):
    /// every batch of the (single) segment holding the recovery point is scanned and its epoch
    /// assigned when above the cache's latest; the cache is truncated to the LEO (a new
    /// leader's entry with no data goes, as `LogLoader`'s `truncateFromEnd(nextOffset)` drops
    /// it); recovery point and HW clamped to the LEO; it runs as a follower of no leader.
    /// A running replica is left as it is.
    fn start(&mut self) {
        if self.vol.is_some() {
            return;
        }
        let leo = self.log_end_offset();
        let records = self.log;
        let len = self.log_len as usize;
        let local = (self.tier.local_log_start as usize).min(len);
        self.update_epoch_cache(|c| {
            let mut changed = false;
            for (offset, rec) in records[..len].iter().enumerate().skip(local) {
                if c.latest_epoch().is_none_or(|l| rec.leader_epoch as i32 > l) {
                    changed |= c.assign(rec.leader_epoch as i32, offset as i64);
                }
            }
            changed |= c.truncate_from_end(leo);
            changed |= c.truncate_from_start(0);
            changed
        });
        self.recovery_point = (self.recovery_point as i64).min(leo) as u8;
        self.high_watermark = (self.high_watermark as i64).clamp(0, leo) as u8;
        self.vol = Some(Volatile::started());
    }
}

/// One klog command of a history.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Action {
    /// `klog elect R --epoch E --isr …`: `isr` is the new ISR as a mask, the leader included.
    Elect { replica: u8, leader_epoch: i8, isr: u8, unclean: bool },
    /// `klog append R m<value>`.
    Append { replica: u8, value: u8 },
    /// `klog fetch --leader L F` (one round).
    Fetch { leader: u8, follower: u8 },
    /// `klog crash R [--power-loss] [--hw N]`: with `hw`, the HW checkpoint left is `N`, the
    /// value last checkpointed.
    Crash { replica: u8, power_loss: bool, hw: Option<u8> },
    /// The broker writes its HW checkpoint (Kafka: every 5 s); no klog command (klog writes the
    /// HW every time it changes).
    CheckpointHw { replica: u8 },
    /// `klog flush R`.
    Flush { replica: u8 },
    /// `klog recover R`: restart after a crash (local recovery), a follower of no leader yet.
    Restart { replica: u8 },
    /// `klog recover F --leader L --mode M`.
    Recover { follower: u8, leader: u8 },
    /// The controller elects `replica` at `leader_epoch` with `isr`, but its LeaderAndIsr has
    /// not reached the new leader yet (only with `--no-fencing`: the stale receiver before
    /// KIP-320). A comment in scripts; the later `Elect` of the same is its delivery.
    Announce { replica: u8, leader_epoch: i8, isr: u8 },
    /// `klog recover F --leader L --leader-epoch E --no-fencing`: F was told of the announced
    /// election first and truncates against L as L is now — a leader at an older epoch, which
    /// answers from the log it has (Kafka 2.0.1's `Partition.lastOffsetForLeaderEpoch`).
    RecoverAhead { follower: u8, leader: u8, leader_epoch: i8 },
    /// `klog alter-isr L --isr …`: the leader's AlterPartition, accepted by the KRaft
    /// controller (a shrink of a member not caught up, or an expansion by one caught up); `isr`
    /// is the new ISR as a mask, the leader included.
    AlterIsr { leader: u8, isr: u8 },
    /// `klog tier copy R`: the leader's copy task, once (`--tiered`).
    Upload { replica: u8 },
    /// `klog tier retain R --local-retention-bytes 1`: local retention, once (`--tiered`).
    LocalDelete { replica: u8 },
}

/// A broken invariant.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Violation {
    /// An acked record is missing from a later leader's log at its offset.
    AckedLoss { value: u8, offset: u8, leader: u8, leader_epoch: i8, found: Option<Rec> },
    /// Two replicas hold different records at an offset below both of their HWs.
    Divergence { offset: u8, a: u8, b: u8, rec_a: Rec, rec_b: Rec },
}

impl Violation {
    /// The record the violation is about (value) and its offset.
    pub fn record(&self) -> (u8, u8) {
        match *self {
            Violation::AckedLoss { value, offset, .. } => (value, offset),
            Violation::Divergence { offset, rec_a, .. } => (rec_a.value, offset),
        }
    }
}

/// The whole lab: the replicas and what the controller knows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct State {
    pub nodes: [Node; MAX_REPLICAS],
    pub replica_count: u8,
    /// Epochs issued so far (the next election's epoch).
    pub epochs_issued: u8,
    /// Records appended so far (the next value is one more).
    pub appended: u8,
    /// The ISR of the latest election (all replicas before the first).
    pub isr: u8,
    /// The leader of the latest epoch (with the KRaft controller, `None` while the partition
    /// has no leader).
    pub latest_leader: Option<u8>,
    /// The KRaft controller's eligible leader replicas and last known leader, as masks.
    pub elr: u8,
    pub last_known_elr: u8,
    /// An election whose LeaderAndIsr has not reached its leader yet: (leader, epoch, ISR).
    pub announced: Option<(u8, i8, u8)>,
    /// Records acked so far: (offset, value), sorted.
    pub acked: [(u8, u8); MAX_RECORDS],
    pub acked_len: u8,
    /// The partition's remote segments in the order their copies finished (`--tiered`).
    pub remote: [RemoteSegment; MAX_REMOTE],
    pub remote_len: u8,
}

fn bit(i: usize) -> u8 {
    1 << i
}

impl State {
    /// Every replica created, empty, running as a follower of no leader, all in the ISR.
    pub fn initial(replicas: usize) -> Self {
        assert!((1..=MAX_REPLICAS).contains(&replicas));
        State {
            nodes: [Node::new(); MAX_REPLICAS],
            replica_count: replicas as u8,
            epochs_issued: 0,
            appended: 0,
            isr: (1u8 << replicas) - 1,
            latest_leader: None,
            elr: 0,
            last_known_elr: 0,
            announced: None,
            acked: [(0, 0); MAX_RECORDS],
            acked_len: 0,
            remote: [RemoteSegment::default(); MAX_REMOTE],
            remote_len: 0,
        }
    }

    pub fn n(&self) -> usize {
        self.replica_count as usize
    }

    pub fn acked(&self) -> &[(u8, u8)] {
        &self.acked[..self.acked_len as usize]
    }

    /// What the fencing rules look at in follower `f` with respect to leader `l`
    /// (`replication::on_disk::follower_facts`); `empty` is judged once started, as the fetch command
    /// does for a crashed replica.
    fn facts(&self, f: usize, l: usize) -> FollowerFacts {
        let node = &self.nodes[f];
        let empty = if node.is_running() {
            node.is_empty()
        } else {
            let mut started = *node;
            started.start();
            started.is_empty()
        };
        FollowerFacts {
            largest_seen: (node.largest_seen >= 0).then_some(node.largest_seen as i32),
            running: node.vol.map(|v| (v.role, v.leader_epoch as i32)),
            follows_this_leader: node.vol.is_some_and(|v| v.role == Role::Follower && v.leader == Some(l as u8)),
            empty,
        }
    }

    /// The controller's rule for telling replica `f` that `l` leads at `l`'s epoch. A replica
    /// that restarted after a crash is told the leader of the latest epoch (the controller sends
    /// the current LeaderAndIsr when a broker registers). A running replica is
    /// told changes in order, some late or never: any leader whose epoch is above the one it
    /// has (every release ignores one that is not: `ReplicaManager.becomeLeaderOrFollower`).
    fn may_be_told(&self, f: usize, l: usize) -> bool {
        let Some(le) = self.nodes[l].leader_epoch() else { return false };
        let latest = self.latest_leader == Some(l as u8) && le as i32 == self.epochs_issued as i32 - 1;
        let node = &self.nodes[f];
        match node.vol {
            None => latest,
            // Restarted: told the latest. One that never heard of any epoch is a running
            // replica whose first leader change may still be on its way (any epoch is above −1).
            Some(v) if v.leader_epoch < 0 && node.largest_seen >= 0 => latest,
            Some(v) => le > v.leader_epoch,
        }
    }

    /// Whether `klog fetch --leader l f` is one the lab runs: `l` leads; `f` is its follower at
    /// its epoch, or empty and may be told of `l` (its first fetch makes it the follower); the
    /// command's fencing check (`may_fetch`) passes.
    fn may_fetch(&self, cfg: &Config, f: usize, l: usize) -> bool {
        let Some(le) = self.nodes[l].leader_epoch() else { return false };
        // With the KRaft controller a crashed broker comes back by registering (restart or
        // recover), not by `klog fetch` starting it.
        if cfg.controller != Controller::Free && !self.nodes[f].is_running() {
            return false;
        }
        if fetch_allowed(cfg.fencing, &self.facts(f, l), le as i32).is_err() {
            return false;
        }
        let following = self.nodes[f]
            .vol
            .is_some_and(|v| v.role == Role::Follower && v.leader == Some(l as u8) && v.leader_epoch == le);
        following || self.may_be_told(f, l)
    }

    /// Whether `klog recover f --leader l` is one the lab runs: the controller tells `f` of `l`
    /// and `f` takes the change (the command's check).
    fn may_recover(&self, cfg: &Config, f: usize, l: usize) -> bool {
        let Some(le) = self.nodes[l].leader_epoch() else { return false };
        self.may_be_told(f, l) && follower::takes_leader_change(cfg.fencing, &self.facts(f, l), le as i32).is_ok()
    }

    /// The epoch `klog elect` gives `replica` for `leader_epoch` with `isr` (`commands/elect.rs`):
    /// above every epoch the leader and the ISR members have seen, except that a member told of
    /// this very election first does not count ([`counted_epoch`]). Refused when a member saw it
    /// otherwise (told first, then crashed and restarted: its seen epoch stays, its following
    /// goes).
    fn election_epoch(&self, replica: u8, leader_epoch: i8, isr: u8) -> std::result::Result<i32, ElectionRefusal> {
        let largest = (0..self.n())
            .filter(|&i| (isr | bit(replica as usize)) & bit(i) != 0)
            .filter_map(|i| {
                let node = &self.nodes[i];
                let seen = (node.largest_seen >= 0).then_some(node.largest_seen as i32);
                let follows = node
                    .vol
                    .filter(|v| v.role == Role::Follower && v.leader == Some(replica) && i != replica as usize)
                    .map(|v| v.leader_epoch as i32);
                counted_epoch(seen, follows, Some(leader_epoch as i32))
            })
            .max();
        next_leader_epoch(Some(leader_epoch as i32), largest)
    }

    /// Whether `klog recover f --leader l --leader-epoch E --no-fencing` is one the lab runs, `l`
    /// having been announced at E: `l` runs as a leader at an older epoch (a replica that is not a
    /// leader answers NOT_LEADER_FOR_PARTITION), fencing lets it answer
    /// ([`fencing::told_before_the_leader`]), and `f` takes the change.
    fn may_recover_ahead(&self, cfg: &Config, f: usize, l: usize) -> bool {
        let (Some((_, told, _)), Some(running)) = (self.announced, self.nodes[l].leader_epoch()) else {
            return false;
        };
        let facts = self.facts(f, l);
        let follows_ahead = self.nodes[f]
            .vol
            .is_some_and(|v| v.role == Role::Follower && v.leader == Some(l as u8) && v.leader_epoch == told);
        // OffsetsForLeaderEpoch v2 carries the follower's current epoch from IBP 2.1-IV1, one
        // IV before Fetch v10 (2.1-IV2) fences fetches: there the stale leader answers
        // UNKNOWN_LEADER_EPOCH however the fetches run (ReplicaFetcherThread.scala:77@2.1.0).
        let fenced = cfg.fencing || (cfg.rules.offsets_for_leader_epoch_fencing && !cfg.rules.fetch_fencing);
        running < told
            && !follows_ahead
            && fencing::told_before_the_leader(fenced, running as i32, told as i32).is_ok()
            && follower::takes_leader_change(cfg.fencing, &facts, told as i32).is_ok()
    }

    /// Every action the lab may take next, in a fixed order.
    pub fn successors(&self, cfg: &Config, out: &mut Vec<Action>) {
        out.clear();
        let n = self.n();
        let epochs_left = (self.epochs_issued as usize) < cfg.max_epochs as usize;
        // The topic's creation, then (KRaft) only the admin's unclean election: every other
        // election is the controller's, part of a crash or a restart.
        if cfg.controller == Controller::Zk && self.epochs_issued == 0 {
            out.push(Action::Elect { replica: 0, leader_epoch: 0, isr: (1u8 << n) - 1, unclean: false });
            return;
        }
        if let Controller::Kraft { elr } = cfg.controller {
            if self.epochs_issued == 0 {
                out.push(Action::Elect { replica: 0, leader_epoch: 0, isr: (1u8 << n) - 1, unclean: false });
                return;
            }
            if cfg.unclean && epochs_left {
                let set = settings(cfg, elr);
                let elected = partition_change::elect_unclean(n, &self.partition(), &set, self.active())
                    .and_then(|o| Some((o.partition.leader?, o.partition.isr as u8)));
                if let Some((r, isr)) = elected {
                    out.push(Action::Elect {
                        replica: r as u8,
                        leader_epoch: self.epochs_issued as i8,
                        isr,
                        unclean: true,
                    });
                }
            }
        }
        self.election_successors(cfg, epochs_left, out);
        for r in 0..n {
            // acks=all: a leader appends only with an ISR of min.insync.replicas (itself
            // included), else NOT_ENOUGH_REPLICAS (`Partition.appendRecordsToLeader`).
            let isr_ok = self.nodes[r].vol.is_some_and(|v| v.isr.count_ones() as u8 + 1 >= cfg.min_isr);
            if (self.appended as usize) < cfg.max_records as usize && self.nodes[r].leader_epoch().is_some() && isr_ok {
                out.push(Action::Append { replica: r as u8, value: self.appended + 1 });
            }
        }
        for l in 0..n {
            for f in 0..n {
                if f != l && self.may_fetch(cfg, f, l) && (!cfg.tiered || self.tiered_fetch_ok(f, l)) {
                    out.push(Action::Fetch { leader: l as u8, follower: f as u8 });
                }
            }
        }
        if cfg.controller != Controller::Free {
            self.alter_isr_successors(out);
        }
        if cfg.tiered {
            self.tier_successors(out);
        }
        self.crash_and_restart_successors(cfg, epochs_left, out);
        for l in 0..n {
            for f in 0..n {
                if f != l && self.may_recover(cfg, f, l) && (!cfg.tiered || self.tiered_recover_ok(cfg, f, l)) {
                    out.push(Action::Recover { follower: f as u8, leader: l as u8 });
                }
            }
        }
    }

    /// Elections on offer: an announced one's delivery (and followers told first), or with the
    /// free controller every live ISR member with every subset of the ISR that holds it (and,
    /// with `unclean`, a live replica outside the ISR alone).
    fn election_successors(&self, cfg: &Config, epochs_left: bool, out: &mut Vec<Action>) {
        let n = self.n();
        let live = |i: usize| self.nodes[i].is_running();
        // elect: a new epoch; clean elections pick a live ISR member and any subset of the ISR
        // that holds it; unclean ones a live replica outside the ISR, alone in its ISR.
        if let Some((l, e, isr)) = self.announced {
            // Only its delivery, to a live leader, and followers told before it.
            if live(l as usize) && self.election_epoch(l, e, isr).is_ok() {
                out.push(Action::Elect { replica: l, leader_epoch: e, isr, unclean: false });
            }
            for f in 0..n {
                if f != l as usize && self.may_recover_ahead(cfg, f, l as usize) {
                    out.push(Action::RecoverAhead { follower: f as u8, leader: l, leader_epoch: e });
                }
            }
        } else if cfg.controller == Controller::Free && epochs_left {
            let leader_epoch = self.epochs_issued as i8;
            for r in 0..n {
                if !live(r) {
                    continue;
                }
                if self.isr & bit(r) != 0 {
                    let others = self.isr & !bit(r);
                    // every subset of `others`
                    let mut sub = others;
                    loop {
                        out.push(Action::Elect { replica: r as u8, leader_epoch, isr: sub | bit(r), unclean: false });
                        if !cfg.fencing {
                            out.push(Action::Announce { replica: r as u8, leader_epoch, isr: sub | bit(r) });
                        }
                        if sub == 0 {
                            break;
                        }
                        sub = (sub - 1) & others;
                    }
                } else if cfg.unclean {
                    out.push(Action::Elect { replica: r as u8, leader_epoch, isr: bit(r), unclean: true });
                }
            }
        }
    }

    /// Crashes (and with `--power-loss`, power cuts and flushes; with `--stale-hw`, HW
    /// checkpoints) of running replicas, and restarts of crashed ones.
    fn crash_and_restart_successors(&self, cfg: &Config, epochs_left: bool, out: &mut Vec<Action>) {
        let n = self.n();
        for r in 0..n {
            let node = &self.nodes[r];
            // With the KRaft controller a crash or restart may elect: not past the epoch bound.
            if !epochs_left && self.controller_would_elect(cfg, r) {
                continue;
            }
            if node.is_running() {
                let stale = (cfg.stale_hw && node.hw_checkpoint != node.high_watermark).then_some(node.hw_checkpoint);
                out.push(Action::Crash { replica: r as u8, power_loss: false, hw: stale });
                if cfg.power_loss && node.recovery_point < node.log_len {
                    out.push(Action::Crash { replica: r as u8, power_loss: true, hw: stale });
                }
                if stale.is_some() {
                    out.push(Action::CheckpointHw { replica: r as u8 });
                }
                if cfg.power_loss && node.recovery_point < node.log_len {
                    out.push(Action::Flush { replica: r as u8 });
                }
            } else {
                out.push(Action::Restart { replica: r as u8 });
            }
        }
    }

    /// Apply `action` (one of [`State::successors`]) and check the invariants. Returns the new
    /// state and the first violation it shows, if any.
    pub fn apply(&self, cfg: &Config, action: Action) -> (State, Option<Violation>) {
        let mut s = *self;
        let mut violation = None;
        match action {
            Action::Elect { replica, leader_epoch, isr, unclean } if cfg.controller != Controller::Free => {
                violation = s.elect_by_controller(cfg, replica, leader_epoch, isr, unclean);
            }
            Action::Elect { replica, leader_epoch, isr, .. } => violation = s.elect(cfg, replica, leader_epoch, isr),
            Action::Append { replica, value } => {
                let r = replica as usize;
                let epoch = s.nodes[r].leader_epoch().expect("only a leader appends");
                s.nodes[r].append(Rec { leader_epoch: epoch, value });
                s.appended += 1;
                let hw = replication::fetch::leader_high_watermark(&s.slot(r, cfg));
                s.nodes[r].high_watermark = hw as u8;
                s.note_acked();
            }
            Action::Fetch { leader, follower } => {
                if cfg.tiered {
                    s.before_tiered_fetch(leader as usize, follower as usize);
                }
                if s.fetch_round(cfg, leader as usize, follower as usize) {
                    // The follower's broker exits (FatalExitError, 0.11.0 – 2.0.0 with unclean
                    // election disabled): what a crash of it does, without damage.
                    return s.apply(cfg, Action::Crash { replica: follower, power_loss: false, hw: None });
                }
                s.note_acked();
            }
            Action::Crash { replica, power_loss, hw } => violation = s.crash(cfg, replica, power_loss, hw),
            Action::CheckpointHw { replica } => {
                let node = &mut s.nodes[replica as usize];
                node.hw_checkpoint = node.high_watermark;
            }
            Action::Flush { replica } => {
                let node = &mut s.nodes[replica as usize];
                node.recovery_point = node.log_len;
            }
            Action::Restart { replica } => violation = s.restart(cfg, replica),
            Action::Announce { replica, leader_epoch, isr } => {
                debug_assert_eq!(leader_epoch as u8, s.epochs_issued);
                s.announced = Some((replica, leader_epoch, isr));
                s.epochs_issued += 1;
                s.isr = isr;
                s.latest_leader = Some(replica);
            }
            Action::RecoverAhead { follower, leader, leader_epoch } => {
                s.recover_at(cfg, follower as usize, leader as usize, leader_epoch);
            }
            Action::AlterIsr { isr, .. } => violation = s.alter_isr(cfg, isr),
            Action::Upload { replica } => s.upload(replica as usize),
            Action::LocalDelete { replica } => s.local_delete(replica as usize),
            Action::Recover { follower, leader } => violation = s.recover_action(cfg, follower, leader),
        }
        // Unclean elections make replicas diverge below their HWs by design: the tiered mode
        // with them looks for the tiered loss only.
        if violation.is_none() && !(cfg.tiered && cfg.unclean) {
            violation = s.divergence();
        }
        (s, violation)
    }

    /// `Elect` with a KRaft or ZooKeeper controller: the topic's creation or the admin's unclean
    /// election, as the controller records it.
    fn elect_by_controller(
        &mut self,
        cfg: &Config,
        replica: u8,
        leader_epoch: i8,
        isr: u8,
        unclean: bool,
    ) -> Option<Violation> {
        if cfg.tiered && unclean {
            self.forget_acked_not_held(replica as usize);
        }
        // The topic's creation or the admin's unclean election, as the controller records it.
        let p = if self.epochs_issued == 0 {
            Partition::created(self.n())
        } else {
            let set = settings(cfg, cfg.elr());
            partition_change::elect_unclean(self.n(), &self.partition(), &set, self.active())
                .expect("offered only for a partition with no leader")
                .partition
        };
        debug_assert_eq!((p.leader, p.isr as u8), (Some(replica as usize), isr));
        debug_assert_eq!(leader_epoch as u8, self.epochs_issued);
        self.controller_change(cfg, p)
    }

    /// `AlterIsr`: the leader's AlterPartition, as the controller writes it.
    fn alter_isr(&mut self, cfg: &Config, isr: u8) -> Option<Violation> {
        if cfg.controller == Controller::Zk {
            // The leader's own change: written as asked, at the same epoch.
            let p = Partition { isr: isr as u32, ..self.partition() };
            return self.controller_change(cfg, p);
        }
        let set = settings(cfg, cfg.elr());
        let out = partition_change::alter_isr(self.n(), &self.partition(), &set, isr as u32, self.active());
        self.controller_change(cfg, out.partition)
    }

    /// `Recover`: `klog recover F --leader L`; a broker back from a crash registers (an unclean
    /// shutdown) and is unfenced.
    fn recover_action(&mut self, cfg: &Config, follower: u8, leader: u8) -> Option<Violation> {
        let restarted = !self.nodes[follower as usize].is_running();
        if cfg.tiered {
            self.recover_tiered(cfg, follower as usize, leader as usize);
        } else {
            self.recover(cfg, follower as usize, leader as usize);
        }
        let mut violation = None;
        if let (Controller::Kraft { elr }, true) = (cfg.controller, restarted) {
            let p = self.registered_and_unfenced(cfg, elr, follower as usize);
            violation = self.controller_change(cfg, p);
        }
        if cfg.controller == Controller::Zk && restarted {
            violation = self.zk_started(cfg, follower as usize);
        }
        violation
    }

    /// `Elect` with the free controller: `klog elect`.
    fn elect(&mut self, cfg: &Config, replica: u8, leader_epoch: i8, isr: u8) -> Option<Violation> {
        let r = replica as usize;
        // `commands/elect.rs`: the epoch must be above every epoch the leader and the
        // ISR members have seen (it is: the explorer's one counter issues it).
        let epoch =
            self.election_epoch(replica, leader_epoch, isr).expect("the explorer issues epochs above every one seen");
        self.nodes[r].start();
        leader::become_leader(&mut self.slot(r, cfg), epoch, vec![isr], cfg.rules.epoch_entry_on_election)
            .expect("the lab's storage does not fail");
        // The delivery of an announced election issues no new epoch.
        if self.announced.take().is_none() {
            self.epochs_issued += 1;
        }
        self.isr = isr;
        self.latest_leader = Some(replica);
        self.note_acked();
        self.acked_loss_at_election(r, epoch as i8)
    }

    /// `Crash`: the replica stops (with power loss, back to its recovery point); the controller
    /// fences it.
    fn crash(&mut self, cfg: &Config, replica: u8, power_loss: bool, hw: Option<u8>) -> Option<Violation> {
        let mut violation = None;
        let node = &mut self.nodes[replica as usize];
        node.vol = None;
        if let Some(h) = hw {
            node.high_watermark = h;
        }
        if power_loss {
            // Cut back to the recovery point; the checkpoints (HW, epochs) are durable.
            node.log_len = node.log_len.min(node.recovery_point);
        }
        if let Controller::Kraft { elr } = cfg.controller {
            let out = partition_change::fenced(
                self.n(),
                &self.partition(),
                &settings(cfg, elr),
                replica as usize,
                self.active(),
            );
            violation = self.controller_change(cfg, out.partition);
        }
        if cfg.controller == Controller::Zk {
            let ch =
                zk_controller::broker_failed(&self.partition(), &zk_settings(cfg), replica as usize, self.active());
            violation = self.zk_change(cfg, ch);
        }
        violation
    }

    /// `Restart`: local recovery; the controller registers and unfences it.
    fn restart(&mut self, cfg: &Config, replica: u8) -> Option<Violation> {
        let mut violation = None;
        self.nodes[replica as usize].start();
        if let Controller::Kraft { elr } = cfg.controller {
            let r = replica as usize;
            if self.latest_leader == Some(replica) {
                // The leader on record is not running: 4.0.x's controller elected it
                // fenced (KAFKA-19522). Its registration after the unclean shutdown takes
                // it out of the ISR, leaving no leader; unfenced, it is elected again —
                // two records, as Kafka 4.0.2's brokers show (tests/real-walks).
                let set = settings(cfg, elr);
                let others = self.active() & !(1 << r);
                let registered =
                    partition_change::registered_after_unclean_shutdown(self.n(), &self.partition(), &set, r, others);
                self.controller_change(cfg, registered);
            }
            let p = self.registered_and_unfenced(cfg, elr, r);
            violation = self.controller_change(cfg, p);
        }
        if cfg.controller == Controller::Zk {
            violation = self.zk_started(cfg, replica as usize);
        }
        violation
    }

    /// Invariant 1 at an election of `r` at `leader_epoch`: it holds every record acked so far.
    fn acked_loss_at_election(&self, r: usize, leader_epoch: i8) -> Option<Violation> {
        let node = &self.nodes[r];
        self.acked().iter().find_map(|&(offset, value)| {
            if offset < node.tier.local_log_start {
                // Not on its disk: served from remote storage, or by no tier (`--tiered`).
                let lost = !self.served_from_remote(r, offset, value);
                return lost.then_some(Violation::AckedLoss {
                    value,
                    offset,
                    leader: r as u8,
                    leader_epoch,
                    found: None,
                });
            }
            let found = node.records().get(offset as usize).copied();
            (found.map(|x| x.value) != Some(value)).then_some(Violation::AckedLoss {
                value,
                offset,
                leader: r as u8,
                leader_epoch,
                found,
            })
        })
    }

    /// The KRaft controller's record of the partition.
    pub fn partition(&self) -> Partition {
        Partition {
            leader: self.latest_leader.map(usize::from),
            isr: self.isr as u32,
            elr: self.elr as u32,
            last_known_elr: self.last_known_elr as u32,
        }
    }

    /// The running replicas (the controller's active, unfenced brokers), as a mask.
    fn active(&self) -> u32 {
        (0..self.n()).filter(|&i| self.nodes[i].is_running()).fold(0, |m, i| m | 1 << i)
    }

    /// A restart with the KRaft controller: `r` registers after an unclean shutdown (no model
    /// crash is clean), then is unfenced.
    fn registered_and_unfenced(&self, cfg: &Config, elr: bool, r: usize) -> Partition {
        let set = settings(cfg, elr);
        let others = self.active() & !(1 << r);
        let p = partition_change::registered_after_unclean_shutdown(self.n(), &self.partition(), &set, r, others);
        partition_change::unfenced(self.n(), &p, &set, r, others).partition
    }

    /// Whether crashing (or restarting) `r` makes the KRaft controller elect a leader, or the
    /// ZooKeeper controller issue a leader epoch.
    fn controller_would_elect(&self, cfg: &Config, r: usize) -> bool {
        if cfg.controller == Controller::Zk {
            let set = zk_settings(cfg);
            let ch = if self.nodes[r].is_running() {
                zk_controller::broker_failed(&self.partition(), &set, r, self.active())
            } else {
                zk_controller::broker_started(&self.partition(), &set, r, self.active())
            };
            return ch.bumped;
        }
        let Controller::Kraft { elr } = cfg.controller else { return false };
        let before = self.partition();
        let after = if self.nodes[r].is_running() {
            partition_change::fenced(self.n(), &before, &settings(cfg, elr), r, self.active() & !(1 << r)).partition
        } else {
            let mut started = *self;
            started.nodes[r].vol = Some(Volatile::started());
            started.registered_and_unfenced(cfg, elr, r)
        };
        after.leader.is_some_and(|l| before.leader != Some(l))
    }

    /// What the leader's AlterPartition may ask (Kafka `Partition.maybeShrinkIsr`,
    /// `maybeExpandIsr`): drop an ISR member that is not caught up (its last fetch short of the
    /// leader's log end, `Replica.isCaughtUp`), or add a running follower of this leader at its
    /// epoch whose fetch reached the HW and the start of the leader's epoch
    /// (`Partition.isFollowerInSync`).
    fn alter_isr_successors(&self, out: &mut Vec<Action>) {
        let Some(l) = self.latest_leader.map(usize::from) else { return };
        let node = &self.nodes[l];
        let Some(v) = node.vol.filter(|v| v.role == Role::Leader) else { return };
        let epoch_start = node.epochs[..node.epochs_len as usize]
            .iter()
            .find(|&&(e, _)| e == v.leader_epoch)
            .map_or(node.log_len, |&(_, o)| o) as i64;
        for m in 0..self.n() {
            if m == l {
                continue;
            }
            let fetched = (v.fetch_offsets[m] >= 0).then_some(v.fetch_offsets[m] as i64);
            if self.isr & bit(m) != 0 {
                if isr::may_shrink(fetched, node.log_end_offset()) {
                    out.push(Action::AlterIsr { leader: l as u8, isr: self.isr & !bit(m) });
                }
            } else {
                let follows = self.nodes[m].vol.is_some_and(|f| {
                    f.role == Role::Follower && f.leader == Some(l as u8) && f.leader_epoch == v.leader_epoch
                });
                if follows && isr::may_expand(fetched, node.high_watermark as i64, epoch_start) {
                    out.push(Action::AlterIsr { leader: l as u8, isr: self.isr | bit(m) });
                }
            }
        }
    }

    /// Apply the KRaft controller's new record `p`: a newly elected leader starts leading at the
    /// next epoch with the new ISR (invariant 1 checked); a leader kept learns its new ISR
    /// (`leader::alter_isr`, its HW recomputed).
    fn controller_change(&mut self, cfg: &Config, p: Partition) -> Option<Violation> {
        let before = self.partition();
        self.elr = p.elr as u8;
        self.last_known_elr = p.last_known_elr as u8;
        self.isr = p.isr as u8;
        self.latest_leader = p.leader.map(|l| l as u8);
        let mut violation = None;
        match p.leader {
            // Kafka 4.0.x (KAFKA-19522) may elect a fenced last known leader: the controller
            // records it, issuing the epoch, but no broker leads until it registers again.
            Some(r) if before.leader != Some(r) && !self.nodes[r].is_running() => {
                self.epochs_issued += 1;
            }
            Some(r) if before.leader != Some(r) => {
                let epoch = self.epochs_issued as i32;
                self.nodes[r].start();
                leader::become_leader(
                    &mut self.slot(r, cfg),
                    epoch,
                    vec![p.isr as u8],
                    cfg.rules.epoch_entry_on_election,
                )
                .expect("the lab's storage does not fail");
                self.epochs_issued += 1;
                self.note_acked();
                violation = self.acked_loss_at_election(r, epoch as i8);
            }
            Some(r) if before.isr != p.isr && self.nodes[r].leader_epoch().is_some() => {
                leader::alter_isr(&mut self.slot(r, cfg), vec![p.isr as u8]).expect("the lab's storage does not fail");
                self.note_acked();
            }
            _ => {}
        }
        violation
    }

    /// Apply the ZooKeeper controller's change: a new leader starts leading at the next epoch
    /// ([`State::controller_change`]); a leader kept at a new epoch takes it as Kafka's
    /// `Partition.makeLeader` does (from 2.1 an epoch entry at its log end, its HW recomputed
    /// over the new ISR).
    fn zk_change(&mut self, cfg: &Config, ch: zk_controller::Change) -> Option<Violation> {
        let p = ch.partition;
        match p.leader {
            Some(r) if ch.bumped && self.latest_leader == Some(r as u8) && self.nodes[r].leader_epoch().is_some() => {
                self.isr = p.isr as u8;
                let epoch = self.epochs_issued as i32;
                leader::become_leader(
                    &mut self.slot(r, cfg),
                    epoch,
                    vec![p.isr as u8],
                    cfg.rules.epoch_entry_on_election,
                )
                .expect("the lab's storage does not fail");
                self.epochs_issued += 1;
                self.note_acked();
                self.acked_loss_at_election(r, epoch as i8)
            }
            _ => self.controller_change(cfg, p),
        }
    }

    /// Replica `r` starts with the ZooKeeper controller (`onBrokerStartup`).
    fn zk_started(&mut self, cfg: &Config, r: usize) -> Option<Violation> {
        let ch = zk_controller::broker_started(&self.partition(), &zk_settings(cfg), r, self.active());
        self.zk_change(cfg, ch)
    }

    /// Replica `r` as [`Storage`].
    fn slot(&mut self, r: usize, cfg: &Config) -> Slot<'_> {
        Slot { id: r as u8, node: &mut self.nodes[r], min_isr: cfg.min_isr }
    }

    /// Replicas `l` and `f` (distinct) as [`Storage`], both at once.
    fn slot_pair(&mut self, cfg: &Config, l: usize, f: usize) -> (Slot<'_>, Slot<'_>) {
        let (lo, hi) = self.nodes.split_at_mut(l.max(f));
        let (ln, fnode) = if l < f { (&mut lo[l], &mut hi[0]) } else { (&mut hi[0], &mut lo[f]) };
        (Slot { id: l as u8, node: ln, min_isr: cfg.min_isr }, Slot { id: f as u8, node: fnode, min_isr: cfg.min_isr })
    }

    /// `klog fetch --leader l f`: the command starts both replicas, then runs
    /// [`replication::fetch::fetch_round`] by [`fetch_rules`].
    /// One fetch round; true when the follower's broker stops instead
    /// ([`crate::replication::release::Rules::past_leader_end_halts`]).
    fn fetch_round(&mut self, cfg: &Config, l: usize, f: usize) -> bool {
        self.nodes[l].start();
        self.nodes[f].start();
        let (mut leader, mut follower) = self.slot_pair(cfg, l, f);
        replication::fetch::fetch_round(
            &fetch_rules(&cfg.rules),
            &mut leader,
            &mut follower,
            DEFAULT_FETCH_MAX_BYTES,
            false,
        )
        .expect("the lab's storage does not fail")
        .broker_stops
    }

    /// `klog recover f --leader l` without `--catch-up`: local recovery, then the restart
    /// the command runs ([`follower::plan_restart`], [`follower::restart_as_follower`]).
    /// Returns the plan and the HW the report judges acks by.
    pub(super) fn recover(&mut self, cfg: &Config, f: usize, l: usize) -> (TruncationPlan, i64) {
        let leader_epoch = self.nodes[l].leader_epoch().expect("recover against a leader");
        self.recover_at(cfg, f, l, leader_epoch)
    }

    /// [`State::recover`] with `f` told that `l` leads at `leader_epoch`, which `l` (leading at
    /// an older epoch) may not have taken yet: `l` answers from the log and cache it has.
    fn recover_at(&mut self, cfg: &Config, f: usize, l: usize, leader_epoch: i8) -> (TruncationPlan, i64) {
        let facts = self.facts(f, l);
        self.nodes[f].start();
        let leader_epoch = leader_epoch as i32;
        let (mut leader, mut follower) = self.slot_pair(cfg, l, f);
        // The leader runs at `leader_epoch` or, told first, answers from what it has: its view
        // is its own cache either way.
        let restart = follower::plan_restart(
            &cfg.rules,
            cfg.fencing,
            &facts,
            (&leader, None),
            leader_epoch,
            leader_epoch,
            &follower,
        )
        .expect("the explorer recovers only where the follower takes the change");
        follower::restart_as_follower(&mut leader, &mut follower, &restart.plan, leader_epoch, None)
            .expect("the lab's storage does not fail");
        (restart.plan, restart.follower_view.high_watermark)
    }

    /// Records below a running leader's HW are acked (acks=all).
    fn note_acked(&mut self) {
        for r in 0..self.n() {
            let node = self.nodes[r];
            if node.leader_epoch().is_none() {
                continue;
            }
            let hw = (node.high_watermark as usize).min(node.log_len as usize);
            let local = node.tier.local_log_start as usize;
            for (offset, rec) in node.records()[..hw].iter().enumerate().skip(local) {
                let entry = (offset as u8, rec.value);
                let len = self.acked_len as usize;
                if !self.acked[..len].contains(&entry) {
                    assert!(len < MAX_RECORDS, "each appended value is acked at one offset at most");
                    self.acked[len] = entry;
                    self.acked_len += 1;
                    self.acked[..len + 1].sort_unstable();
                }
            }
        }
    }

    /// Invariant 2: no two replicas hold different records at an offset below both HWs.
    fn divergence(&self) -> Option<Violation> {
        for a in 0..self.n() {
            for b in a + 1..self.n() {
                let (na, nb) = (&self.nodes[a], &self.nodes[b]);
                let below = (na.high_watermark.min(na.log_len)).min(nb.high_watermark.min(nb.log_len)) as usize;
                let local = na.tier.local_log_start.max(nb.tier.local_log_start) as usize;
                for o in local..below {
                    if na.log[o] != nb.log[o] {
                        return Some(Violation::Divergence {
                            offset: o as u8,
                            a: a as u8,
                            b: b as u8,
                            rec_a: na.log[o],
                            rec_b: nb.log[o],
                        });
                    }
                }
            }
        }
        None
    }

    /// What `klog recover f --leader l --mode M` reports for the record at `offset` of `f`:
    /// its class, whether it counts as acked (below F's HW before truncation or L's HW), and
    /// the record; computed as the command does. `None` when `f` holds nothing there.
    pub fn recover_class(&self, cfg: &Config, f: usize, l: usize, offset: usize) -> Option<(RecordClass, bool, Rec)> {
        self.recover_class_given(cfg, f, l, offset, &[])
    }

    /// [`State::recover_class`] where the metadata shows `f` leading `committed_epochs` alone in
    /// the ISR (what `recover` reads from a KRaft metadata log).
    pub fn recover_class_given(
        &self,
        cfg: &Config,
        f: usize,
        l: usize,
        offset: usize,
        committed_epochs: &[i32],
    ) -> Option<(RecordClass, bool, Rec)> {
        let mut s = *self;
        let mut leader = s.nodes[l];
        let mut before = s.nodes[f];
        before.start();
        let (plan, f_hw) = s.recover(cfg, f, l);
        let window = classify::classify_window(
            &Slot { id: f as u8, node: &mut before, min_isr: cfg.min_isr },
            &Slot { id: l as u8, node: &mut leader, min_isr: cfg.min_isr },
            0,
            plan.truncation_offset,
            f_hw,
            plan.restart_at_leader_start,
            MAX_RECORDS,
            committed_epochs,
        )
        .expect("the lab's storage does not fail");
        let row = window.rows.into_iter().find(|r| r.follower.offset == offset as i64)?;
        Some((row.class, row.acked, row.follower.rec))
    }

    /// Whether `recover f --leader l` is accepted here by klog itself (the last command of a
    /// script may re-tell a follower the leader it already follows, which klog allows).
    pub fn recover_allowed_by_klog(&self, cfg: &Config, f: usize, l: usize) -> bool {
        let Some(le) = self.nodes[l].leader_epoch() else { return false };
        f != l && follower::takes_leader_change(cfg.fencing, &self.facts(f, l), le as i32).is_ok()
    }
}

/// A record of the lab's log at its offset (one record a batch: the same record is the same
/// batch).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LabRecord {
    pub offset: i64,
    pub rec: Rec,
}

impl storage::Record for LabRecord {
    fn offset(&self) -> i64 {
        self.offset
    }
    fn same_batch(&self, other: &Self) -> bool {
        self.rec == other.rec
    }
}

/// What one fetch returns: the leader's records from the fetch offset.
#[derive(Debug, Clone, Copy)]
pub struct LabChunk {
    from: i64,
    recs: [Rec; MAX_RECORDS],
    len: u8,
}

impl storage::Chunk for LabChunk {
    fn first_batch(&self) -> Option<(i64, i64)> {
        (self.len > 0).then_some((self.from, self.from))
    }
}

/// The lab's records from an offset.
pub struct LabRecords<'a> {
    recs: &'a [Rec],
    next: usize,
    end: usize,
}

impl Iterator for LabRecords<'_> {
    type Item = Result<LabRecord>;
    fn next(&mut self) -> Option<Self::Item> {
        if self.next >= self.end {
            return None;
        }
        let r = LabRecord { offset: self.next as i64, rec: self.recs[self.next] };
        self.next += 1;
        Some(Ok(r))
    }
}

/// One node with its index, as the replication procedures see a replica.
pub struct Slot<'a> {
    id: u8,
    node: &'a mut Node,
    /// The topic's min.insync.replicas ([`Config::min_isr`]).
    min_isr: u8,
}

impl Slot<'_> {
    /// An ISR given as masks, as the leader keeps it: every member but itself.
    fn followers(&self, isr: Vec<u8>) -> u8 {
        isr.into_iter().fold(0, |m, i| m | i) & !bit(self.id as usize)
    }
}

impl Storage for Slot<'_> {
    type Id = u8;
    /// An election's whole ISR as a bit mask (the leader's own bit is dropped).
    type Member = u8;
    type Chunk = LabChunk;
    type Record = LabRecord;
    type Records<'b>
        = LabRecords<'b>
    where
        Self: 'b;

    fn id(&self) -> u8 {
        self.id
    }
    /// The local log start, as klog's replicas on disk answer (0 unless `--tiered`).
    fn log_start_offset(&self) -> i64 {
        self.node.tier.local_log_start as i64
    }
    fn log_end_offset(&self) -> i64 {
        self.node.log_end_offset()
    }
    fn high_watermark(&self) -> i64 {
        self.node.high_watermark as i64
    }
    fn epochs(&self) -> EpochCache {
        self.node.epoch_cache()
    }
    fn largest_seen(&self) -> Option<i32> {
        (self.node.largest_seen >= 0).then_some(self.node.largest_seen as i32)
    }
    fn running(&self) -> Option<Running<u8>> {
        self.node.vol.map(|v| Running { role: v.role, leader_epoch: v.leader_epoch as i32, leader: v.leader })
    }
    fn isr_fetch_offsets(&self) -> Vec<Option<i64>> {
        let Some(v) = self.node.vol else { return Vec::new() };
        (0..MAX_REPLICAS)
            .filter(|&i| v.isr & bit(i) != 0)
            .map(|i| {
                let o = v.fetch_offsets[i];
                (o >= 0).then_some(o as i64)
            })
            .collect()
    }
    fn min_insync_replicas(&self) -> usize {
        self.min_isr as usize
    }
    fn set_leader(&mut self, leader_epoch: i32, isr: Vec<u8>) {
        let mask = self.followers(isr);
        self.node.vol = Some(Volatile {
            role: Role::Leader,
            leader_epoch: leader_epoch as i8,
            leader: None,
            isr: mask,
            fetch_offsets: [-1; MAX_REPLICAS],
        });
        self.node.largest_seen = self.node.largest_seen.max(leader_epoch as i8);
    }
    fn set_isr(&mut self, isr: Vec<u8>) {
        let mask = self.followers(isr);
        if let Some(v) = self.node.vol.as_mut() {
            v.isr = mask;
        }
    }
    fn set_follower(&mut self, leader: u8, leader_epoch: i32) {
        if self.node.vol.is_some() {
            self.node.vol = Some(Volatile {
                role: Role::Follower,
                leader: Some(leader),
                leader_epoch: leader_epoch as i8,
                ..Volatile::started()
            });
        }
    }
    fn record_follower_fetch(&mut self, follower: u8, fetch_offset: i64) {
        if let Some(v) = self.node.vol.as_mut() {
            v.fetch_offsets[follower as usize] = fetch_offset as i8;
        }
    }
    fn save(&mut self) -> Result<()> {
        Ok(())
    }
    fn note_epoch_seen(&mut self, leader_epoch: i32) -> Result<()> {
        self.node.largest_seen = self.node.largest_seen.max(leader_epoch as i8);
        Ok(())
    }
    fn assign_epoch(&mut self, leader_epoch: i32, start_offset: i64) -> Result<()> {
        self.node.update_epoch_cache(|c| c.assign(leader_epoch, start_offset));
        Ok(())
    }
    fn set_high_watermark(&mut self, high_watermark: i64) -> Result<()> {
        self.node.high_watermark = high_watermark as u8;
        Ok(())
    }
    fn truncate_to(&mut self, offset: i64) -> Result<i64> {
        self.node.truncate_to(offset);
        Ok(self.node.log_end_offset())
    }
    fn restart_at(&mut self, offset: i64) -> Result<()> {
        // Only a tiered leader's log starts above 0.
        self.node.truncate_fully_and_start_at(offset);
        Ok(())
    }
    fn cut_offset_for(&self, offset: i64) -> Result<i64> {
        Ok(offset.clamp(0, self.node.log_end_offset()))
    }
    fn read_from(&self, from: i64, _max_bytes: u64) -> Result<LabChunk> {
        // Below the local log start nothing is read here (OFFSET_MOVED_TO_TIERED_STORAGE:
        // the tiered mode rebuilds the follower before the round, `super::tier`).
        let from_local = if from < self.node.tier.local_log_start as i64 { self.node.log_end_offset() } else { from };
        let recs = &self.node.records()[from_local as usize..];
        let mut chunk = LabChunk { from: from_local, recs: [Rec::default(); MAX_RECORDS], len: recs.len() as u8 };
        chunk.recs[..recs.len()].copy_from_slice(recs);
        Ok(chunk)
    }
    fn append_fetched(&mut self, chunk: &LabChunk) -> Result<Copied> {
        for rec in &chunk.recs[..chunk.len as usize] {
            self.node.append(*rec);
        }
        let n = chunk.len as u64;
        Ok(Copied { batches: n, records: n, bytes: 0 })
    }
    fn flush(&mut self) -> Result<()> {
        self.node.recovery_point = self.node.log_len;
        Ok(())
    }
    fn records(&self, from: i64, to: i64) -> Result<LabRecords<'_>> {
        let end = (to.max(0) as usize).min(self.node.log_len as usize);
        Ok(LabRecords { recs: self.node.records(), next: from.max(0) as usize, end })
    }
}

/// The rules the explorer's fetch runs by: the explored release's, but always the fetch before
/// Kafka 2.8 (no last fetched epoch, no diverging-epoch or OFFSET_OUT_OF_RANGE answer). The
/// explorer's counts, findings and benchmarks (docs/explore.md) were made with that fetch; its
/// scripts name a release that runs it ([`super::script::command`]), so they replay exactly.
pub fn fetch_rules(rules: &Rules) -> Rules {
    Rules { truncation_on_fetch: false, ..*rules }
}

#[cfg(test)]
pub(super) mod tests {
    use super::*;

    fn cfg(mode: TruncationMode) -> Config {
        Config {
            replicas: 2,
            rules: Rules::of_mode(mode),
            max_epochs: 3,
            max_records: 3,
            max_depth: 12,
            unclean: false,
            fencing: true,
            power_loss: false,
            stale_hw: false,
            min_isr: 1,
            controller: Controller::Free,
            tiered: false,
        }
    }

    /// Apply `actions`, each one offered by `successors` first (tier.rs's tests too).
    pub(in crate::explore) fn run(state: State, cfg: &Config, actions: &[Action]) -> (State, Option<Violation>) {
        let mut s = state;
        let mut v = None;
        let mut enabled = Vec::new();
        for a in actions {
            s.successors(cfg, &mut enabled);
            assert!(enabled.contains(a), "{a:?} not enabled in {s:?}");
            let (next, found) = s.apply(cfg, *a);
            s = next;
            v = v.or(found);
        }
        (s, v)
    }

    const A: u8 = 0;
    const B: u8 = 1;

    /// KIP-101 scenario 1 up to A's election: under hw A has cut m2 and leads without it.
    #[test]
    fn hw_truncation_then_election_loses_an_acked_record() {
        use Action::*;
        let steps = [
            Elect { replica: B, leader_epoch: 0, isr: 0b11, unclean: false },
            Append { replica: B, value: 1 },
            Fetch { leader: B, follower: A },
            Fetch { leader: B, follower: A },
            Crash { replica: A, power_loss: false, hw: None },
            Recover { follower: A, leader: B },
            Elect { replica: A, leader_epoch: 1, isr: 0b01, unclean: false },
        ];
        let (s, v) = run(State::initial(2), &cfg(TruncationMode::Hw), &steps);
        assert_eq!(s.acked(), &[(0, 1)]);
        assert_eq!(v, Some(Violation::AckedLoss { value: 1, offset: 0, leader: A, leader_epoch: 1, found: None }));
        let (_, v) = run(State::initial(2), &cfg(TruncationMode::Kip279), &steps);
        assert_eq!(v, None, "kip279 keeps m1: B answers its LEO");
    }

    #[test]
    fn a_follower_hw_lags_one_fetch_and_a_lone_leader_acks_at_once() {
        use Action::*;
        let c = cfg(TruncationMode::Kip279);
        let (s, _) = run(
            State::initial(2),
            &c,
            &[
                Elect { replica: B, leader_epoch: 0, isr: 0b11, unclean: false },
                Append { replica: B, value: 1 },
                Fetch { leader: B, follower: A },
            ],
        );
        assert_eq!((s.nodes[1].high_watermark, s.nodes[0].high_watermark, s.nodes[0].log_len), (0, 0, 1));
        let (s, _) = run(s, &c, &[Fetch { leader: B, follower: A }]);
        assert_eq!((s.nodes[1].high_watermark, s.nodes[0].high_watermark), (1, 0));
        let (s, _) = run(s, &c, &[Fetch { leader: B, follower: A }]);
        assert_eq!(s.nodes[0].high_watermark, 1);
        let (s, _) = run(
            State::initial(2),
            &c,
            &[Elect { replica: A, leader_epoch: 0, isr: 0b01, unclean: false }, Append { replica: A, value: 1 }],
        );
        assert_eq!(s.acked(), &[(0, 1)]);
    }

    #[test]
    fn a_restarted_replica_is_told_only_the_latest_leader_and_a_running_one_only_newer_ones() {
        use Action::*;
        let c = cfg(TruncationMode::Kip279);
        let (s, _) = run(
            State::initial(2),
            &c,
            &[
                Elect { replica: A, leader_epoch: 0, isr: 0b11, unclean: false },
                Elect { replica: B, leader_epoch: 1, isr: 0b11, unclean: false },
            ],
        );
        // A is a zombie leader at 0; B leads at 1. A may be told of B (newer); B never of A.
        let mut next = Vec::new();
        s.successors(&c, &mut next);
        assert!(next.contains(&Recover { follower: A, leader: B }));
        assert!(!next.contains(&Recover { follower: B, leader: A }));
        let no_fencing = Config { fencing: false, ..c };
        s.successors(&no_fencing, &mut next);
        assert!(
            !next.contains(&Recover { follower: B, leader: A }),
            "without KIP-320 fencing too, no release takes a leader change below its epoch"
        );
    }

    #[test]
    fn local_recovery_drops_an_empty_epoch_entry_and_power_loss_cuts_to_the_recovery_point() {
        use Action::*;
        let c = Config { power_loss: true, ..cfg(TruncationMode::Kip279) };
        let (s, _) = run(
            State::initial(2),
            &c,
            &[
                Elect { replica: A, leader_epoch: 0, isr: 0b01, unclean: false },
                Append { replica: A, value: 1 },
                Flush { replica: A },
                Append { replica: A, value: 2 },
                Crash { replica: A, power_loss: true, hw: None },
            ],
        );
        assert_eq!(s.nodes[0].log_len, 1);
        assert_eq!(s.nodes[0].high_watermark, 2, "the HW checkpoint is durable");
        let (s, _) = run(s, &c, &[Restart { replica: A }]);
        assert_eq!(s.nodes[0].high_watermark, 1);
        let (s, _) = run(s, &c, &[Elect { replica: A, leader_epoch: 1, isr: 0b01, unclean: false }]);
        assert_eq!(s.nodes[0].epoch_cache().entries().len(), 2);
        let (s, _) = run(s, &c, &[Crash { replica: A, power_loss: false, hw: None }, Restart { replica: A }]);
        assert_eq!(s.nodes[0].epoch_cache().latest_epoch(), Some(0), "(1, 1) had no data");
    }

    /// Kafka writes replication-offset-checkpoint every 5 s: a follower whose live HW had
    /// caught up (three fetches) still restarts from the older checkpoint, and hw truncates to it.
    #[test]
    fn a_crash_with_a_stale_hw_checkpoint_truncates_to_it_under_hw() {
        use Action::*;
        let c = Config { stale_hw: true, ..cfg(TruncationMode::Hw) };
        let setup = [
            Elect { replica: A, leader_epoch: 0, isr: 0b11, unclean: false },
            Append { replica: A, value: 1 },
            Fetch { leader: A, follower: B },
            Fetch { leader: A, follower: B },
            Fetch { leader: A, follower: B },
        ];
        let (s, _) = run(State::initial(2), &c, &setup);
        assert_eq!((s.nodes[1].high_watermark, s.nodes[1].hw_checkpoint), (1, 0));
        let mut next = Vec::new();
        s.successors(&c, &mut next);
        assert!(next.contains(&Crash { replica: B, power_loss: false, hw: Some(0) }), "{next:?}");
        assert!(next.contains(&CheckpointHw { replica: B }));
        let (lost, v) = run(
            s,
            &c,
            &[
                Crash { replica: B, power_loss: false, hw: Some(0) },
                Recover { follower: B, leader: A },
                Elect { replica: B, leader_epoch: 1, isr: 0b10, unclean: false },
            ],
        );
        assert_eq!(lost.nodes[1].log_len, 0);
        assert!(matches!(v, Some(Violation::AckedLoss { value: 1, .. })), "{v:?}");
        // Checkpointed first, the restart keeps m1.
        let (kept, v) = run(
            s,
            &c,
            &[
                CheckpointHw { replica: B },
                Crash { replica: B, power_loss: false, hw: None },
                Recover { follower: B, leader: A },
                Elect { replica: B, leader_epoch: 1, isr: 0b10, unclean: false },
            ],
        );
        assert_eq!((kept.nodes[1].log_len, v), (1, None));
    }

    /// Partition.appendRecordsToLeader: acks=all with the ISR below min.insync.replicas is
    /// NOT_ENOUGH_REPLICAS; KAFKA-15583 (3.7): the HW waits while the ISR is that small.
    #[test]
    fn with_min_isr_2_a_lone_leader_neither_appends_nor_moves_its_hw() {
        use Action::*;
        let c = Config {
            min_isr: 2,
            ..Config::clean_at(crate::replication::release::Release::parse("3.9.1").unwrap().rules(), 2, 3, 3, 12)
        };
        let (s, _) = run(State::initial(2), &c, &[Elect { replica: A, leader_epoch: 0, isr: 0b01, unclean: false }]);
        let mut next = Vec::new();
        s.successors(&c, &mut next);
        assert!(!next.iter().any(|a| matches!(a, Append { .. })), "NOT_ENOUGH_REPLICAS: {next:?}");
        let (s, _) = run(
            State::initial(2),
            &c,
            &[
                Elect { replica: A, leader_epoch: 0, isr: 0b11, unclean: false },
                Append { replica: A, value: 1 },
                Fetch { leader: A, follower: B },
                Elect { replica: A, leader_epoch: 1, isr: 0b01, unclean: false },
            ],
        );
        assert_eq!(s.nodes[0].high_watermark, 0, "the HW waits below min.insync.replicas");
        assert!(s.acked().is_empty());
    }

    fn kraft(elr: bool, min_isr: u8) -> Config {
        Config { controller: Controller::Kraft { elr }, min_isr, ..cfg(TruncationMode::Kip279) }
    }

    /// Kafka 4.4 (`ReplicationControlManager.handleBrokerFenced`, `PartitionChangeBuilder`): a
    /// crashed leader is replaced at once by the first live ISR member; it comes back out of the
    /// ISR, and the leader adds it again only once it has caught up (`Partition.isFollowerInSync`).
    #[test]
    fn the_kraft_controller_elects_on_a_crash_and_the_leader_expands_the_isr_when_caught_up() {
        use Action::*;
        let c = kraft(true, 1);
        let mut next = Vec::new();
        State::initial(2).successors(&c, &mut next);
        assert_eq!(
            next,
            vec![Elect { replica: A, leader_epoch: 0, isr: 0b11, unclean: false }],
            "the topic's creation"
        );
        let (s, _) = run(
            State::initial(2),
            &c,
            &[Elect { replica: A, leader_epoch: 0, isr: 0b11, unclean: false }, Append { replica: A, value: 1 }],
        );
        s.successors(&c, &mut next);
        assert!(next.contains(&AlterIsr { leader: A, isr: 0b01 }), "b has not fetched m1: {next:?}");
        let (s, v) = run(s, &c, &[Crash { replica: A, power_loss: false, hw: None }]);
        assert_eq!((s.latest_leader, s.isr, s.elr, v), (Some(B), 0b10, 0, None), "b leads at once");
        assert_eq!(s.nodes[1].leader_epoch(), Some(1));
        let (s, _) = run(s, &c, &[Recover { follower: A, leader: B }]);
        assert_eq!(s.isr, 0b10, "a is back out of the ISR");
        s.successors(&c, &mut next);
        assert!(!next.iter().any(|a| matches!(a, AlterIsr { .. })), "a has not fetched yet: {next:?}");
        let (s, _) = run(s, &c, &[Fetch { leader: B, follower: A }]);
        s.successors(&c, &mut next);
        assert!(next.contains(&AlterIsr { leader: B, isr: 0b11 }), "{next:?}");
    }

    fn zk(release: &str, unclean: bool) -> Config {
        let rules = crate::replication::release::Release::parse(release).unwrap().rules();
        Config { controller: Controller::Zk, unclean, ..Config::clean_at(rules, 2, 8, 4, 16) }
    }

    /// Kafka 2.8.2 in ZooKeeper mode (`ReplicaStateMachine.doRemoveReplicasFromIsr`,
    /// `Election.leaderForOffline`, `KafkaController.onBrokerStartup`, `Partition.makeLeader`): a
    /// crashed follower leaves the ISR at a new leader epoch, which the leader kept takes (its
    /// next record carries it); the last ISR member's crash leaves no leader, and its restart
    /// elects it again; with unclean elections the other replica is elected instead.
    #[test]
    fn the_zookeeper_controller_bumps_the_epoch_for_an_isr_change_and_elects_on_a_restart() {
        use Action::*;
        let c = zk("2.8.2", false);
        let mut next = Vec::new();
        State::initial(2).successors(&c, &mut next);
        assert_eq!(next, vec![Elect { replica: A, leader_epoch: 0, isr: 0b11, unclean: false }]);
        let (s, _) = run(
            State::initial(2),
            &c,
            &[
                Elect { replica: A, leader_epoch: 0, isr: 0b11, unclean: false },
                Crash { replica: B, power_loss: false, hw: None },
            ],
        );
        assert_eq!((s.latest_leader, s.isr, s.epochs_issued), (Some(A), 0b01, 2), "b leaves the ISR at epoch 1");
        assert_eq!(s.nodes[0].leader_epoch(), Some(1), "a leads on at epoch 1");
        let (s, _) = run(s, &c, &[Append { replica: A, value: 1 }]);
        assert_eq!(s.nodes[0].records()[0].leader_epoch, 1);
        assert_eq!(s.nodes[0].high_watermark, 1, "a alone in the ISR acks m1");
        let (gone, _) = run(s, &c, &[Crash { replica: A, power_loss: false, hw: None }]);
        assert_eq!((gone.latest_leader, gone.isr), (None, 0b01), "no leader; a stays the ISR");
        let (back, _) = run(gone, &c, &[Restart { replica: B }]);
        assert_eq!((back.latest_leader, back.isr), (None, 0b01), "b is out of the ISR: no clean election");
        let (back, _) = run(back, &c, &[Restart { replica: A }]);
        assert_eq!((back.latest_leader, back.isr, back.nodes[0].leader_epoch()), (Some(A), 0b01, Some(2)));
        let unclean = zk("2.8.2", true);
        let (s, v) = run(gone, &unclean, &[Restart { replica: B }]);
        assert_eq!((s.latest_leader, s.isr), (Some(B), 0b10), "b is elected uncleanly at its restart");
        assert!(matches!(v, Some(Violation::AckedLoss { value: 1, .. })), "m1 was acked: {v:?}");
    }

    /// KIP-966 with min ISR 2: the last ISR member is the last known leader; when it comes back
    /// from a power loss that cost it an acked record, nothing stops its election.
    #[test]
    fn with_elr_the_last_known_leader_leads_again_after_its_power_loss() {
        use Action::*;
        // m1 acked on both, then a dies.
        let acked_then_a_dies = [
            Elect { replica: A, leader_epoch: 0, isr: 0b11, unclean: false },
            Append { replica: A, value: 1 },
            Fetch { leader: A, follower: B },
            Fetch { leader: A, follower: B },
            Crash { replica: A, power_loss: false, hw: None },
        ];
        let c = Config { power_loss: true, ..kraft(true, 2) };
        let (s, v) = run(State::initial(2), &c, &acked_then_a_dies);
        assert_eq!((s.latest_leader, s.isr, s.elr, v), (Some(B), 0b10, 0b01, None), "a waits in the ELR");
        let (s, _) = run(s, &c, &[Restart { replica: A }]);
        assert_eq!(s.elr, 0, "an unclean shutdown takes a out of the ELR");
        let (s, _) = run(s, &c, &[Crash { replica: B, power_loss: true, hw: None }]);
        assert_eq!((s.latest_leader, s.isr, s.elr, s.last_known_elr), (None, 0, 0b10, 0b10));
        let (s, v) = run(s, &c, &[Restart { replica: B }]);
        assert_eq!(s.latest_leader, Some(B), "the last known leader");
        assert!(matches!(v, Some(Violation::AckedLoss { value: 1, leader: B, .. })), "{v:?}");
        // Without ELR the ISR [b] stays and b is elected as its member: the same loss.
        let c = Config { power_loss: true, ..kraft(false, 2) };
        let (s, _) = run(State::initial(2), &c, &acked_then_a_dies);
        let (s, _) = run(s, &c, &[Crash { replica: B, power_loss: true, hw: None }]);
        assert_eq!((s.latest_leader, s.isr, s.elr), (None, 0b10, 0));
    }

    /// Kafka's `Kip320.tla` (BecomeFollowerTruncateKip279): before KIP-320 a follower told of a
    /// new epoch before its leader truncates against the leader's older state, which the leader
    /// then truncates itself. 2.0.1's `Partition.lastOffsetForLeaderEpoch` answers while it is
    /// any leader; from 2.1 the request carries the epoch and is refused (UNKNOWN_LEADER_EPOCH).
    #[test]
    fn a_follower_told_before_its_leader_diverges_without_kip_320() {
        use Action::*;
        const C: u8 = 2;
        let rules = crate::replication::release::Release::parse("2.0.1").unwrap().rules();
        let c = Config { fencing: false, ..Config::clean_at(rules, 3, 3, 2, 12) };
        let (s, v) = run(
            State::initial(3),
            &c,
            &[
                Elect { replica: A, leader_epoch: 0, isr: 0b111, unclean: false },
                Elect { replica: B, leader_epoch: 1, isr: 0b111, unclean: false },
                Announce { replica: A, leader_epoch: 2, isr: 0b001 },
                Append { replica: A, value: 1 },
                Fetch { leader: A, follower: C },
                RecoverAhead { follower: C, leader: A, leader_epoch: 2 },
                Recover { follower: A, leader: B },
                Elect { replica: A, leader_epoch: 2, isr: 0b001, unclean: false },
                Append { replica: A, value: 2 },
                Fetch { leader: A, follower: C },
            ],
        );
        assert_eq!(s.nodes[2].records()[0].value, 1, "c kept the zombie's m1");
        assert_eq!(s.nodes[0].records()[0].value, 2, "a truncated it and wrote m2");
        assert!(matches!(v, Some(Violation::Divergence { offset: 0, .. })), "{v:?}");
        // With fencing the announcement is not offered at all, nor a follower told first.
        let fenced = Config { fencing: true, ..c };
        let (s, _) = run(
            State::initial(3),
            &fenced,
            &[
                Elect { replica: A, leader_epoch: 0, isr: 0b111, unclean: false },
                Elect { replica: B, leader_epoch: 1, isr: 0b111, unclean: false },
            ],
        );
        let mut next = Vec::new();
        s.successors(&fenced, &mut next);
        assert!(!next.iter().any(|a| matches!(a, Announce { .. } | RecoverAhead { .. })), "{next:?}");
    }
}
