//! klog: a laboratory for Kafka replica logs.
//!
//! The library holds everything but `main`: Kafka's byte formats ([`format`](mod@format)), one
//! partition's files ([`log`]), a replica dir with its checkpoints and klog state ([`replica`]),
//! durable writes and the undo journal ([`durable`]), replication between replicas
//! ([`replication`]), what the KRaft controller recorded ([`kraft`]), transactions and the LSO
//! ([`txn`]), crash simulation ([`crash`]), the in-memory explorer ([`explore`]), the commands
//! as functions from arguments to reports ([`commands`]), the renderers of those reports
//! ([`output`]), and the front ends' shared parts: every flag and the settings resolved from
//! them ([`cli`]), and the one dispatcher from a parsed command to its command and renderer
//! ([`app`]), which `main` and the browser lab ([`lab`], which `main` starts) both call. The core never prints:
//! `output` renders reports into any writer, and only the front ends (`main`, [`app`], [`lab`])
//! write to stdout or stderr.

pub mod answer;
pub mod app;
pub mod cli;
pub mod commands;
pub mod crash;
pub mod durable;
pub mod error;
pub mod escape;
pub mod explore;
pub mod format;
pub mod generate;
pub mod kraft;
pub mod lab;
pub mod log;
pub mod map_guard;
pub mod notice;
pub mod output;
pub mod parallel;
pub mod regular_file;
pub mod replica;
pub mod replication;
pub mod tiered;
pub mod txn;
pub mod util;
pub mod work_share;
