#!/usr/bin/env python3
"""Checks that every relative link of the project's Markdown resolves to a file or folder
(an anchor after `#` is not checked). Exits 1 naming each broken link."""

import pathlib
import re
import sys

root = pathlib.Path(__file__).resolve().parent.parent
# A linked page (the app crate's README is the workspace README) is checked where it lives.
pages = [p for p in root.rglob("*.md")
         if not p.is_symlink()
         and not any(part in {"target", ".git", "node_modules", ".venv"} or part.startswith(".")
                     for part in p.relative_to(root).parts[:-1])]
link = re.compile(r"\]\(([^)\s]+)(?:\s+\"[^\"]*\")?\)")
broken = []
for page in pages:
    text = page.read_text(encoding="utf-8")
    # Code blocks hold examples, not links.
    text = re.sub(r"```.*?```", "", text, flags=re.S)
    for target in link.findall(text):
        if re.match(r"^[a-z][a-z0-9+.-]*:", target) or target.startswith("#"):
            continue
        path = target.split("#", 1)[0]
        if path and not (page.parent / path).exists():
            broken.append(f"{page.relative_to(root)}: {target}")
print(f"{len(pages)} pages checked")
if broken:
    print("broken relative links:\n  " + "\n  ".join(broken), file=sys.stderr)
    sys.exit(1)
