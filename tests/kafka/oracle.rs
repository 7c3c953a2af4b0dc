//! The Kafka oracle from the tests' side: run `kafka-oracle/` (Kafka's own loader,
//! `DumpLogSegments` and index writers, pinned to one release) and parse what it printed. The
//! oracle judges nothing; the comparisons in `oracle_*` modules do. Every call batches its
//! cases into one JVM (a JVM per case would cost minutes), and every dir handed to it must be a
//! copy: Kafka's loader rewrites what it recovers and its index classes create missing files.
//!
//! The oracle is built by `.ci/run` (`mvn -f kafka-oracle/pom.xml package`), or by the first
//! test that needs it when Maven is on the PATH; without it these tests skip, and under
//! `KLOG_CI` they fail.

use crate::common::missing_input;
use std::path::{Path, PathBuf};
use std::process::Command;

/// The Kafka release the oracle runs (kafka-oracle/pom.xml's `kafka.version`).
pub const KAFKA_VERSION: &str = "4.4.0";

/// Build the oracle once per test run if it is not built and Maven is here (`.ci/run` builds it
/// first; this makes `cargo test --test kafka` on a machine with Java and Maven run the comparisons
/// too). A failed build leaves it missing, which the caller reports.
fn build_once(root: &Path) {
    static BUILT: std::sync::OnceLock<()> = std::sync::OnceLock::new();
    BUILT.get_or_init(|| {
        if root.join("classpath.txt").is_file() && !sources_newer_than(root) {
            return;
        }
        let pom = Path::new(env!("CARGO_MANIFEST_DIR")).join("kafka-oracle/pom.xml");
        let _ = Command::new("mvn").args(["-q", "-B", "-f"]).arg(&pom).args(["package", "-DskipTests"]).output();
    });
}

/// Whether a source of the oracle (its pom or a Java file) changed after the last build: a
/// stale build would run old probes against new tests.
fn sources_newer_than(root: &Path) -> bool {
    // The compiled classes are what a build renews (Maven leaves an unchanged classpath.txt).
    let classes = std::fs::read_dir(root.join("classes/klog/oracle"));
    let built =
        classes.ok().and_then(|d| d.flatten().filter_map(|e| e.metadata().and_then(|m| m.modified()).ok()).min());
    let Some(built) = built else { return true };
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("kafka-oracle");
    let mut files = vec![src.join("pom.xml")];
    if let Ok(dir) = std::fs::read_dir(src.join("src/main/java/klog/oracle")) {
        files.extend(dir.flatten().map(|e| e.path()));
    }
    files.iter().any(|f| std::fs::metadata(f).and_then(|m| m.modified()).is_ok_and(|m| m > built))
}

/// The `java` command line that runs the oracle, if it has been built.
pub fn oracle() -> Option<Command> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("kafka-oracle/target");
    build_once(&root);
    let classpath = std::fs::read_to_string(root.join("classpath.txt")).ok();
    let Some(classpath) = classpath.filter(|_| root.join("classes/klog/oracle/Oracle.class").is_file()) else {
        missing_input("the Kafka oracle (kafka-oracle/target)", "mvn -q -B -f kafka-oracle/pom.xml package");
        return None;
    };
    let mut c = Command::new("java");
    c.arg("-Xmx1g").arg("-cp").arg(format!("{}:{}", root.join("classes").display(), classpath.trim()));
    c.arg("klog.oracle.Oracle");
    Some(c)
}

/// Run the oracle with `args`; its stdout as JSON lines.
fn run(args: &[&str]) -> Option<Vec<serde_json::Value>> {
    let mut c = oracle()?;
    let out = c.args(args).output().expect("java runs");
    assert!(out.status.success(), "the Kafka oracle failed ({:?}): {}", args, String::from_utf8_lossy(&out.stderr));
    let text = String::from_utf8(out.stdout).expect("utf-8 oracle output");
    Some(text.lines().filter(|l| !l.is_empty()).map(|l| serde_json::from_str(l).expect("oracle JSON")).collect())
}

/// What `DumpLogSegments` printed for one argument list.
#[derive(Debug, Clone)]
pub struct Dumped {
    pub stdout: String,
    pub stderr: String,
    /// The exception that ended the run (`Class: message`), if any.
    pub error: Option<String>,
}

/// Run `DumpLogSegments` once per argument list, all in one JVM. `scratch` holds the manifest.
pub fn dump_batch(scratch: &Path, cases: &[Vec<String>]) -> Option<Vec<Dumped>> {
    let manifest = scratch.join("dump-manifest.tsv");
    let text: String = cases.iter().map(|c| c.join("\t") + "\n").collect();
    std::fs::write(&manifest, text).unwrap();
    let out = run(&["dump-batch", manifest.to_str().unwrap()])?;
    assert_eq!(out.len(), cases.len(), "one oracle answer per dump case");
    Some(
        out.into_iter()
            .map(|v| Dumped {
                stdout: v["stdout"].as_str().unwrap().to_string(),
                stderr: v["stderr"].as_str().unwrap().to_string(),
                error: v["error"].as_str().map(str::to_string),
            })
            .collect(),
    )
}

