"""L-BFGS (Nocedal and Wright, Numerical Optimization, 2nd ed., algorithms 7.4 and 7.5), PyTorch's
torch.optim.LBFGS: the same arguments, defaults, state and iteration, so a script's
`optimizer.step(closure)` takes the steps PyTorch's takes.

Each step() calls the closure (which zeroes the gradients, evaluates the loss and calls backward)
up to max_eval times and moves the parameters up to max_iter times along
    d = -H g,
H the inverse-Hessian estimate from the last history_size pairs (s = t d, y = g_new - g_old),
applied by the two-loop recursion with H0 = (y.s / y.y) I; pairs with y.s <= 1e-10 are skipped.
The first iteration's step is min(1, 1 / |g|_1) lr, later ones lr, or, with
line_search_fn="strong_wolfe", the step a line search satisfying the strong Wolfe conditions
(c1 = 1e-4, c2 = 0.9; bracketing then zooming with safeguarded cubic interpolation) finds.
It stops early when |g|_inf <= tolerance_grad, when the directional derivative g.d >
-tolerance_change, when |t d|_inf or the change of the loss falls to tolerance_change.

The vectors (the flattened gradient, directions, history) are NumPy arrays of the parameters'
dtype, on the host: the closure's forward and backward run as glassgrad plans; the parameter moves
are in-place adds (p.add_) outside autograd. Like PyTorch's, one parameter group only, and its
state lives under the group's first parameter, its keys in PyTorch's order (func_evals, n_iter,
al from the second iteration on, d, t, old_dirs, old_stps, ro, H_diag, prev_flat_grad, prev_loss).
maximize=True minimizes the negated loss (the loss and gradient the iteration reads are negated).
"""
from __future__ import annotations

import math
from collections import defaultdict
from typing import Any, Callable, Dict, List, Optional, Tuple

import numpy as np

from .. import _C, _args
from .._runtime import enable_grad, no_grad
from .._tensor import Tensor, tensor
from .optimizer import Optimizer


def _cubic_minimum(x1: float, f1: float, g1: float, x2: float, f2: float, g2: float,
                   bounds: Optional[Tuple[float, float]] = None) -> float:
    """The minimizer of the cubic through (x1, f1) and (x2, f2) with slopes g1 and g2, clipped to
    bounds (the interval between x1 and x2 by default); its midpoint when the cubic has no
    minimum (Nocedal and Wright, equation 3.59)."""
    lo, hi = bounds if bounds is not None else (min(x1, x2), max(x1, x2))
    d1 = g1 + g2 - 3 * (f1 - f2) / (x1 - x2)
    disc = d1 * d1 - g1 * g2
    if disc < 0:
        return (lo + hi) / 2.0
    d2 = math.sqrt(disc)
    if x1 <= x2:
        at = x2 - (x2 - x1) * ((g2 + d2 - d1) / (g2 - g1 + 2 * d2))
    else:
        at = x1 - (x1 - x2) * ((g1 + d2 - d1) / (g1 - g2 + 2 * d2))
    return min(max(at, lo), hi)


