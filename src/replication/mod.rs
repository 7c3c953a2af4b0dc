//! Replication between replica dirs: leader election, fetch with the HW piggyback lag,
//! follower truncation plans (pure) and the comparison of two logs.

pub mod diff;
pub mod fetch;
pub mod truncation;
