//! The metadata replay: the KRaft metadata records applied in order, as the broker's
//! `MetadataLoader` / `MetadataDelta` apply them to the image. `TopicRecord` names topics,
//! `RemoveTopicRecord` drops them, `PartitionRecord` creates a [`PartitionRegistration`] and each
//! `PartitionChangeRecord` advances it ([`PartitionRegistration::merge`]), `ClearElrRecord` empties
//! ELR and last known ELR; `ConfigRecord` sets (or, with a null value, deletes) a topic's or the
//! cluster's dynamic config; records inside a metadata transaction that ends with
//! `AbortTransactionRecord` are undone (`MetadataBatchLoader`). Every partition change is kept,
//! in order, as a timeline. Pure: records in, a timeline out; no I/O, no printing.

use super::registration::PartitionRegistration;
use super::registration::{int, uuid};
use crate::format::metadata::MetadataRecord;
use crate::format::schema::{find, Field, Value};
use std::collections::{BTreeMap, HashMap};

/// Where a metadata record was read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MetadataPosition {
    /// The metadata log, at this offset.
    Log(i64),
    /// A KRaft snapshot ending at this offset (its records carry no log offset).
    Snapshot { end_offset: i64 },
}

/// One step of a partition's timeline.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PartitionChange {
    pub partition: String,
    pub position: MetadataPosition,
    /// The record batch's timestamp (the controller's clock when it wrote it).
    pub timestamp: i64,
    /// `PartitionRecord`, `PartitionChangeRecord`, `ClearElrRecord` or `RemoveTopicRecord`.
    pub record: &'static str,
    /// The registration after the record (`None` once the topic is removed).
    pub after: Option<PartitionRegistration>,
    /// What the record changed: `created`, `leader`, `leader_epoch`, `isr`, `elr`,
    /// `last_known_elr`, `replicas`, `leader_recovery_state`, `removed`.
    pub changed: Vec<&'static str>,
}

type Topics = HashMap<[u8; 16], String>;
type Partitions = BTreeMap<([u8; 16], i32), PartitionRegistration>;
/// Dynamic configs by (`ConfigResource.Type` code, resource name): name → value.
type Configs = BTreeMap<(i8, String), BTreeMap<String, String>>;

/// `ConfigResource.Type.TOPIC`.
const TOPIC_RESOURCE: i8 = 2;
/// `ConfigResource.Type.BROKER` (the empty name is the cluster-wide default).
const BROKER_RESOURCE: i8 = 4;

/// Where a topic's effective config value came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ConfigSource {
    /// A `ConfigRecord` for the topic.
    Topic,
    /// A `ConfigRecord` for the cluster-wide broker default (resource name "").
    ClusterDefault,
}

/// Where and when a record was read, and its name: what each step of a timeline carries.
#[derive(Debug, Clone, Copy)]
struct At {
    position: MetadataPosition,
    timestamp: i64,
    record: &'static str,
}

/// The replay state saved when a metadata transaction begins: topics, partitions, changes count.
#[derive(Debug, Clone)]
struct Saved(Topics, Partitions, Configs, usize);

/// The replay: topics by id, partitions by (topic id, partition), and every change in order.
#[derive(Debug, Clone, Default)]
pub struct MetadataReplay {
    topics: Topics,
    partitions: Partitions,
    configs: Configs,
    pub changes: Vec<PartitionChange>,
    /// The state before an open metadata transaction, restored if it aborts.
    transaction: Option<Box<Saved>>,
}

fn differences(before: Option<&PartitionRegistration>, after: &PartitionRegistration) -> Vec<&'static str> {
    let Some(b) = before else { return vec!["created"] };
    let mut out = Vec::new();
    if b.leader != after.leader {
        out.push("leader");
    }
    if b.leader_epoch != after.leader_epoch {
        out.push("leader_epoch");
    }
    if b.isr != after.isr {
        out.push("isr");
    }
    if b.elr != after.elr {
        out.push("elr");
    }
    if b.last_known_elr != after.last_known_elr {
        out.push("last_known_elr");
    }
    if b.replicas != after.replicas {
        out.push("replicas");
    }
    if b.leader_recovery_state != after.leader_recovery_state {
        out.push("leader_recovery_state");
    }
    out
}

