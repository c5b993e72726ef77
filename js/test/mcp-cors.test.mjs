// A browser page on an origin the operator allowed (`serve --allow-origin`) runs a whole MCP
// session against the service's `/mcp` in a real headless Chromium: initialize, tools/list,
// tools/call, with the headers MCP clients send after initialize — and a page on another
// origin cannot. The page's origin is a name (`app.example`) Chromium resolves to loopback,
// so that the service's loopback-origin rule does not let it in by itself.
import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { createServer } from "node:http";
import { test } from "node:test";
import { startService } from "./service.mjs";

const chromium = process.env.CHROMIUM ?? "/usr/bin/chromium";
const required = process.env.EXTRACT_BETWEEN_REQUIRE_BROWSER === "1";

/** In the page: a legacy MCP session (initialize, initialized, tools/list, tools/call). */
async function session(mcp) {
  const post = async (body, headers = {}) => {
    const r = await fetch(mcp, {
      method: "POST",
      headers: { "content-type": "application/json", accept: "application/json, text/event-stream", ...headers },
      body: JSON.stringify(body),
    });
    const text = await r.text();
    return { status: r.status, json: text ? JSON.parse(text) : null, session: r.headers.get("mcp-session-id"), id: r.headers.get("x-request-id") };
  };
  const init = await post({
    jsonrpc: "2.0",
    id: 1,
    method: "initialize",
    params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "page", version: "1" } },
  });
  const version = init.json.result.protocolVersion;
  const after = { "mcp-protocol-version": version, "last-event-id": "0" };
  if (init.session) after["mcp-session-id"] = init.session;
  const initialized = await post({ jsonrpc: "2.0", method: "notifications/initialized" }, after);
  const list = await post({ jsonrpc: "2.0", id: 2, method: "tools/list" }, after);
  const call = await post(
    { jsonrpc: "2.0", id: 3, method: "tools/call", params: { name: "text-extract-between", arguments: { text: "a[b]c[d]", start: "[", end: "]" } } },
    after,
  );
  return {
    version,
    requestIdReadable: init.id !== null,
    initialized: initialized.status,
    tools: list.json.result.tools.map((t) => t.name),
    answer: call.json.result.structuredContent,
  };
}

test("a page on an allowed origin runs a whole MCP session; another origin cannot", async (t) => {
  if (!process.env.EXTRACT_BETWEEN_BIN || !existsSync(chromium)) {
    const why = process.env.EXTRACT_BETWEEN_BIN ? `no Chromium at ${chromium}` : "EXTRACT_BETWEEN_BIN is not set";
    if (required) assert.fail(why);
    t.skip(why);
    return;
  }
  const page = createServer((_, res) => res.writeHead(200, { "content-type": "text/html" }).end("<!doctype html><title>app</title>"));
  await new Promise((resolve) => page.listen(0, "127.0.0.1", resolve));
  const origin = `http://app.example:${page.address().port}`;
  // Written as an operator might: upper case and all. The service compares it as browsers send it.
  const allowed = await startService(["--allow-origin", `HTTP://App.Example:${page.address().port}`]);
  const other = await startService([]);
  const { chromium: driver } = await import("playwright-core");
  const browser = await driver.launch({
    executablePath: chromium,
    args: [
      "--no-sandbox",
      "--disable-gpu",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
      "--no-first-run",
      "--host-resolver-rules=MAP app.example 127.0.0.1",
    ],
  });
  try {
    const tab = await browser.newPage();
    await tab.goto(`${origin}/`);
    assert.equal(await tab.evaluate(() => location.origin), origin);
    const got = await tab.evaluate(session, `${allowed.url}/mcp`);
    assert.deepEqual(got, {
      version: "2025-11-25",
      requestIdReadable: true,
      initialized: 202,
      tools: ["text-extract-between"],
      answer: { matches: ["b", "d"], truncated: false },
    });
    // Not allowed there: the browser withholds the answer (the preflight or the 403 has no
    // Access-Control-Allow-Origin), and the page sees a failed fetch.
    const refused = await tab.evaluate(async (mcp) => {
      try {
        await fetch(mcp, { method: "POST", headers: { "content-type": "application/json", "mcp-protocol-version": "2025-11-25" }, body: "{}" });
        return "answered";
      } catch (e) {
        return e.name;
      }
    }, `${other.url}/mcp`);
    assert.equal(refused, "TypeError");
  } finally {
    await browser.close();
    allowed.stop();
    other.stop();
    page.close();
  }
});
