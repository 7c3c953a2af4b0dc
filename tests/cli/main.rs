//! Integration tests through the real `klog` binary, one module per area.

mod common;
mod crash;
mod demo;
mod fixtures;
mod formats;
mod generated;
mod golden;
mod histories;
mod kill;
mod ranges;
mod real;
mod scenarios;
mod storage;
mod terminal;
