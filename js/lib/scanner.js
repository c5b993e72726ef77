// `Scanner`: the resumable scanner for callers who own the loop; text arrives in chunks
// (strings or bytes, cut anywhere), matches or events come out as they complete.
import { Stream, maxMatchBytesCeiling, unclosedAt } from "../wasm/extract_between.js";
import { ExtractBetweenError, InvalidInput, UnclosedStartMarker, fromProblem } from "./errors.js";
import { checkWellFormed, copyIn, currentGeneration, encode, guarded, records } from "./memory.js";
import { checkMarker, describe } from "./once.js";
import { TagScanner } from "./tags.js";

/** The most of one match's content a scanner holds unless told otherwise: 16 MiB. */
export const DEFAULT_MAX_MATCH_BYTES = 16 << 20;

/** A chunk is fed to the module this many bytes (or UTF-16 units) at a time, so that no
 * chunk is too large to take and one call's answer stays within the module's memory. */
const PIECE = 16 << 20;

/**
 * The scanner's options, checked.
 * @param {unknown} options
 */
function optionsOf(options) {
  if (options === undefined) return { events: false, asked: DEFAULT_MAX_MATCH_BYTES, limit: DEFAULT_MAX_MATCH_BYTES };
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
  // The module holds at most 256 MiB of one match: a larger limit, or none, is that.
  const ceiling = maxMatchBytesCeiling();
  return { events, asked: maxMatchBytes === null ? -1 : maxMatchBytes, limit: maxMatchBytes === null ? ceiling : Math.min(maxMatchBytes, ceiling) };
}

