"""set_printoptions (torch.set_printoptions): precision, threshold/edgeitems, sci_mode, profiles."""
import numpy as np
import pytest

import glassgrad as gg


@pytest.fixture(autouse=True)
def default_profile():
    yield
    gg.set_printoptions(profile="default")


def test_precision_sci_mode_and_profiles():
    x = gg.tensor(np.array([1.23456789, 0.5, 123.5], np.float32))
    assert repr(x) == "tensor([  1.2346,   0.5000, 123.5000])"  # PyTorch's text
    gg.set_printoptions(precision=2)
    assert "1.23" in repr(x) and "1.2346" not in repr(x)
    gg.set_printoptions(precision=4, sci_mode=True)
    assert repr(x) == "tensor([1.2346e+00, 5.0000e-01, 1.2350e+02])"
    gg.set_printoptions(sci_mode=False, precision=3)
    assert repr(x) == "tensor([  1.235,   0.500, 123.500])"
    gg.set_printoptions(profile="short")
    assert "1.23" in repr(x)
    with pytest.raises(ValueError, match="unknown profile"):
        gg.set_printoptions(profile="long")


def test_threshold_and_edgeitems_summarize_long_tensors():
    assert "..." in repr(gg.arange(2000)) and "..." not in repr(gg.arange(1000))  # PyTorch's threshold
    gg.set_printoptions(threshold=10, edgeitems=2)
    assert repr(gg.arange(20)) == "tensor([ 0,  1,  ..., 18, 19])"
    gg.set_printoptions(profile="full")
    assert "..." not in repr(gg.arange(2000))
