//! Renderers: reports and event streams in, text or JSON lines out, into any `Write`.
//! Nothing here decides what is true about a log; it only shows it. Nothing here reads the
//! command line or the environment either: `main` resolves [`Settings`] once.

/// `out!(w, "format", args)`: one line into `w`, a failed write an error naming `<stdout>`.
/// Defined before the modules so that every renderer below uses this one.
macro_rules! out {
    ($out:expr, $($arg:tt)*) => {
        $crate::error::IoContext::at(writeln!($out, $($arg)*), "<stdout>", "write")
    };
}

pub mod capture;
pub mod cluster;
pub mod data_dir;
pub mod demo;
pub mod demo_marks;
pub mod demo_tiers;
pub mod dump_log;
pub mod epoch_cache;
pub mod explain;
pub mod explore;
pub mod fit;
pub mod history;
pub mod history_picture;
pub mod internal_record;
pub mod java_utf8;
pub mod json;
pub mod kafka_transactions;
pub mod palette;
pub mod picture;
pub mod progress;
pub mod remote;
pub mod remote_forecast;
pub mod report;
pub mod svg;
pub mod table;
pub mod text;
pub mod tier;
pub mod tier_picture;
pub mod tiered_restart;
pub mod tiers;
pub mod transactions;
pub mod txn_picture;
pub mod values;

use palette::Palette;

/// Output settings resolved once in `main` (from `--color`, `NO_COLOR`, `COLORTERM`, `COLUMNS`
/// and whether stdout is a terminal).
#[derive(Debug, Clone, Copy)]
pub struct Settings {
    pub color: bool,
    /// The width text output is laid out to; `None` off a terminal (no wrapping, so the
    /// layout never depends on where the output goes, and a line greps whole).
    pub width: Option<usize>,
    /// The width tables are laid out to: `width`, or 80 off a terminal (a table wider than
    /// the pager it is piped into would be broken into pieces); `None` with `--width 0`.
    pub table_width: Option<usize>,
    /// Whether long work may show progress on stderr.
    pub progress: bool,
    /// Whether the terminal takes 24-bit colour (`COLORTERM`); else 256 colours.
    pub truecolor: bool,
}

impl Settings {
    pub fn palette(&self) -> Palette {
        Palette { enabled: self.color, truecolor: self.truecolor }
    }

    /// The same settings for text shown `indent` columns in (the demo's indented reports).
    pub fn indented(&self, indent: usize) -> Settings {
        let narrower = |w: Option<usize>| w.map(|w| w.saturating_sub(indent).max(fit::MIN_WIDTH));
        Settings { width: narrower(self.width), table_width: narrower(self.table_width), ..*self }
    }
}

/// Show bytes for people: printable UTF-8 text as is, anything else (binary, or text with a
/// character of [`crate::escape::needs_escape`], like the keys of `__consumer_offsets`) as
/// hex, so a table shows binary keys and values the same way and no value reaches a terminal raw.
pub fn display_bytes(bytes: Option<&[u8]>, max_chars: usize) -> String {
    let Some(bytes) = bytes else { return "null".to_string() };
    // Only what is shown is formatted: a 40 MB value costs what a short one does.
    let (text, total_chars) = match std::str::from_utf8(bytes) {
        Ok("") => return "\"\"".to_string(),
        Ok(s) if !s.chars().any(crate::escape::needs_escape) => {
            (s.chars().take(max_chars).collect::<String>(), s.chars().count())
        }
        _ => {
            let shown = bytes.iter().take(max_chars / 2 + 1).map(|b| format!("{b:02x}")).collect::<String>();
            (format!("0x{shown}"), 2 + 2 * bytes.len())
        }
    };
    if total_chars > max_chars {
        let cut: String = text.chars().take(max_chars.saturating_sub(1)).collect();
        format!("{cut}…")
    } else {
        text
    }
}

/// A Kafka timestamp (ms since the Unix epoch) as UTC ISO 8601 with milliseconds,
/// `2020-05-17T10:22:33.958Z`; Kafka's "no timestamp" (-1, `RecordBatch.NO_TIMESTAMP`) and
/// anything outside years 0..=9999 stay the raw number.
pub fn iso_timestamp(ms: i64) -> String {
    // Years 0000..=9999 only, so the text keeps its fixed width.
    const MIN: i64 = -62_167_219_200_000; // 0000-01-01T00:00:00Z
    const MAX: i64 = 253_402_300_799_999; // 9999-12-31T23:59:59.999Z
    if !(MIN..=MAX).contains(&ms) || ms == -1 {
        return ms.to_string();
    }
    let days = ms.div_euclid(86_400_000);
    let in_day = ms.rem_euclid(86_400_000);
    let (y, m, d) = crate::util::civil_from_days(days);
    let (h, min, s, milli) = (in_day / 3_600_000, in_day / 60_000 % 60, in_day / 1000 % 60, in_day % 1000);
    format!("{y:04}-{m:02}-{d:02}T{h:02}:{min:02}:{s:02}.{milli:03}Z")
}

/// A number the files may not hold: `-` when absent (an HW the checkpoint does not list).
pub fn or_dash(v: Option<i64>) -> String {
    v.map_or_else(|| "-".to_string(), |v| v.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn timestamps_read_as_utc_iso_8601() {
        assert_eq!(iso_timestamp(0), "1970-01-01T00:00:00.000Z");
        assert_eq!(iso_timestamp(1_589_710_953_958), "2020-05-17T10:22:33.958Z");
        assert_eq!(iso_timestamp(951_782_400_000), "2000-02-29T00:00:00.000Z");
        assert_eq!(iso_timestamp(-1), "-1");
        assert_eq!(iso_timestamp(-2), "1969-12-31T23:59:59.998Z");
        assert_eq!(iso_timestamp(i64::MAX), i64::MAX.to_string());
        assert_eq!(iso_timestamp(253_402_300_799_999), "9999-12-31T23:59:59.999Z");
        assert_eq!(iso_timestamp(-62_167_219_200_000), "0000-01-01T00:00:00.000Z");
    }

    #[test]
    fn binary_and_control_bytes_show_as_hex_text_as_is() {
        assert_eq!(display_bytes(Some(b"hello"), 40), "hello");
        assert_eq!(display_bytes(Some(&[0, 2, b'a']), 40), "0x000261");
        assert_eq!(display_bytes(Some(&[0xff, 0x01]), 40), "0xff01");
        assert_eq!(display_bytes(Some(b""), 40), "\"\"");
        assert_eq!(display_bytes(None, 40), "null");
        assert_eq!(display_bytes(Some(b"abcdef"), 4), "abc…");
    }
}
