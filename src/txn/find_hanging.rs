//! find-hanging's rule (`kafka-transactions.sh find-hanging`, `TransactionsCommand` 3.9): an
//! open transaction whose producer's last write is older than the longest transaction timeout
//! the cluster allows, and which the coordinator's log does not expect (no transactional.id has
//! the producer id, or its transaction does not list the partition: [`Verdict::hangs`]), one
//! row per partition and producer, in the order the tool prints them. Pure: the partitions'
//! transactions and the coordinator's verdicts in, the rows out; the renderer only lays them out.

use super::coordinator::Verdict;
use super::transactions::OpenTransaction;
use crate::format::producer_snapshot::ProducerEntry;
use crate::log::java_hash_map::{long_hash, JavaHashMap};
use std::collections::HashMap;

/// One partition as find-hanging sees it: its broker's producers and open transactions and,
/// for each of those, what the coordinator's log says of it.
pub struct PartitionTxns<'a> {
    pub topic: &'a str,
    pub partition: i32,
    /// The broker's producer table (`DescribeProducers`).
    pub producers: Vec<ProducerEntry>,
    pub open: &'a [OpenTransaction],
    /// One per `open`, in its order.
    pub verdicts: &'a [Verdict],
}

/// An open transaction find-hanging lists.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Hanging {
    pub topic: String,
    pub partition: i32,
    /// The producer's entry on the replica with its latest write.
    pub entry: ProducerEntry,
    /// Whole minutes since that write (the tool's `Duration(min)`).
    pub duration_minutes: i64,
}

/// find-hanging's rows: candidates (an open transaction whose last write is more than
/// `max_timeout_ms` old), one per partition and producer (the replica with the latest write),
/// that the coordinator's log does not expect; in the order of a Java `HashMap<Long, _>` by
/// producer id, as the tool groups them.
pub fn find_hanging<'a>(
    partitions: impl Iterator<Item = PartitionTxns<'a>>,
    now_ms: i64,
    max_timeout_ms: i64,
) -> Vec<Hanging> {
    let mut found: Vec<Hanging> = Vec::new();
    // Where each (topic, partition, producer) is in `found`: hashed, so linear in the rows.
    let mut at: HashMap<(&str, i32, i64), usize> = HashMap::new();
    for p in partitions {
        let by_id: HashMap<i64, &ProducerEntry> = p.producers.iter().map(|e| (e.producer_id, e)).collect();
        for (open, verdict) in p.open.iter().zip(p.verdicts) {
            if !verdict.hangs() {
                continue;
            }
            let Some(entry) = by_id.get(&open.producer_id).copied() else { continue };
            if now_ms - entry.timestamp <= max_timeout_ms {
                continue;
            }
            let duration_minutes = (now_ms - entry.timestamp) / 60_000;
            match at.get(&(p.topic, p.partition, entry.producer_id)).map(|i| &mut found[*i]) {
                Some(h) if h.entry.timestamp < entry.timestamp => {
                    h.entry = *entry;
                    h.duration_minutes = duration_minutes;
                }
                Some(_) => {}
                None => {
                    at.insert((p.topic, p.partition, entry.producer_id), found.len());
                    found.push(Hanging {
                        topic: p.topic.to_string(),
                        partition: p.partition,
                        entry: *entry,
                        duration_minutes,
                    });
                }
            }
        }
    }
    let order = java_long_map_order(found.iter().map(|h| h.entry.producer_id));
    let group_of: HashMap<i64, usize> = order.iter().enumerate().map(|(g, id)| (*id, g)).collect();
    let mut groups: Vec<Vec<Hanging>> = order.iter().map(|_| Vec::new()).collect();
    for h in found {
        groups[group_of[&h.entry.producer_id]].push(h);
    }
    groups.into_iter().flatten().collect()
}

