// The entry for Node (and Deno, which takes the `node` condition too): the WebAssembly module
// is read from the package's one .wasm file and instantiated synchronously, with no
// top-level `await`, so that `require("extract-between")` loads this ES module as CommonJS
// code asks for it (Node 20.19+ and 22.12+ load ES modules from `require`), and `import`
// gets the same module.
import { readFileSync } from "node:fs";
import { initSync } from "../wasm/extract_between.js";

initSync({ module: readFileSync(new URL("../wasm/extract_between_bg.wasm", import.meta.url)) });

export * from "./api.js";
