//! A broker's start-up over one log dir (Kafka 4.4 `LogManager.loadLogs`, then the metadata
//! log `KafkaRaftLog.createLog` opens): which subdirectories it loads and how (their config and
//! load inputs from the dir's checkpoints), the log dir's own files that did not read and what
//! Kafka does with each (a note, the dir taken offline, a refusal to start), every log's load
//! ([`crate::log::recovery::load_log`]), the forecast judged as a whole (the metadata log's
//! refusal first, an offline dir, the order partitions load in), and the checkpoints the broker
//! writes after it. `recover DATA_DIR` runs it; `recover --dry-run DATA_DIR`, `cluster` and the
//! generated comparisons with Kafka's loader forecast it.
//!
//! The dry run and the run make every decision in the same code and refuse the same dirs: the
//! run forecasts every log first and writes only when the forecast starts. Every write goes
//! through [`crate::durable`], under the log dir's lock.

use crate::durable;
use crate::error::{Error, Result};
use crate::log::checkpoint;
use crate::log::names::{self, LogKind};
use crate::log::recovery::{load_log, plan_load, LoadInputs, RecoveryReport};
use crate::log::{Log, LogConfig};
use crate::replica::LogDirFiles;
use std::path::Path;

/// One log a broker's start-up opens, and what loading it did (or would do).
#[derive(Debug)]
pub struct LoadedLog {
    /// The directory's name in the log dir (`demo-0`, `demo-0.<id>-future`, ...).
    pub dir_name: String,
    pub kind: LoadedKind,
    pub recovery: RecoveryReport,
    /// The partition's entry in the log dir's HW checkpoint (the loader does not read it; the
    /// partition's HW is clamped to the log end when it is served).
    pub checkpointed_high_watermark: Option<i64>,
}

impl LoadedLog {
    /// The checkpointed HW above the log end the load leaves: records acknowledged at
    /// offsets from the log end up to it are not on disk. (log end, HW).
    pub fn acknowledged_missing(&self) -> Option<(i64, i64)> {
        let end = self.recovery.log_end_offset_after;
        self.checkpointed_high_watermark.filter(|hw| *hw > end).map(|hw| (end, hw))
    }
}

/// How a broker's start-up opens a log dir's subdirectory.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LoadedKind {
    /// By `LogManager.loadLogs` (current, future, stray or to-be-deleted log).
    Log(LogKind),
    /// `__cluster_metadata-0`, by `KafkaRaftLog.createLog`: always scanned from offset 0.
    Metadata,
}

impl LoadedKind {
    pub fn name(self) -> &'static str {
        match self {
            LoadedKind::Log(LogKind::Current) => "log",
            LoadedKind::Log(LogKind::Future) => "future",
            LoadedKind::Log(LogKind::Stray) => "stray",
            LoadedKind::Log(LogKind::Delete) => "delete",
            LoadedKind::Metadata => "metadata",
        }
    }
}

/// `recover DATA_DIR`: a broker's start-up over a whole log dir (Kafka 4.4 `LogManager.loadLogs`,
/// then the metadata log). The dry run and the run make every decision in the same code, and
/// refuse the same dirs: where Kafka's broker would refuse to start or take the log dir offline,
/// both exit 2 naming why.
#[derive(Debug)]
pub struct DataDirRecovery {
    pub dir: String,
    pub dry_run: bool,
    /// Every log loaded, in natural order, the metadata log last.
    pub logs: Vec<LoadedLog>,
    /// Facts about the load that are not per log (a checkpoint Kafka ignores, ...).
    pub notes: Vec<String>,
}

impl DataDirRecovery {
    pub fn bytes_removed(&self) -> u64 {
        self.logs.iter().map(|l| l.recovery.bytes_removed).sum()
    }

    /// Bytes the loads cut off the segments they recovered, over every log.
    pub fn bytes_cut(&self) -> u64 {
        self.logs.iter().map(|l| l.recovery.bytes_cut()).sum()
    }

    /// Logs from which a load removed bytes.
    pub fn logs_cut_count(&self) -> usize {
        self.logs.iter().filter(|l| l.recovery.bytes_removed > 0).count()
    }
}

/// The words every refusal of a start-up says (here and in `log/recovery.rs`).
pub const REFUSES_WORDS: &str = "a Kafka 4.4 broker refuses to start on this log dir";

