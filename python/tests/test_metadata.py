"""What a user and an index read of the installed distribution: its version (the
workspace's, one for every artifact), its license as an SPDX expression with the license
texts in the dist-info, and the classifiers an index filters on."""

import importlib.metadata
import pathlib
import re

import pytest

import extract_between

WORKSPACE = pathlib.Path(__file__).resolve().parents[2]


def workspace_version() -> str:
    """`[workspace.package] version` of the root Cargo.toml (read by pattern: tomllib is
    3.11's, and the suite runs from 3.10)."""
    text = (WORKSPACE / "Cargo.toml").read_text()
    section = text.split("[workspace.package]", 1)[1]
    found = re.search(r'^version = "([^"]+)"', section, re.MULTILINE)
    assert found, "no version in [workspace.package]"
    return found.group(1)


def test_version_is_the_workspaces() -> None:
    assert extract_between.__version__ == workspace_version()
    assert importlib.metadata.version("extract-between") == workspace_version()


def test_the_license_is_an_spdx_expression_with_its_texts_in_the_dist_info() -> None:
    meta = importlib.metadata.metadata("extract-between")
    assert meta["License-Expression"] == "MIT OR Apache-2.0"
    files = importlib.metadata.files("extract-between") or []
    names = {pathlib.PurePath(str(f)).name for f in files if ".dist-info" in str(f)}
    assert {"LICENSE-MIT", "LICENSE-APACHE"} <= names, sorted(names)
    for f in files:
        if pathlib.PurePath(str(f)).name == "LICENSE-MIT":
            assert "Permission is hereby granted" in f.read_text()


@pytest.mark.parametrize(
    "classifier",
    [
        "Programming Language :: Python :: 3.10",
        "Programming Language :: Python :: 3.13",
        "Operating System :: POSIX :: Linux",
        "Typing :: Typed",
    ],
)
def test_classifiers_an_index_filters_on(classifier: str) -> None:
    assert classifier in importlib.metadata.metadata("extract-between").get_all("Classifier")


def test_the_pypi_page_has_no_link_that_only_works_in_the_repository():
    readme = pathlib.Path(__file__).resolve().parent.parent / "README.md"
    text = re.sub(r"```.*?```", "", readme.read_text(encoding="utf-8"), flags=re.S)
    relative = [t for t in re.findall(r"\]\(([^)\s]+)\)", text) if not re.match(r"^[a-z][a-z0-9+.-]*:", t) and not t.startswith("#")]
    assert relative == [], f"python/README.md is the PyPI page: make these links absolute: {relative}"
    assert './python[' not in text, "PyPI readers install by the package's name"
