//! `klog explore`'s engine: a breadth-first search over histories of klog commands run in
//! memory with klog's own replication rules, for the shortest one that loses an acked record or
//! leaves two replicas diverged below their high watermarks.
//!
//! [`model`] is the lab (replicas as small values, actions that mirror the commands and call the
//! same pure rules), [`canon`] the canonical form that lets equivalent histories be explored
//! once, [`search`] the parallel breadth-first search, [`witness`] the `recover` that shows a
//! violation in its report and [`script`] the history as a runnable script. Nothing here does
//! I/O or prints.

mod acked_label;
pub mod canon;
pub mod model;
mod past_end;
pub mod script;
pub mod search;
pub mod tier;
mod told_first;
pub mod witness;
