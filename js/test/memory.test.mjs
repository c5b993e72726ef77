// 1 GB through extractStream in a process of its own: every match found, memory flat.
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { test } from "node:test";

test("1 GB through extractStream in a 32 MiB heap: every match, peak RSS bounded and flat from an eighth of the way on", () => {
  const out = JSON.parse(
    // A V8 heap capped at 32 MiB: were the stream to keep what it passed, the process would
    // run out of heap and fail; the cap also makes the peak independent of when the machine's
    // load lets the collector run.
    execFileSync(process.execPath, ["--max-old-space-size=32", "--max-semi-space-size=2", new URL("./gigabyte.mjs", import.meta.url).pathname], {
      env: { ...process.env, GIGABYTES: "1" },
      encoding: "utf8",
    }),
  );
  assert.ok(out.bytes >= 2 ** 30, JSON.stringify(out));
  assert.equal(out.matches, out.expected, JSON.stringify(out));
  assert.ok(out.matches > 22_000_000, JSON.stringify(out));
  // Node and the package alone take about 54 MiB; a TransformStream of the user's own that
  // hands out as many objects peaks near 139 MiB (js/README.md).
  assert.ok(out.maxRssMiB < 128, JSON.stringify(out));
  assert.ok(Math.abs(out.endRssMiB - out.earlyRssMiB) < 16, JSON.stringify(out));
});
