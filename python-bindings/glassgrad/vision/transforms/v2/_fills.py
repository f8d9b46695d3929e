"""v2's `fill` given per input type, as torchvision's _setup_fill_arg / _get_fill: a dict such as
{tv_tensors.Image: (123, 117, 104), "others": 0} (its detection reference's RandomZoomOut) gives
each input the fill of its exact type, else the "others" entry. While a transform with such a fill
runs (active()), a mask that follows the image takes the tv_tensors.Mask entry (_follow.py)."""
from __future__ import annotations

import contextlib
import numbers
import threading
from typing import Any, Dict, Iterator, Optional

_state = threading.local()


def check(fill: Dict[Any, Any], where: str) -> None:
    """torchvision's _check_fill_arg for a dict: every value a number, a sequence of numbers or None."""
    for key, value in fill.items():
        ok = value is None or isinstance(value, numbers.Number) or (
            isinstance(value, (tuple, list)) and all(isinstance(v, numbers.Number) for v in value))
        if not ok:
            raise TypeError(f"{where}: fill for {key!r} is {value!r}: got inappropriate fill arg, expected a number, "
                            f"a sequence of numbers or None\n  fix: e.g. fill={{tv_tensors.Image: (123, 117, 104), "
                            f"'others': 0}}")


def fill_for(fill, kind: type):
    """The fill for an input of type `kind`: fill itself unless it is a dict."""
    if not isinstance(fill, dict):
        return fill
    if kind in fill:
        return fill[kind]
    if "others" in fill:
        return fill["others"]
    raise RuntimeError(f"v2 transform: the fill dict {fill!r} has no entry for {kind.__name__} and no 'others' "
                       f"entry\n  fix: add {kind.__name__}: value, or 'others': value, to fill")


@contextlib.contextmanager
def active(fill) -> Iterator[None]:
    """Makes a dict fill the one masks that follow the image take their entry from."""
    outer = getattr(_state, "fill", None)
    _state.fill = fill if isinstance(fill, dict) else None
    try:
        yield
    finally:
        _state.fill = outer


def current() -> Optional[dict]:
    """The dict fill of the transform running now, or None."""
    return getattr(_state, "fill", None)
