// Both module systems, as a fresh project meets the package: `require` from CommonJS and
// `import` from an ES module, each through the package's name; and TypeScript 5 and 7 under
// `module: nodenext` and `module: commonjs`, each compiling a file that uses `extract`,
// `findAll`, `Scanner` and `for await` over `extractStream` under --strict, then running it.
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";

const root = new URL("..", import.meta.url).pathname;

/** A project folder with the package installed under its name (a link to js/). */
function project(packageJson) {
  const dir = mkdtempSync(join(tmpdir(), "extract-between-modules-"));
  mkdirSync(join(dir, "node_modules"));
  symlinkSync(root, join(dir, "node_modules", "extract-between"), "dir");
  writeFileSync(join(dir, "package.json"), JSON.stringify(packageJson));
  return dir;
}

function node(dir, file) {
  const run = spawnSync(process.execPath, [file], { cwd: dir, encoding: "utf8" });
  assert.equal(run.status, 0, run.stdout + run.stderr);
  return run.stdout;
}

const EXPECTED = '{"extract":["one","two"],"findAll":["1","2"],"scanner":["ok"],"stream":["x","y"],"unclosed":["a"]}\n';

/** The same uses from either module system: `load` is the line that gets the package. */
const USES = (load) => `${load}
(async () => {
  const s = new Scanner("[", "]");
  const scanner = s.feed("[o").concat(s.feed("k]"), s.finish()).map((m) => m.text);
  const stream = [];
  for await (const m of new Blob(["[x][y]"]).stream().pipeThrough(extractStream("[", "]"))) stream.push(m.text);
  let unclosed;
  try { findAll("[a] [b", "[", "]"); } catch (e) { if (e instanceof UnclosedStartMarker) unclosed = e.matches; }
  console.log(JSON.stringify({ extract: extract("pre[one]mid[two]", "[", "]").matches, findAll: findAll("<1><2>", "<", ">"), scanner, stream, unclosed }));
})();
`;
const NAMES = "{ extract, findAll, Scanner, extractStream, UnclosedStartMarker }";

for (const [title, packageJson, load] of [
  ["require() from CommonJS, in a project as `npm init -y` makes it", { main: "index.js" }, `const ${NAMES} = require("extract-between");`],
  ["import from an ES module", { type: "module" }, `import ${NAMES} from "extract-between";`],
]) {
  test(title, () => {
    const dir = project({ name: "fresh", version: "1.0.0", ...packageJson });
    try {
      writeFileSync(join(dir, "index.js"), USES(load));
      assert.equal(node(dir, "index.js"), EXPECTED);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
}

// What the README tells a TypeScript project: no setting of its own beyond a `lib` that has
// the DOM's streams (or @types/node), as any code using web streams needs.
const TS = `import { extract, findAll, Scanner, extractStream, UnclosedStartMarker } from "extract-between";

async function main(): Promise<void> {
  const s = new Scanner("[", "]");
  const scanner: string[] = s.feed("[o").concat(s.feed("k]"), s.finish()).map((m) => m.text);
  const stream: string[] = [];
  for await (const m of new Blob(["[x][y]"]).stream().pipeThrough(extractStream("[", "]"))) stream.push(m.text);
  let unclosed: string[] = [];
  try {
    findAll("[a] [b", "[", "]");
  } catch (e) {
    if (e instanceof UnclosedStartMarker) unclosed = e.matches;
  }
  const matches: string[] = extract("pre[one]mid[two]", "[", "]").matches;
  console.log(JSON.stringify({ extract: matches, findAll: findAll("<1><2>", "<", ">"), scanner, stream, unclosed }));
}
void main();
`;

for (const [tsc, label] of [
  ["typescript", "TypeScript 5"],
  ["typescript-7", "TypeScript 7"],
]) {
  for (const module of ["nodenext", "commonjs"]) {
    test(`${label} under module ${module}: compiles under --strict and runs`, () => {
      const esm = module === "nodenext";
      const dir = project({ name: "fresh", version: "1.0.0", ...(esm ? { type: "module" } : {}) });
      try {
        writeFileSync(join(dir, "index.ts"), TS);
        const options = {
          strict: true,
          target: "ES2022",
          module,
          // CommonJS: each compiler's default resolution (TypeScript 7 has no node10).
          ...(esm ? { moduleResolution: "nodenext" } : {}),
          lib: ["ES2022", "DOM", "DOM.AsyncIterable"],
          types: [],
          outDir: "out",
          skipLibCheck: false,
        };
        writeFileSync(join(dir, "tsconfig.json"), JSON.stringify({ compilerOptions: options, files: ["index.ts"] }));
        const compiled = spawnSync(process.execPath, [join(root, "node_modules", tsc, "bin", "tsc"), "-p", dir], { encoding: "utf8" });
        assert.equal(compiled.status, 0, compiled.stdout + compiled.stderr);
        assert.equal(node(dir, "out/index.js"), EXPECTED);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    });
  }
}
