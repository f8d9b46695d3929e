"""torch.autograd.functional: jacobian, vjp, jvp, hessian, hvp and vhp, built on autograd.grad
(one gradient per output element for a Jacobian; second derivatives through
create_graph=True, docs/autograd.md)."""
from __future__ import annotations

from .._shapes import view_as
from .._tensor import Tensor
from .gradients import grad


def _tuple(x):
    """(a tuple of tensors, whether x was a tuple)."""
    return ((x,), False) if isinstance(x, Tensor) else (tuple(x), True)


def _prepared(inputs, create_graph: bool = False):
    """Inputs to differentiate with respect to: with create_graph, an input that requires grad
    enters as a view of itself, so the results stay differentiable in it (PyTorch's rule);
    otherwise a detached leaf."""
    ins, is_tuple = _tuple(inputs)
    return tuple(view_as(x, x) if create_graph and x.requires_grad else x.detach().requires_grad_(True)
                 for x in ins), is_tuple


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


def _check_outputs(outs: tuple, strict: bool) -> None:
    """PyTorch's strict-mode check that every output is computed from the inputs differentiably
    (without strict, an output that is not gives zero derivatives)."""
    for i, o in enumerate(outs):
        if strict and not o.requires_grad:
            raise RuntimeError(f"Output {i} of the user-provided function does not require gradients. The outputs "
                               "must be computed in a differentiable manner from the input when running in strict "
                               "mode.")


def vjp(func, inputs, v=None, create_graph: bool = False, strict: bool = False):
    """(func(inputs), v^T J): the outputs and the vector-Jacobian product (torch.autograd.functional.vjp)."""
    from .._factories import zeros_like
    ins, in_tuple = _prepared(inputs, create_graph)
    outs = func(*ins)
    out_t, out_tuple = _tuple(outs)
    _check_outputs(out_t, strict)
    if v is None:
        if len(out_t) != 1 or out_t[0].numel() != 1:
            raise RuntimeError("The vector v can only be None if the user-provided function returns a single Tensor "
                               "with a single element.")
        vs: tuple = (None,)
    else:
        vs = _tuple(v)[0]
        _validate_v(vs, out_t, out_tuple)
    tracked = [(o, g) for o, g in zip(out_t, vs) if o.requires_grad]
    if tracked:
        gs = grad([o for o, _ in tracked], ins, [g for _, g in tracked], allow_unused=True,
                  materialize_grads=not strict, create_graph=create_graph)
    else:
        gs = tuple(None if strict else zeros_like(x) for x in ins)
    if strict and any(g is None for g in gs):
        first = next(i for i, g in enumerate(gs) if g is None)
        raise RuntimeError(f"The output of the user-provided function is independent of input {first}. This is not "
                           "allowed in strict mode.")
    detached = _maybe_detach(out_t, create_graph)
    gs = _maybe_detach(gs, create_graph)
    return (detached if out_tuple else detached[0]), (gs if in_tuple else gs[0])


def _jacobian_of(outs: tuple, ins: tuple, in_tuple: bool, out_tuple: bool, create_graph: bool, strict: bool):
    from .._factories import zeros_like
    from .._shapes import stack
    rows: list = []
    for o in outs:
        flat = o.reshape(-1)
        per_input: list = [[] for _ in ins]
        for k in range(flat.numel()):
            gs = (grad(flat[k], ins, retain_graph=True, allow_unused=True, create_graph=create_graph)
                  if o.requires_grad else (None,) * len(ins))
            for i, (x, g) in enumerate(zip(ins, gs)):
                if g is None and strict:
                    raise RuntimeError(f"Output 0 of the user-provided function is independent of input {i}. This "
                                       "is not allowed in strict mode.")
                per_input[i].append(zeros_like(x) if g is None else g)
        blocks = []
        for x, gs in zip(ins, per_input):
            j = stack(gs) if gs else zeros_like(x).reshape(0, *x.shape)
            j = j.reshape(*o.shape, *x.shape)
            blocks.append(j if create_graph else j.detach())
        rows.append(tuple(blocks) if in_tuple else blocks[0])
    return tuple(rows) if out_tuple else rows[0]


def _check_strategy(strategy: str, create_graph: bool, strict: bool, vectorize: bool) -> None:
    """PyTorch's checks of jacobian's strategy and flags, in its order. "forward-mode" (with
    vectorize=True, as PyTorch requires) gives the same Jacobian, computed here by reverse mode;
    vectorize is a speed option that changes no value."""
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
        if not vectorize:
            raise NotImplementedError("Computing Jacobian using forward-AD or forward-over-reverse Hessian is"
                                      "only implemented for `vectorize=True`.")
    elif vectorize and strict:
        raise RuntimeError("torch.autograd.functional.jacobian: `strict=True` and `vectorized=True` are not supported "
                           "together. Please either set `strict=False` or `vectorize=False`.")


