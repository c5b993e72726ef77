// The bridge to the WebAssembly half: strings go in as UTF-8 through `encodeInto`, straight
// into the module's input buffer; answers are read in place from its memory.
import { __wbg_reset_state, reserveInput, wasmMemory } from "../wasm/extract_between.js";
import { ExtractBetweenError, InvalidInput } from "./errors.js";

const encoder = new TextEncoder();
// `ignoreBOM`: a U+FEFF at the start of a match is content, not a byte order mark.
const decoder = new TextDecoder("utf-8", { ignoreBOM: true });

/** Capacity and address of the module's input buffer, as last reserved. */
let inputCap = 0;
let inputAt = 0;
let memory = null;
let u8 = new Uint8Array(0);
/** `u8` over the input buffer's reserved bytes. */
let input = new Uint8Array(0);
let u32 = new Uint32Array(0);
let f64 = new Float64Array(0);

/** The views of the module's memory, renewed when it grew (which detaches the old ones and
 * leaves them empty: cheaper to test than reading `memory.buffer`). */
function views() {
  if (u8.byteLength === 0) {
    memory ??= wasmMemory();
    u8 = new Uint8Array(memory.buffer);
    input = u8.subarray(inputAt, inputAt + inputCap);
    u32 = new Uint32Array(memory.buffer);
    f64 = new Float64Array(memory.buffer);
  }
}

/** How many times the module was started afresh after a trap; objects of an earlier one are
 * dead. */
let generation = 0;
/** What to forget when the module starts afresh (prepared pairs). */
const onReset = [];

/** The module's current generation (see `guarded`). */
export function currentGeneration() {
  return generation;
}

/** Calls `forget` whenever the module starts afresh. @param {() => void} forget */
export function whenReset(forget) {
  onReset.push(forget);
}

/**
 * Runs `call`. A WebAssembly trap inside it (an allocation the module's memory cannot hold,
 * or a bug) would leave the module unusable for the rest of the process: the module is
 * started afresh instead, and the trap thrown as an `ExtractBetweenError` saying so.
 * @template T
 * @param {string} what
 * @param {() => T} call
 * @returns {T}
 */
export function guarded(what, call) {
  try {
    return call();
  } catch (e) {
    if (!(e instanceof WebAssembly.RuntimeError)) throw e;
    __wbg_reset_state();
    generation++;
    memory = null;
    u8 = new Uint8Array(0);
    input = u8;
    inputCap = 0;
    inputAt = 0;
    for (const forget of onReset) forget();
    throw new ExtractBetweenError(
      "module_reset",
      `${what} stopped the WebAssembly module (${e.message}), most likely out of memory: it was started afresh and the package works on; scanners made before this have ended`,
    );
  }
}

/** Texts up to this many UTF-16 units are encoded by hand when they are ASCII. */
const SHORT = 32;

/** Buffers this large are asked for each time, so that the module can give them back. */
const LARGE = 16 << 20;

/**
 * Room for `capacity` bytes of input keeping the first `keep`; answers its address, or throws
 * `InvalidInput` naming `field` when the module's memory cannot hold them.
 * @param {number} keep
 * @param {number} capacity
 * @param {string} field
 */
function reserve(keep, capacity, field) {
  if (capacity > inputCap || inputCap >= LARGE) {
    const at = reserveInput(keep, capacity);
    if (at === 0) {
      inputCap = 0;
      throw new InvalidInput(
        field,
        `${field} needs ${capacity} bytes of WebAssembly memory, more than the module's memory can take (at most 4 GiB in all)${field === "text" ? ": a Scanner takes a text of any size, in pieces" : ""}`,
      );
    }
    inputAt = at;
    inputCap = capacity;
    if (u8.byteLength !== 0) input = u8.subarray(inputAt, inputAt + inputCap);
  }
  views();
  return inputAt;
}

// Matches a lone surrogate only: with the `u` flag a pair is one code point.
const LONE = /\p{Cs}/u;

/**
 * Throws `InvalidInput` naming `field` and the UTF-16 offset of a lone surrogate in `text`
 * (`base` is added to the offset): the card's text is UTF-8, which cannot hold one.
 * @param {string} text
 * @param {string} field
 * @param {number} [base]
 */
