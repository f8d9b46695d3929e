"""Ops on a view made under no_grad() of a tensor that requires grad, run with glassgrad or torch
as `lib` (docs/inplace-and-views.md, "Views made under no_grad"): test_no_grad_view_ops.py checks
glassgrad's record against values hard-coded from PyTorch's behaviour, test_torch_no_grad_view_ops.py
against torch's own record."""


def _grad(t):
    return None if t.grad is None else t.grad.tolist()


def _node(t):
    return None if t.grad_fn is None else t.grad_fn.name()


def record(lib) -> dict:
    out = {}
    x = lib.ones(4, requires_grad=True)
    with lib.no_grad():
        v = x[:2]
    out["view"] = (v.requires_grad, v.is_leaf, _node(v))
    w = v * 3
    out["computed"] = (w.requires_grad, w.is_leaf, _node(w))
    w.sum().backward()
    out["after_backward"] = (_grad(v), _grad(x))
    t = x.view(2, 2)
    with lib.no_grad():
        t = t.t()
    u = t.t()
    out["view_of_view_outside"] = (u.requires_grad, u.is_leaf, _node(u))
    y = lib.ones(4, requires_grad=True) * 2
    with lib.no_grad():
        r = y.view(2, 2)
    out["view_of_computed"] = (r.requires_grad, r.is_leaf, _node(r))
    (r.exp().sum() + y.sum()).backward()  # y's own path still counts; r's gives nothing
    x = lib.ones(4, requires_grad=True)
    with lib.no_grad():
        v = x[1:3]
    try:
        lib.autograd.grad((v * 2).sum(), v)
        out["grad_wrt_view"] = "no error"
    except RuntimeError as e:
        out["grad_wrt_view"] = str(e).split(".")[0]
    out["grad_wrt_view_unused"] = lib.autograd.grad((v * 2).sum(), v, allow_unused=True)
    x = lib.ones(4, requires_grad=True)
    with lib.no_grad():
        v = x[1:3]
    v.requires_grad_(False)  # left on, as PyTorch's
    out["requires_grad_off"] = v.requires_grad
    v.requires_grad_()  # a gradient of its own
    (v * 2).sum().backward()
    out["requires_grad_on"] = (_grad(v), _grad(x))
    x = lib.ones(4, requires_grad=True)
    with lib.no_grad():
        v = x[0]  # an integer index
    w = v * 2
    out["element"] = (v.requires_grad, v.is_leaf, w.requires_grad, _node(w))
    d = lib.ones(4, requires_grad=True).detach()
    with lib.no_grad():
        e = d[:2]
    out["view_of_detached"] = (e.requires_grad, (e * 2).requires_grad)
    return out
