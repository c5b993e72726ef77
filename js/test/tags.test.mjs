// `Tags`: the shared vectors feed by feed (testdata/tags.json, which the Rust library and
// Python's `Tags` answer too), the text outside the matches, the stream, and the refusals.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";
import { InvalidInput, Tags, UnclosedStartMarker } from "extract-between";

const vectors = JSON.parse(readFileSync(new URL("../../testdata/tags.json", import.meta.url), "utf8")).cases;

/** @param {any} e */
const shape = (e) => {
  const out = { kind: e.kind, tag: e.tag, utf16: [e.start, e.end], bytes: [e.byteStart, e.byteEnd] };
  return e.text === undefined ? out : { ...out, text: e.text };
};

test("the shared vectors answer feed by feed", () => {
  assert.ok(vectors.length >= 20);
  for (const c of vectors) {
    const scanner = new Tags(c.pairs).scanner({ outside: c.outside });
    const answers = c.chunks.map((chunk) => scanner.feed(chunk).map(shape));
    let error = null;
    try {
      answers.push(scanner.finish().map(shape));
    } catch (e) {
      assert.ok(e instanceof UnclosedStartMarker, c.name);
      answers.push(e.events.map(shape));
      error = { tag: e.tag, utf16: e.offset, bytes: e.byteOffset };
    }
    assert.deepEqual(answers, c.answers, c.name);
    assert.deepEqual(error, c.error, c.name);
  }
});

test("the same vectors fed as bytes cut anywhere give the same events, joined", () => {
  const join = (events) => {
    const out = [];
    for (const e of events) {
      const last = out.at(-1);
      if (last && e.text !== undefined && last.kind === e.kind && last.tag === e.tag) last.text += e.text;
      else out.push({ kind: e.kind, tag: e.tag, ...(e.text === undefined ? {} : { text: e.text }) });
    }
    return out;
  };
  for (const c of vectors) {
    const want = join(c.answers.flat());
    const bytes = new TextEncoder().encode(c.chunks.join(""));
    for (const size of [1, 2, 3, 7]) {
      const scanner = new Tags(c.pairs).scanner({ outside: c.outside });
      const got = [];
      for (let at = 0; at < bytes.length; at += size) got.push(...scanner.feed(bytes.subarray(at, at + size)));
      try {
        got.push(...scanner.finish());
      } catch (e) {
        got.push(...e.events);
      }
      assert.deepEqual(join(got), want, `${c.name} in ${size}-byte chunks`);
    }
  }
});

test("findAll answers pair and text, and the pair left open", () => {
  const tags = new Tags([["[", "]"], ["é(", ")"]]);
  assert.deepEqual(tags.findAll("é(x)[y]"), [{ tag: 1, text: "x" }, { tag: 0, text: "y" }]);
  assert.throws(
    () => tags.findAll("[x] é(y"),
    (e) => e instanceof UnclosedStartMarker && e.tag === 1 && e.offset === 4 && e.byteOffset === 4 && e.matches.length === 1,
  );
});

test("a stream of a reply gives the answer outside the reasoning", async () => {
  const tags = new Tags([["<think>", "</think>"]]);
  const reply = new ReadableStream({
    start(controller) {
      for (const token of ["<think>hm", "</th", "ink>Four", "."]) controller.enqueue(token);
      controller.close();
    },
  });
  let answer = "";
  for await (const event of reply.pipeThrough(tags.stream({ outside: true }))) {
    if (event.kind === "outside") answer += event.text;
  }
  assert.equal(answer, "Four.");
});

test("a stream that ends inside a match hands out every event before the error", async () => {
  const tags = new Tags([["[", "]"], ["<think>", "</think>"]]);
  const source = new ReadableStream({
    start(controller) {
      controller.enqueue("a[b]c<think>de</th");
      controller.close();
    },
  });
  const seen = [];
  await assert.rejects(
    (async () => {
      for await (const event of source.pipeThrough(tags.stream({ outside: true }))) seen.push(event.text ?? event.kind);
    })(),
    (e) => e instanceof UnclosedStartMarker && e.tag === 1 && e.offset === 5,
  );
  // The held "</th" is the open match's last text, decided by the end of input: before the error.
  assert.deepEqual(seen, ["a", "open", "b", "close", "c", "open", "de", "</th"]);
});

