"""The generator used to initialize parameters: glassgrad.manual_seed(s) makes runs repeatable."""
import numpy as np

_rng = np.random.default_rng()


def manual_seed(seed: int) -> None:
    global _rng
    _rng = np.random.default_rng(seed)


def generator() -> np.random.Generator:
    return _rng


def randn(*shape, dtype="float32", device=None):
    from ._tensor import _shape_args, tensor
    return tensor(_rng.standard_normal(_shape_args(shape)).astype(dtype), device=device)


def rand(*shape, dtype="float32", device=None):
    from ._tensor import _shape_args, tensor
    return tensor(_rng.random(_shape_args(shape)).astype(dtype), device=device)
