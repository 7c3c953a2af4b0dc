#!/usr/bin/env bash
# Watch: the follower's high watermark lags the leader's by one fetch round trip.
#
# B leads at epoch 1 with A in the ISR and takes two records. Expected: after fetch 1 A has
# LEO 2 and HW 0; after fetch 2 B's HW is 2 but A's is still 0; after fetch 3 A's HW is 2.
set -euo pipefail
. "$(dirname "$0")/common.sh"
A=$LAB/a
B=$LAB/b
fresh "$A" "$B"
run create "$A" --replica-id 1
run create "$B" --replica-id 2
run elect "$B" --epoch 1 --isr "$A"
run append "$B" m1 m2 --timestamp 1000
# Each fetch prints the leader's and the follower's LEO and HW.
run fetch --leader "$B" "$A"
run fetch --leader "$B" "$A"
run fetch --leader "$B" "$A"
run dump "$A" --epochs
