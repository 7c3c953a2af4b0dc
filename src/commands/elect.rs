//! `klog elect`: a replica becomes leader ([the model](crate::replication), operation 1;
//! Kafka `Partition.makeLeader`).

use crate::error::{Error, Result};
use crate::log::recovery::RecoveryReport;
use crate::replica::Replica;
use crate::replication::election::{next_leader_epoch, ElectionRefusal};
use crate::replication::leader;
use std::path::PathBuf;

/// When the new leader's epoch cache gets the new epoch's entry.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EpochEntryMode {
    /// Kafka >= 2.0.1 (KAFKA-7415): (epoch, LEO) at election.
    OnElection,
    /// Kafka 0.11-2.0.0: the entry appears with the first batch appended in the epoch.
    FirstAppend,
}

pub struct ElectRequest<'a> {
    pub dir: &'a std::path::Path,
    pub partition: Option<&'a str>,
    pub epoch: Option<i32>,
    pub isr: &'a [PathBuf],
    pub epoch_entry: EpochEntryMode,
    /// `--allow-other-cluster`: ISR members whose dirs do not say they are brokers of the
    /// leader's cluster are taken anyway.
    pub allow_other_cluster: bool,
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

impl ElectReport {
    /// The election as it ran (`demo --explain`, the capture's code panel).
    pub fn explanation(&self) -> crate::replication::explain::Explanation {
        crate::replication::explain::explain_election(&crate::replication::explain::ElectionFacts {
            leader_epoch: self.leader_epoch,
            isr: self.isr.len(),
            log_end_offset: self.log_end_offset,
            epoch_entry: self.epoch_entry,
            high_watermark: self.high_watermark,
        })
    }
}

pub fn run(req: &ElectRequest<'_>) -> Result<ElectReport> {
    let mut replica = Replica::open_for_write(req.dir, req.partition)?;
    // The ISR members: replicas of the same partition, each distinct from the leader and from
    // each other. Epochs they have seen count too: an election never reissues one.
    let (isr, members_largest) =
        crate::replication::isr_members::members(&replica, req.isr, req.partition, req.epoch, req.allow_other_cluster)?;
    let mut largest = replica.largest_known_epoch();
    let mut largest_from = None;
    if let Some((e, dir)) = members_largest.filter(|(e, _)| largest.is_none_or(|l| *e > l)) {
        largest = Some(e);
        largest_from = Some(dir);
    }
    let seen_by = |l: i32| match &largest_from {
        Some(m) => format!("the largest leader epoch {m} has seen ({l})"),
        None => format!("the largest leader epoch this replica has seen ({l})"),
    };
    let epoch = match next_leader_epoch(req.epoch, largest) {
        Ok(e) => e,
        Err(ElectionRefusal::Negative(e)) => return Err(Error::Usage(format!("invalid --epoch {e}: must be >= 0"))),
        Err(ElectionRefusal::NotAbove { requested, largest_seen }) => {
            return Err(Error::state(
                &replica.paths().log_dir,
                format!(
                    "--epoch {requested} is not above {}: give --epoch {} or above, or leave --epoch out",
                    seen_by(largest_seen),
                    largest_seen.saturating_add(1)
                ),
            ))
        }
        Err(ElectionRefusal::Exhausted) => {
            return Err(Error::state(
                &replica.paths().log_dir,
                format!(
                    "no further election is possible: leader epochs are 32-bit and {} is the largest",
                    seen_by(i32::MAX)
                ),
            ))
        }
    };
    let startup = replica.start()?;
    let leo = replica.log_end_offset();
    let isr_names = isr.iter().map(|m| m.dir.display().to_string()).collect();
    let on_election = req.epoch_entry == EpochEntryMode::OnElection;
    let epoch_entry = leader::become_leader(&mut replica, epoch, isr, on_election)?;
    Ok(ElectReport {
        replica: replica.paths().log_dir.display().to_string(),
        leader_epoch: epoch,
        previous_epoch: largest,
        isr: isr_names,
        log_end_offset: leo,
        high_watermark: replica.high_watermark(),
        epoch_entry,
        startup,
    })
}
