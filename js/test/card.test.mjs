// The card's examples, limits and errors, through extract and findAll.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";
import {
  ExtractBetweenError,
  InvalidInput,
  UnclosedStartMarker,
  extract,
  findAll,
  limits,
} from "../lib/index.js";

const card = JSON.parse(
  readFileSync(new URL("../../crates/extract-between/card/text-extract-between-1.0.0.json", import.meta.url)),
);

test("the card's examples give the card's outputs", () => {
  assert.ok(card.examples.length > 0);
  for (const { input, output } of card.examples) {
    const options = input.max_matches === undefined ? undefined : { maxMatches: input.max_matches };
    assert.deepEqual(extract(input.text, input.start, input.end, options), output);
  }
});

test("the limits are the card's", () => {
  assert.equal(limits.maxTextBytes, card.limits.max_text_bytes);
  assert.equal(limits.maxMarkerBytes, card.limits.max_marker_bytes);
  assert.equal(limits.defaultMaxMatches, card.limits.default_max_matches);
  assert.equal(limits.maxMatches, card.limits.max_matches);
});

test("empty text yields no matches, not truncated", () => {
  assert.deepEqual(extract("", "[", "]"), { matches: [], truncated: false });
});

test("the default cap is 100 and truncated says a further complete match exists", () => {
  const text = "[x]".repeat(101);
  const out = extract(text, "[", "]");
  assert.equal(out.matches.length, 100);
  assert.equal(out.truncated, true);
  assert.deepEqual(extract("[x]".repeat(100), "[", "]").truncated, false);
  // An unclosed start met while looking for the one match past the cap still fails...
  assert.throws(() => extract("[a][b", "[", "]", { maxMatches: 1 }), UnclosedStartMarker);
  // ...and once a further complete match is seen, nothing after it is read.
  assert.deepEqual(extract("[a][b][c", "[", "]", { maxMatches: 1 }), { matches: ["a"], truncated: true });
});

test("equal markers pair consecutive occurrences, contents may be empty", () => {
  assert.deepEqual(extract("|a||b|", "|", "|").matches, ["a", "b"]);
  assert.deepEqual(extract("||", "|", "|").matches, [""]);
});

test("nested start markers inside a match are content", () => {
  assert.deepEqual(extract("[a[b]c]", "[", "]").matches, ["a[b"]);
});

test("offsets and contents are UTF-16: astral characters, CJK, NUL", () => {
  const text = "😀「一」\u0000「二」😀";
  assert.deepEqual(extract(text, "「", "」").matches, ["一", "二"]);
  assert.deepEqual(findAll("a\u0000[\u0000]b", "[", "]"), ["\u0000"]);
  // A marker made of the second half of a surrogate pair can't be asked for (lone surrogate).
  assert.throws(() => extract("😀", "\uDE00", "]"), (e) => e instanceof InvalidInput && e.field === "start");
});

test("an unclosed start marker throws with its UTF-16 and byte offsets and the matches before it", () => {
  assert.throws(
    () => extract("é[a] 😀[b", "[", "]"),
    (e) =>
      e instanceof UnclosedStartMarker &&
      e instanceof ExtractBetweenError &&
      e.code === "unclosed_start_marker" &&
      e.offset === 7 &&
      e.byteOffset === 10 &&
      e.message === "unclosed start marker at UTF-16 offset 7 (byte offset 10)" &&
      e.matches.length === 1 &&
      e.matches[0] === "a",
  );
  // The end marker is searched from just after the start marker.
  assert.throws(() => extract("<!-->", "<!--", "-->"), (e) => e instanceof UnclosedStartMarker && e.offset === 0);
});

test("refused arguments throw InvalidInput naming the field", () => {
  const cases = [
    [() => extract(42, "[", "]"), "text", /text must be a string \(it is number 42\)/],
    [() => extract("a", "", "]"), "start", /start must be a non-empty string/],
    [() => extract("a", "[", ""), "end", /end must be a non-empty string/],
    [() => extract("a", "é".repeat(2049), "]"), "start", /at most 4096 UTF-8 bytes long \(it is 4098 bytes\)/],
    [() => extract("a", "[", null), "end", /end must be a string \(it is null\)/],
    [() => extract("a", "[", "]", { maxMatches: 0 }), "maxMatches", /from 1 to 1000 \(it is number 0\)/],
    [() => extract("a", "[", "]", { maxMatches: 1001 }), "maxMatches", /from 1 to 1000/],
    [() => extract("a", "[", "]", { maxMatches: 1.5 }), "maxMatches", /integer/],
    [() => extract("a", "[", "]", { maxMatches: "5" }), "maxMatches", /it is string/],
    [() => extract("a", "[", "]", 5), "options", /options must be an object/],
    [() => extract("x".repeat(256001), "[", "]"), "text", /at most 256000 UTF-8 bytes long \(it is 256001 bytes\)/],
    [() => extract("é".repeat(128001), "[", "]"), "text", /it is 256002 bytes/],
    [() => extract("ab\uD800cd", "[", "]"), "text", /lone surrogate at UTF-16 offset 2/],
    [() => findAll("ab\uDC00", "[", "]"), "text", /lone surrogate at UTF-16 offset 2/],
  ];
  for (const [call, field, message] of cases) {
    assert.throws(call, (e) => {
      assert.ok(e instanceof InvalidInput, `${field}: ${e}`);
      assert.equal(e.code, "invalid_input");
      assert.equal(e.field, field);
      assert.match(e.message, message);
      return true;
    });
  }
});

test("the text limit is in UTF-8 bytes: 256000 bytes pass, and findAll has no limit", () => {
  assert.deepEqual(extract("[é]" + "x".repeat(256000 - 4), "[", "]").matches, ["é"]);
  const big = "[a]" + "x".repeat(1 << 20) + "[b]";
  assert.deepEqual(findAll(big, "[", "]"), ["a", "b"]);
});

test("max_matches 1000 holds 1000 matches", () => {
  const out = extract("[]".repeat(1001), "[", "]", { maxMatches: 1000 });
  assert.equal(out.matches.length, 1000);
  assert.equal(out.truncated, true);
});

test("many marker pairs in turn all answer right (the prepared pairs are renewed)", () => {
  for (let round = 0; round < 3; round++) {
    for (let i = 0; i < 40; i++) {
      const start = `<${i}>`;
      const end = `</${i}>`;
      assert.deepEqual(findAll(`x${start}v${i}${end}y`, start, end), [`v${i}`]);
    }
  }
});
