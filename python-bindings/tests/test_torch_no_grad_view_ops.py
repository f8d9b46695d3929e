"""no_grad_views_script.py run with torch and with glassgrad: the same record. Skipped without torch."""
import pytest

import glassgrad as gg
from no_grad_views_script import record

torch = pytest.importorskip("torch")


def test_matches_torch():
    assert record(gg) == record(torch)
