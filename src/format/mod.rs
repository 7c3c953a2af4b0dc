//! Kafka's bytes: record batches (v2 and legacy v0/v1), the records inside them, control
//! records, compression streams, and the binary side files of a segment (`.txnindex`,
//! producer-state `.snapshot`), Java properties text (`meta.properties`), and the records of
//! Kafka's internal topics decoded by schema (`schema`, `metadata`, `coordinator`). Pure codecs:
//! no I/O, no printing.

pub mod batch;
pub mod compression;
pub mod control;
pub mod coordinator;
pub mod legacy;
pub mod metadata;
pub mod producer_snapshot;
pub mod properties;
pub mod record;
pub mod schema;
pub mod txn_index;
