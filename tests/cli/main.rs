//! The fast tier: integration tests through the real `klog` binary, one module per area, that
//! need nothing but the binary (no JVM, no browser, no Kafka cluster, no kafka-python). Plain
//! `cargo test` runs them; the Kafka tier (`tests/kafka`) and the browser tier (`tests/browser`)
//! run with `cargo test --test kafka` and `cargo test --test browser`.

// Shared with the other tiers; each uses a different part of it.
#[allow(dead_code)]
#[path = "../support/common.rs"]
mod common;
#[allow(dead_code)]
#[path = "../support/lab_server.rs"]
mod lab_server;
#[path = "../support/txn_logs.rs"]
mod txn_logs;

mod bad_input;
mod capture;
mod cluster_view;
mod consent;
mod corruption;
mod crash;
mod data_dir;
mod demo;
mod diff_window;
mod dry_run;
mod eras;
mod escapes;
mod explore;
mod explore_tiered;
mod fetch_path;
mod fixtures;
mod formats;
mod generated;
mod golden;
mod guide_errors;
mod histories;
mod history;
mod hostile_reads;
mod hostile_writes;
mod house;
mod identity;
mod internal_topics;
mod kill;
mod killed_copy;
mod lab;
mod lab_identity;
mod log_trust;
mod next_step;
mod picture;
mod ranges;
mod readme;
mod real;
mod record_filters;
mod recorded_leader;
mod scale;
mod scenarios;
mod screens;
mod storage;
mod terminal;
mod tiered;
mod tiered_lab;
mod transactions;
mod trust;
mod words;
