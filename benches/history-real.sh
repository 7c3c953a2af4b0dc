#!/usr/bin/env bash
# `klog history` against a real cluster: a scripted sequence of elections on a Kafka 4.4.0 KRaft
# cluster on 127.0.0.1 (kafka-oracle/cluster.sh: controller 0, brokers 1-3), then `klog history`
# on a copy of the controller's data dir must list exactly the elections the script performed,
# each with the leader and leader epoch the controller reported (Admin describeTopics and a
# Metadata request) right after it; and, with every broker's copy beside it (--replica), no
# broker may hold an epoch the controller never granted, nor lack one it led at.
#   bash benches/history-real.sh            (HISTORY_KEEP=DIR keeps the cluster and copies)
# Needs: java 17, kafka-oracle built (mvn -q -B -f kafka-oracle/pom.xml package -DskipTests),
# python3. Prints each step, klog's timeline, and PASS or FAIL (exit 0 or 1; 2 when it cannot run).
set -uo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
cd "$ROOT"
cargo build --release --quiet || exit 2
K=$ROOT/target/release/klog
# shellcheck source=../kafka-oracle/cluster.sh
source "$ROOT/kafka-oracle/cluster.sh"
WORK=${HISTORY_KEEP:-$(mktemp -d "${TMPDIR:-/tmp}/klog-history.XXXXXX")}
[[ -n ${HISTORY_KEEP:-} ]] && CLUSTER_KEEP=1
mkdir -p "$WORK"
cluster_init "$WORK/cluster" || exit 2
[[ -z ${HISTORY_KEEP:-} ]] && trap 'cluster_cleanup; rm -rf "$WORK"' EXIT
echo "starting Kafka 4.4.0 (KRaft: controller 0, brokers 1-3) in $WORK/cluster"
cluster_up || exit 2

describe() { kc describe "$1"; }
wait_for() {
    local t=$1 cond=$2 limit=${3:-40} d
    local end=$(($(date +%s) + limit))
    while (($(date +%s) < end)); do
        d=$(describe "$t" 2>/dev/null)
        if [[ -n $d ]] && [[ $(json_get "$d" "bool($cond)" 2>/dev/null) == True ]]; then
            echo "$d"
            return 0
        fi
        sleep 0.5
    done
    echo "$d"
    return 1
}
EXPECTED="$WORK/expected.jsonl"
: >"$EXPECTED"
# step NAME CONDITION: wait until the controller's view satisfies it; record (leader, epoch).
step() {
    local d
    d=$(wait_for "$T" "$2") || { echo "FAIL: $1: the cluster did not reach $2: $d"; exit 1; }
    echo "  $1: $d"
    printf '{"step":"%s","leader":%s,"leader_epoch":%s}\n' "$1" "$(json_get "$d" 'd["leader"]')" \
        "$(json_get "$d" 'd["leader_epoch"]')" >>"$EXPECTED"
    # three records at each leader epoch, so that the brokers' caches and batch stamps hold them
    kc produce "$T" "e$(json_get "$d" 'd["leader_epoch"]')-" 0 3 >/dev/null
}

T=hist
kc create "$T" 1,2,3 min.insync.replicas=1 >/dev/null || exit 2
step "created" 'd["leader"]==1 and len(d["isr"])==3'
cluster_shutdown 1
step "controlled shutdown of 1" 'd["leader"] in (2,3)'
cluster_restart 1 || exit 2
wait_for "$T" '1 in d["isr"]' 60 >/dev/null || { echo "FAIL: 1 did not rejoin the ISR"; exit 1; }
kc elect "$T" preferred >/dev/null
step "preferred election" 'd["leader"]==1'
cluster_kill 1
step "kill -9 of 1 (fenced by the controller)" 'd["leader"] in (2,3) and 1 not in d["isr"]'
cluster_restart 1 || exit 2
wait_for "$T" '1 in d["isr"]' 60 >/dev/null || { echo "FAIL: 1 did not rejoin the ISR"; exit 1; }
kc elect "$T" preferred >/dev/null
step "preferred election" 'd["leader"]==1'

