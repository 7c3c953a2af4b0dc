//! The one rule for showing text that came from a file or an argument (a topic name in a
//! metadata log, a dir name, a `--partition` value): every character a terminal would act on
//! instead of showing is written as a visible escape, so nothing from outside klog can set a
//! window title, clear the screen, move the cursor or fake a line.
//!
//! Escaped: C0 controls (U+0000..U+001F; `\n`, `\r`, `\t` by their short names), DEL (U+007F),
//! the C1 controls (U+0080..U+009F; U+009B is the one-byte CSI of 8-bit terminals), the
//! line and paragraph separators U+2028/U+2029, the bidirectional formatting characters
//! (U+061C, U+200E, U+200F, U+202A..U+202E, U+2066..U+2069) that reorder what a line seems to
//! say, and the zero-width characters (U+200B..U+200D, U+2060, U+FEFF) that make two different
//! names look the same.
//! Each becomes Rust's `\u{1b}` notation, which is also what `{:?}` writes, so an error that
//! already quoted its argument with `{:?}` reads the same. Everything else, backslashes
//! included, is shown as it is.
//!
//! Used by every text renderer (`output::fit::Fit` applies it to each line as the last step,
//! keeping only klog's own colour codes), by `output::display_bytes` to decide when bytes are
//! shown as hex, by the SVG/HTML escape, and by `main`'s error printer. Nothing here prints.

use std::borrow::Cow;

/// Characters of an echoed argument shown before it is cut (`…` and its full length follow).
pub const ARG_CHARS_MAX: usize = 80;

/// True for a character a terminal acts on, that reorders a line, or that shows as nothing
/// (so two different names would read the same) instead of showing it.
pub fn needs_escape(c: char) -> bool {
    c.is_control() // C0, DEL and C1
        || matches!(
            c,
            '\u{2028}' | '\u{2029}' // line and paragraph separators
            | '\u{061c}' | '\u{200e}' | '\u{200f}' | '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}' // bidi marks
            | '\u{200b}'..='\u{200d}' | '\u{2060}' | '\u{feff}' // zero-width space, (non-)joiner, word joiner, BOM
        )
}

fn push_escaped(out: &mut String, c: char) {
    match c {
        '\n' => out.push_str("\\n"),
        '\r' => out.push_str("\\r"),
        '\t' => out.push_str("\\t"),
        c => out.push_str(&format!("\\u{{{:x}}}", c as u32)),
    }
}

/// `s` for one line of a terminal: every character of [`needs_escape`], newline included,
/// as a visible escape.
pub fn text(s: &str) -> Cow<'_, str> {
    escape_where(s, needs_escape)
}

/// `s` for a block of lines: as [`text`], but newlines stay newlines.
pub fn lines(s: &str) -> Cow<'_, str> {
    escape_where(s, |c| c != '\n' && needs_escape(c))
}

fn escape_where(s: &str, escape: impl Fn(char) -> bool) -> Cow<'_, str> {
    if !s.chars().any(&escape) {
        return Cow::Borrowed(s);
    }
    let mut out = String::with_capacity(s.len() + 8);
    for c in s.chars() {
        if escape(c) {
            push_escaped(&mut out, c);
        } else {
            out.push(c);
        }
    }
    Cow::Owned(out)
}

/// An argument echoed in a message: quoted, escaped, and cut after [`ARG_CHARS_MAX`]
/// characters with its full length said, so a 20,000-character argument gives a short
/// one-line error: `"xxxx…" (20002 characters)`.
pub fn arg(s: &str) -> String {
    let (shown, cut) = shortened(s);
    match cut {
        None => format!("\"{shown}\""),
        Some(count) => format!("\"{shown}\" ({count} characters)"),
    }
}

