// Scanners and streams: every cut agrees with one-shot, the events match the shared vectors
// (testdata/events.json, which Python's iter_events meets too), errors come after the matches
// before them, and Node streams go through Readable.toWeb.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { Readable } from "node:stream";
import { test } from "node:test";
import {
  ExtractBetweenError,
  InvalidInput,
  MatchTooLarge,
  Scanner,
  UnclosedStartMarker,
  extractStream,
  findAll,
} from "../lib/index.js";

const encoder = new TextEncoder();
const vectors = JSON.parse(readFileSync(new URL("../../testdata/events.json", import.meta.url)));

test("the shared event vectors: the same events as the library's and Python's", () => {
  assert.ok(vectors.length >= 5);
  for (const v of vectors) {
    const s = new Scanner(v.start, v.end, { events: true });
    const got = [];
    let error = null;
    try {
      const chunks = v.chunks ?? v.byte_chunks.map((hex) => Uint8Array.from(hex.match(/../g), (b) => parseInt(b, 16)));
      for (const chunk of chunks) got.push(...s.feed(chunk));
      got.push(...s.finish());
    } catch (e) {
      got.push(...e.matches);
      error = e instanceof UnclosedStartMarker ? { unclosed: [e.byteOffset, e.offset] } : String(e);
    }
    const want = v.events.map((e) => ({
      kind: e.kind,
      ...(e.kind === "text" ? { text: e.text } : {}),
      start: e.utf16[0],
      end: e.utf16[1],
      byteStart: e.bytes[0],
      byteEnd: e.bytes[1],
    }));
    assert.deepEqual(got, want, v.name);
    assert.deepEqual(error, v.error, v.name);
  }
});

const samples = [
  ["pre[one]mid[two]post", "[", "]"],
  ["x😀<<a>>é<<一「」>>\u0000<<>>", "<<", ">>"],
  ["--a----b--", "--", "--"],
  ["「一」「😀」", "「", "」"],
];

test("streams cut at every byte and at every UTF-16 boundary agree with one-shot", () => {
  for (const [text, start, end] of samples) {
    const want = findAll(text, start, end);
    const bytes = encoder.encode(text);
    for (let cut = 0; cut <= bytes.length; cut++) {
      for (let cut2 = cut; cut2 <= bytes.length; cut2 += 3) {
        const s = new Scanner(start, end);
        const got = [...s.feed(bytes.subarray(0, cut)), ...s.feed(bytes.subarray(cut, cut2)), ...s.feed(bytes.subarray(cut2)), ...s.finish()];
        assert.deepEqual(got.map((m) => m.text), want, `${text} cut at bytes ${cut}, ${cut2}`);
      }
    }
    for (let cut = 0; cut <= text.length; cut++) {
      // A cut inside a surrogate pair too: the scanner holds the high half for the next chunk.
      const s = new Scanner(start, end);
      const got = [...s.feed(text.slice(0, cut)), ...s.feed(text.slice(cut)), ...s.finish()];
      assert.deepEqual(got.map((m) => m.text), want, `${text} cut at unit ${cut}`);
      for (const m of got) assert.equal(text.slice(m.start, m.end), m.text);
    }
    const one = new Scanner(start, end);
    const units = [...text].flatMap((c) => (c.length === 2 ? [c[0], c[1]] : [c]));
    const got = [...units.flatMap((u) => one.feed(u)), ...one.finish()];
    assert.deepEqual(got.map((m) => m.text), want, `${text} one unit at a time`);
  }
});

test("chunks may be any ArrayBufferView or an ArrayBuffer", () => {
  const bytes = encoder.encode("a[b]c[d]");
  const s = new Scanner("[", "]");
  const got = [
    ...s.feed(new DataView(bytes.buffer, 0, 3)),
    ...s.feed(bytes.buffer.slice(3, 5)),
    ...s.feed(Buffer.from(bytes.subarray(5))),
    ...s.finish(),
  ];
  assert.deepEqual(got.map((m) => m.text), ["b", "d"]);
  assert.throws(() => new Scanner("[", "]").feed(42), (e) => e instanceof InvalidInput && e.field === "chunk");
});

