//! Whole broker data dirs: the questions an operator asks of every partition at once — "if this
//! broker restarts as a follower of that one, what does each partition truncate and lose?",
//! "what will the loader cut after this unclean shutdown?", "where do these two brokers' copies
//! diverge?". Each answer is the single-partition command run on every partition (the same
//! code, so a data-dir plan never disagrees with a per-partition run), spread over the cores,
//! in a stable order. Never writes.

use super::recover::{self, FollowerRecoverReport, LogDirsRead, RecoverReport, RecoverRequest};
use super::ProgressSink;
use crate::error::{Error, Result};
use crate::replica::{list_partition_dirs, looks_like_partition_dir, LogDirFiles, Replica};
use crate::replication::diff::{diff_logs, DiffOutcome};
use crate::replication::truncation::TruncationMode;
use std::collections::{BTreeMap, HashSet};
use std::path::Path;

/// Whether `path` is a log dir holding more than one partition: the data-dir forms apply.
pub fn holds_several_partitions(path: &Path) -> bool {
    !looks_like_partition_dir(path) && list_partition_dirs(path).is_ok_and(|d| d.len() > 1)
}

/// Partition names of a log dir, in natural order.
fn partition_names(dir: &Path) -> Result<Vec<String>> {
    Ok(list_partition_dirs(dir)?
        .iter()
        .filter_map(|d| d.file_name().map(|n| n.to_string_lossy().into_owned()))
        .collect())
}