impl MetadataReplay {
    fn name(&self, topic_id: &[u8; 16], partition: i32) -> String {
        match self.topics.get(topic_id) {
            Some(t) => format!("{t}-{partition}"),
            None => format!("{}-{partition}", crate::util::base64_url(topic_id)),
        }
    }

    /// A topic's dynamic config value as the metadata sets it: the topic's own, else the
    /// cluster-wide default (`None`: neither is set; the broker's static config, which no log
    /// holds, or Kafka's default applies).
    pub fn topic_config(&self, topic: &str, key: &str) -> Option<(&str, ConfigSource)> {
        let get = |t: i8, name: &str| self.configs.get(&(t, name.to_string())).and_then(|c| c.get(key));
        get(TOPIC_RESOURCE, topic)
            .map(|v| (v.as_str(), ConfigSource::Topic))
            .or_else(|| get(BROKER_RESOURCE, "").map(|v| (v.as_str(), ConfigSource::ClusterDefault)))
    }

    /// The registrations now, by partition name.
    pub fn partitions(&self) -> BTreeMap<String, &PartitionRegistration> {
        self.partitions.iter().map(|((t, p), r)| (self.name(t, *p), r)).collect()
    }

    /// One step of a partition's timeline, the one shape every partition record takes: the
    /// registration after the record (`None`: the partition is removed) replaces the one before,
    /// and the change is kept with what it changed.
    fn step(&mut self, key: ([u8; 16], i32), after: Option<PartitionRegistration>, at: At) {
        let partition = self.name(&key.0, key.1);
        let changed = match &after {
            Some(after) => {
                let changed = differences(self.partitions.get(&key), after);
                self.partitions.insert(key, after.clone());
                changed
            }
            None => {
                self.partitions.remove(&key);
                vec!["removed"]
            }
        };
        let At { position, timestamp, record } = at;
        self.changes.push(PartitionChange { partition, position, timestamp, record, after, changed });
    }

