"""Runs the rows of argument_table.py in glassgrad and, where torch is importable, in PyTorch, on
the same float64 data, returning plain NumPy results that the two test families compare."""
from __future__ import annotations

import importlib
from typing import Dict, List, Optional

import numpy as np

import glassgrad as gg
from argument_table import BoolMask, Labels, Positive, Row, Same


def make_inputs(row: Row, seed: int = 0) -> List[Optional[np.ndarray]]:
    rng = np.random.default_rng(seed)
    out = []
    for spec in row.inputs:
        if spec is None:
            out.append(None)
        elif isinstance(spec, Labels):
            out.append(rng.integers(0, spec.classes, spec.shape).astype(np.int64))
        elif isinstance(spec, Positive):
            out.append(rng.uniform(0.5, 1.5, spec.shape))
        elif isinstance(spec, BoolMask):
            out.append(_bool_mask(spec, rng))
        elif isinstance(spec, Same):
            out.append(out[spec.index])
        else:
            out.append(rng.standard_normal(spec))
    return out


def _bool_mask(spec: BoolMask, rng) -> np.ndarray:
    m = rng.random(spec.shape) < spec.p
    m[..., 0] = spec.first
    return m


def _tensors(row: Row, arrays, make_tensor, requires_grad) -> list:
    """The inputs as the framework's tensors; a Same input is the very tensor it names."""
    xs = []
    for i, (spec, a) in enumerate(zip(row.inputs, arrays)):
        if isinstance(spec, Same):
            xs.append(xs[spec.index])
        else:
            xs.append(None if a is None else make_tensor(a, requires_grad(i)))
    return xs


def call_kwargs(row: Row, make_tensor) -> Dict[str, object]:
    """The row's call_kwargs with Input specs made into tensors (the same values in both frameworks)."""
    rng = np.random.default_rng(2)
    out = {}
    for k, v in row.call_kwargs.items():
        if isinstance(v, BoolMask):
            v = make_tensor(_bool_mask(v, rng))
        elif isinstance(v, tuple):
            v = make_tensor(rng.standard_normal(v))
        elif isinstance(v, np.ndarray):
            v = make_tensor(v.copy())
        out[k] = v
    return out


def differentiable(row: Row) -> List[int]:
    """Input positions that get a gradient: float inputs, not labels, running statistics or None."""
    idx = [i for i, s in enumerate(row.inputs) if isinstance(s, tuple)]
    if row.kind == "functional" and row.name in ("batch_norm", "instance_norm"):
        idx = [i for i in idx if i not in (1,)]  # running_mean is statistics, not a variable
    return idx


def cotangent(shape, seed: int = 1) -> np.ndarray:
    return np.random.default_rng(seed).standard_normal(shape)


# ---- glassgrad ----------------------------------------------------------------------------------

def gg_callable(row: Row):
    if row.kind == "layer":
        return getattr(gg.nn, row.name)
    if row.kind == "optimizer":
        return getattr(gg.optim, row.name)
    return getattr(gg.nn.functional, row.name, None) or getattr(gg, row.name)


def _built(value, build):
    """A constructor argument: a nested layer row built by `build`, anything else as it is."""
    return build(value) if isinstance(value, Row) else value


def gg_layer(row: Row, state: Optional[Dict[str, np.ndarray]] = None):
    gg.manual_seed(0)
    args = [_built(a, lambda r: gg_callable(r)(*r.args, **r.kwargs)) for a in row.args]
    layer = gg_callable(row)(*args, **row.kwargs).double()
    if state is not None:
        layer.load_state_dict(state, strict=False)
    return layer


def run_gg(row: Row, arrays, mode: str = "train", state=None, seed: int = 1, grads: bool = True) -> Dict[str, np.ndarray]:
    """{'out': ..., 'grad/<i>': d(sum(out * u))/d(input i), 'grad/<param>': ..., '<buffer>': after}
    (no gradients with grads=False)."""
    diff = differentiable(row)
    xs = _tensors(row, arrays, lambda a, g: gg.tensor(a, requires_grad=g), lambda i: i in diff)
    kwargs = call_kwargs(row, gg.tensor)
    if row.kind == "layer":
        layer = gg_layer(row, state)
        layer.train(mode == "train")
        out = layer(*xs, **kwargs)
    else:
        layer = None
        out = gg_callable(row)(*xs, *row.args, **row.kwargs, **kwargs)
    return _results(row, arrays, xs, out, layer, lambda t: t.detach().numpy(), gg.tensor, seed, grads)


def flat_outputs(out) -> list:
    """Results as a flat list: recurrent layers return (output, h_n), LSTMs (output, (h_n, c_n))."""
    if isinstance(out, (tuple, list)):
        return [t for o in out for t in flat_outputs(o)]
    return [out]


