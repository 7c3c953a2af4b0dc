//! A follower's restart below a tiered leader's local log start, as `recover` writes it: the
//! OFFSET_MOVED_TO_TIERED_STORAGE answer and the remote log auxiliary state it builds, step by
//! step ([`crate::tiered::aux_state`]); and its JSON.

use super::epoch_cache;
use super::palette::Palette;
use crate::error::Result;
use crate::log::epoch_cache::EpochCache;
use crate::tiered::aux_state::AuxState;
use serde::Serialize;
use std::io::Write;

fn cache(c: &EpochCache) -> String {
    epoch_cache::entries(c.entries().iter().map(|e| (e.leader_epoch, e.start_offset)))
}

/// The epoch cache the follower takes, and where it comes from.
fn taken_epochs<'a>(aux: &'a AuxState, after: &'a EpochCache) -> (&'a EpochCache, &'static str) {
    match aux.source.as_ref().and_then(|s| s.epochs.as_ref()) {
        Some(e) => (e, "the remote segment's .leader_epoch_checkpoint"),
        None => (after, "the leader's own cache up to the restart (give --remote-dir to read the segment's file)"),
    }
}

pub fn text(out: &mut dyn Write, p: &Palette, aux: &AuxState, fetch_offset: i64, after: &EpochCache) -> Result<()> {
    let local = aux.leader_local_log_start_offset;
    out!(
        out,
        "  {} the leader keeps offsets {}..{} in remote storage only (log start {}, local log start {local}): the \
         follower's fetch at {fetch_offset} is answered OFFSET_MOVED_TO_TIERED_STORAGE{}, and it builds its state \
         from remote (Kafka 3.6+, buildRemoteLogAuxState):",
        p.warn("moved to tiered storage:"),
        aux.log_start_offset,
        local - 1,
        aux.log_start_offset,
        if fetch_offset < aux.log_start_offset {
            format!(" once it restarts at the log start {} (its fetch below it is out of range)", aux.log_start_offset)
        } else {
            String::new()
        }
    )?;
    let epoch = aux.epoch_at_local_start.map_or("none".to_string(), |e| e.to_string());
    out!(out, "    1. the leader's earliest local offset (ListOffsets -4): {local}, epoch {epoch}")?;
    let step2 = if aux.asked_earlier_epoch {
        format!(
            "asked the leader's end offset for the epoch below (OffsetsForLeaderEpoch): offset {} is in epoch {}",
            local - 1,
            aux.target_epoch
        )
    } else {
        format!("epoch 0 holds offset {} too (no question)", local - 1)
    };
    out!(out, "    2. {step2}")?;
    match (&aux.source, aux.next_offset) {
        (Some(s), Some(next)) => {
            out!(
                out,
                "    3. remote segment {} (offsets {}..{}) holds offset {} in epoch {}",
                s.segment_id,
                s.start_offset,
                s.end_offset,
                local - 1,
                aux.target_epoch
            )?;
            let (epochs, from) = taken_epochs(aux, after);
            out!(
                out,
                "    4. it deletes its whole log and starts at {next}, log start {}; epoch cache {} from {from}; \
                 producer state from the segment's producer snapshot ({next:020}.snapshot)",
                aux.log_start_offset,
                cache(epochs)
            )?;
            out!(out, "    5. it fetches from {next}")
        }
        _ => out!(
            out,
            "    3. {} no remote segment holds offset {} in epoch {}: RemoteStorageException; the follower builds \
             nothing, cuts nothing and retries",
            p.bad("stuck:"),
            local - 1,
            aux.target_epoch
        ),
    }
}

#[derive(Serialize)]
pub struct AuxStateWire {
    leader_log_start_offset: i64,
    leader_local_log_start_offset: i64,
    epoch_at_local_start: Option<i32>,
    target_epoch: i32,
    asked_earlier_epoch: bool,
    segment_id: Option<String>,
    segment_start_offset: Option<i64>,
    segment_end_offset: Option<i64>,
    next_offset: Option<i64>,
    epochs: Vec<super::json::EpochStart>,
    epochs_from: &'static str,
}

pub fn wire(aux: &AuxState, after: &EpochCache) -> AuxStateWire {
    let (epochs, from) = match aux.source.as_ref().and_then(|s| s.epochs.as_ref()) {
        Some(e) => (e, "remote_checkpoint"),
        None => (after, "leader_cache"),
    };
    AuxStateWire {
        leader_log_start_offset: aux.log_start_offset,
        leader_local_log_start_offset: aux.leader_local_log_start_offset,
        epoch_at_local_start: aux.epoch_at_local_start,
        target_epoch: aux.target_epoch,
        asked_earlier_epoch: aux.asked_earlier_epoch,
        segment_id: aux.source.as_ref().map(|s| s.segment_id.clone()),
        segment_start_offset: aux.source.as_ref().map(|s| s.start_offset),
        segment_end_offset: aux.source.as_ref().map(|s| s.end_offset),
        next_offset: aux.next_offset,
        epochs: epochs
            .entries()
            .iter()
            .map(|e| super::json::EpochStart { leader_epoch: e.leader_epoch, start_offset: e.start_offset })
            .collect(),
        epochs_from: if aux.next_offset.is_some() { from } else { "none" },
    }
}
