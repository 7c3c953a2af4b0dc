//! Record filters for `klog dump`: a pure predicate over a record (time window, offset range,
//! key, key regex, headers, value regex), the parsing of the flags' values, and the time seek
//! that finds where `--since T` starts from the time index rather than the log.
//!
//! The seek is Kafka's ListOffsets by timestamp on a local log: the first segment whose largest
//! timestamp is at or after T (`UnifiedLog.searchOffsetInLocalLog`, UnifiedLog.java:1819@4.4.0),
//! in it the time-index entry with the largest timestamp at or below T, the offset-index entry
//! for its offset, and from that position the first batch whose max timestamp reaches T and its
//! first record at or after T (`LogSegment.findOffsetByTimestamp`, LogSegment.java:754-758@4.4.0;
//! `FileRecords.searchForTimestamp`). Unlike Kafka it does not floor the answer at the log start
//! offset (a dump shows every record on disk), and a segment whose time index is missing or
//! empty, or the last segment (whose tail a running broker has not indexed yet), is never
//! skipped. Every record before the offset found has a timestamp below T, so filtering the rest
//! by timestamp gives exactly what a full scan filtered by timestamp gives. Never writes.

use crate::error::{Error, Result};
use crate::format::batch::BatchIter;
use crate::format::record::Record;
use crate::log::index;
use crate::log::verify;
use crate::log::Log;

/// One `--header NAME[=VALUE]`: a header named NAME (with that value, when given).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HeaderMatch {
    pub name: Vec<u8>,
    pub value: Option<Vec<u8>>,
}

impl std::str::FromStr for HeaderMatch {
    type Err = String;
    fn from_str(s: &str) -> std::result::Result<Self, String> {
        let (name, value) = match s.split_once('=') {
            Some((n, v)) => (n, Some(v.as_bytes().to_vec())),
            None => (s, None),
        };
        if name.is_empty() {
            return Err(format!("'{s}': expected NAME or NAME=VALUE with a non-empty NAME"));
        }
        Ok(HeaderMatch { name: name.as_bytes().to_vec(), value })
    }
}

/// What a record must satisfy to be shown: every condition given holds.
#[derive(Debug, Clone, Default)]
pub struct RecordFilter {
    /// Records with a timestamp at or after this (ms since the epoch); seeks with the time index.
    pub since: Option<i64>,
    /// Records with a timestamp before this (ms since the epoch, exclusive).
    pub until: Option<i64>,
    /// Records at or below this offset; the scan stops at the first batch past it.
    pub to: Option<i64>,
    /// Records whose key is exactly these bytes.
    pub key: Option<Vec<u8>>,
    pub key_regex: Option<regex::bytes::Regex>,
    /// Every one of these headers is on the record.
    pub headers: Vec<HeaderMatch>,
    pub value_regex: Option<regex::bytes::Regex>,
}

impl RecordFilter {
    /// Whether any condition on single records is set (beyond `--to`, which is checked per batch).
    pub fn selects_records(&self) -> bool {
        self.since.is_some()
            || self.until.is_some()
            || self.key.is_some()
            || self.key_regex.is_some()
            || !self.headers.is_empty()
            || self.value_regex.is_some()
    }

    /// Whether the record passes every condition.
    pub fn matches(&self, r: &Record<'_>) -> bool {
        self.since.is_none_or(|t| r.timestamp >= t)
            && self.until.is_none_or(|t| r.timestamp < t)
            && self.to.is_none_or(|o| r.offset <= o)
            && self.key.as_deref().is_none_or(|k| r.key == Some(k))
            && self.key_regex.as_ref().is_none_or(|re| r.key.is_some_and(|k| re.is_match(k)))
            && self.headers.iter().all(|m| {
                r.headers
                    .iter()
                    .any(|h| h.key == m.name.as_slice() && m.value.as_deref().is_none_or(|v| h.value == Some(v)))
            })
            && self.value_regex.as_ref().is_none_or(|re| r.value.is_some_and(|v| re.is_match(v)))
    }

    /// Whether a batch starting at `base_offset` lies wholly past `--to` (the scan may stop).
    pub fn past_end(&self, base_offset: i64) -> bool {
        self.to.is_some_and(|o| base_offset > o)
    }
}

