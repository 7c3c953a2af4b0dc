//! Becoming a leader (Kafka `Partition.makeLeader`), written once for `klog elect` and the
//! explorer. The epoch itself is chosen by [`super::election`]; this applies it.

use super::fetch::leader_high_watermark;
use super::release::Rules;
use super::storage::Storage;
use crate::error::Result;
use crate::log::epoch_cache::EpochCache;

/// Run `replica` (started) as leader at `leader_epoch` with `isr` (the leader itself not in it).
/// The epoch is durable before anything is stamped with it. From Kafka 2.0.1 (KAFKA-7415,
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

/// A replica the operator names the leader (`recover --leader` with a broker's dir, whose
/// leadership klog assumes) runs as leader at `leader_epoch` with `isr`, the epoch seen and
/// saved. Unlike [`become_leader`], its epoch cache and HW stay as the broker left them: Kafka's
/// `makeLeader` would stamp the epoch and move the HW over an ISR klog does not know, and
/// `recover` has never claimed either for a broker's dir (the plan reads the stamped entry
/// through [`epochs_when_leading`] without writing it).
pub fn assume_leadership<S: Storage>(replica: &mut S, leader_epoch: i32, isr: Vec<S::Member>) -> Result<()> {
    replica.set_leader(leader_epoch, isr);
    replica.note_epoch_seen(leader_epoch)?;
    replica.save()
}

/// A running leader's ISR changes to `isr` (its AlterPartition accepted, or the controller's
/// record of a fenced member: Kafka `Partition.maybeShrinkIsr` / `maybeExpandIsr`, then
/// `maybeIncrementLeaderHW`): saved, then the HW recomputed over the new ISR. Returns the HW.
pub fn alter_isr<S: Storage>(replica: &mut S, isr: Vec<S::Member>) -> Result<i64> {
    replica.set_isr(isr);
    replica.save()?;
    let hw = leader_high_watermark(replica);
    replica.set_high_watermark(hw)?;
    Ok(hw)
}

/// A leader's epoch cache while it leads at `leader_epoch` with log end `leo`, when the epoch it
/// is known to lead at (its running state, else its latest cached epoch) is `known_epoch`: from
/// 2.0.1 a leader stamps a newer epoch at its log end when it takes over (`Partition.makeLeader`);
/// before (up to 2.0.0) the entry waits for the first append.
pub fn epochs_when_leading(
    cache: &EpochCache,
    leo: i64,
    leader_epoch: i32,
    known_epoch: i32,
    rules: &Rules,
) -> EpochCache {
    let mut epochs = cache.clone();
    if rules.epoch_entry_on_election && leader_epoch > known_epoch {
        epochs.assign(leader_epoch, leo);
    }
    epochs
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::log::epoch_cache::EpochEntry;
    use crate::replication::release::Release;

    /// core/src/main/scala/kafka/cluster/Partition.scala, `makeLeader`, 2.0.1 and 2.1.0
    /// (KAFKA-7415): `epochCache.assign(leaderEpoch, leaderEpochStartOffset)`; 2.0.0 assigns it
    /// on the first append (`Log.appendAsLeader`).
    #[test]
    fn a_leader_leading_at_a_new_epoch_starts_it_at_its_log_end_from_2_0_1() {
        let cache = EpochCache::from_entries([EpochEntry { leader_epoch: 0, start_offset: 0 }]);
        let r201 = Release::parse("2.0.1").unwrap().rules();
        assert_eq!(epochs_when_leading(&cache, 5, 3, 0, &r201).latest_epoch(), Some(3));
        let r21 = Release::parse("2.1.0").unwrap().rules();
        let r20 = Release::parse("2.0.0").unwrap().rules();
        let stamped = epochs_when_leading(&cache, 5, 3, 0, &r21);
        assert_eq!(stamped.latest(), Some(EpochEntry { leader_epoch: 3, start_offset: 5 }));
        assert_eq!(epochs_when_leading(&cache, 5, 3, 0, &r20).latest_epoch(), Some(0));
        assert_eq!(epochs_when_leading(&cache, 5, 3, 3, &r21).latest_epoch(), Some(0), "it already leads at 3");
    }
}
