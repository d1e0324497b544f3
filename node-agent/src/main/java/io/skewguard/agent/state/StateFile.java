package io.skewguard.agent.state;

import io.skewguard.agent.command.AgentState;
import io.skewguard.agent.command.MigrationRecord;
import io.skewguard.agent.command.Role;
import io.skewguard.agent.command.Stage;
import java.io.IOException;
import java.net.URLDecoder;
import java.net.URLEncoder;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import java.util.TreeMap;
import java.util.zip.CRC32;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Where a node agent keeps what it applied ({@link AgentState}) across restarts: one small local
 * text file, replaced as a whole after every change.
 *
 * <h2>Why a local file, written this way</h2>
 *
 * <ul>
 *   <li><b>Simple, no extra dependency</b>: the state is a few lines (one per migration the node took
 *       part in); a database or a Kafka changelog would add a dependency and a failure mode to every
 *       storage node for a few hundred bytes. People can read the file with {@code cat}.
 *   <li><b>Survives a crash mid-write</b>: {@link #save} writes a temporary file next to it,
 *       {@code fsync}s it, atomically renames it over the old one and {@code fsync}s the directory.
 *       A reader (the next start) sees either the old complete file or the new complete file, never
 *       a mix; a crash leaves at most a stray {@code .tmp}, which {@link #load} deletes.
 *   <li><b>Detects what the file system did not prevent</b>: the last line holds the number of
 *       records and a CRC-32 of everything above it, so truncation or a flipped byte is caught.
 * </ul>
 *
 * <h2>A corrupt file is a clear error, never a silent fresh start</h2>
 *
 * {@link #load} throws {@link StateFileException} naming the file and the problem, and the agent
 * does not start. Starting from an empty state instead would forget abort tombstones and commits:
 * a replayed COPY of an aborted migration would start a copy nobody commits, a replayed old weight
 * command would go back to an older weight factor. The operator decides: restore the file, or
 * delete it knowingly (the agent then starts empty and re-applies whatever the command topics
 * still hold after the group's committed offsets).
 *
 * <h2>Format (version 2)</h2>
 *
 * <pre>
 * skewguard-agent-state 2
 * node &lt;node&gt;
 * weight &lt;epoch&gt; &lt;factor&gt;
 * migration &lt;id&gt; &lt;cluster&gt; &lt;slot&gt; &lt;source&gt; &lt;target&gt; &lt;role&gt; &lt;stage&gt; &lt;bytesCopied&gt; &lt;maxBytesPerSec&gt; &lt;copyCommandId&gt; &lt;routingEpoch&gt; &lt;commitEpoch&gt; &lt;finishedAt&gt;
 * ...
 * end &lt;migration count&gt; &lt;crc32 of the bytes above, hex&gt;
 * </pre>
 *
 * Fields are separated by one space; strings are URL-encoded, so none contains a space or a line
 * break, and the empty string is written {@code ~} (which URL encoding never produces). Version 1
 * files (migration lines without the last three fields, written before epochs and finishing times
 * were recorded) are read with those fields unknown ({@code -1}); the next save writes version 2.
 */
public final class StateFile {

    private static final Logger LOG = LoggerFactory.getLogger(StateFile.class);
    private static final String MAGIC = "skewguard-agent-state";
    private static final int VERSION = 2;
    private static final int OLDEST_VERSION = 1;
    private static final String EMPTY = "~";

    private final Path file;
    private final Path temp;

    public StateFile(Path file) {
        this.file = Objects.requireNonNull(file, "file").toAbsolutePath();
        this.temp = this.file.resolveSibling(this.file.getFileName() + ".tmp");
    }

    /** The file's path. */
    public Path path() {
        return file;
    }

    /**
     * The state saved for {@code node}, or the initial state if there is no file yet. A stray
     * temporary file of an interrupted save is deleted: the saved file is still the truth.
     *
     * @throws StateFileException if the file is unreadable, corrupt, of an unknown version, or
     *     belongs to another node
     */
    public AgentState load(String node) {
        try {
            if (Files.deleteIfExists(temp)) {
                LOG.warn("deleted {} left by an interrupted save; {} is still the saved state", temp, file);
            }
        } catch (IOException e) {
            throw new StateFileException(temp, "cannot delete the leftover temporary file", e);
        }
        byte[] bytes;
        try {
            bytes = Files.readAllBytes(file);
        } catch (NoSuchFileException e) {
            LOG.info("no state file {}: node {} starts with nothing applied", file, node);
            return AgentState.initial(node);
        } catch (IOException e) {
            throw new StateFileException(file, "cannot read it", e);
        }
        AgentState state = decode(bytes);
        if (!state.node().equals(node)) {
            throw new StateFileException(file, "it belongs to node " + state.node() + ", not to " + node);
        }
        return state;
    }

    /** Replaces the saved state by {@code state}, atomically and durably (see the class comment). */
    public void save(AgentState state) {
        byte[] bytes = encode(state);
        try {
            Files.createDirectories(file.getParent());
            try (FileChannel out = FileChannel.open(temp, StandardOpenOption.CREATE, StandardOpenOption.TRUNCATE_EXISTING,
                    StandardOpenOption.WRITE)) {
                ByteBuffer buffer = ByteBuffer.wrap(bytes);
                while (buffer.hasRemaining()) {
                    out.write(buffer);
                }
                out.force(true);
            }
            try {
                Files.move(temp, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
            } catch (AtomicMoveNotSupportedException e) {
                throw new StateFileException(file, "the file system cannot rename atomically; put the state file on a local disk", e);
            }
            syncDirectory(file.getParent());
        } catch (IOException e) {
            throw new StateFileException(file, "cannot save it", e);
        }
    }

    /** The file's bytes for {@code state}. */
    static byte[] encode(AgentState state) {
        StringBuilder text = new StringBuilder();
        text.append(MAGIC).append(' ').append(VERSION).append('\n');
        text.append("node ").append(enc(state.node())).append('\n');
        text.append("weight ").append(state.weightEpoch()).append(' ').append(state.weight()).append('\n');
        for (MigrationRecord r : state.migrations().values()) {
            text.append("migration ").append(enc(r.migrationId())).append(' ').append(enc(r.cluster())).append(' ')
                    .append(r.slot()).append(' ').append(enc(r.source())).append(' ').append(enc(r.target())).append(' ')
                    .append(r.role()).append(' ').append(r.stage()).append(' ').append(r.bytesCopied()).append(' ')
                    .append(r.maxBytesPerSec()).append(' ').append(enc(r.copyCommandId())).append(' ')
                    .append(r.routingEpoch()).append(' ').append(r.commitEpoch()).append(' ').append(r.finishedAt()).append('\n');
        }
        byte[] body = text.toString().getBytes(StandardCharsets.UTF_8);
        String end = "end " + state.migrations().size() + ' ' + Long.toHexString(crc(body, body.length)) + '\n';
        byte[] tail = end.getBytes(StandardCharsets.UTF_8);
        byte[] all = Arrays.copyOf(body, body.length + tail.length);
        System.arraycopy(tail, 0, all, body.length, tail.length);
        return all;
    }

    /** The state in {@code bytes}; throws {@link StateFileException} naming the problem. */
    AgentState decode(byte[] bytes) {
        String text = new String(bytes, StandardCharsets.UTF_8);
        if (!text.endsWith("\n")) {
            throw corrupt("it does not end with a complete line (truncated?)");
        }
        int lastLineStart = text.lastIndexOf('\n', text.length() - 2) + 1;
        String endLine = text.substring(lastLineStart, text.length() - 1);
        String[] end = endLine.split(" ", -1);
        if (end.length != 3 || !end[0].equals("end")) {
            throw corrupt("the last line is not the 'end <count> <crc>' line (truncated?)");
        }
        byte[] body = text.substring(0, lastLineStart).getBytes(StandardCharsets.UTF_8);
        String actualCrc = Long.toHexString(crc(body, body.length));
        if (!actualCrc.equals(end[2])) {
            throw corrupt("checksum mismatch: the end line says " + end[2] + ", the content has " + actualCrc);
        }
        List<String> lines = List.of(text.substring(0, lastLineStart).split("\n"));
        if (lines.size() < 3) {
            throw corrupt("it has " + lines.size() + " lines before the end line, at least 3 are needed");
        }
        String[] header = lines.get(0).split(" ", -1);
        if (header.length != 2 || !header[0].equals(MAGIC)) {
            throw corrupt("it does not start with '" + MAGIC + "'");
        }
        int version = header[1].equals(Integer.toString(VERSION)) ? VERSION
                : header[1].equals(Integer.toString(OLDEST_VERSION)) ? OLDEST_VERSION : 0;
        if (version == 0) {
            throw corrupt("format version " + header[1] + " is not one of the supported " + OLDEST_VERSION + " to " + VERSION);
        }
        try {
            String node = dec(fields(lines.get(1), "node", 2)[1]);
            String[] weight = fields(lines.get(2), "weight", 3);
            TreeMap<String, MigrationRecord> migrations = new TreeMap<>();
            for (String line : lines.subList(3, lines.size())) {
                String[] f = fields(line, "migration", version == OLDEST_VERSION ? 11 : 14);
                long unknown = MigrationRecord.UNKNOWN;
                MigrationRecord r = new MigrationRecord(dec(f[1]), dec(f[2]), Integer.parseInt(f[3]), dec(f[4]), dec(f[5]),
                        Role.valueOf(f[6]), Stage.valueOf(f[7]), Long.parseLong(f[8]), Long.parseLong(f[9]), dec(f[10]),
                        f.length > 11 ? Long.parseLong(f[11]) : unknown, f.length > 11 ? Long.parseLong(f[12]) : unknown,
                        f.length > 11 ? Long.parseLong(f[13]) : unknown);
                migrations.put(r.migrationId(), r);
            }
            if (Integer.parseInt(end[1]) != migrations.size()) {
                throw corrupt("the end line counts " + end[1] + " migrations, the file holds " + migrations.size());
            }
            return new AgentState(node, Long.parseLong(weight[1]), Double.parseDouble(weight[2]), migrations);
        } catch (IllegalArgumentException e) {
            throw new StateFileException(file, "corrupt: " + e.getMessage(), e);
        }
    }

    private String[] fields(String line, String kind, int count) {
        String[] f = line.split(" ", -1);
        if (f.length != count || !f[0].equals(kind)) {
            throw corrupt("expected a '" + kind + "' line of " + count + " fields, found '" + line + "'");
        }
        return f;
    }

    private StateFileException corrupt(String problem) {
        return new StateFileException(file, "corrupt: " + problem
                + "; refusing to start from it (restore it, or delete it to start with nothing applied)");
    }

    private static long crc(byte[] bytes, int length) {
        CRC32 crc = new CRC32();
        crc.update(bytes, 0, length);
        return crc.getValue();
    }

    private static String enc(String s) {
        return s.isEmpty() ? EMPTY : URLEncoder.encode(s, StandardCharsets.UTF_8);
    }

    private static String dec(String s) {
        return s.equals(EMPTY) ? "" : URLDecoder.decode(s, StandardCharsets.UTF_8);
    }

    /** Makes the rename durable; some platforms cannot open a directory, which only costs durability there. */
    private static void syncDirectory(Path dir) {
        try (FileChannel channel = FileChannel.open(dir, StandardOpenOption.READ)) {
            channel.force(true);
        } catch (IOException e) {
            LOG.debug("cannot fsync directory {} ({}); the rename is atomic but may not yet be durable", dir, e.toString());
        }
    }
}
