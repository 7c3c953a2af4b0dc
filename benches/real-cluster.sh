#!/usr/bin/env bash
# Real failovers on real brokers: scripted failure sequences on a Kafka 4.4.0 KRaft cluster on
# 127.0.0.1 (kafka-oracle/cluster.sh: one controller, three brokers), and klog's prediction of
# each follower truncation held against what the brokers did. Run from anywhere:
#   bash benches/real-cluster.sh            every sequence once
#   REAL_RUNS=3 bash benches/real-cluster.sh    each sequence three times (how often it shapes)
#   REAL_ONLY="clean unclean" ...           only these sequences
#   REAL_KEEP=DIR ...                       keep the cluster, copies and reports in DIR
# Needs: java 17, kafka-oracle built (mvn -q -B -f kafka-oracle/pom.xml package -DskipTests),
# python3. Prints one line per run and a summary table: sequence, runs, shaped (the failure took
# the intended shape and the brokers did what the sequence expects), klog agreed (N of M).
#
# For each follower that the sequence restarts, the comparison is: on the copies made at the
# decision point (the follower killed, the leader paused), `klog recover --dry-run --leader
# LEADER FOLLOWER --mode kip279 --leader-epoch E` (E and LEADER from the controller, via a
# Metadata request) predicts the offset the follower truncates to and the records it removes;
# the brokers' answer is the follower's "Truncating to offset" log lines after its restart (none
# = no truncation) and its data dir after it caught up (klog dump --json), record by record; and
# the acknowledged records missing from the final leader.
set -uo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
cd "$ROOT"
cargo build --release --quiet || exit 2
K=$ROOT/target/release/klog
# shellcheck source=../kafka-oracle/cluster.sh
source "$ROOT/kafka-oracle/cluster.sh"
RUNS=${REAL_RUNS:-1}
ONLY=${REAL_ONLY:-"clean kip101-1 unclean kill-all"}
WORK=${REAL_KEEP:-$(mktemp -d "${TMPDIR:-/tmp}/klog-real.XXXXXX")}
[[ -n ${REAL_KEEP:-} ]] && CLUSTER_KEEP=1
mkdir -p "$WORK"
T0=$(date +%s)
cluster_init "$WORK/cluster" || exit 2
[[ -z ${REAL_KEEP:-} ]] && trap 'cluster_cleanup; rm -rf "$WORK"' EXIT
echo "starting Kafka 4.4.0 (KRaft: controller 0, brokers 1-3) in $WORK/cluster"
cluster_up || exit 2
echo "cluster up in $(($(date +%s) - T0)) s; $(grep -ho 'eligible.leader.replicas.version to [0-9]*' "$CLUSTER_DIR/logs/node0.log" | head -1)"

# ---------------------------------------------------------------------------------------------
# Helpers

