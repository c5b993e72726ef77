// The package's error classes: every error it throws is one of them, with the card's code,
// the field or the offsets it names, and the matches found before it.

/** The base class of the package's errors; `code` is the card's name of the error. */
export class ExtractBetweenError extends Error {
  /**
   * @param {string} code
   * @param {string} message
   */
  constructor(code, message) {
    super(message);
    this.name = new.target.name;
    /** @type {string} */
    this.code = code;
  }
}

/**
 * A refused argument: `field` names it (`"text"`, `"start"`, `"end"`, `"maxMatches"`,
 * `"maxMatchBytes"`, `"chunk"`, `"options"`); `offset` is the UTF-16 offset of a lone
 * surrogate, `byteOffset` that of bytes that are not UTF-8, where the error is about one.
 */
export class InvalidInput extends ExtractBetweenError {
  /**
   * @param {string} field
   * @param {string} message
   * @param {{ offset?: number, byteOffset?: number, matches?: unknown[], code?: string }} [at]
   */
  constructor(field, message, at = {}) {
    super(at.code ?? "invalid_input", message);
    this.field = field;
    if (at.offset !== undefined) this.offset = at.offset;
    if (at.byteOffset !== undefined) this.byteOffset = at.byteOffset;
    this.matches = at.matches ?? [];
  }
}

/**
 * A start marker with no end marker after it: `offset` is where it begins in UTF-16 code
 * units (what `String.prototype.slice` takes), `byteOffset` in UTF-8 bytes; `matches` are
 * those found before it (the whole text's for `extract` and `findAll`, the last call's for a
 * scanner).
 */
export class UnclosedStartMarker extends ExtractBetweenError {
  /**
   * @param {string} message
   * @param {number} offset
   * @param {number} byteOffset
   * @param {unknown[]} matches
   */
  constructor(message, offset, byteOffset, matches) {
    super("unclosed_start_marker", message);
    this.offset = offset;
    this.byteOffset = byteOffset;
    this.matches = matches;
  }
}

/**
 * A match longer than a stream's `maxMatchBytes`: `offset` and `byteOffset` are where its
 * content begins, `limit` the bound; `matches` are the last call's matches before it.
 */
export class MatchTooLarge extends ExtractBetweenError {
  /**
   * @param {string} message
   * @param {number} offset
   * @param {number} byteOffset
   * @param {number} limit
   * @param {unknown[]} matches
   */
  constructor(message, offset, byteOffset, limit, matches) {
    super("match_too_large", message);
    this.offset = offset;
    this.byteOffset = byteOffset;
    this.limit = limit;
    this.matches = matches;
  }
}

/**
 * The error for a problem the WebAssembly half reported (its `free` is called here).
 * @param {any} problem
 * @param {unknown[]} matches
 * @param {{ field?: string, limit?: number }} [context]
 */
export function fromProblem(problem, matches, context = {}) {
  const { code, message, offset, byteOffset } = problem;
  const field = problem.field;
  problem.free();
  switch (code) {
    case "unclosed_start_marker":
      return new UnclosedStartMarker(message, offset, byteOffset, matches);
    case "match_too_large":
      return new MatchTooLarge(message, offset, byteOffset, context.limit ?? 0, matches);
    case "invalid_utf8":
      return new InvalidInput(context.field ?? "chunk", `${context.field ?? "chunk"}: ${message}`, {
        byteOffset,
        matches,
        code,
      });
    default:
      return new InvalidInput(field ?? context.field ?? "input", message, { matches });
  }
}
