//! klog: a laboratory for Kafka replica logs.
//!
//! The library holds everything but argument parsing: Kafka's byte formats ([`format`]), one
//! partition's files ([`log`]), a replica dir with its checkpoints and klog state
//! ([`replica`]), replication between replicas ([`replication`]), crash simulation
//! ([`crash`]), the commands as functions from arguments to reports ([`commands`]) and the
//! renderers of those reports ([`output`]). Only `output` prints.

pub mod answer;
pub mod cli;
pub mod commands;
pub mod crash;
pub mod durable;
pub mod error;
pub mod escape;
pub mod explore;
pub mod format;
pub mod generate;
pub mod lab;
pub mod log;
pub mod notice;
pub mod output;
pub mod parallel;
pub mod partition_registration;
pub mod regular_file;
pub mod replica;
pub mod replication;
pub mod util;
pub mod work_share;
