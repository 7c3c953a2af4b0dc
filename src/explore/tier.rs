//! The explorer's tiered mode (`klog explore --tiered`, KIP-405 by Kafka 4.4's rules): each
//! replica has a log start and a local log start, the partition has remote segments, and the
//! actions are the lab's tiered commands, each run by the pure rule `src/tiered/` already has:
//!
//! - **upload** (`klog tier copy R`): one run of the leader's copy task,
//!   [`copy::plan_copy`] (`RLMCopyTask`, `candidateLogSegments`, RemoteLogManager.java:941-961
//!   @4.4.0): every closed segment from the highest remote offset + 1 whose next segment starts
//!   at or below the HW (the LSO: no transactions here). Records are single-record batches and a
//!   segment holds one batch (the real walks' 100-byte segments), so a remote segment holds one
//!   record.
//! - **local deletion** (`klog tier retain R --local-retention-bytes 1`, the real walks' rule):
//!   [`retain::plan_retention`] (`UnifiedLog.deletableSegments`, UnifiedLog.java:1872-1926@4.4.0)
//!   with the highest remote offset of [`copy::find_highest_remote_offset`]: the local log start
//!   moves, the log start does not; when the active segment breaches the limit the log rolls.
//! - **a follower below the leader's local log start**, in `fetch` (and in `recover` where its
//!   restart falls there, as the lab's `recover` writes it): the leader answers
//!   OFFSET_MOVED_TO_TIERED_STORAGE (ReplicaManager.scala:1904-1915@4.4.0) and the follower
//!   builds its remote log auxiliary state by [`aux_state::build`] (TierStateMachine.java:190-263
//!   @4.4.0): empty at the segment's end + 1, the leader's log start, the segment's epoch
//!   checkpoint as its cache.
//! - **truncation below the local log start** ([`Node::truncate_fully_and_start_at`]):
//!   `UnifiedLog.truncateTo` calls `truncateFullyAndStartAt(target)`, which makes the target the
//!   log start and clears the epoch cache (UnifiedLog.java:2388-2389, 2417-2422 in the 4.4.0
//!   jar's line table).
//! - **what a leader serves**: [`lineage::forecast`] (its expiration by lineage, the log start it
//!   then has, and where each offset is read from, RemoteLogManager.java:1449-1615, 1877-1967
//!   @4.4.0). The expiration is not an action: the invariant asks what a leader serves once it has
//!   run (a lab does not delete remote segments; `klog remote` forecasts the same).
//!
//! The remote metadata is one log, as Kafka's `__remote_log_metadata` is, read whole by every
//! broker; the lab keeps a copy per dir that `fetch` brings up to its leader's, so a replica
//! uploads or deletes locally only when its copy holds every segment ([`NodeTier::meta_seen`]),
//! where the lab and Kafka agree.
//!
//! The invariant: an acked record that a newly elected leader serves from neither tier is lost.
//! An unclean election's own loss (the records its leader does not hold) is what
//! `unclean.leader.election.enable` accepts: those records stop counting as acked there, and what
//! the tiered mode looks for is the loss of records a leader still held.

use super::model::{Action, Config, Node, Rec, State, MAX_EPOCHS};
use crate::log::epoch_cache::EpochCache;
use crate::replica::Role;
use crate::tiered::aux_state::{self, LeaderTier, RemoteSource};
use crate::tiered::copy;
use crate::tiered::lineage::{self, Candidate, ReadSource};
use crate::tiered::metadata_cache::PartitionRemoteMetadata;
use crate::tiered::remote_log_metadata::{RemoteLogSegmentState, SegmentMetadata, TopicIdPartition};
use crate::tiered::retain::{self, LocalRetention, SegmentFacts};

/// Most remote segments a search models.
pub const MAX_REMOTE: usize = 4;
/// The size the model gives a segment of one record (any size above the 1-byte limit decides
/// local retention the same way: every segment is the same size).
const SEGMENT_BYTES: u64 = 75;