test("bad sets and chunks are refused naming the pair, the marker or the byte", () => {
  const refused = (pairs, field, words) =>
    assert.throws(() => new Tags(pairs), (e) => e instanceof InvalidInput && e.field === field && e.message.includes(words));
  refused([["[", "]"], ["[", ")"]], "pairs[1][0]", "pair 1's start marker \"[\" is pair 0's");
  refused([["[", ""]], "pairs[0][1]", "pair 0's end must be a non-empty string");
  refused([], "pairs", "at least one");
  refused(Array.from({ length: 65 }, (_, i) => [`<${i}>`, "</>"]), "pairs", "at most 64 pairs (it has 65)");
  refused([["\ud800", "]"]], "pairs[0][0]", "lone surrogate");
  refused([["x".repeat(4097), "]"]], "pairs[0][0]", "at most 4096 UTF-8 bytes");
  const scanner = new Tags([["[", "]"]]).scanner({ outside: true });
  assert.throws(
    () => scanner.feed(new Uint8Array([0x61, 0x5b, 0x62, 0xff])),
    (e) => e.code === "invalid_utf8" && e.byteOffset === 3 && e.events.map((x) => x.kind).join() === "outside,open,text",
  );
  assert.throws(() => scanner.feed("more"), (e) => e.code === "scanner_ended");
});

/** The rule, a unit at a time: the steps, adjacent pieces joined, and the unclosed pair. */
function reference(text, pairs) {
  const steps = [];
  const push = (kind, tag, piece) => {
    const last = steps.at(-1);
    if (piece !== undefined && last && last.kind === kind && last.tag === tag) last.text += piece;
    else steps.push(piece === undefined ? { kind, tag } : { kind, tag, text: piece });
  };
  let i = 0;
  let from = 0;
  while (i < text.length) {
    let tag = -1;
    pairs.forEach(([start], k) => {
      if (text.startsWith(start, i) && (tag < 0 || start.length > pairs[tag][0].length)) tag = k;
    });
    if (tag < 0) {
      i++;
      continue;
    }
    if (from < i) push("outside", null, text.slice(from, i));
    push("open", tag);
    const content = i + pairs[tag][0].length;
    const e = text.indexOf(pairs[tag][1], content);
    if (e < 0) {
      if (content < text.length) push("text", tag, text.slice(content));
      return { steps, unclosed: { tag, offset: i } };
    }
    if (e > content) push("text", tag, text.slice(content, e));
    push("close", tag);
    i = from = e + pairs[tag][1].length;
  }
  if (from < text.length) push("outside", null, text.slice(from));
  return { steps, unclosed: null };
}

test("random texts, sets and chunkings give the rule's events", () => {
  let seed = 42;
  const rand = (n) => ((seed = (seed * 1103515245 + 12345) % 2 ** 31), seed % n);
  const alphabet = ["a", "b", "<", ">", "/", "é", "😀", "「", "」", "x", "y", "z"];
  const word = (max) => Array.from({ length: rand(max + 1) }, () => alphabet[rand(alphabet.length)]).join("");
  for (let round = 0; round < 3000; round++) {
    const text = word(40);
    const pairs = [];
    for (let n = 1 + rand(6); pairs.length < n; ) {
      const start = word(3) || "<";
      if (pairs.some(([s]) => s === start)) break;
      pairs.push([start, rand(5) === 0 && pairs.length ? pairs[0][1] : word(3) || ">"]);
    }
    const want = reference(text, pairs);
    const scanner = new Tags(pairs).scanner({ outside: true });
    const got = [];
    let unclosed = null;
    for (let at = 0; at < text.length; ) {
      const size = 1 + rand(6);
      got.push(...scanner.feed(text.slice(at, at + size)));
      at += size;
    }
    try {
      got.push(...scanner.finish());
    } catch (e) {
      got.push(...e.events);
      unclosed = { tag: e.tag, offset: e.offset };
    }
    const joined = [];
    for (const e of got) {
      const last = joined.at(-1);
      if (e.text !== undefined && last && last.kind === e.kind && last.tag === e.tag) last.text += e.text;
      else joined.push(e.text === undefined ? { kind: e.kind, tag: e.tag } : { kind: e.kind, tag: e.tag, text: e.text });
    }
    const context = JSON.stringify({ text, pairs });
    assert.deepEqual(joined, want.steps, context);
    assert.deepEqual(unclosed, want.unclosed, context);
    let found;
    try {
      found = new Tags(pairs).findAll(text);
    } catch (e) {
      found = e.matches;
    }
    assert.equal(found.length, want.steps.filter((s) => s.kind === "close").length, context);
  }
});
