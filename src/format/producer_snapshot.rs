//! Producer-state snapshots, `<offset>.snapshot` (Kafka `ProducerStateManager.readSnapshot`,
//! `ProducerSnapshot.json`).
//!
//! Layout, big-endian: `version int16 (1) | crc uint32 | entryCount int32 | entries`, each entry
//! 46 bytes: `producerId int64 | producerEpoch int16 | lastSequence int32 | lastOffset int64 |
//! offsetDelta int32 | timestamp int64 | coordinatorEpoch int32 | currentTxnFirstOffset int64`
//! (−1 = no open transaction). The CRC is CRC-32C over bytes 6..end. A snapshot whose CRC does
//! not match is still decoded (so a reader sees what is there) and flagged; a snapshot whose
//! structure is wrong is an error naming the byte position.

/// Bytes before the entries: version, crc, entry count.
pub const HEADER_BYTES: usize = 10;
/// Bytes of one entry.
pub const ENTRY_BYTES: usize = 46;
/// The only version Kafka writes and reads (`PRODUCER_SNAPSHOT_VERSION`).
pub const VERSION: i16 = 1;
/// Where the CRC coverage starts (`PRODUCER_ENTRIES_OFFSET`).
const CRC_START: usize = 6;

/// One producer's state as of the snapshot offset.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ProducerEntry {
    pub producer_id: i64,
    pub producer_epoch: i16,
    pub last_sequence: i32,
    pub last_offset: i64,
    pub offset_delta: i32,
    pub timestamp: i64,
    pub coordinator_epoch: i32,
    pub current_txn_first_offset: i64,
}

impl ProducerEntry {
    /// First sequence of the last batch (`BatchMetadata.firstSeq`: lastSeq − offsetDelta, wrapping
    /// below 0 to Int32.MAX as `DefaultRecordBatch.decrementSequence` does).
    pub fn first_sequence(&self) -> i32 {
        if self.last_sequence < self.offset_delta {
            (i32::MAX as i64 - (self.offset_delta as i64 - self.last_sequence as i64) + 1) as i32
        } else {
            // Java's int arithmetic wraps; a negative offsetDelta from a damaged file must not panic.
            self.last_sequence.wrapping_sub(self.offset_delta)
        }
    }
}

/// A decoded snapshot file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProducerSnapshot {
    pub version: i16,
    pub crc: u32,
    pub computed_crc: u32,
    pub entries: Vec<ProducerEntry>,
}

impl ProducerSnapshot {
    pub fn crc_valid(&self) -> bool {
        self.crc == self.computed_crc
    }
}

/// Why a snapshot does not decode: the byte position and what was expected there.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SnapshotError {
    pub position: u64,
    pub what: String,
}

pub fn decode(bytes: &[u8]) -> Result<ProducerSnapshot, SnapshotError> {
    if bytes.len() < HEADER_BYTES {
        return Err(SnapshotError {
            position: 0,
            what: format!("{} bytes, shorter than the {HEADER_BYTES}-byte snapshot header", bytes.len()),
        });
    }
    let version = i16::from_be_bytes([bytes[0], bytes[1]]);
    if version != VERSION {
        return Err(SnapshotError { position: 0, what: format!("snapshot version {version}, expected {VERSION}") });
    }
    let crc = u32::from_be_bytes(bytes[2..6].try_into().expect("4 bytes"));
    let count = i32::from_be_bytes(bytes[6..10].try_into().expect("4 bytes"));
    let body = &bytes[HEADER_BYTES..];
    if count < 0 || body.len() != count as usize * ENTRY_BYTES {
        return Err(SnapshotError {
            position: 6,
            what: format!(
                "entry count {count} needs {} bytes of entries but {} follow the header",
                (count.max(0) as u64) * ENTRY_BYTES as u64,
                body.len()
            ),
        });
    }
    let entries = body
        .chunks_exact(ENTRY_BYTES)
        .map(|e| {
            let i64_at = |at: usize| i64::from_be_bytes(e[at..at + 8].try_into().expect("8 bytes"));
            let i32_at = |at: usize| i32::from_be_bytes(e[at..at + 4].try_into().expect("4 bytes"));
            ProducerEntry {
                producer_id: i64_at(0),
                producer_epoch: i16::from_be_bytes([e[8], e[9]]),
                last_sequence: i32_at(10),
                last_offset: i64_at(14),
                offset_delta: i32_at(22),
                timestamp: i64_at(26),
                coordinator_epoch: i32_at(34),
                current_txn_first_offset: i64_at(38),
            }
        })
        .collect();
    Ok(ProducerSnapshot { version, crc, computed_crc: crc32c::crc32c(&bytes[CRC_START..]), entries })
}

