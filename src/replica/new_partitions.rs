//! Adding empty partitions to a klog log dir (`create`): everything read and checked first,
//! then each partition dir built, the file system synced once, and each log-dir checkpoint and
//! the state file written once, whole, atomically.

use super::state_file::{read_state_file, KlogStateFile, PartitionEntry, VolatileState};
use super::{ReplicaPaths, TopicConfig};
use crate::durable;
use crate::error::Result;
use crate::log::checkpoint::{self, OffsetEntry};
use crate::log::names::{self, KLOG_STATE};
use std::path::{Path, PathBuf};

/// Empty partitions `create` adds to a klog log dir, with everything they need read and checked
/// before anything is written: the log dir's checkpoints and state file as they are (one that
/// does not read refuses the create).
///
/// The write plan is linear in the partitions: each partition dir is built (an empty segment,
/// `partition.metadata`, `leader-epoch-checkpoint`), the file system is synced once, then each
/// log-dir checkpoint and the state file is written once, whole, atomically. Writing them per
/// partition would write O(N²) bytes (185 MB for 1,000 partitions). A failure part way is
/// undone by the durable layer's journal, as for every command.
pub struct NewPartitions {
    log_dir: PathBuf,
    topic: String,
    numbers: std::ops::RangeInclusive<i32>,
    config: TopicConfig,
    /// Each offset checkpoint's name and entries as found.
    checkpoints: Vec<(&'static str, Vec<OffsetEntry>)>,
    state: KlogStateFile,
}

impl NewPartitions {
    /// Read and check what adding partitions `numbers` of `topic` to `log_dir` needs (a log dir
    /// that does not exist yet has nothing to read). Writes nothing.
    pub fn read(
        log_dir: &Path,
        topic: &str,
        numbers: std::ops::RangeInclusive<i32>,
        config: TopicConfig,
    ) -> Result<NewPartitions> {
        let mut checkpoints = Vec::new();
        for name in [
            names::REPLICATION_OFFSET_CHECKPOINT,
            names::RECOVERY_POINT_OFFSET_CHECKPOINT,
            names::LOG_START_OFFSET_CHECKPOINT,
        ] {
            checkpoints.push((name, checkpoint::read_offset_checkpoint(&log_dir.join(name))?));
        }
        let state = read_state_file(&log_dir.join(KLOG_STATE))?;
        Ok(NewPartitions {
            log_dir: log_dir.to_path_buf(),
            topic: topic.to_string(),
            numbers,
            config,
            checkpoints,
            state,
        })
    }

    /// Record in the new log dir's state file that its `node.id` is `klog create`'s default
    /// (no `--replica-id` given).
    pub fn with_node_id_defaulted(mut self) -> NewPartitions {
        self.state.node_id_defaulted = true;
        self
    }

