//! The one reader of `demo --predict` answers: one line of stdin per question, read in bounded
//! pieces. A line is kept up to [`ANSWER_BYTES_MAX`] bytes and the rest of it is read and
//! dropped, so a 256 MiB line costs no more memory than a short one; bytes that are not UTF-8
//! are replaced, never trusted to be text. Never panics, whatever the input.

use std::io::{self, BufRead};

/// The most bytes of one answer line kept; an answer is a number or a yes/no.
pub const ANSWER_BYTES_MAX: usize = 256;

/// Read one answer line: `Ok(None)` at the end of input, else the line's first
/// [`ANSWER_BYTES_MAX`] bytes (lossily decoded, without the line end) and whether the line was
/// longer.
pub fn read_answer(input: &mut dyn BufRead) -> io::Result<Option<(String, bool)>> {
    let mut kept = Vec::new();
    let mut cut = false;
    let mut read_any = false;
    loop {
        let buf = match input.fill_buf() {
            Ok(b) => b,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        if buf.is_empty() {
            break;
        }
        read_any = true;
        let (piece, done) = match buf.iter().position(|&b| b == b'\n') {
            Some(i) => (&buf[..i], Some(i + 1)),
            None => (buf, None),
        };
        let room = ANSWER_BYTES_MAX - kept.len();
        kept.extend_from_slice(&piece[..piece.len().min(room)]);
        cut |= piece.len() > room;
        let used = done.unwrap_or(buf.len());
        input.consume(used);
        if done.is_some() {
            break;
        }
    }
    if !read_any {
        return Ok(None);
    }
    if kept.last() == Some(&b'\r') {
        kept.pop();
    }
    Ok(Some((String::from_utf8_lossy(&kept).into_owned(), cut)))
}

/// Whether `answer` means yes or no by its first character (`y`/`n`, any case); `None` for
/// anything else, non-ASCII included.
pub fn yes_no(answer: &str) -> Option<bool> {
    match answer.trim().chars().next()?.to_ascii_lowercase() {
        'y' => Some(true),
        'n' => Some(false),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn all(bytes: &[u8]) -> Vec<(String, bool)> {
        let mut input = io::BufReader::with_capacity(7, bytes);
        std::iter::from_fn(|| read_answer(&mut input).unwrap()).collect()
    }

    #[test]
    fn lines_are_read_one_each_bounded_and_lossy() {
        let long = format!("{}\nno\n", "y".repeat(10_000));
        let got = all(long.as_bytes());
        assert_eq!(got.len(), 2);
        assert_eq!(got[0].0.len(), ANSWER_BYTES_MAX);
        assert!(got[0].1);
        assert_eq!(got[1], ("no".to_string(), false));
        assert_eq!(all(b"\xff\xfe\r\n\xc3"), vec![("\u{fffd}\u{fffd}".into(), false), ("\u{fffd}".into(), false)]);
        assert_eq!(all(b""), vec![]);
        assert_eq!(all(b"\n"), vec![(String::new(), false)]);
    }

    #[test]
    fn yes_no_takes_the_first_character_and_refuses_the_rest() {
        assert_eq!(yes_no(" Yes"), Some(true));
        assert_eq!(yes_no("n"), Some(false));
        assert_eq!(yes_no("ÿes"), None);
        assert_eq!(yes_no("é"), None);
        assert_eq!(yes_no(""), None);
    }
}
