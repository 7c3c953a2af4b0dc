#!/usr/bin/env bash
# KIP-101's two scenarios on a real Kafka cluster of an older release (ZooKeeper mode), and klog's
# prediction of the restarted broker's truncation held against what the broker did.
#   bash benches/real-old.sh                            KIP-101 scenario 1 on 0.10.2.2
#   KAFKA=0.11.0.3 SCALA=2.11 SEQ=kip101-2 bash benches/real-old.sh
#   KAFKA=2.0.1 SCALA=2.12 ZK=3.4.9 ...   (2.0-2.3: pin the ZooKeeper client, see the pom)
#   REAL_KEEP=DIR                                       keep the cluster, copies and logs
#   KAFKA=all bash benches/real-old.sh                  every release and sequence (~15 min)
# The last line, RESULT ..., says whether klog's mode for the release's era (hw before 0.11,
# kip101 before 2.0, kip279 after) predicted the cut, the removed records and the divergence.
# Needs: java 17, Maven (the broker jars: kafka-oracle/old/pom.xml resolves kafka_2.11 0.10.2.2,
# its ZooKeeper 3.4.9 and javax.xml.bind:jaxb-api from Maven Central), python3 with kafka-python
# (Kafka's 4.x clients cannot talk to brokers before 2.1).
#
# SEQ=kip101-1 (KIP-101, "Scenario 1: High Watermark Truncation followed by Immediate Leader
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
# KAFKA=all: every release of the table in docs/checked-against-kafka.md, each sequence, one run each, then the table.
if [[ ${KAFKA:-} == all ]]; then
    T0=$(date +%s)
    results=()
    for spec in 0.10.2.2:2.11: 0.11.0.3:2.11: 1.1.1:2.12: 2.0.1:2.12:3.4.9 2.8.2:2.13: 3.9.1:2.13:; do
        IFS=: read -r k sc zk <<<"$spec"
        for sq in kip101-1 kip101-2 kip279; do
            out=$(KAFKA=$k SCALA=$sc ZK=$zk SEQ=$sq REAL_KEEP= bash "$0" 2>&1)
            r=$(grep -h '^RESULT' <<<"$out") || r="RESULT release=$k sequence=$sq FAILED: $(grep -v '^\[20' <<<"$out" | tail -2 | tr '\n' ' ')"
            echo "$r"
            results+=("$r")
        done
    done
    echo
    printf '%s\n' "${results[@]}" | python3 -c '
import collections, re, sys
rows = collections.OrderedDict()
for l in sys.stdin:
    d = dict(re.findall(r"(\w+)=(\[[^]]*\]|\S+)", l))
    r = rows.setdefault(d["release"], [0, 0, []])
    r[1] += 1
    if "klog_agreed" in d:
        r[0] += d["klog_agreed"] == "1"
        r[2].append("%s: cut %s, diverged %s, acked gone %s" % (d["sequence"], d["broker_cut"], d["diverged"], d["acked_gone"]))
    else:
        r[2].append(d["sequence"] + ": did not run")
for k, (a, m, notes) in rows.items():
    print("%-9s klog agreed %d of %d   %s" % (k, a, m, "; ".join(notes)))'
    echo "total $(($(date +%s) - T0)) s"
    exit 0
fi
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
# Kafka's own TopicCommand through ZooKeeper before 2.2 (kafka-python will not send CreateTopics
# v0-v1 with a replica assignment); kafka-python's CreateTopics after (3.x moved TopicCommand).
if [[ $KAFKA == 0.* || $KAFKA == 1.* || $KAFKA == 2.[01].* ]]; then
    # shellcheck disable=SC2086
    java $JAVA_OPTS -Dlog4j.configuration="file:$W/log4j.properties" -cp "$CP" kafka.admin.TopicCommand \
        --zookeeper "127.0.0.1:${PORT[0]}" --create --topic t --replica-assignment 1:2 \
        --config min.insync.replicas=1 >"$W/logs/create.log" 2>&1
else
    $PY create "$BOOT" t 1,2 min.insync.replicas=1 >"$W/logs/create.log" 2>&1
fi || { cat "$W/logs/create.log"; exit 1; }
wait_for 'd["leader"]==1 and sorted(d["isr"])==[1,2]' 30 || exit 1
snap() { kill -STOP -- "-${PID[$1]}"; rm -rf "$2"; cp -a "$W/data${1#broker}" "$2"; kill -CONT -- "-${PID[$1]}"; }
checkpointed_hw() { grep '^t 0 ' "$1/replication-offset-checkpoint" | cut -d' ' -f3; }
log_end() { "$K" dump --json --limit 0 --partition t-0 "$1" | python3 -c 'import json,sys; print(json.loads(sys.stdin.readline())["log_end_offset"])'; }
TRUNCATING="(Truncating log t-0 to offset|partition=t-0, .*Truncating to offset)"

