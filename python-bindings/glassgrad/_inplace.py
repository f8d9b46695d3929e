"""In-place ops with PyTorch's semantics on the lazy graph (docs/inplace-and-views.md).

A tensor is a handle on a storage it shares with its views and aliases (x.view(...), x[1:3],
x.t(), x.detach(), x.data). An in-place op computes its out-of-place result and makes it the
storage's new version (lazy.h, core-runtime/src/lazy/alias.cpp): every view and alias of the
storage reads the new version from then on, a write through a view lands in the right elements
of its base, and the graph holds functional ops only.

One mechanism serves every `*_` method: `in_place(method)` turns an out-of-place Tensor method
into its in-place form, so each is one line in the class body (`add_ = in_place(add)`). The
result must have the tensor's shape (broadcasting the other operand is fine, growing the
tensor is not) and a dtype PyTorch would cast to the tensor's (float results are not truncated
into an integer tensor). `in_place_view(method)` does the same for the view methods whose `*_`
form changes the tensor's own shape (`unsqueeze_ = in_place_view(unsqueeze)`).
"""
from __future__ import annotations

import functools
import math
import numbers

import numpy as np

from . import (_C, _args, _dtypes, _expanded_writes, _multi_views, _no_grad_views, _node_inputs, _runtime,
               _shared_memory, _view_hooks)
# glassgrad._tensor imports this module first, so it is partly made here: its names (and
# _tensor._indexing, imported at its end) are read when called, without an import per call.
from . import _tensor
from ._trace import _PACKAGE_DIR


def _castable(src: str, dst: str) -> bool:
    """PyTorch's can_cast for an in-place result: bool < integers < floats, never downwards."""
    return _dtypes.can_cast(src, dst)


def _type_name(dt: str) -> str:
    """PyTorch's legacy type name of a dtype, as its cast errors print it (Float, Long, ...)."""
    return _TYPE_NAMES.get(_dtypes.plain(dt), _dtypes.plain(dt))


_TYPE_NAMES = {"float16": "Half", "bfloat16": "BFloat16", "float32": "Float", "float64": "Double", "int8": "Char",
               "int16": "Short", "int32": "Int", "int64": "Long", "uint8": "Byte", "bool": "Bool"}


def check_not_inference(t, op: str) -> None:
    """PyTorch refuses an in-place update of a tensor made inside inference_mode() once outside it,
    with or without grad mode."""
    if t.is_inference() and not _runtime.is_inference_mode_enabled():
        raise _C.TensorStateError(
            "Inplace update to inference tensor outside InferenceMode is not allowed.You can make a clone to get "
            "a normal tensor before doing inplace update.See https://github.com/pytorch/rfcs/pull/17 for more "
            f"details.\n  {op}: this tensor {list(t.shape)} {t.dtype} was made inside inference_mode()\n"
            "  fix: x = x.clone() outside inference_mode(), then update the clone")


def count_write(t, op: str) -> None:
    """A write of t's own values that PyTorch counts (autograd.graph.increment_version, a custom
    Function's dirty input): t's version goes up by one and its value becomes a new version, so
    a backward that reads what was saved before raises PyTorch's error while later uses of t do
    not (a count alone leaves the saved value and t's one value, which all its readers would then
    find modified). Written under no_grad, the gradient passes through unchanged and grad_fn stays
    (docs/inplace-and-views.md)."""
    first = _C.lazy_seq()
    with _runtime.no_grad():
        write(t, t.detach().clone(), op, first)


