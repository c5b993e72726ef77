// The playground page in a real headless Chromium (Debian's, driven by playwright-core):
// the card's examples typed in, the answers read back from the page. The page is served by
// `extract-between serve` when EXTRACT_BETWEEN_BIN names the binary (CI), else by a static
// server over js/ here.
import assert from "node:assert/strict";
import { existsSync, readFileSync } from "node:fs";
import { createServer } from "node:http";
import { test } from "node:test";
import { startService } from "./service.mjs";

const root = new URL("..", import.meta.url);
const chromium = process.env.CHROMIUM ?? "/usr/bin/chromium";
const required = process.env.EXTRACT_BETWEEN_REQUIRE_BROWSER === "1";
const card = JSON.parse(readFileSync(new URL("../crates/extract-between/card/text-extract-between-1.0.0.json", root)));

/** Serves the page: the project's binary, or js/ over HTTP. Answers its URL and a stop. */
async function serve() {
  const bin = process.env.EXTRACT_BETWEEN_BIN;
  if (bin) {
    const { url, stop } = await startService();
    // A binary built before js/build.sh ran serves the page without the package (it then asks
    // the execute URL): the WebAssembly engine cannot be tested through it.
    const answer = await fetch(`${url}/playground/lib/index.js`);
    if (answer.ok || required) return { url: `${url}/playground`, service: url, stop };
    stop();
  }
  const server = createServer((req, res) => {
    const path = req.url === "/playground/" ? "index.html" : req.url.replace(/^\/playground\//, "");
    // The page is the CLI crate's (it serves it); the package's files are js/'s.
    const file = /^(index\.html|favicon\.svg)$/.test(path) ? new URL(`../crates/extract-between-cli/playground/${path}`, root) : new URL(path, root);
    if (!/^(index\.html|favicon\.svg|lib\/\w+\.js|wasm\/\w+\.(js|wasm))$/.test(path) || !existsSync(file)) {
      res.writeHead(404).end();
      return;
    }
    const type = path.endsWith(".html") ? "text/html" : path.endsWith(".svg") ? "image/svg+xml" : path.endsWith(".wasm") ? "application/wasm" : "text/javascript";
    res.writeHead(200, { "content-type": type }).end(readFileSync(file));
  });
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  return { url: `http://127.0.0.1:${server.address().port}/playground/`, stop: () => server.close() };
}

/** The execute URL's own answer, to hold the page's "card's answer" to. */
async function executeAnswer(service, text, start, end, max) {
  const body = { text, start, end };
  if (max !== undefined) body.max_matches = max;
  const r = await fetch(`${service}/v1/tools/text-extract-between/versions/1.0.0/execute`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  return r.json();
}

test("the playground page computes the card's answers in a real browser, with either engine", async (t) => {
  if (!existsSync(chromium)) {
    if (required) assert.fail(`no Chromium at ${chromium}`);
    t.skip(`no Chromium at ${chromium}`);
    return;
  }
  const { chromium: driver } = await import("playwright-core");
  const { url, service, stop } = await serve();
  const browser = await driver.launch({
    executablePath: chromium,
    args: ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update", "--disable-sync", "--no-first-run"],
  });
  try {
    // The package's engine, and (served by the binary) the execute URL's.
    for (const engine of service ? ["wasm", "service"] : ["wasm"]) {
      await t.test(engine, () => checkPage(browser, engine === "wasm" ? url : `${url}/?engine=service`, engine, service));
    }
    if (service) {
      // The index links the playground; the favicon is served.
      const index = await fetch(`${service}/`);
      assert.equal(index.status, 200);
      assert.match(await index.text(), /href="\/playground\/"/);
      const icon = await fetch(`${service}/playground/favicon.svg`);
      assert.equal(icon.headers.get("content-type"), "image/svg+xml");
    }
  } finally {
    await browser.close();
    stop();
  }
});

async function checkPage(browser, url, engine, service) {
  const page = await browser.newPage();
  const errors = [];
  page.on("pageerror", (e) => errors.push(String(e)));
  await page.goto(url);
  await page.waitForSelector("body[data-ready=true]");
  assert.equal(await page.getAttribute("body", "data-engine"), engine);

  /** Types the inputs in, waits for the answer, and answers what the page shows. */
  const ask = async (text, start, end, max) => {
    await page.fill("#text", text);
    await page.fill("#start", start);
    await page.fill("#end", end);
    await page.fill("#max", max === undefined ? "" : String(max));
    await page.waitForFunction(() => document.body.dataset.answered === document.body.dataset.asked);
    const shown = {
      json: JSON.parse(await page.textContent("#json")),
      status: await page.textContent("#status"),
      error: await page.textContent("#error"),
      code: await page.getAttribute("#error", "data-code"),
      offset: await page.getAttribute("#error", "data-offset"),
      marked: await page.$$eval("#highlight mark:not(.unclosed)", (ms) => ms.map((m) => m.textContent)),
      unclosed: await page.$$eval("#highlight mark.unclosed", (ms) => ms.map((m) => m.textContent)),
    };
    // The box shows what the execute URL answers, exactly.
    if (service) assert.deepEqual(shown.json, await executeAnswer(service, text, start, end, max), `${engine}: ${text}`);
    return shown;
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
  assert.deepEqual(unclosed.json, { error: { code: "unclosed_start_marker", message: "unclosed start marker", offset: 7, byte_offset: 10 } });
  assert.equal(unclosed.error, "unclosed_start_marker: unclosed start marker at UTF-16 offset 7 (byte offset 10)");
  assert.equal(unclosed.error.match(/offset 7/g).length, 1, "the offset is said once");
  assert.deepEqual(unclosed.marked, ["a"]);
  assert.deepEqual(unclosed.unclosed, ["["]);

  const empty = await ask("abc", "", "]", 100);
  assert.equal(empty.code, "invalid_input");
  assert.match(empty.error, /invalid_input in start: start must be a non-empty string/);

  const cap = await ask("[a]", "[", "]", 1001);
  assert.match(cap.error, /max_matches must be an integer from 1 to 1000/);

  // Past the card's size limit: said before the answer, and the highlight box stays its size.
  const long = await ask("[x]" + "y".repeat(330_000), "[", "]", 100);
  assert.match(await page.textContent("#size"), /330,003 bytes: the card refuses more than 256,000/);
  assert.equal(long.code, "invalid_input");
  const height = await page.$eval("#highlight", (b) => b.getBoundingClientRect().height);
  assert.ok(height < 400, `the highlight box is ${height} px high`);

  // The token stream tab: events over a simulated stream (the package's engine only).
  await page.click("#tab-events");
  await page.click("#play");
  if (engine === "wasm") {
    await page.waitForSelector("#events li.end", { timeout: 20_000 });
    const events = await page.$$eval("#events li", (ls) => ls.map((l) => [l.className, l.textContent]));
    assert.equal(events[0][0], "open");
    assert.deepEqual(events.at(-2), ["close", "close"]);
    const inside = events.filter(([kind]) => kind === "text").map(([, t]) => JSON.parse(t.slice("text ".length)));
    assert.equal(inside.join(""), "The user wants 2 + 2.");
  } else {
    assert.match(await page.textContent("#events-note"), /built without the npm package/);
  }
  assert.deepEqual(errors, []);
  await page.close();
}
