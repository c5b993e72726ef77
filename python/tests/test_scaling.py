"""The recipes of docs/SCALING.md for DuckDB and Ray Data, run as written on a small parquet
dataset (Ray only where it is installed; Spark's recipe is test_spark.py)."""

from __future__ import annotations

import importlib.util

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

import extract_between as eb


@pytest.fixture()
def pages(tmp_path):
    path = tmp_path / "pages"
    path.mkdir()
    for part in range(3):
        rows = [f"<html><title>t{part}-{i}</title></html>" if i % 10 else "<p>none</p>" for i in range(100)]
        pq.write_table(pa.table({"html": rows}), path / f"part-{part}.parquet")
    return path


def test_the_duckdb_recipe(pages):
    import duckdb

    con = duckdb.connect()
    html = con.sql(f"select html from '{pages}/*.parquet'")
    titles = pa.table({"title": pa.array(eb.extract_first(html, "<title>", "</title>"))})
    con.register("titles", titles)
    assert con.sql("select count(*) from titles where title is not null").fetchall() == [(270,)]


@pytest.mark.skipif(importlib.util.find_spec("ray") is None, reason="ray is not installed")
def test_the_ray_recipe(pages, tmp_path):
    import ray

    def titles(batch: pa.Table) -> pa.Table:
        return batch.append_column("title", pa.array(eb.extract_first(batch["html"], "<title>", "</title>")))

    ray.init(num_cpus=2, include_dashboard=False, ignore_reinit_error=True)
    try:
        out = tmp_path / "titles"
        ray.data.read_parquet(str(pages)).map_batches(titles, batch_format="pyarrow").write_parquet(str(out))
        table = pq.read_table(out)
        assert table.num_rows == 300
        assert sum(t is not None for t in table["title"].to_pylist()) == 270
    finally:
        ray.shutdown()