def write(t, result, op: str, first_seq: int, cast: bool = False, node: str = ""):
    """Makes `result` (computed from t since sequence number first_seq) the new value of t's
    storage and returns t. cast: convert any dtype (copy_); otherwise only the casts PyTorch's
    in-place ops allow. node: PyTorch's backward node of the write, named on the Where that joins
    a constant written into a tensor that requires grad to its history (fill_'s FillBackward2), or
    on the new version a value that requires grad makes (copy_'s CopyBackwards)."""
    check_not_inference(t, op)
    _multi_views.check(t, op)
    _no_grad_views.check(t, op, result)
    if _view_hooks.HOOKED:
        _view_hooks.written(t)
    th = t._h
    if th.writes_as_is(result._h) and not _shared_memory.holds_shared_values(t):
        th.write_here(result._h, op, first_seq, _PACKAGE_DIR, node)  # nothing to check or convert
        return t
    rh = result._h
    want, got = th.shape, rh.shape
    if got != want:
        try:
            fits = np.broadcast_shapes(got, want) == want
        except ValueError:
            fits = False
        if not fits:
            raise _C.TensorStateError(
                f"output with shape {list(want)} doesn't match the broadcast shape {list(got)}\n"
                f"  {op}: the result of the in-place op would have shape {list(got)}, the tensor has {list(want)}\n"
                f"  fix: the out-of-place form makes a new tensor of the larger shape: y = x.{op[:-1]}(...)")
        result = result.expand(*want)
    dst, src = th.dtype, rh.dtype
    if src != dst:
        if not cast and not _castable(src, dst):
            raise _C.TensorStateError(
                f"result type {_type_name(src)} can't be cast to the desired output type {_type_name(dst)}\n"
                f"  {op}: the result is {src}, the tensor is {dst}, and {op} would truncate it\n"
                f"  fix: convert the tensor first (x = x.to({src!r})) or use the out-of-place form")
        result = result.astype(dst)
    if result._h.device != th.device:
        result = result.to(t.device)
    if th.requires_grad and not result._h.requires_grad and _C.grad_enabled():
        result = _keep_history(t, result, node)
    shared = _shared_memory.holds_shared_values(t)
    th.write_here(result._h, op, first_seq, _PACKAGE_DIR, node)
    if shared:  # other processes read this memory: the write happens now (_shared_memory's doc)
        _C.lazy_realize([t._h])
    return t


def _keep_history(t, result, node: str = ""):
    """result (which needs no gradient: a fill_, zero_ or copy_ of a constant) joined to t's
    history with a zero gradient, so t still requires gradients after the write, as in PyTorch
    (x.zero_() on a computed x: x.requires_grad stays True, and what x was computed from gets a
    zero gradient). where(False, t, result) has result's values exactly (a NaN or inf in t
    cannot leak into them) and sends t a zero gradient."""
    from ._tensor import _op, tensor
    return _op("Where", [tensor(False, device=t.device), t, result], {"torch_node": node} if node else None)


# In-place ops whose bool form PyTorch's CPU kernel lacks (its NotImplementedError, before the
# result's dtype is checked): op -> the kernel its message names
_NO_BOOL_KERNEL = {"cumsum_": "cumsum_out_cpu", "cumprod_": "cumprod_out_cpu"}


def in_place(method, name: str = ""):
    """The in-place form (`name`, default: method's name + '_') of an out-of-place Tensor method."""
    op = name or method.__name__ + "_"
    no_bool_kernel = _NO_BOOL_KERNEL.get(op)

    @functools.wraps(method)
    def run(self, *args, **kwargs):
        if no_bool_kernel and self._h.dtype == "bool":
            raise _args.UnsupportedDTypeError(f"\"{no_bool_kernel}\" not implemented for 'Bool'\n  {op}: the tensor is "
                                              f"bool\n  fix: the out-of-place form, x.{op[:-1]}(dim), gives int64")
        first = _C.lazy_seq()
        result = method(self, *args, **kwargs)
        if result is NotImplemented:  # x += None, x += [1, 2]: Python then tries x + other, a TypeError
            return result
        return write(self, result, op, first)

    run.__name__ = run.__qualname__ = op
    run.__doc__ = f"In-place version of {method.__name__}(): writes the result into this tensor and returns it."
    return run


def in_place_saving_input(method, name: str = ""):
    """in_place for a method whose autograd.Function saves its input for backward (the special
    functions, logit): a copy of the input goes in where it requires a gradient, so the write into
    this tensor leaves the saved value as it was (PyTorch saves the original self of such in-place
    ops too)."""
    op = name or method.__name__ + "_"

    def method_of_copy(self, *args, **kwargs):
        return method(self.clone() if self.requires_grad and _C.grad_enabled() else self, *args, **kwargs)
    method_of_copy.__name__ = method.__name__
    return in_place(method_of_copy, op)


# PyTorch's node of each in-place view op, by its out-of-place form's node
_INPLACE_VIEW_NODES = {"UnsqueezeBackward0": "UnsqueezeBackward1", "SqueezeBackward0": "SqueezeBackward3",
                       "SqueezeBackward1": "SqueezeBackward4", "TBackward0": "TBackward1",
                       "TransposeBackward0": "TransposeBackward1", "AsStridedBackward0": "AsStridedBackward1"}


