#!/usr/bin/env bash
# KIP-101 scenario 1: truncating to the high watermark loses an acknowledged
# record.
#
# B leads at epoch 0 with A in the ISR. B appends m1 and m2; A copies both, but
# A learns the high watermark one fetch late, so A's HW is 1 while m2 is already
# committed on B (HW 2). A restarts and truncates; then B dies and A becomes
# leader. Run once with Kafka <= 0.10.2's rule (truncate to the HW) and once
# with KIP-101's (ask the leader for the epoch's end). Expected: hw ends with A
# = 0:(0,m1) 1:(1,m3), B = 0:(0,m1) 1:(0,m2) (m2 acked and lost, diverged at 1);
# kip101/kip279 end with both = 0:(0,m1) 1:(0,m2) 2:(1,m3).
set -euo pipefail
. "$(dirname "$0")/common.sh"
modes "hw kip101"
for mode in $MODES_CHOSEN; do
  echo "=================== truncation mode: $mode ==================="
  A=$LAB/$mode/a
  B=$LAB/$mode/b
  run create "$A" --replica-id 1
  run create "$B" --replica-id 2
  # B leads at epoch 0 with A in the ISR (acks=all).
  run elect "$B" --epoch 0 --isr "$A" $(entry "$mode")
  run append "$B" m1 --timestamp 1000
  run fetch --leader "$B" "$A" --rounds 3 --mode "$mode"
  # m2 is committed on B after A's second fetch, but A's HW stays at 1 (one
  # round trip behind).
  run append "$B" m2 --timestamp 2000
  run fetch --leader "$B" "$A" --rounds 2 --mode "$mode"
  # A restarts and rejoins as a follower of B.
  run crash "$A"
  run recover "$A" --leader "$B" --mode "$mode"
  # B dies before A refetches; A becomes the leader at epoch 1 and takes m3.
  run crash "$B"
  run elect "$A" --epoch 1 $(entry "$mode")
  run append "$A" m3 --timestamp 3000
  # B comes back as a follower of A and catches up.
  run recover "$B" --leader "$A" --mode "$mode" --catch-up
  # diff exits 1 when the replicas diverged: that is the point of the hw run.
  run diff "$A" "$B" || true
  # The two replicas as the demo leaves them.
  run draw "$A" "$B"
done
