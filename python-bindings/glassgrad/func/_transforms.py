"""torch.func's differentiation transforms on glassgrad's reverse mode (docs/autograd.md,
"torch.func"): grad, grad_and_value, vjp, jvp and linearize (by the double-vjp trick), jacrev, jacfwd (the
same Jacobian, computed by reverse mode) and hessian.

Each call differentiates with autograd.grad with respect to an alias of each input (a fresh
leaf, or a view of an input that already requires grad), so a transform sees only the paths
through its own inputs. The graph of the result is kept (create_graph=True) when an input
already requires grad: that is how grad(grad(f)), jacrev(jacrev(f)) and a grad inside a
training step compose, and when an output depends on a tensor requiring grad that the function
closes over (a model's parameters): the result is then differentiable in it, as torch.func's."""
from __future__ import annotations

from typing import Any, Callable, List, Sequence, Tuple, Union

from .._runtime import enable_grad, records_grad
from .._shapes import view_as
from .._tensor import Tensor
from ..autograd._double_vjp import jvp_of
from ..autograd.gradients import grad as _autograd_grad
from ._tree import flatten, tree_map, unflatten

ArgNums = Union[int, Tuple[int, ...]]


def _argnums(argnums: ArgNums, n_args: int, name: str) -> Tuple[int, ...]:
    nums = (argnums,) if isinstance(argnums, int) else argnums
    if not isinstance(nums, tuple) or not nums or not all(isinstance(i, int) for i in nums):
        raise RuntimeError(f"{name}: argnums must be int or Tuple[int, ...], got: {argnums!r}\n"
                           "  fix: argnums=0, or argnums=(0, 1) for several inputs")
    out = []
    for i in nums:
        if not -n_args <= i < n_args:
            raise RuntimeError(f"{name}: Got argnums={i}, but only {n_args} positional inputs\n"
                               f"  fix: argnums between {-n_args} and {n_args - 1}")
        out.append(i % n_args)
    if len(set(out)) != len(out):
        raise RuntimeError(f"{name}: argnums must be unique, got {argnums!r}")
    return tuple(out)


def _alias(x, name: str):
    if not isinstance(x, Tensor):
        raise RuntimeError(f"{name}: the inputs to differentiate must be Tensors (or containers of Tensors), got "
                           f"{type(x).__name__}\n  fix: pass it as a glassgrad tensor, or leave it out of argnums")
    if not x.dtype.is_floating_point:
        raise RuntimeError(f"only Tensors of floating point dtype can require gradients\n  {name}: an input to "
                           f"differentiate is {x.dtype} of shape {list(x.shape)}\n  fix: x.float(), or leave it out "
                           "of argnums")
    return view_as(x, x) if x.requires_grad else x.detach().requires_grad_(True)


class _Inputs:
    """The differentiated arguments of one call: their aliases, flattened, and how to rebuild them."""

    def __init__(self, args: Sequence[Any], nums: Tuple[int, ...], name: str):
        self.args = list(args)
        self.nums = nums
        self.specs = []
        self.sizes: List[int] = []
        self.leaves: List[Tensor] = []
        self.create_graph = False
        for n in nums:
            leaves, spec = flatten(self.args[n])
            self.create_graph = self.create_graph or any(isinstance(x, Tensor) and x.requires_grad for x in leaves)
            aliases = [_alias(x, name) for x in leaves]
            self.args[n] = unflatten(aliases, spec)
            self.specs.append(spec)
            self.sizes.append(len(aliases))
            self.leaves += aliases
        self.create_graph = self.create_graph and records_grad()

    def see_outputs(self, outputs) -> None:
        """Keeps the graph also when an output depends on a tensor requiring grad that func closes
        over (a model's parameters): the result is then differentiable in it, as torch.func's."""
        if self.create_graph or not records_grad():
            return
        own = {x._h.identity for x in self.leaves}
        for o in flatten(outputs)[0]:
            if isinstance(o, Tensor) and o.requires_grad and any(
                    h.identity not in own for h in o._h.leaves_requiring_grad()):
                self.create_graph = True
                return

    def grads_of(self, output: Tensor, grad_output=None) -> List[Tensor]:
        gs = _autograd_grad([output], self.leaves, None if grad_output is None else [grad_output],
                            retain_graph=True, create_graph=self.create_graph, allow_unused=True,
                            materialize_grads=True)
        return list(gs) if self.create_graph else [g.detach() for g in gs]

    def rebuild(self, flat: List[Any], single: bool):
        """flat: one entry per differentiated leaf -> the arguments' structure (one, or a tuple)."""
        out, k = [], 0
        for spec, size in zip(self.specs, self.sizes):
            out.append(unflatten(flat[k:k + size], spec))
            k += size
        return out[0] if single else tuple(out)

    def result(self, value):
        return value if self.create_graph else tree_map(lambda t: t.detach() if isinstance(t, Tensor) else t, value)