/// One remote segment (one record: start and end offset are `offset`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct RemoteSegment {
    pub offset: u8,
    /// The record; its epoch is the segment's one `segmentLeaderEpochs` entry.
    pub rec: Rec,
    /// The replica whose copy task copied it (the state is COPY_SEGMENT_FINISHED: the model's
    /// upload is whole, and nothing deletes).
    pub copier: u8,
    /// Its `.leader_epoch_checkpoint`: the copier's cache up to `offset + 1`.
    pub epochs: [(i8, u8); MAX_EPOCHS + 1],
    pub epochs_len: u8,
}

impl RemoteSegment {
    pub fn epoch_cache(&self) -> EpochCache {
        let n = Node { epochs: self.epochs, epochs_len: self.epochs_len, ..Node::new() };
        n.epoch_cache()
    }

    /// As Kafka's metadata holds it; `seq` is its place in the metadata log.
    fn metadata(&self, seq: usize) -> SegmentMetadata {
        let mut id = [0u8; 16];
        id[0] = seq as u8 + 1;
        let o = self.offset as i64;
        SegmentMetadata {
            partition: TopicIdPartition { topic: String::new(), partition: 0, topic_id: [0; 16] },
            segment_id: id,
            start_offset: o,
            end_offset: o,
            broker_id: self.copier as i32,
            max_timestamp_ms: 0,
            event_timestamp_ms: seq as i64,
            segment_leader_epochs: copy::epoch_entries_in_range(&self.epoch_cache(), o, o + 1),
            segment_size_in_bytes: SEGMENT_BYTES as i32,
            state: RemoteLogSegmentState::CopySegmentFinished,
            txn_index_empty: true,
            custom_metadata_bytes: None,
        }
    }
}

/// A replica's log starts and its copy of the remote metadata.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct NodeTier {
    /// `log-start-offset-checkpoint`: the log start across the tiers.
    pub log_start: u8,
    /// The base offset of its first local segment.
    pub local_log_start: u8,
    /// The active segment is an empty one at the log end (after a roll or a cut).
    pub rolled: bool,
    /// How many of the partition's remote segments its `__remote_log_metadata-0` holds.
    pub meta_seen: u8,
}

impl Node {
    /// `truncateFullyAndStartAt(offset)`: no local record, both log starts at `offset`, the epoch
    /// cache cleared, an empty segment at `offset`.
    pub(super) fn truncate_fully_and_start_at(&mut self, offset: i64) {
        let o = offset.max(0) as u8;
        self.log_len = o;
        self.log[..o as usize].fill(Rec::default());
        self.epochs_len = 0;
        self.tier.log_start = o;
        self.tier.local_log_start = o;
        self.tier.rolled = true;
        self.high_watermark = self.high_watermark.min(o);
        self.recovery_point = self.recovery_point.min(o);
    }

    /// Its local segments' bases, oldest first (one record a segment; the last is the active
    /// one).
    fn segment_bases(&self) -> Vec<i64> {
        let mut v: Vec<i64> = (self.tier.local_log_start as i64..self.log_len as i64).collect();
        if self.tier.rolled || v.is_empty() {
            v.push(self.log_len as i64);
        }
        v
    }

    /// As [`lineage::forecast`] takes a candidate leader.
    fn candidate(&self) -> Candidate {
        let bases = self.segment_bases();
        Candidate {
            epoch_entries: self.epoch_cache().entries().iter().map(|e| (e.leader_epoch, e.start_offset)).collect(),
            log_start_offset: self.tier.log_start as i64,
            local_log_start_offset: self.tier.local_log_start as i64,
            log_end_offset: self.log_len as i64,
            local_segments: bases
                .iter()
                .map(|&b| (b, if b < self.log_len as i64 { SEGMENT_BYTES } else { 0 }))
                .collect(),
        }
    }
}

impl State {
    /// The first `count` remote segments as Kafka's metadata cache folds them.
    fn remote_metadata(&self, count: usize) -> PartitionRemoteMetadata {
        PartitionRemoteMetadata::replay(self.remote[..count].iter().enumerate().map(|(i, s)| s.metadata(i)))
    }

