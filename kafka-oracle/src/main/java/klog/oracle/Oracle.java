package klog.oracle;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.ByteArrayOutputStream;
import java.io.File;
import java.io.IOException;
import java.io.PrintStream;
import java.lang.reflect.Field;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.EnumSet;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.Properties;
import java.util.concurrent.Delayed;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.config.AbstractConfig;
import org.apache.kafka.common.utils.Time;
import org.apache.kafka.metadata.properties.MetaProperties;
import org.apache.kafka.metadata.properties.MetaPropertiesEnsemble;
import org.apache.kafka.metadata.properties.PropertiesUtils;
import org.apache.kafka.raft.MetadataLogConfig;
import org.apache.kafka.raft.internals.KafkaRaftLog;
import org.apache.kafka.server.util.Scheduler;
import org.apache.kafka.storage.internals.checkpoint.PartitionMetadata;
import org.apache.kafka.storage.internals.checkpoint.PartitionMetadataFile;
import org.apache.kafka.storage.internals.log.CleanerConfig;
import org.apache.kafka.storage.internals.log.EpochEntry;
import org.apache.kafka.storage.internals.log.LogConfig;
import org.apache.kafka.storage.internals.log.LogDirFailureChannel;
import org.apache.kafka.storage.internals.log.LogManager;
import org.apache.kafka.storage.internals.log.LogSegment;
import org.apache.kafka.storage.internals.log.ProducerStateManagerConfig;
import org.apache.kafka.storage.internals.log.UnifiedLog;
import org.apache.kafka.storage.log.metrics.BrokerTopicStats;
import org.apache.kafka.tools.DumpLogSegments;

/**
 * klog's Kafka oracle: runs Kafka's own code on copies of log dirs and prints what Kafka
 * computed. It judges nothing; the Rust tests compare. Kafka's index classes create missing
 * files and its loader rewrites what it recovers, so every subcommand is for copies only.
 *
 * <pre>
 * dump ARGS...          org.apache.kafka.tools.DumpLogSegments itself (its flags, its output)
 * dump-batch MANIFEST   one DumpLogSegments run per manifest line (tab-separated args),
 *                       one JSON line each: {"case","stdout","stderr","error"}
 * load DIR [TOPIC:KEY=VALUE...]
 *                       open the log dir as a starting broker's LogManager.loadLogs does,
 *                       and the metadata log as KafkaRaftLog.createLog does; one JSON line
 * load-batch MANIFEST   one load per manifest line (DIR, then overrides, tab-separated)
 * rebuild DIR [TOPIC:KEY=VALUE...]
 *                       delete every partition's .index, .timeindex and .snapshot files and
 *                       the clean-shutdown marker, load, then shut down cleanly: Kafka
 *                       rebuilds them in place; one JSON line listing the partition files
 * follower-append DIR BATCHES EPOCH
 *                       a fresh log at DIR (a partition dir) given the batches of the file
 *                       BATCHES in one UnifiedLog.appendAsFollower, as a follower appends a
 *                       fetch; flushed and closed (its files are the answer)
 * meta DIR NODE_ID       read DIR/meta.properties with Kafka's MetaProperties (printing what
 *                       toProperties gives back), verify it as a starting KRaft broker does
 *                       (MetaPropertiesEnsemble.verify with that node id, DIR as the metadata
 *                       log dir), and read each partition.metadata with PartitionMetadataFile
 *                       (printing the topic id and the bytes Kafka would write for it)
 * lock DIR              take Kafka's FileLock on DIR/.lock as LogManager does; print
 *                       {"locked": true|false}; hold it until stdin closes
 * meta-batch MANIFEST   one meta per manifest line (DIR, NODE_ID, tab-separated)
 * rebuild-batch MANIFEST
 *                       one rebuild per manifest line (DIR, then overrides, tab-separated),
 *                       one JSON line each, as rebuild prints
 * serve                 the oracle as a server: one JSON request per stdin line
 *                       ({"id":..,"op":"load"|"rebuild"|"dump"|"meta","dir":..,"overrides":[..],
 *                       "args":[..],"node_id":..}), one JSON answer per stdout line, in order,
 *                       carrying the request's id; a case that throws, or runs past
 *                       {@link #CASE_TIMEOUT_SECONDS}, is an answer ("server_error"), never the
 *                       end of the server. Ends when stdin closes.
 * </pre>
 */
