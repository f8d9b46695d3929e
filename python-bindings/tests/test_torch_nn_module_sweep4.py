"""Module API and nn.utils sweep against PyTorch (round 4): each script below runs once with
glassgrad's `torch` and `nn` and once with PyTorch's, logging what a user script would see
(values, names, repr text, which hooks ran and with what, train/eval results, nn.init fills);
the two logs must agree. An error is logged by its class and message: PyTorch's exception
classes must be among glassgrad's (its errors are also ValueError/TypeError subclasses) and
glassgrad's message must hold PyTorch's first words (it may name the function first, and adds
the cause and a fix). Skipped without torch."""

import importlib
import math
import warnings

import pytest

import glassgrad.torch as gt

torch_ = pytest.importorskip("torch")

PROBES = []


def probe(f):
    PROBES.append(f)
    return f


class _Raised:
    def __init__(self, e):
        self.classes = {c for c in type(e).__mro__ if c.__module__ == "builtins"}
        self.text = str(e).replace("glassgrad.", "torch.")

    def matches(self, theirs: "_Raised") -> bool:
        head = theirs.text.strip("\"'").split("\n")[0][:40]  # (a KeyError's text is quoted)
        return theirs.classes <= self.classes and head in self.text


def _run(f, lib):
    log = []

    def P(*a):
        log.append(" ".join(str(x).replace("glassgrad.", "torch.") for x in a))

    def R(e):
        log.append(_Raised(e))

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            f(lib, lib.nn, P, R)
        except Exception as e:
            R(e)
    return log


def _same(a, b) -> bool:
    if isinstance(a, _Raised) and isinstance(b, _Raised):
        return a.matches(b)
    return a == b


@probe
def fwd_hooks_kwargs(lib, nn, P, R):
    m = nn.Linear(2, 2)

    def pre(mod, args, kwargs):
        P("pre", len(args), sorted(kwargs))
        return None

    def post(mod, args, kwargs, out):
        P("post", len(args), sorted(kwargs), tuple(out.shape))
        return out * 2

    h1 = m.register_forward_pre_hook(pre, with_kwargs=True)
    h2 = m.register_forward_hook(post, with_kwargs=True)
    m(input=lib.ones(1, 2))
    P(type(h1).__name__, h1.id < h2.id)
    h1.remove()
    h2.remove()
    h1.remove()
    P(
        len(m._forward_pre_hooks),
        len(m._forward_hooks),
        len(m._forward_hooks_with_kwargs),
        len(m._forward_pre_hooks_with_kwargs),
    )


@probe
def fwd_pre_hook_replace(lib, nn, P, R):
    m = nn.Identity()
    m.register_forward_pre_hook(lambda mod, args: args[0] + 1)
    P(m(lib.zeros(2)).tolist())
    m.register_forward_pre_hook(lambda mod, args: (args[0] * 3,))
    P(m(lib.zeros(2)).tolist())
    m2 = nn.Identity()
    m2.register_forward_pre_hook(lambda mod, args, kw: ((args[0] + 5,), kw), with_kwargs=True)
    P(m2(lib.zeros(2)).tolist())
    m3 = nn.Identity()
    m3.register_forward_pre_hook(lambda mod, args, kw: args, with_kwargs=True)
    P(m3(lib.zeros(2)).tolist())


@probe
def prepend_order(lib, nn, P, R):
    m = nn.Identity()
    m.register_forward_hook(lambda *a: P("a"))
    m.register_forward_hook(lambda *a: P("b"), prepend=True)
    m.register_forward_hook(lambda m, a, k, o: P("c"), prepend=True, with_kwargs=True)
    m.register_forward_pre_hook(lambda *a: P("pa"))
    m.register_forward_pre_hook(lambda *a: P("pb"), prepend=True)
    m(lib.zeros(1))
    P(list(m._forward_hooks.keys()) == sorted(m._forward_hooks.keys()))


@probe
def always_call(lib, nn, P, R):
    class Bad(nn.Module):
        def forward(self, x):
            raise ValueError("boom")

    m = Bad()
    m.register_forward_hook(lambda *a: P("always", a[-1]), always_call=True)
    m.register_forward_hook(lambda *a: P("not"))
    try:
        m(lib.zeros(1))
    except ValueError as e:
        P("raised", e)
    m2 = nn.Identity()
    m2.register_forward_pre_hook(lambda *a: (_ for _ in ()).throw(KeyError("pre")))
    m2.register_forward_hook(lambda *a: P("always2", type(a[-1])), always_call=True)
    try:
        m2(lib.zeros(1))
    except KeyError as e:
        P("raised2", e)


@probe
def global_forward_hooks(lib, nn, P, R):
    from importlib import import_module

    mm = import_module(nn.__name__ + ".modules.module")
    h = mm.register_module_forward_hook(lambda m, i, o: P("g", type(m).__name__))
    h2 = mm.register_module_forward_pre_hook(lambda m, i: P("gp", type(m).__name__))
    h3 = mm.register_module_forward_hook(lambda m, i, kw, o: P("gk", sorted(kw)), with_kwargs=True)
    m = nn.Sequential(nn.ReLU())
    m.register_forward_hook(lambda *a: P("local"))
    m(lib.zeros(1))
    h.remove()
    h2.remove()
    h3.remove()
    m(lib.zeros(1))
    h4 = mm.register_module_forward_hook(lambda m, i, o: P("alw"), always_call=True)

    class Bad(nn.Module):
        def forward(self, x):
            raise ValueError

    try:
        Bad()(1)
    except ValueError:
        P("raised")
    h4.remove()


@probe
def full_backward_hooks(lib, nn, P, R):
    m = nn.Linear(2, 2)
    _fill(lib, m)
    m.register_full_backward_pre_hook(lambda mod, go: P("pre", [tuple(g.shape) for g in go]))
    m.register_full_backward_hook(
        lambda mod, gi, go: P("post", [None if g is None else tuple(g.shape) for g in gi], len(go))
    )
    x = lib.ones(3, 2)
    m(x).sum().backward()
    x = lib.ones(3, 2, requires_grad=True)
    m(x).sum().backward()
    P(x.grad.tolist())
    m2 = nn.Linear(2, 2)
    m2.register_full_backward_pre_hook(lambda mod, go: (go[0] * 2,))
    m2.register_full_backward_hook(lambda mod, gi, go: (gi[0] * 10,))
    x = lib.ones(1, 2, requires_grad=True)
    m2.weight.data.fill_(1.0)
    m2(x).sum().backward()
    P(x.grad.tolist(), m2.weight.grad.tolist())


