//! The remote segment table of each partition, folded from `__remote_log_metadata` events as
//! Kafka 4.4's topic-based metadata manager folds them: `RemotePartitionMetadataStore` routes
//! each event to its partition's `RemoteLogMetadataCache`, which
//! - adds a segment on a `RemoteLogSegmentMetadataRecord` (`addCopyInProgressSegment`): its
//!   state must be COPY_SEGMENT_STARTED, else the cache throws;
//! - applies a `RemoteLogSegmentMetadataUpdateRecord` (`updateRemoteLogSegmentMetadata`) to the
//!   segment it names: the new state, broker and event time (`createWithUpdates`); an update
//!   of a segment it does not hold throws (`RemoteResourceNotFoundException`, or is dropped
//!   while the manager is still loading); a DELETE_SEGMENT_FINISHED removes the segment;
//! - drops, with an error logged, any event whose state change `RemoteLogSegmentState.
//!   isValidTransition` refuses;
//! - forgets a partition on a `RemotePartitionDeleteMetadataRecord` in state
//!   DELETE_PARTITION_FINISHED.
//!
//! Every event the cache drops or throws on is kept here as a [`Rejection`]: Kafka never
//! applied it, and a metadata log that holds one is a finding.

use super::remote_log_metadata::{
    PartitionDelete, RemoteLogMetadataEvent, RemoteLogSegmentState, RemotePartitionDeleteState, SegmentMetadata,
    TopicIdPartition,
};
use std::collections::BTreeMap;

/// Where an event was read: the `__remote_log_metadata` partition and the record's offset.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub struct EventPosition {
    pub metadata_partition: i32,
    pub offset: i64,
}

/// An event the cache does not apply.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Rejection {
    pub at: EventPosition,
    pub partition: TopicIdPartition,
    /// The segment the event names (`None` for a partition deletion).
    pub segment_id: Option<[u8; 16]>,
    pub why: String,
}

/// One leader epoch's entry of Kafka's cache (`RemoteLogLeaderEpochState`): the finished copies
/// by the offset the epoch starts at in each (`offsetToId`), the segments listed without a place
/// there (`unreferencedSegmentIds`: copies started, deletions started, copies a later one
/// covered), and the highest offset of the epoch copied (`highestLogOffset`). Folded in the
/// order of the metadata log, as Kafka's cache applies the events.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct EpochState {
    pub offset_to_id: BTreeMap<i64, [u8; 16]>,
    pub unreferenced: std::collections::BTreeSet<[u8; 16]>,
    pub highest_log_offset: Option<i64>,
}

/// `RemoteLogMetadataCache.highestOffsetForEpoch`: the last offset of `epoch` in `s` (the next
/// epoch's start − 1, or the segment's end).
fn highest_offset_for_epoch(epoch: i32, s: &SegmentMetadata) -> i64 {
    s.segment_leader_epochs.iter().filter(|(e, _)| *e > epoch).map(|(_, o)| o - 1).min().unwrap_or(s.end_offset)
}

/// One partition's remote metadata.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PartitionRemoteMetadata {
    /// Segments by id (`idToSegmentMetadata`), each as its latest applied event left it.
    pub segments: BTreeMap<[u8; 16], SegmentMetadata>,
    /// Per leader epoch, the finished segments a lookup by epoch finds (`leaderEpochEntries`).
    pub epochs: BTreeMap<i32, EpochState>,
    /// The latest partition deletion event, while the deletion is not finished.
    pub delete: Option<PartitionDelete>,
    /// How many events were applied to this partition.
    pub applied_count: u64,
}

impl PartitionRemoteMetadata {
    /// The segments ordered by start offset (then id): the table.
    pub fn table(&self) -> Vec<&SegmentMetadata> {
        let mut v: Vec<&SegmentMetadata> = self.segments.values().collect();
        v.sort_by_key(|s| (s.start_offset, s.end_offset, s.segment_id));
        v
    }

    /// `RemoteLogMetadataCache.remoteLogSegmentMetadata(leaderEpoch, offset)`: the segment
    /// holding `offset` in `epoch` — the one registered under the epoch at the greatest start at
    /// or below the offset, if the offset is within the epoch's part of it.
    pub fn segment_for(&self, epoch: i32, offset: i64) -> Option<&SegmentMetadata> {
        let (_, id) = self.epochs.get(&epoch)?.offset_to_id.range(..=offset).next_back()?;
        let s = self.segments.get(id)?;
        (offset <= highest_offset_for_epoch(epoch, s)).then_some(s)
    }

