//! A real Kafka cluster for the real-broker sequences (`real_failovers.rs`): one KRaft controller
//! (node 0) and three brokers (nodes 1-3) on 127.0.0.1, each its own JVM, process group and data
//! dir under one temp dir, started with `java` from kafka-oracle's Maven classpath (nothing is
//! downloaded at test time). The settings are `kafka-oracle/cluster.sh`'s (the script a user
//! runs), plus a 1 s recovery-point checkpoint so a power-loss cut is deterministic. The
//! producer and admin client are `klog.oracle.Cluster serve`, one JVM kept running with its
//! stdin and stdout piped. Dropping the [`Cluster`] kills every process group it started
//! (paused ones are continued first) and removes the temp dir, whatever the test did.
//!
//! Other KRaft releases (`Cluster::start_release`, for `real_walks.rs`) run their brokers and
//! controller from their own classpath (`kafka-oracle/kraft/pom.xml`); the client stays the
//! oracle's.
//!
//! Clusters run in lanes: at most [`lanes`] at once (two by default) in one test process. They
//! are reused: a test's cluster, dropped, is healed and parked, and the next test that
//! starts one from the same recipe (release, features, broker properties) gets it back, with
//! every topic the tests before it made (each test names its own). Every node and the client
//! are spawned from one keeper thread with the parent-death signal set, so a parked cluster
//! ends with the test process.
//!
//! This module judges nothing: it starts, stops, pauses and copies brokers and passes the
//! brokers' answers on. The sequences and the comparison with klog are in `real_failovers.rs`.

use crate::common::{copy_broker_dir, missing_input};
use serde_json::Value;
use std::fs::{File, OpenOptions};
use std::io::{BufRead, BufReader, Write};
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};
use std::time::{Duration, Instant};

/// The JVM flags of every node: small heaps and the client compiler (two shared cores).
const JAVA_OPTS: [&str; 6] = [
    "-Xmx384m",
    "-Xms64m",
    "-XX:+UseSerialGC",
    "-XX:TieredStopAtLevel=1",
    "-XX:-UsePerfData",
    "-Djava.awt.headless=true",
];

/// The line a node logs once it has started (one per incarnation).
const STARTED: &str = "Transition from STARTING to STARTED";

pub struct Cluster {
    pub dir: tempfile::TempDir,
    /// The brokers' and the controller's classpath (the release's own).
    classpath: String,
    /// The producer/admin helper's classpath (the oracle's: Kafka 4.4's Java client).
    client_classpath: String,
    /// The Kafka release the nodes run.
    pub release: String,
    /// Broker properties added to every broker's (`key=value`).
    extra: Vec<String>,
    ports: [u16; 4],
    pub bootstrap: String,
    nodes: [Option<Child>; 4],
    /// How many [`STARTED`] lines each node's log held when it was last started.
    seen: [usize; 4],
    /// Which nodes are stopped with SIGSTOP.
    paused: [bool; 4],
    kc: Option<Kc>,
    /// What it was started from: a later test asking for the same gets it back.
    recipe: Recipe,
    /// Its turn, one of the [`lanes`] of this test process (on two cores, more clusters side
    /// by side slow each other past the sequences' timeouts). Held while a test uses the
    /// cluster (None: parked).
    turn: Option<Turn>,
}

/// What a cluster is started from.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Recipe {
    release: String,
    features: Vec<String>,
    extra: Vec<String>,
}

/// How many clusters may run at once in one test process (`KLOG_REAL_LANES`, default 2): the
/// clusters mostly wait on their own timers (a Kafka-tier run kept the two cores a quarter busy
/// while only they ran), so two side by side take about half the time of one after another.
/// `KLOG_REAL_LANES=1` runs them one at a time.
pub(crate) fn lanes() -> usize {
    std::env::var("KLOG_REAL_LANES").ok().and_then(|v| v.parse().ok()).filter(|&n| n > 0).unwrap_or(2)
}

/// The clusters of this test process: how many turns are held (a test running a cluster, or
/// about to start one), and the clusters tests gave back, healed, for a later test with the
/// same recipe. Held turns and parked clusters together never pass [`lanes`].
struct Pool {
    held: usize,
    parked: Vec<Cluster>,
}

