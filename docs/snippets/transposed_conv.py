"""docs/transposed-convolution.md: what a transposed convolution computes, in NumPy two ways (a
scatter, and a convolution of the zero-stuffed input by the flipped kernel), checked against
glassgrad's F.conv_transpose2d, its adjoint identity, and the ops its plan runs.
tests/test_docs.py runs this file."""
import numpy as np

import glassgrad as gg
import glassgrad.nn.functional as F

rng = np.random.default_rng(0)
# --8<-- [start:scatter]
def conv_transpose_scatter(x, w, stride, padding):
    """x [C_in, H, W], w [C_in, C_out, k, k]: every input pixel adds its weighted kernel into the
    output, `stride` apart; then `padding` rows and columns are cut from each border."""
    c_in, h, wd = x.shape
    _, c_out, k, _ = w.shape
    full = np.zeros((c_out, (h - 1) * stride + k, (wd - 1) * stride + k))
    for i in range(h):
        for j in range(wd):
            # out[:, i*s : i*s + k, j*s : j*s + k] += sum_c x[c, i, j] * w[c]
            full[:, i * stride:i * stride + k, j * stride:j * stride + k] += np.einsum("c,cokl->okl", x[:, i, j], w)
    return full[:, padding:full.shape[1] - padding, padding:full.shape[2] - padding]
# --8<-- [end:scatter]


# --8<-- [start:gather]
def conv_transpose_gather(x, w, stride, padding):
    """The same map as a plain convolution: put stride - 1 zeros between the input pixels, pad by
    k - 1 - padding, and correlate with the kernel flipped in both axes, in and out swapped."""
    c_in, h, wd = x.shape
    k = w.shape[2]
    stuffed = np.zeros((c_in, (h - 1) * stride + 1, (wd - 1) * stride + 1))
    stuffed[:, ::stride, ::stride] = x
    e = k - 1 - padding
    stuffed = np.pad(stuffed, ((0, 0), (e, e), (e, e)))
    flipped = w[:, :, ::-1, ::-1].transpose(1, 0, 2, 3)  # [C_out, C_in, k, k]
    ho, wo = stuffed.shape[1] - k + 1, stuffed.shape[2] - k + 1
    out = np.zeros((flipped.shape[0], ho, wo))
    for r in range(k):
        for c in range(k):
            out += np.einsum("oc,chw->ohw", flipped[:, :, r, c], stuffed[:, r:r + ho, c:c + wo])
    return out
# --8<-- [end:gather]


# --8<-- [start:check]
x = rng.standard_normal((3, 4, 4))              # [C_in, H, W]: DCGAN's generator doubles H and W
w = rng.standard_normal((3, 2, 4, 4))           # [C_in, C_out, k, k], PyTorch's layout
ours = F.conv_transpose2d(gg.tensor(x[None]), gg.tensor(w), stride=2, padding=1).numpy()[0]
assert ours.shape == (2, 8, 8)                    # (H - 1) * 2 - 2 * 1 + 4 = 8
assert np.allclose(ours, conv_transpose_scatter(x, w, 2, 1), rtol=1e-12, atol=1e-12)
assert np.allclose(ours, conv_transpose_gather(x, w, 2, 1), rtol=1e-12, atol=1e-12)
# --8<-- [end:check]

# --8<-- [start:adjoint]
# <conv2d(z, w), x> == <z, conv_transpose2d(x, w)> for every z of the output's shape: the
# transposed convolution is the convolution's adjoint, so it is the convolution's input gradient.
z = rng.standard_normal((1, 2, 8, 8))
lhs = (F.conv2d(gg.tensor(z), gg.tensor(w), stride=2, padding=1).numpy() * x[None]).sum()
rhs = (z * ours[None]).sum()
assert abs(lhs - rhs) < 1e-9 * abs(lhs)
# --8<-- [end:adjoint]

# --8<-- [start:plan]
xt = gg.tensor(x[None], requires_grad=True)
wt = gg.tensor(w, requires_grad=True)
y = F.conv_transpose2d(xt, wt, stride=2, padding=1)
(y * y).sum().backward()
plan = gg.debug.explain([xt.grad, wt.grad])  # the plan, without running it
convs = [s["op"] for s in plan.steps if s["op"].startswith("Conv")]
print(convs)  # ['Conv2DBackwardInput', 'Conv2D', 'Conv2DBackwardWeight']: forward, dx, dw
assert convs == ["Conv2DBackwardInput", "Conv2D", "Conv2DBackwardWeight"]
# --8<-- [end:plan]
