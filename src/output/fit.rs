//! Text that fits the terminal: a writer that wraps each line longer than the width at a
//! space (never inside a colour escape), with a hanging indent, and the width helpers that
//! count only what a terminal shows. Tables are laid out to the width by comfy-table and pass
//! through unchanged; this catches the prose lines (summaries, reports, narration).

use std::io::{self, Write};

/// The narrowest width anything is laid out to: a terminal that reports less (or 0, as one
/// under `script` does) gets this.
pub const MIN_WIDTH: usize = 40;

/// The width used on a terminal whose size is unknown or reported as 0.
pub const FALLBACK_WIDTH: usize = 80;

/// Escape sequences (`ESC [ ... final`) and the text between them.
enum Piece {
    Escape,
    Char(char),
}

fn pieces(s: &str) -> impl Iterator<Item = (usize, Piece)> + '_ {
    let mut i = 0;
    std::iter::from_fn(move || {
        let rest = &s[i..];
        let c = rest.chars().next()?;
        let start = i;
        if c == '\x1b' && rest[1..].starts_with('[') {
            // CSI: parameters and intermediates, then one final byte in 0x40..=0x7e.
            let end = rest[2..].bytes().position(|b| (0x40..=0x7e).contains(&b)).map_or(rest.len(), |p| p + 3);
            i += end;
            return Some((start, Piece::Escape));
        }
        i += c.len_utf8();
        Some((start, Piece::Char(c)))
    })
}

/// Columns a terminal uses to show `s`: its characters, not its escape sequences.
pub fn visible_width(s: &str) -> usize {
    pieces(s).filter(|(_, p)| matches!(p, Piece::Char(_))).count()
}

/// `s` padded with spaces to `width` visible columns: `format!("{:<8}")` counts escape
/// sequences as width, so coloured text would lose its padding.
pub fn pad_end(s: &str, width: usize) -> String {
    format!("{s}{}", " ".repeat(width.saturating_sub(visible_width(s))))
}

/// `s` without its escape sequences.
pub fn strip_escapes(s: &str) -> String {
    pieces(s)
        .filter_map(|(_, p)| match p {
            Piece::Char(c) => Some(c),
            Piece::Escape => None,
        })
        .collect()
}

/// One line cut into lines of at most `width` visible columns: at the last two-space gap
/// between fields or `; `/`, ` clause in the second half of the line, else at the last space,
/// else (one long word, e.g. a path) at the width; continuation lines are indented two more
/// than the line. Escape sequences are never split; trailing spaces are dropped.
pub fn wrap_line(line: &str, width: usize) -> Vec<String> {
    let width = width.max(MIN_WIDTH);
    if visible_width(line) <= width {
        return vec![line.trim_end().to_string()];
    }
    let indent = line.len() - line.trim_start_matches(' ').len();
    let cont = " ".repeat((indent + 2).min(width / 2));
    let mut lines = Vec::new();
    let mut rest = line;
    let mut prefix = "";
    loop {
        let avail = width - prefix.len();
        let (mut col, mut seen_text, mut last_space, mut last_gap, mut cut) = (0, false, None, None, None);
        let mut previous = ' ';
        for (at, piece) in pieces(rest) {
            let Piece::Char(c) = piece else { continue };
            if col == avail {
                cut = Some(at);
                break;
            }
            if c == ' ' && seen_text {
                last_space = Some(at);
                // Two spaces separate fields (`LEO 18  HW 18`) and `; ` clauses: the best
                // places to break, if they leave at least half the line on it; a `, ` comes
                // next, if it leaves three quarters (so prose does not wrap with columns to
                // spare).
                if (matches!(previous, ' ' | ';') && col > avail / 2) || (previous == ',' && col > avail * 3 / 4) {
                    last_gap = Some(at);
                }
            }
            seen_text |= c != ' ';
            previous = c;
            col += 1;
        }
        let Some(at) = cut else {
            lines.push(format!("{prefix}{}", rest.trim_end()));
            return lines;
        };
        // A gap right at the cut is the best break; a single space there is as good as the
        // last space before it, but not as good as the last gap between fields.
        let at_gap =
            rest[at..].starts_with("  ") || (rest[at..].starts_with(' ') && matches!(previous, ' ' | ';' | ','));
        let at_space = rest[at..].starts_with(' ');
        let (head, tail) = match (last_gap, last_space) {
            _ if at_gap => (&rest[..at], &rest[at..]),
            (Some(g), _) => (&rest[..g], &rest[g..]),
            _ if at_space => (&rest[..at], &rest[at..]),
            (None, Some(s)) => (&rest[..s], &rest[s..]),
            (None, None) => (&rest[..at], &rest[at..]),
        };
        lines.push(format!("{prefix}{}", head.trim_end()));
        rest = tail.trim_start_matches(' ');
        if rest.is_empty() {
            return lines;
        }
        prefix = &cont;
    }
}