# describe TOPIC: the controller's view (leader, leader_epoch, isr, elr, ...) as one JSON line.
describe() { kc describe "$1"; }
# wait_for TOPIC PYTHON-CONDITION [SECONDS]: poll describe until the condition over d holds.
wait_for() {
    local t=$1 cond=$2 limit=${3:-30} i d
    for ((i = 0; i < limit * 2; i++)); do
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
# produce TOPIC PREFIX FROM COUNT: send and append each answer to $SEQ/acks.jsonl.
produce() { kc produce "$@" | tee -a "$SEQ/acks.jsonl" | grep -c '"acked"'; }
# snapshot N NAME: a consistent copy of broker N's data dir (paused while copied if running).
snapshot() {
    if cluster_alive "$1"; then
        cluster_pause "$1"
        cluster_copy "$1" "$SEQ/$2"
        cluster_resume "$1"
    else
        cluster_copy "$1" "$SEQ/$2"
    fi
}
# log_mark N: remember where broker N's log ends (its lines after this belong to the restart).
log_mark() { wc -l <"$CLUSTER_DIR/logs/node$1.log" >"$SEQ/mark$1"; }
log_since_mark() { tail -n +"$(($(cat "$SEQ/mark$1") + 1))" "$CLUSTER_DIR/logs/node$1.log"; }
# heal: every broker running and unpaused (between sequences).
heal() {
    local n
    for n in 1 2 3; do
        if cluster_alive "$n"; then cluster_resume "$n"; else cluster_restart "$n" || return 1; fi
    done
}

# predict_and_compare TOPIC LEADER_COPY FOLLOWER_COPY FOLLOWER_ID EPOCH FINAL_LEADER_COPY FOLLOWER_AFTER_COPY
# Runs klog on the copies and compares with the broker's log lines and dirs; prints one line
# and appends {"agree": bool, ...} to $SEQ/verdicts.jsonl.
predict_and_compare() {
    local topic=$1 lcopy=$2 fcopy=$3 fid=$4 epoch=$5 final=$6 fafter=$7
    "$K" recover --dry-run --json --mode kip279 --partition "$topic-0" --leader "$lcopy" \
        ${epoch:+--leader-epoch "$epoch"} "$fcopy" >"$SEQ/klog-$fid.json" 2>"$SEQ/klog-$fid.err"
    "$K" dump --json --partition "$topic-0" "$fcopy" >"$SEQ/before-$fid.jsonl" 2>&1
    "$K" dump --json --partition "$topic-0" "$fafter" >"$SEQ/after-$fid.jsonl" 2>&1
    "$K" dump --json --partition "$topic-0" "$final" >"$SEQ/final-leader.jsonl" 2>&1
    log_since_mark "$fid" | grep -a "$topic-0" | grep -a -i "truncat" >"$SEQ/truncations-$fid.log"
    python3 "$ROOT/benches/real_cluster_compare.py" "$SEQ" "$fid" "$topic" | tee -a "$SEQ/verdicts.jsonl" |
        python3 -c 'import json,sys
for l in sys.stdin:
    d=json.loads(l); print("    klog vs broker %s: %s  %s" % (d["follower"], "AGREE" if d["agree"] else "DIFFER", d["summary"]))'
}

# ---------------------------------------------------------------------------------------------
# Sequences. Each sets SHAPED (yes/no, with $WHY) and calls predict_and_compare per follower.

# clean: RF 3, min.insync.replicas=2; kill -9 the leader, a clean election, 5 more acked
# records, restart the old leader. Expected: nothing acked lost, no truncation below the old
# leader's log end (it held only committed records).
seq_clean() {
    local t=$1 d l e
    kc create "$t" 1,2,3 min.insync.replicas=2 >/dev/null || return 1
    wait_for "$t" 'd["leader"]==1 and len(d["isr"])==3' >/dev/null || { WHY="no leader 1 with full ISR"; return 1; }
    [[ $(produce "$t" v 0 5) == 5 ]] || { WHY="first 5 not all acked"; return 1; }
    cluster_kill 1
    snapshot 1 f1
    d=$(wait_for "$t" 'd["leader"] in (2,3) and 1 not in d["isr"]') || { WHY="no clean election: $d"; return 1; }
    [[ $(produce "$t" v 5 5) == 5 ]] || { WHY="second 5 not all acked"; return 1; }
    d=$(describe "$t"); l=$(json_get "$d" 'd["leader"]'); e=$(json_get "$d" 'd["leader_epoch"]')
    snapshot "$l" leader
    log_mark 1
    cluster_restart 1 || { WHY="restart of 1 failed"; return 1; }
    wait_for "$t" '1 in d["isr"]' 60 >/dev/null || { WHY="1 did not rejoin the ISR"; return 1; }
    sleep 1
    snapshot 1 f1-after
    snapshot "$l" final-leader
    SHAPED=yes; WHY="leader 1 -> $l at epoch $e"
    predict_and_compare "$t" "$SEQ/leader" "$SEQ/f1" 1 "$e" "$SEQ/final-leader" "$SEQ/f1-after"
}

# ---------------------------------------------------------------------------------------------
declare -A RAN=() SHAPED_N=() AGREE_N=() CMP_N=()
for run in $(seq "$RUNS"); do
    for s in $ONLY; do
        SEQ="$WORK/$s-$run"
        mkdir -p "$SEQ"
        : >"$SEQ/verdicts.jsonl"
        SHAPED=no; WHY=""
        t0=$(date +%s)
        echo "== $s (run $run)"
        "seq_${s//-/_}" "${s//-/}$run"
        echo "    shaped: $SHAPED ($WHY), $(($(date +%s) - t0)) s"
        RAN[$s]=$((${RAN[$s]:-0} + 1))
        [[ $SHAPED == yes ]] && SHAPED_N[$s]=$((${SHAPED_N[$s]:-0} + 1))
        AGREE_N[$s]=$((${AGREE_N[$s]:-0} + $(grep -c '"agree": true' "$SEQ/verdicts.jsonl")))
        CMP_N[$s]=$((${CMP_N[$s]:-0} + $(wc -l <"$SEQ/verdicts.jsonl")))
        heal || { echo "could not bring the brokers back" >&2; exit 1; }
    done
done

echo
printf '%-12s %5s %8s %14s\n' sequence runs shaped "klog agreed"
for s in $ONLY; do
    printf '%-12s %5s %8s %14s\n' "$s" "${RAN[$s]:-0}" "${SHAPED_N[$s]:-0}" "${AGREE_N[$s]:-0} of ${CMP_N[$s]:-0}"
done
echo "total $(($(date +%s) - T0)) s (Kafka 4.4.0, KRaft, ELR on)"