/// Kafka's verdict when its loader cannot go on: the message klog refuses with, at `position`
/// in the file `path` names (0 for the whole file).
fn kafka_refuses(path: &Path, position: u64, why: impl std::fmt::Display) -> Error {
    Error::refuses(path, position, format!("{REFUSES_WORDS}: {why}"))
}

/// The words [`kafka_offline`] says it with.
const OFFLINE_WORDS: &str = "a Kafka 4.4 broker takes this log dir offline and loads none of it";

/// Said with [`OFFLINE_WORDS`] when the order Kafka loads partitions in decides between an
/// offline log dir and a broker that does not start.
pub const OR_REFUSES: &str = "or refuses to start, depending on the order it loads partitions in";

fn kafka_offline(path: &Path, why: impl std::fmt::Display) -> Error {
    Error::state(path, format!("{OFFLINE_WORDS}: {why}"))
}

fn is_offline(e: &Error) -> bool {
    e.to_string().contains(OFFLINE_WORDS)
}

/// Whether Kafka's checkpoint reader throws something other than an `IOException` for this
/// error (`NumberFormatException`, `IllegalArgumentException`): no failure channel sees it.
fn escapes_failure_channel(what: &str) -> bool {
    checkpoint::kafka_read_failure(what) != checkpoint::KafkaReadFailure::Io
}

/// The subdirectories `LogManager.loadLogs` opens, in natural order, with the metadata log
/// (opened by `KafkaRaftLog`) last. A name Kafka cannot parse makes the broker refuse to start.
fn logs_to_load(dir: &Path) -> Result<Vec<(String, LoadedKind)>> {
    use crate::error::IoContext;
    let mut out: Vec<(String, i32, String, LoadedKind)> = Vec::new();
    for entry in std::fs::read_dir(dir).at(dir, "list directory")? {
        let entry = entry.at(dir, "list directory")?;
        // `File.isDirectory` follows symlinks.
        if !entry.path().is_dir() {
            continue;
        }
        let name = entry.file_name().to_string_lossy().into_owned();
        if name == "remote-log-index-cache" {
            continue;
        }
        let Some((topic, partition, kind)) = names::parse_log_dir_name(&name) else {
            return Err(kafka_refuses(
                &entry.path(),
                0,
                format!(
                    "'{name}' is not in the form of topic-partition or topic-partition.uniqueId-delete \
                     (LocalLog.parseTopicPartitionName throws)"
                ),
            ));
        };
        if topic == names::METADATA_TOPIC {
            if kind == LogKind::Current && partition == 0 {
                out.push((topic, partition, name, LoadedKind::Metadata));
            }
            continue;
        }
        out.push((topic, partition, name, LoadedKind::Log(kind)));
    }
    out.sort_by(|a, b| {
        let meta = |k: &LoadedKind| *k == LoadedKind::Metadata;
        (meta(&a.3), &a.0, a.1, &a.2).cmp(&(meta(&b.3), &b.0, b.1, &b.2))
    });
    Ok(out.into_iter().map(|(_, _, name, kind)| (name, kind)).collect())
}

/// A start-up a Kafka 4.4 broker does not survive: where and why (the exception its loader
/// throws), and what an operator can do about it, when klog has a way it can check.
#[derive(Debug)]
pub struct StartRefusal {
    pub dir: String,
    /// The file and what Kafka throws there (klog's error, position included).
    pub refusal: Error,
    pub advice: Option<Advice>,
}

/// A change to the dir after which the broker starts, with the start-up it then makes: klog's
/// forecast of that very start-up, made by the same code as every forecast (which the
/// generated comparisons judge against Kafka's loader).
#[derive(Debug)]
pub enum Advice {
    /// Remove `.kafka_cleanshutdown`: the broker then recovers every log from its recovery
    /// point and cuts what does not read, instead of reading the log end from the index.
    RemoveCleanShutdownMarker { marker: String, then: DataDirRecovery },
}

/// `recover --dry-run DATA_DIR`: the start-up's forecast, or the refusal and its advice.
#[derive(Debug)]
pub enum StartForecast {
    Loads(DataDirRecovery),
    Refuses(StartRefusal),
}

/// Whether `e` is a Kafka broker's refusal to start (rather than klog unable to go on).
pub fn is_refusal(e: &Error) -> bool {
    e.is_start_refusal()
}