/// A writer that makes every line safe for a terminal and wraps it to `width` (no wrapping
/// when `None`). Safe: each character a terminal would act on is escaped by the one rule,
/// [`crate::escape::terminal_line`], keeping only klog's own colour codes and only when
/// colour is on; so text from a file or an argument that a renderer missed still never
/// reaches the terminal raw.
pub struct Fit<W: Write> {
    inner: W,
    width: Option<usize>,
    colour: bool,
    line: Vec<u8>,
}

/// Whether `buf` may hold something [`crate::escape::needs_escape`] escapes: an ASCII control
/// other than `\n`, DEL, a C1 control (`C2 80`..`C2 9F`), or a character of U+2000..U+207F
/// (`E2 80`, `E2 81`: the separators and bidi formatting), or ends in the first byte of one.
/// Lines without one pass through untouched (table borders, `·`, `…` stay on the fast path
/// except `…`, which shares its first two bytes with them).
fn suspect(buf: &[u8]) -> bool {
    buf.iter().enumerate().any(|(i, &b)| match b {
        b'\n' => false,
        0..=0x1f | 0x7f => true,
        0xc2 => buf.get(i + 1).is_none_or(|n| (0x80..=0x9f).contains(n)),
        0xe2 => buf.get(i + 1).is_none_or(|n| matches!(n, 0x80 | 0x81)),
        // U+061C (the Arabic letter mark) and U+FEFF (a zero-width no-break space)
        0xd8 => buf.get(i + 1).is_none_or(|n| *n == 0x9c),
        0xef => buf.get(i + 1).is_none_or(|n| *n == 0xbb),
        _ => false,
    })
}

impl<W: Write> Fit<W> {
    /// `colour`: whether klog's own colour codes (SGR) may pass; every other escape is shown.
    pub fn new(inner: W, width: Option<usize>, colour: bool) -> Self {
        Fit { inner, width, colour, line: Vec::new() }
    }

    /// The writer underneath, for output that must not be wrapped (JSON, Kafka's lines).
    pub fn raw(&mut self) -> &mut W {
        &mut self.inner
    }

    fn emit(&mut self, newline: bool) -> io::Result<()> {
        let width = self.width.unwrap_or(usize::MAX);
        let text = String::from_utf8_lossy(&self.line);
        let text = crate::escape::terminal_line(&text, self.colour);
        let lines = if self.width.is_none() { vec![text.into_owned()] } else { wrap_line(&text, width) };
        let n = lines.len();
        for (i, l) in lines.into_iter().enumerate() {
            self.inner.write_all(l.as_bytes())?;
            if newline || i + 1 < n {
                self.inner.write_all(b"\n")?;
            }
        }
        self.line.clear();
        Ok(())
    }
}

