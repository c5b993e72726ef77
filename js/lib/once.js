// Whole texts: `extract`, the card's tool exactly, and `findAll`, without its size limit.
import { Pair, textTooLong } from "../wasm/extract_between.js";
import { InvalidInput, fromProblem } from "./errors.js";
import { TRUNCATED, loop } from "./here.js";
import { checkWellFormed, cut, encode, guarded, utf8Length, whenReset } from "./memory.js";

/** The card's limits. */
export const limits = Object.freeze({
  maxTextBytes: 256000,
  maxMarkerBytes: 4096,
  defaultMaxMatches: 100,
  maxMatches: 1000,
});

// Where a string is searched, by measurement (`ROUNDS=9 node js/bench.mjs`, figures in
// README.md): V8's `indexOf` on the string where it lies (here.js). The module pays
// `TextEncoder.encodeInto` of the whole text before it searches, and on no shape of text did
// it then beat the loop by more than the run-to-run noise; it searches only what must be
// encoded anyway: an `extract` text too long to be within the card's size limit in every
// encoding (more than a third of the limit in UTF-16 units), which must be measured in bytes.
/** A text of at most this many UTF-16 units is within the card's size limit however encoded. */
const SURELY_WITHIN = Math.floor(limits.maxTextBytes / 3);

/** Prepared marker pairs, by start then end; emptied when it holds `KEEP` of them. */
const prepared = new Map();
let preparedCount = 0;
const KEEP = 16;
// A module started afresh has none of them (their memory went with the old one).
whenReset(() => {
  prepared.clear();
  preparedCount = 0;
});

/**
 * The prepared pair of two markers, checked.
 * @param {unknown} start
 * @param {unknown} end
 * @returns {Pair}
 */
function pairOf(start, end) {
  const pair = prepared.get(start)?.get(end);
  if (pair !== undefined) return pair;
  checkMarker(start, "start");
  checkMarker(end, "end");
  const made = new Pair(start, end);
  const invalid = made.invalid;
  if (invalid !== undefined) {
    made.free();
    throw fromProblem(invalid, []);
  }
  if (preparedCount >= KEEP) {
    for (const ends of prepared.values()) for (const p of ends.values()) p.free();
    prepared.clear();
    preparedCount = 0;
  }
  let ends = prepared.get(start);
  if (ends === undefined) prepared.set(start, (ends = new Map()));
  ends.set(end, made);
  preparedCount++;
  return made;
}

/**
 * Throws `InvalidInput` unless `marker` is a well-formed string (the library checks its
 * length).
 * @param {unknown} marker
 * @param {string} field
 */
export function checkMarker(marker, field) {
  if (typeof marker !== "string") {
    throw new InvalidInput(field, `${field} must be a string (it is ${describe(marker)})`);
  }
  checkWellFormed(marker, field);
}

/**
 * A value's type, for an error message.
 * @param {unknown} value
 */
export function describe(value) {
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  if (typeof value === "number" || typeof value === "bigint" || typeof value === "boolean") {
    return `${typeof value} ${String(value)}`;
  }
  return typeof value === "object" ? `an object (${value.constructor?.name ?? "Object"})` : typeof value;
}

/**
 * The `maxMatches` option: an integer from 1 to 1000, 100 when absent.
 * @param {unknown} options
 */
function maxMatchesOf(options) {
  if (options === undefined) return limits.defaultMaxMatches;
  if (options === null || typeof options !== "object") {
    throw new InvalidInput("options", `options must be an object (it is ${describe(options)})`);
  }
  const value = /** @type {{ maxMatches?: unknown }} */ (options).maxMatches;
  if (value === undefined) return limits.defaultMaxMatches;
  if (!Number.isInteger(value) || value < 1 || value > limits.maxMatches) {
    throw new InvalidInput(
      "maxMatches",
      `maxMatches must be an integer from 1 to ${limits.maxMatches} (it is ${describe(value)})`,
    );
  }
  return /** @type {number} */ (value);
}

/**
 * Throws `InvalidInput` unless `text` is a well-formed string.
 * @param {unknown} text
 */
function checkText(text) {
  if (typeof text !== "string") {
    throw new InvalidInput("text", `text must be a string (it is ${describe(text)})`);
  }
  checkWellFormed(text, "text");
}

/**
 * Scans a checked text with a pair; answers the ranges' count or throws.
 * @param {Pair} pair
 * @param {string} text
 * @param {number | undefined} cap at most this many matches; undefined: every one
 * @param {boolean} card
 */
function scan(pair, text, cap, card) {
  const { len, ascii } = encode(text);
  const count = pair.scan(len, cap, card, ascii);
  if (count < 0) {
    const problem = pair.problem;
    const before = problem.code === "unclosed_start_marker" ? cut(text, pair.rangesAt(), pair.ranges().length / 2) : [];
    throw fromProblem(problem, before);
  }
  return cut(text, pair.rangesAt(), count);
}

/**
 * The card's tool: the contents between `start` and `end`, left to right and
 * non-overlapping, at most `maxMatches` (default 100, at most 1000) of them; `truncated`
 * when a further complete match exists. The text is at most 256000 UTF-8 bytes and each
 * marker a non-empty string of at most 4096.
 *
 * @example
 * import { extract } from "extract-between";
 * extract("pre[one]mid[two]post", "[", "]"); // → { matches: ["one", "two"], truncated: false }
 * extract("[a][b][c]", "[", "]", { maxMatches: 2 }); // → { matches: ["a", "b"], truncated: true }
 *
 * @param {string} text
 * @param {string} start
 * @param {string} end
 * @param {{ maxMatches?: number }} [options]
 * @returns {{ matches: string[], truncated: boolean }}
 * @throws {InvalidInput} an argument the card refuses (its `field` says which)
 * @throws {UnclosedStartMarker} a start marker with no end marker after it
 */
export function extract(text, start, end, options) {
  return guarded("extract", () => extractChecked(text, start, end, options));
}

/** `extract`, inside the guard. @param {string} text @param {string} start @param {string} end @param {{ maxMatches?: number }} [options] */
function extractChecked(text, start, end, options) {
  const cap = maxMatchesOf(options);
  const pair = pairOf(start, end);
  checkText(text);
  if (text.length > limits.maxTextBytes) {
    // Longer in UTF-16 units, so longer in bytes: counted for the message only.
    throw fromProblem(textTooLong(utf8Length(text)), []);
  }
  if (text.length <= SURELY_WITHIN) {
    /** @type {string[]} */
    const matches = [];
    const at = loop(text, start, end, cap, matches, 0);
    return { matches, truncated: at === TRUNCATED };
  }
  const matches = scan(pair, text, cap, true);
  return { matches, truncated: pair.truncated };
}

/**
 * Every content between `start` and `end` in a text of any size (no cap, no size limit);
 * the same rules as `extract` otherwise.
 *
 * @example
 * import { findAll } from "extract-between";
 * findAll("a <b>1</b> c <b>2</b>", "<b>", "</b>"); // → ["1", "2"]
 *
 * @param {string} text
 * @param {string} start
 * @param {string} end
 * @returns {string[]}
 * @throws {InvalidInput} an argument refused (its `field` says which)
 * @throws {UnclosedStartMarker} a start marker with no end marker after it
 */
export function findAll(text, start, end) {
  return guarded("findAll", () => {
    pairOf(start, end);
    checkText(text);
    /** @type {string[]} */
    const matches = [];
    loop(text, start, end, Infinity, matches, 0);
    return matches;
  });
}
