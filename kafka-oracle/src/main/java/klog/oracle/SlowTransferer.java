package klog.oracle;

import java.io.File;
import java.io.FileOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import org.apache.kafka.server.log.remote.storage.Transferer;

/**
 * A LocalTieredStorage transferer (`rsm.config.transferer.class`) that copies as Kafka's
 * default one does, except that while a file named `slow-upload` sits in the storage's
 * configured dir (beside `kafka-tiered-storage`), it stops for 120 s after copying a segment's
 * `.log`: an upload caught half done, so that a test can kill the broker in the middle of it
 * (tests/kafka/real_tiered.rs). It judges nothing.
 */
public final class SlowTransferer implements Transferer {
    @Override
    public void transfer(File from, File to) throws IOException {
        if (from.exists()) {
            Files.copy(from.toPath(), to.toPath());
        }
        File configured = to.getParentFile().getParentFile().getParentFile();
        if (to.getName().endsWith(".log") && new File(configured, "slow-upload").exists()) {
            try {
                Thread.sleep(120_000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IOException("interrupted mid-upload", e);
            }
        }
    }

    @Override
    public void transfer(ByteBuffer from, File to) throws IOException {
        if (from != null && from.hasRemaining()) {
            try (FileOutputStream out = new FileOutputStream(to, false)) {
                out.getChannel().write(from);
            }
        }
    }
}
