//! `klog append`: one producer request (acks=all) to a leader (replication-model.md,
//! operation 2; Kafka `UnifiedLog.appendAsLeader`).

use crate::error::{Error, Result};
use crate::format::batch::{encode_batch, BatchIter, BatchSpec};
use crate::format::record::NewRecord;
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
    let mut records: Vec<NewRecord> = Vec::with_capacity(per_batch.min(total) as usize);
    while produced < total {
        records.clear();
        let n = per_batch.min(total - produced);
        for i in produced..produced + n {
            let value = match &req.values {
                Values::Given(v) => v[i as usize].clone(),
                Values::Generated { value_size, .. } => {
                    generated_value(replica.log_end_offset() + (i - produced) as i64, *value_size)
                }
            };
            records.push(NewRecord {
                timestamp: req.timestamp,
                key: req.key.clone(),
                value: Some(value),
                headers: req.headers.clone(),
            });
        }
        let base = replica.log_end_offset();
        let bytes = encode_batch(&BatchSpec::plain(base, state.leader_epoch), &records);
        let batch = BatchIter::new(&bytes).next().expect("an encoded batch frames");
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

/// A value of `size` bytes for a generated record: printable, different per offset.
pub fn generated_value(offset: i64, size: usize) -> Vec<u8> {
    let tag = format!("v{offset}-");
    let mut v = Vec::with_capacity(size);
    while v.len() < size {
        let take = (size - v.len()).min(tag.len());
        v.extend_from_slice(&tag.as_bytes()[..take]);
    }
    v
}
