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
    /// Take the lock on `log_dir/.lock` to write into the dir, refusing (not waiting) if
    /// another process holds it, and first refusing a dir klog did not make unless the user
    /// consented (then every change under it is backed up first): every write takes this door.
    pub fn acquire(log_dir: &Path) -> Result<DirLock> {
        super::consent::require(log_dir)?;
        DirLock::acquire_to_restore(log_dir)
    }

    /// Take the lock without the consent gate: only for `klog restore`, which puts back what a
    /// consented command changed.
    pub fn acquire_to_restore(log_dir: &Path) -> Result<DirLock> {
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
            durable::note_created(&path)?;
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

    /// How a dry run treats the lock: it never takes it and never writes, so a lock another
    /// process holds (a running broker) does not refuse it; it is noted for stderr instead, as
    /// the files may change while the dry run reads them. Any other refusal of [`DirLock::probe`]
    /// (a `.lock` that is a symlink or not a file) refuses the dry run as it would the run.
    pub fn probe_for_dry_run(log_dir: &Path) -> Result<()> {
        match DirLock::probe(log_dir) {
            Err(Error::Locked { path }) => {
                crate::notice::warn(format!(
                    "{}: locked by another process (a running broker?): this dry run reads it without the lock, \
                     so its files may change under it",
                    path.display()
                ));
                Ok(())
            }
            other => other,
        }
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

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::{BufRead, BufReader};
    use std::process::{Command, Stdio};

    /// The env var that tells [`holds_the_lock_in_a_child_process`] which log dir to lock.
    const CHILD_DIR: &str = "KLOG_TEST_LOCK_CHILD_DIR";
    /// What the child prints once it holds the lock.
    const HELD: &str = "klog-test-lock-held";

    /// Not a test of its own: run by [`a_lock_held_by_another_process_refuses_acquire_and_probe`]
    /// in a child process (POSIX record locks belong to a process, so one process cannot see
    /// its own lock as taken). Holds the lock until its stdin closes.
    #[test]
    #[ignore = "run in a child process by a_lock_held_by_another_process_refuses_acquire_and_probe"]
    fn holds_the_lock_in_a_child_process() {
        let Some(dir) = std::env::var_os(CHILD_DIR) else { return };
        let _lock = DirLock::acquire_to_restore(Path::new(&dir)).expect("the child takes the lock");
        println!("{HELD}");
        let mut rest = String::new();
        while std::io::stdin().read_line(&mut rest).is_ok_and(|n| n > 0) {}
    }

    #[test]
    fn a_lock_held_by_another_process_refuses_acquire_and_probe() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path();
        let mut child = Command::new(std::env::current_exe().unwrap())
            .args(["--exact", "replica::lock::tests::holds_the_lock_in_a_child_process", "--ignored", "--nocapture"])
            .args(["--test-threads", "1"])
            .env(CHILD_DIR, dir)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .unwrap();
        let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
        assert!(lines.any(|l| l.unwrap().contains(HELD)), "the child never took the lock");

        assert!(matches!(DirLock::acquire_to_restore(dir), Err(Error::Locked { path }) if path == dir));
        assert!(matches!(DirLock::probe(dir), Err(Error::Locked { .. })));
        assert!(dir.join(LOCK_FILE).exists(), "a refused acquire leaves the holder's file alone");

        drop(child.stdin.take());
        assert!(child.wait().unwrap().success());
        DirLock::probe(dir).expect("free once the holder exits");
        let _lock = DirLock::acquire_to_restore(dir).expect("free once the holder exits");
    }

    #[test]
    fn a_lock_klog_created_is_removed_unless_the_command_kept_it() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path();
        let path = dir.join(LOCK_FILE);
        DirLock::probe(dir).unwrap();
        assert!(!path.exists(), "a probe creates nothing");

        let lock = DirLock::acquire_to_restore(dir).unwrap();
        assert!(path.is_file());
        drop(lock);
        assert!(!path.exists(), "a command that wrote nothing leaves no lock file");

        let mut lock = DirLock::acquire_to_restore(dir).unwrap();
        lock.keep();
        drop(lock);
        assert!(path.is_file(), "a command that wrote leaves the lock file, as a broker does");

        // A lock file that was there already is never removed.
        drop(DirLock::acquire_to_restore(dir).unwrap());
        assert!(path.is_file());
    }

    #[test]
    fn a_lock_that_is_a_symlink_or_not_a_file_is_refused_and_never_followed() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path().join("a");
        fs::create_dir(&dir).unwrap();
        let target = tmp.path().join("outside");
        std::os::unix::fs::symlink(&target, dir.join(LOCK_FILE)).unwrap();
        for refusal in [DirLock::acquire_to_restore(&dir).map(|_| ()), DirLock::probe(&dir)] {
            let Err(Error::Layout { what, .. }) = refusal else { panic!("followed the symlink") };
            assert!(what.starts_with("is a symlink"), "{what}");
        }
        assert!(!target.exists(), "nothing was created through the link");

        fs::remove_file(dir.join(LOCK_FILE)).unwrap();
        fs::create_dir(dir.join(LOCK_FILE)).unwrap();
        assert!(matches!(DirLock::acquire_to_restore(&dir), Err(Error::NotRegular { .. })));
        assert!(matches!(DirLock::probe(&dir), Err(Error::NotRegular { .. })));
    }
}
