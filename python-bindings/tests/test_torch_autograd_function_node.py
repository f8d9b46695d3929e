"""The custom autograd.Function script of test_autograd_function_node.py run with torch and with
glassgrad: the same record. Skipped when torch is not importable."""
import pytest

import glassgrad as gg
from autograd_function_script import run

torch = pytest.importorskip("torch")


def test_custom_function_node_matches_torch():
    assert run(gg) == run(torch)
