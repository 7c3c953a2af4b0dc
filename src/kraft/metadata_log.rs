//! The KRaft metadata log on disk (`__cluster_metadata-0`), read as a broker loads it: its
//! latest snapshot (`<end offset>-<epoch>.checkpoint`), then its log from the snapshot's end
//! offset, every data record applied to a [`MetadataReplay`]. A record that does not decode is
//! listed and changes nothing; control batches (the Raft quorum's own) are skipped. Reads only:
//! never writes, never prints.

use super::replay::{MetadataPosition, MetadataReplay};
use crate::error::{Error, Result};
use crate::format::batch::BatchIter;
use crate::format::metadata;
use crate::log::names::{parse_kraft_snapshot_name, METADATA_TOPIC};
use crate::replica::Replica;
use std::path::{Path, PathBuf};

/// A metadata record that did not decode (it changes nothing in the replay).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Unreadable {
    pub position: MetadataPosition,
    pub what: String,
}

/// A metadata log replayed: where it is, its snapshot, what did not decode, and the replay.
pub struct ReplayedMetadata {
    /// The `__cluster_metadata-0` dir.
    pub dir: PathBuf,
    /// The snapshot replayed first, with its end offset.
    pub snapshot: Option<(PathBuf, i64)>,
    pub records_read: u64,
    pub unreadable: Vec<Unreadable>,
    /// The metadata log's end offset (the next offset it would write).
    pub log_end_offset: i64,
    pub replay: MetadataReplay,
}

/// `__cluster_metadata-0` under a log dir, whether it is there.
pub fn holds_metadata_log(log_dir: &Path) -> bool {
    log_dir.join(format!("{METADATA_TOPIC}-0")).is_dir()
}

/// The metadata partition dir and its name, for `path` (a log dir holding it, or that dir).
fn metadata_dir(path: &Path) -> Result<(PathBuf, String)> {
    let is_metadata =
        |p: &Path| p.file_name().and_then(|n| n.to_str()).is_some_and(|n| n.starts_with(&format!("{METADATA_TOPIC}-")));
    let dir = if is_metadata(path) { path.to_path_buf() } else { path.join(format!("{METADATA_TOPIC}-0")) };
    if !dir.is_dir() {
        // A ZooKeeper-mode broker (meta.properties version 0, broker.id, no node.id): its
        // controller kept partition state in ZooKeeper, which a data dir never holds.
        let meta = crate::replica::read_meta_properties(&path.join("meta.properties")).unwrap_or_default();
        let zk = meta.get("version").is_some_and(|v| v == "0") && meta.contains_key("broker.id");
        let why = if zk {
            format!(
                "no KRaft metadata log ({METADATA_TOPIC}-0) here: a ZooKeeper-mode broker's dir \
                 (meta.properties version 0), whose controller kept the partitions' history in ZooKeeper"
            )
        } else {
            format!(
                "no KRaft metadata log ({METADATA_TOPIC}-0) here: name the log dir of a KRaft broker or \
                 controller that holds it (its metadata.log.dir), or that partition dir"
            )
        };
        return Err(Error::layout(path, why));
    }
    let name = dir.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    Ok((dir, name))
}

/// The latest KRaft snapshot in the metadata dir: (path, end offset).
fn latest_snapshot(dir: &Path) -> Result<Option<(PathBuf, i64)>> {
    let mut best: Option<(PathBuf, i64)> = None;
    for e in std::fs::read_dir(dir).map_err(|e| Error::io(dir, "list", e))? {
        let e = e.map_err(|e| Error::io(dir, "list", e))?;
        let name = e.file_name().to_string_lossy().into_owned();
        if let Some((end_offset, _)) = parse_kraft_snapshot_name(&name) {
            if best.as_ref().is_none_or(|(_, o)| end_offset > *o) {
                best = Some((e.path(), end_offset));
            }
        }
    }
    Ok(best)
}

/// How far along the metadata log at `path` is, without replaying it: its log end offset, or
/// its latest snapshot's end offset where that is further (the offset a replay would end at).
pub fn metadata_log_end(path: &Path) -> Result<i64> {
    let (dir, name) = metadata_dir(path)?;
    let log_dir = dir.parent().unwrap_or(Path::new("."));
    let snapshot_end = latest_snapshot(&dir)?.map_or(i64::MIN, |(_, end_offset)| end_offset);
    Ok(Replica::open(log_dir, Some(&name))?.log_end_offset().max(snapshot_end))
}

/// What a replay read: records, and those that did not decode.
#[derive(Default)]
struct Read {
    records_read: u64,
    unreadable: Vec<Unreadable>,
}

/// Replay the data records of a file of batches from offset `from`.
fn replay_batches(
    bytes: &[u8],
    from: i64,
    position: impl Fn(i64) -> MetadataPosition,
    replay: &mut MetadataReplay,
    read: &mut Read,
) {
    for batch in BatchIter::new(bytes) {
        if batch.last_offset() < from || batch.header().is_some_and(|h| h.is_control()) {
            continue;
        }
        let unreadable = |why: String| Unreadable { position: position(batch.base_offset()), what: why };
        let decoded = match batch.records() {
            Ok(d) => d,
            Err(e) => {
                read.unreadable.push(unreadable(e.to_string()));
                continue;
            }
        };
        let records = match decoded.decode() {
            Ok(r) => r,
            Err(e) => {
                read.unreadable.push(unreadable(e.to_string()));
                continue;
            }
        };
        for r in records.iter().filter(|r| r.offset >= from) {
            read.records_read += 1;
            match r.value.map(metadata::decode) {
                Some(Ok(m)) => replay.apply(position(r.offset), r.timestamp, &m),
                Some(Err(e)) => read.unreadable.push(Unreadable { position: position(r.offset), what: e.to_string() }),
                None => read.unreadable.push(Unreadable { position: position(r.offset), what: "null value".into() }),
            }
        }
    }
}

/// Replay the KRaft metadata log at `path` (a log dir holding `__cluster_metadata-0`, or that
/// dir): its latest snapshot, then its log from the snapshot's end offset.
pub fn replay_metadata(path: &Path) -> Result<ReplayedMetadata> {
    let (dir, name) = metadata_dir(path)?;
    let log_dir = dir.parent().unwrap_or(Path::new(".")).to_path_buf();
    let snapshot = latest_snapshot(&dir)?;
    let mut read = Read::default();
    let mut replay = MetadataReplay::default();
    let mut from = i64::MIN;
    if let Some((path, end_offset)) = snapshot.clone() {
        let bytes = crate::regular_file::read_regular(&path)?.unwrap_or_default();
        replay_batches(&bytes, i64::MIN, |_| MetadataPosition::Snapshot { end_offset }, &mut replay, &mut read);
        from = end_offset;
    }
    let replica = Replica::open_with(&log_dir, Some(&name), None)?;
    for seg in replica.log().segments() {
        let bytes = seg.read_log()?;
        replay_batches(&bytes, from, MetadataPosition::Log, &mut replay, &mut read);
    }
    Ok(ReplayedMetadata {
        dir,
        snapshot,
        records_read: read.records_read,
        unreadable: read.unreadable,
        log_end_offset: replica.log_end_offset().max(from),
        replay,
    })
}