public final class Oracle {
    private static final ObjectMapper JSON = new ObjectMapper();

    public static void main(String[] args) throws Exception {
        System.setProperty("org.slf4j.simpleLogger.defaultLogLevel", "warn");
        System.setProperty("org.slf4j.simpleLogger.log.org.apache.kafka.storage.internals.log", "info");
        System.setProperty("org.slf4j.simpleLogger.log.org.apache.kafka.raft", "info");
        System.setProperty("org.slf4j.simpleLogger.showThreadName", "false");
        System.setProperty("org.slf4j.simpleLogger.showDateTime", "false");
        if (args.length == 0) {
            System.err.println("usage: oracle dump|dump-batch|load|load-batch|rebuild|rebuild-batch|follower-append|meta|meta-batch ...");
            System.exit(2);
        }
        String[] rest = Arrays.copyOfRange(args, 1, args.length);
        PrintStream out = System.out;
        switch (args[0]) {
            case "dump" -> DumpLogSegments.main(rest);
            case "dump-batch" -> {
                int n = 0;
                for (String line : Files.readAllLines(Path.of(rest[0]), StandardCharsets.UTF_8)) {
                    if (line.isEmpty()) continue;
                    out.println(dumpCase(n++, line.split("\t")));
                    out.flush();
                }
            }
            case "load" -> out.println(load(new File(rest[0]), Arrays.asList(rest).subList(1, rest.length), false));
            case "load-batch" -> {
                for (String line : Files.readAllLines(Path.of(rest[0]), StandardCharsets.UTF_8)) {
                    if (line.isEmpty()) continue;
                    String[] f = line.split("\t");
                    out.println(load(new File(f[0]), Arrays.asList(f).subList(1, f.length), false));
                    out.flush();
                }
            }
            case "rebuild" -> out.println(load(new File(rest[0]), Arrays.asList(rest).subList(1, rest.length), true));
            case "follower-append" -> followerAppend(new File(rest[0]), Path.of(rest[1]), Integer.parseInt(rest[2]));
            case "rebuild-batch" -> {
                for (String line : Files.readAllLines(Path.of(rest[0]), StandardCharsets.UTF_8)) {
                    if (line.isEmpty()) continue;
                    String[] f = line.split("\t");
                    out.println(load(new File(f[0]), Arrays.asList(f).subList(1, f.length), true));
                    out.flush();
                }
            }
            case "meta" -> out.println(meta(new File(rest[0]), Integer.parseInt(rest[1])));
            case "lock" -> {
                // Kafka's own lock on a log dir (what LogManager takes at start-up): print whether
                // tryLock got it, then hold it until stdin closes.
                org.apache.kafka.server.util.FileLock lock =
                        new org.apache.kafka.server.util.FileLock(new File(rest[0], LogManager.LOCK_FILE_NAME));
                boolean locked = lock.tryLock();
                out.println("{\"locked\":" + locked + "}");
                out.flush();
                if (locked) {
                    while (System.in.read() >= 0) { }
                    lock.unlock();
                }
                lock.destroy();
            }
            case "meta-batch" -> {
                for (String line : Files.readAllLines(Path.of(rest[0]), StandardCharsets.UTF_8)) {
                    if (line.isEmpty()) continue;
                    String[] f = line.split("\t");
                    out.println(meta(new File(f[0]), Integer.parseInt(f[1])));
                    out.flush();
                }
            }
            case "serve" -> serve(out);
            case "txn-leader-batch" -> TxnLeader.batch(Path.of(rest[0]), out);
            case "hash-map-order" -> HashMapOrder.batch(Path.of(rest[0]), out);
            default -> {
                System.err.println("oracle: unknown subcommand " + args[0]);
                System.exit(2);
            }
        }
        out.flush();
        System.exit(0);
    }

    /** How long one served case may run before its answer is a time-out. */
    static final int CASE_TIMEOUT_SECONDS = 60;