impl<W: Write> Write for Fit<W> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        // Unwrapped text with nothing suspect passes straight through (a dump table of
        // millions of rows costs one scan of its bytes).
        if self.width.is_none() && self.line.is_empty() && !suspect(buf) {
            self.inner.write_all(buf)?;
            return Ok(buf.len());
        }
        let mut rest = buf;
        while let Some(nl) = rest.iter().position(|b| *b == b'\n') {
            self.line.extend_from_slice(&rest[..nl]);
            self.emit(true)?;
            rest = &rest[nl + 1..];
        }
        self.line.extend_from_slice(rest);
        Ok(buf.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        if !self.line.is_empty() {
            self.emit(false)?;
        }
        self.inner.flush()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn width_counts_characters_not_escapes() {
        assert_eq!(visible_width("\x1b[1mreplica\x1b[0m x"), 9);
        assert_eq!(strip_escapes("\x1b[32mok\x1b[39m…"), "ok…");
        assert_eq!(pad_end("\x1b[32mok\x1b[39m", 4), "\x1b[32mok\x1b[39m  ");
        assert_eq!(pad_end("longer", 4), "longer");
    }

    #[test]
    fn long_lines_wrap_at_spaces_with_a_hanging_indent() {
        let line = format!("  {}", ["word"; 20].join(" "));
        let lines = wrap_line(&line, 40);
        assert!(lines.iter().all(|l| l.len() <= 40), "{lines:?}");
        assert!(lines[0].starts_with("  word"));
        assert!(lines[1].starts_with("    word"));
        assert_eq!(lines.join(" ").split_whitespace().count(), 20);
    }

    #[test]
    fn wrapping_never_splits_an_escape_and_ignores_it_for_width() {
        let red = "\x1b[31mabcdefghij\x1b[39m";
        let line = [red; 8].join(" ");
        let lines = wrap_line(&line, 45);
        for l in &lines {
            assert!(visible_width(l) <= 45, "{l:?}");
            assert_eq!(l.matches("\x1b[31m").count(), l.matches("\x1b[39m").count(), "{l:?}");
        }
        let plain = wrap_line(&strip_escapes(&line), 45);
        assert_eq!(lines.iter().map(|l| strip_escapes(l)).collect::<Vec<_>>(), plain);
    }

    #[test]
    fn lines_break_between_fields_rather_than_inside_one() {
        let line = "replica t-0  role leader  leader epoch 3  LEO 18  HW 18  recovery point 18";
        let lines = wrap_line(line, 60);
        assert_eq!(lines, vec!["replica t-0  role leader  leader epoch 3  LEO 18  HW 18", "  recovery point 18"]);
    }

    #[test]
    fn a_word_longer_than_the_width_is_cut_and_short_lines_lose_trailing_spaces() {
        let path = format!("/{}", "x".repeat(100));
        let lines = wrap_line(&path, 40);
        assert!(lines.iter().all(|l| l.len() <= 40));
        assert_eq!(lines.concat().replace(' ', ""), path);
        assert_eq!(wrap_line("ok   ", 80), vec!["ok"]);
    }

    #[test]
    fn the_writer_escapes_what_a_terminal_would_act_on_and_keeps_only_its_own_colours() {
        for width in [None, Some(40)] {
            for colour in [false, true] {
                let mut out = Vec::new();
                let mut f = Fit::new(&mut out, width, colour);
                // a C1 CSI split across two writes, a title-setting OSC, a screen clear
                f.write_all(b"name \xc2").unwrap();
                f.write_all(b"\x9bm").unwrap();
                write!(f, " \u{1b}]0;pwned\u{7} \u{1b}[2J\r\n\u{1b}[31mred\u{1b}[39m\tend").unwrap();
                f.flush().unwrap();
                let text = String::from_utf8(out).unwrap();
                let colour_codes =
                    if colour { text.replace("\u{1b}[31m", "").replace("\u{1b}[39m", "") } else { text.clone() };
                assert!(
                    colour_codes.chars().all(|c| c == '\n' || !crate::escape::needs_escape(c)),
                    "{width:?} {colour}: {text:?}"
                );
                assert!(
                    text.replace("\n  ", " ").starts_with("name \\u{9b}m \\u{1b}]0;pwned\\u{7} \\u{1b}[2J\\r\n"),
                    "{text:?}"
                );
                assert!(text.ends_with("red\u{1b}[39m\\tend") == colour, "{text:?}");
            }
        }
    }

    #[test]
    fn the_writer_wraps_complete_lines_and_passes_through_without_a_width() {
        let mut out = Vec::new();
        let mut f = Fit::new(&mut out, Some(40), false);
        write!(f, "{}\nshort", ["abcd"; 12].join(" ")).unwrap();
        f.flush().unwrap();
        let text = String::from_utf8(out).unwrap();
        assert!(text.lines().all(|l| l.len() <= 40), "{text}");
        assert!(text.ends_with("\nshort"));
        let mut out = Vec::new();
        let mut f = Fit::new(&mut out, None, false);
        let long = "y ".repeat(100);
        f.write_all(long.as_bytes()).unwrap();
        assert_eq!(out, long.as_bytes());
    }
}