def _results(row: Row, arrays, xs, out, layer, to_numpy, make_tensor, seed: int, grads: bool) -> Dict[str, np.ndarray]:
    """What both frameworks report for a row (to_numpy and make_tensor are the framework's)."""
    diff = differentiable(row)
    extra = ()
    if isinstance(out, tuple):  # (output, more results): the first gets the cotangent, the rest are compared
        out, extra = out[0], flat_outputs(out[1:])  # nested too: an LSTM's (output, (h_n, c_n))
    result = {"out": to_numpy(out)}
    for k, e in enumerate(extra):
        if e is not None:
            result[f"out/{k + 1}"] = to_numpy(e)
    if grads and result["out"].dtype == np.float64:
        (out * make_tensor(cotangent(tuple(out.shape), seed))).sum().backward()
        for i in diff:
            g = xs[i].grad
            result[f"grad/{i}"] = to_numpy(g) if g is not None else np.zeros_like(arrays[i])
        if layer is not None:
            for name, p in layer.named_parameters():
                result[f"grad/{name}"] = to_numpy(p.grad)
    if layer is not None:
        for name, b in layer.named_buffers():
            result[name] = to_numpy(b)
    if row.kind == "functional" and row.name in ("batch_norm", "instance_norm") and len(xs) > 2 and xs[1] is not None:
        result["running_mean"], result["running_var"] = to_numpy(xs[1]), to_numpy(xs[2])
    return result


def gg_state(row: Row) -> Dict[str, np.ndarray]:
    """The row's layer's initial state (parameters and buffers), perturbed so that no parameter
    is at a special value (BatchNorm's weight 1, bias 0) that could hide a mistake."""
    layer = gg_layer(row)
    rng = np.random.default_rng(5)
    state = {}
    for k, v in layer.state_dict().items():
        v = v.numpy()
        if v.dtype.kind == "f" and "running_var" not in k:
            v = v + 0.1 * rng.standard_normal(v.shape)
        elif "running_var" in k:
            v = v * rng.uniform(0.5, 1.5, v.shape)
        state[k] = v
    return state


# ---- optimizers ---------------------------------------------------------------------------------

def _problem(seed: int = 3):
    rng = np.random.default_rng(seed)
    return rng.standard_normal((3, 4)), rng.standard_normal(3), rng.standard_normal((5, 4)), rng.standard_normal((5, 3))


def _steps(w, b, opt, xt, tt, n: int, steps: int, to_numpy) -> List[Dict[str, np.ndarray]]:
    """Parameters after each of `steps` steps on L = sum((x W^T + b - t)^2) / n (either framework)."""
    out = []
    for _ in range(steps):
        loss = (((xt @ w.T + b) - tt) ** 2).sum() / n
        loss.backward()
        opt.step()
        opt.zero_grad()
        out.append({"weight": to_numpy(w), "bias": to_numpy(b)})
    return out


def run_gg_optimizer(row: Row, steps: int = 3) -> List[Dict[str, np.ndarray]]:
    w0, b0, x, t = _problem()
    w, b = gg.nn.Parameter(w0), gg.nn.Parameter(b0)
    opt = gg_callable(row)([w, b], **row.kwargs)
    return _steps(w, b, opt, gg.tensor(x), gg.tensor(t), x.shape[0], steps, lambda p: p.detach().numpy())


# ---- torch --------------------------------------------------------------------------------------

def torch_callable(row: Row, torch):
    if row.torch_name and row.torch_name.startswith("torch."):
        mod, _, attr = row.torch_name.rpartition(".")
        return getattr(importlib.import_module(mod), attr)
    name = row.torch_name or row.name
    if row.kind == "layer":
        return getattr(torch.nn, name)
    if row.kind == "optimizer":
        return getattr(torch.optim, name)
    return getattr(torch.nn.functional, name)


def run_torch(row: Row, arrays, torch, mode: str = "train", state=None, seed: int = 1) -> Dict[str, np.ndarray]:
    diff = differentiable(row)
    kwargs = row.torch_kwargs if row.torch_kwargs is not None else row.kwargs
    xs = _tensors(row, arrays, lambda a, g: torch.tensor(a, requires_grad=g), lambda i: i in diff)
    forward_kwargs = call_kwargs(row, torch.tensor)
    if row.kind == "layer":
        args = [_built(a, lambda r: torch_callable(r, torch)(*r.args, **r.kwargs)) for a in row.args]
        layer = torch_callable(row, torch)(*args, **kwargs).double()
        if state is not None:
            own = layer.state_dict()
            layer.load_state_dict({k: torch.tensor(v, dtype=own[k].dtype) for k, v in state.items() if k in own},
                                  strict=False)
        layer.train(mode == "train")
        out = layer(*xs, **forward_kwargs)
    else:
        layer = None
        out = torch_callable(row, torch)(*xs, *row.args, **kwargs, **forward_kwargs)
    return _results(row, arrays, xs, out, layer, lambda t: t.detach().numpy(), torch.tensor, seed, True)