static POOL: (std::sync::Mutex<Pool>, std::sync::Condvar) =
    (std::sync::Mutex::new(Pool { held: 0, parked: Vec::new() }), std::sync::Condvar::new());

fn pool() -> std::sync::MutexGuard<'static, Pool> {
    POOL.0.lock().unwrap_or_else(|e| e.into_inner())
}

/// The parked cluster of `recipe`, if one is parked and still whole (one that is not is ended).
fn take_parked(recipe: &Recipe) -> Option<Cluster> {
    let mut c = {
        let mut p = pool();
        let at = p.parked.iter().position(|c| c.recipe == *recipe)?;
        p.parked.remove(at)
    };
    c.whole().then_some(c)
}

/// End parked clusters (the longest parked first) until the turn just taken has room for a
/// cluster of its own: held turns and parked clusters within [`lanes`]. Call it holding a turn.
pub(crate) fn make_room() {
    loop {
        let ended = {
            let mut p = pool();
            if p.held + p.parked.len() <= lanes() || p.parked.is_empty() {
                return;
            }
            p.parked.remove(0)
        };
        // Its processes end outside the lock (a cluster's end waits for them).
        drop(ended);
    }
}

/// How the processes of a parked cluster (and of every cluster of a test process that is killed)
/// end with the test process: every node and client is spawned by this one thread, which lives as long as the process, with `PR_SET_PDEATHSIG`
/// (the signal follows the spawning thread, so a test's own thread would take its cluster's
/// nodes with it when the test ends).
pub(crate) fn spawn_kept(cmd: Command) -> Child {
    type Ask = (Command, std::sync::mpsc::Sender<std::io::Result<Child>>);
    static KEEPER: std::sync::OnceLock<std::sync::Mutex<std::sync::mpsc::Sender<Ask>>> = std::sync::OnceLock::new();
    let keeper = KEEPER.get_or_init(|| {
        let (tx, rx) = std::sync::mpsc::channel::<Ask>();
        std::thread::Builder::new()
            .name("cluster keeper".into())
            .spawn(move || {
                for (mut cmd, reply) in rx {
                    // SAFETY: prctl is async-signal-safe; it sets this child's parent-death
                    // signal and touches nothing else.
                    unsafe {
                        cmd.pre_exec(|| {
                            libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL);
                            Ok(())
                        });
                    }
                    let _ = reply.send(cmd.spawn());
                }
            })
            .expect("the keeper thread starts");
        std::sync::Mutex::new(tx)
    });
    let (reply, answer) = std::sync::mpsc::channel();
    keeper.lock().unwrap_or_else(|e| e.into_inner()).send((cmd, reply)).expect("the keeper runs");
    answer.recv().expect("the keeper answers").expect("java runs")
}

/// A cluster's turn (one of [`lanes`]): taken before its first node starts, given back after
/// its last node is gone or it is parked. Dropping it says how long the cluster waited for the
/// turn and held it, so a Kafka-tier run shows where its time goes.
pub(crate) struct Turn {
    what: String,
    waited: Duration,
    taken: Instant,
}

impl Turn {
    /// Wait for the turn (given back however its holder ends, a failed test's too).
    pub(crate) fn take(what: String) -> Turn {
        let asked = Instant::now();
        let mut p = pool();
        while p.held >= lanes() {
            p = POOL.1.wait(p).unwrap_or_else(|e| e.into_inner());
        }
        p.held += 1;
        Turn { what, waited: asked.elapsed(), taken: Instant::now() }
    }
}

/// The running test's name (libtest names each test's thread after it).
pub(crate) fn test_name() -> String {
    std::thread::current().name().unwrap_or("a test").to_string()
}

impl Drop for Turn {
    fn drop(&mut self) {
        let _ = writeln!(
            std::io::stderr(),
            "cluster turn: {} held {:.0} s (waited {:.0} s for it)",
            self.what,
            self.taken.elapsed().as_secs_f64(),
            self.waited.as_secs_f64()
        );
        pool().held -= 1;
        POOL.1.notify_all();
    }
}

/// `klog.oracle.Cluster serve`: one command line in, JSON lines out, then `{"done":true}`.
struct Kc {
    child: Child,
    stdin: ChildStdin,
    stdout: BufReader<ChildStdout>,
}

