#!/usr/bin/env bash
# klog side by side with Kafka's own tool (issue 17): on one ~1 GiB log that klog builds,
#   klog dump --format kafka DIR   vs  DumpLogSegments --deep-iteration --print-data-log --files ...
#   klog check DIR                 vs  DumpLogSegments --deep-iteration --files ...   (CRC per batch)
# each a whole process as a user runs it (Kafka's tool as kafka-dump-log.sh starts it: one JVM with
# kafka-run-class.sh's default heap and GC flags, the classpath of kafka-oracle/, Kafka 4.4.0),
# output to /dev/null, page cache warm. Prints wall seconds, peak RSS, the ratio and pass/FAIL
# against the target: klog at least 10x faster for the dump and for the check.
#   BENCH_DIR=DIR   scratch dir (default: a new dir under /var/tmp, removed at the end)
#   BENCH_QUICK=1   a 64 MiB log (for trying the harness; the targets are for the full run)
#   BENCH_ROWS=1    print bare `figure|measured|target|result` rows (for benches/bench.sh)
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --release --quiet
K=$PWD/target/release/klog
ORACLE=$PWD/kafka-oracle/target
if [ ! -f "$ORACLE/classpath.txt" ]; then
  mvn -q -B -f kafka-oracle/pom.xml package -DskipTests >&2
fi
CP="$ORACLE/classes:$(cat "$ORACLE/classpath.txt")"
# kafka-run-class.sh's defaults (KAFKA_HEAP_OPTS, KAFKA_JVM_PERFORMANCE_OPTS)
JAVA=(java -Xmx256M -server -XX:+UseG1GC -XX:MaxGCPauseMillis=20 -XX:InitiatingHeapOccupancyPercent=35
      -XX:+ExplicitGCInvokesConcurrent -XX:MaxInlineLevel=15 -Djava.awt.headless=true
      -cp "$CP" org.apache.kafka.tools.DumpLogSegments)
WORK=${BENCH_DIR:-$(mktemp -d /var/tmp/klog-kafka-bench.XXXXXX)}
[ -n "${BENCH_DIR:-}" ] || trap 'rm -rf "$WORK"' EXIT
mkdir -p "$WORK"
count=1048576
[ -z "${BENCH_QUICK:-}" ] || count=$(( count / 16 ))

# measure CMD...: "wall_seconds peak_rss_mib cpu_seconds" of one run, stdout to /dev/null (CPU
# time is user + system, all threads: on a shared machine the wall time also holds the wait)
measure() {
  local t0 t1
  t0=$(date +%s.%N)
  /usr/bin/time -f "%M %U %S" -o "$WORK/time.txt" "$@" >/dev/null 2>"$WORK/stderr.txt" || {
    local rc=$?
    # klog check exits 1 on findings; anything else is a failed run
    [ "$rc" = 1 ] && [ "$1" = "$K" ] || { echo "failed ($rc): $* : $(head -3 "$WORK/stderr.txt")" >&2; exit 1; }
  }
  t1=$(date +%s.%N)
  awk -v a="$t0" -v b="$t1" '{ printf "%.3f %.0f %.2f", b - a, $1 / 1024, $2 + $3 }' "$WORK/time.txt"
}
ROWS=()
row() { ROWS+=("$1|$2|$3|$4"); echo "  $1: $2 (target $3) $4" >&2; }
pair() { # what klog-measure kafka-measure
  local what=$1 k_t k_m k_c j_t j_m j_c ratio result
  read -r k_t k_m k_c <<<"$2"; read -r j_t j_m j_c <<<"$3"
  ratio=$(awk -v k="$k_t" -v j="$j_t" 'BEGIN { printf "%.1f", j / (k > 0.005 ? k : 0.005) }')
  result=$(awk -v r="$ratio" 'BEGIN { print (r >= 10) ? "pass" : "FAIL" }')
  row "$what" "klog ${k_t} s (CPU ${k_c} s), ${k_m} MiB; Kafka ${j_t} s (CPU ${j_c} s), ${j_m} MiB: ${ratio}x" ">= 10x faster" "$result"
}

L=$WORK/log
echo "building the log ($count records of 1000 bytes) in $L" >&2
$K create "$L" >/dev/null
$K elect "$L" >/dev/null
$K append "$L" --count "$count" --value-size 1000 --timestamp 1700000000000 >/dev/null
$K stop "$L" >/dev/null
P=$L/demo-0
FILES=$(ls "$P"/*.log | paste -sd, -)
MIB=$(cat "$P"/*.log | wc -c | awk '{ printf "%.0f", $1 / 1048576 }')
cat "$P"/*.log >/dev/null # warm the page cache
echo "load average before the runs: $(cut -d' ' -f1-3 /proc/loadavg) on $(nproc) cores" >&2

echo "[dump] klog dump --format kafka vs DumpLogSegments --deep-iteration --print-data-log ($MIB MiB)" >&2
k=$(measure "$K" dump --format kafka "$P")
j=$(measure "${JAVA[@]}" --deep-iteration --print-data-log --files "$FILES")
pair "dump --format kafka vs DumpLogSegments --deep-iteration --print-data-log ($MIB MiB)" "$k" "$j"

echo "[check] klog check vs DumpLogSegments --deep-iteration ($MIB MiB)" >&2
k=$(measure "$K" check "$P")
j=$(measure "${JAVA[@]}" --deep-iteration --files "$FILES")
pair "check vs DumpLogSegments --deep-iteration ($MIB MiB)" "$k" "$j"

if [ -n "${BENCH_ROWS:-}" ]; then
  printf '%s\n' "${ROWS[@]}"
else
  echo
  echo "| figure | measured | target | result |"
  echo "|---|---|---|---|"
  for r in "${ROWS[@]}"; do IFS='|' read -r a b c d <<<"$r"; echo "| $a | $b | $c | $d |"; done
fi
