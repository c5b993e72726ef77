// The documentation's examples run: every `@example` of lib/*.js and every ```js block of
// README.md, with `// → value` comments checked as assertions.
import assert from "node:assert/strict";
import { readFileSync, readdirSync, writeFileSync, rmSync } from "node:fs";
import { test } from "node:test";

const root = new URL("..", import.meta.url);

/** The examples of a file: [where, code]. */
function examples(name) {
  const text = readFileSync(new URL(name, root), "utf8");
  if (name.endsWith(".md")) {
    return [...text.matchAll(/```js\n([\s\S]*?)```/g)].map((m, i) => [`${name} block ${i + 1}`, m[1]]);
  }
  return [...text.matchAll(/@example\n((?: \*(?: .*)?\n)+?) \*(?: @|\/)/g)].map((m, i) => [
    `${name} example ${i + 1}`,
    m[1].replace(/^ \* ?/gm, ""),
  ]);
}

/** The example as a module: the package imported from lib/, `// →` lines asserted. */
function runnable(code) {
  const body = code
    .replaceAll('from "extract-between"', `from ${JSON.stringify(new URL("lib/index.js", root).href)}`)
    .split("\n")
    .map((line) => {
      const m = line.match(/^(.*?);?\s*\/\/ → (.*)$/);
      return m ? `assert.deepStrictEqual((${m[1]}), (${m[2]}));` : line;
    })
    .join("\n");
  return `import assert from "node:assert/strict";\n${body}\n`;
}

const files = [...readdirSync(new URL("lib/", root)).filter((f) => f.endsWith(".js")).map((f) => `lib/${f}`), "README.md"];

test("every documented example runs, and its results are the ones shown", async () => {
  let count = 0;
  for (const file of files) {
    for (const [where, code] of examples(file)) {
      const path = new URL(`test/.example-${count++}.mjs`, root);
      writeFileSync(path, runnable(code));
      try {
        await import(path.href);
      } catch (e) {
        assert.fail(`${where}: ${e.stack ?? e}\n${code}`);
      } finally {
        rmSync(path);
      }
    }
  }
  assert.ok(count >= 5, `only ${count} examples found`);
});
