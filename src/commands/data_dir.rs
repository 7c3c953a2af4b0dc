//! Whole broker data dirs: the questions an operator asks of every partition at once — "if this
//! broker restarts as a follower of that one, what does each partition truncate and lose?",
//! "what will the loader cut after this unclean shutdown?", "where do these two brokers' copies
//! diverge?". Each answer is the single-partition command run on every partition (the same
//! code, so a data-dir plan never disagrees with a per-partition run), spread over the cores,
//! in a stable order. Never writes.

use super::recover::{self, FollowerRecoverReport, LogDirsRead, RecoverReport, RecoverRequest};
use crate::error::{Error, Result};
use crate::parallel::parallel_map;
use crate::parallel::ProgressSink;
use crate::replica::{list_partition_dirs, looks_like_partition_dir, LogDirFiles, Replica};
use crate::replication::diff::{diff_logs, DiffOutcome};
use crate::replication::release::Rules;
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
    pub rules: Rules,
    /// The metadata log the plan took each partition's leader and epoch from, if any.
    pub metadata: Option<(String, i64)>,
    pub partitions: Vec<PartitionOutcome<Box<FollowerRecoverReport>>>,
    /// Partitions only one side holds: (name, which side).
    pub one_side: Vec<(String, &'static str)>,
    /// Partitions both hold that the plan leaves out, with why (the KRaft metadata log).
    pub left_out: Vec<(String, &'static str)>,
    /// What may make the two dirs not what they seem (one node id, no cluster.id).
    pub warnings: Vec<String>,
}

impl RestartPlan {
    /// Acked records the restart would lose (truncated, or kept while the leader holds another
    /// record there), over every partition.
    pub fn acked_lost(&self) -> u64 {
        self.partitions.iter().filter_map(|p| p.outcome.as_ref().ok()).map(|r| r.counts.acked_and_lost()).sum()
    }

    /// Partitions with a plan (the others were refused).
    pub fn planned_count(&self) -> usize {
        self.partitions.iter().filter(|p| p.outcome.is_ok()).count()
    }

    pub fn refused_count(&self) -> usize {
        self.partitions.len() - self.planned_count()
    }

    /// The partitions only the leader (`"leader"`) or only the follower (`"follower"`) holds.
    pub fn only_on(&self, side: &str) -> Vec<&str> {
        self.one_side.iter().filter(|(_, s)| *s == side).map(|(n, _)| n.as_str()).collect()
    }
}

/// The restart plan of follower data dir `req.dir` against leader data dir `req.leader`: per
/// partition they share, where the follower would truncate and what it would lose — each
/// partition's line is the dry run of `recover --leader L F --partition P` with the request's
/// every flag (mode, context, fencing), so a plan never disagrees with a per-partition run.
pub fn restart_plan(req: &RecoverRequest<'_>, progress: &mut dyn ProgressSink) -> Result<RestartPlan> {
    let (Some(l), f) = (req.leader, req.dir) else {
        return Err(Error::Usage("a restart plan needs --leader".into()));
    };
    if let Some(e) = req.leader_epoch {
        // The controller's epoch is one partition's; applied to every partition it would be
        // wrong for all but one.
        return Err(Error::Usage(format!(
            "--leader-epoch {e} is the epoch of one partition's leader, and {} holds several: add --partition NAME",
            f.display()
        )));
    }
    crate::replica::ensure_distinct_log_dirs(l, f)?;
    let ids = [crate::replica::DirIds::read(l), crate::replica::DirIds::read(f)];
    crate::replica::ensure_one_cluster(&ids, req.allow_other_cluster)?;
    let (ln, fnames) = (partition_names(l)?, partition_names(f)?);
    let (mut common, one_side) = pair_names(&ln, &fnames, "leader", "follower");
    let metadata_log = format!("{}-0", crate::log::names::METADATA_TOPIC);
    let left_out: Vec<(String, &'static str)> = common
        .iter()
        .filter(|n| **n == metadata_log)
        .map(|n| (n.clone(), super::recover::METADATA_LOG_LEFT_OUT))
        .collect();
    common.retain(|n| *n != metadata_log);
    // Each side's log-dir files are read once, not once per partition.
    let (leader_files, follower_files) = (LogDirFiles::read_tolerant(l)?, LogDirFiles::read_tolerant(f)?);
    // Each partition's dry run is that of `recover --leader L F --partition P`, whose checks of
    // the log dirs as a whole are made here once: they refuse every partition alike.
    crate::replica::check_log_dir_for_write(l)?;
    crate::replica::check_log_dir_for_write(f)?;
    // The metadata log is replayed once for every partition.
    let metadata = crate::kraft::RecordedMetadata::find(l, f, req.metadata)?;
    if let Some(m) = &metadata {
        crate::replica::ensure_metadata_of(&m.log_dir, &ids, req.allow_other_cluster)?;
    }
    let read = LogDirsRead { dir: Some(&follower_files), leader: Some(&leader_files), metadata: Some(&metadata) };
    let partitions = parallel_map(
        &common,
        |name| {
            let one = RecoverRequest { partition: Some(name), dry_run: true, catch_up: false, ..*req };
            let outcome = match recover::run_in(&one, read) {
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
        rules: req.rules,
        metadata: metadata.as_ref().map(|m| (m.metadata_dir.display().to_string(), m.log_end_offset)),
        partitions,
        one_side,
        left_out,
        warnings: crate::replica::same_node_id_warning(l, f).into_iter().collect(),
    })
}

/// A per-partition error as one line without the path prefix the partition name replaces.
fn refusal(e: &Error) -> String {
    match e {
        Error::Layout { what, .. } | Error::State { what, .. } | Error::Refuses { what, .. } => what.clone(),
        other => other.to_string(),
    }
}

/// One partition of a data-dir diff: the record-by-record outcome and each side's log end.
#[derive(Debug)]
pub struct PartitionDiff {
    pub diff: DiffOutcome,
    pub a_log_end_offset: i64,
    pub b_log_end_offset: i64,
}

impl std::ops::Deref for PartitionDiff {
    type Target = DiffOutcome;
    fn deref(&self) -> &DiffOutcome {
        &self.diff
    }
}

/// `diff DATA_DIR_A DATA_DIR_B`: every partition paired by name.
#[derive(Debug)]
pub struct DataDirDiff {
    pub a: String,
    pub b: String,
    pub partitions: Vec<PartitionOutcome<PartitionDiff>>,
    pub one_side: Vec<(String, &'static str)>,
    /// Why the two dirs may not be copies of one cluster's partitions.
    pub warnings: Vec<String>,
}

impl DataDirDiff {
    /// Partitions both sides hold that differ or failed to compare.
    pub fn differing_count(&self) -> usize {
        self.partitions.iter().filter(|p| p.outcome.as_ref().map_or(true, |d| !d.identical_up_to_shorter())).count()
    }

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
                    let warnings = crate::replica::pair_warnings(&ra, &rb);
                    let (a_log_end_offset, b_log_end_offset) = (ra.log_end_offset(), rb.log_end_offset());
                    diff_logs(ra.log(), rb.log())
                        .map(|diff| (PartitionDiff { diff, a_log_end_offset, b_log_end_offset }, warnings))
                        .map_err(|e| refusal(&e))
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
    pub partitions: Vec<PartitionOutcome<crate::replica::CheckReport>>,
    /// Findings about the log dir's own files (checkpoints, `meta.properties`, klog's state).
    pub dir_findings: Vec<crate::log::verify::Finding>,
    /// Facts that are not corruption: partitions the checkpoints list but that are not on disk
    /// (Kafka leaves such entries after a deletion or move), an unclean shutdown, a partial copy.
    pub notes: Vec<String>,
}

/// What `check DATA_DIR` read and found over the partitions that could be read.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct CheckTotals {
    pub segment_count: usize,
    pub record_count: u64,
    pub bytes_checked: u64,
    pub finding_count: usize,
    /// Partitions with findings or that could not be read.
    pub partitions_with_findings: usize,
}

impl DataDirCheck {
    pub fn totals(&self) -> CheckTotals {
        let mut t = CheckTotals::default();
        for p in &self.partitions {
            match &p.outcome {
                Ok(c) => {
                    t.segment_count += c.verification.segment_count;
                    t.record_count += c.verification.record_count;
                    t.bytes_checked += c.verification.bytes_checked;
                    t.finding_count += c.verification.findings.len();
                    t.partitions_with_findings += usize::from(!c.is_clean());
                }
                Err(_) => t.partitions_with_findings += 1,
            }
        }
        t
    }

    pub fn is_clean(&self) -> bool {
        self.dir_findings.is_empty() && self.partitions.iter().all(|p| p.outcome.as_ref().is_ok_and(|r| r.is_clean()))
    }
}

/// What Kafka itself refuses in `meta.properties` (Kafka 4.4's `MetaProperties.Builder` and
/// `build`, compared by `tests/kafka/oracle_meta.rs`): a version that is not 0 or 1 (a missing one
/// is 0); for version 1 a missing or non-integer `node.id` and a missing `cluster.id`; for version
/// 0 a `broker.id` that is present but not an integer, and a missing one (which `build` takes
/// but `KafkaRaftServer` refuses to start on: "node ID not found"); a `directory.id` that is not
/// a `Uuid`. Cluster ids that are not UUIDs are accepted, as Kafka accepts them; a version 0
/// file without a cluster.id is an era's (before 0.10.1), not a finding.
fn meta_properties_findings(path: &Path) -> Vec<crate::log::verify::Finding> {
    use crate::replica::read_meta_properties;
    // A key's finding is about the whole file (position 0): properties keys have no one place.
    let finding = |what: String| crate::log::verify::Finding::new(path, 0, None, what);
    let meta = match read_meta_properties(path) {
        Ok(m) => m,
        Err(e) => {
            return crate::replica::LoadProblem::from_error(&e).map_or_else(
                || vec![finding(e.to_string())],
                |p| vec![crate::log::verify::Finding::new(path, p.position, None, p.what).on_line(p.line)],
            )
        }
    };
    if meta.is_empty() && std::fs::symlink_metadata(path).is_err() {
        // No meta.properties: a partial copy, said as a note.
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
        Ok(0) => {
            int_key("broker.id", false, &mut out);
            // Kafka 4.4's KafkaRaftServer refuses to start on a log dir whose meta.properties
            // gives no node id ("Error: node ID not found in <dir>"; a version 0 file gives it
            // as broker.id, which every ZooKeeper-era broker wrote).
            if !meta.contains_key("broker.id") {
                let cluster = if meta.contains_key("cluster.id") { "" } else { " (nor a cluster.id)" };
                out.push(finding(format!(
                    "no broker.id (or version 1 node.id){cluster}: Kafka 4.4 refuses to start on this log dir \
                     (\"node ID not found\")"
                )));
            }
        }
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
    let mut dir_findings = meta_properties_findings(&dir.join(names::META_PROPERTIES));
    let mut notes: Vec<String> = Vec::new();
    // The log dir's own files are read once, not once per partition.
    let files = LogDirFiles::read_tolerant(dir)?;
    notes.extend(checkpoint_findings(dir, &files, &names_on_disk, &mut dir_findings));
    if crate::replica::log_dir_kind(dir) == crate::replica::LogDirKind::Partial {
        notes.push("no meta.properties: a partial copy of a log dir".into());
    }
    let mut partitions = parallel_map(
        &names_on_disk,
        |name| {
            let outcome = Replica::open_in(&files, name)
                .and_then(|r| crate::replica::check_replica(r, &mut crate::parallel::NoProgress))
                .map_err(|e| refusal(&e));
            PartitionOutcome { partition: name.clone(), outcome }
        },
        progress,
    );
    lift_dir_findings(dir, &files, &mut partitions, &mut dir_findings);
    let clean_marker = dir.join(names::CLEAN_SHUTDOWN_MARKER).exists();
    if !clean_marker {
        notes.push("not shut down cleanly: a broker would run local recovery on every partition".into());
    }
    // Findings first, each group in natural order (a stable sort keeps it).
    partitions.sort_by_key(|p| p.outcome.as_ref().is_ok_and(|r| r.is_clean()));
    Ok(DataDirCheck { dir: dir.display().to_string(), partitions, dir_findings, notes })
}

/// The log dir's checkpoints: their problems go to `dir_findings`; the partitions they list that
/// are not on disk come back as notes.
fn checkpoint_findings(
    dir: &Path,
    files: &LogDirFiles,
    names_on_disk: &[String],
    dir_findings: &mut Vec<crate::log::verify::Finding>,
) -> Vec<String> {
    use crate::log::names;
    let mut notes = Vec::new();
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
            dir_findings
                .push(crate::log::verify::Finding::new(&path, p.position, None, p.what.clone()).on_line(p.line));
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
    notes
}

/// Problems of the log dir's own files are reported once, not once per partition: move them
/// from each partition's findings to `dir_findings`.
fn lift_dir_findings(
    dir: &Path,
    files: &LogDirFiles,
    partitions: &mut [PartitionOutcome<crate::replica::CheckReport>],
    dir_findings: &mut Vec<crate::log::verify::Finding>,
) {
    use crate::log::names;
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
    for p in partitions.iter_mut() {
        if let Ok(r) = &mut p.outcome {
            r.verification.findings.retain(|f| {
                // A file that did not read at all (no position, no offset) is the dir's problem;
                // a checkpoint value wrong for this partition stays with it.
                let dir_level = log_dir_files.contains(&f.path) && files.problems.iter().any(|p| p.path == f.path);
                if dir_level && !dir_findings.iter().any(|d| d.path == f.path && d.what == f.what) {
                    dir_findings.push(f.clone());
                }
                !dir_level
            });
            r.verification.notes.retain(|n| !n.starts_with("not shut down cleanly"));
        }
    }
}
