// `Tags`: several marker pairs followed in one pass, and the text outside them, on the
// JavaScript side: a model's reply arrives as string tokens, and crossing into the
// WebAssembly module for each would cost more than the search. The semantics are the
// library's `tags` module's (held equal by the shared vectors, testdata/tags.json): from each
// position the leftmost start marker opens a match (the longest where several begin there),
// that pair's end closes it; a feed's decided text comes as one piece, and only a suffix that
// may begin the marker sought is held.
import { InvalidInput, UnclosedStartMarker } from "./errors.js";
import { drained } from "./drain.js";
import { checkWellFormed } from "./memory.js";
import { checkMarker, describe } from "./once.js";
import { openSuffix, Starts } from "./starts.js";
import { bytesOf, cutAt, validUpTo, wellFormed } from "./unicode.js";

/** Events waiting in a stream's readable side before the scan waits for the reader. */
const QUEUED = 4096;

/** The most pairs a tag set holds, and a marker's most UTF-8 bytes (the card's). */
const MAX_TAGS = 64;
const MAX_MARKER_BYTES = 4096;

/**
 * The pairs, checked: 1 to 64 `[start, end]` string pairs, markers 1 to 4096 UTF-8 bytes,
 * starts distinct; `InvalidInput` names the pair and the marker.
 * @param {unknown} pairs
 * @returns {[string, string][]}
 */
function checkPairs(pairs) {
  if (!Array.isArray(pairs)) {
    throw new InvalidInput("pairs", `pairs must be an array of [start, end] pairs (it is ${describe(pairs)})`);
  }
  if (pairs.length === 0) throw new InvalidInput("pairs", "a tag set needs at least one [start, end] pair");
  if (pairs.length > MAX_TAGS) {
    throw new InvalidInput("pairs", `a tag set holds at most ${MAX_TAGS} pairs (it has ${pairs.length})`);
  }
  /** @type {[string, string][]} */
  const out = [];
  pairs.forEach((pair, i) => {
    if (!Array.isArray(pair) || pair.length !== 2) {
      throw new InvalidInput(`pairs[${i}]`, `pairs[${i}] must be a [start, end] pair (it is ${describe(pair)})`);
    }
    pair.forEach((marker, j) => {
      const field = `pairs[${i}][${j}]`;
      checkMarker(marker, field);
      const which = j === 0 ? "start" : "end";
      if (marker.length === 0) throw new InvalidInput(field, `pair ${i}'s ${which} must be a non-empty string`);
      const len = bytesOf(marker);
      if (len > MAX_MARKER_BYTES) {
        throw new InvalidInput(field, `pair ${i}'s ${which} must be at most ${MAX_MARKER_BYTES} UTF-8 bytes long (it is ${len} bytes)`);
      }
    });
    const first = out.findIndex(([start]) => start === pair[0]);
    if (first >= 0) {
      throw new InvalidInput(
        `pairs[${i}][0]`,
        `pair ${i}'s start marker ${JSON.stringify(pair[0])} is pair ${first}'s: start markers must be distinct`,
      );
    }
    out.push([pair[0], pair[1]]);
  });
  return out;
}

/**
 * A set of 1 to 64 marker pairs `[start, end]` followed in one pass: from each position the
 * leftmost start marker opens a match (the longest where several begin at one place), and
 * that pair's end marker closes it; start markers inside a match are its text. Start markers
 * must be distinct; an end may repeat or equal any start. One pair is exactly the card's.
 *
 * @example
 * import { Tags } from "extract-between";
 * const tags = new Tags([["<think>", "</think>"], ["<tool_call>", "</tool_call>"]]);
 * tags.findAll("<think>2+2?</think>Four.<tool_call>{}</tool_call>"); // → [{ tag: 0, text: "2+2?" }, { tag: 1, text: "{}" }]
 * const s = tags.scanner({ outside: true });
 * s.feed("<think>hm</th").map((e) => e.kind);   // → ["open", "text"]
 * s.feed("ink>Four.").map((e) => e.text);       // → [undefined, "Four."]
 */
export class Tags {
  /** @type {[string, string][]} */
  #pairs;