@probe
def backward_hook_multi_out(lib, nn, P, R):
    class Two(nn.Module):
        def forward(self, a, b):
            return a * 2, b * 3

    m = Two()
    m.register_full_backward_hook(
        lambda mod, gi, go: P(
            "gi", [None if g is None else g.tolist() for g in gi], "go", [None if g is None else g.tolist() for g in go]
        )
    )
    a = lib.ones(2, requires_grad=True)
    b = lib.ones(2)
    x, y = m(a, b)
    (x.sum() + y.sum()).backward()
    x, y = m(a, lib.ones(2, requires_grad=True))
    x.sum().backward()


@probe
def hook_on_kwarg_only(lib, nn, P, R):
    class M(nn.Module):
        def forward(self, x, scale=1.0):
            return x * scale

    m = M()
    m.register_forward_pre_hook(lambda mod, a, kw: (a, {**kw, "scale": 5.0}), with_kwargs=True)
    P(m(lib.ones(1)).tolist(), m(lib.ones(1), scale=2.0).tolist())


@probe
def state_dict_hooks(lib, nn, P, R):
    m = nn.Sequential(nn.Linear(2, 2))
    m.register_state_dict_pre_hook(lambda mod, prefix, keep_vars: P("pre", prefix, keep_vars))
    m[0].register_state_dict_pre_hook(lambda mod, prefix, keep_vars: P("pre0", prefix, keep_vars))

    def post(mod, sd, prefix, local_metadata):
        P("post", prefix, list(sd), local_metadata)
        sd["extra"] = 1

    m._register_state_dict_hook(post)
    sd = m.state_dict(prefix="p.")
    P(list(sd))
    P(sd._metadata)

    def post2(mod, sd, prefix, local_metadata):
        return {"new": 1}

    m2 = nn.Linear(1, 1)
    m2._register_state_dict_hook(post2)
    try:
        P(list(m2.state_dict()))
    except Exception as e:
        R(e)
    m3 = nn.Linear(1, 1)
    if hasattr(m3, "register_state_dict_post_hook"):
        m3.register_state_dict_post_hook(lambda mod, sd, prefix, md: P("sdpost", list(sd)))
        m3.state_dict()


@probe
def load_hooks(lib, nn, P, R):
    m = nn.Sequential(nn.Linear(2, 2), nn.BatchNorm1d(2))

    def pre(sd, prefix, local_metadata, strict, missing, unexpected, error_msgs):
        P("pre", prefix, sorted(sd), local_metadata, strict)

    m[1]._register_load_state_dict_pre_hook(pre)
    m[1]._register_load_state_dict_pre_hook(lambda mod, *a: P("premod", type(mod).__name__), with_module=True)

    def post(mod, ik):
        P("post", type(mod).__name__, ik.missing_keys, ik.unexpected_keys)
        ik.missing_keys.clear()

    m.register_load_state_dict_post_hook(post)
    sd = m.state_dict()
    del sd["1.num_batches_tracked"]
    sd["zz"] = lib.ones(1)
    try:
        r = m.load_state_dict(sd)
        P("r", r)
    except Exception as e:
        R(e)
    r = m.load_state_dict(sd, strict=False)
    P(r, r.missing_keys, r.unexpected_keys)


@probe
def load_errors(lib, nn, P, R):
    m = nn.Linear(2, 3)
    sd = {"weight": lib.ones(3, 3), "bias": lib.ones(3)}
    try:
        m.load_state_dict(sd)
    except Exception as e:
        R(e)
    try:
        m.load_state_dict({"weight": lib.ones(3, 2)})
    except Exception as e:
        R(e)
    try:
        m.load_state_dict({"weight": lib.ones(3, 2), "bias": lib.ones(3), "x": lib.ones(1), "y.z": lib.ones(1)})
    except Exception as e:
        R(e)
    r = m.load_state_dict({"weight": lib.ones(3, 2, dtype=lib.float64), "bias": lib.ones(3)})
    P(r, m.weight.dtype, m.weight.tolist()[0])
    try:
        m.load_state_dict({"weight": lib.ones(3, 2), "bias": lib.ones(3)}, strict=False, assign=True)
        P(m.weight.requires_grad, type(m.weight).__name__)
    except Exception as e:
        R(e)


@probe
def load_assign(lib, nn, P, R):
    m = nn.Linear(2, 3)
    w = lib.ones(3, 2, dtype=lib.float64)
    m.load_state_dict({"weight": w, "bias": lib.zeros(3)}, assign=True)
    P(type(m.weight).__name__, m.weight.dtype, m.weight.requires_grad)
    bn = nn.BatchNorm1d(3)
    rm = lib.ones(3, dtype=lib.float64)
    bn.load_state_dict({**bn.state_dict(), "running_mean": rm}, assign=True)
    P(bn.running_mean.dtype)
    m2 = nn.Linear(2, 3)
    m2.weight.requires_grad_(False)
    m2.load_state_dict({"weight": lib.ones(3, 2), "bias": lib.zeros(3)}, assign=True)
    P(m2.weight.requires_grad)
    try:
        m2.load_state_dict({"weight": lib.ones(3, 2), "bias": lib.zeros(4)}, assign=True)
    except Exception as e:
        R(e)


@probe
def load_override(lib, nn, P, R):
    class M(nn.Linear):
        def _load_from_state_dict(
            self, state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys, error_msgs
        ):
            P("ld", prefix, sorted(state_dict), local_metadata.get("version"), strict)
            key = prefix + "old_w"
            if key in state_dict:
                state_dict[prefix + "weight"] = state_dict.pop(key)
            super()._load_from_state_dict(
                state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys, error_msgs
            )

    s = nn.Sequential(M(2, 2))
    r = s.load_state_dict({"0.old_w": lib.ones(2, 2), "0.bias": lib.zeros(2)})
    P(r, s[0].weight.tolist())

    class N(nn.Module):
        def __init__(self):
            super().__init__()
            self.l = nn.Linear(1, 1)

        def _load_from_state_dict(self, sd, prefix, md, strict, mk, uk, em):
            em.append("custom error")

    try:
        N().load_state_dict(N().state_dict())
    except Exception as e:
        R(e)


