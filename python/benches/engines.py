"""Benchmark: extract_between inside the engines, against each engine's own regex, on the
same parquet dataset in one run. Each case is a query that reads the dataset, extracts the
titles and writes them to parquet, run in a fresh child process so that its peak RSS is its
own: the table gives the median query time of ROUNDS runs (start-up left out) and the
largest peak RSS.

- DuckDB: `extract_between_all(html, '<title>', '</title>')` against
  `regexp_extract_all(html, '(?s)<title>(.*?)</title>', 1)`, and `extract_between_first`
  against `regexp_extract(…, 1)`, each in `COPY (SELECT …) TO` a parquet file; ours twice:
  the native extension (`extract_between.duckdb.connect()`) and the Python functions
  `register` falls back to (`register(con, native=False)`).
- polars, lazy `scan_parquet(...).select(<expr>).sink_parquet(...)` on the streaming engine:
  the `extract_between` namespace (a plugin) against `str.extract_all`, and against
  `extract_all` called from `map_batches` (the namespace before the plugin).
- In each engine, a floor: the same query writing each row's length, no extraction at all
  (the dataset read, a small column written); for polars a second: the titles, extracted
  beforehand into parquet files of their own, read and written (the answer's own cost).

The dataset: DOCS generated documents of ~2 KB (~25 `<title>` spans each, as the column
bench's dense set), written as FILES parquet files.

Usage: python python/benches/engines.py   (ROUNDS=5 DOCS=100000 FILES=4 to change; ONLY=polars
or ONLY=duckdb for one engine's cases)
"""

from __future__ import annotations

import json
import os
import random
import re
import statistics
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from support import document  # noqa: E402

ROUNDS = int(os.environ.get("ROUNDS", "5"))
DOCS = int(os.environ.get("DOCS", "100000"))
FILES = int(os.environ.get("FILES", "4"))
PATTERN = r"(?s)<title>(.*?)</title>"

CASES = {
    "DuckDB: extract_between_all (native extension)": "duckdb-ours",
    "DuckDB: extract_between_all (Python functions)": "duckdb-python",
    "DuckDB: regexp_extract_all": "duckdb-regexp",
    "DuckDB: each row's length, no extraction (floor)": "duckdb-floor",
    "DuckDB: the answer alone, read and written (floor)": "duckdb-answer-floor",
    "DuckDB first: extract_between_first (native extension)": "duckdb-first-ours",
    "DuckDB first: extract_between_first (Python functions)": "duckdb-first-python",
    "DuckDB first: regexp_extract": "duckdb-first-regexp",
    "polars streaming: .extract_between.all (plugin)": "polars-ours",
    "polars streaming: extract_all under map_batches": "polars-map-batches",
    "polars streaming: str.extract_all": "polars-regexp",
    "polars streaming: each row's length, no extraction (floor)": "polars-floor",
    "polars streaming: the answer alone, read and written (floor)": "polars-answer-floor",
}


def run_case(case: str, data: str, out: str) -> float:
    """Runs one case in this process; answers the query's seconds."""
    if case.startswith("duckdb"):
        import duckdb

        import extract_between.duckdb

        if case.endswith("python"):
            con = duckdb.connect()
            extract_between.duckdb.register(con, native=False)
        else:
            con = extract_between.duckdb.connect()
        source = f"'{data}/*.parquet'"
        expr = {
            "duckdb-ours": "extract_between_all(html, '<title>', '</title>')",
            "duckdb-python": "extract_between_all(html, '<title>', '</title>')",
            "duckdb-regexp": f"regexp_extract_all(html, '{PATTERN}', 1)",
            "duckdb-first-ours": "extract_between_first(html, '<title>', '</title>')",
            "duckdb-first-python": "extract_between_first(html, '<title>', '</title>')",
            "duckdb-first-regexp": f"regexp_extract(html, '{PATTERN}', 1)",
            "duckdb-floor": "length(html)",
            "duckdb-answer-floor": "titles",
        }[case]
        if case == "duckdb-answer-floor":
            source = f"'{data}-answers/*.parquet'"
        began = time.perf_counter()
        con.execute(f"COPY (SELECT {expr} AS titles FROM {source}) TO '{out}' (FORMAT parquet)")
        return time.perf_counter() - began
    import polars as pl

    if case == "polars-ours":
        import extract_between.polars  # noqa: F401

        expr = pl.col("html").extract_between.all("<title>", "</title>")
    elif case == "polars-map-batches":
        import extract_between as eb

        # What the namespace was before the plugin: a Python function on every batch.
        expr = pl.col("html").map_batches(
            lambda s: pl.Series(eb.extract_all(s, "<title>", "</title>")),
            return_dtype=pl.List(pl.String),
            is_elementwise=True,
        )
    elif case == "polars-floor":
        expr = pl.col("html").str.len_bytes()
    elif case == "polars-answer-floor":
        # The titles, already extracted into a dataset of their own: what reading and
        # writing the answer costs when nothing is scanned.
        began = time.perf_counter()
        pl.scan_parquet(f"{data}-answers/*.parquet").select("titles").sink_parquet(out)
        return time.perf_counter() - began
    else:
        expr = pl.col("html").str.extract_all(PATTERN.replace("(.*?)", ".*?"))
    began = time.perf_counter()
    pl.scan_parquet(f"{data}/*.parquet").select(expr.alias("titles")).sink_parquet(out)
    return time.perf_counter() - began


