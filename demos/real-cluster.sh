#!/usr/bin/env bash
# Watch klog explain a failover that a real Kafka just performed.
#
# Starts a Kafka 4.4.0 KRaft cluster on 127.0.0.1 (one controller, three brokers, from
# kafka-oracle's Maven classpath: build it once with
# `mvn -q -B -f kafka-oracle/pom.xml package -DskipTests`), produces with acks=all, forces an
# unclean election (broker 3 fell behind and died; 1 and 2 die; 3 comes back and
# Admin.electLeaders(UNCLEAN) makes it leader), copies the data dirs at that moment, and runs
# klog on the copies: what broker 1 will truncate when it restarts, and which acknowledged
# records are gone. Then it restarts broker 1 and shows what Kafka actually did.
#   KLOG  the klog binary (default: klog on PATH)
#   LAB   keep the cluster and the copies in this dir (default: a temp dir, removed at exit)
set -uo pipefail
KLOG=${KLOG:-klog}
ROOT=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=../kafka-oracle/cluster.sh
source "$ROOT/kafka-oracle/cluster.sh"
[[ -n ${LAB:-} ]] && CLUSTER_KEEP=1
cluster_init "${LAB:+$LAB/cluster}" || exit 2
COPIES=${LAB:-$CLUSTER_DIR}/copies
mkdir -p "$COPIES"
run() { echo "\$ klog $*"; "$KLOG" "$@"; echo; }
say() { echo "# $*"; }
describe() { kc describe t; }
wait_for() {
    local cond=$1 end=$(($(date +%s) + ${2:-30})) d
    while (($(date +%s) < end)); do
        d=$(describe 2>/dev/null)
        [[ -n $d && $(json_get "$d" "bool($1)" 2>/dev/null) == True ]] && { echo "$d"; return 0; }
        sleep 0.5
    done
    echo "timed out waiting for $cond: $d" >&2
    return 1
}
acked() { kc produce t "$@" | python3 -c 'import json,sys
for l in sys.stdin:
    d=json.loads(l); print("  %s -> %s%s" % (d["value"], d["outcome"], " at offset %d" % d["offset"] if "offset" in d else ""))'; }

say "Starting Kafka 4.4.0: controller 0, brokers 1, 2, 3 (logs in $CLUSTER_DIR/logs)"
cluster_up || exit 2
kc create t 1,2,3 min.insync.replicas=1 >/dev/null && wait_for 'd["leader"]==1 and len(d["isr"])==3' >/dev/null || exit 1
say "Topic t: one partition on brokers 1 (leader), 2, 3; acks=all, min.insync.replicas=1"
acked u 0 3
sleep 1
say "kill -9 broker 3; the controller drops it from the ISR"
cluster_kill 3
cluster_copy 3 "$COPIES/broker3"
wait_for '3 not in d["isr"]' >/dev/null || exit 1
acked u 3 3
say "kill -9 broker 2, then broker 1: no in-sync replica is left"
cluster_kill 2
wait_for '2 not in d["isr"]' >/dev/null || exit 1
cluster_kill 1
cluster_copy 1 "$COPIES/broker1"
cluster_restart 3 || exit 1
d=$(wait_for 'd["leader"]==-1') || exit 1
say "broker 3 is back; the controller: $d"
say "Admin.electLeaders(UNCLEAN): $(kc elect t unclean)"
d=$(wait_for 'd["leader"]==3') || exit 1
epoch=$(json_get "$d" 'd["leader_epoch"]')
say "broker 3 leads at epoch $epoch. Copy its data dir while it is paused (SIGSTOP):"
cluster_pause 3
cluster_copy 3 "$COPIES/leader"
cluster_resume 3
echo
say "What will broker 1 do when it restarts as a follower of 3? klog, on the copies:"
run draw --partition t-0 "$COPIES/leader" "$COPIES/broker1"
run recover --dry-run --partition t-0 --leader "$COPIES/leader" --leader-epoch "$epoch" "$COPIES/broker1"
say "Now restart broker 1 for real:"
log_start=$(wc -l <"$CLUSTER_DIR/logs/node1.log")
cluster_restart 1 || exit 1
wait_for '1 in d["isr"]' 60 >/dev/null || exit 1
say "What broker 1 logged about t-0:"
tail -n +"$((log_start + 1))" "$CLUSTER_DIR/logs/node1.log" | grep -a "t-0" | grep -a -E "Truncating|starts at leader epoch" |
    sed -E 's/^\[[^]]*\] //; s/^/  /' | cut -c1-220
cluster_pause 1
cluster_copy 1 "$COPIES/broker1-after"
cluster_resume 1
say "Its log after the restart, next to the leader's:"
run draw --partition t-0 "$COPIES/leader" "$COPIES/broker1-after"
