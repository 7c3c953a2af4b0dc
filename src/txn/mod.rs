//! Transactions, one file per Kafka concept, as [`crate::kraft`] is for metadata: what holds a
//! partition's last stable offset (LSO) and its open transactions as Kafka's producer-state code
//! sees them ([`transactions`], `ProducerStateManager`, `UnifiedLog.lastStableOffset`), the
//! transaction coordinator's state read from `__transaction_state` and its verdict on an open
//! transaction ([`coordinator`], `TransactionLog`, `TransactionMetadata`), find-hanging's rule
//! over both ([`find_hanging`], `TransactionsCommand`), and the producer's checks an append runs
//! before it writes ([`producer_checks`], `ProducerAppendInfo`), and each batch's place in a
//! transaction as a `read_committed` consumer sees it ([`batch_place`]).
//!
//! The producer table itself ([`crate::log::producer_state`]) stays with the log: a broker's
//! load replays it and writes its snapshots (`ProducerStateManager` is part of Kafka's
//! `storage.internals.log`); this module reads it and never the other way round.
//!
//! Everything here reads or computes; nothing writes, nothing prints.

pub mod batch_place;
pub mod coordinator;
pub mod find_hanging;
pub mod producer_checks;
pub mod transactions;
