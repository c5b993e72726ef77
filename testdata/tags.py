"""Writes `tags.json`, the tag sets' shared vectors: pairs and string chunks -> the exact events
each feed answers (outside text or not), and the unclosed pair, for every door that scans tags
(the Rust library, Python's `Tags`, JavaScript's `Tags`).

The events come from the rule written here, not from the library: from each position the
leftmost start marker opens a match (the longest where several begin there) and that pair's
end closes it; a feed answers everything it decides as one piece per stretch of text, and holds
only the longest suffix that may still begin the marker sought.

    python3 testdata/tags.py          # rewrite tags.json
    python3 testdata/tags.py --check  # fail when tags.json is not what this file writes
"""

import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))

CASES = [
    ("an R1-style reply: reasoning, then the answer with no tag",
     [("<think>", "</think>")],
     ["<think>", "The user", " asks 2+2", "</thi", "nk>", "It is", " 4."]),
    ("reasoning and tool calls",
     [("<think>", "</think>"), ("<tool_call>", "</tool_call>")],
     ["<thi", "nk>plan</think>Let me check. <tool", "_call>{\"q\": 1}</tool_call>", " Done."]),
    ("a held prefix that begins no marker is outside text",
     [("<think>", "</think>"), ("<tool_call>", "</tool_call>")],
     ["a <t", "o", "p> b <", "th", "ing>"]),
    ("the longest start wins, decided across chunks",
     [("<a", ">"), ("<ab", "|"), ("<abc", "!")],
     ["x<a", "b", "c!", "<ab|<a", "x>"]),
    ("starts inside a match are its text; an end may be another start",
     [("<think>", "</think>"), ("</think>", "\n")],
     ["<think>a<think>b</think>c</thi", "nk>d\n"]),
    ("equal markers",
     [("|", "|"), ("#", "#")],
     ["a|b|c#d", "#|e"]),
    ("astral and CJK text, offsets in UTF-16 units and bytes",
     [("「", "」"), ("😀", "😀")],
     ["前「一」中😀", "二😀後「三", "」"]),
    ("an unclosed start after matches",
     [("[", "]"), ("(", ")")],
     ["a[b]c(d", "e"]),
    ("a marker cut over three chunks",
     [("<tool_call>", "</tool_call>")],
     ["x<to", "ol_c", "all>y</tool", "_ca", "ll>z"]),
    ("empty matches and adjacent pairs",
     [("[", "]"), ("{", "}")],
     ["[]{}[", "]", "{}"]),
    ("no marker at all",
     [("<think>", "</think>")],
     ["just ", "an answer"]),
]


def units(text):
    return len(text.encode("utf-16-le")) // 2


def nbytes(text):
    return len(text.encode("utf-8"))


def open_suffix(text, start, markers):
    """Where the longest suffix of text[start:] that is a proper prefix of a marker begins."""
    longest = max(len(m) for m in markers)
    for h in range(max(start, len(text) - longest + 1), len(text)):
        if any(len(m) > len(text) - h and m.startswith(text[h:]) for m in markers):
            return h
    return len(text)


class Feed:
    def __init__(self, pairs, outside):
        self.pairs, self.outside = pairs, outside
        self.held, self.tag, self.at, self.byte = "", None, 0, 0
        self.open_at = None

    def span(self, kind, tag, piece, out, text=None):
        event = {"kind": kind, "tag": tag, "utf16": [self.at, self.at + units(piece)], "bytes": [self.byte, self.byte + nbytes(piece)]}
        if text is not None:
            event["text"] = text
        self.at, self.byte = event["utf16"][1], event["bytes"][1]
        out.append(event)

    def piece(self, tag, piece, out):
        if tag is None and not self.outside:
            self.at, self.byte = self.at + units(piece), self.byte + nbytes(piece)
        else:
            self.span("outside" if tag is None else "text", tag, piece, out, piece)

    def run(self, text, end):
        out, i = [], 0
        starts = [s for s, _ in self.pairs]
        while True:
            if self.tag is None:
                found = [(text.find(s, i), -len(s), k) for k, s in enumerate(starts) if text.find(s, i) >= 0]
                if found:
                    s, _, tag = min(found)
                    final = end or s + max(map(len, starts)) <= len(text) or s < open_suffix(text, i, starts)
                else:
                    final = False
                if final:
                    if s > i:
                        self.piece(None, text[i:s], out)
                    self.open_at = [self.at, self.byte]
                    self.span("open", tag, starts[tag], out)
                    self.tag, i = tag, s + len(starts[tag])
                    continue
                h = len(text) if end else open_suffix(text, i, starts)
                if h > i:
                    self.piece(None, text[i:h], out)
                i = h
                break
            marker = self.pairs[self.tag][1]
            e = text.find(marker, i)
            if e >= 0:
                if e > i:
                    self.piece(self.tag, text[i:e], out)
                self.span("close", self.tag, marker, out)
                self.tag, i = None, e + len(marker)
                continue
            h = len(text) if end else open_suffix(text, i, [marker])
            if h > i:
                self.piece(self.tag, text[i:h], out)
            i = h
            break
        self.held = text[i:]
        return out


def case(name, pairs, chunks, outside):
    feed = Feed(pairs, outside)
    answers = [feed.run(feed.held + chunk, False) for chunk in chunks]
    answers.append(feed.run(feed.held, True))
    error = None if feed.tag is None else {"tag": feed.tag, "utf16": feed.open_at[0], "bytes": feed.open_at[1]}
    return {"name": name, "pairs": [list(p) for p in pairs], "chunks": chunks, "outside": outside, "answers": answers, "error": error}


def main():
    cases = [case(n, p, c, o) for n, p, c in CASES for o in (True, False)]
    text = json.dumps({"about": __doc__.strip().splitlines()[0], "cases": cases}, ensure_ascii=False, indent=1) + "\n"
    path = os.path.join(HERE, "tags.json")
    if "--check" in sys.argv:
        with open(path, encoding="utf-8") as f:
            if f.read() != text:
                sys.exit(f"{path} is not what {__file__} writes: run it")
        return
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)


if __name__ == "__main__":
    main()
