"""The examples in the engine's docstrings are run, so the documentation cannot rot."""

from __future__ import annotations

import doctest
import importlib

import pytest


@pytest.mark.parametrize("module", ["engine.position", "engine.moves", "engine.ids", "engine.match"])
def test_docstring_examples(module):
    result = doctest.testmod(importlib.import_module(module))
    assert result.attempted > 0 and result.failed == 0
