//! What a replica is among replicas, from what its dir says (`directory.id`, else
//! `node.id`/`broker.id`, else the canonical path), and the refusals built on it: a pair of
//! dirs that are one replica (the same dir, or `cp -a` copies of one) never replicate to each
//! other, and replicas of another cluster or of another topic of the same name are not
//! replicas of one partition.

use super::meta_properties::{read_meta_properties, replica_id_of};
use super::Replica;
use crate::error::{Error, Result};
use crate::log::names::{self, META_PROPERTIES};
use crate::regular_file;
use std::fs;
use std::path::Path;

impl Replica {
    /// What this replica is among replicas, from what its dir says: `directory.id`, else
    /// `node.id`/`broker.id`, else (a partial copy) the canonical path. Copying a lab with
    /// `cp -a` keeps every replica's identity, so the copy works as the original did.
    pub fn identity(&self) -> String {
        identity_of(self.directory_id.as_deref(), self.replica_id, &self.paths.log_dir)
    }

    /// Refuse a pair of dirs that are one replica (the same dir, or copies of one).
    pub fn ensure_distinct(&self, other: &Replica) -> Result<()> {
        ensure_distinct_identities(&self.paths.log_dir, &self.identity(), &other.paths.log_dir, &other.identity())
    }

    /// Why `other` cannot be a replica of the same partition although the names agree: another
    /// cluster (`cluster.id` in `meta.properties`) or another topic of the same name (`topic_id`
    /// in `partition.metadata`). `None` when nothing says so.
    pub fn foreign_to(&self, other: &Replica) -> Option<String> {
        if let (Some(a), Some(b)) = (&self.cluster_id, &other.cluster_id) {
            if a != b {
                return Some(format!(
                    "belongs to cluster {b} but {} belongs to cluster {a}: replicas of different clusters",
                    self.paths.log_dir.display()
                ));
            }
        }
        let topic_id = |r: &Replica| {
            regular_file::read_regular(&r.paths.partition_dir.join(names::PARTITION_METADATA))
                .ok()
                .flatten()
                .and_then(|t| String::from_utf8(t).ok())
                .and_then(|t| t.lines().find_map(|l| l.strip_prefix("topic_id:").map(|v| v.trim().to_string())))
        };
        if let (Some(a), Some(b)) = (topic_id(self), topic_id(other)) {
            if a != b {
                return Some(format!(
                    "has topic id {b} but {} has {a}: a different topic of the same name",
                    self.paths.partition_dir.display()
                ));
            }
        }
        None
    }

    /// Check that `other` replicates the same topic-partition of the same cluster.
    pub fn ensure_same_partition(&self, other: &Replica) -> Result<()> {
        if self.paths.topic != other.paths.topic || self.paths.partition != other.paths.partition {
            return Err(Error::layout(
                &other.paths.partition_dir,
                format!(
                    "holds partition {} but {} holds {}",
                    other.paths.name(),
                    self.paths.log_dir.display(),
                    self.paths.name()
                ),
            ));
        }
        if let Some(why) = self.foreign_to(other) {
            return Err(Error::layout(&other.paths.log_dir, why));
        }
        Ok(())
    }
}

/// What a replica is among replicas (see [`Replica::identity`]).
fn identity_of(directory_id: Option<&str>, replica_id: Option<i32>, log_dir: &Path) -> String {
    if let Some(id) = directory_id {
        return format!("directory.id={id}");
    }
    if let Some(id) = replica_id {
        return format!("node.id={id}");
    }
    let path = fs::canonicalize(log_dir).unwrap_or_else(|_| log_dir.to_path_buf());
    format!("path={}", path.display())
}

fn ensure_distinct_identities(a: &Path, a_identity: &str, b: &Path, b_identity: &str) -> Result<()> {
    if fs::canonicalize(a).ok() == fs::canonicalize(b).ok() {
        return Err(Error::Usage(format!("{} and {} are the same replica dir", a.display(), b.display())));
    }
    if a_identity == b_identity {
        return Err(Error::layout(
            b,
            format!(
                "says it is the same replica as {} ({a_identity}): copies of one dir cannot replicate to each other",
                a.display()
            ),
        ));
    }
    Ok(())
}

