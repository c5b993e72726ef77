"""Writes `rows.json`, the row contract's shared vectors: rows x markers x caps x policies ->
each row's matches, or the error (its class, the row, the library's words, the matches before
it), for both column functions; and every bad option with its words in each host's spelling.

The answers come from the card's loop over UTF-16 code units written here (JavaScript's
`indexOf`), not from the library, so that every door that runs the file (the library, pyarrow,
polars, pandas, DuckDB native and its Python fallback, Spark, JavaScript) is held to the card.

    python3 testdata/rows.py          # rewrite rows.json
    python3 testdata/rows.py --check  # fail when rows.json is not what this file writes
"""

import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
MAX_CAP = 2**63 - 1
POLICIES = ["raise", "null", "partial"]
SPELLINGS = {
    "python": {"max_matches": "max_matches", "on_unclosed": "on_unclosed", "null": "None", "q": '"'},
    "sql": {"max_matches": "max_matches", "on_unclosed": "on_unclosed", "null": "NULL", "q": "'"},
    "javascript": {"max_matches": "maxMatches", "on_unclosed": "onUnclosed", "null": "null", "q": '"'},
}


def units(text):
    """The UTF-16 code units of `text`."""
    data = text.encode("utf-16-le")
    return [int.from_bytes(data[i : i + 2], "little") for i in range(0, len(data), 2)]


def from_units(code_units):
    """The text of whole UTF-16 code units."""
    return b"".join(u.to_bytes(2, "little") for u in code_units).decode("utf-16-le")


def index_of(hay, needle, at):
    for i in range(at, len(hay) - len(needle) + 1):
        if hay[i : i + len(needle)] == needle:
            return i
    return -1


def card(text, start, end, cap):
    """The card's loop: (matches, truncated, unclosed UTF-16 offset or None)."""
    t, s, e = units(text), units(start), units(end)
    found, at = [], 0
    while True:
        i = index_of(t, s, at)
        if i < 0:
            return found, False, None
        j = index_of(t, e, i + len(s))
        if j < 0:
            return found, False, i
        if cap is not None and len(found) == cap:
            return found, True, None
        found.append(from_units(t[i + len(s) : j]))
        at = j + len(e)


def excerpt(text):
    """The row's first 60 characters as the library shows them (Rust's `escape_debug`)."""
    escapes = {"\n": "\\n", "\t": "\\t", "\r": "\\r", "\\": "\\\\", '"': '\\"', "'": "\\'"}
    shown = "".join(escapes.get(c, c) for c in text[:60])
    return shown + ("…" if len(text) > 60 else "")


def row_answer(row, start, end, cap, policy):
    """A row's answer: ("rows", value) or ("error", {...})."""
    if row is None:
        return "value", None
    if isinstance(row, dict):
        data = bytes.fromhex(row["utf8_hex"])
        try:
            data.decode("utf-8")
            raise ValueError(f"{row} is UTF-8: write it as a string")
        except UnicodeDecodeError as e:
            bad = e.start
        valid = data[:bad].decode("utf-8")
        # Only rows whose matches all lie before the bad byte are vectors: the answer is the
        # valid prefix's matches, then the error.
        found, _, _ = card(valid, start, end, None)
        return "error", {
            "class": "InvalidUtf8",
            "message": f'invalid UTF-8 at byte offset {bad}; the row begins "{excerpt(valid)}"',
            "matches": found if cap is None else found[:cap],
        }
    found, truncated, unclosed = card(row, start, end, cap)
    if unclosed is None or policy == "partial":
        return "value", {"matches": found, "truncated": truncated}
    if policy == "null":
        return "value", None
    byte = len(from_units(units(row)[:unclosed]).encode())
    return "error", {
        "class": "UnclosedStartMarker",
        "message": f'unclosed start marker at UTF-16 offset {unclosed} (byte offset {byte}); the row begins "{excerpt(row)}"',
        "matches": found,
    }


