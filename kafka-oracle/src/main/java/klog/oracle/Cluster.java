package klog.oracle;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.BufferedReader;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.InputStreamReader;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.AlterConfigOp;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.ElectionType;
import org.apache.kafka.common.Node;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.TopicPartitionInfo;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.errors.TimeoutException;
import org.apache.kafka.common.message.MetadataRequestData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ByteBufferAccessor;
import org.apache.kafka.common.requests.MetadataRequest;
import org.apache.kafka.common.requests.MetadataResponse;
import org.apache.kafka.common.requests.RequestHeader;
import org.apache.kafka.common.requests.ResponseHeader;
import org.apache.kafka.common.serialization.StringSerializer;

/**
 * A producer and an admin client for the real-cluster sequences (kafka-oracle/cluster.sh). It
 * judges nothing: it does what it is told against running brokers and prints, one JSON line per
 * answer, exactly what the brokers answered.
 *
 * <pre>
 * produce BOOTSTRAP TOPIC PREFIX FROM COUNT
 *     COUNT sends of one record each (value PREFIX-i), acks=all, no idempotence, no retries,
 *     each awaited before the next: {"value","outcome":"acked"|"failed"|"unknown","offset",
 *     "error"}; "unknown" is a timeout (the record may or may not be in a log)
 * create BOOTSTRAP TOPIC BROKERS [KEY=VALUE...]
 *     one partition on BROKERS (comma-separated node ids, the first the preferred leader),
 *     with the given topic configs: {"created": TOPIC}
 * alter BOOTSTRAP TOPIC KEY=VALUE...
 *     Admin.incrementalAlterConfigs (SET) on the topic: {"altered": TOPIC}
 * describe BOOTSTRAP TOPIC
 *     partition 0 as the controller's metadata tells it: {"leader","leader_epoch","replicas",
 *     "isr","elr","last_known_elr","metadata_leader"}; the epoch comes from a Metadata request
 *     to the first broker of BOOTSTRAP that answers (Admin's describe leaves it out), and
 *     metadata_leader is the leader that answer names (when it differs from "leader", the two
 *     brokers asked had not yet heard of the same election)
 * elect BOOTSTRAP TOPIC preferred|unclean
 *     Admin.electLeaders for partition 0: {"elected": true} or {"error": ...}
 * create-assigned BOOTSTRAP TOPIC ASSIGNMENT [KEY=VALUE...]
 *     one partition per /-separated replica list of ASSIGNMENT (1,2,3/2,3,1: partition 0 on
 *     1,2,3, partition 1 on 2,3,1), with the given topic configs: {"created": TOPIC}
 * produce-partition BOOTSTRAP TOPIC PARTITION PREFIX FROM COUNT
 *     as produce, to PARTITION
 * describe-partition BOOTSTRAP TOPIC PARTITION
 *     as describe, of PARTITION
 * elect-partition BOOTSTRAP TOPIC PARTITION preferred|unclean
 *     as elect, of PARTITION
 * commit-offsets BOOTSTRAP GROUP TOPIC PARTITION OFFSET
 *     Admin.alterConsumerGroupOffsets of GROUP (an offset commit to its coordinator):
 *     {"committed": GROUP, "partition": the __consumer_offsets partition that holds the group
 *     (Kafka's abs(hashCode) % partition count)}
 * transaction BOOTSTRAP TOPIC PARTITION TRANSACTIONAL_ID PREFIX COUNT commit|abort
 *     a transactional producer: initTransactions, COUNT sends (values PREFIX-i) to PARTITION in
 *     one transaction, then commit or abort: {"transaction": ID, "outcome": "committed" |
 *     "aborted", "partition": the __transaction_state partition of ID}
 * tiered-offsets BOOTSTRAP TOPIC PARTITION
 *     Admin.listOffsets of PARTITION for OffsetSpec earliest, earliestLocal (ListOffsets
 *     timestamp -4) and latest: {"earliest","earliest_local","latest"}
 * serve
 *     read commands (tab-separated, as above) from stdin, answer each, then print {"done":true}
 * </pre>
 */
public final class Cluster {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Map<String, Admin> ADMINS = new HashMap<>();
    private static final Map<String, KafkaProducer<String, String>> PRODUCERS = new HashMap<>();

