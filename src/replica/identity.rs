//! What a replica is among replicas, from what its dir says, and the refusals built on it: a
//! replica is one broker of one cluster (`cluster.id`, node id), and `directory.id` tells one
//! broker's log dirs apart; a pair of dirs that are one replica (the same dir, `cp -a` copies
//! of one, or two log dirs of one broker) never replicate to each other, and replicas of
//! another cluster or of another topic of the same name are not replicas of one partition.
//! [`Replica::identity`] (the name a follower's state records its leader by) is
//! `directory.id`, else `node.id`/`broker.id`, else the canonical path.
//!
//! Planning across dirs (a restart against a leader, a cluster view, a history with replicas
//! beside it) takes them as brokers of one cluster only when their `meta.properties` say so
//! ([`ensure_one_cluster`], [`ensure_metadata_of`]): one `cluster.id` on every dir (or on none,
//! as on ZooKeeper brokers before Kafka 0.10.1), and no node id twice. Anything else is refused
//! in one line naming both dirs and both ids, unless `--allow-other-cluster` asks for it.

use super::meta_properties::{read_meta_properties, replica_id_of};
use super::state_file::node_id_defaulted;
use super::Replica;
use crate::error::{Error, Result};
use crate::log::names::{self, META_PROPERTIES};
use crate::regular_file;
use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};

/// The flag that reads dirs (and metadata) of more than one cluster together anyway.
pub const ALLOW_OTHER_CLUSTER: &str = "--allow-other-cluster";

/// What a log dir's `meta.properties` says of whose it is: its `cluster.id` and node id
/// (`node.id`, else `broker.id`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DirIds {
    pub log_dir: PathBuf,
    pub cluster_id: Option<String>,
    pub node_id: Option<i32>,
    /// The node id is `klog create`'s default 0 (no `--replica-id`): written, but chosen by
    /// nobody, so two such dirs are not one node said twice.
    pub node_id_defaulted: bool,
}

impl DirIds {
    /// The ids of the log dir `log_dir` (a `meta.properties` that is missing or does not read
    /// says nothing: each partition's open reports it).
    pub fn read(log_dir: &Path) -> DirIds {
        let meta = read_meta_properties(&log_dir.join(META_PROPERTIES)).unwrap_or_default();
        DirIds {
            log_dir: log_dir.to_path_buf(),
            cluster_id: meta.get("cluster.id").cloned(),
            node_id: replica_id_of(&meta),
            node_id_defaulted: node_id_defaulted(log_dir),
        }
    }

    /// The ids of an opened replica's log dir (read when it was opened).
    pub fn of(replica: &Replica) -> DirIds {
        DirIds {
            log_dir: replica.paths.log_dir.clone(),
            cluster_id: replica.cluster_id.clone(),
            node_id: replica.replica_id,
            node_id_defaulted: node_id_defaulted(&replica.paths.log_dir),
        }
    }

    /// The node id this dir says it is: one `meta.properties` records and someone chose (a
    /// broker, or `klog create --replica-id`), not `klog create`'s default.
    pub fn said_node_id(&self) -> Option<i32> {
        self.node_id.filter(|_| !self.node_id_defaulted)
    }

    /// `cluster.id X, node id 1` (or `no cluster.id`, `no node id`, `node id 0 by default`).
    fn ids(&self) -> String {
        let cluster = self.cluster_id.as_deref().map_or("no cluster.id".to_string(), |c| format!("cluster.id {c}"));
        let node = match self.node_id {
            None => "no node id".to_string(),
            Some(n) if self.node_id_defaulted => format!("node id {n} by default"),
            Some(n) => format!("node id {n}"),
        };
        format!("{cluster}, {node}")
    }

    fn shown(&self) -> String {
        format!("{} ({})", self.log_dir.display(), self.ids())
    }
}

/// Why `dirs` are not brokers of one cluster, naming both dirs and their ids (the dir it is
/// said of first); `None` when nothing says so. One cluster is one `cluster.id` on every dir,
/// or on none (ZooKeeper brokers before Kafka 0.10.1 recorded none), and no node id said twice
/// (a dir has one node id, and two dirs of one node are one broker's, or two clusters'). A
/// node id `klog create` wrote by default (no `--replica-id`, so every such lab is node 0) is
/// said by nobody and never counts twice ([`DirIds::said_node_id`]).
pub fn not_one_cluster(dirs: &[DirIds]) -> Option<(PathBuf, String)> {
    if let Some(with) = dirs.iter().find(|d| d.cluster_id.is_some()) {
        if let Some(other) = dirs.iter().find(|d| d.cluster_id != with.cluster_id) {
            let why = match &other.cluster_id {
                Some(_) => "dirs of two different clusters",
                None => "nothing says they are one cluster",
            };
            return Some((other.log_dir.clone(), format!("{} but {}: {why}", other.ids(), with.shown())));
        }
    }
    for (i, a) in dirs.iter().enumerate() {
        let Some(id) = a.said_node_id() else { continue };
        if let Some(b) = dirs[i + 1..].iter().find(|b| b.said_node_id() == Some(id)) {
            return Some((
                b.log_dir.clone(),
                format!(
                    "{} but {} says the same node id: one broker's dirs, or brokers of two clusters",
                    b.ids(),
                    a.shown()
                ),
            ));
        }
    }
    None
}

