"""The benches' generated texts, the same on every run (fixed seeds).

    python3 benches/corpus.py files WORK SIZE_MIB   WORK/dense.txt (a [match] every ~80
        bytes), WORK/none.txt (no marker), WORK/unicode.txt (Japanese, 「…」 every ~150 bytes)
    python3 benches/corpus.py tree ROOT FILES       FILES HTML pages of ~10 KB in 100
        folders, each with one <title>
"""

import os
import random
import sys

WORDS = "lorem ipsum dolor sit amet consectetur adipiscing elit sed do eiusmod tempor".split()
CJK = ["東京", "日本語", "文字列", "抽出", "検索", "テキスト", "データ", "処理", "、", "。"]


def latin(path: str, size: int, dense: bool, rnd: random.Random) -> None:
    out, n = [], 0
    while n < size:
        line = " ".join(rnd.choice(WORDS) for _ in range(10))
        if dense:
            line = line[:60] + " [" + rnd.choice(WORDS) + rnd.choice(WORDS) + "]"
        line += "\n"
        out.append(line)
        n += len(line)
    with open(path, "w") as f:
        f.write("".join(out))


def files(work: str, size_mib: int) -> None:
    size = size_mib << 20
    rnd = random.Random(7)
    latin(f"{work}/dense.txt", size, True, rnd)
    latin(f"{work}/none.txt", size, False, rnd)
    out, n = [], 0
    while n < size:
        line = "".join(rnd.choice(CJK) for _ in range(20)) + "「" + rnd.choice(CJK) + rnd.choice(CJK) + "」\n"
        out.append(line)
        n += len(line.encode())
    with open(f"{work}/unicode.txt", "w", encoding="utf-8") as f:
        f.write("".join(out))


def tree(root: str, count: int) -> None:
    rnd = random.Random(11)

    def para() -> str:
        return "<p>" + " ".join(rnd.choice(WORDS) for _ in range(60)) + "</p>\n"

    for i in range(count):
        folder = os.path.join(root, f"section{i % 100:03d}")
        os.makedirs(folder, exist_ok=True)
        body = "".join(para() for _ in range(25))
        with open(os.path.join(folder, f"page{i:05d}.html"), "w") as f:
            f.write(f"<html><head><title>Page {i} {rnd.choice(WORDS)}</title></head><body>\n{body}</body></html>\n")


if __name__ == "__main__":
    kind, where, amount = sys.argv[1], sys.argv[2], int(sys.argv[3])
    {"files": files, "tree": tree}[kind](where, amount)
