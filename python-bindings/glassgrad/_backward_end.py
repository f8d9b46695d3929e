"""Callbacks run once the outermost backward() or autograd.grad() call has built its gradients
(the gradient hooks of that call have all run by then): autograd.graph.register_multi_grad_hook
hands its "all" hook the gradients it collected, and lets its "any" hook fire again in the next
backward. A backward raised: the callbacks are dropped unrun. Nested calls (autograd.grad inside
a hook) finish with the outermost one. Also whether the calls running keep their graph (RETAINING)."""
from __future__ import annotations

import contextlib
from typing import Callable, List

PENDING: List[Callable[[], None]] = []
_depth = [0]
# Whether each backward() or autograd.grad() call running now (the innermost last) keeps its graph
# (retain_graph): a custom Function's ctx that a call keeping none reaches frees its saved tensors
# (autograd/function.py). Its callers push and pop it around the engine's call.
RETAINING: List[bool] = []


def enter() -> None:
    """A backward() or autograd.grad() call starts (backward() calls enter/leave itself: the
    context manager's generator costs several frames on every training step)."""
    _depth[0] += 1


def leave(ok: bool) -> None:
    """The call ends: the outermost one runs the pending callbacks if it succeeded (`ok`), or
    drops them."""
    _depth[0] -= 1
    if _depth[0] == 0 and PENDING:
        callbacks = PENDING[:]
        PENDING.clear()
        if ok:
            for callback in callbacks:
                callback()


@contextlib.contextmanager
def scope():
    enter()
    ok = False
    try:
        yield
        ok = True
    finally:
        leave(ok)
