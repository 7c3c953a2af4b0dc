//! The log dir's `.lock`: taken by every mutating command for the life of its write, probed
//! (never taken or created) by a dry run, and never removed, as a broker leaves it
//! (`LogManager.lockLogDirs` creates it and nothing in Kafka deletes it). klog never follows a
//! `.lock` symlink and never waits for the lock.
//!
//! Why it is never removed, even by a command that created it and then failed: a POSIX lock
//! belongs to an inode, not a name. A process that removed its `.lock` would leave a second
//! process holding the old inode while a third creates a new `.lock` and locks that: two
//! writers at once. For the same reason a lock is held until the command's last write (the
//! undo journal's rollback included: [`crate::durable::journal::hold_lock`]), and a lock taken
//! on an inode that is no longer the one the name points at is refused.

use crate::error::{Error, IoContext, Result};
use crate::log::names::LOCK_FILE;
use crate::regular_file;
use std::fs::{self, File};
use std::os::unix::fs::OpenOptionsExt;
use std::path::{Path, PathBuf};

/// The log dir's `.lock`, held the way a broker holds it: a POSIX record lock (`fcntl`), which
/// is what Java's `FileChannel.tryLock` takes, so klog and a live broker see each other.
pub struct DirLock {
    /// `None` once handed to the journal at drop.
    file: Option<File>,
    path: PathBuf,
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
        match fs::symlink_metadata(&path) {
            Ok(m) if m.file_type().is_symlink() => {
                return Err(Error::layout(&path, "is a symlink: klog never follows a .lock symlink (remove it)"))
            }
            Ok(m) if !m.is_file() => return Err(Error::not_regular(&path, regular_file::kind_of(&m).unwrap_or("?"))),
            _ => {}
        }
        // Not a journaled or backed-up change: the `.lock` is never removed (see the module
        // docs), so neither a failed command's rollback nor a restore takes it away.
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
        // SAFETY: `flock` is a plain C struct; every field is set below or zero.
        let mut fl: libc::flock = unsafe { std::mem::zeroed() };
        fl.l_type = libc::F_WRLCK as libc::c_short;
        fl.l_whence = libc::SEEK_SET as libc::c_short;
        fl.l_start = 0;
        fl.l_len = 0; // the whole file, as FileChannel.tryLock() locks 0..Long.MAX_VALUE
        use std::os::fd::AsRawFd;
        // SAFETY: the fd is open for the life of `file`; F_SETLK reads `fl` only.
        let rc = unsafe { libc::fcntl(file.as_raw_fd(), libc::F_SETLK, &fl) };
        if rc != 0 {
            let e = std::io::Error::last_os_error();
            return match e.raw_os_error() {
                Some(libc::EACCES) | Some(libc::EAGAIN) => Err(Error::Locked { path: log_dir.to_path_buf() }),
                _ => Err(Error::io(&path, "lock", e)),
            };
        }
        // The lock is on the inode opened above: if the name now points elsewhere (another
        // program removed or replaced `.lock` meanwhile), a writer that opens it afresh would
        // lock another inode, so this lock excludes nobody.
        if !same_file(&meta, &path) {
            return Err(Error::layout(
                &path,
                "was removed or replaced while klog took the lock: another program is changing this dir; try again",
            ));
        }
        crate::durable::backup::note_locked(log_dir);
        Ok(DirLock { file: Some(file), path })
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

    /// The `.lock` this lock holds.
    pub fn path(&self) -> &Path {
        &self.path
    }
}

/// Whether `path` names the inode `opened` describes.
fn same_file(opened: &fs::Metadata, path: &Path) -> bool {
    use std::os::unix::fs::MetadataExt;
    fs::symlink_metadata(path).is_ok_and(|now| now.dev() == opened.dev() && now.ino() == opened.ino())
}

impl Drop for DirLock {
    /// Closing the file releases the lock; while a command's undo journal is open, the file
    /// goes to it instead, so that a rollback's writes still happen under the lock.
    fn drop(&mut self) {
        if let Some(file) = self.file.take() {
            crate::durable::journal::hold_lock(file);
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

    /// A `.lock` is never removed, by the command that created it least of all: a failed
    /// command that removed it let two later writers lock two inodes at once (#46).
    #[test]
    fn a_lock_klog_created_stays_even_when_the_command_fails() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path();
        let path = dir.join(LOCK_FILE);
        DirLock::probe(dir).unwrap();
        assert!(!path.exists(), "a probe creates nothing");

        let (result, undo_failures) = crate::durable::journal::transaction(|| {
            let _lock = DirLock::acquire_to_restore(dir)?;
            assert!(path.is_file());
            Err::<(), _>(Error::Usage("the command fails after taking the lock".into()))
        });
        assert!(result.is_err() && undo_failures.is_empty(), "{undo_failures:?}");
        assert!(path.is_file(), "the failed command's rollback left the lock file, as a broker does");

        drop(DirLock::acquire_to_restore(dir).unwrap());
        assert!(path.is_file(), "a lock file is never removed");
    }

    #[test]
    fn a_lock_whose_name_now_points_at_another_file_is_not_the_same_file() {
        let tmp = tempfile::tempdir().unwrap();
        let path = tmp.path().join(LOCK_FILE);
        // The open file keeps its inode alive, so the replacement cannot reuse its number.
        let held = File::create(&path).unwrap();
        let opened = held.metadata().unwrap();
        assert!(same_file(&opened, &path));
        fs::write(tmp.path().join("other"), b"").unwrap();
        fs::rename(tmp.path().join("other"), &path).unwrap();
        assert!(!same_file(&opened, &path), "another program replaced the name");
        fs::remove_file(&path).unwrap();
        assert!(!same_file(&opened, &path), "another program removed the name");
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
