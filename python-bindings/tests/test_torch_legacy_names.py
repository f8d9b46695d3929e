"""The legacy constructors and set_default_dtype against PyTorch: the dtype and shape each
expression gives in both libraries, under float32 and float64 defaults. Skipped when torch is not
importable (CI never installs it; tools/torch_differential.sh runs it)."""
import numpy as np
import pytest

import glassgrad as gg

torch = pytest.importorskip("torch")

EXPRESSIONS = [
    lambda m: m.Tensor(2, 3), lambda m: m.Tensor([1, 2]), lambda m: m.Tensor([[1.5]]), lambda m: m.Tensor(),
    lambda m: m.tensor([1.0]), lambda m: m.tensor([1]), lambda m: m.tensor(2.5), lambda m: m.zeros(2),
    lambda m: m.ones(1, 2), lambda m: m.randn(3), lambda m: m.rand(2), lambda m: m.arange(0.0, 1.0, 0.25),
    lambda m: m.arange(3), lambda m: m.linspace(0, 1, 5), lambda m: m.full((2,), 1.5), lambda m: m.eye(2),
    lambda m: m.nn.Linear(2, 3).weight, lambda m: m.nn.Conv2d(1, 2, 3).bias, lambda m: m.nn.Embedding(4, 2).weight,
    lambda m: m.FloatTensor(2), lambda m: m.LongTensor([1]), lambda m: m.IntTensor([1, 2]),
    lambda m: m.tensor([1.0]).new(2, 2), lambda m: m.tensor([1]).new([3, 4]),
    lambda m: m.tensor([1.0], dtype=float), lambda m: m.tensor([True]),
]


def _name(dt) -> str:
    return str(dt).replace("torch.", "").replace("glassgrad.", "")


@pytest.mark.parametrize("default", ["float32", "float64"])
@pytest.mark.parametrize("k", range(len(EXPRESSIONS)))
def test_dtype_and_shape_match_torch(default, k):
    gg.set_default_dtype(getattr(gg, default))
    torch.set_default_dtype(getattr(torch, default))
    try:
        ours, theirs = EXPRESSIONS[k](gg), EXPRESSIONS[k](torch)
        assert _name(ours.dtype) == _name(theirs.dtype)
        assert tuple(ours.shape) == tuple(theirs.shape)
    finally:
        gg.set_default_dtype(gg.float32)
        torch.set_default_dtype(torch.float32)


def test_rng_state_is_a_uint8_tensor_as_torch():
    assert _name(gg.get_rng_state().dtype) == _name(torch.get_rng_state().dtype) == "uint8"
    assert np.isclose(gg.pi, torch.pi) and gg.inf == torch.inf
