package io.github.extractbetween.spark;

/**
 * A row the functions cannot answer: an unclosed start marker under {@code on_unclosed =>
 * 'raise'}, or text that is not UTF-8. The message names the card's error, the offset and the
 * start of the row's text; the task fails with it.
 */
public final class ExtractBetweenException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    public ExtractBetweenException(String message) {
        super(message);
    }
}
