package klog.oracle;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.lang.reflect.Constructor;
import java.lang.reflect.Proxy;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.DescribeProducersOptions;
import org.apache.kafka.clients.admin.DescribeProducersResult;
import org.apache.kafka.clients.admin.DescribeProducersResult.PartitionProducerState;
import org.apache.kafka.clients.admin.internals.AdminApiHandler;
import org.apache.kafka.clients.admin.internals.DescribeProducersHandler;
import org.apache.kafka.common.KafkaFuture;
import org.apache.kafka.common.Node;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.message.DescribeProducersResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ByteBufferAccessor;
import org.apache.kafka.common.protocol.MessageUtil;
import org.apache.kafka.common.requests.DescribeProducersResponse;
import org.apache.kafka.common.utils.Time;
import org.apache.kafka.common.utils.internals.LogContext;
import org.apache.kafka.storage.internals.log.UnifiedLog;

/**
 * What {@code kafka-transactions.sh describe-producers --topic T --partition P} prints for a
 * partition a broker loaded, made of Kafka's own code at each step: the broker's answer
 * ({@code UnifiedLog.activeProducers()}, what {@code ReplicaManager} puts in a
 * DescribeProducers response), that response written and read back at the API's latest
 * version, the admin client's reading of it ({@code DescribeProducersHandler.handleResponse}:
 * -1 becomes an empty coordinator epoch or start offset), and the tool's own command
 * ({@code TransactionsCommand.DescribeProducersCommand.execute}, {@code ToolsUtils.prettyPrintTable})
 * run against an {@code Admin} that answers {@code describeProducers} with that result and
 * nothing else. The one step not Kafka's is the network between them.
 */
final class DescribeProducers {
    private DescribeProducers() {}

    static String print(UnifiedLog log) throws Exception {
        TopicPartition tp = log.topicPartition();
        DescribeProducersResponseData data = new DescribeProducersResponseData().setTopics(List.of(
            new DescribeProducersResponseData.TopicResponse().setName(tp.topic()).setPartitions(List.of(
                new DescribeProducersResponseData.PartitionResponse()
                    .setPartitionIndex(tp.partition())
                    .setActiveProducers(log.activeProducers())))));
        short version = ApiKeys.DESCRIBE_PRODUCERS.latestVersion();
        ByteBuffer wire = MessageUtil.toVersionPrefixedByteBuffer(version, data);
        short read = wire.getShort();
        DescribeProducersResponse response = DescribeProducersResponse.parse(new ByteBufferAccessor(wire), read);

        DescribeProducersHandler handler = new DescribeProducersHandler(new DescribeProducersOptions(), new LogContext());
        AdminApiHandler.ApiResult<TopicPartition, PartitionProducerState> result =
            handler.handleResponse(new Node(1, "localhost", 9092), Set.of(tp), response);
        if (!result.failedKeys.isEmpty()) throw new IllegalStateException("the admin client failed " + result.failedKeys);
        PartitionProducerState state = result.completedKeys.get(tp);

        Constructor<DescribeProducersResult> resultCtor = DescribeProducersResult.class.getDeclaredConstructor(Map.class);
        resultCtor.setAccessible(true);
        DescribeProducersResult answer = resultCtor.newInstance(Map.of(tp, KafkaFuture.completedFuture(state)));
        Admin admin = (Admin) Proxy.newProxyInstance(Admin.class.getClassLoader(), new Class<?>[] {Admin.class},
            (proxy, method, args) -> {
                if (method.getName().equals("describeProducers") && args != null && args.length == 2) return answer;
                throw new UnsupportedOperationException("the tool asked " + method.getName());
            });

        Class<?> command = Class.forName("org.apache.kafka.tools.TransactionsCommand$DescribeProducersCommand");
        Constructor<?> commandCtor = command.getDeclaredConstructor(Time.class);
        commandCtor.setAccessible(true);
        Object describe = commandCtor.newInstance(Time.SYSTEM);
        Map<String, Object> attrs = new HashMap<>();
        attrs.put("topic", tp.topic());
        attrs.put("partition", tp.partition());
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (PrintStream out = new PrintStream(bytes, true, StandardCharsets.UTF_8)) {
            // argparse4j is kafka-tools' runtime dependency only: its Namespace by reflection.
            Class<?> namespace = Class.forName("net.sourceforge.argparse4j.inf.Namespace");
            Object parsed = namespace.getConstructor(Map.class).newInstance(attrs);
            var execute = command.getDeclaredMethod("execute", Admin.class, namespace, PrintStream.class);
            execute.setAccessible(true);
            execute.invoke(describe, admin, parsed, out);
        }
        return bytes.toString(StandardCharsets.UTF_8);
    }
}
