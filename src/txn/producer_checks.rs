//! What a Kafka leader refuses of a producer's request, before it writes a byte of it (Kafka
//! 4.4.0: `UnifiedLog.analyzeAndValidateProducerState`, then `ProducerAppendInfo` with origin
//! CLIENT for a producer's batches and COORDINATOR for a transaction marker):
//!
//! - a retry of one of the producer's last five batches (same epoch, same first and last
//!   sequence) is a duplicate: nothing is written and the leader answers with the original
//!   batch's offsets, without an error (`UnifiedLog.java:1415-1420` finds it,
//!   `UnifiedLog.java:1261-1269` returns its offsets; `ProducerStateEntry.java:129-136`);
//! - an epoch older than the producer's is INVALID_PRODUCER_EPOCH
//!   (`ProducerAppendInfo.checkProducerEpoch`, `ProducerAppendInfo.java:119-151`; a marker is
//!   checked the same way under transaction version 1, which klog's markers are);
//! - a first sequence that does not follow the producer's last one (same epoch), or is not 0
//!   for a new epoch, is OUT_OF_ORDER_SEQUENCE_NUMBER (`checkSequence`,
//!   `ProducerAppendInfo.java:169-189`); a producer the leader does not know may start anywhere;
//! - a non-transactional batch while the producer's transaction is open is INVALID_TXN_STATE
//!   (`appendDataBatch`);
//! - a marker whose coordinator epoch is older than the last one the producer's markers carried
//!   is TRANSACTION_COORDINATOR_FENCED (`checkCoordinatorEpoch`, `ProducerAppendInfo.java:247-252`).
//!
//! Pure: the producer's state in, a verdict out. Nothing here reads, writes or prints.

use crate::format::producer_snapshot::ProducerEntry;
use crate::log::producer_state::{increment_sequence, ProducerReplay};

/// A refusal: Kafka's error code name (what the producer's response carries), the exception
/// the leader throws, and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Refusal {
    pub error: &'static str,
    pub exception: &'static str,
    pub what: String,
}

impl std::fmt::Display for Refusal {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {} (Kafka's leader refuses it: {}); nothing written", self.error, self.what, self.exception)
    }
}

/// What the leader does with a producer's data batch.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DataVerdict {
    Append,
    /// A retry of the batch at these offsets (first, last): nothing is written.
    Duplicate(i64, i64),
}

fn entry(state: &ProducerReplay, producer_id: i64) -> Option<ProducerEntry> {
    state.producers().into_iter().find(|e| e.producer_id == producer_id)
}

fn epoch_refusal(producer_id: i64, producer_epoch: i16, current: i16) -> Refusal {
    Refusal {
        error: "INVALID_PRODUCER_EPOCH",
        exception: "InvalidProducerEpochException",
        what: format!(
            "producer {producer_id}'s epoch {producer_epoch} is smaller than the last seen epoch {current} (give \
             --producer-epoch {current} or above)"
        ),
    }
}

/// The first batch of a producer's request: epoch `producer_epoch`, sequences `first_sequence`
/// to that plus `record_count - 1` (wrapping as Kafka's do), transactional or not.
pub fn check_data(
    state: &ProducerReplay,
    producer_id: i64,
    producer_epoch: i16,
    first_sequence: i32,
    record_count: i32,
    transactional: bool,
) -> Result<DataVerdict, Refusal> {
    let last_sequence = increment_sequence(first_sequence, record_count.saturating_sub(1));
    if let Some((first, last)) = state.duplicate_batch(producer_id, producer_epoch, first_sequence, last_sequence) {
        return Ok(DataVerdict::Duplicate(first, last));
    }
    let Some(e) = entry(state, producer_id) else { return Ok(DataVerdict::Append) };
    if producer_epoch < e.producer_epoch {
        return Err(epoch_refusal(producer_id, producer_epoch, e.producer_epoch));
    }
    let out_of_order = |what: String| Refusal {
        error: "OUT_OF_ORDER_SEQUENCE_NUMBER",
        exception: "OutOfOrderSequenceException",
        what,
    };
    if producer_epoch != e.producer_epoch {
        if first_sequence != 0 && e.producer_epoch != -1 {
            return Err(out_of_order(format!(
                "a new epoch {producer_epoch} of producer {producer_id} (its last was {}) must start at sequence 0, \
                 not {first_sequence}",
                e.producer_epoch
            )));
        }
    } else {
        let last = e.last_sequence;
        let in_sequence = i64::from(first_sequence) == i64::from(last) + 1 || (first_sequence == 0 && last == i32::MAX);
        if !in_sequence {
            return Err(out_of_order(format!(
                "producer {producer_id} (epoch {producer_epoch}) sent sequence {first_sequence}, but its last \
                 sequence is {last}: the next one is {}",
                if last < 0 { 0 } else { increment_sequence(last, 1) }
            )));
        }
    }
    if e.current_txn_first_offset >= 0 && !transactional {
        return Err(Refusal {
            error: "INVALID_TXN_STATE",
            exception: "InvalidTxnStateException",
            what: format!(
                "producer {producer_id} has a transaction open (from offset {}): a non-transactional write from it \
                 (pass --transactional, or end it with --end-txn)",
                e.current_txn_first_offset
            ),
        });
    }
    Ok(DataVerdict::Append)
}

