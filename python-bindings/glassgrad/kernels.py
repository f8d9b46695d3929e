"""Call one kernel directly, for tests and for teaching.

    >>> import numpy as np, glassgrad.kernels as K
    >>> x = np.random.rand(2, 1, 5, 5).astype(np.float32)
    >>> w = np.random.rand(4, 1, 3, 3).astype(np.float32)
    >>> (y,) = K.run_numpy("Conv2D", x, w, stride=[1, 1], padding=[0, 0, 0, 0])
    >>> y.shape
    (2, 4, 3, 3)

`run` takes and returns runtime tensors (glassgrad._C.Tensor); `run_numpy` takes and returns
NumPy arrays. Attributes are the op's schema attributes (see glassgrad.kernels.schema(op)).
"""
from __future__ import annotations

from typing import Any, List

import numpy as np

from . import _C


def _as_raw(x: Any, device: str) -> "_C.Tensor":
    if isinstance(x, _C.Tensor):
        return x
    raw = getattr(x, "_raw", None)  # a glassgrad.Tensor: realize it
    if callable(raw):
        return raw()
    return _C.Tensor.from_numpy(np.asarray(x), device)


def run(op: str, *inputs: Any, scope: str = "", device: str = "cpu", **attrs: Any) -> List["_C.Tensor"]:
    """Runs `op`'s kernel on `inputs` (tensors or arrays) and returns its output tensors."""
    return _C.run_op(op, [_as_raw(x, device) for x in inputs], attrs, scope)


def run_numpy(op: str, *inputs: Any, device: str = "cpu", **attrs: Any) -> List[np.ndarray]:
    """Like run, with NumPy arrays out."""
    return [t.numpy() for t in run(op, *inputs, device=device, **attrs)]


def schema(op: str) -> dict:
    """The op's schema: input and output names, flags and its formula."""
    return _C.op_schema(op)


def ops() -> List[str]:
    """Names of every op the engine knows."""
    return _C.op_names()


def elementwise_ops() -> List[dict]:
    """The rows of the engine's elementwise op table, in op-code order: name, code (the op code
    of FusedElementwise programs), kind, dtypes, scalar (the attribute it reads, or ""), arity,
    fusible."""
    return _C.elementwise_ops()


def registered() -> List[tuple]:
    """(op, device, dtype) of every registered kernel."""
    return _C.kernels()


def set_cpu_conv_algo(algo: str) -> None:
    """Forces the algorithm of every CPU convolution from now on (tests, benchmarks, teaching):
    'auto' (glassgrad's choice, docs/numerics.md), 'gemm' (the im2col / direct paths),
    'winograd2' or 'winograd4' (Winograd F(2x2, 3x3) or F(4x4, 3x3); only 3x3 stride-1
    convolutions can run them, the others keep the GEMM paths). glassgrad.cuda.set_conv_algo is
    the CUDA convolutions' switch."""
    _C.cpu_set_conv_algo(str(algo))


def cpu_conv_algo() -> str:
    """The CPU convolutions' forced algorithm, 'auto' when none is (set_cpu_conv_algo)."""
    return _C.cpu_conv_algo()