/// One log dir to load, with per-topic config overrides (`topic:key=value`).
pub struct LoadCase {
    pub dir: PathBuf,
    pub overrides: Vec<String>,
}

/// Load each dir as a starting broker's `LogManager.loadLogs` does (and the metadata log as
/// `KafkaRaftLog.createLog` does), all in one JVM; one JSON document per dir, in order.
pub fn load_batch(scratch: &Path, cases: &[LoadCase]) -> Option<Vec<serde_json::Value>> {
    dir_batch(scratch, "load", cases)
}

/// Run Kafka's leader code on each case (`klog.oracle.TxnLeader`): a partition dir and the file
/// of steps to run on it (appends as leader, HW, DeleteRecords, rolls, a stop), all in one JVM;
/// per case, what the running leader held before the stop.
pub fn txn_leader_batch(scratch: &Path, cases: &[(PathBuf, PathBuf)]) -> Option<Vec<serde_json::Value>> {
    let manifest = scratch.join("txn-leader-manifest.tsv");
    let text: String = cases.iter().map(|(d, o)| format!("{}\t{}\n", d.display(), o.display())).collect();
    std::fs::write(&manifest, text).unwrap();
    let out = run(&["txn-leader-batch", manifest.to_str().unwrap()])?;
    assert_eq!(out.len(), cases.len(), "one oracle answer per txn-leader case");
    Some(out)
}

/// The JDK's `HashMap` iteration order for each history (`klog.oracle.HashMapOrder`: a line
/// `L|S step...`), all in one JVM: the keys in order, per history.
pub fn hash_map_order_batch(scratch: &Path, histories: &[String]) -> Option<Vec<Vec<String>>> {
    let file = scratch.join("hash-map-histories.txt");
    std::fs::write(&file, histories.join("\n") + "\n").unwrap();
    let out = run(&["hash-map-order", file.to_str().unwrap()])?;
    assert_eq!(out.len(), histories.len(), "one oracle answer per history");
    Some(
        out.into_iter()
            .map(|v| v.as_array().unwrap().iter().map(|k| k.as_str().unwrap().to_string()).collect())
            .collect(),
    )
}

/// Delete every partition's `.index`, `.timeindex` and `.snapshot` and the clean-shutdown
/// marker in `dir` (a copy), and let Kafka rebuild them in place and shut down cleanly.
pub fn rebuild(dir: &Path) -> Option<serde_json::Value> {
    run(&["rebuild", dir.to_str().unwrap()]).map(|mut v| v.remove(0))
}

/// [`rebuild`] for each dir (each a copy), with its per-topic config overrides, all in one
/// JVM; one JSON document per dir, in order.
pub fn rebuild_batch(scratch: &Path, cases: &[LoadCase]) -> Option<Vec<serde_json::Value>> {
    dir_batch(scratch, "rebuild", cases)
}

/// Run `<what>-batch` over a manifest of dirs with their overrides.
fn dir_batch(scratch: &Path, what: &str, cases: &[LoadCase]) -> Option<Vec<serde_json::Value>> {
    let manifest = scratch.join(format!("{what}-manifest.tsv"));
    let text: String = cases
        .iter()
        .map(|c| {
            let mut f = vec![c.dir.to_str().unwrap().to_string()];
            f.extend(c.overrides.iter().cloned());
            f.join("\t") + "\n"
        })
        .collect();
    std::fs::write(&manifest, text).unwrap();
    let out = run(&[&format!("{what}-batch"), manifest.to_str().unwrap()])?;
    assert_eq!(out.len(), cases.len(), "one oracle answer per {what} case");
    Some(out)
}

/// Kafka's readers of `meta.properties` (`MetaProperties`, and `MetaPropertiesEnsemble.verify`
/// as a starting broker with node id `node_id` runs it) and of each `partition.metadata`
/// (`PartitionMetadataFile`), for each (dir, node id), all in one JVM.
pub fn meta_batch(scratch: &Path, cases: &[(PathBuf, i32)]) -> Option<Vec<serde_json::Value>> {
    let manifest = scratch.join("meta-manifest.tsv");
    let text: String = cases.iter().map(|(d, n)| format!("{}\t{n}\n", d.to_str().unwrap())).collect();
    std::fs::write(&manifest, text).unwrap();
    let out = run(&["meta-batch", manifest.to_str().unwrap()])?;
    assert_eq!(out.len(), cases.len(), "one oracle answer per meta case");
    Some(out)
}

/// `N of M` agreement line every comparison prints, so a run shows its figures.
pub fn report_agreement(what: &str, agree: usize, total: usize) {
    use std::io::Write;
    let _ = writeln!(std::io::stderr(), "oracle {what}: {agree} of {total} agree with Kafka {KAFKA_VERSION}");
}
