"""Errors speak the user's own figures and layout: an over-limit step quotes the limit as it was
given ("64MB") beside its size in MiB, and channels-last images given to a Conv2D get the
permute that fixes them, not a differently built layer."""
import numpy as np
import pytest

import glassgrad as gg


@pytest.fixture
def limit():
    yield gg.set_memory_limit
    gg.set_memory_limit(None)


@pytest.mark.parametrize("given,mib", [("64KB", "62.50 KiB"), ("1 MB", "976.56 KiB"), ("100KiB", "100.00 KiB")])
def test_an_over_limit_step_quotes_the_limit_as_given(limit, given, mib):
    gg.manual_seed(0)
    model = gg.Sequential(gg.Conv2D(1, 8, 3), gg.ReLU(), gg.Flatten(), gg.Linear(8 * 30 * 30, 10))
    x = gg.tensor(np.ones((64, 1, 32, 32), np.float32))
    y = gg.tensor(np.zeros(64, np.int64))
    limit(given)
    with pytest.raises(gg.OutOfMemoryError) as e:
        gg.cross_entropy(model(x), y).item()
    assert f'glassgrad.set_memory_limit("{given}") = {mib}' in str(e.value), str(e.value)


def test_a_limit_given_in_bytes_is_quoted_in_bytes(limit):
    limit(4096)
    with pytest.raises(gg.OutOfMemoryError) as e:
        gg.zeros(1 << 20).numpy()
    assert "4.00 KiB" in str(e.value) and "set_memory_limit(\"4096" not in str(e.value)


@pytest.mark.parametrize("channels", [1, 3])
def test_channels_last_images_get_the_permute_that_fixes_them(channels):
    conv = gg.Conv2D(channels, 4, 3)
    x = gg.tensor(np.ones((2, 9, 9, channels), np.float32))  # (N, H, W, C), as NumPy and PIL hold images
    with pytest.raises(gg.ShapeError) as e:
        conv(x)
    msg = str(e.value)
    assert "channels-last" in msg and "x.permute(0, 3, 1, 2)" in msg, msg
    assert conv(x.permute(0, 3, 1, 2)).shape == (2, 4, 7, 7)


def test_a_plain_channel_mismatch_still_suggests_the_layer_that_fits():
    with pytest.raises(gg.ShapeError, match=r"Conv2D\(3, 4, 3\)"):
        gg.Conv2D(1, 4, 3)(gg.tensor(np.ones((2, 3, 9, 9), np.float32)))
