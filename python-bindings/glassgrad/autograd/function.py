"""torch.autograd.Function: a custom operation whose gradient the user writes. glassgrad's graph
is static and its gradients are graph nodes, so a Function joins it through gradient hooks
(docs/gradient-hooks.md); docs/autograd.md draws the construction:

    x ──(x*1)── p ─┐                   (p: a proxy of each input that needs a gradient)
                   ├─ link = Σ p.sum()   (value never used: where(False, link, y) is y exactly)
    y = forward(x) ┴─ out = where(False, link, y.detach())

backward() reaches `out` first: its hook keeps d(loss)/d(out). It then reaches each proxy p
(after every output, since p feeds them all): p's hook calls the user's backward(ctx, *grads)
once and returns the gradient for its input, which flows on to x as the gradient of x*1; for
None it returns _C.undefined_gradient: nothing flows on, and x gets no gradient from this
Function (a leaf reached only through it keeps .grad None, as PyTorch's; docs/architecture.md,
"Undefined gradients").
Forward runs under no_grad, as PyTorch's does; in a compiled step backward() runs when the
step is traced and its ops replay with it."""
from __future__ import annotations

import functools
import warnings
import weakref
from typing import Any, Optional

from .. import _C, _backward_end, _inplace, _multi_views, _view_base
from .._runtime import no_grad, records_grad
from .._tensor import FREED_SAVED_TENSORS, Tensor, _wrap
from . import _saved_mutation


