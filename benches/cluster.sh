#!/usr/bin/env bash
# klog's cluster-view benchmark (issue #21 point 4): `check`, `diff` and `recover --dry-run`
# over three brokers' data dirs, each of PARTITIONS partitions (default 200) holding real-sized
# logs (default ~1.1 GiB over the three dirs), against `cat` of the same files.
# Broker 1 leads every partition (klog append, 1,000-byte values in 16-record batches); brokers
# 2 and 3 are copies of it (what followers' fetches leave: the leader's bytes), then brokers 1
# and 3 write past each other in a tenth of the partitions (a divergence and acked records to
# find) so that the view has work beyond the byte-identical prefix.
# Prints, side by side: seconds of each command and of `find | xargs cat` of the same files
# (hot page cache, best of RUNS runs each), the throughput ratio (cat seconds / command
# seconds; target >= 0.8), and peak RSS (target < 128 MiB), each with PASS/FAIL.
# Run from anywhere:  bash benches/cluster.sh
#   BENCH_DIR=DIR        scratch dir (default: a new dir under /var/tmp, removed at the end)
#   PARTITIONS=N         partitions per broker (default 200)
#   RECORDS=N            records per partition (default 1800, ~1.8 MB)
#   RUNS=N               runs of each measurement, the best kept (default 3)
#   BENCH_REUSE=1        reuse the brokers a previous run left in BENCH_DIR
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --release --quiet
K=$PWD/target/release/klog
WORK=${BENCH_DIR:-$(mktemp -d /var/tmp/klog-cluster.XXXXXX)}
[ -n "${BENCH_DIR:-}" ] || trap 'rm -rf "$WORK"' EXIT
P=${PARTITIONS:-200}
N=${RECORDS:-1800}
RUNS=${RUNS:-3}
C=$WORK/cluster
if [ -n "${BENCH_REUSE:-}" ] && [ -d "$C/b3" ]; then
  echo "[cluster] reusing $C" >&2
else
rm -rf "$C"; mkdir -p "$C"
echo "[cluster] making 3 brokers x $P partitions x $N records of 1000 bytes in $C" >&2
"$K" create "$C/b1" --topic t --partitions "$P" --replica-id 1 >/dev/null
for p in $(seq 0 $((P - 1))); do
  "$K" elect "$C/b1" --partition "t-$p" >/dev/null
  "$K" append "$C/b1" --partition "t-$p" --count "$N" --value-size 1000 --records-per-batch 16 \
    --timestamp 1000 >/dev/null
done
for b in 2 3; do
  # Its own meta.properties (node id, directory id; the same cluster id), the leader's bytes;
  # stopped, as a follower (the copy's klog state said it led).
  "$K" create "$C/b$b.meta" --topic t --replica-id "$b" >/dev/null
  cp -a "$C/b1" "$C/b$b"
  cp "$C/b$b.meta/meta.properties" "$C/b$b/meta.properties"
  rm -rf "$C/b$b.meta"
  "$K" stop "$C/b$b" >/dev/null
done
# A tenth of the partitions: broker 1 leads again at epoch 3 and writes 50 records; broker 3,
# cut off, led at epoch 2 and wrote 20 others (divergence, and acked records on each side).
for p in $(seq 0 10 $((P - 1))); do
  "$K" elect "$C/b3" --partition "t-$p" --epoch 2 >/dev/null
  "$K" append "$C/b3" --partition "t-$p" --count 20 --value-size 1000 --timestamp 2000 >/dev/null
  "$K" elect "$C/b1" --partition "t-$p" --epoch 3 >/dev/null
  "$K" append "$C/b1" --partition "t-$p" --count 50 --value-size 1000 --timestamp 3000 >/dev/null
done
# Brokers 2 and 3 stop; broker 1 runs on as the leader of every partition (klog's state says
# so), as the view of a live cluster with one partition in ten diverged finds it.
for b in 2 3; do "$K" stop "$C/b$b" >/dev/null; done
fi

