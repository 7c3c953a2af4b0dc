//! Where a replica's files are: a command-line path (a log dir, or a partition dir inside one)
//! resolved to the log dir and the partition dir, and what a log dir says about itself.
//!
//! A partition is a name, never a path: `--partition ../B/demo-0` is refused before anything is
//! looked up. Nothing here reads a file's contents or writes anything; it lists and stats.

use crate::error::{Error, IoContext, Result};
use crate::log::names::{self, KLOG_STATE, META_PROPERTIES};
use std::fs;
use std::path::{Path, PathBuf};

/// Where a replica's files are.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReplicaPaths {
    pub log_dir: PathBuf,
    pub partition_dir: PathBuf,
    pub topic: String,
    pub partition: i32,
}

impl ReplicaPaths {
    pub fn name(&self) -> String {
        format!("{}-{}", self.topic, self.partition)
    }
    pub fn log_dir_file(&self, name: &str) -> PathBuf {
        self.log_dir.join(name)
    }
}

/// Whether `dir` is itself a partition dir: named `<topic>-<partition>` and holding a segment,
/// `leader-epoch-checkpoint` or `partition.metadata` (Kafka's own files; a `photos-2024/`
/// folder is not one).
pub fn looks_like_partition_dir(dir: &Path) -> bool {
    let Some(name) = dir.file_name().and_then(|n| n.to_str()) else { return false };
    if names::parse_topic_partition(name).is_none() {
        return false;
    }
    let entries = match fs::read_dir(dir) {
        Ok(entries) => entries,
        // A dir named like a partition that cannot be listed is one that does not read (a
        // finding of the reader), not a partition that is absent.
        Err(e) => return e.kind() == std::io::ErrorKind::PermissionDenied,
    };
    entries.flatten().any(|e| {
        let n = e.file_name();
        let n = n.to_string_lossy();
        (n.ends_with(names::LOG_SUFFIX) && names::parse_file_offset(&n).is_some())
            || n == names::LEADER_EPOCH_CHECKPOINT
            || n == names::PARTITION_METADATA
    })
}

/// What a log dir says about itself.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LogDirKind {
    /// It has `meta.properties`: a broker's (or klog's) log dir.
    Kafka,
    /// No `meta.properties`, but klog's state file.
    Klog,
    /// Partition dirs only: a partial copy, readable but never written.
    Partial,
}

/// Classify a log dir by the files Kafka (or klog) writes at its top level.
pub fn log_dir_kind(log_dir: &Path) -> LogDirKind {
    // Whatever is at the name counts (a `meta.properties` that is not a file is a finding of
    // the reader and a refusal of a writer, not a sign that the dir is a partial copy).
    let present = |name: &str| fs::symlink_metadata(log_dir.join(name)).is_ok();
    if present(META_PROPERTIES) {
        LogDirKind::Kafka
    } else if present(KLOG_STATE) {
        LogDirKind::Klog
    } else {
        LogDirKind::Partial
    }
}

/// The partition dirs directly under a log dir, in natural order (`t-2` before `t-10`).
pub fn list_partition_dirs(log_dir: &Path) -> Result<Vec<PathBuf>> {
    let mut out = Vec::new();
    for entry in fs::read_dir(log_dir).at(log_dir, "list directory")? {
        let entry = entry.at(log_dir, "list directory")?;
        // A symlinked partition dir is one, as Kafka's `File.isDirectory` follows the link.
        let is_dir = match entry.file_type().at(entry.path(), "stat")? {
            t if t.is_symlink() => fs::metadata(entry.path()).is_ok_and(|m| m.is_dir()),
            t => t.is_dir(),
        };
        if is_dir && looks_like_partition_dir(&entry.path()) {
            out.push(entry.path());
        }
    }
    out.sort_by_cached_key(|p| {
        let name = p.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
        match names::parse_topic_partition(&name) {
            Some((topic, partition)) => (topic, partition, name),
            None => (name.clone(), -1, name),
        }
    });
    Ok(out)
}

/// The directories directly under `path` that are brokers' log dirs (a `meta.properties`, or a
/// partition dir in them), in name order: what an operator meant by a folder of copies.
fn broker_dirs_under(path: &Path) -> Vec<PathBuf> {
    let Ok(entries) = fs::read_dir(path) else { return Vec::new() };
    let mut out: Vec<PathBuf> = entries
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|d| d.is_dir())
        .filter(|d| d.join("meta.properties").is_file() || list_partition_dirs(d).is_ok_and(|p| !p.is_empty()))
        .collect();
    out.sort();
    out
}