test("scanner errors: unclosed at finish, invalid UTF-8, lone surrogates, too large; then the scanner has ended", () => {
  const s = new Scanner("[", "]");
  assert.deepEqual(s.feed("a[b] [c").map((m) => m.text), ["b"]);
  assert.throws(() => s.finish(), (e) => e instanceof UnclosedStartMarker && e.offset === 5 && e.byteOffset === 5);
  assert.throws(() => s.feed("x"), (e) => e instanceof ExtractBetweenError && e.code === "scanner_ended");

  const bad = new Scanner("[", "]");
  assert.throws(
    () => bad.feed(Uint8Array.from([0x5b, 0x61, 0x5d, 0x20, 0xff])),
    (e) => e instanceof InvalidInput && e.code === "invalid_utf8" && e.byteOffset === 4 && e.matches[0].text === "a",
  );

  const lone = new Scanner("[", "]");
  lone.feed("abc");
  assert.throws(() => lone.feed("d\uDC00"), (e) => e instanceof InvalidInput && e.field === "chunk" && e.offset === 4);
  const high = new Scanner("[", "]");
  high.feed("ab\uD83D");
  assert.throws(() => high.finish(), (e) => e instanceof InvalidInput && e.offset === 2);

  const big = new Scanner("[", "]", { maxMatchBytes: 4 });
  assert.throws(
    () => big.feed("[abcd] [abcde]"),
    (e) => e instanceof MatchTooLarge && e.limit === 4 && e.offset === 8 && e.matches.length === 1 && e.matches[0].text === "abcd" &&
      e.message === "the match starting at UTF-16 offset 8 (byte offset 8) is longer than maxMatchBytes (4 bytes)",
  );
  assert.deepEqual(new Scanner("[", "]", { maxMatchBytes: null }).feed("[" + "x".repeat(1000) + "]")[0].text.length, 1000);
  assert.throws(() => new Scanner("[", "]", { maxMatchBytes: -1 }), (e) => e instanceof InvalidInput && e.field === "maxMatchBytes");
  assert.throws(() => new Scanner("", "]"), (e) => e instanceof InvalidInput && e.field === "start");
  assert.throws(() => new Scanner("[", "]", { events: "yes" }), (e) => e instanceof InvalidInput && e.field === "events");
});

test("extractStream: Node streams through Readable.toWeb, strings and bytes, matches in order", async () => {
  const chunks = ["<b>o", "ne</", "b> <b>tw", "o</b>"].map((c, i) => (i % 2 ? encoder.encode(c) : c));
  const web = Readable.toWeb(Readable.from(chunks.map((c) => (typeof c === "string" ? Buffer.from(c) : c))));
  const got = [];
  for await (const m of web.pipeThrough(extractStream("<b>", "</b>"))) got.push(m);
  assert.deepEqual(got.map((m) => [m.text, m.start, m.end]), [["one", 3, 6], ["two", 14, 17]]);

  const events = [];
  const source = ReadableStream.from(["<b>o", "ne</b>"]);
  for await (const e of source.pipeThrough(extractStream("<b>", "</b>", { events: true }))) events.push(e.kind);
  assert.deepEqual(events, ["open", "text", "text", "close"]);
});

test("extractStream: an error arrives after every match before it was read", async () => {
  const source = ReadableStream.from(["[a] [b] [c] [d", "ef"]);
  const reader = source.pipeThrough(extractStream("[", "]")).getReader();
  const got = [];
  let error;
  for (;;) {
    try {
      const { value, done } = await reader.read();
      if (done) break;
      got.push(value.text);
    } catch (e) {
      error = e;
      break;
    }
  }
  assert.deepEqual(got, ["a", "b", "c"]);
  assert.ok(error instanceof UnclosedStartMarker, String(error));
  assert.equal(error.offset, 12);
});

test("extractStream over a fetch-style body (a Response's ReadableStream of bytes)", async () => {
  const body = new Response("x<t>1</t><t>2</t>").body;
  const got = [];
  for await (const m of body.pipeThrough(extractStream("<t>", "</t>"))) got.push(m.text);
  assert.deepEqual(got, ["1", "2"]);
});
