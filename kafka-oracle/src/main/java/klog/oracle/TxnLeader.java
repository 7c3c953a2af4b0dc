package klog.oracle;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.File;
import java.io.PrintStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.message.AbortedTxn;
import org.apache.kafka.common.message.DescribeProducersResponseData;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.utils.Time;
import org.apache.kafka.server.common.RequestLocal;
import org.apache.kafka.server.common.TransactionVersion;
import org.apache.kafka.storage.internals.checkpoint.CleanShutdownFileHandler;
import org.apache.kafka.storage.internals.checkpoint.OffsetCheckpointFile;
import org.apache.kafka.storage.internals.log.AppendOrigin;
import org.apache.kafka.storage.internals.log.LogConfig;
import org.apache.kafka.storage.internals.log.LogDirFailureChannel;
import org.apache.kafka.storage.internals.log.LogStartOffsetIncrementReason;
import org.apache.kafka.storage.internals.log.ProducerStateManagerConfig;
import org.apache.kafka.storage.internals.log.UnifiedLog;
import org.apache.kafka.storage.internals.log.VerificationGuard;
import org.apache.kafka.storage.log.metrics.BrokerTopicStats;

/**
 * A partition written by Kafka's own leader code (issue 41, point 7): {@code txn-leader-batch
 * MANIFEST} reads lines {@code PARTITION_DIR<TAB>OPS_FILE}; each ops file is a list of steps run
 * on a {@code UnifiedLog} opened in that dir (its parent a log dir):
 * {@code append FILE client|coordinator} ({@code appendAsLeader} of the batches in FILE at
 * leader epoch 0: data from a client, markers from the coordinator), {@code hw} (the HW to the
 * log end), {@code delete OFFSET} (DeleteRecords: {@code maybeIncrementLogStartOffset} with
 * {@code ClientRecordDeletion}, bounded by the HW as {@code ReplicaManager} bounds it),
 * {@code roll}, and last {@code stop clean|unclean}. A clean stop closes the log (its producer
 * snapshot) and writes the log dir's checkpoints and {@code .kafka_cleanshutdown} as
 * {@code LogManager.shutdown} does; an unclean stop writes the checkpoints a periodic flush
 * writes (log start, recovery point, HW) and leaves the log open and its queued flushes unrun,
 * as a killed broker does.
 * Prints, per case, what the running leader held before the stop: log start, HW, LSO, first
 * unstable offset, {@code activeProducers} (describe-producers) and the aborted transactions
 * a read_committed fetch from the log start is given.
 */
final class TxnLeader {
    private static final ObjectMapper JSON = new ObjectMapper();

    private TxnLeader() {}

    static void batch(Path manifest, PrintStream out) throws Exception {
        for (String line : Files.readAllLines(manifest, StandardCharsets.UTF_8)) {
            if (line.isEmpty()) continue;
            String[] f = line.split("\t");
            out.println(run(new File(f[0]), Path.of(f[1])));
            out.flush();
        }
    }

    private static String run(File dir, Path ops) throws Exception {
        ObjectNode o = JSON.createObjectNode();
        o.put("dir", dir.getPath());
        Oracle.QueuedScheduler scheduler = new Oracle.QueuedScheduler();
        LogDirFailureChannel failures = new LogDirFailureChannel(1);
        UnifiedLog log = UnifiedLog.create(dir, new LogConfig(Map.of()), 0L, 0L, scheduler,
                new BrokerTopicStats(false), Time.SYSTEM, 900_000,
                new ProducerStateManagerConfig(86_400_000, false), 600_000, failures,
                true, Optional.empty());
        ArrayNode errors = JSON.createArrayNode();
        String stop = "clean";
        for (String step : Files.readAllLines(ops, StandardCharsets.UTF_8)) {
            String[] s = step.split(" ");
            try {
                switch (s[0]) {
                    case "append" -> {
                        MemoryRecords records = MemoryRecords.readableRecords(ByteBuffer.wrap(Files.readAllBytes(Path.of(s[1]))));
                        if (s[2].equals("coordinator")) {
                            // The coordinator's markers under transaction version 0 (the markers'
                            // producer epoch is the transaction's: TV_0 writes no bumped epoch).
                            log.appendAsLeader(records, 0, AppendOrigin.COORDINATOR, RequestLocal.noCaching(),
                                    VerificationGuard.SENTINEL, TransactionVersion.TV_0.featureLevel());
                        } else {
                            log.appendAsLeader(records, 0, AppendOrigin.CLIENT);
                        }
                    }
                    case "hw" -> log.updateHighWatermark(log.logEndOffset());
                    case "delete" -> log.maybeIncrementLogStartOffset(
                            Math.min(Long.parseLong(s[1]), log.highWatermark()), LogStartOffsetIncrementReason.ClientRecordDeletion);
                    case "roll" -> log.roll();
                    case "stop" -> stop = s[1];
                    case "" -> { }
                    default -> throw new IllegalArgumentException("unknown step " + step);
                }
            } catch (Exception e) {
                errors.add(step + ": " + e.getClass().getName() + ": " + e.getMessage());
            }
        }
        o.set("errors", errors);
        o.put("log_start_offset", log.logStartOffset());
        o.put("log_end_offset", log.logEndOffset());
        o.put("high_watermark", log.highWatermark());
        o.put("last_stable_offset", log.lastStableOffset());
        Optional<Long> unstable = log.firstUnstableOffset();
        if (unstable.isPresent()) o.put("first_unstable_offset", unstable.get());
        else o.putNull("first_unstable_offset");
        ArrayNode producers = JSON.createArrayNode();
        for (DescribeProducersResponseData.ProducerState p : log.activeProducers()) {
            ObjectNode n = JSON.createObjectNode();
            n.put("producer_id", p.producerId());
            n.put("producer_epoch", p.producerEpoch());
            n.put("last_sequence", p.lastSequence());
            n.put("last_timestamp", p.lastTimestamp());
            n.put("coordinator_epoch", p.coordinatorEpoch());
            n.put("current_txn_start_offset", p.currentTxnStartOffset());
            producers.add(n);
        }
        o.set("producers", producers);
        ArrayNode aborted = JSON.createArrayNode();
        for (AbortedTxn a : log.collectAbortedTransactions(log.logStartOffset(), log.logEndOffset())) {
            aborted.add(JSON.createArrayNode().add(a.producerId()).add(a.firstOffset()));
        }
        o.set("aborted", aborted);
        TopicPartition tp = log.topicPartition();
        File logDir = dir.getParentFile();
        // A clean stop runs what the scheduler queued (the flushes a roll schedules) and closes
        // the log; a killed broker leaves them queued and its files as they are.
        if (stop.equals("clean")) {
            scheduler.runQueued();
            log.close();
        }
        // The checkpoints LogManager keeps for the dir (checkpointLogStartOffsets,
        // checkpointRecoveryOffsets; ReplicaManager's HW checkpoint).
        new OffsetCheckpointFile(new File(logDir, "log-start-offset-checkpoint"), failures).write(Map.of(tp, log.logStartOffset()));
        new OffsetCheckpointFile(new File(logDir, "recovery-point-offset-checkpoint"), failures).write(Map.of(tp, log.recoveryPoint()));
        new OffsetCheckpointFile(new File(logDir, "replication-offset-checkpoint"), failures).write(Map.of(tp, log.highWatermark()));
        if (stop.equals("clean")) new CleanShutdownFileHandler(logDir.getPath()).write(0L);
        return JSON.writeValueAsString(o);
    }
}