class FunctionCtx:
    """The ctx of forward/backward: save_for_backward, saved_tensors, needs_input_grad,
    mark_non_differentiable, mark_dirty, set_materialize_grads; any other attribute is yours."""

    def __init__(self):
        self.to_save: tuple = ()
        self.needs_input_grad: tuple = ()
        self.non_differentiable: set = set()
        self.dirty: tuple = ()
        self.materialize_grads = True
        self.metadata: dict = {}  # PyTorch's node metadata: a dict for the user's own entries
        self._node_name = "Backward"
        self._inputs: tuple = ()
        self._freed = False  # a backward that keeps no graph ran this node's backward (saved_tensors)
        # (position in to_save, tensor watched, its _version when apply() finished, the output index
        # where it is an output, the value as saved where allow_mutation_on_saved_tensors was open):
        # saved_tensors refuses a saved tensor written in place since (_check_saved_versions)
        self._saved_versions: tuple = ()
        self._mutation_context = None  # the allow_mutation_on_saved_tensors context that saw apply()

    def name(self) -> str:
        """The node's name, as PyTorch names a custom Function's: '<Class>Backward'."""
        return self._node_name

    @property
    def requires_grad(self) -> bool:
        """Whether any input needs a gradient (the node's outputs then require grad)."""
        return any(self.needs_input_grad)

    @property
    def next_functions(self) -> tuple:
        """(node, 0) per tensor argument of forward: the node that made one needing a gradient
        (its grad_fn, AccumulateGrad for a leaf), else (None, 0); other arguments are no edges,
        as in PyTorch."""
        from .._tensor import _AccumulateGrad
        out: list = []
        for a in self._inputs:
            if not isinstance(a, Tensor):
                continue
            if not a.requires_grad:
                out.append((None, 0))
            elif a.grad_fn is not None:
                out.append((a.grad_fn, 0))
            else:
                node = _AccumulateGrad(a._h)
                node._variable = a
                out.append((node, 0))
        return tuple(out)

    @property
    def saved_variables(self) -> tuple:
        """The deprecated name of saved_tensors (PyTorch's DeprecationWarning)."""
        warnings.warn("'saved_variables' is deprecated; use 'saved_tensors'", DeprecationWarning, stacklevel=2)
        return self.saved_tensors

    def save_for_backward(self, *tensors) -> None:
        from ..sparse import SparseTensor  # a sparse COO tensor is a tensor here too (PyTorch's are)
        for i, t in enumerate(tensors):
            if t is not None and not isinstance(t, (Tensor, SparseTensor)):
                raise TypeError(f"save_for_backward can only save variables, but argument {i} is of type "
                                f"{type(t).__name__}\n  fix: keep non-tensors as ctx attributes (ctx.k = k)")
        self.to_save = tensors

    def save_for_forward(self, *tensors) -> None:
        """PyTorch's: tensors for the Function's jvp. glassgrad's forward mode differentiates the
        Function's backward instead (autograd/forward_ad.py), so they are checked, as PyTorch's
        are, and kept as ctx.saved_for_forward."""
        for t in tensors:
            if not (t is None or isinstance(t, Tensor)):
                raise AssertionError("save_for_forward expects all arguments to be tensors; you should save "
                                     f"non-tensors as attributes on ctx.\n  got a {type(t).__name__}\n  fix: "
                                     "ctx.k = k for a number or another object")
        self.saved_for_forward = tensors

    @property
    def saved_tensors(self) -> tuple:
        """The tensors save_for_backward kept; as PyTorch's, freed once a backward() or
        autograd.grad() without retain_graph=True has run this node's backward (reading them
        then raises PyTorch's RuntimeError)."""
        if self._freed:
            raise _C.TensorStateError(
                f"{FREED_SAVED_TENSORS}\n  {self._node_name}.saved_tensors: a backward without retain_graph=True "
                "has run this node\n"
                "  fix: loss.backward(retain_graph=True) (or autograd.grad(..., retain_graph=True)) to read them after")
        if self._mutation_context is not None and self._mutation_context.closed:
            raise _saved_mutation.outside_error(self._node_name)
        if self._saved_versions:
            return self._check_saved_versions()
        return self.to_save

    def _check_saved_versions(self) -> tuple:
        """PyTorch's check as its saved tensors are unpacked: a tensor save_for_backward kept that
        an in-place op wrote since apply() returned raises its RuntimeError (the value backward
        would read is no longer the one forward saw; docs/autograd.md, "Custom Functions"), but
        where saved inside allow_mutation_on_saved_tensors(): the value as saved stands for it.
        Returns the saved tensors."""
        saved = list(self.to_save)
        for k, (i, t, version, output_nr, as_saved) in enumerate(self._saved_versions):
            now = t._version
            if now == version:
                continue
            if as_saved is not None:
                saved[i] = as_saved
                continue
            if output_nr is not None:  # a saved output names this node, as PyTorch's message does
                which = f", which is output {output_nr} of {self._node_name[:-len('Backward')]},"
            elif t.grad_fn is not None:
                which = f", which is output {t.output_nr} of {_op_name(t.grad_fn.name())},"
            else:
                which = ""
            raise _C.TensorStateError(
                "one of the variables needed for gradient computation has been modified by an inplace operation: "
                f"[{t.type()} {list(t.shape)}]{which} is at version {now}; expected version {version} instead.\n"
                f"  {self._node_name}.saved_tensors: saved tensor {k} was written in place "
                f"{now - version} time(s) after forward saved it, and backward would read the new values\n"
                "  fix: clone it before the in-place op (x = x.clone()), make that op out of place (x = x * 2 "
                "instead of x.mul_(2)), or save a clone in forward (ctx.save_for_backward(x.clone()))")
        return tuple(saved)

    def _watch_saved(self, outs: tuple, wrapped: list) -> None:
        """Notes each saved tensor's _version as apply() returns: a saved output as the tensor the
        caller got (wrapped[j] for forward's outs[j]). Inside allow_mutation_on_saved_tensors()
        also a tensor pinning the value as saved (the graph keeps every version of a value, so
        the pin reads the saved values after a write, which PyTorch's context clones for)."""
        self._mutation_context = _saved_mutation.open_context()
        out_index = {id(y): j for j, y in enumerate(outs)}
        watched = []
        for i, t in enumerate(self.to_save):
            if not isinstance(t, Tensor):
                continue
            j = out_index.get(id(t))
            seen = t if j is None else wrapped[j]
            as_saved = None if self._mutation_context is None else _wrap(seen._h.pin())
            watched.append((i, seen, seen._version, j, as_saved))
        self._saved_versions = tuple(watched)

    def mark_non_differentiable(self, *tensors) -> None:
        self.non_differentiable |= {id(t) for t in tensors}

    def mark_dirty(self, *tensors) -> None:
        self.dirty = tensors

    def set_materialize_grads(self, value: bool) -> None:
        self.materialize_grads = bool(value)


