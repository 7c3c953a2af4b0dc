#!/usr/bin/env bash
# klog side by side with Kafka's own tools (issue 17), in one run, on ~1 GiB logs that klog builds:
#   klog dump --format kafka DIR   vs  DumpLogSegments --deep-iteration --print-data-log --files ...
#   klog check DIR                 vs  DumpLogSegments --deep-iteration --files ...   (CRC per batch)
#   klog recover DIR               vs  LogManager.loadLogs on the same unclean log (the oracle's
#                                      `load`: recovery point 0, no clean-shutdown marker)
# each a whole process as a user runs it: DumpLogSegments as kafka-dump-log.sh starts it (one JVM
# with kafka-run-class.sh's default heap and GC flags), the loader as the oracle's `load` (one JVM,
# -Xmx1G), both on the classpath of kafka-oracle/ (Kafka 4.4.0), output to /dev/null (the recover outputs to
# a file, read for the LEO both reach and the oracle's in-JVM load time), page cache warm; each
# recovery on a fresh copy of the unclean log. Each command runs RUNS times (default 3; the
# recovery 2), klog's and Kafka's runs alternating so that both see the same load: the best wall
# time is kept, with its CPU time (user + system, all threads) and, for the recovery, its output
# (the oracle's in-JVM load time of that run), and the largest peak RSS of the runs. Targets: klog at least 10x faster than DumpLogSegments for
# the dump and the check; at least 2x faster than Kafka's loader for the recovery, with a lower
# peak RSS. The load average is printed before each pair (the machine may be shared).
#   BENCH_DIR=DIR   scratch dir (default: a new dir under /var/tmp, removed at the end)
#   BENCH_QUICK=1   64 MiB logs (for trying the harness; the targets are for the full run)
#   BENCH_ROWS=1    print bare `figure|measured|target|result` rows (for benches/bench.sh)
#   RUNS=N          runs per command for the dump and the check (the recovery: N - 1, at least 1)
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
DUMP_TOOL=(java -Xmx256M -server -XX:+UseG1GC -XX:MaxGCPauseMillis=20 -XX:InitiatingHeapOccupancyPercent=35
           -XX:+ExplicitGCInvokesConcurrent -XX:MaxInlineLevel=15 -Djava.awt.headless=true
           -cp "$CP" org.apache.kafka.tools.DumpLogSegments)
LOADER=(java -Xmx1G -cp "$CP" klog.oracle.Oracle load)
WORK=${BENCH_DIR:-$(mktemp -d /var/tmp/klog-kafka-bench.XXXXXX)}
[ -n "${BENCH_DIR:-}" ] || trap 'rm -rf "$WORK"' EXIT
mkdir -p "$WORK"
count=1048576
[ -z "${BENCH_QUICK:-}" ] || count=$(( count / 16 ))
RUNS=${RUNS:-3}
RECOVER_RUNS=$(( RUNS > 1 ? RUNS - 1 : 1 ))

loadavg() { echo "load average $(cut -d' ' -f1-3 /proc/loadavg) on $(nproc) cores"; }
FAILED_CHECK=""

# measure OUT CMD...: "wall_seconds peak_rss_mib cpu_seconds" of one run, stdout to OUT
measure() {
  local out=$1 t0 t1; shift
  t0=$(date +%s.%N)
  /usr/bin/time -f "%M %U %S" -o "$WORK/time.txt" "$@" >"$out" 2>"$WORK/stderr.txt" || {
    local rc=$?
    # klog check exits 1 on findings; anything else is a failed run
    [ "$rc" = 1 ] && [ "$1" = "$K" ] || { echo "failed ($rc): $* : $(head -3 "$WORK/stderr.txt")" >&2; exit 1; }
  }
  t1=$(date +%s.%N)
  awk -v a="$t0" -v b="$t1" '{ printf "%.3f %.0f %.2f", b - a, $1 / 1024, $2 + $3 }' "$WORK/time.txt"
}
# keep_best BEST MEASURED OUT: the better of two "wall peak_rss cpu" (the faster run's wall and CPU
# seconds, the larger peak RSS); the faster run's output is kept as OUT.best
keep_best() {
  local faster
  faster=$(awk -v m="$2" -v b="$1" 'BEGIN { split(m, x, " "); split(b, y, " "); print (b == "" || x[1] < y[1]) ? 1 : 0 }')
  [ "$faster" = 0 ] || [ "$3" = /dev/null ] || cp "$3" "$3.best"
  awk -v m="$2" -v b="$1" -v f="$faster" 'BEGIN {
    split(m, x, " "); if (b == "") { print m; exit }
    split(b, y, " "); t = f ? x[1] : y[1]; c = f ? x[3] : y[3]; r = x[2] > y[2] ? x[2] : y[2]
    printf "%s %s %s\n", t, r, c }'
}
# duel N PREPARE KOUT JOUT: N runs of KLOG_CMD and of KAFKA_CMD, alternately (so that both see the
# same load), PREPARE (untimed) before each; sets K_BEST and J_BEST ("wall peak_rss cpu")
duel() {
  local n=$1 prepare=$2 kout=$3 jout=$4 m
  K_BEST=""; J_BEST=""
  for _ in $(seq "$n"); do
    $prepare
    m=$(measure "$kout" "${KLOG_CMD[@]}")
    K_BEST=$(keep_best "$K_BEST" "$m" "$kout")
    $prepare
    m=$(measure "$jout" "${KAFKA_CMD[@]}")
    J_BEST=$(keep_best "$J_BEST" "$m" "$jout")
  done
}
nothing() { :; }
ROWS=()
row() { ROWS+=("$1|$2|$3|$4"); echo "  $1: $2 (target $3) $4" >&2; }
# pair WHAT KLOG KAFKA TARGET_RATIO [EXTRA] [MEMORY]: one side-by-side row; MEMORY=1 also requires
# klog's peak RSS below Kafka's
pair() {
  local what=$1 target=$4 extra=${5:-} memory=${6:-} k_t k_m k_c j_t j_m j_c ratio result goal
  read -r k_t k_m k_c <<<"$2"; read -r j_t j_m j_c <<<"$3"
  ratio=$(awk -v k="$k_t" -v j="$j_t" 'BEGIN { printf "%.1f", j / (k > 0.005 ? k : 0.005) }')
  result=$(awk -v r="$ratio" -v t="$target" 'BEGIN { print (r >= t) ? "pass" : "FAIL" }')
  goal=">= ${target}x faster"
  if [ -n "$memory" ]; then
    goal="$goal, less memory"
    [ "$k_m" -lt "$j_m" ] || result=FAIL
  fi
  [ -z "$FAILED_CHECK" ] || result=FAIL
  row "$what" "klog ${k_t} s (CPU ${k_c} s), ${k_m} MiB; Kafka ${j_t} s (CPU ${j_c} s), ${j_m} MiB${extra}: ${ratio}x" "$goal" "$result"
}

