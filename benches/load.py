#!/usr/bin/env python3
"""Requests per second of the service beside a bare axum server, measured with wrk, a light
client that leaves the CPU to the servers (the hyper client of `cargo bench --bench load`
spends as much CPU as the server on two cores and hides its cost).

Three servers, each its own process, started here: the service (its execute URL, and its
/mcp with a 2026-07-28 tools/call and the headers that era requires); the baseline, a bare
axum JSON echo (`Json<Value>` in, the same out: the bench binary run with --echo-server),
sent execute's body and, to weigh the protocol alone, MCP's message with its headers;
and the same tool on the official Rust MCP SDK's Streamable HTTP server (rmcp, stateless,
JSON answers: `benches/rmcp-baseline`), the runtime this service's /mcp does not use. Small
and 250 KiB bodies; ROUNDS alternating rounds of DURATION seconds each; the median round of
each is reported with the ratios: execute / echo, MCP / execute, and MCP on the SDK / ours.
Beside the rates, the CPU each server spent per 1,000 requests (its utime + stime from
/proc/PID/stat over the round, divided by the requests wrk counted): a rate depends on how
the two cores are shared with the client, the CPU a request costs the server does not.

Before timing, one request of each kind is checked for the answer it must give.

Usage: python3 benches/load.py   (ROUNDS=5 DURATION=3 CONNECTIONS=64 THREADS=1 to change)
"""

import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
import urllib.request

ROUNDS = int(os.environ.get("ROUNDS", "5"))
DURATION = int(os.environ.get("DURATION", "3"))
CONNECTIONS = int(os.environ.get("CONNECTIONS", "64"))
THREADS = int(os.environ.get("THREADS", "1"))
EXECUTE = "/v1/tools/text-extract-between/versions/1.0.0/execute"
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def build():
    """Builds the service and the bench binary; returns their paths."""
    subprocess.run(["cargo", "build", "--release", "--quiet", "-p", "extract-between-cli"],
                   cwd=ROOT, check=True)
    out = subprocess.run(
        ["cargo", "bench", "--bench", "load", "--no-run", "--message-format=json", "--quiet",
         "-p", "extract-between-cli"],
        cwd=ROOT, check=True, capture_output=True, text=True).stdout
    bench = next(m["executable"] for m in map(json.loads, out.splitlines())
                 if m.get("reason") == "compiler-artifact" and m.get("executable")
                 and m["target"]["name"] == "load")
    subprocess.run(["cargo", "build", "--release", "--quiet", "-p", "rmcp-baseline"],
                   cwd=ROOT, check=True)
    return (os.path.join(ROOT, "target/release/extract-between"), bench,
            os.path.join(ROOT, "target/release/rmcp-baseline"))


def start(cmd):
    """Starts a server that prints `listening on http://ADDR` first; returns (proc, base URL)."""
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    line = proc.stdout.readline().strip()
    if not line.startswith("listening on "):
        proc.kill()
        sys.exit(f"{cmd[0]} did not start: {line!r}")
    return proc, line.removeprefix("listening on ")