/// `s` escaped and, past [`ARG_CHARS_MAX`] characters, cut with `…`; with the full count of
/// characters when cut.
pub fn shortened(s: &str) -> (String, Option<usize>) {
    let count = s.chars().count();
    if count <= ARG_CHARS_MAX {
        return (text(s).into_owned(), None);
    }
    let head: String = s.chars().take(ARG_CHARS_MAX).collect();
    (format!("{}…", text(&head)), Some(count))
}

/// Characters of a path shown whole in an error line; a longer one keeps its first
/// [`PATH_HEAD_CHARS`] and its file name (at most [`PATH_TAIL_CHARS`] of its end), with `…`
/// where the middle was.
pub const PATH_CHARS_MAX: usize = 160;
pub const PATH_HEAD_CHARS: usize = 40;
pub const PATH_TAIL_CHARS: usize = 100;

/// `path` for an error line: whole when short, else its head, `…` and its file name.
pub fn short_path(path: &str) -> Cow<'_, str> {
    let count = path.chars().count();
    if count <= PATH_CHARS_MAX {
        return Cow::Borrowed(path);
    }
    let head: String = path.chars().take(PATH_HEAD_CHARS).collect();
    let name = path.trim_end_matches('/').rsplit('/').next().unwrap_or(path);
    let name_count = name.chars().count();
    let tail: String = name.chars().skip(name_count.saturating_sub(PATH_TAIL_CHARS)).collect();
    let cut = if name_count > PATH_TAIL_CHARS { "…" } else { "" };
    Cow::Owned(format!("{head}…/{cut}{tail}"))
}

/// An error message for one line: every long path in it cut in the middle ([`short_path`]):
/// `path` (the one the error names, which may hold spaces) wherever it appears, then any other
/// space-free word holding a `/` that is longer than [`PATH_CHARS_MAX`]. A 5,000-byte path
/// gives a line of a few hundred characters that still names the file.
pub fn cut_paths(message: &str, path: Option<&str>) -> String {
    let message = match path.filter(|p| p.chars().count() > PATH_CHARS_MAX) {
        Some(p) => message.replace(p, &short_path(p)),
        None => message.to_string(),
    };
    message
        .split(' ')
        .map(|word| if word.contains('/') { short_path(word) } else { Cow::Borrowed(word) })
        .collect::<Vec<_>>()
        .join(" ")
}