def in_place_view(method, name: str = ""):
    """The in-place form (`name`, default: method's name + '_') of a view method: this tensor
    object becomes the view (unsqueeze_, transpose_, ...) while other aliases of its storage keep
    their shapes, as PyTorch's in-place view ops do."""
    op = name or method.__name__ + "_"

    @functools.wraps(method)
    def run(self, *args, **kwargs):
        _multi_views.check(self, op)
        _no_grad_views.check(self, op)
        if _C.grad_enabled() and self._h.requires_grad and self._h.is_view and _views_a_leaf(self._h):
            raise _C.TensorStateError(
                f"a view of a leaf Variable that requires grad is being used in an in-place operation.\n"
                f"  {op} changes the shape of a view {list(self.shape)} of a leaf tensor that requires gradients\n"
                f"  fix: y = v.{method.__name__}(...) makes a new view without changing v, or call it under "
                f"glassgrad.no_grad()")
        view = method(self, *args, **kwargs)
        if self.requires_grad and self.is_leaf:
            if _C.grad_enabled():
                what = f"'{self.name}'" if self.name else "a tensor"
                raise _C.TensorStateError(
                    f"a leaf Variable that requires grad is being used in an in-place operation.\n"
                    f"  {op} changes the shape of {what} "
                    f"{list(self.shape)}, which requires gradients\n"
                    f"  fix: y = x.{method.__name__}(...) makes a view without changing x, or call it under "
                    f"glassgrad.no_grad()")
            if view is not self:
                self.data = view.detach()  # under no_grad a leaf stays a leaf, of the new shape
        else:
            node = _INPLACE_VIEW_NODES.get(view.grad_fn.name()) if view._h.requires_grad and not view.is_leaf else None
            if node is not None:  # PyTorch's node of the in-place form (t_: TBackward1)
                from ._torch_operands import named_node
                view = named_node(view, node, self)
            self._h = view._h
        return self

    run.__name__ = run.__qualname__ = op
    run.__doc__ = f"In-place version of {method.__name__}(): this tensor becomes the view and is returned."
    return run


def _views_a_leaf(h) -> bool:
    """Whether the view h was made (through views only) from a leaf that requires grad: PyTorch
    refuses an in-place op on it (autograd's check_inplace)."""
    for _ in range(64):
        if h.op not in _node_inputs.VIEWING or not h.producer_inputs:
            break
        h = h.producer_inputs[0]
    return h.is_leaf and h.requires_grad and not h.is_view


def activation(input, inplace, op: str, compute, node: str = ""):
    """compute() (the out-of-place result of an activation or dropout of input), written into
    input itself and returned as it when inplace (PyTorch's F.relu(x, inplace=True), nn.ReLU(True),
    ...: the same tensor object, its aliases and views see the change). node: PyTorch's backward
    node of the in-place form where it is not the out-of-place one's (elu_'s EluBackward1)."""
    if not _args.switch(inplace):
        return compute()
    first = _C.lazy_seq()
    return write(input, compute(), op, first, node=node)


def fill_(t, value, node: str = ""):
    """Every element := value (a number or a 0-d tensor). node: PyTorch's backward node when it
    is not fill_'s (zero_'s ZeroBackward0)."""
    from ._tensor import Tensor, _scalar_like
    first = _C.lazy_seq()
    if isinstance(value, Tensor):
        if value.ndim != 0:
            raise _C.TensorStateError(f"fill_ only supports 0-dimension value tensor but got tensor with "
                                      f"{value.ndim} dimensions\n  fix: x.copy_(value) to copy a tensor")
        v = value
    else:
        # PyTorch fills one element on the CPU unchecked: float16 and bfloat16 take an overflow as inf
        v = _scalar_like(value, t, narrow_floats=t.numel() != 1 or t.device.type != "cpu")
    # PyTorch's nodes: fill_ with a tensor FillBackward3, with a number FillBackward2
    node = node or ("FillBackward3" if isinstance(value, Tensor) else "FillBackward2")
    return write(t, v.expand(*t.shape) if t.ndim else v, "fill_", first, cast=True, node=node)


def copy_(t, src, non_blocking: bool = False):
    """t's elements := src's, broadcast to t's shape, converted to t's dtype and device."""
    from ._tensor import Tensor, tensor
    first = _C.lazy_seq()
    if not isinstance(src, Tensor):
        src = tensor(np.asarray(src), dtype=t._h.dtype, device=t.device)
    return write(t, src, "copy_", first, cast=True, node="CopyBackwards")