/// A command's path and `--partition`, checked before anything reads: the partition is a name,
/// never a path (`../B/demo-0` must not reach another log dir), and the path exists. Its
/// metadata (links followed).
pub fn checked_target(path: &Path, partition: Option<&str>) -> Result<fs::Metadata> {
    if let Some(want) = partition {
        names::parse_partition_name(want)
            .map_err(|why| Error::Usage(format!("--partition {}: {why}", crate::escape::arg(want))))?;
    }
    fs::metadata(path).map_err(|e| match e.kind() {
        std::io::ErrorKind::NotFound => Error::layout(path, "no such file or directory"),
        _ => Error::io(path, "stat", e),
    })
}

/// Resolve a command-line path (log dir or partition dir) to a replica's paths.
pub fn resolve(path: &Path, partition: Option<&str>) -> Result<ReplicaPaths> {
    let meta = checked_target(path, partition)?;
    if !meta.is_dir() {
        return Err(Error::layout(
            path,
            "not a directory (expected a Kafka log dir or partition dir; `klog dump FILE` reads one file)",
        ));
    }
    let (log_dir, partition_dir) = if looks_like_partition_dir(path) {
        own_partition_dir(path, partition)?
    } else {
        (path.to_path_buf(), choose_partition_dir(path, partition)?)
    };
    let name = partition_dir.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    let (topic, partition) = names::parse_topic_partition(&name)
        .ok_or_else(|| Error::layout(&partition_dir, "directory name is not <topic>-<partition>"))?;
    Ok(ReplicaPaths { log_dir, partition_dir, topic, partition })
}

/// `path` is a partition dir: its log dir (the dir above) and itself, unless `--partition`
/// names another partition.
fn own_partition_dir(path: &Path, partition: Option<&str>) -> Result<(PathBuf, PathBuf)> {
    let own = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    if let Some(want) = partition.filter(|w| *w != own) {
        return Err(Error::layout(
            path,
            format!("is the partition dir of {own}, but --partition names {want}; name the log dir above it"),
        ));
    }
    let parent = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    };
    Ok((parent, path.to_path_buf()))
}

/// The partition dir of log dir `path` a command works on: the one `--partition` names, else
/// the only one (or a tiered lab's topic); an error naming the choices otherwise.
fn choose_partition_dir(path: &Path, partition: Option<&str>) -> Result<PathBuf> {
    // A named partition is looked up directly (a data dir of thousands of partitions is
    // not listed once per partition); the listing is for choosing and for messages.
    if let Some(want) = partition {
        let dir = path.join(want);
        if names::parse_topic_partition(want).is_some() && looks_like_partition_dir(&dir) {
            return Ok(dir);
        }
    }
    let dirs = list_partition_dirs(path)?;
    let names: Vec<String> =
        dirs.iter().filter_map(|d| d.file_name().map(|n| n.to_string_lossy().into_owned())).collect();
    match partition {
        Some(want) => match names.iter().position(|n| n == want) {
            Some(i) => Ok(dirs[i].clone()),
            None if names.is_empty() => {
                Err(Error::layout(path, format!("no partition {want} here: it holds no partition dir")))
            }
            None => Err(Error::layout(path, format!("no partition {want} here (it holds {})", name_list(&names)))),
        },
        None => match dirs.len() {
            1 => Ok(dirs[0].clone()),
            0 => Err(no_partition_dir(path)),
            n => tiered_lab_partition(path, &dirs).ok_or_else(|| {
                Error::layout(
                    path,
                    format!("holds {n} partitions; pick one with --partition NAME ({})", name_list(&names)),
                )
            }),
        },
    }
}

/// The error for a dir holding no partition dir: it may be a folder of brokers' log dirs.
fn no_partition_dir(path: &Path) -> Error {
    let brokers = broker_dirs_under(path);
    if !brokers.is_empty() {
        let shown: Vec<String> = brokers.iter().map(|b| b.display().to_string()).collect();
        return Error::layout(
            path,
            format!(
                "not a Kafka log dir itself, but it holds {} broker dir(s): name them \
                 (`klog check {}` reads them as one cluster)",
                brokers.len(),
                shown.iter().take(10).cloned().collect::<Vec<_>>().join(" ")
            ),
        );
    }
    Error::layout(
        path,
        "not a Kafka log dir: no <topic>-<partition> directory holding Kafka files in it \
         (create one with `klog create`)",
    )
}

