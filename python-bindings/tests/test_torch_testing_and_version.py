"""torch.testing.assert_close / assert_allclose, torch.version and torch.cuda's current-device
names: glassgrad's against PyTorch's (the same pass/fail and the same default tolerances)."""
import numpy as np
import warnings
import pytest

import glassgrad as gg

torch = pytest.importorskip("torch")


def _outcome(fn, *args, **kwargs):
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", FutureWarning)
            fn(*args, **kwargs)
    except AssertionError:
        return "assert"
    except (TypeError, ValueError) as e:
        return type(e).__name__
    return "ok"


CASES = [
    # (values, other values, dtype): just inside and just outside each dtype's default tolerance
    ([1.0, 2.0, 3.0], [1.0, 2.0 + 1e-6, 3.0], "float32"),
    ([1.0, 2.0, 3.0], [1.0, 2.0 + 1e-4, 3.0], "float32"),
    ([1.0, 2.0, 3.0], [1.0, 2.0 + 1e-7, 3.0], "float64"),
    ([1.0, 2.0, 3.0], [1.0, 2.0 + 1e-5, 3.0], "float64"),
    ([100.0, 2.0], [100.1, 2.0], "float16"),
    ([100.0, 2.0], [101.0, 2.0], "bfloat16"),
    ([100.0, 2.0], [104.0, 2.0], "bfloat16"),
    ([1, 2, 3], [1, 2, 3], "int64"),
    ([1, 2, 3], [1, 2, 4], "int64"),
    ([0.0, float("nan")], [0.0, float("nan")], "float32"),
    ([float("inf"), 1.0], [float("inf"), 1.0], "float32"),
    ([float("inf"), 1.0], [float("-inf"), 1.0], "float32"),
]


@pytest.mark.parametrize("a,b,dtype", CASES)
def test_assert_close_passes_and_fails_as_pytorch(a, b, dtype):
    ta, tb = torch.tensor(a, dtype=getattr(torch, dtype)), torch.tensor(b, dtype=getattr(torch, dtype))
    ga, gb = gg.tensor(a).to(getattr(gg, dtype)), gg.tensor(b).to(getattr(gg, dtype))
    assert _outcome(gg.testing.assert_close, ga, gb) == _outcome(torch.testing.assert_close, ta, tb)
    assert _outcome(gg.testing.assert_close, ga, gb, equal_nan=True) == \
        _outcome(torch.testing.assert_close, ta, tb, equal_nan=True)
    assert _outcome(gg.testing.assert_allclose, ga, gb) == _outcome(torch.testing.assert_allclose, ta, tb)


def test_assert_close_checks_dtype_shape_and_both_tolerances():
    a32, a64 = gg.tensor([1.0, 2.0]), gg.tensor([1.0, 2.0], dtype=gg.float64)
    with pytest.raises(AssertionError, match="dtype"):
        gg.testing.assert_close(a32, a64)
    gg.testing.assert_close(a32, a64, check_dtype=False)
    with pytest.raises(AssertionError, match="shape"):
        gg.testing.assert_close(a32, gg.tensor([1.0, 2.0, 3.0]))
    with pytest.raises(ValueError, match="rtol.*atol"):
        gg.testing.assert_close(a32, a32, rtol=1e-3)
    gg.testing.assert_close(a32, a32 + 0.01, rtol=0.0, atol=0.02)
    with pytest.raises(TypeError, match="fix"):
        gg.testing.assert_close(a32, np.array([1.0, 2.0], dtype=np.float32))
    with pytest.raises(AssertionError, match="custom"):
        gg.testing.assert_close(a32, a32 + 1, msg="custom")


def test_assert_close_message_names_the_worst_elements_as_pytorch():
    a, b = [1.0, 2.0, 3.0], [1.0, 2.5, 3.0]
    with pytest.raises(AssertionError) as ours:
        gg.testing.assert_close(gg.tensor(a), gg.tensor(b))
    with pytest.raises(AssertionError) as theirs:
        torch.testing.assert_close(torch.tensor(a), torch.tensor(b))
    assert str(ours.value) == str(theirs.value)


def test_assert_close_on_scalars_sequences_and_mappings():
    gg.testing.assert_close(1.0, 1.0 + 1e-9)
    with pytest.raises(AssertionError, match="types do not match"):
        gg.testing.assert_close(1, 1.0)
    gg.testing.assert_close([gg.tensor([1.0]), {"w": gg.tensor([2.0])}], [gg.tensor([1.0]), {"w": gg.tensor([2.0])}])
    with pytest.raises(AssertionError, match=r"item \[1\]\['w'\]"):
        gg.testing.assert_close([gg.tensor([1.0]), {"w": gg.tensor([2.0])}], [gg.tensor([1.0]), {"w": gg.tensor([3.0])}])


def test_assert_allclose_warns_and_takes_lists():
    with pytest.warns(FutureWarning, match="assert_close"):
        gg.testing.assert_allclose(gg.tensor([1.0, 2.0]), [1.0, 2.0 + 1e-6])


def test_version_module():
    from glassgrad import version
    assert version.__version__ == "2.14.1"  # the PyTorch release followed; glassgrad's own is gg.__version__
    assert version.cuda == (gg._C.cuda_built_version() or None)
    assert isinstance(version.git_version, str) and version.git_version
    assert version.hip is None
    import glassgrad.torch as gtorch  # `print(torch.__version__)`, the first cell of many courses
    assert gtorch.__version__ == version.__version__ and isinstance(gtorch.__version__, str)
    assert version.rocm is None and version.xpu is None


def test_cuda_current_device_names_without_a_gpu():
    if gg.cuda.is_available():
        pytest.skip("this test covers a machine without a usable GPU; test_cuda_memory covers the GPU")
    assert gg.cuda.current_device() == 0
    assert gg.cuda.is_bf16_supported() is False and torch.cuda.is_bf16_supported() is False
    gg.cuda.set_device(-1)                 # a negative index changes nothing, as PyTorch's
    gg.cuda.set_device(0)
    assert gg.cuda.current_device() == 0
    with pytest.raises(gg._C.DeviceError):
        gg.cuda.set_device(3)
    assert gg.cuda.memory_reserved() == torch.cuda.memory_reserved() == 0  # before CUDA is initialized
    # get_device_name / get_device_capability raise a RuntimeError without a GPU, as PyTorch's
    for name in ("get_device_name", "get_device_capability"):
        with pytest.raises(gg._C.DeviceError, match="cannot be used"):
            getattr(gg.cuda, name)(0)
        with pytest.raises(RuntimeError):
            getattr(gg.cuda, name)()
