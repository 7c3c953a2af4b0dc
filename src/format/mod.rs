//! Kafka's bytes: record batches (v2 and legacy v0/v1), the records inside them, control
//! records, compression streams, and the binary side files of a segment (`.txnindex`,
//! producer-state `.snapshot`), and Java properties text (`meta.properties`). Pure codecs: no I/O, no printing.

pub mod batch;
pub mod compression;
pub mod control;
pub mod legacy;
pub mod producer_snapshot;
pub mod properties;
pub mod record;
pub mod txn_index;
