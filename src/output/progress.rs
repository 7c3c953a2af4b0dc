//! Progress for long work, on stderr, only when stderr is a terminal (decided once in `main`).
//! Commands report `(done, total)` through [`ProgressSink`] (defined on the command side); this renderer rate-limits the
//! updates and clears its line when the work ends, so stdout stays results only.

pub use crate::parallel::{NoProgress, ProgressSink};
use std::io::Write;
use std::time::{Duration, Instant};

const EVERY: Duration = Duration::from_millis(100);

/// A one-line progress display: `label: 42% (420000/1000000 records)`.
pub struct Progress<W: Write> {
    out: W,
    label: &'static str,
    unit: &'static str,
    last: Option<Instant>,
    shown: bool,
}

impl<W: Write> Progress<W> {
    pub fn new(out: W, label: &'static str, unit: &'static str) -> Self {
        Progress { out, label, unit, last: None, shown: false }
    }

    /// The line for `(done, total)`.
    pub fn line(&self, done: u64, total: u64) -> String {
        let pct = done.saturating_mul(100).checked_div(total).unwrap_or(100);
        format!("{}: {pct}% ({done}/{total} {})", self.label, self.unit)
    }

    /// Erase the line, if one was shown.
    pub fn finish(&mut self) {
        if self.shown {
            let _ = write!(self.out, "\r\x1b[2K");
            let _ = self.out.flush();
            self.shown = false;
        }
    }
}

impl<W: Write> ProgressSink for Progress<W> {
    fn update(&mut self, done: u64, total: u64) {
        let now = Instant::now();
        if self.last.is_some_and(|l| now.duration_since(l) < EVERY) {
            return;
        }
        if self.last.is_none() {
            // Quick work never shows a line: the first one appears after one interval.
            self.last = Some(now);
            return;
        }
        self.last = Some(now);
        let line = self.line(done, total);
        let _ = write!(self.out, "\r\x1b[2K{line}");
        let _ = self.out.flush();
        self.shown = true;
    }
}

impl<W: Write> Drop for Progress<W> {
    fn drop(&mut self) {
        self.finish();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn progress_is_rate_limited_and_cleared() {
        let mut buf = Vec::new();
        {
            let mut p = Progress::new(&mut buf, "append", "records");
            assert_eq!(p.line(250, 1000), "append: 25% (250/1000 records)");
            p.update(1, 10); // starts the clock, shows nothing
            p.update(2, 10); // too soon
            std::thread::sleep(EVERY + Duration::from_millis(5));
            p.update(5, 10);
        }
        let text = String::from_utf8(buf).unwrap();
        assert_eq!(text, "\r\x1b[2Kappend: 50% (5/10 records)\r\x1b[2K");
    }
}
