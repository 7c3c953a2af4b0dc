//! What the KRaft controller recorded, one file per Kafka concept: a partition's registration
//! ([`registration`], Kafka's `PartitionRegistration`), the replay of metadata records into
//! registrations and a timeline ([`replay`]), the metadata log on disk read as a broker loads
//! it ([`metadata_log`]: latest snapshot, then the log), the one lookup of the furthest-along
//! metadata log among some dirs with each partition's last registration ([`recorded`]), the
//! leadership a restart assumes from it ([`assumed_leader`]), and the controller's own
//! election rules ([`partition_change`], `PartitionChangeBuilder`), which the explorer runs.
//!
//! Everything here reads or computes; nothing writes, nothing prints. The ZooKeeper-mode
//! controller's rules are [`crate::replication::zk_controller`].

pub mod assumed_leader;
pub mod metadata_log;
pub mod partition_change;
pub mod recorded;
pub mod registration;
pub mod replay;

pub use assumed_leader::{AssumedLeader, LeaderEpochSource};
pub use recorded::{MetadataFound, RecordedLeadership, RecordedMetadata};
pub use registration::{PartitionRegistration, NO_LEADER};
pub use replay::{MetadataPosition, MetadataReplay, PartitionChange};
