"""The recipes of docs/SCALING.md for DuckDB (SQL), Ray Data and Dask, run as written on a
generated parquet dataset, every row checked against `extract` (Spark's recipe is
spark/tests/). Ray and Dask are in the test extra: CI runs them, never skips them."""

from __future__ import annotations

from typing import List, Optional

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

import extract_between as eb

START, END = "<title>", "</title>"


def expected_first(html: Optional[str]) -> Optional[str]:
    if html is None:
        return None
    found = eb.extract(html, START, END, 1).matches
    return found[0] if found else None


def page(part: int, i: int) -> Optional[str]:
    if i % 17 == 0:
        return None
    if i % 10 == 0:
        return "<p>none</p>"
    return f"<html><title>t{part}-{i} é 😀</title><title>second</title></html>"


@pytest.fixture()
def pages(tmp_path):
    path = tmp_path / "pages"
    path.mkdir()
    for part in range(3):
        rows = [page(part, i) for i in range(500)]
        pq.write_table(pa.table({"html": pa.array(rows, pa.string())}), path / f"part-{part}.parquet")
    return path


def all_rows(pages) -> List[Optional[str]]:
    return pq.read_table(pages)["html"].to_pylist()


def test_the_duckdb_recipe(pages):
    import extract_between.duckdb

    con = extract_between.duckdb.connect()
    rows = con.sql(
        f"SELECT html, extract_between_first(html, '<title>', '</title>') AS title FROM '{pages}/*.parquet'"
    ).fetchall()
    assert len(rows) == 1500
    assert all(title == expected_first(html) for html, title in rows)
    assert sum(title is not None for _, title in rows) == sum(expected_first(h) is not None for h in all_rows(pages))


def test_the_ray_recipe(pages, tmp_path):
    import ray

    def titles(batch: pa.Table) -> pa.Table:
        return batch.append_column("title", pa.array(eb.extract_first(batch["html"], "<title>", "</title>")))

    ray.init(num_cpus=2, include_dashboard=False, ignore_reinit_error=True, log_to_driver=False)
    try:
        out = tmp_path / "titles"
        ray.data.read_parquet(str(pages)).map_batches(titles, batch_format="pyarrow").write_parquet(str(out))
        table = pq.read_table(out)
    finally:
        ray.shutdown()
    assert table.num_rows == 1500
    for html, title in zip(table["html"].to_pylist(), table["title"].to_pylist()):
        assert title == expected_first(html), html


def test_the_dask_recipe(pages, tmp_path):
    import dask.dataframe as dd
    import pandas as pd

    def titles(part: pd.DataFrame) -> pd.DataFrame:
        found = pa.array(eb.extract_first(part["html"], "<title>", "</title>"))
        return part.assign(title=pd.Series(found.to_pandas(types_mapper=pd.ArrowDtype), index=part.index))

    out = tmp_path / "titles"
    dd.read_parquet(str(pages)).map_partitions(titles).to_parquet(str(out))
    table = pq.read_table(out)
    assert table.num_rows == 1500
    for html, title in zip(table["html"].to_pylist(), table["title"].to_pylist()):
        assert title == expected_first(html), html
