//! A real ZooKeeper-mode Kafka cluster for the random walks (`real_walks.rs`): one ZooKeeper
//! server (node 0) and three brokers (nodes 1-3) on 127.0.0.1, each its own JVM and process
//! group under one temp dir, from the release's Maven classpath (`kafka-oracle/old/pom.xml`;
//! nothing is downloaded at test time). Broker 3 starts first and is the controller; it holds no
//! replica of the walks' topics and is never stopped. The settings are `benches/real-old.sh`'s:
//! 6 s ZooKeeper sessions (a killed or paused broker fails within 6-9 s), and a
//! `replica.lag.time.max.ms` of 20 s, longer than a session: a failed follower leaves the ISR by
//! the controller (at a new leader epoch), never first by the leader's own shrink (no new epoch),
//! whose timing would race it. The controller answers a broker's failure only once its send
//! thread to that broker has stopped, and that thread waits out a request in flight to the dead
//! broker (`removeExistingBroker`, ControllerChannelManager.scala:173@0.11.0.3, the same through
//! 2.8): an UpdateMetadata sent just before a pause (an ISR change propagated a few seconds after
//! it happened) held 0.11.0.3's controller 22 s, past the leader's shrink (kept case
//! tests/real-walks/0.11.0.3-zk-s101.json). The wait is the controller's `request.timeout.ms`
//! (its NetworkClient's, ControllerChannelManager.scala:138@0.11.0.3), 5 s here: the controller
//! acts within 14 s of a pause, the leader's shrink comes after 20 s. A request to a live broker
//! that times out is sent again (ControllerChannelManager.scala:214-236@0.11.0.3), which a broker
//! ignores at an epoch it already has (ReplicaManager.scala:858-862@0.11.0.3); a controlled
//! shutdown's request times out after 5 s too and is tried again after 1 s (3 tries).
//!
//! The controller's record is read where the ZooKeeper controller writes it,
//! `/brokers/topics/T/partitions/0/state` (leader, leader_epoch, isr), by a small ZooKeeper
//! client here; topics are created by writing their znodes as Kafka's own `AdminUtils` /
//! `AdminZkClient` does (config first, then the assignment), which every release reads. The
//! producer is kafka-python (`benches/real_old_client.py`: Kafka's 4.x client cannot talk to
//! brokers before 2.1), one process per produce step.
//!
//! This module judges nothing. [`Brokers`] is what a walk needs of a cluster, KRaft
//! ([`Cluster`]) or ZooKeeper ([`ZkCluster`]).

use crate::common::{copy_broker_dir, missing_input};
use crate::kraft_brokers::Cluster;
use serde_json::{json, Value};
use std::fs::OpenOptions;
use std::io::{Read, Write};
use std::net::TcpStream;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// What a random walk does to a cluster and asks of it.
pub(crate) trait Brokers {
    /// A client command (`create TOPIC BROKERS CONFIG...`, `produce TOPIC PREFIX FROM COUNT`,
    /// `elect TOPIC unclean`): its JSON answers.
    fn kc(&mut self, cmd: &str, args: &[&str]) -> Vec<Value>;
    /// The controller's record of `topic`'s partition 0: leader, leader_epoch, isr, elr,
    /// last_known_elr.
    fn describe(&mut self, topic: &str) -> Value;
    /// Poll [`Brokers::describe`] until `cond` holds (Ok) or `secs` pass (Err: the last view).
    fn wait_for(&mut self, topic: &str, secs: u64, cond: &dyn Fn(&Value) -> bool) -> Result<Value, Value>;
    fn kill(&mut self, ns: &[usize]);
    fn shutdown(&mut self, n: usize) -> bool;
    fn pause(&mut self, n: usize);
    fn resume(&mut self, n: usize);
    fn restart(&mut self, n: usize);
    fn heal(&mut self);
    fn copy(&mut self, n: usize, dest: &Path);
    fn data_dir(&self, n: usize) -> PathBuf;
    fn describe_release(&self) -> String;
    /// Wait (at most `secs`) until broker `leader` has taken leadership of `topic`'s partition 0
    /// at `epoch` itself, not only on the controller's record; false if it did not show it.
    /// KRaft clusters: true (the record is read from the brokers' metadata).
    fn leader_took(&mut self, _topic: &str, _leader: usize, _epoch: i64, _secs: u64) -> bool {
        true
    }
    /// Whether broker `leader`'s log shows it adding `follower` back to `topic`'s ISR after it
    /// took leader epoch `epoch` (`real_walks::rejoin_race`; ZooKeeper mode only).
    fn rejoined_isr(&mut self, _topic: &str, _leader: usize, _follower: usize, _epoch: i64) -> bool {
        false
    }
    /// How many times broker `n`'s ZooKeeper session has expired, by its log (ZooKeeper mode).
    fn session_expiries(&self, _n: usize) -> usize {
        0
    }
    /// How many times the controller has fenced broker `n` for a timed-out session (KRaft).
    /// ZooKeeper clusters: 0 (a kill or pause there waits until the broker's session is gone).
    fn fenced_count(&self, _n: usize) -> usize {
        0
    }
    /// A walk has ended: a broker that stopped itself (a ZooKeeper release whose follower ran
    /// past the leader's end with unclean election off exits, issue 41's point 5) would stop
    /// again on every restart while that topic remains. Its replica of the finished topic goes,
    /// so the next heal brings it back whole. `halts`: the walk's model had a broker stop so
    /// (the broker may log it after the walk's last comparison: wait for it). KRaft: nothing.
    fn forget_walk(&mut self, _halts: bool) {}
    /// A tiered cluster's remote dir and client (`real_tiered_walks.rs`); None otherwise.
    fn tier(&mut self) -> Option<&mut crate::real_tiered_walks::TieredCluster> {
        None
    }
}

