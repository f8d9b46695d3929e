"""The generator used to initialize parameters: glassgrad.manual_seed(s) makes runs repeatable."""
import numpy as np

_rng = np.random.default_rng()


def manual_seed(seed: int) -> None:
    """Seeds glassgrad's generator, which initializes parameters and draws rand, randn, dropout masks, ... (torch.manual_seed)."""
    global _rng
    _rng = np.random.default_rng(seed)


def generator() -> np.random.Generator:
    """glassgrad's NumPy generator (glassgrad.manual_seed seeds it)."""
    return _rng


def dropout_seed(device: str, what: str):
    """A fresh seed (an int64 scalar tensor) for a counter-based dropout mask (the Dropout op,
    scaled_dot_product_attention's dropout), drawn from the generator above and redrawn at every
    replay of a compiled step: a new mask each call, repeatable under manual_seed."""
    from . import _C
    from ._tensor import _wrap
    from .compile import random_input

    def draw() -> "_C.Tensor":
        value = np.asarray(_rng.integers(0, 2**63 - 1), dtype=np.int64)
        return _C.Tensor.from_numpy(value, device, what)

    return random_input(_wrap(_C.lazy_leaf(draw(), "input", False, "")), draw)

