// The package's entry for browsers and bundlers (Node and Deno take `node.js`, the `node`
// export condition; this one works there too, asynchronously): the WebAssembly module is
// instantiated once, on import, from the one .wasm file the package carries — read from disk
// where the module is a file (Node, Bun; Deno fetches file URLs), fetched beside this module
// in a browser (bundlers copy it: `new URL(…, import.meta.url)` is the pattern they follow).
import init from "../wasm/extract_between.js";

const wasm = new URL("../wasm/extract_between_bg.wasm", import.meta.url);
let source = wasm;
if (wasm.protocol === "file:" && typeof Deno === "undefined") {
  const fs = globalThis.process?.getBuiltinModule?.("node:fs") ?? (await import(/* webpackIgnore: true */ /* @vite-ignore */ "node:fs"));
  source = fs.readFileSync(wasm);
}
await init({ module_or_path: source });

export * from "./api.js";
