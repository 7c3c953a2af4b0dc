//! The one way klog opens a file it reads: segments, indexes, snapshots, checkpoints,
//! `meta.properties`, `partition.metadata`, `klog-state.json`, `quorum-state`, any file `dump`
//! is given.
//!
//! A name where a file is expected may hold anything: a FIFO (whose `open` waits for a writer
//! for ever), a socket, a device (`/dev/zero` never ends), a directory. Every read here first
//! looks at the path with `stat` (following symlinks, as Java's `File.isFile` does and as
//! Kafka's loader filters the names it loads), refuses anything but a regular file without
//! opening it, then opens with `O_NONBLOCK` and checks the opened file again with `fstat`, so a
//! name swapped between the two calls cannot make klog wait either. A missing file is `None`
//! (each caller decides what absence means); anything else that is not a regular file is
//! [`Error::NotRegular`], which a reader shows as a finding and a writer refuses on.
//!
//! Writes never come through here: they go through `crate::durable`.

use crate::error::{Error, IoContext, Result};
use std::fs::{File, Metadata, OpenOptions};
use std::io::Read;
use std::os::unix::fs::{FileTypeExt, OpenOptionsExt};
use std::path::Path;

/// What a non-regular file is, in words for a message ("a FIFO", "a directory").
pub fn kind_of(meta: &Metadata) -> Option<&'static str> {
    let t = meta.file_type();
    if t.is_file() {
        None
    } else if t.is_dir() {
        Some("a directory")
    } else if t.is_fifo() {
        Some("a FIFO")
    } else if t.is_socket() {
        Some("a socket")
    } else if t.is_char_device() {
        Some("a character device")
    } else if t.is_block_device() {
        Some("a block device")
    } else {
        Some("not a regular file")
    }
}

/// Whether `path` names (through symlinks) a regular file; a stat that fails is `false`.
/// Never opens the path.
pub fn is_regular(path: &Path) -> bool {
    std::fs::metadata(path).is_ok_and(|m| m.is_file())
}

/// What a symlink loop is called in a message: a name that holds something, but no file.
pub const SYMLINK_LOOP: &str = "a symlink loop";

/// Whether a failed `stat` means the name is a loop of symlinks (`ELOOP`): something is there
/// that is not a regular file (Java's `File.isFile` is false for it, as for a FIFO), so it is
/// a finding like a FIFO, not an I/O error that stops the command.
fn is_loop(e: &std::io::Error) -> bool {
    e.raw_os_error() == Some(libc::ELOOP)
}

/// What is at `path` when it is there but is not a regular file (`None` for a regular file,
/// a missing name or a stat that fails otherwise); a symlink loop is [`SYMLINK_LOOP`]. Never
/// opens the path.
pub fn not_regular_kind(path: &Path) -> Option<&'static str> {
    match std::fs::metadata(path) {
        Ok(m) => kind_of(&m),
        Err(e) if is_loop(&e) => Some(SYMLINK_LOOP),
        Err(_) => None,
    }
}

/// Open `path` for reading. `Ok(None)` when nothing is at the name; [`Error::NotRegular`] when
/// it is not a regular file. Never blocks.
pub fn open_regular(path: &Path) -> Result<Option<(File, Metadata)>> {
    match std::fs::metadata(path) {
        Ok(meta) => {
            if let Some(kind) = kind_of(&meta) {
                return Err(Error::not_regular(path, kind));
            }
        }
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) if is_loop(&e) => return Err(Error::not_regular(path, SYMLINK_LOOP)),
        Err(e) => return Err(Error::io(path, "stat", e)),
    }
    let file = match OpenOptions::new().read(true).custom_flags(libc::O_NONBLOCK | libc::O_NOCTTY).open(path) {
        Ok(f) => f,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(Error::io(path, "open", e)),
    };
    let meta = file.metadata().at(path, "stat")?;
    if let Some(kind) = kind_of(&meta) {
        return Err(Error::not_regular(path, kind));
    }
    Ok(Some((file, meta)))
}

/// The whole of a small file (a checkpoint, a properties file, klog's state file); `None` when
/// absent. Reads at most the length `fstat` gave plus one byte, so a file that grows while it
/// is read cannot make the read go on without bound.
pub fn read_regular(path: &Path) -> Result<Option<Vec<u8>>> {
    let Some((file, meta)) = open_regular(path)? else { return Ok(None) };
    let len = meta.len();
    let mut bytes = Vec::with_capacity(usize::try_from(len).unwrap_or(0).min(64 << 20));
    file.take(len.saturating_add(1)).read_to_end(&mut bytes).at(path, "read")?;
    Ok(Some(bytes))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::{Duration, Instant};

    #[test]
    fn a_fifo_a_socket_a_device_and_a_directory_are_refused_without_waiting() {
        let dir = tempfile::tempdir().unwrap();
        let fifo = dir.path().join("fifo");
        let c = std::ffi::CString::new(fifo.to_str().unwrap()).unwrap();
        // SAFETY: a valid NUL-terminated path; mkfifo only creates a name.
        assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o644) }, 0);
        let sock = dir.path().join("sock");
        let _listener = std::os::unix::net::UnixListener::bind(&sock).unwrap();
        let zero = dir.path().join("zero");
        std::os::unix::fs::symlink("/dev/zero", &zero).unwrap();
        let sub = dir.path().join("sub");
        std::fs::create_dir(&sub).unwrap();
        let started = Instant::now();
        for (path, kind) in
            [(&fifo, "a FIFO"), (&sock, "a socket"), (&zero, "a character device"), (&sub, "a directory")]
        {
            match read_regular(path) {
                Err(Error::NotRegular { kind: k, .. }) => assert_eq!(k, kind),
                other => panic!("{}: {:?}", path.display(), other.map(|_| ())),
            }
            assert_eq!(not_regular_kind(path), Some(kind));
        }
        assert!(started.elapsed() < Duration::from_secs(5));
    }

    #[test]
    fn a_missing_file_is_none_and_a_symlinked_file_is_read() {
        let dir = tempfile::tempdir().unwrap();
        assert!(read_regular(&dir.path().join("nothing")).unwrap().is_none());
        std::fs::write(dir.path().join("f"), b"abc").unwrap();
        std::os::unix::fs::symlink(dir.path().join("f"), dir.path().join("l")).unwrap();
        assert_eq!(read_regular(&dir.path().join("l")).unwrap().unwrap(), b"abc");
        assert!(is_regular(&dir.path().join("l")));
        // A dangling symlink is absent, as Java's File.isFile says false for it.
        std::os::unix::fs::symlink(dir.path().join("gone"), dir.path().join("d")).unwrap();
        assert!(read_regular(&dir.path().join("d")).unwrap().is_none());
    }
}