def run_torch_optimizer(row: Row, torch, steps: int = 3) -> List[Dict[str, np.ndarray]]:
    w0, b0, x, t = _problem()
    w, b = torch.nn.Parameter(torch.tensor(w0)), torch.nn.Parameter(torch.tensor(b0))
    opt = torch_callable(row, torch)([w, b], **(row.torch_kwargs if row.torch_kwargs is not None else row.kwargs))
    return _steps(w, b, opt, torch.tensor(x), torch.tensor(t), x.shape[0], steps,
                  lambda p: p.detach().numpy().copy())


# ---- learning-rate schedulers -------------------------------------------------------------------

# What ReduceLROnPlateau rows watch, one value per step: plateaus, ties, changes just under the
# default threshold (1e-4 relative), a NaN (never an improvement) and real improvements.
PLATEAU_METRICS = (5.0, 4.0, 4.0, 3.9999, 3.0, 3.0, 3.0, 3.0, float("nan"), 3.0, 2.9999, 2.0, 2.0, 2.0, 2.0, 2.0, 1.0,
                   1.5, 1.0, 1.0, 1.0, 1.0, 0.9999, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5)


def build_scheduler(row: Row, schedulers, opt):
    """The scheduler of `row` from module `schedulers` (glassgrad's or torch's lr_scheduler) on
    `opt`; rows among its arguments are built the same way."""
    def build(v):
        if isinstance(v, Row):
            return build_scheduler(v, schedulers, opt)
        return [build(x) for x in v] if isinstance(v, list) else v
    args, cls = [build(a) for a in row.args], getattr(schedulers, row.name)
    if row.name == "ChainedScheduler":  # the one scheduler whose first argument is not the optimizer
        return cls(*args, optimizer=opt, **row.kwargs)
    return cls(opt, *args, **row.kwargs)


def scheduler_groups(optim, params, opt_name: str):
    """Two parameter groups (lr 0.1 and 0.05): SGD with momentum, or AdamW (OneCycleLR cycles its beta1)."""
    kw = {"momentum": 0.9} if opt_name == "SGD" else {}
    return getattr(optim, opt_name)([{"params": [params[0]]}, {"params": [params[1]], "lr": 0.05}], lr=0.1, **kw)


def step_scheduler(row: Row, sched, i: int) -> None:
    """The i-th step of a row's schedule: step(metric), step(epoch) or step()."""
    if row.name == "ReduceLROnPlateau":
        m = PLATEAU_METRICS[i % len(PLATEAU_METRICS)]
        sched.step(-m if row.kwargs.get("mode", row.args[0] if row.args else "min") == "max" else m)
    elif row.epochs is not None:
        sched.step(row.epochs[i % len(row.epochs)])
    else:
        sched.step()


def schedule_trace(row: Row, sched, opt, steps: int, optimizer_step) -> List[Dict[str, np.ndarray]]:
    """Every group's lr and momentum (or beta1), and get_last_lr(), before each of `steps` steps."""
    out = []
    for i in range(steps):
        groups = opt.param_groups
        out.append({"lr": np.array([g["lr"] for g in groups], np.float64),
                    "momentum": np.array([g["betas"][0] if "betas" in g else g["momentum"] for g in groups]),
                    "last_lr": np.array(sched.get_last_lr(), np.float64)})
        optimizer_step()
        step_scheduler(row, sched, i)
    return out


def run_gg_scheduler(row: Row, opt_name: str = "SGD", steps: int = 30):
    opt = scheduler_groups(gg.optim, [gg.nn.Parameter(np.zeros(2)), gg.nn.Parameter(np.zeros(3))], opt_name)
    sched = build_scheduler(row, gg.optim.lr_scheduler, opt)

    def optimizer_step():  # counted as taken (nothing to train here): no 'scheduler before optimizer' warning
        opt._step_calls += 1
    return schedule_trace(row, sched, opt, steps, optimizer_step), sched


def run_torch_scheduler(row: Row, torch, opt_name: str = "SGD", steps: int = 30):
    params = [torch.nn.Parameter(torch.zeros(2, dtype=torch.float64)),
              torch.nn.Parameter(torch.zeros(3, dtype=torch.float64))]
    opt = scheduler_groups(torch.optim, params, opt_name)
    sched = build_scheduler(row, torch.optim.lr_scheduler, opt)
    return schedule_trace(row, sched, opt, steps, opt.step), sched
