//! The transaction coordinator's state as its log, a `__transaction_state-N` partition, holds
//! it (`TransactionLog`, `TransactionMetadata`): the latest record of each transactional.id (a
//! tombstone removes it), with its producer id and epoch, status, timeout and the partitions
//! its current transaction writes to. `kafka-transactions.sh find-hanging` calls an open
//! transaction hanging when no transactional.id has its producer id (`ListTransactions`), or
//! when that id's transaction does not list the partition (`DescribeTransactions` lists the
//! partitions of an Ongoing transaction and those still awaiting markers in PrepareCommit /
//! PrepareAbort; none once it is complete). [`verdict`] applies the same rule to the records.
//! Nothing here prints or writes.

use crate::error::Result;
use crate::format::batch::BatchIter;
use crate::format::coordinator::{self, Coordinator, CoordinatorRead};
use crate::format::schema::{Field, Value};
use crate::log::Log;
use std::collections::BTreeMap;

/// One transactional.id's latest state.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CoordinatorTxn {
    pub transactional_id: String,
    pub producer_id: i64,
    pub producer_epoch: i16,
    pub timeout_ms: i64,
    /// `TransactionState`'s name (`Ongoing`, `CompleteCommit`, …).
    pub state: String,
    /// The partitions the transaction writes to (or still owes markers), as `topic-partition`.
    pub partitions: Vec<(String, i32)>,
    pub start_ms: i64,
    pub last_update_ms: i64,
    /// The `__transaction_state` partition and offset of the record.
    pub log: String,
    pub offset: i64,
}

fn field<'a, 'b>(fields: &'b [Field<'a>], name: &str) -> Option<&'b Value<'a>> {
    fields.iter().find(|f| f.name == name).map(|f| &f.value)
}

fn int(fields: &[Field<'_>], name: &str) -> i64 {
    match field(fields, name) {
        Some(Value::Int(i)) => *i,
        _ => -1,
    }
}

fn text(v: Option<&Value<'_>>) -> String {
    match v {
        Some(Value::Str(b)) => String::from_utf8_lossy(b).into_owned(),
        Some(Value::Text(t)) => t.to_string(),
        Some(Value::Int(i)) => i.to_string(),
        _ => String::new(),
    }
}

/// The latest state of each transactional.id in one `__transaction_state` partition log, by
/// transactional.id; records that do not decode are skipped (Kafka's loader skips them too
/// only for unknown types: counted in the second value).
pub fn read_coordinator_log(log: &Log, name: &str) -> Result<(BTreeMap<String, CoordinatorTxn>, usize)> {
    let mut out = BTreeMap::new();
    let mut undecoded = 0;
    for seg in log.segments() {
        let bytes = seg.read_log()?;
        for batch in BatchIter::new(&bytes) {
            if batch.header().is_some_and(|h| h.is_control()) {
                continue;
            }
            let Ok(records) = batch.records() else {
                undecoded += 1;
                continue;
            };
            let Ok(records) = records.decode() else {
                undecoded += 1;
                continue;
            };
            for r in records {
                let CoordinatorRead::Decoded(rec) = coordinator::decode(Coordinator::Transaction, r.key, r.value)
                else {
                    undecoded += 1;
                    continue;
                };
                let id = text(field(&rec.key, "transactionalId"));
                let Some(value) = rec.value else {
                    out.remove(&id);
                    continue;
                };
                let f = &value.fields;
                let mut partitions = Vec::new();
                if let Some(Value::Array(list)) = field(f, "transactionPartitions") {
                    for p in list {
                        let topic = text(p.get("topic"));
                        if let Some(Value::Array(ids)) = p.get("partitionIds") {
                            for i in ids {
                                if let Value::Int(i) = i {
                                    partitions.push((topic.clone(), *i as i32));
                                }
                            }
                        }
                    }
                }
                let txn = CoordinatorTxn {
                    transactional_id: id.clone(),
                    producer_id: int(f, "producerId"),
                    producer_epoch: int(f, "producerEpoch") as i16,
                    timeout_ms: int(f, "transactionTimeoutMs"),
                    state: text(field(f, "transactionStatus")),
                    partitions,
                    start_ms: int(f, "transactionStartTimestampMs"),
                    last_update_ms: int(f, "transactionLastUpdateTimestampMs"),
                    log: name.to_string(),
                    offset: r.offset,
                };
                out.insert(id, txn);
            }
        }
    }
    Ok((out, undecoded))
}

/// What the coordinator says of an open transaction of `producer_id` on `topic`-`partition`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Verdict {
    /// Its transactional.id lists the partition: the coordinator will write the marker (on
    /// commit, abort or its timeout).
    Expected(CoordinatorTxn),
    /// Its transactional.id does not list the partition: no marker will come (hanging).
    NotListed(CoordinatorTxn),
    /// No transactional.id in the coordinator logs read has the producer id: hanging, when those
    /// logs are all of `__transaction_state`.
    NoTransactionalId,
}

impl Verdict {
    /// Whether find-hanging counts the transaction as hanging: no marker will come from the
    /// coordinator (its transactional.id does not list the partition, or none has the producer).
    pub fn hangs(&self) -> bool {
        !matches!(self, Verdict::Expected(_))
    }
}

/// The coordinator's transactional.ids by producer id, each the first in transactional.id order
/// that has it: built once, so judging every open transaction is linear in them.
pub struct ByProducer<'a>(std::collections::HashMap<i64, &'a CoordinatorTxn>);

impl<'a> ByProducer<'a> {
    pub fn new(txns: &'a BTreeMap<String, CoordinatorTxn>) -> ByProducer<'a> {
        let mut by = std::collections::HashMap::with_capacity(txns.len());
        for t in txns.values() {
            by.entry(t.producer_id).or_insert(t);
        }
        ByProducer(by)
    }
}

/// find-hanging's rule over the coordinator state read from the dirs.
pub fn verdict(txns: &ByProducer<'_>, producer_id: i64, topic: &str, partition: i32) -> Verdict {
    match txns.0.get(&producer_id).copied() {
        None => Verdict::NoTransactionalId,
        Some(t) if t.partitions.iter().any(|(tp, p)| tp == topic && *p == partition) => Verdict::Expected(t.clone()),
        Some(t) => Verdict::NotListed(t.clone()),
    }
}