/// Encode a snapshot as Kafka writes it (used by tests and fixtures).
pub fn encode(entries: &[ProducerEntry]) -> Vec<u8> {
    let mut out = Vec::with_capacity(HEADER_BYTES + entries.len() * ENTRY_BYTES);
    out.extend_from_slice(&VERSION.to_be_bytes());
    out.extend_from_slice(&[0; 4]);
    out.extend_from_slice(&(entries.len() as i32).to_be_bytes());
    for e in entries {
        out.extend_from_slice(&e.producer_id.to_be_bytes());
        out.extend_from_slice(&e.producer_epoch.to_be_bytes());
        out.extend_from_slice(&e.last_sequence.to_be_bytes());
        out.extend_from_slice(&e.last_offset.to_be_bytes());
        out.extend_from_slice(&e.offset_delta.to_be_bytes());
        out.extend_from_slice(&e.timestamp.to_be_bytes());
        out.extend_from_slice(&e.coordinator_epoch.to_be_bytes());
        out.extend_from_slice(&e.current_txn_first_offset.to_be_bytes());
    }
    let crc = crc32c::crc32c(&out[CRC_START..]);
    out[2..6].copy_from_slice(&crc.to_be_bytes());
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_empty_snapshot_is_the_one_kafka_writes() {
        // zk-broker-2020/first_topic-0/00000000000000000011.snapshot, written by a Kafka 2.x broker.
        assert_eq!(encode(&[]), [0x00, 0x01, 0x48, 0x67, 0x4b, 0xc7, 0x00, 0x00, 0x00, 0x00]);
    }

    fn entry() -> ProducerEntry {
        ProducerEntry {
            producer_id: 1000,
            producer_epoch: 3,
            last_sequence: 9,
            last_offset: 41,
            offset_delta: 4,
            timestamp: 1_700_000_000_000,
            coordinator_epoch: 2,
            current_txn_first_offset: -1,
        }
    }

    #[test]
    fn the_empty_snapshot_kafka_writes_decodes() {
        // zk-broker-2020/first_topic-0/00000000000000000011.snapshot, byte for byte
        let bytes = [0x00, 0x01, 0x48, 0x67, 0x4b, 0xc7, 0x00, 0x00, 0x00, 0x00];
        let s = decode(&bytes).unwrap();
        assert!(s.crc_valid());
        assert!(s.entries.is_empty());
        assert_eq!(encode(&[]), bytes);
    }

    #[test]
    fn entries_round_trip_and_damage_is_reported() {
        let bytes = encode(&[entry(), ProducerEntry { producer_id: 1001, current_txn_first_offset: 40, ..entry() }]);
        assert_eq!(bytes.len(), HEADER_BYTES + 2 * ENTRY_BYTES);
        let s = decode(&bytes).unwrap();
        assert!(s.crc_valid());
        assert_eq!(s.entries[0], entry());
        assert_eq!(s.entries[0].first_sequence(), 5);
        assert_eq!(s.entries[1].current_txn_first_offset, 40);
        for cut in 0..bytes.len() {
            assert!(decode(&bytes[..cut]).is_err(), "cut at {cut}");
        }
        for i in 0..bytes.len() {
            let mut bad = bytes.clone();
            bad[i] ^= 0x01;
            match decode(&bad) {
                Ok(s) => assert!(!s.crc_valid(), "flip at {i} unnoticed"),
                Err(e) => assert!(e.position == 0 || e.position == 6, "{e:?}"),
            }
        }
    }

    #[test]
    fn first_sequence_wraps_like_kafka() {
        let e = ProducerEntry { last_sequence: 1, offset_delta: 3, ..entry() };
        assert_eq!(e.first_sequence(), i32::MAX - 1);
    }

    #[test]
    fn a_negative_offset_delta_wraps_instead_of_panicking() {
        // Found by fuzzing (fuzz/ snapshot target): lastSequence Int32.MAX with offsetDelta −1
        // overflowed in `first_sequence`, which dump calls for every entry.
        let bytes = encode(&[ProducerEntry { last_sequence: i32::MAX, offset_delta: -1, ..entry() }]);
        let s = decode(&bytes).unwrap();
        assert!(s.crc_valid());
        assert_eq!(s.entries[0].first_sequence(), i32::MIN);
        let e = ProducerEntry { last_sequence: i32::MIN, offset_delta: i32::MAX, ..entry() };
        assert_eq!(e.first_sequence(), i32::MIN + 1, "as Java: MAX − (MAX − MIN) + 1, wrapping");
    }
}
