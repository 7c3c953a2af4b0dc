package klog.oracle;

import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.StringJoiner;

/**
 * The JDK's own {@code java.util.HashMap} iteration order (issue 41, point 6), for klog's
 * emulation to be held against: {@code hash-map-order FILE} reads one history a line, a key type
 * ({@code L}: Long, {@code S}: String) then steps {@code p:K} (put), {@code c:K}
 * (computeIfAbsent), {@code r:K} (remove), {@code x} (clear), and prints the keys in the order
 * the map iterates them, one JSON array of strings a history (keys are letters and digits).
 */
final class HashMapOrder {
    private HashMapOrder() {}

    static void batch(Path file, PrintStream out) throws Exception {
        for (String line : Files.readAllLines(file, StandardCharsets.UTF_8)) {
            if (line.isEmpty()) continue;
            String[] steps = line.split(" ");
            boolean longs = steps[0].equals("L");
            Map<Object, Boolean> m = new HashMap<>();
            for (int i = 1; i < steps.length; i++) {
                String s = steps[i];
                if (s.equals("x")) {
                    m.clear();
                    continue;
                }
                Object key = longs ? (Object) Long.valueOf(s.substring(2)) : s.substring(2);
                switch (s.charAt(0)) {
                    case 'p' -> m.put(key, Boolean.TRUE);
                    case 'c' -> m.computeIfAbsent(key, k -> Boolean.TRUE);
                    case 'r' -> m.remove(key);
                    default -> throw new IllegalArgumentException("unknown step " + s);
                }
            }
            StringJoiner j = new StringJoiner(",", "[", "]");
            for (Object k : m.keySet()) j.add("\"" + k + "\"");
            out.println(j);
        }
        out.flush();
    }
}
