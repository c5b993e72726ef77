// The package beside what a JavaScript user writes instead, in one process: the card's
// reference loop (indexOf, indexOf, slice), a lazy regular expression with matchAll, and
// two floors: slicing the matches out at offsets known in advance (any answer made of
// JavaScript strings pays it) and TextEncoder.encodeInto of the text (any engine outside
// JavaScript's strings pays it to read the text). Run: node js/bench.mjs (ROUNDS=7 default)
import { extract, extractStream, findAll, Scanner } from "./lib/index.js";

const ROUNDS = Number(process.env.ROUNDS ?? 7);
const encoder = new TextEncoder();

/** The card's reference loop. */
function reference(text, start, end, max = Infinity) {
  const matches = [];
  let pos = 0;
  for (;;) {
    const s = text.indexOf(start, pos);
    if (s < 0) break;
    const from = s + start.length;
    const e = text.indexOf(end, from);
    if (e < 0) throw new Error("unclosed start marker");
    if (matches.length === max) return { matches, truncated: true };
    matches.push(text.slice(from, e));
    pos = e + end.length;
  }
  return { matches, truncated: false };
}

const escape = (s) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
function regex(text, start, end) {
  const re = new RegExp(`${escape(start)}([\\s\\S]*?)${escape(end)}`, "g");
  return Array.from(text.matchAll(re), (m) => m[1]);
}

/** Median microseconds per call of `f`, each round long enough to measure. */
function time(f) {
  let n = 1;
  for (;;) {
    const t0 = performance.now();
    for (let i = 0; i < n; i++) f();
    if (performance.now() - t0 > 20) break;
    n *= 2;
  }
  const rounds = [];
  for (let r = 0; r < ROUNDS; r++) {
    const t0 = performance.now();
    for (let i = 0; i < n; i++) f();
    rounds.push(((performance.now() - t0) * 1000) / n);
  }
  rounds.sort((a, b) => a - b);
  return rounds[rounds.length >> 1];
}

function words(n, pick) {
  let s = "";
  for (let i = 0; s.length < n; i++) s += pick(i);
  return s;
}
const ascii = words(250_000, (i) => `<title>Page ${i} about things</title> some filler text here ${i % 97} and more words. `);
const nonAscii = words(200_000, (i) => `<title>Seite ${i} über Straßen 東京 ${i % 13}</title> Füllwörter und mehr Text ${i % 7} … `);
const sparse = "lorem ipsum dolor sit amet ".repeat(9_300) + "<title>the one</title>" + " tail".repeat(10);
const none = "lorem ipsum dolor sit amet ".repeat(9_300);
const small = "ab[cd]ef[gh]ij klmno";

/** One row of the table: ours, the loop, the regex, the floor. */
function row(name, text, start, end, ours, max = Infinity) {
  const found = reference(text, start, end, max).matches;
  const got = ours();
  const list = Array.isArray(got) ? got : got.matches;
  if (JSON.stringify(list) !== JSON.stringify(found.slice(0, list.length))) throw new Error(`${name}: wrong answer`);
  // The floor: the same slices at offsets found in advance.
  const offsets = [];
  for (let pos = 0; offsets.length < 2 * max; ) {
    const s = text.indexOf(start, pos);
    if (s < 0) break;
    const e = text.indexOf(end, s + start.length);
    offsets.push(s + start.length, e);
    pos = e + end.length;
  }
  const floor = () => {
    const out = new Array(offsets.length / 2);
    for (let i = 0; i < offsets.length; i += 2) out[i >> 1] = text.slice(offsets[i], offsets[i + 1]);
    return out;
  };
  // The crossing's floor: the text's UTF-8 written into a buffer, as the package does.
  const into = new Uint8Array(text.length * 3);
  const crossing = () => encoder.encodeInto(text, into);
  const t = {
    ours: time(ours),
    loop: time(() => reference(text, start, end, max)),
    regex: time(() => regex(text, start, end)),
    floor: time(floor),
    encode: time(crossing),
  };
  const f = (x) => x.toFixed(2);
  console.log(
    `| ${name} | ${found.length} | ${f(t.ours)} | ${f(t.loop)} | ${f(t.loop / t.ours)}× | ${f(t.regex)} | ${f(t.regex / t.ours)}× | ${f(t.floor)} | ${f(t.encode)} |`,
  );
}

console.log(`node ${process.version}, ${ROUNDS} rounds, median µs per call`);
console.log("| case | matches | extract-between µs | reference loop µs | loop ÷ ours | matchAll µs | matchAll ÷ ours | slicing floor µs | encodeInto floor µs |");
console.log("|---|---|---|---|---|---|---|---|---|");
row("20 characters (extract)", small, "[", "]", () => extract(small, "[", "]"), 100);
row("250 KB dense ASCII (findAll)", ascii, "<title>", "</title>", () => findAll(ascii, "<title>", "</title>"));
row("250 KB dense ASCII (extract, cap 1000)", ascii, "<title>", "</title>", () => extract(ascii, "<title>", "</title>", { maxMatches: 1000 }), 1000);
row("dense non-ASCII (findAll)", nonAscii, "<title>", "</title>", () => findAll(nonAscii, "<title>", "</title>"));
row("250 KB sparse, one match (findAll)", sparse, "<title>", "</title>", () => findAll(sparse, "<title>", "</title>"));
row("250 KB, no marker (findAll)", none, "<title>", "</title>", () => findAll(none, "<title>", "</title>"));

// 64 MB through extractStream, from 64 KiB byte chunks, beside the reference loop over the
// same text held whole as one string (what a user without a stream would do).
{
  const piece = ascii.slice(0, 65_536 - (65_536 % 1)); // cut anywhere, markers included
  const chunk = new TextEncoder().encode(piece);
  const chunks = Math.ceil((64 << 20) / chunk.length);
  const t0 = performance.now();
  let count = 0;
  const source = new ReadableStream({
    pull(controller) {
      if (count++ < chunks) controller.enqueue(chunk);
      else controller.close();
    },
  });
  let found = 0;
  for await (const _ of source.pipeThrough(extractStream("<title>", "</title>"))) found++;
  const ms = performance.now() - t0;
  const whole = piece.repeat(chunks);
  const t1 = performance.now();
  const ref = reference(whole, "<title>", "</title>").matches.length;
  const refMs = performance.now() - t1;
  console.log(`\n64 MB through extractStream (64 KiB chunks): ${ms.toFixed(0)} ms, ${((chunks * chunk.length) / 1e6 / (ms / 1000)).toFixed(0)} MB/s, ${found} matches; the reference loop over the same text as one string: ${refMs.toFixed(0)} ms (${ref} matches)`);
}

// A token stream: 1,000,000 four-character chunks through Scanner.feed, matches and events.
for (const events of [false, true]) {
  const text = ascii.slice(0, 4_000_000 / 4 > ascii.length ? ascii.length : 4_000_000);
  const tokens = [];
  for (let i = 0; tokens.length < 1_000_000; i = (i + 4) % (text.length - 4)) tokens.push(text.slice(i, i + 4));
  const s = new Scanner("<title>", "</title>", { events });
  let out = 0;
  const t0 = performance.now();
  for (const tok of tokens) out += s.feed(tok).length;
  const ns = ((performance.now() - t0) * 1e6) / tokens.length;
  console.log(`token stream, 1,000,000 four-character chunks, ${events ? "events" : "matches"}: ${ns.toFixed(0)} ns per chunk (${out} ${events ? "events" : "matches"})`);
}