    /**
     * Serve requests from stdin until it closes. Each case runs on a worker thread so that a
     * case that hangs is answered as a time-out (the worker is abandoned, a new one started);
     * stdout and stderr are put back after every case, whatever it did to them.
     */
    private static void serve(PrintStream out) throws IOException {
        // A tool that would end the JVM (DumpLogSegments on bad arguments) ends its case instead.
        org.apache.kafka.common.utils.internals.Exit.setExitProcedure((code, message) -> {
            throw new IllegalStateException("exit " + code + (message == null ? "" : ": " + message));
        });
        org.apache.kafka.common.utils.internals.Exit.setHaltProcedure((code, message) -> {
            throw new IllegalStateException("halt " + code + (message == null ? "" : ": " + message));
        });
        System.setErr(QUIET);
        java.io.BufferedReader in = new java.io.BufferedReader(
                new java.io.InputStreamReader(System.in, StandardCharsets.UTF_8));
        java.util.concurrent.ExecutorService worker = java.util.concurrent.Executors.newSingleThreadExecutor(daemon());
        String line;
        while ((line = in.readLine()) != null) {
            if (line.isBlank()) continue;
            com.fasterxml.jackson.databind.JsonNode request = null;
            String answer;
            try {
                request = JSON.readTree(line);
                final com.fasterxml.jackson.databind.JsonNode r = request;
                java.util.concurrent.Future<String> f = worker.submit(() -> serveCase(r));
                try {
                    answer = f.get(CASE_TIMEOUT_SECONDS, TimeUnit.SECONDS);
                } catch (java.util.concurrent.TimeoutException t) {
                    f.cancel(true);
                    worker.shutdownNow();
                    worker = java.util.concurrent.Executors.newSingleThreadExecutor(daemon());
                    answer = serverError(request, "timeout after " + CASE_TIMEOUT_SECONDS + " s");
                } catch (java.util.concurrent.ExecutionException e) {
                    Throwable cause = e.getCause() == null ? e : e.getCause();
                    answer = serverError(request, cause.getClass().getName() + ": " + cause.getMessage());
                }
            } catch (Throwable t) {
                answer = serverError(request, t.getClass().getName() + ": " + t.getMessage());
            }
            // Between cases Kafka's threads may still log (a loader pool winding down): that
            // goes nowhere, never into the server's answers or the test's output.
            System.setOut(out);
            System.setErr(QUIET);
            out.println(answer);
            out.flush();
        }
        worker.shutdownNow();
    }

    private static final PrintStream QUIET = new PrintStream(java.io.OutputStream.nullOutputStream());

    private static java.util.concurrent.ThreadFactory daemon() {
        return r -> {
            Thread t = new Thread(r, "oracle-case");
            t.setDaemon(true);
            return t;
        };
    }

    private static String serverError(com.fasterxml.jackson.databind.JsonNode request, String why) {
        ObjectNode o = JSON.createObjectNode();
        if (request != null && request.has("id")) o.set("id", request.get("id")); else o.putNull("id");
        o.put("server_error", why);
        try {
            return JSON.writeValueAsString(o);
        } catch (IOException e) {
            return "{\"id\":null,\"server_error\":\"unprintable\"}";
        }
    }

    /** One served request: the same work as the batch subcommands, the id carried back. */
    private static String serveCase(com.fasterxml.jackson.databind.JsonNode r) throws Exception {
        String op = r.path("op").asText();
        List<String> overrides = new ArrayList<>();
        r.path("overrides").forEach(v -> overrides.add(v.asText()));
        String body = switch (op) {
            case "load" -> load(new File(r.path("dir").asText()), overrides, false);
            case "rebuild" -> load(new File(r.path("dir").asText()), overrides, true);
            case "meta" -> meta(new File(r.path("dir").asText()), r.path("node_id").asInt());
            case "dump" -> {
                List<String> args = new ArrayList<>();
                r.path("args").forEach(v -> args.add(v.asText()));
                yield dumpCase(0, args.toArray(new String[0]));
            }
            default -> throw new IllegalArgumentException("unknown op '" + op + "'");
        };
        ObjectNode o = (ObjectNode) JSON.readTree(body);
        o.set("id", r.get("id"));
        return JSON.writeValueAsString(o);
    }

