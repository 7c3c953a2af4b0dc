# A real Kafka cluster on 127.0.0.1 for klog's real-failover sequences: one KRaft controller
# (node 0) and three brokers (nodes 1-3), each its own JVM with its own data dir under one temp
# dir, started with `java` from kafka-oracle's Maven classpath (nothing is downloaded here).
# Source this file from bash; it defines cluster_* functions and kc (the producer/admin helper,
# klog.oracle.Cluster, kept running as a coprocess). Everything started is killed (process
# group) and the temp dir removed by cluster_cleanup, which cluster_init installs as an EXIT trap.
#
# Needs: `mvn -q -B -f kafka-oracle/pom.xml package -DskipTests` (kafka-oracle/target/classpath.txt).

CLUSTER_ORACLE_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
CLUSTER_JAVA_OPTS=${CLUSTER_JAVA_OPTS:-"-Xmx384m -Xms64m -XX:+UseSerialGC -XX:TieredStopAtLevel=1 -XX:-UsePerfData -Djava.awt.headless=true"}
declare -A CLUSTER_PID=()
# How many "started" lines each node's log held when it was last started.
declare -A CLUSTER_SEEN=()

cluster_classpath() {
    local cp="$CLUSTER_ORACLE_DIR/target/classpath.txt"
    if [[ ! -s $cp || ! -f $CLUSTER_ORACLE_DIR/target/classes/klog/oracle/Cluster.class ]]; then
        echo "kafka-oracle is not built: mvn -q -B -f kafka-oracle/pom.xml package -DskipTests" >&2
        return 2
    fi
    echo "$CLUSTER_ORACLE_DIR/target/classes:$(cat "$cp")"
}

