package io.skewguard.agent.store;

import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The process {@link RocksDbNodeStoreKillTest} kills: opens the RocksDB stores {@code src} and
 * {@code dst} under the directory given, writes the keys, starts the migration of slot
 * {@link #SLOT} to {@code dst} and copies part of it, says {@code READY <bytes copied> <bytes total>},
 * then writes late keys forever, printing {@code ACK <key> .} after each write returned.
 */
public final class KilledStoreWriter {

    static final int SLOTS = 16;
    static final int SLOT = 3;
    static final long RATE = 1_000;
    static final long CLOCK_AT_READY = 1_500;

    private KilledStoreWriter() {}

    /** {@code <directory> <keys>} */
    public static void main(String[] args) {
        Path dir = Path.of(args[0]);
        int keys = Integer.parseInt(args[1]);
        AtomicLong clock = new AtomicLong();
        Map<String, LedgerNodeStore> nodes = new HashMap<>();
        RocksDbNodeStore src = RocksDbNodeStore.open(dir.resolve("src"), "src", SLOTS, clock::get, nodes::get);
        RocksDbNodeStore dst = RocksDbNodeStore.open(dir.resolve("dst"), "dst", SLOTS, clock::get, nodes::get);
        nodes.put("src", src);
        nodes.put("dst", dst);
        for (int i = 0; i < keys; i++) {
            src.put(key(i), 1, new byte[90]);
        }
        dst.startCopy("m", SLOT, "src", RATE);
        clock.set(CLOCK_AT_READY);
        CopyProgress p = dst.copyProgress("m");
        src.prepareSource("m", SLOT, "dst");
        System.out.println("READY " + p.bytesCopied() + " " + p.bytesTotal());
        System.out.flush();
        for (long i = 0; ; i++) {
            String late = "late-" + i;
            src.put(late, 2, new byte[5]);
            System.out.println("ACK " + late + " .");
            System.out.flush();
        }
    }

    static String key(int i) {
        return String.format("key-%06d", i);
    }
}
