//! `klog check`: verify a replica as Kafka's loader and `kafka-dump-log` would. Opens the
//! replica read-only and asks [`crate::replica::check_replica`] (the verifier with the
//! replica's marks, and its summary). Never writes.

use crate::error::Result;
use crate::parallel::ProgressSink;
use crate::replica::{check_replica, CheckReport, Replica};
use std::path::Path;

pub fn run(dir: &Path, partition: Option<&str>, progress: &mut dyn ProgressSink) -> Result<CheckReport> {
    check_replica(Replica::open(dir, partition)?, progress)
}