    /// `handleSegmentWithCopySegmentStartedState`, per epoch: listed, not yet found by offset.
    fn copy_started(&mut self, s: &SegmentMetadata) {
        for &(epoch, _) in &s.segment_leader_epochs {
            self.epochs.entry(epoch).or_default().unreferenced.insert(s.segment_id);
        }
    }

    /// `handleSegmentWithCopySegmentFinishedState` (RemoteLogLeaderEpochState.java:113-130@4.4.0),
    /// per epoch of the segment: segments of the epoch starting at or above this one's start are
    /// no longer referenced when this one reaches at least as far (a leader uploaded a
    /// superset); then this one is. A copy whose start offset a later one of the same epoch
    /// takes over (`offsetToId.put` on the same key) is in neither map: Kafka lists it under that
    /// epoch no more.
    fn copy_finished(&mut self, s: &SegmentMetadata) {
        for &(epoch, start) in &s.segment_leader_epochs {
            let end = highest_offset_for_epoch(epoch, s);
            let st = self.epochs.entry(epoch).or_default();
            while let Some((&last, &last_id)) = st.offset_to_id.last_key_value() {
                if last >= start && st.highest_log_offset.is_some_and(|h| h <= end) {
                    st.offset_to_id.remove(&last);
                    st.unreferenced.insert(last_id);
                } else {
                    break;
                }
            }
            st.offset_to_id.insert(start, s.segment_id);
            st.unreferenced.remove(&s.segment_id);
            if st.highest_log_offset.is_none_or(|h| end > h) {
                st.highest_log_offset = Some(end);
            }
        }
    }

    /// `handleSegmentWithDeleteSegmentStartedState`: the segment is no longer found by offset,
    /// and is listed as unreferenced (deletion retries find it).
    pub fn delete_started(&mut self, s: &SegmentMetadata) {
        for &(epoch, start) in &s.segment_leader_epochs {
            let st = self.epochs.entry(epoch).or_default();
            if st.offset_to_id.get(&start) == Some(&s.segment_id) {
                st.offset_to_id.remove(&start);
            }
            st.unreferenced.insert(s.segment_id);
        }
    }

    /// A table whose segments' events came in the order of their event times (tests and the
    /// explorer's tiered mode build tables this way): each copy started, then finished, then
    /// (for a deletion under way) its deletion started.
    pub fn replay(segments: impl IntoIterator<Item = SegmentMetadata>) -> PartitionRemoteMetadata {
        let mut segments: Vec<SegmentMetadata> = segments.into_iter().collect();
        segments.sort_by_key(|s| s.event_timestamp_ms);
        let mut p = PartitionRemoteMetadata::default();
        for s in segments {
            p.copy_started(&s);
            if s.state != RemoteLogSegmentState::CopySegmentStarted {
                p.copy_finished(&s);
            }
            if s.state == RemoteLogSegmentState::DeleteSegmentStarted {
                p.delete_started(&s);
            }
            p.segments.insert(s.segment_id, s);
        }
        p
    }

    /// The segment `id` deleted (started, then finished): what the cache holds once a leader's
    /// deletion of it is done.
    pub fn forget(&mut self, id: &[u8; 16]) {
        if let Some(s) = self.segments.get(id).cloned() {
            self.delete_started(&s);
            self.delete_finished(&s);
            self.segments.remove(id);
        }
    }

    /// `handleSegmentWithDeleteSegmentFinishedState`: no longer tracked at all.
    fn delete_finished(&mut self, s: &SegmentMetadata) {
        for &(epoch, _) in &s.segment_leader_epochs {
            if let Some(st) = self.epochs.get_mut(&epoch) {
                st.unreferenced.remove(&s.segment_id);
            }
        }
    }

    /// The lowest start offset among the segments whose copy finished (what the leader can
    /// serve from remote storage, before its epoch lineage is considered).
    pub fn copied_start_offset(&self) -> Option<i64> {
        self.segments
            .values()
            .filter(|s| s.state == RemoteLogSegmentState::CopySegmentFinished)
            .map(|s| s.start_offset)
            .min()
    }
}

/// Every partition's remote metadata, folded.
#[derive(Debug, Clone, Default)]
pub struct RemoteMetadataFold {
    pub partitions: BTreeMap<TopicIdPartition, PartitionRemoteMetadata>,
    /// Partitions whose deletion finished (their caches are gone).
    pub deleted_partitions: Vec<TopicIdPartition>,
    pub rejections: Vec<Rejection>,
    pub events_applied: u64,
}

