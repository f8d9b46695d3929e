"""torch.autograd.functional: jacobian, vjp, jvp, hessian, hvp and vhp, built on autograd.grad
(one gradient per output element for a Jacobian; second derivatives through
create_graph=True, docs/autograd.md)."""
from __future__ import annotations

from .._shapes import view_as
from .._tensor import Tensor
from .gradients import grad


def _as_tuple(inp, arg_name: str, fn_name: str):
    """(inp as a tuple, whether it was one): a Tensor or a tuple of Tensors, as PyTorch takes them
    (a list is refused, as there), else PyTorch's TypeError."""
    is_tuple = isinstance(inp, tuple)
    items = inp if is_tuple else (inp,)
    for i, el in enumerate(items):
        if not isinstance(el, Tensor):
            which = f"the value at index {i}" if is_tuple else f"the given {arg_name}"
            raise TypeError(f"The {arg_name} given to {fn_name} must be either a Tensor or a tuple of Tensors but "
                            f"{which} has type {type(el)}.\n  fix: pass a tensor, or a tuple of tensors (x, y)")
    return items, is_tuple


def _prepared(ins: tuple, create_graph: bool = False) -> tuple:
    """Inputs to differentiate with respect to: with create_graph, an input that requires grad
    enters as a view of itself, so the results stay differentiable in it (PyTorch's rule);
    otherwise a detached leaf."""
    return tuple(view_as(x, x) if create_graph and x.requires_grad else x.detach().requires_grad_(True)
                 for x in ins)


def _prepared_v(vs: tuple, create_graph: bool) -> tuple:
    """v as PyTorch's _grad_preprocess leaves it: differentiable only under create_graph."""
    return tuple(view_as(x, x) if create_graph and x.requires_grad else x.detach() for x in vs)


# _check_requires_grad's words for a value that requires no grad, by what it is
_INDEPENDENT = {
    "outputs": "Output {i} of the user-provided function does not require gradients. The outputs must be computed "
               "in a differentiable manner from the input when running in strict mode.",
    "jacobian": "While computing the hessian, found that the jacobian of the user-provided function with respect "
                "to input {i} is independent of the input. This is not allowed in strict mode. You should ensure "
                "that your function is twice differentiable and that the jacobian depends on the inputs (this "
                "would be violated by a linear function for example).",
}


def _check_requires_grad(ts: tuple, kind: str, strict: bool) -> None:
    """PyTorch's strict-mode checks that every output (kind "outputs") or first derivative
    ("jacobian", in hessian, hvp and vhp) is computed from the inputs differentiably (without
    strict, one that is not gives zero derivatives)."""
    if not strict:
        return
    for i, t in enumerate(ts):
        if t is None:
            raise RuntimeError(f"The output of the user-provided function is independent of input {i}. This is not "
                               "allowed in strict mode.")
        if not t.requires_grad:
            raise RuntimeError(_INDEPENDENT[kind].format(i=i))


# _fill_in_zeros' words for a missing gradient, by the stage that computed it
_MISSING = {
    "back": "The output of the user-provided function is independent of input {i}. This is not allowed in strict "
            "mode.",
    "double_back": "The jacobian of the user-provided function is independent of input {i}. This is not allowed in "
                   "strict mode.",
    "double_back_trick": "The hessian of the user-provided function is independent of entry {i} in the "
                         "grad_jacobian. This is not allowed in strict mode as it prevents from using the double "
                         "backward trick to replace forward mode AD.",
}


def _fill_in_zeros(grads, refs: tuple, strict: bool, create_graph: bool, stage: str) -> tuple:
    """Zeros for the gradients autograd found none for, or, with strict, PyTorch's error; with
    strict and create_graph also for a gradient that is not differentiable."""
    from .._factories import zeros_like
    out = []
    for i, g in enumerate(grads):
        if g is None:
            if strict:
                raise RuntimeError(_MISSING[stage].format(i=i))
            g = zeros_like(refs[i])
        elif strict and create_graph and not g.requires_grad:
            what = "hessian" if "double" in stage else "jacobian"
            raise RuntimeError(f"The {what} of the user-provided function is independent of input {i}. This is not "
                               "allowed in strict mode when create_graph=True.")
        out.append(g)
    return tuple(out)


