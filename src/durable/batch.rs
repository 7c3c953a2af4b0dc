//! Many small files replaced as one durable operation: every file's `<file>.tmp` is written and
//! fsynced, then each is renamed over its target, then each directory holding them is fsynced
//! once. Local recovery rewrites two indexes per segment it scans; file by file (as
//! [`super::write_atomic`]) that is a directory fsync per index, here one per recovery.
//!
//! Each file is replaced atomically: after a crash at any step a target holds its old bytes or
//! its new ones, never a mix (a rename is only issued once its tmp file is fsynced). The batch
//! as a whole is not atomic: a crash between two renames leaves some targets new and some old,
//! and until the directory fsync a power loss may undo any of the renames. A caller whose files
//! are derived (indexes rebuilt from the `.log`) accepts that, since the next recovery rebuilds
//! them; a checkpoint that must move with another goes through [`super::write_atomic`].

use super::{create_file, rename, sync_dir, sync_file, write_step};
use crate::error::{IoContext, Result};
use std::fs;
use std::path::{Path, PathBuf};

/// Files to replace together ([`AtomicBatch::commit`]); a later [`AtomicBatch::add`] of the same
/// path replaces the earlier contents.
#[derive(Debug, Default)]
pub struct AtomicBatch {
    files: Vec<(PathBuf, Vec<u8>)>,
}

impl AtomicBatch {
    /// Add `path` with its new `contents`; nothing is written before [`AtomicBatch::commit`].
    pub fn add(&mut self, path: PathBuf, contents: Vec<u8>) {
        match self.files.iter_mut().find(|(p, _)| *p == path) {
            Some(file) => file.1 = contents,
            None => self.files.push((path, contents)),
        }
    }

    pub fn is_empty(&self) -> bool {
        self.files.is_empty()
    }

    /// Write every file: all tmp files written and fsynced, then all renamed, then each
    /// directory fsynced once. On failure the tmp files not yet renamed are removed (best
    /// effort); every target holds its old or its new bytes.
    pub fn commit(self) -> Result<()> {
        let tmps: Vec<PathBuf> = self.files.iter().map(|(p, _)| tmp_path(p)).collect();
        let written = self.write_all(&tmps);
        if let Err(e) = written {
            for tmp in &tmps {
                let _ = fs::remove_file(tmp);
            }
            return Err(e);
        }
        let mut dirs: Vec<&Path> = Vec::new();
        for (i, ((path, _), tmp)) in self.files.iter().zip(&tmps).enumerate() {
            if let Err(e) = rename(tmp, path) {
                for tmp in &tmps[i..] {
                    let _ = fs::remove_file(tmp);
                }
                return Err(e);
            }
            let dir = path.parent().filter(|p| !p.as_os_str().is_empty()).unwrap_or(Path::new("."));
            if !dirs.contains(&dir) {
                dirs.push(dir);
            }
        }
        dirs.into_iter().try_for_each(sync_dir)
    }

    /// Every tmp file created, written and fsynced.
    fn write_all(&self, tmps: &[PathBuf]) -> Result<()> {
        for ((_, contents), tmp) in self.files.iter().zip(tmps) {
            let mut file = create_file(tmp)?;
            write_step(&mut file, tmp, contents).at(tmp, "write")?;
            sync_file(&file, tmp)?;
        }
        Ok(())
    }
}

fn tmp_path(path: &Path) -> PathBuf {
    let mut name = path.as_os_str().to_owned();
    name.push(".tmp");
    PathBuf::from(name)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_batch_replaces_every_file_and_leaves_no_temp_file() {
        let dir = tempfile::tempdir().unwrap();
        let (a, b) = (dir.path().join("a.index"), dir.path().join("b.index"));
        fs::write(&a, b"old a").unwrap();
        let mut batch = AtomicBatch::default();
        batch.add(a.clone(), b"first a".to_vec());
        batch.add(b.clone(), b"new b".to_vec());
        batch.add(a.clone(), b"new a".to_vec());
        batch.commit().unwrap();
        assert_eq!(fs::read(&a).unwrap(), b"new a");
        assert_eq!(fs::read(&b).unwrap(), b"new b");
        let names: Vec<_> = fs::read_dir(dir.path()).unwrap().map(|e| e.unwrap().file_name()).collect();
        assert_eq!(names.len(), 2, "{names:?}");
    }

    #[test]
    fn a_batch_failing_at_a_rename_leaves_each_file_whole_and_no_temp_file() {
        let dir = tempfile::tempdir().unwrap();
        let (a, b, c) = (dir.path().join("a"), dir.path().join("b"), dir.path().join("c"));
        fs::write(&a, b"old a").unwrap();
        // A directory at `b`'s name: its tmp file is written, and the rename over it fails.
        fs::create_dir(&b).unwrap();
        fs::write(&c, b"old c").unwrap();
        let mut batch = AtomicBatch::default();
        for (path, bytes) in [(&a, b"new a"), (&b, b"new b"), (&c, b"new c")] {
            batch.add(path.clone(), bytes.to_vec());
        }
        assert!(batch.commit().is_err());
        assert_eq!(fs::read(&a).unwrap(), b"new a");
        assert!(b.is_dir());
        assert_eq!(fs::read(&c).unwrap(), b"old c");
        for tmp in ["a.tmp", "b.tmp", "c.tmp"] {
            assert!(!dir.path().join(tmp).exists(), "{tmp} left behind");
        }
    }

    #[test]
    fn a_batch_failing_before_its_renames_changes_no_target() {
        let dir = tempfile::tempdir().unwrap();
        let a = dir.path().join("a");
        fs::write(&a, b"old a").unwrap();
        let mut batch = AtomicBatch::default();
        batch.add(a.clone(), b"new a".to_vec());
        // A file in a directory that does not exist: its tmp file cannot be created.
        batch.add(dir.path().join("missing/b"), b"new b".to_vec());
        assert!(batch.commit().is_err());
        assert_eq!(fs::read(&a).unwrap(), b"old a");
        assert!(!dir.path().join("a.tmp").exists());
    }
}
