// The shipped types under tsc --strict: right uses compile, each deliberate mistake is an
// error (test/types/mistakes.ts marks them with @ts-expect-error, which fails when unused).
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { test } from "node:test";

test("index.d.ts: right uses compile under --strict, deliberate mistakes are errors", () => {
  const root = new URL("..", import.meta.url).pathname;
  const tsc = spawnSync(process.execPath, [`${root}node_modules/typescript/bin/tsc`, "-p", `${root}test/types`], { encoding: "utf8" });
  assert.equal(tsc.status, 0, tsc.stdout + tsc.stderr);
});