def column(rows, start, end, cap, policy):
    """A column function's answer: every row's, or the first row's error (with its row)."""
    answers = []
    for i, row in enumerate(rows):
        kind, value = row_answer(row, start, end, cap, policy)
        if kind == "error":
            return {"error": dict(value, row=i)}
        answers.append(value)
    return {"rows": answers}


def quoted(text, q):
    return q + text.replace("\\", "\\\\").replace(q, "\\" + q) + q


def option_messages(option, value):
    out = {}
    for host, s in SPELLINGS.items():
        if option == "max_matches":
            out[host] = f"{s['max_matches']} must be an integer from 1 to {MAX_CAP} or {s['null']} (it is {value})"
        else:
            names = [quoted(n, s["q"]) for n in POLICIES]
            out[host] = (
                f"{s['on_unclosed']} must be {', '.join(names[:-1])} or {names[-1]} "
                f"({s['null']}: {quoted('raise', s['q'])}), not {quoted(value, s['q'])}"
            )
    return out


ROWS = [
    ("plain", "[", "]", ["a[one]b[two]c", "", "none", None, "[][x]"]),
    ("tags", "<b>", "</b>", ["<b>x</b> and <b>y</b>", "<b>unclosed", "</b><b>z</b>"]),
    ("astral and CJK", "「", "」", ["😀「字」 「𝄞x」", "前「後", "「」"]),
    ("equal markers", "|", "|", ["|a|b|c|", "a|b", "||"]),
    ("nested start is content", "((", "))", ["((a((b))c))", "(((x)))"]),
    ("unclosed after matches", "[", "]", ["[a] [b] [c", "ok"]),
    ("unclosed first row", "[", "]", ["[open", "[a]"]),
    ("escapes in the excerpt", "[", "]", ['"q"\n\t[x']),
    ("quote and backslash in the excerpt", "[", "]", ["it's a \\ [z"]),
    ("a long row's excerpt", "[", "]", ["é" * 70 + "[y"]),
    ("invalid UTF-8", "[", "]", ["[a]", {"utf8_hex": "5b625d20ff5b635d"}]),
    ("cap edges", "[", "]", ["[1][2][3]", "[1][2]", "[1][2][3", "[1][2][3][4"]),
]

CAPS = [None, 1, 2, MAX_CAP]


def cases():
    out = []
    for name, start, end, rows in ROWS:
        for cap in CAPS:
            for policy in [None] + POLICIES:
                case = {"name": name, "start": start, "end": end, "rows": rows}
                if cap is not None:
                    case["max_matches"] = cap
                if policy is not None:
                    case["on_unclosed"] = policy
                effective = policy or "raise"
                case["all"] = column(rows, start, end, cap, effective)
                first = column(rows, start, end, 1, effective)
                if "rows" in first:
                    first = {"rows": [None if r is None or not r["matches"] else r["matches"][0] for r in first["rows"]]}
                case["first"] = first
                out.append(case)
    bad = [("max_matches", v) for v in [0, -1, MAX_CAP + 1, -(2**63), 2**64 - 1]]
    bad += [("on_unclosed", v) for v in ["skip", "RAISE", "", "null ", "it's"]]
    for option, value in bad:
        case = {"name": f"bad {option}", "start": "[", "end": "]", "rows": ["[a]"], option: value}
        error = {"class": "InvalidInput", "option": option, "messages": option_messages(option, value)}
        case["all"] = {"error": error}
        if option == "on_unclosed":
            case["first"] = {"error": error}
        out.append(case)
    return out


def main():
    path = os.path.join(HERE, "rows.json")
    text = json.dumps({"about": __doc__.strip().splitlines()[0], "cases": cases()}, ensure_ascii=False, indent=1) + "\n"
    if "--check" in sys.argv:
        with open(path, encoding="utf-8") as f:
            if f.read() != text:
                sys.exit(f"{path} is not what {__file__} writes: run it")
        return
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)


if __name__ == "__main__":
    main()