class BackwardCFunction(FunctionCtx):
    """The class of a custom Function's backward node, which is its ctx (as PyTorch's): one
    subclass per Function, '<Class>Backward', made by the Function's metaclass. Tensor.grad_fn of
    an output is the ctx forward filled; apply(*grads) runs the Function's backward."""

    _forward_cls: Any = None

    def apply(self, *grad_outputs):
        """The Function's backward(ctx, *grad_outputs), called directly (PyTorch's node.apply)."""
        return _user_backward(self._forward_cls)(self, *grad_outputs)


class _FunctionMeta(type):
    def __init__(cls, name, bases, attrs):
        super().__init__(name, bases, attrs)
        # PyTorch's node class of this Function (Function._backward_cls, type(out.grad_fn)), made
        # in autograd.function whatever module defines the Function, so it prints as PyTorch's
        # (<torch.autograd.function.MyReLUBackward object at 0x...>)
        cls._backward_cls = type(f"{name}Backward", (BackwardCFunction,), {"_forward_cls": cls,
                                                                          "__module__": __name__})


# Each custom Function output's ctx (its grad_fn), by the output's runtime value (identity): held
# weakly, the ctx staying alive through the graph's hooks while the output's graph does
_NODES: "weakref.WeakValueDictionary[int, FunctionCtx]" = weakref.WeakValueDictionary()


def node_of(handle) -> Optional[FunctionCtx]:
    """The ctx standing as grad_fn for the custom Function output whose runtime handle is
    `handle`, or None."""
    ctx = _NODES.get(handle.identity)
    return ctx if ctx is not None and handle.producer_attr("torch_node") == ctx._node_name else None


class Function(metaclass=_FunctionMeta):
    """Subclass with static forward(ctx, *args) and backward(ctx, *grad_outputs) (or forward(*args)
    plus setup_context(ctx, inputs, output)), then call Cls.apply(*args). backward returns one
    gradient (or None) per forward argument."""

    generate_vmap_rule = False

    def __init__(self, *args, **kwargs):
        # As PyTorch's: an instance is made, with a DeprecationWarning; calling it raises (__call__)
        warnings.warn(f"{self.__class__} should not be instantiated. Methods on autograd functions are all static, "
                      "so you should invoke them on the class itself. Instantiating an autograd function will raise "
                      "an error in a future version of PyTorch.", DeprecationWarning, stacklevel=2)

    def __call__(self, *args, **kwargs):
        raise RuntimeError("Legacy autograd function with non-static forward method is deprecated. Please use "
                           "new-style autograd function with static forward method.\n  fix: @staticmethod "
                           f"def forward(ctx, ...), then call {type(self).__name__}.apply(...)")

    @staticmethod
    def forward(ctx: Any, *args: Any, **kwargs: Any) -> Any:
        raise NotImplementedError("You must implement the forward function for custom autograd.Function.")

    @staticmethod
    def backward(ctx: Any, *grad_outputs: Any) -> Any:
        raise NotImplementedError("You must implement either the backward or vjp method for your custom "
                                  "autograd.Function to use it with backward mode AD.")

    vjp = backward

    @staticmethod
    def jvp(ctx: Any, *grad_inputs: Any) -> Any:
        """Forward mode's rule of a custom Function (PyTorch's; glassgrad's forward_ad computes
        tangents by reverse mode, so a Function's backward is what it uses)."""
        raise NotImplementedError("You must implement the jvp function for custom autograd.Function to use it with "
                                  "forward mode AD.")

    @staticmethod
    def vmap(info: Any, in_dims: Any, *args: Any) -> Any:
        """A custom Function's batching rule (PyTorch's); glassgrad's vmap calls apply once per
        sample, so none is needed."""
        raise NotImplementedError("To use autograd.Function with vmap, you must either override the vmap "
                                  "staticmethod or set generate_vmap_rule=True.")

    @staticmethod
    def setup_context(ctx: Any, inputs: tuple, output: Any) -> Any:
        """Override it to write forward(*args) without ctx (PyTorch 2's style)."""

    @classmethod
    def apply(cls, *args, **kwargs):
        ctx = cls._backward_cls()
        ctx.needs_input_grad = tuple(isinstance(a, Tensor) and a.requires_grad for a in args)
        ctx._node_name, ctx._inputs = f"{cls.__name__}Backward", args
        if cls.jvp is Function.jvp and _has_tangent(args):
            raise NotImplementedError("You must implement the jvp function for custom autograd.Function to use it "
                                      f"with forward mode AD.\n  {cls.__name__}.apply got a dual tensor (forward_ad)"
                                      f"\n  fix: define {cls.__name__}.jvp(ctx, *tangents), or compute without "
                                      "dual tensors")
        connects = records_grad() and any(ctx.needs_input_grad)
        # the inputs' proxies, made before forward may write into an input (mark_dirty)
        proxies = [a * 1 for a in args if isinstance(a, Tensor) and a.requires_grad] if connects else []
        with no_grad():
            if cls.setup_context is Function.setup_context:  # forward(ctx, *args): the older style
                output = cls.forward(ctx, *args, **kwargs)
            else:
                output = cls.forward(*args, **kwargs)
                cls.setup_context(ctx, args, output)
        if not connects:
            return _inputs_as_views(output, args)
        return _connect(cls, ctx, args, output, proxies)