impl RemoteMetadataFold {
    /// Apply one event, read at `at`, in the order of its metadata partition's log.
    pub fn apply(&mut self, at: EventPosition, event: &RemoteLogMetadataEvent) {
        match event {
            RemoteLogMetadataEvent::Segment(s) => self.add_copy_in_progress(at, s),
            RemoteLogMetadataEvent::Update(u) => {
                let reject =
                    |why: String| Rejection { at, partition: u.partition.clone(), segment_id: Some(u.segment_id), why };
                let Some(p) = self.partitions.get_mut(&u.partition) else {
                    self.rejections.push(reject("an update of a partition with no remote segments".into()));
                    return;
                };
                let Some(existing) = p.segments.get_mut(&u.segment_id) else {
                    self.rejections.push(reject(format!(
                        "an update to {} of a segment the cache does not hold (RemoteResourceNotFoundException)",
                        u.state.name()
                    )));
                    return;
                };
                if !RemoteLogSegmentState::is_valid_transition(Some(existing.state), u.state) {
                    let why = format!("{} can not be transitioned to {}", existing.state.name(), u.state.name());
                    self.rejections.push(reject(why));
                    return;
                }
                if u.state == RemoteLogSegmentState::CopySegmentStarted {
                    // `updateRemoteLogSegmentMetadata` throws on an update to the first state.
                    self.rejections.push(reject("an update to COPY_SEGMENT_STARTED (IllegalArgumentException)".into()));
                    return;
                }
                existing.broker_id = u.broker_id;
                existing.event_timestamp_ms = u.event_timestamp_ms;
                existing.state = u.state;
                existing.custom_metadata_bytes = u.custom_metadata_bytes;
                let updated = existing.clone();
                match u.state {
                    RemoteLogSegmentState::CopySegmentFinished => p.copy_finished(&updated),
                    RemoteLogSegmentState::DeleteSegmentStarted => p.delete_started(&updated),
                    RemoteLogSegmentState::DeleteSegmentFinished => {
                        p.delete_finished(&updated);
                        p.segments.remove(&u.segment_id);
                    }
                    RemoteLogSegmentState::CopySegmentStarted => {}
                }
                p.applied_count += 1;
                self.events_applied += 1;
            }
            RemoteLogMetadataEvent::PartitionDelete(d) => {
                let p = self.partitions.entry(d.partition.clone()).or_default();
                p.delete = Some(d.clone());
                p.applied_count += 1;
                self.events_applied += 1;
                if d.state == RemotePartitionDeleteState::DeletePartitionFinished {
                    self.partitions.remove(&d.partition);
                    self.deleted_partitions.push(d.partition.clone());
                }
            }
            RemoteLogMetadataEvent::Snapshot => {}
        }
    }