    /// Replica `r` leads and its metadata copy holds every remote segment.
    fn knows_all_remote(&self, r: usize) -> bool {
        self.nodes[r].tier.meta_seen == self.remote_len
    }

    /// What `klog tier copy r` copies: (base, next base) of each segment.
    fn upload_plan(&self, r: usize) -> Vec<(i64, i64)> {
        let node = &self.nodes[r];
        let p = self.remote_metadata(self.remote_len as usize);
        let plan = copy::plan_copy(
            &node.epoch_cache(),
            &node.segment_bases(),
            node.tier.log_start as i64,
            node.log_len as i64,
            node.high_watermark as i64,
            &p,
        );
        plan.candidates
    }

    /// What `klog tier retain r --local-retention-bytes 1` deletes (bases) and whether it rolls.
    fn local_delete_plan(&self, r: usize) -> retain::RetentionPlan {
        let node = &self.nodes[r];
        let p = self.remote_metadata(node.tier.meta_seen as usize);
        let (highest, _) = copy::find_highest_remote_offset(&node.epoch_cache(), node.log_len as i64, &p);
        let facts: Vec<SegmentFacts> = node
            .candidate()
            .local_segments
            .iter()
            .map(|&(base_offset, size_bytes)| SegmentFacts { base_offset, size_bytes, largest_timestamp_ms: 0 })
            .collect();
        retain::plan_retention(
            &facts,
            node.log_len as i64,
            node.high_watermark as i64,
            node.tier.log_start as i64,
            highest,
            LocalRetention::Bytes(1),
        )
    }

    /// The tiered actions on offer: upload by a leader with something to copy (and room for it),
    /// local deletion by a running replica that deletes or rolls.
    pub(super) fn tier_successors(&self, out: &mut Vec<Action>) {
        for r in 0..self.n() {
            let node = &self.nodes[r];
            if !node.is_running() || !self.knows_all_remote(r) {
                continue;
            }
            let leads = node.vol.is_some_and(|v| v.role == Role::Leader);
            if leads {
                let n = self.upload_plan(r).len();
                if n > 0 && self.remote_len as usize + n <= MAX_REMOTE {
                    out.push(Action::Upload { replica: r as u8 });
                }
            }
            let plan = self.local_delete_plan(r);
            if !plan.deleted.is_empty() || (plan.roll && !node.tier.rolled) {
                out.push(Action::LocalDelete { replica: r as u8 });
            }
        }
    }

    /// `klog tier copy r`: each planned segment becomes a finished remote segment.
    pub(super) fn upload(&mut self, r: usize) {
        let cache = self.nodes[r].epoch_cache();
        for (base, next) in self.upload_plan(r) {
            let mut checkpoint = cache.clone();
            checkpoint.truncate_from_end(next);
            let mut seg = RemoteSegment {
                offset: base as u8,
                rec: self.nodes[r].log[base as usize],
                copier: r as u8,
                ..RemoteSegment::default()
            };
            for (slot, e) in seg.epochs.iter_mut().zip(checkpoint.entries()) {
                *slot = (e.leader_epoch as i8, e.start_offset as u8);
            }
            seg.epochs_len = checkpoint.entries().len() as u8;
            self.remote[self.remote_len as usize] = seg;
            self.remote_len += 1;
        }
        self.nodes[r].tier.meta_seen = self.remote_len;
    }

    /// `klog tier retain r --local-retention-bytes 1`.
    pub(super) fn local_delete(&mut self, r: usize) {
        let plan = self.local_delete_plan(r);
        let node = &mut self.nodes[r];
        if let Some(&last) = plan.deleted.last() {
            node.tier.local_log_start = last as u8 + 1;
        }
        if plan.roll {
            node.tier.rolled = true;
        }
    }

    /// The leader's two log starts.
    fn leader_tier(&self, l: usize) -> LeaderTier {
        let t = self.nodes[l].tier;
        LeaderTier { log_start_offset: t.log_start as i64, local_log_start_offset: t.local_log_start as i64 }
    }