BYTES=$(find "$C/b1" "$C/b2" "$C/b3" -type f -printf '%s\n' | awk '{ s += $1 } END { print s + 0 }')
echo "[cluster] $(awk -v b="$BYTES" 'BEGIN { printf "%.2f GiB", b / 1073741824 }') in $(find "$C" -type f | wc -l) files" >&2

# measure CMD...: "seconds peak_rss_kib cpu_seconds exit_code" of one run, stdout to /dev/null.
measure() {
  local rss_file rc=0 t0 t1
  rss_file=$(mktemp)
  t0=$(date +%s.%N)
  /usr/bin/time -f '%M %U %S' -o "$rss_file" "$@" >/dev/null 2>&1 || rc=$?
  t1=$(date +%s.%N)
  echo "$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.3f", b - a }') $(tail -1 "$rss_file" | awk '{ printf "%s %.2f", $1, $2 + $3 }') $rc"
  rm -f "$rss_file"
}
# best CMD...: the fastest of RUNS runs (and that run's RSS and CPU; the largest exit code seen).
best() {
  local s r u c bs="" br="" bu="" bc=0
  for _ in $(seq "$RUNS"); do
    read -r s r u c < <(measure "$@")
    if [ -z "$bs" ] || awk -v a="$s" -v b="$bs" 'BEGIN { exit !(a < b) }'; then bs=$s; br=$r; bu=$u; fi
    [ "$c" -gt "$bc" ] && bc=$c
  done
  echo "$bs $br $bu $bc"
}

# Warm the page cache: every run reads hot files, as the cat baseline does.
find "$C" -type f -print0 | xargs -0 cat >/dev/null
FAILED=0
read -r cat_s _ cat_cpu _ < <(best sh -c "find '$C/b1' '$C/b2' '$C/b3' -type f -print0 | xargs -0 cat")

# The view must find what the setup made: a tenth of the partitions needing a look.
found=$({ "$K" diff "$C/b1" "$C/b2" "$C/b3" --json || true; } | tail -1 | sed 's/.*"partitions_needing_attention":\([0-9]*\).*/\1/')
want=$(( (P + 9) / 10 ))
echo "[cluster] partitions needing a look: $found (made: $want) $([ "$found" = "$want" ] && echo PASS || echo FAIL)" >&2
[ "$found" = "$want" ] || FAILED=1

echo "load average: $(cut -d' ' -f1-3 /proc/loadavg); cat: ${cat_cpu} s CPU"
printf '%-22s %9s %9s %9s %8s %10s %6s %6s\n' "command" "seconds" "cat s" "ratio" "CPU s" "peak RSS" "speed" "memory"
FAILED=${FAILED:-0}
for cmd in "check" "diff" "recover --dry-run"; do
  # shellcheck disable=SC2086
  read -r s rss cpu rc < <(best "$K" $cmd "$C/b1" "$C/b2" "$C/b3")
  ratio=$(awk -v c="$cat_s" -v k="$s" 'BEGIN { printf "%.2f", (k > 0) ? c / k : 0 }')
  speed=$(awk -v r="$ratio" 'BEGIN { print (r >= 0.8) ? "PASS" : "FAIL" }')
  memory=$(awk -v k="$rss" 'BEGIN { print (k < 131072) ? "PASS" : "FAIL" }')
  [ "$rc" -le 1 ] || { speed=FAIL; echo "[cluster] klog $cmd exited $rc" >&2; }
  [ "$speed" = PASS ] && [ "$memory" = PASS ] || FAILED=1
  printf '%-22s %9s %9s %8sx %8s %7s MiB %6s %6s\n' "$cmd" "$s" "$cat_s" "$ratio" "$cpu" "$(awk -v k="$rss" 'BEGIN { printf "%.0f", k / 1024 }')" "$speed" "$memory"
done
echo "[cluster] targets: throughput >= 0.8x cat of the same $(awk -v b="$BYTES" 'BEGIN { printf "%.2f GiB", b / 1073741824 }'), peak RSS < 128 MiB" >&2
exit "$FAILED"
