"""Drives extract-between's MCP server with the official Python SDK (`mcp` 2.3.0).

usage: sdk_client.py (stdio BINARY | http URL) (legacy | 2026-07-28)

Checks tools/list against the card, then tools/call with the card's example, an unclosed
start marker, each kind of invalid input, a 256000-byte text and a 1000-match answer with
`truncated`; every text block is compared with what `BINARY tool` (or the execute URL)
answers for the same arguments. Exits 0 and prints "ok" when every check passed.
"""

import asyncio
import json
import subprocess
import sys
import urllib.request

from mcp import Client, StdioServerParameters

TOOL = "text-extract-between"


def card(transport, target):
    if transport == "stdio":
        return json.loads(subprocess.run([target, "card"], capture_output=True, check=True).stdout)
    base = target.rsplit("/mcp", 1)[0]
    with urllib.request.urlopen(f"{base}/v1/tools/{TOOL}/versions/1.0.0") as r:
        return json.loads(r.read())


def contract(transport, target, arguments):
    """What tool mode (stdio) or the execute URL (http) answers for `arguments`."""
    body = json.dumps(arguments).encode()
    if transport == "stdio":
        return subprocess.run([target, "tool"], input=body, capture_output=True).stdout.decode().rstrip("\n")
    base = target.rsplit("/mcp", 1)[0]
    req = urllib.request.Request(f"{base}/v1/tools/{TOOL}/versions/1.0.0/execute", data=body, method="POST")
    try:
        with urllib.request.urlopen(req) as r:
            return r.read().decode()
    except urllib.error.HTTPError as e:
        return e.read().decode()


async def main(transport, target, mode):
    server = StdioServerParameters(command=target, args=["mcp"]) if transport == "stdio" else target
    checks = 0

    def check(cond, what):
        nonlocal checks
        if not cond:
            raise AssertionError(what)
        checks += 1

    the_card = card(transport, target)
    async with Client(server, mode=mode) as client:
        if mode == "legacy":
            await client.send_ping()
        tools = (await client.list_tools()).tools
        check(len(tools) == 1 and tools[0].name == TOOL, f"one tool: {tools}")
        tool = tools[0]
        check(tool.input_schema == the_card["input_schema"], "inputSchema is the card's")
        check(tool.output_schema == the_card["output_schema"], "outputSchema is the card's")
        check(tool.description == the_card["description"], "description is the card's")
        a = tool.annotations
        check(a.read_only_hint and a.idempotent_hint and a.open_world_hint is False, f"annotations {a}")

        async def call(arguments, *, ok):
            result = await client.call_tool(TOOL, arguments)
            text = result.content[0].text
            check(len(result.content) == 1 and result.content[0].type == "text", "one text block")
            check(text == contract(transport, target, arguments), f"text block equals the contract for {str(arguments)[:80]}")
            check(result.is_error == (not ok), f"isError for {str(arguments)[:80]}: {text[:200]}")
            if ok:
                check(result.structured_content == json.loads(text), "structuredContent equals the text")
            else:
                check(result.structured_content is None, "no structuredContent on errors")
            return result

        example = the_card["examples"][0]
        r = await call(example["input"], ok=True)
        check(r.structured_content == example["output"], f"the card's example: {r.structured_content}")
        r = await call({"text": "ab[c", "start": "[", "end": "]"}, ok=False)
        check(json.loads(r.content[0].text)["error"]["code"] == "unclosed_start_marker", "unclosed")
        for bad, field in [
            ({"start": "[", "end": "]"}, "text"),
            ({"text": 5, "start": "[", "end": "]"}, "text"),
            ({"text": "x", "start": "", "end": "]"}, "start"),
            ({"text": "x", "start": "[", "end": "]" * 4097}, "end"),
            ({"text": "x", "start": "[", "end": "]", "max_matches": 0}, "max_matches"),
            ({"text": "x", "start": "[", "end": "]", "max_matches": 1001}, "max_matches"),
            ({"text": "x", "start": "[", "end": "]", "extra": 1}, "extra"),
            ({"text": "é" * 128001, "start": "[", "end": "]"}, "text"),
        ]:
            r = await call(bad, ok=False)
            error = json.loads(r.content[0].text)["error"]
            check(error["code"] == "invalid_input", f"invalid input {error}")
            check(error.get("field") == field, f"field {field}: {error}")
        big = "x" * 255990 + "[abc]....."
        check(len(big.encode()) == 256000, "a 256000-byte text")
        r = await call({"text": big, "start": "[", "end": "]"}, ok=True)
        check(r.structured_content == {"matches": ["abc"], "truncated": False}, "256000-byte text")
        many = "[m]" * 1001
        r = await call({"text": many, "start": "[", "end": "]", "max_matches": 1000}, ok=True)
        check(len(r.structured_content["matches"]) == 1000 and r.structured_content["truncated"], "1000 matches, truncated")
    print(f"ok {checks} checks ({transport}, {mode})")


if __name__ == "__main__":
    transport, target, mode = sys.argv[1], sys.argv[2], sys.argv[3]
    asyncio.run(main(transport, target, mode))