/// A line of terminal text with every character of [`needs_escape`] escaped except, when
/// `keep_colour`, klog's own colour codes (SGR: `ESC [ digits and ; m`). `\n` is escaped too:
/// the caller hands one line at a time.
pub fn terminal_line(s: &str, keep_colour: bool) -> Cow<'_, str> {
    let sgr_len = |rest: &str| -> Option<usize> {
        let body = rest.strip_prefix("\u{1b}[")?;
        let end = body.find(|c: char| !(c.is_ascii_digit() || c == ';'))?;
        body[end..].starts_with('m').then_some(2 + end + 1)
    };
    if !s.chars().any(needs_escape) {
        return Cow::Borrowed(s);
    }
    let mut out = String::with_capacity(s.len() + 8);
    let mut i = 0;
    while let Some(c) = s[i..].chars().next() {
        if c == '\u{1b}' && keep_colour {
            if let Some(n) = sgr_len(&s[i..]) {
                out.push_str(&s[i..i + n]);
                i += n;
                continue;
            }
        }
        if needs_escape(c) {
            push_escaped(&mut out, c);
        } else {
            out.push(c);
        }
        i += c.len_utf8();
    }
    Cow::Owned(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    const HOSTILE: &str = "a\u{1b}]0;t\u{7}b\u{1b}[2J\r\nc\u{9b}31m\u{85}\u{7f}\u{202e}d\te";

    fn is_clean(s: &str, newline_ok: bool) -> bool {
        s.chars().all(|c| !needs_escape(c) || (newline_ok && c == '\n'))
    }

    #[test]
    fn every_control_becomes_a_visible_escape_and_plain_text_stays() {
        assert_eq!(text("orders-0"), Cow::Borrowed("orders-0"));
        assert_eq!(text("naïve ✂ ü"), "naïve ✂ ü");
        assert_eq!(text(HOSTILE), "a\\u{1b}]0;t\\u{7}b\\u{1b}[2J\\r\\nc\\u{9b}31m\\u{85}\\u{7f}\\u{202e}d\\te");
        assert!(is_clean(&text(HOSTILE), false));
        assert_eq!(lines("a\nb\u{1b}"), "a\nb\\u{1b}");
        // the same notation as `{:?}`, without its quotes
        assert_eq!(format!("{:?}", "a\u{1b}\n"), format!("\"{}\"", text("a\u{1b}\n")));
        for c in ['\u{200b}', '\u{200c}', '\u{200d}', '\u{2060}', '\u{feff}', '\u{061c}', '\u{202a}', '\u{2069}'] {
            assert_eq!(text(&c.to_string()), format!("\\u{{{:x}}}", c as u32));
        }
        for c in (0u32..0x110000).filter_map(char::from_u32) {
            let s = c.to_string();
            assert!(is_clean(&text(&s), false), "U+{:04X}", c as u32);
        }
    }

    #[test]
    fn an_echoed_argument_is_quoted_escaped_and_short() {
        assert_eq!(arg("a\nb"), "\"a\\nb\"");
        let long = "x".repeat(20_000);
        let shown = arg(&format!("{long}\u{1b}-0"));
        assert_eq!(shown, format!("\"{}…\" (20003 characters)", "x".repeat(ARG_CHARS_MAX)));
        // a control right at the cut is escaped, never split
        let at_cut = format!("{}\u{1b}[2Jyyyy", "x".repeat(ARG_CHARS_MAX - 1));
        assert!(is_clean(&arg(&at_cut), false));
        assert!(arg(&at_cut).ends_with("\\u{1b}…\" (87 characters)"), "{}", arg(&at_cut));
    }

    #[test]
    fn long_paths_are_cut_in_the_middle_keeping_the_file_name() {
        assert_eq!(short_path("/tmp/a/b.log"), "/tmp/a/b.log");
        let long = format!("/tmp/{}/00000000000000000000.log", "d/".repeat(2500));
        let shown = cut_paths(&format!("{long}: corrupt data at position 3: bad"), Some(&long));
        assert!(shown.len() < 200, "{shown}");
        assert!(
            shown.starts_with("/tmp/d/d/") && shown.contains("…/00000000000000000000.log: corrupt data"),
            "{shown}"
        );
        // A path with a space, named by the error, and another long word with a `/`.
        let spaced = format!("/tmp/my dir/{}/x.log", "e".repeat(300));
        let other = format!("/var/{}/y.log", "f".repeat(300));
        let shown = cut_paths(&format!("{spaced}: see {other} too"), Some(&spaced));
        assert!(
            shown.chars().count() < 250 && shown.contains("…/x.log: see") && shown.contains("…/y.log too"),
            "{shown}"
        );
        // A file name longer than the tail keeps its end.
        let name = format!("/{}", "n".repeat(250));
        assert!(short_path(&name).ends_with(&"n".repeat(PATH_TAIL_CHARS)));
    }

    #[test]
    fn terminal_lines_keep_only_klogs_colour_codes() {
        let coloured = "\u{1b}[38;5;29mok\u{1b}[39m \u{1b}[1mbold\u{1b}[0m";
        assert_eq!(terminal_line(coloured, true), coloured);
        assert_eq!(terminal_line(coloured, false), text(coloured));
        let hostile = terminal_line(HOSTILE, true);
        assert!(is_clean(&hostile.replace("\u{1b}[", ""), false), "{hostile}");
        assert!(!hostile.contains("\u{1b}]") && !hostile.contains("\u{1b}[2J"), "{hostile}");
        assert_eq!(terminal_line("\u{1b}[", true), "\\u{1b}[");
        assert_eq!(terminal_line("\u{1b}[31", true), "\\u{1b}[31");
    }
}