@probe
def submodule_api(lib, nn, P, R):
    m = nn.Sequential(nn.Linear(2, 2), nn.Sequential(nn.ReLU(), nn.BatchNorm1d(2)))
    P(type(m.get_submodule("1.1")).__name__, type(m.get_submodule("")).__name__)
    for bad in ("2", "1.5", "0.weight", "1.1.running_mean", "x.y"):
        try:
            m.get_submodule(bad)
        except Exception as e:
            P(bad)
            R(e)
    P(m.get_parameter("0.weight").shape, m.get_buffer("1.1.running_mean").shape)
    for bad in ("0.nope", "1.1.running_mean", "5.weight", "0"):
        try:
            m.get_parameter(bad)
        except Exception as e:
            P(bad)
            R(e)
    for bad in ("1.1.weight", "1.1.zz", "1.1.training"):
        try:
            m.get_buffer(bad)
        except Exception as e:
            P(bad)
            R(e)
    m.set_submodule("1.0", nn.Tanh())
    P(m)
    for bad in ("9", "1.9.x", "0.weight"):
        try:
            m.set_submodule(bad, nn.ReLU())
            P("ok", bad, m)
        except Exception as e:
            P(bad)
            R(e)
    try:
        m.set_submodule("", nn.ReLU())
    except Exception as e:
        P("empty")
        R(e)
    try:
        m.set_submodule("0", 5)
    except Exception as e:
        P("int")
        R(e)
    try:
        m.set_submodule("1.9", nn.ReLU(), strict=True)
    except Exception as e:
        P("strict")
        R(e)
    m.set_submodule("1.9", nn.ReLU(), strict=False)
    P(m)


@probe
def apply_and_to(lib, nn, P, R):
    m = nn.Sequential(nn.Linear(2, 2), nn.BatchNorm1d(2))
    order = []
    m.apply(lambda mod: order.append(type(mod).__name__))
    P(order)
    P(m.apply(lambda mod: None) is m)
    m.half()
    P([(k, v.dtype) for k, v in m.state_dict().items()])
    m.double()
    P([(k, v.dtype) for k, v in m.state_dict().items()])
    m.to(lib.float32)
    P([(k, v.dtype) for k, v in m.state_dict().items()])
    m.to(dtype=lib.bfloat16)
    P([(k, v.dtype) for k, v in m.state_dict().items()])
    m.float()
    P(m.to("cpu", lib.float64) is m, m[0].weight.dtype)
    m.type(lib.float32)
    P(m[0].weight.dtype)
    w = m[0].weight
    m.to(lib.float64)
    P(m[0].weight is w, type(m[0].weight).__name__, m[0].weight.requires_grad)
    x = lib.ones(2, dtype=lib.float64)
    P(m.to(x) is m, m[0].weight.dtype)
    m.bfloat16()
    P(m[1].running_var.dtype)


@probe
def zero_grad_req(lib, nn, P, R):
    m = nn.Linear(2, 2)
    m(lib.ones(1, 2)).sum().backward()
    g = m.weight.grad
    m.zero_grad(set_to_none=False)
    P(m.weight.grad.tolist())
    m.zero_grad()
    P(m.weight.grad)
    m.requires_grad_(False)
    P([p.requires_grad for p in m.parameters()])
    P(m.requires_grad_() is m, m.weight.requires_grad)
    m.bias.requires_grad_(False)
    m(lib.ones(1, 2)).sum().backward()
    m.zero_grad(False)
    P(m.weight.grad.tolist(), m.bias.grad)
    x = nn.Linear(1, 1)
    y = x(lib.ones(1, 1)) * 2
    y.backward()
    x.weight.grad.requires_grad_(False)
    g = x.weight.grad * lib.ones(1, 1, requires_grad=True)
    x.weight.grad = g
    x.zero_grad(set_to_none=False)
    P(x.weight.grad.requires_grad, x.weight.grad.grad_fn)


@probe
def named_order(lib, nn, P, R):
    class M(nn.Module):
        def __init__(self):
            super().__init__()
            self.register_buffer("b1", lib.ones(1))
            self.p1 = nn.Parameter(lib.ones(1))
            self.c = nn.Linear(1, 1)
            self.register_buffer("b2", lib.ones(1), persistent=False)
            self.register_buffer("b3", None)
            self.register_parameter("p2", None)
            self.shared = self.c
            self.p3 = self.p1

    m = M()
    P([k for k, _ in m.named_parameters()], [k for k, _ in m.named_parameters(remove_duplicate=False)])
    P([k for k, _ in m.named_buffers()], [k for k, _ in m.named_buffers(remove_duplicate=False)])
    P(list(m.state_dict()), list(m.state_dict(keep_vars=True)))
    P([k for k, _ in m.named_modules()], [k for k, _ in m.named_modules(remove_duplicate=False)])
    P([k for k, _ in m.named_children()], [k for k, _ in m.named_parameters(prefix="x", recurse=False)])
    P([k for k, _ in m.named_modules(prefix="root")])
    P(m)
    del m.c
    P([k for k, _ in m.named_parameters()])
    P(m.__dir__().__contains__("b1"), "p1" in dir(m))


def _model(lib, nn):
    lib.manual_seed(0)
    m = nn.Sequential(nn.Linear(3, 4), nn.ReLU(), nn.Linear(4, 2))
    with lib.no_grad():
        for i, p in enumerate(m.parameters()):
            p.copy_(lib.arange(p.numel(), dtype=lib.float32).reshape(p.shape) * 0.1 - 0.2 * i)
    return m


def _grads(lib, m, scale=1.0):
    for i, p in enumerate(m.parameters()):
        p.grad = (lib.arange(p.numel(), dtype=lib.float32).reshape(p.shape) - 2.0) * scale * (i + 1)


