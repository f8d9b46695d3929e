"""The names older and course scripts use: torch.Tensor(*sizes) / Tensor(data), the typed
constructors (FloatTensor, cuda.FloatTensor, ...), x.new, x.type(torch.DoubleTensor),
set_default_dtype, the generator's state (manual_seed's return, initial_seed, get/set_rng_state),
the predicates (is_tensor, numel, ...), the constants, and set_float32_matmul_precision."""
import numpy as np
import pytest

import glassgrad as gg
import glassgrad.torch as torch


@pytest.fixture
def float64_default():
    gg.set_default_dtype(gg.float64)
    yield
    gg.set_default_dtype(gg.float32)


def test_legacy_tensor_constructor():
    assert torch.Tensor(2, 3).shape == (2, 3) and torch.Tensor(2, 3).dtype == gg.float32
    assert torch.Tensor(torch.Size([4])).shape == (4,)
    assert torch.Tensor().shape == (0,)
    t = torch.Tensor([1, 2])  # Python data takes the default float type, as torch.Tensor(data)
    assert t.dtype == gg.float32 and t.tolist() == [1.0, 2.0]
    # torch.Tensor is FloatTensor's alias: arrays become the default float type (a float64 array
    # fed to a float32 RNN, as a course's time-series notebook does); gg.tensor keeps their dtype.
    assert torch.Tensor(np.arange(3)).dtype == gg.float32 and torch.Tensor(np.arange(3)).tolist() == [0.0, 1.0, 2.0]
    assert torch.Tensor(np.ones((2, 1), np.float64)).dtype == gg.float32
    assert torch.Tensor(np.array([True, False])).tolist() == [1.0, 0.0]
    assert torch.Tensor(torch.ones(2, dtype=torch.float64)).dtype == gg.float64  # a tensor keeps its own
    assert gg.tensor(np.arange(3)).dtype == gg.int64
    np.testing.assert_array_equal(torch.Tensor(2, 2).numpy(), np.zeros((2, 2)))
    with pytest.raises(TypeError, match="data .* or sizes"):
        torch.Tensor([1.0], [2.0])


def test_typed_constructors_and_type_conversion():
    assert torch.IntTensor([1, 2]).dtype == gg.int32 and torch.HalfTensor(2).dtype == gg.float16
    assert torch.ShortTensor(1, 2).shape == (1, 2) and torch.CharTensor([1]).dtype == gg.int8
    x = torch.FloatTensor([[1.5, 2.5]])
    assert isinstance(x, torch.FloatTensor) and not isinstance(x, torch.DoubleTensor)
    assert not isinstance(x, torch.cuda.FloatTensor)
    y = x.type(torch.DoubleTensor)
    assert y.dtype == gg.float64 and y.tolist() == [[1.5, 2.5]]
    assert x.type() == "glassgrad.FloatTensor"
    assert x.new(2, 3).shape == (2, 3) and x.new(2, 3).dtype == gg.float32
    assert x.new([1, 2]).dtype == gg.float32 and x.new().shape == (0,)
    assert gg.clone(x).tolist() == x.tolist()



def test_type_of_the_tensor_class_converts_to_the_default_type():
    # `Tensor = torch.cuda.FloatTensor if cuda else torch.Tensor`, then `imgs.type(Tensor)`
    # (eriklindernoren/PyTorch-GAN's cyclegan): torch.Tensor names the default tensor type.
    torch_ = pytest.importorskip("torch")
    for make, ours in ((torch_.arange, torch.arange), (torch_.ones, torch.ones)):
        for dtype in ("int64", "float64", "float32"):
            theirs = make(3, dtype=getattr(torch_, dtype)).type(torch_.Tensor)
            mine = ours(3, dtype=getattr(torch, dtype)).type(torch.Tensor)
            assert mine.dtype == str(theirs.dtype).split(".")[1] and mine.tolist() == theirs.tolist()
    x = torch.ones(2)
    assert x.type(torch.Tensor) is x and x.type("torch.Tensor") is x  # already of that type, as PyTorch's
    assert torch.arange(2).type("glassgrad.Tensor").dtype == gg.float32


def test_type_of_the_tensor_class_follows_set_default_dtype(float64_default):
    assert torch.arange(2).type(torch.Tensor).dtype == gg.float64

def test_set_default_dtype_reaches_factories_data_and_layers(float64_default):
    assert gg.get_default_dtype() == gg.float64
    assert gg.tensor([1.0]).dtype == gg.float64 and gg.tensor([1]).dtype == gg.int64
    assert gg.zeros(2).dtype == gg.float64 and gg.randn(2).dtype == gg.float64 and gg.ones(1).dtype == gg.float64
    assert gg.arange(0.0, 1.0, 0.5).dtype == gg.float64 and gg.arange(3).dtype == gg.int64
    assert gg.nn.Linear(2, 3).weight.dtype == gg.float64 and gg.nn.Conv2d(1, 2, 3).weight.dtype == gg.float64
    assert gg.nn.LSTM(2, 3).weight_ih_l0.dtype == gg.float64
    assert torch.Tensor(2).dtype == gg.float64 and gg.tensor([1.0], dtype=float).dtype == gg.float64  # float: double
    with pytest.raises(TypeError, match="only floating-point types"):
        gg.set_default_dtype(gg.int64)


def test_default_dtype_is_float32_again_after_the_fixture():
    assert gg.get_default_dtype() == gg.float32 and gg.tensor([0.5]).dtype == gg.float32


def test_generator_state_round_trip():
    g = gg.manual_seed(5)
    assert g is gg.default_generator and gg.initial_seed() == 5 and g.initial_seed() == 5
    gg.randn(3)
    state = gg.get_rng_state()
    assert state.dtype == gg.uint8
    first = gg.randn(4).numpy()
    gg.set_rng_state(state)
    np.testing.assert_array_equal(gg.randn(4).numpy(), first)
    with pytest.raises(ValueError, match="not a state"):
        gg.set_rng_state(gg.tensor(np.zeros(3, np.uint8)))
    assert gg.seed() == gg.initial_seed()
    perm = gg.randperm(5, generator=gg.default_generator)
    assert sorted(perm.tolist()) == [0, 1, 2, 3, 4]


def test_predicates_constants_and_matmul_precision():
    x = gg.randn(2, 3)
    assert gg.is_tensor(x) and not gg.is_tensor(x.numpy()) and not gg.is_storage(x)
    assert gg.numel(x) == 6 and gg.is_floating_point(x) and not gg.is_floating_point(gg.arange(2))
    assert not gg.is_complex(x) and gg.is_nonzero(gg.tensor([2.0])) and not gg.is_nonzero(gg.tensor(0))
    with pytest.raises(RuntimeError, match="more than one value"):
        gg.is_nonzero(x)
    assert gg.typename(x) == "glassgrad.FloatTensor" and gg.typename(3) == "int"
    assert (gg.pi, gg.e, gg.inf) == (np.pi, np.e, np.inf) and np.isnan(gg.nan)
    assert gg.get_float32_matmul_precision() == "highest"
    gg.set_float32_matmul_precision("high")
    try:
        assert gg.get_float32_matmul_precision() == "high"
    finally:
        gg.set_float32_matmul_precision("highest")
    with pytest.raises(RuntimeError, match="invalid precision"):
        gg.set_float32_matmul_precision("low")
