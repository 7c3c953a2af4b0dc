//! Replication between replica dirs. The rules are pure functions, one concept a file — the
//! election's epoch ([`election`]), fencing ([`fencing`]), the high watermark
//! ([`high_watermark`]), follower truncation plans ([`truncation`]) and the fate of each
//! record ([`classify`]) — so that the commands and the in-memory explorer run the same rules;
//! [`fetch`] and [`diff`] apply them to log dirs.

pub mod classify;
pub mod diff;
pub mod election;
pub mod explain;
pub mod fencing;
pub mod fetch;
pub mod follower;
pub mod high_watermark;
pub mod isr;
pub mod isr_members;
pub mod leader;
pub mod on_disk;
pub mod partition_change;
pub mod release;
pub mod storage;
pub mod truncation;
pub mod zk_controller;
