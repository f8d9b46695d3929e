"""torch.func.vmap as a loop (docs/autograd.md, "torch.func"): func runs once per index of the
mapped dimension, on that slice of each mapped input, and the results are stacked at out_dims.
The values are vmap's; the cost is batch-size calls of func (each records its own ops, and
after the first the plans come from the plan cache), not one batched call."""
from __future__ import annotations

from typing import Any, Callable, List

import numpy as np

from .. import _vmap_calls
from .._random import get_rng_state, set_rng_state
from .._tensor import Tensor
from ._tree import broadcast_prefix, flatten, unflatten

_RANDOMNESS = ("error", "different", "same")


def _check_dim(x, d, what: str) -> int:
    if not isinstance(x, Tensor):
        raise ValueError(f"vmap: Got in_dim={d} for an input but the input is of type {type(x).__name__}. We cannot "
                         "vmap over non-Tensor arguments\n  fix: in_dims=None for that input")
    if not isinstance(d, int) or not -x.dim() <= d < max(x.dim(), 1) or x.dim() == 0:
        raise ValueError(f"vmap: Got {what}={d} for some input, but that input is a Tensor of dimensionality "
                         f"{x.dim()} so expected {what} to satisfy {-x.dim()} <= {what} < {x.dim()}.\n  the input "
                         f"has shape {list(x.shape)}\n  fix: a dimension between {-x.dim()} and {x.dim() - 1}, or None")
    return d % x.dim()


def _same_state(a: Tensor, b: Tensor) -> bool:
    return bool(np.array_equal(a.numpy(force=True), b.numpy(force=True)))


def vmap(func: Callable, in_dims=0, out_dims=0, randomness: str = "error", *, chunk_size=None) -> Callable:
    """torch.func.vmap: func mapped over dimension in_dims of its inputs (an int or None for all,
    or a tuple with one entry per positional argument, nested like the argument), its outputs
    stacked at out_dims; run as a loop, one call of func per index (docs/autograd.md). Keyword arguments are passed unmapped. randomness: 'error' (a random op
    inside raises), 'different' (each sample draws its own numbers), 'same' (each sample draws
    the same numbers). chunk_size is accepted and changes nothing."""
    if randomness not in _RANDOMNESS:
        raise RuntimeError(f"vmap: Only allowed values for randomness are 'error', 'different', or 'same'. Got "
                           f"{randomness!r}")
    if not (in_dims is None or isinstance(in_dims, (int, tuple))):
        raise ValueError(f"vmap: expected in_dims to be int or a (potentially nested) tuple matching the structure "
                         f"of inputs, got: {type(in_dims).__name__}\n  fix: in_dims=0, or a tuple such as (0, None)")

    def wrapped(*args, **kwargs):
        prefix = in_dims if isinstance(in_dims, tuple) else (in_dims,) * len(args)
        leaves, spec = flatten(tuple(args))
        dims = broadcast_prefix(prefix, tuple(args), "in_dims")
        dims = [None if d is None else _check_dim(x, d, "in_dim") for x, d in zip(leaves, dims)]
        sizes = sorted({x.shape[d] for x, d in zip(leaves, dims) if d is not None})
        if not sizes:
            raise ValueError(f"vmap(f, in_dims={in_dims!r}, ...)(<inputs>): at least one input must be mapped (an "
                             "in_dims entry that is not None, for a Tensor input)\n  fix: in_dims=0")
        if len(sizes) > 1:
            raise ValueError(f"vmap: Expected all tensors to have the same size in the mapped dimension, got sizes "
                             f"{sizes} for the mapped dimension")
        if sizes[0] == 0:
            raise ValueError("vmap: the mapped dimension has size 0; glassgrad's vmap runs func once per index, and "
                             "has nothing to run\n  fix: skip the call for an empty batch")
        state = get_rng_state() if randomness != "different" else None
        outs: List[Any] = []
        for i in range(sizes[0]):
            if randomness == "same":
                set_rng_state(state)
            sliced = [x if d is None else x.select(d, i) for x, d in zip(leaves, dims)]
            _vmap_calls.MAPPED.append([x for x, d in zip(sliced, dims) if d is not None])
            try:
                outs.append(func(*unflatten(sliced, spec), **kwargs))
            finally:
                _vmap_calls.MAPPED.pop()
            if randomness == "error" and not _same_state(state, get_rng_state()):
                set_rng_state(state)
                raise RuntimeError("vmap: called random operation while in randomness error mode. Please either use "
                                   "the 'same' or 'different' randomness flags on vmap or perform the randomness "
                                   "operation out of vmap")
        return _stack_outputs(outs, out_dims)

    return wrapped


def _stack_outputs(outs: List[Any], out_dims):
    from .._shapes import stack
    flat0, spec = flatten(outs[0])
    per_sample = [flatten(o)[0] for o in outs]
    for leaf in flat0:
        if not isinstance(leaf, Tensor):
            raise ValueError(f"vmap: `func` must only return Tensors (or containers of them), got {type(leaf).__name__}")
    dims = broadcast_prefix(out_dims, outs[0], "out_dims")
    stacked = []
    for j, d in enumerate(dims):
        if d is None:
            stacked.append(flat0[j])
            continue
        rank = flat0[j].dim() + 1
        if not isinstance(d, int) or not -rank <= d < rank:
            raise ValueError(f"vmap: out_dims={d} for an output of {rank - 1} dimensions\n  fix: a dimension between "
                             f"{-rank} and {rank - 1}, or None")
        stacked.append(stack([s[j] for s in per_sample], dim=d))
    return unflatten(stacked, spec)
