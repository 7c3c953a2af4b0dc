//! The one error type of klog and its mapping to exit codes.
//!
//! Every failure that reaches `main` is an [`Error`]: it names the path it concerns and, for bad
//! bytes, the byte position and what was expected. `main` prints it as
//! `klog: error: <path>: <what> at position <p>: <why>` and exits with 2. Findings of a command
//! that ran (corruption found by `check`, divergence found by `diff`) are not errors: they are
//! data in the command's report, and map to exit code 1.

use std::fmt;
use std::io;
use std::path::{Path, PathBuf};

/// Result alias used across klog.
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// What went wrong, with enough context to act on it.
#[derive(Debug)]
pub enum Error {
    /// An I/O call failed on `path`.
    Io { path: PathBuf, action: &'static str, source: io::Error },
    /// Bytes on disk are not what Kafka's format says they must be.
    Corrupt { path: PathBuf, position: u64, what: String },
    /// A text file (checkpoint, properties) does not parse.
    Malformed { path: PathBuf, line: usize, what: String },
    /// A directory is not what the command needs (missing, not a replica, ambiguous partition).
    Layout { path: PathBuf, what: String },
    /// A request that contradicts the replica's state (append on a follower, fencing...).
    State { path: PathBuf, what: String },
    /// A Kafka broker refuses to start on this log dir: its load throws where nothing catches
    /// it. `position` is where in the file named (or in a segment of the dir named) the load
    /// meets what throws; `what` says it in full. Not klog failing: the forecast's verdict, a
    /// finding for `check`, `txn` and `recover --dry-run`.
    Refuses { path: PathBuf, position: u64, what: String },
    /// A name where klog expects a regular file holds something else (a FIFO, a socket, a
    /// device, a directory): never opened, never waited on.
    NotRegular { path: PathBuf, kind: &'static str },
    /// Another process holds the directory's lock.
    Locked { path: PathBuf },
    /// A command would write into a log dir klog did not make (a broker's) without consent.
    /// `command` says what that command changes there, and its safe form (added by the
    /// dispatcher, which knows the command).
    NotKlogMade { path: PathBuf, command: Option<&'static str> },
    /// Bad command-line usage not caught by the argument parser.
    Usage(String),
}

impl Error {
    pub fn io(path: impl AsRef<Path>, action: &'static str, source: io::Error) -> Error {
        Error::Io { path: path.as_ref().to_path_buf(), action, source }
    }

    pub fn corrupt(path: impl AsRef<Path>, position: u64, what: impl Into<String>) -> Error {
        Error::Corrupt { path: path.as_ref().to_path_buf(), position, what: what.into() }
    }

    pub fn malformed(path: impl AsRef<Path>, line: usize, what: impl Into<String>) -> Error {
        Error::Malformed { path: path.as_ref().to_path_buf(), line, what: what.into() }
    }

    pub fn layout(path: impl AsRef<Path>, what: impl Into<String>) -> Error {
        Error::Layout { path: path.as_ref().to_path_buf(), what: what.into() }
    }

    pub fn not_regular(path: impl AsRef<Path>, kind: &'static str) -> Error {
        Error::NotRegular { path: path.as_ref().to_path_buf(), kind }
    }

    pub fn state(path: impl AsRef<Path>, what: impl Into<String>) -> Error {
        Error::State { path: path.as_ref().to_path_buf(), what: what.into() }
    }

    pub fn refuses(path: impl AsRef<Path>, position: u64, what: impl Into<String>) -> Error {
        Error::Refuses { path: path.as_ref().to_path_buf(), position, what: what.into() }
    }

    /// Whether this is a broker's refusal to start ([`Error::Refuses`]) rather than klog unable
    /// to go on.
    pub fn is_start_refusal(&self) -> bool {
        matches!(self, Error::Refuses { .. })
    }

    /// The path the error names, if any.
    pub fn path(&self) -> Option<&Path> {
        match self {
            Error::Io { path, .. }
            | Error::Corrupt { path, .. }
            | Error::Malformed { path, .. }
            | Error::Layout { path, .. }
            | Error::State { path, .. }
            | Error::Refuses { path, .. }
            | Error::NotRegular { path, .. }
            | Error::Locked { path }
            | Error::NotKlogMade { path, .. } => Some(path),
            Error::Usage(_) => None,
        }
    }

    /// The process exit code for this error: always 2 (1 is reserved for findings).
    pub fn exit_code(&self) -> i32 {
        2
    }

    /// A refusal to write into a dir klog did not make, told what `command` would change there.
    pub fn with_write_hint(self, command: &'static str) -> Error {
        match self {
            Error::NotKlogMade { path, command: None } => Error::NotKlogMade { path, command: Some(command) },
            e => e,
        }
    }

    /// The error as `main` prints it: [`Display`](fmt::Display), then what to do next where the
    /// error's own words do not say it (a finding's line, which shows the same error inside a
    /// command that went on, carries no such advice).
    pub fn line(&self) -> String {
        let step = match self {
            Error::Io { source, .. } => io_next_step(source.kind()).map(str::to_string),
            // Only Kafka's checkpoint files are read line by line; `check` reports a bad one as a
            // finding beside the rest, where a command that needs the file stops at it.
            Error::Malformed { path, .. } => {
                let dir = path.parent().filter(|d| !d.as_os_str().is_empty()).unwrap_or(Path::new("."));
                Some(format!("`klog check {}` shows it with every other finding there", dir.display()))
            }
            Error::NotRegular { .. } => {
                Some("put the file Kafka wrote there instead, or work on a copy without it".into())
            }
            _ => None,
        };
        match step {
            Some(step) => format!("{self}; {step}"),
            None => self.to_string(),
        }
    }

    /// True when the error is a closed pipe on stdout, which counts as success.
    pub fn is_broken_pipe(&self) -> bool {
        matches!(self, Error::Io { source, .. } if source.kind() == io::ErrorKind::BrokenPipe)
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::Io { path, action, source } => {
                write!(f, "{}: {action} failed: {source}", path.display())
            }
            Error::Corrupt { path, position, what } => {
                write!(f, "{}: corrupt data at position {position}: {what}", path.display())
            }
            Error::Malformed { path, line, what } => {
                write!(f, "{}: malformed at line {line}: {what}", path.display())
            }
            Error::Layout { path, what } | Error::State { path, what } | Error::Refuses { path, what, .. } => {
                write!(f, "{}: {what}", path.display())
            }
            Error::NotRegular { path, kind } => {
                write!(f, "{}: is {kind}, expected a regular file (klog never opens it)", path.display())
            }
            Error::Locked { path } => write!(
                f,
                "{}: locked by another process (another klog command or a broker is writing here): wait for it \
                 to end, or stop the broker; to read a running broker's dir, work on a copy (cp -a)",
                path.display()
            ),
            Error::NotKlogMade { path, command } => {
                let d = path.display();
                write!(f, "{d}: a log dir klog did not make (no klog-state.json: a broker's dir), and ")?;
                match command {
                    Some(what) => write!(f, "{what}")?,
                    None => write!(f, "this command would write into it")?,
                }
                write!(
                    f,
                    "; nothing was changed. To change it, work on a copy: `cp -a {d} COPY`, then the same command \
                     on COPY with --allow-broker-dir-writes (every file it changes is saved first in \
                     COPY.klog-backup-N, and `klog restore COPY.klog-backup-N` puts it back)"
                )
            }
            Error::Usage(what) => f.write_str(what),
        }
    }
}

impl std::error::Error for Error {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            Error::Io { source, .. } => Some(source),
            _ => None,
        }
    }
}

