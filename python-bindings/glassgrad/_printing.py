"""How tensors print (torch.set_printoptions): precision, threshold (above it, only edgeitems at
each end of each axis), linewidth, sci_mode; profiles 'default', 'short' and 'full'. The layout
is PyTorch's (docs/porting.md, the print(t) row): one width for every element, floats with
`precision` decimals ("1.5000"), floats that are all integers with a point ("2."), scientific notation when
the nonzero magnitudes span more than 1000x, exceed 1e8 or (for non-integers) fall below 1e-4."""
from __future__ import annotations

import math
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


class _Formatter:
    """PyTorch's element formatter: one mode (integer, fixed or scientific) and one width for
    every element of the tensor (of its summarized part when it is summarized)."""

    def __init__(self, values: np.ndarray):
        self.floating = values.dtype.kind == "f"
        self.int_mode, self.sci_mode, self.max_width = True, False, 1
        precision = int(_options["precision"])
        flat = values.reshape(-1)
        if not self.floating:
            for v in flat.tolist():
                self.max_width = max(self.max_width, len(str(v)))
        else:
            finite = flat[np.isfinite(flat) & (flat != 0)].astype(np.float64)
            if finite.size:
                mag = np.abs(finite)
                lo, hi = float(mag.min()), float(mag.max())
                self.int_mode = bool((finite == np.ceil(finite)).all())
                forced = _options["sci_mode"]
                self.sci_mode = (hi / lo > 1000.0 or hi > 1.0e8 or lo < 1.0e-4) if forced is None else bool(forced)
                if self.sci_mode:
                    strs = [f"{v:.{precision}e}" for v in finite.tolist()]
                elif self.int_mode:
                    strs = [f"{v:.0f}." for v in finite.tolist()]  # the point says: a float
                else:
                    strs = [f"{v:.{precision}f}" for v in finite.tolist()]
                self.max_width = max(len(t) for t in strs)

    def format(self, value) -> str:
        precision = int(_options["precision"])
        if not self.floating:
            out = str(value)
        elif self.sci_mode:
            out = f"{value:{self.max_width}.{precision}e}"
        elif self.int_mode:
            out = f"{value:.0f}" + ("" if math.isinf(value) or math.isnan(value) else ".")
        else:
            out = f"{value:.{precision}f}"
        return (self.max_width - len(out)) * " " + out


def _edges(n: int) -> Optional[int]:
    """How many items to keep at each end of an axis of n (None: all of them)."""
    e = int(_options["edgeitems"])
    return e if n > 2 * e else None


def _summarized(values: np.ndarray) -> np.ndarray:
    """The elements a summarized print shows: edgeitems at each end of each axis."""
    if values.ndim == 0:
        return values
    e = _edges(values.shape[0])
    if values.ndim == 1:
        return values if e is None else np.concatenate([values[:e], values[-e:]])
    if int(_options["edgeitems"]) == 0:
        return np.empty((0,) * values.ndim, values.dtype)
    rows = list(values) if e is None else list(values[:e]) + list(values[-e:])
    return np.stack([_summarized(r) for r in rows])


def _layout(values: np.ndarray, indent: int, summarize: bool, fmt: _Formatter) -> str:
    if values.ndim == 0:
        return fmt.format(values.item())
    e = _edges(values.shape[0]) if summarize else None
    if values.ndim == 1:
        width = fmt.max_width + 2
        per_line = max(1, int(math.floor((int(_options["linewidth"]) - indent) / width)))
        if summarize and int(_options["edgeitems"]) == 0:
            data = ["..."]
        elif e is not None:
            data = ([fmt.format(v) for v in values[:e].tolist()] + [" ..."]
                    + [fmt.format(v) for v in values[-e:].tolist()])
        else:
            data = [fmt.format(v) for v in values.tolist()]
        lines = [", ".join(data[i:i + per_line]) for i in range(0, len(data), per_line)]
        return "[" + ("," + "\n" + " " * (indent + 1)).join(lines) + "]"
    rows = range(values.shape[0]) if e is None else list(range(e)) + [None] + list(range(values.shape[0] - e,
                                                                                        values.shape[0]))
    slices = ["..." if i is None else _layout(values[i], indent + 1, summarize, fmt) for i in rows]
    return "[" + ("," + "\n" * (values.ndim - 1) + " " * (indent + 1)).join(slices) + "]"


def array_body(values: np.ndarray, prefix: str) -> str:
    """The values as the tensor's repr shows them, under the current options, the rows after the
    first indented under `prefix`."""
    if values.size == 0:
        return "[]"
    if values.dtype.kind == "f" and values.dtype.itemsize < 4:
        values = values.astype(np.float32)  # float16 prints its values, as PyTorch's .float()
    summarize = values.size > _options["threshold"]
    fmt = _Formatter(_summarized(values) if summarize else values)
    return _layout(values, len(prefix), summarize, fmt)


def with_suffixes(text: str, suffixes, indent: int) -> str:
    """text (the prefix and the values) with ", suffix" for each suffix and the closing
    parenthesis; a suffix that would pass the line width starts a new line, indented. A suffix is
    measured as PyTorch's text spells it ("dtype=torch.float64", 4 characters shorter than
    glassgrad's name), so the lines break where PyTorch's do and the text is PyTorch's with the
    module's name swapped; a line can pass the width by those characters."""
    parts = [text]
    last = len(text) - text.rfind("\n") + 1
    width = int(_options["linewidth"])
    for suffix in suffixes:
        size = len(suffix.replace("glassgrad.", "torch."))
        if last + size + 2 > width:
            parts.append(",\n" + " " * indent + suffix)
            last = indent + size
        else:
            parts.append(", " + suffix)
            last += size + 2
    return "".join(parts) + ")"