/// Forecast a broker's start-up over the log dir `dir` (nothing written). Where the broker
/// would not start, say why, and whether removing the clean-shutdown marker lets it start
/// (when the refusal comes from reading an unrecovered log's end), with that start-up.
pub fn forecast_data_dir(dir: &Path, progress: &mut dyn crate::parallel::ProgressSink) -> Result<StartForecast> {
    let refusal = match load_data_dir(dir, true, false, progress) {
        Ok(load) => return Ok(StartForecast::Loads(load)),
        Err(e) if is_refusal(&e) => e,
        Err(e) => return Err(e),
    };
    let marker = dir.join(names::CLEAN_SHUTDOWN_MARKER);
    let advice = if marker.exists() && refusal.to_string().contains("readNextOffset") {
        load_data_dir(dir, true, true, progress)
            .ok()
            .map(|then| Advice::RemoveCleanShutdownMarker { marker: marker.display().to_string(), then })
    } else {
        None
    };
    Ok(StartForecast::Refuses(StartRefusal { dir: dir.display().to_string(), refusal, advice }))
}

/// Run (or, with `dry_run`, forecast) a broker's start-up over the log dir `dir`.
pub fn recover_data_dir(
    dir: &Path,
    dry_run: bool,
    progress: &mut dyn crate::parallel::ProgressSink,
) -> Result<DataDirRecovery> {
    load_data_dir(dir, dry_run, false, progress)
}

/// [`recover_data_dir`]; with `without_marker`, as if `.kafka_cleanshutdown` were not there.
fn load_data_dir(
    dir: &Path,
    dry_run: bool,
    without_marker: bool,
    progress: &mut dyn crate::parallel::ProgressSink,
) -> Result<DataDirRecovery> {
    use crate::replica::{log_dir_kind, DirLock, LogDirKind};
    if log_dir_kind(dir) == LogDirKind::Partial {
        return Err(Error::layout(
            dir,
            "not a Kafka log dir (no meta.properties): klog reads a partial copy but never writes into one, \
             and forecasts only what it would do",
        ));
    }
    // Validate everything before writing anything; the dry run takes every step but the lock.
    let _lock = if dry_run {
        DirLock::probe_for_dry_run(dir)?;
        None
    } else {
        Some(DirLock::acquire(dir)?)
    };
    let files = LogDirFiles::read_tolerant(dir)?;
    let (notes, offline) = triage_problems(&files)?;
    let hw_readable = !files.problems.iter().any(|p| p.path.ends_with(names::REPLICATION_OFFSET_CHECKPOINT));
    refuse_running(dir, &files)?;
    let to_load = logs_to_load(dir)?;
    let clean = files.clean_shutdown() && !without_marker;
    let loader = Loader { dir, files: &files, clean };
    // The forecast of every log: the dry run's answer, and the run's check before it writes.
    let forecast = crate::parallel::parallel_map(&to_load, |(name, kind)| loader.load(name, *kind, true), progress);
    let forecast = settle_forecast(dir, &to_load, forecast, offline)?;
    if dry_run {
        return Ok(DataDirRecovery { dir: dir.display().to_string(), dry_run, logs: forecast, notes });
    }
    // The marker goes before anything else is written (KAFKA-10471).
    durable::remove_file(&dir.join(names::CLEAN_SHUTDOWN_MARKER))?;
    let mut logs = Vec::with_capacity(to_load.len());
    for (name, kind) in &to_load {
        logs.push(loader.load(name, *kind, false)?);
    }
    write_checkpoints_after_load(dir, &files, &logs, clean, hw_readable)?;
    Ok(DataDirRecovery { dir: dir.display().to_string(), dry_run, logs, notes })
}