    /** Run DumpLogSegments.main with stdout and stderr captured. */
    private static String dumpCase(int n, String[] args) throws IOException {
        ObjectNode o = JSON.createObjectNode();
        o.put("case", n);
        Captured c = new Captured();
        try {
            DumpLogSegments.main(args);
            o.putNull("error");
        } catch (Throwable t) {
            o.put("error", t.getClass().getName() + ": " + t.getMessage());
        } finally {
            c.restore();
        }
        o.put("stdout", c.out.toString(StandardCharsets.UTF_8));
        o.put("stderr", c.err.toString(StandardCharsets.UTF_8));
        return JSON.writeValueAsString(o);
    }

    /**
     * Load one log dir the way a starting broker does and describe every log. With
     * {@code rebuild}, first delete the derived files and the marker, and shut down cleanly
     * after loading so the rebuilt indexes are trimmed and a producer snapshot is taken.
     */
    private static String load(File dir, List<String> overrides, boolean rebuild) throws Exception {
        ObjectNode o = JSON.createObjectNode();
        o.put("dir", dir.getPath());
        if (rebuild) deleteDerivedFiles(dir);
        Map<String, Long> logBytesBefore = logBytes(dir);
        o.put("clean_shutdown_marker", new File(dir, ".kafka_cleanshutdown").exists());
        Captured c = new Captured();
        QueuedScheduler scheduler = new QueuedScheduler();
        LogDirFailureChannel failures = new LogDirFailureChannel(10);
        Time time = Time.SYSTEM;
        String outcome = "loaded";
        String error = null;
        LogManager manager = null;
        List<UnifiedLog> loaded = new ArrayList<>();
        ArrayNode logs = JSON.createArrayNode();
        long started = System.nanoTime();
        // A KRaft broker opens its metadata log (SharedServer, KafkaRaftManager) before its
        // LogManager loads the other logs: a metadata log that throws stops it first.
        ObjectNode metadataLog = null;
        File metadata = new File(dir, "__cluster_metadata-0");
        if (metadata.isDirectory()) {
            try {
                Map<String, Object> props = new HashMap<>();
                MetadataLogConfig config = new MetadataLogConfig(new AbstractConfig(MetadataLogConfig.CONFIG_DEF, props));
                KafkaRaftLog raftLog = KafkaRaftLog.createLog(new TopicPartition("__cluster_metadata", 0),
                        org.apache.kafka.common.Uuid.METADATA_TOPIC_ID, metadata, time, scheduler, config, 1);
                scheduler.runQueued();
                Field f = KafkaRaftLog.class.getDeclaredField("log");
                f.setAccessible(true);
                metadataLog = describe((UnifiedLog) f.get(raftLog), "metadata");
                raftLog.close();
            } catch (Throwable t) {
                outcome = "refused";
                error = t.getClass().getName() + ": " + t.getMessage();
            }
        }
        if (outcome.equals("loaded")) {
            try {
                LogConfig defaults = new LogConfig(Map.of("file.delete.delay.ms", "0"));
                Map<String, LogConfig> topicConfigs = topicConfigs(defaults, overrides);
                manager = new LogManager(
                        List.of(dir.getAbsoluteFile()), List.of(), resource -> new Properties(), defaults,
                        new CleanerConfig(false), 1, Long.MAX_VALUE, 60_000L, 60_000L, 300_000L, 900_000,
                        new ProducerStateManagerConfig(86_400_000, false), 600_000, scheduler,
                        new BrokerTopicStats(false), failures, time, false, 30_000L,
                        (cfg, dirs, all, channel, t) -> null);
                if (!manager.liveLogDirs().isEmpty()) {
                    manager.loadLogs(defaults, topicConfigs, log -> {
                        synchronized (loaded) {
                            loaded.add(log);
                        }
                        return false;
                    });
                }
                scheduler.runQueued();
                o.put("load_ms", (System.nanoTime() - started) / 1_000_000);
                for (UnifiedLog log : loaded) logs.add(describe(log, "log"));
                if (metadataLog != null) logs.add(metadataLog);
                if (failures.hasOfflineLogDir(dir.getAbsolutePath())) {
                    outcome = "offline";
                    error = c.lastError();
                }
            } catch (Throwable t) {
                if (System.getenv("KLOG_ORACLE_TRACE") != null) {
                    java.io.StringWriter w = new java.io.StringWriter();
                    t.printStackTrace(new java.io.PrintWriter(w));
                    o.put("trace", w.toString());
                }
                outcome = "refused";
                Throwable cause = t;
                while (cause.getCause() != null && cause.getMessage() == null) cause = cause.getCause();
                error = cause.getClass().getName() + ": " + cause.getMessage();
            }
        }
        o.put("outcome", outcome);
        if (error == null) o.putNull("error"); else o.put("error", error);
        o.set("logs", logs);
        ArrayNode taskErrors = JSON.createArrayNode();
        scheduler.taskErrors.forEach(taskErrors::add);
        o.set("scheduled_task_errors", taskErrors);
        if (System.getenv("KLOG_ORACLE_TRACE") != null) o.put("log", c.err.toString(StandardCharsets.UTF_8));
        // The tree as the load left it, before the shutdown below writes its own files
        // (snapshots at the log end, trimmed indexes, the marker): what a start-up leaves.
        o.set("files_loaded", listPartitionFiles(dir));
        o.set("epoch_checkpoints_loaded", epochCheckpoints(dir));
        if (manager != null) {
            try {
                manager.shutdown();
            } catch (Throwable ignored) {
                // The dir is a copy; a failed shutdown changes nothing reported above.
            }
        }
        try {
            scheduler.runQueued();
        } catch (Throwable ignored) {
            // Deferred deletions on a dir the load took offline: nothing reported above changes.
        }
        c.restore();
        ObjectNode removed = JSON.createObjectNode();
        Map<String, Long> after = logBytes(dir);
        for (Map.Entry<String, Long> e : logBytesBefore.entrySet()) {
            removed.put(e.getKey(), e.getValue() - after.getOrDefault(e.getKey(), 0L));
        }
        o.set("log_bytes_removed", removed);
        o.set("files", listPartitionFiles(dir));
        ArrayNode lines = JSON.createArrayNode();
        for (String line : c.err.toString(StandardCharsets.UTF_8).split("\n")) {
            if (!line.isBlank()) lines.add(line);
        }
        o.set("kafka_log", lines);
        return JSON.writeValueAsString(o);
    }

