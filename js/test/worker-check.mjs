// A worker for workerd's test runner: the package through its `workerd` entry (which imports
// the .wasm file as a compiled module), checked by runtime-check.mjs.
import * as api from "./lib/worker.js";
import { check } from "./runtime-check.mjs";

export default {
  async test() {
    await check(api);
  },
};