# Consistent copies: each node paused while copied.
for n in 0 1 2 3; do
    cluster_pause "$n"
    cluster_copy "$n" "$WORK/copy$n"
    cluster_resume "$n"
done
# The controller's and a broker's metadata log and snapshots: klog dump --format kafka against
# DumpLogSegments --cluster-metadata-decoder, line for line (stdout and stderr).
DUMP_AGREE=0 DUMP_TOTAL=0
for f in "$WORK"/copy0/__cluster_metadata-0/*.log "$WORK"/copy0/__cluster_metadata-0/*.checkpoint \
    "$WORK"/copy1/__cluster_metadata-0/*.log "$WORK"/copy1/__cluster_metadata-0/*.checkpoint; do
    [[ -f $f ]] || continue
    DUMP_TOTAL=$((DUMP_TOTAL + 1))
    java -cp "$CLUSTER_CP" klog.oracle.Oracle dump --deep-iteration --print-data-log --cluster-metadata-decoder \
        --files "$f" >"$WORK/kafka.out" 2>"$WORK/kafka.err"
    "$K" dump --format kafka "$f" >"$WORK/klog.out" 2>"$WORK/klog.err"
    if cmp -s "$WORK/kafka.out" "$WORK/klog.out" && cmp -s "$WORK/kafka.err" "$WORK/klog.err"; then
        DUMP_AGREE=$((DUMP_AGREE + 1))
    else
        echo "  DIFFER: $f"
        diff "$WORK/kafka.out" "$WORK/klog.out" | head -4
    fi
done
echo "klog dump --format kafka vs DumpLogSegments --cluster-metadata-decoder: $DUMP_AGREE of $DUMP_TOTAL agree"
[[ $DUMP_AGREE == "$DUMP_TOTAL" ]] || echo "FAIL: metadata dumps differ"
"$K" history "$WORK/copy0" --partition "$T-0" --replica "$WORK/copy1" --replica "$WORK/copy2" \
    --replica "$WORK/copy3" >"$WORK/history.txt" || { echo "FAIL: klog history: $(cat "$WORK/history.txt")"; exit 1; }
sed 's/^/  /' "$WORK/history.txt"
"$K" history "$WORK/copy0" --partition "$T-0" --replica "$WORK/copy1" --replica "$WORK/copy2" \
    --replica "$WORK/copy3" --json >"$WORK/history.jsonl" || exit 1
python3 - "$EXPECTED" "$WORK/history.jsonl" <<'PY'
import json, sys
expected = [json.loads(l) for l in open(sys.argv[1])]
lines = [json.loads(l) for l in open(sys.argv[2])]
elections = [(c["leader"], c["leader_epoch"]) for c in lines if c["type"] == "partition_change"
             and ("created" in c["changed"] or "leader" in c["changed"])]
want = [(e["leader"], e["leader_epoch"]) for e in expected]
problems = []
if elections != want:
    problems.append(f"elections in the metadata {elections} != the ones performed {want}")
for r in (l for l in lines if l["type"] == "replica_epochs"):
    if r["never_granted"] or r["led_but_not_cached"]:
        problems.append(f"broker {r['replica_id']}: never granted {r['never_granted']}, led but not cached {r['led_but_not_cached']}")
replicas = sum(1 for l in lines if l["type"] == "replica_epochs")
if replicas != 3:
    problems.append(f"{replicas} replicas beside the timeline, not 3")
print(f"klog history: {len(elections)} elections, the script performed {len(want)}: "
      + ("PASS" if not problems else "FAIL\n  " + "\n  ".join(problems)))
sys.exit(1 if problems else 0)
PY
HISTORY_OK=$?
[[ $HISTORY_OK == 0 && $DUMP_AGREE == "$DUMP_TOTAL" ]]
