//! The files at a log dir's top level, read once for every partition under it: the three
//! offset checkpoints (high watermark, recovery point, log start), `meta.properties`, klog's
//! state file and the clean-shutdown marker; how a reader tolerates one that does not read (a
//! [`LoadProblem`]) while a writer refuses; and the log-dir-wide write paths (the checks of a
//! write open, every partition opened under one lock, the deferred checkpoints written once).

use super::meta_properties::read_meta_properties;
use super::paths::{list_partition_dirs, log_dir_kind, refuse_symlinked_partition_dir, resolve_all};
use super::state_file::{read_state_file, KlogStateFile};
use super::{DirLock, LogDirKind, Replica, ReplicaPaths};
use crate::durable;
use crate::error::{Error, Result};
use crate::log::checkpoint::{self, OffsetEntry};
use crate::log::names::{self, CLEAN_SHUTDOWN_MARKER, KLOG_STATE, META_PROPERTIES};
use crate::log::LogConfig;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// is taken as absent, and the reader shows it as a finding.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LoadProblem {
    pub path: PathBuf,
    /// Where in the file: the byte position (0 when the problem is the file itself, such as
    /// a FIFO where a file belongs).
    pub position: u64,
    /// The 1-based line, for a text file whose problem is a line.
    pub line: Option<usize>,
    pub what: String,
}

/// One partition's entry in an offset checkpoint: its offset, its 1-based line and where the
/// line starts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CheckpointValue {
    pub offset: i64,
    pub line: usize,
    pub position: u64,
}

/// An offset checkpoint read once: every entry by partition name (hashed: a lookup per
/// partition costs the same for 10 entries as for 100,000), and the entries in file order.
#[derive(Default)]
pub struct OffsetCheckpoint {
    by_name: std::collections::HashMap<String, CheckpointValue>,
    /// `(topic, partition)` of every entry, in file order.
    entries: Vec<(String, i32)>,
    /// Entries whose topic is no valid name (a path, say): Kafka reads them and they match no
    /// partition dir; a reader reports them.
    invalid_topics: Vec<LoadProblem>,
}

/// Said by every problem [`OffsetCheckpoint`] reports for an entry whose topic is no name.
pub const MATCHES_NO_PARTITION: &str = "Kafka reads the entry and it matches no partition dir";

impl OffsetCheckpoint {
    fn read(path: &Path) -> Result<OffsetCheckpoint> {
        let mut out = OffsetCheckpoint::default();
        checkpoint::read_offset_entries(path, &mut |e: OffsetEntry| {
            if let Err(why) = crate::log::names::validate_topic(&e.topic) {
                out.invalid_topics.push(LoadProblem {
                    path: path.to_path_buf(),
                    position: e.position,
                    line: Some(e.line),
                    what: format!("line {}: {why}: {} ({MATCHES_NO_PARTITION})", e.line, crate::escape::arg(&e.topic)),
                });
            }
            // A later line for the same partition wins, as in Kafka's map of the file.
            out.by_name.insert(
                format!("{}-{}", e.topic, e.partition),
                CheckpointValue { offset: e.offset, line: e.line, position: e.position },
            );
            out.entries.push((e.topic, e.partition));
            Ok(())
        })?;
        Ok(out)
    }

    /// The entry for partition dir name `name` (`<topic>-<partition>`).
    pub fn get(&self, name: &str) -> Option<CheckpointValue> {
        self.by_name.get(name).copied()
    }

    /// `(topic, partition)` of every entry, in file order.
    pub fn entries(&self) -> &[(String, i32)] {
        &self.entries
    }
}

impl LoadProblem {
    /// The problem an error of a read-only load stands for, if it is one a reader goes on
    /// after (bad bytes, a bad line, a name that is not a regular file, a file that cannot be
    /// opened or read: permission denied, an I/O error).
    pub fn from_error(e: &Error) -> Option<LoadProblem> {
        let (path, position, line) = match e {
            Error::Corrupt { path, position, .. } => (path, *position, None),
            Error::Malformed { path, line, .. } => (path, line_position(path, *line), Some(*line)),
            Error::NotRegular { path, .. } | Error::Io { path, .. } => (path, 0, None),
            _ => return None,
        };
        // The message without its leading path: the problem carries the path as data.
        let text = e.to_string();
        let what = text.strip_prefix(&format!("{}: ", path.display())).map_or(text.clone(), str::to_string);
        Some(LoadProblem { path: path.clone(), position, line, what })
    }
}

