//! The Kafka tier: klog judged against Kafka itself. Kafka 4.4's own classes run as an oracle
//! (`oracle*.rs`, `difffuzz.rs`: one JVM per batch), real brokers run as clusters of JVMs on
//! 127.0.0.1 (`real_*.rs`, harnesses `kraft_brokers.rs` and `zk_brokers.rs`), and kafka-python
//! reads what klog writes (`kafka_python.rs`). Not part of plain `cargo test`: run it with
//! `cargo test --test kafka` once the oracle is built (`mvn -q -B -f kafka-oracle/pom.xml
//! package -DskipTests`). A test whose input is missing skips, and fails under `KLOG_CI=1`
//! (`common::missing_input`).

// Shared with the other tiers; each uses a different part of it.
#[allow(dead_code)]
#[path = "../support/common.rs"]
mod common;
#[path = "../support/txn_logs.rs"]
mod txn_logs;

mod difffuzz;
mod internal_records;
mod kafka_python;
mod kraft_brokers;
mod lab_tier;
mod mutate;
#[allow(dead_code)]
mod oracle;
mod oracle_dump;
mod oracle_hash_map;
mod oracle_load;
mod oracle_lock;
mod oracle_meta;
mod oracle_server;
mod oracle_transactions;
mod oracle_txn_deletes;
mod oracle_write;
mod real_choice;
mod real_explore;
mod real_failovers;
mod real_history;
mod real_tiered;
mod real_tiered_walks;
mod real_transactions;
mod real_walks;
mod zk_brokers;
