"""GradScaler: multiplies the loss by a scale so small float16 gradients do not underflow,
unscales the gradients before the step, skips the step when any gradient is inf or NaN and
lowers the scale, and raises it again after growth_interval clean steps (PyTorch's
torch.amp.GradScaler; same arguments, defaults and state_dict)."""
from __future__ import annotations

import warnings
from typing import Any, Dict, Optional

import numpy as np

from .._runtime import no_grad
from .._tensor import Tensor


class GradScaler:
    def __init__(self, device: str = "cuda", init_scale: float = 2.0 ** 16, growth_factor: float = 2.0,
                 backoff_factor: float = 0.5, growth_interval: int = 2000, enabled: bool = True):
        self._device = str(device).split(":")[0]
        if enabled and self._device == "cuda":
            from .. import cuda
            if not cuda.is_available():
                warnings.warn("torch.cuda.amp.GradScaler is enabled, but CUDA is not available.  Disabling.")
                enabled = False
        # PyTorch checks the factors of an enabled scaler only, and only these two bounds
        if enabled and growth_factor <= 1.0:
            raise AssertionError(f"The growth factor must be > 1.0.\n  GradScaler got growth_factor={growth_factor}; "
                                 f"fix: a factor above 1, e.g. the default growth_factor=2.0")
        if enabled and backoff_factor >= 1.0:
            raise AssertionError(f"The backoff factor must be < 1.0.\n  GradScaler got backoff_factor={backoff_factor}; "
                                 f"fix: a factor below 1, e.g. the default backoff_factor=0.5")
        self._enabled = bool(enabled)
        self._scale = float(np.float32(init_scale))
        self._growth_factor, self._backoff_factor = float(growth_factor), float(backoff_factor)
        self._growth_interval = int(growth_interval)
        self._growth_tracker = 0
        self._per_optimizer: Dict[int, Dict[str, Any]] = {}
        # PyTorch makes its scale tensor at the first scale() call: unscale_, step and update
        # before it are errors (load_state_dict sets the values without making it)
        self._scale_made = False

    def _check_scaled(self, funcname: str) -> None:
        if not self._scale_made:
            raise AssertionError(f"Attempted {funcname} but _scale is None.  This may indicate your script did not "
                                 f"use scaler.scale(loss or outputs) earlier in the iteration.\n  fix: "
                                 f"scaler.scale(loss).backward() before scaler.{funcname}(...)")

    def is_enabled(self) -> bool:
        return self._enabled

    def scale(self, outputs):
        """outputs (a tensor, or a list/tuple/dict of them) times the current scale."""
        if not self._enabled:
            return outputs
        self._scale_made = True
        if isinstance(outputs, Tensor):
            return outputs * self._scale
        if isinstance(outputs, (list, tuple)):
            return type(outputs)(self.scale(o) for o in outputs)
        if isinstance(outputs, dict):
            return {k: self.scale(v) for k, v in outputs.items()}
        raise ValueError("outputs must be a Tensor or an iterable of Tensors")

    def _state(self, optimizer) -> Dict[str, Any]:
        return self._per_optimizer.setdefault(id(optimizer), {"unscaled": False, "found_inf": False})

    def unscale_(self, optimizer) -> None:
        """Divides optimizer's gradients by the scale (once per step) and records whether any is
        inf or NaN; that check reads the gradients, so pending work is computed here."""
        if not self._enabled:
            return
        self._check_scaled("unscale_")
        st = self._state(optimizer)
        if st.get("stepped"):
            raise RuntimeError("unscale_() is being called after step().")
        if st["unscaled"]:
            raise RuntimeError("unscale_() has already been called on this optimizer since the last update().")
        inv = float(np.float32(1.0 / self._scale))  # PyTorch's: the reciprocal in float64, held in float32
        found = False
        with no_grad():
            for group in optimizer.param_groups:
                for p in group["params"]:
                    if p.grad is None:
                        continue
                    if p.grad.dtype == "float16":
                        raise ValueError("Attempting to unscale FP16 gradients.")
                    g = p.grad * inv
                    p.grad = g
                    found = found or not bool(g.isfinite().all().item())
        st["unscaled"], st["found_inf"] = True, found

    def step(self, optimizer, *args, **kwargs) -> Optional[float]:
        """optimizer.step(), unless a gradient is inf or NaN (then skipped); unscales first if
        unscale_ was not called."""
        if not self._enabled:
            return optimizer.step(*args, **kwargs)
        if "closure" in kwargs:
            raise RuntimeError("Closure use is not currently supported if GradScaler is enabled.")
        self._check_scaled("step")
        st = self._state(optimizer)
        if st.get("stepped"):
            raise RuntimeError("step() has already been called since the last update().")
        if not st["unscaled"]:
            self.unscale_(optimizer)
        st["stepped"] = True
        if st["found_inf"]:
            return None
        return optimizer.step(*args, **kwargs)

    def update(self, new_scale=None) -> None:
        """Backs the scale off if any optimizer saw inf/NaN this step, else grows it every
        growth_interval clean steps; or sets it to new_scale."""
        if not self._enabled:
            return
        self._check_scaled("update")
        # the scale is held in float32, as PyTorch's scale tensor: each update rounds to it
        if new_scale is not None:
            self._scale = float(np.float32(new_scale.item() if isinstance(new_scale, Tensor) else new_scale))
        elif not any(st["unscaled"] for st in self._per_optimizer.values()):
            raise AssertionError("No inf checks were recorded prior to update.")
        elif any(st["found_inf"] for st in self._per_optimizer.values()):
            self._scale = float(np.float32(self._scale * self._backoff_factor))
            self._growth_tracker = 0
        else:
            self._growth_tracker += 1
            if self._growth_tracker == self._growth_interval:
                with np.errstate(over="ignore"):
                    grown = np.float32(self._scale * self._growth_factor)
                if np.isfinite(grown):  # a scale that would overflow float32 stays
                    self._scale = float(grown)
                self._growth_tracker = 0
        self._per_optimizer = {}

    def get_scale(self) -> float:
        return self._scale if self._enabled else 1.0

    def _get_growth_tracker(self) -> int:
        """The clean steps counted toward the next growth (PyTorch's private reader; 0 when disabled)."""
        return self._growth_tracker if self._enabled else 0

    def get_growth_factor(self) -> float:
        return self._growth_factor

    def set_growth_factor(self, new_factor: float) -> None:
        self._growth_factor = float(new_factor)

    def get_backoff_factor(self) -> float:
        return self._backoff_factor

    def set_backoff_factor(self, new_factor: float) -> None:
        self._backoff_factor = float(new_factor)

    def get_growth_interval(self) -> int:
        return self._growth_interval

    def set_growth_interval(self, new_interval: int) -> None:
        self._growth_interval = int(new_interval)

    def state_dict(self) -> Dict[str, Any]:
        if not self._enabled:
            return {}
        return {"scale": self._scale, "growth_factor": self._growth_factor, "backoff_factor": self._backoff_factor,
                "growth_interval": self._growth_interval, "_growth_tracker": self._growth_tracker}

    def load_state_dict(self, state_dict: Dict[str, Any]) -> None:
        if not self._enabled:
            return
        if len(state_dict) == 0:
            raise RuntimeError("The source state dict is empty, possibly because it was saved from a disabled "
                               "instance of GradScaler.")
        self._scale = float(np.float32(np.asarray(state_dict["scale"])))
        self._growth_factor = float(state_dict["growth_factor"])
        self._backoff_factor = float(state_dict["backoff_factor"])
        self._growth_interval = int(state_dict["growth_interval"])
        self._growth_tracker = int(state_dict["_growth_tracker"])