/// The names both sides hold (both lists are in natural order, so the order is theirs) and
/// those only one holds (`a`'s, then `b`'s), by hashed lookups: linear in both.
fn pair_names(
    a: &[String],
    b: &[String],
    a_side: &'static str,
    b_side: &'static str,
) -> (Vec<String>, Vec<(String, &'static str)>) {
    let in_a: HashSet<&str> = a.iter().map(String::as_str).collect();
    let in_b: HashSet<&str> = b.iter().map(String::as_str).collect();
    let common = b.iter().filter(|n| in_a.contains(n.as_str())).cloned().collect();
    let mut one_side: Vec<(String, &'static str)> =
        a.iter().filter(|n| !in_b.contains(n.as_str())).map(|n| (n.clone(), a_side)).collect();
    one_side.extend(b.iter().filter(|n| !in_a.contains(n.as_str())).map(|n| (n.clone(), b_side)));
    (common, one_side)
}

/// One partition's answer, or why it has none (a refusal is a per-partition finding here).
#[derive(Debug)]
pub struct PartitionOutcome<T> {
    pub partition: String,
    pub outcome: std::result::Result<T, String>,
}

/// `recover --dry-run --leader L F` over every partition F and L both hold.
#[derive(Debug)]
pub struct RestartPlan {
    pub leader_dir: String,
    pub follower_dir: String,
    pub mode: TruncationMode,
    pub partitions: Vec<PartitionOutcome<Box<FollowerRecoverReport>>>,
    /// Partitions only one side holds: (name, which side).
    pub one_side: Vec<(String, &'static str)>,
}

impl RestartPlan {
    /// Acked records the restart would lose (truncated, or kept while the leader holds another
    /// record there), over every partition.
    pub fn acked_lost(&self) -> u64 {
        self.partitions
            .iter()
            .filter_map(|p| p.outcome.as_ref().ok())
            .map(|r| r.counts.acked_lost + r.counts.diverged_acked)
            .sum()
    }
}

/// Run `f` over `items` on one thread per core, results in the items' order. The calling
/// thread is one of the workers and reports `(done, total)` items to `progress` as it goes.
/// Memory: one result per item, and whatever one `f` call holds per thread.
pub fn parallel_map<T: Sync, R: Send>(
    items: &[T],
    f: impl Fn(&T) -> R + Sync,
    progress: &mut dyn ProgressSink,
) -> Vec<R> {
    use std::sync::atomic::{AtomicUsize, Ordering};
    let threads = std::thread::available_parallelism().map_or(2, |n| n.get()).min(items.len()).max(1);
    let (next, done) = (AtomicUsize::new(0), AtomicUsize::new(0));
    let slots: Vec<std::sync::Mutex<Option<R>>> = items.iter().map(|_| std::sync::Mutex::new(None)).collect();
    let work = || loop {
        let i = next.fetch_add(1, Ordering::Relaxed);
        let Some(item) = items.get(i) else { break };
        let r = f(item);
        *slots[i].lock().unwrap_or_else(|e| e.into_inner()) = Some(r);
        done.fetch_add(1, Ordering::Relaxed);
    };
    std::thread::scope(|scope| {
        for _ in 1..threads {
            scope.spawn(work);
        }
        loop {
            let i = next.fetch_add(1, Ordering::Relaxed);
            let Some(item) = items.get(i) else { break };
            let r = f(item);
            *slots[i].lock().unwrap_or_else(|e| e.into_inner()) = Some(r);
            let finished = done.fetch_add(1, Ordering::Relaxed) + 1;
            progress.update(finished as u64, items.len() as u64);
        }
    });
    progress.update(items.len() as u64, items.len() as u64);
    slots.into_iter().map(|s| s.into_inner().unwrap_or_else(|e| e.into_inner()).expect("every item ran")).collect()
}

/// The restart plan of follower data dir `f` against leader data dir `l`: per partition they
/// share, where `f` would truncate and what it would lose (the dry run of `recover --leader`).
pub fn restart_plan(
    l: &Path,
    f: &Path,
    mode: TruncationMode,
    context: i64,
    fencing: bool,
    progress: &mut dyn ProgressSink,
) -> Result<RestartPlan> {
    crate::replica::ensure_distinct_log_dirs(l, f)?;
    let (ln, fnames) = (partition_names(l)?, partition_names(f)?);
    let (common, one_side) = pair_names(&ln, &fnames, "leader", "follower");
    // Each side's log-dir files are read once, not once per partition.
    let (leader_files, follower_files) = (LogDirFiles::read_tolerant(l)?, LogDirFiles::read_tolerant(f)?);
    // Each partition's dry run is that of `recover --leader L F --partition P`, whose checks of
    // the log dirs as a whole are made here once: they refuse every partition alike.
    crate::replica::check_log_dir_for_write(l)?;
    crate::replica::check_log_dir_for_write(f)?;
    let read = LogDirsRead { dir: Some(&follower_files), leader: Some(&leader_files) };
    let partitions = parallel_map(
        &common,
        |name| {
            let req = RecoverRequest {
                dir: f,
                partition: Some(name),
                leader: Some(l),
                mode,
                dry_run: true,
                catch_up: false,
                context,
                leader_epoch: None,
            };
            let outcome = match recover::run_fenced_in(&req, fencing, read) {
                Ok(RecoverReport::Follower(r)) => Ok(r),
                Ok(RecoverReport::Local(_)) => Err("no leader".to_string()),
                Err(e) => Err(refusal(&e)),
            };
            PartitionOutcome { partition: name.clone(), outcome }
        },
        progress,
    );
    Ok(RestartPlan {
        leader_dir: l.display().to_string(),
        follower_dir: f.display().to_string(),
        mode,
        partitions,
        one_side,
    })
}

/// A per-partition error as one line without the path prefix the partition name replaces.
fn refusal(e: &Error) -> String {
    match e {
        Error::Layout { what, .. } | Error::State { what, .. } => what.clone(),
        other => other.to_string(),
    }
}

/// `diff DATA_DIR_A DATA_DIR_B`: every partition paired by name.
#[derive(Debug)]
pub struct DataDirDiff {
    pub a: String,
    pub b: String,
    pub partitions: Vec<PartitionOutcome<DiffOutcome>>,
    pub one_side: Vec<(String, &'static str)>,
    /// Why the two dirs may not be copies of one cluster's partitions.
    pub warnings: Vec<String>,
}

impl DataDirDiff {
    /// Any partition diverging, failing to compare, or held by one side only.
    pub fn differs(&self) -> bool {
        !self.one_side.is_empty()
            || self.partitions.iter().any(|p| p.outcome.as_ref().map_or(true, |d| !d.identical_up_to_shorter()))
    }
}

pub fn diff_data_dirs(a: &Path, b: &Path, progress: &mut dyn ProgressSink) -> Result<DataDirDiff> {
    let (an, bn) = (partition_names(a)?, partition_names(b)?);
    let (common, one_side) = pair_names(&an, &bn, "A", "B");
    let mut warnings = Vec::new();
    let (files_a, files_b) =
        (crate::replica::LogDirFiles::read_tolerant(a)?, crate::replica::LogDirFiles::read_tolerant(b)?);
    let partitions = parallel_map(
        &common,
        |name| {
            let pair = Replica::open_in(&files_a, name).and_then(|ra| Ok((ra, Replica::open_in(&files_b, name)?)));
            let outcome = match pair {
                Ok((ra, rb)) => {
                    let warnings = super::diff::pair_warnings(&ra, &rb);
                    diff_logs(ra.log(), rb.log()).map(|d| (d, warnings)).map_err(|e| refusal(&e))
                }
                Err(e) => Err(refusal(&e)),
            };
            (name.clone(), outcome)
        },
        progress,
    )
    .into_iter()
    .map(|(partition, outcome)| {
        let outcome = outcome.map(|(d, found)| {
            for w in found {
                if !warnings.contains(&w) {
                    warnings.push(w);
                }
            }
            d
        });
        PartitionOutcome { partition, outcome }
    })
    .collect();
    Ok(DataDirDiff { a: a.display().to_string(), b: b.display().to_string(), partitions, one_side, warnings })
}

/// `check DATA_DIR`: every partition, and the log-dir files themselves.
#[derive(Debug)]
pub struct DataDirCheck {
    pub dir: String,
    /// Partitions with findings (or that could not be read) first, then the clean ones; each
    /// group in natural order.
    pub partitions: Vec<PartitionOutcome<super::check::CheckReport>>,
    /// Findings about the log dir's own files (checkpoints, `meta.properties`, klog's state).
    pub dir_findings: Vec<super::check::Finding>,
    /// Facts that are not corruption: partitions the checkpoints list but that are not on disk
    /// (Kafka leaves such entries after a deletion or move), an unclean shutdown, a partial copy.
    pub notes: Vec<String>,
}

impl DataDirCheck {
    pub fn is_clean(&self) -> bool {
        self.dir_findings.is_empty() && self.partitions.iter().all(|p| p.outcome.as_ref().is_ok_and(|r| r.is_clean()))
    }
}

/// What Kafka itself refuses in `meta.properties` (Kafka 4.4's `MetaProperties.Builder` and
/// `build`, compared by `tests/cli/oracle_meta.rs`): a version that is not 0 or 1 (a missing one
/// is 0); for version 1 a missing or non-integer `node.id` and a missing `cluster.id`; for version
/// 0 a `broker.id` that is present but not an integer; a `directory.id` that is not a `Uuid`.
/// Cluster ids that are not UUIDs are accepted, as Kafka accepts them.
fn meta_properties_findings(path: &Path) -> Vec<super::check::Finding> {
    use crate::replica::read_meta_properties;
    // A key's finding is about the whole file (position 0): properties keys have no one place.
    let finding = |what: String| super::check::Finding::new(path, 0, None, what);
    let meta = match read_meta_properties(path) {
        Ok(m) => m,
        Err(e) => {
            return crate::replica::LoadProblem::from_error(&e).map_or_else(
                || vec![finding(e.to_string())],
                |p| vec![super::check::Finding::new(path, p.position, None, p.what).on_line(p.line)],
            )
        }
    };
    if meta.is_empty() {
        return Vec::new();
    }
    let version = meta.get("version").map_or("0", String::as_str);
    let mut out = Vec::new();
    let int_key = |k: &str, required: bool, out: &mut Vec<_>| match meta.get(k) {
        None if required => {
            out.push(finding(format!("no {k}: Kafka refuses a version {version} meta.properties without it")))
        }
        Some(v) if v.parse::<i32>().is_err() => out.push(finding(format!("{k} {v:?} is not a 32-bit integer"))),
        _ => {}
    };
    match version.trim().parse::<i32>() {
        Ok(0) => int_key("broker.id", false, &mut out),
        Ok(1) => {
            int_key("node.id", true, &mut out);
            if !meta.contains_key("cluster.id") {
                out.push(finding("no cluster.id: Kafka refuses a version 1 meta.properties without it".into()));
            }
        }
        Ok(v) => out.push(finding(format!("unknown meta.properties version {v} (Kafka knows 0 and 1)"))),
        Err(_) => out.push(finding(format!("meta.properties version {version:?} is not a number"))),
    }
    if let Some(Err(e)) = meta.get("directory.id").map(|d| crate::util::uuid_from_string(d)) {
        out.push(finding(format!("directory.id: {e}")));
    }
    out
}

pub fn check_data_dir(dir: &Path, progress: &mut dyn ProgressSink) -> Result<DataDirCheck> {
    use crate::log::names;
    let names_on_disk = partition_names(dir)?;
    let log_dir_files: Vec<std::path::PathBuf> = [
        names::REPLICATION_OFFSET_CHECKPOINT,
        names::RECOVERY_POINT_OFFSET_CHECKPOINT,
        names::LOG_START_OFFSET_CHECKPOINT,
        names::META_PROPERTIES,
        names::KLOG_STATE,
    ]
    .iter()
    .map(|n| dir.join(n))
    .collect();
    let mut dir_findings = meta_properties_findings(&dir.join(names::META_PROPERTIES));
    let mut notes = Vec::new();
    // The log dir's own files are read once, not once per partition.
    let files = LogDirFiles::read_tolerant(dir)?;
    let on_disk: HashSet<&str> = names_on_disk.iter().map(String::as_str).collect();
    // Partitions a checkpoint lists but that are not on disk, with the checkpoints naming them
    // (sorted and looked up by key: 100,000 such entries cost a sort, never a scan each).
    let mut missing: BTreeMap<(&str, i32), Vec<&str>> = BTreeMap::new();
    for (name, listed) in [
        (names::REPLICATION_OFFSET_CHECKPOINT, &files.high_watermarks),
        (names::RECOVERY_POINT_OFFSET_CHECKPOINT, &files.recovery_points),
        (names::LOG_START_OFFSET_CHECKPOINT, &files.log_start_offsets),
    ] {
        let path = dir.join(name);
        for p in files.problems.iter().filter(|p| p.path == path) {
            dir_findings.push(super::check::Finding::new(&path, p.position, None, p.what.clone()).on_line(p.line));
        }
        for (topic, partition) in listed.entries() {
            if on_disk.contains(format!("{topic}-{partition}").as_str()) {
                continue;
            }
            let in_files = missing.entry((topic.as_str(), *partition)).or_default();
            if !in_files.contains(&name) {
                in_files.push(name);
            }
        }
    }
    for ((topic, partition), in_files) in &missing {
        notes.push(format!(
            "{topic}-{partition} is listed in {} but not on disk (Kafka leaves such entries after a deletion or move)",
            in_files.join(" and ")
        ));
    }
    if crate::replica::log_dir_kind(dir) == crate::replica::LogDirKind::Partial {
        notes.push("no meta.properties: a partial copy of a log dir".into());
    }
    let mut partitions = parallel_map(
        &names_on_disk,
        |name| {
            let outcome = Replica::open_in(&files, name)
                .and_then(|r| super::check::check_replica(r, &mut super::NoProgress))
                .map_err(|e| refusal(&e));
            PartitionOutcome { partition: name.clone(), outcome }
        },
        progress,
    );
    // Problems of the log dir's own files are reported once, not once per partition.
    for p in &mut partitions {
        if let Ok(r) = &mut p.outcome {
            r.findings.retain(|f| {
                // A file that did not read at all (no position, no offset) is the dir's problem;
                // a checkpoint value wrong for this partition stays with it.
                let dir_level = log_dir_files.contains(&f.path) && files.problems.iter().any(|p| p.path == f.path);
                if dir_level && !dir_findings.iter().any(|d| d.path == f.path && d.what == f.what) {
                    dir_findings.push(f.clone());
                }
                !dir_level
            });
            r.notes.retain(|n| !n.starts_with("not shut down cleanly"));
        }
    }
    let clean_marker = dir.join(names::CLEAN_SHUTDOWN_MARKER).exists();
    if !clean_marker {
        notes.push("not shut down cleanly: a broker would run local recovery on every partition".into());
    }
    // Findings first, each group in natural order (a stable sort keeps it).
    partitions.sort_by_key(|p| p.outcome.as_ref().is_ok_and(|r| r.is_clean()));
    Ok(DataDirCheck { dir: dir.display().to_string(), partitions, dir_findings, notes })
}
