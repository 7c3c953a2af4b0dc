//! `klog append`: one producer request (acks=all) to a leader (replication-model.md,
//! operation 2; Kafka `UnifiedLog.appendAsLeader`).

use crate::error::{Error, Result};
use crate::format::batch::{BatchEncoder, BatchIter, BatchSpec};
use crate::format::compression::Compression;
use crate::format::record::RecordRef;
use crate::log::recovery::RecoveryReport;
use crate::replica::{Replica, Role};
use std::path::Path;

/// Where the record values come from.
pub enum Values {
    Given(Vec<Vec<u8>>),
    Generated { count: u64, value_size: usize },
}

pub struct AppendRequest<'a> {
    pub dir: &'a Path,
    pub partition: Option<&'a str>,
    pub values: Values,
    pub key: Option<Vec<u8>>,
    pub headers: Vec<(Vec<u8>, Option<Vec<u8>>)>,
    pub records_per_batch: Option<u64>,
    pub timestamp: i64,
    pub flush: bool,
    pub compression: Compression,
}

#[derive(Debug)]
pub struct AppendReport {
    pub leader_epoch: i32,
    /// (base offset, last offset) of each batch written.
    pub batches: Vec<(i64, i64)>,
    pub records: u64,
    pub bytes: u64,
    pub log_end_offset: i64,
    pub high_watermark: i64,
    pub flushed: bool,
    pub segments_rolled: usize,
    pub startup: Option<RecoveryReport>,
}

/// Parse `K=V` (or `K` for a null value).
pub fn parse_header(text: &str) -> (Vec<u8>, Option<Vec<u8>>) {
    match text.split_once('=') {
        Some((k, v)) => (k.as_bytes().to_vec(), Some(v.as_bytes().to_vec())),
        None => (text.as_bytes().to_vec(), None),
    }
}

/// Largest batch klog builds for generated records (Kafka's default max.request.size).
const GENERATED_BATCH_BYTES: usize = 1 << 20;

pub fn run(req: AppendRequest<'_>) -> Result<AppendReport> {
    let total = match &req.values {
        Values::Given(v) => v.len() as u64,
        Values::Generated { count, .. } => *count,
    };
    if total == 0 {
        return Err(Error::Usage("nothing to append: give VALUEs, --stdin or --count".into()));
    }
    let (mut replica, startup) = Replica::open_mut(req.dir, req.partition)?;
    let state = replica.state().cloned().expect("running after open_mut");
    if state.role != Role::Leader {
        return Err(Error::state(
            &replica.paths.log_dir,
            "not the leader: only a leader appends (make it one with `klog elect`)",
        ));
    }
    let per_batch = req.records_per_batch.unwrap_or(match &req.values {
        Values::Given(_) => total,
        Values::Generated { value_size, .. } => {
            (GENERATED_BATCH_BYTES / (value_size + 24 + req.key.as_ref().map_or(0, |k| k.len()))).max(1) as u64
        }
    });
    let segments_before = replica.log.segments().len();
    let mut report = AppendReport {
        leader_epoch: state.leader_epoch,
        batches: Vec::new(),
        records: 0,
        bytes: 0,
        log_end_offset: 0,
        high_watermark: 0,
        flushed: req.flush,
        segments_rolled: 0,
        startup,
    };
    let mut produced = 0u64;
    let headers: Vec<(&[u8], Option<&[u8]>)> = req.headers.iter().map(|(k, v)| (k.as_slice(), v.as_deref())).collect();
    let spec = |base| BatchSpec { compression: req.compression, ..BatchSpec::plain(base, state.leader_epoch) };
    let mut encoder = BatchEncoder::new(spec(0), GENERATED_BATCH_BYTES + 4096);
    let mut scratch = Vec::new();
    while produced < total {
        let n = per_batch.min(total - produced);
        let base = replica.log_end_offset();
        encoder.reset(spec(base));
        for i in 0..n {
            let value: &[u8] = match &req.values {
                Values::Given(v) => &v[(produced + i) as usize],
                Values::Generated { value_size, .. } => {
                    fill_generated_value(base + i as i64, *value_size, &mut scratch);
                    &scratch
                }
            };
            encoder.push(&RecordRef {
                timestamp: req.timestamp,
                key: req.key.as_deref(),
                value: Some(value),
                headers: &headers,
            });
        }
        let bytes = encoder.finish();
        let batch = BatchIter::new(bytes).next().expect("an encoded batch frames");
        replica.log.append_batch(batch)?;
        report.batches.push((base, batch.last_offset()));
        report.bytes += bytes.len() as u64;
        produced += n;
    }
    report.records = produced;
    replica.finish_writes()?;
    if req.flush {
        replica.flush()?;
    }
    let leo = replica.log_end_offset();
    if state.isr.is_empty() && leo > replica.high_watermark {
        replica.set_high_watermark(leo)?;
    }
    report.log_end_offset = leo;
    report.high_watermark = replica.high_watermark;
    report.segments_rolled = replica.log.segments().len().saturating_sub(segments_before);
    Ok(report)
}

/// A value of `size` bytes for a generated record: printable, different per offset
/// (`v<offset>-` repeated), written into `out`.
pub fn fill_generated_value(offset: i64, size: usize, out: &mut Vec<u8>) {
    out.clear();
    let mut tag = [0u8; 24];
    let mut n = 0;
    tag[n] = b'v';
    n += 1;
    let digits = offset.to_string();
    tag[n..n + digits.len()].copy_from_slice(digits.as_bytes());
    n += digits.len();
    tag[n] = b'-';
    n += 1;
    while out.len() < size {
        let take = (size - out.len()).min(n);
        out.extend_from_slice(&tag[..take]);
    }
}