    /** Kafka's readers of meta.properties and partition.metadata on one log dir. */
    private static String meta(File dir, int nodeId) throws IOException {
        ObjectNode o = JSON.createObjectNode();
        o.put("dir", dir.getPath());
        try {
            Properties props = PropertiesUtils.readPropertiesFile(new File(dir, "meta.properties").getAbsolutePath());
            MetaProperties meta = new MetaProperties.Builder(props).build();
            ObjectNode m = JSON.createObjectNode();
            meta.toProperties().forEach((k, v) -> m.put(k.toString(), v.toString()));
            o.set("meta_properties", m);
            o.putNull("meta_error");
        } catch (Throwable t) {
            o.putNull("meta_properties");
            o.put("meta_error", t.getClass().getName() + ": " + t.getMessage());
        }
        try {
            new MetaPropertiesEnsemble.Loader().addLogDirs(List.of(dir.getAbsolutePath()))
                    .addMetadataLogDir(dir.getAbsolutePath()).load()
                    .verify(Optional.empty(), OptionalInt.of(nodeId), EnumSet.of(
                            MetaPropertiesEnsemble.VerificationFlag.REQUIRE_AT_LEAST_ONE_VALID,
                            MetaPropertiesEnsemble.VerificationFlag.REQUIRE_METADATA_LOG_DIR));
            o.putNull("verify_error");
        } catch (Throwable t) {
            o.put("verify_error", t.getClass().getName() + ": " + t.getMessage());
        }
        ObjectNode parts = JSON.createObjectNode();
        File[] partitions = dir.listFiles(f -> new File(f, "partition.metadata").isFile());
        if (partitions != null) {
            Arrays.sort(partitions);
            for (File p : partitions) {
                ObjectNode pm = JSON.createObjectNode();
                try {
                    PartitionMetadata read = new PartitionMetadataFile(new File(p, "partition.metadata"),
                            new LogDirFailureChannel(1)).read();
                    pm.put("version", read.version());
                    pm.put("topic_id", read.topicId().toString());
                    pm.put("encoded", read.encode());
                    pm.putNull("error");
                } catch (Throwable t) {
                    pm.put("error", t.getClass().getName() + ": " + t.getMessage());
                }
                parts.set(p.getName(), pm);
            }
        }
        o.set("partitions", parts);
        return JSON.writeValueAsString(o);
    }