/// Byte position of 1-based `line` of the text file `path` (0 when it no longer reads).
fn line_position(path: &Path, line: usize) -> u64 {
    checkpoint::line_position(path, line)
}

/// The files at a log dir's top level, read once: klog's state file, the three offset
/// checkpoints (by partition name), `meta.properties`, the clean-shutdown marker. Readers of
/// every partition of a data dir open each partition with it ([`Replica::open_in`]), so the
/// work is linear in partitions plus bytes.
pub struct LogDirFiles {
    pub log_dir: PathBuf,
    pub(super) state: KlogStateFile,
    pub high_watermarks: OffsetCheckpoint,
    pub recovery_points: OffsetCheckpoint,
    pub log_start_offsets: OffsetCheckpoint,
    pub(super) meta: BTreeMap<String, String>,
    pub(super) clean_shutdown: bool,
    pub(super) kind: LogDirKind,
    /// Files that did not read (a tolerant read only).
    pub problems: Vec<LoadProblem>,
}

impl LogDirFiles {
    /// The checkpointed recovery point of a partition (0 when absent, as Kafka reads it).
    pub fn recovery_point(&self, name: &str) -> i64 {
        self.recovery_points.get(name).map_or(0, |v| v.offset)
    }

    /// The checkpointed log start of a partition (0 when absent, as Kafka reads it).
    pub fn log_start_offset(&self, name: &str) -> i64 {
        self.log_start_offsets.get(name).map_or(0, |v| v.offset)
    }

    /// The checkpointed high watermark of a partition, if listed.
    pub fn high_watermark(&self, name: &str) -> Option<i64> {
        self.high_watermarks.get(name).map(|v| v.offset)
    }

    /// The topic settings klog keeps for a partition (Kafka's defaults when it keeps none).
    pub fn log_config(&self, name: &str) -> LogConfig {
        self.state.partitions.get(name).and_then(|e| e.config).map(Into::into).unwrap_or_default()
    }

    /// Partitions klog's state file says are running (a broker that has not stopped).
    pub fn running_partitions(&self) -> Vec<String> {
        self.state.partitions.iter().filter(|(_, e)| e.state.is_some()).map(|(n, _)| n.clone()).collect()
    }

    /// `.kafka_cleanshutdown` was present when the files were read.
    pub fn clean_shutdown(&self) -> bool {
        self.clean_shutdown
    }

    /// Read the log dir's files for readers: a file that does not read is a problem, and its
    /// values are taken as absent.
    pub fn read_tolerant(log_dir: &Path) -> Result<LogDirFiles> {
        LogDirFiles::read(log_dir, Strictness::Tolerate)
    }

    pub(super) fn read(log_dir: &Path, strictness: Strictness) -> Result<LogDirFiles> {
        let mut problems = Vec::new();
        let state =
            tolerated(read_state_file(&log_dir.join(KLOG_STATE)), strictness, &mut problems)?.unwrap_or_default();
        let mut offsets = |name: &str| -> Result<OffsetCheckpoint> {
            Ok(tolerated(OffsetCheckpoint::read(&log_dir.join(name)), strictness, &mut problems)?.unwrap_or_default())
        };
        let log_start_offsets = offsets(names::LOG_START_OFFSET_CHECKPOINT)?;
        let high_watermarks = offsets(names::REPLICATION_OFFSET_CHECKPOINT)?;
        let recovery_points = offsets(names::RECOVERY_POINT_OFFSET_CHECKPOINT)?;
        for c in [&log_start_offsets, &high_watermarks, &recovery_points] {
            problems.extend(c.invalid_topics.iter().cloned());
        }
        let meta = tolerated(read_meta_properties(&log_dir.join(META_PROPERTIES)), strictness, &mut problems)?
            .unwrap_or_default();
        Ok(LogDirFiles {
            log_dir: log_dir.to_path_buf(),
            state,
            high_watermarks,
            recovery_points,
            log_start_offsets,
            meta,
            clean_shutdown: log_dir.join(CLEAN_SHUTDOWN_MARKER).exists(),
            kind: log_dir_kind(log_dir),
            problems,
        })
    }
}

