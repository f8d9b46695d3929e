"""torch.autograd.detect_anomaly / set_detect_anomaly: while on, backward() checks the
gradients it computed and raises, naming the first tensor whose gradient holds NaN (PyTorch
raises at the backward function that produced it). Checking realizes the gradients at once."""
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


def check_gradients(named_grads) -> None:
    """Raises RuntimeError for the first (name, gradient) pair whose gradient holds NaN, when
    anomaly detection (with check_nan) is on."""
    if not (is_anomaly_enabled() and is_anomaly_check_nan_enabled()):
        return
    import numpy as np
    for name, g in named_grads:
        if g is None or not g.dtype.is_floating_point:
            continue
        values = g.float().numpy(force=True) if plain(g.dtype) == "bfloat16" else g.numpy(force=True)
        if np.isnan(values).any():
            raise RuntimeError(f"Function backward returned nan values in its output (anomaly detection): the "
                               f"gradient of {name} {list(g.shape)} holds {int(np.isnan(values).sum())} NaN\n"
                               "  cause: a NaN or inf in the forward values, a log/sqrt/division at 0, or a learning "
                               "rate that made the weights overflow\n"
                               "  fix: glassgrad.debug.check_nan_gradients(model) names the layer; lower the learning "
                               "rate, or clamp the input of log/sqrt")