export function checkWellFormed(text, field, base = 0) {
  if (typeof text.isWellFormed === "function" ? text.isWellFormed() : !LONE.test(text)) return;
  const offset = base + text.search(LONE);
  throw new InvalidInput(
    field,
    `${field} holds a lone surrogate at UTF-16 offset ${offset}: it is not Unicode text, and UTF-8 cannot encode it`,
    { offset },
  );
}

/**
 * Writes `text` (well formed) as UTF-8 into the input buffer; answers the bytes written and
 * whether they are ASCII (then byte offsets are UTF-16 offsets).
 * @param {string} text
 * @param {string} [field] the argument's name, for an error
 * @returns {{ len: number, ascii: boolean }}
 */
export function encode(text, field = "text") {
  if (text.length <= SHORT) {
    // encodeInto's fixed cost is most of a short text's call: ASCII is copied by hand.
    const at = reserve(0, SHORT, field);
    let i = 0;
    for (; i < text.length; i++) {
      const unit = text.charCodeAt(i);
      if (unit >= 0x80) break;
      u8[at + i] = unit;
    }
    if (i === text.length) return { len: i, ascii: true };
  }
  // ASCII fills exactly `text.length` bytes; other text grows the buffer as it goes.
  let at = reserve(0, text.length, field);
  let { read, written } = encoder.encodeInto(text, input);
  while (read < text.length) {
    const rest = text.length - read;
    at = reserve(written, written + rest * 3, field);
    const more = encoder.encodeInto(text.substring(read), u8.subarray(at + written, at + written + rest * 3));
    read += more.read;
    written += more.written;
  }
  return { len: written, ascii: written === text.length };
}

/**
 * Copies bytes into the input buffer; answers their length.
 * @param {Uint8Array} bytes
 * @param {string} [field] the argument's name, for an error
 */
export function copyIn(bytes, field = "chunk") {
  const at = reserve(0, bytes.length, field);
  u8.set(bytes, at);
  return bytes.length;
}

/**
 * The UTF-8 length of `text` (well formed), counted in pieces without holding its bytes.
 * @param {string} text
 */
export function utf8Length(text) {
  const scratch = new Uint8Array(1 << 16);
  let total = 0;
  for (let rest = text; rest.length > 0; ) {
    const { read, written } = encoder.encodeInto(rest, scratch);
    total += written;
    rest = rest.substring(read);
  }
  return total;
}

/**
 * `count` UTF-16 ranges at `at` (pairs of u32) cut from `text`.
 * @param {string} text
 * @param {number} at
 * @param {number} count
 */
export function cut(text, at, count) {
  views();
  const out = new Array(count);
  for (let i = 0, k = at >>> 2; i < count; i++, k += 2) out[i] = text.slice(u32[k], u32[k + 1]);
  return out;
}

/**
 * The records a stream left: `count` records of `size` numbers at `recordsAt`, their texts
 * back to back in `textLength` bytes at `textAt`. Answers matches, or events.
 * @param {number} count
 * @param {number} size
 * @param {number} recordsAt
 * @param {number} textAt
 * @param {number} textLength
 */
export function records(count, size, recordsAt, textAt, textLength) {
  views();
  const texts = textLength === 0 ? "" : decoder.decode(u8.subarray(textAt, textAt + textLength));
  const out = new Array(count);
  let p = 0;
  for (let i = 0, k = recordsAt >>> 3; i < count; i++, k += size) {
    const kind = f64[k];
    const byteStart = f64[k + 1];
    const byteEnd = f64[k + 2];
    const start = f64[k + 3];
    const end = f64[k + 4];
    if (kind === 0) {
      const text = texts.slice(p, (p += end - start));
      out[i] = { text, start, end, byteStart, byteEnd };
    } else if (kind === 2) {
      const text = texts.slice(p, (p += end - start));
      out[i] = { kind: "text", text, start, end, byteStart, byteEnd };
    } else {
      out[i] = { kind: kind === 1 ? "open" : "close", start, end, byteStart, byteEnd };
    }
  }
  return out;
}