/// The log dir's own files that did not read, as Kafka's `loadLogs` takes them: notes for what
/// it ignores or resets, the log dir taken offline (the failure channel) for an `IOException`,
/// and an error for anything else.
fn triage_problems(files: &LogDirFiles) -> Result<(Vec<String>, Option<Error>)> {
    let mut notes = Vec::new();
    // A log dir the failure channel took offline: Kafka's `loadLogs` still loads every log
    // (an exception that escapes one makes the broker refuse to start, which wins).
    let mut offline: Option<Error> = None;
    for problem in &files.problems {
        let name = problem.path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
        if problem.what.contains(crate::replica::MATCHES_NO_PARTITION) {
            notes.push(format!("{}: {}", problem.path.display(), problem.what));
            continue;
        }
        match name.as_str() {
            // A number that does not parse (`NumberFormatException` out of the entry formatter)
            // or a negative count (`IllegalArgumentException` from `new ArrayList<>(count)`):
            // `loadLogs` catches it, warns and loads with the checkpoint reset.
            names::RECOVERY_POINT_OFFSET_CHECKPOINT | names::LOG_START_OFFSET_CHECKPOINT
                if escapes_failure_channel(&problem.what) =>
            {
                notes.push(format!(
                    "{} holds a number or count Kafka's reader throws on ({}); Kafka resets it (every value 0) and loads",
                    problem.path.display(),
                    problem.what
                ))
            }
            // Any other malformation is an `IOException` in `CheckpointFile.read`: the failure
            // channel marks the log dir offline (and `loadLogs` goes on, on a dir not served).
            // The load goes on (with the checkpoint reset) and a refusal found later wins.
            names::RECOVERY_POINT_OFFSET_CHECKPOINT | names::LOG_START_OFFSET_CHECKPOINT => {
                offline.get_or_insert_with(|| kafka_offline(&problem.path, &problem.what));
            }
            // Not read by the loader: the replica manager reads it later.
            names::REPLICATION_OFFSET_CHECKPOINT => notes.push(format!(
                "{} does not parse ({}); Kafka's loader does not read it, and it is left as it is",
                problem.path.display(),
                problem.what
            )),
            _ => return Err(Error::state(&problem.path, problem.what.clone())),
        }
    }
    Ok((notes, offline))
}

/// A start-up load is for a stopped broker: refuse when klog's state says partitions run.
fn refuse_running(dir: &Path, files: &LogDirFiles) -> Result<()> {
    let running = files.running_partitions();
    if let Some(first) = running.first() {
        return Err(Error::state(
            dir,
            format!(
                "the broker is running ({} of its partitions, {first} first, per klog's state): a start-up \
                 load is for a stopped broker; stop or crash it first, or recover one partition with --partition",
                running.len()
            ),
        ));
    }
    Ok(())
}

/// How the start-up opens each log of one log dir: its config and load inputs from the dir's
/// checkpoints, as `LogManager.loadLogs` reads them.
struct Loader<'a> {
    dir: &'a Path,
    files: &'a LogDirFiles,
    /// Loaded as after a clean shutdown (the marker there, and not left out).
    clean: bool,
}

impl Loader<'_> {
    fn plan(&self, name: &str, kind: LoadedKind) -> (LogConfig, LoadInputs) {
        let key = names::parse_log_dir_name(name).map(|(t, p, _)| format!("{t}-{p}")).unwrap_or_default();
        let inputs = match kind {
            LoadedKind::Metadata => {
                LoadInputs { recovery_point: 0, log_start_offset_checkpoint: 0, clean_shutdown: false, recover: true }
            }
            LoadedKind::Log(k) => LoadInputs {
                recovery_point: self.files.recovery_point(&key),
                log_start_offset_checkpoint: self.files.log_start_offset(&key),
                clean_shutdown: self.clean,
                recover: k != LogKind::Delete,
            },
        };
        (self.files.log_config(&key), inputs)
    }

    fn checkpointed_hw(&self, name: &str, kind: LoadedKind) -> Option<i64> {
        match kind {
            LoadedKind::Log(LogKind::Current) => self.files.high_watermark(name),
            _ => None,
        }
    }

    /// Open one log as the start-up does; a malformed epoch checkpoint fails as Kafka fails.
    fn open(&self, name: &str, kind: LoadedKind) -> Result<(Log, LoadInputs)> {
        let (config, inputs) = self.plan(name, kind);
        let log = Log::open(&self.dir.join(name), config, inputs.log_start_offset_checkpoint).map_err(|e| match e {
            // A number that does not parse (`NumberFormatException`), a negative count or a
            // negative entry (`IllegalArgumentException`) escapes `loadLogs`; any other
            // malformation goes through the failure channel (`IOException`). The metadata log
            // has a failure channel of its own that nothing reads: `KafkaRaftLog.createLog`
            // throws its `KafkaStorageException` and the broker does not start.
            Error::Malformed { ref path, ref what, .. }
                if path.ends_with(names::LEADER_EPOCH_CHECKPOINT)
                    && (escapes_failure_channel(what) || kind == LoadedKind::Metadata) =>
            {
                kafka_refuses(path, 0, &e)
            }
            Error::Corrupt { ref path, position, .. }
                if path.ends_with(names::LEADER_EPOCH_CHECKPOINT) && kind == LoadedKind::Metadata =>
            {
                kafka_refuses(path, position, &e)
            }
            Error::Malformed { ref path, .. } | Error::Corrupt { ref path, .. }
                if path.ends_with(names::LEADER_EPOCH_CHECKPOINT) =>
            {
                kafka_offline(path, &e)
            }
            e => e,
        })?;
        Ok((log, inputs))
    }

    /// Load one log (`forecast`: on the in-memory view, nothing written).
    fn load(&self, name: &str, kind: LoadedKind, forecast: bool) -> Result<LoadedLog> {
        let (mut log, inputs) = self.open(name, kind)?;
        let recovery = if forecast { plan_load(&mut log, &inputs)?.report } else { load_log(&mut log, &inputs)? };
        let checkpointed_high_watermark = self.checkpointed_hw(name, kind);
        Ok(LoadedLog { dir_name: name.to_string(), kind, recovery, checkpointed_high_watermark })
    }
}

