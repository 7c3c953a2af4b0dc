//! `quorum-state`, the KRaft election state a node keeps beside `__cluster_metadata-0` (Kafka
//! `FileQuorumState`): a JSON object of `QuorumStateData` fields (`leaderId`, `leaderEpoch`,
//! `votedId`, `votedDirectoryId`, `appliedOffset`, `currentVoters`; absent ones at Kafka's
//! defaults) and its `data_version`. Read only; a file that does not parse is an error naming
//! the byte position.

use crate::error::{Error, Result};
use crate::regular_file;
use serde::Deserialize;
use std::path::Path;

/// The file's name.
pub const QUORUM_STATE: &str = "quorum-state";

fn none() -> i32 {
    -1
}

/// A voter of the `currentVoters` list (version 0 files).
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct QuorumVoter {
    pub voter_id: i32,
}

/// What `quorum-state` says.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct QuorumState {
    #[serde(rename = "data_version")]
    pub data_version: i16,
    #[serde(default)]
    pub cluster_id: Option<String>,
    /// −1: no leader known.
    #[serde(default = "none")]
    pub leader_id: i32,
    #[serde(default = "none")]
    pub leader_epoch: i32,
    /// −1: no vote cast in this epoch.
    #[serde(default = "none")]
    pub voted_id: i32,
    #[serde(default)]
    pub voted_directory_id: Option<String>,
    #[serde(default)]
    pub applied_offset: i64,
    /// Only version 0 files list them (later, the voters live in the log).
    #[serde(default)]
    pub current_voters: Option<Vec<QuorumVoter>>,
}

/// Decode the bytes of a `quorum-state`; `path` names the file in errors.
pub fn parse_quorum_state(bytes: &[u8], path: &Path) -> Result<QuorumState> {
    serde_json::from_slice(bytes).map_err(|e| {
        let position: usize =
            bytes.split_inclusive(|b| *b == b'\n').take(e.line().saturating_sub(1)).map(<[u8]>::len).sum::<usize>()
                + e.column().saturating_sub(1);
        Error::corrupt(path, position as u64, format!("quorum-state is not valid: {e}"))
    })
}

/// Read a `quorum-state` file.
pub fn read_quorum_state(path: &Path) -> Result<QuorumState> {
    match regular_file::read_regular(path)? {
        Some(bytes) => parse_quorum_state(&bytes, path),
        None => Err(Error::layout(path, "no such file")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_kafka_written_quorum_state_reads() {
        let text = br#"{"clusterId":"","leaderId":1,"leaderEpoch":1,"votedId":-1,"appliedOffset":0,"currentVoters":[{"voterId":1}],"data_version":0}"#;
        let q = parse_quorum_state(text, Path::new("quorum-state")).unwrap();
        assert_eq!((q.leader_id, q.leader_epoch, q.voted_id, q.data_version), (1, 1, -1, 0));
        assert_eq!(q.current_voters, Some(vec![QuorumVoter { voter_id: 1 }]));
        // version 1: absent fields at Kafka's defaults
        let q = parse_quorum_state(
            br#"{"leaderEpoch":3,"votedId":2,"votedDirectoryId":"AAAAAAAAAAAAAAAAAAAAAA","data_version":1}"#,
            Path::new("q"),
        )
        .unwrap();
        assert_eq!((q.leader_id, q.leader_epoch, q.voted_id), (-1, 3, 2));
        assert!(q.current_voters.is_none());
    }

    #[test]
    fn a_broken_quorum_state_names_the_byte() {
        let e = parse_quorum_state(b"{\"leaderId\":1,\n\"leaderEpoch\":x}", Path::new("q")).unwrap_err().to_string();
        assert!(e.contains("position 29"), "{e}");
        let e = parse_quorum_state(b"{\"leaderId\":1}", Path::new("q")).unwrap_err().to_string();
        assert!(e.contains("data_version"), "{e}");
    }
}
