// `extractStream`: the scanner as a WHATWG TransformStream, for `fetch` bodies,
// `ReadableStream.pipeThrough` and Node streams (through `Readable.toWeb`).
import { drained } from "./drain.js";
import { Scanner } from "./scanner.js";

/** A chunk is scanned this many bytes (or UTF-16 units) at a time. */
const PIECE = 1 << 16;
/** Matches waiting in the readable side before the scan waits for the reader. */
const QUEUED = 4096;

/**
 * A `TransformStream` from text chunks (strings or bytes, cut anywhere) to matches — or
 * events, with `{ events: true }` — as they complete; the options are `Scanner`'s. On an
 * error, every match before it is read first, then the stream errors with it; a
 * `maxMatchBytes` bound (16 MiB by default) keeps one open match from holding unbounded
 * memory, and a chunk with many matches waits for the reader, so the queue stays short.
 *
 * @example
 * import { extractStream } from "extract-between";
 * const body = new Blob(["<b>one</b> <b>two</b>"]).stream();
 * for await (const m of body.pipeThrough(extractStream("<b>", "</b>"))) console.log(m.text);
 * // one
 * // two
 *
 * @param {string} start
 * @param {string} end
 * @param {{ events?: boolean, maxMatchBytes?: number | null }} [options]
 * @returns {TransformStream<string | ArrayBuffer | ArrayBufferView, object>}
 */
export function extractStream(start, end, options) {
  const scanner = new Scanner(start, end, options);
  /** @param {() => object[]} call @param {TransformStreamDefaultController<object>} controller */
  const run = async (call, controller) => {
    let found;
    try {
      found = call();
    } catch (e) {
      for (const m of /** @type {any} */ (e).matches ?? []) controller.enqueue(m);
      await drained(controller, 0);
      throw e;
    }
    for (const m of found) controller.enqueue(m);
    await drained(controller, QUEUED);
  };
  return new TransformStream({
    async transform(chunk, controller) {
      const whole = typeof chunk === "string" ? chunk : bytesView(chunk);
      if (whole === undefined || whole.length <= PIECE) return run(() => scanner.feed(chunk), controller);
      for (let at = 0; at < whole.length; at += PIECE) {
        const piece = typeof whole === "string" ? whole.slice(at, at + PIECE) : whole.subarray(at, at + PIECE);
        await run(() => scanner.feed(piece), controller);
      }
    },
    flush: (controller) => run(() => scanner.finish(), controller),
  });
}

/** @param {unknown} chunk */
function bytesView(chunk) {
  if (ArrayBuffer.isView(chunk)) return new Uint8Array(chunk.buffer, chunk.byteOffset, chunk.byteLength);
  if (chunk instanceof ArrayBuffer) return new Uint8Array(chunk);
  return undefined;
}
