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
# the intended shape and the brokers did what the sequence expects), klog agreed (N of M
# restarted followers: truncation point and removed records, record by record), and acked-lost
# agreed (klog's acked_lost class, which rests on checkpointed HWs, against the producer's acks).
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
    local t=$1 cond=$2 limit=${3:-30} d
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

# kip101-1: KIP-101 scenario 1's shape on 4.4. RF 2 (leader 1, follower 2), min.insync.replicas=1.
# m1 acked and checkpointed; m2 acked, then the follower is killed before its HW checkpoint
# (every 5 s) catches up: its checkpointed HW is below its log end. It restarts as a follower of
# 1 (old Kafka truncated to the HW here and lost m2 when 1 died next); then 1 dies and 2 leads.
# Expected on 4.4: 2 truncates nothing, and no acked record is lost when it leads.
seq_kip101_1() {
    local t=$1 d e hw leo
    kc create "$t" 1,2 min.insync.replicas=1 >/dev/null || return 1
    wait_for "$t" 'd["leader"]==1 and len(d["isr"])==2' >/dev/null || { WHY="no leader 1 with ISR [1,2]"; return 1; }
    [[ $(produce "$t" m 1 1) == 1 ]] || { WHY="m1 not acked"; return 1; }
    sleep 6
    [[ $(produce "$t" m 2 1) == 1 ]] || { WHY="m2 not acked"; return 1; }
    cluster_kill 2
    snapshot 2 f2
    hw=$("$K" dump --json --partition "$t-0" "$SEQ/f2" | head -1 | python3 -c 'import json,sys; print(json.load(sys.stdin)["high_watermark"])')
    leo=$("$K" dump --json --partition "$t-0" "$SEQ/f2" | head -1 | python3 -c 'import json,sys; print(json.load(sys.stdin)["log_end_offset"])')
    ((hw < leo)) || { WHY="follower's checkpointed HW $hw not below its log end $leo"; return 1; }
    d=$(wait_for "$t" 'd["isr"]==[1]') || { WHY="2 did not leave the ISR: $d"; return 1; }
    e=$(json_get "$d" 'd["leader_epoch"]')
    snapshot 1 leader
    log_mark 2
    cluster_restart 2 || { WHY="restart of 2 failed"; return 1; }
    wait_for "$t" '2 in d["isr"]' 60 >/dev/null || { WHY="2 did not rejoin the ISR"; return 1; }
    sleep 1
    snapshot 2 f2-after
    cluster_kill 1
    snapshot 1 f1
    d=$(wait_for "$t" 'd["leader"]==2') || { WHY="2 did not take over: $d"; return 1; }
    snapshot 2 final-leader
    SHAPED=yes; WHY="follower 2 killed with checkpointed HW $hw < log end $leo; then leader 1 killed, 2 leads at epoch $(json_get "$d" 'd["leader_epoch"]')"
    predict_and_compare "$t" "$SEQ/leader" "$SEQ/f2" 2 "$e" "$SEQ/final-leader" "$SEQ/f2-after"
    if grep -q '"acked_missing_from_final_leader": \[\]' "$SEQ/verdicts.jsonl"; then :; else SHAPED=no; WHY="$WHY; an acked record is missing from 2"; fi
}