FunctionMeta = _FunctionMeta  # PyTorch's public name of the Function metaclass


def _user_backward(cls):
    """The Function's backward rule as PyTorch's node picks it: vjp where the class defines it
    (PyTorch's other name of backward), else backward; defining both is PyTorch's RuntimeError."""
    if cls.vjp is Function.vjp:
        return cls.backward
    if cls.backward is not Function.backward:
        raise RuntimeError(f"Implementing both 'backward' and 'vjp' for a custom Function is not allowed. You should "
                           f"only implement one of them.\n  {cls.__name__} defines both\n  fix: keep backward "
                           "and remove vjp (or the other way round)")
    return cls.vjp


class InplaceFunction(Function):
    """torch.autograd.function.InplaceFunction, kept by PyTorch for old scripts: a Function whose
    instance carries an `inplace` flag. Use Function (static forward/backward, then apply)."""

    def __init__(self, inplace: bool = False):
        super().__init__()
        self.inplace = inplace


class NestedIOFunction(Function):
    """torch.autograd.function.NestedIOFunction, kept by PyTorch for old scripts, importable
    here; its instances are legacy functions, which raise when called (Function.__call__). Use
    Function (static forward/backward, then apply)."""


def _has_tangent(args: tuple) -> bool:
    """Whether an argument is a forward-AD dual tensor or computed from one (forward_ad)."""
    from . import forward_ad
    if forward_ad._current_level < 0 or not forward_ad._duals:
        return False
    duals = {d._h.identity for d, _, _ in forward_ad._duals.values()}
    for a in args:
        if isinstance(a, Tensor) and a.requires_grad:
            if a._h.identity in duals or any(h.identity in duals for h in a._h.leaves_requiring_grad()):
                return True
    return False


def once_differentiable(fn):
    """torch.autograd.function.once_differentiable: the backward runs under no_grad, and where it
    ran with grad mode on (autograd.grad(create_graph=True)) on a gradient that requires grad, its
    results are stand-ins that require grad and raise PyTorch's RuntimeError when differentiated
    again (PyTorch's DelayedError node)."""
    @functools.wraps(fn)
    def wrapper(ctx, *args):
        with no_grad():
            outputs = fn(ctx, *args)
        if not records_grad() or not any(isinstance(a, Tensor) and a.requires_grad for a in args):
            return outputs
        single = not isinstance(outputs, tuple)
        stand_ins = tuple(_delayed_error(o) for o in ((outputs,) if single else outputs))
        return stand_ins[0] if single else stand_ins
    return wrapper


_TWICE = "trying to differentiate twice a function that was marked with @once_differentiable"


def _delayed_error(t):
    if not isinstance(t, Tensor) or not t.dtype.is_floating_point:
        return t
    leaf = t.detach().requires_grad_(True)
    return delayed_error(leaf, RuntimeError(
        f"{_TWICE}\n  the backward of a custom autograd.Function decorated with @once_differentiable computed this "
        "gradient; it is not differentiable again\n  fix: differentiate once (create_graph=False), or write that "
        "backward from differentiable ops and remove @once_differentiable"))


def delayed_error(t: Tensor, error: BaseException) -> Tensor:
    """t's values through a node whose backward raises `error` (PyTorch's DelayedError node: a
    result that exists, and whose gradient is refused)."""
    return _DelayedErrorFunction.apply(t, error)


