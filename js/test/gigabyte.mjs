// Streams GIGABYTES (default 1) through extractStream in 1 MiB byte chunks and prints
// {"bytes", "matches", "maxRssMiB", "earlyRssMiB", "endRssMiB", "seconds"} as JSON: memory.test.mjs runs it in a process
// of its own, so that its peak RSS is the stream's.
import { extractStream, findAll } from "../lib/index.js";

const total = Number(process.env.GIGABYTES ?? 1) * 2 ** 30;
// 1 MiB of text whose last match is cut by the chunk's end and closed by the next chunk.
const unit = "<item>some text</item> filler between the items ";
const piece = new TextEncoder().encode(("<item>tail</item> " + unit.repeat(Math.ceil((1 << 20) / unit.length))).slice(0, (1 << 20) - 9) + "<item>cut");
const chunks = Math.ceil(total / piece.length);
// Each chunk's whole matches after its first, the first chunk's first, each seam's (the cut
// "<item>cut" runs to the next chunk's first end marker) and the last chunk's, closed at the end.
const inner = findAll(new TextDecoder().decode(piece).slice("<item>tail</item>".length, -"<item>cut".length), "<item>", "</item>").length;
const expected = chunks * inner + 1 + chunks;
let sent = 0;
const source = new ReadableStream({
  pull(controller) {
    if (sent++ < chunks) controller.enqueue(piece);
    else {
      controller.enqueue(new TextEncoder().encode("</item>"));
      controller.close();
    }
  },
});
const t0 = performance.now();
let matches = 0;
/** RSS an eighth of the way through: the end's must be the same, give or take. */
let early = 0;
for await (const m of source.pipeThrough(extractStream("<item>", "</item>"))) {
  if (m.text.length > 64) throw new Error(`a match of ${m.text.length} characters`);
  matches++;
  if (early === 0 && sent * 8 >= chunks) early = process.memoryUsage().rss;
}
console.log(
  JSON.stringify({
    bytes: chunks * piece.length + 7,
    matches,
    expected,
    maxRssMiB: process.resourceUsage().maxRSS / 1024,
    earlyRssMiB: early / 2 ** 20,
    endRssMiB: process.memoryUsage().rss / 2 ** 20,
    seconds: (performance.now() - t0) / 1000,
  }),
);