def child(case: str, data: str, out: str) -> None:
    seconds = run_case(case, data, out)
    # VmHWM, not ru_maxrss: Linux carries ru_maxrss over an exec from the forking parent.
    with open("/proc/self/status") as status:
        peak_kib = next(int(line.split()[1]) for line in status if line.startswith("VmHWM:"))
    print(json.dumps({"seconds": seconds, "peak_bytes": peak_kib * 1024}))


def measure(case: str, data: str, work: str) -> tuple[float, int]:
    times, peaks = [], []
    for i in range(ROUNDS):
        out = os.path.join(work, f"{case}-{i}.parquet")
        done = subprocess.run(
            [sys.executable, __file__, "--case", case, data, out], check=True, capture_output=True, text=True
        )
        figures = json.loads(done.stdout.strip().splitlines()[-1])
        times.append(figures["seconds"])
        peaks.append(figures["peak_bytes"])
        os.remove(out)
    return statistics.median(times), max(peaks)


def dataset(path: str) -> int:
    import pyarrow as pa
    import pyarrow.parquet as pq

    rng = random.Random(11)
    per_file = DOCS // FILES
    size = 0
    for f in range(FILES):
        docs = [document(rng, 25, "<title>", "</title>", 30) for _ in range(per_file)]
        table = pa.table({"html": pa.array(docs, pa.string())})
        size += table.nbytes
        pq.write_table(table, os.path.join(path, f"part-{f}.parquet"))
        titles = pa.table({"titles": pa.array([re.findall(PATTERN, d) for d in docs], pa.list_(pa.string()))})
        os.makedirs(f"{path}-answers", exist_ok=True)
        pq.write_table(titles, os.path.join(f"{path}-answers", f"part-{f}.parquet"))
    return size


def same_answers(data: str, work: str, only: str) -> None:
    """Every case answers the same titles as re.findall, row for row."""
    import pyarrow.parquet as pq

    html = pq.read_table(data)["html"].to_pylist()
    want = [re.findall(PATTERN, h) for h in html]
    for case in CASES.values():
        if case.endswith("floor") or not case.startswith(only):
            continue
        out = os.path.join(work, f"check-{case}.parquet")
        subprocess.run([sys.executable, __file__, "--case", case, data, out], check=True, capture_output=True)
        got = pq.read_table(out)["titles"].to_pylist()
        if "first" in case:
            want_rows = [w[:1] for w in want]
            got = [[] if g in (None, "") else [g] for g in got]
        else:
            want_rows = want
        if case == "polars-regexp":
            # polars' extract_all answers whole matches, markers included (no group).
            got = [[m[len("<title>") : -len("</title>")] for m in row] for row in got]
        assert sorted(map(tuple, got)) == sorted(map(tuple, want_rows)), case
        os.remove(out)


def main() -> None:
    import duckdb
    import polars as pl

    print(f"Python {sys.version.split()[0]}, polars {pl.__version__}, DuckDB {duckdb.__version__}")
    with tempfile.TemporaryDirectory() as work:
        data = os.path.join(work, "pages")
        os.mkdir(data)
        size = dataset(data)
        only = os.environ.get("ONLY", "")
        same_answers(data, work, only)
        results = {name: measure(case, data, work) for name, case in CASES.items() if case.startswith(only)}
    print(f"\n{DOCS:,} dense documents in {FILES} parquet files ({size / 1e6:.0f} MB of text), median of {ROUNDS} runs")
    print("| query | seconds | peak RSS | RSS / dataset | the engine's regex / this |")
    print("|---|---|---|---|---|")
    for name, (seconds, peak) in results.items():
        engine = name.split(":")[0]
        regex = next(t for n, (t, _) in results.items() if n.split(":")[0] == engine and CASES[n].endswith("regexp"))
        print(f"| {name} | {seconds:.3f} | {peak / 1e6:.0f} MB | {peak / size:.2f} | {regex / seconds:.2f}x |")


if __name__ == "__main__":
    if len(sys.argv) == 5 and sys.argv[1] == "--case":
        child(*sys.argv[2:])
    else:
        main()
