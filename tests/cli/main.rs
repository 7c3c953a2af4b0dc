//! Integration tests through the real `klog` binary, one module per area.

mod bad_input;
mod capture;
mod common;
mod corruption;
mod crash;
mod data_dir;
mod demo;
mod explore;
mod fixtures;
mod formats;
mod generated;
mod golden;
mod histories;
mod kill;
mod log_trust;
mod picture;
mod ranges;
mod readme;
mod real;
mod scale;
mod scenarios;
mod storage;
mod terminal;
mod trust;
