// The package's entry for Node, Deno and browsers: the WebAssembly module is instantiated
// from bytes this package carries (no file access, no fetch), once, on import.
import init from "../wasm/extract_between.js";
import { wasmBytes } from "../wasm/inline.js";

await init({ module_or_path: wasmBytes() });

export * from "./api.js";