/// The forecast of every log, judged as a whole the way Kafka's start-up goes: the metadata
/// log's refusal first, then a dir taken offline (which loads none of it) or a broker that does
/// not start (a log opened on an offline dir with a first unstable offset). The logs, when it
/// starts.
fn settle_forecast(
    dir: &Path,
    to_load: &[(String, LoadedKind)],
    forecast: Vec<Result<LoadedLog>>,
    mut offline: Option<Error>,
) -> Result<Vec<LoadedLog>> {
    // The log dir as a whole went offline (a log-dir checkpoint) before any log loads.
    let offline_from_start = offline.is_some();
    let mut logs_forecast = Vec::with_capacity(forecast.len());
    // The log that took the dir offline (an epoch checkpoint), and the logs loaded with a first
    // unstable offset: `UnifiedLog`'s constructor reads the log there
    // (`maybeIncrementFirstUnstableOffset`) through `LocalLog.maybeHandleIOException`, which on
    // an offline dir throws "already offline", a `KafkaStorageException` with no `IOException`
    // in it, which escapes `loadLogs`. (The segment and snapshot deletions a load schedules
    // throw the same, but on the scheduler's thread, which catches every exception.)
    let mut offline_log: Option<String> = None;
    let mut unstable: Vec<String> = Vec::new();
    // A KRaft broker opens its metadata log (`KafkaRaftManager`) before its `LogManager` loads
    // the others: the metadata log's refusal comes first.
    let mut forecast = forecast;
    if let Some(i) = to_load.iter().position(|(_, k)| *k == LoadedKind::Metadata) {
        if forecast[i].is_err() {
            return Err(forecast.swap_remove(i).expect_err("checked above"));
        }
    }
    for (f, (name, _)) in forecast.into_iter().zip(to_load) {
        match f {
            Ok(l) => {
                if l.recovery.first_unstable_at_open.is_some() {
                    unstable.push(l.dir_name.clone());
                }
                logs_forecast.push(l)
            }
            // `KafkaStorageException` from one log's load: the dir goes offline, the others load.
            Err(e) if is_offline(&e) => {
                if offline.is_none() {
                    offline_log = Some(name.clone());
                }
                offline.get_or_insert(e);
            }
            Err(e) => return Err(e),
        }
    }
    if let Some(e) = offline {
        return Err(match unstable.first() {
            Some(first) => refusal_on_an_offline_dir(dir, e, first, offline_from_start, offline_log.as_deref()),
            None => e,
        });
    }
    Ok(logs_forecast)
}

