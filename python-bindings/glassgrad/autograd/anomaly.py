"""torch.autograd.detect_anomaly / set_detect_anomaly: while on (with check_nan), backward() and
autograd.grad() check what every backward function returns and raise PyTorch's RuntimeError at the
first one that returned NaN, naming it ("Function 'LogBackward0' returned nan values in its 0th
output."); the gradients a call returns or accumulates are checked too. Checking realizes the
gradients node by node (a post hook on each node of the graph, docs/autograd.md), so it is slow,
as PyTorch's anomaly mode is."""
from __future__ import annotations

import threading
import warnings

from .._dtypes import plain

_state = threading.local()


def is_anomaly_enabled() -> bool:
    return bool(_state.__dict__.get("on", False))


def is_anomaly_check_nan_enabled() -> bool:
    return bool(_state.__dict__.get("check_nan", True))


def set_anomaly_enabled(enabled: bool, check_nan: bool = True) -> None:
    """torch.set_anomaly_enabled(enabled, check_nan=True): anomaly detection on or off until set
    again (set_detect_anomaly's switch without its context manager)."""
    _state.on, _state.check_nan = bool(enabled), bool(check_nan)


class set_detect_anomaly:
    """set_detect_anomaly(mode, check_nan=True): on or off at once; also a context manager that
    restores the previous setting."""

    def __init__(self, mode: bool, check_nan: bool = True):
        self._before = (is_anomaly_enabled(), is_anomaly_check_nan_enabled())
        _state.on, _state.check_nan = bool(mode), bool(check_nan)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        _state.on, _state.check_nan = self._before


class detect_anomaly(set_detect_anomaly):
    """with detect_anomaly(): ... (check_nan=True): anomaly detection on inside the block only."""

    def __init__(self, check_nan: bool = True):
        self._check_nan = check_nan
        self._before = (is_anomaly_enabled(), is_anomaly_check_nan_enabled())
        warnings.warn("Anomaly Detection has been enabled. This mode will increase the runtime and should only be "
                      "enabled for debugging.", stacklevel=2)

    def __enter__(self):
        self._before = (is_anomaly_enabled(), is_anomaly_check_nan_enabled())
        _state.on, _state.check_nan = True, bool(self._check_nan)
        return self

    def __call__(self, fn):
        from .._runtime import run_within
        check_nan = self._check_nan
        return run_within(fn, lambda: detect_anomaly(check_nan))


def _nan_count(g) -> int:
    import numpy as np
    values = g.float().numpy(force=True) if plain(g.dtype) == "bfloat16" else g.numpy(force=True)
    return int(np.isnan(values).sum())


def _checks_nan(g) -> bool:
    return g is not None and g.dtype.is_floating_point


def watch_nodes(root) -> list:
    """When anomaly detection (with check_nan) is on: a post hook on every node reachable from root
    (a grad_fn) that raises PyTorch's RuntimeError when the node's backward returned NaN; backward
    runs the nodes from the output down, so the first to raise made the NaN. Returns the hooks'
    handles (remove them after the backward); [] when off."""
    if root is None or not (is_anomaly_enabled() and is_anomaly_check_nan_enabled()):
        return []
    nodes, stack, seen = [], [root], {id(root)}
    while stack:
        node = stack.pop()
        nodes.append(node)
        for nxt, _ in node.next_functions:
            if nxt is not None and id(nxt) not in seen:
                seen.add(id(nxt))
                stack.append(nxt)

    def hook_for(name):
        def check(grad_inputs, grad_outputs):
            for i, g in enumerate(grad_inputs):
                if _checks_nan(g) and _nan_count(g):
                    raise RuntimeError(f"Function '{name}' returned nan values in its {i}th output.\n"
                                       f"  anomaly detection: {name}'s gradient {list(g.shape)} holds "
                                       f"{_nan_count(g)} NaN\n" + _CAUSE_AND_FIX)
        return check
    # (AccumulateGrad nodes, the leaves', return nothing: check_gradients reads the leaves' gradients)
    return [n.register_hook(hook_for(n.name())) for n in nodes if hasattr(n, "register_hook")]


_CAUSE_AND_FIX = ("  cause: a NaN or inf in the forward values, a log/sqrt/division at 0, or a learning rate that "
                  "made the weights overflow\n"
                  "  fix: glassgrad.debug.check_nan_gradients(model) names the layer; lower the learning rate, or "
                  "clamp the input of log/sqrt")


def check_gradients(named_grads) -> None:
    """Raises RuntimeError for the first (name, gradient) pair whose gradient holds NaN, when
    anomaly detection (with check_nan) is on."""
    if not (is_anomaly_enabled() and is_anomaly_check_nan_enabled()):
        return
    for name, g in named_grads:
        if _checks_nan(g) and _nan_count(g):
            raise RuntimeError(f"Function backward returned nan values in its output (anomaly detection): the "
                               f"gradient of {name} {list(g.shape)} holds {_nan_count(g)} NaN\n" + _CAUSE_AND_FIX)