def _connect(cls, ctx: FunctionCtx, args: tuple, output, proxies: list):
    from .._tensor import _op, tensor
    single = isinstance(output, Tensor)
    outs = (output,) if single else tuple(output) if isinstance(output, (tuple, list)) else None
    if outs is None:
        raise TypeError(f"{cls.__name__}.forward must return a Tensor or a tuple of them, got {type(output).__name__}")
    inputs = [(i, a) for i, a in enumerate(args) if isinstance(a, Tensor) and a.requires_grad]
    dirty = {id(t) for t in ctx.dirty}
    for _, a in inputs:
        if id(a) in dirty and a.is_leaf:
            raise RuntimeError("a leaf Variable that requires grad has been used in an in-place operation.\n"
                               f"  {cls.__name__}.forward wrote into an input of shape {list(a.shape)} and marked it "
                               "dirty\n  fix: write into a copy (x.clone()), or pass a tensor computed from the leaf")
    link: Optional[Tensor] = None
    for p in proxies:
        s = p.sum()
        link = s if link is None else link + s.to(link.dtype)
    assert link is not None  # apply() connects only when an input needs a gradient
    # The hooks' shared state. It is emptied as soon as the last proxy has taken its gradient:
    # the gradients in it lead back (through their nodes) to the outputs, whose hooks hold this
    # state, a cycle through the runtime that Python's collector cannot see.
    state: dict = {"grads": {}, "result": None, "left": 0}
    wrapped, differentiable = [], []
    for j, y in enumerate(outs):
        if not isinstance(y, Tensor) or id(y) in ctx.non_differentiable or not y.dtype.is_floating_point:
            wrapped.append(y)
            continue
        never = tensor(False, device=y.device)
        # PyTorch names a custom Function's node after its class: type(out.grad_fn).__name__ is
        # 'MyFnBackward'.
        out = _op("Where", [never, link.to(y.dtype), y.detach()], {"torch_node": f"{cls.__name__}Backward"})
        out.register_hook(_keep_output_grad(state, j))
        _NODES[out._h.identity] = ctx
        if id(y) in dirty:  # the input written in place is the output, as PyTorch returns it
            y._h.reset(out._h)
            _inplace.count_write(y, f"{cls.__name__}.apply")  # PyTorch counts the marked write once more
            out = y
        else:
            _mark_if_view(cls, j, y, out, args)
        wrapped.append(out)
        differentiable.append(j)
    if not differentiable:
        return output
    for (i, x), p in zip(inputs, proxies):
        _on_gradient(p, _input_grad(cls, ctx, state, outs, differentiable, args, i, x, len(proxies)))
    ctx._watch_saved(outs, wrapped)
    return wrapped[0] if single else type(output)(wrapped) if isinstance(output, tuple) else wrapped


def _inputs_as_views(output, args: tuple):
    """forward's output where nothing is recorded, each input it returned as it is made a new view
    of that input, as PyTorch's apply makes it (`out is not x`, `out._base` x's root)."""
    single = isinstance(output, Tensor)
    outs = (output,) if single else output if isinstance(output, (tuple, list)) else ()
    if not any(y is x for y in outs for x in args):
        return output
    views = []
    for y in outs:
        if isinstance(y, Tensor) and any(y is x for x in args):
            view = y.view(y.shape)
            _view_base.view_of(view, y)
            y = view
        views.append(y)
    return views[0] if single else type(output)(views)


def _mark_if_view(cls, j: int, y: Tensor, out: Tensor, args: tuple) -> None:
    """Output j is a view where forward returned a view of an input (or the input as it is), as
    PyTorch's: `out._base` is that input's root, and an in-place op on it under grad mode raises
    PyTorch's RuntimeError (_multi_views). Its values are the node's own (docs/inplace-and-views.md,
    "Tensor._base")."""
    for x in args:
        if isinstance(x, Tensor) and (y is x or y._h.shares_storage(x._h)):
            _view_base.view_of(out, x)
            _multi_views.mark_function_view(out, cls.__name__, j)
            return


def _op_name(node_name: str) -> str:
    """The op a backward node's name stands for, as PyTorch's saved-tensor message names it
    ('AddBackward0' -> 'Add')."""
    stem = node_name.rstrip("0123456789")
    return stem[:-len("Backward")] if stem.endswith("Backward") else node_name


