"""glassgrad.Generator: torch.Generator's object, a seedable source of random numbers for the
functions that take `generator=` (samplers, random_split, DataLoader). It holds a NumPy
Generator (glassgrad's random numbers are NumPy's, see _random.py)."""
from __future__ import annotations

import copy
import secrets

import numpy as np

from . import _device

_U64 = 1 << 64


class Generator:
    """Generator(device='cpu'): seeded from the operating system until manual_seed(seed), which
    returns the generator itself (`Generator().manual_seed(42)`)."""

    __module__ = "glassgrad"

    def __init__(self, device="cpu"):
        self.device = _device.device(device)
        self.seed()

    def manual_seed(self, seed) -> "Generator":
        seed = int(seed)
        if not -(1 << 63) <= seed < _U64:
            raise RuntimeError(f"Generator.manual_seed: the seed must fit in 64 bits, got {seed}")
        self._initial = seed % _U64  # a negative seed wraps to its unsigned value, as PyTorch's
        self._numpy = np.random.default_rng(self._initial)
        return self

    def seed(self) -> int:
        """Reseeds from the operating system's entropy; returns the new seed."""
        self.manual_seed(secrets.randbits(63))
        return self._initial

    def initial_seed(self) -> int:
        return self._initial

    def get_state(self) -> dict:
        """The generator's state (a copy: set_state(state) returns to this point)."""
        return copy.deepcopy(self._numpy.bit_generator.state)

    def set_state(self, new_state: dict) -> "Generator":
        self._numpy.bit_generator.state = copy.deepcopy(new_state)
        return self

    def numpy_generator(self) -> np.random.Generator:
        """The NumPy Generator the numbers come from."""
        return self._numpy

    def __repr__(self) -> str:
        return "<glassgrad.Generator object>"
