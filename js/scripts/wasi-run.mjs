// Runs a wasm32-wasip1 test binary under Node's WASI (cargo's runner for that target), so
// that the library's own tests run on WebAssembly with the simd128 kernels:
//   CARGO_TARGET_WASM32_WASIP1_RUNNER="node js/scripts/wasi-run.mjs"
import { readFile } from "node:fs/promises";
import { WASI } from "node:wasi";

const [wasm, ...args] = process.argv.slice(2);
const wasi = new WASI({ version: "preview1", args: [wasm, ...args], env: process.env, preopens: { "/": "/" }, returnOnExit: true });
const module = await WebAssembly.compile(await readFile(wasm));
const instance = await WebAssembly.instantiate(module, wasi.getImportObject());
process.exitCode = wasi.start(instance);
