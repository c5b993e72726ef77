"""A Spark standalone cluster on this machine, as docs/SCALING.md's cluster recipe runs one: a
master and two workers started from pyspark's own `spark-class` (each its own JVM), and a job
submitted with `spark-submit --jars` (the native functions) and a venv packed by venv-pack
with `--archives` (the Python functions' executors). Every row of the 200,000-document
dataset is checked against `extract`, on both engines."""

from __future__ import annotations

import glob
import os
import re
import shutil
import subprocess
import sys
import sysconfig
import textwrap
import time

import pytest

import extract_between as eb

from spark_support import REQUIRE_SPARK, spark_document, spark_missing

JOB = textwrap.dedent(
    """
    import sys
    from pyspark.sql import SparkSession
    from extract_between import spark as eb_spark

    source, out = sys.argv[1:3]
    spark = SparkSession.builder.appName("extract-between-cluster-test").getOrCreate()
    assert eb_spark._native_session() is not None, "the session has no native functions"
    df = spark.read.parquet(source)
    df.select(
        "id",
        eb_spark.extract_all("html", "<b>", "</b>", on_unclosed="partial").alias("native"),
        eb_spark._arrow_extract_all("html", "<b>", "</b>", on_unclosed="partial").alias("udf"),
        eb_spark.extract_first("html", "<title>", "</title>").alias("title"),
    ).write.parquet(out)
    executors = spark.sparkContext._jsc.sc().getExecutorMemoryStatus().size() - 1
    print("executors:", executors)
    spark.stop()
    """
)


def wait_for(path: str, pattern: str, process: subprocess.Popen, within: float = 90) -> re.Match:
    """Polls the log at `path` until a line matches `pattern`."""
    deadline = time.monotonic() + within
    while time.monotonic() < deadline:
        with open(path, errors="replace") as f:
            found = re.search(pattern, f.read())
        if found:
            return found
        assert process.poll() is None, open(path, errors="replace").read()[-3000:]
        time.sleep(0.2)
    raise AssertionError(f"never logged {pattern!r}: {open(path, errors='replace').read()[-3000:]}")


def _jar_missing():
    """Why the job cannot have the native functions, or None: a build of the package
    without the Spark jar (a development install: `bash spark/build.sh` makes it)."""
    from extract_between.spark import jar_path

    try:
        jar_path()
    except FileNotFoundError:
        return "the Spark jar is not in this build (bash spark/build.sh)"
    return None


@pytest.fixture
def cluster(tmp_path):
    """A master and two workers of one core each; yields the master's URL."""
    reason = spark_missing() or _jar_missing()
    if reason:
        if REQUIRE_SPARK:
            pytest.fail(f"EXTRACT_BETWEEN_REQUIRE_SPARK is set but {reason}")
        pytest.skip(f"Spark test skipped: {reason}")
    import pyspark

    spark_class = os.path.join(os.path.dirname(pyspark.__file__), "bin", "spark-class")
    env = dict(os.environ, SPARK_LOG_DIR=str(tmp_path), SPARK_WORKER_DIR=str(tmp_path / "work"))
    processes = []

    def start(name: str, *args: str) -> tuple[subprocess.Popen, str]:
        log = str(tmp_path / f"{name}.log")
        with open(log, "w") as out:
            p = subprocess.Popen([spark_class, *args], stdout=out, stderr=subprocess.STDOUT, env=env)
        processes.append(p)
        return p, log

    try:
        # Port 0: the kernel picks; the master logs the one it got.
        master, log = start(
            "master", "org.apache.spark.deploy.master.Master", "--host", "127.0.0.1", "--port", "0", "--webui-port", "0"
        )
        url = wait_for(log, r"Starting Spark master at (spark://127\.0\.0\.1:\d+)", master).group(1)
        for i in range(2):
            worker, wlog = start(
                f"worker-{i}",
                "org.apache.spark.deploy.worker.Worker",
                url,
                "--host", "127.0.0.1", "--port", "0", "--webui-port", "0",
                "--cores", "1", "--memory", "1g", "--work-dir", str(tmp_path / f"work-{i}"),
            )
            wait_for(wlog, r"Successfully registered with master", worker)
        yield url
    finally:
        for p in processes:
            p.terminate()
        for p in processes:
            try:
                p.wait(timeout=20)
            except subprocess.TimeoutExpired:
                p.kill()


def packed_venv(tmp_path) -> str:
    """A venv holding this installed package (copied), pyarrow and pandas, packed by
    venv-pack: what the executors' Python workers run."""
    venv = tmp_path / "job-env"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    pip = [str(venv / "bin" / "python"), "-m", "pip", "install", "-q"]
    subprocess.run([*pip, "pyarrow>=15", "pandas>=2.2,<3", "venv-pack>=0.2"], check=True)
    site = subprocess.run(
        [str(venv / "bin" / "python"), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
        check=True, capture_output=True, text=True,
    ).stdout.strip()
    wheel = os.environ.get("EXTRACT_BETWEEN_PYTHON_WHEEL")
    if wheel:
        subprocess.run([*pip, wheel], check=True)
    else:
        from importlib.metadata import requires

        needs = [r for r in requires("extract-between") or [] if "extra ==" not in r]
        if needs:
            subprocess.run([*pip, *needs], check=True)
        # The package this test runs, as installed here (a development install too), with its
        # metadata (`__version__` reads it).
        package = os.path.dirname(eb.__file__)
        shutil.copytree(package, os.path.join(site, "extract_between"), ignore=shutil.ignore_patterns("__pycache__"))
        here = sysconfig.get_paths()["purelib"]
        for info in glob.glob(os.path.join(here, "extract_between-*.dist-info")):
            shutil.copytree(info, os.path.join(site, os.path.basename(info)))
    archive = str(tmp_path / "job-env.tar.gz")
    subprocess.run([str(venv / "bin" / "venv-pack"), "-p", str(venv), "-o", archive, "-q"], check=True)
    return archive


def test_a_standalone_cluster_runs_both_engines_on_every_row(cluster, dataset, tmp_path):
    import pyarrow.parquet as pq
    import pyspark

    from extract_between.spark import EXTENSIONS, jar_path

    archive = packed_venv(tmp_path)
    job = tmp_path / "job.py"
    job.write_text(JOB)
    out = str(tmp_path / "out")
    submit = os.path.join(os.path.dirname(pyspark.__file__), "bin", "spark-submit")
    env = dict(os.environ)
    env.pop("PYSPARK_PYTHON", None)
    run = subprocess.run(
        [
            submit,
            "--master", cluster,
            "--jars", jar_path(),
            "--conf", f"spark.sql.extensions={EXTENSIONS}",
            "--archives", f"{archive}#env",
            "--conf", "spark.pyspark.python=./env/bin/python",
            "--conf", f"spark.pyspark.driver.python={sys.executable}",
            "--conf", "spark.executor.memory=700m",
            "--conf", "spark.ui.enabled=false",
            str(job), dataset, out,
        ],
        capture_output=True, text=True, env=env, timeout=600,
    )
    assert run.returncode == 0, run.stdout[-2000:] + run.stderr[-6000:]
    assert "executors: 2" in run.stdout, run.stdout[-2000:]
    rows = pq.read_table(out).to_pylist()
    assert len(rows) == 200_000

    for row in rows:
        html = spark_document(row["id"])
        try:
            want = eb.extract(html, "<b>", "</b>", 1000).matches
        except eb.UnclosedStartMarker as e:
            want = e.matches
        assert row["native"] == want, row["id"]
        assert row["udf"] == want, row["id"]
        assert row["title"] == f"t{row['id']}", row["id"]