def apply_elementwise(t, fn, op: str, *others):
    """t[i] := fn(t[i], other[i], ...) for each element, on the host, with Python numbers of each
    tensor's dtype (Tensor.apply_, Tensor.map_; others are broadcast to t's shape). As PyTorch's,
    refused for a tensor that requires grad (the function is no op of the graph); a result that
    is no real number is a TypeError; a float result written into an integer tensor truncates."""
    import numbers

    from ._tensor import Tensor, tensor
    if t.requires_grad:
        raise _C.TensorStateError(f"{op}: can't call {op}() on a tensor that requires grad (the function is "
                                  f"not differentiable)\n  fix: x.detach().{op}(...), or compute with tensor ops")
    if not callable(fn):
        raise _args.InvalidArgumentTypeError(f"{op}: expected a callable, got {type(fn).__name__}\n"
                                             f"  fix: x.{op}(lambda v: v * 2)")
    columns = []
    for o in others:
        if not isinstance(o, Tensor):
            raise _args.InvalidArgumentTypeError(f"{op}: expected a tensor, got {type(o).__name__}\n"
                                                 f"  fix: x.{op}(glassgrad.tensor(values), fn)")
        try:
            columns.append(np.broadcast_to(o.detach().numpy(), tuple(t.shape)).ravel().tolist())
        except ValueError:
            raise _C.ShapeError(f"{op}: the tensor {list(o.shape)} does not broadcast to this tensor's shape "
                                f"{list(t.shape)}\n  fix: a tensor of shape {list(t.shape)} or one that broadcasts "
                                f"to it") from None
    mine = t.detach().numpy()
    values = [fn(*args) for args in zip(mine.ravel().tolist(), *columns)]
    for v in values:
        if not isinstance(v, (numbers.Real, np.number, np.bool_)):
            raise _args.InvalidArgumentTypeError(f"{op}: the function must return a real number, got "
                                                 f"{type(v).__name__}\n  fix: return int(...) or float(...)")
    if mine.dtype.kind in "iu":
        values = [int(v) for v in values]  # truncated toward zero, exact beyond 2**53
    elif mine.dtype.kind == "b":
        values = [bool(v) for v in values]
    new = np.asarray(values, dtype=mine.dtype if mine.dtype.kind != "f" else np.float64).reshape(mine.shape)
    return copy_(t, tensor(new.astype(mine.dtype), device=t.device))


def random_fill(t, op: str, draw_numbers, generator=None, floating: bool = True):
    """t := fresh random numbers draw_numbers(rng, shape) -> array, from `generator`
    (a glassgrad.Generator) or the global one, drawn again on every replay of a compiled step
    (compile.random_input). floating: the op is a continuous distribution (PyTorch refuses
    integer tensors there)."""
    from . import _random
    from ._tensor import _wrap
    from .compile import random_input
    if floating and t._h.dtype not in ("float16", "bfloat16", "float32", "float64"):
        # PyTorch: a RuntimeError for exponential_ and cauchy_, its kernels' NotImplementedError
        # for uniform_, normal_ and log_normal_ (UnsupportedDTypeError is both, and a TypeError)
        raise _args.UnsupportedDTypeError(f"{op}: the distribution is continuous, so the tensor must be floating "
                                          f"point, got {t._h.dtype}\n  fix: x = x.float() first")
    shape, dtype, device = tuple(t.shape), t._h.dtype, t.device
    first = _C.lazy_seq()

    def draw() -> "_C.Tensor":
        rng = generator.numpy_generator() if generator is not None else _random.generator()
        return _C.Tensor.from_numpy(np.asarray(draw_numbers(rng, shape), dtype=dtype), device, op)

    values = random_input(_wrap(_C.lazy_leaf(draw(), "input", False, "")), draw)
    return write(t, values, op, first)


def _integer_range(t, frm, to):
    """random_'s [low, high): random_() draws from [0, 2**mantissa] for floats and [0, max] for
    integers, random_(to) from [0, to), random_(from, to) from [from, to) (PyTorch's)."""
    if to is None and frm is not None:
        frm, to = 0, frm
    low = 0 if frm is None else int(frm)
    if to is None:
        mantissa = {"float16": 11, "bfloat16": 8, "float32": 24, "float64": 53}
        dt = t._h.dtype
        high = 2 ** mantissa[dt] + 1 if dt in mantissa else (2 if dt == "bool" else int(np.iinfo(dt).max))
    else:
        high = int(to)
    if low >= high:
        raise _C.InvalidArgumentError(f"random_ expects 'from' to be less than 'to', but got from={low} >= to={high}"
                                      f"\n  fix: x.random_({high}, {low}) (the range is [from, to))")
    return low, high