impl Brokers for Cluster {
    fn kc(&mut self, cmd: &str, args: &[&str]) -> Vec<Value> {
        Cluster::kc(self, cmd, args)
    }
    fn describe(&mut self, topic: &str) -> Value {
        Cluster::describe(self, topic)
    }
    fn wait_for(&mut self, topic: &str, secs: u64, cond: &dyn Fn(&Value) -> bool) -> Result<Value, Value> {
        Cluster::wait_for(self, topic, secs, cond)
    }
    fn kill(&mut self, ns: &[usize]) {
        Cluster::kill(self, ns)
    }
    fn shutdown(&mut self, n: usize) -> bool {
        Cluster::shutdown(self, n)
    }
    fn pause(&mut self, n: usize) {
        Cluster::pause(self, n)
    }
    fn resume(&mut self, n: usize) {
        Cluster::resume(self, n)
    }
    fn restart(&mut self, n: usize) {
        Cluster::restart(self, n)
    }
    fn heal(&mut self) {
        Cluster::heal(self)
    }
    fn copy(&mut self, n: usize, dest: &Path) {
        Cluster::copy(self, n, dest)
    }
    fn data_dir(&self, n: usize) -> PathBuf {
        Cluster::data_dir(self, n)
    }
    fn describe_release(&self) -> String {
        Cluster::describe_release(self)
    }
    /// The controller's (node 0's) "Fencing broker N [at epoch E] because its session has timed
    /// out." lines (`QuorumController`, 3.9.1 – 4.4.0).
    fn fenced_count(&self, n: usize) -> usize {
        let log = std::fs::read(self.dir.path().join("logs/node0.log")).unwrap_or_default();
        let prefix = format!("Fencing broker {n} ");
        String::from_utf8_lossy(&log)
            .lines()
            .filter(|l| l.contains(&prefix) && l.contains("because its session has timed out"))
            .count()
    }
}

/// The JVM flags of every node (two shared cores).
const JAVA_OPTS: [&str; 5] =
    ["-Xmx256m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1", "-XX:-UsePerfData", "-Djava.awt.headless=true"];

/// The line a broker logs once it has started (every release 0.10 – 3.9).
const STARTED: &str = "started (kafka.server.KafkaServer)";

/// The broker classpath of a ZooKeeper-mode `release`, resolved by `kafka-oracle/old/pom.xml`.
pub(crate) fn zk_classpath(release: &str) -> Option<String> {
    let file = Path::new(env!("CARGO_MANIFEST_DIR")).join(format!("kafka-oracle/old/target/classpath-{release}.txt"));
    match std::fs::read_to_string(&file) {
        Ok(cp) => Some(cp.trim().to_string()),
        Err(_) => {
            missing_input(
                &format!("Kafka {release}'s broker classpath ({})", file.display()),
                &format!("mvn -q -B -f kafka-oracle/old/pom.xml {} package", old_pom_args(release)),
            );
            None
        }
    }
}

/// The Maven properties `kafka-oracle/old/pom.xml` resolves `release` with: its Scala build, and
/// ZooKeeper 3.4.9 for 2.0 – 2.3 (their 3.4.13/14 clients cannot connect on Java 14+).
pub(crate) fn old_pom_args(release: &str) -> String {
    let v: Vec<u32> = release.split('.').filter_map(|p| p.parse().ok()).collect();
    let (major, minor) = (v.first().copied().unwrap_or(0), v.get(1).copied().unwrap_or(0));
    let scala = match (major, minor) {
        (0, _) | (1, 0) => "2.11",
        (1, _) | (2, 0..=7) => "2.12",
        _ => "2.13",
    };
    let zk = if major == 2 && minor <= 3 { " -Dzk=3.4.9" } else { "" };
    format!("-Dscala={scala} -Dkafka={release}{zk}")
}

