"""glassgrad.utils.hooks: RemovableHandle, what Tensor.register_hook returns (PyTorch's
torch.utils.hooks.RemovableHandle): .remove() takes the hook away; `with handle:` removes it at
the end of the block."""
from __future__ import annotations

import itertools
from typing import Callable

_ids = itertools.count()


class RemovableHandle:
    """A registered hook: remove() unregisters it (once; later calls do nothing)."""

    def __init__(self, remove: Callable[[], None]):
        self.id = next(_ids)
        self._remove = remove

    def remove(self) -> None:
        if self._remove is not None:
            remove, self._remove = self._remove, None
            remove()

    def __enter__(self) -> "RemovableHandle":
        return self

    def __exit__(self, *exc) -> None:
        self.remove()