/**
 * A resumable scanner: `feed` it chunks — strings, or bytes (`Uint8Array`, `ArrayBuffer`,
 * any `ArrayBufferView`) cut anywhere, even inside a character or a marker — then call
 * `finish`. Each call answers what it completed: matches (`{ text, start, end, byteStart,
 * byteEnd }`, offsets of the content in the whole input, `start`/`end` in UTF-16 code
 * units), or with `{ events: true }` events (`{ kind: "open" | "text" | "close", ... }`):
 * the text inside a match as it arrives. Memory stays bounded by the markers' length and
 * `maxMatchBytes` (16 MiB by default; `null` for no limit of the caller's), the most of one
 * match it holds — never more than 256 MiB, what the WebAssembly module can hold and hand
 * out as one string; events hold no match text at all. A chunk may be of any size.
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
  /** The module's generation the stream lives in. */
  #generation = 0;
  /** The markers, for the JavaScript-side events engine. */
  #pair;
  /** Events of string tokens are found on the JavaScript side, where a token costs what a
   * hand-written parser's does; the first chunk decides (a string: this engine for the whole
   * input; bytes: the module's). `undefined` until then, `null` for the module.
   * @type {TagScanner | null | undefined} */
  #here = undefined;

  /**
   * @param {string} start
   * @param {string} end
   * @param {{ events?: boolean, maxMatchBytes?: number | null }} [options]
   */
  constructor(start, end, options) {
    checkMarker(start, "start");
    checkMarker(end, "end");
    const { events, asked, limit } = optionsOf(options);
    this.#stream = guarded("new Scanner", () => {
      const stream = new Stream(start, end, events, asked);
      const invalid = stream.invalid;
      if (invalid !== undefined) {
        stream.free();
        throw fromProblem(invalid, []);
      }
      return stream;
    });
    this.#generation = currentGeneration();
    this.#events = events;
    this.#limit = limit;
    this.#pair = /** @type {[string, string]} */ ([start, end]);
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
    if (this.#events && this.#here === undefined) {
      this.#here = typeof chunk === "string" ? new TagScanner([this.#pair], false, true) : null;
    }
    const here = this.#here;
    if (here) {
      return this.#onHere(() => {
        if (typeof chunk === "string") return here.feed(chunk);
        const bytes = bytesOf(chunk);
        if (bytes === undefined) {
          throw new InvalidInput("chunk", `chunk must be a string, an ArrayBuffer or an ArrayBufferView (it is ${describe(chunk)})`);
        }
        return here.feed(bytes);
      });
    }
    return this.#guarded("feed", () => {
      const out = [];
      if (typeof chunk === "string") {
        let text = this.#high + chunk;
        this.#high = "";
        const last = text.charCodeAt(text.length - 1);
        if (last >= 0xd800 && last <= 0xdbff) {
          this.#high = text.slice(-1);
          text = text.slice(0, -1);
        }
        this.#guard(() => checkWellFormed(text, "chunk", stream.position));
        for (let at = 0; at < text.length || at === 0; ) {
          let to = Math.min(at + PIECE, text.length);
          // A piece never ends between a surrogate pair's halves.
          const unit = text.charCodeAt(to - 1);
          if (to < text.length && unit >= 0xd800 && unit <= 0xdbff) to--;
          const piece = at === 0 && to === text.length ? text : text.slice(at, to);
          this.#answer(stream, stream.feed(encode(piece, "chunk").len), out);
          if (to === text.length) break;
          at = to;
        }
        return out;
      }
      const bytes = this.#guard(() => bytesOf(chunk));
      if (bytes === undefined) {
        this.#end();
        throw new InvalidInput("chunk", `chunk must be a string, an ArrayBuffer or an ArrayBufferView (it is ${describe(chunk)})`);
      }
      this.#guard(() => this.#noHigh(stream));
      for (let at = 0; at < bytes.length || at === 0; at += PIECE) {
        const piece = bytes.length <= PIECE ? bytes : bytes.subarray(at, at + PIECE);
        this.#answer(stream, stream.feed(copyIn(piece, "chunk")), out);
        if (at + PIECE >= bytes.length) break;
      }
      return out;
    });
  }

  /** Ends the input; answers the last matches (or events), or throws `UnclosedStartMarker`. */
  finish() {
    const stream = this.#live("finish");
    const here = this.#here;
    if (here) {
      const out = this.#onHere(() => here.finish());
      this.#end();
      return out;
    }
    return this.#guarded("finish", () => {
      this.#guard(() => this.#noHigh(stream));
      const answer = this.#answer(stream, stream.finish(), []);
      this.#end();
      return answer;
    });
  }

  /** @param {string} call */
  #live(call) {
    if (this.#stream !== null && this.#generation !== currentGeneration()) {
      // Its memory went with a module that trapped and was started afresh.
      this.#stream = null;
      throw new ExtractBetweenError(
        "scanner_ended",
        `${call} on a scanner that has ended: the WebAssembly module was started afresh after an earlier failure`,
      );
    }
    if (this.#stream === null) {
      throw new ExtractBetweenError("scanner_ended", `${call} on a scanner that has ended (after finish, or an error)`);
    }
    return this.#stream;
  }

  /**
   * `guarded`, ending the scanner when its module trapped.
   * @template T
   * @param {string} what
   * @param {() => T} call
   * @returns {T}
   */
  #guarded(what, call) {
    try {
      return guarded(what, call);
    } catch (e) {
      if (this.#generation !== currentGeneration()) this.#stream = null;
      throw e;
    }
  }

  /** @param {Stream} stream */
  #noHigh(stream) {
    if (this.#high !== "") checkWellFormed(this.#high, "chunk", stream.position);
  }

  /**
   * Runs a check; an error it throws ends the scanner.
   * @template T
   * @param {() => T} check
   * @returns {T}
   */
  #guard(check) {
    try {
      return check();
    } catch (e) {
      this.#end();
      throw e;
    }
  }

  /**
   * Appends the step's records to `out` (the call's, so far), and answers it; throws its
   * error with all of them.
   * @param {Stream} stream
   * @param {number} count
   * @param {unknown[]} out
   */
  #answer(stream, count, out) {
    if (count === 0) return out;
    const found = records(
      count < 0 ? stream.recordsLength() : count,
      stream.recordSize,
      stream.recordsAt(),
      stream.textAt(),
      stream.textLength(),
    );
    for (const record of found) out.push(record);
    if (count > 0) return out;
    const problem = stream.problem;
    this.#end();
    throw fromProblem(problem, out, { field: "chunk", limit: this.#limit });
  }

  /**
   * A call on the JavaScript-side engine: its error ends the scanner and is thrown as the
   * module's would be, the call's events before it on `matches`.
   * @param {() => object[]} call
   */
  #onHere(call) {
    try {
      return call();
    } catch (e) {
      this.#end();
      const error = /** @type {any} */ (e);
      const events = error.events ?? [];
      if (error instanceof UnclosedStartMarker) throw fromProblem(unclosedAt(error.offset, error.byteOffset), events);
      delete error.events;
      error.matches = events;
      throw error;
    }
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
  if (ArrayBuffer.isView(chunk)) {
    if (isDetached(chunk.buffer)) throw detached();
    return chunk instanceof Uint8Array ? chunk : new Uint8Array(chunk.buffer, chunk.byteOffset, chunk.byteLength);
  }
  if (chunk instanceof ArrayBuffer || (typeof SharedArrayBuffer !== "undefined" && chunk instanceof SharedArrayBuffer)) {
    if (isDetached(chunk)) throw detached();
    return new Uint8Array(chunk);
  }
  return undefined;
}

/**
 * Whether a buffer was detached (transferred away): a view of it reads as empty.
 * @param {ArrayBufferLike} buffer
 */
function isDetached(buffer) {
  if (buffer.byteLength !== 0) return false;
  if ("detached" in buffer) return /** @type {any} */ (buffer).detached === true;
  try {
    new Uint8Array(buffer, 0, 0);
    return false;
  } catch {
    return true;
  }
}

function detached() {
  return new InvalidInput(
    "chunk",
    "chunk's ArrayBuffer is detached (transferred with postMessage or structuredClone): it holds no bytes to scan",
  );
}
