// The package in the other runtimes it is made for, from the npm registry's binaries: Deno
// (the default entry) and workerd, Cloudflare's workers runtime (the `workerd` entry).
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { test } from "node:test";

const root = new URL("..", import.meta.url).pathname;
const bin = (name) => join(root, "node_modules/.bin", name);
const required = process.env.EXTRACT_BETWEEN_REQUIRE_JS === "1";

/** Whether a runtime's binary is installed; its absence fails the test where it is required. */
function have(t, name) {
  if (existsSync(bin(name))) return true;
  if (required) assert.fail(`${name} is not installed (npm install in js/)`);
  t.skip(`${name} is not installed (npm install in js/)`);
  return false;
}

test("Deno runs the package from its default entry", (t) => {
  if (!have(t, "deno")) return;
  const run = spawnSync(bin("deno"), ["run", "--no-prompt", `--allow-read=${root}`, join(root, "test/runtime-check.mjs")], {
    encoding: "utf8",
    env: { ...process.env, DENO_NO_UPDATE_CHECK: "1", NO_COLOR: "1" },
  });
  assert.equal(run.status, 0, run.stdout + run.stderr);
  assert.equal(run.stdout.trim(), "ok");
});

test("workerd runs the package from its workerd entry, the .wasm file imported as a module", (t) => {
  if (!have(t, "workerd")) return;
  const modules = [
    ["worker-check.mjs", "test/worker-check.mjs", "esModule"],
    ["runtime-check.mjs", "test/runtime-check.mjs", "esModule"],
    ...readdirSync(join(root, "lib"))
      .filter((f) => f.endsWith(".js") && f !== "index.js")
      .map((f) => [`lib/${f}`, `lib/${f}`, "esModule"]),
    ["wasm/extract_between.js", "wasm/extract_between.js", "esModule"],
    ["wasm/extract_between_bg.wasm", "wasm/extract_between_bg.wasm", "wasm"],
  ];
  const dir = mkdtempSync(join(tmpdir(), "extract-between-workerd-"));
  const config = join(dir, "config.capnp");
  writeFileSync(
    config,
    `using Workerd = import "/workerd/workerd.capnp";
const config :Workerd.Config = (
  services = [(name = "main", worker = .worker)],
);
const worker :Workerd.Worker = (
  modules = [
${modules.map(([name, file, kind]) => `    (name = ${JSON.stringify(name)}, ${kind} = embed ${JSON.stringify(relative(dir, join(root, file)))}),`).join("\n")}
  ],
  compatibilityDate = "2025-01-01",
);
`,
  );
  const run = spawnSync(bin("workerd"), ["test", config], { encoding: "utf8" });
  assert.equal(run.status, 0, run.stdout + run.stderr);
  assert.match(run.stdout + run.stderr, /\[ PASS \]/);
});