@probe
def clip_norm(lib, nn, P, R):
    for nt in (2.0, 1, 3.5, math.inf, -math.inf, 0, "inf", 0.5):
        for foreach in (None, True, False):
            m = _model(lib, nn)
            _grads(lib, m)
            try:
                r = nn.utils.clip_grad_norm_(m.parameters(), 1.0, norm_type=nt, foreach=foreach)
                P(
                    nt,
                    foreach,
                    round(float(r), 4),
                    r.dtype,
                    r.shape,
                    [round(float(p.grad.sum()), 4) for p in m.parameters()],
                )
            except Exception as e:
                P(nt, foreach, "ERR")
                R(e)


@probe
def clip_norm_edges(lib, nn, P, R):
    m = _model(lib, nn)
    r = nn.utils.clip_grad_norm_(m.parameters(), 1.0)
    P("nograds", r, r.dtype)
    r = nn.utils.clip_grad_norm_([], 1.0)
    P("empty", r)
    _grads(lib, m)
    r = nn.utils.clip_grad_norm_(m[0].weight, 0.5)
    P("single", round(float(r), 4))
    m = _model(lib, nn)
    _grads(lib, m)
    m[0].weight.grad[0, 0] = float("nan")
    try:
        r = nn.utils.clip_grad_norm_(m.parameters(), 1.0, error_if_nonfinite=True)
        P(r)
    except Exception as e:
        R(e)
    r = nn.utils.clip_grad_norm_(m.parameters(), 1.0, error_if_nonfinite=False)
    P(r, m[2].bias.grad.tolist())
    m = _model(lib, nn)
    _grads(lib, m)
    m[0].weight.grad[0, 0] = float("inf")
    try:
        r = nn.utils.clip_grad_norm_(m.parameters(), 1.0, norm_type="inf", error_if_nonfinite=True)
        P(r)
    except Exception as e:
        R(e)
    m = _model(lib, nn)
    _grads(lib, m)
    r = nn.utils.clip_grad_norm_(m.parameters(), max_norm=1e9)
    P(round(float(r), 3), m[2].bias.grad.tolist())
    m = _model(lib, nn)
    _grads(lib, m)
    gen = (p for p in m.parameters())
    r = nn.utils.clip_grad_norm_(gen, 2)
    P(round(float(r), 3))
    m = _model(lib, nn)
    _grads(lib, m)
    m.double()
    _grads(lib, m)
    for p in m.parameters():
        p.grad = p.grad.double()
    r = nn.utils.clip_grad_norm_(m.parameters(), 1)
    P(r.dtype)
    m = _model(lib, nn)
    _grads(lib, m)
    m[0].weight.grad = m[0].weight.grad.half()
    try:
        r = nn.utils.clip_grad_norm_(m.parameters(), 1)
        P(r.dtype, m[0].weight.grad.dtype)
    except Exception as e:
        R(e)


@probe
def clip_value(lib, nn, P, R):
    m = _model(lib, nn)
    _grads(lib, m)
    for f in (None, True, False):
        m = _model(lib, nn)
        _grads(lib, m)
        r = nn.utils.clip_grad_value_(m.parameters(), 1.5, foreach=f)
        P(r, [p.grad.tolist() for p in m.parameters()][-1])
    m = _model(lib, nn)
    _grads(lib, m)
    nn.utils.clip_grad_value_(m[0].weight, clip_value=2)
    P(m[0].weight.grad.max().item(), m[0].weight.grad.min().item())
    try:
        nn.utils.clip_grad_value_(m.parameters(), -1)
        P([p.grad.tolist() for p in m.parameters()][-1])
    except Exception as e:
        R(e)


@probe
def get_total_norm(lib, nn, P, R):
    m = _model(lib, nn)
    _grads(lib, m)
    gs = [p.grad for p in m.parameters()]
    for nt in (2, 1, "inf", 0):
        r = nn.utils.get_total_norm(gs, norm_type=nt)
        P(nt, round(float(r), 4), r.shape)
    r = nn.utils.get_total_norm(gs[0])
    P(round(float(r), 4))
    r = nn.utils.get_total_norm([])
    P(r)
    nn.utils.clip_grads_with_norm_(m.parameters(), 1.0, lib.tensor(10.0))
    P(m[2].bias.grad.tolist())


@probe
def vectors(lib, nn, P, R):
    m = _model(lib, nn)
    v = nn.utils.parameters_to_vector(m.parameters())
    P(v.shape, v.requires_grad, v.grad_fn is not None, v[:5].tolist())
    nn.utils.vector_to_parameters(v * 2, m.parameters())
    P(m[0].weight[0].tolist(), m[0].weight.requires_grad, type(m[0].weight).__name__)
    try:
        nn.utils.vector_to_parameters(v.tolist(), m.parameters())
    except Exception as e:
        R(e)
    try:
        nn.utils.vector_to_parameters(lib.cat([v, v]), m.parameters())
        P("long ok")
    except Exception as e:
        R(e)
    try:
        nn.utils.parameters_to_vector(m[0].weight)
        P("single ok")
    except Exception as e:
        R(e)
    w = m[0].weight
    nn.utils.vector_to_parameters(lib.zeros(v.shape), m.parameters())
    P(m[0].weight is w, w.sum().item())


