"""FusedElementwise: register programs made by the fusion pass (fusion.h)."""
import numpy as np

from glassgrad.testing import OpSpec, fused_program


def _ref_relu_affine(x0, x1, x2, program, scalars):
    # r3 = x0 * x1; r4 = r3 + 0.5; r5 = relu(r4); r6 = r5 - x2; r7 = tanh(r6)
    out = np.tanh(np.maximum(x0 * x1 + np.asarray(0.5, x0.dtype), 0) - x2)
    return out.astype(x0.dtype)


def _ref_relu_backward_chain(g, x, program, scalars):
    return (np.where(x > 0, g, 0) * np.asarray(2.0, g.dtype)).astype(g.dtype)


SPECS = [
    OpSpec("FusedElementwise", _ref_relu_affine,
           lambda rng, dt, n: [rng.standard_normal((n, 1, 4)).astype(dt), rng.standard_normal((3, 4)).astype(dt),
                               rng.standard_normal((n, 3, 4)).astype(dt)],
           attrs=fused_program([("Mul", 0, 1, 0), ("AddScalar", 3, -1, 0.5), ("ReLU", 4, -1, 0), ("Sub", 5, 2, 0),
                                ("Tanh", 6, -1, 0)]),
           name="FusedElementwise-broadcast-chain"),
    OpSpec("FusedElementwise", _ref_relu_backward_chain,
           lambda rng, dt, n: [rng.standard_normal((n, 5, 7)).astype(dt), rng.standard_normal((n, 5, 7)).astype(dt)],
           attrs=fused_program([("ReLUBackward", 0, 1, 0), ("MulScalar", 2, -1, 2.0)]), name="FusedElementwise-backward-map"),
]