  /** @param {[string, string][]} pairs */
  constructor(pairs) {
    this.#pairs = checkPairs(pairs);
  }

  /** The pairs, as given. */
  get pairs() {
    return this.#pairs.map(([start, end]) => [start, end]);
  }

  /**
   * Every match of `text`, in order, as `{ tag, text }` (`tag` the pair's index). A start
   * marker with no end after it throws `UnclosedStartMarker` with the matches before it and
   * the pair on `tag`.
   * @param {string} text
   */
  findAll(text) {
    if (typeof text !== "string") throw new InvalidInput("text", `text must be a string (it is ${describe(text)})`);
    checkWellFormed(text, "text");
    const search = new Starts(this.#pairs);
    /** @type {{ tag: number, text: string }[]} */
    const found = [];
    for (let pos = 0; ; ) {
      const tag = search.decide(text, pos, true);
      if (tag < 0) return found;
      const pair = this.#pairs[tag];
      const end = pair[1];
      const from = search.at + pair[0].length;
      const e = text.indexOf(end, from);
      if (e < 0) throw unclosed(text.slice(0, search.at), search.at, tag, found);
      found.push({ tag, text: text.slice(from, e) });
      pos = e + end.length;
    }
  }

  /**
   * A resumable scanner of this set: `feed` it chunks (strings, or bytes cut anywhere), then
   * `finish`; each call answers the events it decided. With `{ outside: true }` the text
   * outside every match comes too (`kind: "outside"`, `tag: null`).
   * @param {{ outside?: boolean }} [options]
   */
  scanner(options) {
    return new TagScanner(this.#pairs, outsideOf(options));
  }

  /**
   * The scanner as a `TransformStream` from chunks to events, for `fetch` bodies and
   * `ReadableStream.pipeThrough`.
   * @param {{ outside?: boolean }} [options]
   */
  stream(options) {
    const scanner = this.scanner(options);
    /** @param {() => object[]} call @param {TransformStreamDefaultController<object>} controller */
    const run = async (call, controller) => {
      let found;
      try {
        found = call();
      } catch (e) {
        // An error empties the readable side: the events before it are read first.
        for (const event of /** @type {any} */ (e).events ?? []) controller.enqueue(event);
        await drained(controller, 0);
        throw e;
      }
      for (const event of found) controller.enqueue(event);
      await drained(controller, QUEUED);
    };
    return new TransformStream({
      transform: (chunk, controller) => run(() => scanner.feed(chunk), controller),
      flush: (controller) => run(() => scanner.finish(), controller),
    });
  }
}

/** @param {unknown} options */
function outsideOf(options) {
  if (options === undefined) return false;
  if (options === null || typeof options !== "object") {
    throw new InvalidInput("options", `options must be an object (it is ${describe(options)})`);
  }
  const { outside = false } = /** @type {any} */ (options);
  if (typeof outside !== "boolean") throw new InvalidInput("outside", `outside must be a boolean (it is ${describe(outside)})`);
  return outside;
}

/**
 * `UnclosedStartMarker` for pair `tag`'s start at UTF-16 offset `at` (`before` the text
 * before it), with `found` and the pair.
 * @param {string} before
 * @param {number} at
 * @param {number} tag
 * @param {unknown[]} found
 */
function unclosed(before, at, tag, found) {
  const byteOffset = bytesOf(before);
  const error = new UnclosedStartMarker(
    `unclosed start marker of pair ${tag} at UTF-16 offset ${at} (byte offset ${byteOffset})`,
    at,
    byteOffset,
    found,
  );
  return Object.assign(error, { tag });
}

/**
 * A tag set's resumable scanner (see `Tags.scanner`).
 */
export class TagScanner {
  #pairs;
  #outside;
  /** Events without `tag`: one pair's, as `Scanner` answers them. */
  #bare;
  #starts;
  /** Undecided text: what may begin the marker sought. */
  #held = "";
  /** A high surrogate that ended the last string chunk. */
  #high = "";
  /** A character cut at the end of the last bytes chunk. */
  #bytes = new Uint8Array(0);
  /** The open match's pair, or -1 outside. */
  #tag = -1;
  #openAt = { start: 0, byteStart: 0 };
  /** Where the first undecided unit lies. */
  #at = 0;
  #byteAt = 0;
  /** Why the scanner ended, once it has. */
  #ended = "";
  #decoder = new TextDecoder("utf-8", { fatal: true });

  /**
   * @param {[string, string][]} pairs
   * @param {boolean} outside
   * @param {boolean} [bare]
   */
  constructor(pairs, outside, bare = false) {
    this.#pairs = pairs;
    this.#outside = outside;
    this.#bare = bare;
    this.#starts = new Starts(pairs);
  }

  /**
   * Scans the next chunk (a string, or bytes cut anywhere); answers the events it decided.
   * @param {string | ArrayBuffer | ArrayBufferView} chunk
   */
  feed(chunk) {
    this.#live("feed");
    /** @type {object[]} */
    const out = [];
    let text;
    if (typeof chunk === "string") {
      text = this.#high + chunk;
      this.#high = "";
      const last = text.charCodeAt(text.length - 1);
      if (last >= 0xd800 && last <= 0xdbff) {
        this.#high = text.slice(-1);
        text = text.slice(0, -1);
      }
      // The check's call only where a lone surrogate may be: a closure a token costs.
      if (!wellFormed(text)) this.#guard(out, () => checkWellFormed(text, "chunk", this.#at + this.#held.length));
    } else {
      text = this.#decode(chunk, out);
    }
    if (this.#held === "" && text !== "" && this.#plain(text, out)) return out;
    this.#run(this.#held + text, false, out);
    return out;
  }

  /**
   * A token that can end nothing and begin nothing (none of the first units of the markers
   * sought): one piece, without a search. Answers whether it was.
   * @param {string} text
   * @param {object[]} out
   */
  #plain(text, out) {
    if (this.#tag < 0) {
      if (!this.#starts.absent(text)) return false;
      this.#piece(out, null, text);
      return true;
    }
    const pair = this.#pairs[this.#tag];
    if (text.includes(pair[1][0])) return false;
    this.#piece(out, this.#tag, text);
    return true;
  }

  /** Ends the input: answers the last events, or throws `UnclosedStartMarker` (with them on
   * `events`, the pair on `tag`) for a start with no end after it. */
  finish() {
    this.#live("finish");
    /** @type {object[]} */
    const out = [];
    if (this.#high) this.#guard(out, () => checkWellFormed(this.#high, "chunk", this.#at + this.#held.length));
    this.#run(this.#held, true, out);
    if (this.#bytes.length > 0) this.#invalid(out, this.#byteAt, "ends inside a character");
    if (this.#tag >= 0) {
      this.#ended = "it threw an error";
      const { start, byteStart } = this.#openAt;
      const error = new UnclosedStartMarker(
        `unclosed start marker of pair ${this.#tag} at UTF-16 offset ${start} (byte offset ${byteStart})`,
        start,
        byteStart,
        [],
      );
      throw Object.assign(error, { tag: this.#tag, events: out });
    }
    this.#ended = "finish() ended its input";
    return out;
  }

  /**
   * Decides what `text` (the held text and the chunk) can, appending events to `out`; at
   * the end of input, all of it. Keeps the rest.
   * @param {string} text
   * @param {boolean} end
   * @param {object[]} out
   */
  #run(text, end, out) {
    const starts = this.#starts;
    if (starts.firsts === null) starts.reset();
    let i = 0;
    for (;;) {
      if (this.#tag < 0) {
        const tag = starts.decide(text, i, end);
        const s = starts.at;
        if (tag >= 0) {
          if (s > i) this.#piece(out, null, text.slice(i, s));
          const marker = this.#pairs[tag][0];
          this.#openAt = { start: this.#at, byteStart: this.#byteAt };
          out.push(this.#span("open", tag, marker));
          this.#tag = tag;
          i = s + marker.length;
          continue;
        }
        if (s > i) this.#piece(out, null, text.slice(i, s));
        i = s;
        break;
      }
      const tag = this.#tag;
      const marker = this.#pairs[tag][1];
      const e = text.indexOf(marker, i);
      if (e >= 0) {
        if (e > i) this.#piece(out, tag, text.slice(i, e));
        out.push(this.#span("close", tag, marker));
        this.#tag = -1;
        i = e + marker.length;
        continue;
      }
      const h = end ? text.length : openSuffix(text, i, [marker], marker.length);
      if (h > i) this.#piece(out, tag, text.slice(i, h));
      i = h;
      break;
    }
    this.#held = text.slice(i);
  }

  /**
   * An outside (`tag` null) or text piece, when wanted.
   * @param {object[]} out
   * @param {number | null} tag
   * @param {string} text
   */
  #piece(out, tag, text) {
    const start = this.#at;
    const byteStart = this.#byteAt;
    this.#advance(text);
    if (tag === null && !this.#outside) return;
    const kind = tag === null ? "outside" : "text";
    if (this.#bare) out.push({ kind, text, start, end: this.#at, byteStart, byteEnd: this.#byteAt });
    else out.push({ kind, tag, text, start, end: this.#at, byteStart, byteEnd: this.#byteAt });
  }

  /**
   * An event spanning `text` from where the scan stands, which moves past it.
   * @param {string} kind
   * @param {number | null} tag
   * @param {string} text
   */
  #span(kind, tag, text) {
    const start = this.#at;
    const byteStart = this.#byteAt;
    this.#advance(text);
    if (this.#bare) return { kind, start, end: this.#at, byteStart, byteEnd: this.#byteAt };
    return { kind, tag, start, end: this.#at, byteStart, byteEnd: this.#byteAt };
  }

  /** @param {string} text */
  #advance(text) {
    this.#at += text.length;
    this.#byteAt += bytesOf(text);
  }

  /**
   * A bytes chunk as text: a character cut at its end waits for the next; bytes that are not
   * UTF-8 end the scan with their offset, after the text before them.
   * @param {ArrayBuffer | ArrayBufferView} chunk
   * @param {object[]} out
   */
  #decode(chunk, out) {
    let view;
    if (ArrayBuffer.isView(chunk)) view = new Uint8Array(chunk.buffer, chunk.byteOffset, chunk.byteLength);
    else if (chunk instanceof ArrayBuffer) view = new Uint8Array(chunk);
    else {
      this.#ended = "it threw an error";
      throw new InvalidInput("chunk", `chunk must be a string or bytes (it is ${describe(chunk)})`);
    }
    const bytes = new Uint8Array(this.#bytes.length + view.length);
    bytes.set(this.#bytes);
    bytes.set(view, this.#bytes.length);
    const cut = cutAt(bytes);
    this.#bytes = bytes.slice(cut);
    try {
      return this.#decoder.decode(bytes.subarray(0, cut));
    } catch {
      const valid = validUpTo(bytes);
      const before = this.#decoder.decode(bytes.subarray(0, valid));
      this.#run(this.#held + before, true, out);
      this.#invalid(out, this.#byteAt, "");
    }
    return "";
  }

  /**
   * Ends the scan for bytes that are not UTF-8 at `byteOffset`.
   * @param {object[]} out
   * @param {number} byteOffset
   * @param {string} how
   * @returns {never}
   */
  #invalid(out, byteOffset, how) {
    this.#ended = "it threw an error";
    const message = how ? `chunk: invalid UTF-8: input ${how} that starts at byte offset ${byteOffset}` : `chunk: invalid UTF-8 at byte offset ${byteOffset}`;
    throw Object.assign(new InvalidInput("chunk", message, { byteOffset, code: "invalid_utf8" }), { events: out });
  }

  /**
   * Runs a check; its error ends the scanner, with the call's events on it.
   * @param {object[]} out
   * @param {() => void} check
   */
  #guard(out, check) {
    try {
      check();
    } catch (e) {
      this.#ended = "it threw an error";
      throw Object.assign(/** @type {object} */ (e), { events: out });
    }
  }

  /** @param {string} method */
  #live(method) {
    if (this.#ended) {
      throw new InvalidInput("scanner", `TagScanner.${method}() was called after ${this.#ended}: a scanner reads one input; make a new one for the next`, {
        code: "scanner_ended",
      });
    }
  }
}