@probe
def fuse(lib, nn, P, R):
    lib.manual_seed(0)
    conv = nn.Conv2d(2, 3, 3, bias=False).eval()
    bn = nn.BatchNorm2d(3).eval()
    with lib.no_grad():
        bn.running_mean.copy_(lib.tensor([0.1, 0.2, 0.3]))
        bn.running_var.copy_(lib.tensor([1.0, 2.0, 3.0]))
    f = nn.utils.fuse_conv_bn_eval(conv, bn)
    P(f, f.bias is not None, f.weight.requires_grad, type(f.weight).__name__, f.bias.tolist())
    P(f is conv)
    f = nn.utils.fuse_conv_bn_eval(nn.ConvTranspose2d(2, 3, 3).eval(), bn, transpose=True)
    P(f, f.weight.shape)
    bn2 = nn.BatchNorm2d(3, affine=False).eval()
    f = nn.utils.fuse_conv_bn_eval(nn.Conv2d(2, 3, 1).eval(), bn2)
    P(f.bias.shape)
    try:
        nn.utils.fuse_conv_bn_eval(nn.Conv2d(2, 3, 1), bn)
    except Exception as e:
        R(e)
    lin = nn.Linear(3, 3).eval()
    bn1 = nn.BatchNorm1d(3).eval()
    f = nn.utils.fuse_linear_bn_eval(lin, bn1)
    P(f, f.bias.shape)
    try:
        nn.utils.fuse_linear_bn_eval(nn.Linear(3, 4).eval(), bn1)
    except Exception as e:
        R(e)
    bnt = nn.BatchNorm2d(3, track_running_stats=False).eval()
    try:
        f = nn.utils.fuse_conv_bn_eval(nn.Conv2d(2, 3, 1).eval(), bnt)
        P("ok", f)
    except Exception as e:
        R(e)
    from importlib import import_module

    fu = import_module(nn.__name__ + ".utils.fusion")
    w, b = fu.fuse_conv_bn_weights(conv.weight, None, bn.running_mean, bn.running_var, bn.eps, bn.weight, bn.bias)
    P(type(w).__name__, type(b).__name__, w.shape, b.tolist())


@probe
def prune_api(lib, nn, P, R):
    import importlib

    pr = importlib.import_module(nn.__name__ + ".utils.prune")
    lib.manual_seed(0)
    m = nn.Linear(4, 3)
    with lib.no_grad():
        m.weight.copy_(lib.arange(12, dtype=lib.float32).reshape(3, 4) - 5)
    pr.l1_unstructured(m, "weight", amount=0.25)
    P([k for k, _ in m.named_parameters()], [k for k, _ in m.named_buffers()], list(m.state_dict()))
    P(m.weight_mask.tolist(), pr.is_pruned(m), type(m.weight).__name__, m.weight.grad_fn is not None)
    P(list(m._forward_pre_hooks.values())[0].__class__.__name__)
    pr.l1_unstructured(m, "weight", amount=2)
    P(m.weight_mask.tolist())
    h = list(m._forward_pre_hooks.values())[0]
    P(type(h).__name__, [type(x).__name__ for x in h] if hasattr(h, "__iter__") else None, h._tensor_name)
    pr.remove(m, "weight")
    P([k for k, _ in m.named_parameters()], m.weight.tolist()[0], pr.is_pruned(m))
    m2 = nn.Conv2d(2, 4, 3)
    with lib.no_grad():
        m2.weight.copy_(lib.arange(72, dtype=lib.float32).reshape(4, 2, 3, 3) - 30)
    pr.ln_structured(m2, "weight", amount=0.5, n=2, dim=0)
    P(m2.weight_mask.sum(dim=(1, 2, 3)).tolist())
    pr.ln_structured(m2, "bias", amount=1, n=1, dim=0) if False else None
    try:
        pr.l1_unstructured(m2, "weight", amount=1.5)
    except Exception as e:
        R(e)
    try:
        pr.l1_unstructured(m2, "weight", amount=-1)
    except Exception as e:
        R(e)
    try:
        pr.l1_unstructured(m2, "nope", amount=1)
    except Exception as e:
        R(e)
    m3 = nn.Linear(4, 3)
    pr.identity(m3, "bias")
    P(m3.bias_mask.tolist())
    pr.custom_from_mask(m3, "weight", mask=lib.ones(3, 4) * (lib.arange(4) % 2))
    P(m3.weight_mask.tolist()[0])
    m4 = nn.Sequential(nn.Linear(4, 4), nn.Linear(4, 2))
    with lib.no_grad():
        for i, p in enumerate(m4.parameters()):
            p.copy_(lib.arange(p.numel(), dtype=lib.float32).reshape(p.shape) - 3 * i)
    pr.global_unstructured([(m4[0], "weight"), (m4[1], "weight")], pruning_method=pr.L1Unstructured, amount=10)
    P(m4[0].weight_mask.sum().item(), m4[1].weight_mask.sum().item())
    P(
        repr(pr.L1Unstructured(0.3).amount),
        pr.L1Unstructured.PRUNING_TYPE,
        pr.LnStructured.PRUNING_TYPE,
        pr.RandomStructured.PRUNING_TYPE,
    )
    sd = m4.state_dict()
    P(list(sd))
    m5 = nn.Sequential(nn.Linear(4, 4), nn.Linear(4, 2))
    try:
        m5.load_state_dict(sd)
    except Exception as e:
        R(e)


def _fill(lib, m):
    with lib.no_grad():
        for i, p in enumerate(m.parameters()):
            p.copy_(lib.linspace(-1, 1, p.numel()).reshape(p.shape) * (i + 1) + 0.05)


@probe
def weight_norm_new(lib, nn, P, R):
    PZ = importlib.import_module(nn.__name__ + ".utils.parametrizations")
    m = nn.Linear(3, 4)
    _fill(lib, m)
    m = PZ.weight_norm(m)
    P(m)
    P(type(m).__name__, [k for k, _ in m.named_parameters()], list(m.state_dict()))
    P([tuple(v.shape) for v in m.state_dict().values()])
    P(m.parametrizations.weight.original0.flatten().tolist()[:4])
    m2 = PZ.weight_norm(nn.Conv2d(2, 3, 2), dim=None)
    P([tuple(v.shape) for v in m2.state_dict().values()])
    m3 = PZ.weight_norm(nn.Linear(3, 4), name="weight", dim=1)
    P([tuple(v.shape) for v in m3.state_dict().values()])
    m4 = PZ.weight_norm(nn.Linear(3, 4), dim=-1)
    P([tuple(v.shape) for v in m4.state_dict().values()])


@probe
def weight_norm_load_old(lib, nn, P, R):
    PZ = importlib.import_module(nn.__name__ + ".utils.parametrizations")
    old = nn.utils.weight_norm(nn.Linear(3, 4))
    P(list(old.state_dict()), [k for k, _ in old.named_parameters()])
    P(old)
    new = PZ.weight_norm(nn.Linear(3, 4))
    sd = old.state_dict()
    try:
        r = new.load_state_dict(sd)
        P(r)
    except Exception as e:
        R(e)


