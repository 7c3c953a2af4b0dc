#!/usr/bin/env bash
# klog's scale benchmark: work that must grow linearly with the partitions of a data dir
# (create, crash, recover, stop, and the data-dir readers).
# Each command runs at two sizes, 1,000 and 10,000 partitions (100,000 absent partitions for
# the checkpoint case), and prints seconds, bytes read and written (the /proc/PID/io counters
# of a wrapper shell, which take in its reaped child), peak RSS, and the ratio of the two
# sizes: a linear command takes about 10x for 10x the partitions (pass if <= 15x), a
# quadratic one about 100x. Beside each row, what a user would otherwise run on the same tree
# (`cp -a` of the tree for create, `find | xargs cat` of every file for the readers).
# Then the views over KRaft data dirs of 10,000 / 30,000 / 100,000 partitions (history, the
# cluster view, the restart plan), beside decoding their metadata log.
# Run from anywhere:  bash benches/scale.sh   (bench.sh runs it as section 9)
#   BENCH_DIR=DIR    scratch dir (default: a new dir under /var/tmp, removed at the end)
#   BENCH_QUICK=1    sizes / 10 (for trying the harness; the targets are for the full run)
#   SCALE_ROWS=FILE  also append each row as "figure|measured|target|result" (for bench.sh)
#   SCALE_ONLY=views only the views over KRaft data dirs
#   SCALE_ONLY=partitions only the data dirs of 1,000 / 10,000 partitions (no views)
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --release --quiet
K=$PWD/target/release/klog
WORK=${BENCH_DIR:-$(mktemp -d /var/tmp/klog-scale.XXXXXX)}
[ -n "${BENCH_DIR:-}" ] || trap 'rm -rf "$WORK"' EXIT
mkdir -p "$WORK"
S=$WORK/scale; rm -rf "$S"; mkdir -p "$S"
if [ -n "${BENCH_QUICK:-}" ]; then SMALL=100; LARGE=1000; ABSENT=10000; else SMALL=1000; LARGE=10000; ABSENT=100000; fi

# measure.sh CMD...: run CMD once, stdout to /dev/null; print "seconds rss_kib bytes_read
# bytes_written exit_code" (an exit code of 2 or more means the command failed: the row fails).
cat > "$S/measure.sh" <<'SH'
#!/usr/bin/env bash
io() { awk '/^rchar/ { r = $2 } /^wchar/ { w = $2 } END { print r, w }' "/proc/$$/io"; }
rss_file=$(mktemp)
read -r r0 w0 < <(io)
t0=$(date +%s.%N)
rc=0
if [ -x /usr/bin/time ]; then
  /usr/bin/time -f %M -o "$rss_file" "$@" >/dev/null || rc=$?
elif command -v python3 >/dev/null; then
  python3 -c 'import resource, subprocess, sys
rc = subprocess.run(sys.argv[2:], stdout=subprocess.DEVNULL).returncode
open(sys.argv[1], "w").write("%d\n" % resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)
sys.exit(rc)' "$rss_file" "$@" || rc=$?
else
  "$@" >/dev/null || rc=$?; echo "n/a" > "$rss_file"
fi
t1=$(date +%s.%N)
read -r r1 w1 < <(io)
echo "$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.3f", b - a }') $(tail -1 "$rss_file") $((r1 - r0)) $((w1 - w0)) $rc"
rm -f "$rss_file"
SH
chmod +x "$S/measure.sh"
M=$S/measure.sh

