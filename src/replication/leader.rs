//! Becoming a leader (Kafka `Partition.makeLeader`), written once for `klog elect` and the
//! explorer. The epoch itself is chosen by [`super::election`]; this applies it.

use super::fetch::leader_high_watermark;
use super::storage::Storage;
use crate::error::Result;

/// Run `replica` (started) as leader at `leader_epoch` with `isr` (the leader itself not in it).
/// The epoch is durable before anything is stamped with it. From Kafka 2.1 (KAFKA-7415,
/// `entry_on_election`) the new epoch gets its cache entry at the log end now; before, with the
/// first batch appended in it. With the leader alone in its ISR the HW follows the LEO at once;
/// ISR members that have not fetched since the election hold it where it is. Returns the entry
/// assigned, if any.
pub fn become_leader<S: Storage>(
    replica: &mut S,
    leader_epoch: i32,
    isr: Vec<S::Member>,
    entry_on_election: bool,
) -> Result<Option<(i32, i64)>> {
    let leo = replica.log_end_offset();
    replica.set_leader(leader_epoch, isr);
    replica.save()?;
    let entry = if entry_on_election {
        replica.assign_epoch(leader_epoch, leo)?;
        Some((leader_epoch, leo))
    } else {
        None
    };
    let hw = leader_high_watermark(replica);
    replica.set_high_watermark(hw)?;
    Ok(entry)
}
