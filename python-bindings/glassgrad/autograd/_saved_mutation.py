"""torch.autograd.graph.allow_mutation_on_saved_tensors: a context inside which a tensor that an op
recorded inside it saved for backward may be written in place before backward() reads it; the
gradient uses the value as it was saved. PyTorch clones the saved tensor at the write; glassgrad's
graph keeps every version of a value anyway, so the runtime only lifts PyTorch's "modified by an
inplace operation" refusal for the nodes recorded inside the open context (docs/autograd.md,
"Saved tensors written in place"; core-runtime's lazy_saved_mutation.h). A custom Function's saved
tensors are its own (FunctionCtx.saved_tensors): those saved inside keep a pin on the value as saved,
which backward reads where the tensor was written since. Once the context has closed, a backward
that reads what was saved inside raises PyTorch's AssertionError (OUTSIDE)."""
from __future__ import annotations

import contextlib
from typing import Iterator, Optional

from .. import _C

# PyTorch's message, its words as they are (the missing space too)
OUTSIDE = ("Trying to backward outside of the 'allow_mutation_on_saved_tensors' contextin which the graph was "
           "originally recorded.")


class _AllowMutationOnSavedContext:
    """The object the context gives (PyTorch's): where PyTorch keeps its clones of the saved
    tensors written inside; glassgrad keeps none, so it holds nothing to clear. `closed` once the
    context has exited."""

    def __init__(self) -> None:
        self.cloned: dict = {}
        self.original: dict = {}
        self.tid_to_weakhandle: dict = {}
        self.sid_to_tid: dict = {}
        self.closed = False

    def clear(self) -> None:
        for state in (self.cloned, self.original, self.tid_to_weakhandle, self.sid_to_tid):
            state.clear()


# The open context (one at most: contexts do not nest)
_OPEN: list = []


@contextlib.contextmanager
def allow_mutation_on_saved_tensors() -> Iterator[_AllowMutationOnSavedContext]:
    """Inside, writing in place a tensor that an op recorded inside saved for backward is allowed:
    backward() (run inside too, as PyTorch requires) computes with the value it had when saved.
    Contexts do not nest (PyTorch's RuntimeError)."""
    if _C.lazy_mutation_on_saved_allowed_since():
        raise RuntimeError("allow_mutation_on_saved_tensors contexts cannot be nested\n  fix: open one "
                           "allow_mutation_on_saved_tensors() around both the forward and the backward")
    ctx = _AllowMutationOnSavedContext()
    _C.lazy_allow_mutation_on_saved_since(_C.lazy_seq() + 1)  # the ops recorded from now on
    _OPEN.append(ctx)
    try:
        yield ctx
    finally:
        _OPEN.clear()
        _C.lazy_allow_mutation_on_saved_since(0)
        ctx.closed = True
        ctx.clear()


def open_context() -> Optional[_AllowMutationOnSavedContext]:
    """The allow_mutation_on_saved_tensors context open now, or None."""
    return _OPEN[0] if _OPEN else None


def outside_error(node: str) -> AssertionError:
    """PyTorch's AssertionError for a custom Function's saved tensors read after the context that
    saved them closed."""
    return AssertionError(f"{OUTSIDE}\n  {node}.saved_tensors: saved inside an allow_mutation_on_saved_tensors() "
                          "context that has closed\n  fix: call backward() inside the same with "
                          "allow_mutation_on_saved_tensors(): block as the forward")