# cluster_init [DIR]: pick free ports, write each node's properties, format each data dir with
# Kafka's StorageTool. Sets CLUSTER_DIR, CLUSTER_BOOTSTRAP, CLUSTER_PORT[n].
cluster_init() {
    CLUSTER_CP=$(cluster_classpath) || return 2
    CLUSTER_DIR=${1:-$(mktemp -d "${TMPDIR:-/tmp}/klog-cluster.XXXXXX")}
    mkdir -p "$CLUSTER_DIR/logs"
    trap cluster_cleanup EXIT
    trap 'exit 130' INT TERM
    local ports
    ports=$(python3 -c '
import socket
ss = [socket.socket() for _ in range(4)]
for s in ss: s.bind(("127.0.0.1", 0))
print(" ".join(str(s.getsockname()[1]) for s in ss))')
    read -r -a CLUSTER_PORT <<<"$ports"
    CLUSTER_BOOTSTRAP="127.0.0.1:${CLUSTER_PORT[1]},127.0.0.1:${CLUSTER_PORT[2]},127.0.0.1:${CLUSTER_PORT[3]}"
    local id=MkU3OEVBNTcwNTJENDM2Qk
    for n in 0 1 2 3; do
        local p="$CLUSTER_DIR/node$n.properties"
        {
            echo "node.id=$n"
            echo "controller.quorum.voters=0@127.0.0.1:${CLUSTER_PORT[0]}"
            echo "controller.listener.names=CONTROLLER"
            echo "listener.security.protocol.map=CONTROLLER:PLAINTEXT,PLAINTEXT:PLAINTEXT"
            echo "log.dirs=$CLUSTER_DIR/data$n"
            echo "num.network.threads=1"
            echo "num.io.threads=2"
            echo "background.threads=2"
            echo "log.cleaner.threads=1"
            if [[ $n == 0 ]]; then
                echo "process.roles=controller"
                echo "listeners=CONTROLLER://127.0.0.1:${CLUSTER_PORT[0]}"
                # A broker that stops heartbeating is fenced (and leaves every ISR) after 4 s.
                echo "broker.session.timeout.ms=4000"
            else
                echo "process.roles=broker"
                echo "listeners=PLAINTEXT://127.0.0.1:${CLUSTER_PORT[$n]}"
                echo "advertised.listeners=PLAINTEXT://127.0.0.1:${CLUSTER_PORT[$n]}"
                echo "inter.broker.listener.name=PLAINTEXT"
                echo "broker.heartbeat.interval.ms=500"
                echo "replica.lag.time.max.ms=4000"
                echo "replica.fetch.wait.max.ms=200"
                echo "num.replica.fetchers=1"
                echo "auto.leader.rebalance.enable=false"
                echo "auto.create.topics.enable=false"
                echo "offsets.topic.replication.factor=1"
                echo "transaction.state.log.replication.factor=1"
                echo "transaction.state.log.min.isr=1"
                echo "group.initial.rebalance.delay.ms=0"
                echo "num.partitions=1"
            fi
        } >"$p"
        # shellcheck disable=SC2086
        java $CLUSTER_JAVA_OPTS -cp "$CLUSTER_CP" kafka.tools.StorageTool format -t "$id" -c "$p" \
            >"$CLUSTER_DIR/logs/format$n.log" 2>&1 || {
            echo "StorageTool format failed for node $n: $(tail -3 "$CLUSTER_DIR/logs/format$n.log")" >&2
            return 2
        }
    done
}

# cluster_start N...: start nodes (0 = the controller) in their own process groups; their log
# lines (an SLF4J provider is on the classpath) append to $CLUSTER_DIR/logs/nodeN.log.
cluster_start() {
    local n
    for n in "$@"; do
        CLUSTER_SEEN[$n]=$(grep -c "Transition from STARTING to STARTED" "$CLUSTER_DIR/logs/node$n.log" 2>/dev/null || true)
        # shellcheck disable=SC2086
        setsid java $CLUSTER_JAVA_OPTS -cp "$CLUSTER_CP" kafka.Kafka "$CLUSTER_DIR/node$n.properties" \
            >>"$CLUSTER_DIR/logs/node$n.log" 2>&1 </dev/null &
        CLUSTER_PID[$n]=$!
    done
}

# cluster_wait_started N [SECONDS]: wait until node N logs that it started (this incarnation).
cluster_wait_started() {
    local n=$1 limit=${2:-90} waited=0 log="$CLUSTER_DIR/logs/node$1.log"
    until [[ $(grep -c "Transition from STARTING to STARTED" "$log" 2>/dev/null) -gt ${CLUSTER_SEEN[$n]} ]]; do
        if ! kill -0 "${CLUSTER_PID[$n]}" 2>/dev/null; then
            echo "node $n died while starting: $(tail -5 "$log")" >&2
            return 1
        fi
        sleep 0.5
        waited=$((waited + 1))
        if ((waited > limit * 2)); then
            echo "node $n did not start within ${limit}s" >&2
            return 1
        fi
    done
}

# cluster_up: start the controller and the three brokers and wait for them; starts kc.
cluster_up() {
    cluster_start 0 || return 1
    sleep 1
    cluster_start 1 2 3 || return 1
    local n
    for n in 1 2 3; do cluster_wait_started "$n" || return 1; done
    kc_start
}

# cluster_restart N: start node N again and wait until it has started.
cluster_restart() {
    cluster_start "$1" && cluster_wait_started "$1"
}

# cluster_kill N...: kill -9 each node's process group (all signalled before any is awaited).
cluster_kill() {
    local n
    for n in "$@"; do kill -KILL -- "-${CLUSTER_PID[$n]}" 2>/dev/null; done
    for n in "$@"; do wait "${CLUSTER_PID[$n]}" 2>/dev/null; done
    true
}
cluster_pause() { kill -STOP -- "-${CLUSTER_PID[$1]}"; }
cluster_resume() { kill -CONT -- "-${CLUSTER_PID[$1]}"; }
# A controlled shutdown (SIGTERM: Kafka's shutdown hook moves leadership away first).
cluster_shutdown() {
    kill -TERM -- "-${CLUSTER_PID[$1]}" 2>/dev/null
    local i
    for i in $(seq 1 120); do
        kill -0 "${CLUSTER_PID[$1]}" 2>/dev/null || break
        sleep 0.5
    done
    cluster_kill "$1"
}
cluster_alive() { kill -0 "${CLUSTER_PID[$1]}" 2>/dev/null; }

# cluster_copy N DEST: copy node N's data dir; the node must be paused or dead (a consistent copy).
cluster_copy() {
    rm -rf "$2"
    cp -a --sparse=always "$CLUSTER_DIR/data$1" "$2"
}

cluster_cleanup() {
    local n
    if [[ -n ${KC_PID:-} ]]; then
        exec 7>&- 8<&-
        kill -KILL "$KC_PID" 2>/dev/null
    fi
    for n in "${!CLUSTER_PID[@]}"; do
        kill -CONT -- "-${CLUSTER_PID[$n]}" 2>/dev/null
        kill -KILL -- "-${CLUSTER_PID[$n]}" 2>/dev/null
    done
    wait 2>/dev/null
    if [[ -n ${CLUSTER_DIR:-} && -z ${CLUSTER_KEEP:-} ]]; then rm -rf "$CLUSTER_DIR"; fi
    CLUSTER_PID=()
}

# kc_start: the producer/admin helper (klog.oracle.Cluster serve), reached through two FIFOs on
# fds 7 (commands) and 8 (answers) so that subshells ($(kc ...)) can use it too.
kc_start() {
    mkfifo "$CLUSTER_DIR/kc.in" "$CLUSTER_DIR/kc.out"
    # shellcheck disable=SC2086
    java -Xmx256m -XX:+UseSerialGC -XX:TieredStopAtLevel=1 -cp "$CLUSTER_CP" klog.oracle.Cluster serve \
        <"$CLUSTER_DIR/kc.in" >"$CLUSTER_DIR/kc.out" 2>>"$CLUSTER_DIR/logs/kc.log" &
    KC_PID=$!
    exec 7>"$CLUSTER_DIR/kc.in" 8<"$CLUSTER_DIR/kc.out"
}

# kc CMD ARGS...: one command of klog.oracle.Cluster (BOOTSTRAP filled in); prints its JSON lines.
kc() {
    local cmd=$1
    shift
    local line
    line=$(printf '%s\t' "$cmd" "$CLUSTER_BOOTSTRAP" "$@")
    printf '%s\n' "${line%$'\t'}" >&7
    while IFS= read -r line <&8; do
        [[ $line == '{"done":true}' ]] && return 0
        printf '%s\n' "$line"
    done
    echo "klog.oracle.Cluster stopped: $(tail -3 "$CLUSTER_DIR/logs/kc.log")" >&2
    return 1
}

# jq-free JSON field reads with python3: json_get JSON EXPR (EXPR in Python over `d`).
json_get() { python3 -c 'import json,sys; d=json.loads(sys.argv[1]); print(eval(sys.argv[2]))' "$1" "$2"; }
