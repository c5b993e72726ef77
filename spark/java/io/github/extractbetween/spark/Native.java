package io.github.extractbetween.spark;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.Locale;

/**
 * The engine's native library (the Rust crate in {@code spark/src}), loaded from this jar on
 * first use. A row goes over as UTF-8 bytes and its matches come back as byte offsets.
 */
final class Native {
    // A row's status, decided by the native side under the call's on_unclosed (the values
    // of spark/src/rows.rs, whose test reads them here).
    /** The row answers its matches (under 'partial', those before an unclosed start). */
    static final int MATCHES = 0;
    /** The row answers NULL (an unclosed start under 'null'). */
    static final int NULL = 1;
    /** An unclosed start under 'raise': the query stops. */
    static final int UNCLOSED = 2;
    /** The row is not UTF-8: the query stops. */
    static final int INVALID_UTF8 = 3;
    /** An answer's ints before the matches: count, status, the error's byte offset. */
    static final int HEADER = 3;

    /** The platform this jar holds a library for. */
    static final String SHIPPED = "linux-x86_64";

    private static final Throwable LOAD_FAILURE = load();

    private Native() {}

    /** Fails with why the library is not there, or returns. */
    static void ensureLoaded() {
        if (LOAD_FAILURE != null) {
            throw new UnsupportedOperationException(LOAD_FAILURE.getMessage(), LOAD_FAILURE);
        }
    }

    private static String platform() {
        String os = System.getProperty("os.name", "").toLowerCase(Locale.ROOT);
        String arch = System.getProperty("os.arch", "").toLowerCase(Locale.ROOT);
        if (arch.equals("amd64")) {
            arch = "x86_64";
        }
        return (os.startsWith("linux") ? "linux" : os.replace(' ', '_')) + "-" + arch;
    }

    private static Throwable load() {
        String platform = platform();
        String resource = "native/" + platform + "/libextract_between_spark.so";
        try (InputStream in = Native.class.getResourceAsStream(resource)) {
            if (in == null) {
                return new UnsupportedOperationException(
                        "extract-between's Spark functions have no native library for " + platform
                                + " (this jar holds one for " + SHIPPED + "); on this platform use the"
                                + " Arrow UDFs of the Python package (extract_between.spark without the jar)");
            }
            Path file = Files.createTempFile("extract_between_spark", ".so");
            try {
                Files.copy(in, file, StandardCopyOption.REPLACE_EXISTING);
                System.load(file.toAbsolutePath().toString());
            } finally {
                // Loaded (or not): the mapping stays, the name goes.
                Files.deleteIfExists(file);
            }
            return null;
        } catch (IOException | UnsatisfiedLinkError e) {
            return new UnsupportedOperationException(
                    "extract-between's native library for " + platform + " could not be loaded: " + e, e);
        }
    }

    /** {@code null} when the markers are the card's, else why not (UTF-8). */
    static native byte[] check(byte[] start, byte[] end);

    /**
     * {@code null} when the library takes the options, else why not (UTF-8): {@code capType}
     * or {@code policyType}, when not {@code null}, name the SQL type of an argument that
     * cannot be the option (UTF-8); {@code policy} is {@code null} for SQL's NULL.
     */
    static native byte[] checkOptions(byte[] capType, boolean capGiven, long cap, byte[] policyType, byte[] policy);

    /**
     * Checked options as the rows carry them to {@link #register}: bytes only the native side
     * reads.
     */
    static native byte[] options(boolean capGiven, long cap, byte[] policy);

    /** The id of a valid marker pair under {@code options} in this process. */
    static native int register(byte[] start, byte[] end, byte[] options);

    /**
     * Scans {@code text[offset, offset + length)} with the pair and options {@code id}: count,
     * status, error offset, then each match's content start and end (relative to {@code
     * offset}). Returns {@code out} holding the answer, or a new array sized for it when it
     * does not fit.
     */
    static native int[] scan(int id, byte[] text, int offset, int length, int[] out);

    /**
     * The message of the row that last stopped a query on this thread (UTF-8): the scan that
     * answered its error kept it, so the row is not scanned again.
     */
    static native byte[] message();
}
