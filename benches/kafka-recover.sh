#!/usr/bin/env bash
# klog recover against Kafka's own loader, side by side in one run: the same unclean 1 GiB log
# (1 KiB records, 16 per batch, recovery point 0, no clean-shutdown marker) recovered by
# `klog recover DIR` and by Kafka 4.4.0's LogManager.loadLogs (the oracle's `load`, one JVM
# process, the way a starting broker recovers it). Whole processes as a user runs them; the
# oracle's in-JVM load time is printed beside its process time. Targets: klog at least 2x
# faster than Kafka's loader, with peak memory below Kafka's.
#   BENCH_DIR=DIR   scratch dir (default: a new dir under /var/tmp, removed at the end)
#   BENCH_QUICK=1   64 MiB instead of 1 GiB (for trying the harness)
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --release --quiet
K=$PWD/target/release/klog
ORACLE=$PWD/kafka-oracle/target
[ -f "$ORACLE/classpath.txt" ] || mvn -q -B -f kafka-oracle/pom.xml package -DskipTests
CP="$ORACLE/classes:$(cat "$ORACLE/classpath.txt")"
WORK=${BENCH_DIR:-$(mktemp -d /var/tmp/klog-bench-kafka.XXXXXX)}
[ -n "${BENCH_DIR:-}" ] || trap 'rm -rf "$WORK"' EXIT
mkdir -p "$WORK"
records=1048576
[ -z "${BENCH_QUICK:-}" ] || records=65536

echo "scratch dir: $WORK" >&2
L=$WORK/unclean
$K create "$L" >/dev/null
$K elect "$L" >/dev/null
$K append "$L" --count "$records" --value-size 1000 --records-per-batch 16 >/dev/null
$K crash "$L" >/dev/null
bytes=$(cat "$L"/demo-0/*.log | wc -c)

# measure NAME CMD...: wall seconds and peak RSS (MiB) of one run on a fresh copy, page cache warm
measure() {
  local name=$1; shift
  rm -rf "$WORK/copy"; cp -a "$L" "$WORK/copy"; cat "$WORK"/copy/demo-0/*.log >/dev/null
  /usr/bin/time -f "%e %M" -o "$WORK/$name.time" "$@" >"$WORK/$name.out"
  read -r secs kib <"$WORK/$name.time"
  echo "$secs $(awk -v k="$kib" 'BEGIN { printf "%.1f", k / 1024 }')"
}
read -r k_secs k_mib < <(measure klog "$K" recover "$WORK/copy" --json)
read -r j_secs j_mib < <(measure kafka java -Xmx1g -cp "$CP" klog.oracle.Oracle load "$WORK/copy")
j_load_ms=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["load_ms"])' "$WORK/kafka.out")
k_leo=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["recovery"]["log_end_offset_after"])' "$WORK/klog.out")
j_leo=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["logs"][0]["log_end_offset"])' "$WORK/kafka.out")

ratio=$(awk -v k="$k_secs" -v j="$j_secs" 'BEGIN { printf "%.1f", j / (k > 0 ? k : 0.01) }')
speed=$(awk -v r="$ratio" 'BEGIN { print (r >= 2) ? "pass" : "FAIL" }')
memory=$(awk -v k="$k_mib" -v j="$j_mib" 'BEGIN { print (k < j) ? "pass" : "FAIL" }')
agree=$([ "$k_leo" = "$j_leo" ] && echo "both LEO $k_leo" || echo "DISAGREE: klog LEO $k_leo, Kafka LEO $j_leo")
printf '\nrecover an unclean log of %s bytes (%s records), whole processes:\n' "$bytes" "$records"
printf '  %-34s %8ss  %8s MiB peak\n' "klog recover" "$k_secs" "$k_mib"
printf '  %-34s %8ss  %8s MiB peak  (in-JVM load %s ms)\n' "Kafka 4.4.0 LogManager.loadLogs" "$j_secs" "$j_mib" "$j_load_ms"
printf '  speed: klog %sx faster (target >= 2x) %s; memory: %s MiB vs %s MiB %s; result: %s\n' \
  "$ratio" "$speed" "$k_mib" "$j_mib" "$memory" "$agree"