    /// The remote log auxiliary state follower `f` builds against `l`, its metadata copy first
    /// brought up to `l`'s (`None`: its fetch offset is not below `l`'s local log start).
    fn aux_state(&self, f: usize, l: usize) -> Option<aux_state::AuxState> {
        let tier = self.leader_tier(l);
        let follower_end = self.nodes[f].log_len as i64;
        if !tier.moved_to_tiered_storage(follower_end) {
            return None;
        }
        let seen = self.nodes[f].tier.meta_seen.max(self.nodes[l].tier.meta_seen) as usize;
        let p = self.remote_metadata(seen);
        let leader = &self.nodes[l];
        Some(aux_state::build(tier, &leader.epoch_cache(), leader.log_len as i64, |epoch, offset| {
            let s = p.segment_for(epoch, offset)?;
            let seq = s.segment_id[0] as usize - 1;
            Some(RemoteSource {
                segment_id: s.segment_id_text(),
                start_offset: s.start_offset,
                end_offset: s.end_offset,
                epochs: Some(self.remote[seq].epoch_cache()),
            })
        }))
    }

    /// A fetch the lab runs: not below the leader's log start, and below its local log start
    /// only when the remote segment is found (else the follower retries and nothing changes).
    pub(super) fn tiered_fetch_ok(&self, f: usize, l: usize) -> bool {
        let tier = self.leader_tier(l);
        let end = self.nodes[f].log_len as i64;
        end >= tier.log_start_offset && self.aux_state(f, l).is_none_or(|a| a.source.is_some())
    }

    /// A restart the lab writes as the explorer models it: the follower ends at or above the
    /// leader's local log start, or its restart below it is rebuilt from a remote segment found.
    pub(super) fn tiered_recover_ok(&self, cfg: &Config, f: usize, l: usize) -> bool {
        let mut s = *self;
        let (plan, _) = s.recover(cfg, f, l);
        match plan.restart_at_leader_start {
            None => s.nodes[f].log_len >= s.nodes[l].tier.local_log_start,
            Some(_) => self.aux_state(f, l).is_some_and(|a| a.source.is_some()),
        }
    }

    /// `klog recover f --leader l` on a tiered leader: the restart, and where it would restart
    /// at the leader's local log start, the remote log auxiliary state instead (the plan's
    /// `from_remote`, written as `fetch` writes it).
    pub(super) fn recover_tiered(&mut self, cfg: &Config, f: usize, l: usize) {
        let aux = self.aux_state(f, l);
        let (plan, _) = self.recover(cfg, f, l);
        if plan.restart_at_leader_start.is_none() {
            return;
        }
        self.rebuild_from_remote(f, aux);
    }

    /// `klog fetch`'s tiered part, before the rounds: the follower's metadata copy takes the
    /// leader's, and a follower below the leader's local log start rebuilds from remote.
    pub(super) fn before_tiered_fetch(&mut self, l: usize, f: usize) {
        let seen = self.nodes[f].tier.meta_seen.max(self.nodes[l].tier.meta_seen);
        let aux = self.aux_state(f, l);
        self.nodes[f].tier.meta_seen = seen;
        self.rebuild_from_remote(f, aux);
    }

    /// Follower `f` rebuilt from remote by `aux` (when it found a remote segment): its log
    /// restarts empty after the segment, with the leader's log start and the segment's epochs.
    fn rebuild_from_remote(&mut self, f: usize, aux: Option<aux_state::AuxState>) {
        let Some(aux) = aux else { return };
        let (Some(source), Some(next)) = (aux.source, aux.next_offset) else { return };
        let node = &mut self.nodes[f];
        node.truncate_fully_and_start_at(next);
        node.tier.log_start = aux.log_start_offset as u8;
        if let Some(epochs) = source.epochs {
            node.set_epoch_cache(&epochs);
        }
    }

