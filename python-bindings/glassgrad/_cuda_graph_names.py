"""torch.cuda's CUDA-graph names: CUDAGraph, graph, make_graphed_callables, graph_pool_handle and
is_current_stream_capturing (docs/cuda.md, "torch.cuda names").

glassgrad captures CUDA graphs itself: a training step's plan runs step by step twice, is
captured, and is replayed with one launch a step (docs/cuda.md, "torch.cuda names"). There is
no user capture API, so CUDAGraph and graph raise with that explanation on a GPU;
make_graphed_callables returns the callables unchanged, which glassgrad replays as graphs
already. Without a usable GPU each raises DeviceError (a RuntimeError, as PyTorch's), except
graph_pool_handle, which PyTorch answers without one."""
from __future__ import annotations

import itertools

from . import _C
from ._cuda_queries import _usable

_NO_USER_CAPTURE = ("glassgrad captures CUDA graphs itself: each training step's plan is captured after two runs and "
                    "replayed with one launch a step (docs/cuda.md, \"torch.cuda names\"), so there is no user capture"
                    "\n  fix: run the code without the capture block; glassgrad.cuda.make_graphed_callables(f, args) "
                    "returns f, which is replayed that way")


class CUDAGraph:
    """torch.cuda.CUDAGraph: glassgrad has no user-captured graphs (see the module's note)."""

    def __init__(self, keep_graph: bool = False):
        _usable(None)
        raise _C.UnsupportedError("torch.cuda.CUDAGraph: " + _NO_USER_CAPTURE)


class graph:
    """torch.cuda.graph(cuda_graph, ...): glassgrad has no user-captured graphs (see the module's note)."""

    def __init__(self, cuda_graph, pool=None, stream=None, capture_error_mode: str = "global", **kwargs):
        _usable(None)
        raise _C.UnsupportedError("torch.cuda.graph: " + _NO_USER_CAPTURE)


def make_graphed_callables(callables, sample_args, num_warmup_iters: int = 3, allow_unused_input: bool = False,
                           pool=None, **kwargs):
    """torch.cuda.make_graphed_callables: returns callables unchanged (a tuple stays a tuple);
    glassgrad already captures and replays the steps they run in as CUDA graphs."""
    _usable(None)
    items = callables if isinstance(callables, tuple) else (callables,)
    for item in items:
        if not callable(item):
            raise TypeError(f"make_graphed_callables: each callable must be a Module or a function, got "
                            f"{type(item).__name__}\n  fix: pass the model (or a tuple of them)")
    if not isinstance(sample_args, tuple):
        raise TypeError(f"make_graphed_callables: sample_args must be a tuple of tensors (a tuple of such tuples for a "
                        f"tuple of callables), got {type(sample_args).__name__}\n  fix: (x,)")
    return callables


_POOLS = itertools.count(1)


def graph_pool_handle() -> tuple:
    """An opaque memory-pool id, as PyTorch's ((0, 1), (0, 2), ...); glassgrad's graphs share the
    executor's arena, so the id selects nothing."""
    return (0, next(_POOLS))


def is_current_stream_capturing() -> bool:
    """False: glassgrad captures inside its executor, never while Python code runs; a DeviceError
    without a usable GPU, as PyTorch's RuntimeError."""
    _usable(None)
    return False