def _maybe_detach(ts, create_graph: bool):
    return tuple(t if create_graph or t is None else t.detach() for t in ts)


def _validate_v(v, other: tuple, is_other_tuple: bool) -> None:
    """PyTorch's checks of v against the outputs (vjp) or inputs (jvp, hvp, vhp) it multiplies."""
    if len(other) != len(v):
        if is_other_tuple:
            raise RuntimeError(f"v is a tuple of invalid length: should be {len(other)} but got {len(v)}.")
        raise RuntimeError("The given v should contain a single Tensor.")
    for idx, (el_v, el_other) in enumerate(zip(v, other)):
        if tuple(el_v.shape) != tuple(el_other.shape):
            prepend = f"Entry {idx} in " if is_other_tuple else ""
            raise RuntimeError(f"{prepend}v has invalid size: should be {el_other.size()} but got {el_v.size()}.")


def vjp(func, inputs, v=None, create_graph: bool = False, strict: bool = False):
    """(func(inputs), v^T J): the outputs and the vector-Jacobian product (torch.autograd.functional.vjp)."""
    ins, in_tuple = _as_tuple(inputs, "inputs", "vjp")
    ins = _prepared(ins, create_graph)
    out_t, out_tuple = _as_tuple(func(*ins), "outputs of the user-provided function", "vjp")
    _check_requires_grad(out_t, "outputs", strict)
    if v is None:
        if len(out_t) != 1 or out_t[0].numel() != 1:
            raise RuntimeError("The vector v can only be None if the user-provided function returns a single Tensor "
                               "with a single element.")
        vs: tuple = (None,)
    else:
        vs = _prepared_v(_as_tuple(v, "v", "vjp")[0], create_graph)
        _validate_v(vs, out_t, out_tuple)
    tracked = [(o, g) for o, g in zip(out_t, vs) if o.requires_grad]
    gs = (grad([o for o, _ in tracked], ins, [g for _, g in tracked], allow_unused=True, create_graph=create_graph)
          if tracked else (None,) * len(ins))
    gs = _fill_in_zeros(gs, ins, strict, create_graph, "back")
    detached = _maybe_detach(out_t, create_graph)
    gs = _maybe_detach(gs, create_graph)
    return (detached if out_tuple else detached[0]), (gs if in_tuple else gs[0])


def _jacobian_of(outs: tuple, ins: tuple, in_tuple: bool, out_tuple: bool, create_graph: bool, strict: bool):
    from .._factories import zeros_like
    from .._shapes import stack
    rows: list = []
    for o_idx, o in enumerate(outs):
        flat = o.reshape(-1)
        per_input: list = [[] for _ in ins]
        for k in range(flat.numel()):
            gs = (grad(flat[k], ins, retain_graph=True, allow_unused=True, create_graph=create_graph)
                  if o.requires_grad else (None,) * len(ins))
            for i, (x, g) in enumerate(zip(ins, gs)):
                if g is None and strict:
                    raise RuntimeError(f"Output {o_idx} of the user-provided function is independent of input {i}. "
                                       "This is not allowed in strict mode.")
                if g is not None and strict and create_graph and not g.requires_grad:
                    # (PyTorch's words name the output's index as the input's)
                    raise RuntimeError(f"The jacobian of the user-provided function is independent of input {o_idx}. "
                                       "This is not allowed in strict mode when create_graph=True.")
                per_input[i].append(zeros_like(x) if g is None else g)
        blocks = []
        for x, gs in zip(ins, per_input):
            j = stack(gs) if gs else zeros_like(x).reshape(0, *x.shape)
            j = j.reshape(*o.shape, *x.shape)
            blocks.append(j if create_graph else j.detach())
        rows.append(tuple(blocks) if in_tuple else blocks[0])
    return tuple(rows) if out_tuple else rows[0]


