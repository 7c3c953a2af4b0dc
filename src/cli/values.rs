//! The value parsers of klog's flags: every number checked against Kafka's own limits, topic
//! names by Kafka's rules, releases and on/off words, before a command runs.

use super::*;

pub(super) const I32_MAX: i128 = i32::MAX as i128;

pub(super) const I64_MAX: i128 = i64::MAX as i128;

/// The most fetch rounds one command runs.
pub(super) const MAX_ROUNDS: i128 = 1_000_000;

/// The most kept records `recover` shows before the cut.
pub(super) const MAX_CONTEXT: i128 = 1_000_000;

/// The largest value one record can carry in a v2 batch whose size field is an i32: the batch
/// header (61 bytes, `DefaultRecordBatch.RECORD_BATCH_OVERHEAD`) and the record's own framing
/// (length 5, attributes 1, timestamp delta 1, offset delta 1, null key 1, value length 5,
/// header count 1) taken off `i32::MAX`.
pub const MAX_VALUE_BYTES: u64 = i32::MAX as u64 - 61 - 15;

/// A value parser for an integer in `min..=max`, whose error names the limit and where it
/// comes from (clap prints it after `invalid value '<v>' for '<flag>'`).
pub(super) fn ranged<T>(
    min: i128,
    max: i128,
    why: &'static str,
) -> impl Fn(&str) -> std::result::Result<T, String> + Clone
where
    T: TryFrom<i128>,
{
    move |text: &str| {
        let out_of_range = || format!("must be between {min} and {max} ({why})");
        let digits = text.trim().strip_prefix(['-', '+']).unwrap_or(text.trim());
        let n: i128 = text.trim().parse().map_err(|_| {
            // All digits but too many for any integer: out of range, not malformed.
            if !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit()) {
                out_of_range()
            } else {
                format!("not a whole number (expected {min} to {max})")
            }
        })?;
        if !(min..=max).contains(&n) {
            return Err(out_of_range());
        }
        T::try_from(n).map_err(|_| out_of_range())
    }
}

/// Kafka's topic name rules (`org.apache.kafka.common.internals.Topic.validate`).
pub(super) fn topic_name(text: &str) -> std::result::Result<String, String> {
    crate::log::names::validate_topic(text).map(|()| text.to_string())
}

// ---- Examples and exit codes: one source for `--help` and the man pages. ----

/// `--kafka RELEASE[,ibp=IBP][,unclean=BOOL]`.
pub(super) fn parse_kafka(text: &str) -> Result<Rules, String> {
    crate::replication::release::parse_kafka(text)
}

pub(super) fn parse_on_off(text: &str) -> Result<bool, String> {
    match text {
        "on" => Ok(true),
        "off" => Ok(false),
        _ => Err(format!("'{}' is neither on nor off", text.chars().take(20).collect::<String>())),
    }
}
