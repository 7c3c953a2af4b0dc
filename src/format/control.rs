//! Control records: the records of a batch whose isControl attribute is set (Kafka
//! `ControlRecordType`, `EndTransactionMarker`, `ControlRecordUtils` and the KRaft message
//! schemas `LeaderChangeMessage`, `SnapshotHeaderRecord`, `SnapshotFooterRecord`,
//! `KRaftVersionRecord`, `VotersRecord`).
//!
//! The key is `version int16 | type int16` (0 ABORT, 1 COMMIT, 2 LEADER_CHANGE,
//! 3 SNAPSHOT_HEADER, 4 SNAPSHOT_FOOTER, 5 KRAFT_VERSION, 6 KRAFT_VOTERS). A transaction marker's
//! value is `version int16 | coordinatorEpoch int32`. The KRaft records' values are Kafka
//! "flexible" messages with no version prefix: fixed-width fields, compact arrays and strings
//! (unsigned varint length + 1) and tagged fields, which are skipped. Decoding never panics: a
//! short or malformed value is an `Err` naming the byte where it went wrong.

use std::fmt;

/// The control types Kafka knows (`ControlRecordType`), by type id.
pub const TYPE_NAMES: [&str; 7] =
    ["ABORT", "COMMIT", "LEADER_CHANGE", "SNAPSHOT_HEADER", "SNAPSHOT_FOOTER", "KRAFT_VERSION", "KRAFT_VOTERS"];

/// A KRaft voter endpoint (`VotersRecord.Endpoint`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Endpoint {
    pub name: String,
    pub host: String,
    pub port: u16,
}

/// One voter of a `VotersRecord`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Voter {
    pub voter_id: i32,
    /// The directory id as Kafka prints a `Uuid` (URL-safe base64, no padding).
    pub voter_uuid: String,
    pub endpoints: Vec<Endpoint>,
    pub min_supported_version: i16,
    pub max_supported_version: i16,
}

/// A decoded control record.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ControlRecord {
    /// ABORT or COMMIT written by a transaction coordinator.
    EndTxn {
        commit: bool,
        version: i16,
        coordinator_epoch: i32,
    },
    LeaderChange {
        version: i16,
        leader_id: i32,
        voters: Vec<i32>,
        granting_voters: Vec<i32>,
    },
    SnapshotHeader {
        version: i16,
        last_contained_log_timestamp: i64,
    },
    SnapshotFooter {
        version: i16,
    },
    KRaftVersion {
        version: i16,
        kraft_version: i16,
    },
    KRaftVoters {
        version: i16,
        voters: Vec<Voter>,
    },
    /// A type id this build does not know (Kafka's `UNKNOWN`).
    Unknown {
        type_id: i16,
    },
}

impl ControlRecord {
    /// Kafka's name of the control type (`ControlRecordType` constant).
    pub fn type_name(&self) -> &'static str {
        match self {
            ControlRecord::EndTxn { commit: false, .. } => TYPE_NAMES[0],
            ControlRecord::EndTxn { commit: true, .. } => TYPE_NAMES[1],
            ControlRecord::LeaderChange { .. } => TYPE_NAMES[2],
            ControlRecord::SnapshotHeader { .. } => TYPE_NAMES[3],
            ControlRecord::SnapshotFooter { .. } => TYPE_NAMES[4],
            ControlRecord::KRaftVersion { .. } => TYPE_NAMES[5],
            ControlRecord::KRaftVoters { .. } => TYPE_NAMES[6],
            ControlRecord::Unknown { .. } => "UNKNOWN",
        }
    }

    /// The type id from the key.
    pub fn type_id(&self) -> i16 {
        match self {
            ControlRecord::Unknown { type_id } => *type_id,
            known => TYPE_NAMES.iter().position(|n| *n == known.type_name()).unwrap_or(0) as i16,
        }
    }
}

/// Why a control record did not decode.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ControlError {
    /// `key` or `value`.
    pub field: &'static str,
    pub position: usize,
    pub what: String,
}

impl fmt::Display for ControlError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "control record {} at byte {}: {}", self.field, self.position, self.what)
    }
}