# Each sequence leaves: F (the restarted broker), mark (its log line count before the restart),
# $W/before and $W/leader (the copies klog predicts from), $W/after (F after the restart) and
# $W/final (the leader at the end).
seq_kip101_1() {
    $PY produce "$BOOT" t m 1 1 | tee "$W/acks.jsonl"
    sleep 6
    $PY produce "$BOOT" t m 2 1 | tee -a "$W/acks.jsonl"
    kill9 broker2
    cp -a "$W/data2" "$W/before"
    local hw leo
    hw=$(checkpointed_hw "$W/before"); leo=$(log_end "$W/before")
    echo "broker 2 killed; its checkpointed HW ${hw:-none}, log end $leo"
    [[ -n $hw ]] && ((hw < leo)) || { echo "not shaped: the follower's checkpointed HW is not below its log end (run again)"; exit 1; }
    # Its ZooKeeper session (6 s) expires: the controller (3) drops it from the ISR.
    wait_log broker3 "deleted brokers: 2" 30 || exit 1
    wait_for '2 not in d["isr"]' 30 || exit 1
    kill -STOP -- "-${PID[broker1]}"
    cp -a "$W/data1" "$W/leader"
    F=2 mark=$(wc -l <"$W/logs/broker2.log")
    start broker2 kafka.Kafka "$W/broker2.properties"
    wait_log broker2 "$TRUNCATING" 20 "$mark" 2>/dev/null || echo "broker 2 logged no truncation within 20 s"
    kill9 broker1
    echo "leader 1 frozen while 2 restarted, then killed; waiting for its ZooKeeper session to expire"
    d=$(wait_for 'd["leader"]==2' 60) || exit 1
    echo "controller's choice: $d"
    sleep 1
    snap broker2 "$W/final"
    cp -a "$W/final" "$W/after"
}

# KIP-101 "Scenario 2: Replica Divergence on Restart after Multiple Hard Failures": m-0 on both;
# 2 dies; m-1 acknowledged by 1 alone and in its HW checkpoint; 1 dies; 2 comes back and is
# elected (unclean), takes m-2 at offset 1; 1 restarts as its follower. On 0.10.2 it truncates
# to its HW 2 and keeps m-1 beside the leader's m-2 (divergence); from 0.11 it truncates to 1.
seq_kip101_2() {
    $PY produce "$BOOT" t m 0 1 | tee "$W/acks.jsonl"
    sleep 1
    kill9 broker2
    wait_log broker3 "deleted brokers: 2" 30 || exit 1
    wait_for '2 not in d["isr"]' 30 || exit 1
    $PY produce "$BOOT" t m 1 1 | tee -a "$W/acks.jsonl"
    sleep 6
    kill9 broker1
    cp -a "$W/data1" "$W/before"
    local hw leo
    hw=$(checkpointed_hw "$W/before"); leo=$(log_end "$W/before")
    echo "broker 1 killed; its checkpointed HW ${hw:-none}, log end $leo"
    [[ $hw == 2 && $leo == 2 ]] || { echo "not shaped: broker 1's checkpointed HW is not its log end 2 (run again)"; exit 1; }
    echo "waiting for broker 1's ZooKeeper session to expire"
    wait_log broker3 "deleted brokers: 1" 40 || exit 1
    local m2
    m2=$(wc -l <"$W/logs/broker2.log")
    start broker2 kafka.Kafka "$W/broker2.properties"
    wait_log broker2 "started \\(kafka.server.KafkaServer\\)" 60 "$m2" || exit 1
    d=$(wait_for 'd["leader"]==2' 60) || exit 1
    echo "controller's choice: $d"
    $PY produce "$BOOT" t m 2 1 | tee -a "$W/acks.jsonl"
    snap broker2 "$W/leader"
    F=1 mark=$(wc -l <"$W/logs/broker1.log")
    start broker1 kafka.Kafka "$W/broker1.properties"
    wait_for '1 in d["isr"]' 60 || exit 1
    sleep 1
    snap broker1 "$W/after"
    snap broker2 "$W/final"
}

