//! Pairing two replicas of one partition for a comparison (`diff`, `draw`, and `diff`'s
//! data-dir form): the second opened as the partition the first holds, another topic-partition
//! refused, another cluster or another topic of the same name a warning, so that every
//! comparison refuses and warns about the same pairs. Never writes.

use super::Replica;
use crate::error::Result;
use std::path::Path;

/// Open `path` as the replica compared with `first` (the partition `first` holds, else the one
/// `partition` names) and check the pair: another topic-partition refuses; another cluster or
/// another topic of the same name is a warning, with the second replica called `label`. `diff`
/// and `draw` pair their replicas here, so they refuse the same pairs.
pub fn open_compared(
    first: &Replica,
    path: &Path,
    partition: Option<&str>,
    label: &str,
) -> Result<(Replica, Vec<String>)> {
    let other = Replica::open(path, Some(&first.paths().name())).or_else(|_| Replica::open(path, partition))?;
    if first.paths().topic != other.paths().topic || first.paths().partition != other.paths().partition {
        first.ensure_same_partition(&other)?;
    }
    let warnings = pair_warnings_labelled(first, &other, label);
    Ok((other, warnings))
}

/// Why two replicas of one partition name may not be copies of one partition: another cluster,
/// another topic of that name, or a cluster id only one side records.
pub fn pair_warnings(ra: &Replica, rb: &Replica) -> Vec<String> {
    pair_warnings_labelled(ra, rb, "B")
}

fn pair_warnings_labelled(ra: &Replica, rb: &Replica, label: &str) -> Vec<String> {
    let mut warnings: Vec<String> = ra.foreign_to(rb).map(|w| format!("{label} {w}")).into_iter().collect();
    if let (None, None, Some(id)) = (ra.cluster_id(), rb.cluster_id(), ra.replica_id()) {
        if rb.replica_id() == Some(id) {
            warnings.push(format!(
                "{} and {} both say node id {id}, but neither records a cluster.id: taken as two brokers",
                ra.paths().log_dir.display(),
                rb.paths().log_dir.display()
            ));
        }
    }
    if ra.cluster_id().is_some() != rb.cluster_id().is_some() {
        let (with, without) = if ra.cluster_id().is_some() { (ra, rb) } else { (rb, ra) };
        warnings.push(format!(
            "{} records no cluster.id but {} records {}: nothing says they are one cluster",
            without.paths().log_dir.display(),
            with.paths().log_dir.display(),
            with.cluster_id().unwrap_or_default()
        ));
    }
    warnings
}