/// A `--since`/`--until` value: ISO-8601 (`2026-12-07T03:00:00Z`, with optional fraction and a
/// `Z` or `±HH:MM` offset, or a bare date `2026-12-07` for its midnight UTC) or epoch ms.
pub fn parse_time(s: &str) -> std::result::Result<i64, String> {
    let bad = || {
        format!("'{s}': expected a time as ISO-8601 (2026-12-07T03:00:00Z, 2026-12-07T04:00:00+01:00, 2026-12-07) or epoch milliseconds")
    };
    // Epoch ms: digits, with an optional minus sign (before 1970).
    let digits = s.strip_prefix('-').unwrap_or(s);
    if !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit()) {
        return s.parse::<i64>().map_err(|_| bad());
    }
    let num = |t: &str| -> std::result::Result<i64, String> {
        if t.is_empty() || !t.bytes().all(|b| b.is_ascii_digit()) {
            return Err(bad());
        }
        t.parse::<i64>().map_err(|_| bad())
    };
    let (date, rest) = s.split_once(['T', 't', ' ']).unwrap_or((s, ""));
    let parts: Vec<&str> = date.split('-').collect();
    let [y, mo, d] = parts.as_slice() else { return Err(bad()) };
    if y.len() != 4 || mo.len() != 2 || d.len() != 2 {
        return Err(bad());
    }
    let (year, month, day) = (num(y)?, num(mo)?, num(d)?);
    if !(1..=12).contains(&month) || day < 1 || day > days_in_month(year, month) {
        return Err(bad());
    }
    let mut ms = days_from_civil(year, month, day) * 86_400_000;
    if rest.is_empty() {
        return Ok(ms);
    }
    // The zone: `Z`, or `+HH:MM` / `-HH:MM` after the time.
    let (time, zone_ms) = if let Some(t) = rest.strip_suffix(['Z', 'z']) {
        (t, 0)
    } else if let Some(i) = rest.rfind(['+', '-']) {
        let (t, z) = (&rest[..i], &rest[i + 1..]);
        let (zh, zm) = z.split_once(':').ok_or_else(bad)?;
        if zh.len() != 2 || zm.len() != 2 {
            return Err(bad());
        }
        let (zh, zm) = (num(zh)?, num(zm)?);
        if zh > 23 || zm > 59 {
            return Err(bad());
        }
        let sign = if rest.as_bytes()[i] == b'+' { 1 } else { -1 };
        (t, sign * (zh * 3_600_000 + zm * 60_000))
    } else {
        return Err(bad());
    };
    let (hms, fraction) = time.split_once('.').unwrap_or((time, ""));
    let hms: Vec<&str> = hms.split(':').collect();
    let (h, mi, sec) = match hms.as_slice() {
        [h, m] => (*h, *m, "00"),
        [h, m, sec] => (*h, *m, *sec),
        _ => return Err(bad()),
    };
    if h.len() != 2 || mi.len() != 2 || sec.len() != 2 {
        return Err(bad());
    }
    let (h, mi, sec) = (num(h)?, num(mi)?, num(sec)?);
    if h > 23 || mi > 59 || sec > 60 {
        return Err(bad());
    }
    if !fraction.is_empty() {
        // Milliseconds: the first three digits (finer digits are dropped).
        num(fraction)?;
        let digits: String = fraction.chars().chain("00".chars()).take(3).collect();
        ms += num(&digits)?;
    }
    ms += h * 3_600_000 + mi * 60_000 + sec * 1_000;
    Ok(ms - zone_ms)
}

fn days_in_month(year: i64, month: i64) -> i64 {
    match month {
        2 if year % 4 == 0 && (year % 100 != 0 || year % 400 == 0) => 29,
        2 => 28,
        4 | 6 | 9 | 11 => 30,
        _ => 31,
    }
}