/// A COMMIT or ABORT marker of `producer_id` at `producer_epoch`, carrying `coordinator_epoch`.
pub fn check_marker(
    state: &ProducerReplay,
    producer_id: i64,
    producer_epoch: i16,
    coordinator_epoch: i32,
) -> Result<(), Refusal> {
    let Some(e) = entry(state, producer_id) else { return Ok(()) };
    if producer_epoch < e.producer_epoch {
        return Err(epoch_refusal(producer_id, producer_epoch, e.producer_epoch));
    }
    if e.coordinator_epoch > coordinator_epoch {
        return Err(Refusal {
            error: "TRANSACTION_COORDINATOR_FENCED",
            exception: "TransactionCoordinatorFencedException",
            what: format!(
                "the marker's coordinator epoch {coordinator_epoch} is older than producer {producer_id}'s last, \
                 {} (give --coordinator-epoch {} or above)",
                e.coordinator_epoch, e.coordinator_epoch
            ),
        });
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::format::batch::{encode_batch, BatchIter, BatchSpec};
    use crate::format::control::EndTxnBatch;
    use crate::format::record::NewRecord;

    fn replay(batches: &[Vec<u8>]) -> ProducerReplay {
        let mut r = ProducerReplay::new();
        for b in batches {
            r.apply(&BatchIter::new(b).next().unwrap()).unwrap();
        }
        r
    }

    fn data(offset: i64, epoch: i16, sequence: i32, records: usize, transactional: bool) -> Vec<u8> {
        let spec = BatchSpec {
            producer_id: 7,
            producer_epoch: epoch,
            base_sequence: sequence,
            is_transactional: transactional,
            ..BatchSpec::plain(offset, 0)
        };
        let r = NewRecord { timestamp: 1, key: None, value: Some(b"v".to_vec()), headers: vec![] };
        encode_batch(&spec, &vec![r; records])
    }

    fn marker(offset: i64, epoch: i16, coordinator_epoch: i32) -> Vec<u8> {
        EndTxnBatch {
            producer_id: 7,
            producer_epoch: epoch,
            base_offset: offset,
            leader_epoch: 0,
            commit: true,
            coordinator_epoch,
            timestamp: 1,
        }
        .encode()
    }

    #[test]
    fn a_retry_of_a_retained_batch_is_a_duplicate_and_a_gap_or_overlap_is_out_of_order() {
        let r = replay(&[data(0, 0, 0, 3, false), data(3, 0, 3, 2, false)]);
        assert_eq!(check_data(&r, 7, 0, 5, 1, false), Ok(DataVerdict::Append));
        assert_eq!(check_data(&r, 7, 0, 3, 2, false), Ok(DataVerdict::Duplicate(3, 4)));
        assert_eq!(check_data(&r, 7, 0, 0, 3, false), Ok(DataVerdict::Duplicate(0, 2)));
        for (sequence, count) in [(6, 1), (3, 1), (4, 2), (0, 1)] {
            let e = check_data(&r, 7, 0, sequence, count, false).unwrap_err();
            assert_eq!(e.error, "OUT_OF_ORDER_SEQUENCE_NUMBER", "{sequence}: {e}");
        }
        // An unknown producer starts anywhere; a new epoch at 0 only.
        assert_eq!(check_data(&r, 8, 0, 41, 1, false), Ok(DataVerdict::Append));
        assert_eq!(check_data(&r, 7, 1, 0, 1, false), Ok(DataVerdict::Append));
        assert_eq!(check_data(&r, 7, 1, 5, 1, false).unwrap_err().error, "OUT_OF_ORDER_SEQUENCE_NUMBER");
        // Sequences wrap: after Integer.MAX_VALUE comes 0.
        let wrapped = replay(&[data(0, 0, i32::MAX, 1, false)]);
        assert_eq!(check_data(&wrapped, 7, 0, 0, 1, false), Ok(DataVerdict::Append));
    }

    #[test]
    fn an_older_producer_epoch_and_an_older_coordinator_epoch_are_fenced() {
        let r = replay(&[data(0, 2, 0, 1, true), marker(1, 2, 5)]);
        let e = check_data(&r, 7, 1, 0, 1, false).unwrap_err();
        assert_eq!((e.error, e.exception), ("INVALID_PRODUCER_EPOCH", "InvalidProducerEpochException"));
        assert_eq!(check_marker(&r, 7, 1, 5).unwrap_err().error, "INVALID_PRODUCER_EPOCH");
        let e = check_marker(&r, 7, 2, 4).unwrap_err();
        assert_eq!(e.error, "TRANSACTION_COORDINATOR_FENCED");
        assert!(e.to_string().starts_with("TRANSACTION_COORDINATOR_FENCED: "), "{e}");
        assert_eq!(check_marker(&r, 7, 2, 5), Ok(()));
        assert_eq!(check_marker(&r, 7, 3, 6), Ok(()));
        let open = replay(&[data(0, 0, 0, 1, true)]);
        assert_eq!(check_data(&open, 7, 0, 1, 1, false).unwrap_err().error, "INVALID_TXN_STATE");
        assert_eq!(check_data(&open, 7, 0, 1, 1, true), Ok(DataVerdict::Append));
    }
}
