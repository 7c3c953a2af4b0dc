//! `klog alter-isr`: a running leader's ISR changes without a new epoch — its AlterPartition
//! shrinking the ISR (a follower not caught up) or expanding it (one caught up), accepted by the
//! controller; or the controller's record of a fenced member reaching the leader (Kafka
//! `Partition.maybeShrinkIsr` / `maybeExpandIsr`, then `maybeIncrementLeaderHW`). The HW is
//! recomputed over the new ISR ([`leader::alter_isr`]).

use crate::error::{Error, Result};
use crate::replica::{Replica, Role};
use crate::replication::isr_members;
use crate::replication::leader;
use std::path::PathBuf;

pub struct AlterIsrRequest<'a> {
    pub dir: &'a std::path::Path,
    pub partition: Option<&'a str>,
    /// The new ISR's followers (their log dirs); the leader is always in it.
    pub isr: &'a [PathBuf],
    /// `--allow-other-cluster`: members whose dirs do not say they are brokers of the leader's
    /// cluster are taken anyway.
    pub allow_other_cluster: bool,
}

#[derive(Debug)]
pub struct AlterIsrReport {
    pub replica: String,
    pub leader_epoch: i32,
    pub previous_isr: Vec<String>,
    pub isr: Vec<String>,
    pub high_watermark_before: i64,
    pub high_watermark: i64,
}

pub fn run(req: &AlterIsrRequest<'_>) -> Result<AlterIsrReport> {
    let mut replica = Replica::open_for_write(req.dir, req.partition)?;
    let Some(state) = replica.state().filter(|s| s.role == Role::Leader).cloned() else {
        return Err(Error::state(
            &replica.paths().log_dir,
            format!(
                "is not running as a leader: only a leader changes its ISR; make it one with `klog elect {}`",
                req.dir.display()
            ),
        ));
    };
    let (members, _) = isr_members::members(&replica, req.isr, req.partition, None, req.allow_other_cluster)?;
    let names = |m: &[crate::replica::IsrMember]| m.iter().map(|m| m.dir.display().to_string()).collect();
    let previous_isr = names(&state.isr);
    let isr = names(&members);
    let high_watermark_before = replica.high_watermark();
    let high_watermark = leader::alter_isr(&mut replica, members)?;
    Ok(AlterIsrReport {
        replica: replica.paths().log_dir.display().to_string(),
        leader_epoch: state.leader_epoch,
        previous_isr,
        isr,
        high_watermark_before,
        high_watermark,
    })
}