/// The refusal when `first` loads with a first unstable offset on a dir that is offline (`e`):
/// always, when the dir went offline before any log loaded (`offline_from_start`), else
/// depending on the order partitions load in (after `offline_log`, the log that failed).
fn refusal_on_an_offline_dir(
    dir: &Path,
    e: Error,
    first: &str,
    offline_from_start: bool,
    offline_log: Option<&str>,
) -> Error {
    if offline_from_start {
        return kafka_refuses(
            dir,
            0,
            format!(
                "the log dir is offline ({e}), and {first} loads with a transaction its producer state \
                 holds open: opening it reads the log at its first unstable offset, and \
                 LocalLog.maybeHandleIOException throws KafkaStorageException (the log dir is already \
                 offline)"
            ),
        );
    }
    // Kafka loads a dir's partitions in the order `File.listFiles` gives them, on
    // `num.recovery.threads.per.data.dir` threads: which comes first is not fixed.
    Error::refuses(
        dir,
        0,
        format!(
            "{OFFLINE_WORDS}, {OR_REFUSES}: {e}; {first} loads with a transaction its producer state holds \
             open, and if the broker loads it after {} (partition dirs load in the order the file system \
             lists them, on several threads), opening it reads the log at its first unstable offset, \
             LocalLog.maybeHandleIOException throws KafkaStorageException (the log dir is already offline) \
             and the broker does not start",
            offline_log.unwrap_or("the log that failed")
        ),
    )
}

