#!/usr/bin/env bash
# Watch: the follower's high watermark lags the leader's by one fetch round trip; then the
# leader fails, the follower takes over, and the old leader restarts as its follower.
#
# B leads at epoch 1 with A in the ISR and takes two records. Expected: after fetch 1 A has
# LEO 2 and HW 0; after fetch 2 B's HW is 2 but A's is still 0; after fetch 3 A's HW is 2.
# Then B takes m3 and fails before A fetches it (m3 is never acknowledged); A is elected at
# epoch 2 and takes m4 at offset 2; B restarts as A's follower: under hw it trims to its own
# HW 2, under kip101 and kip279 it asks A where its epoch 1 ends (2). Every mode ends with
# both logs 0:(1,m1) 1:(1,m2) 2:(2,m4) and no acknowledged write lost.
set -euo pipefail
. "$(dirname "$0")/common.sh"
modes "hw kip101"
for mode in $MODES_CHOSEN; do
  echo "=================== truncation mode: $mode ==================="
  A=$LAB/$mode/a
  B=$LAB/$mode/b
  run create "$A" --replica-id 1
  run create "$B" --replica-id 2
  run elect "$B" --epoch 1 --isr "$A" $(entry "$mode")
  run append "$B" m1 m2 --timestamp 1000
  # Each fetch prints the leader's and the follower's LEO and HW.
  run fetch --leader "$B" "$A" --mode "$mode"
  run fetch --leader "$B" "$A" --mode "$mode"
  run fetch --leader "$B" "$A" --mode "$mode"
  # B takes m3 and fails before A fetches it.
  run append "$B" m3 --timestamp 2000
  run crash "$B"
  # A takes over at epoch 2 and takes m4.
  run elect "$A" --epoch 2 $(entry "$mode")
  run append "$A" m4 --timestamp 3000
  # B restarts as a follower of A and catches up.
  run recover "$B" --leader "$A" --mode "$mode" --catch-up
  run dump "$B" --epochs
  run diff "$A" "$B"
done
