// The row contract's shared vectors (testdata/rows.json, written from the card's loop by
// testdata/rows.py; the Rust library, Python's column functions, DuckDB and Spark run the same
// file), row by row through the calls JavaScript has for a row: findAll (no cap) and extract
// (the card's cap, up to 1000). JavaScript has no on_unclosed: the cases under "raise" or none.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";
import { UnclosedStartMarker, extract, findAll, limits } from "../lib/index.js";

const { cases } = JSON.parse(readFileSync(new URL("../../testdata/rows.json", import.meta.url)));

/** Each row of a case, with its own answer: the rows before a column's error answered. */
function* rowsOf(c) {
  const answer = c.all;
  for (const [i, row] of c.rows.entries()) {
    if (typeof row !== "string") continue; // NULL, or bytes that are not UTF-8
    if (answer.rows) {
      yield { row, want: answer.rows[i] };
    } else if (i < answer.error.row) {
      // Rows before the one that stops the column: their answer is in a case without the stop.
      continue;
    } else if (i === answer.error.row) {
      yield { row, error: answer.error };
    }
  }
}

test("every row of the shared row vectors answers through findAll and extract as the card says", () => {
  let checked = 0;
  for (const c of cases) {
    if (c.all.error?.class === "InvalidInput") continue;
    if (c.on_unclosed !== undefined && c.on_unclosed !== "raise") continue;
    const cap = c.max_matches;
    if (cap !== undefined && cap > limits.maxMatches) continue;
    for (const { row, want, error } of rowsOf(c)) {
      const call = () =>
        cap === undefined
          ? { matches: findAll(row, c.start, c.end), truncated: false }
          : extract(row, c.start, c.end, { maxMatches: cap });
      const where = `${c.name} cap=${cap} row=${JSON.stringify(row)}`;
      if (want !== undefined) {
        assert.deepEqual(call(), want, where);
      } else {
        assert.throws(call, (e) => {
          assert.ok(e instanceof UnclosedStartMarker, where);
          assert.equal(error.class, "UnclosedStartMarker", where);
          // The library's words for a row, up to the row's excerpt, which a string call leaves out.
          assert.ok(error.message.startsWith(e.message), `${where}: ${e.message}`);
          assert.deepEqual(e.matches, error.matches, where);
          return true;
        });
      }
      checked += 1;
    }
  }
  assert.ok(checked > 40, `${checked} rows checked`);
});
