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