def _on_gradient(p: Tensor, hook) -> None:
    """hook(gradient, or None where it is undefined) on proxy p's gradient, its result replacing it.
    Unlike Tensor.register_hook's, it may define an undefined gradient: the Function's backward,
    given zeros for its outputs' undefined gradients (materialize_grads), gives its inputs theirs,
    as PyTorch's node does when the engine reaches it (docs/architecture.md, "Undefined gradients")."""
    from .. import _node_hooks
    from .._tensor import _wrap

    def call(grad_handle):
        if _node_hooks.INNER[0]:  # a node post hook's own gradient pass (_node_hooks)
            return None
        out = hook(None if grad_handle is None else _wrap(grad_handle))
        return out if out is _C.undefined_gradient else out._h
    p._h.add_grad_hook(call)


def _keep_output_grad(state: dict, j: int):
    def hook(g):
        state["grads"][j] = g
        state["result"] = None  # a new backward pass: the user's backward runs again
        return None
    return hook


def _input_grad(cls, ctx, state, outs, differentiable, args, i, x, n_proxies):
    n_args = len(args)

    def hook(_zero_grad):
        if state["result"] is None:
            state["left"] = n_proxies
            grads = []
            for j, y in enumerate(outs):
                g = state["grads"].get(j)
                if g is None and isinstance(y, Tensor) and ctx.materialize_grads:
                    from .._factories import zeros_like
                    g = zeros_like(y)  # of y's dtype, a non-differentiable integer output's too
                grads.append(g)
            state["grads"] = {}
            result = _user_backward(cls)(ctx, *grads)
            if _backward_end.RETAINING and not _backward_end.RETAINING[-1]:  # this pass frees the graph
                ctx._freed, ctx.to_save = True, ()
            if not isinstance(result, tuple):
                result = (result,)
            if len(result) != n_args:
                if len(result) > n_args and all(r is None for r in result[n_args:]):
                    result = result[:n_args]
                else:
                    raise RuntimeError(f"function {cls.__name__}Backward returned an incorrect number of gradients "
                                       f"(expected {n_args}, got {len(result)})\n  fix: return one gradient per "
                                       "argument of forward, None for those that need none")
            for k, (a, r) in enumerate(zip(args, result)):
                if r is not None and not isinstance(a, Tensor):
                    raise RuntimeError(f"function {cls.__name__}Backward returned a gradient different than None at "
                                       f"position {k + 1}, but the corresponding forward input was not a Variable\n"
                                       f"  fix: return None for the non-tensor argument {k} of forward")
            state["result"] = result
        g = state["result"][i]
        state["left"] -= 1
        if state["left"] == 0:
            state["result"] = None
        if g is None:
            return _C.undefined_gradient
        if not isinstance(g, Tensor):
            raise TypeError(f"function {cls.__name__}Backward returned {type(g).__name__} as gradient {i}; "
                            "expected a Tensor or None")
        return _fit(cls, g, x, i)
    return hook


def _fit(cls, g: Tensor, x: Tensor, i: int) -> Tensor:
    """The gradient summed to the input's shape where it is broadcast (PyTorch's validate_outputs)
    and cast to its dtype."""
    shape, want = tuple(g.shape), tuple(x.shape)
    if shape != want:
        lead = len(shape) - len(want)
        ok = lead >= 0 and all(w == 1 or w == s for w, s in zip(want, shape[lead:]))
        if not ok:
            raise RuntimeError(f"Function {cls.__name__}Backward returned an invalid gradient at index {i} - got "
                               f"{list(shape)} but expected shape compatible with {list(want)}")
        if lead:
            g = g.sum(tuple(range(lead)))
        axes = tuple(k for k, (w, s) in enumerate(zip(want, g.shape)) if w == 1 and s != 1)
        if axes:
            g = g.sum(axes, keepdim=True)
    if g.dtype != x.dtype:
        g = g.to(x.dtype)
    if str(g.device) != str(x.device):
        g = g.to(x.device)
    return g


class _DelayedErrorFunction(Function):
    """delayed_error's node: the value itself, whose gradient raises the error it was given."""

    @staticmethod
    def forward(ctx, x, error):
        ctx.error = error
        return x.clone()

    @staticmethod
    def backward(ctx, grad):
        raise ctx.error
