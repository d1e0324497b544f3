package io.skewguard.sim.demo;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.net.ConnectException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Set;
import java.util.TreeSet;

/** What both demo tests check about a finished run. */
final class DemoAssertions {

    private DemoAssertions() {}

    /** Names (and ids) of the live non-daemon threads. */
    static Set<String> nonDaemonThreads() {
        Set<String> names = new TreeSet<>();
        for (Thread t : Thread.getAllStackTraces().keySet()) {
            if (t.isAlive() && !t.isDaemon()) {
                names.add(t.getName() + "#" + t.getId());
            }
        }
        return names;
    }

    /** The non-daemon threads not in {@code before}, after giving stopping threads up to 10 s to end. */
    static Set<String> leftoverThreads(Set<String> before) throws InterruptedException {
        Set<String> extra = new TreeSet<>();
        for (int i = 0; i < 100; i++) {
            extra = new TreeSet<>(nonDaemonThreads());
            extra.removeAll(before);
            if (extra.isEmpty()) {
                return extra;
            }
            Thread.sleep(100);
        }
        return extra;
    }

    static void assertLoopRan(DemoOutcome outcome) {
        assertThat(outcome.completed()).as("ran to the end of the scenario").isTrue();
        assertThat(outcome.weightCommands()).as("weight commands from the balancer").isGreaterThanOrEqualTo(1);
        assertThat(outcome.migrationsCommitted()).as("migrations committed").isGreaterThanOrEqualTo(1);
        assertThat(outcome.routingEpoch()).as("slot-table routing epoch grew").isGreaterThanOrEqualTo(1);
        assertThat(outcome.bytesMoved()).as("bytes moved").isPositive();
        assertThat(outcome.keysWritten()).as("keys written").isPositive();
        assertThat(outcome.keysUnreadable()).as("unreadable keys, e.g. %s", outcome.unreadableExamples()).isZero();
    }

    /** Nothing listens on {@code 127.0.0.1:port} any more. */
    static void assertPortClosed(String bootstrapServers) {
        int port = Integer.parseInt(bootstrapServers.substring(bootstrapServers.lastIndexOf(':') + 1));
        try (Socket socket = new Socket()) {
            socket.connect(new InetSocketAddress("127.0.0.1", port), 2_000);
            throw new AssertionError("port " + port + " still accepts connections after the demo closed");
        } catch (ConnectException expected) {
            // refused: nothing listens
        } catch (IOException e) {
            throw new AssertionError("unexpected failure probing port " + port + ": " + e, e);
        }
    }

    static void assertGone(Path dir) {
        if (dir != null) {
            assertThat(Files.exists(dir)).as("%s removed", dir).isFalse();
        }
    }
}
