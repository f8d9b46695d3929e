"""undefined_gradients_script.py run with torch and with glassgrad: the same records (None where
PyTorch's gradient is undefined, zeros where it materializes them). Skipped without torch."""
import pytest

import glassgrad as gg
from undefined_gradients_script import custom_function_record, hook_record, materialize_record, norm_record

torch = pytest.importorskip("torch")


@pytest.mark.parametrize("record", [custom_function_record, norm_record, materialize_record, hook_record])
def test_matches_torch(record):
    assert record(gg) == record(torch)
