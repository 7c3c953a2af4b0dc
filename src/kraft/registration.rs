//! Kafka's `PartitionRegistration`: one partition as the KRaft controller last recorded it
//! (replicas, ISR, ELR, last known ELR, leader, leader epoch, partition epoch, leader recovery
//! state), built from a `PartitionRecord` and advanced by each `PartitionChangeRecord` as
//! `PartitionRegistration.merge` does: a change that names a leader, even the same one, bumps
//! the leader epoch; every change bumps the partition epoch; a null list keeps the old one.
//! Pure: decoded record fields in, a registration out.

use crate::format::schema::{find, Field, Value};

/// `LeaderAndIsr.NO_LEADER`.
pub const NO_LEADER: i32 = -1;
/// `PartitionRegistration.NO_LEADER_CHANGE`.
const NO_LEADER_CHANGE: i32 = -2;

/// One partition as the controller last recorded it.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct PartitionRegistration {
    pub replicas: Vec<i32>,
    pub isr: Vec<i32>,
    pub removing_replicas: Vec<i32>,
    pub adding_replicas: Vec<i32>,
    pub elr: Vec<i32>,
    pub last_known_elr: Vec<i32>,
    pub leader: i32,
    pub leader_epoch: i32,
    pub partition_epoch: i32,
    /// 0 recovered (or elected from the ISR), 1 recovering after an unclean election.
    pub leader_recovery_state: i8,
}

pub(super) fn int(fields: &[Field<'_>], name: &str, default: i64) -> i64 {
    match find(fields, name) {
        Some(Value::Int(i)) => *i,
        _ => default,
    }
}

/// A list of broker ids; `None` when the field is absent or null ("no change").
fn ids(fields: &[Field<'_>], name: &str) -> Option<Vec<i32>> {
    match find(fields, name) {
        Some(Value::Array(items)) => {
            Some(items.iter().filter_map(|v| if let Value::Int(i) = v { Some(*i as i32) } else { None }).collect())
        }
        _ => None,
    }
}

pub(super) fn uuid(fields: &[Field<'_>], name: &str) -> Option<[u8; 16]> {
    match find(fields, name) {
        Some(Value::Uuid(u)) => Some(*u),
        _ => None,
    }
}

impl PartitionRegistration {
    /// From a `PartitionRecord`'s fields.
    pub fn from_partition_record(fields: &[Field<'_>]) -> PartitionRegistration {
        PartitionRegistration {
            replicas: ids(fields, "replicas").unwrap_or_default(),
            isr: ids(fields, "isr").unwrap_or_default(),
            removing_replicas: ids(fields, "removingReplicas").unwrap_or_default(),
            adding_replicas: ids(fields, "addingReplicas").unwrap_or_default(),
            elr: ids(fields, "eligibleLeaderReplicas").unwrap_or_default(),
            last_known_elr: ids(fields, "lastKnownElr").unwrap_or_default(),
            leader: int(fields, "leader", -1) as i32,
            leader_epoch: int(fields, "leaderEpoch", -1) as i32,
            partition_epoch: int(fields, "partitionEpoch", -1) as i32,
            leader_recovery_state: int(fields, "leaderRecoveryState", 0) as i8,
        }
    }

    /// `PartitionRegistration.merge(PartitionChangeRecord)`.
    pub fn merge(&self, change: &[Field<'_>]) -> PartitionRegistration {
        let leader = int(change, "leader", NO_LEADER_CHANGE.into()) as i32;
        let (leader, leader_epoch) =
            if leader == NO_LEADER_CHANGE { (self.leader, self.leader_epoch) } else { (leader, self.leader_epoch + 1) };
        let recovery = int(change, "leaderRecoveryState", -1) as i8;
        PartitionRegistration {
            replicas: ids(change, "replicas").unwrap_or_else(|| self.replicas.clone()),
            isr: ids(change, "isr").unwrap_or_else(|| self.isr.clone()),
            removing_replicas: ids(change, "removingReplicas").unwrap_or_else(|| self.removing_replicas.clone()),
            adding_replicas: ids(change, "addingReplicas").unwrap_or_else(|| self.adding_replicas.clone()),
            elr: ids(change, "eligibleLeaderReplicas").unwrap_or_else(|| self.elr.clone()),
            last_known_elr: ids(change, "lastKnownElr").unwrap_or_else(|| self.last_known_elr.clone()),
            leader,
            leader_epoch,
            partition_epoch: self.partition_epoch + 1,
            leader_recovery_state: if recovery == -1 { self.leader_recovery_state } else { recovery },
        }
    }
}
