// Property tests against the card's reference loop (reference.mjs), over texts with astral
// characters, CJK, NUL, marker fragments, equal markers, caps and unclosed markers.
import assert from "node:assert/strict";
import { test } from "node:test";
import fc from "fast-check";
import { Scanner, UnclosedStartMarker, extract, findAll } from "../lib/index.js";
import { reference } from "./reference.mjs";

const pieces = ["a", "b", "[", "]", "<", ">", "<<", "é", "😀", "一", "「", "」", "\u0000", " ", "\uFEFF", "\uD83D\uDE00"];
// Up to 120 pieces (about 300 bytes): the engine's 64-byte block walks run on them too.
const text = fc.array(fc.constantFrom(...pieces), { maxLength: 120 }).map((p) => p.join(""));
const marker = fc.array(fc.constantFrom(...pieces), { minLength: 1, maxLength: 3 }).map((p) => p.join(""));
const runs = { numRuns: Number(process.env.FAST_CHECK_RUNS ?? 3000) };

/** The outcome of a call: its answer, or the unclosed error's offset and matches. */
function outcome(call) {
  try {
    return { ok: call() };
  } catch (e) {
    if (!(e instanceof UnclosedStartMarker)) throw e;
    return { unclosed: e.offset, matches: e.matches };
  }
}

/** What the reference answers, in the same shape. */
function expected(t, start, end, cap) {
  const r = reference(t, start, end, cap);
  if (r.unclosed !== undefined) return { unclosed: r.unclosed, matches: r.matches };
  return { ok: { matches: r.matches, truncated: r.truncated } };
}

test("extract agrees with the reference loop, caps and unclosed markers included", () => {
  fc.assert(
    fc.property(text, marker, marker, fc.option(fc.integer({ min: 1, max: 5 }), { nil: undefined }), (t, start, end, cap) => {
      const got = outcome(() => extract(t, start, end, cap === undefined ? undefined : { maxMatches: cap }));
      const want = expected(t, start, end, cap ?? 100);
      if (want.unclosed !== undefined) {
        // The error's matches are every match before the unclosed marker (the cap aside).
        const all = reference(t, start, end).matches;
        assert.deepEqual(got, { unclosed: want.unclosed, matches: all });
      } else {
        assert.deepEqual(got, want);
      }
    }),
    runs,
  );
});

test("equal markers agree with the reference loop", () => {
  fc.assert(
    fc.property(text, marker, (t, m) => {
      const want = reference(t, m, m);
      const got = outcome(() => findAll(t, m, m));
      if (want.unclosed !== undefined) assert.equal(got.unclosed, want.unclosed);
      else assert.deepEqual(got.ok, want.matches);
    }),
    runs,
  );
});

/** Every match of `t` through a scanner fed the given cuts, as strings or as bytes. */
function scanned(t, start, end, cuts, bytes) {
  const s = new Scanner(start, end);
  const whole = bytes ? new TextEncoder().encode(t) : t;
  const at = [...new Set(cuts.map((c) => Math.floor(c * (whole.length + 1))))].sort((a, b) => a - b);
  const found = [];
  let from = 0;
  for (const cut of [...at, whole.length]) {
    found.push(...s.feed(whole.slice(from, cut)));
    from = cut;
  }
  try {
    found.push(...s.finish());
  } catch (e) {
    return { unclosed: e.offset, found: [...found, ...e.matches] };
  }
  return { found };
}

test("a scanner fed any cuts of the text, strings or bytes, finds the one-shot matches at their offsets", () => {
  fc.assert(
    fc.property(text, marker, marker, fc.array(fc.double({ min: 0, max: 1, noNaN: true }), { maxLength: 6 }), fc.boolean(), (t, start, end, cuts, bytes) => {
      const want = reference(t, start, end);
      const got = scanned(t, start, end, cuts, bytes);
      assert.deepEqual(got.found.map((m) => m.text), want.matches);
      assert.equal(got.unclosed, want.unclosed);
      for (const m of got.found) {
        assert.equal(t.slice(m.start, m.end), m.text);
        assert.equal(new TextEncoder().encode(t).subarray(m.byteStart, m.byteEnd).length, new TextEncoder().encode(m.text).length);
      }
    }),
    runs,
  );
});

// Long texts: findAll searches any string with indexOf, extract one longer than a third of the
// card's limit in the module (which measures it in bytes as it encodes it): both paths against
// the reference loop, on texts dense with matches and then holding any character.
const restPieces = ["a", " ", "[", "]", "<<", ">>", "é", "😀", "一", "[x]", "<<y>>"];
test("long texts dense with matches, on both paths, agree with the reference loop", () => {
  fc.assert(
    fc.property(
      fc.array(fc.constantFrom(...restPieces), { minLength: 1, maxLength: 40 }),
      fc.constantFrom(["[", "]"], ["<<", ">>"]),
      fc.integer({ min: 0, max: 70_000 }),
      fc.boolean(),
      (unit, [start, end], at, open) => {
        const dense = `${start}d${end} `.repeat(5_000);
        const piece = unit.join("");
        let t = dense + piece.repeat(Math.ceil(70_000 / piece.length));
        if (open) {
          // Cut between characters, never inside a surrogate pair.
          let cut = dense.length + at;
          if (/[\uD800-\uDBFF]/.test(t[cut - 1] ?? "")) cut -= 1;
          t = `${t.slice(0, cut)}${start}open`;
        }
        const want = reference(t, start, end);
        const got = outcome(() => findAll(t, start, end));
        if (want.unclosed !== undefined) assert.deepEqual(got, { unclosed: want.unclosed, matches: want.matches });
        else assert.deepEqual(got.ok, want.matches);
        if (new TextEncoder().encode(t).length <= 256_000) {
          const capped = outcome(() => extract(t, start, end, { maxMatches: 1000 }));
          assert.deepEqual(capped, expected(t, start, end, 1000));
        }
      },
    ),
    { numRuns: Number(process.env.FAST_CHECK_LONG_RUNS ?? 150) },
  );
});
