package klog.oracle;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.BufferedReader;
import java.io.File;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.TopicIdPartition;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.RecordBatch;
import org.apache.kafka.server.common.CheckpointFile;
import org.apache.kafka.server.log.remote.storage.LocalTieredStorage;
import org.apache.kafka.server.log.remote.storage.RemoteLogSegmentMetadata;
import org.apache.kafka.server.log.remote.storage.RemoteLogSegmentState;
import org.apache.kafka.server.log.remote.storage.RemoteResourceNotFoundException;
import org.apache.kafka.server.log.remote.storage.RemoteStorageManager.IndexType;
import org.apache.kafka.storage.internals.checkpoint.LeaderEpochCheckpointFile;
import org.apache.kafka.storage.internals.log.EpochEntry;
import org.apache.kafka.storage.internals.log.ProducerStateEntry;
import org.apache.kafka.storage.internals.log.ProducerStateManager;

/**
 * Kafka's own reading of a klog tiered lab (tests/kafka/lab_tier.rs): the lab's
 * `__remote_log_metadata-0` decoded by Kafka 4.4's RemoteLogMetadataSerde and folded by its
 * RemotePartitionMetadataStore (the topic-based metadata manager's cache), and each finished
 * remote segment's files read through Kafka's LocalTieredStorage, as a broker's remote reads
 * and a follower's aux-state rebuild read them. It judges nothing: it prints what Kafka's code
 * computed.
 *
 * <pre>
 * read METADATA_PARTITION_DIR STORAGE_DIR
 *     one JSON line per segment listRemoteLogSegments gives:
 *     {"segment_id","start_offset","end_offset","segment_leader_epochs":[[e,o]...],"state",
 *      "broker_id","segment_size_in_bytes","txn_index_empty"}, and for each COPY_SEGMENT_FINISHED
 *     one, what LocalTieredStorage serves: "log": {"bytes","batches","first_offset","last_offset",
 *     "valid"} (fetchLogSegment from 0, every batch's CRC checked), "offset_index_bytes",
 *     "time_index_bytes", "txn_index_bytes" (null: RemoteResourceNotFoundException),
 *     "leader_epoch_checkpoint": [[e,o]...] (fetchIndex(LEADER_EPOCH) read with
 *     CheckpointFile.CheckpointReadBuffer and LeaderEpochCheckpointFile.FORMATTER, as
 *     TierStateMachine.readLeaderEpochCheckpoint does), "producer_snapshot_entries" (the snapshot
 *     fetched, read by ProducerStateManager.readSnapshot); or "error" when a fetch threw.
 *     Last line: {"records": N, "by_class": {...}, "thrown": N}.
 * </pre>
 */
public final class LabTier {
    private LabTier() {}

    public static void main(String[] args) throws Exception {
        if (args.length != 3 || !args[0].equals("read")) {
            System.err.println("usage: LabTier read METADATA_PARTITION_DIR STORAGE_DIR");
            System.exit(2);
        }
        RemoteFold fold = RemoteFold.of(List.of(args[1]));
        LocalTieredStorage storage = new LocalTieredStorage();
        Map<String, Object> config = new HashMap<>();
        config.put(LocalTieredStorage.STORAGE_DIR_CONFIG, args[2]);
        config.put(LocalTieredStorage.BROKER_ID, 0);
        config.put(LocalTieredStorage.DELETE_ON_CLOSE_CONFIG, "false");
        storage.configure(config);
        for (TopicIdPartition tp : fold.partitions) {
            for (RemoteLogSegmentMetadata s : fold.segments(tp)) {
                ObjectNode o = RemoteFold.segmentJson(tp, s);
                o.put("txn_index_empty", s.isTxnIdxEmpty());
                if (s.state() == RemoteLogSegmentState.COPY_SEGMENT_FINISHED) {
                    try {
                        readFiles(storage, s, o);
                    } catch (Exception e) {
                        o.put("error", e.toString());
                    }
                }
                System.out.println(o);
            }
        }
        System.out.println(fold.summary());
        System.out.flush();
        Runtime.getRuntime().halt(0);
    }

    private static byte[] readAll(InputStream in) throws Exception {
        try (InputStream i = in) {
            return i.readAllBytes();
        }
    }

    private static void readFiles(LocalTieredStorage storage, RemoteLogSegmentMetadata s, ObjectNode o) throws Exception {
        byte[] log = readAll(storage.fetchLogSegment(s, 0));
        MemoryRecords records = MemoryRecords.readableRecords(ByteBuffer.wrap(log));
        ObjectNode l = o.putObject("log");
        l.put("bytes", log.length);
        long batches = 0;
        long first = -1;
        long last = -1;
        boolean valid = true;
        for (RecordBatch b : records.batches()) {
            batches++;
            if (first < 0) first = b.baseOffset();
            last = b.lastOffset();
            valid &= b.isValid();
        }
        l.put("batches", batches);
        l.put("first_offset", first);
        l.put("last_offset", last);
        l.put("valid", valid);
        o.put("offset_index_bytes", readAll(storage.fetchIndex(s, IndexType.OFFSET)).length);
        o.put("time_index_bytes", readAll(storage.fetchIndex(s, IndexType.TIMESTAMP)).length);
        try {
            o.put("txn_index_bytes", readAll(storage.fetchIndex(s, IndexType.TRANSACTION)).length);
        } catch (RemoteResourceNotFoundException e) {
            o.putNull("txn_index_bytes");
        }
        try (BufferedReader reader = new BufferedReader(
                new InputStreamReader(storage.fetchIndex(s, IndexType.LEADER_EPOCH), StandardCharsets.UTF_8))) {
            List<EpochEntry> entries =
                new CheckpointFile.CheckpointReadBuffer<>("remote", reader, 0, LeaderEpochCheckpointFile.FORMATTER).read();
            ArrayNode a = o.putArray("leader_epoch_checkpoint");
            for (EpochEntry e : entries) {
                a.addArray().add(e.epoch()).add(e.startOffset());
            }
        }
        File snapshot = Files.createTempFile("lab-tier", ".snapshot").toFile();
        try {
            Files.write(snapshot.toPath(), readAll(storage.fetchIndex(s, IndexType.PRODUCER_SNAPSHOT)));
            List<ProducerStateEntry> entries = ProducerStateManager.readSnapshot(snapshot);
            o.put("producer_snapshot_entries", entries.size());
        } finally {
            snapshot.delete();
        }
    }
}