@probe
def spectral(lib, nn, P, R):
    PZ = importlib.import_module(nn.__name__ + ".utils.parametrizations")
    m = PZ.spectral_norm(nn.Linear(5, 4))
    P(m)
    P([k for k, _ in m.named_parameters()], [k for k, _ in m.named_buffers()], list(m.state_dict()))
    P([tuple(v.shape) for v in m.state_dict().values()])
    m2 = nn.utils.spectral_norm(nn.Conv2d(2, 3, 2))
    P([k for k, _ in m2.named_parameters()], [k for k, _ in m2.named_buffers()], list(m2.state_dict()))
    P(m2)
    m3 = PZ.spectral_norm(nn.ConvTranspose2d(2, 3, 2))
    P([tuple(v.shape) for v in m3.state_dict().values()])
    m4 = PZ.spectral_norm(nn.Embedding(5, 3), n_power_iterations=2, eps=1e-6, dim=None)
    P(list(m4.state_dict()))


@probe
def orthogonal(lib, nn, P, R):
    PZ = importlib.import_module(nn.__name__ + ".utils.parametrizations")
    m = PZ.orthogonal(nn.Linear(4, 3))
    P(m)
    P([k for k, _ in m.named_parameters()], list(m.state_dict()))
    w = m.weight
    P(round(float((w @ w.T - lib.eye(3)).abs().max()), 5) < 1e-5)
    for mp in ("matrix_exp", "cayley", "householder"):
        m = PZ.orthogonal(nn.Linear(3, 5), orthogonal_map=mp)
        w = m.weight
        P(mp, round(float((w.T @ w - lib.eye(3)).abs().max()), 4) < 1e-4, list(m.state_dict()))
    try:
        PZ.orthogonal(nn.Linear(3, 3), orthogonal_map="bad")
    except Exception as e:
        R(e)
    try:
        PZ.orthogonal(nn.Linear(3, 3), name="bias")
    except Exception as e:
        R(e)


@probe
def parametrize_api(lib, nn, P, R):
    PM = importlib.import_module(nn.__name__ + ".utils.parametrize")

    class Sym(nn.Module):
        def forward(self, X):
            return X.triu() + X.triu(1).transpose(-1, -2)

    m = nn.Linear(3, 3)
    _fill(lib, m)
    PM.register_parametrization(m, "weight", Sym())
    P(m)
    P(PM.is_parametrized(m), PM.is_parametrized(m, "weight"), PM.is_parametrized(m, "bias"))
    P(type(m.parametrizations).__name__, type(m.parametrizations.weight).__name__)
    P(PM.type_before_parametrizations(m).__name__)
    P(m.weight.tolist()[1])
    with PM.cached():
        a = m.weight
        b = m.weight
        P(a is b)
    PM.remove_parametrizations(m, "weight", leave_parametrized=True)
    P(type(m).__name__, [k for k, _ in m.named_parameters()], m.weight.tolist()[1])
    try:
        PM.remove_parametrizations(m, "weight")
    except Exception as e:
        R(e)

    class Bad(nn.Module):
        def forward(self, X):
            return X[0]

    try:
        PM.register_parametrization(nn.Linear(3, 3), "weight", Bad())
    except Exception as e:
        R(e)
    PM.register_parametrization(m, "weight", Bad(), unsafe=True)
    P(m.weight.shape)


@probe
def bw_hook_unused_output(lib, nn, P, R):
    class Two(nn.Module):
        def forward(self, a):
            return a * 2, a * 3

    m = Two()
    m.register_full_backward_hook(lambda mod, gi, go: P("go", [None if g is None else g.tolist() for g in go]))
    m.register_full_backward_pre_hook(lambda mod, go: P("pre", [None if g is None else g.tolist() for g in go]))
    a = lib.ones(2, requires_grad=True)
    x, y = m(a)
    x.sum().backward()


@probe
def bw_hook_non_tensor_args(lib, nn, P, R):
    class M(nn.Module):
        def forward(self, a, k, b=None):
            return a * k

    m = M()
    m.register_full_backward_hook(lambda mod, gi, go: P("gi", len(gi), [None if g is None else g.tolist() for g in gi]))
    a = lib.ones(2, requires_grad=True)
    m(a, 3).sum().backward()
    m(a, lib.ones(2)).sum().backward()


@probe
def bw_hook_no_grad_inputs(lib, nn, P, R):
    m = nn.Linear(2, 1)
    m.register_full_backward_hook(lambda mod, gi, go: P("gi", gi, len(go)))
    m(lib.ones(1, 2)).sum().backward()
    m.weight.requires_grad_(False)
    m.bias.requires_grad_(False)
    y = m(lib.ones(1, 2))
    P(y.requires_grad)


@probe
def adaptive_zero_channels(lib, nn, P, R):
    x = lib.ones(1, 0, 4, 4, requires_grad=True)
    for f in ("adaptive_avg_pool2d", "adaptive_max_pool2d", "avg_pool2d", "max_pool2d"):
        try:
            y = getattr(lib.nn.functional, f)(x, 2)
            P(f, "fwd", tuple((y[0] if isinstance(y, tuple) else y).shape))
            (y[0] if isinstance(y, tuple) else y).sum().backward()
            P(f, "bwd ok")
        except Exception as e:
            P(f)
            R(e)
    x = lib.ones(0, 4, 4, requires_grad=True)
    try:
        y = lib.nn.functional.adaptive_avg_pool2d(x, 2)
        P("3d fwd", tuple(y.shape))
        y.sum().backward()
        P("3d bwd ok")
    except Exception as e:
        P("3d")
        R(e)
    x = lib.ones(2, 0, 4, requires_grad=True)
    try:
        y = lib.nn.functional.adaptive_avg_pool1d(x, 2)
        P("1d fwd", tuple(y.shape))
        y.sum().backward()
        P("1d bwd ok")
    except Exception as e:
        P("1d")
        R(e)
    x = lib.ones(1, 0, 2, 4, 4, requires_grad=True)
    try:
        y = lib.nn.functional.adaptive_avg_pool3d(x, 2)
        P("3d-pool fwd", tuple(y.shape))
        y.sum().backward()
        P("3d-pool bwd ok")
    except Exception as e:
        P("3dpool")
        R(e)