/// A value read from a file: a writer stops at the first problem; a reader notes it and goes
/// on without the value (`None`).
pub(super) fn tolerated<T>(
    read: Result<T>,
    strictness: Strictness,
    problems: &mut Vec<LoadProblem>,
) -> Result<Option<T>> {
    match read {
        Ok(v) => Ok(Some(v)),
        Err(e) if strictness == Strictness::Tolerate => match LoadProblem::from_error(&e) {
            Some(problem) => {
                problems.push(problem);
                Ok(None)
            }
            None => Err(e),
        },
        Err(e) => Err(e),
    }
}

/// How strictly a load treats a file it cannot read.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum Strictness {
    /// A writer refuses: it must not act on a replica it does not fully understand.
    Refuse,
    /// A reader goes on without the value and reports the problem.
    Tolerate,
}

/// The checks a dry run makes of the log dir as a whole, refusing as the write would: a
/// partial copy, a temp name taken by something klog cannot replace, a `.lock` that is not a
/// plain file (probed, never taken or created). A lock another process holds does not refuse a
/// dry run (it never takes it): it is noted for stderr ([`DirLock::probe_for_dry_run`]).
pub fn check_log_dir_for_write(log_dir: &Path) -> Result<()> {
    check_log_dir_layout(log_dir)?;
    DirLock::probe_for_dry_run(log_dir)
}

/// The layout checks of a write open of `log_dir`, lock aside.
pub(super) fn check_log_dir_layout(log_dir: &Path) -> Result<()> {
    if log_dir_kind(log_dir) == LogDirKind::Partial {
        return Err(Error::layout(
            log_dir,
            "not a Kafka log dir (no meta.properties): klog reads a partial copy but never writes into one; to \
             write, copy the whole log dir (`cp -a`), its meta.properties included",
        ));
    }
    durable::check_temp_names(log_dir)
}

/// Every partition of one log dir opened for writing under its one lock, for the commands that
/// act on a whole broker (`stop`, `crash`). `targets` are the indexes in `replicas` that the
/// command line selected (all of them when it named the log dir without `--partition`).
pub struct LogDirWrite {
    pub lock: DirLock,
    pub replicas: Vec<Replica>,
    pub targets: Vec<usize>,
}

/// Open the log dir holding `path` for writing: refuse a dir that is not a Kafka log dir, take
/// its lock, load and validate every partition. Nothing is written.
pub fn open_log_dir_for_write(path: &Path, partition: Option<&str>) -> Result<LogDirWrite> {
    let selected = resolve_all(path, partition)?;
    let log_dir = selected[0].log_dir.clone();
    if log_dir_kind(&log_dir) == LogDirKind::Partial {
        return Err(Error::layout(
            &log_dir,
            "not a Kafka log dir (no meta.properties): klog reads a partial copy but never writes into one; to \
             write, copy the whole log dir (`cp -a`), its meta.properties included",
        ));
    }
    durable::check_temp_names(&log_dir)?;
    for p in &selected {
        refuse_symlinked_partition_dir(p)?;
    }
    let lock = DirLock::acquire(&log_dir)?;
    let mut all: Vec<ReplicaPaths> = list_partition_dirs(&log_dir)?
        .iter()
        .filter_map(|d| {
            let name = d.file_name()?.to_string_lossy().into_owned();
            let (topic, partition) = names::parse_topic_partition(&name)?;
            Some(ReplicaPaths { log_dir: log_dir.clone(), partition_dir: d.clone(), topic, partition })
        })
        .collect();
    // Hashed: every partition of a 10,000-partition dir is selected when the dir is named.
    let listed: std::collections::HashSet<PathBuf> = all.iter().map(|a| a.partition_dir.clone()).collect();
    for p in &selected {
        if !listed.contains(&p.partition_dir) {
            all.push(p.clone());
        }
    }
    let chosen: std::collections::HashSet<&Path> = selected.iter().map(|p| p.partition_dir.as_path()).collect();
    let targets =
        all.iter().enumerate().filter(|(_, a)| chosen.contains(a.partition_dir.as_path())).map(|(i, _)| i).collect();
    for p in &all {
        durable::check_temp_names(&p.partition_dir)?;
    }
    // The log dir's files are read (and validated) once, not once per partition.
    let files = LogDirFiles::read(&log_dir, Strictness::Refuse)?;
    let replicas =
        all.into_iter().map(|p| Replica::load_with(p, &files, None, Strictness::Refuse)).collect::<Result<_>>()?;
    Ok(LogDirWrite { lock, replicas, targets })
}

