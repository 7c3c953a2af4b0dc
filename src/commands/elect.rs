//! `klog elect`: a replica becomes leader (replication-model.md, operation 1;
//! Kafka `Partition.makeLeader`).

use crate::error::{Error, Result};
use crate::log::recovery::RecoveryReport;
use crate::replica::{IsrMember, Replica, Role, VolatileState};
use std::collections::BTreeMap;
use std::path::PathBuf;

/// When the new leader's epoch cache gets the new epoch's entry.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EpochEntryMode {
    /// Kafka >= 2.1 (KAFKA-7415): (epoch, LEO) at election.
    OnElection,
    /// Kafka 0.11-2.0: the entry appears with the first batch appended in the epoch.
    FirstAppend,
}

pub struct ElectRequest<'a> {
    pub dir: &'a std::path::Path,
    pub partition: Option<&'a str>,
    pub epoch: Option<i32>,
    pub isr: &'a [PathBuf],
    pub epoch_entry: EpochEntryMode,
}

#[derive(Debug)]
pub struct ElectReport {
    pub replica: String,
    pub leader_epoch: i32,
    pub previous_epoch: Option<i32>,
    pub isr: Vec<String>,
    pub log_end_offset: i64,
    pub high_watermark: i64,
    /// The (epoch, start offset) entry assigned at election, if any.
    pub epoch_entry: Option<(i32, i64)>,
    pub startup: Option<RecoveryReport>,
}

pub fn run(req: &ElectRequest<'_>) -> Result<ElectReport> {
    // Validate the ISR before touching the leader.
    let leader_paths = crate::replica::resolve(req.dir, req.partition)?;
    let mut isr = Vec::new();
    for dir in req.isr {
        let member = Replica::open(dir, Some(&leader_paths.name())).or_else(|_| Replica::open(dir, None))?;
        if member.paths.topic != leader_paths.topic || member.paths.partition != leader_paths.partition {
            return Err(Error::layout(
                dir,
                format!("holds partition {} but the leader holds {}", member.paths.name(), leader_paths.name()),
            ));
        }
        let id = member.identity();
        if std::fs::canonicalize(&leader_paths.log_dir).ok().as_ref() == Some(&id) {
            continue; // the leader is always in its ISR
        }
        if !isr.iter().any(|m: &IsrMember| m.dir == id) {
            isr.push(IsrMember { dir: id, replica_id: member.replica_id });
        }
    }
    let (mut replica, startup) = Replica::open_mut(req.dir, req.partition)?;
    let largest = replica.largest_known_epoch();
    let epoch = match req.epoch {
        Some(e) if e < 0 => return Err(Error::Usage(format!("invalid --epoch {e}: must be >= 0"))),
        Some(e) if largest.is_some_and(|l| e <= l) => {
            return Err(Error::state(
                &replica.paths.log_dir,
                format!(
                    "--epoch {e} is not above the largest leader epoch this replica has seen ({})",
                    largest.unwrap_or(-1)
                ),
            ))
        }
        Some(e) => e,
        None => largest.map_or(0, |l| l + 1),
    };
    let leo = replica.log_end_offset();
    let epoch_entry = match req.epoch_entry {
        EpochEntryMode::OnElection => {
            replica.log.update_epoch_cache(|c| c.assign(epoch, leo))?;
            Some((epoch, leo))
        }
        EpochEntryMode::FirstAppend => None,
    };
    let isr_names = isr.iter().map(|m| m.dir.display().to_string()).collect();
    replica.state = Some(VolatileState {
        role: Role::Leader,
        leader_epoch: epoch,
        leader: None,
        isr,
        follower_fetch_offsets: BTreeMap::new(),
    });
    // With the leader alone in the ISR the HW follows the LEO at once.
    if replica.state.as_ref().is_some_and(|s| s.isr.is_empty()) && leo > replica.high_watermark {
        replica.set_high_watermark(leo)?;
    }
    replica.save_state()?;
    Ok(ElectReport {
        replica: replica.paths.log_dir.display().to_string(),
        leader_epoch: epoch,
        previous_epoch: largest,
        isr: isr_names,
        log_end_offset: leo,
        high_watermark: replica.high_watermark,
        epoch_entry,
        startup,
    })
}