/// [`Replica::ensure_distinct`] for two log dirs as a whole (the data-dir forms): the same
/// refusal, with the same words, as for any partition they share. A `meta.properties` that does
/// not read says nothing about identity (each partition's open reports it).
pub fn ensure_distinct_log_dirs(a: &Path, b: &Path) -> Result<()> {
    let identity = |dir: &Path| {
        let meta = read_meta_properties(&dir.join(META_PROPERTIES)).unwrap_or_default();
        identity_of(meta.get("directory.id").map(String::as_str), replica_id_of(&meta), dir)
    };
    ensure_distinct_identities(a, &identity(a), b, &identity(b))
}

#[cfg(test)]
mod tests {
    use super::super::test_support::new_log_dir;
    use super::*;

    #[test]
    fn a_copy_of_a_replica_dir_is_the_same_replica_and_is_refused() {
        let tmp = tempfile::tempdir().unwrap();
        let a = new_log_dir(&tmp.path().join("a"), 1, "demo", 1);
        let b = new_log_dir(&tmp.path().join("b"), 2, "demo", 1);
        let copy = tmp.path().join("copy");
        new_log_dir(&copy, 3, "demo", 1);
        fs::copy(a.join(META_PROPERTIES), copy.join(META_PROPERTIES)).unwrap();

        let (ra, rb, rc) =
            (Replica::open(&a, None).unwrap(), Replica::open(&b, None).unwrap(), Replica::open(&copy, None).unwrap());
        assert!(ra.identity().starts_with("directory.id="), "{}", ra.identity());
        assert_eq!(ra.identity(), rc.identity());
        ra.ensure_distinct(&rb).unwrap();
        ra.ensure_same_partition(&rb).unwrap();
        let Err(Error::Layout { what, .. }) = ra.ensure_distinct(&rc) else {
            panic!("a copy passed as another replica")
        };
        assert!(what.starts_with("says it is the same replica as "), "{what}");
        assert!(matches!(ra.ensure_distinct(&ra), Err(Error::Usage(_))), "one dir twice");
        ensure_distinct_log_dirs(&a, &b).unwrap();
        assert!(matches!(ensure_distinct_log_dirs(&a, &copy), Err(Error::Layout { .. })));
    }

    #[test]
    fn identity_falls_back_from_directory_id_to_node_id_to_the_path() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path();
        assert_eq!(identity_of(Some("x"), Some(1), dir), "directory.id=x");
        assert_eq!(identity_of(None, Some(1), dir), "node.id=1");
        assert_eq!(identity_of(None, None, dir), format!("path={}", fs::canonicalize(dir).unwrap().display()));
    }

    #[test]
    fn replicas_of_another_cluster_or_topic_id_are_foreign() {
        let tmp = tempfile::tempdir().unwrap();
        let a = new_log_dir(&tmp.path().join("a"), 1, "demo", 1);
        let b = new_log_dir(&tmp.path().join("b"), 2, "demo", 1);
        let other = new_log_dir(&tmp.path().join("o"), 3, "other", 1);
        let ra = Replica::open(&a, None).unwrap();
        assert_eq!(ra.foreign_to(&Replica::open(&b, None).unwrap()), None);
        let Err(Error::Layout { what, .. }) = ra.ensure_same_partition(&Replica::open(&other, None).unwrap()) else {
            panic!("another partition passed")
        };
        assert!(what.starts_with("holds partition other-0 but "), "{what}");

        fs::write(b.join("demo-0").join(names::PARTITION_METADATA), "version: 0\ntopic_id: AAAAAAAAAAAAAAAAAAAAAA")
            .unwrap();
        let why = ra.foreign_to(&Replica::open(&b, None).unwrap()).expect("another topic id");
        assert!(why.starts_with("has topic id AAAAAAAAAAAAAAAAAAAAAA but "), "{why}");

        let meta = fs::read_to_string(b.join(META_PROPERTIES)).unwrap();
        let cluster = Replica::open(&a, None).unwrap().cluster_id().unwrap().to_string();
        fs::write(b.join(META_PROPERTIES), meta.replace(&cluster, "another-cluster")).unwrap();
        let why = ra.foreign_to(&Replica::open(&b, None).unwrap()).expect("another cluster");
        assert!(why.starts_with("belongs to cluster another-cluster but "), "{why}");
    }
}
