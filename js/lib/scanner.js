// `Scanner`: the resumable scanner for callers who own the loop; text arrives in chunks
// (strings or bytes, cut anywhere), matches or events come out as they complete.
import { Stream } from "../wasm/extract_between.js";
import { ExtractBetweenError, InvalidInput, fromProblem } from "./errors.js";
import { checkWellFormed, copyIn, encode, records } from "./memory.js";
import { checkMarker, describe } from "./once.js";

/** The most of one match's content a scanner holds unless told otherwise: 16 MiB. */
export const DEFAULT_MAX_MATCH_BYTES = 16 << 20;

/**
 * The scanner's options, checked.
 * @param {unknown} options
 */
function optionsOf(options) {
  if (options === undefined) return { events: false, limit: DEFAULT_MAX_MATCH_BYTES };
  if (options === null || typeof options !== "object") {
    throw new InvalidInput("options", `options must be an object (it is ${describe(options)})`);
  }
  const { events = false, maxMatchBytes = DEFAULT_MAX_MATCH_BYTES } = /** @type {any} */ (options);
  if (typeof events !== "boolean") {
    throw new InvalidInput("events", `events must be a boolean (it is ${describe(events)})`);
  }
  if (maxMatchBytes !== null && !(Number.isSafeInteger(maxMatchBytes) && maxMatchBytes >= 0)) {
    throw new InvalidInput(
      "maxMatchBytes",
      `maxMatchBytes must be a non-negative integer, or null for no limit (it is ${describe(maxMatchBytes)})`,
    );
  }
  return { events, limit: maxMatchBytes === null ? -1 : maxMatchBytes };
}

/**
 * A resumable scanner: `feed` it chunks — strings, or bytes (`Uint8Array`, `ArrayBuffer`,
 * any `ArrayBufferView`) cut anywhere, even inside a character or a marker — then call
 * `finish`. Each call answers what it completed: matches (`{ text, start, end, byteStart,
 * byteEnd }`, offsets of the content in the whole input, `start`/`end` in UTF-16 code
 * units), or with `{ events: true }` events (`{ kind: "open" | "text" | "close", ... }`):
 * the text inside a match as it arrives. Memory stays bounded by the markers' length and
 * `maxMatchBytes` (16 MiB by default; `null` for none), the most of one match it holds;
 * events hold no match text at all.
 *
 * An error (an unclosed start marker at `finish`, bytes that are not UTF-8, a lone
 * surrogate, `MatchTooLarge`) is thrown with the call's matches before it on its `matches`;
 * the scanner has then ended, and a further call throws.
 *
 * @example
 * import { Scanner } from "extract-between";
 * const s = new Scanner("<answer>", "</answer>", { events: true });
 * s.feed("<ans").length;                        // → 0
 * s.feed("wer>Forty").map((e) => e.kind);       // → ["open", "text"]
 * s.feed("-two</answer>").map((e) => e.text);   // → ["-two", undefined]
 * s.finish();                                   // → []
 */
export class Scanner {
  /** @type {Stream | null} */
  #stream;
  #events;
  #limit;
  /** A high surrogate that ended the last string chunk: its pair comes next. */
  #high = "";

  /**
   * @param {string} start
   * @param {string} end
   * @param {{ events?: boolean, maxMatchBytes?: number | null }} [options]
   */
  constructor(start, end, options) {
    checkMarker(start, "start");
    checkMarker(end, "end");
    const { events, limit } = optionsOf(options);
    const stream = new Stream(start, end, events, limit);
    const invalid = stream.invalid;
    if (invalid !== undefined) {
      stream.free();
      throw fromProblem(invalid, []);
    }
    this.#stream = stream;
    this.#events = events;
    this.#limit = limit;
  }

  /** Whether this scanner hands out events (`{ events: true }`) rather than matches. */
  get events() {
    return this.#events;
  }

  /**
   * Scans the next chunk; answers the matches (or events) it completed.
   * @param {string | ArrayBuffer | ArrayBufferView} chunk
   */
  feed(chunk) {
    const stream = this.#live("feed");
    let len;
    if (typeof chunk === "string") {
      let text = this.#high + chunk;
      this.#high = "";
      const last = text.charCodeAt(text.length - 1);
      if (last >= 0xd800 && last <= 0xdbff) {
        this.#high = text.slice(-1);
        text = text.slice(0, -1);
      }
      this.#guard(() => checkWellFormed(text, "chunk", stream.position));
      len = encode(text).len;
    } else {
      const bytes = bytesOf(chunk);
      if (bytes === undefined) {
        this.#end();
        throw new InvalidInput("chunk", `chunk must be a string, an ArrayBuffer or an ArrayBufferView (it is ${describe(chunk)})`);
      }
      this.#guard(() => this.#noHigh(stream));
      len = copyIn(bytes);
    }
    return this.#answer(stream, stream.feed(len));
  }

  /** Ends the input; answers the last matches (or events), or throws `UnclosedStartMarker`. */
  finish() {
    const stream = this.#live("finish");
    this.#guard(() => this.#noHigh(stream));
    const answer = this.#answer(stream, stream.finish());
    this.#end();
    return answer;
  }

  /** @param {string} call */
  #live(call) {
    if (this.#stream === null) {
      throw new ExtractBetweenError("scanner_ended", `${call} on a scanner that has ended (after finish, or an error)`);
    }
    return this.#stream;
  }

  /** @param {Stream} stream */
  #noHigh(stream) {
    if (this.#high !== "") checkWellFormed(this.#high, "chunk", stream.position);
  }

  /** Runs a check; an error it throws ends the scanner. @param {() => void} check */
  #guard(check) {
    try {
      check();
    } catch (e) {
      this.#end();
      throw e;
    }
  }

  /**
   * The call's records, or its error with them.
   * @param {Stream} stream
   * @param {number} count
   */
  #answer(stream, count) {
    if (count === 0) return [];
    const found = records(
      count < 0 ? stream.recordsLength() : count,
      stream.recordSize,
      stream.recordsAt(),
      stream.textAt(),
      stream.textLength(),
    );
    if (count > 0) return found;
    const problem = stream.problem;
    this.#end();
    throw fromProblem(problem, found, { field: "chunk", limit: this.#limit });
  }

  #end() {
    this.#stream?.free();
    this.#stream = null;
  }
}

/**
 * The bytes of a chunk, without a copy; `undefined` for what is not bytes.
 * @param {unknown} chunk
 */
function bytesOf(chunk) {
  if (chunk instanceof Uint8Array) return chunk;
  if (ArrayBuffer.isView(chunk)) return new Uint8Array(chunk.buffer, chunk.byteOffset, chunk.byteLength);
  if (chunk instanceof ArrayBuffer || (typeof SharedArrayBuffer !== "undefined" && chunk instanceof SharedArrayBuffer)) {
    return new Uint8Array(chunk);
  }
  return undefined;
}
