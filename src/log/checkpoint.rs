//! Checkpoint text files (Kafka `CheckpointFile`): `<version>\n<count>\n<entry>\n...`.
//!
//! Reading is as strict as Kafka's: a wrong version, a line that does not parse (a blank line
//! included) or a count that differs from the lines found is an error naming the file and the
//! line. An empty file, or one holding only the version line, is an empty list. Writing goes
//! through [`crate::durable::write_atomic`].
//!
//! A file is read in bounded pieces, line by line, and no line is held longer than
//! [`LINE_BYTES_MAX`]: a longer line is malformed (no entry Kafka writes is that long), so a
//! checkpoint holding a 100 MB line costs a few KiB of memory and echoes a short prefix. Memory
//! is proportional to the entries, never to the longest line.

use crate::durable;
use crate::error::{Error, Result};
use crate::log::names;
use crate::regular_file;
use std::io::{BufRead, BufReader};
use std::path::Path;

/// The offset checkpoints' and `leader-epoch-checkpoint`'s version.
pub const CHECKPOINT_VERSION: i32 = 0;

/// The longest line a checkpoint may hold, without its `\n`: a topic name (Kafka allows at
/// most 249 characters), a partition (`-2147483648`, 11) and an offset (`-9223372036854775808`,
/// 20), two separators, and a `\r` a Windows editor may leave.
pub const LINE_BYTES_MAX: usize = 249 + 1 + 11 + 1 + 20 + 1;

/// Bytes of an overlong line echoed in its error.
const ECHO_BYTES: usize = 40;

/// One entry line of a checkpoint: its tokens, 1-based line number and byte position.
pub struct EntryLine<'a> {
    pub tokens: &'a [&'a str],
    pub line: usize,
    pub position: u64,
}

/// Lines of a checkpoint read in bounded pieces.
struct Lines<'p, R> {
    path: &'p Path,
    reader: R,
    buf: Vec<u8>,
    /// 1-based number of the last line returned.
    line: usize,
    /// Byte position of the next line.
    next_position: u64,
}

impl<'p, R: BufRead> Lines<'p, R> {
    fn new(path: &'p Path, reader: R) -> Self {
        Lines { path, reader, buf: Vec::with_capacity(64), line: 0, next_position: 0 }
    }

    /// The next line as text (without its `\n`) and its byte position; `None` at the end. A file
    /// ending in `\n` has no empty line after it.
    fn next_line(&mut self) -> Result<Option<(&str, usize, u64)>> {
        self.buf.clear();
        let position = self.next_position;
        let mut ended = false;
        loop {
            let chunk = self.reader.fill_buf().map_err(|e| Error::io(self.path, "read", e))?;
            if chunk.is_empty() {
                break;
            }
            let (take, newline) = match chunk.iter().position(|b| *b == b'\n') {
                Some(i) => (i, true),
                None => (chunk.len(), false),
            };
            let room = LINE_BYTES_MAX + 1 - self.buf.len();
            self.buf.extend_from_slice(&chunk[..take.min(room)]);
            if self.buf.len() > LINE_BYTES_MAX {
                let echo = String::from_utf8_lossy(&self.buf[..ECHO_BYTES]).into_owned();
                return Err(Error::malformed(
                    self.path,
                    self.line + 1,
                    format!(
                        "line at byte position {position} is longer than {LINE_BYTES_MAX} bytes (a topic name of \
                         at most 249 characters and two numbers): it starts {echo:?}"
                    ),
                ));
            }
            let used = take + usize::from(newline);
            self.reader.consume(used);
            self.next_position += used as u64;
            if newline {
                ended = true;
                break;
            }
        }
        if !ended && self.buf.is_empty() {
            return Ok(None);
        }
        self.line += 1;
        let text = std::str::from_utf8(&self.buf)
            .map_err(|e| Error::corrupt(self.path, position + e.valid_up_to() as u64, "checkpoint is not UTF-8"))?;
        Ok(Some((text, self.line, position)))
    }
}

/// Marks in a checkpoint error's text naming the exception Kafka's reader throws where it is
/// not an `IOException` (which `CheckpointFileWithFailureHandler` turns into an offline log
/// dir): `Integer.parseInt`/`Long.parseLong` in an entry (`NumberFormatException`), and a
/// negative entry count (`new ArrayList<>(count)`, `IllegalArgumentException`) or a negative
/// epoch entry (`LeaderEpochFileCache.assign`, `IllegalArgumentException`).
pub const NUMBER_FORMAT_MARK: &str = "expected a number";
pub const ILLEGAL_ARGUMENT_MARK: &str = "IllegalArgumentException";