def _strong_wolfe(evaluate: Callable[[float], Tuple[float, np.ndarray]], t: float, d: np.ndarray, f: float,
                  g: np.ndarray, gtd: float, c1: float = 1e-4, c2: float = 0.9, tolerance_change: float = 1e-9,
                  max_ls: int = 25) -> Tuple[float, np.ndarray, float, int]:
    """A step t along d meeting the strong Wolfe conditions f(t) <= f + c1 t g.d and
    |g(t).d| <= -c2 g.d (Nocedal and Wright, algorithms 3.5 and 3.6): steps grow (by cubic
    extrapolation) until they bracket such a point, then the bracket shrinks (cubic
    interpolation, kept 10% away from its ends) until one is found, max_ls evaluations or the
    bracket is shorter than tolerance_change. Returns (f, g, t, evaluations)."""
    d_norm = float(np.abs(d).max())
    f_new, g_new = evaluate(t)
    evals = 1
    gtd_new = float(g_new.dot(d))
    t_prev, f_prev, g_prev, gtd_prev = 0.0, f, g, gtd
    done = False
    ls_iter = 0
    while ls_iter < max_ls:
        if f_new > f + c1 * t * gtd or (ls_iter > 1 and f_new >= f_prev):
            bracket, b_f, b_g, b_gtd = [t_prev, t], [f_prev, f_new], [g_prev, g_new], [gtd_prev, gtd_new]
            break
        if abs(gtd_new) <= -c2 * gtd:
            bracket, b_f, b_g, b_gtd = [t], [f_new], [g_new], [gtd_new]
            done = True
            break
        if gtd_new >= 0:  # past a minimum
            bracket, b_f, b_g, b_gtd = [t_prev, t], [f_prev, f_new], [g_prev, g_new], [gtd_prev, gtd_new]
            break
        # extrapolate, between 1.01 t and 10 t
        t_next = _cubic_minimum(t_prev, f_prev, gtd_prev, t, f_new, gtd_new, bounds=(t + 0.01 * (t - t_prev), t * 10))
        t_prev, f_prev, g_prev, gtd_prev = t, f_new, g_new, gtd_new
        t = t_next
        f_new, g_new = evaluate(t)
        evals += 1
        gtd_new = float(g_new.dot(d))
        ls_iter += 1
    if ls_iter == max_ls:
        bracket, b_f, b_g, b_gtd = [0.0, t], [f, f_new], [g, g_new], [gtd, gtd_new]

    insufficient_progress = False
    low, high = (0, 1) if b_f[0] <= b_f[-1] else (1, 0)
    while not done and ls_iter < max_ls:
        if abs(bracket[1] - bracket[0]) * d_norm < tolerance_change:
            break
        t = _cubic_minimum(bracket[0], b_f[0], b_gtd[0], bracket[1], b_f[1], b_gtd[1])
        top, bottom = max(bracket), min(bracket)
        margin = 0.1 * (top - bottom)
        if min(top - t, t - bottom) < margin:  # too close to an end: move away from it
            if insufficient_progress or t >= top or t <= bottom:
                t = top - margin if abs(t - top) < abs(t - bottom) else bottom + margin
                insufficient_progress = False
            else:
                insufficient_progress = True
        else:
            insufficient_progress = False
        f_new, g_new = evaluate(t)
        evals += 1
        gtd_new = float(g_new.dot(d))
        ls_iter += 1
        if f_new > f + c1 * t * gtd or f_new >= b_f[low]:
            bracket[high], b_f[high], b_g[high], b_gtd[high] = t, f_new, g_new, gtd_new
            low, high = (0, 1) if b_f[0] <= b_f[1] else (1, 0)
        else:
            if abs(gtd_new) <= -c2 * gtd:
                done = True
            elif gtd_new * (bracket[high] - bracket[low]) >= 0:
                bracket[high], b_f[high], b_g[high], b_gtd[high] = bracket[low], b_f[low], b_g[low], b_gtd[low]
            bracket[low], b_f[low], b_g[low], b_gtd[low] = t, f_new, g_new, gtd_new
    return b_f[low], b_g[low], bracket[low], evals