    /// Write the partitions.
    pub fn write(self) -> Result<Vec<ReplicaPaths>> {
        let topic = &self.topic;
        let topic_id = crate::util::derived_uuid(&format!("klog-topic:{topic}"));
        let partition_metadata = format!("version: 0\ntopic_id: {topic_id}");
        let epoch_checkpoint = checkpoint::render_checkpoint(&[]);
        let mut added = Vec::with_capacity(self.numbers.clone().count());
        for partition in self.numbers.clone() {
            let partition_dir = self.log_dir.join(format!("{topic}-{partition}"));
            durable::create_dir_unsynced(&partition_dir)?;
            for (name, bytes) in [
                (names::PARTITION_METADATA, partition_metadata.as_bytes()),
                (names::LEADER_EPOCH_CHECKPOINT, epoch_checkpoint.as_bytes()),
            ] {
                let path = partition_dir.join(name);
                let mut file = durable::create_file(&path)?;
                durable::append(&mut file, &path, bytes)?;
            }
            let seg = crate::log::segment::Segment::new(&partition_dir, 0);
            for path in [seg.log_path(), seg.index_path(), seg.time_index_path()] {
                durable::create_file(&path)?;
            }
            added.push(ReplicaPaths { log_dir: self.log_dir.clone(), partition_dir, topic: topic.clone(), partition });
        }
        // Every new dir and file durable at once, before the log-dir files name them.
        durable::sync_file_system(&self.log_dir)?;
        let new: std::collections::HashSet<i32> = self.numbers.clone().collect();
        for (name, entries) in &self.checkpoints {
            let mut entries: Vec<OffsetEntry> =
                entries.iter().filter(|e| !(e.topic == *topic && new.contains(&e.partition))).cloned().collect();
            if *name != names::LOG_START_OFFSET_CHECKPOINT {
                entries.extend(self.numbers.clone().map(|partition| OffsetEntry {
                    topic: topic.clone(),
                    partition,
                    offset: 0,
                    line: 0,
                    position: 0,
                }));
            }
            let path = self.log_dir.join(name);
            durable::write_atomic(&path, checkpoint::render_offset_checkpoint(&entries).as_bytes())?;
        }
        let mut state = self.state.clone();
        for p in &added {
            state.partitions.insert(
                p.name(),
                PartitionEntry {
                    config: Some(self.config),
                    largest_leader_epoch: None,
                    state: Some(VolatileState::started()),
                },
            );
        }
        state.write(&self.log_dir.join(KLOG_STATE))?;
        Ok(added)
    }
}

#[cfg(test)]
mod tests {
    use super::super::test_support::new_log_dir;
    use super::super::{LogDirFiles, Replica, Role};
    use super::*;
    use crate::error::Error;
    use std::fs;

    fn config() -> TopicConfig {
        TopicConfig {
            segment_bytes: 2048,
            index_interval_bytes: 512,
            index_bytes_max: 4096,
            segment_ms: 60_000,
            min_insync_replicas: 1,
        }
    }

    #[test]
    fn new_partitions_join_the_log_dir_files_beside_the_existing_ones() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = new_log_dir(&tmp.path().join("a"), 1, "t", 2);
        let added = NewPartitions::read(&dir, "u", 0..=1, config()).unwrap().write().unwrap();
        let names: Vec<String> = added.iter().map(ReplicaPaths::name).collect();
        assert_eq!(names, vec!["u-0", "u-1"]);
        assert_eq!(
            fs::read_to_string(dir.join(names::REPLICATION_OFFSET_CHECKPOINT)).unwrap(),
            "0\n4\nt 0 0\nt 1 0\nu 0 0\nu 1 0\n"
        );
        assert_eq!(fs::read_to_string(dir.join(names::LOG_START_OFFSET_CHECKPOINT)).unwrap(), "0\n0\n");
        let files = LogDirFiles::read_tolerant(&dir).unwrap();
        assert_eq!(files.running_partitions(), vec!["t-0", "t-1", "u-0", "u-1"]);
        let log_config = files.log_config("u-1");
        assert_eq!((log_config.segment_bytes, log_config.index_interval_bytes), (2048, 512));
        assert_eq!((log_config.index_bytes_max, log_config.segment_ms), (4096, 60_000));
        let r = Replica::open(&dir, Some("u-1")).unwrap();
        assert_eq!((r.topic_config(), r.role(), r.log_end_offset()), (Some(&config()), Some(Role::Follower), 0));
        assert!(added[1].partition_dir.join(names::PARTITION_METADATA).is_file());
    }

    #[test]
    fn a_log_dir_file_that_does_not_read_refuses_the_create_before_anything_is_written() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = new_log_dir(&tmp.path().join("a"), 1, "t", 1);
        fs::write(dir.join(KLOG_STATE), "{\"version\": 1,").unwrap();
        assert!(matches!(NewPartitions::read(&dir, "u", 0..=0, config()), Err(Error::Corrupt { .. })));
        assert!(!dir.join("u-0").exists());
    }
}
