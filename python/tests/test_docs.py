"""The examples in the native module's docstrings run (pytest's doctest mode collects the
Python modules; the native functions and classes are not modules it can collect)."""

import doctest
import pathlib

import pytest

import extract_between as eb

NATIVE = [
    eb.extract,
    eb.run_json,
    eb.finditer,
    eb.Extraction,
    eb.Match,
    eb.Scanner,
    eb.Scanner.feed,
    eb.Scanner.finish,
    eb.MatchIter,
    eb._native.Tags,
    eb.Tags.findall,
    eb.Tags.scanner,
    eb.TagScanner,
    eb.TagScanner.feed,
    eb.TagScanner.finish,
]


@pytest.mark.parametrize("item", NATIVE, ids=lambda item: item.__qualname__)
def test_native_docstring_examples_run(item):
    test = doctest.DocTestParser().get_doctest(item.__doc__ or "", {}, item.__qualname__, None, 0)
    assert test.examples, f"{item.__qualname__} has no example"
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS)
    runner.run(test)
    assert runner.failures == 0


def test_the_readmes_tag_recipes_run():
    """The recipes of python/README.md's section on tags, as doctests."""
    readme = pathlib.Path(__file__).resolve().parent.parent / "README.md"
    text = readme.read_text(encoding="utf-8")
    section = text[text.index("## Tags:") :]
    section = section[: section.index("\n## ", 1)]
    # A code fence ends an example's expected output, as a blank line does.
    section = "\n".join("" if line.startswith("```") else line for line in section.splitlines())
    test = doctest.DocTestParser().get_doctest(section, {}, "README tags", str(readme), 0)
    assert len(test.examples) >= 10
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS)
    runner.run(test)
    assert runner.failures == 0
