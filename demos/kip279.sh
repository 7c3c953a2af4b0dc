#!/usr/bin/env bash
# KIP-279: fast leader failover defeats KIP-101's offset-only answer.
#
# A leads at epoch 1: a0-a10 (B copies them), then a11-a20 (B does not). B is
# elected at epoch 2 and writes b11-b15; A is elected again at epoch 3 and
# writes a21. B restarts against A. Expected: kip101 keeps B's b11-b15 (A
# answers 21 > B's LEO 16): diverged, and the next fetch is stuck; kip279 (A
# answers epoch 1, end 21; B's epoch 1 ends at 11) truncates B to 11 and both
# end 0-20:(1,a0..a20) 21:(3,a21).
set -euo pipefail
. "$(dirname "$0")/common.sh"
modes "kip101 kip279"
for mode in $MODES_CHOSEN; do
  echo "=================== truncation mode: $mode ==================="
  A=$LAB/$mode/a
  B=$LAB/$mode/b
  run create "$A" --replica-id 1
  run create "$B" --replica-id 2
  run elect "$A" --epoch 1 --isr "$B" $(entry "$mode")
  run append "$A" a0 a1 a2 a3 a4 a5 a6 a7 a8 a9 a10 --timestamp 1000
  run fetch --leader "$A" "$B" --rounds 3 --mode "$mode"
  run append "$A" a11 a12 a13 a14 a15 a16 a17 a18 a19 a20 --timestamp 2000
  # B takes over at epoch 2 before fetching a11-a20, and writes its own offsets
  # 11-15.
  run elect "$B" --epoch 2 --isr "$A" $(entry "$mode")
  run append "$B" b11 b12 b13 b14 b15 --timestamp 3000
  # A is back in charge at epoch 3.
  run elect "$A" --epoch 3 --isr "$B" $(entry "$mode")
  run append "$A" a21 --timestamp 4000
  run recover "$B" --leader "$A" --mode "$mode"
  # Under kip101 this fetch is stuck (exit 1): A's batch 11-20 starts below B's
  # LEO 16.
  run fetch --leader "$A" "$B" --rounds 3 --mode "$mode" || true
  run diff "$A" "$B" || true
  # The two replicas as the demo leaves them.
  run draw "$A" "$B"
done
