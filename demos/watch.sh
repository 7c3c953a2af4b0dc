#!/usr/bin/env bash
# Watch: the follower's high watermark lags the leader's by one fetch round
# trip; the follower crashes with that stale HW and restarts; then the leader
# fails and the follower takes over.
#
# B leads at epoch 1 with A in the ISR and takes m1 and m2. Expected: after
# fetch 1 A has LEO 2 and HW 0; after fetch 2 B's HW is 2 (m1 and m2 are
# acknowledged) but A's is still 0. A crashes now, its HW checkpoint saying 0
# (`crash --hw N` leaves any value there: at restart a HW can be arbitrarily
# stale), and restarts as B's follower: under hw it cuts its log at its own HW 0
# (ACK-CUT m1 m2: only B holds them); under kip101 and kip279 it asks B where
# epoch 1 ends (2) and keeps them. B fails; A is elected at epoch 2 and takes
# m4; B restarts as A's follower. Under hw both logs end 0:(2,m4): m1 and m2
# were acknowledged and are lost (ACK-LOST). Under kip101 and kip279 both end
# 0:(1,m1) 1:(1,m2) 2:(2,m4), nothing lost.
set -euo pipefail
. "$(dirname "$0")/common.sh"
modes "hw kip101"
for mode in $MODES_CHOSEN; do
  echo "=================== truncation mode: $mode ==================="
  A=$LAB/$mode/a
  B=$LAB/$mode/b
  # The narration is the terminal Watch's (`klog demo watch`), each line after
  # the step it explains.
  run create "$A" --replica-id 1
  run create "$B" --replica-id 2
  run elect "$B" --epoch 1 --isr "$A" $(entry "$mode")
  run append "$B" m1 m2 --timestamp 1000
  say "Fetch 1: A fetches from its log end, offset 0."
  run fetch --leader "$B" "$A" --mode "$mode"
  say "A copied both records (LEO 2), but the response carried the HW B read" \
    "before it recorded A's fetch: 0."
  say "Fetch 2: A fetches from offset 2."
  run fetch --leader "$B" "$A" --mode "$mode"
  say "B recorded A's fetch offset 2 and moved its HW to 2: m1 and m2 are" \
    "acknowledged. It answered with the HW it read first, 0: A learns HW 2" \
    "only in a third fetch, one round trip behind B."
  say "A's HW is 0 while B's is 2. A crashes now, before that third fetch:" \
    "its HW checkpoint says 0 (at restart a HW can be arbitrarily stale;" \
    "\`crash --hw N\` leaves any value there)."
  run crash "$A" --hw 0
  say "A restarts as B's follower."
  run recover "$A" --leader "$B" --mode "$mode"
  if [ "$mode" = hw ]; then
    say "A cut its log at its own HW, 0: m1 and m2 went, to be fetched again" \
      "(B still holds them)."
  else
    say "A asked B where its epoch 1 ends (2) and kept m1 and m2:" \
      "its HW played no part."
  fi
  say "B fails before A fetches again; A is elected at epoch 2 and takes m4."
  run crash "$B"
  run elect "$A" --epoch 2 $(entry "$mode")
  run append "$A" m4 --timestamp 2000
  say "B restarts as A's follower and fetches."
  run recover "$B" --leader "$A" --mode "$mode" --catch-up
  if [ "$mode" = hw ]; then
    say "A's log no longer held m1 and m2 when it was elected: they were" \
      "acknowledged and are lost."
  else
    say "Both logs end 0:(1,m1) 1:(1,m2) 2:(2,m4):" \
      "nothing acknowledged was lost."
  fi
  run dump "$B" --epochs
  run diff "$A" "$B"
  run draw "$A" "$B"
done
