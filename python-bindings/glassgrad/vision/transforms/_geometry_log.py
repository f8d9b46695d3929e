"""The geometric calls a transform makes on an image, recorded so that v2 can move the sample's
boxes and masks the same way (docs/data-loading.md, "Boxes and masks"). A transform draws its
random parameters once, for the image; the recording holds each outermost geometric function
called (resize, crop, pad, center_crop, resized_crop, hflip, vflip, affine, rotate, perspective,
elastic) with its arguments bound by name and the size of the image it was given. Replaying the
list on a mask (nearest neighbour) or on boxes (their kernels) repeats the image's geometry
without drawing again. Outside recording() the decorated functions cost one attribute read."""
from __future__ import annotations

import contextlib
import functools
import inspect
import threading
from typing import Any, Callable, Dict, Iterator, List, NamedTuple, Tuple

_state = threading.local()


class Call(NamedTuple):
    name: str                  # the functional's name
    size: Tuple[int, int]      # (height, width) of the image it was given
    args: Dict[str, Any]       # every parameter but the image, by name, defaults applied
    fn: Callable               # the undecorated function (a mask replays through it)


@contextlib.contextmanager
def recording() -> Iterator[List[Call]]:
    """Records the outermost geometric calls made inside the block into the list it gives."""
    outer = getattr(_state, "log", None), getattr(_state, "depth", 0)
    _state.log, _state.depth = [], 0
    try:
        yield _state.log
    finally:
        _state.log, _state.depth = outer


def geometric(fn: Callable) -> Callable:
    """Marks fn(img, ...) as geometric: inside recording(), an outermost call is logged."""
    signature = inspect.signature(fn)

    @functools.wraps(fn)
    def logged(img, *args, **kwargs):
        log = getattr(_state, "log", None)
        if log is None or _state.depth:
            return fn(img, *args, **kwargs)
        from . import _image as I
        bound = signature.bind(img, *args, **kwargs)
        bound.apply_defaults()
        named = dict(bound.arguments)
        named.pop(next(iter(signature.parameters)))
        _, h, w = I.dimensions(img)
        log.append(Call(fn.__name__, (h, w), named, fn))
        _state.depth += 1
        try:
            return fn(img, *args, **kwargs)
        finally:
            _state.depth -= 1
    logged.__wrapped__ = fn
    return logged