    /// Whether leader `r` serves `value` at `offset` (below its local log start) from remote
    /// storage once its expiration has run ([`lineage::forecast`]).
    pub(super) fn served_from_remote(&self, r: usize, offset: u8, value: u8) -> bool {
        if self.remote_len == 0 {
            return false;
        }
        let p = self.remote_metadata(self.remote_len as usize);
        let f = lineage::forecast(&p, &self.nodes[r].candidate(), None);
        let o = offset as i64;
        f.reads.iter().any(|range| {
            (range.first_offset..=range.last_offset).contains(&o)
                && match range.source {
                    ReadSource::Remote { segment_id, .. } => {
                        let seg = &self.remote[segment_id[0] as usize - 1];
                        seg.offset == offset && seg.rec.value == value
                    }
                    ReadSource::Local | ReadSource::OutOfRange => false,
                }
        })
    }

    /// An unclean election of `r`: the acked records it does not serve are the loss unclean
    /// elections accept, and stop counting as acked.
    pub(super) fn forget_acked_not_held(&mut self, r: usize) {
        let node = self.nodes[r];
        let mut kept = [(0u8, 0u8); super::model::MAX_RECORDS];
        let mut n = 0;
        for &(offset, value) in self.acked() {
            let local = offset >= node.tier.local_log_start
                && node.records().get(offset as usize).is_some_and(|rec| rec.value == value);
            if local || (offset < node.tier.local_log_start && self.served_from_remote(r, offset, value)) {
                kept[n] = (offset, value);
                n += 1;
            }
        }
        self.acked = kept;
        self.acked_len = n as u8;
    }
}

#[cfg(test)]
mod tests {
    use super::super::model::tests::run;
    use super::super::model::{Action::*, Config, Controller, State, Violation};
    use super::*;

    const A: u8 = 0;
    const B: u8 = 1;

    fn cfg() -> Config {
        let rules = crate::replication::release::Release::new(4, 4, 0).rules();
        Config {
            unclean: true,
            tiered: true,
            controller: Controller::of(&rules, None),
            ..Config::clean_at(rules, 2, 3, 3, 24)
        }
    }

    /// a alone acks m1..m3 (b took m1 then crashed).
    fn a_alone_with_three() -> Vec<Action> {
        vec![
            Elect { replica: A, leader_epoch: 0, isr: 0b11, unclean: false },
            Append { replica: A, value: 1 },
            Fetch { leader: A, follower: B },
            Fetch { leader: A, follower: B },
            Crash { replica: B, power_loss: false, hw: None },
            Append { replica: A, value: 2 },
            Append { replica: A, value: 3 },
        ]
    }

    #[test]
    fn an_upload_copies_every_closed_segment_below_the_hw() {
        let c = cfg();
        let (s, v) = run(State::initial(2), &c, &a_alone_with_three());
        assert_eq!(v, None);
        let (s, _) = run(s, &c, &[Upload { replica: A }]);
        assert_eq!(s.remote_len, 2, "m1 and m2; m3's segment is the active one");
        assert_eq!((s.remote[0].offset, s.remote[0].rec.value, s.remote[1].rec.value), (0, 1, 2));
        assert_eq!(s.nodes[0].tier.meta_seen, 2);
        let mut next = Vec::new();
        s.successors(&c, &mut next);
        assert!(!next.contains(&Upload { replica: A }), "nothing more to copy");
    }

    #[test]
    fn a_local_deletion_moves_the_local_log_start_past_what_is_remote() {
        let c = cfg();
        let (s, _) = run(State::initial(2), &c, &a_alone_with_three());
        let mut next = Vec::new();
        s.successors(&c, &mut next);
        assert!(!next.contains(&LocalDelete { replica: A }), "m1's segment is not remote yet: the walk stops there");
        let (s, _) = run(s, &c, &[Upload { replica: A }, LocalDelete { replica: A }]);
        let t = s.nodes[0].tier;
        assert_eq!((t.log_start, t.local_log_start, s.nodes[0].log_len), (0, 2, 3));
    }

