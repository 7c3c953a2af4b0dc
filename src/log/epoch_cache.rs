//! The leader-epoch cache (Kafka `LeaderEpochFileCache`): epoch → first offset written in it.
//!
//! Invariant: entries are strictly increasing in both `leader_epoch` and `start_offset`. Every
//! rule here is Kafka's (kafka-format.md §4): `assign` drops conflicting entries (KAFKA-7415),
//! `end_offset_for` answers OffsetsForLeaderEpoch the current way, and
//! [`EpochCache::end_offset_for_v0_11`] the way 0.11–1.x leaders did (KIP-101). The cache is
//! pure data; persisting it to `leader-epoch-checkpoint` is the caller's job.

/// −1: no epoch (`UNDEFINED_EPOCH`).
pub const UNDEFINED_EPOCH: i32 = -1;
/// −1: no offset (`UNDEFINED_EPOCH_OFFSET`).
pub const UNDEFINED_EPOCH_OFFSET: i64 = -1;

/// One line of `leader-epoch-checkpoint`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct EpochEntry {
    pub leader_epoch: i32,
    pub start_offset: i64,
}

/// An answer to OffsetsForLeaderEpoch: (epoch, end offset), either may be undefined (−1).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct EpochEndOffset {
    pub leader_epoch: i32,
    pub end_offset: i64,
}

impl EpochEndOffset {
    pub const UNDEFINED: EpochEndOffset =
        EpochEndOffset { leader_epoch: UNDEFINED_EPOCH, end_offset: UNDEFINED_EPOCH_OFFSET };
    pub fn is_undefined(&self) -> bool {
        self.end_offset == UNDEFINED_EPOCH_OFFSET
    }
}

/// The in-memory epoch cache.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct EpochCache {
    entries: Vec<EpochEntry>,
}

impl EpochCache {
    pub fn new() -> Self {
        EpochCache { entries: Vec::new() }
    }

    /// Build a cache by replaying `entries` through [`EpochCache::assign`], as Kafka does when
    /// it loads the checkpoint.
    pub fn from_entries(entries: impl IntoIterator<Item = EpochEntry>) -> Self {
        let mut cache = EpochCache::new();
        for e in entries {
            cache.assign(e.leader_epoch, e.start_offset);
        }
        cache
    }

