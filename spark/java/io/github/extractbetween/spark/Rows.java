package io.github.extractbetween.spark;

import java.nio.charset.StandardCharsets;
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
    /** What a row with an unclosed start marker becomes (the column functions' names). */
    public static final int RAISE = 0;
    public static final int NULL = 1;
    public static final int PARTIAL = 2;

    private Rows() {}

    /** The last marker pair this thread used, and its id. */
    private static final class Pair {
        UTF8String start;
        UTF8String end;
        int id;
    }

    private static final ThreadLocal<Pair> LAST = ThreadLocal.withInitial(Pair::new);
    private static final ThreadLocal<int[]> ANSWER = ThreadLocal.withInitial(() -> new int[64]);

    private static int id(UTF8String start, UTF8String end) {
        Pair last = LAST.get();
        if (last.start == null || !last.start.equals(start) || !last.end.equals(end)) {
            Native.ensureLoaded();
            last.id = Native.register(start.getBytes(), end.getBytes());
            last.start = start.copy();
            last.end = end.copy();
        }
        return last.id;
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

    /** Scans a row; the answer array is this thread's, valid until its next row. */
    private static int[] scan(Row row, UTF8String start, UTF8String end, long cap, int onUnclosed) {
        int id = id(start, end);
        long most = row.length / (start.numBytes() + end.numBytes());
        int size = (int) (Native.HEADER + 2 * Math.min(cap, most));
        int[] out = ANSWER.get();
        if (out.length < size) {
            out = new int[Math.max(size, 2 * out.length)];
            ANSWER.set(out);
        }
        int status = Native.scan(id, row.bytes, row.from, row.length, cap, out);
        if (status == Native.INVALID_UTF8 || (status == Native.UNCLOSED && onUnclosed == RAISE)) {
            byte[] message = Native.message(row.bytes, row.from, row.length, status, out[2]);
            throw new ExtractBetweenException(new String(message, StandardCharsets.UTF_8));
        }
        return out;
    }

    /**
     * {@code extract_between_all}: every match of {@code text}, at most {@code cap}; null for
     * an unclosed row under {@code NULL}.
     */
    public static ArrayData all(UTF8String text, UTF8String start, UTF8String end, long cap, int onUnclosed) {
        Row row = new Row(text);
        int[] out = scan(row, start, end, cap, onUnclosed);
        if (out[1] == Native.UNCLOSED && onUnclosed == NULL) {
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
     * {@code extract_between_first}: the first match of {@code text}, null where there is
     * none (or for an unclosed row under {@code NULL}).
     */
    public static UTF8String first(UTF8String text, UTF8String start, UTF8String end, int onUnclosed) {
        Row row = new Row(text);
        int[] out = scan(row, start, end, 1, onUnclosed);
        if (out[0] == 0 || (out[1] == Native.UNCLOSED && onUnclosed == NULL)) {
            return null;
        }
        return row.slice(out[Native.HEADER], out[Native.HEADER + 1]);
    }
}