/// kafka-python, the walks' producer on ZooKeeper clusters.
fn kafka_python() -> bool {
    let ok = Command::new("python3")
        .args(["-c", "import kafka"])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success());
    if !ok {
        missing_input("kafka-python (python3 -c 'import kafka')", "python3 -m pip install kafka-python");
    }
    ok
}

fn signal(child: &Child, sig: i32) {
    // SAFETY: kill(2) on a process group this test started (process_group(0)); no memory.
    unsafe {
        libc::kill(-(child.id() as i32), sig);
    }
}

pub(crate) struct ZkCluster {
    pub(crate) dir: tempfile::TempDir,
    classpath: String,
    pub(crate) release: String,
    /// Broker properties added to every broker's.
    extra: Vec<String>,
    /// ZooKeeper's port, then brokers 1-3's.
    ports: [u16; 4],
    nodes: [Option<Child>; 4],
    seen: [usize; 4],
    paused: [bool; 4],
    _turn: crate::kraft_brokers::Turn,
}

impl ZkCluster {
    /// Start ZooKeeper, broker 3 (the controller), then brokers 1 and 2, and wait until all
    /// three have started. `None` (after saying so) when the classpath or kafka-python is missing.
    pub(crate) fn start(release: &str, extra: &[&str]) -> Option<ZkCluster> {
        let classpath = zk_classpath(release)?;
        if !kafka_python() {
            return None;
        }
        let turn = crate::kraft_brokers::Turn::take(format!(
            "Kafka {release} (ZooKeeper) for {}",
            crate::kraft_brokers::test_name()
        ));
        crate::kraft_brokers::make_room();
        let dir = tempfile::Builder::new().prefix("klog-zk-cluster.").tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join("logs")).unwrap();
        std::fs::create_dir_all(dir.path().join("zk")).unwrap();
        let listeners: Vec<_> = (0..4).map(|_| std::net::TcpListener::bind("127.0.0.1:0").unwrap()).collect();
        let mut ports = [0; 4];
        for (p, l) in ports.iter_mut().zip(&listeners) {
            *p = l.local_addr().unwrap().port();
        }
        drop(listeners);
        let mut c = ZkCluster {
            dir,
            classpath,
            release: release.to_string(),
            extra: extra.iter().map(|e| e.to_string()).collect(),
            ports,
            nodes: [None, None, None, None],
            seen: [0; 4],
            paused: [false; 4],
            _turn: turn,
        };
        std::fs::write(
            c.dir.path().join("log4j.properties"),
            "log4j.rootLogger=INFO, stdout\nlog4j.appender.stdout=org.apache.log4j.ConsoleAppender\n\
             log4j.appender.stdout.layout=org.apache.log4j.PatternLayout\n\
             log4j.appender.stdout.layout.ConversionPattern=[%d] %p %m (%c)%n\n",
        )
        .unwrap();
        for n in 1..4 {
            std::fs::write(c.properties(n), c.properties_text(n)).unwrap();
        }
        c.start_node(0);
        let end = Instant::now() + Duration::from_secs(60);
        while zk_get(c.ports[0], "/").is_err() {
            assert!(Instant::now() < end, "ZooKeeper did not answer within 60 s: {}", c.log_tail(0, 5));
            std::thread::sleep(Duration::from_millis(300));
        }
        c.start_node(3);
        c.wait_started(3);
        for n in 1..3 {
            c.start_node(n);
        }
        for n in 1..3 {
            c.wait_started(n);
        }
        Some(c)
    }

    fn properties(&self, n: usize) -> PathBuf {
        self.dir.path().join(format!("broker{n}.properties"))
    }

    fn log_path(&self, n: usize) -> PathBuf {
        self.dir.path().join(format!("logs/node{n}.log"))
    }

    fn properties_text(&self, n: usize) -> String {
        let p = &self.ports;
        let mut lines = vec![
            format!("broker.id={n}"),
            format!("listeners=PLAINTEXT://127.0.0.1:{}", p[n]),
            format!("advertised.listeners=PLAINTEXT://127.0.0.1:{}", p[n]),
            format!("log.dirs={}", self.data_dir(n).display()),
            format!("zookeeper.connect=127.0.0.1:{}", p[0]),
            "zookeeper.session.timeout.ms=6000".into(),
            "num.network.threads=1".into(),
            "num.io.threads=2".into(),
            "background.threads=2".into(),
            "log.cleaner.enable=false".into(),
            "replica.lag.time.max.ms=20000".into(),
            "request.timeout.ms=5000".into(),
            "replica.fetch.wait.max.ms=200".into(),
            "num.replica.fetchers=1".into(),
            "auto.leader.rebalance.enable=false".into(),
            "auto.create.topics.enable=false".into(),
            "offsets.topic.replication.factor=1".into(),
            "num.partitions=1".into(),
            // A controlled shutdown that cannot move a leader gives up after 3 tries of 1 s.
            "controlled.shutdown.retry.backoff.ms=1000".into(),
            // The recovery point reaches its checkpoint within 1 s (the power-loss cut).
            "log.flush.offset.checkpoint.interval.ms=1000".into(),
        ];
        lines.extend(self.extra.iter().cloned());
        lines.join("\n") + "\n"
    }

    fn log_text(&self, n: usize) -> String {
        String::from_utf8_lossy(&std::fs::read(self.log_path(n)).unwrap_or_default()).into_owned()
    }

    fn log_tail(&self, n: usize, lines: usize) -> String {
        let text = self.log_text(n);
        let all: Vec<_> = text.lines().collect();
        all[all.len().saturating_sub(lines)..].join("\n")
    }

    /// Start node `n` (0: ZooKeeper) in its own process group, its output appended to its log.
    fn start_node(&mut self, n: usize) {
        assert!(self.nodes[n].is_none(), "node {n} is already running");
        self.seen[n] = self.log_text(n).matches(STARTED).count();
        let log = OpenOptions::new().create(true).append(true).open(self.log_path(n)).unwrap();
        let mut cmd = Command::new("java");
        cmd.args(JAVA_OPTS)
            .arg(format!("-Dlog4j.configuration=file:{}", self.dir.path().join("log4j.properties").display()))
            .arg("-cp")
            .arg(&self.classpath)
            .stdin(Stdio::null());
        if n == 0 {
            cmd.arg("org.apache.zookeeper.server.ZooKeeperServerMain")
                .arg(self.ports[0].to_string())
                .arg(self.dir.path().join("zk"));
        } else {
            cmd.arg("kafka.Kafka").arg(self.properties(n));
        }
        cmd.stdout(log.try_clone().unwrap()).stderr(log).process_group(0);
        // Ends with the test process, however it ends (kraft_brokers.rs, `spawn_kept`).
        let child = crate::kraft_brokers::spawn_kept(cmd);
        self.nodes[n] = Some(child);
    }

    fn wait_started(&mut self, n: usize) {
        let end = Instant::now() + Duration::from_secs(90);
        while self.log_text(n).matches(STARTED).count() <= self.seen[n] {
            let child = self.nodes[n].as_mut().expect("node started");
            if let Some(status) = child.try_wait().unwrap() {
                panic!("broker {n} died while starting ({status}): {}", self.log_tail(n, 8));
            }
            assert!(Instant::now() < end, "broker {n} did not start within 90 s: {}", self.log_tail(n, 8));
            std::thread::sleep(Duration::from_millis(300));
        }
    }

    /// Wait (at most 40 s) until broker `n`'s registration is gone: its ZooKeeper session has
    /// expired or closed, so the controller has failed it (and a restart may register again:
    /// a broker whose old registration is still there fails to start).
    fn wait_gone(&mut self, n: usize) {
        let end = Instant::now() + Duration::from_secs(40);
        while !matches!(zk_get(self.ports[0], &format!("/brokers/ids/{n}")), Ok(None)) {
            if Instant::now() >= end {
                eprintln!("broker {n}'s registration was still there after 40 s");
                return;
            }
            std::thread::sleep(Duration::from_millis(300));
        }
    }

    pub(crate) fn alive(&self, n: usize) -> bool {
        self.nodes[n].is_some()
    }

    /// Forget broker `n`'s process if it has exited by itself (a fatal stop), so that it counts
    /// as down and a heal starts it again.
    fn reap(&mut self, n: usize) {
        if self.nodes[n].as_mut().is_some_and(|c| !self.paused[n] && c.try_wait().ok().flatten().is_some()) {
            self.nodes[n] = None;
        }
    }

    /// Wait (at most 30 s) until the controller (broker 3) has logged broker `n` among the brokers
    /// it added (or saw bounce) after byte `mark` of its log (`KafkaController`'s BrokerChange:
    /// "Newly added brokers: 2, deleted brokers: , all live brokers: 1,2,3", 0.10.2 – 3.9). A
    /// topic created before would meet the controller's late handling of `n`'s death: seed 107
    /// of 1.1.1 after a broker that stopped itself came back (epoch 1, ISR [1] at creation).
    fn wait_controller_added(&self, n: usize, mark: usize) {
        let added = |line: &str| {
            let Some(at) = line.find("Newly added brokers: ") else { return false };
            let rest = &line[at..];
            let named = |field: &str| {
                rest.find(field).is_some_and(|i| {
                    let list = &rest[i + field.len()..];
                    let list = &list[..list.find(|c: char| !(c.is_ascii_digit() || c == ',')).unwrap_or(list.len())];
                    list.split(',').any(|id| id == n.to_string())
                })
            };
            named("Newly added brokers: ") || named("bounced brokers: ")
        };
        let end = Instant::now() + Duration::from_secs(30);
        while Instant::now() < end {
            if self.log_text(3).get(mark..).is_some_and(|t| t.lines().any(added)) {
                return;
            }
            std::thread::sleep(Duration::from_millis(200));
        }
        let _ = writeln!(std::io::stderr(), "the controller did not log broker {n} back within 30 s");
    }

    /// The partition broker `n` stopped itself on since it last started, by its log
    /// (`ReplicaFetcherThread`: "Exiting because log truncation is not allowed for partition
    /// T-0, current leader's latest offset ...", 0.11.0 – 2.0.0, and 2.0.1+ with unclean off).
    fn halted_on(&self, n: usize) -> Option<String> {
        const HALT: &str = "Exiting because log truncation is not allowed for partition ";
        let log = self.log_text(n);
        let at = log.rfind(HALT)?;
        if log.rfind(STARTED).is_some_and(|started| started > at) {
            return None;
        }
        let rest = &log[at + HALT.len()..];
        Some(rest[..rest.find(',')?].to_string())
    }

    /// Create `topic` with `brokers` (comma-separated, the first the preferred leader) and the
    /// topic `configs`, by writing its config and assignment znodes; wait (30 s) until the
    /// controller has written its partition state.
    fn create(&mut self, topic: &str, brokers: &str, configs: &[&str]) -> Result<(), String> {
        let replicas: Vec<i64> =
            brokers.split(',').map(|b| b.parse().map_err(|_| format!("broker {b}"))).collect::<Result<_, _>>()?;
        let config: serde_json::Map<String, Value> = configs
            .iter()
            .map(|kv| kv.split_once('=').map(|(k, v)| (k.to_string(), json!(v))).ok_or(format!("config {kv}")))
            .collect::<Result<_, _>>()?;
        let zk = self.ports[0];
        zk_create(zk, &format!("/config/topics/{topic}"), &json!({"version": 1, "config": config}).to_string())?;
        zk_create(
            zk,
            &format!("/brokers/topics/{topic}"),
            &json!({"version": 1, "partitions": {"0": replicas}}).to_string(),
        )?;
        let end = Instant::now() + Duration::from_secs(30);
        while zk_get(zk, &state_path(topic))?.is_none() {
            if Instant::now() >= end {
                return Err(format!("the controller wrote no state for {topic} within 30 s"));
            }
            std::thread::sleep(Duration::from_millis(300));
        }
        Ok(())
    }

    fn produce(&mut self, args: &[&str]) -> Vec<Value> {
        let client = Path::new(env!("CARGO_MANIFEST_DIR")).join("benches/real_old_client.py");
        // The running brokers only: kafka-python may pick a paused broker to bootstrap from,
        // whose kernel accepts the connection and which never answers, and give up on metadata
        // after its 4 s (an "unknown" send that never reached the leader: kept case
        // tests/real-walks/0.11.0.3-zk-s102.json).
        let bootstrap = (1..4)
            .filter(|&n| self.alive(n) && !self.paused[n])
            .map(|n| format!("127.0.0.1:{}", self.ports[n]))
            .collect::<Vec<_>>()
            .join(",");
        let out = Command::new("python3")
            .arg(client)
            .arg("produce")
            .arg(&bootstrap)
            .args(args)
            .stdin(Stdio::null())
            .output()
            .expect("python3 runs");
        let text = String::from_utf8_lossy(&out.stdout);
        let answers: Vec<Value> = text.lines().filter_map(|l| serde_json::from_str(l).ok()).collect();
        if answers.is_empty() {
            return vec![
                json!({"outcome": "unknown", "error": String::from_utf8_lossy(&out.stderr).trim().to_string()}),
            ];
        }
        answers
    }
}