    private Cluster() {}

    public static void main(String[] args) throws Exception {
        if (args.length == 1 && args[0].equals("serve")) {
            BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
            String line;
            while ((line = in.readLine()) != null) {
                if (line.isBlank()) continue;
                try {
                    run(line.split("\t"));
                } catch (Exception e) {
                    ObjectNode o = JSON.createObjectNode();
                    o.put("error", e.toString());
                    System.out.println(o);
                }
                System.out.println("{\"done\":true}");
                System.out.flush();
            }
        } else {
            run(args);
        }
        PRODUCERS.values().forEach(p -> p.close(java.time.Duration.ofSeconds(1)));
        ADMINS.values().forEach(a -> a.close(java.time.Duration.ofSeconds(1)));
        System.out.flush();
        Runtime.getRuntime().halt(0);
    }

    private static void run(String[] args) throws Exception {
        if (args.length < 3) throw new IllegalArgumentException("usage: see Cluster.java: " + Arrays.toString(args));
        String bootstrap = args[1];
        String topic = args[2];
        switch (args[0]) {
            case "produce" -> produce(bootstrap, topic, 0, args[3], Integer.parseInt(args[4]), Integer.parseInt(args[5]));
            case "create" -> create(bootstrap, topic, args[3], Arrays.copyOfRange(args, 4, args.length));
            case "alter" -> alter(bootstrap, topic, Arrays.copyOfRange(args, 3, args.length));
            case "describe" -> System.out.println(describe(bootstrap, topic, 0));
            case "elect" -> elect(bootstrap, topic, 0, args[3]);
            case "create-assigned" -> createAssigned(bootstrap, topic, args[3], Arrays.copyOfRange(args, 4, args.length));
            case "produce-partition" -> produce(bootstrap, topic, Integer.parseInt(args[3]), args[4], Integer.parseInt(args[5]), Integer.parseInt(args[6]));
            case "describe-partition" -> System.out.println(describe(bootstrap, topic, Integer.parseInt(args[3])));
            case "elect-partition" -> elect(bootstrap, topic, Integer.parseInt(args[3]), args[4]);
            case "commit-offsets" -> commitOffsets(bootstrap, topic, args[3], Integer.parseInt(args[4]), Long.parseLong(args[5]));
            case "transaction" -> transaction(bootstrap, topic, Integer.parseInt(args[3]), args[4], args[5], Integer.parseInt(args[6]), args[7]);
            case "offsets" -> offsets(bootstrap, topic, Integer.parseInt(args[3]));
            case "tiered-offsets" -> tieredOffsets(bootstrap, topic, Integer.parseInt(args[3]));
            default -> throw new IllegalArgumentException("unknown command " + args[0]);
        }
        System.out.flush();
    }

