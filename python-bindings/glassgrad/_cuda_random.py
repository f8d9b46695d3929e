"""torch.cuda.random: the CUDA generator functions, importable by that module name
(`from torch.cuda.random import manual_seed`). glassgrad has one generator for every device,
so each is cuda.py's (docs/porting.md)."""
from .cuda import initial_seed, manual_seed, manual_seed_all, seed, seed_all
from ._cuda_queries import get_rng_state, get_rng_state_all, set_rng_state, set_rng_state_all

__all__ = ["get_rng_state", "get_rng_state_all", "set_rng_state", "set_rng_state_all", "manual_seed",
           "manual_seed_all", "seed", "seed_all", "initial_seed"]