/// The distinct keys of a `HashMap<Long, _>` filled by `put` in this order, in the order it
/// iterates them ([`crate::log::java_hash_map`]; by bucket, then insertion, where a bucket
/// became a tree).
fn java_long_map_order(ids: impl Iterator<Item = i64>) -> Vec<i64> {
    let mut map = JavaHashMap::new();
    let mut keys: Vec<i64> = Vec::new();
    for id in ids {
        if !map.contains(long_hash(id), &id) {
            keys.push(id);
        }
        map.put(long_hash(id), id);
    }
    map.order().unwrap_or_else(|| {
        let capacity = map.capacity().max(16) as u64;
        let bucket = |id: i64| {
            let h = long_hash(id) as u32;
            u64::from(h ^ (h >> 16)) & (capacity - 1)
        };
        let mut ordered: Vec<(u64, usize, i64)> =
            keys.iter().enumerate().map(|(i, id)| (bucket(*id), i, *id)).collect();
        ordered.sort();
        ordered.into_iter().map(|(_, _, id)| id).collect()
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::txn::coordinator::CoordinatorTxn;

    fn entry(producer_id: i64, timestamp: i64) -> ProducerEntry {
        ProducerEntry {
            producer_id,
            producer_epoch: 0,
            last_sequence: 0,
            last_offset: 0,
            offset_delta: 0,
            timestamp,
            coordinator_epoch: 0,
            current_txn_first_offset: 0,
        }
    }

    fn open(producer_id: i64) -> OpenTransaction {
        OpenTransaction {
            producer_id,
            producer_epoch: 0,
            first_offset: 0,
            last_offset: 0,
            batches: 1,
            records: 1,
            first_timestamp: None,
            last_timestamp: None,
        }
    }

    #[test]
    fn only_old_transactions_the_coordinator_does_not_expect_hang() {
        let minute = 60_000;
        let now = 100 * minute;
        let listed = CoordinatorTxn {
            transactional_id: "app".into(),
            producer_id: 1,
            producer_epoch: 0,
            timeout_ms: 60_000,
            state: "Ongoing".into(),
            partitions: vec![("t".into(), 0)],
            start_ms: 0,
            last_update_ms: 0,
            log: "__transaction_state-0".into(),
            offset: 0,
        };
        let verdicts = [
            Verdict::Expected(listed.clone()),
            Verdict::NotListed(listed),
            Verdict::NoTransactionalId,
            Verdict::NoTransactionalId,
        ];
        let opens = [open(1), open(2), open(3), open(4)];
        // Producer 1 is expected, 4 wrote a minute ago (under the 15-minute timeout).
        let producers = vec![entry(1, 0), entry(2, 10 * minute), entry(3, 30 * minute), entry(4, now - minute)];
        let partition = PartitionTxns { topic: "t", partition: 0, producers, open: &opens, verdicts: &verdicts };
        let rows = find_hanging(std::iter::once(partition), now, 15 * minute);
        let found: Vec<(i64, i64)> = rows.iter().map(|h| (h.entry.producer_id, h.duration_minutes)).collect();
        assert_eq!(found, vec![(2, 90), (3, 70)]);
    }

    #[test]
    fn a_producer_on_two_replicas_is_one_row_with_the_latest_write() {
        let minute = 60_000;
        let opens = [open(9)];
        let verdicts = [Verdict::NoTransactionalId];
        let replica = |timestamp| PartitionTxns {
            topic: "t",
            partition: 3,
            producers: vec![entry(9, timestamp)],
            open: &opens,
            verdicts: &verdicts,
        };
        let rows = find_hanging([replica(minute), replica(5 * minute)].into_iter(), 60 * minute, minute);
        assert_eq!(rows.len(), 1);
        assert_eq!((rows[0].entry.timestamp, rows[0].duration_minutes), (5 * minute, 55));
    }

    #[test]
    fn long_keys_iterate_by_bucket_then_insertion() {
        // 17 and 1 share bucket 1 at capacity 16; 2 is bucket 2; 16 is bucket 0.
        assert_eq!(java_long_map_order([2, 17, 1, 16, 17].into_iter()), vec![16, 17, 1, 2]);
        // -1's hash is 0 (the high and low words cancel), so it comes first.
        assert_eq!(java_long_map_order([5, -1].into_iter()), vec![-1, 5]);
    }
}
