"""torch.autograd.graph.allow_mutation_on_saved_tensors: a context inside which a tensor that an op
recorded inside it saved for backward may be written in place before backward() reads it; the
gradient uses the value as it was saved. PyTorch clones the saved tensor at the write; glassgrad's
graph keeps every version of a value anyway, so the runtime only lifts PyTorch's "modified by an
inplace operation" refusal for the nodes recorded inside the open context (docs/autograd.md,
"Saved tensors written in place"; core-runtime's lazy_saved_mutation.h)."""
from __future__ import annotations

import contextlib
from typing import Iterator

from .. import _C


class _AllowMutationOnSavedContext:
    """The object the context gives (PyTorch's): where PyTorch keeps its clones of the saved
    tensors written inside; glassgrad keeps none, so it holds nothing to clear."""

    def __init__(self) -> None:
        self.cloned: dict = {}
        self.original: dict = {}
        self.tid_to_weakhandle: dict = {}
        self.sid_to_tid: dict = {}

    def clear(self) -> None:
        for state in (self.cloned, self.original, self.tid_to_weakhandle, self.sid_to_tid):
            state.clear()


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
    try:
        yield ctx
    finally:
        _C.lazy_allow_mutation_on_saved_since(0)
        ctx.clear()
