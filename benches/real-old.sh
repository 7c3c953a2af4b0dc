#!/usr/bin/env bash
# KIP-101 scenario 1 on a real Kafka 0.10.2 cluster (ZooKeeper), and klog's `--mode hw`
# prediction of the restarted follower's truncation held against what the broker did.
#   bash benches/real-old.sh            (REAL_KEEP=DIR keeps the cluster, copies and logs)
# Needs: java 17, Maven (the broker jars: kafka-oracle/old/pom.xml resolves kafka_2.11 0.10.2.2,
# its ZooKeeper 3.4.9 and javax.xml.bind:jaxb-api from Maven Central), python3 with kafka-python
# (Kafka's 4.x clients cannot talk to brokers before 2.1).
#
# The shape (KIP-101, "Scenario 1: High Watermark Truncation followed by Immediate Leader
# Election"): topic on brokers 1 (leader) and 2, broker 3 the controller (started first, holds
# no replica). m-1 acknowledged and in both HW checkpoints (written every 5 s); m-2
# acknowledged, and broker 2 killed at once (its checkpointed HW is 1, its log end 2); its
# ZooKeeper session (6 s) expires. The leader is frozen (SIGSTOP; its session, 20 s, outlives the
# restart) and broker 2 restarts: told to
# follow 1, it truncates to its HW, and its fetches go unanswered. The leader is killed; once its
# session expires the controller makes 2 the leader (an unclean election: 2 left the ISR when its
# session expired; unclean.leader.election.enable=true, 0.10.2's default, is set on every
# release): on 0.10.2 m-2, acknowledged, is gone; from 0.11 (KIP-101) 2 has kept it.
# klog, on the copies made before 2's restart: `recover --dry-run --mode hw --leader L1 F2`.
set -uo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
cd "$ROOT"
KAFKA=${KAFKA:-0.10.2.2}
SCALA=${SCALA:-2.11}
cargo build --release --quiet || exit 2
K=$ROOT/target/release/klog
CPFILE=$ROOT/kafka-oracle/old/target/classpath-$KAFKA.txt
# ZK=3.4.9 pins the ZooKeeper jar (kafka-oracle/old/pom.xml says why).
[[ -s $CPFILE ]] || mvn -q -B -f kafka-oracle/old/pom.xml -Dscala="$SCALA" -Dkafka="$KAFKA" ${ZK:+-Dzk="$ZK"} package || exit 2
CP=$(cat "$CPFILE")
PY="python3 $ROOT/benches/real_old_client.py"
W=${REAL_KEEP:-$(mktemp -d "${TMPDIR:-/tmp}/klog-old.XXXXXX")}
mkdir -p "$W/logs"
declare -A PID=()
cleanup() {
    local n
    for n in "${!PID[@]}"; do kill -CONT -- "-${PID[$n]}" 2>/dev/null; kill -KILL -- "-${PID[$n]}" 2>/dev/null; done
    wait 2>/dev/null
    [[ -z ${REAL_KEEP:-} ]] && rm -rf "$W"
}
trap cleanup EXIT
trap 'exit 130' INT TERM
JAVA_OPTS="-Xmx256m -XX:+UseSerialGC -XX:TieredStopAtLevel=1 -XX:-UsePerfData -Djava.awt.headless=true"
read -r -a PORT <<<"$(python3 -c '
import socket
ss = [socket.socket() for _ in range(4)]
for s in ss: s.bind(("127.0.0.1", 0))
print(" ".join(str(s.getsockname()[1]) for s in ss))')"
BOOT="127.0.0.1:${PORT[1]},127.0.0.1:${PORT[2]},127.0.0.1:${PORT[3]}"
cat >"$W/log4j.properties" <<'L4J'
log4j.rootLogger=INFO, stdout
log4j.appender.stdout=org.apache.log4j.ConsoleAppender
log4j.appender.stdout.layout=org.apache.log4j.PatternLayout
log4j.appender.stdout.layout.ConversionPattern=[%d] %p %m (%c)%n
L4J
for n in 1 2 3; do
    cat >"$W/broker$n.properties" <<PROPS
