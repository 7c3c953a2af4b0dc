//! The aborted-transaction index, `<base>.txnindex` (Kafka `AbortedTxn`, `TransactionIndex`).
//!
//! Entries are 34 bytes, big-endian: `version int16 (0) | producerId int64 | firstOffset int64 |
//! lastOffset int64 | lastStableOffset int64`. The file exists only once a segment saw an
//! aborted transaction. Decoding is pure; a trailing partial entry is reported, not read.

/// Bytes of one entry (`AbortedTxn.TOTAL_SIZE`).
pub const ENTRY_BYTES: usize = 34;

/// One aborted transaction.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct AbortedTxn {
    pub version: i16,
    pub producer_id: i64,
    pub first_offset: i64,
    pub last_offset: i64,
    pub last_stable_offset: i64,
}

impl AbortedTxn {
    pub fn decode(b: &[u8; ENTRY_BYTES]) -> AbortedTxn {
        let i64_at = |at: usize| i64::from_be_bytes(b[at..at + 8].try_into().expect("8 bytes"));
        AbortedTxn {
            version: i16::from_be_bytes([b[0], b[1]]),
            producer_id: i64_at(2),
            first_offset: i64_at(10),
            last_offset: i64_at(18),
            last_stable_offset: i64_at(26),
        }
    }

    pub fn encode(&self) -> [u8; ENTRY_BYTES] {
        let mut out = [0u8; ENTRY_BYTES];
        out[0..2].copy_from_slice(&self.version.to_be_bytes());
        out[2..10].copy_from_slice(&self.producer_id.to_be_bytes());
        out[10..18].copy_from_slice(&self.first_offset.to_be_bytes());
        out[18..26].copy_from_slice(&self.last_offset.to_be_bytes());
        out[26..34].copy_from_slice(&self.last_stable_offset.to_be_bytes());
        out
    }
}

/// The whole entries of a `.txnindex`, and how many bytes trail them (0 for a sound file).
pub fn decode_entries(bytes: &[u8]) -> (Vec<AbortedTxn>, usize) {
    let entries =
        bytes.chunks_exact(ENTRY_BYTES).map(|c| AbortedTxn::decode(c.try_into().expect("34 bytes"))).collect();
    (entries, bytes.len() % ENTRY_BYTES)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn entries_round_trip_and_partial_tails_are_counted() {
        let a = AbortedTxn { version: 0, producer_id: 4000, first_offset: 10, last_offset: 19, last_stable_offset: 10 };
        let b = AbortedTxn { producer_id: 4001, first_offset: 30, last_offset: 35, last_stable_offset: 20, ..a };
        let mut bytes = [a.encode(), b.encode()].concat();
        assert_eq!(bytes.len(), 68);
        assert_eq!(&bytes[0..2], &[0, 0]);
        assert_eq!(&bytes[2..10], &4000i64.to_be_bytes());
        assert_eq!(decode_entries(&bytes), (vec![a, b], 0));
        bytes.extend_from_slice(&[1, 2, 3]);
        for cut in 0..bytes.len() {
            let (got, tail) = decode_entries(&bytes[..cut]);
            assert_eq!(got.len(), cut / ENTRY_BYTES);
            assert_eq!(tail, cut % ENTRY_BYTES);
        }
    }
}
