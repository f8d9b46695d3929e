"""Conv2D, Conv2DBackwardInput, Conv2DBackwardWeight against plain NumPy references.

The references loop over the kernel taps (r, s): tap (r, s) pairs output pixel (i, j) with the
padded input pixel (i*sh + r, j*sw + s), so each tap is one strided slice of the zero-padded
input and one small matrix product over channels. They follow the formulas in
autodiff-engine/src/ops/conv.cpp and share no code with the kernels.

Grouped convolutions run the dense reference on each group's channel slices; dilation spaces
the taps (tap (r, s) reads padded pixel (i*sh + r*dh, j*sw + s*dw)).

Cases: one to 56 input channels, strides 1 and 2 (also unequal), padding 0, 1 and asymmetric,
1x1, 3x3, 5x5 and non-square kernels, with and without bias, dilation, groups (depthwise
among them); odd spatial sizes from the table's n. Every differentiable input gets a float64
finite-difference check of its gradient rule (for the backward ops: double backward).
"""
import numpy as np

from glassgrad.testing import OpSpec


def _out_size(h, r, sh, p0, p1, d=1):
    return (h + p0 + p1 - d * (r - 1) - 1) // sh + 1


def _taps(xshape, wshape, stride, padding, dilation):
    n, c, h, w = xshape
    k, _, r, s = wshape
    sh, sw = stride
    dh, dw = dilation
    pt, pb, pl, pr = padding
    ho, wo = _out_size(h, r, sh, pt, pb, dh), _out_size(w, s, sw, pl, pr, dw)
    for dr in range(r):
        for ds in range(s):
            yield dr, ds, (slice(None), slice(None), slice(dr * dh, dr * dh + sh * (ho - 1) + 1, sh),
                           slice(ds * dw, ds * dw + sw * (wo - 1) + 1, sw))


def _per_group(groups, fn, channel_splits):
    """fn on each group's channel slices (arrays split along axis 0 or 1 as channel_splits says),
    results joined along the axis of the output's channels."""
    def part(a, axis, g):
        size = a.shape[axis] // groups
        return np.take(a, range(g * size, (g + 1) * size), axis=axis)
    return [fn(*[part(a, axis, g) if axis is not None else a for a, axis in channel_splits], g) for g in range(groups)]


def _pad(x, padding):
    pt, pb, pl, pr = padding
    return np.pad(x.astype(np.float64), ((0, 0), (0, 0), (pt, pb), (pl, pr)))


def conv2d_ref(x, w, b=None, stride=(1, 1), padding=(0, 0, 0, 0), dilation=(1, 1), groups=1):
    if groups > 1:
        ys = _per_group(groups, lambda xg, wg, g: conv2d_ref(xg, wg, None, stride, padding, dilation),
                        [(x, 1), (w, 0)])
        y = np.concatenate(ys, axis=1).astype(np.float64)
    else:
        xp = _pad(x, padding)
        y = None
        for dr, ds, idx in _taps(x.shape, w.shape, stride, padding, dilation):
            term = np.einsum("nchw,kc->nkhw", xp[idx], w[:, :, dr, ds].astype(np.float64))
            y = term if y is None else y + term
    if b is not None:
        y = y + b.astype(np.float64)[None, :, None, None]
    return y.astype(x.dtype)


def conv2d_relu_ref(x, w, b=None, stride=(1, 1), padding=(0, 0, 0, 0), dilation=(1, 1), groups=1, activation="relu"):
    y = conv2d_ref(x, w, b, stride, padding, dilation, groups)
    return np.maximum(y, 0).astype(y.dtype)


