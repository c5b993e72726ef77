// The search on a JavaScript string where it lies: the card's loop with V8's own `indexOf`,
// for the calls where crossing into the module cannot pay for itself (`once.js` says which).
// Same answers as the module: the card's UTF-16 semantics are `indexOf`'s, and an unclosed
// start marker is the library's problem, worded by the module.
import { unclosedAt } from "../wasm/extract_between.js";
import { fromProblem } from "./errors.js";
import { utf8Length } from "./memory.js";

/** `loop` answered every match of the text. */
export const DONE = -1;
/** `loop` stopped at the cap with a further complete match after it. */
export const TRUNCATED = -2;

/**
 * The card's loop over `text` from UTF-16 offset `pos`, appending each match to `matches`:
 * at most `cap` of them (`TRUNCATED` when a further complete match exists), else `DONE`.
 * Throws `UnclosedStartMarker` with `matches` for a start marker with no end after it.
 *
 * @param {string} text
 * @param {string} start
 * @param {string} end
 * @param {number} cap
 * @param {string[]} matches
 * @param {number} pos
 * @returns {number}
 */
export function loop(text, start, end, cap, matches, pos) {
  for (;;) {
    const s = text.indexOf(start, pos);
    if (s < 0) return DONE;
    const from = s + start.length;
    const e = text.indexOf(end, from);
    if (e < 0) throw unclosed(text, s, matches);
    if (matches.length === cap) return TRUNCATED;
    matches.push(text.slice(from, e));
    pos = e + end.length;
  }
}

/**
 * `UnclosedStartMarker` for the start marker at UTF-16 offset `at` of `text`, its byte offset
 * counted here (the error's path only).
 * @param {string} text
 * @param {number} at
 * @param {string[]} matches
 */
export function unclosed(text, at, matches) {
  return fromProblem(unclosedAt(at, utf8Length(text.slice(0, at))), matches);
}
