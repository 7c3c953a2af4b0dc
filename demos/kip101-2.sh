#!/usr/bin/env bash
# KIP-101 scenario 2: after two hard failures the replicas hold different
# records at one offset.
#
# A leads at epoch 0 and flushes m1 and m2; B copies m2 but does not flush it.
# Power fails on both: B loses m2, A keeps it. B is elected at epoch 1 and
# writes m3 at offset 1. Expected: hw leaves A = 0:(0,m1) 1:(0,m2) and B =
# 0:(0,m1) 1:(1,m3), diverged at 1 with both believing offset 1 committed;
# kip101/kip279 truncate A to 1 and both end 0:(0,m1) 1:(1,m3) (m2 is lost in
# every mode: both replicas failed).
set -euo pipefail
. "$(dirname "$0")/common.sh"
modes "hw kip101"
for mode in $MODES_CHOSEN; do
  echo "=================== truncation mode: $mode ==================="
  A=$LAB/$mode/a
  B=$LAB/$mode/b
  run create "$A" --replica-id 1
  run create "$B" --replica-id 2
  run elect "$A" --epoch 0 --isr "$B" $(entry "$mode")
  run append "$A" m1 --timestamp 1000 --flush
  run fetch --leader "$A" "$B" --rounds 3 --flush --mode "$mode"
  run append "$A" m2 --timestamp 2000 --flush
  # B copies m2 and learns HW 1 then 2, but never flushes m2.
  run fetch --leader "$A" "$B" --rounds 2 --mode "$mode"
  # Power fails on both: only flushed bytes survive.
  run crash "$A" --power-loss
  run crash "$B" --power-loss
  run elect "$B" --epoch 1 $(entry "$mode")
  run append "$B" m3 --timestamp 3000
  run recover "$A" --leader "$B" --mode "$mode" --catch-up
  run diff "$A" "$B" || true
  # The two replicas as the demo leaves them.
  run draw "$A" "$B"
done
