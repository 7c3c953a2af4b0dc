//! The stuck-lso scene's own steps the page offers after its preset: `klog txn`, the
//! coordinator's timeout, the admin abort and the producer's own end, each as the marker the
//! broker would write.

use super::*;

/// A step of the stuck-lso scene the page offers ([`Session::act_txn`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TxnAct {
    /// `klog txn` on the leader.
    Txn,
    /// `transaction.timeout.ms` passes: the coordinator aborts the transaction holding the LSO
    /// if it knows it (it bumps the producer's epoch and writes the ABORT marker with its own
    /// coordinator epoch), and does nothing for one it does not know (the hanging shape).
    CoordinatorTimeout,
    /// `kafka-transactions.sh abort --start-offset N` for the transaction holding the LSO, as
    /// the broker carries it out ([`stuck_lso::abort_spec`]): its ABORT marker.
    AdminAbort,
    /// Its producer ends it: the COMMIT or ABORT marker its coordinator writes.
    ProducerEnds { commit: bool },
}

/// The coordinator epoch of producer 1000's coordinator in the demo's story (the epoch of its
/// `__transaction_state` partition's leader).
pub(super) const COORDINATOR_EPOCH: i32 = 3;
/// The producer whose transactions the coordinator of the demo's story knows (transactional.id
/// `payments`): its timeout ends them. Any other producer's transaction is one it never saw.
pub(super) const COORDINATOR_KNOWS_PRODUCER: i64 = 1000;
/// The markers' timestamps: the producer's own end right after its records, the coordinator's
/// timeout abort and the admin abort as the demo's (after transaction.timeout.ms has passed).
pub(super) const PRODUCER_END_TIMESTAMP_MS: i64 = 4000;
pub(super) const TIMEOUT_ABORT_TIMESTAMP_MS: i64 = 63000;
pub(super) const ADMIN_ABORT_TIMESTAMP_MS: i64 = 66000;

impl Session {
    /// Run one of the stuck-lso scene's own steps after the viewed frame (which must show
    /// transactions), on its leader: `klog txn`, or a marker ending the transaction that holds
    /// the LSO. Forks as [`Session::act`] does.
    pub fn act_txn(&mut self, act: TxnAct) -> Result<()> {
        let t = self.frame().txn.as_ref().ok_or_else(|| {
            Error::Usage("lab: this branch has no transactions; start the stuck-lso preset first".into())
        })?;
        let dir = format!("\"$LAB/{}\"", t.replica);
        let open = || {
            t.abort.as_ref().ok_or_else(|| {
                Error::Usage(format!(
                    "lab: no transaction is open on {} at this frame: nothing holds its LSO to end",
                    t.replica
                ))
            })
        };
        let step = match act {
            TxnAct::Txn => LineStep { line: format!("klog txn {dir}"), kind: LineKind::Txn, note: None },
            TxnAct::CoordinatorTimeout => timeout_abort(&dir, open()?)?,
            TxnAct::AdminAbort => admin_abort(&dir, open()?),
            TxnAct::ProducerEnds { commit } => producer_end(&dir, open()?, commit),
        };
        self.act(LabStep::Line(step))
    }
}

/// `transaction.timeout.ms` passes: the ABORT marker the coordinator writes for a transaction
/// it knows; refused for one it does not know (its timeout writes nothing: the hanging shape).
fn timeout_abort(dir: &str, spec: &AbortSpec) -> Result<LineStep> {
    if spec.producer_id != COORDINATOR_KNOWS_PRODUCER {
        return Err(Error::Usage(format!(
            "lab: the coordinator has no ongoing transaction for producer {}: its timeout writes no \
             marker and the LSO stays at {} (the hanging shape: the admin abort is for it)",
            spec.producer_id, spec.start_offset
        )));
    }
    // The coordinator fences the dead process (epoch + 1) and writes the marker with its own
    // coordinator epoch, never below the producer's last one.
    let producer_epoch = spec.producer_epoch + 1;
    let coordinator_epoch = COORDINATOR_EPOCH.max(spec.described_coordinator_epoch);
    Ok(LineStep {
        line: commands::demo::end_txn_command(
            dir,
            spec.producer_id,
            producer_epoch,
            coordinator_epoch,
            false,
            TIMEOUT_ABORT_TIMESTAMP_MS,
        ),
        kind: LineKind::Marker { commit: false },
        note: Some(format!(
            "transaction.timeout.ms passes (60 s by default): producer {}'s transaction from offset {} \
             is one its coordinator knows, so the coordinator bumps the producer's epoch to \
             {producer_epoch}, fencing the dead process, and writes an ABORT marker with its coordinator \
             epoch {coordinator_epoch}. No admin action is needed.",
            spec.producer_id, spec.start_offset
        )),
    })
}

/// `kafka-transactions.sh abort`, as the broker carries it out: its ABORT marker.
fn admin_abort(dir: &str, spec: &AbortSpec) -> LineStep {
    LineStep {
        line: commands::demo::end_txn_command(
            dir,
            spec.producer_id,
            spec.producer_epoch,
            spec.coordinator_epoch,
            false,
            ADMIN_ABORT_TIMESTAMP_MS,
        ),
        kind: LineKind::Marker { commit: false },
        note: Some(crate::output::demo::admin_abort_text(spec)),
    }
}

/// The producer ends its transaction: the COMMIT or ABORT marker its coordinator writes.
fn producer_end(dir: &str, spec: &AbortSpec, commit: bool) -> LineStep {
    // The coordinator writes the marker with its own epoch, never below the one the producer's
    // last marker carried (the broker refuses a lower one).
    let coordinator_epoch = COORDINATOR_EPOCH.max(spec.described_coordinator_epoch);
    let (verb, marker) = if commit { ("commits", "COMMIT") } else { ("aborts", "ABORT") };
    LineStep {
        line: commands::demo::end_txn_command(
            dir,
            spec.producer_id,
            spec.producer_epoch,
            coordinator_epoch,
            commit,
            PRODUCER_END_TIMESTAMP_MS,
        ),
        kind: LineKind::Marker { commit },
        note: Some(format!(
            "Producer {} (epoch {}) {verb} its transaction from offset {} (had it lived): its \
             transaction coordinator writes the {marker} marker with its coordinator epoch \
             {coordinator_epoch}.",
            spec.producer_id, spec.producer_epoch, spec.start_offset
        )),
    }
}