/// kafka-oracle's classpath (its classes first), if it has been built.
pub fn classpath() -> Option<String> {
    let target = Path::new(env!("CARGO_MANIFEST_DIR")).join("kafka-oracle/target");
    // Builds it when Maven is here and it is not built yet (as the load comparisons do).
    let _ = crate::oracle::oracle();
    let cp = std::fs::read_to_string(target.join("classpath.txt")).ok();
    match cp.filter(|_| target.join("classes/klog/oracle/Cluster.class").is_file()) {
        Some(cp) => Some(format!("{}:{}", target.join("classes").display(), cp.trim())),
        None => {
            missing_input(
                "the Kafka oracle's classpath (kafka-oracle/target)",
                "mvn -q -B -f kafka-oracle/pom.xml package",
            );
            None
        }
    }
}

/// The broker classpath of a KRaft `release` other than the oracle's, resolved by
/// `kafka-oracle/kraft/pom.xml` (its `kafka_2.13` and runtime dependencies); the oracle's own
/// for the oracle's release.
pub fn release_classpath(release: &str) -> Option<String> {
    if release == crate::oracle::KAFKA_VERSION {
        return classpath();
    }
    let file = Path::new(env!("CARGO_MANIFEST_DIR")).join(format!("kafka-oracle/kraft/target/classpath-{release}.txt"));
    match std::fs::read_to_string(&file) {
        Ok(cp) => Some(cp.trim().to_string()),
        Err(_) => {
            missing_input(
                &format!("Kafka {release}'s broker classpath ({})", file.display()),
                &format!("mvn -q -B -f kafka-oracle/kraft/pom.xml -Dkafka={release} package"),
            );
            None
        }
    }
}

fn free_ports() -> [u16; 4] {
    let listeners: Vec<_> = (0..4).map(|_| std::net::TcpListener::bind("127.0.0.1:0").expect("a free port")).collect();
    let mut ports = [0; 4];
    for (p, l) in ports.iter_mut().zip(&listeners) {
        *p = l.local_addr().unwrap().port();
    }
    ports
}

fn signal(child: &Child, sig: i32) {
    // SAFETY: kill(2) on the process group this test started (process_group(0) made the
    // child its leader); no memory is involved.
    unsafe {
        libc::kill(-(child.id() as i32), sig);
    }
}

/// SIGSTOP to `child`'s process group, then wait (at most 5 s) until every thread of the
/// process is stopped: the signal reaches a JVM's threads one by one, and a copy taken while
/// one still runs can see a file listed and gone (CI met it in `real_tiered`'s copy, with two
/// clusters side by side).
pub(crate) fn stop_and_wait(child: &Child) {
    signal(child, libc::SIGSTOP);
    let tasks = PathBuf::from(format!("/proc/{}/task", child.id()));
    let end = Instant::now() + Duration::from_secs(5);
    let stopped = |stat: &str| {
        // The state follows the command's closing parenthesis: "T" (stopped) or "t" (traced).
        stat.rsplit_once(')')
            .and_then(|(_, rest)| rest.split_whitespace().next())
            .is_none_or(|st| st == "T" || st == "t")
    };
    while Instant::now() < end {
        let Ok(entries) = std::fs::read_dir(&tasks) else { return };
        let all = entries
            .flatten()
            .all(|t| std::fs::read_to_string(t.path().join("stat")).map_or(true, |stat| stopped(&stat)));
        if all {
            return;
        }
        std::thread::sleep(Duration::from_millis(10));
    }
}

impl Cluster {
    /// Format the four nodes with Kafka's StorageTool, start them and wait until the three
    /// brokers have started; then the producer/admin helper.
    pub fn start() -> Option<Cluster> {
        Cluster::start_with(&[])
    }

    /// [`Cluster::start`] with feature levels set at format time (`--feature name=level`, e.g.
    /// `eligible.leader.replicas.version=0` for a cluster without Eligible Leader Replicas).
    pub fn start_with(features: &[&str]) -> Option<Cluster> {
        Cluster::start_release(crate::oracle::KAFKA_VERSION, features, &[])
    }

