//! Tiered storage (KIP-405): what a broker with `remote.storage.enable=true` topics keeps
//! outside its partition dirs, read one Kafka concept per file:
//! - [`remote_log_metadata`]: the records of the internal topic `__remote_log_metadata`
//!   (Kafka's `RemoteLogMetadataSerde`), decoded by name from Kafka 4.4's own schemas, and the
//!   typed events they carry;
//! - [`metadata_cache`]: those events folded per partition as Kafka's `RemoteLogMetadataCache`
//!   and `RemotePartitionMetadataStore` fold them (the remote segment table), with every event
//!   the cache drops or rejects kept as a finding;
//! - [`metadata_topic`]: the `__remote_log_metadata-N` partitions of brokers' data dirs read
//!   with klog's own segment readers, in offset order, into that fold;
//! - [`local_tiered_storage`]: the filesystem layout of Kafka's `LocalTieredStorage` (the
//!   storage manager Kafka's tests use), set against the table: filesets, files without
//!   metadata, metadata without files;
//! - [`tier_check`]: the table against itself and the brokers' own files: remote segments
//!   holding the same offsets, and segments above the HW of the broker that copied them;
//! - [`lineage`]: what a candidate leader serves, deletes and answers across the tiers, by
//!   its epoch cache (Kafka's `RemoteLogManager` rules), and the remote records no leader serves;
//! - [`aux_state`] and [`leader`]: a follower below a tiered leader's local log start, and the
//!   remote log auxiliary state it builds;
//! - [`lab`], [`copy`], [`retain`], [`expire`] and [`follower`]: a klog lab with a remote tier
//!   (`klog create --remote-dir`): its metadata partition, the leader's copy task, local
//!   retention below the highest remote offset, the leader's remote expiration, and a
//!   follower's rebuild from remote storage.
//!
//! The modules above `lab` read only; `lab`, `copy`, `retain`, `expire` and `follower` write, through
//! [`crate::durable`]. Nothing here prints.

pub mod aux_state;
pub mod copy;
pub mod expire;
pub mod lab;
pub mod leader;
pub mod lineage;
pub mod local_tiered_storage;
pub mod metadata_cache;
pub mod metadata_topic;
pub mod remote_log_metadata;
pub mod retain;
pub mod tier_check;
