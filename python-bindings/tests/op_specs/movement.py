"""Movement and creation ops: Reshape, Permute, Slice, SliceBackward, Expand, Contiguous, Concat, Cast."""
import numpy as np

from glassgrad.testing import OpSpec


def _rand(rng, dtype, *shape):
    return rng.standard_normal(shape).astype(dtype)


def _slice_backward_ref(g, dim, start, stop, step, shape):
    out = np.zeros(shape, dtype=g.dtype)
    idx = [slice(None)] * len(shape)
    idx[dim] = slice(start, stop, step)
    out[tuple(idx)] = g
    return out


SPECS = [
    OpSpec("Reshape", lambda x, shape: x.reshape(shape),
           lambda rng, dt, n: [_rand(rng, dt, 2, n, 3)], attrs=lambda n: {"shape": [3 * n, 2]}, grad=(0,)),
    OpSpec("Permute", lambda x, dims: np.transpose(x, dims),
           lambda rng, dt, n: [_rand(rng, dt, 2, n, 3)], attrs={"dims": [2, 0, 1]}, grad=(0,)),
    OpSpec("Slice", lambda x, dim, start, stop, step: np.take(x, range(start, stop, step), axis=dim),
           lambda rng, dt, n: [_rand(rng, dt, 4, n + 4)], attrs=lambda n: {"dim": 1, "start": 1, "stop": n + 3, "step": 2},
           grad=(0,)),
    OpSpec("SliceBackward", _slice_backward_ref,
           lambda rng, dt, n: [_rand(rng, dt, 4, len(range(1, n + 3, 2)))],
           attrs=lambda n: {"dim": 1, "start": 1, "stop": n + 3, "step": 2, "shape": [4, n + 4]}, grad=(0,)),
    OpSpec("Expand", lambda x, shape: np.broadcast_to(x, shape).copy(),
           lambda rng, dt, n: [_rand(rng, dt, n, 1)], attrs=lambda n: {"shape": [2, n, 5]}, grad=(0,)),
    OpSpec("Concat", lambda *xs, dim: np.concatenate(xs, axis=dim),
           lambda rng, dt, n: [_rand(rng, dt, 2, n, 3), _rand(rng, dt, 2, 1, 3), _rand(rng, dt, 2, n + 2, 3)],
           attrs={"dim": 1}, grad=(0, 1, 2)),
    OpSpec("Concat", lambda *xs, dim: np.concatenate(xs, axis=dim),
           lambda rng, dt, n: [_rand(rng, dt, n, 3), _rand(rng, dt, n, 5)], attrs={"dim": 1}, grad=(0, 1),
           name="Concat-last-dim"),
    OpSpec("Detach", lambda x: x.copy(), lambda rng, dt, n: [_rand(rng, dt, n, 3)]),
    OpSpec("Contiguous", lambda x: x.copy(), lambda rng, dt, n: [_rand(rng, dt, n, 3)], grad=(0,)),
    OpSpec("Cast", lambda x, dtype: x.astype(dtype), lambda rng, dt, n: [_rand(rng, dt, n, 3)],
           attrs={"dtype": "float64"}, grad=(0,), name="Cast-to-float64"),
    OpSpec("Cast", lambda x, dtype: x.astype(dtype), lambda rng, dt, n: [_rand(rng, dt, n, 3) * 10],
           attrs={"dtype": "int64"}, name="Cast-to-int64"),
]
