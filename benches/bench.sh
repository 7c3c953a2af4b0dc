#!/usr/bin/env bash
# klog's benchmark harness. Generates its own data with klog in a scratch dir (about 6 GiB),
# measures each figure side by side with its baseline in the same run, and prints a table of
# figures, targets and pass/fail. Run from anywhere:  bash benches/bench.sh
#   BENCH_DIR=DIR   scratch dir (default: a new dir under /var/tmp, removed at the end)
#   BENCH_QUICK=1   smaller data (for trying the harness; the targets are for the full run)
#   BENCH_ONLY="2 7" run only these sections (numbers as below; 8 is benches/kafka.sh, 9
#                    benches/scale.sh, 10 dump --since against a full dump, 11 local recovery's
#                    rescan against cat)
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --release --quiet
K=$PWD/target/release/klog
WORK=${BENCH_DIR:-$(mktemp -d /var/tmp/klog-bench.XXXXXX)}
[ -n "${BENCH_DIR:-}" ] || trap 'rm -rf "$WORK"' EXIT
mkdir -p "$WORK"
QUICK=${BENCH_QUICK:-}
scale() { if [ -n "$QUICK" ]; then echo $(( $1 / 16 )); else echo "$1"; fi; }

now() { date +%s.%N; }
# best_of N CMD...: the fastest wall time of N runs, in seconds
best_of() {
  local n=$1; shift; local best=""
  for _ in $(seq "$n"); do
    local t0 t1; t0=$(now); "$@" >/dev/null; t1=$(now)
    best=$(awk -v a="$t0" -v b="$t1" -v best="$best" 'BEGIN { d = b - a; if (best == "" || d < best) best = d; printf "%.4f", best }')
  done
  echo "$best"
}
# peak_rss_mib CMD...: peak resident set size of the command
peak_rss_mib() { /usr/bin/time -f %M "$@" 2>&1 >/dev/null | tail -1 | awk '{ printf "%.1f", $1 / 1024 }'; }
ROWS=()
row() { ROWS+=("$1|$2|$3|$4"); echo "  $1: $2 (target $3) $4" >&2; }
verdict() { awk -v v="$1" -v t="$2" -v op="$3" 'BEGIN { ok = (op == ">=") ? v >= t : v <= t; print ok ? "pass" : "FAIL" }'; }

echo "scratch dir: $WORK" >&2
ONLY=${BENCH_ONLY:-1 2 3 4 5 6 7 8 9 10 11}
want() { [[ " $ONLY " == *" $1 "* ]]; }

