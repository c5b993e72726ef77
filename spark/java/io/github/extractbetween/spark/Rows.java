package io.github.extractbetween.spark;

import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import org.apache.spark.sql.catalyst.util.ArrayData;
import org.apache.spark.sql.catalyst.util.GenericArrayData;
import org.apache.spark.unsafe.Platform;
import org.apache.spark.unsafe.types.UTF8String;

/**
 * What the functions' Catalyst expressions call for each row (through {@code StaticInvoke},
 * compiled into Spark's generated code): the row's bytes to the engine, the matches back as
 * {@code UTF8String}s over the row's own bytes. Public for the generated code alone.
 */
public final class Rows {
    private Rows() {}

    /**
     * A marker pair and the call's options as this thread's cache holds them (copies: a row's
     * strings are reused).
     */
    private record Pair(UTF8String start, UTF8String end, UTF8String options) {}

    /**
     * Marker pairs this thread has registered, and their ids: a query with several pairs
     * crosses into the native library once per pair and thread, not at every switch.
     */
    private static final ThreadLocal<HashMap<Pair, Integer>> IDS = ThreadLocal.withInitial(HashMap::new);

    /** Pairs a thread's cache holds before it is emptied (queries name a few). */
    private static final int CACHED_PAIRS = 64;

    /**
     * The answer array a row is scanned into: room for this many matches. A row with more
     * gets an array of its own, sized by what was found, which is not kept.
     */
    private static final int KEPT_MATCHES = 256;

    private static final ThreadLocal<int[]> ANSWER =
            ThreadLocal.withInitial(() -> new int[Native.HEADER + 2 * KEPT_MATCHES]);

    private static int id(UTF8String start, UTF8String end, UTF8String options) {
        HashMap<Pair, Integer> ids = IDS.get();
        Integer id = ids.get(new Pair(start, end, options));
        if (id == null) {
            Native.ensureLoaded();
            id = Native.register(start.getBytes(), end.getBytes(), options.getBytes());
            if (ids.size() >= CACHED_PAIRS) {
                ids.clear();
            }
            ids.put(new Pair(start.copy(), end.copy(), options.copy()), id);
        }
        return id;
    }

    /** The row's bytes as an array and where they begin in it. */
    private static final class Row {
        final Object base;
        final long baseOffset;
        final byte[] bytes;
        final int from;
        final int length;

        Row(UTF8String text) {
            length = text.numBytes();
            if (text.getBaseObject() instanceof byte[] array) {
                base = array;
                baseOffset = text.getBaseOffset();
                bytes = array;
                from = (int) (baseOffset - Platform.BYTE_ARRAY_OFFSET);
            } else {
                // Off the heap: a copy (the answer's strings then share the copy).
                bytes = text.getBytes();
                base = bytes;
                baseOffset = Platform.BYTE_ARRAY_OFFSET;
                from = 0;
            }
        }

        UTF8String slice(int start, int end) {
            return UTF8String.fromAddress(base, baseOffset + start, end - start);
        }
    }

    /**
     * Scans a row: the answer array (this thread's, valid until its next row, or one of the
     * row's own when its matches do not fit), its status decided by the native side.
     */
    private static int[] scan(Row row, UTF8String start, UTF8String end, UTF8String options) {
        int id = id(start, end, options);
        int[] out = Native.scan(id, row.bytes, row.from, row.length, ANSWER.get());
        if (out[1] == Native.UNCLOSED || out[1] == Native.INVALID_UTF8) {
            byte[] message = Native.message();
            throw new ExtractBetweenException(new String(message, StandardCharsets.UTF_8));
        }
        return out;
    }

    /**
     * {@code extract_between_all}: every match of {@code text} under {@code options} (what
     * {@link Native#options} wrote for the call); null for an unclosed row under 'null'.
     */
    public static ArrayData all(UTF8String text, UTF8String start, UTF8String end, UTF8String options) {
        Row row = new Row(text);
        int[] out = scan(row, start, end, options);
        if (out[1] == Native.NULL) {
            return null;
        }
        Object[] matches = new Object[out[0]];
        for (int i = 0; i < matches.length; i++) {
            int at = Native.HEADER + 2 * i;
            matches[i] = row.slice(out[at], out[at + 1]);
        }
        return new GenericArrayData(matches);
    }

    /**
     * {@code extract_between_first}: the first match of {@code text} under {@code options}
     * (a cap of one), null where there is none (or for an unclosed row under 'null').
     */
    public static UTF8String first(UTF8String text, UTF8String start, UTF8String end, UTF8String options) {
        Row row = new Row(text);
        int[] out = scan(row, start, end, options);
        if (out[0] == 0 || out[1] == Native.NULL) {
            return null;
        }
        return row.slice(out[Native.HEADER], out[Native.HEADER + 1]);
    }
}
