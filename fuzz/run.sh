#!/usr/bin/env bash
# Corruption fuzzing of klog's decoders with cargo-fuzz (libFuzzer).
#
# Usage: fuzz/run.sh [SECONDS_PER_TARGET] [TARGET...]     (default 600 s, every target)
#
# Seeds fuzz/corpus/<target>/ from the klog-written fixtures and the real broker log dirs in
# ../shared/kafka-real (read in place; the corpus is gitignored and must never be committed),
# builds the targets with overflow checks and AddressSanitizer, runs them one at a time with
# -max_total_time (inputs up to 16 KiB, 10 s per input before it counts as a hang, 2 GiB RSS),
# and prints per target the executions and the crash artifacts it left in
# fuzz/artifacts/<target>/. Exit status: 0 when no target crashed, 1 when one did, 2 when the
# tools are missing. Needs a nightly toolchain (rustup) and `cargo install cargo-fuzz`.
# FUZZ_TARGET_DIR overrides the build dir (default fuzz/target).
set -euo pipefail

seconds=${1:-600}
shift || true
all_targets=(compressed batch legacy record index snapshot checkpoint state_file answer properties internal_record)
if [ $# -gt 0 ]; then targets=("$@"); else targets=("${all_targets[@]}"); fi
case "$seconds" in '' | *[!0-9]*) echo "fuzz/run.sh: SECONDS_PER_TARGET must be a number, got '$seconds'" >&2; exit 2 ;; esac

root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"

nightly=$(rustup toolchain list 2>/dev/null | awk '/^nightly/ { print $1; exit }' || true)
if [ -z "$nightly" ]; then
    echo "fuzz/run.sh: no nightly toolchain on this machine (rustup toolchain list shows none);" \
        "cargo-fuzz needs one: rustup toolchain install nightly. Not fuzzing." >&2
    exit 2
fi
if ! cargo +"$nightly" fuzz --version >/dev/null 2>&1; then
    echo "fuzz/run.sh: cargo-fuzz is not installed: cargo install cargo-fuzz. Not fuzzing." >&2
    exit 2
fi
target_dir=${FUZZ_TARGET_DIR:-$root/fuzz/target}

echo "== seeding fuzz/corpus from fixtures/ and ../shared/kafka-real"
seed_inputs=("$root/fixtures")
if [ -d "$root/../shared/kafka-real" ]; then
    seed_inputs+=("$root/../shared/kafka-real")
else
    echo "   ../shared/kafka-real is absent: seeding from klog's fixtures only"
fi
CARGO_TARGET_DIR="$target_dir" cargo +"$nightly" run --quiet --manifest-path fuzz/Cargo.toml \
    --example seed -- fuzz/corpus "${seed_inputs[@]}"

echo "== building ${targets[*]} (toolchain $nightly, debug assertions, AddressSanitizer)"
for t in "${targets[@]}"; do
    cargo +"$nightly" fuzz build --debug-assertions --target-dir "$target_dir" "$t"
done

total_execs=0
total_crashes=0
results=()
for t in "${targets[@]}"; do
    mkdir -p "fuzz/artifacts/$t" "fuzz/corpus/$t"
    log="fuzz/artifacts/$t/last-run.log"
    before=$(find "fuzz/artifacts/$t" -maxdepth 1 -type f \( -name 'crash-*' -o -name 'oom-*' -o -name 'timeout-*' -o -name 'leak-*' \) | wc -l)
    echo "== $t: ${seconds}s"
    # libFuzzer exits non-zero on the first crash; that is reported below, not fatal here.
    cargo +"$nightly" fuzz run --debug-assertions --target-dir "$target_dir" "$t" "fuzz/corpus/$t" -- \
        -max_total_time="$seconds" -max_len=16384 -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
        -artifact_prefix="fuzz/artifacts/$t/" >"$log" 2>&1 || true
    execs=$(awk '/stat::number_of_executed_units:/ { print $2 }' "$log" | tail -1)
    execs=${execs:-0}
    after=$(find "fuzz/artifacts/$t" -maxdepth 1 -type f \( -name 'crash-*' -o -name 'oom-*' -o -name 'timeout-*' -o -name 'leak-*' \) | wc -l)
    crashes=$((after - before))
    ran=$(awk '/stat::(average_exec_per_sec|number_of_executed_units)/' "$log" | tr '\n' ' ')
    printf '%-11s executions %12s   crashes %d   (%s)\n' "$t" "$execs" "$crashes" "${ran:-no stats: see $log}"
    if [ "$crashes" -gt 0 ]; then
        # shellcheck disable=SC2012 # artifact names are hex hashes
        ls -t "fuzz/artifacts/$t" | grep -E '^(crash|oom|timeout|leak)-' | head -n "$crashes" | sed "s|^|            fuzz/artifacts/$t/|"
        grep -m1 -E 'panicked|ERROR: (libFuzzer|AddressSanitizer)' "$log" | sed 's/^/            /' || true
    fi
    results+=("$t=$execs/$crashes")
    total_execs=$((total_execs + execs))
    total_crashes=$((total_crashes + crashes))
done

echo "== summary: ${#targets[@]} targets, ${seconds}s each, $total_execs executions, $total_crashes crashes (${results[*]}; executions/crashes)"
[ "$total_crashes" -eq 0 ]
