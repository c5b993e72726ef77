// A helper of the browser tests (not a test file): `extract-between serve` on a free loopback
// port, from the binary EXTRACT_BETWEEN_BIN names.
import { spawn } from "node:child_process";

/**
 * Starts the service with `args`; answers its URL (from the line it prints once listening)
 * and a stop.
 * @param {string[]} [args]
 */
export async function startService(args = []) {
  const child = spawn(process.env.EXTRACT_BETWEEN_BIN, ["serve", "--listen", "127.0.0.1:0", ...args], {
    stdio: ["ignore", "pipe", "inherit"],
  });
  const url = await new Promise((resolve, reject) => {
    let out = "";
    child.stdout.on("data", (d) => {
      out += d;
      const m = out.match(/listening on (http:\/\/\S+)/);
      if (m) resolve(m[1]);
    });
    child.on("exit", (code) => reject(new Error(`the service exited (${code}) before listening`)));
  });
  return { url, stop: () => child.kill() };
}
