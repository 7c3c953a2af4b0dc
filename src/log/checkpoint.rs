//! Checkpoint text files (Kafka `CheckpointFile`): `<version>\n<count>\n<entry>\n...`.
//!
//! Reading is as strict as Kafka's: a wrong version, a line that does not parse (a blank line
//! included) or a count that differs from the lines found is an error naming the file and the
//! line. An empty file, or one holding only the version line, is an empty list. Writing goes
//! through [`crate::durable::write_atomic`].

use crate::durable;
use crate::error::{Error, Result};
use crate::log::names;
use crate::regular_file;
use std::path::Path;

/// The offset checkpoints' and `leader-epoch-checkpoint`'s version.
pub const CHECKPOINT_VERSION: i32 = 0;

/// Parse checkpoint text into entries of exactly `fields` whitespace-separated tokens each.
pub fn parse_checkpoint(path: &Path, text: &str, fields: usize) -> Result<Vec<Vec<String>>> {
    let mut lines = text.split('\n').collect::<Vec<_>>();
    // A final newline leaves one empty string at the end; that is not a blank line.
    if lines.last() == Some(&"") {
        lines.pop();
    }
    if lines.is_empty() {
        return Ok(Vec::new());
    }
    let version: i32 = lines[0]
        .trim()
        .parse()
        .map_err(|_| Error::malformed(path, 1, format!("expected a version number, found {:?}", lines[0])))?;
    if version != CHECKPOINT_VERSION {
        return Err(Error::malformed(
            path,
            1,
            format!("unrecognized version {version}, expected {CHECKPOINT_VERSION}"),
        ));
    }
    if lines.len() == 1 {
        return Ok(Vec::new());
    }
    let count: usize = lines[1]
        .trim()
        .parse()
        .map_err(|_| Error::malformed(path, 2, format!("expected an entry count, found {:?}", lines[1])))?;
    let mut entries = Vec::with_capacity(count.min(lines.len()));
    for (i, line) in lines[2..].iter().enumerate() {
        let tokens: Vec<String> = line.split_whitespace().map(str::to_string).collect();
        if tokens.len() != fields {
            return Err(Error::malformed(
                path,
                i + 3,
                format!("expected {fields} fields, found {} in {line:?}", tokens.len()),
            ));
        }
        entries.push(tokens);
    }
    if entries.len() != count {
        return Err(Error::malformed(
            path,
            2,
            format!("entry count says {count} but {} entries follow", entries.len()),
        ));
    }
    Ok(entries)
}

/// Read a checkpoint file; a missing file is an empty list (Kafka creates it empty).
pub fn read_checkpoint(path: &Path, fields: usize) -> Result<Vec<Vec<String>>> {
    match regular_file::read_regular(path)? {
        Some(bytes) => {
            let text = String::from_utf8(bytes)
                .map_err(|e| Error::corrupt(path, e.utf8_error().valid_up_to() as u64, "checkpoint is not UTF-8"))?;
            parse_checkpoint(path, &text, fields)
        }
        None => Ok(Vec::new()),
    }
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
    token.parse().map_err(|_| Error::malformed(path, line, format!("{what}: expected a number, found {token:?}")))
}

/// One line of a log-dir offset checkpoint: `<topic> <partition> <offset>`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OffsetEntry {
    pub topic: String,
    pub partition: i32,
    pub offset: i64,
}

/// Read `replication-offset-checkpoint`, `recovery-point-offset-checkpoint` or
/// `log-start-offset-checkpoint`.
pub fn read_offset_checkpoint(path: &Path) -> Result<Vec<OffsetEntry>> {
    read_checkpoint(path, 3)?
        .into_iter()
        .enumerate()
        .map(|(i, t)| {
            // A topic is a name by Kafka's rules, never a path: klog joins it to the log dir.
            names::validate_topic(&t[0]).map_err(|why| Error::malformed(path, i + 3, format!("{why}: {:?}", t[0])))?;
            Ok(OffsetEntry {
                topic: t[0].clone(),
                partition: parse_number(path, i + 3, &t[1], "partition")?,
                offset: parse_number(path, i + 3, &t[2], "offset")?,
            })
        })
        .collect()
}

/// Set (or remove, with `None`) one partition's entry in an offset checkpoint, keeping the
/// others, and write the file atomically.
pub fn update_offset_checkpoint(path: &Path, topic: &str, partition: i32, offset: Option<i64>) -> Result<()> {
    let mut entries = read_offset_checkpoint(path)?;
    entries.retain(|e| !(e.topic == topic && e.partition == partition));
    if let Some(offset) = offset {
        entries.push(OffsetEntry { topic: topic.to_string(), partition, offset });
    }
    let lines: Vec<String> = entries.iter().map(|e| format!("{} {} {}", e.topic, e.partition, e.offset)).collect();
    durable::write_atomic(path, render_checkpoint(&lines).as_bytes())
}

/// Read `leader-epoch-checkpoint` entries (`<epoch> <startOffset>`) as written.
pub fn read_epoch_checkpoint(path: &Path) -> Result<Vec<(i32, i64)>> {
    read_checkpoint(path, 2)?
        .into_iter()
        .enumerate()
        .map(|(i, t)| {
            let epoch: i32 = parse_number(path, i + 3, &t[0], "leader epoch")?;
            let start: i64 = parse_number(path, i + 3, &t[1], "start offset")?;
            if epoch < 0 || start < 0 {
                return Err(Error::malformed(path, i + 3, format!("negative epoch entry {epoch} {start}")));
            }
            Ok((epoch, start))
        })
        .collect()
}

/// Write `leader-epoch-checkpoint` atomically.
pub fn write_epoch_checkpoint(path: &Path, entries: &[(i32, i64)]) -> Result<()> {
    let lines: Vec<String> = entries.iter().map(|(e, o)| format!("{e} {o}")).collect();
    durable::write_atomic(path, render_checkpoint(&lines).as_bytes())
}

/// Byte position of every line of a checkpoint file's text (for findings that must say where).
pub fn line_positions(text: &str) -> Vec<u64> {
    let mut out = vec![0u64];
    out.extend(text.match_indices('\n').map(|(i, _)| i as u64 + 1).filter(|p| (*p as usize) < text.len()));
    out
}

/// The 1-based line and its byte position for `topic` `partition` in an offset checkpoint
/// file, if any.
pub fn offset_line_position(path: &Path, topic: &str, partition: i32) -> Result<Option<(usize, u64)>> {
    let text = match regular_file::read_regular(path)? {
        Some(bytes) => String::from_utf8_lossy(&bytes).into_owned(),
        None => return Ok(None),
    };
    let partition = partition.to_string();
    let positions = line_positions(&text);
    Ok(text.split('\n').zip(positions).enumerate().skip(2).find_map(|(i, (line, position))| {
        let mut fields = line.split_whitespace();
        (fields.next() == Some(topic) && fields.next() == Some(partition.as_str())).then_some((i + 1, position))
    }))
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
    fn line_positions_name_where_each_line_starts() {
        assert_eq!(line_positions("0\n2\ndemo 0 5\nx 1 7\n"), vec![0, 2, 4, 13]);
        assert_eq!(line_positions(""), vec![0]);
    }
}