if want 1; then
# 1. check vs cat over 1 GiB of 1 KiB records (page cache warm).
echo "[1] check vs cat" >&2
C=$WORK/check1g; $K create "$C" >/dev/null; $K elect "$C" >/dev/null
$K append "$C" --count "$(scale 1048576)" --value-size 1000 >/dev/null
cat "$C"/demo-0/*.log >/dev/null
t_cat=$(best_of 3 sh -c "cat $C/demo-0/*.log > /dev/null")
t_check=$(best_of 3 "$K" check "$C")
bytes=$(cat "$C"/demo-0/*.log | wc -c)
ratio=$(awk -v a="$t_cat" -v b="$t_check" 'BEGIN { printf "%.2f", a / b }')
row "check throughput vs cat (1 GiB, 1 KiB records)" "${ratio}x cat ($(awk -v b="$bytes" -v t="$t_check" 'BEGIN { printf "%.0f MB/s", b / t / 1e6 }'))" ">= 0.5x" "$(verdict "$ratio" 0.5 '>=')"
fi

if want 2; then
# 2. dump --json over 256 MiB of 100-byte records, and an independent reader (kafka-python).
echo "[2] dump --json" >&2
D=$WORK/dump256m; $K create "$D" >/dev/null; $K elect "$D" >/dev/null
n_dump=$(scale 2400000)
$K append "$D" --count "$n_dump" --value-size 100 >/dev/null
t_dump=$(best_of 3 sh -c "$K dump $D --json > /dev/null")
rate=$(awk -v n="$n_dump" -v t="$t_dump" 'BEGIN { printf "%.2f", n / t / 1e6 }')
row "dump --json records/s (256 MiB, 100 B records, both cores)" "${rate} M/s" ">= 4.4 M/s" "$(verdict "$rate" 4.4 '>=')"
if python3 -m venv "$WORK/venv" >/dev/null 2>&1 && "$WORK/venv/bin/pip" install -q kafka-python >/dev/null 2>&1; then
  cat > "$WORK/read.py" <<'PY'
import json, os, sys, time
from kafka.record import MemoryRecords
data = open(sys.argv[1], "rb").read(16 << 20)   # the first 16 MiB: whole batches are read
out = open(os.devnull, "w")
n, t0 = 0, time.perf_counter()
records = MemoryRecords(data)
while True:
    batch = records.next_batch()
    if batch is None:
        break
    for r in batch:
        out.write(json.dumps({"offset": r.offset, "timestamp": r.timestamp,
                              "key": None if r.key is None else r.key.decode(),
                              "value": None if r.value is None else r.value.decode()}) + "\n")
        n += 1
print(n / (time.perf_counter() - t0))
PY
  py_rate=$("$WORK/venv/bin/python" "$WORK/read.py" "$D/demo-0/00000000000000000000.log")
  speedup=$(awk -v k="$rate" -v p="$py_rate" 'BEGIN { printf "%.0f", k * 1e6 / p }')
  row "dump --json vs kafka-python reader" "${speedup}x ($(awk -v p="$py_rate" 'BEGIN { printf "%.0f", p }') records/s in Python)" ">= 100x" "$(verdict "$speedup" 100 '>=')"
else
  row "dump --json vs kafka-python reader" "not measured (kafka-python could not be installed)" ">= 100x" "skipped"
fi
fi

if want 3; then
# 3. append --count 10M x 100 B vs dd writing as many bytes (both to the page cache, no fsync).
echo "[3] append vs dd" >&2
n_append=$(scale 10000000)
append_once() { rm -rf "$WORK/app"; $K create "$WORK/app" >/dev/null; $K elect "$WORK/app" >/dev/null; \
  local t0 t1; t0=$(now); $K append "$WORK/app" --count "$n_append" --value-size 100 >/dev/null; t1=$(now); \
  awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.4f", b - a }'; }
t_append=""; for _ in 1 2 3; do t=$(append_once); t_append=$(awk -v a="$t" -v b="$t_append" 'BEGIN { if (b == "" || a < b) b = a; printf "%.4f", b }'); done
bytes=$(stat -c %s "$WORK"/app/demo-0/*.log | awk '{ s += $1 } END { print s }')
mib=$(( bytes / 1048576 + 1 ))
dd_once() { rm -f "$WORK/dd.out"; local t0 t1; t0=$(now); dd if=/dev/zero of="$WORK/dd.out" bs=1M count="$mib" status=none; t1=$(now); \
  awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.4f", b - a }'; }
t_dd=""; for _ in 1 2 3; do t=$(dd_once); t_dd=$(awk -v a="$t" -v b="$t_dd" 'BEGIN { if (b == "" || a < b) b = a; printf "%.4f", b }'); done
ratio=$(awk -v a="$t_dd" -v b="$t_append" 'BEGIN { printf "%.2f", a / b }')
row "append --count 10M x 100 B vs dd" "${ratio}x dd ($(awk -v b="$bytes" -v t="$t_append" 'BEGIN { printf "%.0f MB/s", b / t / 1e6 }'))" ">= 0.8x" "$(verdict "$ratio" 0.8 '>=')"
rm -rf "$WORK/app" "$WORK/dd.out"
fi

if want 4; then
# 4. recover --dry-run on 4 GiB with 10,000 epochs vs 4 MiB with 10,000 epochs.
echo "[4] recover --dry-run, 10,000 epochs (this builds two logs epoch by epoch)" >&2
epochs=$(scale 10000)
build_epochs() { # dir records-per-epoch
  local dir=$1 per=$2
  $K create "$dir/a" --replica-id 1 >/dev/null
  for _ in $(seq "$epochs"); do
    $K elect "$dir/a" >/dev/null
    $K append "$dir/a" --count "$per" --value-size 100 >/dev/null
  done
  # B is a copy of A (hard links: the dry run reads only) that leads one more epoch of its own;
  # A then leads the epoch after that.
  cp -al "$dir/a" "$dir/b"
  for f in "$dir"/b/*checkpoint* "$dir"/b/demo-0/leader-epoch-checkpoint "$dir"/b/klog-state.json "$dir"/b/meta.properties; do
    cp --remove-destination "$f" "$f.copy" && mv "$f.copy" "$f"
  done
  # B is another replica: its own node.id and directory.id (klog refuses two copies of one
  # replica as a leader and its follower, in the dry run as in the run).
  local id; id=$(head -c 16 /dev/urandom | base64 | tr '+/' '-_' | tr -d '=')
  sed -i "s/^node.id=.*/node.id=2/; s/^directory.id=.*/directory.id=$id/" "$dir/b/meta.properties"
  local last; last=$(ls "$dir"/b/demo-0/*.log | tail -1)
  cp --remove-destination "$last" "$last.copy" && mv "$last.copy" "$last"
  local idx=${last%.log}.index tidx=${last%.log}.timeindex
  cp --remove-destination "$idx" "$idx.copy" && mv "$idx.copy" "$idx"
  cp --remove-destination "$tidx" "$tidx.copy" && mv "$tidx.copy" "$tidx"
  $K elect "$dir/b" --epoch $((epochs + 1)) >/dev/null
  $K append "$dir/b" --count 10 --value-size 100 >/dev/null
  $K elect "$dir/a" --epoch $((epochs + 2)) >/dev/null
  $K append "$dir/a" --count 5 --value-size 100 >/dev/null
}
build_epochs "$WORK/big" "$(( 4 * 1024 * 1024 * 1024 / 110 / 10000 ))"
build_epochs "$WORK/small" 1
for sz in big small; do   # the timed command must succeed (a refusal is fast too)
  "$K" recover "$WORK/$sz/b" --leader "$WORK/$sz/a" --mode kip279 --dry-run >/dev/null
done
t_big=$(best_of 5 "$K" recover "$WORK/big/b" --leader "$WORK/big/a" --mode kip279 --dry-run)
t_small=$(best_of 5 "$K" recover "$WORK/small/b" --leader "$WORK/small/a" --mode kip279 --dry-run)
ratio=$(awk -v a="$t_big" -v b="$t_small" 'BEGIN { printf "%.2f", a / b }')
big_bytes=$(du -sb "$WORK/big/a/demo-0" | cut -f1)
row "recover --dry-run: 4 GiB vs 4 MiB, 10,000 epochs" "${ratio}x (${t_big}s vs ${t_small}s; $(( big_bytes / 1048576 )) MiB)" "<= 1.5x" "$(verdict "$ratio" 1.5 '<=')"
fi

if want 5; then
# 5. local recovery after a crash with 1 MiB past the recovery point, on the 4 GiB log.
echo "[5] local recovery" >&2
R=$WORK/big/a
$K flush "$R" >/dev/null
$K append "$R" --count 9500 --value-size 100 >/dev/null   # about 1 MiB past the recovery point
$K crash "$R" >/dev/null
t0=$(now); $K recover "$R" >/dev/null; t1=$(now)
t_rec=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.4f", b - a }')
ms=$(awk -v t="$t_rec" 'BEGIN { printf "%.0f", t * 1000 }')
row "local recovery, 1 MiB past the recovery point, 4 GiB log" "${ms} ms" "< 50 ms" "$(verdict "$ms" 50 '<=')"
fi

if want 6; then
# 6. peak RSS of dump and check on the 4 GiB log.
echo "[6] peak RSS" >&2
rss_check=$(peak_rss_mib "$K" check "$R")
rss_dump=$(peak_rss_mib "$K" dump "$R" --json)
worst=$(awk -v a="$rss_check" -v b="$rss_dump" 'BEGIN { print (a > b) ? a : b }')
row "peak RSS of check / dump --json on 4 GiB" "${rss_check} / ${rss_dump} MiB" "< 64 MiB" "$(verdict "$worst" 64 '<=')"
fi

# 7. check of a whole data dir: 1,000 partitions, 4 GiB of 1 KiB records, both cores, vs cat over
#    the same files.
if want 7; then
echo "[7] check DATA_DIR (1,000 partitions, 4 GiB)" >&2
DD=$WORK/datadir
parts=$(scale 1000)
$K create "$DD" --topic t --partitions "$parts" >/dev/null
per=$(( 4 * 1024 * 1024 * 1024 / 1030 / 1000 ))   # 1 KiB records, as in [1]
for p in $(seq 0 $((parts - 1))); do
  $K elect "$DD" --partition "t-$p" >/dev/null
  $K append "$DD" --partition "t-$p" --count "$per" --value-size 1000 >/dev/null
done
cat "$DD"/t-*/*.log >/dev/null
t_cat=$(best_of 3 sh -c "cat $DD/t-*/*.log > /dev/null")
t_check=$(best_of 3 "$K" check "$DD")
bytes=$(cat "$DD"/t-*/*.log | wc -c)
ratio=$(awk -v a="$t_cat" -v b="$t_check" 'BEGIN { printf "%.2f", a / b }')
row "check DATA_DIR vs cat ($parts partitions, $(( bytes / 1048576 )) MiB)" "${ratio}x cat ($(awk -v b="$bytes" -v t="$t_check" 'BEGIN { printf "%.0f MB/s", b / t / 1e6 }'))" ">= 0.8x" "$(verdict "$ratio" 0.8 '>=')"
rss=$(peak_rss_mib "$K" check "$DD")
row "peak RSS of check DATA_DIR" "${rss} MiB" "< 128 MiB" "$(verdict "$rss" 128 '<=')"
fi

# 8. side by side with Kafka's own tools (benches/kafka.sh): dump and check vs DumpLogSegments, recover vs its loader, 1 GiB.
if want 8; then
echo "[8] klog vs Kafka's DumpLogSegments and loader (benches/kafka.sh)" >&2
while IFS= read -r r; do ROWS+=("$r"); done < <(BENCH_DIR="$WORK/kafka" BENCH_ROWS=1 BENCH_QUICK="$QUICK" bash benches/kafka.sh)
fi

# 9. scale: create, dump, check, recover --dry-run, the restart plan and diff over 1,000 and
#    10,000 partitions, checkpoints listing 100,000 absent partitions, a 100 MB checkpoint
#    line (benches/scale.sh: seconds, bytes read/written, peak RSS, linearity).
if want 9; then
  : > "$WORK/scale-rows"
  BENCH_DIR=$WORK SCALE_ROWS=$WORK/scale-rows bash benches/scale.sh
  while IFS= read -r r; do ROWS+=("$r"); done < "$WORK/scale-rows"
fi

# 10. dump --since: where to start comes from the time index (Kafka's ListOffsets by timestamp),
#     not from reading the log; against a full dump of the same 1 GiB log (8 segments of 128 MiB,
#     16 appends of 64 MiB a minute apart, so --since the last minute is 1/16 of the records).
if want 10; then
echo "[10] dump --since vs full dump" >&2
S=$WORK/since1g; $K create "$S" --segment-bytes 134217728 >/dev/null; $K elect "$S" >/dev/null
T0=1796612400000
for i in $(seq 0 15); do
  $K append "$S" --count "$(scale 65536)" --value-size 1000 --timestamp $((T0 + i * 60000)) >/dev/null
done
cat "$S"/demo-0/*.log >/dev/null
since=$((T0 + 15 * 60000)); after_all=$((T0 + 16 * 60000))
t_full=$(best_of 3 sh -c "$K dump $S --json > /dev/null")
t_since=$(best_of 3 sh -c "$K dump $S --json --since $since > /dev/null")
t_seek=$(best_of 3 "$K" dump "$S" --count --since "$after_all")
n_all=$("$K" dump "$S" --count); n_since=$("$K" dump "$S" --count --since "$since")
speedup=$(awk -v a="$t_full" -v b="$t_since" 'BEGIN { printf "%.1f", a / b }')
row "dump --json --since T (last $n_since of $n_all records, 1 GiB) vs full dump" "${t_since} s vs ${t_full} s (${speedup}x)" ">= 8x" "$(verdict "$speedup" 8 '>=')"
row "dump --count --since after the last record (the seek alone, 1 GiB)" "${t_seek} s" "<= 0.05 s" "$(verdict "$t_seek" 0.05 '<=')"
fi

# 11. local recovery's full rescan (recovery point 0: every segment read, its batches checked and
#     its indexes rebuilt, the checkpoints written durably) of 1 GiB of 1 KiB records in 8 segments,
#     vs cat over the same files. Each run recovers a fresh copy, written back to disk first (sync)
#     so the fsyncs time klog's own writes, not the copy's; page cache warm for both.
if want 11; then
echo "[11] local recovery's rescan vs cat" >&2
L=$WORK/rescan1g; $K create "$L" --segment-bytes 134217728 >/dev/null; $K elect "$L" >/dev/null
$K append "$L" --count "$(scale 1048576)" --value-size 1000 >/dev/null
$K crash "$L" >/dev/null
cat "$L"/demo-0/*.log >/dev/null
t_cat=$(best_of 3 sh -c "cat $L/demo-0/*.log > /dev/null")
t_rescan=""
for _ in 1 2 3; do
  rm -rf "$WORK/rescan-run"; cp -a "$L" "$WORK/rescan-run"; sync
  t0=$(now); $K recover "$WORK/rescan-run" >/dev/null; t1=$(now)
  t_rescan=$(awk -v a="$t0" -v b="$t1" -v best="$t_rescan" 'BEGIN { d = b - a; if (best == "" || d < best) best = d; printf "%.4f", best }')
done
rm -rf "$WORK/rescan-run"
bytes=$(cat "$L"/demo-0/*.log | wc -c)
ratio=$(awk -v a="$t_cat" -v b="$t_rescan" 'BEGIN { printf "%.2f", a / b }')
row "local recovery's rescan from recovery point 0 vs cat (1 GiB, 8 segments)" "${ratio}x cat (${t_rescan} s vs ${t_cat} s)" ">= 0.5x" "$(verdict "$ratio" 0.5 '>=')"
fi

echo
echo "| figure | measured | target | result |"
echo "|---|---|---|---|"
for r in "${ROWS[@]}"; do IFS='|' read -r a b c d <<<"$r"; echo "| $a | $b | $c | $d |"; done
