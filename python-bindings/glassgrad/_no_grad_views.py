"""Views made under no_grad(): PyTorch refuses an in-place op on one under grad mode when the
op would be recorded (its storage requires grad, or an operand does), since whether the write
should be tracked is ambiguous (autograd's handle_view_on_rebase, CreationMeta NO_GRAD_MODE;
docs/inplace-and-views.md, "In-place ops PyTorch refuses on views"). A view of such a view
(made under grad mode or not) is refused too; a chain through detach() or .data starts afresh.
Which view steps were made without gradients is recorded by the runtime (ViewStep::grad)."""
from __future__ import annotations

import weakref
from typing import Dict

from . import _C

_FORBIDDEN = (" Given that this use case is ambiguous and error-prone, it is forbidden. You can clarify your code by "
              "moving both the view and the inplace either both inside the {block} block (if you don't want the "
              "inplace to be tracked) or both outside (if you want the inplace to be tracked).")

# id(view) -> a weak reference to it: the views of normal tensors made inside inference_mode()
# (normal tensors, as PyTorch's; CreationMeta INFERENCE_MODE names the block in the error)
_IN_INFERENCE: Dict[int, weakref.ref] = {}


def made_in_inference_mode(t) -> None:
    key = id(t)
    _IN_INFERENCE[key] = weakref.ref(t, lambda _ref: _IN_INFERENCE.pop(key, None))


def is_own(h) -> bool:
    """Whether handle h is itself a view made under no_grad() (its last view step): one of a
    tensor that requires grad is a leaf without grad_fn, as PyTorch's, though what is computed
    from it requires grad (docs/inplace-and-views.md, "Views made under no_grad")."""
    if not h.is_view:
        return False
    made = h.view_made_without_grad
    return made is not None and made[0]


def check(t, op: str, result=None) -> None:
    """Raises PyTorch's RuntimeError where the in-place op `op` writes `result` (None: the op
    changes t's shape only) into t, a view made under no_grad(), with grad mode on."""
    if not _C.grad_enabled():  # first: cheaper than the view read, which builds a tuple
        return
    made = t._h.view_made_without_grad
    if made is None:
        return
    own, storage_requires_grad, last_op, last_node = made
    if not storage_requires_grad and (result is None or not result._h.requires_grad):
        return
    ref = _IN_INFERENCE.get(id(t))
    in_inference = ref is not None and ref() is t  # (not another tensor that took a collected one's id)
    if own and in_inference:
        raise _C.TensorStateError(
            "A view was created in inference mode and is being modified inplace in normal mode."
            + _FORBIDDEN.format(block="inference_mode") + f"\n  {op}: writes a view {list(t.shape)} {t.dtype} made "
            "inside inference_mode()\n  fix: make the view and the write both inside the block or both outside")
    if own:
        head = "A view was created in"
    else:
        from ._tensor import _GradFn
        node = last_node or _GradFn(last_op).name()  # the reference versions' names (SliceBackward0)
        head = f"Output 0 of {node} is a view of a view which was created in"
    why = "its storage requires grad" if storage_requires_grad else "the value written requires grad"
    raise _C.TensorStateError(
        f"{head} no_grad mode and is being modified inplace with grad mode enabled.{_FORBIDDEN.format(block='no_grad')}\n"
        f"  {op}: writes a view {list(t.shape)} {t.dtype} made under no_grad(), and {why}\n"
        f"  fix: make the view inside the block that writes it (both under glassgrad.no_grad(), or both "
        f"outside), or write a clone: v = v.clone()")
