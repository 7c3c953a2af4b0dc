//! `klog create`: a new, empty replica dir.

use crate::error::{Error, Result};
use crate::log::{names, MIN_SEGMENT_BYTES};
use crate::replica::{self, NewPartitions, ReplicaPaths, TopicConfig};
use std::fs;
use std::path::Path;

/// The longest file name Linux file systems take (ext4, xfs, btrfs, tmpfs: `NAME_MAX`).
const NAME_BYTES_MAX: usize = 255;

pub struct CreateRequest<'a> {
    pub dir: &'a Path,
    pub topic: &'a str,
    pub partition: i32,
    /// How many partitions, numbered from `partition`.
    pub partitions: i32,
    /// `None`: 0 for a new log dir, the dir's own when adding to one.
    pub replica_id: Option<i32>,
    pub segment_bytes: u64,
    pub index_interval_bytes: u64,
    pub index_bytes_max: u64,
    pub segment_ms: u64,
    /// min.insync.replicas (at least 1).
    pub min_insync_replicas: u32,
    /// A tiered lab: the topic has `remote.storage.enable=true` and this is its
    /// LocalTieredStorage dir ([`crate::tiered::lab`]).
    pub remote_dir: Option<&'a Path>,
}

/// Validate everything first, then write; a refused request leaves nothing behind. A new log
/// dir gets `meta.properties` and the partitions; an existing klog log dir gets the partitions.
pub fn run(req: &CreateRequest<'_>) -> Result<CreateReport> {
    check_request(req)?;
    let config = TopicConfig {
        segment_bytes: req.segment_bytes,
        index_interval_bytes: req.index_interval_bytes,
        index_bytes_max: req.index_bytes_max,
        segment_ms: req.segment_ms,
        min_insync_replicas: req.min_insync_replicas,
    };
    let numbers = req.partition..=req.partition + (req.partitions - 1);
    // The longest partition dir name must fit a file name (255 bytes on Linux file systems):
    // refused here, before anything is made.
    let longest = format!("{}-{}", req.topic, numbers.end());
    if longest.len() > NAME_BYTES_MAX {
        return Err(Error::layout(
            req.dir.join(&longest),
            format!(
                "a partition dir name of {} bytes is longer than a file name may be ({NAME_BYTES_MAX})",
                longest.len()
            ),
        ));
    }
    if let Some(remote) = req.remote_dir {
        crate::tiered::lab::check_remote_dir_arg(remote)?;
    }
    let existing = holds_entries(req.dir)?;
    if existing && req.remote_dir.is_some() {
        return Err(Error::Usage(
            "--remote-dir makes a new tiered lab: give a DIR that does not exist or is empty".into(),
        ));
    }
    let added = if existing {
        add_to_log_dir(req, numbers, config)?
    } else {
        let mut plan = NewPartitions::read(req.dir, req.topic, numbers, config)?;
        if req.replica_id.is_none() {
            plan = plan.with_node_id_defaulted();
        }
        crate::durable::create_dir(req.dir)?;
        replica::write_new_log_dir(req.dir, req.replica_id.unwrap_or(0), &java_date_now())?;
        plan.write()?
    };
    let remote_dir = match req.remote_dir {
        Some(r) => Some(crate::tiered::lab::make_tiered(req.dir, req.topic, partition_numbers(req), r)?),
        None => None,
    };
    Ok(CreateReport { log_dir: req.dir.to_path_buf(), partitions: added, added_to_existing: existing, remote_dir })
}

/// The flags a Kafka topic and klog's segments accept, checked before anything is read.
fn check_request(req: &CreateRequest<'_>) -> Result<()> {
    if req.topic.is_empty()
        || req.topic.len() > 249
        || !req.topic.bytes().all(|b| b.is_ascii_alphanumeric() || b"._-".contains(&b))
        || req.topic == "."
        || req.topic == ".."
    {
        return Err(Error::Usage(format!(
            "invalid topic name {}: Kafka allows 1-249 characters of [a-zA-Z0-9._-]",
            crate::escape::arg(req.topic)
        )));
    }
    if req.partition < 0 {
        return Err(Error::Usage(format!("invalid partition {}: must be >= 0", req.partition)));
    }
    if req.segment_bytes < MIN_SEGMENT_BYTES || req.segment_bytes > i32::MAX as u64 {
        return Err(Error::Usage(format!(
            "invalid --segment-bytes {}: Kafka accepts {MIN_SEGMENT_BYTES} to {}",
            req.segment_bytes,
            i32::MAX
        )));
    }
    if req.index_bytes_max < 24 || req.index_bytes_max > i32::MAX as u64 {
        return Err(Error::Usage(format!(
            "invalid --segment-index-bytes {}: give 24 to {} (room for two time-index entries)",
            req.index_bytes_max,
            i32::MAX
        )));
    }
    if req.segment_ms == 0 || req.segment_ms > i64::MAX as u64 {
        return Err(Error::Usage(format!("invalid --segment-ms {}: must be at least 1", req.segment_ms)));
    }
    if req.index_interval_bytes > i32::MAX as u64 {
        return Err(Error::Usage(format!("invalid --index-interval-bytes {}", req.index_interval_bytes)));
    }
    if req.partitions < 1 || i64::from(req.partition) + i64::from(req.partitions) - 1 > i64::from(i32::MAX) {
        return Err(Error::Usage(format!(
            "invalid --partitions {}: partitions {}.. must stay within i32",
            req.partitions, req.partition
        )));
    }
    Ok(())
}

