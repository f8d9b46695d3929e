"""glassgrad.random: torch.random's names (`torch.random.manual_seed(42)`, `fork_rng`). glassgrad
has one generator for every device (docs/porting.md), so these act on the one manual_seed seeds."""
import contextlib
from typing import Iterator

from ._generator import Generator
from ._random import default_generator, get_rng_state, initial_seed, manual_seed, seed, set_rng_state

__all__ = ["Generator", "default_generator", "fork_rng", "get_rng_state", "initial_seed", "manual_seed", "seed",
           "set_rng_state"]


@contextlib.contextmanager
def fork_rng(devices=None, enabled: bool = True, _caller: str = "fork_rng", _devices_kw: str = "devices",
             device_type=None) -> Iterator[None]:
    """torch.random.fork_rng: draws inside the block leave the generator as it was before it.
    `devices` and `device_type` are accepted: the one generator serves every device."""
    if not enabled:
        yield
        return
    state = get_rng_state()
    try:
        yield
    finally:
        set_rng_state(state)