    private static ObjectNode describe(UnifiedLog log, String kind) throws IOException {
        ObjectNode l = JSON.createObjectNode();
        l.put("dir", log.dir().getName());
        l.put("kind", log.isFuture() ? "future" : kind);
        l.put("log_start_offset", log.logStartOffset());
        l.put("log_end_offset", log.logEndOffset());
        l.put("recovery_point", log.recoveryPoint());
        ArrayNode segments = JSON.createArrayNode();
        for (LogSegment s : log.logSegments()) {
            ObjectNode seg = JSON.createObjectNode();
            seg.put("base_offset", s.baseOffset());
            seg.put("size", s.size());
            segments.add(seg);
        }
        l.set("segments", segments);
        ArrayNode epochs = JSON.createArrayNode();
        for (EpochEntry e : log.leaderEpochCache().epochEntries()) {
            epochs.add(JSON.createArrayNode().add(e.epoch()).add(e.startOffset()));
        }
        l.set("epochs", epochs);
        l.put("producers", log.producerStateManager().activeProducers().size());
        // The producer table and the first unstable offset the load leaves (what holds the LSO).
        ArrayNode table = JSON.createArrayNode();
        java.util.TreeMap<Long, org.apache.kafka.storage.internals.log.ProducerStateEntry> byId =
            new java.util.TreeMap<>(log.producerStateManager().activeProducers());
        for (Map.Entry<Long, org.apache.kafka.storage.internals.log.ProducerStateEntry> e : byId.entrySet()) {
            org.apache.kafka.storage.internals.log.ProducerStateEntry p = e.getValue();
            ObjectNode n = JSON.createObjectNode();
            n.put("producer_id", e.getKey());
            n.put("producer_epoch", p.producerEpoch());
            int lastSeq = -1;
            for (org.apache.kafka.storage.internals.log.BatchMetadata b : p.batchMetadata()) lastSeq = b.lastSeq();
            n.put("last_sequence", lastSeq);
            n.put("last_offset", p.lastDataOffset());
            n.put("coordinator_epoch", p.coordinatorEpoch());
            if (p.currentTxnFirstOffset().isPresent()) n.put("current_txn_first_offset", p.currentTxnFirstOffset().getAsLong());
            else n.putNull("current_txn_first_offset");
            table.add(n);
        }
        l.set("producer_table", table);
        // What kafka-transactions.sh describe-producers prints for it (DescribeProducers.java).
        try {
            l.put("describe_producers", DescribeProducers.print(log));
        } catch (Throwable t) {
            l.put("describe_producers_error", t.getClass().getName() + ": " + t.getMessage());
        }
        // The HW a broker gives the log from its checkpoint (Partition.createLogIfNotExists),
        // which moves the first unstable offset past transactions whose markers it covers.
        File hwFile = new File(log.dir().getParentFile(), "replication-offset-checkpoint");
        // Read by Kafka's own OffsetCheckpointFile, as ReplicaManager reads it when the
        // partition starts: a file it does not read takes the log dir offline there, so no HW
        // comes from it (high_watermark_read false).
        boolean hwRead = true;
        if (hwFile.isFile()) {
            try {
                var checkpoint = new org.apache.kafka.storage.internals.checkpoint.OffsetCheckpointFile(
                    hwFile, new org.apache.kafka.storage.internals.log.LogDirFailureChannel(1));
                Long hw = checkpoint.read().get(log.topicPartition());
                if (hw != null) log.updateHighWatermark(hw);
            } catch (Exception e) {
                hwRead = false;
            }
        }
        l.put("high_watermark_read", hwRead);
        l.put("high_watermark", log.highWatermark());
        l.put("last_stable_offset", log.lastStableOffset());
        Optional<Long> unstable = log.firstUnstableOffset();
        if (unstable.isPresent()) l.put("first_unstable_offset", unstable.get());
        else l.putNull("first_unstable_offset");
        if (log.latestProducerSnapshotOffset().isPresent()) {
            l.put("latest_snapshot_offset", log.latestProducerSnapshotOffset().getAsLong());
        } else {
            l.putNull("latest_snapshot_offset");
        }
        return l;
    }