# KIP-279's scenario: a-0, a-1 on both; 2 dies; a-2..a-5 acknowledged by 1 alone; 1 dies; 2 is
# elected (unclean) and takes b-2, b-3; 2 dies; 1 is elected (unclean) and takes a-6; 2 restarts
# as its follower. 0.11-1.1 (KIP-101's offset-only answer: epoch 1 ends at 6, above 2's log end 4)
# keep b-2, b-3 beside the leader's a-2, a-3 (divergence); from 2.0 (KIP-279) 2 truncates to 2.
seq_kip279() {
    $PY produce "$BOOT" t a 0 2 | tee "$W/acks.jsonl"
    sleep 1
    local c3
    c3=$(wc -l <"$W/logs/broker3.log")
    kill9 broker2
    wait_log broker3 "deleted brokers: 2" 30 "$c3" || exit 1
    wait_for '2 not in d["isr"]' 30 || exit 1
    $PY produce "$BOOT" t a 2 4 | tee -a "$W/acks.jsonl"
    c3=$(wc -l <"$W/logs/broker3.log")
    kill9 broker1
    echo "waiting for broker 1's ZooKeeper session to expire"
    wait_log broker3 "deleted brokers: 1" 40 "$c3" || exit 1
    local m
    m=$(wc -l <"$W/logs/broker2.log")
    start broker2 kafka.Kafka "$W/broker2.properties"
    wait_log broker2 "started \\(kafka.server.KafkaServer\\)" 60 "$m" || exit 1
    d=$(wait_for 'd["leader"]==2' 60) || exit 1
    echo "controller's choice: $d"
    $PY produce "$BOOT" t b 2 2 | tee -a "$W/acks.jsonl"
    c3=$(wc -l <"$W/logs/broker3.log")
    kill9 broker2
    cp -a "$W/data2" "$W/before"
    wait_log broker3 "deleted brokers: 2" 30 "$c3" || exit 1
    m=$(wc -l <"$W/logs/broker1.log")
    start broker1 kafka.Kafka "$W/broker1.properties"
    wait_log broker1 "started \\(kafka.server.KafkaServer\\)" 60 "$m" || exit 1
    d=$(wait_for 'd["leader"]==1' 60) || exit 1
    echo "controller's choice: $d"
    $PY produce "$BOOT" t a 6 1 | tee -a "$W/acks.jsonl"
    snap broker1 "$W/leader"
    F=2 mark=$(wc -l <"$W/logs/broker2.log")
    start broker2 kafka.Kafka "$W/broker2.properties"
    wait_for '2 in d["isr"]' 60 || exit 1
    sleep 1
    snap broker2 "$W/after"
    snap broker1 "$W/final"
}

SEQ=${SEQ:-kip101-1}
"seq_${SEQ//-/_}"
echo
echo "== broker $F's own lines about t-0 after its restart"
tail -n +"$((mark + 1))" "$W/logs/broker$F.log" | grep -a "t-0" | grep -a -E "Truncat|HW|high watermark" | cut -c1-220
echo "== klog recover --dry-run --mode hw --leader LEADER BEFORE (the copies made before $F's restart)"
"$K" recover --dry-run --mode hw --partition t-0 --leader "$W/leader" "$W/before" --color never | sed -n '1,/^summary/p'
for mode in hw kip101 kip279; do
    "$K" recover --dry-run --json --mode $mode --partition t-0 --leader "$W/leader" "$W/before" >"$W/klog-$mode.json"
done
for c in before after final; do "$K" dump --json --partition t-0 "$W/$c" >"$W/$c.jsonl"; done
tail -n +"$((mark + 1))" "$W/logs/broker$F.log" | grep -a "t-0" >"$W/truncations.log"
python3 - "$W" "$KAFKA" "$SEQ" <<'PY'
import json, re, sys
w, release, seq = sys.argv[1:4]
recs = lambda p: {d["offset"]: d["value"] for d in map(json.loads, open(p)) if d.get("type") == "record"}
before, after, final = recs(f"{w}/before.jsonl"), recs(f"{w}/after.jsonl"), recs(f"{w}/final.jsonl")
acked = {(d["offset"], d["value"]) for d in map(json.loads, open(f"{w}/acks.jsonl")) if d["outcome"] == "acked"}
# 0.10-1.x: "Truncating log t-0 to offset N."; 2.x+: "[Log partition=t-0, dir=...] Truncating to offset N"
cuts = [int(m.group(1)) for l in open(f"{w}/truncations.log", errors="replace") for m in [re.search(r"Truncating (?:log t-0 )?to offset (\d+)", l)] if m]
leo = max(before) + 1 if before else 0
broker_cut = min(cuts + [leo])
removed = {o: v for o, v in before.items() if o >= broker_cut}
diverged = sorted(o for o, v in after.items() if o in final and final[o] != v)
gone = sorted((o, v) for o, v in acked if final.get(o) != v)
v = tuple(int(x) for x in release.split(".")[:2])
era = "hw" if v < (0, 11) else "kip101" if v < (2, 0) else "kip279"
print(f"Kafka {release}: klog's mode for this era is --mode {era}")
verdict = {}
for mode in ("hw", "kip101", "kip279"):
    k = json.load(open(f"{w}/klog-{mode}.json"))
    kr = {r["offset"]: r["follower"]["value"] for r in k["records"] if r["class"] in ("truncated_refetchable", "truncated_lost", "acked_lost")}
    kd = sorted(r["offset"] for r in k["records"] if r["class"] == "diverged")
    verdict[mode] = k["cut_offset"] == broker_cut and kr == removed and kd == diverged
    print(f"klog --mode {mode}: cut {k['cut_offset']}, removes {kr}, diverged {kd} -> {'AGREES' if verdict[mode] else 'differs'} "
          f"with the broker (cut {broker_cut}, its lines {cuts}, removed {removed}, diverged after catching up {diverged})")
print(f"acknowledged records gone from the final leader: {gone}")
print(f"RESULT release={release} sequence={seq} era_mode={era} klog_agreed={int(verdict[era])} of 1 "
      f"broker_cut={broker_cut} diverged={diverged} acked_gone={[v for _, v in gone]}")
PY
echo "total $(($(date +%s) - T0)) s"
