//! The one place that decides a command's form from what its path is (ripgrep's `hiargs`: the
//! parsed flags resolved once, before anything runs): a single file, a partition dir, a log dir
//! and the partition in it (its only one, or the one `--partition` names), or a broker's whole
//! data dir (several partitions, none named: the data-dir forms of `check`, `txn`, `recover`,
//! `diff`). Decided from data: one stat, one listing of the path, and a look into each entry
//! named like a partition (Kafka's own test of a partition dir, as `list_partition_dirs` does):
//! never by trying a form and reading the error it gave.

use crate::error::{Error, Result};
use crate::log::names;
use crate::replica::looks_like_partition_dir;
use std::fs;
use std::path::Path;

/// What a command's path is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Form {
    /// A file: `dump FILE` reads it alone; the other commands want a dir.
    File,
    /// A partition dir itself (`<topic>-<partition>` holding Kafka's files).
    Partition,
    /// A log dir, the command working on its one partition or on the one `--partition` names
    /// (its partition dirs are not counted then: a data dir of thousands of partitions is not
    /// looked through for one it names).
    LogDir,
    /// A log dir holding several partitions and no `--partition`: the whole broker's dir.
    DataDir { partitions: usize },
}

impl Form {
    /// Whether the data-dir forms apply.
    pub fn is_data_dir(&self) -> bool {
        matches!(self, Form::DataDir { .. })
    }
}

/// The form of `path` with `partition` (`--partition`). A missing path, and a partition name
/// that is a path (`../B/demo-0` must not reach another log dir), are refused with the error
/// the commands give for them. An unreadable dir named like a partition is a partition (one that
/// does not read: a finding of the reader), as [`looks_like_partition_dir`] says.
pub fn form_of(path: &Path, partition: Option<&str>) -> Result<Form> {
    let meta = super::paths::checked_target(path, partition)?;
    if !meta.is_dir() {
        return Ok(Form::File);
    }
    let named_like_partition =
        path.file_name().and_then(|n| n.to_str()).is_some_and(|n| names::parse_topic_partition(n).is_some());
    let entries = match fs::read_dir(path) {
        Ok(entries) => entries,
        Err(e) if named_like_partition && e.kind() == std::io::ErrorKind::PermissionDenied => {
            return Ok(Form::Partition)
        }
        Err(e) => return Err(Error::io(path, "list directory", e)),
    };
    let mut partitions = 0;
    for entry in entries {
        let entry = entry.map_err(|e| Error::io(path, "list directory", e))?;
        let name = entry.file_name();
        let name = name.to_string_lossy();
        let kafka_file = (name.ends_with(names::LOG_SUFFIX) && names::parse_file_offset(&name).is_some())
            || name == names::LEADER_EPOCH_CHECKPOINT
            || name == names::PARTITION_METADATA;
        if named_like_partition && kafka_file {
            return Ok(Form::Partition);
        }
        // A symlinked partition dir is one, as Kafka's `File.isDirectory` follows the link.
        let is_dir = match entry.file_type() {
            Ok(t) if t.is_symlink() => fs::metadata(entry.path()).is_ok_and(|m| m.is_dir()),
            Ok(t) => t.is_dir(),
            Err(e) => return Err(Error::io(entry.path(), "stat", e)),
        };
        if partition.is_none() && is_dir && looks_like_partition_dir(&entry.path()) {
            partitions += 1;
        }
    }
    Ok(if partitions > 1 { Form::DataDir { partitions } } else { Form::LogDir })
}

/// The form of `path`, which must be a dir (every command but `dump FILE`): a file is refused
/// with the error the commands give for it.
pub fn dir_form_of(path: &Path, partition: Option<&str>) -> Result<Form> {
    match form_of(path, partition)? {
        Form::File => Err(Error::layout(
            path,
            "not a directory (expected a Kafka log dir or partition dir; `klog dump FILE` reads one file)",
        )),
        form => Ok(form),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::replica::test_support::partition_dir;

    #[test]
    fn a_log_dir_of_one_partition_is_a_log_dir_and_its_partition_dir_a_partition() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = partition_dir(tmp.path(), "orders-0");
        assert_eq!(form_of(tmp.path(), None).unwrap(), Form::LogDir);
        assert_eq!(form_of(&dir, None).unwrap(), Form::Partition);
        // A dir named like a partition without Kafka's files in it is not one.
        fs::create_dir(tmp.path().join("photos-2024")).unwrap();
        assert_eq!(form_of(&tmp.path().join("photos-2024"), None).unwrap(), Form::LogDir);
        assert_eq!(form_of(tmp.path(), None).unwrap(), Form::LogDir);
    }

    #[test]
    fn several_partitions_make_a_data_dir_unless_one_is_named() {
        let tmp = tempfile::tempdir().unwrap();
        partition_dir(tmp.path(), "orders-0");
        partition_dir(tmp.path(), "orders-1");
        let form = form_of(tmp.path(), None).unwrap();
        assert_eq!(form, Form::DataDir { partitions: 2 });
        assert!(form.is_data_dir());
        assert_eq!(form_of(tmp.path(), Some("orders-1")).unwrap(), Form::LogDir);
    }

    #[test]
    fn a_symlink_to_a_partition_dir_counts_as_one() {
        let tmp = tempfile::tempdir().unwrap();
        let elsewhere = tempfile::tempdir().unwrap();
        partition_dir(tmp.path(), "orders-0");
        let target = partition_dir(elsewhere.path(), "orders-1");
        std::os::unix::fs::symlink(&target, tmp.path().join("orders-1")).unwrap();
        assert_eq!(form_of(tmp.path(), None).unwrap(), Form::DataDir { partitions: 2 });
    }

    #[test]
    fn a_file_is_its_own_form_and_refused_where_a_dir_is_wanted() {
        let tmp = tempfile::tempdir().unwrap();
        let file = tmp.path().join("00000000000000000000.log");
        fs::write(&file, b"").unwrap();
        assert_eq!(form_of(&file, None).unwrap(), Form::File);
        let e = dir_form_of(&file, None).unwrap_err();
        assert_eq!(e.path(), Some(file.as_path()));
        let line = e.to_string();
        assert!(line.contains("not a directory (expected a Kafka log dir or partition dir"), "{line}");
        assert!(!line.contains('\n'), "{line}");
        assert_eq!(e.exit_code(), 2);
    }

    #[test]
    fn a_missing_path_is_refused_naming_it() {
        let tmp = tempfile::tempdir().unwrap();
        let missing = tmp.path().join("nope");
        let e = form_of(&missing, None).unwrap_err();
        assert_eq!(e.path(), Some(missing.as_path()));
        assert!(e.to_string().ends_with("no such file or directory"), "{e}");
        assert_eq!(e.exit_code(), 2);
    }

    #[test]
    fn a_partition_name_that_is_a_path_is_refused_before_the_disk_is_read() {
        let tmp = tempfile::tempdir().unwrap();
        partition_dir(tmp.path(), "orders-0");
        for bad in ["../B/orders-0", "orders-0/..", "/etc", "x/y"] {
            let e = form_of(tmp.path(), Some(bad)).unwrap_err();
            let line = e.to_string();
            assert!(line.starts_with("--partition ") && line.contains("not a partition name"), "{bad}: {line}");
            assert!(!line.contains('\n'), "{line}");
            assert_eq!(e.exit_code(), 2);
        }
        // Even where the path is missing: the name is refused first, as the commands refuse it.
        assert!(form_of(&tmp.path().join("nope"), Some("../x")).unwrap_err().to_string().contains("--partition"));
    }
}
