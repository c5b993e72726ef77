"""The installed wheel, run once as a user would: it imports, answers the card's examples, and
agrees with a plain-Python reference on a text long enough for the vector kernels' block
walks (ASCII and not), whole and streamed in chunks. The release workflow runs it for each
Linux wheel inside a container of the wheel's platform (arm64 under QEMU), so that what it
publishes for each platform was run before it is published.

    python scripts/wheel-smoke.py crates/extract-between/card/text-extract-between-1.0.0.json
"""

import json
import platform
import sys

import extract_between as eb


def reference(text: str, start: str, end: str) -> list[str]:
    """Every match, by the card's loop (str.find counts code points; the matches are the same)."""
    found, pos = [], 0
    while (s := text.find(start, pos)) >= 0:
        e = text.find(end, s + len(start))
        if e < 0:
            raise AssertionError("unclosed start marker in the smoke text")
        found.append(text[s + len(start) : e])
        pos = e + len(end)
    return found


def main() -> None:
    with open(sys.argv[1], encoding="utf-8") as f:
        card = json.load(f)
    for example in card["examples"]:
        given, wanted = example["input"], example["output"]
        out = eb.extract(given["text"], given["start"], given["end"], max_matches=given.get("max_matches", 100))
        assert (out.matches, out.truncated) == (wanted["matches"], wanted["truncated"]), (given, out)
    pieces = ["<t>", "</t>", "ascii words ", "é", "東京", "😀", "\x00", "<", "t>"]
    # An end marker last closes whatever start marker came last (a stray one is text).
    text = "".join(pieces[(k * k + 3 * k) % len(pieces)] for k in range(200_000)) + "</t>"
    want = reference(text, "<t>", "</t>")
    assert eb.findall(text, "<t>", "</t>") == want
    data = text.encode()
    for size in (1, 7, 64, 4096, 1 << 20):
        chunks = (data[i : i + size] for i in range(0, len(data), size))
        assert [m.text for m in eb.finditer(chunks, "<t>", "</t>")] == want, size
    print(f"extract_between {eb.__version__} on {platform.machine()}: {len(want)} matches agree")


if __name__ == "__main__":
    main()
