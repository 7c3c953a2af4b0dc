package klog.oracle;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.File;
import java.lang.reflect.Method;
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.Iterator;
import java.util.LinkedHashSet;
import java.util.Map;
import java.util.Set;
import org.apache.kafka.common.TopicIdPartition;
import org.apache.kafka.common.record.internal.FileRecords;
import org.apache.kafka.common.record.internal.Record;
import org.apache.kafka.common.record.internal.RecordBatch;
import org.apache.kafka.server.log.remote.metadata.storage.RemotePartitionMetadataStore;
import org.apache.kafka.server.log.remote.metadata.storage.serialization.RemoteLogMetadataSerde;
import org.apache.kafka.server.log.remote.storage.RemoteLogMetadata;
import org.apache.kafka.server.log.remote.storage.RemoteLogSegmentMetadata;
import org.apache.kafka.server.log.remote.storage.RemoteLogSegmentMetadataUpdate;
import org.apache.kafka.server.log.remote.storage.RemotePartitionDeleteMetadata;

/**
 * Kafka's own reading of `__remote_log_metadata`, for klog's tiered-storage comparisons
 * (tests/kafka/real_tiered.rs). It judges nothing: it runs Kafka 4.4's code and prints what
 * that code computed.
 *
 * <pre>
 * remote-segments PARTITION_DIR...
 *     the .log segments of each __remote_log_metadata-N dir, in offset order, each data record
 *     deserialized by RemoteLogMetadataSerde and handed to one RemotePartitionMetadataStore (the
 *     topic-based metadata manager's fold: RemoteLogMetadataCache per partition; every partition
 *     loaded and marked initialized first, as the manager's consumer does once caught up); then
 *     one JSON line per remote segment listRemoteLogSegments(partition) gives:
 *     {"topic","partition","topic_id","segment_id","start_offset","end_offset",
 *      "segment_leader_epochs":[[epoch,offset]...],"state","broker_id","segment_size_in_bytes",
 *      "max_timestamp_ms","event_timestamp_ms"}, and a last line
 *     {"records": N, "by_class": {...}, "thrown": N} (events the store threw on)
 * </pre>
 */
public final class Tiered {
    private static final ObjectMapper JSON = new ObjectMapper();

    private Tiered() {}

    public static void main(String[] args) throws Exception {
        if (args.length < 1 || !args[0].equals("remote-segments")) {
            System.err.println("usage: Tiered remote-segments PARTITION_DIR...");
            System.exit(2);
        }
        RemoteLogMetadataSerde serde = new RemoteLogMetadataSerde();
        RemotePartitionMetadataStore store = new RemotePartitionMetadataStore();
        Set<TopicIdPartition> partitions = new LinkedHashSet<>();
        long records = 0;
        long thrown = 0;
        ObjectNode byClass = JSON.createObjectNode();
        for (String dir : Arrays.copyOfRange(args, 1, args.length)) {
            File[] logs = new File(dir).listFiles((d, n) -> n.endsWith(".log"));
            if (logs == null) continue;
            Arrays.sort(logs);
            for (File log : logs) {
                try (FileRecords fr = FileRecords.open(log)) {
                    for (RecordBatch batch : fr.batches()) {
                        if (batch.isControlBatch()) continue;
                        for (Record r : batch) {
                            records++;
                            ByteBuffer v = r.value();
                            byte[] bytes = new byte[v.remaining()];
                            v.get(bytes);
                            RemoteLogMetadata m = serde.deserialize(bytes);
                            String name = m.getClass().getSimpleName();
                            byClass.put(name, byClass.path(name).asLong(0) + 1);
                            TopicIdPartition tp = partitionOf(m);
                            if (tp != null && partitions.add(tp)) {
                                store.maybeLoadPartition(tp);
                                store.markInitialized(tp);
                            }
                            try {
                                store.handleRemoteLogMetadata(m);
                            } catch (RuntimeException e) {
                                thrown++;
                            }
                        }
                    }
                }
            }
        }
        Method list = RemotePartitionMetadataStore.class.getDeclaredMethod("listRemoteLogSegments", TopicIdPartition.class);
        list.setAccessible(true);
        for (TopicIdPartition tp : partitions) {
            Iterator<?> it;
            try {
                it = (Iterator<?>) list.invoke(store, tp);
            } catch (java.lang.reflect.InvocationTargetException e) {
                continue; // a partition whose deletion finished
            }
            while (it.hasNext()) {
                RemoteLogSegmentMetadata s = (RemoteLogSegmentMetadata) it.next();
                ObjectNode o = JSON.createObjectNode();
                o.put("topic", tp.topic());
                o.put("partition", tp.partition());
                o.put("topic_id", tp.topicId().toString());
                o.put("segment_id", s.remoteLogSegmentId().id().toString());
                o.put("start_offset", s.startOffset());
                o.put("end_offset", s.endOffset());
                ArrayNode epochs = o.putArray("segment_leader_epochs");
                for (Map.Entry<Integer, Long> e : s.segmentLeaderEpochs().entrySet()) {
                    epochs.addArray().add(e.getKey()).add(e.getValue());
                }
                o.put("state", s.state().name());
                o.put("broker_id", s.brokerId());
                o.put("segment_size_in_bytes", s.segmentSizeInBytes());
                o.put("max_timestamp_ms", s.maxTimestampMs());
                o.put("event_timestamp_ms", s.eventTimestampMs());
                System.out.println(o);
            }
        }
        ObjectNode done = JSON.createObjectNode();
        done.put("records", records);
        done.set("by_class", byClass);
        done.put("thrown", thrown);
        System.out.println(done);
        System.out.flush();
        Runtime.getRuntime().halt(0);
    }

    private static TopicIdPartition partitionOf(RemoteLogMetadata m) {
        if (m instanceof RemoteLogSegmentMetadata s) return s.remoteLogSegmentId().topicIdPartition();
        if (m instanceof RemoteLogSegmentMetadataUpdate u) return u.remoteLogSegmentId().topicIdPartition();
        if (m instanceof RemotePartitionDeleteMetadata d) return d.topicIdPartition();
        return null;
    }
}