    pub fn entries(&self) -> &[EpochEntry] {
        &self.entries
    }
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }
    pub fn latest(&self) -> Option<EpochEntry> {
        self.entries.last().copied()
    }
    pub fn latest_epoch(&self) -> Option<i32> {
        self.latest().map(|e| e.leader_epoch)
    }
    pub fn earliest(&self) -> Option<EpochEntry> {
        self.entries.first().copied()
    }

    /// `assign(epoch, startOffset)`: returns true if the cache changed (and must be written).
    /// Negative values are ignored (Kafka throws; callers never pass them except from a
    /// damaged log, where `LogSegment.recover` skips them too).
    pub fn assign(&mut self, leader_epoch: i32, start_offset: i64) -> bool {
        if leader_epoch < 0 || start_offset < 0 {
            return false;
        }
        if let Some(last) = self.entries.last() {
            if last.leader_epoch == leader_epoch && start_offset >= last.start_offset {
                return false;
            }
        }
        while let Some(last) = self.entries.last() {
            if last.leader_epoch >= leader_epoch || last.start_offset >= start_offset {
                self.entries.pop();
            } else {
                break;
            }
        }
        self.entries.push(EpochEntry { leader_epoch, start_offset });
        true
    }

    /// `endOffsetFor(requestedEpoch, logEndOffset)`, the current rule (kafka-format.md §4.2).
    pub fn end_offset_for(&self, requested_epoch: i32, log_end_offset: i64) -> EpochEndOffset {
        if requested_epoch == UNDEFINED_EPOCH {
            return EpochEndOffset::UNDEFINED;
        }
        let Some(latest) = self.latest() else { return EpochEndOffset::UNDEFINED };
        if requested_epoch == latest.leader_epoch {
            return EpochEndOffset { leader_epoch: requested_epoch, end_offset: log_end_offset };
        }
        // The smallest cached epoch greater than the requested one.
        let Some(higher_idx) = self.entries.iter().position(|e| e.leader_epoch > requested_epoch) else {
            return EpochEndOffset::UNDEFINED;
        };
        let higher = self.entries[higher_idx];
        if higher_idx == 0 {
            // Below every cached epoch: the requested epoch with the first start offset.
            return EpochEndOffset { leader_epoch: requested_epoch, end_offset: higher.start_offset };
        }
        let floor = self.entries[higher_idx - 1];
        EpochEndOffset { leader_epoch: floor.leader_epoch, end_offset: higher.start_offset }
    }

    /// The answer of a 0.11–1.x leader (OffsetsForLeaderEpoch v0, offset only): the latest epoch
    /// → LEO; an epoch at or above the first cached one with a greater epoch cached → start of
    /// the smallest greater epoch; anything else → undefined.
    pub fn end_offset_for_v0_11(&self, requested_epoch: i32, log_end_offset: i64) -> i64 {
        let (Some(first), Some(latest)) = (self.earliest(), self.latest()) else {
            return UNDEFINED_EPOCH_OFFSET;
        };
        if requested_epoch < 0 {
            return UNDEFINED_EPOCH_OFFSET;
        }
        if requested_epoch == latest.leader_epoch {
            return log_end_offset;
        }
        if requested_epoch < first.leader_epoch {
            return UNDEFINED_EPOCH_OFFSET;
        }
        match self.entries.iter().find(|e| e.leader_epoch > requested_epoch) {
            Some(higher) => higher.start_offset,
            None => UNDEFINED_EPOCH_OFFSET,
        }
    }

    /// `truncateFromEnd(endOffset)`: drop every entry starting at or after `end_offset`.
    /// Returns true if the cache changed.
    pub fn truncate_from_end(&mut self, end_offset: i64) -> bool {
        let before = self.entries.len();
        if end_offset >= 0 && self.latest().is_some_and(|l| l.start_offset >= end_offset) {
            self.entries.retain(|e| e.start_offset < end_offset);
        }
        self.entries.len() != before
    }

    /// `truncateFromStart(startOffset)`: the epoch covering `start_offset` survives, re-based.
    pub fn truncate_from_start(&mut self, start_offset: i64) -> bool {
        let mut last_removed = None;
        let mut removed_count = 0;
        while let Some(first) = self.entries.first() {
            if first.start_offset <= start_offset {
                last_removed = Some(self.entries.remove(0));
                removed_count += 1;
            } else {
                break;
            }
        }
        match last_removed {
            Some(e) => {
                let changed = removed_count > 1 || e.start_offset != start_offset;
                self.entries.insert(0, EpochEntry { leader_epoch: e.leader_epoch, start_offset });
                changed
            }
            None => false,
        }
    }

    /// `clearAndFlush` (memory part).
    pub fn clear(&mut self) -> bool {
        let changed = !self.entries.is_empty();
        self.entries.clear();
        changed
    }

    /// The entry covering `offset`: the last one starting at or before it.
    pub fn epoch_for_offset(&self, offset: i64) -> Option<i32> {
        let after = self.entries.partition_point(|e| e.start_offset <= offset);
        after.checked_sub(1).map(|i| self.entries[i].leader_epoch)
    }

    /// End offset of every entry: the next entry's start, or `log_end_offset` for the latest.
    pub fn ranges(&self, log_end_offset: i64) -> Vec<(EpochEntry, i64)> {
        self.entries
            .iter()
            .enumerate()
            .map(|(i, e)| (*e, self.entries.get(i + 1).map_or(log_end_offset, |n| n.start_offset)))
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cache(pairs: &[(i32, i64)]) -> EpochCache {
        EpochCache::from_entries(pairs.iter().map(|&(e, o)| EpochEntry { leader_epoch: e, start_offset: o }))
    }

    #[test]
    fn assign_keeps_epochs_and_offsets_increasing() {
        let mut c = cache(&[(0, 0), (2, 10)]);
        assert!(!c.assign(2, 15), "same epoch, later offset: no change");
        assert!(c.assign(2, 5), "same epoch, lower offset replaces");
        assert_eq!(c, cache(&[(0, 0), (2, 5)]));
        assert!(c.assign(1, 8), "lower epoch drops the conflicting later entries");
        assert_eq!(c, cache(&[(0, 0), (1, 8)]));
        assert!(c.assign(3, 8), "same start offset replaces");
        assert_eq!(
            c.entries(),
            &[EpochEntry { leader_epoch: 0, start_offset: 0 }, EpochEntry { leader_epoch: 3, start_offset: 8 }]
        );
    }

    #[test]
    fn end_offset_for_follows_the_current_rule() {
        let c = cache(&[(1, 0), (3, 10), (5, 20)]);
        assert_eq!(c.end_offset_for(-1, 30), EpochEndOffset::UNDEFINED);
        assert_eq!(c.end_offset_for(5, 30), EpochEndOffset { leader_epoch: 5, end_offset: 30 });
        assert_eq!(c.end_offset_for(6, 30), EpochEndOffset::UNDEFINED);
        assert_eq!(c.end_offset_for(0, 30), EpochEndOffset { leader_epoch: 0, end_offset: 0 });
        assert_eq!(c.end_offset_for(3, 30), EpochEndOffset { leader_epoch: 3, end_offset: 20 });
        assert_eq!(c.end_offset_for(4, 30), EpochEndOffset { leader_epoch: 3, end_offset: 20 });
        assert_eq!(c.end_offset_for(2, 30), EpochEndOffset { leader_epoch: 1, end_offset: 10 });
        assert_eq!(EpochCache::new().end_offset_for(0, 5), EpochEndOffset::UNDEFINED);
    }

    #[test]
    fn end_offset_for_v0_11_follows_the_old_rule() {
        let c = cache(&[(1, 0), (3, 10)]);
        assert_eq!(c.end_offset_for_v0_11(3, 15), 15);
        assert_eq!(c.end_offset_for_v0_11(1, 15), 10);
        assert_eq!(c.end_offset_for_v0_11(2, 15), 10);
        assert_eq!(c.end_offset_for_v0_11(0, 15), UNDEFINED_EPOCH_OFFSET);
        assert_eq!(c.end_offset_for_v0_11(4, 15), UNDEFINED_EPOCH_OFFSET);
    }

    #[test]
    fn truncation_from_both_ends() {
        let mut c = cache(&[(1, 0), (3, 10), (5, 20)]);
        assert!(!c.truncate_from_end(25));
        assert!(c.truncate_from_end(10));
        assert_eq!(c, cache(&[(1, 0)]));
        let mut c = cache(&[(1, 0), (3, 10), (5, 20)]);
        assert!(c.truncate_from_start(15));
        assert_eq!(c, cache(&[(3, 15), (5, 20)]));
        assert!(!c.truncate_from_start(15));
        let mut c = cache(&[(1, 0), (3, 10)]);
        assert!(c.truncate_from_start(10), "dropping an older epoch is a change");
        assert_eq!(c, cache(&[(3, 10)]));
    }
}