def random_(t, frm=None, to=None, generator=None):
    """Tensor.random_([from,] to): integers drawn uniformly from [from, to)."""
    low, high = _integer_range(t, frm, to)
    return random_fill(t, "random_", lambda rng, shape: rng.integers(low, high, shape, endpoint=False), generator,
                       floating=False)


def bernoulli_(t, p=0.5, generator=None):
    """Tensor.bernoulli_(p): each element 1 with probability p (a number or a tensor broadcast to t), else 0."""
    from ._tensor import Tensor
    prob = p.numpy(force=True) if isinstance(p, Tensor) else float(p)
    if not ((np.asarray(prob) >= 0) & (np.asarray(prob) <= 1)).all():  # NaN too, as PyTorch
        raise _C.InvalidArgumentError(f"bernoulli_ expects p to be in [0, 1], but got p={p}\n  fix: a probability")
    return random_fill(t, "bernoulli_", lambda rng, shape: rng.random(shape) < prob, generator, floating=False)


def setitem(t, key, value) -> None:
    """t[key] = value (PyTorch's semantics; glassgrad/_indexing.py reads keys the same way)."""
    _indexing, Tensor, _op, _scalar_like, tensor = (_tensor._indexing, _tensor.Tensor, _tensor._op,
                                                     _tensor._scalar_like, _tensor.tensor)
    check_not_inference(t, "__setitem__")
    ints = _indexing.int_key(t, key)
    # x[i, j] += 1 ends with x[i, j] = x[i, j]: nothing to copy, a write to count
    if ints is not None and isinstance(value, Tensor) and t._h.names_positions(ints, value._h):
        t._h.count_identity_write("__setitem__")
        return
    first = _C.lazy_seq()
    where = "x[...] = value"
    if isinstance(value, Tensor):
        v = value if value.device == t.device else value.to(t.device)
    elif type(value) in (int, float, bool):
        v = _written_number(value, t)
    else:
        if value is None or isinstance(value, (str, bytes)) or not isinstance(value, (numbers.Number, np.generic,
                                                                                     np.ndarray, list, tuple)):
            raise TypeError(f"can't assign a {type(value).__name__} to a {_type_name(t._h.dtype)}Tensor\n  "
                            f"{where}: the tensor is {list(t.shape)} {t.dtype}\n  fix: a number or a tensor")
        v = _scalar_like(value, t, narrow_floats=False) if np.ndim(value) == 0 else tensor(np.asarray(value), dtype=t._h.dtype,
                                                                       device=t.device)
    # x[mask] = number with a mask over leading axes: a select, no need to know the mask's values.
    if (isinstance(key, Tensor) and key._h.dtype == "bool" and v.ndim == 0
            and tuple(key.shape) == tuple(t.shape[:key.ndim])):
        mask = key.reshape(*key.shape, *([1] * (t.ndim - key.ndim)))
        v = v.astype(t._h.dtype)
        # PyTorch's index_put_ node lists (self, value) (Tensor.grad_fn, _node_inputs)
        named = {"torch_node": "IndexPutBackward0"} if t._h.requires_grad or v._h.requires_grad else None
        result = _op("Where", [mask, v, t], named)
        try:
            write(t, result, "__setitem__", first, cast=True)
        except _C.TensorStateError:  # an expanded t: PyTorch's index_put_, then masked_fill_
            if not _expanded_writes.applies(t, result):
                raise
            _expanded_writes.write(t, ["index_put_", "masked_fill_"], first, mask.expand(*t.shape), result)
        return
    if ints is not None:  # x[i, j] = value: a view, planned without _plan
        view = _indexing.int_view(t, ints)
        write(view, _broadcast(v, tuple(view.shape), where), "__setitem__", first, cast=True)
        return
    plan = _indexing._plan(t, key, where)
    view = _indexing._basic_view(t, plan.basic)
    if not plan.indices and not plan.flips and _same_elements(view, v):
        view._h.count_identity_write("__setitem__")  # x[k] += 1 ends with x[k] = x[k]: nothing to copy
        return
    if plan.flips:  # negative steps: the ascending elements take the values reversed
        shape = tuple(_indexing._index(t, key).shape)
        v = _indexing._flip(_broadcast(v, shape, where), plan.flips)
    if not plan.indices:
        # x[:] = value and x[...] = value write x itself: PyTorch's copy_ node (a number is a
        # 0-d tensor there, filled in); a write into a part of x is CopySlices
        node = "" if view is not t else "CopyBackwards" if isinstance(value, Tensor) else "FillBackward3"
        write(view, _broadcast(v, tuple(view.shape), where), "__setitem__", first, cast=True, node=node)
        return
    if plan.lone_mask is not None and v.numel() == 1:  # PyTorch's masked_fill_ of the one value
        if plan.lone_mask != "bool":
            raise _C.DTypeError(f"masked_fill_ only supports boolean masks, but got mask with dtype "
                                f"{_type_name(plan.lone_mask).lower().replace('byte', 'unsigned char')}\n  "
                                f"{where}: a {plan.lone_mask} mask selects with one value\n  fix: x[mask.bool()] = value")
        v = v.astype(t._h.dtype)
    if v.ndim and v.shape[0] == 1:  # PyTorch's setitem drops a value's leading 1-sized dims before index_put_
        lead = next((i for i, n in enumerate(v.shape) if n != 1), v.ndim)
        v = v.reshape(*v.shape[lead:])  # x[mask] = token, token (1, 1, d) and x[mask] (k, d)
    if plan.perm is not None:  # the value in the layout of the Index op (PyTorch's, permuted back)
        shape = tuple(_indexing._index(t, key).shape)
        v = _broadcast(v, shape, where).permute([plan.perm.index(i) for i in range(len(plan.perm))])
    if v._h.dtype != t._h.dtype:
        if isinstance(value, Tensor) and not plan.selects_only:  # 0-d too, as PyTorch's index put
            raise _C.DTypeError(f"Index put requires the source and destination dtypes match, got "
                                f"{_type_name(t._h.dtype)} for the destination and {_type_name(v._h.dtype)} for "
                                f"the source.\n  fix: x[idx] = values.to(x.dtype)")
        v = v.astype(t._h.dtype)
    result = _op("IndexPut", [view, v] + plan.indices, {"dims": plan.dims})
    try:
        write(view, result, "__setitem__", first)
    except _C.TensorStateError:  # an expanded view: PyTorch's index_put_
        if not _expanded_writes.applies(view, result):
            raise
        mark = _tensor.tensor(True, device=view.device)
        written = _op("IndexPut", [_expanded_writes.zeros_mask(view), mark] + plan.indices, {"dims": plan.dims})
        _expanded_writes.write(view, ["index_put_"], first, written, result)


