"""Layers built with dtype=bfloat16, as PyTorch's: every floating parameter and buffer is bfloat16
(NumPy has no bfloat16: the values are drawn in float32 and converted) and the layer computes in
it; normalizations without affine parameters take bfloat16 input too."""
import numpy as np
import pytest

import glassgrad as torch
import glassgrad.nn.functional as F
from glassgrad import nn

BF16 = torch.bfloat16
LAYERS = [(lambda: nn.Linear(3, 4, dtype=BF16), (2, 3)), (lambda: nn.Conv1d(2, 3, 3, dtype=BF16), (1, 2, 6)),
          (lambda: nn.Conv2d(2, 3, 3, dtype=BF16), (1, 2, 5, 5)), (lambda: nn.ConvTranspose2d(2, 3, 3, dtype=BF16), (1, 2, 4, 4)),
          (lambda: nn.LayerNorm(4, dtype=BF16), (2, 4)), (lambda: nn.GroupNorm(2, 4, dtype=BF16), (2, 4, 3)),
          (lambda: nn.BatchNorm1d(3, dtype=BF16).eval(), (4, 3)), (lambda: nn.InstanceNorm1d(3, affine=True, dtype=BF16), (2, 3, 5)),
          (lambda: nn.Embedding(5, 3, dtype=BF16), None), (lambda: nn.MultiheadAttention(4, 2, dtype=BF16), "mha"),
          (lambda: nn.Bilinear(3, 2, 4, dtype=BF16), "bilinear")]


@pytest.mark.parametrize("build, shape", LAYERS)
def test_bfloat16_layers_hold_and_compute_bfloat16(build, shape):
    m = build()
    tensors = list(m.parameters()) + [b for b in m.buffers() if b.is_floating_point()]
    assert tensors and all(t.dtype == BF16 for t in tensors)
    if shape is None:
        y = m(torch.tensor([[0, 3], [4, 1]]))
    elif shape == "mha":
        q = torch.ones(3, 2, 4, dtype=BF16)
        y = m(q, q, q)[0]
    elif shape == "bilinear":
        y = m(torch.ones(2, 3, dtype=BF16), torch.ones(2, 2, dtype=BF16))
    else:
        y = m(torch.ones(*shape, dtype=BF16))
    assert y.dtype == BF16


def test_linear_bfloat16_values_are_its_float32_draw_rounded():
    torch.manual_seed(0)
    wide = nn.Linear(3, 4)
    torch.manual_seed(0)
    narrow = nn.Linear(3, 4, dtype=BF16)
    np.testing.assert_array_equal(narrow.weight.detach().float().numpy(), wide.weight.detach().to(BF16).float().numpy())


def test_normalizations_without_affine_take_bfloat16_input():
    x = torch.arange(30.0).reshape(2, 3, 5).to(BF16)
    assert F.instance_norm(x).dtype == BF16 and F.batch_norm(x, None, None, training=True).dtype == BF16
    # each row of 5 evenly spaced values normalizes to the same 5 values (PyTorch: 25.453 in float)
    assert float(F.instance_norm(x).float().abs().sum()) == pytest.approx(25.45, abs=0.05)
