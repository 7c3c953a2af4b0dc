//! `meta.properties`: what a Kafka log dir says about itself (`node.id`/`broker.id`,
//! `directory.id`, `cluster.id`), read as Kafka reads it, and written once by `create` for a
//! new klog log dir.

use crate::durable;
use crate::error::{Error, Result};
use crate::format::properties;
use crate::log::names::META_PROPERTIES;
use crate::regular_file;
use std::collections::BTreeMap;
use std::fs;
use std::path::Path;

/// `meta.properties` keys, read as Kafka reads them (`java.util.Properties.load`, see
/// [`crate::format::properties`]). A missing file has no keys.
pub fn read_meta_properties(path: &Path) -> Result<BTreeMap<String, String>> {
    let Some(bytes) = regular_file::read_regular(path)? else { return Ok(BTreeMap::new()) };
    properties::decode(&bytes).map_err(|e| Error::corrupt(path, e.position, format!("line {}: {}", e.line, e.what)))
}

/// Write a brand-new log dir's `meta.properties` (used by `create`): the replica id as
/// `node.id`, a `directory.id` of its own, and klog's one cluster id.
pub fn write_new_log_dir(log_dir: &Path, replica_id: i32, created: &str) -> Result<()> {
    let cluster_id = crate::util::derived_uuid("klog-cluster");
    let canonical = fs::canonicalize(log_dir).unwrap_or_else(|_| log_dir.to_path_buf());
    let directory_id = crate::util::derived_uuid(&format!("klog-dir:{}", canonical.display()));
    let meta = format!(
        "#\n#{created}\nnode.id={replica_id}\ndirectory.id={directory_id}\nversion=1\ncluster.id={cluster_id}\n"
    );
    durable::write_atomic(&log_dir.join(META_PROPERTIES), meta.as_bytes())
}

/// The replica id a log dir's `meta.properties` gives: `node.id` (KRaft), else `broker.id`.
pub(super) fn replica_id_of(meta: &BTreeMap<String, String>) -> Option<i32> {
    meta.get("node.id").or_else(|| meta.get("broker.id")).and_then(|v| v.parse().ok())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_new_log_dir_names_its_replica_and_reads_back_as_kafka_reads_it() {
        let tmp = tempfile::tempdir().unwrap();
        write_new_log_dir(tmp.path(), 7, "Tue Dec 01 00:00:00 UTC 2026").unwrap();
        let meta = read_meta_properties(&tmp.path().join(META_PROPERTIES)).unwrap();
        assert_eq!(replica_id_of(&meta), Some(7));
        assert_eq!(meta["version"], "1");
        assert!(meta.contains_key("directory.id") && meta.contains_key("cluster.id"), "{meta:?}");
        assert!(read_meta_properties(&tmp.path().join("absent")).unwrap().is_empty());
    }

    #[test]
    fn node_id_wins_over_broker_id_and_a_non_number_is_none() {
        let meta = |pairs: &[(&str, &str)]| pairs.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect();
        assert_eq!(replica_id_of(&meta(&[("broker.id", "2"), ("node.id", "3")])), Some(3));
        assert_eq!(replica_id_of(&meta(&[("broker.id", "2")])), Some(2));
        assert_eq!(replica_id_of(&meta(&[("node.id", "x")])), None);
        assert_eq!(replica_id_of(&BTreeMap::new()), None);
    }

    #[test]
    fn a_bad_line_names_its_byte_position() {
        let tmp = tempfile::tempdir().unwrap();
        let path = tmp.path().join(META_PROPERTIES);
        fs::write(&path, "node.id=1\nbad=\\u12\n").unwrap();
        let Err(Error::Corrupt { position, what, .. }) = read_meta_properties(&path) else { panic!("accepted") };
        assert!(what.starts_with("line 2: "), "{what}");
        assert_eq!(position, "node.id=1\nbad=".len() as u64, "the position of the bad escape");
    }
}
