package klog.oracle;

import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.Arrays;
import org.apache.kafka.common.TopicIdPartition;
import org.apache.kafka.server.log.remote.storage.RemoteLogSegmentMetadata;

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
    private Tiered() {}

    public static void main(String[] args) throws Exception {
        if (args.length < 1 || !args[0].equals("remote-segments")) {
            System.err.println("usage: Tiered remote-segments PARTITION_DIR...");
            System.exit(2);
        }
        RemoteFold fold = RemoteFold.of(Arrays.asList(args).subList(1, args.length));
        for (TopicIdPartition tp : fold.partitions) {
            for (RemoteLogSegmentMetadata s : fold.segments(tp)) {
                ObjectNode o = RemoteFold.segmentJson(tp, s);
                o.put("max_timestamp_ms", s.maxTimestampMs());
                o.put("event_timestamp_ms", s.eventTimestampMs());
                System.out.println(o);
            }
        }
        System.out.println(fold.summary());
        System.out.flush();
        Runtime.getRuntime().halt(0);
    }
}