    /// [`Cluster::start_with`] on `release`'s brokers and controller (the client stays the
    /// oracle's), with `extra` broker properties.
    pub fn start_release(release: &str, features: &[&str], extra: &[&str]) -> Option<Cluster> {
        let client_classpath = classpath()?;
        let classpath = release_classpath(release)?;
        let turn = Turn::take(format!("Kafka {release} (KRaft) for {}", test_name()));
        let recipe = Recipe {
            release: release.to_string(),
            features: features.iter().map(|f| f.to_string()).collect(),
            extra: extra.iter().map(|e| e.to_string()).collect(),
        };
        if let Some(mut c) = take_parked(&recipe) {
            let _ = writeln!(std::io::stderr(), "cluster reused: {} for {}", c.describe_release(), test_name());
            c.turn = Some(turn);
            return Some(c);
        }
        make_room();
        let dir = tempfile::Builder::new().prefix("klog-cluster.").tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join("logs")).unwrap();
        let ports = free_ports();
        let bootstrap = (1..4).map(|n| format!("127.0.0.1:{}", ports[n])).collect::<Vec<_>>().join(",");
        let mut c = Cluster {
            dir,
            classpath,
            client_classpath,
            release: release.to_string(),
            extra: extra.iter().map(|e| e.to_string()).collect(),
            ports,
            bootstrap,
            nodes: [None, None, None, None],
            seen: [0; 4],
            paused: [false; 4],
            kc: None,
            recipe,
            turn: Some(turn),
        };
        let mut formats = Vec::new();
        for n in 0..4 {
            std::fs::write(c.properties(n), c.properties_text(n)).unwrap();
            let log = File::create(c.dir.path().join(format!("logs/format{n}.log"))).unwrap();
            let child = c
                .java()
                .args(["kafka.tools.StorageTool", "format", "-t", "MkU3OEVBNTcwNTJENDM2Qk", "-c"])
                .arg(c.properties(n))
                .args(features.iter().flat_map(|f| ["--feature", f]))
                .stdout(log.try_clone().unwrap())
                .stderr(log)
                .spawn()
                .expect("java runs");
            formats.push(child);
        }
        for (n, mut f) in formats.into_iter().enumerate() {
            let status = f.wait().unwrap();
            assert!(
                status.success(),
                "StorageTool format failed for node {n}: {}",
                c.log_tail(&format!("format{n}"), 5)
            );
        }
        c.start_node(0);
        std::thread::sleep(Duration::from_secs(1));
        for n in 1..4 {
            c.start_node(n);
        }
        for n in 1..4 {
            c.wait_started(n);
        }
        let mut child = Command::new("java");
        child
            .args(["-Xmx256m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1"])
            .arg("-cp")
            .arg(&c.client_classpath)
            .stdin(Stdio::null());
        child
            .args(["klog.oracle.Cluster", "serve"])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(File::create(c.dir.path().join("logs/kc.log")).unwrap());
        let mut child = spawn_kept(child);
        let stdin = child.stdin.take().unwrap();
        let stdout = BufReader::new(child.stdout.take().unwrap());
        c.kc = Some(Kc { child, stdin, stdout });
        Some(c)
    }

    fn properties(&self, n: usize) -> PathBuf {
        self.dir.path().join(format!("node{n}.properties"))
    }

    pub fn data_dir(&self, n: usize) -> PathBuf {
        self.dir.path().join(format!("data{n}"))
    }

    fn log_path(&self, n: usize) -> PathBuf {
        self.dir.path().join(format!("logs/node{n}.log"))
    }

    fn properties_text(&self, n: usize) -> String {
        let p = &self.ports;
        let mut lines = vec![
            format!("node.id={n}"),
            format!("controller.quorum.voters=0@127.0.0.1:{}", p[0]),
            "controller.listener.names=CONTROLLER".into(),
            "listener.security.protocol.map=CONTROLLER:PLAINTEXT,PLAINTEXT:PLAINTEXT".into(),
            format!("log.dirs={}", self.data_dir(n).display()),
            "num.network.threads=1".into(),
            "num.io.threads=2".into(),
            "background.threads=2".into(),
            "log.cleaner.threads=1".into(),
        ];
        if n == 0 {
            lines.push("process.roles=controller".into());
            lines.push(format!("listeners=CONTROLLER://127.0.0.1:{}", p[0]));
            // A broker that stops heartbeating is fenced (and leaves every ISR) after 4 s.
            lines.push("broker.session.timeout.ms=4000".into());
            // The KRaft controller runs the preferred-leader rebalance (every 5 min by
            // default), not the brokers: off here as on the brokers (a walk on 4.0.2 met it).
            lines.push("auto.leader.rebalance.enable=false".into());
            // The controller refuses `remote.storage.enable=true` topics unless it too has
            // tiered storage enabled (real_tiered.rs).
            lines.extend(self.extra.iter().filter(|e| e.starts_with("remote.log.storage.system.enable=")).cloned());
        } else {
            lines.extend([
                "process.roles=broker".into(),
                format!("listeners=PLAINTEXT://127.0.0.1:{}", p[n]),
                format!("advertised.listeners=PLAINTEXT://127.0.0.1:{}", p[n]),
                "inter.broker.listener.name=PLAINTEXT".into(),
                "broker.heartbeat.interval.ms=500".into(),
                "replica.lag.time.max.ms=4000".into(),
                "replica.fetch.wait.max.ms=200".into(),
                "num.replica.fetchers=1".into(),
                "auto.leader.rebalance.enable=false".into(),
                "auto.create.topics.enable=false".into(),
                "offsets.topic.replication.factor=1".into(),
                "transaction.state.log.replication.factor=1".into(),
                "transaction.state.log.min.isr=1".into(),
                // Three partitions each (not 50): created quickly on first use (real_history.rs).
                "offsets.topic.num.partitions=3".into(),
                "transaction.state.log.num.partitions=3".into(),
                "group.initial.rebalance.delay.ms=0".into(),
                "num.partitions=1".into(),
                // The recovery point (what a flush made durable) reaches its checkpoint within
                // 1 s instead of 60 s: the power-loss sequences cut back to it.
                "log.flush.offset.checkpoint.interval.ms=1000".into(),
                // ... from 1 s after a (re)start, not 30 s (an internal setting, for tests).
                "log.initial.task.delay.ms=1000".into(),
            ]);
            lines.extend(self.extra.iter().cloned());
        }
        lines.join("\n") + "\n"
    }

    fn java(&self) -> Command {
        self.java_with(&JAVA_OPTS)
    }

    fn java_with(&self, opts: &[&str]) -> Command {
        let mut c = Command::new("java");
        c.args(opts).arg("-cp").arg(&self.classpath).stdin(Stdio::null());
        c
    }

    fn log_text(&self, n: usize) -> String {
        String::from_utf8_lossy(&std::fs::read(self.log_path(n)).unwrap_or_default()).into_owned()
    }

    fn log_tail(&self, name: &str, lines: usize) -> String {
        let text = std::fs::read_to_string(self.dir.path().join(format!("logs/{name}.log"))).unwrap_or_default();
        let all: Vec<_> = text.lines().collect();
        all[all.len().saturating_sub(lines)..].join("\n")
    }

    /// Start node `n` in its own process group; its log lines append to logs/nodeN.log.
    pub fn start_node(&mut self, n: usize) {
        assert!(self.nodes[n].is_none(), "node {n} is already running");
        self.seen[n] = self.log_text(n).matches(STARTED).count();
        let log = OpenOptions::new().create(true).append(true).open(self.log_path(n)).unwrap();
        let mut cmd = self.java();
        cmd.arg("kafka.Kafka").arg(self.properties(n)).stdout(log.try_clone().unwrap()).stderr(log).process_group(0);
        self.nodes[n] = Some(spawn_kept(cmd));
    }

    /// Wait (at most 90 s) until node `n` logs that this incarnation started.
    pub fn wait_started(&mut self, n: usize) {
        let end = Instant::now() + Duration::from_secs(90);
        while self.log_text(n).matches(STARTED).count() <= self.seen[n] {
            let child = self.nodes[n].as_mut().expect("node started");
            if let Some(status) = child.try_wait().unwrap() {
                panic!("node {n} died while starting ({status}): {}", self.log_tail(&format!("node{n}"), 8));
            }
            assert!(
                Instant::now() < end,
                "node {n} did not start within 90 s: {}",
                self.log_tail(&format!("node{n}"), 8)
            );
            std::thread::sleep(Duration::from_millis(300));
        }
    }

    /// Start node `n` again and wait until it has started.
    pub fn restart(&mut self, n: usize) {
        self.start_node(n);
        self.wait_started(n);
    }

    pub fn alive(&self, n: usize) -> bool {
        self.nodes[n].is_some()
    }

    /// Every node and the client running, none paused (a parked cluster fit to lend again).
    fn whole(&mut self) -> bool {
        let running = |c: &mut Child| c.try_wait().ok().flatten().is_none();
        self.nodes.iter_mut().all(|c| c.as_mut().is_some_and(running))
            && !self.paused.iter().any(|p| *p)
            && self.kc.as_mut().is_some_and(|kc| running(&mut kc.child))
    }

    /// `kill -9` of each node's process group, all signalled before any is awaited.
    pub fn kill(&mut self, ns: &[usize]) {
        for &n in ns {
            if let Some(c) = &self.nodes[n] {
                signal(c, libc::SIGKILL);
            }
        }
        for &n in ns {
            if let Some(mut c) = self.nodes[n].take() {
                let _ = c.wait();
            }
            self.paused[n] = false;
        }
    }

    pub fn pause(&mut self, n: usize) {
        stop_and_wait(self.nodes[n].as_ref().expect("node running"));
        self.paused[n] = true;
    }

    pub fn resume(&mut self, n: usize) {
        signal(self.nodes[n].as_ref().expect("node running"), libc::SIGCONT);
        self.paused[n] = false;
    }

    /// A controlled shutdown: SIGTERM (Kafka's shutdown hook moves leadership away and closes
    /// the logs cleanly), at most 60 s, then kill -9 of whatever is left. Whether it exited on
    /// its own.
    pub fn shutdown(&mut self, n: usize) -> bool {
        let child = self.nodes[n].as_mut().expect("node running");
        signal(child, libc::SIGTERM);
        let end = Instant::now() + Duration::from_secs(60);
        let mut clean = false;
        while Instant::now() < end {
            if child.try_wait().unwrap().is_some() {
                clean = true;
                break;
            }
            std::thread::sleep(Duration::from_millis(200));
        }
        self.kill(&[n]);
        clean
    }

    /// A consistent copy of node `n`'s data dir: paused while copied if it is running (and
    /// left as it was: a paused node stays paused).
    pub fn copy(&mut self, n: usize, dest: &Path) {
        let _ = std::fs::remove_dir_all(dest);
        if self.alive(n) && !self.paused[n] {
            self.pause(n);
            copy_broker_dir(&self.data_dir(n), dest);
            self.resume(n);
        } else {
            copy_broker_dir(&self.data_dir(n), dest);
        }
    }

    /// Where node `n`'s log ends now (its lines after this belong to what comes next).
    pub fn log_mark(&self, n: usize) -> usize {
        std::fs::metadata(self.log_path(n)).map(|m| m.len() as usize).unwrap_or(0)
    }

    pub fn log_since(&self, n: usize, mark: usize) -> String {
        let bytes = std::fs::read(self.log_path(n)).unwrap_or_default();
        String::from_utf8_lossy(&bytes[mark.min(bytes.len())..]).into_owned()
    }

    /// Send one command to the producer/admin helper without waiting for its answer.
    pub fn kc_send(&mut self, cmd: &str, args: &[&str]) {
        let mut line = vec![cmd, &self.bootstrap];
        line.extend_from_slice(args);
        let kc = self.kc.as_mut().expect("kc running");
        writeln!(kc.stdin, "{}", line.join("\t")).unwrap();
        kc.stdin.flush().unwrap();
    }

    /// The answer to the command sent last: its JSON lines.
    pub fn kc_recv(&mut self) -> Vec<Value> {
        let kc = self.kc.as_mut().expect("kc running");
        let mut out = Vec::new();
        loop {
            let mut line = String::new();
            let read = kc.stdout.read_line(&mut line).unwrap();
            assert!(read > 0, "klog.oracle.Cluster stopped: {}", self.log_tail("kc", 5));
            let line = line.trim();
            if line == r#"{"done":true}"# {
                return out;
            }
            if !line.is_empty() {
                out.push(serde_json::from_str(line).unwrap_or_else(|e| panic!("{e}: {line}")));
            }
        }
    }

    pub fn kc(&mut self, cmd: &str, args: &[&str]) -> Vec<Value> {
        self.kc_send(cmd, args);
        self.kc_recv()
    }

    /// The controller's view of `topic`'s partition 0 (leader, leader_epoch, isr, elr, ...),
    /// or the error the admin client met.
    pub fn describe(&mut self, topic: &str) -> Value {
        self.kc("describe", &[topic]).pop().unwrap_or(Value::Null)
    }

    /// [`Cluster::describe`] of partition `p`.
    pub fn describe_partition(&mut self, topic: &str, p: i32) -> Value {
        self.kc("describe-partition", &[topic, &p.to_string()]).pop().unwrap_or(Value::Null)
    }

    /// Poll [`Cluster::describe`] until `cond` holds (Ok) or `secs` pass (Err: the last view).
    pub fn wait_for(&mut self, topic: &str, secs: u64, cond: impl Fn(&Value) -> bool) -> Result<Value, Value> {
        self.wait_for_partition(topic, 0, secs, cond)
    }

    /// [`Cluster::wait_for`] on partition `p`.
    pub fn wait_for_partition(
        &mut self,
        topic: &str,
        p: i32,
        secs: u64,
        cond: impl Fn(&Value) -> bool,
    ) -> Result<Value, Value> {
        let end = Instant::now() + Duration::from_secs(secs);
        loop {
            let d = if p == 0 { self.describe(topic) } else { self.describe_partition(topic, p) };
            // The leader the epoch came with must be the one Admin named: two brokers' caches
            // that have heard of the same election.
            if d.get("leader").is_some() && d["leader"] == d["metadata_leader"] && cond(&d) {
                return Ok(d);
            }
            if Instant::now() >= end {
                return Err(d);
            }
            std::thread::sleep(Duration::from_millis(400));
        }
    }

    /// Every broker running and none paused (between sequences).
    pub fn heal(&mut self) {
        for n in 1..4 {
            if self.alive(n) {
                self.resume(n);
            } else {
                self.restart(n);
            }
        }
    }

    /// The line Kafka logged about its metadata version and ELR, for the test's output.
    pub fn describe_release(&self) -> String {
        let log = self.log_text(0);
        let elr = log
            .lines()
            .find_map(|l| {
                l.find("eligible.leader.replicas.version to ")
                    .map(|i| l[i..].split_whitespace().take(3).collect::<Vec<_>>().join(" "))
            })
            .unwrap_or_else(|| "eligible.leader.replicas.version not logged".into());
        format!("Kafka {} (KRaft, controller 0, brokers 1-3), {elr}", self.release)
    }
}