class LBFGS(Optimizer):
    """torch.optim.LBFGS(params, lr=1, max_iter=20, max_eval=None (max_iter * 5 // 4),
    tolerance_grad=1e-7, tolerance_change=1e-9, history_size=100, line_search_fn=None or
    "strong_wolfe", *, maximize=False); step(closure) requires the closure. See the module doc."""

    def __init__(self, params, lr: float = 1, max_iter: int = 20, max_eval: Optional[int] = None,
                 tolerance_grad: float = 1e-7, tolerance_change: float = 1e-9, history_size: int = 100,
                 line_search_fn: Optional[str] = None, *, maximize: bool = False):
        if max_eval is None:
            max_eval = max_iter * 5 // 4
        super().__init__(params, dict(lr=lr, max_iter=max_iter, max_eval=max_eval, tolerance_grad=tolerance_grad,
                                      tolerance_change=tolerance_change, history_size=history_size,
                                      line_search_fn=line_search_fn, maximize=maximize))
        if len(self.param_groups) != 1:
            raise _C.InvalidArgumentError("LBFGS doesn't support per-parameter options (parameter groups)\n"
                                          "  fix: LBFGS(model.parameters(), ...) with one list of parameters")
        self._params: List[Tensor] = list(self.param_groups[0]["params"])

    def _check_group(self, group) -> None:
        super()._check_group(group)
        name = "LBFGS"
        for key in ("max_iter", "max_eval", "history_size"):
            dict.__setitem__(group, key, _args.integer(group[key], key, name, minimum=1))
        for key in ("tolerance_grad", "tolerance_change"):
            dict.__setitem__(group, key, _args.real_as_given(group[key], key, name))
        dict.__setitem__(group, "maximize", _args.flag(group.get("maximize", False), "maximize", name))
        if group["line_search_fn"] not in (None, "strong_wolfe"):
            raise _C.InvalidArgumentError(f"LBFGS: line_search_fn must be None or 'strong_wolfe', got "
                                          f"{group['line_search_fn']!r} (only 'strong_wolfe' is supported)\n"
                                          f"  fix: LBFGS(params, line_search_fn='strong_wolfe')")

    def _update(self, p, group) -> None:  # step() below does the work
        raise NotImplementedError

    def state_dict(self) -> Dict[str, Any]:
        """Optimizer.state_dict(), its vectors (d, prev_flat_grad, old_dirs, old_stps; NumPy arrays
        here while iterating) as tensors on the parameters' device, as PyTorch's; so are the scalars
        PyTorch computes as dot products (ro, al, and H_diag once a pair was accepted; before that
        H_diag is PyTorch's int 1), 0-d tensors of the parameters' dtype."""
        out = super().state_dict()
        device = self._params[0].device if self._params else None
        for entry in out["state"].values():
            for key, value in list(entry.items()):
                if isinstance(value, (np.ndarray, np.generic)):
                    entry[key] = tensor(value, device=device)
                elif isinstance(value, list) and any(isinstance(v, (np.ndarray, np.generic)) for v in value):
                    entry[key] = [tensor(v, device=device) if isinstance(v, (np.ndarray, np.generic)) else v
                                  for v in value]
        return out

    def load_state_dict(self, state_dict: Dict[str, Any]) -> None:
        """Restores what state_dict() returned: the group's hyperparameters and the iteration's
        state (held under the first parameter, as PyTorch's; its vectors span every parameter)."""
        saved = state_dict.get("optimizer", "LBFGS")
        groups = list(state_dict.get("param_groups") or [])
        if saved != "LBFGS" or len(groups) != 1 or len(groups[0].get("params", [])) != len(self._params):
            raise _C.InvalidArgumentError(
                f"LBFGS.load_state_dict: the state is from {saved} over {[len(g.get('params', [])) for g in groups]} "
                f"parameters, this LBFGS has one group of {len(self._params)}\n  fix: load the state saved from an "
                f"LBFGS over the same model's parameters")
        entry = dict((state_dict.get("state") or {}).get(groups[0]["params"][0]) or {})
        size = sum(p.numel() for p in self._params)
        for key in ("d", "prev_flat_grad"):
            if entry.get(key) is not None and np.asarray(entry[key]).size != size:
                raise _C.ShapeError(f"LBFGS.load_state_dict: '{key}' has {np.asarray(entry[key]).size} elements, the "
                                    f"parameters {size}\n  fix: load the state saved together with this model's weights")
        values = {k: v for k, v in groups[0].items() if k not in ("params", "param_names")}
        candidate = dict(self.param_groups[0])
        candidate.update(values)
        self._check_group(candidate)
        dict.update(self.param_groups[0], values)
        dtype = self._dtype()
        for key in ("d", "prev_flat_grad"):
            if entry.get(key) is not None:
                entry[key] = np.asarray(entry[key], dtype=dtype).reshape(-1)
        for key in ("old_dirs", "old_stps"):
            if entry.get(key) is not None:
                entry[key] = [np.asarray(v, dtype=dtype).reshape(-1) for v in entry[key]]
        for key in ("ro", "al"):   # al holds None where PyTorch's two-loop recursion never wrote
            if entry.get(key) is not None:
                entry[key] = [None if v is None else dtype.type(float(v)) for v in entry[key]]
        if entry.get("H_diag") is not None and not isinstance(entry["H_diag"], int):
            entry["H_diag"] = dtype.type(float(entry["H_diag"]))
        self.state = defaultdict(dict, {self._params[0]: entry} if entry else {})

    # ---- the flat vector view of the parameters ----
    def _dtype(self) -> np.dtype:
        return np.dtype(self._params[0].dtype if self._params[0].dtype in ("float32", "float64") else "float32")

    def _flat_grad(self) -> np.ndarray:
        """The gradient of the minimized function: negated with maximize=True (so is the loss, _loss)."""
        parts = [np.zeros(p.numel(), self._dtype()) if p.grad is None else p.grad.numpy(force=True).reshape(-1)
                 for p in self._params]
        flat = np.concatenate(parts).astype(self._dtype(), copy=False)
        return -flat if self.param_groups[0]["maximize"] else flat

    def _loss(self, value) -> float:
        # item(), not float(): PyTorch's step reads the loss under no_grad, where float() of a
        # tensor that requires grad gives no warning; glassgrad's float() gives it in any grad mode
        value = value.item() if isinstance(value, Tensor) else float(value)
        return -value if self.param_groups[0]["maximize"] else value

    def _add(self, t: float, d: np.ndarray) -> None:
        """p += t d (the slice of d that is p's), in place."""
        offset = 0
        with no_grad():
            for p in self._params:
                n = p.numel()
                step = (d[offset:offset + n] * d.dtype.type(t)).reshape(tuple(p.shape))
                p.add_(tensor(step, dtype=p.dtype, device=p.device))
                offset += n

    def _values(self) -> List[np.ndarray]:
        return [p.numpy(force=True).copy() for p in self._params]

    def _restore(self, values: List[np.ndarray]) -> None:
        with no_grad():
            for p, v in zip(self._params, values):
                p.copy_(tensor(v, dtype=p.dtype, device=p.device))

    def _evaluate(self, closure, start: List[np.ndarray], t: float, d: np.ndarray) -> Tuple[float, np.ndarray]:
        """The loss and flat gradient at start + t d; the parameters are left at start."""
        self._add(t, d)
        with enable_grad():
            loss = self._loss(closure())
        g = self._flat_grad()
        self._restore(start)
        return loss, g

    def step(self, closure: Optional[Callable[[], Tensor]] = None):
        """Up to max_iter L-BFGS iterations; closure() re-evaluates the model and returns the loss.
        Returns the closure's first loss (before this step moved the parameters)."""
        if closure is None:   # a TypeError, as PyTorch's (closure is its required positional argument)
            raise TypeError("LBFGS.step() requires a closure that reevaluates the model and returns "
                            "the loss (missing 1 required positional argument: 'closure')\n  fix: def closure(): "
                            "optimizer.zero_grad(); loss = criterion(model(x), y); loss.backward(); return loss\n"
                            "       optimizer.step(closure)")
        if len(self.param_groups) != 1:   # PyTorch's check, for a group added after construction
            raise AssertionError(f"Expected exactly one param_group, but got {len(self.param_groups)}")
        self._step_calls += 1
        group = self.param_groups[0]
        # (a tensor lr stays the group's object, as PyTorch's; the step reads its value)
        lr, max_iter, max_eval = float(group["lr"]), group["max_iter"], group["max_eval"]
        tolerance_grad, tolerance_change = group["tolerance_grad"], group["tolerance_change"]
        history_size, line_search_fn = group["history_size"], group["line_search_fn"]

        state = self.state.setdefault(self._params[0], {})
        state.setdefault("func_evals", 0)
        state.setdefault("n_iter", 0)

        with enable_grad():
            orig_loss = closure()
        loss = self._loss(orig_loss)
        current_evals = 1
        state["func_evals"] += 1
        flat_grad = self._flat_grad()
        if np.abs(flat_grad).max() <= tolerance_grad:
            return orig_loss

        # None before the first iteration, which sets each of them
        d: Any = state.get("d")
        t: Any = state.get("t")
        old_dirs: Any = state.get("old_dirs")
        old_stps: Any = state.get("old_stps")
        ro: Any = state.get("ro")
        h_diag: Any = state.get("H_diag")
        prev_flat_grad: Any = state.get("prev_flat_grad")
        prev_loss: Any = state.get("prev_loss")
        al: Any = state.get("al")

        n_iter = 0
        while n_iter < max_iter:
            n_iter += 1
            state["n_iter"] += 1
            if state["n_iter"] == 1:
                d = -flat_grad
                old_dirs, old_stps, ro = [], [], []
                h_diag = 1   # PyTorch's int until the first accepted pair
            else:
                y = flat_grad - prev_flat_grad
                s = d * d.dtype.type(t)
                # the scalars are NumPy scalars of the parameters' dtype, PyTorch's 0-d tensors
                ys = y.dot(s)
                if ys > 1e-10:
                    if len(old_dirs) == history_size:
                        old_dirs.pop(0)
                        old_stps.pop(0)
                        ro.pop(0)
                    old_dirs.append(y)
                    old_stps.append(s)
                    ro.append(1.0 / ys)
                    h_diag = ys / y.dot(y)
                # two-loop recursion: d = -H g; al is kept in the state from its first use on (and its
                # entries past the history stay None), as PyTorch keeps it
                al = state.setdefault("al", [None] * history_size)
                q = -flat_grad
                for i in range(len(old_dirs) - 1, -1, -1):
                    al[i] = old_stps[i].dot(q) * ro[i]
                    q = q - al[i] * old_dirs[i]
                r = q * q.dtype.type(h_diag)
                for i in range(len(old_dirs)):
                    be_i = old_dirs[i].dot(r) * ro[i]
                    r = r + old_stps[i] * (al[i] - be_i)
                d = r
            prev_flat_grad = flat_grad.copy()
            prev_loss = loss

            t = min(1.0, 1.0 / float(np.abs(flat_grad).sum())) * lr if state["n_iter"] == 1 else lr
            gtd = float(flat_grad.dot(d))
            if gtd > -tolerance_change:  # not a descent direction
                break

            evals = 0
            if line_search_fn is not None:
                start = self._values()
                loss, flat_grad, t, evals = _strong_wolfe(lambda step: self._evaluate(closure, start, step, d), t, d,
                                                          loss, flat_grad, gtd)
                self._add(t, d)
                opt_cond = np.abs(flat_grad).max() <= tolerance_grad
            else:
                self._add(t, d)
                opt_cond = False
                if n_iter != max_iter:
                    with enable_grad():
                        loss = self._loss(closure())
                    flat_grad = self._flat_grad()
                    opt_cond = np.abs(flat_grad).max() <= tolerance_grad
                    evals = 1
            current_evals += evals
            state["func_evals"] += evals

            if n_iter == max_iter or current_evals >= max_eval or opt_cond:
                break
            if np.abs(d * d.dtype.type(t)).max() <= tolerance_change:
                break
            if abs(loss - prev_loss) < tolerance_change:
                break

        state.update(d=d, t=t, old_dirs=old_dirs, old_stps=old_stps, ro=ro, H_diag=h_diag,
                     prev_flat_grad=prev_flat_grad, prev_loss=prev_loss)
        return orig_loss