    private static Admin admin(String bootstrap) {
        return ADMINS.computeIfAbsent(bootstrap, b -> {
            Properties p = new Properties();
            p.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, b);
            p.put(AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, "5000");
            p.put(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, "10000");
            p.put(AdminClientConfig.RETRIES_CONFIG, "3");
            return Admin.create(p);
        });
    }

    private static KafkaProducer<String, String> producer(String bootstrap) {
        return PRODUCERS.computeIfAbsent(bootstrap, b -> {
            Properties p = new Properties();
            p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, b);
            p.put(ProducerConfig.ACKS_CONFIG, "all");
            p.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, "false");
            p.put(ProducerConfig.RETRIES_CONFIG, "0");
            p.put(ProducerConfig.LINGER_MS_CONFIG, "0");
            p.put(ProducerConfig.MAX_IN_FLIGHT_REQUESTS_PER_CONNECTION, "1");
            p.put(ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, "4000");
            p.put(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, "4000");
            p.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, "4000");
            p.put("metadata.max.age.ms", "1000");
            p.put(ProducerConfig.COMPRESSION_TYPE_CONFIG, "none");
            p.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
            p.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
            return new KafkaProducer<>(p);
        });
    }

    private static void produce(String bootstrap, String topic, int partition, String prefix, int from, int count) {
        KafkaProducer<String, String> producer = producer(bootstrap);
        for (int i = from; i < from + count; i++) {
            String value = prefix + "-" + i;
            ObjectNode o = JSON.createObjectNode();
            o.put("value", value);
            try {
                RecordMetadata m = producer.send(new ProducerRecord<>(topic, partition, null, value)).get(6, TimeUnit.SECONDS);
                o.put("outcome", "acked");
                o.put("offset", m.offset());
            } catch (ExecutionException e) {
                Throwable c = e.getCause();
                o.put("outcome", c instanceof TimeoutException ? "unknown" : "failed");
                o.put("error", c.getClass().getSimpleName() + ": " + c.getMessage());
            } catch (Exception e) {
                o.put("outcome", "unknown");
                o.put("error", e.getClass().getSimpleName() + ": " + e.getMessage());
            }
            System.out.println(o);
            System.out.flush();
        }
    }

    private static void create(String bootstrap, String topic, String brokers, String[] configs) throws Exception {
        List<Integer> replicas = new ArrayList<>();
        for (String b : brokers.split(",")) replicas.add(Integer.parseInt(b));
        Map<String, String> conf = new HashMap<>();
        for (String kv : configs) {
            int eq = kv.indexOf('=');
            conf.put(kv.substring(0, eq), kv.substring(eq + 1));
        }
        NewTopic t = new NewTopic(topic, Map.of(0, replicas)).configs(conf);
        admin(bootstrap).createTopics(List.of(t)).all().get(20, TimeUnit.SECONDS);
        ObjectNode o = JSON.createObjectNode();
        o.put("created", topic);
        System.out.println(o);
    }

    private static void alter(String bootstrap, String topic, String[] configs) throws Exception {
        List<AlterConfigOp> ops = new ArrayList<>();
        for (String kv : configs) {
            int eq = kv.indexOf('=');
            ops.add(new AlterConfigOp(new ConfigEntry(kv.substring(0, eq), kv.substring(eq + 1)), AlterConfigOp.OpType.SET));
        }
        ConfigResource r = new ConfigResource(ConfigResource.Type.TOPIC, topic);
        admin(bootstrap).incrementalAlterConfigs(Map.of(r, ops)).all().get(20, TimeUnit.SECONDS);
        ObjectNode o = JSON.createObjectNode();
        o.put("altered", topic);
        System.out.println(o);
    }

    private static ObjectNode describe(String bootstrap, String topic, int partition) throws Exception {
        TopicDescription d = admin(bootstrap).describeTopics(List.of(topic)).allTopicNames().get(10, TimeUnit.SECONDS).get(topic);
        TopicPartitionInfo p = d.partitions().get(partition);
        ObjectNode o = JSON.createObjectNode();
        o.put("leader", p.leader() == null || p.leader().isEmpty() ? -1 : p.leader().id());
        int[] fromMetadata = leaderEpoch(bootstrap, topic, partition);
        o.put("leader_epoch", fromMetadata[1]);
        o.put("metadata_leader", fromMetadata[0]);
        ids(o.putArray("replicas"), p.replicas());
        ids(o.putArray("isr"), p.isr());
        ids(o.putArray("elr"), p.elr());
        ids(o.putArray("last_known_elr"), p.lastKnownElr());
        return o;
    }

    private static void ids(ArrayNode a, List<Node> nodes) {
        if (nodes != null) nodes.forEach(n -> a.add(n.id()));
    }

    /**
     * The leader and leader epoch of a partition from a Metadata request (v12) to the first broker
     * that answers: {leader, epoch}.
     */
    private static int[] leaderEpoch(String bootstrap, String topic, int partition) throws Exception {
        Exception last = null;
        for (String hostPort : bootstrap.split(",")) {
            int colon = hostPort.lastIndexOf(':');
            try (Socket s = new Socket()) {
                s.connect(new InetSocketAddress(hostPort.substring(0, colon), Integer.parseInt(hostPort.substring(colon + 1))), 2000);
                s.setSoTimeout(3000);
                short version = 12;
                MetadataRequestData data = new MetadataRequestData()
                        .setTopics(List.of(new MetadataRequestData.MetadataRequestTopic().setName(topic)))
                        .setAllowAutoTopicCreation(false);
                MetadataRequest req = new MetadataRequest(data, version);
                RequestHeader header = new RequestHeader(ApiKeys.METADATA, version, "klog-cluster", 1);
                ByteBuffer buf = req.serializeWithHeader(header);
                DataOutputStream out = new DataOutputStream(s.getOutputStream());
                out.writeInt(buf.remaining());
                out.write(buf.array(), buf.arrayOffset() + buf.position(), buf.remaining());
                out.flush();
                DataInputStream in = new DataInputStream(s.getInputStream());
                byte[] resp = new byte[in.readInt()];
                in.readFully(resp);
                ByteBuffer rb = ByteBuffer.wrap(resp);
                ResponseHeader.parse(rb, ApiKeys.METADATA.responseHeaderVersion(version));
                MetadataResponse r = MetadataResponse.parse(new ByteBufferAccessor(rb), version);
                for (MetadataResponse.TopicMetadata tm : r.topicMetadata()) {
                    for (MetadataResponse.PartitionMetadata pm : tm.partitionMetadata()) {
                        if (pm.partition() == partition) return new int[] {pm.leaderId.orElse(-1), pm.leaderEpoch.orElse(-1)};
                    }
                }
                return new int[] {-1, -1};
            } catch (Exception e) {
                last = e;
            }
        }
        throw new IllegalStateException("no broker of " + bootstrap + " answered a Metadata request", last);
    }

    private static void elect(String bootstrap, String topic, int partition, String kind) throws Exception {
        ElectionType type = switch (kind) {
            case "preferred" -> ElectionType.PREFERRED;
            case "unclean" -> ElectionType.UNCLEAN;
            default -> throw new IllegalArgumentException("election type preferred|unclean, not " + kind);
        };
        ObjectNode o = JSON.createObjectNode();
        TopicPartition tp = new TopicPartition(topic, partition);
        try {
            var r = admin(bootstrap).electLeaders(type, Set.of(tp)).partitions().get(20, TimeUnit.SECONDS);
            var err = r.get(tp);
            if (err != null && err.isPresent()) {
                o.put("error", err.get().getClass().getSimpleName() + ": " + err.get().getMessage());
            } else {
                o.put("elected", true);
            }
        } catch (ExecutionException e) {
            o.put("error", e.getCause().getClass().getSimpleName() + ": " + e.getCause().getMessage());
        }
        System.out.println(o);
    }

    private static void createAssigned(String bootstrap, String topic, String assignment, String[] configs) throws Exception {
        Map<Integer, List<Integer>> parts = new HashMap<>();
        String[] lists = assignment.split("/");
        for (int i = 0; i < lists.length; i++) {
            List<Integer> replicas = new ArrayList<>();
            for (String b : lists[i].split(",")) replicas.add(Integer.parseInt(b));
            parts.put(i, replicas);
        }
        Map<String, String> conf = new HashMap<>();
        for (String kv : configs) {
            int eq = kv.indexOf('=');
            conf.put(kv.substring(0, eq), kv.substring(eq + 1));
        }
        admin(bootstrap).createTopics(List.of(new NewTopic(topic, parts).configs(conf))).all().get(20, TimeUnit.SECONDS);
        ObjectNode o = JSON.createObjectNode();
        o.put("created", topic);
        System.out.println(o);
    }

    /** The partition of an internal topic that holds KEY: Kafka's abs(hashCode) % partitions. */
    private static int internalPartition(String bootstrap, String internalTopic, String key) throws Exception {
        TopicDescription d = admin(bootstrap).describeTopics(List.of(internalTopic)).allTopicNames().get(10, TimeUnit.SECONDS).get(internalTopic);
        return org.apache.kafka.common.utils.Utils.abs(key.hashCode()) % d.partitions().size();
    }

    private static void commitOffsets(String bootstrap, String group, String topic, int partition, long offset) throws Exception {
        var offsets = Map.of(new TopicPartition(topic, partition), new org.apache.kafka.clients.consumer.OffsetAndMetadata(offset, "klog"));
        admin(bootstrap).alterConsumerGroupOffsets(group, offsets).all().get(20, TimeUnit.SECONDS);
        ObjectNode o = JSON.createObjectNode();
        o.put("committed", group);
        o.put("partition", internalPartition(bootstrap, "__consumer_offsets", group));
        System.out.println(o);
    }

    private static void transaction(String bootstrap, String topic, int partition, String id, String prefix, int count, String end) throws Exception {
        Properties p = new Properties();
        p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        p.put(ProducerConfig.TRANSACTIONAL_ID_CONFIG, id);
        p.put(ProducerConfig.ACKS_CONFIG, "all");
        p.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, "true");
        p.put(ProducerConfig.LINGER_MS_CONFIG, "0");
        p.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, "20000");
        p.put(ProducerConfig.COMPRESSION_TYPE_CONFIG, "none");
        p.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
        p.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
        ObjectNode o = JSON.createObjectNode();
        o.put("transaction", id);
        if (end.startsWith("open:")) {
            // A producer that dies mid-transaction: its records are written, then it is closed
            // at once (a forced close does not abort), its transaction left to the coordinator's
            // timeout (the number after "open:", in ms).
            p.put(ProducerConfig.TRANSACTION_TIMEOUT_CONFIG, end.substring(5));
            KafkaProducer<String, String> producer = new KafkaProducer<>(p);
            producer.initTransactions();
            producer.beginTransaction();
            for (int i = 0; i < count; i++) {
                producer.send(new ProducerRecord<>(topic, partition, null, prefix + "-" + i)).get(20, TimeUnit.SECONDS);
            }
            producer.close(java.time.Duration.ZERO);
            o.put("outcome", "open");
            o.put("partition", internalPartition(bootstrap, "__transaction_state", id));
            System.out.println(o);
            return;
        }
        try (KafkaProducer<String, String> producer = new KafkaProducer<>(p)) {
            producer.initTransactions();
            producer.beginTransaction();
            for (int i = 0; i < count; i++) {
                producer.send(new ProducerRecord<>(topic, partition, null, prefix + "-" + i)).get(20, TimeUnit.SECONDS);
            }
            if (end.equals("commit")) {
                producer.commitTransaction();
                o.put("outcome", "committed");
            } else {
                producer.abortTransaction();
                o.put("outcome", "aborted");
            }
        }
        o.put("partition", internalPartition(bootstrap, "__transaction_state", id));
        System.out.println(o);
    }

    /** The partition's high watermark (latest, read_uncommitted) and last stable offset (latest, read_committed) as its leader answers ListOffsets. */
    private static void offsets(String bootstrap, String topic, int partition) throws Exception {
        TopicPartition tp = new TopicPartition(topic, partition);
        ObjectNode o = JSON.createObjectNode();
        for (var level : List.of(org.apache.kafka.common.IsolationLevel.READ_UNCOMMITTED, org.apache.kafka.common.IsolationLevel.READ_COMMITTED)) {
            var result = admin(bootstrap)
                .listOffsets(Map.of(tp, org.apache.kafka.clients.admin.OffsetSpec.latest()), new org.apache.kafka.clients.admin.ListOffsetsOptions(level))
                .partitionResult(tp)
                .get(20, TimeUnit.SECONDS);
            o.put(level == org.apache.kafka.common.IsolationLevel.READ_COMMITTED ? "lso" : "hw", result.offset());
        }
        System.out.println(o);
    }

    private static void tieredOffsets(String bootstrap, String topic, int partition) throws Exception {
        TopicPartition tp = new TopicPartition(topic, partition);
        ObjectNode o = JSON.createObjectNode();
        Map<String, org.apache.kafka.clients.admin.OffsetSpec> specs = new LinkedHashMap<>();
        specs.put("earliest", org.apache.kafka.clients.admin.OffsetSpec.earliest());
        specs.put("earliest_local", org.apache.kafka.clients.admin.OffsetSpec.earliestLocal());
        specs.put("latest", org.apache.kafka.clients.admin.OffsetSpec.latest());
        for (var e : specs.entrySet()) {
            var result = admin(bootstrap).listOffsets(Map.of(tp, e.getValue())).partitionResult(tp).get(20, TimeUnit.SECONDS);
            o.put(e.getKey(), result.offset());
        }
        System.out.println(o);
    }
}
