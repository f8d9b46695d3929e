"""Tensor._base and Tensor._is_view(), as PyTorch's: a view's _base is the tensor its chain of
views started from (the root, never an intermediate view: `x[1:].t()[0]._base is x`), the same
Python object, which the view keeps alive; a tensor that is not a view has None.

Invariants (docs/inplace-and-views.md, "Tensor._base"):
- The root is recorded on the Tensor object (a slot: deepcopy, pickling and __dict__ copies never
  carry it; in-place ops keep it, as they change the handle, not the object) by the public view
  functions (PyTorch's list of view ops: indexing, view, reshape, t, transpose, split, ...) when
  a caller outside the package calls them and the result shares the input's storage. Other ops
  pay nothing. glassgrad's own layout steps (a result permuted to a channels_last or transposed
  input's order, a reshape of a computed matrix product) are runtime views of fresh values that
  PyTorch makes as new tensors: they stay no views.
- detach(), .data and copies are not views; a view of them has them as its base.
- A view of an inference tensor is no view (PyTorch tracks no views of inference tensors)."""
from __future__ import annotations

import functools
import sys

from ._trace import _PACKAGE_DIR

# PyTorch's view functions (docs "Tensor Views"), as Tensor methods and torch.<name> functions
# (indexing: _new_view_on_whole_key)
_METHODS = ("view", "view_as", "reshape", "reshape_as", "flatten", "unflatten", "t", "transpose",
            "swapaxes", "swapdims", "permute", "movedim", "moveaxis", "select", "unsqueeze", "squeeze", "expand",
            "expand_as", "narrow", "diagonal", "unbind", "split", "split_with_sizes", "chunk", "tensor_split",
            "hsplit", "vsplit", "dsplit", "as_strided", "unfold", "adjoint", "view_as_real")
_PROPERTIES = ("T", "mT", "H", "mH", "real", "imag")
_FUNCTIONS = ("reshape", "flatten", "unflatten", "t", "transpose", "swapaxes", "swapdims", "permute", "movedim",
              "moveaxis", "select", "unsqueeze", "squeeze", "narrow", "diagonal", "unbind", "split",
              "split_with_sizes", "chunk", "tensor_split", "hsplit", "vsplit", "dsplit", "as_strided", "adjoint",
              "view_as_real", "real", "imag")


def _record(out, source) -> None:
    """`out`, made by a view function from `source`, gets source's root as its base when it is a
    view of source's storage (not a copy, not source itself)."""
    h = out._h
    if out is source or not h.is_view or not h.shares_storage(source._h) or source.is_inference():
        return
    out._view_base = getattr(source, "_view_base", source)  # view_of, inline: a batch slice's calls are counted


def view_of(out, source) -> None:
    """`out` becomes a view whose base is source's root (source itself where it is no view): an
    output a custom autograd.Function's forward returned as a view of its input, or that input as
    it is (autograd/function.py), as PyTorch's."""
    out._view_base = getattr(source, "_view_base", source)


def _recording(f, tensor_type):
    @functools.wraps(f)
    def view_function(*args, **kwargs):
        out = f(*args, **kwargs)
        if sys._getframe(1).f_code.co_filename.startswith(_PACKAGE_DIR):
            return out  # a step inside another glassgrad function (module docstring)
        source = args[0] if args else kwargs.get("input")
        if isinstance(source, tensor_type):
            if isinstance(out, tensor_type):
                _record(out, source)
            elif isinstance(out, (tuple, list)):
                for x in out:
                    if isinstance(x, tensor_type):
                        _record(x, source)
        return out
    return view_function


def _new_view_on_whole_key(getitem, op):
    """Tensor.__getitem__ recording a view's base, a key that takes all of x (x[:], x[...])
    giving a new view of x, as PyTorch's (x itself inside the package; PyTorch's node names:
    SliceBackward0 for one slice, else AliasBackward0)."""
    @functools.wraps(getitem)
    def __getitem__(self, key):
        out = getitem(self, key)
        if sys._getframe(1).f_code.co_filename.startswith(_PACKAGE_DIR):
            return out
        if out is self:
            shape = list(self._h.shape)
            if type(key) is slice and shape:
                out = op("Slice", [self], {"dim": 0, "start": 0, "stop": shape[0], "step": 1})
            else:
                out = op("Reshape", [self], {"shape": shape, "torch_node": "AliasBackward0"})
        _record(out, self)
        return out
    return __getitem__


def install(tensor_type, namespace: dict, op) -> None:
    """Wraps the view functions of tensor_type and of the glassgrad namespace (op: _tensor._op)."""
    for name in _METHODS:
        f = tensor_type.__dict__.get(name)
        if callable(f):
            setattr(tensor_type, name, _recording(f, tensor_type))
    setattr(tensor_type, "__getitem__", _new_view_on_whole_key(tensor_type.__dict__["__getitem__"], op))
    for name in _PROPERTIES:
        p = tensor_type.__dict__.get(name)
        if isinstance(p, property) and p.fget is not None:
            setattr(tensor_type, name, property(_recording(p.fget, tensor_type), p.fset, p.fdel, p.__doc__))
    for name in _FUNCTIONS:
        f = namespace.get(name)
        if callable(f):
            namespace[name] = _recording(f, tensor_type)


def base(t):
    """Tensor._base: the root tensor of t's views, or None."""
    try:
        return t._view_base
    except AttributeError:
        return None


def is_view(t) -> bool:
    """Tensor._is_view(): whether t is a view of another tensor (its _base is not None)."""
    try:
        t._view_base
    except AttributeError:
        return False
    return True
