"""ATen-level torch names a ported script may call directly: the recurrent cells (rnn_tanh_cell,
rnn_relu_cell, lstm_cell, gru_cell), torch.convolution, grid_sampler and affine_grid_generator
with ATen's int modes, native_layer_norm, native_channel_shuffle, native_dropout and
nonzero_static, each against PyTorch's values and gradients (float64, odd sizes, random data)."""
import numpy as np
import pytest

import glassgrad as gg
import glassgrad.torch as gtorch
from torch_compare import compare

torch = pytest.importorskip("torch")
rng = np.random.default_rng(31)


@pytest.mark.parametrize("name,gates", [("rnn_tanh_cell", 1), ("rnn_relu_cell", 1), ("gru_cell", 3)])
@pytest.mark.parametrize("bias", [True, False])
def test_cells_match_torch(name, gates, bias):
    b, i, h = 3, 4, 5
    arrays = [rng.standard_normal((b, i)), rng.standard_normal((b, h)), rng.standard_normal((gates * h, i)),
              rng.standard_normal((gates * h, h)), rng.standard_normal(gates * h), rng.standard_normal(gates * h)]
    if not bias:
        arrays = arrays[:4]
    compare(getattr(gtorch, name), getattr(torch, name), arrays, tuple(range(len(arrays))))


@pytest.mark.parametrize("part", [0, 1])
def test_lstm_cell_matches_torch(part):
    b, i, h = 2, 3, 5
    arrays = [rng.standard_normal((b, i)), rng.standard_normal((b, h)), rng.standard_normal((b, h)),
              rng.standard_normal((4 * h, i)), rng.standard_normal((4 * h, h)), rng.standard_normal(4 * h),
              rng.standard_normal(4 * h)]

    def call(lib):
        return lambda x, hx, cx, wi, wh, bi, bh: lib.lstm_cell(x, (hx, cx), wi, wh, bi, bh)[part]
    compare(call(gtorch), call(torch), arrays, tuple(range(7)))


@pytest.mark.parametrize("transposed", [False, True])
def test_convolution_matches_torch(transposed):
    a = rng.standard_normal((2, 4, 9, 8))
    w = rng.standard_normal((4, 3, 3, 2)) if transposed else rng.standard_normal((6, 2, 3, 3))
    bias = rng.standard_normal(6)
    args = ([2, 1], [1, 0], [1, 2], transposed, [1, 0] if transposed else [0, 0], 2)
    compare(lambda x, k, c: gtorch.convolution(x, k, c, *args), lambda x, k, c: torch.convolution(x, k, c, *args),
            [a, w, bias], (0, 1, 2), rtol=1e-9)
    a1, w1 = rng.standard_normal((2, 3, 11)), rng.standard_normal((5, 3, 4))
    compare(lambda x, k: gtorch.convolution(x, k, None, [2], [1], [1], False, [0], 1),
            lambda x, k: torch.convolution(x, k, None, [2], [1], [1], False, [0], 1), [a1, w1], (0, 1))


@pytest.mark.parametrize("interpolation", [0, 1, 2])
@pytest.mark.parametrize("padding", [0, 1, 2])
def test_grid_sampler_int_modes_match_torch(interpolation, padding):
    theta, x = rng.standard_normal((2, 2, 3)) * 0.7, rng.standard_normal((2, 3, 5, 4))
    compare(lambda t: gtorch.affine_grid_generator(t, [2, 3, 5, 4], False),
            lambda t: torch.affine_grid_generator(t, [2, 3, 5, 4], False), [theta], (0,))
    grid = torch.affine_grid_generator(torch.tensor(theta), [2, 3, 5, 4], True).numpy()
    grads = (0,) if interpolation == 1 else (0, 1)
    compare(lambda a, g: gtorch.grid_sampler(a, g, interpolation, padding, True),
            lambda a, g: torch.grid_sampler(a, g, interpolation, padding, True), [x, grid], grads, rtol=1e-8)


def test_native_layer_norm_and_channel_shuffle_match_torch():
    x, w, b = rng.standard_normal((2, 3, 5)), rng.standard_normal((3, 5)), rng.standard_normal((3, 5))
    for k in range(3):
        compare(lambda a, c, d: gtorch.native_layer_norm(a, [3, 5], c, d, 1e-5)[k],
                lambda a, c, d: torch.native_layer_norm(a, [3, 5], c, d, 1e-5)[k], [x, w, b],
                (0, 1, 2) if k == 0 else (), rtol=1e-8)  # torch gives mean and rstd no gradient
    compare(lambda a: gtorch.native_channel_shuffle(a, 3), lambda a: torch.native_channel_shuffle(a, 3),
            [rng.standard_normal((2, 6, 3))])  # torch has no derivative for it; glassgrad's is a permutation's
    x = gg.tensor(rng.standard_normal((1, 6, 2)), requires_grad=True)
    (gtorch.native_channel_shuffle(x, 2) * gg.arange(12.0).reshape(1, 6, 2)).sum().backward()
    np.testing.assert_array_equal(x.grad.numpy()[0], np.arange(12.0).reshape(3, 2, 2).transpose(1, 0, 2).reshape(6, 2))


@pytest.mark.parametrize("lib", [gtorch, torch], ids=["glassgrad", "torch"])
def test_native_dropout_and_nonzero_static(lib):
    x = lib.rand(4000, dtype=lib.float64) + 1
    out, mask = lib.native_dropout(x, 0.25, True)
    assert mask.dtype == lib.bool and 0.2 < 1 - mask.double().mean().item() < 0.3
    np.testing.assert_allclose(out.numpy(), np.where(mask.numpy(), x.numpy() / 0.75, 0.0), rtol=1e-12)
    same, ones = lib.native_dropout(x, 0.25, False)
    assert bool(ones.all()) and bool((same == x).all())
    y = lib.tensor([[0, 1, 0], [2, 0, 3]])
    assert lib.nonzero_static(y, size=5).tolist() == [[0, 1], [1, 0], [1, 2], [-1, -1], [-1, -1]]
    assert lib.nonzero_static(y, size=2, fill_value=7).tolist() == [[0, 1], [1, 0]]
    assert y.nonzero_static(size=1).tolist() == [[0, 1]]
