"""What the Spark tests share beside their fixtures (conftest.py): whether Spark can run here,
and the documents of the generated dataset."""

import os

# Without Java or pyspark the Spark tests are skipped with the reason, unless
# EXTRACT_BETWEEN_REQUIRE_SPARK is set (`.ci/run` sets it); then the jar is required too.
REQUIRE_SPARK = bool(os.environ.get("EXTRACT_BETWEEN_REQUIRE_SPARK"))


def spark_missing():
    import shutil

    if shutil.which("java") is None:
        return "no java on PATH"
    try:
        import pyspark  # noqa: F401
        import pyarrow  # noqa: F401
    except ImportError as e:
        return f"no {e.name}"
    return None


def spark_document(i: int) -> str:
    spans = "".join(f"<b>{i}-{k}</b> filler text " for k in range(i % 7))
    if i % 50_000 == 49_999:
        return f"<title>t{i}</title> {spans} <b>unclosed"
    return f"<html><title>t{i}</title><body>{spans}</body></html>"
