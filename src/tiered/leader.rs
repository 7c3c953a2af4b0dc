//! A leader replica with remote storage, as `recover --leader` plans against it: its log start
//! across the tiers (its `log-start-offset-checkpoint` entry below its first local segment, as
//! Kafka 4.4 writes it for a log with remote storage enabled), its local log start, and the
//! remote log auxiliary state a follower below that local start builds
//! ([`super::aux_state`]), with the remote segment found by epoch in the `__remote_log_metadata`
//! the given data dirs hold and its `.leader_epoch_checkpoint` read from a LocalTieredStorage
//! dir when one is given. Reads only.

use super::aux_state::{self, LeaderTier, RemoteSource, TieredLeader};
use super::local_tiered_storage::{file_name, storage_root, LEADER_EPOCH_CHECKPOINT_SUFFIX};
use super::metadata_topic::read_remote_metadata;
use crate::error::{Error, Result};
use crate::log::checkpoint::read_epoch_checkpoint;
use crate::log::epoch_cache::{EpochCache, EpochEntry};
use crate::replica::Replica;
use std::path::{Path, PathBuf};

/// The leader's tier, or `None` when its log start is not below its first segment or no
/// `__remote_log_metadata` among `data_dirs` holds remote segments of the partition (see
/// [`missing_metadata`]).
pub fn tiered_leader(
    leader: &Replica,
    data_dirs: &[PathBuf],
    remote_dir: Option<&Path>,
) -> Result<Option<TieredLeader>> {
    let Some(log_start_offset) = leader.log_start_offset_below_local() else { return Ok(None) };
    let tier = LeaderTier { log_start_offset, local_log_start_offset: leader.log_start_offset() };
    let name = leader.paths();
    let metadata = read_remote_metadata(data_dirs)?;
    let found =
        metadata.fold.partitions.iter().find(|(tp, _)| tp.topic == name.topic && tp.partition == name.partition);
    let Some((tp, remote)) = found else { return Ok(None) };
    // A tiered lab records its remote dir (`klog create --remote-dir`).
    let recorded = match remote_dir {
        Some(_) => None,
        None => super::lab::remote_dir_of(&leader.paths().log_dir, None)?,
    };
    let root = remote_dir.or(recorded.as_deref()).map(storage_root).transpose()?;
    let lookup = |epoch: i32, offset: i64| -> Option<RemoteSource> {
        let s = remote.segment_for(epoch, offset)?;
        let epochs = root.as_ref().and_then(|root| {
            let dir = root.join(format!("{}-{}", tp.dir_name(), tp.topic_id_text()));
            let path = dir.join(file_name(s.start_offset, &s.segment_id, LEADER_EPOCH_CHECKPOINT_SUFFIX));
            let entries = read_epoch_checkpoint(&path).ok()?;
            Some(EpochCache::from_entries(
                entries.into_iter().map(|(leader_epoch, start_offset)| EpochEntry { leader_epoch, start_offset }),
            ))
        });
        Some(RemoteSource {
            segment_id: s.segment_id_text(),
            start_offset: s.start_offset,
            end_offset: s.end_offset,
            epochs,
        })
    };
    let aux = aux_state::build(tier, leader.log().epoch_cache(), leader.log_end_offset(), lookup);
    Ok(Some(TieredLeader { tier, aux }))
}

/// The error for a leader whose topic has `remote.storage.enable=true` in the KRaft metadata
/// but whose remote segments are in none of the given dirs: a follower below its local log start
/// rebuilds from them, so the restart cannot be planned.
pub fn missing_metadata(leader: &Replica) -> Error {
    Error::state(
        &leader.paths().partition_dir,
        format!(
            "has remote storage (remote.storage.enable=true in the KRaft metadata; local log start {}) but no \
             __remote_log_metadata among the given dirs holds its remote segments: give a data dir that holds them",
            leader.log_start_offset()
        ),
    )
}