def conv2d_backward_input_ref(gy, w, stride, padding, input_shape, dilation=(1, 1), groups=1):
    n, c, h, wd = input_shape
    if groups > 1:
        part = [n, c // groups, h, wd]
        dxs = _per_group(groups, lambda gyg, wg, g: conv2d_backward_input_ref(gyg, wg, stride, padding, part, dilation),
                         [(gy, 1), (w, 0)])
        return np.concatenate(dxs, axis=1).astype(gy.dtype)
    pt, pb, pl, pr = padding
    dxp = np.zeros((n, c, h + pt + pb, wd + pl + pr))
    for dr, ds, idx in _taps(input_shape, w.shape, stride, padding, dilation):
        dxp[idx] += np.einsum("nkhw,kc->nchw", gy.astype(np.float64), w[:, :, dr, ds].astype(np.float64))
    return dxp[:, :, pt:pt + h, pl:pl + wd].astype(gy.dtype)


def conv2d_backward_weight_ref(x, gy, stride, padding, weight_shape, dilation=(1, 1), groups=1):
    if groups > 1:
        part = [weight_shape[0] // groups] + list(weight_shape[1:])
        dws = _per_group(groups, lambda xg, gyg, g: conv2d_backward_weight_ref(xg, gyg, stride, padding, part, dilation),
                         [(x, 1), (gy, 1)])
        return np.concatenate(dws, axis=0).astype(x.dtype)
    xp = _pad(x, padding)
    dw = np.zeros(weight_shape)
    for dr, ds, idx in _taps(x.shape, weight_shape, stride, padding, dilation):
        dw[:, :, dr, ds] = np.einsum("nkhw,nchw->kc", gy.astype(np.float64), xp[idx])
    return dw.astype(x.dtype)


def _r(rng, dt, *shape):
    return rng.standard_normal(shape).astype(dt)


# (name, batch, in_channels, out_channels, kernel (R, S), stride, padding, size(n) -> (H, W),
#  gradient checks[, {"dilation": [dh, dw], "groups": G}]). The kernels pick a layout of the pixel axis (pointwise 1x1 / flat for
# stride 1 unpadded / general) and, for the weight gradient, row dots when C*R*S is at most the
# GEMM's tile width (48 float32, 24 float64 with AVX-512): the cases cover each combination.
# The larger ones (at n = 33) cross the threshold for spreading images over threads, or, with
# one image, for a threaded GEMM; they skip the (slow, and there redundant) gradient checks.
CASES = [
    ("1ch-3x3-s1-p0", 2, 1, 4, (3, 3), (1, 1), (0, 0, 0, 0), lambda n: (n + 2, n + 3), True),
    ("1ch-3x3-s1-p1", 2, 1, 3, (3, 3), (1, 1), (1, 1, 1, 1), lambda n: (n, n + 1), True),
    ("3ch-3x3-s2-p1", 2, 3, 5, (3, 3), (2, 2), (1, 1, 1, 1), lambda n: (n + 1, n), True),
    ("5ch-3x3-s1-p0", 2, 5, 8, (3, 3), (1, 1), (0, 0, 0, 0), lambda n: (n + 2, n + 4), True),
    ("4ch-3x2-s2x1-asym", 3, 4, 6, (3, 2), (2, 1), (2, 0, 0, 1), lambda n: (n + 1, n + 2), True),
    ("6ch-1x1-s1-p0", 2, 6, 7, (1, 1), (1, 1), (0, 0, 0, 0), lambda n: (n, n + 1), True),
    ("3ch-1x1-s2-p1", 2, 3, 2, (1, 1), (2, 2), (1, 0, 0, 1), lambda n: (n, n), True),
    ("2ch-5x5-s1-p2", 1, 2, 3, (5, 5), (1, 1), (2, 2, 2, 2), lambda n: (n, n + 2), True),
    ("16ch-3x3-s1-p1", 2, 16, 8, (3, 3), (1, 1), (1, 1, 1, 1), lambda n: (n, n), True),
    ("56ch-1x1-s1-p0", 2, 56, 5, (1, 1), (1, 1), (0, 0, 0, 0), lambda n: (n, 3), False),
    ("12ch-3x3-s1-p0-threads", 3, 12, 16, (3, 3), (1, 1), (0, 0, 0, 0), lambda n: (n + 2, n + 2), False),
    ("8ch-3x3-s1-p1-one-image", 1, 8, 32, (3, 3), (1, 1), (1, 1, 1, 1), lambda n: (n, n), False),
    ("7ch-3x3-s2-p1-threads", 4, 7, 12, (3, 3), (2, 2), (1, 1, 1, 1), lambda n: (2 * n + 1, 2 * n), False),
    # 16x16 outputs at n >= 17: images side by side in one GEMM until its tiles are full (2 and 2)
    # the weight gradient as dw^T = col x gy^T: K = 48 fills the GEMM's tiles, C = 52 does not
    ("52ch-1x1-s2-k48", 2, 52, 48, (1, 1), (2, 2), (0, 0, 0, 0), lambda n: (n + 1, n), False),
    ("8ch-1x1-s2-batched", 4, 8, 12, (1, 1), (2, 2), (0, 0, 0, 0), lambda n: (32, 32) if n > 16 else (n, n + 1), False),
    # grouped, depthwise and dilated (CUDA: the generic kernels, kernels/cuda/conv.cu)
    ("6ch-3x3-groups3", 2, 6, 9, (3, 3), (1, 1), (1, 1, 1, 1), lambda n: (n + 1, n), True, {"groups": 3}),
    ("depthwise-4ch-3x3-s2", 2, 4, 4, (3, 3), (2, 2), (1, 1, 1, 1), lambda n: (n + 2, n + 1), True, {"groups": 4}),
    ("depthwise-x2-3ch-3x3", 2, 3, 6, (3, 3), (1, 1), (0, 0, 0, 0), lambda n: (n + 2, n + 3), True, {"groups": 3}),
    ("3ch-3x3-dilation2-same", 2, 3, 4, (3, 3), (1, 1), (2, 2, 2, 2), lambda n: (n, n + 1), True, {"dilation": [2, 2]}),
    ("2ch-3x2-dilation3x2-s2", 2, 2, 3, (3, 2), (2, 1), (1, 0, 2, 1), lambda n: (n + 6, n + 3), True,
     {"dilation": [3, 2]}),
    ("8ch-3x3-groups2-dilation2", 2, 8, 6, (3, 3), (1, 1), (0, 0, 0, 0), lambda n: (n + 4, n + 5), True,
     {"dilation": [2, 2], "groups": 2}),
    ("32ch-3x3-depthwise-threads", 4, 32, 32, (3, 3), (1, 1), (1, 1, 1, 1), lambda n: (n, n), False, {"groups": 32}),
    # DCGAN's 4x4 stride-2 convs: im2col gathered into the GEMM's panels (forward) and built from
    # phase planes (weight gradient) up to 32 outputs a row, the stored matrix past that
    ("3ch-4x4-s2-p1", 2, 3, 5, (4, 4), (2, 2), (1, 1, 1, 1), lambda n: (n + 1, 2 * n + 1), True),
    ("9ch-4x4-s2-p1-wide", 3, 9, 10, (4, 4), (2, 2), (1, 1, 1, 1), lambda n: (n + 3, 2 * n + 1 if n > 16 else 64),
     False),
    # a window covering the whole unpadded input: one GEMM over the batch (cpu/conv_dense.h), the
    # forward by row dots below the GEMM's tile width of output channels, else a GEMM with K on N;
    # DCGAN's discriminator head ([4, 4] -> 1) and first generator layer's adjoint (K = 100)
    ("dense-4x4-k1", 3, 9, 1, (4, 4), (1, 1), (0, 0, 0, 0), lambda n: (4, 4), True),
    ("dense-3x2-s2-k5", 5, 3, 5, (3, 2), (2, 2), (0, 0, 0, 0), lambda n: (3, 2), True),
    ("dense-3x3-k9", 2, 9, 9, (3, 3), (1, 1), (0, 0, 0, 0), lambda n: (3, 3), True),
    ("dense-4x4-k100-threads", 17, 67, 100, (4, 4), (1, 1), (0, 0, 0, 0), lambda n: (4, 4), False),
]

# float32: 3x3 stride-1 convs with >= 8 channels each way run Winograd F(4x4, 3x3), whose sums in
# the transformed domain round to about 1e-5 of the output's scale (measured 2e-6 .. 1e-5 on these
# and ResNet-18's shapes); outputs here reach ~100 (sums of up to 2000 products), so an element
# that cancels to near 0 keeps an absolute error of up to ~1e-3. float64 is exact to 1e-9.
_TOL = dict(rtol={"float32": 2e-4, "float64": 1e-9}, atol={"float32": 2e-3, "float64": 1e-9})


def _specs():
    specs = []
    for name, batch, c, k, (r, s), stride, padding, hw, check_grads, *more in CASES:
        extra = more[0] if more else {}
        attrs = dict({"stride": list(stride), "padding": list(padding)}, **extra)
        dil, groups = extra.get("dilation", (1, 1)), extra.get("groups", 1)

        def geom(n, hw=hw, r=r, s=s, stride=stride, padding=padding, dil=dil):
            h, w = hw(n)
            return (h, w, _out_size(h, r, stride[0], padding[0], padding[1], dil[0]),
                    _out_size(w, s, stride[1], padding[2], padding[3], dil[1]))

        def fwd_inputs(rng, dt, n, batch=batch, c=c, k=k, r=r, s=s, geom=geom, groups=groups):
            h, w, _, _ = geom(n)
            return [_r(rng, dt, batch, c, h, w), _r(rng, dt, k, c // groups, r, s)]

        def fwd_bias_inputs(rng, dt, n, k=k, fwd_inputs=fwd_inputs):
            return fwd_inputs(rng, dt, n) + [_r(rng, dt, k)]

        def bi_inputs(rng, dt, n, batch=batch, c=c, k=k, r=r, s=s, geom=geom, groups=groups):
            _, _, ho, wo = geom(n)
            return [_r(rng, dt, batch, k, ho, wo), _r(rng, dt, k, c // groups, r, s)]

        def bw_inputs(rng, dt, n, batch=batch, c=c, k=k, geom=geom):
            h, w, ho, wo = geom(n)
            return [_r(rng, dt, batch, c, h, w), _r(rng, dt, batch, k, ho, wo)]

        def bi_attrs(n, batch=batch, c=c, geom=geom, attrs=attrs):
            h, w, _, _ = geom(n)
            return dict(attrs, input_shape=[batch, c, h, w])

        def bw_attrs(n, k=k, c=c, r=r, s=s, attrs=attrs, groups=groups):
            return dict(attrs, weight_shape=[k, c // groups, r, s])

        g2, g3 = ((0, 1), (0, 1, 2)) if check_grads else ((), ())
        specs += [
            OpSpec("Conv2D", conv2d_ref, fwd_inputs, attrs=attrs, grad=g2, name=f"Conv2D-{name}",
                   **_TOL),
            OpSpec("Conv2D", conv2d_ref, fwd_bias_inputs, attrs=attrs, grad=g3, name=f"Conv2D-bias-{name}",
                   **_TOL),
            # the fusion pass's Conv2D+ReLU: out = relu(conv), gradient through ReLUBackward(g, out)
            OpSpec("Conv2D", conv2d_relu_ref, fwd_bias_inputs, attrs=dict(attrs, activation="relu"), grad=g3,
                   name=f"Conv2D-bias-relu-{name}", **_TOL),
            OpSpec("Conv2DBackwardInput", conv2d_backward_input_ref, bi_inputs, attrs=bi_attrs, grad=g2,
                   name=f"Conv2DBackwardInput-{name}", **_TOL),
            OpSpec("Conv2DBackwardWeight", conv2d_backward_weight_ref, bw_inputs, attrs=bw_attrs, grad=g2,
                   name=f"Conv2DBackwardWeight-{name}", **_TOL),
        ]
    return specs


SPECS = _specs()
