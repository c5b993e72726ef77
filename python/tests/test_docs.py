"""The examples in the native module's docstrings run (pytest's doctest mode collects the
Python modules; the native functions and classes are not modules it can collect)."""

import doctest

import pytest

import extract_between as eb

NATIVE = [eb.extract, eb.run_json, eb.finditer, eb.Extraction, eb.Match, eb.Scanner, eb.Scanner.feed, eb.Scanner.finish, eb.MatchIter]


@pytest.mark.parametrize("item", NATIVE, ids=lambda item: item.__qualname__)
def test_native_docstring_examples_run(item):
    test = doctest.DocTestParser().get_doctest(item.__doc__ or "", {}, item.__qualname__, None, 0)
    assert test.examples, f"{item.__qualname__} has no example"
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS)
    runner.run(test)
    assert runner.failures == 0