def _split_aux(out, has_aux: bool, name: str):
    if not has_aux:
        return out, None
    if not (isinstance(out, tuple) and len(out) == 2):
        raise RuntimeError(f"{name}(f, ...)(*args): output of function f should be a tuple: (output, aux) if "
                           f"has_aux is True\n  fix: return (output, aux) from f, or has_aux=False")
    for leaf in flatten(out[1])[0]:  # PyTorch's aux is tensors in containers (its pytree), nothing else
        if not isinstance(leaf, Tensor):
            raise RuntimeError(f"Expected tensors, got unsupported type {type(leaf)}\n  {name}(f, has_aux=True): "
                               f"the aux f returned holds a {type(leaf).__name__}\n  fix: return tensors as aux "
                               f"(glassgrad.tensor(value)), or keep other values outside f")
    return out


def _called(func: Callable, args, kwargs, argnums: ArgNums, has_aux: bool, name: str):
    """func on differentiable stand-ins of its argnums arguments (call under enable_grad()):
    (the inputs, func's output, its aux)."""
    ins = _Inputs(args, _argnums(argnums, len(args), name), name)
    out, aux = _split_aux(func(*ins.args, **kwargs), has_aux, name)
    ins.see_outputs(out)
    return ins, out, aux


def grad_and_value(func: Callable, argnums: ArgNums = 0, has_aux: bool = False) -> Callable:
    """torch.func.grad_and_value: a function returning (gradient of func's scalar output with
    respect to the argnums arguments, the output); with has_aux, (gradient, (output, aux))."""
    def wrapper(*args, **kwargs):
        with enable_grad():
            ins, out, aux = _called(func, args, kwargs, argnums, has_aux, "grad_and_value")
            if not isinstance(out, Tensor) or out.dim() != 0:
                what = f"tensor with {out.dim()} dims" if isinstance(out, Tensor) else type(out).__name__
                raise RuntimeError(f"grad_and_value(f)(*args): Expected f(*args) to return a scalar Tensor, got "
                                   f"{what}. Maybe you wanted to use the vjp or jacrev APIs instead?\n  fix: reduce "
                                   "the output (.sum(), .mean(), a [1] tensor: .squeeze()); for a non-scalar output "
                                   "use vjp or jacrev")
            g = ins.rebuild(ins.grads_of(out), isinstance(argnums, int))
        value = ins.result(out)
        return (g, (value, ins.result(aux))) if has_aux else (g, value)
    return wrapper


def grad(func: Callable, argnums: ArgNums = 0, has_aux: bool = False) -> Callable:
    """torch.func.grad: a function returning the gradient of func's scalar output with respect to
    the argnums arguments (tensors or containers of them); with has_aux, (gradient, aux)."""
    both = grad_and_value(func, argnums, has_aux)

    def wrapper(*args, **kwargs):
        g, value = both(*args, **kwargs)
        return (g, value[1]) if has_aux else g
    return wrapper


