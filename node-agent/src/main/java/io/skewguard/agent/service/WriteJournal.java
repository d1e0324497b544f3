package io.skewguard.agent.service;

import java.io.BufferedWriter;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Collections;
import java.util.HashMap;
import java.util.Map;

/**
 * The load generator's record of the writes it completed: one line {@code key version node} per
 * write, appended once the node's store has taken it, so that every key written can be checked
 * after a crash (each line names a write that returned from its store, and a killed process loses
 * at most the line it was writing). A restarted process appends to the same file; its versions are
 * newer ({@link LoadGenerator}).
 *
 * <p>Each line reaches the operating system before the next write starts (no buffering across
 * writes), so a {@code SIGKILL} leaves every completed line in the file. Not thread-safe: the load
 * generator's one thread writes it.
 */
public final class WriteJournal implements AutoCloseable {

    /** The last write of one key found in a journal. */
    public record LastWrite(long version, String node) {}

    private final Path file;
    private final BufferedWriter out;

    private WriteJournal(Path file, BufferedWriter out) {
        this.file = file;
        this.out = out;
    }

    /**
     * Opens {@code file} for appending (creating it and its directory if missing).
     *
     * @throws UncheckedIOException if it cannot be opened
     */
    public static WriteJournal append(Path file) {
        try {
            Path parent = file.toAbsolutePath().getParent();
            if (parent != null) {
                Files.createDirectories(parent);
            }
            return new WriteJournal(file, Files.newBufferedWriter(file, StandardCharsets.UTF_8,
                    StandardOpenOption.CREATE, StandardOpenOption.APPEND, StandardOpenOption.WRITE));
        } catch (IOException e) {
            throw new UncheckedIOException("cannot open the write journal " + file, e);
        }
    }

    /** The journal's file. */
    public Path file() {
        return file;
    }

    /**
     * Records that {@code node}'s store took {@code key} at {@code version}.
     *
     * @throws UncheckedIOException if the line cannot be written
     */
    public void written(String key, long version, String node) {
        try {
            out.write(key);
            out.write(' ');
            out.write(Long.toString(version));
            out.write(' ');
            out.write(node);
            out.write('\n');
            out.flush();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write to the write journal " + file, e);
        }
    }

    @Override
    public void close() {
        try {
            out.close();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot close the write journal " + file, e);
        }
    }

    /**
     * The last write of every key in {@code file}: the highest version recorded for it, with the node
     * that took it. A last line without its line end (the process died while writing it) is left out.
     *
     * @throws UncheckedIOException if the file cannot be read
     * @throws IllegalArgumentException if a complete line is not {@code key version node}
     */
    public static Map<String, LastWrite> lastWrites(Path file) {
        String text;
        try {
            text = Files.readString(file, StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read the write journal " + file, e);
        }
        Map<String, LastWrite> last = new HashMap<>();
        int start = 0;
        int lineNumber = 0;
        for (int end = text.indexOf('\n'); end >= 0; start = end + 1, end = text.indexOf('\n', start)) {
            lineNumber++;
            String[] parts = text.substring(start, end).split(" ");
            long version;
            try {
                version = parts.length == 3 ? Long.parseLong(parts[1]) : -1;
            } catch (NumberFormatException e) {
                version = -1;
            }
            if (version < 0) {
                throw new IllegalArgumentException(file + " line " + lineNumber + " is not 'key version node': "
                        + text.substring(start, Math.min(end, start + 100)));
            }
            LastWrite before = last.get(parts[0]);
            if (before == null || before.version() < version) {
                last.put(parts[0], new LastWrite(version, parts[2]));
            }
        }
        return Collections.unmodifiableMap(last);
    }
}