def _same_elements(view, v) -> bool:
    """Whether v is the very elements `view` names (the same storage, layout, shape and dtype),
    with no gradient tracked through either: then writing v into view changes nothing."""
    if v.requires_grad or view.requires_grad or not v._h.shares_storage(view._h):
        return False
    return v._h.dtype == view._h.dtype and tuple(v.shape) == tuple(view.shape) and v._h.layout == view._h.layout


_WRITTEN_NUMBERS: dict = {}


def _written_number(value, t):
    """_scalar_like(value, t) for a Python number written by x[key] = value, made once per number,
    dtype and device (a loop's `x[i, j] = 0.5`): the write copies it and nothing else receives
    it, so one constant serves every such write. At most 256 are kept; inside inference_mode()
    each write makes its own (such tensors are registered as inference tensors)."""
    th = t._h
    key = (type(value), value, math.copysign(1.0, value) if type(value) is float else 0, th.dtype, th.device)
    v = _WRITTEN_NUMBERS.get(key)
    if v is None:
        v = _tensor._scalar_like(value, t, narrow_floats=False)  # float16's 7e4 is inf, as PyTorch's
        if not _runtime._inference_blocks:
            if len(_WRITTEN_NUMBERS) >= 256:
                _WRITTEN_NUMBERS.clear()
            _WRITTEN_NUMBERS[key] = v
    return v


def _broadcast(v, shape, where: str):
    if tuple(v.shape) == tuple(shape):
        return v
    if v.ndim > len(shape) and all(n == 1 for n in v.shape[:v.ndim - len(shape)]):
        v = v.reshape(*v.shape[v.ndim - len(shape):])  # PyTorch drops a value's extra leading 1-sized dims
    try:
        ok = np.broadcast_shapes(tuple(v.shape), tuple(shape)) == tuple(shape)
    except ValueError:
        ok = False
    if not ok:
        raise _C.ShapeError(f"shape mismatch: value tensor of shape {list(v.shape)} cannot be broadcast to indexing "
                            f"result of shape {list(shape)}\n  {where}\n  fix: give the value the shape of x[key] "
                            f"(or one that broadcasts to it)")
    return v.expand(*shape)
