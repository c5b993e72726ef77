// `Tags` beside what a JavaScript user writes instead, in one process, rounds interleaved:
// - tokens: a model-like reply (reasoning, tool calls, six other tags) cut into 1-6 character
//   string tokens, eight pairs, `scanner({ outside: true }).feed(token)` per token, every
//   event consumed, and one pair's `Scanner` with `{ events: true }`; beside a careful naive
//   incremental parser of one pair (a buffer, indexOf, a marker-length look-back, the same
//   kinds of events without offsets);
// - one pair's findAll beside the card's loop (indexOf, indexOf, slice), and eight pairs in
//   one findAll beside eight loops, on a 4 MiB text with a match every ~35 characters.
// Run: node js/bench-tags.mjs (ROUNDS=7 TOKENS=1000000 to change).
import { Scanner, Tags } from "./lib/index.js";

const ROUNDS = Number(process.env.ROUNDS ?? 7);
const TOKENS = Number(process.env.TOKENS ?? 1_000_000);

const PAIRS = [
  ["<think>", "</think>"],
  ["<tool_call>", "</tool_call>"],
  ["<tool_result>", "</tool_result>"],
  ["<b>", "</b>"],
  ["<cite>", "</cite>"],
  ["<note>", "</note>"],
  ["<code>", "</code>"],
  ["<em>", "</em>"],
];

function reply(count) {
  const turn =
    "<think>The user asks for the weather in Paris; call the tool, then answer.</think>" +
    'Let me check. <tool_call>{"name": "weather", "city": "Paris"}</tool_call>' +
    "<tool_result>18°C, cloudy</tool_result>It is <b>18°C</b> and cloudy in Paris. " +
    "<cite>meteo</cite> <note>units: °C</note> <code>x = 1</code> <em>ok</em>\n";
  const text = turn.repeat(Math.ceil((count * 4) / turn.length) + 2);
  let seed = 7;
  const rand = () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
  const out = [];
  for (let at = 0; out.length < count; ) {
    const n = 1 + Math.floor(rand() * 6);
    out.push(text.slice(at, at + n));
    at += n;
  }
  return out;
}

/** A careful incremental parser of one pair. */
class Naive {
  constructor(start, end) {
    Object.assign(this, { start, end, buf: "", inside: false });
  }
  feed(chunk) {
    const buf = this.buf + chunk;
    const out = [];
    let i = 0;
    for (;;) {
      const marker = this.inside ? this.end : this.start;
      const j = buf.indexOf(marker, i);
      if (j < 0) {
        const cut = Math.max(i, buf.length - (marker.length - 1));
        if (cut > i) out.push({ kind: this.inside ? "text" : "outside", text: buf.slice(i, cut) });
        i = cut;
        break;
      }
      if (j > i) out.push({ kind: this.inside ? "text" : "outside", text: buf.slice(i, j) });
      out.push({ kind: this.inside ? "close" : "open" });
      i = j + marker.length;
      this.inside = !this.inside;
    }
    this.buf = buf.slice(i);
    return out;
  }
}

function loop(text, start, end) {
  const out = [];
  for (let pos = 0; ; ) {
    const s = text.indexOf(start, pos);
    if (s < 0) return out;
    const from = s + start.length;
    const e = text.indexOf(end, from);
    out.push(text.slice(from, e));
    pos = e + end.length;
  }
}

function corpus(n) {
  const parts = [];
  let size = 0;
  for (let k = 0; size < 4 << 20; ) {
    for (let f = 0; f < 8; f++, k++) {
      const piece = `<f${f % n}>value ${k} of field ${f}</f${f % n}> | `;
      parts.push(piece);
      size += piece.length;
    }
  }
  return parts.join("");
}

const median = (v) => v.sort((a, b) => a - b)[v.length >> 1];
function timed(runs) {
  const times = runs.map(() => []);
  for (let r = 0; r < ROUNDS; r++) {
    runs.forEach(([, run], k) => {
      const t = performance.now();
      run();
      times[k].push(performance.now() - t);
    });
  }
  return runs.map(([name], k) => [name, median(times[k])]);
}

const tokens = reply(TOKENS);
const tags = new Tags(PAIRS);
const ours = () => {
  const s = tags.scanner({ outside: true });
  let n = 0;
  for (const t of tokens) n += s.feed(t).length;
  return n;
};
const naive = () => {
  const p = new Naive("<think>", "</think>");
  let n = 0;
  for (const t of tokens) n += p.feed(t).length;
  return n;
};
const single = () => {
  const s = new Scanner("<think>", "</think>", { events: true });
  let n = 0;
  for (const t of tokens) n += s.feed(t).length;
  return n;
};
const perToken = timed([
  ["Tags(8).scanner({ outside: true }).feed", ours],
  ["naive incremental parser, one pair", naive],
  ['Scanner("<think>", "</think>", { events }).feed', single],
]);
console.log(`${TOKENS} tokens of 1-6 characters, median of ${ROUNDS} rounds`);
for (const [name, ms] of perToken) console.log(`  ${name.padEnd(44)} ${((ms * 1e3) / TOKENS).toFixed(3)} µs a token`);
console.log(`  Tags(8) / naive: ${(perToken[0][1] / perToken[1][1]).toFixed(2)}x; Scanner events / naive: ${(perToken[2][1] / perToken[1][1]).toFixed(2)}x`);

const pairs8 = Array.from({ length: 8 }, (_, i) => [`<f${i}>`, `</f${i}>`]);
const text1 = corpus(1);
const text8 = corpus(8);
const one = new Tags(pairs8.slice(0, 1));
const eight = new Tags(pairs8);
const whole = timed([
  ["1 pair: the card's loop", () => loop(text1, ...pairs8[0])],
  ["1 pair: Tags([pair]).findAll", () => one.findAll(text1)],
  ["8 pairs: 8 loops", () => pairs8.map(([s, e]) => loop(text8, s, e))],
  ["8 pairs: Tags(8).findAll, one pass", () => eight.findAll(text8)],
]);
console.log(`\n4 MiB, ${one.findAll(text1).length} matches, median of ${ROUNDS} rounds`);
for (const [name, ms] of whole) console.log(`  ${name.padEnd(44)} ${ms.toFixed(1)} ms  ${(ms / whole[0][1]).toFixed(2)}x the loop`);
