#!/usr/bin/env bash
# Stuck LSO: a transactional producer dies mid-transaction, and a transaction
# the coordinator never saw (KAFKA-9144's hanging transaction).
#
# A leads at epoch 1 with B in the ISR. Producer 1000 writes t1 t2 (offsets 2-3)
# in a transaction and dies; o3-o5 keep coming from other producers and B
# fetches them: the HW is 7, the LSO stays at 2, and read_committed consumers
# cannot read offsets 2 to 6. The coordinator's timeout bumps the producer's
# epoch to 1 and writes an ABORT marker with its coordinator epoch (3) at offset
# 7; the LSO stays at 2 until the HW passes the marker, then jumps to the HW 8.
# Then producer 2000's transactional h1 (offset 8) arrives although the
# coordinator never saw its transaction: its timeout passes and ends nothing
# (the coordinator has no ongoing transaction for it), the LSO stays at 8 while
# the HW reaches 11. That is what the admin abort is for, a transaction the
# coordinator no longer knows (kafka-transactions.sh find-hanging lists it):
# the `kafka-transactions.sh abort --start-offset 8` line klog txn prints. The
# broker carries it out by writing the ABORT marker with the producer's epoch
# and coordinator epoch (-1: none, so the tool sends 0), which this script does
# with klog from klog txn's own answer. The LSO ends at 12.
set -euo pipefail
. "$(dirname "$0")/common.sh"
D=$LAB/stuck-lso
fresh "$D"
A=$D/a
B=$D/b
run create "$A" --replica-id 1
run create "$B" --replica-id 2
run elect "$A" --epoch 1 --isr "$B"
run append "$A" o1 o2 --timestamp 1000
run fetch --leader "$A" "$B" --rounds 2
say "producer 1000 writes t1 t2 in a transaction, then its process dies" \
  "before it commits"
run append "$A" t1 t2 --timestamp 2000 \
  --producer-id 1000 --producer-epoch 0 --transactional
run append "$A" o3 o4 o5 --timestamp 3000
run fetch --leader "$A" "$B" --rounds 2
say "ask klog where A's LSO is, where read_committed consumers stop"
run txn "$A"
say "transaction.timeout.ms passes: the coordinator knows this transaction;" \
  "it fences the producer (epoch 1) and aborts it"
run append "$A" --timestamp 63000 \
  --producer-id 1000 --producer-epoch 1 --end-txn abort --coordinator-epoch 3
say "the marker is on A, not yet on B"
run txn "$A"
run fetch --leader "$A" "$B" --rounds 2
run txn "$A"
say "producer 2000's transactional batch arrives; the coordinator never saw" \
  "its transaction"
run append "$A" h1 --timestamp 64000 \
  --producer-id 2000 --producer-epoch 0 --transactional
run append "$A" o6 o7 --timestamp 65000
run fetch --leader "$A" "$B" --rounds 2
run txn "$A"
say "transaction.timeout.ms passes, and passes again:" \
  "ask klog where A's LSO is now"
run txn "$A"
say "the coordinator has no ongoing transaction for producer 2000:" \
  "its timeout writes no marker. The admin abort is for such a transaction," \
  "one the" \
  "coordinator no longer knows (kafka-transactions.sh find-hanging lists it):" \
  "the abort line klog txn printed."
# kafka-transactions.sh finds the producer whose transaction starts there
# (DescribeProducers) and sends its epoch and its coordinator epoch (0 when it
# has none); the broker writes that ABORT marker.
ABORT_LINE='s/.*kafka-transactions.sh .* abort .*--start-offset \([0-9]*\)$/'
ABORT_LINE+='\1/p'
START=$("$KLOG" txn "$A" | sed -n "$ABORT_LINE" | head -n 1)
JSON=$("$KLOG" txn "$A" --json)
FIELDS='{"producer_id":[0-9]*,"producer_epoch":[0-9]*,[^}]*'
PRODUCER=$(grep -o "$FIELDS\"current_txn_first_offset\":$START," <<<"$JSON")
PID=$(sed 's/.*"producer_id":\([0-9]*\),.*/\1/' <<<"$PRODUCER")
PEPOCH=$(sed 's/.*"producer_epoch":\([0-9]*\),.*/\1/' <<<"$PRODUCER")
CEPOCH=$(sed 's/.*"coordinator_epoch":\(-\{0,1\}[0-9]*\),.*/\1/' <<<"$PRODUCER")
((CEPOCH < 0)) && CEPOCH=0
say "kafka-transactions.sh abort --start-offset $START:" \
  "producer $PID epoch $PEPOCH, coordinator epoch $CEPOCH"
run append "$A" --timestamp 66000 --producer-id "$PID" \
  --producer-epoch "$PEPOCH" --end-txn abort --coordinator-epoch "$CEPOCH"
run fetch --leader "$A" "$B" --rounds 2
# LSO 12 = HW 12: read_committed consumers read everything again.
run txn "$A"
