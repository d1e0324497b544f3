package io.skewguard.detector.replay;

import java.io.File;
import java.io.IOException;
import java.lang.reflect.Field;
import java.util.Map;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.streams.TopologyTestDriver;
import org.apache.kafka.streams.processor.internals.AbstractTask;
import org.apache.kafka.streams.processor.internals.ProcessorStateManager;
import org.apache.kafka.streams.state.internals.OffsetCheckpoint;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The test driver's checkpoint after every record, made cheap when there is nothing to checkpoint.
 *
 * <p>{@link TopologyTestDriver} commits its task after every record it pipes, and each commit writes
 * the task's offset checkpoint. A task whose stores keep no changelog (fast mode's drivers) has no
 * offset to write, and Kafka's {@link OffsetCheckpoint} then deletes the checkpoint file: a walk of a
 * file that is not there, which fails inside the file system with an exception built and dropped —
 * 7–12 µs a record on this project's machines, about half of what the migrator's driver spent on a
 * capacity report. {@link #skipDeletes} gives the driver's task a checkpoint that remembers whether
 * its file is there and deletes it only then; a checkpoint with offsets is written as Kafka writes
 * it. What the topology does and what it produces are unchanged.
 *
 * <p>The driver keeps its task in fields that are not public; if a later Kafka names them otherwise,
 * the driver keeps its own checkpoint (logged), slower and otherwise the same.
 */
public final class EmptyCheckpoints {

    private static final Logger LOG = LoggerFactory.getLogger(EmptyCheckpoints.class);

    private EmptyCheckpoints() {}

    /**
     * Gives {@code driver}'s task a checkpoint that deletes its file only when the file is there.
     *
     * @return whether it was installed (false: the driver keeps Kafka's own, which is only slower)
     */
    public static boolean skipDeletes(TopologyTestDriver driver) {
        try {
            Field taskField = TopologyTestDriver.class.getDeclaredField("task");
            taskField.setAccessible(true);
            Object task = taskField.get(driver);
            if (task == null) {
                return false; // a topology with no source topic: no task, no checkpoint
            }
            Field managerField = AbstractTask.class.getDeclaredField("stateMgr");
            managerField.setAccessible(true);
            ProcessorStateManager manager = (ProcessorStateManager) managerField.get(task);
            Field checkpointField = ProcessorStateManager.class.getDeclaredField("checkpointFile");
            checkpointField.setAccessible(true);
            OffsetCheckpoint kafkas = (OffsetCheckpoint) checkpointField.get(manager);
            if (kafkas instanceof Remembering) {
                return true;
            }
            Field fileField = OffsetCheckpoint.class.getDeclaredField("file");
            fileField.setAccessible(true);
            checkpointField.set(manager, new Remembering((File) fileField.get(kafkas)));
            return true;
        } catch (ReflectiveOperationException | RuntimeException e) {
            LOG.info("the test driver keeps its own checkpoint after every record (slower, same results): {}", e.toString());
            return false;
        }
    }

    /** An offset checkpoint that knows whether its file is there, so that an empty one costs nothing. */
    static final class Remembering extends OffsetCheckpoint {
        private boolean absent;

        Remembering(File file) {
            super(file);
            this.absent = !file.exists();
        }

        @Override
        public void write(Map<TopicPartition, Long> offsets) throws IOException {
            if (offsets.isEmpty() && absent) {
                return; // Kafka would delete a file that is not there
            }
            super.write(offsets);
            absent = offsets.isEmpty();
        }

        @Override
        public void delete() throws IOException {
            super.delete();
            absent = true;
        }
    }
}