    private static Map<String, LogConfig> topicConfigs(LogConfig defaults, List<String> overrides) {
        Map<String, Properties> byTopic = new LinkedHashMap<>();
        for (String o : overrides) {
            int colon = o.lastIndexOf(':', o.indexOf('='));
            int eq = o.indexOf('=');
            if (colon < 0 || eq < colon) throw new IllegalArgumentException("override is not TOPIC:KEY=VALUE: " + o);
            byTopic.computeIfAbsent(o.substring(0, colon), t -> new Properties())
                    .put(o.substring(colon + 1, eq), o.substring(eq + 1));
        }
        Map<String, LogConfig> configs = new HashMap<>();
        byTopic.forEach((topic, props) -> configs.put(topic, LogConfig.fromProps(defaults.originals(), props)));
        return configs;
    }

    private static void deleteDerivedFiles(File dir) throws IOException {
        Files.deleteIfExists(new File(dir, ".kafka_cleanshutdown").toPath());
        File[] partitions = dir.listFiles(File::isDirectory);
        if (partitions == null) return;
        for (File p : partitions) {
            if (p.getName().startsWith("__cluster_metadata")) continue;
            File[] files = p.listFiles();
            if (files == null) continue;
            for (File f : files) {
                String n = f.getName();
                if (n.endsWith(".index") || n.endsWith(".timeindex") || n.endsWith(".snapshot")) Files.delete(f.toPath());
            }
        }
    }

    /** Bytes of .log files per partition dir. */
    private static Map<String, Long> logBytes(File dir) {
        Map<String, Long> bytes = new LinkedHashMap<>();
        File[] partitions = dir.listFiles(File::isDirectory);
        if (partitions == null) return bytes;
        Arrays.sort(partitions);
        for (File p : partitions) {
            long sum = 0;
            File[] files = p.listFiles();
            if (files != null) {
                for (File f : files) if (f.getName().endsWith(".log") && f.isFile()) sum += f.length();
            }
            bytes.put(p.getName(), sum);
        }
        return bytes;
    }

    /** Each partition dir's leader-epoch-checkpoint text (null where there is none). */
    private static ObjectNode epochCheckpoints(File dir) {
        ObjectNode all = JSON.createObjectNode();
        File[] partitions = dir.listFiles(File::isDirectory);
        if (partitions == null) return all;
        Arrays.sort(partitions);
        for (File p : partitions) {
            File f = new File(p, "leader-epoch-checkpoint");
            try {
                if (f.isFile()) all.put(p.getName(), Files.readString(f.toPath(), StandardCharsets.ISO_8859_1));
                else all.putNull(p.getName());
            } catch (IOException e) {
                all.put(p.getName(), "<unreadable: " + e.getMessage() + ">");
            }
        }
        return all;
    }

    /** Every file of every partition dir, with its size, as Kafka left them. */
    private static ObjectNode listPartitionFiles(File dir) {
        ObjectNode all = JSON.createObjectNode();
        File[] partitions = dir.listFiles(File::isDirectory);
        if (partitions == null) return all;
        Arrays.sort(partitions);
        for (File p : partitions) {
            ObjectNode files = JSON.createObjectNode();
            File[] fs = p.listFiles();
            if (fs != null) {
                Arrays.sort(fs);
                for (File f : fs) if (f.isFile()) files.put(f.getName(), f.length());
            }
            all.set(p.getName(), files);
        }
        return all;
    }

