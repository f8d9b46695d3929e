"""torch.func.functionalize and debug_unwrap.

functionalize(f) promises f's semantics with its mutations (and, with
remove='mutations_and_views', its views) rewritten out of place for tracing backends, input
mutations written back; glassgrad records every op in its own graph and its planner already
removes the copies that mutations and views would need (docs/inplace-and-views.md), so the
functionalized function is f called as it is: same outputs, same writes to its inputs.
debug_unwrap gives the plain tensor under a transform's wrapper: glassgrad's transforms pass
plain tensors, so it is the tensor itself."""
from __future__ import annotations

import functools
from typing import Any, Callable

_VALID = ("mutations", "mutations_and_views")


def functionalize(func: Callable[..., Any], *, remove: str = "mutations") -> Callable[..., Any]:
    if remove not in _VALID:
        raise RuntimeError(f"functionalize(f, remove='mutations'): received invalid argument for remove={remove}. "
                           "Valid options are:\n     remove='mutations': all inplace and out= operators will be "
                           "removed from the program, and replaced with their out-of-place equivalents.\n     "
                           "remove='mutations_and_views': In addition to the above, all aliasing operators {view} "
                           "will be replaced with their non-aliasing counterparts, {view}_copy.\n")

    @functools.wraps(func)
    def wrapped(*args, **kwargs):
        return func(*args, **kwargs)

    return wrapped


def debug_unwrap(tensor, *, recurse: bool = True):
    """The tensor under a functorch wrapper: a glassgrad tensor is never wrapped, so itself."""
    return tensor
