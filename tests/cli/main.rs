//! Integration tests through the real `klog` binary, one module per area.

mod common;
mod corruption;
mod crash;
mod demo;
mod fixtures;
mod formats;
mod generated;
mod histories;
mod kill;
mod real;
mod scenarios;
mod storage;
