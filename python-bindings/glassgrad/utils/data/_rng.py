"""The random numbers of samplers, random_split and the DataLoader's worker seeds.

A `generator` argument is a glassgrad.Generator, a numpy.random.Generator (glassgrad's random
numbers are NumPy's, see glassgrad/_random.py) or None. None means: draw a fresh seed from glassgrad's global generator
each time, as PyTorch draws one from its default generator, so glassgrad.manual_seed(s) makes
shuffles, splits and worker seeds repeatable."""
from __future__ import annotations

import numpy as np

from ... import _random
from ..._generator import Generator


def generator_of(generator, what: str) -> np.random.Generator:
    """The NumPy generator to draw from for `what` (a sampler's or function's name)."""
    if generator is None:
        return np.random.default_rng(draw_seed(None))
    if isinstance(generator, np.random.Generator):
        return generator
    if isinstance(generator, Generator):
        return generator.numpy_generator()
    raise TypeError(f"{what}: generator must be a glassgrad.Generator, a numpy.random.Generator or None, got "
                    f"{type(generator).__name__}\n  fix: generator=glassgrad.Generator().manual_seed(42), or "
                    f"glassgrad.manual_seed(42) and no generator")


def draw_seed(generator) -> int:
    """A 63-bit seed from `generator`, or from glassgrad's global generator when it is None."""
    rng = _random.generator() if generator is None else generator_of(generator, "seed")
    return int(rng.integers(0, 2 ** 63 - 1, dtype=np.int64))
