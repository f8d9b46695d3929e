"""torch.autograd.grad_mode: the module path of the gradient-mode switches (scripts import
`from torch.autograd.grad_mode import no_grad`); they are glassgrad's own (_runtime). Also
set_multithreading_enabled, PyTorch's switch of its engine's device threads for backward: it
changes no result there, and glassgrad's backward builds its gradients on the calling thread
either way, so the setting is kept (is_multithreading_enabled reads it) and changes nothing."""
from .._runtime import enable_grad, inference_mode, no_grad, run_within, set_grad_enabled

__all__ = ["no_grad", "enable_grad", "set_grad_enabled", "inference_mode", "set_multithreading_enabled"]

_multithreading = [True]


def is_multithreading_enabled() -> bool:
    """torch.autograd.is_multithreading_enabled: what set_multithreading_enabled last set (True at first)."""
    return _multithreading[0]


def is_view_replay_enabled() -> bool:
    """torch.autograd.is_view_replay_enabled: False, PyTorch's default. glassgrad records every
    view as its chain of view ops (docs/inplace-and-views.md), with no setting to change."""
    return False


class set_multithreading_enabled:
    """set_multithreading_enabled(mode): sets the switch at once; as a context manager it restores
    the previous setting afterwards, as a decorator each call runs with `mode` (PyTorch's)."""

    def __init__(self, mode: bool) -> None:
        self._before = _multithreading[0]
        self._mode = bool(mode)
        _multithreading[0] = self._mode

    def __enter__(self) -> None:
        pass

    def __exit__(self, *exc) -> None:
        _multithreading[0] = self._before

    def __call__(self, fn):
        # (as PyTorch's: making the decorator set the switch already, and it stays set)
        return run_within(fn, self.clone)

    def clone(self) -> "set_multithreading_enabled":
        return self.__class__(self._mode)