def jacobian(func, inputs, create_graph: bool = False, strict: bool = False, vectorize: bool = False,
             strategy: str = "reverse-mode"):
    """The Jacobian of func at inputs (torch.autograd.functional.jacobian), by reverse mode: one
    autograd.grad per output element. Shapes as PyTorch's: output.shape + input.shape, nested
    tuples when func returns or takes several tensors."""
    _check_strategy(strategy, create_graph, strict, vectorize)
    ins, in_tuple = _prepared(inputs, create_graph)
    out_t, out_tuple = _tuple(func(*ins))
    _check_outputs(out_t, strict)
    return _jacobian_of(out_t, ins, in_tuple, out_tuple, create_graph, strict)


def jvp(func, inputs, v=None, create_graph: bool = False, strict: bool = False):
    """(func(inputs), J v): the Jacobian-vector product (torch.autograd.functional.jvp), from the
    reverse-mode Jacobian."""
    ins, in_tuple = _tuple(inputs)
    if v is None:
        if any(x.numel() != 1 for x in ins):
            raise RuntimeError("The vector v can only be None if the input to the user-provided function is a "
                               "single Tensor with a single element.")
        from .._factories import ones_like
        v = tuple(ones_like(x) for x in ins)
    vs = _tuple(v)[0]
    _validate_v(vs, ins, in_tuple)
    outs = func(*(_prepared(tuple(ins), create_graph)[0] if create_graph else tuple(x.detach() for x in ins)))
    out_t, out_tuple = _tuple(outs)
    jac = jacobian(func, tuple(ins), create_graph=create_graph, strict=strict)
    rows = jac if out_tuple else (jac,)
    products = []
    for o, row in zip(out_t, rows):
        total = None
        for x, vx, j in zip(ins, vs, row):
            term = j.reshape(o.numel(), x.numel()) @ vx.reshape(x.numel()).to(j.dtype)
            total = term if total is None else total + term
        assert total is not None  # func takes at least one input
        products.append(total.reshape(o.shape))
    detached = _maybe_detach(out_t, create_graph)
    return (detached if out_tuple else detached[0]), (tuple(products) if out_tuple else products[0])


def _scalar_output(func, ins, who: str, strict: bool):
    out = func(*ins)
    outs, is_tuple = _tuple(out)
    _check_outputs(outs, strict)
    if is_tuple or len(outs) != 1:
        raise RuntimeError(f"The function given to {who} should return a single Tensor")
    if outs[0].numel() != 1:
        raise RuntimeError(f"The Tensor returned by the function given to {who} should contain a single element")
    return outs[0].reshape(())


def hessian(func, inputs, create_graph: bool = False, strict: bool = False, vectorize: bool = False,
            outer_jacobian_strategy: str = "reverse-mode"):
    """The Hessian of a scalar func at inputs (torch.autograd.functional.hessian): the Jacobian of
    its gradient, which is built with create_graph=True."""
    if outer_jacobian_strategy not in ("forward-mode", "reverse-mode"):
        raise AssertionError('Expected strategy to be either "forward-mode" or "reverse-mode".')
    _check_strategy(outer_jacobian_strategy, create_graph, strict, vectorize)
    ins, in_tuple = _prepared(inputs, create_graph)
    out = _scalar_output(func, ins, "hessian", strict)
    gs = grad(out, ins, create_graph=True, allow_unused=True, materialize_grads=True)
    return _jacobian_of(gs, ins, in_tuple, in_tuple, create_graph, strict)


def hvp(func, inputs, v=None, create_graph: bool = False, strict: bool = False, _who: str = "hvp"):
    """(func(inputs), H v) (torch.autograd.functional.hvp): the gradient of <grad f, v>."""
    ins, in_tuple = _prepared(inputs, create_graph)
    vs = _tuple(v)[0] if v is not None else None
    if vs is not None:
        _validate_v(vs, ins, in_tuple)
    out = _scalar_output(func, ins, _who, strict)
    if vs is None:
        if any(x.numel() != 1 for x in ins):
            raise RuntimeError("The vector v can only be None if the input to the user-provided function is a "
                               "single Tensor with a single element.")
        from .._factories import ones_like
        vs = tuple(ones_like(x) for x in ins)
    gs = grad(out, ins, create_graph=True, allow_unused=True, materialize_grads=True)
    inner = None
    for g, vx in zip(gs, vs):
        term = (g * vx.detach().to(g.dtype)).sum()
        inner = term if inner is None else inner + term
    assert inner is not None  # func takes at least one input
    hv = grad(inner, ins, allow_unused=True, materialize_grads=True, create_graph=create_graph)
    hv = _maybe_detach(hv, create_graph)
    result = out if create_graph else out.detach()
    return result, (hv if in_tuple else hv[0])


def vhp(func, inputs, v=None, create_graph: bool = False, strict: bool = False):
    """(func(inputs), v^T H) (torch.autograd.functional.vhp): equal to hvp, the Hessian being symmetric."""
    return hvp(func, inputs, v, create_graph, strict, _who="vhp")
