#!/usr/bin/env bash
# klog txn at scale in open transactions (issue 46, point 4): one partition holding 10,000 /
# 50,000 / 100,000 open transactions (one transactional batch from each of as many producers,
# no marker), beside a `__transaction_state-0` holding as many transactional.ids, one per
# producer (examples/txn_dir.rs writes both). Three forms are timed at each size: the
# single-partition form (`klog txn DIR --partition orders-0`: the replay, the broker's view,
# the LSO), the data-dir form (`klog txn DIR`: the same, then every open transaction matched to
# its transactional.id) and `--format kafka` (describe-producers and find-hanging's tables).
# Each row prints the cpu seconds (user + sys) and the wall seconds at each size, each the best
# of 3 runs (the machine is shared, and a 10,000 run takes tens of ms), and the ratios of
# 100,000 to 10,000; linear work is about 10x, quadratic about 100x. Target: at most 12x in cpu
# time (pass/FAIL on each row; the wall ratio is printed beside it, and moves with the load).
# Run from anywhere:  bash benches/txn-scale.sh
#   BENCH_DIR=DIR    scratch dir (default: a new dir under /var/tmp, removed at the end)
#   BENCH_QUICK=1    sizes / 10 (for trying the harness; the target is for the full run)
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --release --quiet
cargo build --release --quiet --example txn_dir
K=$PWD/target/release/klog
GEN=$PWD/target/release/examples/txn_dir
WORK=${BENCH_DIR:-$(mktemp -d /var/tmp/klog-txn-scale.XXXXXX)}
[ -n "${BENCH_DIR:-}" ] || trap 'rm -rf "$WORK"' EXIT
mkdir -p "$WORK"
if [ -n "${BENCH_QUICK:-}" ]; then SIZES=(1000 5000 10000); else SIZES=(10000 50000 100000); fi
SMALL=${SIZES[0]}; LARGE=${SIZES[2]}

for n in "${SIZES[@]}"; do
  d=$WORK/T$n; rm -rf "$d"
  "$K" create "$d" --replica-id 1 --topic orders >/dev/null
  "$K" create "$d" --replica-id 1 --topic __transaction_state >/dev/null
  rm "$d/klog-state.json"   # a broker's dir: txn forecasts the broker's load of it
  "$GEN" "$d" "$n"
done

# seconds CMD...: run once, stdout to /dev/null; "wall cpu" seconds (cpu: user + sys of the
# process, the work it did, whatever else the machine runs). Exit 0 or 1 (1: findings) only.
seconds() {
  local t0 t1 rc=0 cpu
  t0=$(date +%s.%N)
  cpu=$( { TIMEFORMAT='%U %S'; time "$@" >/dev/null 2>&1 || echo "rc $?" >&2; } 2>&1 )
  t1=$(date +%s.%N)
  case $cpu in *"rc "[2-9]*|*"rc "[1-9][0-9]*) echo "klog failed: $* ($cpu)" >&2; exit 2 ;; esac
  cpu=${cpu##*$'\n'}
  awk -v a="$t0" -v b="$t1" -v c="$cpu" 'BEGIN { split(c, u, " "); printf "%.3f %.3f", b - a, u[1] + u[2] }'
}
# best_of_3 CMD...: the smallest wall and the smallest cpu seconds of three runs.
best_of_3() {
  for _ in 1 2 3; do seconds "$@"; echo; done |
    awk 'NR == 1 || $1 < w { w = $1 } NR == 1 || $2 < c { c = $2 } END { printf "%.3f %.3f\n", w, c }'
}

verdict=pass
echo "klog txn, open transactions in one partition: ${SIZES[*]} (target: $LARGE takes <= 12x the cpu time of $SMALL)"
for form in "partition:--partition orders-0" "data-dir:" "kafka:--format kafka"; do
  label=${form%%:*}; read -ra extra <<< "${form#*:}"
  declare -A W=() C=()
  for n in "${SIZES[@]}"; do
    read -r W[$n] C[$n] < <(best_of_3 "$K" txn "$WORK/T$n" "${extra[@]}")
  done
  ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.1f", (b > 0) ? a / b : 0 }'; }
  cpu_ratio=$(ratio "${C[$LARGE]}" "${C[$SMALL]}"); wall_ratio=$(ratio "${W[$LARGE]}" "${W[$SMALL]}")
  result=$(awk -v r="$cpu_ratio" 'BEGIN { print (r <= 12) ? "pass" : "FAIL" }')
  [ "$result" = pass ] || verdict=FAIL
  printf '  txn %-9s %s: cpu %s / %s / %s s (%sx from %s to %s), wall %s / %s / %s s (%sx)  %s\n' \
    "$label" "${extra[*]:-(data dir)}" "${C[${SIZES[0]}]}" "${C[${SIZES[1]}]}" "${C[${SIZES[2]}]}" "$cpu_ratio" \
    "$SMALL" "$LARGE" "${W[${SIZES[0]}]}" "${W[${SIZES[1]}]}" "${W[${SIZES[2]}]}" "$wall_ratio" "$result"
  unset W C
done
echo "txn scale: $verdict"
[ "$verdict" = pass ]