/// The Java exception behind a checkpoint read error, as Kafka's reader throws it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum KafkaReadFailure {
    /// An `IOException` (version, count or line malformed, count mismatch, not UTF-8).
    Io,
    /// A `NumberFormatException` from an entry's number.
    NumberFormat,
    /// An `IllegalArgumentException` (negative count, negative epoch entry).
    IllegalArgument,
}

/// Which exception Kafka's reader throws for the checkpoint error `what` (its message).
pub fn kafka_read_failure(what: &str) -> KafkaReadFailure {
    if what.contains(ILLEGAL_ARGUMENT_MARK) {
        KafkaReadFailure::IllegalArgument
    } else if what.contains(NUMBER_FORMAT_MARK) {
        KafkaReadFailure::NumberFormat
    } else {
        KafkaReadFailure::Io
    }
}

/// Java's `Pattern.compile("\\s+").split(line)`: runs of ` \t\n\x0B\f\r` separate tokens; a
/// line starting with one gives an empty first token; trailing empty tokens are dropped.
fn java_whitespace_split<'a>(text: &'a str, each: &mut dyn FnMut(&'a str)) {
    let is_space = |c: char| matches!(c, ' ' | '\t' | '\n' | '\x0B' | '\x0C' | '\r');
    let body = text.trim_end_matches(is_space);
    if body.is_empty() {
        // `"".split` is `[""]`; a line of spaces only is `[]`.
        if text.is_empty() {
            each("");
        }
        return;
    }
    let mut rest = body;
    if rest.starts_with(is_space) {
        each("");
        rest = rest.trim_start_matches(is_space);
    }
    for t in rest.split(is_space).filter(|t| !t.is_empty()) {
        each(t);
    }
}