/// Refuse to plan from, or replicate between, `dirs` that are not brokers of one cluster
/// ([`not_one_cluster`]), in one line saying what to do, unless `allow` (`--allow-other-cluster`).
pub fn ensure_one_cluster(dirs: &[DirIds], allow: bool) -> Result<()> {
    match not_one_cluster(dirs) {
        Some((path, why)) if !allow => Err(Error::layout(
            path,
            format!(
                "{why}; klog plans and replicates only between distinct brokers of one cluster: name such \
                 dirs (a lab `klog create` makes takes its node id from --replica-id), or add \
                 {ALLOW_OTHER_CLUSTER} to read them together anyway"
            ),
        )),
        _ => Ok(()),
    }
}

/// Refuse a KRaft metadata log whose log dir says another cluster than `dirs` (the metadata
/// records one cluster's leaders, epochs and ISRs), unless `allow`. A metadata log dir and
/// dirs that all record no `cluster.id` are not told apart.
pub fn ensure_metadata_of(metadata_log_dir: &Path, dirs: &[DirIds], allow: bool) -> Result<()> {
    if allow {
        return Ok(());
    }
    let m = DirIds::read(metadata_log_dir);
    let Some(d) = dirs.iter().find(|d| d.cluster_id != m.cluster_id) else { return Ok(()) };
    let of = m.cluster_id.as_deref().map_or("no cluster.id".to_string(), |c| format!("cluster.id {c}"));
    let dir_of = d.cluster_id.as_deref().map_or("no cluster.id".to_string(), |c| format!("cluster.id {c}"));
    Err(Error::layout(
        metadata_log_dir,
        format!(
            "a KRaft metadata log in a dir of {of}, but {} has {dir_of}: the metadata records another \
             cluster's leaders, epochs and ISRs; name that cluster's metadata log, or add \
             {ALLOW_OTHER_CLUSTER} to plan from it anyway",
            d.log_dir.display()
        ),
    ))
}

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
        self.ensure_same_partition_of(other, false)
    }

    /// [`Replica::ensure_same_partition`]; with `allow_other_cluster`, another `cluster.id`
    /// alone is no refusal (`--allow-other-cluster`: the identity check said so already).
    pub fn ensure_same_partition_of(&self, other: &Replica, allow_other_cluster: bool) -> Result<()> {
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
            let other_cluster = self.cluster_id != other.cluster_id;
            if !(allow_other_cluster && other_cluster) {
                return Err(Error::layout(&other.paths.log_dir, why));
            }
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
            "{} and {} are the same replica dir: name two replicas' dirs",
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

    fn ids(dir: &str, cluster_id: Option<&str>, node_id: Option<i32>) -> DirIds {
        DirIds {
            log_dir: PathBuf::from(dir),
            cluster_id: cluster_id.map(Into::into),
            node_id,
            node_id_defaulted: false,
        }
    }

    #[test]
    fn one_cluster_is_one_cluster_id_on_every_dir_or_on_none_and_no_node_id_twice() {
        assert_eq!(not_one_cluster(&[ids("a", Some("c"), Some(1)), ids("b", Some("c"), Some(2))]), None);
        // ZooKeeper brokers before 0.10.1 record no cluster.id: nothing tells them apart.
        assert_eq!(not_one_cluster(&[ids("a", None, Some(1)), ids("b", None, Some(2))]), None);
        assert_eq!(not_one_cluster(&[ids("a", Some("c"), None), ids("b", Some("c"), None)]), None);

        let (path, why) = not_one_cluster(&[ids("a", Some("c1"), Some(1)), ids("b", Some("c2"), Some(2))]).unwrap();
        assert_eq!(path, PathBuf::from("b"));
        assert_eq!(why, "cluster.id c2, node id 2 but a (cluster.id c1, node id 1): dirs of two different clusters");
        // A dir without a cluster.id beside one with: either order.
        for dirs in [
            [ids("a", Some("c1"), Some(1)), ids("b", None, Some(2))],
            [ids("b", None, Some(2)), ids("a", Some("c1"), Some(1))],
        ] {
            let (path, why) = not_one_cluster(&dirs).unwrap();
            assert_eq!(path, PathBuf::from("b"), "{why}");
            assert!(
                why.starts_with("no cluster.id, node id 2 but a (cluster.id c1, node id 1): nothing says"),
                "{why}"
            );
        }
        let (path, why) = not_one_cluster(&[ids("a", None, Some(0)), ids("c", None, Some(0))]).unwrap();
        assert_eq!(path, PathBuf::from("c"));
        assert_eq!(why, "no cluster.id, node id 0 but a (no cluster.id, node id 0) says the same node id: one broker's dirs, or brokers of two clusters");

        let err =
            ensure_one_cluster(&[ids("a", Some("c1"), Some(1)), ids("b", Some("c2"), Some(2))], false).unwrap_err();
        let line = err.to_string();
        assert!(line.starts_with("b: cluster.id c2, node id 2 but a (cluster.id c1, node id 1)"), "{line}");
        assert!(
            line.ends_with("add --allow-other-cluster to read them together anyway") && !line.contains('\n'),
            "{line}"
        );
        assert_eq!(err.exit_code(), 2);
        ensure_one_cluster(&[ids("a", Some("c1"), Some(1)), ids("b", Some("c2"), Some(1))], true).unwrap();
    }

    #[test]
    fn a_node_id_klog_create_wrote_by_default_is_said_by_nobody_and_never_counts_twice() {
        let defaulted =
            |dir: &str, cluster_id: Option<&str>| DirIds { node_id_defaulted: true, ..ids(dir, cluster_id, Some(0)) };
        // Two labs made without --replica-id: node 0 each, by default; one cluster.
        assert_eq!(not_one_cluster(&[defaulted("a", Some("c")), defaulted("b", Some("c"))]), None);
        // Beside a dir that says node 0 (a broker, or --replica-id 0): not said twice either.
        assert_eq!(not_one_cluster(&[ids("a", Some("c"), Some(0)), defaulted("b", Some("c"))]), None);
        // The cluster still counts, and the words say the node id was a default.
        let (path, why) = not_one_cluster(&[ids("a", Some("c1"), Some(1)), defaulted("b", Some("c2"))]).unwrap();
        assert_eq!(path, PathBuf::from("b"));
        assert!(why.starts_with("cluster.id c2, node id 0 by default but a (cluster.id c1, node id 1)"), "{why}");
        assert_eq!(defaulted("a", None).said_node_id(), None);
        assert_eq!(ids("a", None, Some(0)).said_node_id(), Some(0));
    }

    #[test]
    fn a_defaulted_node_id_is_read_from_the_state_file_and_survives_its_rewrites() {
        let tmp = tempfile::tempdir().unwrap();
        let (a, b) =
            (new_log_dir(&tmp.path().join("a"), 0, "demo", 1), new_log_dir(&tmp.path().join("b"), 0, "demo", 1));
        let state = a.join(crate::log::names::KLOG_STATE);
        let mut json: serde_json::Value = serde_json::from_str(&fs::read_to_string(&state).unwrap()).unwrap();
        json["node_id_defaulted"] = serde_json::Value::Bool(true);
        fs::write(&state, json.to_string()).unwrap();
        assert_eq!((DirIds::read(&a).node_id, DirIds::read(&a).said_node_id()), (Some(0), None));
        assert_eq!(DirIds::read(&b).said_node_id(), Some(0), "node.id 0 written without the mark is said");
        let r = Replica::open_for_write(&a, None).unwrap();
        r.save_state().unwrap();
        drop(r);
        assert!(DirIds::of(&Replica::open(&a, None).unwrap()).node_id_defaulted, "the rewrite kept the mark");
        assert_eq!(not_one_cluster(&[DirIds::read(&a), DirIds::read(&b)]), None);
    }

    #[test]
    fn a_metadata_log_of_another_cluster_is_refused_unless_allowed() {
        let tmp = tempfile::tempdir().unwrap();
        let m = tmp.path().join("controller");
        fs::create_dir_all(&m).unwrap();
        fs::write(m.join(META_PROPERTIES), "version=1\nnode.id=3000\ncluster.id=k\n").unwrap();
        ensure_metadata_of(&m, &[ids("a", Some("k"), Some(1)), ids("b", Some("k"), Some(2))], false).unwrap();
        let err = ensure_metadata_of(&m, &[ids("a", Some("k"), Some(1)), ids("b", Some("z"), Some(2))], false)
            .unwrap_err()
            .to_string();
        assert!(err.contains("a dir of cluster.id k, but b has cluster.id z"), "{err}");
        let err = ensure_metadata_of(&m, &[ids("zk", None, Some(0))], false).unwrap_err().to_string();
        assert!(err.contains("cluster.id k, but zk has no cluster.id"), "{err}");
        ensure_metadata_of(&m, &[ids("zk", None, Some(0))], true).unwrap();
        // A metadata dir with no meta.properties beside dirs of a cluster: refused too.
        let bare = tmp.path().join("bare");
        fs::create_dir_all(&bare).unwrap();
        assert!(ensure_metadata_of(&bare, &[ids("a", Some("k"), Some(1))], false).is_err());
        ensure_metadata_of(&bare, &[ids("zk", None, Some(0))], false).unwrap();
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