    /// The kept case's shape (tests/real-walks/4.4.0-tiered-below-local-start.json): a copies and
    /// deletes locally, b is elected uncleanly, a truncates below its local log start (log start
    /// reset, epoch cache cleared), and when a leads again m1, which b held, is served by neither
    /// tier.
    #[test]
    fn a_truncation_below_the_local_log_start_loses_what_the_unclean_leader_held() {
        let c = cfg();
        let mut h = a_alone_with_three();
        h.extend([
            Upload { replica: A },
            LocalDelete { replica: A },
            Crash { replica: A, power_loss: false, hw: None },
            Restart { replica: B },
            Elect { replica: B, leader_epoch: 1, isr: 0b10, unclean: true },
        ]);
        let (s, v) = run(State::initial(2), &c, &h);
        assert_eq!(v, None, "m2 and m3, which b lacks, are the unclean election's own loss");
        assert_eq!(s.acked(), &[(0, 1)]);
        let (s, v) = run(s, &c, &[Recover { follower: A, leader: B }]);
        assert_eq!(v, None);
        let t = s.nodes[0].tier;
        assert_eq!((t.log_start, t.local_log_start, s.nodes[0].log_len, s.nodes[0].epochs_len), (1, 1, 1, 0));
        let mut next = Vec::new();
        s.successors(&c, &mut next);
        let (s, _) = run(s, &c, &[Fetch { leader: B, follower: A }]);
        s.successors(&c, &mut next);
        let (_, v) =
            run(s, &c, &[AlterIsr { leader: B, isr: 0b11 }, Crash { replica: B, power_loss: false, hw: None }]);
        assert!(matches!(v, Some(Violation::AckedLoss { value: 1, offset: 0, leader: A, found: None, .. })), "{v:?}");
    }

    /// The search finds that shape itself at the default bounds, and no shorter tiered loss.
    #[test]
    fn the_search_finds_a_loss_below_the_local_log_start_in_14_actions() {
        let c = Config { max_depth: 16, ..cfg() };
        let out = super::super::search::search(&c, 2, 10_000_000, &|_, _| true);
        let ce = out.counterexample.expect("a tiered loss within 16 actions");
        assert_eq!(ce.actions.len(), 14, "{:?}", ce.actions);
        assert!(ce.actions.contains(&Upload { replica: A }) && ce.actions.contains(&LocalDelete { replica: A }));
        assert!(matches!(ce.violation, Violation::AckedLoss { value: 1, offset: 0, leader: A, found: None, .. }));
    }

    /// OFFSET_MOVED_TO_TIERED_STORAGE: b, back at log end 1 below a's local log start 2, is
    /// rebuilt from the remote segment holding offset 1 (empty at 2, a's log start, the
    /// segment's epoch checkpoint) when it recovers against a, then fetches m3.
    #[test]
    fn a_follower_below_the_leaders_local_log_start_is_rebuilt_from_remote() {
        let c = cfg();
        let mut h = a_alone_with_three();
        h.extend([Upload { replica: A }, LocalDelete { replica: A }, Restart { replica: B }]);
        let (s, _) = run(State::initial(2), &c, &h);
        let (s, v) = run(s, &c, &[Recover { follower: B, leader: A }]);
        assert_eq!(v, None);
        let b = &s.nodes[1];
        assert_eq!((b.tier.log_start, b.tier.local_log_start, b.log_len), (0, 2, 2), "rebuilt, not cut at 2");
        let (s, v) = run(s, &c, &[Fetch { leader: A, follower: B }]);
        assert_eq!(v, None);
        let b = &s.nodes[1];
        assert_eq!((b.tier.log_start, b.tier.local_log_start, b.log_len), (0, 2, 3));
        assert_eq!(b.records()[2].value, 3);
        assert_eq!(b.epoch_cache().entries().len(), 1, "the remote checkpoint: epoch 0 from 0");
        assert_eq!(b.tier.meta_seen, 2, "its metadata copy took a's");
        // b leads once a crashes: m1 and m2 are served from remote, m3 locally.
        assert!(s.served_from_remote(1, 0, 1) && s.served_from_remote(1, 1, 2));
    }
}