/// Whether `dir` exists and holds anything (an error when it is no directory).
fn holds_entries(dir: &Path) -> Result<bool> {
    match fs::read_dir(dir) {
        Ok(mut entries) => Ok(entries.next().is_some()),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(false),
        Err(e) if e.kind() == std::io::ErrorKind::NotADirectory => {
            Err(Error::layout(dir, "exists and is not a directory"))
        }
        Err(e) => Err(Error::io(dir, "list directory", e)),
    }
}

/// Add partitions `numbers` to the klog log dir `req.dir`: validate everything, lock, read
/// everything the write needs, then write.
fn add_to_log_dir(
    req: &CreateRequest<'_>,
    numbers: std::ops::RangeInclusive<i32>,
    config: TopicConfig,
) -> Result<Vec<ReplicaPaths>> {
    // A Kafka log dir klog did not make (no klog-state.json) is refused by the lock's
    // consent gate below, unless the user consented.
    if !req.dir.join(names::META_PROPERTIES).is_file() {
        return Err(Error::layout(
            req.dir,
            "directory exists and is not empty, and is not a log dir klog made (no klog-state.json and \
             meta.properties): refusing to create a replica in it",
        ));
    }
    let meta = replica::read_meta_properties(&req.dir.join(names::META_PROPERTIES))?;
    // Every file the adding will read and rewrite must read now, before anything is made;
    // the plan keeps what it read, and writes each of them once.
    let plan = NewPartitions::read(req.dir, req.topic, numbers.clone(), config)?;
    crate::durable::check_temp_names(req.dir)?;
    let own_id = meta.get("node.id").and_then(|v| v.parse::<i32>().ok());
    if let (Some(want), Some(own)) = (req.replica_id, own_id) {
        if want != own {
            return Err(Error::layout(
                req.dir,
                format!(
                    "is replica {own} (node.id in meta.properties), not {want}: a log dir belongs to one broker; leave \
                     --replica-id out to add partitions to it, or give a new DIR for replica {want}"
                ),
            ));
        }
    }
    for n in numbers.clone() {
        let dir = req.dir.join(format!("{}-{n}", req.topic));
        if dir.exists() {
            return Err(Error::layout(
                &dir,
                "exists already: the log dir holds this partition; name another --topic or --partition to add one",
            ));
        }
    }
    let _lock = replica::DirLock::acquire(req.dir)?;
    plan.write()
}

/// What `create` made.
#[derive(Debug)]
pub struct CreateReport {
    pub log_dir: std::path::PathBuf,
    pub partitions: Vec<ReplicaPaths>,
    /// The log dir existed; the partitions were added to it.
    pub added_to_existing: bool,
    /// A tiered lab's LocalTieredStorage dir (absolute).
    pub remote_dir: Option<std::path::PathBuf>,
}

/// The partition numbers a request names.
fn partition_numbers(req: &CreateRequest<'_>) -> std::ops::RangeInclusive<i32> {
    req.partition..=req.partition + (req.partitions - 1)
}

/// `java.util.Date.toString()` style for the meta.properties comment line (UTC): the time now,
/// or `SOURCE_DATE_EPOCH` (seconds) when set, the reproducible-builds convention, so that two
/// runs of one script leave byte-identical dirs.
fn java_date_now() -> String {
    java_date(source_date_epoch().unwrap_or_else(|| crate::util::now_ms().div_euclid(1000)))
}

fn source_date_epoch() -> Option<i64> {
    std::env::var("SOURCE_DATE_EPOCH").ok()?.trim().parse::<i64>().ok().filter(|s| (0..=253_402_300_799).contains(s))
}

fn java_date(secs: i64) -> String {
    let days = secs.div_euclid(86_400);
    let rem = secs.rem_euclid(86_400);
    let (year, month, day) = crate::util::civil_from_days(days);
    let weekday = ["Thu", "Fri", "Sat", "Sun", "Mon", "Tue", "Wed"][days.rem_euclid(7) as usize];
    let mon =
        ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"][(month - 1) as usize];
    format!("{weekday} {mon} {day:02} {:02}:{:02}:{:02} UTC {year}", rem / 3600, rem % 3600 / 60, rem % 60)
}

#[cfg(test)]
mod date_tests {
    use super::java_date;

    #[test]
    fn the_date_line_is_java_util_date_to_string_in_utc() {
        assert_eq!(java_date(0), "Thu Jan 01 00:00:00 UTC 1970");
        assert_eq!(java_date(1_796_083_200), "Tue Dec 01 00:00:00 UTC 2026");
        assert_eq!(java_date(253_402_300_799), "Fri Dec 31 23:59:59 UTC 9999");
    }
}