@probe
def bw_hook_unused_input(lib, nn, P, R):
    class Two(nn.Module):
        def forward(self, a, b):
            return a * 2

    m = Two()
    m.register_full_backward_hook(lambda mod, gi, go: P("gi", [None if g is None else g.tolist() for g in gi]))
    a = lib.ones(2, requires_grad=True)
    b = lib.ones(2, requires_grad=True)
    m(a, b).sum().backward()
    P(a.grad.tolist(), b.grad)

    class Three(nn.Module):
        def forward(self, a):
            return a * 2, a * 3, 5

    m = Three()
    m.register_full_backward_hook(
        lambda mod, gi, go: P(
            "gi3", [None if g is None else g.tolist() for g in gi], [None if g is None else g.tolist() for g in go]
        )
    )
    m.register_full_backward_pre_hook(lambda mod, go: (go[0], lib.ones(2) * 7, go[2]))
    a = lib.ones(2, requires_grad=True)
    x, y, z = m(a)
    x.sum().backward()
    P(a.grad.tolist())
    a = lib.ones(2, requires_grad=True)
    x, y, z = m(a)
    (y * 2).sum().backward()
    P(a.grad.tolist())


@probe
def train_eval(lib, nn, P, R):
    x = lib.linspace(-2, 2, 24).reshape(2, 3, 4)
    for name, m in [
        ("Dropout", nn.Dropout(0.5)),
        ("AlphaDropout", nn.AlphaDropout(0.5)),
        ("Dropout1d", nn.Dropout1d()),
        ("FeatureAlphaDropout", nn.FeatureAlphaDropout()),
        ("RReLU", nn.RReLU()),
        ("Dropout2d", nn.Dropout2d()),
    ]:
        m.eval()
        y = m(x)
        P(name, [round(v, 5) for v in y.flatten().tolist()[:6]], m.training)
    bn = nn.BatchNorm1d(3)
    bn(x)
    P(
        bn.num_batches_tracked.item(),
        [round(v, 4) for v in bn.running_mean.tolist()],
        [round(v, 4) for v in bn.running_var.tolist()],
    )
    bn.eval()
    bn(x)
    P(bn.num_batches_tracked.item())
    bn2 = nn.BatchNorm1d(3, momentum=None)
    bn2(x)
    bn2(x * 2)
    P([round(v, 4) for v in bn2.running_mean.tolist()], bn2.num_batches_tracked.item())
    bn3 = nn.BatchNorm1d(3, track_running_stats=False).eval()
    P([round(v, 4) for v in bn3(x).flatten().tolist()[:4]])
    inn = nn.InstanceNorm1d(3, track_running_stats=True)
    inn(x)
    P([round(v, 4) for v in inn.running_mean.tolist()])
    inn.eval()
    P([round(v, 4) for v in inn(x).flatten().tolist()[:4]])
    m = nn.Sequential(nn.Linear(2, 2), nn.Dropout())
    m.train(False)
    P([mm.training for mm in m.modules()])
    try:
        m.train("yes")
    except Exception as e:
        R(e)
    P(m.eval() is m, m.train() is m)


@probe
def rrelu_eval_value(lib, nn, P, R):
    x = lib.tensor([-1.0, 2.0])
    P(nn.RReLU(0.1, 0.3).eval()(x).tolist())
    P(lib.nn.functional.rrelu(x, training=False).tolist())


@probe
def mha_eval(lib, nn, P, R):
    lib.manual_seed(0)
    m = nn.MultiheadAttention(4, 2, dropout=0.5, batch_first=True)
    with lib.no_grad():
        for i, p in enumerate(m.parameters()):
            p.copy_(lib.linspace(-0.5, 0.5, p.numel()).reshape(p.shape))
    m.eval()
    q = lib.linspace(-1, 1, 12).reshape(1, 3, 4)
    out, w = m(q, q, q)
    P([round(v, 4) for v in out.flatten().tolist()], [round(v, 4) for v in w.flatten().tolist()])
    out, w = m(q, q, q, average_attn_weights=False)
    P(tuple(w.shape))
    out, w = m(q, q, q, need_weights=False)
    P(w)


@probe
def module_repr_nested(lib, nn, P, R):
    class Block(nn.Module):
        def __init__(self):
            super().__init__()
            self.conv = nn.Conv2d(3, 8, 3, padding=1, bias=False)
            self.bn = nn.BatchNorm2d(8)
            self.act = nn.ReLU(inplace=True)
            self.extra = nn.ModuleDict({"a": nn.Identity(), "b": nn.Sequential()})
            self.ps = nn.ParameterList([nn.Parameter(lib.ones(2)), nn.Parameter(lib.ones(2, 3))])
            self.pd = nn.ParameterDict({"x": nn.Parameter(lib.ones(1))})
            self.register_buffer("buf", lib.zeros(2))

    m = nn.Sequential(
        Block(), nn.Sequential(nn.Flatten(), nn.Linear(8, 2)), nn.ModuleList([nn.ReLU(), nn.ReLU(), nn.Tanh()])
    )
    P(m)
    P(m[0].ps)
    P(m[0].pd)
    P(repr(nn.ModuleList([nn.Linear(2, 2) for _ in range(4)] + [nn.ReLU()])))
    P(repr(nn.Sequential(*[nn.Linear(2, 2) for _ in range(3)], nn.ReLU(), nn.ReLU())))


@probe
def parameter_repr(lib, nn, P, R):
    p = nn.Parameter(lib.ones(2))
    P(repr(p))
    P(repr(nn.Parameter(lib.ones(2), requires_grad=False)))
    P(repr(nn.Parameter(lib.ones(2, dtype=lib.float64))))
    P(repr(nn.Parameter()))
    b = nn.Buffer(lib.ones(2))
    P(repr(b))