/// Write what the deferred setters of `replicas` (all of one log dir) held back: the HW and
/// recovery-point checkpoints and klog's state file, each read and written once (the metadata
/// log is never checkpointed), then end the deferral.
pub fn write_log_dir_files(replicas: &mut [&mut Replica]) -> Result<()> {
    let Some(first) = replicas.first() else { return Ok(()) };
    let log_dir = first.paths.log_dir.clone();
    assert!(replicas.iter().all(|r| r.paths.log_dir == log_dir), "replicas of one log dir");
    let logs: Vec<&&mut Replica> = replicas.iter().filter(|r| !r.is_metadata_log()).collect();
    let hw: Vec<(&str, i32, i64)> =
        logs.iter().map(|r| (r.paths.topic.as_str(), r.paths.partition, r.high_watermark)).collect();
    checkpoint::set_offset_entries(&log_dir.join(names::REPLICATION_OFFSET_CHECKPOINT), &hw)?;
    let rp: Vec<(&str, i32, i64)> =
        logs.iter().map(|r| (r.paths.topic.as_str(), r.paths.partition, r.recovery_point)).collect();
    checkpoint::set_offset_entries(&log_dir.join(names::RECOVERY_POINT_OFFSET_CHECKPOINT), &rp)?;
    let path = log_dir.join(KLOG_STATE);
    let mut file = read_state_file(&path)?;
    for r in replicas.iter() {
        file.record(r);
    }
    file.write(&path)?;
    for r in replicas.iter_mut() {
        r.defer_log_dir_writes = false;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::super::test_support::{append, new_log_dir};
    use super::super::Role;
    use super::*;
    use std::fs;

    #[test]
    fn a_tolerant_read_notes_a_malformed_checkpoint_and_reads_the_rest() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = new_log_dir(&tmp.path().join("a"), 1, "demo", 1);
        let hw_path = dir.join(names::REPLICATION_OFFSET_CHECKPOINT);
        fs::write(&hw_path, "0\n1\ndemo 0 zz\n").unwrap();
        fs::write(dir.join(names::RECOVERY_POINT_OFFSET_CHECKPOINT), "0\n1\ndemo 0 7\n").unwrap();

        let files = LogDirFiles::read_tolerant(&dir).unwrap();
        assert_eq!(files.problems.len(), 1, "{:?}", files.problems);
        let problem = &files.problems[0];
        assert_eq!((problem.path.as_path(), problem.line, problem.position), (hw_path.as_path(), Some(3), 4));
        assert!(problem.what.starts_with("malformed at line 3: "), "{}", problem.what);
        assert!(problem.what.contains("\"zz\""), "{}", problem.what);
        assert_eq!(files.high_watermark("demo-0"), None, "the value of a file that did not read is absent");
        assert_eq!(files.recovery_point("demo-0"), 7);
        assert_eq!(files.log_start_offset("demo-0"), 0);
        assert_eq!(files.running_partitions(), vec!["demo-0".to_string()]);
        assert!(!files.clean_shutdown());

        // A reader opens the partition with the problem noted; a writer refuses.
        let r = Replica::open(&dir, None).unwrap();
        assert_eq!(r.problems(), &files.problems[..]);
        assert_eq!((r.high_watermark(), r.recovery_point()), (0, 7));
        assert!(matches!(LogDirFiles::read(&dir, Strictness::Refuse), Err(Error::Malformed { line: 3, .. })));
        assert!(matches!(Replica::open_for_write(&dir, None), Err(Error::Malformed { line: 3, .. })));
    }

    #[test]
    fn the_last_line_for_a_partition_wins_and_entries_keep_file_order() {
        let tmp = tempfile::tempdir().unwrap();
        let path = tmp.path().join("cp");
        fs::write(&path, "0\n3\nb 1 5\na 0 6\nb 1 9\n").unwrap();
        let cp = OffsetCheckpoint::read(&path).unwrap();
        assert_eq!(cp.get("b-1"), Some(CheckpointValue { offset: 9, line: 5, position: 16 }));
        assert_eq!(cp.get("a-0").map(|v| v.offset), Some(6));
        assert_eq!(cp.get("c-0"), None);
        let order: Vec<(&str, i32)> = cp.entries().iter().map(|(t, p)| (t.as_str(), *p)).collect();
        assert_eq!(order, vec![("b", 1), ("a", 0), ("b", 1)]);
    }

    #[test]
    fn deferred_checkpoint_writes_land_once_for_every_partition() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = new_log_dir(&tmp.path().join("a"), 1, "t", 2);
        let hw_path = dir.join(names::REPLICATION_OFFSET_CHECKPOINT);
        let before = fs::read_to_string(&hw_path).unwrap();
        let mut w = open_log_dir_for_write(&dir, None).unwrap();
        assert_eq!(w.targets, vec![0, 1]);
        for r in &mut w.replicas {
            r.start().unwrap();
            r.set_defer_log_dir_writes(true);
            append(r, 2, 0);
            r.set_high_watermark(2).unwrap();
            r.set_leader(1, Vec::new());
            r.save_state().unwrap();
        }
        assert_eq!(fs::read_to_string(&hw_path).unwrap(), before, "deferred: nothing written yet");
        assert!(Replica::open(&dir, Some("t-0")).unwrap().role() == Some(Role::Follower));

        let mut all: Vec<&mut Replica> = w.replicas.iter_mut().collect();
        write_log_dir_files(&mut all).unwrap();
        assert!(w.replicas.iter().all(|r| !r.defer_log_dir_writes()));
        assert_eq!(fs::read_to_string(&hw_path).unwrap(), "0\n2\nt 0 2\nt 1 2\n");
        for p in ["t-0", "t-1"] {
            let r = Replica::open(&dir, Some(p)).unwrap();
            assert_eq!((r.high_watermark(), r.role()), (2, Some(Role::Leader)), "{p}");
        }
    }

    #[test]
    fn a_write_open_of_a_log_dir_selects_its_targets_and_refuses_a_partial_copy() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = new_log_dir(&tmp.path().join("a"), 1, "t", 3);
        let w = open_log_dir_for_write(&dir, Some("t-1")).unwrap();
        assert_eq!(w.replicas.len(), 3, "every partition is opened under the one lock");
        assert_eq!(w.targets, vec![1]);
        assert_eq!(w.replicas[1].paths().name(), "t-1");
        drop(w);

        check_log_dir_for_write(&dir).unwrap();
        fs::remove_file(dir.join(META_PROPERTIES)).unwrap();
        fs::remove_file(dir.join(KLOG_STATE)).unwrap();
        for refusal in [check_log_dir_for_write(&dir), open_log_dir_for_write(&dir, None).map(|_| ())] {
            let Err(Error::Layout { what, .. }) = refusal else { panic!("wrote into a partial copy") };
            assert!(what.starts_with("not a Kafka log dir (no meta.properties)"), "{what}");
        }
    }

    #[test]
    fn a_problem_is_made_only_from_errors_a_reader_goes_on_after() {
        let corrupt = Error::corrupt("/d/f", 12, "bad bytes");
        let problem = LoadProblem::from_error(&corrupt).unwrap();
        assert_eq!((problem.path, problem.position, problem.line), (PathBuf::from("/d/f"), 12, None));
        assert_eq!(problem.what, corrupt.to_string().strip_prefix("/d/f: ").unwrap());
        assert!(LoadProblem::from_error(&Error::Usage("no".into())).is_none());
        assert!(LoadProblem::from_error(&Error::layout("/d", "no")).is_none());
    }
}
