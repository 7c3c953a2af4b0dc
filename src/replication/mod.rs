//! Replication between replica dirs: the rules as pure functions, one concept a file, so that
//! the commands (on disk, through [`on_disk`]) and the explorer (in memory) run the same code
//! over a [`storage::Storage`]. The election's epoch ([`election`]), becoming a leader
//! ([`leader`]) or a follower ([`follower`]), fencing ([`fencing`]), the ISR ([`isr`]), the high
//! watermark ([`high_watermark`]), one fetch round ([`fetch`]), follower truncation plans
//! ([`truncation`]), the fate of each record ([`classify`]), the lines of a procedure that ran
//! ([`explain`]), the rules of each Kafka release ([`release`]), the ZooKeeper-mode controller
//! ([`zk_controller`]; the KRaft controller is [`crate::kraft::partition_change`]) and the
//! record-by-record comparison of two logs ([`diff`]).
//!
//! # The model
//!
//! klog's replication model (the rules the simulator follows), by operation; each names the
//! command and where its rules live:
//!
//! 1. **elect**: a replica becomes leader at a new epoch, never reissued ([`election`],
//!    [`leader`]); the ISR is what the command names.
//! 2. **append**: only a leader appends, each batch stamped with its leader epoch; a leader
//!    alone in its ISR moves its HW to its log end at once ([`high_watermark`]).
//! 3. **fetch**: one round — the leader reads its HW, records the follower's fetch offset and
//!    recomputes its HW, returns whole batches and the HW it read first; so the follower's HW
//!    lags by one round trip ([`fetch`], [`fencing`], [`high_watermark`]).
//! 4. **crash**: volatile state lost, optional damage ([`crate::crash`]).
//! 5. **recover** (local): a broker's start-up recovery ([`crate::log::recovery`]).
//! 6. **recover --leader**: a restart as the leader's follower — local recovery, fencing, then
//!    truncation by the era's mode ([`follower`], [`truncation`]: hw, kip101, kip279) and the
//!    fate of each record ([`classify`]: what the report calls things).

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
pub mod release;
pub mod storage;
pub mod tiered_follower;
pub mod truncation;
pub mod zk_controller;