def jacobian(func, inputs, create_graph: bool = False, strict: bool = False, vectorize: bool = False,
             strategy: str = "reverse-mode"):
    """The Jacobian of func at inputs (torch.autograd.functional.jacobian), by reverse mode: one
    autograd.grad per output element. Shapes as PyTorch's: output.shape + input.shape, nested
    tuples when func returns or takes several tensors. PyTorch's checks in its order;
    "forward-mode" (with vectorize=True, as PyTorch requires) gives the same Jacobian, computed
    here by reverse mode, nested in lists where the inputs are a tuple, as PyTorch's; vectorize is
    a speed option that changes no value."""
    if strategy not in ("forward-mode", "reverse-mode"):
        raise AssertionError('Expected strategy to be either "forward-mode" or "reverse-mode". Hint: If your function '
                             'has more outputs than inputs, "forward-mode" tends to be more performant. Otherwise, '
                             'prefer to use "reverse-mode".')
    if strategy == "forward-mode":
        if create_graph:
            raise NotImplementedError('torch.autograd.functional.jacobian: `create_graph=True` and `strategy="forward-'
                                      'mode"` are not supported together (yet). Please either set `create_graph=False` '
                                      'or `strategy="reverse-mode"`.')
        if strict:
            raise RuntimeError('torch.autograd.functional.jacobian: `strict=True` and `strategy="forward-mode"` are not '
                               'supported together (yet). Please either set `strict=False` or '
                               '`strategy="reverse-mode"`.')
    ins, in_tuple = _as_tuple(inputs, "inputs", "jacobian")
    if strategy == "forward-mode" and not vectorize:
        raise NotImplementedError("Computing Jacobian using forward-AD or forward-over-reverse Hessian is"
                                  "only implemented for `vectorize=True`.")
    ins = _prepared(ins, create_graph)
    out_t, out_tuple = _as_tuple(func(*ins), "outputs of the user-provided function", "jacobian")
    _check_requires_grad(out_t, "outputs", strict)
    if vectorize and strict:
        raise RuntimeError("torch.autograd.functional.jacobian: `strict=True` and `vectorized=True` are not supported "
                           "together. Please either set `strict=False` or `vectorize=False`.")
    jac = _jacobian_of(out_t, ins, in_tuple, out_tuple, create_graph, strict)
    if strategy == "forward-mode" and in_tuple:
        # PyTorch's forward-mode result nests lists where the inputs are a tuple (a list per output
        # of a list per input; a list per input for one output), tuples otherwise
        return [list(row) for row in jac] if out_tuple else list(jac)
    return jac


def jvp(func, inputs, v=None, create_graph: bool = False, strict: bool = False):
    """(func(inputs), J v): the Jacobian-vector product (torch.autograd.functional.jvp), from the
    reverse-mode Jacobian, func called once."""
    ins, in_tuple = _as_tuple(inputs, "inputs", "jvp")
    ins = _prepared(ins, create_graph)
    if v is None:
        if len(ins) != 1 or ins[0].numel() != 1:
            raise RuntimeError("The vector v can only be None if the input to the user-provided function is a "
                               "single Tensor with a single element.")
        from .._factories import ones_like
        vs = tuple(ones_like(x) for x in ins)
    else:
        vs = _prepared_v(_as_tuple(v, "v", "jvp")[0], create_graph)
        _validate_v(vs, ins, in_tuple)
    out_t, out_tuple = _as_tuple(func(*ins), "outputs of the user-provided function", "jvp")
    _check_requires_grad(out_t, "outputs", strict)
    tracked = [o for o in out_t if o.requires_grad]
    if strict:  # PyTorch's: an input no output reads
        from .._factories import ones_like
        used = grad(tracked, ins, [ones_like(o) for o in tracked], retain_graph=True, allow_unused=True)
        _check_requires_grad(tuple(None if u is None else ins[i] for i, u in enumerate(used)), "outputs", strict)
    rows = _jacobian_of(out_t, ins, True, True, create_graph, False)
    products = []
    for i, (o, row) in enumerate(zip(out_t, rows)):
        total = None
        for x, vx, j in zip(ins, vs, row):
            term = j.reshape(o.numel(), x.numel()) @ vx.reshape(x.numel()).to(j.dtype)
            total = term if total is None else total + term
        assert total is not None  # func takes at least one input
        if strict and create_graph and not total.requires_grad:
            raise RuntimeError(f"The jacobian of the user-provided function is independent of input {i}. This is "
                               "not allowed in strict mode when create_graph=True.")
        products.append(total.reshape(o.shape))
    detached = _maybe_detach(out_t, create_graph)
    products = list(_maybe_detach(tuple(products), create_graph))
    return (detached if out_tuple else detached[0]), (tuple(products) if out_tuple else products[0])