def texts():
    """The small text and a 250 KiB one (a match every ~80 bytes), with their first match."""
    words = "lorem ipsum dolor sit amet consectetur adipiscing elit".split()
    line = " ".join(words) + " [" + words[2] + "]\n"
    big = (line * (250 * 1024 // len(line) + 1))[: 250 * 1024]
    big = big[: big.rindex("\n") + 1]
    return {"small": "alpha [one] beta [two] gamma", "250KiB": big}


def requests(base_urls, text):
    """(name, url, body, headers, a piece every good answer holds) for one text."""
    args = {"text": text, "start": "[", "end": "]"}
    first = "one" if text.startswith("alpha") else "dolor"
    mcp = {
        "jsonrpc": "2.0", "id": 1, "method": "tools/call",
        "params": {"name": "text-extract-between", "arguments": args,
                   "_meta": {"io.modelcontextprotocol/protocolVersion": "2026-07-28",
                             "io.modelcontextprotocol/clientCapabilities": {}}},
    }
    mcp_headers = {"MCP-Protocol-Version": "2026-07-28", "Mcp-Method": "tools/call",
                   "Mcp-Name": "text-extract-between",
                   "Accept": "application/json, text/event-stream"}
    ours, echo, sdk = base_urls
    return [
        ("axum echo", echo, echo + "/echo", json.dumps(args), {}, first),
        # The protocol's own weight: MCP's message and headers through the bare echo.
        ("echo, MCP's msg", echo, echo + "/echo", json.dumps(mcp), mcp_headers, first),
        ("execute", ours, ours + EXECUTE, json.dumps(args), {}, f'"{first}"'),
        ("MCP tools/call", ours, ours + "/mcp", json.dumps(mcp), mcp_headers, f'\\"{first}\\"'),
        ("MCP on rmcp", sdk, sdk + "/mcp", json.dumps(mcp), mcp_headers, f'\\"{first}\\"'),
    ]


def check(url, body, headers, expect):
    req = urllib.request.Request(url, body.encode(), method="POST",
                                 headers={"Content-Type": "application/json", **headers})
    with urllib.request.urlopen(req) as resp:
        answer = resp.read().decode()
    if expect not in answer:
        sys.exit(f"{url} answered without {expect!r}: {answer[:200]}")


LUA = """
wrk.method = "POST"
local f = io.open(os.getenv("LOAD_BODY"), "rb"); wrk.body = f:read("*a"); f:close()
wrk.headers["Content-Type"] = "application/json"
for k, v in string.gmatch(os.getenv("LOAD_HEADERS"), "([^\\n:]+): ([^\\n]+)") do
  wrk.headers[k] = v
end
"""


def cpu_seconds(pid):
    """User + system CPU time of process `pid` so far, in seconds."""
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    # utime and stime are the 14th and 15th fields; the split starts at the 3rd.
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def wrk(url, body, headers, work, pid):
    """One wrk round against the server process `pid`; returns (requests/s, p50 ms, p99 ms,
    non-2xx answers + socket errors, the server's CPU ms per 1,000 requests)."""
    body_path = os.path.join(work, "body")
    with open(body_path, "w") as f:
        f.write(body)
    env = dict(os.environ, LOAD_BODY=body_path,
               LOAD_HEADERS="\n".join(f"{k}: {v}" for k, v in headers.items()))
    cpu_before = cpu_seconds(pid)
    out = subprocess.run(
        ["wrk", f"-t{THREADS}", f"-c{CONNECTIONS}", f"-d{DURATION}s", "--latency",
         "-s", os.path.join(work, "post.lua"), url],
        env=env, check=True, capture_output=True, text=True).stdout
    cpu = cpu_seconds(pid) - cpu_before
    rps = float(re.search(r"Requests/sec:\s+([\d.]+)", out).group(1))
    done = int(re.search(r"(\d+) requests in", out).group(1))

    def ms(p):
        value, unit = re.search(rf"\s{p}%\s+([\d.]+)(us|ms|s)", out).groups()
        return float(value) * {"us": 1e-3, "ms": 1.0, "s": 1e3}[unit]

    bad = sum(int(n) for n in re.findall(r"Non-2xx or 3xx responses: (\d+)", out))
    bad += sum(int(n) for n in re.findall(r"(?:connect|read|write|timeout) (\d+)", out))
    return rps, ms(50), ms(99), bad, cpu * 1e3 / done * 1000


def main():
    for tool in ("wrk", "cargo"):
        if subprocess.run(["which", tool], capture_output=True).returncode:
            sys.exit(f"{tool} is needed (apt-get install wrk)")
    ours_bin, bench_bin, sdk_bin = build()
    ours, ours_url = start([ours_bin, "serve", "--listen", "127.0.0.1:0"])
    echo, echo_url = start([bench_bin, "--echo-server"])
    sdk, sdk_url = start([sdk_bin])
    try:
        with tempfile.TemporaryDirectory() as work:
            with open(os.path.join(work, "post.lua"), "w") as f:
                f.write(LUA)
            rows = {}
            pids = {ours_url: ours.pid, echo_url: echo.pid, sdk_url: sdk.pid}
            for label, text in texts().items():
                shots = requests((ours_url, echo_url, sdk_url), text)
                for _, _, url, body, headers, expect in shots:
                    check(url, body, headers, expect)
                runs = {name: [] for name, *_ in shots}
                for r in range(ROUNDS):
                    # Alternate which server goes first, so drift hits all alike.
                    order = shots if r % 2 == 0 else shots[::-1]
                    for name, server, url, body, headers, _ in order:
                        runs[name].append(wrk(url, body, headers, work, pids[server]))
                for name, results in runs.items():
                    rows[(name, label)] = (
                        statistics.median(x[0] for x in results),
                        statistics.median(x[1] for x in results),
                        statistics.median(x[2] for x in results),
                        sum(x[3] for x in results),
                        statistics.median(x[4] for x in results),
                    )
    finally:
        for proc in (ours, echo, sdk):
            proc.kill()
            proc.wait()
    print(f"wrk -t{THREADS} -c{CONNECTIONS} -d{DURATION}s, median of {ROUNDS} alternating rounds")
    print(f"{'server':<16} {'body':<7} {'req/s':>9} {'p50 ms':>7} {'p99 ms':>7} {'errors':>6}"
          f" {'CPU ms/1k':>9}")
    for (name, label), (rps, p50, p99, bad, cpu) in rows.items():
        print(f"{name:<16} {label:<7} {rps:>9.0f} {p50:>7.2f} {p99:>7.2f} {bad:>6} {cpu:>9.1f}")
    for label in texts():
        echo_rps, echo_cpu = rows[("axum echo", label)][0], rows[("axum echo", label)][4]
        exe, exe_cpu = rows[("execute", label)][0], rows[("execute", label)][4]
        mcp, mcp_cpu = rows[("MCP tools/call", label)][0], rows[("MCP tools/call", label)][4]
        sdk_rps = rows[("MCP on rmcp", label)][0]
        echo_mcp_cpu = rows[("echo, MCP's msg", label)][4]
        print(f"{label}: execute / axum echo {exe / echo_rps:.2f}x, "
              f"MCP / execute {mcp / exe:.2f}x, MCP on rmcp / ours {sdk_rps / mcp:.2f}x; "
              f"CPU per request: execute / echo {exe_cpu / echo_cpu:.2f}x, "
              f"MCP / execute {mcp_cpu / exe_cpu:.2f}x (the echo of MCP's message / the echo "
              f"{echo_mcp_cpu / echo_cpu:.2f}x)")


if __name__ == "__main__":
    main()