/// Read checkpoint lines from `reader` as Kafka's `CheckpointReadBuffer` does, calling `each`
/// with every entry of exactly `fields` tokens; returns the entry count. The version and the
/// count are `Integer.parseInt` of the whole line (no trimming); a negative count is
/// `IllegalArgumentException`; an entry is the line split as Java's `\\s+` splits it.
fn read_entries<R: BufRead>(
    path: &Path,
    reader: R,
    fields: usize,
    each: &mut dyn FnMut(EntryLine<'_>) -> Result<()>,
) -> Result<usize> {
    assert!((1..=3).contains(&fields), "checkpoint entries have 1 to 3 fields");
    let mut lines = Lines::new(path, reader);
    let Some((first, _, _)) = lines.next_line()? else { return Ok(0) };
    let version: i32 =
        first.parse().map_err(|_| Error::malformed(path, 1, format!("expected a version number, found {first:?}")))?;
    if version != CHECKPOINT_VERSION {
        return Err(Error::malformed(
            path,
            1,
            format!("unrecognized version {version}, expected {CHECKPOINT_VERSION}"),
        ));
    }
    let Some((second, _, _)) = lines.next_line()? else { return Ok(0) };
    let count: i32 =
        second.parse().map_err(|_| Error::malformed(path, 2, format!("expected an entry count, found {second:?}")))?;
    if count < 0 {
        return Err(Error::malformed(
            path,
            2,
            format!("negative entry count {count} (Kafka's reader throws {ILLEGAL_ARGUMENT_MARK}: Illegal Capacity)"),
        ));
    }
    let mut found = 0usize;
    while let Some((text, line, position)) = lines.next_line()? {
        // At most three fields: the tokens of a line go into an array, never a growing list.
        let mut tokens = [""; 3];
        let mut token_count = 0;
        java_whitespace_split(text, &mut |t| {
            if let Some(slot) = tokens.get_mut(token_count) {
                *slot = t;
            }
            token_count += 1;
        });
        if token_count != fields {
            return Err(Error::malformed(
                path,
                line,
                format!("expected {fields} fields, found {token_count} in {text:?}"),
            ));
        }
        each(EntryLine { tokens: &tokens[..fields], line, position })?;
        found += 1;
    }
    if found != count as usize {
        return Err(Error::malformed(path, 2, format!("entry count says {count} but {found} entries follow")));
    }
    Ok(found)
}

/// Parse checkpoint text into entries of exactly `fields` whitespace-separated tokens each.
pub fn parse_checkpoint(path: &Path, text: &str, fields: usize) -> Result<Vec<Vec<String>>> {
    let mut out = Vec::new();
    read_entries(path, text.as_bytes(), fields, &mut |e| {
        out.push(e.tokens.iter().map(|t| t.to_string()).collect());
        Ok(())
    })?;
    Ok(out)
}

/// Read a checkpoint file entry by entry, in bounded pieces; a missing file has no entries
/// (Kafka creates it empty). Returns the entry count.
pub fn read_checkpoint_entries(
    path: &Path,
    fields: usize,
    each: &mut dyn FnMut(EntryLine<'_>) -> Result<()>,
) -> Result<usize> {
    match regular_file::open_regular(path)? {
        Some((file, _)) => read_entries(path, BufReader::with_capacity(64 << 10, file), fields, each),
        None => Ok(0),
    }
}

/// Read a checkpoint file; a missing file is an empty list (Kafka creates it empty).
pub fn read_checkpoint(path: &Path, fields: usize) -> Result<Vec<Vec<String>>> {
    let mut out = Vec::new();
    read_checkpoint_entries(path, fields, &mut |e| {
        out.push(e.tokens.iter().map(|t| t.to_string()).collect());
        Ok(())
    })?;
    Ok(out)
}

/// Render entries as checkpoint text.
pub fn render_checkpoint(entries: &[String]) -> String {
    let mut out = format!("{CHECKPOINT_VERSION}\n{}\n", entries.len());
    for e in entries {
        out.push_str(e);
        out.push('\n');
    }
    out
}

fn parse_number<T: std::str::FromStr>(path: &Path, line: usize, token: &str, what: &str) -> Result<T> {
    token.parse().map_err(|_| Error::malformed(path, line, format!("{what}: {NUMBER_FORMAT_MARK}, found {token:?}")))
}

/// One line of a log-dir offset checkpoint: `<topic> <partition> <offset>`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OffsetEntry {
    pub topic: String,
    pub partition: i32,
    pub offset: i64,
    /// Its 1-based line and the line's byte position in the file it was read from (0 for an
    /// entry not yet written).
    pub line: usize,
    pub position: u64,
}

/// Read `replication-offset-checkpoint`, `recovery-point-offset-checkpoint` or
/// `log-start-offset-checkpoint`, entry by entry (bounded pieces, one pass).
pub fn read_offset_entries(path: &Path, each: &mut dyn FnMut(OffsetEntry) -> Result<()>) -> Result<usize> {
    // Kafka's reader takes any topic (`new TopicPartition(parts[0], ...)`): an entry whose topic
    // is no valid name matches no partition dir. Nothing here joins it to a path.
    read_checkpoint_entries(path, 3, &mut |e| {
        let topic = e.tokens[0];
        each(OffsetEntry {
            topic: topic.to_string(),
            partition: parse_number(path, e.line, e.tokens[1], "partition")?,
            offset: parse_number(path, e.line, e.tokens[2], "offset")?,
            line: e.line,
            position: e.position,
        })
    })
}

/// Read `replication-offset-checkpoint`, `recovery-point-offset-checkpoint` or
/// `log-start-offset-checkpoint`.
pub fn read_offset_checkpoint(path: &Path) -> Result<Vec<OffsetEntry>> {
    let mut out = Vec::new();
    read_offset_entries(path, &mut |e| {
        // A topic is a name by Kafka's rules, never a path: klog may join it to the log dir.
        names::validate_topic(&e.topic)
            .map_err(|why| Error::malformed(path, e.line, format!("{why}: {:?}", e.topic)))?;
        out.push(e);
        Ok(())
    })?;
    Ok(out)
}

/// Render offset entries as checkpoint text, in the order given.
pub fn render_offset_checkpoint(entries: &[OffsetEntry]) -> String {
    let mut out = format!("{CHECKPOINT_VERSION}\n{}\n", entries.len());
    for e in entries {
        use std::fmt::Write as _;
        let _ = writeln!(out, "{} {} {}", e.topic, e.partition, e.offset);
    }
    out
}

/// Set (or remove, with `None`) one partition's entry in an offset checkpoint, keeping the
/// others, and write the file atomically.
pub fn update_offset_checkpoint(path: &Path, topic: &str, partition: i32, offset: Option<i64>) -> Result<()> {
    let mut entries = read_offset_checkpoint(path)?;
    entries.retain(|e| !(e.topic == topic && e.partition == partition));
    if let Some(offset) = offset {
        entries.push(OffsetEntry { topic: topic.to_string(), partition, offset, line: 0, position: 0 });
    }
    durable::write_atomic(path, render_offset_checkpoint(&entries).as_bytes())
}

/// Set many partitions' entries of one offset checkpoint in one read and (only if anything
/// changed) one atomic write, keeping the other entries: a command closing many partitions of
/// a log dir writes each checkpoint once, as Kafka's `LogManager` checkpoints all its logs.
pub fn set_offset_entries(path: &Path, updates: &[(&str, i32, i64)]) -> Result<()> {
    let mut entries = read_offset_checkpoint(path)?;
    let wanted: std::collections::HashMap<(&str, i32), i64> = updates.iter().map(|&(t, p, o)| ((t, p), o)).collect();
    let mut seen = std::collections::HashSet::new();
    let mut changed = false;
    for e in &mut entries {
        if let Some(&offset) = wanted.get(&(e.topic.as_str(), e.partition)) {
            seen.insert((e.topic.clone(), e.partition));
            changed |= e.offset != offset;
            e.offset = offset;
        }
    }
    for &(topic, partition, offset) in updates {
        if seen.insert((topic.to_string(), partition)) {
            entries.push(OffsetEntry { topic: topic.to_string(), partition, offset, line: 0, position: 0 });
            changed = true;
        }
    }
    if !changed {
        return Ok(());
    }
    durable::write_atomic(path, render_offset_checkpoint(&entries).as_bytes())
}

/// Read `leader-epoch-checkpoint` entries (`<epoch> <startOffset>`) as written.
pub fn read_epoch_checkpoint(path: &Path) -> Result<Vec<(i32, i64)>> {
    Ok(read_epoch_checkpoint_lines(path)?.into_iter().map(|(entry, _)| entry).collect())
}

/// Where a line of a text file is: its 1-based number and the byte position it starts at.
pub type LinePlace = (usize, u64);

/// [`read_epoch_checkpoint`], each entry with where its line is.
pub fn read_epoch_checkpoint_lines(path: &Path) -> Result<Vec<((i32, i64), LinePlace)>> {
    let mut out = Vec::new();
    read_checkpoint_entries(path, 2, &mut |e| {
        let epoch: i32 = parse_number(path, e.line, e.tokens[0], "leader epoch")?;
        let start: i64 = parse_number(path, e.line, e.tokens[1], "start offset")?;
        out.push(((epoch, start), (e.line, e.position)));
        Ok(())
    })?;
    // Only a file that reads whole is given to the cache, whose `assign` throws on a negative
    // entry (a count that does not match is the reader's `IOException` first).
    if let Some(((epoch, start), (line, _))) = out.iter().find(|((e, s), _)| *e < 0 || *s < 0) {
        return Err(Error::malformed(
            path,
            *line,
            format!("negative epoch entry {epoch} {start} (Kafka's epoch cache throws {ILLEGAL_ARGUMENT_MARK})"),
        ));
    }
    Ok(out)
}

/// Write `leader-epoch-checkpoint` atomically.
pub fn write_epoch_checkpoint(path: &Path, entries: &[(i32, i64)]) -> Result<()> {
    let lines: Vec<String> = entries.iter().map(|(e, o)| format!("{e} {o}")).collect();
    durable::write_atomic(path, render_checkpoint(&lines).as_bytes())
}

/// Byte position of 1-based `line` of the text file `path`, counted in bounded pieces (the end
/// of the file when it has fewer lines; 0 when it does not read).
pub fn line_position(path: &Path, line: usize) -> u64 {
    let Ok(Some((file, _))) = regular_file::open_regular(path) else { return 0 };
    let mut reader = BufReader::with_capacity(64 << 10, file);
    let (mut position, mut at_line) = (0u64, 1usize);
    while at_line < line {
        let Ok(chunk) = reader.fill_buf() else { return position };
        if chunk.is_empty() {
            break;
        }
        let used = match chunk.iter().position(|b| *b == b'\n') {
            Some(i) => {
                at_line += 1;
                i + 1
            }
            None => chunk.len(),
        };
        reader.consume(used);
        position += used as u64;
    }
    position
}

#[cfg(test)]
mod tests {
    use super::*;

    fn p() -> &'static Path {
        Path::new("cp")
    }

    #[test]
    fn parses_kafka_checkpoints() {
        assert!(parse_checkpoint(p(), "", 2).unwrap().is_empty());
        assert!(parse_checkpoint(p(), "0\n", 2).unwrap().is_empty());
        let e = parse_checkpoint(p(), "0\n2\n0 0\n3 1532\n", 2).unwrap();
        assert_eq!(e, vec![vec!["0", "0"], vec!["3", "1532"]]);
        assert_eq!(render_checkpoint(&["0 0".into(), "3 1532".into()]), "0\n2\n0 0\n3 1532\n");
    }

    #[test]
    fn rejects_malformed_checkpoints() {
        for bad in ["1\n0\n", "0\n2\n0 0\n", "0\n1\n\n", "0\n1\n0 x 1\n", "x\n", "0\nx\n", "0\n2\n0 0\n\n1 1\n"] {
            assert!(parse_checkpoint(p(), bad, 2).is_err(), "{bad:?} accepted");
        }
        assert!(matches!(read_epoch_checkpoint_text("0\n1\n0 x\n"), Err(Error::Malformed { line: 3, .. })));
    }

    fn read_epoch_checkpoint_text(text: &str) -> Result<Vec<(i32, i64)>> {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(crate::log::names::LEADER_EPOCH_CHECKPOINT);
        std::fs::write(&path, text).unwrap();
        read_epoch_checkpoint(&path)
    }

    #[test]
    fn epoch_entries_carry_the_byte_position_of_their_line() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(crate::log::names::LEADER_EPOCH_CHECKPOINT);
        std::fs::write(&path, "0\n2\n0 5\n12 1000\n").unwrap();
        assert_eq!(read_epoch_checkpoint_lines(&path).unwrap(), vec![((0, 5), (3, 4)), ((12, 1000), (4, 8))]);
    }

    #[test]
    fn an_overlong_line_is_malformed_with_its_line_position_and_a_short_echo() {
        let long = "t".repeat(10 << 20);
        let text = format!("0\n2\ndemo 0 5\n{long} 0 7\n");
        let Err(Error::Malformed { line, what, .. }) = parse_checkpoint(p(), &text, 3) else { panic!("accepted") };
        assert_eq!(line, 4);
        assert!(what.contains("byte position 13"), "{what}");
        assert!(what.len() < 300, "echo is long: {} bytes", what.len());
        // The longest valid line is accepted: a 249-character topic and the widest numbers.
        let widest = format!("0\n1\n{} -2147483648 -9223372036854775808\r\n", "t".repeat(249));
        assert_eq!(parse_checkpoint(p(), &widest, 3).unwrap().len(), 1);
    }

    #[test]
    fn a_file_is_read_in_pieces_the_same_as_text() {
        // Lines that straddle the reader's buffer boundaries parse as the whole text does.
        let lines: Vec<String> = (0..5000).map(|i| format!("topic-{i} {i} {}", i * 7)).collect();
        let text = format!("0\n{}\n{}\n", lines.len(), lines.join("\n"));
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("replication-offset-checkpoint");
        std::fs::write(&path, &text).unwrap();
        let entries = read_offset_checkpoint(&path).unwrap();
        assert_eq!(entries.len(), 5000);
        assert_eq!(entries[4999].offset, 4999 * 7);
        assert_eq!(entries[4999].position as usize, text.rfind("topic-4999").unwrap());
        assert_eq!(parse_checkpoint(&path, &text, 3).unwrap().len(), 5000);
    }

    #[test]
    fn line_position_counts_lines_in_pieces() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("cp");
        std::fs::write(&path, format!("0\n2\n{}\nx 1 7\n", "t".repeat(200_000))).unwrap();
        assert_eq!(line_position(&path, 1), 0);
        assert_eq!(line_position(&path, 3), 4);
        assert_eq!(line_position(&path, 4), 200_005);
        assert_eq!(line_position(&path, 9), 200_011);
    }

    #[test]
    fn non_utf8_is_corrupt_at_its_byte_position() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("replication-offset-checkpoint");
        std::fs::write(&path, b"0\n1\nab\xff 0 1\n").unwrap();
        assert!(matches!(read_offset_checkpoint(&path), Err(Error::Corrupt { position: 6, .. })));
    }
}