/// The key and value of an end-transaction marker (`EndTransactionMarker`, version 0): key
/// `version int16 (0) | type int16` (0 ABORT, 1 COMMIT), value `version int16 (0) |
/// coordinatorEpoch int32`.
pub fn end_txn_marker(commit: bool, coordinator_epoch: i32) -> (Vec<u8>, Vec<u8>) {
    let key = [0i16.to_be_bytes(), (commit as i16).to_be_bytes()].concat();
    let value = [&0i16.to_be_bytes()[..], &coordinator_epoch.to_be_bytes()].concat();
    (key, value)
}

/// The batch a transaction coordinator's `WriteTxnMarkers` makes a leader append: one
/// end-transaction marker in a transactional control batch of the producer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct EndTxnBatch {
    pub producer_id: i64,
    pub producer_epoch: i16,
    pub base_offset: i64,
    /// The partition leader epoch the batch is stamped with.
    pub leader_epoch: i32,
    pub commit: bool,
    pub coordinator_epoch: i32,
    pub timestamp: i64,
}

impl EndTxnBatch {
    pub fn encode(&self) -> Vec<u8> {
        use super::batch::{encode_batch, BatchSpec};
        let (key, value) = end_txn_marker(self.commit, self.coordinator_epoch);
        let spec = BatchSpec {
            producer_id: self.producer_id,
            producer_epoch: self.producer_epoch,
            is_transactional: true,
            is_control: true,
            ..BatchSpec::plain(self.base_offset, self.leader_epoch)
        };
        let record = super::record::NewRecord {
            timestamp: self.timestamp,
            key: Some(key),
            value: Some(value),
            headers: Vec::new(),
        };
        encode_batch(&spec, &[record])
    }
}

/// Read the type id of a control record key (`ControlRecordType.parseTypeId`).
pub fn decode_type_id(key: Option<&[u8]>) -> Result<i16, ControlError> {
    let key = key.ok_or_else(|| ControlError { field: "key", position: 0, what: "null key".into() })?;
    let mut r = Reader { field: "key", bytes: key, pos: 0 };
    let version = r.i16("key version")?;
    if version < 0 {
        return Err(ControlError { field: "key", position: 0, what: format!("negative key version {version}") });
    }
    r.i16("type")
}

/// Decode a control record from its key and value.
pub fn decode(key: Option<&[u8]>, value: Option<&[u8]>) -> Result<ControlRecord, ControlError> {
    let type_id = decode_type_id(key)?;
    if !(0..TYPE_NAMES.len() as i16).contains(&type_id) {
        return Ok(ControlRecord::Unknown { type_id });
    }
    let value = value.ok_or_else(|| ControlError { field: "value", position: 0, what: "null value".into() })?;
    let mut r = Reader { field: "value", bytes: value, pos: 0 };
    let record = match type_id {
        0 | 1 => {
            let version = r.i16("marker version")?;
            if version < 0 {
                return Err(r.error(0, format!("negative end transaction marker version {version}")));
            }
            ControlRecord::EndTxn { commit: type_id == 1, version, coordinator_epoch: r.i32("coordinatorEpoch")? }
        }
        2 => {
            let version = r.i16("Version")?;
            let leader_id = r.i32("LeaderId")?;
            let voters = r.voter_ids("Voters")?;
            let granting_voters = r.voter_ids("GrantingVoters")?;
            r.tagged_fields()?;
            ControlRecord::LeaderChange { version, leader_id, voters, granting_voters }
        }
        3 => {
            let version = r.i16("Version")?;
            let last_contained_log_timestamp = r.i64("LastContainedLogTimestamp")?;
            r.tagged_fields()?;
            ControlRecord::SnapshotHeader { version, last_contained_log_timestamp }
        }
        4 => {
            let version = r.i16("Version")?;
            r.tagged_fields()?;
            ControlRecord::SnapshotFooter { version }
        }
        5 => {
            let version = r.i16("Version")?;
            let kraft_version = r.i16("KRaftVersion")?;
            r.tagged_fields()?;
            ControlRecord::KRaftVersion { version, kraft_version }
        }
        _ => {
            let version = r.i16("Version")?;
            let count = r.compact_len("Voters")?;
            let mut voters = Vec::with_capacity(count.min(64));
            for _ in 0..count {
                let voter_id = r.i32("VoterId")?;
                let voter_uuid = crate::util::base64_url(r.take(16, "VoterUuid")?);
                let n = r.compact_len("Endpoints")?;
                let mut endpoints = Vec::with_capacity(n.min(16));
                for _ in 0..n {
                    let name = r.compact_string("Name")?;
                    let host = r.compact_string("Host")?;
                    let port = r.u16("Port")?;
                    r.tagged_fields()?;
                    endpoints.push(Endpoint { name, host, port });
                }
                let min_supported_version = r.i16("MinSupportedVersion")?;
                let max_supported_version = r.i16("MaxSupportedVersion")?;
                r.tagged_fields()?; // of the KRaftVersionFeature struct
                r.tagged_fields()?; // of the Voter
                voters.push(Voter { voter_id, voter_uuid, endpoints, min_supported_version, max_supported_version });
            }
            r.tagged_fields()?;
            ControlRecord::KRaftVoters { version, voters }
        }
    };
    Ok(record)
}

