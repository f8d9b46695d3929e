"""torch.cuda's memory names beyond cuda.py's: set/get_per_process_memory_fraction (glassgrad's
memory limit as a fraction of the GPU's memory), memory_stats_as_nested_dict,
reset_accumulated_memory_stats, max_memory_reserved, the deprecated max_memory_cached and
reset_max_memory_cached, memory_snapshot and ipc_collect (docs/cuda.md,
"torch.cuda names"). Without a usable GPU each answers as PyTorch's does before CUDA is
initialized: the queries an empty answer or 0, the rest a DeviceError (a RuntimeError) with the
reason."""
from __future__ import annotations

import warnings
from typing import Any, Dict, List

from . import cuda as _cuda
from ._cuda_queries import _usable, reset_peak_memory_stats

# The fraction set_per_process_memory_fraction last gave each device, with the limit it set.
_FRACTIONS: Dict[int, tuple] = {}


def set_per_process_memory_fraction(fraction, device=None) -> None:
    """Caps what glassgrad may hold on the GPU at fraction of its memory (glassgrad.set_memory_limit
    with fraction * total_memory; 1.0 lifts the cap). Over it, plans recompute activations and
    allocations raise OutOfMemoryError, as PyTorch's allocator raises past its fraction."""
    index = _usable(device)
    if not isinstance(fraction, float):
        raise TypeError(f"Invalid type for fraction argument, must be `float`\n  set_per_process_memory_fraction: "
                        f"got {fraction!r} ({type(fraction).__name__})\n  fix: a float in [0, 1], e.g. 0.5")
    if fraction < 0 or fraction > 1:
        raise ValueError(f"Invalid fraction value: {fraction}. Allowed range: 0~1\n  fix: a float in [0, 1]")
    from .memory import set_memory_limit
    limit = None if fraction == 1.0 else int(fraction * _cuda.device_info(index)["total_memory"])
    set_memory_limit(limit, f"cuda:{index}")
    _FRACTIONS[index] = (fraction, limit or 0)


def get_per_process_memory_fraction(device=None) -> float:
    """The fraction of the GPU's memory glassgrad may hold: set_per_process_memory_fraction's, or
    the memory limit (glassgrad.set_memory_limit) over the GPU's memory; 1.0 without a limit."""
    index = _usable(device)
    limit = int(_cuda.memory_stats(index).get("limit", 0))
    fraction, limit_set = _FRACTIONS.get(index, (1.0, 0))
    if limit == limit_set:
        return fraction
    return limit / int(_cuda.device_info(index)["total_memory"]) if limit else 1.0


def memory_stats_as_nested_dict(device=None) -> Dict[str, Any]:
    """memory_stats nested at each '.' of its keys, as PyTorch's ({} without a usable GPU)."""
    nested: Dict[str, Any] = {}
    for key, value in _cuda.memory_stats(_cuda.current_device() if device is None else device).items():
        *path, last = key.split(".")
        node = nested
        for part in path:
            node = node.setdefault(part, {})
        node[last] = value
    return nested


def reset_accumulated_memory_stats(device=None) -> None:
    """Restarts memory_stats' counts (num_allocs, num_frees) from 0."""
    from ._C import memory_stats as raw_stats
    index = _usable(device)
    stats = raw_stats(f"cuda:{index}")
    _cuda._COUNTED_BEFORE[index] = (int(stats["num_allocs"]), int(stats["num_frees"]))


def max_memory_reserved(device=None) -> int:
    """The most bytes held from the driver on the device: glassgrad tracks the peak of allocated
    bytes, so this is that peak or the bytes reserved now (memory_reserved), whichever is larger;
    0 without a usable GPU, as PyTorch's."""
    index = _cuda.current_device() if device is None else device
    return max(_cuda.max_memory_allocated(index), _cuda.memory_reserved(index))


def max_memory_cached(device=None) -> int:
    """Deprecated: max_memory_reserved, with PyTorch's FutureWarning."""
    warnings.warn("torch.cuda.max_memory_cached has been renamed to torch.cuda.max_memory_reserved", FutureWarning,
                  stacklevel=2)
    return max_memory_reserved(device)


def reset_max_memory_cached(device=None) -> None:
    """Deprecated: reset_peak_memory_stats, with PyTorch's FutureWarning."""
    warnings.warn("torch.cuda.reset_max_memory_cached now calls torch.cuda.reset_peak_memory_stats, which resets "
                  "/all/ peak memory stats.", FutureWarning, stacklevel=2)
    reset_peak_memory_stats(device)


def memory_snapshot(mempool_id=None, include_traces: bool = True) -> List[Dict[str, Any]]:
    """[] without a usable GPU, as PyTorch's. With one: a segment per device in PyTorch's format
    holding glassgrad's totals (total_size: reserved bytes, allocated_size and active_size: the
    tensors' bytes); glassgrad's allocator does not list its blocks, so "blocks" is empty."""
    if not _cuda.is_available():
        return []
    segments = []
    for index in range(_cuda.device_count()):
        stats = _cuda.memory_stats(index)
        used = int(stats["current"])
        segments.append({"device": index, "address": 0, "total_size": used + int(stats["cached"]),
                         "allocated_size": used, "active_size": used, "requested_size": used, "stream": 0,
                         "segment_type": "large", "segment_pool_id": (0, 0), "is_expandable": False, "blocks": []})
    return segments


def ipc_collect() -> None:
    """torch.cuda.ipc_collect: frees GPU memory other processes held through CUDA IPC. glassgrad
    shares no GPU memory between processes (its shared tensors live in CPU memory), so there is
    nothing to free; a DeviceError without a usable GPU, as PyTorch's RuntimeError."""
    _usable(None)
