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

/// One partition's remote metadata.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PartitionRemoteMetadata {
    /// Segments by id (`idToSegmentMetadata`), each as its latest applied event left it.
    pub segments: BTreeMap<[u8; 16], SegmentMetadata>,
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
                if u.state == RemoteLogSegmentState::DeleteSegmentFinished {
                    p.segments.remove(&u.segment_id);
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