/// Days from 1970-01-01 to a proleptic Gregorian date (Howard Hinnant's `days_from_civil`).
fn days_from_civil(year: i64, month: i64, day: i64) -> i64 {
    let y = if month <= 2 { year - 1 } else { year };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (month + 9) % 12;
    let doy = (153 * mp + 2) / 5 + day - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

/// A `--key-regex` / `--value-regex` value, compiled (over bytes; `(?-u)` matches raw bytes).
pub fn parse_regex(s: &str) -> std::result::Result<regex::bytes::Regex, String> {
    regex::bytes::Regex::new(s).map_err(|e| format!("'{s}': not a regular expression: {}", one_line(&e.to_string())))
}

fn one_line(s: &str) -> String {
    s.lines().map(str::trim).filter(|l| !l.is_empty()).collect::<Vec<_>>().join(" ")
}

/// The first offset whose record timestamp is at or after `target`, found from the time index
/// (see the module comment); `None` when no record reaches it. Reads the log only from the
/// position the indexes give, in the one segment they name (and in following segments only when
/// that segment, against its index, holds no such record).
pub fn seek_since(log: &Log, target: i64) -> Result<Option<i64>> {
    let segments = log.segments();
    let last = segments.len().saturating_sub(1);
    for (i, seg) in segments.iter().enumerate() {
        let time_index = seg.read_time_index()?;
        let time_index = time_index.as_deref().unwrap_or_default();
        // `segment.largestTimestamp >= target`, from the last slot, with an unindexed or last
        // segment never skipped (nor one whose last slot is the zero fill of an untrimmed index).
        let slots = time_index.len() / index::TIME_ENTRY_BYTES;
        let indexed =
            index::last_time_entry(time_index, seg.base_offset).filter(|e| slots == 1 || e.offset != seg.base_offset);
        if i != last && indexed.is_some_and(|e| e.timestamp < target) {
            continue;
        }
        let entries = verify::read_time_index(time_index, seg.base_offset).entries;
        let entry = time_index_lookup(&entries, seg.base_offset, target);
        let position = match seg.read_index()? {
            Some(offsets) => index::lookup_offset(&offsets, seg.base_offset, entry.max(seg.base_offset)).position,
            None => 0,
        };
        let log_bytes = seg.read_log()?;
        // An index position that does not land on a batch is not trusted: scan from the start.
        let position =
            if BatchIter::starting_at(&log_bytes, position as usize).next().is_some_and(|b| b.position == position) {
                position as usize
            } else {
                0
            };
        for batch in BatchIter::starting_at(&log_bytes, position) {
            if batch.max_timestamp() < target {
                continue;
            }
            let decoded = batch.records().ok();
            match decoded.as_ref().and_then(|d| d.decode().ok()) {
                Some(records) => {
                    if let Some(r) = records.iter().find(|r| r.timestamp >= target) {
                        return Ok(Some(r.offset));
                    }
                }
                // Records that do not decode: start at the batch, the filter judges each record.
                None => return Ok(Some(batch.base_offset())),
            }
        }
    }
    Ok(None)
}

/// `TimeIndex.lookup`: the offset of the entry with the largest timestamp at or below `target`
/// (timestamps increase in a valid index), or the base offset when none is.
fn time_index_lookup(entries: &[index::TimestampOffset], base_offset: i64, target: i64) -> i64 {
    let at = entries.partition_point(|e| e.timestamp <= target);
    at.checked_sub(1).map_or(base_offset, |i| entries[i].offset)
}

/// Record filters (or `--count`) on a log dir holding several partitions, none named.
pub fn needs_partition(dir: &std::path::Path) -> Error {
    Error::layout(dir, "record filters need the partitions to read: name one with --partition, or a topic with --topic")
}

/// An error for a `--topic` that names no partition in the dir.
pub fn no_such_topic(dir: &std::path::Path, topic: &str) -> Error {
    Error::layout(dir, format!("no partition dir of topic '{topic}' here (expected {topic}-<N>)"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::format::record::Header;

    fn record<'a>(offset: i64, timestamp: i64, key: Option<&'a [u8]>, value: Option<&'a [u8]>) -> Record<'a> {
        Record { offset, timestamp, attributes: 0, key, value, headers: vec![], size_bytes: 0, legacy: None }
    }

    #[test]
    fn iso_times_and_epoch_milliseconds_parse_to_the_same_instant() {
        assert_eq!(parse_time("2026-12-07T03:00:00Z"), Ok(1_796_612_400_000));
        assert_eq!(parse_time("1796612400000"), Ok(1_796_612_400_000));
        assert_eq!(parse_time("2026-12-07T04:00:00+01:00"), Ok(1_796_612_400_000));
        assert_eq!(parse_time("2026-12-06T22:00-05:00"), Ok(1_796_612_400_000));
        assert_eq!(parse_time("2026-12-07T03:00:00.250Z"), Ok(1_796_612_400_250));
        assert_eq!(parse_time("2026-12-07T03:00:00.2Z"), Ok(1_796_612_400_200));
        assert_eq!(parse_time("2026-12-07"), Ok(1_796_601_600_000));
        assert_eq!(parse_time("1970-01-01T00:00:00Z"), Ok(0));
        assert_eq!(parse_time("2024-02-29T00:00:00Z"), Ok(1_709_164_800_000));
    }

    #[test]
    fn malformed_times_are_refused_with_what_is_expected() {
        for bad in [
            "",
            "yesterday",
            "2026-13-01",
            "2025-02-29",
            "2026-12-07T25:00:00Z",
            "2026-12-07T03:00:00",
            "12:00",
            "2026-1-7",
        ] {
            let e = parse_time(bad).unwrap_err();
            assert!(e.contains("expected a time as ISO-8601"), "{bad}: {e}");
        }
    }

    #[test]
    fn every_condition_given_must_hold() {
        let mut f = RecordFilter { since: Some(10), until: Some(20), ..Default::default() };
        assert!(f.matches(&record(0, 10, None, None)));
        assert!(!f.matches(&record(0, 9, None, None)));
        assert!(!f.matches(&record(0, 20, None, None)));
        f.key = Some(b"k1".to_vec());
        assert!(f.matches(&record(0, 15, Some(b"k1"), None)));
        assert!(!f.matches(&record(0, 15, Some(b"k10"), None)));
        assert!(!f.matches(&record(0, 15, None, None)));
        let f = RecordFilter { value_regex: Some(parse_regex("^ord-[0-9]+$").unwrap()), ..Default::default() };
        assert!(f.matches(&record(0, 0, None, Some(b"ord-42"))));
        assert!(!f.matches(&record(0, 0, None, Some(b"ord-x"))));
        assert!(!f.matches(&record(0, 0, None, None)));
        let f = RecordFilter { to: Some(5), ..Default::default() };
        assert!(f.matches(&record(5, 0, None, None)) && !f.matches(&record(6, 0, None, None)));
        assert!(f.past_end(6) && !f.past_end(5));
    }

    #[test]
    fn a_header_matches_by_name_or_by_name_and_value() {
        let mut r = record(0, 0, None, None);
        r.headers = vec![Header { key: b"trace", value: Some(b"abc") }, Header { key: b"empty", value: None }];
        let by = |s: &str| RecordFilter { headers: vec![s.parse().unwrap()], ..Default::default() };
        assert!(by("trace").matches(&r));
        assert!(by("trace=abc").matches(&r));
        assert!(!by("trace=abd").matches(&r));
        assert!(by("empty").matches(&r));
        assert!(!by("empty=").matches(&r));
        assert!(!by("other").matches(&r));
        assert!("=x".parse::<HeaderMatch>().is_err());
    }

    #[test]
    fn the_time_index_lookup_takes_the_last_entry_at_or_below_the_target() {
        let mut bytes = Vec::new();
        for (ts, rel) in [(100i64, 3i32), (200, 7), (300, 12), (0, 0), (0, 0)] {
            bytes.extend_from_slice(&ts.to_be_bytes());
            bytes.extend_from_slice(&rel.to_be_bytes());
        }
        // The zero-filled tail of an untrimmed index is no entry.
        let entries = verify::read_time_index(&bytes, 1000).entries;
        assert_eq!(entries.len(), 3);
        assert_eq!(time_index_lookup(&entries, 1000, 50), 1000);
        assert_eq!(time_index_lookup(&entries, 1000, 100), 1003);
        assert_eq!(time_index_lookup(&entries, 1000, 250), 1007);
        assert_eq!(time_index_lookup(&entries, 1000, 999), 1012);
        assert_eq!(time_index_lookup(&[], 1000, 999), 1000);
    }
}