ROWS=()
row() {
  ROWS+=("$1|$2|$3|$4"); echo "  $1: $2 (target $3) $4" >&2
  if [ -n "${SCALE_ROWS:-}" ]; then echo "$1|$2|$3|$4" >> "$SCALE_ROWS"; fi
}
mb() { awk -v b="$1" 'BEGIN { printf "%.1f MB", b / 1e6 }'; }
mib() { awk -v k="$1" 'BEGIN { if (k == "n/a") print "n/a"; else printf "%.0f MiB", k / 1024 }'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.1f", (b > 0) ? a / b : 0 }'; }
# linear BIG SMALL: pass when 10x the input costs at most 15x (a constant start-up cost makes
# small ratios; quadratic work shows as ~100x)
linear() { awk -v r="$(ratio "$1" "$2")" 'BEGIN { print (r <= 15) ? "pass" : "FAIL" }'; }
within() { awk -v v="$1" -v t="$2" 'BEGIN { print (v <= t) ? "pass" : "FAIL" }'; }
# all V...: pass when every verdict passes
all() { for v in "$@"; do [ "$v" = pass ] || { echo FAIL; return; }; done; echo pass; }
# ran RC: the command did not fail (exit 0 or 1: 1 is "found what it looks for")
ran() { if [ "$1" -le 1 ]; then echo pass; else echo FAIL; fi; }
# baseline_read DIR: seconds to read every file of DIR with find and cat
baseline_read() { "$M" sh -c 'find "$@" -type f -print0 | xargs -0 cat' sh "$@" | cut -d' ' -f1; }
file_bytes() { find "$1" -type f -printf '%s\n' | awk '{ s += $1 } END { print s + 0 }'; }

# SCALE_ONLY=views skips to the views (section [9] views only).
if [ "${SCALE_ONLY:-}" != views ]; then
echo "[9] scale: $SMALL / $LARGE partitions, $ABSENT absent partitions (scratch $S)" >&2

# create --partitions N: every log-dir file written once (bytes written ~ the tree's bytes).
declare -A SECS READ WRITTEN RSS RC
for n in "$SMALL" "$LARGE"; do
  read -r secs rss r w rc < <("$M" "$K" create "$S/L$n" --topic t --partitions "$n" --replica-id 1)
  SECS[create$n]=$secs; RSS[create$n]=$rss; WRITTEN[create$n]=$w; RC[create$n]=$rc
  "$K" create "$S/F$n" --topic t --partitions "$n" --replica-id 2 >/dev/null
done
tree=$(file_bytes "$S/L$LARGE")
t_cp=$("$M" cp -a "$S/L$LARGE" "$S/cp$LARGE" | cut -d' ' -f1); rm -rf "$S/cp$LARGE"
row "create --partitions $LARGE" \
  "${SECS[create$LARGE]} s, $(mb "${WRITTEN[create$LARGE]}") written for $(mb "$tree") of files, $(mib "${RSS[create$LARGE]}"); $(ratio "${SECS[create$LARGE]}" "${SECS[create$SMALL]}")x the time and $(ratio "${WRITTEN[create$LARGE]}" "${WRITTEN[create$SMALL]}")x the bytes of $SMALL (cp -a of the tree: ${t_cp} s)" \
  "<= 10 s, <= 15x" \
  "$(all "$(ran "${RC[create$SMALL]}")" "$(ran "${RC[create$LARGE]}")" "$(within "${SECS[create$LARGE]}" 10)" \
    "$(linear "${SECS[create$LARGE]}" "${SECS[create$SMALL]}")" "$(linear "${WRITTEN[create$LARGE]}" "${WRITTEN[create$SMALL]}")")"

# crash DATA_DIR: every partition loses its volatile state; the state file is written once.
for n in "$SMALL" "$LARGE"; do
  read -r secs rss r w rc < <("$M" "$K" crash "$S/L$n")
  SECS[crash$n]=$secs; RSS[crash$n]=$rss; WRITTEN[crash$n]=$w; RC[crash$n]=$rc
done
row "crash DATA_DIR, $LARGE partitions" \
  "${SECS[crash$LARGE]} s, $(mb "${WRITTEN[crash$LARGE]}") written, $(mib "${RSS[crash$LARGE]}"); $(ratio "${SECS[crash$LARGE]}" "${SECS[crash$SMALL]}")x the time and $(ratio "${WRITTEN[crash$LARGE]}" "${WRITTEN[crash$SMALL]}")x the bytes of $SMALL" \
  "<= 5 s, <= 15x" \
  "$(all "$(ran "${RC[crash$SMALL]}")" "$(ran "${RC[crash$LARGE]}")" "$(within "${SECS[crash$LARGE]}" 5)" \
    "$(linear "${SECS[crash$LARGE]}" "${SECS[crash$SMALL]}")" "$(linear "${WRITTEN[crash$LARGE]}" "${WRITTEN[crash$SMALL]}")")"

# recover DATA_DIR (a broker's start-up after that crash: every partition loaded, indexes
# rebuilt) and stop DATA_DIR (a clean shutdown: every partition flushed, each log-dir file
# written once); then crash again, so the readers below see an unclean broker.
for label in recover stop; do
  for n in "$SMALL" "$LARGE"; do
    read -r secs rss r w rc < <("$M" "$K" "$label" "$S/L$n")
    SECS[$label$n]=$secs; RSS[$label$n]=$rss; WRITTEN[$label$n]=$w; RC[$label$n]=$rc
  done
  row "$label DATA_DIR, $LARGE partitions" \
    "${SECS[$label$LARGE]} s, $(mb "${WRITTEN[$label$LARGE]}") written, $(mib "${RSS[$label$LARGE]}"); $(ratio "${SECS[$label$LARGE]}" "${SECS[$label$SMALL]}")x the time and $(ratio "${WRITTEN[$label$LARGE]}" "${WRITTEN[$label$SMALL]}")x the bytes of $SMALL" \
    "<= 15 s, <= 15x" \
    "$(all "$(ran "${RC[$label$SMALL]}")" "$(ran "${RC[$label$LARGE]}")" "$(within "${SECS[$label$LARGE]}" 15)" \
      "$(linear "${SECS[$label$LARGE]}" "${SECS[$label$SMALL]}")" "$(linear "${WRITTEN[$label$LARGE]}" "${WRITTEN[$label$SMALL]}")")"
done
for n in "$SMALL" "$LARGE"; do "$K" crash "$S/L$n" >/dev/null; done

# The data-dir readers. Without klog's state file the dirs read as a broker's data dirs: the
# restart plan then takes the leader's epoch from its cache, as for a copy of a real broker.
for n in "$SMALL" "$LARGE"; do rm -f "$S/L$n/klog-state.json" "$S/F$n/klog-state.json"; done
reader() { # label args... (with @ for the data dir size)
  local label=$1; shift
  for n in "$SMALL" "$LARGE"; do
    local args=("${@//@/$n}")
    read -r secs rss r w rc < <("$M" "$K" "${args[@]}")
    SECS[$label$n]=$secs; RSS[$label$n]=$rss; READ[$label$n]=$r; WRITTEN[$label$n]=$w; RC[$label$n]=$rc
  done
  local base; base=$(baseline_read "$S/L$LARGE")
  row "$label, $LARGE partitions" \
    "${SECS[$label$LARGE]} s, $(mb "${READ[$label$LARGE]}") read, $(mib "${RSS[$label$LARGE]}"); $(ratio "${SECS[$label$LARGE]}" "${SECS[$label$SMALL]}")x the time and $(ratio "${READ[$label$LARGE]}" "${READ[$label$SMALL]}")x the bytes read of $SMALL (find+cat of the tree: ${base} s)" \
    "<= 5 s, <= 15x" \
    "$(all "$(ran "${RC[$label$SMALL]}")" "$(ran "${RC[$label$LARGE]}")" "$(within "${SECS[$label$LARGE]}" 5)" \
      "$(linear "${SECS[$label$LARGE]}" "${SECS[$label$SMALL]}")" "$(linear "${READ[$label$LARGE]}" "${READ[$label$SMALL]}")")"
}
reader "dump DATA_DIR" dump "$S/L@"
reader "check DATA_DIR" check "$S/L@"
reader "txn DATA_DIR" txn "$S/L@"
reader "recover --dry-run DATA_DIR" recover --dry-run "$S/L@"
reader "restart plan (recover --dry-run F --leader L)" recover --dry-run "$S/F@" --leader "$S/L@"
reader "diff DATA_DIR_A DATA_DIR_B" diff "$S/F@" "$S/L@"

# Checkpoints listing partitions not on disk (Kafka leaves them after a deletion or a move).
absent_dir() { # dir count
  "$K" create "$1" --topic t --partitions 2 >/dev/null
  for f in replication-offset-checkpoint recovery-point-offset-checkpoint; do
    awk -v n="$2" 'BEGIN { print 0; print n + 2; print "t 0 0"; print "t 1 0"; for (i = 0; i < n; i++) print "gone" i % 97 " " i " " i }' > "$1/$f"
  done
}
small_absent=$((ABSENT / 10))
absent_dir "$S/A$small_absent" "$small_absent"; absent_dir "$S/A$ABSENT" "$ABSENT"
for label in dump check; do
  for n in "$small_absent" "$ABSENT"; do
    read -r secs rss r w rc < <("$M" "$K" "$label" "$S/A$n")
    SECS[a$label$n]=$secs; RSS[a$label$n]=$rss; RC[a$label$n]=$rc
  done
  t_cat=$("$M" cat "$S/A$ABSENT/replication-offset-checkpoint" "$S/A$ABSENT/recovery-point-offset-checkpoint" | cut -d' ' -f1)
  row "$label, checkpoints listing $ABSENT absent partitions" \
    "${SECS[a$label$ABSENT]} s, $(mib "${RSS[a$label$ABSENT]}"); $(ratio "${SECS[a$label$ABSENT]}" "${SECS[a$label$small_absent]}")x the time of $small_absent (cat of the checkpoints: ${t_cat} s)" \
    "<= 5 s, <= 15x" \
    "$(all "$(ran "${RC[a$label$ABSENT]}")" "$(within "${SECS[a$label$ABSENT]}" 5)" \
      "$(linear "${SECS[a$label$ABSENT]}" "${SECS[a$label$small_absent]}")")"
done

# A checkpoint holding one 100 MB line: refused at the line cap, in bounded memory.
"$K" create "$S/long" >/dev/null
{ printf '0\n1\n'; head -c 100000000 /dev/zero | tr '\0' t; printf ' 0 0\n'; } > "$S/long/replication-offset-checkpoint"
read -r secs rss r w rc < <("$M" "$K" dump "$S/long")
out_bytes=$("$K" dump "$S/long" 2>&1 | wc -c)
row "dump with a 100 MB checkpoint line" "${secs} s, $(mib "$rss"), $(mb "$r") read, $out_bytes bytes of output" \
  "<= 1 s, < 10 kB out" "$(all "$(ran "$rc")" "$(within "$secs" 1)" "$(within "$out_bytes" 10000)")"

fi
[ "${SCALE_ONLY:-}" != partitions ] || exit 0

# The views over a KRaft data dir: `history` (the metadata log replayed, grouped by partition),
# the cluster view (`check D1 D2 --cluster`) and the restart plan (`recover --dry-run D1 D2
# D3`), at VIEW_SIZES partitions. Each dir: topic t with N partitions (`klog create`, klog's
# state removed: brokers' dirs), and in D1 a `__cluster_metadata-0` log written by
# examples/kraft_dir.rs (a TopicRecord, N PartitionRecords, 2N PartitionChangeRecords). One
# row per view: seconds at each size and microseconds per partition (flat when linear; a
# quadratic replay or grouping grows it 10x from 10,000 to 100,000: pass at <= 20x the time for
# 10x the partitions, as the file system's own per-file cost grows too — find+cat of the same
# files takes ~14x on a small machine — while a quadratic view takes ~100x), beside decoding the same
# metadata log (`dump --format kafka`) and, when the Kafka oracle's classpath is at
# ORACLE_CP (default kafka-oracle/target), Kafka's DumpLogSegments --cluster-metadata-decoder.
cargo build --release --quiet --example kraft_dir
GEN=$PWD/target/release/examples/kraft_dir
if [ -n "${BENCH_QUICK:-}" ]; then VIEW_SIZES=(1000 3000 10000); else VIEW_SIZES=(10000 30000 100000); fi
ORACLE_CP=${ORACLE_CP:-$PWD/kafka-oracle/target}
echo "[9] scale: views over KRaft data dirs of ${VIEW_SIZES[*]} partitions" >&2
kraft_dirs() { # n: three brokers' dirs under $S/K$n, the metadata log in d1
  local n=$1 r
  for r in 1 2 3; do "$K" create "$S/K$n/d$r" --topic t --partitions "$n" --replica-id "$r" >/dev/null; done
  "$K" create "$S/K$n/d1" --topic __cluster_metadata --replica-id 1 >/dev/null
  "$GEN" "$S/K$n/d1/__cluster_metadata-0/00000000000000000000.log" "$n"
  rm -f "$S/K$n"/d*/klog-state.json
}
declare -A VIEW
for n in "${VIEW_SIZES[@]}"; do
  kraft_dirs "$n"
  d=$S/K$n
  read -r VIEW[history$n] _ _ _ VIEW[history_rc$n] < <("$M" "$K" history "$d/d1")
  read -r VIEW[cluster$n] _ _ _ VIEW[cluster_rc$n] < <("$M" "$K" check "$d/d1" "$d/d2" --cluster)
  read -r VIEW[plan$n] _ _ _ VIEW[plan_rc$n] < <("$M" "$K" recover --dry-run "$d/d1" "$d/d2" "$d/d3")
  read -r VIEW[decode$n] _ _ _ _ < <("$M" "$K" dump "$d/d1/__cluster_metadata-0" --format kafka)
  VIEW[kafka$n]=n/a
  if [ -f "$ORACLE_CP/classpath.txt" ] && command -v java >/dev/null; then
    read -r VIEW[kafka$n] _ _ _ _ < <("$M" java -Xmx1G -cp "$ORACLE_CP/classes:$(cat "$ORACLE_CP/classpath.txt")" \
      org.apache.kafka.tools.DumpLogSegments --cluster-metadata-decoder \
      --files "$d/d1/__cluster_metadata-0/00000000000000000000.log")
  fi
  VIEW[cat2_$n]=$(baseline_read "$d/d1" "$d/d2"); VIEW[cat3_$n]=$(baseline_read "$d/d1" "$d/d2" "$d/d3")
  rm -rf "$d"
done
us() { awk -v s="$1" -v n="$2" 'BEGIN { printf "%.0f", s * 1e6 / n }'; }
view_row() { # label key target_seconds baseline_text
  local label=$1 key=$2 target=$3 baseline=$4 a=${VIEW_SIZES[0]} b=${VIEW_SIZES[1]} c=${VIEW_SIZES[2]}
  row "$label, $a / $b / $c partitions" \
    "${VIEW[$key$a]} / ${VIEW[$key$b]} / ${VIEW[$key$c]} s; $(us "${VIEW[$key$a]}" "$a") / $(us "${VIEW[$key$b]}" "$b") / $(us "${VIEW[$key$c]}" "$c") µs a partition; $(ratio "${VIEW[$key$c]}" "${VIEW[$key$a]}")x the time of $a ($baseline)" \
    "<= $target s at $c, <= 20x" \
    "$(all "$(ran "${VIEW[${key}_rc$a]}")" "$(ran "${VIEW[${key}_rc$b]}")" "$(ran "${VIEW[${key}_rc$c]}")" \
      "$(within "${VIEW[$key$c]}" "$target")" "$(within "$(ratio "${VIEW[$key$c]}" "${VIEW[$key$a]}")" 20)")"
}
decoding="decoding the metadata log, dump --format kafka: ${VIEW[decode${VIEW_SIZES[0]}]} / ${VIEW[decode${VIEW_SIZES[1]}]} / ${VIEW[decode${VIEW_SIZES[2]}]} s; Kafka's DumpLogSegments: ${VIEW[kafka${VIEW_SIZES[0]}]} / ${VIEW[kafka${VIEW_SIZES[1]}]} / ${VIEW[kafka${VIEW_SIZES[2]}]} s"
view_row "history DIR" history 5 "$decoding"
cat_of() { echo "find+cat of every file of the $1 dirs: ${VIEW[$2${VIEW_SIZES[0]}]} / ${VIEW[$2${VIEW_SIZES[1]}]} / ${VIEW[$2${VIEW_SIZES[2]}]} s"; }
view_row "cluster view (check D1 D2 --cluster)" cluster 60 "$(cat_of 2 cat2_)"
view_row "restart plan (recover --dry-run D1 D2 D3)" plan 120 "$(cat_of 3 cat3_)"

if [ -z "${SCALE_ROWS:-}" ]; then
  echo
  echo "| figure | measured | target | result |"
  echo "|---|---|---|---|"
  for r in "${ROWS[@]}"; do IFS='|' read -r a b c d <<<"$r"; echo "| $a | $b | $c | $d |"; done
fi
