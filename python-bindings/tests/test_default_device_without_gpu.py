"""set_default_device('cuda') and set_default_tensor_type('torch.cuda.FloatTensor') on a machine
without a usable GPU set the default all the same, as PyTorch's do; the tensors made
afterwards raise (glassgrad's DeviceError, a RuntimeError as PyTorch's 'Found no NVIDIA
driver'). d2l-pytorch's RNN notebooks call set_default_tensor_type('torch.cuda.FloatTensor') at
their top, and run on until a tensor is made."""
import warnings

import pytest

import glassgrad as gg

pytestmark = pytest.mark.skipif(gg.cuda.is_available(), reason="checks the machine without a GPU")


@pytest.fixture(autouse=True)
def _restore_defaults():
    dtype = gg.get_default_dtype()
    yield
    gg.set_default_device(None)
    gg.set_default_dtype(dtype)


def test_set_default_device_cuda_defers_the_error_to_tensor_creation():
    gg.set_default_device("cuda")
    assert gg.get_default_device().type == "cuda"
    with pytest.raises(RuntimeError, match="cannot be used") as info:
        gg.zeros(2)
    assert isinstance(info.value, gg.DeviceError)
    gg.set_default_device("cpu")
    assert gg.zeros(2).device.type == "cpu"


def test_set_default_tensor_type_cuda_defers_too():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # its deprecation warning
        gg.set_default_tensor_type("torch.cuda.FloatTensor")
    with pytest.raises(gg.DeviceError):
        gg.ones(3)
    gg.set_default_device(None)
    assert gg.ones(3).device.type == "cpu"


def test_matches_pytorch():
    torch = pytest.importorskip("torch")
    if torch.cuda.is_available():
        pytest.skip("PyTorch sees a GPU here")
    torch.set_default_device("cuda")
    try:
        with pytest.raises(RuntimeError):
            torch.zeros(2)
    finally:
        torch.set_default_device(None)