impl Drop for Cluster {
    fn drop(&mut self) {
        // A test's cluster, given back whole: healed and parked for the next test (its turn
        // ends here). A test that failed, or asked to keep the dir, ends it.
        let turn = self.turn.take();
        if turn.is_some() && !std::thread::panicking() && std::env::var_os("KLOG_REAL_KEEP").is_none() {
            // A node that cannot come back ends the cluster, not the test that gave it back.
            let healed = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| self.heal())).is_ok();
            if healed && self.whole() {
                let parked = Cluster {
                    dir: std::mem::replace(&mut self.dir, tempfile::tempdir().unwrap()),
                    classpath: std::mem::take(&mut self.classpath),
                    client_classpath: std::mem::take(&mut self.client_classpath),
                    release: std::mem::take(&mut self.release),
                    extra: std::mem::take(&mut self.extra),
                    ports: self.ports,
                    bootstrap: std::mem::take(&mut self.bootstrap),
                    nodes: std::mem::take(&mut self.nodes),
                    seen: self.seen,
                    paused: self.paused,
                    kc: self.kc.take(),
                    recipe: self.recipe.clone(),
                    turn: None,
                };
                pool().parked.push(parked);
                return;
            }
        }
        if let Some(mut kc) = self.kc.take() {
            let _ = kc.child.kill();
            let _ = kc.child.wait();
        }
        for c in self.nodes.iter().flatten() {
            signal(c, libc::SIGCONT);
            signal(c, libc::SIGKILL);
        }
        for c in self.nodes.iter_mut() {
            if let Some(mut c) = c.take() {
                let _ = c.wait();
            }
        }
        if std::env::var_os("KLOG_REAL_KEEP").is_some() {
            let kept = self.dir.path().to_path_buf();
            eprintln!("real cluster kept in {}", kept.display());
            std::mem::forget(std::mem::replace(&mut self.dir, tempfile::tempdir().unwrap()));
        }
    }
}