    /** stdout and stderr redirected into buffers until {@link #restore}. */
    private static final class Captured {
        final ByteArrayOutputStream out = new ByteArrayOutputStream();
        final ByteArrayOutputStream err = new ByteArrayOutputStream();
        private final PrintStream savedOut = System.out;
        private final PrintStream savedErr = System.err;

        Captured() {
            System.setOut(new PrintStream(out, true, StandardCharsets.UTF_8));
            System.setErr(new PrintStream(err, true, StandardCharsets.UTF_8));
        }

        String lastError() {
            String[] lines = err.toString(StandardCharsets.UTF_8).split("\n");
            for (int i = lines.length - 1; i >= 0; i--) {
                if (lines[i].startsWith("ERROR")) return lines[i];
            }
            return null;
        }

        void restore() {
            System.out.flush();
            System.err.flush();
            System.setOut(savedOut);
            System.setErr(savedErr);
        }
    }

    /**
     * A scheduler that never runs periodic tasks and runs one-shot tasks (Kafka's deferred
     * file deletions, with file.delete.delay.ms=0) when asked, in order: the load is then
     * deterministic and its deletions have happened before the tree is listed.
     */
    /**
     * A follower's append of a whole fetch: a fresh log at {@code dir} (a partition dir), the
     * batches of {@code batches} appended in one UnifiedLog.appendAsFollower at {@code epoch},
     * flushed and closed; the files are what a test reads (the .txnindex LSOs are computed once
     * the whole append is in).
     */
    static void followerAppend(File dir, Path batches, int epoch) throws Exception {
        Captured c = new Captured();
        try {
            QueuedScheduler scheduler = new QueuedScheduler();
            UnifiedLog log = UnifiedLog.create(dir, new LogConfig(Map.of()), 0L, 0L, scheduler,
                    new BrokerTopicStats(false), Time.SYSTEM, 900_000,
                    new ProducerStateManagerConfig(86_400_000, false), 600_000, new LogDirFailureChannel(1),
                    true, Optional.empty());
            log.appendAsFollower(org.apache.kafka.common.record.internal.MemoryRecords.readableRecords(
                    java.nio.ByteBuffer.wrap(Files.readAllBytes(batches))), epoch);
            log.flush(true);
            log.close();
            scheduler.runQueued();
        } finally {
            c.restore();
        }
    }

    static final class QueuedScheduler implements Scheduler {
        private final List<Runnable> once = new ArrayList<>();
        /** What the tasks run so far threw, in order. */
        final List<String> taskErrors = new ArrayList<>();

        @Override public void startup() {}
        @Override public void shutdown() {}
        @Override public void resizeThreadPool(int n) {}

        @Override
        public synchronized ScheduledFuture<?> schedule(String name, Runnable task, long delayMs, long periodMs) {
            if (periodMs <= 0) once.add(task);
            return new Done();
        }

        void runQueued() {
            while (true) {
                Runnable next;
                synchronized (this) {
                    if (once.isEmpty()) return;
                    next = once.remove(0);
                }
                // KafkaScheduler runs each task inside a catch of every Throwable (it logs
                // "Uncaught exception in scheduled task"): a task's exception (an async delete
                // on a dir already offline) never reaches the load, nor stops the broker.
                try {
                    next.run();
                } catch (Throwable t) {
                    synchronized (this) {
                        taskErrors.add(t.getClass().getName() + ": " + t.getMessage());
                    }
                }
            }
        }
    }

    private static final class Done implements ScheduledFuture<Object> {
        @Override public long getDelay(TimeUnit unit) { return 0; }
        @Override public int compareTo(Delayed o) { return 0; }
        @Override public boolean cancel(boolean mayInterrupt) { return false; }
        @Override public boolean isCancelled() { return false; }
        @Override public boolean isDone() { return true; }
        @Override public Object get() { return null; }
        @Override public Object get(long timeout, TimeUnit unit) { return null; }
    }
}