# unclean: RF 3, min.insync.replicas=1. 3 acked records on all; broker 3 killed; 3 more acked on 1
# and 2; 2 then 1 killed; 3 restarted and made leader by Admin.electLeaders(UNCLEAN); 1 and 2
# restarted. Expected: the 3 later acked records are gone from the final leader, and 1 and 2
# truncate to offset 3.
seq_unclean() {
    local t=$1 d e n
    kc create "$t" 1,2,3 min.insync.replicas=1 >/dev/null || return 1
    wait_for "$t" 'd["leader"]==1 and len(d["isr"])==3' >/dev/null || { WHY="no leader 1 with full ISR"; return 1; }
    [[ $(produce "$t" u 0 3) == 3 ]] || { WHY="first 3 not all acked"; return 1; }
    sleep 1
    cluster_kill 3
    snapshot 3 f3
    wait_for "$t" '3 not in d["isr"]' >/dev/null || { WHY="3 stayed in the ISR"; return 1; }
    [[ $(produce "$t" u 3 3) == 3 ]] || { WHY="second 3 not all acked"; return 1; }
    cluster_kill 2
    wait_for "$t" '2 not in d["isr"]' >/dev/null || { WHY="2 stayed in the ISR"; return 1; }
    cluster_kill 1
    snapshot 1 f1
    snapshot 2 f2
    cluster_restart 3 || { WHY="restart of 3 failed"; return 1; }
    d=$(wait_for "$t" 'd["leader"]==-1') || { WHY="a leader while 1 and 2 are dead: $d"; return 1; }
    echo "    leaderless: $d"
    kc elect "$t" unclean | sed 's/^/    elect unclean: /'
    d=$(wait_for "$t" 'd["leader"]==3') || { WHY="3 not elected: $d"; return 1; }
    e=$(json_get "$d" 'd["leader_epoch"]')
    snapshot 3 leader
    log_mark 1; log_mark 2
    cluster_restart 1 && cluster_restart 2 || { WHY="restart of 1, 2 failed"; return 1; }
    wait_for "$t" '1 in d["isr"] and 2 in d["isr"]' 60 >/dev/null || { WHY="1, 2 did not rejoin the ISR"; return 1; }
    sleep 1
    snapshot 1 f1-after; snapshot 2 f2-after; snapshot 3 final-leader
    SHAPED=yes; WHY="3 elected unclean at epoch $e"
    for n in 1 2; do
        predict_and_compare "$t" "$SEQ/leader" "$SEQ/f$n" "$n" "$e" "$SEQ/final-leader" "$SEQ/f$n-after"
    done
    grep -q '"acked_missing_from_final_leader": \[3, 4, 5\]' "$SEQ/verdicts.jsonl" || { SHAPED=no; WHY="$WHY; acked 3-5 not the ones lost"; }
}

# kill-all: RF 3, min.insync.replicas=2; 5 acked records, then kill -9 of all three brokers at
# once and a restart of all three. Expected: the controller's choice of leader (ELR: the last
# replicas known in sync), nothing acked lost (kill -9 keeps the page cache), no truncation.
seq_kill_all() {
    local t=$1 d e l n
    kc create "$t" 1,2,3 min.insync.replicas=2 >/dev/null || return 1
    wait_for "$t" 'd["leader"]==1 and len(d["isr"])==3' >/dev/null || { WHY="no leader 1 with full ISR"; return 1; }
    [[ $(produce "$t" k 0 5) == 5 ]] || { WHY="first 5 not all acked"; return 1; }
    cluster_kill 1 2 3
    for n in 1 2 3; do snapshot "$n" "f$n"; done
    for n in 1 2 3; do log_mark "$n"; done
    cluster_start 1 2 3
    for n in 1 2 3; do cluster_wait_started "$n" || { WHY="restart of $n failed"; return 1; }; done
    d=$(wait_for "$t" 'd["leader"]!=-1' 40) || { WHY="no leader after the restart: $d"; return 1; }
    echo "    after restart: $d"
    l=$(json_get "$d" 'd["leader"]'); e=$(json_get "$d" 'd["leader_epoch"]')
    snapshot "$l" leader
    wait_for "$t" 'len(d["isr"])==3' 60 >/dev/null || { WHY="ISR not full again"; return 1; }
    sleep 1
    snapshot "$l" final-leader
    SHAPED=yes; WHY="leader $l at epoch $e after all three restarted"
    for n in 1 2 3; do
        [[ $n == "$l" ]] && continue
        snapshot "$n" "f$n-after"
        predict_and_compare "$t" "$SEQ/leader" "$SEQ/f$n" "$n" "$e" "$SEQ/final-leader" "$SEQ/f$n-after"
    done
    grep -q '"acked_missing_from_final_leader": \[[0-9]' "$SEQ/verdicts.jsonl" && { SHAPED=no; WHY="$WHY; an acked record was lost"; }
    true
}

# ---------------------------------------------------------------------------------------------
declare -A RAN=() SHAPED_N=() AGREE_N=() ACKED_N=() CMP_N=()
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
        ACKED_N[$s]=$((${ACKED_N[$s]:-0} + $(grep -c '"acked_agree": true' "$SEQ/verdicts.jsonl")))
        CMP_N[$s]=$((${CMP_N[$s]:-0} + $(wc -l <"$SEQ/verdicts.jsonl")))
        heal || { echo "could not bring the brokers back" >&2; exit 1; }
    done
done

echo
printf '%-12s %5s %7s %12s %20s\n' sequence runs shaped "klog agreed" "acked-lost agreed"
for s in $ONLY; do
    printf '%-12s %5s %7s %12s %20s\n' "$s" "${RAN[$s]:-0}" "${SHAPED_N[$s]:-0}" "${AGREE_N[$s]:-0} of ${CMP_N[$s]:-0}" "${ACKED_N[$s]:-0} of ${CMP_N[$s]:-0}"
done
echo "total $(($(date +%s) - T0)) s (Kafka 4.4.0, KRaft, ELR on)"
