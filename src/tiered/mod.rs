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
//!   holding the same offsets, and segments above the HW of the broker that copied them.
//!
//! Everything here reads; nothing writes, nothing prints.

pub mod local_tiered_storage;
pub mod metadata_cache;
pub mod metadata_topic;
pub mod remote_log_metadata;
pub mod tier_check;