def vjp(func: Callable, *primals, has_aux: bool = False):
    """torch.func.vjp: (func(*primals), vjp_fn[, aux]); vjp_fn(cotangents) returns a tuple with one
    vector-Jacobian product per primal, in the primals' structure, and may be called again."""
    with enable_grad():
        ins = _Inputs(primals, tuple(range(len(primals))), "vjp")
        out, aux = _split_aux(func(*ins.args), has_aux, "vjp")
        ins.see_outputs(out)
    out_leaves, out_spec = flatten(out)
    if not all(isinstance(o, Tensor) for o in out_leaves):
        raise RuntimeError("vjp(f, *primals): Expected f to be a function that has only Tensors (or containers of "
                           "Tensors) as outputs")

    def vjp_fn(cotangents):
        ct_leaves, ct_spec = flatten(cotangents)
        if ct_spec != out_spec:
            raise RuntimeError("vjp_fn: Expected cotangents to have the same structure as the output of f\n"
                               "  fix: one cotangent tensor per output tensor, in the same container")
        total: List[Any] = [None] * len(ins.leaves)
        with enable_grad():
            for o, ct in zip(out_leaves, ct_leaves):
                if list(ct.shape) != list(o.shape):
                    raise RuntimeError(f"vjp_fn: Mismatch in shape: cotangent has shape {list(ct.shape)} and output "
                                       f"has shape {list(o.shape)}")
                gs = ins.grads_of(o, ct) if o.requires_grad else [_zeros_like(x) for x in ins.leaves]
                total = [g if t is None else t + g for t, g in zip(total, gs)]
        return ins.rebuild(total, False)

    result = ins.result(out)
    return (result, vjp_fn, ins.result(aux)) if has_aux else (result, vjp_fn)


def _zeros_like(x: Tensor) -> Tensor:
    from .._factories import zeros_like
    return zeros_like(x)


def jacrev(func: Callable, argnums: ArgNums = 0, *, has_aux: bool = False, chunk_size=None,
           _preallocate_and_copy: bool = False) -> Callable:
    """torch.func.jacrev: a function returning the Jacobian of func with respect to the argnums
    arguments, by reverse mode: one gradient per output element (chunk_size is accepted and
    changes nothing). Each block has shape output.shape + input.shape; several outputs or
    inputs give nested containers as PyTorch's."""
    def wrapper(*args, **kwargs):
        with enable_grad():
            ins, out, aux = _called(func, args, kwargs, argnums, has_aux, "jacrev")
            out_leaves, out_spec = flatten(out)
            if not all(isinstance(o, Tensor) for o in out_leaves):
                raise RuntimeError("jacrev(f, ...)(*args): Expected f to be a function that has only Tensors (or "
                                   "containers of Tensors) as outputs")
            blocks = [ins.rebuild(_jacobian_blocks(o, ins), isinstance(argnums, int)) for o in out_leaves]
        jac = unflatten(blocks, out_spec)
        return (jac, ins.result(aux)) if has_aux else jac
    return wrapper


def _jacobian_blocks(o: Tensor, ins: _Inputs) -> List[Tensor]:
    """d o / d x for every differentiated leaf x, shaped o.shape + x.shape."""
    from .._shapes import stack
    flat = o.reshape(-1)
    rows: List[List[Tensor]] = [[] for _ in ins.leaves]
    for k in range(flat.numel()):
        gs = ins.grads_of(flat[k]) if o.requires_grad else [_zeros_like(x) for x in ins.leaves]
        for r, g in zip(rows, gs):
            r.append(g)
    out = []
    for x, r in zip(ins.leaves, rows):
        j = stack(r) if r else _zeros_like(x).reshape(0, *x.shape)
        out.append(j.reshape(*o.shape, *x.shape))
    return out


def jacfwd(func: Callable, argnums: ArgNums = 0, has_aux: bool = False, *, randomness: str = "error") -> Callable:
    """torch.func.jacfwd: the same Jacobian as jacrev, and computed by it (glassgrad has no
    forward mode; forward mode would be cheaper for a function of few inputs and many outputs)."""
    if randomness not in ("error", "different", "same"):
        raise RuntimeError(f"jacfwd: randomness must be 'error', 'different' or 'same', got {randomness!r}")
    return jacrev(func, argnums, has_aux=has_aux)