/// In a tiered lab (`klog create --remote-dir`: its state file records a remote storage dir),
/// the one partition that is not `__remote_log_metadata-N`: the lab's topic, what a command
/// without `--partition` works on (the metadata partition is the remote tier's, written by
/// `klog tier` and `fetch`).
fn tiered_lab_partition(log_dir: &Path, dirs: &[PathBuf]) -> Option<PathBuf> {
    let prefix = format!("{}-", crate::log::names::REMOTE_LOG_METADATA_TOPIC);
    let mut data = dirs.iter().filter(|d| !d.file_name().is_some_and(|n| n.to_string_lossy().starts_with(&prefix)));
    let (Some(one), None) = (data.next(), data.next()) else { return None };
    super::state_file::remote_storage_dir(log_dir).ok().flatten().map(|_| one.clone())
}

/// A partition of a log dir already read, by the name of its dir: looked up directly, so that
/// opening each of N partitions costs one partition dir each, never a listing of the log dir
/// (`resolve` first asks whether the log dir is itself a partition dir: a data dir named like
/// `kafka-1` would be listed once per partition). Names that do not resolve this way go
/// through `resolve`, for its refusal.
pub(super) fn resolve_in(log_dir: &Path, partition: &str) -> Result<ReplicaPaths> {
    let dir = log_dir.join(partition);
    let is_name = Path::new(partition).file_name().is_some_and(|n| n == partition);
    match names::parse_topic_partition(partition) {
        Some((topic, number)) if is_name && looks_like_partition_dir(&dir) => {
            Ok(ReplicaPaths { log_dir: log_dir.to_path_buf(), partition_dir: dir, topic, partition: number })
        }
        _ => resolve(log_dir, Some(partition)),
    }
}

/// Every partition of a log dir (for commands that act on a whole broker: `stop`, `crash`).
pub fn resolve_all(path: &Path, partition: Option<&str>) -> Result<Vec<ReplicaPaths>> {
    if partition.is_some() || looks_like_partition_dir(path) {
        return Ok(vec![resolve(path, partition)?]);
    }
    let dirs = match fs::metadata(path) {
        Ok(m) if m.is_dir() => list_partition_dirs(path)?,
        _ => return Ok(vec![resolve(path, None)?]),
    };
    if dirs.len() <= 1 {
        return Ok(vec![resolve(path, None)?]);
    }
    dirs.iter()
        .map(|d| {
            let name = d.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
            resolve(path, Some(&name))
        })
        .collect()
}

/// At most ten names, then how many more: a refusal stays one readable line.
fn name_list(names: &[String]) -> String {
    const SHOWN: usize = 10;
    if names.len() <= SHOWN {
        names.join(", ")
    } else {
        format!("{}, and {} more", names[..SHOWN].join(", "), names.len() - SHOWN)
    }
}