@probe
def module_misc(lib, nn, P, R):
    m = nn.Linear(2, 3)
    P(m.__class__.__name__, m._get_name(), m.extra_repr())
    P(sorted(k for k in m.__dict__ if not k.startswith("_") or k in ("_parameters", "_buffers", "_modules")))
    P(
        hasattr(m, "_non_persistent_buffers_set"),
        hasattr(m, "_forward_hooks"),
        hasattr(m, "_backward_hooks"),
        hasattr(m, "_state_dict_hooks"),
    )
    m.register_buffer("nb", lib.ones(1), persistent=False)
    P(getattr(m, "_non_persistent_buffers_set", None))
    P(m.training, m.in_features, m.out_features)
    m2 = nn.Module()
    P(repr(m2), list(m2.state_dict()))
    try:
        m2(1)
    except Exception as e:
        R(e)
    del m.bias
    P([k for k, _ in m.named_parameters()])
    m.bias = None
    P([k for k, _ in m.named_parameters()], m.bias)
    m.register_parameter("bias", nn.Parameter(lib.zeros(3)))
    P([k for k, _ in m.named_parameters()])


@probe
def init_gain(lib, nn, P, R):
    I = nn.init
    for nl in (
        "linear",
        "conv1d",
        "conv2d",
        "conv3d",
        "conv_transpose1d",
        "conv_transpose2d",
        "conv_transpose3d",
        "sigmoid",
        "tanh",
        "relu",
        "selu",
    ):
        P(nl, I.calculate_gain(nl))
    for a in (None, 0.2, 1, 0):
        P("leaky", a, I.calculate_gain("leaky_relu", a))
    for bad in (("leaky_relu", True), ("leaky_relu", "x"), ("gelu", None), ("relu", 5)):
        try:
            P(bad, I.calculate_gain(*bad))
        except Exception as e:
            R(e)


@probe
def init_fans(lib, nn, P, R):
    I = nn.init
    for shape in ((3, 4), (3, 4, 5), (2, 3, 4, 5), (6,), (0, 3), (3, 0, 2)):
        t = lib.empty(shape)
        try:
            fi, fo = I._calculate_fan_in_and_fan_out(t)
            P(shape, fi, fo)
        except Exception as e:
            P(shape)
            R(e)
    for f, kw in (
        (I.kaiming_uniform_, {}),
        (I.kaiming_normal_, {"mode": "fan_out"}),
        (I.xavier_uniform_, {}),
        (I.xavier_normal_, {"gain": 2.0}),
        (I.orthogonal_, {}),
        (I.sparse_, {"sparsity": 0.5}),
        (I.trunc_normal_, {}),
        (I.eye_, {}),
        (I.dirac_, {}),
    ):
        for shape in ((6,), (0, 3), (3, 4), (2, 3, 3)):
            t = lib.empty(shape)
            try:
                r = f(t, **kw)
                P(f.__name__, shape, r is t, tuple(r.shape))
            except Exception as e:
                P(f.__name__, shape)
                R(e)
    try:
        I.kaiming_uniform_(lib.empty(3, 4), mode="fan_avg")
    except Exception as e:
        R(e)
    try:
        I.kaiming_uniform_(lib.empty(3, 4), nonlinearity="gelu")
    except Exception as e:
        R(e)


@probe
def init_values(lib, nn, P, R):
    I = nn.init
    t = lib.empty(3, 4)
    P(I.constant_(t, 0.5).tolist()[0], I.ones_(t).sum().item(), I.zeros_(t).sum().item())
    P(I.eye_(lib.empty(3, 4)).tolist())
    P(I.dirac_(lib.empty(4, 2, 3)).flatten().tolist())
    P(I.dirac_(lib.empty(4, 2, 3), groups=2).flatten().tolist())
    t = lib.empty(1000, 1000)
    I.trunc_normal_(t, mean=1.0, std=2.0, a=-1.0, b=2.0)
    P(round(t.min().item(), 2) >= -1.0, round(t.max().item(), 2) <= 2.0)
    I.uniform_(t, -3, -2)
    P(t.min().item() >= -3, t.max().item() <= -2)
    I.normal_(t, 5, 0.1)
    P(round(t.mean().item(), 1), round(t.std().item(), 2))
    I.xavier_uniform_(t)
    P(round(t.abs().max().item(), 3), round(math.sqrt(6 / 2000), 3))
    I.kaiming_normal_(t, a=0, mode="fan_in", nonlinearity="relu")
    P(round(t.std().item(), 4), round(math.sqrt(2 / 1000), 4))
    s = I.sparse_(lib.empty(100, 50), sparsity=0.3, std=0.01)
    P((s == 0).sum(0).tolist()[:5])
    o = I.orthogonal_(lib.empty(5, 3), gain=2.0)
    P([[round(v, 4) + 0.0 for v in r] for r in (o.T @ o).tolist()])
    with lib.no_grad():
        w = nn.Parameter(lib.ones(2, 2))
    r = I.normal_(w)
    P(type(r).__name__, r.requires_grad, r is w)
    g = lib.Generator().manual_seed(3)
    a = I.uniform_(lib.empty(4), generator=g).tolist()
    g.manual_seed(3)
    b = I.uniform_(lib.empty(4), generator=g).tolist()
    P(a == b)
    try:
        I.uniform_(lib.empty(3), a=2, b=1)
        P("ok")
    except Exception as e:
        R(e)
    P(I.constant_(lib.empty(2, dtype=lib.int64), 3).tolist())
    P(I.xavier_uniform_(lib.empty(3, 4, dtype=lib.float64)).dtype)


@probe
def init_deprecated(lib, nn, P, R):
    I = nn.init
    for n in (
        "uniform",
        "normal",
        "constant",
        "xavier_uniform",
        "xavier_normal",
        "kaiming_uniform",
        "kaiming_normal",
        "orthogonal",
        "sparse",
    ):
        P(n, hasattr(I, n))
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        I.uniform(lib.empty(2))
        P([str(x.category.__name__) for x in w], [str(x.message)[:60] for x in w])


@pytest.mark.parametrize("f", PROBES, ids=[f.__name__ for f in PROBES])
def test_module_api_sweep_matches_torch(f):
    ours, theirs = _run(f, gt), _run(f, torch_)
    assert len(ours) == len(theirs), (ours, theirs)
    for a, b in zip(ours, theirs):
        assert _same(a, b), (getattr(a, "text", a), getattr(b, "text", b))