def hessian(func: Callable, argnums: ArgNums = 0) -> Callable:
    """torch.func.hessian: jacfwd(jacrev(func, argnums), argnums), the Jacobian of the gradient."""
    return jacfwd(jacrev(func, argnums), argnums)



def jvp(func: Callable, primals: Any, tangents: Any, *, strict: bool = False, has_aux: bool = False):
    """torch.func.jvp: (func(*primals), J tangents[, aux]), primals and tangents tuples of the
    same structure. Computed by two reverse passes (autograd/_double_vjp.py), so the ops on the
    path need second derivatives; an output that does not depend on the primals gets zeros."""
    if not isinstance(primals, tuple) or not isinstance(tangents, tuple):
        raise RuntimeError("jvp(f, primals, tangents): Expected primals and tangents to be tuples\n"
                           "  fix: jvp(f, (x,), (t,))")
    t_leaves, t_spec = flatten(tangents)
    if t_spec != flatten(primals)[1]:
        raise RuntimeError("jvp(f, primals, tangents): Expected primals and tangents to have the same python "
                           "structure")
    with enable_grad():
        ins = _Inputs(primals, tuple(range(len(primals))), "jvp")
        for x, t in zip(ins.leaves, t_leaves):
            if not isinstance(t, Tensor) or list(t.shape) != list(x.shape):
                if not isinstance(t, Tensor):
                    raise RuntimeError(f"jvp(f, primals, tangents): Expected primals and tangents to have the same "
                                       f"structure, got a Tensor of shape {list(x.shape)} and {type(t).__name__}")
                raise RuntimeError(f"Trying to set a forward gradient that has a different size than that of the "
                                   f"original Tensor, this is not supported. Tensor is of size {list(x.shape)} while "
                                   f"the given forward gradient is of size {list(t.shape)}.\n  jvp(f, primals, "
                                   "tangents): fix: one tangent of each primal's shape")
        out, aux = _split_aux(func(*ins.args), has_aux, "jvp")
        ins.see_outputs(out)
        out_leaves, out_spec = flatten(out)
        if not all(isinstance(o, Tensor) for o in out_leaves):
            raise RuntimeError("jvp(f, primals, tangents): Expected f to be a function that has only Tensors (or "
                               "containers of Tensors) as outputs")
        create_graph = ins.create_graph or any(t.requires_grad for t in t_leaves)
        jts = jvp_of(out_leaves, ins.leaves, t_leaves, create_graph, "jvp")
    jts = [_zeros_like(o) if j is None else j for o, j in zip(out_leaves, jts)]
    result = (ins.result(out), unflatten(jts, out_spec))
    return result + (ins.result(aux),) if has_aux else result


def linearize(func: Callable, *primals):
    """torch.func.linearize: (func(*primals), jvp_fn); jvp_fn(*tangents) gives J tangents at the
    primals, as jvp does, reusing the recorded graph (two reverse passes per call)."""
    with enable_grad():
        ins = _Inputs(primals, tuple(range(len(primals))), "linearize")
        out = func(*ins.args)
        ins.see_outputs(out)
    out_leaves, out_spec = flatten(out)
    if not all(isinstance(o, Tensor) for o in out_leaves):
        raise RuntimeError("linearize(f, *primals): Expected f to be a function that has only Tensors (or "
                           "containers of Tensors) as outputs")

    def jvp_fn(*tangents):
        t_leaves, t_spec = flatten(tangents)
        if t_spec != flatten(tuple(primals))[1] or any(
                not isinstance(t, Tensor) or list(t.shape) != list(x.shape) for t, x in zip(t_leaves, ins.leaves)):
            raise RuntimeError("linearize: jvp_fn: Expected the tangents to have the structure and shapes of the "
                               "primals\n  fix: jvp_fn(*tangents) with one tangent per primal, of its shape")
        jts = jvp_of(out_leaves, ins.leaves, t_leaves, ins.create_graph, "linearize")
        return unflatten([_zeros_like(o) if j is None else j for o, j in zip(out_leaves, jts)], out_spec)

    return ins.result(out), jvp_fn
