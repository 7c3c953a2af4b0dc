//! What a replica is among replicas, from what its dir says, and the refusals built on it: a
//! replica is one broker of one cluster (`cluster.id`, node id), and `directory.id` tells one
//! broker's log dirs apart; a pair of dirs that are one replica (the same dir, `cp -a` copies
//! of one, or two log dirs of one broker) never replicate to each other, and replicas of
//! another cluster or of another topic of the same name are not replicas of one partition.
//! [`Replica::identity`] (the name a follower's state records its leader by) is
//! `directory.id`, else `node.id`/`broker.id`, else the canonical path.

use super::meta_properties::{read_meta_properties, replica_id_of};
use super::Replica;
use crate::error::{Error, Result};
use crate::log::names::{self, META_PROPERTIES};
use crate::regular_file;
use std::collections::BTreeMap;
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
        ensure_distinct_replicas(&self.who(), &other.who())
    }

    fn who(&self) -> Who<'_> {
        Who {
            log_dir: &self.paths.log_dir,
            directory_id: self.directory_id.as_deref(),
            cluster_id: self.cluster_id.as_deref(),
            node_id: self.replica_id,
        }
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

/// What a log dir's `meta.properties` says about whose it is.
struct Who<'a> {
    log_dir: &'a Path,
    directory_id: Option<&'a str>,
    cluster_id: Option<&'a str>,
    node_id: Option<i32>,
}

/// One replica is one broker of one cluster: (`cluster.id`, node id), and `directory.id` tells
/// log dirs apart: the same `directory.id` on both sides is a copy of one dir; without one on
/// both sides, the same `cluster.id` and node id is one broker. The same node id with another
/// or no `cluster.id` is another broker (`pair_warnings` and the restart plan say so).
fn ensure_distinct_replicas(a: &Who<'_>, b: &Who<'_>) -> Result<()> {
    if fs::canonicalize(a.log_dir).ok() == fs::canonicalize(b.log_dir).ok() {
        return Err(Error::Usage(format!(
            "{} and {} are the same replica dir",
            a.log_dir.display(),
            b.log_dir.display()
        )));
    }
    let same = match (a.directory_id, b.directory_id) {
        (Some(x), Some(y)) if x == y => Some(format!("directory.id={x}")),
        // Two log dirs each with its own id (klog's replicas, KRaft brokers' dirs).
        (Some(_), Some(_)) => None,
        _ => match (a.cluster_id, a.node_id, b.cluster_id, b.node_id) {
            (Some(ca), Some(na), Some(cb), Some(nb)) if ca == cb && na == nb => {
                Some(format!("cluster.id={ca} node.id={na}"))
            }
            _ => None,
        },
    };
    match same {
        Some(who) => Err(Error::layout(
            b.log_dir,
            format!(
                "says it is the same replica as {} ({who}): copies of one dir cannot replicate to each other",
                a.log_dir.display()
            ),
        )),
        None => Ok(()),
    }
}

/// [`Replica::ensure_distinct`] for two log dirs as a whole (the data-dir forms): the same
/// refusal, with the same words, as for any partition they share. A `meta.properties` that does
/// not read says nothing about identity (each partition's open reports it).
pub fn ensure_distinct_log_dirs(a: &Path, b: &Path) -> Result<()> {
    let meta = |dir: &Path| read_meta_properties(&dir.join(META_PROPERTIES)).unwrap_or_default();
    let (ma, mb) = (meta(a), meta(b));
    ensure_distinct_replicas(&who_of(a, &ma), &who_of(b, &mb))
}

/// For two log dirs that are two replicas: a warning when both say the same node id but not
/// the same `cluster.id` (ZooKeeper-era dirs often record none).
pub fn same_node_id_warning(a: &Path, b: &Path) -> Option<String> {
    let meta = |dir: &Path| read_meta_properties(&dir.join(META_PROPERTIES)).unwrap_or_default();
    let (ma, mb) = (meta(a), meta(b));
    let (wa, wb) = (who_of(a, &ma), who_of(b, &mb));
    let (Some(x), Some(y)) = (wa.node_id, wb.node_id) else { return None };
    let why = match (wa.cluster_id, wb.cluster_id) {
        _ if x != y => return None,
        (Some(ca), Some(cb)) if ca == cb => return None,
        (None, None) => "neither records a cluster.id".to_string(),
        (Some(c), None) => format!("only {} records a cluster.id ({c})", a.display()),
        (None, Some(c)) => format!("only {} records a cluster.id ({c})", b.display()),
        (Some(ca), Some(cb)) => format!("their cluster.ids differ ({ca}, {cb})"),
    };
    Some(format!("{} and {} both say node id {x}, but {why}: taken as two brokers", a.display(), b.display()))
}

fn who_of<'a>(log_dir: &'a Path, meta: &'a BTreeMap<String, String>) -> Who<'a> {
    Who {
        log_dir,
        directory_id: meta.get("directory.id").map(String::as_str),
        cluster_id: meta.get("cluster.id").map(String::as_str),
        node_id: replica_id_of(meta),
    }
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
    fn one_node_id_in_two_clusters_or_with_no_cluster_id_is_two_brokers() {
        let tmp = tempfile::tempdir().unwrap();
        let (a, b) = (tmp.path().join("a"), tmp.path().join("b"));
        fs::create_dir_all(&a).unwrap();
        fs::create_dir_all(&b).unwrap();
        let who = |dir, directory_id, cluster_id| Who { log_dir: dir, directory_id, cluster_id, node_id: Some(0) };
        // ZooKeeper-era brokers: broker.id 0 each, no cluster.id, no directory.id.
        ensure_distinct_replicas(&who(&a, None, None), &who(&b, None, None)).unwrap();
        ensure_distinct_replicas(&who(&a, None, Some("c1")), &who(&b, None, Some("c2"))).unwrap();
        ensure_distinct_replicas(&who(&a, None, Some("c1")), &who(&b, None, None)).unwrap();
        // One broker (cluster.id and node id) in two dirs with no directory.id: the same replica.
        let Err(Error::Layout { what, .. }) =
            ensure_distinct_replicas(&who(&a, None, Some("c1")), &who(&b, None, Some("c1")))
        else {
            panic!("one broker's dirs passed as two replicas")
        };
        assert!(what.contains("(cluster.id=c1 node.id=0)"), "{what}");
        // Dirs with their own directory.id are two (a lab's replicas share a cluster.id).
        ensure_distinct_replicas(&who(&a, Some("d1"), Some("c1")), &who(&b, Some("d2"), Some("c1"))).unwrap();
        // A copy of one dir: the same directory.id.
        assert!(ensure_distinct_replicas(&who(&a, Some("d1"), None), &who(&b, Some("d1"), None)).is_err());
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
