"""How tensors print (torch.set_printoptions): precision, threshold (above it, only edgeitems at
each end of each axis), linewidth, sci_mode; profiles 'default', 'short' and 'full'."""
from __future__ import annotations

import math
import sys
from typing import Any, Dict, Optional

import numpy as np

_PROFILES: Dict[str, Dict[str, Any]] = {"default": dict(precision=4, threshold=1000, edgeitems=3, linewidth=80),
             "short": dict(precision=2, threshold=1000, edgeitems=2, linewidth=80),
             "full": dict(precision=4, threshold=math.inf, edgeitems=3, linewidth=80)}
_options: Dict[str, Any] = dict(_PROFILES["default"], sci_mode=None)


def set_printoptions(precision: Optional[int] = None, threshold: Optional[float] = None,
                     edgeitems: Optional[int] = None, linewidth: Optional[int] = None,
                     profile: Optional[str] = None, sci_mode: Optional[bool] = None) -> None:
    """torch.set_printoptions: a profile first ('default', 'short', 'full'), then the named options
    over it; sci_mode True always prints floats in scientific notation, False never, None lets
    the values decide."""
    if profile is not None:
        if profile not in _PROFILES:
            raise ValueError(f"set_printoptions: unknown profile {profile!r}\n  fix: 'default', 'short' or 'full'")
        _options.update(_PROFILES[profile])
    for name, value in (("precision", precision), ("threshold", threshold), ("edgeitems", edgeitems),
                        ("linewidth", linewidth)):
        if value is not None:
            _options[name] = value
    _options["sci_mode"] = sci_mode


def get_printoptions() -> dict:
    """The current options (torch._tensor_str.PRINT_OPTS as a dict)."""
    return dict(_options)


def array_body(values: np.ndarray, prefix: str) -> str:
    """The values as the tensor's repr shows them, under the current options."""
    precision = int(_options["precision"])
    threshold = _options["threshold"]
    kwargs: Dict[str, Any] = dict(separator=", ", precision=precision, prefix=prefix, edgeitems=int(_options["edgeitems"]),
                  max_line_width=int(_options["linewidth"]),
                  threshold=sys.maxsize if threshold == math.inf else int(threshold))
    if values.dtype.kind == "f" and _options["sci_mode"] is not None:
        spec = f".{precision}e" if _options["sci_mode"] else f".{precision}f"
        kwargs["formatter"] = {"float_kind": lambda x: format(x, spec)}
    return np.array2string(values, **kwargs)