    /// `ClearElrRecord`: ELR and last known ELR emptied, for one topic or all.
    fn clear_elr(&mut self, at: At, f: &[Field<'_>]) {
        let topic = match find(f, "topicName") {
            Some(Value::Str(s)) if !s.is_empty() => Some(String::from_utf8_lossy(s).into_owned()),
            _ => None,
        };
        let keys: Vec<([u8; 16], i32)> = self
            .partitions
            .iter()
            .filter(|((t, _), p)| {
                (!p.elr.is_empty() || !p.last_known_elr.is_empty())
                    && topic.as_ref().is_none_or(|name| self.topics.get(t) == Some(name))
            })
            .map(|(k, _)| *k)
            .collect();
        for key in keys {
            let mut after = self.partitions[&key].clone();
            after.elr.clear();
            after.last_known_elr.clear();
            self.step(key, Some(after), at);
        }
    }

    /// `RemoveTopicRecord`: each of the topic's partitions ends its timeline.
    fn remove_topic(&mut self, at: At, f: &[Field<'_>]) {
        let Some(id) = uuid(f, "topicId") else { return };
        let keys: Vec<([u8; 16], i32)> = self.partitions.keys().filter(|(t, _)| *t == id).copied().collect();
        for key in keys {
            self.step(key, None, at);
        }
        self.topics.remove(&id);
    }

    /// `ConfigRecord`: a dynamic config set, or deleted by a null value.
    fn set_config(&mut self, f: &[Field<'_>]) {
        let text = |name: &str| match find(f, name) {
            Some(Value::Str(s)) => Some(String::from_utf8_lossy(s).into_owned()),
            _ => None,
        };
        let (Some(resource), Some(name)) = (text("resourceName"), text("name")) else { return };
        let key = (int(f, "resourceType", -1) as i8, resource);
        match text("value") {
            Some(v) => {
                self.configs.entry(key).or_default().insert(name, v);
            }
            None => {
                if let Some(c) = self.configs.get_mut(&key) {
                    c.remove(&name);
                }
            }
        }
    }

    /// Apply one metadata record.
    pub fn apply(&mut self, position: MetadataPosition, timestamp: i64, r: &MetadataRecord<'_>) {
        let f = &r.fields;
        let at = At { position, timestamp, record: r.name() };
        match r.name() {
            "TopicRecord" => {
                if let (Some(id), Some(Value::Str(name))) = (uuid(f, "topicId"), find(f, "name")) {
                    self.topics.insert(id, String::from_utf8_lossy(name).into_owned());
                }
            }
            "PartitionRecord" => {
                if let Some(id) = uuid(f, "topicId") {
                    let key = (id, int(f, "partitionId", -1) as i32);
                    self.step(key, Some(PartitionRegistration::from_partition_record(f)), at);
                }
            }
            "PartitionChangeRecord" => {
                let Some(id) = uuid(f, "topicId") else { return };
                let key = (id, int(f, "partitionId", -1) as i32);
                // A change for a partition never created is skipped, as the image would refuse it.
                let Some(before) = self.partitions.get(&key) else { return };
                let after = before.merge(f);
                self.step(key, Some(after), at);
            }
            "ClearElrRecord" => self.clear_elr(at, f),
            "RemoveTopicRecord" => self.remove_topic(at, f),
            "ConfigRecord" => self.set_config(f),
            "BeginTransactionRecord" => {
                self.transaction = Some(Box::new(Saved(
                    self.topics.clone(),
                    self.partitions.clone(),
                    self.configs.clone(),
                    self.changes.len(),
                )));
            }
            "EndTransactionRecord" => self.transaction = None,
            "AbortTransactionRecord" => {
                if let Some(t) = self.transaction.take() {
                    let Saved(topics, partitions, configs, len) = *t;
                    self.topics = topics;
                    self.partitions = partitions;
                    self.configs = configs;
                    self.changes.truncate(len);
                }
            }
            _ => {}
        }
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::format::metadata::decode;

    fn uvarint(out: &mut Vec<u8>, v: usize) {
        out.push(v as u8); // small values only
    }

    pub(crate) fn topic_record(name: &str, id: u8) -> Vec<u8> {
        let mut v = vec![1, 2, 0];
        uvarint(&mut v, name.len() + 1);
        v.extend(name.as_bytes());
        v.extend([id; 16]);
        v.push(0);
        v
    }

    fn int_array(out: &mut Vec<u8>, items: &[i32]) {
        uvarint(out, items.len() + 1);
        for i in items {
            out.extend(i.to_be_bytes());
        }
    }

    /// PartitionRecord v0: replicas, isr, leader, leader epoch, partition epoch.
    pub(crate) fn partition_record(
        id: u8,
        partition: i32,
        replicas: &[i32],
        isr: &[i32],
        leader: i32,
        epoch: i32,
    ) -> Vec<u8> {
        let mut v = vec![1, 3, 0];
        v.extend(partition.to_be_bytes());
        v.extend([id; 16]);
        int_array(&mut v, replicas);
        int_array(&mut v, isr);
        int_array(&mut v, &[]);
        int_array(&mut v, &[]);
        v.extend(leader.to_be_bytes());
        v.extend(epoch.to_be_bytes());
        v.extend(0i32.to_be_bytes());
        v.push(0);
        v
    }

    /// PartitionChangeRecord v0 with an optional ISR (tag 0) and leader (tag 1).
    pub(crate) fn change(id: u8, partition: i32, isr: Option<&[i32]>, leader: Option<i32>) -> Vec<u8> {
        let mut v = vec![1, 5, 0];
        v.extend(partition.to_be_bytes());
        v.extend([id; 16]);
        v.push(isr.is_some() as u8 + leader.is_some() as u8);
        if let Some(isr) = isr {
            let mut field = Vec::new();
            int_array(&mut field, isr);
            v.extend([0, field.len() as u8]);
            v.extend(field);
        }
        if let Some(l) = leader {
            v.extend([1, 4]);
            v.extend(l.to_be_bytes());
        }
        v
    }

    fn replay(records: &[Vec<u8>]) -> MetadataReplay {
        let mut r = MetadataReplay::default();
        for (i, bytes) in records.iter().enumerate() {
            r.apply(MetadataPosition::Log(i as i64), 1000 + i as i64, &decode(bytes).unwrap());
        }
        r
    }

    #[test]
    fn changes_merge_as_kafka_merges_them() {
        let r = replay(&[
            topic_record("orders", 7),
            partition_record(7, 3, &[1, 2, 3], &[1, 2, 3], 1, 0),
            // ISR shrinks, leader unchanged (no epoch bump)
            change(7, 3, Some(&[1, 2]), None),
            // leader 2 elected: epoch 1
            change(7, 3, Some(&[2]), Some(2)),
            // the same leader named again: still a new epoch (KIP-966 / merge)
            change(7, 3, None, Some(2)),
        ]);
        let now = r.partitions();
        let p = now["orders-3"];
        assert_eq!((p.leader, p.leader_epoch, p.partition_epoch), (2, 2, 3));
        assert_eq!(p.isr, [2]);
        assert_eq!(p.replicas, [1, 2, 3]);
        let steps: Vec<(MetadataPosition, &[&str])> =
            r.changes.iter().map(|c| (c.position, c.changed.as_slice())).collect();
        assert_eq!(
            steps,
            [
                (MetadataPosition::Log(1), &["created"][..]),
                (MetadataPosition::Log(2), &["isr"][..]),
                (MetadataPosition::Log(3), &["leader", "leader_epoch", "isr"][..]),
                (MetadataPosition::Log(4), &["leader_epoch"][..]),
            ]
        );
        assert!(r.changes.iter().all(|c| c.partition == "orders-3"));
    }

    #[test]
    fn an_aborted_metadata_transaction_is_undone_and_a_removed_topic_ends_its_timeline() {
        let begin = vec![1u8, 23, 0, 0]; // BeginTransactionRecord, no name
        let abort = vec![1u8, 25, 0, 0];
        let remove = [&[1u8, 9, 0][..], &[7u8; 16], &[0]].concat();
        let r = replay(&[
            topic_record("orders", 7),
            partition_record(7, 0, &[1, 2], &[1, 2], 1, 0),
            begin,
            change(7, 0, None, Some(2)),
            abort,
            remove,
        ]);
        let kinds: Vec<&str> = r.changes.iter().map(|c| c.record).collect();
        assert_eq!(kinds, ["PartitionRecord", "RemoveTopicRecord"]);
        assert!(r.changes[1].after.is_none());
        assert!(r.partitions().is_empty());
    }

    /// ConfigRecord v0: resource type, resource name, name, nullable value.
    fn config(resource_type: i8, resource: &str, name: &str, value: Option<&str>) -> Vec<u8> {
        let mut v = vec![1, 4, 0, resource_type as u8];
        for text in [resource, name] {
            uvarint(&mut v, text.len() + 1);
            v.extend(text.as_bytes());
        }
        match value {
            Some(t) => {
                uvarint(&mut v, t.len() + 1);
                v.extend(t.as_bytes());
            }
            None => v.push(0),
        }
        v.push(0);
        v
    }

    #[test]
    fn a_topic_config_comes_from_its_own_record_else_the_cluster_default_and_a_null_deletes_it() {
        let key = "unclean.leader.election.enable";
        let r = replay(&[config(4, "", key, Some("true")), config(2, "orders", key, Some("false"))]);
        assert_eq!(r.topic_config("orders", key), Some(("false", ConfigSource::Topic)));
        assert_eq!(r.topic_config("other", key), Some(("true", ConfigSource::ClusterDefault)));
        let r = replay(&[config(2, "orders", key, Some("true")), config(2, "orders", key, None)]);
        assert_eq!(r.topic_config("orders", key), None);
        // A per-broker config (resource name "1") is not the cluster default.
        assert_eq!(replay(&[config(4, "1", key, Some("true"))]).topic_config("orders", key), None);
    }
}
