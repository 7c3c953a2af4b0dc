//! Integration tests through the real `klog` binary, one module per area.

mod bad_input;
mod capture;
mod cluster;
mod common;
mod corruption;
mod crash;
mod data_dir;
mod demo;
mod dry_run;
mod explore;
mod fixtures;
mod formats;
mod generated;
mod golden;
mod histories;
mod hostile_reads;
mod hostile_writes;
mod kill;
mod log_trust;
#[allow(dead_code)]
mod oracle;
mod oracle_dump;
mod oracle_load;
mod oracle_lock;
mod oracle_meta;
mod oracle_write;
mod picture;
mod ranges;
mod readme;
mod real;
mod real_cluster;
mod scale;
mod scenarios;
mod storage;
mod terminal;
mod trust;
