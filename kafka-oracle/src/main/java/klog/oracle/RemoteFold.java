package klog.oracle;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.File;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Iterator;
import java.util.LinkedHashSet;
import java.util.List;
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
 * Kafka 4.4's fold of `__remote_log_metadata`, shared by {@link Tiered} (a real cluster's
 * copies) and {@link LabTier} (a klog lab): the .log segments of each metadata partition dir,
 * in offset order, each data record deserialized by RemoteLogMetadataSerde and handed to one
 * RemotePartitionMetadataStore (the topic-based metadata manager's RemoteLogMetadataCache per
 * partition; every partition loaded and marked initialized first, as the manager's consumer does
 * once caught up). Control batches are skipped, as the manager's consumer never sees them.
 */
final class RemoteFold {
    static final ObjectMapper JSON = new ObjectMapper();

    final RemotePartitionMetadataStore store = new RemotePartitionMetadataStore();
    /** The partitions the records name, in the order first named. */
    final Set<TopicIdPartition> partitions = new LinkedHashSet<>();
    long records;
    /** Events the store threw on. */
    long thrown;
    final ObjectNode byClass = JSON.createObjectNode();

    private RemoteFold() {}

    static RemoteFold of(List<String> metadataPartitionDirs) throws Exception {
        RemoteFold fold = new RemoteFold();
        RemoteLogMetadataSerde serde = new RemoteLogMetadataSerde();
        for (String dir : metadataPartitionDirs) {
            File[] logs = new File(dir).listFiles((d, n) -> n.endsWith(".log"));
            if (logs == null) continue;
            Arrays.sort(logs);
            for (File log : logs) {
                try (FileRecords fr = FileRecords.open(log)) {
                    for (RecordBatch batch : fr.batches()) {
                        if (batch.isControlBatch()) continue;
                        for (Record r : batch) {
                            ByteBuffer v = r.value();
                            byte[] bytes = new byte[v.remaining()];
                            v.get(bytes);
                            fold.apply(serde.deserialize(bytes));
                        }
                    }
                }
            }
        }
        return fold;
    }

    private void apply(RemoteLogMetadata m) {
        records++;
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

    private static TopicIdPartition partitionOf(RemoteLogMetadata m) {
        if (m instanceof RemoteLogSegmentMetadata s) return s.remoteLogSegmentId().topicIdPartition();
        if (m instanceof RemoteLogSegmentMetadataUpdate u) return u.remoteLogSegmentId().topicIdPartition();
        if (m instanceof RemotePartitionDeleteMetadata d) return d.topicIdPartition();
        return null;
    }

    /**
     * What the store's (private) listRemoteLogSegments(partition) gives, in its order; empty for
     * a partition whose deletion finished (the store throws there).
     */
    List<RemoteLogSegmentMetadata> segments(TopicIdPartition tp) throws Exception {
        Method list = RemotePartitionMetadataStore.class.getDeclaredMethod("listRemoteLogSegments", TopicIdPartition.class);
        list.setAccessible(true);
        List<RemoteLogSegmentMetadata> out = new ArrayList<>();
        Iterator<?> it;
        try {
            it = (Iterator<?>) list.invoke(store, tp);
        } catch (InvocationTargetException e) {
            return out;
        }
        while (it.hasNext()) out.add((RemoteLogSegmentMetadata) it.next());
        return out;
    }

    /** A remote segment's fields both probes print. */
    static ObjectNode segmentJson(TopicIdPartition tp, RemoteLogSegmentMetadata s) {
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
        return o;
    }

    /** The last line: {"records": N, "by_class": {...}, "thrown": N}. */
    ObjectNode summary() {
        ObjectNode done = JSON.createObjectNode();
        done.put("records", records);
        done.set("by_class", byClass);
        done.put("thrown", thrown);
        return done;
    }
}
