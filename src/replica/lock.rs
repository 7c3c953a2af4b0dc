//! The log dir's `.lock`: taken by every mutating command for the life of its write, probed
//! (never taken or created) by a dry run, and left in place once a command has written, as a
//! broker leaves it. klog never follows a `.lock` symlink and never waits for the lock.

use crate::durable;
use crate::error::{Error, IoContext, Result};
use crate::log::names::LOCK_FILE;
use crate::regular_file;
use std::fs::{self, File};
use std::os::unix::fs::OpenOptionsExt;
use std::path::{Path, PathBuf};

/// The log dir's `.lock`, held the way a broker holds it: a POSIX record lock (`fcntl`), which
/// is what Java's `FileChannel.tryLock` takes, so klog and a live broker see each other.
pub struct DirLock {
    file: File,
    path: PathBuf,
    /// klog created the file; it is removed again if the command never wrote anything.
    created: bool,
    /// The command went on to write: the lock file stays, as a broker leaves it.
    kept: bool,
}

impl DirLock {
    /// Take the lock on `log_dir/.lock`, refusing (not waiting) if another process holds it.
    pub fn acquire(log_dir: &Path) -> Result<DirLock> {
        let path = log_dir.join(LOCK_FILE);
        // Never through a symlink (a dangling one would create a file outside the dir), never
        // waiting on a FIFO, never locking a device.
        let created = match fs::symlink_metadata(&path) {
            Ok(m) if m.file_type().is_symlink() => {
                return Err(Error::layout(&path, "is a symlink: klog never follows a .lock symlink (remove it)"))
            }
            Ok(m) if !m.is_file() => return Err(Error::not_regular(&path, regular_file::kind_of(&m).unwrap_or("?"))),
            Ok(_) => false,
            Err(_) => true,
        };
        if created {
            durable::note_created(&path);
        }
        let file = fs::OpenOptions::new()
            .create(true)
            .truncate(false)
            .write(true)
            .custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK)
            .open(&path)
            .at(&path, "open lock")?;
        let meta = file.metadata().at(&path, "stat")?;
        if let Some(kind) = regular_file::kind_of(&meta) {
            return Err(Error::not_regular(&path, kind));
        }
        let mut lock = DirLock { file, path, created, kept: false };
        // SAFETY: `flock` is a plain C struct; every field is set below or zero.
        let mut fl: libc::flock = unsafe { std::mem::zeroed() };
        fl.l_type = libc::F_WRLCK as libc::c_short;
        fl.l_whence = libc::SEEK_SET as libc::c_short;
        fl.l_start = 0;
        fl.l_len = 0; // the whole file, as FileChannel.tryLock() locks 0..Long.MAX_VALUE
        use std::os::fd::AsRawFd;
        // SAFETY: the fd is open for the life of `lock.file`; F_SETLK reads `fl` only.
        let rc = unsafe { libc::fcntl(lock.file.as_raw_fd(), libc::F_SETLK, &fl) };
        if rc != 0 {
            let e = std::io::Error::last_os_error();
            lock.created = false; // someone else's file: never remove it
            return match e.raw_os_error() {
                Some(libc::EACCES) | Some(libc::EAGAIN) => Err(Error::Locked { path: log_dir.to_path_buf() }),
                _ => Err(Error::io(&lock.path, "lock", e)),
            };
        }
        Ok(lock)
    }

    /// Refuse as [`DirLock::acquire`] would, without taking the lock or creating the file: a
    /// `.lock` that is a symlink or not a regular file, or that another process holds.
    pub fn probe(log_dir: &Path) -> Result<()> {
        let path = log_dir.join(LOCK_FILE);
        match fs::symlink_metadata(&path) {
            Ok(m) if m.file_type().is_symlink() => {
                return Err(Error::layout(&path, "is a symlink: klog never follows a .lock symlink (remove it)"))
            }
            Ok(m) if !m.is_file() => return Err(Error::not_regular(&path, regular_file::kind_of(&m).unwrap_or("?"))),
            Ok(_) => {}
            Err(_) => return Ok(()),
        }
        let file = fs::OpenOptions::new()
            .read(true)
            .custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK)
            .open(&path)
            .at(&path, "open lock")?;
        // SAFETY: `flock` is a plain C struct; every field is set below or zero.
        let mut fl: libc::flock = unsafe { std::mem::zeroed() };
        fl.l_type = libc::F_WRLCK as libc::c_short;
        fl.l_whence = libc::SEEK_SET as libc::c_short;
        use std::os::fd::AsRawFd;
        // SAFETY: the fd is open for the life of `file`; F_GETLK reads and writes `fl` only.
        let rc = unsafe { libc::fcntl(file.as_raw_fd(), libc::F_GETLK, &mut fl) };
        if rc != 0 {
            return Err(Error::io(&path, "lock", std::io::Error::last_os_error()));
        }
        if fl.l_type != libc::F_UNLCK as libc::c_short {
            return Err(Error::Locked { path: log_dir.to_path_buf() });
        }
        Ok(())
    }

    /// The command is about to write: the lock file stays.
    pub fn keep(&mut self) {
        self.kept = true;
    }
}

impl Drop for DirLock {
    fn drop(&mut self) {
        if self.created && !self.kept {
            let _ = fs::remove_file(&self.path);
        }
    }
}