    fn add_copy_in_progress(&mut self, at: EventPosition, s: &SegmentMetadata) {
        let reject =
            |why: String| Rejection { at, partition: s.partition.clone(), segment_id: Some(s.segment_id), why };
        if s.state != RemoteLogSegmentState::CopySegmentStarted {
            let why = format!("a segment added in state {} (only COPY_SEGMENT_STARTED is)", s.state.name());
            self.rejections.push(reject(why));
            return;
        }
        let p = self.partitions.entry(s.partition.clone()).or_default();
        let existing = p.segments.get(&s.segment_id).map(|e| e.state);
        if !RemoteLogSegmentState::is_valid_transition(existing, s.state) {
            let why = format!(
                "{} can not be transitioned to {} (the segment was added again)",
                existing.map_or("none", |e| e.name()),
                s.state.name()
            );
            self.rejections.push(reject(why));
            return;
        }
        p.copy_started(s);
        p.segments.insert(s.segment_id, s.clone());
        p.applied_count += 1;
        self.events_applied += 1;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tiered::remote_log_metadata::{decode, event_of, tests as records};

    fn event(bytes: &[u8]) -> RemoteLogMetadataEvent {
        event_of(&decode(bytes).unwrap()).unwrap()
    }

    fn at(offset: i64) -> EventPosition {
        EventPosition { metadata_partition: 0, offset }
    }

    #[test]
    fn a_started_then_finished_copy_is_one_finished_segment_with_the_updating_broker() {
        let mut fold = RemoteMetadataFold::default();
        fold.apply(at(0), &event(&records::segment_record(0)));
        fold.apply(at(1), &event(&records::update_record(1, 2)));
        assert!(fold.rejections.is_empty());
        let (tp, p) = fold.partitions.iter().next().unwrap();
        assert_eq!(tp.dir_name(), "t-0");
        let t = p.table();
        assert_eq!(t.len(), 1);
        assert_eq!((t[0].state, t[0].broker_id), (RemoteLogSegmentState::CopySegmentFinished, 2));
        assert_eq!(t[0].event_timestamp_ms, 1_700_000_001_000);
        assert_eq!(p.copied_start_offset(), Some(0));
    }

    fn seg(id: u8, start: i64, end: i64, epochs: &[(i32, i64)]) -> SegmentMetadata {
        let mut s = match event(&records::segment_record(0)) {
            RemoteLogMetadataEvent::Segment(s) => s,
            _ => unreachable!(),
        };
        s.segment_id = [id; 16];
        (s.start_offset, s.end_offset, s.segment_leader_epochs) = (start, end, epochs.to_vec());
        s
    }

    /// `RemoteLogLeaderEpochState`'s own cases (3.9 trunk): a superset copied later replaces the
    /// segments it covers; an overlapping one that reaches further serves the offsets past the
    /// first; a lookup past the epoch's part of a segment finds nothing.
    #[test]
    fn a_lookup_by_epoch_finds_the_segment_kafka_serves() {
        let mut p = PartitionRemoteMetadata::default();
        p.copy_finished(&seg(1, 0, 100, &[(0, 0)]));
        p.copy_finished(&seg(2, 0, 200, &[(0, 0)]));
        for s in [seg(1, 0, 100, &[(0, 0)]), seg(2, 0, 200, &[(0, 0)])] {
            p.segments.insert(s.segment_id, s);
        }
        assert_eq!(p.segment_for(0, 50).map(|s| s.segment_id[0]), Some(2), "the superset replaced S0");
        assert_eq!(p.epochs[&0].offset_to_id.len(), 1);
        let mut p = PartitionRemoteMetadata::default();
        for s in [seg(1, 10, 90, &[(0, 10)]), seg(2, 5, 100, &[(0, 5)]), seg(3, 101, 200, &[(0, 101), (1, 150)])] {
            p.copy_finished(&s);
            p.segments.insert(s.segment_id, s);
        }
        assert_eq!(p.segment_for(0, 95).map(|s| s.segment_id[0]), Some(2));
        assert_eq!(p.segment_for(0, 149).map(|s| s.segment_id[0]), Some(3));
        assert_eq!(p.segment_for(0, 150), None, "offset 150 is epoch 1's in segment 3");
        assert_eq!(p.segment_for(1, 160).map(|s| s.segment_id[0]), Some(3));
        assert_eq!(p.segment_for(2, 160), None);
        p.delete_started(&seg(3, 101, 200, &[(0, 101), (1, 150)]));
        assert_eq!(p.segment_for(1, 160), None);
    }

    #[test]
    fn delete_finished_removes_the_segment() {
        let mut fold = RemoteMetadataFold::default();
        for (o, b) in [
            records::segment_record(0),
            records::update_record(1, 1),
            records::update_record(2, 1),
            records::update_record(3, 1),
        ]
        .iter()
        .enumerate()
        {
            fold.apply(at(o as i64), &event(b));
        }
        assert!(fold.rejections.is_empty());
        assert!(fold.partitions.values().all(|p| p.segments.is_empty()));
        assert_eq!(fold.events_applied, 4);
    }

    #[test]
    fn an_illegal_transition_is_rejected_and_changes_nothing() {
        let mut fold = RemoteMetadataFold::default();
        fold.apply(at(0), &event(&records::segment_record(0)));
        fold.apply(at(1), &event(&records::update_record(3, 1)));
        assert_eq!(fold.rejections.len(), 1);
        assert_eq!(fold.rejections[0].at, at(1));
        assert_eq!(fold.rejections[0].why, "COPY_SEGMENT_STARTED can not be transitioned to DELETE_SEGMENT_FINISHED");
        let p = fold.partitions.values().next().unwrap();
        assert_eq!(p.table()[0].state, RemoteLogSegmentState::CopySegmentStarted);
    }

    #[test]
    fn an_update_of_an_unknown_segment_and_a_segment_added_finished_are_rejected() {
        let mut fold = RemoteMetadataFold::default();
        fold.apply(at(0), &event(&records::update_record(1, 1)));
        fold.apply(at(1), &event(&records::segment_record(1)));
        assert_eq!(fold.rejections.len(), 2);
        assert!(fold.rejections[1].why.starts_with("a segment added in state COPY_SEGMENT_FINISHED"));
        assert_eq!(fold.events_applied, 0);
    }
}