def _single_output(func, who: str, strict: bool):
    """func, checked as PyTorch's hessian, hvp and vhp check it: one tensor of one element
    (its outputs strict-checked first); returns it as a 0-d tensor."""
    def single(*ins):
        out_t, is_tuple = _as_tuple(func(*ins), "outputs of the user-provided function", who)
        _check_requires_grad(out_t, "outputs", strict)
        if is_tuple:
            raise RuntimeError(f"The function given to {who} should return a single Tensor")
        if out_t[0].numel() != 1:
            raise RuntimeError(f"The Tensor returned by the function given to {who} should contain a single element")
        return out_t[0].reshape(())
    return single


def hessian(func, inputs, create_graph: bool = False, strict: bool = False, vectorize: bool = False,
            outer_jacobian_strategy: str = "reverse-mode"):
    """The Hessian of a scalar func at inputs (torch.autograd.functional.hessian): as PyTorch's,
    the Jacobian of func's Jacobian, the inner one built with create_graph=True."""
    ins, in_tuple = _as_tuple(inputs, "inputs", "hessian")
    if outer_jacobian_strategy not in ("forward-mode", "reverse-mode"):
        raise AssertionError('Expected strategy to be either "forward-mode" or "reverse-mode".')
    single = _single_output(func, "hessian", strict)

    def jac_func(*inp):
        jac = jacobian(single, inp, create_graph=True)
        _check_requires_grad(jac, "jacobian", strict)
        return jac

    res = jacobian(jac_func, ins, create_graph=create_graph, strict=strict, vectorize=vectorize,
                   strategy=outer_jacobian_strategy)
    if not in_tuple:
        res = tuple(row[0] for row in res)[0]
    return res


def hvp(func, inputs, v=None, create_graph: bool = False, strict: bool = False, _who: str = "hvp"):
    """(func(inputs), H v) (torch.autograd.functional.hvp): the gradient of <grad f, v>, the
    Hessian being symmetric."""
    ins, in_tuple = _as_tuple(inputs, "inputs", _who)
    ins = _prepared(ins, create_graph)
    if v is not None:
        vs = _prepared_v(_as_tuple(v, "v", _who)[0], create_graph)
        _validate_v(vs, ins, in_tuple)
    else:
        if len(ins) != 1 or ins[0].numel() != 1:
            raise RuntimeError("The vector v can only be None if the input to the user-provided function is a "
                               "single Tensor with a single element.")
        from .._factories import ones_like
        vs = tuple(ones_like(x) for x in ins)
    out = _single_output(func, _who, strict)(*ins)
    jac = grad(out, ins, create_graph=True, allow_unused=True) if out.requires_grad else (None,) * len(ins)
    _check_requires_grad(jac, "jacobian", strict)
    inner = None
    for g, vx in zip(jac, vs):
        if g is not None and g.requires_grad:
            term = (g * vx.to(g.dtype)).sum()
            inner = term if inner is None else inner + term
    hv = (grad(inner, ins, allow_unused=True, create_graph=create_graph) if inner is not None
          else (None,) * len(ins))
    hv = _maybe_detach(_fill_in_zeros(hv, ins, strict, create_graph,
                                      "double_back_trick" if _who == "hvp" else "double_back"), create_graph)
    result = out if create_graph else out.detach()
    return result, (hv if in_tuple else hv[0])


def vhp(func, inputs, v=None, create_graph: bool = False, strict: bool = False):
    """(func(inputs), v^T H) (torch.autograd.functional.vhp): equal to hvp, the Hessian being symmetric."""
    return hvp(func, inputs, v, create_graph, strict, _who="vhp")