/// A bounds-checked reader of Kafka's message encoding (big-endian fixed widths, unsigned
/// varints for compact lengths and tags).
struct Reader<'a> {
    field: &'static str,
    bytes: &'a [u8],
    pos: usize,
}

impl<'a> Reader<'a> {
    fn error(&self, position: usize, what: String) -> ControlError {
        ControlError { field: self.field, position, what }
    }

    fn take(&mut self, len: usize, what: &str) -> Result<&'a [u8], ControlError> {
        let end = self.pos.checked_add(len).filter(|e| *e <= self.bytes.len()).ok_or_else(|| {
            self.error(self.pos, format!("{what}: {len} bytes needed, {} remain", self.bytes.len() - self.pos))
        })?;
        let s = &self.bytes[self.pos..end];
        self.pos = end;
        Ok(s)
    }

    fn i16(&mut self, what: &str) -> Result<i16, ControlError> {
        Ok(i16::from_be_bytes(self.take(2, what)?.try_into().expect("2 bytes")))
    }
    fn u16(&mut self, what: &str) -> Result<u16, ControlError> {
        Ok(u16::from_be_bytes(self.take(2, what)?.try_into().expect("2 bytes")))
    }
    fn i32(&mut self, what: &str) -> Result<i32, ControlError> {
        Ok(i32::from_be_bytes(self.take(4, what)?.try_into().expect("4 bytes")))
    }
    fn i64(&mut self, what: &str) -> Result<i64, ControlError> {
        Ok(i64::from_be_bytes(self.take(8, what)?.try_into().expect("8 bytes")))
    }

    fn uvarint(&mut self, what: &str) -> Result<u32, ControlError> {
        let start = self.pos;
        let mut value: u64 = 0;
        for i in 0..5 {
            let b = *self.bytes.get(self.pos).ok_or_else(|| self.error(start, format!("{what}: varint cut off")))?;
            self.pos += 1;
            value |= ((b & 0x7f) as u64) << (7 * i);
            if b & 0x80 == 0 {
                return u32::try_from(value).map_err(|_| self.error(start, format!("{what}: varint over 32 bits")));
            }
        }
        Err(self.error(start, format!("{what}: varint longer than 5 bytes")))
    }

    /// A compact array or string length (stored + 1; 0 = null, read as empty here).
    fn compact_len(&mut self, what: &str) -> Result<usize, ControlError> {
        let at = self.pos;
        let n = self.uvarint(what)?.saturating_sub(1) as usize;
        // Each element takes at least one byte: a larger count is a lie; refuse before allocating.
        if n > self.bytes.len() - self.pos {
            return Err(
                self.error(at, format!("{what}: {n} elements declared, {} bytes remain", self.bytes.len() - self.pos))
            );
        }
        Ok(n)
    }

    fn compact_string(&mut self, what: &str) -> Result<String, ControlError> {
        let at = self.pos;
        let n = self.compact_len(what)?;
        let bytes = self.take(n, what)?;
        String::from_utf8(bytes.to_vec()).map_err(|_| self.error(at, format!("{what}: not UTF-8")))
    }

    fn voter_ids(&mut self, what: &str) -> Result<Vec<i32>, ControlError> {
        let n = self.compact_len(what)?;
        let mut out = Vec::with_capacity(n.min(64));
        for _ in 0..n {
            out.push(self.i32("VoterId")?);
            self.tagged_fields()?;
        }
        Ok(out)
    }

    /// Skip a tagged-field section: count, then (tag, size, bytes) per field.
    fn tagged_fields(&mut self) -> Result<(), ControlError> {
        let count = self.uvarint("tagged fields count")?;
        for _ in 0..count {
            self.uvarint("tag")?;
            let size = self.uvarint("tagged field size")? as usize;
            self.take(size, "tagged field")?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key(type_id: i16) -> Vec<u8> {
        [0i16.to_be_bytes(), type_id.to_be_bytes()].concat()
    }

    #[test]
    fn transaction_markers_decode_with_their_coordinator_epoch() {
        let value = [&0i16.to_be_bytes()[..], &7i32.to_be_bytes()].concat();
        let commit = decode(Some(&key(1)), Some(&value)).unwrap();
        assert_eq!(commit, ControlRecord::EndTxn { commit: true, version: 0, coordinator_epoch: 7 });
        assert_eq!((commit.type_name(), commit.type_id()), ("COMMIT", 1));
        let abort = decode(Some(&key(0)), Some(&value)).unwrap();
        assert_eq!(abort.type_name(), "ABORT");
        assert!(decode(Some(&key(1)), Some(&value[..5])).is_err());
        assert!(decode(Some(&key(1)[..3]), Some(&value)).is_err());
        assert!(decode(None, Some(&value)).is_err());
    }

    #[test]
    fn kraft_records_decode() {
        // LeaderChangeMessage v0: Version, LeaderId, Voters [1], GrantingVoters [1], no tags.
        let lc = [
            &0i16.to_be_bytes()[..],
            &1i32.to_be_bytes(),
            &[2],
            &1i32.to_be_bytes(),
            &[0],
            &[2],
            &1i32.to_be_bytes(),
            &[0],
            &[0],
        ]
        .concat();
        assert_eq!(
            decode(Some(&key(2)), Some(&lc)).unwrap(),
            ControlRecord::LeaderChange { version: 0, leader_id: 1, voters: vec![1], granting_voters: vec![1] }
        );
        // The bootstrap.checkpoint snapshot header and footer (bytes as Kafka 3.7 wrote them).
        let header = [0u8; 11];
        assert_eq!(
            decode(Some(&key(3)), Some(&header)).unwrap(),
            ControlRecord::SnapshotHeader { version: 0, last_contained_log_timestamp: 0 }
        );
        assert_eq!(decode(Some(&key(4)), Some(&[0, 0, 0])).unwrap(), ControlRecord::SnapshotFooter { version: 0 });
        assert_eq!(
            decode(Some(&key(5)), Some(&[0, 0, 0, 1, 0])).unwrap(),
            ControlRecord::KRaftVersion { version: 0, kraft_version: 1 }
        );
        let mut voters = vec![0, 0, 2];
        voters.extend_from_slice(&3i32.to_be_bytes());
        voters.extend_from_slice(&[0xab; 16]);
        voters.extend_from_slice(&[2, 11]);
        voters.extend_from_slice(b"CONTROLLER");
        voters.push(10);
        voters.extend_from_slice(b"localhost");
        voters.extend_from_slice(&9093u16.to_be_bytes());
        voters.push(0);
        voters.extend_from_slice(&[0, 0, 0, 1, 0, 0, 0]);
        let got = decode(Some(&key(6)), Some(&voters)).unwrap();
        let ControlRecord::KRaftVoters { voters: v, .. } = &got else { panic!("{got:?}") };
        assert_eq!(v[0].voter_id, 3);
        assert_eq!(v[0].endpoints, vec![Endpoint { name: "CONTROLLER".into(), host: "localhost".into(), port: 9093 }]);
        assert_eq!((v[0].min_supported_version, v[0].max_supported_version), (0, 1));
        assert_eq!(decode(Some(&key(9)), None).unwrap(), ControlRecord::Unknown { type_id: 9 });
        // every cut and flip of the voters value is an error or a value, never a panic
        for cut in 0..voters.len() {
            assert!(decode(Some(&key(6)), Some(&voters[..cut])).is_err());
        }
        for i in 0..voters.len() {
            for flip in [0x01u8, 0x80, 0xff] {
                let mut bad = voters.clone();
                bad[i] ^= flip;
                let _ = decode(Some(&key(6)), Some(&bad));
                let _ = decode(Some(&key(2)), Some(&bad));
            }
        }
    }
}
