"""Runtime switches: gradient mode, the plan cache's statistics, threads."""
from __future__ import annotations

from . import _C


class no_grad:
    """Within this block, recorded ops do not track gradients (evaluation, metrics)."""

    def __enter__(self):
        self._prev = _C.grad_enabled()
        _C.set_grad_enabled(False)

    def __exit__(self, *exc):
        _C.set_grad_enabled(self._prev)

    def __call__(self, fn):
        def wrapper(*a, **k):
            with no_grad():
                return fn(*a, **k)
        wrapper.__name__ = getattr(fn, "__name__", "wrapped")
        wrapper.__doc__ = getattr(fn, "__doc__", None)
        return wrapper


class enable_grad(no_grad):
    def __enter__(self):
        self._prev = _C.grad_enabled()
        _C.set_grad_enabled(True)


def cache_stats() -> dict:
    """How often realizing found its plan in the cache ('hits') or compiled one ('compiles')."""
    return dict(_C.cache_stats())


def reset_cache_stats() -> None:
    _C.reset_cache_stats()


def clear_plan_cache() -> None:
    _C.clear_plan_cache()


def realize(*tensors) -> None:
    """Computes the given tensors and everything else pending, in one plan."""
    _C.lazy_realize([t._h for t in tensors])


def get_num_threads() -> int:
    return _C.get_num_threads()


def set_num_threads(n: int) -> None:
    _C.set_num_threads(int(n))


def set_fusion(on: bool) -> None:
    """Turns the fusion passes on (default) or off; the environment variable GLASSGRAD_FUSION=0
    turns them off for a whole run. Fused and unfused plans compute the same numbers."""
    _C.set_fusion(bool(on))