broker.id=$n
listeners=PLAINTEXT://127.0.0.1:${PORT[$n]}
advertised.listeners=PLAINTEXT://127.0.0.1:${PORT[$n]}
log.dirs=$W/data$n
zookeeper.connect=127.0.0.1:${PORT[0]}
zookeeper.session.timeout.ms=$([[ $n == 1 ]] && echo 20000 || echo 6000)
num.network.threads=1
num.io.threads=2
background.threads=2
log.cleaner.enable=false
replica.lag.time.max.ms=4000
replica.fetch.wait.max.ms=200
auto.leader.rebalance.enable=false
auto.create.topics.enable=false
unclean.leader.election.enable=true
offsets.topic.replication.factor=1
num.partitions=1
PROPS
done
# start NAME MAIN ARGS...: a JVM in its own process group, output to logs/NAME.log.
start() {
    local name=$1
    shift
    # shellcheck disable=SC2086
    setsid java $JAVA_OPTS -Dlog4j.configuration="file:$W/log4j.properties" -cp "$CP" "$@" \
        >>"$W/logs/$name.log" 2>&1 </dev/null &
    PID[$name]=$!
}
kill9() { kill -KILL -- "-${PID[$1]}" 2>/dev/null; wait "${PID[$1]}" 2>/dev/null; unset "PID[$1]"; }
# wait_log NAME REGEX SECONDS [FROM-LINE]: wait until logs/NAME.log holds REGEX (after line FROM).
wait_log() {
    local end=$(($(date +%s) + $3))
    until tail -n +"$((${4:-0} + 1))" "$W/logs/$1.log" 2>/dev/null | grep -aqE -- "$2"; do
        (($(date +%s) < end)) || { echo "timed out waiting for '$2' in $1: $(tail -3 "$W/logs/$1.log")" >&2; return 1; }
        sleep 0.3
    done
}
describe() { $PY describe "$BOOT" t 2>/dev/null; }
wait_for() {
    local cond=$1 end=$(($(date +%s) + $2)) d
    while (($(date +%s) < end)); do
        d=$(describe)
        [[ -n $d ]] && [[ $(python3 -c 'import json,sys; d=json.loads(sys.argv[1]); print(bool(eval(sys.argv[2])))' "$d" "$cond") == True ]] && { echo "$d"; return 0; }
        sleep 0.5
    done
    echo "timed out waiting for $cond: ${d:-no answer}" >&2
    return 1
}
T0=$(date +%s)
mkdir -p "$W/zk"
start zk org.apache.zookeeper.server.ZooKeeperServerMain "${PORT[0]}" "$W/zk"
sleep 2
start broker3 kafka.Kafka "$W/broker3.properties"
wait_log broker3 "started \\(kafka.server.KafkaServer\\)" 60 || exit 1
start broker1 kafka.Kafka "$W/broker1.properties"
start broker2 kafka.Kafka "$W/broker2.properties"
wait_log broker1 "started \\(kafka.server.KafkaServer\\)" 60 || exit 1
wait_log broker2 "started \\(kafka.server.KafkaServer\\)" 60 || exit 1
echo "Kafka $KAFKA (ZooKeeper $(tr ':' '\n' <"$CPFILE" | grep -o 'zookeeper-[0-9.]*[0-9]' | head -1)) up in $(($(date +%s) - T0)) s on $(java -version 2>&1 | head -1)"
$PY create "$BOOT" t 1,2 min.insync.replicas=1 >"$W/logs/create.log" 2>&1 || { cat "$W/logs/create.log"; exit 1; }
wait_for 'd["leader"]==1 and sorted(d["isr"])==[1,2]' 30 || exit 1
$PY produce "$BOOT" t m 1 1 | tee "$W/acks.jsonl"
sleep 6
$PY produce "$BOOT" t m 2 1 | tee -a "$W/acks.jsonl"
kill9 broker2
cp -a "$W/data2" "$W/f2"
hw=$(grep '^t 0 ' "$W/f2/replication-offset-checkpoint" | cut -d' ' -f3)
leo=$("$K" dump --json --limit 0 --partition t-0 "$W/f2" | python3 -c 'import json,sys; print(json.loads(sys.stdin.readline())["log_end_offset"])')
echo "broker 2 killed; its checkpointed HW ${hw:-none}, log end $leo"
[[ -n $hw ]] && ((hw < leo)) || { echo "not shaped: the follower's checkpointed HW is not below its log end (run again)"; exit 1; }
# Its ZooKeeper session (6 s) expires: the controller (3) drops it from the ISR.
wait_log broker3 "deleted brokers: 2" 30 || exit 1
wait_for '2 not in d["isr"]' 30 || exit 1
kill -STOP -- "-${PID[broker1]}"
cp -a "$W/data1" "$W/l1"
mark=$(wc -l <"$W/logs/broker2.log")
start broker2 kafka.Kafka "$W/broker2.properties"
wait_log broker2 "(Truncating log t-0 to offset|partition=t-0, .*Truncating to offset)" 20 "$mark" 2>/dev/null || echo "broker 2 logged no truncation within 20 s"
kill9 broker1
echo "leader 1 frozen while 2 restarted, then killed; waiting for its ZooKeeper session to expire"
d=$(wait_for 'd["leader"]==2' 60) || exit 1
echo "controller's choice: $d"
sleep 1
kill -STOP -- "-${PID[broker2]}"
cp -a "$W/data2" "$W/final"
kill -CONT -- "-${PID[broker2]}"
echo
echo "== broker 2's own lines about t-0 after its restart"
tail -n +"$((mark + 1))" "$W/logs/broker2.log" | grep -a "t-0" | grep -a -E "Truncat|HW|high watermark" | cut -c1-220
echo "== klog recover --dry-run --mode hw --leader l1 f2 (the copies made before 2's restart)"
"$K" recover --dry-run --mode hw --partition t-0 --leader "$W/l1" "$W/f2" --color never | sed -n '1,/^summary/p'
"$K" recover --dry-run --json --mode hw --partition t-0 --leader "$W/l1" "$W/f2" >"$W/klog-hw.json"
"$K" recover --dry-run --json --mode kip101 --partition t-0 --leader "$W/l1" "$W/f2" >"$W/klog-kip101.json"
"$K" recover --dry-run --json --mode kip279 --partition t-0 --leader "$W/l1" "$W/f2" >"$W/klog-kip279.json"
"$K" dump --json --partition t-0 "$W/f2" >"$W/before.jsonl"
"$K" dump --json --partition t-0 "$W/final" >"$W/final.jsonl"
tail -n +"$((mark + 1))" "$W/logs/broker2.log" | grep -a "t-0" >"$W/truncations.log"
python3 - "$W" "$KAFKA" <<'PY'
import json, re, sys
w = sys.argv[1]
recs = lambda p: {d["offset"]: d["value"] for d in map(json.loads, open(p)) if d.get("type") == "record"}
before, final = recs(f"{w}/before.jsonl"), recs(f"{w}/final.jsonl")
acked = {(d["offset"], d["value"]) for d in map(json.loads, open(f"{w}/acks.jsonl")) if d["outcome"] == "acked"}
# 0.10-1.x: "Truncating log t-0 to offset N."; 2.x: "[Log partition=t-0, dir=...] Truncating to offset N"
cuts = [int(m.group(1)) for l in open(f"{w}/truncations.log", errors="replace") for m in [re.search(r"Truncating (?:log t-0 )?to offset (\d+)", l)] if m]
leo = max(before) + 1 if before else 0
broker_cut = min(cuts + [leo])
removed = {o: v for o, v in before.items() if o >= broker_cut}
gone = sorted((o, v) for o, v in acked if final.get(o) != v)
v = tuple(int(x) for x in sys.argv[2].split(".")[:2])
era = "hw" if v < (0, 11) else "kip101" if v < (2, 0) else "kip279"
print(f"Kafka {sys.argv[2]}: klog's mode for this era is --mode {era}")
for mode in ("hw", "kip101", "kip279"):
    k = json.load(open(f"{w}/klog-{mode}.json"))
    kr = {r["offset"]: r["follower"]["value"] for r in k["records"] if r["class"] in ("truncated_refetchable", "truncated_lost", "acked_lost")}
    agree = k["cut_offset"] == broker_cut and kr == {o: v for o, v in removed.items()}
    print(f"klog --mode {mode}: cut {k['cut_offset']}, removes {kr} -> {'AGREES' if agree else 'differs'} with the broker "
          f"(cut {broker_cut}, its lines {cuts}, removed {removed})")
print(f"acknowledged records gone from the final leader: {gone}")
k = json.load(open(f"{w}/klog-{era}.json"))
kr = {r["offset"]: r["follower"]["value"] for r in k["records"] if r["class"] in ("truncated_refetchable", "truncated_lost", "acked_lost")}
agree = k["cut_offset"] == broker_cut and kr == removed
print(f"RESULT release={sys.argv[2]} sequence=kip101-1 era_mode={era} klog_agreed={'1 of 1' if agree else '0 of 1'} "
      f"broker_cut={broker_cut} acked_gone={[v for _, v in gone]}")
PY
echo "total $(($(date +%s) - T0)) s"
