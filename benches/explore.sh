#!/usr/bin/env bash
# klog explore's benchmark: builds --release, runs the issue's acceptance searches and the deep
# 3-replica run, and prints each one's table row (states, transitions, violations, shortest
# counterexample, seconds, states per second), peak memory, and pass/fail against the targets:
# the exhaustive kip279 2-replica 3/3/3 run and every Kafka 4.4 (KRaft, ELR on and off, min
# ISR 1 and 2) run under 60 s, the shortest hw counterexample under 1 s. Every emitted script is run under bash with the built klog on PATH.
# Run from anywhere:  bash benches/explore.sh
#   EXPLORE_DEEP_DEPTH=D   depth of the 3-replica 4-epoch 2-record run (default 40: until closed)
#   EXPLORE_QUICK=1        skip the deep run
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --release --quiet
K=$PWD/target/release/klog
[ -n "${CARGO_TARGET_DIR:-}" ] && K=$CARGO_TARGET_DIR/release/klog
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
export PATH="$(dirname "$K"):$PATH" NO_COLOR=1

now() { date +%s.%N; }
# run NAME TARGET_SECONDS EXPECT ARGS...: one search, its JSON row, wall time, peak memory.
# EXPECT is "none" (no violation, exhaustive) or "found" (a counterexample whose script runs).
run() {
  local name=$1 target=$2 expect=$3; shift 3
  local t0 t1 rc=0
  t0=$(now)
  /usr/bin/time -f %M -o "$WORK/$name.rss" "$K" explore "$@" --json --script "$WORK/$name.sh" >"$WORK/$name.json" || rc=$?
  t1=$(now)
  local wall rss verdict
  wall=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.2f", b - a }')
  rss=$(tail -1 "$WORK/$name.rss" | awk '{ printf "%.0f", $1 / 1024 }')
  verdict=ok
  if [ "$expect" = none ] && [ "$rc" != 0 ]; then verdict="FAIL (exit $rc, expected 0)"; fi
  if [ "$expect" = found ] && [ "$rc" != 1 ]; then verdict="FAIL (exit $rc, expected 1)"; fi
  if [ "$target" != - ] && awk -v w="$wall" -v t="$target" 'BEGIN { exit !(w > t) }'; then
    verdict="FAIL (${wall}s > ${target}s)"
  fi
  if [ "$expect" = found ] && [ "$rc" = 1 ]; then
    for s in "$WORK/$name"*.sh; do
      bash "$s" >/dev/null 2>&1 || verdict="FAIL (script $s)"
    done
  fi
  python3 - "$WORK/$name.json" "$name" "$wall" "$rss" "$target" "$verdict" <<'PY'
import json, sys
doc = json.load(open(sys.argv[1]))
name, wall, rss, target, verdict = sys.argv[2:]
for r in doc["runs"]:
    bounds = f'{r["replicas"]}/{r["max_epochs"]}/{r["max_records"]}/{r["max_depth"]}'
    opts = ",".join(k for k in ("unclean", "power_loss", "stale_hw") if r.get(k)) + ("" if r["fencing"] else ",no-fencing")
    if r.get("min_isr", 1) > 1:
        opts += f',min-isr={r["min_isr"]}'
    if isinstance(r.get("controller"), dict):
        opts += ",elr" if r["controller"]["kraft"]["elr"] else ",no-elr"
    reach = "closed" if r["closed"] else ("exhaustive" if r["exhaustive"] else "stopped")
    ce = r["counterexample"]
    what = f'{ce["kind"]} in {ce["length"]}' if ce else "-"
    print(f'{name:<22} {r["mode"]:<7} {bounds:<10} {opts.strip(","):<28} depth {r["depth"]:>2} {reach:<10} '
          f'states {r["states"]:>9} transitions {r["transitions"]:>10} violations {r["violations"]:>3} '
          f'shortest {r["shortest"] if r["shortest"] is not None else "-":>2} {what:<16} '
          f'{r["seconds"]:>7.2f}s {r["states_per_second"]:>9.0f}/s  wall {wall}s (target {target}) rss {rss} MiB  {verdict}')
PY
}

echo "klog explore benchmark on $(nproc) cores ($(date -u +%FT%TZ))"
run hw-2r           1   found --mode hw
run kip101-2r       -   found --mode kip101
run kip101-0.11.0.0 -   found --kafka 0.11.0.0
run kip279-2.0.1    -   none  --kafka 2.0.1
run kip279-2r-3-3-16 60 none  --mode kip279 --replicas 2 --max-epochs 3 --max-records 3 --max-depth 16
run kip279-3r-2-2-10 -  none  --mode kip279 --replicas 3 --max-epochs 2 --max-records 2 --max-depth 10
run kip279-unclean  -   found --mode kip279 --unclean
run kip279-power    -   found --mode kip279 --power-loss
run kip279-stale-hw -   none  --mode kip279 --stale-hw
run nofence-2.0.1   -   found --kafka 2.0.1 --no-fencing --replicas 3
run nofence-3.9.1   -   found --kafka 3.9.1 --no-fencing --replicas 3
run 4.4-elr-min2        60 none  --kafka 4.4.0 --elr on --min-isr 2 --replicas 3
run 4.4-noelr-min2      60 none  --kafka 4.4.0 --elr off --min-isr 2 --replicas 3
run 4.4-elr-power       60 found --kafka 4.4.0 --elr on --power-loss --replicas 3
run 4.4-noelr-power     60 found --kafka 4.4.0 --elr off --power-loss --replicas 3
run 4.4-elr-min2-power  60 found --kafka 4.4.0 --elr on --min-isr 2 --power-loss --replicas 3
run 4.4-noelr-min2-power 60 found --kafka 4.4.0 --elr off --min-isr 2 --power-loss --replicas 3
run 4.4-elr-unclean     60 found --kafka 4.4.0 --elr on --unclean --replicas 3
run 4.4-noelr-unclean   60 found --kafka 4.4.0 --elr off --unclean --replicas 3
run 4.4-elr-min2-unclean 60 found --kafka 4.4.0 --elr on --min-isr 2 --unclean --replicas 3
run 4.4-noelr-min2-uncl 60 found --kafka 4.4.0 --elr off --min-isr 2 --unclean --replicas 3
if [ -z "${EXPLORE_QUICK:-}" ]; then
  run kip279-3r-4-2-deep - none --mode kip279 --replicas 3 --max-epochs 4 --max-records 2 \
    --max-depth "${EXPLORE_DEEP_DEPTH:-40}"
  run 3.9.1-3r-4-2-deep  - none --kafka 3.9.1 --replicas 3 --max-epochs 4 --max-records 2 \
    --max-depth "${EXPLORE_DEEP_DEPTH:-40}"
fi