/// After the load, as the broker's checkpoint tasks do: the recovery point and log start of
/// every current log (the metadata log is never listed), and the high watermark clamped to the
/// log (when the file reads); then klog's state says the partitions run.
fn write_checkpoints_after_load(
    dir: &Path,
    files: &crate::replica::LogDirFiles,
    logs: &[LoadedLog],
    clean: bool,
    hw_readable: bool,
) -> Result<()> {
    use crate::log::checkpoint::render_checkpoint;
    let current: Vec<(&LoadedLog, String)> = logs
        .iter()
        .filter(|l| l.kind == LoadedKind::Log(LogKind::Current))
        .filter_map(|l| names::parse_log_dir_name(&l.dir_name).map(|(t, p, _)| (l, format!("{t} {p}"))))
        .collect();
    let name_of = |tp: &str| {
        let (t, p) = tp.rsplit_once(' ').unwrap_or((tp, ""));
        format!("{t}-{p}")
    };
    let write =
        |file: &str, lines: Vec<String>| durable::write_atomic(&dir.join(file), render_checkpoint(&lines).as_bytes());
    let recovery_points = current
        .iter()
        .map(|(l, tp)| {
            let r = &l.recovery;
            let point =
                if clean { r.log_end_offset_after } else { r.recovery_point_before.min(r.log_end_offset_after) };
            format!("{tp} {point}")
        })
        .collect();
    write(names::RECOVERY_POINT_OFFSET_CHECKPOINT, recovery_points)?;
    let starts = current.iter().map(|(l, tp)| format!("{tp} {}", l.recovery.log_start_offset_after)).collect();
    write(names::LOG_START_OFFSET_CHECKPOINT, starts)?;
    if hw_readable {
        let hws = current
            .iter()
            .map(|(l, tp)| {
                let r = &l.recovery;
                let hw = files.high_watermark(&name_of(tp)).unwrap_or(0);
                let hw = hw.clamp(r.log_start_offset_after.min(r.log_end_offset_after), r.log_end_offset_after);
                format!("{tp} {hw}")
            })
            .collect();
        write(names::REPLICATION_OFFSET_CHECKPOINT, hws)?;
    }
    let started: Vec<String> = current.iter().map(|(_, tp)| name_of(tp)).collect();
    crate::replica::mark_started(dir, &started)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::replica::test_support::new_log_dir;

    fn loaded(name: &str, kind: LoadedKind, first_unstable_at_open: Option<i64>) -> LoadedLog {
        let recovery = RecoveryReport { first_unstable_at_open, ..Default::default() };
        LoadedLog { dir_name: name.to_string(), kind, recovery, checkpointed_high_watermark: None }
    }

    #[test]
    fn logs_load_in_natural_order_with_the_metadata_log_last() {
        let tmp = tempfile::tempdir().unwrap();
        for name in ["b-10", "__cluster_metadata-0", "b-2", "a-0.abc-delete", "a-0", "remote-log-index-cache"] {
            std::fs::create_dir(tmp.path().join(name)).unwrap();
        }
        std::fs::write(tmp.path().join("c-0"), b"a file, not a log").unwrap();
        let names: Vec<(String, LoadedKind)> = logs_to_load(tmp.path()).unwrap();
        let names: Vec<(&str, LoadedKind)> = names.iter().map(|(n, k)| (n.as_str(), *k)).collect();
        assert_eq!(
            names,
            [
                ("a-0", LoadedKind::Log(LogKind::Current)),
                ("a-0.abc-delete", LoadedKind::Log(LogKind::Delete)),
                ("b-2", LoadedKind::Log(LogKind::Current)),
                ("b-10", LoadedKind::Log(LogKind::Current)),
                ("__cluster_metadata-0", LoadedKind::Metadata),
            ]
        );
    }

    #[test]
    fn a_dir_name_kafka_cannot_parse_refuses_the_start() {
        let tmp = tempfile::tempdir().unwrap();
        std::fs::create_dir(tmp.path().join("not_a_partition")).unwrap();
        let e = logs_to_load(tmp.path()).unwrap_err();
        assert!(is_refusal(&e), "{e}");
        assert!(e.to_string().contains("LocalLog.parseTopicPartitionName"), "{e}");
    }

    #[test]
    fn the_metadata_logs_refusal_comes_before_any_other_logs_error() {
        let dir = Path::new("/d");
        let to_load =
            vec![("a-0".to_string(), LoadedKind::Log(LogKind::Current)), ("m".to_string(), LoadedKind::Metadata)];
        let forecast = vec![Err(Error::state(dir, "a-0 fails")), Err(kafka_refuses(dir, 0, "the metadata log"))];
        let e = settle_forecast(dir, &to_load, forecast, None).unwrap_err();
        assert!(is_refusal(&e) && e.to_string().contains("the metadata log"), "{e}");
    }

    #[test]
    fn a_dir_offline_from_the_start_refuses_once_a_log_opens_with_an_open_transaction() {
        let dir = Path::new("/d");
        let to_load = vec![("a-0".to_string(), LoadedKind::Log(LogKind::Current))];
        let offline = || Some(kafka_offline(dir, "recovery-point-offset-checkpoint does not parse"));
        let unstable = vec![Ok(loaded("a-0", LoadedKind::Log(LogKind::Current), Some(5)))];
        let e = settle_forecast(dir, &to_load, unstable, offline()).unwrap_err();
        assert!(is_refusal(&e) && e.to_string().contains("already offline"), "{e}");
        // Without a first unstable offset, the dir is offline and the broker starts.
        let stable = vec![Ok(loaded("a-0", LoadedKind::Log(LogKind::Current), None))];
        let e = settle_forecast(dir, &to_load, stable, offline()).unwrap_err();
        assert!(!is_refusal(&e) && is_offline(&e), "{e}");
    }

    #[test]
    fn a_log_that_took_the_dir_offline_leaves_the_start_to_the_order_partitions_load_in() {
        let dir = Path::new("/d");
        let to_load = vec![
            ("a-0".to_string(), LoadedKind::Log(LogKind::Current)),
            ("b-0".to_string(), LoadedKind::Log(LogKind::Current)),
        ];
        let forecast = vec![
            Err(kafka_offline(&dir.join("a-0/leader-epoch-checkpoint"), "a bad line")),
            Ok(loaded("b-0", LoadedKind::Log(LogKind::Current), Some(0))),
        ];
        let e = settle_forecast(dir, &to_load, forecast, None).unwrap_err();
        assert!(e.to_string().contains(OR_REFUSES) && e.to_string().contains("after a-0"), "{e}");
        // Every log loads when nothing went offline.
        let forecast = vec![Ok(loaded("a-0", LoadedKind::Log(LogKind::Current), None))];
        assert_eq!(settle_forecast(dir, &to_load[..1], forecast, None).unwrap().len(), 1);
    }

    #[test]
    fn a_checkpointed_high_watermark_above_the_log_end_is_acknowledged_and_missing() {
        let mut log = loaded("a-0", LoadedKind::Log(LogKind::Current), None);
        log.recovery.log_end_offset_after = 5;
        log.checkpointed_high_watermark = Some(8);
        assert_eq!(log.acknowledged_missing(), Some((5, 8)));
        log.checkpointed_high_watermark = Some(5);
        assert_eq!(log.acknowledged_missing(), None);
    }

    #[test]
    fn a_start_up_load_refuses_a_dir_whose_partitions_klog_says_run() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = new_log_dir(&tmp.path().join("d"), 1, "t", 2);
        let e = recover_data_dir(&dir, true, &mut crate::parallel::NoProgress).unwrap_err();
        assert!(e.to_string().contains("the broker is running (2 of its partitions"), "{e}");
    }
}