impl Brokers for ZkCluster {
    fn kc(&mut self, cmd: &str, args: &[&str]) -> Vec<Value> {
        match (cmd, args) {
            ("create", [topic, brokers, configs @ ..]) => match self.create(topic, brokers, configs) {
                Ok(()) => vec![json!({"created": topic})],
                Err(e) => vec![json!({"error": e})],
            },
            ("produce", _) => self.produce(args),
            _ => vec![json!({"error": format!("a ZooKeeper cluster has no client command {cmd} {args:?}")})],
        }
    }

    /// The partition state znode: {leader, leader_epoch, isr, elr: [], last_known_elr: []}
    /// (ZooKeeper mode has no ELR), or {"error"} when it cannot be read.
    fn describe(&mut self, topic: &str) -> Value {
        match zk_get(self.ports[0], &state_path(topic)) {
            Ok(Some(data)) => match serde_json::from_slice::<Value>(&data) {
                Ok(v) => json!({
                    "leader": v["leader"],
                    "leader_epoch": v["leader_epoch"],
                    "isr": v["isr"],
                    "elr": [],
                    "last_known_elr": [],
                }),
                Err(e) => json!({"error": format!("{e}: {}", String::from_utf8_lossy(&data))}),
            },
            Ok(None) => json!({"error": "no partition state"}),
            Err(e) => json!({"error": e}),
        }
    }

