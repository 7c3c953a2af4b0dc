//! Kafka's bytes: record batches (v2 and legacy) and the records inside them.
//! Pure codecs: no I/O, no printing.

pub mod batch;
pub mod compression;
pub mod control;
pub mod legacy;
pub mod record;