/// Writes never follow a symlink out of the log dir: a partition dir that is a symlink is read
/// (Kafka follows it) but not written through; the user names the dir it points to instead.
pub(super) fn refuse_symlinked_partition_dir(paths: &ReplicaPaths) -> Result<()> {
    let dir = &paths.partition_dir;
    match fs::symlink_metadata(dir) {
        Ok(m) if m.file_type().is_symlink() => {
            let target = fs::canonicalize(dir).map_or_else(|_| "?".to_string(), |t| t.display().to_string());
            Err(Error::layout(
                dir,
                format!(
                    "is a symlink (to {target}): klog reads through it but never writes through a symlink; \
                     name the partition dir it points to"
                ),
            ))
        }
        _ => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::replica::test_support::partition_dir;

    #[test]
    fn resolve_takes_a_log_dir_of_one_partition_or_the_partition_dir_itself() {
        let tmp = tempfile::tempdir().unwrap();
        let log_dir = tmp.path().join("a");
        let part = partition_dir(&log_dir, "demo-0");
        let want =
            ReplicaPaths { log_dir: log_dir.clone(), partition_dir: part.clone(), topic: "demo".into(), partition: 0 };
        assert_eq!(resolve(&log_dir, None).unwrap(), want);
        assert_eq!(resolve(&part, None).unwrap(), want);
        assert_eq!(resolve(&part, Some("demo-0")).unwrap(), want);
        assert_eq!(resolve_in(&log_dir, "demo-0").unwrap(), want);
        assert_eq!(want.name(), "demo-0");
        assert_eq!(want.log_dir_file("x"), log_dir.join("x"));
        let Err(Error::Layout { what, .. }) = resolve(&part, Some("demo-1")) else { panic!("accepted") };
        assert!(what.contains("--partition names demo-1"), "{what}");
    }

    #[test]
    fn a_partition_name_that_is_a_path_is_refused_before_anything_is_looked_up() {
        let tmp = tempfile::tempdir().unwrap();
        let a = tmp.path().join("a");
        partition_dir(&a, "demo-0");
        // Another log dir's partition, reachable from `a` by a relative path.
        partition_dir(&tmp.path().join("b"), "demo-0");
        for name in ["../b/demo-0", "demo-0/", "/etc", "./demo-0", ".."] {
            let Err(e) = resolve(&a, Some(name)) else { panic!("{name:?} resolved") };
            assert!(matches!(e, Error::Usage(_)), "{name:?}: {e}");
            assert!(e.to_string().starts_with("--partition "), "{e}");
            assert!(matches!(resolve_in(&a, name), Err(Error::Usage(_))), "{name:?} resolved in a log dir");
            assert!(matches!(resolve_all(&a, Some(name)), Err(Error::Usage(_))), "{name:?} resolved as all");
        }
    }

    #[test]
    fn a_log_dir_of_several_partitions_needs_one_named() {
        let tmp = tempfile::tempdir().unwrap();
        let log_dir = tmp.path().join("a");
        for name in ["t-10", "t-2", "t-1"] {
            partition_dir(&log_dir, name);
        }
        let Err(Error::Layout { what, .. }) = resolve(&log_dir, None) else { panic!("picked one") };
        assert_eq!(what, "holds 3 partitions; pick one with --partition NAME (t-1, t-2, t-10)");
        let Err(Error::Layout { what, .. }) = resolve(&log_dir, Some("t-3")) else { panic!("found t-3") };
        assert_eq!(what, "no partition t-3 here (it holds t-1, t-2, t-10)");
        assert_eq!(resolve(&log_dir, Some("t-2")).unwrap().partition, 2);
        let all: Vec<i32> = resolve_all(&log_dir, None).unwrap().iter().map(|p| p.partition).collect();
        assert_eq!(all, vec![1, 2, 10]);
    }

    #[test]
    fn only_dirs_named_like_partitions_and_holding_kafka_files_are_partitions() {
        let tmp = tempfile::tempdir().unwrap();
        let log_dir = tmp.path().join("a");
        partition_dir(&log_dir, "t-10");
        partition_dir(&log_dir, "t-9");
        fs::create_dir_all(log_dir.join("photos-2024")).unwrap(); // named like one, holds nothing of Kafka's
        partition_dir(&log_dir, "notes"); // holds a Kafka file, not named like one
        let segment_only = log_dir.join("u-0");
        fs::create_dir_all(&segment_only).unwrap();
        fs::write(segment_only.join("00000000000000000000.log"), b"").unwrap();
        fs::write(log_dir.join("v-0"), b"a file").unwrap();
        let listed: Vec<PathBuf> = list_partition_dirs(&log_dir).unwrap();
        assert_eq!(listed, vec![log_dir.join("t-9"), log_dir.join("t-10"), segment_only]);
        assert!(!looks_like_partition_dir(&log_dir.join("photos-2024")));
        assert!(!looks_like_partition_dir(&log_dir));
        let Err(Error::Layout { what, .. }) = resolve(&tmp.path().join("empty-missing"), None) else { panic!() };
        assert_eq!(what, "no such file or directory");
    }

    #[test]
    fn a_log_dir_is_kafka_klog_or_partial_by_its_top_level_files() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path();
        assert_eq!(log_dir_kind(dir), LogDirKind::Partial);
        fs::write(dir.join(KLOG_STATE), "{}").unwrap();
        assert_eq!(log_dir_kind(dir), LogDirKind::Klog);
        // Whatever is at the name counts, even a dir.
        fs::create_dir(dir.join(META_PROPERTIES)).unwrap();
        assert_eq!(log_dir_kind(dir), LogDirKind::Kafka);
    }

    #[test]
    fn a_symlinked_partition_dir_is_read_but_refused_for_writing() {
        let tmp = tempfile::tempdir().unwrap();
        let real = partition_dir(&tmp.path().join("elsewhere"), "demo-0");
        let log_dir = tmp.path().join("a");
        fs::create_dir_all(&log_dir).unwrap();
        std::os::unix::fs::symlink(&real, log_dir.join("demo-0")).unwrap();
        let paths = resolve(&log_dir, None).unwrap();
        assert_eq!(paths.partition_dir, log_dir.join("demo-0"));
        let Err(Error::Layout { what, .. }) = refuse_symlinked_partition_dir(&paths) else { panic!("accepted") };
        assert!(what.starts_with("is a symlink (to "), "{what}");
        assert!(refuse_symlinked_partition_dir(&resolve(&real, None).unwrap()).is_ok());
    }
}
