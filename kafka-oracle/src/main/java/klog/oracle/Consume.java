package klog.oracle;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.time.Duration;
import java.util.List;
import java.util.Properties;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringDeserializer;

/**
 * A consumer reading one partition from its earliest offset, for klog's tiered-storage
 * comparisons (tests/kafka/real_tiered.rs): what a consumer gets, offset by offset, from
 * whatever tier the leader answers from. It judges nothing.
 *
 * <pre>
 * from-earliest BOOTSTRAP TOPIC PARTITION
 *     assign the partition (no group), auto.offset.reset=none, seekToBeginning; poll until the
 *     position reaches the end offset (the high watermark) or 20 s pass without a record, or
 *     the fetch fails; then one JSON line:
 *     {"start": the position after seekToBeginning, "end": the end offset,
 *      "records": [[offset, value]...], "position": the position at the end,
 *      "error": the exception's class and message, if any}
 * </pre>
 */
public final class Consume {
    private static final ObjectMapper JSON = new ObjectMapper();

    private Consume() {}

    public static void main(String[] args) throws Exception {
        if (args.length != 4 || !args[0].equals("from-earliest")) {
            System.err.println("usage: Consume from-earliest BOOTSTRAP TOPIC PARTITION");
            System.exit(2);
        }
        Properties p = new Properties();
        p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, args[1]);
        p.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
        p.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
        p.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "none");
        p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
        TopicPartition tp = new TopicPartition(args[2], Integer.parseInt(args[3]));
        ObjectNode o = JSON.createObjectNode();
        ArrayNode records = o.putArray("records");
        try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(p)) {
            consumer.assign(List.of(tp));
            consumer.seekToBeginning(List.of(tp));
            long start = consumer.position(tp, Duration.ofSeconds(20));
            long end = consumer.endOffsets(List.of(tp), Duration.ofSeconds(20)).get(tp);
            o.put("start", start);
            o.put("end", end);
            long idleSince = System.currentTimeMillis();
            try {
                while (consumer.position(tp) < end && System.currentTimeMillis() - idleSince < 20_000) {
                    var batch = consumer.poll(Duration.ofMillis(500));
                    for (ConsumerRecord<String, String> r : batch.records(tp)) {
                        ArrayNode pair = records.addArray();
                        pair.add(r.offset());
                        pair.add(r.value());
                        idleSince = System.currentTimeMillis();
                    }
                }
            } catch (Exception e) {
                o.put("error", e.getClass().getSimpleName() + ": " + e.getMessage());
            }
            o.put("position", consumer.position(tp));
        }
        System.out.println(o);
        System.out.flush();
        Runtime.getRuntime().halt(0);
    }
}