    fn wait_for(&mut self, topic: &str, secs: u64, cond: &dyn Fn(&Value) -> bool) -> Result<Value, Value> {
        let end = Instant::now() + Duration::from_secs(secs);
        loop {
            let d = self.describe(topic);
            if d.get("leader").is_some() && cond(&d) {
                return Ok(d);
            }
            if Instant::now() >= end {
                return Err(d);
            }
            std::thread::sleep(Duration::from_millis(400));
        }
    }

    fn kill(&mut self, ns: &[usize]) {
        for &n in ns {
            if let Some(c) = &self.nodes[n] {
                signal(c, libc::SIGCONT);
                signal(c, libc::SIGKILL);
            }
        }
        for &n in ns {
            if let Some(mut c) = self.nodes[n].take() {
                let _ = c.wait();
            }
            self.paused[n] = false;
        }
        for &n in ns {
            self.wait_gone(n);
        }
    }

    /// SIGTERM: Kafka's controlled shutdown (the controller moves leadership away), at most 60 s.
    fn shutdown(&mut self, n: usize) -> bool {
        let child = self.nodes[n].as_mut().expect("broker running");
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

    fn pause(&mut self, n: usize) {
        crate::kraft_brokers::stop_and_wait(self.nodes[n].as_ref().expect("broker running"));
        self.paused[n] = true;
        self.wait_gone(n);
    }

    fn resume(&mut self, n: usize) {
        signal(self.nodes[n].as_ref().expect("broker running"), libc::SIGCONT);
        self.paused[n] = false;
    }

    fn restart(&mut self, n: usize) {
        self.start_node(n);
        self.wait_started(n);
    }

    fn forget_walk(&mut self, halts: bool) {
        // Seed 106 of 1.1.1: the follower's fetch from the restarted leader stopped its broker
        // 0.6 s after the walk's last comparison, and the next walk's topic met it down.
        let end = Instant::now() + Duration::from_secs(if halts { 20 } else { 0 });
        while halts && (1..4).all(|n| self.halted_on(n).is_none()) && Instant::now() < end {
            std::thread::sleep(Duration::from_millis(200));
        }
        for n in 1..4 {
            let Some(partition) = self.halted_on(n) else { continue };
            // Its exit runs the broker's shutdown first (a controlled shutdown): wait for it.
            let end = Instant::now() + Duration::from_secs(60);
            while self.nodes[n].as_mut().is_some_and(|c| c.try_wait().ok().flatten().is_none()) && Instant::now() < end
            {
                std::thread::sleep(Duration::from_millis(200));
            }
            self.kill(&[n]);
            let _ = writeln!(
                std::io::stderr(),
                "broker {n} stopped itself on {partition}: its replica of that finished walk's topic goes"
            );
            let _ = std::fs::remove_dir_all(self.data_dir(n).join(&partition));
        }
    }

    fn heal(&mut self) {
        for n in 1..4 {
            self.reap(n);
            if self.alive(n) {
                self.resume(n);
            } else {
                let mark = self.log_text(3).len();
                self.restart(n);
                if n != 3 {
                    self.wait_controller_added(n, mark);
                }
            }
        }
    }

    fn copy(&mut self, n: usize, dest: &Path) {
        let _ = std::fs::remove_dir_all(dest);
        // Stopped while copied (briefly: well within its session, unlike a walk's pause).
        if let Some(c) = self.nodes[n].as_ref().filter(|_| !self.paused[n]) {
            crate::kraft_brokers::stop_and_wait(c);
            copy_broker_dir(&self.data_dir(n), dest);
            signal(c, libc::SIGCONT);
        } else {
            copy_broker_dir(&self.data_dir(n), dest);
        }
    }

    fn data_dir(&self, n: usize) -> PathBuf {
        self.dir.path().join(format!("data{n}"))
    }

    /// The leader's own log line for the epoch (`Partition.makeLeader`: "T-0 starts at Leader
    /// Epoch E from offset", Partition.scala:184@0.11.0.3; "Leader T-0 starts at leader epoch E
    /// from", Partition.scala:574@2.8.2). The controller writes its record to ZooKeeper before the
    /// leader has its LeaderAndIsr: a produce in between meets the leader's old ISR (kept case
    /// tests/real-walks/0.11.0.3-zk-s105.json). 0.10.2 logs no such line: not waited for.
    fn leader_took(&mut self, topic: &str, leader: usize, epoch: i64, secs: u64) -> bool {
        if self.release.starts_with("0.10.") {
            return true;
        }
        let line = format!("{topic}-0 starts at leader epoch {epoch} from");
        let end = Instant::now() + Duration::from_secs(secs);
        loop {
            if self.log_text(leader).to_lowercase().contains(&line) {
                return true;
            }
            if Instant::now() >= end {
                return false;
            }
            std::thread::sleep(Duration::from_millis(200));
        }
    }

    fn session_expiries(&self, n: usize) -> usize {
        session_expiries_in(&self.log_text(n))
    }

    fn rejoined_isr(&mut self, topic: &str, leader: usize, follower: usize, epoch: i64) -> bool {
        crate::real_walks::rejoined_in_log(&self.log_text(leader), topic, follower, epoch)
    }

    fn describe_release(&self) -> String {
        let zk = self.classpath.split(':').find_map(|j| {
            let name = Path::new(j).file_name()?.to_str()?;
            name.strip_prefix("zookeeper-")?
                .strip_suffix(".jar")
                .filter(|v| v.starts_with(|c: char| c.is_ascii_digit()))
        });
        format!(
            "Kafka {} (ZooKeeper mode, ZooKeeper {}, controller broker 3, brokers 1-2 hold the topic)",
            self.release,
            zk.unwrap_or("?")
        )
    }
}

impl Drop for ZkCluster {
    fn drop(&mut self) {
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

fn state_path(topic: &str) -> String {
    format!("/brokers/topics/{topic}/partitions/0/state")
}

// ----------------------------------------------------------------------------------------------
// A ZooKeeper client of two requests (the jute wire format: big-endian, length-prefixed).

/// ZooKeeper's error codes the client expects.
const ZNONODE: i32 = -101;
const ZNODEEXISTS: i32 = -110;

struct Zk {
    s: TcpStream,
    xid: i32,
}

fn put_str(b: &mut Vec<u8>, s: &[u8]) {
    b.extend_from_slice(&(s.len() as i32).to_be_bytes());
    b.extend_from_slice(s);
}

impl Zk {
    /// Connect and open a session (10 s; closed when dropped).
    fn connect(port: u16) -> Result<Zk, String> {
        let s = TcpStream::connect(("127.0.0.1", port)).map_err(|e| format!("ZooKeeper 127.0.0.1:{port}: {e}"))?;
        s.set_read_timeout(Some(Duration::from_secs(5))).unwrap();
        let mut zk = Zk { s, xid: 0 };
        let mut b = Vec::new();
        b.extend_from_slice(&0i32.to_be_bytes()); // protocolVersion
        b.extend_from_slice(&0i64.to_be_bytes()); // lastZxidSeen
        b.extend_from_slice(&10_000i32.to_be_bytes()); // timeOut
        b.extend_from_slice(&0i64.to_be_bytes()); // sessionId
        put_str(&mut b, &[0; 16]); // passwd
        zk.send(&b)?;
        zk.recv()?;
        Ok(zk)
    }

    fn send(&mut self, body: &[u8]) -> Result<(), String> {
        let mut frame = (body.len() as i32).to_be_bytes().to_vec();
        frame.extend_from_slice(body);
        self.s.write_all(&frame).map_err(|e| format!("ZooKeeper: {e}"))
    }

    fn recv(&mut self) -> Result<Vec<u8>, String> {
        let mut len = [0; 4];
        self.s.read_exact(&mut len).map_err(|e| format!("ZooKeeper: {e}"))?;
        let len = i32::from_be_bytes(len);
        if !(0..=1 << 20).contains(&len) {
            return Err(format!("ZooKeeper: a frame of {len} bytes"));
        }
        let mut body = vec![0; len as usize];
        self.s.read_exact(&mut body).map_err(|e| format!("ZooKeeper: {e}"))?;
        Ok(body)
    }

    /// One request of `op` with `body`: the reply's error code and the rest of the reply.
    fn call(&mut self, op: i32, body: &[u8]) -> Result<(i32, Vec<u8>), String> {
        self.xid += 1;
        let mut b = self.xid.to_be_bytes().to_vec();
        b.extend_from_slice(&op.to_be_bytes());
        b.extend_from_slice(body);
        self.send(&b)?;
        loop {
            let r = self.recv()?;
            if r.len() < 16 {
                return Err(format!("ZooKeeper: a reply of {} bytes", r.len()));
            }
            let xid = i32::from_be_bytes(r[0..4].try_into().unwrap());
            if xid != self.xid {
                continue; // a watch event or ping
            }
            let err = i32::from_be_bytes(r[12..16].try_into().unwrap());
            return Ok((err, r[16..].to_vec()));
        }
    }
}

impl Drop for Zk {
    fn drop(&mut self) {
        let _ = self.call(-11, &[]); // closeSession
    }
}

/// The data of znode `path`, `None` when it does not exist.
fn zk_get(port: u16, path: &str) -> Result<Option<Vec<u8>>, String> {
    let mut zk = Zk::connect(port)?;
    let mut b = Vec::new();
    put_str(&mut b, path.as_bytes());
    b.push(0); // no watch
    let (err, r) = zk.call(4, &b)?; // getData
    match err {
        0 => {
            let len = i32::from_be_bytes(r.get(0..4).ok_or("ZooKeeper: a short getData reply")?.try_into().unwrap());
            Ok(Some(r.get(4..4 + len.max(0) as usize).ok_or("ZooKeeper: a short getData reply")?.to_vec()))
        }
        ZNONODE => Ok(None),
        e => Err(format!("ZooKeeper getData {path}: error {e}")),
    }
}

/// Create znode `path` (persistent, open to anyone) holding `data`.
fn zk_create(port: u16, path: &str, data: &str) -> Result<(), String> {
    let mut zk = Zk::connect(port)?;
    let mut b = Vec::new();
    put_str(&mut b, path.as_bytes());
    put_str(&mut b, data.as_bytes());
    b.extend_from_slice(&1i32.to_be_bytes()); // one ACL
    b.extend_from_slice(&31i32.to_be_bytes()); // all permissions
    put_str(&mut b, b"world");
    put_str(&mut b, b"anyone");
    b.extend_from_slice(&0i32.to_be_bytes()); // persistent
    match zk.call(1, &b)? {
        (0, _) => Ok(()),
        (ZNODEEXISTS, _) => Err(format!("ZooKeeper: {path} exists")),
        (e, _) => Err(format!("ZooKeeper create {path}: error {e}")),
    }
}

/// The ZooKeeper session expiries a broker's log shows: "[ZooKeeperClient] Session expired."
/// (ZooKeeperClient.scala:384@1.1.1; "[ZooKeeperClient Kafka server]" on 2.8.2), "zookeeper state
/// changed (Expired)" (ZkClient, 0.10 – 1.0).
pub(crate) fn session_expiries_in(log: &str) -> usize {
    log.matches("] Session expired.").count() + log.matches("zookeeper state changed (Expired)").count()
}

/// 2.8.2 seed 117's broker 1 (issue 41): a session expired under load, and the lines that are
/// not one (the client's reconnect refusal, a wait's exception).
#[test]
fn a_brokers_log_counts_its_zookeeper_session_expiries() {
    let log = "\
[2026-12-07 13:06:49,542] WARN Unable to reconnect to ZooKeeper service, session 0x100020e36f20087 has expired (org.apache.zookeeper.ClientCnxn)
[2026-12-07 13:06:49,543] INFO [ZooKeeperClient Kafka server] Session expired. (kafka.zookeeper.ZooKeeperClient)
[2026-12-07 13:06:50,000] ERROR kafka.zookeeper.ZooKeeperClientExpiredException: Session expired either before or while waiting for connection
[2026-12-07 13:07:15,476] INFO [ZooKeeperClient] Session expired. (kafka.zookeeper.ZooKeeperClient)
[2026-12-07 13:07:20,000] INFO zookeeper state changed (Expired) (org.I0Itec.zkclient.ZkClient)
";
    assert_eq!(session_expiries_in(log), 3);
    assert_eq!(session_expiries_in(""), 0);
}

#[test]
fn old_releases_resolve_with_their_scala_build_and_zookeeper_pin() {
    assert_eq!(old_pom_args("0.10.2.2"), "-Dscala=2.11 -Dkafka=0.10.2.2");
    assert_eq!(old_pom_args("1.1.1"), "-Dscala=2.12 -Dkafka=1.1.1");
    assert_eq!(old_pom_args("2.0.1"), "-Dscala=2.12 -Dkafka=2.0.1 -Dzk=3.4.9");
    assert_eq!(old_pom_args("2.8.2"), "-Dscala=2.13 -Dkafka=2.8.2");
    assert_eq!(old_pom_args("3.9.1"), "-Dscala=2.13 -Dkafka=3.9.1");
}
