//! What the remote segment table says against itself and against a broker's own files, beyond
//! the fold's findings: remote segments that hold the same offsets (overlaps), and remote
//! segments that reach at or above the high watermark of the broker that copied them.
//!
//! Neither is a finding on its own. Two remote segments may hold the same offsets for two
//! reasons Kafka allows: a leader copied offsets again (its copy start comes from the table,
//! `RemoteLogManager.copyLogSegmentsToRemote` `findHighestRemoteOffset`, so a table it had not
//! caught up on makes it copy twice), or an unclean election made a second history of those
//! offsets, which the new leader copies under its own epochs while the old lineage's segments
//! stay until its expiration task deletes them. A remote segment above the HW of the broker
//! that copied it can only be there if that broker's log was cut below what it copied (it
//! copies only below its last stable offset, which is at or below its HW): a lineage that is
//! no longer the partition's.

use super::local_tiered_storage::epochs_in_segment;
use super::metadata_cache::PartitionRemoteMetadata;
use super::remote_log_metadata::{RemoteLogSegmentState, SegmentMetadata};

/// One segment as the checks name it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SegmentRef {
    pub segment_id: [u8; 16],
    pub start_offset: i64,
    pub end_offset: i64,
    pub broker_id: i32,
    pub leader_epochs: Vec<(i32, i64)>,
}

impl SegmentRef {
    pub fn of(s: &SegmentMetadata) -> SegmentRef {
        SegmentRef {
            segment_id: s.segment_id,
            start_offset: s.start_offset,
            end_offset: s.end_offset,
            broker_id: s.broker_id,
            leader_epochs: s.segment_leader_epochs.clone(),
        }
    }

    pub fn segment_id_text(&self) -> String {
        crate::util::base64_url(&self.segment_id)
    }
}

/// Two finished remote segments holding offsets `first_offset..=last_offset` both.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Overlap {
    /// The segment reaching furthest among those before `second` (by start offset).
    pub first: SegmentRef,
    pub second: SegmentRef,
    pub first_offset: i64,
    pub last_offset: i64,
    /// Whether both give the same leader epochs to the shared offsets: the same history copied
    /// twice, rather than two histories of those offsets.
    pub same_lineage: bool,
}

/// The finished segments of a partition that hold offsets another holds, each paired with the
/// segment before it (by start offset) that reaches furthest: one pass over the table, so a
/// table of any size is checked in its sort's time.
pub fn overlaps(p: &PartitionRemoteMetadata) -> Vec<Overlap> {
    let finished: Vec<&SegmentMetadata> =
        p.table().into_iter().filter(|s| s.state == RemoteLogSegmentState::CopySegmentFinished).collect();
    let mut out = Vec::new();
    let mut reach: Option<&SegmentMetadata> = None;
    for s in finished {
        if let Some(r) = reach {
            if s.start_offset <= r.end_offset {
                let (lo, hi) = (s.start_offset, s.end_offset.min(r.end_offset));
                let same_lineage = epochs_in_segment(&r.segment_leader_epochs, lo, hi)
                    == epochs_in_segment(&s.segment_leader_epochs, lo, hi);
                out.push(Overlap {
                    first: SegmentRef::of(r),
                    second: SegmentRef::of(s),
                    first_offset: lo,
                    last_offset: hi,
                    same_lineage,
                });
            }
        }
        if reach.is_none_or(|r| s.end_offset > r.end_offset) {
            reach = Some(s);
        }
    }
    out
}

/// A broker's own marks for the partition, as its data dir holds them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BrokerMarks {
    pub node_id: i32,
    pub high_watermark: i64,
}

/// The finished segments this broker copied that reach its HW or above. Only a dir that was
/// shut down cleanly is asked (its HW checkpoint is written at the shutdown); a running or
/// killed broker's checkpoint may lag its HW by the checkpoint interval
/// (`replica.high.watermark.checkpoint.interval.ms`, 5 s by default).
pub fn above_high_watermark(p: &PartitionRemoteMetadata, marks: BrokerMarks) -> Vec<SegmentRef> {
    p.table()
        .into_iter()
        .filter(|s| s.state == RemoteLogSegmentState::CopySegmentFinished)
        .filter(|s| s.broker_id == marks.node_id && s.end_offset >= marks.high_watermark)
        .map(SegmentRef::of)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tiered::remote_log_metadata::TopicIdPartition;

    fn seg(id: u8, start: i64, end: i64, epochs: &[(i32, i64)], broker: i32) -> SegmentMetadata {
        SegmentMetadata {
            partition: TopicIdPartition { topic: "t".into(), partition: 0, topic_id: [7; 16] },
            segment_id: [id; 16],
            start_offset: start,
            end_offset: end,
            broker_id: broker,
            max_timestamp_ms: 0,
            event_timestamp_ms: 0,
            segment_leader_epochs: epochs.to_vec(),
            segment_size_in_bytes: 100,
            custom_metadata_bytes: None,
            txn_index_empty: true,
            state: RemoteLogSegmentState::CopySegmentFinished,
        }
    }

    fn table(segments: Vec<SegmentMetadata>) -> PartitionRemoteMetadata {
        let mut p = PartitionRemoteMetadata::default();
        for s in segments {
            p.segments.insert(s.segment_id, s);
        }
        p
    }

    #[test]
    fn segments_that_meet_end_to_end_do_not_overlap() {
        let p = table(vec![seg(1, 0, 27, &[(0, 0)], 1), seg(2, 28, 55, &[(0, 28)], 1)]);
        assert!(overlaps(&p).is_empty());
    }

    #[test]
    fn the_same_history_copied_twice_and_two_histories_of_one_range_are_told_apart() {
        // Broker 1 copied 0..27 in epoch 0; broker 2, elected uncleanly at epoch 1 from 20,
        // copied its own 0..30 with epoch 1 from 20: a second history of 20..27.
        let p = table(vec![seg(1, 0, 27, &[(0, 0)], 1), seg(2, 0, 30, &[(0, 0), (1, 20)], 2)]);
        let o = overlaps(&p);
        assert_eq!(o.len(), 1);
        assert_eq!((o[0].first_offset, o[0].last_offset, o[0].same_lineage), (0, 27, false));
        // The same offsets and epochs copied again.
        let p = table(vec![seg(1, 0, 27, &[(0, 0)], 1), seg(2, 10, 27, &[(0, 10)], 1)]);
        let o = overlaps(&p);
        assert_eq!((o[0].first_offset, o[0].last_offset, o[0].same_lineage), (10, 27, true));
    }

    #[test]
    fn an_overlap_is_paired_with_the_segment_reaching_furthest() {
        let p = table(vec![seg(1, 0, 100, &[(0, 0)], 1), seg(2, 10, 20, &[(0, 10)], 1), seg(3, 50, 60, &[(0, 50)], 1)]);
        let o = overlaps(&p);
        assert_eq!(o.len(), 2);
        assert!(o.iter().all(|x| x.first.segment_id == [1; 16]));
    }

    #[test]
    fn only_segments_the_broker_copied_at_or_above_its_hw_are_above_it() {
        let p = table(vec![seg(1, 0, 27, &[(0, 0)], 1), seg(2, 28, 55, &[(0, 28)], 1), seg(3, 28, 60, &[(1, 28)], 2)]);
        let above = above_high_watermark(&p, BrokerMarks { node_id: 1, high_watermark: 40 });
        assert_eq!(above.iter().map(|s| s.segment_id[0]).collect::<Vec<_>>(), vec![2]);
        assert!(above_high_watermark(&p, BrokerMarks { node_id: 1, high_watermark: 56 }).is_empty());
    }
}
