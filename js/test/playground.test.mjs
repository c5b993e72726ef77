// The playground page in a real headless Chromium (Debian's, driven by playwright-core):
// the card's examples typed in, the answers read back from the page. The page is served by
// `extract-between serve` when EXTRACT_BETWEEN_BIN names the binary (CI), else by a static
// server over js/ here.
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { createServer } from "node:http";
import { test } from "node:test";

const root = new URL("..", import.meta.url);
const chromium = process.env.CHROMIUM ?? "/usr/bin/chromium";
const required = process.env.EXTRACT_BETWEEN_REQUIRE_BROWSER === "1";
const card = JSON.parse(readFileSync(new URL("../crates/extract-between/card/text-extract-between-1.0.0.json", root)));

/** Serves the page: the project's binary, or js/ over HTTP. Answers its URL and a stop. */
async function serve() {
  const bin = process.env.EXTRACT_BETWEEN_BIN;
  if (bin) {
    const child = spawn(bin, ["serve", "--listen", "127.0.0.1:0"], { stdio: ["ignore", "pipe", "inherit"] });
    const url = await new Promise((resolve, reject) => {
      let out = "";
      child.stdout.on("data", (d) => {
        out += d;
        const m = out.match(/listening on (http:\/\/\S+)/);
        if (m) resolve(m[1]);
      });
      child.on("exit", (code) => reject(new Error(`the service exited (${code}) before listening`)));
    });
    // A binary built before js/build.sh ran has no playground (build.rs embeds it when built).
    const answer = await fetch(`${url}/playground/`);
    if (answer.ok || required) return { url: `${url}/playground`, stop: () => child.kill() };
    child.kill();
  }
  const server = createServer((req, res) => {
    const path = req.url === "/playground/" ? "playground.html" : req.url.replace(/^\/playground\//, "");
    const file = new URL(path, root);
    if (!/^(playground\.html|lib\/\w+\.js|wasm\/\w+\.js)$/.test(path) || !existsSync(file)) {
      res.writeHead(404).end();
      return;
    }
    res.writeHead(200, { "content-type": path.endsWith(".html") ? "text/html" : "text/javascript" }).end(readFileSync(file));
  });
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  return { url: `http://127.0.0.1:${server.address().port}/playground/`, stop: () => server.close() };
}

test("the playground page computes the card's answers in a real browser", async (t) => {
  if (!existsSync(chromium)) {
    if (required) assert.fail(`no Chromium at ${chromium}`);
    t.skip(`no Chromium at ${chromium}`);
    return;
  }
  const { chromium: driver } = await import("playwright-core");
  const { url, stop } = await serve();
  const browser = await driver.launch({
    executablePath: chromium,
    args: ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update", "--disable-sync", "--no-first-run"],
  });
  try {
    const page = await browser.newPage();
    const errors = [];
    page.on("pageerror", (e) => errors.push(String(e)));
    await page.goto(url);
    await page.waitForSelector("body[data-ready=true]");

    /** Types the inputs in and answers what the page shows. */
    const ask = async (text, start, end, max) => {
      await page.fill("#text", text);
      await page.fill("#start", start);
      await page.fill("#end", end);
      await page.fill("#max", max === undefined ? "" : String(max));
      return {
        json: JSON.parse(await page.textContent("#json")),
        status: await page.textContent("#status"),
        error: await page.textContent("#error"),
        code: await page.getAttribute("#error", "data-code"),
        offset: await page.getAttribute("#error", "data-offset"),
        marked: await page.$$eval("#highlight mark:not(.unclosed)", (ms) => ms.map((m) => m.textContent)),
        unclosed: await page.$$eval("#highlight mark.unclosed", (ms) => ms.map((m) => m.textContent)),
      };
    };

    for (const { input, output } of card.examples) {
      const shown = await ask(input.text, input.start, input.end, input.max_matches);
      assert.deepEqual(shown.json, output);
      assert.deepEqual(shown.marked, output.matches);
      assert.equal(shown.error, "");
    }

    const capped = await ask("|a||b||c|", "|", "|", 2);
    assert.deepEqual(capped.json, { matches: ["a", "b"], truncated: true });
    assert.match(capped.status, /truncated/);

    const unclosed = await ask("é[a] 😀[b", "[", "]", 100);
    assert.equal(unclosed.code, "unclosed_start_marker");
    assert.equal(unclosed.offset, "7");
    assert.match(unclosed.error, /UnclosedStartMarker: unclosed start marker at UTF-16 offset 7/);
    assert.deepEqual(unclosed.marked, ["a"]);
    assert.deepEqual(unclosed.unclosed, ["["]);

    const empty = await ask("abc", "", "]", 100);
    assert.equal(empty.code, "invalid_input");
    assert.match(empty.error, /InvalidInput in start: start must be a non-empty string/);

    const cap = await ask("[a]", "[", "]", 1001);
    assert.match(cap.error, /maxMatches must be an integer from 1 to 1000/);
    assert.deepEqual(errors, []);
  } finally {
    await browser.close();
    stop();
  }
});
