#!/usr/bin/env bash
# Tiers: the Watch continued across a remote tier (KIP-405, Kafka 4.4's rules).
#
# A and B are made with a remote tier (LocalTieredStorage in $D/remote) and
# segments of one record; the timestamps are in 2100, so retention.ms plays no
# part. B leads at epoch 1 with A in the ISR; A fetches m1 m2 and crashes. B
# shrinks its ISR to itself and takes m3 m4, copies its closed segments 0..2 to
# remote storage and deletes them locally: its log starts at 0, its local log
# at 3, above A's log end 2. A restarts: its fetch at 2 is answered
# OFFSET_MOVED_TO_TIERED_STORAGE, A rebuilds its epoch cache and producer state
# from the remote segment 2..2 and starts its log at 3. A fetches m4 and crashes
# again; B takes m5 m6 alone and copies 3..3 and 4..4. B fails, A is elected
# at epoch 2 without B (unclean) and takes n1; B restarts as A's follower and
# truncates to 4. klog remote then says the remote segment 4..4 (m5, epoch 1)
# is served by no broker (salvage: still in its remote .log file), and m6 is in
# no file of either tier.
set -euo pipefail
. "$(dirname "$0")/common.sh"
D=$LAB/tiers
fresh "$D"
A=$D/a
B=$D/b
R=$D/remote
T=4102444800000
run create "$A" --replica-id 1 --segment-bytes 100 --remote-dir "$R"
run create "$B" --replica-id 2 --segment-bytes 100 --remote-dir "$R"
run elect "$B" --epoch 1 --isr "$A"
run append "$B" m1 --timestamp "$T"
run append "$B" m2 --timestamp "$((T + 1000))"
run fetch --leader "$B" "$A" --rounds 3
say "A crashes and stays down; B shrinks its ISR to itself and takes m3 m4"
run crash "$A"
run alter-isr "$B"
run append "$B" m3 --timestamp "$((T + 2000))"
run append "$B" m4 --timestamp "$((T + 3000))"
say "B copies its closed segments to remote storage and deletes them locally"
run tier copy "$B"
run tier retain "$B" --local-retention-bytes 0
say "A restarts below B's local log start: it rebuilds from remote storage"
run recover "$A" --leader "$B" --explain
run fetch --leader "$B" "$A" --rounds 2
say "A crashes again; B takes m5 m6 alone and copies its closed segments"
run crash "$A"
run append "$B" m5 --timestamp "$((T + 4000))"
run append "$B" m6 --timestamp "$((T + 5000))"
run tier copy "$B"
say "B fails; A is elected at epoch 2 without B (unclean) and takes n1"
run crash "$B"
run elect "$A" --epoch 2
run append "$A" n1 --timestamp "$((T + 6000))"
say "B restarts as A's follower"
run recover "$B" --leader "$A"
say "what each broker serves across the tiers, and what remote files hold"
run remote "$A" "$B" --remote-dir "$R"
run draw "$A" "$B"