/// What to do about an I/O failure whose fix is not in the OS's words: permissions, a full or
/// read-only disk. `None` where the path and the OS's words say it (a missing file).
fn io_next_step(kind: io::ErrorKind) -> Option<&'static str> {
    match kind {
        io::ErrorKind::PermissionDenied => Some(
            "run klog as a user who may read the dir (and write it, for a command that changes it), or work on a \
             copy (cp -a)",
        ),
        io::ErrorKind::StorageFull => Some("free space on that disk, then run the command again"),
        io::ErrorKind::ReadOnlyFilesystem => {
            Some("a read-only file system: to change the dir, work on a copy (cp -a) on a writable one")
        }
        _ => None,
    }
}

/// Attach a path to an `io::Result`.
pub trait IoContext<T> {
    fn at(self, path: impl AsRef<Path>, action: &'static str) -> Result<T>;
}

impl<T> IoContext<T> for io::Result<T> {
    fn at(self, path: impl AsRef<Path>, action: &'static str) -> Result<T> {
        self.map_err(|e| Error::io(path, action, e))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn io_errors_whose_fix_the_os_does_not_say_get_the_next_step_in_mains_line_only() {
        let denied = Error::io("/d/f", "open", io::Error::from(io::ErrorKind::PermissionDenied));
        let line = denied.line();
        assert!(
            line.starts_with("/d/f: open failed: ") && line.contains("; run klog as a user who may read"),
            "{line}"
        );
        assert!(!denied.to_string().contains("run klog as"), "a finding's words carry no advice");
        let full = Error::io("/d/f", "write", io::Error::from(io::ErrorKind::StorageFull)).line();
        assert!(full.ends_with("; free space on that disk, then run the command again"), "{full}");
        let read_only = Error::io("/d/f", "create", io::Error::from(io::ErrorKind::ReadOnlyFilesystem)).line();
        assert!(read_only.contains("work on a copy (cp -a) on a writable one"), "{read_only}");
        // A missing file: the path and the OS's words say it.
        let missing = Error::io("/d/f", "open", io::Error::from(io::ErrorKind::NotFound));
        assert_eq!(missing.line(), missing.to_string());
        // A checkpoint that does not parse: `check` on the dir that holds it.
        let bad = Error::malformed("/d/p-0/leader-epoch-checkpoint", 2, "expected an entry count");
        assert_eq!(
            bad.line(),
            "/d/p-0/leader-epoch-checkpoint: malformed at line 2: expected an entry count; `klog check /d/p-0` shows \
             it with every other finding there"
        );
        assert!(!bad.line().contains('\n') && !denied.line().contains('\n'));
    }
}
