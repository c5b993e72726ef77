// Inputs past what the WebAssembly module can hold end in a precise error or simply work, and
// leave the package working: a chunk of 2 GiB, a match past the module's ceiling, a limit of
// 1 GiB or none, a detached buffer, and an allocation failure inside the module itself.
import assert from "node:assert/strict";
import { test } from "node:test";
import { ExtractBetweenError, InvalidInput, MatchTooLarge, Scanner, extract, findAll } from "../lib/index.js";
import { wasmMemory } from "../wasm/extract_between.js";

const CEILING = 256 << 20;

/** The package still answers, through every entry. */
function stillWorks() {
  assert.deepEqual(extract("a[b]c", "[", "]"), { matches: ["b"], truncated: false });
  assert.deepEqual(findAll("[x][y]", "[", "]"), ["x", "y"]);
  const s = new Scanner("[", "]");
  assert.deepEqual(s.feed("[o").concat(s.feed("k]"), s.finish()).map((m) => m.text), ["ok"]);
}

/** Takes every page the module's memory could still grow by: its next allocation of new
 * memory fails. */
function exhaustMemory() {
  const memory = wasmMemory();
  for (let pages = 65536; pages >= 1; pages >>= 1) {
    try {
      memory.grow(pages);
    } catch {
      // Past the most the engine allows: try half.
    }
  }
  assert.ok(memory.buffer.byteLength > 2 ** 31, `memory ${memory.buffer.byteLength}`);
}

// First in the file: it needs the module's input buffer as small as a fresh module has it.
test("an allocation failure inside the module resets it: a precise error, then the package works", () => {
  // The input buffer warmed to 8 MiB by a text without matches.
  const quiet = "ab".repeat(1 << 22);
  const many = "[]".repeat(1 << 22);
  assert.deepEqual(new Scanner("[", "]").feed(quiet), []);
  exhaustMemory();
  // Input that needs a larger input buffer: refused, naming the argument.
  assert.throws(
    () => new Scanner("[", "]").feed(new Uint8Array(64 << 20)),
    (e) => e instanceof InvalidInput && e.field === "chunk" && /more than the module's memory can take/.test(e.message),
  );
  // findAll searches a string where it lies, needing none of the module's memory.
  assert.deepEqual(findAll("a".repeat(64 << 20), "[", "]"), []);
  // A scanner that lives through what follows.
  const before = new Scanner("[", "]");
  assert.deepEqual(before.feed("[a"), []);
  // A text that fits the buffer but whose 4 Mi matches need memory the module cannot get: the
  // module traps inside; the caller gets an ExtractBetweenError, and a fresh module goes on.
  assert.throws(
    () => new Scanner("[", "]").feed(many),
    (e) => e instanceof ExtractBetweenError && e.code === "module_reset" && /started afresh/.test(e.message),
  );
  stillWorks();
  assert.equal(findAll(many, "[", "]").length, 1 << 22);
  // The scanner made before the reset has ended, and says so.
  assert.throws(
    () => before.feed("]"),
    (e) => e instanceof ExtractBetweenError && e.code === "scanner_ended" && /started afresh/.test(e.message),
  );
});

test("a 2 GiB chunk is scanned in pieces, its matches at their true offsets", () => {
  const big = new Uint8Array(2 ** 31);
  big.set(new TextEncoder().encode("[first]"), 0);
  big.set(new TextEncoder().encode("[last]"), big.length - 6);
  const s = new Scanner("[", "]");
  const found = s.feed(big);
  assert.deepEqual(
    found.map((m) => [m.text, m.byteStart]),
    [
      ["first", 1],
      ["last", 2 ** 31 - 5],
    ],
  );
  assert.deepEqual(s.finish(), []);
  stillWorks();
});

test("a match past the module's ceiling is MatchTooLarge with the ceiling, whatever the limit asked", () => {
  const mib = new Uint8Array(1 << 20).fill(0x61);
  for (const maxMatchBytes of [null, 2 ** 30, 2 ** 40]) {
    const s = new Scanner("[", "]", { maxMatchBytes });
    assert.deepEqual(s.feed("x[a] ["), [{ text: "a", start: 2, end: 3, byteStart: 2, byteEnd: 3 }]);
    let error;
    try {
      for (let i = 0; i <= CEILING >> 20; i++) s.feed(mib);
    } catch (e) {
      error = e;
    }
    assert.ok(error instanceof MatchTooLarge, `${maxMatchBytes}: ${error}`);
    assert.equal(error.limit, CEILING);
    assert.equal(error.offset, 6);
    assert.match(error.message, /268435456 bytes, the most one match can hold in the WebAssembly module/);
    stillWorks();
  }
});

test("a detached buffer is InvalidInput naming the chunk, not a bare TypeError", () => {
  for (const make of [(ab) => ab, (ab) => new Uint8Array(ab), (ab) => new DataView(ab)]) {
    const ab = new ArrayBuffer(8);
    const chunk = make(ab);
    structuredClone(ab, { transfer: [ab] });
    const s = new Scanner("[", "]");
    assert.throws(
      () => s.feed(chunk),
      (e) => e instanceof InvalidInput && e.field === "chunk" && /detached/.test(e.message),
    );
  }
  // An empty buffer that was never detached is an empty chunk.
  assert.deepEqual(new Scanner("[", "]").feed(new ArrayBuffer(0)), []);
  stillWorks();
});

