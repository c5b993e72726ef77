// The entry for Cloudflare-style workers (the `workerd` and `worker` export conditions):
// their bundlers import a `.wasm` file as a compiled WebAssembly.Module, and compiling from
// bytes at run time is refused there.
import { initSync } from "../wasm/extract_between.js";
import module from "../wasm/extract_between_bg.wasm";

initSync({ module });

export * from "./api.js";