# The clean log for the dump and the check: 1 KiB records, klog's default batches, stopped cleanly.
L=$WORK/log
echo "building the log ($count records of 1000 bytes) in $L" >&2
$K create "$L" >/dev/null
$K elect "$L" >/dev/null
$K append "$L" --count "$count" --value-size 1000 --timestamp 1700000000000 >/dev/null
$K stop "$L" >/dev/null
P=$L/demo-0
FILES=$(ls "$P"/*.log | paste -sd, -)
MIB=$(cat "$P"/*.log | wc -c | awk '{ printf "%.0f", $1 / 1048576 }')
# The unclean log for the recovery: 16 records per batch, crashed (no marker, recovery point 0).
U=$WORK/unclean
echo "building the unclean log ($count records of 1000 bytes, 16 per batch) in $U" >&2
$K create "$U" >/dev/null
$K elect "$U" >/dev/null
$K append "$U" --count "$count" --value-size 1000 --records-per-batch 16 >/dev/null
$K crash "$U" >/dev/null
U_MIB=$(cat "$U"/demo-0/*.log | wc -c | awk '{ printf "%.0f", $1 / 1048576 }')
cat "$P"/*.log >/dev/null # warm the page cache

echo "[dump] klog dump --format kafka vs DumpLogSegments --deep-iteration --print-data-log ($MIB MiB; $(loadavg))" >&2
KLOG_CMD=("$K" dump --format kafka "$P")
KAFKA_CMD=("${DUMP_TOOL[@]}" --deep-iteration --print-data-log --files "$FILES")
duel "$RUNS" nothing /dev/null /dev/null
pair "dump --format kafka vs DumpLogSegments --deep-iteration --print-data-log ($MIB MiB)" "$K_BEST" "$J_BEST" 10

echo "[check] klog check vs DumpLogSegments --deep-iteration ($MIB MiB; $(loadavg))" >&2
KLOG_CMD=("$K" check "$P")
KAFKA_CMD=("${DUMP_TOOL[@]}" --deep-iteration --files "$FILES")
duel "$RUNS" nothing /dev/null /dev/null
pair "check vs DumpLogSegments --deep-iteration ($MIB MiB)" "$K_BEST" "$J_BEST" 10

echo "[recover] klog recover vs Kafka's LogManager.loadLogs, unclean log ($U_MIB MiB; $(loadavg))" >&2
C=$WORK/copy
fresh_copy() { rm -rf "$C"; cp -a "$U" "$C"; cat "$C"/demo-0/*.log >/dev/null; }
KLOG_CMD=("$K" recover "$C" --json)
KAFKA_CMD=("${LOADER[@]}" "$C")
duel "$RECOVER_RUNS" fresh_copy "$WORK/klog.out" "$WORK/kafka.out"
k_leo=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["recovery"]["log_end_offset_after"])' "$WORK/klog.out.best")
read -r j_leo j_load_ms < <(python3 -c 'import json,sys
d = json.load(open(sys.argv[1]))
print(d["logs"][0]["log_end_offset"], d["load_ms"])' "$WORK/kafka.out.best")
rm -rf "$C"
if [ "$k_leo" = "$j_leo" ]; then agree="both reach LEO $k_leo"; else agree="DISAGREE: klog LEO $k_leo, Kafka LEO $j_leo"; FAILED_CHECK=1; fi
pair "recover vs LogManager.loadLogs, unclean log ($U_MIB MiB)" "$K_BEST" "$J_BEST" 2 " (in-JVM load ${j_load_ms} ms); $agree" 1
echo "after the runs: $(loadavg)" >&2

if [ -n "${BENCH_ROWS:-}" ]; then
  printf '%s\n' "${ROWS[@]}"
else
  echo
  echo "| figure | measured | target | result |"
  echo "|---|---|---|---|"
  for r in "${ROWS[@]}"; do IFS='|' read -r a b c d <<<"$r"; echo "| $a | $b | $c | $d |"; done
fi
